/* coarse.c — the coarse level of two-level SIPD (coarse.h). */
#include "coarse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "util.h"

#define PAR_MIN 256   /* coarse rows below which the loops run serially */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void coarse_free(sipd_coarse *c)
{
    free(c->bcell);
    free(c->bquad);
    free(c->vnode);
    free(c->vw);
    free(c->t_off);
    free(c->t_v);
    free(c->t_w);
    sipd_bsr_free(&c->Hc);
    if (c->analysed)
        sipd_chol_free(&c->C);
    free(c->rc);
    free(c->ec);
    free(c->pos);
    free(c->npos);
    free(c->nbody);
    sipd_bsr_free(&c->U);
    memset(c, 0, sizeof *c);
}

/* Hc's pattern from H's (any block-CSR over the vertices: the elements' pattern, or it merged
 * with the contact pairs' couplings): j is in row i when some H_ab couples a ∈ supp i to
 * b ∈ supp j.  A previous pattern and its CHOLMOD analysis are dropped. */
static int coarse_pattern(sipd_coarse *c, const sipd_bsr *H)
{
    sipd_bsr *A = &c->Hc;
    int i, k, l, q, nnz = 0, *mark, *cols;
    sipd_bsr_free(A);
    if (c->analysed)
        sipd_chol_free(&c->C);
    c->analysed = 0;
    mark = sipd_malloc((size_t)c->nc * sizeof(int));
    cols = sipd_malloc((size_t)c->nc * sizeof(int));
    A->n = c->nc;
    A->row_off = sipd_calloc((size_t)c->nc + 1, sizeof(int));
    A->diag = sipd_malloc((size_t)c->nc * sizeof(int));
    if (!mark || !cols || !A->row_off || !A->diag)
        goto fail;
    for (i = 0; i < c->nc; i++) mark[i] = -1;
    for (int pass = 0; pass < 2; pass++) {
        nnz = 0;
        for (i = 0; i < c->nc; i++) {
            int n = 0;
            for (k = c->t_off[i]; k < c->t_off[i + 1]; k++) {
                int av = c->t_v[k];
                for (q = H->row_off[av]; q < H->row_off[av + 1]; q++) {
                    int b = H->col[q];
                    for (l = 0; l < c->npv; l++) {
                        int j = c->vnode[(size_t)c->npv * b + l];
                        if (j >= 0 && mark[j] != i) {
                            mark[j] = i;
                            cols[n++] = j;
                        }
                    }
                }
            }
            if (pass == 0) {
                A->row_off[i + 1] = A->row_off[i] + n;
            } else {
                qsort(cols, (size_t)n, sizeof(int), cmp_int);
                memcpy(A->col + A->row_off[i], cols, (size_t)n * sizeof(int));
                for (k = 0; k < n; k++)
                    if (cols[k] == i)
                        A->diag[i] = A->row_off[i] + k;
            }
            nnz += n;
        }
        if (pass == 0) {
            A->nnzb = nnz;
            A->col = sipd_malloc(((size_t)nnz + 1) * sizeof(int));
            A->val = sipd_calloc(((size_t)nnz + 1) * 9, sizeof(double));
            if (!A->col || !A->val)
                goto fail;
            for (i = 0; i < c->nc; i++) mark[i] = -1;
        }
    }
    free(mark);
    free(cols);
    return SIPD_OK;
fail:
    free(mark);
    free(cols);
    sipd_bsr_free(A);
    return SIPD_EFAIL;
}

/* Whether body b's grid is quadratic along its spanned axes (coarse_build's basis). */
static int body_quadratic(const sipd_model *m, int b, int basis)
{
    int kind;
    if (basis == SIPD_COARSE_BASIS_QUADRATIC)
        return 1;
    if (basis == SIPD_COARSE_BASIS_TRILINEAR || !m->bodies || b >= m->nbodies)
        return 0;
    kind = m->bodies[b].kind;   /* (springs from a tet mesh fill a volume: as a solid) */
    return kind == SIPD_ELEMENTS_SHELL || kind == SIPD_ELEMENTS_ROD ||
           (kind == SIPD_ELEMENTS_SPRINGS && !m->bodies[b].volumetric);
}

/* The mean length of each body's element edges (corners 0 and 1 of every element: an edge of a
 * tet, triangle, spring, rod segment, rod bend or hinge), 0 for a body without elements. */
