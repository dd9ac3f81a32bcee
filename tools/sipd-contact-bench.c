/* sipd-contact-bench — CPU cost of collision detection (src/collide.c) on noodle piles.
 *
 *   sipd-contact-bench [--threads N] [--reps R] [LAYERSxNOODLESxCELLS ...]
 *                                    (default sizes: 4x16x16 8x24x32 12x40x48 16x48x64)
 *
 * A pile is LAYERS layers of NOODLES thin boxes each (meshgen_box, CELLS x 1 x 1 cells,
 * cross-section t x t = 0.04 x 0.04, each its own body), the layers alternately along x and
 * z like a woodpile, neighbours and layers 0.5 d̂ apart (d̂ = 0.01), every noodle tilted by a
 * random angle below 0.02 rad and jittered by 0.05 d̂.  So every noodle touches its
 * neighbours in the layer and the noodles crossing it above and below: many VF and EE pairs.
 * Step: x0 = the pile, y1 = x0 moved by 0.2 d̂ down plus a random 0.1 d̂, margin 0.25 d̂,
 * self-contact on; the narrow phase runs at y = y1.  Timed (best of R, after one warm-up):
 * collide_create once, collide_broad, collide_narrow.  Output: a Markdown table on stdout.
 *
 * Built a second time as tools/gpu/sipd-contact-bench-gpu (that file includes this one, with
 * SIPD_HAVE_CUDA): then the GPU is timed on the same piles too, as the CUDA backend runs it, on
 * float positions already on the device — sipd_cuda_broad_create once (after an untimed one; it
 * includes collide_rest_excluded's CPU broad phase over the rest shape), sipd_cuda_broad_run_device
 * and sipd_cuda_broad_narrow (float32; the pairs downloaded and converted on the host: the whole
 * call is timed), best of R after a warm-up — and the GPU's candidate and pair counts are
 * printed beside the CPU's (they must agree up to float32 borderline pairs: ctest -L gpu checks
 * the sets).  Exits 1 without a CUDA device.  --gpu-only (the device check, tools/gpu-check.sh):
 * the CPU's broad and narrow phases are not timed (collide_create still runs: the GPU's create
 * takes its surface numbering and rest exclusions).  SIPD_TEST_GPU_SELFTEST=1: no CUDA call; the
 * GPU columns read "–" and the CPU's are timed in their place (checks the tool, not CUDA).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "collide.h"
#ifdef SIPD_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "backend_cuda.h"
#include "collide_cuda.h"
#endif
#include "meshgen.h"
#include "physics/mat3.h"
#include "util.h"

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static double rnd(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (double)((g_rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}
static double rndu(double a, double b) { return a + (b - a) * rnd(); }

static mat3 rot(vec3 k, double a)
{
    mat3 R;
    double c = cos(a), s = sin(a), C = 1 - c, l = sqrt(v3_norm2(k));
    k = v3_scale(k, 1 / l);
    R.m[0] = c + k.v[0] * k.v[0] * C;
    R.m[1] = k.v[0] * k.v[1] * C - k.v[2] * s;
    R.m[2] = k.v[0] * k.v[2] * C + k.v[1] * s;
    R.m[3] = k.v[1] * k.v[0] * C + k.v[2] * s;
    R.m[4] = c + k.v[1] * k.v[1] * C;
    R.m[5] = k.v[1] * k.v[2] * C - k.v[0] * s;
    R.m[6] = k.v[2] * k.v[0] * C - k.v[1] * s;
    R.m[7] = k.v[2] * k.v[1] * C + k.v[0] * s;
    R.m[8] = c + k.v[2] * k.v[2] * C;
    return R;
}

/* the pile as a model (only the arrays collide.c reads); x0 = its rest positions */
static int make_pile(int nl, int nn, int ncell, double dhat, sipd_model *m, double **x0)
{
    double t = 0.04, gap = 0.5 * dhat, pitch = t + gap, L = nn * pitch;
    sipd_mesh me;
    int l, j, i, nb = nl * nn, b;
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    if (meshgen_box(ncell, 1, 1, L, t, t, &me) != SIPD_OK)
        return SIPD_EFAIL;
    memset(m, 0, sizeof *m);
    m->nv = nb * me.nv;
    m->nf = nb * me.nf;
    m->nbodies = nb;
    m->X = malloc((size_t)m->nv * 3 * sizeof(double));
    m->tris = malloc((size_t)m->nf * 3 * sizeof(int));
    m->body = malloc((size_t)m->nv * sizeof(int));
    m->fixed = calloc((size_t)m->nv, 1);
    if (!m->X || !m->tris || !m->body || !m->fixed) {
        mesh_free(&me);
        return SIPD_EFAIL;
    }
    for (l = 0, b = 0; l < nl; l++)
        for (j = 0; j < nn; j++, b++) {
            mat3 R = m3_mul(rot(v3(rndu(-1, 1), rndu(-1, 1), rndu(-1, 1)), rndu(0, 0.02)),
                            rot(v3(0, 1, 0), l % 2 ? 1.5707963267948966 : 0));
            vec3 T = l % 2 ? v3((j + 0.5) * pitch, (l + 0.5) * pitch, L / 2) : v3(L / 2, (l + 0.5) * pitch, (j + 0.5) * pitch);
            T = v3_add(T, v3(rndu(-0.05, 0.05) * dhat, rndu(-0.05, 0.05) * dhat, rndu(-0.05, 0.05) * dhat));
            for (i = 0; i < me.nv; i++) {
                vec3 p = v3(me.x[3 * i] - L / 2, me.x[3 * i + 1] - t / 2, me.x[3 * i + 2] - t / 2);
                v3_store(m->X + 3 * ((size_t)b * me.nv + i), v3_add(m3_mulv(R, p), T));
                m->body[b * me.nv + i] = b;
            }
            for (i = 0; i < 3 * me.nf; i++) m->tris[(size_t)b * 3 * me.nf + i] = me.tris[i] + b * me.nv;
        }
    mesh_free(&me);
    for (i = 0; i < m->nv; i++)
        for (l = 0; l < 3; l++) {
            lo[l] = fmin(lo[l], m->X[3 * i + l]);
            hi[l] = fmax(hi[l], m->X[3 * i + l]);
        }
    m->bbox_diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                        (hi[2] - lo[2]) * (hi[2] - lo[2]));
    *x0 = malloc((size_t)m->nv * 3 * sizeof(double));
    if (!*x0)
        return SIPD_EFAIL;
    memcpy(*x0, m->X, (size_t)m->nv * 3 * sizeof(double));
    return SIPD_OK;
}

