/* tri.h — membrane triangles (cloth, shells; docs/design.md §3.9), kind SIPD_KIND_TRI.
 *
 * Rest data per triangle: Bm = Dm⁻¹ (2x2, row-major), Dm the rest edges x1 − x0, x2 − x0 in an
 * orthonormal basis of the rest plane; measure A·t (area × thickness).  With
 * Ds = [y1 − y0, y2 − y0] (3x2), F = Ds Bm = [f0 f1] (3x2, row-major F[2i + j]); the shape
 * gradients ∇N_a (a = 1, 2) are the rows of Bm, ∇N_0 = −Σ.  Gradient on vertex a: A t P ∇N_a.
 *
 * Stable neo-Hookean membrane (plane stress):
 *   Ψ = μ/2 (tr FᵀF − 2) + λ'/2 (J − α)²,   J = |f0 × f1|,  n = f0 × f1 / J,  α = 1 + μ/λ'
 *   P = μF + λ'(J − α)[g0 g1],   g0 = f1 × n = ∂J/∂f0,  g1 = n × f0 = ∂J/∂f1
 *   K = P F⁺ = μΠ + λ'(J − α)/J (g0g0ᵀ + g1g1ᵀ),  Π = FF⁺ = I − nnᵀ (J²(FFᵀ)⁺ = g0g0ᵀ + g1g1ᵀ)
 * Splits (in-plane: Π, never I — I would add a fictitious normal stiffness μ A t |∇N|² that
 * makes every out-of-plane step tiny):
 *   expanded: K⁺ = μΠ + λ'(g0g0ᵀ + g1g1ᵀ);  sign: μΠ + max(c, 0)/J² (g0g0ᵀ + g1g1ᵀ),
 *   c = λ'(J − α)J;  none: K;  clamp/abs: K's eigenvalues clamped / made absolute.
 * A degenerate triangle (J ≤ SIPD_TRI_JFLOOR |f0||f1|) has no normal: Π = I then.
 * Plane-stress Lamé mapping (tri_material): μ = μ_L, λ' = λ_ps + μ_L with λ_ps = 2μ_Lλ_L/(λ_L + 2μ_L)
 * = Eν/(1 − ν²), so the small-strain membrane response is plane-stress linear elasticity (E, ν)
 * (tests/unit/test_kinds.c "membrane": the analytic uniaxial stretch).
 *
 * ∂P/∂F (6x6, index 2i + j) for VBD/Newton: μ I + λ' vec(G)vec(G)ᵀ + λ'(J − α) ∂²J/∂F²,
 * ∂²J/∂f_a∂f_b = C_aᵀ Q C_b + N_ab,  C_0 = −[f1]×, C_1 = [f0]× (∂(f0×f1)/∂f_a), Q = (I − nnᵀ)/J,
 * N_01 = −[n]× = N_10ᵀ, N_00 = N_11 = 0; projected to PSD (6x6 eigen clamp) before use.
 *
 * The other models as membranes (docs/design.md §3.10; material.h has their 3x3 forms): the same
 * formulas written with the 3x2 F, J = |f0 × f1| = det S, C = FᵀF (2x2), R, S = polar_3x2(F)
 * (polar.h), 2 for 3 in the rest values.  Plane-stress mapping (tri_material): μ = μ_L and
 * λ = λ_ps = Eν/(1 − ν²) for neo-Hookean, corotational and StVK (each linearises to
 * 2μ ε + λ tr ε I₂: plane-stress linear elasticity with (E, ν)); ARAP has λ = 0 (plane-stress
 * elasticity only for ν = 0: Poisson ratio 0, Young's modulus 2μ_L).  Each is a 2D model with
 * these parameters, not the thickness-condensed 3D model (which differs at finite strain).
 *   neo-Hookean:  Ψ = μ/2 (‖F‖² − 2) + f(J), f of material_nh_f (ln J, C² extension below J₀);
 *     P = μF + f′(J)[g0 g1],  K = μΠ + f′(J)/J G  (G = g0g0ᵀ + g1g1ᵀ);  splits as stable
 *     neo-Hookean with λ'(J − α) → f′: expanded μΠ + max(f″, 0) G, sign μΠ + max(f′J, 0)/J² G.
 *     ∂P/∂F: μ I + f″ vec(G)vec(G)ᵀ + f′ ∂²J/∂F².
 *   corotational: Ψ = μ‖F − R‖² + λ/2 (tr S − 2)²,  P = 2μF + cR,  c = λ(tr S − 2) − 2μ
 *     (∂ tr S/∂F = R: tr S = max tr(QᵀF), the nuclear norm);  K = 2μΠ + c R S⁻¹ Rᵀ, with
 *     R S⁻¹ Rᵀ = R adj(S) Rᵀ / det S ⪰ 0 (S is PSD for every 3x2 F: no inversion), det² floored.
 *     Vertex block (dF = x gᵀ): 2μ|g|² I + λ(Rg)(Rg)ᵀ + c T_g, with
 *     xᵀT_g x = (p1 g0 − p0 g1)²/tr S + (n·x)² gᵀS⁻¹g, p = Rᵀx  (polar_3x2_dR):
 *     its in-plane part is c|g|²/tr S along u = R[[0, −1], [1, 0]]g/|g|, orthogonal to Rg, and
 *     c/tr S < λ always (c > 0 needs λ > 0, and c/tr S = λ − (2λ + 2μ)/tr S), so the in-plane block
 *     is ⪯ (2μ + max(λ, 0))|g|²Π: expanded K⁺ = (2μ + max(λ, 0)) Π (materials_membrane checks the
 *     majorisation).  The (n·x)² part is the tension stiffness against out-of-plane motion: left
 *     out, as the stable neo-Hookean split leaves out its λ'(J − α)∂²J.  sign K⁺ = 2μΠ + max(c, 0) R S⁻¹ Rᵀ
 *     (analytic here, unlike 3x3 where R S⁻¹ Rᵀ is indefinite for an inverted F).
 *     ∂P/∂F = 2μ I + λ vec(R)vec(R)ᵀ + c ∂R/∂F (polar_3x2_dRdF).  ARAP: λ = 0.
 *   StVK: E = ½(C − I₂),  Ψ = μ‖E‖² + λ/2 (tr E)²,  S_2 = 2μE + λ tr E I₂,  P = F S_2,
 *     K = F S_2 F⁺ = μB + κΠ (B = FFᵀ, κ = λ tr E − μ; F C⁻¹ Fᵀ = Π: no inverse);
 *     expanded σΠ + (2μ + λ)B, σ = max(0, μ(‖C‖_F − 1) + λ tr E) (2μ + λ_ps > 0 for ν > −1);
 *     sign μB + max(κ, 0)Π.  ∂P_ij/∂F_kl = δ_ik (S_2)_lj + μ(F_il F_kj + B_ik δ_jl) + λ F_ij F_kl.
 *   Every model: none = K, clamp/abs = K's eigenvalues clamped / made absolute (3x3 Jacobi; K is
 *   in-plane, so its normal eigenvalue 0 stays 0).  All splits but none are PSD for every F.
 * The non-default models are out of line (SIPD_NOINLINE), as for solids.
 */
