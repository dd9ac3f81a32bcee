/* test_assemble.c — the backend's sets of terms (backend.h assemble, terms_energy, iterate) on the
 * CPU backend, at a randomly perturbed rope (springs: a kind with a pairwise K; rod bending: one
 * without), the sets SIPD_TERMS_ALL and SIPD_TERMS_NO_STRETCH.
 *
 *   energy    terms_energy(ALL, α) equals energy(α) bit for bit, at two step lengths; NO_STRETCH
 *             is below it (the stretched springs' energy is left out); a set that does not exist
 *             is refused
 *   gradient  g of assemble(set) against central differences of terms_energy(set) along random
 *             directions (1e-6 relative); ALL's g equals the gradient op's bit for bit; the two
 *             sets' g differ
 *   hessian   dᵀ H d of assemble(NO_STRETCH) against second differences of its energy (inertia +
 *             rod bending, whose Gauss–Newton Hessian is exact at a straight rod: 5e-3 relative at
 *             a 1e-4 perturbation, where bending is ~3/4 of dᵀHd); H symmetric, Dirichlet rows the
 *             identity; along the rope ALL's H is 1.5x stiffer than NO_STRETCH's (the springs'
 *             blocks, ~3/4 of the inertia's there, are in ALL only)
 *   iterate   iterate gives y: after set_direction(d) and apply(1, 1), y = y₀ + d (1e-14)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "rng.h"
#include "runner.h"

#define H_STEP (1.0 / 60)

static const char *rope =
    "time = { dt = 0.0166667; frames = 1; };\n"
    "solver = { method = \"mixed-fem\"; };\n"
    "materials = ( { name = \"rubber\"; youngs = 1.0e6; poisson = 0.3; density = 1000.0; } );\n"
    "bodies = ( { generate = { shape = \"rod\"; length = 1.0; segments = 12; }; elements = \"rod\";\n"
    "  material = \"rubber\"; radius = 0.01;\n"
    "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.01, 1.0, 1.0]; }; } );\n";

/* The rope at rest perturbed by `amp` (uniform per coordinate, free vertices), v = 0, a step of
 * length h begun, and a direction pass at its initial guess. */
static int start(fixture *f, double amp, double h, uint64_t seed)
{
    test_rng r = rng_make(seed);
    const int n = 3 * (f->m.nv > 0 ? f->m.nv : 1);
    double *x = malloc(sizeof(double) * n), *v = calloc((size_t)n, sizeof(double));
    sipd_dir_stats st;
    int i, rc;
    for (i = 0; i < 3 * f->m.nv; i++)
        x[i] = f->m.X0[i] + (f->m.fixed[i / 3] ? 0 : rng_range(&r, -amp, amp));
    memset(&st, 0, sizeof st);
    rc = f->s.ops->upload(f->s.b, x, v) != SIPD_OK || f->s.ops->begin_step(f->s.b, h, h, f->sc.gravity, 0) != SIPD_OK ||
         f->s.ops->direction(f->s.b, &st) != SIPD_OK;
    free(x);
    free(v);
    return rc;
}

/* A random direction (0 on Dirichlet vertices), max |d_i| = 1, set as dy. */
static void random_dir(fixture *f, test_rng *r, double *d)
{
    int i;
    for (i = 0; i < 3 * f->m.nv; i++) d[i] = f->m.fixed[i / 3] ? 0 : rng_range(r, -1, 1);
    CHECK(f->s.ops->set_direction(f->s.b, d) == SIPD_OK, "set_direction");
}

static double E_of(fixture *f, int terms, double alpha)
{
    double E = NAN;
    CHECK(f->s.ops->terms_energy(f->s.b, terms, alpha, &E) == SIPD_OK, "terms_energy(%d, %g)", terms, alpha);
    return E;
}

