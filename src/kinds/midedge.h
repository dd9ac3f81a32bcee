/* midedge.h — mid-edge (Morley-type) bending of a triangle over its 12-vertex stencil; rest
 * [C (36), W' (6), b̄ (3), D] (46), measure Ā (physics/midedge.h).  No pairwise K: per-corner blocks.
 *
 * Its 12 corners' arrays live in these helpers, not in the
 * shared passes' locals.  The element pass is out of line: inlined, it took the SIPD element
 * kernel from 79 to 108–116 registers (ptxas, sm_90, float32), tets-only runs included.  The
 * energy and corner helpers are inline: out of line they cost the energy kernel 64 → 127 registers
 * and the Gauss–Seidel kernels up to 80 → 128 (a callee's registers count for its kernel).
 * The element pass: gradient, and the Jacobi-type blocks that majorise the element's Hessian
 * (weighted Cauchy–Schwarz, physics/midedge.h: midedge_element scales them itself) or Newton's 36x36. */
#ifndef SIPD_KINDS_MIDEDGE_H
#define SIPD_KINDS_MIDEDGE_H

#include "common.h"
#include "../physics/midedge.h"

SIPD_NOINLINE void kind_midedge_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                       const sipd_group_view *G, int e)
{
    const sipd_real *r = G->rest + MIDEDGE_REST * (size_t)e;
    const int *t = G->v + MIDEDGE_NC * (size_t)e;
    vec3 y[MIDEDGE_NC], gr[MIDEDGE_NC];
    sym3 B[MIDEDGE_NC];
    int l, jac = kind_jacobi_type(precond);
    (void)mat;
    (void)split;
    for (l = 0; l < MIDEDGE_NC; l++) y[l] = view_ld(v->y, t[l]);
    midedge_element(r, G->vol[e], y, gr, jac ? B : NULL, 1);
    for (l = 0; l < MIDEDGE_NC; l++) v3_store(G->grad + 3 * MIDEDGE_NC * (size_t)e + 3 * l, gr[l]);
    if (jac)
        for (l = 0; l < MIDEDGE_NC; l++) kind_store_block(precond, G, MIDEDGE_NC, e, l, B[l]);
    else if (precond == SIPD_PRECOND_HESSIAN)
        midedge_element_hessian(r, G->vol[e], y, G->hess + 9 * MIDEDGE_NC * MIDEDGE_NC * (size_t)e);
}

/* Its energy with its corners at y + α dy (dy may be NULL), corner `over` at q (the line searches). */
SIPD_HD sipd_real kind_midedge_energy(const sipd_view *v, const sipd_material *mat, const sipd_group_view *G, int e,
                                      const sipd_real *dy, sipd_real alpha, int over, vec3 q)
{
    vec3 p[MIDEDGE_NC];
    (void)mat;
    pass_corners(v, G, e, dy, alpha, over, q, p);
    return midedge_energy(G->rest + MIDEDGE_REST * (size_t)e, G->vol[e], p);
}

/* Corner l's gradient at y, its own Gauss–Newton block added to *D with weight w (every
 * preconditioner but MASS: Gauss–Seidel and VBD solve the exact vertex block), energy, scale. */
SIPD_HD vec3 kind_midedge_corner(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                 const sipd_group_view *G, int e, int l, sipd_real w, sym3 *D, sipd_real *energy,
                                 sipd_real *scale)
{
    const sipd_real *r = G->rest + MIDEDGE_REST * (size_t)e;
    vec3 y[MIDEDGE_NC], ga;
    sym3 B;
    (void)mat;
    (void)split;
    pass_corners(v, G, e, NULL, 0, -1, v3(0, 0, 0), y);
    ga = midedge_corner(r, G->vol[e], y, l, &B, energy);
    *scale = r[45];   /* D: about the energy of a unit fold angle across an edge */
    kind_add_corner_block(precond, w, B, D);
    return ga;
}

/* per-corner blocks: weight 1 */
SIPD_HD sipd_real kind_midedge_weight(const sipd_real *rest, sipd_real vol, int l)
{
    (void)rest;
    (void)vol;
    (void)l;
    return 1;
}
/* D: about the energy of a unit fold angle across an edge */
SIPD_HD sipd_real kind_midedge_scale(const sipd_material *mat, const sipd_real *rest, sipd_real vol)
{
    (void)mat;
    (void)vol;
    return rest[45];
}

#endif

