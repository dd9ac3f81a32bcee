/* sipd-bench — CPU throughput of the SIPD iteration on generated box meshes.
 *
 *   sipd-bench [--threads N] [--seconds S] [--iterations N] [--case LIST] [--precision P]
 *              [TETS|NXxNYxNZ ...]
 *                                          (default sizes: 10000 100000 1000000)
 *
 * For each size, a box is built in memory with the material of the example scenes: TETS gives
 * a unit cube of n³ cells (6 tets each, n chosen to come closest to TETS), NXxNYxNZ a box of
 * that many cells (cubic cells, the longest side 1 m; 40x20x20 is the 96000-tet box of
 * tools/bench-compare.sh).  One time step is solved with a fixed number of iterations
 * (tolerance 0) and timed: enough iterations for S seconds (default 2; calibrated by a first
 * 3-iteration step), or exactly N with --iterations (no calibration: the same work in every
 * run, as a comparison of two builds needs).  The cases (--case, a comma-separated list;
 * default jacobi,jacobi+E,gs):
 *   jacobi     SIPD Jacobi: element pass + vertex pass + update, no energy evaluation
 *              (line_search never); the box clamped at x = 0, under gravity
 *   jacobi+E   the same plus one energy evaluation per iteration (line_search always, mostly
 *              accepted full steps)
 *   gs         SIPD Gauss–Seidel colour sweep with the per-vertex line search
 *   vbd        method vbd: the Gauss–Seidel colour sweep with the true per-vertex Hessian
 *              block (line_search always, as gs)
 *   contact    SIPD Jacobi with contact: the box's cells split into two boxes of half the
 *              height (the same tet count), unclamped, stacked a quarter cell apart on a
 *              ground plane a quarter cell below, d̂ = half a cell, automatic stiffness, no
 *              friction, narrow phase every 4 iterations (the default): ground and body–body
 *              pairs from the first iteration
 * --precision float64 (default: the CPU backend, src/backend_cpu.c) or float32 (the float32 CPU
 * backend, src/backend_cpu32.c; docs/precision.md): the same cases (contact: discrete detection,
 * no contact.ccd, which float32 does not run with pairs).  The last line names the precision.
 * Reported per case: million tet-iterations per second and ns per tet-iteration (the step's
 * wall time over tets × iterations run; the step's own set-up is in it), the same from the
 * process's CPU time ("cpu ns": on a loaded machine the CPU time of a 1-thread run is far less
 * disturbed than its wall time; with several threads it also counts OpenMP's waiting threads,
 * so read the wall time there), the active contacts at
 * the end and a hash (64-bit FNV-1a) of the bytes of the positions after the step: two builds
 * that compute the same bits print the same hash (tools/bench-compare.sh compares them; the
 * threads split no sum that reaches the positions of these cases, so the hash does not depend
 * on the thread count).  Output is a Markdown table on stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "driver.h"
#include "meshgen.h"
#include "model.h"
#include "util.h"

#include "bench_model.h"

enum { CASE_JACOBI, CASE_JACOBI_E, CASE_GS, CASE_VBD, CASE_CONTACT, NCASES };
static const char *case_names[NCASES] = {"jacobi", "jacobi+E", "gs", "vbd", "contact"};

/* the backend timed (--precision).  tools/bench-compare.sh builds this file against older commits'
 * libraries, which have no float32 CPU backend (SIPD_HAVE_CPU32 undefined: --precision float32
 * then says so). */
#ifdef SIPD_HAVE_CPU32
#define BENCH_CPU32 (&sipd_backend_cpu32)
#else
#define BENCH_CPU32 ((const sipd_backend_ops *)NULL)
#endif
static const sipd_backend_ops *bench_ops = &sipd_backend_cpu;

typedef struct {
    int nx, ny, nz;   /* cells */
    double l[3];      /* box size (m) */
} box_size;

