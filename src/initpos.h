/* initpos.h — a body's initial positions from a file (bodies[].initial_positions, docs/design.md §4).
 *
 * The file gives the state at t = 0 of the body's vertices, in the mesh's vertex order:
 *   - a TetGen .node file: "<n> 3 <nattr> <0|1>" then n rows "<i> x y z [attrs] [marker]" with
 *     consecutive indices (base 0 or 1); n must equal the mesh's vertex count;
 *   - a gmsh .msh or an .obj file (anything the mesh loader reads): the same vertex count and
 *     identical topology (tet i — or for a surface/curve mesh triangle/segment i — has the same
 *     corners as the mesh's; the loader's orientation swap of two corners does not count as a
 *     difference).  It is read by the mesh loader, which refuses degenerate elements: a
 *     degenerate state (e.g. collapsed) must come as .node or .h5;
 *   - "FILE.h5:FRAME[:BODY]" — frame FRAME (0-based; negative counts from the end, -1 = last)
 *     of /frames/positions of an earlier sipd-run output, restricted to the vertices of body
 *     BODY of that run (by /mesh/body; default: the same index as this body).  Those vertices
 *     must be as many as the mesh's, and that body's tets in /mesh/tets must be the mesh's.
 * Every coordinate must be finite.
 *
 * Frame of reference: .node and .msh positions are in the mesh file's frame, so the caller
 * applies the body's transform (scale, rotate_deg, translate) to them exactly as to the mesh;
 * .h5 positions are world positions from an earlier run and are used as they are (*world = 1).
 */
#ifndef SIPD_INITPOS_H
#define SIPD_INITPOS_H

#include <stddef.h>

#include "mesh.h"

/* Split "FILE.h5:FRAME[:BODY]". Returns 1 and fills *file_len (length of FILE), *frame and
 * *body (-1 when absent) when spec has that form; 0 when spec is a plain path (.node, .msh);
 * -1 when spec names an .h5 file without a valid ":FRAME" (an error). */
int initpos_split(const char *spec, size_t *file_len, long *frame, long *body);

/* Load the initial positions of body `body_index` (mesh `me`) from `spec` (the resolved path,
 * with ":FRAME[:BODY]" for .h5) into out[me->nv*3].  On failure writes a one-line reason into
 * err (naming the file, and its line where there is one) and returns SIPD_EINPUT (bad input) or
 * SIPD_EFAIL (out of memory); the loader's own file:line message may precede it on stderr. */
int initpos_load(const char *spec, const sipd_mesh *me, int body_index, double *out, int *world, char *err,
                 size_t errlen);

#endif
