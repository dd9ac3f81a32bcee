/* mixed.h — the per-element math of the mixed variational FEM solver (docs/design.md §3.11,
 * seed 002), written once for host and device (SIPD_HD).
 *
 * Per tet e (rest volume w, Bm, current corners y):
 *   F = Ds Bm;  R, S = polar(F) with R a proper rotation (det R = +1) and S symmetric, so an
 *   inverted F gets a negative eigenvalue in S (polar.h);
 *   ŝ = the 6 entries of sym(RᵀF) = S, in sym3 order (xx, yy, zz, xy, xz, yz);
 *   Sym = diag(1, 1, 1, 2, 2, 2) weighs the off-diagonal entries (sᵀ Sym t = S : T);
 *   B = ∂ŝ/∂F (6x9, F row-major: column 3i + j is F_ij), including dR/dF;
 *   BJ = B dF/dy (6x12, column 3a + k = coordinate k of corner a).
 * The S-form materials Ψ(s) (a function of the 6-vector: the derivatives w.r.t. an
 * off-diagonal entry count both of its tensor entries):
 *   stable neo-Hookean  μ/2 (|S|² − 3) − μ (det S − 1) + λ/2 (det S − 1)²
 *   ARAP                μ |S − I|²                 (= μ‖F − R‖², docs/design.md §3.10)
 *   corotational        μ |S − I|² + λ/2 tr(S − I)²
 *   neo-Hookean         μ/2 (|S|² − 3) − μ ln det S + λ/2 (ln det S)²; +∞ for det S ≤ 0 (the line
 *                       search on the Lagrangian then halves), its derivatives there are those
 *                       at det S = SIPD_MIXED_JMIN (finite, so the 6x6 system stays defined)
 * μ and λ are the material's (material.h) coefficients, so Ψ(ŝ(F)) is the material's Ψ(F).
 * StVK has no S-form here (its S² term is not done yet).
 *
 * The element system of one outer iteration (H_e = ∇²Ψ(s) PSD-projected, g_e = ∇Ψ(s)):
 *   K_e = w (BJ)ᵀ H_e (BJ)                        (12x12, PSD)
 *   r_e = −w (BJ)ᵀ [H_e (ŝ − s) + g_e]              (12)
 * and, after the global solve for Δx, per element in closed form
 *   Δs = ŝ − s + BJ Δx_e,   λ = −Sym⁻¹ (H_e Δs + g_e).
 *
 * Polar decomposition and dR/dF: polar.h (the rotation nearest F, inversion-safe, with its guarded
 * derivative where R is not differentiable: σ_i + σ_j → 0); B = ∂ sym(RᵀF)/∂F from them.
 */
#ifndef SIPD_PHYSICS_MIXED_H
#define SIPD_PHYSICS_MIXED_H

#include "eig.h"
#include "edge.h"
#include "../kinds/kind.h"
#include "material.h"
#include "polar.h"
#include "tet.h"
#include "tri.h"

#define SIPD_MIXED_JMIN SIPD_R(1e-6)

/* Sym weights of the 6 entries */
SIPD_HD sipd_real mixed_sym(int k) { return k < 3 ? SIPD_R(1) : SIPD_R(2); }

/* B = ∂ŝ/∂F, B[9 k + c] = ∂ŝ_k/∂F_c (6x9 row-major), for R, S = polar_decompose(F) (polar.h):
 * dŝ = sym(dRᵀ F + Rᵀ dF), dR from polar.h (one eigen-solve of S, nine directions). */
SIPD_HD void mixed_B(mat3 F, mat3 R, sym3 S, sipd_real *B)
{
    vec3 s;
    mat3 V;
    sipd_real delta;
    int c, k;
    s3_eig(S, &s, &V);
    delta = polar_guard(s);
    for (c = 0; c < 9; c++) {
        mat3 dF = m3_zero(), dR, T;
        dF.m[c] = 1;
        dR = polar_dR_eig(R, s, V, delta, dF);
        T = m3_mul(m3_transpose(dR), F);
        /* Rᵀ dF with dF = e_i e_jᵀ (c = 3i + j): column j of the result is row i of R */
        for (k = 0; k < 3; k++) T.m[3 * k + c % 3] += R.m[3 * (c / 3) + k];
        B[9 * 0 + c] = T.m[0];
        B[9 * 1 + c] = T.m[4];
        B[9 * 2 + c] = T.m[8];
        B[9 * 3 + c] = SIPD_R(0.5) * (T.m[1] + T.m[3]);
        B[9 * 4 + c] = SIPD_R(0.5) * (T.m[2] + T.m[6]);
        B[9 * 5 + c] = SIPD_R(0.5) * (T.m[5] + T.m[7]);
    }
}