static double *body_mean_edges(const sipd_model *m, int nb)
{
    double *sum = sipd_calloc((size_t)nb, sizeof(double));
    long *cnt = sipd_calloc((size_t)nb, sizeof(long));
    int g, e, b;
    if (!sum || !cnt) {
        free(sum);
        free(cnt);
        return NULL;
    }
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        if (G->nc < 2)
            continue;
        for (e = 0; e < G->ne; e++) {
            int v0 = G->v[(size_t)G->nc * e], v1 = G->v[(size_t)G->nc * e + 1], k;
            double d2 = 0;
            for (k = 0; k < 3; k++) d2 += (m->X0[3 * v1 + k] - m->X0[3 * v0 + k]) * (m->X0[3 * v1 + k] - m->X0[3 * v0 + k]);
            b = m->body && m->nbodies > 0 ? m->body[v0] : 0;
            sum[b] += sqrt(d2);
            cnt[b]++;
        }
    }
    for (b = 0; b < nb; b++) sum[b] = cnt[b] > 0 ? sum[b] / cnt[b] : 0;
    free(cnt);
    return sum;
}

/* A body's grid over [lo, hi] (L its longest edge) with `cells` cells along L: the cell width,
 * the cells per axis, the quadratic axes (quad: the body's basis is quadratic; along the axes
 * the body spans 2 cells or more — along a thinner one the linear weights resolve it, and three
 * near-equal quadratic weights would make the coarse unknowns nearly dependent).  Returns the
 * grid's node count. */
static int grid_dims(const double lo[3], const double hi[3], double L, int cells, int quad, double *cell, int dims[3],
                     unsigned char *bq)
{
    int k, ng = 1;
    *cell = L > 0 ? L / cells : 1;   /* (a body of one vertex, or none: one cell) */
    *bq = 0;
    for (k = 0; k < 3; k++) {
        int d = L > 0 ? (int)ceil((hi[k] - lo[k]) / *cell - 1e-9) : 1;
        dims[k] = d < 1 ? 1 : d;
        if (dims[k] >= 2 && quad)
            *bq |= (unsigned char)(1u << k);
        ng *= dims[k] + ((*bq >> k) & 1 ? 3 : 1);
    }
    return ng;
}

/* Body b's vertex range [v0, v0 + n) (the whole model without body records). */
static int body_range(const sipd_model *m, int b, int nb, int *v0)
{
    if (!m->bodies || nb <= 1 || b >= m->nbodies) {
        *v0 = 0;
        return m->nv;
    }
    *v0 = m->bodies[b].v0;
    return m->bodies[b].nv;
}

/* Body b's free vertices with mass (the ones a coarse node can move). */
static long body_nv(const sipd_model *m, int b, int nb)
{
    int v0, n = body_range(m, b, nb, &v0), a;
    long cnt = 0;
    for (a = v0; a < v0 + n; a++) cnt += !m->fixed[a] && m->mass[a] > 0;
    return cnt;
}

/* The nodes of body b's quadratic grid with `cells` cells that its free vertices with mass touch
 * (-1: out of memory). */
static long body_grid_nodes(const sipd_model *m, int b, int nb, const double lo[3], const double hi[3], double L,
                            int cells)
{
    double cell, w[27];
    int dims[3], node[27], v0, n = body_range(m, b, nb, &v0), a, l;
    unsigned char bq;
    int ng = grid_dims(lo, hi, L, cells, 1, &cell, dims, &bq);
    unsigned char *mark = sipd_calloc((size_t)ng + 1, 1);
    long cnt = 0;
    if (!mark)
        return -1;
    for (a = v0; a < v0 + n; a++) {
        if (m->fixed[a] || m->mass[a] <= 0)
            continue;
        coarse_vertex_weights_mixed(m->X0 + 3 * (size_t)a, lo, cell, dims, bq, 27, node, w);
        for (l = 0; l < 27; l++)
            if (node[l] >= 0 && w[l] > 0 && !mark[node[l]]) {
                mark[node[l]] = 1;
                cnt++;
            }
    }
    free(mark);
    return cnt;
}

