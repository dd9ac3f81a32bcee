/* sipd-bench-gpu — CUDA backend throughput (the GPU twin of tools/sipd-bench.c).
 *
 *   sipd-bench-gpu [--seconds S] [--scenes DIR | --no-scenes] [--frames N] [--no-cpu]
 *                  [--profile FILE] [TETS ...]
 *                  (default sizes: 100000 1000000 8000000; default scenes: ./scenes)
 *
 * Part 1, iteration throughput on generated box meshes (n³ cells × 6 tets, n chosen closest to
 * TETS; the material and pinning of tools/sipd-bench.c; one time step with a fixed number of
 * iterations, tolerance 0, timed on the host around sim_step, so every launch, reduction and
 * read-back the driver pays is included):
 *   jacobi     the direction + update, no energy evaluation (line_search never): on these
 *              boxes (stable neo-Hookean, no contact) the fused direction, one kernel
 *              (k_vertex_fused, docs/gpu.md "The fused Jacobi direction")
 *   jacobi (gather)  the same with SIPD_CUDA_GATHER=1: element pass, then the vertex pass's gather
 *   jacobi+E   the same plus one energy evaluation per iteration (line_search always)
 *   gs         Gauss–Seidel colour sweep (one launch per colour) with the per-vertex line search
 *   jacobi+contact  jacobi with self-contact on (d̂ = a quarter cell, at rest: few pairs, but the
 *              broad phase once per step and the narrow phase every 4 iterations run in full)
 * reported as million tet-iterations per second, ns per tet-iteration and ms per iteration.
 * --profile FILE: where the time goes, one row per size and variant into FILE (Markdown):
 * a further step of as many iterations with the backend's phase timing on (backend.h
 * sipd_profile: CUDA events around each launch and copy), each phase's ms per iteration, their
 * sum against the step's own ms per iteration, and the launches and blocking host syncs per
 * iteration (counted, from a 15- and a 5-iteration step: the difference per iteration, so the
 * per-step work cancels; timing off).
 * Part 2, ms per frame of each example scene on the GPU and on the CPU backend in the same run
 * (first N frames, default 10, or as many as finish in 30 s; no output file), with the ratio
 * and the most active contacts of any solve (contact scenes with a Jacobi sweep run on the GPU
 * with pairs detected on the device; the CPU reference is skipped above 300k tets, e.g. the
 * noodles_bench pile, and everywhere with --no-cpu).  Scenes the CUDA backend does not run
 * (method.h method_cpu_only: mixed-fem, newton with pairs; contact with a Gauss–Seidel sweep)
 * are listed as CPU only, not failures.
 * SIPD_TEST_GPU_SELFTEST=1 (or SIPD_TTT_SELFTEST=1): the CPU backend stands in for the GPU, to
 * check this tool (tools/gpu-check.sh --selftest), not CUDA.
 * Output: Markdown on stdout.  Exits 1 with a message when no CUDA device is usable, or when a
 * run failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_cuda.h"
#include "driver.h"
#include "meshgen.h"
#include "method.h"
#include "model.h"
#include "util.h"

#include "../bench_model.h"

static const sipd_backend_ops *gpu_ops = &sipd_backend_cuda;
static int standin = 0;   /* the CPU backend in the GPU's place */

/* the cells per side of the box closest to ntets_target tets */
static int box_cells(int ntets_target)
{
    int n = (int)floor(cbrt(ntets_target / 6.0) + 0.5);
    return n < 1 ? 1 : n;
}

static int build_box(int ntets_target, sipd_scene *sc, sipd_scene_material *mat, sipd_scene_body *body,
                     sipd_model *m, int *cells)
{
    int n = box_cells(ntets_target);
    *cells = n;
    return bench_model_cantilever(n, n, n, 1.0, 1.0, 1.0, sc, mat, body, m) != SIPD_OK;
}

