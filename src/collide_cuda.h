/* collide_cuda.h — the collision narrow phase on the GPU (kernels/collide_cuda.cu), float32.
 *
 * Compiled only when the CUDA backend is built (nvcc found, not a sanitizer build; CMake defines
 * SIPD_HAVE_CUDA=1 for the targets that link sipd_cuda).  Not used by the driver yet.
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

#ifdef __cplusplus
}
#endif

#endif
