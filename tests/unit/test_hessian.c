/* test_hessian.c — verification of the second-derivative physics (src/physics/eig.h, hessian.h,
 * and the "clamp"/"abs" splits of material.h), docs/design.md §3.4, §3.7, §3.8, in double precision.
 *
 * One executable, one sub-test per argument (CTest registers each as hessian_<name>):
 *   eig      sym_eig: A == V diag(λ) Vᵀ, VᵀV == I, λ == the constructed spectrum (n = 1..12,
 *            repeated and clustered eigenvalues, diagonal and zero matrices, wide dynamic range);
 *            sym_project / s3_project: PSD, identity on PSD input, clamp/abs spectra
 *   dpdf     material_dPdF == central differences of material_P (inverted F included); symmetric
 *   vblock   tet_vertex_block == differences of tet_vertex_gradient; == tet_vertex_block_snh;
 *            project: PSD, == unprojected when that is PSD
 *   element  tet_element_hessian == differences of tet_element; diagonal blocks == vertex blocks;
 *            project: PSD, == V Gᵀ proj(∂P/∂F) G; translations in the null space
 *   split    SIPD_SPLIT_CLAMP / SIPD_SPLIT_ABS: K⁺ PSD, == K when K ⪰ 0, clamp zeroes exactly the
 *            negative eigenvalues of an indefinite K, abs flips them, same eigenvectors as K
 *   all      every one of the above
 * Each prints the measured quantities it asserts on, and exits non-zero on failure.
 */
#include "physics/common.h"
#include "physics/mat3.h"
#include "physics/eig.h"
#include "physics/material.h"
#include "physics/tet.h"
#include "physics/hessian.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fd.h"
#include "rng.h"
#include "runner.h"

/* ---------------------------------------------------------------- random numbers: rng.h (tests/common) */

/* ---------------------------------------------------------------- dense helpers (n <= 12) */
static double max_abs(int n, int m, const double *A)
{
    double s = 0;
    int i;
    for (i = 0; i < n * m; i++) s = fmax(s, fabs(A[i]));
    return s;
}
static double max_diff(int cnt, const double *A, const double *B)
{
    double s = 0;
    int i;
    for (i = 0; i < cnt; i++) s = fmax(s, fabs(A[i] - B[i]));
    return s;
}
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void sort_dbl(int n, double *v) { qsort(v, (size_t)n, sizeof *v, cmp_dbl); }

/* Random orthogonal n×n (twice-applied modified Gram–Schmidt on a random matrix); columns. */
static void rnd_orth(int n, double *Q)
{
    int i, j, k, pass;
    for (i = 0; i < n * n; i++) Q[i] = rndu(-1, 1);
    for (j = 0; j < n; j++) {
        for (pass = 0; pass < 2; pass++)
            for (k = 0; k < j; k++) {
                double d = 0;
                for (i = 0; i < n; i++) d += Q[n * i + k] * Q[n * i + j];
                for (i = 0; i < n; i++) Q[n * i + j] -= d * Q[n * i + k];
            }
        {
            double nn = 0;
            for (i = 0; i < n; i++) nn += Q[n * i + j] * Q[n * i + j];
            nn = sqrt(nn);
            for (i = 0; i < n; i++) Q[n * i + j] /= nn;
        }
    }
}
/* A = Q diag(d) Qᵀ */
static void compose(int n, const double *Q, const double *d, double *A)
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double s = 0;
            for (k = 0; k < n; k++) s += Q[n * i + k] * d[k] * Q[n * j + k];
            A[n * i + j] = s;
        }
}
/* sorted eigenvalues through sym_eig (verified by the eig test) */
static void eigvals(int n, const double *A, double *ev)
{
    double W[144], V[144];
    memcpy(W, A, sizeof(double) * (size_t)(n * n));
    sym_eig(n, W, ev, V);
    sort_dbl(n, ev);
}
static double min_eig(int n, const double *A)
{
    double ev[12];
    eigvals(n, A, ev);
    return ev[0];
}
static void sym3_arr(sym3 s, double *a) { mat3 m = s3_to_m3(s); memcpy(a, m.m, sizeof m.m); }

