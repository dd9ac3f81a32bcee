/* inertia.h — the per-vertex terms of the backward-Euler objective (docs/design.md §3.1).
 *   dynamic:      m/(2h²)|y − ỹ|²,  gradient m/h² (y − ỹ),  block m/h² I
 *   quasi-static: −m g·(y − ỹ),     gradient −m g,          block 0
 * (in the quasi-static case ỹ is the start-of-step position; the offset keeps energy
 * differences accurate)
 * `inv_h2` is 1/h² in the dynamic case and 0 in the quasi-static one; `gq` is the gravity
 * used as a potential (0 in the dynamic case, where gravity is inside ỹ). */
#ifndef SIPD_PHYSICS_INERTIA_H
#define SIPD_PHYSICS_INERTIA_H

#include "mat3.h"

SIPD_HD vec3 inertia_gradient(sipd_real m, sipd_real inv_h2, vec3 gq, vec3 y, vec3 yt)
{
    return v3_sub(v3_scale(v3_sub(y, yt), m * inv_h2), v3_scale(gq, m));
}

SIPD_HD sipd_real inertia_energy(sipd_real m, sipd_real inv_h2, vec3 gq, vec3 y, vec3 yt)
{
    vec3 d = v3_sub(y, yt);
    return SIPD_R(0.5) * m * inv_h2 * v3_norm2(d) - m * v3_dot(gq, d);
}

#endif
