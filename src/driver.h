/* driver.h — the step driver: frames → substeps → iterations (docs/design.md §3.5).
 *
 * The solver algorithm lives here once, on top of the backend passes; a backend only
 * evaluates.  sim_* is the programmatic API the tests and benchmarks use; driver_run is the
 * whole run with output and progress.
 */
#ifndef SIPD_DRIVER_H
#define SIPD_DRIVER_H

#include <signal.h>
#include <stdint.h>

#include "backend.h"
#include "checkpoint.h"
#include "coarse.h"
#include "fields.h"
#include "h5out.h"
#include "model.h"
#include "scene.h"

/* How a solve ended (/convergence/status; docs/convergence.md). */
typedef enum {
    SIPD_SOLVE_CONVERGED = 0, /* relative force residual below the tolerance                 */
    SIPD_SOLVE_AT_CAP = 1,    /* iteration cap reached above the tolerance                    */
    SIPD_SOLVE_STALLED = 2,   /* no progress: the line search found no decrease, or updates    */
                              /* below 1e-10 of the model size and no 10% drop of the best   */
                              /* residual within max(1000, it) iterations (round-off floor)   */
    SIPD_SOLVE_DIVERGED = 3   /* ended with over 10× the relative residual it started with    */
                              /* (or 10, when that was below 1)                              */
} sipd_solve_status;

typedef struct sipd_solve_result {
    int iterations;     /* direction passes (Jacobi) or sweeps (Gauss–Seidel)      */
    double residual;    /* final relative force residual max|g| / f_ref (the measure the
                           tolerance applies to; f_ref: see sim_step)                */
    double residual_disp; /* final displacement residual max|D⁻¹g| / bbox diagonal (the
                           pre-0.2 measure, kept in the log; method-dependent)          */
    double force_ref;   /* f_ref of the step (N), see sim_step                       */
    double energy;      /* last known energy (NaN when never evaluated)            */
    int ls_steps;       /* line-search halvings                                    */
    int restarts;       /* Chebyshev restarts / auto line-search fallbacks          */
    int status;         /* sipd_solve_status                                        */
    int converged;      /* status == CONVERGED                                      */
    int stalled;        /* status == STALLED                                        */
    int at_roundoff;    /* stalled with updates at the state's own round-off (float32) */
    int at_floor;       /* stalled at the energy's resolution: the predicted gain of the rest
                           of the solve is below what the energy can register (solvers/common.h,
                           solver_floor_check; docs/convergence.md#the-energy-floor)       */
    double rho;         /* Chebyshev ρ used at the end of the solve (0: none)       */
    int contacts;       /* active contacts at the last iteration                    */
    double max_pen;     /* max penetration below the ground during the solve (m)     */
    double min_gap;     /* the smallest contact gap at the final iterate (m; backend.h
                           contact_gap; negative: a penetration; NaN: none or not provided) */
    double momentum_error; /* h |Σ_free g| at the final iterate (N·s): the change of the
                           free vertices' momentum minus the impulse of gravity, pins,
                           obstacles, ground and pairs over the step (NaN: not provided) */
    int momentum_flag;  /* momentum_error beyond what the tolerance allows (docs/convergence.md) */
    double wall;        /* seconds                                                 */
} sipd_solve_result;

