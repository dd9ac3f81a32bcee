/* test_contact.c — verification of src/physics/contact.h (docs/design.md §3.6), double precision.
 *
 * One executable, one sub-test per argument (CTest registers each as contact_<name>):
 *   plane     contact_plane_eval gradient == central differences of contact_plane_energy, block ==
 *             finite-difference Hessian of the energy, above / inside / below the d̂ band, axis and
 *             oblique normals; inactive (d ≥ d̂) returns 0 and leaves g, D untouched
 *   friction  friction_normal_force; friction_eval gradient == differences of friction_energy in
 *             both regimes (|u| < ε, |u| > ε) with a normal component in y − x0 that must not
 *             matter; block vs FD Hessian (block − H = μλ|u|/ε² ûûᵀ below ε, μλ/|u| ûûᵀ beyond:
 *             PSD); block finite and == 2μλ/ε T at u = 0; energy continuous at |u| = ε;
 *             |force| ≤ μλ; nothing added when μλ = 0
 *   descent   inertia + plane contact + friction: Δ = −D⁻¹g is a descent direction
 *   pair      a VF/EE pair through contact_point_eval: vertex l's gradient β_l g_z equals finite
 *             differences of the pair energy (random weights, tiny corners, friction on/off);
 *             the Jacobi blocks |β_l| Σ|β| D_z majorise the pair's Hessian, β_l² D_z does not
 *   anchor    the stick memory (issue 27): friction_eval_off's gradient == differences of
 *             friction_energy_off with an anchor offset o (|o| ≤ ε, a normal part that must not
 *             matter), == the plain form with x0 − o; friction_anchor_next clamps the slip to ε
 *             (sticking: the slip itself, sliding: ε û), tangent, 0 when dropped; a contact at
 *             rest under a load below μλ with its anchor is an equilibrium and keeps its anchor
 *             (no creep), without it is not
 *   all       every one of the above
 * Each prints the measured quantities it asserts on, and exits non-zero on failure.
 */
#include "physics/common.h"
#include "physics/mat3.h"
#include "physics/inertia.h"
#include "physics/contact.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fd.h"
#include "rng.h"
#include "runner.h"

/* ---------------------------------------------------------------- random numbers */
/* rng_seed, rng_u64, rnd, rndu, rnd_log, rnd_int: the default stream of rng.h (tests/common) */
static vec3 rnd_vec(double s) { return v3(rndu(-s, s), rndu(-s, s), rndu(-s, s)); }
static double v3_len(vec3 a) { return sqrt(v3_norm2(a)); }
static vec3 v3_unit(vec3 a) { return v3_scale(a, 1.0 / v3_len(a)); }
static vec3 e_axis(int i) { vec3 e = v3(0, 0, 0); e.v[i] = 1; return e; }

/* A unit normal: the 6 signed axes first (exact), then oblique ones. */
static vec3 test_normal(int i)
{
    if (i < 6) return v3_scale(e_axis(i % 3), i < 3 ? 1.0 : -1.0);
    for (;;) {
        vec3 n = rnd_vec(1);
        if (v3_len(n) > 0.1) return v3_unit(n);
    }
}
/* A random unit vector orthogonal to the unit vector n. */
static vec3 rnd_tangent(vec3 n)
{
    for (;;) {
        vec3 t = rnd_vec(1);
        t = v3_axpy(-v3_dot(n, t), n, t);
        if (v3_len(t) > 0.1) return v3_unit(t);
    }
}

/* symmetric 3x3 helpers */
static sym3 s3_sub(sym3 a, sym3 b) { return s3_axpy(-1, b, a); }
static double s3_norm(sym3 a)
{
    return sqrt(a.s[0] * a.s[0] + a.s[1] * a.s[1] + a.s[2] * a.s[2] +
                2 * (a.s[3] * a.s[3] + a.s[4] * a.s[4] + a.s[5] * a.s[5]));
}
static sym3 s3_tangent(vec3 n) { return s3_axpy(-1, s3_outer(n), s3_diag(1)); } /* I − n nᵀ */
#define PI_ 3.14159265358979323846
/* Smallest eigenvalue of a symmetric 3x3 (closed form, trigonometric). */
static double s3_min_eig(sym3 a)
{
    double p1 = a.s[3] * a.s[3] + a.s[4] * a.s[4] + a.s[5] * a.s[5];
    double q = (a.s[0] + a.s[1] + a.s[2]) / 3, p2, p, r, phi, b[6], detb;
    if (p1 == 0) return fmin(a.s[0], fmin(a.s[1], a.s[2]));
    p2 = (a.s[0] - q) * (a.s[0] - q) + (a.s[1] - q) * (a.s[1] - q) + (a.s[2] - q) * (a.s[2] - q) + 2 * p1;
    p = sqrt(p2 / 6);
    b[0] = (a.s[0] - q) / p; b[1] = (a.s[1] - q) / p; b[2] = (a.s[2] - q) / p;
    b[3] = a.s[3] / p; b[4] = a.s[4] / p; b[5] = a.s[5] / p;
    detb = b[0] * (b[1] * b[2] - b[5] * b[5]) - b[3] * (b[3] * b[2] - b[5] * b[4]) + b[4] * (b[3] * b[5] - b[1] * b[4]);
    r = detb / 2;
    phi = r <= -1 ? PI_ / 3 : (r >= 1 ? 0 : acos(r) / 3);
    return q + 2 * p * cos(phi + 2 * PI_ / 3);
}
static double s3_max_eig(sym3 a) { return -s3_min_eig(s3_axpy(-1, a, s3_zero())); }

