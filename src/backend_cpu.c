/* backend_cpu.c — the CPU backend: OpenMP loops around the shared physics headers.
 *
 * Jacobi direction = element pass (per tet: gradient on its 4 vertices and K⁺, stored per
 * tet) + vertex pass (per vertex: gather over its incidences, solve the 3x3 block).  No
 * atomics; each pass is a parallel loop with reductions.  Gauss–Seidel recomputes the
 * element quantities it needs per vertex, colour by colour, so neighbours are fresh.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend.h"
#include "collide.h"
#include "pairs.h"
#include "physics/inertia.h"
#include "physics/kinematic.h"
#include "physics/contact.h"
#include "physics/hessian.h"
#include "physics/tet.h"
#include "util.h"

/* below this many items a loop runs serially: a parallel region costs more than it saves */
#define PAR_MIN 4096
#define GS_MAX_HALVINGS 12

struct sipd_backend {
    const sipd_model *m;
    int split, precond, quasistatic;
    double h, inv_h2, t_end;
    double gq[3];    /* gravity as a potential (quasi-static only) */
    double *x, *v, *yt, *y, *yp, *dy, *g, *ys;
    double *y0, *g0; /* first iterate of the step and its gradient (Rayleigh estimate) */
    int first;       /* the next direction is the step's first                          */
    double *egrad;   /* nt*12                                                        */
    double *eblk;    /* SPLIT: K⁺ per tet (nt*6); BLOCK/DIAG: 4 vertex blocks (nt*24)  */
    /* Newton: the element Hessians of the last direction pass (the driver owns the
       block-CSR matrix and the CG: driver.c, sparse.h) */
    double *eH;                     /* nt*144                                           */
    /* ground contact: plane n·x = ph, penalty kc within dhat; lagged friction (lam_n per
       vertex, frozen at the start of each step), slip threshold eps = eps_v h */
    int contact;
    double pn[3], ph, dhat, kc, mu, eps_v, eps;
    double *lam_n;
    /* pair contact (vertex–face, edge–edge; DESIGN.md §3.6): the detector, the current pairs
       (owned by det), their data (pairs.h: k_c, the lagged normal force, the pairs'
       incidences on free vertices as CSR of pair*4 + slot), and Newton's per-pair blocks */
    sipd_collide *det;
    const sipd_contact_pair *pr;
    int npr, prD_cap;
    sipd_pair_data pd;
    double *pr_D;
    int detect_every, since;   /* iterations since the last narrow phase                 */
    double load;               /* max|g| at the step's "do nothing" state (step_load)     */
    double *ydet;              /* y at the last narrow phase                             */
};

static inline vec3 yv(const double *y, int i) { return v3_load(y + 3 * i); }

/* Ground contact + friction of free vertex a at position p (DESIGN.md §3.6): adds the
 * gradient and block, returns 1 when within d̂, and the penetration below the plane. */
static inline int contact_vertex(const sipd_backend *b, int a, vec3 p, vec3 *g, sym3 *D, double *pen)
{
    vec3 n = v3_load(b->pn);
    *pen = contact_point_penetration(p, n, b->ph);
    return contact_point_eval(p, yv(b->x, a), n, b->ph, b->dhat, b->kc, b->lam_n ? b->lam_n[a] : 0, b->mu, b->eps,
                              g, D);
}

static inline double contact_vertex_energy(const sipd_backend *b, int a, vec3 p)
{
    return contact_point_energy(p, yv(b->x, a), v3_load(b->pn), b->ph, b->dhat, b->kc, b->lam_n ? b->lam_n[a] : 0,
                                b->mu, b->eps);
}

/* z = Σ β_k y_k and z0 = Σ β_k x0_k of pair p at y + α dy (dy may be NULL); vertex `over`
 * (−1: none) taken at position q instead. */
static inline void pair_z(const sipd_backend *b, int p, const double *y, const double *dy, double alpha, int over,
                          vec3 q, vec3 *z, vec3 *z0)
{
    const sipd_contact_pair *P = &b->pr[p];
    vec3 ys[4], xs[4];
    int k;
    for (k = 0; k < 4; k++) {
        int v = P->v[k];
        ys[k] = v == over ? q : dy ? v3_axpy(alpha, yv(dy, v), yv(y, v)) : yv(y, v);
        xs[k] = yv(b->x, v);
    }
    *z = contact_pair_combine(ys, P->beta, 4);
    *z0 = contact_pair_combine(xs, P->beta, 4);
}

/* The pairs' gradient and block on free vertex a at y (a itself at q when over == a).  The
 * block is the exact diagonal block β_a² D_z when `exact` (Gauss–Seidel moves one vertex at a
 * time; Newton's diagonal), else the Jacobi majoriser |β_a| Σ|β| D_z (contact.h). */
