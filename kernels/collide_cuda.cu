/* collide_cuda.cu — the collision narrow phase on the GPU (src/collide_cuda.h), float32.
 *
 * One kernel, one thread per candidate (grid-stride), each computing narrow_rec_of of
 * kernels/collide_narrow.h — src/collide.c's narrow_one in float, through the same
 * dist_vf_pair / dist_ee_pair of src/physics/distance.h — into one record per candidate.  The
 * host then copies the records back and compacts them in candidate order (narrow_compact), so
 * the pairs come out in collide_narrow's order.  Deliberately simple: every buffer is allocated,
 * filled and freed in one call; no streams, no atomics, no device-side compaction.
 *
 * Errors: every CUDA call is checked; a failure prints the call and cudaGetErrorString, frees
 * everything allocated so far and returns SIPD_EFAIL.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#ifndef SIPD_REAL_FLOAT
#error "kernels/collide_cuda.cu is built with -DSIPD_REAL_FLOAT (float32 device state)"
#endif

#include "collide_cuda.h"
#include "collide_narrow.h"
#include "launch.h"

#define NT 256              /* threads per block                 */
#define MAX_BLOCKS 65536    /* grid-stride beyond this many blocks */

__global__ void __launch_bounds__(NT) k_collide_narrow(narrow_in in, narrow_rec *rec)
{
    long long nc = in.nvf + in.nee, k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < nc; k += (long long)gridDim.x * NT)
        narrow_rec_of(&in, k, rec + k);
}

/* On failure: report, then jump to the cleanup (rc = SIPD_EFAIL). */
#define CUC(call)                                                                             \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            sipd_error("cuda collide: narrow phase: %s failed: %s (%s)", #call,               \
                       cudaGetErrorString(e_), cudaGetErrorName(e_));                         \
            goto done;                                                                        \
        }                                                                                     \
    } while (0)

/* positions as float xyz triples */
static void to_float(const double *x, size_t n, float *out)
{
    size_t i;
    for (i = 0; i < n; i++) out[i] = (float)x[i];
}

