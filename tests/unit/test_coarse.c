/* test_coarse.c — two-level SIPD (solver.coarse, src/coarse.h) against independent references.
 *
 *   partition  P's rows: the weights of every free vertex sum to 1, Dirichlet rows are zero, and
 *              P reproduces affine fields exactly (coarse values = the field at the grid nodes,
 *              whose positions come from the grid, not from P), on grids aligned and not aligned
 *              with the mesh and on a rotated body
 *   galerkin   the coarse operator equals Pᵀ H P computed densely on a tiny mesh, with P built
 *              from the hat-function formula Π_k max(0, 1 − |x_k − n_k| / cell) (not from
 *              coarse_vertex_weights_mixed) and H the assembled Newton Hessian at a deformed state;
 *              it is symmetric; the coarse direction solves it (residual of Hc e = −Pᵀ g)
 *   newton     two-level SIPD at a relative residual of 1e-6 reaches Newton's solution of the same steps
 *              (within 1e-4 of the model size; ν = 0.45 and a stiff E = 1e9)
 *   budget     at a fixed budget (1 step × 100 iterations per frame) two-level SIPD is much
 *              closer to Newton's cantilever tip than plain SIPD (Jacobi + Chebyshev) on a
 *              stiff (E = 1e9) and a ν = 0.49 beam
 *   energy     with line_search = "always" the logged energies never increase (beyond the
 *              driver's round-off allowance, 1e-12 relative here), and coarse corrections were
 *              taken (the correction's own line search)
 *              (both with the trilinear cells and with the quadratic B-splines: P then from the
 *              B-spline written out piecewise)
 *   thin       rods and shells get quadratic B-splines on cells no wider than their mean edge,
 *              solids trilinear cells; a closed surface's grid is coarsened to at most 2 nodes
 *              per vertex; a rod on two pins converges at the defaults to Newton's
 *              positions, in under half the iterations of the trilinear grid
 *   scene      the solver.coarse keys: defaults, printed and read back, and every bad key or
 *              value refused
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "coarse.h"
#include "fixture.h"
#include "runner.h"

static int setup(fixture *f, int nx, int ny, int nz, double lx, double ly, double lz, const char *scene_fmt)
{
    char base[600], text[8192];
    if (write_box(base, sizeof base, nx, ny, nz, lx, ly, lz))
        return 1;
    snprintf(text, sizeof text, scene_fmt, base);
    return fixture_load(f, text);
}

static void node_pos(const sipd_coarse *c, int i, double p[3])
{
    p[0] = c->npos[3 * i];
    p[1] = c->npos[3 * i + 1];
    p[2] = c->npos[3 * i + 2];
}

/* ------------------------------------------------------------------------------------- */
static void partition_case(int nx, int ny, int nz, int size, const char *extra, const char *basis)
{
    fixture f;
    char fmt[2048];
    static const double A[9] = {0.3, -1.2, 0.5, 2.0, 0.1, -0.7, 0.4, 0.9, -1.5}, t[3] = {0.25, -3.0, 1.5};
    double *e, *dy, err = 0, wsum_err = 0;
    int a, i, k, nfree = 0, fixed_nonzero = 0;
    snprintf(fmt, sizeof fmt,
             "time = { dt = 0.0166667; frames = 1; };\n"
             "solver = { coarse = { levels = 2; size = %d; basis = \"%s\"; }; };\n"
             "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
             "bodies = ( { mesh = \"%%s\"; material = \"m\"; %s\n"
             "  pin = { box_min = [-10.0, -10.0, -10.0]; box_max = [0.01, 10.0, 10.0]; }; } );\n",
             size, basis, extra);
    if (setup(&f, nx, ny, nz, 0.1 * nx, 0.1 * ny, 0.1 * nz, fmt)) {
        CHECK(0, "setup failed");
        return;
    }
    const sipd_coarse *c = f.s.coarse;
    CHECK(c && c->nc > 0, "no coarse level");
    if (!c) {
        fixture_free(&f);
        return;
    }
    e = malloc(sizeof(double) * 3 * c->nc);
    dy = malloc(sizeof(double) * 3 * f.m.nv);
    for (i = 0; i < c->nc; i++) {   /* the affine field at the grid nodes */
        double p[3];
        node_pos(c, i, p);
        for (k = 0; k < 3; k++) e[3 * i + k] = A[3 * k] * p[0] + A[3 * k + 1] * p[1] + A[3 * k + 2] * p[2] + t[k];
    }
    coarse_prolong(c, e, dy);
    for (a = 0; a < f.m.nv; a++) {
        double ws = 0;
        int l;
        for (l = 0; l < c->npv; l++) ws += c->vw[(size_t)c->npv * a + l];
        if (f.m.fixed[a]) {
            fixed_nonzero += ws != 0 || dy[3 * a] != 0 || dy[3 * a + 1] != 0 || dy[3 * a + 2] != 0;
            continue;
        }
        nfree++;
        wsum_err = fmax(wsum_err, fabs(ws - 1));
        for (k = 0; k < 3; k++) {
            const double *X = f.m.X0 + 3 * a;
            double want = A[3 * k] * X[0] + A[3 * k + 1] * X[1] + A[3 * k + 2] * X[2] + t[k];
            err = fmax(err, fabs(dy[3 * a + k] - want));
        }
    }
    printf("partition: %dx%dx%d cells, size %d, %s (%d nodes per vertex)%s: %d coarse nodes, %d free vertices: "
           "max |sum w - 1| = %.2e, affine field error %.2e\n",
           nx, ny, nz, size, basis, c->npv, extra[0] ? " (rotated)" : "", c->nc, nfree,
           wsum_err, err);
    CHECK(c->npv == (strcmp(basis, "quadratic") ? 8 : 27), "%d nodes per vertex with basis %s", c->npv, basis);
    CHECK(nfree > 0 && fixed_nonzero == 0, "%d Dirichlet vertices with a nonzero row of P", fixed_nonzero);
    CHECK(wsum_err < 1e-12, "partition of unity broken by %g", wsum_err);
    CHECK(err < 1e-11, "affine field reproduced with error %g", err);
    free(e);
    free(dy);
    fixture_free(&f);
}

