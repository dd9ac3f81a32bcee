/* kinds.h — every element kind's header, and the dispatch over SIPD_KINDS (kind.h) generated
 * from the list: one `switch (kind)` per verb, each case one call into the kind's header
 * (docs/architecture.md, "How to add an element kind").  The passes (src/passes.h), the model
 * (incidence weights, energy scales), the mixed FEM and output.fields call these and name no kind.
 *
 * The dispatchers are always inlined: the kinds' bodies were once the cases of these switches
 * inside the passes, and the CPU loops and the kernels must compile to the same code
 * (results/identity and the timings in results/perf-history.md). */
#ifndef SIPD_KINDS_KINDS_H
#define SIPD_KINDS_KINDS_H

#include "edge.h"
#include "hinge.h"
#include "midedge.h"
#include "rod_bend.h"
#include "tet.h"
#include "tri.h"

/* The kinds the mixed FEM stretches (kind.h mixed_ns > 0: their headers give kind_<name>_mixed_*)
 * and the kinds whose elements are written to /mesh, in /mesh's order (kind_<name>_fields). */
#define SIPD_MIXED_KINDS(X) X(TET, tet) X(EDGE, edge) X(TRI, tri)
#define SIPD_MESH_KINDS(X) X(TET, tet) X(TRI, tri) X(EDGE, edge)

/* ---- the passes (src/passes.h) ---- */

/* The element pass of element e of group G (kind_<name>_element). */
SIPD_HD SIPD_ALWAYS_INLINE void kinds_element(const sipd_view *v, const sipd_material *mat, int precond, int split,
                                              const sipd_group_view *G, int e)
{
#define SIPD_KIND_CASE_(K, name, nc, rest, pc, ns)                                                 \
    case SIPD_KIND_##K: kind_##name##_element(v, mat, precond, split, G, e); break;
    switch (G->kind) {
        SIPD_KINDS(SIPD_KIND_CASE_)
    default: break;
    }
#undef SIPD_KIND_CASE_
}

/* kinds_element with the kind given (a compile-time constant in the CUDA backend's per-kind
 * element kernels, passes.h pass_element_fixed: the switch folds to one case). */
SIPD_HD SIPD_ALWAYS_INLINE void kinds_element_kind(const sipd_view *v, const sipd_material *mat, int kind, int precond,
                                                   int split, const sipd_group_view *G, int e)
{
#define SIPD_KIND_CASE_(K, name, nc, rest, pc, ns)                                                 \
    case SIPD_KIND_##K: kind_##name##_element(v, mat, precond, split, G, e); break;
    switch (kind) {
        SIPD_KINDS(SIPD_KIND_CASE_)
    default: break;
    }
#undef SIPD_KIND_CASE_
}

/* The energy of element e of group G (of kind `kind`: a constant where the caller fixes it) with
 * its corners at y + α dy, corner `over` at q (kind_<name>_energy); NaN for an unknown kind. */
SIPD_HD SIPD_ALWAYS_INLINE sipd_real kinds_energy(const sipd_view *v, const sipd_material *mat, int kind,
                                                  const sipd_group_view *G, int e, const sipd_real *dy,
                                                  sipd_real alpha, int over, vec3 q)
{
#define SIPD_KIND_CASE_(K, name, nc, rest, pc, ns)                                                 \
    case SIPD_KIND_##K: return kind_##name##_energy(v, mat, G, e, dy, alpha, over, q);
    switch (kind) {
        SIPD_KINDS(SIPD_KIND_CASE_)
    default: return SIPD_R(0) / SIPD_R(0);   /* an unknown kind is a bug: NaN stops the run */
    }
#undef SIPD_KIND_CASE_
}

/* Corner l of element e of group G: its gradient, its block added to *D, energy and scale
 * (kind_<name>_corner); NaN energy for an unknown kind. */
SIPD_HD SIPD_ALWAYS_INLINE vec3 kinds_corner(const sipd_view *v, const sipd_material *mat, int kind, int precond,
                                             int split, const sipd_group_view *G, int e, int l, sipd_real w, sym3 *D,
                                             sipd_real *energy, sipd_real *scale)
{
#define SIPD_KIND_CASE_(K, name, nc, rest, pc, ns)                                                 \
    case SIPD_KIND_##K: return kind_##name##_corner(v, mat, precond, split, G, e, l, w, D, energy, scale);
    switch (kind) {
        SIPD_KINDS(SIPD_KIND_CASE_)
    default: *energy = SIPD_R(0) / SIPD_R(0); *scale = 0; return v3(0, 0, 0);
    }
#undef SIPD_KIND_CASE_
}