extern "C" int sipd_cuda_collide_narrow(const sipd_collide *c, const double *x0, const double *y,
                                        sipd_contact_pair *out, int cap, int *npairs)
{
    sipd_collide_view v;
    narrow_in in;
    const sipd_model *m;
    size_t nc, npos, ntri, nedge;
    long long nblocks;
    int rc = SIPD_EFAIL;
    /* host buffers */
    float *hpos = NULL;
    narrow_rec *hrec = NULL;
    /* device buffers */
    float *d_x0 = NULL, *d_y = NULL;
    int *d_vf = NULL, *d_ee = NULL, *d_tris = NULL, *d_edges = NULL;
    narrow_rec *d_rec = NULL;
    float *d_rad = NULL;

    *npairs = 0;
    collide_candidate_arrays(c, &v);
    m = v.m;
    nc = v.nvf + v.nee;
    if (nc == 0)
        return SIPD_OK;
    npos = (size_t)m->nv * 3;
    ntri = (size_t)m->nf * 3;
    nedge = (size_t)v.nedges * 2;

    hpos = (float *)malloc(npos * sizeof *hpos);
    hrec = (narrow_rec *)malloc(nc * sizeof *hrec);
    if (!hpos || !hrec) {
        sipd_error("cuda collide: narrow phase: out of host memory (%zu candidates)", nc);
        goto done;
    }
    /* cudaMalloc(0) may return NULL: every buffer gets at least one element (none is read then) */
    CUC(cudaMalloc((void **)&d_x0, npos * sizeof(float)));
    CUC(cudaMalloc((void **)&d_y, npos * sizeof(float)));
    CUC(cudaMalloc((void **)&d_vf, (v.nvf ? 2 * v.nvf : 1) * sizeof(int)));
    CUC(cudaMalloc((void **)&d_ee, (v.nee ? 2 * v.nee : 1) * sizeof(int)));
    CUC(cudaMalloc((void **)&d_tris, (ntri ? ntri : 1) * sizeof(int)));
    CUC(cudaMalloc((void **)&d_edges, (nedge ? nedge : 1) * sizeof(int)));
    CUC(cudaMalloc((void **)&d_rec, nc * sizeof(narrow_rec)));

    /* pageable host memory: each copy has completed when cudaMemcpy returns, so hpos is reused */
    to_float(x0, npos, hpos);
    CUC(cudaMemcpy(d_x0, hpos, npos * sizeof(float), cudaMemcpyHostToDevice));
    to_float(y, npos, hpos);
    CUC(cudaMemcpy(d_y, hpos, npos * sizeof(float), cudaMemcpyHostToDevice));
    if (v.nvf)
        CUC(cudaMemcpy(d_vf, v.vf, 2 * v.nvf * sizeof(int), cudaMemcpyHostToDevice));
    if (v.nee)
        CUC(cudaMemcpy(d_ee, v.ee, 2 * v.nee * sizeof(int), cudaMemcpyHostToDevice));
    if (ntri)
        CUC(cudaMemcpy(d_tris, m->tris, ntri * sizeof(int), cudaMemcpyHostToDevice));
    if (nedge)
        CUC(cudaMemcpy(d_edges, v.edges, nedge * sizeof(int), cudaMemcpyHostToDevice));

    in.vf = d_vf;
    in.ee = d_ee;
    in.tris = d_tris;
    in.edges = d_edges;
    in.x0 = d_x0;
    in.y = d_y;
    in.nvf = (long long)v.nvf;
    in.nee = (long long)v.nee;
    in.tiny = (float)v.tiny;
    in.dhat = (float)v.dhat;
    in.was = NULL;   /* no history: the strict rule */
    if (m->crad) {   /* the thickness offsets; hpos (3 nv floats) is free again */
        size_t i;
        for (i = 0; i < (size_t)m->nv; i++) hpos[i] = (float)m->crad[i];
        CUC(cudaMalloc((void **)&d_rad, ((size_t)m->nv + 1) * sizeof(float)));
        CUC(cudaMemcpy(d_rad, hpos, (size_t)m->nv * sizeof(float), cudaMemcpyHostToDevice));
    }
    in.rad = d_rad;
    in.ne_tri = v.ne_tri;
    nblocks = ((long long)nc + NT - 1) / NT;
    if (nblocks > MAX_BLOCKS)
        nblocks = MAX_BLOCKS;
    SIPD_LAUNCH(k_collide_narrow, (unsigned)nblocks, NT, 0, in, d_rec);
    CUC(cudaGetLastError());          /* launch configuration errors */
    CUC(cudaDeviceSynchronize());     /* faults while the kernel ran */
    CUC(cudaMemcpy(hrec, d_rec, nc * sizeof(narrow_rec), cudaMemcpyDeviceToHost));

    rc = narrow_compact(&v, hrec, out, cap, npairs);
done:
    /* cudaFree(NULL) is a no-op; a failure to free is reported but does not hide an earlier one */
    {
        void *dp[8];
        int i;
        dp[0] = d_x0; dp[1] = d_y; dp[2] = d_vf; dp[3] = d_ee; dp[4] = d_tris; dp[5] = d_edges; dp[6] = d_rec;
        dp[7] = d_rad;
        for (i = 0; i < 8; i++) {
            cudaError_t e = cudaFree(dp[i]);
            if (e != cudaSuccess && rc == SIPD_OK) {
                sipd_error("cuda collide: narrow phase: cudaFree failed: %s (%s)", cudaGetErrorString(e),
                           cudaGetErrorName(e));
                rc = SIPD_EFAIL;
                *npairs = 0;
            }
        }
    }
    free(hpos);
    free(hrec);
    return rc;
}

/* ================================================================ broad phase (GPU)
 *
 * One object per model (sipd_cuda_broad_create): the surface numbering of src/collide.c (its
 * surface vertices and edges), the bodies, the Dirichlet flags and collide_rest_excluded's lists
 * are uploaded once.  Per sipd_cuda_broad_run, all on the device (kernels/collide_broad.h):
 *   boxes (one thread per surface vertex, face, edge) → the grid (cub::DeviceReduce over the
 *   face boxes; the 64-byte result is copied to the host, which sets up the grid exactly as
 *   src/collide.c does) → lowest cells → per face / edge the number of cells it overlaps →
 *   exclusive scan → entries (cell key, primitive) → cub::DeviceRadixSort::SortPairs (stable, on
 *   the 63 key bits) → per query the number of candidates → exclusive scan → the candidates.
 * Device memory grows as needed and is kept between runs.  Host synchronisation: the grid (one
 * struct) and the four scan totals.
 */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "collide_broad.h"

struct red_join {
    __host__ __device__ broad_red operator()(const broad_red &a, const broad_red &b) const
    {
        return broad_red_join(a, b);
    }
};

__global__ void __launch_bounds__(NT) k_broad_boxes(gbroad b)
{
    long long n = (long long)b.nsv + b.nf + b.ne, k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < n; k += (long long)gridDim.x * NT) {
        if (k < b.nsv)
            gbroad_vbox(&b, (int)k);
        else if (k < (long long)b.nsv + b.nf)
            gbroad_fbox(&b, (int)(k - b.nsv));
        else
            gbroad_ebox(&b, (int)(k - b.nsv - b.nf));
    }
}

