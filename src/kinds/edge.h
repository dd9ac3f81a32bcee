/* edge.h — the edge kind: springs, and a rod's stretching; rest [L, k], measure L
 * (physics/edge.h).  K⁺ = k I pairs the two ends with weight 1. */
#ifndef SIPD_KINDS_EDGE_H
#define SIPD_KINDS_EDGE_H

#include "common.h"
#include "../physics/edge.h"
#include "../physics/fields.h"
#include "../physics/mixed.h"

/* The element pass: K⁺ = k I (SPLIT); BLOCK/DIAG and HESSIAN: the PSD block (the same at both ends). */
SIPD_HD SIPD_ALWAYS_INLINE void kind_edge_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                   const sipd_group_view *G, int e)
{
    const sipd_real *r = G->rest + 2 * (size_t)e;
    const int *t = G->v + 2 * (size_t)e;
    const vec3 y0 = view_ld(v->y, t[0]), y1 = view_ld(v->y, t[1]);
    vec3 g0 = spring_gradient0(r[0], r[1], y0, y1);
    (void)mat;
    v3_store(G->grad + 6 * (size_t)e, g0);
    v3_store(G->grad + 6 * (size_t)e + 3, v3_scale(g0, -1));
    if (precond == SIPD_PRECOND_SPLIT) {
        s3_store(G->blk + 6 * (size_t)e, spring_kplus(r[0], r[1], y0, y1, split));
    } else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG) {
        sym3 B = spring_block_psd(r[0], r[1], y0, y1);
        kind_store_block(precond, G, 2, e, 0, B);
        kind_store_block(precond, G, 2, e, 1, B);
    } else if (precond == SIPD_PRECOND_HESSIAN) {
        spring_element_hessian(r[0], r[1], y0, y1, G->hess + 36 * (size_t)e);
    }
}

SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_edge_energy(const sipd_view *v, const sipd_material *mat,
                                                      const sipd_group_view *G, int e, const sipd_real *dy,
                                                      sipd_real alpha, int over, vec3 q)
{
    vec3 p[2];
    (void)mat;
    pass_corners_nc(v, G, 2, e, dy, alpha, over, q, p);
    return spring_energy(G->rest[2 * (size_t)e], G->rest[2 * (size_t)e + 1], p[0], p[1]);
}

SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_edge_corner(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                 const sipd_group_view *G, int e, int l, sipd_real w, sym3 *D,
                                                 sipd_real *energy, sipd_real *scale)
{
    const sipd_real L = G->rest[2 * (size_t)e], kk = G->rest[2 * (size_t)e + 1];
    vec3 y[2], ga;
    (void)mat;
    pass_corners_nc(v, G, 2, e, NULL, 0, -1, v3(0, 0, 0), y);
    ga = spring_gradient0(L, kk, y[0], y[1]);
    if (l == 1)
        ga = v3_scale(ga, -1);
    *energy = spring_energy(L, kk, y[0], y[1]);
    *scale = kk * L * L;   /* the energy at unit strain */
    if (precond == SIPD_PRECOND_SPLIT)
        *D = s3_axpy(w, spring_kplus(L, kk, y[0], y[1], split), *D);
    else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG)
        kind_add_block(precond, spring_block_psd(L, kk, y[0], y[1]), D);
    return ga;
}

/* SIPD's weight of either end: 1 (K = k(1 − L/l) I pairs the two ends with weight 1) */
SIPD_HD sipd_real kind_edge_weight(const sipd_real *rest, sipd_real vol, int l)
{
    (void)rest;
    (void)vol;
    (void)l;
    return 1;
}
/* the energy at unit strain, k L² */
SIPD_HD sipd_real kind_edge_scale(const sipd_material *mat, const sipd_real *rest, sipd_real vol)
{
    (void)mat;
    (void)vol;
    return rest[1] * rest[0] * rest[0];
}

/* mixed FEM (src/mixed.c): the stretch l/L */
SIPD_HD void kind_edge_mixed_shat(const sipd_real *rest, const vec3 *y, sipd_real *shat)
{
    shat[0] = mixed_edge_shat(rest[0], y[0], y[1]);
}
SIPD_HD void kind_edge_mixed_system(const sipd_material *mat, const sipd_real *rest, sipd_real vol, const vec3 *y,
                                    const sipd_real *s, sipd_real *K, sipd_real *r, sipd_real *BJ, sipd_real *Hs,
                                    sipd_real *gs, sipd_real *shat)
{
    (void)mat;
    (void)vol;
    mixed_edge_system(rest[0], rest[1], y[0], y[1], s, K, r, BJ, Hs, gs, shat);
}
SIPD_HD sipd_real kind_edge_mixed_lagrangian(const sipd_material *mat, const sipd_real *rest, sipd_real vol,
                                             const vec3 *y, const sipd_real *s, const sipd_real *lam)
{
    (void)mat;
    (void)vol;
    return mixed_edge_lagrangian(rest[0], rest[1], y[0], y[1], s, lam);
}

/* output.fields (src/fields.c): axial strain and stress over the cross-section `area` */
SIPD_HD sipd_elem_fields kind_edge_fields(const sipd_material *mat, const sipd_real *rest, const vec3 *X, const vec3 *x,
                                          sipd_real area)
{
    (void)mat;
    return field_edge(rest[0], rest[1], area, X[0], X[1], x[0], x[1]);
}

#endif
