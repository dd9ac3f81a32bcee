/* collide_broad.h — the broad phase of src/collide.h as per-item functions for the GPU: one call
 * per surface vertex, face or edge, so kernels/collide_cuda.cu runs them one thread per item and
 * the host stand-in of tests/gpu/test_gpu_collide.c (tests/gpu/gpu_collide_emu.c) runs the same calls in
 * loops.  Everything in double; the grid, the boxes and the reporting cell are those of
 * src/collide.c (src/physics/broad.h), so the candidates are the same set.
 *
 * The grid table is sorted instead of hashed: every face (edge) box gives one entry per cell it
 * overlaps, (cell key, primitive), and the entries are sorted by key, stably (a primitive's
 * entries are generated in primitive order, so a cell lists its primitives in index order).
 * A query finds a cell's run of entries by binary search.  The candidates of a query come out
 * in src/collide.c's order (cells z-y-x, then primitives ascending); queries are counted first,
 * then an exclusive scan of the counts gives each query its output offset, so the whole list is
 * in collide.c's order: VF by surface vertex, EE by first edge.  (Only if the two sides pick
 * different cell sizes h — a sum in a different order can round differently — can the order
 * within one query differ; the set cannot.)
 *
 * Exclusions, as src/collide.c's: pairs sharing a vertex; pairs whose vertices are all fixed;
 * within one body, every pair when self = 0, and with self = 1 the pairs closer than d̂ in the
 * rest shape — looked up (binary search) in the sorted key lists of collide_rest_excluded.
 */
#ifndef SIPD_KERNELS_COLLIDE_BROAD_H
#define SIPD_KERNELS_COLLIDE_BROAD_H

#include <stdint.h>

#include "physics/broad.h"

/* Inputs and arrays of one broad phase; on the device every pointer is a device pointer. */
typedef struct {
    /* the model's surface (src/collide.c's numbering) */
    const int *tris;              /* nf*3                                              */
    const int *edges;             /* ne*2, lo < hi                                     */
    const int *sv;                /* nsv surface vertices (model indices, ascending)   */
    const int *body;              /* per model vertex                                  */
    const unsigned char *fixed;   /* per model vertex, or NULL                          */
    const uint64_t *xvf, *xee;    /* collide_rest_excluded's sorted keys (self = 1)     */
    long long nxvf, nxee;
    int nf, ne, nsv, self;
    /* this broad phase */
    const double *x0, *y1;        /* nv*3                                               */
    double r;                     /* box inflation: margin + d̂/2 + crad_max (model.h)  */
    double *vlo, *vhi;            /* nsv*3, not inflated                               */
    double *flo, *fhi, *elo, *ehi;
    broad_red *fred;              /* gbroad_ngrid: each face (or edge) box as a grid
                                     reduction item                                     */
    int *fcell, *ecell;           /* lowest cell of each box (nf*3, ne*3)              */
    broad_grid g;
    /* the sorted tables */
    const uint64_t *fkey, *ekey;
    const int *fprim, *eprim;
    long long nfent, neent;
} gbroad;

SIPD_HD void gbroad_vbox(const gbroad *b, int s)
{
    broad_box(b->x0, b->y1, b->sv + s, 1, 0, b->vlo + 3 * s, b->vhi + 3 * s, 0);
}

SIPD_HD void gbroad_fbox(const gbroad *b, int f)
{
    broad_red *q = b->fred + f;
    int k;
    broad_box(b->x0, b->y1, b->tris + 3 * f, 3, b->r, b->flo + 3 * f, b->fhi + 3 * f, &q->ext);
    for (k = 0; k < 3; k++) {
        q->lo[k] = b->flo[3 * f + k];
        q->hi[k] = b->fhi[3 * f + k];
    }
}

/* edge e's box; in a model without faces (rods only) the edge boxes make the grid, as in
 * src/collide.c: then also fred[e] */
SIPD_HD void gbroad_ebox(const gbroad *b, int e)
{
    double ext;
    int k;
    broad_box(b->x0, b->y1, b->edges + 2 * e, 2, b->r, b->elo + 3 * e, b->ehi + 3 * e, &ext);
    if (b->nf == 0) {
        broad_red *q = b->fred + e;
        q->ext = ext;
        for (k = 0; k < 3; k++) {
            q->lo[k] = b->elo[3 * e + k];
            q->hi[k] = b->ehi[3 * e + k];
        }
    }
}

/* the number of boxes that make the grid: the faces, or the edges of a model without faces */
SIPD_HD int gbroad_ngrid(const gbroad *b) { return b->nf ? b->nf : b->ne; }

/* lowest cells of box i (lo: the boxes' lower corners, cell: out) */
SIPD_HD void gbroad_cells(const gbroad *b, const double *lo, int *cell, int i)
{
    int k;
    for (k = 0; k < 3; k++) cell[3 * i + k] = broad_cell(&b->g, lo[3 * i + k], k);
}

/* number of cells box i overlaps */
SIPD_HD long long gbroad_count(const gbroad *b, const double *hi, const int *cell, int i)
{
    long long n = 1;
    int k;
    for (k = 0; k < 3; k++) n *= broad_cell(&b->g, hi[3 * i + k], k) - cell[3 * i + k] + 1;
    return n;
}

