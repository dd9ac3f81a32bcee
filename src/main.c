/* main.c — the sipd-run command line: parse, load, run, report.  Only main() exits. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "checkpoint.h"
#include "driver.h"
#include "fields.h"
#include "h5out.h"
#include "mesh.h"
#include "method.h"
#include "model.h"
#include "physics/common.h"
#include "scene.h"
#include "util.h"
#ifdef SIPD_HAVE_CUDA
#include "backend_cuda.h"
#endif

/* 1 until the run first writes a file (the output, or removes a stale checkpoint): a signal then
 * has nothing to save, and the handler ends the process at once, wherever the loading is (a mesh
 * parse, the model build, a large Newton pattern or a CUDA context in sim_init). */
static volatile sig_atomic_t loading = 1;

/* SIGINT/SIGTERM/SIGUSR1.  While loading: say so and _exit(3) (async-signal-safe).  Afterwards:
 * set sipd_stop_flag (util.h), which the driver and every long loop under it poll: the run
 * checkpoints, closes the output and exits 3 within a fraction of a second. */
static void on_signal(int sig)
{
    static const char msg[] = "sipd-run: stopped by a signal while loading the scene and meshes; nothing was written\n";
    (void)sig;
    if (loading) {
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        _exit(SIPD_ESIGNAL);
    }
    sipd_stop_flag = 1;
}

/* The first write of the run comes next: from here on a signal stops the run cleanly. */
static void end_loading(void)
{
    loading = 0;
}

static void usage(FILE *f)
{
    fputs("usage: sipd-run SCENE [options]\n"
          "\n"
          "Simulate the libconfig scene SCENE with Semi-Implicit Pairwise Descent and write\n"
          "every frame and the solver's convergence log to HDF5 (+ XDMF for ParaView).\n"
          "\n"
          "options:\n"
          "  --device auto|cuda|cpu  compute device (default: the scene's `device`, else auto)\n"
          "  --frames N              simulate N frames (overrides time.frames; at most 1e8)\n"
          "  --output FILE           output file (overrides output.file; relative to the cwd)\n"
          "  --overwrite             allow replacing an existing output file that is not a\n"
          "                          sipd-run output (an input file is never overwritten)\n"
          "  --threads N             CPU threads (default: OpenMP's default)\n"
          "  --dry-run               validate the scene and meshes, print the resolved\n"
          "                          parameters, simulate nothing\n"
          "  --quiet                 no progress on stderr (errors are still printed)\n"
          "  --resume                continue from OUTPUT.ckpt (written every\n"
          "                          output.checkpoint_every frames or checkpoint_seconds, on\n"
          "                          SIGINT/SIGTERM/SIGUSR1, and at the end); starts from\n"
          "                          frame 0 when there is none\n"
          "  --strict                exit 4 when any solve did not converge (also the scene\n"
          "                          key solver.strict), for regression runs\n"
          "  --help                  this text\n"
          "  --version               program version and git commit\n"
          "\n"
          "exit status: 0 success, 1 runtime failure, 2 bad input (scene, mesh, options),\n"
          "             3 stopped by SIGINT/SIGTERM/SIGUSR1 within a second, after writing the\n"
          "               checkpoint (of the last completed time step; a step the signal\n"
          "               interrupted is done again by --resume); the output holds every\n"
          "               completed frame; a signal while loading stops at once, before\n"
          "               anything is written\n"
          "             4 completed, but some solve did not converge and --strict is on\n"
          "             (a diverged state, non-finite or beyond float32, is a runtime failure: 1)\n",
          f);
}

static char *command_line(int argc, char **argv)
{
    size_t n = 1;
    int i;
    char *s;
    for (i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
    s = sipd_malloc(n);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (i = 0; i < argc; i++) {
        strcat(s, argv[i]);
        if (i + 1 < argc)
            strcat(s, " ");
    }
    return s;
}

static int parse_int(const char *opt, const char *s, int lo, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > SIPD_MAX_FRAMES) {
        sipd_error("%s: expected an integer in [%d, %d], got '%s'", opt, lo, SIPD_MAX_FRAMES, s);
        return SIPD_EINPUT;
    }
    *out = (int)v;
    return SIPD_OK;
}

