/* hessian.h — second derivatives of the elastic energy, for the comparison solvers
 * (docs/design.md §3.7: vbd, block-jacobi, diag-jacobi, newton) and the eigenvalue baselines.
 *
 *   material_dPdF          ∂P_ij/∂F_kl, 9x9, H[9*(3i+j) + (3k+l)] (F, P row-major); every model
 *                          (the non-default ones out of line, material_dPdF_other)
 *   tet_vertex_block       V (∇N_a⊗I)ᵀ (∂P/∂F) (∇N_a⊗I): the true per-vertex 3x3 block of V Ψ,
 *                          optionally PSD-projected (3x3 eigen clamp)
 *   tet_vertex_block_snh   the same for stable neo-Hookean in closed form,
 *                          μV|∇N_a|² I + λV (cof F ∇N_a)(cof F ∇N_a)ᵀ   (exact and PSD)
 *   tet_element_hessian    the 12x12 element Hessian V Gᵀ (∂P/∂F) G, G = dF/dx (9x12), row/column
 *                          3a + k = coordinate k of local vertex a; optionally with ∂P/∂F
 *                          projected to PSD first (9x9 eigen clamp), which makes it PSD.
 *
 * With F = Σ_b y_b ⊗ ∇N_b, ∂F_ij/∂y_{b,k} = δ_ik (∇N_b)_j, so
 *   H_{(a,k),(b,l)} = V Σ_{j,m} (∂P/∂F)[3k+j][3l+m] (∇N_a)_j (∇N_b)_m.
 * The project argument takes the modes of eig.h (0 = none, SIPD_PROJECT_CLAMP = 1,
 * SIPD_PROJECT_ABS = 2; any other non-zero value clamps).
 */
#ifndef SIPD_PHYSICS_HESSIAN_H
#define SIPD_PHYSICS_HESSIAN_H

#include "material.h"
#include "tet.h"
#include "eig.h"

/* Levi-Civita symbol of three indices in 0..2 */
SIPD_HD int hess_levi(int i, int j, int k)
{
    if (i == j || j == k || i == k)
        return 0;
    return ((j - i + 3) % 3 == 1) ? 1 : -1;
}

/* project argument -> eig.h mode */
SIPD_HD int hess_mode(int project) { return project == SIPD_PROJECT_ABS ? SIPD_PROJECT_ABS : SIPD_PROJECT_CLAMP; }

/* ∂P/∂F of the other models (material.h), out of line:
 *   neo-Hookean   as stable neo-Hookean with λ C⊗C → f″(J) C⊗C and λ(J − α) → f′(J);
 *   corotational  2μ I + λ R⊗R + c ∂R/∂F, c = λ(tr S − 3) − 2μ (polar_dRdF; ARAP: λ = 0);
 *   StVK          ∂P_ij/∂F_kl = δ_ik (S_2)_lj + μ (F_il F_kj + B_ik δ_jl) + λ F_ij F_kl. */
