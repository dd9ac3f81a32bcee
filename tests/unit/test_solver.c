/* test_solver.c — the SIPD solver against independent references.
 *
 * Each case writes a generated box mesh and a scene into a scratch directory, loads them
 * through the real scene and mesh code, and drives the solver through the sim_* API.
 *   energy      energy never increases across accepted iterations (line_search = "always")
 *   release     a cube released from 60% scale returns to its rest volume
 *   uniaxial    quasi-static stretch of a long bar: the mid-section's lateral stretch matches
 *               the analytic stable-neo-Hookean uniaxial response
 *   beam        quasi-static cantilever under a small load approaches Euler–Bernoulli theory
 *               as the mesh is refined (errors recorded in the output)
 *   sweeps      Jacobi, Jacobi+Chebyshev and Gauss–Seidel reach the same solution; Chebyshev
 *               with adaptive rho needs fewer iterations than plain Jacobi
 *   kinematic   vertices of a rotating `move` box follow the prescribed rotation exactly
 *   methods     every solver at a tight tolerance reaches the Newton solution of the same steps
 *               (stretch, compression, bending; nu = 0.3, 0.45, 0.49)
 *   budget      at a fixed budget (1 step x 200 iterations per frame) Jacobi + Chebyshev stays
 *               within 5% of Newton's cantilever trajectory at nu = 0.3
 *   ground      ground contact: a resting cube keeps its gap in [0, d̂] without drift, a body
 *               far away has no contact, a dropped cube stays within a stated penetration
 *   incline     tilted gravity with friction 0.5: sticks below atan(0.5), slides above with
 *               the Coulomb distance
 *   momentum    the logged momentum error equals the measured change of Σ m v; flagged when
 *               the solves are under-converged, not when converged
 *   newton_roundoff  Newton + "auto" on a 1 GPa beam converges without restoring a snapshot
 *   guess       the adaptive initial guess: the pass's formula on one vertex; a resting cube
 *               reaches the same positions as from ỹ, in fewer iterations
 *   fused       the CPU's fused SIPD Jacobi pass (backend_cpu.c fuse_setup: element terms summed
 *               straight into per-vertex accumulators) against the gather it replaces
 *               (SIPD_CPU_GATHER=1): a stretched box with pins, ground contact and friction, 8
 *               steps of 40 iterations — positions within 1e-9 of the box size (only the order
 *               of the sums differs), and bit-identical with 1 and 2 threads; the steps' loads
 *               (the gradient pass step_load_eval runs fused as well) within 1e-10, not identical
 *   chunks      the fused pass's tet chunks follow the mesh (2048 tets on a 96k-tet box, 64 on a
 *               4608-tet one) and colour it validly (every tet once, no shared vertex in a colour)
 *   table       every implemented method-table row names a solver family with a solve, and
 *               method_solver picks the family the driver runs for each method and sweep
 *               (also at compile time: method.h includes no scene.h, issue 30)
 */
#define _POSIX_C_SOURCE 200809L
#include "method.h"   /* first: on its own it must not bring in the scene (layering) */
#ifdef SIPD_SCENE_H
#error "method.h includes scene.h: the scene includes method.h for the method enum, not the other way"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "physics/tet.h"
#include "passes.h"
#include "fixture.h"
#include "runner.h"

/* Write box mesh nx*ny*nz (size lx*ly*lz) and a scene (text with %s for the mesh base) and
 * load everything. */
static int setup(fixture *f, int nx, int ny, int nz, double lx, double ly, double lz, const char *scene_fmt,
                 int split)
{
    char base[600], text[8192];
    if (write_box(base, sizeof base, nx, ny, nz, lx, ly, lz))
        return 1;
    snprintf(text, sizeof text, scene_fmt, base);
    (void)split; /* the scene's solver.projection decides; kept for readability at call sites */
    return fixture_load(f, text);
}

static double volume(const sipd_model *m, const double *x)
{
    double V = 0;
    int e;
    for (e = 0; e < m->nt; e++) {
        const int *t = m->tets + 4 * e;
        mat3 D = m3_from_cols(v3_sub(v3_load(x + 3 * t[1]), v3_load(x + 3 * t[0])),
                              v3_sub(v3_load(x + 3 * t[2]), v3_load(x + 3 * t[0])),
                              v3_sub(v3_load(x + 3 * t[3]), v3_load(x + 3 * t[0])));
        V += m3_det(D) / 6;
    }
    return V;
}

/* ------------------------------------------------------------------------------------- */
static void test_energy(void)
{
    static const char *variants[] = {
        /* SIPD's own sweep (the coarse level's energy: test_coarse energy) */
        "sweep = \"jacobi\"; chebyshev = false; projection = \"expanded\"; coarse = { levels = 1; };",
        "sweep = \"jacobi\"; chebyshev = false; projection = \"sign\"; coarse = { levels = 1; };",
        "sweep = \"jacobi\"; chebyshev = true; projection = \"expanded\";",
        "sweep = \"gauss-seidel\"; projection = \"sign\";",
    };
    static const int splits[] = {SIPD_SPLIT_EXPANDED, SIPD_SPLIT_SIGN, SIPD_SPLIT_EXPANDED, SIPD_SPLIT_SIGN};
    int v;
    for (v = 0; v < 4; v++) {
        fixture f;
        char fmt[2048];
        int step, checked = 0;
        snprintf(fmt, sizeof fmt,
                 "time = { dt = 0.0166667; frames = 5; };\n"
                 "solver = { %s iterations = 60; tolerance = 0.0; line_search = \"always\"; };\n"
                 "gravity = [0.0, -9.81, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.45; } );\n"
                 "bodies = ( { mesh = \"%%s\"; material = \"m\"; initial_stretch = [0.6, 1.3, 0.7]; } );\n",
                 variants[v]);
        if (setup(&f, 4, 4, 4, 0.4, 0.4, 0.4, fmt, splits[v])) {
            CHECK(0, "setup failed");
            return;
        }
        for (step = 0; step < 5; step++) {
            sipd_solve_result r;
            int i;
            double prev = INFINITY;
            CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
            for (i = 0; i < f.s.nhist; i++) {
                double E = f.s.hE[i];
                if (isnan(E))
                    continue;
                CHECK(E <= prev, "variant %d step %d iteration %d: energy rose %.17g -> %.17g", v, step, i, prev, E);
                prev = E;
                checked++;
            }
        }
        CHECK(checked > 100, "variant %d: only %d energies logged", v, checked);
        printf("energy: variant %d: %d logged energies, all non-increasing\n", v, checked);
        fixture_free(&f);
    }
}

/* ------------------------------------------------------------------------------------- */
static void test_release(void)
{
    fixture f;
    double *x, V0, Vrest, Vend;
    int frame;
    if (setup(&f, 4, 4, 4, 0.4, 0.4, 0.4,
              "time = { dt = 0.0166667; frames = 90; };\n"
              "solver = { sweep = \"jacobi\"; chebyshev = true; iterations = 200; tolerance = 1.0e-8; };\n"
              "gravity = [0.0, 0.0, 0.0];\n"
              "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.45; } );\n"
              "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.6, 0.6, 0.6]; } );\n",
              SIPD_SPLIT_EXPANDED)) {
        CHECK(0, "setup failed");
        return;
    }
    x = malloc(sizeof(double) * 3 * f.m.nv);
    Vrest = volume(&f.m, f.m.X);
    V0 = volume(&f.m, f.m.X0);
    CHECK(fabs(V0 / Vrest - 0.216) < 1e-9, "initial volume ratio %g", V0 / Vrest);
    for (frame = 0; frame < 90; frame++) {
        sipd_solve_result r;
        CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
    }
    f.s.ops->download(f.s.b, x, NULL);
    Vend = volume(&f.m, x);
    printf("release: volume/rest: start %.4f, after 1.5 s %.5f\n", V0 / Vrest, Vend / Vrest);
    CHECK(fabs(Vend / Vrest - 1) < 0.01, "volume did not recover: %g", Vend / Vrest);
    free(x);
    fixture_free(&f);
}

