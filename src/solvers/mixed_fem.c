/* solvers/mixed_fem.c — mixed FEM (solver.method = "mixed-fem"): the driver-level outer
 * iterations over the backend's non-elastic terms and the element system of mixed.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mixed.h"
#include "../physics/mixed.h"
#include "../util.h"
#include "common.h"

/* s, λ and the element system (mixed.h); H, ng (the non-elastic gradient), ndy (Δx) are
 * shared with the coarse level (sim_free frees them), my (y) and s_start are this family's. */
static int mixed_init(sipd_sim *s)
{
    const sipd_scene *sc = s->sc;
    const sipd_model *m = s->m;
    const sipd_backend_ops *ops = s->ops;
    /* mixed FEM: the driver's outer iterations over the backend's non-elastic terms */
    size_t n3 = (size_t)m->nv * 3 * sizeof(double);
    if (!ops->assemble || !ops->terms_energy || !ops->iterate || !ops->set_direction) {
        sipd_error("method %s: the %s backend has no mixed-FEM operations (assemble, terms_energy, iterate)",
                   scene_method_name(sc->method), ops->name);
        return SIPD_EFAIL;
    }
    if (!mixed_kinds_supported(m)) {
        sipd_error_at(sc->path, 0, "solver.method = \"mixed-fem\": a shell or cloth body's membrane has no "
                      "stretch (S) form except stable neo-Hookean's");
        return SIPD_EINPUT;
    }
    {   /* the backend's SIPD_TERMS_NO_STRETCH (backend.h) leaves out exactly this solver's stretch
           elements (physics/mixed.h mixed_kind_stretch), whose energy is the Lagrangian's */
        int g;
        for (g = 0; g < m->ngroups; g++)
            if ((mixed_kind_stretch(m->groups[g].kind) != 0) ==
                sipd_terms_kind(SIPD_TERMS_NO_STRETCH, m->groups[g].kind)) {
                sipd_error("method %s: the backend's terms without the stretch elements do not match the mixed "
                           "FEM's stretch kinds", scene_method_name(sc->method));
                return SIPD_EFAIL;
            }
    }
    s->ng = sipd_malloc(n3);
    s->ndy = sipd_malloc(n3);
    s->my = sipd_malloc(n3);
    if (!s->ng || !s->ndy || !s->my || solver_kinds_pattern(&s->H, m) != SIPD_OK ||
        mixed_create(&s->mx, m, sc->linear, sc->cg_tolerance) != SIPD_OK ||
        !(s->s_start = sipd_malloc(((size_t)mixed_stretch_count(s->mx) + 1) * sizeof(double))))
        return SIPD_EFAIL;
    return SIPD_OK;
}

static void mixed_fem_free(sipd_sim *s)
{
    mixed_free(s->mx);
    free(s->my);
    free(s->s_start);
}

/* The stretches carry across steps (checkpoints keep them). */
static double *mixed_state(sipd_sim *s, long *n)
{
    *n = mixed_stretch_count(s->mx);
    return mixed_stretch(s->mx);
}

/* Mixed FEM (docs/design.md §3.11; mixed.h).  Each outer iteration: the backend's direction pass
 * gives the real energy's gradient at y (the residual, measured as for every method); the
 * backend's non-elastic blocks and gradient plus the element system (mixed.c) give Δx, and
 * Δs, λ in closed form; a backtracking line search (halving) on the Lagrangian
 * L = E_non-elastic(x) + Σ_e w_e [Ψ(s_e) − λ_eᵀ Sym (ŝ_e(x) − s_e)] with the new λ takes x, s
 * along (Δx, Δs).  The displacement residual is max|Δx| / bbox diagonal (as Newton's).  A solve
 * stops converged when the real residual is below the tolerance, stalled when no step decreases
 * L or by the stall rule, else at the iteration cap; contact pairs as in solve_gauss_seidel. */