static void test_partition(void)
{
    static const char *const bases[2] = {"auto", "quadratic"};   /* (a solid: auto is trilinear) */
    int k;
    for (k = 0; k < 2; k++) {
        partition_case(8, 2, 2, 4, "", bases[k]);   /* grid aligned with the mesh's cells */
        partition_case(7, 3, 2, 3, "", bases[k]);   /* vertices inside coarse cells */
        partition_case(6, 3, 3, 5, "rotate_deg = [20.0, 35.0, 10.0];", bases[k]);
    }
}

/* ------------------------------------------------------------------------------------- */
static double hat(double x, double n, double h)
{
    double u = 1 - fabs(x - n) / h;
    return u > 0 ? u : 0;
}

/* The uniform quadratic B-spline centred at 0 (support |t| < 3/2), written out piecewise. */
static double bspline2(double t)
{
    t = fabs(t);
    return t <= 0.5 ? 0.75 - t * t : t < 1.5 ? 0.5 * (1.5 - t) * (1.5 - t) : 0;
}

static void galerkin_case(const char *basis)
{
    fixture f;
    sipd_dir_stats st;
    sipd_bsr_extra extra = {NULL, NULL, NULL};
    int a, b, i, j, q, r, s, n, N, nc, quad = !strcmp(basis, "quadratic");
    double *P, *Hd, *HP, *Hc, *g, scale = 0, err = 0, asym = 0, res = 0, rnorm = 0;
    char fmt[1024];
    snprintf(fmt, sizeof fmt,
             "time = { dt = 0.0166667; frames = 1; };\n"
             "solver = { coarse = { levels = 2; size = 2; basis = \"%s\"; }; };\n"
             "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.45; } );\n"
             "bodies = ( { mesh = \"%%s\"; material = \"m\"; initial_stretch = [1.3, 0.8, 1.1];\n"
             "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n", basis);
    if (setup(&f, 3, 2, 2, 0.3, 0.2, 0.2, fmt)) {
        CHECK(0, "setup failed");
        return;
    }
    sipd_coarse *c = f.s.coarse;
    n = f.m.nv;
    N = 3 * n;
    nc = c->nc;
    P = calloc((size_t)N * 3 * nc, sizeof(double));
    Hd = calloc((size_t)N * N, sizeof(double));
    HP = calloc((size_t)N * 3 * nc, sizeof(double));
    Hc = calloc((size_t)9 * nc * nc, sizeof(double));
    g = malloc(sizeof(double) * N);
    /* H at the (stretched) initial guess of a step */
    CHECK(f.s.ops->begin_step(f.s.b, 1.0 / 60, 1.0 / 60, f.sc.gravity, 0) == SIPD_OK, "begin_step");
    memset(&st, 0, sizeof st);
    CHECK(f.s.ops->direction(f.s.b, &st) == SIPD_OK, "direction");
    CHECK(f.s.ops->assemble(f.s.b, SIPD_TERMS_ALL, &f.s.H, g, &extra) == SIPD_OK, "assemble");
    for (a = 0; a < n; a++)
        for (q = f.s.H.row_off[a]; q < f.s.H.row_off[a + 1]; q++)
            for (r = 0; r < 3; r++)
                for (s = 0; s < 3; s++) Hd[(size_t)(3 * a + r) * N + 3 * f.s.H.col[q] + s] = f.s.H.val[9 * q + 3 * r + s];
    /* P from the hat functions (trilinear) or, along the grid's quadratic axes, the quadratic
       B-splines of the kept grid nodes */
    CHECK(c->npv == (quad ? 27 : 8) && c->bquad[0] == (quad ? 5 : 0), "basis %s: %d nodes per vertex, axes %d", basis,
          c->npv, c->bquad[0]);   /* (stretched: 0.39 x 0.16 x 0.22 m, cells of 0.195 m: y spans one cell, linear) */
    for (a = 0; a < n; a++) {
        if (f.m.fixed[a])
            continue;
        for (i = 0; i < nc; i++) {
            double p[3], w, h = c->bcell[0];
            node_pos(c, i, p);
            int k;
            w = 1;
            for (k = 0; k < 3; k++)
                w *= (c->bquad[0] >> k) & 1 ? bspline2((f.m.X0[3 * a + k] - p[k]) / h) : hat(f.m.X0[3 * a + k], p[k], h);
            for (r = 0; r < 3; r++) P[(size_t)(3 * a + r) * 3 * nc + 3 * i + r] = w;
        }
    }
    for (i = 0; i < N; i++)   /* HP */
        for (j = 0; j < 3 * nc; j++) {
            double sum = 0;
            for (b = 0; b < N; b++) sum += Hd[(size_t)i * N + b] * P[(size_t)b * 3 * nc + j];
            HP[(size_t)i * 3 * nc + j] = sum;
        }
    coarse_galerkin(c, &f.s.H);
    for (i = 0; i < nc; i++)   /* the module's Hc, dense */
        for (q = c->Hc.row_off[i]; q < c->Hc.row_off[i + 1]; q++)
            for (r = 0; r < 3; r++)
                for (s = 0; s < 3; s++)
                    Hc[(size_t)(3 * i + r) * 3 * nc + 3 * c->Hc.col[q] + s] = c->Hc.val[9 * q + 3 * r + s];
    for (i = 0; i < 3 * nc; i++)
        for (j = 0; j < 3 * nc; j++) {
            double sum = 0;
            for (b = 0; b < N; b++) sum += P[(size_t)b * 3 * nc + i] * HP[(size_t)b * 3 * nc + j];
            scale = fmax(scale, fabs(sum));
            err = fmax(err, fabs(sum - Hc[(size_t)i * 3 * nc + j]));
            asym = fmax(asym, fabs(Hc[(size_t)i * 3 * nc + j] - Hc[(size_t)j * 3 * nc + i]));
        }
    /* the coarse direction solves Hc e = −Pᵀ g */
    {
        double *dy = malloc(sizeof(double) * N);
        CHECK(coarse_direction(c, &f.s.H, g, dy) == SIPD_OK, "coarse_direction");
        for (i = 0; i < 3 * nc; i++) {
            double lhs = 0, rhs = 0;
            for (j = 0; j < 3 * nc; j++) lhs += Hc[(size_t)i * 3 * nc + j] * c->ec[j];
            for (b = 0; b < N; b++) rhs -= P[(size_t)b * 3 * nc + i] * g[b];
            res = fmax(res, fabs(lhs - rhs));
            rnorm = fmax(rnorm, fabs(rhs));
        }
        free(dy);
    }
    printf("galerkin (%s): %d vertices, %d coarse nodes: max |Hc - PᵀHP| = %.2e of %.2e, asymmetry %.2e, "
           "coarse solve residual %.2e of %.2e\n", basis, n, nc, err, scale, asym, res, rnorm);
    CHECK(nc >= 8 && scale > 0, "degenerate coarse level (%d nodes)", nc);
    CHECK(err < 1e-12 * scale, "Hc differs from the dense PᵀHP by %g (scale %g)", err, scale);
    CHECK(asym < 1e-12 * scale, "Hc not symmetric (%g)", asym);
    CHECK(rnorm > 0 && res < 1e-8 * rnorm, "coarse solve residual %g of %g", res, rnorm);
    free(P);
    free(Hd);
    free(HP);
    free(Hc);
    free(g);
    fixture_free(&f);
}

