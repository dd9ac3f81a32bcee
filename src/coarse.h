/* coarse.h — the coarse level of two-level SIPD (solver.coarse, issue 15).
 *
 * Coarse space: per body, a regular grid of cubic cells laid over its initial bounding box
 * (`size` cells along its longest edge, as many cells of the same width along the others as
 * cover it); every free vertex is interpolated trilinearly from the 8 nodes of the cell that
 * contains its initial position, or (thin bodies, solver.coarse.basis) by quadratic B-splines
 * from 27 nodes (coarse_vertex_weights_mixed).  P (3·nv × 3·nc) has the rows
 *     dy_a = Σ_l w_al e_{n(a,l)}        (each 3-vector coarse unknown scaled by a weight),
 * Dirichlet vertices get zero rows (they never move), and grid nodes that no free vertex
 * sees with a positive weight are dropped.  The weights of a free vertex sum to 1 and
 * reproduce every linear field exactly (partition of unity; trilinear interpolation and the
 * quadratic B-splines are exact on affine functions), so P contains the rigid and affine motions of the whole body.
 *
 * Coarse operator: the Galerkin product Hc = Pᵀ H P of the PSD-projected Hessian H that
 * Newton assembles (backend.h, assemble; block-CSR over the model's tets), assembled per
 * coarse row (no races), factored by CHOLMOD (sparse.h, chol_*).  The coarse correction
 * solves Hc e = −Pᵀ g and returns dy = P e; the driver line-searches it on the energy
 * (solvers/coarse_correction.c).
 *
 * The per-item maths below (SIPD_HD: a vertex's weights, a vertex's prolongation, a coarse
 * node's restriction, a coarse row of the Galerkin product) is what a GPU port runs per
 * thread; the factorisation and the coarse solve stay on the host.
 */
#ifndef SIPD_COARSE_H
#define SIPD_COARSE_H

#include "model.h"
#include "physics/common.h"
#include "sparse.h"

typedef struct {
    int nc;             /* coarse nodes kept (block rows of Hc)                         */
    int nbodies;        /* grids: one per body                                          */
    double *bcell;      /* nbodies: the cell width of each body's grid (m)              */
    double *npos;       /* nc*3: the initial position of each coarse node (its grid's)  */
    int *nbody;         /* nc: the body whose grid holds it                             */
    int nv;
    int npv;            /* nodes per vertex: 8 (trilinear grids only) or 27 (a quadratic axis) */
    unsigned char *bquad; /* nbodies: bit k set: the body's grid is quadratic along axis k   */
    int *vnode;         /* nv*npv: the coarse node of vertex a's l-th node (-1: none)       */
    double *vw;         /* nv*npv: its weight (0 for Dirichlet vertices)                   */
    int *t_off, *t_v;   /* Pᵀ as CSR: coarse node i sees vertices t_v[t_off[i] ..]        */
    double *t_w;        /* ... with weights t_w                                          */
    sipd_bsr Hc;        /* Pᵀ H P (pattern from H's, or from U's with contact pairs; ne = 0) */
    sipd_chol C;
    int analysed;
    sipd_bsr U;         /* H merged with the contact pairs' couplings (coarse_factor_pairs) */
    int merged;         /* Hc's pattern is U's (1) or H's (0)                               */
    long repatterns;    /* Hc patterns rebuilt (and re-analysed) since the first             */
    double *rc, *ec;    /* nc*3: −Pᵀ g and the coarse solution                            */
    int *pos;           /* npos_t*nc column → block maps (Galerkin assembly)            */
    int npos_t;
    /* statistics of a run */
    long corrections, factor_failures;
    double t_assemble, t_factor, t_solve;   /* seconds in Pᵀ H P, sipd_chol_factor, the rest */
} sipd_coarse;

/* The weights of point x along one axis of a grid with `cells` cells (t = (x − origin)/cell):
 * linear (quad 0; nodes 0 .. cells, 2 of them: the cell that holds t, clamped to the grid) or the uniform
 * quadratic B-spline (quad 1; nodes 0 .. cells + 2 stand at t = −1 .. cells + 1, 3 of them:
 * with i the node nearest t and d = t − i in [−½, ½], the weights ½(½ − d)², ¾ − d², ½(½ + d)²
 * of nodes i − 1, i, i + 1; a partition of unity that reproduces linear fields exactly, and C¹,
 * so a coarse bending mode has a finite, resolved curvature energy where the piecewise-linear
 * field puts all of it in kinks).  Returns the count (2 or 3). */