/* BJ = B dF/dy (6x12): dF_ij/dy_{a,i} = (∇N_a)_j. */
SIPD_HD void mixed_BJ(const sipd_real *B, const sipd_real *Bm, sipd_real *BJ)
{
    int a, i, j, k;
    for (a = 0; a < 4; a++) {
        vec3 gN = tet_gradN(Bm, a);
        for (i = 0; i < 3; i++)
            for (k = 0; k < 6; k++) {
                sipd_real acc = 0;
                for (j = 0; j < 3; j++) acc += B[9 * k + 3 * i + j] * gN.v[j];
                BJ[12 * k + 3 * a + i] = acc;
            }
    }
}

/* ---- S-form materials -------------------------------------------------------------------- */

/* |S|² and det S of the 6-vector, with gradients and Hessians (6x6 row-major; NULL: skip). */
SIPD_HD sipd_real mixed_frob2(const sipd_real *s, sipd_real *g, sipd_real *H)
{
    int k;
    if (g)
        for (k = 0; k < 6; k++) g[k] = 2 * mixed_sym(k) * s[k];
    if (H)
        for (k = 0; k < 36; k++) H[k] = (k % 7 == 0) ? 2 * mixed_sym(k / 6) : SIPD_R(0);
    return s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + 2 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]);
}

/* s = (xx, yy, zz, xy, xz, yz) */
SIPD_HD sipd_real mixed_det(const sipd_real *s, sipd_real *g, sipd_real *H)
{
    sipd_real xx = s[0], yy = s[1], zz = s[2], xy = s[3], xz = s[4], yz = s[5];
    if (g) {
        g[0] = yy * zz - yz * yz;
        g[1] = xx * zz - xz * xz;
        g[2] = xx * yy - xy * xy;
        g[3] = 2 * (xz * yz - zz * xy);
        g[4] = 2 * (xy * yz - yy * xz);
        g[5] = 2 * (xy * xz - xx * yz);
    }
    if (H) {
        int k;
        for (k = 0; k < 36; k++) H[k] = 0;
#define MIXED_HSET(i, j, v) (H[6 * (i) + (j)] = H[6 * (j) + (i)] = (v))
        MIXED_HSET(0, 1, zz); MIXED_HSET(0, 2, yy); MIXED_HSET(1, 2, xx);
        MIXED_HSET(2, 3, -2 * xy); MIXED_HSET(1, 4, -2 * xz); MIXED_HSET(0, 5, -2 * yz);
        H[21] = -2 * zz; H[28] = -2 * yy; H[35] = -2 * xx;   /* (3,3), (4,4), (5,5) */
        MIXED_HSET(3, 4, 2 * yz); MIXED_HSET(3, 5, 2 * xz); MIXED_HSET(4, 5, 2 * xy);
#undef MIXED_HSET
    }
    return xx * yy * zz + 2 * xy * xz * yz - xx * yz * yz - yy * xz * xz - zz * xy * xy;
}

/* Whether `model` has an S-form here. */
SIPD_HD int mixed_model_valid(int model)
{
    return model == SIPD_MAT_STABLE_NEOHOOKEAN || model == SIPD_MAT_ARAP || model == SIPD_MAT_COROTATIONAL ||
           model == SIPD_MAT_NEOHOOKEAN;
}