static inline void pair_vertex(const sipd_backend *b, int a, const double *y, int over, vec3 q, int exact, vec3 *g,
                               sym3 *D)
{
    int k;
    for (k = b->pd.off[a]; k < b->pd.off[a + 1]; k++) {
        int p = b->pd.inc[k] >> 2, l = b->pd.inc[k] & 3;
        double be = b->pr[p].beta[l];
        vec3 z, z0, gz = v3(0, 0, 0);
        sym3 Dz = s3_zero();
        pair_z(b, p, y, NULL, 0, over, q, &z, &z0);
        contact_point_eval(z, z0, v3_load(b->pr[p].n), 0, b->dhat, b->pd.k[p], b->pd.lam[p], b->mu, b->eps, &gz, &Dz);
        *g = v3_axpy(be, gz, *g);
        *D = s3_axpy(exact ? be * be : contact_pair_jacobi_weight(b->pr[p].beta, 4, l), Dz, *D);
    }
}

static inline double pair_energy(const sipd_backend *b, int p, const double *y, const double *dy, double alpha,
                                 int over, vec3 q)
{
    vec3 z, z0;
    pair_z(b, p, y, dy, alpha, over, q, &z, &z0);
    return contact_point_energy(z, z0, v3_load(b->pr[p].n), 0, b->dhat, b->pd.k[p], b->pd.lam[p], b->mu, b->eps);
}

/* Active pairs (gap < d̂) and the deepest penetration at y. */
static void pair_stats(const sipd_backend *b, int *active, double *maxpen)
{
    int p, n = 0;
    double mp = 0;
#pragma omp parallel for schedule(static) reduction(+ : n) reduction(max : mp) if (b->npr > PAR_MIN)
    for (p = 0; p < b->npr; p++) {
        vec3 z, z0, np = v3_load(b->pr[p].n);
        double pen;
        pair_z(b, p, b->y, NULL, 0, -1, v3(0, 0, 0), &z, &z0);
        n += contact_plane_gap(z, np, 0) < b->dhat;
        pen = contact_point_penetration(z, np, 0);
        if (pen > mp)
            mp = pen;
    }
    *active += n;
    if (mp > *maxpen)
        *maxpen = mp;
}

static void cpu_destroy(sipd_backend *b)
{
    if (!b)
        return;
    free(b->x); free(b->v); free(b->yt); free(b->y); free(b->yp); free(b->dy); free(b->g);
    free(b->ys); free(b->egrad); free(b->eblk); free(b->y0); free(b->g0);
    free(b->eH); free(b->lam_n);
    collide_destroy(b->det);
    pair_data_free(&b->pd); free(b->pr_D); free(b->ydet);
    free(b);
}

/* Newton's per-element Hessians (the pattern and the matrix are the driver's). */
static int newton_alloc(sipd_backend *b)
{
    b->eH = sipd_malloc((size_t)b->m->nt * 144 * sizeof(double));
    return b->eH ? SIPD_OK : SIPD_EFAIL;
}

static int cpu_create(sipd_backend **out, const sipd_model *m, const sipd_backend_params *p)
{
    sipd_backend *b = sipd_calloc(1, sizeof *b);
    size_t n3 = (size_t)m->nv * 3 * sizeof(double);
    size_t nblk = p->precond == SIPD_PRECOND_SPLIT ? 6 : 24;
    if (!b)
        return SIPD_EFAIL;
    b->m = m;
    b->split = p->split;
    b->precond = p->precond;
    b->contact = p->contact;
    b->dhat = p->dhat;
    b->kc = p->kc > 0 ? p->kc : m->contact_k_auto;
    b->mu = p->mu;
    b->eps_v = p->eps_v;
    if (p->contact) {
        int k;
        for (k = 0; k < 3; k++) b->pn[k] = p->plane_n[k];
        b->ph = p->plane_h;
        if (b->mu > 0 && !(b->lam_n = sipd_calloc((size_t)m->nv, sizeof(double)))) {
            cpu_destroy(b);
            return SIPD_EFAIL;
        }
    }
    b->detect_every = p->detect_every > 0 ? p->detect_every : 4;
    if (p->pairs && (collide_create(&b->det, m, p->self, SIPD_DETECT_FACTOR * p->dhat) != SIPD_OK ||
                     pair_data_init(&b->pd, m->nv) != SIPD_OK ||
                     !(b->ydet = sipd_malloc((size_t)m->nv * 3 * sizeof(double))))) {
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
    b->egrad = sipd_malloc((size_t)m->nt * 12 * sizeof(double));
    b->eblk = sipd_malloc((size_t)m->nt * nblk * sizeof(double));
    if (!b->x || !b->v || !b->yt || !b->y || !b->yp || !b->dy || !b->g || !b->ys || !b->y0 || !b->g0 || !b->egrad || !b->eblk ||
        (p->precond == SIPD_PRECOND_NEWTON && newton_alloc(b) != SIPD_OK)) {
        cpu_destroy(b);
        return SIPD_EFAIL;
    }
    *out = b;
    return SIPD_OK;
}

static int cpu_upload(sipd_backend *b, const double *x, const double *v)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(double);
    memcpy(b->x, x, n3);
    memcpy(b->v, v, n3);
    memcpy(b->y, x, n3);
    memcpy(b->yp, x, n3);
    return SIPD_OK;
}

