/* mixed.h — the mixed variational FEM solve (docs/design.md §3.11, seed 002): the host side of one
 * outer iteration over the shared element math of physics/mixed.h.
 *
 * The driver (solvers/mixed_fem.c, solve_mixed) owns the iteration: residual of the real energy, line
 * search on the Lagrangian, stopping.  This module owns the per-element unknowns — s (carried
 * across steps and stored in checkpoints) and λ (restarting at 0 each step, recomputed in closed
 * form each outer iteration) — and the global system: the backend's non-elastic blocks
 * (inertia, contact; backend.h assemble with SIPD_TERMS_NO_STRETCH) plus Σ_e w (BJ)ᵀ H_e (BJ) assembled into the same
 * block-CSR pattern as Newton's (sparse.h, sipd_bsr_pattern; rows gathered per vertex over its
 * incidences, no races), solved by CHOLMOD (symbolic analysis once per pattern — contact pairs
 * join it, so it is redone when the pair set's pattern changes — numeric factorisation per outer
 * iteration; sparse.h sipd_direct_solve) or block-Jacobi PCG.
 *
 * Element kinds: tets (6 stretch entries), edges — springs and a rod's stretching (1: s = |F|) —
 * are stretch elements (physics/mixed.h); rod bending and hinges are plain elastic terms of the
 * global system (the backend's set SIPD_TERMS_NO_STRETCH includes them, as Newton's Hessian does).
 * The matrix pattern is Newton's over every kind (model_pattern_elements, padded elements).
 *
 * CPU only: the element pass runs here on host copies of y (a GPU port would move
 * mixed_tet_system into a backend pass and needs a device sparse Cholesky or PCG; docs/mixed-fem.md).
 */
#ifndef SIPD_MIXED_H
#define SIPD_MIXED_H

#include "model.h"
#include "sparse.h"

typedef struct sipd_mixed sipd_mixed;

/* Whether every element kind of m has a mixed-FEM treatment here. */
int mixed_kinds_supported(const sipd_model *m);
/* linear = SIPD_LINEAR_* (scene.h); cg_tol: PCG's relative tolerance.  s starts at ŝ(X0). */
int mixed_create(sipd_mixed **mx, const sipd_model *m, int linear, double cg_tol);
void mixed_free(sipd_mixed *mx);

/* One outer iteration's direction at y (nv*3): H holds the non-elastic blocks and gbase their
 * gradient (backend.h assemble, SIPD_TERMS_NO_STRETCH); the element blocks are added to H, the system solved for
 * dx (nv*3), and Δs, λ computed per element.  *cg_iters: PCG iterations (0 with CHOLMOD).
 * SIPD_EFAIL when the factorisation fails (not positive definite) or memory runs out;
 * SIPD_ESIGNAL when a stop was requested (util.h) during the linear solve. */
int mixed_direction(sipd_mixed *mx, sipd_bsr *H, const sipd_bsr_extra *extra, const double *gbase, const double *y,
                    double *dx, int *cg_iters);
/* The elements' part of the Lagrangian at y + α dx, s + α Δs with the current λ. */
double mixed_lagrangian(const sipd_mixed *mx, double alpha);
/* Accept the step: s ← s + α Δs. */
void mixed_accept(sipd_mixed *mx, double alpha);
/* The start of a step: λ = 0 (s is kept). */
void mixed_begin_step(sipd_mixed *mx);
/* The carried stretches (mixed_stretch_count: 6 per tet, 1 per edge, group after group): read for checkpoints, written on resume. */
double *mixed_stretch(sipd_mixed *mx);
int mixed_stretch_count(const sipd_mixed *mx);
/* max |Δs| over the elements of the last direction. */
double mixed_ds_max(const sipd_mixed *mx);
/* The CHOLMOD solve's state (its analysis and factorisation counters). */
const sipd_direct *mixed_direct(const sipd_mixed *mx);

#endif