/* Ψ(s); gradient g (6) and Hessian H (36, not projected) when non-NULL. */
SIPD_HD sipd_real mixed_psi(const sipd_material *mat, const sipd_real *s, sipd_real *g, sipd_real *H)
{
    sipd_real gf[6], Hf[36], gd[6], Hd[36], f2, J, psi;
    const sipd_real mu = mat->mu, la = mat->lambda;
    int k, l;
    switch (mat->model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN:
    case SIPD_MAT_NEOHOOKEAN: {
        sipd_real c1, c2;   /* Ψ = μ/2 |S|² + f(J): g = μ/2 ∇|S|² + f' ∇J, H = μ/2 ∇²|S|² + f'' ∇J∇Jᵀ + f' ∇²J */
        f2 = mixed_frob2(s, gf, Hf);
        J = mixed_det(s, gd, Hd);
        if (mat->model == SIPD_MAT_STABLE_NEOHOOKEAN) {
            psi = SIPD_R(0.5) * mu * (f2 - 3) - mu * (J - 1) + SIPD_R(0.5) * la * (J - 1) * (J - 1);
            c1 = la * (J - 1) - mu;
            c2 = la;
        } else {
            sipd_real Jc = sipd_max(J, SIPD_MIXED_JMIN), lj = log(Jc);
            psi = J > 0 ? SIPD_R(0.5) * mu * (f2 - 3) - mu * lj + SIPD_R(0.5) * la * lj * lj : (sipd_real)INFINITY;
            c1 = (la * lj - mu) / Jc;
            c2 = (la + mu - la * lj) / (Jc * Jc);
        }
        if (g)
            for (k = 0; k < 6; k++) g[k] = SIPD_R(0.5) * mu * gf[k] + c1 * gd[k];
        if (H)
            for (k = 0; k < 6; k++)
                for (l = 0; l < 6; l++)
                    H[6 * k + l] = SIPD_R(0.5) * mu * Hf[6 * k + l] + c2 * gd[k] * gd[l] + c1 * Hd[6 * k + l];
        return psi;
    }
    case SIPD_MAT_ARAP:
    case SIPD_MAT_COROTATIONAL: {
        sipd_real d[6], tr = s[0] + s[1] + s[2] - 3, lc = mat->model == SIPD_MAT_COROTATIONAL ? la : SIPD_R(0);
        for (k = 0; k < 6; k++) d[k] = s[k] - (k < 3 ? SIPD_R(1) : SIPD_R(0));
        f2 = mixed_frob2(d, gf, Hf);
        psi = mu * f2 + SIPD_R(0.5) * lc * tr * tr;
        if (g)
            for (k = 0; k < 6; k++) g[k] = mu * gf[k] + (k < 3 ? lc * tr : SIPD_R(0));
        if (H)
            for (k = 0; k < 6; k++)
                for (l = 0; l < 6; l++) H[6 * k + l] = mu * Hf[6 * k + l] + (k < 3 && l < 3 ? lc : SIPD_R(0));
        return psi;
    }
    default: break;
    }
    if (g)
        for (k = 0; k < 6; k++) g[k] = (sipd_real)NAN;
    if (H)
        for (k = 0; k < 36; k++) H[k] = (sipd_real)NAN;
    return (sipd_real)NAN;
}

/* ---- one element of an outer iteration ----------------------------------------------------- */

/* ŝ at corners y (the start value of s, and the constraint's value). */
SIPD_HD void mixed_tet_shat(const sipd_real *Bm, vec3 y0, vec3 y1, vec3 y2, vec3 y3, sipd_real *shat)
{
    mat3 R, F = tet_F(Bm, y0, y1, y2, y3);
    sym3 S;
    int k;
    polar_decompose(F, &R, &S);
    for (k = 0; k < 6; k++) shat[k] = S.s[k];
}

/* The element system of ns stretch entries over nd = 3 nc coordinates, from BJ (ns x nd), the
 * projected H (ns x ns), g (ns), ŝ and s:  K = w (BJ)ᵀ H (BJ) (nd x nd),  r = −w (BJ)ᵀ [H (ŝ − s) + g]. */
SIPD_HD void mixed_element_system(int ns, int nd, sipd_real w, const sipd_real *BJ, const sipd_real *Hs,
                                  const sipd_real *gs, const sipd_real *shat, const sipd_real *s, sipd_real *K,
                                  sipd_real *r)
{
    sipd_real HB[72], q[6];
    int i, j, k, l;
    for (k = 0; k < ns; k++) {   /* q = H (ŝ − s) + g */
        sipd_real acc = gs[k];
        for (l = 0; l < ns; l++) acc += Hs[ns * k + l] * (shat[l] - s[l]);
        q[k] = acc;
    }
    for (k = 0; k < ns; k++)
        for (j = 0; j < nd; j++) {
            sipd_real acc = 0;
            for (l = 0; l < ns; l++) acc += Hs[ns * k + l] * BJ[nd * l + j];
            HB[nd * k + j] = acc;
        }
    for (i = 0; i < nd; i++) {
        sipd_real acc = 0;
        for (k = 0; k < ns; k++) acc += BJ[nd * k + i] * q[k];
        r[i] = -w * acc;
        for (j = 0; j < nd; j++) {
            sipd_real a2 = 0;
            for (k = 0; k < ns; k++) a2 += BJ[nd * k + i] * HB[nd * k + j];
            K[nd * i + j] = w * a2;
        }
    }
}

