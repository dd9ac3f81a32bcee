/* elements.h — element kinds as data (docs/design.md §2.1).
 *
 * The model holds one group of elements per kind; a vertex's incidences are (group, element,
 * local corner) triples, never a packed `element * 4 + corner`.  What a pass needs to know
 * about a kind — its corner count and the sizes of its per-element buffers — comes from the
 * functions below, so a pass loops over `nc` corners and indexes buffers by these strides.
 * Kinds today: tetrahedra, edges (springs, a rod's stretching) and rod bending (physics/edge.h),
 * membrane triangles (physics/tri.h), their dihedral hinges (physics/bend.h) and their mid-edge
 * (Morley-type) bending (physics/midedge.h).  A new kind adds an enum value, a row in these functions, a case in each kind
 * switch of src/passes.h and src/model.c (corner weights), and its Hessian size for Newton.
 */
#ifndef SIPD_PHYSICS_ELEMENTS_H
#define SIPD_PHYSICS_ELEMENTS_H

#include "common.h"

typedef enum {
    SIPD_KIND_TET = 0,        /* tetrahedra (solids): rest Bm (9), measure V                        */
    SIPD_KIND_EDGE = 1,       /* springs (and a rod's stretching): rest [L, k], measure L (edge.h)  */
    SIPD_KIND_ROD_BEND = 2,   /* a rod's bending at an interior vertex: rest [κ̄, k_b] (edge.h)     */
    SIPD_KIND_TRI = 3,        /* membrane triangles (cloth, shells): rest Bm (2x2), measure A·t (tri.h) */
    SIPD_KIND_HINGE = 4,      /* dihedral bending of an interior edge: rest [θ̄, k_e] (bend.h)      */
    SIPD_KIND_MIDEDGE = 5,    /* mid-edge bending of a triangle over its 12-vertex stencil: rest
                                 [C, W', b̄, D] (46), measure Ā (midedge.h)                     */
    SIPD_KIND_COUNT = 6
} sipd_kind;

#define SIPD_MAX_CORNERS 12  /* the most corners of any kind (mid-edge bending)                */

/* corners of an element of kind k */
SIPD_HD int kind_corners(int k)
{
    return k == SIPD_KIND_TET || k == SIPD_KIND_HINGE ? 4 : k == SIPD_KIND_EDGE ? 2
           : k == SIPD_KIND_ROD_BEND || k == SIPD_KIND_TRI ? 3 : k == SIPD_KIND_MIDEDGE ? 12 : 0;
}
/* rest data per element (tets: Bm = Dm⁻¹, 3x3; triangles: Bm, 2x2; edges: [L, k]; rod bending:
   [κ̄, k_b]; hinges: [θ̄, k_e]; mid-edge bending: [C (36), W' (6), b̄ (3), D]) */
SIPD_HD int kind_rest_size(int k)
{
    return k == SIPD_KIND_TET ? 9 : k == SIPD_KIND_TRI ? 4
           : k == SIPD_KIND_EDGE || k == SIPD_KIND_ROD_BEND || k == SIPD_KIND_HINGE ? 2
           : k == SIPD_KIND_MIDEDGE ? 46 : 0;
}
/* the element pass's gradient buffer: 3 per corner */
SIPD_HD int kind_grad_size(int k) { return 3 * kind_corners(k); }
/* Whether SIPD's split preconditioner stores one block per corner for kind k (1: the kind has
 * no pairwise K — rod bending, hinges, mid-edge bending — and its incidence weights are 1) or one K⁺ per element
 * shared by the corners with weights inc_w (0: tets, triangles, springs). */
SIPD_HD int kind_split_per_corner(int k)
{
    return k == SIPD_KIND_ROD_BEND || k == SIPD_KIND_HINGE || k == SIPD_KIND_MIDEDGE;
}
/* the element pass's block buffer for a preconditioner whose blocks are per element (one K⁺,
 * the SIPD split: 6) or per corner (PSD vertex blocks: 6 per corner) */
SIPD_HD int kind_block_size(int k, int per_corner)
{
    return per_corner || kind_split_per_corner(k) ? 6 * kind_corners(k) : 6;
}
/* a full element Hessian, (3 nc)² (Newton) */
SIPD_HD int kind_hessian_size(int k) { return 9 * kind_corners(k) * kind_corners(k); }

#endif
