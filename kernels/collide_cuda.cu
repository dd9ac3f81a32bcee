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
    nblocks = ((long long)nc + NT - 1) / NT;
    if (nblocks > MAX_BLOCKS)
        nblocks = MAX_BLOCKS;
    k_collide_narrow<<<(unsigned)nblocks, NT>>>(in, d_rec);
    CUC(cudaGetLastError());          /* launch configuration errors */
    CUC(cudaDeviceSynchronize());     /* faults while the kernel ran */
    CUC(cudaMemcpy(hrec, d_rec, nc * sizeof(narrow_rec), cudaMemcpyDeviceToHost));

    rc = narrow_compact(&v, hrec, out, cap, npairs);
done:
    /* cudaFree(NULL) is a no-op; a failure to free is reported but does not hide an earlier one */
    {
        void *dp[7];
        int i;
        dp[0] = d_x0; dp[1] = d_y; dp[2] = d_vf; dp[3] = d_ee; dp[4] = d_tris; dp[5] = d_edges; dp[6] = d_rec;
        for (i = 0; i < 7; i++) {
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