/* The contact case: the box's cells as two boxes of half the height (ny/2 and ny - ny/2
 * cells), the upper one a quarter cell above the lower one, the lower one a quarter cell above
 * the ground; no clamp.  *sc comes from bench_model_cantilever (its one-body model is dropped),
 * bodies[] holds the two bodies. */
static int build_contact(const box_size *b, sipd_scene *sc, sipd_scene_material *mat, sipd_scene_body *bodies,
                         sipd_model *m)
{
    int nylo = b->ny / 2 > 0 ? b->ny / 2 : 1, nyhi = b->ny - nylo > 0 ? b->ny - nylo : 1;
    double cell = b->l[1] / b->ny, gap = 0.25 * cell;
    sipd_mesh mesh[2];
    int rc;
    if (bench_model_cantilever(b->nx, nylo, b->nz, b->l[0], nylo * cell, b->l[2], sc, mat, &bodies[0], m) != SIPD_OK)
        return SIPD_EFAIL;
    model_free(m);
    if ((rc = meshgen_box(b->nx, nylo, b->nz, b->l[0], nylo * cell, b->l[2], &mesh[0])) != SIPD_OK)
        return rc;
    if ((rc = meshgen_box(b->nx, nyhi, b->nz, b->l[0], nyhi * cell, b->l[2], &mesh[1])) != SIPD_OK) {
        mesh_free(&mesh[0]);
        return rc;
    }
    bodies[0].npin = 0;
    bodies[0].translate[1] = gap;
    bodies[1] = bodies[0];
    bodies[1].translate[1] = gap + nylo * cell + gap;
    sc->nbodies = 2;
    sc->bodies = bodies;
    sc->contact = 1;
    sc->ground = 1;
    sc->ground_normal[1] = 1;
    sc->dhat = 0.5 * cell;
    sc->detect_every = 4;
    rc = model_build_meshes(sc, mesh, m);
    mesh_free(&mesh[0]);
    mesh_free(&mesh[1]);
    return rc;
}

