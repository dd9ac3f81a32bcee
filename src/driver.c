/* driver.c — frames → substeps → iterations.
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
 *
 * Gauss–Seidel sweep.  Colour by colour; each vertex takes its local step with a local
 * backtracking line search on the energy terms it touches (which decreases the total energy),
 * starting at ω (SOR when ω > 1).
 *
 * Residual: r = max_a |D_a⁻¹ g_a| / bbox diagonal, measured before the update.
 *
 * Contact pairs (docs/design.md §3.6).  Each iteration first asks the backend whether a narrow phase
 * is due (every detect_every iterations, or sooner after d̂/4 of motion); a detection changes
 * the energy, so an open "auto" window is closed first (with the old pairs) and E is evaluated
 * again.  While pairs exist "auto" behaves as "always" (unchecked windows let the iterate run
 * into contacts the frozen pairs do not see).  A solve counts as converged — or as stalled —
 * only at an iterate where the pairs were just detected; otherwise it detects and goes on, so
 * the result does not depend on when the last detection happened to run.
 */
#include "driver.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "method.h"
#include "mixed.h"
#include "util.h"

#define ARMIJO_C 1e-4
#define MAX_HALVINGS 30
#define AUTO_TRUST 4     /* full steps accepted in a row before "auto" stops checking */
#define AUTO_WINDOW 8    /* unchecked iterations between energy checks                 */
#define CHEB_WARMUP 8
#define RHO_MAX (1.0 - 1e-6)
#define ENERGY_RTOL 1e-13  /* relative round-off allowance of energy comparisons       */
#define ENERGY_NOISE 16.0  /* ... plus ENERGY_NOISE ε √Σ ((μ+λ)V)² (energy_rose)        */
#define STALL_DISP 1e-10   /* stall rule: while the updates are below STALL_DISP of the  */
#define STALL_DROP 0.9     /* model size the best residual must drop by STALL_DROP ...  */
                           /* ... within max(the method's stall_min, iterations so far)
                              iterations (method.h: 1000; Newton 10)                    */
#define STALL_EPS 4.0      /* updates below STALL_EPS ε max|x| are at the state's round-off ...  */
#define STALL_MIN_FLOOR 50 /* ... and STALL_MIN_FLOOR iterations without a drop end the solve   */
#define DIVERGE_R 10.0     /* a solve ending above DIVERGE_R × max(1, its first residual) diverged */
#define F_NOISE 1e-12      /* f_ref ≥ F_NOISE · E_max · L̄² (the model's force scale)     */
#define F_DIVERGE 1e6      /* f_ref > F_DIVERGE · max(E_max L̄², first f_ref): diverged   */
#define CG_MAX_FACTOR 4    /* Newton's CG iteration cap: CG_MAX_FACTOR * 3 * nv (and at least 200) */

/* Every backend call's status is checked: BK/BK0 call an op and, when it fails, name it in
 * s->why (driver_run prints it with the frame and step; the run ends with exit 1). */
static int bk_status(sipd_sim *s, int rc, const char *op)
{
    if (rc != SIPD_OK && rc != SIPD_ESIGNAL && !s->why[0])   /* (ESIGNAL: a stop request, no failure) */
        snprintf(s->why, sizeof s->why, "the %s backend's %s failed (status %d)", s->ops->name, op, rc);
    return rc;
}
#define BK(s, op, ...) bk_status((s), (s)->ops->op((s)->b, __VA_ARGS__), #op)
#define BK0(s, op) bk_status((s), (s)->ops->op((s)->b), #op)

void sim_backend_params(const sipd_scene *sc, int threads, sipd_backend_params *bp)
{
    static const int split_of[] = {SIPD_SPLIT_EXPANDED, SIPD_SPLIT_SIGN, SIPD_SPLIT_NONE, SIPD_SPLIT_CLAMP,
                                   SIPD_SPLIT_ABS};
    bp->split = split_of[sc->projection];
    bp->threads = threads;
    bp->contact = sc->contact && sc->ground;
    bp->dhat = sc->dhat;
    bp->kc = sc->contact_stiffness;   /* 0: the model's automatic value */
    bp->mu = sc->friction;
    bp->eps_v = sc->friction_velocity;
    bp->plane_n[0] = sc->ground_normal[0];
    bp->plane_n[1] = sc->ground_normal[1];
    bp->plane_n[2] = sc->ground_normal[2];
    bp->plane_h = sc->ground_height;
    bp->pairs = sc->contact && (sc->nbodies > 1 || sc->self_contact);
    bp->self = sc->self_contact;
    bp->detect_every = sc->detect_every;
    bp->precond = method_info(sc->method)->precond;   /* method.h */
    bp->hessian = sc->coarse_levels > 1;              /* two-level SIPD: the coarse level's H */
    bp->contact_force = (sc->fields >> SIPD_FIELD_CONTACT_FORCE) & 1u;   /* output.fields */
    bp->profile = 0;                                  /* no phase timing (sipd_profile) */
}

sipd_sweep sim_sweep(const sipd_scene *sc) { return method_sweep(sc); }

int sim_chebyshev(const sipd_scene *sc) { return method_chebyshev(sc); }

static void note_extent(sipd_sim *s, const double *x);

/* Newton's matrix pattern: the vertex couplings of every element kind (model.h), as the CPU
 * backend's assembly expects (backend_cpu.c, assemble). */
static int kinds_pattern(sipd_bsr *H, const sipd_model *m)
{
    int *pe = NULL, npe = 0, rc;
    if (model_pattern_elements(m, &pe, &npe) != SIPD_OK)
        return SIPD_EFAIL;
    rc = bsr_pattern(H, m->nv, pe, npe, model_max_corners(m));
    free(pe);
    return rc;
}

