/* distance.h — closest points and boxes for collision detection (src/collide.h, docs/design.md §3.6).
 *
 * Point–triangle: dist_point_triangle returns the clamped barycentric weights w of the closest
 * point c = w0 a + w1 b + w2 c of the triangle to p (w ≥ 0, Σw = 1) and the feature c lies on:
 *     DIST_FACE                 inside the face (all three weights > 0),
 *     DIST_EDGE + i (i = 0,1,2) on edge i, from corner i to corner (i+1) mod 3 (the weight of the
 *                               third corner is 0),
 *     DIST_CORNER + i           on corner i (w_i = 1).
 * It classifies p by the Voronoi regions of the triangle (corners, then edges, then the face):
 * the corners from the dot products of p − corner with the two edge vectors, the edges and the
 * face also from the signed areas of the sub-triangles (p, corner, corner) projected on the
 * normal; each region test is a few signs and no square root is taken.  A degenerate triangle (zero area) falls back to the
 * nearest of its three edges.
 *
 * Edge–edge: dist_edge_edge returns the UNCLAMPED parameters s, t of the closest points
 * p(s) = p0 + s (p1 − p0) and q(t) = q0 + t (q1 − q0) of the two infinite lines, and flags:
 *     DIST_EE_INTERIOR  0 < s < 1 and 0 < t < 1 (the segments' closest points are interior),
 *     DIST_EE_PARALLEL  |e1 × e2| < 1e-3 |e1| |e2| (the lines are (near-)parallel; s = t = 0
 *                       are returned and DIST_EE_INTERIOR is never set).
 * dist_segment_segment2 is the clamped (segment) squared distance, parallel segments included.
 *
 * Pairs (the narrow phase of collide.c, shared with a device implementation): dist_vf_pair and
 * dist_ee_pair compute the frozen weights β, the unit normal n, oriented by the side of the
 * step-start positions x0, and the gap d = n·Σ β_k y_k, exactly as src/collide.h specifies.
 *
 * Boxes: axis-aligned, as (lo, hi) corner pairs.
 */
#ifndef SIPD_PHYSICS_DISTANCE_H
#define SIPD_PHYSICS_DISTANCE_H

#include "mat3.h"

#define DIST_FACE 0
#define DIST_EDGE 1     /* DIST_EDGE + i: edge i (corners i, (i+1) mod 3) */
#define DIST_CORNER 4   /* DIST_CORNER + i: corner i                      */

#define DIST_EE_INTERIOR 1
#define DIST_EE_PARALLEL 2

/* ---------------------------------------------------------------- point–segment, point–triangle */

/* Parameter t ∈ [0, 1] of the closest point a + t (b − a) of segment ab to p (0 when a == b). */
SIPD_HD sipd_real dist_point_segment(vec3 p, vec3 a, vec3 b)
{
    vec3 e = v3_sub(b, a);
    sipd_real ee = v3_norm2(e), t;
    if (!(ee > 0))
        return SIPD_R(0);
    t = v3_dot(v3_sub(p, a), e) / ee;
    return t < 0 ? SIPD_R(0) : (t > 1 ? SIPD_R(1) : t);
}