static void test_galerkin(void)
{
    galerkin_case("auto");        /* a solid: trilinear */
    galerkin_case("quadratic");
}

/* ------------------------------------------------------------------------------------- */
/* `steps` steps of the loaded fixture f: *iters and *conv (iterations, converged solves); the
 * positions after them (malloc'ed, NULL when out of memory). */
static double *run_steps(fixture *f, int steps, const char *what, int *iters, int *conv)
{
    double *x;
    int k;
    *iters = *conv = 0;
    for (k = 0; k < steps; k++) {
        sipd_solve_result r;
        CHECK(sim_step(&f->s, 1.0 / 60, &r) == SIPD_OK, "step failed (%s)", what);
        *iters += r.iterations;
        *conv += r.converged;
    }
    if ((x = malloc(sizeof(double) * 3 * f->m.nv)))
        f->s.ops->download(f->s.b, x, NULL);
    return x;
}

/* Positions after `steps` steps of a clamped beam 1 x 0.2 x 0.2 (nx x nx/5 x nx/5 cells) under
 * gravity. */
static double *beam_run(int nx, double E, double nu, int steps, const char *solver, double *diag, int *coarse_used,
                        int *iters)
{
    fixture f;
    char fmt[2048];
    double *x;
    int conv;
    snprintf(fmt, sizeof fmt,
             "time = { dt = 0.0166667; frames = %d; };\n"
             "solver = { %s };\n"
             "gravity = [0.0, -9.81, 0.0];\n"
             "materials = ( { name = \"m\"; youngs = %.6e; poisson = %.4f; } );\n"
             "bodies = ( { mesh = \"%%s\"; material = \"m\";\n"
             "  pin = { box_min = [-0.01, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n",
             steps, solver, E, nu);
    if (setup(&f, nx, nx / 5, nx / 5, 1.0, 0.2, 0.2, fmt)) {
        CHECK(0, "setup failed (%s)", solver);
        return NULL;
    }
    x = run_steps(&f, steps, solver, iters, &conv);
    *diag = f.m.bbox_diag;
    *coarse_used = f.s.coarse ? (int)f.s.coarse->corrections : 0;
    if (f.s.coarse)
        printf("  (coarse level: %d nodes for %d vertices)\n", f.s.coarse->nc, f.m.nv);
    fixture_free(&f);
    return x;
}

static void test_newton(void)
{
    static const double cases[][2] = {{1e6, 0.45}, {1e9, 0.3}};
    int c;
    for (c = 0; c < 2; c++) {
        double diag, d = 0;
        int used, itn, it2, nv = 21 * 5 * 5, a;
        double *xn = beam_run(20, cases[c][0], cases[c][1], 2, "method = \"newton\"; iterations = 100; tolerance = 1.0e-10;",
                              &diag, &used, &itn);
        double *x2 = beam_run(20, cases[c][0], cases[c][1], 2,
                              "chebyshev = true; iterations = 5000; tolerance = 1.0e-6; coarse = { levels = 2; size = 4; };",
                              &diag, &used, &it2);
        if (!xn || !x2) {
            free(xn);
            free(x2);
            return;
        }
        for (a = 0; a < 3 * nv; a++) d = fmax(d, fabs(xn[a] - x2[a]));
        printf("newton: E = %g, nu = %g: two-level SIPD (%d iterations, %d coarse corrections) vs Newton (%d): "
               "max |x - x_newton| = %.2e of the model size\n", cases[c][0], cases[c][1], it2, used, itn, d / diag);
        CHECK(used > 0, "no coarse correction was made");
        CHECK(d < 1e-4 * diag, "two-level SIPD %.3g of the model size away from Newton", d / diag);
        free(xn);
        free(x2);
    }
}