/* One timed step of `iters` iterations; returns seconds (< 0 on failure).  profile: 0 none;
 * 1 timing on and *pr = the step's profile; 2 timing off, *pr = the step's counters. */
static double timed_step(sipd_scene *sc, const sipd_model *m, const sipd_backend_ops *ops, int iters, int *done,
                         int profile, sipd_profile *pr)
{
    sipd_sim s;
    sipd_backend_params bp;
    sipd_solve_result r;
    double t0, dt;
    sc->iterations = iters;
    sim_backend_params(sc, 0, &bp);
    bp.profile = profile == 1;
    if (sim_init(&s, sc, m, ops, &bp) != SIPD_OK)
        return -1;
    if (profile && (!s.ops->profile || s.ops->profile(s.b, pr, 1) != SIPD_OK)) {
        sim_free(&s);
        return -1;
    }
    t0 = sipd_now();
    if (sim_step(&s, sc->dt, &r) != SIPD_OK || (profile && s.ops->profile(s.b, pr, 0) != SIPD_OK)) {
        sim_free(&s);
        return -1;
    }
    dt = sipd_now() - t0;
    *done = r.iterations;
    sim_free(&s);
    return dt;
}

/* The --profile row of one variant: a profiled step of `iters` iterations, then the counts per
 * iteration from a 15- and a 5-iteration step (timing off). */
static int profile_row(FILE *pf, sipd_scene *sc, const sipd_model *m, const char *name, int iters, double ms_iter)
{
    sipd_profile p, c5, c15;
    int done = 0, d5 = 0, d15 = 0, k;
    double dt, sum = 0;
    char lbuf[32], sbuf[32];
    dt = timed_step(sc, m, gpu_ops, iters, &done, 1, &p);
    if (dt < 0 || timed_step(sc, m, gpu_ops, 5, &d5, 2, &c5) < 0 || timed_step(sc, m, gpu_ops, 15, &d15, 2, &c15) < 0)
        return 1;
    if (done < 1)
        done = 1;
    fprintf(pf, "| %d | %s | %d | %.4f | %.4f |", m->nt, name, done, dt * 1e3 / done, ms_iter);
    for (k = 0; k < SIPD_NPHASE; k++) {
        fprintf(pf, " %.4f |", p.ms[k] / done);
        sum += p.ms[k];
    }
    if (c15.launches[0] < 0 || d15 - d5 != 10) {   /* no device counters (CPU), or a step ended early */
        snprintf(lbuf, sizeof lbuf, "–");
        snprintf(sbuf, sizeof sbuf, "–");
    } else {
        long dl = sipd_profile_total(c15.launches) - sipd_profile_total(c5.launches);
        long ds = sipd_profile_total(c15.syncs) - sipd_profile_total(c5.syncs);
        snprintf(lbuf, sizeof lbuf, "%.2f", dl / 10.0);
        snprintf(sbuf, sizeof sbuf, "%.2f", ds / 10.0);
    }
    fprintf(pf, " %.4f | %s | %s |\n", sum / done, lbuf, sbuf);
    fflush(pf);
    return 0;
}