SIPD_NOINLINE void material_dPdF_other(const sipd_material *mat, mat3 F, sipd_real H[81])
{
    int i, j, k, l;
    switch (mat->model) {
    case SIPD_MAT_NEOHOOKEAN: {
        mat3 C = m3_cof(F);
        sipd_real J = F.m[0] * C.m[0] + F.m[1] * C.m[1] + F.m[2] * C.m[2], s, e;
        material_nh_f(mat, J, &s, &e);
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++)
                for (k = 0; k < 3; k++)
                    for (l = 0; l < 3; l++) {
                        sipd_real h = e * C.m[3 * i + j] * C.m[3 * k + l];
                        if (i == k && j == l)
                            h += mat->mu;
                        if (i != k && j != l) {
                            int n = 3 - i - k, q = 3 - j - l;
                            h += s * (sipd_real)(hess_levi(i, k, n) * hess_levi(j, l, q)) * F.m[3 * n + q];
                        }
                        H[9 * (3 * i + j) + 3 * k + l] = h;
                    }
        return;
    }
    case SIPD_MAT_ARAP:
    case SIPD_MAT_COROTATIONAL: {
        mat3 R;
        sym3 S;
        sipd_real c;
        int a, b;
        material_corot_parts(mat, F, &R, &S, &c);
        polar_dRdF(R, S, H);
        for (a = 0; a < 9; a++)
            for (b = 0; b < 9; b++) {
                sipd_real h = c * H[9 * a + b] + mat->lambda * R.m[a] * R.m[b];
                if (a == b)
                    h += 2 * mat->mu;
                H[9 * a + b] = h;
            }
        /* symmetric in exact arithmetic: remove the round-off asymmetry of the nine solves */
        for (a = 0; a < 9; a++)
            for (b = a + 1; b < 9; b++) H[9 * a + b] = H[9 * b + a] = SIPD_R(0.5) * (H[9 * a + b] + H[9 * b + a]);
        return;
    }
    case SIPD_MAT_STVK: {
        sipd_real trE;
        sym3 S2 = material_stvk_S2(mat, F, &trE);
        mat3 Sm = s3_to_m3(S2), B = s3_to_m3(s3_aat(F));
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++)
                for (k = 0; k < 3; k++)
                    for (l = 0; l < 3; l++) {
                        sipd_real h = mat->mu * F.m[3 * i + l] * F.m[3 * k + j] + mat->lambda * F.m[3 * i + j] * F.m[3 * k + l];
                        if (i == k)
                            h += Sm.m[3 * l + j];
                        if (j == l)
                            h += mat->mu * B.m[3 * i + k];
                        H[9 * (3 * i + j) + 3 * k + l] = h;
                    }
        return;
    }
    default:   /* unknown model (material.h): NaN, never a fallback model */
        for (i = 0; i < 81; i++) H[i] = (sipd_real)NAN;
        return;
    }
}

/* ∂P/∂F.  Stable neo-Hookean, P = μF + λ(J − α) C, C = cof F:
 *   ∂P_ij/∂F_kl = μ δ_ik δ_jl + λ C_ij C_kl + λ(J − α) ∂C_ij/∂F_kl,
 *   ∂C_ij/∂F_kl = ε_ikn ε_jlq F_nq     (C_ij = ½ ε_imn ε_jpq F_mp F_nq; linear in F;
 *                                       zero unless i ≠ k and j ≠ l; n, q the third indices).
 * Symmetric (a second derivative of Ψ). */
SIPD_HD void material_dPdF(const sipd_material *mat, mat3 F, sipd_real H[81])
{
    switch (mat->model) {
    case SIPD_MAT_STABLE_NEOHOOKEAN: {
        mat3 C = m3_cof(F);
        sipd_real J = F.m[0] * C.m[0] + F.m[1] * C.m[1] + F.m[2] * C.m[2];
        sipd_real s = mat->lambda * (J - mat->alpha);
        int i, j, k, l;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++)
                for (k = 0; k < 3; k++)
                    for (l = 0; l < 3; l++) {
                        sipd_real h = mat->lambda * C.m[3 * i + j] * C.m[3 * k + l];
                        if (i == k && j == l)
                            h += mat->mu;
                        if (i != k && j != l) {
                            int n = 3 - i - k, q = 3 - j - l;
                            h += s * (sipd_real)(hess_levi(i, k, n) * hess_levi(j, l, q)) * F.m[3 * n + q];
                        }
                        H[9 * (3 * i + j) + 3 * k + l] = h;
                    }
        return;
    }
    default: material_dPdF_other(mat, F, H); return;
    }
}

