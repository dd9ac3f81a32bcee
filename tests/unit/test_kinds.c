/* test_kinds.c — element kinds beyond tetrahedra (springs, rods) against independent references.
 *
 *   fd          finite differences of the spring and rod-bending energies: gradients, the rod's
 *               curvature Jacobian, the element Hessians where they are exact (a stretched
 *               spring; a straight rod, where the Gauss–Newton term is the whole Hessian), PSD
 *               of the projected Hessians on random and compressed configurations, the
 *               per-corner blocks equal to the Hessians' diagonal blocks, |κb| = 2 tan(φ/2)
 *   cantilever  a clamped rod under its weight, quasi-static Newton: the tip deflection against
 *               Euler–Bernoulli q L⁴ / (8 E I) within 1% at 20 and 40 segments, the error
 *               shrinking under refinement
 *   chain       a hanging chain (springs between two pinned ends, 1.2 m over a 1 m span) settles
 *               to the analytic catenary's sag within 0.5%
 *   methods     every method (sipd Jacobi+Chebyshev, sign split, Gauss–Seidel, vbd,
 *               block-jacobi, diag-jacobi, gd) reaches Newton's solution of the same steps
 *               within 1e-4 of the model size: a swinging rod (springs + bending) and a tet
 *               beam as springs
 *   strip       a clamped strip (ν = 0, dihedral hinges) against plate theory q L⁴ / (8 D), 60 x 4 and 60 x 10
 *   membrane    quasi-static uniaxial membrane stretch against the analytic stable neo-Hookean
 *               membrane (20%), and the plane-stress Poisson ratio at 0.1%
 *   cloth_methods [MODEL]  every method against Newton on a cloth pinned at two corners, with the
 *               membrane model MODEL (default stable-neohookean)
 *   meshes DIR  the gmsh cloth and rod fixtures in four formats as bodies
 *   model       a springs body keeps its tet mesh's lumped masses; a rod's masses are ρπr²L/2
 *               per segment end; the element counts; scene errors for the kind keys
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "physics/bend.h"
#include "physics/edge.h"
#include "physics/tri.h"
#include "physics/eig.h"
#include "fixture.h"
#include "runner.h"
#include "fd.h"
#include "rng.h"

#define PI 3.14159265358979323846

/* smallest eigenvalue of a symmetric n x n matrix (row-major) */
static double min_eig(int n, const double *A)
{
    double B[144], ev[12], V[144];
    int i;
    for (i = 0; i < n * n; i++) B[i] = A[i];
    sym_eig(n, B, ev, V);
    double m = ev[0];
    for (i = 1; i < n; i++) m = ev[i] < m ? ev[i] : m;
    return m;
}

static double spring_E(const double *x, const double *r) { return spring_energy(r[0], r[1], v3_load(x), v3_load(x + 3)); }
static double bend_E(const double *x, const double *r)
{
    return rod_bend_energy(r[0], r[1], v3_load(x), v3_load(x + 3), v3_load(x + 6));
}
static void spring_G(const double *x, const double *r, double *g)
{
    vec3 g0 = spring_gradient0(r[0], r[1], v3_load(x), v3_load(x + 3));
    v3_store(g, g0);
    v3_store(g + 3, v3_scale(g0, -1));
}
static void bend_G(const double *x, const double *r, double *g)
{
    vec3 gr[3];
    int a;
    rod_bend_element(r[0], r[1], v3_load(x), v3_load(x + 3), v3_load(x + 6), gr, NULL);
    for (a = 0; a < 3; a++) v3_store(g + 3 * a, gr[a]);
}

/* an element's energy and gradient with its rest data r, as fd.h's functions of x alone */
typedef struct {
    double (*E)(const double *, const double *);
    void (*G)(const double *, const double *, double *);
    const double *r;
} elem_fn;
static double elem_E(const double *x, const void *c) { const elem_fn *f = c; return f->E(x, f->r); }
static void elem_G(const double *x, const void *c, double *g) { const elem_fn *f = c; f->G(x, f->r, g); }

/* max relative error of the analytic gradient against central differences of the energy */
static double fd_grad_err(int n, const double *x, const double *r, double (*E)(const double *, const double *),
                          void (*G)(const double *, const double *, double *))
{
    elem_fn f = {E, G, r};
    double g[12], gf[12];
    G(x, r, g);
    fd_gradient(n, x, 1e-6, elem_E, &f, gf);
    return fd_rel_err(n, gf, g);
}

/* central-difference Hessian of the analytic gradient, n x n */
static void fd_hess(int n, const double *x, const double *r, void (*G)(const double *, const double *, double *),
                    double *H)
{
    elem_fn f = {NULL, G, r};
    fd_jacobian(n, n, x, 1e-6, elem_G, &f, H);
}

static double mat_rel_diff(int n, const double *A, const double *B) { return fd_rel_err(n * n, A, B); }

