/* polar.h — polar decomposition F = R S of a 3x3 F without an SVD, and its derivative dR/dF.
 *
 * R is the rotation nearest F: the R in SO(3) that maximises tr(RᵀF) (equivalently minimises
 * ‖F − R‖_F).  det R = +1 always; S = RᵀF is then symmetric.  For det F > 0 this is the usual
 * polar factor (S positive definite); for det F < 0 (an inverted element) R is still a rotation
 * and S is symmetric but indefinite: its smallest eigenvalue is negative and no larger in
 * magnitude than the others (the "inversion-safe" polar decomposition of the corotational and
 * ARAP literature, R = U diag(1,1,det UVᵀ) Vᵀ in SVD terms).  For a singular F (rank 2, rank 1,
 * zero) the maximiser may not be unique; a maximiser is returned (R = I for F = 0).
 *
 * Method: Horn's quaternion form (Horn 1987).  For a unit quaternion q, R(q) is quadratic in q and
 *   tr(R(q)ᵀF) = qᵀ N(F) q,
 * with N(F) the 4x4 symmetric matrix below, so the nearest rotation is R(q*) for q* the
 * eigenvector of the largest eigenvalue of N.  That eigenvector is found by the bounded cyclic
 * Jacobi of eig.h (sym_eig, n = 4: at most SIPD_EIG_SWEEPS sweeps, no recursion, no allocation).
 * Why this rather than Higham's scaled Newton R ← ½(ζR + R⁻ᵀ/ζ):
 *   - it is a global maximiser by construction: no fixed point to converge to, no initial guess,
 *     and no inverse of F (Newton needs F⁻¹, undefined for singular F and badly conditioned
 *     near it);
 *   - inversion needs no special case: Newton converges to an orthogonal matrix with det −1 for
 *     det F < 0 and must then be corrected through the smallest singular direction (which needs
 *     an eigen-solve anyway), while the quaternion maximiser is a rotation whatever the sign;
 *   - R(q) is orthogonal to round-off for any unit q, whatever the accuracy of q;
 *   - the cost is one 4x4 Jacobi (typically 3-5 sweeps of 6 rotations), comparable to 5-8
 *     Newton steps with a 3x3 inverse each, and branch-light for the device.
 * The eigenvalues of N are, for the eigenvalues s1 ≥ s2 ≥ s3 of S, s1+s2+s3 (the maximum) and
 * s_i − s_j − s_k: the gap to the next one is 2(s_j + s_k), the same quantity that makes dR/dF
 * singular below.  Where it is zero the rotation is not unique (and not differentiable).
 *
 * Derivative: with dR = R [ω]× (ω in the rest frame) and S = RᵀF symmetric, the symmetry of dS
 * gives  Rᵀ dF − dFᵀ R = [ω]× S + S [ω]× = [((tr S) I − S) ω]×.  A = (tr S) I − S has the
 * eigenvalues s_j + s_k ≥ 0 (S from the nearest rotation: |s3| ≤ s2 when s3 < 0), zero only where
 * R is not differentiable.  The solve is done in the eigenbasis of S (eig.h) with the guarded
 * inverse 1/d → d/(d² + δ²), δ = SIPD_POLAR_GUARD (|s1|+|s2|+|s3|): the exact inverse to a
 * relative (δ/d)² wherever d ≫ δ, and bounded (|ω| ≤ |b|/(2δ)) at and near the singular set,
 * where the component along the null direction goes to 0 (the minimum-norm choice).
 *
 * Everything here is SIPD_HD (host and device, float or double).
 */
#ifndef SIPD_PHYSICS_POLAR_H
#define SIPD_PHYSICS_POLAR_H

#include "mat3.h"
#include "eig.h"

#ifndef SIPD_POLAR_GUARD
#ifdef SIPD_REAL_FLOAT
#define SIPD_POLAR_GUARD SIPD_R(1e-4)
#else
#define SIPD_POLAR_GUARD SIPD_R(1e-8)
#endif
#endif

/* Rotation of the quaternion (w, x, y, z), normalised here (q = 0 gives I). */
SIPD_HD mat3 polar_quat_to_rot(sipd_real w, sipd_real x, sipd_real y, sipd_real z)
{
    mat3 R;
    sipd_real n2 = w * w + x * x + y * y + z * z, s;
    if (!(n2 > 0))
        return m3_identity();
    s = 2 / n2;
    R.m[0] = 1 - s * (y * y + z * z);
    R.m[1] = s * (x * y - w * z);
    R.m[2] = s * (x * z + w * y);
    R.m[3] = s * (x * y + w * z);
    R.m[4] = 1 - s * (x * x + z * z);
    R.m[5] = s * (y * z - w * x);
    R.m[6] = s * (x * z - w * y);
    R.m[7] = s * (y * z + w * x);
    R.m[8] = 1 - s * (x * x + y * y);
    return R;
}

