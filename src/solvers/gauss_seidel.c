/* solvers/gauss_seidel.c — the Gauss–Seidel sweep (vbd; sipd with solver.sweep =
 * "gauss-seidel"): the backend's colour-by-colour local steps, each with its local line search.
 *
 * Gauss–Seidel sweep.  Colour by colour; each vertex takes its local step with a local
 * backtracking line search on the energy terms it touches (which decreases the total energy),
 * starting at ω (SOR when ω > 1).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../util.h"
#include "common.h"

/* Gauss–Seidel measures the force of each vertex when it is visited (neighbours of earlier
 * colours already moved); that is the sweep's residual.  The step's f_ref and a solve's
 * convergence are measured by a Jacobi direction pass at the iterate itself, so a sweep that
 * looks converged only at visit time goes on. */
static int solve_gauss_seidel(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last)
{
    const sipd_scene *sc = s->sc;
    double E = NAN;
    int it, force_detect = 0, rc, measured;
    stall_track stall = {INFINITY, 0, method_info(sc->method)->stall_min, 0};
    int stalled;
    memset(last, 0, sizeof *last);
    if ((rc = solver_direction(s, last)) != SIPD_OK || (rc = solver_set_fref(s, last->gmax)) != SIPD_OK)
        return rc;
    res->residual = s->r_first = rel_force(s, last->gmax);
    res->residual_disp = last->rmax / s->m->bbox_diag;
    measured = 1;
    for (it = 0; it < sc->iterations; it++) {
        sipd_gs_stats st;
        double r;
        int changed, fresh = it == 0, due = 0;
        if (sipd_stopping())   /* a stop request (util.h): sim_step abandons the step */
            return SIPD_ESIGNAL;
        if (!force_detect && (rc = solver_detect_due(s, it, &due)) != SIPD_OK)   /* (not asked when forced) */
            return rc;
        if (force_detect || due) {
            if ((rc = BK(s, detect, 1, &changed)) != SIPD_OK)
                return rc;
            fresh = 1;
            force_detect = 0;
        }
        memset(&st, 0, sizeof st);
        if ((rc = BK(s, gs_sweep, sc->line_search != SIPD_LS_NEVER, sc->omega, &st)) != SIPD_OK)
            return rc;                                            /* colour sweep         */
        measured = 0;
        r = rel_force(s, st.gmax);
        if (!isfinite(r) || !isfinite(st.rmax)) {
            snprintf(s->why, sizeof s->why, "non-finite residual at sweep %d", it + 1);
            return SIPD_EDIVERGE;
        }
        res->iterations = it + 1;
        res->residual = r;
        res->residual_disp = st.rmax / s->m->bbox_diag;
        res->ls_steps += st.backtracks;
        res->contacts = st.contacts;
        if (st.max_pen > res->max_pen)
            res->max_pen = st.max_pen;
        if (sc->line_search == SIPD_LS_ALWAYS && (rc = BK(s, energy, 0, &E)) != SIPD_OK)
            return rc;
        solver_log_iter(s, r, res->residual_disp, E, sc->omega, st.gmax);
        if (r < sc->tolerance && s->pairs && !fresh) {
            force_detect = 1;   /* as in solver_solve_jacobi: converge with pairs detected here */
            continue;
        }
        if (r < sc->tolerance) {   /* converged at visit time: check at the iterate itself */
            if ((rc = solver_measure_final(s, res, last)) != SIPD_OK)
                return rc;
            measured = 1;
            if (res->residual < sc->tolerance) {
                res->converged = 1;
                break;
            }
        }
        if ((stalled = solver_stall_check(s, &stall, r, res->residual_disp, it))) {
            if (solver_redetect(s, &stall, stalled, fresh, it)) {
                force_detect = 1;
                continue;
            }
            res->stalled = 1;
            res->at_roundoff = stalled == 2;
            break;
        }
    }
    res->energy = E;
    if (!measured) {   /* the cap: the last sweep's iterate, held to the same rule (as jacobi.c) */
        if ((rc = solver_measure_final(s, res, last)) != SIPD_OK)
            return rc;
        if (res->residual < sc->tolerance && !s->pairs)   /* (with pairs: not detected at this iterate) */
            res->converged = 1;
    }
    return SIPD_OK;
}

const sipd_solver sipd_solver_gauss_seidel = {"gauss-seidel", NULL, solve_gauss_seidel, NULL, NULL, NULL};
