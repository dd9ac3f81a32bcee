/* backend_cpu32.c — the float32 CPU backend (--precision float32; docs/precision.md).
 *
 * The same OpenMP loops over the shared per-item passes (src/passes.h) as the float64 CPU
 * backend (backend_cpu.c), in a translation unit compiled with SIPD_REAL_FLOAT: the state, the
 * element buffers and the view (view.h) are float32, as on the GPU.  The model is built in
 * double by the rest of the program; create converts what the passes read (masses, X0, rest
 * data, measures, incidence weights, materials, motions, contact data) once, as the CUDA backend
 * does (kernels/backend_cuda.cu create_upload).  The backend interface stays double (backend.h):
 * upload, download, iterate, gradient, set_direction, assemble convert at the boundary.  Every
 * reduction (energies, Σ g·dy, ...) is summed in double from the float32 terms.
 *
 * Contact pairs: the detector (collide.c) and pairs.c are double code; they run on double copies
 * of x and y (hx, hy) at each broad and narrow phase, and the pairs' data are converted for the
 * view.  What it does not do yet (refused at create, and earlier by the registry, registry.c
 * cpu32_supports): contact.ccd with contact pairs.  The filter's code below is the float64
 * backend's on double copies, but in float32 the ball collision then ended two solves
 * at their cap at the impact (residual 0.7, where float64 converges and float32 without ccd
 * stalls at 5e-4): not understood yet, so refused.  The assembled-Hessian directions (newton: SIPD_PRECOND_HESSIAN,
 * mixed-fem: SIPD_PRECOND_NONE, the coarse level of two-level SIPD) get `assemble` of both sets of
 * terms, in float32, converted into the caller's double matrix.
 *
 * Layout caution: under SIPD_REAL_FLOAT, sipd_material (physics/material.h) has float fields,
 * while the model's array (model.c, double) has double ones; host_material_f64 mirrors the
 * model's, and create checks it as the CUDA backend does.  No float-layout struct is passed to
 * double code.
 */
#define SIPD_REAL_FLOAT 1

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "pairs.h"   /* pair_contact_k, friction_state_len/_fits (double interface) */
#include "passes.h"
#include "cpu_loops.h"
#include "step_load.h"
#include "util.h"

#define PAR_MIN 4096

/* The model's sipd_material as model.c (double) lays it out: src/host_material.h */
#include "host_material.h"

typedef float real;

struct sipd_backend {
    const sipd_model *m;
    int split, precond;
    real *x, *v, *yt, *y, *yp, *dy, *g, *ys, *vp, *y0, *g0;
    int first;
    real *egrad, *eblk, *eH;
    double *fz_acc;   /* the fused Jacobi pass' accumulators (cpu_loops.h cpu_fused_setup); NULL: the gather */
    /* the model in float32 (view.h reads these) */
    real *mass, *X0, *motions, *rest, *vol, *inc_w, *kv, *vrad;
    sipd_material *mats;
    /* ground contact */
    int contact;
    double eps_v;
    real *lam_n, *fa;
    /* contact.ccd (physics/ccd.h): the ground per vertex (pass_ccd_scale); with pairs the step
       filter of the detector (collide_toi, double) and the Gauss-Seidel balls (collide_bounds,
       double, converted into ccd_b/lo/hi for the view) */
    int ccd, ccd_hit, ccd_off, ccd_gs, ccd_stale;
    real *ccd_u;
    double ccd_tau;
    real *ccd_b, *ccd_lo, *ccd_hi;
    double *cb_d, *clo_d, *chi_d;
    /* pair contact (backend_cpu.c): the detector and pairs.c work in double on hx, hy, hu, ht
       (nv*3 scratch: x, y, a step, y + the step), their data converted for the view (pr_*) */
    sipd_collide *det;
    const sipd_contact_pair *pr;
    int npr, prf_cap, prD_cap, detect_every, since, assemble;
    sipd_pair_data pd;
    double kc, dhat, mu;
    const double *kv_d;
    double *hx, *hy, *hu, *ht;
    real *ydet;                          /* y at the last narrow phase (the balls' centres) */
    real *pr_beta, *pr_n, *pr_k, *pr_lam, *pr_h, *pr_o, *pr_onext;
    double *pr_D;                        /* 6 per pair: D_z for `assemble` */
    sipd_pair_coupling pc;
    /* `assemble`: the float32 values of the caller's pattern, converted into H->val */
    real *hval;
    size_t hval_cap;
    double load;
    double h;   /* the step's length (begin_step) */
    sipd_view vw;
    sipd_profile prof;
    int prof_depth;
};

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

/* double → float32 and back, n values */
static void to_f(real *SIPD_RESTRICT dst, const double *SIPD_RESTRICT src, size_t n)
{
    size_t i;
#pragma omp parallel for schedule(static) if (n > 3 * PAR_MIN)
    for (i = 0; i < n; i++) dst[i] = (real)src[i];
}

static void to_d(double *SIPD_RESTRICT dst, const real *SIPD_RESTRICT src, size_t n)
{
    size_t i;
#pragma omp parallel for schedule(static) if (n > 3 * PAR_MIN)
    for (i = 0; i < n; i++) dst[i] = (double)src[i];
}

/* a float32 copy of n doubles (NULL: out of memory); n = 0 gives a 1-element array */
static real *dup_f(const double *src, size_t n)
{
    real *p = sipd_malloc((n ? n : 1) * sizeof(real));
    if (p && n)
        to_f(p, src, n);
    return p;
}

