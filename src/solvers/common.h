/* solvers/common.h — what every solver family shares (internal to src/solvers/ and driver.c).
 *
 * The solvers (jacobi.c, gauss_seidel.c, newton.c, mixed_fem.c, coarse_correction.c) are rows
 * of the method table (method.h, sipd_solver); the driver (driver.c) calls a row's init, solve
 * and free and nothing else of theirs.  What they have in common lives here once:
 *  - BK/BK0: every backend call's status checked, a failing op named in s->why;
 *  - the round-off-aware energy comparison (energy_rose) and the Armijo line search;
 *  - the stall rule (solver_stall_check) and the step's force scale (solver_set_fref, rel_force);
 *  - the contact-pair rule: a solve converges (or stalls) only at an iterate where the pairs
 *    were just detected (solver_detect_due; each solve loop forces a detection and goes on
 *    otherwise);
 *  - the "auto" line search's unchecked windows (solver_window_open / solver_window_close);
 *  - the Chebyshev ρ estimate (solver_rho_from, solver_lower_lambda), solver_log_iter and
 *    solver_measure_final.
 * The design notes: jacobi.c (sweep, "auto" windows, adaptive ρ), below (contact pairs) and
 * docs/convergence.md.
 *
 * Contact pairs (docs/design.md §3.6).  Each iteration first asks the backend whether a narrow phase
 * is due (every detect_every iterations, or sooner after d̂/4 of motion); a detection changes
 * the energy, so an open "auto" window is closed first (with the old pairs) and E is evaluated
 * again.  While pairs exist "auto" behaves as "always" (unchecked windows let the iterate run
 * into contacts the frozen pairs do not see).  A solve counts as converged — or as stalled —
 * only at an iterate where the pairs were just detected; otherwise it detects and goes on, so
 * the result does not depend on when the last detection happened to run.
 */
#ifndef SIPD_SOLVERS_COMMON_H
#define SIPD_SOLVERS_COMMON_H

#include <math.h>

#include "../driver.h"
#include "../method.h"

#define ARMIJO_C 1e-4
#define MAX_HALVINGS 30
#define AUTO_TRUST 4     /* full steps accepted in a row before "auto" stops checking */
#define AUTO_WINDOW 8    /* unchecked iterations between energy checks                 */
#define CHEB_WARMUP 8
#define RHO_MAX (1.0 - 1e-6)
#define ENERGY_RTOL 1e-13  /* relative round-off allowance of energy comparisons       */
#define STALL_DISP 1e-10   /* stall rule: while the updates are below STALL_DISP of the  */
#define STALL_DROP 0.9     /* model size the best residual must drop by STALL_DROP ...  */
                           /* ... within max(the method's stall_min, iterations so far)
                              iterations (method.h: 1000; Newton 10)                    */
#define STALL_EPS 4.0      /* updates below STALL_EPS ε max|x| are at the state's round-off ...  */
#define STALL_MIN_FLOOR 50 /* ... and STALL_MIN_FLOOR iterations without a drop end the solve   */

/* BK, BK0 (every backend call's status checked) and ENERGY_NOISE: driver.h. */

/* Energy comparisons with a round-off allowance: near convergence the energies of one step
 * differ by less than the round-off of their evaluation, and a rise within it is no rise (a
 * Newton solve restored a snapshot on one and lost 7 good iterations; a stiff quasi-static
 * Chebyshev solve cycled between two restored windows at a relative residual of 5.7e-4).  The
 * allowance is ENERGY_RTOL of the energy's magnitude plus E_noise = ENERGY_NOISE ε √Σ_e ((μ+λ)V_e)²,
 * the round-off of the elastic energy sum (each element's Ψ carries terms of size (μ+λ)V, and
 * the elements round independently; ε is the backend's: with Σ instead, float32 runs accepted
 * real rises 300× the energy's evaluation error). */
static inline int energy_rose(const sipd_sim *s, double En, double Eref)
{
    return En > Eref + s->e_noise + ENERGY_RTOL * (fabs(Eref) > fabs(En) ? fabs(Eref) : fabs(En));
}

/* The measures of a direction pass: relative force residual (max|g| / f_ref) and the
 * displacement residual (max|D⁻¹g| / bbox diagonal, kept in the log). */
static inline double rel_force(const sipd_sim *s, double gmax) { return gmax / s->f_ref; }

/* Stall rule (docs/convergence.md): a solve is at its round-off floor when its updates are
 * below STALL_DISP of the model size (max|D⁻¹g| / bbox diagonal: far below any displacement
 * that matters, far above double round-off) and the best relative residual has not dropped by
 * STALL_DROP within max(stall_min, it_ref) iterations of its last such drop (at it_ref).  It
 * then stops after at most about twice the iterations that reached the floor.  Progress alone
 * does not decide: a local method far from the solution can go 1000 iterations without a 10%
 * drop of its force residual (an adaptive Chebyshev ρ that is too low; a quasi-static beam whose
 * tip does not feel the clamp yet) and still converge when given the iterations. */
typedef struct {
    double ref;
    int it_ref, min;   /* min: the method's stall_min (method.h) */
    int redetected;    /* a stall sent the solve on to detect pairs since r last dropped */
} stall_track;

/* Returns 1 at the floor, 2 at the state's own round-off, 0 otherwise. */
int solver_stall_check(const sipd_sim *s, stall_track *t, double r, double rdisp, int it);

/* A solve that stopped (stalled != 0 from solver_stall_check, at the energy floor, or no descent)
 * on contact pairs detected at an earlier iterate: 1 = detect at this iterate and go on, 0 = end
 * it here.  A stall restarts its window for the detection, once: a second stall with no drop of
 * r since ends the solve, so a solve at the state's round-off (float32: a 50-iteration window)
 * no longer cycles stall → detect → stall to its cap. */