#ifndef SIPD_PHYSICS_TRI_H
#define SIPD_PHYSICS_TRI_H

#include "edge.h"
#include "eig.h"
#include "material.h"

#define SIPD_TRI_JFLOOR SIPD_R(1e-12)

/* the membrane material of `model` (model.c): the plane-stress mapping of the top of this file
 * (stable neo-Hookean: λ' = λ_ps + μ_L and α); an unknown model gets NaN parameters */
SIPD_HD sipd_material tri_material(int model, double E, double nu)
{
    sipd_material m;
    double mu_l = E / (2.0 * (1.0 + nu)), lps = E * nu / (1.0 - nu * nu);
    m.model = model;
    m.mu = (sipd_real)mu_l;
    m.alpha = 0;
    switch (model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN:
        m.lambda = (sipd_real)(lps + mu_l);
        m.alpha = (sipd_real)(1.0 + mu_l / (lps + mu_l));
        break;
    case SIPD_MAT_NEOHOOKEAN:
    case SIPD_MAT_COROTATIONAL:
    case SIPD_MAT_STVK: m.lambda = (sipd_real)lps; break;
    case SIPD_MAT_ARAP: m.lambda = 0; break;
    default: m.mu = m.lambda = m.alpha = (sipd_real)NAN; break;
    }
    return m;
}

