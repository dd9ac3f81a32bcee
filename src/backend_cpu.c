/* backend_cpu.c — the CPU backend: OpenMP loops over the shared per-item passes (src/passes.h).
 *
 * Jacobi direction = element pass (per element: gradient on its corners and the
 * preconditioner's data, stored per element) + vertex pass (per vertex: gather over its
 * incidences, solve the 3x3 block); for a model of one tet group under SIPD's split, the fused
 * pass instead (the element terms summed into per-vertex accumulators, chunk colour by chunk
 * colour; docs/benchmarks.md "The fused Jacobi pass").  No atomics; each pass is a parallel
 * loop with reductions.  Gauss–Seidel recomputes the element quantities it needs per vertex,
 * colour by colour, so neighbours are fresh.  The loop bodies are passes.h's, the same the CUDA
 * kernels run, and the direction and sweep loops are cpu_loops.h's, shared with the float32
 * backend (backend_cpu32.c); this file holds allocation, the other loops, the reductions,
 * detection, and the assembly of H and g of a set of terms (backend.h assemble).
 *
 * Profile (backend.h sipd_profile, params.profile): the host clock around each pass, the
 * outermost timed region taking the time; no launches and no device syncs (reported as -1).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "collide.h"
#include "pairs.h"
#include "step_load.h"
#include "passes.h"
#include "cpu_loops.h"
#include "util.h"

/* below this many items a loop runs serially: a parallel region costs more than it saves */
#define PAR_MIN 4096

struct sipd_backend {
    const sipd_model *m;
    int split, precond, quasistatic;
    double h, inv_h2, t_end;
    double gq[3];    /* gravity as a potential (quasi-static only) */
    double *x, *v, *yt, *y, *yp, *dy, *g, *ys, *vp;   /* vp: params.adaptive_guess, else NULL */
    double *y0, *g0; /* first iterate of the step and its gradient (Rayleigh estimate) */
    int first;       /* the next direction is the step's first                          */
    /* the fused SIPD Jacobi pass (cpu_loops.h cpu_fused_setup): a model of one tet group with
       SIPD's split preconditioner sums its element terms straight into per-vertex accumulators
       (fz_acc, 9 per vertex) instead of writing per-tet gradients and K⁺ and gathering them back;
       NULL: the gather */
    double *fz_acc;
    double *egrad;   /* element pass gradients, the groups' one after another (passes.h) */
    double *eblk;    /* SPLIT: K⁺ per element; BLOCK/DIAG: a block per corner          */
    /* the element Hessians for `assemble` (SIPD_PRECOND_HESSIAN: of the last direction pass), of the
       groups of set eH_terms (-1: none allocated); the caller owns the block-CSR matrix */
    double *eH;
    int eH_terms;
    int assemble;    /* params.assemble, or SIPD_PRECOND_HESSIAN: `assemble` is called */
    /* ground contact: plane n·x = ph, penalty kc within dhat; lagged friction (lam_n per
       vertex, frozen at the start of each step), slip threshold eps = eps_v h */
    int contact;
    double pn[3], ph, dhat, kc, mu, eps_v, eps;
    const double *kv;   /* per-vertex automatic k_c (model.h contact_kv), NULL: kc everywhere */
    double *lam_n;
    double *fa;         /* the ground friction's anchors (nv*3, with lam_n; contact.h stick memory) */
    /* pair contact (vertex–face, edge–edge; docs/design.md §3.6): the detector, the current pairs
       (owned by det), their data (pairs.h: k_c, the lagged normal force, the pairs'
       incidences on free vertices as CSR of pair*4 + slot), and their blocks D_z for `assemble` */
    sipd_collide *det;
    const sipd_contact_pair *pr;
    int npr, prD_cap;
    sipd_pair_data pd;
    double *pr_D;
    sipd_pair_coupling pc;     /* the couplings' ctx (`assemble`'s extra term: pairs.h) */
    int detect_every, since;   /* iterations since the last narrow phase                 */
    double load;               /* max|g| at the step's "do nothing" state (step_load)     */
    double *ydet;              /* y at the last narrow phase                             */
    /* contact.ccd (physics/ccd.h): on; a ball or box bound an update since the last narrow
       phase (one is then due); the balls' radii (nv) and boxes (nv*3) about ydet */
    int ccd, ccd_hit, ccd_off;   /* ccd_off: the direction pass is the step load's (no filter) */
    int ccd_gs;                  /* Gauss–Seidel sweeps ran: they need the balls at each narrow phase */
    int ccd_stale;               /* the balls were not measured at their centres (ydet) */
    double *ccd_b, *ccd_lo, *ccd_hi;
    double *ccd_u, *ccd_tmp;     /* nv*3 each: a step being filtered, y + that step        */
    double ccd_tau;              /* the scale the last set_direction applied (ccd_scale op) */
    sipd_view vw;              /* what the passes see (passes.h), kept in step with the above */
    sipd_profile prof;         /* phase times (params.profile)                            */
    int prof_depth;            /* nesting of timed regions: the outermost one counts       */
};

/* A timed region: prof_begin returns its start (< 0: not timed or nested in another region). */
static double prof_begin(sipd_backend *b)
{
    if (!b->prof.timed)
        return -1;
    return b->prof_depth++ == 0 ? sipd_now() : -1;
}

static void prof_end(sipd_backend *b, int phase, double t0)
{
    if (!b->prof.timed)
        return;
    b->prof_depth--;
    if (t0 >= 0)
        b->prof.ms[phase] += 1e3 * (sipd_now() - t0);
}