static void test_fd(void)
{
    test_rng rng = rng_make(7);
    double worst_g = 0, worst_J = 0, worst_H = 0, worst_psd = 0, worst_blk = 0;
    int t, i, a;
    for (t = 0; t < 200; t++) {
        double x[9], r[2], H[81], Hf[81];
        for (i = 0; i < 9; i++) x[i] = rng_uniform(&rng) - 0.5;
        /* spring: random rest length (stretched or compressed) */
        r[0] = 0.2 + 1.5 * rng_uniform(&rng);
        r[1] = 10 + 100 * rng_uniform(&rng);
        double eg = fd_grad_err(6, x, r, spring_E, spring_G);
        worst_g = eg > worst_g ? eg : worst_g;
        spring_element_hessian(r[0], r[1], v3_load(x), v3_load(x + 3), H);
        {
            double l = sqrt(v3_norm2(v3_sub(v3_load(x + 3), v3_load(x))));
            double me = min_eig(6, H);
            worst_psd = -me / r[1] > worst_psd ? -me / r[1] : worst_psd;
            if (l > r[0]) {   /* stretched: the PSD form is the exact Hessian */
                fd_hess(6, x, r, spring_G, Hf);
                double d = mat_rel_diff(6, H, Hf);
                worst_H = d > worst_H ? d : worst_H;
            }
            sym3 B = spring_block_psd(r[0], r[1], v3_load(x), v3_load(x + 3));
            mat3 Bm = s3_to_m3(B);
            for (i = 0; i < 9; i++) {
                double d = fabs(Bm.m[i] - H[6 * (i / 3) + i % 3]) / r[1];
                worst_blk = d > worst_blk ? d : worst_blk;
            }
        }
        /* rod bending: random rest curvature (0 half the time) */
        r[0] = t % 2 ? 0 : 2 * rng_uniform(&rng);
        r[1] = 0.1 + rng_uniform(&rng);
        eg = fd_grad_err(9, x, r, bend_E, bend_G);
        worst_g = eg > worst_g ? eg : worst_g;
        {   /* the curvature Jacobian against differences of κb */
            mat3 J[3];
            double xp[9], h = 1e-6, jmax = 1e-300, jerr = 0;
            rod_kappa(v3_load(x), v3_load(x + 3), v3_load(x + 6), J);
            for (a = 0; a < 3; a++)
                for (i = 0; i < 9; i++) jmax = fabs(J[a].m[i]) > jmax ? fabs(J[a].m[i]) : jmax;
            for (i = 0; i < 9; i++) {
                vec3 kp, km;
                int c;
                memcpy(xp, x, sizeof xp);
                xp[i] += h;
                kp = rod_kappa(v3_load(xp), v3_load(xp + 3), v3_load(xp + 6), NULL);
                xp[i] -= 2 * h;
                km = rod_kappa(v3_load(xp), v3_load(xp + 3), v3_load(xp + 6), NULL);
                for (c = 0; c < 3; c++) {
                    double d = fabs((kp.v[c] - km.v[c]) / (2 * h) - J[i / 3].m[3 * c + i % 3]) / jmax;
                    jerr = d > jerr ? d : jerr;
                }
            }
            worst_J = jerr > worst_J ? jerr : worst_J;
        }
        rod_bend_element_hessian(r[0], r[1], v3_load(x), v3_load(x + 3), v3_load(x + 6), H);
        {
            double me = min_eig(9, H), hmax = 0;
            vec3 gr[3];
            sym3 B[3];
            for (i = 0; i < 81; i++) hmax = fabs(H[i]) > hmax ? fabs(H[i]) : hmax;
            worst_psd = -me / hmax > worst_psd ? -me / hmax : worst_psd;
            rod_bend_element(r[0], r[1], v3_load(x), v3_load(x + 3), v3_load(x + 6), gr, B);
            for (a = 0; a < 3; a++) {
                mat3 Bm = s3_to_m3(B[a]);
                for (i = 0; i < 9; i++) {
                    double d = fabs(Bm.m[i] - H[9 * (3 * a + i / 3) + 3 * a + i % 3]) / hmax;
                    worst_blk = d > worst_blk ? d : worst_blk;
                }
            }
        }
    }
    printf("fd: worst gradient error %.3e, curvature Jacobian %.3e, exact Hessians %.3e, PSD defect %.3e, "
           "blocks vs Hessian diagonal %.3e\n", worst_g, worst_J, worst_H, worst_psd, worst_blk);
    CHECK(worst_g < 1e-6, "gradient vs finite differences: %.3e", worst_g);
    CHECK(worst_J < 1e-6, "curvature Jacobian vs finite differences: %.3e", worst_J);
    CHECK(worst_H < 1e-6, "stretched spring Hessian vs finite differences: %.3e", worst_H);
    CHECK(worst_psd < 1e-12, "projected Hessian not PSD: %.3e", worst_psd);
    CHECK(worst_blk < 1e-14, "per-corner blocks differ from the Hessian's diagonal blocks: %.3e", worst_blk);
    {   /* a straight rod (random direction, random spacing): κb = 0, the Gauss–Newton Hessian is exact */
        double worst = 0;
        for (t = 0; t < 20; t++) {
            double x[9], r[2] = {0, 0.5 + rng_uniform(&rng)}, H[81], Hf[81], d[3], s1 = 0.3 + rng_uniform(&rng),
                   s2 = 0.3 + rng_uniform(&rng), n = 0;
            for (i = 0; i < 3; i++) {
                d[i] = rng_uniform(&rng) - 0.5;
                n += d[i] * d[i];
            }
            n = sqrt(n);
            for (i = 0; i < 3; i++) {
                x[i] = rng_uniform(&rng);
                x[3 + i] = x[i] + s1 * d[i] / n;
                x[6 + i] = x[3 + i] + s2 * d[i] / n;
            }
            rod_bend_element_hessian(r[0], r[1], v3_load(x), v3_load(x + 3), v3_load(x + 6), H);
            fd_hess(9, x, r, bend_G, Hf);
            double e = mat_rel_diff(9, H, Hf);
            worst = e > worst ? e : worst;
        }
        printf("fd: straight rod, Hessian vs finite differences %.3e\n", worst);
        CHECK(worst < 1e-6, "straight-rod bending Hessian vs finite differences: %.3e", worst);
    }
    {   /* |κb| = 2 tan(φ/2) for the turning angle φ */
        double worst = 0, phi;
        for (phi = 0.05; phi < 3.0; phi += 0.1) {
            vec3 kv = rod_kappa(v3(0, 0, 0), v3(1, 0, 0), v3(1 + 2 * cos(phi), 2 * sin(phi), 0), NULL);
            double e = fabs(sqrt(v3_norm2(kv)) - 2 * tan(phi / 2)) / (2 * tan(phi / 2));
            worst = e > worst ? e : worst;
        }
        CHECK(worst < 1e-12, "|kappa b| != 2 tan(phi/2): %.3e", worst);
    }
}

/* ---- triangles and hinges -------------------------------------------------------------- */

static sipd_material tmat;
static void F_from(const double *x, vec3 *f0, vec3 *f1)
{
    *f0 = v3_load(x);
    *f1 = v3_load(x + 3);
}
static double membrane_psi(const double *x, const double *r)
{
    vec3 f0, f1;
    (void)r;
    F_from(x, &f0, &f1);
    return tri_psi(&tmat, f0, f1);
}
/* P in the vec order of tri_dPdF: index 2i + j (row i, column j) */
static void membrane_P(const double *x, const double *r, double *g)
{
    vec3 f0, f1, p0, p1;
    int i;
    (void)r;
    F_from(x, &f0, &f1);
    tri_eval(&tmat, 0, f0, f1, &p0, &p1, NULL);
    for (i = 0; i < 3; i++) {
        g[2 * i] = p0.v[i];
        g[2 * i + 1] = p1.v[i];
    }
}
/* the same with x in vec order (2i + j) */
static double membrane_psi_vec(const double *x, const double *r)
{
    double y[6];
    int i;
    for (i = 0; i < 3; i++) {
        y[i] = x[2 * i];
        y[3 + i] = x[2 * i + 1];
    }
    return membrane_psi(y, r);
}
static void membrane_P_vec(const double *x, const double *r, double *g)
{
    double y[6];
    int i;
    for (i = 0; i < 3; i++) {
        y[i] = x[2 * i];
        y[3 + i] = x[2 * i + 1];
    }
    membrane_P(y, r, g);
}
static double tri_E(const double *x, const double *r)
{
    return tri_energy(&tmat, r, r[4], v3_load(x), v3_load(x + 3), v3_load(x + 6));
}
static void tri_G(const double *x, const double *r, double *g)
{
    vec3 gr[3];
    sym3 K;
    int a;
    tri_element(&tmat, 0, r, r[4], v3_load(x), v3_load(x + 3), v3_load(x + 6), gr, &K);
    for (a = 0; a < 3; a++) v3_store(g + 3 * a, gr[a]);
}
static double hinge_E(const double *x, const double *r)
{
    return hinge_energy(r[0], r[1], v3_load(x), v3_load(x + 3), v3_load(x + 6), v3_load(x + 9));
}
static void hinge_G(const double *x, const double *r, double *g)
{
    vec3 gr[4];
    int a;
    hinge_element(r[0], r[1], v3_load(x), v3_load(x + 3), v3_load(x + 6), v3_load(x + 9), gr, NULL);
    for (a = 0; a < 4; a++) v3_store(g + 3 * a, gr[a]);
}
static double theta_E(const double *x, const double *r)
{
    (void)r;
    return hinge_theta(v3_load(x), v3_load(x + 3), v3_load(x + 6), v3_load(x + 9));
}
static void theta_G(const double *x, const double *r, double *g)
{
    vec3 gr[4];
    int a;
    (void)r;
    hinge_grad_theta(v3_load(x), v3_load(x + 3), v3_load(x + 6), v3_load(x + 9), gr);
    for (a = 0; a < 4; a++) v3_store(g + 3 * a, gr[a]);
}

