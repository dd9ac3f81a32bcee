/* test_physics.c — verification of the shared physics headers (src/physics/ *.h),
 * docs/design.md §3.2–3.4, in double precision.
 *
 * One executable, one sub-test per argument (CTest registers each as physics_<name>):
 *   pairwise   V P ∇N_a == Σ_{b≠a} w_ab K (y_a − y_b);  K == P F⁻¹;  P F⁻¹ symmetric
 *   fd         P == central differences of Ψ;  tet gradient == differences of tet_energy
 *   rest       tet_rest, Σ_a grad_a = 0, Σ_a y_a × grad_a = 0, gradient 0 at (rigidly moved) rest
 *   lame       uniaxial stress at ε = 1e-6 gives E and ν
 *   kplus      K⁺ (expanded, sign) ⪰ μ I over ≥ 100k random F; s3_solve paths
 *   none       split "none": K⁺ == K, and it IS indefinite for some compressed F
 *   descent    Δy = −D⁻¹ g is a descent direction (gᵀΔy < 0 and dE/dt along Δy < 0)
 *   majorize   generalized eigenvalues of (H_aa, D_a) for the expanded split lie in (0, 1.5]
 *   inertia    inertia_gradient == differences of inertia_energy (dynamic and quasi-static)
 *   all        every one of the above
 * Each prints the measured quantities it asserts on, and exits non-zero on failure.
 */
#include "physics/common.h"
#include "physics/mat3.h"
#include "physics/material.h"
#include "physics/tet.h"
#include "physics/inertia.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "runner.h"

/* ---------------------------------------------------------------- random numbers */
/* rng_seed, rng_u64, rnd, rndu, rnd_log, rnd_int: the default stream of rng.h (tests/common) */
static vec3 rnd_vec(double s) { return v3(rndu(-s, s), rndu(-s, s), rndu(-s, s)); }
/* Random rotation from a random unit quaternion. */
static mat3 rnd_rot(void)
{
    double q[4], n = 0;
    int i;
    mat3 R;
    do {
        n = 0;
        for (i = 0; i < 4; i++) { q[i] = rndu(-1, 1); n += q[i] * q[i]; }
    } while (n < 0.01 || n > 1);
    n = sqrt(n);
    for (i = 0; i < 4; i++) q[i] /= n;
    {
        double w = q[0], x = q[1], y = q[2], z = q[3];
        R.m[0] = 1 - 2 * (y * y + z * z); R.m[1] = 2 * (x * y - w * z);     R.m[2] = 2 * (x * z + w * y);
        R.m[3] = 2 * (x * y + w * z);     R.m[4] = 1 - 2 * (x * x + z * z); R.m[5] = 2 * (y * z - w * x);
        R.m[6] = 2 * (x * z - w * y);     R.m[7] = 2 * (y * z + w * x);     R.m[8] = 1 - 2 * (x * x + y * y);
    }
    return R;
}
static mat3 diag3(double a, double b, double c)
{
    mat3 r = m3_zero();
    r.m[0] = a; r.m[4] = b; r.m[8] = c;
    return r;
}
/* U diag(s) Vᵀ with random rotations. */
static mat3 svd_compose(double s0, double s1, double s2)
{
    return m3_mul(m3_mul(rnd_rot(), diag3(s0, s1, s2)), m3_transpose(rnd_rot()));
}
static mat3 outer(vec3 a, vec3 b)
{
    mat3 r;
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) r.m[3 * i + j] = a.v[i] * b.v[j];
    return r;
}
static mat3 m3_addm(mat3 a, mat3 b) { int i; for (i = 0; i < 9; i++) a.m[i] += b.m[i]; return a; }
static mat3 m3_subm(mat3 a, mat3 b) { int i; for (i = 0; i < 9; i++) a.m[i] -= b.m[i]; return a; }
static double m3_norm(mat3 a) { return sqrt(m3_frob2(a)); }
static double s3_norm(sym3 a)
{
    return sqrt(a.s[0] * a.s[0] + a.s[1] * a.s[1] + a.s[2] * a.s[2] +
                2 * (a.s[3] * a.s[3] + a.s[4] * a.s[4] + a.s[5] * a.s[5]));
}
static double v3_len(vec3 a) { return sqrt(v3_norm2(a)); }

/* Random deformation gradients of several kinds (kind < 0: pick one at random). */
enum { F_NEAR_REST, F_GENERAL, F_INVERTED, F_NEAR_SINGULAR, F_RANK1, F_RANK2, F_HUGE, F_JRANGE,
       F_JRANGE_ANISO, F_COMPRESSED, F_NKINDS };
static const char *f_kind_name[F_NKINDS] = {"near-rest", "general", "inverted", "near-singular",
                                           "rank-1", "rank-2", "huge-stretch", "J-in-[-1e4,1e4]",
                                           "J-range-aniso", "compressed"};
static mat3 rnd_F(int kind)
{
    if (kind < 0) kind = rnd_int(F_NKINDS);
    switch (kind) {
    case F_NEAR_REST: {
        mat3 F = m3_identity();
        int i;
        for (i = 0; i < 9; i++) F.m[i] += rndu(-0.05, 0.05);
        return F;
    }
    case F_GENERAL: {
        mat3 F = m3_identity();
        int i;
        for (i = 0; i < 9; i++) F.m[i] += rndu(-1, 1);
        return F;
    }
    case F_INVERTED: /* a reflection of a moderate stretch: J < 0 */
        return svd_compose(rnd_log(0.2, 5), rnd_log(0.2, 5), -rnd_log(0.2, 5));
    case F_NEAR_SINGULAR: /* |J| ~ 1e-9, either sign */
        return svd_compose(rnd_log(0.3, 3), rnd_log(0.3, 3), (rnd() < 0.5 ? -1 : 1) * rnd_log(1e-10, 1e-8));
    case F_RANK1:
        return outer(rnd_vec(3), rnd_vec(3));
    case F_RANK2:
        return m3_addm(outer(rnd_vec(3), rnd_vec(3)), outer(rnd_vec(3), rnd_vec(3)));
    case F_HUGE: /* singular values spread over 1e-3 .. 1e3, random sign */
        return svd_compose(rnd_log(1e-3, 1e3), rnd_log(1e-3, 1e3), (rnd() < 0.5 ? -1 : 1) * rnd_log(1e-3, 1e3));
    case F_JRANGE: { /* J uniform in [-1e4, 1e4], singular values within 100x of |J|^(1/3) */
        double J = rndu(-1e4, 1e4), c, s0, s1;
        if (J == 0) J = 1;
        c = cbrt(fabs(J));
        s0 = c * rnd_log(0.1, 10);
        s1 = c * rnd_log(0.1, 10);
        return svd_compose(s0, s1, J / (s0 * s1));
    }
    case F_JRANGE_ANISO: { /* J uniform in [-1e4, 1e4], two singular values in [0.1, 10]: cond(F) up to 1e7 */
        double s0 = rnd_log(0.1, 10), s1 = rnd_log(0.1, 10), J = rndu(-1e4, 1e4);
        if (J == 0) J = 1;
        return svd_compose(s0, s1, J / (s0 * s1));
    }
    case F_COMPRESSED:
    default: /* 0 < J < 1 */
        return svd_compose(rnd_log(0.3, 1.2), rnd_log(0.3, 1.2), rnd_log(0.3, 1.0));
    }
}

/* cond(F) = |F| |F⁻¹| (Frobenius); inf when singular */
static double F_cond(mat3 F)
{
    mat3 Fi;
    if (!m3_inverse(F, &Fi)) return INFINITY;
    return m3_norm(F) * m3_norm(Fi);
}