/* ---------------------------------------------------------------- finite differences */
typedef double (*energy_fn)(vec3 y, const void *ctx);

/* E as a function of a flat 3-vector (fd.h) */
typedef struct {
    energy_fn E;
    const void *ctx;
} flat_energy;
static double flat_E(const double *y, const void *c)
{
    const flat_energy *f = c;
    return f->E(v3(y[0], y[1], y[2]), f->ctx);
}
static vec3 fd_gradient3(energy_fn E, const void *ctx, vec3 y, double h)
{
    flat_energy f = {E, ctx};
    double g[3];
    fd_gradient(3, y.v, h, flat_E, &f, g);
    return v3(g[0], g[1], g[2]);
}
/* Hessian of E by second differences of E itself. */
static sym3 fd_hessian3(energy_fn E, const void *ctx, vec3 y, double h)
{
    flat_energy f = {E, ctx};
    double H[9];
    sym3 S;
    fd_hessian(3, y.v, h, flat_E, &f, H);
    S.s[0] = H[0], S.s[1] = H[4], S.s[2] = H[8], S.s[3] = H[1], S.s[4] = H[2], S.s[5] = H[5];
    return S;
}

/* ================================================================ plane */
typedef struct { vec3 n; double h, dhat, k; } plane_ctx;
static double plane_E(vec3 y, const void *c)
{
    const plane_ctx *p = (const plane_ctx *)c;
    return contact_plane_energy(y, p->n, p->h, p->dhat, p->k);
}

static void test_plane(void)
{
    double worst_g = 0, worst_H = 0, worst_E = 0;
    int nact = 0, ninact = 0, nskip = 0, it;
    rng_seed(11);
    for (it = 0; it < 6000; it++) {
        plane_ctx P;
        vec3 y, p, g0, g, gfd;
        sym3 D0, D, Hfd, Dexp;
        double d, scale, hg = 1e-7, hH = 1e-4;
        int band = it % 3, act;
        P.n = test_normal(it % 12);
        P.h = rndu(-2, 2);
        P.dhat = rnd_log(1e-3, 0.1);
        P.k = rnd_log(1e1, 1e6);
        /* gap: below the plane (penetrating), inside the d̂ band, or above it */
        if (band == 0) d = -rndu(0, 3) * P.dhat;
        else if (band == 1) d = rndu(0, 1) * P.dhat;
        else d = P.dhat * rndu(1, 4);
        p = rnd_vec(3);
        y = v3_axpy(P.h + d - v3_dot(P.n, p), P.n, p); /* n·y − h == d up to round-off */
        d = contact_plane_gap(y, P.n, P.h);
        if (fabs(d - P.dhat) < 1e-6) { nskip++; continue; }
        g0 = rnd_vec(1);
        D0 = s3_add(s3_diag(rndu(0, 1)), s3_outer(rnd_vec(1)));
        g = g0;
        D = D0;
        act = contact_plane_eval(y, P.n, P.h, P.dhat, P.k, &g, &D);
        CHECK(act == (d < P.dhat), "active flag %d for d = %.6e, d̂ = %.6e", act, d, P.dhat);
        if (!act) {
            ninact++;
            CHECK(!memcmp(&g, &g0, sizeof g) && !memcmp(&D, &D0, sizeof D), "inactive eval changed g or D");
            CHECK(contact_plane_energy(y, P.n, P.h, P.dhat, P.k) == 0, "inactive energy != 0");
        } else {
            double r = P.dhat - d, e = contact_plane_energy(y, P.n, P.h, P.dhat, P.k);
            nact++;
            CHECK(fabs(e - 0.5 * P.k * r * r) <= 1e-12 * e, "energy %.6e != k/2 (d̂-d)^2 = %.6e", e, 0.5 * P.k * r * r);
            worst_E = fmax(worst_E, fabs(e - 0.5 * P.k * r * r) / e);
            CHECK(v3_dot(v3_sub(g, g0), P.n) < 0, "contact gradient does not push along -n (descent goes out)");
        }
        /* gradient and block vs differences of the energy (the stencils stay on one side of d̂) */
        g = v3_sub(g, g0);
        D = s3_sub(D, D0);
        scale = P.k * P.dhat * 4;
        gfd = fd_gradient3(plane_E, &P, y, hg);
        {
            double err = v3_len(v3_sub(gfd, g)) / scale;
            worst_g = fmax(worst_g, err);
            CHECK(err <= 1e-6, "plane gradient vs FD: rel err %.3e (d = %.4e, d̂ = %.4e, band %d)", err, d, P.dhat, band);
        }
        hH = fmin(1e-4, 0.25 * fabs(d - P.dhat));
        Hfd = fd_hessian3(plane_E, &P, y, hH);
        {
            double err = s3_norm(s3_sub(Hfd, D)) / P.k;
            worst_H = fmax(worst_H, err);
            CHECK(err <= 1e-5, "plane block vs FD Hessian: rel err %.3e (d = %.4e, d̂ = %.4e, h %.2e)", err, d, P.dhat, hH);
        }
        Dexp = act ? s3_axpy(P.k, s3_outer(P.n), s3_zero()) : s3_zero();
        CHECK(s3_norm(s3_sub(D, Dexp)) <= 1e-14 * P.k, "block != k n n^T");
    }
    /* exactly at d = d̂: inactive (d < d̂ is the rule), energy 0 */
    {
        vec3 g = v3(1, 2, 3), y = v3(0.3, -0.2, 0.03);
        sym3 D = s3_diag(5);
        CHECK(contact_plane_eval(y, v3(0, 0, 1), 0, 0.03, 1e4, &g, &D) == 0, "active at d == d̂");
        CHECK(g.v[0] == 1 && g.v[1] == 2 && g.v[2] == 3 && D.s[0] == 5 && D.s[3] == 0, "changed at d == d̂");
        CHECK(contact_plane_energy(y, v3(0, 0, 1), 0, 0.03, 1e4) == 0, "energy at d == d̂ != 0");
    }
    CHECK(nact > 2000 && ninact > 1000, "too few samples: %d active, %d inactive", nact, ninact);
    printf("plane: %d active, %d inactive, %d skipped near d̂; worst rel err: gradient %.3e, block %.3e, energy %.3e\n",
           nact, ninact, nskip, worst_g, worst_H, worst_E);
}