static void test_fd_shell(void)
{
    test_rng rng = rng_make(11);
    double wP = 0, wdP = 0, wg = 0, wth = 0, whg = 0, wpsd = 0, wKF = 0, wblk = 0;
    int t, i, a, sp;
    tmat = tri_material(SIPD_MAT_STABLE_NEOHOOKEAN, 1e5, 0.3);
    for (t = 0; t < 200; t++) {
        double x[12], r[5], H[36], Hf[36];
        for (i = 0; i < 12; i++) x[i] = 2 * rng_uniform(&rng) - 1;
        if (t % 4 == 1)   /* near-singular F: f1 almost parallel to f0 */
            for (i = 0; i < 3; i++) x[3 + i] = 0.7 * x[i] + 1e-4 * x[3 + i];
        /* P against finite differences of Ψ, ∂P/∂F against differences of P */
        double e;
        {
            double xv[6];
            vec3 f0, f1;
            for (i = 0; i < 3; i++) {
                xv[2 * i] = x[i];
                xv[2 * i + 1] = x[3 + i];
            }
            F_from(x, &f0, &f1);
            tri_dPdF(&tmat, f0, f1, 0, H);
            if (t % 4 != 1) {   /* ∂²J/∂F² ~ 1/J: finite differences are meaningless near J = 0 */
                fd_hess(6, xv, r, membrane_P_vec, Hf);
                e = mat_rel_diff(6, H, Hf);
                wdP = e > wdP ? e : wdP;
                e = fd_grad_err(6, xv, r, membrane_psi_vec, membrane_P_vec);
                wP = e > wP ? e : wP;
            }
            /* K⁺ PSD for every split but none; K F = P for none (the pairwise identity) */
            for (sp = 0; sp < 5; sp++) {
                vec3 p0, p1;
                sym3 K;
                tri_eval(&tmat, sp, f0, f1, &p0, &p1, &K);
                if (sp == SIPD_SPLIT_NONE) {
                    vec3 k0 = s3_mulv(K, f0), k1 = s3_mulv(K, f1);
                    double pn = sqrt(v3_norm2(p0) + v3_norm2(p1)) + 1e-300;
                    e = sqrt(v3_norm2(v3_sub(k0, p0)) + v3_norm2(v3_sub(k1, p1))) / pn;
                    if (t % 4 != 1)
                        wKF = e > wKF ? e : wKF;
                } else {
                    vec3 ev;
                    mat3 V;
                    s3_eig(K, &ev, &V);
                    for (i = 0; i < 3; i++) wpsd = -ev.v[i] / tmat.mu > wpsd ? -ev.v[i] / tmat.mu : wpsd;
                }
            }
            tri_dPdF(&tmat, f0, f1, 1, H);
            e = -min_eig(6, H) / tmat.mu;
            wpsd = e > wpsd ? e : wpsd;
        }
        /* element gradient on a random rest triangle */
        if (tri_rest(v3(0, 0, 0), v3(1 + rng_uniform(&rng), 0.1, 0), v3(0.3, 0.8 + rng_uniform(&rng), 0.2), r) > 0) {
            r[4] = 0.01 + rng_uniform(&rng);
            e = fd_grad_err(9, x, r, tri_E, tri_G);
            wg = e > wg ? e : wg;
            {   /* the per-vertex PSD block is the diagonal block of the element Hessian */
                vec3 f0, f1;
                double He[81], hm = 0;
                tri_F(r, v3_load(x), v3_load(x + 3), v3_load(x + 6), &f0, &f1);
                tri_element_hessian(&tmat, r, r[4], f0, f1, He);
                for (i = 0; i < 81; i++) hm = fabs(He[i]) > hm ? fabs(He[i]) : hm;
                e = -min_eig(9, He) / hm;
                wpsd = e > wpsd ? e : wpsd;
                for (a = 0; a < 3; a++) {
                    mat3 B = s3_to_m3(tri_vertex_block_psd(&tmat, r, r[4], f0, f1, a));
                    for (i = 0; i < 9; i++) {
                        e = fabs(B.m[i] - He[9 * (3 * a + i / 3) + 3 * a + i % 3]) / hm;
                        wblk = e > wblk ? e : wblk;
                    }
                }
            }
        }
        /* hinge: θ and the energy against finite differences (away from the atan2 branch cut) */
        if (fabs(theta_E(x, r)) < 3.0) {
            double rr[2] = {0.3 * (rng_uniform(&rng) - 0.5), 0.5 + rng_uniform(&rng)}, Hh[144];
            e = fd_grad_err(12, x, rr, theta_E, theta_G);
            wth = e > wth ? e : wth;
            e = fd_grad_err(12, x, rr, hinge_E, hinge_G);
            whg = e > whg ? e : whg;
            hinge_element_hessian(rr[1], v3_load(x), v3_load(x + 3), v3_load(x + 6), v3_load(x + 9), Hh);
            double hm = 1e-300;
            for (i = 0; i < 144; i++) hm = fabs(Hh[i]) > hm ? fabs(Hh[i]) : hm;
            e = -min_eig(12, Hh) / hm;
            wpsd = e > wpsd ? e : wpsd;
        }
    }
    printf("fd shell: P %.3e, dP/dF %.3e, element gradient %.3e, K F = P (none) %.3e, PSD defect %.3e, blocks %.3e, "
           "theta %.3e, hinge gradient %.3e\n", wP, wdP, wg, wKF, wpsd, wblk, wth, whg);
    CHECK(wP < 1e-6, "membrane P vs finite differences: %.3e", wP);
    CHECK(wdP < 1e-5, "membrane dP/dF vs finite differences: %.3e", wdP);
    CHECK(wg < 1e-6, "triangle gradient vs finite differences: %.3e", wg);
    CHECK(wKF < 1e-10, "membrane K F != P: %.3e", wKF);
    CHECK(wpsd < 1e-10, "membrane K+ / projected Hessians not PSD: %.3e", wpsd);
    CHECK(wblk < 1e-13, "triangle vertex blocks vs Hessian diagonal: %.3e", wblk);
    CHECK(wth < 1e-6, "dihedral angle gradient vs finite differences: %.3e", wth);
    CHECK(whg < 1e-6, "hinge energy gradient vs finite differences: %.3e", whg);
    {   /* θ of a known fold: triangles at ±90° fold angle */
        double th = hinge_theta(v3(0, 0, 0), v3(1, 0, 0), v3(0.5, 1, 0), v3(0.5, 0, 1));
        CHECK(fabs(fabs(th) - PI / 2) < 1e-14, "fold angle %.17g, expected pi/2", th);
        th = hinge_theta(v3(0, 0, 0), v3(1, 0, 0), v3(0.5, 1, 0), v3(0.5, -1, 0));
        CHECK(fabs(th) < 1e-14, "flat hinge angle %.3e", th);
    }
}