/* run = 0: is a narrow phase due?  run = 1: run it (backend.h). */
static int cpu_detect(sipd_backend *b, int run, int *flag)
{
    const sipd_model *m = b->m;
    int before = b->npr;
    *flag = 0;
    if (!b->det)
        return SIPD_OK;
    if (!run) {
        double lim = SIPD_DETECT_MOVE(b->dhat), mv = 0;
        int a;
        if (++b->since >= b->detect_every) {
            *flag = 1;
            return SIPD_OK;
        }
#pragma omp parallel for schedule(static) reduction(max : mv) if (m->nv > PAR_MIN)
        for (a = 0; a < m->nv; a++) {
            double d2 = v3_norm2(v3_sub(yv(b->y, a), yv(b->ydet, a)));
            mv = d2 > mv ? d2 : mv;
        }
        *flag = mv > lim * lim;
        return SIPD_OK;
    }
    /* the broad-phase boxes cover every vertex's path from x0 to the initial guess, with a
       margin of d̂; an iterate that left them gets a fresh broad phase */
    if (collide_outside(b->det, b->y) && collide_broad(b->det, b->x, b->y, b->dhat) != SIPD_OK)
        return SIPD_EFAIL;
    if (collide_narrow(b->det, b->x, b->y, &b->pr, &b->npr) != SIPD_OK ||
        pair_data_build(&b->pd, b->m, b->pr, b->npr, b->x, b->kc, b->mu, b->dhat) != SIPD_OK)
        return SIPD_EFAIL;
    if (b->precond == SIPD_PRECOND_NEWTON && b->npr > b->prD_cap) {   /* Newton's per-pair blocks */
        free(b->pr_D);
        b->prD_cap = b->npr + b->npr / 2 + 16;
        if (!(b->pr_D = sipd_malloc((size_t)b->prD_cap * 6 * sizeof(double)))) {
            b->prD_cap = 0;
            return SIPD_EFAIL;
        }
    }
    memcpy(b->ydet, b->y, (size_t)m->nv * 3 * sizeof(double));
    b->since = 0;
    *flag = before > 0 || b->npr > 0;
    return SIPD_OK;
}

static int cpu_direction(sipd_backend *b, sipd_dir_stats *st);

/* The step's load (backend.h): one gradient pass (the direction pass with D = m/h² I, the
 * cheapest) at the "do nothing" state, y restored to the initial guess after it. */
static int step_load_eval(sipd_backend *b)
{
    const sipd_model *m = b->m;
    size_t n3 = (size_t)m->nv * 3 * sizeof(double);
    sipd_dir_stats st;
    int a, precond = b->precond, rc;
    memcpy(b->ys, b->y, n3);
    for (a = 0; a < m->nv; a++)
        if (!m->fixed[a])
            memcpy(b->y + 3 * a, b->x + 3 * a, 3 * sizeof(double));
    memset(&st, 0, sizeof st);
    b->precond = SIPD_PRECOND_MASS;
    b->first = 0;
    rc = cpu_direction(b, &st);
    b->precond = precond;
    memcpy(b->y, b->ys, n3);
    memcpy(b->yp, b->ys, n3);
    memset(b->dy, 0, n3);
    b->first = 1;
    b->load = st.gmax;
    return rc;
}

static int cpu_step_load(sipd_backend *b, double *fmax)
{
    *fmax = b->load;
    return SIPD_OK;
}

static int cpu_begin_step(sipd_backend *b, double t_end, double h, const double gravity[3], int qs)
{
    const sipd_model *m = b->m;
    int a;
    b->h = h;
    b->t_end = t_end;
    b->quasistatic = qs;
    b->inv_h2 = qs ? 0 : 1 / (h * h);
    for (a = 0; a < 3; a++) b->gq[a] = qs ? gravity[a] : 0;
#pragma omp parallel for schedule(static) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        int k;
        if (m->fixed[a]) {
            model_prescribed(m, a, t_end, b->y + 3 * a);
            for (k = 0; k < 3; k++) b->yt[3 * a + k] = b->y[3 * a + k];
        } else {
            for (k = 0; k < 3; k++) {
                double xt = qs ? b->x[3 * a + k] : b->x[3 * a + k] + h * b->v[3 * a + k] + h * h * gravity[k];
                b->yt[3 * a + k] = xt;
                b->y[3 * a + k] = xt;   /* initial guess: the inertial target */
            }
        }
        for (k = 0; k < 3; k++) {
            b->yp[3 * a + k] = b->y[3 * a + k];
            b->dy[3 * a + k] = 0;
        }
        if (b->lam_n)   /* friction's normal force, lagged: from the step-start position */
            b->lam_n[a] = friction_normal_force(yv(b->x, a), v3_load(b->pn), b->ph, b->dhat, b->kc);
    }
    b->eps = b->eps_v * h;
    if (b->det) {   /* broad phase over the step start and the initial guess, then narrow */
        int changed;
        if (collide_broad(b->det, b->x, b->y, b->dhat) != SIPD_OK || cpu_detect(b, 1, &changed) != SIPD_OK)
            return SIPD_EFAIL;
    }
    return step_load_eval(b);
}