/* ∇N_a (2-vector) from Bm */
SIPD_HD void tri_gradN(const sipd_real *Bm, int a, sipd_real g[2])
{
    if (a == 0) {
        g[0] = -(Bm[0] + Bm[2]);
        g[1] = -(Bm[1] + Bm[3]);
    } else {
        g[0] = Bm[2 * (a - 1)];
        g[1] = Bm[2 * (a - 1) + 1];
    }
}

/* The orthonormal frame of the rest plane the rest data is written in: u along x1 − x0, w in the
 * plane ⟂ u (F maps these coordinates to the world; output fields turn strains back with it).
 * Returns 0 (u, w untouched) when the triangle is degenerate. */
SIPD_HD int tri_rest_frame(vec3 x0, vec3 x1, vec3 x2, vec3 *u, vec3 *w)
{
    vec3 e1 = v3_sub(x1, x0), c = v3_cross(e1, v3_sub(x2, x0));
    sipd_real l1 = sipd_sqrt(v3_norm2(e1)), A2 = sipd_sqrt(v3_norm2(c));
    if (!(l1 > 0) || !(A2 > 0))
        return 0;
    *u = v3_scale(e1, 1 / l1);
    *w = v3_cross(v3_scale(c, 1 / A2), *u);   /* in-plane, ⟂ u */
    return 1;
}

/* Rest data from the three rest positions; returns the area (Bm untouched when degenerate). */
SIPD_HD sipd_real tri_rest(vec3 x0, vec3 x1, vec3 x2, sipd_real *Bm)
{
    vec3 e1 = v3_sub(x1, x0), e2 = v3_sub(x2, x0), c = v3_cross(e1, e2);
    sipd_real l1 = sipd_sqrt(v3_norm2(e1)), A2 = sipd_sqrt(v3_norm2(c)), d00, d01, d10, d11, det;
    vec3 u, w;
    if (!tri_rest_frame(x0, x1, x2, &u, &w))
        return 0;
    d00 = l1; d01 = v3_dot(e2, u);            /* Dm = [[e1·u, e2·u], [e1·w, e2·w]] */
    d10 = 0;  d11 = v3_dot(e2, w);
    det = d00 * d11 - d01 * d10;
    Bm[0] = d11 / det; Bm[1] = -d01 / det;
    Bm[2] = -d10 / det; Bm[3] = d00 / det;
    return A2 / 2;
}

/* F = Ds Bm: columns f0, f1 */
SIPD_HD void tri_F(const sipd_real *Bm, vec3 y0, vec3 y1, vec3 y2, vec3 *f0, vec3 *f1)
{
    vec3 d1 = v3_sub(y1, y0), d2 = v3_sub(y2, y0);
    *f0 = v3_add(v3_scale(d1, Bm[0]), v3_scale(d2, Bm[2]));
    *f1 = v3_add(v3_scale(d1, Bm[1]), v3_scale(d2, Bm[3]));
}

