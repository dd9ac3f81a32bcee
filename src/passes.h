/* passes.h — the per-item passes of an iteration, written once for both backends
 * (docs/design.md §2.1).
 *
 * Each pass is one SIPD_HD function of (a view of raw arrays, an item index): the element
 * evaluation, the vertex gather + 3x3 solve of a Jacobi direction, the Gauss–Seidel local step
 * with its line search, the local and line-search energies, and the ground / pair contact
 * terms.  src/backend_cpu.c runs them in OpenMP loops over double arrays; kernels/backend_cuda.cu
 * runs them as grid-stride kernels over float32 device arrays (sipd_real follows
 * SIPD_REAL_FLOAT).  Only allocation, transfers, launches and reductions are backend code: a
 * pass returns its contributions to the reductions in a small struct and the backend sums them.
 *
 * Elements are data: the view holds one group per element kind (src/kinds/kind.h) and the
 * incidences of vertex a are (group, element, corner) triples in inc_group / inc_elem /
 * inc_corner [inc_off[a] .. inc_off[a+1]).  The preconditioner and split are explicit
 * arguments so a kernel instantiated per (P, S) folds them as constants.
 *
 * Contact pairs are the virtual fourth kind: pair p combines the vertices pr_v[4p..4p+4) with
 * weights pr_beta[4p..] (physics/contact.h); their incidences on free vertices are
 * pv_off / pv_pair / pv_slot (src/pairs.h builds them).
 */
#ifndef SIPD_PASSES_H
#define SIPD_PASSES_H

#include "backend.h"
#include "kinds/kinds.h"
#include "physics/ccd.h"
#include "physics/contact.h"
#include "physics/hessian.h"
#include "physics/inertia.h"
#include "physics/kinematic.h"

#define SIPD_GS_MAX_HALVINGS 12   /* the local line search of a Gauss–Seidel vertex step */

/* The ground plane's offset for vertex a: ph, raised by a thin body's contact half-thickness. */
SIPD_HD sipd_real pass_ground_h(const sipd_view *v, int a) { return v->vrad ? v->ph + v->vrad[a] : v->ph; }

/* The ground's stiffness at vertex a: its body's (model.h contact_kv) or the scene's kc. */
SIPD_HD sipd_real pass_ground_k(const sipd_view *v, int a) { return v->kv && v->kv[a] > 0 ? v->kv[a] : v->kc; }

/* ---- begin_step, end_step ---------------------------------------------------------------- */

/* Vertex a at the start of a step ending at t_end: ỹ (Dirichlet: the prescribed position),
 * y = y_prev = the initial guess (ỹ, or the adaptive guess with v->vp), dy = 0, and the ground
 * friction's lagged normal force from x. */
SIPD_HD void pass_begin_vertex(const sipd_view *v, int a, sipd_real t_end, sipd_real h, const sipd_real grav[3])
{
    vec3 ya, y0;
    if (v->fixed[a]) {
        ya = view_ld(v->X0, a);
        if (v->fixed[a] == 2) {
            const sipd_real *mv = v->motions + 9 * v->move_of[a];
            ya = kinematic_position(ya, v3_load(mv), v3_load(mv + 3), v3_load(mv + 6), t_end);
        }
        y0 = ya;
    } else {
        int k;
        for (k = 0; k < 3; k++) {
            size_t i = 3 * (size_t)a + k;
            ya.v[k] = v->quasistatic ? v->x[i] : v->x[i] + h * v->v[i] + h * h * grav[k];
        }
        y0 = ya;
        if (v->vp && v->vp_hist && !v->quasistatic) {
            /* the adaptive guess (docs/convergence.md#the-initial-guess): x + h v + h² φ g with φ the
               share of gravity the vertex's last step accelerated by, clamped to [0, 1] — a body at
               rest starts where it is, a falling one from the free-fall target ỹ */
            sipd_real g2 = grav[0] * grav[0] + grav[1] * grav[1] + grav[2] * grav[2], ag = 0, phi;
            for (k = 0; k < 3; k++) ag += (v->v[3 * (size_t)a + k] - v->vp[3 * (size_t)a + k]) * grav[k];
            phi = g2 > 0 ? ag / (h * g2) : SIPD_R(1);
            phi = phi < 0 ? SIPD_R(0) : phi > 1 ? SIPD_R(1) : phi;
            for (k = 0; k < 3; k++) y0.v[k] -= (1 - phi) * h * h * grav[k];
        }
    }
    view_st(v->yt, a, ya);
    view_st(v->y, a, y0);   /* initial guess: the inertial target, or the adaptive guess */
    view_st(v->yp, a, y0);
    view_st(v->dy, a, v3(0, 0, 0));
    if (v->lam_n)
        v->lam_n[a] = friction_normal_force(view_ld(v->x, a), v3_load(v->pn), pass_ground_h(v, a), v->dhat,
                                            pass_ground_k(v, a));
}

/* Component i of the state: vp = v (v->vp: the adaptive guess' history), v = (y − x)/h (0 when
 * quasi-static), x = y. */
SIPD_HD void pass_end_component(const sipd_view *v, size_t i, sipd_real h)
{
    if (v->vp)
        v->vp[i] = v->v[i];
    v->v[i] = v->quasistatic ? SIPD_R(0) : (v->y[i] - v->x[i]) / h;
    v->x[i] = v->y[i];
}

/* ---- contact terms ------------------------------------------------------------------------- */

/* Ground contact + friction of free vertex a at p: adds to *g, *D; 1 when within d̂. */
/* The ground friction's anchor offset of vertex a (contact.h stick memory; 0 without friction). */
SIPD_HD vec3 pass_ground_anchor(const sipd_view *v, int a) { return v->fa ? view_ld(v->fa, a) : v3(0, 0, 0); }

/* Pair p's friction anchor offset (0 without friction). */
SIPD_HD vec3 pass_pair_anchor(const sipd_view *v, int p) { return v->pr_o ? view_ld(v->pr_o, p) : v3(0, 0, 0); }

SIPD_HD int pass_ground(const sipd_view *v, int a, vec3 p, vec3 *g, sym3 *D, sipd_real *pen)
{
    vec3 n = v3_load(v->pn);
    sipd_real h = pass_ground_h(v, a);
    *pen = contact_point_penetration(p, n, h);
    return contact_point_eval(p, view_ld(v->x, a), pass_ground_anchor(v, a), n, h, v->dhat, pass_ground_k(v, a),
                              v->lam_n ? v->lam_n[a] : SIPD_R(0),
                              v->mu, v->eps, g, D);
}

SIPD_HD sipd_real pass_ground_energy(const sipd_view *v, int a, vec3 p)
{
    return contact_point_energy(p, view_ld(v->x, a), pass_ground_anchor(v, a), v3_load(v->pn), pass_ground_h(v, a),
                                v->dhat, pass_ground_k(v, a), v->lam_n ? v->lam_n[a] : SIPD_R(0), v->mu, v->eps);
}

