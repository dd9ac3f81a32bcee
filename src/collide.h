/* collide.h — collision detection between surfaces (DESIGN.md §3.6): the broad phase once per
 * time step, the narrow phase every `contact.detect_every` iterations.
 *
 * Primitives: the surface triangles of the model (m->tris, outward), their edges (each
 * undirected edge once) and their vertices.  A pair is a vertex–face (VF) or an edge–edge (EE)
 * pair, a virtual element with frozen weights β and unit normal n (sipd_contact_pair); its gap
 * is d = n·Σ β_k y_k.
 *
 * Broad phase.  Every vertex gets a box = bbox of its positions x0 (step start) and y1 (a
 * prediction of the end of the step), inflated by r = margin + d̂/2; a primitive's box is the
 * union of its vertices' boxes.  Candidate pairs are the VF and EE pairs whose boxes overlap,
 * minus the excluded ones (below).  So as long as every vertex stays within `margin` of the
 * bbox of its x0 and y1 (collide_outside says when it does not), every pair closer than d̂
 * is a candidate.  Uniform-grid spatial hash; the output order is deterministic and does not
 * depend on the number of threads.
 *
 * Excluded: pairs that share a vertex; pairs whose vertices are all Dirichlet (m->fixed != 0:
 * obstacles and pins never need a force between each other); pairs within one body when
 * `self` is 0; pairs within one body whose distance in the rest shape m->X is below d̂ (the
 * neighbours of a flat surface are not a fold); EE pairs of (near-)parallel edges
 * (|e₁×e₂| < 1e-3 |e₁||e₂|).
 *
 * Narrow phase at positions y.  VF: closest point c = Σ b_i f_i of the triangle to the vertex
 * p (clamped: edges and corners included); β = (1, −b₀, −b₁, −b₂).  EE: closest points
 * p(s) on edge 1 and q(t) on edge 2; only pairs whose unclamped closest points are interior
 * (0 < s < 1, 0 < t < 1) are kept (the others are VF cases); β = (1−s, s, −(1−t), −t).
 * n = (p − c)/|p − c| (EE: (p(s) − q(t))/|…|), or the face normal (EE: e₁×e₂ normalised) when
 * that distance is below 1e-12 of the model size; then n is flipped if needed so that the
 * step-start gap n·Σ β_k x0_k is ≥ 0 (the side the pair was on at the start of the step;
 * a pair that crossed during the step then has a negative gap).  A pair is kept when its gap
 * d = n·Σ β_k y_k < d̂.
 * Weight w: 1 for EE and for a VF pair whose closest point is inside the face; 1/2 when the
 * closest point is on an edge (shared with the neighbouring face), 1/valence when on a corner
 * (valence = surface triangles at that corner), so that a vertex over a shared edge or corner
 * is not pushed twice as hard.
 *
 * Output pairs are ordered: all VF pairs in candidate order, then all EE pairs.
 */
#ifndef SIPD_COLLIDE_H
#define SIPD_COLLIDE_H

#include "model.h"

typedef struct {
    int v[4];         /* VF: vertex, face corners (m->tris order); EE: p0, p1, q0, q1      */
    double beta[4];   /* VF: 1, −b0, −b1, −b2;  EE: 1−s, s, −(1−t), −t                      */
    double n[3];      /* unit normal, oriented by the side at the start of the step        */
    double w;         /* stiffness weight (see above)                                      */
    int kind;         /* 0 VF, 1 EE                                                        */
} sipd_contact_pair;

typedef struct sipd_collide sipd_collide;

/* Surface vertices, edges, valences of the model; self: detect pairs within one body. */
int collide_create(sipd_collide **c, const sipd_model *m, int self, double dhat);
/* Broad phase over the boxes of x0 ∪ y1 inflated by margin + d̂/2 (see above). */
int collide_broad(sipd_collide *c, const double *x0, const double *y1, double margin);
/* 1 when some surface vertex of y lies more than `margin` outside the bbox of its x0 and y1
 * of the last broad phase (then the candidates may miss pairs: run collide_broad again). */
int collide_outside(const sipd_collide *c, const double *y);
/* Narrow phase: the pairs at y (x0: the step start, for the orientation).  *pairs points to
 * storage owned by c, valid until the next call. */
int collide_narrow(sipd_collide *c, const double *x0, const double *y, const sipd_contact_pair **pairs, int *npairs);
/* Candidates of the last broad phase. */
void collide_candidates(const sipd_collide *c, long *nvf, long *nee);
void collide_destroy(sipd_collide *c);

#endif