/* ================================================================ friction */
typedef struct { vec3 x0, n; double lam, mu, eps; } fric_ctx;
static double fric_E(vec3 y, const void *c)
{
    const fric_ctx *f = (const fric_ctx *)c;
    return friction_energy(y, f->x0, f->n, f->lam, f->mu, f->eps);
}
static void fric_eval0(const fric_ctx *f, vec3 y, vec3 *g, sym3 *D)
{
    *g = v3(0, 0, 0);
    *D = s3_zero();
    friction_eval(y, f->x0, f->n, f->lam, f->mu, f->eps, g, D);
}

static void test_friction(void)
{
    double worst_g = 0, worst_Hs = 0, worst_Hd = 0, worst_pn = 0, max_force = 0, min_psd = 1e300, max_eig = 0;
    int it, nsmall = 0, nlarge = 0;
    rng_seed(23);

    /* λ_n from the step-start gap */
    for (it = 0; it < 2000; it++) {
        vec3 n = test_normal(it % 12), p = rnd_vec(3), x0, gc = v3(0, 0, 0);
        sym3 Dc = s3_zero();
        double h = rndu(-1, 1), dhat = rnd_log(1e-3, 0.1), k = rnd_log(10, 1e6), d0 = dhat * rndu(-2, 3), lam;
        x0 = v3_axpy(h + d0 - v3_dot(n, p), n, p);
        d0 = contact_plane_gap(x0, n, h);
        lam = friction_normal_force(x0, n, h, dhat, k);
        if (d0 < dhat) {
            CHECK(fabs(lam - k * (dhat - d0)) <= 1e-13 * lam, "λ_n %.6e != k(d̂-d0) %.6e", lam, k * (dhat - d0));
            contact_plane_eval(x0, n, h, dhat, k, &gc, &Dc);
            CHECK(fabs(v3_len(gc) - lam) <= 1e-12 * lam, "λ_n != |contact force| at x0");
        } else
            CHECK(lam == 0, "λ_n = %.3e for d0 = %.3e >= d̂ = %.3e", lam, d0, dhat);
    }

    for (it = 0; it < 6000; it++) {
        fric_ctx F;
        vec3 y, t, g, gfd, uhat, gt;
        sym3 D, Hfd, T, diff;
        double um, an, s, hg, err;
        int small = it % 2;
        F.n = test_normal(it % 12);
        F.x0 = rnd_vec(2);
        F.lam = rnd_log(1e-2, 1e3);
        F.mu = rndu(0.05, 1);
        F.eps = rnd_log(1e-5, 1e-2);
        s = F.mu * F.lam;
        T = s3_tangent(F.n);
        um = small ? F.eps * rndu(0.02, 0.97) : F.eps * rnd_log(1.03, 50);
        an = F.eps * rndu(-20, 20); /* normal motion: T removes it */
        t = rnd_tangent(F.n);
        y = v3_add(F.x0, v3_add(v3_scale(t, um), v3_scale(F.n, an)));
        uhat = t;
        um = v3_len(friction_slip(y, F.x0, F.n));
        if (fabs(um - F.eps) < 1e-3 * F.eps) continue;
        if (small) nsmall++; else nlarge++;
        fric_eval0(&F, y, &g, &D);

        /* gradient vs central differences of the energy */
        hg = 1e-4 * F.eps;
        gfd = fd_gradient3(fric_E, &F, y, hg);
        err = v3_len(v3_sub(gfd, g)) / s;
        worst_g = fmax(worst_g, err);
        CHECK(err <= 1e-5, "friction gradient vs FD: rel err %.3e (|u|/ε = %.3f)", err, um / F.eps);
        /* the normal part of y − x0 does not matter */
        {
            vec3 y2 = v3_axpy(-an, F.n, y), g2;
            sym3 D2;
            double e1 = fric_E(y, &F), e2 = fric_E(y2, &F);
            fric_eval0(&F, y2, &g2, &D2);
            CHECK(fabs(e1 - e2) <= 1e-7 * e1, "energy depends on the normal motion: %.6e vs %.6e", e1, e2);
            CHECK(v3_len(v3_sub(g, g2)) <= 1e-7 * s, "gradient depends on the normal motion");
            CHECK(s3_norm(s3_sub(D, D2)) <= 1e-8 * s / F.eps, "block depends on the normal motion");
            worst_pn = fmax(worst_pn, fabs(v3_dot(g, F.n)) / s);
            CHECK(fabs(v3_dot(g, F.n)) <= 1e-8 * s, "friction force has a normal component %.3e", v3_dot(g, F.n));
        }
        /* Coulomb bound; exactly μλ when sliding */
        gt = g;
        max_force = fmax(max_force, v3_len(gt) / s);
        CHECK(v3_len(gt) <= s * (1 + 1e-12), "|friction force| %.6e > μλ %.6e", v3_len(gt), s);
        if (!small) CHECK(fabs(v3_len(gt) - s) <= 1e-12 * s, "sliding |force| %.6e != μλ %.6e", v3_len(gt), s);
        /* block: s f1(|u|)/|u| T, PSD, bounded by 2 s/ε */
        {
            double c = s * (small ? 2 / F.eps - um / (F.eps * F.eps) : 1 / um);
            CHECK(s3_norm(s3_sub(D, s3_axpy(c, T, s3_zero()))) <= 1e-12 * c * 2, "block != μλ f1/|u| T");
            CHECK(s3_min_eig(D) >= -1e-9 * c, "block not PSD: min eig %.3e", s3_min_eig(D));
            max_eig = fmax(max_eig, s3_max_eig(D) * F.eps / (2 * s));
            CHECK(s3_max_eig(D) <= 2 * s / F.eps * (1 + 1e-9), "block eig %.6e > 2μλ/ε", s3_max_eig(D));
        }
        /* block vs FD Hessian of the energy: D − H = s|u|/ε² ûûᵀ (smooth regime) or s/|u| ûûᵀ (sliding) */
        Hfd = fd_hessian3(fric_E, &F, y, small ? fmin(1e-3 * F.eps, 1e-2 * um) : 1e-3 * F.eps * fmin(um / F.eps, 5.0));
        diff = s3_sub(D, Hfd);
        {
            double cexp = small ? s * um / (F.eps * F.eps) : s / um;
            double e2 = s3_norm(s3_sub(diff, s3_axpy(cexp, s3_outer(uhat), s3_zero()))) / (s / F.eps);
            double mineig = s3_min_eig(diff) / (s / F.eps);
            if (small) {
                worst_Hs = fmax(worst_Hs, e2);
                /* on T − ûûᵀ and along n the block IS the Hessian; along û it exceeds it by s|u|/ε² */
                CHECK(e2 <= 1e-4, "smooth regime: block - FD Hessian != μλ|u|/ε² ûûᵀ: rel err %.3e (|u|/ε %.3f)", e2,
                      um / F.eps);
            } else {
                worst_Hd = fmax(worst_Hd, e2);
                CHECK(e2 <= 1e-4, "sliding: block - FD Hessian != μλ/|u| ûûᵀ: rel err %.3e (|u|/ε %.3f)", e2, um / F.eps);
            }
            min_psd = fmin(min_psd, mineig);
            CHECK(mineig >= -1e-4, "block - FD Hessian not PSD: min eig %.3e (|u|/ε %.3f)", mineig, um / F.eps);
        }
    }

    /* near u = 0: the block tends to the Hessian 2μλ/ε T; at u = 0 exactly it is 2μλ/ε T, g = 0 */
    for (it = 0; it < 200; it++) {
        fric_ctx F;
        vec3 g, y;
        sym3 D, Hfd, B;
        double s;
        F.n = test_normal(it % 12);
        F.x0 = rnd_vec(2);
        F.lam = rnd_log(1e-2, 1e3);
        F.mu = rndu(0.05, 1);
        F.eps = rnd_log(1e-5, 1e-2);
        s = F.mu * F.lam;
        B = s3_axpy(2 * s / F.eps, s3_tangent(F.n), s3_zero());
        fric_eval0(&F, F.x0, &g, &D);
        CHECK(isfinite(D.s[0]) && isfinite(g.v[0]), "non-finite at u = 0");
        CHECK(v3_len(g) == 0, "gradient at u = 0 is %.3e", v3_len(g));
        CHECK(s3_norm(s3_sub(D, B)) <= 1e-12 * 2 * s / F.eps, "block at u = 0 != 2μλ/ε T");
        CHECK(fric_E(F.x0, &F) == 0, "energy at u = 0 != 0");
        /* pure normal motion: u ≈ 0 up to round-off */
        y = v3_axpy(F.eps * rndu(-10, 10), F.n, F.x0);
        fric_eval0(&F, y, &g, &D);
        CHECK(isfinite(D.s[0]) && s3_norm(s3_sub(D, B)) <= 1e-6 * 2 * s / F.eps, "block for normal-only motion != 2μλ/ε T");
        Hfd = fd_hessian3(fric_E, &F, F.x0, 1e-4 * F.eps);
        CHECK(s3_norm(s3_sub(D, Hfd)) <= 1e-4 * 2 * s / F.eps, "block at u = 0 != FD Hessian: %.3e",
              s3_norm(s3_sub(D, Hfd)) / (2 * s / F.eps));
    }

    /* continuity of the energy (and f0, f1) at |u| = ε */
    {
        double worst_jump = 0;
        for (it = 0; it < 200; it++) {
            fric_ctx F;
            vec3 t, ym, yp;
            double em, ep, s;
            F.n = test_normal(it % 12);
            F.x0 = rnd_vec(2);
            F.lam = rnd_log(1e-2, 1e3);
            F.mu = rndu(0.05, 1);
            F.eps = rnd_log(1e-5, 1e-2);
            s = F.mu * F.lam;
            t = rnd_tangent(F.n);
            ym = v3_axpy(F.eps * (1 - 1e-9), t, F.x0);
            yp = v3_axpy(F.eps * (1 + 1e-9), t, F.x0);
            em = fric_E(ym, &F);
            ep = fric_E(yp, &F);
            worst_jump = fmax(worst_jump, fabs(ep - em) / (s * F.eps));
            CHECK(fabs(ep - em) <= 1e-7 * s * F.eps, "energy jumps at |u| = ε: %.6e vs %.6e", em, ep);
            CHECK(fabs(em - s * 2 * F.eps / 3) <= 1e-7 * s * F.eps, "E(|u| = ε) != 2/3 μλε");
            CHECK(fabs(friction_f0(F.eps * (1 - 1e-12), F.eps) - friction_f0(F.eps, F.eps)) <= 1e-10 * F.eps, "f0 jumps at ε");
            CHECK(fabs(friction_f1(F.eps * (1 - 1e-12), F.eps) - 1) <= 1e-10, "f1 jumps at ε");
            CHECK(fabs(friction_f1_over_x(F.eps * (1 - 1e-12), F.eps) * F.eps - 1) <= 1e-10, "f1/x jumps at ε");
        }
        CHECK(friction_f0(0, 1e-3) == 0 && friction_f1(0, 1e-3) == 0, "f0(0), f1(0) != 0");
        /* f1 == f0' and f1 == x (f1/x), both regimes */
        for (it = 0; it < 2000; it++) {
            double eps = rnd_log(1e-5, 1e-1), x = eps * (it % 2 ? rndu(0.01, 0.99) : rnd_log(1.01, 100)), hx = 1e-5 * eps;
            double f1 = friction_f1(x, eps), f1fd = (friction_f0(x + hx, eps) - friction_f0(x - hx, eps)) / (2 * hx);
            CHECK(fabs(f1 - f1fd) <= 1e-7, "f1(%.3e ε) = %.9f != f0' = %.9f", x / eps, f1, f1fd);
            CHECK(fabs(f1 - x * friction_f1_over_x(x, eps)) <= 1e-14, "f1 != x (f1/x) at %.3e ε", x / eps);
            CHECK(f1 > 0 && f1 <= 1, "f1(%.3e ε) = %.17g outside (0, 1]", x / eps, f1);
        }
        printf("friction: energy jump at |u| = ε (relative to μλε): %.3e\n", worst_jump);
    }

    /* μλ = 0: nothing added */
    {
        vec3 g = v3(1, 2, 3);
        sym3 D = s3_diag(4);
        friction_eval(v3(0.1, 0.2, 0.3), v3(0, 0, 0), v3(0, 0, 1), 0, 0.5, 1e-3, &g, &D);
        friction_eval(v3(0.1, 0.2, 0.3), v3(0, 0, 0), v3(0, 0, 1), 10, 0, 1e-3, &g, &D);
        CHECK(g.v[0] == 1 && g.v[1] == 2 && g.v[2] == 3 && D.s[0] == 4 && D.s[1] == 4 && D.s[3] == 0,
              "friction_eval changed g or D with μλ = 0");
    }
    CHECK(nsmall > 2000 && nlarge > 2000, "too few samples: %d smooth, %d sliding", nsmall, nlarge);
    printf("friction: %d smooth + %d sliding states; worst rel err: gradient %.3e, (block-H) smooth %.3e, sliding %.3e; "
           "normal force part %.3e; max |force|/μλ %.15f; max eig(D) ε/(2μλ) %.6f; min eig(D-H) ε/(μλ) %.3e\n",
           nsmall, nlarge, worst_g, worst_Hs, worst_Hd, worst_pn, max_force, max_eig, min_psd);
}