/* ---- Newton: assemble H at y (rows gathered per vertex, no races); the driver solves
 * H dy = −g by PCG (driver.c, sparse.h) and sets dy (backend.h, hessian / set_direction) ---- */

/* The pair couplings Σ β_a β_l D_z x_l of row a over the pair's other free vertices, applied
 * matrix-free after the row's stored blocks (sparse.h, sipd_bsr_extra). */
static void pair_coupling_row(const void *ctx, int a, const double *x, double o[3])
{
    const sipd_backend *b = (const sipd_backend *)ctx;
    const sipd_model *m = b->m;
    int k, i;
    if (m->fixed[a])
        return;
    for (k = b->pd.off[a]; k < b->pd.off[a + 1]; k++) {
        int p = b->pd.inc[k] >> 2, l = b->pd.inc[k] & 3, c;
        sym3 Dz;
        s3_load(b->pr_D + 6 * p, &Dz);
        for (c = 0; c < 4; c++) {
            int v = b->pr[p].v[c];
            vec3 w;
            if (c == l || m->fixed[v])
                continue;
            w = s3_mulv(Dz, yv(x, v));
            for (i = 0; i < 3; i++) o[i] += b->pr[p].beta[l] * b->pr[p].beta[c] * w.v[i];
        }
    }
}

/* The direction pass of Newton leaves dy = 0: the driver's CG sets it (cpu_set_direction). */
static int newton_direction(sipd_backend *b, sipd_dir_stats *st)
{
    memset(b->dy, 0, sizeof(double) * 3 * (size_t)b->m->nv);
    st->rmax = 0;
    st->gdy = 0;
    st->cg_iters = 0;
    return SIPD_OK;
}

/* H (pattern: bsr_pattern over the model's tets) = the PSD-projected Hessian at y: row a =
 * m/h² I + contact blocks + Σ element blocks, Dirichlet rows/columns eliminated; g copied
 * out; the pairs' couplings as *extra. */
static int cpu_hessian(sipd_backend *b, sipd_bsr *H, double *g, sipd_bsr_extra *extra)
{
    const sipd_model *m = b->m;
    int a;
    if (!b->eH || H->n != m->nv || H->ne != m->nt || H->k != 4)
        return SIPD_EFAIL;
#pragma omp parallel for schedule(static) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        int i;
        double *D = H->val + 9 * (size_t)H->diag[a];
        memset(H->val + 9 * (size_t)H->row_off[a], 0, sizeof(double) * 9 * (size_t)(H->row_off[a + 1] - H->row_off[a]));
        if (m->fixed[a]) {
            D[0] = D[4] = D[8] = 1;
        } else {
            D[0] += m->mass[a] * b->inv_h2;
            D[4] += m->mass[a] * b->inv_h2;
            D[8] += m->mass[a] * b->inv_h2;
            if (b->contact) {   /* contact and friction blocks (their gradient is in g) */
                vec3 gd = v3(0, 0, 0);
                sym3 Dc = s3_zero();
                double pen;
                mat3 Cm;
                int r;
                contact_vertex(b, a, yv(b->y, a), &gd, &Dc, &pen);
                Cm = s3_to_m3(Dc);
                for (r = 0; r < 9; r++) D[r] += Cm.m[r];
            }
            if (b->npr) {   /* the pairs' diagonal blocks β_a² D_z; the couplings are *extra */
                vec3 gd = v3(0, 0, 0);
                sym3 Dc = s3_zero();
                mat3 Cm;
                int r;
                pair_vertex(b, a, b->y, -1, v3(0, 0, 0), 1, &gd, &Dc);
                Cm = s3_to_m3(Dc);
                for (r = 0; r < 9; r++) D[r] += Cm.m[r];
            }
            for (i = m->inc_off[a]; i < m->inc_off[a + 1]; i++) {
                int e = m->inc[i] >> 2, l = m->inc[i] & 3, c, r, s;
                const double *He = b->eH + 144 * e;
                for (c = 0; c < 4; c++) {
                    double *B;
                    if (m->fixed[m->tets[4 * e + c]])
                        continue;
                    B = H->val + 9 * H->elem_blk[16 * e + 4 * l + c];
                    for (r = 0; r < 3; r++)
                        for (s = 0; s < 3; s++) B[3 * r + s] += He[12 * (3 * l + r) + 3 * c + s];
                }
            }
        }
    }
    /* the pairs' blocks D_z at y, for the couplings β_a β_l D_z between a pair's vertices */