/* J, n (0 when degenerate) and g0, g1 */
SIPD_HD sipd_real tri_J(vec3 f0, vec3 f1, vec3 *n, vec3 *g0, vec3 *g1)
{
    vec3 c = v3_cross(f0, f1);
    sipd_real J = sipd_sqrt(v3_norm2(c));
    if (J > SIPD_TRI_JFLOOR * sipd_sqrt(v3_norm2(f0) * v3_norm2(f1))) {
        *n = v3_scale(c, 1 / J);
    } else {
        *n = v3(0, 0, 0);
    }
    *g0 = v3_cross(f1, *n);
    *g1 = v3_cross(*n, f0);
    return J;
}

/* ---- the non-default models (the top of this file) --------------------------------------------- */

/* F as the row-major 3x2 of polar.h */
SIPD_HD void tri_F6(vec3 f0, vec3 f1, sipd_real *F)
{
    int i;
    for (i = 0; i < 3; i++) {
        F[2 * i] = f0.v[i];
        F[2 * i + 1] = f1.v[i];
    }
}

SIPD_NOINLINE sipd_real tri_psi_other(const sipd_material *mat, vec3 f0, vec3 f1)
{
    switch (mat->model) {
    case SIPD_MAT_NEOHOOKEAN: {
        sipd_real d1, d2, J = sipd_sqrt(v3_norm2(v3_cross(f0, f1)));
        return SIPD_R(0.5) * mat->mu * (v3_norm2(f0) + v3_norm2(f1) - 2) + material_nh_f(mat, J, &d1, &d2);
    }
    case SIPD_MAT_ARAP:
    case SIPD_MAT_COROTATIONAL: {
        sipd_real F[6], R[6], S[3], d = 0, t;
        int i;
        tri_F6(f0, f1, F);
        polar_3x2(F, R, S, 0);
        for (i = 0; i < 6; i++) d += (F[i] - R[i]) * (F[i] - R[i]);
        t = S[0] + S[1] - 2;
        return mat->mu * d + SIPD_R(0.5) * mat->lambda * t * t;
    }
    case SIPD_MAT_STVK: {
        sipd_real e0 = SIPD_R(0.5) * (v3_norm2(f0) - 1), e1 = SIPD_R(0.5) * (v3_norm2(f1) - 1);
        sipd_real e01 = SIPD_R(0.5) * v3_dot(f0, f1), t = e0 + e1;
        return mat->mu * (e0 * e0 + e1 * e1 + 2 * e01 * e01) + SIPD_R(0.5) * mat->lambda * t * t;
    }
    default: return (sipd_real)NAN;   /* unknown model (material.h): never a fallback */
    }
}