/* Closest point of triangle (a, b, c) to p: weights w[3] (see the top), returns the feature. */
SIPD_HD int dist_point_triangle(vec3 p, vec3 a, vec3 b, vec3 c, sipd_real *w)
{
    vec3 eab = v3_sub(b, a), eac = v3_sub(c, a);
    vec3 pa = v3_sub(p, a), pb = v3_sub(p, b), pc = v3_sub(p, c);
    /* projections of p − corner on the two edge directions from a */
    sipd_real ua = v3_dot(eab, pa), va = v3_dot(eac, pa);
    sipd_real ub = v3_dot(eab, pb), vb = v3_dot(eac, pb);
    sipd_real uc = v3_dot(eab, pc), vc = v3_dot(eac, pc);
    sipd_real area_c, area_a, area_b, sum, t = 0;
    int i, best;

    w[0] = w[1] = w[2] = 0;
    /* corner regions: p − corner makes an obtuse (or right) angle with both edges leaving it */
    if (ua <= 0 && va <= 0) { w[0] = 1; return DIST_CORNER + 0; }
    if (ub >= 0 && vb <= ub) { w[1] = 1; return DIST_CORNER + 1; }   /* (b−a)·pb ≥ 0, (c−b)·pb ≤ 0 */
    if (vc >= 0 && uc <= vc) { w[2] = 1; return DIST_CORNER + 2; }   /* (c−a)·pc ≥ 0, (b−c)·pc ≤ 0 */
    /* signed sub-areas opposite each corner, scaled by |N|, N = (b−a)×(c−a): by the
     * Binet–Cauchy identity e.g. N·(pa×pb) = ua vb − ub va, but the cross-product form does
     * not cancel for thin triangles */
    {
        vec3 N = v3_cross(eab, eac);
        area_c = v3_dot(N, v3_cross(pa, pb));   /* sub-triangle (a, b, p): weight of c */
        area_a = v3_dot(N, v3_cross(pb, pc));   /* sub-triangle (b, c, p): weight of a */
        area_b = v3_dot(N, v3_cross(pc, pa));   /* sub-triangle (c, a, p): weight of b */
    }
    /* edge regions: p beyond the edge and between its two end perpendiculars */
    if (area_c <= 0 && ua >= 0 && ub <= 0 && ua - ub > 0) {
        t = ua / (ua - ub);
        w[0] = 1 - t; w[1] = t;
        return DIST_EDGE + 0;
    }
    if (area_a <= 0 && vb - ub >= 0 && uc - vc >= 0 && (vb - ub) + (uc - vc) > 0) {
        t = (vb - ub) / ((vb - ub) + (uc - vc));
        w[1] = 1 - t; w[2] = t;
        return DIST_EDGE + 1;
    }
    if (area_b <= 0 && va >= 0 && vc <= 0 && va - vc > 0) {
        t = va / (va - vc);   /* along a → c */
        w[2] = t; w[0] = 1 - t;
        return DIST_EDGE + 2;
    }
    sum = area_a + area_b + area_c;   /* = |N|² */
    if (sum > 0 && area_a > 0 && area_b > 0 && area_c > 0) {
        w[0] = area_a / sum; w[1] = area_b / sum; w[2] = 1 - w[0] - w[1];
        if (w[2] > 0)
            return DIST_FACE;
    }
    /* degenerate (zero-area) triangle, or round-off at a region boundary: nearest edge */
    {
        vec3 cs[3];
        sipd_real bestd = 0;
        cs[0] = a; cs[1] = b; cs[2] = c;
        best = -1;
        for (i = 0; i < 3; i++) {
            sipd_real ti = dist_point_segment(p, cs[i], cs[(i + 1) % 3]);
            vec3 q = v3_axpy(ti, v3_sub(cs[(i + 1) % 3], cs[i]), cs[i]);
            sipd_real d = v3_norm2(v3_sub(p, q));
            if (best < 0 || d < bestd) { best = i; bestd = d; t = ti; }
        }
        w[0] = w[1] = w[2] = 0;
        if (t <= 0) { w[best] = 1; return DIST_CORNER + best; }
        if (t >= 1) { w[(best + 1) % 3] = 1; return DIST_CORNER + (best + 1) % 3; }
        w[best] = 1 - t; w[(best + 1) % 3] = t;
        return DIST_EDGE + best;
    }
}

/* Squared distance of p to triangle (a, b, c). */
SIPD_HD sipd_real dist_point_triangle2(vec3 p, vec3 a, vec3 b, vec3 c)
{
    sipd_real w[3];
    vec3 q;
    dist_point_triangle(p, a, b, c, w);
    q = v3_add(v3_add(v3_scale(a, w[0]), v3_scale(b, w[1])), v3_scale(c, w[2]));
    return v3_norm2(v3_sub(p, q));
}