/* The quaternion (w, x, y, z) of the rotation nearest F (maximises tr(RᵀF); det R = +1 for every
 * F), unnormalised: polar_quat_to_rot(q) is polar_rotation(F).  Four numbers: the CUDA backend
 * stores them between the two kernels of a corotational / ARAP tet's element pass
 * (kernels/backend_cuda.cu k_element_tet_polar). */
SIPD_HD void polar_rotation_quat(mat3 F, sipd_real q[4])
{
    sipd_real N[16], ev[4], V[16];
    const sipd_real *f = F.m;
    int k, best = 0;
    /* N(F): tr(R(q)ᵀF) = qᵀNq for the unit quaternion q = (w, x, y, z) of polar_quat_to_rot */
    N[0] = f[0] + f[4] + f[8];
    N[5] = f[0] - f[4] - f[8];
    N[10] = -f[0] + f[4] - f[8];
    N[15] = -f[0] - f[4] + f[8];
    N[1] = N[4] = f[7] - f[5];
    N[2] = N[8] = f[2] - f[6];
    N[3] = N[12] = f[3] - f[1];
    N[6] = N[9] = f[1] + f[3];
    N[7] = N[13] = f[2] + f[6];
    N[11] = N[14] = f[5] + f[7];
    sym_eig(4, N, ev, V);
    for (k = 1; k < 4; k++)
        if (ev[k] > ev[best])
            best = k;
    for (k = 0; k < 4; k++) q[k] = V[4 * k + best];
}

/* The rotation nearest F (maximises tr(RᵀF); det R = +1 for every F). */
SIPD_HD mat3 polar_rotation(mat3 F)
{
    sipd_real q[4];
    polar_rotation_quat(F, q);
    return polar_quat_to_rot(q[0], q[1], q[2], q[3]);
}

/* S = the symmetric part of RᵀF for the rotation R of F's polar decomposition (symmetric already,
 * to round-off). */
SIPD_HD sym3 polar_stretch(mat3 F, mat3 R)
{
    const mat3 T = m3_mul(m3_transpose(R), F);
    sym3 S;
    S.s[0] = T.m[0];
    S.s[1] = T.m[4];
    S.s[2] = T.m[8];
    S.s[3] = SIPD_R(0.5) * (T.m[1] + T.m[3]);
    S.s[4] = SIPD_R(0.5) * (T.m[2] + T.m[6]);
    S.s[5] = SIPD_R(0.5) * (T.m[5] + T.m[7]);
    return S;
}

/* F = R S: R = polar_rotation(F), S = the symmetric part of RᵀF (symmetric already, to round-off). */
SIPD_HD void polar_decompose(mat3 F, mat3 *R, sym3 *S)
{
    *R = polar_rotation(F);
    *S = polar_stretch(F, *R);
}

/* dR for the direction dF, given R, the eigenvalues s and eigenvectors V (columns) of S and
 * the guard δ (see the top of this file). */
SIPD_HD mat3 polar_dR_eig(mat3 R, vec3 s, mat3 V, sipd_real delta, mat3 dF)
{
    mat3 A = m3_mul(m3_transpose(R), dF);   /* Rᵀ dF; Rᵀ dF − dFᵀ R = A − Aᵀ */
    vec3 b = v3(A.m[7] - A.m[5], A.m[2] - A.m[6], A.m[3] - A.m[1]), bv, w;
    sipd_real t = s.v[0] + s.v[1] + s.v[2];
    mat3 W;
    int k;
    bv = m3_mulv(m3_transpose(V), b);
    for (k = 0; k < 3; k++) {
        sipd_real d = t - s.v[k], den = d * d + delta * delta;
        bv.v[k] *= den > 0 ? d / den : 0;   /* F = 0: δ = 0 and d = 0 */
    }
    w = m3_mulv(V, bv);
    /* [ω]× */
    W.m[0] = W.m[4] = W.m[8] = 0;
    W.m[1] = -w.v[2];
    W.m[2] = w.v[1];
    W.m[3] = w.v[2];
    W.m[5] = -w.v[0];
    W.m[6] = -w.v[1];
    W.m[7] = w.v[0];
    return m3_mul(R, W);
}

/* The guard δ for S with eigenvalues s. */
SIPD_HD sipd_real polar_guard(vec3 s)
{
    return SIPD_POLAR_GUARD * (sipd_fabs(s.v[0]) + sipd_fabs(s.v[1]) + sipd_fabs(s.v[2]));
}

/* dR/dF applied to dF, for R, S = polar_decompose(F). */
SIPD_HD mat3 polar_dR(mat3 R, sym3 S, mat3 dF)
{
    vec3 s;
    mat3 V;
    s3_eig(S, &s, &V);
    return polar_dR_eig(R, s, V, polar_guard(s), dF);
}