/* End of step, before pass_end_component moves x: vertex a's ground anchor ← its slip at y
 * clamped to ε (contact.h friction_anchor_next), kept while the vertex had friction in the step
 * (λ_n > 0) and is still within d̂ of the ground at y (its next λ_n > 0), else dropped. */
SIPD_HD void pass_end_anchor(const sipd_view *v, int a)
{
    vec3 y, n;
    sipd_real h;
    int keep;
    if (!v->fa || !v->lam_n)
        return;
    y = view_ld(v->y, a);
    n = v3_load(v->pn);
    h = pass_ground_h(v, a);
    keep = !v->fixed[a] && v->lam_n[a] > 0 && contact_plane_gap(y, n, h) < v->dhat;
    view_st(v->fa, a, friction_anchor_next(y, view_ld(v->x, a), view_ld(v->fa, a), n, v->eps, keep));
}

/* z = Σ β_k y_k and z0 = Σ β_k x_k of pair p at y + α dy (y alone when dy is NULL); vertex
 * `over` (−1: none) taken at q instead. */
SIPD_HD void pass_pair_z(const sipd_view *v, int p, const sipd_real *dy, sipd_real alpha, int over, vec3 q, vec3 *z,
                         vec3 *z0)
{
    vec3 ys[4], xs[4];
    int k;
    for (k = 0; k < 4; k++) {
        int w = v->pr_v[4 * (size_t)p + k];
        ys[k] = w == over ? q : dy ? v3_axpy(alpha, view_ld(dy, w), view_ld(v->y, w)) : view_ld(v->y, w);
        xs[k] = view_ld(v->x, w);
    }
    *z = contact_pair_combine(ys, v->pr_beta + 4 * (size_t)p, 4);
    *z0 = contact_pair_combine(xs, v->pr_beta + 4 * (size_t)p, 4);
}

/* The pairs' gradient and block on free vertex a (a itself at q when over == a).  The block is
 * the exact diagonal block β_a² D_z when `exact` (Gauss–Seidel moves one vertex at a time), else
 * the Jacobi majoriser |β_a| Σ|β| D_z (contact.h). */
SIPD_HD void pass_pair_vertex(const sipd_view *v, int a, int over, vec3 q, int exact, vec3 *g, sym3 *D)
{
    int k;
    for (k = v->pv_off[a]; k < v->pv_off[a + 1]; k++) {
        int p = v->pv_pair[k], l = v->pv_slot[k];
        const sipd_real *beta = v->pr_beta + 4 * (size_t)p;
        vec3 z, z0, gz = v3(0, 0, 0);
        sym3 Dz = s3_zero();
        pass_pair_z(v, p, NULL, 0, over, q, &z, &z0);
        contact_point_eval(z, z0, pass_pair_anchor(v, p), view_ld(v->pr_n, p), v->pr_h[p], v->dhat, v->pr_k[p],
                           v->pr_lam[p], v->mu, v->eps, &gz, &Dz);
        *g = v3_axpy(beta[l], gz, *g);
        *D = s3_axpy(exact ? beta[l] * beta[l] : contact_pair_jacobi_weight(beta, 4, l), Dz, *D);
    }
}

/* Pair p's block D_z at y: the PSD Hessian of its contact and friction energy in z = Σ β_k y_k
 * (contact.h contact_point_eval), of which the pair's blocks on its vertices are β_l β_c D_z — the
 * diagonal ones (l = c) in pass_pair_vertex with `exact`, the couplings (l ≠ c) applied from the
 * stored D_z (pairs.h pair_coupling_row / pair_coupling_blocks).  Both backends' `assemble`. */
SIPD_HD sym3 pass_pair_hessian(const sipd_view *v, int p)
{
    vec3 z, z0, gz = v3(0, 0, 0);
    sym3 Dz = s3_zero();
    pass_pair_z(v, p, NULL, 0, -1, v3(0, 0, 0), &z, &z0);
    contact_point_eval(z, z0, pass_pair_anchor(v, p), view_ld(v->pr_n, p), v->pr_h[p], v->dhat, v->pr_k[p],
                       v->pr_lam[p], v->mu, v->eps, &gz, &Dz);
    return Dz;
}

SIPD_HD sipd_real pass_pair_energy(const sipd_view *v, int p, const sipd_real *dy, sipd_real alpha, int over, vec3 q)
{
    vec3 z, z0;
    pass_pair_z(v, p, dy, alpha, over, q, &z, &z0);
    return contact_point_energy(z, z0, pass_pair_anchor(v, p), view_ld(v->pr_n, p), v->pr_h[p], v->dhat, v->pr_k[p],
                                v->pr_lam[p], v->mu, v->eps);
}

/* End of step: pair p's next anchor offset (contact.h friction_anchor_next) — its slip at y
 * clamped to ε while it had friction in the step (λ_n > 0) and is within d̂ at y, else 0.  The
 * backend stores it by the pair's key (pairs.h pair_anchor_commit) for the next step's pairs. */
SIPD_HD vec3 pass_pair_anchor_next(const sipd_view *v, int p)
{
    vec3 z, z0, n = view_ld(v->pr_n, p);
    pass_pair_z(v, p, NULL, 0, -1, v3(0, 0, 0), &z, &z0);
    return friction_anchor_next(z, z0, pass_pair_anchor(v, p), n, v->eps,
                                v->pr_lam[p] > 0 && contact_plane_gap(z, n, v->pr_h[p]) < v->dhat);
}

/* Pair p's gap at y: n·z − (its thickness offset); negative when it penetrates. */
SIPD_HD sipd_real pass_pair_gap(const sipd_view *v, int p)
{
    vec3 z, z0;
    pass_pair_z(v, p, NULL, 0, -1, v3(0, 0, 0), &z, &z0);
    return contact_plane_gap(z, view_ld(v->pr_n, p), v->pr_h[p]);
}

/* Pair p at y: 1 when active (gap < d̂), and its penetration. */
SIPD_HD int pass_pair_stats(const sipd_view *v, int p, sipd_real *pen)
{
    vec3 z, z0, n = view_ld(v->pr_n, p);
    pass_pair_z(v, p, NULL, 0, -1, v3(0, 0, 0), &z, &z0);
    *pen = contact_point_penetration(z, n, v->pr_h[p]);
    return contact_plane_gap(z, n, v->pr_h[p]) < v->dhat;
}

/* The contact and friction force on free vertex a at the current iterate y (output.fields
 * "contact_force"): minus the gradient of the ground and pair terms, friction included (its slip
 * is measured from x, so this is evaluated before end_step); 0 on Dirichlet vertices, whose
 * reactions the solver does not form. */
SIPD_HD vec3 pass_contact_force(const sipd_view *v, int a)
{
    vec3 g = v3(0, 0, 0);
    sym3 D = s3_zero();
    sipd_real pen;
    if (v->fixed[a])
        return g;
    if (v->ground)
        pass_ground(v, a, view_ld(v->y, a), &g, &D, &pen);
    if (v->npr)
        pass_pair_vertex(v, a, -1, v3(0, 0, 0), 0, &g, &D);
    return v3_scale(g, -1);
}

