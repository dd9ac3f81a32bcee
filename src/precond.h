/* precond.h — what D is in a direction pass's dy = −D⁻¹g: the vocabulary shared by the method
 * table (method.c, the precond column) and the backends (backend.h, sipd_backend_params.precond).
 *
 * Layering: includes nothing; it sits below the scene, so the method table, which the scene
 * validates `solver.method` against, names a row's preconditioner without including the backend
 * interface (docs/architecture.md: Layers).
 */
#ifndef SIPD_PRECOND_H
#define SIPD_PRECOND_H

/* What D is in the direction dy = −D⁻¹g (docs/design.md §3.3, §3.7), or what the direction pass
 * does instead of a local solve. */
typedef enum {
    SIPD_PRECOND_SPLIT = 0,  /* SIPD: m/h² I + Σ V|∇N_a|² K⁺ (K⁺ from `split`)             */
    SIPD_PRECOND_BLOCK = 1,  /* true per-vertex Hessian block, PSD-projected (VBD)          */
    SIPD_PRECOND_DIAG = 2,   /* diagonal of that block (Wang & Yang 2016)                   */
    SIPD_PRECOND_MASS = 3,   /* m/h² I (gradient descent)                                   */
    SIPD_PRECOND_HESSIAN = 4, /* no local solve: the pass computes g, leaves dy = 0 (the     */
                             /* caller sets it: set_direction) and stores every element's   */
                             /* PSD-projected Hessian, which `assemble` then uses           */
    SIPD_PRECOND_NONE = 5   /* no local solve: the pass computes g and leaves dy = 0       */
} sipd_precond;

#endif
