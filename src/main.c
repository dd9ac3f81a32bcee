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
#include "registry.h"
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
          "  --precision float32|float64\n"
          "                          arithmetic of the solve: float64 runs the CPU backend\n"
          "                          (the verification reference; refused with --device cuda),\n"
          "                          float32 the CUDA backend or the float32 CPU backend\n"
          "                          (not contact.ccd with contact pairs yet; see\n"
          "                          docs/precision.md).\n"
          "                          Default: as the device chooses\n"
          "                          (cpu: float64, cuda: float32)\n"
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

/* One run of sipd-run: the options, then what each step of main() sets up, in that order.  main()
 * zeroes it; cli_free() releases what the have_* flags say was made (and the rest, which is safe
 * to free while zero or NULL). */
typedef struct {
    /* the command line */
    const char *device_opt, *output_opt, *precision_opt;
    int frames_opt, threads, dry_run, resume, overwrite, strict;
    /* load_scene, choose_device */
    sipd_scene sc;
    int have_scene;
    sipd_device device;
    const sipd_backend_ops *ops;
    const char *precision, *cpu_why;
    char device_attr[320], cuda_desc[256], auto_why[420];
    sipd_backend_choice choice;
    /* build_model: the model and the resolved parameters (scene_print) */
    sipd_model model;
    int have_model;
    char *resolved;
    size_t resolved_len;
    /* prepare_run, resume_checkpoint, open_output */
    sipd_backend_params bp;
    sipd_fields fields;
    int have_fields;
    char *ckpt_path, *cmdline;
    uint64_t scene_hash;
    sipd_checkpoint ck;
    int have_ckpt, start_frame, start_substep;
    sipd_sim sim;
    sipd_h5out *out;
    /* run */
    int frames_done;
    double t0;
} cli_run;

static void cli_free(cli_run *r)
{
    sim_free(&r->sim);
    if (r->have_fields)
        fields_free(&r->fields);
    checkpoint_free(&r->ck);
    free(r->ckpt_path);
    free(r->cmdline);
    free(r->resolved);
    if (r->have_model)
        model_free(&r->model);
    if (r->have_scene)
        scene_free(&r->sc);
}

/* The options into *r.  *finished = 1 when main has nothing more to do (--help, --version, or a
 * bad command line): main exits with the status returned. */
static int parse_options(int argc, char **argv, cli_run *r, int *finished)
{
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'}, {"frames", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'}, {"threads", required_argument, 0, 't'},
        {"dry-run", no_argument, 0, 'n'},      {"quiet", no_argument, 0, 'q'},
        {"resume", no_argument, 0, 'r'},       {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {"overwrite", no_argument, 0, 'w'},
        {"strict", no_argument, 0, 'S'},       {"precision", required_argument, 0, 'P'},
        {0, 0, 0, 0}};
    int c;
    *finished = 1;
    r->frames_opt = -1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
        switch (c) {
        case 'd': r->device_opt = optarg; break;
        case 'P':
            if (strcmp(optarg, "float32") && strcmp(optarg, "float64")) {
                sipd_error("--precision: expected float32 or float64, got '%s'", optarg);
                return SIPD_EINPUT;
            }
            r->precision_opt = optarg;
            break;
        case 'f': if (parse_int("--frames", optarg, 0, &r->frames_opt)) return SIPD_EINPUT; break;
        case 'o': r->output_opt = optarg; break;
        case 'S': r->strict = 1; break;
        case 't': if (parse_int("--threads", optarg, 1, &r->threads)) return SIPD_EINPUT; break;
        case 'n': r->dry_run = 1; break;
        case 'q': sipd_quiet = 1; break;
        case 'r': r->resume = 1; break;
        case 'w': r->overwrite = 1; break;
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
    if (r->output_opt && !r->output_opt[0]) {
        sipd_error("--output: empty file name");
        return SIPD_EINPUT;
    }
    *finished = 0;
    return SIPD_OK;
}

/* SIGINT/SIGTERM/SIGUSR1 (on_signal): checkpoint, close the output, exit 3; while loading, exit 3
 * at once. */
static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
}

/* The scene file, with --frames and --output applied. */
static int load_scene(cli_run *r, const char *path)
{
    int rc = scene_load(path, &r->sc);
    if (rc != SIPD_OK)
        return rc;
    r->have_scene = 1;
    if (r->frames_opt >= 0)
        r->sc.frames = r->frames_opt;
    if (r->output_opt) {
        free(r->sc.output_file);
        r->sc.output_file = strdup(r->output_opt);
        if (!r->sc.output_file)
            return SIPD_EFAIL;
    }
    return SIPD_OK;
}