/* faces (edges = 0) or edges (edges = 1): lowest cells and the number of cells overlapped */
__global__ void __launch_bounds__(NT) k_broad_cells(gbroad b, int edges, long long *cnt)
{
    int n = edges ? b.ne : b.nf;
    long long k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < n; k += (long long)gridDim.x * NT) {
        if (edges) {
            gbroad_cells(&b, b.elo, b.ecell, (int)k);
            cnt[k] = gbroad_count(&b, b.ehi, b.ecell, (int)k);
        } else {
            gbroad_cells(&b, b.flo, b.fcell, (int)k);
            cnt[k] = gbroad_count(&b, b.fhi, b.fcell, (int)k);
        }
    }
}

__global__ void __launch_bounds__(NT) k_broad_fill(gbroad b, int edges, const long long *off, uint64_t *key, int *prim)
{
    int n = edges ? b.ne : b.nf;
    long long k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < n; k += (long long)gridDim.x * NT)
        gbroad_fill(&b, edges ? b.ehi : b.fhi, edges ? b.ecell : b.fcell, (int)k, off[k], key, prim);
}

/* queries: count (out = NULL) or write at off[k] */
__global__ void __launch_bounds__(NT) k_broad_query(gbroad b, int vf, const long long *off, long long *cnt, int *out)
{
    int n = vf ? b.nsv : b.ne;
    long long k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < n; k += (long long)gridDim.x * NT) {
        if (out)
            gbroad_query(&b, vf, (int)k, out + 2 * off[k]);
        else
            cnt[k] = gbroad_query(&b, vf, (int)k, NULL);
    }
}

typedef struct {                     /* grid entries (cell key, primitive), capacity cap */
    uint64_t *key;
    int *prim;
    long long cap;
} gentries;

struct sipd_cuda_broad {
    const sipd_model *m;
    double dhat, tiny;
    gbroad b;                        /* device pointers; the grid of the last run */
    int nv;
    /* device arrays */
    int *d_topo;                     /* tris, edges, sv, body (one allocation)     */
    unsigned char *d_fixed;
    uint64_t *d_excl;                /* xvf then xee                               */
    double *d_geo;                   /* x0, y1, vlo, vhi, flo, fhi, elo, ehi       */
    broad_red *d_fred;               /* ngrid + 1: the faces (or edges), then the reduction */
    float *d_rad;                    /* nv contact half-thicknesses (model.h crad), or NULL */
    long long ne_tri;                /* the first rod edge (sipd_collide_view)       */
    int *d_cells;                    /* fcell, ecell                               */
    long long *d_cnt, *d_off;        /* max(nsv, nf, ne) + 1 each                  */
    gentries ent[3];                 /* unsorted entries; the face table; the edge table */
    int *d_vf, *d_ee;                /* candidates                                 */
    long long cap_vf, cap_ee, nvf, nee;
    void *d_tmp;                     /* cub scratch                                */
    size_t cap_tmp;
    int have;
    double margin;                   /* of the last run                            */
    /* the narrow phase on the device (sipd_cuda_broad_narrow) */
    unsigned char *d_was;            /* per candidate: a pair last time (hysteresis) */
    narrow_rec *d_rec;
    long long *d_kcnt, *d_koff;      /* per candidate: kept (0/1), its output slot */
    narrow_pair *d_np;
    long long cap_was, cap_rec, cap_k, cap_np;
    int *d_flag;                     /* sipd_cuda_broad_outside                     */
    narrow_pair *h_np;               /* host copies                                */
    sipd_contact_pair *h_pairs;
    size_t cap_hnp;
    long launches, syncs;            /* since create: our kernel launches (CUB's own not
                                        counted) and host-blocking copies / synchronisations */
};

