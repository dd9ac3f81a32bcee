/* mesh.h — tetrahedral mesh input (TetGen .node/.ele[/.face], gmsh .msh 2.2 and 4.1,
 * ASCII and binary).
 *
 * Loaded meshes are normalised: vertex indices are dense and 0-based in file order of the
 * node section (gmsh tags may be sparse and unordered), every tet has positive signed
 * volume (two corners swapped when negative), node coordinates are finite with |x| <= 1e30
 * (so no tet volume or rest-shape inverse overflows), degenerate tets (|6V| <= 1e-12 Lmax^3, Lmax
 * the tet's longest edge) are refused naming the element, and the surface triangles are
 * oriented outward (normal pointing away from the tet they bound).
 *
 * Surface choice: the surface is ALWAYS extracted from the tets as the faces that belong to
 * exactly one tet, whatever the format, so gmsh and TetGen inputs give the same result.
 * Triangles in the file (gmsh type 2, TetGen .face) are read and their node references
 * validated, but not used.  Order of tris: grouped by smallest vertex index, then sorted.
 */
#ifndef SIPD_MESH_H
#define SIPD_MESH_H

typedef struct {
    int nv, nt, nf;
    double *x;   /* nv*3 vertex positions             */
    int *tets;   /* nt*4, 0-based, positive volume    */
    int *tris;   /* nf*3, 0-based, outward surface    */
} sipd_mesh;

/* path ending in ".msh" -> gmsh; otherwise a TetGen base name ("part.1" -> part.1.node ...).
 * Returns SIPD_OK, SIPD_EINPUT (error printed as "file:line: message") or SIPD_EFAIL. */
int mesh_load(const char *path, sipd_mesh *m);
int mesh_load_gmsh(const char *path, sipd_mesh *m);
int mesh_load_tetgen(const char *base, sipd_mesh *m);
void mesh_free(sipd_mesh *m);

#endif
