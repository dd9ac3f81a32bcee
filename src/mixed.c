/* mixed.c — the mixed variational FEM outer iteration (mixed.h, docs/design.md §3.11).
 *
 * The stretch elements are the model's groups of tets (6 stretch entries), triangles (3, stable
 * neo-Hookean membranes) and edges (1; physics/mixed.h); their unknowns s, Δs, λ are stored group after group in one
 * array (the tets' first when there are only tets: the checkpoint layout of a tets-only model
 * is the same as before the other kinds existed).  Rod bending and hinges are not stretch
 * elements: the backend adds them to the global system with the other plain terms
 * (backend.h assemble, SIPD_TERMS_NO_STRETCH). */
#include "mixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/kinds.h"
#include "physics/mixed.h"
#include "scene.h"
#include "util.h"

#define PAR_MIN 4096

typedef struct {
    int g;                      /* the model's group                                       */
    int kind, nc, ns, nd, ne;   /* corners, stretch entries, coordinates (3 nc), elements   */
    int e_off;                  /* the group's first element in the matrix pattern          */
    double *s, *ds, *lam;       /* ne*ns, views into the shared arrays                      */
    double *K, *r, *BJ, *Hs;    /* ne*nd², ne*nd, ne*ns*nd, ne*ns²                           */
    double *gs, *shat;          /* ne*ns                                                    */
    double sym[6];              /* Sym weights                                              */
} mixed_group;

struct sipd_mixed {
    const sipd_model *m;
    int linear;
    double cg_tol;
    int ngrp, ns_total, ne_total;
    mixed_group grp[SIPD_KIND_COUNT];
    double *s, *ds, *lam;       /* ns_total each                                            */
    double *y, *dx, *rhs;       /* nv*3                                                    */
    double *Pinv, *work;        /* PCG: nv*9, 4*nv*3                                        */
    sipd_direct direct;         /* CHOLMOD (sparse.h; contact pairs join the pattern)       */
    double dsmax;
};

static inline vec3 ld(const double *p, int i) { return v3_load(p + 3 * (size_t)i); }

void mixed_free(sipd_mixed *mx)
{
    int i;
    if (!mx)
        return;
    for (i = 0; i < mx->ngrp; i++) {
        mixed_group *G = &mx->grp[i];
        free(G->K); free(G->r); free(G->BJ); free(G->Hs); free(G->gs); free(G->shat);
    }
    free(mx->s); free(mx->ds); free(mx->lam);
    free(mx->y); free(mx->dx); free(mx->rhs); free(mx->Pinv); free(mx->work);
    sipd_direct_free(&mx->direct);
    free(mx);
}

int mixed_kinds_supported(const sipd_model *m)
{
    int g;
    for (g = 0; g < m->ngroups; g++) {
        int k = m->groups[g].kind;
        int e;
        if (mixed_kind_stretch(k) == 0 && !kind_split_per_corner(k) && m->groups[g].ne > 0)
            return 0;
        if (k == SIPD_KIND_TRI)   /* membranes: the stable neo-Hookean S-form only */
            for (e = 0; e < m->groups[g].ne; e++)
                if (!mixed_tri_model_valid((int)m->mats[m->groups[g].mat[e]].model))
                    return 0;
    }
    return 1;
}

/* ŝ of element e of group G at positions p (nv*3) */
static void group_shat(const sipd_model *m, const mixed_group *G, int e, const double *p, double *shat)
{
    const sipd_elem_group *E = &m->groups[G->g];
    const int *t = E->v + (size_t)G->nc * e;
    vec3 y[SIPD_MAX_CORNERS];
    int c;
    for (c = 0; c < G->nc; c++) y[c] = ld(p, t[c]);
    kinds_mixed_shat(G->kind, E->rest + (size_t)kind_rest_size(G->kind) * e, y, shat);
}

