/* tet.h — the tetrahedron kind (solids): linear tets, rest Bm = Dm⁻¹ (9), measure V, any of the
 * five materials (physics/tet.h, physics/material.h).  One K⁺ per element (SIPD's split). */
#ifndef SIPD_KINDS_TET_H
#define SIPD_KINDS_TET_H

#include "common.h"
#include "../physics/fields.h"
#include "../physics/hessian.h"
#include "../physics/mixed.h"
#include "../physics/tet.h"

/* The element pass with material *mat, its corners in four locals (no corner array through
 * memory).  The CPU backend calls kind_tet_element directly for a tet group, inlined into its
 * element loop: compiled inside pass_element (out of line: its frame, sized by the other kinds,
 * stops GCC inlining it) the same arithmetic took about 15% longer per Jacobi iteration, bit for
 * bit the same results (docs/benchmarks.md, "The 29% Jacobi slowdown").  The CUDA backend calls
 * kind_tet_element_mat with a local copy of the material whose model is a compile-time constant
 * (kernels/backend_cuda.cu k_element_tet_snh): the other models' branches, and their out-of-line
 * calls, then fold away. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_tet_element_mat(const sipd_view *v, const sipd_material *mat, int precond,
                                                      int split, const sipd_group_view *G, int e)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    const int *t = G->v + 4 * (size_t)e;
    const vec3 y0 = view_ld(v->y, t[0]), y1 = view_ld(v->y, t[1]);
    const vec3 y2 = view_ld(v->y, t[2]), y3 = view_ld(v->y, t[3]);
    vec3 gr[4];
    sym3 Kp;
    int l;
    tet_element(mat, split, Bm, vol, y0, y1, y2, y3, gr, &Kp);
    for (l = 0; l < 4; l++) v3_store(G->grad + 12 * (size_t)e + 3 * l, gr[l]);
    if (precond == SIPD_PRECOND_SPLIT) {
        s3_store(G->blk + 6 * (size_t)e, Kp);
    } else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG) {
        mat3 F = tet_F(Bm, y0, y1, y2, y3);
        for (l = 0; l < 4; l++) kind_store_block(precond, G, 4, e, l, tet_vertex_block_psd(mat, Bm, vol, F, l));
    } else if (precond == SIPD_PRECOND_HESSIAN) {
        mat3 F = tet_F(Bm, y0, y1, y2, y3);
        tet_element_hessian(mat, Bm, vol, F, 1, G->hess + 144 * (size_t)e);
    }
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h) */
/* F of tet e at the positions y, its corners through the group's index and Bm = its rest data
 * (G->rest + 9e, the caller's pointer: the kernels that use Bm again keep the one load; taking it
 * here anew changed the code nvcc made), the CUDA kernels' prologue. */
SIPD_HD SIPD_ALWAYS_INLINE mat3 kind_tet_F(const sipd_view *v, const sipd_group_view *G, int e, const sipd_real *Bm)
{
    const int *t = G->v + 4 * (size_t)e;
    return tet_F(Bm, view_ld(v->y, t[0]), view_ld(v->y, t[1]), view_ld(v->y, t[2]), view_ld(v->y, t[3]));
}

