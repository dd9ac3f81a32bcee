/* model.c — build the simulated system from a resolved scene (see model.h). */
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "initpos.h"
#include "mesh.h"
#include "midedge_rest.h"
#include "physics/bend.h"
#include "physics/edge.h"
#include "physics/tri.h"
#include "kinds/kinds.h"
#include "physics/kinematic.h"
#include "physics/midedge.h"
#include "meshgen.h"
#include "physics/tet.h"
#include "util.h"

#define SIPD_PI 3.14159265358979323846

void model_free(sipd_model *m)
{
    free(m->X);
    free(m->X0);
    free(m->V0);
    free(m->tets);
    free(m->tris);
    free(m->body);
    free(m->mass);
    free(m->Bm);
    free(m->vol);
    free(m->tet_mat);
    free(m->mats);
    free(m->fixed);
    free(m->move_of);
    free(m->motions);
    free(m->inc_off);
    free(m->inc_elem);
    free(m->inc_group);
    free(m->inc_corner);
    free(m->inc_w);
    free(m->color_off);
    free(m->color_verts);
    free(m->chunk_off);
    free(m->chunk_list);
    free(m->crad);
    free(m->contact_kv);
    free(m->cedges);
    free(m->cval);
    free(m->bodies);
    for (int g = 0; g < m->ngroups; g++)
        if (m->groups[g].kind != SIPD_KIND_TET) {   /* the tet group points at tets, Bm, vol, tet_mat */
            free(m->groups[g].v);
            free(m->groups[g].rest);
            free(m->groups[g].vol);
            free(m->groups[g].mat);
        }
    memset(m, 0, sizeof *m);
}

/* R = Rz Ry Rx from Euler angles in degrees. */
/* |coordinate| of a body after its transform (see mesh.c's MESH_MAX_COORD). */
#define MODEL_MAX_COORD 1e30

static mat3 euler_rotation(const double deg[3])
{
    double a = deg[0] * SIPD_PI / 180, b = deg[1] * SIPD_PI / 180, c = deg[2] * SIPD_PI / 180;
    mat3 rx = m3_identity(), ry = m3_identity(), rz = m3_identity();
    rx.m[4] = cos(a); rx.m[5] = -sin(a); rx.m[7] = sin(a); rx.m[8] = cos(a);
    ry.m[0] = cos(b); ry.m[2] = sin(b); ry.m[6] = -sin(b); ry.m[8] = cos(b);
    rz.m[0] = cos(c); rz.m[1] = -sin(c); rz.m[3] = sin(c); rz.m[4] = cos(c);
    return m3_mul(rz, m3_mul(ry, rx));
}

static int in_box(const sipd_scene_box *b, const double *p)
{
    int k;
    for (k = 0; k < 3; k++)
        if (p[k] < b->box_min[k] || p[k] > b->box_max[k])
            return 0;
    return 1;
}

/* The element groups (one per kind present; only tets today) over the model's arrays. */
static void build_groups(sipd_model *m)
{
    if (m->nt > 0) {
        sipd_elem_group *G = &m->groups[m->ngroups];
        G->kind = SIPD_KIND_TET;
        G->nc = kind_corners(SIPD_KIND_TET);
        G->ne = m->nt;
        G->v = m->tets;
        G->rest = m->Bm;
        G->vol = m->vol;
        G->mat = m->tet_mat;
        m->group_of[SIPD_KIND_TET] = m->ngroups++;
    }
}

/* SIPD's weight of corner l of element e of group G: V |∇N_l|² (kinds/<kind>.h). */
static double corner_weight(const sipd_elem_group *G, int e, int l)
{
    return kinds_weight(G->kind, G->rest + (size_t)kind_rest_size(G->kind) * e, G->vol[e], l);
}

static int build_incidence(sipd_model *m)
{
    int a, e, l, g;
    int *fill;
    size_t n = 0;
    for (g = 0; g < m->ngroups; g++) n += (size_t)m->groups[g].ne * m->groups[g].nc;
    m->inc_off = sipd_calloc((size_t)m->nv + 1, sizeof(int));
    m->inc_elem = sipd_malloc((n ? n : 1) * sizeof(int));
    m->inc_group = sipd_malloc(n ? n : 1);
    m->inc_corner = sipd_malloc(n ? n : 1);
    m->inc_w = sipd_malloc((n ? n : 1) * sizeof(double));
    fill = sipd_calloc((size_t)m->nv + 1, sizeof(int));
    if (!m->inc_off || !m->inc_elem || !m->inc_group || !m->inc_corner || !m->inc_w || !fill) {
        free(fill);
        return SIPD_EFAIL;
    }
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        for (e = 0; e < G->ne; e++)
            for (l = 0; l < G->nc; l++) m->inc_off[G->v[(size_t)G->nc * e + l] + 1]++;
    }
    for (a = 0; a < m->nv; a++) m->inc_off[a + 1] += m->inc_off[a];
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        for (e = 0; e < G->ne; e++)
            for (l = 0; l < G->nc; l++) {
                int v = G->v[(size_t)G->nc * e + l], k = m->inc_off[v] + fill[v]++;
                m->inc_elem[k] = e;
                m->inc_group[k] = (unsigned char)g;
                m->inc_corner[k] = (unsigned char)l;
                m->inc_w[k] = corner_weight(G, e, l);
            }
    }
    free(fill);
    return SIPD_OK;
}

/* Greedy colouring in vertex order: smallest colour unused by any vertex sharing a tet. */
static int build_colouring(sipd_model *m)
{
    int *color = sipd_malloc((size_t)m->nv * sizeof(int));
    int *mark = NULL, ncol = 0, cap = 64, a, k, l, c;
    if (!color)
        return SIPD_EFAIL;
    mark = sipd_malloc((size_t)cap * sizeof(int));
    if (!mark) {
        free(color);
        return SIPD_EFAIL;
    }
    for (c = 0; c < cap; c++) mark[c] = -1;
    for (a = 0; a < m->nv; a++) color[a] = -1;
    for (a = 0; a < m->nv; a++) {
        for (k = m->inc_off[a]; k < m->inc_off[a + 1]; k++) {
            const sipd_elem_group *G = &m->groups[m->inc_group[k]];
            const int *ev = G->v + (size_t)G->nc * m->inc_elem[k];
            for (l = 0; l < G->nc; l++) {
                int b = ev[l];
                if (b != a && color[b] >= 0)
                    mark[color[b]] = a;
            }
        }
        for (c = 0; c < cap && mark[c] == a; c++)
            ;
        if (c == cap) {
            int *nm = realloc(mark, (size_t)(2 * cap) * sizeof(int)), i;
            if (!nm) {
                free(mark);
                free(color);
                sipd_error("out of memory while colouring");
                return SIPD_EFAIL;
            }
            mark = nm;
            for (i = cap; i < 2 * cap; i++) mark[i] = -1;
            cap *= 2;
        }
        color[a] = c;
        if (c + 1 > ncol)
            ncol = c + 1;
    }
    m->ncolors = ncol;
    m->color_off = sipd_calloc((size_t)ncol + 1, sizeof(int));
    m->color_verts = sipd_malloc((size_t)m->nv * sizeof(int));
    if (!m->color_off || !m->color_verts) {
        free(mark);
        free(color);
        return SIPD_EFAIL;
    }
    for (a = 0; a < m->nv; a++) m->color_off[color[a] + 1]++;
    for (c = 0; c < ncol; c++) m->color_off[c + 1] += m->color_off[c];
    memset(mark, 0, (size_t)cap * sizeof(int));
    for (a = 0; a < m->nv; a++) m->color_verts[m->color_off[color[a]] + mark[color[a]]++] = a;
    free(mark);
    free(color);
    return SIPD_OK;
}

/* The tet chunks of the fused Jacobi pass (model.h chunk_*): when the elements are one tet
 * group, chunks of SIPD_TET_CHUNK consecutive tets coloured greedily in order, a 64-bit mask of
 * the colours used around each vertex; at most 64 colours (more: none, the pass gathers). */
/* Colours the chunks of S consecutive tets of group G greedily in order (col[c]: chunk c's
 * colour; mask: a zeroed word per vertex, used); returns the number of colours, 0 when more
 * than 64 would be needed. */
static int colour_chunks(const sipd_elem_group *G, int S, uint64_t *mask, unsigned char *col)
{
    const int nch = (G->ne + S - 1) / S;
    int c, ncol = 0;
    for (c = 0; c < nch; c++) {
        int e, l, e0 = c * S, e1 = e0 + S < G->ne ? e0 + S : G->ne, k = 0;
        uint64_t used = 0;
        for (e = e0; e < e1; e++)
            for (l = 0; l < 4; l++) used |= mask[G->v[4 * (size_t)e + l]];
        while (k < 64 && (used >> k & 1))
            k++;
        if (k == 64)   /* too many colours */
            return 0;
        col[c] = (unsigned char)k;
        if (k + 1 > ncol)
            ncol = k + 1;
        for (e = e0; e < e1; e++)
            for (l = 0; l < 4; l++) mask[G->v[4 * (size_t)e + l]] |= (uint64_t)1 << k;
    }
    return ncol;
}

