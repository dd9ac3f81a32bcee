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