/* SIPD's element pass (precond SPLIT) for a tet whose material's model is a compile-time constant
 * other than stable neo-Hookean (the CUDA backend's k_element_tet_model): P and K⁺ by
 * material_eval_other_inline (corotational: material_corot_eval with R from kind_tet_polar), not
 * through the out-of-line material_eval_other, whose registers (every model and split of it) count
 * for the kernel.  The arithmetic is tet_element's. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_tet_element_model(const sipd_view *v, const sipd_material *mat, int split,
                                                        const sipd_group_view *G, int e)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    const mat3 F = kind_tet_F(v, G, e, Bm);
    /* clamp and abs (and corotational's sign, a projection too): P first, the gradient stored before
       K⁺'s eigen-fix or projection, so P is dead across it (63 / 58 registers → 52 / 40); the
       others: P and K⁺ in one evaluation */
    const int pfirst = split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS ||
                       (split == SIPD_SPLIT_SIGN && mat->model == SIPD_MAT_COROTATIONAL);
    mat3 P, R;
    sym3 Kp;
    vec3 gr[4];
    int a;
    /* corotational (and ARAP, the same arithmetic): R from the quaternion k_element_tet_polar left
       in this tet's K⁺ slot (polar_rotation_quat; overwritten below) */
    if (mat->model == SIPD_MAT_COROTATIONAL) {
        const sipd_real *q = G->blk + 6 * (size_t)e;
        R = polar_quat_to_rot(q[0], q[1], q[2], q[3]);
    }
    if (mat->model == SIPD_MAT_COROTATIONAL)
        material_corot_eval(mat, split, F, R, &P, pfirst ? NULL : &Kp);
    else
        material_eval_other_inline(mat, split, F, &P, pfirst ? NULL : &Kp);
    for (a = 1; a < 4; a++)
        gr[a] = v3_scale(m3_mulv(P, v3(Bm[3 * (a - 1)], Bm[3 * (a - 1) + 1], Bm[3 * (a - 1) + 2])), vol);
    gr[0] = v3_scale(v3_add(v3_add(gr[1], gr[2]), gr[3]), -1);
    for (a = 0; a < 4; a++) v3_store(G->grad + 12 * (size_t)e + 3 * a, gr[a]);
    if (pfirst && mat->model == SIPD_MAT_COROTATIONAL)
        material_corot_eval(mat, split, F, R, &P, &Kp);
    else if (pfirst)
        material_eval_other_inline(mat, split, F, &P, &Kp);
    s3_store(G->blk + 6 * (size_t)e, Kp);
}

/* The first kernel of a corotational or ARAP tet's element pass (k_element_tet_polar): the
 * quaternion of F's polar rotation into the tet's K⁺ slot, where kind_tet_element_model reads it.
 * The 4x4 eigen-solve of the polar decomposition and K⁺'s evaluation in one kernel took 75-77
 * registers; apart, 56 or fewer each (docs/gpu.md#registers). */
SIPD_HD SIPD_ALWAYS_INLINE void kind_tet_polar(const sipd_view *v, const sipd_group_view *G, int e)
{
    polar_rotation_quat(kind_tet_F(v, G, e, G->rest + 9 * (size_t)e), G->blk + 6 * (size_t)e);
}

/* The Gauss–Seidel corner and energy of a tet whose model (not stable neo-Hookean) is a
 * compile-time constant (passes.h pass_element_corner_fixed / pass_element_energy_fixed; the
 * kernels k_gs_color_tet_model, k_gs_search): Ψ, P and K⁺ inline (material_psi_other_inline,
 * material_eval_other_inline), P before K⁺ so it is dead across K⁺; only SPLIT and MASS blocks
 * (the host keeps BLOCK and DIAG on the generic kernel).  The arithmetic is kind_tet_corner's /
 * kind_tet_energy's (tet_vertex_eval, tet_energy).  A neo-Hookean corner goes to kind_tet_corner_nh
 * (below) instead. */
SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_tet_corner_model(const sipd_view *v, const sipd_material *mat, int precond,
                                                      int split, const sipd_group_view *G, int e, int l, sipd_real w,
                                                      sym3 *D, sipd_real *energy, sipd_real *scale)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    const mat3 F = kind_tet_F(v, G, e, Bm);
    mat3 P;
    sym3 Kp;
    vec3 ga;
    *energy = vol * material_psi_other_inline(mat, F);
    material_eval_other_inline(mat, split, F, &P, NULL);
    ga = v3_scale(m3_mulv(P, tet_gradN(Bm, l)), vol);
    *scale = (mat->mu + mat->lambda) * vol;
    if (precond == SIPD_PRECOND_SPLIT) {
        material_eval_other_inline(mat, split, F, &P, &Kp);
        *D = s3_axpy(w, Kp, *D);
    }
    return ga;
}