/* Same file (device and inode), when both exist. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The files a run writes (output, its XDMF sidecar and checkpoint, and their temporaries) must
 * not be any file it reads (the scene, its includes, the meshes): SIPD_EINPUT naming both. */
static int check_output_is_not_input(const sipd_scene *sc)
{
    static const char *const mesh_ext[] = {".node", ".ele", ".face"};
    const char *out = sc->output_file;
    char *xdmf = h5out_xdmf_path(out);
    size_t n = strlen(out);
    char *w[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int rc = SIPD_OK, i, j, k;
    if (!xdmf)
        return SIPD_EFAIL;
    w[0] = strdup(out);
    w[1] = xdmf;
    if ((w[2] = malloc(n + 10)))
        sprintf(w[2], "%s.ckpt", out);
    if ((w[3] = malloc(n + 10)))
        sprintf(w[3], "%s.ckpt.tmp", out);
    if ((w[4] = malloc(strlen(xdmf) + 10)))
        sprintf(w[4], "%s.tmp", xdmf);
    w[5] = h5out_marker_path(out);   /* h5out.c: the write-batch marker and a resume's rebuild */
    if ((w[6] = malloc(n + 10)))
        sprintf(w[6], "%s.rebuild", out);
    for (i = 0; i < 7 && rc == SIPD_OK; i++) {
        if (!w[i]) {
            rc = SIPD_EFAIL;
            break;
        }
        if (i == 1 && !sc->xdmf)
            continue;
        for (j = 0; j < sc->ninputs && rc == SIPD_OK; j++)
            if (same_file(w[i], sc->inputs[j])) {
                sipd_error("output: %s would overwrite the scene file %s: choose another output.file or --output",
                           w[i], sc->inputs[j]);
                rc = SIPD_EINPUT;
            }
        for (j = 0; j < sc->nbodies && rc == SIPD_OK; j++) {
            const char *m = sc->bodies[j].mesh;
            size_t lm;
            if (!m)   /* a generated body (bodies[].generate) reads no file */
                continue;
            lm = strlen(m);
            int tetgen = !mesh_single_file(m);
            for (k = 0; k < (tetgen ? 3 : 1) && rc == SIPD_OK; k++) {
                char *p = malloc(lm + 8);
                if (!p) {
                    rc = SIPD_EFAIL;
                    break;
                }
                sprintf(p, "%s%s", m, tetgen ? mesh_ext[k] : "");
                if (same_file(w[i], p)) {
                    sipd_error("output: %s would overwrite the mesh file %s (bodies[%d]): choose another "
                               "output.file or --output", w[i], p, j);
                    rc = SIPD_EINPUT;
                }
                free(p);
            }
        }
    }
    for (i = 0; i < 7; i++)
        free(w[i]);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'}, {"frames", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'}, {"threads", required_argument, 0, 't'},
        {"dry-run", no_argument, 0, 'n'},      {"quiet", no_argument, 0, 'q'},
        {"resume", no_argument, 0, 'r'},       {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {"overwrite", no_argument, 0, 'w'},
        {"strict", no_argument, 0, 'S'},       {0, 0, 0, 0}};
    const char *device_opt = NULL, *output_opt = NULL;
    int frames_opt = -1, threads = 0, dry_run = 0, resume = 0, c, rc, frames_done = 0;
    int have_ckpt = 0, start_frame = 0, start_substep = 0, overwrite = 0, strict = 0;
    char *ckpt_path = NULL;
    uint64_t scene_hash;
    sipd_checkpoint ck;
    sipd_scene sc;
    sipd_model model;
    sipd_sim sim;
    sipd_backend_params bp;
    sipd_fields fields;
    sipd_h5out *out = NULL;
    sipd_device device;
    char *cmdline = NULL, *resolved = NULL;
    size_t resolved_len = 0;
    double t0;

    opterr = 0;
    while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device_opt = optarg; break;
        case 'f': if (parse_int("--frames", optarg, 0, &frames_opt)) return SIPD_EINPUT; break;
        case 'o': output_opt = optarg; break;
        case 'S': strict = 1; break;
        case 't': if (parse_int("--threads", optarg, 1, &threads)) return SIPD_EINPUT; break;
        case 'n': dry_run = 1; break;
        case 'q': sipd_quiet = 1; break;
        case 'r': resume = 1; break;
        case 'w': overwrite = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("sipd-run %s (git %s, %s on the CPU)\n", SIPD_VERSION, SIPD_GIT, SIPD_REAL_NAME); return 0;
        default:
            if (optopt)
                sipd_error("option -%c: unknown or missing its argument (see --help)", optopt);
            else
                sipd_error("unknown option '%s' or missing argument (see --help)", argv[optind - 1]);
            return SIPD_EINPUT;
        }
    }
    if (optind != argc - 1) {
        sipd_error(optind >= argc ? "no scene file given (see --help)" : "expected one scene file, got %d arguments (see --help)",
                   argc - optind);
        return SIPD_EINPUT;
    }
    if (output_opt && !output_opt[0]) {
        sipd_error("--output: empty file name");
        return SIPD_EINPUT;
    }
    {   /* SIGINT/SIGTERM/SIGUSR1 (on_signal): checkpoint, close the output, exit 3; while
         * loading, exit 3 at once */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGUSR1, &sa, NULL);
    }
    rc = scene_load(argv[optind], &sc);
    if (rc != SIPD_OK)
        return rc;
    if (frames_opt >= 0)
        sc.frames = frames_opt;
    if (output_opt) {
        free(sc.output_file);
        sc.output_file = strdup(output_opt);
        if (!sc.output_file) {
            scene_free(&sc);
            return SIPD_EFAIL;
        }
    }
    device = sc.device;
    if (device_opt) {
        if (!strcmp(device_opt, "auto")) device = SIPD_DEVICE_AUTO;
        else if (!strcmp(device_opt, "cuda")) device = SIPD_DEVICE_CUDA;
        else if (!strcmp(device_opt, "cpu")) device = SIPD_DEVICE_CPU;
        else {
            sipd_error("--device: expected auto, cuda or cpu, got '%s'", device_opt);
            scene_free(&sc);
            return SIPD_EINPUT;
        }
    }
    /* Device selection (SIPD_DEVICE_CUDA / AUTO / CPU): cuda needs a CUDA device (else exit 1);
     * auto takes the CUDA backend when a device exists, else the CPU, and says which;
     * what the method table keeps on the CPU backend (method.h, method_cpu_only: mixed-fem, newton
     * with contact pairs, contact with a Gauss–Seidel sweep) runs there (with device cuda: exit 2,
     * a bad combination); auto also keeps newton there (method_auto_cpu: the float64 reference). */
    const sipd_backend_ops *ops = &sipd_backend_cpu;
    const char *precision = SIPD_REAL_NAME, *cpu_why = "";
    char device_attr[320] = "cpu", cuda_desc[256] = "";