/* ---------------------------------------------------------------- symmetric eigenvalues */
/* Cyclic Jacobi on a symmetric 3x3 (a is overwritten); eigenvalues ascending in ev. */
static void sym_eig3(double a[3][3], double ev[3])
{
    int sweep, p, q, k;
    for (sweep = 0; sweep < 60; sweep++) {
        double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if (off <= 1e-36 * diag || off == 0) break;
        for (p = 0; p < 2; p++)
            for (q = p + 1; q < 3; q++) {
                double apq = a[p][q], theta, t, c, s;
                if (apq == 0) continue;
                theta = (a[q][q] - a[p][p]) / (2 * apq);
                t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                c = 1 / sqrt(t * t + 1);
                s = t * c;
                for (k = 0; k < 3; k++) { /* A <- A J */
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (k = 0; k < 3; k++) { /* A <- Jᵀ A */
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                a[p][q] = a[q][p] = 0;
            }
    }
    ev[0] = a[0][0]; ev[1] = a[1][1]; ev[2] = a[2][2];
    for (p = 0; p < 2; p++)
        for (q = p + 1; q < 3; q++)
            if (ev[q] < ev[p]) { double t = ev[p]; ev[p] = ev[q]; ev[q] = t; }
}
static void s3_to_arr(sym3 s, double a[3][3])
{
    a[0][0] = s.s[0]; a[1][1] = s.s[1]; a[2][2] = s.s[2];
    a[0][1] = a[1][0] = s.s[3]; a[0][2] = a[2][0] = s.s[4]; a[1][2] = a[2][1] = s.s[5];
}
static double s3_min_eig(sym3 s)
{
    double a[3][3], ev[3];
    s3_to_arr(s, a);
    sym_eig3(a, ev);
    return ev[0];
}
static int s3_finite(sym3 s)
{
    int i;
    for (i = 0; i < 6; i++)
        if (!isfinite(s.s[i])) return 0;
    return 1;
}
/* Generalized eigenvalues of (H, D), D SPD: eig of L⁻¹ H L⁻ᵀ with D = L Lᵀ. Returns 0 if D is
 * not positive definite. */
static int gen_eig3(double H[3][3], double D[3][3], double ev[3])
{
    double L[3][3] = {{0}}, Li[3][3] = {{0}}, T[3][3], M[3][3];
    int i, j, k;
    for (j = 0; j < 3; j++) {
        double s = D[j][j];
        for (k = 0; k < j; k++) s -= L[j][k] * L[j][k];
        if (!(s > 0)) return 0;
        L[j][j] = sqrt(s);
        for (i = j + 1; i < 3; i++) {
            double t = D[i][j];
            for (k = 0; k < j; k++) t -= L[i][k] * L[j][k];
            L[i][j] = t / L[j][j];
        }
    }
    for (j = 0; j < 3; j++) { /* Li = L⁻¹ (lower triangular) */
        Li[j][j] = 1 / L[j][j];
        for (i = j + 1; i < 3; i++) {
            double t = 0;
            for (k = j; k < i; k++) t -= L[i][k] * Li[k][j];
            Li[i][j] = t / L[i][i];
        }
    }
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            T[i][j] = 0;
            for (k = 0; k < 3; k++) T[i][j] += Li[i][k] * H[k][j];
        }
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            M[i][j] = 0;
            for (k = 0; k < 3; k++) M[i][j] += T[i][k] * Li[j][k];
        }
    for (i = 0; i < 3; i++)
        for (j = 0; j < i; j++) M[i][j] = M[j][i] = 0.5 * (M[i][j] + M[j][i]);
    sym_eig3(M, ev);
    return 1;
}

/* ---------------------------------------------------------------- random tets */
typedef struct {
    vec3 x[4];   /* rest */
    double Bm[9];
    double vol;
} rest_tet;

/* Random rest tet; kind 0 = well-shaped (perturbed regular), 1 = sliver, 2 = needle,
 * 3 = cap / wedge.  Positively oriented, randomly placed, rotated and scaled. */
static rest_tet rnd_rest_tet(int kind)
{
    rest_tet t;
    vec3 p[4];
    mat3 R = rnd_rot();
    double s = rnd_log(0.01, 10);
    vec3 c = rnd_vec(5);
    int a;
    for (;;) {
        if (kind == 0) {
            p[0] = v3(1, 1, 1); p[1] = v3(1, -1, -1); p[2] = v3(-1, 1, -1); p[3] = v3(-1, -1, 1);
            for (a = 0; a < 4; a++) p[a] = v3_add(p[a], rnd_vec(0.25));
        } else if (kind == 1) { /* sliver: 4 points near a plane, height 1e-3 .. 1e-2 */
            double h = rnd_log(1e-3, 1e-2);
            p[0] = v3(1, 0, h); p[1] = v3(-1, 0, h); p[2] = v3(0, 1, -h); p[3] = v3(0, -1, -h);
            for (a = 0; a < 4; a++) p[a] = v3_add(p[a], v3(rndu(-0.05, 0.05), rndu(-0.05, 0.05), 0));
        } else if (kind == 2) { /* needle: one vertex far away */
            double L = rnd_log(10, 1000);
            p[0] = v3(0, 0, 0); p[1] = v3(1, 0, 0); p[2] = v3(0, 1, 0); p[3] = v3(rndu(-1, 1), rndu(-1, 1), L);
        } else { /* cap: apex close to the base triangle's plane, inside it */
            double h = rnd_log(1e-3, 1e-2);
            p[0] = v3(0, 0, 0); p[1] = v3(1, 0, 0); p[2] = v3(0, 1, 0); p[3] = v3(rndu(0.1, 0.4), rndu(0.1, 0.4), h);
        }
        {
            mat3 Dm = m3_from_cols(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]), v3_sub(p[3], p[0]));
            if (m3_det(Dm) < 0) { vec3 tmp = p[2]; p[2] = p[3]; p[3] = tmp; }
            if (fabs(m3_det(Dm)) > 1e-12) break;
        }
    }
    for (a = 0; a < 4; a++) t.x[a] = v3_add(c, v3_scale(m3_mulv(R, p[a]), s));
    t.vol = tet_rest(t.x[0], t.x[1], t.x[2], t.x[3], t.Bm);
    return t;
}

/* Random deformed positions: y = A x + c + noise; optionally inverted (reflect one vertex
 * through the plane of the other three). */
static void rnd_deform(const rest_tet *t, int invert, double noise, vec3 y[4])
{
    mat3 A = rnd_F(rnd() < 0.5 ? F_NEAR_REST : F_GENERAL);
    vec3 c = rnd_vec(3);
    double scale = pow(fabs(t->vol) * 6, 1.0 / 3.0);
    int a;
    for (a = 0; a < 4; a++) y[a] = v3_add(v3_add(m3_mulv(A, t->x[a]), c), rnd_vec(noise * scale));
    if (invert) {
        int k = rnd_int(4), i0 = (k + 1) % 4, i1 = (k + 2) % 4, i2 = (k + 3) % 4;
        vec3 n = v3_cross(v3_sub(y[i1], y[i0]), v3_sub(y[i2], y[i0]));
        double nn = v3_norm2(n);
        if (nn > 0) {
            double d = v3_dot(v3_sub(y[k], y[i0]), n) / nn;
            y[k] = v3_sub(y[k], v3_scale(n, 2 * d * rndu(0.6, 1.5)));
        }
    }
}

static mat3 bm_mat(const double *Bm) { mat3 r; memcpy(r.m, Bm, sizeof r.m); return r; }

static const double g_nus[4] = {0.3, 0.45, 0.49, 0.499};