/* ------------------------------------------------------------------------------------- */
/* lateral stretch b for axial stretch a under uniaxial stress: μ + λ(a b² − α) a = 0 */
static double uniaxial_lateral(const sipd_material *mt, double a)
{
    return sqrt((mt->alpha - mt->mu / (mt->lambda * a)) / a);
}

static void test_uniaxial(void)
{
    fixture f;
    double *x, L = 2.4, W = 0.3;
    int frame, a;
    if (setup(&f, 24, 3, 3, L, W, W,
              "time = { dt = 0.1; frames = 4; quasistatic = true; };\n"
              "solver = { sweep = \"jacobi\"; chebyshev = true; iterations = 20000; tolerance = 1.0e-6; };\n"
              "gravity = [0.0, 0.0, 0.0];\n"
              "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
              "bodies = ( { mesh = \"%s\"; material = \"m\";\n"
              "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; };\n"
              "  move = { box_min = [2.39, -1.0, -1.0]; box_max = [2.41, 1.0, 1.0]; velocity = [1.2, 0.0, 0.0]; }; } );\n",
              SIPD_SPLIT_EXPANDED)) {
        CHECK(0, "setup failed");
        return;
    }
    x = malloc(sizeof(double) * 3 * f.m.nv);
    for (frame = 1; frame <= 4; frame++) {
        sipd_solve_result r;
        double xl = 0, xr = 0, ymin = INFINITY, ymax = -INFINITY, zmin = INFINITY, zmax = -INFINITY, as, bs, bt;
        int nl = 0, nr = 0;
        CHECK(sim_step(&f.s, 0.1, &r) == SIPD_OK && r.converged, "frame %d: not converged (r = %g)", frame, r.residual);
        f.s.ops->download(f.s.b, x, NULL);
        /* axial stretch of the middle third, lateral stretch of the mid cross-section */
        for (a = 0; a < f.m.nv; a++) {
            double X = f.m.X[3 * a];
            if (fabs(X - L / 3) < 1e-9) { xl += x[3 * a]; nl++; }
            if (fabs(X - 2 * L / 3) < 1e-9) { xr += x[3 * a]; nr++; }
            if (fabs(X - L / 2) < 1e-9) {
                ymin = fmin(ymin, x[3 * a + 1]); ymax = fmax(ymax, x[3 * a + 1]);
                zmin = fmin(zmin, x[3 * a + 2]); zmax = fmax(zmax, x[3 * a + 2]);
            }
        }
        as = (xr / nr - xl / nl) / (L / 3);
        bs = 0.5 * ((ymax - ymin) + (zmax - zmin)) / W;
        bt = uniaxial_lateral(&f.m.mats[0], as);
        printf("uniaxial: end stretch %.3f, mid axial stretch %.5f, lateral %.5f, analytic %.5f (rel. err %.2e), %d iterations\n",
               1 + 0.12 * frame / 2.4, as, bs, bt, fabs(bs - bt) / bt, r.iterations);
        CHECK(fabs(bs - bt) / bt < 0.01, "frame %d: lateral stretch %g vs analytic %g", frame, bs, bt);
        CHECK(as > 1 + 0.9 * 0.12 * frame / 2.4, "frame %d: axial stretch %g too small", frame, as);
    }
    free(x);
    fixture_free(&f);
}

/* ------------------------------------------------------------------------------------- */
static void test_beam(void)
{
    /* Euler–Bernoulli cantilever under its own weight q = ρ g A: tip deflection q L⁴ / (8 E I) */
    const double L = 1.0, W = 0.1, E = 1.0e9, rho = 1000, g = 9.81, I = W * W * W * W / 12;
    const double delta = rho * g * W * W * L * L * L * L / (8 * E * I);
    static const int ns[] = {10, 20, 40};
    double err[3];
    int k;
    for (k = 0; k < 3; k++) {
        fixture f;
        sipd_solve_result r;
        double *x, tip = 0;
        int a, n = 0, nn = ns[k] / 10;
        char fmt[2048];
        snprintf(fmt, sizeof fmt,
                 "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
                 "solver = { sweep = \"jacobi\"; chebyshev = true; iterations = 60000; tolerance = 1.0e-5; };\n"
                 "gravity = [0.0, -9.81, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = %.1f; poisson = 0.3; density = %.1f; } );\n"
                 "bodies = ( { mesh = \"%%s\"; material = \"m\";\n"
                 "  pin = { box_min = [-0.001, -1.0, -1.0]; box_max = [0.001, 1.0, 1.0]; }; } );\n",
                 E, rho);
        if (setup(&f, ns[k], nn, nn, L, W, W, fmt, SIPD_SPLIT_EXPANDED)) {
            CHECK(0, "setup failed");
            return;
        }
        x = malloc(sizeof(double) * 3 * f.m.nv);
        CHECK(sim_step(&f.s, 1.0, &r) == SIPD_OK && r.converged, "n=%d: not converged (r = %g after %d)", ns[k],
              r.residual, r.iterations);
        f.s.ops->download(f.s.b, x, NULL);
        for (a = 0; a < f.m.nv; a++)
            if (fabs(f.m.X[3 * a] - L) < 1e-9) {
                tip += x[3 * a + 1] - f.m.X[3 * a + 1];
                n++;
            }
        tip /= n;
        err[k] = fabs(-tip - delta) / delta;
        printf("beam: %3d x %d x %d cells (%5d tets): tip %.6e m, beam theory %.6e m, error %.1f%%, %d iterations\n",
               ns[k], nn, nn, f.m.nt, -tip, delta, 100 * err[k], r.iterations);
        CHECK(-tip > 0 && -tip < delta * 1.05, "n=%d: tip %g must be below the beam-theory value %g (stiff tets)",
              ns[k], -tip, delta);
        free(x);
        fixture_free(&f);
    }
    CHECK(err[1] < err[0] && err[2] < err[1], "error does not decrease with refinement: %g %g %g", err[0], err[1],
          err[2]);
    CHECK(err[2] < 0.5 * err[0], "refinement gains too little: %g -> %g", err[0], err[2]);
}