/* ------------------------------------------------------------------------------------- */

/* Tip deflection of a clamped rod of n segments (quasi-static Newton) over q L⁴ / (8 E I).  The
 * clamp: the two pinned vertices straddle x = 0 at ∓h/2 (the bending energy of the second one
 * covers [0, h]; pinning x = 0 and x = h instead clamps the beam at −h/2, an O(h) error). */
static double cantilever_ratio(int n)
{
    const double L = 1.0, E = 1e9, r = 0.01, rho = 1000, g = 0.981, h = L / (n - 0.5);
    const double I = PI * pow(r, 4) / 4, q = rho * PI * r * r * g, ref = q * pow(L, 4) / (8 * E * I);
    char text[2048];
    fixture f;
    sipd_solve_result res;
    double *x, ratio;
    snprintf(text, sizeof text,
             "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
             "solver = { method = \"newton\"; iterations = 100; tolerance = 1.0e-6; };\n"
             "gravity = [0.0, %.17e, 0.0];\n"
             "materials = ( { name = \"steel\"; youngs = %.17e; poisson = 0.3; density = %.17e; } );\n"
             "bodies = ( { generate = { shape = \"rod\"; length = %.17e; segments = %d; };\n"
             "  translate = [%.17e, 0.0, 0.0]; material = \"steel\"; radius = %.17e;\n"
             "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [%.17e, 1.0, 1.0]; }; } );\n",
             -g, E, rho, L + h / 2, n, -h / 2, r, h / 2 + 1e-9);
    if (fixture_load(&f, text)) {
        CHECK(0, "cantilever setup failed (n = %d)", n);
        return NAN;
    }
    CHECK(sim_step(&f.s, 1.0, &res) == SIPD_OK, "cantilever step failed");
    CHECK(res.converged, "cantilever (n = %d): Newton did not converge (residual %.3e)", n, res.residual);
    x = malloc(sizeof(double) * 3 * f.m.nv);
    f.s.ops->download(f.s.b, x, NULL);
    ratio = -x[3 * (f.m.nv - 1) + 1] / ref;
    printf("cantilever: %d segments: tip deflection %.6e m, Euler-Bernoulli %.6e m, ratio %.5f\n", n,
           -x[3 * (f.m.nv - 1) + 1], ref, ratio);
    free(x);
    fixture_free(&f);
    return ratio;
}

static void test_cantilever(void)
{
    double r20 = cantilever_ratio(20), r40 = cantilever_ratio(40);
    CHECK(fabs(r20 - 1) < 0.01, "20 segments: tip deflection ratio %.5f (Euler-Bernoulli 1)", r20);
    CHECK(fabs(r40 - 1) < 0.01, "40 segments: tip deflection ratio %.5f (Euler-Bernoulli 1)", r40);
    CHECK(fabs(r40 - 1) < fabs(r20 - 1), "no convergence under refinement: %.5f -> %.5f", r20, r40);
}

/* ------------------------------------------------------------------------------------- */

static void test_chain(void)
{
    const double S = 1.2, D = 1.0;
    double lo = 0.01, hi = 10, a = 1, sag, *x, *xp, moved = 0;
    int i, fr, mid;
    fixture f;
    sipd_solve_result res;
    /* strong backward-Euler damping (h = 0.5 s against a swing period of ~2 s) brings it to rest */
    const char *text =
        "time = { dt = 0.5; frames = 40; };\n"
        "solver = { method = \"newton\"; iterations = 200; tolerance = 1.0e-7; };\n"
        "gravity = [0.0, -9.81, 0.0];\n"
        "materials = ( { name = \"steel\"; youngs = 1.0e9; poisson = 0.3; density = 1000.0; } );\n"
        "bodies = ( { generate = { shape = \"rod\"; length = 1.2; segments = 40; }; elements = \"springs\";\n"
        "  material = \"steel\"; initial_stretch = [0.8333333333333334, 1.0, 1.0];\n"
        "  pin = ( { box_min = [-1.0, -1.0, -1.0]; box_max = [0.1001, 1.0, 1.0]; },\n"
        "          { box_min = [1.0999, -1.0, -1.0]; box_max = [2.0, 1.0, 1.0]; } ); } );\n";
    for (i = 0; i < 200; i++) {   /* catenary y = a cosh(x/a): 2a sinh(D/2a) = S */
        a = (lo + hi) / 2;
        if (2 * a * sinh(D / (2 * a)) > S)
            lo = a;
        else
            hi = a;
    }
    sag = a * cosh(D / (2 * a)) - a;
    if (fixture_load(&f, text)) {
        CHECK(0, "chain setup failed");
        return;
    }
    CHECK(f.m.group_of[SIPD_KIND_EDGE] >= 0 && f.m.group_of[SIPD_KIND_ROD_BEND] < 0,
          "a springs chain has springs and no bending");
    x = malloc(sizeof(double) * 6 * f.m.nv);
    xp = x + 3 * f.m.nv;
    for (fr = 0; fr < 40; fr++) {
        f.s.ops->download(f.s.b, xp, NULL);
        CHECK(sim_step(&f.s, 0.5, &res) == SIPD_OK, "chain step failed");
    }
    f.s.ops->download(f.s.b, x, NULL);
    for (i = 0; i < 3 * f.m.nv; i++) moved = fabs(x[i] - xp[i]) > moved ? fabs(x[i] - xp[i]) : moved;
    mid = f.m.nv / 2;
    printf("chain: sag %.6f m (catenary %.6f m, relative error %.2e); last step moved %.2e m\n", -x[3 * mid + 1], sag,
           fabs(-x[3 * mid + 1] - sag) / sag, moved);
    CHECK(fabs(-x[3 * mid + 1] - sag) < 5e-3 * sag, "chain sag %.6f against the catenary's %.6f", -x[3 * mid + 1], sag);
    CHECK(moved < 1e-6, "the chain has not come to rest: %.3e m in the last step", moved);
    free(x);
    fixture_free(&f);
}

/* ------------------------------------------------------------------------------------- */