/* P g (m3_mulv) with nvcc's contraction of it in kind_tet_corner_model spelled out on the device:
 * row i = fma(P_i2, g_2, fma(P_i1, g_1, P_i0 g_0)).  Left to the compiler, the same expression came
 * out as fma(P_i0, g_0, P_i1 g_1) in some rows once g was computed before P (kind_tet_corner_nh),
 * a different rounding.  The host contracts nothing: m3_mulv. */
SIPD_HD vec3 kind_tet_Pg(mat3 P, vec3 g)
{
#if defined(__CUDA_ARCH__) && defined(SIPD_REAL_FLOAT)
    vec3 r;
    int i;
    for (i = 0; i < 3; i++)
        r.v[i] = __fmaf_rn(P.m[3 * i + 2], g.v[2], __fmaf_rn(P.m[3 * i + 1], g.v[1], __fmul_rn(P.m[3 * i], g.v[0])));
    return r;
#else
    return m3_mulv(P, g);
#endif
}

/* kind_tet_corner_model for a neo-Hookean material (passes.h pass_element_corner_fixed; the model a
 * compile-time constant), the same values: ∇N_l first, so Bm's nine values are dead after F; P and
 * K⁺ from one evaluation (log J, f′ and f″ with their divisions once: material_nh_P and
 * material_nh_c, the arithmetic of material_eval_other's case), P dead after the gradient; the
 * clamp/abs eigen-fix inline (material_K_eigfix_inline).  k_gs_color_tet_model<0,S,1>: 76-78
 * registers through kind_tet_corner_model (P and K⁺ evaluated apart, the eigen-fix called), 62-64
 * so (results/registers-29.md).  A function of its own, not a branch in kind_tet_corner_model:
 * there the StVK kernels' code changed too (an energy product contracted into the caller's sum).
 * Where nvcc's contraction depended on the order of the code it is spelled out (kind_tet_Pg; with
 * K⁺ the energy product, sipd_mul_nc: a branch used to lie between it and the caller's sum). */
SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_tet_corner_nh(const sipd_view *v, const sipd_material *mat, int precond,
                                                   int split, const sipd_group_view *G, int e, int l, sipd_real w,
                                                   sym3 *D, sipd_real *energy, sipd_real *scale)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    const mat3 F = kind_tet_F(v, G, e, Bm);
    const vec3 g = tet_gradN(Bm, l);
    const sipd_real psi = material_psi_other_inline(mat, F);
    mat3 P, C;
    sym3 Kp;
    vec3 ga;
    sipd_real J, f1, f2, c;
    *energy = precond == SIPD_PRECOND_SPLIT ? sipd_mul_nc(vol, psi) : vol * psi;
    material_nh_P(mat, F, &C, &J, &f1, &f2, &P);
    c = material_nh_c(split, J, f1, f2);
    ga = v3_scale(kind_tet_Pg(P, g), vol);
    *scale = (mat->mu + mat->lambda) * vol;
    if (precond == SIPD_PRECOND_SPLIT) {
        if ((split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS) && c < 0)
            Kp = material_K_eigfix_inline(mat->mu, c, C, split);
        else
            Kp = s3_axpy(c, s3_aat(C), s3_diag(mat->mu));
        *D = s3_axpy(w, Kp, *D);
    }
    return ga;
}

SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_tet_energy_model(const sipd_view *v, const sipd_material *mat,
                                                           const sipd_group_view *G, int e, const sipd_real *dy,
                                                           sipd_real alpha, int over, vec3 q)
{
    vec3 p[4];
    pass_corners_nc(v, G, 4, e, dy, alpha, over, q, p);
    return G->vol[e] * material_psi_other_inline(mat, tet_F(G->rest + 9 * (size_t)e, p[0], p[1], p[2], p[3]));
}