int sim_init(sipd_sim *s, const sipd_scene *sc, const sipd_model *m, const sipd_backend_ops *ops,
             const sipd_backend_params *bp)
{
    int rc;
    memset(s, 0, sizeof *s);
    s->sc = sc;
    s->m = m;
    s->ops = ops;
    s->lam_min = INFINITY;
    s->pairs = bp->pairs && ops->detect;
    {   /* the floor of f_ref, F_NOISE E_max L̄² (E_max over the deformable bodies: the
           automatic contact stiffness is E_max L̄): far above round-off, far below any load */
        int i;
        s->f_model = m->contact_k_auto * m->mean_edge;
        s->f_noise = F_NOISE * s->f_model;
        if (!(s->f_noise > 0))
            s->f_noise = 1e-300;
        double gn = sqrt(sc->gravity[0] * sc->gravity[0] + sc->gravity[1] * sc->gravity[1] +
                         sc->gravity[2] * sc->gravity[2]);
        for (i = 0; i < m->nv; i++) {
            s->nfree += !m->fixed[i];
            if (!m->fixed[i] && m->mass[i] * gn > s->f_weight)
                s->f_weight = m->mass[i] * gn;
        }
        s->eps = ops->unit_roundoff > 0 ? ops->unit_roundoff : DBL_EPSILON;
        for (int g = 0; g < m->ngroups; g++)   /* elements round independently: a random walk, √Σw² */
            for (i = 0; i < m->groups[g].ne; i++) {
                double w = model_element_scale(m, g, i);
                s->e_noise += w * w;
            }
        s->e_noise = ENERGY_NOISE * s->eps * sqrt(s->e_noise);
        note_extent(s, m->X0);
    }
    s->hcap = sc->iterations + 1;
    s->hres = sipd_malloc((size_t)s->hcap * sizeof(double));
    s->hE = sipd_malloc((size_t)s->hcap * sizeof(double));
    s->halpha = sipd_malloc((size_t)s->hcap * sizeof(double));
    s->hforce = sipd_malloc((size_t)s->hcap * sizeof(double));
    s->hwall = sipd_malloc((size_t)s->hcap * sizeof(double));
    s->hdisp = sipd_malloc((size_t)s->hcap * sizeof(double));
    if (!s->hres || !s->hE || !s->halpha || !s->hforce || !s->hwall || !s->hdisp) {
        sim_free(s);
        return SIPD_EFAIL;
    }
    if (method_info(sc->method)->direction == SIPD_DIRECTION_NEWTON_CG) {
        /* Newton: the driver's sparse solve over the backend's assembly (newton_direction) */
        size_t n3 = (size_t)m->nv * 3 * sizeof(double);
        if (!ops->hessian || !ops->set_direction) {
            sipd_error("method %s: the %s backend has no Newton operations (hessian, set_direction)",
                       scene_method_name(sc->method), ops->name);
            sim_free(s);
            return SIPD_EFAIL;
        }
        s->newton = 1;
        s->ng = sipd_malloc(n3);
        s->ndy = sipd_malloc(n3);
        s->nrhs = sipd_malloc(n3);
        s->nPinv = sipd_malloc(3 * n3);
        s->nwork = sipd_malloc(4 * n3);
        if (!s->ng || !s->ndy || !s->nrhs || !s->nPinv || !s->nwork || kinds_pattern(&s->H, m) != SIPD_OK) {
            sim_free(s);
            return SIPD_EFAIL;
        }
    }
    if (method_info(sc->method)->direction == SIPD_DIRECTION_MIXED) {
        /* mixed FEM: the driver's outer iterations over the backend's non-elastic terms */
        size_t n3 = (size_t)m->nv * 3 * sizeof(double);
        if (!ops->mixed_terms || !ops->mixed_energy || !ops->set_direction) {
            sipd_error("method %s: the %s backend has no mixed-FEM operations (mixed_terms, mixed_energy)",
                       scene_method_name(sc->method), ops->name);
            sim_free(s);
            return SIPD_EFAIL;
        }
        if (!mixed_kinds_supported(m)) {
            sipd_error_at(sc->path, 0, "solver.method = \"mixed-fem\": a shell or cloth body's membrane has no "
                          "stretch (S) form except stable neo-Hookean's");
            sim_free(s);
            return SIPD_EINPUT;
        }
        s->ng = sipd_malloc(n3);
        s->ndy = sipd_malloc(n3);
        s->my = sipd_malloc(n3);
        if (!s->ng || !s->ndy || !s->my || kinds_pattern(&s->H, m) != SIPD_OK ||
            mixed_create(&s->mx, m, sc->linear, sc->cg_tolerance) != SIPD_OK ||
            !(s->s_start = sipd_malloc(((size_t)mixed_stretch_count(s->mx) + 1) * sizeof(double)))) {
            sim_free(s);
            return SIPD_EFAIL;
        }
    }
    if (sc->coarse_levels > 1) {
        /* two-level SIPD (coarse.h): Newton's assembly of H, g out, the prolonged direction */
        size_t n3 = (size_t)m->nv * 3 * sizeof(double);
        if (!ops->hessian || !ops->set_direction || !bp->hessian) {
            sipd_error("solver.coarse: the %s backend has no Hessian assembly (hessian, set_direction)", ops->name);
            sim_free(s);
            return SIPD_EFAIL;
        }
        if (!s->newton) {
            s->ng = sipd_malloc(n3);
            s->ndy = sipd_malloc(n3);
            if (!s->ng || !s->ndy || kinds_pattern(&s->H, m) != SIPD_OK) {
                sim_free(s);
                return SIPD_EFAIL;
            }
        }
        s->coarse = sipd_calloc(1, sizeof *s->coarse);
        if (!s->coarse || coarse_build(s->coarse, m, &s->H, sc->coarse_size) != SIPD_OK) {
            sipd_error("solver.coarse: could not build the coarse level (out of memory, or no free vertex)");
            free(s->coarse);
            s->coarse = NULL;
            sim_free(s);
            return SIPD_EFAIL;
        }
    }
    if (sc->fields & (1u << SIPD_FIELD_CONTACT_FORCE)) {   /* output.fields: read after every step */
        if (!ops->contact_force || !bp->contact_force) {
            sipd_error("output.fields \"contact_force\": the %s backend does not provide contact forces", ops->name);
            sim_free(s);
            return SIPD_EFAIL;
        }
        if (!(s->fc = sipd_calloc((size_t)m->nv * 3 + 1, sizeof(double)))) {
            sim_free(s);
            return SIPD_EFAIL;
        }
    }
    rc = ops->create(&s->b, m, bp);
    if (rc != SIPD_OK) {
        sim_free(s);
        return rc;
    }
    return ops->upload(s->b, m->X0, m->V0);
}

void sim_free(sipd_sim *s)
{
    if (s->b)
        s->ops->destroy(s->b);
    free(s->fc);
    free(s->hres);
    free(s->hE);
    free(s->halpha);
    free(s->hforce);
    free(s->hwall);
    free(s->hdisp);
    bsr_free(&s->H);
    free(s->ng);
    free(s->ndy);
    free(s->nrhs);
    free(s->nPinv);
    free(s->nwork);
    direct_free(&s->nchol);
    mixed_free(s->mx);
    free(s->my);
    free(s->s_start);
    if (s->coarse) {
        coarse_free(s->coarse);
        free(s->coarse);
    }
    memset(s, 0, sizeof *s);
}

