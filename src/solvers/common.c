/* solvers/common.c — the pieces every solver family shares (common.h). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"

void solver_log_iter(sipd_sim *s, double r, double rdisp, double E, double alpha, double force)
{
    if (s->nhist < s->hcap) {
        s->hres[s->nhist] = r;
        s->hdisp[s->nhist] = rdisp;
        s->hE[s->nhist] = E;
        s->halpha[s->nhist] = alpha;
        s->hforce[s->nhist] = force;
        s->hwall[s->nhist] = sipd_now() - s->t_solve;
        s->nhist++;
    }
}

int solver_stall_check(const sipd_sim *s, stall_track *t, double r, double rdisp, int it)
{
    if (r < STALL_DROP * t->ref) {
        t->ref = r;
        t->it_ref = it;
        t->redetected = 0;
        return 0;
    }
    /* updates at the round-off of the state itself (STALL_EPS ε max|x|: float32 on the GPU)
       cannot make progress: STALL_MIN_FLOOR iterations without a drop suffice.  (Chebyshev's
       steps are larger than the Jacobi update measured here: a quasi-static double solve still
       gained 10% per 27 iterations at updates of 32 ulp, so the bound is 4 ulp and the window
       50.) */
    if (rdisp < STALL_EPS * s->eps * s->x_extent / s->m->bbox_diag && it - t->it_ref > STALL_MIN_FLOOR)
        return 2;
    return rdisp < STALL_DISP && it - t->it_ref > (t->it_ref > t->min ? t->it_ref : t->min);
}

int solver_redetect(const sipd_sim *s, stall_track *t, int stalled, int fresh, int it)
{
    if (!s->pairs || fresh)
        return 0;
    if (stalled) {
        if (t->redetected)
            return 0;
        t->redetected = 1;
        t->it_ref = it;
    }
    return 1;
}

int solver_floor_check(const sipd_sim *s, floor_track *f, const stall_track *t, int it, double gdy, double E)
{
    const sipd_method_info *mi = method_info(s->sc->method);
    double gain, res;
    if (!isfinite(E) || !isfinite(gdy)) {
        f->run = 0;
        return 0;
    }
    res = s->e_noise + ENERGY_RTOL * fabs(E);
    gain = 0.5 * fabs(gdy);
    if (s->coarse) {
        if (isnan(s->coarse_gdy)) {
            f->run = 0;
            return 0;
        }
        gain += 0.5 * fabs(s->coarse_gdy);
    } else if (mi->direction == SIPD_DIRECTION_LOCAL) {
        if (!(s->lam_min > 0 && isfinite(s->lam_min))) {
            f->run = 0;
            return 0;
        }
        if (s->lam_min < 1)
            gain /= s->lam_min;
    }
    if (gain < FLOOR_MULT * res)
        f->run++;
    else
        f->run = 0;
    return f->run >= FLOOR_RUN && it - t->it_ref > FLOOR_WINDOW;
}

double solver_rho_from(const sipd_sim *s)
{
    double rho;
    if (s->sc->chebyshev_rho > 0)
        return s->sc->chebyshev_rho;
    if (!(s->lam_min < 1))
        return 0;
    rho = 1 - s->lam_min;
    return rho > RHO_MAX ? RHO_MAX : rho;
}

int solver_window_open(sipd_sim *s, int window, double E, double *E_snap)
{
    if (window == 0) {
        *E_snap = E;
        return BK0(s, snapshot);
    }
    return SIPD_OK;
}

int solver_detect_due(sipd_sim *s, int it, int *due)
{
    *due = 0;
    if (s->pairs && it > 0)
        return BK(s, detect, 0, due);
    return SIPD_OK;
}

int solver_window_close(sipd_sim *s, int *window, int force, double E_snap, double *E, int *rose)
{
    double En;
    int rc;
    *rose = 0;
    if (!force && ++*window < AUTO_WINDOW) {
        *E = NAN;
        return SIPD_OK;
    }
    *window = 0;
    if ((rc = BK(s, energy, 0, &En)) != SIPD_OK)
        return rc;
    if (energy_rose(s, En, E_snap)) {
        *E = E_snap;
        *rose = 1;
        return BK0(s, restore);
    }
    *E = En;
    return SIPD_OK;
}

int solver_lower_lambda(sipd_sim *s, double lam, int adapt, double *rho)
{
    double old = 1 - *rho;
    if (!(lam > 1e-9 && lam < s->lam_min))
        return 0;
    s->lam_min = lam;
    if (adapt && 1 - solver_rho_from(s) < 0.8 * old) {
        *rho = solver_rho_from(s);
        return 1;
    }
    return 0;
}

int solver_line_search(sipd_sim *s, double E, double gdy, double *E_new, int *halvings, double *alpha_out)
{
    double alpha = 1, Et;
    int k, rc;
    *alpha_out = 0;
    for (k = 0; k < MAX_HALVINGS; k++) {
        if ((rc = BK(s, energy, alpha, &Et)) != SIPD_OK)
            return rc;
        if (!energy_rose(s, Et, E + ARMIJO_C * alpha * gdy)) {
            *E_new = Et;
            *alpha_out = alpha;
            return SIPD_OK;
        }
        alpha *= 0.5;
        (*halvings)++;
    }
    return SIPD_OK;
}

/* The step's force scale f_ref (docs/convergence.md): the largest of
 *  - the load: max|g| at the "do nothing" state x̂ (free vertices where the step starts, pins
 *    where it ends): the weight, inertia and pin-driven forces the step must resolve;
 *  - the weight scale W = max_a m_a |gravity| (a body resting on the ground or hanging at
 *    equilibrium does nothing in a step, yet its forces carry its weight);
 *  - the floor f_noise (round-off level).
 * Not the force at the initial guess ỹ: on a stiff body the free-fall guess puts forces
 * E L h² g / L near a clamp, so a residual relative to them is lax in proportion to E (at
 * 1e-3 it left a 1e8 Pa beam's tip 96% off).  A backend without step_load falls back to the
 * force at ỹ (g0). */
int solver_set_fref(sipd_sim *s, double g0)
{
    double load = g0;
    int rc;
    if (s->ops->step_load && (rc = BK(s, step_load, &load)) != SIPD_OK)
        return rc;
    s->f_ref = load;
    if (s->f_weight > s->f_ref)
        s->f_ref = s->f_weight;
    if (s->f_noise > s->f_ref)
        s->f_ref = s->f_noise;
    return SIPD_OK;
}

int solver_direction(sipd_sim *s, sipd_dir_stats *st)
{
    int rc = BK(s, direction, st);
    if (rc != SIPD_OK || !s->solver->direction)
        return rc;
    return s->solver->direction(s, st);
}

int solver_measure_final(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last)
{
    int rc;
    memset(last, 0, sizeof *last);
    if ((rc = solver_direction(s, last)) != SIPD_OK)
        return rc;
    res->residual = rel_force(s, last->gmax);
    res->residual_disp = last->rmax / s->m->bbox_diag;
    return SIPD_OK;
}

int solver_kinds_pattern(sipd_bsr *H, const sipd_model *m)
{
    int *pe = NULL, npe = 0, rc;
    if (model_pattern_elements(m, &pe, &npe) != SIPD_OK)
        return SIPD_EFAIL;
    rc = sipd_bsr_pattern(H, m->nv, pe, npe, model_max_corners(m));
    free(pe);
    return rc;
}

double solver_direction_scale(sipd_sim *s)
{
    double tau = 1;
    if (s->ops->ccd_scale && BK(s, ccd_scale, &tau) != SIPD_OK)
        return 1;
    return tau;
}