/* The fused pass's tet chunks (model.h chunk_*): large chunks keep a thread's tets, and the
 * vertices they share, together in the caches (2048 tets took 26% less time per Jacobi
 * iteration than 64 on a 1M-tet box, docs/benchmarks.md); smaller ones when large ones need
 * more than 64 colours or leave fewer than 8 chunks per colour to share among threads. */
static int build_chunks(sipd_model *m)
{
    const sipd_elem_group *G;
    uint64_t *mask;
    unsigned char *col;
    static const int sizes[3] = {SIPD_TET_CHUNK_MAX, 512, SIPD_TET_CHUNK_MIN};
    int g, gi = -1, c, i, nch = 0, ncol = 0, S = 0;
    m->chunk_group = -1;
    m->nchunk_colors = 0;
    m->chunk_size = 0;
    for (g = 0; g < m->ngroups; g++)
        if (m->groups[g].ne > 0) {
            if (gi >= 0 || m->groups[g].kind != SIPD_KIND_TET)
                return SIPD_OK;
            gi = g;
        }
    if (gi < 0)
        return SIPD_OK;
    G = &m->groups[gi];
    mask = sipd_malloc((size_t)m->nv * sizeof *mask);
    col = sipd_malloc((size_t)(G->ne + SIPD_TET_CHUNK_MIN - 1) / SIPD_TET_CHUNK_MIN);
    if (!mask || !col) {
        free(mask);
        free(col);
        return SIPD_EFAIL;
    }
    for (i = 0; i < 3; i++) {
        S = sizes[i];
        memset(mask, 0, (size_t)m->nv * sizeof *mask);
        nch = (G->ne + S - 1) / S;
        ncol = colour_chunks(G, S, mask, col);
        if (ncol > 0 && (S == SIPD_TET_CHUNK_MIN || nch >= 8 * ncol))
            break;
        ncol = 0;
    }
    free(mask);
    if (ncol > 0) {
        m->chunk_off = sipd_calloc((size_t)ncol + 1, sizeof(int));
        m->chunk_list = sipd_malloc((size_t)nch * sizeof(int));
        if (!m->chunk_off || !m->chunk_list) {
            free(col);
            return SIPD_EFAIL;
        }
        for (c = 0; c < nch; c++) m->chunk_off[col[c] + 1]++;
        for (c = 0; c < ncol; c++) m->chunk_off[c + 1] += m->chunk_off[c];
        for (c = 0; c < nch; c++) m->chunk_list[m->chunk_off[col[c]]++] = c;   /* each colour's in order */
        for (c = ncol; c > 0; c--) m->chunk_off[c] = m->chunk_off[c - 1];
        m->chunk_off[0] = 0;
        m->chunk_group = gi;
        m->nchunk_colors = ncol;
        m->chunk_size = S;
    }
    free(col);
    return SIPD_OK;
}

/* ---- edge kinds (springs, rods) ---------------------------------------------------------- */

/* A group being filled: elements of nc corners with two rest values, a measure and a material. */
typedef struct {
    int nc, nr, n, cap;   /* corners, rest values per element */
    int *v, *mat;
    double *rest, *vol;
} grow_group;

static int gg_push_rest(grow_group *g, const int *v, const double *rest, double vol, int mat);
static int gg_push(grow_group *g, const int *v, double r0, double r1, double vol, int mat)
{
    double r[2];
    r[0] = r0;
    r[1] = r1;
    return gg_push_rest(g, v, r, vol, mat);
}

static int gg_push_rest(grow_group *g, const int *v, const double *rest, double vol, int mat)
{
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 256;
        int *nv = realloc(g->v, (size_t)cap * g->nc * sizeof(int)), *nm;
        double *nr, *nvol;
        if (!nv)
            return SIPD_EFAIL;
        g->v = nv;
        if (!(nr = realloc(g->rest, (size_t)cap * g->nr * sizeof(double))))
            return SIPD_EFAIL;
        g->rest = nr;
        if (!(nvol = realloc(g->vol, (size_t)cap * sizeof(double))))
            return SIPD_EFAIL;
        g->vol = nvol;
        if (!(nm = realloc(g->mat, (size_t)cap * sizeof(int))))
            return SIPD_EFAIL;
        g->mat = nm;
        g->cap = cap;
    }
    memcpy(g->v + (size_t)g->nc * g->n, v, (size_t)g->nc * sizeof(int));
    memcpy(g->rest + (size_t)g->nr * g->n, rest, (size_t)g->nr * sizeof(double));
    g->vol[g->n] = vol;
    g->mat[g->n] = mat;
    g->n++;
    return SIPD_OK;
}

/* An empty group of elements with nc corners and nr rest values each. */
static void gg_init(grow_group *g, int nc, int nr)
{
    memset(g, 0, sizeof *g);
    g->nc = nc;
    g->nr = nr;
}

static void gg_free(grow_group *g)
{
    free(g->v);
    free(g->rest);
    free(g->vol);
    free(g->mat);
    memset(g, 0, sizeof *g);
}

/* Hand a filled group to the model as kind k (nothing when empty). */
static void gg_adopt(sipd_model *m, grow_group *g, int kind)
{
    sipd_elem_group *G;
    if (g->n == 0) {
        gg_free(g);
        return;
    }
    G = &m->groups[m->ngroups];
    G->kind = kind;
    G->nc = g->nc;
    G->ne = g->n;
    G->v = g->v;
    G->rest = g->rest;
    G->vol = g->vol;
    G->mat = g->mat;
    m->group_of[kind] = m->ngroups++;
    memset(g, 0, sizeof *g);
}

static int cmp_edge(const void *a, const void *b)
{
    const int *x = (const int *)a, *y = (const int *)b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* The dimension of a mesh's body elements (mesh.h dim; a mesh built in memory without it: from
 * what it holds). */
static int mesh_dim(const sipd_mesh *me)
{
    return me->dim ? me->dim : me->nt > 0 ? 3 : me->nf > 0 ? 2 : 1;
}

/* What body b's mesh becomes (scene.h sipd_body_elements, auto resolved from the mesh). */
static int body_kind(const sipd_scene_body *bd, const sipd_mesh *me)
{
    static const int by_dim[4] = {SIPD_ELEMENTS_ROD, SIPD_ELEMENTS_ROD, SIPD_ELEMENTS_SHELL, SIPD_ELEMENTS_SOLID};
    return bd->elements == SIPD_ELEMENTS_AUTO ? by_dim[mesh_dim(me)] : bd->elements;
}

/* A body kind the mesh cannot give: an error naming the body, or SIPD_OK. */
static int check_body_kind(const sipd_scene *sc, int b, const sipd_mesh *me)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    const int k = body_kind(bd, me), d = mesh_dim(me);
    static const char *const what[4] = {"line segments", "line segments", "triangles", "tetrahedra"};
    const char *need = k == SIPD_ELEMENTS_SOLID && d != 3 ? "solid needs tetrahedra"
                       : k == SIPD_ELEMENTS_ROD && d != 1 ? "rod needs line segments (polylines)"
                       : k == SIPD_ELEMENTS_SHELL && d == 1 ? "shell needs triangles (or tetrahedra: their surface)"
                                                            : NULL;
    if (!need && bd->shell_keys && !(k == SIPD_ELEMENTS_SHELL || (k == SIPD_ELEMENTS_SPRINGS && d == 2)))
        need = "thickness, bending_stiffness and bending are only meaningful for a shell (or springs of triangles)";
    if (!need)
        return SIPD_OK;
    sipd_error_at(sc->path, bd->line, "bodies[%d]: elements = \"%s\": %s, but %s has %s", b,
                  k == SIPD_ELEMENTS_SOLID ? "solid" : k == SIPD_ELEMENTS_ROD ? "rod" : k == SIPD_ELEMENTS_SHELL ? "shell"
                                                                                          : "springs", need,
                  bd->mesh ? bd->mesh : "the generated body", what[d]);
    return SIPD_EINPUT;
}

static int push_spring(const sipd_scene *sc, int b, sipd_model *m, grow_group *ed, int va, int vb, double *Lout);

/* The 3 nf edges of nf triangles as (min, max) vertex pairs, sorted (cmp_edge); NULL when out of
 * memory.  An edge appears once per triangle that has it. */
static int *tri_edges_sorted(const int *tris, int nf)
{
    int *E = sipd_malloc(((size_t)nf * 6 + 2) * sizeof(int)), n = 0, i, k;
    if (!E)
        return NULL;
    for (i = 0; i < nf; i++)
        for (k = 0; k < 3; k++) {
            int a = tris[3 * i + k], c = tris[3 * i + (k + 1) % 3];
            E[2 * n] = a < c ? a : c;
            E[2 * n + 1] = a < c ? c : a;
            n++;
        }
    qsort(E, (size_t)n, 2 * sizeof(int), cmp_edge);
    return E;
}