#pragma omp parallel for schedule(static) if (b->npr > PAR_MIN)
    for (a = 0; a < b->npr; a++) {
        vec3 z, z0, gz = v3(0, 0, 0);
        sym3 Dz = s3_zero();
        pair_z(b, a, b->y, NULL, 0, -1, v3(0, 0, 0), &z, &z0);
        contact_point_eval(z, z0, v3_load(b->pr[a].n), 0, b->dhat, b->pd.k[a], b->pd.lam[a], b->mu, b->eps, &gz, &Dz);
        s3_store(b->pr_D + 6 * a, Dz);
    }
    memcpy(g, b->g, sizeof(double) * 3 * (size_t)m->nv);
    extra->row = b->npr ? pair_coupling_row : NULL;
    extra->ctx = b;
    return SIPD_OK;
}

static int cpu_set_direction(sipd_backend *b, const double *dy)
{
    memcpy(b->dy, dy, sizeof(double) * 3 * (size_t)b->m->nv);
    return SIPD_OK;
}

static int cpu_direction(sipd_backend *b, sipd_dir_stats *st)
{
    const sipd_model *m = b->m;
    const double *y = b->y;
    double rmax = 0, gmax = 0, gdy = 0, gs = 0, sDs = 0, maxpen = 0, dnum = 0, dden = 0;
    double gsx = 0, gsy = 0, gsz = 0;
    int nonspd = 0, contacts = 0, first = b->first, e, a;
    vec3 gq = v3_load(b->gq);

    /* element pass */
#pragma omp parallel for schedule(static) if (m->nt > PAR_MIN)
    for (e = 0; e < m->nt; e++) {
        const int *t = m->tets + 4 * e;
        vec3 gr[4];
        sym3 Kp;
        int l;
        const sipd_material *mat = &m->mats[m->tet_mat[e]];
        tet_element(mat, b->split, m->Bm + 9 * e, m->vol[e], yv(y, t[0]), yv(y, t[1]), yv(y, t[2]), yv(y, t[3]),
                    gr, &Kp);
        for (l = 0; l < 4; l++) v3_store(b->egrad + 12 * e + 3 * l, gr[l]);
        if (b->precond == SIPD_PRECOND_SPLIT) {
            s3_store(b->eblk + 6 * e, Kp);
        } else if (b->precond == SIPD_PRECOND_BLOCK || b->precond == SIPD_PRECOND_DIAG) {
            mat3 F = tet_F(m->Bm + 9 * e, yv(y, t[0]), yv(y, t[1]), yv(y, t[2]), yv(y, t[3]));
            for (l = 0; l < 4; l++) {
                sym3 B = tet_vertex_block_psd(mat, m->Bm + 9 * e, m->vol[e], F, l);
                if (b->precond == SIPD_PRECOND_DIAG)
                    B.s[3] = B.s[4] = B.s[5] = 0;
                s3_store(b->eblk + 24 * e + 6 * l, B);
            }
        } else if (b->precond == SIPD_PRECOND_NEWTON) {
            mat3 F = tet_F(m->Bm + 9 * e, yv(y, t[0]), yv(y, t[1]), yv(y, t[2]), yv(y, t[3]));
            tet_element_hessian(mat, m->Bm + 9 * e, m->vol[e], F, 1, b->eH + 144 * e);
        }
    }
    /* vertex pass */
#pragma omp parallel for schedule(static) reduction(max : rmax, gmax, maxpen) reduction(+ : gdy, gs, sDs, nonspd, contacts, dnum, dden, gsx, gsy, gsz) \
    if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        vec3 ga, d, s;
        sym3 D;
        int k;
        double n2;
        if (m->fixed[a]) {
            v3_store(b->dy + 3 * a, v3(0, 0, 0));
            v3_store(b->g + 3 * a, v3(0, 0, 0));
            continue;
        }
        ga = inertia_gradient(m->mass[a], b->inv_h2, gq, yv(y, a), yv(b->yt, a));
        D = s3_diag(m->mass[a] * b->inv_h2);
        if (b->contact) {
            double pen;
            contacts += contact_vertex(b, a, yv(y, a), &ga, &D, &pen);
            if (pen > maxpen)
                maxpen = pen;
        }
        if (b->npr)
            pair_vertex(b, a, y, -1, v3(0, 0, 0), 0, &ga, &D);
        /* gather; one loop per kind of D so the hot SIPD loop carries no branch */
        if (b->precond == SIPD_PRECOND_SPLIT) {
            for (k = m->inc_off[a]; k < m->inc_off[a + 1]; k++) {
                int inc = m->inc[k], e2 = inc >> 2, l = inc & 3;
                sym3 Kp;
                ga = v3_add(ga, v3_load(b->egrad + 12 * e2 + 3 * l));
                s3_load(b->eblk + 6 * e2, &Kp);
                D = s3_axpy(m->inc_w[k], Kp, D);
            }
        } else if (b->precond == SIPD_PRECOND_BLOCK || b->precond == SIPD_PRECOND_DIAG) {
            for (k = m->inc_off[a]; k < m->inc_off[a + 1]; k++) {
                int inc = m->inc[k], e2 = inc >> 2, l = inc & 3;
                sym3 B;
                ga = v3_add(ga, v3_load(b->egrad + 12 * e2 + 3 * l));
                s3_load(b->eblk + 24 * e2 + 6 * l, &B);
                D = s3_add(D, B);
            }
        } else {
            for (k = m->inc_off[a]; k < m->inc_off[a + 1]; k++) {
                int inc = m->inc[k];
                ga = v3_add(ga, v3_load(b->egrad + 12 * (inc >> 2) + 3 * (inc & 3)));
            }
        }
        n2 = v3_norm2(ga);
        if (n2 > gmax)
            gmax = n2;
        gsx += ga.v[0];
        gsy += ga.v[1];
        gsz += ga.v[2];
        if (b->precond == SIPD_PRECOND_NEWTON) {   /* dy comes from the CG solve below */
            v3_store(b->g + 3 * a, ga);
            continue;
        }
        s = v3_sub(yv(y, a), yv(b->yp, a));
        gs += v3_dot(ga, s);
        sDs += v3_dot(s, s3_mulv(D, s));
        if (first) {
            v3_store(b->y0 + 3 * a, yv(y, a));
            v3_store(b->g0 + 3 * a, ga);
        } else {
            vec3 dd = v3_sub(yv(y, a), yv(b->y0, a));
            dnum += v3_dot(v3_sub(ga, yv(b->g0, a)), dd);
            dden += v3_dot(dd, s3_mulv(D, dd));
        }
        if (!s3_solve(D, v3_scale(ga, -1), &d))
            nonspd++;
        else if (D.s[0] <= 0 || D.s[1] <= 0 || D.s[2] <= 0)
            nonspd++;
        v3_store(b->dy + 3 * a, d);
        v3_store(b->g + 3 * a, ga);
        gdy += v3_dot(ga, d);
        n2 = v3_norm2(d);
        if (n2 > rmax)
            rmax = n2;
    }
    st->rmax = sqrt(rmax);
    st->gmax = sqrt(gmax);
    st->gsum[0] = gsx;
    st->gsum[1] = gsy;
    st->gsum[2] = gsz;
    st->have_gsum = 1;
    st->gdy = gdy;
    st->gs = gs;
    st->sDs = sDs;
    st->nonspd = nonspd;
    if (b->npr)
        pair_stats(b, &contacts, &maxpen);
    st->contacts = contacts;
    st->max_pen = maxpen;
    st->d_num = dnum;
    st->d_den = dden;
    b->first = 0;
    st->cg_iters = 0;
    if (b->precond == SIPD_PRECOND_NEWTON)
        return newton_direction(b, st);
    return SIPD_OK;
}