SIPD_HD int coarse_axis_weights(double t, int cells, int quad, int node[3], double w[3])
{
    if (quad) {
        int i = (int)floor(t + 0.5);
        double d;
        if (i < 0)
            i = 0;
        if (i > cells)
            i = cells;
        d = t - i;
        if (d < -0.5)
            d = -0.5;
        if (d > 0.5)
            d = 0.5;
        node[0] = i;   /* (t = i − 1 is node i: the nodes are shifted by one) */
        node[1] = i + 1;
        node[2] = i + 2;
        w[0] = 0.5 * (0.5 - d) * (0.5 - d);
        w[1] = 0.75 - d * d;
        w[2] = 0.5 * (0.5 + d) * (0.5 + d);
        return 3;
    } else {
        int ci = (int)floor(t);
        double u;
        if (ci < 0)
            ci = 0;
        if (ci > cells - 1)
            ci = cells - 1;
        u = t - ci;
        if (u < 0)
            u = 0;
        if (u > 1)
            u = 1;
        node[0] = ci;
        node[1] = ci + 1;
        w[0] = 1 - u;
        w[1] = u;
        return 2;
    }
}

/* The tensor-product weights of point x in a grid with per-axis orders (quad bit k: quadratic
 * along axis k, coarse_axis_weights): npv entries, the unused ones node −1, weight 0; grid node
 * index i + N0 (j + N1 k) with N_k = dims_k + 1 (linear) or dims_k + 3 (quadratic).  With no
 * quadratic axis these are the 8 trilinear weights of x's cell, corner l = (l&1, (l>>1)&1, l>>2). */
SIPD_HD void coarse_vertex_weights_mixed(const double x[3], const double origin[3], double cell, const int dims[3],
                                         int quad, int npv, int *node, double *w)
{
    int n[3][3], cnt[3], N[3], k, i0, i1, i2, l = 0;
    double ww[3][3];
    for (k = 0; k < 3; k++) {
        int q = (quad >> k) & 1;
        cnt[k] = coarse_axis_weights((x[k] - origin[k]) / cell, dims[k], q, n[k], ww[k]);
        N[k] = dims[k] + (q ? 3 : 1);
    }
    for (i2 = 0; i2 < cnt[2]; i2++)
        for (i1 = 0; i1 < cnt[1]; i1++)
            for (i0 = 0; i0 < cnt[0]; i0++, l++) {
                w[l] = ww[0][i0] * ww[1][i1] * ww[2][i2];
                node[l] = n[0][i0] + N[0] * (n[1][i1] + N[1] * n[2][i2]);
            }
    for (; l < npv; l++) {
        node[l] = -1;
        w[l] = 0;
    }
}

/* Prolongation of vertex a: dy_a = Σ_l w_al e_{n(a,l)} (npv nodes per vertex). */
SIPD_HD void coarse_prolong_vertex(const int *vnode, const double *vw, int npv, const double *e, int a, double out[3])
{
    int l;
    out[0] = out[1] = out[2] = 0;
    for (l = 0; l < npv; l++) {
        int j = vnode[(size_t)npv * a + l];
        double w = vw[(size_t)npv * a + l];
        if (j < 0 || w == 0)
            continue;
        out[0] += w * e[3 * j];
        out[1] += w * e[3 * j + 1];
        out[2] += w * e[3 * j + 2];
    }
}

/* Restriction onto coarse node i: out = Σ_{a ∈ supp i} w_ai f_a. */
SIPD_HD void coarse_restrict_node(const int *t_off, const int *t_v, const double *t_w, const double *f, int i,
                                  double out[3])
{
    int k;
    out[0] = out[1] = out[2] = 0;
    for (k = t_off[i]; k < t_off[i + 1]; k++) {
        int a = t_v[k];
        out[0] += t_w[k] * f[3 * a];
        out[1] += t_w[k] * f[3 * a + 1];
        out[2] += t_w[k] * f[3 * a + 2];
    }
}

/* Coarse row i of Pᵀ H P: Hc_ij = Σ_{a ∈ supp i} Σ_{b: H_ab stored} Σ_l w_ai w_bl H_ab (j =
 * n(b,l)).  pos: column j → index of block (i, j) in Hc (set for row i's columns by the
 * caller).  Dirichlet vertices have zero weights and are skipped. */
