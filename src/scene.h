/* scene.h — the resolved scene: every parameter of a run with its default filled in.
 *
 * scene_load() reads a libconfig file (docs/design.md §4), validates every key and value, and
 * resolves mesh/output paths against the scene file's directory.  Unknown keys, wrong types,
 * missing files and bad values are input errors reported as "scene.cfg:LINE: key: message"
 * and make scene_load return SIPD_EINPUT.
 */
#ifndef SIPD_SCENE_H
#define SIPD_SCENE_H

#include <stdio.h>

#include "method.h"             /* sipd_method and sipd_sweep, with the method table */
#include "physics/material.h"   /* sipd_material_model */

#define SIPD_MAX_BOXES 16

/* The global linear solve of newton and mixed-fem (solver.linear). */
typedef enum { SIPD_LINEAR_PCG = 0, SIPD_LINEAR_CHOLMOD = 1 } sipd_linear;
typedef enum { SIPD_LS_AUTO = 0, SIPD_LS_ALWAYS = 1, SIPD_LS_NEVER = 2 } sipd_line_search;
/* SIPD positive/negative split of K = P F^-1 (docs/design.md §3.4). */
typedef enum {
    SIPD_PROJ_EXPANDED = 0, SIPD_PROJ_SIGN = 1, SIPD_PROJ_NONE = 2, SIPD_PROJ_CLAMP = 3, SIPD_PROJ_ABS = 4
} sipd_projection;
typedef enum { SIPD_DEVICE_AUTO = 0, SIPD_DEVICE_CUDA = 1, SIPD_DEVICE_CPU = 2 } sipd_device;
/* `precision` (docs/precision.md): "auto" the device's own (CPU float64, CUDA float32) */
typedef enum { SIPD_PRECISION_AUTO = 0, SIPD_PRECISION_FLOAT32 = 1, SIPD_PRECISION_FLOAT64 = 2 } sipd_precision;
/* bodies[].elements (docs/design.md §3.9, §4): what the body's mesh becomes */
typedef enum {
    SIPD_ELEMENTS_AUTO = 0,     /* the mesh's highest-dimensional elements (tets: solid, lines: rod) */
    SIPD_ELEMENTS_SOLID = 1,    /* tetrahedra                                                       */
    SIPD_ELEMENTS_SHELL = 2,    /* membrane triangles + dihedral bending (a tet mesh: its surface)  */
    SIPD_ELEMENTS_SPRINGS = 3,  /* the mesh's unique edges as springs, with the mesh's lumped masses */
    SIPD_ELEMENTS_ROD = 4       /* polylines: stretch springs + bending at interior vertices        */
} sipd_body_elements;
/* bodies[].bending (shells): the bending discretisation (docs/design.md §3.9) */
typedef enum {
    SIPD_BENDING_DIHEDRAL = 0,  /* discrete-shell hinges on interior edges (physics/bend.h)               */
    SIPD_BENDING_MIDEDGE = 1,   /* Morley-type mid-edge curvature per triangle (physics/midedge.h)       */
    SIPD_BENDING_AUTO = 2       /* default: mid-edge where the mesh resolves the body's bending length,
                                   hinges where folds are about an element wide (model.c shell_bending) */
} sipd_bending;
/* solver.initial_guess (passes.h pass_begin_vertex; docs/convergence.md#the-initial-guess) */
typedef enum {
    SIPD_GUESS_ADAPTIVE = 0,  /* x + h v + h² φ g, φ the share of gravity of the last step (default) */
    SIPD_GUESS_INERTIAL = 1   /* ỹ = x + h v + h² g (the only guess before 0.8; the paper's)         */
} sipd_initial_guess;
/* solver.coarse.basis (coarse.h coarse_build): the coarse grid's interpolation per body */
typedef enum {
    SIPD_COARSE_BASIS_AUTO = 0,      /* quadratic for shells, rods and springs, trilinear for solids (default) */
    SIPD_COARSE_BASIS_TRILINEAR = 1, /* every body trilinear (8 nodes per vertex; the only basis before 0.8)  */
    SIPD_COARSE_BASIS_QUADRATIC = 2  /* every body quadratic B-splines (27 nodes per vertex)                   */
} sipd_coarse_basis;
/* bodies[].generate.shape: a body made by a generator instead of a mesh file (meshgen.h) */
typedef enum { SIPD_GEN_NONE = 0, SIPD_GEN_ROD = 1, SIPD_GEN_CLOTH = 2 } sipd_gen_shape;