typedef struct sipd_sim {
    const sipd_scene *sc;
    const sipd_model *m;
    const sipd_backend_ops *ops;
    sipd_backend *b;
    const sipd_solver *solver;  /* the method's solver family (method.h, method_solver)     */
    double t;           /* simulated time at the start of the next step            */
    double lam_min;     /* running estimate of min spec(D⁻¹H) (adaptive Chebyshev)  */
    int pairs;          /* contact pairs are detected (re-detection every detect_every) */
    /* per-iteration history of the last solve */
    int nhist, hcap;
    double *hres, *hE, *halpha, *hforce, *hwall;
    double t_solve;     /* wall clock at the start of the current solve             */
    double *hdisp;      /* per-iteration displacement residual of the last solve     */
    double f_noise;     /* floor of f_ref: 1e-12 E_max L̄² (round-off level, N)       */
    double f_model;     /* E_max L̄², the model's force scale (N)                     */
    double f_start;     /* f_ref of the first step of this run (0 before it)        */
    double f_weight;    /* max_a m_a |gravity| over free vertices (N)               */
    double r_first;     /* relative residual of the current step's first iterate    */
    int nfree;          /* free (non-Dirichlet) vertices                            */
    double f_ref;       /* force scale of the current step (N)                      */
    double e_noise;     /* round-off allowance of energy comparisons (J)            */
    double eps;         /* the backend's unit round-off (backend.h unit_roundoff)   */
    double x_extent;    /* max |coordinate| of the state + the model size (m): the
                           scale of the state's own round-off                       */
    char why[256];      /* what diverged (sim_step returned SIPD_EDIVERGE), or which
                           backend call failed (every call's status is checked)      */
    /* Newton (method.h: direction SIPD_DIRECTION_NEWTON_CG): H over the model's tets, the
       gradient and direction copies, −g, the block-Jacobi preconditioner, CG vectors */
    int newton;
    sipd_bsr H;
    double *ng, *ndy, *nrhs, *nPinv, *nwork;
    sipd_direct nchol;  /* Newton with solver.linear = "cholmod" (sparse.h: re-analysed when the
                           pattern changes with the contact pairs) */
    /* mixed FEM (method.h: direction SIPD_DIRECTION_MIXED; mixed.h): s, λ and the element
       system; H, ng (the non-elastic gradient), ndy (Δx) and my (y) are shared with the above */
    struct sipd_mixed *mx;
    double *my;
    double *s_start;    /* the solver state (sipd_solver.state: mixed FEM's stretches) at the
                           start of the current step; made by the solver's init            */
    /* two-level SIPD (solver.coarse, coarse.h): the coarse level, over H, ng and ndy above
       (NULL when off) */
    sipd_coarse *coarse;
    int adaptive_guess;   /* the backend keeps the adaptive guess' history (checkpoints save it) */
    double coarse_gdy;  /* g·dy of the last coarse correction's direction (≤ 0; NaN: none in
                           this solve yet, or it failed): the smooth modes' share of the
                           predicted gain (solver_floor_check)                            */
    /* output.fields "contact_force": the contact and friction force of the last step's final
       iterate (nv*3, backend op contact_force before end_step); NULL when not asked for */
    double *fc;
} sipd_sim;

/* The backend parameters a scene asks for (method → preconditioner by the method table,
 * method.h; projection → split). */
void sim_backend_params(const sipd_scene *sc, int threads, sipd_backend_params *bp);
/* The sweep a method uses (method.h, method_sweep): vbd sweeps Gauss–Seidel,
 * newton/block-jacobi/diag-jacobi/gd sweep Jacobi, sipd follows solver.sweep. */
sipd_sweep sim_sweep(const sipd_scene *sc);
/* Whether Chebyshev acceleration applies (method.h, method_chebyshev: solver.chebyshev on a
 * Jacobi sweep, not Newton). */
int sim_chebyshev(const sipd_scene *sc);

/* Every backend call's status is checked: BK/BK0 call an op and, when it fails, name it in
 * s->why (driver_run prints it with the frame and step; the run ends with exit 1). */
int solver_bk_status(sipd_sim *s, int rc, const char *op);
#define BK(s, op, ...) solver_bk_status((s), (s)->ops->op((s)->b, __VA_ARGS__), #op)
#define BK0(s, op) solver_bk_status((s), (s)->ops->op((s)->b), #op)

/* The energy's round-off allowance (solvers/common.h energy_rose): ENERGY_NOISE ε √Σ ((μ+λ)V)²,
 * set by sim_init as s->e_noise. */
#define ENERGY_NOISE 16.0

/* Two-level SIPD's coarse level (solver.coarse; src/solvers/coarse_correction.c), set up by
 * sim_init after the solver family's own init. */
int coarse_correction_init(sipd_sim *s, const sipd_backend_params *bp);

int sim_init(sipd_sim *s, const sipd_scene *sc, const sipd_model *m, const sipd_backend_ops *ops,
             const sipd_backend_params *bp);