static void cpu32_destroy(sipd_backend *b)
{
    if (!b)
        return;
    free(b->x); free(b->v); free(b->yt); free(b->y); free(b->yp); free(b->dy); free(b->g); free(b->ys);
    free(b->vp); free(b->y0); free(b->g0); free(b->egrad); free(b->eblk); free(b->eH); free(b->fz_acc);
    free(b->mass); free(b->X0); free(b->motions); free(b->rest); free(b->vol); free(b->inc_w); free(b->kv);
    free(b->vrad); free(b->mats); free(b->lam_n); free(b->fa); free(b->ccd_u); free(b->hval);
    free(b->ccd_b); free(b->ccd_lo); free(b->ccd_hi); free(b->cb_d); free(b->clo_d); free(b->chi_d);
    collide_destroy(b->det);
    pair_data_free(&b->pd);
    free(b->hx); free(b->hy); free(b->hu); free(b->ht); free(b->ydet);
    free(b->pr_beta); free(b->pr_n); free(b->pr_k); free(b->pr_lam); free(b->pr_h); free(b->pr_o); free(b->pr_onext);
    free(b->pr_D);
    free(b);
}

/* What this backend does not run (SIPD_EINPUT, with the feature named). */
static int create_check(const sipd_model *m, const sipd_backend_params *p)
{
    int i;
    if (p->pairs && p->ccd) {
        sipd_error("cpu-float32 backend: contact.ccd with contact pairs runs in float64 only so far: use --precision "
                   "float64, or set contact.ccd = false for the discrete detection (as on the GPU)");
        return SIPD_EINPUT;
    }
    if (p->precond != SIPD_PRECOND_SPLIT && p->precond != SIPD_PRECOND_BLOCK && p->precond != SIPD_PRECOND_DIAG &&
        p->precond != SIPD_PRECOND_MASS && p->precond != SIPD_PRECOND_HESSIAN && p->precond != SIPD_PRECOND_NONE) {
        sipd_error("cpu-float32 backend: unknown preconditioner %d", p->precond);
        return SIPD_EINPUT;
    }
    if ((i = host_materials_check(m)) >= 0) {
        sipd_error("cpu-float32 backend: material %d: unsupported model or unexpected sipd_material layout "
                   "(src/host_material.h host_material_f64 must mirror src/physics/material.h)", i);
        return SIPD_EFAIL;
    }
    return SIPD_OK;
}

/* The model's arrays in float32 (materials, motions, per-vertex and per-element data). */
static int convert_model(sipd_backend *b, const sipd_model *m)
{
    size_t nrest = 0, nvol = 0, ninc = (size_t)m->inc_off[m->nv];
    int i, g;
    if (!(b->mats = sipd_calloc((size_t)(m->nmat > 0 ? m->nmat : 1), sizeof *b->mats)) ||
        !(b->motions = sipd_calloc((size_t)(m->nmotions > 0 ? m->nmotions : 1) * 9, sizeof(real))))
        return SIPD_EFAIL;
    host_materials_to(m, b->mats);
    for (i = 0; i < m->nmotions; i++) {
        int k;
        for (k = 0; k < 3; k++) {
            b->motions[9 * i + k] = (real)m->motions[i].center[k];
            b->motions[9 * i + 3 + k] = (real)m->motions[i].velocity[k];
            b->motions[9 * i + 6 + k] = (real)m->motions[i].omega[k];
        }
    }
    if (!(b->mass = dup_f(m->mass, (size_t)m->nv)) || !(b->X0 = dup_f(m->X0, (size_t)m->nv * 3)) ||
        !(b->inc_w = dup_f(m->inc_w, ninc)))
        return SIPD_EFAIL;
    for (g = 0; g < m->ngroups; g++) {
        nrest += (size_t)m->groups[g].ne * kind_rest_size(m->groups[g].kind);
        nvol += (size_t)m->groups[g].ne;
    }
    if (!(b->rest = sipd_malloc((nrest ? nrest : 1) * sizeof(real))) ||
        !(b->vol = sipd_malloc((nvol ? nvol : 1) * sizeof(real))))
        return SIPD_EFAIL;
    nrest = nvol = 0;
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        size_t nr = (size_t)G->ne * kind_rest_size(G->kind);
        to_f(b->rest + nrest, G->rest, nr);
        to_f(b->vol + nvol, G->vol, (size_t)G->ne);
        nrest += nr;
        nvol += (size_t)G->ne;
    }
    if (m->crad && !(b->vrad = dup_f(m->crad, (size_t)m->nv)))
        return SIPD_EFAIL;
    return SIPD_OK;
}

static void view_init(sipd_backend *b, double kc, const double pn[3], double ph, double dhat, double mu)
{
    const sipd_model *m = b->m;
    sipd_view *v = &b->vw;
    size_t off_g = 0, off_b = 0, off_r = 0, off_v = 0;
    int g;
    memset(v, 0, sizeof *v);
    v->nv = m->nv;
    v->x = b->x; v->v = b->v; v->vp = b->vp; v->yt = b->yt; v->y = b->y; v->yp = b->yp; v->dy = b->dy; v->g = b->g;
    v->ys = b->ys; v->y0 = b->y0; v->g0 = b->g0;
    v->mass = b->mass;
    v->X0 = b->X0;
    v->motions = b->motions;
    v->fixed = m->fixed;
    v->move_of = m->move_of;
    v->ngroups = m->ngroups;
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        sipd_group_view *W = &v->grp[g];
        view_group_init(W, G->kind, G->nc, G->ne);
        W->v = G->v;
        W->rest = b->rest + off_r;
        W->vol = b->vol + off_v;
        W->mat = G->mat;
        W->grad = b->egrad + off_g;
        W->blk = b->eblk + off_b;
        W->hess = NULL;
        off_r += (size_t)G->ne * kind_rest_size(G->kind);
        off_v += (size_t)G->ne;
        off_g += (size_t)G->ne * kind_grad_size(G->kind);
        off_b += (size_t)G->ne * kind_block_size(G->kind, b->precond != SIPD_PRECOND_SPLIT);
    }
    v->mats = b->mats;
    v->inc_off = m->inc_off;
    v->inc_elem = m->inc_elem;
    v->inc_group = m->inc_group;
    v->inc_corner = m->inc_corner;
    v->inc_w = b->inc_w;
    v->ground = b->contact;
    for (g = 0; g < 3; g++) v->pn[g] = (real)pn[g];
    v->ph = (real)ph;
    v->dhat = (real)dhat;
    v->kc = (real)kc;
    v->kv = b->kv;
    v->mu = (real)mu;
    v->lam_n = b->lam_n;
    v->fa = b->fa;
    v->vrad = b->vrad;
    v->ccd = b->ccd;
    v->ccd_b = b->ccd_b;   /* (NULL without pairs: the ground's half-space only) */
    v->ccd_c = b->ydet;
    v->ccd_lo = b->ccd_lo;
    v->ccd_hi = b->ccd_hi;
}