static void test_methods(void)
{
    static const char *bodies[2] = {
        /* a soft rope clamped at one end (two pinned vertices), swinging down: springs + bending */
        "gravity = [0.0, -9.81, 0.0];\n"
        "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );\n"
        "bodies = ( { generate = { shape = \"rod\"; length = 1.0; segments = 10; }; material = \"m\"; radius = 0.01;\n"
        "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.11, 1.0, 1.0]; }; } );\n",
        /* a tet beam as springs along its edges, clamped at x = 0, under 10 g */
        "gravity = [0.0, -98.1, 0.0];\n"
        "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );\n"
        "bodies = ( { mesh = \"%s\"; material = \"m\"; elements = \"springs\"; radius = 0.01;\n"
        "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n"};
    static const char *names[2] = {"rod", "springs beam"};
    static const char *methods[] = {
        "method = \"newton\";",
        "method = \"sipd\"; sweep = \"jacobi\"; chebyshev = true;",
        "method = \"sipd\"; sweep = \"jacobi\"; projection = \"sign\";",
        "method = \"sipd\"; sweep = \"gauss-seidel\";",
        "method = \"vbd\";",
        "method = \"block-jacobi\";",
        "method = \"diag-jacobi\"; chebyshev = true;",
        "method = \"gd\"; chebyshev = true;",
    };
    const int nmeth = (int)(sizeof methods / sizeof methods[0]);
    char base[600];
    int c, k;
    if (write_box(base, sizeof base, 8, 2, 2, 1.0, 0.2, 0.2)) {
        CHECK(0, "box mesh");
        return;
    }
    for (c = 0; c < 2; c++) {
        double *ref = NULL;
        for (k = 0; k < nmeth; k++) {
            fixture f;
            sipd_solve_result r;
            char body[2048], text[4096];
            double *x, dmax = 0;
            int a, step, ok = 1;
            snprintf(body, sizeof body, bodies[c], base);
            snprintf(text, sizeof text,
                     "time = { dt = 0.0166667; frames = 3; };\n"
                     "solver = { %s iterations = 20000; tolerance = %s; line_search = \"always\"; };\n%s",
                     methods[k], k == 0 ? "1.0e-10" : "1.0e-7", body);
            if (fixture_load(&f, text)) {
                CHECK(0, "%s: setup failed", names[c]);
                return;
            }
            for (step = 0; step < 3; step++) {
                CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "%s: step failed", names[c]);
                /* Newton must converge; the others may end at the cap (plain Jacobi variants are
                   slow), but never diverge: their positions are what is checked */
                ok = ok && (k == 0 ? (r.converged || r.status == SIPD_SOLVE_STALLED) : r.status != SIPD_SOLVE_DIVERGED);
            }
            CHECK(ok, "%s, %s: a solve %s", names[c], methods[k], k == 0 ? "did not converge" : "diverged");
            x = malloc(sizeof(double) * 3 * f.m.nv);
            f.s.ops->download(f.s.b, x, NULL);
            if (k == 0) {
                ref = x;
            } else {
                for (a = 0; a < 3 * f.m.nv; a++) dmax = fabs(x[a] - ref[a]) > dmax ? fabs(x[a] - ref[a]) : dmax;
                printf("methods: %s, %s: max |x - x_newton| / diag = %.3e (last residual %.2e, %d iterations)\n",
                       names[c], methods[k], dmax / f.m.bbox_diag, r.residual, r.iterations);
                CHECK(dmax / f.m.bbox_diag < 1e-4, "%s, %s: %.3e of the model size from Newton", names[c], methods[k],
                      dmax / f.m.bbox_diag);
                free(x);
            }
            fixture_free(&f);
        }
        free(ref);
    }
}

/* ---- shells ------------------------------------------------------------------------------ */

/* Clamped strip (ν = 0, generated cloth of nx x nz cells, quasi-static Newton) with the dihedral
 * hinges (the mid-edge bending: tests/unit/test_midedge.c): the mean tip
 * deflection over q L⁴ / (8 D), D = E t³/12; the clamp as for the rod (the two pinned columns
 * straddle x = 0 at ∓a/2). */
static double strip_ratio(int nx, int nz)
{
    const double L = 1.0, W = 1.0 / 6, E = 1e8, t = 0.01, rho = 1000, g = 0.0981, a = L / (nx - 0.5);
    const double D = E * t * t * t / 12, ref = rho * t * g * pow(L, 4) / (8 * D);
    char text[2048];
    fixture f;
    sipd_solve_result res;
    double *x, tip = 0;
    int k;
    snprintf(text, sizeof text,
             "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
             "solver = { method = \"newton\"; iterations = 100; tolerance = 1.0e-6; };\n"
             "gravity = [0.0, %.17e, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = %.17e; poisson = 0.0; density = %.17e; } );\n"
             "bodies = ( { generate = { shape = \"cloth\"; size = [%.17e, %.17e]; cells = [%d, %d]; };\n"
             "  thickness = %.17e; translate = [%.17e, 0.0, 0.0]; material = \"m\"; bending = \"dihedral\";\n"
             "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [%.17e, 1.0, 1.0]; }; } );\n",
             -g, E, rho, L + a / 2, W, nx, nz, t, -a / 2, a / 2 + 1e-9);
    if (fixture_load(&f, text)) {
        CHECK(0, "strip setup failed");
        return NAN;
    }
    CHECK(f.m.group_of[SIPD_KIND_TRI] >= 0 && f.m.group_of[SIPD_KIND_HINGE] >= 0, "a cloth has triangles and hinges");
    CHECK(sim_step(&f.s, 1.0, &res) == SIPD_OK, "strip step failed");
    CHECK(res.converged, "strip %dx%d: Newton did not converge (residual %.3e)", nx, nz, res.residual);
    x = malloc(sizeof(double) * 3 * f.m.nv);
    f.s.ops->download(f.s.b, x, NULL);
    for (k = 0; k <= nz; k++) tip += -x[3 * (nx + (nx + 1) * k) + 1] / (nz + 1);
    printf("strip %d x %d: mean tip deflection %.6e m, plate theory q L^4 / (8 D) %.6e m, ratio %.5f\n", nx, nz, tip,
           ref, tip / ref);
    free(x);
    fixture_free(&f);
    return tip / ref;
}

static void test_strip(void)
{
    double r4 = strip_ratio(60, 4), r10 = strip_ratio(60, 10);
    CHECK(fabs(r10 - 1) < 0.05, "60 x 10 strip: tip deflection ratio %.5f (plate theory 1)", r10);
    CHECK(fabs(r10 - 1) < fabs(r4 - 1), "no convergence under refinement: 60x4 %.5f -> 60x10 %.5f", r4, r10);
}

/* Quasi-static uniaxial stretch of a membrane strip by 20%: the lateral stretch in the middle
 * against the stable neo-Hookean membrane's analytic λ2 = λ'αλ1/(μ + λ'λ1²) (lateral stress zero,
 * the measured λ1 there); and at 0.1% the small-strain Poisson ratio ν of plane stress. */