static void free_model(sipd_model *m)
{
    free(m->X);
    free(m->tris);
    free(m->body);
    free(m->fixed);
}

static int gpu_only = 0, standin = 0;   /* --gpu-only; SIPD_TEST_GPU_SELFTEST=1 */

static int run(int nl, int nn, int ncell, int reps)
{
    double dhat = 0.01, margin = 0.25 * dhat, t0, tc, tb = 1e300, tn = 1e300, *x0, *y1;
    sipd_model m;
    sipd_collide *c;
    const sipd_contact_pair *pairs;
    int np = 0, r, i, nvf_p = 0, k;
    long nvf, nee;
    if (make_pile(nl, nn, ncell, dhat, &m, &x0) != SIPD_OK)
        return SIPD_EFAIL;
    y1 = malloc((size_t)m.nv * 3 * sizeof(double));
    if (!y1)
        return SIPD_EFAIL;
    for (i = 0; i < m.nv; i++)
        for (k = 0; k < 3; k++)
            y1[3 * i + k] = x0[3 * i + k] + (k == 1 ? -0.2 * dhat : 0) + rndu(-0.1, 0.1) * dhat;
    t0 = sipd_now();
    if (collide_create(&c, &m, 1, dhat) != SIPD_OK)
        return SIPD_EFAIL;
    tc = sipd_now() - t0;
    for (r = 0; r <= reps && !(gpu_only && !standin); r++) {   /* r = 0: warm-up (allocations) */
        t0 = sipd_now();
        if (collide_broad(c, x0, y1, margin) != SIPD_OK)
            return SIPD_EFAIL;
        if (r) tb = fmin(tb, sipd_now() - t0);
        t0 = sipd_now();
        if (collide_narrow(c, x0, y1, &pairs, &np) != SIPD_OK)
            return SIPD_EFAIL;
        if (r) tn = fmin(tn, sipd_now() - t0);
    }
    if (gpu_only && !standin)
        printf("| %dx%dx%d | %d | %d | %.1f | – | – | – | – | – | – | – | – |", nl, nn, ncell, m.nf, m.nv, tc * 1e3);
    else {
        collide_candidates(c, &nvf, &nee);
        for (i = 0; i < np; i++) nvf_p += pairs[i].kind == 0;
        printf("| %dx%dx%d | %d | %d | %.1f | %ld | %ld | %d | %d | %.1f | %.1f | %.1f | %.1f |", nl, nn, ncell, m.nf,
               m.nv, tc * 1e3, nvf, nee, nvf_p, np - nvf_p, tb * 1e3, tn * 1e3, np / tn * 1e-6, (nvf + nee) / tn * 1e-6);
    }
#ifdef SIPD_HAVE_CUDA
    if (standin)
        printf(" – | – | – | – | – | – | – | – |");
    else {   /* what the CUDA backend runs, on float positions already on the device */
        sipd_cuda_broad *g = NULL;
        const sipd_contact_pair *gp;
        float *f = malloc((size_t)m.nv * 6 * sizeof *f), *d_x = NULL, *d_y = NULL;
        double gtc, gtb = 1e300, gtn = 1e300;
        long gvf = 0, gee = 0;
        int gnp = 0;
        size_t n3 = (size_t)m.nv * 3;
        if (!f || cudaMalloc((void **)&d_x, n3 * sizeof(float)) != cudaSuccess ||
            cudaMalloc((void **)&d_y, n3 * sizeof(float)) != cudaSuccess)
            return SIPD_EFAIL;
        for (i = 0; i < (int)n3; i++) {
            f[i] = (float)x0[i];
            f[n3 + i] = (float)y1[i];
        }
        if (cudaMemcpy(d_x, f, n3 * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemcpy(d_y, f + n3, n3 * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
            return SIPD_EFAIL;
        /* an untimed create first: the first CUDA calls of the process set the device up */
        if (sipd_cuda_broad_create(&g, c) != SIPD_OK)
            return SIPD_EFAIL;
        sipd_cuda_broad_destroy(g);
        t0 = sipd_now();
        if (sipd_cuda_broad_create(&g, c) != SIPD_OK)
            return SIPD_EFAIL;
        gtc = sipd_now() - t0;
        for (r = 0; r <= reps; r++) {
            t0 = sipd_now();
            if (sipd_cuda_broad_run_device(g, d_x, d_y, margin) != SIPD_OK)
                return SIPD_EFAIL;
            if (r) gtb = fmin(gtb, sipd_now() - t0);
            t0 = sipd_now();
            if (sipd_cuda_broad_narrow(g, d_x, d_y, &gp, &gnp) != SIPD_OK)
                return SIPD_EFAIL;
            if (r) gtn = fmin(gtn, sipd_now() - t0);
        }
        sipd_cuda_broad_count(g, &gvf, &gee);
        if (gpu_only)
            printf(" %.1f | %ld | %ld | %d | %.2f | %.2f | – | – |", gtc * 1e3, gvf, gee, gnp, gtb * 1e3, gtn * 1e3);
        else
            printf(" %.1f | %ld | %ld | %d | %.2f | %.2f | %.1f | %.1f |", gtc * 1e3, gvf, gee, gnp, gtb * 1e3,
                   gtn * 1e3, tb / gtb, tn / gtn);
        sipd_cuda_broad_destroy(g);
        cudaFree(d_x);
        cudaFree(d_y);
        free(f);
    }
#endif
    printf("\n");
    fflush(stdout);
    collide_destroy(c);
    free_model(&m);
    free(x0);
    free(y1);
    return SIPD_OK;
}

int main(int argc, char **argv)
{
    static const char *defaults[] = {"4x16x16", "8x24x32", "12x40x48", "16x48x64"};
    const char *sizes[64];
    int ns = 0, reps = 3, threads = 0, i;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--gpu-only")) {
            gpu_only = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: sipd-contact-bench [--threads N] [--reps R] [--gpu-only] [LAYERSxNOODLESxCELLS ...]\n");
            return 0;
        } else if (ns < 64) {
            sizes[ns++] = argv[i];
        }
    }
    if (!ns)
        for (i = 0; i < 4; i++) sizes[ns++] = defaults[i];
    if (reps < 1)
        reps = 1;
#ifdef _OPENMP
    if (threads > 0)
        omp_set_num_threads(threads);
    threads = omp_get_max_threads();
#else
    threads = 1;
#endif
#ifdef SIPD_HAVE_CUDA
    {
        char desc[256];
        const char *st = getenv("SIPD_TEST_GPU_SELFTEST");
        standin = st && atoi(st);
        if (standin)
            printf("SELF-TEST: no CUDA call; the CPU columns stand in for the GPU's\n");
        else if (sipd_cuda_device_count() <= 0) {
            fprintf(stderr, "sipd-contact-bench-gpu: no CUDA device\n");
            return 1;
        }
        if (sipd_cuda_describe(desc, (int)sizeof desc) == 0)
            printf("GPU: %s\n", desc);
    }
#endif
    printf("OpenMP threads: %d; best of %d calls after a warm-up; d̂ = 0.01, noodles 0.04 x 0.04, gaps 0.5 d̂\n\n", threads,
           reps);
    printf("| pile (layers x noodles x cells) | surface tris | vertices | create ms | VF candidates | EE candidates "
           "| VF pairs | EE pairs | broad ms | narrow ms | Mpairs/s | Mcandidates/s (narrow) |");
#ifdef SIPD_HAVE_CUDA
    printf(" GPU create ms | GPU VF candidates | GPU EE candidates | GPU pairs | GPU broad ms | GPU narrow ms "
           "| broad CPU/GPU | narrow CPU/GPU |");
#endif
    printf("\n|---|---|---|---|---|---|---|---|---|---|---|---|");
#ifdef SIPD_HAVE_CUDA
    printf("---|---|---|---|---|---|---|---|");
#endif
    printf("\n");
    for (i = 0; i < ns; i++) {
        int nl, nn, nc;
        if (sscanf(sizes[i], "%dx%dx%d", &nl, &nn, &nc) != 3 || nl < 1 || nn < 1 || nc < 1) {
            fprintf(stderr, "sipd-contact-bench: bad size '%s' (want LAYERSxNOODLESxCELLS)\n", sizes[i]);
            return 2;
        }
        if (run(nl, nn, nc, reps) != SIPD_OK) {
            fprintf(stderr, "sipd-contact-bench: failed on %s\n", sizes[i]);
            return 1;
        }
    }
    return 0;
}