/* Unique edges of nf triangles (0-based, offset vo) as springs. */
static int tri_springs(const sipd_scene *sc, int b, const int *tris, int nf, int vo, sipd_model *m, grow_group *ed)
{
    int *E = tri_edges_sorted(tris, nf), n = 3 * nf, i, rc = SIPD_OK;
    double L;
    if (!E)
        return SIPD_EFAIL;
    for (i = 0; i < n && rc == SIPD_OK; i++)
        if (i == 0 || cmp_edge(E + 2 * i, E + 2 * (i - 1)) != 0)
            rc = push_spring(sc, b, m, ed, vo + E[2 * i], vo + E[2 * i + 1], &L);
    free(E);
    return rc;
}

/* Lumped masses ρ A t / 3 of nf triangles (offset vo). */
static void tri_masses(const sipd_scene *sc, int b, const int *tris, int nf, int vo, sipd_model *m)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    int i, k;
    for (i = 0; i < nf; i++) {
        const int *t = tris + 3 * i;
        vec3 c = v3_cross(v3_sub(v3_load(m->X + 3 * (vo + t[1])), v3_load(m->X + 3 * (vo + t[0]))),
                          v3_sub(v3_load(m->X + 3 * (vo + t[2])), v3_load(m->X + 3 * (vo + t[0]))));
        double A = 0.5 * sqrt(v3_norm2(c));
        for (k = 0; k < 3; k++) m->mass[vo + t[k]] += sc->materials[bd->material].density * A * bd->thickness / 3;
    }
}

typedef struct {
    grow_group *g;
    int mat;
} midedge_ctx;

static int midedge_push(void *ctx, const int *v, const double *rest, double area)
{
    midedge_ctx *c = (midedge_ctx *)ctx;
    return gg_push_rest(c->g, v, rest, area, c->mat);
}

/* bodies[].bending = "auto" (docs/element-kinds.md#shell-bending-hinge-or-mid-edge): the
 * mid-edge element where the mesh resolves the body's bending length ℓ = (D / (ρ t |g|))^(1/3)
 * — the radius of curvature its own weight bends it to — by at least SIPD_BEND_RESOLVED mean
 * triangle edges (plates, stiff sheets: the mid-edge element converges to Kirchhoff plate
 * theory, the hinge does not), the dihedral hinges where it does not (cloth: its folds are
 * about an element wide, which the hinge follows and the mid-edge's quadratic fit stiffens).
 * Without gravity ℓ is infinite: mid-edge.  Sets m->bodies[b].bending, bend_length, mean_edge. */
#define SIPD_BEND_RESOLVED 4.0
static int shell_bending(const sipd_scene *sc, int b, const int *tris, int nf, int vo, double D, sipd_model *m)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    const sipd_scene_material *mat = &sc->materials[bd->material];
    double sum = 0, g = sqrt(sc->gravity[0] * sc->gravity[0] + sc->gravity[1] * sc->gravity[1] +
                             sc->gravity[2] * sc->gravity[2]), w = mat->density * bd->thickness * g;
    int i, k;
    for (i = 0; i < nf; i++)
        for (k = 0; k < 3; k++)
            sum += sqrt(v3_norm2(v3_sub(v3_load(m->X + 3 * (size_t)(vo + tris[3 * i + (k + 1) % 3])),
                                        v3_load(m->X + 3 * (size_t)(vo + tris[3 * i + k])))));
    m->bodies[b].mean_edge = nf > 0 ? sum / (3.0 * nf) : 0;
    m->bodies[b].bend_length = w > 0 ? cbrt(D / w) : INFINITY;
    if (bd->bending != SIPD_BENDING_AUTO)
        return bd->bending;
    return m->bodies[b].bend_length >= SIPD_BEND_RESOLVED * m->bodies[b].mean_edge ? SIPD_BENDING_MIDEDGE
                                                                                  : SIPD_BENDING_DIHEDRAL;
}

/* Shell body b: membrane triangles (material index mat_off + the body's material: the plane-stress
 * copies, model_build_meshes) and its bending: a hinge on every edge shared by exactly two
 * triangles (bending = "dihedral") or a mid-edge element per triangle (bending = "midedge",
 * group gm; midedge_rest.c). */
static int shell_elements(const sipd_scene *sc, int b, const int *tris, int nf, int vo, int mat_off, sipd_model *m,
                          grow_group *gt, grow_group *gh, grow_group *gm)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    const sipd_scene_material *mat = &sc->materials[bd->material];
    const double D = bd->bending_stiffness >= 0 ? bd->bending_stiffness
                     : mat->youngs * pow(bd->thickness, 3) / (12 * (1 - mat->poisson * mat->poisson));
    int *E = sipd_malloc(((size_t)nf * 12 + 4) * sizeof(int)), n = 0, i, k, rc = SIPD_OK, bending;
    double *area = sipd_malloc(((size_t)nf + 1) * sizeof(double));
    if (!E || !area) {
        free(E);
        free(area);
        return SIPD_EFAIL;
    }
    for (i = 0; i < nf && rc == SIPD_OK; i++) {
        int v[3];
        double Bm[4];
        for (k = 0; k < 3; k++) v[k] = vo + tris[3 * i + k];
        area[i] = tri_rest(v3_load(m->X + 3 * v[0]), v3_load(m->X + 3 * v[1]), v3_load(m->X + 3 * v[2]), Bm);
        if (!(area[i] > 0) || !isfinite(Bm[0] + Bm[1] + Bm[2] + Bm[3])) {
            sipd_error_at(sc->path, bd->line, "bodies[%d]: triangle %d is degenerate (area %g)", b, i + 1, area[i]);
            rc = SIPD_EINPUT;
            break;
        }
        rc = gg_push_rest(gt, v, Bm, area[i] * bd->thickness, mat_off + bd->material);
        for (k = 0; k < 3; k++) {   /* (min, max, triangle, local index of the edge's first corner) */
            int a = tris[3 * i + k], c = tris[3 * i + (k + 1) % 3];
            E[4 * n] = a < c ? a : c;
            E[4 * n + 1] = a < c ? c : a;
            E[4 * n + 2] = i;
            E[4 * n + 3] = k;
            n++;
        }
    }
    if (m->bodies)
        m->bodies[b].bending = bending = shell_bending(sc, b, tris, nf, vo, D, m);
    else
        bending = bd->bending == SIPD_BENDING_MIDEDGE ? SIPD_BENDING_MIDEDGE : SIPD_BENDING_DIHEDRAL;
    if (rc == SIPD_OK && D > 0 && bending == SIPD_BENDING_MIDEDGE) {
        midedge_ctx ctx;
        int nlow = 0;
        ctx.g = gm;
        ctx.mat = bd->material;
        rc = midedge_rest_build(m->X + 3 * (size_t)vo, tris, nf, vo, D, mat->poisson, midedge_push, &ctx, &nlow);
        if (rc == SIPD_OK && nlow > 0)
            sipd_error_at(sc->path, bd->line, "warning: bodies[%d]: bending = \"midedge\": %d interior edge%s whose "
                         "neighbourhood does not determine a quadratic's slope (at a corner, or across a strip one or two "
                         "triangles wide): %s a least-norm estimate, not exact for quadratic deflections",
                         b, nlow, nlow == 1 ? "" : "s", nlow == 1 ? "its mid-edge slope is" : "their mid-edge slopes are each");
    } else if (rc == SIPD_OK && D > 0) {
        qsort(E, (size_t)n, 4 * sizeof(int), cmp_edge);   /* by (min, max) */
        for (i = 0; i < n && rc == SIPD_OK;) {
            int j = i;
            while (j < n && E[4 * j] == E[4 * i] && E[4 * j + 1] == E[4 * i + 1]) j++;
            if (j - i == 2) {   /* interior edge (an edge of more than two triangles gets no bending) */
                const int *t1 = tris + 3 * E[4 * i + 2], *t2 = tris + 3 * E[4 * (i + 1) + 2];
                int k1 = E[4 * i + 3], k2 = E[4 * (i + 1) + 3], v[4];
                double r[2], le2;
                v[0] = vo + t1[k1];
                v[1] = vo + t1[(k1 + 1) % 3];
                v[2] = vo + t1[(k1 + 2) % 3];
                v[3] = vo + t2[(k2 + 2) % 3];
                r[0] = hinge_theta(v3_load(m->X + 3 * v[0]), v3_load(m->X + 3 * v[1]), v3_load(m->X + 3 * v[2]),
                                   v3_load(m->X + 3 * v[3]));
                le2 = v3_norm2(v3_sub(v3_load(m->X + 3 * v[1]), v3_load(m->X + 3 * v[0])));
                r[1] = D * le2 / (2 * (area[E[4 * i + 2]] + area[E[4 * (i + 1) + 2]]));
                rc = gg_push_rest(gh, v, r, sqrt(le2), bd->material);
            }
            i = j;
        }
    }
    free(E);
    free(area);
    return rc;
}