/* The element system at corners y with stretch s: K (144, row/col 3a + k), r (12), and what the
 * closed-form update needs: BJ (72), Hs (36, projected), gs (6), shat (6). */
SIPD_HD void mixed_tet_system(const sipd_material *mat, const sipd_real *Bm, sipd_real w, vec3 y0, vec3 y1, vec3 y2,
                              vec3 y3, const sipd_real *s, sipd_real *K, sipd_real *r, sipd_real *BJ, sipd_real *Hs,
                              sipd_real *gs, sipd_real *shat)
{
    mat3 R, F = tet_F(Bm, y0, y1, y2, y3);
    sym3 S;
    sipd_real B[54];
    int k;
    polar_decompose(F, &R, &S);
    for (k = 0; k < 6; k++) shat[k] = S.s[k];
    mixed_B(F, R, S, B);
    mixed_BJ(B, Bm, BJ);
    mixed_psi(mat, s, gs, Hs);
    sym_project(6, Hs, SIPD_PROJECT_CLAMP);
    mixed_element_system(6, 12, w, BJ, Hs, gs, shat, s, K, r);
}

/* Closed-form local update of an element of ns stretch entries over nd coordinates, Sym weights
 * sym (ns): Δs = ŝ − s + BJ Δx_e,  λ = −Sym⁻¹ (H Δs + g). */
SIPD_HD void mixed_local_update_n(int ns, int nd, const sipd_real *sym, const sipd_real *BJ, const sipd_real *Hs,
                                  const sipd_real *gs, const sipd_real *shat, const sipd_real *s,
                                  const sipd_real *dxe, sipd_real *ds, sipd_real *lam)
{
    int k, j;
    for (k = 0; k < ns; k++) {
        sipd_real acc = shat[k] - s[k];
        for (j = 0; j < nd; j++) acc += BJ[nd * k + j] * dxe[j];
        ds[k] = acc;
    }
    for (k = 0; k < ns; k++) {
        sipd_real acc = gs[k];
        for (j = 0; j < ns; j++) acc += Hs[ns * k + j] * ds[j];
        lam[k] = -acc / sym[k];
    }
}

/* The tet's: ns = 6, nd = 12, Sym = diag(1, 1, 1, 2, 2, 2). */
SIPD_HD void mixed_local_update(const sipd_real *BJ, const sipd_real *Hs, const sipd_real *gs, const sipd_real *shat,
                                const sipd_real *s, const sipd_real *dxe, sipd_real *ds, sipd_real *lam)
{
    const sipd_real sym[6] = {1, 1, 1, 2, 2, 2};
    mixed_local_update_n(6, 12, sym, BJ, Hs, gs, shat, s, dxe, ds, lam);
}

/* The element's part of the Lagrangian at corners y: w [Ψ(s) − λᵀ Sym (ŝ(y) − s)]. */
SIPD_HD sipd_real mixed_tet_lagrangian(const sipd_material *mat, const sipd_real *Bm, sipd_real w, vec3 y0, vec3 y1,
                                       vec3 y2, vec3 y3, const sipd_real *s, const sipd_real *lam)
{
    sipd_real shat[6], c = 0;
    int k;
    mixed_tet_shat(Bm, y0, y1, y2, y3, shat);
    for (k = 0; k < 6; k++) c += lam[k] * mixed_sym(k) * (shat[k] - s[k]);
    return w * (mixed_psi(mat, s, NULL, NULL) - c);
}

/* ---- edges: springs and a rod's stretching (kind SIPD_KIND_EDGE, rest [L, k]) --------------
 *
 * F = (y1 − y0)/L (3x1), s = |F| = l/L, R = F/|F|, one stretch entry (Sym = 1), w = L, and
 *   Ψ(s) = k L/2 (s − 1)²,  so  w Ψ(ŝ) = k/2 (l − L)² = spring_energy (edge.h):
 * the spring energy every other method uses (k = E A / L, so Ψ = E A/2 (s − 1)² per unit length:
 * the 1D Hookean restriction in the Biot stretch, whatever the body's material model).  It is
 * convex in s (H = k L > 0): no projection.  B = ∂s/∂F = Rᵀ, BJ = [−R/L, R/L] (R = 0 at l = 0). */