/* ------------------------------------------------------------------------------------- */
static void test_sweeps(void)
{
    static const char *variants[] = {
        "sweep = \"jacobi\"; chebyshev = false; line_search = \"always\"; coarse = { levels = 1; };",   /* plain SIPD */
        "sweep = \"jacobi\"; chebyshev = true; line_search = \"auto\";",
        "sweep = \"gauss-seidel\"; line_search = \"always\";",
    };
    double *ref = NULL;
    int iters[3], v;
    for (v = 0; v < 3; v++) {
        fixture f;
        sipd_solve_result r;
        char fmt[2048];
        double *x, dmax = 0;
        int a, total = 0, step;
        snprintf(fmt, sizeof fmt,
                 "time = { dt = 0.0166667; frames = 3; };\n"
                 "solver = { %s iterations = 20000; tolerance = 1.0e-5; };\n"
                 "gravity = [0.0, -9.81, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
                 "bodies = ( { mesh = \"%%s\"; material = \"m\";\n"
                 "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n",
                 variants[v]);
        if (setup(&f, 10, 2, 2, 1.0, 0.2, 0.2, fmt, SIPD_SPLIT_EXPANDED)) {
            CHECK(0, "setup failed");
            return;
        }
        for (step = 0; step < 3; step++) {
            CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK && r.converged, "variant %d step %d not converged", v, step);
            total += r.iterations;
        }
        iters[v] = total;
        x = malloc(sizeof(double) * 3 * f.m.nv);
        f.s.ops->download(f.s.b, x, NULL);
        if (!ref) {
            ref = x;
        } else {
            for (a = 0; a < 3 * f.m.nv; a++) dmax = fmax(dmax, fabs(x[a] - ref[a]));
            free(x);
        }
        printf("sweeps: variant %d: %d iterations for 3 steps, max |x - x_jacobi| = %.2e m\n", v, total, dmax);
        CHECK(dmax < 1e-5 * f.m.bbox_diag, "variant %d differs from plain Jacobi by %g", v, dmax);
        fixture_free(&f);
    }
    free(ref);
    CHECK(iters[1] * 3 < iters[0], "Chebyshev (%d) not clearly faster than plain Jacobi (%d)", iters[1], iters[0]);
}

/* ------------------------------------------------------------------------------------- */
static void test_kinematic(void)
{
    fixture f;
    double *x, dmax = 0, w = 1.5707963;
    int a, n = 0, step;
    if (setup(&f, 8, 2, 2, 0.8, 0.2, 0.2,
              "time = { dt = 0.0166667; frames = 30; };\n"
              "solver = { iterations = 30; };\n"
              "gravity = [0.0, 0.0, 0.0];\n"
              "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
              "bodies = ( { mesh = \"%s\"; material = \"m\"; translate = [0.0, -0.1, -0.1];\n"
              "  move = { box_min = [0.79, -1.0, -1.0]; box_max = [0.81, 1.0, 1.0];\n"
              "           angular_velocity = [1.5707963, 0.0, 0.0]; center = [0.0, 0.0, 0.0]; }; } );\n",
              SIPD_SPLIT_EXPANDED)) {
        CHECK(0, "setup failed");
        return;
    }
    for (step = 0; step < 30; step++) {
        sipd_solve_result r;
        CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
    }
    x = malloc(sizeof(double) * 3 * f.m.nv);
    f.s.ops->download(f.s.b, x, NULL);
    for (a = 0; a < f.m.nv; a++) {
        const double *X = f.m.X + 3 * a, th = w * 0.5;
        double ey, ez;
        if (fabs(X[0] - 0.8) > 1e-9)
            continue;
        ey = cos(th) * X[1] - sin(th) * X[2];
        ez = sin(th) * X[1] + cos(th) * X[2];
        dmax = fmax(dmax, fmax(fabs(x[3 * a] - X[0]), fmax(fabs(x[3 * a + 1] - ey), fabs(x[3 * a + 2] - ez))));
        n++;
    }
    printf("kinematic: %d moved vertices, max deviation from the prescribed rotation %.2e m\n", n, dmax);
    CHECK(n == 9, "expected 9 end vertices, got %d", n);
    CHECK(dmax < 1e-9, "moved vertices deviate by %g", dmax);
    free(x);
    fixture_free(&f);
}


/* ------------------------------------------------------------------------------------- */
/* Every method at a tight tolerance reaches the Newton solution of the same time step
 * (docs/design.md §6): stretch, compression and bending, nu = 0.3 / 0.45 / 0.49. */
static void test_methods(void)
{
    static const char *cases[3] = {
        /* stretch: right end pulled at 3 m/s */
        "gravity = [0.0, 0.0, 0.0];\n"
        "bodies = ( { mesh = \"%s\"; material = \"m\";\n"
        "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; };\n"
        "  move = { box_min = [0.99, -1.0, -1.0]; box_max = [1.01, 1.0, 1.0]; velocity = [3.0, 0.0, 0.0]; }; } );\n",
        /* compression: released from 70% */
        "gravity = [0.0, 0.0, 0.0];\n"
        "bodies = ( { mesh = \"%s\"; material = \"m\"; initial_stretch = [0.7, 0.7, 0.7]; } );\n",
        /* bending: cantilever under 10 g */
        "gravity = [0.0, -98.1, 0.0];\n"
        "bodies = ( { mesh = \"%s\"; material = \"m\";\n"
        "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n"};
    static const char *case_names[3] = {"stretch", "compression", "bending"};
    static const double nus[3] = {0.3, 0.45, 0.49};
    static const char *methods[] = {
        "method = \"newton\";",
        "method = \"sipd\"; sweep = \"jacobi\"; chebyshev = true;",
        "method = \"sipd\"; sweep = \"jacobi\"; projection = \"sign\";",
        "method = \"sipd\"; sweep = \"gauss-seidel\"; projection = \"sign\";",
        "method = \"vbd\";",
        "method = \"block-jacobi\";",
        "method = \"diag-jacobi\"; chebyshev = true;",
        "method = \"gd\"; chebyshev = true;",
    };
    const int nmeth = (int)(sizeof methods / sizeof methods[0]);
    int c, v, k;
    for (c = 0; c < 3; c++)
        for (v = 0; v < 3; v++) {
            double *ref = NULL;
            for (k = 0; k < nmeth; k++) {
                fixture f;
                sipd_solve_result r;
                char fmt[4096];
                double *x, dmax = 0;
                int a, step;
                snprintf(fmt, sizeof fmt,
                         "time = { dt = 0.0166667; frames = 2; };\n"
                         "solver = { %s iterations = 50000; tolerance = %s; line_search = \"always\"; };\n"
                         "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = %.2f; } );\n%s",
                         methods[k], k == 0 ? "1.0e-10" : "1.0e-7", nus[v], cases[c]);
                if (setup(&f, 10, 2, 2, 1.0, 0.2, 0.2, fmt, 0)) {
                    CHECK(0, "setup failed");
                    return;
                }
                /* Plain gradient descent (D = m/h² I) stalls at the energy's round-off floor when
                 * compressed at nu >= 0.45 (docs/design.md §3.8): recorded, not asserted. */
                int gd_known = strstr(methods[k], "\"gd\"") && c == 1 && nus[v] >= 0.45;
                /* a relative force residual of 1e-7 is what puts every case within 1e-4 of the model
                   size (1e-5 left ν = 0.49 compression 1e-3 away).  Newton and SIPD Jacobi +
                   Chebyshev must converge to it; the others cannot everywhere in 50000 iterations
                   (plain Jacobi variants are slow; Gauss–Seidel and VBD floor near 3e-7..1e-6, their
                   per-vertex line search at the local energy's round-off, docs/convergence.md): their at-cap or
                   stalled solves are not failures here, their positions are still checked */
                int ok = 1, slow = k >= 2;
                for (step = 0; step < 2; step++) {
                    CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
                    ok = ok && (r.converged || (slow && r.status != SIPD_SOLVE_DIVERGED));
                }
                CHECK(ok || gd_known, "%s nu=%.2f %s: not converged (r = %.2e after %d%s)", case_names[c], nus[v],
                      methods[k], r.residual, r.iterations, r.stalled ? ", stalled" : "");
                x = malloc(sizeof(double) * 3 * f.m.nv);
                f.s.ops->download(f.s.b, x, NULL);
                if (!ref) {
                    ref = x;
                    printf("methods: %-11s nu=%.2f  newton: %d iterations in the last step\n", case_names[c], nus[v],
                           r.iterations);
                } else {
                    for (a = 0; a < 3 * f.m.nv; a++) dmax = fmax(dmax, fabs(x[a] - ref[a]));
                    free(x);
                    printf("methods: %-11s nu=%.2f  %-55s %6d iterations, max |x - x_newton| / size = %.1e%s\n",
                           case_names[c], nus[v], methods[k], r.iterations, dmax / f.m.bbox_diag,
                           !gd_known ? ""
                           : dmax < 1e-4 * f.m.bbox_diag ? "  (gd reached Newton)"
                                                         : "  (gd stalled away from Newton: known, not asserted)");
                    CHECK(dmax < 1e-4 * f.m.bbox_diag || gd_known, "%s nu=%.2f %s: differs from Newton by %g",
                          case_names[c], nus[v], methods[k], dmax);
                }
                fixture_free(&f);
            }
            free(ref);
        }
}

