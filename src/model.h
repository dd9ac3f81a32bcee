/* model.h — the simulated system as host arrays (structs of arrays), built from a scene.
 *
 * Vertices of all bodies are concatenated in scene order.  Per tet: rest Bm = Dm⁻¹ and
 * volume; per vertex: lumped mass ρV/4, body, Dirichlet state.  The vertex→tet incidence
 * (CSR) and a vertex colouring (two vertices sharing a tet have different colours) serve the
 * Jacobi gather and the Gauss–Seidel sweep.
 */
#ifndef SIPD_MODEL_H
#define SIPD_MODEL_H

#include "kinds/kind.h"
#include "physics/material.h"
#include "mesh.h"
#include "scene.h"

typedef struct {
    double center[3], velocity[3], omega[3];
} sipd_motion;

/* One group of elements of one kind (src/kinds/kind.h): ne elements of nc corners. */
typedef struct {
    int kind, nc, ne;
    int *v;          /* ne*nc vertex indices                                        */
    double *rest;    /* ne*kind_rest_size(kind) rest data (tets: Bm)                 */
    double *vol;     /* ne rest measure (tets: volume)                               */
    int *mat;        /* ne material index                                            */
} sipd_elem_group;

/* What body b became (model.bodies[b]; the --dry-run summary, model_print_bodies). */
typedef struct {
    int kind;              /* sipd_body_elements, "auto" resolved from the mesh             */
    int v0, nv;            /* its vertices are [v0, v0 + nv)                                */
    double lo[3], hi[3];   /* bounding box of its initial positions (where boxes select)   */
    int npinned, nmoved;   /* vertices held by its pin boxes, moved by its move boxes (an
                              obstacle: all)                                              */
    int nfree_massless;    /* vertices in no element (no mass: held where they are)        */
    int bending;           /* a shell: the bending it got (SIPD_BENDING_DIHEDRAL or _MIDEDGE;
                              bodies[].bending "auto" resolved by model.c shell_bending)     */
    double bend_length;    /* a shell: its bending length (D / (ρ t |g|))^(1/3), m (inf without
                              gravity), and mean_edge its mean triangle edge                */
    double mean_edge;
    int volumetric;        /* its elements fill a volume: a solid, or springs from a tet mesh */
    double contact_k;      /* its automatic contact stiffness, N/m (model.c contact_stiffness:
                              solid E × mean tet edge, rod/springs E·πr²/L̄, shell E·t; 0: none) */
} sipd_model_body;

#define SIPD_TET_CHUNK_MAX 2048   /* tets per chunk of the fused Jacobi pass, the first size tried */
#define SIPD_TET_CHUNK_MIN 64     /* ... and the last (sipd_model chunk_*) */

