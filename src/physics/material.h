/* material.h — hyperelastic materials and their SIPD quantities.
 *
 * A material provides, for a deformation gradient F:
 *   Ψ(F)         energy density,
 *   P(F)         first Piola–Kirchhoff stress ∂Ψ/∂F,
 *   K⁺(F)        the implicit part of K = P F⁻¹ used in the SIPD preconditioner
 *                D_a = m_a/h² I + Σ_e V_e |∇N_a|² K⁺_e   (docs/design.md §3.3–3.4).
 * K⁺ must be symmetric positive semi-definite for every F, inverted and degenerate ones
 * included, so that D is SPD and −D⁻¹g is a descent direction.  The solver only calls
 * material_eval / material_psi; a new model adds a value to sipd_material_model, a case to each
 * switch below (and in hessian.h) and its name to scene.c's model list, and needs no solver
 * change.  The switches have no fallback model: an unknown model yields NaN (device code cannot
 * report an error, so a bug shows as a diverged solve); model_build refuses an unknown model
 * before anything runs (material_model_valid).
 *
 * Stable neo-Hookean (Smith et al. 2018 form, docs/design.md §3.3):
 *   Ψ = μ/2 (tr FᵀF − 3) + λ/2 (J − α)²,  α = 1 + μ/λ
 *   P = μF + λ(J − α) cof F
 *   K = P F⁻¹ = μI + λ (J − α)/J · cof cofᵀ      (J B⁻¹ = cof cofᵀ / J)
 * Lamé mapping: μ = μ_L, λ = λ_L + μ_L, so that the small-strain response equals linear
 * elasticity with (E, ν).
 *
 * Splits of K, all SVD-free, computed from cof F (never through B⁻¹, which blows up as J→0):
 *   expanded: K⁺ = μI + λ cof cofᵀ            (drops −λα cof cofᵀ/J; PSD always)
 *   sign:     K⁺ = μI + max(c, 0)/J² cof cofᵀ,  c = λ(J−α)J   (J² floored at SIPD_J2_FLOOR)
 *   none:     K⁺ = K (ablation: indefinite under compression; J² floored likewise)
 *   clamp:    K⁺ = Σ max(k_i, 0) v_i v_iᵀ   (eigenvalue clamp of K, J² floored likewise)
 *   abs:      K⁺ = Σ |k_i| v_i v_iᵀ         (absolute-eigenvalue projection of K)
 *             K = μI + c cof cofᵀ, c = λ(J−α)J / max(J², SIPD_J2_FLOOR), so the eigenvectors v_i of
 *             K are those of cof cofᵀ (eigenvalues m_i ≥ 0) and k_i = μ + c m_i.  Both are the
 *             eigen-decomposition baselines of docs/design.md §3.4 (3x3 Jacobi, eig.h); with c ≥ 0 they
 *             return K itself, otherwise K corrected along its negative eigenvectors only.
 *
 * The other models (docs/design.md §3.10; docs/materials.md).  Each "expanded" K⁺ is chosen by one
 * rule, the one stable neo-Hookean's expanded split already follows: V|∇N_a|² K⁺ majorises the
 * true per-vertex Hessian block of V Ψ (g = ∇N_a; Cauchy–Schwarz: (Xg)(Xg)ᵀ ⪯ |g|² XXᵀ), so a
 * vertex's full step is (almost) always accepted, and K⁺ is PSD for every F.
 *
 * Neo-Hookean:  Ψ = μ/2 (I_C − 3) + f(J),  f(J) = −μ ln J + λ/2 (ln J)²  (λ = λ_L, μ = μ_L)
 *   P = μF + f′(J) cof F,   K = μI + f′(J)/J cof cofᵀ,  f′ = (λ ln J − μ)/J,
 *   f″ = (λ(1 − ln J) + μ)/J².
 *   Guard: below J₀ = SIPD_NH_J0 (0.1) f is replaced by its second-order Taylor polynomial at J₀
 *   (f, f′, f″ continuous: Ψ is C² in F), a convex parabola in J that keeps rising as J falls
 *   through 0 to inversion, so every F has a finite energy and a line search sees it climb.
 *   Splits: as stable neo-Hookean with λ(J − α) → f′(J), and expanded K⁺ = μI + max(f″, 0) cof cofᵀ
 *   (the vertex block is μ|g|²I + f″ (cof g)(cof g)ᵀ; f″ < 0 only for J > e^{1+μ/λ}).
 * Corotational:  Ψ = μ‖F − R‖² + λ/2 (tr S − 3)²,  R, S = polar(F) (polar.h), tr S = tr(RᵀF)
 *   P = 2μF + c R,  c = λ(tr S − 3) − 2μ,   K = P F⁻¹ = 2μI + c R S⁻¹ Rᵀ (R S⁻¹ Rᵀ = (F Rᵀ)⁻¹,
 *   through its cofactor with det F's square floored as above),
 *   ∂P/∂F = 2μ I⊗I + λ R⊗R + c ∂R/∂F,   ∂R/∂F ⪰ 0 (the Hessian of the convex max_R tr(RᵀF)).
 *   The vertex block 2μ|g|²I + λ(Rg)(Rg)ᵀ + c T_g has 0 ⪯ T_g ⪯ |g|² tr(A⁻¹) I, A = (tr S)I − S
 *   (polar.h), so expanded K⁺ = (2μ + max(λ, 0) + max(c, 0) tr A⁻¹) I  (tr A⁻¹ = tr cof A / det A, det A
 *   floored; only needed when c > 0, i.e. tr S > 3 + 2μ/λ: strong stretch).
 *   ARAP is the same model with λ = 0 (Ψ = μ‖F − R‖², P = 2μ(F − R), expanded K⁺ = 2μI).
 *   R S⁻¹ Rᵀ is indefinite for inverted F, so there is no analytic "sign" form: sign is the
 *   eigenvalue clamp of K (the same as clamp); none = K; clamp/abs fix K's negative eigenvalues.
 * St. Venant–Kirchhoff:  E = ½(FᵀF − I),  Ψ = μ‖E‖² + λ/2 (tr E)²,  S_2 = 2μE + λ tr E I,
 *   P = F S_2,  K = F S_2 F⁻¹ = μB + κI,  κ = λ tr E − μ  (B = FFᵀ; no inverse needed),
 *   vertex block (gᵀS_2 g) I + μ|g|² B + (μ+λ)(Fg)(Fg)ᵀ, so
 *   expanded K⁺ = σI + (2μ + λ)B,  σ = max(0, μ(‖B‖_F − 1) + λ tr E) ≥ the largest eigenvalue of S_2;
 *   sign K⁺ = μB + max(κ, 0) I;  none = K;  clamp/abs fix K's negative eigenvalues.
 *   StVK softens under compression and can invert (its energy has a maximum at F = 0 along
 *   uniform compression and falls again beyond): that is the model.
 * The non-default models are evaluated out of line (SIPD_NOINLINE) so that the hot stable
 * neo-Hookean path of the kernels keeps its registers.  Shells (3x2 F) have stable neo-Hookean
 * only; a 3x2 form of these models goes beside the 3x3 functions below (same formulas in
 * terms of the 3x2 F, its 2x2 polar factor and FᵀF), not inside them.
 */