/* ------------------------------------------------------------------------------------- */
static void test_budget(void)
{
    static const double cases[][2] = {{1e9, 0.3}, {1e6, 0.49}};
    const int tip = 20 + 21 * (2 + 5 * 2), steps = 10;   /* vertex (20, 2, 2): centre of the free end */
    int c;
    for (c = 0; c < 2; c++) {
        double diag, yn, yp, y2, ep, e2;
        int used, it;
        double *xn = beam_run(20, cases[c][0], cases[c][1], steps,
                              "method = \"newton\"; iterations = 50; tolerance = 1.0e-10;", &diag, &used, &it);
        double *xp = beam_run(20, cases[c][0], cases[c][1], steps, "chebyshev = true; iterations = 100; tolerance = 0.0;",
                              &diag, &used, &it);
        double *x2 = beam_run(20, cases[c][0], cases[c][1], steps,
                              "chebyshev = true; iterations = 100; tolerance = 0.0; coarse = { levels = 2; };", &diag,
                              &used, &it);
        if (!xn || !xp || !x2) {
            free(xn);
            free(xp);
            free(x2);
            return;
        }
        yn = xn[3 * tip + 1] - 0.1;   /* deflection: rest y of the tip = 0.1 */
        yp = xp[3 * tip + 1] - 0.1;
        y2 = x2[3 * tip + 1] - 0.1;
        ep = fabs(yp - yn) / fabs(yn);
        e2 = fabs(y2 - yn) / fabs(yn);
        printf("budget: E = %g, nu = %g, 1 x 100, tip deflection after %d steps: newton %.4g mm, plain SIPD %.4g mm "
               "(error %.3g%%), two-level %.4g mm (error %.3g%%)\n",
               cases[c][0], cases[c][1], steps, 1000 * yn, 1000 * yp, 100 * ep, 1000 * y2, 100 * e2);
        CHECK(e2 < 0.02, "two-level SIPD %.3g%% off Newton (limit 2%%)", 100 * e2);
        CHECK(e2 < 0.05 * ep, "two-level error %.3g%% not 20x below plain SIPD's %.3g%%", 100 * e2, 100 * ep);
        free(xn);
        free(xp);
        free(x2);
    }
}

/* ------------------------------------------------------------------------------------- */
static void test_energy(void)
{
    static const char *variants[] = {
        "chebyshev = false; coarse = { levels = 2; every = 5; size = 4; };",
        "chebyshev = true; coarse = { levels = 2; every = 10; size = 4; refresh = 1; };",
    };
    int v;
    for (v = 0; v < 2; v++) {
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
        if (setup(&f, 4, 4, 4, 0.4, 0.4, 0.4, fmt)) {
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
                /* (the driver's round-off allowance, driver.c energy_rose: 1e-13 |E| + the sum's noise) */
                CHECK(E <= prev + 1e-12 * fabs(prev), "variant %d step %d iteration %d: energy rose %.17g -> %.17g", v,
                      step, i, prev, E);
                prev = E;
                checked++;
            }
        }
        printf("energy: variant %d: %d logged energies, all non-increasing; %ld coarse corrections\n", v, checked,
               f.s.coarse->corrections);
        CHECK(checked > 100, "variant %d: only %d energies logged", v, checked);
        CHECK(f.s.coarse->corrections >= 5 * (v == 0 ? 12 : 6), "variant %d: %ld coarse corrections", v,
              f.s.coarse->corrections);
        fixture_free(&f);
    }
}

/* ------------------------------------------------------------------------------------- */
/* Two 0.2 m boxes, the upper one resting on the lower (1 mm gap, inside d̂ = 5 mm: contact pairs
 * from the first iteration), the lower on the ground; friction 0.5. */
static const char *pairs_fmt = "time = { dt = 0.0166667; frames = %d; };\n"
                               "solver = { %s };\n"
                               "gravity = [0.0, -9.81, 0.0];\n"
                               "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.4; density = 1000.0; } );\n"
                               "bodies = ( { mesh = \"%s\"; material = \"m\"; translate = [0.0, 0.001, 0.0]; },\n"
                               "           { mesh = \"%s\"; material = \"m\"; translate = [0.05, 0.202, 0.0]; } );\n"
                               "contact = { dhat = 0.005; friction = 0.5; ground = { height = 0.0; }; };\n";

static int pairs_setup(fixture *f, int frames, const char *solver)
{
    char base[600], text[4096];
    if (write_box(base, sizeof base, 3, 3, 3, 0.2, 0.2, 0.2))
        return 1;
    snprintf(text, sizeof text, pairs_fmt, frames, solver, base, base);
    return fixture_load(f, text);
}

/* The coarse operator with contact pairs: one grid per body (no coarse node sees vertices of two
 * bodies), and Hc = Pᵀ (H + C) P where C is the pairs' coupling applied matrix-free
 * (sipd_bsr_mul with the extra term, column by column) — not the block form the module
 * merges; the pattern was rebuilt for the pairs. */