/* The spring of world vertices a, b (rest length from X): k = spring_stiffness or E·πr²/L. */
static int push_spring(const sipd_scene *sc, int b, sipd_model *m, grow_group *ed, int va, int vb, double *Lout)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    double L = sqrt(v3_norm2(v3_sub(v3_load(m->X + 3 * va), v3_load(m->X + 3 * vb))));
    int v[2];
    if (!(L > 0) || !isfinite(L)) {
        sipd_error_at(sc->path, bd->line, "bodies[%d]: edge %d-%d has length %g: a spring needs a positive rest "
                      "length", b, va + 1, vb + 1, L);
        return SIPD_EINPUT;
    }
    v[0] = va;
    v[1] = vb;
    *Lout = L;
    return gg_push(ed, v, L, bd->spring_k > 0 ? bd->spring_k : sc->materials[bd->material].youngs * SIPD_PI *
                   bd->radius * bd->radius / L, L, bd->material);
}

/* Springs along the unique edges of body b's tets (vertices offset by vo). */
static int tet_springs(const sipd_scene *sc, int b, const sipd_mesh *me, int vo, sipd_model *m, grow_group *ed)
{
    static const int pr[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    int *E = sipd_malloc(((size_t)me->nt * 12 + 2) * sizeof(int)), n = 0, i, k, rc = SIPD_OK;
    double L;
    if (!E)
        return SIPD_EFAIL;
    for (i = 0; i < me->nt; i++)
        for (k = 0; k < 6; k++) {
            int a = me->tets[4 * i + pr[k][0]], c = me->tets[4 * i + pr[k][1]];
            E[2 * n] = a < c ? a : c;
            E[2 * n + 1] = a < c ? c : a;
            n++;
        }
    qsort(E, (size_t)n, 2 * sizeof(int), cmp_edge);
    for (i = 0; i < n && rc == SIPD_OK; i++)
        if (i == 0 || cmp_edge(E + 2 * i, E + 2 * (i - 1)) != 0)
            rc = push_spring(sc, b, m, ed, vo + E[2 * i], vo + E[2 * i + 1], &L);
    free(E);
    return rc;
}

/* Polylines of body b (nl segments, offset vo): stretch springs, the rod's lumped masses
 * ρ·πr²·L/2 per segment end, and (bend) a bending element at every vertex with exactly two
 * segments (junctions of three or more and the ends have none). */
static int rod_elements(const sipd_scene *sc, int b, const sipd_mesh *me, int vo, int bend, sipd_model *m,
                        grow_group *ed, grow_group *bg)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    const sipd_scene_material *mat = &sc->materials[bd->material];
    const double A = SIPD_PI * bd->radius * bd->radius, I = SIPD_PI * pow(bd->radius, 4) / 4;
    int *deg = NULL, *nb = NULL, i, k, rc = SIPD_OK;
    double L, *len = NULL;
    deg = sipd_calloc((size_t)me->nv + 1, sizeof(int));
    nb = sipd_malloc(((size_t)me->nv * 2 + 2) * sizeof(int));
    len = sipd_malloc(((size_t)me->nv * 2 + 2) * sizeof(double));
    if (!deg || !nb || !len) {
        rc = SIPD_EFAIL;
        goto out;
    }
    for (i = 0; i < me->nl && rc == SIPD_OK; i++) {
        int a = me->lines[2 * i], c = me->lines[2 * i + 1];
        if ((rc = push_spring(sc, b, m, ed, vo + a, vo + c, &L)) != SIPD_OK)
            break;
        m->mass[vo + a] += mat->density * A * L / 2;
        m->mass[vo + c] += mat->density * A * L / 2;
        for (k = 0; k < 2; k++) {   /* the first two neighbours of each end */
            int v = k ? c : a, o = k ? a : c;
            if (deg[v] < 2) {
                nb[2 * v + deg[v]] = o;
                len[2 * v + deg[v]] = L;
            }
            deg[v]++;
        }
    }
    for (i = 0; i < me->nv && rc == SIPD_OK && bend; i++)
        if (deg[i] == 2) {
            int v[3] = {vo + nb[2 * i], vo + i, vo + nb[2 * i + 1]};
            vec3 kv = rod_kappa(v3_load(m->X + 3 * v[0]), v3_load(m->X + 3 * v[1]), v3_load(m->X + 3 * v[2]), NULL);
            double Ls = len[2 * i] + len[2 * i + 1];
            rc = gg_push(bg, v, sqrt(v3_norm2(kv)), mat->youngs * I / Ls, Ls / 2, bd->material);
        }
out:
    free(deg);
    free(nb);
    free(len);
    return rc;
}

int model_build(const sipd_scene *sc, sipd_model *m)
{
    sipd_mesh *meshes;
    int b, rc = SIPD_OK;
    memset(m, 0, sizeof *m);
    meshes = sipd_calloc((size_t)sc->nbodies, sizeof *meshes);
    if (!meshes)
        return SIPD_EFAIL;
    for (b = 0; b < sc->nbodies && rc == SIPD_OK; b++) {
        const sipd_scene_body *bd = &sc->bodies[b];
        rc = bd->gen_shape == SIPD_GEN_ROD ? meshgen_rod(bd->gen_segments, bd->gen_length, &meshes[b])
             : bd->gen_shape == SIPD_GEN_CLOTH
                 ? meshgen_cloth(bd->gen_cells[0], bd->gen_cells[1], bd->gen_size[0], bd->gen_size[1], &meshes[b])
                 : mesh_load(bd->mesh, &meshes[b]);
    }
    if (rc == SIPD_OK)
        rc = model_build_meshes(sc, meshes, m);
    for (b = 0; b < sc->nbodies; b++) mesh_free(&meshes[b]);
    free(meshes);
    return rc;
}

/* ---- what each body became: the --dry-run summary and the warnings about silent mistakes ---- */

static const char *body_file(const sipd_scene *sc, const sipd_scene_body *bd)
{
    return bd->file ? bd->file : sc->path;
}

/* Body b's kind, vertices, bounding box (of its initial positions) and Dirichlet counts so far
 * (pin and move boxes; massless vertices and an obstacle's motion are added later). */
static void body_summary(int b, const sipd_mesh *me, int kind, int vo, sipd_model *m)
{
    sipd_model_body *sb = &m->bodies[b];
    int i, k;
    sb->kind = kind;
    sb->v0 = vo;
    sb->nv = me->nv;
    for (k = 0; k < 3; k++) {
        sb->lo[k] = me->nv ? INFINITY : 0;
        sb->hi[k] = me->nv ? -INFINITY : 0;
    }
    for (i = vo; i < vo + me->nv; i++) {
        for (k = 0; k < 3; k++) {
            sb->lo[k] = fmin(sb->lo[k], m->X0[3 * i + k]);
            sb->hi[k] = fmax(sb->hi[k], m->X0[3 * i + k]);
        }
        sb->npinned += m->fixed[i] == 1;
        sb->nmoved += m->fixed[i] == 2;
    }
}

/* Box k of kind which (0 pin, 1 move) of body b holds no vertex: it does nothing, which is
 * almost always a box in the wrong place or the wrong units. */
static void warn_empty_box(const sipd_scene *sc, int b, int which, int k, const sipd_scene_box *box,
                           const sipd_model_body *sb)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    const char *file = bd->box_file[which][k] ? bd->box_file[which][k] : body_file(sc, bd);
    int line = bd->box_line[which][k] > 0 ? bd->box_line[which][k] : bd->line;
    char key[64];
    if (bd->box_list[which])
        snprintf(key, sizeof key, "bodies[%d].%s[%d]", b, which ? "move" : "pin", k);
    else
        snprintf(key, sizeof key, "bodies[%d].%s", b, which ? "move" : "pin");
    sipd_error_at(file, line, "warning: %s: the box [%g, %g, %g] to [%g, %g, %g] holds no vertex of the body (its "
                  "vertices span [%g, %g, %g] to [%g, %g, %g] at t = 0, after translate, rotate_deg and scale): it "
                  "%s nothing", key, box->box_min[0], box->box_min[1], box->box_min[2], box->box_max[0],
                  box->box_max[1], box->box_max[2], sb->lo[0], sb->lo[1], sb->lo[2], sb->hi[0], sb->hi[1], sb->hi[2],
                  which ? "moves" : "pins");
}

/* 1 when nf > 0 triangles close a surface: every edge belongs to exactly two of them. */
static int surface_closed(const int *tris, int nf)
{
    int *E, n = 3 * nf, i, closed = nf >= 4;
    if (!closed || !(E = tri_edges_sorted(tris, nf)))   /* (out of memory: no warning) */
        return 0;
    for (i = 0; i < n && closed;) {
        int j = i;
        while (j < n && cmp_edge(E + 2 * j, E + 2 * i) == 0) j++;
        closed = j - i == 2;
        i = j;
    }
    free(E);
    return closed;
}

