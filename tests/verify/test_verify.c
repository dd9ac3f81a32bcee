/* test_verify.c — verification of the SIPD solver against independent references
 * (docs/design.md §6).  Each case writes a scene (and, where needed, a generated mesh) into a
 * scratch directory, loads it through the real scene and mesh code, and drives the solver
 * through the sim_* API of src/driver.h.
 *
 *   plate_hole        plate 10 cm x 10 cm x 4 mm with a central hole of radius 1 cm (d/W = 0.2,
 *                     unstructured gmsh mesh tests/data/meshes/plate_hole.msh), quasi-static 1%
 *                     stretch.  SIPD (Jacobi + Chebyshev) equals Newton; the gross-section stress
 *                     concentration factor at the hole lies near the handbook value; the hole
 *                     deforms smoothly into an ellipse aligned with the load (no outliers, mirror
 *                     symmetric about the load axis); the reaction forces balance.
 *   cantilever_linear quasi-static cantilever under gravity in the linear regime: SIPD (and
 *                     Newton) against an independent small-strain linear FE solution on the same
 *                     mesh (K_e = V Bᵀ C B assembled here, dense Cholesky).
 *   full_step         expanded split at ν = 0.499, plain Jacobi, line_search = "always": the full
 *                     step α = 1 is accepted in most iterations (released compressed cube, cantilever
 *                     under gravity).  The projection = "none" ablation at ν = 0.45 in compression is
 *                     recorded (accepted full steps, converged/stalled, non-SPD blocks).
 */
#define _XOPEN_SOURCE 700
#include <math.h>

#include "physics/material.h"
#include "physics/tet.h"
#include "fixture.h"
#include "runner.h"

static const char *plate_mesh = NULL; /* argv[2] of the plate_hole case */

/* ---- a backend wrapper that counts non-SPD blocks of every direction pass ------------- */
static sipd_backend_ops counting_ops;
static long count_nonspd, count_dirs;
static int counting_direction(sipd_backend *b, sipd_dir_stats *st)
{
    int rc = sipd_backend_cpu.direction(b, st);
    count_nonspd += st->nonspd;
    count_dirs++;
    return rc;
}

/* Write the scene text (already complete) and load scene, model and solver. */
static int setup_text(fixture *f, const char *text, const char *tag)
{
    counting_ops = sipd_backend_cpu;
    counting_ops.direction = counting_direction;
    return fixture_load_ops(f, text, tag, &counting_ops);
}

/* Write a structured box mesh into the scratch dir; returns its base name. */
static const char *box_mesh(int nx, int ny, int nz, double lx, double ly, double lz)
{
    static char base[600];
    return write_box(base, sizeof base, nx, ny, nz, lx, ly, lz) ? NULL : base;
}

/* Converged; for Newton also a line search stalled at the energy's round-off floor once the
 * residual is tiny (its quadratic convergence ends there, around 1e-10 on the plate). */
static int solved(const sipd_solve_result *r, int newton)
{
    return r->converged || (newton && r->stalled && r->residual < 1e-8);
}

static double *positions(const fixture *f)
{
    double *x = malloc(sizeof(double) * 3 * f->m.nv);
    f->s.ops->download(f->s.b, x, NULL);
    return x;
}