typedef struct {
    int nv, nt, nf, nbodies;
    sipd_model_body *bodies;   /* nbodies */
    double *X;       /* nv*3 rest positions (world)                                */
    double *X0;      /* nv*3 initial positions (rest unless initial_stretch or
                        initial_positions is set)                                   */
    double *V0;      /* nv*3 initial velocities                                    */
    int *tets;       /* nt*4                                                       */
    int *tris;       /* nf*3 surface triangles                                     */
    int *body;       /* nv body index                                              */
    double *mass;    /* nv lumped mass (0 for a vertex in no tet)                  */
    double *Bm;      /* nt*9                                                       */
    double *vol;     /* nt                                                         */
    int *tet_mat;    /* nt material index                                          */
    int nmat;
    sipd_material *mats;
    /* Dirichlet: fixed[a] = 0 free, 1 pinned (or in no tet), 2 moved by motions[move_of[a]] */
    unsigned char *fixed;
    int *move_of;
    int nmotions;
    sipd_motion *motions;
    /* elements by kind: groups[0 .. ngroups), the group of kind k at group_of[k] (−1: none).
       The tet group's arrays are tets, Bm, vol, tet_mat above (the group points at them); the
       other groups own theirs (edges: springs and rod stretching, rest [L, k], measure L; rod
       bending: corners (previous, interior, next), rest [κ̄, k_b], measure (L1 + L2)/2).
       nt counts the solid bodies' tets only: a springs body's tets give masses, not elements. */
    int ngroups;
    sipd_elem_group groups[SIPD_KIND_COUNT];
    int group_of[SIPD_KIND_COUNT];
    /* incidence: vertex a's incidences are k in [inc_off[a], inc_off[a+1]): corner inc_corner[k]
       of element inc_elem[k] of group inc_group[k]; inc_w[k] = V |∇N_corner|² of it */
    int *inc_off, *inc_elem;
    unsigned char *inc_group, *inc_corner;
    double *inc_w;
    /* colouring: colour c's vertices are color_verts[color_off[c] .. color_off[c+1]) */
    int ncolors;
    int *color_off, *color_verts;
    /* the tet chunks of the CPU's fused SIPD Jacobi pass (backend_cpu.c, docs/benchmarks.md "The
       fused Jacobi pass"): when the elements are one tet group (chunk_group), its tets in chunks of
       chunk_size consecutive tets (chunk j: tets j·chunk_size ..), coloured greedily in order so
       that no two chunks of a colour share a vertex; colour c's chunks are
       chunk_list[chunk_off[c] .. chunk_off[c+1]), in order.  chunk_size: the largest of 2048, 512
       and 64 (SIPD_TET_CHUNK_MAX .. MIN) whose colouring has at most 64 colours and, but for 64,
       at least 8 chunks per colour (the mesh alone decides it, never the thread count).
       nchunk_colors 0: none (other models, or more than 64 colours at 64 tets) */
    int chunk_group, nchunk_colors, chunk_size;
    int *chunk_off, *chunk_list;
    /* contact of thin bodies (src/collide.h): crad[a] = the contact half-thickness of vertex a
       (half its body's contact thickness: shells max(t, d̂/2), rods and springs of a line mesh
       max(2r, d̂/2), or contact.thickness; 0 for solids and springs of a tet mesh), NULL when
       every vertex has 0 (solids only: nothing changes); crad_max its maximum.  cedges: the
       segments of the line-mesh bodies (rods, springs of lines), nce of them, model indices:
       collision edges beside the edges of m->tris; a pair at a rod's joint (clamped to its vertex)
       gets 1/cval of the stiffness per side (pairs.c), so the joint's segments count it once. */
    double *crad;
    double crad_max;
    int nce;
    int *cedges;
    int *cval;       /* nv: the number of collision edges (cedges) at each vertex, NULL without */
    double bbox_diag;
    double total_mass;
    double mean_edge;        /* mean tet edge length                                      */
    double contact_k_auto;   /* scene-wide max Young's modulus × mean_edge (the driver's force
                                scale; the contact stiffness of earlier versions)              */
    /* automatic contact stiffness per vertex (its body's contact_k; 0 on obstacles and bodies
       without elements): a pair gets the smallest positive value of its vertices, the ground
       vertex a gets contact_kv[a] (pairs.c pair_stiffness, passes.h).  contact_k_one: the one
       value when every deformable body has the same (the backends then pass a scalar, NULL
       for the array), 0 when they differ.  contact.stiffness overrides both. */
    double *contact_kv;
    double contact_k_one;
} sipd_model;

/* Load every body's mesh, transform, and build the arrays. SIPD_EINPUT on bad meshes. */
int model_build(const sipd_scene *sc, sipd_model *m);
/* The same from meshes already in memory (one per scene body; bodies[].mesh unused). */
int model_build_meshes(const sipd_scene *sc, const sipd_mesh *meshes, sipd_model *m);
void model_free(sipd_model *m);
/* One comment line per body ("# bodies[0]: solid, 99 vertices, 240 tets, ..."): kind, vertices,
 * elements, bounding box, pinned and moved vertices (--dry-run). */
void model_print_bodies(FILE *f, const sipd_scene *sc, const sipd_model *m);
/* The most corners of an element of m (its groups' nc; 4 for a tets-only model, 12 with mid-edge
 * bending): the width of Newton's pattern (model_pattern_elements, sipd_bsr_pattern's k), so that a
 * model without 12-corner elements does not pay for them. */
static inline int model_max_corners(const sipd_model *m)   /* inline: the CUDA backend (C++) calls it too */
{
    int g, k = 1;
    for (g = 0; g < m->ngroups; g++) k = m->groups[g].nc > k ? m->groups[g].nc : k;
    return k;
}
/* Every group's elements, one after another, each padded to model_max_corners vertices by
 * repeating its last corner (the vertex-coupling pattern of Newton's matrix, sipd_bsr_pattern with
 * k = model_max_corners; a tets-only model gives its tets).  *ne elements; free() the array. */
int model_pattern_elements(const sipd_model *m, int **elems, int *ne);
/* Round-off scale of element e of group g: its energy at unit strain ((μ+λ)V for tets). */
double model_element_scale(const sipd_model *m, int g, int e);
/* Prescribed position of Dirichlet vertex a at time t (X0 for pinned vertices).
 * Pin and move boxes select vertices by their initial position X0. */
void model_prescribed(const sipd_model *m, int a, double t, double out[3]);

#endif
