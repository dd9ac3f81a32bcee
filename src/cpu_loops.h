/* cpu_loops.h — the CPU backends' OpenMP loops over the per-item passes (passes.h): the Jacobi
 * direction's element and vertex passes (the fused pass included) and the Gauss–Seidel colour
 * sweep, written once and compiled in each CPU backend's own precision — backend_cpu.c (float64)
 * and backend_cpu32.c (float32, SIPD_REAL_FLOAT) include it after passes.h.  Host only: the
 * CUDA backend has its kernels.  The loops read the model's integer data (colouring, chunks,
 * fixed flags) and the backend's view; the view's arrays and materials are in the backend's
 * precision (never the model's double sipd_material array, whose layout differs in float32).
 */
#ifndef SIPD_CPU_LOOPS_H
#define SIPD_CPU_LOOPS_H

#include <stdlib.h>

#include "model.h"
#include "passes.h"
#include "util.h"

#ifndef CPU_PAR_MIN
#define CPU_PAR_MIN 4096   /* below this many items a loop runs serially */
#endif

/* 1: the model's elements are tets and every material (the view's, nmat of them) is stable
 * neo-Hookean: the Gauss–Seidel sweep runs the specialised pass (pass_gs_vertex_tet_snh). */
static inline int cpu_model_tet_snh(const sipd_model *m, const sipd_view *vw)
{
    int g, i;
    for (g = 0; g < m->ngroups; g++)
        if (m->groups[g].ne > 0 && m->groups[g].kind != SIPD_KIND_TET)
            return 0;
    for (i = 0; i < m->nmat; i++)
        if (vw->mats[i].model != SIPD_MAT_STABLE_NEOHOOKEAN)
            return 0;
    return 1;
}

/* 1: the environment variable `name` is set to a non-zero number (the diagnostics below). */
static inline int cpu_env_flag(const char *name)
{
    const char *env = getenv(name);
    return env && atoi(env) != 0;
}

/* The fused pass's accumulators (9 doubles per vertex, zeroed, in either precision) when it applies: the model has its tet
 * chunks (model.h chunk_*: the elements are one tet group), the preconditioner is SIPD's split,
 * and SIPD_CPU_GATHER is not set to a non-zero value in the environment (a diagnostic that keeps
 * the gather: test_solver fused compares the two).  *acc NULL: the gather.  Returns SIPD_EFAIL
 * when out of memory. */
static inline int cpu_fused_setup(const sipd_model *m, int precond, double **acc)
{
    *acc = NULL;
    if (precond != SIPD_PRECOND_SPLIT || m->nchunk_colors == 0 || cpu_env_flag("SIPD_CPU_GATHER"))
        return SIPD_OK;
    *acc = sipd_calloc((size_t)m->nv * 9, sizeof(double));
    return *acc ? SIPD_OK : SIPD_EFAIL;
}

/* The element pass of the Jacobi direction.  acc non-NULL: the fused pass (docs/benchmarks.md,
 * "The fused Jacobi pass"; the model's tet chunks, model.h chunk_*): every tet's corner terms
 * into acc (9 per vertex), chunk colour by chunk colour, so that a vertex receives its terms in
 * one order whatever the thread count; with SIPD_PRECOND_MASS (the step load's gradient pass,
 * backend_cpu.c step_load_eval) the gradients alone, the first 3 of the 9.  Else every element's
 * results into the view's per-element arrays, for pass_vertex to gather. */