/* A corotational or ARAP tet in the staged Gauss–Seidel sweep (kernels/backend_cuda.cu k_gss_*):
 * the rotation R of its F, with corner `over` at q (over < 0: at y), as a quaternion
 * (kind_tet_polar_at, one kernel), then its corner and energy with that R given (the next kernel):
 * kind_tet_corner_model's and kind_tet_energy_model's arithmetic (material_corot_psi,
 * material_corot_eval), the polar decomposition and K⁺ not in one kernel (docs/gpu.md#registers). */
SIPD_HD SIPD_ALWAYS_INLINE void kind_tet_polar_at(const sipd_view *v, const sipd_group_view *G, int e, int over, vec3 q,
                                                 sipd_real out[4])
{
    vec3 p[4];
    pass_corners_nc(v, G, 4, e, NULL, 0, over, q, p);
    polar_rotation_quat(tet_F(G->rest + 9 * (size_t)e, p[0], p[1], p[2], p[3]), out);
}

SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_tet_corner_corot(const sipd_view *v, const sipd_material *mat, int split,
                                                      const sipd_group_view *G, int e, int l, sipd_real w, mat3 R,
                                                      sym3 *D, sipd_real *energy, sipd_real *scale)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    const mat3 F = kind_tet_F(v, G, e, Bm);
    mat3 P;
    sym3 Kp;
    vec3 ga;
    *energy = vol * material_corot_psi(mat, F, R);
    material_corot_eval(mat, split, F, R, &P, NULL);
    ga = v3_scale(m3_mulv(P, tet_gradN(Bm, l)), vol);
    *scale = (mat->mu + mat->lambda) * vol;
    material_corot_eval(mat, split, F, R, &P, &Kp);
    *D = s3_axpy(w, Kp, *D);
    return ga;
}

SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_tet_energy_corot(const sipd_view *v, const sipd_material *mat,
                                                           const sipd_group_view *G, int e, int over, vec3 q, mat3 R)
{
    vec3 p[4];
    pass_corners_nc(v, G, 4, e, NULL, 0, over, q, p);
    return G->vol[e] * material_corot_psi(mat, tet_F(G->rest + 9 * (size_t)e, p[0], p[1], p[2], p[3]), R);
}

/* SIPD's element pass of a stable neo-Hookean tet (k_element_tet_snh, the clamp and abs splits):
 * the gradient from material_P (material_eval's P) stored before K⁺, so P is dead across the
 * eigen-fix call (as tet_vertex_eval does on the device); the arithmetic is tet_element's. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_tet_element_snh_pfirst(const sipd_view *v, const sipd_material *mat, int split,
                                                             const sipd_group_view *G, int e)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    const mat3 F = kind_tet_F(v, G, e, Bm);
    mat3 P = material_P(mat, F);
    sym3 Kp;
    vec3 gr[4];
    int a;
    for (a = 1; a < 4; a++)
        gr[a] = v3_scale(m3_mulv(P, v3(Bm[3 * (a - 1)], Bm[3 * (a - 1) + 1], Bm[3 * (a - 1) + 2])), vol);
    gr[0] = v3_scale(v3_add(v3_add(gr[1], gr[2]), gr[3]), -1);
    for (a = 0; a < 4; a++) v3_store(G->grad + 12 * (size_t)e + 3 * a, gr[a]);
    material_eval(mat, split, F, &P, &Kp);
    s3_store(G->blk + 6 * (size_t)e, Kp);
}
#endif

SIPD_HD SIPD_ALWAYS_INLINE void kind_tet_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                  const sipd_group_view *G, int e)
{
    kind_tet_element_mat(v, mat, precond, split, G, e);
}

SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_tet_energy(const sipd_view *v, const sipd_material *mat,
                                                     const sipd_group_view *G, int e, const sipd_real *dy,
                                                     sipd_real alpha, int over, vec3 q)
{
    vec3 p[4];
    pass_corners_nc(v, G, 4, e, dy, alpha, over, q, p);
    return tet_energy(mat, G->rest + 9 * (size_t)e, G->vol[e], p[0], p[1], p[2], p[3]);
}

SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_tet_corner(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                                const sipd_group_view *G, int e, int l, sipd_real w, sym3 *D,
                                                sipd_real *energy, sipd_real *scale)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    vec3 y[4], ga;
    sym3 Kp;
    pass_corners_nc(v, G, 4, e, NULL, 0, -1, v3(0, 0, 0), y);
    ga = tet_vertex_eval(mat, split, Bm, vol, y[0], y[1], y[2], y[3], l, &Kp, energy);
    *scale = (mat->mu + mat->lambda) * vol;
    if (precond == SIPD_PRECOND_SPLIT)
        *D = s3_axpy(w, Kp, *D);
    else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG)
        kind_add_block(precond, tet_vertex_block_psd(mat, Bm, vol, tet_F(Bm, y[0], y[1], y[2], y[3]), l), D);
    return ga;
}

/* SIPD's weight of corner l: V |∇N_l|² */
SIPD_HD sipd_real kind_tet_weight(const sipd_real *rest, sipd_real vol, int l)
{
    return vol * v3_norm2(tet_gradN(rest, l));
}
/* the element's energy scale (μ + λ) V */
SIPD_HD sipd_real kind_tet_scale(const sipd_material *mat, const sipd_real *rest, sipd_real vol)
{
    (void)rest;
    return (mat->mu + mat->lambda) * vol;
}

