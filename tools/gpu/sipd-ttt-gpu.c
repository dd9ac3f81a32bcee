/* sipd-ttt-gpu — time to tolerance of each method, GPU and CPU in one run (the GPU part of the
 * comparison-solver study; tools/convergence_study.py does the CPU study with plots).
 *
 *   sipd-ttt-gpu [--iterations N] [--gpu-only] [NX NY NZ ...]
 *                                                    (default beams: 20x4x4 and 40x8x8 cells)
 *
 * A cantilever beam of NX x NY x NZ cells (length 1 m, cross-section 0.2 m, 6 tets per cell,
 * E = 1e6, nu = 0.45, clamped at x = 0, gravity), one implicit step of 1/60 s solved by each
 * method with tolerance 0 and N iterations (default 2000).  From the per-iteration force
 * residual max|g| (the same measure for every method) and wall clock, it reports iterations
 * and milliseconds to reach 1e-3 and 1e-5 of the initial force, and the ratio SIPD / VBD in
 * time measured in the same run ("—": not reached; float32 on the GPU may floor above 1e-5).
 * --gpu-only: no CPU columns (the device check, tools/gpu-check.sh, runs no CPU reference).
 * SIPD_TEST_GPU_SELFTEST=1 (or SIPD_TTT_SELFTEST=1): the CPU backend stands in for the GPU (checks
 * this tool, not CUDA).
 * Markdown on stdout; exits 1 when no CUDA device is usable.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cuda.h"
#include "driver.h"
#include "meshgen.h"
#include "model.h"
#include "util.h"

#include "../bench_model.h"

typedef struct {
    const char *label;
    sipd_method method;
    sipd_sweep sweep;
    int chebyshev;
    sipd_line_search ls;
} method_cfg;

static const method_cfg methods[] = {
    {"sipd jacobi+chebyshev", SIPD_METHOD_SIPD, SIPD_SWEEP_JACOBI, 1, SIPD_LS_AUTO},
    {"sipd jacobi", SIPD_METHOD_SIPD, SIPD_SWEEP_JACOBI, 0, SIPD_LS_ALWAYS},
    {"sipd gauss-seidel", SIPD_METHOD_SIPD, SIPD_SWEEP_GS, 0, SIPD_LS_ALWAYS},
    {"vbd", SIPD_METHOD_VBD, SIPD_SWEEP_GS, 0, SIPD_LS_ALWAYS},
    {"block-jacobi", SIPD_METHOD_BLOCK_JACOBI, SIPD_SWEEP_JACOBI, 0, SIPD_LS_ALWAYS},
    {"diag-jacobi+chebyshev", SIPD_METHOD_DIAG_JACOBI, SIPD_SWEEP_JACOBI, 1, SIPD_LS_AUTO},
};
#define NMETH ((int)(sizeof methods / sizeof methods[0]))

/* One step; fills the iteration and time to reach each relative force level (−1: never). */
static int run(sipd_scene *sc, const sipd_model *m, const sipd_backend_ops *ops, const method_cfg *c, int it_out[2],
               double ms_out[2])
{
    static const double levels[2] = {1e-3, 1e-5};
    sipd_sim s;
    sipd_backend_params bp;
    sipd_solve_result r;
    int i, k;
    sc->method = c->method;
    sc->sweep = c->sweep;
    sc->chebyshev = c->chebyshev;
    sc->line_search = c->ls;
    sim_backend_params(sc, 0, &bp);
    if (sim_init(&s, sc, m, ops, &bp) != SIPD_OK)
        return 1;
    if (sim_step(&s, sc->dt, &r) != SIPD_OK) {
        sim_free(&s);
        return 1;
    }
    for (k = 0; k < 2; k++) {
        it_out[k] = -1;
        ms_out[k] = -1;
        for (i = 0; i < s.nhist; i++)
            if (s.hforce[i] <= levels[k] * s.hforce[0]) {
                it_out[k] = i + 1;
                ms_out[k] = 1e3 * s.hwall[i];
                break;
            }
    }
    sim_free(&s);
    return 0;
}

static void cell(char *buf, size_t n, int it, double ms)
{
    if (it < 0)
        snprintf(buf, n, "—");
    else
        snprintf(buf, n, "%d / %.1f", it, ms);
}