#ifndef SIPD_PHYSICS_MATERIAL_H
#define SIPD_PHYSICS_MATERIAL_H

#include "mat3.h"
#include "eig.h"
#include "polar.h"

#ifdef SIPD_REAL_FLOAT
#define sipd_log logf
#else
#define sipd_log log
#endif
/* an out-of-line physics function (host and device) */
#ifdef __CUDACC__
#define SIPD_NOINLINE __host__ __device__ __noinline__ static
#else
#define SIPD_NOINLINE __attribute__((noinline)) static
#endif

/* Material models: one enum for the scene (materials[].model), the model and both backends. */
typedef enum {
    SIPD_MAT_STABLE_NEOHOOKEAN = 0,
    SIPD_MAT_NEOHOOKEAN = 1,     /* docs/design.md §3.10 */
    SIPD_MAT_ARAP = 2,
    SIPD_MAT_COROTATIONAL = 3,
    SIPD_MAT_STVK = 4,
    SIPD_MAT_NMODELS   /* the number of models (not a model) */
} sipd_material_model;
enum { SIPD_SPLIT_EXPANDED = 0, SIPD_SPLIT_SIGN = 1, SIPD_SPLIT_NONE = 2, SIPD_SPLIT_CLAMP = 3, SIPD_SPLIT_ABS = 4 };