/* SIPD's element pass of tet e summed straight into its corners' accumulators (acc: 9 per
 * vertex, g then D's 6; passes.h pass_vertex_acc reads them): the gradient on corner l, and
 * w_l K⁺ with the incidence weight w_l = V |∇N_l|² (model.c's inc_w, the same function).  The
 * CPU's fused Jacobi pass (cpu_loops.h): no per-tet arrays written and gathered back.  The
 * accumulators are double in either precision (a float32 backend's terms are summed exactly
 * enough that the order of the sums does not move its round-off floor).  grad_only: the
 * gradients alone (the first 3 of each vertex's 9; the step load's gradient pass), the D part
 * left as it is.  The caller makes sure no two tets it runs at once share a vertex. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_tet_scatter(const sipd_view *v, const sipd_material *mat, int split,
                                                 int grad_only, const sipd_group_view *G, int e, double *acc)
{
    const sipd_real *Bm = G->rest + 9 * (size_t)e, vol = G->vol[e];
    const int *t = G->v + 4 * (size_t)e;
    vec3 gr[4];
    sym3 Kp;
    int l, q;
    tet_element(mat, split, Bm, vol, view_ld(v->y, t[0]), view_ld(v->y, t[1]), view_ld(v->y, t[2]),
                view_ld(v->y, t[3]), gr, &Kp);
    for (l = 0; l < 4; l++) {
        double *A = acc + 9 * (size_t)t[l];
        const sipd_real w = kind_tet_weight(Bm, vol, l);
        for (q = 0; q < 3; q++) A[q] += gr[l].v[q];
        if (!grad_only)
            for (q = 0; q < 6; q++) A[3 + q] += w * Kp.s[q];
    }
}

#ifndef __CUDACC__
#define SIPD_TET_LANES 8   /* tets evaluated side by side by kind_tet_scatter_chunk */

/* The lane loop of kind_tet_scatter_chunk: SIPD_TET_LANES stable neo-Hookean tets' gradients
 * (gr: corner l's component q in row 3l + q), K⁺ (K), corner weights (w) and the split's c (cc)
 * from their corners (y) and rest data (B, vol) and materials (mu, la, al); grad_only: the
 * gradients alone.  Inlined with split and grad_only constants, so that the loop has no branch
 * left but sign's max and vectorises, and the gradient-only loop computes nothing else. */
typedef struct {
    sipd_real y[12][SIPD_TET_LANES], B[9][SIPD_TET_LANES], vol[SIPD_TET_LANES], mu[SIPD_TET_LANES],
        la[SIPD_TET_LANES], al[SIPD_TET_LANES];
    sipd_real gr[12][SIPD_TET_LANES], K[6][SIPD_TET_LANES], w[4][SIPD_TET_LANES], cc[SIPD_TET_LANES];
} sipd_tet_lanes;