/* ================================================================ 1. pairwise */
static void test_pairwise(void)
{
    int im, it, a, n_inv = 0, n_pos = 0, nK = 0, nK_inv = 0, n_strict = 0, n_cond = 0;
    double worst_strict = 0, worst_cond = 0, worst_norm = 0, worst_well = 0, worstK = 0, worstSym = 0;
    rng_seed(1001);
    for (im = 0; im < 4; im++) {
        sipd_material mat = material_stable_neohookean(rnd_log(1e3, 1e8), g_nus[im]);
        for (it = 0; it < 4000; it++) {
            int kind = it % 4;
            rest_tet t = rnd_rest_tet(kind);
            vec3 y[4], grad[4], pg, rg;
            sym3 Kp;
            mat3 F, Fi, Dm;
            double J, gnorm = 0, kappa, tol;
            rnd_deform(&t, it % 3 == 0, 0.3, y);
            F = tet_F(t.Bm, y[0], y[1], y[2], y[3]);
            J = m3_det(F);
            if (fabs(J) < 1e-3 || !m3_inverse(F, &Fi)) continue; /* material_K floors J² at 1e-8 */
            if (J < 0) n_inv++; else n_pos++;
            /* Both forms are exact; their round-off grows with the conditioning of F and of the
             * rest shape (a sliver's ∇N are large and nearly cancel): κ = κ(F) κ(Dm). */
            Dm = m3_from_cols(v3_sub(t.x[1], t.x[0]), v3_sub(t.x[2], t.x[0]), v3_sub(t.x[3], t.x[0]));
            kappa = m3_norm(F) * m3_norm(Fi) * m3_norm(Dm) * m3_norm(bm_mat(t.Bm));
            tol = fmax(1e-10, 64 * DBL_EPSILON * kappa);
            if (tol == 1e-10) n_strict++; else n_cond++;
            tet_element(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, y[0], y[1], y[2], y[3], grad, &Kp);
            for (a = 0; a < 4; a++) gnorm = fmax(gnorm, v3_len(grad[a]));
            CHECK(gnorm > 0, "zero gradient");
            for (a = 0; a < 4; a++) {
                double e;
                pg = tet_pairwise_gradient(&mat, t.Bm, t.vol, y, a);
                e = v3_len(v3_sub(pg, grad[a])) / gnorm;
                if (tol == 1e-10) worst_strict = fmax(worst_strict, e); else worst_cond = fmax(worst_cond, e);
                if (kind == 0) worst_well = fmax(worst_well, e);
                worst_norm = fmax(worst_norm, e / (DBL_EPSILON * kappa));
                CHECK(e < tol, "pairwise vs FEM gradient: rel err %.3e > tol %.3e (nu %.3f, kind %d, J %.3e, a %d)",
                      e, tol, g_nus[im], kind, J, a);
                /* the single-vertex entry point agrees with the element pass */
                rg = tet_vertex_gradient(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, y[0], y[1], y[2], y[3], a, &Kp);
                e = v3_len(v3_sub(rg, grad[a])) / gnorm;
                CHECK(e < 1e-12, "tet_vertex_gradient vs tet_element: rel err %.3e", e);
                {   /* the fused gradient + energy entry point used by Gauss–Seidel */
                    sipd_real ev;
                    vec3 rg2 = tet_vertex_eval(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, y[0], y[1], y[2], y[3], a,
                                               &Kp, &ev);
                    double et = tet_energy(&mat, t.Bm, t.vol, y[0], y[1], y[2], y[3]);
                    CHECK(v3_len(v3_sub(rg2, rg)) == 0, "tet_vertex_eval gradient differs from tet_vertex_gradient");
                    CHECK(fabs(ev - et) <= 1e-14 * fabs(et), "tet_vertex_eval energy %.17g vs tet_energy %.17g", ev, et);
                }
            }
        }
    /* K = P F⁻¹ and P F⁻¹ symmetric, over random non-singular F */
        for (it = 0; it < 20000; it++) {
            int kind = it % 4 == 0 ? F_INVERTED : it % 4 == 1 ? F_GENERAL : it % 4 == 2 ? F_COMPRESSED : F_JRANGE;
            mat3 F = rnd_F(kind), Fi, P, PFi, Km;
            double J = m3_det(F), e, es, nrm;
            if (fabs(J) < 1e-3 || !m3_inverse(F, &Fi)) continue;
            nK++;
            if (J < 0) nK_inv++;
            P = material_P(&mat, F);
            PFi = m3_mul(P, Fi);
            Km = s3_to_m3(material_K(&mat, F));
            nrm = m3_norm(PFi);
            e = m3_norm(m3_subm(Km, PFi)) / nrm;
            es = m3_norm(m3_subm(PFi, m3_transpose(PFi))) / nrm;
            worstK = fmax(worstK, e);
            worstSym = fmax(worstSym, es);
            CHECK(e < 1e-10, "material_K vs P F^-1: rel err %.3e (J %.3e, nu %.3f)", e, J, g_nus[im]);
            CHECK(es < 1e-10, "P F^-1 not symmetric: rel asym %.3e (J %.3e)", es, J);
        }
    }
    CHECK(n_inv > 1000 && n_pos > 1000, "too few cases: %d inverted, %d positive", n_inv, n_pos);
    CHECK(n_strict > 5000, "too few cases under the strict 1e-10 tolerance: %d", n_strict);
    CHECK(nK > 50000 && nK_inv > 10000, "too few K cases: %d (%d inverted)", nK, nK_inv);
    printf("pairwise: %d tets (%d inverted), 4 materials; worst |pairwise - FEM| / max|grad|:\n", n_inv + n_pos, n_inv);
    printf("pairwise:   well-shaped rest tets        %.3e\n", worst_well);
    printf("pairwise:   kappa(F)kappa(Dm) <= 2.9e5    %.3e  (%d tets, tol 1e-10)\n", worst_strict, n_strict);
    printf("pairwise:   ill-conditioned (skinny/J~0) %.3e  (%d tets, tol 64 eps kappa); max err/(eps kappa) = %.2f\n",
           worst_cond, n_cond, worst_norm);
    printf("pairwise: %d F (%d inverted), worst |K - P F^-1|/|K| = %.3e, worst asym(P F^-1) = %.3e\n", nK,
           nK_inv, worstK, worstSym);
}

/* ================================================================ 2. finite differences */
static mat3 fd_P(const sipd_material *mat, mat3 F)
{
    mat3 G;
    double sc = 0;
    int i;
    for (i = 0; i < 9; i++) sc = fmax(sc, fabs(F.m[i]));
    for (i = 0; i < 9; i++) {
        /* Ψ is quadratic in each single entry of F (J is linear in each entry), so the central
         * difference is exact up to round-off: a large step keeps that small (J of a strongly
         * anisotropic F carries a round-off of ~eps |F|³, which a small step would amplify). */
        double h = 0.05 * fmax(sc, 1e-3);
        mat3 Fp = F, Fm = F;
        Fp.m[i] += h;
        Fm.m[i] -= h;
        G.m[i] = (material_psi(mat, Fp) - material_psi(mat, Fm)) / (2 * h);
    }
    return G;
}
static void test_fd(void)
{
    int im, it, kind, a, i, nel = 0;
    double worst[F_NKINDS] = {0}, worst_el = 0, worst_aniso = 0;
    int count[F_NKINDS] = {0};
    rng_seed(2002);
    for (im = 0; im < 4; im++) {
        sipd_material mat = material_stable_neohookean(rnd_log(1e3, 1e8), g_nus[im]);
        for (it = 0; it < 5000; it++) {
            for (kind = 0; kind < F_NKINDS; kind++) {
                mat3 F = rnd_F(kind), P = material_P(&mat, F), G = fd_P(&mat, F), P2;
                sym3 Kp;
                double e = m3_norm(m3_subm(G, P)) / (m3_norm(P) + mat.mu), tol = 1e-6;
                if (kind == F_JRANGE_ANISO) {
                    /* cond(F) up to 1e7: J = det F itself carries a relative round-off of about
                     * eps cond(F)², which P and Ψ(F ± h) see differently */
                    double k = F_cond(F);
                    tol = fmax(1e-6, 1e-14 * k * k);
                    worst_aniso = fmax(worst_aniso, e / (DBL_EPSILON * k * k));
                }
                count[kind]++;
                worst[kind] = fmax(worst[kind], e);
                CHECK(e < tol, "P vs FD(psi): rel err %.3e (kind %s, J %.3e, nu %.3f)", e, f_kind_name[kind],
                      m3_det(F), g_nus[im]);
                /* material_eval's P is the same P (every split) */
                for (i = 0; i < 3; i++) {
                    material_eval(&mat, i, F, &P2, &Kp);
                    CHECK(m3_norm(m3_subm(P2, P)) <= 1e-14 * (m3_norm(P) + mat.mu),
                          "material_eval P != material_P (split %d)", i);
                }
            }
        }
        /* element level: tet_element's gradient vs differences of tet_energy */
        for (it = 0; it < 2000; it++) {
            rest_tet t = rnd_rest_tet(it % 4);
            vec3 y[4], grad[4];
            sym3 Kp;
            double gnorm = 0, sc = 0, e = 0;
            rnd_deform(&t, it % 3 == 0, 0.3, y);
            tet_element(&mat, SIPD_SPLIT_SIGN, t.Bm, t.vol, y[0], y[1], y[2], y[3], grad, &Kp);
            for (a = 0; a < 4; a++) {
                gnorm = fmax(gnorm, v3_len(grad[a]));
                for (i = 0; i < 3; i++) sc = fmax(sc, fabs(y[a].v[i]));
            }
            for (a = 0; a < 4; a++)
                for (i = 0; i < 3; i++) {
                    /* V Ψ(F(y)) is quadratic in a single coordinate of y too: exact differences */
                    double h = 1e-4 * sc, Ep, Em;
                    vec3 yp[4], ym[4];
                    memcpy(yp, y, sizeof yp);
                    memcpy(ym, y, sizeof ym);
                    yp[a].v[i] += h;
                    ym[a].v[i] -= h;
                    Ep = tet_energy(&mat, t.Bm, t.vol, yp[0], yp[1], yp[2], yp[3]);
                    Em = tet_energy(&mat, t.Bm, t.vol, ym[0], ym[1], ym[2], ym[3]);
                    e = fmax(e, fabs((Ep - Em) / (2 * h) - grad[a].v[i]) / (gnorm + mat.mu * fabs(t.vol) / sc));
                }
            nel++;
            worst_el = fmax(worst_el, e);
            CHECK(e < 1e-6, "tet gradient vs FD(tet_energy): rel err %.3e (kind %d)", e, it % 4);
        }
    }
    for (kind = 0; kind < F_NKINDS; kind++)
        printf("fd: P vs FD(psi), %-16s n=%6d worst rel err %.3e\n", f_kind_name[kind], count[kind], worst[kind]);
    printf("fd: (%s: tolerance max(1e-6, 1e-14 cond(F)^2); worst err/(eps cond^2) = %.3e)\n",
           f_kind_name[F_JRANGE_ANISO], worst_aniso);
    printf("fd: element gradient vs FD(tet_energy), n=%d, worst rel err %.3e\n", nel, worst_el);
}