/* ================================================================ descent */
typedef struct { double m, inv_h2; vec3 yt, n, x0; double ph, dhat, k, lam, mu, eps; } vtx_ctx;
static double vtx_E(vec3 y, const void *c)
{
    const vtx_ctx *v = (const vtx_ctx *)c;
    return inertia_energy(v->m, v->inv_h2, v3(0, 0, 0), y, v->yt) + contact_plane_energy(y, v->n, v->ph, v->dhat, v->k) +
           friction_energy(y, v->x0, v->n, v->lam, v->mu, v->eps);
}

static void test_descent(void)
{
    int it, nact = 0, nfric = 0, ndec = 0;
    double worst_cos = -1, worst_dir = 0;
    rng_seed(37);
    for (it = 0; it < 20000; it++) {
        vtx_ctx V;
        vec3 y, g, dy, p;
        sym3 D;
        double hstep = rnd_log(1e-4, 1e-1), gd, d0, dd, slope_fd, t;
        V.m = rnd_log(1e-6, 10);
        V.inv_h2 = 1 / (hstep * hstep);
        V.n = test_normal(it % 12);
        V.ph = rndu(-1, 1);
        V.dhat = rnd_log(1e-3, 0.1);
        V.k = rnd_log(1e1, 1e8);
        V.mu = rndu(0, 1);
        V.eps = rnd_log(1e-3, 1) * hstep; /* ε_v h */
        p = rnd_vec(2);
        d0 = V.dhat * rndu(-1, 2);
        V.x0 = v3_axpy(V.ph + d0 - v3_dot(V.n, p), V.n, p);
        V.lam = friction_normal_force(V.x0, V.n, V.ph, V.dhat, V.k);
        dd = V.dhat * rndu(-3, 3);
        y = v3_add(v3_axpy(dd, V.n, V.x0), v3_scale(rnd_tangent(V.n), V.eps * rnd_log(1e-3, 1e2)));
        V.yt = v3_add(V.x0, rnd_vec(V.dhat * 3));
        g = inertia_gradient(V.m, V.inv_h2, v3(0, 0, 0), y, V.yt);
        D = s3_diag(V.m * V.inv_h2);
        nact += contact_plane_eval(y, V.n, V.ph, V.dhat, V.k, &g, &D);
        if (V.lam * V.mu > 0) nfric++;
        friction_eval(y, V.x0, V.n, V.lam, V.mu, V.eps, &g, &D);
        if (v3_len(g) == 0) continue;
        CHECK(s3_solve(D, v3_scale(g, -1), &dy) == 1, "s3_solve failed");
        gd = v3_dot(g, dy);
        worst_cos = fmax(worst_cos, gd / (v3_len(g) * v3_len(dy)));
        CHECK(gd < 0, "not a descent direction: g.dy = %.3e", gd);
        /* the energy decreases along dy: one-sided slope from differences of E agrees in sign */
        t = 1e-6;
        slope_fd = (vtx_E(v3_axpy(t, dy, y), &V) - vtx_E(v3_axpy(-t, dy, y), &V)) / (2 * t);
        if (fabs(slope_fd - gd) <= 1e-3 * fabs(gd)) ndec++;
        worst_dir = fmax(worst_dir, fabs(slope_fd - gd) / fabs(gd));
    }
    CHECK(nact > 5000 && nfric > 5000, "too few contact/friction samples: %d, %d", nact, nfric);
    CHECK(ndec > 19000, "FD slope along dy != g.dy in %d of 20000 states", 20000 - ndec);
    printf("descent: %d states with active contact, %d with friction; max cos(g, dy) %.6f; "
           "FD slope along dy == g.dy in %d states (worst rel diff %.3e)\n",
           nact, nfric, worst_cos, ndec, worst_dir);
}