/* P (columns p0, p1) and, when Kp is not NULL, K⁺ of `split` for the non-default models */
SIPD_NOINLINE void tri_eval_other(const sipd_material *mat, int split, vec3 f0, vec3 f1, vec3 *p0, vec3 *p1,
                                  sym3 *Kp)
{
    vec3 n, g0, g1;
    sipd_real J = tri_J(f0, f1, &n, &g0, &g1);
    sym3 Pi = v3_norm2(n) > 0 ? s3_axpy(-1, s3_outer(n), s3_diag(1)) : s3_diag(1);
    switch (mat->model) {
    case SIPD_MAT_NEOHOOKEAN: {
        sipd_real s, e, c;
        material_nh_f(mat, J, &s, &e);
        *p0 = v3_axpy(s, g0, v3_scale(f0, mat->mu));
        *p1 = v3_axpy(s, g1, v3_scale(f1, mat->mu));
        if (!Kp)
            return;
        if (split == SIPD_SPLIT_EXPANDED)
            c = sipd_max(e, 0);
        else if (split == SIPD_SPLIT_SIGN)
            c = sipd_max(s * J, 0) / sipd_max(J * J, SIPD_J2_FLOOR);
        else
            c = s * J / sipd_max(J * J, SIPD_J2_FLOOR);
        *Kp = s3_axpy(c, s3_add(s3_outer(g0), s3_outer(g1)), s3_axpy(mat->mu, Pi, s3_zero()));
        break;
    }
    case SIPD_MAT_ARAP:
    case SIPD_MAT_COROTATIONAL: {
        sipd_real F[6], R[6], S[3], t, c;
        vec3 r0, r1;
        tri_F6(f0, f1, F);
        polar_3x2(F, R, S, 0);
        r0 = v3(R[0], R[2], R[4]);
        r1 = v3(R[1], R[3], R[5]);
        t = S[0] + S[1];
        c = mat->lambda * (t - 2) - 2 * mat->mu;
        *p0 = v3_axpy(c, r0, v3_scale(f0, 2 * mat->mu));
        *p1 = v3_axpy(c, r1, v3_scale(f1, 2 * mat->mu));
        if (!Kp)
            return;
        if (split == SIPD_SPLIT_EXPANDED) {
            /* λ < 0 (ν < 0): λ(Rg)(Rg)ᵀ ⪯ 0; c T_g needs no term of its own (the top of this file) */
            *Kp = s3_axpy(2 * mat->mu + sipd_max(mat->lambda, 0), Pi, s3_zero());
        } else {
            /* R S⁻¹ Rᵀ = R adj(S) Rᵀ / det S, det S = σ1σ2 ≥ 0, its square floored */
            sipd_real dS = S[0] * S[1] - S[2] * S[2], w = c * dS / sipd_max(dS * dS, SIPD_J2_FLOOR);
            sym3 M = s3_axpy(S[1], s3_outer(r0), s3_axpy(S[0], s3_outer(r1), s3_zero()));
            M.s[0] -= 2 * S[2] * r0.v[0] * r1.v[0];
            M.s[1] -= 2 * S[2] * r0.v[1] * r1.v[1];
            M.s[2] -= 2 * S[2] * r0.v[2] * r1.v[2];
            M.s[3] -= S[2] * (r0.v[0] * r1.v[1] + r1.v[0] * r0.v[1]);
            M.s[4] -= S[2] * (r0.v[0] * r1.v[2] + r1.v[0] * r0.v[2]);
            M.s[5] -= S[2] * (r0.v[1] * r1.v[2] + r1.v[1] * r0.v[2]);
            if (split == SIPD_SPLIT_SIGN)
                w = sipd_max(w, 0);
            *Kp = s3_axpy(w, M, s3_axpy(2 * mat->mu, Pi, s3_zero()));
        }
        break;
    }
    case SIPD_MAT_STVK: {
        sipd_real C00 = v3_norm2(f0), C11 = v3_norm2(f1), C01 = v3_dot(f0, f1);
        sipd_real trE = SIPD_R(0.5) * (C00 + C11 - 2), kap = mat->lambda * trE - mat->mu;
        sipd_real S00 = mat->mu * C00 + kap, S11 = mat->mu * C11 + kap, S01 = mat->mu * C01;
        sym3 B;
        *p0 = v3_axpy(S01, f1, v3_scale(f0, S00));
        *p1 = v3_axpy(S11, f1, v3_scale(f0, S01));
        if (!Kp)
            return;
        B = s3_add(s3_outer(f0), s3_outer(f1));
        if (split == SIPD_SPLIT_EXPANDED) {
            sipd_real nC = sipd_sqrt(C00 * C00 + C11 * C11 + 2 * C01 * C01);
            sipd_real sig = sipd_max(0, mat->mu * (nC - 1) + mat->lambda * trE);
            *Kp = s3_axpy(2 * mat->mu + mat->lambda, B, s3_axpy(sig, Pi, s3_zero()));
        } else {
            *Kp = s3_axpy(mat->mu, B, s3_axpy(split == SIPD_SPLIT_SIGN ? sipd_max(kap, 0) : kap, Pi, s3_zero()));
        }
        break;
    }
    default: {   /* unknown model */
        int i;
        *p0 = *p1 = v3((sipd_real)NAN, (sipd_real)NAN, (sipd_real)NAN);
        if (Kp)
            for (i = 0; i < 6; i++) Kp->s[i] = (sipd_real)NAN;
        return;
    }
    }
    if (split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS)
        *Kp = s3_project(*Kp, split == SIPD_SPLIT_ABS ? SIPD_PROJECT_ABS : SIPD_PROJECT_CLAMP);
}