/* output.fields (docs/looking-at-results.md): what is written per frame beside the positions.
 * The file holds them in this order, whatever the order of the scene's list. */
typedef enum {
    SIPD_FIELD_DISPLACEMENT = 0,   /* per vertex: x − rest (m)                                */
    SIPD_FIELD_VELOCITY = 1,       /* per vertex: v at the end of the frame's last step (m/s) */
    SIPD_FIELD_CONTACT_FORCE = 2,  /* per vertex: ground + pair contact and friction force (N) */
    SIPD_FIELD_J = 3,              /* per element: volume (area, length) ratio                */
    SIPD_FIELD_VON_MISES = 4,      /* per element: von Mises of the Cauchy stress (Pa)         */
    SIPD_FIELD_ENERGY_DENSITY = 5, /* per element: Ψ per unit rest volume (J/m³)               */
    SIPD_FIELD_STRAIN = 6,         /* per element: Green–Lagrange strain, 6 components          */
    SIPD_FIELD_COUNT = 7
} sipd_field;

typedef struct {
    char name[64];
    sipd_material_model model;
    double youngs;   /* Pa, > 0                     */
    double poisson;  /* in (-1, 0.5)                */
    double density;  /* kg/m^3, > 0                 */
    int line;        /* line in the scene file      */
} sipd_scene_material;

/* An axis-aligned box in world coordinates (after the body's transform). */
typedef struct {
    double box_min[3], box_max[3];
} sipd_scene_box;

/* Kinematic motion of the vertices inside a box, which start where they are at t = 0:
 *   p(t) = c + R(angular_velocity * t) (p0 - c) + velocity * t
 * R is the rotation by the vector angular_velocity*t (axis-angle, rad); c = center
 * (defaults to the box centre). */
typedef struct {
    sipd_scene_box box;
    double velocity[3];          /* m/s, default 0   */
    double angular_velocity[3];  /* rad/s, default 0 */
    double center[3];
} sipd_scene_move;

typedef struct {
    char *mesh;           /* resolved path: a .msh file or a TetGen base name */
    int material;         /* index into scene->materials                      */
    double translate[3];  /* default 0                                        */
    double rotate_deg[3]; /* Euler angles in degrees, applied X then Y then Z */
    double scale;         /* uniform, default 1, > 0                          */
    double velocity[3];   /* initial velocity, default 0                      */
    double initial_stretch[3]; /* initial positions = rest scaled by these factors
                                  about the body's bounding-box centre (world axes);
                                  default 1 (start at rest); each > 0             */
    char *initial_positions; /* NULL, or the resolved file of the state at t = 0 (a .node,
                                a .msh, or FILE.h5:FRAME[:BODY]; initpos.h); excludes
                                initial_stretch                                   */
    int initial_positions_line; /* its line in the scene file                       */
    int npin;
    sipd_scene_box pin[SIPD_MAX_BOXES];
    int nmove;
    sipd_scene_move move[SIPD_MAX_BOXES];
    /* obstacle = true: the body is rigid and kinematic — every vertex follows
       p(t) = c + R(angular_velocity t)(p0 − c) + velocity t (c = center, default the centre of
       the body's bounding box); it only serves as a collider (contact) */
    int obstacle;                 /* default 0 */
    double angular_velocity[3];   /* rad/s, default 0 (obstacles only)                */
    double center[3];             /* obstacles only                                   */
    int center_set;               /* center given (else the bbox centre)              */
    int elements;                 /* sipd_body_elements, default auto                 */
    double radius;                /* rods and springs: circular section radius, m, default 0.001 */
    double spring_k;              /* springs: stiffness N/m (0 = E·πr²/L per edge)    */
    double thickness;             /* shells: m, default 0.001                         */
    double bending_stiffness;     /* shells: N·m, < 0 = from the material, E t³/(12(1 − ν²)) */
    int bending;                  /* shells: sipd_bending, default dihedral            */
    int shell_keys;               /* thickness or bending_stiffness given (the model refuses them on a
                                     body that is not a shell or a triangle mesh's springs)        */
    /* generate = { shape = "rod"; length; segments; }: a straight polyline from the origin along
       +x; generate = { shape = "cloth"; size = [lx, lz]; cells = [nx, nz]; }: a triangle grid
       on [0, lx] x [0, lz] in the y = 0 plane (before the body's transform), when mesh is not given */
    int gen_shape;                /* sipd_gen_shape                                   */
    double gen_length;            /* rod: m, default 1                                */
    int gen_segments;             /* rod: default 20                                  */
    double gen_size[2];           /* cloth: m, default [1, 1]                         */
    int gen_cells[2];             /* cloth: default [20, 20]                          */
    int line;
    /* where the body and its boxes were written (for warnings; file: one of sipd_scene.inputs,
       NULL for a body made in code: the scene's path and the body's line stand in).  Box k of
       pin (0) or move (1): box_file[0][k], box_line[0][k]; box_list[i]: written as a list */
    const char *file;
    const char *box_file[2][SIPD_MAX_BOXES];
    int box_line[2][SIPD_MAX_BOXES];
    int box_list[2];
} sipd_scene_body;

