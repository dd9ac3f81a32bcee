/* method.h — the solver methods in one table (docs/design.md §2.1, §3.7).
 *
 * Each row says what a `solver.method` is made of: its preconditioner D (what the backend's
 * direction pass computes), its sweep (fixed, or chosen by solver.sweep), who computes the
 * direction (the backend's local dy = −D⁻¹g, or the driver's sparse PCG for Newton), whether
 * Chebyshev acceleration applies, whether it is usable quasi-statically, the stall rule's
 * window and the backends that run it.  Scene validation (scene.c), the driver (driver.c) and
 * main.c ask this table; no other code switches on the method.  A planned method would have
 * a row with method = -1: scene_load refuses it as "not supported yet".
 */
#ifndef SIPD_METHOD_H
#define SIPD_METHOD_H

#include <stddef.h>

#include "backend.h"
#include "scene.h"

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
    int precond;                /* sipd_precond (backend.h)                                   */
    int sweep;                  /* sipd_sweep or SIPD_SWEEP_SCENE                             */
    int direction;              /* SIPD_DIRECTION_*                                           */
    int chebyshev;              /* solver.chebyshev applies (on a Jacobi sweep)               */
    const char *no_quasistatic; /* NULL, or why time.quasistatic = true is refused            */
    int stall_min;              /* stall rule: at least this many iterations without a 10%   */
                                /* drop at the update floor (driver.c, stall_check)           */
    unsigned backends;          /* SIPD_BACKEND_* that run it (see also method_cpu_only)     */
} sipd_method_info;

/* Row i of the table (planned methods included), NULL past the end. */
const sipd_method_info *method_row(int i);
/* The row of an implemented method, NULL when there is none. */
const sipd_method_info *method_info(int method);
/* The sweep the scene's method uses (vbd Gauss–Seidel, sipd solver.sweep, the rest Jacobi). */
sipd_sweep method_sweep(const sipd_scene *sc);
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

#endif
