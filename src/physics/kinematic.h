/* kinematic.h — prescribed (Dirichlet) motion of the vertices of a `move` box:
 *   p(t) = c + R(ω t)(p0 − c) + v t,   R(θ) = rotation by the vector θ (Rodrigues). */
#ifndef SIPD_PHYSICS_KINEMATIC_H
#define SIPD_PHYSICS_KINEMATIC_H

#include "mat3.h"

SIPD_HD vec3 kinematic_position(vec3 p0, vec3 c, vec3 vel, vec3 omega, sipd_real t)
{
    vec3 r = v3_sub(p0, c), th = v3_scale(omega, t);
    sipd_real a = sipd_sqrt(v3_norm2(th));
    if (a > 0) {
        vec3 k = v3_scale(th, 1 / a), kxr = v3_cross(k, r);
        sipd_real ca = cos(a), sa = sin(a);
        r = v3_add(v3_add(v3_scale(r, ca), v3_scale(kxr, sa)), v3_scale(k, v3_dot(k, r) * (1 - ca)));
    }
    return v3_add(v3_add(c, r), v3_scale(vel, t));
}

#endif
