/* sipd-genbox — write a structured tetrahedral box mesh in TetGen format.
 *   sipd-genbox NX NY NZ LX LY LZ OUTBASE     (6 tets per cell; OUTBASE.node/.ele/.face) */
#include <stdio.h>
#include <stdlib.h>

#include "meshgen.h"
#include "util.h"

int main(int argc, char **argv)
{
    sipd_mesh m;
    int rc;
    if (argc != 8) {
        fprintf(stderr, "usage: sipd-genbox NX NY NZ LX LY LZ OUTBASE\n"
                        "  writes OUTBASE.node/.ele/.face: box [0,LX]x[0,LY]x[0,LZ], NX*NY*NZ cells, 6 tets each\n");
        return 2;
    }
    rc = meshgen_box(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atof(argv[4]), atof(argv[5]), atof(argv[6]), &m);
    if (rc != SIPD_OK) {
        fprintf(stderr, "sipd-genbox: bad arguments\n");
        return 2;
    }
    rc = mesh_write_tetgen(argv[7], &m);
    if (rc == SIPD_OK)
        printf("%s: %d vertices, %d tets, %d surface triangles\n", argv[7], m.nv, m.nt, m.nf);
    mesh_free(&m);
    return rc;
}
