/* gpu_collide_emu.c — a host stand-in for sipd_cuda_collide_narrow (kernels/collide_cuda.cu),
 * for SIPD_TEST_GPU_SELFTEST=1 of tests/test_gpu_collide.c: the same float32 per-candidate code
 * and compaction (kernels/collide_narrow.h) in a host loop instead of a kernel, so the test's
 * comparison logic and tolerances are checked against real float32 results without a device.
 * It does not exercise the CUDA calls or the kernel launch.  This file is compiled in float
 * (sipd_real = float); the test itself in double.
 */
#ifndef SIPD_REAL_FLOAT
#define SIPD_REAL_FLOAT 1
#endif
#include <stdlib.h>

#include "../kernels/collide_narrow.h"

int emu_collide_narrow(const sipd_collide *c, const double *x0, const double *y, sipd_contact_pair *out, int cap,
                       int *npairs);

int emu_collide_narrow(const sipd_collide *c, const double *x0, const double *y, sipd_contact_pair *out, int cap,
                       int *npairs)
{
    sipd_collide_view v;
    narrow_in in;
    size_t nc, npos, i;
    long long k;
    float *fx0, *fy;
    narrow_rec *rec;
    int rc;

    *npairs = 0;
    collide_candidate_arrays(c, &v);
    nc = v.nvf + v.nee;
    if (nc == 0)
        return SIPD_OK;
    npos = (size_t)v.m->nv * 3;
    fx0 = malloc(npos * sizeof *fx0);
    fy = malloc(npos * sizeof *fy);
    rec = malloc(nc * sizeof *rec);
    if (!fx0 || !fy || !rec) {
        free(fx0);
        free(fy);
        free(rec);
        sipd_error("emu collide: out of memory");
        return SIPD_EFAIL;
    }
    for (i = 0; i < npos; i++) {
        fx0[i] = (float)x0[i];
        fy[i] = (float)y[i];
    }
    in.vf = v.vf;
    in.ee = v.ee;
    in.tris = v.m->tris;
    in.edges = v.edges;
    in.x0 = fx0;
    in.y = fy;
    in.nvf = (long long)v.nvf;
    in.nee = (long long)v.nee;
    in.tiny = (float)v.tiny;
    in.dhat = (float)v.dhat;
    for (k = 0; k < (long long)nc; k++) narrow_rec_of(&in, k, rec + k);
    rc = narrow_compact(&v, rec, out, cap, npairs);
    free(fx0);
    free(fy);
    free(rec);
    return rc;
}