/* ================================================================ pairs (VF, EE) */
/* A pair's energy as a function of its vertex `l` (the other three fixed):
 * contact_point_energy(Σβy, Σβx0, n, 0, ...) — the form both backends evaluate. */
typedef struct {
    vec3 y[4], x0[4], n;
    sipd_real beta[4];
    double dhat, k, lam, mu, eps;
    int l;
} pair_ctx;
static double pair_E(vec3 yl, const void *c)
{
    const pair_ctx *P = c;
    vec3 ys[4];
    int j;
    for (j = 0; j < 4; j++) ys[j] = j == P->l ? yl : P->y[j];
    return contact_point_energy(contact_pair_combine(ys, P->beta, 4), contact_pair_combine(P->x0, P->beta, 4), v3(0, 0, 0), P->n, 0,
                                P->dhat, P->k, P->lam, P->mu, P->eps);
}

static void test_pair(void)
{
    int trial, l, ngrad = 0, nmaj = 0, nexact_fails = 0;
    double worst_g = 0, worst_maj = INFINITY;
    rng_seed(77);
    for (trial = 0; trial < 4000; trial++) {
        pair_ctx P;
        vec3 z, z0, gz = v3(0, 0, 0), v[4], Bv = v3(0, 0, 0);
        sym3 Dz = s3_zero();
        double lhs = 0, lhs_exact = 0, rhs;
        int j, ee = trial & 1;
        if (ee) {   /* EE weights (1−s, s, −(1−t), −t) */
            double sp = rnd(), t = rnd();
            P.beta[0] = 1 - sp; P.beta[1] = sp; P.beta[2] = t - 1; P.beta[3] = -t;
        } else {    /* VF weights (1, −b) with barycentric b, some corners tiny */
            double b0 = rnd_log(1e-3, 1), b1 = rnd_log(1e-3, 1), b2 = rnd_log(1e-3, 1), sb = b0 + b1 + b2;
            P.beta[0] = 1; P.beta[1] = -b0 / sb; P.beta[2] = -b1 / sb; P.beta[3] = -b2 / sb;
        }
        P.n = v3_unit(rnd_vec(1));
        for (j = 0; j < 4; j++) {
            P.y[j] = rnd_vec(0.1);
            P.x0[j] = v3_add(P.y[j], rnd_vec(0.01));
        }
        P.dhat = 0.05;
        P.k = rnd_log(1e2, 1e5);
        P.mu = rnd();
        P.eps = rnd_log(1e-5, 1e-2);
        z = contact_pair_combine(P.y, P.beta, 4);
        z0 = contact_pair_combine(P.x0, P.beta, 4);
        /* put the pair inside the band (gap in (−d̂/2, d̂)): shift vertex 0 along n */
        {
            double want = rndu(-0.5, 1) * P.dhat, d = v3_dot(P.n, z);
            P.y[0] = v3_axpy((want - d) / P.beta[0], P.n, P.y[0]);
            z = contact_pair_combine(P.y, P.beta, 4);
        }
        P.lam = rnd() < 0.3 ? 0 : P.k * P.dhat * rnd();
        contact_point_eval(z, z0, v3(0, 0, 0), P.n, 0, P.dhat, P.k, P.lam, P.mu, P.eps, &gz, &Dz);
        /* vertex l's gradient is β_l g_z (chain rule), against differences of the pair energy */
        for (l = 0; l < 4; l++) {
            vec3 fd, an = v3_scale(gz, P.beta[l]);
            double scale = v3_len(gz) * fabs(P.beta[l]) + 1e-12;
            P.l = l;
            fd = fd_gradient3(pair_E, &P, P.y[l], 1e-7);
            worst_g = fmax(worst_g, v3_len(v3_sub(fd, an)) / scale);
            ngrad += v3_len(v3_sub(fd, an)) <= 1e-4 * scale + 1e-9;
        }
        /* the Jacobi blocks |β_l| Σ|β| D_z majorise the pair's Hessian Bᵀ D_z B:
           Σ_l w_l v_lᵀ D_z v_l ≥ (Σ β_l v_l)ᵀ D_z (Σ β_l v_l) for any v; the exact diagonal
           blocks β_l² D_z do not */
        for (j = 0; j < 4; j++) {
            v[j] = rnd_vec(1);
            Bv = v3_axpy(P.beta[j], v[j], Bv);
            lhs += contact_pair_jacobi_weight(P.beta, 4, j) * v3_dot(v[j], s3_mulv(Dz, v[j]));
            lhs_exact += P.beta[j] * P.beta[j] * v3_dot(v[j], s3_mulv(Dz, v[j]));
        }
        rhs = v3_dot(Bv, s3_mulv(Dz, Bv));
        nmaj += lhs >= rhs * (1 - 1e-12);
        worst_maj = fmin(worst_maj, (lhs - rhs) / (fabs(rhs) + 1e-300));
        nexact_fails += lhs_exact < rhs * (1 - 1e-9);
    }
    printf("pair: vertex gradient β_l g_z == FD of the pair energy in %d of 16000 (worst rel %.2e); Jacobi blocks "
           "majorise the pair Hessian in %d of 4000 random directions (worst (lhs-rhs)/rhs %.2e); the exact "
           "β² blocks fail to in %d\n", ngrad, worst_g, nmaj, worst_maj, nexact_fails);
    CHECK(ngrad == 16000, "pair gradient differs from finite differences in %d cases (worst %g)", 16000 - ngrad,
          worst_g);
    CHECK(nmaj == 4000, "the Jacobi blocks fail to majorise in %d cases", 4000 - nmaj);
    CHECK(nexact_fails > 100, "expected the exact β² blocks to under-estimate often (%d)", nexact_fails);
}