/* A triangle mesh whose triangles close a surface, with elements = "auto": it becomes a hollow
 * shell, where a user who meshed a solid's boundary (gmsh -2, an STL exported as OBJ) meant a
 * solid. */
static void warn_closed_shell(const sipd_scene *sc, int b)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    size_t n = strlen(bd->mesh);
    int msh = n >= 4 && strcasecmp(bd->mesh + n - 4, ".msh") == 0;
    sipd_error_at(body_file(sc, bd), bd->line,
                  "warning: bodies[%d]: %s holds triangles and no tetrahedra, and they close a surface: with elements = "
                  "\"auto\" the body is a hollow shell %g m thick, not a solid. For a solid, %s; if a shell is meant, "
                  "write elements = \"shell\" (and this warning goes)", b, bd->mesh, bd->thickness,
                  msh ? "mesh the volume (gmsh -3: a .geo needs a Volume, e.g. a Surface Loop and a Volume on it)"
                      : "tetrahedralise the surface (e.g. as .stl or .off with tetgen -pq1.414, then mesh = the TetGen "
                        "base name)");
}

void model_print_bodies(FILE *f, const sipd_scene *sc, const sipd_model *m)
{
    static const char *const kind_name[] = {"auto", "solid", "shell", "springs", "rod"};
    int b, g, e;
    for (b = 0; b < m->nbodies && m->bodies; b++) {
        const sipd_model_body *sb = &m->bodies[b];
        const sipd_scene_body *bd = &sc->bodies[b];
        long count[SIPD_KIND_COUNT], nsurf = 0;
        for (g = 0; g < SIPD_KIND_COUNT; g++) count[g] = 0;
        for (g = 0; g < m->ngroups; g++) {   /* an element belongs to the body of its first corner */
            const sipd_elem_group *G = &m->groups[g];
            for (e = 0; e < G->ne; e++) count[G->kind] += m->body[G->v[(size_t)G->nc * e]] == b;
        }
        for (e = 0; e < m->nf; e++) nsurf += m->body[m->tris[3 * e]] == b;
        fprintf(f, "# bodies[%d]: %s%s, %d vertices", b, kind_name[sb->kind >= 0 && sb->kind <= 4 ? sb->kind : 0],
                bd->obstacle ? " obstacle (rigid, kinematic)" : "", sb->nv);
        switch (sb->kind) {
        case SIPD_ELEMENTS_SOLID:
            fprintf(f, ", %ld tets, %ld surface triangles", count[SIPD_KIND_TET], nsurf);
            break;
        case SIPD_ELEMENTS_SHELL:
            fprintf(f, ", %ld triangles", count[SIPD_KIND_TRI]);
            if (count[SIPD_KIND_MIDEDGE])
                fprintf(f, ", %ld mid-edge bending elements", count[SIPD_KIND_MIDEDGE]);
            else
                fprintf(f, ", %ld bending hinges", count[SIPD_KIND_HINGE]);
            if (bd->bending == SIPD_BENDING_AUTO)   /* (shell_bending) */
                fprintf(f, " (bending \"auto\": bending length %.3g m %s %g x the mean edge %.3g m)", sb->bend_length,
                        sb->bending == SIPD_BENDING_MIDEDGE ? ">=" : "<", SIPD_BEND_RESOLVED, sb->mean_edge);
            break;
        case SIPD_ELEMENTS_SPRINGS:
            fprintf(f, ", %ld springs", count[SIPD_KIND_EDGE]);
            break;
        case SIPD_ELEMENTS_ROD:
            fprintf(f, ", %ld segments, %ld bending vertices", count[SIPD_KIND_EDGE], count[SIPD_KIND_ROD_BEND]);
            break;
        }
        fprintf(f, ", bbox [%.6g, %.6g, %.6g] to [%.6g, %.6g, %.6g], %d pinned, %d moved", sb->lo[0], sb->lo[1],
                sb->lo[2], sb->hi[0], sb->hi[1], sb->hi[2], sb->npinned, sb->nmoved);
        if (sb->nfree_massless)
            fprintf(f, ", %d in no element (held fixed)", sb->nfree_massless);
        if (sc->contact) {   /* the k_c its pairs and its ground contact get (contact_stiffness) */
            if (sc->contact_stiffness > 0)
                fprintf(f, ", contact k %.6g N/m (contact.stiffness)", sc->contact_stiffness);
            else if (bd->obstacle)
                fprintf(f, ", contact k of the body it touches (obstacle)");
            else if (sb->contact_k > 0)
                fprintf(f, ", contact k %.6g N/m (automatic; a pair takes the softer side)", sb->contact_k);
        }
        fputc('\n', f);
    }
}

/* The contact half-thickness of every vertex and the collision edges of line meshes (model.h:
 * crad, crad_max, cedges).  A body's contact thickness τ: contact.thickness when set, else
 * max(t, d̂/2) for a shell (and springs of a triangle mesh), max(2r, d̂/2) for a rod (and
 * springs of a line mesh), 0 for solids and springs of a tet mesh (their surface triangles
 * collide as a solid's); its vertices get τ/2. */
static int contact_thin(const sipd_scene *sc, const sipd_mesh *meshes, sipd_model *m)
{
    int b, i, vo = 0, eo = 0, nce = 0;
    for (b = 0; b < sc->nbodies; b++)
        nce += mesh_dim(&meshes[b]) == 1 ? meshes[b].nl : 0;
    for (b = 0; b < sc->nbodies; b++, vo += meshes[b - 1].nv) {
        const sipd_scene_body *bd = &sc->bodies[b];
        const sipd_mesh *me = &meshes[b];
        int dim = mesh_dim(me), bk = body_kind(bd, me);
        double tau = 0;
        if (bk == SIPD_ELEMENTS_SHELL || (dim == 2 && bk == SIPD_ELEMENTS_SPRINGS))
            tau = sc->contact_thickness >= 0 ? sc->contact_thickness : fmax(bd->thickness, 0.5 * sc->dhat);
        else if (dim == 1)
            tau = sc->contact_thickness >= 0 ? sc->contact_thickness : fmax(2 * bd->radius, 0.5 * sc->dhat);
        if (tau > 0 && !m->crad && !(m->crad = sipd_calloc((size_t)m->nv, sizeof(double))))
            return SIPD_EFAIL;
        for (i = 0; i < me->nv && tau > 0; i++) m->crad[vo + i] = 0.5 * tau;
        if (0.5 * tau > m->crad_max)
            m->crad_max = 0.5 * tau;
    }
    if (nce == 0)
        return SIPD_OK;
    if (!(m->cedges = sipd_malloc((size_t)nce * 2 * sizeof(int))) || !(m->cval = sipd_calloc((size_t)m->nv, sizeof(int))))
        return SIPD_EFAIL;
    for (b = 0, vo = 0; b < sc->nbodies; vo += meshes[b].nv, b++)
        if (mesh_dim(&meshes[b]) == 1)
            for (i = 0; i < 2 * meshes[b].nl; i++) {
                m->cedges[eo] = meshes[b].lines[i] + vo;
                m->cval[m->cedges[eo++]]++;
            }
    m->nce = nce;
    return SIPD_OK;
}

/* The automatic contact stiffness (N/m; docs/contact.md "The contact stiffness").
 *
 * Per body, from its own elements, the stiffness its contact pairs press against: a solid
 * E × its mean tet edge (a body's weight spread over its contact vertices then compresses the
 * d̂ band by a fraction of it); a rod or springs body a segment's axial stiffness, E·πr²/L̄
 * (L̄ its mean segment, or the body's spring_k); a shell its membrane stiffness E·t (a patch
 * of any edge length stretched in its plane: E t A/L² ~ E t).  A pair takes the softer of its
 * deformable sides (pairs.c), the ground and an obstacle the deformable body's: a thin body
 * next to a stiff solid gets its own scale, not the solid's (issue 26: the scene-wide value was
 * 30 × a hair segment's stiffness).  m->bodies[b].contact_k, m->contact_kv per vertex (0 on
 * obstacles), m->contact_k_one when every deformable body has the same value, to 1e-9 (the backends
 * then use one scalar, as before).  m->mean_edge and m->contact_k_auto keep the scene-wide
 * E_max × mean edge of earlier versions: the driver's force scale, and the stiffness of a
 * scene of obstacles only. */
