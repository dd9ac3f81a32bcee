/* bend.h — dihedral-angle bending of a triangle body's interior edges (discrete shells,
 * docs/design.md §3.9), kind SIPD_KIND_HINGE.
 *
 * Corners: 0, 1 the edge (e = y1 − y0), 2 the third vertex of the triangle (0, 1, 2), 3 that of
 * the triangle (1, 0, 3); normals nA = e × (y2 − y0), nB = (y3 − y0) × e (equal for a flat pair
 * with 2 and 3 on opposite sides).  The signed dihedral angle
 *   θ = atan2((nA × nB)·ê, nA·nB)
 * and its gradient in closed form: with h_A = |nA|/|e| the distance of y2 from the edge line and
 * s_A = (y2 − y0)·e/|e|² the position of its foot along the edge (likewise B),
 *   ∇₂θ = −|e| nA/|nA|²,  ∇₃θ = −|e| nB/|nB|²,
 *   ∇₀θ = −(1 − s_A)∇₂θ − (1 − s_B)∇₃θ,   ∇₁θ = −s_A∇₂θ − s_B∇₃θ
 * (rotating y2 about the edge by δ/h_A turns θ by ∓δ/h_A; translations and rotations of the
 * four leave θ unchanged: the tests check it against finite differences).
 * Energy E = k_e (θ − θ̄)², rest data [θ̄, k_e], k_e = D |ē|² / (2(Ā_A + Ā_B)) with the plate's
 * bending stiffness D = E t³ / (12(1 − ν²)) (or bodies[].bending_stiffness): across a
 * structured grid bent into a cylinder of curvature κ the hinges carry θ = κ × (the distance
 * between the triangles' mid-spans), and this k_e gives D/2 κ² per area (Kirchhoff); the
 * clamped-strip test measures it.  The preconditioner block is the Gauss–Newton term
 * 2 k_e ∇θ∇θᵀ (PSD; per corner 2 k_e ∇_aθ∇_aθᵀ), also Newton's 12x12 element Hessian.
 */
#ifndef SIPD_PHYSICS_BEND_H
#define SIPD_PHYSICS_BEND_H

#include "mat3.h"

SIPD_HD sipd_real hinge_theta(vec3 y0, vec3 y1, vec3 y2, vec3 y3)
{
    vec3 e = v3_sub(y1, y0), nA = v3_cross(e, v3_sub(y2, y0)), nB = v3_cross(v3_sub(y3, y0), e);
    sipd_real le = sipd_sqrt(v3_norm2(e));
    sipd_real sn = le > 0 ? v3_dot(v3_cross(nA, nB), e) / le : SIPD_R(0);
    return atan2(sn, v3_dot(nA, nB));
}

/* ∇θ on the four corners; 0 when the edge or a triangle is degenerate */
SIPD_HD void hinge_grad_theta(vec3 y0, vec3 y1, vec3 y2, vec3 y3, vec3 g[4])
{
    vec3 e = v3_sub(y1, y0), nA = v3_cross(e, v3_sub(y2, y0)), nB = v3_cross(v3_sub(y3, y0), e);
    sipd_real le2 = v3_norm2(e), le = sipd_sqrt(le2), a2 = v3_norm2(nA), b2 = v3_norm2(nB), sA, sB;
    int a;
    if (!(le2 > 0) || !(a2 > 0) || !(b2 > 0)) {
        for (a = 0; a < 4; a++) g[a] = v3(0, 0, 0);
        return;
    }
    g[2] = v3_scale(nA, -le / a2);
    g[3] = v3_scale(nB, -le / b2);
    sA = v3_dot(v3_sub(y2, y0), e) / le2;
    sB = v3_dot(v3_sub(y3, y0), e) / le2;
    g[0] = v3_axpy(-(1 - sA), g[2], v3_scale(g[3], -(1 - sB)));
    g[1] = v3_axpy(-sA, g[2], v3_scale(g[3], -sB));
}

/* θ − θ̄ wrapped into (−π, π] */
SIPD_HD sipd_real hinge_dtheta(sipd_real th, sipd_real thbar)
{
    const sipd_real pi = SIPD_R(3.14159265358979323846);
    sipd_real d = th - thbar;
    if (d > pi)
        d -= 2 * pi;
    if (d <= -pi)
        d += 2 * pi;
    return d;
}

SIPD_HD sipd_real hinge_energy(sipd_real thbar, sipd_real ke, vec3 y0, vec3 y1, vec3 y2, vec3 y3)
{
    sipd_real d = hinge_dtheta(hinge_theta(y0, y1, y2, y3), thbar);
    return ke * d * d;
}

/* gradient 2 k_e (θ − θ̄) ∇θ on the four corners and (blk not NULL) the blocks 2 k_e ∇_aθ ∇_aθᵀ */
SIPD_HD void hinge_element(sipd_real thbar, sipd_real ke, vec3 y0, vec3 y1, vec3 y2, vec3 y3, vec3 grad[4], sym3 *blk)
{
    vec3 g[4];
    sipd_real d = hinge_dtheta(hinge_theta(y0, y1, y2, y3), thbar);
    int a;
    hinge_grad_theta(y0, y1, y2, y3, g);
    for (a = 0; a < 4; a++) {
        grad[a] = v3_scale(g[a], 2 * ke * d);
        if (blk)
            blk[a] = s3_axpy(2 * ke, s3_outer(g[a]), s3_zero());
    }
}

/* 12x12 Gauss–Newton element Hessian 2 k_e ∇θ∇θᵀ, row-major, index 3a + k */
SIPD_HD void hinge_element_hessian(sipd_real ke, vec3 y0, vec3 y1, vec3 y2, vec3 y3, sipd_real *H)
{
    vec3 g[4];
    int a, b, i, k;
    hinge_grad_theta(y0, y1, y2, y3, g);
    for (a = 0; a < 4; a++)
        for (b = 0; b < 4; b++)
            for (i = 0; i < 3; i++)
                for (k = 0; k < 3; k++) H[12 * (3 * a + i) + 3 * b + k] = 2 * ke * g[a].v[i] * g[b].v[k];
}

#endif
