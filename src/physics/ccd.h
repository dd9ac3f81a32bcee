/* ccd.h — the step filter that keeps contact intersection-free (contact.ccd; docs/contact.md
 * "No tunnelling").
 *
 * A conservative per-vertex displacement bound, checked on every update of the iterate.  At each
 * narrow phase (positions c, intersection-free) every surface vertex a gets a radius b_a
 * (collide_bounds, src/collide.c):
 *     b_a = min( CCD_GAMMA · s(P, Q) over the candidate primitive pairs (P, Q) that contain a,
 *                the slack of a's broad-phase box )
 * where s is the pair's distance at c less what its thickness keeps clear (ccd_clear: thin bodies
 * at most CCD_ALLOW d̂ into each other; see collide.h).  While every vertex stays in its ball
 * |y_a − c_a| ≤ b_a, the distance between two primitives changes by at most the largest
 * displacement of a vertex of each (a distance between point sets is 1-Lipschitz in each
 * vertex), so a pair at distance s keeps at least (1 − 2 CCD_GAMMA) s > 0: no primitive crosses
 * another, whatever the solver does between two narrow phases.  Pairs that are not candidates
 * stay more than the detection distance apart as long as every vertex stays within its box's
 * margin, which the box slack term ensures.  The ground plane (and any static half-space) is
 * simpler: a vertex may move toward it by CCD_GROUND of its height above the plane's floor per
 * update, exactly, with no detection.
 *
 * Each update is filtered by scaling a vertex's own step (Jacobi, Newton, a Gauss–Seidel local
 * step): y_a + τ Δ_a with the largest τ ∈ [0, 1] that stays in the ball and above the plane.  A
 * scaled step of a descent direction's vertex block is still descent for that vertex, and the
 * ball and the half-space are convex, so a line search along the scaled step stays inside them.
 * A step that had to be scaled by the ball asks for a narrow phase (the balls are then
 * re-centred at the new positions).  The per-update cost is a few flops per vertex; the bounds
 * cost one pass over the broad phase's candidates per narrow phase.
 */
#ifndef SIPD_PHYSICS_CCD_H
#define SIPD_PHYSICS_CCD_H

#include "distance.h"
#include "mat3.h"

/* Share of a pair's distance each side may move between two narrow phases (< 1/2). */
#define CCD_GAMMA SIPD_R(0.45)
/* Share of its height above the ground's floor a vertex may move toward it per update (< 1). */
#define CCD_GROUND SIPD_R(0.9)

/* The largest τ ∈ [0, 1] with |y + τ d − c| ≤ b; 0 when y already lies outside the ball. */
SIPD_HD sipd_real ccd_ball_scale(vec3 y, vec3 d, vec3 c, sipd_real b)
{
    vec3 w = v3_sub(y, c);
    sipd_real dd = v3_norm2(d), ww = v3_norm2(w), wd, disc, t;
    if (!(ww <= b * b))
        return 0;
    if (dd == 0)
        return 1;
    /* |w + τ d|² = b² : τ = (−w·d + sqrt((w·d)² + dd (b² − ww))) / dd, the positive root */
    wd = v3_dot(w, d);
    disc = wd * wd + dd * (b * b - ww);
    t = (-wd + sipd_sqrt(disc > 0 ? disc : SIPD_R(0))) / dd;
    return t < 1 ? (t > 0 ? t : SIPD_R(0)) : SIPD_R(1);
}

/* The largest τ ∈ [0, 1] that keeps y + τ d at (1 − CCD_GROUND) of y's height above the floor
 * n·x = f at least; 1 when the step moves away from the plane or y is not above it. */
SIPD_HD sipd_real ccd_plane_scale(vec3 y, vec3 d, vec3 n, sipd_real f)
{
    sipd_real hgt = v3_dot(n, y) - f, nd = v3_dot(n, d), t;
    if (!(hgt > 0) || !(nd < 0))
        return 1;
    t = CCD_GROUND * hgt / -nd;
    return t < 1 ? t : SIPD_R(1);
}

/* The largest τ ∈ [0, 1] with y + τ d in the box [lo, hi]; 0 when y lies outside it. */
SIPD_HD sipd_real ccd_box_scale(vec3 y, vec3 d, vec3 lo, vec3 hi)
{
    sipd_real t = 1;
    int k;
    for (k = 0; k < 3; k++) {
        sipd_real lim;
        if (!(y.v[k] >= lo.v[k] && y.v[k] <= hi.v[k]))
            return 0;
        if (d.v[k] > 0)
            lim = (hi.v[k] - y.v[k]) / d.v[k];
        else if (d.v[k] < 0)
            lim = (lo.v[k] - y.v[k]) / d.v[k];
        else
            continue;
        t = lim < t ? lim : t;
    }
    return t;
}