SIPD_HD sipd_real tri_psi(const sipd_material *mat, vec3 f0, vec3 f1)
{
    if (mat->model != SIPD_MAT_STABLE_NEOHOOKEAN)
        return tri_psi_other(mat, f0, f1);
    /* ½μ(I_C − 2) + ½λ(J − α)² less its rest value ½λ(1 − α)² (λ(α − 1) = μ), as material_psi
       writes the solid's: Ψ(I) = 0, so a cloth's energy carries no constant offset (25.9 J on the
       defaults study's 0.5 m cloth) for the energy comparisons' relative round-off to drown in */
    sipd_real J1 = sipd_sqrt(v3_norm2(v3_cross(f0, f1))) - 1;
    return SIPD_R(0.5) * mat->mu * (v3_norm2(f0) + v3_norm2(f1) - 2) - mat->mu * J1 +
           SIPD_R(0.5) * mat->lambda * J1 * J1;
}

/* P (as its columns p0, p1) and K⁺ by split */
SIPD_HD void tri_eval(const sipd_material *mat, int split, vec3 f0, vec3 f1, vec3 *p0, vec3 *p1, sym3 *Kp)
{
    if (mat->model != SIPD_MAT_STABLE_NEOHOOKEAN) {
        tri_eval_other(mat, split, f0, f1, p0, p1, Kp);
        return;
    }
    vec3 n, g0, g1;
    sipd_real J = tri_J(f0, f1, &n, &g0, &g1), s = mat->lambda * (J - mat->alpha);
    sym3 Pi = v3_norm2(n) > 0 ? s3_axpy(-1, s3_outer(n), s3_diag(1)) : s3_diag(1);
    sym3 G = s3_add(s3_outer(g0), s3_outer(g1));
    *p0 = v3_axpy(s, g0, v3_scale(f0, mat->mu));
    *p1 = v3_axpy(s, g1, v3_scale(f1, mat->mu));
    if (!Kp)
        return;
    if (split == SIPD_SPLIT_EXPANDED) {
        *Kp = s3_axpy(mat->lambda, G, s3_axpy(mat->mu, Pi, s3_zero()));
    } else {
        sipd_real J2 = sipd_max(J * J, SIPD_J2_FLOOR), c = s * J / J2;   /* λ'(J − α)/J, J² floored */
        if (split == SIPD_SPLIT_SIGN)
            c = sipd_max(c, SIPD_R(0));
        *Kp = s3_axpy(c, G, s3_axpy(mat->mu, Pi, s3_zero()));
        if (split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS)
            *Kp = s3_project(*Kp, split == SIPD_SPLIT_ABS ? SIPD_PROJECT_ABS : SIPD_PROJECT_CLAMP);
    }
}

/* gradient A t P ∇N_a on the three corners, and K⁺ */
SIPD_HD void tri_element(const sipd_material *mat, int split, const sipd_real *Bm, sipd_real vol, vec3 y0, vec3 y1,
                         vec3 y2, vec3 grad[3], sym3 *Kp)
{
    vec3 f0, f1, p0, p1;
    int a;
    tri_F(Bm, y0, y1, y2, &f0, &f1);
    tri_eval(mat, split, f0, f1, &p0, &p1, Kp);
    for (a = 1; a < 3; a++)
        grad[a] = v3_scale(v3_add(v3_scale(p0, Bm[2 * (a - 1)]), v3_scale(p1, Bm[2 * (a - 1) + 1])), vol);
    grad[0] = v3_scale(v3_add(grad[1], grad[2]), -1);
}

