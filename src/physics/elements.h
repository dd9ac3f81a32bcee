/* elements.h — element kinds as data (DESIGN.md §2.1).
 *
 * The model holds one group of elements per kind; a vertex's incidences are (group, element,
 * local corner) triples, never a packed `element * 4 + corner`.  What a pass needs to know
 * about a kind — its corner count and the sizes of its per-element buffers — comes from the
 * functions below, so a pass loops over `nc` corners and indexes buffers by these strides.
 * Only tetrahedra exist today; triangles (shells) and edges (rods, springs) are the next kinds
 * (issue "Cloth, springs and rods"): each adds an enum value, a row in these functions and a
 * case in the kind switch of src/passes.h.
 */
#ifndef SIPD_PHYSICS_ELEMENTS_H
#define SIPD_PHYSICS_ELEMENTS_H

#include "common.h"

typedef enum { SIPD_KIND_TET = 0, SIPD_KIND_COUNT = 1 } sipd_kind;

#define SIPD_MAX_CORNERS 4   /* the most corners of any kind (the tet)                        */

/* corners of an element of kind k */
SIPD_HD int kind_corners(int k) { return k == SIPD_KIND_TET ? 4 : 0; }
/* rest data per element (tets: Bm = Dm⁻¹, 3x3) */
SIPD_HD int kind_rest_size(int k) { return k == SIPD_KIND_TET ? 9 : 0; }
/* the element pass's gradient buffer: 3 per corner */
SIPD_HD int kind_grad_size(int k) { return 3 * kind_corners(k); }
/* the element pass's block buffer for a preconditioner whose blocks are per element (one K⁺,
 * the SIPD split: 6) or per corner (PSD vertex blocks: 6 per corner) */
SIPD_HD int kind_block_size(int k, int per_corner) { return per_corner ? 6 * kind_corners(k) : 6; }
/* a full element Hessian, (3 nc)² (Newton) */
SIPD_HD int kind_hessian_size(int k) { return 9 * kind_corners(k) * kind_corners(k); }

#endif