/* How far past its contact thickness a pair (or a vertex and the ground) may go, as a share of d̂:
 * the filter keeps thin bodies' gaps above −CCD_ALLOW d̂ (but their surfaces at least half their
 * thickness apart), so no written frame, converged or not, shows more penetration than that. */
#define CCD_ALLOW SIPD_R(0.1)

/* The distance a pair with thickness offset o (the two sides' contact half-thicknesses, summed;
 * the ground: the vertex's) keeps clear: o − CCD_ALLOW d̂, at least o/2; 0 for solids. */
SIPD_HD sipd_real ccd_clear(sipd_real o, sipd_real dhat)
{
    sipd_real c = o - CCD_ALLOW * dhat, h = SIPD_R(0.5) * o;
    return c > h ? c : h;
}

/* The bound a pair at distance dist that keeps xi clear (ccd_clear) gives each of its vertices:
 * CCD_GAMMA (dist − xi), but at least CCD_GAMMA dist/4 so that a pair already closer than that
 * can still be separated (it then keeps dist (1 − CCD_GAMMA/2) at least). */
SIPD_HD sipd_real ccd_pair_bound(sipd_real dist, sipd_real xi)
{
    sipd_real s = dist - xi, lo = SIPD_R(0.25) * dist;
    return CCD_GAMMA * (s > lo ? s : lo);
}

/* ---------------------------------------------------------------- time of impact */

/* A step may close at most 1 − CCD_KEEP of a pair's gap. */
#define CCD_KEEP SIPD_R(0.1)
/* Conservative-advancement iterations per pair before the time reached so far is returned. */
#define CCD_MAX_ITERS 64

/* Distance between the two primitives of a VF (is_vf: p[0] against triangle p[1..3]) or EE
 * (segments p[0]p[1], p[2]p[3]) candidate: the whole primitives (clamped closest points). */
SIPD_HD sipd_real ccd_distance(int is_vf, const vec3 *p)
{
    return sipd_sqrt(is_vf ? dist_point_triangle2(p[0], p[1], p[2], p[3]) : dist_segment_segment2(p[0], p[1], p[2], p[3]));
}

/* The time of impact of a candidate moving along y + τ d (four vertices, VF or EE as above),
 * τ ∈ [0, tmax], by additive conservative advancement (after Li, Kaufman and Jiang, "Codimensional
 * incremental potential contact", 2021): with l the largest relative speed of the two sides
 * (the displacements less their mean, the largest of each side, summed), the gap g = dist − ξ
 * cannot fall faster than l, so τ may advance by 0.9 g / l at a time (the first step by
 * (1 − CCD_KEEP) g₀ / l) and stops before the gap falls below CCD_KEEP g₀.  ξ: the pair's
 * thickness offset kept clear (half its contact thicknesses), at most half the distance at
 * τ = 0.  Returns tmax when the gap stays above CCD_KEEP g₀ up to tmax (or nothing moves
 * relative to the other side), else the last safe τ. */
SIPD_HD sipd_real ccd_pair_toi(int is_vf, const vec3 *y, const vec3 *d, sipd_real xi, sipd_real tmax)
{
    vec3 p[4], q[4], mean = v3(0, 0, 0);
    sipd_real l1 = 0, l2 = 0, l, d0, g0, g, t = 0, tl;
    int k, it;
    for (k = 0; k < 4; k++) mean = v3_axpy(SIPD_R(0.25), d[k], mean);
    for (k = 0; k < 4; k++) {
        sipd_real n;
        p[k] = v3_sub(d[k], mean);
        n = sipd_sqrt(v3_norm2(p[k]));
        if (is_vf ? k == 0 : k < 2)
            l1 = n > l1 ? n : l1;
        else
            l2 = n > l2 ? n : l2;
    }
    l = l1 + l2;
    if (!(l > 0))
        return tmax;
    d0 = ccd_distance(is_vf, y);
    if (!(d0 > 0))
        return tmax;   /* touching already: nothing to guard */
    if (xi > SIPD_R(0.5) * d0)
        xi = SIPD_R(0.5) * d0;
    g0 = d0 - xi;
    tl = (1 - CCD_KEEP) * g0 / l;
    for (it = 0; it < CCD_MAX_ITERS; it++) {
        for (k = 0; k < 4; k++) q[k] = v3_axpy(t + tl, d[k], y[k]);
        g = ccd_distance(is_vf, q) - xi;
        if (t > 0 && g < CCD_KEEP * g0)
            return t;
        t += tl;
        if (t >= tmax)
            return tmax;
        tl = SIPD_R(0.9) * g / l;
    }
    return t;
}

#endif