/* 1 (after a message) when e is an error */
static int cu_failed(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    sipd_error("cuda collide: broad phase: %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return 1;
}
#define CUB(call, what)                                                                       \
    do {                                                                                      \
        if (cu_failed((call), what))                                                          \
            return SIPD_EFAIL;                                                                \
    } while (0)
/* a counted launch (g->launches) and a counted host-blocking call (g->syncs) */
#define GLAUNCH(g, kernel, grid, ...)                                                         \
    do {                                                                                      \
        SIPD_LAUNCH(kernel, grid, NT, 0, __VA_ARGS__);                                        \
        (g)->launches++;                                                                      \
    } while (0)
#define GSYNC(g, call, what)                                                                  \
    do {                                                                                      \
        (g)->syncs++;                                                                         \
        CUB(call, what);                                                                      \
    } while (0)
/* the same in sipd_cuda_broad_create, which cleans up at fail: */
#define CUBG(call, what)                                                                      \
    do {                                                                                      \
        if (cu_failed((call), what))                                                          \
            goto fail;                                                                        \
    } while (0)

static unsigned broad_blocks(long long n)
{
    long long nb = (n + NT - 1) / NT;
    return (unsigned)(nb < 1 ? 1 : nb > MAX_BLOCKS ? MAX_BLOCKS : nb);
}

/* *p (capacity *cap elements of size elem) holds at least n (contents not kept) */
static int dgrow(void **p, long long *cap, long long n, size_t elem, const char *what)
{
    long long nc;
    if (n <= *cap && *p)
        return SIPD_OK;
    nc = n + n / 2 + 16;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    CUB(cudaMalloc(p, (size_t)nc * elem), what);
    *cap = nc;
    return SIPD_OK;
}

/* t holds at least n entries (contents not kept) */
static int ent_reserve(gentries *t, long long n)
{
    long long ck = 0, cp = 0;
    if (n + 1 <= t->cap && t->key)
        return SIPD_OK;
    cudaFree(t->prim);
    t->prim = NULL;
    t->cap = 0;
    if (dgrow((void **)&t->key, &ck, n + 1, sizeof(uint64_t), "grid entries") != SIPD_OK ||
        dgrow((void **)&t->prim, &cp, ck, sizeof(int), "grid entries") != SIPD_OK)
        return SIPD_EFAIL;
    t->cap = ck;
    return SIPD_OK;
}

static int tmp_reserve(sipd_cuda_broad *g, size_t bytes)
{
    long long cap = (long long)g->cap_tmp;
    if (bytes <= g->cap_tmp && g->d_tmp)
        return SIPD_OK;
    if (dgrow(&g->d_tmp, &cap, (long long)bytes, 1, "cub scratch") != SIPD_OK)
        return SIPD_EFAIL;
    g->cap_tmp = (size_t)cap;
    return SIPD_OK;
}

/* off[0..n] = exclusive scan of cnt[0..n) (cnt[n] is set to 0 first); *total = off[n] */
static int scan_into(sipd_cuda_broad *g, long long *cnt, long long *off, long long n, long long *total)
{
    size_t bytes = 0;
    CUB(cudaMemset(cnt + n, 0, sizeof(long long)), "scan");
    CUB(cub::DeviceScan::ExclusiveSum(NULL, bytes, cnt, off, n + 1), "scan (size)");
    if (tmp_reserve(g, bytes) != SIPD_OK)
        return SIPD_EFAIL;
    CUB(cub::DeviceScan::ExclusiveSum(g->d_tmp, bytes, cnt, off, n + 1), "scan");
    GSYNC(g, cudaMemcpy(total, off + n, sizeof(long long), cudaMemcpyDeviceToHost), "scan (total)");
    return SIPD_OK;
}

static int scan_counts(sipd_cuda_broad *g, long long n, long long *total)
{
    return scan_into(g, g->d_cnt, g->d_off, n, total);
}

/* the sorted table of the faces (edges = 0: ent[1]) or of the edges (ent[2]) */
static int build_table(sipd_cuda_broad *g, int edges)
{
    long long n = edges ? g->b.ne : g->b.nf, E = 0;
    size_t bytes = 0;
    uint64_t *kout;
    int *pout;
    GLAUNCH(g, k_broad_cells, broad_blocks(n), g->b, edges, g->d_cnt);
    CUB(cudaGetLastError(), "cells");
    if (scan_counts(g, n, &E) != SIPD_OK)
        return SIPD_EFAIL;
    if (E >= (long long)INT_MAX) {
        sipd_error("cuda collide: broad phase: %lld grid entries (boxes far larger than the cells)", E);
        return SIPD_EFAIL;
    }
    if (ent_reserve(&g->ent[0], E) != SIPD_OK || ent_reserve(&g->ent[1 + edges], E) != SIPD_OK)
        return SIPD_EFAIL;
    GLAUNCH(g, k_broad_fill, broad_blocks(n), g->b, edges, g->d_off, g->ent[0].key, g->ent[0].prim);
    CUB(cudaGetLastError(), "fill");
    kout = g->ent[1 + edges].key;
    pout = g->ent[1 + edges].prim;
    CUB(cub::DeviceRadixSort::SortPairs(NULL, bytes, g->ent[0].key, kout, g->ent[0].prim, pout, E, 0,
                                        3 * BROAD_CELL_BITS), "sort (size)");
    if (tmp_reserve(g, bytes) != SIPD_OK)
        return SIPD_EFAIL;
    CUB(cub::DeviceRadixSort::SortPairs(g->d_tmp, bytes, g->ent[0].key, kout, g->ent[0].prim, pout, E, 0,
                                        3 * BROAD_CELL_BITS), "sort");
    if (edges) {
        g->b.ekey = kout;
        g->b.eprim = pout;
        g->b.neent = E;
    } else {
        g->b.fkey = kout;
        g->b.fprim = pout;
        g->b.nfent = E;
    }
    return SIPD_OK;
}

static int run_queries_gpu(sipd_cuda_broad *g, int vf)
{
    long long n = vf ? g->b.nsv : g->b.ne, total = 0;
    int **out = vf ? &g->d_vf : &g->d_ee;
    long long *cap = vf ? &g->cap_vf : &g->cap_ee;
    GLAUNCH(g, k_broad_query, broad_blocks(n), g->b, vf, NULL, g->d_cnt, NULL);
    CUB(cudaGetLastError(), "queries (count)");
    if (scan_counts(g, n, &total) != SIPD_OK)
        return SIPD_EFAIL;
    if (dgrow((void **)out, cap, 2 * total + 2, sizeof(int), "candidates") != SIPD_OK)
        return SIPD_EFAIL;
    GLAUNCH(g, k_broad_query, broad_blocks(n), g->b, vf, g->d_off, NULL, *out);
    CUB(cudaGetLastError(), "queries (write)");
    if (vf)
        g->nvf = total;
    else
        g->nee = total;
    return SIPD_OK;
}

extern "C" void sipd_cuda_broad_destroy(sipd_cuda_broad *g)
{
    if (!g)
        return;
    cudaFree(g->d_topo);
    cudaFree(g->d_fixed);
    cudaFree(g->d_excl);
    cudaFree(g->d_geo);
    cudaFree(g->d_fred);
    cudaFree(g->d_rad);
    cudaFree(g->d_cells);
    cudaFree(g->d_cnt);
    cudaFree(g->d_off);
    for (int i = 0; i < 3; i++) {
        cudaFree(g->ent[i].key);
        cudaFree(g->ent[i].prim);
    }
    cudaFree(g->d_vf);
    cudaFree(g->d_ee);
    cudaFree(g->d_tmp);
    cudaFree(g->d_was);
    cudaFree(g->d_rec);
    cudaFree(g->d_kcnt);
    cudaFree(g->d_koff);
    cudaFree(g->d_np);
    cudaFree(g->d_flag);
    free(g->h_np);
    free(g->h_pairs);
    free(g);
}


extern "C" int sipd_cuda_broad_create(sipd_cuda_broad **out, const sipd_collide *c)
{
    sipd_collide_view v;
    const sipd_model *m;
    sipd_cuda_broad *g;
    uint64_t *xvf = NULL, *xee = NULL;
    size_t nxvf = 0, nxee = 0, ntopo, nmax;
    int *d;

    *out = NULL;
    collide_candidate_arrays(c, &v);
    m = v.m;
    g = (sipd_cuda_broad *)calloc(1, sizeof *g);
    if (!g) {
        sipd_error("cuda collide: broad phase: out of host memory");
        return SIPD_EFAIL;
    }
    g->m = m;
    g->nv = m->nv;
    g->dhat = v.dhat;
    g->tiny = v.tiny;
    g->b.nf = m->nf;
    g->b.ne = v.nedges;
    g->b.nsv = v.nsv;
    g->b.self = v.self;
    g->ne_tri = v.ne_tri;
    if (v.self && collide_rest_excluded(m, v.dhat, &xvf, &nxvf, &xee, &nxee) != SIPD_OK)
        goto fail;
    ntopo = 3 * (size_t)m->nf + 2 * (size_t)v.nedges + (size_t)v.nsv + (size_t)m->nv;
    CUBG(cudaMalloc((void **)&g->d_topo, (ntopo + 1) * sizeof(int)), "cudaMalloc (surface)");
    d = g->d_topo;
    if (m->nf)
        CUBG(cudaMemcpy(d, m->tris, 3 * (size_t)m->nf * sizeof(int), cudaMemcpyHostToDevice), "upload (triangles)");
    g->b.tris = d;
    d += 3 * (size_t)m->nf;
    if (v.nedges)
        CUBG(cudaMemcpy(d, v.edges, 2 * (size_t)v.nedges * sizeof(int), cudaMemcpyHostToDevice), "upload (edges)");
    g->b.edges = d;
    d += 2 * (size_t)v.nedges;
    if (v.nsv)
        CUBG(cudaMemcpy(d, v.sv, (size_t)v.nsv * sizeof(int), cudaMemcpyHostToDevice), "upload (surface vertices)");
    g->b.sv = d;
    d += v.nsv;
    if (m->nv)
        CUBG(cudaMemcpy(d, m->body, (size_t)m->nv * sizeof(int), cudaMemcpyHostToDevice), "upload (bodies)");
    g->b.body = d;
    if (m->fixed && m->nv) {
        CUBG(cudaMalloc((void **)&g->d_fixed, (size_t)m->nv + 1), "cudaMalloc (fixed)");
        CUBG(cudaMemcpy(g->d_fixed, m->fixed, (size_t)m->nv, cudaMemcpyHostToDevice), "upload (fixed)");
        g->b.fixed = g->d_fixed;
    }
    CUBG(cudaMalloc((void **)&g->d_excl, (nxvf + nxee + 1) * sizeof(uint64_t)), "cudaMalloc (rest exclusions)");
    if (nxvf)
        CUBG(cudaMemcpy(g->d_excl, xvf, nxvf * sizeof(uint64_t), cudaMemcpyHostToDevice), "upload (rest exclusions)");
    if (nxee)
        CUBG(cudaMemcpy(g->d_excl + nxvf, xee, nxee * sizeof(uint64_t), cudaMemcpyHostToDevice),
            "upload (rest exclusions)");
    g->b.xvf = g->d_excl;
    g->b.nxvf = (long long)nxvf;
    g->b.xee = g->d_excl + nxvf;
    g->b.nxee = (long long)nxee;
    free(xvf);
    free(xee);
    xvf = xee = NULL;
    /* positions and boxes: x0, y1 (nv*3 each), vlo, vhi (nsv*3), flo, fhi (nf*3), elo, ehi (ne*3) */
    CUBG(cudaMalloc((void **)&g->d_geo,
                   (6 * (size_t)m->nv + 6 * (size_t)v.nsv + 6 * (size_t)m->nf + 6 * (size_t)v.nedges + 1) *
                       sizeof(double)),
        "cudaMalloc (boxes)");
    g->b.x0 = g->d_geo;
    g->b.y1 = g->b.x0 + 3 * (size_t)m->nv;
    g->b.vlo = g->d_geo + 6 * (size_t)m->nv;
    g->b.vhi = g->b.vlo + 3 * (size_t)v.nsv;
    g->b.flo = g->b.vhi + 3 * (size_t)v.nsv;
    g->b.fhi = g->b.flo + 3 * (size_t)m->nf;
    g->b.elo = g->b.fhi + 3 * (size_t)m->nf;
    g->b.ehi = g->b.elo + 3 * (size_t)v.nedges;
    CUBG(cudaMalloc((void **)&g->d_fred, ((size_t)(m->nf ? m->nf : v.nedges) + 1) * sizeof(broad_red)),
         "cudaMalloc (grid)");
    g->b.fred = g->d_fred;
    if (m->crad) {   /* the narrow phase's thickness offsets (distance.h dist_pair_offset) */
        float *hr = (float *)malloc(((size_t)m->nv + 1) * sizeof(float));
        size_t i;
        if (!hr) {
            sipd_error("cuda collide: broad phase: out of host memory");
            goto fail;
        }
        for (i = 0; i < (size_t)m->nv; i++) hr[i] = (float)m->crad[i];
        if (cudaMalloc((void **)&g->d_rad, ((size_t)m->nv + 1) * sizeof(float)) != cudaSuccess ||
            cudaMemcpy(g->d_rad, hr, (size_t)m->nv * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
            free(hr);
            sipd_error("cuda collide: broad phase: upload (contact thickness) failed");
            goto fail;
        }
        free(hr);
    }
    CUBG(cudaMalloc((void **)&g->d_cells, (3 * (size_t)m->nf + 3 * (size_t)v.nedges + 1) * sizeof(int)),
        "cudaMalloc (cells)");
    g->b.fcell = g->d_cells;
    g->b.ecell = g->d_cells + 3 * (size_t)m->nf;
    nmax = (size_t)v.nsv;
    if ((size_t)m->nf > nmax) nmax = (size_t)m->nf;
    if ((size_t)v.nedges > nmax) nmax = (size_t)v.nedges;
    CUBG(cudaMalloc((void **)&g->d_cnt, (nmax + 1) * sizeof(long long)), "cudaMalloc (counts)");
    CUBG(cudaMalloc((void **)&g->d_off, (nmax + 1) * sizeof(long long)), "cudaMalloc (offsets)");
    CUBG(cudaMalloc((void **)&g->d_flag, sizeof(int)), "cudaMalloc (flag)");
    *out = g;
    return SIPD_OK;
fail:
    free(xvf);
    free(xee);
    sipd_cuda_broad_destroy(g);
    return SIPD_EFAIL;
}


/* The broad phase on g->b.x0, g->b.y1 (already on the device); see the top. */
static int broad_pipeline(sipd_cuda_broad *g)
{
    size_t bytes = 0;
    broad_red init, red;
    int k, ng = gbroad_ngrid(&g->b);
    GLAUNCH(g, k_broad_boxes, broad_blocks((long long)g->b.nsv + g->b.nf + g->b.ne), g->b);
    CUB(cudaGetLastError(), "boxes");
    for (k = 0; k < 3; k++) {
        init.lo[k] = INFINITY;
        init.hi[k] = -INFINITY;
    }
    init.ext = 0;
    CUB(cub::DeviceReduce::Reduce(NULL, bytes, g->d_fred, g->d_fred + ng, ng, red_join(), init), "grid (size)");
    if (tmp_reserve(g, bytes) != SIPD_OK)
        return SIPD_EFAIL;
    CUB(cub::DeviceReduce::Reduce(g->d_tmp, bytes, g->d_fred, g->d_fred + ng, ng, red_join(), init), "grid");
    GSYNC(g, cudaMemcpy(&red, g->d_fred + ng, sizeof red, cudaMemcpyDeviceToHost), "grid (download)");
    if (!broad_grid_setup(&g->b.g, red, ng)) {
        sipd_error("cuda collide: broad phase: non-finite positions");
        return SIPD_EFAIL;
    }
    if (build_table(g, 0) != SIPD_OK || build_table(g, 1) != SIPD_OK || run_queries_gpu(g, 1) != SIPD_OK ||
        run_queries_gpu(g, 0) != SIPD_OK)
        return SIPD_EFAIL;
    /* new candidates: no history (the first narrow phase applies the strict rule) */
    if (dgrow((void **)&g->d_was, &g->cap_was, g->nvf + g->nee + 1, 1, "hysteresis flags") != SIPD_OK)
        return SIPD_EFAIL;
    CUB(cudaMemset(g->d_was, 0, (size_t)(g->nvf + g->nee + 1)), "hysteresis flags");
    GSYNC(g, cudaDeviceSynchronize(), "broad phase kernels");
    g->have = 1;
    return SIPD_OK;
}

/* 1 when the model has nothing to detect (no triangles or no surface vertices): then every run
 * has no candidates */
static int broad_empty(sipd_cuda_broad *g, double margin)
{
    g->have = 0;
    g->nvf = g->nee = 0;
    g->margin = margin;
    g->b.r = margin + 0.5 * g->dhat + g->m->crad_max;
    if ((g->b.nf == 0 && g->b.ne == 0) || g->b.nsv == 0) {
        g->have = 1;
        return 1;
    }
    return 0;
}

extern "C" int sipd_cuda_broad_run(sipd_cuda_broad *g, const double *x0, const double *y1, double margin)
{
    size_t n3 = 3 * (size_t)g->nv;
    if (broad_empty(g, margin))
        return SIPD_OK;
    GSYNC(g, cudaMemcpy((void *)g->b.x0, x0, n3 * sizeof(double), cudaMemcpyHostToDevice), "upload (x0)");
    GSYNC(g, cudaMemcpy((void *)g->b.y1, y1, n3 * sizeof(double), cudaMemcpyHostToDevice), "upload (y1)");
    return broad_pipeline(g);
}

__global__ void __launch_bounds__(NT) k_to_double(const float *a, const float *b, double *da, double *db, long long n)
{
    long long k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < n; k += (long long)gridDim.x * NT) {
        da[k] = (double)a[k];
        db[k] = (double)b[k];
    }
}

extern "C" int sipd_cuda_broad_run_device(sipd_cuda_broad *g, const float *d_x0, const float *d_y1, double margin)
{
    long long n3 = 3 * (long long)g->nv;
    if (broad_empty(g, margin))
        return SIPD_OK;
    GLAUNCH(g, k_to_double, broad_blocks(n3), d_x0, d_y1, (double *)g->b.x0, (double *)g->b.y1, n3);
    CUB(cudaGetLastError(), "positions to double");
    return broad_pipeline(g);
}

/* flag ← 1 when a surface vertex of y lies more than margin outside its box (collide_outside) */
__global__ void __launch_bounds__(NT) k_broad_outside(gbroad b, const float *y, double margin, int *flag)
{
    long long k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < b.nsv; k += (long long)gridDim.x * NT)
        if (gbroad_outside(&b, y, (int)k) > margin)
            *flag = 1;   /* every writer writes the same value */
}

