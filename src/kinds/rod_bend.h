/* rod_bend.h — a rod's bending at an interior vertex (3 corners: the vertex and its two
 * neighbours); rest [κ̄, k_b] (physics/edge.h).  No pairwise K: per-corner Gauss–Newton blocks. */
#ifndef SIPD_KINDS_ROD_BEND_H
#define SIPD_KINDS_ROD_BEND_H

#include "common.h"
#include "../physics/edge.h"

SIPD_HD SIPD_ALWAYS_INLINE void kind_rod_bend_element(const sipd_view *v, const sipd_material *mat, int precond,
                                                       int split, const sipd_group_view *G, int e)
{
    const sipd_real *r = G->rest + 2 * (size_t)e;
    const int *t = G->v + 3 * (size_t)e;
    vec3 y[3], gr[3];
    sym3 B[3];
    int l;
    (void)mat;
    (void)split;
    for (l = 0; l < 3; l++) y[l] = view_ld(v->y, t[l]);
    rod_bend_element(r[0], r[1], y[0], y[1], y[2], gr, B);
    for (l = 0; l < 3; l++) v3_store(G->grad + 9 * (size_t)e + 3 * l, gr[l]);
    if (kind_jacobi_type(precond))
        for (l = 0; l < 3; l++) kind_store_majorant(precond, G, 3, e, l, B[l]);
    else if (precond == SIPD_PRECOND_HESSIAN)
        rod_bend_element_hessian(r[0], r[1], y[0], y[1], y[2], G->hess + 81 * (size_t)e);
}

/* kind_rod_bend_element for the CUDA backend's rod-bending element kernel (passes.h
 * pass_element_fixed; not Newton's Hessian): each corner's gradient and majorant stored as it is
 * computed, not gathered into arrays first; the arithmetic is rod_bend_element's (physics/edge.h).
 * With the arrays the kernel took 64 registers (ptxas sm_90, results/registers-29.md). */
SIPD_HD SIPD_ALWAYS_INLINE void kind_rod_bend_element_streamed(const sipd_view *v, int precond, const sipd_group_view *G,
                                                                int e)
{
    const sipd_real *r = G->rest + 2 * (size_t)e;
    const int *t = G->v + 3 * (size_t)e;
    mat3 J[3];
    vec3 kv = rod_kappa(view_ld(v->y, t[0]), view_ld(v->y, t[1]), view_ld(v->y, t[2]), J);
    sipd_real c;
    sym3 W = rod_bend_weights(r[0], r[1], kv, &c);
    int l;
    for (l = 0; l < 3; l++) {
        v3_store(G->grad + 9 * (size_t)e + 3 * l, v3_scale(m3_mulv(m3_transpose(J[l]), kv), c));
        if (kind_jacobi_type(precond))
            kind_store_majorant(precond, G, 3, e, l, rod_sym(rod_jtwj(J[l], W, J[l])));
    }
}

SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_rod_bend_energy(const sipd_view *v, const sipd_material *mat,
                                                          const sipd_group_view *G, int e, const sipd_real *dy,
                                                          sipd_real alpha, int over, vec3 q)
{
    vec3 p[3];
    (void)mat;
    pass_corners_nc(v, G, 3, e, dy, alpha, over, q, p);
    return rod_bend_energy(G->rest[2 * (size_t)e], G->rest[2 * (size_t)e + 1], p[0], p[1], p[2]);
}

SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_rod_bend_corner(const sipd_view *v, const sipd_material *mat, int precond,
                                                     int split, const sipd_group_view *G, int e, int l, sipd_real w,
                                                     sym3 *D, sipd_real *energy, sipd_real *scale)
{
    const sipd_real kbar = G->rest[2 * (size_t)e], kb = G->rest[2 * (size_t)e + 1];
    vec3 y[3], gr[3];
    sym3 B[3];
    (void)mat;
    (void)split;
    pass_corners_nc(v, G, 3, e, NULL, 0, -1, v3(0, 0, 0), y);
    rod_bend_element(kbar, kb, y[0], y[1], y[2], gr, B);
    *energy = rod_bend_energy(kbar, kb, y[0], y[1], y[2]);
    *scale = kb;   /* the energy at a unit curvature binormal */
    kind_add_corner_block(precond, w, B[l], D);
    return gr[l];
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h) */
/* rod_kappa (physics/edge.h) with corner l's Jacobian alone, entry by entry (J[l] of rod_kappa:
 * −A1, A1 − A2, A2 with the same A1, A2), so the three 3x3 Jacobians are never live together. */
SIPD_HD SIPD_ALWAYS_INLINE vec3 rod_kappa_corner(vec3 y0, vec3 y1, vec3 y2, int l, mat3 *Jl)
{
    vec3 e1 = v3_sub(y1, y0), e2 = v3_sub(y2, y1), c = v3_cross(e1, e2);
    sipd_real n1 = sipd_sqrt(v3_norm2(e1)), n2 = sipd_sqrt(v3_norm2(e2));
    sipd_real d = sipd_max(n1 * n2 + v3_dot(e1, e2), SIPD_REAL_EPS * n1 * n2);
    vec3 kb = v3_scale(c, 2 / d);
    vec3 dd1 = v3_axpy(n1 > 0 ? n2 / n1 : SIPD_R(0), e1, e2), dd2 = v3_axpy(n2 > 0 ? n1 / n2 : SIPD_R(0), e2, e1);
    mat3 S1 = m3_skew(e2), S2 = m3_skew(e1);
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            sipd_real a1 = -2 / d * S1.m[3 * i + j] - 2 / (d * d) * c.v[i] * dd1.v[j];
            sipd_real a2 = 2 / d * S2.m[3 * i + j] - 2 / (d * d) * c.v[i] * dd2.v[j];
            Jl->m[3 * i + j] = l == 0 ? -a1 : l == 1 ? a1 - a2 : a2;
        }
    return kb;
}

/* kind_rod_bend_corner for the Gauss–Seidel kernels that fix the kind (passes.h
 * pass_element_corner_fixed; rods with bending, k_gs_color_kinds): corner l's gradient and block
 * alone, not the three corners' gathered into arrays and one picked; the arithmetic is
 * rod_bend_element's and rod_bend_energy's (physics/edge.h), as in kind_rod_bend_element_streamed. */
SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_rod_bend_corner_fixed(const sipd_view *v, int precond, const sipd_group_view *G,
                                                           int e, int l, sipd_real w, sym3 *D, sipd_real *energy,
                                                           sipd_real *scale)
{
    const sipd_real kbar = G->rest[2 * (size_t)e], kb = G->rest[2 * (size_t)e + 1];
    vec3 y[3], kv;
    mat3 Jl;
    sipd_real c;
    sym3 W;
    pass_corners_nc(v, G, 3, e, NULL, 0, -1, v3(0, 0, 0), y);
    kv = rod_kappa_corner(y[0], y[1], y[2], l, &Jl);
    W = rod_bend_weights(kbar, kb, kv, &c);
    *energy = rod_bend_energy(kbar, kb, y[0], y[1], y[2]);
    *scale = kb;   /* the energy at a unit curvature binormal */
    kind_add_corner_block(precond, w, rod_sym(rod_jtwj(Jl, W, Jl)), D);
    return v3_scale(m3_mulv(m3_transpose(Jl), kv), c);
}
#endif

/* per-corner blocks: weight 1 */
SIPD_HD sipd_real kind_rod_bend_weight(const sipd_real *rest, sipd_real vol, int l)
{
    (void)rest;
    (void)vol;
    (void)l;
    return 1;
}
/* the energy at a unit curvature binormal, k_b */
SIPD_HD sipd_real kind_rod_bend_scale(const sipd_material *mat, const sipd_real *rest, sipd_real vol)
{
    (void)mat;
    (void)vol;
    return rest[1];
}

#endif
