/* tet.h — linear tetrahedron quantities (docs/design.md §3.2–3.3).
 *
 * Rest data per tet: Bm = Dm⁻¹ (row-major; row a is ∇N_{a+1}, a = 0..2; ∇N_0 = −Σ rows)
 * and V = |det Dm|/6.  For current positions y:
 *   F = Ds Bm,  Ds = [y1−y0, y2−y0, y3−y0]
 *   gradient of V Ψ(F) on vertex a:   V P ∇N_a
 *   SIPD block contribution:          V |∇N_a|² K⁺
 * The pairwise form Σ_{b≠a} w_ab K (y_a − y_b), w_ab = −V ∇N_a·∇N_b, equals V P ∇N_a exactly
 * (tests/unit/test_physics.c checks it); we compute the cheaper V P ∇N_a and use the pairwise
 * structure only for the preconditioner.
 */
#ifndef SIPD_PHYSICS_TET_H
#define SIPD_PHYSICS_TET_H

#include "material.h"

/* Shape-function gradient of local vertex a (0..3) from Bm. */
SIPD_HD vec3 tet_gradN(const sipd_real *Bm, int a)
{
    if (a == 0)
        return v3(-(Bm[0] + Bm[3] + Bm[6]), -(Bm[1] + Bm[4] + Bm[7]), -(Bm[2] + Bm[5] + Bm[8]));
    return v3(Bm[3 * (a - 1)], Bm[3 * (a - 1) + 1], Bm[3 * (a - 1) + 2]);
}

/* Rest quantities from the four rest positions; returns the signed volume (Bm untouched
 * when the tet is degenerate, i.e. det Dm == 0). */
SIPD_HD sipd_real tet_rest(vec3 x0, vec3 x1, vec3 x2, vec3 x3, sipd_real *Bm)
{
    mat3 Dm = m3_from_cols(v3_sub(x1, x0), v3_sub(x2, x0), v3_sub(x3, x0)), inv;
    sipd_real det = m3_det(Dm);
    int i;
    if (det != 0 && m3_inverse(Dm, &inv))
        for (i = 0; i < 9; i++) Bm[i] = inv.m[i];
    return det / 6;
}

/* F = Ds Bm */
SIPD_HD mat3 tet_F(const sipd_real *Bm, vec3 y0, vec3 y1, vec3 y2, vec3 y3)
{
    vec3 d1 = v3_sub(y1, y0), d2 = v3_sub(y2, y0), d3 = v3_sub(y3, y0);
    mat3 F;
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            F.m[3 * i + j] = d1.v[i] * Bm[j] + d2.v[i] * Bm[3 + j] + d3.v[i] * Bm[6 + j];
    return F;
}

/* Element pass: gradient of V Ψ on the four vertices (grad[a]) and K⁺. */
SIPD_HD void tet_element(const sipd_material *mat, int split, const sipd_real *Bm, sipd_real vol,
                         vec3 y0, vec3 y1, vec3 y2, vec3 y3, vec3 grad[4], sym3 *Kp)
{
    mat3 F = tet_F(Bm, y0, y1, y2, y3), P;
    int a;
    material_eval(mat, split, F, &P, Kp);
    for (a = 1; a < 4; a++)
        grad[a] = v3_scale(m3_mulv(P, v3(Bm[3 * (a - 1)], Bm[3 * (a - 1) + 1], Bm[3 * (a - 1) + 2])), vol);
    grad[0] = v3_scale(v3_add(v3_add(grad[1], grad[2]), grad[3]), -1);
}

/* Gradient on one local vertex a only (Gauss–Seidel gathers), K⁺, and V Ψ(F) from the same F
 * (the start point of the per-vertex line search comes free with the gather). */
SIPD_HD vec3 tet_vertex_eval(const sipd_material *mat, int split, const sipd_real *Bm, sipd_real vol,
                             vec3 y0, vec3 y1, vec3 y2, vec3 y3, int a, sym3 *Kp, sipd_real *energy)
{
    mat3 F = tet_F(Bm, y0, y1, y2, y3), P;
    *energy = vol * material_psi(mat, F);
#ifdef __CUDA_ARCH__
    /* stable neo-Hookean on the device: the corner's gradient before K⁺, so that P (9 registers)
     * is dead across the split's IEEE division and eigen-fix subroutine calls (Gauss–Seidel
     * kernels: results/registers-29.md, step 5).  The same arithmetic: material_P is
     * material_eval's P. */
    if (mat->model == SIPD_MAT_STABLE_NEOHOOKEAN) {
        vec3 g = v3_scale(m3_mulv(material_P(mat, F), tet_gradN(Bm, a)), vol);
        material_eval(mat, split, F, &P, Kp);
        return g;
    }
#endif
    material_eval(mat, split, F, &P, Kp);
    return v3_scale(m3_mulv(P, tet_gradN(Bm, a)), vol);
}

SIPD_HD vec3 tet_vertex_gradient(const sipd_material *mat, int split, const sipd_real *Bm,
                                 sipd_real vol, vec3 y0, vec3 y1, vec3 y2, vec3 y3, int a, sym3 *Kp)
{
    sipd_real unused;
    return tet_vertex_eval(mat, split, Bm, vol, y0, y1, y2, y3, a, Kp, &unused);
}

/* V Ψ(F) */
SIPD_HD sipd_real tet_energy(const sipd_material *mat, const sipd_real *Bm, sipd_real vol,
                             vec3 y0, vec3 y1, vec3 y2, vec3 y3)
{
    return vol * material_psi(mat, tet_F(Bm, y0, y1, y2, y3));
}

/* Pairwise (SIPD) form of the same gradient, Σ_{b≠a} w_ab K (y_a − y_b) — for verification. */
SIPD_HD vec3 tet_pairwise_gradient(const sipd_material *mat, const sipd_real *Bm, sipd_real vol,
                                   const vec3 y[4], int a)
{
    mat3 F = tet_F(Bm, y[0], y[1], y[2], y[3]);
    sym3 K = material_K(mat, F);
    vec3 ga = tet_gradN(Bm, a), acc = v3(0, 0, 0);
    int b;
    for (b = 0; b < 4; b++) {
        if (b == a)
            continue;
        acc = v3_axpy(-vol * v3_dot(ga, tet_gradN(Bm, b)), v3_sub(y[a], y[b]), acc);
    }
    return s3_mulv(K, acc);
}

#endif