static void test_pairs_galerkin(void)
{
    fixture f;
    sipd_dir_stats st;
    sipd_bsr_extra extra = {NULL, NULL, NULL};
    int a, i, j, k, q, r, s, n, N, nc, mixed = 0, flag = 0;
    double *U, *P, *UP, *g, *e, *col, scale = 0, err = 0, cscale = 0;
    if (pairs_setup(&f, 1, "coarse = { levels = 2; size = 2; };")) {
        CHECK(0, "setup failed");
        return;
    }
    sipd_coarse *c = f.s.coarse;
    CHECK(c && c->nbodies == 2, "coarse level with %d grids", c ? c->nbodies : 0);
    if (!c) {
        fixture_free(&f);
        return;
    }
    for (i = 0; i < c->nc; i++)   /* per-body grids */
        for (k = c->t_off[i]; k < c->t_off[i + 1]; k++) mixed += f.m.body[c->t_v[k]] != c->nbody[i];
    n = f.m.nv;
    N = 3 * n;
    nc = c->nc;
    CHECK(f.s.ops->begin_step(f.s.b, 1.0 / 60, 1.0 / 60, f.sc.gravity, 0) == SIPD_OK, "begin_step");
    CHECK(f.s.ops->detect(f.s.b, 1, &flag) == SIPD_OK, "detect");
    memset(&st, 0, sizeof st);
    CHECK(f.s.ops->direction(f.s.b, &st) == SIPD_OK, "direction");
    g = malloc(sizeof(double) * N);
    CHECK(f.s.ops->assemble(f.s.b, SIPD_TERMS_ALL, &f.s.H, g, &extra) == SIPD_OK, "assemble");
    CHECK(extra.row && extra.blocks, "no contact pairs at the start (the test needs them)");
    if (!extra.row) {
        free(g);
        fixture_free(&f);
        return;
    }
    U = calloc((size_t)N * N, sizeof(double));
    P = calloc((size_t)N * 3 * nc, sizeof(double));
    UP = calloc((size_t)N * 3 * nc, sizeof(double));
    e = calloc((size_t)N, sizeof(double));
    col = malloc(sizeof(double) * N);
    for (j = 0; j < N; j++) {   /* U = H + C, column j = (H + C) e_j through the matrix-free product */
        e[j] = 1;
        sipd_bsr_mul(&f.s.H, &extra, e, col);
        e[j] = 0;
        for (i = 0; i < N; i++) U[(size_t)i * N + j] = col[i];
    }
    for (a = 0; a < n; a++)   /* the coupling's scale: U's entries between the two bodies */
        for (j = 0; j < n; j++)
            if (f.m.body[a] != f.m.body[j])
                for (r = 0; r < 3; r++)
                    for (s = 0; s < 3; s++) cscale = fmax(cscale, fabs(U[(size_t)(3 * a + r) * N + 3 * j + s]));
    for (a = 0; a < n; a++)   /* P from the hat functions of each body's own grid */
        for (i = 0; i < nc; i++) {
            double p[3], w, h = c->bcell[c->nbody[i]];
            if (f.m.fixed[a] || f.m.body[a] != c->nbody[i])
                continue;
            node_pos(c, i, p);
            w = hat(f.m.X0[3 * a], p[0], h) * hat(f.m.X0[3 * a + 1], p[1], h) * hat(f.m.X0[3 * a + 2], p[2], h);
            for (r = 0; r < 3; r++) P[(size_t)(3 * a + r) * 3 * nc + 3 * i + r] = w;
        }
    for (i = 0; i < N; i++)
        for (j = 0; j < 3 * nc; j++) {
            double sum = 0;
            for (k = 0; k < N; k++) sum += U[(size_t)i * N + k] * P[(size_t)k * 3 * nc + j];
            UP[(size_t)i * 3 * nc + j] = sum;
        }
    CHECK(coarse_factor_pairs(c, &f.s.H, &extra) == SIPD_OK, "coarse_factor_pairs");
    for (i = 0; i < nc; i++) {
        double *row = calloc((size_t)3 * 3 * nc, sizeof(double));
        for (q = c->Hc.row_off[i]; q < c->Hc.row_off[i + 1]; q++)
            for (r = 0; r < 3; r++)
                for (s = 0; s < 3; s++) row[(size_t)r * 3 * nc + 3 * c->Hc.col[q] + s] = c->Hc.val[9 * q + 3 * r + s];
        for (r = 0; r < 3; r++)
            for (j = 0; j < 3 * nc; j++) {
                double sum = 0;
                for (k = 0; k < N; k++) sum += P[(size_t)k * 3 * nc + 3 * i + r] * UP[(size_t)k * 3 * nc + j];
                scale = fmax(scale, fabs(sum));
                err = fmax(err, fabs(sum - row[(size_t)r * 3 * nc + j]));
            }
        free(row);
    }
    printf("pairs_galerkin: %d vertices, %d coarse nodes on %d grids (%d shared with another body), coupling "
           "between the bodies up to %.3g: max |Hc - Pᵀ(H + C)P| = %.2e of %.2e; %ld pattern rebuilds\n",
           n, nc, c->nbodies, mixed, cscale, err, scale, c->repatterns);
    CHECK(mixed == 0, "%d coarse node supports mix bodies", mixed);
    CHECK(cscale > 0, "the pairs couple nothing");
    CHECK(scale > 0 && err < 1e-12 * scale, "Hc differs from the dense Pᵀ(H + C)P by %g (scale %g)", err, scale);
    CHECK(c->merged == 1 && c->repatterns >= 1, "the pattern was not rebuilt for the pairs");
    free(U);
    free(P);
    free(UP);
    free(e);
    free(col);
    free(g);
    fixture_free(&f);
}

/* Positions after `steps` steps of the stacked boxes with `solver`; *iters, *conv: iterations and
 * converged solves; *coarse: corrections, *merged: the coarse pattern held the pairs at the end. */
static double *pairs_run(int steps, const char *solver, double *diag, int *iters, int *conv, long *coarse, int *merged)
{
    fixture f;
    double *x;
    if (pairs_setup(&f, steps, solver)) {
        CHECK(0, "setup failed (%s)", solver);
        return NULL;
    }
    x = run_steps(&f, steps, solver, iters, conv);
    *diag = f.m.bbox_diag;
    *coarse = f.s.coarse ? f.s.coarse->corrections : 0;
    *merged = f.s.coarse ? f.s.coarse->merged : 0;
    fixture_free(&f);
    return x;
}

