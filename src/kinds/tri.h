/* tri.h — membrane triangles (cloth, shells): rest Bm (2x2), measure A·t, the in-plane materials
 * (physics/tri.h).  One in-plane K⁺ per triangle (SIPD's split). */
#ifndef SIPD_KINDS_TRI_H
#define SIPD_KINDS_TRI_H

#include "common.h"
#include "../physics/fields.h"
#include "../physics/mixed.h"
#include "../physics/tri.h"

SIPD_HD SIPD_ALWAYS_INLINE void kind_tri_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                  const sipd_group_view *G, int e)
{
    const sipd_real *Bm = G->rest + 4 * (size_t)e, vol = G->vol[e];
    const int *t = G->v + 3 * (size_t)e;
    vec3 y[3], gr[3];
    sym3 Kp;
    int l;
    for (l = 0; l < 3; l++) y[l] = view_ld(v->y, t[l]);
    tri_element(mat, split, Bm, vol, y[0], y[1], y[2], gr, &Kp);
    for (l = 0; l < 3; l++) v3_store(G->grad + 9 * (size_t)e + 3 * l, gr[l]);
    if (precond == SIPD_PRECOND_SPLIT) {
        s3_store(G->blk + 6 * (size_t)e, Kp);
    } else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG || precond == SIPD_PRECOND_HESSIAN) {
        vec3 f0, f1;
        tri_F(Bm, y[0], y[1], y[2], &f0, &f1);
        if (precond == SIPD_PRECOND_HESSIAN) {
            tri_element_hessian(mat, Bm, vol, f0, f1, G->hess + 81 * (size_t)e);
        } else {
            sym3 B[3];
            tri_vertex_blocks_psd(mat, Bm, vol, f0, f1, B);
            for (l = 0; l < 3; l++) kind_store_block(precond, G, 3, e, l, B[l]);
        }
    }
}

SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_tri_energy(const sipd_view *v, const sipd_material *mat,
                                                     const sipd_group_view *G, int e, const sipd_real *dy,
                                                     sipd_real alpha, int over, vec3 q)
{
    vec3 p[3];
    pass_corners_nc(v, G, 3, e, dy, alpha, over, q, p);
    return tri_energy(mat, G->rest + 4 * (size_t)e, G->vol[e], p[0], p[1], p[2]);
}

SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_tri_corner(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                const sipd_group_view *G, int e, int l, sipd_real w, sym3 *D,
                                                sipd_real *energy, sipd_real *scale)
{
    const sipd_real *Bm = G->rest + 4 * (size_t)e, vol = G->vol[e];
    vec3 y[3], gr[3];
    sym3 Kp;
    pass_corners_nc(v, G, 3, e, NULL, 0, -1, v3(0, 0, 0), y);
    tri_element(mat, split, Bm, vol, y[0], y[1], y[2], gr, &Kp);
    *energy = tri_energy(mat, Bm, vol, y[0], y[1], y[2]);
    *scale = (mat->mu + mat->lambda) * vol;
    if (precond == SIPD_PRECOND_SPLIT) {
        *D = s3_axpy(w, Kp, *D);
    } else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG) {
        vec3 f0, f1;
        tri_F(Bm, y[0], y[1], y[2], &f0, &f1);
        kind_add_block(precond, tri_vertex_block_psd(mat, Bm, vol, f0, f1, l), D);
    }
    return gr[l];
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h) */
/* kind_tri_corner for the kernels that fix the kind (passes.h pass_element_corner_fixed; the
 * Gauss–Seidel kernels of triangle models, k_gs_color_tri_snh): corner l's gradient alone, from P
 * evaluated first (tri_eval without K⁺), then K⁺, so the gradients are not an array indexed by l
 * and P is dead across K⁺'s projection.  The arithmetic is kind_tri_corner's (tri_element, tri_energy). */
SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_tri_corner_fixed(const sipd_view *v, const sipd_material *mat, int precond,
                                                      int split, const sipd_group_view *G, int e, int l, sipd_real w,
                                                      sym3 *D, sipd_real *energy, sipd_real *scale)
{
    const sipd_real *Bm = G->rest + 4 * (size_t)e, vol = G->vol[e];
    vec3 y[3], f0, f1, p0, p1, g1, g2, ga;
    sym3 Kp;
    pass_corners_nc(v, G, 3, e, NULL, 0, -1, v3(0, 0, 0), y);
    tri_F(Bm, y[0], y[1], y[2], &f0, &f1);
    *energy = vol * tri_psi(mat, f0, f1);
    *scale = (mat->mu + mat->lambda) * vol;
    tri_eval(mat, split, f0, f1, &p0, &p1, NULL);
    g1 = v3_scale(v3_add(v3_scale(p0, Bm[0]), v3_scale(p1, Bm[1])), vol);
    g2 = v3_scale(v3_add(v3_scale(p0, Bm[2]), v3_scale(p1, Bm[3])), vol);
    ga = l == 0 ? v3_scale(v3_add(g1, g2), -1) : l == 1 ? g1 : g2;
    if (precond == SIPD_PRECOND_SPLIT) {
        tri_eval(mat, split, f0, f1, &p0, &p1, &Kp);
        *D = s3_axpy(w, Kp, *D);
    } else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG) {
        kind_add_block(precond, tri_vertex_block_psd(mat, Bm, vol, f0, f1, l), D);
    }
    return ga;
}
#endif

/* SIPD's weight of corner l: A t |∇N_l|² */
SIPD_HD sipd_real kind_tri_weight(const sipd_real *rest, sipd_real vol, int l)
{
    sipd_real g[2];
    tri_gradN(rest, l, g);
    return vol * (g[0] * g[0] + g[1] * g[1]);
}
/* the element's energy scale (μ + λ) A t */
SIPD_HD sipd_real kind_tri_scale(const sipd_material *mat, const sipd_real *rest, sipd_real vol)
{
    (void)rest;
    return (mat->mu + mat->lambda) * vol;
}

/* mixed FEM (src/mixed.c): the in-plane stretch (stable neo-Hookean only: mixed_kinds_supported) */
SIPD_HD void kind_tri_mixed_shat(const sipd_real *rest, const vec3 *y, sipd_real *shat)
{
    mixed_tri_shat(rest, y[0], y[1], y[2], shat);
}
SIPD_HD void kind_tri_mixed_system(const sipd_material *mat, const sipd_real *rest, sipd_real vol, const vec3 *y,
                                   const sipd_real *s, sipd_real *K, sipd_real *r, sipd_real *BJ, sipd_real *Hs,
                                   sipd_real *gs, sipd_real *shat)
{
    mixed_tri_system(mat, rest, vol, y[0], y[1], y[2], s, K, r, BJ, Hs, gs, shat);
}
SIPD_HD sipd_real kind_tri_mixed_lagrangian(const sipd_material *mat, const sipd_real *rest, sipd_real vol,
                                            const vec3 *y, const sipd_real *s, const sipd_real *lam)
{
    return mixed_tri_lagrangian(mat, rest, vol, y[0], y[1], y[2], s, lam);
}

/* output.fields (src/fields.c): in-plane strain and stress at x, from the rest positions X */
SIPD_HD sipd_elem_fields kind_tri_fields(const sipd_material *mat, const sipd_real *rest, const vec3 *X, const vec3 *x,
                                         sipd_real area)
{
    (void)area;
    return field_tri(mat, rest, X[0], X[1], X[2], x[0], x[1], x[2]);
}

#endif