/* ================================================================ 3. rest / invariances */
static void test_rest(void)
{
    int im, it, a, i;
    double worst_sum = 0, worst_torque = 0, worst_rest = 0, worst_P = 0, worst_B = 0;
    rng_seed(3003);
    for (im = 0; im < 4; im++) {
        sipd_material mat = material_stable_neohookean(rnd_log(1e3, 1e8), g_nus[im]);
        /* P(I) = 0: rest-stable thanks to α = 1 + μ/λ */
        {
            mat3 P = material_P(&mat, m3_identity());
            double e = m3_norm(P) / (mat.mu + mat.lambda);
            worst_P = fmax(worst_P, e);
            CHECK(e < 1e-14, "P(I) != 0: |P(I)|/(mu+lambda) = %.3e (nu %.3f)", e, g_nus[im]);
            CHECK(fabs(mat.alpha - (1 + mat.mu / mat.lambda)) < 1e-15, "alpha != 1 + mu/lambda");
        }
        for (it = 0; it < 4000; it++) {
            rest_tet t = rnd_rest_tet(it % 4);
            vec3 y[4], grad[4], sum = v3(0, 0, 0), torque = v3(0, 0, 0), yr[4], c;
            sym3 Kp;
            mat3 Dm, R, F;
            double gnorm = 0, L = 0, e, Erest, Erot;
            /* tet_rest: signed volume and Bm = Dm⁻¹ */
            Dm = m3_from_cols(v3_sub(t.x[1], t.x[0]), v3_sub(t.x[2], t.x[0]), v3_sub(t.x[3], t.x[0]));
            CHECK(fabs(t.vol - m3_det(Dm) / 6) <= 1e-12 * fabs(t.vol), "tet_rest volume");
            {
                double B[9];
                vec3 xs[4] = {t.x[0], t.x[2], t.x[1], t.x[3]};
                CHECK(tet_rest(xs[0], xs[1], xs[2], xs[3], B) < 0, "tet_rest: swapped vertices must give V < 0");
            }
            e = m3_norm(m3_subm(m3_mul(Dm, bm_mat(t.Bm)), m3_identity()));
            worst_B = fmax(worst_B, e);
            CHECK(e < 1e-8, "Dm Bm != I: %.3e", e);
            /* gradient sums to zero and has no torque (translation and rotation invariance) */
            rnd_deform(&t, it % 3 == 0, 0.3, y);
            for (a = 0; a < 4; a++) {
                grad[a] = tet_vertex_gradient(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, y[0], y[1], y[2], y[3], a, &Kp);
                gnorm = fmax(gnorm, v3_len(grad[a]));
                L = fmax(L, v3_len(y[a]));
                sum = v3_add(sum, grad[a]);
            }
            for (a = 0; a < 4; a++) torque = v3_add(torque, v3_cross(v3_sub(y[a], y[0]), grad[a]));
            e = v3_len(sum) / gnorm;
            worst_sum = fmax(worst_sum, e);
            CHECK(e < 1e-10, "sum of vertex gradients: rel %.3e", e);
            e = v3_len(torque) / (gnorm * L);
            worst_torque = fmax(worst_torque, e);
            CHECK(e < 1e-9, "torque of vertex gradients: rel %.3e (kind %d)", e, it % 4);
            /* at rest, and at a rigid motion of rest: F = R, gradient 0, energy unchanged */
            R = rnd_rot();
            c = rnd_vec(10);
            for (a = 0; a < 4; a++) yr[a] = v3_add(m3_mulv(R, t.x[a]), c);
            F = tet_F(t.Bm, t.x[0], t.x[1], t.x[2], t.x[3]);
            CHECK(m3_norm(m3_subm(F, m3_identity())) < 1e-8, "F(rest) != I: %.3e",
                  m3_norm(m3_subm(F, m3_identity())));
            for (i = 0; i < 2; i++) {
                const vec3 *yy = i == 0 ? t.x : yr;
                double sc = 0, scale = (mat.mu + mat.lambda) * fabs(t.vol);
                tet_element(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, yy[0], yy[1], yy[2], yy[3], grad, &Kp);
                for (a = 0; a < 4; a++) sc = fmax(sc, v3_len(tet_gradN(t.Bm, a)));
                for (a = 0; a < 4; a++) {
                    e = v3_len(grad[a]) / (scale * sc);
                    worst_rest = fmax(worst_rest, e);
                    CHECK(e < 1e-9, "gradient at %s != 0: rel %.3e (kind %d)", i ? "rotated rest" : "rest", e, it % 4);
                }
            }
            Erest = tet_energy(&mat, t.Bm, t.vol, t.x[0], t.x[1], t.x[2], t.x[3]);
            Erot = tet_energy(&mat, t.Bm, t.vol, yr[0], yr[1], yr[2], yr[3]);
            CHECK(fabs(Erot - Erest) <= 1e-9 * (mat.mu + mat.lambda) * fabs(t.vol),
                  "energy not rotation invariant: %.6e vs %.6e", Erot, Erest);
            /* rest is a minimum: a small random deformation increases the energy */
            {
                vec3 yp[4];
                for (a = 0; a < 4; a++) yp[a] = v3_add(t.x[a], rnd_vec(1e-3 * pow(fabs(t.vol), 1.0 / 3)));
                CHECK(tet_energy(&mat, t.Bm, t.vol, yp[0], yp[1], yp[2], yp[3]) >= Erest - 1e-12 * fabs(Erest),
                      "energy below rest energy near rest");
            }
        }
    }
    printf("rest: worst |P(I)|/(mu+lambda) = %.3e, |Dm Bm - I| = %.3e\n", worst_P, worst_B);
    printf("rest: worst |sum grad|/max|grad| = %.3e, |torque|/(|grad| L) = %.3e, |grad at rest| rel = %.3e\n",
           worst_sum, worst_torque, worst_rest);
}