/* ---- the model (src/model.c) ---- */

/* SIPD's weight of corner l of an element of kind k with rest data `rest` and measure vol; NaN
 * for an unknown kind. */
SIPD_HD sipd_real kinds_weight(int k, const sipd_real *rest, sipd_real vol, int l)
{
#define SIPD_KIND_CASE_(K, name, nc, rest_, pc, ns)                                                \
    case SIPD_KIND_##K: return kind_##name##_weight(rest, vol, l);
    switch (k) {
        SIPD_KINDS(SIPD_KIND_CASE_)
    default: return SIPD_R(0) / SIPD_R(0);
    }
#undef SIPD_KIND_CASE_
}

/* The energy scale of an element of kind k (its (μ + λ) V or analogue; mat: its material, read
 * only by the kinds that have one); 0 for an unknown kind. */
SIPD_HD sipd_real kinds_scale(int k, const sipd_material *mat, const sipd_real *rest, sipd_real vol)
{
#define SIPD_KIND_CASE_(K, name, nc, rest_, pc, ns)                                                \
    case SIPD_KIND_##K: return kind_##name##_scale(mat, rest, vol);
    switch (k) {
        SIPD_KINDS(SIPD_KIND_CASE_)
    default: return 0;
    }
#undef SIPD_KIND_CASE_
}

/* ---- the mixed FEM (src/mixed.c): the stretch kinds ---- */

/* 1 when kind k has the mixed FEM's functions (SIPD_MIXED_KINDS) */
SIPD_HD int kinds_mixed(int k)
{
#define SIPD_KIND_IS_(K, name) || k == SIPD_KIND_##K
    return 0 SIPD_MIXED_KINDS(SIPD_KIND_IS_);
#undef SIPD_KIND_IS_
}

SIPD_HD void kinds_mixed_shat(int k, const sipd_real *rest, const vec3 *y, sipd_real *shat)
{
#define SIPD_KIND_CASE_(K, name)                                                                   \
    case SIPD_KIND_##K: kind_##name##_mixed_shat(rest, y, shat); break;
    switch (k) {
        SIPD_MIXED_KINDS(SIPD_KIND_CASE_)
    default: break;
    }
#undef SIPD_KIND_CASE_
}

SIPD_HD void kinds_mixed_system(int k, const sipd_material *mat, const sipd_real *rest, sipd_real vol, const vec3 *y,
                                const sipd_real *s, sipd_real *K, sipd_real *r, sipd_real *BJ, sipd_real *Hs,
                                sipd_real *gs, sipd_real *shat)
{
#define SIPD_KIND_CASE_(K_, name)                                                                  \
    case SIPD_KIND_##K_: kind_##name##_mixed_system(mat, rest, vol, y, s, K, r, BJ, Hs, gs, shat); break;
    switch (k) {
        SIPD_MIXED_KINDS(SIPD_KIND_CASE_)
    default: break;
    }
#undef SIPD_KIND_CASE_
}

/* the element's term of the Lagrangian; 0 for a kind without one */
SIPD_HD sipd_real kinds_mixed_lagrangian(int k, const sipd_material *mat, const sipd_real *rest, sipd_real vol,
                                         const vec3 *y, const sipd_real *s, const sipd_real *lam)
{
#define SIPD_KIND_CASE_(K, name)                                                                   \
    case SIPD_KIND_##K: return kind_##name##_mixed_lagrangian(mat, rest, vol, y, s, lam);
    switch (k) {
        SIPD_MIXED_KINDS(SIPD_KIND_CASE_)
    default: return 0;
    }
#undef SIPD_KIND_CASE_
}

/* ---- output.fields (src/fields.c): the kinds in /mesh ---- */

SIPD_HD sipd_elem_fields kinds_fields(int k, const sipd_material *mat, const sipd_real *rest, const vec3 *X,
                                      const vec3 *x, sipd_real area)
{
    sipd_elem_fields none;
    int i;
#define SIPD_KIND_CASE_(K, name)                                                                   \
    case SIPD_KIND_##K: return kind_##name##_fields(mat, rest, X, x, area);
    switch (k) {
        SIPD_MESH_KINDS(SIPD_KIND_CASE_)
    default: break;
    }
#undef SIPD_KIND_CASE_
    none.J = none.von_mises = none.energy_density = 0;   /* not a /mesh kind */
    for (i = 0; i < 6; i++) none.strain[i] = 0;
    return none;
}

#endif