static int bench_size(int target, double seconds, FILE *pf)
{
    static const char *names[5] = {"jacobi", "jacobi (gather)", "jacobi+E", "gs", "jacobi+contact"};
    static const int sweeps[5] = {SIPD_SWEEP_JACOBI, SIPD_SWEEP_JACOBI, SIPD_SWEEP_JACOBI, SIPD_SWEEP_GS,
                                  SIPD_SWEEP_JACOBI};
    static const int lss[5] = {SIPD_LS_NEVER, SIPD_LS_NEVER, SIPD_LS_ALWAYS, SIPD_LS_ALWAYS, SIPD_LS_NEVER};
    sipd_scene sc;
    sipd_scene_material mat;
    sipd_scene_body body;
    sipd_model m;
    int k, cells;
    if (build_box(target, &sc, &mat, &body, &m, &cells)) {
        sipd_error("sipd-bench-gpu: cannot build a %d-tet box", target);
        return 1;
    }
    for (k = 0; k < 5; k++) {
        int done = 0, iters;
        double dt;
        sc.sweep = sweeps[k];
        sc.line_search = lss[k];
        if (k == 1)   /* read when the backend is created: every step below creates one */
            setenv("SIPD_CUDA_GATHER", "1", 1);
        else
            unsetenv("SIPD_CUDA_GATHER");
        if (k == 4) {   /* self-contact at rest: detection runs, few pairs */
            sc.contact = 1;
            sc.self_contact = 1;
            sc.dhat = 0.25 / cells;
            sc.contact_stiffness = mat.youngs / cells;
            sc.detect_every = 4;
        }
        /* warm-up + calibration: 5 iterations (the first launch of each kernel is excluded) */
        if (timed_step(&sc, &m, gpu_ops, 5, &done, 0, NULL) < 0 ||
            (dt = timed_step(&sc, &m, gpu_ops, 5, &done, 0, NULL)) < 0) {
            sipd_error("sipd-bench-gpu: %d tets, %s: the GPU run failed", m.nt, names[k]);
            model_free(&m);
            return 1;
        }
        iters = (int)(seconds / (dt / (done > 0 ? done : 1)));
        if (iters < 5)
            iters = 5;
        if (iters > 200000)
            iters = 200000;
        dt = timed_step(&sc, &m, gpu_ops, iters, &done, 0, NULL);
        if (dt < 0) {
            sipd_error("sipd-bench-gpu: %d tets, %s: the GPU run failed", m.nt, names[k]);
            model_free(&m);
            return 1;
        }
        printf("| %d | %d | %s | %d | %.1f | %.2f | %.3f |\n", m.nt, m.ncolors, names[k], done,
               (double)m.nt * done / dt / 1e6, dt * 1e9 / ((double)m.nt * done), dt * 1e3 / done);
        fflush(stdout);
        if (pf && profile_row(pf, &sc, &m, names[k], iters, dt * 1e3 / (done > 0 ? done : 1))) {
            sipd_error("sipd-bench-gpu: %d tets, %s: the profiled run failed", m.nt, names[k]);
            model_free(&m);
            return 1;
        }
    }
    model_free(&m);
    return 0;
}

/* Bytes per tet-iteration of plain Jacobi in float32 on a box of n³ cells (docs/gpu.md "The fused
 * Jacobi direction"; the CPU's model: tools/sipd-bench.c bytes_model): every array read or written
 * once per pass, caches ignored.  Per tet: 4 vertex indices, a material index, Bm and V (60 B);
 * per incidence (4 per tet) its element, group and corner (6 B); per vertex the vertex pass's 22
 * floats (y, y_prev, ỹ, y₀, g₀, g read and written, dy, the mass), the fixed flag and inc_off, and
 * apply's 18 floats.  The gather adds the element pass's gradients and K⁺ (18 floats per tet,
 * written) and reads them back per incidence with the incidence weight (10 floats). */
static void bytes_model(int n)
{
    const double R = 4, nt = 6.0 * n * n * n, nv = (n + 1.0) * (n + 1.0) * (n + 1.0), rho = nv / nt;
    const double tet = 20 + 10 * R, inc = 4 * 6.0, vert = rho * (22 * R + 1 + 4), ap = rho * 18 * R;
    printf("  %.0f tets: fused %.0f + %.0f + %.0f = %.0f B (tets + incidences and vertices + apply); gather %.0f + %.0f "
           "+ %.0f = %.0f B (element + vertex + apply pass)\n",
           nt, tet, inc + vert, ap, tet + inc + vert + ap, tet + 18 * R, vert + 4 * (6 + 10 * R), ap,
           tet + 18 * R + vert + 4 * (6 + 10 * R) + ap);
}

#define SCENE_SECONDS 30.0   /* per scene and backend: stop after the frame that passes this */

