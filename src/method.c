/* method.c — the method table (method.h). */
#include "method.h"

#include <stdio.h>

#include "backend.h"
#include "scene.h"

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

int method_sweep(const sipd_scene *sc)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (!mi || mi->sweep == SIPD_SWEEP_SCENE)
        return sc->sweep;
    return mi->sweep;
}

const sipd_solver *method_solver(const sipd_scene *sc)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (method_sweep(sc) == SIPD_SWEEP_GS)
        return &sipd_solver_gauss_seidel;
    return mi ? mi->solver : NULL;
}

int method_chebyshev(const sipd_scene *sc)
{
    const sipd_method_info *mi = method_info(sc->method);
    return sc->chebyshev && method_sweep(sc) == SIPD_SWEEP_JACOBI && mi && mi->chebyshev;
}

int method_cpu_only(const sipd_scene *sc, char *why, size_t n)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (!mi || !(mi->backends & SIPD_BACKEND_CUDA)) {
        snprintf(why, n, "method %s", mi ? mi->name : "?");
        return 1;
    }
    /* Newton on CUDA: H and g come to the host, the pairs' matrix-free couplings do not */
    if (mi->direction == SIPD_DIRECTION_NEWTON_CG && sc->contact && (sc->nbodies > 1 || sc->self_contact)) {
        snprintf(why, n, "method %s with contact pairs", mi->name);
        return 1;
    }
    /* the CUDA Gauss–Seidel sweep has no contact yet, whichever method sweeps so */
    if (sc->contact && method_sweep(sc) == SIPD_SWEEP_GS) {
        snprintf(why, n, "contact with a Gauss-Seidel sweep (sipd gauss-seidel, vbd)");
        return 1;
    }
    return 0;
}

int method_auto_cpu(const sipd_scene *sc, char *why, size_t n)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (mi && mi->direction == SIPD_DIRECTION_NEWTON_CG) {
        snprintf(why, n, "method %s (the float64 reference; --device cuda runs it in float32)", mi->name);
        return 1;
    }
    return 0;
}