/* The full ∂R/∂F: D[9*(3i+j) + 3k+l] = ∂R_ij/∂F_kl (one eigen-solve of S, nine directions). */
SIPD_HD void polar_dRdF(mat3 R, sym3 S, sipd_real D[81])
{
    vec3 s;
    mat3 V;
    sipd_real delta;
    int kl, ij;
    s3_eig(S, &s, &V);
    delta = polar_guard(s);
    for (kl = 0; kl < 9; kl++) {
        mat3 E = m3_zero(), dR;
        E.m[kl] = 1;
        dR = polar_dR_eig(R, s, V, delta, E);
        for (ij = 0; ij < 9; ij++) D[9 * ij + kl] = dR.m[ij];
    }
}


/* ---- 3x2 F (membranes, tri.h) ------------------------------------------------------------------
 *
 * F (3x2, row-major F[2i + j], columns f0, f1) = R S with R 3x2, RᵀR = I₂, and S = RᵀF 2x2
 * symmetric positive semi-definite.  R maximises tr(QᵀF) over all 3x2 Q with orthonormal columns
 * (the maximum is the nuclear norm σ1 + σ2 = √(‖F‖² + 2|f0 × f1|)), R = F (FᵀF)^{-1/2} when F has
 * rank 2.  A 3x2 F has no inversion (a "folded" triangle is the same F seen from the other side),
 * so S is PSD for every F: σ2 ≥ 0, zero only on the degenerate set.
 *
 * Method (no iteration, no SVD): an orthonormal frame (e1, e2) of the plane of F, right-handed
 * with n = e1 × e2 along f0 × f1, then the closed-form 2x2 nearest rotation of G = [e1 e2]ᵀ F:
 *   Q(θ) with cos θ ∝ G00 + G11, sin θ ∝ G10 − G01   (tr(Q(θ)ᵀG) = cos θ (G00+G11) + sin θ (G10−G01)),
 * R = [e1 e2] Q(θ).  The frame is Gram–Schmidt from the longer column a, applied twice to the other
 * column b ("twice is enough": e1·e2 = O(ε) however small the residual of b), with e1, e2 ordered so
 * that det G = |a| |b⊥| ≥ 0 (then Q(θ)ᵀG has eigenvalues σ1, σ2 ≥ 0).
 * Why this rather than embedding F3 = [f0 f1 n] in the 3x3 quaternion polar above: the embedding
 * needs the same unit normal n (and so the same care when f0 × f1 is tiny), then pays a 4x4 Jacobi
 * for what is a one-angle problem once the plane is known; a closed-form 2x2 square root of FᵀF
 * (R = F S⁻¹) would need S⁻¹ and fails at rank 1.
 * Fallbacks: F = 0 gives R = [e_x e_y], n = e_z, S = 0; rank 1 (|b⊥| ≤ SIPD_POLAR_GUARD² |a|, below
 * which its direction is round-off) takes e⊥ ⟂ e_a from the coordinate axis least aligned with a;
 * every output is then still a maximiser (any orthonormal R with r·a = |a| along a), orthonormal.
 *
 * Derivative: dR = R W + n βᵀ with W = ω [[0, −1], [1, 0]] (RᵀdR skew) and β the out-of-plane
 * part.  From dF = dR S + R dS: Rᵀ dF − dFᵀ R = ω (tr S) [[0, −1], [1, 0]] gives ω, and
 * nᵀ dF = βᵀ S gives β = S⁻¹ dFᵀ n.  Both inverses are guarded as in the 3x3 case,
 * δ = SIPD_POLAR_GUARD tr S: 1/d → d/(d² + δ²) for tr S, and for S the matrix form of the same map on
 * its eigenvalues, S_δ⁻¹ = (det S·tr S I + (δ² − det S) S) / ((det S)² + δ² ‖S‖² + δ⁴)
 * (= S⁻¹ at δ = 0; no eigen-solve).  The normal part is 1/σ2-sensitive: R turns out of the plane
 * as fast as the short side of a sliver is tilted; bounded by 1/(2δ) at the degenerate set. */