int mixed_create(sipd_mixed **out, const sipd_model *m, int linear, double cg_tol)
{
    sipd_mixed *mx = sipd_calloc(1, sizeof *mx);
    size_t n3 = (size_t)m->nv * 3 + 3, off = 0;
    int g, e, i, fail = 0, e_off = 0;
    *out = NULL;
    if (!mx)
        return SIPD_EFAIL;
    mx->m = m;
    mx->linear = linear;
    mx->cg_tol = cg_tol;
    for (g = 0; g < m->ngroups; g++) {   /* the stretch groups, in the model's group order */
        const sipd_elem_group *E = &m->groups[g];
        int ns = mixed_kind_stretch(E->kind);
        if (ns > 0) {
            mixed_group *G = &mx->grp[mx->ngrp++];
            size_t ne = (size_t)(E->ne > 0 ? E->ne : 1);
            G->g = g;
            G->kind = E->kind;
            G->nc = E->nc;
            G->ns = ns;
            G->nd = 3 * E->nc;
            G->ne = E->ne;
            G->e_off = e_off;
            for (i = 0; i < ns; i++) G->sym[i] = mixed_kind_sym(E->kind, i);
            G->K = sipd_malloc(ne * G->nd * G->nd * sizeof(double));
            G->r = sipd_malloc(ne * G->nd * sizeof(double));
            G->BJ = sipd_malloc(ne * ns * G->nd * sizeof(double));
            G->Hs = sipd_malloc(ne * ns * ns * sizeof(double));
            G->gs = sipd_malloc(ne * ns * sizeof(double));
            G->shat = sipd_malloc(ne * ns * sizeof(double));
            fail |= !G->K || !G->r || !G->BJ || !G->Hs || !G->gs || !G->shat;
            mx->ns_total += ns * E->ne;
        }
        e_off += E->ne;
    }
    mx->ne_total = e_off;
    mx->s = sipd_malloc(((size_t)mx->ns_total + 1) * sizeof(double));
    mx->ds = sipd_calloc((size_t)mx->ns_total + 1, sizeof(double));
    mx->lam = sipd_calloc((size_t)mx->ns_total + 1, sizeof(double));
    mx->y = sipd_calloc(n3, sizeof(double));
    mx->dx = sipd_calloc(n3, sizeof(double));
    mx->rhs = sipd_malloc(n3 * sizeof(double));
    mx->Pinv = sipd_malloc(3 * n3 * sizeof(double));
    mx->work = sipd_malloc(4 * n3 * sizeof(double));
    if (fail || !mx->s || !mx->ds || !mx->lam || !mx->y || !mx->dx || !mx->rhs || !mx->Pinv || !mx->work) {
        mixed_free(mx);
        return SIPD_EFAIL;
    }
    for (i = 0; i < mx->ngrp; i++) {   /* s starts consistent with the initial positions */
        mixed_group *G = &mx->grp[i];
        G->s = mx->s + off;
        G->ds = mx->ds + off;
        G->lam = mx->lam + off;
        off += (size_t)G->ns * G->ne;
        for (e = 0; e < G->ne; e++) group_shat(m, G, e, m->X0, G->s + (size_t)G->ns * e);
    }
    *out = mx;
    return SIPD_OK;
}

void mixed_begin_step(sipd_mixed *mx)
{
    memset(mx->lam, 0, sizeof(double) * (size_t)mx->ns_total);
    memset(mx->ds, 0, sizeof(double) * (size_t)mx->ns_total);
}

double *mixed_stretch(sipd_mixed *mx) { return mx->s; }
int mixed_stretch_count(const sipd_mixed *mx) { return mx->ns_total; }
double mixed_ds_max(const sipd_mixed *mx) { return mx->dsmax; }
const sipd_direct *mixed_direct(const sipd_mixed *mx) { return &mx->direct; }

/* The element pass of group G at y: R, ŝ, B, H_e, g_e and the element's blocks and right-hand side. */
static void group_system(const sipd_model *m, mixed_group *G, const double *y)
{
    const sipd_elem_group *E = &m->groups[G->g];
    const int ns = G->ns, nd = G->nd;
    int e;
#pragma omp parallel for schedule(static) if (G->ne > PAR_MIN / 4)
    for (e = 0; e < G->ne; e++) {
        const int *t = E->v + (size_t)G->nc * e;
        const size_t os = (size_t)ns * e;
        double *K = G->K + (size_t)nd * nd * e, *r = G->r + (size_t)nd * e, *BJ = G->BJ + (size_t)ns * nd * e;
        double *Hs = G->Hs + (size_t)ns * ns * e;
        vec3 yc[SIPD_MAX_CORNERS];
        int c;
        for (c = 0; c < G->nc; c++) yc[c] = ld(y, t[c]);
        kinds_mixed_system(G->kind, &m->mats[E->mat[e]], E->rest + (size_t)kind_rest_size(G->kind) * e, E->vol[e], yc,
                           G->s + os, K, r, BJ, Hs, G->gs + os, G->shat + os);
    }
}