/* The pairs of the last narrow phase in the view: pairs.c's double arrays converted. */
static int view_pairs(sipd_backend *b)
{
    sipd_view *v = &b->vw;
    const int n = b->npr;
    if (n > b->prf_cap) {
        int cap = n + n / 2 + 16;
        free(b->pr_beta); free(b->pr_n); free(b->pr_k); free(b->pr_lam); free(b->pr_h); free(b->pr_o); free(b->pr_onext);
        b->pr_beta = sipd_malloc((size_t)cap * 4 * sizeof(real));
        b->pr_n = sipd_malloc((size_t)cap * 3 * sizeof(real));
        b->pr_k = sipd_malloc((size_t)cap * sizeof(real));
        b->pr_lam = sipd_malloc((size_t)cap * sizeof(real));
        b->pr_h = sipd_malloc((size_t)cap * sizeof(real));
        b->pr_o = sipd_malloc((size_t)cap * 3 * sizeof(real));
        b->pr_onext = sipd_malloc((size_t)cap * 3 * sizeof(real));
        b->prf_cap = cap;
        if (!b->pr_beta || !b->pr_n || !b->pr_k || !b->pr_lam || !b->pr_h || !b->pr_o || !b->pr_onext) {
            b->prf_cap = 0;
            b->npr = v->npr = 0;
            return SIPD_EFAIL;
        }
    }
    to_f(b->pr_beta, b->pd.beta, (size_t)n * 4);
    to_f(b->pr_n, b->pd.n, (size_t)n * 3);
    to_f(b->pr_k, b->pd.k, (size_t)n);
    to_f(b->pr_lam, b->pd.lam, (size_t)n);
    to_f(b->pr_h, b->pd.h, (size_t)n);
    to_f(b->pr_o, b->pd.o, (size_t)n * 3);
    v->npr = n;
    v->pr_v = b->pd.v;
    v->pr_beta = b->pr_beta;
    v->pr_n = b->pr_n;
    v->pr_k = b->pr_k;
    v->pr_lam = b->pr_lam;
    v->pr_h = b->pr_h;
    v->pr_o = b->mu > 0 ? b->pr_o : NULL;
    v->pv_off = b->pd.off;
    v->pv_pair = b->pd.pair;
    v->pv_slot = b->pd.slot;
    return SIPD_OK;
}

/* Active pairs (gap < d̂) and the deepest penetration at y. */
static void pair_stats(const sipd_backend *b, int *active, double *maxpen)
{
    int p, n = 0;
    double mp = 0;
#pragma omp parallel for schedule(static) reduction(+ : n) reduction(max : mp) if (b->npr > PAR_MIN)
    for (p = 0; p < b->npr; p++) {
        real pen;
        n += pass_pair_stats(&b->vw, p, &pen);
        if (pen > mp)
            mp = pen;
    }
    *active += n;
    if (mp > *maxpen)
        *maxpen = mp;
}

/* collide_bounds at y (float32): the Gauss-Seidel balls and boxes, about y, for the view. */
static int ccd_bounds(sipd_backend *b, const real *y)
{
    const size_t nv = (size_t)b->m->nv;
    int rc;
    to_d(b->ht, y, nv * 3);
    if ((rc = collide_bounds(b->det, b->ht, b->dhat, b->cb_d, b->clo_d, b->chi_d)) != SIPD_OK)
        return rc;
    to_f(b->ccd_b, b->cb_d, nv);
    to_f(b->ccd_lo, b->clo_d, nv * 3);
    to_f(b->ccd_hi, b->chi_d, nv * 3);
    return SIPD_OK;
}

/* The element Hessians of every group for `assemble`, allocated once and bound to the view. */
static int hess_bind(sipd_backend *b)
{
    const sipd_model *m = b->m;
    size_t n = 0, off = 0;
    int g;
    if (b->eH)
        return SIPD_OK;
    for (g = 0; g < m->ngroups; g++) n += (size_t)m->groups[g].ne * kind_hessian_size(m->groups[g].kind);
    if (!(b->eH = sipd_malloc((n ? n : 1) * sizeof(real))))
        return SIPD_EFAIL;
    for (g = 0; g < m->ngroups; g++) {
        b->vw.grp[g].hess = b->eH + off;
        off += (size_t)m->groups[g].ne * kind_hessian_size(m->groups[g].kind);
    }
    return SIPD_OK;
}

