/* midedge.h — mid-edge (Morley-type) bending of a shell triangle, kind SIPD_KIND_MIDEDGE
 * (docs/design.md §3.9, bodies[].bending = "midedge").
 *
 * Why: the dihedral hinge (bend.h) sees only the jump of the normal across each edge, and on an
 * unstructured mesh no per-edge weight makes Σ k_e θ² a consistent discretisation of the plate
 * energy: the clamped gmsh strip stays 9–12% too soft under refinement.  Morley's plate element
 * gets a constant curvature per triangle from the normal slopes at its three edge midpoints,
 *   Ā κ = Σ_e |ē| s_e ν_e ν_eᵀ      (ν_e the edge's outward in-plane normal),
 * which is exact for quadratic deflections and, because each interior slope is shared by the
 * edge's two triangles, passes the patch test on any mesh.  Morley carries s_e as an unknown;
 * here it is fitted instead: the derivative ∂x/∂ν̄ of the position field at the midpoint of an
 * interior edge comes from a least-squares quadratic through the edge's two triangles and their
 * other neighbours' far vertices (up to 8 vertices; rest-frame coefficients σ, the same for both
 * triangles), so the element has no extra unknowns.  A free (boundary) edge's slope is Morley's
 * free unknown eliminated exactly: the triangle's energy is minimised over it, which leaves the
 * reduced constant metric W' below (model.c).  The python prototype and the tests
 * (tests/unit/test_midedge.c, verify_strip_midedge) show convergence to Kirchhoff on structured
 * meshes of every diagonal pattern and on unstructured gmsh meshes.
 *
 * Geometry, per triangle T with corners 0, 1, 2 and up to 9 more stencil vertices (12 corners;
 * unused corners repeat corner 0 with zero coefficients):
 *   v_c = Σ_{j≥1} C_{jc} (y_j − y_0),  c ∈ {uu, uv, vv}        (C: rest data, 3 per corner)
 *   b_c = n · v_c,   n = N/|N|,  N = (y1 − y0) × (y2 − y0)
 * v_c is the rest-fitted combination Σ_e |ē|/Ā (ν_e ν_eᵀ)_c ∂x/∂ν̄_e; its normal component
 * relative to T's own plane is the slope Morley needs (T's own in-plane derivative is normal to
 * n).  b is the second fundamental form in T's rest frame, invariant under rigid motions.
 * Energy E = Ā/2 (b − b̄)ᵀ W' (b − b̄), W = D [[1, 0, ν], [0, 2(1 − ν), 0], [ν, 0, 1]]
 * (Kirchhoff: D/2 (κ_uu² + 2ν κ_uu κ_vv + κ_vv² + 2(1 − ν) κ_uv²)), W' = W less the free-edge
 * directions.  Rest data: C (36), W' (sym3 layout xx yy zz xy xz yz over (uu, uv, vv): 6), b̄
 * (3), D (1); the measure is Ā.
 *
 * Derivatives: ∂b_c/∂y_j = Ĉ_{jc} n + [j < 3] (v_c⊥ × e_j)/|N|, with e_j = y_{j+2} − y_{j+1}
 * (indices mod 3; ∂N/∂y_j δ = e_j × δ), v_c⊥ = v_c − (n·v_c) n, Ĉ_{0c} = −Σ_{j≥1} C_{jc}.
 * Gradient Ā Σ_c (W'r)_c ∂b_c/∂y_j; the Hessian is the Gauss–Newton term Ā Jᵀ W' J (PSD),
 * per corner B_j = Ā J_jᵀ W' J_j.
 */
#ifndef SIPD_PHYSICS_MIDEDGE_H
#define SIPD_PHYSICS_MIDEDGE_H

#include "mat3.h"

#define MIDEDGE_NC 12     /* corners: the triangle, its 3 neighbours' and their 6 neighbours' far vertices */
#define MIDEDGE_REST 46   /* C 36, W' 6, b̄ 3, D 1 */

typedef struct {
    vec3 v[3], n;
    sipd_real iN, r[3], Wr[3];
} midedge_state;

/* the 3x3 symmetric W' (sym3 layout) times x */
SIPD_HD void midedge_wmul(const sipd_real *W, const sipd_real x[3], sipd_real out[3])
{
    out[0] = W[0] * x[0] + W[3] * x[1] + W[4] * x[2];
    out[1] = W[3] * x[0] + W[1] * x[1] + W[5] * x[2];
    out[2] = W[4] * x[0] + W[5] * x[1] + W[2] * x[2];
}