typedef struct sipd_scene {
    /* time */
    double dt;         /* frame time step, default 1/60 s        */
    int substeps;      /* default 1                              */
    int frames;        /* default 60                             */
    int quasistatic;   /* default 0                              */
    /* solver */
    sipd_method method;          /* "sipd"                       */
    sipd_sweep sweep;            /* "jacobi"                     */
    int iterations;              /* per substep, default 100     */
    double tolerance;            /* relative force residual      */
    sipd_line_search line_search;/* "auto"                       */
    sipd_projection projection;  /* "expanded"                   */
    int chebyshev;               /* default 0                    */
    double chebyshev_rho;        /* 0 = estimate adaptively      */
    double omega;                /* GS over-relaxation, default 1 */
    int strict;                  /* a non-converged solve makes the run exit 4 (default 0) */
    sipd_linear linear;          /* newton, mixed-fem: "pcg" | "cholmod"; default pcg for
                                    newton, cholmod for mixed-fem (which takes no contact
                                    pairs: they are applied matrix-free)                   */
    double cg_tolerance;         /* PCG: relative residual, default 1e-10                  */
    /* solver.coarse (two-level SIPD, coarse.h): levels 1 = off, 2 = a coarse correction every
       coarse_every iterations on a grid per body of coarse_size cells along the body's longest
       bounding-box edge; "auto" (the default, coarse_auto = 1): levels 2, used for sipd with the
       Jacobi sweep and no Chebyshev (scene_coarse_on), on both backends, with or without
       contact pairs.  docs/two-level.md */
    int coarse_levels;           /* after load: 1 or 2 (read scene_coarse_on, not this) */
    int coarse_auto;             /* levels was "auto" (default)  */
    int coarse_every;            /* default 10                   */
    int coarse_size;             /* default 8                    */
    int coarse_refresh;          /* corrections per coarse operator; 0: one per step */
    int coarse_basis;            /* sipd_coarse_basis, default AUTO */
    int initial_guess;           /* sipd_initial_guess, default ADAPTIVE */
    /* device */
    sipd_device device;
    sipd_precision precision;    /* default AUTO; --precision overrides it */
    double gravity[3];           /* default (0, -9.81, 0)        */
    int nmaterials;
    sipd_scene_material *materials;
    int nbodies;
    sipd_scene_body *bodies;
    /* contact (docs/design.md §3.6): ground plane, body–body (always, when enabled), self (opt-in) */
    int contact;               /* contact.enabled (default: true when the group is present) */
    double dhat;               /* contact distance d̂, default 0.03                        */
    double contact_stiffness;  /* k_c (N/m); 0 = automatic: per body from its own elements,
                                  per pair the softer side (model.c contact_stiffness)     */
    double friction;           /* Coulomb μ, default 0                                     */
    double friction_velocity;  /* ε_v (m/s): slip below ε_v h counts as sticking, 1e-3   */
    int detect_every;          /* narrow phase every N iterations, default 4 (the plane gap is
                                  exact every iteration)                                   */
    int self_contact;          /* contact.self: pairs within one body, default 0           */
    int ccd;                   /* contact.ccd: the step filter that keeps contact
                                  intersection-free (docs/contact.md#no-tunnelling), default 1 */
    double contact_thickness;  /* contact.thickness (m): the contact thickness of every shell
                                  and rod body (solids have none); −1 (default): per body,
                                  max(thickness, d̂/2) for shells, max(2 radius, d̂/2) for
                                  rods and springs of a line mesh (model.h, crad)          */
    int ground;                /* contact.ground present                                   */
    double ground_height;      /* plane n·x = height, default 0                            */
    double ground_normal[3];   /* unit normal pointing to the free side, default +y        */
    /* output */
    char *output_file;  /* resolved path; default results/<scene basename>.h5 (cwd) */
    int output_every;   /* default 1   */
    int compression;    /* 0..9, default 4 */
    int xdmf;           /* default 1   */
    unsigned fields;    /* output.fields: bit (1u << sipd_field) per field; default 0 (none) */
    int checkpoint_every;      /* write OUTPUT.ckpt every N frames; 0 (default): only when
                                  stopped by a signal and at the end of the run            */
    double checkpoint_seconds; /* and/or every S seconds of wall time; 0 (default): off   */
    int history_every;         /* output.history: 1 "all" (default), 0 "none", N "every N":
                                  the per-iteration rows kept (h5out_set_history)         */

    char *path;         /* the scene file as given          */
    char *dir;          /* its directory                    */
    char *text;         /* the scene file's text            */
    char **inputs;      /* files read: the scene, then each @include'd file */
    int ninputs;
} sipd_scene;