/* Device selection (SIPD_DEVICE_CUDA / AUTO / CPU) by the backend registry (registry.h,
 * registry_choose): cuda needs a CUDA device (else exit 1); auto takes the CUDA backend when a
 * device exists, else the CPU, and says which; what the CUDA backend does not support (method.h,
 * method_cpu_only: mixed-fem, newton with contact pairs, contact with a Gauss–Seidel sweep) runs
 * on the CPU (with device cuda: exit 2, a bad combination); auto also keeps newton there
 * (method_auto_cpu: the float64 reference).  Sets r->ops, precision, device_attr (the output's
 * attribute), cpu_why (the log's reason) and choice (--dry-run's device line). */
static int choose_device(cli_run *r)
{
    const char *device_opt = r->device_opt;
    int rc;
    r->device = r->sc.device;
    if (device_opt) {
        if (!strcmp(device_opt, "auto")) r->device = SIPD_DEVICE_AUTO;
        else if (!strcmp(device_opt, "cuda")) r->device = SIPD_DEVICE_CUDA;
        else if (!strcmp(device_opt, "cpu")) r->device = SIPD_DEVICE_CPU;
        else {
            sipd_error("--device: expected auto, cuda or cpu, got '%s'", device_opt);
            return SIPD_EINPUT;
        }
    }
    if (!r->precision_opt && r->sc.precision != SIPD_PRECISION_AUTO)   /* the scene's `precision` */
        r->precision_opt = scene_precision_name(r->sc.precision);
    rc = registry_choose_precision(&r->sc, r->device, r->precision_opt, &r->choice);
    if (rc != SIPD_OK) {
        sipd_error("%s", r->choice.why);
        return rc;
    }
    r->ops = r->choice.backend->ops;
    r->precision = r->choice.backend->precision;
    r->cpu_why = "";
    strcpy(r->device_attr, "cpu");
    if (r->choice.auto_fallback) {
        snprintf(r->auto_why, sizeof r->auto_why, "; auto: %s", r->choice.why);
        r->cpu_why = r->auto_why;
    }
#ifdef SIPD_HAVE_CUDA
    if (r->ops == &sipd_backend_cuda) {
        char name[256];
        sipd_cuda_describe(r->cuda_desc, sizeof r->cuda_desc);
        sipd_cuda_device_name(name, sizeof name);
        snprintf(r->device_attr, sizeof r->device_attr, "cuda: %s", name);
    }
#endif
    return SIPD_OK;
}

/* Meshes → arrays; the output checked (never an input; replaceable unless resuming); the
 * resolved parameters printed into r->resolved. */
static int build_model(cli_run *r)
{
    int rc = model_build(&r->sc, &r->model);
    if (rc != SIPD_OK)
        return rc;
    r->have_model = 1;
    rc = check_output_is_not_input(&r->sc);
    if (rc == SIPD_OK && (r->dry_run || !r->resume))
        rc = h5out_check_target(r->sc.output_file, r->sc.xdmf, r->overwrite);
    if (rc != SIPD_OK)
        return rc;
    FILE *ms = open_memstream(&r->resolved, &r->resolved_len);
    if (ms) {
        scene_print(ms, &r->sc);
        fclose(ms);
    }
    return SIPD_OK;
}

/* --dry-run: the resolved parameters, the chosen device and why, the model's counts on stdout. */
static void print_dry_run(const cli_run *r)
{
    const sipd_model *model = &r->model;
    fputs(r->resolved ? r->resolved : "", stdout);
    printf("# device: %s (%s)\n", r->choice.backend->name, r->choice.why);   /* registry_choose's */
    printf("# model: %d bodies, %d vertices, %d tets, %d surface triangles, %d colours, "
           "mass %.6g kg, bbox diagonal %.6g\n",
           model->nbodies, model->nv, model->nt, model->nf, model->ncolors, model->total_mass, model->bbox_diag);
    model_print_bodies(stdout, &r->sc, model);                   /* per body: kind, counts, box, Dirichlet */
}

