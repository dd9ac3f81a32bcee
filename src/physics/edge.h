/* edge.h — springs and rod bending (docs/design.md §3.9), the edge kinds of src/kinds/ (edge.h, rod_bend.h).
 *
 * Spring (kind SIPD_KIND_EDGE, corners a = 0, 1; rest data [L, k]):
 *   E = k/2 (l − L)²,  l = |y1 − y0|,  d̂ = (y1 − y0)/l
 *   gradient on 0: k (1 − L/l)(y0 − y1)   (on 1: the negative)
 *   pairwise form: K = k (1 − L/l) I with weight 1; SIPD's split K⁺ = k I (expanded, the
 *   default; other projections: spring_kplus): it majorises the true vertex block k [d̂d̂ᵀ + (1 − L/l)(I − d̂d̂ᵀ)], which is indefinite under
 *   compression; VBD and Newton use its PSD form B = k [d̂d̂ᵀ + max(0, 1 − L/l)(I − d̂d̂ᵀ)]
 *   (element Hessian [[B, −B], [−B, B]]).
 *
 * Rod bending (kind SIPD_KIND_ROD_BEND, corners 0, 1, 2 = previous, interior, next vertex of a
 * polyline; rest data [κ̄, k_b]): the discrete curvature binormal of the 2 tan(φ/2) form
 * (φ the turning angle at vertex 1; Bergou et al. 2008),
 *   κb = 2 e1 × e2 / (|e1||e2| + e1·e2),   e1 = y1 − y0, e2 = y2 − y1,   |κb| = 2 tan(φ/2),
 *   E = k_b (|κb| − κ̄)²,   κ̄ = |κb| at rest,   k_b = E I / (L1 + L2),  I = π r⁴ / 4,
 * which is ½ EI κ² l̄ with κ = |κb|/l̄, l̄ = (L1 + L2)/2 (the vertex's Voronoi length): the
 * Euler–Bernoulli energy for small turning angles.  For a straight rest shape (κ̄ = 0) E = k_b|κb|²
 * is smooth, also at φ = 0, where the angle itself is not differentiable.  No twist: the section
 * is isotropic and the rest curvature enters only through |κb| (a rod whose rest shape is curved
 * resists a change of its curvature's magnitude, not of the bending plane).
 *   gradient:  2 k_b (1 − κ̄/|κb|) Jᵀ κb,   J = ∂κb/∂y (3x9, per corner J_a)
 *   PSD Hessian (Gauss–Newton, κb's own second derivatives dropped), the spring's form for
 *   s = |κb|, n̂ = κb/s:  2 k_b Jᵀ [n̂n̂ᵀ + max(0, 1 − κ̄/s)(I − n̂n̂ᵀ)] J  (2 k_b JᵀJ when κ̄ = 0).
 *   SIPD's preconditioner uses its per-corner diagonal blocks (no pairwise K for a 3-vertex
 *   angle), as do VBD and the Jacobi variants.
 */
#ifndef SIPD_PHYSICS_EDGE_H
#define SIPD_PHYSICS_EDGE_H

#include "mat3.h"

/* ---- springs ---------------------------------------------------------------------------- */

SIPD_HD sipd_real spring_energy(sipd_real L, sipd_real k, vec3 y0, vec3 y1)
{
    sipd_real l = sipd_sqrt(v3_norm2(v3_sub(y1, y0)));
    return SIPD_R(0.5) * k * (l - L) * (l - L);
}

/* gradient on corner 0 (corner 1 gets its negative); l = 0 gives 0 (no direction) */
SIPD_HD vec3 spring_gradient0(sipd_real L, sipd_real k, vec3 y0, vec3 y1)
{
    vec3 d = v3_sub(y0, y1);
    sipd_real l = sipd_sqrt(v3_norm2(d));
    return l > 0 ? v3_scale(d, k * (1 - L / l)) : v3(0, 0, 0);
}

/* the PSD vertex block k [d̂d̂ᵀ + max(0, 1 − L/l)(I − d̂d̂ᵀ)] (the same on both corners) */
SIPD_HD sym3 spring_block_psd(sipd_real L, sipd_real k, vec3 y0, vec3 y1)
{
    vec3 d = v3_sub(y1, y0);
    sipd_real l2 = v3_norm2(d), l = sipd_sqrt(l2), t;
    if (!(l > 0))
        return s3_diag(k);
    t = sipd_max(SIPD_R(0), 1 - L / l);
    return s3_axpy(k * (1 - t) / l2, s3_outer(d), s3_diag(k * t));
}