/* ---- elements -------------------------------------------------------------------------------- */

/* Element pass of element e of group gi at y: gradient on every corner into G->grad, and the
 * preconditioner's data — K⁺ (SPLIT), the PSD vertex blocks (BLOCK; DIAG: their diagonals), or
 * the PSD-projected element Hessian (HESSIAN); the kinds without a pairwise K store majorising
 * blocks for the Jacobi-type preconditioners (kinds/common.h). */
SIPD_HD void pass_element(const sipd_view *v, int precond, int split, int gi, int e)
{
    const sipd_group_view *G = &v->grp[gi];
    kinds_element(v, &v->mats[G->mat[e]], precond, split, G, e);
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend (view.h) */
/* pass_element with what the caller fixes (view.h SIPD_FIXED_*; the CUDA backend's per-kind
 * element kernels): the kind switch folds to the group's kind, and a fixed mid-edge kind runs its
 * element pass inline without its corner arrays (kinds/midedge.h kind_midedge_element_streamed:
 * out of line it needs the view in memory, the generic kernel's 704 B stack), rod bending its
 * streamed form likewise.  The CPU backend calls pass_element. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_element_fixed(const sipd_view *v, int fixed, int precond, int split, int gi, int e)
{
    const sipd_group_view *G = &v->grp[gi];
    sipd_material mcopy;
    const sipd_material *mat = pass_material(v, G, e, fixed, &mcopy);
    if (fixed != SIPD_FIXED_NONE && pass_kind(G, fixed) == SIPD_KIND_MIDEDGE && precond != SIPD_PRECOND_HESSIAN)
        kind_midedge_element_streamed(v, precond, G, e);
    else if (fixed != SIPD_FIXED_NONE && pass_kind(G, fixed) == SIPD_KIND_ROD_BEND && precond != SIPD_PRECOND_HESSIAN)
        kind_rod_bend_element_streamed(v, precond, G, e);
    else if (fixed != SIPD_FIXED_NONE && pass_kind(G, fixed) == SIPD_KIND_MIDEDGE)
        kind_midedge_element_inline(v, mat, precond, split, G, e);
    else
        kinds_element_kind(v, mat, pass_kind(G, fixed), precond, split, G, e);
}
#endif

/* Energy of element e of group gi with its corners at y + α dy (dy may be NULL), corner
 * `over` at q. */
SIPD_HD sipd_real pass_element_energy_fixed(const sipd_view *v, int fixed, int gi, int e,
                                            const sipd_real *dy, sipd_real alpha, int over, vec3 q)
{
    const sipd_group_view *G = &v->grp[gi];
    sipd_material mcopy;
    const sipd_material *mat = pass_material(v, G, e, fixed, &mcopy);
#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend: a tet of a fixed model other than stable neo-Hookean */
    if ((fixed & 0x200) && pass_kind(G, fixed) == SIPD_KIND_TET && mat->model != SIPD_MAT_STABLE_NEOHOOKEAN)
        return kind_tet_energy_model(v, mat, G, e, dy, alpha, over, q);
    if (fixed != SIPD_FIXED_NONE && pass_kind(G, fixed) == SIPD_KIND_MIDEDGE)   /* kinds/midedge.h */
        return kind_midedge_energy_fixed(v, G, e, dy, alpha, over, q);
#endif
    return kinds_energy(v, mat, pass_kind(G, fixed), G, e, dy, alpha, over, q);
}

SIPD_HD sipd_real pass_element_energy(const sipd_view *v, int gi, int e, const sipd_real *dy, sipd_real alpha, int over,
                                      vec3 q)
{
    return pass_element_energy_fixed(v, SIPD_FIXED_NONE, gi, e, dy, alpha, over, q);
}

/* Gradient of element e of group gi on its corner l at y, the block that corner contributes to
 * D (SPLIT: w K⁺, BLOCK: the PSD vertex block, DIAG: its diagonal, MASS: 0; w = inc_w of the
 * incidence), the element's energy, and its round-off scale (μ + λ) V. */
SIPD_HD SIPD_ALWAYS_INLINE vec3 pass_element_corner_fixed(const sipd_view *v, int fixed, int precond, int split, int gi,
                                                          int e, int l, sipd_real w, sym3 *D, sipd_real *energy,
                                                          sipd_real *scale)
{
    const sipd_group_view *G = &v->grp[gi];
    sipd_material mcopy;
    const sipd_material *mat = pass_material(v, G, e, fixed, &mcopy);
#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend: a fixed triangle or rod-bending kind's corner (kinds/tri.h,
                                   kinds/rod_bend.h), a tet of a fixed model other than stable
                                   neo-Hookean (kinds/tet.h) */
    if (fixed != SIPD_FIXED_NONE && pass_kind(G, fixed) == SIPD_KIND_TRI)
        return kind_tri_corner_fixed(v, mat, precond, split, G, e, l, w, D, energy, scale);
    if (fixed != SIPD_FIXED_NONE && pass_kind(G, fixed) == SIPD_KIND_ROD_BEND)
        return kind_rod_bend_corner_fixed(v, precond, G, e, l, w, D, energy, scale);
    if (fixed != SIPD_FIXED_NONE && pass_kind(G, fixed) == SIPD_KIND_MIDEDGE)
        return kind_midedge_corner_fixed(v, precond, G, e, l, w, D, energy, scale);
    if ((fixed & 0x200) && pass_kind(G, fixed) == SIPD_KIND_TET && mat->model == SIPD_MAT_NEOHOOKEAN)
        return kind_tet_corner_nh(v, mat, precond, split, G, e, l, w, D, energy, scale);
    if ((fixed & 0x200) && pass_kind(G, fixed) == SIPD_KIND_TET && mat->model != SIPD_MAT_STABLE_NEOHOOKEAN)
        return kind_tet_corner_model(v, mat, precond, split, G, e, l, w, D, energy, scale);
#endif
    return kinds_corner(v, mat, pass_kind(G, fixed), precond, split, G, e, l, w, D, energy, scale);
}