int coarse_build(sipd_coarse *c, const sipd_model *m, const sipd_bsr *H, int size, int basis)
{
    const int nv = m->nv, nb = m->nbodies > 0 ? m->nbodies : 1;
    double *hmean = NULL;
    int a, b, k, l, ngrid = 0, npv, *gmap = NULL, *gbase = NULL, *gdims = NULL;
    double *lo = NULL, *hi = NULL, *gcell = NULL;
    memset(c, 0, sizeof *c);
    c->nv = nv;
    if (size < 1 || nv < 1 || !H || H->n != nv)
        return SIPD_EFAIL;
    /* one grid per body, over its initial bounding box: `size` cells along its longest edge */
    lo = sipd_malloc((size_t)nb * 3 * sizeof(double));
    hi = sipd_malloc((size_t)nb * 3 * sizeof(double));
    gcell = sipd_malloc((size_t)nb * sizeof(double));
    c->bquad = sipd_calloc((size_t)nb, 1);
    gbase = sipd_malloc(((size_t)nb + 1) * sizeof(int));
    gdims = sipd_malloc((size_t)nb * 3 * sizeof(int));
    if (!lo || !hi || !gcell || !gbase || !gdims || !c->bquad)
        goto fail;
    for (b = 0; b < nb; b++)
        for (k = 0; k < 3; k++) {
            lo[3 * b + k] = INFINITY;
            hi[3 * b + k] = -INFINITY;
        }
    for (a = 0; a < nv; a++) {
        b = m->body && m->nbodies > 0 ? m->body[a] : 0;
        for (k = 0; k < 3; k++) {
            double x = m->X0[3 * a + k];
            if (x < lo[3 * b + k])
                lo[3 * b + k] = x;
            if (x > hi[3 * b + k])
                hi[3 * b + k] = x;
        }
    }
    if (basis == SIPD_COARSE_BASIS_AUTO && !(hmean = body_mean_edges(m, nb)))
        goto fail;
    for (b = 0; b < nb; b++) {
        double L = 0;
        int ng, cells = size, quad = body_quadratic(m, b, basis);
        for (k = 0; k < 3; k++) {
            if (!(lo[3 * b + k] <= hi[3 * b + k]))
                lo[3 * b + k] = hi[3 * b + k] = 0;   /* a body without vertices */
            if (hi[3 * b + k] - lo[3 * b + k] > L)
                L = hi[3 * b + k] - lo[3 * b + k];
        }
        /* "auto": a thin body's cells no wider than its mean element edge, coarsened while the
           grid has more nodes than twice the body's vertices (a closed surface spans a volume:
           docs/two-level.md#the-coarse-basis) */
        if (hmean && quad && hmean[b] > 0 && L / hmean[b] > cells) {
            cells = L / hmean[b] < 1024 ? (int)ceil(L / hmean[b] - 1e-9) : 1024;
            while (cells > size && body_grid_nodes(m, b, nb, lo + 3 * b, hi + 3 * b, L, cells) > 2L * body_nv(m, b, nb))
                cells = (int)(0.8 * cells) > size ? (int)(0.8 * cells) : size;
        }
        ng = grid_dims(lo + 3 * b, hi + 3 * b, L, cells, quad, &gcell[b], gdims + 3 * b, &c->bquad[b]);
        gbase[b] = ngrid;
        ngrid += ng;
    }
    gbase[nb] = ngrid;
    c->nbodies = nb;
    c->bcell = gcell;
    gcell = NULL;
    npv = 8;
    for (b = 0; b < nb; b++)
        if (c->bquad[b])
            npv = 27;
    c->npv = npv;
    c->vnode = sipd_malloc((size_t)nv * npv * sizeof(int));
    c->vw = sipd_malloc((size_t)nv * npv * sizeof(double));
    gmap = sipd_malloc((size_t)ngrid * sizeof(int));
    if (!c->vnode || !c->vw || !gmap)
        goto fail;
    /* weights; grid nodes seen by a free vertex with a positive weight are kept, in grid order */
    for (l = 0; l < ngrid; l++) gmap[l] = -1;
    for (a = 0; a < nv; a++) {
        b = m->body && m->nbodies > 0 ? m->body[a] : 0;
        int *vn = c->vnode + (size_t)npv * a;
        double *vw = c->vw + (size_t)npv * a;
        coarse_vertex_weights_mixed(m->X0 + 3 * a, lo + 3 * b, c->bcell[b], gdims + 3 * b, c->bquad[b], npv, vn, vw);
        for (l = 0; l < npv; l++) {
            if (vn[l] < 0)
                continue;
            vn[l] += gbase[b];
            if (m->fixed[a] || m->mass[a] <= 0)
                vw[l] = 0;
            if (vw[l] > 0)
                gmap[vn[l]] = 0;
        }
    }
    for (l = 0; l < ngrid; l++)
        if (gmap[l] == 0)
            gmap[l] = c->nc++;
    if (c->nc == 0 || !(c->npos = sipd_malloc((size_t)c->nc * 3 * sizeof(double))) ||
        !(c->nbody = sipd_malloc((size_t)c->nc * sizeof(int))))
        goto fail;
    for (b = 0; b < nb; b++)   /* where each kept node sits (tests, docs), and its body */
        for (l = gbase[b]; l < gbase[b + 1]; l++) {
            const int q = c->bquad[b];   /* (a quadratic axis' nodes start one cell below lo) */
            int r = l - gbase[b], d0 = gdims[3 * b] + (q & 1 ? 3 : 1), d1 = gdims[3 * b + 1] + (q & 2 ? 3 : 1),
                i = gmap[l];
            if (i < 0)
                continue;
            c->npos[3 * i] = lo[3 * b] + c->bcell[b] * (r % d0 - (q & 1));
            c->npos[3 * i + 1] = lo[3 * b + 1] + c->bcell[b] * ((r / d0) % d1 - ((q >> 1) & 1));
            c->npos[3 * i + 2] = lo[3 * b + 2] + c->bcell[b] * (r / (d0 * d1) - ((q >> 2) & 1));
            c->nbody[i] = b;
        }
    for (a = 0; a < npv * nv; a++) {
        int j = c->vnode[a] >= 0 ? gmap[c->vnode[a]] : -1;
        c->vnode[a] = c->vw[a] > 0 ? j : -1;
        if (c->vnode[a] < 0)
            c->vw[a] = 0;
    }
    /* Pᵀ as CSR (vertices of each coarse node in increasing order) */
    c->t_off = sipd_calloc((size_t)c->nc + 1, sizeof(int));
    c->t_v = sipd_malloc((size_t)nv * npv * sizeof(int) + 1);
    c->t_w = sipd_malloc((size_t)nv * npv * sizeof(double) + 1);
    if (!c->t_off || !c->t_v || !c->t_w)
        goto fail;
    for (a = 0; a < npv * nv; a++)
        if (c->vnode[a] >= 0)
            c->t_off[c->vnode[a] + 1]++;
    for (l = 0; l < c->nc; l++) c->t_off[l + 1] += c->t_off[l];
    {
        int *fill = gmap;   /* reused: ngrid >= nc */
        for (l = 0; l < c->nc; l++) fill[l] = c->t_off[l];
        for (a = 0; a < nv; a++)
            for (l = 0; l < npv; l++) {
                int j = c->vnode[(size_t)npv * a + l];
                if (j < 0)
                    continue;
                c->t_v[fill[j]] = a;
                c->t_w[fill[j]] = c->vw[(size_t)npv * a + l];
                fill[j]++;
            }
    }
    if (coarse_pattern(c, H) != SIPD_OK)
        goto fail;
    c->rc = sipd_malloc((size_t)c->nc * 3 * sizeof(double));
    c->ec = sipd_malloc((size_t)c->nc * 3 * sizeof(double));
#ifdef _OPENMP
    c->npos_t = omp_get_max_threads();
#else
    c->npos_t = 1;
#endif
    c->pos = sipd_malloc((size_t)c->npos_t * c->nc * sizeof(int));
    if (!c->rc || !c->ec || !c->pos)
        goto fail;
    free(gmap);
    free(lo);
    free(hi);
    free(gcell);
    free(gbase);
    free(gdims);
    free(hmean);
    return SIPD_OK;
fail:
    free(hmean);
    free(gmap);
    free(lo);
    free(hi);
    free(gcell);
    free(gbase);
    free(gdims);
    coarse_free(c);
    return SIPD_EFAIL;
}