static inline void cpu_element_pass(const sipd_model *m, const sipd_view *vw, int precond, int split, double *acc)
{
    int g, e;
    if (acc) {
        const sipd_group_view *G = &vw->grp[m->chunk_group];
        const int ne = G->ne, snh = cpu_model_tet_snh(m, vw) && !cpu_env_flag("SIPD_CPU_SCALAR");
        const int grad_only = precond == SIPD_PRECOND_MASS;
#pragma omp parallel if (ne > CPU_PAR_MIN)
        {
            int c, j, k;
            for (c = 0; c < m->nchunk_colors; c++) {
                /* dynamic: a chunk's sums do not depend on the thread that runs it, and a thread
                   that runs slower (a shared machine) then leaves no other waiting at the colour's end */
#pragma omp for schedule(dynamic, 1)
                for (j = m->chunk_off[c]; j < m->chunk_off[c + 1]; j++) {
                    int e0 = m->chunk_list[j] * m->chunk_size, e1 = e0 + m->chunk_size < ne ? e0 + m->chunk_size : ne;
                    if (snh)
                        kind_tet_scatter_chunk(vw, split, grad_only, G, e0, e1, acc);
                    else
                        for (k = e0; k < e1; k++)
                            kind_tet_scatter(vw, &vw->mats[G->mat[k]], split, grad_only, G, k, acc);
                }
            }
        }
        return;
    }
    for (g = 0; g < vw->ngroups; g++) {
        const sipd_group_view *G = &vw->grp[g];
        const int ne = G->ne;
        if (G->kind == SIPD_KIND_TET) {   /* the hot kind without the kind switch (passes.h) */
#pragma omp parallel for schedule(static) if (ne > CPU_PAR_MIN)
            for (e = 0; e < ne; e++) kind_tet_element(vw, &vw->mats[G->mat[e]], precond, split, G, e);
        } else {
#pragma omp parallel for schedule(static) if (ne > CPU_PAR_MIN)
            for (e = 0; e < ne; e++) pass_element(vw, precond, split, g, e);
        }
    }
}

#define CPU_VERTEX_LANES 8   /* vertices whose 3x3 solves cpu_vertex_acc_block does side by side */

/* pass_vertex_acc for vertices a0 .. a0+n−1 (n ≤ CPU_VERTEX_LANES) into o[0 .. n−1]: each
 * vertex's terms and sums one after another, then their Cholesky solves in one loop over lanes
 * that the compiler vectorises (s3_chol_pivots; the solve's chain of square roots and divisions,
 * vertex after vertex, was a third of the fused vertex pass), then the steps.  The arithmetic is
 * pass_vertex_acc's (tests/unit/test_lanes.c compares them); a block that is not positive
 * definite takes s3_solve's fallback. */
static inline void cpu_vertex_acc_block(const sipd_view *vw, int first, double *acc, int a0, int n,
                                        sipd_vertex_out *o)
{
    enum { L = CPU_VERTEX_LANES };
    sipd_real Dl[6][L], bl[3][L], xl[3][L], pl[3][L];
    vec3 ga[L];
    sym3 D[L];
    int live[L], i, k;
    for (i = 0; i < L; i++) {
        live[i] = 0;
        if (i < n) {
            const int a = a0 + i;
            double *q = acc + 9 * (size_t)a;
            if (pass_vertex_begin(vw, 1, a, &o[i], &ga[i], &D[i])) {
                for (k = 0; k < 3; k++) ga[i].v[k] = (sipd_real)(ga[i].v[k] + q[k]);
                for (k = 0; k < 6; k++) D[i].s[k] = (sipd_real)(D[i].s[k] + q[3 + k]);
                live[i] = pass_vertex_end_sums(vw, SIPD_PRECOND_SPLIT, a, first, ga[i], D[i], &o[i]);
            }
            for (k = 0; k < 9; k++) q[k] = 0;
        }
        for (k = 0; k < 6; k++) Dl[k][i] = live[i] ? D[i].s[k] : (sipd_real)(k < 3);   /* idle lanes: I */
        for (k = 0; k < 3; k++) bl[k][i] = live[i] ? -ga[i].v[k] : 0;
    }
    for (i = 0; i < L; i++) {
        sym3 A;
        vec3 x, p;
        for (k = 0; k < 6; k++) A.s[k] = Dl[k][i];
        s3_chol_pivots(A, v3(bl[0][i], bl[1][i], bl[2][i]), &x, &p);
        for (k = 0; k < 3; k++) {
            xl[k][i] = x.v[k];
            pl[k][i] = p.v[k];
        }
    }
    for (i = 0; i < n; i++)
        if (live[i]) {
            vec3 d = v3(xl[0][i], xl[1][i], xl[2][i]);
            int solved = 1;
            if (!s3_pivots_positive(v3(pl[0][i], pl[1][i], pl[2][i])))
                solved = s3_solve(D[i], v3_scale(ga[i], -1), &d);
            pass_vertex_end_step(vw, a0 + i, ga[i], D[i], d, solved, &o[i]);
        }
}

