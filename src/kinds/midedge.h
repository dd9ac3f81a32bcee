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

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h); the CPU: the out-of-line function, as it was */
SIPD_HD SIPD_ALWAYS_INLINE void kind_midedge_element_inline(const sipd_view *v, const sipd_material *mat,
                                                            int precond, int split, const sipd_group_view *G, int e)
#else
SIPD_NOINLINE void kind_midedge_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                       const sipd_group_view *G, int e)
#endif
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

/* the element pass out of line (the generic dispatch, the CPU backend); the CUDA backend's
 * mid-edge element kernel runs kind_midedge_element_inline in the kernel itself */
#ifdef SIPD_FIXED_SPECIALISED
SIPD_NOINLINE void kind_midedge_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                       const sipd_group_view *G, int e)
{
    kind_midedge_element_inline(v, mat, precond, split, G, e);
}
#endif

/* Corner j of kind_midedge_element_streamed (below): its gradient into gr, its Gauss–Newton block
 * into bk (jac), s_j added to *S. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_midedge_streamed_corner(const sipd_real *R, sipd_real A, const vec3 y[3],
                                                             const midedge_state *s, int j, int jac, sipd_real *gr,
                                                             sipd_real *bk, sipd_real *S)
{
    vec3 J[3], g;
    sym3 B;
    sipd_real tr;
    if (!(s->iN > 0)) {
        v3_store(gr + 3 * j, v3(0, 0, 0));
        if (jac)
            s3_store(bk + 6 * j, s3_zero());
        return;
    }
    midedge_jac(R, y, s, j, J);   /* reads y[0..2] only */
    g = v3_scale(J[0], A * s->Wr[0]);
    g = v3_axpy(A * s->Wr[1], J[1], g);
    g = v3_axpy(A * s->Wr[2], J[2], g);
    v3_store(gr + 3 * j, g);
    if (jac) {
        B = midedge_m3_sym(midedge_pair(R + 36, A, J, J));
        tr = B.s[0] + B.s[1] + B.s[2];
        *S += tr > 0 ? sipd_sqrt(tr) : SIPD_R(0);
        s3_store(bk + 6 * j, B);
    }
}

/* The element pass without the 12-corner arrays, for the CUDA backend's mid-edge element kernel
 * (passes.h pass_element_fixed; not Newton's Hessian): the corners are read from y where
 * midedge_eval sums them, each corner's gradient and Gauss–Newton block is stored as it is
 * computed (the triangle's own corners, whose rows involve its edges, then the other nine), and
 * the Jacobi-type majorising scale S/s_j (physics/midedge.h midedge_element) is applied to the
 * stored blocks in a second sweep, s_j recomputed from the stored block's trace.  The arithmetic,
 * and its order, is midedge_element's: inline with the arrays the kernel took 106 registers and
 * a 624 B stack (ptxas sm_90, results/registers-29.md). */
SIPD_HD SIPD_ALWAYS_INLINE void kind_midedge_element_streamed(const sipd_view *v, int precond, const sipd_group_view *G,
                                                              int e)
{
    const sipd_real *R = G->rest + MIDEDGE_REST * (size_t)e, A = G->vol[e];
    const int *t = G->v + MIDEDGE_NC * (size_t)e;
    sipd_real *gr = G->grad + 3 * MIDEDGE_NC * (size_t)e;
    sipd_real *bk = G->blk + 6 * MIDEDGE_NC * (size_t)e;
    const int jac = kind_jacobi_type(precond);
    vec3 y[3], N;
    midedge_state s;
    sipd_real n2, S = 0;
    int j, c;
    /* midedge_eval with y_j loaded where summed */
    for (j = 0; j < 3; j++) y[j] = view_ld(v->y, t[j]);
    N = v3_cross(v3_sub(y[1], y[0]), v3_sub(y[2], y[0]));
    n2 = v3_norm2(N);
    for (c = 0; c < 3; c++) s.v[c] = v3(0, 0, 0);
    SIPD_DEVICE_NO_UNROLL
    for (j = 1; j < MIDEDGE_NC; j++) {
        vec3 d = v3_sub(view_ld(v->y, t[j]), y[0]);
        for (c = 0; c < 3; c++) s.v[c] = v3_axpy(R[3 * j + c], d, s.v[c]);
    }
    s.iN = n2 > 0 ? 1 / sipd_sqrt(n2) : SIPD_R(0);
    s.n = v3_scale(N, s.iN);
    for (c = 0; c < 3; c++) s.r[c] = v3_dot(s.n, s.v[c]) - R[42 + c];
    midedge_wmul(R + 36, s.r, s.Wr);
    for (j = 0; j < 3; j++) kind_midedge_streamed_corner(R, A, y, &s, j, jac, gr, bk, &S);
    SIPD_DEVICE_NO_UNROLL
    for (j = 3; j < MIDEDGE_NC; j++) kind_midedge_streamed_corner(R, A, y, &s, j, jac, gr, bk, &S);
    if (jac) {
        SIPD_DEVICE_NO_UNROLL
        for (j = 0; j < MIDEDGE_NC; j++) {
            sym3 B;
            sipd_real tr, sq;
            s3_load(bk + 6 * j, &B);
            tr = B.s[0] + B.s[1] + B.s[2];
            sq = tr > 0 ? sipd_sqrt(tr) : SIPD_R(0);
            kind_store_block(precond, G, MIDEDGE_NC, e, j, sq > 0 ? s3_axpy(S / sq, B, s3_zero()) : s3_zero());
        }
    }
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

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h) */
/* midedge_eval (physics/midedge.h) with the corners read where summed: corner j at y + α dy (y
 * alone when dy is NULL), corner `over` at q; p[0..2] = the triangle's own corners (what
 * midedge_jac reads).  The arithmetic and its order are midedge_eval's. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_midedge_eval_streamed(const sipd_view *v, const sipd_group_view *G, int e,
                                                           const sipd_real *dy, sipd_real alpha, int over, vec3 q,
                                                           vec3 p[3], midedge_state *s)
{
    const sipd_real *R = G->rest + MIDEDGE_REST * (size_t)e;
    const int *t = G->v + MIDEDGE_NC * (size_t)e;
    vec3 N;
    sipd_real n2;
    int j, c;
    for (j = 0; j < 3; j++)
        p[j] = j == over ? q : dy ? v3_axpy(alpha, view_ld(dy, t[j]), view_ld(v->y, t[j])) : view_ld(v->y, t[j]);
    N = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
    n2 = v3_norm2(N);
    for (c = 0; c < 3; c++) s->v[c] = v3(0, 0, 0);
    SIPD_DEVICE_NO_UNROLL
    for (j = 1; j < MIDEDGE_NC; j++) {
        vec3 pj = j == over ? q : dy ? v3_axpy(alpha, view_ld(dy, t[j]), view_ld(v->y, t[j])) : view_ld(v->y, t[j]);
        vec3 d = v3_sub(pj, p[0]);
        for (c = 0; c < 3; c++) s->v[c] = v3_axpy(R[3 * j + c], d, s->v[c]);
    }
    s->iN = n2 > 0 ? 1 / sipd_sqrt(n2) : SIPD_R(0);
    s->n = v3_scale(N, s->iN);
    for (c = 0; c < 3; c++) s->r[c] = v3_dot(s->n, s->v[c]) - R[42 + c];
    midedge_wmul(R + 36, s->r, s->Wr);
}

/* midedge_pair(W, A, J, J) (physics/midedge.h) with its row loop rolled on the device: the same
 * sums in the same order. */