static int cpu32_create(sipd_backend **out, const sipd_model *m, const sipd_backend_params *p)
{
    sipd_backend *b;
    size_t n3 = (size_t)m->nv * 3 * sizeof(real), ngrad = 0, nblk = 0;
    const double *kv = NULL;
    double kc;
    int g, rc;
    if ((rc = create_check(m, p)) != SIPD_OK)
        return rc;
    if (!(b = sipd_calloc(1, sizeof *b)))
        return SIPD_EFAIL;
    b->m = m;
    b->split = p->split;
    b->precond = p->precond;
    b->prof.timed = p->profile != 0;
    b->contact = p->contact;
    b->eps_v = p->eps_v;
    b->ccd = p->ccd && (p->contact || p->pairs);
    b->ccd_tau = 1;
    kc = pair_contact_k(m, p->kc, &kv);
    b->kc = kc;
    b->kv_d = kv;
    b->dhat = p->dhat;
    b->mu = p->mu;
    b->assemble = p->assemble || p->precond == SIPD_PRECOND_HESSIAN;
    b->detect_every = pair_detect_every(p->detect_every);
    if (p->pairs) {
        size_t n3d = ((size_t)m->nv * 3 + 1) * sizeof(double);
        if (collide_create(&b->det, m, p->self, SIPD_DETECT_FACTOR * p->dhat) != SIPD_OK ||
            pair_data_init(&b->pd, m->nv) != SIPD_OK || !(b->hx = sipd_malloc(n3d)) || !(b->hy = sipd_malloc(n3d)) ||
            !(b->hu = sipd_malloc(n3d)) || !(b->ht = sipd_malloc(n3d)) ||
            !(b->ydet = sipd_calloc((size_t)m->nv * 3 + 1, sizeof(real)))) {
            cpu32_destroy(b);
            return SIPD_EFAIL;
        }
        if (b->ccd && (!(b->ccd_b = sipd_malloc(((size_t)m->nv + 1) * sizeof(real))) ||
                       !(b->ccd_lo = sipd_malloc(((size_t)m->nv * 3 + 1) * sizeof(real))) ||
                       !(b->ccd_hi = sipd_malloc(((size_t)m->nv * 3 + 1) * sizeof(real))) ||
                       !(b->cb_d = sipd_malloc(((size_t)m->nv + 1) * sizeof(double))) ||
                       !(b->clo_d = sipd_malloc(n3d)) || !(b->chi_d = sipd_malloc(n3d)))) {
            cpu32_destroy(b);
            return SIPD_EFAIL;
        }
    }
#ifdef _OPENMP
    if (p->threads > 0)
        omp_set_num_threads(p->threads);
#endif
    if (convert_model(b, m) != SIPD_OK || (p->contact && kv && !(b->kv = dup_f(kv, (size_t)m->nv))) ||
        (p->contact && p->mu > 0 &&
         (!(b->lam_n = sipd_calloc((size_t)m->nv, sizeof(real))) || !(b->fa = sipd_calloc((size_t)m->nv * 3, sizeof(real))))) ||
        (b->ccd && !(b->ccd_u = sipd_malloc(n3 ? n3 : 1)))) {
        cpu32_destroy(b);
        return SIPD_EFAIL;
    }
    b->x = sipd_calloc(1, n3 + 1); b->v = sipd_calloc(1, n3 + 1); b->yt = sipd_calloc(1, n3 + 1);
    b->y = sipd_calloc(1, n3 + 1); b->yp = sipd_calloc(1, n3 + 1); b->dy = sipd_calloc(1, n3 + 1);
    b->g = sipd_calloc(1, n3 + 1); b->ys = sipd_calloc(1, n3 + 1);
    b->y0 = sipd_calloc(1, n3 + 1); b->g0 = sipd_calloc(1, n3 + 1);
    if (p->adaptive_guess && !(b->vp = sipd_calloc(1, n3 + 1))) {
        cpu32_destroy(b);
        return SIPD_EFAIL;
    }
    for (g = 0; g < m->ngroups; g++) {
        ngrad += (size_t)m->groups[g].ne * kind_grad_size(m->groups[g].kind);
        nblk += (size_t)m->groups[g].ne * kind_block_size(m->groups[g].kind, p->precond != SIPD_PRECOND_SPLIT);
    }
    b->egrad = sipd_malloc((ngrad ? ngrad : 1) * sizeof(real));
    b->eblk = sipd_malloc((nblk ? nblk : 1) * sizeof(real));
    if (!b->x || !b->v || !b->yt || !b->y || !b->yp || !b->dy || !b->g || !b->ys || !b->y0 || !b->g0 || !b->egrad ||
        !b->eblk) {
        cpu32_destroy(b);
        return SIPD_EFAIL;
    }
    view_init(b, kc, p->plane_n, p->plane_h, p->dhat, p->mu);
    if (cpu_fused_setup(m, p->precond, &b->fz_acc) != SIPD_OK) {   /* cpu_loops.h */
        cpu32_destroy(b);
        return SIPD_EFAIL;
    }
    /* (a SIPD_PRECOND_HESSIAN direction pass stores every element's Hessian) */
    if (p->precond == SIPD_PRECOND_HESSIAN && hess_bind(b) != SIPD_OK) {
        cpu32_destroy(b);
        return SIPD_EFAIL;
    }
    *out = b;
    return SIPD_OK;
}

static int cpu32_upload(sipd_backend *b, const double *x, const double *v)
{
    size_t n = (size_t)b->m->nv * 3;
    double t0 = prof_begin(b);
    to_f(b->x, x, n);
    to_f(b->v, v, n);
    memcpy(b->y, b->x, n * sizeof(real));
    memcpy(b->yp, b->x, n * sizeof(real));
    b->vw.vp_hist = 0;
    if (b->fa)
        memset(b->fa, 0, n * sizeof(real));
    if (b->det)
        pair_anchor_clear(&b->pd);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

static int cpu32_guess_history(sipd_backend *b, int set, double *vp, int *valid)
{
    size_t n = (size_t)b->m->nv * 3;
    if (!b->vp) {
        sipd_error("cpu-float32 backend: guess_history: the adaptive initial guess was not requested at create");
        return SIPD_EFAIL;
    }
    if (set) {
        if (set == 1)
            to_f(b->vp, vp, n);
        b->vw.vp_hist = set == 1;
        return SIPD_OK;
    }
    *valid = b->vw.vp_hist;
    if (b->vw.vp_hist)
        to_d(vp, b->vp, n);
    return SIPD_OK;
}

/* contact.ccd: u ← each free vertex's step scaled to stay above the ground (passes.h
 * pass_ccd_scale; 0 on Dirichlet vertices); uniform: one scale for all (the smallest). */
static double ccd_ground(sipd_backend *b, const real *y0, real *u, int uniform)
{
    const sipd_model *m = b->m;
    double tmin = 1;
    int a, hit = 0;
#pragma omp parallel for schedule(static) reduction(min : tmin) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        vec3 d = view_ld(u, a);
        double t;
        if (m->fixed[a]) {
            view_st(u, a, v3(0, 0, 0));
            continue;
        }
        t = pass_ccd_scale(&b->vw, a, view_ld(y0, a), d, 0, &hit);
        if (!uniform && t < 1)
            view_st(u, a, v3_scale(d, (real)t));
        tmin = t < tmin ? t : tmin;
    }
    if (uniform && tmin < 1)
        for (a = 0; a < 3 * m->nv; a++) u[a] *= (real)tmin;
    return tmin;
}