SIPD_HD vec3 pass_element_corner(const sipd_view *v, int precond, int split, int gi, int e, int l, sipd_real w,
                                 sym3 *D, sipd_real *energy, sipd_real *scale)
{
    return pass_element_corner_fixed(v, SIPD_FIXED_NONE, precond, split, gi, e, l, w, D, energy, scale);
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend: a pair of kinds fixed (view.h SIPD_FIXED_KINDS) */
/* Incidence (gi, e, l)'s energy (pass_element_energy_fixed) for the Gauss–Seidel kernels that fix
 * the pair of kinds a model has (cloth: triangles and hinges or mid-edge bending; rods: edges and
 * rod bending): the group's kind is read at run time and chooses between the two kinds, each then
 * a compile-time constant (SIPD_FIXED_KIND, or with the model SIPD_FIXED_KIND_MODEL), so the other
 * kinds' cases are not compiled in.  The host sends only models whose non-empty groups are of
 * these two kinds (backend_cuda.cu gs_fixed); the arithmetic is the one-kind kernels'.  Their
 * direction is pass_gs_direction_kinds below. */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real pass_incidence_energy(const sipd_view *v, int fixed, int gi, int e,
                                                           const sipd_real *dy, sipd_real alpha, int over, vec3 q)
{
    if (SIPD_FIXED_IS_KINDS(fixed)) {
        if (v->grp[gi].kind == SIPD_FIXED_KIND_1(fixed))
            return pass_element_energy_fixed(v, SIPD_FIXED_ONE(fixed, SIPD_FIXED_KIND_1(fixed)), gi, e, dy, alpha, over,
                                             q);
        return pass_element_energy_fixed(v, SIPD_FIXED_ONE(fixed, SIPD_FIXED_KIND_2(fixed)), gi, e, dy, alpha, over, q);
    }
    return pass_element_energy_fixed(v, fixed, gi, e, dy, alpha, over, q);
}
#else   /* the CPU backends: the same calls, their code unchanged */
#define pass_incidence_energy pass_element_energy_fixed
#endif

/* ---- contact.ccd: the step filter (physics/ccd.h) ------------------------------------------- */

/* The scale τ ∈ [0, 1] of free vertex a's step d from ya that keeps it above the ground's floor
 * (the plane, raised by what the vertex's contact half-thickness keeps clear, ccd_clear) and, with `local` (a step of
 * one vertex: Gauss–Seidel), in its ball and its box; 1 when contact.ccd is off.  *hit = 1 when
 * the ball or the box bound it (a narrow phase is then due: the bounds are re-centred there). */
SIPD_HD sipd_real pass_ccd_scale(const sipd_view *v, int a, vec3 ya, vec3 d, int local, int *hit)
{
    sipd_real t = 1, tb;
    if (!v->ccd)
        return t;
    if (v->ground)
        t = ccd_plane_scale(ya, d, v3_load(v->pn), v->vrad ? v->ph + ccd_clear(v->vrad[a], v->dhat) : v->ph);
    if (local && v->ccd_b) {
        tb = ccd_box_scale(ya, d, view_ld(v->ccd_lo, a), view_ld(v->ccd_hi, a));
        if (v->ccd_b[a] >= 0) {
            sipd_real tc = ccd_ball_scale(ya, d, view_ld(v->ccd_c, a), v->ccd_b[a]);
            tb = tc < tb ? tc : tb;
        }
        if (tb < t) {
            t = tb;
            *hit = 1;
        }
    }
    return t;
}

/* ---- the Jacobi direction: vertex gather + 3x3 solve ------------------------------------- */

/* What vertex a contributes to the direction's reductions (backend.h sipd_dir_stats). */
typedef struct {
    sipd_real gn2, dn2, gdy, gs, sDs, dnum, dden, pen;
    double gs_prev;   /* g_old·(y − y_prev), g_old the gradient this pass overwrites (view gs_prev), in
                         double term by term as pass_apply_vertex sums it */
    vec3 g;
    int free, nonspd, contact;
} sipd_vertex_out;

/* Incidence k of SIPD's gather: the element's gradient on the corner into *g, its split block
 * (one K⁺ per element, weights inc_w, or one block per corner, weights 1) into *D. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_gather_split(const sipd_view *v, int k, vec3 *g, sym3 *D)
{
    const sipd_group_view *G = &v->grp[v->inc_group[k]];
    int e = v->inc_elem[k], l = v->inc_corner[k];
    sym3 Kp;
    *g = v3_add(*g, v3_load(G->grad + (size_t)3 * G->nc * e + 3 * l));
    s3_load(G->blk + view_split_block(G, e, l), &Kp);
    *D = s3_axpy(v->inc_w[k], Kp, *D);
}

/* The ground and pair terms of free vertex a's direction into g, D and o's contact count and
 * penetration. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_vertex_contact(const sipd_view *v, int a, sipd_vertex_out *o, vec3 *ga, sym3 *D)
{
    if (v->ground)
        o->contact += pass_ground(v, a, view_ld(v->y, a), ga, D, &o->pen);
    if (v->npr)
        pass_pair_vertex(v, a, -1, v3(0, 0, 0), 0, ga, D);
}

/* The part of vertex a's direction before the element terms: o cleared, and for a free vertex
 * g = inertia + contact, D = m/h² I + contact (returns 0 for a fixed vertex: its dy and g are
 * set to 0 and o says not free).  contact = 0 leaves the ground and pair terms out whatever
 * the view says (a kernel instantiated without contact then carries none of their code). */
SIPD_HD SIPD_ALWAYS_INLINE int pass_vertex_begin(const sipd_view *v, int contact, int a, sipd_vertex_out *o, vec3 *ga,
                                                sym3 *D)
{
    const sipd_real m = v->mass[a];
    o->gn2 = o->dn2 = o->gdy = o->gs = o->sDs = o->dnum = o->dden = o->pen = 0;
    o->gs_prev = 0;
    o->g = v3(0, 0, 0);
    o->free = o->nonspd = o->contact = 0;
    if (v->fixed[a]) {
        view_st(v->dy, a, v3(0, 0, 0));
        view_st(v->g, a, v3(0, 0, 0));
        return 0;
    }
    o->free = 1;
    *ga = inertia_gradient(m, v->inv_h2, v3_load(v->gq), view_ld(v->y, a), view_ld(v->yt, a));
    *D = s3_diag(m * v->inv_h2);
    if (contact)
        pass_vertex_contact(v, a, o, ga, D);
    return 1;
}

/* The rest of vertex a's direction once g and D hold every term, up to the solve: g stored,
 * and (not HESSIAN) the Rayleigh sums.  Returns 0 when that is all (HESSIAN). */
SIPD_HD SIPD_ALWAYS_INLINE int pass_vertex_end_sums(const sipd_view *v, int precond, int a, int first, vec3 ga,
                                                    sym3 D, sipd_vertex_out *o)
{
    const vec3 ya = view_ld(v->y, a);
    vec3 s;
    int k;
    o->gn2 = v3_norm2(ga);
    o->g = ga;
    if (precond == SIPD_PRECOND_HESSIAN) {
        view_st(v->g, a, ga);
        return 0;
    }
    s = v3_sub(ya, view_ld(v->yp, a));
    if (v->gs_prev) {   /* the last apply's g·s: s = y − y_prev is that apply's step */
        const vec3 go = view_ld(v->g, a);
        for (k = 0; k < 3; k++) o->gs_prev += (double)go.v[k] * (double)s.v[k];
    }
    view_st(v->g, a, ga);
    o->gs = v3_dot(ga, s);
    o->sDs = v3_dot(s, s3_mulv(D, s));
    if (first) {
        view_st(v->y0, a, ya);
        view_st(v->g0, a, ga);
    } else {
        vec3 dd = v3_sub(ya, view_ld(v->y0, a));
        o->dnum = v3_dot(v3_sub(ga, view_ld(v->g0, a)), dd);
        o->dden = v3_dot(dd, s3_mulv(D, dd));
    }
    return 1;
}

/* ... and after it: d = −D⁻¹g (s3_solve's x for b = −g; solved its return), dy = d and the
 * statistics. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_vertex_end_step(const sipd_view *v, int a, vec3 ga, sym3 D, vec3 d, int solved,
                                                     sipd_vertex_out *o)
{
    if (!solved)
        o->nonspd = 1;
    else if (D.s[0] <= 0 || D.s[1] <= 0 || D.s[2] <= 0)
        o->nonspd = 1;
    view_st(v->dy, a, d);
    o->gdy = v3_dot(ga, d);
    o->dn2 = v3_norm2(d);
}

/* The rest of vertex a's direction once g and D hold every term: g stored, and (not HESSIAN)
 * the Rayleigh sums, dy = −D⁻¹g and the statistics. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_vertex_end(const sipd_view *v, int precond, int a, int first, vec3 ga, sym3 D,
                                               sipd_vertex_out *o)
{
    vec3 d;
    int solved;
    if (!pass_vertex_end_sums(v, precond, a, first, ga, D, o))
        return;
    solved = s3_solve(D, v3_scale(ga, -1), &d);
    pass_vertex_end_step(v, a, ga, D, d, solved, o);
}

/* Vertex a: g = inertia + contact + Σ element gradients over its incidences, D likewise,
 * dy = −D⁻¹g (HESSIAN, NONE: only g; the caller sets dy).  `first`: the step's first
 * direction (y0, g0 are stored; afterwards the Rayleigh sums against them). */
SIPD_HD sipd_vertex_out pass_vertex(const sipd_view *v, int precond, int contact, int a, int first)
{
    sipd_vertex_out o;
    vec3 ga;
    sym3 D;
    int k;
    if (!pass_vertex_begin(v, contact, a, &o, &ga, &D))
        return o;
    /* gather; one loop per kind of D so the hot SIPD loop carries no branch.  With contact the
     * device keeps the SIPD loop rolled: unrolled, the contact kernel (k_vertex<SPLIT, 1>) needs
     * 80 registers, rolled 63 (ptxas sm_90, results/registers-29.md); same arithmetic. */
    if (precond == SIPD_PRECOND_SPLIT && contact) {
        SIPD_DEVICE_NO_UNROLL
        for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) pass_gather_split(v, k, &ga, &D);
    } else if (precond == SIPD_PRECOND_SPLIT) {
        for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) pass_gather_split(v, k, &ga, &D);
    } else if (precond == SIPD_PRECOND_BLOCK || precond == SIPD_PRECOND_DIAG) {
        for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) {
            const sipd_group_view *G = &v->grp[v->inc_group[k]];
            int e = v->inc_elem[k], l = v->inc_corner[k];
            sym3 B;
            ga = v3_add(ga, v3_load(G->grad + (size_t)3 * G->nc * e + 3 * l));
            s3_load(G->blk + (size_t)6 * G->nc * e + 6 * l, &B);
            D = s3_add(D, B);
        }
    } else {
        for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) {
            const sipd_group_view *G = &v->grp[v->inc_group[k]];
            ga = v3_add(ga, v3_load(G->grad + (size_t)3 * G->nc * v->inc_elem[k] + 3 * v->inc_corner[k]));
        }
    }
    pass_vertex_end(v, precond, a, first, ga, D, &o);
    return o;
}

