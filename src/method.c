/* method.c — the method table (method.h): table data and functions of a method id.  What
 * applies a row to a scene is in scene.c (docs/architecture.md: Layers). */
#include "method.h"

#include "precond.h"

static const sipd_method_info methods[] = {
    /* name, method, precond, sweep, direction, chebyshev, no_quasistatic, stall_min, backends, solver */
    {"sipd", SIPD_METHOD_SIPD, SIPD_PRECOND_SPLIT, SIPD_SWEEP_SCENE, SIPD_DIRECTION_LOCAL, 1, NULL, 1000,
     SIPD_BACKEND_CPU | SIPD_BACKEND_CUDA, &sipd_solver_jacobi},
    {"vbd", SIPD_METHOD_VBD, SIPD_PRECOND_BLOCK, SIPD_SWEEP_GS, SIPD_DIRECTION_LOCAL, 1, NULL, 1000,
     SIPD_BACKEND_CPU | SIPD_BACKEND_CUDA, &sipd_solver_gauss_seidel},
    {"block-jacobi", SIPD_METHOD_BLOCK_JACOBI, SIPD_PRECOND_BLOCK, SIPD_SWEEP_JACOBI, SIPD_DIRECTION_LOCAL, 1, NULL,
     1000, SIPD_BACKEND_CPU | SIPD_BACKEND_CUDA, &sipd_solver_jacobi},
    {"diag-jacobi", SIPD_METHOD_DIAG_JACOBI, SIPD_PRECOND_DIAG, SIPD_SWEEP_JACOBI, SIPD_DIRECTION_LOCAL, 1, NULL,
     1000, SIPD_BACKEND_CPU | SIPD_BACKEND_CUDA, &sipd_solver_jacobi},
    {"gd", SIPD_METHOD_GD, SIPD_PRECOND_MASS, SIPD_SWEEP_JACOBI, SIPD_DIRECTION_LOCAL, 1,
     "(D = m/h² I) has no preconditioner without inertia", 1000, SIPD_BACKEND_CPU | SIPD_BACKEND_CUDA,
     &sipd_solver_jacobi},
    /* Newton: no Chebyshev (its steps are not a stationary iteration); a step that gains
       nothing at the round-off floor gains nothing later, so the stall window is short */
    {"newton", SIPD_METHOD_NEWTON, SIPD_PRECOND_HESSIAN, SIPD_SWEEP_JACOBI, SIPD_DIRECTION_NEWTON_CG, 0, NULL, 10,
     SIPD_BACKEND_CPU | SIPD_BACKEND_CUDA, &sipd_solver_newton},
    /* seed 002 (docs/design.md §3.11): driver-level outer iterations (solvers/mixed_fem.c, mixed.c);
       tetrahedra, CPU only; short stall window as Newton's */
    {"mixed-fem", SIPD_METHOD_MIXED, SIPD_PRECOND_NONE, SIPD_SWEEP_JACOBI, SIPD_DIRECTION_MIXED, 0, NULL, 10,
     SIPD_BACKEND_CPU, &sipd_solver_mixed},
};

#define NMETHODS ((int)(sizeof methods / sizeof methods[0]))

const sipd_method_info *method_row(int i) { return i >= 0 && i < NMETHODS ? &methods[i] : NULL; }

const sipd_method_info *method_info(int method)
{
    int i;
    for (i = 0; i < NMETHODS; i++)
        if (methods[i].method >= 0 && methods[i].method == method)
            return &methods[i];
    return NULL;
}