SIPD_HD SIPD_ALWAYS_INLINE mat3 kind_midedge_pair_rolled(const sipd_real *W, sipd_real A, const vec3 J[3])
{
    mat3 M = m3_zero();
    int c, d;
    SIPD_DEVICE_NO_UNROLL
    for (c = 0; c < 3; c++)
        for (d = 0; d < 3; d++) midedge_pair_term(W, A, J, J, c, d, &M);
    return M;
}

/* kind_midedge_energy and kind_midedge_corner for the Gauss–Seidel kernels that fix the kind
 * (passes.h pass_element_energy_fixed / pass_element_corner_fixed; cloth with mid-edge bending,
 * k_gs_color_kinds): no 12-corner array (kind_midedge_eval_streamed); the arithmetic is
 * midedge_energy's and midedge_corner's. */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real kind_midedge_energy_fixed(const sipd_view *v, const sipd_group_view *G, int e,
                                                               const sipd_real *dy, sipd_real alpha, int over, vec3 q)
{
    const sipd_real A = G->vol[e];
    vec3 p[3];
    midedge_state s;
    kind_midedge_eval_streamed(v, G, e, dy, alpha, over, q, p, &s);
    if (!(s.iN > 0))
        return 0;   /* a degenerate triangle has no plane to bend out of (its membrane term guards it) */
    return SIPD_R(0.5) * A * (s.r[0] * s.Wr[0] + s.r[1] * s.Wr[1] + s.r[2] * s.Wr[2]);
}
SIPD_HD SIPD_ALWAYS_INLINE vec3 kind_midedge_corner_fixed(const sipd_view *v, int precond, const sipd_group_view *G,
                                                          int e, int l, sipd_real w, sym3 *D, sipd_real *energy,
                                                          sipd_real *scale)
{
    const sipd_real *R = G->rest + MIDEDGE_REST * (size_t)e, A = G->vol[e];
    vec3 y[3], J[3], g = v3(0, 0, 0);
    sym3 B = s3_zero();
    midedge_state s;
    kind_midedge_eval_streamed(v, G, e, NULL, 0, -1, v3(0, 0, 0), y, &s);
    *energy = s.iN > 0 ? SIPD_R(0.5) * A * (s.r[0] * s.Wr[0] + s.r[1] * s.Wr[1] + s.r[2] * s.Wr[2]) : SIPD_R(0);
    *scale = R[45];   /* D: about the energy of a unit fold angle across an edge */
    if (s.iN > 0) {
        /* midedge_jac's rows, the edge opposite corner l < 3 picked without indexing y by l */
        const vec3 ed = l == 0 ? v3_sub(y[2], y[1]) : l == 1 ? v3_sub(y[0], y[2]) : v3_sub(y[1], y[0]);
        sipd_real C[3];   /* midedge_jac's Cj of the three rows: corner 0's sums all three in one loop */
        int c, i;
        for (c = 0; c < 3; c++) C[c] = l == 0 ? SIPD_R(0) : R[3 * l + c];
        if (l == 0) {
            SIPD_DEVICE_NO_UNROLL
            for (i = 1; i < MIDEDGE_NC; i++)
                for (c = 0; c < 3; c++) C[c] -= R[3 * i + c];
        }
        for (c = 0; c < 3; c++) {
            J[c] = v3_scale(s.n, C[c]);
            if (l < 3) {
                vec3 vp = v3_axpy(-v3_dot(s.n, s.v[c]), s.n, s.v[c]);
                J[c] = v3_axpy(s.iN, v3_cross(vp, ed), J[c]);
            }
        }
        g = v3_scale(J[0], A * s.Wr[0]);
        g = v3_axpy(A * s.Wr[1], J[1], g);
        g = v3_axpy(A * s.Wr[2], J[2], g);
        B = midedge_m3_sym(kind_midedge_pair_rolled(R + 36, A, J));
    }
    kind_add_corner_block(precond, w, B, D);
    return g;
}
#endif

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