static inline vec3 yv(const double *y, int i) { return v3_load(y + 3 * i); }

/* Active pairs (gap < d̂) and the deepest penetration at y. */
static void pair_stats(const sipd_backend *b, int *active, double *maxpen)
{
    int p, n = 0;
    double mp = 0;
#pragma omp parallel for schedule(static) reduction(+ : n) reduction(max : mp) if (b->npr > PAR_MIN)
    for (p = 0; p < b->npr; p++) {
        double pen;
        n += pass_pair_stats(&b->vw, p, &pen);
        if (pen > mp)
            mp = pen;
    }
    *active += n;
    if (mp > *maxpen)
        *maxpen = mp;
}

/* The view's pointers to the model and the state (create), and to the pairs (after detection). */
static void view_init(sipd_backend *b)
{
    const sipd_model *m = b->m;
    sipd_view *v = &b->vw;
    size_t off_g = 0, off_b = 0;
    int g;
    memset(v, 0, sizeof *v);
    v->nv = m->nv;
    v->x = b->x; v->v = b->v; v->vp = b->vp; v->yt = b->yt; v->y = b->y; v->yp = b->yp; v->dy = b->dy; v->g = b->g;
    v->ys = b->ys; v->y0 = b->y0; v->g0 = b->g0;
    v->mass = m->mass;
    v->X0 = m->X0;
    v->motions = (const double *)m->motions;   /* sipd_motion: 9 doubles (centre, velocity, ω) */
    v->fixed = m->fixed;
    v->move_of = m->move_of;
    v->ngroups = m->ngroups;
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        sipd_group_view *W = &v->grp[g];
        view_group_init(W, G->kind, G->nc, G->ne);
        W->v = G->v;
        W->rest = G->rest;
        W->vol = G->vol;
        W->mat = G->mat;
        W->grad = b->egrad + off_g;   /* each group's part of the element buffers */
        W->blk = b->eblk + off_b;
        W->hess = NULL;   /* (hess_bind) */
        off_g += (size_t)G->ne * kind_grad_size(G->kind);
        off_b += (size_t)G->ne * kind_block_size(G->kind, b->precond != SIPD_PRECOND_SPLIT);
    }
    v->mats = m->mats;
    v->inc_off = m->inc_off;
    v->inc_elem = m->inc_elem;
    v->inc_group = m->inc_group;
    v->inc_corner = m->inc_corner;
    v->inc_w = m->inc_w;
    v->ground = b->contact;
    for (g = 0; g < 3; g++) v->pn[g] = b->pn[g];
    v->ph = b->ph;
    v->dhat = b->dhat;
    v->kc = b->kc;
    v->kv = b->kv;
    v->mu = b->mu;
    v->lam_n = b->lam_n;
    v->fa = b->fa;
    v->vrad = m->crad;
    v->ccd = b->ccd;
    v->ccd_b = b->ccd_b;
    v->ccd_c = b->ydet;
    v->ccd_lo = b->ccd_lo;
    v->ccd_hi = b->ccd_hi;
}

static void view_pairs(sipd_backend *b)
{
    sipd_view *v = &b->vw;
    v->npr = b->npr;
    v->pr_v = b->pd.v;
    v->pr_beta = b->pd.beta;
    v->pr_n = b->pd.n;
    v->pr_k = b->pd.k;
    v->pr_lam = b->pd.lam;
    v->pr_h = b->pd.h;
    v->pr_o = b->mu > 0 ? b->pd.o : NULL;
    v->pv_off = b->pd.off;
    v->pv_pair = b->pd.pair;
    v->pv_slot = b->pd.slot;
}

static void cpu_destroy(sipd_backend *b)
{
    if (!b)
        return;
    free(b->x); free(b->v); free(b->yt); free(b->y); free(b->yp); free(b->dy); free(b->g);
    free(b->ys); free(b->vp); free(b->egrad); free(b->eblk); free(b->y0); free(b->g0);
    free(b->eH); free(b->lam_n); free(b->fa);
    collide_destroy(b->det);
    pair_data_free(&b->pd); free(b->pr_D); free(b->ydet);
    free(b->ccd_b); free(b->ccd_lo); free(b->ccd_hi); free(b->ccd_u); free(b->ccd_tmp);
    free(b->fz_acc);
    free(b);
}

/* The element Hessians of the groups of set `terms` (sipd_terms): allocated and bound to the
 * view (G->hess) unless those of a set that holds it already are; the other groups' G->hess NULL. */
static int hess_bind(sipd_backend *b, int terms)
{
    const sipd_model *m = b->m;
    size_t n = 0, off = 0;
    int g;
    if (b->eH && (b->eH_terms == SIPD_TERMS_ALL || b->eH_terms == terms))
        return SIPD_OK;
    for (g = 0; g < m->ngroups; g++)
        if (sipd_terms_kind(terms, m->groups[g].kind))
            n += (size_t)m->groups[g].ne * kind_hessian_size(m->groups[g].kind);
    free(b->eH);
    b->eH_terms = -1;
    if (!(b->eH = sipd_malloc((n ? n : 1) * sizeof(double)))) {
        for (g = 0; g < m->ngroups; g++) b->vw.grp[g].hess = NULL;
        return SIPD_EFAIL;
    }
    for (g = 0; g < m->ngroups; g++) {
        int in = sipd_terms_kind(terms, m->groups[g].kind);
        b->vw.grp[g].hess = in ? b->eH + off : NULL;
        if (in)
            off += (size_t)m->groups[g].ne * kind_hessian_size(m->groups[g].kind);
    }
    b->eH_terms = terms;
    return SIPD_OK;
}

