/* collide_cuda.h — collision detection on the GPU (kernels/collide_cuda.cu): the narrow phase
 * (float32) and the broad phase (double).
 *
 * Compiled only when the CUDA backend is built (nvcc found, not a sanitizer build; CMake defines
 * SIPD_HAVE_CUDA=1 for the targets that link sipd_cuda).  The CUDA backend detects with the
 * sipd_cuda_broad_* functions below (broad phase, outside test, narrow phase with hysteresis, all
 * on the device); sipd_cuda_collide_narrow (over the CPU's candidates) is for comparisons.
 *
 * sipd_cuda_collide_narrow runs the narrow phase of src/collide.h over the candidates of c's
 * last collide_broad (collide_candidate_arrays), one GPU thread per candidate, with the same
 * functions and keep rules as collide_narrow (kernels/collide_narrow.h: dist_vf_pair /
 * dist_ee_pair of src/physics/distance.h; VF only when the closest point is inside the face, EE
 * only when dist_ee_pair accepts it, then only when gap < d̂), and writes the pairs in
 * collide_narrow's order (VF pairs in candidate order, then EE pairs), each filled like
 * collide_narrow's (v, kind, w = 1, β, n; zero padding).  Differences from collide_narrow: the
 * positions x0 and y are rounded to float and everything is computed in float32, so β and n
 * differ by float round-off, and a candidate on the edge of a rule (gap ≈ d̂, the closest point
 * on the boundary of the face, s or t ≈ 0 or 1, edges at the parallel threshold) may be decided
 * the other way.
 *
 * Per call: uploads y, x0 (float, 24 bytes per vertex), the candidates (8 bytes each), the
 * triangles and the edges; downloads a 32-byte record per candidate; compacts on the host.
 * Nothing stays on the device between calls.  Uses the current CUDA device.
 *
 * Returns SIPD_OK with *npairs pairs in out[0 .. *npairs).  When the pairs do not fit in out
 * (cap; out may be NULL with cap 0), *npairs is set to the number of pairs found, out is left
 * untouched and SIPD_EFAIL is returned (with a message); cap = nvf + nee (collide_candidates)
 * always suffices.  Every CUDA call is checked: a failure prints "cuda collide: narrow phase:
 * CALL failed: REASON", frees what was allocated and returns SIPD_EFAIL with *npairs = 0.  With
 * no candidates it returns SIPD_OK and 0 pairs without touching the device.
 */
#ifndef SIPD_COLLIDE_CUDA_H
#define SIPD_COLLIDE_CUDA_H

#include "collide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x0: step-start positions (orientation of n), y: current positions; nv*3 doubles each, of
 * the model c was created with. */
int sipd_cuda_collide_narrow(const sipd_collide *c, const double *x0, const double *y, sipd_contact_pair *out,
                             int cap, int *npairs);

/* ---------------------------------------------------------------- the broad phase on the GPU
 *
 * The broad phase of src/collide.h on the device (kernels/collide_broad.h: the grid, boxes and
 * reporting rule of src/physics/broad.h in double, a sorted instead of a hashed grid table, the
 * exclusions looked up in collide_rest_excluded's lists).  Its candidates are the set that
 * collide_broad finds on the same positions, in the same order unless the two sides round the
 * grid's cell size differently (then only the order within one query can differ).
 *
 * sipd_cuda_broad_create takes the surface numbering (surface vertices, edges), bodies, Dirichlet
 * flags, self and d̂ from c (collide_create's object; c and its model must outlive g), computes
 * the rest-shape exclusions (self = 1: one CPU broad phase over the rest shape) and uploads
 * them: about 4 bytes per triangle, edge and vertex, 8 per rest exclusion.  sipd_cuda_broad_run
 * uploads x0 and y1 (nv*3 doubles each, host) and runs the broad phase with collide_broad's
 * margin; device memory: 48 bytes per vertex, ~150 per triangle, 12 per grid entry (three
 * tables), 8 per candidate, growing as needed and kept between runs.  It synchronises with the
 * device before it returns.  sipd_cuda_broad_count gives the candidate counts of the last run,
 * sipd_cuda_broad_candidates copies them to the host (2 ints each: VF (model vertex, face),
 * EE (edge i, edge j > i); vf and ee hold 2·nvf and 2·nee ints).
 *
 * Errors: every CUDA call is checked; a failure prints "cuda collide: broad phase: WHAT: REASON"
 * and returns SIPD_EFAIL (g stays valid for destroy).
 */
typedef struct sipd_cuda_broad sipd_cuda_broad;

int sipd_cuda_broad_create(sipd_cuda_broad **g, const sipd_collide *c);
int sipd_cuda_broad_run(sipd_cuda_broad *g, const double *x0, const double *y1, double margin);
void sipd_cuda_broad_count(const sipd_cuda_broad *g, long *nvf, long *nee);
int sipd_cuda_broad_candidates(const sipd_cuda_broad *g, int *vf, int *ee);
/* Since create: the kernel launches of these calls (CUB's own kernels not counted) and the
 * calls that blocked the host (copies to or from the host, synchronisations); the CUDA
 * backend's profile (backend.h sipd_profile) adds them to its broad and narrow phases. */
void sipd_cuda_broad_counters(const sipd_cuda_broad *g, long *launches, long *syncs);
void sipd_cuda_broad_destroy(sipd_cuda_broad *g);

/* Detection with the positions on the device (the CUDA backend's float32 x and y, nv*3 each):
 *   sipd_cuda_broad_run_device  sipd_cuda_broad_run from device floats (widened to double on
 *                               the device; no transfer)
 *   sipd_cuda_broad_outside     collide_outside: *out = 1 when a surface vertex of d_y lies more
 *                               than the last run's margin outside its box (and before the
 *                               first run); one 4-byte download
 *   sipd_cuda_broad_narrow      collide_narrow over the last run's candidates, on the device in
 *                               float32 (kernels/collide_narrow.h), WITH collide_narrow's
 *                               hysteresis (a per-candidate flag kept on the device, cleared by
 *                               each run); the kept candidates are compacted on the device (scan,
 *                               scatter) in candidate order, downloaded (48 bytes per pair) and
 *                               returned as sipd_contact_pairs owned by g (valid until the next
 *                               call).  Per call: 33 bytes of device traffic per candidate. */
int sipd_cuda_broad_run_device(sipd_cuda_broad *g, const float *d_x0, const float *d_y1, double margin);
int sipd_cuda_broad_outside(sipd_cuda_broad *g, const float *d_y, int *out);
int sipd_cuda_broad_narrow(sipd_cuda_broad *g, const float *d_x0, const float *d_y, const sipd_contact_pair **pairs,
                           int *npairs);

#ifdef __cplusplus
}
#endif

#endif
