/* gpu_collide_emu.c — host stand-ins for the GPU collision code of kernels/collide_cuda.cu, for
 * SIPD_TEST_GPU_SELFTEST=1 of tests/gpu/test_gpu_collide.c:
 *   emu_collide_narrow: sipd_cuda_collide_narrow's float32 per-candidate code and compaction
 *     (kernels/collide_narrow.h) in a host loop instead of a kernel;
 *   emu_broad: the broad phase of sipd_cuda_broad_run — the same per-item functions
 *     (kernels/collide_broad.h) in host loops, with qsort for cub::DeviceRadixSort (sorting by
 *     (key, primitive) is what the stable radix sort of entries generated in primitive order
 *     gives) and serial sums for the scans and the grid reduction.
 * So the test's comparisons and the per-item code are checked without a device; the CUDA calls,
 * the launches and CUB are not.  This file is compiled in float (sipd_real = float); the broad
 * phase is double-only; the test itself is double.
 */
#ifndef SIPD_REAL_FLOAT
#define SIPD_REAL_FLOAT 1
#endif
#include <stdlib.h>

#include "../../kernels/collide_broad.h"
#include "../../kernels/collide_narrow.h"

int emu_collide_narrow(const sipd_collide *c, const double *x0, const double *y, sipd_contact_pair *out, int cap,
                       int *npairs);

/* the model's contact half-thicknesses as floats (what the device gets), or NULL when it has none;
 * rebuilt at every call (valid until the next) */
static const float *emu_rad(const sipd_model *m)
{
    static float *r;
    int i;
    free(r);
    r = NULL;
    if (!m->crad || !(r = malloc(((size_t)m->nv + 1) * sizeof *r)))
        return NULL;
    for (i = 0; i < m->nv; i++) r[i] = (float)m->crad[i];
    return r;
}

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
    memset(&in, 0, sizeof in);
    in.vf = v.vf;
    in.ee = v.ee;
    in.tris = v.m->tris;
    in.edges = v.edges;
    in.x0 = fx0;
    in.y = fy;
    in.rad = emu_rad(v.m);
    in.ne_tri = v.ne_tri;
    in.nvf = (long long)v.nvf;
    in.nee = (long long)v.nee;
    in.tiny = (float)v.tiny;
    in.dhat = (float)v.dhat;
    in.was = NULL;   /* no history: the strict rule */
    for (k = 0; k < (long long)nc; k++) narrow_rec_of(&in, k, rec + k);
    rc = narrow_compact(&v, rec, out, cap, npairs);
    free(fx0);
    free(fy);
    free(rec);
    return rc;
}

/* ---------------------------------------------------------------- broad phase */

typedef struct {
    uint64_t key;
    int prim;
} emu_entry;

static int cmp_entry(const void *a, const void *b)
{
    const emu_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->prim > y->prim) - (x->prim < y->prim);
}

/* the sorted table of n boxes (upper corners hi, lowest cells cell): *key, *prim, *nent */
static int emu_table(gbroad *b, int n, const double *lo, const double *hi, int *cell, uint64_t **key, int **prim,
                     long long *nent)
{
    long long *off = malloc(((size_t)n + 1) * sizeof *off), E, i;
    emu_entry *ent = NULL;
    int j;
    *key = NULL;
    *prim = NULL;
    if (!off)
        return SIPD_EFAIL;
    off[0] = 0;
    for (j = 0; j < n; j++) {
        gbroad_cells(b, lo, cell, j);
        off[j + 1] = off[j] + gbroad_count(b, hi, cell, j);
    }
    E = off[n];
    *key = malloc(((size_t)E + 1) * sizeof **key);
    *prim = malloc(((size_t)E + 1) * sizeof **prim);
    ent = malloc(((size_t)E + 1) * sizeof *ent);
    if (!*key || !*prim || !ent) {
        free(off);
        free(ent);
        return SIPD_EFAIL;
    }
    for (j = 0; j < n; j++) gbroad_fill(b, hi, cell, j, off[j], *key, *prim);
    for (i = 0; i < E; i++) {
        ent[i].key = (*key)[i];
        ent[i].prim = (*prim)[i];
    }
    qsort(ent, (size_t)E, sizeof *ent, cmp_entry);
    for (i = 0; i < E; i++) {
        (*key)[i] = ent[i].key;
        (*prim)[i] = ent[i].prim;
    }
    *nent = E;
    free(ent);
    free(off);
    return SIPD_OK;
}

/* the candidates of the n queries of one kind: counted, scanned, written */
static int emu_queries(gbroad *b, int vf, int n, int **out, size_t *nout)
{
    long long *off = malloc(((size_t)n + 1) * sizeof *off);
    int j;
    *out = NULL;
    if (!off)
        return SIPD_EFAIL;
    off[0] = 0;
    for (j = 0; j < n; j++) off[j + 1] = off[j] + gbroad_query(b, vf, j, NULL);
    *out = malloc(((size_t)off[n] + 1) * 2 * sizeof **out);
    if (!*out) {
        free(off);
        return SIPD_EFAIL;
    }
    for (j = 0; j < n; j++) gbroad_query(b, vf, j, *out + 2 * off[j]);
    *nout = (size_t)off[n];
    free(off);
    return SIPD_OK;
}

int emu_broad(const sipd_collide *c, const double *x0, const double *y1, double margin, int **vf, size_t *nvf,
              int **ee, size_t *nee);

