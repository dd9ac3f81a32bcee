/* solvers/jacobi.c — the Jacobi sweep: plain, line-searched or Chebyshev-accelerated steps
 * along the backend's dy = −D⁻¹g (sipd, block-jacobi, diag-jacobi, gd), with the two-level
 * coarse correction (coarse_correction.c) when solver.coarse is on.  Newton runs this loop too,
 * with its own direction (newton.c).  The design notes are at the top of driver.c.
 *
 * Design notes (the choices docs/design.md §3.5 and §3.8 leave to us):
 *
 * Jacobi sweep.  Each iteration computes g and dy = −D⁻¹g for every vertex and takes one of:
 *  - a plain step with a global backtracking line search (Armijo, start at 1, halve);
 *  - a plain full step (line_search = "never", or "auto" once full steps keep being accepted);
 *  - a Chebyshev step (Wang & Yang 2016) y ← y_prev + ω (y + dy − y_prev) with the step fixed
 *    at 1, ω₁ = 1, ω₂ = 2/(2 − ρ²), ω_{k+1} = 4/(4 − ρ² ω_k).
 * "auto" skips energy evaluations in windows of AUTO_WINDOW iterations: it snapshots y, runs
 * the window unchecked, and evaluates E once; if E rose it restores the snapshot and falls back
 * to a line-searched plain step (restarting the Chebyshev recurrence).  "always" checks every
 * iteration; under Chebyshev a rise undoes the step and restarts the recurrence.
 *
 * Adaptive ρ.  With s = y_k − y_{k−1}, (g_k − g_{k−1})·s / sᵀDs ≈ sᵀHs / sᵀDs is a Rayleigh
 * quotient of D⁻¹H.  Slow modes dominate s after a few iterations, so the smallest observed
 * quotient estimates λ_min(D⁻¹H) from above and ρ = 1 − λ_min from below (safe side: an
 * underestimated ρ slows Chebyshev but keeps it convergent).  The estimate is kept across
 * steps; the first step runs CHEB_WARMUP plain iterations to seed it.  The recurrence is
 * restarted when the estimate of 1 − ρ shrinks by more than 20%.  The quotient of a single
 * step weights each mode by λ²e² and so under-represents the slowest modes; the quotient of
 * the displacement accumulated since the start of the step, d = y − y₀ with (g − g₀)·d ≈ dᵀHd,
 * has no such bias and is used as a second candidate (when the backend provides it): ρ rose
 * from 0.9997 to 0.9998 on the ν = 0.49 cantilever, still short of the ~0.99999 that works
 * best there (docs/convergence.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../util.h"
#include "common.h"

int solver_solve_jacobi(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last)
{
    const sipd_scene *sc = s->sc;
    const double diag = s->m->bbox_diag;
    int ls = sc->line_search;
    const int fixed_rho = sc->chebyshev_rho > 0;
    const int cheb = sim_chebyshev(sc);
    double E = NAN, E_snap = NAN, gs_prev = 0, omega = 1, rho = cheb ? solver_rho_from(s) : 0;
    int it, k = 0, rq_valid = 0, trust = 0, window = 0, force_plain = 0, pairs_seen = 0, force_detect = 0;
    int warmup = (cheb && !fixed_rho && rho == 0) ? CHEB_WARMUP : 0, measured = 0, rc;
    int coarse_next = 0, coarse_n = 0, coarse_stale = 0;   /* two-level SIPD: the iteration of the next coarse
                                            correction, corrections so far in this step */
    stall_track stall = {INFINITY, 0, method_info(sc->method)->stall_min, 0};
    floor_track floor_t = {0};
    int stalled, at_floor;

    s->coarse_gdy = NAN;   /* no coarse correction in this solve yet */
    if (ls != SIPD_LS_NEVER && (rc = BK(s, energy, 0, &E)) != SIPD_OK)
        return rc;
    for (it = 0; it < sc->iterations; it++) {
        sipd_dir_stats st;
        double r, rd, alpha = 1;
        int fresh = it == 0, due = 0, rose;   /* fresh: pairs detected at this iterate (begin_step: at it 0) */
        if (sipd_stopping())   /* a stop request (util.h): sim_step abandons the step */
            return SIPD_ESIGNAL;
        if (!force_detect && (rc = solver_detect_due(s, it, &due)) != SIPD_OK)   /* (not asked when forced) */
            return rc;
        if (force_detect || due) {
            /* new contact pairs change the energy: close an open window first (with the old
               pairs), then re-evaluate E with the new ones */
            int changed = 0;
            if (window != 0 && ls == SIPD_LS_AUTO) {
                if ((rc = solver_window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK)
                    return rc;
                res->restarts += rose;
            }
            if ((rc = BK(s, detect, 1, &changed)) != SIPD_OK)
                return rc;
            if (changed && ls != SIPD_LS_NEVER) {
                double E_old = E;
                if ((rc = BK(s, energy, 0, &E)) != SIPD_OK)
                    return rc;
                if (!(fabs(E - E_old) <= FLOOR_MULT * (s->e_noise + ENERGY_RTOL * fabs(E))))
                    floor_t.run = 0;   /* the pairs changed the energy beyond the floor's scale: judged afresh */
            }
            pairs_seen |= changed;
            fresh = 1;
            force_detect = 0;
        }
        memset(&st, 0, sizeof st);   /* fields a backend does not provide read as 0 */
        if ((rc = solver_direction(s, &st)) != SIPD_OK)           /* g, D, dy = −D⁻¹g     */
            return rc;
        *last = st;
        measured = 1;
        if (st.have_gs_prev)   /* the last apply's Σ g·s, deferred to this pass (backend.h) */
            gs_prev = st.gs_prev;
        if (it == 0) {   /* the step's force scale */
            if ((rc = solver_set_fref(s, st.gmax)) != SIPD_OK)
                return rc;
            s->r_first = rel_force(s, st.gmax);
        }
        if (ls == SIPD_LS_AUTO && s->pairs && (pairs_seen || (it == 0 && st.contacts > 0)) && window == 0)
            ls = SIPD_LS_ALWAYS;   /* contact pairs: check every iteration (docs/contact.md) */
        r = rel_force(s, st.gmax);
        rd = st.rmax / diag;
        res->iterations = it + 1;
        res->residual = r;
        res->residual_disp = rd;
        res->contacts = st.contacts;
        if (st.max_pen > res->max_pen)
            res->max_pen = st.max_pen;
        if (!isfinite(r) || !isfinite(st.gdy) || !isfinite(rd)) {
            snprintf(s->why, sizeof s->why, "non-finite residual at iteration %d", it + 1);
            return SIPD_EDIVERGE;
        }
        /* spectral estimates: Rayleigh quotients of the displacement since the start of the
           step and of the last step; a new ρ restarts the Chebyshev recurrence */
        if ((st.d_den > 0 && solver_lower_lambda(s, st.d_num / st.d_den, cheb && !fixed_rho, &rho)) |
            (rq_valid && st.sDs > 0 && solver_lower_lambda(s, (st.gs - gs_prev) / st.sDs, cheb && !fixed_rho, &rho)))
            k = 0;
        if (r < sc->tolerance && s->pairs && !fresh) {
            /* converged with pairs (β, n) frozen at an earlier iterate: detect at this one and
               check again, so that the result does not depend on when detection last ran */
            force_detect = 1;
            solver_log_iter(s, r, rd, E, 0, st.gmax);
            continue;
        }
        if (r < sc->tolerance) {                                  /* converged            */
            /* inside an "auto" window the energy is unchecked: close it first; if it rose,
               the snapshot is restored and the solve goes on from there (it was not
               converged: a drop.cfg solve reported 4e-5 against a 1e-5 tolerance) */
            if (window != 0 && ls == SIPD_LS_AUTO &&
                ((rc = solver_window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK || rose)) {
                if (rc != SIPD_OK)
                    return rc;
                res->restarts++;
                k = 0;
                force_plain = 1;
                rq_valid = 0;
                trust = 0;
                solver_log_iter(s, r, rd, E, 0, st.gmax);
                continue;
            }
            res->converged = 1;
            solver_log_iter(s, r, rd, E, 0, st.gmax);
            break;
        }
        stalled = solver_stall_check(s, &stall, r, rd, it);
        at_floor = !stalled && ls != SIPD_LS_NEVER && solver_floor_check(s, &floor_t, &stall, it, st.gdy, E);
        if (stalled || at_floor || (ls != SIPD_LS_NEVER && !(st.gdy < 0))) {
            if (solver_redetect(s, &stall, stalled, fresh, it)) {
                /* stalled on pairs frozen earlier: detect here, try again (the floor's count goes
                   on: it is judged again at the detected iterate, and a detection that moves E
                   past its scale restarts it, above) */
                force_detect = 1;
                solver_log_iter(s, r, rd, E, 0, st.gmax);
                continue;
            }
            res->stalled = 1;                                     /* no progress: stop    */
            res->at_roundoff = stalled == 2;
            res->at_floor = at_floor;
            solver_log_iter(s, r, rd, E, 0, st.gmax);
            break;
        }
        if (s->coarse && it >= coarse_next) {
            /* two-level SIPD: the coarse correction instead of this iteration's smoothing step
               (an open "auto" window is closed first: the correction's line search needs E at
               y; if E rose, the snapshot is back and the correction waits an iteration).  The
               Chebyshev recurrence restarts after it, and its step is no Rayleigh sample. */
            if (window != 0 && ls == SIPD_LS_AUTO) {
                if ((rc = solver_window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK)
                    return rc;
                if (rose) {
                    res->restarts++;
                    k = 0;
                    force_plain = 1;
                    rq_valid = 0;
                    trust = 0;
                    measured = 0;
                    solver_log_iter(s, r, rd, E, 0, st.gmax);
                    continue;
                }
            }
            /* a new coarse operator per the refresh setting, and whenever the last correction's
               line search had to cut its step below ½: the operator no longer fits (contacts made
               or lost, large rotations within the step; docs/two-level.md) */
            if ((rc = coarse_correction(s, coarse_stale || (sc->coarse_refresh > 0 ? coarse_n % sc->coarse_refresh == 0
                                                                                  : coarse_n == 0),
                                        &E, &res->ls_steps, &alpha, &gs_prev)) != SIPD_OK)
                return rc;
            coarse_stale = alpha < 0.5;
            coarse_n++;
            coarse_next = it + sc->coarse_every;
            k = 0;
            rq_valid = 0;
            if (alpha > 0)
                measured = 0;
            solver_log_iter(s, r, rd, E, alpha, st.gmax);
            continue;
        }
        if (cheb && rho > 0 && it >= warmup && !force_plain) {
            /* Chebyshev step, α = 1 */
            omega = k == 0 ? 1 : k == 1 ? 2 / (2 - rho * rho) : 4 / (4 - rho * rho * omega);
            k++;
            if (ls == SIPD_LS_AUTO && (rc = solver_window_open(s, window, E, &E_snap)) != SIPD_OK)
                return rc;
            if ((rc = BK(s, apply, 1, omega, &gs_prev)) != SIPD_OK)
                return rc;
            measured = 0;
            rq_valid = 1;
            alpha = omega;
            if (ls == SIPD_LS_ALWAYS) {
                double En;
                if ((rc = BK(s, energy, 0, &En)) != SIPD_OK)
                    return rc;
                if (energy_rose(s, En, E)) {
                    if ((rc = BK0(s, undo)) != SIPD_OK)
                        return rc;
                    k = 0;
                    force_plain = 1;
                    rq_valid = 0;
                    res->restarts++;
                    alpha = 0;
                } else
                    E = En;
            } else if (ls == SIPD_LS_AUTO &&
                       ((rc = solver_window_close(s, &window, 0, E_snap, &E, &rose)) != SIPD_OK || rose)) {
                if (rc != SIPD_OK)
                    return rc;
                k = 0;
                force_plain = 1;
                rq_valid = 0;
                res->restarts++;
                alpha = 0;
            }
        } else {
            /* plain step */
            force_plain = 0;
            k = 0;
            if (ls == SIPD_LS_NEVER) {
                if ((rc = BK(s, apply, 1, 1, &gs_prev)) != SIPD_OK)
                    return rc;
            } else if (ls == SIPD_LS_AUTO && trust >= AUTO_TRUST) {
                if ((rc = solver_window_open(s, window, E, &E_snap)) != SIPD_OK ||
                    (rc = BK(s, apply, 1, 1, &gs_prev)) != SIPD_OK ||
                    (rc = solver_window_close(s, &window, 0, E_snap, &E, &rose)) != SIPD_OK)
                    return rc;
                if (rose) {
                    trust = 0;
                    res->restarts++;
                    alpha = 0;
                }
            } else {
                double En = E;
                if ((rc = solver_line_search(s, E, st.gdy, &En, &res->ls_steps, &alpha)) != SIPD_OK)
                    return rc;
                if (alpha == 0 && s->pairs && !fresh) {           /* as above             */
                    force_detect = 1;
                    solver_log_iter(s, r, rd, E, 0, st.gmax);
                    continue;
                }
                if (alpha == 0) {                                 /* round-off floor      */
                    res->stalled = 1;
                    solver_log_iter(s, r, rd, E, 0, st.gmax);
                    break;
                }
                if ((rc = BK(s, apply, alpha, 1, &gs_prev)) != SIPD_OK)
                    return rc;
                E = En;
                trust = alpha == 1 ? trust + 1 : 0;
            }
            measured = 0;
            rq_valid = 1;
        }
        solver_log_iter(s, r, rd, E, alpha, st.gmax);
    }
    if (window != 0 && ls == SIPD_LS_AUTO) {                      /* close an open window */
        int rose;
        if ((rc = solver_window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK)
            return rc;
        res->restarts += rose;
        measured = 0;
    }
    res->energy = E;
    res->rho = cheb ? rho : 0;
    if (!measured) {   /* the cap: the last step's iterate, held to the same rule (as mixed_fem.c) */
        if ((rc = solver_measure_final(s, res, last)) != SIPD_OK)
            return rc;
        if (res->residual < sc->tolerance && !s->pairs)   /* (with pairs: not detected at this iterate) */
            res->converged = 1;
    }
    return SIPD_OK;
}

const sipd_solver sipd_solver_jacobi = {"jacobi", NULL, solver_solve_jacobi, NULL, NULL, NULL};