static int contact_stiffness(const sipd_scene *sc, sipd_model *m, const grow_group *ged_, const grow_group *gtri_)
{
    const grow_group ged = *ged_, gtri = *gtri_;
    double *sum_b = sipd_calloc((size_t)m->nbodies * 2 + 1, sizeof(double)), *emax_b;
    long *cnt_b = sipd_calloc((size_t)m->nbodies + 1, sizeof(long));
    int i, k, b;
    if (!sum_b || !cnt_b || !(m->contact_kv = sipd_calloc((size_t)m->nv + 1, sizeof(double)))) {
        free(sum_b);
        free(cnt_b);
        return SIPD_EFAIL;
    }
    emax_b = sum_b + m->nbodies;
    {   /* default contact stiffness (N/m): E × h, so that a body's weight spread over its
           contact vertices compresses the d̂ band by a fraction of it (docs/contact.md).  E and h of the
           deformable bodies (an obstacle's material does not make contact stiffer); of all
           bodies when every body is an obstacle. */
        double sum = 0, emax = 0;
        long cnt = 0;
        int pass;
        static const int ed[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
        for (pass = 0; pass < 2 && cnt == 0; pass++)
            for (i = 0; i < m->nt; i++) {
                if (pass == 0 && sc->bodies[m->body[m->tets[4 * i]]].obstacle)
                    continue;
                for (k = 0; k < 6; k++)
                    sum += sqrt(v3_norm2(v3_sub(v3_load(m->X + 3 * m->tets[4 * i + ed[k][0]]),
                                                v3_load(m->X + 3 * m->tets[4 * i + ed[k][1]]))));
                if (sc->materials[m->tet_mat[i]].youngs > emax)
                    emax = sc->materials[m->tet_mat[i]].youngs;
                cnt++;
            }
        m->mean_edge = cnt > 0 ? sum / (6.0 * cnt) : 0;
        for (pass = 0; pass < 2 && cnt == 0; pass++)   /* no tets: the springs' rest lengths */
            for (i = 0; i < ged.n; i++) {
                if (pass == 0 && sc->bodies[m->body[ged.v[2 * i]]].obstacle)
                    continue;
                sum += ged.rest[2 * i];
                if (sc->materials[ged.mat[i]].youngs > emax)
                    emax = sc->materials[ged.mat[i]].youngs;
                cnt++;
            }
        for (pass = 0; pass < 2 && cnt == 0; pass++)   /* no tets or springs: the shells' triangle edges */
            for (i = 0; i < gtri.n; i++) {
                if (pass == 0 && sc->bodies[m->body[gtri.v[3 * i]]].obstacle)
                    continue;
                for (k = 0; k < 3; k++)
                    sum += sqrt(v3_norm2(v3_sub(v3_load(m->X + 3 * gtri.v[3 * i + k]),
                                                v3_load(m->X + 3 * gtri.v[3 * i + (k + 1) % 3])))) / 3;
                if (sc->materials[gtri.mat[i] - sc->nmaterials].youngs > emax)
                    emax = sc->materials[gtri.mat[i] - sc->nmaterials].youngs;
                cnt++;
            }
        if (m->mean_edge == 0 && cnt > 0)
            m->mean_edge = sum / cnt;
        m->contact_k_auto = emax * m->mean_edge;
    }
    /* per body, in element order (a single solid body sums as the scene-wide value above) */
    for (i = 0; i < m->nt; i++) {
        static const int ed[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
        b = m->body[m->tets[4 * i]];
        for (k = 0; k < 6; k++)
            sum_b[b] += sqrt(v3_norm2(v3_sub(v3_load(m->X + 3 * m->tets[4 * i + ed[k][0]]),
                                             v3_load(m->X + 3 * m->tets[4 * i + ed[k][1]]))));
        if (sc->materials[m->tet_mat[i]].youngs > emax_b[b])
            emax_b[b] = sc->materials[m->tet_mat[i]].youngs;
        cnt_b[b]++;
    }
    for (b = 0; b < m->nbodies; b++)
        if (m->bodies[b].kind == SIPD_ELEMENTS_SOLID && cnt_b[b] > 0)
            m->bodies[b].contact_k = emax_b[b] * (sum_b[b] / (6.0 * cnt_b[b]));
    for (b = 0; b < m->nbodies; b++) sum_b[b] = 0, cnt_b[b] = 0;
    for (i = 0; i < ged.n; i++) {   /* rods and springs: their segments' rest lengths */
        b = m->body[ged.v[2 * i]];
        sum_b[b] += ged.rest[2 * i];
        cnt_b[b]++;
    }
    for (b = 0; b < m->nbodies; b++) {
        const sipd_scene_body *bd = &sc->bodies[b];
        int kind = m->bodies[b].kind;
        if ((kind == SIPD_ELEMENTS_ROD || kind == SIPD_ELEMENTS_SPRINGS) && cnt_b[b] > 0)
            m->bodies[b].contact_k = bd->spring_k > 0 ? bd->spring_k
                                                      : sc->materials[bd->material].youngs * SIPD_PI * bd->radius *
                                                            bd->radius / (sum_b[b] / cnt_b[b]);
        else if (kind == SIPD_ELEMENTS_SHELL)
            m->bodies[b].contact_k = sc->materials[bd->material].youngs * bd->thickness;
    }
    m->contact_k_one = -1;
    for (b = 0; b < m->nbodies; b++) {
        const sipd_model_body *sb = &m->bodies[b];
        if (sc->bodies[b].obstacle || !(sb->contact_k > 0))
            continue;   /* an obstacle's side takes the other's; a body without elements has no contacts */
        for (i = sb->v0; i < sb->v0 + sb->nv; i++) m->contact_kv[i] = sb->contact_k;
        /* bodies that differ in round-off only (identical blocks, translated) share one value */
        m->contact_k_one = m->contact_k_one < 0 || fabs(m->contact_k_one - sb->contact_k) <= 1e-9 * sb->contact_k
                               ? (m->contact_k_one < 0 ? sb->contact_k : m->contact_k_one)
                               : 0;
    }
    if (m->contact_k_one < 0 ||   /* no deformable body with elements: the scene-wide value */
        fabs(m->contact_k_one - m->contact_k_auto) <= 1e-9 * m->contact_k_auto)
        m->contact_k_one = m->contact_k_auto;   /* solids of one material and edge: as before, bit for bit */
    free(sum_b);
    free(cnt_b);
    return SIPD_OK;
}

/* ---- model_build_meshes, stage by stage ------------------------------------------------- */

/* Where the next body's vertices, tets, surface triangles and motions go in the model's arrays. */
typedef struct {
    int vo, to, fo, mo;
} body_offsets;

/* The groups of the element kinds that bodies add to while they are read (gg_adopt moves them
 * into the model at the end). */
typedef struct {
    grow_group *ed, *bend, *tri, *hinge, *mid;
} body_groups;

/* Every body's element kind checked against its mesh; *nshell = the number of shell bodies. */
static int check_bodies(const sipd_scene *sc, const sipd_mesh *meshes, int *nshell)
{
    int b, rc;
    for (b = 0; b < sc->nbodies; b++) {
        if ((rc = check_body_kind(sc, b, &meshes[b])) != SIPD_OK)
            return rc;
        *nshell += body_kind(&sc->bodies[b], &meshes[b]) == SIPD_ELEMENTS_SHELL;
    }
    return SIPD_OK;
}

/* The model's counts and its per-vertex, per-tet, per-material and per-body arrays. */
static int model_allocate(const sipd_scene *sc, const sipd_mesh *meshes, int nshell, sipd_model *m)
{
    int b, k;
    for (k = 0; k < SIPD_KIND_COUNT; k++) m->group_of[k] = -1;
    for (b = 0; b < sc->nbodies; b++) {
        m->nv += meshes[b].nv;
        m->nt += body_kind(&sc->bodies[b], &meshes[b]) == SIPD_ELEMENTS_SOLID ? meshes[b].nt : 0;
        m->nf += meshes[b].nf;
        m->nmotions += sc->bodies[b].nmove + (sc->bodies[b].obstacle ? 1 : 0);
    }
    m->nbodies = sc->nbodies;
    m->nmat = sc->nmaterials * (nshell ? 2 : 1);   /* with shells: the plane-stress copies after the scene's */
    m->X = sipd_malloc((size_t)m->nv * 3 * sizeof(double));
    m->X0 = sipd_malloc((size_t)m->nv * 3 * sizeof(double));
    m->V0 = sipd_malloc((size_t)m->nv * 3 * sizeof(double));
    m->tets = sipd_malloc((size_t)m->nt * 4 * sizeof(int));
    m->tris = sipd_malloc((size_t)m->nf * 3 * sizeof(int));
    m->body = sipd_malloc((size_t)m->nv * sizeof(int));
    m->mass = sipd_calloc((size_t)m->nv, sizeof(double));
    m->Bm = sipd_malloc((size_t)m->nt * 9 * sizeof(double));
    m->vol = sipd_malloc((size_t)m->nt * sizeof(double));
    m->tet_mat = sipd_malloc((size_t)m->nt * sizeof(int));
    m->mats = sipd_malloc((size_t)m->nmat * sizeof(sipd_material));
    m->fixed = sipd_calloc((size_t)m->nv, 1);
    m->move_of = sipd_malloc((size_t)m->nv * sizeof(int));
    m->motions = sipd_calloc((size_t)m->nmotions + 1, sizeof(sipd_motion));
    m->bodies = sipd_calloc((size_t)m->nbodies, sizeof *m->bodies);
    if (!m->X || !m->X0 || !m->V0 || !m->tets || !m->tris || !m->body || !m->mass || !m->Bm || !m->vol ||
        !m->tet_mat || !m->mats || !m->fixed || !m->move_of || !m->motions || !m->bodies)
        return SIPD_EFAIL;
    return SIPD_OK;
}

/* Each material as the scene's model (physics/material.h), and with shells its plane-stress copy. */
static int build_materials(const sipd_scene *sc, int nshell, sipd_model *m)
{
    int i;
    for (i = 0; i < sc->nmaterials; i++) {
        const sipd_scene_material *sm = &sc->materials[i];
        if (!material_model_valid((int)sm->model)) {   /* the physics switches have no fallback */
            sipd_error_at(sc->path, sm->line, "materials[%d] (\"%s\"): material model %d is not implemented",
                          i, sm->name, (int)sm->model);
            return SIPD_EINPUT;
        }
        m->mats[i] = material_make((int)sm->model, sm->youngs, sm->poisson);
        if (nshell)
            m->mats[sc->nmaterials + i] = tri_material((int)sm->model, sm->youngs, sm->poisson);
    }
    return SIPD_OK;
}

/* Body b's rest positions (scaled, rotated by R, translated), velocities and vertex tags from
 * vertex vo on; lo/hi grow to the model's bounding box. */
static int place_vertices(const sipd_scene *sc, int b, const sipd_mesh *me, mat3 R, int vo, sipd_model *m,
                          double lo[3], double hi[3])
{
    const sipd_scene_body *bd = &sc->bodies[b];
    int i, k;
    for (i = 0; i < me->nv; i++) {
        vec3 p = v3_add(m3_mulv(R, v3_scale(v3_load(me->x + 3 * i), bd->scale)),
                        v3_load(bd->translate));
        for (k = 0; k < 3; k++)
            if (!(fabs(p.v[k]) <= MODEL_MAX_COORD)) { /* the scene and mesh limits allow 1e60 */
                sipd_error_at(sc->path, bd->line, "bodies[%d]: body too large: vertex %d of %s lies at %c = %g "
                              "after scale and translate (|coordinate| must be at most %g)",
                              b, i + 1, bd->mesh, "xyz"[k], p.v[k], MODEL_MAX_COORD);
                return SIPD_EINPUT;
            }
        v3_store(m->X + 3 * (vo + i), p);
        v3_store(m->V0 + 3 * (vo + i), v3_load(bd->velocity));
        m->body[vo + i] = b;
        m->move_of[vo + i] = -1;
        for (k = 0; k < 3; k++) {
            if (p.v[k] < lo[k]) lo[k] = p.v[k];
            if (p.v[k] > hi[k]) hi[k] = p.v[k];
        }
    }
    return SIPD_OK;
}

/* Body b's tets: a solid's connectivity, rest shapes, volumes and materials from tet `to` on; the
 * lumped masses ρV/4 of every body but a shell. */
static int body_tets(const sipd_scene *sc, int b, const sipd_mesh *me, int bk, int vo, int to, sipd_model *m)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    const sipd_scene_material *mat = &sc->materials[bd->material];
    const int solid = bk == SIPD_ELEMENTS_SOLID;
    int i, k;
    for (i = 0; i < me->nt; i++) {
        /* a springs body's tets give the lumped masses only: computed in scratch */
        int e = to + i, tt[4], *t = solid ? m->tets + 4 * e : tt;
        double V, Bs[9], *Bm = solid ? m->Bm + 9 * e : Bs;
        for (k = 0; k < 4; k++) t[k] = me->tets[4 * i + k] + vo;
        /* tet_rest leaves Bm unwritten when it cannot invert the rest shape: NaN marks that */
        for (k = 0; k < 9; k++) Bm[k] = NAN;
        V = tet_rest(v3_load(m->X + 3 * t[0]), v3_load(m->X + 3 * t[1]), v3_load(m->X + 3 * t[2]),
                     v3_load(m->X + 3 * t[3]), Bm);
        for (k = 0; k < 9 && isfinite(Bm[k]); k++) {}
        if (!(V > 0) || !isfinite(V) || k < 9) { /* the loader refuses degenerate tets */
            sipd_error_at(sc->path, bd->line, "bodies[%d]: tet %d of %s: %s after the body transform (volume %g, "
                          "scale %g): the body is too %s", b, i + 1, bd->mesh,
                          V > 0 ? "the rest shape cannot be inverted" : "non-positive volume", V, bd->scale,
                          fabs(V) > 1 ? "large" : "small");
            return SIPD_EINPUT;
        }
        if (solid) {
            m->vol[e] = V;
            m->tet_mat[e] = bd->material;
        }
        for (k = 0; k < 4 && bk != SIPD_ELEMENTS_SHELL; k++) m->mass[t[k]] += mat->density * V / 4;
    }
    return SIPD_OK;
}

/* Body b's elements of the other kinds, by its element kind and mesh dimension: springs,
 * shells (with their masses), rods. */
static int body_elements(const sipd_scene *sc, int b, const sipd_mesh *me, int bk, int vo, sipd_model *m,
                         const body_groups *g)
{
    int rc;
    if (m->bodies)
        m->bodies[b].volumetric = bk == SIPD_ELEMENTS_SOLID || (bk == SIPD_ELEMENTS_SPRINGS && me->nt > 0);
    if (bk == SIPD_ELEMENTS_SPRINGS && me->nt > 0 && (rc = tet_springs(sc, b, me, vo, m, g->ed)) != SIPD_OK)
        return rc;
    if (bk == SIPD_ELEMENTS_SHELL) {   /* a cloth's triangles, or a tet mesh's surface */
        tri_masses(sc, b, me->tris, me->nf, vo, m);   /* ρ A t / 3 (not the tets' ρV/4: skipped above) */
        if ((rc = shell_elements(sc, b, me->tris, me->nf, vo, sc->nmaterials, m, g->tri, g->hinge, g->mid)) != SIPD_OK)
            return rc;
    }
    if (mesh_dim(me) == 2 && bk == SIPD_ELEMENTS_SPRINGS) {   /* a triangle mesh's edges */
        tri_masses(sc, b, me->tris, me->nf, vo, m);
        if ((rc = tri_springs(sc, b, me->tris, me->nf, vo, m, g->ed)) != SIPD_OK)
            return rc;
    }
    if (mesh_dim(me) == 1 &&
        (rc = rod_elements(sc, b, me, vo, bk == SIPD_ELEMENTS_ROD, m, g->ed, g->bend)) != SIPD_OK)
        return rc;
    return SIPD_OK;
}

/* The body's bounding-box centre (also that of its initial positions, stretched about it). */
static void body_centre(const sipd_mesh *me, int vo, const sipd_model *m, double bc[3])
{
    double blo[3] = {INFINITY, INFINITY, INFINITY}, bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    int i, k;
    for (i = 0; i < me->nv; i++)
        for (k = 0; k < 3; k++) {
            double p = m->X[3 * (vo + i) + k];
            blo[k] = p < blo[k] ? p : blo[k];
            bhi[k] = p > bhi[k] ? p : bhi[k];
        }
    for (k = 0; k < 3; k++) bc[k] = 0.5 * (blo[k] + bhi[k]);
}

/* Body b's initial positions X0: from bodies[].initial_positions, else the rest shape stretched
 * by initial_stretch about the centre bc. */
static int initial_positions(const sipd_scene *sc, int b, const sipd_mesh *me, mat3 R, const double bc[3], int vo,
                             sipd_model *m)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    int i, k, rc;
    if (bd->initial_positions) {
        /* initial positions from a file (initpos.h): a .node/.msh is in the mesh file's frame and gets
           the body's transform like the mesh; an earlier run's FILE.h5:FRAME is in world already */
        char msg[1024];
        int world = 0;
        rc = initpos_load(bd->initial_positions, me, b, m->X0 + 3 * vo, &world, msg, sizeof msg);
        if (rc != SIPD_OK) {
            sipd_error_at(sc->path, bd->initial_positions_line, "bodies[%d].initial_positions: %s", b, msg);
            return rc;
        }
        for (i = 0; i < me->nv && !world; i++) {
            vec3 p = v3_add(m3_mulv(R, v3_scale(v3_load(m->X0 + 3 * (vo + i)), bd->scale)),
                            v3_load(bd->translate));
            v3_store(m->X0 + 3 * (vo + i), p);
        }
    } else
        for (i = 0; i < me->nv; i++)   /* initial positions: rest stretched about that centre */
            for (k = 0; k < 3; k++)
                m->X0[3 * (vo + i) + k] = bc[k] + bd->initial_stretch[k] * (m->X[3 * (vo + i) + k] - bc[k]);
    return SIPD_OK;
}

