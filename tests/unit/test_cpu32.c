/* test_cpu32.c — the float32 CPU backend (src/backend_cpu32.c, --precision float32;
 * docs/precision.md) against the float64 CPU backend, as tests/gpu/test_gpu.c checks the CUDA
 * backend (its compare, its criteria):
 *
 *   scene FILE [FRAMES]  FILE's first FRAMES frames (default 3) on both backends: positions after
 *                every frame agree within POS_TOL of the bounding-box diagonal; no float32 solve
 *                diverged; its solves converged, or stalled at a floor (the round-off of the
 *                float32 state or the energy's resolution, which the driver tells apart), or
 *                stalled otherwise only where the float64 ones did as often.
 *   methods FILE [sipd-vbd|assembled]  the same on FILE with each method and sweep (sipd Jacobi with and
 *                without Chebyshev, two-level sipd: the `assemble` op, sipd Gauss–Seidel, vbd,
 *                block-jacobi, diag-jacobi, gd, newton: `assemble` after a Hessian direction pass,
 *                mixed-fem: `assemble` of the non-stretch terms and `terms_energy`); sipd-vbd:
 *                the sipd, vbd and newton rows only; assembled: newton and mixed-fem.  On the sliding cube (ground contact) block-jacobi
 *                and gd, which lean on the global line search, end at their cap in float32 where
 *                float64 converges (residuals 0.03 and 0.02 against 1e-5: float32 energies of
 *                slightly strained elements lose their digits, docs/precision.md), so that scene
 *                runs sipd-vbd.
 *   refuse       what the float32 CPU backend does not run is refused, by the registry
 *                (registry_choose_precision: exit status 2, the feature named) and by create:
 *                contact.ccd with contact pairs; --precision float64 with device cuda.
 *
 * POS_TOL: 1e-4 of the diagonal.  The float32 solve stops where its updates reach the round-off
 * of the float32 state (relative force residual 1e-5 ... 3e-3 on the example scenes, against the
 * tolerance 1e-5 ... 1e-6 the float64 solve reaches); a residual r of the elastic force leaves a
 * position error of about r × the step's displacement, itself a small fraction of the diagonal over
 * a few frames.  The CUDA backend's test allows 1e-3 (its sums round in another order; it also runs
 * contact with discrete detection only); measured here: 7e-8 ... 4e-5 (printed by each case).
 * POS_TOL_CAP: 1e-3 (test_gpu's), where the float64 solves end at their iteration cap (the slow
 * methods of the `methods` case: block-jacobi, diag-jacobi, gd, plain sipd): the two runs then
 * compare two unconverged iterates, whose paths differ where float32 energies decide the line
 * search (gd: 1.2e-4 of the diagonal after 2 frames; docs/precision.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "method.h"
#include "model.h"
#include "registry.h"
#include "scene.h"
#include "util.h"
#include "check.h"

#define POS_TOL 1e-4
#define POS_TOL_CAP 1e-3
#define MAX_FRAMES 3

static double max_dist(const double *a, const double *b, int nv)
{
    double d = 0;
    int i;
    for (i = 0; i < nv; i++) {
        double dx = a[3 * i] - b[3 * i], dy = a[3 * i + 1] - b[3 * i + 1], dz = a[3 * i + 2] - b[3 * i + 2];
        double r = sqrt(dx * dx + dy * dy + dz * dz);
        if (!(r <= d))
            d = r;   /* NaN wins */
    }
    return d;
}

typedef struct {
    long iters, by_status[4], floor;   /* floor: stalled at float32 round-off or the energy floor */
    double worst;
} run_stats;