/* FNV-1a over the bytes of the positions (after a step): equal hashes, equal bits */
static unsigned long long positions_hash(sipd_sim *s, int nv)
{
    double *x = malloc((size_t)nv * 3 * sizeof *x), *v = malloc((size_t)nv * 3 * sizeof *v);
    unsigned long long h = 14695981039346656037ull;
    size_t i;
    if (!x || !v || s->ops->download(s->b, x, v) != SIPD_OK)
        exit(1);
    for (i = 0; i < (size_t)nv * 3 * sizeof *x; i++)
        h = (h ^ ((const unsigned char *)x)[i]) * 1099511628211ull;
    free(x);
    free(v);
    return h;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One timed step of case k; returns tet-iterations per second (wall clock), *cpu_ns the process's
 * CPU time per tet-iteration in ns. */
static double run(const box_size *b, int k, int threads, double seconds, int fixed_iters, int *nt_out,
                  int *iters_out, int *ncol, int *contacts, unsigned long long *hash, double *cpu_ns)
{
    int iters, rc;
    sipd_scene sc;
    sipd_scene_material mat;
    sipd_scene_body bodies[2];
    sipd_model m;
    sipd_sim s;
    sipd_backend_params bp;
    sipd_solve_result r;
    double t0, dt, c0;
    if (k == CASE_CONTACT)
        rc = build_contact(b, &sc, &mat, bodies, &m);
    else
        rc = bench_model_cantilever(b->nx, b->ny, b->nz, b->l[0], b->l[1], b->l[2], &sc, &mat, &bodies[0], &m);
    if (rc != SIPD_OK)
        exit(1);
    sc.method = k == CASE_VBD ? SIPD_METHOD_VBD : SIPD_METHOD_SIPD;
    sc.sweep = k == CASE_GS || k == CASE_VBD ? SIPD_SWEEP_GS : SIPD_SWEEP_JACOBI;
    sc.line_search = k == CASE_JACOBI || k == CASE_CONTACT ? SIPD_LS_NEVER : SIPD_LS_ALWAYS;
    sim_backend_params(&sc, threads, &bp);
    if (fixed_iters > 0)
        iters = fixed_iters;
    else {   /* calibrate: a few iterations, then enough for `seconds` */
        sc.iterations = 3;
        if (sim_init(&s, &sc, &m, bench_ops, &bp) != SIPD_OK)
            exit(1);
        t0 = sipd_now();
        sim_step(&s, sc.dt, &r);
        dt = sipd_now() - t0;
        sim_free(&s);
        iters = (int)(seconds / (dt / 3));
        if (iters < 3)
            iters = 3;
        if (iters > 100000)
            iters = 100000;
    }
    sc.iterations = iters;
    if (sim_init(&s, &sc, &m, bench_ops, &bp) != SIPD_OK)
        exit(1);
    c0 = cpu_now();
    t0 = sipd_now();
    sim_step(&s, sc.dt, &r);
    dt = sipd_now() - t0;
    *cpu_ns = (cpu_now() - c0) * 1e9 / ((double)m.nt * r.iterations);
    *nt_out = m.nt;
    *iters_out = r.iterations;
    *ncol = m.ncolors;
    *contacts = r.contacts;
    *hash = positions_hash(&s, m.nv);
    sim_free(&s);
    model_free(&m);
    return (double)*nt_out * r.iterations / dt;
}

/* "TETS" (a unit cube of about TETS tets) or "NXxNYxNZ" (cells); 0 when neither. */
static int parse_size(const char *a, box_size *b)
{
    int nx, ny, nz, used = 0;
    long tets;
    char *end;
    if (sscanf(a, "%dx%dx%d%n", &nx, &ny, &nz, &used) == 3 && !a[used] && nx > 0 && ny > 0 && nz > 0) {
        int nmax = nx > ny ? (nx > nz ? nx : nz) : (ny > nz ? ny : nz);
        b->nx = nx, b->ny = ny, b->nz = nz;
        b->l[0] = (double)nx / nmax, b->l[1] = (double)ny / nmax, b->l[2] = (double)nz / nmax;
        return 1;
    }
    tets = strtol(a, &end, 10);
    if (*end || tets <= 0 || tets > 1000000000L)
        return 0;
    nx = (int)floor(cbrt(tets / 6.0) + 0.5);
    if (nx < 1)
        nx = 1;
    b->nx = b->ny = b->nz = nx;
    b->l[0] = b->l[1] = b->l[2] = 1;
    return 1;
}

/* "jacobi,vbd" → use[]; 0 on an unknown name */
static int parse_cases(const char *list, int *use)
{
    char buf[256], *tok, *save = NULL;
    int k;
    if (strlen(list) >= sizeof buf)
        return 0;
    strcpy(buf, list);
    memset(use, 0, NCASES * sizeof *use);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        for (k = 0; k < NCASES && strcmp(tok, case_names[k]); k++)
            ;
        if (k == NCASES)
            return 0;
        use[k] = 1;
    }
    return 1;
}

/* Bytes moved per tet-iteration of the plain Jacobi iteration, by a model (docs/benchmarks.md "The
 * fused Jacobi pass"): every array read or written once per pass, R bytes per real, the fused
 * pass' accumulators 9 doubles per vertex (read, then cleared) in either precision, a box's
 * (nx+1)(ny+1)(nz+1) vertices.  Element pass per tet: 4 vertex indices, Bm and V (10 R), the
 * material index (the gathered positions counted in the vertex pass' y).  Vertex pass per vertex:
 * y, y_prev, ỹ, y₀, g₀ read, g and dy written (7 × 3R), the mass (R), the fixed flag (1 B), the
 * accumulators (144 B) — or, for the gather, per incidence (4 per tet) its element, group, corner
 * and weight (6 B + R) and the tet's gradient and K⁺ (9 R), the element pass then writing 18 R per
 * tet.  apply per vertex: y, y_prev, dy, g read, y, y_prev written (18 R).  Not measured: caches
 * make the gathered reads cheaper than counted, the accumulators' colour-by-colour visits dearer. */
