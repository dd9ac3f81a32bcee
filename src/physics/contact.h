/* contact.h — contact and friction as virtual elements (docs/design.md §3.6), the one-vertex
 * (ground plane / static half-space) form.
 *
 * Plane n·x = h, n a unit normal pointing into the free side; gap d = n·y − h (negative when the
 * vertex penetrates).  Normal-only penalty "material", active for d < d̂:
 *     E_c = k/2 (d̂ − d)²,   g = −k (d̂ − d) n,   D = k n nᵀ.
 * E_c is C¹ (value and gradient vanish at d = d̂; only the second derivative jumps there) and
 * convex in y (a convex function of the affine d), so the line search sees a smooth, convex
 * energy, and the block k n nᵀ is PSD and is the exact Hessian on the active side (it majorises
 * the Hessian, 0, on the inactive side).
 *
 * Lagged smoothed Coulomb friction.  Frozen for the whole time step (at detection): the normal
 * n, the tangent projector T = I − n nᵀ, the normal force λ_n = k (d̂ − d₀) from the step-start
 * position x₀ (0 when d₀ ≥ d̂), and ε = ε_v h_step.  Slip u = T (y − x₀) — the normal part of the
 * motion does not enter.  With f1(x) = 2x/ε − x²/ε² (x < ε), 1 (x ≥ ε) and f0 its antiderivative
 * (f0(0) = 0; f0 and f1 are continuous at ε, f1′(ε) = 0 from both sides, so E_f is C²):
 *     E_f = μ λ_n f0(|u|),   g = μ λ_n f1(|u|) u/|u|  (0 at u = 0; |g| ≤ μ λ_n: Coulomb),
 *     D   = μ λ_n (f1(|u|)/|u|) T,   f1(x)/x = 2/ε − x/ε² (x < ε), 1/x (x ≥ ε).
 * f1(x)/x is evaluated in that closed form, so D is finite at u = 0 (= 2 μ λ_n/ε T) and no division
 * by |u| happens below ε.  D is PSD (a nonnegative multiple of a projector), its eigenvalues lie
 * in [0, 2 μ λ_n/ε] (f1(x)/x is decreasing), and it majorises the true Hessian
 * μ λ_n [f1′(|u|) ûûᵀ + f1(|u|)/|u| (T − ûûᵀ)] because f1′(x) ≤ f1(x)/x: the difference is
 * μ λ_n |u|/ε² ûûᵀ below ε and μ λ_n/|u| ûûᵀ beyond — so Δ = −D⁻¹g stays a descent direction.
 *
 * Vertex–face and edge–edge pairs (src/collide.h) reuse exactly this form through the
 * combination z = Σ β_k y_k of their vertices with frozen closest-point weights β_k and normal n:
 * the gap is d = n·z (plane offset 0), the slip u = T (z − z0) with z0 = Σ β_k x0_k, and vertex k
 * receives g_k = β_k g_z, D_k = β_k² D_z (the chain rule for the gradient; for the block, the
 * diagonal block β_k² D_z of the pair's PSD Hessian Bᵀ D_z B, B = [β_0 I … β_3 I]).  The ground
 * plane is the one-vertex case β = (1), offset h.
 *
 * Preconditions: n is a unit vector, d̂ > 0, k ≥ 0, μ ≥ 0, λ_n ≥ 0, ε > 0.
 */
#ifndef SIPD_PHYSICS_CONTACT_H
#define SIPD_PHYSICS_CONTACT_H

#include "mat3.h"

/* ---------------------------------------------------------------- plane contact (normal) */

/* d = n·y − h */
SIPD_HD sipd_real contact_plane_gap(vec3 y, vec3 n, sipd_real h) { return v3_dot(n, y) - h; }

SIPD_HD sipd_real contact_plane_energy(vec3 y, vec3 n, sipd_real h, sipd_real dhat, sipd_real k)
{
    sipd_real d = contact_plane_gap(y, n, h);
    sipd_real r = dhat - d;
    return d < dhat ? SIPD_R(0.5) * k * r * r : SIPD_R(0);
}

/* Adds the gradient to *g and the block k n nᵀ to *D; returns 1 when active (d < d̂), else 0
 * and leaves *g, *D unchanged. */
SIPD_HD int contact_plane_eval(vec3 y, vec3 n, sipd_real h, sipd_real dhat, sipd_real k, vec3 *g, sym3 *D)
{
    sipd_real d = contact_plane_gap(y, n, h);
    if (!(d < dhat))
        return 0;
    *g = v3_axpy(-k * (dhat - d), n, *g);
    *D = s3_axpy(k, s3_outer(n), *D);
    return 1;
}

/* ---------------------------------------------------------------- lagged smoothed friction */

/* λ_n = k (d̂ − d₀), d₀ the gap at the step-start position x0; 0 when d₀ ≥ d̂. */
SIPD_HD sipd_real friction_normal_force(vec3 x0, vec3 n, sipd_real h, sipd_real dhat, sipd_real k)
{
    sipd_real d0 = contact_plane_gap(x0, n, h);
    return d0 < dhat ? k * (dhat - d0) : SIPD_R(0);
}

/* u = T (y − x0) = w − (n·w) n,  w = y − x0 */
SIPD_HD vec3 friction_slip(vec3 y, vec3 x0, vec3 n)
{
    vec3 w = v3_sub(y, x0);
    return v3_axpy(-v3_dot(n, w), n, w);
}