#define SIPD_J2_FLOOR SIPD_R(1e-8)
/* neo-Hookean: below this J the volumetric term is its C² quadratic extension */
#define SIPD_NH_J0 SIPD_R(0.1)

typedef struct {
    int model;   /* sipd_material_model */
    sipd_real mu, lambda, alpha;   /* alpha: stable neo-Hookean only (0 otherwise) */
} sipd_material;

/* Whether `model` is an implemented sipd_material_model. */
SIPD_HD int material_model_valid(int model) { return model >= 0 && model < SIPD_MAT_NMODELS; }

/* Material from Young's modulus E and Poisson's ratio ν (−1 < ν < 0.5). */
SIPD_HD sipd_material material_stable_neohookean(double E, double nu)
{
    sipd_material m;
    double mu_l = E / (2.0 * (1.0 + nu));
    double la_l = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    m.model = SIPD_MAT_STABLE_NEOHOOKEAN;
    m.mu = (sipd_real)mu_l;
    m.lambda = (sipd_real)(la_l + mu_l);
    m.alpha = (sipd_real)(1.0 + mu_l / (la_l + mu_l));
    return m;
}

/* Material of model `model` from (E, ν); an unknown model gets NaN parameters (model_build
 * checks material_model_valid first and reports it). */
SIPD_HD sipd_material material_make(int model, double E, double nu)
{
    sipd_material m;
    switch (model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN: return material_stable_neohookean(E, nu);
    case SIPD_MAT_NEOHOOKEAN:
    case SIPD_MAT_ARAP:
    case SIPD_MAT_COROTATIONAL:
    case SIPD_MAT_STVK: {
        /* the plain Lamé parameters; ARAP has no volume term (λ = 0: ν does not enter) */
        double mu_l = E / (2.0 * (1.0 + nu));
        double la_l = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
        m.model = model;
        m.mu = (sipd_real)mu_l;
        m.lambda = model == SIPD_MAT_ARAP ? SIPD_R(0) : (sipd_real)la_l;
        m.alpha = 0;
        return m;
    }
    default: break;
    }
    m.model = model;
    m.mu = m.lambda = m.alpha = (sipd_real)NAN;
    return m;
}

/* s3_axpy(w, a, b) with the device's contraction spelled out, fma(w, a_i, b_i): what nvcc made of it in
 * material_K_eigfix out of line, and not in the neo-Hookean tet corner, where the split is a constant
 * and material_K_eigfix_inline came out as b_i − (−w) a_i, two roundings.  The host contracts
 * nothing: s3_axpy itself (the CPU objects stay as they were). */
#if defined(__CUDA_ARCH__) && defined(SIPD_REAL_FLOAT)
SIPD_HD sym3 material_axpy_fma(sipd_real w, sym3 a, sym3 b)
{
    sym3 r;
    int i;
    for (i = 0; i < 6; i++) r.s[i] = __fmaf_rn(w, a.s[i], b.s[i]);
    return r;
}
#else
#define material_axpy_fma s3_axpy
#endif

/* The clamp/abs baselines: K = μI + c M, M = cof cofᵀ ⪰ 0; fix K along the eigenvectors of M
 * where k_i = μ + c m_i < 0 (only there: c < 0 and μ > 0 keep the others positive).  Kept
 * out of material_eval's body so the hot analytic splits stay small enough to inline.  With
 * SIPD_FIXED_SPECIALISED (the CUDA backend) the body is material_K_eigfix_inline, which the
 * neo-Hookean Gauss–Seidel tet corner inlines (kinds/tet.h kind_tet_corner_nh: the values live
 * across the call cost it 8 registers), and material_K_eigfix calls it. */