SIPD_HD void coarse_galerkin_row(const int *t_off, const int *t_v, const double *t_w, const int *vnode,
                                 const double *vw, int npv, const int *H_row_off, const int *H_col, const double *H_val,
                                 const int *pos, double *Hc_val, int i)
{
    int k, q, l, r;
    for (k = t_off[i]; k < t_off[i + 1]; k++) {
        int a = t_v[k];
        double wa = t_w[k];
        for (q = H_row_off[a]; q < H_row_off[a + 1]; q++) {
            int b = H_col[q];
            const double *B = H_val + 9 * (size_t)q;
            for (l = 0; l < npv; l++) {
                int j = vnode[(size_t)npv * b + l];
                double w = wa * vw[(size_t)npv * b + l];
                double *C;
                if (j < 0 || w == 0)
                    continue;
                C = Hc_val + 9 * (size_t)pos[j];
                for (r = 0; r < 9; r++) C[r] += w * B[r];
            }
        }
    }
}

/* Build the coarse space of model m with `size` cells along the longest edge of each body's
 * initial bounding box and Hc's pattern from H's (the fine pattern, sipd_bsr_pattern over the tets).
 * basis (scene.h sipd_coarse_basis): TRILINEAR every body's grid; QUADRATIC every body's grid
 * quadratic B-splines along each axis it spans at least 2 cells (linear along the others);
 * AUTO quadratic for the shells, rods and springs bodies (their bending is a fourth-order
 * problem: a piecewise-linear coarse field can bend only in kinks, which a thin body's bending
 * stiffness makes far too stiff, so the correction barely moves those modes), on cells no
 * wider than the body's mean element edge where that is finer than `size` (a two-level rate on
 * a fourth-order operator falls fast with the coarse cell) but with no more grid nodes touched
 * than twice the body's vertices (a closed surface spans a volume), trilinear cells of `size`
 * for the solids and for springs made from tets (docs/two-level.md#the-coarse-basis).
 * SIPD_OK, or SIPD_EFAIL (out of memory; no free vertex). */
int coarse_build(sipd_coarse *c, const sipd_model *m, const sipd_bsr *H, int size, int basis);
void coarse_free(sipd_coarse *c);

/* r (nc*3) = Pᵀ f (f: nv*3). */
void coarse_restrict(const sipd_coarse *c, const double *f, double *r);
/* dy (nv*3) = P e (e: nc*3). */
void coarse_prolong(const sipd_coarse *c, const double *e, double *dy);
/* Hc = Pᵀ H P. */
void coarse_galerkin(sipd_coarse *c, const sipd_bsr *H);

/* The coarse operator of the PSD-projected Hessian H (block-CSR over the vertices): Hc = PᵀHP,
 * factored (when that fails, once more with 1e-10 of its largest diagonal entry added to the
 * diagonal).  SIPD_OK, or SIPD_EFAIL (out of memory, or Hc not positive definite:
 * factor_failures counts it, and coarse_apply refuses until a factor succeeds); SIPD_ESIGNAL
 * after a stop request during CHOLMOD's analysis or factorisation (sparse.h). */
int coarse_factor(sipd_coarse *c, const sipd_bsr *H);
/* coarse_factor of H plus the contact pairs' couplings (extra, backend.h assemble; NULL or
 * extra->row NULL: none): they are merged into U (sparse.h sipd_bsr_merge_extra), and Hc's
 * pattern is rebuilt from U's — with a new CHOLMOD analysis — whenever that pattern changed
 * (a new pair set), and from H's again when the pairs are gone.  SIPD_EFAIL also when the
 * couplings are not available as blocks (extra->blocks NULL). */
int coarse_factor_pairs(sipd_coarse *c, const sipd_bsr *H, const sipd_bsr_extra *extra);
/* The coarse correction of gradient g (nv*3) with the last factored operator: Hc e = −Pᵀ g,
 * dy = P e.  SIPD_OK, SIPD_EFAIL (no factor) or SIPD_ESIGNAL (a stop request in the solve). */
int coarse_apply(sipd_coarse *c, const double *g, double *dy);
/* Both: coarse_factor(H), then coarse_apply(g). */
int coarse_direction(sipd_coarse *c, const sipd_bsr *H, const double *g, double *dy);

#endif
