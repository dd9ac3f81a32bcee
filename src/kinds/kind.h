/* kind.h — the list of element kinds and what the rest of the code knows about a kind
 * (docs/architecture.md, "How to add an element kind").
 *
 * The model holds one group of elements per kind; a vertex's incidences are (group, element,
 * local corner) triples, never a packed `element * 4 + corner`.  What a pass needs to know about
 * a kind — its corner count and the sizes of its per-element buffers — comes from the functions
 * below, generated from one list, so a pass loops over `nc` corners and indexes buffers by these
 * strides.  A kind's code (element, energy, corner, rest functions) is its header in this folder;
 * kinds.h generates the dispatch over the list.
 *
 * This header includes only physics/common.h: the model (model.h) and the passes' view include
 * it for the enum.
 */
#ifndef SIPD_KINDS_KIND_H
#define SIPD_KINDS_KIND_H

#include "../physics/common.h"

/* X(ENUM, name, corners, rest, per_corner, mixed_ns), one row per kind, in enum order:
 *   ENUM        SIPD_KIND_<ENUM>; name: its header src/kinds/<name>.h and its functions kind_<name>_*
 *   corners     vertices per element
 *   rest        rest data per element (tets: Bm = Dm⁻¹, 3x3; triangles: Bm, 2x2; edges: [L, k]; rod
 *               bending: [κ̄, k_b]; hinges: [θ̄, k_e]; mid-edge bending: [C (36), W' (6), b̄ (3), D])
 *   per_corner  1: SIPD's split preconditioner stores one block per corner (the kind has no pairwise
 *               K: rod bending, hinges, mid-edge bending; incidence weights 1); 0: one K⁺ per element
 *               shared by the corners with weights inc_w (tets, triangles, springs)
 *   mixed_ns    stretch entries per element in the mixed FEM (src/mixed.c): 6 tets, 3 triangles, 1
 *               edges; 0: not a stretch element (the mixed solve takes it as a plain elastic term,
 *               its PSD Hessian and gradient in the global system, as Newton does)
 * The numbering is part of the checkpoint format: append new kinds at the end. */
#define SIPD_KINDS(X)                                                                             \
    X(TET, tet, 4, 9, 0, 6)           /* tetrahedra (solids), measure V                        */ \
    X(EDGE, edge, 2, 2, 0, 1)         /* springs, a rod's stretching, measure L                */ \
    X(ROD_BEND, rod_bend, 3, 2, 1, 0) /* a rod's bending at an interior vertex                 */ \
    X(TRI, tri, 3, 4, 0, 3)           /* membrane triangles (cloth, shells), measure A·t       */ \
    X(HINGE, hinge, 4, 2, 1, 0)       /* dihedral bending of an interior edge                  */ \
    X(MIDEDGE, midedge, 12, 46, 1, 0) /* mid-edge bending over a triangle's 12-vertex stencil  */

#define SIPD_KIND_ENUM_(K, name, nc, rest, pc, ns) SIPD_KIND_##K,
typedef enum { SIPD_KINDS(SIPD_KIND_ENUM_) SIPD_KIND_COUNT } sipd_kind;
#undef SIPD_KIND_ENUM_

#define SIPD_MAX_CORNERS 12  /* the most corners of any kind (mid-edge bending)                */

#define SIPD_KIND_NC_(K, name, nc, rest, pc, ns) k == SIPD_KIND_##K ? nc:
#define SIPD_KIND_REST_(K, name, nc, rest, pc, ns) k == SIPD_KIND_##K ? rest:
#define SIPD_KIND_PC_(K, name, nc, rest, pc, ns) || (pc && k == SIPD_KIND_##K)
#define SIPD_KIND_NS_(K, name, nc, rest, pc, ns) k == SIPD_KIND_##K ? ns:

/* corners of an element of kind k */
SIPD_HD int kind_corners(int k) { return SIPD_KINDS(SIPD_KIND_NC_) 0; }
/* rest data per element of kind k */
SIPD_HD int kind_rest_size(int k) { return SIPD_KINDS(SIPD_KIND_REST_) 0; }
/* the element pass's gradient buffer: 3 per corner */
SIPD_HD int kind_grad_size(int k) { return 3 * kind_corners(k); }
/* Whether SIPD's split preconditioner stores one block per corner for kind k (the list's per_corner) */
SIPD_HD int kind_split_per_corner(int k) { return 0 SIPD_KINDS(SIPD_KIND_PC_); }
/* the element pass's block buffer for a preconditioner whose blocks are per element (one K⁺,
 * the SIPD split: 6) or per corner (PSD vertex blocks: 6 per corner) */
SIPD_HD int kind_block_size(int k, int per_corner)
{
    return per_corner || kind_split_per_corner(k) ? 6 * kind_corners(k) : 6;
}
/* a full element Hessian, (3 nc)² (Newton) */
SIPD_HD int kind_hessian_size(int k) { return 9 * kind_corners(k) * kind_corners(k); }
/* stretch entries per element in the mixed FEM (the list's mixed_ns; 0: not a stretch element) */
SIPD_HD int kind_mixed_stretch(int k) { return SIPD_KINDS(SIPD_KIND_NS_) 0; }

#undef SIPD_KIND_NC_
#undef SIPD_KIND_REST_
#undef SIPD_KIND_PC_
#undef SIPD_KIND_NS_

#endif