static void test_energy(void)
{
    fixture f;
    int k;
    if (fixture_load(&f, rope)) {
        CHECK(0, "load");
        return;
    }
    for (k = 0; k < 2; k++) {   /* two step lengths: the inertia terms differ, the elastic ones not */
        static const double alphas[] = {0, 0.5, 1, -0.25};
        double *d = malloc(sizeof(double) * 3 * f.m.nv), E = 0, Et = 0;
        test_rng r = rng_make(7);
        unsigned i;
        CHECK(start(&f, 0.02, k ? 4 * H_STEP : H_STEP, 11) == 0, "start");
        random_dir(&f, &r, d);
        for (i = 0; i < sizeof alphas / sizeof alphas[0]; i++) {
            double Ea = NAN;
            CHECK(f.s.ops->energy(f.s.b, alphas[i], &Ea) == SIPD_OK, "energy");
            CHECK(Ea == E_of(&f, SIPD_TERMS_ALL, alphas[i]), "terms_energy(ALL, %g) != energy", alphas[i]);
        }
        E = E_of(&f, SIPD_TERMS_ALL, 0);
        Et = E_of(&f, SIPD_TERMS_NO_STRETCH, 0);
        CHECK(E > Et, "the stretched springs add nothing to E: %.17g, without them %.17g", E, Et);
        CHECK(f.s.ops->terms_energy(f.s.b, 7, 0, &Et) != SIPD_OK, "a set that does not exist was evaluated");
        free(d);
    }
    fixture_free(&f);
}

static void test_gradient(void)
{
    static const int sets[2] = {SIPD_TERMS_ALL, SIPD_TERMS_NO_STRETCH};
    fixture f;
    double *g[2], *gop, *d, worst = 0, gdiff = 0;
    int s, k, i, n;
    if (fixture_load(&f, rope)) {
        CHECK(0, "load");
        return;
    }
    n = 3 * f.m.nv;
    g[0] = malloc(sizeof(double) * n);
    g[1] = malloc(sizeof(double) * n);
    gop = malloc(sizeof(double) * n);
    d = malloc(sizeof(double) * n);
    CHECK(start(&f, 0.02, H_STEP, 5) == 0, "start");
    for (s = 0; s < 2; s++) {
        sipd_bsr_extra extra = {NULL, NULL, NULL};
        test_rng r = rng_make(100 + s);
        CHECK(f.s.ops->assemble(f.s.b, sets[s], &f.s.H, g[s], &extra) == SIPD_OK, "assemble(%d)", sets[s]);
        CHECK(extra.row == NULL, "a matrix-free term without pairs");
        for (k = 0; k < 6; k++) {
            const double eps = 1e-6;
            double fd, gd = 0;
            random_dir(&f, &r, d);
            fd = (E_of(&f, sets[s], eps) - E_of(&f, sets[s], -eps)) / (2 * eps);
            for (i = 0; i < n; i++) gd += g[s][i] * d[i];
            worst = fmax(worst, fabs(fd - gd) / fmax(fabs(gd), 1e-300));
            CHECK(fabs(fd - gd) <= 1e-6 * fabs(gd), "set %d: g·d = %.12g, differences %.12g", sets[s], gd, fd);
        }
    }
    CHECK(f.s.ops->gradient(f.s.b, gop) == SIPD_OK, "gradient");
    for (i = 0; i < n; i++) {
        CHECK(gop[i] == g[0][i], "ALL's g[%d] = %.17g, the gradient op's %.17g", i, g[0][i], gop[i]);
        gdiff = fmax(gdiff, fabs(g[0][i] - g[1][i]));
    }
    CHECK(gdiff > 0, "ALL's and NO_STRETCH's gradients are the same");
    printf("gradient: worst relative difference to central differences %.2e\n", worst);
    free(g[0]);
    free(g[1]);
    free(gop);
    free(d);
    fixture_free(&f);
}

/* dᵀ H d (block-CSR) */
static double quad(const sipd_bsr *H, const double *d)
{
    double q = 0;
    int a, k, r, c;
    for (a = 0; a < H->n; a++)
        for (k = H->row_off[a]; k < H->row_off[a + 1]; k++)
            for (r = 0; r < 3; r++)
                for (c = 0; c < 3; c++) q += d[3 * a + r] * H->val[9 * k + 3 * r + c] * d[3 * H->col[k] + c];
    return q;
}