/* v, n, 1/|N|, r = b − b̄ and W' r at y (MIDEDGE_NC corners) */
SIPD_HD void midedge_eval(const sipd_real *R, const vec3 *y, midedge_state *s)
{
    vec3 N = v3_cross(v3_sub(y[1], y[0]), v3_sub(y[2], y[0]));
    sipd_real n2 = v3_norm2(N);
    int j, c;
    for (c = 0; c < 3; c++) s->v[c] = v3(0, 0, 0);
    for (j = 1; j < MIDEDGE_NC; j++) {
        vec3 d = v3_sub(y[j], y[0]);
        for (c = 0; c < 3; c++) s->v[c] = v3_axpy(R[3 * j + c], d, s->v[c]);
    }
    s->iN = n2 > 0 ? 1 / sipd_sqrt(n2) : SIPD_R(0);
    s->n = v3_scale(N, s->iN);
    for (c = 0; c < 3; c++) s->r[c] = v3_dot(s->n, s->v[c]) - R[42 + c];
    midedge_wmul(R + 36, s->r, s->Wr);
}

SIPD_HD sipd_real midedge_energy(const sipd_real *R, sipd_real A, const vec3 *y)
{
    midedge_state s;
    midedge_eval(R, y, &s);
    if (!(s.iN > 0))
        return 0;   /* a degenerate triangle has no plane to bend out of (its membrane term guards it) */
    return SIPD_R(0.5) * A * (s.r[0] * s.Wr[0] + s.r[1] * s.Wr[1] + s.r[2] * s.Wr[2]);
}

/* rows J[c] = ∂b_c/∂y_j of corner j */
SIPD_HD void midedge_jac(const sipd_real *R, const vec3 *y, const midedge_state *s, int j, vec3 J[3])
{
    int c, i;
    for (c = 0; c < 3; c++) {
        sipd_real Cj = R[3 * j + c];
        if (j == 0)
            for (Cj = 0, i = 1; i < MIDEDGE_NC; i++) Cj -= R[3 * i + c];
        J[c] = v3_scale(s->n, Cj);
        if (j < 3) {
            vec3 e = v3_sub(y[(j + 2) % 3], y[(j + 1) % 3]);
            vec3 vp = v3_axpy(-v3_dot(s->n, s->v[c]), s->n, s->v[c]);
            J[c] = v3_axpy(s->iN, v3_cross(vp, e), J[c]);
        }
    }
}

/* midedge_pair's term (c, d): A W'_cd J_c J'_dᵀ added to *M (nothing where the weight is 0) */
SIPD_HD SIPD_ALWAYS_INLINE void midedge_pair_term(const sipd_real *W, sipd_real A, const vec3 Ji[3], const vec3 Jj[3],
                                                  int c, int d, mat3 *M)
{
    const sipd_real w = A * W[c == d ? c : c + d + 2];   /* (0,1)→3 (0,2)→4 (1,2)→5 */
    int r, k;
    if (w == 0)
        return;
    for (r = 0; r < 3; r++)
        for (k = 0; k < 3; k++) M->m[3 * r + k] += w * Ji[c].v[r] * Jj[d].v[k];
}

/* A Jᵀ W' J' of two corners' rows (a full 3x3, row-major) */
SIPD_HD mat3 midedge_pair(const sipd_real *W, sipd_real A, const vec3 Ji[3], const vec3 Jj[3])
{
    mat3 M = m3_zero();
    int c, d;
    for (c = 0; c < 3; c++)
        for (d = 0; d < 3; d++) midedge_pair_term(W, A, Ji, Jj, c, d, &M);
    return M;
}

SIPD_HD sym3 midedge_m3_sym(mat3 M)
{
    sym3 B;
    B.s[0] = M.m[0];
    B.s[1] = M.m[4];
    B.s[2] = M.m[8];
    B.s[3] = SIPD_R(0.5) * (M.m[1] + M.m[3]);
    B.s[4] = SIPD_R(0.5) * (M.m[2] + M.m[6]);
    B.s[5] = SIPD_R(0.5) * (M.m[5] + M.m[7]);
    return B;
}