/* ---------------------------------------------------------------- edge–edge */

/* Unclamped closest-point parameters of the lines through the edges; returns the flags. */
SIPD_HD int dist_edge_edge(vec3 p0, vec3 p1, vec3 q0, vec3 q1, sipd_real *s, sipd_real *t)
{
    vec3 e1 = v3_sub(p1, p0), e2 = v3_sub(q1, q0), r = v3_sub(p0, q0);
    sipd_real a = v3_norm2(e1), b = v3_dot(e1, e2), c = v3_norm2(e2);
    sipd_real d = v3_dot(e1, r), e = v3_dot(e2, r);
    sipd_real den = v3_norm2(v3_cross(e1, e2));   /* = a c − b², without the cancellation */
    *s = *t = 0;
    /* |e1×e2| < 1e-3 |e1||e2|  ⇔  |e1×e2|² < 1e-6 |e1|²|e2|² (degenerate edges included) */
    if (!(den >= SIPD_R(1e-6) * a * c) || !(den > 0))
        return DIST_EE_PARALLEL;
    /* minimise |r + s e1 − t e2|²:  a s − b t = −d,  b s − c t = −e */
    *s = (b * e - c * d) / den;
    *t = (a * e - b * d) / den;
    return (*s > 0 && *s < 1 && *t > 0 && *t < 1) ? DIST_EE_INTERIOR : 0;
}

/* Squared distance of segments p0p1 and q0q1 (clamped to the segments; parallel ones too). */
SIPD_HD sipd_real dist_segment_segment2(vec3 p0, vec3 p1, vec3 q0, vec3 q1)
{
    sipd_real s, t, d, best;
    vec3 e1 = v3_sub(p1, p0), e2 = v3_sub(q1, q0);
    if (dist_edge_edge(p0, p1, q0, q1, &s, &t) == DIST_EE_INTERIOR)
        return v3_norm2(v3_sub(v3_axpy(s, e1, p0), v3_axpy(t, e2, q0)));
    /* otherwise the minimum of the convex distance over the unit square is on its boundary:
     * one of the four end points against the other segment */
    t = dist_point_segment(p0, q0, q1);
    best = v3_norm2(v3_sub(p0, v3_axpy(t, e2, q0)));
    t = dist_point_segment(p1, q0, q1);
    d = v3_norm2(v3_sub(p1, v3_axpy(t, e2, q0)));
    best = d < best ? d : best;
    s = dist_point_segment(q0, p0, p1);
    d = v3_norm2(v3_sub(q0, v3_axpy(s, e1, p0)));
    best = d < best ? d : best;
    s = dist_point_segment(q1, p0, p1);
    d = v3_norm2(v3_sub(q1, v3_axpy(s, e1, p0)));
    return d < best ? d : best;
}

/* Clamped closest-point parameters s, t ∈ [0, 1] of segments p0p1 and q0q1 (parallel ones
 * included: then the closest of the four end-point projections); returns the squared distance. */
SIPD_HD sipd_real dist_segment_params(vec3 p0, vec3 p1, vec3 q0, vec3 q1, sipd_real *s, sipd_real *t)
{
    sipd_real si, ti, d, best;
    vec3 e1 = v3_sub(p1, p0), e2 = v3_sub(q1, q0);
    if (dist_edge_edge(p0, p1, q0, q1, s, t) == DIST_EE_INTERIOR)
        return v3_norm2(v3_sub(v3_axpy(*s, e1, p0), v3_axpy(*t, e2, q0)));
    /* the minimum of the convex distance over the unit square lies on its boundary */
    ti = dist_point_segment(p0, q0, q1);
    best = v3_norm2(v3_sub(p0, v3_axpy(ti, e2, q0)));
    *s = 0;
    *t = ti;
    ti = dist_point_segment(p1, q0, q1);
    d = v3_norm2(v3_sub(p1, v3_axpy(ti, e2, q0)));
    if (d < best) { best = d; *s = 1; *t = ti; }
    si = dist_point_segment(q0, p0, p1);
    d = v3_norm2(v3_sub(q0, v3_axpy(si, e1, p0)));
    if (d < best) { best = d; *s = si; *t = 0; }
    si = dist_point_segment(q1, p0, p1);
    d = v3_norm2(v3_sub(q1, v3_axpy(si, e1, p0)));
    if (d < best) { best = d; *s = si; *t = 1; }
    return best;
}

