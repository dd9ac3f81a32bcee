/* test_materials.c — verification of the polar decomposition (src/physics/polar.h) and of the
 * material models of src/physics/material.h / hessian.h (DESIGN.md §3.10), double precision.
 *
 * One executable, one sub-test per argument (CTest registers each as materials_<name>):
 *   polar    polar_rotation / polar_decompose on random, near-singular, exactly singular (rank 2,
 *            rank 1, zero) and inverted F: RᵀR = I, det R = +1, RᵀF symmetric, the
 *            second-order condition of the maximum (s_i + s_j ≥ 0 for the eigenvalues of S),
 *            tr(RᵀF) ≥ tr(QᵀF) for random rotations Q and for small rotations Q of R, R equal to
 *            the R0 of a constructed F = R0 S0 (S0 with at most its smallest eigenvalue
 *            negative); polar_dR against central differences of polar_rotation, polar_dRdF against
 *            polar_dR, RᵀdR skew, finite output on the non-differentiable set (rank 1, zero)
 *   all      every one of the above
 * Each prints the measured quantities it asserts on, and exits non-zero on failure.
 */
#include "physics/common.h"
#include "physics/mat3.h"
#include "physics/eig.h"
#include "physics/polar.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_fail = 0;

#define CHECK(cond, ...)                                                                        \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            if (g_fail < 20) {                                                                   \
                fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
                fprintf(stderr, __VA_ARGS__);                                                    \
                fprintf(stderr, "\n");                                                           \
            }                                                                                    \
            g_fail++;                                                                            \
        }                                                                                        \
    } while (0)