SIPD_HD sipd_real mixed_edge_shat(sipd_real L, vec3 y0, vec3 y1)
{
    return sipd_sqrt(v3_norm2(v3_sub(y1, y0))) / L;
}

SIPD_HD void mixed_edge_system(sipd_real L, sipd_real kspr, vec3 y0, vec3 y1, const sipd_real *s, sipd_real *K,
                               sipd_real *r, sipd_real *BJ, sipd_real *Hs, sipd_real *gs, sipd_real *shat)
{
    vec3 d = v3_sub(y1, y0);
    sipd_real l = sipd_sqrt(v3_norm2(d)), c = l > 0 ? 1 / (l * L) : SIPD_R(0);
    int k;
    shat[0] = l / L;
    for (k = 0; k < 3; k++) {
        BJ[k] = -c * d.v[k];
        BJ[3 + k] = c * d.v[k];
    }
    Hs[0] = kspr * L;
    gs[0] = kspr * L * (s[0] - 1);
    mixed_element_system(1, 6, L, BJ, Hs, gs, shat, s, K, r);
}

SIPD_HD sipd_real mixed_edge_lagrangian(sipd_real L, sipd_real kspr, vec3 y0, vec3 y1, const sipd_real *s,
                                        const sipd_real *lam)
{
    sipd_real shat = mixed_edge_shat(L, y0, y1), d = s[0] - 1;
    return L * (SIPD_R(0.5) * kspr * L * d * d - lam[0] * (shat - s[0]));
}

/* ---- triangles: membranes (kind SIPD_KIND_TRI, rest Bm 2x2, measure w = A t) ---------------
 *
 * F = Ds Bm (3x2, tri.h), R, S = polar_3x2(F) (polar.h: R 3x2 with orthonormal columns, S 2x2
 * PSD — a 3x2 F has no inversion), ŝ = (S00, S11, S01), Sym = diag(1, 1, 2).  B = ∂ŝ/∂F (3x6,
 * column 2i + j = F_ij) from dŝ = sym(dRᵀF + RᵀdF) with polar_3x2_dR; BJ (3x9) = B dF/dy.
 * Stable neo-Hookean membrane in S (tri.h's Ψ exactly: |S|² = tr FᵀF, det S = J = |f0 × f1|):
 *   Ψ(s) = μ/2 (|S|² − 2) + λ'/2 (det S − α)² − λ'/2 (1 − α)²,  μ, λ', α the membrane material's
 *   (tri_material). */

SIPD_HD int mixed_tri_model_valid(int model) { return model == SIPD_MAT_STABLE_NEOHOOKEAN; }

/* Ψ(s) of the membrane; gradient g (3) and Hessian H (9, not projected) when non-NULL. */
SIPD_HD sipd_real mixed_tri_psi(const sipd_material *mat, const sipd_real *s, sipd_real *g, sipd_real *H)
{
    const sipd_real mu = mat->mu, la = mat->lambda;
    sipd_real J = s[0] * s[1] - s[2] * s[2], c = la * (J - mat->alpha);
    sipd_real dJ[3];
    int k, l;
    dJ[0] = s[1];
    dJ[1] = s[0];
    dJ[2] = -2 * s[2];
    if (g) {
        g[0] = mu * s[0] + c * dJ[0];
        g[1] = mu * s[1] + c * dJ[1];
        g[2] = 2 * mu * s[2] + c * dJ[2];
    }
    if (H) {
        for (k = 0; k < 3; k++)
            for (l = 0; l < 3; l++) H[3 * k + l] = la * dJ[k] * dJ[l];
        H[0] += mu;
        H[4] += mu;
        H[8] += 2 * mu - 2 * c;
        H[1] += c;
        H[3] += c;
    }
    /* less the rest value ½λ'(1 − α)², as tri_psi (physics/tri.h): Ψ(I) = 0 */
    return SIPD_R(0.5) * mu * (s[0] * s[0] + s[1] * s[1] + 2 * s[2] * s[2] - 2) - mu * (J - 1) +
           SIPD_R(0.5) * la * (J - 1) * (J - 1);
}

/* F (3x2 row-major) of the triangle at corners y */
SIPD_HD void mixed_tri_F(const sipd_real *Bm, vec3 y0, vec3 y1, vec3 y2, sipd_real *F)
{
    vec3 f0, f1;
    int i;
    tri_F(Bm, y0, y1, y2, &f0, &f1);
    for (i = 0; i < 3; i++) {
        F[2 * i] = f0.v[i];
        F[2 * i + 1] = f1.v[i];
    }
}