static int cpu_energy(sipd_backend *b, double alpha, double *E)
{
    const sipd_model *m = b->m;
    const double *y = b->y, *dy = b->dy;
    double Ee = 0, Ei = 0;
    vec3 gq = v3_load(b->gq);
    int e, a;
#pragma omp parallel for schedule(static) reduction(+ : Ee) if (m->nt > PAR_MIN)
    for (e = 0; e < m->nt; e++) {
        const int *t = m->tets + 4 * e;
        vec3 p[4];
        int l;
        for (l = 0; l < 4; l++) p[l] = v3_axpy(alpha, yv(dy, t[l]), yv(y, t[l]));
        Ee += tet_energy(&m->mats[m->tet_mat[e]], m->Bm + 9 * e, m->vol[e], p[0], p[1], p[2], p[3]);
    }
#pragma omp parallel for schedule(static) reduction(+ : Ei) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        vec3 p = v3_axpy(alpha, yv(dy, a), yv(y, a));
        Ei += inertia_energy(m->mass[a], b->inv_h2, gq, p, yv(b->yt, a));
        if (b->contact && !m->fixed[a])
            Ei += contact_vertex_energy(b, a, p);
    }
#pragma omp parallel for schedule(static) reduction(+ : Ei) if (b->npr > PAR_MIN)
    for (a = 0; a < b->npr; a++) Ei += pair_energy(b, a, y, dy, alpha, -1, v3(0, 0, 0));
    *E = Ee + Ei;
    return SIPD_OK;
}