int main(int argc, char **argv)
{
    const sipd_backend_ops *gpu_ops = &sipd_backend_cuda;
    int dims[16][3], nd = 0, iters = 2000, i, d, cpu = 1;
    const char *st;
    sipd_quiet = 1;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpu-only"))
            cpu = 0;
        else if (i + 2 < argc && nd < 16) {
            dims[nd][0] = atoi(argv[i]);
            dims[nd][1] = atoi(argv[i + 1]);
            dims[nd][2] = atoi(argv[i + 2]);
            nd++;
            i += 2;
        } else {
            fprintf(stderr, "usage: sipd-ttt-gpu [--iterations N] [--gpu-only] [NX NY NZ ...]\n");
            return 2;
        }
    }
    if (!nd) {
        int def[2][3] = {{20, 4, 4}, {40, 8, 8}};
        memcpy(dims, def, sizeof def);
        nd = 2;
    }
    /* SIPD_TEST_GPU_SELFTEST=1 or SIPD_TTT_SELFTEST=1: the CPU backend stands in for the GPU (checks
       this tool, not CUDA) */
    if (((st = getenv("SIPD_TEST_GPU_SELFTEST")) && atoi(st)) || getenv("SIPD_TTT_SELFTEST")) {
        gpu_ops = &sipd_backend_cpu;
        printf("SELF-TEST: the CPU backend (float64) stands in for the GPU in the GPU columns\n\n");
    }
    else if (sipd_cuda_device_count() <= 0) {
        char why[256];
        sipd_cuda_describe(why, sizeof why);
        fprintf(stderr, "sipd-ttt-gpu: no usable CUDA device: %s\n", why);
        return 1;
    }
    printf("# Time to tolerance per method (one step, force residual max|g| / max|g0|)\n\n");
    printf("Cells: iterations / ms to reach 1e-3 and 1e-5; ratio = SIPD Jacobi+Chebyshev time / VBD time.\n");
    for (d = 0; d < nd; d++) {
        sipd_scene sc;
        sipd_scene_material mat;
        sipd_scene_body body;
        sipd_model m;
        int b;
        if (bench_model_cantilever(dims[d][0], dims[d][1], dims[d][2], 1.0, 0.2, 0.2, &sc, &mat, &body, &m) != SIPD_OK)
            return 1;
        sc.iterations = iters;
        printf("\n## beam %dx%dx%d cells: %d vertices, %d tets, %d iterations\n\n", dims[d][0], dims[d][1],
               dims[d][2], m.nv, m.nt, iters);
        printf("| method | GPU 1e-3 | GPU 1e-5 | CPU 1e-3 | CPU 1e-5 |\n|---|---:|---:|---:|---:|\n");
        {
            double gms[NMETH][2], cms[NMETH][2];
            for (i = 0; i < NMETH; i++) {
                int git[2], cit[2];
                char c[4][64];
                cit[0] = cit[1] = -1;
                cms[i][0] = cms[i][1] = -1;
                if (run(&sc, &m, gpu_ops, &methods[i], git, gms[i]) ||
                    (cpu && run(&sc, &m, &sipd_backend_cpu, &methods[i], cit, cms[i]))) {
                    fprintf(stderr, "sipd-ttt-gpu: %s failed\n", methods[i].label);
                    model_free(&m);
                    return 1;
                }
                cell(c[0], 64, git[0], gms[i][0]);
                cell(c[1], 64, git[1], gms[i][1]);
                cell(c[2], 64, cit[0], cms[i][0]);
                cell(c[3], 64, cit[1], cms[i][1]);
                if (!cpu) {
                    snprintf(c[2], 64, "not run");
                    snprintf(c[3], 64, "not run");
                }
                printf("| %s | %s | %s | %s | %s |\n", methods[i].label, c[0], c[1], c[2], c[3]);
                fflush(stdout);
            }
            for (b = 0; b < 2; b++) {   /* methods[0] = SIPD Jacobi+Chebyshev, methods[3] = VBD */
                const char *lvl = b == 0 ? "1e-3" : "1e-5";
                if (gms[0][b] > 0 && gms[3][b] > 0)
                    printf("\nGPU SIPD/VBD time to %s: %.3f", lvl, gms[0][b] / gms[3][b]);
                if (cms[0][b] > 0 && cms[3][b] > 0)
                    printf("\nCPU SIPD/VBD time to %s: %.3f", lvl, cms[0][b] / cms[3][b]);
            }
            printf("\n");
        }
        model_free(&m);
    }
    return 0;
}