/* ================================================================ 4. Lamé mapping */
static double lateral_P(const sipd_material *mat, double eps, double d)
{
    return material_P(mat, diag3(1 + eps, 1 + d, 1 + d)).m[4];
}
static void test_lame(void)
{
    static const double Es[3] = {1.0, 1e6, 3e9};
    static const double nus[7] = {-0.3, 0.0, 0.25, 0.3, 0.45, 0.49, 0.499};
    int ie, in, k;
    double worst_E = 0, worst_nu = 0;
    for (ie = 0; ie < 3; ie++)
        for (in = 0; in < 7; in++) {
            double E = Es[ie], nu = nus[in], eps = 1e-6, lo = -eps, hi = eps, d, Pl, Pz, eE, enu, Ps;
            sipd_material mat = material_stable_neohookean(E, nu);
            /* lateral stresses vanish: bisection on the (monotone) lateral stress */
            CHECK(lateral_P(&mat, eps, lo) < 0 && lateral_P(&mat, eps, hi) > 0, "lateral bracket (E %g nu %g)", E, nu);
            for (k = 0; k < 200 && hi - lo > 1e-15 * eps; k++) {
                double mid = 0.5 * (lo + hi);
                if (lateral_P(&mat, eps, mid) < 0) lo = mid; else hi = mid;
            }
            d = 0.5 * (lo + hi);
            {
                mat3 F = diag3(1 + eps, 1 + d, 1 + d), P = material_P(&mat, F);
                Ps = P.m[0];
                Pl = P.m[4];
                Pz = P.m[8];
                CHECK(fabs(P.m[1]) + fabs(P.m[2]) + fabs(P.m[3]) + fabs(P.m[5]) + fabs(P.m[6]) + fabs(P.m[7]) == 0,
                      "shear stress under diagonal F");
            }
            CHECK(fabs(Pl) < 1e-6 * fabs(Ps) && fabs(Pz) < 1e-6 * fabs(Ps), "lateral stress not zero: %g %g vs %g",
                  Pl, Pz, Ps);
            eE = fabs(Ps / eps / E - 1);
            enu = fabs(-d / eps - nu) / fmax(fabs(nu), 0.1); /* ν = 0: absolute (O(ε) geometric term) */
            worst_E = fmax(worst_E, eE);
            worst_nu = fmax(worst_nu, enu);
            CHECK(eE < 1e-4, "uniaxial stress/strain = %.9g, E = %g (nu %g): rel err %.3e", Ps / eps, E, nu, eE);
            CHECK(enu < 1e-4, "lateral contraction ratio = %.9g, nu = %g: err %.3e", -d / eps, nu, enu);
            /* constructor fields: μ = μ_L, λ = λ_L + μ_L, α = 1 + μ/λ */
            {
                double mu_l = E / (2 * (1 + nu)), la_l = E * nu / ((1 + nu) * (1 - 2 * nu));
                CHECK(fabs(mat.mu - mu_l) <= 1e-14 * mu_l, "mu");
                CHECK(fabs(mat.lambda - (la_l + mu_l)) <= 1e-14 * (la_l + mu_l), "lambda");
                CHECK(mat.model == SIPD_MAT_STABLE_NEOHOOKEAN, "model");
            }
            /* pure shear: stress/strain = 2μ for F = I + γ (e0 e1ᵀ + e1 e0ᵀ)/2 ... engineering
             * shear γ gives P01 ≈ μγ */
            {
                mat3 F = m3_identity(), P;
                double g = 1e-6;
                F.m[1] = g;
                P = material_P(&mat, F);
                CHECK(fabs(P.m[1] / g / (E / (2 * (1 + nu))) - 1) < 1e-4, "shear modulus: %.9g vs %.9g", P.m[1] / g,
                      E / (2 * (1 + nu)));
            }
        }
    printf("lame: 21 (E, nu) pairs, eps = 1e-6: worst |sigma/eps/E - 1| = %.3e, worst |nu_meas - nu|/nu = %.3e\n",
           worst_E, worst_nu);
}