/* pass_vertex (SPLIT, or MASS: the step load's gradient pass) with the element terms summed
 * beforehand into acc (9 doubles per vertex: g, then D's 6, which MASS leaves zero;
 * kind_tet_scatter), which it reads and clears: the CPU's fused Jacobi pass. */
SIPD_HD sipd_vertex_out pass_vertex_acc(const sipd_view *v, int precond, int contact, int a, int first, double *acc)
{
    sipd_vertex_out o;
    vec3 ga;
    sym3 D;
    double *q = acc + 9 * (size_t)a;
    const int nq = precond == SIPD_PRECOND_SPLIT ? 9 : 3;
    int k;
    if (pass_vertex_begin(v, contact, a, &o, &ga, &D)) {
        for (k = 0; k < 3; k++) ga.v[k] = (sipd_real)(ga.v[k] + q[k]);
        for (k = 3; k < nq; k++) D.s[k - 3] = (sipd_real)(D.s[k - 3] + q[k]);
        pass_vertex_end(v, precond, a, first, ga, D, &o);
    }
    for (k = 0; k < nq; k++) q[k] = 0;
    return o;
}

/* pass_vertex (SPLIT, or MASS) with each element term evaluated here for vertex a's corner
 * alone (pass_element_corner_fixed, as the Gauss–Seidel direction does), instead of read back
 * from the element pass's per-element arrays: the CUDA backend's fused Jacobi direction
 * (k_vertex_fused, docs/gpu.md "The fused Jacobi direction").  Nothing per element is written;
 * every element is evaluated once per corner.  K⁺'s weight is the kind's corner weight from the
 * rest data (kinds_weight: model.c's inc_w, here in the view's precision, as the CPU's fused pass
 * computes it), so the incidence weights are not read.  The element sums run in incidence order,
 * as the gather's, but the contact terms come after them (the gather adds them first): fewer
 * values live across the loop on the device.  The corner's gradient differs from the element
 * pass's in the last bits (corner 0: V P ∇N_0 against −Σ of the other three). */
SIPD_HD SIPD_ALWAYS_INLINE sipd_vertex_out pass_vertex_fused_fixed(const sipd_view *v, int fixed, int precond, int split,
                                                                 int contact, int a, int first)
{
    sipd_vertex_out o;
    vec3 ga;
    sym3 D;
    int k;
    if (!pass_vertex_begin(v, 0, a, &o, &ga, &D))
        return o;
    for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) {
        const int gi = v->inc_group[k], e = v->inc_elem[k], l = v->inc_corner[k];
        const sipd_group_view *G = &v->grp[gi];
        const int kind = pass_kind(G, fixed);
        const sipd_real w = precond == SIPD_PRECOND_SPLIT
                                ? kinds_weight(kind, G->rest + (size_t)kind_rest_size(kind) * e, G->vol[e], l)
                                : 0;
        sipd_real Ee, sc;
        ga = v3_add(ga, pass_element_corner_fixed(v, fixed, precond, split, gi, e, l, w, &D, &Ee, &sc));
    }
    if (contact)   /* after the elements: fewer registers live across their loop */
        pass_vertex_contact(v, a, &o, &ga, &D);
    pass_vertex_end(v, precond, a, first, ga, D, &o);
    return o;
}

/* ---- energies --------------------------------------------------------------------------------- */