extern "C" int sipd_cuda_broad_outside(sipd_cuda_broad *g, const float *d_y, int *out)
{
    int h = 0;
    *out = 0;
    if (!g->have) {
        *out = (g->b.nf > 0 || g->b.ne > 0) && g->b.nsv > 0;
        return SIPD_OK;
    }
    if ((g->b.nf == 0 && g->b.ne == 0) || g->b.nsv == 0)
        return SIPD_OK;
    CUB(cudaMemset(g->d_flag, 0, sizeof(int)), "outside");
    GLAUNCH(g, k_broad_outside, broad_blocks(g->b.nsv), g->b, d_y, g->margin, g->d_flag);
    CUB(cudaGetLastError(), "outside");
    GSYNC(g, cudaMemcpy(&h, g->d_flag, sizeof(int), cudaMemcpyDeviceToHost), "outside (download)");
    *out = h != 0;
    return SIPD_OK;
}

__global__ void __launch_bounds__(NT) k_narrow_kept(const narrow_rec *rec, long long n, long long *cnt)
{
    long long k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < n; k += (long long)gridDim.x * NT) cnt[k] = rec[k].keep != 0;
}

__global__ void __launch_bounds__(NT) k_narrow_scatter(narrow_in in, const narrow_rec *rec, const long long *off,
                                                       narrow_pair *out)
{
    long long n = in.nvf + in.nee, k;
    for (k = (long long)blockIdx.x * NT + threadIdx.x; k < n; k += (long long)gridDim.x * NT)
        if (rec[k].keep)
            narrow_pair_of(&in, k, rec + k, out + off[k]);
}