static int cpu_create(sipd_backend **out, const sipd_model *m, const sipd_backend_params *p)
{
    sipd_backend *b = sipd_calloc(1, sizeof *b);
    size_t n3 = (size_t)m->nv * 3 * sizeof(double);
    size_t ngrad = 0, nblk = 0;
    int g;
    if (!b)
        return SIPD_EFAIL;
    b->m = m;
    b->split = p->split;
    b->precond = p->precond;
    b->assemble = p->assemble || p->precond == SIPD_PRECOND_HESSIAN;
    b->eH_terms = -1;
    b->prof.timed = p->profile != 0;
    b->contact = p->contact;
    b->dhat = p->dhat;
    /* contact.stiffness, else the bodies' own (one scalar when they all agree; model.c) */
    b->kc = pair_contact_k(m, p->kc, &b->kv);
    b->mu = p->mu;
    b->eps_v = p->eps_v;
    if (p->contact) {
        int k;
        for (k = 0; k < 3; k++) b->pn[k] = p->plane_n[k];
        b->ph = p->plane_h;
        if (b->mu > 0 && (!(b->lam_n = sipd_calloc((size_t)m->nv, sizeof(double))) ||
                          !(b->fa = sipd_calloc((size_t)m->nv * 3, sizeof(double))))) {
            cpu_destroy(b);
            return SIPD_EFAIL;
        }
    }
    b->detect_every = pair_detect_every(p->detect_every);
    if (p->pairs && (collide_create(&b->det, m, p->self, SIPD_DETECT_FACTOR * p->dhat) != SIPD_OK ||
                     pair_data_init(&b->pd, m->nv) != SIPD_OK ||
                     !(b->ydet = sipd_malloc((size_t)m->nv * 3 * sizeof(double))))) {
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
    b->ccd = p->ccd && (p->contact || p->pairs);
    b->ccd_tau = 1;
    if (b->ccd && (!(b->ccd_u = sipd_malloc(n3)) || !(b->ccd_tmp = sipd_malloc(n3)))) {
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
    if (b->ccd && b->det &&
        (!(b->ccd_b = sipd_malloc((size_t)m->nv * sizeof(double))) ||
         !(b->ccd_lo = sipd_malloc((size_t)m->nv * 3 * sizeof(double))) ||
         !(b->ccd_hi = sipd_malloc((size_t)m->nv * 3 * sizeof(double))))) {
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
#ifdef _OPENMP
    if (p->threads > 0)
        omp_set_num_threads(p->threads);
#endif
    b->x = sipd_calloc(1, n3); b->v = sipd_calloc(1, n3); b->yt = sipd_calloc(1, n3);
    b->y = sipd_calloc(1, n3); b->yp = sipd_calloc(1, n3); b->dy = sipd_calloc(1, n3);
    b->g = sipd_calloc(1, n3); b->ys = sipd_calloc(1, n3);
    b->y0 = sipd_calloc(1, n3); b->g0 = sipd_calloc(1, n3);
    if (p->adaptive_guess && !(b->vp = sipd_calloc(1, n3))) {
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
    for (g = 0; g < m->ngroups; g++) {   /* the element buffers: every group's, one after another */
        ngrad += (size_t)m->groups[g].ne * kind_grad_size(m->groups[g].kind);
        nblk += (size_t)m->groups[g].ne * kind_block_size(m->groups[g].kind, p->precond != SIPD_PRECOND_SPLIT);
    }
    b->egrad = sipd_malloc((ngrad ? ngrad : 1) * sizeof(double));
    b->eblk = sipd_malloc((nblk ? nblk : 1) * sizeof(double));
    if (!b->x || !b->v || !b->yt || !b->y || !b->yp || !b->dy || !b->g || !b->ys || !b->y0 || !b->g0 || !b->egrad || !b->eblk) {
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
    view_init(b);
    if (cpu_fused_setup(m, p->precond, &b->fz_acc) != SIPD_OK) {   /* cpu_loops.h */
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
    /* (a SIPD_PRECOND_HESSIAN direction pass stores every element's Hessian; else `assemble`
       binds them) */
    if (p->precond == SIPD_PRECOND_HESSIAN && hess_bind(b, SIPD_TERMS_ALL) != SIPD_OK) {
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
    *out = b;
    return SIPD_OK;
}

static int cpu_upload(sipd_backend *b, const double *x, const double *v)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(double);
    double t0 = prof_begin(b);
    memcpy(b->x, x, n3);
    memcpy(b->v, v, n3);
    memcpy(b->y, x, n3);
    memcpy(b->yp, x, n3);
    b->vw.vp_hist = 0;   /* no history: the next step starts from ỹ */
    if (b->fa)           /* no friction anchors: a fresh start (a resume sets them: friction_state) */
        memset(b->fa, 0, n3);
    if (b->det)
        pair_anchor_clear(&b->pd);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

/* backend.h guess_history */
static int cpu_guess_history(sipd_backend *b, int set, double *vp, int *valid)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(double);
    if (!b->vp) {
        sipd_error("cpu backend: guess_history: the adaptive initial guess was not requested at create");
        return SIPD_EFAIL;
    }
    if (set) {
        if (set == 1)
            memcpy(b->vp, vp, n3);
        b->vw.vp_hist = set == 1;
        return SIPD_OK;
    }
    *valid = b->vw.vp_hist;
    if (b->vw.vp_hist)
        memcpy(vp, b->vp, n3);
    return SIPD_OK;
}

/* run = 0: is a narrow phase due?  run = 1: run it (backend.h). */
static int cpu_detect(sipd_backend *b, int run, int *flag)
{
    const sipd_model *m = b->m;
    int before = b->npr, rc;
    double t0;
    *flag = 0;
    if (!b->det)
        return SIPD_OK;
    if (!run) {
        double mv = 0;
        int a;
        if (pair_detect_count(&b->since, b->detect_every) || b->ccd_hit) {
            *flag = 1;
            return SIPD_OK;
        }
        t0 = prof_begin(b);
#pragma omp parallel for schedule(static) reduction(max : mv) if (m->nv > PAR_MIN)
        for (a = 0; a < m->nv; a++) {
            double d2 = v3_norm2(v3_sub(yv(b->y, a), yv(b->ydet, a)));
            mv = d2 > mv ? d2 : mv;
        }
        prof_end(b, SIPD_PHASE_NARROW, t0);
        *flag = pair_detect_moved(mv, b->dhat);
        return SIPD_OK;
    }
    /* the broad-phase boxes cover every vertex's path from x0 to the initial guess, with a
       margin of d̂; an iterate that left them gets a fresh broad phase */
    t0 = prof_begin(b);   /* (SIPD_ESIGNAL from either phase: a stop request, the step is abandoned) */
    /* (contact.ccd keeps each vertex within CCD_BOX_PAD d̂ of its box: a new broad phase before
       it reaches that side) */
    rc = (b->ccd ? collide_outside_by(b->det, b->y, 0.5 * CCD_BOX_PAD * b->dhat) : collide_outside(b->det, b->y))
             ? collide_broad(b->det, b->x, b->y, b->dhat)
             : SIPD_OK;
    prof_end(b, SIPD_PHASE_BROAD, t0);
    if (rc == SIPD_OK) {
        t0 = prof_begin(b);
        /* (the normals are oriented by the side at the step start, so that a pair that crossed
           during the step has a negative gap; with contact.ccd no pair crosses, and a vertex
           that went round a face's edge must not be pushed back through it: the side at y) */
        rc = collide_narrow(b->det, b->ccd ? b->y : b->x, b->y, &b->pr, &b->npr);
        if (rc == SIPD_OK &&
            pair_data_build(&b->pd, b->m, b->pr, b->npr, b->x, b->kc, b->kv, b->mu, b->dhat) != SIPD_OK)
            rc = SIPD_EFAIL;
        /* (the whole-step filter measures its distances when it needs them, collide_toi; the
           Gauss–Seidel balls are re-centred here) */
        if (rc == SIPD_OK && b->ccd && b->ccd_gs)
            rc = collide_bounds(b->det, b->y, b->dhat, b->ccd_b, b->ccd_lo, b->ccd_hi);
        b->ccd_stale = b->ccd && !b->ccd_gs;   /* (the centres move to y below) */
        prof_end(b, SIPD_PHASE_NARROW, t0);
    }
    if (rc != SIPD_OK) {
        b->npr = 0;
        return rc;
    }
    view_pairs(b);
    if (b->assemble && b->npr > b->prD_cap) {   /* the pairs' blocks D_z for `assemble` */
        free(b->pr_D);
        b->prD_cap = b->npr + b->npr / 2 + 16;
        if (!(b->pr_D = sipd_malloc((size_t)b->prD_cap * 6 * sizeof(double)))) {
            b->prD_cap = 0;
            return SIPD_EFAIL;
        }
    }
    memcpy(b->ydet, b->y, (size_t)m->nv * 3 * sizeof(double));
    b->since = 0;
    b->ccd_hit = 0;
    *flag = before > 0 || b->npr > 0;
    return SIPD_OK;
}

static int cpu_direction(sipd_backend *b, sipd_dir_stats *st);

/* The step's load (backend.h): one gradient pass (the direction pass with D = m/h² I, the
 * cheapest; with the fused pass the tets' gradients alone, summed as the direction's are) at the
 * "do nothing" state, y restored to the initial guess after it. */
static int step_load_eval(sipd_backend *b)
{
    const sipd_model *m = b->m;
    size_t n3 = (size_t)m->nv * 3 * sizeof(double);
    sipd_dir_stats st;
    int precond = b->precond, rc;
    size_t i;
    double t0 = prof_begin(b);
    memcpy(b->ys, b->y, n3);
    for (i = 0; i < (size_t)m->nv * 3; i++) step_load_state(m->fixed, b->x, b->y, i);
    prof_end(b, SIPD_PHASE_OTHER, t0);
    memset(&st, 0, sizeof st);
    b->precond = SIPD_PRECOND_MASS;
    b->first = 0;
    b->ccd_off = 1;
    rc = cpu_direction(b, &st);
    b->ccd_off = 0;
    b->precond = precond;
    t0 = prof_begin(b);
    memcpy(b->y, b->ys, n3);
    memcpy(b->yp, b->ys, n3);
    memset(b->dy, 0, n3);
    prof_end(b, SIPD_PHASE_OTHER, t0);
    b->first = 1;
    b->load = st.gmax;
    return rc;
}

static int cpu_step_load(sipd_backend *b, double *fmax)
{
    *fmax = b->load;
    return SIPD_OK;
}

/* contact.ccd: the step y0 → y0 + u filtered against the pairs (physics/ccd.h): a broad phase over
 * the step first when y0 + u leaves the margin of the boxes (then the distances again: a narrow
 * phase is due), then u ← τ u with τ the smallest time of impact of the candidates
 * (collide_toi).  u: dy, an over-relaxed update or the initial guess' step. */
static int ccd_filter(sipd_backend *b, const double *y0, double *u, double *tau)
{
    const sipd_model *m = b->m;
    size_t i, n = (size_t)m->nv * 3;
    int rc = SIPD_OK;
    double t0;
    *tau = 1;
    if (!b->det)
        return SIPD_OK;
    t0 = prof_begin(b);
    for (i = 0; i < n; i++) b->ccd_tmp[i] = y0[i] + u[i];
    if (collide_outside(b->det, b->ccd_tmp)) {
        /* boxes over the step itself (x0 := y0, y1 := y0 + u): the candidates then cover it */
        rc = collide_broad(b->det, y0, b->ccd_tmp, b->dhat);
        if (rc == SIPD_OK)
            rc = collide_bounds(b->det, y0, b->dhat, b->ccd_b, b->ccd_lo, b->ccd_hi);
        if (y0 != b->ydet)   /* (the balls' centres: where their radii were measured) */
            memcpy(b->ydet, y0, (size_t)m->nv * 3 * sizeof(double));
        b->ccd_stale = 0;
        b->ccd_hit = 1;
    }
    if (rc == SIPD_OK) {
        *tau = collide_toi(b->det, y0, u, b->dhat);
        if (*tau < 1) {
            for (i = 0; i < n; i++) u[i] *= *tau;
            b->ccd_hit = 1;
        }
    }
    prof_end(b, SIPD_PHASE_NARROW, t0);
    return rc;
}

/* contact.ccd: u (nv*3) ← each free vertex's step scaled to stay above the ground (passes.h
 * pass_ccd_scale; 0 on Dirichlet vertices); uniform: one scale for all (the smallest), so that a
 * caller's direction keeps its direction. */
static double ccd_ground(sipd_backend *b, const double *y0, double *u, int uniform)
{
    const sipd_model *m = b->m;
    double tmin = 1;
    int a, hit = 0;
#pragma omp parallel for schedule(static) reduction(min : tmin) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        vec3 d = yv(u, a);
        double t;
        if (m->fixed[a]) {
            v3_store(u + 3 * (size_t)a, v3(0, 0, 0));
            continue;
        }
        t = pass_ccd_scale(&b->vw, a, yv(y0, a), d, 0, &hit);
        if (!uniform && t < 1)
            v3_store(u + 3 * (size_t)a, v3_scale(d, t));
        tmin = t < tmin ? t : tmin;
    }
    if (uniform && tmin < 1)
        for (a = 0; a < 3 * m->nv; a++) u[a] *= tmin;
    return tmin;
}

/* contact.ccd: the initial guess, filtered from the step's "do nothing" state x̂ (free vertices
 * at x, which is intersection-free; Dirichlet ones at their end-of-step position): with pairs the
 * distances at x̂ after the broad phase over x and the guess, then y = x̂ + the filtered step. */
static int ccd_filter_guess(sipd_backend *b)
{
    const sipd_model *m = b->m;
    size_t n3 = (size_t)m->nv * 3 * sizeof(double), i;
    int rc = SIPD_OK;
    double tau, t0 = prof_begin(b);
    for (i = 0; i < (size_t)m->nv * 3; i++) {
        double g = b->y[i];
        step_load_state(m->fixed, b->x, b->y, i);
        b->ccd_u[i] = g - b->y[i];
    }
    ccd_ground(b, b->y, b->ccd_u, 0);
    if (b->det) {
        rc = collide_bounds(b->det, b->y, b->dhat, b->ccd_b, b->ccd_lo, b->ccd_hi);
        memcpy(b->ydet, b->y, n3);
        b->ccd_stale = 0;
        if (rc == SIPD_OK)
            rc = ccd_filter(b, b->y, b->ccd_u, &tau);
    }
    for (i = 0; i < (size_t)m->nv * 3; i++) b->y[i] += b->ccd_u[i];
    memcpy(b->yp, b->y, n3);
    prof_end(b, SIPD_PHASE_NARROW, t0);
    return rc;
}

static int cpu_begin_step(sipd_backend *b, double t_end, double h, const double gravity[3], int qs)
{
    const sipd_model *m = b->m;
    int a, rc;
    double t0 = prof_begin(b);
    b->h = h;
    b->t_end = t_end;
    b->quasistatic = qs;
    b->inv_h2 = qs ? 0 : 1 / (h * h);
    for (a = 0; a < 3; a++) b->gq[a] = qs ? gravity[a] : 0;
    b->vw.quasistatic = qs;
    b->vw.inv_h2 = b->inv_h2;
    for (a = 0; a < 3; a++) b->vw.gq[a] = b->gq[a];
#pragma omp parallel for schedule(static) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) pass_begin_vertex(&b->vw, a, t_end, h, gravity);
    b->eps = b->eps_v * h;
    b->vw.eps = b->eps;
    prof_end(b, SIPD_PHASE_OTHER, t0);
    if (b->det) {   /* broad phase over the step start and the initial guess, then narrow */
        int changed;
        t0 = prof_begin(b);
        rc = collide_broad(b->det, b->x, b->y, b->dhat);
        prof_end(b, SIPD_PHASE_BROAD, t0);
        if (rc == SIPD_OK && b->ccd)
            rc = ccd_filter_guess(b);
        if (rc == SIPD_OK)
            rc = cpu_detect(b, 1, &changed);
        if (rc != SIPD_OK)
            return rc;
    } else if (b->ccd && (rc = ccd_filter_guess(b)) != SIPD_OK)
        return rc;
    return step_load_eval(b);
}


/* ---- assemble: H and g of a set of terms at y (rows gathered per vertex, no races); the caller
 * solves with H and sets dy (backend.h, assemble / set_direction) ---- */

/* The direction passes without a local solve (SIPD_PRECOND_HESSIAN,
 * SIPD_PRECOND_NONE) leave dy = 0: the caller
 * sets it (cpu_set_direction). */
static int zero_direction(sipd_backend *b, sipd_dir_stats *st)
{
    memset(b->dy, 0, sizeof(double) * 3 * (size_t)b->m->nv);
    st->rmax = 0;
    st->gdy = 0;
    st->cg_iters = 0;
    return SIPD_OK;
}

/* backend.h assemble.  H (pattern: sipd_bsr_pattern over the model's groups): row a = m/h² I +
 * contact blocks + Σ element blocks of the set's kinds, Dirichlet rows/columns eliminated; the
 * pairs' couplings as *extra.  ALL: g = the last direction pass's; NO_STRETCH: g = the gradient
 * of its terms at y (passes.h pass_hessian_row with elements = 0). */
static int assemble_terms(sipd_backend *b, int terms, sipd_bsr *H, double *g, sipd_bsr_extra *extra)
{
    const sipd_model *m = b->m;
    int a, gi, goff[SIPD_KIND_COUNT + 1];
    const int K = model_max_corners(m), all = terms == SIPD_TERMS_ALL;
    goff[0] = 0;   /* group gi's elements start at goff[gi] in the pattern (model_pattern_elements) */
    for (gi = 0; gi < m->ngroups; gi++) goff[gi + 1] = goff[gi] + m->groups[gi].ne;
    if ((terms != SIPD_TERMS_ALL && terms != SIPD_TERMS_NO_STRETCH) || H->n != m->nv || H->ne != goff[m->ngroups] ||
        H->k != K)
        return SIPD_EFAIL;
    if (b->npr > b->prD_cap)
        return SIPD_EFAIL;   /* the pairs' blocks are not kept (params.assemble not set) */
    if (!all || b->precond != SIPD_PRECOND_HESSIAN) {   /* the set's element Hessians at y */
        int g, e;
        if (hess_bind(b, terms) != SIPD_OK)
            return SIPD_EFAIL;
        for (g = 0; g < b->vw.ngroups; g++) {
            const int ne = b->vw.grp[g].ne;
            if (!sipd_terms_kind(terms, b->vw.grp[g].kind))
                continue;
#pragma omp parallel for schedule(static) if (ne > PAR_MIN)
            for (e = 0; e < ne; e++) pass_element(&b->vw, SIPD_PRECOND_HESSIAN, b->split, g, e);
        }
    }
    {   /* rows gathered per vertex (passes.h pass_hessian_row, as the CUDA backend's k_hessian_row) */
        sipd_bsr_view hv;
        hv.row_off = H->row_off;
        hv.diag = H->diag;
        hv.elem_blk = H->elem_blk;
        hv.k = K;
        for (gi = 0; gi <= m->ngroups; gi++) hv.goff[gi] = goff[gi];
#pragma omp parallel for schedule(static) if (m->nv > PAR_MIN)
        for (a = 0; a < m->nv; a++) {
            vec3 gb = pass_hessian_row(&b->vw, &hv, H->val, all, a);
            if (!all)
                v3_store(g + 3 * (size_t)a, gb);
        }
    }
    /* the pairs' blocks D_z at y, for the couplings β_a β_l D_z between a pair's vertices */
#pragma omp parallel for schedule(static) if (b->npr > PAR_MIN)
    for (a = 0; a < b->npr; a++) s3_store(b->pr_D + 6 * a, pass_pair_hessian(&b->vw, a));
    if (all)
        memcpy(g, b->g, sizeof(double) * 3 * (size_t)m->nv);
    b->pc.pd = &b->pd;   /* (pairs.h) */
    b->pc.D = b->pr_D;
    b->pc.fixed = m->fixed;
    extra->row = b->npr ? pair_coupling_row : NULL;
    extra->blocks = b->npr ? pair_coupling_blocks : NULL;
    extra->ctx = &b->pc;
    return SIPD_OK;
}

static int cpu_assemble(sipd_backend *b, int terms, sipd_bsr *H, double *g, sipd_bsr_extra *extra)
{
    double t0 = prof_begin(b);
    int rc = assemble_terms(b, terms, H, g, extra);
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return rc;
}

static int cpu_iterate(sipd_backend *b, double *y)
{
    double t0 = prof_begin(b);
    memcpy(y, b->y, sizeof(double) * 3 * (size_t)b->m->nv);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

static int cpu_set_direction(sipd_backend *b, const double *dy)
{
    double t0 = prof_begin(b);
    memcpy(b->dy, dy, sizeof(double) * 3 * (size_t)b->m->nv);
    prof_end(b, SIPD_PHASE_COPY, t0);
    b->ccd_tau = 1;
    if (b->ccd) {   /* contact.ccd: the caller's direction filtered too, by one scale */
        double tau;
        int rc;
        b->ccd_tau = ccd_ground(b, b->y, b->dy, 1);
        if ((rc = ccd_filter(b, b->y, b->dy, &tau)) != SIPD_OK)
            return rc;
        b->ccd_tau *= tau;
    }
    return SIPD_OK;
}

static int cpu_direction(sipd_backend *b, sipd_dir_stats *st)
{
    int contacts = 0;
    double maxpen = 0, t0 = prof_begin(b);
    /* the fused pass; MASS: the step load's gradient pass (step_load_eval), fused too when the
       direction's is (fz_acc is set only for SIPD's split) */
    double *acc = b->precond == SIPD_PRECOND_SPLIT || b->precond == SIPD_PRECOND_MASS ? b->fz_acc : NULL;

    cpu_element_pass(b->m, &b->vw, b->precond, b->split, acc);   /* cpu_loops.h */
    prof_end(b, SIPD_PHASE_ELEMENT, t0);
    t0 = prof_begin(b);
    cpu_vertex_pass(b->m, &b->vw, b->precond, b->first, acc, st, &contacts, &maxpen);
    if (b->npr)
        pair_stats(b, &contacts, &maxpen);
    prof_end(b, SIPD_PHASE_VERTEX, t0);
    st->contacts = contacts;
    st->max_pen = maxpen;
    b->first = 0;
    st->cg_iters = 0;
    if (b->precond == SIPD_PRECOND_HESSIAN || b->precond == SIPD_PRECOND_NONE)
        return zero_direction(b, st);
    if (b->ccd && b->det && !b->ccd_off) {   /* contact.ccd: the whole step against the pairs */
        double tau;
        int rc = ccd_filter(b, b->y, b->dy, &tau);
        st->gdy *= tau;
        st->rmax *= tau;
        return rc;
    }
    return SIPD_OK;
}

/* E(y + α dy) of set `terms` (sipd_terms). */
static int energy_terms(sipd_backend *b, int terms, double alpha, double *E)
{
    double Ee, Ei, t0 = prof_begin(b);
    cpu_energy_loops(b->m, &b->vw, terms, alpha, &Ee, &Ei);   /* cpu_loops.h */
    *E = Ee + Ei;
    prof_end(b, SIPD_PHASE_ENERGY, t0);
    return SIPD_OK;
}

static int cpu_energy(sipd_backend *b, double alpha, double *E) { return energy_terms(b, SIPD_TERMS_ALL, alpha, E); }

static int cpu_terms_energy(sipd_backend *b, int terms, double alpha, double *E)
{
    if (terms != SIPD_TERMS_ALL && terms != SIPD_TERMS_NO_STRETCH)
        return SIPD_EFAIL;
    return energy_terms(b, terms, alpha, E);
}

static int cpu_apply(sipd_backend *b, double alpha, double omega, double *gs_out)
{
    const sipd_model *m = b->m;
    double t0 = prof_begin(b), gs = cpu_apply_loop(m, &b->vw, alpha, omega);   /* cpu_loops.h */
    int a;
    prof_end(b, SIPD_PHASE_APPLY, t0);
    if (b->ccd && omega != 1) {   /* contact.ccd: an over-relaxed update leaves the filtered dy */
        size_t i, n = (size_t)m->nv * 3;
        double tau;
        int rc;
        for (i = 0; i < n; i++) b->ccd_u[i] = b->y[i] - b->yp[i];
        ccd_ground(b, b->yp, b->ccd_u, 0);
        if ((rc = ccd_filter(b, b->yp, b->ccd_u, &tau)) != SIPD_OK)
            return rc;
        gs = 0;
#pragma omp parallel for schedule(static) reduction(+ : gs) if (m->nv > PAR_MIN)
        for (a = 0; a < m->nv; a++) {
            int k;
            for (k = 0; k < 3; k++) {
                size_t j = 3 * (size_t)a + k;
                b->y[j] = b->yp[j] + b->ccd_u[j];
                if (!m->fixed[a])
                    gs += b->g[j] * b->ccd_u[j];
            }
        }
    }

    if (gs_out)
        *gs_out = gs;
    return SIPD_OK;
}

static int cpu_ccd_scale(sipd_backend *b, double *tau)
{
    *tau = b->ccd_tau;
    return SIPD_OK;
}

static int cpu_contact_gap(sipd_backend *b, double *gap)
{
    const sipd_model *m = b->m;
    double gmin = HUGE_VAL;
    int a, p;
    if (b->contact)
#pragma omp parallel for schedule(static) reduction(min : gmin) if (m->nv > PAR_MIN)
        for (a = 0; a < m->nv; a++) {
            double d;
            if (m->fixed[a])
                continue;
            d = v3_dot(v3_load(b->pn), yv(b->y, a)) - pass_ground_h(&b->vw, a);
            gmin = d < gmin ? d : gmin;
        }
#pragma omp parallel for schedule(static) reduction(min : gmin) if (b->npr > PAR_MIN)
    for (p = 0; p < b->npr; p++) {
        double d = pass_pair_gap(&b->vw, p);
        gmin = d < gmin ? d : gmin;
    }
    *gap = b->contact || b->npr ? gmin : NAN;
    return SIPD_OK;
}

static int cpu_undo(sipd_backend *b)
{
    double t0 = prof_begin(b);
    memcpy(b->y, b->yp, (size_t)b->m->nv * 3 * sizeof(double));
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return SIPD_OK;
}

static int cpu_snapshot(sipd_backend *b)
{
    double t0 = prof_begin(b);
    memcpy(b->ys, b->y, (size_t)b->m->nv * 3 * sizeof(double));
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return SIPD_OK;
}

static int cpu_restore(sipd_backend *b)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(double);
    double t0 = prof_begin(b);
    memcpy(b->y, b->ys, n3);
    memcpy(b->yp, b->ys, n3);
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return SIPD_OK;
}

/* Colour by colour.  The colouring separates vertices that share a tet, not vertices that
 * share a contact pair, so within a colour the vertices with pair incidences are updated
 * serially after the others (in colour order: deterministic). */
static int cpu_gs_sweep(sipd_backend *b, int ls, double omega, sipd_gs_stats *st)
{
    const sipd_model *m = b->m;
    double maxpen;
    int contacts;
    sipd_gs_tally t;
    double t0 = prof_begin(b);
    b->ccd_gs = 1;
    if (b->ccd && b->det && b->ccd_stale) {   /* the balls measured where they are centred */
        int rc = collide_bounds(b->det, b->y, b->dhat, b->ccd_b, b->ccd_lo, b->ccd_hi);
        if (rc != SIPD_OK) {
            prof_end(b, SIPD_PHASE_GS, t0);
            return rc;
        }
        memcpy(b->ydet, b->y, (size_t)m->nv * 3 * sizeof(double));
        b->ccd_stale = 0;
    }
    cpu_gs_colours(m, &b->vw, b->precond, b->split, b->npr ? b->pd.off : NULL, ls, omega, &t);   /* cpu_loops.h */
    maxpen = t.maxpen;
    contacts = t.contacts;
    if (t.ccd_hits)
        b->ccd_hit = 1;
    if (b->npr)
        pair_stats(b, &contacts, &maxpen);
    st->rmax = sqrt(t.rmax2);
    st->gmax = sqrt(t.gmax2);
    st->contacts = contacts;
    st->max_pen = maxpen;
    st->backtracks = t.backtracks;
    st->rejected = t.rejected;
    /* y_prev tracks y so that a following Jacobi/Rayleigh estimate starts clean */
    memcpy(b->yp, b->y, (size_t)m->nv * 3 * sizeof(double));
    prof_end(b, SIPD_PHASE_GS, t0);
    return SIPD_OK;
}

static int cpu_end_step(sipd_backend *b)
{
    size_t i, n = 3 * (size_t)b->m->nv;
    double t0 = prof_begin(b);
    int a, p, rc = SIPD_OK;
    /* the friction anchors (contact.h stick memory), from x and y before x moves: the ground's per
       vertex, the pairs' into pd.o (each pair reads only its own) and then the store by key */
    if (b->fa) {
#pragma omp parallel for schedule(static) if (b->m->nv > PAR_MIN)
        for (a = 0; a < b->m->nv; a++) pass_end_anchor(&b->vw, a);
    }
    if (b->det && b->mu > 0) {
#pragma omp parallel for schedule(static) if (b->npr > PAR_MIN)
        for (p = 0; p < b->npr; p++) v3_store(b->pd.o + 3 * (size_t)p, pass_pair_anchor_next(&b->vw, p));
        rc = pair_anchor_commit(&b->pd, b->pd.o);
    }
#pragma omp parallel for schedule(static) if (n > 3 * PAR_MIN)
    for (i = 0; i < n; i++) pass_end_component(&b->vw, i, b->h);
    b->vw.vp_hist = b->vp != NULL;
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return rc;
}

/* backend.h friction_state */
static int cpu_friction_state(sipd_backend *b, int set, double *buf, long *n)
{
    size_t n3 = b->fa ? (size_t)b->m->nv * 3 : 0;
    long np = 0;
    if (!set) {
        if (b->det)
            pair_anchor_save(&b->pd, NULL, &np);
        *n = friction_state_len(n3, np);
        if (buf) {
            if (n3)
                memcpy(buf, b->fa, n3 * sizeof(double));
            buf[n3] = (double)np;
            if (b->det)
                pair_anchor_save(&b->pd, buf + n3 + 1, &np);
        }
        return SIPD_OK;
    }
    if (!friction_state_fits(buf, *n, n3, b->det != NULL))
        return SIPD_EINPUT;
    if (n3)
        memcpy(b->fa, buf, n3 * sizeof(double));
    return b->det ? pair_anchor_load(&b->pd, buf + n3 + 1, (long)buf[n3]) : SIPD_OK;
}

static int cpu_gradient(sipd_backend *b, double *g)
{
    double t0 = prof_begin(b);
    memcpy(g, b->g, sizeof(double) * 3 * (size_t)b->m->nv);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

static int cpu_contact_force(sipd_backend *b, double *f)
{
    int a;
#pragma omp parallel for schedule(static) if (b->m->nv > PAR_MIN)
    for (a = 0; a < b->m->nv; a++) v3_store(f + 3 * (size_t)a, pass_contact_force(&b->vw, a));
    return SIPD_OK;
}

static int cpu_download(sipd_backend *b, double *x, double *v)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(double);
    double t0 = prof_begin(b);
    if (x)
        memcpy(x, b->x, n3);
    if (v)
        memcpy(v, b->v, n3);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

/* backend.h profile: phase times; no launches or device syncs on the CPU (-1). */
static int cpu_profile(sipd_backend *b, sipd_profile *out, int reset)
{
    int k;
    *out = b->prof;
    for (k = 0; k < SIPD_NPHASE; k++) out->launches[k] = out->syncs[k] = -1;
    if (reset)
        for (k = 0; k < SIPD_NPHASE; k++) b->prof.ms[k] = 0;
    return SIPD_OK;
}

const sipd_backend_ops sipd_backend_cpu = {
    "cpu",        cpu_create,   cpu_upload,  cpu_begin_step, cpu_direction, cpu_energy,    cpu_apply,
    cpu_undo,     cpu_snapshot, cpu_restore, cpu_detect,     cpu_gs_sweep,  cpu_end_step,  cpu_download,
    cpu_destroy,  cpu_step_load, cpu_assemble, cpu_set_direction, DBL_EPSILON, cpu_terms_energy, cpu_iterate,
    cpu_gradient, cpu_contact_force, cpu_profile, cpu_guess_history, cpu_friction_state, cpu_ccd_scale,
    cpu_contact_gap,
};