/* Contract ∂P/∂F with two shape gradients: out_kl = V Σ_{j,m} H[3k+j][3l+m] ga_j gb_m. */
SIPD_HD mat3 hess_contract(const sipd_real H[81], vec3 ga, vec3 gb, sipd_real vol)
{
    mat3 R;
    int k, l, j;
    for (k = 0; k < 3; k++)
        for (l = 0; l < 3; l++) {
            sipd_real s = 0;
            for (j = 0; j < 3; j++) {
                const sipd_real *h = H + 9 * (3 * k + j) + 3 * l;
                s += ga.v[j] * (h[0] * gb.v[0] + h[1] * gb.v[1] + h[2] * gb.v[2]);
            }
            R.m[3 * k + l] = vol * s;
        }
    return R;
}

/* The true per-vertex Hessian block of V Ψ w.r.t. local vertex a (generic: through ∂P/∂F),
 * PSD-projected (3x3 eigen clamp; abs with SIPD_PROJECT_ABS) when project != 0. */
SIPD_HD sym3 tet_vertex_block(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, mat3 F,
                              int a, int project)
{
    sipd_real H[81];
    vec3 g = tet_gradN(Bm, a);
    mat3 B;
    sym3 S;
    material_dPdF(mat, F, H);
    B = hess_contract(H, g, g, vol);
    S.s[0] = B.m[0];
    S.s[1] = B.m[4];
    S.s[2] = B.m[8];
    S.s[3] = SIPD_R(0.5) * (B.m[1] + B.m[3]);
    S.s[4] = SIPD_R(0.5) * (B.m[2] + B.m[6]);
    S.s[5] = SIPD_R(0.5) * (B.m[5] + B.m[7]);
    if (project)
        S = s3_project(S, hess_mode(project));
    return S;
}

/* Stable neo-Hookean closed form of the same block (docs/design.md §3.8).  Exact: the λ(J−α) ∂cof/∂F
 * term contracts ε_jlq with the symmetric ∇N_a ∇N_aᵀ and vanishes (det is multilinear).  PSD. */
SIPD_HD sym3 tet_vertex_block_snh(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, mat3 F, int a)
{
    vec3 g = tet_gradN(Bm, a);
    vec3 cg = m3_mulv(m3_cof(F), g);
    return s3_axpy(mat->lambda * vol, s3_outer(cg), s3_diag(mat->mu * vol * v3_norm2(g)));
}

/* 12x12 element Hessian V Gᵀ (∂P/∂F) G, row-major, index 3a + k (vertex a = 0..3, coordinate k).
 * project != 0: ∂P/∂F is projected to PSD (9x9 eigen clamp, or abs) first, so H is PSD. */
SIPD_HD void tet_element_hessian(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, mat3 F,
                                 int project, sipd_real H[144])
{
    sipd_real D[81];
    vec3 g[4];
    int a, b, k, l;
    material_dPdF(mat, F, D);
    if (project)
        sym_project(9, D, hess_mode(project));
    for (a = 0; a < 4; a++) g[a] = tet_gradN(Bm, a);
    for (a = 0; a < 4; a++)
        for (b = a; b < 4; b++) {
            mat3 B = hess_contract(D, g[a], g[b], vol);
            for (k = 0; k < 3; k++)
                for (l = 0; l < 3; l++) {
                    H[12 * (3 * a + k) + 3 * b + l] = B.m[3 * k + l];
                    H[12 * (3 * b + l) + 3 * a + k] = B.m[3 * k + l];
                }
        }
}

/* The per-vertex block the VBD-type solvers use: PSD by construction — the exact closed form
 * for stable neo-Hookean, the eigen-clamped generic block for other models. */
SIPD_HD sym3 tet_vertex_block_psd(const sipd_material *mat, const sipd_real *Bm, sipd_real vol, mat3 F, int a)
{
    if (mat->model == SIPD_MAT_STABLE_NEOHOOKEAN)
        return tet_vertex_block_snh(mat, Bm, vol, F, a);
    return tet_vertex_block(mat, Bm, vol, F, a, 1);
}

#endif