/* ================================================================ 5. K⁺ PSD, s3_solve */
static void test_kplus(void)
{
    static const int splits[2] = {SIPD_SPLIT_EXPANDED, SIPD_SPLIT_SIGN};
    int is, im, it, n = 0, n_inv = 0, n_roundoff = 0, n_solve = 0, n_def = 0;
    double min_ratio[2] = {1e300, 1e300}, worst_res = 0;
    int count_kind[F_NKINDS] = {0};
    rng_seed(5005);
    for (is = 0; is < 2; is++)
        for (im = 0; im < 4; im++) {
            sipd_material mat = material_stable_neohookean(rnd_log(1e3, 1e8), g_nus[im]);
            for (it = 0; it < 15000; it++) {
                int kind = it % F_NKINDS;
                mat3 F = rnd_F(kind), P;
                sym3 Kp;
                double lmin, tol, nrm;
                material_eval(&mat, splits[is], F, &P, &Kp);
                n++;
                count_kind[kind]++;
                if (m3_det(F) < 0) n_inv++;
                CHECK(s3_finite(Kp), "K+ not finite (split %d, kind %s)", splits[is], f_kind_name[kind]);
                nrm = s3_norm(Kp);
                lmin = s3_min_eig(Kp);
                /* μ(1 − 1e-9), less the round-off of forming/diagonalising a matrix of norm |K⁺|
                 * (μ I + λ cof cofᵀ with |cof|² ≫ μ/λ cannot carry μ to more digits than that) */
                tol = 1e-9 * mat.mu + 32 * DBL_EPSILON * nrm;
                if (lmin < mat.mu * (1 - 1e-9)) n_roundoff++;
                min_ratio[is] = fmin(min_ratio[is], lmin / mat.mu);
                CHECK(lmin >= mat.mu - tol, "min eig K+ = %.6e < mu = %.6e (split %d, kind %s, J %.3e, |K+| %.3e)",
                      lmin, mat.mu, splits[is], f_kind_name[kind], m3_det(F), nrm);
                /* what each split is (docs/design.md §3.4), checked against K = P F⁻¹ where F is invertible:
                 *   expanded: K⁺ − K = λα/J cof cofᵀ;   sign: K⁺ = K if λ(J−α)J ≥ 0, else μI */
                {
                    double J = m3_det(F);
                    mat3 Fi, Kt, Kd;
                    if (fabs(J) > 1e-2 && F_cond(F) < 1e4 && m3_inverse(F, &Fi)) {
                        Kt = m3_mul(P, Fi);
                        if (splits[is] == SIPD_SPLIT_EXPANDED)
                            Kd = m3_addm(Kt, s3_to_m3(s3_axpy(mat.lambda * mat.alpha / J, s3_aat(m3_cof(F)), s3_zero())));
                        else if (mat.lambda * (J - mat.alpha) * J >= 0)
                            Kd = Kt;
                        else
                            Kd = s3_to_m3(s3_diag(mat.mu));
                        CHECK(m3_norm(m3_subm(s3_to_m3(Kp), Kd)) <= 1e-10 * (m3_norm(Kd) + m3_norm(Kt)),
                              "split %d: K+ is not the documented split of K (J %.3e): |diff| %.3e", splits[is], J,
                              m3_norm(m3_subm(s3_to_m3(Kp), Kd)) / m3_norm(Kd));
                        n_def++;
                    }
                }
                /* the SIPD block D = m/h² I + Σ V|∇N|² K⁺ (several elements) solves: A x = b */
                if (it % 10 == 0) {
                    double m_h2 = rnd() < 0.2 ? 0.0 : rnd_log(1e-3, 1e3) * mat.mu;
                    sym3 D = s3_diag(m_h2);
                    vec3 b = rnd_vec(1), x, r;
                    int e, ne = 1 + rnd_int(6), ok;
                    for (e = 0; e < ne; e++) {
                        mat3 Fe = e == 0 ? F : rnd_F(-1), Pe;
                        sym3 Ke;
                        material_eval(&mat, splits[is], Fe, &Pe, &Ke);
                        D = s3_axpy(rnd_log(1e-3, 1e3), Ke, D);
                    }
                    ok = s3_solve(D, b, &x);
                    CHECK(ok, "s3_solve failed on an SPD SIPD block");
                    r = v3_sub(s3_mulv(D, x), b);
                    {
                        double res = v3_len(r) / (s3_norm(D) * v3_len(x) + v3_len(b));
                        worst_res = fmax(worst_res, res);
                        CHECK(res < 1e-13, "s3_solve backward error %.3e", res);
                    }
                    n_solve++;
                }
            }
        }
    CHECK(n >= 100000, "only %d F", n);
    CHECK(n_def > 30000, "only %d split-definition checks", n_def);
    CHECK(n_inv > n / 5, "only %d inverted of %d", n_inv, n);
    /* s3_solve on an indefinite but invertible symmetric matrix (Cholesky fails: fallback path) */
    {
        int k, fails = 0;
        double worst_ind = 0;
        for (k = 0; k < 2000; k++) {
            mat3 R = rnd_rot(), A;
            double ev[3] = {rnd_log(0.1, 10), -rnd_log(0.1, 10), (rnd() < 0.5 ? -1 : 1) * rnd_log(0.1, 10)};
            sym3 S;
            vec3 b = rnd_vec(1), x, r;
            A = m3_mul(m3_mul(R, diag3(ev[0], ev[1], ev[2])), m3_transpose(R));
            S.s[0] = A.m[0]; S.s[1] = A.m[4]; S.s[2] = A.m[8];
            S.s[3] = 0.5 * (A.m[1] + A.m[3]); S.s[4] = 0.5 * (A.m[2] + A.m[6]); S.s[5] = 0.5 * (A.m[5] + A.m[7]);
            if (!s3_solve(S, b, &x)) { fails++; continue; }
            r = v3_sub(s3_mulv(S, x), b);
            worst_ind = fmax(worst_ind, v3_len(r) / v3_len(b));
        }
        CHECK(fails == 0, "s3_solve reported %d indefinite invertible matrices singular", fails);
        CHECK(worst_ind < 1e-10, "s3_solve indefinite: residual %.3e", worst_ind);
        /* leading entry negative and zero (Cholesky fails at the first pivot) */
        {
            sym3 S;
            vec3 x, r;
            S.s[0] = -2; S.s[1] = 3; S.s[2] = 1; S.s[3] = 1; S.s[4] = 0.5; S.s[5] = -1;
            CHECK(s3_solve(S, v3(1, 2, 3), &x) == 1, "indefinite solve");
            r = v3_sub(s3_mulv(S, x), v3(1, 2, 3));
            CHECK(v3_len(r) < 1e-13, "indefinite solve residual %.3e", v3_len(r));
            S.s[0] = 0; S.s[1] = 0; S.s[2] = 1; S.s[3] = 1; S.s[4] = 0; S.s[5] = 0; /* [[0,1,0],[1,0,0],[0,0,1]] */
            CHECK(s3_solve(S, v3(1, 2, 3), &x) == 1, "zero-pivot solve");
            CHECK(fabs(x.v[0] - 2) + fabs(x.v[1] - 1) + fabs(x.v[2] - 3) < 1e-15, "zero-pivot solve x = %g %g %g",
                  x.v[0], x.v[1], x.v[2]);
        }
        /* singular symmetric matrices: return 0 and x = 0 */
        {
            sym3 S;
            vec3 x;
            S = s3_outer(v3(1, 2, 3)); /* rank 1 PSD */
            x = v3(7, 7, 7);
            CHECK(s3_solve(S, v3(1, 0, 0), &x) == 0, "rank-1 matrix not reported singular");
            CHECK(x.v[0] == 0 && x.v[1] == 0 && x.v[2] == 0, "x not zeroed for singular matrix");
            S = s3_add(s3_outer(v3(1, 0, 1)), s3_outer(v3(0, 1, -1))); /* rank 2 PSD */
            x = v3(7, 7, 7);
            CHECK(s3_solve(S, v3(1, 2, 3), &x) == 0, "rank-2 PSD matrix not reported singular");
            CHECK(x.v[0] == 0 && x.v[1] == 0 && x.v[2] == 0, "x not zeroed for singular matrix");
            S.s[0] = 1; S.s[1] = -1; S.s[2] = 0; S.s[3] = 0; S.s[4] = 0; S.s[5] = 0; /* indefinite, singular */
            CHECK(s3_solve(S, v3(1, 2, 3), &x) == 0, "indefinite singular matrix not reported singular");
            CHECK(s3_solve(s3_zero(), v3(1, 2, 3), &x) == 0, "zero matrix not reported singular");
        }
        printf("kplus: s3_solve indefinite fallback: %d matrices, worst |Ax-b|/|b| = %.3e\n", 2000, worst_ind);
    }
    printf("kplus: %d F (%d inverted; kinds:", n, n_inv);
    for (it = 0; it < F_NKINDS; it++) printf(" %s %d", f_kind_name[it], count_kind[it]);
    printf(")\n");
    printf("kplus: min eig(K+)/mu: expanded %.12f, sign %.12f; %d cases below mu(1-1e-9) only within round-off of |K+|\n",
           min_ratio[0], min_ratio[1], n_roundoff);
    printf("kplus: %d SIPD block solves, worst backward error %.3e\n", n_solve, worst_res);
}

/* ================================================================ 6. split none */
static void test_none(void)
{
    int im, it, n_indef = 0, n_comp = 0, n_big = 0;
    double worst = 0, most_neg = 0;
    rng_seed(6006);
    for (im = 0; im < 4; im++) {
        sipd_material mat = material_stable_neohookean(rnd_log(1e3, 1e8), g_nus[im]);
        int indef_here = 0;
        for (it = 0; it < 20000; it++) {
            mat3 F = rnd_F(-1), P;
            sym3 Kp, K = material_K(&mat, F);
            double J = m3_det(F), e, lmin;
            int i;
            material_eval(&mat, SIPD_SPLIT_NONE, F, &P, &Kp);
            e = 0;
            for (i = 0; i < 6; i++) e = fmax(e, fabs(Kp.s[i] - K.s[i]));
            e /= s3_norm(K);
            worst = fmax(worst, e);
            CHECK(e < 1e-14, "split none K+ != material_K: %.3e", e);
            lmin = s3_min_eig(Kp);
            if (J > 0 && J < mat.alpha) {
                n_comp++;
                if (lmin < -1e-6 * mat.mu) { n_indef++; indef_here++; most_neg = fmin(most_neg, lmin / mat.mu); }
            }
            if (J >= mat.alpha) {
                /* (J − α)/J ≥ 0: K is PSD there (up to round-off) */
                n_big++;
                CHECK(lmin >= mat.mu * (1 - 1e-9) - 32 * DBL_EPSILON * s3_norm(Kp), "K not >= mu for J >= alpha: %.3e",
                      lmin / mat.mu);
            }
        }
        /* the ablation IS indefinite under compression, for every ν */
        CHECK(indef_here > 100, "split none: only %d indefinite K among compressed F (nu %.3f)", indef_here, g_nus[im]);
        /* a concrete case: uniform compression F = 0.8 I */
        {
            mat3 P;
            sym3 Kp;
            material_eval(&mat, SIPD_SPLIT_NONE, diag3(0.8, 0.8, 0.8), &P, &Kp);
            CHECK(s3_min_eig(Kp) < -0.1 * mat.mu, "split none: K(0.8 I) not indefinite: min eig/mu = %.3e",
                  s3_min_eig(Kp) / mat.mu);
        }
    }
    printf("none: K+ == material_K to %.3e; %d of %d compressed F (0<J<alpha) indefinite, most negative eig/mu = %.3e; "
           "%d F with J>=alpha all >= mu\n",
           worst, n_indef, n_comp, most_neg, n_big);
}

