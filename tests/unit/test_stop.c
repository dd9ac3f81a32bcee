/* test_stop — a stop request inside a time step (issue 31, item 2), at each place that polls
 * sipd_stop_flag, and the resume from its checkpoint.
 *
 * The request is raised deterministically: a wrapper around one backend op sets
 * sipd_stop_flag on that op's K-th call (K: 60% — or 10% — of the calls the same run makes
 * uninterrupted),
 * exactly as the signal handler would at that moment.  The op's own work then runs, and the
 * next poll stops the step: the top of the Jacobi, Gauss-Seidel or mixed-fem iteration (after
 * `direction`, `gs_sweep`), the first CG iteration or the CHOLMOD worker's wait (after Newton's
 * or the coarse level's `assemble`, mixed-fem's `assemble`), the narrow phase (set just before
 * `detect` runs one).  Each case checks:
 *   - driver_run returns SIPD_ESIGNAL, the stop was inside a step, the checkpoint holds the start
 *     of that step (its substep count and time are those of the step's start);
 *   - a run resumed from the checkpoint in a fresh simulation, as main.c resumes one, ends with
 *     positions and velocities bit-identical to the uninterrupted run's.
 */
#include "fixture.h"
#include "runner.h"

#include "checkpoint.h"

#include <math.h>

static const char *trigger = "";
static long calls, trigger_at = -1;

static void count(const char *op)
{
    if (strcmp(op, trigger) != 0)
        return;
    if (calls++ == trigger_at)
        sipd_stop_flag = 1;   /* what on_signal (main.c) does */
}

static int w_direction(sipd_backend *b, sipd_dir_stats *st)
{
    int rc = sipd_backend_cpu.direction(b, st);
    count("direction");
    return rc;
}
static int w_gs_sweep(sipd_backend *b, int ls, double omega, sipd_gs_stats *st)
{
    int rc = sipd_backend_cpu.gs_sweep(b, ls, omega, st);
    count("gs_sweep");
    return rc;
}
static int w_assemble(sipd_backend *b, int t, sipd_bsr *H, double *g, sipd_bsr_extra *x)
{
    int rc = sipd_backend_cpu.assemble(b, t, H, g, x);
    count("assemble");
    return rc;
}
static int w_detect(sipd_backend *b, int run, int *flag)
{
    if (run)   /* before it runs: the narrow (and broad) phase itself sees the request */
        count("detect");
    return sipd_backend_cpu.detect(b, run, flag);
}

typedef struct {
    const char *name, *solver, *op;
    int two_bodies;
    int percent;   /* K = this share of the uninterrupted run's calls */
} stop_case;

static const stop_case cases[] = {
    {"jacobi", "chebyshev = true;", "direction", 0, 60},
    /* in the first step, while the adaptive Chebyshev estimate still moves (sim_step restores it) */
    {"jacobi_early", "chebyshev = true;", "direction", 0, 10},
    {"gauss_seidel", "sweep = \"gauss-seidel\"; line_search = \"always\";", "gs_sweep", 0, 60},
    {"newton_cg", "method = \"newton\"; linear = \"pcg\";", "assemble", 0, 60},
    {"newton_cholmod", "method = \"newton\"; linear = \"cholmod\";", "assemble", 0, 60},
    {"mixed_cholmod", "method = \"mixed-fem\"; linear = \"cholmod\";", "assemble", 0, 60},
    {"mixed_pcg", "method = \"mixed-fem\"; linear = \"pcg\";", "assemble", 0, 60},
    {"coarse", "coarse = { levels = 2; every = 3; size = 2; };", "assemble", 0, 60},
    {"narrow", "chebyshev = true;", "detect", 1, 60},
};

enum { FRAMES = 2 };

static int load(fixture *f, const stop_case *c, const sipd_backend_ops *ops)
{
    char base[600], text[4096], two[700] = "";
    if (write_box(base, sizeof base, 2, 2, 2, 0.2, 0.2, 0.2))
        return 1;
    if (c->two_bodies)
        snprintf(two, sizeof two, ", { mesh = \"%s\"; material = \"m\"; translate = [0.0, 0.26, 0.0]; }", base);
    snprintf(text, sizeof text,
             "time = { dt = 0.0166667; frames = %d; substeps = 2; };\n"
             "solver = { %s iterations = 30; tolerance = 1.0e-12; };\n"
             "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.3; } );\n"
             "bodies = ( { mesh = \"%s\"; material = \"m\"; translate = [0.0, 0.05, 0.0]; "
             "initial_stretch = [1.2, 1.0, 1.0]; }%s );\n"
             "contact = { dhat = 0.01; ground = { height = 0.0; }; };\n",
             FRAMES, c->solver, base, two);
    return fixture_load_ops(f, text, c->name, ops);
}

/* The final x and v (nv*3 each, malloc'ed) of a run of FRAMES frames from the state f holds. */
static int finish(fixture *f, int start_frame, int start_substep, const char *ckpt, double **x, double **v, int *rc)
{
    sipd_run_opts o;
    int done = 0, nv = f->m.nv;
    memset(&o, 0, sizeof o);
    o.frames = FRAMES;
    o.start_frame = start_frame;
    o.start_substep = start_substep;
    o.stop = &sipd_stop_flag;
    o.checkpoint = ckpt;
    o.scene_hash = 1;
    *rc = driver_run(&f->s, &o, &done);
    *x = malloc(sizeof(double) * 3 * (size_t)nv);
    *v = malloc(sizeof(double) * 3 * (size_t)nv);
    return !*x || !*v || f->s.ops->download(f->s.b, *x, *v) != SIPD_OK;
}