/* run = 0: is a narrow phase due?  run = 1: run it (backend.h; backend_cpu.c cpu_detect, the
 * detector on double copies of x and y). */
static int cpu32_detect(sipd_backend *b, int run, int *flag)
{
    const sipd_model *m = b->m;
    const size_t n3 = (size_t)m->nv * 3;
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
            double d2 = 0;
            int k;
            for (k = 0; k < 3; k++) {
                double d = (double)b->y[3 * (size_t)a + k] - (double)b->ydet[3 * (size_t)a + k];
                d2 += d * d;
            }
            mv = d2 > mv ? d2 : mv;
        }
        prof_end(b, SIPD_PHASE_NARROW, t0);
        *flag = pair_detect_moved(mv, b->dhat);
        return SIPD_OK;
    }
    t0 = prof_begin(b);
    to_d(b->hx, b->x, n3);
    to_d(b->hy, b->y, n3);
    rc = (b->ccd ? collide_outside_by(b->det, b->hy, 0.5 * CCD_BOX_PAD * b->dhat) : collide_outside(b->det, b->hy))
             ? collide_broad(b->det, b->hx, b->hy, b->dhat)
             : SIPD_OK;
    prof_end(b, SIPD_PHASE_BROAD, t0);
    if (rc == SIPD_OK) {
        t0 = prof_begin(b);
        rc = collide_narrow(b->det, b->ccd ? b->hy : b->hx, b->hy, &b->pr, &b->npr);
        if (rc == SIPD_OK &&
            pair_data_build(&b->pd, m, b->pr, b->npr, b->hx, b->kc, b->kv_d, b->mu, b->dhat) != SIPD_OK)
            rc = SIPD_EFAIL;
        if (rc == SIPD_OK && b->ccd && b->ccd_gs)
            rc = ccd_bounds(b, b->y);
        b->ccd_stale = b->ccd && !b->ccd_gs;
        prof_end(b, SIPD_PHASE_NARROW, t0);
    }
    if (rc != SIPD_OK) {
        b->npr = b->vw.npr = 0;
        return rc;
    }
    if ((rc = view_pairs(b)) != SIPD_OK)
        return rc;
    if (b->assemble && b->npr > b->prD_cap) {   /* the pairs' blocks D_z for `assemble` */
        free(b->pr_D);
        b->prD_cap = b->npr + b->npr / 2 + 16;
        if (!(b->pr_D = sipd_malloc((size_t)b->prD_cap * 6 * sizeof(double)))) {
            b->prD_cap = 0;
            return SIPD_EFAIL;
        }
    }
    memcpy(b->ydet, b->y, n3 * sizeof(real));
    b->since = 0;
    b->ccd_hit = 0;
    *flag = before > 0 || b->npr > 0;
    return SIPD_OK;
}

/* contact.ccd: the step y0 → y0 + u filtered against the pairs (backend_cpu.c ccd_filter, on
 * double copies): u ← τ u with τ the smallest time of impact of the candidates. */
static int ccd_filter(sipd_backend *b, const real *y0, real *u, double *tau)
{
    const sipd_model *m = b->m;
    size_t i, n = (size_t)m->nv * 3;
    int rc = SIPD_OK;
    double t0;
    *tau = 1;
    if (!b->det)
        return SIPD_OK;
    t0 = prof_begin(b);
    to_d(b->hy, y0, n);
    to_d(b->hu, u, n);
    for (i = 0; i < n; i++) b->ht[i] = b->hy[i] + b->hu[i];
    if (collide_outside(b->det, b->ht)) {
        rc = collide_broad(b->det, b->hy, b->ht, b->dhat);
        if (rc == SIPD_OK && (rc = collide_bounds(b->det, b->hy, b->dhat, b->cb_d, b->clo_d, b->chi_d)) == SIPD_OK) {
            to_f(b->ccd_b, b->cb_d, (size_t)m->nv);
            to_f(b->ccd_lo, b->clo_d, n);
            to_f(b->ccd_hi, b->chi_d, n);
        }
        if (y0 != b->ydet)
            memcpy(b->ydet, y0, n * sizeof(real));
        b->ccd_stale = 0;
        b->ccd_hit = 1;
    }
    if (rc == SIPD_OK) {
        *tau = collide_toi(b->det, b->hy, b->hu, b->dhat);
        if (*tau < 1) {
            const real t = (real)*tau;
            for (i = 0; i < n; i++) u[i] *= t;
            b->ccd_hit = 1;
        }
    }
    prof_end(b, SIPD_PHASE_NARROW, t0);
    return rc;
}

static int cpu32_direction(sipd_backend *b, sipd_dir_stats *st);