extern "C" int sipd_cuda_broad_narrow(sipd_cuda_broad *g, const float *d_x0, const float *d_y,
                                      const sipd_contact_pair **pairs, int *npairs)
{
    long long nc = g->nvf + g->nee, total = 0, k;
    narrow_in in;
    *pairs = g->h_pairs;
    *npairs = 0;
    if (nc == 0)
        return SIPD_OK;
    if (dgrow((void **)&g->d_rec, &g->cap_rec, nc, sizeof(narrow_rec), "narrow records") != SIPD_OK)
        return SIPD_EFAIL;
    if (nc + 1 > g->cap_k || !g->d_koff) {
        long long c2 = 0;
        cudaFree(g->d_koff);
        g->d_koff = NULL;
        if (dgrow((void **)&g->d_kcnt, &g->cap_k, nc + 1, sizeof(long long), "narrow counts") != SIPD_OK ||
            dgrow((void **)&g->d_koff, &c2, g->cap_k, sizeof(long long), "narrow offsets") != SIPD_OK)
            return SIPD_EFAIL;
    }
    memset(&in, 0, sizeof in);
    in.vf = g->d_vf;
    in.ee = g->d_ee;
    in.tris = g->b.tris;
    in.edges = g->b.edges;
    in.x0 = d_x0;
    in.y = d_y;
    in.nvf = g->nvf;
    in.nee = g->nee;
    in.tiny = (float)g->tiny;
    in.dhat = (float)g->dhat;
    in.was = g->d_was;
    in.rad = g->d_rad;
    in.ne_tri = g->ne_tri;
    GLAUNCH(g, k_collide_narrow, broad_blocks(nc), in, g->d_rec);
    CUB(cudaGetLastError(), "narrow phase");
    GLAUNCH(g, k_narrow_kept, broad_blocks(nc), g->d_rec, nc, g->d_kcnt);
    CUB(cudaGetLastError(), "narrow phase (count)");
    if (scan_into(g, g->d_kcnt, g->d_koff, nc, &total) != SIPD_OK)
        return SIPD_EFAIL;
    if (total > (long long)INT_MAX) {
        sipd_error("cuda collide: narrow phase: %lld contact pairs", total);
        return SIPD_EFAIL;
    }
    if (dgrow((void **)&g->d_np, &g->cap_np, total + 1, sizeof(narrow_pair), "contact pairs") != SIPD_OK)
        return SIPD_EFAIL;
    GLAUNCH(g, k_narrow_scatter, broad_blocks(nc), in, g->d_rec, g->d_koff, g->d_np);
    CUB(cudaGetLastError(), "narrow phase (scatter)");
    if ((size_t)total + 1 > g->cap_hnp) {
        size_t cap = (size_t)total + (size_t)total / 2 + 16;
        narrow_pair *a = (narrow_pair *)realloc(g->h_np, cap * sizeof *a);
        sipd_contact_pair *b;
        if (a)
            g->h_np = a;
        b = (sipd_contact_pair *)realloc(g->h_pairs, cap * sizeof *b);
        if (b)
            g->h_pairs = b;
        if (!a || !b) {
            sipd_error("cuda collide: narrow phase: out of host memory for %lld contact pairs", total);
            return SIPD_EFAIL;
        }
        g->cap_hnp = cap;
    }
    if (total)
        GSYNC(g, cudaMemcpy(g->h_np, g->d_np, (size_t)total * sizeof(narrow_pair), cudaMemcpyDeviceToHost),
              "narrow phase (download)");
    for (k = 0; k < total; k++) narrow_pair_out(g->h_np + k, g->h_pairs + k);
    *pairs = g->h_pairs;
    *npairs = (int)total;
    return SIPD_OK;
}

extern "C" void sipd_cuda_broad_count(const sipd_cuda_broad *g, long *nvf, long *nee)
{
    if (nvf) *nvf = (long)g->nvf;
    if (nee) *nee = (long)g->nee;
}

extern "C" void sipd_cuda_broad_counters(const sipd_cuda_broad *g, long *launches, long *syncs)
{
    *launches = g->launches;
    *syncs = g->syncs;
}

extern "C" int sipd_cuda_broad_candidates(const sipd_cuda_broad *g, int *vf, int *ee)
{
    if (g->nvf)
        CUB(cudaMemcpy(vf, g->d_vf, 2 * (size_t)g->nvf * sizeof(int), cudaMemcpyDeviceToHost), "download (VF)");
    if (g->nee)
        CUB(cudaMemcpy(ee, g->d_ee, 2 * (size_t)g->nee * sizeof(int), cudaMemcpyDeviceToHost), "download (EE)");
    return SIPD_OK;
}