/* 3x2 polar: R (row-major 3x2), S = [S00, S11, S01], n = r0 × r1 (optional). */
SIPD_HD void polar_3x2(const sipd_real *F, sipd_real *R, sipd_real *S, vec3 *nout)
{
    vec3 f0 = v3(F[0], F[2], F[4]), f1 = v3(F[1], F[3], F[5]), a, b, u, w, e1, e2, r0, r1;
    sipd_real na = v3_norm2(f0), nb = v3_norm2(f1), la, lw, c, s, r;
    int first = na >= nb;   /* a = f0 */
    if (!(na > 0) && !(nb > 0)) {
        e1 = v3(1, 0, 0);
        e2 = v3(0, 1, 0);
    } else {
        a = first ? f0 : f1;
        b = first ? f1 : f0;
        la = sipd_sqrt(first ? na : nb);
        u = v3_scale(a, 1 / la);
        w = v3_axpy(-v3_dot(b, u), u, b);
        w = v3_axpy(-v3_dot(w, u), u, w);
        lw = sipd_sqrt(v3_norm2(w));
        if (!(lw > SIPD_POLAR_GUARD * SIPD_POLAR_GUARD * la)) {
            /* rank 1: any unit vector ⟂ u (least aligned coordinate axis, crossed) */
            sipd_real x = sipd_fabs(u.v[0]), y = sipd_fabs(u.v[1]), z = sipd_fabs(u.v[2]);
            vec3 ax = (x <= y && x <= z) ? v3(1, 0, 0) : (y <= z ? v3(0, 1, 0) : v3(0, 0, 1));
            w = v3_cross(u, ax);
            lw = sipd_sqrt(v3_norm2(w));
        }
        w = v3_scale(w, 1 / lw);
        e1 = first ? u : w;
        e2 = first ? w : u;
    }
    /* G = [e1 e2]ᵀ F, its nearest 2x2 rotation */
    c = v3_dot(e1, f0) + v3_dot(e2, f1);
    s = v3_dot(e2, f0) - v3_dot(e1, f1);
    r = sipd_sqrt(c * c + s * s);
    if (r > 0) {
        c /= r;
        s /= r;
    } else {
        c = 1;
        s = 0;
    }
    r0 = v3_axpy(s, e2, v3_scale(e1, c));
    r1 = v3_axpy(c, e2, v3_scale(e1, -s));
    R[0] = r0.v[0]; R[1] = r1.v[0];
    R[2] = r0.v[1]; R[3] = r1.v[1];
    R[4] = r0.v[2]; R[5] = r1.v[2];
    S[0] = v3_dot(r0, f0);
    S[1] = v3_dot(r1, f1);
    S[2] = SIPD_R(0.5) * (v3_dot(r0, f1) + v3_dot(r1, f0));
    if (nout)
        *nout = v3_cross(e1, e2);
}

/* dR for the direction dF (3x2 row-major), given R, S, n = polar_3x2(F). */
SIPD_HD void polar_3x2_dR(const sipd_real *R, const sipd_real *S, vec3 n, const sipd_real *dF, sipd_real *dR)
{
    sipd_real t = S[0] + S[1], dl = SIPD_POLAR_GUARD * sipd_fabs(t), d2 = dl * dl;
    sipd_real det = S[0] * S[1] - S[2] * S[2], nS2 = S[0] * S[0] + S[1] * S[1] + 2 * S[2] * S[2];
    sipd_real den = det * det + d2 * nS2 + d2 * d2, A01 = 0, A10 = 0, om, ndf0, ndf1, b0, b1, k0, k1;
    int i;
    for (i = 0; i < 3; i++) {   /* A = Rᵀ dF: only the skew part enters */
        A01 += R[2 * i] * dF[2 * i + 1];
        A10 += R[2 * i + 1] * dF[2 * i];
    }
    om = (t * t + d2 > 0) ? (A10 - A01) * t / (t * t + d2) : SIPD_R(0);
    ndf0 = n.v[0] * dF[0] + n.v[1] * dF[2] + n.v[2] * dF[4];
    ndf1 = n.v[0] * dF[1] + n.v[1] * dF[3] + n.v[2] * dF[5];
    /* β = S_δ⁻¹ (nᵀdF)ᵀ */
    k0 = den > 0 ? det * t / den : SIPD_R(0);
    k1 = den > 0 ? (d2 - det) / den : SIPD_R(0);
    b0 = k0 * ndf0 + k1 * (S[0] * ndf0 + S[2] * ndf1);
    b1 = k0 * ndf1 + k1 * (S[2] * ndf0 + S[1] * ndf1);
    for (i = 0; i < 3; i++) {   /* R W: column 0 = ω r1, column 1 = −ω r0 */
        dR[2 * i] = om * R[2 * i + 1] + n.v[i] * b0;
        dR[2 * i + 1] = -om * R[2 * i] + n.v[i] * b1;
    }
}

/* The full ∂R/∂F of the 3x2 polar: D[6 (2i + j) + 2k + l] = ∂R_ij/∂F_kl. */
SIPD_HD void polar_3x2_dRdF(const sipd_real *R, const sipd_real *S, vec3 n, sipd_real D[36])
{
    int kl, ij;
    for (kl = 0; kl < 6; kl++) {
        sipd_real E[6] = {0, 0, 0, 0, 0, 0}, dR[6];
        E[kl] = 1;
        polar_3x2_dR(R, S, n, E, dR);
        for (ij = 0; ij < 6; ij++) D[6 * ij + kl] = dR[ij];
    }
}

#endif