#ifdef SIPD_HAVE_CUDA
    char auto_why[300] = "";
    if (device != SIPD_DEVICE_CPU) {
        char cpu_only[128];
        int ndev = sipd_cuda_device_count(), on_cpu = method_cpu_only(&sc, cpu_only, sizeof cpu_only);
        if (device == SIPD_DEVICE_CUDA && on_cpu) {
            sipd_error("device cuda: %s runs on the CPU backend only so far; use --device cpu or auto", cpu_only);
            scene_free(&sc);
            return SIPD_EINPUT;
        }
        if (ndev == 0) {
            sipd_cuda_describe(cuda_desc, sizeof cuda_desc);
            if (device == SIPD_DEVICE_CUDA) {
                sipd_error("device cuda: no CUDA backend available: %s; use --device cpu or auto", cuda_desc);
                scene_free(&sc);
                return SIPD_EFAIL;
            }
            snprintf(auto_why, sizeof auto_why, "; auto: %s", cuda_desc);
            cpu_why = auto_why;
        } else if (on_cpu) {
            snprintf(auto_why, sizeof auto_why, "; auto: %s runs on the CPU backend only", cpu_only);
            cpu_why = auto_why;
        } else if (device == SIPD_DEVICE_AUTO && method_auto_cpu(&sc, cpu_only, sizeof cpu_only)) {
            snprintf(auto_why, sizeof auto_why, "; auto: %s stays on the CPU", cpu_only);
            cpu_why = auto_why;
        } else {
            char name[256];
            sipd_cuda_describe(cuda_desc, sizeof cuda_desc);
            sipd_cuda_device_name(name, sizeof name);
            snprintf(device_attr, sizeof device_attr, "cuda: %s", name);
            ops = &sipd_backend_cuda;
            precision = "float32";
        }
    }
