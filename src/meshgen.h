/* meshgen.h — structured tetrahedral meshes of a box, rod polylines, cloth grids, and a TetGen writer: for example
 * scenes, benchmarks and refinement studies.  Each grid cell is split into 6 tets along its
 * main diagonal (Kuhn triangulation), which is conforming across cells. */
#ifndef SIPD_MESHGEN_H
#define SIPD_MESHGEN_H

#include "mesh.h"

/* Box [0,lx]x[0,ly]x[0,lz] with nx*ny*nz cells; surface extracted, tets positively oriented. */
int meshgen_box(int nx, int ny, int nz, double lx, double ly, double lz, sipd_mesh *m);
/* Rod polyline: segments + 1 vertices from the origin to (length, 0, 0) joined by `segments`
 * line segments (dim 1; bodies[].generate, scene.h). */
int meshgen_rod(int segments, double length, sipd_mesh *m);
/* Cloth grid: (nx+1)(nz+1) vertices on [0,lx] x [0,lz] in the y = 0 plane (vertex i + (nx+1) k at
 * (lx i/nx, 0, lz k/nz)), each cell split along its (i,k)–(i+1,k+1) diagonal into two triangles
 * with normals +y; no tets (m->tris holds the triangles, m->nf of them). */
int meshgen_cloth(int nx, int nz, double lx, double lz, sipd_mesh *m);
/* Write base.node / base.ele / base.face (1-based). */
int mesh_write_tetgen(const char *base, const sipd_mesh *m);

#endif
