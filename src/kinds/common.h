/* common.h — what every element kind's header shares: the view (../view.h) and the
 * preconditioner's tail, written once.
 *
 * A kind's header (tet.h, edge.h, rod_bend.h, tri.h, hinge.h, midedge.h) gives, for element e of
 * a group G of its kind:
 *   kind_<name>_element  the element pass at y: the gradient on every corner into G->grad, and the
 *                        preconditioner's data — K⁺ (SPLIT; the kinds with a pairwise K), the
 *                        vertex blocks (BLOCK; DIAG their diagonals; and SPLIT for the kinds
 *                        without a pairwise K) into G->blk, or the PSD-projected element Hessian
 *                        (HESSIAN) into G->hess
 *   kind_<name>_energy   the energy with the corners at y + α dy (dy may be NULL), corner `over` at q
 *   kind_<name>_corner   corner l's gradient at y, its block added to *D (weight w = inc_w of the
 *                        incidence), the element's energy and its round-off scale
 *   kind_<name>_weight   SIPD's incidence weight of corner l (V |∇N_l|²; 1 for per-corner kinds)
 *   kind_<name>_scale    the energy scale of an element, (μ + λ) V or its analogue (model.h)
 * and, for the kinds the mixed FEM stretches (kind.h mixed_ns > 0), kind_<name>_mixed_shat /
 * _mixed_system / _mixed_lagrangian; for the kinds written to /mesh, kind_<name>_fields.
 * kinds.h generates the dispatch over SIPD_KINDS (kind.h).
 *
 * Why the Jacobi-type blocks of the kinds without a pairwise K are nc B_a: rod bending, hinges
 * and mid-edge bending have a Gauss–Newton Hessian Jᵀ W J over all nc corners (rank ≤ 3 resp. 1),
 * and its diagonal blocks B_a alone do not majorise it (uᵀ H u = |Σ_a W^½ J_a u_a|² can reach
 * nc Σ_a u_aᵀ B_a u_a).  The Jacobi-type preconditioners (SPLIT, BLOCK, DIAG) therefore store
 * nc B_a, which does (Cauchy–Schwarz: |Σ_a w_a|² ≤ nc Σ_a |w_a|²), as K⁺ does for the elastic
 * kinds.  With the plain B_a every Jacobi-type method failed to converge in 20000 iterations on
 * the held-out unstructured gmsh cloth and strip (tools/heldout-kinds.py, residual 1.6–91
 * relative); with nc B_a SIPD Jacobi + Chebyshev converges in 576.  Gauss–Seidel and VBD solve
 * each vertex's own block exactly (kind_<name>_corner) and need no factor.
 */
#ifndef SIPD_KINDS_COMMON_H
#define SIPD_KINDS_COMMON_H

#include "../view.h"

/* the preconditioners whose D is a sum of per-vertex blocks from the element pass */
SIPD_HD SIPD_ALWAYS_INLINE int kind_jacobi_type(int precond)
{
    return precond == SIPD_PRECOND_SPLIT || precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG;
}

/* B as preconditioner `precond` uses it: DIAG keeps its diagonal */
SIPD_HD SIPD_ALWAYS_INLINE sym3 kind_precond_block(int precond, sym3 B)
{
    if (precond == SIPD_PRECOND_DIAG)
        B.s[3] = B.s[4] = B.s[5] = 0;
    return B;
}

/* The element pass: corner l's vertex block of element e (nc corners, 6 per corner) into G->blk. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_store_block(int precond, const sipd_group_view *G, int nc, int e, int l, sym3 B)
{
    s3_store(G->blk + 6 * nc * (size_t)e + 6 * l, kind_precond_block(precond, B));
}

/* The element pass of a kind without a pairwise K: corner l's Gauss–Newton block B, stored as the
 * majoriser nc B (above) for the Jacobi-type preconditioners. */
SIPD_HD SIPD_ALWAYS_INLINE void kind_store_majorant(int precond, const sipd_group_view *G, int nc, int e, int l, sym3 B)
{
    kind_store_block(precond, G, nc, e, l, s3_axpy((sipd_real)nc, B, s3_zero()));
}

/* The corner pass of a kind with a pairwise K, BLOCK or DIAG: its PSD vertex block (DIAG: the
 * diagonal) added to *D (SPLIT adds w K⁺ instead; MASS nothing). */
SIPD_HD SIPD_ALWAYS_INLINE void kind_add_block(int precond, sym3 B, sym3 *D)
{
    *D = s3_add(*D, kind_precond_block(precond, B));
}

/* The corner pass of a kind without a pairwise K: its own Gauss–Newton block B with weight w
 * (every preconditioner but MASS; Gauss–Seidel and VBD solve the exact vertex block). */
SIPD_HD SIPD_ALWAYS_INLINE void kind_add_corner_block(int precond, sipd_real w, sym3 B, sym3 *D)
{
    B = kind_precond_block(precond, B);
    if (precond != SIPD_PRECOND_MASS)
        *D = s3_axpy(w, B, *D);
}

#endif