#else
    if (device == SIPD_DEVICE_CUDA) {
        sipd_error("--device cuda: this build has no CUDA backend (nvcc not found at configure time, "
                   "or a sanitizer build); "
                   "use --device cpu or auto");
        scene_free(&sc);
        return SIPD_EFAIL;
    }
    if (device == SIPD_DEVICE_AUTO)
        cpu_why = "; auto: no CUDA backend in this build";
#endif

    rc = model_build(&sc, &model);                               /* meshes → arrays */
    if (rc != SIPD_OK) {
        scene_free(&sc);
        return rc;
    }
    rc = check_output_is_not_input(&sc);                         /* never write over an input */
    if (rc == SIPD_OK && (dry_run || !resume))
        rc = h5out_check_target(sc.output_file, sc.xdmf, overwrite);
    if (rc != SIPD_OK) {
        model_free(&model);
        scene_free(&sc);
        return rc;
    }
    {
        FILE *ms = open_memstream(&resolved, &resolved_len);
        if (ms) {
            scene_print(ms, &sc);
            fclose(ms);
        }
    }
    if (dry_run) {
        fputs(resolved ? resolved : "", stdout);
        printf("# model: %d bodies, %d vertices, %d tets, %d surface triangles, %d colours, "
               "mass %.6g kg, bbox diagonal %.6g\n",
               model.nbodies, model.nv, model.nt, model.nf, model.ncolors, model.total_mass, model.bbox_diag);
        model_print_bodies(stdout, &sc, &model);                 /* per body: kind, counts, box, Dirichlet */
        free(resolved);
        model_free(&model);
        scene_free(&sc);
        return 0;
    }

    if (ops != &sipd_backend_cpu)
        sipd_info("device: cuda: %s (%s)%s", cuda_desc, precision, device == SIPD_DEVICE_AUTO ? "; auto: CUDA device found" : "");
    else
#ifdef _OPENMP
        sipd_info("device: cpu (%s, %d OpenMP threads)%s", SIPD_REAL_NAME, threads > 0 ? threads : omp_get_max_threads(),
                  cpu_why);
#else
        sipd_info("device: cpu (%s, 1 thread)%s", SIPD_REAL_NAME, cpu_why);