/* Adds the inertia (and ground) terms of vertex a at y + α dy to *acc, one term at a time (the
 * order of the additions is part of the result). */
SIPD_HD void pass_vertex_energy(const sipd_view *v, int a, sipd_real alpha, double *acc)
{
    vec3 p = v3_axpy(alpha, view_ld(v->dy, a), view_ld(v->y, a));
    *acc += (double)inertia_energy(v->mass[a], v->inv_h2, v3_load(v->gq), p, view_ld(v->yt, a));
    if (v->ground && !v->fixed[a])
        *acc += (double)pass_ground_energy(v, a, p);
}

/* Energy of the terms that involve vertex a, with a placed at p (the rest at y); contact as
 * in pass_vertex. */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real pass_local_energy_fixed(const sipd_view *v, int fixed, int contact, int a,
                                                             vec3 p)
{
    sipd_real E = inertia_energy(v->mass[a], v->inv_h2, v3_load(v->gq), p, view_ld(v->yt, a));
    int k;
    if (contact && v->ground)
        E += pass_ground_energy(v, a, p);
    for (k = contact && v->npr ? v->pv_off[a] : 0; k < (contact && v->npr ? v->pv_off[a + 1] : 0); k++)
        E += pass_pair_energy(v, v->pv_pair[k], NULL, 0, a, p);
    for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++)
        E += pass_incidence_energy(v, fixed, v->inc_group[k], v->inc_elem[k], NULL, 0, v->inc_corner[k], p);
    return E;
}

SIPD_HD sipd_real pass_local_energy(const sipd_view *v, int contact, int a, vec3 p)
{
    return pass_local_energy_fixed(v, SIPD_FIXED_NONE, contact, a, p);
}

/* ---- Gauss–Seidel local step --------------------------------------------------------------- */

/* Per-sweep tallies of the vertex updates (maxima of squares, counts). */
typedef struct {
    double rmax2, gmax2, maxpen;
    int backtracks, rejected, contacts;
    int ccd_hits;   /* contact.ccd: local steps the ball or box bound (pass_ccd_scale) */
} sipd_gs_tally;

/* What the local step of a vertex carries from its direction to its line search: Δ, the local
 * energy at y_a (E0), g·Δ and the round-off scale sqrt(Σ ((μ+λ)V)²) of the incident elements. */
typedef struct {
    vec3 d;
    sipd_real E0, gd, scale;
} sipd_gs_dir;

/* The end of a Gauss–Seidel direction once g and D hold every term: Δ = −D⁻¹g, the tallies
 * rmax2 and gmax2, and what the line search needs (E0, g·Δ, the scale from Σ ((μ+λ)V)²). */
SIPD_HD SIPD_ALWAYS_INLINE sipd_gs_dir pass_gs_dir_finish(vec3 ga, sym3 D, sipd_real E0, sipd_real noise,
                                                          sipd_gs_tally *t)
{
    sipd_gs_dir r;
    sipd_real n2;
    s3_solve(D, v3_scale(ga, -1), &r.d);
    n2 = v3_norm2(r.d);
    t->rmax2 = pass_max(t->rmax2, (double)n2);
    n2 = v3_norm2(ga);
    t->gmax2 = pass_max(t->gmax2, (double)n2);
    r.E0 = E0;
    r.gd = v3_dot(ga, r.d);
    r.scale = sipd_sqrt(noise);
    return r;
}

/* The start of a Gauss–Seidel direction at free vertex a: inertia's gradient, energy and block
 * m/h² I. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_gs_dir_inertia(const sipd_view *v, int a, vec3 *ga, sym3 *D, sipd_real *E0)
{
    const vec3 gq = v3_load(v->gq), ya = view_ld(v->y, a);
    const sipd_real m = v->mass[a];
    *ga = inertia_gradient(m, v->inv_h2, gq, ya, view_ld(v->yt, a));
    *E0 = inertia_energy(m, v->inv_h2, gq, ya, view_ld(v->yt, a));
    *D = s3_diag(m * v->inv_h2);
}

/* The direction half of the local step of free vertex a: gradient and D of the terms that
 * involve a, Δ = −D⁻¹g; tallies rmax2, gmax2 (and the ground contacts).  Pairs use the exact
 * block β_a² D_z (one vertex moves at a time). */
SIPD_HD SIPD_ALWAYS_INLINE sipd_gs_dir pass_gs_direction_fixed(const sipd_view *v, int fixed, int precond, int split,
                                                               int contact, int a, sipd_gs_tally *t)
{
    const vec3 ya = view_ld(v->y, a);
    vec3 ga;
    sym3 D;
    sipd_real E0, noise = 0;   /* Σ ((μ+λ)V)² of the incident elements */
    int k;
    pass_gs_dir_inertia(v, a, &ga, &D, &E0);
    if (contact && v->ground) {
        sipd_real pen;
        t->contacts += pass_ground(v, a, ya, &ga, &D, &pen);
        t->maxpen = pass_max(t->maxpen, (double)pen);
        E0 += pass_ground_energy(v, a, ya);
    }
    if (contact && v->npr) {
        pass_pair_vertex(v, a, -1, ya, 1, &ga, &D);
        for (k = v->pv_off[a]; k < v->pv_off[a + 1]; k++) E0 += pass_pair_energy(v, v->pv_pair[k], NULL, 0, -1, ya);
    }
    for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) {
        sipd_real Ee, sc;
        ga = v3_add(ga, pass_element_corner_fixed(v, fixed, precond, split, v->inc_group[k], v->inc_elem[k],
                                                  v->inc_corner[k], v->inc_w[k], &D, &Ee, &sc));
        E0 += Ee;
        noise += sc * sc;
    }
    return pass_gs_dir_finish(ga, D, E0, noise, t);
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend: a pair of kinds fixed (view.h SIPD_FIXED_KINDS) */
/* pass_gs_direction_fixed without contact (the Gauss–Seidel kernels) for `fixed` a pair of kinds
 * (k_gs_color_kinds): per incidence the group's kind picks the corner of one of the two, its kind
 * a constant; the same sums in the same order.  A function of its own, not a branch on `fixed` in
 * pass_gs_direction_fixed: the dispatch there (folded away for the other kernels) still took the
 * generic k_gs_color from 102-106 to 113-115 registers (ptxas sm_90). */
SIPD_HD SIPD_ALWAYS_INLINE sipd_gs_dir pass_gs_direction_kinds(const sipd_view *v, int fixed, int precond, int split,
                                                               int a, sipd_gs_tally *t)
{
    const int f1 = SIPD_FIXED_ONE(fixed, SIPD_FIXED_KIND_1(fixed)), f2 = SIPD_FIXED_ONE(fixed, SIPD_FIXED_KIND_2(fixed));
    vec3 ga;
    sym3 D;
    sipd_real E0, noise = 0;   /* Σ ((μ+λ)V)² of the incident elements */
    int k;
    pass_gs_dir_inertia(v, a, &ga, &D, &E0);
    for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) {
        const int gi = v->inc_group[k];
        sipd_real Ee, sc;
        if (v->grp[gi].kind == SIPD_FIXED_KIND_1(fixed))
            ga = v3_add(ga, pass_element_corner_fixed(v, f1, precond, split, gi, v->inc_elem[k], v->inc_corner[k],
                                                      v->inc_w[k], &D, &Ee, &sc));
        else
            ga = v3_add(ga, pass_element_corner_fixed(v, f2, precond, split, gi, v->inc_elem[k], v->inc_corner[k],
                                                      v->inc_w[k], &D, &Ee, &sc));
        E0 += Ee;
        noise += sc * sc;
    }
    return pass_gs_dir_finish(ga, D, E0, noise, t);
}
#endif