/* Two-level SIPD with contact pairs against Newton and plain SIPD on the stacked boxes (3 steps,
 * tolerance 1e-5; Newton's reference solves converged to 1e-9 — from the fourth step on Newton
 * itself ends at its 200-iteration cap near r = 3e-4 on this scene, so no later step is
 * compared): every two-level solve converges, with half the iterations of plain (Chebyshev)
 * SIPD or fewer, and its positions are as close to Newton's as plain SIPD's (both are about
 * 2e-4 of the model size off after the first step, the one where the boxes meet — a difference
 * of the pair handling both share, not of the coarse level: docs/two-level.md), and within
 * 5e-4. */
static void test_pairs_newton(void)
{
    const int steps = 3;
    double diag, dn2 = 0, dnp = 0, *xn, *x2, *xp;
    int itn, it2, itp, cn, c2, cp, m2, m0, a;
    long k2, k0;
    xn = pairs_run(steps, "method = \"newton\"; iterations = 200; tolerance = 1.0e-9;", &diag, &itn, &cn, &k0, &m0);
    x2 = pairs_run(steps, "coarse = { levels = 2; }; iterations = 5000; tolerance = 1.0e-5;", &diag, &it2, &c2, &k2,
                   &m2);
    xp = pairs_run(steps, "coarse = { levels = 1; }; chebyshev = true; iterations = 20000; tolerance = 1.0e-5;", &diag,
                   &itp, &cp, &k0, &m0);
    if (!xn || !x2 || !xp) {
        free(xn);
        free(x2);
        free(xp);
        return;
    }
    for (a = 0; a < 3 * 2 * 4 * 4 * 4; a++) {   /* two boxes of 3 x 3 x 3 cells */
        dn2 = fmax(dn2, fabs(xn[a] - x2[a]));
        dnp = fmax(dnp, fabs(xn[a] - xp[a]));
    }
    printf("pairs_newton: stacked boxes, %d steps at tolerance 1e-5: two-level SIPD %d of %d converged, %d iterations, "
           "%ld coarse corrections, max |x - x_newton| = %.2e of the model size; plain Chebyshev SIPD %d of %d, %d "
           "iterations, %.2e; Newton %d of %d, %d iterations\n",
           steps, c2, steps, it2, k2, dn2 / diag, cp, steps, itp, dnp / diag, cn, steps, itn);
    CHECK(cn == steps, "only %d of %d Newton reference solves converged", cn, steps);
    CHECK(k2 > 0 && m2, "no coarse correction with the pairs in its pattern");
    CHECK(c2 == steps, "%d of %d two-level solves converged", c2, steps);
    CHECK(2 * it2 < itp, "two-level SIPD took %d iterations, plain SIPD %d (expected 2x fewer)", it2, itp);
    CHECK(dn2 < 5e-4 * diag, "two-level SIPD %.3g of the model size away from Newton", dn2 / diag);
    CHECK(dn2 <= 1.2 * dnp, "two-level SIPD %.3g of the model size from Newton, plain SIPD %.3g", dn2 / diag,
          dnp / diag);
    free(xn);
    free(x2);
    free(xp);
}

/* ------------------------------------------------------------------------------------- */
/* Thin bodies (solver.coarse.basis = "auto", coarse.h coarse_build): a rod and a cloth get
 * quadratic B-splines along the axes they span and cells no wider than their mean edge, a
 * solid beside them trilinear cells of `size`; "trilinear" gives every body `size` cells.
 * Then a 0.5 m rod (E = 1e8, r = 4 mm, 25 segments) resting on two pins under gravity, 10
 * steps at the defaults against Newton: every two-level solve converges and the positions
 * agree, where a trilinear grid of `size` 8 (3 segments per cell) leaves the solves at the
 * cap (bending is fourth order: a piecewise-linear coarse field bends only in kinks). */
static const char *thin_fmt =
    "time = { dt = 0.0166667; frames = 10; };\n"
    "solver = { %s };\n"
    "materials = ( { name = \"m\"; youngs = 1.0e8; poisson = 0.3; density = 1100.0; } );\n"
    "bodies = ( { generate = { shape = \"rod\"; length = 0.5; segments = 25; }; material = \"m\"; radius = 0.004;\n"
    "             pin = ( { box_min = [0.155, -1.0, -1.0]; box_max = [0.165, 1.0, 1.0]; },\n"
    "                     { box_min = [0.335, -1.0, -1.0]; box_max = [0.345, 1.0, 1.0]; } ); }%s );\n";

static double *thin_run(const char *solver, int *iters, int *conv, double *diag)
{
    fixture f;
    char text[4096];
    double *x;
    snprintf(text, sizeof text, thin_fmt, solver, "");
    if (fixture_load(&f, text)) {
        CHECK(0, "setup failed (%s)", solver);
        return NULL;
    }
    x = run_steps(&f, 10, solver, iters, conv);
    *diag = f.m.bbox_diag;
    fixture_free(&f);
    return x;
}

