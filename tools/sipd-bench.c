/* sipd-bench — CPU throughput of the SIPD iteration on generated box meshes.
 *
 *   sipd-bench [--threads N] [--seconds S] [TETS ...]      (default sizes: 10000 100000 1000000)
 *
 * For each size, a cube of n³ cells (6 tets each, n chosen to come closest to TETS) is
 * built in memory with the material of the example scenes; one time step is solved with a
 * fixed number of iterations (tolerance 0) and timed.  Reported per sweep:
 *   jacobi     element pass + vertex pass + update, no energy evaluation (line_search never)
 *   jacobi+E   the same plus one energy evaluation per iteration (line_search always, mostly
 *              accepted full steps)
 *   gs         Gauss–Seidel colour sweep with the per-vertex line search
 * as million tet-iterations per second and ns per tet-iteration.  Output is a Markdown table
 * on stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "driver.h"
#include "meshgen.h"
#include "model.h"
#include "util.h"

static double run(int ntets_target, int sweep, int ls, int threads, double seconds, int *nt_out, int *iters_out,
                  int *ncol)
{
    int n = (int)floor(cbrt(ntets_target / 6.0) + 0.5), iters;
    sipd_scene sc;
    sipd_scene_material mat;
    sipd_scene_body body;
    sipd_model m;
    sipd_sim s;
    sipd_backend_params bp;
    sipd_solve_result r;
    double t0, dt;
    if (n < 1)
        n = 1;
    if (meshgen_bench_model(n, n, n, 1.0, 1.0, 1.0, &sc, &mat, &body, &m) != SIPD_OK)
        exit(1);
    sc.sweep = sweep;
    sc.line_search = ls;
    sim_backend_params(&sc, threads, &bp);
    /* calibrate: a few iterations, then enough for `seconds` */
    sc.iterations = 3;
    sim_init(&s, &sc, &m, &sipd_backend_cpu, &bp);
    t0 = sipd_now();
    sim_step(&s, sc.dt, &r);
    dt = sipd_now() - t0;
    sim_free(&s);
    iters = (int)(seconds / (dt / 3));
    if (iters < 3)
        iters = 3;
    if (iters > 100000)
        iters = 100000;
    sc.iterations = iters;
    sim_init(&s, &sc, &m, &sipd_backend_cpu, &bp);
    t0 = sipd_now();
    sim_step(&s, sc.dt, &r);
    dt = sipd_now() - t0;
    *nt_out = m.nt;
    *iters_out = r.iterations;
    *ncol = m.ncolors;
    sim_free(&s);
    model_free(&m);
    return (double)*nt_out * r.iterations / dt;
}

int main(int argc, char **argv)
{
    int sizes[16], nsizes = 0, threads = 0, i, k;
    double seconds = 2;
    static const char *names[3] = {"jacobi", "jacobi+E", "gs"};
    static const int sweeps[3] = {SIPD_SWEEP_JACOBI, SIPD_SWEEP_JACOBI, SIPD_SWEEP_GS};
    static const int lss[3] = {SIPD_LS_NEVER, SIPD_LS_ALWAYS, SIPD_LS_ALWAYS};
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (nsizes < 16 && atoi(argv[i]) > 0)
            sizes[nsizes++] = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: sipd-bench [--threads N] [--seconds S] [TETS ...]\n");
            return 2;
        }
    }
    if (!nsizes) {
        sizes[0] = 10000;
        sizes[1] = 100000;
        sizes[2] = 1000000;
        nsizes = 3;
    }
    sipd_quiet = 1;
#ifdef _OPENMP
    if (threads <= 0)
        threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    printf("| tets | colours | sweep | iterations | M tet-iter/s | ns per tet-iter |\n");
    printf("|---:|---:|---|---:|---:|---:|\n");
    for (i = 0; i < nsizes; i++)
        for (k = 0; k < 3; k++) {
            int nt, it, nc;
            double thr = run(sizes[i], sweeps[k], lss[k], threads, seconds, &nt, &it, &nc);
            printf("| %d | %d | %s | %d | %.1f | %.1f |\n", nt, nc, names[k], it, thr / 1e6, 1e9 / thr);
            fflush(stdout);
        }
    printf("\nthreads: %d, precision float64, projection expanded, nu = 0.45\n", threads);
    return 0;
}