static int cpu_apply(sipd_backend *b, double alpha, double omega, double *gs_out)
{
    const sipd_model *m = b->m;
    double gs = 0;
    int a;
#pragma omp parallel for schedule(static) reduction(+ : gs) if (m->nv > PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        int k;
        if (m->fixed[a])
            continue;
        for (k = 0; k < 3; k++) {
            int i = 3 * a + k;
            double yn = b->yp[i] + omega * (b->y[i] + alpha * b->dy[i] - b->yp[i]);
            gs += b->g[i] * (yn - b->y[i]);
            b->yp[i] = b->y[i];
            b->y[i] = yn;
        }
    }
    if (gs_out)
        *gs_out = gs;
    return SIPD_OK;
}

static int cpu_undo(sipd_backend *b)
{
    memcpy(b->y, b->yp, (size_t)b->m->nv * 3 * sizeof(double));
    return SIPD_OK;
}

static int cpu_snapshot(sipd_backend *b)
{
    memcpy(b->ys, b->y, (size_t)b->m->nv * 3 * sizeof(double));
    return SIPD_OK;
}

static int cpu_restore(sipd_backend *b)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(double);
    memcpy(b->y, b->ys, n3);
    memcpy(b->yp, b->ys, n3);
    return SIPD_OK;
}

/* Local energy of the terms that involve vertex a, with a placed at p. */
static double local_energy(const sipd_backend *b, int a, vec3 p)
{
    const sipd_model *m = b->m;
    double E = inertia_energy(m->mass[a], b->inv_h2, v3_load(b->gq), p, yv(b->yt, a));
    int k;
    if (b->contact)
        E += contact_vertex_energy(b, a, p);
    for (k = b->npr ? b->pd.off[a] : 0; k < (b->npr ? b->pd.off[a + 1] : 0); k++)
        E += pair_energy(b, b->pd.inc[k] >> 2, b->y, NULL, 0, a, p);
    for (k = m->inc_off[a]; k < m->inc_off[a + 1]; k++) {
        int inc = m->inc[k], e = inc >> 2, l = inc & 3, j;
        const int *t = m->tets + 4 * e;
        vec3 q[4];
        for (j = 0; j < 4; j++) q[j] = yv(b->y, t[j]);
        q[l] = p;
        E += tet_energy(&m->mats[m->tet_mat[e]], m->Bm + 9 * e, m->vol[e], q[0], q[1], q[2], q[3]);
    }
    return E;
}

/* Per-sweep tallies of the Gauss–Seidel vertex updates. */
typedef struct {
    double rmax2, gmax2, maxpen;
    int backtracks, rejected, contacts;
} gs_tally;

/* Local step of free vertex a: gradient and D of the terms that involve a, Δ = −D⁻¹g, a local
 * backtracking line search from α = ω when ls; y_a updated in place. */
static void gs_vertex(sipd_backend *b, int a, int ls, double omega, gs_tally *t)
{
    const sipd_model *m = b->m;
    vec3 gq = v3_load(b->gq), ya = yv(b->y, a), ga, d;
    sym3 D;
    double alpha = omega, n2, E0, noise = 0;
    int k;
    ga = inertia_gradient(m->mass[a], b->inv_h2, gq, ya, yv(b->yt, a));
    E0 = inertia_energy(m->mass[a], b->inv_h2, gq, ya, yv(b->yt, a));
    D = s3_diag(m->mass[a] * b->inv_h2);
    if (b->contact) {
        double pen;
        t->contacts += contact_vertex(b, a, ya, &ga, &D, &pen);
        if (pen > t->maxpen)
            t->maxpen = pen;
        E0 += contact_vertex_energy(b, a, ya);
    }
    if (b->npr) {
        pair_vertex(b, a, b->y, -1, ya, 1, &ga, &D);
        for (k = b->pd.off[a]; k < b->pd.off[a + 1]; k++)
            E0 += pair_energy(b, b->pd.inc[k] >> 2, b->y, NULL, 0, -1, ya);
    }
    for (k = m->inc_off[a]; k < m->inc_off[a + 1]; k++) {
        int inc = m->inc[k], e = inc >> 2, l = inc & 3;
        const int *tt = m->tets + 4 * e;
        sym3 Kp;
        double Ee;
        const sipd_material *mat = &m->mats[m->tet_mat[e]];
        ga = v3_add(ga, tet_vertex_eval(mat, b->split, m->Bm + 9 * e, m->vol[e], yv(b->y, tt[0]), yv(b->y, tt[1]),
                                        yv(b->y, tt[2]), yv(b->y, tt[3]), l, &Kp, &Ee));
        E0 += Ee;
        noise += (double)(mat->mu + mat->lambda) * m->vol[e];
        if (b->precond == SIPD_PRECOND_SPLIT) {
            D = s3_axpy(m->inc_w[k], Kp, D);
        } else if (b->precond == SIPD_PRECOND_BLOCK || b->precond == SIPD_PRECOND_DIAG) {
            mat3 F = tet_F(m->Bm + 9 * e, yv(b->y, tt[0]), yv(b->y, tt[1]), yv(b->y, tt[2]), yv(b->y, tt[3]));
            sym3 B = tet_vertex_block_psd(mat, m->Bm + 9 * e, m->vol[e], F, l);
            if (b->precond == SIPD_PRECOND_DIAG)
                B.s[3] = B.s[4] = B.s[5] = 0;
            D = s3_add(D, B);
        }
    }
    s3_solve(D, v3_scale(ga, -1), &d);
    n2 = v3_norm2(d);
    if (n2 > t->rmax2)
        t->rmax2 = n2;
    n2 = v3_norm2(ga);
    if (n2 > t->gmax2)
        t->gmax2 = n2;
    if (ls) {
        double gd = v3_dot(ga, d);
        int h;
        for (h = 0; h < GS_MAX_HALVINGS; h++) {
            double E1 = local_energy(b, a, v3_axpy(alpha, d, ya));
            if (local_ls_accept(E1, E0, alpha, gd, noise))   /* physics/common.h */
                break;
            alpha *= 0.5;
            t->backtracks++;
        }
        if (h == GS_MAX_HALVINGS) {
            t->rejected++;
            return;
        }
    }
    v3_store(b->y + 3 * a, v3_axpy(alpha, d, ya));
}