static void bytes_model(const box_size *sizes, int nsizes, int R)
{
    int i;
    printf("\nbytes per tet-iteration, plain Jacobi (a model, docs/benchmarks.md): element + vertex + apply pass\n");
    for (i = 0; i < nsizes; i++) {
        const box_size *b = &sizes[i];
        double nt = 6.0 * b->nx * b->ny * b->nz, nv = (b->nx + 1.0) * (b->ny + 1.0) * (b->nz + 1.0), rho = nv / nt;
        double el = 20 + 10.0 * R, vx = rho * (22.0 * R + 1), ap = rho * 18.0 * R;
        double fused_v = vx + rho * 144, gather_e = el + 18.0 * R, gather_v = vx + 4 * (6 + 10.0 * R);
        printf("  %.0f tets: fused %.0f + %.0f + %.0f = %.0f B; gather %.0f + %.0f + %.0f = %.0f B\n", nt, el, fused_v, ap,
               el + fused_v + ap, gather_e, gather_v, ap, gather_e + gather_v + ap);
    }
}

int main(int argc, char **argv)
{
    box_size sizes[16];
    int nsizes = 0, threads = 0, fixed_iters = 0, i, k, use[NCASES] = {1, 1, 1, 0, 0};
    double seconds = 2;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--iterations") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            fixed_iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc && parse_cases(argv[i + 1], use))
            i++;
        else if (!strcmp(argv[i], "--precision") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "float32") || !strcmp(argv[i + 1], "float64")))
        {
            bench_ops = !strcmp(argv[++i], "float32") ? BENCH_CPU32 : &sipd_backend_cpu;
            if (!bench_ops) {
                fprintf(stderr, "sipd-bench: this build has no float32 CPU backend\n");
                return 2;
            }
        }
        else if (nsizes < 16 && parse_size(argv[i], &sizes[nsizes]))
            nsizes++;
        else {
            fprintf(stderr, "usage: sipd-bench [--threads N] [--seconds S] [--iterations N] "
                            "[--case jacobi,jacobi+E,gs,vbd,contact] [--precision float32|float64] "
                            "[TETS|NXxNYxNZ ...]\n");
            return 2;
        }
    }
    if (!nsizes) {
        parse_size("10000", &sizes[0]);
        parse_size("100000", &sizes[1]);
        parse_size("1000000", &sizes[2]);
        nsizes = 3;
    }
    sipd_quiet = 1;
#ifdef _OPENMP
    if (threads <= 0)
        threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    printf("| tets | colours | sweep | iterations | M tet-iter/s | ns per tet-iter | cpu ns | contacts | positions hash |\n");
    printf("|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (i = 0; i < nsizes; i++)
        for (k = 0; k < NCASES; k++) {
            int nt, it, nc, ncontacts;
            unsigned long long hash;
            double thr, cpu_ns;
            if (!use[k])
                continue;
            thr = run(&sizes[i], k, threads, seconds, fixed_iters, &nt, &it, &nc, &ncontacts, &hash, &cpu_ns);
            printf("| %d | %d | %s | %d | %.1f | %.1f | %.1f | %d | %016llx |\n", nt, nc, case_names[k], it,
                   thr / 1e6, 1e9 / thr, cpu_ns, ncontacts, hash);
            fflush(stdout);
        }
    printf("\nthreads: %d, precision %s, projection expanded, nu = 0.45\n", threads,
           bench_ops != &sipd_backend_cpu ? "float32" : "float64");
    bytes_model(sizes, nsizes, bench_ops != &sipd_backend_cpu ? 4 : 8);
    return 0;
}