/* The device line and the run's size on stderr. */
static void announce(const cli_run *r)
{
    if (r->ops != &sipd_backend_cpu && r->ops != &sipd_backend_cpu32)
        sipd_info("device: cuda: %s (%s)%s", r->cuda_desc, r->precision,
                  r->device == SIPD_DEVICE_AUTO ? "; auto: CUDA device found" : "");
    else
#ifdef _OPENMP
        sipd_info("device: cpu (%s, %d OpenMP threads)%s", r->precision,
                  r->threads > 0 ? r->threads : omp_get_max_threads(), r->cpu_why);
#else
        sipd_info("device: cpu (%s, 1 thread)%s", r->precision, r->cpu_why);
#endif
    sipd_info("%s: %d vertices, %d tets, %d frames x %d substeps, output %s", r->sc.path, r->model.nv, r->model.nt,
              r->sc.frames, r->sc.substeps, r->sc.output_file);
}

/* Backend parameters, the output fields, and the restart file's name OUTPUT.ckpt. */
static int prepare_run(cli_run *r)
{
    sim_backend_params(&r->sc, r->threads, &r->bp);
    if (fields_init(&r->fields, &r->sc, &r->model) != SIPD_OK)
        return SIPD_EFAIL;
    r->have_fields = 1;
    r->ckpt_path = sipd_malloc(strlen(r->sc.output_file) + 6);
    if (!r->ckpt_path)
        return SIPD_EFAIL;
    sprintf(r->ckpt_path, "%s.ckpt", r->sc.output_file);
    r->scene_hash = checkpoint_scene_hash(r->sc.text, r->model.nv, r->model.nt);
    return SIPD_OK;
}

/* A checkpoint at or past the last frame: the run may have been killed after its last checkpoint,
 * before its exit_reason; mark the output completed. */
static int finish_completed_run(cli_run *r)
{
    const sipd_checkpoint *ck = &r->ck;
    int rc;
    end_loading();
    rc = h5out_open_append(&r->out, r->sc.output_file, r->model.nv, r->model.nt, r->sc.xdmf, ck->out_frames,
                           ck->out_solves, ck->out_hist);
    if (rc == SIPD_OK && r->fields.n > 0)   /* the XDMF keeps its field attributes */
        rc = h5out_add_fields(r->out, r->fields.n, r->fields.spec);
    if (rc == SIPD_OK) {
        rc = h5out_set_attr(r->out, "exit_reason", "completed");
        if (h5out_close(r->out) != SIPD_OK && (rc == SIPD_OK || rc == SIPD_ESTRICT))
            rc = SIPD_EFAIL;
        r->out = NULL;
    }
    if (rc == SIPD_OK)
        sipd_info("%s is at frame %d, the run asks for %d frames: nothing to do", r->ckpt_path, ck->frame,
                  r->sc.frames);
    return rc;
}

/* --resume: read OUTPUT.ckpt when there is one (r->have_ckpt).  *finished = 1 when the checkpoint
 * already holds every frame (finish_completed_run): main exits with the status returned. */
static int resume_checkpoint(cli_run *r, int *finished)
{
    int rc = SIPD_OK;
    *finished = 0;
    if (r->resume && access(r->ckpt_path, F_OK) == 0) {
        rc = checkpoint_read(r->ckpt_path, &r->ck);
        if (rc == SIPD_OK && (r->ck.nv != r->model.nv || r->ck.scene_hash != r->scene_hash ||
                              r->ck.substep >= r->sc.substeps)) {
            sipd_error_at(r->ckpt_path, 0, "this checkpoint was written for another scene or mesh (the scene "
                          "file changed?); remove it or run without --resume to start again");
            rc = SIPD_EINPUT;
        }
        r->have_ckpt = rc == SIPD_OK;
        if (r->have_ckpt && r->ck.frame >= r->sc.frames) {
            *finished = 1;
            return finish_completed_run(r);
        }
    } else if (r->resume) {
        sipd_info("--resume: no checkpoint %s: starting from frame 0", r->ckpt_path);
    }
    return rc;
}