/* The step's load: one gradient pass (D = m/h² I) at the "do nothing" state (backend_cpu.c). */
static int step_load_eval(sipd_backend *b)
{
    const sipd_model *m = b->m;
    size_t n3 = (size_t)m->nv * 3 * sizeof(real), i;
    sipd_dir_stats st;
    int precond = b->precond, rc;
    double t0 = prof_begin(b);
    memcpy(b->ys, b->y, n3);
    for (i = 0; i < (size_t)m->nv * 3; i++) step_load_state(m->fixed, b->x, b->y, i);
    prof_end(b, SIPD_PHASE_OTHER, t0);
    memset(&st, 0, sizeof st);
    b->precond = SIPD_PRECOND_MASS;
    b->first = 0;
    b->ccd_off = 1;
    rc = cpu32_direction(b, &st);
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

static int cpu32_step_load(sipd_backend *b, double *fmax)
{
    *fmax = b->load;
    return SIPD_OK;
}

static int cpu32_begin_step(sipd_backend *b, double t_end, double h, const double gravity[3], int qs)
{
    const sipd_model *m = b->m;
    real grav[3];
    int a;
    double t0 = prof_begin(b);
    b->h = h;
    b->vw.quasistatic = qs;
    b->vw.inv_h2 = qs ? 0 : (real)(1 / (h * h));
    for (a = 0; a < 3; a++) {
        b->vw.gq[a] = qs ? (real)gravity[a] : 0;
        grav[a] = (real)gravity[a];
    }
#pragma omp parallel for schedule(static) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) pass_begin_vertex(&b->vw, a, (real)t_end, (real)h, grav);
    b->vw.eps = (real)(b->eps_v * h);
    prof_end(b, SIPD_PHASE_OTHER, t0);
    if (b->det) {   /* broad phase over the step start and the initial guess */
        size_t n3 = (size_t)m->nv * 3;
        int rc;
        t0 = prof_begin(b);
        to_d(b->hx, b->x, n3);
        to_d(b->hy, b->y, n3);
        rc = collide_broad(b->det, b->hx, b->hy, b->dhat);
        prof_end(b, SIPD_PHASE_BROAD, t0);
        if (rc != SIPD_OK)
            return rc;
    }
    if (b->ccd) {   /* the initial guess filtered from the "do nothing" state x̂ (backend_cpu.c ccd_filter_guess) */
        size_t i, n = (size_t)m->nv * 3;
        int rc = SIPD_OK;
        double tau;
        t0 = prof_begin(b);
        for (i = 0; i < n; i++) {
            real g = b->y[i];
            step_load_state(m->fixed, b->x, b->y, i);
            b->ccd_u[i] = g - b->y[i];
        }
        ccd_ground(b, b->y, b->ccd_u, 0);
        if (b->det) {
            rc = ccd_bounds(b, b->y);
            memcpy(b->ydet, b->y, n * sizeof(real));
            b->ccd_stale = 0;
            if (rc == SIPD_OK)
                rc = ccd_filter(b, b->y, b->ccd_u, &tau);
        }
        for (i = 0; i < n; i++) b->y[i] += b->ccd_u[i];
        memcpy(b->yp, b->y, n * sizeof(real));
        prof_end(b, SIPD_PHASE_NARROW, t0);
        if (rc != SIPD_OK)
            return rc;
    }
    if (b->det) {
        int changed, rc = cpu32_detect(b, 1, &changed);
        if (rc != SIPD_OK)
            return rc;
    }
    return step_load_eval(b);
}

static int cpu32_direction(sipd_backend *b, sipd_dir_stats *st)
{
    const sipd_model *m = b->m;
    int contacts = 0, precond = b->precond;
    double maxpen = 0, t0 = prof_begin(b);
    /* the fused pass; MASS: the step load's gradient pass (backend_cpu.c cpu_direction) */
    double *acc = precond == SIPD_PRECOND_SPLIT || precond == SIPD_PRECOND_MASS ? b->fz_acc : NULL;
    cpu_element_pass(m, &b->vw, precond, b->split, acc);   /* cpu_loops.h */
    prof_end(b, SIPD_PHASE_ELEMENT, t0);
    t0 = prof_begin(b);
    cpu_vertex_pass(m, &b->vw, precond, b->first, acc, st, &contacts, &maxpen);
    if (b->npr)
        pair_stats(b, &contacts, &maxpen);
    prof_end(b, SIPD_PHASE_VERTEX, t0);
    st->contacts = contacts;
    st->max_pen = maxpen;
    st->cg_iters = 0;
    b->first = 0;
    if (precond == SIPD_PRECOND_HESSIAN || precond == SIPD_PRECOND_NONE) {   /* set_direction gives dy */
        memset(b->dy, 0, sizeof(real) * 3 * (size_t)m->nv);
        st->rmax = 0;
        st->gdy = 0;
        return SIPD_OK;
    }
    if (b->ccd && b->det && !b->ccd_off) {   /* contact.ccd: the whole step against the pairs */
        double tau;
        int rc = ccd_filter(b, b->y, b->dy, &tau);
        st->gdy *= tau;
        st->rmax *= tau;
        return rc;
    }
    return SIPD_OK;
}

static int energy_terms(sipd_backend *b, int terms, double alpha, double *E)
{
    double Ee, Ei, t0 = prof_begin(b);
    cpu_energy_loops(b->m, &b->vw, terms, alpha, &Ee, &Ei);   /* cpu_loops.h */
    *E = Ee + Ei;
    prof_end(b, SIPD_PHASE_ENERGY, t0);
    return SIPD_OK;
}

static int cpu32_energy(sipd_backend *b, double alpha, double *E) { return energy_terms(b, SIPD_TERMS_ALL, alpha, E); }

static int cpu32_terms_energy(sipd_backend *b, int terms, double alpha, double *E)
{
    if (terms != SIPD_TERMS_ALL && terms != SIPD_TERMS_NO_STRETCH)
        return SIPD_EFAIL;
    return energy_terms(b, terms, alpha, E);
}

static int cpu32_apply(sipd_backend *b, double alpha, double omega, double *gs_out)
{
    const sipd_model *m = b->m;
    double t0 = prof_begin(b), gs = cpu_apply_loop(m, &b->vw, alpha, omega);   /* cpu_loops.h */
    int a;
    if (b->ccd && omega != 1) {   /* contact.ccd: an over-relaxed update filtered against the ground */
        size_t i, n = (size_t)m->nv * 3;
        double tau;
        int rc;
        for (i = 0; i < n; i++) b->ccd_u[i] = b->y[i] - b->yp[i];
        ccd_ground(b, b->yp, b->ccd_u, 0);
        if ((rc = ccd_filter(b, b->yp, b->ccd_u, &tau)) != SIPD_OK) {
            prof_end(b, SIPD_PHASE_APPLY, t0);
            return rc;
        }
        gs = 0;
#pragma omp parallel for schedule(static) reduction(+ : gs) if (m->nv > PAR_MIN)
        for (a = 0; a < m->nv; a++) {
            int k;
            for (k = 0; k < 3; k++) {
                size_t j = 3 * (size_t)a + k;
                b->y[j] = b->yp[j] + b->ccd_u[j];
                if (!m->fixed[a])
                    gs += (double)b->g[j] * (double)b->ccd_u[j];
            }
        }
    }
    prof_end(b, SIPD_PHASE_APPLY, t0);
    if (gs_out)
        *gs_out = gs;
    return SIPD_OK;
}

static int cpu32_ccd_scale(sipd_backend *b, double *tau)
{
    *tau = b->ccd_tau;
    return SIPD_OK;
}

static int cpu32_contact_gap(sipd_backend *b, double *gap)
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
            d = (double)v3_dot(v3_load(b->vw.pn), view_ld(b->y, a)) - (double)pass_ground_h(&b->vw, a);
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

static int cpu32_undo(sipd_backend *b)
{
    double t0 = prof_begin(b);
    memcpy(b->y, b->yp, (size_t)b->m->nv * 3 * sizeof(real));
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return SIPD_OK;
}

static int cpu32_snapshot(sipd_backend *b)
{
    double t0 = prof_begin(b);
    memcpy(b->ys, b->y, (size_t)b->m->nv * 3 * sizeof(real));
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return SIPD_OK;
}

static int cpu32_restore(sipd_backend *b)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(real);
    double t0 = prof_begin(b);
    memcpy(b->y, b->ys, n3);
    memcpy(b->yp, b->ys, n3);
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return SIPD_OK;
}