/* contact.ccd: the local step ω Δ of vertex a scaled to stay above the ground and in its ball and
 * box (pass_ccd_scale); a bound ball or box counts in t->ccd_hits. */
SIPD_HD void pass_gs_ccd(const sipd_view *v, int a, sipd_real omega, sipd_gs_dir *s, sipd_gs_tally *t)
{
    sipd_real tau = pass_ccd_scale(v, a, view_ld(v->y, a), v3_scale(s->d, omega), 1, &t->ccd_hits);
    if (tau < 1) {
        s->d = v3_scale(s->d, tau);
        s->gd *= tau;
    }
}

/* The line-search half: a local backtracking line search along s->d from α = ω when ls (else
 * α = ω); y_a updated in place unless every halving was rejected.  No other vertex of a's
 * colour shares a term with a, so it may run after the directions of the whole colour. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_gs_search_fixed(const sipd_view *v, int fixed, int contact, int a, int ls,
                                                     sipd_real omega, const sipd_gs_dir *s, sipd_gs_tally *t)
{
    const vec3 ya = view_ld(v->y, a);
    sipd_real alpha = omega;
    if (ls) {
        int h;
        for (h = 0; h < SIPD_GS_MAX_HALVINGS; h++) {
            sipd_real E1 = pass_local_energy_fixed(v, fixed, contact, a, v3_axpy(alpha, s->d, ya));
            if (local_ls_accept(E1, s->E0, alpha, s->gd, s->scale))   /* physics/common.h */
                break;
            alpha *= SIPD_R(0.5);
            t->backtracks++;
        }
        if (h == SIPD_GS_MAX_HALVINGS) {
            t->rejected++;
            return;
        }
    }
    view_st(v->y, a, v3_axpy(alpha, s->d, ya));
}

/* Local step of free vertex a: the direction, then the line search (the two halves above). */
SIPD_HD SIPD_ALWAYS_INLINE void pass_gs_vertex_fixed(const sipd_view *v, int fixed, int precond, int split, int contact,
                                                     int a, int ls, sipd_real omega, sipd_gs_tally *t)
{
    sipd_gs_dir s = pass_gs_direction_fixed(v, fixed, precond, split, contact, a, t);
    if (contact && v->ccd)   /* contact.ccd: the local step ω Δ filtered */
        pass_gs_ccd(v, a, omega, &s, t);
    pass_gs_search_fixed(v, fixed, contact, a, ls, omega, &s, t);
}

/* pass_gs_vertex_fixed with nothing fixed (the CPU backend, the generic kernels). */
SIPD_HD void pass_gs_vertex(const sipd_view *v, int precond, int split, int contact, int a, int ls, sipd_real omega,
                            sipd_gs_tally *t)
{
    pass_gs_vertex_fixed(v, SIPD_FIXED_NONE, precond, split, contact, a, ls, omega, t);
}

/* pass_gs_vertex of a model whose elements are tets of stable neo-Hookean materials only
 * (SIPD_FIXED_TET_SNH: the CPU backend's Gauss–Seidel and VBD sweeps choose it as the CUDA
 * backend chooses its specialised kernels; the same arithmetic) */
SIPD_HD void pass_gs_vertex_tet_snh(const sipd_view *v, int precond, int split, int contact, int a, int ls,
                                    sipd_real omega, sipd_gs_tally *t)
{
    pass_gs_vertex_fixed(v, SIPD_FIXED_TET_SNH, precond, split, contact, a, ls, omega, t);
}

#ifdef SIPD_FIXED_SPECIALISED   /* the CUDA backend's staged Gauss–Seidel sweep */
/* ---- the staged Gauss–Seidel step: one colour in several kernels ----------------------------
 * The CUDA backend's SIPD sweep of a model that none of its one-kernel classes fits (tets with
 * shells, corotational or mixed-model tets, membranes of the other models, ...; one kernel over
 * every kind and model took 102-106 registers, its line search 97): the corners of the colour's
 * incidences, one kernel per class of incidence (kind and model compile-time constants), each
 * corner into the incidence's slot (SIPD_GS_SLOT numbers: g, w K⁺, energy, scale); then per vertex
 * the sums in incidence order and the 3x3 solve (pass_gs_staged_direction); the line search one
 * trial at a time, the incidences' energies into the slots, then the sum and the test
 * (pass_gs_staged_energy).  The sums are pass_gs_direction_fixed's and pass_local_energy_fixed's in
 * the same order, each corner's w K⁺ rounded before it is added (s3_axpy's product is too): the
 * same results, up to the FMAs a GPU compiler contracts differently. */
#define SIPD_GS_SLOT 11

/* A corner's gradient g, its block D (w K⁺ of SPLIT), energy E and scale sc into its slot o. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_gs_slot_store(sipd_real *o, vec3 g, sym3 D, sipd_real E, sipd_real sc)
{
    int i;
    for (i = 0; i < 3; i++) o[i] = g.v[i];
    for (i = 0; i < 6; i++) o[3 + i] = D.s[i];
    o[9] = E;
    o[10] = sc;
}

/* Incidence k's corner (pass_element_corner_fixed, SIPD's split) alone, into its slot o: its block
 * added to a zero D is w K⁺ rounded, which the direction then adds as s3_axpy would have. */
SIPD_HD SIPD_ALWAYS_INLINE void pass_gs_slot_corner(const sipd_view *v, int fixed, int split, int k, sipd_real *o)
{
    sym3 D = s3_diag(0);
    sipd_real E, sc;
    vec3 g = pass_element_corner_fixed(v, fixed, SIPD_PRECOND_SPLIT, split, v->inc_group[k], v->inc_elem[k],
                                       v->inc_corner[k], v->inc_w[k], &D, &E, &sc);
    pass_gs_slot_store(o, g, D, E, sc);
}

/* The direction of free vertex a from its incidences' slots (pass_gs_direction_fixed without
 * contact, the same sums). */