static int solve_mixed(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last)
{
    const sipd_scene *sc = s->sc;
    const int n = 3 * s->m->nv;
    double L = NAN, tau = 1;
    int it, rc, measured = 0, force_detect = 0, stalled;
    stall_track stall = {INFINITY, 0, method_info(sc->method)->stall_min, 0};
    mixed_begin_step(s->mx);   /* λ = 0; s carries over */
    for (it = 0; it < sc->iterations; it++) {
        sipd_dir_stats st;
        sipd_bsr_extra extra = {NULL, NULL, NULL};
        double r, rd, alpha = 1, dmax = 0, L0, Lt = NAN, Eb;
        int fresh = it == 0, due = 0, k, a, cg = 0;
        if (sipd_stopping())   /* a stop request (util.h): sim_step abandons the step */
            return SIPD_ESIGNAL;
        if (!force_detect && (rc = solver_detect_due(s, it, &due)) != SIPD_OK)
            return rc;
        if (force_detect || due) {
            int changed;
            if ((rc = BK(s, detect, 1, &changed)) != SIPD_OK)
                return rc;
            fresh = 1;
            force_detect = 0;
        }
        memset(&st, 0, sizeof st);
        if ((rc = BK(s, direction, &st)) != SIPD_OK)                       /* real g at y  */
            return rc;
        *last = st;
        measured = 1;
        if (it == 0) {
            if ((rc = solver_set_fref(s, st.gmax)) != SIPD_OK)
                return rc;
            s->r_first = rel_force(s, st.gmax);
        }
        r = rel_force(s, st.gmax);
        res->iterations = it + 1;
        res->residual = r;
        res->contacts = st.contacts;
        if (st.max_pen > res->max_pen)
            res->max_pen = st.max_pen;
        if (!isfinite(r)) {
            snprintf(s->why, sizeof s->why, "non-finite residual at iteration %d", it + 1);
            return SIPD_EDIVERGE;
        }
        if ((rc = BK(s, iterate, s->my)) != SIPD_OK ||                    /* y            */
            (rc = BK(s, assemble, SIPD_TERMS_NO_STRETCH, &s->H, s->ng, &extra)) != SIPD_OK)   /* M/h², contact */
            return rc;
        if ((rc = mixed_direction(s->mx, &s->H, &extra, s->ng, s->my, s->ndy, &cg)) == SIPD_ESIGNAL)
            return rc;
        if (rc != SIPD_OK) {
            snprintf(s->why, sizeof s->why, "the mixed-FEM linear solve failed (%s)",
                     sc->linear == SIPD_LINEAR_CHOLMOD ? "CHOLMOD: not positive definite, or out of memory"
                                                       : "out of memory");
            return rc;
        }
        for (a = 0; a < n; a += 3) {
            double d2 = s->ndy[a] * s->ndy[a] + s->ndy[a + 1] * s->ndy[a + 1] + s->ndy[a + 2] * s->ndy[a + 2];
            dmax = d2 > dmax ? d2 : dmax;
        }
        rd = sqrt(dmax) / s->m->bbox_diag;
        res->residual_disp = rd;
        if (!isfinite(rd)) {
            snprintf(s->why, sizeof s->why, "non-finite mixed-FEM step at iteration %d", it + 1);
            return SIPD_EDIVERGE;
        }
        if (r < sc->tolerance && s->pairs && !fresh) {
            force_detect = 1;
            solver_log_iter(s, r, rd, L, 0, st.gmax);
            continue;
        }
        if (r < sc->tolerance) {                                           /* converged    */
            res->converged = 1;
            solver_log_iter(s, r, rd, L, 0, st.gmax);
            break;
        }
        if ((stalled = solver_stall_check(s, &stall, r, rd, it))) {
            if (solver_redetect(s, &stall, stalled, fresh, it)) {
                force_detect = 1;
                solver_log_iter(s, r, rd, L, 0, st.gmax);
                continue;
            }
            res->stalled = 1;
            res->at_roundoff = stalled == 2;
            solver_log_iter(s, r, rd, L, 0, st.gmax);
            break;
        }
        /* backtracking on L with the new λ */
        if ((rc = BK(s, set_direction, s->ndy)) != SIPD_OK || (rc = BK(s, terms_energy, SIPD_TERMS_NO_STRETCH, 0, &Eb)) != SIPD_OK)
            return rc;
        tau = solver_direction_scale(s);   /* contact.ccd: x moves τ Δx, so the stretches τ Δs */
        L0 = Eb + mixed_lagrangian(s->mx, 0);
        for (k = 0; k < MAX_HALVINGS; k++) {
            if ((rc = BK(s, terms_energy, SIPD_TERMS_NO_STRETCH, alpha, &Eb)) != SIPD_OK)
                return rc;
            Lt = Eb + mixed_lagrangian(s->mx, tau * alpha);
            if (!energy_rose(s, Lt, L0))
                break;
            alpha *= 0.5;
            res->ls_steps++;
        }
        if (k == MAX_HALVINGS) {                                           /* no decrease  */
            if (s->pairs && !fresh) {
                force_detect = 1;
                solver_log_iter(s, r, rd, L, 0, st.gmax);
                continue;
            }
            res->stalled = 1;
            solver_log_iter(s, r, rd, L, 0, st.gmax);
            break;
        }
        if ((rc = BK(s, apply, alpha, 1, NULL)) != SIPD_OK)                /* x, s += αΔ   */
            return rc;
        mixed_accept(s->mx, tau * alpha);
        measured = 0;
        L = Lt;
        solver_log_iter(s, r, rd, L, alpha, st.gmax);
    }
    res->energy = L;
    if (!measured) {
        /* at the cap: the last step's iterate is measured here, and judged by the same rule as
           every other (r < tolerance) — else a solve converged at its last step ends at-cap and
           resets the adaptive guess (sim_step), so the next step starts from ỹ and does so too.
           With contact pairs it was not just detected: at-cap, as the pair rule says. */
        if ((rc = solver_measure_final(s, res, last)) != SIPD_OK)
            return rc;
        if (res->residual < sc->tolerance && !s->pairs)
            res->converged = 1;
    }
    return SIPD_OK;
}

const sipd_solver sipd_solver_mixed = {"mixed-fem", mixed_init, solve_mixed, mixed_fem_free, NULL, mixed_state};