/* ---------------------------------------------------------------- random F and tets */
static mat3 rnd_rot(void)
{
    mat3 R;
    int i;
    rnd_orth(3, R.m);
    if (m3_det(R) < 0)
        for (i = 0; i < 3; i++) R.m[3 * i] = -R.m[3 * i];
    return R;
}
static mat3 usv(double s0, double s1, double s2)
{
    mat3 D = m3_zero();
    D.m[0] = s0; D.m[4] = s1; D.m[8] = s2;
    return m3_mul(m3_mul(rnd_rot(), D), m3_transpose(rnd_rot()));
}
enum { K_NEAR_REST, K_GENERAL, K_INVERTED, K_COMPRESSED, K_STRETCHED, K_NEAR_SINGULAR, K_RANK2, K_WIDE, K_NKINDS };
static const char *kind_name[K_NKINDS] = {"near-rest", "general", "inverted", "compressed", "stretched",
                                          "near-singular", "rank-2", "wide"};
static mat3 rnd_F(int kind)
{
    int i;
    mat3 F;
    switch (kind) {
    case K_NEAR_REST:
        F = m3_identity();
        for (i = 0; i < 9; i++) F.m[i] += rndu(-0.05, 0.05);
        return F;
    case K_GENERAL:
        F = m3_identity();
        for (i = 0; i < 9; i++) F.m[i] += rndu(-1, 1);
        return F;
    case K_INVERTED:
        return usv(rnd_log(0.2, 5), rnd_log(0.2, 5), -rnd_log(0.2, 5));
    case K_COMPRESSED:
        return usv(rnd_log(0.3, 1.1), rnd_log(0.3, 1.1), rnd_log(0.3, 0.9));
    case K_STRETCHED:
        return usv(rnd_log(1.2, 2), rnd_log(1.2, 2), rnd_log(1.2, 2));
    case K_NEAR_SINGULAR:
        return usv(rnd_log(0.3, 3), rnd_log(0.3, 3), (rnd() < 0.5 ? -1 : 1) * rnd_log(1e-9, 1e-7));
    case K_RANK2: {
        F = m3_zero();
        double a[3], b[3], c[3], d[3];
        for (i = 0; i < 3; i++) { a[i] = rndu(-2, 2); b[i] = rndu(-2, 2); c[i] = rndu(-2, 2); d[i] = rndu(-2, 2); }
        for (i = 0; i < 9; i++) F.m[i] = a[i / 3] * b[i % 3] + c[i / 3] * d[i % 3];
        return F;
    }
    case K_WIDE:
    default:
        return usv(rnd_log(1e-2, 1e2), rnd_log(1e-2, 1e2), (rnd() < 0.5 ? -1 : 1) * rnd_log(1e-2, 1e2));
    }
}
static sipd_material rnd_mat(void) { return material_stable_neohookean(rnd_log(1e3, 1e8), rndu(0.0, 0.495)); }

typedef struct {
    vec3 x[4];
    double Bm[9], vol;
} rest_tet;
/* A positively oriented, reasonably shaped tet of size ~s (quality: V >= 0.02 s³). */
static rest_tet rnd_tet(void)
{
    rest_tet t;
    double s = rnd_log(1e-2, 10);
    int a;
    for (;;) {
        for (a = 0; a < 4; a++) t.x[a] = v3(rndu(-s, s), rndu(-s, s), rndu(-s, s));
        t.vol = tet_rest(t.x[0], t.x[1], t.x[2], t.x[3], t.Bm);
        if (t.vol < 0) {
            vec3 tmp = t.x[1];
            t.x[1] = t.x[2];
            t.x[2] = tmp;
            t.vol = tet_rest(t.x[0], t.x[1], t.x[2], t.x[3], t.Bm);
        }
        if (t.vol > 0.02 * s * s * s)
            return t;
    }
}
/* Current positions with deformation gradient Ft: y_a = Ft x_a + shift */
static void deform(const rest_tet *t, mat3 Ft, vec3 y[4])
{
    vec3 sh = v3(rndu(-1, 1), rndu(-1, 1), rndu(-1, 1));
    int a;
    for (a = 0; a < 4; a++) y[a] = v3_add(m3_mulv(Ft, t->x[a]), sh);
}

/* ================================================================ eig */
static double eig_case(int n, const double *A0, const double *evref /* sorted or NULL */)
{
    double A[144], V[144], ev[12], R[144], I[144], sorted[12], nrm = max_abs(n, n, A0), err_r, err_o, err_e = 0;
    int i, j, k;
    memcpy(A, A0, sizeof(double) * (size_t)(n * n));
    sym_eig(n, A, ev, V);
    compose(n, V, ev, R);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double s = 0;
            for (k = 0; k < n; k++) s += V[n * k + i] * V[n * k + j];
            I[n * i + j] = s - (i == j);
        }
    err_r = nrm > 0 ? max_diff(n * n, R, A0) / nrm : max_abs(n, n, R);
    err_o = max_abs(n, n, I);
    CHECK(err_r <= 1e-12, "sym_eig n=%d: reconstruction error %.3g", n, err_r);
    CHECK(err_o <= 1e-12, "sym_eig n=%d: |VᵀV − I| = %.3g", n, err_o);
    if (evref) {
        memcpy(sorted, ev, sizeof(double) * (size_t)n);
        sort_dbl(n, sorted);
        err_e = max_diff(n, sorted, evref) / (nrm > 0 ? nrm : 1);
        CHECK(err_e <= 1e-12, "sym_eig n=%d: eigenvalue error %.3g", n, err_e);
    }
    return fmax(err_r, fmax(err_o, err_e));
}