/* ---------------------------------------------------------------- pairs */

/* n = u/|u|, or the normalised fallback direction f when |u| ≤ tiny (or (0, 0, 1) when f = 0
 * too); then flipped so that n·z0 ≥ 0. */
SIPD_HD vec3 dist_pair_normal(vec3 u, vec3 f, vec3 z0, sipd_real tiny)
{
    sipd_real l = sipd_sqrt(v3_norm2(u));
    vec3 n;
    if (l > tiny) {
        n = v3_scale(u, 1 / l);
    } else {
        l = sipd_sqrt(v3_norm2(f));
        n = l > 0 ? v3_scale(f, 1 / l) : v3(0, 0, 1);
    }
    return v3_dot(n, z0) < 0 ? v3_scale(n, SIPD_R(-1)) : n;
}

/* Vertex–face pair at y (p; face a, b, c), step start x0 (p0; a0, b0, c0): β = (1, −w0, −w1,
 * −w2), n = (p − c)/|p − c| (the face normal when |p − c| ≤ tiny), oriented so that
 * n·Σβ x0 ≥ 0, *gap = n·Σβ y.  Returns the feature of the closest point (DIST_FACE …). */
SIPD_HD int dist_vf_pair(vec3 p, vec3 a, vec3 b, vec3 c, vec3 p0, vec3 a0, vec3 b0, vec3 c0, sipd_real tiny,
                         sipd_real *beta, vec3 *n, sipd_real *gap)
{
    sipd_real w[3];
    int feat = dist_point_triangle(p, a, b, c, w);
    vec3 z, z0;
    beta[0] = 1; beta[1] = -w[0]; beta[2] = -w[1]; beta[3] = -w[2];
    z = v3_axpy(beta[3], c, v3_axpy(beta[2], b, v3_axpy(beta[1], a, p)));
    z0 = v3_axpy(beta[3], c0, v3_axpy(beta[2], b0, v3_axpy(beta[1], a0, p0)));
    *n = dist_pair_normal(z, v3_cross(v3_sub(b, a), v3_sub(c, a)), z0, tiny);
    *gap = v3_dot(*n, z);
    return feat;
}

/* Edge–edge pair at y (p0p1, q0q1), step start x0 (p00 p10, q00 q10): returns 0 (nothing
 * written) unless the lines' closest points are interior to both edges and the edges are not
 * (near-)parallel; else β = (1−s, s, −(1−t), −t), n = (p(s) − q(t))/|…| (e1×e2 normalised when
 * that is ≤ tiny), oriented so that n·Σβ x0 ≥ 0, *gap = n·Σβ y, and returns 1. */
SIPD_HD int dist_ee_pair(vec3 p0, vec3 p1, vec3 q0, vec3 q1, vec3 p00, vec3 p10, vec3 q00, vec3 q10, sipd_real tiny,
                         sipd_real *beta, vec3 *n, sipd_real *gap)
{
    sipd_real s, t;
    vec3 z, z0;
    if (dist_edge_edge(p0, p1, q0, q1, &s, &t) != DIST_EE_INTERIOR)
        return 0;
    beta[0] = 1 - s; beta[1] = s; beta[2] = t - 1; beta[3] = -t;
    z = v3_axpy(beta[3], q1, v3_axpy(beta[2], q0, v3_axpy(beta[1], p1, v3_scale(p0, beta[0]))));
    z0 = v3_axpy(beta[3], q10, v3_axpy(beta[2], q00, v3_axpy(beta[1], p10, v3_scale(p00, beta[0]))));
    *n = dist_pair_normal(z, v3_cross(v3_sub(p1, p0), v3_sub(q1, q0)), z0, tiny);
    *gap = v3_dot(*n, z);
    return 1;
}

