/* material.h — hyperelastic materials and their SIPD quantities.
 *
 * A material provides, for a deformation gradient F:
 *   Ψ(F)         energy density,
 *   P(F)         first Piola–Kirchhoff stress ∂Ψ/∂F,
 *   K⁺(F)        the implicit part of K = P F⁻¹ used in the SIPD preconditioner
 *                D_a = m_a/h² I + Σ_e V_e |∇N_a|² K⁺_e   (DESIGN.md §3.3–3.4).
 * K⁺ must be symmetric positive semi-definite for every F, inverted and degenerate ones
 * included, so that D is SPD and −D⁻¹g is a descent direction.  The solver only calls
 * material_eval / material_psi; a new model adds a value to sipd_material_model, a case to each
 * switch below (and in hessian.h) and its name to scene.c's model list, and needs no solver
 * change.  The switches have no fallback model: an unknown model yields NaN (device code cannot
 * report an error, so a bug shows as a diverged solve); model_build refuses an unknown model
 * before anything runs (material_model_valid).
 *
 * Stable neo-Hookean (Smith et al. 2018 form, DESIGN.md §3.3):
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
 *             eigen-decomposition baselines of DESIGN.md §3.4 (3x3 Jacobi, eig.h); with c ≥ 0 they
 *             return K itself, otherwise K corrected along its negative eigenvectors only.
 */
#ifndef SIPD_PHYSICS_MATERIAL_H
#define SIPD_PHYSICS_MATERIAL_H

#include "mat3.h"
#include "eig.h"

/* Material models: one enum for the scene (materials[].model), the model and both backends. */
typedef enum {
    SIPD_MAT_STABLE_NEOHOOKEAN = 0,
    SIPD_MAT_NEOHOOKEAN = 1,     /* DESIGN.md §3.10; planned until material_model_valid says so */
    SIPD_MAT_ARAP = 2,
    SIPD_MAT_COROTATIONAL = 3,
    SIPD_MAT_STVK = 4,
    SIPD_MAT_NMODELS   /* the number of models (not a model) */
} sipd_material_model;
enum { SIPD_SPLIT_EXPANDED = 0, SIPD_SPLIT_SIGN = 1, SIPD_SPLIT_NONE = 2, SIPD_SPLIT_CLAMP = 3, SIPD_SPLIT_ABS = 4 };

#define SIPD_J2_FLOOR SIPD_R(1e-8)

typedef struct {
    int model;   /* sipd_material_model */
    sipd_real mu, lambda, alpha;
} sipd_material;

/* Whether `model` is an implemented sipd_material_model. */
SIPD_HD int material_model_valid(int model) { return model == SIPD_MAT_STABLE_NEOHOOKEAN; }

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
    default: break;
    }
    m.model = model;
    m.mu = m.lambda = m.alpha = (sipd_real)NAN;
    return m;
}

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
    default: return (sipd_real)NAN;   /* unknown model (see the top of this file) */
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
    default: {   /* unknown model */
        mat3 P;
        int i;
        for (i = 0; i < 9; i++) P.m[i] = (sipd_real)NAN;
        return P;
    }
    }
}

/* The full K = P F⁻¹ in invariant form (tests; the "none" split). */
SIPD_HD sym3 material_K(const sipd_material *mat, mat3 F)
{
    mat3 C = m3_cof(F);
    sipd_real J = F.m[0] * C.m[0] + F.m[1] * C.m[1] + F.m[2] * C.m[2];
    sipd_real c = mat->lambda * (J - mat->alpha) * J / sipd_max(J * J, SIPD_J2_FLOOR);
    return s3_axpy(c, s3_aat(C), s3_diag(mat->mu));
}

/* One evaluation per element: P and K⁺ sharing cof F. */
/* The clamp/abs baselines: K = μI + c M, M = cof cofᵀ ⪰ 0; fix K along the eigenvectors of M
 * where k_i = μ + c m_i < 0 (only there: c < 0 and μ > 0 keep the others positive).  Kept
 * out of material_eval's body so the hot analytic splits stay small enough to inline. */
#ifdef __CUDACC__
__host__ __device__ __noinline__ static sym3
#else
__attribute__((noinline)) static sym3
#endif
material_K_eigfix(sipd_real mu, sipd_real c, mat3 C, int split)
{
    sym3 M = s3_aat(C), Kp = s3_axpy(c, M, s3_diag(mu));
    vec3 m;
    mat3 V;
    int k;
    s3_eig(M, &m, &V);
    for (k = 0; k < 3; k++) {
        sipd_real kk = mu + c * m.v[k];
        if (kk < 0)
            Kp = s3_axpy((split == SIPD_SPLIT_ABS ? -2 * kk : -kk), s3_outer(m3_col(V, k)), Kp);
    }
    return Kp;
}

SIPD_HD void material_eval(const sipd_material *mat, int split, mat3 F, mat3 *P, sym3 *Kp)
{
    switch (mat->model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN: {
        mat3 C = m3_cof(F);
        sipd_real J = F.m[0] * C.m[0] + F.m[1] * C.m[1] + F.m[2] * C.m[2];
        sipd_real s = mat->lambda * (J - mat->alpha), c;
        int i;
        for (i = 0; i < 9; i++) P->m[i] = mat->mu * F.m[i] + s * C.m[i];
        if (split == SIPD_SPLIT_EXPANDED)
            c = mat->lambda;
        else if (split == SIPD_SPLIT_SIGN)
            c = sipd_max(s * J, 0) / sipd_max(J * J, SIPD_J2_FLOOR);
        else
            c = s * J / sipd_max(J * J, SIPD_J2_FLOOR);
        if ((split == SIPD_SPLIT_CLAMP || split == SIPD_SPLIT_ABS) && c < 0)
            *Kp = material_K_eigfix(mat->mu, c, C, split);
        else
            *Kp = s3_axpy(c, s3_aat(C), s3_diag(mat->mu));
        return;
    }
    default: {   /* unknown model */
        int i;
        for (i = 0; i < 9; i++) P->m[i] = (sipd_real)NAN;
        for (i = 0; i < 6; i++) Kp->s[i] = (sipd_real)NAN;
        return;
    }
    }
}

#endif
