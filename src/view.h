/* view.h — what a per-item pass sees: raw arrays of the state, the vertices, one group per
 * element kind and the contact terms (sipd_view); what D is in a direction is precond.h.
 * The passes (passes.h) and the element kinds (kinds/) are functions of a view and an item index;
 * a backend fills the view with its own arrays (double on the CPU, float32 on the device).
 *
 * Layering: this header includes only the physics layer, precond.h and kinds/kind.h (the kind enum), so the
 * kinds' headers can be included by the model (model.c: incidence weights) without a circle.
 */
#ifndef SIPD_VIEW_H
#define SIPD_VIEW_H

#include "kinds/kind.h"
#include "precond.h"
#include "physics/material.h"
#include "physics/mat3.h"


typedef struct {
    int kind, nc, ne;
    int split_stride;        /* SIPD's split blocks of element e start at blk + split_stride*e ... */
    int split_corner;        /* ... + split_corner*l for corner l (6: a block per corner, 0: one K⁺);
                                set by view_group_init from the kind (kinds/kind.h), so the vertex
                                pass's gather reads them instead of asking the kind per incidence */
    const int *v;            /* ne*nc vertex indices                                          */
    const sipd_real *rest;   /* ne*kind_rest_size                                              */
    const sipd_real *vol;    /* ne                                                            */
    const int *mat;          /* ne material indices                                           */
    sipd_real *grad;         /* element pass: ne*kind_grad_size                               */
    sipd_real *blk;          /* element pass: SPLIT ne*6 (K⁺), BLOCK/DIAG ne*6nc (vertex blocks) */
    sipd_real *hess;         /* element pass, HESSIAN: ne*kind_hessian_size (NULL otherwise)   */
} sipd_group_view;

typedef struct {
    int nv, ngroups, quasistatic;
    sipd_real inv_h2, gq[3];
    /* state, nv*3 (backend.h): x, v, ỹ, y, y_prev, dy, g, snapshot; y0/g0 the step's first
       iterate and its gradient (the Rayleigh estimate of the Chebyshev ρ) */
    sipd_real *x, *v, *yt, *y, *yp, *dy, *g, *ys, *y0, *g0;
    /* 1: the vertex pass also sums g_old·(y − y_prev) with the g it overwrites (pass_vertex's
       gs_prev: the last apply's Σ g·s, which the CUDA backend takes from there instead of a
       reduction and a read-back of its own in apply); 0: not computed (the CPU backend) */
    int gs_prev;
    /* the adaptive initial guess (solver.initial_guess, pass_begin_vertex): vp the velocity
       before the last step (nv*3; NULL: the inertial guess ỹ), vp_hist whether it holds one
       (0 after an upload: the first step then starts from ỹ) */
    sipd_real *vp;
    int vp_hist;
    /* vertices */
    const sipd_real *mass, *X0, *motions;   /* motions: 9 per motion (centre, velocity, ω) */
    const unsigned char *fixed;
    const int *move_of;
    /* elements */
    sipd_group_view grp[SIPD_KIND_COUNT];
    const sipd_material *mats;
    const int *inc_off, *inc_elem;
    const unsigned char *inc_group, *inc_corner;
    const sipd_real *inc_w;                 /* V |∇N_corner|² per incidence (SIPD's D)       */
    /* ground contact: plane pn·x = ph, penalty kc within dhat; lagged friction (lam_n per
       vertex, NULL without friction), slip threshold eps = ε_v h */
    int ground;
    sipd_real pn[3], ph, dhat, kc, mu, eps;
    sipd_real *lam_n;
    sipd_real *fa;           /* per vertex (nv*3): the ground friction's anchor offset (contact.h
                                stick memory; passes.h pass_end_anchor), NULL without friction */
    const sipd_real *kv;     /* per vertex: the ground's k_c (model.h contact_kv), NULL: kc for all */
    const sipd_real *vrad;   /* per vertex: the contact half-thickness (model.h crad; the ground
                                plane is then ph + vrad[a] for vertex a), NULL: none (solids) */
    /* pairs (npr of them): vertices, weights, normal, stiffness, lagged normal force; their
       incidences on free vertices */
    int npr;
    const int *pr_v;
    const sipd_real *pr_beta, *pr_n, *pr_k, *pr_lam;
    const sipd_real *pr_h;   /* the pairs' thickness offsets (pairs.h h): gap = n·z − pr_h[p] */
    sipd_real *pr_o;         /* 3 per pair: its friction anchor offset (pairs.h o), NULL: none */
    const int *pv_off, *pv_pair;
    const unsigned char *pv_slot;
    /* contact.ccd (physics/ccd.h): ccd 1 when on (the ground's half-space alone without pair
       detection); ccd_b (nv) the radius of each vertex's ball about ccd_c (nv*3, the positions
       of the last narrow phase; −1: unbounded), ccd_lo, ccd_hi (nv*3) its box; NULL without
       pair detection */
    int ccd;
    const sipd_real *ccd_b, *ccd_c, *ccd_lo, *ccd_hi;
} sipd_view;