int emu_broad(const sipd_collide *c, const double *x0, const double *y1, double margin, int **vf, size_t *nvf,
              int **ee, size_t *nee)
{
    sipd_collide_view v;
    gbroad b;
    uint64_t *xvf = NULL, *xee = NULL, *fkey = NULL, *ekey = NULL;
    int *fprim = NULL, *eprim = NULL;
    size_t nxvf = 0, nxee = 0;
    broad_red red;
    int i, k, rc = SIPD_EFAIL;
    double *geo = NULL;

    *vf = *ee = NULL;
    *nvf = *nee = 0;
    collide_candidate_arrays(c, &v);
    memset(&b, 0, sizeof b);
    b.tris = v.m->tris;
    b.edges = v.edges;
    b.sv = v.sv;
    b.body = v.m->body;
    b.fixed = v.m->fixed;
    b.nf = v.m->nf;
    b.ne = v.nedges;
    b.nsv = v.nsv;
    b.self = v.self;
    if (v.self && collide_rest_excluded(v.m, v.dhat, &xvf, &nxvf, &xee, &nxee) != SIPD_OK)
        return SIPD_EFAIL;
    b.xvf = xvf;
    b.nxvf = (long long)nxvf;
    b.xee = xee;
    b.nxee = (long long)nxee;
    b.x0 = x0;
    b.y1 = y1;
    b.r = margin + 0.5 * v.dhat + v.m->crad_max;
    geo = malloc((6 * (size_t)b.nsv + 6 * (size_t)b.nf + 6 * (size_t)b.ne + 1) * sizeof *geo);
    b.fred = malloc(((size_t)gbroad_ngrid(&b) + 1) * sizeof *b.fred);
    b.fcell = malloc((3 * (size_t)b.nf + 1) * sizeof *b.fcell);
    b.ecell = malloc((3 * (size_t)b.ne + 1) * sizeof *b.ecell);
    if (!geo || !b.fred || !b.fcell || !b.ecell)
        goto done;
    b.vlo = geo;
    b.vhi = b.vlo + 3 * (size_t)b.nsv;
    b.flo = b.vhi + 3 * (size_t)b.nsv;
    b.fhi = b.flo + 3 * (size_t)b.nf;
    b.elo = b.fhi + 3 * (size_t)b.nf;
    b.ehi = b.elo + 3 * (size_t)b.ne;
    if ((b.nf == 0 && b.ne == 0) || b.nsv == 0) {
        rc = SIPD_OK;
        goto done;
    }
    for (i = 0; i < b.nsv; i++) gbroad_vbox(&b, i);
    for (i = 0; i < b.nf; i++) gbroad_fbox(&b, i);
    for (i = 0; i < b.ne; i++) gbroad_ebox(&b, i);
    for (k = 0; k < 3; k++) {
        red.lo[k] = INFINITY;
        red.hi[k] = -INFINITY;
    }
    red.ext = 0;
    for (i = 0; i < gbroad_ngrid(&b); i++) red = broad_red_join(red, b.fred[i]);
    if (!broad_grid_setup(&b.g, red, gbroad_ngrid(&b)))
        goto done;
    if (emu_table(&b, b.nf, b.flo, b.fhi, b.fcell, &fkey, &fprim, &b.nfent) != SIPD_OK ||
        emu_table(&b, b.ne, b.elo, b.ehi, b.ecell, &ekey, &eprim, &b.neent) != SIPD_OK)
        goto done;
    b.fkey = fkey;
    b.fprim = fprim;
    b.ekey = ekey;
    b.eprim = eprim;
    if (emu_queries(&b, 1, b.nsv, vf, nvf) != SIPD_OK || emu_queries(&b, 0, b.ne, ee, nee) != SIPD_OK)
        goto done;
    rc = SIPD_OK;
done:
    if (rc != SIPD_OK) {
        free(*vf);
        free(*ee);
        *vf = *ee = NULL;
        *nvf = *nee = 0;
        sipd_error("emu collide: broad phase failed");
    }
    free(xvf);
    free(xee);
    free(fkey);
    free(fprim);
    free(ekey);
    free(eprim);
    free(geo);
    free(b.fred);
    free(b.fcell);
    free(b.ecell);
    return rc;
}

/* ---------------------------------------------------------------- narrow phase with hysteresis */

int emu_broad_narrow(const sipd_collide *c, const int *vf, size_t nvf, const int *ee, size_t nee, unsigned char *was,
                     const float *x0, const float *y, sipd_contact_pair *out, int *npairs);

/* sipd_cuda_broad_narrow's per-candidate code (narrow_rec_of with the hysteresis flags was[],
 * narrow_pair_of, narrow_pair_out) in a host loop; the scan and scatter become an append in
 * candidate order, which is where the scatter puts them.  out: room for nvf + nee pairs. */
int emu_broad_narrow(const sipd_collide *c, const int *vf, size_t nvf, const int *ee, size_t nee, unsigned char *was,
                     const float *x0, const float *y, sipd_contact_pair *out, int *npairs)
{
    sipd_collide_view v;
    narrow_in in;
    long long k;
    int n = 0;
    collide_candidate_arrays(c, &v);
    memset(&in, 0, sizeof in);
    in.vf = vf;
    in.ee = ee;
    in.tris = v.m->tris;
    in.edges = v.edges;
    in.x0 = x0;
    in.y = y;
    in.nvf = (long long)nvf;
    in.nee = (long long)nee;
    in.tiny = (float)v.tiny;
    in.dhat = (float)v.dhat;
    in.was = was;
    in.rad = emu_rad(v.m);
    in.ne_tri = v.ne_tri;
    for (k = 0; k < (long long)(nvf + nee); k++) {
        narrow_rec r;
        narrow_rec_of(&in, k, &r);
        if (r.keep) {
            narrow_pair q;
            narrow_pair_of(&in, k, &r, &q);
            narrow_pair_out(&q, out + n++);
        }
    }
    *npairs = n;
    return SIPD_OK;
}