/* ---------------------------------------------------------------- random numbers (splitmix64) */
static uint64_t g_state = 1;
static void seed(uint64_t s) { g_state = s; }
static uint64_t next_u64(void)
{
    uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double urand(void) { return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
static double uni(double a, double b) { return a + (b - a) * urand(); }
static double logu(double lo, double hi) { return exp(uni(log(lo), log(hi))); }
static int irand(int n) { return (int)(urand() * n); }

/* ---------------------------------------------------------------- small helpers */
static double maxabs(const double *a, int n)
{
    double m = 0;
    int i;
    for (i = 0; i < n; i++)
        if (fabs(a[i]) > m || a[i] != a[i])
            m = a[i] != a[i] ? INFINITY : fabs(a[i]);
    return m;
}
static mat3 m3_sub(mat3 a, mat3 b)
{
    int i;
    for (i = 0; i < 9; i++) a.m[i] -= b.m[i];
    return a;
}
static mat3 m3_scale(mat3 a, double s)
{
    int i;
    for (i = 0; i < 9; i++) a.m[i] *= s;
    return a;
}
static mat3 m3_add_scaled(mat3 a, double s, mat3 b)
{
    int i;
    for (i = 0; i < 9; i++) a.m[i] += s * b.m[i];
    return a;
}
static double m3_dot(mat3 a, mat3 b)
{
    double s = 0;
    int i;
    for (i = 0; i < 9; i++) s += a.m[i] * b.m[i];
    return s;
}
static mat3 m3_diag3(double a, double b, double c)
{
    mat3 r = m3_zero();
    r.m[0] = a;
    r.m[4] = b;
    r.m[8] = c;
    return r;
}
/* a uniformly distributed rotation (normalised Gaussian-ish quaternion by rejection) */
static mat3 rand_rot(void)
{
    double q[4], n2;
    do {
        int i;
        for (i = 0; i < 4; i++) q[i] = uni(-1, 1);
        n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    } while (n2 > 1 || n2 < 1e-4);
    return polar_quat_to_rot(q[0], q[1], q[2], q[3]);
}
/* exp([θ]×) by Rodrigues */
static mat3 rot_axis(vec3 w)
{
    double t = sqrt(v3_norm2(w)), c, s;
    mat3 K = m3_zero(), R = m3_identity();
    if (t == 0)
        return R;
    K.m[1] = -w.v[2] / t;
    K.m[2] = w.v[1] / t;
    K.m[3] = w.v[2] / t;
    K.m[5] = -w.v[0] / t;
    K.m[6] = -w.v[1] / t;
    K.m[7] = w.v[0] / t;
    c = cos(t);
    s = sin(t);
    R = m3_add_scaled(R, s, K);
    return m3_add_scaled(R, 1 - c, m3_mul(K, K));
}
static mat3 rand_mat(double a)
{
    mat3 F;
    int i;
    for (i = 0; i < 9; i++) F.m[i] = uni(-a, a);
    return F;
}

/* ================================================================ polar */
/* The classes of F the polar test draws (R0 is set when the exact answer is known). */
enum { PF_RANDOM, PF_NEAR_I, PF_KNOWN, PF_NEAR_SINGULAR, PF_RANK2, PF_RANK2_ROUND, PF_RANK1, PF_ZERO,
       PF_INVERTED, PF_INVERTED_STRONG, PF_INVERTED_ALL, PF_NCLASS };
static const char *pf_name[PF_NCLASS] = {"random", "near-identity", "R0*S0", "near-singular", "rank 2 (exact)",
                                         "rank 2 (round-off)", "rank 1", "zero", "inverted (R0 known)",
                                         "inverted (largest negative)", "inverted (all negative)"};

static mat3 polar_draw(int cls, int *known, mat3 *R0)
{
    mat3 Q = rand_rot(), P = rand_rot();
    double a = logu(0.2, 5), b = logu(0.2, 5), c = logu(0.2, 5), t;
    *known = 0;
    *R0 = m3_identity();
    if (b > a) { t = a; a = b; b = t; }
    if (c > b) { t = b; b = c; c = t; }
    if (b > a) { t = a; a = b; b = t; }   /* a ≥ b ≥ c > 0 */
    switch (cls) {
    case PF_RANDOM: return rand_mat(2);
    case PF_NEAR_I: {
        mat3 F = m3_identity();
        return m3_add_scaled(F, 1, rand_mat(0.3));
    }
    case PF_KNOWN:       /* F = R0 Q diag Qᵀ: the polar factor is R0 */
        *known = 1;
        *R0 = P;
        return m3_mul(P, m3_mul(Q, m3_mul(m3_diag3(a, b, c), m3_transpose(Q))));
    case PF_NEAR_SINGULAR:
        *known = 1;
        *R0 = P;
        return m3_mul(P, m3_mul(Q, m3_mul(m3_diag3(a, b, (irand(2) ? -1 : 1) * logu(1e-13, 1e-5) * b),
                                          m3_transpose(Q))));
    case PF_RANK2:       /* an exactly zero column: exactly singular */
        return m3_mul(Q, m3_diag3(a, b, 0));
    case PF_RANK2_ROUND: {   /* third column a combination of the first two */
        mat3 F = rand_mat(2);
        double s = uni(-1, 1), r = uni(-1, 1);
        int i;
        for (i = 0; i < 3; i++) F.m[3 * i + 2] = s * F.m[3 * i] + r * F.m[3 * i + 1];
        return m3_mul(F, P);
    }
    case PF_RANK1: {
        vec3 u = v3(uni(-1, 1), uni(-1, 1), uni(-1, 1)), v = v3(uni(-1, 1), uni(-1, 1), uni(-1, 1));
        mat3 F;
        int i, j;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++) F.m[3 * i + j] = u.v[i] * v.v[j];
        return F;
    }
    case PF_ZERO: return m3_zero();
    case PF_INVERTED:    /* S0 = Q diag(a, b, −c) Qᵀ, c < b: still the polar factor R0 */
        *known = 1;
        *R0 = P;
        return m3_mul(P, m3_mul(Q, m3_mul(m3_diag3(a, b, -c * uni(0.05, 0.95)), m3_transpose(Q))));
    case PF_INVERTED_STRONG:
        return m3_mul(P, m3_mul(Q, m3_mul(m3_diag3(c, b, -a * uni(1.05, 3)), m3_transpose(Q))));
    default:
        return m3_mul(P, m3_mul(Q, m3_mul(m3_diag3(-a, -b, -c), m3_transpose(Q))));
    }
}

static void test_polar(void)
{
    int cls, it, k;
    double w_orth = 0, w_det = 0, w_sym = 0, w_second = 0, w_near = 0, w_local = 0, w_known = 0, w_fd = 0,
           w_full = 0, w_skew = 0, w_inf = 0;
    int nfd = 0, nknown = 0;
    seed(13);
    for (cls = 0; cls < PF_NCLASS; cls++) {
        double c_orth = 0, c_sym = 0, c_fd = 0, c_known = 0;
        for (it = 0; it < (cls == PF_ZERO ? 1 : 2000); it++) {
            int known;
            mat3 R0, F = polar_draw(cls, &known, &R0), R, T, E;
            sym3 S;
            vec3 s;
            mat3 V;
            double nF = sqrt(m3_frob2(F)), scale = nF > 0 ? nF : 1, tr, e;
            polar_decompose(F, &R, &S);
            T = m3_mul(m3_transpose(R), F);
            E = m3_sub(m3_mul(m3_transpose(R), R), m3_identity());
            e = maxabs(E.m, 9);
            c_orth = fmax(c_orth, e);
            w_orth = fmax(w_orth, e);
            CHECK(e < 1e-14, "%s: |RᵀR − I| = %.3g", pf_name[cls], e);
            e = fabs(m3_det(R) - 1);
            w_det = fmax(w_det, e);
            CHECK(e < 1e-14, "%s: det R − 1 = %.3g", pf_name[cls], e);
            e = maxabs(m3_sub(T, m3_transpose(T)).m, 9) / scale;
            c_sym = fmax(c_sym, e);
            w_sym = fmax(w_sym, e);
            CHECK(e < 1e-13, "%s: |RᵀF − FᵀR| / |F| = %.3g", pf_name[cls], e);
            /* the maximum of tr(RᵀF) over SO(3): S symmetric with (tr S) I − S ⪰ 0 */
            s3_eig(S, &s, &V);
            for (k = 0; k < 3; k++) {
                e = -(s.v[0] + s.v[1] + s.v[2] - s.v[k]) / scale;
                w_second = fmax(w_second, e);
                CHECK(e < 1e-13, "%s: s_i + s_j = %.3g < 0 (not the maximum)", pf_name[cls], -e * scale);
            }
            if (cls == PF_KNOWN || cls == PF_NEAR_I)
                for (k = 0; k < 3; k++) CHECK(s.v[k] > 0, "%s: S not positive definite (%g)", pf_name[cls], s.v[k]);
            tr = m3_dot(R, F);
            for (k = 0; k < 20; k++) {
                mat3 Q = rand_rot();
                e = (m3_dot(Q, F) - tr) / scale;
                w_near = fmax(w_near, e);
                CHECK(e < 1e-13, "%s: a random rotation is nearer: %.3g", pf_name[cls], e);
                Q = m3_mul(R, rot_axis(v3(uni(-1e-3, 1e-3), uni(-1e-3, 1e-3), uni(-1e-3, 1e-3))));
                e = (m3_dot(Q, F) - tr) / scale;
                w_local = fmax(w_local, e);
                CHECK(e < 1e-13, "%s: a nearby rotation is nearer: %.3g", pf_name[cls], e);
            }
            if (known) {
                /* the error in R grows as 1/(s_j + s_k): scale the tolerance by it */
                double gap = fmin(fmin(s.v[0] + s.v[1], s.v[0] + s.v[2]), s.v[1] + s.v[2]);
                e = maxabs(m3_sub(R, R0).m, 9) * gap / scale;
                c_known = fmax(c_known, e);
                w_known = fmax(w_known, e);
                nknown++;
                CHECK(e < 1e-13, "%s: |R − R0| gap/|F| = %.3g", pf_name[cls], e);
            }
            /* derivative: skew RᵀdR always, finite always; central differences where R is smooth */
            {
                mat3 dF = rand_mat(1), dR = polar_dR(R, S, dF), Sk;
                double D[81], gap = 1e300;
                int kl, ij;
                for (k = 0; k < 3; k++) gap = fmin(gap, s.v[0] + s.v[1] + s.v[2] - s.v[k]);
                e = maxabs(dR.m, 9);
                if (!(e < INFINITY)) {
                    w_inf = INFINITY;
                    CHECK(0, "%s: dR not finite", pf_name[cls]);
                }
                Sk = m3_mul(m3_transpose(R), dR);
                e = maxabs(m3_add_scaled(Sk, 1, m3_transpose(Sk)).m, 9) / fmax(maxabs(dR.m, 9), 1e-300);
                w_skew = fmax(w_skew, e);
                CHECK(e < 1e-12, "%s: RᵀdR not skew: %.3g", pf_name[cls], e);
                polar_dRdF(R, S, D);
                e = 0;
                for (ij = 0; ij < 9; ij++) {
                    double sum = 0;
                    for (kl = 0; kl < 9; kl++) sum += D[9 * ij + kl] * dF.m[kl];
                    e = fmax(e, fabs(sum - dR.m[ij]));
                }
                e /= fmax(maxabs(dR.m, 9), 1e-300);
                w_full = fmax(w_full, e);
                CHECK(e < 1e-12, "%s: polar_dRdF·dF − polar_dR = %.3g", pf_name[cls], e);
                if (gap > 0.05 * scale) {
                    double h = 1e-6 * scale;
                    mat3 Rp = polar_rotation(m3_add_scaled(F, h, dF)), Rm = polar_rotation(m3_add_scaled(F, -h, dF));
                    mat3 fd = m3_scale(m3_sub(Rp, Rm), 0.5 / h);
                    e = maxabs(m3_sub(fd, dR).m, 9) / fmax(maxabs(dR.m, 9), 1e-3 / scale);
                    c_fd = fmax(c_fd, e);
                    w_fd = fmax(w_fd, e);
                    nfd++;
                    CHECK(e < 1e-6, "%s: dR vs differences: %.3g (gap %.3g, |F| %.3g)", pf_name[cls], e, gap, scale);
                }
            }
        }
        printf("polar %-28s |RᵀR−I| %.2g  asym %.2g  |R−R0|·gap %.2g  dR vs FD %.2g\n", pf_name[cls], c_orth,
               c_sym, c_known, c_fd);
    }
    CHECK(nfd > 10000 && nknown >= 6000, "too few differentiated (%d) or known (%d) cases", nfd, nknown);
    printf("polar: worst |RᵀR−I| %.3g, |det R−1| %.3g, |RᵀF−FᵀR|/|F| %.3g, min(s_i+s_j)/|F| %.3g, random Q "
           "gain %.3g, nearby Q gain %.3g, |R−R0|·gap/|F| %.3g (%d known), dR vs FD %.3g (%d), dRdF vs dR "
           "%.3g, RᵀdR asym %.3g, non-finite %g\n",
           w_orth, w_det, w_sym, -w_second, w_near, w_local, w_known, nknown, w_fd, nfd, w_full, w_skew, w_inf);
}

/* ================================================================ main */
typedef struct { const char *name; void (*fn)(void); } test_entry;
static const test_entry g_tests[] = {
    {"polar", test_polar},
};

int main(int argc, char **argv)
{
    size_t i, n = sizeof g_tests / sizeof g_tests[0];
    int ran = 0, k;
    if (argc < 2) {
        fprintf(stderr, "usage: %s all|polar\n", argv[0]);
        return 2;
    }
    for (k = 1; k < argc; k++)
        for (i = 0; i < n; i++)
            if (!strcmp(argv[k], "all") || !strcmp(argv[k], g_tests[i].name)) {
                g_tests[i].fn();
                ran++;
            }
    if (!ran) {
        fprintf(stderr, "unknown test '%s'\n", argv[1]);
        return 2;
    }
    if (g_fail) {
        fprintf(stderr, "%d check(s) failed\n", g_fail);
        return 1;
    }
    printf("OK (%s materials)\n", SIPD_REAL_NAME);
    return 0;
}