/* The vertex pass of the Jacobi direction (pass_vertex; pass_vertex_acc with the fused pass's
 * acc: SIPD's split, or the step load's SIPD_PRECOND_MASS, cpu_element_pass) and its reductions
 * into st: rmax, gmax, gsum, gdy, gs, sDs, nonspd, d_num, d_den (the caller takes the roots of
 * nothing: rmax and gmax are roots here), and the ground contacts and deepest penetration into
 * *contacts, *maxpen (the caller adds its pairs'). */
static inline void cpu_vertex_pass(const sipd_model *m, const sipd_view *vw, int precond, int first, double *acc,
                                   sipd_dir_stats *st, int *contacts_out, double *maxpen_out)
{
    double rmax = 0, gmax = 0, gdy = 0, gs = 0, sDs = 0, maxpen = 0, dnum = 0, dden = 0;
    double gsx = 0, gsy = 0, gsz = 0;
    int nonspd = 0, contacts = 0, blk;
    const int nblk = (m->nv + CPU_VERTEX_LANES - 1) / CPU_VERTEX_LANES;
#pragma omp parallel for schedule(static) reduction(max : rmax, gmax, maxpen) reduction(+ : gdy, gs, sDs, nonspd, contacts, dnum, dden, gsx, gsy, gsz) \
    if (m->nv > CPU_PAR_MIN)
    for (blk = 0; blk < nblk; blk++) {
        const int a0 = blk * CPU_VERTEX_LANES, n = m->nv - a0 < CPU_VERTEX_LANES ? m->nv - a0 : CPU_VERTEX_LANES;
        sipd_vertex_out ob[CPU_VERTEX_LANES];
        int i;
        if (acc && precond == SIPD_PRECOND_SPLIT)
            cpu_vertex_acc_block(vw, first, acc, a0, n, ob);
        for (i = 0; i < n; i++) {
            const int a = a0 + i;
            /* (SIPD_PRECOND_NONE: g only, as SIPD_PRECOND_HESSIAN's vertex pass) */
            sipd_vertex_out o;
            if (acc)
                o = precond == SIPD_PRECOND_SPLIT ? ob[i] : pass_vertex_acc(vw, precond, 1, a, first, acc);
            else
                o = pass_vertex(vw, precond == SIPD_PRECOND_NONE ? SIPD_PRECOND_HESSIAN : precond, 1, a, first);
            if (!o.free)
                continue;
            contacts += o.contact;
            if (o.pen > maxpen)
                maxpen = o.pen;
            if (o.gn2 > gmax)
                gmax = o.gn2;
            gsx += o.g.v[0];
            gsy += o.g.v[1];
            gsz += o.g.v[2];
            if (precond == SIPD_PRECOND_HESSIAN || precond == SIPD_PRECOND_NONE)   /* dy: the caller's */
                continue;
            if (vw->ccd) {
                sipd_real t = pass_ccd_direction(vw, a);
                o.gdy *= t;
                o.dn2 *= t * t;
            }
            gs += o.gs;
            sDs += o.sDs;
            if (!first) {
                dnum += o.dnum;
                dden += o.dden;
            }
            nonspd += o.nonspd;
            gdy += o.gdy;
            if (o.dn2 > rmax)
                rmax = o.dn2;
        }
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
    st->d_num = dnum;
    st->d_den = dden;
    *contacts_out = contacts;
    *maxpen_out = maxpen;
}

/* One Gauss–Seidel sweep over the colours (pass_gs_vertex; pass_gs_vertex_tet_snh for a model of
 * tets of stable neo-Hookean only): a colour's vertices in parallel, except those with contact
 * pairs (pv_off non-NULL: pv_off[a + 1] > pv_off[a]), which share no colour guarantee and run
 * serially after their colour.  The tallies (maxima of squares, counts) into *t. */
static inline void cpu_gs_colours(const sipd_model *m, const sipd_view *vw, int precond, int split, const int *pv_off,
                                  int ls, sipd_real omega, sipd_gs_tally *t)
{
    double rmax = 0, gmax = 0, maxpen = 0;
    int backtracks = 0, rejected = 0, contacts = 0, hits = 0, c;
    const int tet_snh = cpu_model_tet_snh(m, vw);
    sipd_gs_tally ser = {0, 0, 0, 0, 0, 0, 0};
    for (c = 0; c < m->ncolors; c++) {
        int i;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : rmax, gmax, maxpen) reduction(+ : backtracks, rejected, contacts, hits) \
    if (m->color_off[c + 1] - m->color_off[c] > CPU_PAR_MIN / 4)
        for (i = m->color_off[c]; i < m->color_off[c + 1]; i++) {
            int a = m->color_verts[i];
            sipd_gs_tally u = {0, 0, 0, 0, 0, 0, 0};
            if (m->fixed[a] || (pv_off && pv_off[a + 1] > pv_off[a]))
                continue;
            if (tet_snh)
                pass_gs_vertex_tet_snh(vw, precond, split, 1, a, ls, omega, &u);
            else
                pass_gs_vertex(vw, precond, split, 1, a, ls, omega, &u);
            rmax = u.rmax2 > rmax ? u.rmax2 : rmax;
            gmax = u.gmax2 > gmax ? u.gmax2 : gmax;
            maxpen = u.maxpen > maxpen ? u.maxpen : maxpen;
            backtracks += u.backtracks;
            rejected += u.rejected;
            contacts += u.contacts;
            hits += u.ccd_hits;
        }
        if (pv_off)
            for (i = m->color_off[c]; i < m->color_off[c + 1]; i++) {
                int a = m->color_verts[i];
                if (!m->fixed[a] && pv_off[a + 1] > pv_off[a])
                    pass_gs_vertex(vw, precond, split, 1, a, ls, omega, &ser);
            }
    }
    t->rmax2 = ser.rmax2 > rmax ? ser.rmax2 : rmax;
    t->gmax2 = ser.gmax2 > gmax ? ser.gmax2 : gmax;
    t->maxpen = ser.maxpen > maxpen ? ser.maxpen : maxpen;
    t->backtracks = backtracks + ser.backtracks;
    t->rejected = rejected + ser.rejected;
    t->contacts = contacts + ser.contacts;
    t->ccd_hits = hits + ser.ccd_hits;
}