/* SIPD's K⁺ of a spring by the scene's projection (material.h split codes; 0 = expanded):
 *   expanded: k I (majorises the vertex block; conservative across a slack or compressed spring)
 *   sign:     the PSD vertex block k [d̂d̂ᵀ + max(0, 1 − L/l)(I − d̂d̂ᵀ)] (the positive parts of the
 *             Hessian's axial and transverse terms; relies on the line search like the tets' sign)
 *   none:     K = k (1 − L/l) I (the ablation: negative under compression)
 *   clamp:    max(0, k (1 − L/l)) I;   abs: |k (1 − L/l)| I   (the eigenvalue baselines of K) */
SIPD_HD sym3 spring_kplus(sipd_real L, sipd_real k, vec3 y0, vec3 y1, int split)
{
    sipd_real l = sipd_sqrt(v3_norm2(v3_sub(y1, y0))), c = l > 0 ? k * (1 - L / l) : SIPD_R(0);
    switch (split) {
    case 1: return spring_block_psd(L, k, y0, y1);
    case 2: return s3_diag(c);
    case 3: return s3_diag(sipd_max(c, SIPD_R(0)));
    case 4: return s3_diag(sipd_fabs(c));
    default: return s3_diag(k);
    }
}

/* 6x6 PSD element Hessian [[B, −B], [−B, B]], row-major, index 3a + k */
SIPD_HD void spring_element_hessian(sipd_real L, sipd_real k, vec3 y0, vec3 y1, sipd_real *H)
{
    mat3 B = s3_to_m3(spring_block_psd(L, k, y0, y1));
    int a, b, r, c;
    for (a = 0; a < 2; a++)
        for (b = 0; b < 2; b++)
            for (r = 0; r < 3; r++)
                for (c = 0; c < 3; c++) H[6 * (3 * a + r) + 3 * b + c] = (a == b ? 1 : -1) * B.m[3 * r + c];
}

/* ---- rod bending ------------------------------------------------------------------------ */

/* [v]×, the matrix of x ↦ v × x */
SIPD_HD mat3 m3_skew(vec3 v)
{
    mat3 r = m3_zero();
    r.m[1] = -v.v[2]; r.m[2] = v.v[1];
    r.m[3] = v.v[2];  r.m[5] = -v.v[0];
    r.m[6] = -v.v[1]; r.m[7] = v.v[0];
    return r;
}

/* κb of the three corners and, when J is not NULL, its Jacobians J[a] = ∂κb/∂y_a (3x3).  The
 * denominator |e1||e2| + e1·e2 vanishes only for a fully folded-back corner (φ = π); it is
 * floored at SIPD_REAL_EPS |e1||e2|. */
SIPD_HD vec3 rod_kappa(vec3 y0, vec3 y1, vec3 y2, mat3 *J)
{
    vec3 e1 = v3_sub(y1, y0), e2 = v3_sub(y2, y1), c = v3_cross(e1, e2);
    sipd_real n1 = sipd_sqrt(v3_norm2(e1)), n2 = sipd_sqrt(v3_norm2(e2));
    sipd_real d = sipd_max(n1 * n2 + v3_dot(e1, e2), SIPD_REAL_EPS * n1 * n2);
    vec3 kb = v3_scale(c, 2 / d);
    if (J) {
        /* ∂κb/∂e1 = 2/d (−[e2]×) − 2/d² c ⊗ (|e2| ê1 + e2);  ∂κb/∂e2 = 2/d [e1]× − 2/d² c ⊗ (|e1| ê2 + e1) */
        vec3 dd1 = v3_axpy(n1 > 0 ? n2 / n1 : SIPD_R(0), e1, e2), dd2 = v3_axpy(n2 > 0 ? n1 / n2 : SIPD_R(0), e2, e1);
        mat3 S1 = m3_skew(e2), S2 = m3_skew(e1), A1, A2;
        int i, j;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++) {
                A1.m[3 * i + j] = -2 / d * S1.m[3 * i + j] - 2 / (d * d) * c.v[i] * dd1.v[j];
                A2.m[3 * i + j] = 2 / d * S2.m[3 * i + j] - 2 / (d * d) * c.v[i] * dd2.v[j];
            }
        for (i = 0; i < 9; i++) {
            J[0].m[i] = -A1.m[i];
            J[1].m[i] = A1.m[i] - A2.m[i];
            J[2].m[i] = A2.m[i];
        }
    }
    return kb;
}