static void log_iter(sipd_sim *s, double r, double rdisp, double E, double alpha, double force)
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

/* Energy comparisons with a round-off allowance: near convergence the energies of one step
 * differ by less than the round-off of their evaluation, and a rise within it is no rise (a
 * Newton solve restored a snapshot on one and lost 7 good iterations; a stiff quasi-static
 * Chebyshev solve cycled between two restored windows at a relative residual of 5.7e-4).  The
 * allowance is ENERGY_RTOL of the energy's magnitude plus E_noise = ENERGY_NOISE ε √Σ_e ((μ+λ)V_e)²,
 * the round-off of the elastic energy sum (each element's Ψ carries terms of size (μ+λ)V, and
 * the elements round independently; ε is the backend's: with Σ instead, float32 runs accepted
 * real rises 300× the energy's evaluation error). */
static int energy_rose(const sipd_sim *s, double En, double Eref)
{
    return En > Eref + s->e_noise + ENERGY_RTOL * (fabs(Eref) > fabs(En) ? fabs(Eref) : fabs(En));
}

/* The scale of the state's round-off: max |coordinate| of x plus the model size. */
static void note_extent(sipd_sim *s, const double *x)
{
    double mx = 0;
    int i;
    for (i = 0; i < 3 * s->m->nv; i++)
        if (fabs(x[i]) > mx)
            mx = fabs(x[i]);
    s->x_extent = mx + s->m->bbox_diag;
}

/* Stall rule (docs/convergence.md): a solve is at its round-off floor when its updates are
 * below STALL_DISP of the model size (max|D⁻¹g| / bbox diagonal: far below any displacement
 * that matters, far above double round-off) and the best relative residual has not dropped by
 * STALL_DROP within max(stall_min, it_ref) iterations of its last such drop (at it_ref).  It
 * then stops after at most about twice the iterations that reached the floor.  Progress alone
 * does not decide: a local method far from the solution can go 1000 iterations without a 10%
 * drop of its force residual (an adaptive Chebyshev ρ that is too low; a quasi-static beam whose
 * tip does not feel the clamp yet) and still converge when given the iterations. */
typedef struct {
    double ref;
    int it_ref, min;   /* min: the method's stall_min (method.h) */
} stall_track;