/* Dirichlet boxes: move boxes take precedence over pin boxes.  The body's summary, and warnings
 * for boxes that hold no vertex and for a closed surface read as a shell. */
static void dirichlet_boxes(const sipd_scene *sc, int b, const sipd_mesh *me, int bk, int vo, int mo, sipd_model *m)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    int held[2][SIPD_MAX_BOXES];
    int i, k;
    memset(held, 0, sizeof held);
    for (i = 0; i < me->nv; i++) {
        const double *p = m->X0 + 3 * (vo + i);
        for (k = 0; k < bd->npin; k++)
            if (in_box(&bd->pin[k], p)) {
                m->fixed[vo + i] = 1;
                held[0][k]++;
            }
        for (k = 0; k < bd->nmove; k++)
            if (in_box(&bd->move[k].box, p)) {
                m->fixed[vo + i] = 2;
                m->move_of[vo + i] = mo + k;
                held[1][k]++;
            }
    }
    body_summary(b, me, bk, vo, m);
    for (k = 0; k < bd->npin; k++)
        if (!held[0][k])
            warn_empty_box(sc, b, 0, k, &bd->pin[k], &m->bodies[b]);
    for (k = 0; k < bd->nmove; k++)
        if (!held[1][k])
            warn_empty_box(sc, b, 1, k, &bd->move[k].box, &m->bodies[b]);
    if (bd->elements == SIPD_ELEMENTS_AUTO && bd->gen_shape == SIPD_GEN_NONE && mesh_dim(me) == 2 &&
        surface_closed(me->tris, me->nf))
        warn_closed_shell(sc, b);
}