static double max_diff(const double *a, const double *b, int n)
{
    double d = 0;
    int i;
    for (i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static mat3 tet_F_at(const sipd_model *m, const double *x, int e)
{
    const int *t = m->tets + 4 * e;
    return tet_F(m->Bm + 9 * e, v3_load(x + 3 * t[0]), v3_load(x + 3 * t[1]), v3_load(x + 3 * t[2]),
                 v3_load(x + 3 * t[3]));
}

/* Small dense least squares: minimise |A c − b|, A n×k (row-major), k ≤ 8, normal equations
 * solved by Gaussian elimination with partial pivoting. */
static int lsq(const double *A, const double *b, int n, int k, double *c)
{
    double N[8][9];
    int i, j, r, p;
    for (i = 0; i < k; i++) {
        for (j = 0; j <= k; j++) N[i][j] = 0;
        for (r = 0; r < n; r++) {
            for (j = 0; j < k; j++) N[i][j] += A[r * k + i] * A[r * k + j];
            N[i][k] += A[r * k + i] * b[r];
        }
    }
    for (i = 0; i < k; i++) {
        p = i;
        for (r = i + 1; r < k; r++)
            if (fabs(N[r][i]) > fabs(N[p][i])) p = r;
        if (N[p][i] == 0)
            return 1;
        for (j = 0; j <= k; j++) { double t = N[i][j]; N[i][j] = N[p][j]; N[p][j] = t; }
        for (r = i + 1; r < k; r++) {
            double fct = N[r][i] / N[i][i];
            for (j = i; j <= k; j++) N[r][j] -= fct * N[i][j];
        }
    }
    for (i = k - 1; i >= 0; i--) {
        double s = N[i][k];
        for (j = i + 1; j < k; j++) s -= N[i][j] * c[j];
        c[i] = s / N[i][i];
    }
    return 0;
}

/* ======================================================================================= */
/* 1. Plate with a hole under tension                                                       */
/* ======================================================================================= */
/* Geometry of tests/data/meshes/plate_hole.geo */
#define PW 0.1      /* plate width (x) (m), centred at the origin in x-y          */
#ifndef PH
#define PH 0.1      /* plate height (y, the load axis)                            */
#endif
#define PR 0.01     /* hole radius                                               */
#define PT 0.004    /* thickness (z in [0, PT])                                   */
#define PSTRETCH (0.01 * PH) /* top edge moved up in the step: 1% nominal strain */
#define PI_ 3.14159265358979323846

static void test_plate_hole(void)
{
    static const char *methods[2] = {
        "method = \"newton\"; line_search = \"always\"; iterations = 100; tolerance = 1.0e-10;",
        "method = \"sipd\"; sweep = \"jacobi\"; chebyshev = true; iterations = 40000; tolerance = 1.0e-6;",
    };
    const double E = 7.0e10, nu = 0.3;
    double *xs[2] = {NULL, NULL};
    fixture f[2];
    int k, a, e;
    if (!plate_mesh) {
        CHECK(0, "usage: test_verify plate_hole PATH/plate_hole.msh");
        return;
    }
    for (k = 0; k < 2; k++) {
        char text[4096];
        sipd_solve_result r;
        snprintf(text, sizeof text,
                 "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
                 "solver = { %s };\n"
                 "gravity = [0.0, 0.0, 0.0];\n"
                 "materials = ( { name = \"al\"; youngs = %.6e; poisson = %.3f; density = 2700.0; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"al\";\n"
                 "  pin  = { box_min = [-1.0, %.6f, -1.0]; box_max = [1.0, %.6f, 1.0]; };\n"
                 "  move = { box_min = [-1.0, %.6f, -1.0]; box_max = [1.0, %.6f, 1.0];\n"
                 "           velocity = [0.0, %.6e, 0.0]; }; } );\n",
                 methods[k], E, nu, plate_mesh, -PH / 2 - 1e-4, -PH / 2 + 1e-4, PH / 2 - 1e-4, PH / 2 + 1e-4, PSTRETCH);
        if (setup_text(&f[k], text, k ? "plate_sipd" : "plate_newton")) {
            CHECK(0, "setup failed");
            return;
        }
        CHECK(sim_step(&f[k].s, 1.0, &r) == SIPD_OK, "step failed");
        CHECK(solved(&r, k == 0), "%s: not converged (r = %.2e after %d iterations)", k ? "sipd" : "newton",
              r.residual, r.iterations);
        printf("plate_hole: %-6s %d vertices, %d tets: %d iterations, residual %.2e, %.2f s\n", k ? "sipd" : "newton",
               f[k].m.nv, f[k].m.nt, r.iterations, r.residual, r.wall);
        xs[k] = positions(&f[k]);
    }
    {
        const sipd_model *m = &f[1].m;
        const double *x = xs[1];
        const sipd_material *mat = &m->mats[0];
        double d = max_diff(xs[0], xs[1], 3 * m->nv), Ftop = 0, Fbot = 0, sig_g, Pmax[2] = {0, 0}, Pglob = 0;
        double Kt, Kt_ref, dn = 1 - 2 * PR / PW;
        int nfix[3] = {0, 0, 0}, eglob = -1;

        printf("plate_hole: max |x_sipd - x_newton| = %.3e m = %.2e of the model size (bound 1e-4)\n", d,
               d / m->bbox_diag);
        CHECK(d < 1e-4 * m->bbox_diag, "SIPD differs from Newton by %g m", d);
        CHECK(m->nt > 1000 && m->nt < 10000, "unexpected mesh size %d tets", m->nt);

        /* Reactions: internal elastic force V P ∇N_a summed over the moved (top) and pinned
         * (bottom) vertices.  Equilibrium: they cancel. */
        for (a = 0; a < m->nv; a++) nfix[m->fixed[a]]++;
        for (e = 0; e < m->nt; e++) {
            const int *t = m->tets + 4 * e;
            mat3 P = material_P(mat, tet_F_at(m, x, e));
            int l;
            for (l = 0; l < 4; l++) {
                vec3 fo = v3_scale(m3_mulv(P, tet_gradN(m->Bm + 9 * e, l)), m->vol[e]);
                if (m->fixed[t[l]] == 2) Ftop += fo.v[1];
                if (m->fixed[t[l]] == 1) Fbot += fo.v[1];
            }
        }
        sig_g = Ftop / (PW * PT); /* gross-section nominal stress (force / unnotched area) */
        printf("plate_hole: %d pinned, %d moved vertices; reactions top %.6e N, bottom %.6e N; gross stress %.4e Pa "
               "(E * strain = %.4e)\n",
               nfix[1], nfix[2], Ftop, Fbot, sig_g, E * PSTRETCH / PH);
        CHECK(nfix[1] > 10 && nfix[2] > 10, "pin/move boxes selected %d / %d vertices", nfix[1], nfix[2]);
        CHECK(Ftop > 0 && fabs(Ftop + Fbot) < 1e-3 * Ftop, "reactions do not balance: %g vs %g", Ftop, Fbot);
        /* The hole and the clamped grips make the plate more compliant/stiffer than a bar; the
         * gross stress must still be of the order of E * strain. */
        CHECK(sig_g > 0.5 * E * PSTRETCH / PH && sig_g < 1.5 * E * PSTRETCH / PH, "gross stress %g implausible", sig_g);

        /* Stress concentration.  Nominal axial stress P_yy per tet (constant-strain tets); the
         * peak is taken over tets touching the hole edge within 15° of the equator (the points
         * x = ±r, y = 0, perpendicular to the load), separately on each side. */
        for (e = 0; e < m->nt; e++) {
            const int *t = m->tets + 4 * e;
            double cx = 0, cy = 0, Pyy = material_P(mat, tet_F_at(m, x, e)).m[4];
            int l, on_hole = 0;
            for (l = 0; l < 4; l++) {
                const double *X = m->X + 3 * t[l];
                cx += X[0] / 4;
                cy += X[1] / 4;
                if (fabs(hypot(X[0], X[1]) - PR) < 1e-6 * PR) on_hole = 1;
            }
            if (on_hole && fabs(atan2(cy, fabs(cx))) < 15 * PI_ / 180)
                Pmax[cx > 0] = fmax(Pmax[cx > 0], Pyy);
            /* global maximum away from the grips (whose clamped corners are singular) */
            if (fabs(cy) < PH / 2 - 0.01 && Pyy > Pglob) {
                Pglob = Pyy;
                eglob = e;
            }
        }
        Kt = 0.5 * (Pmax[0] + Pmax[1]) / sig_g;
        /* Reference.  Kirsch (1898): Kt = 3 for an infinite plate.  Finite width, d/W = 0.2:
         * Roark's Formulas for Stress and Strain (7th ed., Table 17.1 case 1a, after Peterson's
         * Stress Concentration Factors, fit of Howland's (1930) solution):
         *   Kt_net = 3.00 − 3.13 (d/W) + 3.66 (d/W)² − 1.53 (d/W)³ = 2.508, based on the
         *   net-section stress P / (t (W − d)); gross-section Kt_g = Kt_net / (1 − d/W) = 3.14.
         * Heywood's formula Kt_net = 2 + (1 − d/W)³ = 2.512 agrees.  Those are 2-D values for a
         * long strip under uniform remote tension; here the plate is square (L/W = 1) with rigid
         * grips, 3-D (t/r = 0.4, where the mid-plane SCF is slightly above the 2-D value) and
         * meshed with constant-strain tets whose stress is a centroid value next to a polygonal
         * (44-segment) hole.  Measured with Newton on this geometry (recorded when the test was
         * written): 3.24 with the committed mesh (1.5 mm at the hole), 3.19 with 0.75 mm, 3.27 for
         * a 10 x 20 cm plate (L/W = 2) — within 4% of 3.135.  The window [2.8, 3.5] (−11% / +12%)
         * leaves room for those modelling differences and fails for a wrong stress field
         * (no concentration: ~1; net-section stress only: 1.25; Kirsch doubled or halved). */
        Kt_ref = (3.00 - 3.13 * (1 - dn) + 3.66 * (1 - dn) * (1 - dn) - 1.53 * pow(1 - dn, 3)) / dn;
        printf("plate_hole: peak P_yy at the hole equator: x<0 %.4e Pa, x>0 %.4e Pa\n", Pmax[0], Pmax[1]);
        printf("plate_hole: stress concentration (gross) Kt = %.3f  (Roark/Peterson/Howland d/W = 0.2: %.3f; Kirsch "
               "infinite plate 3)\n",
               Kt, Kt_ref);
        CHECK(Kt > 2.8 && Kt < 3.5, "Kt = %g outside [2.8, 3.5]", Kt);
        CHECK(fabs(Pmax[0] - Pmax[1]) < 0.1 * fmax(Pmax[0], Pmax[1]), "peak stress differs between the two sides: "
              "%g vs %g", Pmax[0], Pmax[1]);
        if (eglob >= 0) {
            const int *t = m->tets + 4 * eglob;
            double cx = 0, cy = 0;
            int l;
            for (l = 0; l < 4; l++) {
                cx += m->X[3 * t[l]] / 4;
                cy += m->X[3 * t[l] + 1] / 4;
            }
            printf("plate_hole: largest P_yy away from the grips: %.4e Pa at (%.4f, %.4f) (radius %.4f, %.0f deg "
                   "from the equator)\n",
                   Pglob, cx, cy, hypot(cx, cy), atan2(fabs(cy), fabs(cx)) * 180 / PI_);
            CHECK(hypot(cx, cy) < PR + 0.003 && atan2(fabs(cy), fabs(cx)) < 20 * PI_ / 180,
                  "the peak axial stress is not at the hole equator: (%g, %g)", cx, cy);
        }

        /* Shape of the hole.  Radial displacement of the hole-edge vertices u_r(θ) (θ from the
         * x axis, the load along y), least-squares fit of
         *   u_r = c0 + c1 cos θ + s1 sin θ + c2 cos 2θ + s2 sin 2θ + c4 cos 4θ + s4 sin 4θ.
         * Kirsch (plane stress): u_r = σ r / E (1 − 2 cos 2θ) plus rigid translation (the c1, s1
         * terms).  The hole becomes an ellipse elongated along the load: c2 < 0, c0 > 0.
         * Mirror symmetry about the load axis (θ → π − θ) requires c1 = s2 = 0 (no sideways drift,
         * ellipse axes not rotated) — up to the asymmetry of the unstructured mesh.  Smoothness:
         * no vertex deviates from the fitted curve by more than a small fraction of the ellipse
         * amplitude |c2| (an outlier, e.g. an unconverged or mis-updated vertex, would). */
        {
            int nh = 0, i;
            double *A, *bb, c[7] = {0, 0, 0, 0, 0, 0, 0}, res2 = 0, resmax = 0, dmaxn = 0;
            A = malloc(sizeof(double) * 7 * m->nv);
            bb = malloc(sizeof(double) * m->nv);
            for (a = 0; a < m->nv; a++) {
                const double *X = m->X + 3 * a;
                double rr = hypot(X[0], X[1]), th;
                if (fabs(rr - PR) > 1e-6 * PR)
                    continue;
                th = atan2(X[1], X[0]);
                A[7 * nh + 0] = 1;
                A[7 * nh + 1] = cos(th);
                A[7 * nh + 2] = sin(th);
                A[7 * nh + 3] = cos(2 * th);
                A[7 * nh + 4] = sin(2 * th);
                A[7 * nh + 5] = cos(4 * th);
                A[7 * nh + 6] = sin(4 * th);
                bb[nh] = ((x[3 * a] - X[0]) * X[0] + (x[3 * a + 1] - X[1]) * X[1]) / rr;
                dmaxn = fmax(dmaxn, max_diff(xs[0] + 3 * a, xs[1] + 3 * a, 3));
                nh++;
            }
            CHECK(nh > 40 && lsq(A, bb, nh, 7, c) == 0, "hole-edge fit failed (%d vertices)", nh);
            for (i = 0; i < nh; i++) {
                double fit = 0, rsd;
                int j;
                for (j = 0; j < 7; j++) fit += A[7 * i + j] * c[j];
                rsd = bb[i] - fit;
                res2 += rsd * rsd;
                resmax = fmax(resmax, fabs(rsd));
            }
            res2 = sqrt(res2 / (nh > 0 ? nh : 1));
            printf("plate_hole: hole edge (%d vertices): u_r = %.3e + %.2e cos t + %.3e sin t + %.3e cos 2t + %.2e sin 2t"
                   " + %.2e cos 4t + %.2e sin 4t m\n",
                   nh, c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
            printf("plate_hole: Kirsch infinite plate: c0 = sigma r/E = %.3e, c2 = -2 sigma r/E = %.3e (gross sigma); "
                   "measured c2/c0 = %.3f (Kirsch -2)\n",
                   sig_g * PR / E, -2 * sig_g * PR / E, c[3] / c[0]);
            printf("plate_hole: fit residual rms %.2e, max %.2e m (%.2f%% of |c2|); asymmetry |c1|/|c2| = %.2e, "
                   "|s2|/|c2| = %.2e; max |sipd - newton| on the hole edge %.2e m\n",
                   res2, resmax, 100 * resmax / fabs(c[3]), fabs(c[1]) / fabs(c[3]), fabs(c[4]) / fabs(c[3]), dmaxn);
            CHECK(c[0] > 0 && c[3] < 0, "hole does not elongate along the load: c0 = %g, c2 = %g", c[0], c[3]);
            CHECK(c[3] / c[0] < -1.2 && c[3] / c[0] > -3.0, "ellipse shape c2/c0 = %g far from Kirsch's -2",
                  c[3] / c[0]);
            CHECK(resmax < 0.05 * fabs(c[3]), "hole edge not smooth: a vertex deviates %g m from the fit (|c2| = %g)",
                  resmax, fabs(c[3]));
            CHECK(fabs(c[1]) < 0.05 * fabs(c[3]) && fabs(c[4]) < 0.05 * fabs(c[3]),
                  "hole not mirror-symmetric about the load axis: c1 = %g, s2 = %g, c2 = %g", c[1], c[4], c[3]);
            free(A);
            free(bb);
        }
    }
    for (k = 0; k < 2; k++) {
        free(xs[k]);
        fixture_free(&f[k]);
    }
}

/* ======================================================================================= */
/* 2. Cantilever against an independent linear-elastic FE solution                         */
/* ======================================================================================= */
/* Dense Cholesky A = L Lᵀ in place (lower triangle), then solve A x = b. */
static int cholesky_solve(double *A, int n, double *b)
{
    int i, j, k;
    for (j = 0; j < n; j++) {
        double s = A[(size_t)j * n + j];
        for (k = 0; k < j; k++) s -= A[(size_t)j * n + k] * A[(size_t)j * n + k];
        if (!(s > 0))
            return 1;
        s = sqrt(s);
        A[(size_t)j * n + j] = s;
        for (i = j + 1; i < n; i++) {
            double t = A[(size_t)i * n + j];
            for (k = 0; k < j; k++) t -= A[(size_t)i * n + k] * A[(size_t)j * n + k];
            A[(size_t)i * n + j] = t / s;
        }
    }
    for (i = 0; i < n; i++) { /* L z = b */
        double t = b[i];
        for (k = 0; k < i; k++) t -= A[(size_t)i * n + k] * b[k];
        b[i] = t / A[(size_t)i * n + i];
    }
    for (i = n - 1; i >= 0; i--) { /* Lᵀ x = z */
        double t = b[i];
        for (k = i + 1; k < n; k++) t -= A[(size_t)k * n + i] * b[k];
        b[i] = t / A[(size_t)i * n + i];
    }
    return 0;
}

/* Small-strain linear elasticity on the rest mesh, written independently of the project's
 * physics code: per tet, shape gradients from the inverse of [X1−X0, X2−X0, X3−X0] (computed
 * here), the 6×12 strain-displacement matrix B (Voigt, engineering shear strains), isotropic C
 * from (E, ν), K_e = V Bᵀ C B; lumped gravity ρ V/4 g per tet vertex; clamped vertices
 * (X ≤ clamp_x) removed.  Returns the displacement u (nv*3). */
static int linear_fe(int nv, const double *X, int nt, const int *tets, double E, double nu, double rho,
                     const double grav[3], double clamp_x, double *u)
{
    const double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double C[6][6] = {{0}};
    int *dof = malloc(sizeof(int) * 3 * nv), n = 0, a, e, i, j, k, rc;
    double *K, *f;
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 3; j++) C[i][j] = lam;
        C[i][i] = lam + 2 * mu;
        C[i + 3][i + 3] = mu;
    }
    for (a = 0; a < nv; a++)
        for (k = 0; k < 3; k++) dof[3 * a + k] = X[3 * a] <= clamp_x ? -1 : n++;
    K = calloc((size_t)n * n, sizeof(double));
    f = calloc((size_t)n, sizeof(double));
    for (e = 0; e < nt; e++) {
        const int *t = tets + 4 * e;
        double D[3][3], inv[3][3], det, V, gN[4][3], B[6][12], CB[6][12];
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++) D[i][j] = X[3 * t[j + 1] + i] - X[3 * t[0] + i]; /* columns: edges */
        det = D[0][0] * (D[1][1] * D[2][2] - D[1][2] * D[2][1]) - D[0][1] * (D[1][0] * D[2][2] - D[1][2] * D[2][0]) +
              D[0][2] * (D[1][0] * D[2][1] - D[1][1] * D[2][0]);
        V = fabs(det) / 6;
        /* inverse by the adjugate */
        inv[0][0] = (D[1][1] * D[2][2] - D[1][2] * D[2][1]) / det;
        inv[0][1] = (D[0][2] * D[2][1] - D[0][1] * D[2][2]) / det;
        inv[0][2] = (D[0][1] * D[1][2] - D[0][2] * D[1][1]) / det;
        inv[1][0] = (D[1][2] * D[2][0] - D[1][0] * D[2][2]) / det;
        inv[1][1] = (D[0][0] * D[2][2] - D[0][2] * D[2][0]) / det;
        inv[1][2] = (D[0][2] * D[1][0] - D[0][0] * D[1][2]) / det;
        inv[2][0] = (D[1][0] * D[2][1] - D[1][1] * D[2][0]) / det;
        inv[2][1] = (D[0][1] * D[2][0] - D[0][0] * D[2][1]) / det;
        inv[2][2] = (D[0][0] * D[1][1] - D[0][1] * D[1][0]) / det;
        /* N_a (a = 1..3) = row a−1 of inv applied to (X − X0); N_0 = 1 − Σ */
        for (j = 0; j < 3; j++) {
            gN[0][j] = 0;
            for (a = 1; a < 4; a++) {
                gN[a][j] = inv[a - 1][j];
                gN[0][j] -= inv[a - 1][j];
            }
        }
        memset(B, 0, sizeof B);
        for (a = 0; a < 4; a++) {
            B[0][3 * a + 0] = gN[a][0];                              /* ε_xx */
            B[1][3 * a + 1] = gN[a][1];                              /* ε_yy */
            B[2][3 * a + 2] = gN[a][2];                              /* ε_zz */
            B[3][3 * a + 0] = gN[a][1]; B[3][3 * a + 1] = gN[a][0];  /* γ_xy */
            B[4][3 * a + 0] = gN[a][2]; B[4][3 * a + 2] = gN[a][0];  /* γ_xz */
            B[5][3 * a + 1] = gN[a][2]; B[5][3 * a + 2] = gN[a][1];  /* γ_yz */
        }
        for (i = 0; i < 6; i++)
            for (j = 0; j < 12; j++) {
                CB[i][j] = 0;
                for (k = 0; k < 6; k++) CB[i][j] += C[i][k] * B[k][j];
            }
        for (i = 0; i < 12; i++) {
            int di = dof[3 * t[i / 3] + i % 3];
            if (di < 0)
                continue;
            for (j = 0; j < 12; j++) {
                int dj = dof[3 * t[j / 3] + j % 3];
                double s = 0;
                if (dj < 0)
                    continue;
                for (k = 0; k < 6; k++) s += B[k][i] * CB[k][j];
                K[(size_t)di * n + dj] += V * s;
            }
        }
        for (a = 0; a < 4; a++)
            for (k = 0; k < 3; k++)
                if (dof[3 * t[a] + k] >= 0)
                    f[dof[3 * t[a] + k]] += rho * V / 4 * grav[k];
    }
    rc = cholesky_solve(K, n, f);
    for (a = 0; a < nv; a++)
        for (k = 0; k < 3; k++) u[3 * a + k] = dof[3 * a + k] < 0 ? 0 : f[dof[3 * a + k]];
    free(K);
    free(f);
    free(dof);
    return rc;
}