static void test_eig(void)
{
    static const int sizes[] = {1, 2, 3, 4, 6, 9, 12};
    double worst = 0, worst_proj = 0, worst_id = 0;
    int si, rep, i, ncase = 0;
    rng_seed(11);
    for (si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); si++) {
        int n = sizes[si];
        for (rep = 0; rep < 300; rep++) {
            double Q[144], d[12] = {0}, A[144], ds[12];
            int kind = rep % 6;
            rnd_orth(n, Q);
            for (i = 0; i < n; i++) {
                switch (kind) {
                case 0: d[i] = rndu(-10, 10); break;                                  /* general */
                case 1: d[i] = (double)(rnd_int(3) - 1) * 2.5; break;                   /* repeated: -2.5, 0, 2.5 */
                case 2: d[i] = 1 + 1e-9 * rndu(-1, 1); break;                          /* tight cluster */
                case 3: d[i] = (rnd() < 0.5 ? -1 : 1) * rnd_log(1e-8, 1e8); break;    /* wide range */
                case 4: d[i] = i < n / 2 ? 3.0 : -1.0; break;                         /* two multiplicities */
                default: d[i] = rndu(0, 1) * rndu(0, 1) * 1e3; break;                   /* PSD */
                }
            }
            compose(n, Q, d, A);
            memcpy(ds, d, sizeof d);
            sort_dbl(n, ds);
            worst = fmax(worst, eig_case(n, A, ds));
            ncase++;

            /* already diagonal (the permutation-free case: V must stay I up to signs) */
            if (rep < 20) {
                double D[144];
                memset(D, 0, sizeof D);
                for (i = 0; i < n; i++) D[n * i + i] = d[i];
                worst = fmax(worst, eig_case(n, D, ds));
                ncase++;
            }

            /* projections: spectra and PSD-ness */
            {
                double P[144], evp[12], want[12], nrm = fmax(max_abs(n, n, A), 1e-300);
                int mode;
                for (mode = SIPD_PROJECT_CLAMP; mode <= SIPD_PROJECT_ABS; mode++) {
                    memcpy(P, A, sizeof(double) * (size_t)(n * n));
                    sym_project(n, P, mode);
                    eigvals(n, P, evp);
                    for (i = 0; i < n; i++) want[i] = mode == SIPD_PROJECT_ABS ? fabs(d[i]) : fmax(d[i], 0);
                    sort_dbl(n, want);
                    {
                        double e = max_diff(n, evp, want) / nrm, sym = 0;
                        int r, c;
                        for (r = 0; r < n; r++)
                            for (c = 0; c < n; c++) sym = fmax(sym, fabs(P[n * r + c] - P[n * c + r]));
                        worst_proj = fmax(worst_proj, e);
                        CHECK(e <= 1e-12, "sym_project n=%d mode %d: spectrum error %.3g", n, mode, e);
                        CHECK(evp[0] >= -1e-12 * nrm, "sym_project n=%d mode %d: min eig %.3g", n, mode, evp[0]);
                        CHECK(sym == 0, "sym_project n=%d: not symmetric (%.3g)", n, sym);
                    }
                    /* the projected matrix commutes with A (same eigenvectors) */
                    {
                        double AP[144], PA[144], e;
                        int r, c, k;
                        for (r = 0; r < n; r++)
                            for (c = 0; c < n; c++) {
                                double s1 = 0, s2 = 0;
                                for (k = 0; k < n; k++) { s1 += A[n * r + k] * P[n * k + c]; s2 += P[n * r + k] * A[n * k + c]; }
                                AP[n * r + c] = s1;
                                PA[n * r + c] = s2;
                            }
                        e = max_diff(n * n, AP, PA) / fmax(nrm * nrm, 1e-300);
                        CHECK(e <= 1e-12, "sym_project n=%d mode %d: does not commute with A (%.3g)", n, mode, e);
                    }
                    if (kind == 5 || ds[0] >= 0) { /* PSD input: unchanged */
                        double e = max_diff(n * n, P, A) / nrm;
                        worst_id = fmax(worst_id, e);
                        CHECK(e <= 1e-12, "sym_project n=%d: PSD input changed by %.3g", n, e);
                    }
                }
                memcpy(P, A, sizeof(double) * (size_t)(n * n));
                sym_project(n, P, SIPD_PROJECT_NONE);
                CHECK(max_diff(n * n, P, A) == 0, "sym_project NONE must not touch A");
            }

            /* 3x3 on sym3 */
            if (n == 3) {
                sym3 S, R;
                double Ra[9], evp[3], want[3], nrm = fmax(max_abs(3, 3, A), 1e-300);
                int mode;
                S.s[0] = A[0]; S.s[1] = A[4]; S.s[2] = A[8]; S.s[3] = A[1]; S.s[4] = A[2]; S.s[5] = A[5];
                for (mode = SIPD_PROJECT_CLAMP; mode <= SIPD_PROJECT_ABS; mode++) {
                    R = s3_project(S, mode);
                    sym3_arr(R, Ra);
                    eigvals(3, Ra, evp);
                    for (i = 0; i < 3; i++) want[i] = mode == SIPD_PROJECT_ABS ? fabs(d[i]) : fmax(d[i], 0);
                    sort_dbl(3, want);
                    CHECK(max_diff(3, evp, want) <= 1e-12 * nrm, "s3_project mode %d: spectrum error %.3g", mode,
                          max_diff(3, evp, want) / nrm);
                    if (ds[0] >= 0)
                        CHECK(max_diff(6, R.s, S.s) <= 1e-13 * nrm, "s3_project: PSD input changed");
                }
                {
                    vec3 e3;
                    mat3 V3;
                    double e3s[3];
                    s3_eig(S, &e3, &V3);
                    memcpy(e3s, e3.v, sizeof e3s);
                    sort_dbl(3, e3s);
                    CHECK(max_diff(3, e3s, ds) <= 1e-12 * nrm, "s3_eig eigenvalues");
                }
            }
        }
    }
    /* the zero matrix and a multiple of the identity */
    {
        double Z[144], ev[12], V[144], want[12];
        memset(Z, 0, sizeof Z);
        sym_eig(12, Z, ev, V);
        for (i = 0; i < 12; i++) CHECK(ev[i] == 0 && V[13 * i] == 1, "sym_eig of 0");
        for (i = 0; i < 144; i++) Z[i] = (i % 13 == 0) ? -4.0 : 0.0;
        for (i = 0; i < 12; i++) want[i] = -4;
        worst = fmax(worst, eig_case(12, Z, want));
        sym_project(12, Z, SIPD_PROJECT_CLAMP);
        CHECK(max_abs(12, 12, Z) == 0, "clamp of −4 I must be 0");
    }
    printf("eig: %d matrices (n = 1..12): worst relative reconstruction/orthonormality/eigenvalue error %.3g\n",
           ncase, worst);
    printf("eig: projection spectra worst %.3g, PSD input changed by at most %.3g (relative)\n", worst_proj,
           worst_id);
}

