/* collide.h — collision detection between surfaces (docs/design.md §3.6): the broad phase once per
 * time step, the narrow phase every `contact.detect_every` iterations.
 *
 * Primitives: the surface triangles of the model (m->tris: solids' outward surfaces, shells'
 * triangles), their edges (each undirected edge once), the segments of rods (m->cedges: line
 * meshes), and the vertices of both.  A pair is a vertex–face (VF) or an edge–edge (EE) pair, a
 * virtual element with frozen weights β and unit normal n (sipd_contact_pair); its gap is
 * d = n·Σ β_k y_k − o with the thickness offset o = Σ_k |β_k| r_k (r = m->crad, the contact
 * half-thickness of thin bodies; o = 0 for solids, where m->crad is NULL).  Every threshold on
 * the gap below (kept when d < d̂, the rest-shape exclusion, the box inflation) includes o or
 * the largest r (m->crad_max).
 *
 * Rods: their segments are edges numbered after the triangles' (collide_candidate_arrays:
 * ne_tri), so EE pairs of two rod segments are told apart: when their closest points are not
 * both interior (a vertex on a segment, vertex on vertex, (near-)parallel segments) the
 * segments' clamped closest points make the pair (dist_candidate's clamp), and pairs.c gives a
 * pair clamped to a joint 1/valence (m->cval) of k_c per side, so a joint counts once.  A model
 * without triangles (rods only) builds its grid from the edge boxes.
 *
 * Broad phase.  Every vertex gets a box = bbox of its positions x0 (step start) and y1 (a
 * prediction of the end of the step), inflated by r = margin + d̂/2; a primitive's box is the
 * union of its vertices' boxes.  Candidate pairs are the VF and EE pairs whose boxes overlap,
 * minus the excluded ones (below).  So as long as every vertex stays within `margin` of the
 * bbox of its x0 and y1 (collide_outside says when it does not), every pair closer than d̂
 * is a candidate.  Uniform-grid spatial hash; the output order is deterministic and does not
 * depend on the number of threads.
 *
 * The union of the boxes is split by a uniform grid (cell = the mean largest extent of the
 * inflated face boxes), each face and edge box is hashed into every cell it overlaps, and a pair
 * of overlapping boxes is reported only from the cell holding the lower corner of their
 * intersection, so once.  The boxes, the grid and that rule are src/physics/broad.h, shared
 * with the GPU broad phase (kernels/collide_broad.h, src/collide_cuda.h), which finds the same
 * candidates with a sorted instead of a hashed grid table.  Candidate order: VF by surface
 * vertex (model index ascending), EE by the first edge (edge index ascending); within a query by
 * grid cell, then primitive index.
 *
 * Excluded (from the candidates already): pairs that share a vertex; pairs whose vertices are
 * all Dirichlet (m->fixed != 0: obstacles and pins never need a force between each other);
 * pairs within one body when `self` is 0; pairs within one body whose distance in the rest
 * shape m->X is below d̂ (up to a relative 1e-9, so that a body at rest never reports a pair
 * of its own; the neighbours of a flat surface are not a fold).  Excluded in the narrow phase:
 * EE pairs of (near-)parallel edges at y (|e₁×e₂| < 1e-3 |e₁||e₂|).
 *
 * Edges: each undirected edge of m->tris once, as (lo, hi) with lo < hi, numbered in
 * lexicographic order; an EE pair lists the lower-numbered edge first.
 *
 * Narrow phase at positions y.  VF: only a vertex p that projects into the interior of the
 * triangle (closest point c = Σ b_i f_i with every b_i > 0; β = (1, −b₀, −b₁, −b₂), and n is
 * then ± the face normal, as docs/design.md §3.6 writes it).  EE: closest points p(s) on edge 1 and
 * q(t) on edge 2; only pairs whose unclamped closest points are interior (0 < s < 1,
 * 0 < t < 1) are kept; β = (1−s, s, −(1−t), −t).  n = (p − c)/|p − c| (EE: (p(s) − q(t))/|…|),
 * or the face normal (EE: e₁×e₂ normalised), both at y, when that distance is at most 1e-12 of
 * the model size (m->bbox_diag); then n is flipped if needed so that the step-start gap
 * n·Σ β_k x0_k is ≥ 0 (the side the pair was on at the start of the step; a pair that crossed
 * during the step then has a negative gap).  A pair is kept when its gap d = n·Σ β_k y_k < d̂.
 * Every pair has the same stiffness k_c (there are no per-pair weights; see below).
 *
 * Hysteresis (dist_candidate, physics/distance.h): between two broad phases a candidate that
 * was a pair at the previous narrow phase stays one while it is within DIST_KEEP_BAND (2%) of
 * the strict rule — barycentric weights ≥ −0.02, s, t within [−0.02, 1.02] — with the
 * unclamped weights (a plane pair: its energy continues smoothly beyond the face's edge).  An
 * iterate near a boundary then no longer flips the pair set back and forth (measured: the
 * twisted-beams scene hit the iteration cap in 27 of 480 solves without it, 1 with it).  The
 * first narrow phase after a broad phase applies the strict rule.
 *
 * Why interior projections only, measured on tests/unit/test_bodies.c: a vertex sliding over a flat
 * tessellated surface then always has exactly one VF pair (its energy is continuous across the
 * edges between coplanar faces).  Clamped closest points (edges and corners included) with
 * w = 1 add the neighbouring faces near every edge and corner — a bumpy road: a block on a 35°
 * incline slid 0.42 m instead of Coulomb's 0.80 (interior only: 0.84).  Weighting those by 1/2
 * (edge) and 1/valence (corner) makes the total energy jump at feature boundaries, and the
 * iterations chattered between pair sets near equilibrium (5647 against 788 Jacobi iterations
 * on bodies_methods).  The price of interior-only VF: near a convex edge or corner of the other
 * surface a vertex can be in no face's prism; the EE pairs of its edges then carry the contact.
 *
 * The closest points, β, n and the gap are computed by dist_vf_pair / dist_ee_pair of
 * physics/distance.h (host and device).
 *
 * Output pairs are ordered: all VF pairs in candidate order, then all EE pairs; the output
 * (order and every byte) does not depend on the number of OpenMP threads.
 *
 * Cost: collide_create sorts the 3 nf half-edges (O(nf log nf), ~10 ms per 50k triangles) and
 * allocates O(nv + nf) arrays (about 200 bytes per surface triangle: boxes, cells, edges);
 * collide_broad and collide_narrow reuse their buffers between calls and grow them as needed
 * (grid ~60 bytes per box-cell entry, a box covering 1–8 cells; 8 bytes per candidate;
 * sizeof(sipd_contact_pair) = 88 bytes per pair; plus per-block staging buffers of the same
 * total size as the candidates and pairs).  Each call is OpenMP-parallel (serial below 2048
 * items).  The model must outlive c (c keeps a pointer to it).
 */
