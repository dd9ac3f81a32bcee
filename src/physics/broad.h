/* broad.h — the uniform grid of the collision broad phase (src/collide.h), shared by the CPU
 * hash grid of src/collide.c and the GPU sorted grid of kernels/collide_cuda.cu (through
 * kernels/collide_broad.h), so both split space, box primitives and pick the reporting cell
 * with the same arithmetic.  Everything is in double on both sides (the broad phase's boxes are
 * conservative bounds; only the narrow phase runs in float32 on the GPU).
 *
 * Grid: origin = the lower corner of the union of the face boxes, cell size h = the mean
 * largest extent of the inflated face boxes (at least the union's extent / (BROAD_CELL_MAX − 1)
 * per axis, so every cell index fits in BROAD_CELL_BITS bits), dim = cells per axis.  A point
 * outside the grid is clamped to the border cells.  A cell's key packs (x, y, z) into 63 bits.
 *
 * Reporting cell: a pair of overlapping boxes whose lowest cells are q0 and p0 is reported only
 * from the cell max(q0, p0) (per axis), the cell of the lower corner of their intersection; it
 * lies in both boxes' cell ranges, so every overlapping pair is reported exactly once.  The set
 * of candidates therefore does not depend on h; only the order within one query does.
 */
#ifndef SIPD_PHYSICS_BROAD_H
#define SIPD_PHYSICS_BROAD_H

#include <stdint.h>

#include "common.h"

#define BROAD_CELL_BITS 21                           /* bits per axis of a cell key */
#define BROAD_CELL_MAX ((1 << BROAD_CELL_BITS) - 1)

typedef struct {
    double org[3], h, inv_h;
    int dim[3];
} broad_grid;

/* What the grid is made from: the union of the face boxes and the sum of their largest extents
 * (one per face; the grid's cell size is ext / nf). */
typedef struct {
    double lo[3], hi[3], ext;
} broad_red;

SIPD_HD broad_red broad_red_join(broad_red a, broad_red b)
{
    int k;
    for (k = 0; k < 3; k++) {
        a.lo[k] = b.lo[k] < a.lo[k] ? b.lo[k] : a.lo[k];
        a.hi[k] = b.hi[k] > a.hi[k] ? b.hi[k] : a.hi[k];
    }
    a.ext += b.ext;
    return a;
}

/* Box of the n vertices v[0..n) over both position sets x0 and y1, inflated by r; *ext (may be
 * NULL) = its largest extent. */
SIPD_HD void broad_box(const double *x0, const double *y1, const int *v, int n, double r, double *lo, double *hi,
                       double *ext)
{
    double e = 0;
    int k, j;
    for (k = 0; k < 3; k++) {
        double l = x0[3 * v[0] + k], u = l;
        for (j = 0; j < n; j++) {
            double a = x0[3 * v[j] + k], b = y1[3 * v[j] + k];
            l = a < l ? a : l;
            l = b < l ? b : l;
            u = a > u ? a : u;
            u = b > u ? b : u;
        }
        lo[k] = l - r;
        hi[k] = u + r;
        e = u - l + 2 * r > e ? u - l + 2 * r : e;
    }
    if (ext)
        *ext = e;
}

/* The grid of nf face boxes summarised by red.  0 when the boxes are not finite. */
SIPD_HD int broad_grid_setup(broad_grid *g, broad_red red, int nf)
{
    int k;
    for (k = 0; k < 3; k++)
        if (!(red.lo[k] - red.lo[k] == 0) || !(red.hi[k] - red.hi[k] == 0))   /* NaN or ±inf */
            return 0;
    g->h = red.ext / nf;
    for (k = 0; k < 3; k++)
        if (g->h < (red.hi[k] - red.lo[k]) / (BROAD_CELL_MAX - 1))
            g->h = (red.hi[k] - red.lo[k]) / (BROAD_CELL_MAX - 1);
    if (!(g->h > 0))
        g->h = 1;
    g->inv_h = 1 / g->h;
    for (k = 0; k < 3; k++) {
        g->org[k] = red.lo[k];
        g->dim[k] = (int)floor((red.hi[k] - red.lo[k]) * g->inv_h) + 1;
        if (g->dim[k] > BROAD_CELL_MAX) g->dim[k] = BROAD_CELL_MAX;
        if (g->dim[k] < 1) g->dim[k] = 1;
    }
    return 1;
}

/* cell index of coordinate x along axis k, clamped to the grid */
SIPD_HD int broad_cell(const broad_grid *g, double x, int k)
{
    double f = floor((x - g->org[k]) * g->inv_h);
    if (!(f > 0))
        return 0;
    if (f >= g->dim[k] - 1)
        return g->dim[k] - 1;
    return (int)f;
}

SIPD_HD uint64_t broad_key(int x, int y, int z)
{
    return (uint64_t)x | ((uint64_t)y << BROAD_CELL_BITS) | ((uint64_t)z << (2 * BROAD_CELL_BITS));
}

SIPD_HD int broad_overlap(const double *lo1, const double *hi1, const double *lo2, const double *hi2)
{
    return lo1[0] <= hi2[0] && lo2[0] <= hi1[0] && lo1[1] <= hi2[1] && lo2[1] <= hi1[1] && lo1[2] <= hi2[2] &&
           lo2[2] <= hi1[2];
}

/* 1 when cell (x, y, z) is the reporting cell of two boxes with lowest cells q0 and p0 */
SIPD_HD int broad_reports_here(const int *q0, const int *p0, int x, int y, int z)
{
    return (q0[0] > p0[0] ? q0[0] : p0[0]) == x && (q0[1] > p0[1] ? q0[1] : p0[1]) == y &&
           (q0[2] > p0[2] ? q0[2] : p0[2]) == z;
}

#endif