/* ================================================================ dP/dF */
/* P(F) of the material as a function of F's 9 entries (fd.h) */
static void P_of(const double *f, const void *mat, double *P)
{
    mat3 F, Pm;
    memcpy(F.m, f, sizeof F.m);
    Pm = material_P((const sipd_material *)mat, F);
    memcpy(P, Pm.m, sizeof Pm.m);
}
static void fd_dPdF(const sipd_material *mat, mat3 F, double H[81])
{
    fd_jacobian(9, 9, F.m, 1e-6 * sqrt(m3_frob2(F) / 3 + 1e-300), P_of, mat, H);
}

static void test_dpdf(void)
{
    double worst[K_NKINDS] = {0}, worst_sym = 0;
    int ninv = 0, it;
    rng_seed(22);
    for (it = 0; it < 20000; it++) {
        int kind = it % K_NKINDS, r, c;
        sipd_material mat = rnd_mat();
        mat3 F = rnd_F(kind);
        double H[81], Hf[81], e, s = 0, nrm;
        material_dPdF(&mat, F, H);
        fd_dPdF(&mat, F, Hf);
        nrm = max_abs(9, 9, H);
        e = max_diff(81, H, Hf) / nrm;
        worst[kind] = fmax(worst[kind], e);
        CHECK(e < 1e-6, "dPdF vs FD (%s, J=%.3g): relative error %.3g", kind_name[kind], m3_det(F), e);
        for (r = 0; r < 9; r++)
            for (c = 0; c < 9; c++) s = fmax(s, fabs(H[9 * r + c] - H[9 * c + r]));
        worst_sym = fmax(worst_sym, s / nrm);
        CHECK(s <= 1e-14 * nrm, "dPdF not symmetric: %.3g", s / nrm);
        ninv += m3_det(F) < 0;
    }
    printf("dpdf: 20000 F (%d inverted); worst relative error vs central differences:\n", ninv);
    for (it = 0; it < K_NKINDS; it++) printf("  %-14s %.3g\n", kind_name[it], worst[it]);
    printf("dpdf: worst asymmetry %.3g\n", worst_sym);
    CHECK(ninv > 3000, "too few inverted F (%d)", ninv);
}