/* One backward-Euler step of length h from s->t.  Convergence (docs/convergence.md): the
 * relative force residual r = max_a |g_a| / f_ref over free vertices, f_ref = max(the step's
 * load, the weight scale, 1e-12 E_max L̄²) (solvers/common.c, solver_set_fref); converged when
 * r < solver.tolerance.  Returns SIPD_EDIVERGE (s->why says what) when the residual is not
 * finite or the force scale has grown a millionfold, and SIPD_ESIGNAL when a stop was requested
 * (sipd_stop_flag, util.h: checked every iteration and inside CG, CHOLMOD and the narrow phase)
 * before the step ended: the step is then abandoned and the state is its start (x, v, t, the
 * Chebyshev estimate, mixed-fem's stretches), as a checkpoint must hold it. */
int sim_step(sipd_sim *s, double h, sipd_solve_result *res);
/* The solver state of a checkpoint beyond x, v (sipd_checkpoint ns, s: mixed-fem's stretches);
 * SIPD_EINPUT when n is not what this sim's method keeps. */
int sim_restore_solver_state(sipd_sim *s, const double *st, long n);
/* Continue from checkpoint ck (--resume): the backend's x, v and the adaptive guess' history,
 * the solver state, t, the Chebyshev estimate and the running scales.  SIPD_EINPUT when the
 * solver state does not fit this sim's method (sim_restore_solver_state), else the backend's
 * status. */
int sim_resume(sipd_sim *s, const sipd_checkpoint *ck);
void sim_free(sipd_sim *s);

typedef struct {
    int frames;                 /* simulate up to this frame index                     */
    int start_frame;            /* frames already done (resume); 0 for a fresh run     */
    int start_substep;          /* steps of frame start_frame+1 already done (resume)  */
    sipd_h5out *out;            /* may be NULL                                         */
    volatile const sig_atomic_t *stop; /* set by a signal handler: stop after the step
                                   (main passes &sipd_stop_flag, which also stops a step
                                   inside: sim_step)                                    */
    const char *checkpoint;     /* checkpoint path, NULL: none                         */
    int checkpoint_every;       /* frames; 0: only at the end and on a signal          */
    double checkpoint_seconds;  /* wall seconds (checked after every step); 0: off     */
    uint64_t scene_hash;        /* stored in checkpoints                               */
    sipd_fields *fields;        /* output.fields (fields.h; declared in out): NULL: none */
} sipd_run_opts;

/* Run frames start_frame+1 .. frames (frame 0, the initial state, is written by a fresh
 * run): returns SIPD_OK, SIPD_ESIGNAL (stopped by *stop at the end of a time step: a frame's
 * last step or one inside it, or by sipd_stop_flag inside a step, which is then abandoned;
 * checkpoint written) or an error (SIPD_EFAIL also when the state
 * diverges: non-finite or beyond 1e30, checked before each frame is written and in each
 * checkpoint).  *frames_done = the last frame completed. */
int driver_run(sipd_sim *s, const sipd_run_opts *o, int *frames_done);
/* After driver_run stopped by a signal: the steps of frame *frames_done + 1 it had done
 * (0: it stopped at a frame's end, or inside the frame's first step). */
int driver_stopped_substep(void);
/* 1 when that stop interrupted a step (sim_step: SIPD_ESIGNAL), which the checkpoint holds the
 * start of and --resume does again. */
int driver_stopped_inside_step(void);

/* Tally of the solves of the last driver_run (this invocation). */
typedef struct {
    long solves, by_status[4], momentum_flags;
    double worst_residual;      /* largest final relative residual of a non-converged solve */
    int worst_frame, worst_substep;
    double momentum_max;        /* largest per-step momentum error (N·s)                   */
    long at_roundoff;           /* stalled solves whose updates were at the state's round-off */
    double roundoff_residual;   /* the largest final residual among them                    */
    long at_floor;              /* stalled solves at the energy's resolution (at_floor)     */
    double floor_residual;      /* the largest final residual among them                    */
    double min_gap;             /* the smallest contact gap of a written frame (m; NaN: none)   */
    int min_gap_frame;
} sipd_run_tally;
void driver_tally(sipd_run_tally *t);
/* Name of a sipd_solve_status ("converged", "at-cap", "stalled", "diverged"). */
const char *sim_status_name(int status);

#endif
