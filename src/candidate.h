/* candidate.h — one candidate of the narrow phase (src/collide.h), written once for both
 * backends: src/collide.c's narrow phase (double) and the GPU's, kernels/collide_narrow.h
 * (float32, on the device and in its host stand-in).
 *
 * A candidate is two primitives (a, b) of the last broad phase: VF (is_vf) model vertex a
 * against surface triangle b (m->tris + 3 b); EE edge a against edge b (rows of the collide
 * view's edges, a < b).  Its four model vertices are, VF: the vertex, the face's corners in
 * m->tris order; EE: p0, p1 of edge a, q0, q1 of edge b (sipd_contact_pair.v).  The rule that
 * keeps it as a pair is physics/distance.h's dist_candidate, with the clamp of two rod segments
 * (both edges numbered from ne_tri on: edge a < edge b, so a ≥ ne_tri says both).
 *
 * SIPD_HD, header-only and in sipd_real: each translation unit gets it in its own precision
 * (positions and half-thicknesses are sipd_real arrays there).  Includes only physics/.
 */
#ifndef SIPD_CANDIDATE_H
#define SIPD_CANDIDATE_H

#include <stddef.h>

#include "physics/distance.h"

/* The model vertices v[0..4) of candidate (a, b) (see above). */
SIPD_HD void candidate_verts(int is_vf, int a, int b, const int *tris, const int *edges, int *v)
{
    if (is_vf) {
        const int *t = tris + 3 * (size_t)b;
        v[0] = a;
        v[1] = t[0];
        v[2] = t[1];
        v[3] = t[2];
    } else {
        const int *e1 = edges + 2 * (size_t)a, *e2 = edges + 2 * (size_t)b;
        v[0] = e1[0];
        v[1] = e1[1];
        v[2] = e2[0];
        v[3] = e2[1];
    }
}

/* Candidate (a, b) at positions y (x0: the step start, for the orientation): 1 when it is a
 * pair (then β and n), else 0; v gets its vertices either way.  rad: the contact half-thickness
 * per model vertex (model.h crad) or NULL (solids); was: it was a pair at the previous narrow
 * phase of the same broad phase (the hysteresis of dist_candidate); ne_tri: the first rod
 * segment among the edges (sipd_collide_view). */
SIPD_HD int candidate_test(int is_vf, int a, int b, const int *tris, const int *edges, int ne_tri,
                           const sipd_real *x0, const sipd_real *y, const sipd_real *rad, sipd_real tiny,
                           sipd_real dhat, int was, int *v, sipd_real *beta, vec3 *n)
{
    sipd_real r[4] = {0, 0, 0, 0}, gap = 0;
    vec3 ys[4], xs[4];
    int j;
    candidate_verts(is_vf, a, b, tris, edges, v);
    for (j = 0; j < 4; j++) {
        ys[j] = v3_load(y + 3 * (size_t)v[j]);
        xs[j] = v3_load(x0 + 3 * (size_t)v[j]);
        if (rad)
            r[j] = rad[v[j]];
    }
    return dist_candidate(is_vf, ys, xs, tiny, dhat, was, rad ? r : NULL, !is_vf && a >= ne_tri, beta, n, &gap);
}

#endif