/* ------------------------------------------------------------------------------------- */
/* Accuracy at the scene's own budget (docs/design.md §3.8): DESIGN's cantilever (525 vertices),
 * nu = 0.3, 30 frames of 1/60 s, one step of 200 iterations per frame.  The best configuration
 * (SIPD Jacobi + Chebyshev with adaptive rho) must stay within 5% of Newton's tip deflection;
 * plain Jacobi at the same budget is printed for contrast (tools/budget-accuracy.sh has the
 * whole table). */
static double budget_tip(const char *solver)
{
    fixture f;
    char fmt[2048];
    double *x, tip;
    int frame, a = 20 + 21 * (2 + 5 * 2); /* vertex (20, 2, 2): centre of the free end face */
    snprintf(fmt, sizeof fmt,
             "time = { dt = 0.0166667; frames = 30; };\n"
             "solver = { %s };\n"
             "gravity = [0.0, -9.81, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
             "bodies = ( { mesh = \"%%s\"; material = \"m\";\n"
             "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n",
             solver);
    if (setup(&f, 20, 4, 4, 1.0, 0.2, 0.2, fmt, 0)) {
        CHECK(0, "setup failed");
        return NAN;
    }
    for (frame = 0; frame < 30; frame++) {
        sipd_solve_result r;
        CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
    }
    x = malloc(sizeof(double) * 3 * f.m.nv);
    f.s.ops->download(f.s.b, x, NULL);
    tip = x[3 * a + 1] - f.m.X[3 * a + 1];
    free(x);
    fixture_free(&f);
    return tip;
}

static void test_budget(void)
{
    double tn = budget_tip("method = \"newton\"; iterations = 50; tolerance = 1.0e-10;");
    double tc = budget_tip("method = \"sipd\"; sweep = \"jacobi\"; chebyshev = true; iterations = 200; tolerance = 0.0;");
    double tp = budget_tip("method = \"sipd\"; sweep = \"jacobi\"; line_search = \"always\"; iterations = 200; tolerance = 0.0;");
    double ec = fabs(tc - tn) / fabs(tn), ep = fabs(tp - tn) / fabs(tn);
    printf("budget: tip deflection after 0.5 s: newton %.1f mm, jacobi+chebyshev %.1f mm (error %.2f%%), "
           "plain jacobi %.1f mm (error %.1f%%)\n", 1000 * tn, 1000 * tc, 100 * ec, 1000 * tp, 100 * ep);
    CHECK(tn < -0.1 && tn > -1.0, "newton tip deflection %g m out of the plausible range", tn);
    CHECK(ec < 0.05, "jacobi+chebyshev at 1 x 200 is %.1f%% off newton (limit 5%%)", 100 * ec);
}

/* ------------------------------------------------------------------------------------- */
/* Ground contact (docs/design.md §3.6, §6): a cube of 4x4x4 cells (0.4 m, 64 kg, E = 1e6) on the
 * plane y = 0 with d̂ = 0.01 m and μ = 0.5, gravity tilted by theta about z. Returns the mean
 * x displacement after `frames` frames; min gap, max penetration and contacts via pointers. */
static double ground_run(double theta_deg, double y0, int frames, double *min_gap, double *max_pen, int *contacts,
                         double *drift_z)
{
    fixture f;
    char fmt[2048];
    double *x, th = theta_deg * 3.14159265358979323846 / 180, dx = 0, dz = 0;
    int frame, a;
    snprintf(fmt, sizeof fmt,
             "time = { dt = 0.0166667; substeps = 2; frames = %d; };\n"
             "solver = { sweep = \"jacobi\"; chebyshev = true; iterations = 100; tolerance = 1.0e-7; };\n"
             "gravity = [%.9f, %.9f, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
             "bodies = ( { mesh = \"%%s\"; material = \"m\"; translate = [0.0, %.6f, 0.0]; } );\n"
             "contact = { dhat = 0.01; friction = 0.5; ground = { height = 0.0; }; };\n",
             frames, 9.81 * sin(th), -9.81 * cos(th), y0);
    if (setup(&f, 4, 4, 4, 0.4, 0.4, 0.4, fmt, 0)) {
        CHECK(0, "setup failed");
        return NAN;
    }
    *max_pen = 0;
    *contacts = 0;
    for (frame = 0; frame < 2 * frames; frame++) {
        sipd_solve_result r;
        CHECK(sim_step(&f.s, 1.0 / 120, &r) == SIPD_OK, "step failed");
        *max_pen = fmax(*max_pen, r.max_pen);
        *contacts = r.contacts;
    }
    x = malloc(sizeof(double) * 3 * f.m.nv);
    f.s.ops->download(f.s.b, x, NULL);
    *min_gap = INFINITY;
    for (a = 0; a < f.m.nv; a++) {
        dx += (x[3 * a] - f.m.X0[3 * a]) / f.m.nv;
        dz += (x[3 * a + 2] - f.m.X0[3 * a + 2]) / f.m.nv;
        *min_gap = fmin(*min_gap, x[3 * a + 1]);
    }
    *drift_z = dz;
    free(x);
    fixture_free(&f);
    return dx;
}

static void test_ground(void)
{
    double gap, pen, dz, dx;
    int n;
    /* at rest on the ground: gap within [0, d̂], no drift, the 25 bottom vertices in contact */
    dx = ground_run(0, 0.0098, 60, &gap, &pen, &n, &dz);
    printf("ground: resting cube after 1 s: min gap %.5f m, drift (%.1e, %.1e) m, %d contacts, max penetration %.1e m\n",
           gap, dx, dz, n, pen);
    CHECK(gap >= 0 && gap <= 0.01, "resting gap %g outside [0, dhat]", gap);
    CHECK(fabs(dx) < 1e-4 && fabs(dz) < 1e-4, "resting cube drifted (%g, %g)", dx, dz);
    CHECK(n == 25, "%d contacts, expected the 25 bottom vertices", n);
    /* far above the ground: no contact at all */
    ground_run(0, 5.0, 5, &gap, &pen, &n, &dz);
    CHECK(n == 0 && pen == 0, "a body far from the ground reports %d contacts, penetration %g", n, pen);
    /* dropped from 0.3 m: stated penetration bound 2 d̂, comes to rest within [0, d̂] */
    ground_run(0, 0.3, 90, &gap, &pen, &n, &dz);
    printf("ground: dropped from 0.3 m: max penetration %.4f m, final min gap %.5f m\n", pen, gap);
    CHECK(pen < 0.02, "penetration %g beyond the stated bound 0.02 m", pen);
    CHECK(gap >= 0 && gap <= 0.01, "gap after the drop %g outside [0, dhat]", gap);
}