static void test_cantilever_linear(void)
{
    const double L = 1.0, W = 0.1, E = 1.0e9, nu = 0.3, rho = 1000, grav[3] = {0, -9.81, 0};
    const double I = W * W * W * W / 12, delta_eb = rho * 9.81 * W * W * pow(L, 4) / (8 * E * I);
    static const char *methods[2] = {
        "method = \"sipd\"; sweep = \"jacobi\"; chebyshev = true; iterations = 60000; tolerance = 1.0e-6;",
        "method = \"newton\"; line_search = \"always\"; iterations = 100; tolerance = 1.0e-8;",
    };
    const char *base = box_mesh(20, 2, 2, L, W, W);
    double *ulin = NULL, tip_lin = 0, ulin_max = 0;
    int k, a, ntip = 0;
    if (!base) {
        CHECK(0, "mesh generation failed");
        return;
    }
    for (k = 0; k < 2; k++) {
        fixture f;
        sipd_solve_result r;
        char text[4096];
        double *x, tip = 0, dmax = 0, err;
        snprintf(text, sizeof text,
                 "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
                 "solver = { %s };\n"
                 "gravity = [0.0, -9.81, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = %.6e; poisson = %.2f; density = %.1f; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"m\";\n"
                 "  pin = { box_min = [-0.001, -1.0, -1.0]; box_max = [0.001, 1.0, 1.0]; }; } );\n",
                 methods[k], E, nu, rho, base);
        if (setup_text(&f, text, k ? "cant_newton" : "cant_sipd")) {
            CHECK(0, "setup failed");
            return;
        }
        if (!ulin) { /* the independent reference, on the model's own rest mesh */
            int npin = 0;
            ulin = malloc(sizeof(double) * 3 * f.m.nv);
            CHECK(linear_fe(f.m.nv, f.m.X, f.m.nt, f.m.tets, E, nu, rho, grav, 1e-9, ulin) == 0,
                  "linear stiffness matrix not positive definite");
            for (a = 0; a < f.m.nv; a++) {
                npin += f.m.fixed[a] != 0;
                CHECK((f.m.fixed[a] != 0) == (f.m.X[3 * a] <= 1e-9), "vertex %d: clamp sets differ", a);
                ulin_max = fmax(ulin_max, sqrt(ulin[3 * a] * ulin[3 * a] + ulin[3 * a + 1] * ulin[3 * a + 1] +
                                               ulin[3 * a + 2] * ulin[3 * a + 2]));
                if (fabs(f.m.X[3 * a] - L) < 1e-9) {
                    tip_lin += ulin[3 * a + 1];
                    ntip++;
                }
            }
            tip_lin /= ntip;
            printf("cantilever_linear: %d vertices (%d clamped), %d tets; linear FE tip deflection %.6e m "
                   "(Euler-Bernoulli %.6e m, %.1f%% stiffer: coarse linear tets)\n",
                   f.m.nv, npin, f.m.nt, -tip_lin, delta_eb, 100 * (1 + tip_lin / delta_eb));
            CHECK(-tip_lin > 0.3 * delta_eb && -tip_lin < 1.05 * delta_eb,
                  "linear FE tip %g implausible against beam theory %g", -tip_lin, delta_eb);
        }
        CHECK(sim_step(&f.s, 1.0, &r) == SIPD_OK, "step failed");
        CHECK(solved(&r, k == 1), "%s: not converged (r = %.2e after %d)", k ? "newton" : "sipd", r.residual,
              r.iterations);
        x = positions(&f);
        for (a = 0; a < f.m.nv; a++) {
            int c;
            for (c = 0; c < 3; c++) dmax = fmax(dmax, fabs(x[3 * a + c] - f.m.X[3 * a + c] - ulin[3 * a + c]));
            if (fabs(f.m.X[3 * a] - L) < 1e-9)
                tip += x[3 * a + 1] - f.m.X[3 * a + 1];
        }
        tip /= ntip;
        err = fabs(tip - tip_lin) / fabs(tip_lin);
        printf("cantilever_linear: %-6s tip deflection %.6e m, linear FE %.6e m: relative difference %.2e; "
               "max nodal |u - u_lin| / max |u_lin| = %.2e; %d iterations, %.2f s\n",
               k ? "newton" : "sipd", -tip, -tip_lin, err, dmax / ulin_max, r.iterations, r.wall);
        CHECK(err < 0.02, "%s tip deflection differs from linear FE by %.2f%%", k ? "newton" : "sipd", 100 * err);
        CHECK(dmax < 0.02 * ulin_max, "%s displacement field differs from linear FE by %.2f%% of the maximum",
              k ? "newton" : "sipd", 100 * dmax / ulin_max);
        free(x);
        fixture_free(&f);
    }
    free(ulin);
}

