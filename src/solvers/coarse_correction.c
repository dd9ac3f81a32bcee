/* solvers/coarse_correction.c — two-level SIPD (solver.coarse, coarse.h; docs/two-level.md):
 * the coarse level over Newton's assembly of H, and the correction the Jacobi loop (jacobi.c)
 * takes every solver.coarse_every iterations instead of a smoothing step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../util.h"
#include "common.h"

/* The backend's assembly of H and g of every term (backend.h assemble), the prolonged direction (H, ng, ndy are shared with Newton:
 * sim_free frees them and the coarse level). */
int coarse_correction_init(sipd_sim *s, const sipd_backend_params *bp)
{
    const sipd_scene *sc = s->sc;
    const sipd_model *m = s->m;
    const sipd_backend_ops *ops = s->ops;
    size_t n3 = (size_t)m->nv * 3 * sizeof(double);
    if (!ops->assemble || !ops->set_direction || !bp->assemble) {
        sipd_error("solver.coarse: the %s backend has no Hessian assembly (assemble, set_direction)", ops->name);
        return SIPD_EFAIL;
    }
    if (!s->newton) {
        s->ng = sipd_malloc(n3);
        s->ndy = sipd_malloc(n3);
        if (!s->ng || !s->ndy || solver_kinds_pattern(&s->H, m) != SIPD_OK)
            return SIPD_EFAIL;
    }
    s->coarse = sipd_calloc(1, sizeof *s->coarse);
    if (!s->coarse || coarse_build(s->coarse, m, &s->H, sc->coarse_size, sc->coarse_basis) != SIPD_OK) {
        sipd_error("solver.coarse: could not build the coarse level (out of memory, or no free vertex)");
        free(s->coarse);
        s->coarse = NULL;
        return SIPD_EFAIL;
    }
    return SIPD_OK;
}

/* Two-level SIPD (solver.coarse, coarse.h; docs/two-level.md): right after a direction
 * pass at y, the coarse correction dy = P e, Pᵀ H P e = −Pᵀ g (H: Newton's PSD-projected
 * assembly at y), replaces the pass's direction and is line-searched on the energy from α = 1
 * (Armijo, halving; E evaluated first when unknown).  *alpha = the step taken (0: none: the
 * coarse matrix was not positive definite, the direction was no descent, or no α decreased E;
 * y is then unchanged).  *gs = Σ g·(y_new − y). */
int coarse_correction(sipd_sim *s, int refresh, double *E, int *halvings, double *alpha, double *gs)
{
    sipd_bsr_extra extra = {NULL, NULL, NULL};
    double gdy = 0, En = NAN;
    int a, rc, n = 3 * s->m->nv;
    *alpha = 0;
    s->coarse_gdy = NAN;
    if (isnan(*E) && (rc = BK(s, energy, 0, E)) != SIPD_OK)
        return rc;
    if (refresh || !s->ops->gradient) {   /* a new coarse operator: H at y (and g) */
        if ((rc = BK(s, assemble, SIPD_TERMS_ALL, &s->H, s->ng, &extra)) != SIPD_OK)
            return rc;
        if (extra.row && !extra.blocks) {
            snprintf(s->why, sizeof s->why, "solver.coarse: the %s backend gives the contact pairs' couplings "
                     "only matrix-free", s->ops->name);
            return SIPD_EFAIL;
        }
        /* the pairs' couplings join PᵀHP (coarse.h coarse_factor_pairs) */
        if ((rc = coarse_factor_pairs(s->coarse, &s->H, &extra)) != SIPD_OK)
            return rc == SIPD_ESIGNAL ? rc : SIPD_OK;   /* not factored: no correction */
    } else if ((rc = BK(s, gradient, s->ng)) != SIPD_OK) {
        return rc;
    }
    if ((rc = coarse_apply(s->coarse, s->ng, s->ndy)) != SIPD_OK)
        return rc == SIPD_ESIGNAL ? rc : SIPD_OK;
    for (a = 0; a < n; a++) gdy += s->ng[a] * s->ndy[a];
    s->coarse_gdy = gdy < 0 ? gdy : NAN;   /* the smooth modes' share (solver_floor_check) */
    if (!(gdy < 0))
        return SIPD_OK;
    if ((rc = BK(s, set_direction, s->ndy)) != SIPD_OK ||
        (rc = solver_line_search(s, *E, gdy * solver_direction_scale(s), &En, halvings, alpha)) != SIPD_OK)
        return rc;
    if (*alpha > 0) {
        if ((rc = BK(s, apply, *alpha, 1, gs)) != SIPD_OK)
            return rc;
        *E = En;
    }
    return SIPD_OK;
}