static inline SIPD_ALWAYS_INLINE void kind_tet_lanes(sipd_tet_lanes *T, int split, int grad_only)
{
    int i;
    for (i = 0; i < SIPD_TET_LANES; i++) {
        sipd_real Bm[9];
        mat3 F, C, P;
        sym3 Kp;
        vec3 g0, g1, g2, g3;
        int k, q;
        for (k = 0; k < 9; k++) Bm[k] = T->B[k][i];
        F = tet_F(Bm, v3(T->y[0][i], T->y[1][i], T->y[2][i]), v3(T->y[3][i], T->y[4][i], T->y[5][i]),
                  v3(T->y[6][i], T->y[7][i], T->y[8][i]), v3(T->y[9][i], T->y[10][i], T->y[11][i]));
        T->cc[i] = material_snh_eval_c(T->mu[i], T->la[i], T->al[i], split, F, &C, &P);
        g1 = v3_scale(m3_mulv(P, v3(Bm[0], Bm[1], Bm[2])), T->vol[i]);
        g2 = v3_scale(m3_mulv(P, v3(Bm[3], Bm[4], Bm[5])), T->vol[i]);
        g3 = v3_scale(m3_mulv(P, v3(Bm[6], Bm[7], Bm[8])), T->vol[i]);
        g0 = v3_scale(v3_add(v3_add(g1, g2), g3), -1);
        for (q = 0; q < 3; q++) {
            T->gr[q][i] = g0.v[q];
            T->gr[3 + q][i] = g1.v[q];
            T->gr[6 + q][i] = g2.v[q];
            T->gr[9 + q][i] = g3.v[q];
        }
        if (!grad_only) {
            Kp = s3_axpy(T->cc[i], s3_aat(C), s3_diag(T->mu[i]));
            T->w[0][i] = kind_tet_weight(Bm, T->vol[i], 0);
            T->w[1][i] = kind_tet_weight(Bm, T->vol[i], 1);
            T->w[2][i] = kind_tet_weight(Bm, T->vol[i], 2);
            T->w[3][i] = kind_tet_weight(Bm, T->vol[i], 3);
            for (q = 0; q < 6; q++) T->K[q][i] = Kp.s[q];
        }
    }
}

/* kind_tet_scatter for tets e0 .. e1−1 (one chunk of the fused pass) of a group whose tets are
 * all stable neo-Hookean: the element arithmetic of SIPD_TET_LANES tets at a time in a loop over
 * lanes that the compiler vectorises (kind_tet_lanes: the corners and Bm gathered in, the
 * gradients, K⁺ and weights out), then summed into acc tet by tet in order.  The arithmetic is
 * tet_element's and kind_tet_weight's operation for operation (no FMA contraction on the targets
 * we build for), so the sums are bit-identical to kind_tet_scatter's; the clamp and abs splits'
 * eigen-fixed tets (c < 0) are redone by kind_tet_scatter after the lane loop.  grad_only (a
 * constant: kind_tet_scatter_chunk has a copy of each): the gradients alone, which no split
 * changes. */