/* ================================================================ main */
/* ================================================================ anchor (stick memory, issue 27) */
typedef struct { vec3 x0, o, n; double lam, mu, eps; } anchor_ctx;
static double anchor_E(vec3 y, const void *c)
{
    const anchor_ctx *f = (const anchor_ctx *)c;
    return friction_energy_off(y, f->x0, f->o, f->n, f->lam, f->mu, f->eps);
}

static void test_anchor(void)
{
    double worst_g = 0, worst_shift = 0, worst_fix = 0;
    int it, nclamp = 0, nkeep = 0;
    rng_seed(29);
    for (it = 0; it < 4000; it++) {
        anchor_ctx F;
        vec3 y, g = v3(0, 0, 0), gs = v3(0, 0, 0), gfd, u, a, t;
        sym3 D = s3_zero(), Ds = s3_zero();
        double s, err, ul;
        F.n = test_normal(it % 12);
        F.x0 = rnd_vec(2);
        F.lam = rnd_log(1e-2, 1e3);
        F.mu = rndu(0.05, 1);
        F.eps = rnd_log(1e-5, 1e-2);
        s = F.mu * F.lam;
        /* an offset in the tangent plane (|o| ≤ ε) plus a normal part that must not matter */
        F.o = v3_add(v3_scale(rnd_tangent(F.n), F.eps * rndu(0, 1)), v3_scale(F.n, F.eps * rndu(-5, 5)));
        y = v3_add(F.x0, v3_add(v3_scale(rnd_tangent(F.n), F.eps * rnd_log(1e-2, 20)), v3_scale(F.n, F.eps * rndu(-5, 5))));
        u = friction_slip_off(y, F.x0, F.o, F.n);
        if (fabs(v3_len(u) - F.eps) < 1e-3 * F.eps)
            continue;
        /* the gradient of the shifted energy vs central differences */
        friction_eval_off(y, F.x0, F.o, F.n, F.lam, F.mu, F.eps, &g, &D);
        gfd = fd_gradient3(anchor_E, &F, y, 1e-4 * F.eps);
        err = v3_len(v3_sub(gfd, g)) / s;
        worst_g = fmax(worst_g, err);
        CHECK(err <= 1e-5, "anchored friction gradient vs FD: rel err %.3e", err);
        CHECK(v3_len(g) <= s * (1 + 1e-12), "anchored |force| %.6e > μλ %.6e", v3_len(g), s);
        CHECK(fabs(v3_dot(g, F.n)) <= 1e-8 * s, "anchored friction force has a normal component");
        /* the same as the plain form with x0 moved by −o (up to round-off) */
        friction_eval(y, v3_sub(F.x0, F.o), F.n, F.lam, F.mu, F.eps, &gs, &Ds);
        err = v3_len(v3_sub(gs, g)) / s;
        worst_shift = fmax(worst_shift, err);
        CHECK(err <= 1e-6, "offset o != moving x0 by -o: rel err %.3e", err);
        /* the next anchor: the slip clamped to ε, tangent, dropped when not kept */
        a = friction_anchor_next(y, F.x0, F.o, F.n, F.eps, 1);
        ul = v3_len(u);
        CHECK(v3_len(a) <= F.eps * (1 + 1e-12), "|anchor| %.6e > ε %.6e", v3_len(a), F.eps);
        CHECK(fabs(v3_dot(a, F.n)) <= 1e-12 * F.eps + 1e-15, "anchor has a normal component");
        if (ul < F.eps) {
            CHECK(v3_len(v3_sub(a, u)) <= 1e-12 * F.eps, "sticking: anchor != slip");
            nkeep++;
        } else {
            CHECK(v3_len(v3_sub(a, v3_scale(u, F.eps / ul))) <= 1e-12 * F.eps, "sliding: anchor != ε û");
            nclamp++;
        }
        a = friction_anchor_next(y, F.x0, F.o, F.n, F.eps, 0);
        CHECK(a.v[0] == 0 && a.v[1] == 0 && a.v[2] == 0, "a dropped anchor is not 0");
        /* no creep: under a tangential load f_t = q μλ t (q < 1) the anchor o* with
           μλ f1(|o*|) = |f_t| makes y = x0 an equilibrium (load + friction gradient = 0) and is
           its own next anchor — the contact stays where it is, step after step.  Without the
           anchor (o = 0) y = x0 is not an equilibrium: the force there is 0 < |f_t|. */
        {
            double q = rndu(0.05, 0.95), r = F.eps * (1 - sqrt(1 - q));   /* f1(r) = q */
            vec3 gl = v3(0, 0, 0), g0 = v3(0, 0, 0), ostar, next;
            sym3 Dl = s3_zero(), D0 = s3_zero();
            t = rnd_tangent(F.n);
            ostar = v3_scale(t, r);
            friction_eval_off(F.x0, F.x0, ostar, F.n, F.lam, F.mu, F.eps, &gl, &Dl);
            gl = v3_axpy(-q * s, t, gl);   /* the load's gradient −f_t */
            err = v3_len(gl) / s;
            worst_fix = fmax(worst_fix, err);
            CHECK(err <= 1e-9, "anchored contact at rest under a load below μλ: residual %.3e", err);
            next = friction_anchor_next(F.x0, F.x0, ostar, F.n, F.eps, 1);
            CHECK(v3_len(v3_sub(next, ostar)) <= 1e-12 * F.eps, "the anchor at rest moved");
            friction_eval(F.x0, F.x0, F.n, F.lam, F.mu, F.eps, &g0, &D0);
            CHECK(v3_len(v3_axpy(-q * s, t, g0)) >= 0.99 * q * s, "without the anchor x0 was an equilibrium");
        }
    }
    CHECK(nkeep > 500 && nclamp > 500, "too few samples: %d sticking, %d sliding", nkeep, nclamp);
    printf("anchor: %d sticking, %d sliding samples; worst rel err: gradient %.3e, offset vs shifted x0 %.3e, "
           "equilibrium at rest %.3e\n", nkeep, nclamp, worst_g, worst_shift, worst_fix);
}

static const test_case cases[] = {
    {"plane", .run = test_plane},
    {"friction", .run = test_friction},
    {"descent", .run = test_descent},
    {"pair", .run = test_pair},
    {"anchor", .run = test_anchor},
};
static const test_program program = {"test_contact", TEST_CASES(cases), .all = 1,
                                     .note = "(" SIPD_REAL_NAME " physics)"};
TEST_MAIN(program)