/* Reopen the output of the checkpointed run and restore the simulation's state from it. */
static int reopen_output(cli_run *r)
{
    const sipd_checkpoint *ck = &r->ck;
    char note[160];
    int rc = h5out_open_append(&r->out, r->sc.output_file, r->model.nv, r->model.nt, r->sc.xdmf, ck->out_frames,
                               ck->out_solves, ck->out_hist);
    if (rc == SIPD_OK && r->fields.n > 0)
        rc = h5out_add_fields(r->out, r->fields.n, r->fields.spec);
    if (rc == SIPD_OK && (rc = sim_resume(&r->sim, ck)) == SIPD_EINPUT)
        sipd_error_at(r->ckpt_path, 0, "this checkpoint holds %ld doubles of solver state, the method keeps "
                      "another amount (written by another method?); remove it to start again", ck->ns);
    if (rc == SIPD_OK) {
        r->start_frame = ck->frame;
        r->start_substep = ck->substep;
        if (ck->substep)
            snprintf(note, sizeof note, "frame %d, step %d of frame %d (t = %.17g s)", ck->frame, ck->substep,
                     ck->frame + 1, ck->t);
        else
            snprintf(note, sizeof note, "frame %d (t = %.17g s)", ck->frame, ck->t);
        h5out_set_attr(r->out, "resumed_from", note);
        h5out_set_attr_int(r->out, "resumed_from_frame", ck->frame);
        h5out_set_attr_int(r->out, "resumed_from_substep", ck->substep);
        h5out_set_attr_double(r->out, "resumed_from_time", ck->t);
        h5out_set_attr(r->out, "exit_reason", "running");   /* until the run ends */
        if (ck->substep)
            sipd_info("resuming from %s at frame %d, step %d of %d of frame %d", r->ckpt_path, ck->frame,
                      ck->substep, r->sc.substeps, ck->frame + 1);
        else
            sipd_info("resuming from %s at frame %d", r->ckpt_path, ck->frame);
    }
    if (rc != SIPD_OK && r->out) {
        h5out_close(r->out);
        r->out = NULL;
    }
    return rc;
}

/* A new output: the metadata (version, scene, resolved parameters, command line, device), the
 * rest mesh with every kind's connectivity, the fields. */
static int create_output(cli_run *r, int argc, char **argv)
{
    const sipd_model *model = &r->model;
    sipd_h5_meta meta;
    sipd_h5_mesh hm;
    char version[128];
    int rc;
    r->cmdline = command_line(argc, argv);
    snprintf(version, sizeof version, "sipd-run %s (git %s)", SIPD_VERSION, SIPD_GIT);
    meta.version = version;
    meta.scene_text = r->sc.text;
    meta.resolved_parameters = r->resolved;
    meta.command_line = r->cmdline;
    meta.device = r->device_attr;
    meta.precision = r->precision;
    meta.units = "SI: m, kg, s, Pa";
    hm.nv = model->nv;
    hm.nt = model->nt;
    hm.nf = model->nf;
    hm.rest = model->X;
    hm.tets = model->tets;
    hm.tris = model->tris;
    hm.body = model->body;
    {   /* the other kinds' connectivity: elastic triangles and edges (model.h groups) */
        int gt = model->group_of[SIPD_KIND_TRI], ge = model->group_of[SIPD_KIND_EDGE];
        hm.ntri = gt >= 0 ? model->groups[gt].ne : 0;
        hm.triangles = gt >= 0 ? model->groups[gt].v : NULL;
        hm.ned = ge >= 0 ? model->groups[ge].ne : 0;
        hm.edges = ge >= 0 ? model->groups[ge].v : NULL;
    }
    rc = h5out_create(&r->out, r->sc.output_file, &meta, &hm, r->sc.compression, r->sc.xdmf);
    if (rc == SIPD_OK && r->fields.n > 0)   /* output.fields: their datasets and XDMF attributes */
        rc = h5out_add_fields(r->out, r->fields.n, r->fields.spec);
    if (rc == SIPD_OK)   /* until the run ends: a killed run says so */
        rc = h5out_set_attr(r->out, "exit_reason", "running");
    return rc;
}

/* The first writes: a fresh run removes a stale checkpoint; then the output, reopened after a
 * checkpoint or created. */
static int open_output(cli_run *r, int argc, char **argv)
{
    int rc;
    if (!r->resume && access(r->ckpt_path, F_OK) == 0) {
        if (unlink(r->ckpt_path) == 0)
            sipd_info("removed the previous run's checkpoint %s (use --resume to continue a run)", r->ckpt_path);
    }
    rc = r->have_ckpt ? reopen_output(r) : create_output(r, argc, argv);
    if (rc == SIPD_OK && r->out)
        h5out_set_history(r->out, r->sc.history_every);   /* output.history */
    return rc;
}

/* The knob that helped on this kind of scene, measured against Newton on the study scenes
 * (docs/convergence.md#when-solves-do-not-converge; results/defaults-study-2026-12-06.md and
 * -06b.md). */
