/* mesh.h — mesh input: TetGen .node/.ele[/.face], gmsh .msh 2.2 and 4.1 (ASCII and binary),
 * Wavefront .obj.
 *
 * A mesh's body is its highest-dimensional elements (`dim`): tetrahedra (3), else triangles
 * (2: gmsh type 2, OBJ `f`), else line segments (1: gmsh type 1, OBJ `l`).  Lower-dimensional
 * elements are validated (node references, first order) and ignored.  Whether a body is then
 * simulated as a solid, shell, rod or springs is the model's choice (bodies[].elements).
 *
 * Loaded meshes are normalised: vertex indices are dense and 0-based in file order of the
 * node section (gmsh tags may be sparse and unordered), every tet has positive signed
 * volume (two corners swapped when negative), node coordinates are finite with |x| <= 1e30
 * (so no tet volume or rest-shape inverse overflows), degenerate body elements are refused
 * naming the element (tets: |6V| <= 1e-12 Lmax^3, Lmax the longest edge; triangles: 2A <=
 * 1e-12 Lmax^2; segments: length <= 1e-12 times the coordinates' magnitude), and for a tet
 * mesh the surface triangles are oriented outward (normal pointing away from the tet they
 * bound).
 *
 * Surface choice (dim 3): the surface is ALWAYS extracted from the tets as the faces that
 * belong to exactly one tet, whatever the format, so gmsh and TetGen inputs give the same
 * result.  Triangles in the file (gmsh type 2, TetGen .face) are read and their node
 * references validated, but not used.  Order of tris: grouped by smallest vertex index, then
 * sorted.  For dim 2, `tris` are the file's triangles in file order, corners as written (OBJ
 * polygons fan-triangulated from their first corner); for dim 1, `lines` are the file's
 * segments in file order (an OBJ polyline `l a b c` gives (a b), (b c)).
 */
#ifndef SIPD_MESH_H
#define SIPD_MESH_H

typedef struct {
    int dim;     /* 3 tets, 2 triangles, 1 line segments: the body's elements (see above) */
    int nv, nt, nf, nl;
    double *x;   /* nv*3 vertex positions                                               */
    int *tets;   /* nt*4, 0-based, positive volume (dim 3)                              */
    int *tris;   /* nf*3, 0-based: dim 3 the outward surface, dim 2 the file's triangles */
    int *lines;  /* nl*2, 0-based: the file's segments (dim 1)                           */
} sipd_mesh;

/* path ending in ".msh" -> gmsh, ".obj" -> Wavefront OBJ; otherwise a TetGen base name
 * ("part.1" -> part.1.node ...).
 * Returns SIPD_OK, SIPD_EINPUT (error printed as "file:line: message") or SIPD_EFAIL. */
int mesh_load(const char *path, sipd_mesh *m);
int mesh_load_gmsh(const char *path, sipd_mesh *m);
int mesh_load_tetgen(const char *base, sipd_mesh *m);
int mesh_load_obj(const char *path, sipd_mesh *m);
/* 1 when `path` names one mesh file (.msh, .obj), 0 for a TetGen base name. */
int mesh_single_file(const char *path);
/* The formats mesh_load reads, for messages. */
#define MESH_FORMATS "gmsh .msh (2.2 and 4.1, ASCII or binary), Wavefront .obj, and TetGen .node/.ele[/.face] " \
                     "named by their base name (mesh = \"part.1\" for part.1.node and part.1.ele)"
void mesh_free(sipd_mesh *m);

#endif
