/* backend.h — the one small interface between the step driver and a compute backend.
 *
 * The driver owns the algorithm (line search, Chebyshev recurrence, stopping); a backend
 * owns the state arrays and provides the passes over them.  State per vertex:
 *   x  positions at the start of the step, v velocities,
 *   ỹ  inertial target (x + h v + h² g; x in quasi-static mode),
 *   y  current iterate, y_prev the iterate before the last apply, dy the last direction,
 *   g  the last gradient, y_snap a snapshot.
 * Dirichlet vertices are placed at their prescribed end-of-step position by begin_step and
 * never move during the iterations (their dy is 0).
 * Every call returns SIPD_OK or an error status.
 */
#ifndef SIPD_BACKEND_H
#define SIPD_BACKEND_H

#include "model.h"
#include "precond.h"            /* sipd_precond: what D is in dy = −D⁻¹g */
#include "sparse.h"
#include "view.h"

typedef struct sipd_backend sipd_backend;

/* Sets of terms of E (`assemble`, `terms_energy`).  A solver that treats some terms itself asks
 * the backend for the others. */
typedef enum {
    SIPD_TERMS_ALL = 0,       /* every term of E                                                  */
    SIPD_TERMS_NO_STRETCH = 1 /* every term but the elements of the kinds with a pairwise K — tets, */
                              /* triangles, springs (kind_split_per_corner = 0): inertia (or the    */
                              /* quasi-static gravity potential), ground contact and friction,    */
                              /* contact pairs, rod bending, hinges, mid-edge bending             */
} sipd_terms;

/* Whether set `terms` (sipd_terms) holds the elements of kind `kind`. */
static inline int sipd_terms_kind(int terms, int kind)
{
    return terms == SIPD_TERMS_ALL || kind_split_per_corner(kind);
}

typedef struct {
    int split;        /* SIPD_SPLIT_* (precond = SPLIT)                              */
    int precond;      /* sipd_precond                                                */
    int threads;      /* 0 = default                                                 */
    /* contact (docs/design.md §3.6): penalty k_c within d̂ (k_c = 0: the model's automatic value),
       lagged Coulomb friction μ with slip threshold ε = eps_v h.
       contact: the ground plane n·x = plane_h;  pairs: vertex–face / edge–edge pairs between
       bodies (and within a body when self), detected every detect_every iterations (detect) */
    int contact;
    double dhat, kc, mu, eps_v, plane_n[3], plane_h;
    int pairs, self, detect_every;
    /* contact.ccd (physics/ccd.h): filter every update so that no primitive crosses another or
       the ground (docs/contact.md#no-tunnelling) */
    int ccd;
    /* the `assemble` op will be called (with any precond; SIPD_PRECOND_HESSIAN implies it): a backend that
       keeps element Hessians or the pairs' blocks for it allocates them at create or detect */
    int assemble;
    /* the `contact_force` op will be called (output.fields "contact_force"): a backend that
       needs a buffer for it allocates it at create */
    int contact_force;
    /* time each phase of the backend's work (sipd_profile; CUDA events on the GPU, the host
       clock on the CPU).  0 (default): no timing, nothing is recorded or synchronised for it */
    int profile;
    /* the adaptive initial guess (solver.initial_guess = "adaptive", passes.h pass_begin_vertex):
       the backend keeps each vertex's velocity before the last step (guess_history) */
    int adaptive_guess;
} sipd_backend_params;

/* Where a backend's time goes (the `profile` op): phases of its work, in the order a Jacobi
 * iteration meets them.  A phase is the outermost timed region: the copies inside a narrow
 * phase count as narrow phase, not as copies. */