void coarse_restrict(const sipd_coarse *c, const double *f, double *r)
{
    int i;
#pragma omp parallel for schedule(static) if (c->nc > PAR_MIN)
    for (i = 0; i < c->nc; i++) coarse_restrict_node(c->t_off, c->t_v, c->t_w, f, i, r + 3 * i);
}

void coarse_prolong(const sipd_coarse *c, const double *e, double *dy)
{
    int a;
#pragma omp parallel for schedule(static) if (c->nv > 8 * PAR_MIN)
    for (a = 0; a < c->nv; a++) coarse_prolong_vertex(c->vnode, c->vw, c->npv, e, a, dy + 3 * a);
}

void coarse_galerkin(sipd_coarse *c, const sipd_bsr *H)
{
    sipd_bsr *A = &c->Hc;
    int i;
    memset(A->val, 0, (size_t)A->nnzb * 9 * sizeof(double));
#pragma omp parallel if (c->nc > PAR_MIN)
    {
        int t = 0, k;
#ifdef _OPENMP
        t = omp_get_thread_num();
        if (t >= c->npos_t)
            t = 0;   /* (cannot happen: npos_t = the maximum team size) */
#endif
        int *pos = c->pos + (size_t)t * c->nc;
#pragma omp for schedule(dynamic, 16)
        for (i = 0; i < c->nc; i++) {
            for (k = A->row_off[i]; k < A->row_off[i + 1]; k++) pos[A->col[k]] = k;
            coarse_galerkin_row(c->t_off, c->t_v, c->t_w, c->vnode, c->vw, c->npv, H->row_off, H->col, H->val, pos, A->val,
                                i);
        }
    }
}

