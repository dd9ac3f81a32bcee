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

/* The fused pass's accumulators (9 doubles per vertex, zeroed, in either precision) when it applies: the model has its tet
 * chunks (model.h chunk_*: the elements are one tet group), the preconditioner is SIPD's split,
 * and SIPD_CPU_GATHER is not set to a non-zero value in the environment (a diagnostic that keeps
 * the gather: test_solver fused compares the two).  *acc NULL: the gather.  Returns SIPD_EFAIL
 * when out of memory. */
static inline int cpu_fused_setup(const sipd_model *m, int precond, double **acc)
{
    const char *env = getenv("SIPD_CPU_GATHER");
    *acc = NULL;
    if (precond != SIPD_PRECOND_SPLIT || m->nchunk_colors == 0 || (env && atoi(env) != 0))
        return SIPD_OK;
    *acc = sipd_calloc((size_t)m->nv * 9, sizeof(double));
    return *acc ? SIPD_OK : SIPD_EFAIL;
}

/* The element pass of the Jacobi direction.  acc non-NULL: the fused pass (docs/benchmarks.md,
 * "The fused Jacobi pass"; the model's tet chunks, model.h chunk_*): every tet's corner terms
 * into acc (9 per vertex), chunk colour by chunk colour, so that a vertex receives its terms in
 * one order whatever the thread count.  Else every element's results into the view's per-element
 * arrays, for pass_vertex to gather. */
static inline void cpu_element_pass(const sipd_model *m, const sipd_view *vw, int precond, int split, double *acc)
{
    int g, e;
    if (acc) {
        const sipd_group_view *G = &vw->grp[m->chunk_group];
        const int ne = G->ne;
#pragma omp parallel if (ne > CPU_PAR_MIN)
        {
            int c, j, k;
            for (c = 0; c < m->nchunk_colors; c++) {
#pragma omp for schedule(static)
                for (j = m->chunk_off[c]; j < m->chunk_off[c + 1]; j++) {
                    int e0 = m->chunk_list[j] * SIPD_TET_CHUNK, e1 = e0 + SIPD_TET_CHUNK < ne ? e0 + SIPD_TET_CHUNK : ne;
                    for (k = e0; k < e1; k++) kind_tet_scatter(vw, &vw->mats[G->mat[k]], split, G, k, acc);
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

/* The vertex pass of the Jacobi direction (pass_vertex; pass_vertex_acc with the fused pass's
 * acc) and its reductions into st: rmax, gmax, gsum, gdy, gs, sDs, nonspd, d_num, d_den (the
 * caller takes the roots of nothing: rmax and gmax are roots here), and the ground contacts and
 * deepest penetration into *contacts, *maxpen (the caller adds its pairs'). */
static inline void cpu_vertex_pass(const sipd_model *m, const sipd_view *vw, int precond, int first, double *acc,
                                   sipd_dir_stats *st, int *contacts_out, double *maxpen_out)
{
    double rmax = 0, gmax = 0, gdy = 0, gs = 0, sDs = 0, maxpen = 0, dnum = 0, dden = 0;
    double gsx = 0, gsy = 0, gsz = 0;
    int nonspd = 0, contacts = 0, a;
#pragma omp parallel for schedule(static) reduction(max : rmax, gmax, maxpen) reduction(+ : gdy, gs, sDs, nonspd, contacts, dnum, dden, gsx, gsy, gsz) \
    if (m->nv > CPU_PAR_MIN)
    for (a = 0; a < m->nv; a++) {
        /* (SIPD_PRECOND_NONE: g only, as SIPD_PRECOND_HESSIAN's vertex pass) */
        sipd_vertex_out o = acc ? pass_vertex_acc(vw, 1, a, first, acc)
                                : pass_vertex(vw, precond == SIPD_PRECOND_NONE ? SIPD_PRECOND_HESSIAN : precond, 1, a, first);
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