int solver_redetect(const sipd_sim *s, stall_track *t, int stalled, int fresh, int it);

/* The energy floor (docs/convergence.md#the-energy-floor).  Energies are compared within their
 * resolution δE = E_noise + ENERGY_RTOL |E| (energy_rose); a solve whose remaining gain is below
 * it cannot be told from the minimum by any energy comparison, and its line searches accept or
 * reject steps on round-off: a stiff membrane (E t ≫ m/h²) then sits at a relative force
 * residual of 1e-4..1e-3 with positions within micrometres of Newton's, and used to run to the
 * cap.  The remaining gain E(y) − E(y*) ≈ ½ gᵀH⁻¹g is predicted from the direction pass:
 *  - Newton (a global direction, dy = −H⁻¹g): ½|g·dy|;
 *  - two-level SIPD: ½|g·dy| + ½|g·dy_c| (dy_c: the last coarse correction's direction, which
 *    carries the smooth modes a local dy = −D⁻¹g misses; the additive two-level estimate);
 *  - a local method without a coarse level: ½|g·dy| / λ̂, λ̂ = min(1, the running estimate of
 *    min spec(D⁻¹H)) — D ⪰ H, so gᵀD⁻¹g alone understates the smooth modes' share by up to
 *    1/λ_min; not applied before λ̂ is known.
 * At the floor when the prediction stays below FLOOR_MULT δE for FLOOR_RUN iterations in a row
 * (the gain fluctuates with the line search's noisy accept/reject) and the best relative
 * residual has not dropped by STALL_DROP in the last FLOOR_WINDOW iterations (t: the stall
 * rule's record of the last drop): a solve whose force residual still falls is let run to its
 * tolerance (a compression solve at ν = 0.45 went on from 1e-7 to 1e-8 below the energy's
 * resolution).  A detection whose new pairs change E by more than FLOOR_MULT δE restarts the
 * count (jacobi.c): a stack stopped 0.09 mm off Newton's where a pair entering the band at the
 * end had moved E by 40 δE.  Returns 1 at the floor. */
#define FLOOR_MULT 10.0
#define FLOOR_RUN 20
#define FLOOR_WINDOW 50
typedef struct {
    int run;   /* iterations in a row below the floor */
} floor_track;
int solver_floor_check(const sipd_sim *s, floor_track *f, const stall_track *t, int it, double gdy, double E);

/* One row of the last solve's per-iteration history. */
void solver_log_iter(sipd_sim *s, double r, double rdisp, double E, double alpha, double force);

/* The Chebyshev ρ of the current estimate of min spec(D⁻¹H) (or solver.chebyshev_rho). */
double solver_rho_from(const sipd_sim *s);
/* Take a new estimate of min spec(D⁻¹H); when `adapt`, move ρ once 1 − ρ has shrunk by more
 * than 20% and return 1 (the caller restarts the Chebyshev recurrence). */
int solver_lower_lambda(sipd_sim *s, double lam, int adapt, double *rho);

/* "auto" line search: full steps run unchecked in windows of AUTO_WINDOW iterations.
 * window_open snapshots y when no window is open; window_close counts a step and, at the end
 * of the window (or when forced), evaluates E once: if it rose, the snapshot is restored and
 * *rose = 1.  *E is NaN inside a window (not evaluated). */
int solver_window_open(sipd_sim *s, int window, double E, double *E_snap);
int solver_window_close(sipd_sim *s, int *window, int force, double E_snap, double *E, int *rose);

/* Contact pairs: is a narrow phase due at this iteration (docs/design.md §3.6; the first one is
 * part of begin_step)?  A solve that would converge or stall at an iterate where the pairs were
 * not just detected forces a detection there and goes on (the pair-freshness rule). */
int solver_detect_due(sipd_sim *s, int it, int *due);

/* Backtracking line search along dy from energy E; *alpha = α (0 when none decreases E). */
int solver_line_search(sipd_sim *s, double E, double gdy, double *E_new, int *halvings, double *alpha_out);

/* The step's force scale f_ref (docs/convergence.md; comment in common.c). */
int solver_set_fref(sipd_sim *s, double g0);

/* One direction pass: g, D and dy = −D⁻¹g (the backend's), then the solver's own direction
 * when it has one (Newton's: sipd_solver.direction). */
int solver_direction(sipd_sim *s, sipd_dir_stats *st);

/* Re-measure the final iterate when the last pass measured an earlier one (an update or a
 * restore came after it): the solve's reported residual is that of the state it returns. */
int solver_measure_final(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last);

/* Newton's matrix pattern: the vertex couplings of every element kind (model.h), as the CPU
 * backend's assembly expects (backend_cpu.c, assemble); used by Newton, mixed FEM and the coarse
 * level. */
int solver_kinds_pattern(sipd_bsr *H, const sipd_model *m);

/* The Jacobi loop (jacobi.c), which Newton runs with its own direction (newton.c). */
int solver_solve_jacobi(sipd_sim *s, sipd_solve_result *res, sipd_dir_stats *last);

/* Two-level SIPD (solver.coarse, coarse_correction.c): the coarse level's set-up and one
 * correction (called by the Jacobi solve). */
int coarse_correction(sipd_sim *s, int refresh, double *E, int *halvings, double *alpha, double *gs);

/* The scale contact.ccd's step filter applied to the direction of the last set_direction
 * (backend.h ccd_scale; 1 without it). */
double solver_direction_scale(sipd_sim *s);

#endif