/* f0(x) = x²/ε − x³/(3ε²) for x < ε, x − ε/3 beyond (x ≥ 0) */
SIPD_HD sipd_real friction_f0(sipd_real x, sipd_real eps)
{
    return x < eps ? x * x / eps - x * x * x / (SIPD_R(3) * eps * eps) : x - eps / SIPD_R(3);
}

/* f1(x) = 2x/ε − x²/ε² for x < ε, 1 beyond */
SIPD_HD sipd_real friction_f1(sipd_real x, sipd_real eps)
{
    return x < eps ? SIPD_R(2) * x / eps - x * x / (eps * eps) : SIPD_R(1);
}

/* f1(x)/x without dividing by x below ε: 2/ε − x/ε² for x < ε, 1/x beyond */
SIPD_HD sipd_real friction_f1_over_x(sipd_real x, sipd_real eps)
{
    return x < eps ? SIPD_R(2) / eps - x / (eps * eps) : SIPD_R(1) / x;
}

SIPD_HD sipd_real friction_energy(vec3 y, vec3 x0, vec3 n, sipd_real lambda_n, sipd_real mu, sipd_real eps)
{
    vec3 u = friction_slip(y, x0, n);
    return mu * lambda_n * friction_f0(sipd_sqrt(v3_norm2(u)), eps);
}

/* Adds g = μ λ_n f1(|u|)/|u| u to *g and D = μ λ_n f1(|u|)/|u| T to *D; nothing when μ λ_n == 0. */
SIPD_HD void friction_eval(vec3 y, vec3 x0, vec3 n, sipd_real lambda_n, sipd_real mu, sipd_real eps, vec3 *g, sym3 *D)
{
    sipd_real s = mu * lambda_n, c;
    vec3 u;
    if (s == 0)
        return;
    u = friction_slip(y, x0, n);
    c = s * friction_f1_over_x(sipd_sqrt(v3_norm2(u)), eps);
    *g = v3_axpy(c, u, *g);
    *D = s3_axpy(-c, s3_outer(n), s3_add(*D, s3_diag(c)));
}

/* ---------------------------------------------------------------- pairs (VF, EE) */

/* z = Σ β_k y_k over the nb ≤ 4 vertices of a pair */
SIPD_HD vec3 contact_pair_combine(const vec3 *y, const sipd_real *beta, int nb)
{
    vec3 z = v3(0, 0, 0);
    int k;
    for (k = 0; k < nb; k++) z = v3_axpy(beta[k], y[k], z);
    return z;
}

/* ---------------------------------------------------------------- a contact point */

/* Contact + lagged friction of one contact point z: a vertex against the plane n·x = h, or a
 * pair's combination z = Σβy with h = 0 (z0 = the same at the step start; lam_n its lagged
 * normal force, 0 for no friction; k the stiffness).  The one composite both backends use for the
 * ground and for pairs. */
SIPD_HD sipd_real contact_point_energy(vec3 z, vec3 z0, vec3 n, sipd_real h, sipd_real dhat, sipd_real k,
                                       sipd_real lam_n, sipd_real mu, sipd_real eps)
{
    sipd_real E = contact_plane_energy(z, n, h, dhat, k);
    if (lam_n > 0)
        E += friction_energy(z, z0, n, lam_n, mu, eps);
    return E;
}

/* Gradient and block with respect to z, added to *gz, *Dz (a pair's vertex l then gets β_l gz
 * and a multiple of Dz); returns 1 when the contact is active (n·z − h < d̂). */
SIPD_HD int contact_point_eval(vec3 z, vec3 z0, vec3 n, sipd_real h, sipd_real dhat, sipd_real k, sipd_real lam_n,
                               sipd_real mu, sipd_real eps, vec3 *gz, sym3 *Dz)
{
    int on = contact_plane_eval(z, n, h, dhat, k, gz, Dz);
    if (lam_n > 0)
        friction_eval(z, z0, n, lam_n, mu, eps, gz, Dz);
    return on;
}

/* Penetration of a contact point: max(0, −(n·z − h)). */
SIPD_HD sipd_real contact_point_penetration(vec3 z, vec3 n, sipd_real h)
{
    sipd_real d = contact_plane_gap(z, n, h);
    return d < 0 ? -d : SIPD_R(0);
}

/* Weight of D_z in vertex l's block for a Jacobi sweep: |β_l| Σ_k |β_k|, so that
 * D_l = |β_l| Σ|β| D_z.  The exact diagonal block β_l² D_z is not enough when all vertices of a
 * pair move at once: a face corner with a small weight β_l would take a step ∝ 1/|β_l| (the
 * gradient scales with β_l, the block with β_l²), and the four steps add up along n.  By
 * Cauchy–Schwarz (Σ β_k x_k)² ≤ (Σ|β_k|)(Σ |β_k| x_k²), so the block-diagonal matrix of these
 * blocks majorises the pair's Hessian Bᵀ D_z B and a simultaneous update of the pair's vertices
 * cannot overshoot its contact (Σ|β| = 2 for VF and EE pairs, 1 for the ground). */
SIPD_HD sipd_real contact_pair_jacobi_weight(const sipd_real *beta, int nb, int l)
{
    sipd_real s = 0;
    int k;
    for (k = 0; k < nb; k++) s += sipd_fabs(beta[k]);
    return sipd_fabs(beta[l]) * s;
}

#endif
