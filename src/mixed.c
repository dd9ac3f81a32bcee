/* mixed.c — the mixed variational FEM outer iteration (mixed.h, DESIGN.md §3.11). */
#include "mixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "physics/mixed.h"
#include "scene.h"
#include "util.h"

#define PAR_MIN 4096

struct sipd_mixed {
    const sipd_model *m;
    int linear;
    double cg_tol;
    double *s, *ds, *lam;       /* nt*6                                                    */
    double *K;                  /* nt*144 element blocks of the last direction              */
    double *r;                  /* nt*12 element right-hand sides                          */
    double *BJ, *Hs;            /* nt*72, nt*36                                             */
    double *gs, *shat;          /* nt*6                                                    */
    double *y, *dx, *rhs;       /* nv*3                                                    */
    double *Pinv, *work;        /* PCG: nv*9, 4*nv*3                                        */
    sipd_chol chol;
    int analysed;
    double dsmax;
};

static inline vec3 ld(const double *p, int i) { return v3_load(p + 3 * (size_t)i); }

void mixed_free(sipd_mixed *mx)
{
    if (!mx)
        return;
    free(mx->s); free(mx->ds); free(mx->lam); free(mx->K); free(mx->r); free(mx->BJ); free(mx->Hs);
    free(mx->gs); free(mx->shat); free(mx->y); free(mx->dx); free(mx->rhs); free(mx->Pinv); free(mx->work);
    if (mx->analysed)
        chol_free(&mx->chol);
    free(mx);
}

int mixed_create(sipd_mixed **out, const sipd_model *m, int linear, double cg_tol)
{
    sipd_mixed *mx = sipd_calloc(1, sizeof *mx);
    size_t nt = (size_t)(m->nt > 0 ? m->nt : 1), n3 = (size_t)m->nv * 3 + 3;
    int e;
    *out = NULL;
    if (!mx)
        return SIPD_EFAIL;
    mx->m = m;
    mx->linear = linear;
    mx->cg_tol = cg_tol;
    mx->s = sipd_malloc(nt * 6 * sizeof(double));
    mx->ds = sipd_calloc(nt * 6, sizeof(double));
    mx->lam = sipd_calloc(nt * 6, sizeof(double));
    mx->K = sipd_malloc(nt * 144 * sizeof(double));
    mx->r = sipd_malloc(nt * 12 * sizeof(double));
    mx->BJ = sipd_malloc(nt * 72 * sizeof(double));
    mx->Hs = sipd_malloc(nt * 36 * sizeof(double));
    mx->gs = sipd_malloc(nt * 6 * sizeof(double));
    mx->shat = sipd_malloc(nt * 6 * sizeof(double));
    mx->y = sipd_calloc(n3, sizeof(double));
    mx->dx = sipd_calloc(n3, sizeof(double));
    mx->rhs = sipd_malloc(n3 * sizeof(double));
    mx->Pinv = sipd_malloc(3 * n3 * sizeof(double));
    mx->work = sipd_malloc(4 * n3 * sizeof(double));
    if (!mx->s || !mx->ds || !mx->lam || !mx->K || !mx->r || !mx->BJ || !mx->Hs || !mx->gs || !mx->shat || !mx->y ||
        !mx->dx || !mx->rhs || !mx->Pinv || !mx->work) {
        mixed_free(mx);
        return SIPD_EFAIL;
    }
    for (e = 0; e < m->nt; e++) {   /* s starts consistent with the initial positions */
        const int *t = m->tets + 4 * (size_t)e;
        mixed_tet_shat(m->Bm + 9 * (size_t)e, ld(m->X0, t[0]), ld(m->X0, t[1]), ld(m->X0, t[2]), ld(m->X0, t[3]),
                       mx->s + 6 * (size_t)e);
    }
    *out = mx;
    return SIPD_OK;
}

void mixed_begin_step(sipd_mixed *mx)
{
    memset(mx->lam, 0, sizeof(double) * 6 * (size_t)mx->m->nt);
    memset(mx->ds, 0, sizeof(double) * 6 * (size_t)mx->m->nt);
}

double *mixed_stretch(sipd_mixed *mx) { return mx->s; }
int mixed_stretch_count(const sipd_mixed *mx) { return 6 * mx->m->nt; }
double mixed_ds_max(const sipd_mixed *mx) { return mx->dsmax; }

