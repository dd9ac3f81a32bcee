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
 * Stick memory (issue 27): with the slip measured from the step start alone, a contact under a
 * constant tangential load f_t < μ λ_n needs |u| = ε (1 − √(1 − f_t/(μ λ_n))) > 0 in EVERY step
 * to hold it, so it creeps at ε_v (1 − √(…)) for ever.  Each contact point therefore carries an
 * anchor offset o (a vector in its tangent plane, |o| ≤ ε) from step to step and the slip is
 * u = T (y − x0 + o).  A contact at rest keeps o = its last slip: the next step starts with the
 * force that held it, and y = x0 is again the solution — no creep.  A sliding one (|u| ≥ ε) has
 * its anchor dragged at distance ε (friction_anchor_next): the force stays μ λ_n, Coulomb's.
 * o is a constant of the step, so E_f, its gradient and block keep the form above with the
 * shifted slip (convex, PSD, majorising).  The anchor is dropped (o = 0) when the contact had no
 * friction in the step or leaves the band d̂.
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

/* u = T (y − x0 + o) = w − (n·w) n,  w = (y − x0) + o: the slip from the step start plus the
 * contact point's anchor offset o (stick memory, below; 0: today's lagged slip).  The offset is
 * added to the difference, not to x0, so that a float32 evaluation keeps its digits (|o| ≤ ε is
 * tens of µm, x0 of order metres). */
SIPD_HD vec3 friction_slip_off(vec3 y, vec3 x0, vec3 o, vec3 n)
{
    vec3 w = v3_add(v3_sub(y, x0), o);
    return v3_axpy(-v3_dot(n, w), n, w);
}

/* u = T (y − x0) (no anchor) */
SIPD_HD vec3 friction_slip(vec3 y, vec3 x0, vec3 n) { return friction_slip_off(y, x0, v3(0, 0, 0), n); }

/* The anchor carried to the next step (stick memory): the end-of-step slip u = T (y − x0 + o)
 * with its length clamped to ε — a contact that sticks keeps its whole offset (so the next step
 * starts from the same friction force instead of from zero), one that slides drags its anchor
 * along at distance ε behind it.  `keep` = 0 (the contact had no friction this step, λ_n = 0, or
 * is out of the band d̂ at y, so the next step's λ_n is 0): the anchor is dropped (0). */
SIPD_HD vec3 friction_anchor_next(vec3 y, vec3 x0, vec3 o, vec3 n, sipd_real eps, int keep)
{
    vec3 u;
    sipd_real l2;
    if (!keep)
        return v3(0, 0, 0);
    u = friction_slip_off(y, x0, o, n);
    l2 = v3_norm2(u);
    if (l2 > eps * eps)
        u = v3_scale(u, eps / sipd_sqrt(l2));
    return u;
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

/* E_f with the slip u = T (y − x0 + o) (o: the anchor offset; friction_energy: o = 0) */
SIPD_HD sipd_real friction_energy_off(vec3 y, vec3 x0, vec3 o, vec3 n, sipd_real lambda_n, sipd_real mu,
                                      sipd_real eps)
{
    vec3 u = friction_slip_off(y, x0, o, n);
    return mu * lambda_n * friction_f0(sipd_sqrt(v3_norm2(u)), eps);
}

SIPD_HD sipd_real friction_energy(vec3 y, vec3 x0, vec3 n, sipd_real lambda_n, sipd_real mu, sipd_real eps)
{
    return friction_energy_off(y, x0, v3(0, 0, 0), n, lambda_n, mu, eps);
}

/* Adds g = μ λ_n f1(|u|)/|u| u to *g and D = μ λ_n f1(|u|)/|u| T to *D, u = T (y − x0 + o);
 * nothing when μ λ_n == 0. */
SIPD_HD void friction_eval_off(vec3 y, vec3 x0, vec3 o, vec3 n, sipd_real lambda_n, sipd_real mu, sipd_real eps,
                               vec3 *g, sym3 *D)
{
    sipd_real s = mu * lambda_n, c;
    vec3 u;
    if (s == 0)
        return;
    u = friction_slip_off(y, x0, o, n);
    c = s * friction_f1_over_x(sipd_sqrt(v3_norm2(u)), eps);
    *g = v3_axpy(c, u, *g);
    *D = s3_axpy(-c, s3_outer(n), s3_add(*D, s3_diag(c)));
}

SIPD_HD void friction_eval(vec3 y, vec3 x0, vec3 n, sipd_real lambda_n, sipd_real mu, sipd_real eps, vec3 *g, sym3 *D)
{
    friction_eval_off(y, x0, v3(0, 0, 0), n, lambda_n, mu, eps, g, D);
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
 * pair's combination z = Σβy with h = 0 (z0 = the same at the step start, o its anchor offset
 * (friction_anchor_next; 0 for none); lam_n its lagged
 * normal force, 0 for no friction; k the stiffness).  The one composite both backends use for the
 * ground and for pairs. */
SIPD_HD sipd_real contact_point_energy(vec3 z, vec3 z0, vec3 o, vec3 n, sipd_real h, sipd_real dhat, sipd_real k,
                                       sipd_real lam_n, sipd_real mu, sipd_real eps)
{
    sipd_real E = contact_plane_energy(z, n, h, dhat, k);
    if (lam_n > 0)
        E += friction_energy_off(z, z0, o, n, lam_n, mu, eps);
    return E;
}

/* Gradient and block with respect to z, added to *gz, *Dz (a pair's vertex l then gets β_l gz
 * and a multiple of Dz); returns 1 when the contact is active (n·z − h < d̂). */
SIPD_HD int contact_point_eval(vec3 z, vec3 z0, vec3 o, vec3 n, sipd_real h, sipd_real dhat, sipd_real k,
                               sipd_real lam_n, sipd_real mu, sipd_real eps, vec3 *gz, sym3 *Dz)
{
    int on = contact_plane_eval(z, n, h, dhat, k, gz, Dz);
    if (lam_n > 0)
        friction_eval_off(z, z0, o, n, lam_n, mu, eps, gz, Dz);
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