#ifdef SIPD_FIXED_SPECIALISED
SIPD_HD sym3 material_K_eigfix_inline(sipd_real mu, sipd_real c, mat3 C, int split)
#else   /* the CPU: the out-of-line function itself, as it was */
SIPD_NOINLINE sym3 material_K_eigfix(sipd_real mu, sipd_real c, mat3 C, int split)
#endif
{
    sym3 M = s3_aat(C), Kp = s3_axpy(c, M, s3_diag(mu));
    vec3 m;
    mat3 V;
    int k;
    s3_eig(M, &m, &V);
    for (k = 0; k < 3; k++) {
        sipd_real kk = mu + c * m.v[k];
        if (kk < 0)
            Kp = material_axpy_fma((split == SIPD_SPLIT_ABS ? -2 * kk : -kk), s3_outer(m3_col(V, k)), Kp);
    }
    return Kp;
}
#ifdef SIPD_FIXED_SPECIALISED
SIPD_NOINLINE sym3 material_K_eigfix(sipd_real mu, sipd_real c, mat3 C, int split)
{
    return material_K_eigfix_inline(mu, c, C, split);
}
#endif

/* ---- the non-default models (see the top of this file) ---------------------------------------- */

/* Neo-Hookean volumetric term f(J) = −μ ln J + λ/2 (ln J)², with its C² quadratic extension
 * below SIPD_NH_J0; f′ into *d1, f″ into *d2. */
SIPD_HD sipd_real material_nh_f(const sipd_material *mat, sipd_real J, sipd_real *d1, sipd_real *d2)
{
    sipd_real J0 = J < SIPD_NH_J0 ? SIPD_NH_J0 : J, L = sipd_log(J0);
    sipd_real f = -mat->mu * L + SIPD_R(0.5) * mat->lambda * L * L;
    sipd_real f1 = (mat->lambda * L - mat->mu) / J0, f2 = (mat->lambda * (1 - L) + mat->mu) / (J0 * J0);
    if (J < J0) {
        sipd_real dJ = J - J0;
        f += dJ * (f1 + SIPD_R(0.5) * f2 * dJ);
        f1 += f2 * dJ;
    }
    *d1 = f1;
    *d2 = f2;
    return f;
}

/* Neo-Hookean's split: c of K⁺ = μI + c cof cofᵀ from J, f′(J) (s) and f″(J) (e) (clamp and abs
 * with c < 0 fix K⁺ along cof cofᵀ's eigenvectors instead; material_eval_other, and the CUDA
 * Gauss–Seidel corner through material_nh_P below). */
SIPD_HD sipd_real material_nh_c(int split, sipd_real J, sipd_real s, sipd_real e)
{
    if (split == SIPD_SPLIT_EXPANDED)
        return sipd_max(e, 0);
    if (split == SIPD_SPLIT_SIGN)
        return sipd_max(s * J, 0) / sipd_max(J * J, SIPD_J2_FLOOR);
    return s * J / sipd_max(J * J, SIPD_J2_FLOOR);
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h) */
/* Neo-Hookean's P = μF + f′(J) cof F into *P, cof F into *C, J = det F (as F · cof F's first row),
 * f′(J) into *s and f″(J) into *e (material_nh_c above then gives the split's c).  The arithmetic of
 * material_eval_other's neo-Hookean case, in two parts for the Gauss–Seidel tet corner
 * (kinds/tet.h kind_tet_corner_nh): its gradient from P, then K⁺ from C and c, one evaluation
 * for both and P dead across K⁺.  The case shares material_nh_c but keeps its own P: through
 * material_nh_P the CPU objects changed (GCC vectorised the cofactor differently), though not
 * their results. */
