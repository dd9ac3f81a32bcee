/* meshgen.h — structured tetrahedral meshes of a box, and a TetGen writer: for example
 * scenes, benchmarks and refinement studies.  Each grid cell is split into 6 tets along its
 * main diagonal (Kuhn triangulation), which is conforming across cells. */
#ifndef SIPD_MESHGEN_H
#define SIPD_MESHGEN_H

#include "mesh.h"

/* Box [0,lx]x[0,ly]x[0,lz] with nx*ny*nz cells; surface extracted, tets positively oriented. */
int meshgen_box(int nx, int ny, int nz, double lx, double ly, double lz, sipd_mesh *m);
/* Write base.node / base.ele / base.face (1-based). */
int mesh_write_tetgen(const char *base, const sipd_mesh *m);

#endif