static void test_membrane(void)
{
    const double E = 1e5, nu = 0.3, stretch[2] = {0.2, 0.001};
    int c;
    for (c = 0; c < 2; c++) {
        char text[2048];
        fixture f;
        sipd_solve_result res;
        double *x;
        const int n = 41, i = 20;
        snprintf(text, sizeof text,
                 "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
                 "solver = { method = \"newton\"; iterations = 200; tolerance = 1.0e-9; };\n"
                 "gravity = [0.0, 0.0, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = %.17e; poisson = %.17e; density = 1000.0; } );\n"
                 "bodies = ( { generate = { shape = \"cloth\"; size = [1.0, 0.1]; cells = [40, 4]; }; material = \"m\";\n"
                 "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.001, 1.0, 1.0]; };\n"
                 "  move = { box_min = [0.999, -1.0, -1.0]; box_max = [1.1, 1.0, 1.0]; velocity = [%.17e, 0.0, 0.0]; }; } );\n",
                 E, nu, stretch[c]);
        if (fixture_load(&f, text)) {
            CHECK(0, "membrane setup failed");
            return;
        }
        CHECK(sim_step(&f.s, 1.0, &res) == SIPD_OK && res.converged, "membrane: Newton did not converge");
        x = malloc(sizeof(double) * 3 * f.m.nv);
        f.s.ops->download(f.s.b, x, NULL);
        {
            const double mu = E / (2 * (1 + nu)), lp = E * nu / (1 - nu * nu) + mu, al = 1 + mu / lp;
            double l1 = (x[3 * (i + 1)] - x[3 * (i - 1)]) / (f.m.X[3 * (i + 1)] - f.m.X[3 * (i - 1)]);
            double l2 = (x[3 * (4 * n + i) + 2] - x[3 * i + 2]) / 0.1, l2a = lp * al * l1 / (mu + lp * l1 * l1);
            printf("membrane: stretch %.4f: lateral stretch %.8f, analytic %.8f", l1, l2, l2a);
            CHECK(fabs(l2 - l2a) < 1e-6, "membrane lateral stretch %.8f against the analytic %.8f", l2, l2a);
            if (c == 1) {
                double nu_eff = -(l2 - 1) / (l1 - 1);
                printf(", small-strain Poisson ratio %.5f (nu %.2f)", nu_eff, nu);
                CHECK(fabs(nu_eff - nu) < 2e-3, "plane-stress Poisson ratio %.5f, expected %.2f", nu_eff, nu);
            }
            printf("\n");
        }
        free(x);
        fixture_free(&f);
    }
}

/* Every method reaches Newton's solution of the same steps on a cloth pinned at two corners, with
 * the membrane model `model` (a materials[].model name; the default stable neo-Hookean when NULL). */
static void test_cloth_methods(const char *model)
{
    static const char *methods[] = {
        "method = \"newton\";",
        "method = \"sipd\"; sweep = \"jacobi\"; chebyshev = true;",
        "method = \"sipd\"; sweep = \"jacobi\"; projection = \"sign\";",
        "method = \"sipd\"; sweep = \"gauss-seidel\";",
        "method = \"vbd\";",
        "method = \"block-jacobi\";",
        "method = \"diag-jacobi\"; chebyshev = true;",
        "method = \"gd\"; chebyshev = true;",
    };
    const int nmeth = (int)(sizeof methods / sizeof methods[0]);
    double *ref = NULL;
    int k;
    for (k = 0; k < nmeth; k++) {
        fixture f;
        sipd_solve_result r;
        char text[4096];
        double *x, dmax = 0;
        int a, step, ok = 1;
        snprintf(text, sizeof text,
                 "time = { dt = 0.0166667; frames = 3; };\n"
                 "solver = { %s iterations = 2000; tolerance = %s; line_search = \"always\"; };\n"
                 "gravity = [0.0, -9.81, 0.0];\n"
                 "materials = ( { name = \"m\"; model = \"%s\"; youngs = 1.0e5; poisson = 0.3; density = 200.0; } );\n"
                 "bodies = ( { generate = { shape = \"cloth\"; size = [0.5, 0.5]; cells = [8, 8]; }; material = \"m\";\n"
                 "  thickness = 0.002;\n"
                 "  pin = ( { box_min = [-1.0, -1.0, -1.0]; box_max = [0.001, 1.0, 0.001]; },\n"
                 "          { box_min = [0.499, -1.0, -1.0]; box_max = [1.0, 1.0, 0.001]; } ); } );\n",
                 methods[k], k == 0 ? "1.0e-10" : "1.0e-7", model ? model : "stable-neohookean");
        if (fixture_load(&f, text)) {
            CHECK(0, "cloth setup failed");
            return;
        }
        for (step = 0; step < 3; step++) {
            CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "cloth: step failed");
            ok = ok && (k == 0 ? (r.converged || r.status == SIPD_SOLVE_STALLED) : r.status != SIPD_SOLVE_DIVERGED);
        }
        CHECK(ok, "cloth (%s), %s: a solve %s", model ? model : "stable-neohookean", methods[k],
              k == 0 ? "did not converge" : "diverged");
        if (k == 0)   /* the shell really runs the model (model.c once dropped it) */
            CHECK(!model || !strcmp(scene_model_name(f.m.mats[f.m.groups[f.m.group_of[SIPD_KIND_TRI]].mat[0]].model),
                                    model),
                  "cloth: the shell's material is not %s", model);
        x = malloc(sizeof(double) * 3 * f.m.nv);
        f.s.ops->download(f.s.b, x, NULL);
        if (k == 0) {
            ref = x;
        } else {
            for (a = 0; a < 3 * f.m.nv; a++) dmax = fabs(x[a] - ref[a]) > dmax ? fabs(x[a] - ref[a]) : dmax;
            printf("cloth methods (%s): %s: max |x - x_newton| / diag = %.3e (last residual %.2e, %d iterations)\n",
                   model ? model : "stable-neohookean", methods[k], dmax / f.m.bbox_diag, r.residual, r.iterations);
            CHECK(dmax / f.m.bbox_diag < 1e-4, "cloth (%s), %s: %.3e of the model size from Newton",
                  model ? model : "stable-neohookean", methods[k], dmax / f.m.bbox_diag);
            free(x);
        }
        fixture_free(&f);
    }
    free(ref);
}

/* gmsh and OBJ cloth/rod fixtures (tests/data/meshes, written by gmsh 4.8) as bodies: the same
 * elements from every format, masses ρ A t and ρ π r² L, the rod's 90° corner as rest curvature
 * |κb| = 2 tan(45°) = 2, and SIPD (Jacobi + Chebyshev) against Newton on each. */