SIPD_HD sipd_real tri_energy(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, vec3 y0, vec3 y1, vec3 y2)
{
    vec3 f0, f1;
    tri_F(Bm, y0, y1, y2, &f0, &f1);
    return vol * tri_psi(mat, f0, f1);
}

/* ∂P/∂F of corotational/ARAP and StVK (the top of this file), unprojected */
SIPD_NOINLINE void tri_dPdF_other(const sipd_material *mat, vec3 f0, vec3 f1, sipd_real H[36])
{
    int a, b, i, j, k, l;
    if (mat->model == SIPD_MAT_ARAP || mat->model == SIPD_MAT_COROTATIONAL) {
        sipd_real F[6], R[6], S[3], c;
        vec3 n;
        tri_F6(f0, f1, F);
        polar_3x2(F, R, S, &n);
        c = mat->lambda * (S[0] + S[1] - 2) - 2 * mat->mu;
        polar_3x2_dRdF(R, S, n, H);
        for (a = 0; a < 6; a++)
            for (b = 0; b < 6; b++) H[6 * a + b] = c * H[6 * a + b] + mat->lambda * R[a] * R[b] + (a == b ? 2 * mat->mu : 0);
        /* symmetric in exact arithmetic: remove the round-off asymmetry of the six solves */
        for (a = 0; a < 6; a++)
            for (b = a + 1; b < 6; b++) H[6 * a + b] = H[6 * b + a] = SIPD_R(0.5) * (H[6 * a + b] + H[6 * b + a]);
    } else if (mat->model == SIPD_MAT_STVK) {
        vec3 f[2];
        sipd_real C00 = v3_norm2(f0), C11 = v3_norm2(f1), C01 = v3_dot(f0, f1);
        sipd_real kap = mat->lambda * SIPD_R(0.5) * (C00 + C11 - 2) - mat->mu, S2[4];
        f[0] = f0;
        f[1] = f1;
        S2[0] = mat->mu * C00 + kap;
        S2[3] = mat->mu * C11 + kap;
        S2[1] = S2[2] = mat->mu * C01;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 2; j++)
                for (k = 0; k < 3; k++)
                    for (l = 0; l < 2; l++) {
                        sipd_real h = mat->mu * f[l].v[i] * f[j].v[k] + mat->lambda * f[j].v[i] * f[l].v[k];
                        if (i == k)
                            h += S2[2 * l + j];
                        if (j == l)
                            h += mat->mu * (f0.v[i] * f0.v[k] + f1.v[i] * f1.v[k]);
                        H[6 * (2 * i + j) + 2 * k + l] = h;
                    }
    } else {
        for (i = 0; i < 36; i++) H[i] = (sipd_real)NAN;   /* unknown model */
    }
}