static const char *remedy(const sipd_scene *sc)
{
    if (scene_coarse_on(sc) && !sc->quasistatic && sc->initial_guess == SIPD_GUESS_INERTIAL)
        return "solver.initial_guess = \"adaptive\" (the default: in the defaults study the crossed rods went from "
               "8 to 56 of 60 converged solves with it, the block on the slope from 69 to 20 iterations per step)";
    if (scene_coarse_on(sc) && sc->coarse_basis == SIPD_COARSE_BASIS_TRILINEAR)
        return "solver.coarse.basis = \"auto\" for shells and rods (the default: in the defaults study the crossed "
               "rods went from 32 to 56 of 60 converged solves with it), or raise solver.iterations";
    if (sc->method == SIPD_METHOD_SIPD && sc->sweep == SIPD_SWEEP_JACOBI && !scene_coarse_on(sc)) {
        if (sc->chebyshev)
            return "solver.chebyshev = false with the coarse level (solver.coarse.levels = \"auto\" or 2; in the "
                   "defaults study Chebyshev left a hanging cloth 2.0 m off Newton at 1000 iterations, the coarse "
                   "level 0.0 mm), or raise solver.iterations";
        return "turn the coarse level on (solver.coarse.levels = 2: in the defaults study it put a hanging cloth, "
               "a stack and a block on a slope on Newton's answer where plain sipd was 0.7-2 m off)";
    }
    if (scene_coarse_on(sc))
        return "raise solver.iterations (the coarse level is on; thin bodies in contact needed up to 1000 "
               "iterations per step in the defaults study), or substeps";
    return "raise solver.iterations or substeps";
}

/* The solves' tallies into the output's attributes (numbers and the contract's strings) and the
 * log; --strict (or the scene's strict) turns unconverged solves into SIPD_ESTRICT; the output's
 * exit_reason.  Returns rc, or SIPD_ESTRICT. */
static int report_solves(cli_run *r, int rc)
{
    sipd_h5out *out = r->out;
    char buf[96];
    sipd_run_tally ta;
    long bad;
    double wall = sipd_now() - r->t0;
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
    h5out_set_attr_int(out, "solves_at_energy_floor", ta.at_floor);
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
                  ta.worst_frame, ta.worst_substep, r->sc.tolerance,
                  bad > ta.at_roundoff + ta.at_floor ? remedy(&r->sc) : "see the next lines");
    if (ta.at_floor > 0)
        sipd_info("%ld of the stalled solves stopped at the energy's resolution (relative residuals up to %.3g): "
                  "the rest of their predicted gain is below the round-off of the energy, so no iteration can "
                  "be told from the minimum (docs/convergence.md#the-energy-floor)",
                  ta.at_floor, ta.floor_residual);
    if (ta.at_roundoff > 0)
        sipd_info("%ld of the stalled solves stopped at the round-off of the %s state (residuals up to "
                  "%.3g): a tolerance below that needs more precision, not iterations%s",
                  ta.at_roundoff, r->ops->unit_roundoff < 1e-10 ? "float64" : "float32", ta.roundoff_residual,
                  r->ops->unit_roundoff < 1e-10 ? "" : " (--device cpu --precision float64 computes in float64)");
    if (ta.momentum_flags > 0)
        sipd_info("momentum: %ld solves changed the momentum by more than the tolerance allows "
                  "(largest error %.3g N s; /convergence/momentum_error)", ta.momentum_flags,
                  ta.momentum_max);
    if (!isnan(ta.min_gap)) {   /* contact: the written frames' smallest gap (/convergence/min_gap) */
        h5out_set_attr_double(out, "min_contact_gap", ta.min_gap);
        h5out_set_attr_double(out, "max_contact_penetration", ta.min_gap < 0 ? -ta.min_gap : 0.0);
        if (ta.min_gap < 0)
            sipd_info("contact: deepest penetration %.3g m (%.0f%% of dhat) at frame %d (/convergence/min_gap)",
                      -ta.min_gap, 100 * -ta.min_gap / r->sc.dhat, ta.min_gap_frame);
        else
            sipd_info("contact: smallest gap %.3g m at frame %d, no penetration (/convergence/min_gap)", ta.min_gap,
                      ta.min_gap_frame);
    }
    if (rc == SIPD_OK && bad > 0 && (r->strict || r->sc.strict))
        rc = SIPD_ESTRICT;
    h5out_set_attr(out, "exit_reason", rc == SIPD_OK || rc == SIPD_ESTRICT ? "completed"
                                       : rc == SIPD_ESIGNAL                ? "signal"
                                       : rc == SIPD_EDIVERGE               ? "diverged"
                                                                           : "error");
    return rc;
}