#endif
    sipd_info("%s: %d vertices, %d tets, %d frames x %d substeps, output %s", sc.path, model.nv, model.nt, sc.frames,
              sc.substeps, sc.output_file);

    sim_backend_params(&sc, threads, &bp);
    if (fields_init(&fields, &sc, &model) != SIPD_OK) {
        free(resolved);
        model_free(&model);
        scene_free(&sc);
        return SIPD_EFAIL;
    }
    /* Restart state: OUTPUT.ckpt. --resume continues from it; a fresh run removes a stale one. */
    ckpt_path = sipd_malloc(strlen(sc.output_file) + 6);
    if (!ckpt_path) {
        fields_free(&fields);
        free(resolved);
        model_free(&model);
        scene_free(&sc);
        return SIPD_EFAIL;
    }
    sprintf(ckpt_path, "%s.ckpt", sc.output_file);
    scene_hash = checkpoint_scene_hash(sc.text, model.nv, model.nt);
    memset(&ck, 0, sizeof ck);
    memset(&sim, 0, sizeof sim);   /* sim_free is safe on a zeroed sim */
    rc = SIPD_OK;
    if (resume && access(ckpt_path, F_OK) == 0) {
        rc = checkpoint_read(ckpt_path, &ck);
        if (rc == SIPD_OK && (ck.nv != model.nv || ck.scene_hash != scene_hash || ck.substep >= sc.substeps)) {
            sipd_error_at(ckpt_path, 0, "this checkpoint was written for another scene or mesh (the scene "
                          "file changed?); remove it or run without --resume to start again");
            rc = SIPD_EINPUT;
        }
        have_ckpt = rc == SIPD_OK;
        if (have_ckpt && ck.frame >= sc.frames) {
            /* the run may have been killed after its last checkpoint, before its exit_reason */
            end_loading();
            rc = h5out_open_append(&out, sc.output_file, model.nv, model.nt, sc.xdmf, ck.out_frames,
                                   ck.out_solves, ck.out_hist);
            if (rc == SIPD_OK && fields.n > 0)   /* the XDMF keeps its field attributes */
                rc = h5out_add_fields(out, fields.n, fields.spec);
            if (rc == SIPD_OK) {
                rc = h5out_set_attr(out, "exit_reason", "completed");
                if (h5out_close(out) != SIPD_OK && (rc == SIPD_OK || rc == SIPD_ESTRICT))
                    rc = SIPD_EFAIL;
                out = NULL;
            }
            if (rc == SIPD_OK)
                sipd_info("%s is at frame %d, the run asks for %d frames: nothing to do", ckpt_path, ck.frame,
                          sc.frames);
            checkpoint_free(&ck);
            fields_free(&fields);
            free(ckpt_path);
            free(resolved);
            model_free(&model);
            scene_free(&sc);
            return rc;
        }
    } else if (resume) {
        sipd_info("--resume: no checkpoint %s: starting from frame 0", ckpt_path);
    }
    if (rc == SIPD_OK)
        rc = sim_init(&sim, &sc, &model, ops, &bp);
    end_loading();   /* the first write follows: a stale checkpoint's removal, or the output */
    if (rc == SIPD_OK && !resume && access(ckpt_path, F_OK) == 0) {
        if (unlink(ckpt_path) == 0)
            sipd_info("removed the previous run's checkpoint %s (use --resume to continue a run)", ckpt_path);
    }
    if (rc == SIPD_OK && have_ckpt) {
        char note[160];
        rc = h5out_open_append(&out, sc.output_file, model.nv, model.nt, sc.xdmf, ck.out_frames, ck.out_solves,
                               ck.out_hist);
        if (rc == SIPD_OK && fields.n > 0)
            rc = h5out_add_fields(out, fields.n, fields.spec);
        if (rc == SIPD_OK)
            rc = sim.ops->upload(sim.b, ck.x, ck.v);
        if (rc == SIPD_OK && sim_restore_solver_state(&sim, ck.s, ck.ns) != SIPD_OK) {
            sipd_error_at(ckpt_path, 0, "this checkpoint holds %ld doubles of solver state, the method keeps "
                          "another amount (written by another method?); remove it to start again", ck.ns);
            rc = SIPD_EINPUT;
        }
        if (rc == SIPD_OK) {
            sim.t = ck.t;
            sim.lam_min = ck.lam_min;
            if (ck.x_extent > 0)   /* (a checkpoint before version 4: recomputed, as then) */
                sim.x_extent = ck.x_extent;
            sim.f_start = ck.f_start;
            start_frame = ck.frame;
            start_substep = ck.substep;
            if (ck.substep)
                snprintf(note, sizeof note, "frame %d, step %d of frame %d (t = %.17g s)", ck.frame, ck.substep,
                         ck.frame + 1, ck.t);
            else
                snprintf(note, sizeof note, "frame %d (t = %.17g s)", ck.frame, ck.t);
            h5out_set_attr(out, "resumed_from", note);
            h5out_set_attr_int(out, "resumed_from_frame", ck.frame);
            h5out_set_attr_int(out, "resumed_from_substep", ck.substep);
            h5out_set_attr_double(out, "resumed_from_time", ck.t);
            h5out_set_attr(out, "exit_reason", "running");   /* until the run ends */
            if (ck.substep)
                sipd_info("resuming from %s at frame %d, step %d of %d of frame %d", ckpt_path, ck.frame,
                          ck.substep, sc.substeps, ck.frame + 1);
            else
                sipd_info("resuming from %s at frame %d", ckpt_path, ck.frame);
        }
        if (rc != SIPD_OK && out) {
            h5out_close(out);
            out = NULL;
        }
    } else if (rc == SIPD_OK) {
        sipd_h5_meta meta;
        sipd_h5_mesh hm;
        char version[128];
        cmdline = command_line(argc, argv);
        snprintf(version, sizeof version, "sipd-run %s (git %s)", SIPD_VERSION, SIPD_GIT);
        meta.version = version;
        meta.scene_text = sc.text;
        meta.resolved_parameters = resolved;
        meta.command_line = cmdline;
        meta.device = device_attr;
        meta.precision = precision;
        meta.units = "SI: m, kg, s, Pa";
        hm.nv = model.nv;
        hm.nt = model.nt;
        hm.nf = model.nf;
        hm.rest = model.X;
        hm.tets = model.tets;
        hm.tris = model.tris;
        hm.body = model.body;
        {   /* the other kinds' connectivity: elastic triangles and edges (model.h groups) */
            int gt = model.group_of[SIPD_KIND_TRI], ge = model.group_of[SIPD_KIND_EDGE];
            hm.ntri = gt >= 0 ? model.groups[gt].ne : 0;
            hm.triangles = gt >= 0 ? model.groups[gt].v : NULL;
            hm.ned = ge >= 0 ? model.groups[ge].ne : 0;
            hm.edges = ge >= 0 ? model.groups[ge].v : NULL;
        }
        rc = h5out_create(&out, sc.output_file, &meta, &hm, sc.compression, sc.xdmf);
        if (rc == SIPD_OK && fields.n > 0)   /* output.fields: their datasets and XDMF attributes */
            rc = h5out_add_fields(out, fields.n, fields.spec);
        if (rc == SIPD_OK)   /* until the run ends: a killed run says so */
            rc = h5out_set_attr(out, "exit_reason", "running");
    }
    if (rc == SIPD_OK && out)
        h5out_set_history(out, sc.history_every);   /* output.history */
    if (rc == SIPD_OK) {
        sipd_run_opts ro;
        ro.frames = sc.frames;
        ro.start_frame = start_frame;
        ro.start_substep = start_substep;
        ro.out = out;
        ro.stop = &sipd_stop_flag;
        ro.checkpoint = ckpt_path;
        ro.checkpoint_every = sc.checkpoint_every;
        ro.checkpoint_seconds = sc.checkpoint_seconds;
        ro.scene_hash = scene_hash;
        ro.fields = fields.n > 0 ? &fields : NULL;
        t0 = sipd_now();
        rc = driver_run(&sim, &ro, &frames_done);
        {
            char buf[96];
            sipd_run_tally ta;
            long bad;
            double wall = sipd_now() - t0;
            snprintf(buf, sizeof buf, "%.3f", wall);
            h5out_set_attr(out, "wall_time_s", buf);
            driver_tally(&ta);
            /* the tallies as numbers too (the strings below are a contract; a script reads these) */
            h5out_set_attr_double(out, "wall_time_seconds", wall);
            h5out_set_attr_int(out, "solves_total", ta.solves);
            h5out_set_attr_int(out, "solves_converged", ta.by_status[SIPD_SOLVE_CONVERGED]);
            h5out_set_attr_int(out, "solves_at_cap", ta.by_status[SIPD_SOLVE_AT_CAP]);
            h5out_set_attr_int(out, "solves_stalled", ta.by_status[SIPD_SOLVE_STALLED]);
            h5out_set_attr_int(out, "solves_diverged", ta.by_status[SIPD_SOLVE_DIVERGED]);
            bad = ta.solves - ta.by_status[SIPD_SOLVE_CONVERGED];
            snprintf(buf, sizeof buf, "%ld of %ld", ta.by_status[SIPD_SOLVE_AT_CAP], ta.solves);
            h5out_set_attr(out, "solves_at_iteration_cap", buf);
            snprintf(buf, sizeof buf, "%ld of %ld", bad, ta.solves);
            h5out_set_attr(out, "solves_not_converged", buf);
            snprintf(buf, sizeof buf, "converged %ld, at-cap %ld, stalled %ld, diverged %ld",
                     ta.by_status[0], ta.by_status[1], ta.by_status[2], ta.by_status[3]);
            h5out_set_attr(out, "solves_by_status", buf);
            snprintf(buf, sizeof buf, "%.6g", bad > 0 ? ta.worst_residual : 0.0);
            h5out_set_attr(out, "worst_relative_residual", buf);
            h5out_set_attr_double(out, "worst_residual", bad > 0 ? ta.worst_residual : 0.0);
            snprintf(buf, sizeof buf, "%.6g", ta.momentum_max);
            h5out_set_attr(out, "max_momentum_error_Ns", buf);
            h5out_set_attr_double(out, "max_momentum_error", ta.momentum_max);
            if (bad > 0)
                sipd_info("%ld of %ld solves did not converge (at-cap %ld, stalled %ld, diverged %ld); worst "
                          "relative residual %.3g at frame %d step %d (tolerance %g): an under-converged solve "
                          "looks too soft; %s (docs/convergence.md)",
                          bad, ta.solves, ta.by_status[1], ta.by_status[2], ta.by_status[3], ta.worst_residual,
                          ta.worst_frame, ta.worst_substep, sc.tolerance,
                          bad > ta.at_roundoff ? "raise solver.iterations or substeps" : "see the next line");
            if (ta.at_roundoff > 0)
                sipd_info("%ld of the stalled solves stopped at the round-off of the %s state (residuals up to "
                          "%.3g): a tolerance below that needs more precision, not iterations%s",
                          ta.at_roundoff, ops->unit_roundoff < 1e-10 ? "float64" : "float32", ta.roundoff_residual,
                          ops->unit_roundoff < 1e-10 ? "" : " (--device cpu computes in float64)");
            if (ta.momentum_flags > 0)
                sipd_info("momentum: %ld solves changed the momentum by more than the tolerance allows "
                          "(largest error %.3g N s; /convergence/momentum_error)", ta.momentum_flags,
                          ta.momentum_max);
            if (rc == SIPD_OK && bad > 0 && (strict || sc.strict))
                rc = SIPD_ESTRICT;
            h5out_set_attr(out, "exit_reason", rc == SIPD_OK || rc == SIPD_ESTRICT ? "completed"
                                               : rc == SIPD_ESIGNAL                ? "signal"
                                               : rc == SIPD_EDIVERGE               ? "diverged"
                                                                                   : "error");
        }
        if (h5out_close(out) != SIPD_OK && (rc == SIPD_OK || rc == SIPD_ESTRICT))
            rc = SIPD_EFAIL;
        if (rc == SIPD_ESIGNAL && (driver_stopped_substep() > 0 || driver_stopped_inside_step()))
            sipd_info("stopped by a signal after frame %d and %d of %d steps of frame %d%s; %s holds frames "
                      "0..%d; continue with --resume", frames_done, driver_stopped_substep(), sc.substeps,
                      frames_done + 1,
                      driver_stopped_inside_step() ? " (inside the next step: the checkpoint holds its start)" : "",
                      sc.output_file, frames_done);
        else if (rc == SIPD_ESIGNAL)
            sipd_info("stopped by a signal after frame %d; %s holds frames 0..%d; continue with --resume",
                      frames_done, sc.output_file, frames_done);
        else if (rc == SIPD_OK || rc == SIPD_ESTRICT)
            sipd_info("done: %d frames in %.2f s -> %s%s", frames_done, sipd_now() - t0, sc.output_file,
                      rc == SIPD_ESTRICT ? " (exit 4: --strict and some solves did not converge)" : "");
    }
    sim_free(&sim);
    fields_free(&fields);
    checkpoint_free(&ck);
    free(ckpt_path);
    free(cmdline);
    free(resolved);
    model_free(&model);
    scene_free(&sc);
    return rc == SIPD_EDIVERGE ? SIPD_EFAIL : rc;
}
