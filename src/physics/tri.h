/* tri.h — membrane triangles (cloth, shells; DESIGN.md §3.9), kind SIPD_KIND_TRI.
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
 * (tests/test_kinds.c "membrane": the analytic uniaxial stretch).
 *
 * ∂P/∂F (6x6, index 2i + j) for VBD/Newton: μ I + λ' vec(G)vec(G)ᵀ + λ'(J − α) ∂²J/∂F²,
 * ∂²J/∂f_a∂f_b = C_aᵀ Q C_b + N_ab,  C_0 = −[f1]×, C_1 = [f0]× (∂(f0×f1)/∂f_a), Q = (I − nnᵀ)/J,
 * N_01 = −[n]× = N_10ᵀ, N_00 = N_11 = 0; projected to PSD (6x6 eigen clamp) before use.
 */
#ifndef SIPD_PHYSICS_TRI_H
#define SIPD_PHYSICS_TRI_H

#include "edge.h"
#include "eig.h"
#include "material.h"

#define SIPD_TRI_JFLOOR SIPD_R(1e-12)

/* the membrane material (model.c): plane-stress λ' and α from (E, ν) */
SIPD_HD sipd_material tri_material(double E, double nu)
{
    sipd_material m;
    double mu_l = E / (2.0 * (1.0 + nu)), lps = E * nu / (1.0 - nu * nu);
    m.model = SIPD_MAT_STABLE_NEOHOOKEAN;
    m.mu = (sipd_real)mu_l;
    m.lambda = (sipd_real)(lps + mu_l);
    m.alpha = (sipd_real)(1.0 + mu_l / (lps + mu_l));
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

/* Rest data from the three rest positions; returns the area (Bm untouched when degenerate). */
SIPD_HD sipd_real tri_rest(vec3 x0, vec3 x1, vec3 x2, sipd_real *Bm)
{
    vec3 e1 = v3_sub(x1, x0), e2 = v3_sub(x2, x0), c = v3_cross(e1, e2);
    sipd_real l1 = sipd_sqrt(v3_norm2(e1)), A2 = sipd_sqrt(v3_norm2(c)), d00, d01, d10, d11, det;
    vec3 u, w;
    if (!(l1 > 0) || !(A2 > 0))
        return 0;
    u = v3_scale(e1, 1 / l1);
    w = v3_cross(v3_scale(c, 1 / A2), u);   /* in-plane, ⟂ u */
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

SIPD_HD sipd_real tri_psi(const sipd_material *mat, vec3 f0, vec3 f1)
{
    sipd_real J = sipd_sqrt(v3_norm2(v3_cross(f0, f1)));
    return SIPD_R(0.5) * mat->mu * (v3_norm2(f0) + v3_norm2(f1) - 2) +
           SIPD_R(0.5) * mat->lambda * (J - mat->alpha) * (J - mat->alpha);
}

/* P (as its columns p0, p1) and K⁺ by split */
SIPD_HD void tri_eval(const sipd_material *mat, int split, vec3 f0, vec3 f1, vec3 *p0, vec3 *p1, sym3 *Kp)
{
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

/* ∂P/∂F, 6x6 row-major over vec index 2i + j (row i, column j of F), PSD-projected when project */
SIPD_HD void tri_dPdF(const sipd_material *mat, vec3 f0, vec3 f1, int project, sipd_real H[36])
{
    vec3 n, g[2];
    sipd_real J = tri_J(f0, f1, &n, &g[0], &g[1]), s = mat->lambda * (J - mat->alpha), iJ;
    mat3 C[2], Q, Nx = m3_skew(n);
    int a, b, i, k;
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
                                                     mat->lambda * g[a].v[i] * g[b].v[k] + s * d2J;
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