/* ======================================================================================= */
/* 3. Full-step acceptance of the expanded split; the "none" ablation                       */
/* ======================================================================================= */
typedef struct {
    long full, steps;      /* iterations with α = 1 / iterations that attempted a step */
    int converged, stalled, failed, nsteps;
    long iterations, nonspd, dirs;
    double residual;
} step_record;

/* Run `nsteps` dynamic steps of h = 1/60 s; count α = 1 among the logged iterations (the
 * final converged entry, which takes no step, excluded; a stalled line search counts as a
 * rejected step). */
static int run_steps(const char *text, const char *tag, int nsteps, step_record *rec)
{
    fixture f;
    int step, i;
    memset(rec, 0, sizeof *rec);
    if (setup_text(&f, text, tag))
        return 1;
    count_nonspd = count_dirs = 0;
    rec->converged = 1;
    for (step = 0; step < nsteps; step++) {
        sipd_solve_result r;
        if (sim_step(&f.s, 1.0 / 60, &r) != SIPD_OK) {
            rec->failed = 1;
            break;
        }
        rec->nsteps++;
        for (i = 0; i < f.s.nhist; i++) {
            if (r.converged && i == f.s.nhist - 1)
                continue;
            rec->steps++;
            rec->full += f.s.halpha[i] == 1.0;
        }
        rec->iterations += r.iterations;
        rec->converged = rec->converged && r.converged;
        rec->stalled += r.stalled;
        rec->residual = r.residual;
    }
    rec->nonspd = count_nonspd;
    rec->dirs = count_dirs;
    fixture_free(&f);
    return 0;
}