/* ================================================================ per-vertex block */
static void test_vblock(void)
{
    double w_fd = 0, w_snh = 0, w_proj = 0;
    int it, ninv = 0;
    rng_seed(33);
    for (it = 0; it < 8000; it++) {
        int kind = it % K_NKINDS, a = it % 4, k, l;
        sipd_material mat = rnd_mat();
        rest_tet t = rnd_tet();
        vec3 y[4];
        mat3 F;
        sym3 B, Bs, Bp, Kp;
        double Ba[9], Bf[9], h, e, nrm;
        deform(&t, rnd_F(kind), y);
        F = tet_F(t.Bm, y[0], y[1], y[2], y[3]);
        ninv += m3_det(F) < 0;
        B = tet_vertex_block(&mat, t.Bm, t.vol, F, a, 0);
        sym3_arr(B, Ba);
        nrm = max_abs(3, 3, Ba);
        /* differences of the vertex gradient w.r.t. y_a */
        h = 1e-6 * (fabs(y[a].v[0]) + fabs(y[a].v[1]) + fabs(y[a].v[2]) + cbrt(t.vol));
        for (l = 0; l < 3; l++) {
            vec3 yp[4], ym[4], gp, gm;
            memcpy(yp, y, sizeof yp);
            memcpy(ym, y, sizeof ym);
            yp[a].v[l] += h;
            ym[a].v[l] -= h;
            gp = tet_vertex_gradient(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, yp[0], yp[1], yp[2], yp[3], a, &Kp);
            gm = tet_vertex_gradient(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, ym[0], ym[1], ym[2], ym[3], a, &Kp);
            for (k = 0; k < 3; k++) Bf[3 * k + l] = (gp.v[k] - gm.v[k]) / (2 * h);
        }
        e = max_diff(9, Ba, Bf) / nrm;
        w_fd = fmax(w_fd, e);
        CHECK(e < 1e-6, "vertex block vs FD (%s): %.3g", kind_name[kind], e);
        /* closed form */
        Bs = tet_vertex_block_snh(&mat, t.Bm, t.vol, F, a);
        e = 0;
        for (k = 0; k < 6; k++) e = fmax(e, fabs(Bs.s[k] - B.s[k]));
        e /= nrm;
        w_snh = fmax(w_snh, e);
        CHECK(e <= 1e-10, "vertex block: closed form differs by %.3g (%s)", e, kind_name[kind]);
        /* projected: PSD and equal to the block (which for stable NH is always PSD) */
        Bp = tet_vertex_block(&mat, t.Bm, t.vol, F, a, 1);
        {
            double Pa[9];
            sym3_arr(Bp, Pa);
            CHECK(min_eig(3, Pa) >= -1e-12 * nrm, "projected vertex block not PSD");
            if (min_eig(3, Ba) >= 0) {
                e = max_diff(9, Pa, Ba) / nrm;
                w_proj = fmax(w_proj, e);
                CHECK(e <= 1e-13, "projected vertex block differs from PSD block by %.3g", e);
            }
        }
    }
    /* the projection path itself on an indefinite block: a "material" with μ < 0 makes the
     * closed form μV|∇N|²I + λV ccᵀ indefinite; the projection must clamp exactly that */
    {
        int neg = 0;
        rng_seed(34);
        for (it = 0; it < 2000; it++) {
            sipd_material mat = rnd_mat();
            rest_tet t = rnd_tet();
            vec3 y[4];
            mat3 F;
            sym3 B, Bp;
            double Ba[9], Pa[9], ev[3], evp[3], nrm;
            int i, a = it % 4;
            mat.mu = -mat.mu * rndu(0.1, 10);
            deform(&t, rnd_F(it % K_NKINDS), y);
            F = tet_F(t.Bm, y[0], y[1], y[2], y[3]);
            B = tet_vertex_block(&mat, t.Bm, t.vol, F, a, 0);
            Bp = tet_vertex_block(&mat, t.Bm, t.vol, F, a, 1);
            sym3_arr(B, Ba);
            sym3_arr(Bp, Pa);
            nrm = max_abs(3, 3, Ba);
            eigvals(3, Ba, ev);
            neg += ev[0] < 0;
            for (i = 0; i < 3; i++) ev[i] = fmax(ev[i], 0);
            sort_dbl(3, ev);
            eigvals(3, Pa, evp);
            CHECK(max_diff(3, ev, evp) <= 1e-12 * nrm, "projected vertex block spectrum: %.3g", max_diff(3, ev, evp) / nrm);
        }
        CHECK(neg > 1000, "indefinite blocks expected (%d)", neg);
        printf("vblock: projection of %d indefinite blocks (μ < 0) clamps their spectrum\n", neg);
    }
    printf("vblock: 8000 blocks (%d inverted): vs FD %.3g, closed form vs generic %.3g, projected vs PSD %.3g\n",
           ninv, w_fd, w_snh, w_proj);
}