int mixed_direction(sipd_mixed *mx, sipd_bsr *H, const sipd_bsr_extra *extra, const double *gbase, const double *y,
                    double *dx, int *cg_iters)
{
    const sipd_model *m = mx->m;
    const int nv = m->nv, nt = m->nt, n = 3 * nv;
    double dsmax = 0;
    int e, a;
    *cg_iters = 0;
    if (H->n != nv || H->ne != nt || H->k != 4)
        return SIPD_EFAIL;
    memcpy(mx->y, y, sizeof(double) * (size_t)n);
    /* element pass: R, ŝ, B, H_e, g_e and the element's blocks and right-hand side */
#pragma omp parallel for schedule(static) if (nt > PAR_MIN / 4)
    for (e = 0; e < nt; e++) {
        const int *t = m->tets + 4 * (size_t)e;
        size_t o6 = 6 * (size_t)e;
        mixed_tet_system(&m->mats[m->tet_mat[e]], m->Bm + 9 * (size_t)e, m->vol[e], ld(y, t[0]), ld(y, t[1]),
                         ld(y, t[2]), ld(y, t[3]), mx->s + o6, mx->K + 144 * (size_t)e, mx->r + 12 * (size_t)e,
                         mx->BJ + 72 * (size_t)e, mx->Hs + 36 * (size_t)e, mx->gs + o6, mx->shat + o6);
    }
    /* assembly: row a gathers its incidences' blocks (free columns only) and right-hand side */
#pragma omp parallel for schedule(static) if (nv > PAR_MIN)
    for (a = 0; a < nv; a++) {
        int i, k;
        double ra[3] = {0, 0, 0};
        if (m->fixed[a]) {
            mx->rhs[3 * a] = mx->rhs[3 * a + 1] = mx->rhs[3 * a + 2] = 0;
            continue;
        }
        for (i = m->inc_off[a]; i < m->inc_off[a + 1]; i++)
            for (k = 0; k < 3; k++) ra[k] += mx->r[12 * (size_t)m->inc_elem[i] + 3 * m->inc_corner[i] + k];
        bsr_gather_element_row(H, m->inc_off[a], m->inc_off[a + 1], m->inc_elem, m->inc_corner, m->tets, m->fixed,
                               mx->K);   /* Σ element blocks, as Newton's (sparse.h) */
        for (k = 0; k < 3; k++) mx->rhs[3 * a + k] = ra[k] - gbase[3 * a + k];
    }
    /* the global solve */
    if (mx->linear == SIPD_LINEAR_CHOLMOD) {
        if (!mx->analysed) {
            if (chol_analyse(&mx->chol, H) != SIPD_OK)
                return SIPD_EFAIL;
            mx->analysed = 1;
        }
        if (chol_factor(&mx->chol, H) != SIPD_OK || chol_solve(&mx->chol, mx->rhs, mx->dx) != SIPD_OK)
            return SIPD_EFAIL;
    } else {
        int maxit = 4 * n > 200 ? 4 * n : 200;
        bsr_block_jacobi(H, mx->Pinv);
        *cg_iters = pcg(H, extra, mx->Pinv, mx->rhs, mx->dx, maxit, mx->cg_tol, mx->work);
    }
    for (a = 0; a < nv; a++)
        if (m->fixed[a])
            mx->dx[3 * a] = mx->dx[3 * a + 1] = mx->dx[3 * a + 2] = 0;
    memcpy(dx, mx->dx, sizeof(double) * (size_t)n);
    /* closed-form local updates: Δs, λ */
#pragma omp parallel for schedule(static) reduction(max : dsmax) if (nt > PAR_MIN)
    for (e = 0; e < nt; e++) {
        const int *t = m->tets + 4 * (size_t)e;
        double dxe[12];
        size_t o6 = 6 * (size_t)e;
        int c, k;
        for (c = 0; c < 4; c++)
            for (k = 0; k < 3; k++) dxe[3 * c + k] = mx->dx[3 * (size_t)t[c] + k];
        mixed_local_update(mx->BJ + 72 * (size_t)e, mx->Hs + 36 * (size_t)e, mx->gs + o6, mx->shat + o6, mx->s + o6,
                           dxe, mx->ds + o6, mx->lam + o6);
        for (k = 0; k < 6; k++)
            if (fabs(mx->ds[o6 + k]) > dsmax)
                dsmax = fabs(mx->ds[o6 + k]);
    }
    mx->dsmax = dsmax;
    return SIPD_OK;
}

double mixed_lagrangian(const sipd_mixed *mx, double alpha)
{
    const sipd_model *m = mx->m;
    double L = 0;
    int e;
#pragma omp parallel for schedule(static) reduction(+ : L) if (m->nt > PAR_MIN)
    for (e = 0; e < m->nt; e++) {
        const int *t = m->tets + 4 * (size_t)e;
        size_t o6 = 6 * (size_t)e;
        vec3 p[4];
        double st[6];
        int c, k;
        for (c = 0; c < 4; c++) p[c] = v3_axpy(alpha, ld(mx->dx, t[c]), ld(mx->y, t[c]));
        for (k = 0; k < 6; k++) st[k] = mx->s[o6 + k] + alpha * mx->ds[o6 + k];
        L += mixed_tet_lagrangian(&m->mats[m->tet_mat[e]], m->Bm + 9 * (size_t)e, m->vol[e], p[0], p[1], p[2], p[3],
                                  st, mx->lam + o6);
    }
    return L;
}

void mixed_accept(sipd_mixed *mx, double alpha)
{
    size_t i, n = 6 * (size_t)mx->m->nt;
    for (i = 0; i < n; i++) mx->s[i] += alpha * mx->ds[i];
}