/* Unclamped barycentric weights w of the projection of p on the plane of (a, b, c)
 * (Σw = 1; negative outside the triangle).  Returns 0 (w untouched) for a degenerate triangle. */
SIPD_HD int dist_plane_bary(vec3 p, vec3 a, vec3 b, vec3 c, sipd_real *w)
{
    vec3 e1 = v3_sub(b, a), e2 = v3_sub(c, a), r = v3_sub(p, a);
    sipd_real d11 = v3_norm2(e1), d12 = v3_dot(e1, e2), d22 = v3_norm2(e2);
    sipd_real r1 = v3_dot(r, e1), r2 = v3_dot(r, e2), den = v3_norm2(v3_cross(e1, e2)), u, v;
    if (!(den > 0))
        return 0;
    u = (d22 * r1 - d12 * r2) / den;
    v = (d11 * r2 - d12 * r1) / den;
    w[0] = 1 - u - v;
    w[1] = u;
    w[2] = v;
    return 1;
}

/* The thickness offset of a pair: o = Σ_k |β_k| r_k, the β-weighted contact half-thicknesses of
 * its vertices (src/collide.h: the half-thickness of each side at the closest point, summed over
 * the two sides, Σ|β| = 1 per side); 0 when rad is NULL.  The pair's gap is then n·Σβy − o. */
SIPD_HD sipd_real dist_pair_offset(const sipd_real *beta, const sipd_real *rad)
{
    sipd_real o = 0;
    int k;
    if (!rad)
        return o;
    for (k = 0; k < 4; k++) o += sipd_fabs(beta[k]) * rad[k];
    return o;
}

/* How far outside its strict rule a pair that existed at the previous narrow phase may go and
 * still be kept: barycentric weights ≥ −DIST_KEEP_BAND (VF), s, t within [−band, 1 + band] (EE). */
#define DIST_KEEP_BAND SIPD_R(0.02)

/* The narrow-phase rule of one candidate (src/collide.h), the one place it is written (collide.c
 * and the GPU narrow phase call it).  VF (is_vf): y[0] the vertex, y[1..3] the face; EE: y[0..1]
 * and y[2..3] the edges; x0 the same at the step start.  Kept when the strict rule holds (VF: the
 * closest point is inside the face; EE: interior closest points, edges not (near-)parallel) or,
 * when `was` (the candidate was a pair at the previous narrow phase of the same broad phase),
 * when it is within DIST_KEEP_BAND of it — with the unclamped weights, so the pair's energy
 * continues smoothly across the face's or edge's boundary (hysteresis: an iterate near the
 * boundary does not flip the pair set back and forth) — and then only when gap − o < d̂, o the
 * pair's thickness offset dist_pair_offset(β, rad) (rad: the contact half-thicknesses of the four
 * vertices, or NULL: o = 0, solids).  clamp (EE of two rod segments, src/collide.h): when neither
 * rule holds, the segments' clamped closest points (dist_segment_params: a rod's vertex against
 * the other segment, vertex against vertex, parallel segments) make the pair.  Returns 1 with β,
 * n and the gap when kept, else 0. */