/* One run of test_fused's box: threads, the gather forced or not; the final positions into x
 * (nv*3, allocated), each step's load (backend.h step_load: max |g| of its gradient pass) into
 * load[0 .. 7].  Returns the vertex count, 0 on failure. */
static int fused_run(int threads, int gather, double **x, double *load)
{
    char fmt[2048];
    fixture f;
    int step, nv;
    if (gather)
        setenv("SIPD_CPU_GATHER", "1", 1);
    else
        unsetenv("SIPD_CPU_GATHER");
    snprintf(fmt, sizeof fmt,
             "time = { dt = 0.0166667; frames = 8; };\n"
             "solver = { method = \"sipd\"; sweep = \"jacobi\"; iterations = 40; tolerance = 0.0; "
             "line_search = \"never\"; };\n"
             "gravity = [0.0, -9.81, 0.0];\n"
             "contact = { friction = 0.4; ground = { height = -0.01; }; };\n"
             "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.45; } );\n"
             "bodies = ( { mesh = \"%%s\"; material = \"m\"; initial_stretch = [1.1, 0.9, 1.05];\n"
             "             pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.01, 2.0, 2.0]; }; } );\n");
#ifdef _OPENMP
    omp_set_num_threads(threads);   /* the backend keeps OpenMP's setting (its params.threads 0) */
#else
    (void)threads;
#endif
    /* 12 x 8 x 8 cells = 4608 tets: above the CPU backend's serial cut-off (4096 items) */
    if (setup(&f, 12, 8, 8, 0.6, 0.4, 0.4, fmt, SIPD_SPLIT_EXPANDED)) {
        unsetenv("SIPD_CPU_GATHER");
        return 0;
    }
    for (step = 0; step < 8; step++) {
        sipd_solve_result r;
        if (sim_step(&f.s, 1.0 / 60, &r) != SIPD_OK || f.s.ops->step_load(f.s.b, &load[step]) != SIPD_OK) {
            fixture_free(&f);
            unsetenv("SIPD_CPU_GATHER");
            return 0;
        }
    }
    nv = f.m.nv;
    *x = malloc(sizeof(double) * 3 * (size_t)nv);
    if (!*x || f.s.ops->download(f.s.b, *x, NULL) != SIPD_OK)
        nv = 0;
    fixture_free(&f);
    unsetenv("SIPD_CPU_GATHER");
    return nv;
}

/* The fused pass's chunks (model.c build_chunks) of a box of nx x ny x nz cells: every tet in
 * exactly one chunk of m.chunk_size consecutive tets, no two chunks of a colour sharing a
 * vertex (checked here from the tets, not from the colouring's own masks).  Returns the chunk
 * size, 0 when there are no chunks or the load failed. */
static int chunks_of_box(int nx, int ny, int nz, int *ncol)
{
    const char *fmt = "time = { dt = 0.01; frames = 1; };\n"
                      "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.45; } );\n"
                      "bodies = ( { mesh = \"%s\"; material = \"m\"; } );\n";
    fixture f;
    int S, c, j, e, l, nch, *owner, *seen;
    if (setup(&f, nx, ny, nz, 1.0, 0.5, 0.5, fmt, SIPD_SPLIT_EXPANDED))
        return 0;
    S = f.m.chunk_size;
    *ncol = f.m.nchunk_colors;
    if (*ncol == 0 || S <= 0) {
        fixture_free(&f);
        return 0;
    }
    nch = (f.m.nt + S - 1) / S;
    owner = malloc(sizeof(int) * (size_t)f.m.nv);
    seen = calloc((size_t)nch, sizeof(int));
    CHECK(f.m.chunk_off[0] == 0 && f.m.chunk_off[*ncol] == nch, "the colours list %d of %d chunks",
          f.m.chunk_off[*ncol], nch);
    for (c = 0; c < *ncol && owner && seen; c++) {
        for (j = 0; j < f.m.nv; j++) owner[j] = -1;
        for (j = f.m.chunk_off[c]; j < f.m.chunk_off[c + 1]; j++) {
            int ch = f.m.chunk_list[j], bad = 0;
            seen[ch]++;
            for (e = ch * S; e < (ch + 1) * S && e < f.m.nt; e++)
                for (l = 0; l < 4; l++) {
                    int a = f.m.tets[4 * e + l];
                    bad += owner[a] >= 0 && owner[a] != ch;
                    owner[a] = ch;
                }
            CHECK(bad == 0, "colour %d: chunk %d shares vertices with another chunk of its colour", c, ch);
        }
    }
    for (j = 0; j < nch && seen; j++) CHECK(seen[j] == 1, "chunk %d listed %d times", j, seen[j]);
    free(owner);
    free(seen);
    fixture_free(&f);
    return S;
}

/* The chunk size follows the mesh: 2048 tets where the colouring leaves enough chunks per
 * colour (a 96k-tet box), 64 for a small box (4608 tets), and the chunks are a valid colouring. */
static void test_chunks(void)
{
    int ncol = 0, S = chunks_of_box(40, 20, 20, &ncol);
    printf("chunks: 40x20x20 box (96000 tets): %d tets per chunk, %d colours\n", S, ncol);
    CHECK(S == SIPD_TET_CHUNK_MAX, "a 96k-tet box got chunks of %d tets, expected %d", S, SIPD_TET_CHUNK_MAX);
    S = chunks_of_box(12, 8, 8, &ncol);
    printf("chunks: 12x8x8 box (4608 tets): %d tets per chunk, %d colours\n", S, ncol);
    CHECK(S == SIPD_TET_CHUNK_MIN, "a 4608-tet box got chunks of %d tets, expected %d", S, SIPD_TET_CHUNK_MIN);
}

static void test_fused(void)
{
    double *xf1 = NULL, *xf2 = NULL, *xg = NULL, dmax = 0, lf1[8], lf2[8], lg[8], lmax = 0;
    int n1 = fused_run(1, 0, &xf1, lf1), n2 = fused_run(2, 0, &xf2, lf2), ng = fused_run(1, 1, &xg, lg), i, ldiff = 0;
    CHECK(n1 > 0 && n1 == n2 && n1 == ng, "runs failed (%d, %d, %d vertices)", n1, n2, ng);
    if (n1 > 0 && n1 == n2 && n1 == ng) {
        /* the step load's gradient pass is fused too (gradients only): the same loads to
           round-off, different last bits, and the same with 1 and 2 threads.  Round-off of a
           net force that is a sum of much larger element terms (1.3e-12 of the load measured,
           a resting box's 1.8 N against its tets' forces): within 1e-10 */
        for (i = 0; i < 8; i++) {
            double d = fabs(lf1[i] - lg[i]) / lg[i];
            lmax = d > lmax ? d : lmax;
            ldiff += lf1[i] != lg[i];
        }
        printf("fused: the steps' loads %.4g .. %.4g N, max relative |load_fused - load_gather| = %.2e, %d of 8 "
               "differ in the last bits, the first step's %s\n", lg[0], lg[7], lmax, ldiff,
               lf1[0] != lg[0] ? "too" : "not");
        CHECK(memcmp(lf1, lf2, sizeof lf1) == 0, "the fused load differs with 1 and 2 threads");
        CHECK(lg[0] > 0 && lmax < 1e-10, "fused and gathered step loads differ by %g (relative)", lmax);
        /* the first step's load is taken at the same state in both runs (later ones at states that
           already differ in the last bits): there, a different sum is the fused pass's */
        CHECK(lf1[0] != lg[0], "the first step's load is the gather's bit for bit: the load's pass was not fused");
        for (i = 0; i < 3 * n1; i++) {
            double d = fabs(xf1[i] - xg[i]);
            dmax = d > dmax ? d : dmax;
        }
        CHECK(memcmp(xf1, xf2, sizeof(double) * 3 * (size_t)n1) == 0,
              "the fused pass gave different positions with 1 and 2 threads");
        printf("fused: max |x_fused - x_gather| = %.3e m (box 0.6 m); 1 and 2 threads bit-identical: %s\n", dmax,
               memcmp(xf1, xf2, sizeof(double) * 3 * (size_t)n1) == 0 ? "yes" : "no");
        CHECK(dmax < 1e-9 * 0.6, "fused and gathered passes differ by %g m", dmax);
        /* the sums' order differs, so the last bits do: evidence that the fused pass ran */
        CHECK(dmax > 0, "fused and gathered positions are bit-identical: the fused pass did not run");
    }
    free(xf1);
    free(xf2);
    free(xg);
}