/* ================================================================ 12x12 element Hessian */
/* V Gᵀ D G through an explicit 9x12 G (independent of the library's contraction) */
static void assemble_GtDG(const double *Bm, double vol, const double D[81], double H[144])
{
    double G[108], DG[108];
    int a, k, j, r, c, m;
    memset(G, 0, sizeof G);
    for (a = 0; a < 4; a++) {
        vec3 g = tet_gradN(Bm, a);
        for (k = 0; k < 3; k++)
            for (j = 0; j < 3; j++) G[12 * (3 * k + j) + 3 * a + k] = g.v[j]; /* dF_kj / dy_{a,k} */
    }
    for (r = 0; r < 9; r++)
        for (c = 0; c < 12; c++) {
            double s = 0;
            for (m = 0; m < 9; m++) s += D[9 * r + m] * G[12 * m + c];
            DG[12 * r + c] = s;
        }
    for (r = 0; r < 12; r++)
        for (c = 0; c < 12; c++) {
            double s = 0;
            for (m = 0; m < 9; m++) s += G[12 * m + r] * DG[12 * m + c];
            H[12 * r + c] = vol * s;
        }
}

static void test_element(void)
{
    double w_fd = 0, w_blk = 0, w_psd = 0, w_null = 0, w_ref = 0;
    int it, ninv = 0, nindef = 0;
    rng_seed(44);
    for (it = 0; it < 3000; it++) {
        int kind = it % K_NKINDS, a, k, c, r, mode;
        sipd_material mat = rnd_mat();
        rest_tet t = rnd_tet();
        vec3 y[4];
        mat3 F;
        double H[144], Hf[144], h, e, nrm;
        sym3 Kp;
        deform(&t, rnd_F(kind), y);
        F = tet_F(t.Bm, y[0], y[1], y[2], y[3]);
        ninv += m3_det(F) < 0;
        tet_element_hessian(&mat, t.Bm, t.vol, F, 0, H);
        nrm = max_abs(12, 12, H);
        /* FD of the four vertex gradients */
        h = 1e-6 * cbrt(t.vol);
        for (k = 0; k < 4; k++) h = fmax(h, 1e-6 * (fabs(y[k].v[0]) + fabs(y[k].v[1]) + fabs(y[k].v[2])) / 3);
        for (c = 0; c < 12; c++) {
            vec3 yp[4], ym[4], gp[4], gm[4];
            memcpy(yp, y, sizeof yp);
            memcpy(ym, y, sizeof ym);
            yp[c / 3].v[c % 3] += h;
            ym[c / 3].v[c % 3] -= h;
            tet_element(&mat, SIPD_SPLIT_SIGN, t.Bm, t.vol, yp[0], yp[1], yp[2], yp[3], gp, &Kp);
            tet_element(&mat, SIPD_SPLIT_SIGN, t.Bm, t.vol, ym[0], ym[1], ym[2], ym[3], gm, &Kp);
            for (r = 0; r < 12; r++) Hf[12 * r + c] = (gp[r / 3].v[r % 3] - gm[r / 3].v[r % 3]) / (2 * h);
        }
        e = max_diff(144, H, Hf) / nrm;
        w_fd = fmax(w_fd, e);
        CHECK(e < 1e-6, "element Hessian vs FD (%s): %.3g", kind_name[kind], e);
        /* diagonal blocks == vertex blocks */
        for (a = 0; a < 4; a++) {
            double Ba[9];
            sym3_arr(tet_vertex_block(&mat, t.Bm, t.vol, F, a, 0), Ba);
            for (k = 0; k < 9; k++) {
                e = fabs(H[12 * (3 * a + k / 3) + 3 * a + k % 3] - Ba[k]) / nrm;
                w_blk = fmax(w_blk, e);
                CHECK(e <= 1e-12, "element diagonal block %d != vertex block (%.3g)", a, e);
            }
        }
        /* symmetric exactly; translations in the null space */
        for (r = 0; r < 12; r++)
            for (c = 0; c < 12; c++) CHECK(H[12 * r + c] == H[12 * c + r], "element Hessian not symmetric");
        for (k = 0; k < 3; k++) {
            double s;
            for (r = 0; r < 12; r++) {
                s = 0;
                for (a = 0; a < 4; a++) s += H[12 * r + 3 * a + k];
                w_null = fmax(w_null, fabs(s) / nrm);
                CHECK(fabs(s) <= 1e-12 * nrm, "translation not in the null space (%.3g)", s / nrm);
            }
        }
        if (min_eig(12, H) < -1e-8 * nrm)
            nindef++;
        /* projected: PSD, and equal to V Gᵀ proj(∂P/∂F) G assembled independently */
        for (mode = SIPD_PROJECT_CLAMP; mode <= SIPD_PROJECT_ABS; mode++) {
            double Hp[144], D[81], Dv[81], ev[9], Href[144], me, pn;
            int i, j, m;
            tet_element_hessian(&mat, t.Bm, t.vol, F, mode, Hp);
            pn = max_abs(12, 12, Hp);
            me = min_eig(12, Hp);
            w_psd = fmin(w_psd, me / pn);
            CHECK(me >= -1e-10 * pn, "projected element Hessian (mode %d, %s): min eig %.3g relative", mode,
                  kind_name[kind], me / pn);
            material_dPdF(&mat, F, D);
            sym_eig(9, D, ev, Dv);
            for (m = 0; m < 9; m++) ev[m] = mode == SIPD_PROJECT_ABS ? fabs(ev[m]) : fmax(ev[m], 0);
            for (i = 0; i < 9; i++)
                for (j = 0; j < 9; j++) {
                    double s = 0;
                    for (m = 0; m < 9; m++) s += Dv[9 * i + m] * ev[m] * Dv[9 * j + m];
                    D[9 * i + j] = s;
                }
            assemble_GtDG(t.Bm, t.vol, D, Href);
            e = max_diff(144, Hp, Href) / pn;
            w_ref = fmax(w_ref, e);
            CHECK(e <= 1e-11, "projected element Hessian vs reference (mode %d): %.3g", mode, e);
        }
        /* unprojected vs the independent assembly as well */
        {
            double D[81], Href[144];
            material_dPdF(&mat, F, D);
            assemble_GtDG(t.Bm, t.vol, D, Href);
            e = max_diff(144, H, Href) / nrm;
            w_ref = fmax(w_ref, e);
            CHECK(e <= 1e-12, "element Hessian vs explicit Gᵀ D G: %.3g", e);
        }
    }
    CHECK(nindef > 300, "expected indefinite element Hessians (got %d)", nindef);
    printf("element: 3000 tets (%d inverted, %d indefinite): vs FD %.3g, diag blocks %.3g, translation %.3g,\n"
           "         projected vs reference %.3g, projected min eig / norm %.3g\n",
           ninv, nindef, w_fd, w_blk, w_null, w_ref, w_psd);
}