/* ∂P/∂F, 6x6 row-major over vec index 2i + j (row i, column j of F), PSD-projected when project */
SIPD_HD void tri_dPdF(const sipd_material *mat, vec3 f0, vec3 f1, int project, sipd_real H[36])
{
    vec3 n, g[2];
    sipd_real J = tri_J(f0, f1, &n, &g[0], &g[1]), s = mat->lambda * (J - mat->alpha), iJ, e = mat->lambda;
    mat3 C[2], Q, Nx = m3_skew(n);
    int a, b, i, k;
    if (mat->model == SIPD_MAT_NEOHOOKEAN) {   /* λ'(J − α) → f′(J), λ' → f″(J) */
        material_nh_f(mat, J, &s, &e);
    } else if (mat->model != SIPD_MAT_STABLE_NEOHOOKEAN) {
        tri_dPdF_other(mat, f0, f1, H);
        if (project)
            sym_project(6, H, SIPD_PROJECT_CLAMP);
        return;
    }
    C[0] = m3_skew(v3_scale(f1, -1));
    C[1] = m3_skew(f0);
    iJ = J > 0 ? 1 / sipd_max(J, SIPD_TRI_JFLOOR) : SIPD_R(0);
    for (i = 0; i < 9; i++) Q.m[i] = ((i % 4 == 0) ? 1 : 0) * iJ;
    for (i = 0; i < 3; i++)
        for (k = 0; k < 3; k++) Q.m[3 * i + k] -= n.v[i] * n.v[k] * iJ;
    for (a = 0; a < 2; a++)
        for (b = 0; b < 2; b++) {
            mat3 B = m3_mul(m3_transpose(C[a]), m3_mul(Q, C[b]));
            for (i = 0; i < 3; i++)
                for (k = 0; k < 3; k++) {
                    sipd_real d2J = B.m[3 * i + k];
                    if (a == 0 && b == 1)
                        d2J -= Nx.m[3 * i + k];
                    if (a == 1 && b == 0)
                        d2J -= Nx.m[3 * k + i];
                    H[6 * (2 * i + a) + 2 * k + b] = (i == k && a == b ? mat->mu : SIPD_R(0)) +
                                                     e * g[a].v[i] * g[b].v[k] + s * d2J;
                }
        }
    if (project)
        sym_project(6, H, SIPD_PROJECT_CLAMP);
}

/* the PSD-projected vertex block A t Σ (∂P/∂F)[(i j),(k m)] ∇N_a,j ∇N_a,m (3x3) */
SIPD_HD sym3 tri_vertex_block_psd(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, vec3 f0, vec3 f1,
                                  int a)
{
    sipd_real H[36], g[2];
    mat3 B;
    int i, k, j, m;
    tri_dPdF(mat, f0, f1, 1, H);
    tri_gradN(Bm, a, g);
    for (i = 0; i < 3; i++)
        for (k = 0; k < 3; k++) {
            sipd_real s = 0;
            for (j = 0; j < 2; j++)
                for (m = 0; m < 2; m++) s += H[6 * (2 * i + j) + 2 * k + m] * g[j] * g[m];
            B.m[3 * i + k] = vol * s;
        }
    return rod_sym(B);
}

/* the same for the three corners from one projected ∂P/∂F (the element pass) */
SIPD_HD void tri_vertex_blocks_psd(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, vec3 f0, vec3 f1,
                                   sym3 B[3])
{
    sipd_real H[36], g[2];
    mat3 M;
    int a, i, k, j, m;
    tri_dPdF(mat, f0, f1, 1, H);
    for (a = 0; a < 3; a++) {
        tri_gradN(Bm, a, g);
        for (i = 0; i < 3; i++)
            for (k = 0; k < 3; k++) {
                sipd_real s = 0;
                for (j = 0; j < 2; j++)
                    for (m = 0; m < 2; m++) s += H[6 * (2 * i + j) + 2 * k + m] * g[j] * g[m];
                M.m[3 * i + k] = vol * s;
            }
        B[a] = rod_sym(M);
    }
}

/* 9x9 element Hessian A t Gᵀ (∂P/∂F)_PSD G, row-major, index 3a + k */
SIPD_HD void tri_element_hessian(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, vec3 f0, vec3 f1,
                                 sipd_real *Hout)
{
    sipd_real H[36], g[3][2];
    int a, b, i, k, j, m;
    tri_dPdF(mat, f0, f1, 1, H);
    for (a = 0; a < 3; a++) tri_gradN(Bm, a, g[a]);
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++)
            for (i = 0; i < 3; i++)
                for (k = 0; k < 3; k++) {
                    sipd_real s = 0;
                    for (j = 0; j < 2; j++)
                        for (m = 0; m < 2; m++) s += H[6 * (2 * i + j) + 2 * k + m] * g[a][j] * g[b][m];
                    Hout[9 * (3 * a + i) + 3 * b + k] = vol * s;
                }
}

#endif