/* E(y + α dy) of the terms of set `terms` (sipd_terms): the element energies of the groups it
 * holds into *Ee, the inertia/ground and the npr pairs' energies into *Ei, each summed in double
 * (the backends add the two). */
static inline void cpu_energy_loops(const sipd_model *m, const sipd_view *vw, int terms, double alpha, double *Ee_out,
                                    double *Ei_out)
{
    const sipd_real al = (sipd_real)alpha;
    double Ee = 0, Ei = 0;
    int e, a, g;
    for (g = 0; g < vw->ngroups; g++) {
        const int ne = vw->grp[g].ne;
        if (!sipd_terms_kind(terms, vw->grp[g].kind))
            continue;
#pragma omp parallel for schedule(static) reduction(+ : Ee) if (ne > CPU_PAR_MIN)
        for (e = 0; e < ne; e++) Ee += (double)pass_element_energy(vw, g, e, vw->dy, al, -1, v3(0, 0, 0));
    }
#pragma omp parallel for schedule(static) reduction(+ : Ei) if (m->nv > CPU_PAR_MIN)
    for (a = 0; a < m->nv; a++) pass_vertex_energy(vw, a, al, &Ei);
#pragma omp parallel for schedule(static) reduction(+ : Ei) if (vw->npr > CPU_PAR_MIN)
    for (a = 0; a < vw->npr; a++) Ei += (double)pass_pair_energy(vw, a, vw->dy, al, -1, v3(0, 0, 0));
    *Ee_out = Ee;
    *Ei_out = Ei;
}

/* apply's update of every vertex (pass_apply_vertex); returns Σ g·(y_new − y) */
static inline double cpu_apply_loop(const sipd_model *m, const sipd_view *vw, double alpha, double omega)
{
    double gs = 0;
    int a;
#pragma omp parallel for schedule(static) reduction(+ : gs) if (m->nv > CPU_PAR_MIN)
    for (a = 0; a < m->nv; a++) pass_apply_vertex(vw, a, (sipd_real)alpha, (sipd_real)omega, &gs);
    return gs;
}

#endif