SIPD_HD void mixed_tri_shat(const sipd_real *Bm, vec3 y0, vec3 y1, vec3 y2, sipd_real *shat)
{
    sipd_real F[6], R[6];
    mixed_tri_F(Bm, y0, y1, y2, F);
    polar_3x2(F, R, shat, (vec3 *)0);
}

/* B = ∂ŝ/∂F (3x6 row-major, column 2i + j) for R, S, n = polar_3x2(F). */
SIPD_HD void mixed_tri_B(const sipd_real *F, const sipd_real *R, const sipd_real *S, vec3 n, sipd_real *B)
{
    int c, i;
    for (c = 0; c < 6; c++) {
        sipd_real dF[6] = {0, 0, 0, 0, 0, 0}, dR[6], T[4] = {0, 0, 0, 0};
        dF[c] = 1;
        polar_3x2_dR(R, S, n, dF, dR);
        for (i = 0; i < 3; i++) {   /* T = dRᵀ F + Rᵀ dF (2x2) */
            T[0] += dR[2 * i] * F[2 * i] + R[2 * i] * dF[2 * i];
            T[1] += dR[2 * i] * F[2 * i + 1] + R[2 * i] * dF[2 * i + 1];
            T[2] += dR[2 * i + 1] * F[2 * i] + R[2 * i + 1] * dF[2 * i];
            T[3] += dR[2 * i + 1] * F[2 * i + 1] + R[2 * i + 1] * dF[2 * i + 1];
        }
        B[c] = T[0];
        B[6 + c] = T[3];
        B[12 + c] = SIPD_R(0.5) * (T[1] + T[2]);
    }
}

SIPD_HD void mixed_tri_system(const sipd_material *mat, const sipd_real *Bm, sipd_real w, vec3 y0, vec3 y1, vec3 y2,
                              const sipd_real *s, sipd_real *K, sipd_real *r, sipd_real *BJ, sipd_real *Hs,
                              sipd_real *gs, sipd_real *shat)
{
    sipd_real F[6], R[6], B[18], gN[3][2];
    vec3 n;
    int a, i, j, k;
    mixed_tri_F(Bm, y0, y1, y2, F);
    polar_3x2(F, R, shat, &n);
    mixed_tri_B(F, R, shat, n, B);
    for (a = 0; a < 3; a++) tri_gradN(Bm, a, gN[a]);
    for (k = 0; k < 3; k++)
        for (a = 0; a < 3; a++)
            for (i = 0; i < 3; i++) {
                sipd_real acc = 0;
                for (j = 0; j < 2; j++) acc += B[6 * k + 2 * i + j] * gN[a][j];
                BJ[9 * k + 3 * a + i] = acc;
            }
    mixed_tri_psi(mat, s, gs, Hs);
    sym_project(3, Hs, SIPD_PROJECT_CLAMP);
    mixed_element_system(3, 9, w, BJ, Hs, gs, shat, s, K, r);
}

SIPD_HD sipd_real mixed_tri_lagrangian(const sipd_material *mat, const sipd_real *Bm, sipd_real w, vec3 y0, vec3 y1,
                                       vec3 y2, const sipd_real *s, const sipd_real *lam)
{
    sipd_real shat[3], c = 0;
    int k;
    mixed_tri_shat(Bm, y0, y1, y2, shat);
    for (k = 0; k < 3; k++) c += lam[k] * (k == 2 ? SIPD_R(2) : SIPD_R(1)) * (shat[k] - s[k]);
    return w * (mixed_tri_psi(mat, s, (sipd_real *)0, (sipd_real *)0) - c);
}

/* Stretch entries per element of kind k: 6 (tets), 3 (triangles), 1 (edges); 0 for the kinds
 * that are not stretch elements (rod bending, hinges: the mixed solve takes them as plain
 * elastic terms, their PSD Hessian and gradient in the global system, as Newton does). */
SIPD_HD int mixed_kind_stretch(int kind) { return kind_mixed_stretch(kind); }

/* Sym weight of stretch entry k of kind `kind` (off-diagonal entries of S count twice). */
SIPD_HD sipd_real mixed_kind_sym(int kind, int k)
{
    return kind == SIPD_KIND_TET ? mixed_sym(k) : kind == SIPD_KIND_TRI && k == 2 ? SIPD_R(2) : SIPD_R(1);
}

#endif
