/* hinge.h — dihedral bending of an interior edge of a triangle mesh (4 corners: the edge and the
 * two opposite vertices); rest [θ̄, k_e] (physics/bend.h).  No pairwise K: per-corner
 * Gauss–Newton blocks. */
#ifndef SIPD_KINDS_HINGE_H
#define SIPD_KINDS_HINGE_H

#include "common.h"
#include "../physics/bend.h"

SIPD_HD SIPD_ALWAYS_INLINE void kind_hinge_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                    const sipd_group_view *G, int e)
{
    const sipd_real *r = G->rest + 2 * (size_t)e;
    const int *t = G->v + 4 * (size_t)e;
    vec3 y[4], gr[4];
    sym3 B[4];
    int l;
    (void)mat;
    (void)split;
    for (l = 0; l < 4; l++) y[l] = view_ld(v->y, t[l]);
    hinge_element(r[0], r[1], y[0], y[1], y[2], y[3], gr, B);
    for (l = 0; l < 4; l++) v3_store(G->grad + 12 * (size_t)e + 3 * l, gr[l]);
    if (kind_jacobi_type(precond))
        for (l = 0; l < 4; l++) kind_store_majorant(precond, G, 4, e, l, B[l]);
    else if (precond == SIPD_PRECOND_HESSIAN)
        hinge_element_hessian(r[1], y[0], y[1], y[2], y[3], G->hess + 144 * (size_t)e);
}

SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_hinge_energy(const sipd_view *v, const sipd_material *mat,
                                                       const sipd_group_view *G, int e, const sipd_real *dy,
                                                       sipd_real alpha, int over, vec3 q)
{
    vec3 p[4];
    (void)mat;
    pass_corners_nc(v, G, 4, e, dy, alpha, over, q, p);
    return hinge_energy(G->rest[2 * (size_t)e], G->rest[2 * (size_t)e + 1], p[0], p[1], p[2], p[3]);
}

SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_hinge_corner(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                  const sipd_group_view *G, int e, int l, sipd_real w, sym3 *D,
                                                  sipd_real *energy, sipd_real *scale)
{
    const sipd_real thbar = G->rest[2 * (size_t)e], ke = G->rest[2 * (size_t)e + 1];
    vec3 y[4], gr[4];
    sym3 B[4];
    (void)mat;
    (void)split;
    pass_corners_nc(v, G, 4, e, NULL, 0, -1, v3(0, 0, 0), y);
    hinge_element(thbar, ke, y[0], y[1], y[2], y[3], gr, B);
    *energy = hinge_energy(thbar, ke, y[0], y[1], y[2], y[3]);
    *scale = ke;   /* the energy at a unit angle */
    kind_add_corner_block(precond, w, B[l], D);
    return gr[l];
}

/* per-corner blocks: weight 1 */
SIPD_HD sipd_real kind_hinge_weight(const sipd_real *rest, sipd_real vol, int l)
{
    (void)rest;
    (void)vol;
    (void)l;
    return 1;
}
/* the energy at a unit angle, k_e */
SIPD_HD sipd_real kind_hinge_scale(const sipd_material *mat, const sipd_real *rest, sipd_real vol)
{
    (void)mat;
    (void)vol;
    return rest[1];
}

#endif