/* the entries of box i, from offset off, cells in z-y-x order */
SIPD_HD void gbroad_fill(const gbroad *b, const double *hi, const int *cell, int i, long long off, uint64_t *key,
                         int *prim)
{
    int c1[3], x, y, z, k;
    const int *c0 = cell + 3 * i;
    for (k = 0; k < 3; k++) c1[k] = broad_cell(&b->g, hi[3 * i + k], k);
    for (z = c0[2]; z <= c1[2]; z++)
        for (y = c0[1]; y <= c1[1]; y++)
            for (x = c0[0]; x <= c1[0]; x++) {
                key[off] = broad_key(x, y, z);
                prim[off] = i;
                off++;
            }
}

/* first index in sorted a[0..n) with a[i] >= x */
SIPD_HD long long gbroad_lower(const uint64_t *a, long long n, uint64_t x)
{
    long long lo = 0, hi = n;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

SIPD_HD int gbroad_listed(const uint64_t *a, long long n, int p, int q)
{
    uint64_t x = (uint64_t)(uint32_t)p << 32 | (uint32_t)q;
    long long i = gbroad_lower(a, n, x);
    return i < n && a[i] == x;
}

SIPD_HD int gbroad_fixed(const gbroad *b, int v) { return b->fixed && b->fixed[v]; }

SIPD_HD int gbroad_vf_excluded(const gbroad *b, int v, int f)
{
    const int *t = b->tris + 3 * f;
    if (v == t[0] || v == t[1] || v == t[2])
        return 1;
    if (gbroad_fixed(b, v) && gbroad_fixed(b, t[0]) && gbroad_fixed(b, t[1]) && gbroad_fixed(b, t[2]))
        return 1;
    if (b->body[v] == b->body[t[0]])
        return !b->self || gbroad_listed(b->xvf, b->nxvf, v, f);
    return 0;
}

SIPD_HD int gbroad_ee_excluded(const gbroad *b, int i, int j)
{
    int a0 = b->edges[2 * i], a1 = b->edges[2 * i + 1], b0 = b->edges[2 * j], b1 = b->edges[2 * j + 1];
    if (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1)
        return 1;
    if (gbroad_fixed(b, a0) && gbroad_fixed(b, a1) && gbroad_fixed(b, b0) && gbroad_fixed(b, b1))
        return 1;
    if (b->body[a0] == b->body[b0])
        return !b->self || gbroad_listed(b->xee, b->nxee, i, j);
    return 0;
}

/* how far surface vertex s of y (float xyz triples) lies outside its box (collide_outside) */
SIPD_HD double gbroad_outside(const gbroad *b, const float *y, int s)
{
    double d = 0;
    int k, v = b->sv[s];
    for (k = 0; k < 3; k++) {
        double p = (double)y[3 * (size_t)v + k];
        d = b->vlo[3 * s + k] - p > d ? b->vlo[3 * s + k] - p : d;
        d = p - b->vhi[3 * s + k] > d ? p - b->vhi[3 * s + k] : d;
    }
    return d;
}

/* The candidates of one query: VF (vf = 1) of surface vertex s = i, or EE of edge i with the
 * edges j > i.  Returns their number; writes them as (a, b) int pairs to out when out != NULL
 * (in src/collide.c's order). */
SIPD_HD int gbroad_query(const gbroad *b, int vf, int i, int *out)
{
    double lo[3], hi[3];
    int q0[3], q1[3], x, y, z, k, n = 0, a = vf ? b->sv[i] : i;
    const uint64_t *key = vf ? b->fkey : b->ekey;
    const int *prim = vf ? b->fprim : b->eprim, *pcell = vf ? b->fcell : b->ecell;
    const double *plo = vf ? b->flo : b->elo, *phi = vf ? b->fhi : b->ehi;
    long long nent = vf ? b->nfent : b->neent;
    for (k = 0; k < 3; k++) {
        if (vf) {
            lo[k] = b->vlo[3 * i + k] - b->r;
            hi[k] = b->vhi[3 * i + k] + b->r;
            q0[k] = broad_cell(&b->g, lo[k], k);
        } else {
            lo[k] = b->elo[3 * i + k];
            hi[k] = b->ehi[3 * i + k];
            q0[k] = b->ecell[3 * i + k];
        }
        q1[k] = broad_cell(&b->g, hi[k], k);
    }
    for (z = q0[2]; z <= q1[2]; z++)
        for (y = q0[1]; y <= q1[1]; y++)
            for (x = q0[0]; x <= q1[0]; x++) {
                uint64_t ck = broad_key(x, y, z);
                long long e;
                for (e = gbroad_lower(key, nent, ck); e < nent && key[e] == ck; e++) {
                    int p = prim[e];
                    if (!vf && p <= i)
                        continue;
                    if (!broad_reports_here(q0, pcell + 3 * p, x, y, z) ||
                        !broad_overlap(lo, hi, plo + 3 * p, phi + 3 * p))
                        continue;
                    if (vf ? gbroad_vf_excluded(b, a, p) : gbroad_ee_excluded(b, i, p))
                        continue;
                    if (out) {
                        out[2 * n] = a;
                        out[2 * n + 1] = p;
                    }
                    n++;
                }
            }
    return n;
}

#endif
