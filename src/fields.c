/* fields.c — output.fields (fields.h). */
#include "fields.h"

#include <stdlib.h>
#include <string.h>

#include "kinds/kinds.h"
#include "physics/fields.h"
#include "util.h"

/* π as model.c uses it for the springs' k = E πr²/L */
#define FIELDS_PI 3.14159265358979323846

static const int field_ncomp[SIPD_FIELD_COUNT] = {3, 3, 3, 1, 1, 1, 6};

/* the groups whose elements are in /mesh, in its order */
#define MESH_KIND_(K, name) SIPD_KIND_##K,
static const int mesh_kinds[3] = {SIPD_MESH_KINDS(MESH_KIND_)};
#undef MESH_KIND_

static int group_ne(const sipd_model *m, int kind)
{
    int g = m->group_of[kind];
    return g >= 0 ? m->groups[g].ne : 0;
}

int fields_init(sipd_fields *f, const sipd_scene *sc, const sipd_model *m)
{
    int k, i;
    memset(f, 0, sizeof *f);
    for (k = 0; k < 3; k++) f->nel += group_ne(m, mesh_kinds[k]);
    for (k = 0; k < SIPD_FIELD_COUNT; k++) {
        size_t rows;
        if (!(sc->fields & (1u << k)))
            continue;
        i = f->n++;
        f->which[i] = k;
        f->spec[i].name = scene_field_name(k);
        f->spec[i].ncomp = field_ncomp[k];
        f->spec[i].per_element = k >= SIPD_FIELD_J;
        rows = f->spec[i].per_element ? (size_t)f->nel : (size_t)m->nv;
        if (!(f->val[i] = sipd_calloc(rows * field_ncomp[k] + 1, sizeof(double)))) {
            fields_free(f);
            return SIPD_EFAIL;
        }
    }
    if (f->n > 0 && group_ne(m, SIPD_KIND_EDGE) > 0) {
        const sipd_elem_group *G = &m->groups[m->group_of[SIPD_KIND_EDGE]];
        if (!(f->edge_area = sipd_malloc((size_t)G->ne * sizeof(double)))) {
            fields_free(f);
            return SIPD_EFAIL;
        }
        for (i = 0; i < G->ne; i++) {
            double r = sc->bodies[m->body[G->v[2 * i]]].radius;
            f->edge_area[i] = FIELDS_PI * r * r;
        }
    }
    return SIPD_OK;
}

/* Element e of group G (a /mesh kind) at positions x (kinds/<kind>.h kind_<name>_fields). */
static sipd_elem_fields element_fields(const sipd_fields *f, const sipd_model *m, const sipd_elem_group *G, int e,
                                       const double *x)
{
    const int *v = G->v + (size_t)G->nc * e;
    vec3 X[SIPD_MAX_CORNERS], y[SIPD_MAX_CORNERS];
    int c;
    for (c = 0; c < G->nc; c++) {
        X[c] = v3_load(m->X + 3 * v[c]);
        y[c] = v3_load(x + 3 * v[c]);
    }
    return kinds_fields(G->kind, G->mat ? &m->mats[G->mat[e]] : NULL, G->rest + (size_t)kind_rest_size(G->kind) * e, X, y,
                        G->kind == SIPD_KIND_EDGE ? f->edge_area[e] : 0);
}

int fields_compute(sipd_fields *f, const sipd_model *m, const double *x, const double *v, const double *fc)
{
    int i, k, e, off = 0;
    size_t n3 = (size_t)m->nv * 3, j;
    for (i = 0; i < f->n; i++) {
        double *o = f->val[i];
        switch (f->which[i]) {
        case SIPD_FIELD_DISPLACEMENT:
            for (j = 0; j < n3; j++) o[j] = x[j] - m->X[j];
            break;
        case SIPD_FIELD_VELOCITY:
            if (!v)
                return SIPD_EFAIL;
            memcpy(o, v, n3 * sizeof(double));
            break;
        case SIPD_FIELD_CONTACT_FORCE:
            if (fc)
                memcpy(o, fc, n3 * sizeof(double));
            else
                memset(o, 0, n3 * sizeof(double));
            break;
        default: break;   /* per element: below, one pass for all */
        }
    }
    for (k = 0; k < 3; k++) {
        int g = m->group_of[mesh_kinds[k]];
        const sipd_elem_group *G = g >= 0 ? &m->groups[g] : NULL;
        if (!G)
            continue;
#pragma omp parallel for schedule(static) private(i) if (G->ne > 4096)
        for (e = 0; e < G->ne; e++) {
            sipd_elem_fields q = element_fields(f, m, G, e, x);
            size_t row = (size_t)off + (size_t)e;
            for (i = 0; i < f->n; i++) {
                double *o = f->val[i];
                int c;
                switch (f->which[i]) {
                case SIPD_FIELD_J: o[row] = q.J; break;
                case SIPD_FIELD_VON_MISES: o[row] = q.von_mises; break;
                case SIPD_FIELD_ENERGY_DENSITY: o[row] = q.energy_density; break;
                case SIPD_FIELD_STRAIN:
                    for (c = 0; c < 6; c++) o[6 * row + c] = q.strain[c];
                    break;
                default: break;
                }
            }
        }
        off += G->ne;
    }
    return SIPD_OK;
}

void fields_free(sipd_fields *f)
{
    int i;
    for (i = 0; i < SIPD_FIELD_COUNT; i++) free(f->val[i]);
    free(f->edge_area);
    memset(f, 0, sizeof *f);
}
