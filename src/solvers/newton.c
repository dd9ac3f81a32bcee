/* solvers/newton.c — Newton: the Jacobi loop (jacobi.c) with the direction of a sparse solve.
 * After the backend's direction pass at y (SIPD_PRECOND_HESSIAN: g and the element Hessians,
 * dy = 0), the backend assembles H and g of every term at y (backend.h assemble, SIPD_TERMS_ALL;
 * element Hessians PSD-projected) and H dy = −g is solved here by block-Jacobi PCG or CHOLMOD (sparse.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../util.h"
#include "common.h"

#define CG_MAX_FACTOR 4    /* Newton's CG iteration cap: CG_MAX_FACTOR * 3 * nv (and at least 200) */

/* Newton's sparse solve (H, ng, ndy are shared with the coarse level: sim_free frees them). */
static int newton_init(sipd_sim *s)
{
    const sipd_scene *sc = s->sc;
    const sipd_model *m = s->m;
    const sipd_backend_ops *ops = s->ops;
    /* Newton: the driver's sparse solve over the backend's assembly (newton_direction) */
    size_t n3 = (size_t)m->nv * 3 * sizeof(double);
    if (!ops->assemble || !ops->set_direction) {
        sipd_error("method %s: the %s backend has no Newton operations (assemble, set_direction)",
                   scene_method_name(sc->method), ops->name);
        return SIPD_EFAIL;
    }
    s->newton = 1;
    s->ng = sipd_malloc(n3);
    s->ndy = sipd_malloc(n3);
    s->nrhs = sipd_malloc(n3);
    s->nPinv = sipd_malloc(3 * n3);
    s->nwork = sipd_malloc(4 * n3);
    if (!s->ng || !s->ndy || !s->nrhs || !s->nPinv || !s->nwork || solver_kinds_pattern(&s->H, m) != SIPD_OK)
        return SIPD_EFAIL;
    return SIPD_OK;
}

static void newton_free(sipd_sim *s)
{
    free(s->nrhs);
    free(s->nPinv);
    free(s->nwork);
    sipd_direct_free(&s->nchol);
}

/* Newton's direction (method.h: SIPD_DIRECTION_NEWTON_CG): after the backend's direction pass
 * at y (g, element Hessians), the backend assembles H at y, and H dy = −g is solved here by
 * block-Jacobi preconditioned CG from dy = 0 (sparse.h); rmax and g·dy are measured on it. */
static int newton_direction(sipd_sim *s, sipd_dir_stats *st)
{
    const int nv = s->m->nv, n = 3 * nv;
    sipd_bsr_extra extra = {NULL, NULL, NULL};
    double rmax = 0, gdy = 0, tau;
    int a, rc, maxit = CG_MAX_FACTOR * n > 200 ? CG_MAX_FACTOR * n : 200;
    if ((rc = BK(s, assemble, SIPD_TERMS_ALL, &s->H, s->ng, &extra)) != SIPD_OK)   /* H at y, g */
        return rc;
    for (a = 0; a < n; a++) s->nrhs[a] = -s->ng[a];
    if (s->sc->linear == SIPD_LINEAR_CHOLMOD) {   /* contact pairs join the pattern (sparse.h) */
        if ((rc = sipd_direct_solve(&s->nchol, &s->H, &extra, s->nrhs, s->ndy)) == SIPD_ESIGNAL)
            return rc;   /* a stop request: the factorisation is abandoned (sparse.c) */
        if (rc != SIPD_OK) {
            snprintf(s->why, sizeof s->why, "CHOLMOD could not analyse or factorise Newton's matrix (not positive "
                     "definite, or out of memory)");
            return SIPD_EFAIL;
        }
        st->cg_iters = 0;
    } else {
        sipd_bsr_block_jacobi(&s->H, s->nPinv);
        st->cg_iters = sipd_pcg(&s->H, &extra, s->nPinv, s->nrhs, s->ndy, maxit, s->sc->cg_tolerance, s->nwork);
        if (st->cg_iters < 0)
            return SIPD_ESIGNAL;   /* a stop request inside CG */
    }
    if ((rc = BK(s, set_direction, s->ndy)) != SIPD_OK)                 /* dy          */
        return rc;
    for (a = 0; a < nv; a++) {
        const double *d = s->ndy + 3 * a, *g = s->ng + 3 * a;
        double n2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        gdy += g[0] * d[0] + g[1] * d[1] + g[2] * d[2];
        if (n2 > rmax)
            rmax = n2;
    }
    tau = solver_direction_scale(s);   /* contact.ccd filtered dy as a whole */
    st->rmax = tau * sqrt(rmax);
    st->gdy = tau * gdy;
    return SIPD_OK;
}

const sipd_solver sipd_solver_newton = {"newton", newton_init, solver_solve_jacobi, newton_free, newton_direction,
                                         NULL};