typedef enum {
    SIPD_PHASE_ELEMENT = 0,  /* element pass (gradient, K⁺ / blocks per element)             */
    SIPD_PHASE_VERTEX,       /* vertex pass: gather over incidences, 3x3 solve, partial sums  */
    SIPD_PHASE_REDUCE,       /* folding per-block partial sums in a kernel of its own (none now: the
                                GPU's reducing kernels fold their own, block_reduce; kept, 0) */
    SIPD_PHASE_APPLY,        /* y update (apply)                                              */
    SIPD_PHASE_ENERGY,       /* energy evaluation (line search)                               */
    SIPD_PHASE_GS,           /* Gauss–Seidel colour sweeps                                    */
    SIPD_PHASE_BROAD,        /* contact broad phase                                           */
    SIPD_PHASE_NARROW,       /* contact narrow phase, the motion check that triggers it, and  */
                             /* the pairs' data built and uploaded                            */
    SIPD_PHASE_COPY,         /* host<->device copies outside the phases above                 */
    SIPD_PHASE_OTHER,        /* begin/end of step, snapshots, undo, Hessian rows, ...        */
    SIPD_NPHASE
} sipd_phase;

/* Counters since create or the last reset.  launches: kernel launches by sipd-run's own code
 * (CUB's internal kernels in the broad phase are not counted); syncs: calls that block the
 * host until the device is done (cudaMemcpy to or from the host, cudaDeviceSynchronize;
 * buffer growth — cudaMalloc / cudaFree of pair and candidate buffers — is not counted); both
 * -1 on the CPU backend (no device).  ms: the phase's time when params.profile was set, else 0
 * (GPU: CUDA events around each launch or call, the GPU's timeline; CPU: the host clock). */
typedef struct {
    int timed;
    double ms[SIPD_NPHASE];
    long launches[SIPD_NPHASE];
    long syncs[SIPD_NPHASE];
} sipd_profile;

/* Short names of the phases (for tables): "element", "vertex", ... */
static inline const char *sipd_phase_name(int p)
{
    static const char *const names[SIPD_NPHASE] = {"element", "vertex", "reduce", "apply", "energy",
                                                   "gs",      "broad",  "narrow", "copy",  "other"};
    return p >= 0 && p < SIPD_NPHASE ? names[p] : "?";
}

/* The sum over the phases of a counter (sipd_profile launches or syncs). */
static inline long sipd_profile_total(const long *per_phase)
{
    long n = 0;
    int k;
    for (k = 0; k < SIPD_NPHASE; k++) n += per_phase[k];
    return n;
}

/* Reductions of one direction pass (all sums over free vertices). */
typedef struct sipd_dir_stats {
    double rmax;   /* max_a |dy_a|                                                    */
    double gmax;   /* max_a |g_a| (a method-independent force residual)               */
    double gdy;    /* Σ g·dy  (< 0 for a descent direction)                           */
    double gs;     /* Σ g·s, s = y − y_prev  (g at the current y)                     */
    double sDs;    /* Σ sᵀ D s                                                          */
    int nonspd;    /* blocks that were not positive definite                          */
    int cg_iters;  /* conjugate-gradient iterations of a global solve for this direction  */
    int contacts;  /* active contacts (ground vertices and pairs within d̂)             */
    double max_pen;/* max penetration (negative gap) over the ground and pairs (m, ≥ 0) */
    /* Rayleigh quotient of the step's accumulated displacement d = y − y₀ (y₀, g₀: the
       first iterate of the step and its gradient): num = Σ (g − g₀)·d ≈ dᵀHd, den = Σ dᵀDd.
       0/0 when the backend does not provide it. */
    double d_num, d_den;
    /* Σ_a g_a over free vertices (N): the step's momentum balance (driver.h); have_gsum = 0
       when the backend does not provide it */
    double gsum[3];
    int have_gsum;
    /* Σ g_prev·(y − y_prev): the last apply's Σ g·s, summed by this pass (view.h gs_prev) where the
       backend defers it from apply (the CUDA backend: one launch and one read-back fewer per
       iteration; its apply then returns NaN for *gs); have_gs_prev = 0 when not provided, or
       when no apply came since the last direction (which then reported it) */
    double gs_prev;
    int have_gs_prev;
} sipd_dir_stats;