/* `frames` frames of sc on ops; out[f] (nv*3) = positions after frame f+1. */
static int run_frames(const sipd_scene *sc, const sipd_model *m, const sipd_backend_ops *ops, int frames, double *out,
                      run_stats *rs)
{
    sipd_sim s;
    sipd_backend_params bp;
    double h = sc->dt / sc->substeps;
    int f, k, rc;
    memset(rs, 0, sizeof *rs);
    sim_backend_params(sc, 0, &bp);
    if ((rc = sim_init(&s, sc, m, ops, &bp)) != SIPD_OK)
        return rc;
    for (f = 0; f < frames; f++) {
        for (k = 0; k < sc->substeps; k++) {
            sipd_solve_result r;
            if ((rc = sim_step(&s, h, &r)) != SIPD_OK) {
                sim_free(&s);
                return rc;
            }
            rs->iters += r.iterations;
            if (r.status >= 0 && r.status < 4)
                rs->by_status[r.status]++;
            rs->floor += r.status == SIPD_SOLVE_STALLED && (r.at_roundoff || r.at_floor);
            if (!(r.residual <= rs->worst))
                rs->worst = r.residual;
        }
        if ((rc = ops->download(s.b, out + (size_t)f * 3 * m->nv, NULL)) != SIPD_OK) {
            sim_free(&s);
            return rc;
        }
    }
    sim_free(&s);
    return SIPD_OK;
}

static void compare(const char *what, const sipd_scene *sc, const sipd_model *m, int frames)
{
    size_t n = (size_t)frames * 3 * m->nv;
    double *x64 = malloc(n * sizeof(double)), *x32 = malloc(n * sizeof(double)), dmax = 0;
    run_stats s64, s32;
    double tol = POS_TOL;
    int f;
    if (!x64 || !x32) {
        CHECK(0, "out of memory");
        free(x64);
        free(x32);
        return;
    }
    CHECK(run_frames(sc, m, &sipd_backend_cpu, frames, x64, &s64) == SIPD_OK, "%s: float64 run failed", what);
    CHECK(run_frames(sc, m, &sipd_backend_cpu32, frames, x32, &s32) == SIPD_OK, "%s: float32 run failed", what);
    if (s64.by_status[1] > 0)   /* float64 at its cap: two unconverged iterates (POS_TOL_CAP) */
        tol = POS_TOL_CAP;
    for (f = 0; f < frames; f++) {
        double d = max_dist(x64 + (size_t)f * 3 * m->nv, x32 + (size_t)f * 3 * m->nv, m->nv) / m->bbox_diag;
        CHECK(d < tol, "%s: frame %d: float32 and float64 positions differ by %.3e of the diagonal", what, f + 1, d);
        if (!(d <= dmax))
            dmax = d;
    }
    printf("%s: max |x32 - x64| / diag over %d frames = %.3e (tolerance %g)\n", what, frames, dmax, tol);
    printf("%s: iterations float64 %ld, float32 %ld; worst relative residual float64 %.3g, float32 %.3g "
           "(tolerance %g)\n", what, s64.iters, s32.iters, s64.worst, s32.worst, sc->tolerance);
    printf("%s: float32 solves: converged %ld, at-cap %ld, stalled %ld (at a floor %ld), diverged %ld\n", what,
           s32.by_status[0], s32.by_status[1], s32.by_status[2], s32.floor, s32.by_status[3]);
    CHECK(s32.by_status[3] == 0, "%s: %ld float32 solves diverged", what, s32.by_status[3]);
    CHECK(s32.by_status[2] - s32.floor <= s64.by_status[2] - s64.floor,
          "%s: %ld float32 solves stalled other than at a floor (float64: %ld)", what, s32.by_status[2] - s32.floor,
          s64.by_status[2] - s64.floor);
    /* a float32 solve at its cap only where float64 also hits it (a floor ends a solve early) */
    CHECK(s32.by_status[1] <= s64.by_status[1], "%s: %ld float32 solves at the iteration cap (float64: %ld)", what,
          s32.by_status[1], s64.by_status[1]);
    free(x64);
    free(x32);
}

static int load(const char *path, sipd_scene *sc, sipd_model *m)
{
    if (scene_load(path, sc) != SIPD_OK) {
        CHECK(0, "cannot load %s", path);
        return 1;
    }
    if (model_build(sc, m) != SIPD_OK) {
        CHECK(0, "cannot build %s", path);
        scene_free(sc);
        return 1;
    }
    return 0;
}