static void test_meshes(const char *dir)
{
    static const char *cloth[] = {"cloth_v22_ascii.msh", "cloth_v22_bin.msh", "cloth_v41_ascii.msh", "cloth_v41_bin.msh"};
    static const char *rod[] = {"rod_v22_ascii.msh", "rod_v22_bin.msh", "rod_v41_ascii.msh", "rod_v41_bin.msh"};
    int c, k, ne0[2] = {0, 0}, ne1[2] = {0, 0};
    for (c = 0; c < 2; c++)
        for (k = 0; k < 4; k++) {
            char text[2048];
            fixture f;
            double mass = 0, *x[2] = {NULL, NULL}, dmax = 0;
            int i, meth;
            for (meth = 0; meth < 2; meth++) {
                sipd_solve_result r;
                snprintf(text, sizeof text,
                         "time = { dt = 0.0166667; frames = 3; };\n"
                         "solver = { method = \"%s\"; chebyshev = true; iterations = 5000; tolerance = %s; };\n"
                         "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; density = 500.0; } );\n"
                         "bodies = ( { mesh = \"%s/%s\"; material = \"m\";%s\n"
                         "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.001, 1.0, 1.0]; }; } );\n",
                         meth ? "sipd" : "newton", meth ? "1.0e-7" : "1.0e-10", dir, c ? rod[k] : cloth[k],
                         c ? " radius = 0.005;" : " thickness = 0.002;");
                if (fixture_load(&f, text)) {
                    CHECK(0, "%s: setup failed", c ? rod[k] : cloth[k]);
                    return;
                }
                if (meth == 0) {
                    const int g0 = f.m.group_of[c ? SIPD_KIND_EDGE : SIPD_KIND_TRI],
                              g1 = f.m.group_of[c ? SIPD_KIND_ROD_BEND : SIPD_KIND_HINGE];
                    CHECK(g0 >= 0 && g1 >= 0 && f.m.nt == 0, "%s: kinds", c ? rod[k] : cloth[k]);
                    if (g0 < 0 || g1 < 0) {
                        fixture_free(&f);
                        return;
                    }
                    if (k == 0) {
                        ne0[c] = f.m.groups[g0].ne;
                        ne1[c] = f.m.groups[g1].ne;
                    }
                    CHECK(f.m.groups[g0].ne == ne0[c] && f.m.groups[g1].ne == ne1[c], "%s: %d/%d elements, %s has %d/%d",
                          c ? rod[k] : cloth[k], f.m.groups[g0].ne, f.m.groups[g1].ne, c ? rod[0] : cloth[0], ne0[c],
                          ne1[c]);
                    for (i = 0; i < f.m.nv; i++) mass += f.m.mass[i];
                    if (c == 0) {
                        CHECK(fabs(mass - 500 * 0.4 * 0.2 * 0.002) < 1e-12, "cloth mass %.17g", mass);
                    } else {
                        const sipd_elem_group *B = &f.m.groups[g1];
                        double kmax = 0;
                        CHECK(fabs(mass - 500 * PI * 0.005 * 0.005 * 0.3) < 1e-12, "rod mass %.17g", mass);
                        CHECK(B->ne == f.m.nv - 2, "rod: %d bending elements for %d vertices", B->ne, f.m.nv);
                        for (i = 0; i < B->ne; i++) kmax = B->rest[2 * i] > kmax ? B->rest[2 * i] : kmax;
                        CHECK(fabs(kmax - 2) < 1e-12, "rod corner rest curvature %.17g (2 tan 45 deg = 2)", kmax);
                    }
                }
                for (i = 0; i < 3; i++) CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
                x[meth] = malloc(sizeof(double) * 3 * f.m.nv);
                f.s.ops->download(f.s.b, x[meth], NULL);
                if (meth == 1)
                    for (i = 0; i < 3 * f.m.nv; i++) dmax = fabs(x[0][i] - x[1][i]) > dmax ? fabs(x[0][i] - x[1][i]) : dmax;
                if (meth == 1) {
                    printf("meshes: %s: %d vertices, sipd against newton %.3e of the model size\n", c ? rod[k] : cloth[k],
                           f.m.nv, dmax / f.m.bbox_diag);
                    CHECK(dmax / f.m.bbox_diag < 1e-4, "%s: sipd %.3e of the model size from newton", c ? rod[k] : cloth[k],
                          dmax / f.m.bbox_diag);
                }
                fixture_free(&f);
            }
            free(x[0]);
            free(x[1]);
        }
}

/* ------------------------------------------------------------------------------------- */

static void test_model(void)
{
    char base[600], text[2048];
    fixture f;
    double mtet, msp;
    int i;
    if (write_box(base, sizeof base, 3, 2, 2, 0.3, 0.2, 0.2)) {
        CHECK(0, "box mesh");
        return;
    }
    for (i = 0; i < 2; i++) {
        snprintf(text, sizeof text,
                 "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"m\";%s } );\n",
                 base, i ? " elements = \"springs\"; radius = 0.002;" : "");
        if (fixture_load(&f, text)) {
            CHECK(0, "box setup");
            return;
        }
        if (i == 0) {
            mtet = f.m.total_mass;
            CHECK(f.m.nt == 72 && f.m.group_of[SIPD_KIND_EDGE] < 0, "solid: %d tets", f.m.nt);
        } else {
            const sipd_elem_group *G = &f.m.groups[f.m.group_of[SIPD_KIND_EDGE]];
            double kerr = 0;
            int e;
            msp = f.m.total_mass;
            /* unique edges of a 3x2x2 Kuhn box: 4·3·3 x-edges + ... counted independently below */
            int nx = 3, ny = 2, nz = 2;
            int axis = nx * (ny + 1) * (nz + 1) + ny * (nx + 1) * (nz + 1) + nz * (nx + 1) * (ny + 1);
            int faced = nx * ny * (nz + 1) + ny * nz * (nx + 1) + nx * nz * (ny + 1);   /* one diagonal per face */
            int body = nx * ny * nz;                                                    /* one main diagonal per cell */
            CHECK(f.m.nt == 0, "springs body keeps %d tets as elements", f.m.nt);
            CHECK(G->ne == axis + faced + body, "springs: %d edges, expected %d", G->ne, axis + faced + body);
            for (e = 0; e < G->ne; e++) {
                double k = 1e6 * PI * 0.002 * 0.002 / G->rest[2 * e];
                kerr = fabs(G->rest[2 * e + 1] - k) / k > kerr ? fabs(G->rest[2 * e + 1] - k) / k : kerr;
            }
            CHECK(kerr < 1e-14, "spring stiffness differs from E pi r^2 / L by %.3e", kerr);
        }
        fixture_free(&f);
    }
    CHECK(fabs(msp - mtet) < 1e-14 * mtet && fabs(mtet - 1000 * 0.3 * 0.2 * 0.2) < 1e-12,
          "masses: springs %.17g, tets %.17g, rho V %.17g", msp, mtet, 1000 * 0.3 * 0.2 * 0.2);
    /* rod: masses ρπr²L/2 per segment end, bending at the interior vertices */
    snprintf(text, sizeof text,
             "materials = ( { name = \"m\"; youngs = 2.0e6; poisson = 0.3; density = 500.0; } );\n"
             "bodies = ( { generate = { shape = \"rod\"; length = 2.0; segments = 8; }; material = \"m\"; radius = 0.05; } );\n");
    if (fixture_load(&f, text)) {
        CHECK(0, "rod setup");
        return;
    }
    {
        const double A = PI * 0.05 * 0.05, h = 0.25;
        const sipd_elem_group *B = &f.m.groups[f.m.group_of[SIPD_KIND_ROD_BEND]];
        CHECK(f.m.nv == 9 && f.m.groups[f.m.group_of[SIPD_KIND_EDGE]].ne == 8 && B->ne == 7, "rod: %d vertices",
              f.m.nv);
        CHECK(fabs(f.m.mass[0] - 500 * A * h / 2) < 1e-15 && fabs(f.m.mass[4] - 500 * A * h) < 1e-15,
              "rod masses %.17g %.17g", f.m.mass[0], f.m.mass[4]);
        CHECK(fabs(B->rest[1] - 2e6 * PI * pow(0.05, 4) / 4 / (2 * h)) < 1e-12 * B->rest[1] && B->rest[0] == 0,
              "rod bending stiffness %.17g", B->rest[1]);
    }
    fixture_free(&f);
    {   /* scene errors of the kind keys */
        static const char *bad[] = {
            "bodies = ( { mesh = \"%s\"; generate = { shape = \"rod\"; }; material = \"m\"; } );\n",
            "bodies = ( { mesh = \"%s\"; elements = \"rod\"; material = \"m\"; } );\n",
            "bodies = ( { mesh = \"%s\"; thickness = 0.01; material = \"m\"; } );\n",
            "bodies = ( { mesh = \"%s\"; spring_stiffness = 10.0; material = \"m\"; } );\n",
            "bodies = ( { generate = { shape = \"rod\"; segments = 0; }; material = \"m\"; } );\n",
            "bodies = ( { generate = { length = 1.0; }; material = \"m\"; } );\n",
            "bodies = ( { generate = { shape = \"rod\"; }; elements = \"solid\"; material = \"m\"; } );\n",
            "bodies = ( { generate = { shape = \"cloth\"; }; elements = \"rod\"; material = \"m\"; } );\n",
            "bodies = ( { generate = { shape = \"cloth\"; cells = [2, 0]; }; material = \"m\"; } );\n",
        };
        for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
            char path[700], body[1024];
            sipd_scene sc;
            FILE *fp;
            snprintf(path, sizeof path, "%s/bad%d.cfg", scratch, i);
            snprintf(body, sizeof body, bad[i], base);
            fp = fopen(path, "w");
            fprintf(fp, "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );\n%s", body);
            fclose(fp);
            {   /* refused by the scene reader, or (a kind the mesh cannot give) by the model */
                int rc = scene_load(path, &sc);
                if (rc == SIPD_OK) {
                    sipd_model mm;
                    rc = model_build(&sc, &mm);
                    if (rc == SIPD_OK)
                        model_free(&mm);
                    scene_free(&sc);
                }
                CHECK(rc == SIPD_EINPUT, "bad scene %d accepted: %s", i, body);
            }
        }
    }
}