typedef struct {
    double rmax;   /* max_a |dy_a| of the full local steps                           */
    double gmax;   /* max_a |g_a| when vertex a was visited                          */
    int backtracks;/* local line-search halvings                                     */
    int rejected;  /* vertices whose local line search found no decrease             */
    int contacts;  /* active contacts when visited                                   */
    double max_pen;
} sipd_gs_stats;

typedef struct {
    const char *name;
    int (*create)(sipd_backend **b, const sipd_model *m, const sipd_backend_params *p);
    /* Set positions and velocities (nv*3 each). */
    int (*upload)(sipd_backend *b, const double *x, const double *v);
    /* Start a step of length h ending at time t_end: ỹ, Dirichlet positions, initial y. */
    int (*begin_step)(sipd_backend *b, double t_end, double h, const double gravity[3], int quasistatic);
    /* Jacobi pass: g, D, dy = −D⁻¹g at the current y. */
    int (*direction)(sipd_backend *b, sipd_dir_stats *st);
    /* E(y + α dy). */
    int (*energy)(sipd_backend *b, double alpha, double *E);
    /* y_new = y_prev + ω (y + α dy − y_prev); y_prev ← y; y ← y_new.  *gs = Σ g·(y_new − y), or NaN
       where the backend reports it with the next direction instead (sipd_dir_stats.gs_prev). */
    int (*apply)(sipd_backend *b, double alpha, double omega, double *gs);
    /* y ← y_prev (one level). */
    int (*undo)(sipd_backend *b);
    int (*snapshot)(sipd_backend *b);
    int (*restore)(sipd_backend *b);
    /* Contact pairs (docs/design.md §3.6), called once per iteration.  run = 0: *flag = 1 when a
       narrow phase is due (detect_every iterations since the last one, or a vertex moved more
       than d̂/2 since).  run = 1: the narrow phase at the current y (the broad phase again first
       when y has left its boxes); *flag = 1 when there were or are pairs (energies evaluated
       before are then stale).  NULL when the backend has no pair contact. */
    int (*detect)(sipd_backend *b, int run, int *flag);
    /* One Gauss–Seidel sweep over the colours, with a per-vertex line search when ls != 0;
       the local step starts at omega (over-relaxation). */
    int (*gs_sweep)(sipd_backend *b, int ls, double omega, sipd_gs_stats *st);
    /* v = (y − x)/h (0 when quasi-static), x = y. */
    int (*end_step)(sipd_backend *b);
    int (*download)(sipd_backend *b, double *x, double *v);
    void (*destroy)(sipd_backend *b);
    /* The step's load (driver.h, f_ref): max_a |g_a| over free vertices at the "do nothing"
       state x̂ (free vertices at the step start, Dirichlet ones at their end-of-step position),
       evaluated by begin_step.  NULL when the backend does not provide it. */
    int (*step_load)(sipd_backend *b, double *fmax);
    /* The PSD-projected Hessian and the gradient of a set of terms (sipd_terms) at y, after a
       direction pass at y (params.assemble at create).  H (pattern: sipd_bsr_pattern over the
       model's element groups, model_pattern_elements), every value set: m/h² I + the ground's
       contact and friction blocks + the pairs' diagonal blocks + Σ element blocks of the set's
       kinds, Dirichlet rows and columns eliminated (identity rows).  g (nv*3, 0 on Dirichlet
       vertices): the set's gradient at y (ALL: the direction pass's g, bit for bit).  *extra:
       the pairs' couplings between a pair's vertices, applied matrix-free (NULL functions
       without pairs; valid until the next detect).  The element Hessians are the direction
       pass's with SIPD_PRECOND_HESSIAN, else the op evaluates them at y.  A backend refuses a set
       it does not assemble (SIPD_EFAIL, with a message).  NULL: no assembly. */
    int (*assemble)(sipd_backend *b, int terms, sipd_bsr *H, double *g, sipd_bsr_extra *extra);
    /* dy ← dy_host (nv*3): the direction the caller computed.  NULL with assemble. */
    int (*set_direction)(sipd_backend *b, const double *dy_host);
    /* The unit round-off of the backend's state (2.2e-16 for float64, 1.2e-7 for float32): the
       driver scales its round-off allowances and the stall rule's floor by it. */
    double unit_roundoff;
    /* *E = the energy of a set of terms (sipd_terms) at y + α dy; SIPD_TERMS_ALL is `energy`,
       bit for bit.  A backend refuses a set it does not evaluate (SIPD_EFAIL).  NULL: none. */
    int (*terms_energy)(sipd_backend *b, int terms, double alpha, double *E);
    /* y_host (nv*3) ← the current iterate y.  NULL when not provided. */
    int (*iterate)(sipd_backend *b, double *y_host);
    /* g_host (nv*3) ← the gradient of the last direction pass.  NULL when not provided. */
    int (*gradient)(sipd_backend *b, double *g_host);
    /* f_host (nv*3) ← the contact and friction force on each vertex at the current iterate
       (passes.h pass_contact_force; 0 on Dirichlet vertices): called after a solve, before
       end_step (friction slip is measured from the step's start).  NULL when not provided. */
    int (*contact_force)(sipd_backend *b, double *f_host);
    /* *out = the counters and phase times since create or the last reset (sipd_profile); reset
       != 0 then zeroes them.  With params.profile on the GPU, reading waits for the recorded
       events (not counted as a sync).  NULL when the backend does not provide it. */
    int (*profile)(sipd_backend *b, sipd_profile *out, int reset);
    /* The adaptive guess' history (params.adaptive_guess), for checkpoints: set = 0: *valid = 1
       and vp (nv*3) ← the velocities before the last step when the backend holds them (a step
       has ended since the last upload), else *valid = 0; set = 1: the history ← vp (after an
       upload: a resumed run continues as the uninterrupted one); set = 2: forget it (the next
       step starts from ỹ; vp, valid unused).  NULL: no history kept. */
    int (*guess_history)(sipd_backend *b, int set, double *vp, int *valid);
    /* The friction anchors (contact.h stick memory), for checkpoints: state a resumed run needs
       to continue as the uninterrupted one.  set = 0: *n ← the number of doubles, and with buf
       non-NULL buf[0 .. *n) ← the ground's anchors (nv*3; none without ground friction), then the
       pairs' store (pairs.h pair_anchor_save: its entry count, then 8 doubles per entry);
       set = 1: the anchors ← buf[0 .. n) as written (after an upload, which drops them).
       SIPD_EINPUT when buf does not fit this model.  NULL: no friction state kept. */
    int (*friction_state)(sipd_backend *b, int set, double *buf, long *n);
    /* *tau = the scale contact.ccd applied to the last set_direction's dy (params.ccd; 1: none):
       the step filter scales a caller's direction as a whole, and a caller that moves more than
       y along it (mixed FEM's stretches) or predicts its gain scales by it too.  NULL: 1. */
    int (*ccd_scale)(sipd_backend *b, double *tau);
    /* *gap = the smallest contact gap at the current iterate (m): over the free vertices above
       the ground (n·y − h less the half-thickness) and the pairs of the last narrow phase (their
       gap along the frozen normal, less their thickness offset); negative: a penetration; NaN
       without contact.  NULL when not provided. */
    int (*contact_gap)(sipd_backend *b, double *gap);
} sipd_backend_ops;

extern const sipd_backend_ops sipd_backend_cpu;
/* the float32 CPU backend (src/backend_cpu32.c; --precision float32, docs/precision.md) */
extern const sipd_backend_ops sipd_backend_cpu32;
#define SIPD_HAVE_CPU32 1   /* (tools/sipd-bench.c, built against older commits too, asks) */

#endif