/* ================================================================ 7. descent */
/* A star of ne tets sharing one vertex (local index a_e in tet e), at rest position X and
 * current position yc.  Energy = inertia + Σ V Ψ; gradient and SIPD block on the shared vertex. */
typedef struct {
    int ne;
    rest_tet t[8];
    int a[8];
    vec3 y[8][4];
    double m, inv_h2;
    vec3 gq, yt;
} star;

static void star_random(star *s, int near_rest)
{
    int e, k;
    vec3 X = rnd_vec(2), yc;
    mat3 A = near_rest ? rnd_F(F_NEAR_REST) : m3_identity();
    s->ne = 1 + rnd_int(8);
    yc = v3_add(X, rnd_vec(near_rest ? 0.0 : 0.5));
    for (e = 0; e < s->ne; e++) {
        vec3 sh;
        s->t[e] = rnd_rest_tet(rnd_int(4));
        s->a[e] = rnd_int(4);
        sh = v3_sub(X, s->t[e].x[s->a[e]]);
        for (k = 0; k < 4; k++) s->t[e].x[k] = v3_add(s->t[e].x[k], sh);
        tet_rest(s->t[e].x[0], s->t[e].x[1], s->t[e].x[2], s->t[e].x[3], s->t[e].Bm);
        if (near_rest) {
            for (k = 0; k < 4; k++) s->y[e][k] = m3_mulv(A, v3_sub(s->t[e].x[k], X));
        } else {
            rnd_deform(&s->t[e], rnd() < 0.3, 0.3, s->y[e]);
        }
        sh = v3_sub(yc, s->y[e][s->a[e]]);
        for (k = 0; k < 4; k++) s->y[e][k] = v3_add(s->y[e][k], sh);
    }
}
static double star_energy(const star *s, const sipd_material *mat, vec3 yc)
{
    double E = inertia_energy(s->m, s->inv_h2, s->gq, yc, s->yt);
    int e;
    for (e = 0; e < s->ne; e++) {
        vec3 y[4];
        memcpy(y, s->y[e], sizeof y);
        y[s->a[e]] = yc;
        E += tet_energy(mat, s->t[e].Bm, s->t[e].vol, y[0], y[1], y[2], y[3]);
    }
    return E;
}
static void star_grad_block(const star *s, const sipd_material *mat, int split, vec3 *g, sym3 *D)
{
    int e;
    *g = inertia_gradient(s->m, s->inv_h2, s->gq, s->y[0][s->a[0]], s->yt);
    *D = s3_diag(s->m * s->inv_h2);
    for (e = 0; e < s->ne; e++) {
        const vec3 *y = s->y[e];
        sym3 Kp;
        vec3 ga = tet_vertex_gradient(mat, split, s->t[e].Bm, s->t[e].vol, y[0], y[1], y[2], y[3], s->a[e], &Kp);
        *g = v3_add(*g, ga);
        *D = s3_axpy(s->t[e].vol * v3_norm2(tet_gradN(s->t[e].Bm, s->a[e])), Kp, *D);
    }
}

static void test_descent(void)
{
    static const int splits[3] = {SIPD_SPLIT_EXPANDED, SIPD_SPLIT_SIGN, SIPD_SPLIT_NONE};
    int is, im, it, n[3] = {0}, n_bad[3] = {0}, n_full[3] = {0}, n_near = 0, n_near_full = 0;
    double worst_dd = 0, worst_ratio = 1e300;
    rng_seed(7007);
    for (is = 0; is < 3; is++)
        for (im = 0; im < 4; im++) {
            sipd_material mat = material_stable_neohookean(rnd_log(1e3, 1e8), g_nus[im]);
            for (it = 0; it < 3000; it++) {
                star s;
                vec3 g, dy, yc;
                sym3 D;
                double gdy, tau, Ep, Em, dd, E0, E1;
                int ok, near = it % 4 == 0;
                star_random(&s, near);
                yc = s.y[0][s.a[0]];
                s.m = rnd_log(1e-3, 1e3) * mat.mu * s.t[0].vol;
                if (is == 2 || it % 2) { /* quasi-static: gravity potential, no mass block */
                    s.inv_h2 = 0;
                    s.gq = v3(0, -9.81, 0);
                    s.yt = v3_add(yc, rnd_vec(0.1));
                } else {
                    s.inv_h2 = 3600;
                    s.gq = v3(0, 0, 0);
                    s.yt = v3_add(yc, rnd_vec(0.1));
                    s.m /= 3600;
                }
                star_grad_block(&s, &mat, splits[is], &g, &D);
                if (v3_norm2(g) == 0) continue;
                n[is]++;
                ok = s3_solve(D, g, &dy);
                dy = v3_scale(dy, -1);
                gdy = v3_dot(g, dy);
                if (is == 2) {
                    if (!ok || !(gdy < 0) || s3_min_eig(D) <= 0) n_bad[is]++;
                    continue;
                }
                CHECK(ok, "s3_solve failed");
                CHECK(s3_min_eig(D) > 0, "D not SPD (split %d)", splits[is]);
                /* gᵀ D⁻¹ g ≥ |g|² / λmax(D) > 0 */
                {
                    double a[3][3], ev[3];
                    s3_to_arr(D, a);
                    sym_eig3(a, ev);
                    CHECK(gdy <= -v3_norm2(g) / ev[2] * (1 - 1e-9), "g.dy = %.6e not < 0 (bound %.6e, split %d)", gdy,
                          -v3_norm2(g) / ev[2], splits[is]);
                    worst_ratio = fmin(worst_ratio, -gdy / (v3_norm2(g) / ev[2]));
                }
                if (gdy >= 0) n_bad[is]++;
                /* the energy really decreases along dy: dE/dt(0) == gᵀdy (exact central difference:
                 * E is quadratic along a single-vertex direction) */
                tau = 1e-3;
                Ep = star_energy(&s, &mat, v3_axpy(tau, dy, yc));
                Em = star_energy(&s, &mat, v3_axpy(-tau, dy, yc));
                dd = (Ep - Em) / (2 * tau);
                E0 = star_energy(&s, &mat, yc);
                {
                    double e = fabs(dd - gdy) / (fabs(gdy) + 1e-12 * fabs(E0) / tau);
                    worst_dd = fmax(worst_dd, e);
                    CHECK(e < 1e-5, "dE/dt along dy = %.9e vs g.dy = %.9e", dd, gdy);
                }
                E1 = star_energy(&s, &mat, v3_add(yc, dy));
                if (E1 < E0) n_full[is]++;
                if (near && is == 0) {
                    n_near++;
                    if (E1 < E0) n_near_full++;
                }
            }
        }
    printf("descent: expanded %d configs, %d with g.dy >= 0; full step decreased E in %.2f%% (near rest %d/%d)\n", n[0],
           n_bad[0], 100.0 * n_full[0] / n[0], n_near_full, n_near);
    printf("descent: sign     %d configs, %d with g.dy >= 0; full step decreased E in %.2f%%\n", n[1], n_bad[1],
           100.0 * n_full[1] / n[1]);
    printf("descent: worst -g.dy / (|g|^2/lmax(D)) = %.6f, worst |FD dE/dt - g.dy| rel = %.3e\n", worst_ratio, worst_dd);
    printf("descent: split none (quasi-static) %d configs, %d with D indefinite or g.dy >= 0 (the ablation, detected)\n",
           n[2], n_bad[2]);
    CHECK(n_bad[0] == 0 && n_bad[1] == 0, "non-descent directions");
    CHECK(n_near_full == n_near, "expanded full step near rest did not decrease E in %d of %d", n_near - n_near_full,
          n_near);
    CHECK(n_bad[2] > 0, "split none never gave an indefinite block / non-descent direction");
}