#ifndef SIPD_COLLIDE_H
#define SIPD_COLLIDE_H

#include "model.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {   /* kernels/collide_cuda.cu calls collide_candidate_arrays */
#endif

typedef struct {
    int v[4];         /* VF: vertex, face corners (m->tris order); EE: p0, p1, q0, q1      */
    double beta[4];   /* VF: 1, −b0, −b1, −b2;  EE: 1−s, s, −(1−t), −t                      */
    double n[3];      /* unit normal, oriented by the side at the start of the step        */
    int kind;         /* 0 VF, 1 EE                                                        */
} sipd_contact_pair;

/* A kept candidate (candidate.h) as a pair, the one place both narrow phases fill one
 * (collide.c; kernels/collide_narrow.h for the GPU's): zeroed first, padding too, so the output
 * is deterministic byte for byte.  kind 0 VF, 1 EE; beta and n in the caller's sipd_real. */
static inline void collide_pair_set(sipd_contact_pair *p, const int *v, const sipd_real *beta, const sipd_real *n,
                                    int kind)
{
    int j;
    memset(p, 0, sizeof *p);
    for (j = 0; j < 4; j++) {
        p->v[j] = v[j];
        p->beta[j] = beta[j];
    }
    for (j = 0; j < 3; j++) p->n[j] = n[j];
    p->kind = kind;
}

typedef struct sipd_collide sipd_collide;

/* Surface vertices, edges, valences of the model; self: detect pairs within one body. */
int collide_create(sipd_collide **c, const sipd_model *m, int self, double dhat);
/* Broad phase over the boxes of x0 ∪ y1 inflated by margin + d̂/2 (see above).  Like
 * collide_narrow it returns SIPD_ESIGNAL, leaving no candidates or pairs, when a stop was
 * requested (sipd_stop_flag, util.h) while it ran: it checks per block of queries. */
int collide_broad(sipd_collide *c, const double *x0, const double *y1, double margin);
/* 1 when some surface vertex of y lies more than `margin` outside the bbox of its x0 and y1
 * of the last broad phase (then the candidates may miss pairs: run collide_broad again);
 * also 1 before the first broad phase (0 for a model without surface triangles). */