/* Tilted gravity: with μ = 0.5 the block sticks below atan(0.5) = 26.6° and slides above,
 * with the sliding distance 0.5 g (sin θ − μ cos θ) t². */
static void test_incline(void)
{
    static const double th[] = {22, 24, 29, 31, 40};
    int i;
    for (i = 0; i < 5; i++) {
        double gap, pen, dz, t = th[i] * 3.14159265358979323846 / 180;
        int n;
        double dx = ground_run(th[i], 0.0098, 60, &gap, &pen, &n, &dz);
        double an = 0.5 * 9.81 * (sin(t) - 0.5 * cos(t));
        printf("incline: theta %4.1f deg: slid %.4f m in 1 s (Coulomb: %s %.4f m)\n", th[i], dx,
               an > 0 ? "slides" : "sticks", an > 0 ? an : 0.0);
        if (an <= 0)
            CHECK(fabs(dx) < 0.005, "theta %g < atan(mu) but the block slid %g m", th[i], dx);
        else
            CHECK(fabs(dx - an) < 0.15 * an + 0.02, "theta %g: slid %g m, Coulomb gives %g m", th[i], dx, an);
        CHECK(gap >= 0 && gap <= 0.01, "theta %g: gap %g outside [0, dhat]", th[i], gap);
    }
}

/* ------------------------------------------------------------------------------------- */
/* The adaptive initial guess (solver.initial_guess, passes.h pass_begin_vertex): the pass's
 * formula on one vertex against hand-computed positions, then a cube resting on the ground,
 * both guesses at a tight tolerance: the same positions, and the adaptive guess (which starts
 * a body at rest where it is) needs fewer iterations than the free-fall target ỹ. */
static void guess_one(const char *what, const double v[3], const double vp[3], int hist, int with_vp, double phi)
{
    const double h = 0.01, grav[3] = {0.5, -9.81, 0.25}, x[3] = {0.1, 0.2, 0.3};
    double X0[3] = {0, 0, 0}, xs[3], vs[3], vps[3], yt[3], y[3], yp[3], dy[3];
    unsigned char fixed = 0;
    sipd_view w;
    int k;
    memset(&w, 0, sizeof w);
    memcpy(xs, x, sizeof xs);
    memcpy(vs, v, sizeof vs);
    memcpy(vps, vp, sizeof vps);
    w.nv = 1;
    w.x = xs;
    w.v = vs;
    w.vp = with_vp ? vps : NULL;
    w.vp_hist = hist;
    w.yt = yt;
    w.y = y;
    w.yp = yp;
    w.dy = dy;
    w.X0 = X0;
    w.fixed = &fixed;
    pass_begin_vertex(&w, 0, 1.0, h, grav);
    for (k = 0; k < 3; k++) {
        double want_t = x[k] + h * v[k] + h * h * grav[k], want = x[k] + h * v[k] + phi * h * h * grav[k];
        CHECK(fabs(yt[k] - want_t) < 1e-15, "%s: ỹ[%d] = %.17g, expected %.17g", what, k, yt[k], want_t);
        CHECK(fabs(y[k] - want) < 1e-15 && y[k] == yp[k], "%s: y[%d] = %.17g (y_prev %.17g), expected %.17g (φ = %g)",
              what, k, y[k], yp[k], want, phi);
    }
    /* end of the step: vp takes the step's starting velocity */
    if (with_vp) {
        for (k = 0; k < 3; k++) pass_end_component(&w, (size_t)k, h);
        for (k = 0; k < 3; k++)
            CHECK(vps[k] == v[k] && fabs(vs[k] - (y[k] - x[k]) / h) < 1e-12, "%s: end of step: vp[%d] %g (v was %g)",
                  what, k, vps[k], v[k]);
    }
}

static double guess_run(const char *guess, long *iters, double *x_out, int nv_max)
{
    fixture f;
    char fmt[2048];
    int frame, conv = 0;
    snprintf(fmt, sizeof fmt,
             "time = { dt = 0.0166667; frames = 20; };\n"
             "solver = { iterations = 3000; tolerance = 1.0e-7; initial_guess = \"%s\"; coarse = { levels = 1; }; };\n"
             "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
             "bodies = ( { mesh = \"%%s\"; material = \"m\"; translate = [0.0, 0.0098, 0.0]; } );\n"
             "contact = { dhat = 0.01; friction = 0.5; ground = { height = 0.0; }; };\n",
             guess);
    *iters = 0;
    if (setup(&f, 4, 4, 4, 0.4, 0.4, 0.4, fmt, 0)) {
        CHECK(0, "setup failed");
        return 0;
    }
    for (frame = 0; frame < 20; frame++) {
        sipd_solve_result r;
        CHECK(sim_step(&f.s, 0.0166667, &r) == SIPD_OK, "%s: step failed", guess);
        *iters += r.iterations;
        conv += r.converged;
    }
    CHECK(f.m.nv <= nv_max, "nv %d", f.m.nv);
    f.s.ops->download(f.s.b, x_out, NULL);
    fixture_free(&f);
    return conv;
}

static void test_guess(void)
{
    const double h = 0.01, g[3] = {0.5, -9.81, 0.25}, v[3] = {0.3, -0.2, 0.1}, z[3] = {0, 0, 0};
    double fell[3], half[3], up[3], x1[3 * 125], x2[3 * 125], dmax = 0;
    long it_a, it_i;
    int k, ca, ci;
    for (k = 0; k < 3; k++) {
        fell[k] = v[k] - h * g[k];        /* the last step accelerated by g: φ = 1 */
        half[k] = v[k] - 0.5 * h * g[k];  /* by half of it: φ = ½ */
        up[k] = v[k] + 2 * h * g[k];      /* against gravity (a landing): φ clamped to 0 */
    }
    guess_one("no history array", v, fell, 1, 0, 1);
    guess_one("no history yet", v, v, 0, 1, 1);
    guess_one("free fall", v, fell, 1, 1, 1);
    guess_one("steady", v, v, 1, 1, 0);
    guess_one("half", v, half, 1, 1, 0.5);
    guess_one("landing", v, up, 1, 1, 0);
    guess_one("at rest", z, z, 1, 1, 0);
    /* a resting cube: same answer, fewer iterations */
    ca = (int)guess_run("adaptive", &it_a, x1, 125);
    ci = (int)guess_run("inertial", &it_i, x2, 125);
    for (k = 0; k < 3 * 125; k++) dmax = fmax(dmax, fabs(x1[k] - x2[k]));
    printf("guess: resting cube, 20 steps at tolerance 1e-7: adaptive %ld iterations (%d converged), inertial %ld (%d "
           "converged); positions within %.2e m\n",
           it_a, ca, it_i, ci, dmax);
    CHECK(ca == 20 && ci == 20, "not every solve converged (adaptive %d, inertial %d of 20)", ca, ci);
    CHECK(dmax < 1e-5, "the two guesses end %.3e m apart (the same minimiser to the tolerance expected)", dmax);
    CHECK(it_a < it_i, "the adaptive guess took %ld iterations, the inertial %ld: no fewer", it_a, it_i);
}