/* Colour by colour.  The colouring separates vertices that share a tet, not vertices that
 * share a contact pair, so within a colour the vertices with pair incidences are updated
 * serially after the others (in colour order: deterministic). */
static int cpu_gs_sweep(sipd_backend *b, int ls, double omega, sipd_gs_stats *st)
{
    const sipd_model *m = b->m;
    double rmax = 0, gmax = 0, maxpen = 0;
    int backtracks = 0, rejected = 0, contacts = 0, c;
    gs_tally ser = {0, 0, 0, 0, 0, 0};
    for (c = 0; c < m->ncolors; c++) {
        int i;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : rmax, gmax, maxpen) reduction(+ : backtracks, rejected, contacts) \
    if (m->color_off[c + 1] - m->color_off[c] > PAR_MIN / 4)
        for (i = m->color_off[c]; i < m->color_off[c + 1]; i++) {
            int a = m->color_verts[i];
            gs_tally t = {0, 0, 0, 0, 0, 0};
            if (m->fixed[a] || (b->npr && b->pd.off[a + 1] > b->pd.off[a]))
                continue;
            gs_vertex(b, a, ls, omega, &t);
            rmax = t.rmax2 > rmax ? t.rmax2 : rmax;
            gmax = t.gmax2 > gmax ? t.gmax2 : gmax;
            maxpen = t.maxpen > maxpen ? t.maxpen : maxpen;
            backtracks += t.backtracks;
            rejected += t.rejected;
            contacts += t.contacts;
        }
        if (b->npr)
            for (i = m->color_off[c]; i < m->color_off[c + 1]; i++) {
                int a = m->color_verts[i];
                if (!m->fixed[a] && b->pd.off[a + 1] > b->pd.off[a])
                    gs_vertex(b, a, ls, omega, &ser);
            }
    }
    rmax = ser.rmax2 > rmax ? ser.rmax2 : rmax;
    gmax = ser.gmax2 > gmax ? ser.gmax2 : gmax;
    maxpen = ser.maxpen > maxpen ? ser.maxpen : maxpen;
    backtracks += ser.backtracks;
    rejected += ser.rejected;
    contacts += ser.contacts;
    if (b->npr)
        pair_stats(b, &contacts, &maxpen);
    st->rmax = sqrt(rmax);
    st->gmax = sqrt(gmax);
    st->contacts = contacts;
    st->max_pen = maxpen;
    st->backtracks = backtracks;
    st->rejected = rejected;
    /* y_prev tracks y so that a following Jacobi/Rayleigh estimate starts clean */
    memcpy(b->yp, b->y, (size_t)m->nv * 3 * sizeof(double));
    return SIPD_OK;
}

static int cpu_end_step(sipd_backend *b)
{
    const sipd_model *m = b->m;
    int i;
#pragma omp parallel for schedule(static) if (m->nv > PAR_MIN)
    for (i = 0; i < 3 * m->nv; i++) {
        b->v[i] = b->quasistatic ? 0 : (b->y[i] - b->x[i]) / b->h;
        b->x[i] = b->y[i];
    }
    return SIPD_OK;
}

static int cpu_download(sipd_backend *b, double *x, double *v)
{
    size_t n3 = (size_t)b->m->nv * 3 * sizeof(double);
    if (x)
        memcpy(x, b->x, n3);
    if (v)
        memcpy(v, b->v, n3);
    return SIPD_OK;
}

const sipd_backend_ops sipd_backend_cpu = {
    "cpu",        cpu_create,   cpu_upload,  cpu_begin_step, cpu_direction, cpu_energy,    cpu_apply,
    cpu_undo,     cpu_snapshot, cpu_restore, cpu_detect,     cpu_gs_sweep,  cpu_end_step,  cpu_download,
    cpu_destroy,  cpu_step_load, cpu_hessian, cpu_set_direction,
};
