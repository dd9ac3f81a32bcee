/* midedge_rest.c — rest data of mid-edge bending (see midedge_rest.h and physics/midedge.h). */
#include "midedge_rest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "physics/eig.h"
#include "physics/midedge.h"
#include "util.h"

static vec3 ld(const double *X, int a) { return v3(X[3 * a], X[3 * a + 1], X[3 * a + 2]); }
static vec3 unit(vec3 a)
{
    double l = sqrt(v3_norm2(a));
    return l > 0 ? v3_scale(a, 1 / l) : a;
}

static int cmp4(const void *a, const void *b)
{
    const int *x = (const int *)a, *y = (const int *)b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

#define ST_MAX 8   /* an interior edge's stencil: its two triangles and their 4 other neighbours' far vertices */

/* The slope stencil of interior edge (a, b) shared by triangles i and j: vertices st (≤ ST_MAX)
 * and σ with Σ σ_s X_s ≈ ∂x/∂β at the edge midpoint, β = unit(n_i + n_j) × unit(X_b − X_a)
 * (both rest normals oriented alike): the least-squares quadratic through the stencil in the
 * edge's frame (the least-norm one when the stencil lies on a conic).  Returns 1 when the slope
 * is exact for quadratics: every quadratic through the stencil's values has the same slope, i.e.
 * no null direction of the fit has an η component.  Rank 5 alone is common and harmless: next to
 * a boundary of a structured grid an edge's stencil lies on two grid lines across it, whose
 * product vanishes on the stencil and has no slope across the edge at its midpoint. */
static int edge_fit(const double *X, const int *tris, const int *nb, const int *op, int i, int j, int a, int b,
                    int *st, double *sig, int *ns, vec3 *beta)
{
    int n = 0, s, k, r, c, exact = 1;
    const int tt[2] = {i, j};
    double Vm[ST_MAX * 6], M[36], w[6], E[36], P[36];
    vec3 xa = ld(X, a), xb = ld(X, b), m = v3_scale(v3_add(xa, xb), 0.5), t = unit(v3_sub(xb, xa)), ni, nj, ne;
    double le = sqrt(v3_norm2(v3_sub(xb, xa))), wmax = 0;
    for (s = 0; s < 2; s++) {
        const int *T = tris + 3 * tt[s];
        for (k = 0; k < 3; k++) {
            int cand[2] = {T[k], nb[3 * tt[s] + k] >= 0 ? op[3 * tt[s] + k] : -1};
            for (r = 0; r < 2; r++) {
                int q, seen = 0;
                if (cand[r] < 0)
                    continue;
                for (q = 0; q < n; q++) seen |= st[q] == cand[r];
                if (!seen && n < ST_MAX)
                    st[n++] = cand[r];
            }
        }
    }
    ni = unit(v3_cross(v3_sub(ld(X, tris[3 * i + 1]), ld(X, tris[3 * i])), v3_sub(ld(X, tris[3 * i + 2]), ld(X, tris[3 * i]))));
    nj = unit(v3_cross(v3_sub(ld(X, tris[3 * j + 1]), ld(X, tris[3 * j])), v3_sub(ld(X, tris[3 * j + 2]), ld(X, tris[3 * j]))));
    if (v3_dot(ni, nj) < 0)
        nj = v3_scale(nj, -1);
    ne = v3_add(ni, nj);
    ne = v3_norm2(ne) > 1e-12 ? unit(ne) : ni;
    *beta = unit(v3_cross(ne, t));
    for (s = 0; s < n; s++) {
        vec3 d = v3_sub(ld(X, st[s]), m);
        double xi = v3_dot(d, t) / le, eta = v3_dot(d, *beta) / le;
        double row[6] = {1, xi, eta, 0.5 * xi * xi, xi * eta, 0.5 * eta * eta};
        memcpy(Vm + 6 * s, row, sizeof row);
    }
    for (r = 0; r < 6; r++)
        for (c = 0; c < 6; c++) {
            double acc = 0;
            for (s = 0; s < n; s++) acc += Vm[6 * s + r] * Vm[6 * s + c];
            M[6 * r + c] = acc;
        }
    sym_eig(6, M, w, E);
    for (k = 0; k < 6; k++) wmax = w[k] > wmax ? w[k] : wmax;
    for (r = 0; r < 36; r++) P[r] = 0;   /* the pseudo-inverse of VᵀV */
    for (k = 0; k < 6; k++) {
        if (!(w[k] > 1e-10 * wmax)) {
            exact &= fabs(E[6 * 2 + k]) < 1e-6;   /* a null direction that moves the slope */
            continue;
        }
        for (r = 0; r < 6; r++)
            for (c = 0; c < 6; c++) P[6 * r + c] += E[6 * r + k] * E[6 * c + k] / w[k];
    }
    for (s = 0; s < n; s++) {   /* the η coefficient of the fit, per unit length */
        double acc = 0;
        for (c = 0; c < 6; c++) acc += P[6 * 2 + c] * Vm[6 * s + c];
        sig[s] = acc / le;
    }
    *ns = n;
    return exact;
}

/* x ← A⁻¹ b for a small n x n system by Gaussian elimination with partial pivoting; 0 if singular */
static int small_solve(double *A, double *b, int n, int nrhs)
{
    int i, j, k, p, r;
    for (k = 0; k < n; k++) {
        double best = 0;
        for (p = -1, i = k; i < n; i++)
            if (fabs(A[i * n + k]) > best) { best = fabs(A[i * n + k]); p = i; }
        if (p < 0 || !(best > 0))
            return 0;
        if (p != k) {
            for (j = 0; j < n; j++) { double t = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = t; }
            for (r = 0; r < nrhs; r++) { double t = b[k * nrhs + r]; b[k * nrhs + r] = b[p * nrhs + r]; b[p * nrhs + r] = t; }
        }
        for (i = k + 1; i < n; i++) {
            double f = A[i * n + k] / A[k * n + k];
            for (j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
            for (r = 0; r < nrhs; r++) b[i * nrhs + r] -= f * b[k * nrhs + r];
        }
    }
    for (k = n - 1; k >= 0; k--)
        for (r = 0; r < nrhs; r++) {
            double acc = b[k * nrhs + r];
            for (j = k + 1; j < n; j++) acc -= A[k * n + j] * b[j * nrhs + r];
            b[k * nrhs + r] = acc / A[k * n + k];
        }
    return 1;
}

int midedge_rest_build(const double *X, const int *tris, int nf, int vo, double D, double nu, midedge_push_fn push,
                       void *ctx, int *nlow)
{
    int *E = sipd_malloc(((size_t)nf * 12 + 4) * sizeof(int)), *nb = sipd_malloc(((size_t)nf * 3 + 1) * sizeof(int));
    int *op = sipd_malloc(((size_t)nf * 3 + 1) * sizeof(int)), *eid = sipd_malloc(((size_t)nf * 3 + 1) * sizeof(int));
    int *est = sipd_malloc(((size_t)nf * 3 / 2 * ST_MAX + ST_MAX) * sizeof(int)), *ens = NULL;
    double *esig = sipd_malloc(((size_t)nf * 3 / 2 * ST_MAX + ST_MAX) * sizeof(double)), *ebeta = NULL;
    int n = 0, ne = 0, i, k, rc = SIPD_OK;
    *nlow = 0;
    ens = sipd_malloc(((size_t)nf * 3 / 2 + 2) * sizeof(int));
    ebeta = sipd_malloc(((size_t)nf * 3 / 2 + 2) * 3 * sizeof(double));
    if (!E || !nb || !op || !eid || !est || !esig || !ens || !ebeta) {
        rc = SIPD_EFAIL;
        goto done;
    }
    for (i = 0; i < nf; i++)
        for (k = 0; k < 3; k++) {   /* edge k of triangle i: (t[k], t[k+1]) */
            int a = tris[3 * i + k], c = tris[3 * i + (k + 1) % 3];
            E[4 * n] = a < c ? a : c;
            E[4 * n + 1] = a < c ? c : a;
            E[4 * n + 2] = i;
            E[4 * n + 3] = k;
            nb[3 * i + k] = op[3 * i + k] = eid[3 * i + k] = -1;
            n++;
        }
    qsort(E, (size_t)n, 4 * sizeof(int), cmp4);
    for (i = 0; i < n;) {   /* neighbours across the edges shared by exactly two triangles */
        int j = i;
        while (j < n && E[4 * j] == E[4 * i] && E[4 * j + 1] == E[4 * i + 1]) j++;
        if (j - i == 2) {
            int t1 = E[4 * i + 2], k1 = E[4 * i + 3], t2 = E[4 * (i + 1) + 2], k2 = E[4 * (i + 1) + 3];
            nb[3 * t1 + k1] = t2;
            op[3 * t1 + k1] = tris[3 * t2 + (k2 + 2) % 3];
            nb[3 * t2 + k2] = t1;
            op[3 * t2 + k2] = tris[3 * t1 + (k1 + 2) % 3];
        }
        i = j;
    }
    for (i = 0; i < nf; i++)   /* one fit per interior edge, shared by its two triangles */
        for (k = 0; k < 3; k++) {
            int j = nb[3 * i + k], kk;
            vec3 beta;
            if (j < 0 || eid[3 * i + k] >= 0)
                continue;
            if (!edge_fit(X, tris, nb, op, i, j, tris[3 * i + k], tris[3 * i + (k + 1) % 3], est + (size_t)ST_MAX * ne,
                          esig + (size_t)ST_MAX * ne, ens + ne, &beta))
                (*nlow)++;
            v3_store(ebeta + 3 * (size_t)ne, beta);
            eid[3 * i + k] = ne;
            for (kk = 0; kk < 3; kk++)
                if (nb[3 * j + kk] == i && eid[3 * j + kk] < 0 &&
                    ((tris[3 * j + kk] == tris[3 * i + k] && tris[3 * j + (kk + 1) % 3] == tris[3 * i + (k + 1) % 3]) ||
                     (tris[3 * j + kk] == tris[3 * i + (k + 1) % 3] && tris[3 * j + (kk + 1) % 3] == tris[3 * i + k])))
                    eid[3 * j + kk] = ne;
            ne++;
        }
    for (i = 0; i < nf && rc == SIPD_OK; i++) {
        const int *T = tris + 3 * i;
        int v[MIDEDGE_NC], nv = 3, nfree = 0, c, q, s;
        double R[MIDEDGE_REST], G[9], W[9], A;
        vec3 x0 = ld(X, T[0]), e1 = unit(v3_sub(ld(X, T[1]), x0)),
             N = v3_cross(v3_sub(ld(X, T[1]), x0), v3_sub(ld(X, T[2]), x0)), nn = unit(N), e2 = v3_cross(nn, e1);
        A = 0.5 * sqrt(v3_norm2(N));
        if (!(A > 0))
            continue;   /* degenerate: its membrane triangle is refused by the caller */
        memset(R, 0, sizeof R);
        for (q = 0; q < 3; q++) v[q] = T[q];
        for (k = 0; k < 3; k++) {
            vec3 xa = ld(X, T[k]), xb = ld(X, T[(k + 1) % 3]), d3 = v3_sub(xb, xa),
                 qv = v3_sub(ld(X, T[(k + 2) % 3]), v3_scale(v3_add(xa, xb), 0.5));
            double d[2] = {v3_dot(d3, e1), v3_dot(d3, e2)}, le = sqrt(d[0] * d[0] + d[1] * d[1]), nu2[2], vw[3];
            nu2[0] = d[1] / le;
            nu2[1] = -d[0] / le;
            if (nu2[0] * v3_dot(qv, e1) + nu2[1] * v3_dot(qv, e2) > 0) {
                nu2[0] = -nu2[0];
                nu2[1] = -nu2[1];
            }
            vw[0] = le / A * nu2[0] * nu2[0];
            vw[1] = le / A * nu2[0] * nu2[1];
            vw[2] = le / A * nu2[1] * nu2[1];
            if (eid[3 * i + k] < 0) {   /* a free edge: its slope is eliminated below */
                for (c = 0; c < 3; c++) G[3 * c + nfree] = vw[c];   /* column nfree of the 3 x nfree G */
                nfree++;
                continue;
            }
            {
                const int ed = eid[3 * i + k];
                vec3 out = v3_axpy(nu2[0], e1, v3_scale(e2, nu2[1]));
                double sg = v3_dot(out, v3_load(ebeta + 3 * (size_t)ed)) >= 0 ? 1 : -1;
                for (s = 0; s < ens[ed]; s++) {
                    int vtx = est[(size_t)ST_MAX * ed + s], slot = -1;
                    for (q = 0; q < nv; q++)
                        if (v[q] == vtx)
                            slot = q;
                    if (slot < 0) {
                        if (nv == MIDEDGE_NC) {   /* cannot happen on a manifold: 3 + 3 + 6 */
                            rc = SIPD_EFAIL;
                            break;
                        }
                        slot = nv;
                        v[nv++] = vtx;
                    }
                    for (c = 0; c < 3; c++) R[3 * slot + c] += sg * esig[(size_t)ST_MAX * ed + s] * vw[c];
                }
            }
        }
        if (rc != SIPD_OK || nfree == 3)
            continue;
        /* W = D [[1, 0, ν], [0, 2(1 − ν), 0], [ν, 0, 1]]; W' = W − W G (Gᵀ W G)⁻¹ Gᵀ W */
        for (q = 0; q < 9; q++) W[q] = 0;
        W[0] = W[8] = D;
        W[2] = W[6] = D * nu;
        W[4] = 2 * D * (1 - nu);
        if (nfree > 0) {
            double WG[9], GWG[9], X2[9];
            int r2, c2;
            for (r2 = 0; r2 < 3; r2++)
                for (c2 = 0; c2 < nfree; c2++) {
                    double acc = 0;
                    for (q = 0; q < 3; q++) acc += W[3 * r2 + q] * G[3 * q + c2];
                    WG[nfree * r2 + c2] = acc;
                }
            for (r2 = 0; r2 < nfree; r2++)
                for (c2 = 0; c2 < nfree; c2++) {
                    double acc = 0;
                    for (q = 0; q < 3; q++) acc += G[3 * q + r2] * WG[nfree * q + c2];
                    GWG[nfree * r2 + c2] = acc;
                }
            for (r2 = 0; r2 < nfree; r2++)   /* X2 = (GᵀWG)⁻¹ (WG)ᵀ, nfree x 3 */
                for (c2 = 0; c2 < 3; c2++) X2[3 * r2 + c2] = WG[nfree * c2 + r2];
            if (!small_solve(GWG, X2, nfree, 3))
                continue;   /* not reached: distinct edge normals are independent */
            for (r2 = 0; r2 < 3; r2++)
                for (c2 = 0; c2 < 3; c2++) {
                    double acc = 0;
                    for (q = 0; q < nfree; q++) acc += WG[nfree * r2 + q] * X2[3 * q + c2];
                    W[3 * r2 + c2] -= acc;
                }
        }
        R[36] = W[0];
        R[37] = W[4];
        R[38] = W[8];
        R[39] = 0.5 * (W[1] + W[3]);
        R[40] = 0.5 * (W[2] + W[6]);
        R[41] = 0.5 * (W[5] + W[7]);
        R[45] = D;
        for (q = nv; q < MIDEDGE_NC; q++) v[q] = v[0];   /* padding: zero coefficients */
        {   /* b̄: the rest shape's own curvature, by the formula the passes evaluate */
            vec3 y[MIDEDGE_NC];
            midedge_state st;
            for (q = 0; q < MIDEDGE_NC; q++) y[q] = ld(X, v[q]);
            midedge_eval(R, y, &st);
            for (c = 0; c < 3; c++) R[42 + c] = st.r[c];
        }
        for (q = 0; q < MIDEDGE_NC; q++) v[q] += vo;
        rc = push(ctx, v, R, A);
    }
done:
    free(E);
    free(nb);
    free(op);
    free(eid);
    free(est);
    free(ens);
    free(esig);
    free(ebeta);
    return rc;
}