static void test_thin(void)
{
    static const char *const bases[2] = {"auto", "trilinear"};
    int k, b, a, itn, cn, ita, ca, itt, ct;
    double diag, da = 0, dt = 0, *xn, *xa, *xt;
    for (k = 0; k < 2; k++) {
        fixture f;
        char solver[256], text[4096], mesh[600];
        const double want_cell[3] = {0.02, 0.025, 0.4 / 8}, want_quad[3] = {1, 5, 0};
        if (write_box(mesh, sizeof mesh, 4, 4, 4, 0.4, 0.4, 0.4)) {
            CHECK(0, "mesh");
            return;
        }
        snprintf(solver, sizeof solver, "coarse = { levels = 2; basis = \"%s\"; };", bases[k]);
        {
            char extra[1024];
            snprintf(extra, sizeof extra,
                     ",\n { generate = { shape = \"cloth\"; size = [0.5, 0.5]; cells = [20, 20]; }; material = \"m\";"
                     " thickness = 0.001; translate = [0.0, 1.0, 0.0]; },\n"
                     " { mesh = \"%s\"; material = \"m\"; translate = [2.0, 0.0, 0.0]; }", mesh);
            snprintf(text, sizeof text, thin_fmt, solver, extra);
        }
        if (fixture_load(&f, text) || !f.s.coarse) {
            CHECK(0, "setup failed (%s)", bases[k]);
            return;
        }
        for (b = 0; b < 3; b++) {
            double cell = k == 0 ? want_cell[b] : (b == 0 ? 0.5 : b == 1 ? 0.5 : 0.4) / 8;
            int quad = k == 0 ? (int)want_quad[b] : 0;
            printf("thin (%s): body %d: cell %.4f m, quadratic axes %d\n", bases[k], b, f.s.coarse->bcell[b],
                   f.s.coarse->bquad[b]);
            if (k == 0 && b == 1)   /* the cloth: its mean edge mixes sides (0.025 m) and diagonals (0.035 m) */
                CHECK(f.s.coarse->bcell[b] >= 0.025 - 1e-9 && f.s.coarse->bcell[b] <= 0.0354, "%s: cloth cell %g m",
                      bases[k], f.s.coarse->bcell[b]);
            else
                CHECK(fabs(f.s.coarse->bcell[b] - cell) < 1e-9, "%s: body %d cell %g m, expected %g", bases[k], b,
                      f.s.coarse->bcell[b], cell);
            CHECK(f.s.coarse->bquad[b] == quad, "%s: body %d quadratic axes %d, expected %d", bases[k], b,
                  f.s.coarse->bquad[b], quad);
        }
        CHECK(f.s.coarse->npv == (k == 0 ? 27 : 8), "%s: %d nodes per vertex", bases[k], f.s.coarse->npv);
        fixture_free(&f);
    }
    {   /* a closed surface spans a volume: its grid is coarsened to at most 2 nodes per vertex */
        fixture f;
        char text[2048], mesh[600];
        if (write_box(mesh, sizeof mesh, 16, 16, 16, 0.4, 0.4, 0.4)) {
            CHECK(0, "mesh");
            return;
        }
        snprintf(text, sizeof text,
                 "time = { dt = 0.0166667; frames = 1; };\n"
                 "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"m\"; elements = \"shell\"; thickness = 0.002; } );\n", mesh);
        if (fixture_load(&f, text) || !f.s.coarse) {
            CHECK(0, "closed shell setup");
            return;
        }
        int a, nfree = 0;
        for (a = 0; a < f.m.nv; a++) nfree += !f.m.fixed[a] && f.m.mass[a] > 0;   /* (the interior: no element) */
        printf("thin: closed box surface, %d surface vertices, mean edge about %.3f m: cell %.4f m, %d coarse nodes, "
               "quadratic axes %d\n", nfree, 0.4 / 16, f.s.coarse->bcell[0], f.s.coarse->nc, f.s.coarse->bquad[0]);
        CHECK(nfree == 6 * 16 * 16 + 2, "closed shell: %d surface vertices", nfree);
        CHECK(f.s.coarse->nc <= 2 * nfree, "closed shell: %d coarse nodes for %d vertices", f.s.coarse->nc, nfree);
        CHECK(f.s.coarse->bcell[0] > 0.4 / 16 && f.s.coarse->bcell[0] <= 0.4 / 8 + 1e-12 && f.s.coarse->bquad[0] == 7,
              "closed shell: cell %g m (not coarsened from the mean edge, or coarser than size), axes %d",
              f.s.coarse->bcell[0], f.s.coarse->bquad[0]);
        fixture_free(&f);
    }
    xn = thin_run("method = \"newton\"; tolerance = 1.0e-7;", &itn, &cn, &diag);
    xa = thin_run("", &ita, &ca, &diag);
    xt = thin_run("coarse = { basis = \"trilinear\"; };", &itt, &ct, &diag);
    if (!xn || !xa || !xt) {
        free(xn);
        free(xa);
        free(xt);
        return;
    }
    for (a = 0; a < 3 * 26; a++) {
        da = fmax(da, fabs(xa[a] - xn[a]));
        dt = fmax(dt, fabs(xt[a] - xn[a]));
    }
    printf("thin: rod on two pins, 10 steps: defaults %d of 10 converged in %d iterations, %.2e of the model size "
           "from Newton; trilinear grid %d of 10, %d iterations, %.2e; Newton %d of 10, %d iterations\n",
           ca, ita, da / diag, ct, itt, dt / diag, cn, itn);
    CHECK(cn == 10, "the Newton reference converged %d of 10", cn);
    CHECK(ca == 10, "the defaults converged %d of 10 solves", ca);
    CHECK(da < 1e-5 * diag, "the defaults end %.3g of the model size from Newton", da / diag);
    CHECK(2 * ita < itt, "the defaults took %d iterations, the trilinear grid %d (expected 2x fewer)", ita, itt);
    free(xn);
    free(xa);
    free(xt);
}

/* ------------------------------------------------------------------------------------- */
static int load_text(const char *text, sipd_scene *sc)
{
    char cfg[700];
    FILE *fp;
    snprintf(cfg, sizeof cfg, "%s/s.cfg", scratch);
    fp = fopen(cfg, "w");
    if (!fp)
        return -1;
    fputs(text, fp);
    fclose(fp);
    return scene_load(cfg, sc);
}