/* ms per frame of one scene on a backend (first `*frames` frames, no output; fewer when they
 * take longer than SCENE_SECONDS: *frames is then the number done); the most active contacts
 * of any solve in *contacts. */
static double scene_ms(const sipd_scene *sc, const sipd_model *m, const sipd_backend_ops *ops, int *frames,
                       double *iters_per_step, int *contacts)
{
    sipd_sim s;
    sipd_backend_params bp;
    double t0, h = sc->dt / sc->substeps;
    long iters = 0;
    int f, k;
    *contacts = 0;
    sim_backend_params(sc, 0, &bp);
    if (sim_init(&s, sc, m, ops, &bp) != SIPD_OK)
        return -1;
    t0 = sipd_now();
    for (f = 0; f < *frames; f++) {
        for (k = 0; k < sc->substeps; k++) {
            sipd_solve_result r;
            if (sim_step(&s, h, &r) != SIPD_OK) {
                sim_free(&s);
                return -1;
            }
            iters += r.iterations;
            if (r.contacts > *contacts)
                *contacts = r.contacts;
        }
        if (sipd_now() - t0 > SCENE_SECONDS) {
            *frames = f + 1;
            break;
        }
    }
    t0 = sipd_now() - t0;
    sim_free(&s);
    *iters_per_step = (double)iters / ((double)*frames * sc->substeps);
    return t0 * 1e3 / *frames;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int bench_scenes(const char *dir, int max_frames, int cpu_columns)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char *names[256];
    int n = 0, i, rc = 0;
    if (!d) {
        sipd_error("sipd-bench-gpu: cannot open scene directory %s", dir);
        return 1;
    }
    while ((de = readdir(d)) && n < 256) {
        size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".cfg"))
            names[n++] = sipd_path_join(dir, de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    printf("\n| scene | vertices | tets | method / sweep | frames GPU / CPU | GPU ms/frame | GPU iters/step | "
           "GPU max contacts | CPU ms/frame | CPU iters/step | CPU/GPU |\n");
    printf("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (i = 0; i < n; i++) {
        sipd_scene sc;
        sipd_model m;
        double g, c = 0, gi = 0, ci = 0;
        int frames, fg, fc, ng = 0, nc = 0;
        char why[160];
        if (!names[i] || scene_load(names[i], &sc) != SIPD_OK) {
            rc = 1;
            continue;
        }
        if (model_build(&sc, &m) != SIPD_OK) {
            scene_free(&sc);
            rc = 1;
            continue;
        }
        frames = sc.frames < max_frames ? sc.frames : max_frames;
        if (frames < 1)
            frames = 1;
        if (method_cpu_only(&sc, why, sizeof why) || (sc.contact && sim_sweep(&sc) == SIPD_SWEEP_GS)) {
            /* not a GPU failure: the CUDA backend does not run this scene (method.h, backend_cuda.cu) */
            printf("| %s | %d | %d | %s / %s (CPU only: %s) | - | - | - | - | - | - | - |\n", names[i], m.nv, m.nt,
                   scene_method_name(sc.method), scene_sweep_name(sim_sweep(&sc)),
                   sc.contact && sim_sweep(&sc) == SIPD_SWEEP_GS ? "contact with a Gauss-Seidel sweep" : why);
        } else {
            fg = fc = frames;
            g = scene_ms(&sc, &m, gpu_ops, &fg, &gi, &ng);
            if (cpu_columns && m.nt <= 300000)   /* the CPU reference only where it takes seconds */
                c = scene_ms(&sc, &m, &sipd_backend_cpu, &fc, &ci, &nc);
            else
                fc = 0;
            printf("| %s | %d | %d | %s / %s | %d / %d | %.2f | %.1f | %d | %.2f | %.1f | %.2f |\n", names[i], m.nv,
                   m.nt, scene_method_name(sc.method), scene_sweep_name(sim_sweep(&sc)), fg, fc, g, gi, ng, c, ci,
                   g > 0 && c > 0 ? c / g : 0.0);
            if (g < 0 || c < 0) {
                sipd_error("sipd-bench-gpu: %s: the %s run failed", names[i], g < 0 ? "GPU" : "CPU");
                rc = 1;
            }
        }
        fflush(stdout);
        model_free(&m);
        scene_free(&sc);
    }
    for (i = 0; i < n; i++) free(names[i]);
    return rc;
}