/* ================================================================ clamp / abs splits */
static void test_split(void)
{
    int it, nindef = 0, npsd = 0, split;
    double w_psd = 0, w_spec = 0, w_comm = 0;
    rng_seed(55);
    for (it = 0; it < 40000; it++) {
        int kind = it % K_NKINDS, i;
        sipd_material mat = rnd_mat();
        mat3 F = rnd_F(kind), P0 = material_P(&mat, F);
        sym3 K = material_K(&mat, F);
        double Ka[9], evK[12], nrm;
        sym3_arr(K, Ka);
        nrm = max_abs(3, 3, Ka);
        eigvals(3, Ka, evK);
        if (evK[0] < 0)
            nindef++;
        else
            npsd++;
        for (split = SIPD_SPLIT_CLAMP; split <= SIPD_SPLIT_ABS; split++) {
            mat3 P;
            sym3 Kp;
            double Pa[9], ev[12], want[3], e;
            material_eval(&mat, split, F, &P, &Kp);
            CHECK(memcmp(P.m, P0.m, sizeof P.m) == 0, "material_eval P changed by split %d", split);
            sym3_arr(Kp, Pa);
            eigvals(3, Pa, ev);
            w_psd = fmin(w_psd, ev[0] / nrm);
            CHECK(ev[0] >= -1e-12 * nrm, "split %d: K⁺ not PSD (%.3g, %s)", split, ev[0] / nrm, kind_name[kind]);
            if (evK[0] >= 0) {
                CHECK(memcmp(Kp.s, K.s, sizeof K.s) == 0, "split %d: K⁺ != K for PSD K (%s)", split, kind_name[kind]);
                continue;
            }
            for (i = 0; i < 3; i++) want[i] = split == SIPD_SPLIT_ABS ? fabs(evK[i]) : fmax(evK[i], 0);
            sort_dbl(3, want);
            e = max_diff(3, ev, want) / nrm;
            w_spec = fmax(w_spec, e);
            CHECK(e <= 1e-12, "split %d: spectrum of K⁺ vs projected spectrum of K: %.3g (%s)", split, e,
                  kind_name[kind]);
            if (split == SIPD_SPLIT_CLAMP) { /* exactly the negative ones go to zero */
                int nneg = 0, nzero = 0;
                for (i = 0; i < 3; i++) {
                    nneg += evK[i] < -1e-9 * nrm;
                    nzero += fabs(ev[i]) <= 1e-12 * nrm;
                }
                CHECK(nzero >= nneg, "clamp: %d negative eigenvalues but %d zeros", nneg, nzero);
            }
            { /* same eigenvectors: K⁺ K == K K⁺ */
                mat3 A = s3_to_m3(K), B = s3_to_m3(Kp), AB = m3_mul(A, B), BA = m3_mul(B, A);
                double c = 0;
                for (i = 0; i < 9; i++) c = fmax(c, fabs(AB.m[i] - BA.m[i]));
                c /= nrm * nrm;
                w_comm = fmax(w_comm, c);
                CHECK(c <= 1e-12, "split %d: K⁺ does not commute with K (%.3g)", split, c);
            }
        }
    }
    /* a hand case: F = diag(0.5, 0.5, 0.5), ν = 0.45: K = μ + λ(J−α)/J · J²/J·... indefinite */
    {
        sipd_material mat = material_stable_neohookean(1e5, 0.45);
        mat3 F = m3_identity(), P;
        sym3 K, Kc, Ka;
        F.m[0] = F.m[4] = F.m[8] = 0.5;
        K = material_K(&mat, F);
        material_eval(&mat, SIPD_SPLIT_CLAMP, F, &P, &Kc);
        material_eval(&mat, SIPD_SPLIT_ABS, F, &P, &Ka);
        CHECK(K.s[0] < 0, "hand case should be indefinite (K = %.3g I)", K.s[0]);
        CHECK(fabs(Kc.s[0]) + fabs(Kc.s[1]) + fabs(Kc.s[2]) + fabs(Kc.s[3]) + fabs(Kc.s[4]) + fabs(Kc.s[5]) <=
                  1e-12 * fabs(K.s[0]),
              "clamp of a negative multiple of I must be 0");
        CHECK(fabs(Ka.s[0] + K.s[0]) <= 1e-12 * fabs(K.s[0]) && fabs(Ka.s[1] + K.s[1]) <= 1e-12 * fabs(K.s[0]) &&
                  fabs(Ka.s[2] + K.s[2]) <= 1e-12 * fabs(K.s[0]) && fabs(Ka.s[3]) <= 1e-12 * fabs(K.s[0]),
              "abs of a negative multiple of I must be its negation");
    }
    CHECK(nindef > 2000 && npsd > 2000, "need both PSD and indefinite K (%d / %d)", npsd, nindef);
    printf("split: 40000 F (%d with indefinite K, %d PSD): min eig K⁺ / |K| %.3g, spectrum error %.3g, "
           "commutator %.3g\n", nindef, npsd, w_psd, w_spec, w_comm);
}

/* ================================================================ main */
static const test_case cases[] = {
    {"eig", .run = test_eig},
    {"dpdf", .run = test_dpdf},
    {"vblock", .run = test_vblock},
    {"element", .run = test_element},
    {"split", .run = test_split},
};
static const test_program program = {"test_hessian", TEST_CASES(cases), .all = 1,
                                     .note = "(" SIPD_REAL_NAME " hessian)"};
TEST_MAIN(program)