/* Body b's prescribed motions from motion *mo on: its move boxes, then, for an obstacle, one
 * rigid motion that every vertex follows (about centre, or the box centre bc). */
static void body_motions(const sipd_scene *sc, int b, const sipd_mesh *me, const double bc[3], int vo, int *mo,
                         sipd_model *m)
{
    const sipd_scene_body *bd = &sc->bodies[b];
    int i, k;
    for (k = 0; k < bd->nmove; k++) {
        memcpy(m->motions[*mo + k].center, bd->move[k].center, sizeof(double) * 3);
        memcpy(m->motions[*mo + k].velocity, bd->move[k].velocity, sizeof(double) * 3);
        memcpy(m->motions[*mo + k].omega, bd->move[k].angular_velocity, sizeof(double) * 3);
    }
    *mo += bd->nmove;
    if (bd->obstacle) {   /* rigid, kinematic: every vertex follows the body's motion */
        sipd_motion *mv = &m->motions[(*mo)++];
        m->bodies[b].nmoved = me->nv;
        for (k = 0; k < 3; k++) {
            mv->center[k] = bd->center_set ? bd->center[k] : bc[k];
            mv->velocity[k] = bd->velocity[k];
            mv->omega[k] = bd->angular_velocity[k];
        }
        for (i = 0; i < me->nv; i++) {
            m->fixed[vo + i] = 2;
            m->move_of[vo + i] = *mo - 1;
        }
    }
}

/* Body b into the model at the offsets *o (advanced past it): vertices, tets, the other kinds'
 * elements, surface triangles, initial positions, Dirichlet boxes and motions. */
static int build_body(const sipd_scene *sc, int b, const sipd_mesh *me, sipd_model *m, body_offsets *o,
                      const body_groups *g, double lo[3], double hi[3])
{
    const sipd_scene_body *bd = &sc->bodies[b];
    mat3 R = euler_rotation(bd->rotate_deg);
    double bc[3];
    int i, rc;
    if ((rc = place_vertices(sc, b, me, R, o->vo, m, lo, hi)) != SIPD_OK)
        return rc;
    const int bk = body_kind(bd, me), solid = bk == SIPD_ELEMENTS_SOLID;
    if ((rc = body_tets(sc, b, me, bk, o->vo, o->to, m)) != SIPD_OK)
        return rc;
    if ((rc = body_elements(sc, b, me, bk, o->vo, m, g)) != SIPD_OK)
        return rc;
    for (i = 0; i < me->nf * 3; i++) m->tris[3 * o->fo + i] = me->tris[i] + o->vo;
    body_centre(me, o->vo, m, bc);
    if ((rc = initial_positions(sc, b, me, R, bc, o->vo, m)) != SIPD_OK)
        return rc;
    dirichlet_boxes(sc, b, me, bk, o->vo, o->mo, m);
    body_motions(sc, b, me, bc, o->vo, &o->mo, m);
    o->vo += me->nv;
    o->to += solid ? me->nt : 0;
    o->fo += me->nf;
    return SIPD_OK;
}

int model_build_meshes(const sipd_scene *sc, const sipd_mesh *meshes, sipd_model *m)
{
    int b, i, rc = SIPD_OK;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    grow_group ged, gbend, gtri, ghinge, gmid;
    body_groups groups = {&ged, &gbend, &gtri, &ghinge, &gmid};
    body_offsets off = {0, 0, 0, 0};
    int nshell = 0;

    memset(m, 0, sizeof *m);
    gg_init(&ged, 2, 2);                        /* springs (and rod stretching) */
    gg_init(&gbend, 3, 2);                      /* rod bending */
    gg_init(&gtri, 3, 4);                       /* membrane triangles */
    gg_init(&ghinge, 4, 2);                     /* hinges */
    gg_init(&gmid, MIDEDGE_NC, MIDEDGE_REST);   /* mid-edge bending */
    if ((rc = check_bodies(sc, meshes, &nshell)) != SIPD_OK)   /* element kinds against meshes */
        return rc;
    if ((rc = model_allocate(sc, meshes, nshell, m)) != SIPD_OK)   /* counts and arrays */
        goto done;
    if ((rc = build_materials(sc, nshell, m)) != SIPD_OK)   /* the materials' models */
        goto done;
    for (b = 0; b < sc->nbodies; b++)   /* each body's vertices, elements, boxes and motions */
        if ((rc = build_body(sc, b, &meshes[b], m, &off, &groups, lo, hi)) != SIPD_OK)
            goto done;
    if ((rc = contact_thin(sc, meshes, m)) != SIPD_OK)
        goto done;
    /* A vertex in no tet has no mass and no elastic block: keep it where it is. */
    for (i = 0; i < m->nv; i++) {
        if (m->mass[i] <= 0 && !m->fixed[i])
            m->bodies[m->body[i]].nfree_massless++;
        if (m->mass[i] <= 0)
            m->fixed[i] = m->fixed[i] ? m->fixed[i] : 1;
        m->total_mass += m->mass[i];
    }
    if ((rc = contact_stiffness(sc, m, &ged, &gtri)) != SIPD_OK)
        goto done;
    m->bbox_diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                        (hi[2] - lo[2]) * (hi[2] - lo[2]));
    if (!(m->bbox_diag > 0))
        m->bbox_diag = 1;
    build_groups(m);
    gg_adopt(m, &ged, SIPD_KIND_EDGE);
    gg_adopt(m, &gbend, SIPD_KIND_ROD_BEND);
    gg_adopt(m, &gtri, SIPD_KIND_TRI);
    gg_adopt(m, &ghinge, SIPD_KIND_HINGE);
    gg_adopt(m, &gmid, SIPD_KIND_MIDEDGE);
    rc = build_incidence(m);
    if (rc == SIPD_OK)
        rc = build_colouring(m);
    if (rc == SIPD_OK)
        rc = build_chunks(m);
done:
    gg_free(&ged);
    gg_free(&gbend);
    gg_free(&gtri);
    gg_free(&ghinge);
    gg_free(&gmid);
    if (rc != SIPD_OK)
        model_free(m);
    return rc;
}

int model_pattern_elements(const sipd_model *m, int **elems, int *ne)
{
    size_t n = 0, o = 0;
    int g, e, l;
    const int K = model_max_corners(m);
    for (g = 0; g < m->ngroups; g++) n += (size_t)m->groups[g].ne;
    *ne = (int)n;
    *elems = sipd_malloc((n * K + 1) * sizeof(int));
    if (!*elems)
        return SIPD_EFAIL;
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        for (e = 0; e < G->ne; e++, o++)
            for (l = 0; l < K; l++)
                (*elems)[(size_t)K * o + l] = G->v[(size_t)G->nc * e + (l < G->nc ? l : G->nc - 1)];
    }
    return SIPD_OK;
}

double model_element_scale(const sipd_model *m, int g, int e)
{
    const sipd_elem_group *G = &m->groups[g];
    return kinds_scale(G->kind, G->mat ? &m->mats[G->mat[e]] : NULL, G->rest + (size_t)kind_rest_size(G->kind) * e,
                       G->vol[e]);
}

void model_prescribed(const sipd_model *m, int a, double t, double out[3])
{
    vec3 p = v3_load(m->X0 + 3 * a);
    if (m->fixed[a] == 2) {
        const sipd_motion *mv = &m->motions[m->move_of[a]];
        p = kinematic_position(p, v3_load(mv->center), v3_load(mv->velocity), v3_load(mv->omega), t);
    }
    v3_store(out, p);
}