/* The last line on stderr: where a stopped run stands, or done. */
static void report_end(const cli_run *r, int rc)
{
    int frames_done = r->frames_done;
    if (rc == SIPD_ESIGNAL && (driver_stopped_substep() > 0 || driver_stopped_inside_step()))
        sipd_info("stopped by a signal after frame %d and %d of %d steps of frame %d%s; %s holds frames "
                  "0..%d; continue with --resume", frames_done, driver_stopped_substep(), r->sc.substeps,
                  frames_done + 1,
                  driver_stopped_inside_step() ? " (inside the next step: the checkpoint holds its start)" : "",
                  r->sc.output_file, frames_done);
    else if (rc == SIPD_ESIGNAL)
        sipd_info("stopped by a signal after frame %d; %s holds frames 0..%d; continue with --resume",
                  frames_done, r->sc.output_file, frames_done);
    else if (rc == SIPD_OK || rc == SIPD_ESTRICT)
        sipd_info("done: %d frames in %.2f s -> %s%s", frames_done, sipd_now() - r->t0, r->sc.output_file,
                  rc == SIPD_ESTRICT ? " (exit 4: --strict and some solves did not converge)" : "");
}

/* The frames (driver_run), then the tallies, the output closed, the last line. */
static int run_frames(cli_run *r)
{
    sipd_run_opts ro;
    int rc;
    ro.frames = r->sc.frames;
    ro.start_frame = r->start_frame;
    ro.start_substep = r->start_substep;
    ro.out = r->out;
    ro.stop = &sipd_stop_flag;
    ro.checkpoint = r->ckpt_path;
    ro.checkpoint_every = r->sc.checkpoint_every;
    ro.checkpoint_seconds = r->sc.checkpoint_seconds;
    ro.scene_hash = r->scene_hash;
    ro.fields = r->fields.n > 0 ? &r->fields : NULL;
    r->t0 = sipd_now();
    rc = driver_run(&r->sim, &ro, &r->frames_done);
    rc = report_solves(r, rc);
    if (h5out_close(r->out) != SIPD_OK && (rc == SIPD_OK || rc == SIPD_ESTRICT))
        rc = SIPD_EFAIL;
    report_end(r, rc);
    return rc;
}

int main(int argc, char **argv)
{
    cli_run r;
    int rc, finished;

    memset(&r, 0, sizeof r);   /* sim_free, checkpoint_free and the frees are safe on zeroes */
    rc = parse_options(argc, argv, &r, &finished);               /* --help, --version, bad options */
    if (finished)
        return rc;
    install_signal_handlers();
    rc = load_scene(&r, argv[optind]);                           /* scene file, --frames, --output */
    if (rc == SIPD_OK)
        rc = choose_device(&r);                                  /* cpu or cuda, and why */
    if (rc == SIPD_OK)
        rc = build_model(&r);                                    /* meshes → arrays; output checked */
    if (rc != SIPD_OK || r.dry_run) {
        if (rc == SIPD_OK)
            print_dry_run(&r);                                   /* --dry-run: parameters and model */
        cli_free(&r);
        return rc;
    }
    announce(&r);                                                /* device and size on stderr */
    rc = prepare_run(&r);                                        /* backend parameters, fields */
    if (rc != SIPD_OK) {
        cli_free(&r);
        return rc;
    }
    rc = resume_checkpoint(&r, &finished);                       /* --resume: OUTPUT.ckpt */
    if (finished) {
        cli_free(&r);
        return rc;
    }
    if (rc == SIPD_OK)
        rc = sim_init(&r.sim, &r.sc, &r.model, r.ops, &r.bp);   /* the backend's state */
    end_loading();   /* the first write follows: a stale checkpoint's removal, or the output */
    if (rc == SIPD_OK)
        rc = open_output(&r, argc, argv);                        /* reopened after a checkpoint, or new */
    if (rc == SIPD_OK)
        rc = run_frames(&r);                                     /* the frames, tallies, last line */
    cli_free(&r);
    return rc == SIPD_EDIVERGE ? SIPD_EFAIL : rc;
}