/* Gradient on corner l, its Gauss–Newton block B_l (blk not NULL) and the energy (E not NULL). */
SIPD_HD vec3 midedge_corner(const sipd_real *R, sipd_real A, const vec3 *y, int l, sym3 *blk, sipd_real *E)
{
    midedge_state s;
    vec3 J[3], g;
    midedge_eval(R, y, &s);
    if (E)
        *E = s.iN > 0 ? SIPD_R(0.5) * A * (s.r[0] * s.Wr[0] + s.r[1] * s.Wr[1] + s.r[2] * s.Wr[2]) : SIPD_R(0);
    if (!(s.iN > 0)) {
        if (blk)
            *blk = s3_zero();
        return v3(0, 0, 0);
    }
    midedge_jac(R, y, &s, l, J);
    g = v3_scale(J[0], A * s.Wr[0]);
    g = v3_axpy(A * s.Wr[1], J[1], g);
    g = v3_axpy(A * s.Wr[2], J[2], g);
    if (blk)
        *blk = midedge_m3_sym(midedge_pair(R + 36, A, J, J));
    return g;
}

/* Gradient on every corner and (blk not NULL) the per-corner blocks: majorise = 0 the
 * Gauss–Newton blocks B_j themselves (Gauss–Seidel, VBD: exact vertex blocks), 1 blocks whose
 * sum bounds the element's Hessian for the Jacobi-type preconditioners: with s_j = √tr B_j and
 * S = Σ s_j, uᵀ H u = |Σ_j z_j|² ≤ S Σ_j |z_j|²/s_j ≤ Σ_j (S/s_j) u_jᵀ B_j u_j (weighted
 * Cauchy–Schwarz), never looser in trace than the nc B_j of the hinge and the rod. */
SIPD_HD void midedge_element(const sipd_real *R, sipd_real A, const vec3 *y, vec3 *grad, sym3 *blk, int majorise)
{
    midedge_state s;
    sipd_real sq[MIDEDGE_NC], S = 0;
    int j;
    midedge_eval(R, y, &s);
    for (j = 0; j < MIDEDGE_NC; j++) {
        vec3 J[3];
        if (!(s.iN > 0)) {
            grad[j] = v3(0, 0, 0);
            if (blk)
                blk[j] = s3_zero();
            sq[j] = 0;
            continue;
        }
        midedge_jac(R, y, &s, j, J);
        grad[j] = v3_scale(J[0], A * s.Wr[0]);
        grad[j] = v3_axpy(A * s.Wr[1], J[1], grad[j]);
        grad[j] = v3_axpy(A * s.Wr[2], J[2], grad[j]);
        if (blk) {
            sipd_real t;
            blk[j] = midedge_m3_sym(midedge_pair(R + 36, A, J, J));
            t = blk[j].s[0] + blk[j].s[1] + blk[j].s[2];
            sq[j] = t > 0 ? sipd_sqrt(t) : SIPD_R(0);
            S += sq[j];
        }
    }
    if (blk && majorise)
        for (j = 0; j < MIDEDGE_NC; j++) blk[j] = sq[j] > 0 ? s3_axpy(S / sq[j], blk[j], s3_zero()) : s3_zero();
}

/* (3·12)² Gauss–Newton element Hessian A Jᵀ W' J, row-major, index 3a + k */
SIPD_HD void midedge_element_hessian(const sipd_real *R, sipd_real A, const vec3 *y, sipd_real *H)
{
    midedge_state s;
    vec3 Ja[3], Jb[3];
    int a, b, r, k;
    const int n3 = 3 * MIDEDGE_NC;
    midedge_eval(R, y, &s);
    for (a = 0; a < MIDEDGE_NC; a++) {
        if (s.iN > 0)
            midedge_jac(R, y, &s, a, Ja);
        for (b = 0; b < MIDEDGE_NC; b++) {
            mat3 M = m3_zero();
            if (s.iN > 0) {
                midedge_jac(R, y, &s, b, Jb);
                M = midedge_pair(R + 36, A, Ja, Jb);
            }
            for (r = 0; r < 3; r++)
                for (k = 0; k < 3; k++) H[n3 * (3 * a + r) + 3 * b + k] = M.m[3 * r + k];
        }
    }
}

#endif