static int test_scene(const char *path, int frames)
{
    sipd_scene sc;
    sipd_model m;
    sipd_backend_choice c;
    if (load(path, &sc, &m))
        return 1;
    CHECK(registry_choose_precision(&sc, SIPD_DEVICE_CPU, "float32", &c) == SIPD_OK && c.backend &&
              c.backend->ops == &sipd_backend_cpu32 && !strcmp(c.backend->precision, "float32"),
          "%s: the registry does not give the float32 CPU backend (%s)", path, c.why);
    if (frames > sc.frames)
        frames = sc.frames;
    printf("scene %s: %d vertices, %d tets, %d frames x %d substeps, method %s, tolerance %g, ground %d, "
           "friction %g, ccd %d\n", path, m.nv, m.nt, frames, sc.substeps, scene_method_name(sc.method), sc.tolerance,
           sc.contact && sc.ground, sc.friction, sc.contact && sc.ccd);
    compare(path, &sc, &m, frames);
    model_free(&m);
    scene_free(&sc);
    return 0;
}

/* which rows of test_methods: all, sipd + vbd + newton, newton + mixed-fem */
enum { ROWS_ALL = 0, ROWS_SIPD_VBD = 1, ROWS_ASSEMBLED = 2 };

static void test_methods(const char *path, int rows)
{
    if (rows < ROWS_ALL || rows > ROWS_ASSEMBLED) {
        CHECK(0, "methods: unknown set of rows");
        return;
    }
    static const struct {
        const char *what;
        int method, sweep, chebyshev, coarse;
    } cases[] = {
        {"sipd jacobi chebyshev", SIPD_METHOD_SIPD, SIPD_SWEEP_JACOBI, 1, 1},
        {"sipd jacobi two-level", SIPD_METHOD_SIPD, SIPD_SWEEP_JACOBI, 0, 2},
        {"sipd jacobi plain", SIPD_METHOD_SIPD, SIPD_SWEEP_JACOBI, 0, 1},
        {"sipd gauss-seidel", SIPD_METHOD_SIPD, SIPD_SWEEP_GS, 0, 1},
        {"vbd", SIPD_METHOD_VBD, SIPD_SWEEP_GS, 0, 1},
        {"block-jacobi", SIPD_METHOD_BLOCK_JACOBI, SIPD_SWEEP_JACOBI, 0, 1},
        {"diag-jacobi", SIPD_METHOD_DIAG_JACOBI, SIPD_SWEEP_JACOBI, 0, 1},
        {"gd", SIPD_METHOD_GD, SIPD_SWEEP_JACOBI, 0, 1},
        {"newton", SIPD_METHOD_NEWTON, SIPD_SWEEP_JACOBI, 0, 1},
        {"mixed-fem", SIPD_METHOD_MIXED, SIPD_SWEEP_JACOBI, 0, 1},
    };
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sipd_scene sc;
        sipd_model m;
        char what[96];
        const int mt = cases[k].method;
        if (rows == ROWS_SIPD_VBD && mt != SIPD_METHOD_SIPD && mt != SIPD_METHOD_VBD && mt != SIPD_METHOD_NEWTON)
            continue;
        if (rows == ROWS_ASSEMBLED && mt != SIPD_METHOD_NEWTON && mt != SIPD_METHOD_MIXED)
            continue;
        if (load(path, &sc, &m))
            return;
        sc.method = cases[k].method;
        sc.sweep = cases[k].sweep;
        sc.chebyshev = cases[k].chebyshev;
        sc.coarse_levels = cases[k].coarse;
        sc.coarse_auto = 0;
        snprintf(what, sizeof what, "%s (coarse level %s)", cases[k].what, scene_coarse_on(&sc) ? "on" : "off");
        CHECK(!cases[k].coarse || (cases[k].coarse == 2) == scene_coarse_on(&sc), "%s: coarse level not as set", what);
        compare(what, &sc, &m, 2);
        model_free(&m);
        scene_free(&sc);
    }
}

