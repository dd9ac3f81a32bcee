/* method.h — the solver methods in one table (docs/design.md §2.1, §3.7).
 *
 * Each row says what a `solver.method` is made of: its preconditioner D (what the backend's
 * direction pass computes), its sweep (fixed, or chosen by solver.sweep), who computes the
 * direction (the backend's local dy = −D⁻¹g, or the driver's sparse PCG for Newton), whether
 * Chebyshev acceleration applies, whether it is usable quasi-statically, the stall rule's
 * window, the backends that run it and its solver: the family (src/solvers/) whose init, solve
 * and free the driver calls.  Scene validation (scene.c), the driver (driver.c) and main.c ask
 * this table; no other code switches on the method.  A planned method would have a row with
 * method = -1: scene_load refuses it as "not supported yet".
 *
 * Layering: the module sits below the scene (scene.h includes this header for the method and
 * sweep enums; scene.c validates solver.method against the table).  This header includes no
 * other of the project's, method.c only precond.h; the scene, the sim and a direction pass's
 * statistics are named by their struct tags, and what reads a scene (method_sweep, …) is in
 * scene.c.
 */
#ifndef SIPD_METHOD_H
#define SIPD_METHOD_H

#include <stddef.h>

struct sipd_sim;
struct sipd_solve_result;
struct sipd_dir_stats;

/* Solvers (docs/design.md §3.7). SIPD uses the K⁺ split of `projection`; vbd and block-jacobi the
 * true per-vertex Hessian block (PSD-projected), diag-jacobi its diagonal, gd the mass term
 * only, newton the full sparse Hessian (element Hessians PSD-projected) solved by PCG. */
typedef enum {
    SIPD_METHOD_SIPD = 0, SIPD_METHOD_VBD = 1, SIPD_METHOD_BLOCK_JACOBI = 2,
    SIPD_METHOD_DIAG_JACOBI = 3, SIPD_METHOD_GD = 4, SIPD_METHOD_NEWTON = 5, SIPD_METHOD_MIXED = 6
} sipd_method;      /* what each is made of: the table below */

/* A solver family (src/solvers/): what the driver (driver.c, sim_init / sim_step / sim_free)
 * calls, and nothing else.  init allocates what only this family uses (NULL: nothing), solve
 * runs one step's iterations from begin_step to the final iterate (its residual measured in
 * *last), free releases what init made (NULL: nothing; also called after a failed init).
 * direction: the family's own direction after the backend's direction pass (Newton's sparse
 * solve; NULL: the pass's dy).  state: the solver state carried across steps, which a
 * checkpoint keeps and a stop inside a step puts back (mixed FEM's stretches; NULL: none). */
typedef struct sipd_solver {
    const char *name;
    int (*init)(struct sipd_sim *s);
    int (*solve)(struct sipd_sim *s, struct sipd_solve_result *res, struct sipd_dir_stats *last);
    void (*free)(struct sipd_sim *s);
    int (*direction)(struct sipd_sim *s, struct sipd_dir_stats *st);
    double *(*state)(struct sipd_sim *s, long *n);
} sipd_solver;

/* the families: solvers/jacobi.c (Jacobi sweep, Chebyshev, two-level: sipd, block-jacobi,
   diag-jacobi, gd), solvers/gauss_seidel.c (vbd, sipd gauss-seidel), solvers/newton.c,
   solvers/mixed_fem.c */
extern const sipd_solver sipd_solver_jacobi, sipd_solver_gauss_seidel, sipd_solver_newton, sipd_solver_mixed;

/* The sweep of an iteration (solver.sweep; a row's sweep column). */
typedef enum { SIPD_SWEEP_JACOBI = 0, SIPD_SWEEP_GS = 1 } sipd_sweep;

/* sweep of a row: a sipd_sweep, or SIPD_SWEEP_SCENE (solver.sweep chooses) */
#define SIPD_SWEEP_SCENE (-1)

/* who computes the direction dy of a Jacobi-family iteration */
enum {
    SIPD_DIRECTION_LOCAL = 0,    /* the backend's direction pass: dy = −D⁻¹g per vertex    */
    SIPD_DIRECTION_NEWTON_CG = 1,/* the driver: assemble H (backend), solve H dy = −g by PCG */
    SIPD_DIRECTION_MIXED = 2     /* the driver: mixed-FEM outer iterations (mixed.h)        */
};

/* backends (bit mask) */
enum { SIPD_BACKEND_CPU = 1, SIPD_BACKEND_CUDA = 2 };

/* the method a scene gets without solver.method */
#define SIPD_DEFAULT_METHOD SIPD_METHOD_SIPD

typedef struct {
    const char *name;           /* solver.method value                                       */
    int method;                 /* sipd_method; -1: planned, refused as "not supported yet"   */
    int precond;                /* sipd_precond (precond.h)                                   */
    int sweep;                  /* sipd_sweep or SIPD_SWEEP_SCENE                             */
    int direction;              /* SIPD_DIRECTION_*                                           */
    int chebyshev;              /* solver.chebyshev applies (on a Jacobi sweep)               */
    const char *no_quasistatic; /* NULL, or why time.quasistatic = true is refused            */
    int stall_min;              /* stall rule: at least this many iterations without a 10%   */
                                /* drop at the update floor (solvers/common.c,               */
                                /* solver_stall_check)                                       */
    unsigned backends;          /* SIPD_BACKEND_* that run it (see also method_cpu_only)     */
    const sipd_solver *solver;  /* its solver family; a Gauss–Seidel sweep (sipd with        */
                                /* solver.sweep) takes sipd_solver_gauss_seidel: method_solver */
} sipd_method_info;

/* Row i of the table (planned methods included), NULL past the end. */
const sipd_method_info *method_row(int i);
/* The row of an implemented method, NULL when there is none. */
const sipd_method_info *method_info(int method);
/* The functions that apply a row to a scene (method_sweep, method_solver, method_chebyshev,
 * method_cpu_only, method_auto_cpu) read a scene: they are declared in scene.h and defined in
 * scene.c, so this module stays below the scene. */

#endif