/* Colour by colour; within a colour the vertices with pair incidences are updated serially after
 * the others, in colour order (backend_cpu.c cpu_gs_sweep). */
static int cpu32_gs_sweep(sipd_backend *b, int ls, double omega, sipd_gs_stats *st)
{
    const sipd_model *m = b->m;
    double maxpen;
    int contacts;
    sipd_gs_tally t;
    double t0 = prof_begin(b);
    b->ccd_gs = 1;
    if (b->ccd && b->det && b->ccd_stale) {   /* the balls measured where they are centred */
        int rc = ccd_bounds(b, b->y);
        if (rc != SIPD_OK) {
            prof_end(b, SIPD_PHASE_GS, t0);
            return rc;
        }
        memcpy(b->ydet, b->y, (size_t)m->nv * 3 * sizeof(real));
        b->ccd_stale = 0;
    }
    cpu_gs_colours(m, &b->vw, b->precond, b->split, b->npr ? b->pd.off : NULL, ls, (real)omega, &t);   /* cpu_loops.h */
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
    memcpy(b->yp, b->y, (size_t)m->nv * 3 * sizeof(real));
    prof_end(b, SIPD_PHASE_GS, t0);
    return SIPD_OK;
}

static int cpu32_end_step(sipd_backend *b)
{
    size_t i, n = 3 * (size_t)b->m->nv;
    double t0 = prof_begin(b);
    const real h = (real)b->h;
    int a, p, rc = SIPD_OK;
    if (b->fa) {
#pragma omp parallel for schedule(static) if (b->m->nv > PAR_MIN)
        for (a = 0; a < b->m->nv; a++) pass_end_anchor(&b->vw, a);
    }
    if (b->det && b->mu > 0) {   /* the pairs' anchors from x and y, into pd.o, then the store by key */
#pragma omp parallel for schedule(static) if (b->npr > PAR_MIN)
        for (p = 0; p < b->npr; p++) v3_store(b->pr_onext + 3 * (size_t)p, pass_pair_anchor_next(&b->vw, p));
        to_d(b->pd.o, b->pr_onext, (size_t)b->npr * 3);
        rc = pair_anchor_commit(&b->pd, b->pd.o);
    }
#pragma omp parallel for schedule(static) if (n > 3 * PAR_MIN)
    for (i = 0; i < n; i++) pass_end_component(&b->vw, i, h);
    b->vw.vp_hist = b->vp != NULL;
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return rc;
}

static int cpu32_friction_state(sipd_backend *b, int set, double *buf, long *n)
{
    size_t n3 = b->fa ? (size_t)b->m->nv * 3 : 0;
    long np = 0;
    if (!set) {
        if (b->det)
            pair_anchor_save(&b->pd, NULL, &np);
        *n = friction_state_len(n3, np);
        if (buf) {
            if (n3)
                to_d(buf, b->fa, n3);
            buf[n3] = (double)np;
            if (b->det)
                pair_anchor_save(&b->pd, buf + n3 + 1, &np);
        }
        return SIPD_OK;
    }
    if (!friction_state_fits(buf, *n, n3, b->det != NULL))
        return SIPD_EINPUT;
    if (n3)
        to_f(b->fa, buf, n3);
    return b->det ? pair_anchor_load(&b->pd, buf + n3 + 1, (long)buf[n3]) : SIPD_OK;
}