static void print_record(const char *name, const step_record *r)
{
    printf("full_step: %-44s %ld/%ld full steps accepted (%.4f), %ld iterations in %d steps, %s%s, last residual "
           "%.2e, non-SPD blocks %ld in %ld direction passes\n",
           name, r->full, r->steps, r->steps ? (double)r->full / r->steps : 0.0, r->iterations, r->nsteps,
           r->failed ? "FAILED (diverged)" : r->converged ? "converged" : "not converged",
           r->stalled ? ", line search stalled" : "", r->residual, r->nonspd, r->dirs);
}

static void test_full_step(void)
{
    const char *cube = box_mesh(4, 4, 4, 0.4, 0.4, 0.4);
    char beam[600], text[4096];
    const char *plain = "sweep = \"jacobi\"; chebyshev = false; line_search = \"always\";";
    step_record rc_cube, rc_cube60, rc_beam, rc_none, rc_exp45;
    if (!cube) {
        CHECK(0, "mesh generation failed");
        return;
    }
    {
        const char *b = box_mesh(10, 2, 2, 1.0, 0.2, 0.2);
        if (!b) {
            CHECK(0, "mesh generation failed");
            return;
        }
        snprintf(beam, sizeof beam, "%s", b);
    }

    /* (a) released compressed cube, ν = 0.499, expanded split */
    snprintf(text, sizeof text,
             "time = { dt = 0.0166667; frames = 3; };\n"
             "solver = { %s projection = \"expanded\"; iterations = 3000; tolerance = 1.0e-7; };\n"
             "gravity = [0.0, 0.0, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.499; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.8, 0.8, 0.8]; } );\n",
             plain, cube);
    CHECK(run_steps(text, "fs_cube", 3, &rc_cube) == 0, "setup failed");
    print_record("cube from 80%, nu=0.499, expanded", &rc_cube);
    CHECK(!rc_cube.failed && rc_cube.steps > 100, "cube: %ld iterations logged", rc_cube.steps);
    CHECK(rc_cube.full > 0.9 * rc_cube.steps, "cube: full step accepted in only %ld of %ld iterations", rc_cube.full,
          rc_cube.steps);
    CHECK(rc_cube.nonspd == 0, "cube: %ld non-SPD blocks with the expanded split", rc_cube.nonspd);

    /* (a') the same cube released from 60% (volume 0.216) */
    snprintf(text, sizeof text,
             "time = { dt = 0.0166667; frames = 3; };\n"
             "solver = { %s projection = \"expanded\"; iterations = 3000; tolerance = 1.0e-7; };\n"
             "gravity = [0.0, 0.0, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.499; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.6, 0.6, 0.6]; } );\n",
             plain, cube);
    CHECK(run_steps(text, "fs_cube60", 3, &rc_cube60) == 0, "setup failed");
    print_record("cube from 60%, nu=0.499, expanded", &rc_cube60);
    CHECK(!rc_cube60.failed && rc_cube60.steps > 100, "cube 60%%: %ld iterations logged", rc_cube60.steps);
    CHECK(rc_cube60.full > 0.9 * rc_cube60.steps, "cube 60%%: full step accepted in only %ld of %ld iterations",
          rc_cube60.full, rc_cube60.steps);
    CHECK(rc_cube60.nonspd == 0, "cube 60%%: %ld non-SPD blocks with the expanded split", rc_cube60.nonspd);
    {   /* for comparison (recorded, not asserted): the sign split on the same step, which
         * docs/design.md §3.8 says relies on the line search at high ν */
        step_record rs;
        char t2[4096];
        snprintf(t2, sizeof t2,
                 "time = { dt = 0.0166667; frames = 3; };\n"
                 "solver = { %s projection = \"sign\"; iterations = 3000; tolerance = 1.0e-7; };\n"
                 "gravity = [0.0, 0.0, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.499; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.6, 0.6, 0.6]; } );\n",
                 plain, cube);
        if (run_steps(t2, "fs_sign60", 3, &rs) == 0)
            print_record("cube from 60%, nu=0.499, sign (record)", &rs);
    }

    /* (b) cantilever under gravity, ν = 0.499, expanded split */
    snprintf(text, sizeof text,
             "time = { dt = 0.0166667; frames = 3; };\n"
             "solver = { %s projection = \"expanded\"; iterations = 3000; tolerance = 1.0e-7; };\n"
             "gravity = [0.0, -9.81, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.499; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\";\n"
             "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n",
             plain, beam);
    CHECK(run_steps(text, "fs_beam", 3, &rc_beam) == 0, "setup failed");
    print_record("cantilever, nu=0.499, expanded", &rc_beam);
    CHECK(!rc_beam.failed && rc_beam.steps > 100, "cantilever: %ld iterations logged", rc_beam.steps);
    CHECK(rc_beam.full > 0.9 * rc_beam.steps, "cantilever: full step accepted in only %ld of %ld iterations",
          rc_beam.full, rc_beam.steps);
    CHECK(rc_beam.nonspd == 0, "cantilever: %ld non-SPD blocks with the expanded split", rc_beam.nonspd);

    /* (c) ν = 0.45, cube released from 60%: expanded (asserted) vs the "none" ablation (recorded) */
    snprintf(text, sizeof text,
             "time = { dt = 0.0166667; frames = 3; };\n"
             "solver = { %s projection = \"expanded\"; iterations = 5000; tolerance = 1.0e-7; };\n"
             "gravity = [0.0, 0.0, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.45; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.6, 0.6, 0.6]; } );\n",
             plain, cube);
    CHECK(run_steps(text, "fs_exp45", 3, &rc_exp45) == 0, "setup failed");
    print_record("cube from 60%, nu=0.45, expanded", &rc_exp45);
    CHECK(!rc_exp45.failed && rc_exp45.converged, "expanded split did not converge at nu = 0.45 in compression");
    CHECK(rc_exp45.full > 0.9 * rc_exp45.steps, "expanded nu=0.45: full step accepted in only %ld of %ld",
          rc_exp45.full, rc_exp45.steps);

    snprintf(text, sizeof text,
             "time = { dt = 0.0166667; frames = 3; };\n"
             "solver = { %s projection = \"none\"; iterations = 5000; tolerance = 1.0e-7; };\n"
             "gravity = [0.0, 0.0, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.45; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.6, 0.6, 0.6]; } );\n",
             plain, cube);
    CHECK(run_steps(text, "fs_none45", 3, &rc_none) == 0, "setup failed");
    print_record("cube from 60%, nu=0.45, none (ablation)", &rc_none);
    {   /* milder compression, recorded */
        step_record r8;
        snprintf(text, sizeof text,
                 "time = { dt = 0.0166667; frames = 3; };\n"
                 "solver = { %s projection = \"none\"; iterations = 5000; tolerance = 1.0e-7; };\n"
                 "gravity = [0.0, 0.0, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.45; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.8, 0.8, 0.8]; } );\n",
                 plain, cube);
        if (run_steps(text, "fs_none45_80", 3, &r8) == 0)
            print_record("cube from 80%, nu=0.45, none (ablation)", &r8);
    }
    /* Recorded, not asserted beyond this: K⁺ = K is indefinite under compression, so the
     * ablation must report non-SPD blocks (the counter works) in its first direction pass. */
    CHECK(rc_none.nonspd > 0, "the none split reported no non-SPD block under 60%% compression");
}

static int prog_setup(const char *which, int argc, char **argv)
{
    static char mesh_abs[4096];
    if (argc > 2) /* the scene resolves mesh paths against its own directory: make it absolute */
        plate_mesh = realpath(argv[2], mesh_abs) ? mesh_abs : argv[2];
    if (scratch_open("test_verify", which))
        return 1;
    sipd_quiet = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    return 0;
}

static const test_case cases[] = {
    {"plate_hole", .run = test_plate_hole, .args = "[MESH]"},
    {"cantilever_linear", .run = test_cantilever_linear},
    {"full_step", .run = test_full_step},
};
static const test_program program = {"test_verify", TEST_CASES(cases), .dflt = "all", .all = 1, .setup = prog_setup,
                                     .teardown = scratch_close};
TEST_MAIN(program)
