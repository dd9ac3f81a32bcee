/* driver.c — frames → substeps → iterations.
 *
 * Reads top to bottom: sim_init (the model's scales, the method's solver family and the
 * backend), sim_step (begin_step, the family's solve, how it ended, end_step), the frame loop of
 * driver_run, its output and checkpoints.  The solvers are rows of the method table (method.h:
 * sipd_solver) in src/solvers/, one file per family, with their design notes; what they share
 * (line search, stall rule, the contact-pair freshness rule) is src/solvers/common.h.  The
 * driver never asks which method runs.
 *
 * Residual: r = max_a |g_a| / f_ref over free vertices (solver_set_fref, docs/convergence.md),
 * measured before the update; the displacement residual max_a |D_a⁻¹ g_a| / bbox diagonal is
 * kept in the log.
 */
#include "driver.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "method.h"
#include "util.h"

#define DIVERGE_R 10.0     /* a solve ending above DIVERGE_R × max(1, its first residual) diverged */
#define F_NOISE 1e-12      /* f_ref ≥ F_NOISE · E_max · L̄² (the model's force scale)     */
#define F_DIVERGE 1e6      /* f_ref > F_DIVERGE · max(E_max L̄², first f_ref): diverged   */

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
    bp->pairs = scene_has_pairs(sc);
    bp->self = sc->self_contact;
    bp->detect_every = sc->detect_every;
    bp->ccd = sc->ccd;
    bp->precond = method_info(sc->method)->precond;   /* method.h */
    /* `assemble` is called: a method whose direction is a global solve, two-level SIPD's coarse level */
    bp->assemble = method_info(sc->method)->direction != SIPD_DIRECTION_LOCAL || scene_coarse_on(sc);
    bp->contact_force = (sc->fields >> SIPD_FIELD_CONTACT_FORCE) & 1u;   /* output.fields */
    bp->profile = 0;                                  /* no phase timing (sipd_profile) */
    bp->adaptive_guess = sc->initial_guess == SIPD_GUESS_ADAPTIVE && !sc->quasistatic;
}

sipd_sweep sim_sweep(const sipd_scene *sc) { return (sipd_sweep)method_sweep(sc); }

int sim_chebyshev(const sipd_scene *sc) { return method_chebyshev(sc); }

static void note_extent(sipd_sim *s, const double *x);