static inline SIPD_ALWAYS_INLINE void kind_tet_scatter_lanes(const sipd_view *v, int split, int grad_only,
                                                             const sipd_group_view *G, int e0, int e1, double *acc)
{
    enum { L = SIPD_TET_LANES };
    sipd_tet_lanes T;
    int b, i, k, l, q, one = 1;
    for (b = e0 + 1; b < e1; b++) one &= G->mat[b] == G->mat[e0];
    if (one)   /* the chunk's tets share one material: its lanes once (the blocks leave them) */
        for (i = 0; i < L; i++) {
            T.mu[i] = v->mats[G->mat[e0]].mu;
            T.la[i] = v->mats[G->mat[e0]].lambda;
            T.al[i] = v->mats[G->mat[e0]].alpha;
        }
    for (b = e0; b < e1; b += L) {
        const int n = e1 - b < L ? e1 - b : L;
        for (i = 0; i < L; i++) {   /* in: lanes past n repeat the last tet */
            const int e = b + (i < n ? i : n - 1);
            const int *t = G->v + 4 * (size_t)e;
            for (l = 0; l < 4; l++)
                for (q = 0; q < 3; q++) T.y[3 * l + q][i] = v->y[3 * (size_t)t[l] + q];
            for (k = 0; k < 9; k++) T.B[k][i] = G->rest[9 * (size_t)e + k];
            T.vol[i] = G->vol[e];
            if (!one) {
                const sipd_material *mat = &v->mats[G->mat[e]];
                T.mu[i] = mat->mu;
                T.la[i] = mat->lambda;
                T.al[i] = mat->alpha;
            }
        }
        if (grad_only || split == SIPD_SPLIT_EXPANDED)   /* (the gradient alone: any split's) */
            kind_tet_lanes(&T, SIPD_SPLIT_EXPANDED, grad_only);
        else if (split == SIPD_SPLIT_SIGN)
            kind_tet_lanes(&T, SIPD_SPLIT_SIGN, 0);
        else   /* none, clamp, abs: the same c */
            kind_tet_lanes(&T, SIPD_SPLIT_NONE, 0);
        for (i = 0; i < n; i++) {   /* out, in tet order */
            const int e = b + i;
            const int *t = G->v + 4 * (size_t)e;
            if (!grad_only && (split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS) && T.cc[i] < 0) {
                kind_tet_scatter(v, &v->mats[G->mat[e]], split, 0, G, e, acc);
                continue;
            }
            for (l = 0; l < 4; l++) {
                double *A = acc + 9 * (size_t)t[l];
                for (q = 0; q < 3; q++) A[q] += T.gr[3 * l + q][i];
                if (!grad_only)
                    for (q = 0; q < 6; q++) A[3 + q] += T.w[l][i] * T.K[q][i];
            }
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* a clone for AVX2 (4 doubles or 8 floats a lane loop instruction; not FMA, which would round
   differently), chosen at load time where the CPU has it */
__attribute__((target_clones("avx2", "default"), unused)) static
#else
static inline
#endif
void kind_tet_scatter_chunk(const sipd_view *v, int split, int grad_only, const sipd_group_view *G, int e0, int e1,
                            double *acc)
{
    if (grad_only)
        kind_tet_scatter_lanes(v, split, 1, G, e0, e1, acc);
    else
        kind_tet_scatter_lanes(v, split, 0, G, e0, e1, acc);
}
#endif

/* mixed FEM (src/mixed.c): ŝ, the element system and the Lagrangian term (physics/mixed.h) */
SIPD_HD void kind_tet_mixed_shat(const sipd_real *rest, const vec3 *y, sipd_real *shat)
{
    mixed_tet_shat(rest, y[0], y[1], y[2], y[3], shat);
}
SIPD_HD void kind_tet_mixed_system(const sipd_material *mat, const sipd_real *rest, sipd_real vol, const vec3 *y,
                                   const sipd_real *s, sipd_real *K, sipd_real *r, sipd_real *BJ, sipd_real *Hs,
                                   sipd_real *gs, sipd_real *shat)
{
    mixed_tet_system(mat, rest, vol, y[0], y[1], y[2], y[3], s, K, r, BJ, Hs, gs, shat);
}
SIPD_HD sipd_real kind_tet_mixed_lagrangian(const sipd_material *mat, const sipd_real *rest, sipd_real vol,
                                            const vec3 *y, const sipd_real *s, const sipd_real *lam)
{
    return mixed_tet_lagrangian(mat, rest, vol, y[0], y[1], y[2], y[3], s, lam);
}

/* output.fields (src/fields.c): the element's strain and stress at x */
SIPD_HD sipd_elem_fields kind_tet_fields(const sipd_material *mat, const sipd_real *rest, const vec3 *X, const vec3 *x,
                                         sipd_real area)
{
    (void)X;
    (void)area;
    return field_tet(mat, rest, x[0], x[1], x[2], x[3]);
}

#endif