static void run_case(const stop_case *c)
{
    sipd_backend_ops ops = sipd_backend_cpu;
    fixture f;
    sipd_checkpoint ck;
    char ckpt[700];
    double *xr = NULL, *vr = NULL, *xi = NULL, *vi = NULL, *xs = NULL, *vs = NULL, t_ref;
    long total;
    int rc, nv;
    ops.direction = w_direction;
    ops.gs_sweep = w_gs_sweep;
    ops.assemble = w_assemble;
    ops.detect = w_detect;
    trigger = c->op;
    snprintf(ckpt, sizeof ckpt, "%s/%s.ckpt", scratch, c->name);

    /* uninterrupted: the reference, and how often the op is called */
    sipd_stop_flag = 0;
    calls = 0;
    trigger_at = -1;
    if (load(&f, c, &ops)) {
        CHECK(0, "%s: setup", c->name);
        return;
    }
    nv = f.m.nv;
    t_ref = f.sc.dt * FRAMES;
    CHECK(finish(&f, 0, 0, NULL, &xr, &vr, &rc) == 0 && rc == SIPD_OK, "%s: reference run (rc %d)", c->name, rc);
    fixture_free(&f);
    total = calls;
    CHECK(total >= 4, "%s: the op %s was called %ld times: nothing to interrupt", c->name, c->op, total);

    /* interrupted at 60% of those calls */
    calls = 0;
    trigger_at = total * c->percent / 100;
    if (load(&f, c, &ops)) {
        CHECK(0, "%s: setup", c->name);
        goto out;
    }
    finish(&f, 0, 0, ckpt, &xi, &vi, &rc);
    CHECK(rc == SIPD_ESIGNAL, "%s: a stop request at %s call %ld of %ld: driver_run returned %d", c->name, c->op,
          trigger_at, total, rc);
    CHECK(driver_stopped_inside_step(), "%s: the stop was not inside a step", c->name);
    memset(&ck, 0, sizeof ck);
    if (checkpoint_read(ckpt, &ck) != SIPD_OK) {
        CHECK(0, "%s: no checkpoint", c->name);
        fixture_free(&f);
        goto out;
    }
    {   /* the step's start: frames, steps and time of the checkpoint agree */
        double h = f.sc.dt / f.sc.substeps, t_want = (ck.frame * f.sc.substeps + ck.substep) * h;
        CHECK(ck.substep == driver_stopped_substep() && fabs(ck.t - t_want) <= 1e-12 * t_ref,
              "%s: checkpoint at frame %d step %d, t = %.17g (expected %.17g)", c->name, ck.frame, ck.substep, ck.t,
              t_want);
        CHECK(ck.frame * f.sc.substeps + ck.substep < FRAMES * f.sc.substeps, "%s: stopped after the last step",
              c->name);
    }
    printf("%-15s stop at %s call %ld of %ld -> checkpoint of frame %d + %d steps (t = %.6g s)\n", c->name, c->op,
           trigger_at, total, ck.frame, ck.substep, ck.t);
    fixture_free(&f);

    /* resumed in a fresh simulation, as main.c resumes (sim_resume) */
    sipd_stop_flag = 0;
    trigger_at = -1;
    if (load(&f, c, &ops)) {
        CHECK(0, "%s: setup", c->name);
        checkpoint_free(&ck);
        goto out;
    }
    CHECK(ck.nv == nv && sim_resume(&f.s, &ck) == SIPD_OK, "%s: restore", c->name);
    finish(&f, ck.frame, ck.substep, NULL, &xs, &vs, &rc);
    CHECK(rc == SIPD_OK, "%s: resumed run (rc %d)", c->name, rc);
    CHECK(xr && xs && memcmp(xr, xs, sizeof(double) * 3 * (size_t)nv) == 0 &&
              memcmp(vr, vs, sizeof(double) * 3 * (size_t)nv) == 0,
          "%s: the resumed run's positions or velocities differ from the uninterrupted run's", c->name);
    checkpoint_free(&ck);
    fixture_free(&f);
out:
    free(xr);
    free(vr);
    free(xi);
    free(vi);
    free(xs);
    free(vs);
    sipd_stop_flag = 0;
}

static void case_stop(const void *c)
{
    run_case(c);
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)argc, (void)argv;
    if (scratch_open("test_stop", which))
        return 1;
    sipd_quiet = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    return 0;
}

/* one runner case per row of cases[] */
int main(int argc, char **argv)
{
    enum { N = sizeof cases / sizeof cases[0] };
    test_case table[N];
    test_program program = {"test_stop", table, N, .dflt = "all", .all = 1, .setup = prog_setup,
                            .teardown = scratch_close};
    unsigned i;
    for (i = 0; i < N; i++)
        table[i] = (test_case){cases[i].name, .run_data = case_stop, .data = &cases[i]};
    return test_main(&program, argc, argv);
}