/* Returns 1 at the floor, 2 at the state's own round-off (below), 0 otherwise. */
static int stall_check(const sipd_sim *s, stall_track *t, double r, double rdisp, int it)
{
    if (r < STALL_DROP * t->ref) {
        t->ref = r;
        t->it_ref = it;
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

static double rho_from(const sipd_sim *s)
{
    double rho;
    if (s->sc->chebyshev_rho > 0)
        return s->sc->chebyshev_rho;
    if (!(s->lam_min < 1))
        return 0;
    rho = 1 - s->lam_min;
    return rho > RHO_MAX ? RHO_MAX : rho;
}

/* "auto" line search: full steps run unchecked in windows of AUTO_WINDOW iterations.
 * window_open snapshots y when no window is open; window_close counts a step and, at the end
 * of the window (or when forced), evaluates E once: if it rose, the snapshot is restored and
 * 1 returned.  *E is NaN inside a window (not evaluated). */
static int window_open(sipd_sim *s, int window, double E, double *E_snap)
{
    if (window == 0) {
        *E_snap = E;
        return BK0(s, snapshot);
    }
    return SIPD_OK;
}

/* Contact pairs: is a narrow phase due at this iteration (docs/design.md §3.6; the first one is
 * part of begin_step)? */
static int detect_due(sipd_sim *s, int it, int *due)
{
    *due = 0;
    if (s->pairs && it > 0)
        return BK(s, detect, 0, due);
    return SIPD_OK;
}

static int window_close(sipd_sim *s, int *window, int force, double E_snap, double *E, int *rose)
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

/* Take a new estimate of min spec(D⁻¹H); when `adapt`, move ρ once 1 − ρ has shrunk by more
 * than 20% and return 1 (the caller restarts the Chebyshev recurrence). */
static int lower_lambda(sipd_sim *s, double lam, int adapt, double *rho)
{
    double old = 1 - *rho;
    if (!(lam > 1e-9 && lam < s->lam_min))
        return 0;
    s->lam_min = lam;
    if (adapt && 1 - rho_from(s) < 0.8 * old) {
        *rho = rho_from(s);
        return 1;
    }
    return 0;
}

/* Backtracking line search along dy from energy E; *alpha = α (0 when none decreases E). */
static int line_search(sipd_sim *s, double E, double gdy, double *E_new, int *halvings, double *alpha_out)
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
static int set_fref(sipd_sim *s, double g0)
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

/* Newton's direction (method.h: SIPD_DIRECTION_NEWTON_CG): after the backend's direction pass
 * at y (g, element Hessians), the backend assembles H at y, and H dy = −g is solved here by
 * block-Jacobi preconditioned CG from dy = 0 (sparse.h); rmax and g·dy are measured on it. */
static int newton_direction(sipd_sim *s, sipd_dir_stats *st)
{
    const int nv = s->m->nv, n = 3 * nv;
    sipd_bsr_extra extra = {NULL, NULL, NULL};
    double rmax = 0, gdy = 0;
    int a, rc, maxit = CG_MAX_FACTOR * n > 200 ? CG_MAX_FACTOR * n : 200;
    if ((rc = BK(s, hessian, &s->H, s->ng, &extra)) != SIPD_OK)         /* H at y, g */
        return rc;
    for (a = 0; a < n; a++) s->nrhs[a] = -s->ng[a];
    if (s->sc->linear == SIPD_LINEAR_CHOLMOD) {   /* contact pairs join the pattern (sparse.h) */
        if ((rc = direct_solve(&s->nchol, &s->H, &extra, s->nrhs, s->ndy)) == SIPD_ESIGNAL)
            return rc;   /* a stop request: the factorisation is abandoned (sparse.c) */
        if (rc != SIPD_OK) {
            snprintf(s->why, sizeof s->why, "CHOLMOD could not analyse or factorise Newton's matrix (not positive "
                     "definite, or out of memory)");
            return SIPD_EFAIL;
        }
        st->cg_iters = 0;
    } else {
        bsr_block_jacobi(&s->H, s->nPinv);
        st->cg_iters = pcg(&s->H, &extra, s->nPinv, s->nrhs, s->ndy, maxit, s->sc->cg_tolerance, s->nwork);
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
    st->rmax = sqrt(rmax);
    st->gdy = gdy;
    return SIPD_OK;
}

/* Two-level SIPD (solver.coarse, coarse.h; docs/two-level.md): right after a direction
 * pass at y, the coarse correction dy = P e, Pᵀ H P e = −Pᵀ g (H: Newton's PSD-projected
 * assembly at y), replaces the pass's direction and is line-searched on the energy from α = 1
 * (Armijo, halving; E evaluated first when unknown).  *alpha = the step taken (0: none: the
 * coarse matrix was not positive definite, the direction was no descent, or no α decreased E;
 * y is then unchanged).  *gs = Σ g·(y_new − y). */
static int coarse_correction(sipd_sim *s, int refresh, double *E, int *halvings, double *alpha, double *gs)
{
    sipd_bsr_extra extra = {NULL, NULL, NULL};
    double gdy = 0, En = NAN;
    int a, rc, n = 3 * s->m->nv;
    *alpha = 0;
    if (isnan(*E) && (rc = BK(s, energy, 0, E)) != SIPD_OK)
        return rc;
    if (refresh || !s->ops->gradient) {   /* a new coarse operator: H at y (and g) */
        if ((rc = BK(s, hessian, &s->H, s->ng, &extra)) != SIPD_OK)
            return rc;
        if ((rc = coarse_factor(s->coarse, &s->H)) != SIPD_OK)
            return rc == SIPD_ESIGNAL ? rc : SIPD_OK;   /* not factored: no correction */
    } else if ((rc = BK(s, gradient, s->ng)) != SIPD_OK) {
        return rc;
    }
    if ((rc = coarse_apply(s->coarse, s->ng, s->ndy)) != SIPD_OK)
        return rc == SIPD_ESIGNAL ? rc : SIPD_OK;
    for (a = 0; a < n; a++) gdy += s->ng[a] * s->ndy[a];
    if (!(gdy < 0))
        return SIPD_OK;
    if ((rc = BK(s, set_direction, s->ndy)) != SIPD_OK ||
        (rc = line_search(s, *E, gdy, &En, halvings, alpha)) != SIPD_OK)
        return rc;
    if (*alpha > 0) {
        if ((rc = BK(s, apply, *alpha, 1, gs)) != SIPD_OK)
            return rc;
        *E = En;
    }
    return SIPD_OK;
}

/* One direction pass: g, D and dy = −D⁻¹g (the backend's), or Newton's. */
static int direction(sipd_sim *s, sipd_dir_stats *st)
{
    int rc = BK(s, direction, st);
    if (rc != SIPD_OK || !s->newton)
        return rc;
    return newton_direction(s, st);
}

/* The measures of a direction pass: relative force residual (max|g| / f_ref) and the
 * displacement residual (max|D⁻¹g| / bbox diagonal, kept in the log). */
static double rel_force(const sipd_sim *s, double gmax) { return gmax / s->f_ref; }

/* Re-measure the final iterate when the last pass measured an earlier one (an update or a
 * restore came after it): the solve's reported residual is that of the state it returns. */
static int measure_final(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last)
{
    int rc;
    memset(last, 0, sizeof *last);
    if ((rc = direction(s, last)) != SIPD_OK)
        return rc;
    res->residual = rel_force(s, last->gmax);
    res->residual_disp = last->rmax / s->m->bbox_diag;
    return SIPD_OK;
}

static int solve_jacobi(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last)
{
    const sipd_scene *sc = s->sc;
    const double diag = s->m->bbox_diag;
    int ls = sc->line_search;
    const int fixed_rho = sc->chebyshev_rho > 0;
    const int cheb = sim_chebyshev(sc);
    double E = NAN, E_snap = NAN, gs_prev = 0, omega = 1, rho = cheb ? rho_from(s) : 0;
    int it, k = 0, rq_valid = 0, trust = 0, window = 0, force_plain = 0, pairs_seen = 0, force_detect = 0;
    int warmup = (cheb && !fixed_rho && rho == 0) ? CHEB_WARMUP : 0, measured = 0, rc;
    int coarse_next = 0, coarse_n = 0;   /* two-level SIPD: the iteration of the next coarse
                                            correction, corrections so far in this step */
    stall_track stall = {INFINITY, 0, method_info(sc->method)->stall_min};
    int stalled;

    if (ls != SIPD_LS_NEVER && (rc = BK(s, energy, 0, &E)) != SIPD_OK)
        return rc;
    for (it = 0; it < sc->iterations; it++) {
        sipd_dir_stats st;
        double r, rd, alpha = 1;
        int fresh = it == 0, due = 0, rose;   /* fresh: pairs detected at this iterate (begin_step: at it 0) */
        if (sipd_stopping())   /* a stop request (util.h): sim_step abandons the step */
            return SIPD_ESIGNAL;
        if (!force_detect && (rc = detect_due(s, it, &due)) != SIPD_OK)   /* (not asked when forced) */
            return rc;
        if (force_detect || due) {
            /* new contact pairs change the energy: close an open window first (with the old
               pairs), then re-evaluate E with the new ones */
            int changed = 0;
            if (window != 0 && ls == SIPD_LS_AUTO) {
                if ((rc = window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK)
                    return rc;
                res->restarts += rose;
            }
            if ((rc = BK(s, detect, 1, &changed)) != SIPD_OK)
                return rc;
            if (changed && ls != SIPD_LS_NEVER && (rc = BK(s, energy, 0, &E)) != SIPD_OK)
                return rc;
            pairs_seen |= changed;
            fresh = 1;
            force_detect = 0;
        }
        memset(&st, 0, sizeof st);   /* fields a backend does not provide read as 0 */
        if ((rc = direction(s, &st)) != SIPD_OK)                  /* g, D, dy = −D⁻¹g     */
            return rc;
        *last = st;
        measured = 1;
        if (it == 0) {   /* the step's force scale */
            if ((rc = set_fref(s, st.gmax)) != SIPD_OK)
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
        if ((st.d_den > 0 && lower_lambda(s, st.d_num / st.d_den, cheb && !fixed_rho, &rho)) |
            (rq_valid && st.sDs > 0 && lower_lambda(s, (st.gs - gs_prev) / st.sDs, cheb && !fixed_rho, &rho)))
            k = 0;
        if (r < sc->tolerance && s->pairs && !fresh) {
            /* converged with pairs (β, n) frozen at an earlier iterate: detect at this one and
               check again, so that the result does not depend on when detection last ran */
            force_detect = 1;
            log_iter(s, r, rd, E, 0, st.gmax);
            continue;
        }
        if (r < sc->tolerance) {                                  /* converged            */
            /* inside an "auto" window the energy is unchecked: close it first; if it rose,
               the snapshot is restored and the solve goes on from there (it was not
               converged: a drop.cfg solve reported 4e-5 against a 1e-5 tolerance) */
            if (window != 0 && ls == SIPD_LS_AUTO &&
                ((rc = window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK || rose)) {
                if (rc != SIPD_OK)
                    return rc;
                res->restarts++;
                k = 0;
                force_plain = 1;
                rq_valid = 0;
                trust = 0;
                log_iter(s, r, rd, E, 0, st.gmax);
                continue;
            }
            res->converged = 1;
            log_iter(s, r, rd, E, 0, st.gmax);
            break;
        }
        if ((stalled = stall_check(s, &stall, r, rd, it)) || (ls != SIPD_LS_NEVER && !(st.gdy < 0))) {
            if (s->pairs && !fresh) {
                force_detect = 1;   /* stalled on pairs frozen earlier: detect here, try again */
                stall.it_ref = it;
                log_iter(s, r, rd, E, 0, st.gmax);
                continue;
            }
            res->stalled = 1;                                     /* no progress: stop    */
            res->at_roundoff = stalled == 2;
            log_iter(s, r, rd, E, 0, st.gmax);
            break;
        }
        if (s->coarse && it >= coarse_next) {
            /* two-level SIPD: the coarse correction instead of this iteration's smoothing step
               (an open "auto" window is closed first: the correction's line search needs E at
               y; if E rose, the snapshot is back and the correction waits an iteration).  The
               Chebyshev recurrence restarts after it, and its step is no Rayleigh sample. */
            if (window != 0 && ls == SIPD_LS_AUTO) {
                if ((rc = window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK)
                    return rc;
                if (rose) {
                    res->restarts++;
                    k = 0;
                    force_plain = 1;
                    rq_valid = 0;
                    trust = 0;
                    measured = 0;
                    log_iter(s, r, rd, E, 0, st.gmax);
                    continue;
                }
            }
            if ((rc = coarse_correction(s, sc->coarse_refresh > 0 ? coarse_n % sc->coarse_refresh == 0 : coarse_n == 0,
                                        &E, &res->ls_steps, &alpha, &gs_prev)) != SIPD_OK)
                return rc;
            coarse_n++;
            coarse_next = it + sc->coarse_every;
            k = 0;
            rq_valid = 0;
            if (alpha > 0)
                measured = 0;
            log_iter(s, r, rd, E, alpha, st.gmax);
            continue;
        }
        if (cheb && rho > 0 && it >= warmup && !force_plain) {
            /* Chebyshev step, α = 1 */
            omega = k == 0 ? 1 : k == 1 ? 2 / (2 - rho * rho) : 4 / (4 - rho * rho * omega);
            k++;
            if (ls == SIPD_LS_AUTO && (rc = window_open(s, window, E, &E_snap)) != SIPD_OK)
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
                       ((rc = window_close(s, &window, 0, E_snap, &E, &rose)) != SIPD_OK || rose)) {
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
                if ((rc = window_open(s, window, E, &E_snap)) != SIPD_OK ||
                    (rc = BK(s, apply, 1, 1, &gs_prev)) != SIPD_OK ||
                    (rc = window_close(s, &window, 0, E_snap, &E, &rose)) != SIPD_OK)
                    return rc;
                if (rose) {
                    trust = 0;
                    res->restarts++;
                    alpha = 0;
                }
            } else {
                double En = E;
                if ((rc = line_search(s, E, st.gdy, &En, &res->ls_steps, &alpha)) != SIPD_OK)
                    return rc;
                if (alpha == 0 && s->pairs && !fresh) {           /* as above             */
                    force_detect = 1;
                    log_iter(s, r, rd, E, 0, st.gmax);
                    continue;
                }
                if (alpha == 0) {                                 /* round-off floor      */
                    res->stalled = 1;
                    log_iter(s, r, rd, E, 0, st.gmax);
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
        log_iter(s, r, rd, E, alpha, st.gmax);
    }
    if (window != 0 && ls == SIPD_LS_AUTO) {                      /* close an open window */
        int rose;
        if ((rc = window_close(s, &window, 1, E_snap, &E, &rose)) != SIPD_OK)
            return rc;
        res->restarts += rose;
        measured = 0;
    }
    res->energy = E;
    res->rho = cheb ? rho : 0;
    if (!measured)
        return measure_final(s, res, last);
    return SIPD_OK;
}

/* Gauss–Seidel measures the force of each vertex when it is visited (neighbours of earlier
 * colours already moved); that is the sweep's residual.  The step's f_ref and a solve's
 * convergence are measured by a Jacobi direction pass at the iterate itself, so a sweep that
 * looks converged only at visit time goes on. */
static int solve_gauss_seidel(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last)
{
    const sipd_scene *sc = s->sc;
    double E = NAN;
    int it, force_detect = 0, rc, measured;
    stall_track stall = {INFINITY, 0, method_info(sc->method)->stall_min};
    int stalled;
    memset(last, 0, sizeof *last);
    if ((rc = direction(s, last)) != SIPD_OK || (rc = set_fref(s, last->gmax)) != SIPD_OK)
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
        if (!force_detect && (rc = detect_due(s, it, &due)) != SIPD_OK)   /* (not asked when forced) */
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
        log_iter(s, r, res->residual_disp, E, sc->omega, st.gmax);
        if (r < sc->tolerance && s->pairs && !fresh) {
            force_detect = 1;   /* as in solve_jacobi: converge with pairs detected here */
            continue;
        }
        if (r < sc->tolerance) {   /* converged at visit time: check at the iterate itself */
            if ((rc = measure_final(s, res, last)) != SIPD_OK)
                return rc;
            measured = 1;
            if (res->residual < sc->tolerance) {
                res->converged = 1;
                break;
            }
        }
        if ((stalled = stall_check(s, &stall, r, res->residual_disp, it))) {
            if (s->pairs && !fresh) {
                force_detect = 1;
                stall.it_ref = it;
                continue;
            }
            res->stalled = 1;
            res->at_roundoff = stalled == 2;
            break;
        }
    }
    res->energy = E;
    if (!measured)
        return measure_final(s, res, last);
    return SIPD_OK;
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
    double L = NAN;
    int it, rc, measured = 0, force_detect = 0, stalled;
    stall_track stall = {INFINITY, 0, method_info(sc->method)->stall_min};
    mixed_begin_step(s->mx);   /* λ = 0; s carries over */
    for (it = 0; it < sc->iterations; it++) {
        sipd_dir_stats st;
        sipd_bsr_extra extra = {NULL, NULL, NULL};
        double r, rd, alpha = 1, dmax = 0, L0, Lt = NAN, Eb;
        int fresh = it == 0, due = 0, k, a, cg = 0;
        if (sipd_stopping())   /* a stop request (util.h): sim_step abandons the step */
            return SIPD_ESIGNAL;
        if (!force_detect && (rc = detect_due(s, it, &due)) != SIPD_OK)
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
            if ((rc = set_fref(s, st.gmax)) != SIPD_OK)
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
        if ((rc = BK(s, mixed_terms, &s->H, s->ng, s->my, &extra)) != SIPD_OK)   /* M/h², contact */
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
            log_iter(s, r, rd, L, 0, st.gmax);
            continue;
        }
        if (r < sc->tolerance) {                                           /* converged    */
            res->converged = 1;
            log_iter(s, r, rd, L, 0, st.gmax);
            break;
        }
        if ((stalled = stall_check(s, &stall, r, rd, it))) {
            if (s->pairs && !fresh) {
                force_detect = 1;
                stall.it_ref = it;
                log_iter(s, r, rd, L, 0, st.gmax);
                continue;
            }
            res->stalled = 1;
            res->at_roundoff = stalled == 2;
            log_iter(s, r, rd, L, 0, st.gmax);
            break;
        }
        /* backtracking on L with the new λ */
        if ((rc = BK(s, set_direction, s->ndy)) != SIPD_OK || (rc = BK(s, mixed_energy, 0, &Eb)) != SIPD_OK)
            return rc;
        L0 = Eb + mixed_lagrangian(s->mx, 0);
        for (k = 0; k < MAX_HALVINGS; k++) {
            if ((rc = BK(s, mixed_energy, alpha, &Eb)) != SIPD_OK)
                return rc;
            Lt = Eb + mixed_lagrangian(s->mx, alpha);
            if (!energy_rose(s, Lt, L0))
                break;
            alpha *= 0.5;
            res->ls_steps++;
        }
        if (k == MAX_HALVINGS) {                                           /* no decrease  */
            if (s->pairs && !fresh) {
                force_detect = 1;
                log_iter(s, r, rd, L, 0, st.gmax);
                continue;
            }
            res->stalled = 1;
            log_iter(s, r, rd, L, 0, st.gmax);
            break;
        }
        if ((rc = BK(s, apply, alpha, 1, NULL)) != SIPD_OK)                /* x, s += αΔ   */
            return rc;
        mixed_accept(s->mx, alpha);
        measured = 0;
        L = Lt;
        log_iter(s, r, rd, L, alpha, st.gmax);
    }
    res->energy = L;
    if (!measured)
        return measure_final(s, res, last);
    return SIPD_OK;
}

const char *sim_status_name(int status)
{
    static const char *const names[] = {"converged", "at-cap", "stalled", "diverged"};
    return status >= 0 && status < 4 ? names[status] : "?";
}

int sim_step(sipd_sim *s, double h, sipd_solve_result *res)
{
    double t0 = sipd_now(), lam0 = s->lam_min;
    sipd_dir_stats last;
    int rc;
    memset(res, 0, sizeof *res);
    s->nhist = 0;
    s->t_solve = t0;
    s->why[0] = '\0';
    if (s->mx)   /* the step's start, for a stop request inside it (below) */
        memcpy(s->s_start, mixed_stretch(s->mx), (size_t)mixed_stretch_count(s->mx) * sizeof(double));
    /* ỹ = x + h v + h² g, Dirichlet vertices at their end-of-step positions */
    rc = BK(s, begin_step, s->t + h, h, s->sc->gravity, s->sc->quasistatic);
    /* y⁺ = argmin E(y) */
    if (rc == SIPD_OK)
        rc = s->mx                                 ? solve_mixed(s, res, &last)
             : sim_sweep(s->sc) == SIPD_SWEEP_GS ? solve_gauss_seidel(s, res, &last)
                                                   : solve_jacobi(s, res, &last);
    if (rc == SIPD_ESIGNAL) {
        /* a stop request inside the step: the state is put back to the step's start — the
           backend's x, v and s->t have not changed yet (end_step has not run), the Chebyshev
           estimate and mixed-fem's stretches are restored — so that a checkpoint now holds
           exactly what a resume needs to redo the step */
        s->lam_min = lam0;
        if (s->mx)
            memcpy(mixed_stretch(s->mx), s->s_start, (size_t)mixed_stretch_count(s->mx) * sizeof(double));
        return rc;
    }
    if (rc != SIPD_OK)
        return rc;
    if (!isfinite(res->residual)) {
        snprintf(s->why, sizeof s->why, "non-finite residual at the final iterate");
        return SIPD_EDIVERGE;
    }
    if (s->f_start == 0)
        s->f_start = s->f_ref;   /* the force scale the run started from */
    if (s->f_ref > F_DIVERGE * (s->f_model > s->f_start ? s->f_model : s->f_start)) {
        /* forces a million times E_max L̄² (strains of a million) and a million times those
           of the first step: no start has them, a trajectory that gains energy every step
           does (docs/convergence.md) */
        snprintf(s->why, sizeof s->why,
                 "the step's force residual %.3g N exceeds 1e6 times both E_max L^2 = %.3g N and the first step's "
                 "%.3g N (the trajectory gains energy every step: raise solver.iterations or substeps)",
                 s->f_ref, s->f_model, s->f_start);
        return SIPD_EDIVERGE;
    }
    /* how it ended (driver.h) */
    res->force_ref = s->f_ref;
    if (res->converged && !(res->residual < s->sc->tolerance))
        res->converged = 0;   /* never report a state as converged that does not meet the tolerance */
    res->status = res->converged ? SIPD_SOLVE_CONVERGED
                  : res->residual > DIVERGE_R * (s->r_first > 1 ? s->r_first : 1) ? SIPD_SOLVE_DIVERGED
                  : res->stalled    ? SIPD_SOLVE_STALLED
                                    : SIPD_SOLVE_AT_CAP;
    res->converged = res->status == SIPD_SOLVE_CONVERGED;
    res->stalled = res->status == SIPD_SOLVE_STALLED;
    /* momentum balance: at y⁺, Σ_free g = Δp/h − (gravity + pins + ground + obstacles), the
       elastic and pair forces among free vertices cancelling (docs/convergence.md) */
    res->momentum_error = NAN;
    if (last.have_gsum) {
        double gs = sqrt(last.gsum[0] * last.gsum[0] + last.gsum[1] * last.gsum[1] + last.gsum[2] * last.gsum[2]);
        res->momentum_error = (s->sc->quasistatic ? 1 : h) * gs;
        res->momentum_flag = gs > s->sc->tolerance * s->f_ref * (s->nfree > 0 ? s->nfree : 1);
    }
    /* the contact forces at y⁺ (output.fields), before end_step moves the friction's reference */
    if (s->fc && (rc = BK(s, contact_force, s->fc)) != SIPD_OK)
        return rc;
    /* v = (y⁺ − x)/h, x = y⁺ */
    rc = BK0(s, end_step);
    s->t += h;
    res->wall = sipd_now() - t0;
    return rc;
}

static void progress(const sipd_sim *s, int frame, int frames, double elapsed, long iters, int steps,
                     double res, int last)
{
    static double last_print = -1;
    double eta;
    if (sipd_quiet || (!last && elapsed - last_print < 1.0 && last_print >= 0))
        return;
    last_print = elapsed;
    eta = frame > 0 ? elapsed / frame * (frames - frame) : 0;
    fprintf(stderr, "sipd-run: frame %d/%d  t=%.4g s  iters/step %.1f  residual %.2e  elapsed %.1f s  ETA %.1f s\n",
            frame, frames, s->t, steps ? (double)iters / steps : 0.0, res, elapsed, eta);
}

/* The state a frame or checkpoint stores must be finite and within the float32 range of the
 * output (|x|, |v| <= DRIVER_MAX_STATE): otherwise the run has diverged, whatever the solver's
 * residual says (a huge uniform acceleration leaves it small).  `step` counts the steps of
 * `frame` done; the message names the last of them (0-based, as every "frame F, step S"). */
#define DRIVER_MAX_STATE 1e30

static int check_state(const sipd_sim *s, const double *x, const double *v, int frame, int step)
{
    const long n = (long)s->m->nv * 3;
    for (long i = 0; i < n; i++)
        if (!(fabs(x[i]) <= DRIVER_MAX_STATE) || !(fabs(v[i]) <= DRIVER_MAX_STATE)) {
            int pos = !(fabs(x[i]) <= DRIVER_MAX_STATE);
            sipd_error("diverged at frame %d, step %d: vertex %ld %s %c = %g (beyond %g, or not finite); the "
                       "frames written so far are kept (time step too large, or gravity or velocity too large?)",
                       frame, step - 1, i / 3 + 1, pos ? "position" : "velocity", "xyz"[i % 3], pos ? x[i] : v[i],
                       DRIVER_MAX_STATE);
            return SIPD_EDIVERGE;
        }
    return SIPD_OK;
}

/* Write the restart state after `frame` and `substep` steps of the next frame, consistent with
 * the (flushed) output file. */
static int write_checkpoint(sipd_sim *s, const sipd_run_opts *o, int frame, int substep, double *x, double *v)
{
    sipd_checkpoint c;
    int rc;
    memset(&c, 0, sizeof c);
    rc = BK(s, download, x, v);
    if (rc == SIPD_OK)
        rc = check_state(s, x, v, substep ? frame + 1 : frame, substep ? substep : s->sc->substeps);
    if (rc != SIPD_OK)
        return rc;
    c.nv = s->m->nv;
    c.frame = frame;
    c.substep = substep;
    if (o->out) {   /* rows of frames not written (output.every > 1) go in before the counts */
        rc = h5out_flush(o->out);
        if (rc != SIPD_OK)
            return rc;
        h5out_counts(o->out, &c.out_frames, &c.out_solves, &c.out_hist);
    }
    c.t = s->t;
    c.lam_min = s->lam_min;
    c.x_extent = s->x_extent;
    c.f_start = s->f_start;
    c.scene_hash = o->scene_hash;
    c.x = x;
    c.v = v;
    if (s->mx) {   /* mixed-fem's stretches carry across steps */
        c.ns = mixed_stretch_count(s->mx);
        c.s = mixed_stretch(s->mx);
    }
    return checkpoint_write(o->checkpoint, &c);
}

int sim_restore_solver_state(sipd_sim *s, const double *st, long n)
{
    long want = s->mx ? mixed_stretch_count(s->mx) : 0;
    if (n != want)
        return SIPD_EINPUT;
    if (n)
        memcpy(mixed_stretch(s->mx), st, (size_t)n * sizeof(double));
    return SIPD_OK;
}

static sipd_run_tally tally;
static int stopped_substep, stopped_inside;

int driver_stopped_substep(void)
{
    return stopped_substep;
}

int driver_stopped_inside_step(void)
{
    return stopped_inside;
}

void driver_tally(sipd_run_tally *t) { *t = tally; }

/* Count a solve; the first few that did not converge are named on stderr as they happen. */
static void tally_solve(const sipd_sim *s, const sipd_solve_result *r, int frame, int sub)
{
    tally.solves++;
    tally.by_status[r->status]++;
    if (r->momentum_flag)
        tally.momentum_flags++;
    if (r->momentum_error > tally.momentum_max)
        tally.momentum_max = r->momentum_error;
    if (r->status == SIPD_SOLVE_CONVERGED)
        return;
    if (r->status == SIPD_SOLVE_STALLED && r->at_roundoff) {
        tally.at_roundoff++;
        if (r->residual > tally.roundoff_residual)
            tally.roundoff_residual = r->residual;
    }
    if (!(r->residual <= tally.worst_residual)) {
        tally.worst_residual = r->residual;
        tally.worst_frame = frame;
        tally.worst_substep = sub;
    }
    if (tally.solves - tally.by_status[SIPD_SOLVE_CONVERGED] <= 3)
        sipd_info("frame %d step %d: solve %s after %d iterations, relative residual %.3g (tolerance %g)%s", frame,
                  sub, sim_status_name(r->status), r->iterations, r->residual, s->sc->tolerance,
                  tally.solves - tally.by_status[SIPD_SOLVE_CONVERGED] == 3 ? "; further ones are counted" : "");
}

/* Append the frame at positions x, velocities v (and contact forces fc) with its output fields. */
static int write_frame(sipd_sim *s, const sipd_run_opts *o, const double *x, const double *v, const double *fc)
{
    int rc;
    if (!o->fields)
        return h5out_append_frame(o->out, s->t, x);
    rc = fields_compute(o->fields, s->m, x, v, fc);
    if (rc != SIPD_OK) {
        snprintf(s->why, sizeof s->why, "cannot compute the output fields");
        return rc;
    }
    return h5out_append_frame_fields(o->out, s->t, x, (const double *const *)o->fields->val);
}

int driver_run(sipd_sim *s, const sipd_run_opts *o, int *frames_done)
{
    const sipd_scene *sc = s->sc;
    const int nv = s->m->nv;
    double *x = sipd_malloc((size_t)nv * 3 * sizeof(double));
    double *v = sipd_malloc((size_t)nv * 3 * sizeof(double));
    double h = sc->dt / sc->substeps, t_start = sipd_now(), t_ckpt = t_start;
    int frame, rc = SIPD_OK, stop_sub = 0;
    *frames_done = o->start_frame;
    memset(&tally, 0, sizeof tally);
    stopped_substep = stopped_inside = 0;
    if (!x || !v) {
        free(x);
        free(v);
        return SIPD_EFAIL;
    }
    /* frame 0: the initial state (no step yet: contact forces 0; a resume from a stop inside the
       first step has it already) */
    long have_frames = 0, dummy;
    if (o->out)
        h5out_counts(o->out, &have_frames, &dummy, &dummy);
    if (o->out && o->start_frame == 0 && o->start_substep == 0 && have_frames == 0) {
        s->why[0] = '\0';
        rc = BK(s, download, x, v);
        if (rc == SIPD_OK)
            rc = write_frame(s, o, x, v, NULL);
    }
    for (frame = o->start_frame + 1; rc == SIPD_OK && frame <= o->frames; frame++) {
        long iters = 0;
        double last_res = 0;
        int sub;
        /* a run resumed from a checkpoint inside a frame continues that frame */
        for (sub = frame == o->start_frame + 1 ? o->start_substep : 0; sub < sc->substeps; sub++) {
            sipd_solve_result r;
            rc = sim_step(s, h, &r);                              /* one implicit step    */
            if (rc == SIPD_ESIGNAL) {         /* stopped inside the step: redone on resume */
                stop_sub = sub;
                stopped_inside = 1;
                break;
            }
            if (rc == SIPD_EDIVERGE)
                sipd_error("diverged at frame %d, step %d (t = %.6g s): %s; frames 0..%d are kept", frame, sub,
                           s->t + h, s->why, frame - 1);
            if (rc != SIPD_OK)
                break;
            iters += r.iterations;
            last_res = r.residual;
            tally_solve(s, &r, frame, sub);
            if (o->out) {                                        /* convergence log      */
                sipd_h5_solve row;
                row.frame = frame;
                row.substep = sub;
                row.iterations = r.iterations;
                row.residual = r.residual;
                row.energy = r.energy;
                row.line_search_steps = r.ls_steps;
                row.contacts = r.contacts;
                row.max_penetration = r.max_pen;
                row.wall_time = r.wall;
                row.status = r.status;
                row.residual_displacement = r.residual_disp;
                row.force_reference = r.force_ref;
                row.momentum_error = r.momentum_error;
                sipd_h5_history hh;
                hh.residual = s->hres;
                hh.energy = s->hE;
                hh.alpha = s->halpha;
                hh.force = s->hforce;
                hh.wall_time = s->hwall;
                hh.residual_displacement = s->hdisp;
                rc = h5out_append_solve(o->out, &row, s->nhist, &hh);
                if (rc != SIPD_OK)
                    break;
            }
            if (o->stop && *o->stop && sub + 1 < sc->substeps) {   /* signal: stop at this step */
                stop_sub = sub + 1;
                rc = SIPD_ESIGNAL;
                break;
            }
            if (o->checkpoint && o->checkpoint_seconds > 0 && sub + 1 < sc->substeps &&   /* periodic, */
                sipd_now() - t_ckpt >= o->checkpoint_seconds) {   /* inside a long frame too */
                rc = write_checkpoint(s, o, frame - 1, sub + 1, x, v);
                t_ckpt = sipd_now();
                if (rc != SIPD_OK)
                    break;
            }
        }
        if (rc != SIPD_OK)
            break;
        rc = BK(s, download, x, v);                               /* diverged?            */
        if (rc == SIPD_OK)
            rc = check_state(s, x, v, frame, sc->substeps);
        if (rc == SIPD_OK)
            note_extent(s, x);
        if (rc != SIPD_OK)
            break;
        if (o->out && frame % sc->output_every == 0) {            /* write the frame      */
            rc = write_frame(s, o, x, v, s->fc);
            if (rc != SIPD_OK)
                break;
        }
        *frames_done = frame;
        progress(s, frame, o->frames, sipd_now() - t_start, iters, sc->substeps, last_res,
                 frame == o->frames);
        if (o->checkpoint && frame < o->frames && !(o->stop && *o->stop) &&   /* periodic */
            ((o->checkpoint_every > 0 && frame % o->checkpoint_every == 0) ||
             (o->checkpoint_seconds > 0 && sipd_now() - t_ckpt >= o->checkpoint_seconds))) {
            rc = write_checkpoint(s, o, frame, 0, x, v);
            t_ckpt = sipd_now();
            if (rc != SIPD_OK)
                break;
        }
        if (o->stop && *o->stop) {                                /* signal: stop cleanly */
            rc = SIPD_ESIGNAL;
            break;
        }
    }
    /* the final state (completed, or stopped by a signal) is always checkpointed */
    if (o->checkpoint && (rc == SIPD_OK || rc == SIPD_ESIGNAL)) {
        int rc2 = write_checkpoint(s, o, *frames_done, stop_sub, x, v);
        if (rc2 != SIPD_OK)
            rc = rc2;
    }
    if (rc != SIPD_OK && rc != SIPD_ESIGNAL && rc != SIPD_EDIVERGE && s->why[0])   /* a backend call failed */
        sipd_error("%s (frame %d); frames 0..%d are kept", s->why, *frames_done + 1, *frames_done);
    stopped_substep = stop_sub;
    free(x);
    free(v);
    return rc;
}