SIPD_HD void material_nh_P(const sipd_material *mat, mat3 F, mat3 *C, sipd_real *J, sipd_real *s, sipd_real *e,
                           mat3 *P)
{
    mat3 Cf = m3_cof(F);
    sipd_real Jf = F.m[0] * Cf.m[0] + F.m[1] * Cf.m[1] + F.m[2] * Cf.m[2], sf, ef;
    int i;
    material_nh_f(mat, Jf, &sf, &ef);
    for (i = 0; i < 9; i++) P->m[i] = mat->mu * F.m[i] + sf * Cf.m[i];
    *C = Cf;
    *J = Jf;
    *s = sf;
    *e = ef;
}

#endif

/* Corotational/ARAP for F's polar rotation R given: S = polar_stretch(F, R), tr S − 3 (returned)
 * and c = λ(tr S − 3) − 2μ (P = 2μF + cR); the one place of these formulas. */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real material_corot_stretch(const sipd_material *mat, mat3 F, mat3 R, sym3 *S,
                                                            sipd_real *c)
{
    sipd_real t;
    *S = polar_stretch(F, R);
    t = S->s[0] + S->s[1] + S->s[2] - 3;
    *c = mat->lambda * t - 2 * mat->mu;
    return t;
}

/* Corotational/ARAP: R, S = polar(F), tr S − 3, and c = λ(tr S − 3) − 2μ (P = 2μF + cR). */
SIPD_HD sipd_real material_corot_parts(const sipd_material *mat, mat3 F, mat3 *R, sym3 *S, sipd_real *c)
{
    *R = polar_rotation(F);
    return material_corot_stretch(mat, F, *R, S, c);
}

/* Corotational/ARAP Ψ = μ‖F − R‖² + ½λ(tr S − 3)² for R = polar_rotation(F) given
 * (material_psi_other's case; the CUDA backend's staged Gauss–Seidel line search computes R in a
 * kernel of its own). */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real material_corot_psi(const sipd_material *mat, mat3 F, mat3 R)
{
    sym3 S;
    sipd_real c, t = material_corot_stretch(mat, F, R, &S, &c), d = 0;
    int i;
    for (i = 0; i < 9; i++) d += (F.m[i] - R.m[i]) * (F.m[i] - R.m[i]);
    return mat->mu * d + SIPD_R(0.5) * mat->lambda * t * t;
}

/* Corotational/ARAP P = 2μF + cR and, when Kp is not NULL, the K⁺ of `split`, for R =
 * polar_rotation(F) given (material_eval_other's case; the CUDA backend's k_element_tet_model
 * computes R in a kernel of its own, k_element_tet_polar, so that neither kernel holds both the
 * polar decomposition and K⁺: docs/gpu.md#registers). */