static void test_scene(void)
{
    char base[600], text[4096];
    sipd_scene sc;
    static const struct {
        const char *solver, *extra;
    } bad[] = {
        {"coarse = { levels = 2; depth = 3; };", ""},                 /* unknown key    */
        {"coarse = { levels = 3; };", ""},                            /* levels range   */
        {"coarse = { levels = 0; };", ""},
        {"coarse = { levels = 2; every = 0; };", ""},                 /* every >= 1     */
        {"coarse = { levels = 2; size = 0; };", ""},                  /* size >= 1      */
        {"coarse = { levels = 2; size = 2000; };", ""},
        {"coarse = { levels = 2; refresh = -1; };", ""},
        {"coarse = { levels = 2; every = 5.0; };", ""},               /* float for int  */
        {"coarse = 2;", ""},                                          /* not a group    */
        {"method = \"vbd\"; coarse = { levels = 2; };", ""},           /* method         */
        {"sweep = \"gauss-seidel\"; coarse = { levels = 2; };", ""},   /* sweep          */
        {"coarse = { levels = \"on\"; };", ""},                       /* not auto       */
    };
    unsigned i;
    if (write_box(base, sizeof base, 2, 2, 2, 0.2, 0.2, 0.2)) {
        CHECK(0, "mesh");
        return;
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc;
        snprintf(text, sizeof text,
                 "solver = { %s };\nmaterials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
                 "bodies = ( { mesh = \"%s\"; material = \"m\"; } );\n%s\n",
                 bad[i].solver, base, bad[i].extra);
        rc = load_text(text, &sc);
        CHECK(rc != SIPD_OK, "accepted: %s %s", bad[i].solver, bad[i].extra);
        if (rc == SIPD_OK)
            scene_free(&sc);
    }
    /* defaults, and a scene with the ground (no pairs) is fine; printed and read back */
    snprintf(text, sizeof text,
             "solver = { iterations = 10; };\nmaterials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\"; } );\n", base);
    CHECK(load_text(text, &sc) == SIPD_OK, "plain scene refused");
    CHECK(sc.coarse_auto && sc.coarse_levels == 2 && sc.coarse_every == 10 && sc.coarse_size == 8 &&
              sc.coarse_refresh == 0,
          "defaults %d %d %d %d %d", sc.coarse_auto, sc.coarse_levels, sc.coarse_every, sc.coarse_size,
          sc.coarse_refresh);
    scene_free(&sc);
    {   /* "auto" is used by the method: off with Chebyshev, Gauss-Seidel, other methods; on with pairs */
        static const struct {
            const char *solver, *extra;
            int levels;
        } au[] = {
            {"coarse = { levels = \"auto\"; };", "", 2},
            {"chebyshev = true;", "", 1},
            {"sweep = \"gauss-seidel\";", "", 1},
            {"method = \"vbd\";", "", 1},
            {"method = \"newton\";", "", 1},
            {"coarse = { levels = \"auto\"; };", "contact = { self = true; };", 2},
            {"coarse = { levels = 2; };", "contact = { self = true; };", 2},   /* pairs: supported (CPU) */
            {"coarse = { levels = 1; };", "", 1},
        };
        unsigned k;
        for (k = 0; k < sizeof au / sizeof au[0]; k++) {
            snprintf(text, sizeof text,
                     "solver = { %s };\nmaterials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
                     "bodies = ( { mesh = \"%s\"; material = \"m\"; } );\n%s\n",
                     au[k].solver, base, au[k].extra);
            CHECK(load_text(text, &sc) == SIPD_OK, "refused: %s %s", au[k].solver, au[k].extra);
            CHECK(1 + scene_coarse_on(&sc) == au[k].levels, "%s %s: levels %d, expected %d", au[k].solver,
                  au[k].extra, 1 + scene_coarse_on(&sc), au[k].levels);
            scene_free(&sc);
        }
    }
    snprintf(text, sizeof text,
             "solver = { coarse = { levels = 2; every = 7; size = 5; refresh = 3; }; };\n"
             "materials = ( { name = \"m\"; youngs = 1.0e6; poisson = 0.3; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\"; } );\ncontact = { ground = { height = 0.0; }; };\n", base);
    CHECK(load_text(text, &sc) == SIPD_OK, "coarse scene with ground contact refused");
    if (sc.coarse_levels == 2) {
        char path[700];
        sipd_scene sc2;
        FILE *fp;
        CHECK(sc.coarse_every == 7 && sc.coarse_size == 5 && sc.coarse_refresh == 3, "values %d %d %d", sc.coarse_every,
              sc.coarse_size, sc.coarse_refresh);
        snprintf(path, sizeof path, "%s/printed.cfg", scratch);
        fp = fopen(path, "w");
        scene_print(fp, &sc);
        fclose(fp);
        CHECK(scene_load(path, &sc2) == SIPD_OK, "printed scene refused");
        CHECK(sc2.coarse_levels == 2 && sc2.coarse_every == 7 && sc2.coarse_size == 5 && sc2.coarse_refresh == 3,
              "read back %d %d %d %d", sc2.coarse_levels, sc2.coarse_every, sc2.coarse_size, sc2.coarse_refresh);
        scene_free(&sc2);
    }
    scene_free(&sc);
    printf("scene: %u bad solver.coarse settings refused; defaults and print/read-back checked\n",
           (unsigned)(sizeof bad / sizeof bad[0]));
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)argc, (void)argv;
    sipd_quiet = 1;
    return scratch_open("coarse", which);
}

static const test_case cases[] = {
    {"partition", .run = test_partition},
    {"galerkin", .run = test_galerkin},
    {"thin", .run = test_thin},
    {"newton", .run = test_newton},
    {"budget", .run = test_budget},
    {"energy", .run = test_energy},
    {"scene", .run = test_scene},
    {"pairs_galerkin", .run = test_pairs_galerkin},
    {"pairs_newton", .run = test_pairs_newton},
};
static const test_program program = {"test_coarse", TEST_CASES(cases), .dflt = "partition", .setup = prog_setup,
                                     .teardown = scratch_close};
TEST_MAIN(program)