/* the case "fd": the solid-kind and shell finite differences */
static void case_fd(void)
{
    test_fd();
    test_fd_shell();
}

static int case_cloth_methods(int argc, char **argv)
{
    test_cloth_methods(argc > 2 ? argv[2] : NULL);
    return 0;
}

static int case_meshes(int argc, char **argv)
{
    (void)argc;
    test_meshes(argv[2]);
    return 0;
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)argc, (void)argv;
    sipd_quiet = 1;
    return scratch_open("kinds", which);
}

/* ------------------------------------------------------------------------------------- */
/* bodies[].bending = "auto" (model.c shell_bending): a cloth whose bending length
 * (D / (ρ t |g|))^(1/3) is under 4 mean edges gets the hinges, a plate that resolves it the
 * mid-edge element, any shell without gravity the mid-edge element, and an explicit value wins.
 * The lengths are recomputed here from the formula. */
static void test_bending_auto(void)
{
    static const struct {
        const char *what, *gravity, *extra;
        double E, t, rho;
        int want;
    } c[] = {
        {"cloth", "[0.0, -9.81, 0.0]", "", 1.0e5, 0.001, 300.0, SIPD_BENDING_DIHEDRAL},
        {"plate", "[0.0, -9.81, 0.0]", "", 1.0e9, 0.005, 2000.0, SIPD_BENDING_MIDEDGE},
        {"cloth without gravity", "[0.0, 0.0, 0.0]", "", 1.0e5, 0.001, 300.0, SIPD_BENDING_MIDEDGE},
        {"plate, dihedral asked", "[0.0, -9.81, 0.0]", " bending = \"dihedral\";", 1.0e9, 0.005, 2000.0,
         SIPD_BENDING_DIHEDRAL},
        {"cloth, midedge asked", "[0.0, -9.81, 0.0]", " bending = \"midedge\";", 1.0e5, 0.001, 300.0,
         SIPD_BENDING_MIDEDGE},
    };
    int i;
    for (i = 0; i < (int)(sizeof c / sizeof c[0]); i++) {
        char text[2048];
        fixture f;
        double D = c[i].E * c[i].t * c[i].t * c[i].t / (12 * (1 - 0.09)), g = strstr(c[i].gravity, "9.81") ? 9.81 : 0,
               lb = g > 0 ? cbrt(D / (c[i].rho * c[i].t * g)) : INFINITY;
        int hinge, mid;
        snprintf(text, sizeof text,
                 "gravity = %s;\n"
                 "materials = ( { name = \"m\"; youngs = %.6e; poisson = 0.3; density = %.6e; } );\n"
                 "bodies = ( { generate = { shape = \"cloth\"; size = [1.0, 1.0]; cells = [20, 20]; }; material = \"m\";"
                 " thickness = %.6e;%s } );\n",
                 c[i].gravity, c[i].E, c[i].rho, c[i].t, c[i].extra);
        if (fixture_load(&f, text)) {
            CHECK(0, "%s: setup", c[i].what);
            continue;
        }
        hinge = f.m.group_of[SIPD_KIND_HINGE] >= 0 ? f.m.groups[f.m.group_of[SIPD_KIND_HINGE]].ne : 0;
        mid = f.m.group_of[SIPD_KIND_MIDEDGE] >= 0 ? f.m.groups[f.m.group_of[SIPD_KIND_MIDEDGE]].ne : 0;
        printf("bending_auto: %-22s bending length %.4g m (formula %.4g), mean edge %.4g m: %s (%d hinges, %d mid-edge)\n",
               c[i].what, f.m.bodies[0].bend_length, lb, f.m.bodies[0].mean_edge,
               f.m.bodies[0].bending == SIPD_BENDING_MIDEDGE ? "mid-edge" : "dihedral", hinge, mid);
        CHECK(f.m.bodies[0].bending == c[i].want, "%s: bending %d, expected %d", c[i].what, f.m.bodies[0].bending,
              c[i].want);
        CHECK(c[i].want == SIPD_BENDING_MIDEDGE ? (mid == 800 && hinge == 0) : (hinge > 0 && mid == 0),
              "%s: %d hinges, %d mid-edge elements", c[i].what, hinge, mid);
        CHECK(isinf(lb) ? isinf(f.m.bodies[0].bend_length) : fabs(f.m.bodies[0].bend_length - lb) < 1e-12 * lb,
              "%s: bending length %.17g, formula %.17g", c[i].what, f.m.bodies[0].bend_length, lb);
        fixture_free(&f);
    }
}

static const test_case cases[] = {
    {"fd", .run = case_fd},
    {"bending_auto", .run = test_bending_auto},
    {"cantilever", .run = test_cantilever},
    {"chain", .run = test_chain},
    {"methods", .run = test_methods},
    {"strip", .run = test_strip},
    {"membrane", .run = test_membrane},
    {"cloth_methods", .run_args = case_cloth_methods, .args = "[MODEL]"},
    {"meshes", .run_args = case_meshes, .args = "MESHDIR"},
    {"model", .run = test_model},
};
static const test_program program = {"test_kinds", TEST_CASES(cases), .setup = prog_setup, .teardown = scratch_close};
TEST_MAIN(program)