int coarse_factor(sipd_coarse *c, const sipd_bsr *H)
{
    double t0 = sipd_now(), t1;
    int i, rc;
    coarse_galerkin(c, H);
    t1 = sipd_now();
    c->t_assemble += t1 - t0;
    if (!c->analysed) {
        if ((rc = sipd_chol_analyse(&c->C, &c->Hc)) != SIPD_OK)
            return rc;
        c->analysed = 1;
    }
    rc = sipd_chol_factor(&c->C, &c->Hc);
    if (rc == SIPD_ESIGNAL)
        return rc;   /* a stop request (util.h): the factor is abandoned */
    if (rc != SIPD_OK) {   /* a coarse space too fine for its mesh leaves Hc (nearly) singular */
        double dmax = 0;
        for (i = 0; i < c->nc; i++) {
            const double *D = c->Hc.val + 9 * (size_t)c->Hc.diag[i];
            int r;
            for (r = 0; r < 3; r++)
                if (D[4 * r] > dmax)
                    dmax = D[4 * r];
        }
        for (i = 0; i < c->nc; i++) {
            double *D = c->Hc.val + 9 * (size_t)c->Hc.diag[i];
            D[0] += 1e-10 * dmax;
            D[4] += 1e-10 * dmax;
            D[8] += 1e-10 * dmax;
        }
        rc = sipd_chol_factor(&c->C, &c->Hc);
    }
    c->t_factor += sipd_now() - t1;
    if (rc != SIPD_OK)
        c->factor_failures++;
    return rc;
}

int coarse_factor_pairs(sipd_coarse *c, const sipd_bsr *H, const sipd_bsr_extra *extra)
{
    const sipd_bsr *A = H;
    if (extra && extra->row) {   /* contact pairs: their couplings join H (sparse.h) */
        int changed = 0;
        if (!extra->blocks || sipd_bsr_merge_extra(&c->U, H, extra, &changed) != SIPD_OK)
            return SIPD_EFAIL;
        if ((changed || !c->merged) && coarse_pattern(c, &c->U) != SIPD_OK)
            return SIPD_EFAIL;
        c->repatterns += changed || !c->merged;
        c->merged = 1;
        A = &c->U;
    } else if (c->merged) {   /* the pairs are gone: back to H's pattern */
        if (coarse_pattern(c, H) != SIPD_OK)
            return SIPD_EFAIL;
        c->repatterns++;
        c->merged = 0;
    }
    return coarse_factor(c, A);
}

int coarse_apply(sipd_coarse *c, const double *g, double *dy)
{
    double t0 = sipd_now();
    int i, rc;
    if (!c->analysed || !c->C.ok)
        return SIPD_EFAIL;
    c->corrections++;
    coarse_restrict(c, g, c->rc);
    for (i = 0; i < 3 * c->nc; i++) c->rc[i] = -c->rc[i];
    if ((rc = sipd_chol_solve(&c->C, c->rc, c->ec)) != SIPD_OK)
        return rc;
    coarse_prolong(c, c->ec, dy);
    c->t_solve += sipd_now() - t0;
    return SIPD_OK;
}

int coarse_direction(sipd_coarse *c, const sipd_bsr *H, const double *g, double *dy)
{
    int rc = coarse_factor(c, H);
    return rc != SIPD_OK ? rc : coarse_apply(c, g, dy);
}