/* ================================================================ 8. majorisation */
static void test_majorize(void)
{
    static const double nus[4] = {0.3, 0.45, 0.49, 0.499};
    int im, it, a, i, j, rotated;
    double lo_all = 1e300, hi_all = -1e300, worst_exact = 0;
    rng_seed(8008);
    for (im = 0; im < 4; im++)
        for (rotated = 0; rotated < 2; rotated++) {
            sipd_material mat = material_stable_neohookean(rnd_log(1e3, 1e8), nus[im]);
            double lo = 1e300, hi = -1e300, lo_s = 1e300, hi_s = -1e300;
            for (it = 0; it < 3000; it++) {
                rest_tet t = rnd_rest_tet(it % 4);
                mat3 F = m3_identity(), Q = rotated ? rnd_rot() : m3_identity();
                vec3 y[4], c = rnd_vec(3);
                double dn = 0, size = 0;
                for (i = 0; i < 9; i++) { F.m[i] += rndu(-1, 1); dn += (F.m[i] - (i % 4 == 0)) * (F.m[i] - (i % 4 == 0)); }
                dn = sqrt(dn);
                for (i = 0; i < 9; i++) F.m[i] = (i % 4 == 0) + (F.m[i] - (i % 4 == 0)) * 0.05 * rnd() / dn; /* |F-I| <= 0.05 */
                F = m3_mul(Q, F);
                for (a = 0; a < 4; a++) {
                    y[a] = v3_add(m3_mulv(F, t.x[a]), c);
                    size = fmax(size, v3_len(v3_sub(t.x[a], t.x[0])));
                }
                for (a = 0; a < 4; a++) {
                    double H[3][3], Dm[3][3], Ds[3][3], ev[3], h = 1e-4 * size, w;
                    sym3 Kp, Ks;
                    vec3 gN = tet_gradN(t.Bm, a), cg;
                    mat3 Fc = tet_F(t.Bm, y[0], y[1], y[2], y[3]), C = m3_cof(Fc);
                    for (j = 0; j < 3; j++) {
                        vec3 yp[4], ym[4], gp, gm;
                        memcpy(yp, y, sizeof yp);
                        memcpy(ym, y, sizeof ym);
                        yp[a].v[j] += h;
                        ym[a].v[j] -= h;
                        gp = tet_vertex_gradient(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, yp[0], yp[1], yp[2], yp[3], a, &Kp);
                        gm = tet_vertex_gradient(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, ym[0], ym[1], ym[2], ym[3], a, &Kp);
                        for (i = 0; i < 3; i++) H[i][j] = (gp.v[i] - gm.v[i]) / (2 * h);
                    }
                    for (i = 0; i < 3; i++)
                        for (j = 0; j < i; j++) H[i][j] = H[j][i] = 0.5 * (H[i][j] + H[j][i]);
                    /* closed form of the exact block (docs/design.md §3.8): V(μ|∇N|² I + λ (cof ∇N)(cof ∇N)ᵀ) */
                    cg = m3_mulv(C, gN);
                    {
                        double e = 0, sc = t.vol * (mat.mu + mat.lambda) * v3_norm2(gN) * fmax(1, m3_frob2(C));
                        for (i = 0; i < 3; i++)
                            for (j = 0; j < 3; j++) {
                                double ex = t.vol * ((i == j) * mat.mu * v3_norm2(gN) + mat.lambda * cg.v[i] * cg.v[j]);
                                e = fmax(e, fabs(H[i][j] - ex) / sc);
                            }
                        worst_exact = fmax(worst_exact, e);
                        CHECK(e < 1e-6, "FD block vs closed-form block: %.3e", e);
                    }
                    w = t.vol * v3_norm2(gN);
                    tet_vertex_gradient(&mat, SIPD_SPLIT_EXPANDED, t.Bm, t.vol, y[0], y[1], y[2], y[3], a, &Kp);
                    tet_vertex_gradient(&mat, SIPD_SPLIT_SIGN, t.Bm, t.vol, y[0], y[1], y[2], y[3], a, &Ks);
                    s3_to_arr(s3_axpy(w, Kp, s3_zero()), Dm);
                    s3_to_arr(s3_axpy(w, Ks, s3_zero()), Ds);
                    CHECK(gen_eig3(H, Dm, ev), "D_a (expanded) not SPD");
                    lo = fmin(lo, ev[0]);
                    hi = fmax(hi, ev[2]);
                    CHECK(ev[0] > 0 && ev[2] <= 1.5, "eig(D^-1 H) = [%.6f, %.6f] outside (0, 1.5] (nu %.3f)", ev[0],
                          ev[2], nus[im]);
                    /* sharper: H_aa ⪯ D_a exactly (Cauchy–Schwarz: (vᵀ cof g)² ≤ |g|² |cofᵀ v|²) */
                    CHECK(ev[2] <= 1 + 1e-6, "eig(D^-1 H) max %.9f > 1", ev[2]);
                    if (gen_eig3(H, Ds, ev)) { lo_s = fmin(lo_s, ev[0]); hi_s = fmax(hi_s, ev[2]); }
                }
            }
            printf("majorize: nu %.3f %s: expanded eig(D_a^-1 H_aa) in [%.6f, %.9f]   (sign split, for reference: [%.4f, %.4f])\n",
                   nus[im], rotated ? "(rotated)" : "         ", lo, hi, lo_s, hi_s);
            if (im < 3) { lo_all = fmin(lo_all, lo); hi_all = fmax(hi_all, hi); }
        }
    printf("majorize: nu in {0.3,0.45,0.49}: range [%.6f, %.9f]; worst |FD H - closed form| rel = %.3e\n", lo_all, hi_all,
           worst_exact);
}

/* ================================================================ 9. inertia */
static void test_inertia(void)
{
    int it, mode, i;
    double worst[2] = {0, 0};
    rng_seed(9009);
    for (mode = 0; mode < 2; mode++)
        for (it = 0; it < 20000; it++) {
            double m = rnd_log(1e-6, 1e3), inv_h2 = mode == 0 ? rnd_log(1, 1e6) : 0;
            vec3 gq = mode == 0 ? v3(0, 0, 0) : rnd_vec(10), y = rnd_vec(5), yt = v3_add(y, rnd_vec(rnd_log(1e-4, 1)));
            vec3 g = inertia_gradient(m, inv_h2, gq, y, yt);
            double sc = 0, gn = v3_len(g), e = 0;
            for (i = 0; i < 3; i++) sc = fmax(sc, fabs(y.v[i] - yt.v[i]));
            for (i = 0; i < 3; i++) {
                double h = 1e-2 * sc, fd; /* quadratic in y: exact central differences */
                vec3 yp = y, ym = y;
                yp.v[i] += h;
                ym.v[i] -= h;
                fd = (inertia_energy(m, inv_h2, gq, yp, yt) - inertia_energy(m, inv_h2, gq, ym, yt)) / (2 * h);
                e = fmax(e, fabs(fd - g.v[i]) / gn);
            }
            worst[mode] = fmax(worst[mode], e);
            CHECK(e < 1e-8, "inertia gradient vs FD (mode %s): %.3e", mode ? "quasi-static" : "dynamic", e);
            /* energy is 0 at ỹ, and the quasi-static gradient is −m g */
            CHECK(inertia_energy(m, inv_h2, gq, yt, yt) == 0, "inertia energy at yt != 0");
            if (mode == 1) CHECK(v3_len(v3_add(g, v3_scale(gq, m))) <= 1e-15 * m * v3_len(gq), "quasi-static gradient != -m g");
        }
    printf("inertia: worst |FD - gradient|/|gradient|: dynamic %.3e, quasi-static %.3e\n", worst[0], worst[1]);
}

/* ================================================================ main */
static const test_case cases[] = {
    {"pairwise", .run = test_pairwise},
    {"fd", .run = test_fd},
    {"rest", .run = test_rest},
    {"lame", .run = test_lame},
    {"kplus", .run = test_kplus},
    {"none", .run = test_none},
    {"descent", .run = test_descent},
    {"majorize", .run = test_majorize},
    {"inertia", .run = test_inertia},
};
static const test_program program = {"test_physics", TEST_CASES(cases), .all = 1,
                                     .note = "(" SIPD_REAL_NAME " physics)"};
TEST_MAIN(program)