/* ------------------------------------------------------------------------------------- */
/* Momentum (issue "Honest convergence", point 6): a free body without gravity or contact
 * keeps zero momentum only as far as its solves converge (Gauss–Seidel: its colour order
 * breaks the symmetry of the release, so an unconverged sweep moves the centre of mass).  The logged momentum error must
 * equal the change of Σ m v measured from the velocities (independently of the driver's
 * identity h Σ_free g), an under-converged run must be flagged, a converged one must not. */
static void test_momentum(void)
{
    int pass;
    for (pass = 0; pass < 2; pass++) {
        fixture f;
        char fmt[2048];
        double *v0, *v1, worst = 0, drift = 0;
        int step, flags = 0, k, a;
        snprintf(fmt, sizeof fmt,
                 "time = { dt = 0.0166667; frames = 10; };\n"
                 "solver = { sweep = \"gauss-seidel\"; iterations = %d; tolerance = 1.0e-6; };\n"
                 "gravity = [0.0, 0.0, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.3; } );\n"
                 "bodies = ( { mesh = \"%%s\"; material = \"m\"; initial_stretch = [0.6, 1.0, 1.0]; } );\n",
                 pass == 0 ? 3 : 5000);
        if (setup(&f, 4, 2, 2, 0.4, 0.2, 0.2, fmt, 0)) {
            CHECK(0, "setup failed");
            return;
        }
        v0 = malloc(sizeof(double) * 3 * f.m.nv);
        v1 = malloc(sizeof(double) * 3 * f.m.nv);
        for (step = 0; step < 10; step++) {
            sipd_solve_result r;
            double dp[3] = {0, 0, 0}, ndp;
            f.s.ops->download(f.s.b, NULL, v0);
            CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
            f.s.ops->download(f.s.b, NULL, v1);
            for (a = 0; a < f.m.nv; a++)
                for (k = 0; k < 3; k++) dp[k] += f.m.mass[a] * (v1[3 * a + k] - v0[3 * a + k]);
            ndp = sqrt(dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]);
            worst = fmax(worst, fabs(ndp - r.momentum_error) / (ndp + 1e-9));
            drift += ndp;
            flags += r.momentum_flag;
            if (pass == 1)
                CHECK(r.converged, "converged run: step %d %s", step, sim_status_name(r.status));
        }
        printf("momentum: %s: total |dp| %.3e N s over 10 steps, %d steps flagged, logged vs measured %.1e\n",
               pass ? "converged (5000 its)" : "3 iterations per step", drift, flags, worst);
        CHECK(worst < 1e-6, "logged momentum error differs from the measured change by %.2e (relative)", worst);
        if (pass == 0)
            CHECK(flags > 0 && drift > 1e-6, "under-converged run not flagged (|dp| %.3e, %d flags)", drift, flags);
        else
            CHECK(flags == 0, "converged run flagged %d times", flags);
        free(v0);
        free(v1);
        fixture_free(&f);
    }
}

/* ------------------------------------------------------------------------------------- */
/* Newton never throws away progress on a round-off energy rise (point 7): on a 1 GPa beam
 * (energies of 1e-2 J carrying round-off of the 1e6 J-scale element terms) Newton with the
 * "auto" line search converges every step without a restored snapshot (its force round-off
 * floor is near r = 1.5e-8 here, so the tolerance is 1e-7). */
static void test_newton_roundoff(void)
{
    fixture f;
    int step, restarts = 0;
    if (setup(&f, 20, 4, 4, 1.0, 0.2, 0.2,
              "time = { dt = 0.0166667; frames = 6; };\n"
              "solver = { method = \"newton\"; line_search = \"auto\"; iterations = 100; tolerance = 1.0e-7; };\n"
              "gravity = [0.0, -9.81, 0.0];\n"
              "materials = ( { name = \"m\"; youngs = 1.0e9; poisson = 0.3; } );\n"
              "bodies = ( { mesh = \"%s\"; material = \"m\";\n"
              "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n",
              0)) {
        CHECK(0, "setup failed");
        return;
    }
    for (step = 0; step < 6; step++) {
        sipd_solve_result r;
        CHECK(sim_step(&f.s, 1.0 / 60, &r) == SIPD_OK, "step failed");
        CHECK(r.converged, "step %d: %s after %d iterations (r = %.2e)", step, sim_status_name(r.status),
              r.iterations, r.residual);
        CHECK(r.iterations <= 10, "step %d: %d Newton iterations", step, r.iterations);
        restarts += r.restarts;
    }
    printf("newton_roundoff: 6 steps converged to 1e-7, %d snapshots restored\n", restarts);
    CHECK(restarts == 0, "%d snapshots restored on round-off energy rises", restarts);
    fixture_free(&f);
}


/* ---- every backend call's status is checked (driver.c): a failing op ends the run -------- */
static const char *fail_op = "";
static int fail_now(const char *op) { return strcmp(fail_op, op) == 0; }
static int f_begin_step(sipd_backend *b, double t, double h, const double g[3], int qs)
{
    return fail_now("begin_step") ? SIPD_EFAIL : sipd_backend_cpu.begin_step(b, t, h, g, qs);
}
static int f_direction(sipd_backend *b, sipd_dir_stats *st)
{
    return fail_now("direction") ? SIPD_EFAIL : sipd_backend_cpu.direction(b, st);
}
static int f_energy(sipd_backend *b, double a, double *E)
{
    return fail_now("energy") ? SIPD_EFAIL : sipd_backend_cpu.energy(b, a, E);
}
static int f_apply(sipd_backend *b, double a, double w, double *gs)
{
    return fail_now("apply") ? SIPD_EFAIL : sipd_backend_cpu.apply(b, a, w, gs);
}
static int f_snapshot(sipd_backend *b) { return fail_now("snapshot") ? SIPD_EFAIL : sipd_backend_cpu.snapshot(b); }
static int f_detect(sipd_backend *b, int run, int *flag)
{
    return fail_now("detect") ? SIPD_EFAIL : sipd_backend_cpu.detect(b, run, flag);
}
static int f_end_step(sipd_backend *b) { return fail_now("end_step") ? SIPD_EFAIL : sipd_backend_cpu.end_step(b); }
static int f_download(sipd_backend *b, double *x, double *v)
{
    return fail_now("download") ? SIPD_EFAIL : sipd_backend_cpu.download(b, x, v);
}
static int f_step_load(sipd_backend *b, double *f)
{
    return fail_now("step_load") ? SIPD_EFAIL : sipd_backend_cpu.step_load(b, f);
}
static int f_assemble(sipd_backend *b, int t, sipd_bsr *H, double *g, sipd_bsr_extra *x)
{
    return fail_now("assemble") ? SIPD_EFAIL : sipd_backend_cpu.assemble(b, t, H, g, x);
}
static int f_set_direction(sipd_backend *b, const double *dy)
{
    return fail_now("set_direction") ? SIPD_EFAIL : sipd_backend_cpu.set_direction(b, dy);
}