int main(int argc, char **argv)
{
    int sizes[16], nsizes = 0, i, rc = 0, frames = 10, cpu_columns = 1;
    double seconds = 1;
    const char *scenes = "scenes", *profile = NULL, *st;
    char desc[256];
    FILE *pf = NULL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--scenes") && i + 1 < argc)
            scenes = argv[++i];
        else if (!strcmp(argv[i], "--no-scenes"))
            scenes = NULL;
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-cpu"))
            cpu_columns = 0;
        else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
            profile = argv[++i];
        else if (nsizes < 16 && atoi(argv[i]) > 0)
            sizes[nsizes++] = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: sipd-bench-gpu [--seconds S] [--scenes DIR | --no-scenes] [--frames N] [--no-cpu] "
                            "[--profile FILE] [TETS ...]\n");
            return 2;
        }
    }
    if (!nsizes) {
        sizes[0] = 100000;
        sizes[1] = 1000000;
        sizes[2] = 8000000;
        nsizes = 3;
    }
    if (((st = getenv("SIPD_TEST_GPU_SELFTEST")) && atoi(st)) || ((st = getenv("SIPD_TTT_SELFTEST")) && atoi(st))) {
        standin = 1;
        gpu_ops = &sipd_backend_cpu;
        snprintf(desc, sizeof desc, "none: SELF-TEST, the CPU backend (float64) stands in for the GPU");
    } else if (sipd_cuda_device_count() == 0) {
        sipd_cuda_describe(desc, sizeof desc);
        fprintf(stderr, "sipd-bench-gpu: %s; nothing to measure\n", desc);
        return 1;
    } else
        sipd_cuda_describe(desc, sizeof desc);
    if (profile && !(pf = fopen(profile, "w"))) {
        sipd_error("sipd-bench-gpu: cannot write %s", profile);
        return 1;
    }
    sipd_quiet = 1;
    printf("device: %s; precision %s, projection expanded, nu = 0.45, box pinned at x = 0\n\n", desc,
           standin ? "float64" : "float32");
    printf("| tets | colours | sweep | iterations | M tet-iter/s | ns per tet-iter | ms per iteration |\n");
    printf("|---:|---:|---|---:|---:|---:|---:|\n");
    fflush(stdout);
    if (pf) {
        int k;
        fprintf(pf, "| tets | sweep | iterations | ms/iter profiled | ms/iter plain |");
        for (k = 0; k < SIPD_NPHASE; k++) fprintf(pf, " %s |", sipd_phase_name(k));
        fprintf(pf, " sum of phases | launches/iter | syncs/iter |\n|---:|---|---:|---:|---:|");
        for (k = 0; k < SIPD_NPHASE; k++) fprintf(pf, "---:|");
        fprintf(pf, "---:|---:|---:|\n");
        fflush(pf);
    }
    for (i = 0; i < nsizes; i++) rc |= bench_size(sizes[i], seconds, pf);
    printf("\nbytes per tet-iteration, plain Jacobi, float32 (a model: bytes_model, docs/gpu.md)\n");
    for (i = 0; i < nsizes; i++) bytes_model(box_cells(sizes[i]));
    if (pf)
        fclose(pf);
    if (scenes)
        rc |= bench_scenes(scenes, frames, cpu_columns);
#ifdef _OPENMP
    if (cpu_columns || standin)
        printf("\nCPU columns%s: %d OpenMP threads, float64\n", standin ? " (and the stand-in)" : "",
               omp_get_max_threads());
#endif
    return rc;
}