/* A refused scene: the registry's choice (exit status 2, the message naming `feature`), and the
 * backend's create refuses it too (a caller that skips the registry). */
static void refused(const char *what, sipd_scene *sc, const sipd_model *m, const char *feature)
{
    sipd_backend_choice c;
    sipd_backend_params bp;
    sipd_sim s;
    int rc = registry_choose_precision(sc, SIPD_DEVICE_CPU, "float32", &c);
    printf("%s: registry: status %d: %s\n", what, rc, c.why);
    CHECK(rc == SIPD_EINPUT && !c.backend, "%s: --precision float32 not refused by the registry (status %d)", what, rc);
    CHECK(strstr(c.why, feature) && strstr(c.why, "float64"), "%s: the refusal does not name '%s': %s", what, feature,
          c.why);
    sim_backend_params(sc, 0, &bp);
    rc = sim_init(&s, sc, m, &sipd_backend_cpu32, &bp);
    if (rc == SIPD_OK)
        sim_free(&s);
    CHECK(rc == SIPD_EINPUT, "%s: the float32 backend's create did not refuse it (status %d)", what, rc);
}

static void test_refuse(const char *plain, const char *pairs)
{
    sipd_scene sc;
    sipd_model m;
    sipd_backend_choice c;
    int rc;
    if (load(plain, &sc, &m))
        return;
    /* float64 with device cuda: the CUDA backend is float32 only (status 2, whether or not this
       build has it); with cpu and auto: the float64 CPU backend */
    rc = registry_choose_precision(&sc, SIPD_DEVICE_CUDA, "float64", &c);
    CHECK(rc == SIPD_EINPUT && strstr(c.why, "float32"), "float64 on cuda: status %d: %s", rc, c.why);
    rc = registry_choose_precision(&sc, SIPD_DEVICE_AUTO, "float64", &c);
    CHECK(rc == SIPD_OK && c.backend && c.backend->ops == &sipd_backend_cpu, "float64 auto: status %d: %s", rc, c.why);
    rc = registry_choose_precision(&sc, SIPD_DEVICE_CPU, NULL, &c);
    CHECK(rc == SIPD_OK && c.backend && c.backend->ops == &sipd_backend_cpu, "no precision, cpu: not the float64 CPU");
    rc = registry_choose_precision(&sc, SIPD_DEVICE_CPU, "float16", &c);
    CHECK(rc == SIPD_EINPUT, "precision float16 accepted");
    model_free(&m);
    scene_free(&sc);
    if (load(pairs, &sc, &m))
        return;
    CHECK(scene_has_pairs(&sc) && sc.ccd, "%s has no contact pairs with contact.ccd", pairs);
    refused("contact.ccd with contact pairs", &sc, &m, "contact.ccd with contact pairs");
    model_free(&m);
    scene_free(&sc);
}

int main(int argc, char **argv)
{
    sipd_quiet = 1;
    if (argc >= 3 && !strcmp(argv[1], "scene"))
        test_scene(argv[2], argc >= 4 ? atoi(argv[3]) : MAX_FRAMES);
    else if (argc >= 3 && !strcmp(argv[1], "methods"))
        test_methods(argv[2], argc < 4                      ? ROWS_ALL
                              : !strcmp(argv[3], "sipd-vbd")  ? ROWS_SIPD_VBD
                              : !strcmp(argv[3], "assembled") ? ROWS_ASSEMBLED
                                                              : -1);
    else if (argc >= 4 && !strcmp(argv[1], "refuse"))
        test_refuse(argv[2], argv[3]);
    else {
        fprintf(stderr, "usage: test_cpu32 scene FILE [FRAMES] | methods FILE [sipd-vbd|assembled] | refuse "
                        "PLAIN_SCENE PAIRS_CCD_SCENE\n");
        return 2;
    }
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