SIPD_HD SIPD_ALWAYS_INLINE void material_corot_eval(const sipd_material *mat, int split, mat3 F, mat3 R, mat3 *P,
                                                    sym3 *Kp)
{
    sym3 S;
    sipd_real c;
    const sipd_real t = material_corot_stretch(mat, F, R, &S, &c);
    int i;
    for (i = 0; i < 9; i++) P->m[i] = 2 * mat->mu * F.m[i] + c * R.m[i];
    if (!Kp)
        return;
    if (split == SIPD_SPLIT_EXPANDED) {
        sipd_real k = 2 * mat->mu + sipd_max(mat->lambda, 0);   /* λ < 0 (ν < 0): the λ(Rg)(Rg)ᵀ term is ⪯ 0 */
        if (c > 0) {
            /* A = (tr S) I − S ⪰ 0: tr A⁻¹ = tr cof A / det A (det A floored against tr A) */
            sym3 A = s3_axpy(-1, S, s3_diag(t + 3));
            mat3 CA = m3_cof(s3_to_m3(A));
            sipd_real tA = A.s[0] + A.s[1] + A.s[2], dA = m3_det(s3_to_m3(A));
            sipd_real fl = SIPD_J2_FLOOR * tA * tA * tA / 27;
            k += c * (CA.m[0] + CA.m[4] + CA.m[8]) / sipd_max(dA, sipd_max(fl, SIPD_R(1e-30)));
        }
        *Kp = s3_diag(k);
    } else {
        /* K = 2μI + c (F Rᵀ)⁻¹, the left stretch F Rᵀ = R S Rᵀ inverted through its cofactor */
        mat3 Vs = m3_mul(F, m3_transpose(R)), CV;
        sipd_real J, w;
        for (i = 0; i < 3; i++) {   /* symmetrise (it is, to round-off) */
            int j;
            for (j = i + 1; j < 3; j++) Vs.m[3 * i + j] = Vs.m[3 * j + i] = SIPD_R(0.5) * (Vs.m[3 * i + j] + Vs.m[3 * j + i]);
        }
        CV = m3_cof(Vs);
        J = Vs.m[0] * CV.m[0] + Vs.m[1] * CV.m[1] + Vs.m[2] * CV.m[2];
        w = c * J / sipd_max(J * J, SIPD_J2_FLOOR);
        Kp->s[0] = 2 * mat->mu + w * CV.m[0];
        Kp->s[1] = 2 * mat->mu + w * CV.m[4];
        Kp->s[2] = 2 * mat->mu + w * CV.m[8];
        Kp->s[3] = w * SIPD_R(0.5) * (CV.m[1] + CV.m[3]);
        Kp->s[4] = w * SIPD_R(0.5) * (CV.m[2] + CV.m[6]);
        Kp->s[5] = w * SIPD_R(0.5) * (CV.m[5] + CV.m[7]);
        if (split == SIPD_SPLIT_SIGN || split == SIPD_SPLIT_CLAMP)
            *Kp = s3_project(*Kp, SIPD_PROJECT_CLAMP);
        else if (split == SIPD_SPLIT_ABS)
            *Kp = s3_project(*Kp, SIPD_PROJECT_ABS);
    }
}

/* StVK: tr E and the second Piola–Kirchhoff stress S_2 = 2μE + λ tr E I = μ(FᵀF − I) + λ tr E I. */
SIPD_HD sym3 material_stvk_S2(const sipd_material *mat, mat3 F, sipd_real *trE)
{
    sym3 C = s3_aat(m3_transpose(F));
    *trE = SIPD_R(0.5) * (C.s[0] + C.s[1] + C.s[2] - 3);
    return s3_axpy(mat->mu, C, s3_diag(mat->lambda * *trE - mat->mu));
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h): inline body, out-of-line wrapper below */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real material_psi_other_inline(const sipd_material *mat, mat3 F)
#else   /* the CPU: the out-of-line function itself, as it was */
SIPD_NOINLINE sipd_real material_psi_other(const sipd_material *mat, mat3 F)
#endif
{
    switch (mat->model) {
    case SIPD_MAT_NEOHOOKEAN: {
        sipd_real d1, d2;
        return SIPD_R(0.5) * mat->mu * (m3_frob2(F) - 3) + material_nh_f(mat, m3_det(F), &d1, &d2);
    }
    case SIPD_MAT_ARAP:
    case SIPD_MAT_COROTATIONAL: return material_corot_psi(mat, F, polar_rotation(F));
    case SIPD_MAT_STVK: {
        sym3 C = s3_aat(m3_transpose(F));
        sipd_real trE = SIPD_R(0.5) * (C.s[0] + C.s[1] + C.s[2] - 3);
        sipd_real e0 = SIPD_R(0.5) * (C.s[0] - 1), e1 = SIPD_R(0.5) * (C.s[1] - 1), e2 = SIPD_R(0.5) * (C.s[2] - 1);
        sipd_real EE = e0 * e0 + e1 * e1 + e2 * e2 +
                       SIPD_R(0.5) * (C.s[3] * C.s[3] + C.s[4] * C.s[4] + C.s[5] * C.s[5]);
        return mat->mu * EE + SIPD_R(0.5) * mat->lambda * trE * trE;
    }
    default: return (sipd_real)NAN;   /* unknown model (see the top of this file) */
    }
}
#ifdef SIPD_FIXED_SPECIALISED
SIPD_NOINLINE sipd_real material_psi_other(const sipd_material *mat, mat3 F) { return material_psi_other_inline(mat, F); }
#endif