SIPD_HD int dist_candidate(int is_vf, const vec3 *y, const vec3 *x0, sipd_real tiny, sipd_real dhat, int was,
                           const sipd_real *rad, int clamp, sipd_real *beta, vec3 *n, sipd_real *gap)
{
    vec3 z, z0;
    int k;
    if (is_vf) {
        sipd_real w[3];
        if (dist_vf_pair(y[0], y[1], y[2], y[3], x0[0], x0[1], x0[2], x0[3], tiny, beta, n, gap) == DIST_FACE)
            return rad ? *gap - dist_pair_offset(beta, rad) < dhat : *gap < dhat;
        if (!was || !dist_plane_bary(y[0], y[1], y[2], y[3], w) || w[0] < -DIST_KEEP_BAND ||
            w[1] < -DIST_KEEP_BAND || w[2] < -DIST_KEEP_BAND)
            return 0;
        beta[0] = 1;
        beta[1] = -w[0];
        beta[2] = -w[1];
        beta[3] = -w[2];
        z = v3(0, 0, 0);
        z0 = v3(0, 0, 0);
        for (k = 0; k < 4; k++) {
            z = v3_axpy(beta[k], y[k], z);
            z0 = v3_axpy(beta[k], x0[k], z0);
        }
        *n = dist_pair_normal(z, v3_cross(v3_sub(y[2], y[1]), v3_sub(y[3], y[1])), z0, tiny);
    } else {
        sipd_real s, t;
        if (dist_ee_pair(y[0], y[1], y[2], y[3], x0[0], x0[1], x0[2], x0[3], tiny, beta, n, gap))
            return rad ? *gap - dist_pair_offset(beta, rad) < dhat : *gap < dhat;
        if (!was || (dist_edge_edge(y[0], y[1], y[2], y[3], &s, &t) & DIST_EE_PARALLEL) || s < -DIST_KEEP_BAND ||
            s > 1 + DIST_KEEP_BAND || t < -DIST_KEEP_BAND || t > 1 + DIST_KEEP_BAND) {
            if (!clamp)
                return 0;
            dist_segment_params(y[0], y[1], y[2], y[3], &s, &t);
        }
        beta[0] = 1 - s;
        beta[1] = s;
        beta[2] = t - 1;
        beta[3] = -t;
        z = v3(0, 0, 0);
        z0 = v3(0, 0, 0);
        for (k = 0; k < 4; k++) {
            z = v3_axpy(beta[k], y[k], z);
            z0 = v3_axpy(beta[k], x0[k], z0);
        }
        *n = dist_pair_normal(z, v3_cross(v3_sub(y[1], y[0]), v3_sub(y[3], y[2])), z0, tiny);
    }
    *gap = v3_dot(*n, z);
    return rad ? *gap - dist_pair_offset(beta, rad) < dhat : *gap < dhat;
}

/* ---------------------------------------------------------------- axis-aligned boxes */

/* Box of x0 and y1 inflated by r. */
SIPD_HD void aabb_of_motion(vec3 x0, vec3 y1, sipd_real r, vec3 *lo, vec3 *hi)
{
    int k;
    for (k = 0; k < 3; k++) {
        lo->v[k] = sipd_min(x0.v[k], y1.v[k]) - r;
        hi->v[k] = sipd_max(x0.v[k], y1.v[k]) + r;
    }
}

/* (lo, hi) ∪= (lo2, hi2) */
SIPD_HD void aabb_union(vec3 *lo, vec3 *hi, vec3 lo2, vec3 hi2)
{
    int k;
    for (k = 0; k < 3; k++) {
        lo->v[k] = sipd_min(lo->v[k], lo2.v[k]);
        hi->v[k] = sipd_max(hi->v[k], hi2.v[k]);
    }
}

/* 1 when the closed boxes intersect. */
SIPD_HD int aabb_overlap(vec3 lo1, vec3 hi1, vec3 lo2, vec3 hi2)
{
    return lo1.v[0] <= hi2.v[0] && lo2.v[0] <= hi1.v[0] && lo1.v[1] <= hi2.v[1] && lo2.v[1] <= hi1.v[1] &&
           lo1.v[2] <= hi2.v[2] && lo2.v[2] <= hi1.v[2];
}

/* Distance by which p lies outside the box (0 inside): max over axes. */
SIPD_HD sipd_real aabb_outside(vec3 p, vec3 lo, vec3 hi)
{
    sipd_real d = 0;
    int k;
    for (k = 0; k < 3; k++) {
        d = sipd_max(d, lo.v[k] - p.v[k]);
        d = sipd_max(d, p.v[k] - hi.v[k]);
    }
    return d;
}

#endif