SIPD_HD sipd_real rod_bend_energy(sipd_real kbar, sipd_real kb, vec3 y0, vec3 y1, vec3 y2)
{
    sipd_real s = sipd_sqrt(v3_norm2(rod_kappa(y0, y1, y2, (mat3 *)0))) - kbar;
    return kb * s * s;
}

/* The weights of the PSD form on κb's space: W = 2 k_b [n̂n̂ᵀ + t (I − n̂n̂ᵀ)], t = max(0, 1 − κ̄/s),
 * and the gradient factor c = 2 k_b (1 − κ̄/s) (gradient = c Jᵀ κb; 0 at s = 0 when κ̄ > 0). */
SIPD_HD sym3 rod_bend_weights(sipd_real kbar, sipd_real kb, vec3 kv, sipd_real *c)
{
    sipd_real s2 = v3_norm2(kv), s = sipd_sqrt(s2), t;
    if (kbar <= 0) {
        *c = 2 * kb;
        return s3_diag(2 * kb);
    }
    if (!(s > 0)) {
        *c = 0;
        return s3_diag(2 * kb);
    }
    *c = 2 * kb * (1 - kbar / s);
    t = sipd_max(SIPD_R(0), 1 - kbar / s);
    return s3_axpy(2 * kb * (1 - t) / s2, s3_outer(kv), s3_diag(2 * kb * t));
}

/* Jᵀ W J for 3x3 J (W symmetric) */
SIPD_HD mat3 rod_jtwj(mat3 Ja, sym3 W, mat3 Jb)
{
    mat3 Wm = s3_to_m3(W), WJ = m3_mul(Wm, Jb);
    return m3_mul(m3_transpose(Ja), WJ);
}

SIPD_HD sym3 rod_sym(mat3 B)
{
    sym3 S;
    S.s[0] = B.m[0];
    S.s[1] = B.m[4];
    S.s[2] = B.m[8];
    S.s[3] = SIPD_R(0.5) * (B.m[1] + B.m[3]);
    S.s[4] = SIPD_R(0.5) * (B.m[2] + B.m[6]);
    S.s[5] = SIPD_R(0.5) * (B.m[5] + B.m[7]);
    return S;
}

/* Gradient on the three corners and (blk not NULL) the PSD diagonal blocks per corner. */
SIPD_HD void rod_bend_element(sipd_real kbar, sipd_real kb, vec3 y0, vec3 y1, vec3 y2, vec3 grad[3], sym3 *blk)
{
    mat3 J[3];
    vec3 kv = rod_kappa(y0, y1, y2, J);
    sipd_real c;
    sym3 W = rod_bend_weights(kbar, kb, kv, &c);
    int a;
    for (a = 0; a < 3; a++) {
        grad[a] = v3_scale(m3_mulv(m3_transpose(J[a]), kv), c);
        if (blk)
            blk[a] = rod_sym(rod_jtwj(J[a], W, J[a]));
    }
}

/* 9x9 PSD element Hessian Jᵀ W J, row-major, index 3a + k */
SIPD_HD void rod_bend_element_hessian(sipd_real kbar, sipd_real kb, vec3 y0, vec3 y1, vec3 y2, sipd_real *H)
{
    mat3 J[3];
    vec3 kv = rod_kappa(y0, y1, y2, J);
    sipd_real c;
    sym3 W = rod_bend_weights(kbar, kb, kv, &c);
    int a, b, r, s;
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++) {
            mat3 B = rod_jtwj(J[a], W, J[b]);
            for (r = 0; r < 3; r++)
                for (s = 0; s < 3; s++) H[9 * (3 * a + r) + 3 * b + s] = B.m[3 * r + s];
        }
}

#endif