/* P and, when Kp is not NULL, the K⁺ of `split` (split < 0: the full K, material_K) for the
 * non-default models, out of line.  With SIPD_FIXED_SPECIALISED (the CUDA backend, view.h) the
 * body is material_eval_other_inline and material_eval_other calls it: the tet element kernels
 * for one fixed model (kinds/tet.h kind_tet_element_model) inline it, the model and split then
 * compile-time constants. */
#ifdef SIPD_FIXED_SPECIALISED
SIPD_HD SIPD_ALWAYS_INLINE void material_eval_other_inline(const sipd_material *mat, int split, mat3 F, mat3 *P,
                                                           sym3 *Kp)
#else   /* the CPU: the out-of-line function itself, as it was */
SIPD_NOINLINE void material_eval_other(const sipd_material *mat, int split, mat3 F, mat3 *P, sym3 *Kp)
#endif
{
    int i;
    switch (mat->model) {
    case SIPD_MAT_NEOHOOKEAN: {
        mat3 C = m3_cof(F);
        sipd_real J = F.m[0] * C.m[0] + F.m[1] * C.m[1] + F.m[2] * C.m[2], s, e, c;
        material_nh_f(mat, J, &s, &e);
        for (i = 0; i < 9; i++) P->m[i] = mat->mu * F.m[i] + s * C.m[i];
        if (!Kp)
            return;
        c = material_nh_c(split, J, s, e);
        if ((split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS) && c < 0)
            *Kp = material_K_eigfix(mat->mu, c, C, split);
        else
            *Kp = s3_axpy(c, s3_aat(C), s3_diag(mat->mu));
        return;
    }
    case SIPD_MAT_ARAP:
    case SIPD_MAT_COROTATIONAL: material_corot_eval(mat, split, F, polar_rotation(F), P, Kp); return;
    case SIPD_MAT_STVK: {
        sipd_real trE;
        sym3 S2 = material_stvk_S2(mat, F, &trE), B;
        mat3 Sm = s3_to_m3(S2);
        *P = m3_mul(F, Sm);
        if (!Kp)
            return;
        B = s3_aat(F);
        if (split == SIPD_SPLIT_EXPANDED) {
            sipd_real nB = sipd_sqrt(B.s[0] * B.s[0] + B.s[1] * B.s[1] + B.s[2] * B.s[2] +
                                     2 * (B.s[3] * B.s[3] + B.s[4] * B.s[4] + B.s[5] * B.s[5]));
            sipd_real sig = sipd_max(0, mat->mu * (nB - 1) + mat->lambda * trE);
            *Kp = s3_axpy(2 * mat->mu + mat->lambda, B, s3_diag(sig));
        } else {
            sipd_real kap = mat->lambda * trE - mat->mu;
            *Kp = s3_axpy(mat->mu, B, s3_diag(split == SIPD_SPLIT_SIGN ? sipd_max(kap, 0) : kap));
            if (split == SIPD_SPLIT_CLAMP)
                *Kp = s3_project(*Kp, SIPD_PROJECT_CLAMP);
            else if (split == SIPD_SPLIT_ABS)
                *Kp = s3_project(*Kp, SIPD_PROJECT_ABS);
        }
        return;
    }
    default:   /* unknown model */
        for (i = 0; i < 9; i++) P->m[i] = (sipd_real)NAN;
        if (Kp)
            for (i = 0; i < 6; i++) Kp->s[i] = (sipd_real)NAN;
        return;
    }
}

#ifdef SIPD_FIXED_SPECIALISED
SIPD_NOINLINE void material_eval_other(const sipd_material *mat, int split, mat3 F, mat3 *P, sym3 *Kp)
{
    material_eval_other_inline(mat, split, F, P, Kp);
}
#endif