/* A group's kind, corners and count, and the strides that follow from its kind. */
SIPD_HD void view_group_init(sipd_group_view *W, int kind, int nc, int ne)
{
    W->kind = kind;
    W->nc = nc;
    W->ne = ne;
    W->split_stride = kind_block_size(kind, 0);
    W->split_corner = 6 * kind_split_per_corner(kind);
}

/* Where SIPD's split block of corner l of element e of group G starts in G->blk.  The host reads
 * the strides the view carries (per incidence, the kind's size functions cost the Jacobi iteration
 * 2.5-3%, results/perf-history.md); the device computes them from the kind (loading the strides
 * from the grid-constant view took the contact-free SIPD vertex kernel from 40/36 to 72/60 B of
 * spill stores/loads, ptxas sm_90).  The two give the same offset. */
SIPD_HD SIPD_ALWAYS_INLINE size_t view_split_block(const sipd_group_view *G, int e, int l)
{
#ifdef __CUDA_ARCH__
    return (size_t)kind_block_size(G->kind, 0) * e + 6 * l * kind_split_per_corner(G->kind);
#else
    return (size_t)G->split_stride * e + G->split_corner * l;
#endif
}

SIPD_HD vec3 view_ld(const sipd_real *p, int i) { return v3_load(p + 3 * (size_t)i); }
SIPD_HD void view_st(sipd_real *p, int i, vec3 a) { v3_store(p + 3 * (size_t)i, a); }
/* a NaN-propagating max (a diverged vertex must reach the driver's isfinite check) */
SIPD_HD double pass_max(double a, double b) { return (a > b || a != a) ? a : b; }

/* The corner positions of element e of group G at y + α dy (y alone when dy is NULL), corner
 * `over` (−1: none) at q. */
SIPD_HD void pass_corners(const sipd_view *v, const sipd_group_view *G, int e, const sipd_real *dy, sipd_real alpha,
                          int over, vec3 q, vec3 *p)
{
    const int *t = G->v + (size_t)G->nc * e;
    int l;
    for (l = 0; l < G->nc; l++)
        p[l] = l == over ? q : dy ? v3_axpy(alpha, view_ld(dy, t[l]), view_ld(v->y, t[l])) : view_ld(v->y, t[l]);
}

/* What a caller fixes at compile time (the `fixed` argument of the *_fixed passes below, a constant
 * in every call): SIPD_FIXED_NONE — nothing, the element's kind and material model are read at run
 * time (the CPU backend's other models, the generic kernels); SIPD_FIXED_KIND(k) — the group is of
 * kind k (the CUDA backend's per-kind element kernels: the kind switch folds to one case, the
 * corner count is the kind's constant); SIPD_FIXED_KIND_MODEL(k, m) — besides, every material is
 * of model m: the material is a local copy whose model is the constant, so the other models'
 * branches (and their out-of-line calls, whose registers would count for the kernel) fold away.
 * SIPD_FIXED_TET_SNH (tets of stable neo-Hookean materials, the common case) is one of these; the
 * CPU backends' Gauss–Seidel and VBD sweeps of such a model use it too (pass_gs_vertex_tet_snh:
 * VBD 25% and Gauss–Seidel 9% faster per sweep, bit for bit the same, results/perf-history.md).
 * Chosen per group on the host; the arithmetic is the same.
 * On the CPU the Gauss–Seidel *_fixed functions (corner, local energy, vertex step) are always
 * inlined into their SIPD_FIXED_NONE wrappers: left to GCC, the extra level cost 12% per VBD and
 * 18% per Gauss–Seidel iteration.  pass_element_energy_fixed is not: forced inline, it cost the
 * Jacobi iteration 6% (results/perf-history.md). */