static void test_hessian(void)
{
    fixture f;
    sipd_bsr_extra extra = {NULL, NULL, NULL};
    double *g, *d, worst = 0, asym = 0, hmax = 0, along[2];
    int a, k, i, n, r, c, ident = 1;
    test_rng rr = rng_make(3);
    if (fixture_load(&f, rope)) {
        CHECK(0, "load");
        return;
    }
    n = 3 * f.m.nv;
    g = malloc(sizeof(double) * n);
    d = malloc(sizeof(double) * n);
    CHECK(start(&f, 1e-4, H_STEP, 9) == 0, "start");
    CHECK(f.s.ops->assemble(f.s.b, SIPD_TERMS_NO_STRETCH, &f.s.H, g, &extra) == SIPD_OK, "assemble");
    for (k = 0; k < 6; k++) {
        const double eps = 1e-4;
        double fd, q;
        random_dir(&f, &rr, d);
        fd = (E_of(&f, SIPD_TERMS_NO_STRETCH, eps) - 2 * E_of(&f, SIPD_TERMS_NO_STRETCH, 0) +
              E_of(&f, SIPD_TERMS_NO_STRETCH, -eps)) / (eps * eps);
        q = quad(&f.s.H, d);
        worst = fmax(worst, fabs(fd - q) / q);
        CHECK(fabs(fd - q) <= 5e-3 * q, "dᵀHd = %.12g, second differences %.12g", q, fd);
    }
    for (a = 0; a < f.m.nv; a++)   /* symmetric; Dirichlet rows the identity */
        for (k = f.s.H.row_off[a]; k < f.s.H.row_off[a + 1]; k++) {
            int b = f.s.H.col[k], t;
            for (t = f.s.H.row_off[b]; t < f.s.H.row_off[b + 1] && f.s.H.col[t] != a; t++) {}
            for (r = 0; r < 3; r++)
                for (c = 0; c < 3; c++) {
                    double v = f.s.H.val[9 * k + 3 * r + c];
                    hmax = fmax(hmax, fabs(v));
                    if (t < f.s.H.row_off[b + 1])
                        asym = fmax(asym, fabs(v - f.s.H.val[9 * t + 3 * c + r]));
                    if (f.m.fixed[a] && v != (b == a && r == c ? 1.0 : 0.0))
                        ident = 0;
                }
        }
    CHECK(asym <= 1e-14 * hmax, "H not symmetric: %.3e of %.3e", asym, hmax);
    CHECK(ident, "a Dirichlet row is not the identity");
    for (i = 0; i < n; i++) d[i] = f.m.fixed[i / 3] ? 0 : (i % 3 == 0 ? (double)(i / 3) : 0);   /* along the rope */
    for (k = 0; k < 2; k++) {
        CHECK(f.s.ops->assemble(f.s.b, k ? SIPD_TERMS_ALL : SIPD_TERMS_NO_STRETCH, &f.s.H, g, &extra) == SIPD_OK,
              "assemble");
        along[k] = quad(&f.s.H, d);
    }
    CHECK(along[1] > 1.5 * along[0], "ALL's H is not stiffer along the rope: %.6g vs NO_STRETCH's %.6g", along[1],
          along[0]);
    CHECK(f.s.ops->assemble(f.s.b, 7, &f.s.H, g, &extra) != SIPD_OK, "a set that does not exist was assembled");
    printf("hessian: worst relative difference to second differences %.2e\n", worst);
    free(g);
    free(d);
    fixture_free(&f);
}

static void test_iterate(void)
{
    fixture f;
    double *y0, *y1, *d, worst = 0;
    int i, n;
    test_rng r = rng_make(21);
    if (fixture_load(&f, rope)) {
        CHECK(0, "load");
        return;
    }
    n = 3 * f.m.nv;
    y0 = malloc(sizeof(double) * n);
    y1 = malloc(sizeof(double) * n);
    d = malloc(sizeof(double) * n);
    CHECK(start(&f, 0.02, H_STEP, 1) == 0, "start");
    CHECK(f.s.ops->iterate(f.s.b, y0) == SIPD_OK, "iterate");
    random_dir(&f, &r, d);
    for (i = 0; i < n; i++) d[i] *= 0.01;
    CHECK(f.s.ops->set_direction(f.s.b, d) == SIPD_OK, "set_direction");
    CHECK(f.s.ops->apply(f.s.b, 1, 1, NULL) == SIPD_OK, "apply");
    CHECK(f.s.ops->iterate(f.s.b, y1) == SIPD_OK, "iterate");
    for (i = 0; i < n; i++) worst = fmax(worst, fabs(y1[i] - (y0[i] + d[i])));
    CHECK(worst <= 1e-14, "y after apply differs from y0 + d by %.3e", worst);
    free(y0);
    free(y1);
    free(d);
    fixture_free(&f);
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)argc, (void)argv;
    sipd_quiet = 1;
    return scratch_open("assemble", which);
}

static const test_case cases[] = {
    {"energy", .run = test_energy},
    {"gradient", .run = test_gradient},
    {"hessian", .run = test_hessian},
    {"iterate", .run = test_iterate},
};
static const test_program program = {"test_assemble", TEST_CASES(cases), .dflt = "energy", .setup = prog_setup,
                                     .teardown = scratch_close};
TEST_MAIN(program)