/* Limits shared by the scene and the command line (--frames): a frame or iteration count
 * beyond these is a typo, and keeps every loop counter and allocation far from overflow. */
#define SIPD_MAX_FRAMES 100000000
#define SIPD_MAX_ITERATIONS 100000000

/* Load and validate. On error prints "file:line: ..." and returns SIPD_EINPUT
 * (SIPD_EFAIL for out-of-memory). On success *sc owns its memory (scene_free). */
int scene_load(const char *path, sipd_scene *sc);
void scene_free(sipd_scene *sc);
/* Print every resolved parameter (defaults included) in libconfig syntax. */
void scene_print(FILE *f, const sipd_scene *sc);
/* Print every key the parser accepts, one dotted path a line ("time.dt", "bodies[].pin.box_min"). */
void scene_print_keys(FILE *f);

/* The scene's method: the method table (method.h) applied to the scene's solver group.  These
 * read a scene, so they live in the scene layer; method.c is the table and functions of a method
 * id only (docs/architecture.md: Layers). */
/* The sweep the scene's method uses (a sipd_sweep: vbd Gauss–Seidel, sipd solver.sweep, the
 * rest Jacobi). */
int method_sweep(const sipd_scene *sc);
/* The solver family the scene's method runs: the row's, or Gauss–Seidel on that sweep. */
const sipd_solver *method_solver(const sipd_scene *sc);
/* Whether Chebyshev acceleration applies: solver.chebyshev, a Jacobi sweep, a method that
 * takes it. */
int method_chebyshev(const sipd_scene *sc);
/* 0 when the CUDA backend can run the scene's method; else 1 and `why` (n bytes) says what
 * keeps it on the CPU ("method mixed-fem", "method newton with contact pairs", "contact with a
 * Gauss-Seidel sweep (sipd gauss-seidel, vbd)"). */
int method_cpu_only(const sipd_scene *sc, char *why, size_t n);
/* 1 (and `why`) when `--device auto` should keep a scene the CUDA backend can run on the CPU
 * anyway: newton, the float64 reference the other methods are measured against (`--device
 * cuda` runs it in float32). */
int method_auto_cpu(const sipd_scene *sc, char *why, size_t n);
/* Whether the scene has contact pairs (contact with several bodies, or self contact). */
int scene_has_pairs(const sipd_scene *sc);
/* Whether the run uses the coarse level: levels 2 (explicit, or "auto"), method sipd with the
 * Jacobi sweep, and for "auto" no Chebyshev.  (A program that changes a loaded scene's method,
 * sweep or chebyshev gets the answer for the changed scene.) */
int scene_coarse_on(const sipd_scene *sc);

const char *scene_method_name(sipd_method m);
const char *scene_initial_guess_name(int guess);   /* solver.initial_guess */
const char *scene_coarse_basis_name(int basis);   /* solver.coarse.basis */
const char *scene_sweep_name(sipd_sweep s);
const char *scene_line_search_name(sipd_line_search l);
const char *scene_projection_name(sipd_projection p);
const char *scene_device_name(sipd_device d);
const char *scene_precision_name(sipd_precision p);   /* "auto", "float32", "float64" */
const char *scene_model_name(sipd_material_model m);
/* The name of output field f ("displacement", …, the output.fields spelling); NULL past the end. */
const char *scene_field_name(int f);

#endif