int mixed_direction(sipd_mixed *mx, sipd_bsr *H, const sipd_bsr_extra *extra, const double *gbase, const double *y,
                    double *dx, int *cg_iters)
{
    const sipd_model *m = mx->m;
    const int nv = m->nv, n = 3 * nv;
    int gidx[SIPD_KIND_COUNT];
    double dsmax = 0;
    int a, i;
    *cg_iters = 0;
    if (H->n != nv || H->ne != mx->ne_total || H->k != model_max_corners(m))
        return SIPD_EFAIL;
    memcpy(mx->y, y, sizeof(double) * (size_t)n);
    for (i = 0; i < SIPD_KIND_COUNT; i++) gidx[i] = -1;
    for (i = 0; i < mx->ngrp; i++) {
        gidx[mx->grp[i].g] = i;
        group_system(m, &mx->grp[i], y);
    }
    /* assembly: row a gathers its incidences' blocks (free columns only) and right-hand side */
#pragma omp parallel for schedule(static) if (nv > PAR_MIN)
    for (a = 0; a < nv; a++) {
        int j, k;
        double ra[3] = {0, 0, 0};
        if (m->fixed[a]) {
            mx->rhs[3 * a] = mx->rhs[3 * a + 1] = mx->rhs[3 * a + 2] = 0;
            continue;
        }
        for (j = m->inc_off[a]; j < m->inc_off[a + 1]; j++) {
            int gi = gidx[m->inc_group[j]];
            if (gi < 0)
                continue;
            for (k = 0; k < 3; k++)
                ra[k] += mx->grp[gi].r[(size_t)mx->grp[gi].nd * m->inc_elem[j] + 3 * m->inc_corner[j] + k];
        }
        for (j = 0; j < mx->ngrp; j++) {   /* Σ element blocks, as Newton's (sparse.h) */
            const mixed_group *G = &mx->grp[j];
            sipd_bsr_gather_element_row(H, m->inc_off[a], m->inc_off[a + 1], m->inc_elem, m->inc_corner,
                                        mx->ngrp == 1 && m->ngroups == 1 ? NULL : m->inc_group, G->g,
                                        m->groups[G->g].v, G->nc, G->e_off, m->fixed, G->K);
        }
        for (k = 0; k < 3; k++) mx->rhs[3 * a + k] = ra[k] - gbase[3 * a + k];
    }
    /* the global solve */
    if (mx->linear == SIPD_LINEAR_CHOLMOD) {
        int rc = sipd_direct_solve(&mx->direct, H, extra, mx->rhs, mx->dx);
        if (rc != SIPD_OK)
            return rc;   /* SIPD_EFAIL, or SIPD_ESIGNAL after a stop request */
    } else {
        int maxit = 4 * n > 200 ? 4 * n : 200;
        sipd_bsr_block_jacobi(H, mx->Pinv);
        *cg_iters = sipd_pcg(H, extra, mx->Pinv, mx->rhs, mx->dx, maxit, mx->cg_tol, mx->work);
        if (*cg_iters < 0)
            return SIPD_ESIGNAL;
    }
    for (a = 0; a < nv; a++)
        if (m->fixed[a])
            mx->dx[3 * a] = mx->dx[3 * a + 1] = mx->dx[3 * a + 2] = 0;
    memcpy(dx, mx->dx, sizeof(double) * (size_t)n);
    /* closed-form local updates: Δs, λ */
    for (i = 0; i < mx->ngrp; i++) {
        const mixed_group *G = &mx->grp[i];
        const int *v = m->groups[G->g].v;
        const int ns = G->ns, nd = G->nd, nc = G->nc;
        int e;
        double gmax = 0;
#pragma omp parallel for schedule(static) reduction(max : gmax) if (G->ne > PAR_MIN)
        for (e = 0; e < G->ne; e++) {
            const int *t = v + (size_t)nc * e;
            double dxe[12];
            size_t os = (size_t)ns * e;
            int c, k;
            for (c = 0; c < nc; c++)
                for (k = 0; k < 3; k++) dxe[3 * c + k] = mx->dx[3 * (size_t)t[c] + k];
            mixed_local_update_n(ns, nd, G->sym, G->BJ + (size_t)ns * nd * e, G->Hs + (size_t)ns * ns * e,
                                 G->gs + os, G->shat + os, G->s + os, dxe, G->ds + os, G->lam + os);
            for (k = 0; k < ns; k++)
                if (fabs(G->ds[os + k]) > gmax)
                    gmax = fabs(G->ds[os + k]);
        }
        dsmax = gmax > dsmax ? gmax : dsmax;
    }
    mx->dsmax = dsmax;
    return SIPD_OK;
}

double mixed_lagrangian(const sipd_mixed *mx, double alpha)
{
    const sipd_model *m = mx->m;
    double L = 0;
    int i;
    for (i = 0; i < mx->ngrp; i++) {
        const mixed_group *G = &mx->grp[i];
        const sipd_elem_group *E = &m->groups[G->g];
        const int ns = G->ns, nc = G->nc;
        double Lg = 0;
        int e;
#pragma omp parallel for schedule(static) reduction(+ : Lg) if (G->ne > PAR_MIN)
        for (e = 0; e < G->ne; e++) {
            const int *t = E->v + (size_t)nc * e;
            size_t os = (size_t)ns * e;
            vec3 p[SIPD_MAX_CORNERS];
            double st[6];
            int c, k;
            for (c = 0; c < nc; c++) p[c] = v3_axpy(alpha, ld(mx->dx, t[c]), ld(mx->y, t[c]));
            for (k = 0; k < ns; k++) st[k] = G->s[os + k] + alpha * G->ds[os + k];
            Lg += kinds_mixed_lagrangian(G->kind, &m->mats[E->mat[e]], E->rest + (size_t)kind_rest_size(G->kind) * e,
                                         E->vol[e], p, st, G->lam + os);
        }
        L += Lg;
    }
    return L;
}

void mixed_accept(sipd_mixed *mx, double alpha)
{
    size_t i, n = (size_t)mx->ns_total;
    for (i = 0; i < n; i++) mx->s[i] += alpha * mx->ds[i];
}