int sim_init(sipd_sim *s, const sipd_scene *sc, const sipd_model *m, const sipd_backend_ops *ops,
             const sipd_backend_params *bp)
{
    int rc;
    memset(s, 0, sizeof *s);
    s->solver = method_solver(sc);   /* the method's solver family (method.h) */
    s->sc = sc;
    s->m = m;
    s->ops = ops;
    s->lam_min = INFINITY;
    s->pairs = bp->pairs && ops->detect;
    s->adaptive_guess = bp->adaptive_guess && ops->guess_history;
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
    /* the method's solver family (method.h): what only it uses */
    if (s->solver->init && (rc = s->solver->init(s)) != SIPD_OK) {
        sim_free(s);
        return rc;
    }
    /* two-level SIPD (solver.coarse, solvers/coarse_correction.c) */
    if (scene_coarse_on(sc) && (rc = coarse_correction_init(s, bp)) != SIPD_OK) {
        sim_free(s);
        return rc;
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
    if (s->solver && s->solver->free)
        s->solver->free(s);
    free(s->fc);
    free(s->hres);
    free(s->hE);
    free(s->halpha);
    free(s->hforce);
    free(s->hwall);
    free(s->hdisp);
    sipd_bsr_free(&s->H);
    free(s->ng);
    free(s->ndy);
    if (s->coarse) {
        coarse_free(s->coarse);
        free(s->coarse);
    }
    memset(s, 0, sizeof *s);
}


int solver_bk_status(sipd_sim *s, int rc, const char *op)
{
    if (rc != SIPD_OK && rc != SIPD_ESIGNAL && !s->why[0])   /* (ESIGNAL: a stop request, no failure) */
        snprintf(s->why, sizeof s->why, "the %s backend's %s failed (status %d)", s->ops->name, op, rc);
    return rc;
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

const char *sim_status_name(int status)
{
    static const char *const names[] = {"converged", "at-cap", "stalled", "diverged"};
    return status >= 0 && status < 4 ? names[status] : "?";
}

/* The solver state carried across steps (method.h, sipd_solver.state): NULL (n = 0) when the
 * method keeps none. */
static double *solver_state(sipd_sim *s, long *n)
{
    *n = 0;
    return s->solver->state ? s->solver->state(s, n) : NULL;
}

int sim_step(sipd_sim *s, double h, sipd_solve_result *res)
{
    double t0 = sipd_now(), lam0 = s->lam_min, *st;
    sipd_dir_stats last;
    long ns;
    int rc;
    memset(res, 0, sizeof *res);
    s->nhist = 0;
    s->t_solve = t0;
    s->why[0] = '\0';
    if ((st = solver_state(s, &ns)) != NULL)   /* the step's start, for a stop request inside it (below) */
        memcpy(s->s_start, st, (size_t)ns * sizeof(double));
    /* ỹ = x + h v + h² g, Dirichlet vertices at their end-of-step positions */
    rc = BK(s, begin_step, s->t + h, h, s->sc->gravity, s->sc->quasistatic);
    /* y⁺ = argmin E(y) */
    if (rc == SIPD_OK)
        rc = s->solver->solve(s, res, &last);   /* the method's solver family (method.h) */
    if (rc == SIPD_ESIGNAL) {
        /* a stop request inside the step: the state is put back to the step's start — the
           backend's x, v and s->t have not changed yet (end_step has not run), the Chebyshev
           estimate and mixed-fem's stretches are restored — so that a checkpoint now holds
           exactly what a resume needs to redo the step */
        s->lam_min = lam0;
        if (st)
            memcpy(st, s->s_start, (size_t)ns * sizeof(double));
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
    /* the smallest contact gap at y⁺ (/convergence/min_gap) */
    res->min_gap = NAN;
    if (s->ops->contact_gap && (rc = BK(s, contact_gap, &res->min_gap)) != SIPD_OK)
        return rc;
    /* the contact forces at y⁺ (output.fields), before end_step moves the friction's reference */
    if (s->fc && (rc = BK(s, contact_force, s->fc)) != SIPD_OK)
        return rc;
    /* v = (y⁺ − x)/h, x = y⁺ */
    rc = BK0(s, end_step);
    /* the adaptive guess learns only from solved steps: an unconverged one's acceleration lacks
       what it did not resolve — a flap lifted at a 40-sweep budget never got its gravity back
       (docs/convergence.md#the-initial-guess) — so after one the next step starts from ỹ */
    if (rc == SIPD_OK && s->adaptive_guess && !res->converged && !res->at_floor)
        rc = BK(s, guess_history, 2, NULL, NULL);
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
    {   /* the solver state that carries across steps (mixed-fem's stretches) */
        long ns;
        double *st = solver_state(s, &ns);
        if (st) {
            c.ns = ns;
            c.s = st;
        }
    }
    {
        double *vp = NULL, *fs = NULL;
        long nf = 0;
        if (s->ops->guess_history && s->adaptive_guess) {   /* the adaptive guess' history */
            int valid = 0;
            vp = sipd_malloc((size_t)s->m->nv * 3 * sizeof(double) + 1);
            if (!vp || BK(s, guess_history, 0, vp, &valid) != SIPD_OK) {
                free(vp);
                return SIPD_EFAIL;
            }
            c.vp = valid ? vp : NULL;
        }
        if (s->ops->friction_state) {   /* the friction anchors (contact.h stick memory) */
            rc = BK(s, friction_state, 0, NULL, &nf);
            if (rc == SIPD_OK && !(fs = sipd_malloc((size_t)nf * sizeof(double) + 1)))
                rc = SIPD_EFAIL;
            if (rc == SIPD_OK)
                rc = BK(s, friction_state, 0, fs, &nf);
            if (rc != SIPD_OK) {
                free(vp);
                free(fs);
                return rc;
            }
            c.nf = nf;
            c.f = fs;
        }
        rc = checkpoint_write(o->checkpoint, &c);
        free(vp);
        free(fs);
        return rc;
    }
}

int sim_resume(sipd_sim *s, const sipd_checkpoint *ck)
{
    int rc = s->ops->upload(s->b, ck->x, ck->v);
    if (rc == SIPD_OK && ck->vp && s->adaptive_guess)   /* the adaptive guess' history (version 5) */
        rc = BK(s, guess_history, 1, ck->vp, NULL);
    if (rc == SIPD_OK && ck->nf > 0 && s->ops->friction_state) {   /* the friction anchors (version 6) */
        long nf = ck->nf;
        rc = BK(s, friction_state, 1, ck->f, &nf);
        if (rc == SIPD_EINPUT)
            sipd_error("checkpoint: its friction anchors do not fit this scene's model");
    }
    if (rc == SIPD_OK)
        rc = sim_restore_solver_state(s, ck->s, ck->ns);
    if (rc == SIPD_OK) {
        s->t = ck->t;
        s->lam_min = ck->lam_min;
        if (ck->x_extent > 0)   /* (a checkpoint before version 4: recomputed, as then) */
            s->x_extent = ck->x_extent;
        s->f_start = ck->f_start;
    }
    return rc;
}

int sim_restore_solver_state(sipd_sim *s, const double *st, long n)
{
    long want;
    double *dst = solver_state(s, &want);
    if (n != want)
        return SIPD_EINPUT;
    if (n)
        memcpy(dst, st, (size_t)n * sizeof(double));
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
    if (sub == s->sc->substeps - 1 && !isnan(r->min_gap) && (isnan(tally.min_gap) || r->min_gap < tally.min_gap)) {
        tally.min_gap = r->min_gap;   /* a written frame's */
        tally.min_gap_frame = frame;
    }
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
    if (r->status == SIPD_SOLVE_STALLED && r->at_floor) {
        tally.at_floor++;
        if (r->residual > tally.floor_residual)
            tally.floor_residual = r->residual;
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
    tally.min_gap = NAN;
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
                row.min_gap = r.min_gap;
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