static void test_backend_fail(void)
{
    static const struct {
        const char *op, *solver;
        int two_bodies;
    } cases[] = {
        {"begin_step", "chebyshev = true;", 0}, {"direction", "chebyshev = true;", 0},
        {"energy", "chebyshev = true;", 0},     {"apply", "chebyshev = true;", 0},
        {"snapshot", "chebyshev = true;", 0},   {"end_step", "chebyshev = true;", 0},
        {"download", "chebyshev = true;", 0},   {"step_load", "chebyshev = true;", 0},
        {"detect", "chebyshev = true;", 1},     {"energy", "sweep = \"gauss-seidel\"; line_search = \"always\";", 1},
        {"assemble", "method = \"newton\";", 0}, {"set_direction", "method = \"newton\";", 0},
        {"", "method = \"newton\";", 1},        {"", "chebyshev = true;", 1},
    };
    sipd_backend_ops ops = sipd_backend_cpu;
    unsigned i;
    ops.begin_step = f_begin_step;
    ops.direction = f_direction;
    ops.energy = f_energy;
    ops.apply = f_apply;
    ops.snapshot = f_snapshot;
    ops.detect = f_detect;
    ops.end_step = f_end_step;
    ops.download = f_download;
    ops.step_load = f_step_load;
    ops.assemble = f_assemble;
    ops.set_direction = f_set_direction;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char base[600], text[4096];
        fixture f;
        sipd_run_opts o;
        int done = 0, rc;
        if (write_box(base, sizeof base, 2, 2, 2, 0.2, 0.2, 0.2)) {
            CHECK(0, "mesh");
            return;
        }
        snprintf(text, sizeof text,
                 "time = { dt = 0.0166667; frames = 3; };\n"
                 "solver = { %s iterations = 30; tolerance = 1.0e-9; };\n"
                 "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.3; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"m\"; translate = [0.0, 0.05, 0.0]; initial_stretch = [1.2, 1.0, 1.0]; }%s );\n"
                 "contact = { dhat = 0.01; ground = { height = 0.0; }; };\n",
                 cases[i].solver, base,
                 cases[i].two_bodies ? ", { mesh = \"%s\"; material = \"m\"; translate = [0.0, 0.26, 0.0]; }" : "");
        if (cases[i].two_bodies) {
            char t2[4096];
            snprintf(t2, sizeof t2, text, base);
            memcpy(text, t2, sizeof text);
        }
        fail_op = "";
        if (fixture_load_ops(&f, text, "fail", &ops)) {
            CHECK(0, "setup failed (%s)", cases[i].op);
            continue;
        }
        fail_op = cases[i].op;
        memset(&o, 0, sizeof o);
        o.frames = 3;
        rc = driver_run(&f.s, &o, &done);
        if (!cases[i].op[0])
            CHECK(rc == SIPD_OK, "control run (%s) failed: rc %d", cases[i].solver, rc);
        else {
            CHECK(rc == SIPD_EFAIL, "a failing %s: rc %d, expected SIPD_EFAIL", cases[i].op, rc);
            CHECK(strstr(f.s.why, cases[i].op) != NULL, "a failing %s: the error says \"%s\"", cases[i].op, f.s.why);
            printf("backend_fail: %-13s -> rc %d after %d frames: %s\n", cases[i].op, rc, done, f.s.why);
        }
        fail_op = "";
        fixture_free(&f);
    }
}

/* The method table's solver column (method.h): what sim_step runs for each method and sweep. */
static void test_table(void)
{
    static const struct {
        int method, sweep;
        const sipd_solver *want;
    } cases[] = {
        {SIPD_METHOD_SIPD, SIPD_SWEEP_JACOBI, &sipd_solver_jacobi},
        {SIPD_METHOD_SIPD, SIPD_SWEEP_GS, &sipd_solver_gauss_seidel},
        {SIPD_METHOD_VBD, SIPD_SWEEP_JACOBI, &sipd_solver_gauss_seidel},   /* vbd sweeps GS whatever solver.sweep */
        {SIPD_METHOD_BLOCK_JACOBI, SIPD_SWEEP_GS, &sipd_solver_jacobi},    /* and block-jacobi Jacobi */
        {SIPD_METHOD_DIAG_JACOBI, SIPD_SWEEP_JACOBI, &sipd_solver_jacobi},
        {SIPD_METHOD_GD, SIPD_SWEEP_JACOBI, &sipd_solver_jacobi},
        {SIPD_METHOD_NEWTON, SIPD_SWEEP_GS, &sipd_solver_newton},
        {SIPD_METHOD_MIXED, SIPD_SWEEP_JACOBI, &sipd_solver_mixed},
    };
    const sipd_method_info *mi;
    int i, rows = 0;
    for (i = 0; (mi = method_row(i)) != NULL; i++) {
        if (mi->method < 0)
            continue;   /* planned: no solver yet */
        rows++;
        CHECK(mi->solver && mi->solver->solve && mi->solver->name, "row %s: no solver family or no solve", mi->name);
    }
    CHECK(rows == SIPD_METHOD_MIXED + 1, "%d implemented rows, the test knows %d (a new row: add its cases)", rows,
          SIPD_METHOD_MIXED + 1);
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        sipd_scene sc;
        memset(&sc, 0, sizeof sc);
        sc.method = (sipd_method)cases[i].method;
        sc.sweep = (sipd_sweep)cases[i].sweep;
        CHECK(method_solver(&sc) == cases[i].want, "%s with sweep %d: solver %s, want %s",
              scene_method_name(sc.method), cases[i].sweep, method_solver(&sc) ? method_solver(&sc)->name : "none",
              cases[i].want->name);
    }
    /* what only Newton and mixed FEM have: Newton's own direction, mixed FEM's carried stretches */
    CHECK(sipd_solver_newton.direction && !sipd_solver_jacobi.direction && !sipd_solver_gauss_seidel.direction);
    CHECK(sipd_solver_mixed.state && !sipd_solver_newton.state && !sipd_solver_jacobi.state);
    printf("table: %d rows, %d method/sweep cases\n", rows, (int)(sizeof cases / sizeof cases[0]));
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)argc, (void)argv;
    if (scratch_open("test_solver", which))
        return 1;
    sipd_quiet = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    return 0;
}

static const test_case cases[] = {
    {"energy", .run = test_energy},
    {"release", .run = test_release},
    {"uniaxial", .run = test_uniaxial},
    {"beam", .run = test_beam},
    {"sweeps", .run = test_sweeps},
    {"kinematic", .run = test_kinematic},
    {"methods", .run = test_methods},
    {"budget", .run = test_budget},
    {"ground", .run = test_ground},
    {"incline", .run = test_incline},
    {"momentum", .run = test_momentum},
    {"newton_roundoff", .run = test_newton_roundoff},
    {"backend_fail", .run = test_backend_fail},
    {"table", .run = test_table},
    {"fused", .run = test_fused},
    {"chunks", .run = test_chunks},
    {"guess", .run = test_guess},
};
static const test_program program = {"test_solver", TEST_CASES(cases), .dflt = "all", .all = 1, .setup = prog_setup,
                                     .teardown = scratch_close};
TEST_MAIN(program)