SIPD_HD SIPD_ALWAYS_INLINE sipd_gs_dir pass_gs_staged_direction(const sipd_view *v, int a, const sipd_real *slots,
                                                                sipd_gs_tally *t)
{
    vec3 ga;
    sym3 D;
    sipd_real E0, noise = 0;
    int k, i;
    pass_gs_dir_inertia(v, a, &ga, &D, &E0);
    for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) {
        const sipd_real *o = slots + SIPD_GS_SLOT * (size_t)k;
        ga = v3_add(ga, v3(o[0], o[1], o[2]));
        for (i = 0; i < 6; i++) D.s[i] = D.s[i] + o[3 + i];
        E0 += o[9];
        noise += o[10] * o[10];
    }
    return pass_gs_dir_finish(ga, D, E0, noise, t);
}

/* The local energy of free vertex a placed at p from its incidences' energies in their slots
 * (pass_local_energy_fixed without contact, the same sum). */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real pass_gs_staged_energy(const sipd_view *v, int a, vec3 p, const sipd_real *slots)
{
    sipd_real E = inertia_energy(v->mass[a], v->inv_h2, v3_load(v->gq), p, view_ld(v->yt, a));
    int k;
    for (k = v->inc_off[a]; k < v->inc_off[a + 1]; k++) E += slots[SIPD_GS_SLOT * (size_t)k + 9];
    return E;
}
#endif

/* ---- Newton / two-level SIPD: one block row of the PSD-projected Hessian ------------------- */

/* The block-CSR pattern a row pass writes into (src/sparse.h sipd_bsr: row_off, diag, the
 * element map elem_blk with k corners per element) and where group gi's elements start in it
 * (goff[gi]: model_pattern_elements orders the groups one after another). */
typedef struct {
    const int *row_off, *diag, *elem_blk;
    int k;
    int goff[SIPD_KIND_COUNT + 1];
} sipd_bsr_view;

/* Row a of H at y into val (every block of the row set): m/h² I + the ground's contact and
 * friction block + the pairs' exact diagonal blocks β_a² D_z + (elements) the element blocks
 * of G->hess over a's incidences, Dirichlet columns left out; a Dirichlet row is the identity.
 * elements = 0 (mixed FEM: the element blocks are the caller's) also returns the gradient of
 * the non-elastic terms at y (inertia, ground, pairs); elements = 1 returns 0 (g is the
 * direction pass's).  Only row a is written: rows are gathered concurrently, without atomics.
 * The order of the additions is part of the result (the CPU backend's outputs are compared bit
 * for bit). */
SIPD_HD vec3 pass_hessian_row(const sipd_view *v, const sipd_bsr_view *H, sipd_real *val, int elements, int a)
{
    sipd_real *D = val + 9 * (size_t)H->diag[a];
    vec3 gb = v3(0, 0, 0);
    int i, r;
    for (i = 9 * H->row_off[a]; i < 9 * H->row_off[a + 1]; i++) val[i] = 0;
    if (v->fixed[a]) {
        D[0] = D[4] = D[8] = 1;
        return gb;
    }
    if (!elements)
        gb = inertia_gradient(v->mass[a], v->inv_h2, v3_load(v->gq), view_ld(v->y, a), view_ld(v->yt, a));
    D[0] += v->mass[a] * v->inv_h2;
    D[4] += v->mass[a] * v->inv_h2;
    D[8] += v->mass[a] * v->inv_h2;
    if (v->ground) {   /* contact and friction blocks (their gradient is in g) */
        vec3 gd = v3(0, 0, 0);
        sym3 Dc = s3_zero();
        sipd_real pen;
        mat3 Cm;
        pass_ground(v, a, view_ld(v->y, a), &gd, &Dc, &pen);
        Cm = s3_to_m3(Dc);
        for (r = 0; r < 9; r++) D[r] += Cm.m[r];
        gb = v3_add(gb, gd);
    }
    if (v->npr) {   /* the pairs' diagonal blocks β_a² D_z; the couplings are applied matrix-free */
        vec3 gd = v3(0, 0, 0);
        sym3 Dc = s3_zero();
        mat3 Cm;
        pass_pair_vertex(v, a, -1, v3(0, 0, 0), 1, &gd, &Dc);
        Cm = s3_to_m3(Dc);
        for (r = 0; r < 9; r++) D[r] += Cm.m[r];
        gb = v3_add(gb, gd);
    }
    /* Σ element blocks; elements = 0 (mixed FEM): those of the kinds that are not its stretch
       elements — rod bending and hinges, the kinds without a pairwise K — with their gradient,
       when their Hessians were computed (G->hess) */
    for (i = v->inc_off[a]; i < v->inc_off[a + 1]; i++) {
        const sipd_group_view *G = &v->grp[v->inc_group[i]];
        int e = v->inc_elem[i], l = v->inc_corner[i], c, s, nc = G->nc, n3 = 3 * nc;
        const sipd_real *He;
        const int pe = H->goff[v->inc_group[i]] + e, K = H->k;
        if (!elements) {
            if (!kind_split_per_corner(G->kind) || !G->hess)
                continue;
            gb = v3_add(gb, view_ld(G->grad + (size_t)kind_grad_size(G->kind) * e, l));
        }
        He = G->hess + (size_t)kind_hessian_size(G->kind) * e;
        for (c = 0; c < nc; c++) {
            sipd_real *B;
            if (v->fixed[G->v[(size_t)nc * e + c]])
                continue;
            B = val + 9 * (size_t)H->elem_blk[(size_t)K * K * pe + K * l + c];
            for (r = 0; r < 3; r++)
                for (s = 0; s < 3; s++) B[3 * r + s] += He[n3 * (3 * l + r) + 3 * c + s];
        }
    }
    return gb;
}

/* ---- apply ------------------------------------------------------------------------------------- */

/* y_new = y_prev + ω (y + α dy − y_prev); y_prev ← y; y ← y_new for free vertex a; adds its
 * g·(y_new − y) to *gs component by component. */
SIPD_HD void pass_apply_vertex(const sipd_view *v, int a, sipd_real alpha, sipd_real omega, double *gs)
{
    int k;
    if (v->fixed[a])
        return;
    for (k = 0; k < 3; k++) {
        size_t i = 3 * (size_t)a + k;
        sipd_real y = v->y[i], yn = v->yp[i] + omega * (y + alpha * v->dy[i] - v->yp[i]);
        *gs += (double)v->g[i] * (double)(yn - y);
        v->yp[i] = y;
        v->y[i] = yn;
    }
}

/* Free vertex a's direction dy_a (the Jacobi vertex pass, a direction set by the caller) scaled
 * to stay above the ground (pass_ccd_scale without the ball and box: the whole step is filtered
 * against the pairs afterwards, collide_toi); returns the scale (the caller scales its g·dy by
 * it, |dy|² by its square). */
SIPD_HD sipd_real pass_ccd_direction(const sipd_view *v, int a)
{
    int hit = 0;
    vec3 d;
    sipd_real t;
    if (!v->ccd || v->fixed[a])
        return 1;
    d = view_ld(v->dy, a);
    t = pass_ccd_scale(v, a, view_ld(v->y, a), d, 0, &hit);
    if (t < 1)
        view_st(v->dy, a, v3_scale(d, t));
    return t;
}

#endif