SIPD_HD sipd_real material_psi(const sipd_material *mat, mat3 F)
{
    switch (mat->model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN: {
        /* ½μ(I_C − 3) + ½λ(J − α)² less its rest value ½λ(1 − α)², written without the
           cancellation: Ψ(I) = 0, so the energy of a stiff body carries no constant offset
           (3.1e6 J on a 1 GPa beam) that would drown the line search's comparisons */
        sipd_real J1 = m3_det(F) - 1;
        return SIPD_R(0.5) * mat->mu * (m3_frob2(F) - 3) - mat->mu * J1 + SIPD_R(0.5) * mat->lambda * J1 * J1;
    }
    default: return material_psi_other(mat, F);
    }
}

SIPD_HD mat3 material_P(const sipd_material *mat, mat3 F)
{
    switch (mat->model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN: {
        mat3 C = m3_cof(F), P;
        sipd_real J = F.m[0] * C.m[0] + F.m[1] * C.m[1] + F.m[2] * C.m[2];
        sipd_real s = mat->lambda * (J - mat->alpha);
        int i;
        for (i = 0; i < 9; i++) P.m[i] = mat->mu * F.m[i] + s * C.m[i];
        return P;
    }
    default: {
        mat3 P;
        material_eval_other(mat, 0, F, &P, 0);
        return P;
    }
    }
}

/* The full K = P F⁻¹ in invariant form (tests; the "none" split), J² (det² of the left stretch)
 * floored at SIPD_J2_FLOOR. */
SIPD_HD sym3 material_K(const sipd_material *mat, mat3 F)
{
    mat3 C = m3_cof(F);
    if (mat->model != SIPD_MAT_STABLE_NEOHOOKEAN) {
        mat3 P;
        sym3 K;
        material_eval_other(mat, SIPD_SPLIT_NONE, F, &P, &K);
        return K;
    }
    sipd_real J = F.m[0] * C.m[0] + F.m[1] * C.m[1] + F.m[2] * C.m[2];
    sipd_real c = mat->lambda * (J - mat->alpha) * J / sipd_max(J * J, SIPD_J2_FLOOR);
    return s3_axpy(c, s3_aat(C), s3_diag(mat->mu));
}


/* Stable neo-Hookean's P = μF + λ(J − α) cof F into *P and cof F into *C; returns the split's c,
 * K⁺ = μI + c cof cofᵀ (material_eval; clamp and abs with c < 0 fix it along cof cofᵀ's
 * eigenvectors instead).  No branch on the data but sign's max: the CPU's lane-parallel tet pass
 * (kinds/tet.h kind_tet_scatter_chunk) evaluates it for several tets at once. */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real material_snh_eval_c(sipd_real mu, sipd_real lambda, sipd_real alpha, int split,
                                                         mat3 F, mat3 *C, mat3 *P)
{
    sipd_real J, s;
    int i;
    *C = m3_cof(F);
    J = F.m[0] * C->m[0] + F.m[1] * C->m[1] + F.m[2] * C->m[2];
    s = lambda * (J - alpha);
    for (i = 0; i < 9; i++) P->m[i] = mu * F.m[i] + s * C->m[i];
    if (split == SIPD_SPLIT_EXPANDED)
        return lambda;
    if (split == SIPD_SPLIT_SIGN)
        return sipd_max(s * J, 0) / sipd_max(J * J, SIPD_J2_FLOOR);
    return s * J / sipd_max(J * J, SIPD_J2_FLOOR);
}

/* One evaluation per element: P and K⁺ (stable neo-Hookean: sharing cof F; the other models out of
 * line, material_eval_other). */
SIPD_HD void material_eval(const sipd_material *mat, int split, mat3 F, mat3 *P, sym3 *Kp)
{
    switch (mat->model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN: {
        mat3 C;
        sipd_real c = material_snh_eval_c(mat->mu, mat->lambda, mat->alpha, split, F, &C, P);
        if ((split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS) && c < 0)
            *Kp = material_K_eigfix(mat->mu, c, C, split);
        else
            *Kp = s3_axpy(c, s3_aat(C), s3_diag(mat->mu));
        return;
    }
    default: material_eval_other(mat, split, F, P, Kp); return;
    }
}

#endif