int collide_outside(const sipd_collide *c, const double *y);
/* collide_outside with `dist` in place of the margin. */
int collide_outside_by(const sipd_collide *c, const double *y, double dist);
/* dhat (both): the contact distance d̂, for what thin bodies keep clear (ccd_clear). */
/* The displacement bounds of contact.ccd (physics/ccd.h) at positions y, after a narrow phase
 * (or a broad phase) at y: b (nv) the radius of vertex v's ball about y (candidate_bound, the
 * smallest over the candidates of the last broad phase that contain v; −1: unbounded), lo, hi
 * (nv*3) its box — the bbox of its x0 and y1 of the last broad phase grown by CCD_BOX_PAD of the
 * margin (±HUGE_VAL for vertices off the surface).  Every iterate inside both keeps every pair
 * of primitives apart (physics/ccd.h); a vertex that meets its box's side needs a broad phase
 * (collide_outside_by with less than the pad).  Cost: one distance per candidate. */
#define CCD_BOX_PAD 0.5
int collide_bounds(sipd_collide *c, const double *y, double dhat, double *b, double *lo, double *hi);
/* The step filter of contact.ccd for a whole step y → y + d (physics/ccd.h): the smallest time
 * of impact τ ∈ (0, 1] over the candidates of the last broad phase (ccd_pair_toi; 1 when none
 * would close more than 1 − CCD_KEEP of its gap), after collide_bounds.  A candidate is skipped
 * without a distance when its vertices' steps are shorter than what remains of its distance
 * measured by collide_bounds less how far its vertices have moved since.  The caller makes sure
 * y and y + d lie within the margin of the broad phase's boxes (collide_outside), so that no
 * other pair can meet. */
double collide_toi(sipd_collide *c, const double *y, const double *d, double dhat);
/* Narrow phase: the pairs at y (x0: the step start, for the orientation) among the candidates
 * of the last broad phase (none before it).  *pairs points to storage owned by c, valid until
 * the next call. */
int collide_narrow(sipd_collide *c, const double *x0, const double *y, const sipd_contact_pair **pairs, int *npairs);
/* Candidates of the last broad phase. */
void collide_candidates(const sipd_collide *c, long *nvf, long *nee);

/* Read-only view of the last broad phase's candidates and of the surface edges (for a narrow
 * phase elsewhere, e.g. kernels/collide_cuda.cu).  No copy: the pointers point into c and stay
 * valid until the next collide_broad or collide_destroy (edges: until collide_destroy).  Before
 * the first broad phase nvf = nee = 0.  These are exactly the candidates collide_narrow reads:
 * candidate k < nvf is the VF pair (vf[2k], vf[2k+1]), candidate nvf + k the EE pair
 * (ee[2k], ee[2k+1]); collide_narrow visits them in this order and keeps those that pass the
 * narrow-phase rules above. */
typedef struct {
    const sipd_model *m;   /* the model c was created with                                     */
    const int *vf;         /* 2 per candidate: model vertex, face (triangle m->tris + 3 face)  */
    size_t nvf;
    const int *ee;         /* 2 per candidate: edge i < edge j (rows of edges)                 */
    size_t nee;
    const int *edges;      /* 2 per edge: model vertices lo < hi, lexicographic order (the
                              triangles' edges, then the rods')                                */
    int nedges;
    int ne_tri;            /* edges [0, ne_tri) are the triangles', [ne_tri, nedges) the rods'  */
    double dhat;           /* pairs are kept when their gap is below dhat                      */
    double tiny;           /* the normal falls back to the face / e1×e2 normal when the
                              closest-point distance is at most tiny (1e-12 of the model size) */
    const int *sv;         /* the surface vertices (model indices, ascending)                  */
    int nsv;
    int self;              /* pairs within one body are detected (collide_create's self)       */
} sipd_collide_view;
void collide_candidate_arrays(const sipd_collide *c, sipd_collide_view *v);

/* The pairs within one body that the rest-shape rule above excludes when self = 1: VF (model
 * vertex, face) and EE (edge i < edge j) pairs of primitives that share no vertex, lie in one
 * body, and are closer than d̂ (1 + 1e-9) in m->X — as sorted keys a << 32 | b (malloc'ed, at
 * least one element; free them).  The GPU broad phase looks the rule up here instead of computing
 * rest distances (kernels/collide_broad.h).  Cost: one broad phase over the rest shape. */
int collide_rest_excluded(const sipd_model *m, double dhat, uint64_t **vf, size_t *nvf, uint64_t **ee, size_t *nee);

void collide_destroy(sipd_collide *c);

#ifdef __cplusplus
}
#endif

#endif