static int cpu32_gradient(sipd_backend *b, double *g)
{
    double t0 = prof_begin(b);
    to_d(g, b->g, (size_t)b->m->nv * 3);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

static int cpu32_iterate(sipd_backend *b, double *y)
{
    double t0 = prof_begin(b);
    to_d(y, b->y, (size_t)b->m->nv * 3);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

static int cpu32_set_direction(sipd_backend *b, const double *dy)
{
    double t0 = prof_begin(b);
    to_f(b->dy, dy, (size_t)b->m->nv * 3);
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

/* backend.h assemble: the element Hessians of the set's kinds at y (those of a SIPD_PRECOND_HESSIAN
 * direction pass for every term) and the rows (passes.h pass_hessian_row) in float32, converted
 * into H->val; g: ALL the last direction pass's, NO_STRETCH the rows' gradient of the set's terms
 * (backend_cpu.c assemble_terms, in float32). */
static int cpu32_assemble(sipd_backend *b, int terms, sipd_bsr *H, double *g, sipd_bsr_extra *extra)
{
    const sipd_model *m = b->m;
    int a, gi, e, goff[SIPD_KIND_COUNT + 1];
    const int K = model_max_corners(m), all = terms == SIPD_TERMS_ALL;
    sipd_bsr_view hv;
    size_t nval;
    double t0;
    goff[0] = 0;
    for (gi = 0; gi < m->ngroups; gi++) goff[gi + 1] = goff[gi] + m->groups[gi].ne;
    if (terms != SIPD_TERMS_ALL && terms != SIPD_TERMS_NO_STRETCH) {
        sipd_error("cpu-float32 backend: assemble: unknown set of terms %d", terms);
        return SIPD_EFAIL;
    }
    if (H->n != m->nv || H->ne != goff[m->ngroups] || H->k != K)
        return SIPD_EFAIL;
    if (b->npr > b->prD_cap)
        return SIPD_EFAIL;   /* the pairs' blocks are not kept (params.assemble not set) */
    t0 = prof_begin(b);
    nval = (size_t)H->nnzb * 9;
    if (nval > b->hval_cap) {
        free(b->hval);
        b->hval_cap = 0;
        if (!(b->hval = sipd_malloc((nval ? nval : 1) * sizeof(real)))) {
            prof_end(b, SIPD_PHASE_OTHER, t0);
            return SIPD_EFAIL;
        }
        b->hval_cap = nval;
    }
    if (hess_bind(b) != SIPD_OK) {
        prof_end(b, SIPD_PHASE_OTHER, t0);
        return SIPD_EFAIL;
    }
    if (!all || b->precond != SIPD_PRECOND_HESSIAN)   /* the set's element Hessians at y */
        for (gi = 0; gi < b->vw.ngroups; gi++) {
            const int ne = b->vw.grp[gi].ne;
            if (!sipd_terms_kind(terms, b->vw.grp[gi].kind))
                continue;
#pragma omp parallel for schedule(static) if (ne > PAR_MIN)
            for (e = 0; e < ne; e++) pass_element(&b->vw, SIPD_PRECOND_HESSIAN, b->split, gi, e);
        }
    hv.row_off = H->row_off;
    hv.diag = H->diag;
    hv.elem_blk = H->elem_blk;
    hv.k = K;
    for (gi = 0; gi <= m->ngroups; gi++) hv.goff[gi] = goff[gi];
#pragma omp parallel for schedule(static) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        vec3 gb = pass_hessian_row(&b->vw, &hv, b->hval, all, a);
        if (!all) {
            int k;
            for (k = 0; k < 3; k++) g[3 * (size_t)a + k] = (double)gb.v[k];
        }
    }
    to_d(H->val, b->hval, nval);
    if (all)
        to_d(g, b->g, (size_t)m->nv * 3);
    /* the pairs' blocks D_z at y (double for pairs.h), for the couplings β_a β_l D_z */
#pragma omp parallel for schedule(static) if (b->npr > PAR_MIN)
    for (a = 0; a < b->npr; a++) {
        real d[6];
        int k;
        s3_store(d, pass_pair_hessian(&b->vw, a));
        for (k = 0; k < 6; k++) b->pr_D[6 * (size_t)a + k] = (double)d[k];
    }
    b->pc.pd = &b->pd;
    b->pc.D = b->pr_D;
    b->pc.fixed = m->fixed;
    extra->row = b->npr ? pair_coupling_row : NULL;
    extra->blocks = b->npr ? pair_coupling_blocks : NULL;
    extra->ctx = &b->pc;
    prof_end(b, SIPD_PHASE_OTHER, t0);
    return SIPD_OK;
}

static int cpu32_contact_force(sipd_backend *b, double *f)
{
    int a;
#pragma omp parallel for schedule(static) if (b->m->nv > PAR_MIN)
    for (a = 0; a < b->m->nv; a++) {
        vec3 fa = pass_contact_force(&b->vw, a);
        int k;
        for (k = 0; k < 3; k++) f[3 * (size_t)a + k] = (double)fa.v[k];
    }
    return SIPD_OK;
}

static int cpu32_download(sipd_backend *b, double *x, double *v)
{
    size_t n = (size_t)b->m->nv * 3;
    double t0 = prof_begin(b);
    if (x)
        to_d(x, b->x, n);
    if (v)
        to_d(v, b->v, n);
    prof_end(b, SIPD_PHASE_COPY, t0);
    return SIPD_OK;
}

static int cpu32_profile(sipd_backend *b, sipd_profile *out, int reset)
{
    int k;
    *out = b->prof;
    for (k = 0; k < SIPD_NPHASE; k++) out->launches[k] = out->syncs[k] = -1;
    if (reset)
        for (k = 0; k < SIPD_NPHASE; k++) b->prof.ms[k] = 0;
    return SIPD_OK;
}

const sipd_backend_ops sipd_backend_cpu32 = {
    "cpu-float32",  cpu32_create,       cpu32_upload,        cpu32_begin_step,      cpu32_direction,
    cpu32_energy,   cpu32_apply,        cpu32_undo,          cpu32_snapshot,        cpu32_restore,
    cpu32_detect,   cpu32_gs_sweep,     cpu32_end_step,   cpu32_download,        cpu32_destroy,
    cpu32_step_load, cpu32_assemble,    cpu32_set_direction, FLT_EPSILON,           cpu32_terms_energy,
    cpu32_iterate,  cpu32_gradient,     cpu32_contact_force, cpu32_profile,         cpu32_guess_history,
    cpu32_friction_state, cpu32_ccd_scale, cpu32_contact_gap,
};