#define SIPD_FIXED_KIND(k) (0x100 | (k))
#define SIPD_FIXED_KIND_MODEL(k, m) (0x300 | (k) | ((m) << 4))
enum { SIPD_FIXED_NONE = 0, SIPD_FIXED_TET_SNH = SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, SIPD_MAT_STABLE_NEOHOOKEAN) };
/* SIPD_FIXED_KINDS(k1, k2): every element is of kind k1 or k2, read per element (the CUDA backend's
 * Gauss–Seidel kernels of cloth with bending and of rods with bending, passes.h
 * pass_incidence_corner); | SIPD_FIXED_MODEL(m): every material is of model m besides.  Each
 * element then runs as SIPD_FIXED_ONE(fixed, its kind): the kind fixed, the model as given. */
#define SIPD_FIXED_KINDS(k1, k2) (0x400 | ((k1) << 12) | ((k2) << 16))
#define SIPD_FIXED_IS_KINDS(f) (((f) & 0x400) != 0)
#define SIPD_FIXED_MODEL(m) (0x200 | ((m) << 4))
#define SIPD_FIXED_KIND_1(f) (((f) >> 12) & 15)
#define SIPD_FIXED_KIND_2(f) (((f) >> 16) & 15)
#define SIPD_FIXED_ONE(f, k) (((f) & 0x2f0) | 0x100 | (k))

/* SIPD_FIXED_SPECIALISED (defined by kernels/backend_cuda.cu before its includes): the general
 * forms below; elsewhere (the CPU backends: SIPD_FIXED_NONE, and SIPD_FIXED_TET_SNH in their
 * Gauss–Seidel sweeps) the earlier text, kept as it was
 * because GCC's inlining of the CPU passes changed with the general form (same results, other
 * code: results/registers-29.md). */
SIPD_HD SIPD_ALWAYS_INLINE int pass_kind(const sipd_group_view *G, int fixed)
{
#ifdef SIPD_FIXED_SPECIALISED
    return (fixed & 0x100) ? (fixed & 15) : G->kind;
#else
    return fixed == SIPD_FIXED_TET_SNH ? SIPD_KIND_TET : G->kind;
#endif
}

/* Element e's material, or (the model fixed) *copy: the same values, the model a constant. */
SIPD_HD SIPD_ALWAYS_INLINE const sipd_material *pass_material(const sipd_view *v, const sipd_group_view *G, int e,
                                                              int fixed, sipd_material *copy)
{
#ifdef SIPD_FIXED_SPECIALISED
    if (fixed & 0x200) {
        *copy = v->mats[G->mat[e]];
        copy->model = (fixed >> 4) & 15;
        return copy;
    }
#else
    if (fixed == SIPD_FIXED_TET_SNH) {
        *copy = v->mats[G->mat[e]];
        copy->model = SIPD_MAT_STABLE_NEOHOOKEAN;
        return copy;
    }
#endif
    return &v->mats[G->mat[e]];
}

/* pass_corners with the corner count nc given (4 for fixed tets: a compile-time loop bound) */
SIPD_HD void pass_corners_nc(const sipd_view *v, const sipd_group_view *G, int nc, int e, const sipd_real *dy,
                             sipd_real alpha, int over, vec3 q, vec3 *p)
{
    const int *t = G->v + (size_t)nc * e;
    int l;
    for (l = 0; l < nc; l++)
        p[l] = l == over ? q : dy ? v3_axpy(alpha, view_ld(dy, t[l]), view_ld(v->y, t[l])) : view_ld(v->y, t[l]);
}

#endif
