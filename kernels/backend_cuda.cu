/* backend_cuda.cu — the CUDA backend: the CPU backend's passes (src/backend_cpu.c) as kernels
 * around the same shared physics headers (src/physics/ headers), in float32.
 *
 * Design.
 *  - Every state array of backend.h (x, v, ỹ, y, y_prev, dy, g, y_snap) lives on the device as
 *    float xyz triples (the layout of the CPU backend, in float) from create to destroy; only
 *    upload/download move positions across the bus (through one pinned float buffer), and
 *    every other op returns at most a few reduced scalars.  The model (tets, Bm, volumes,
 *    masses, incidences, colouring, Dirichlet data) is converted to float once, in create.
 *  - Jacobi direction = two kernels, op for op the CPU backend's two loops: an element kernel
 *    (one thread per tet: gradient on its 4 vertices and K⁺ through tet_element, or the four
 *    PSD vertex blocks through tet_vertex_block_psd, stored per tet) and a vertex kernel (one
 *    thread per vertex: gather over its CSR incidences, inertia from inertia.h, s3_solve).
 *    No atomics in the data path.
 *  - Gauss–Seidel: per colour over color_verts, one thread per vertex, cpu_gs_sweep's loop body
 *    in two launches: the direction (tet_vertex_eval per incidence, the 3x3 solve) and, with a
 *    line search, k_gs_search (the same local Armijo line search, the same halving cap), the
 *    direction passed through gsd.  Same-coloured vertices share no tet, so a thread reads fresh
 *    neighbours and writes only its own vertex.
 *  - Reductions (direction stats, energy) are in double: each block reduces its share (warp
 *    shuffles + shared memory) to one partial per quantity, and the kernel's last block folds
 *    the partials in a fixed order (block_reduce), so results are deterministic run to run.
 *    apply's Σ g·s is summed by the next vertex pass (view gs_prev): a plain Jacobi iteration
 *    is 3 launches and 1 read-back (docs/gpu.md, launches and syncs per iteration).  The Gauss–Seidel stats (maxima and integer counts, order-independent) use one atomic
 *    per warp.  Launch config: 256 threads per block, grid-stride loops over at most
 *    8 blocks per SM (so partial buffers stay small), except the Jacobi vertex kernel: one thread
 *    per vertex (no running sums across its 3x3 solve: registers, k_vertex).
 *  - Contact (NEVER RUN ON A GPU YET): the ground plane per vertex in the vertex and energy
 *    kernels; vertex–face / edge–edge pairs are detected on the device (kernels/collide_cuda.cu:
 *    the broad phase once per step and when a vertex leaves its box, the float32 narrow phase
 *    with collide.c's hysteresis every detect_every iterations or after d̂/4 of motion,
 *    measured on the device by k_moved); the pairs come back to the host (48 bytes each), which
 *    builds their data (src/pairs.c, from x0 downloaded once per step) and uploads it with the
 *    vertex incidences.  SIPD_CUDA_HOST_DETECT=1 detects on the host instead (src/collide.c,
 *    float64; y downloaded at every narrow phase).  The pairs are evaluated in the vertex
 *    kernel (gather, Jacobi majoriser weight), the energy kernel (one thread per pair) and
 *    k_pair_stats — the CPU backend's formulas from physics/contact.h.  Gauss–Seidel sweeps refuse contact (the colouring does not separate
 *    vertices that share a pair).
 *  - assemble (NEVER RUN ON A GPU YET; the set of all terms): the element pass with
 *    SIPD_PRECOND_HESSIAN (per-element PSD-projected Hessians, k_element<SIPD_PRECOND_HESSIAN>) and
 *    k_hessian_row (passes.h pass_hessian_row: one thread per vertex gathers its block row over
 *    its incidences, the CPU backend's assembly loop; no atomics), then H's float values and g
 *    go to the host, where the caller solves in double; set_direction uploads the host's
 *    direction.  Contact pairs: their diagonal blocks β_l² D_z are in the rows (pass_hessian_row),
 *    and k_pair_hessian evaluates each pair's D_z at y (6 floats per pair, downloaded), from which
 *    the host gives the couplings between a pair's vertices as the extra term (pairs.h
 *    pair_coupling_row / _blocks over its pair data, as the CPU backend does).  A set without
 *    the stretch elements is not assembled here.
 *  - Precision: positions, gradients and blocks in float32 as in the paper; sums in double.
 *    Energies of single elements are float32, so the global line search stalls earlier than
 *    the CPU's (float64) — the driver reports that as a stalled solve, as it does on the CPU.
 *  - Errors: every CUDA call is checked (CU below); a failure prints the op, the call and
 *    cudaGetErrorString, marks the backend failed, and the op returns SIPD_EFAIL.  Since the
 *    driver does not test every op's status, a failed backend also returns NaN stats/energies,
 *    which the driver reports as a diverged solve and stops.  Set SIPD_CUDA_SYNC=1 to
 *    synchronise after every launch (precise attribution of asynchronous kernel faults).
 *    Nothing here falls back to the CPU.
 *  - Profile (backend.h sipd_profile, the `profile` op): every launch goes through KLAUNCH and
 *    every copy after create through dcopy, which count launches and blocking copies per
 *    phase (always: an integer increment).  With params.profile, a pair of CUDA events is
 *    recorded around each launch / copy / collide call (the outermost region only: a narrow
 *    phase's copies are narrow phase); the pairs are read when the pool of PROF_PAIRS is full
 *    and by the profile op (cudaEventSynchronize: a wait that only profiling adds, not counted).
 *    All of it is host code around the launches: the kernels are the same.
 *
 * The physics formulas all come from src/physics/ headers; this file only loads, stores, loops and
 * reduces.
 */
/* the specialised passes (src/view.h SIPD_FIXED_*: per-kind and per-model element kernels) */
#define SIPD_FIXED_SPECIALISED 1
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

#include <cuda_runtime.h>

#ifndef SIPD_REAL_FLOAT
#error "kernels/backend_cuda.cu is built with -DSIPD_REAL_FLOAT (float32 device state)"
#endif

#include "backend_cuda.h"
#include "passes.h"
#include "launch.h"
extern "C" {
#include "util.h"
#include "collide.h"
#include "collide_cuda.h"
#include "pairs.h"
#include "step_load.h"
}

#define NT 256              /* threads per block                                    */
#define BLOCKS_PER_SM 8     /* grid-stride cap: 2048 resident threads per SM / NT    */
#define NRED 16             /* reduced quantities per pass, at most                  */
#define PROF_PAIRS 1024     /* event pairs recorded before they are read (params.profile) */

/* The host model's double materials: src/host_material.h (host_material_f64, checked in create). */
#include "host_material.h"

/* ---- the device view: everything a kernel needs, passed by value ------------------------ */
typedef struct {
    sipd_view v;               /* what the shared passes see (src/passes.h), float32 arrays */
    const int *color_verts;    /* the colouring's vertex lists (Gauss–Seidel)               */
    float *gsd;                /* Gauss–Seidel with a line search: per colour position, the
                                  direction kernel's sipd_gs_dir for k_gs_search, 6 x nv (SoA) */
    float *ydet;               /* y at the last narrow phase                                 */
    double *part;              /* the reducing kernels' per-block partials, NRED per block     */
    double *red;               /* their folded results (block_reduce), NRED                    */
    unsigned *done;            /* blocks of the running reducing kernel that wrote their partials;
                                  0 between launches (the last block resets it)              */
} dview;

struct gs_acc {
    unsigned long long rmax2, gmax2;   /* bit patterns of non-negative doubles (ordered) */
    int backtracks, rejected;
    int pending;                       /* the staged line search: vertices still searching */
};

typedef void (*element_kernel_p)(dview, int);
typedef void (*vertex_kernel_p)(dview, int);
typedef void (*gs_kernel_p)(dview, int, int, int, float, struct gs_acc *);
typedef void (*gs_search_kernel_p)(dview, int, int, float, struct gs_acc *);

struct sipd_backend {
    const sipd_model *m;
    dview d;
    double h, eps_v, kc, mu, dhat;   /* contact parameters in double (host-side detection) */
    const double *kv;                /* per-vertex automatic k_c (model.h contact_kv), NULL: kc */
    double load;         /* max|g| at the step's "do nothing" state (step_load)       */
    int grid_cap, sync_each, failed;
    double *red_h;       /* pinned host copy of d.red                 */
    gs_acc *gacc, *gacc_h;
    float *hbuf;         /* pinned host float buffer, nv*3            */
    float *fc;           /* device: contact forces, nv*3 (params.contact_force; else NULL) */
    int precond, split, first;   /* first: the next direction is the step's first        */
    int applied;         /* an apply since the last direction: that direction reports its Σ g·s */
    element_kernel_p kelem;
    int all_snh;         /* every material stable neo-Hookean: 1 yes, -1 no, 0 not yet looked at */
    int gs_generic;      /* SIPD_CUDA_GS_GENERIC=1: the staged Gauss–Seidel sweep (the generic
                            direction kernel for BLOCK, DIAG, MASS) whatever the model (gs_fixed;
                            the tests compare the specialised kernels with it) */
    unsigned grp_models[SIPD_KIND_COUNT];   /* group g's material models, a bit each; 0 not yet looked at */
    /* the staged Gauss–Seidel sweep (gss_setup, on its first use): each incidence's class, the
       incidences' slots, the colour positions still searching, each colour's classes (host) */
    unsigned char *gss_cls;
    float *gss_slots;
    int *gss_pending;
    unsigned *gss_mask;
    vertex_kernel_p kvert;
    vertex_kernel_p kfused;   /* SIPD's fused direction kernel of this split and contact (k_vertex_fused), NULL: none */
    int fused;           /* the direction is kfused (fused_kernel): 1 yes, -1 no, 0 not yet looked at */
    int gather;          /* SIPD_CUDA_GATHER=1: the element pass and the gather whatever the model */
    gs_kernel_p kgs;
    void *allocs[96];
    int nalloc;
    /* `assemble`: the element Hessians in grp[].hess (create), the caller's block-CSR pattern on
       the device (uploaded by the first assemble call; hp_* remember which one) and the values
       in float, on the device and pinned */
    int want_hessian;
    sipd_bsr_view hv;              /* device copies of the pattern (passes.h)              */
    float *hval, *hval_h;          /* nnzb * 9                                             */
    const int *hp_row_off;         /* the host pattern the device copy was made from        */
    int hp_n, hp_nnzb;
    /* pair contact: the host-side detector and its buffers; device pair arrays of capacity
       pr_cap (reallocated as the pair count grows, freed in destroy) */
    sipd_collide *det;
    sipd_cuda_broad *gb;           /* detection on the device (collide_cuda.h); NULL with
                                      SIPD_CUDA_HOST_DETECT=1: det on the host         */
    sipd_pair_data pd;
    double *hx, *hy;               /* host copies of x and y for detection (nv*3)       */
    int detect_every, since, pr_cap;
    int *h_v;                      /* host staging: 4 per pair                          */
    float *h_f;                    /* host staging: 13 per pair (β, n, k, λ, offset, anchor) */
    void *dpr[9];                  /* device: pr_v, pr_beta, pr_n, pr_k, pr_lam, pv_pair, pv_slot,
                                      pr_h, pr_o (the friction anchors: uploaded with the pairs,
                                      updated in place at the step end and downloaded to the
                                      host's store, pairs.h pair_anchor_commit) */
    /* `assemble` with pairs (want_hessian): each pair's D_z at y on the device (k_pair_hessian, 6
       floats), its host copy in double, and the couplings' ctx over pd (pairs.h) */
    float *dprD;
    double *prD_h;
    sipd_pair_coupling pc;
    /* profile (the `profile` op): counters always, times from event pairs (params.profile) */
    sipd_profile prof;
    int prof_depth, prof_cur;      /* nesting of timed regions; the outermost region's phase */
    int prof_npend;                /* event pairs recorded and not yet read                  */
    int prof_pend[PROF_PAIRS];     /* their phases                                           */
    cudaEvent_t *prof_ev;          /* 2 * PROF_PAIRS events; NULL unless params.profile      */
};

/* ---- error handling ----------------------------------------------------------------------- */
static int cu_fail(sipd_backend *b, const char *op, const char *call, cudaError_t e)
{
    sipd_error("cuda backend: %s: %s failed: %s (%s)", op, call, cudaGetErrorString(e), cudaGetErrorName(e));
    if (b)
        b->failed = 1;
    return SIPD_EFAIL;
}

#define CU(call, op)                                                                          \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return cu_fail(b, op, #call, e_);                                                 \
    } while (0)

/* after a launch: configuration errors now, kernel faults now too when SIPD_CUDA_SYNC=1 */
#define LAUNCHED(op)                                                                          \
    do {                                                                                      \
        CU(cudaGetLastError(), op);                                                           \
        if (b->sync_each) {                                                                   \
            b->prof.syncs[b->prof_cur]++;                                                     \
            CU(cudaDeviceSynchronize(), op);                                                  \
        }                                                                                     \
    } while (0)

/* ---- profile: timed regions (the outermost one counts), launch and sync counters ---------- */
/* Read the recorded event pairs into prof.ms (waits for the last one). */
static int prof_flush(sipd_backend *b)
{
    int i;
    if (!b->prof_ev || b->prof_npend == 0)
        return SIPD_OK;
    CU(cudaEventSynchronize(b->prof_ev[2 * b->prof_npend - 1]), "profile");
    for (i = 0; i < b->prof_npend; i++) {
        float ms = 0;
        CU(cudaEventElapsedTime(&ms, b->prof_ev[2 * i], b->prof_ev[2 * i + 1]), "profile");
        b->prof.ms[b->prof_pend[i]] += ms;
    }
    b->prof_npend = 0;
    return SIPD_OK;
}

static void prof_begin(sipd_backend *b, int phase)
{
    cudaError_t e;
    if (b->prof_depth++ > 0)
        return;
    b->prof_cur = phase;
    if (!b->prof_ev)
        return;
    if (b->prof_npend == PROF_PAIRS)
        prof_flush(b);
    if ((e = cudaEventRecord(b->prof_ev[2 * b->prof_npend], 0)) != cudaSuccess)
        cu_fail(b, "profile", "cudaEventRecord", e);
}

static void prof_end(sipd_backend *b)
{
    cudaError_t e;
    if (--b->prof_depth > 0 || !b->prof_ev)
        return;
    if ((e = cudaEventRecord(b->prof_ev[2 * b->prof_npend + 1], 0)) != cudaSuccess)
        cu_fail(b, "profile", "cudaEventRecord", e);
    b->prof_pend[b->prof_npend++] = b->prof_cur;
}

/* A counted (and, with params.profile, timed) launch of NT-thread blocks in phase ph. */
#define KLAUNCH(ph, op, kernel, grid, ...)                                                    \
    do {                                                                                      \
        prof_begin(b, ph);                                                                    \
        SIPD_LAUNCH(kernel, grid, NT, 0, __VA_ARGS__);                                        \
        b->prof.launches[b->prof_cur]++;                                                      \
        prof_end(b);                                                                          \
        LAUNCHED(op);                                                                         \
    } while (0)

/* cudaMemcpy after create, counted: a copy to or from the host blocks the host until it is
 * done (a sync; phase copy), a device-to-device copy does not (phase other). */
static cudaError_t dcopy(sipd_backend *b, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    const int host = kind != cudaMemcpyDeviceToDevice;
    cudaError_t e;
    prof_begin(b, host ? SIPD_PHASE_COPY : SIPD_PHASE_OTHER);
    e = cudaMemcpy(dst, src, bytes, kind);
    if (host)
        b->prof.syncs[b->prof_cur]++;
    prof_end(b);
    return e;
}

/* The launches and syncs of a collide_cuda.cu call (its own counters) into the current phase. */
static void prof_collide(sipd_backend *b, long l0, long s0)
{
    long l, sy;
    sipd_cuda_broad_counters(b->gb, &l, &sy);
    b->prof.launches[b->prof_cur] += l - l0;
    b->prof.syncs[b->prof_cur] += sy - s0;
}

static int grid_for(const sipd_backend *b, long n)
{
    long g = (n + NT - 1) / NT;
    if (g > b->grid_cap)
        g = b->grid_cap;
    return g < 1 ? 1 : (int)g;
}

/* The vertex kernel's grid: one thread per vertex, not capped (k_vertex has no grid-stride loop). */
static int vertex_grid(const sipd_backend *b)
{
    long g = ((long)b->d.v.nv + NT - 1) / NT;
    return g < 1 ? 1 : (int)g;
}

/* ---- device helpers ------------------------------------------------------------------------ */

__device__ static inline double red_op(double a, double b, int is_max) { return is_max ? pass_max(a, b) : a + b; }

/* Block-reduce v[0..nq) (bit q of maxmask: max, else sum); block partial q goes to
 * part[q * gridDim.x + blockIdx.x].  Every thread of the block must call it. */
__device__ static __forceinline__ void block_partials(double *v, int nq, unsigned maxmask, double *part)
{
    __shared__ double sh[NRED][NT / 32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int q, off;
    for (q = 0; q < nq; q++) {
        int mx = (maxmask >> q) & 1;
        for (off = 16; off > 0; off >>= 1) v[q] = red_op(v[q], __shfl_down_sync(0xffffffffu, v[q], off), mx);
        if (lane == 0)
            sh[q][w] = v[q];
    }
    __syncthreads();
    if (w == 0)
        for (q = 0; q < nq; q++) {
            int mx = (maxmask >> q) & 1;
            double x = lane < NT / 32 ? sh[q][lane] : 0.0;
            for (off = 16; off > 0; off >>= 1) x = red_op(x, __shfl_down_sync(0xffffffffu, x, off), mx);
            if (lane == 0)
                part[(size_t)q * gridDim.x + blockIdx.x] = x;
        }
}

/* One block folds the nblk partials of each quantity in a fixed order (deterministic) into
 * out[q].  Every thread of the block must call it.  The partials are read through a volatile
 * pointer: other blocks wrote them during this launch (block_reduce). */
__device__ static void fold_partials(const volatile double *part, int nblk, int nq, unsigned maxmask, double *out)
{
    __shared__ double sh[NT];
    int q, j, s;
    for (q = 0; q < nq; q++) {
        int mx = (maxmask >> q) & 1;
        double acc = 0;
        for (j = threadIdx.x; j < nblk; j += NT) acc = red_op(acc, part[(size_t)q * nblk + j], mx);
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (s = NT / 2; s > 0; s >>= 1) {
            if ((int)threadIdx.x < s)
                sh[threadIdx.x] = red_op(sh[threadIdx.x], sh[threadIdx.x + s], mx);
            __syncthreads();
        }
        if (threadIdx.x == 0)
            out[q] = sh[0];
        __syncthreads();
    }
}

/* The reduction of a kernel in the kernel itself: each block writes its partials (block_partials
 * into d.part), and the last block to finish — counted in d.done after a memory fence, as CUDA's
 * threadFenceReduction sample does — folds them all (fold_partials) into d.red[slot..slot+nq)
 * and resets the count.  One launch where a second one-block kernel used to fold (issue 29: a
 * plain Jacobi iteration in 3 launches); the same fixed-order sums.  Every thread of the block
 * must call it. */
__device__ static __forceinline__ void block_reduce(double *v, int nq, unsigned maxmask, const dview &d, int slot)
{
    __shared__ int last;
    block_partials(v, nq, maxmask, d.part);
    __threadfence();   /* this block's partials are visible before its count */
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(d.done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (last) {
        fold_partials(d.part, gridDim.x, nq, maxmask, d.red + slot);
        if (threadIdx.x == 0)
            *d.done = 0;
    }
}

/* ---- kernels -------------------------------------------------------------------------------- */
#define GRID_STRIDE(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

/* begin_step (passes.h pass_begin_vertex): ỹ, Dirichlet positions, y, y_prev, dy = 0 */
extern "C" __global__ void __launch_bounds__(NT) k_begin_step(const __grid_constant__ dview d, float t_end, float h, float gx, float gy, float gz)
{
    const float grav[3] = {gx, gy, gz};
    GRID_STRIDE(a, d.v.nv) pass_begin_vertex(&d.v, a, t_end, h, grav);
}

/* Jacobi element pass over group g (passes.h pass_element), instantiated per preconditioner P
 * and split S (compile-time constants: the branches fold and each variant keeps only its own
 * registers; K⁺ is dead code unless P is SPLIT, so the non-SPLIT variants are built with
 * S = EXPANDED — the gradient does not depend on S). */
template <int P, int S>
__global__ void __launch_bounds__(NT) k_element(const __grid_constant__ dview d, int g)
{
    GRID_STRIDE(e, d.v.grp[g].ne) pass_element(&d.v, P, S, g, e);
}

/* SIPD's element pass over group g of kind K (passes.h pass_element_fixed with SIPD_FIXED_KIND(K)):
 * the kind switch folds to one case, so a kernel carries the registers of one kind only, and rod
 * and mid-edge bending run their streamed element passes inline (kinds/rod_bend.h, midedge.h; out
 * of line the mid-edge pass took the view to a 704 B stack frame).  The material
 * model stays a run-time switch.  The kinds without a pairwise K ignore S: one instance each.
 * Chosen per group at launch (element_kernel); the generic k_element serves the other
 * preconditioners. */
template <int P, int S, int K>
__global__ void __launch_bounds__(NT) k_element_kind(const __grid_constant__ dview d, int g)
{
    GRID_STRIDE(e, d.v.grp[g].ne) pass_element_fixed(&d.v, SIPD_FIXED_KIND(K), P, S, g, e);
}

/* Whether a tet of model `model` is the kernel of model M's (corotational serves ARAP too: the
 * same arithmetic, material.h).  O = 0: every tet of the group is (its materials are of one
 * model), nothing is tested: the test cost the stable neo-Hookean kernels 4-8 registers, so the
 * kernels that test (O = 1) are instances of their own, for groups that mix models. */
template <int O>
__device__ static __forceinline__ int tet_model_is(int model, int M)
{
    return !O || model == M || (M == SIPD_MAT_COROTATIONAL && model == SIPD_MAT_ARAP);
}

/* SIPD's element pass over the tets of model M (neo-Hookean, corotational/ARAP or StVK) of a tet
 * group: the model's P and K⁺ inline with M and S constants (kinds/tet.h kind_tet_element_model),
 * without the out-of-line material_eval_other of a run-time model.  Corotational tets read the
 * rotation k_element_tet_polar left for them.  With O = 1, tets of other models are skipped (a
 * group whose materials mix models runs one kernel per model: element_pass). */
template <int S, int M, int O>
__global__ void __launch_bounds__(NT) k_element_tet_model(const __grid_constant__ dview d, int g)
{
    const sipd_group_view *G = &d.v.grp[g];
    GRID_STRIDE(e, G->ne)
    {
        sipd_material m = d.v.mats[G->mat[e]];
        if (!tet_model_is<O>(m.model, M))
            continue;
        m.model = M;
        kind_tet_element_model(&d.v, &m, S, G, e);
    }
}

/* The rotations of the corotational and ARAP tets of group g (kinds/tet.h kind_tet_polar), before
 * k_element_tet_model<S, SIPD_MAT_COROTATIONAL, O>; O as there. */
template <int O>
__global__ void __launch_bounds__(NT) k_element_tet_polar(const __grid_constant__ dview d, int g)
{
    const sipd_group_view *G = &d.v.grp[g];
    GRID_STRIDE(e, G->ne)
    {
        if (tet_model_is<O>(d.v.mats[G->mat[e]].model, SIPD_MAT_COROTATIONAL))
            kind_tet_polar(&d.v, G, e);
    }
}

/* The element kernel of a tet group whose materials are all stable neo-Hookean (the default):
 * kind and model are compile-time constants here, so the kind switch of pass_element, the other
 * models' branches and their out-of-line calls (material_eval_other, which counted for every
 * kernel's registers) are not compiled in.  The material is a local copy with its model set to the
 * constant; the arithmetic is kind_tet_element's (src/kinds/tet.h).  Chosen per group at launch (element_kernel). */
template <int P, int S, int O = 0>
__global__ void __launch_bounds__(NT) k_element_tet_snh(const __grid_constant__ dview d, int g)
{
    const sipd_group_view *G = &d.v.grp[g];
    GRID_STRIDE(e, G->ne)
    {
        sipd_material m = d.v.mats[G->mat[e]];
        if (!tet_model_is<O>(m.model, SIPD_MAT_STABLE_NEOHOOKEAN))
            continue;
        m.model = SIPD_MAT_STABLE_NEOHOOKEAN;
        if (P == SIPD_PRECOND_SPLIT && (S == SIPD_SPLIT_CLAMP || S == SIPD_SPLIT_ABS))
            kind_tet_element_snh_pfirst(&d.v, &m, S, G, e);
        else
            kind_tet_element_mat(&d.v, &m, P, S, G, e);
    }
}

/* Jacobi vertex pass (passes.h pass_vertex): gather g and D, dy = −D⁻¹g.  Instantiated per
 * preconditioner P and contact C: without contact (C = 0) the ground and pair terms are not
 * compiled in.  One thread per vertex (grid vertex_grid, not capped like the grid-stride kernels):
 * without a loop, no reduction has to be carried across the 3x3 solve, whose IEEE divisions and
 * square roots (and their slow-path subroutines) need most of the kernel's registers — with the
 * grid-stride loop the 13 running sums made the contact-free SPLIT kernel 80 registers uncapped
 * (64 under a __launch_bounds__ cap, with spills), without it 40 (ptxas sm_90, results/registers-29.md).
 * Reduces: 0 rmax² (max), 1 gmax² (max), 2 Σg·dy, 3 Σg·s, 4 ΣsᵀDs, 5 nonspd, 6 ground contacts,
 * 7 ground penetration (max), 8 Σ(g − g0)·d, 9 ΣdᵀDd (the Rayleigh estimate), 10–12 Σg, 13 the
 * last apply's Σ g·s (view gs_prev: apply reduces nothing), into d.red[0..14) (block_reduce). */
#define VERTEX_NRED 14
#define VERTEX_MAXMASK 0x83u
__device__ static __forceinline__ void vertex_out_sums(const sipd_vertex_out &o, double r[VERTEX_NRED])
{
    if (o.free) {
        r[0] = pass_max(r[0], (double)o.dn2);
        r[1] = pass_max(r[1], (double)o.gn2);
        r[2] += (double)o.gdy;
        r[3] += (double)o.gs;
        r[4] += (double)o.sDs;
        r[5] += o.nonspd;
        r[6] += o.contact;
        r[7] = pass_max(r[7], (double)o.pen);
        r[8] += (double)o.dnum;
        r[9] += (double)o.dden;
        r[10] += (double)o.g.v[0];
        r[11] += (double)o.g.v[1];
        r[12] += (double)o.g.v[2];
        r[13] += (double)o.gs_prev;
    }
}
template <int P, int C>
__global__ void __launch_bounds__(NT) k_vertex(const __grid_constant__ dview d, int first)
{
    double r[VERTEX_NRED] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a < d.v.nv)
        vertex_out_sums(pass_vertex(&d.v, P, C, a, first), r);
    block_reduce(r, VERTEX_NRED, VERTEX_MAXMASK, d, 0);
}

/* SIPD's fused Jacobi direction (docs/gpu.md "The fused Jacobi direction"): k_vertex with each
 * incident tet evaluated for the vertex's corner in the same thread (passes.h
 * pass_vertex_fused_fixed with SIPD_FIXED_TET_SNH: kind, corner count and model compile-time
 * constants), so the direction is one launch and no per-element gradient or K⁺ goes through
 * memory.  For models whose every element is a tet of a stable neo-Hookean material, with the
 * expanded, sign or no split (fused_kernel); SIPD_CUDA_GATHER=1 keeps the element pass and the
 * gather.  Capped at 56 registers without contact, 64 with (C = 1: the ground and pair terms,
 * added after the tets' loop so that fewer values live across it), as the budget allows
 * (__maxnreg__; 58-59 uncapped, no spills under the caps, ptxas sm_90: docs/gpu.md#registers).
 * The eigen-fix splits clamp and abs spill under 56: they keep the gather.  Instantiated per
 * split S and contact C; reduces as k_vertex. */
template <int S, int C>
__global__ void __maxnreg__(C ? 64 : 56) k_vertex_fused(const __grid_constant__ dview d, int first)
{
    double r[VERTEX_NRED] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a < d.v.nv)
        vertex_out_sums(pass_vertex_fused_fixed(&d.v, SIPD_FIXED_TET_SNH, SIPD_PRECOND_SPLIT, S, C, a, first), r);
    block_reduce(r, VERTEX_NRED, VERTEX_MAXMASK, d, 0);
}

/* Block rows of the PSD-projected Hessian at y (passes.h pass_hessian_row), one thread per
 * vertex: each row gathers over its vertex's incidences and writes only its own blocks (no
 * atomics: the values do not depend on the launch configuration or the scheduling). */
extern "C" __global__ void __launch_bounds__(NT) k_hessian_row(const __grid_constant__ dview d, const __grid_constant__ sipd_bsr_view hv, float *val)
{
    GRID_STRIDE(a, d.v.nv) pass_hessian_row(&d.v, &hv, val, 1, a);
}

/* Each pair's block D_z at y (passes.h pass_pair_hessian, as the CPU backend's assembly), 6 floats
 * per pair: the host forms the couplings β_l β_c D_z between the pair's vertices from them
 * (pairs.h pair_coupling_row / _blocks); the diagonal blocks are k_hessian_row's. */
extern "C" __global__ void __launch_bounds__(NT) k_pair_hessian(const __grid_constant__ dview d, float *D)
{
    GRID_STRIDE(p, d.v.npr) s3_store(D + 6 * (size_t)p, pass_pair_hessian(&d.v, p));
}

/* Active pairs (gap < d̂) and the deepest pair penetration: 0 count, 1 max, into
 * d.red[VERTEX_NRED..+2) (read back with the vertex pass's). */
extern "C" __global__ void __launch_bounds__(NT) k_pair_stats(const __grid_constant__ dview d)
{
    double r[2] = {0, 0};
    GRID_STRIDE(p, d.v.npr)
    {
        float pen;
        r[0] += pass_pair_stats(&d.v, p, &pen);
        r[1] = pass_max(r[1], (double)pen);
    }
    block_reduce(r, 2, 2u, d, VERTEX_NRED);
}

/* max_a |y_a − ydet_a|² (the re-detection trigger) */
extern "C" __global__ void __launch_bounds__(NT) k_moved(const __grid_constant__ dview d)
{
    double r = 0;
    GRID_STRIDE(a, d.v.nv) r = pass_max(r, (double)v3_norm2(v3_sub(view_ld(d.v.y, a), view_ld(d.ydet, a))));
    block_reduce(&r, 1, 1u, d, 0);
}

/* E(y + α dy): thread i takes element i of every group, vertex i and pair i (passes.h). */
extern "C" __global__ void __launch_bounds__(NT) k_energy(const __grid_constant__ dview d, float alpha, int n)
{
    double E = 0;
    GRID_STRIDE(i, n)
    {
        int g;
        for (g = 0; g < d.v.ngroups; g++)
            if (i < d.v.grp[g].ne)
                E += (double)pass_element_energy(&d.v, g, i, d.v.dy, alpha, -1, v3(0, 0, 0));
        if (i < d.v.nv)
            pass_vertex_energy(&d.v, i, alpha, &E);
        if (i < d.v.npr)
            E += (double)pass_pair_energy(&d.v, i, d.v.dy, alpha, -1, v3(0, 0, 0));
    }
    block_reduce(&E, 1, 0u, d, 0);
}

/* y_new = y_prev + ω (y + α dy − y_prev); y_prev ← y; y ← y_new.  Its Σ g·(y_new − y) is summed by
 * the next vertex pass (view gs_prev), not here: no reduction, no read-back. */
extern "C" __global__ void __launch_bounds__(NT) k_apply(const __grid_constant__ dview d, float alpha, float omega)
{
    double gs = 0;
    GRID_STRIDE(a, d.v.nv) pass_apply_vertex(&d.v, a, alpha, omega, &gs);
}

__device__ static inline void atomic_max_nonneg(unsigned long long *p, double v)
{
    atomicMax(p, (unsigned long long)__double_as_longlong(v));
}

/* The Gauss–Seidel tallies of a thread into acc: one atomic per warp (maxima and integer counts
 * are order-independent: deterministic).  DIR: the direction kernel's maxima, else the line
 * search's counts. */
template <int DIR>
__device__ static __forceinline__ void gs_tally_add(sipd_gs_tally t, gs_acc *acc)
{
    int off;
    for (off = 16; off > 0; off >>= 1) {
        if (DIR) {
            t.rmax2 = pass_max(t.rmax2, __shfl_down_sync(0xffffffffu, t.rmax2, off));
            t.gmax2 = pass_max(t.gmax2, __shfl_down_sync(0xffffffffu, t.gmax2, off));
        } else {
            t.backtracks += __shfl_down_sync(0xffffffffu, t.backtracks, off);
            t.rejected += __shfl_down_sync(0xffffffffu, t.rejected, off);
        }
    }
    if ((threadIdx.x & 31) == 0) {
        if (DIR) {
            atomic_max_nonneg(&acc->rmax2, t.rmax2);
            atomic_max_nonneg(&acc->gmax2, t.gmax2);
        } else {
            if (t.backtracks)
                atomicAdd(&acc->backtracks, t.backtracks);
            if (t.rejected)
                atomicAdd(&acc->rejected, t.rejected);
        }
    }
}

/* One colour of the Gauss–Seidel sweep (passes.h pass_gs_vertex, one thread per vertex) in two
 * kernels: the direction (pass_gs_direction_fixed: the gather of the incident elements' corner
 * gradients and blocks, the 3x3 solve), then, with a line search, k_gs_search
 * (pass_gs_search_fixed: the local energies at the trial points).  In one kernel with a
 * grid-stride loop the SIPD tet/stable-neo-Hookean sweep needed 78–109 registers, split and one
 * thread per vertex 48–60 (results/registers-29.md, step 5).  Without a line search the
 * direction kernel moves the vertex itself (α = ω: one launch per colour, as before); with one,
 * two.  One thread per vertex (grid ⌈n/NT⌉, not capped like the grid-stride kernels): nothing is
 * carried across the gather and the 3x3 solve (as in k_vertex).  Same-coloured vertices share
 * no term, so running every direction of a colour before its line searches changes nothing.
 * Instantiated per (P, S) like k_element.  Contact is refused by the host (the colouring does
 * not separate vertices that share a pair), so it is compiled out. */
template <int P, int S, int F>
__device__ static __forceinline__ void gs_color(const dview &d, int begin, int count, int ls, float omega, gs_acc *acc)
{
    sipd_gs_tally t = {0, 0, 0, 0, 0, 0, 0};
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        int a = d.color_verts[begin + i];
        if (!d.v.fixed[a]) {
            sipd_gs_dir s;
            if (SIPD_FIXED_IS_KINDS(F))   /* a pair of kinds (k_gs_color_kinds) */
                s = pass_gs_direction_kinds(&d.v, F, P, S, a, &t);
            else
                s = pass_gs_direction_fixed(&d.v, F, P, S, 0, a, &t);
            if (ls) {
                size_t j = (size_t)begin + i, nv = (size_t)d.v.nv;
                d.gsd[j] = s.d.v[0];
                d.gsd[nv + j] = s.d.v[1];
                d.gsd[2 * nv + j] = s.d.v[2];
                d.gsd[3 * nv + j] = s.E0;
                d.gsd[4 * nv + j] = s.gd;
                d.gsd[5 * nv + j] = s.scale;
            } else {
                pass_gs_search_fixed(&d.v, F, 0, a, 0, omega, &s, &t);
            }
        }
    }
    gs_tally_add<1>(t, acc);
}

/* k_gs_color: any kinds and models (BLOCK, DIAG, MASS; SIPD's is the staged sweep, k_gss_*);
 * k_gs_color_tet_snh: only tets of stable neo-Hookean materials
 * (passes.h SIPD_FIXED_TET_SNH: kind, corner count and model compile-time constants), chosen
 * when the model is that (gs_kernel). */
template <int P, int S>
__global__ void __launch_bounds__(NT) k_gs_color(const __grid_constant__ dview d, int begin, int count, int ls, float omega, gs_acc *acc)
{
    gs_color<P, S, SIPD_FIXED_NONE>(d, begin, count, ls, omega, acc);
}
template <int P, int S>
__global__ void __launch_bounds__(NT) k_gs_color_tet_snh(const __grid_constant__ dview d, int begin, int count, int ls, float omega, gs_acc *acc)
{
    gs_color<P, S, SIPD_FIXED_TET_SNH>(d, begin, count, ls, omega, acc);
}
/* k_gs_color_tet_model: only tets, every material of model M (neo-Hookean 1, StVK 4; kinds/tet.h
 * kind_tet_corner_nh / kind_tet_corner_model: SPLIT and MASS only, BLOCK and DIAG run the generic
 * kernel), with its line search k_gs_search_tet_model<M> */
template <int P, int S, int M>
__global__ void __launch_bounds__(NT) k_gs_color_tet_model(const __grid_constant__ dview d, int begin, int count, int ls, float omega, gs_acc *acc)
{
    gs_color<P, S, SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, M)>(d, begin, count, ls, omega, acc);
}
/* The line search of one colour's vertex per thread (pass_gs_search_fixed with `fixed` F), its
 * direction read from gsd (the direction kernel's, any preconditioner). */
template <int F>
__device__ static __forceinline__ void gs_search(const dview &d, int begin, int count, float omega, gs_acc *acc)
{
    sipd_gs_tally t = {0, 0, 0, 0, 0, 0, 0};
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        int a = d.color_verts[begin + i];
        if (!d.v.fixed[a]) {
            size_t j = (size_t)begin + i, nv = (size_t)d.v.nv;
            sipd_gs_dir s;
            s.d = v3(d.gsd[j], d.gsd[nv + j], d.gsd[2 * nv + j]);
            s.E0 = d.gsd[3 * nv + j];
            s.gd = d.gsd[4 * nv + j];
            s.scale = d.gsd[5 * nv + j];
            pass_gs_search_fixed(&d.v, F, 0, a, 1, omega, &s, &t);
        }
    }
    gs_tally_add<0>(t, acc);
}
template <int M>
__global__ void __launch_bounds__(NT) k_gs_search_tet_model(const __grid_constant__ dview d, int begin, int count, float omega, gs_acc *acc)
{
    gs_search<SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, M)>(d, begin, count, omega, acc);
}

/* k_gs_color_edge: only edges (springs, rod stretching; kind fixed); k_gs_color_tri_snh: only
 * membrane triangles of stable neo-Hookean materials (kind and model fixed) */
template <int P, int S>
__global__ void __launch_bounds__(NT) k_gs_color_edge(const __grid_constant__ dview d, int begin, int count, int ls, float omega, gs_acc *acc)
{
    gs_color<P, S, SIPD_FIXED_KIND(SIPD_KIND_EDGE)>(d, begin, count, ls, omega, acc);
}
template <int P, int S>
__global__ void __launch_bounds__(NT) k_gs_color_tri_snh(const __grid_constant__ dview d, int begin, int count, int ls, float omega, gs_acc *acc)
{
    gs_color<P, S, SIPD_FIXED_KIND_MODEL(SIPD_KIND_TRI, SIPD_MAT_STABLE_NEOHOOKEAN)>(d, begin, count, ls, omega, acc);
}

/* What the Gauss–Seidel kernel of gs_fixed's class T fixes (view.h SIPD_FIXED_*): 0 any kinds and
 * models (SIPD_FIXED_NONE), 1 tets of stable neo-Hookean, 2 edges, 3 triangles of stable
 * neo-Hookean, 4 / 5 tets of neo-Hookean / StVK (k_gs_color_tet_model's own), and the pairs of
 * kinds of the thin bodies with bending (k_gs_color_kinds): 6 triangles of stable neo-Hookean and
 * hinges, 7 the same with mid-edge bending, 8 edges and rod bending (neither reads a model). */
__host__ __device__ constexpr int gs_fixed_of(int T)
{
    return T == 1   ? SIPD_FIXED_TET_SNH
         : T == 2 ? SIPD_FIXED_KIND(SIPD_KIND_EDGE)
         : T == 3 ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TRI, SIPD_MAT_STABLE_NEOHOOKEAN)
         : T == 4 ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, SIPD_MAT_NEOHOOKEAN)
         : T == 5 ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, SIPD_MAT_STVK)
         : T == 6 ? SIPD_FIXED_KINDS(SIPD_KIND_TRI, SIPD_KIND_HINGE) | SIPD_FIXED_MODEL(SIPD_MAT_STABLE_NEOHOOKEAN)
         : T == 7 ? SIPD_FIXED_KINDS(SIPD_KIND_TRI, SIPD_KIND_MIDEDGE) | SIPD_FIXED_MODEL(SIPD_MAT_STABLE_NEOHOOKEAN)
         : T == 8 ? SIPD_FIXED_KINDS(SIPD_KIND_EDGE, SIPD_KIND_ROD_BEND)
                  : SIPD_FIXED_NONE;
}

/* k_gs_color_kinds: a model whose elements are of two kinds, cloth with bending (triangles of
 * stable neo-Hookean materials and hinges, T = 6, or mid-edge bending, 7) or rods with bending
 * (edges and rod bending, 8): per incidence the group's kind picks one of the two (passes.h
 * pass_incidence_corner), so the other kinds are not compiled in.  The generic kernel serving
 * these was 102-106 registers with a 384 B stack (results/registers-29.md).  SPLIT and MASS;
 * BLOCK and DIAG run the generic kernel (as for triangles alone). */
template <int P, int S, int T>
__global__ void __launch_bounds__(NT) k_gs_color_kinds(const __grid_constant__ dview d, int begin, int count, int ls, float omega, gs_acc *acc)
{
    gs_color<P, S, gs_fixed_of(T)>(d, begin, count, ls, omega, acc);
}

/* The line searches of one colour, after its direction kernel (any preconditioner: the
 * direction is in gsd); T as gs_fixed (gs_fixed_of; 4 and 5 are k_gs_search_tet_model's). */
template <int T>
__global__ void __launch_bounds__(NT) k_gs_search(const __grid_constant__ dview d, int begin, int count, float omega, gs_acc *acc)
{
    gs_search<gs_fixed_of(T)>(d, begin, count, omega, acc);
}
/* [gs_fixed] */
static const gs_search_kernel_p k_gs_search_table[9] = {NULL /* the staged search: cuda_gs_sweep */, k_gs_search<1>, k_gs_search<2>, k_gs_search<3>,
                                                        k_gs_search_tet_model<SIPD_MAT_NEOHOOKEAN>,
                                                        k_gs_search_tet_model<SIPD_MAT_STVK>,
                                                        k_gs_search<6>, k_gs_search<7>, k_gs_search<8>};

/* ---- the staged Gauss–Seidel sweep (passes.h pass_gs_staged_*; cuda_gs_sweep) --------------
 * For models none of the one-kernel classes above fits: SIPD's direction and, for every
 * preconditioner, the line search in several kernels per colour, each of few registers (the one
 * generic kernel over every kind and model took 102-106 registers and 384 B of stack, its line
 * search 97).  Per colour: the corners of the colour's incidences, one kernel per class of
 * incidence present (k_gss_corner; corotational/ARAP tets after k_gss_polar, their rotations),
 * each into the incidence's slot (SIPD_GS_SLOT floats); the sums and the 3x3 solve per vertex
 * (k_gss_direction); with a line search, per trial α = ω/2^h: the incidences' energies at the
 * vertex's trial point (k_gss_energy, k_gss_polar), then the sum and the test (k_gss_accept), until
 * no vertex of the colour is still searching (the host reads the count: one sync per trial).  The
 * same sums in the same order as the one-kernel sweep. */
/* The classes of incidence: the element's kind and, where the kind has one, its material's model
 * (corotational serves ARAP: the same arithmetic, the material's λ = 0); gss_fixed: its `fixed`. */
enum { GSS_TET_SNH, GSS_TET_NH, GSS_TET_COROT, GSS_TET_STVK, GSS_TRI_SNH, GSS_TRI_NH, GSS_TRI_COROT, GSS_TRI_STVK,
       GSS_EDGE, GSS_HINGE, GSS_MIDEDGE, GSS_ROD_BEND, GSS_NCLASS };
__host__ __device__ constexpr int gss_fixed(int C)
{
    return C == GSS_TET_SNH     ? SIPD_FIXED_TET_SNH
         : C == GSS_TET_NH    ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, SIPD_MAT_NEOHOOKEAN)
         : C == GSS_TET_COROT ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, SIPD_MAT_COROTATIONAL)
         : C == GSS_TET_STVK  ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TET, SIPD_MAT_STVK)
         : C == GSS_TRI_SNH   ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TRI, SIPD_MAT_STABLE_NEOHOOKEAN)
         : C == GSS_TRI_NH    ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TRI, SIPD_MAT_NEOHOOKEAN)
         : C == GSS_TRI_COROT ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TRI, SIPD_MAT_COROTATIONAL)
         : C == GSS_TRI_STVK  ? SIPD_FIXED_KIND_MODEL(SIPD_KIND_TRI, SIPD_MAT_STVK)
         : C == GSS_EDGE      ? SIPD_FIXED_KIND(SIPD_KIND_EDGE)
         : C == GSS_HINGE     ? SIPD_FIXED_KIND(SIPD_KIND_HINGE)
         : C == GSS_MIDEDGE   ? SIPD_FIXED_KIND(SIPD_KIND_MIDEDGE)
                              : SIPD_FIXED_KIND(SIPD_KIND_ROD_BEND);
}

/* This thread's vertex of the colour (begin .. begin + count − 1 of color_verts): its colour
 * position *j and vertex *a; 0 past the colour's end.  The k_gss_* kernels' prologue. */
__device__ static __forceinline__ int gss_vertex(const dview &d, int begin, int count, int *a, size_t *j)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return 0;
    *a = d.color_verts[begin + i];
    *j = (size_t)begin + i;
    return 1;
}

/* Whether colour position j (vertex a) takes part: free and, in a line search after its first
 * trial (h > 0), still searching. */
__device__ static __forceinline__ int gss_active(const dview &d, int a, size_t j, int h, const int *pending)
{
    return !d.v.fixed[a] && (h <= 0 || pending[j]);
}

/* Vertex a's trial point y_a + α Δ_a (Δ from gsd). */
__device__ static __forceinline__ vec3 gss_trial(const dview &d, int a, size_t j, float alpha)
{
    const size_t nv = (size_t)d.v.nv;
    return v3_axpy(alpha, v3(d.gsd[j], d.gsd[nv + j], d.gsd[2 * nv + j]), view_ld(d.v.y, a));
}

/* The rotations of the corotational/ARAP tets at the colour's incidences (kinds/tet.h
 * kind_tet_polar_at) into their slots: at y for the direction (h < 0), else with the vertex at
 * its trial point for α. */
__global__ void __launch_bounds__(NT) k_gss_polar(const __grid_constant__ dview d, int begin, int count,
                                                  const unsigned char *cls, float *slots, int h, float alpha,
                                                  const int *pending)
{
    int a;
    size_t j;
    if (gss_vertex(d, begin, count, &a, &j)) {
        if (gss_active(d, a, j, h, pending)) {
            const vec3 p = h < 0 ? v3(0, 0, 0) : gss_trial(d, a, j, alpha);
            for (int k = d.v.inc_off[a]; k < d.v.inc_off[a + 1]; k++)
                if (cls[k] == GSS_TET_COROT)
                    kind_tet_polar_at(&d.v, &d.v.grp[d.v.inc_group[k]], d.v.inc_elem[k], h < 0 ? -1 : d.v.inc_corner[k],
                                      p, slots + SIPD_GS_SLOT * (size_t)k);
        }
    }
}

/* The corners of class C at the colour's incidences, into their slots (SIPD's split S). */
template <int S, int C>
__global__ void __launch_bounds__(NT) k_gss_corner(const __grid_constant__ dview d, int begin, int count,
                                                   const unsigned char *cls, float *slots)
{
    int a;
    size_t j;
    if (gss_vertex(d, begin, count, &a, &j)) {
        if (!d.v.fixed[a])
            for (int k = d.v.inc_off[a]; k < d.v.inc_off[a + 1]; k++) {
                float *o = slots + SIPD_GS_SLOT * (size_t)k;
                if (cls[k] != C)
                    continue;
                if (C == GSS_TET_COROT) {   /* its rotation from k_gss_polar */
                    const sipd_group_view *G = &d.v.grp[d.v.inc_group[k]];
                    const int e = d.v.inc_elem[k];
                    const mat3 R = polar_quat_to_rot(o[0], o[1], o[2], o[3]);
                    sipd_material m = d.v.mats[G->mat[e]];
                    sym3 D = s3_diag(0);
                    sipd_real E, sc;
                    vec3 g;
                    m.model = SIPD_MAT_COROTATIONAL;
                    g = kind_tet_corner_corot(&d.v, &m, S, G, e, d.v.inc_corner[k], d.v.inc_w[k], R, &D, &E, &sc);
                    pass_gs_slot_store(o, g, D, E, sc);
                } else {
                    pass_gs_slot_corner(&d.v, gss_fixed(C), S, k, o);
                }
            }
    }
}

/* The directions of the colour's vertices from the slots (pass_gs_staged_direction): into gsd
 * for the line search (ls), else the step α = ω taken. */
__global__ void __launch_bounds__(NT) k_gss_direction(const __grid_constant__ dview d, int begin, int count, int ls,
                                                      float omega, const float *slots, gs_acc *acc)
{
    sipd_gs_tally t = {0, 0, 0, 0, 0, 0, 0};
    int a;
    size_t j;
    if (gss_vertex(d, begin, count, &a, &j)) {
        if (!d.v.fixed[a]) {
            const sipd_gs_dir s = pass_gs_staged_direction(&d.v, a, slots, &t);
            if (ls) {
                const size_t nv = (size_t)d.v.nv;
                d.gsd[j] = s.d.v[0];
                d.gsd[nv + j] = s.d.v[1];
                d.gsd[2 * nv + j] = s.d.v[2];
                d.gsd[3 * nv + j] = s.E0;
                d.gsd[4 * nv + j] = s.gd;
                d.gsd[5 * nv + j] = s.scale;
            } else {
                view_st(d.v.y, a, v3_axpy(omega, s.d, view_ld(d.v.y, a)));
            }
        }
    }
    gs_tally_add<1>(t, acc);
}

/* The energies of class C at the colour's incidences with the vertex at its trial point for α
 * (trial h), into the slots' energy entry. */
template <int C>
__global__ void __launch_bounds__(NT) k_gss_energy(const __grid_constant__ dview d, int begin, int count,
                                                   const unsigned char *cls, float *slots, int h, float alpha,
                                                   const int *pending)
{
    int a;
    size_t j;
    if (gss_vertex(d, begin, count, &a, &j)) {
        if (gss_active(d, a, j, h, pending)) {
            const vec3 p = gss_trial(d, a, j, alpha);
            for (int k = d.v.inc_off[a]; k < d.v.inc_off[a + 1]; k++) {
                float *o = slots + SIPD_GS_SLOT * (size_t)k;
                if (cls[k] != C)
                    continue;
                if (C == GSS_TET_COROT) {   /* its rotation at this trial from k_gss_polar */
                    const sipd_group_view *G = &d.v.grp[d.v.inc_group[k]];
                    const int e = d.v.inc_elem[k];
                    sipd_material m = d.v.mats[G->mat[e]];
                    m.model = SIPD_MAT_COROTATIONAL;
                    o[9] = kind_tet_energy_corot(&d.v, &m, G, e, d.v.inc_corner[k], p,
                                                 polar_quat_to_rot(o[0], o[1], o[2], o[3]));
                } else {
                    o[9] = pass_element_energy_fixed(&d.v, gss_fixed(C), d.v.inc_group[k], d.v.inc_elem[k], NULL, 0,
                                                     d.v.inc_corner[k], p);
                }
            }
        }
    }
}

/* Trial h of the colour's line searches (pass_gs_search_fixed's loop body): the local energy at
 * the trial point from the slots, accepted (the vertex moves there) or halved; after the last
 * trial (last) the step is rejected (the vertex stays).  Counts the vertices still searching. */
__global__ void __launch_bounds__(NT) k_gss_accept(const __grid_constant__ dview d, int begin, int count,
                                                   const float *slots, int h, float alpha, int last, int *pending,
                                                   gs_acc *acc)
{
    sipd_gs_tally t = {0, 0, 0, 0, 0, 0, 0};
    int still = 0;
    int a;
    size_t j;
    if (gss_vertex(d, begin, count, &a, &j)) {
        const size_t nv = (size_t)d.v.nv;
        if (gss_active(d, a, j, h, pending)) {
            const vec3 p = gss_trial(d, a, j, alpha);
            const sipd_real E1 = pass_gs_staged_energy(&d.v, a, p, slots);
            if (local_ls_accept(E1, d.gsd[3 * nv + j], alpha, d.gsd[4 * nv + j], d.gsd[5 * nv + j])) {
                view_st(d.v.y, a, p);
                pending[j] = 0;
            } else {
                t.backtracks++;
                if (last)
                    t.rejected++;
                still = !last;
                pending[j] = still;
            }
        }
    }
    gs_tally_add<0>(t, acc);
    for (int off = 16; off > 0; off >>= 1) still += __shfl_down_sync(0xffffffffu, still, off);
    if ((threadIdx.x & 31) == 0 && still)
        atomicAdd(&acc->pending, still);
}

typedef void (*gss_corner_p)(dview, int, int, const unsigned char *, float *);
typedef void (*gss_energy_p)(dview, int, int, const unsigned char *, float *, int, float, const int *);
/* [class][split]: the kinds without a pairwise K ignore S (one instance) */
#define GSS_SPLITS(C)                                                                          \
    {k_gss_corner<SIPD_SPLIT_EXPANDED, C>, k_gss_corner<SIPD_SPLIT_SIGN, C>, k_gss_corner<SIPD_SPLIT_NONE, C>, \
     k_gss_corner<SIPD_SPLIT_CLAMP, C>, k_gss_corner<SIPD_SPLIT_ABS, C>}
#define GSS_ANY(C)                                                                             \
    {k_gss_corner<SIPD_SPLIT_EXPANDED, C>, k_gss_corner<SIPD_SPLIT_EXPANDED, C>, k_gss_corner<SIPD_SPLIT_EXPANDED, C>, \
     k_gss_corner<SIPD_SPLIT_EXPANDED, C>, k_gss_corner<SIPD_SPLIT_EXPANDED, C>}
static const gss_corner_p k_gss_corner_table[GSS_NCLASS][5] = {
    GSS_SPLITS(GSS_TET_SNH), GSS_SPLITS(GSS_TET_NH),  GSS_SPLITS(GSS_TET_COROT), GSS_SPLITS(GSS_TET_STVK),
    GSS_SPLITS(GSS_TRI_SNH), GSS_SPLITS(GSS_TRI_NH),  GSS_SPLITS(GSS_TRI_COROT), GSS_SPLITS(GSS_TRI_STVK),
    GSS_SPLITS(GSS_EDGE),    GSS_ANY(GSS_HINGE),      GSS_ANY(GSS_MIDEDGE),      GSS_ANY(GSS_ROD_BEND)};
#undef GSS_SPLITS
#undef GSS_ANY
static const gss_energy_p k_gss_energy_table[GSS_NCLASS] = {
    k_gss_energy<GSS_TET_SNH>, k_gss_energy<GSS_TET_NH>, k_gss_energy<GSS_TET_COROT>, k_gss_energy<GSS_TET_STVK>,
    k_gss_energy<GSS_TRI_SNH>, k_gss_energy<GSS_TRI_NH>, k_gss_energy<GSS_TRI_COROT>, k_gss_energy<GSS_TRI_STVK>,
    k_gss_energy<GSS_EDGE>,    k_gss_energy<GSS_HINGE>,  k_gss_energy<GSS_MIDEDGE>,   k_gss_energy<GSS_ROD_BEND>};

/* The (P, S) instances a backend uses (S matters only for P = SPLIT). */
#define SIPD_VARIANTS(K, T)                                                                   \
    static const T K##_table = {                                                              \
        {K<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED>, K<SIPD_PRECOND_SPLIT, SIPD_SPLIT_SIGN>,   \
         K<SIPD_PRECOND_SPLIT, SIPD_SPLIT_NONE>, K<SIPD_PRECOND_SPLIT, SIPD_SPLIT_CLAMP>,      \
         K<SIPD_PRECOND_SPLIT, SIPD_SPLIT_ABS>},                                               \
        K<SIPD_PRECOND_BLOCK, SIPD_SPLIT_EXPANDED>, K<SIPD_PRECOND_DIAG, SIPD_SPLIT_EXPANDED>, \
        K<SIPD_PRECOND_MASS, SIPD_SPLIT_EXPANDED>}
typedef struct { element_kernel_p split[5], block, diag, mass; } k_element_table_t;
typedef struct { gs_kernel_p split[5], block, diag, mass; } k_gs_color_table_t;
/* the generic element kernel for BLOCK, DIAG and MASS; SIPD's (SPLIT) are per kind
   (k_element_kind, k_element_tet_model, k_element_tet_snh: element_kernel), so none here */
static const k_element_table_t k_element_table = {
    {NULL, NULL, NULL, NULL, NULL}, k_element<SIPD_PRECOND_BLOCK, SIPD_SPLIT_EXPANDED>,
    k_element<SIPD_PRECOND_DIAG, SIPD_SPLIT_EXPANDED>, k_element<SIPD_PRECOND_MASS, SIPD_SPLIT_EXPANDED>};
/* the element Hessians at y (passes.h pass_element with SIPD_PRECOND_HESSIAN) for `assemble` */
static const element_kernel_p k_element_hessian = k_element<SIPD_PRECOND_HESSIAN, SIPD_SPLIT_EXPANDED>;
/* the generic direction kernel: not for SPLIT (the staged sweep: cuda_gs_sweep) */
static const k_gs_color_table_t k_gs_color_table = {
    {NULL, NULL, NULL, NULL, NULL}, k_gs_color<SIPD_PRECOND_BLOCK, SIPD_SPLIT_EXPANDED>,
    k_gs_color<SIPD_PRECOND_DIAG, SIPD_SPLIT_EXPANDED>, k_gs_color<SIPD_PRECOND_MASS, SIPD_SPLIT_EXPANDED>};
SIPD_VARIANTS(k_gs_color_tet_snh, k_gs_color_table_t);
SIPD_VARIANTS(k_gs_color_edge, k_gs_color_table_t);
/* tets of one other model: not for BLOCK and DIAG (kind_tet_corner_model forms no vertex block) */
#define SIPD_GS_TET_MODEL(M)                                                                   \
    {{k_gs_color_tet_model<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, M>,                         \
      k_gs_color_tet_model<SIPD_PRECOND_SPLIT, SIPD_SPLIT_SIGN, M>,                             \
      k_gs_color_tet_model<SIPD_PRECOND_SPLIT, SIPD_SPLIT_NONE, M>,                             \
      k_gs_color_tet_model<SIPD_PRECOND_SPLIT, SIPD_SPLIT_CLAMP, M>,                            \
      k_gs_color_tet_model<SIPD_PRECOND_SPLIT, SIPD_SPLIT_ABS, M>},                             \
     k_gs_color<SIPD_PRECOND_BLOCK, SIPD_SPLIT_EXPANDED>, k_gs_color<SIPD_PRECOND_DIAG, SIPD_SPLIT_EXPANDED>, \
     k_gs_color_tet_model<SIPD_PRECOND_MASS, SIPD_SPLIT_EXPANDED, M>}
static const k_gs_color_table_t k_gs_color_tet_nh_table = SIPD_GS_TET_MODEL(SIPD_MAT_NEOHOOKEAN);
static const k_gs_color_table_t k_gs_color_tet_stvk_table = SIPD_GS_TET_MODEL(SIPD_MAT_STVK);
#undef SIPD_GS_TET_MODEL
/* the pairs of kinds (gs_fixed 6, 7, 8): not for BLOCK and DIAG either */
#define SIPD_GS_KINDS(T)                                                                       \
    {{k_gs_color_kinds<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, T>,                             \
      k_gs_color_kinds<SIPD_PRECOND_SPLIT, SIPD_SPLIT_SIGN, T>,                                 \
      k_gs_color_kinds<SIPD_PRECOND_SPLIT, SIPD_SPLIT_NONE, T>,                                 \
      k_gs_color_kinds<SIPD_PRECOND_SPLIT, SIPD_SPLIT_CLAMP, T>,                                \
      k_gs_color_kinds<SIPD_PRECOND_SPLIT, SIPD_SPLIT_ABS, T>},                                 \
     k_gs_color<SIPD_PRECOND_BLOCK, SIPD_SPLIT_EXPANDED>, k_gs_color<SIPD_PRECOND_DIAG, SIPD_SPLIT_EXPANDED>, \
     k_gs_color_kinds<SIPD_PRECOND_MASS, SIPD_SPLIT_EXPANDED, T>}
static const k_gs_color_table_t k_gs_color_kinds_table[3] = {SIPD_GS_KINDS(6), SIPD_GS_KINDS(7), SIPD_GS_KINDS(8)};
#undef SIPD_GS_KINDS
/* triangles: not for BLOCK and DIAG (VBD), where the specialised kernel spills (20 B: the generic
   one does not) */
static const k_gs_color_table_t k_gs_color_tri_snh_table = {
    {k_gs_color_tri_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED>, k_gs_color_tri_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_SIGN>,
     k_gs_color_tri_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_NONE>, k_gs_color_tri_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_CLAMP>,
     k_gs_color_tri_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_ABS>},
    k_gs_color<SIPD_PRECOND_BLOCK, SIPD_SPLIT_EXPANDED>, k_gs_color<SIPD_PRECOND_DIAG, SIPD_SPLIT_EXPANDED>,
    k_gs_color_tri_snh<SIPD_PRECOND_MASS, SIPD_SPLIT_EXPANDED>};

SIPD_VARIANTS(k_element_tet_snh, k_element_table_t);
/* SIPD's, for a group of mixed models (testing each tet's: element_pass) */
static const element_kernel_p k_element_tet_snh_only[5] = {
    k_element_tet_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, 1>, k_element_tet_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_SIGN, 1>,
    k_element_tet_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_NONE, 1>, k_element_tet_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_CLAMP, 1>,
    k_element_tet_snh<SIPD_PRECOND_SPLIT, SIPD_SPLIT_ABS, 1>};
static const element_kernel_p k_element_tet_snh_hessian = k_element_tet_snh<SIPD_PRECOND_HESSIAN, SIPD_SPLIT_EXPANDED>;

#define PICK(table, pc, sp)                                                                   \
    ((pc) == SIPD_PRECOND_SPLIT  ? (table).split[sp]                                          \
     : (pc) == SIPD_PRECOND_BLOCK ? (table).block                                             \
     : (pc) == SIPD_PRECOND_DIAG  ? (table).diag                                              \
                                  : (table).mass)

/* k_vertex per (preconditioner, contact): [contact][SPLIT, BLOCK, DIAG, MASS] */
static const vertex_kernel_p k_vertex_table[2][4] = {
    {k_vertex<SIPD_PRECOND_SPLIT, 0>, k_vertex<SIPD_PRECOND_BLOCK, 0>, k_vertex<SIPD_PRECOND_DIAG, 0>,
     k_vertex<SIPD_PRECOND_MASS, 0>},
    {k_vertex<SIPD_PRECOND_SPLIT, 1>, k_vertex<SIPD_PRECOND_BLOCK, 1>, k_vertex<SIPD_PRECOND_DIAG, 1>,
     k_vertex<SIPD_PRECOND_MASS, 1>}};

/* SIPD's fused direction per contact and split, [C][S] (none for clamp and abs: k_vertex_fused) */
static const vertex_kernel_p k_vertex_fused_table[2][5] = {
    {k_vertex_fused<SIPD_SPLIT_EXPANDED, 0>, k_vertex_fused<SIPD_SPLIT_SIGN, 0>, k_vertex_fused<SIPD_SPLIT_NONE, 0>, NULL, NULL},
    {k_vertex_fused<SIPD_SPLIT_EXPANDED, 1>, k_vertex_fused<SIPD_SPLIT_SIGN, 1>, k_vertex_fused<SIPD_SPLIT_NONE, 1>, NULL, NULL}};

/* the vertex pass without a local solve (g only; not with pairs: create_check) */
static const vertex_kernel_p k_vertex_g_only[2] = {k_vertex<SIPD_PRECOND_HESSIAN, 0>, k_vertex<SIPD_PRECOND_HESSIAN, 1>};

/* The element kernel for group g: the tet / stable-neo-Hookean specialisation (k_element_tet_snh)
 * when the group is tets and every material of its elements is stable neo-Hookean; for SIPD
 * (SPLIT) a tet group of neo-Hookean or StVK materials only runs k_element_tet_model, any other
 * group k_element_kind (its kind fixed); else the generic kernel chosen in create (hessian: the
 * element Hessians for `assemble`). */
static int model_all_snh(sipd_backend *b)
{
    if (b->all_snh == 0) {
        const host_material_f64 *hm = host_materials(b->m);
        int i;
        b->all_snh = 1;
        for (i = 0; i < b->m->nmat; i++)
            if (hm[i].model != SIPD_MAT_STABLE_NEOHOOKEAN)
                b->all_snh = -1;
    }
    return b->all_snh > 0;
}

/* The fused direction kernel (k_vertex_fused) when it serves the model: SIPD's split (expanded,
 * sign or none), every non-empty group tets, every material stable neo-Hookean,
 * SIPD_CUDA_GATHER unset; else NULL (the element pass, then k_vertex's gather). */
static vertex_kernel_p fused_kernel(sipd_backend *b)
{
    if (b->fused == 0) {
        int g;
        b->fused = b->precond == SIPD_PRECOND_SPLIT && b->kfused && !b->gather && model_all_snh(b) ? 1 : -1;
        for (g = 0; g < b->d.v.ngroups; g++)
            if (b->d.v.grp[g].ne > 0 && b->d.v.grp[g].kind != SIPD_KIND_TET)
                b->fused = -1;
    }
    return b->fused > 0 ? b->kfused : NULL;
}

/* SIPD's element kernels per kind (k_element_kind): [kind][split] */
#define SIPD_SPLITS_OF(K)                                                                     \
    {k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, K>, k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_SIGN, K>, \
     k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_NONE, K>, k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_CLAMP, K>,    \
     k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_ABS, K>}
#define SIPD_SPLIT_ANY(K)                                                                     \
    {k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, K>, k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, K>, \
     k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, K>, k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, K>, \
     k_element_kind<SIPD_PRECOND_SPLIT, SIPD_SPLIT_EXPANDED, K>}
static const element_kernel_p k_element_kind_table[SIPD_KIND_COUNT][5] = {
    {NULL, NULL, NULL, NULL, NULL} /* tets: per model, element_pass */, SIPD_SPLITS_OF(SIPD_KIND_EDGE), SIPD_SPLIT_ANY(SIPD_KIND_ROD_BEND),
    SIPD_SPLITS_OF(SIPD_KIND_TRI), SIPD_SPLIT_ANY(SIPD_KIND_HINGE), SIPD_SPLIT_ANY(SIPD_KIND_MIDEDGE)};
#undef SIPD_SPLITS_OF
#undef SIPD_SPLIT_ANY

#define SIPD_TET_MODEL_SPLITS(M, O)                                                           \
    {k_element_tet_model<SIPD_SPLIT_EXPANDED, M, O>, k_element_tet_model<SIPD_SPLIT_SIGN, M, O>, \
     k_element_tet_model<SIPD_SPLIT_NONE, M, O>, k_element_tet_model<SIPD_SPLIT_CLAMP, M, O>,    \
     k_element_tet_model<SIPD_SPLIT_ABS, M, O>}
#define SIPD_TET_MODELS(O)                                                                    \
    {{NULL, NULL, NULL, NULL, NULL}, SIPD_TET_MODEL_SPLITS(SIPD_MAT_NEOHOOKEAN, O),            \
     SIPD_TET_MODEL_SPLITS(SIPD_MAT_COROTATIONAL, O), SIPD_TET_MODEL_SPLITS(SIPD_MAT_COROTATIONAL, O), \
     SIPD_TET_MODEL_SPLITS(SIPD_MAT_STVK, O)}
/* [only][model][split]; stable neo-Hookean is k_element_tet_snh's; corotational serves ARAP too
 * (after k_element_tet_polar: element_pass) */
static const element_kernel_p k_element_tet_model_table[2][SIPD_MAT_NMODELS][5] = {SIPD_TET_MODELS(0),
                                                                                  SIPD_TET_MODELS(1)};
static const element_kernel_p k_element_tet_polar_table[2] = {k_element_tet_polar<0>, k_element_tet_polar<1>};
#undef SIPD_TET_MODELS
#undef SIPD_TET_MODEL_SPLITS

/* The material models of group g's elements, a bit per model (looked at once, grp_models). */
static unsigned group_models(sipd_backend *b, int g)
{
    if (b->grp_models[g] == 0) {
        const host_material_f64 *hm = host_materials(b->m);
        const sipd_elem_group *G = &b->m->groups[g];
        unsigned mask = 0;
        int e;
        for (e = 0; e < G->ne; e++) mask |= 1u << hm[G->mat[e]].model;
        b->grp_models[g] = mask;
    }
    return b->grp_models[g];
}

/* The one model of group g's materials, or -1 when they mix models. */
static int group_model(sipd_backend *b, int g)
{
    const unsigned mask = group_models(b, g);
    int m;
    for (m = 0; m < SIPD_MAT_NMODELS; m++)
        if (mask == 1u << m)
            return m;
    return -1;
}

/* The element kernel of group g but SIPD's tets (element_pass): the tet kernel of the group's one
 * model when it has one and the preconditioner is not SPLIT (stable neo-Hookean: k_element_tet_snh),
 * SIPD's kernel of the kind for the other kinds, else the generic kernel chosen in create (hessian:
 * the element Hessians for `assemble`). */
static element_kernel_p element_kernel(sipd_backend *b, int g, int hessian)
{
    const int kind = b->d.v.grp[g].kind;   /* a valid kind (model_build) */
    if (kind == SIPD_KIND_TET && (model_all_snh(b) || group_model(b, g) == SIPD_MAT_STABLE_NEOHOOKEAN))
        return hessian || b->precond == SIPD_PRECOND_HESSIAN ? k_element_tet_snh_hessian
                                                             : PICK(k_element_tet_snh_table, b->precond, b->split);
    if (!hessian && b->precond == SIPD_PRECOND_SPLIT && kind != SIPD_KIND_TET)
        return k_element_kind_table[kind][b->split];
    return hessian ? k_element_hessian : b->kelem;
}

/* The element pass over group g.  SIPD's (SPLIT) over tets: one kernel per material model of the
 * group's tets, the model a compile-time constant in each (k_element_tet_snh, k_element_tet_model;
 * corotational and ARAP, one model here, after k_element_tet_polar), each skipping the tets of the
 * others when the group mixes models (only = 1; one group holds every tet of the model, whatever
 * body it came from).  No kernel with the model a run-time switch: that one took 75-79 registers
 * (docs/gpu.md#registers).  The others: element_kernel. */
static int element_pass(sipd_backend *b, int g)
{
    const int grid = grid_for(b, b->d.v.grp[g].ne);
    if (b->d.v.grp[g].kind == SIPD_KIND_TET && b->precond == SIPD_PRECOND_SPLIT) {
        const unsigned polar = 1u << SIPD_MAT_ARAP | 1u << SIPD_MAT_COROTATIONAL;
        unsigned mask = model_all_snh(b) ? 1u << SIPD_MAT_STABLE_NEOHOOKEAN : group_models(b, g);
        int m, only;
        if (mask & polar)   /* one kernel for both */
            mask = (mask & ~polar) | 1u << SIPD_MAT_COROTATIONAL;
        only = (mask & (mask - 1)) != 0;
        for (m = 0; m < SIPD_MAT_NMODELS; m++) {
            if (!(mask & 1u << m))
                continue;
            if (m == SIPD_MAT_COROTATIONAL)
                KLAUNCH(SIPD_PHASE_ELEMENT, "direction (element pass: polar rotations)", k_element_tet_polar_table[only],
                        grid, b->d, g);
            element_kernel_p k = m != SIPD_MAT_STABLE_NEOHOOKEAN ? k_element_tet_model_table[only][m][b->split]
                               : only                            ? k_element_tet_snh_only[b->split]
                                                                 : k_element_tet_snh_table.split[b->split];
            KLAUNCH(SIPD_PHASE_ELEMENT, "direction (element pass)", k, grid, b->d, g);
        }
        return SIPD_OK;
    }
    KLAUNCH(SIPD_PHASE_ELEMENT, "direction (element pass)", element_kernel(b, g, 0), grid, b->d, g);
    return SIPD_OK;
}

/* The Gauss–Seidel kernels a model's elements allow (a vertex gathers over the incidences of every
 * kind, so a kind can be fixed only when every non-empty group is of that kind, a pair when every
 * one is of the pair's): 1 tets of stable neo-Hookean materials (k_gs_color_tet_snh), 2 edges
 * (k_gs_color_edge), 3 triangles of stable neo-Hookean materials (k_gs_color_tri_snh), 4 / 5 tets
 * of neo-Hookean / StVK materials only (k_gs_color_tet_model), 6 / 7 triangles of stable
 * neo-Hookean materials with hinges / mid-edge bending, 8 edges with rod bending
 * (k_gs_color_kinds), 0 other mixes: the staged sweep (gss_colour; BLOCK, DIAG and MASS its line
 * search after the generic k_gs_color). */
static int gs_fixed(sipd_backend *b)
{
    int g, kind = -1, kinds = 0;
    if (b->gs_generic)
        return 0;
    for (g = 0; g < b->d.v.ngroups; g++)
        if (b->d.v.grp[g].ne > 0)
            kinds |= 1 << b->d.v.grp[g].kind;
    if (kinds == (1 << SIPD_KIND_EDGE | 1 << SIPD_KIND_ROD_BEND))
        return 8;
    if (kinds == (1 << SIPD_KIND_TRI | 1 << SIPD_KIND_HINGE))
        return model_all_snh(b) ? 6 : 0;
    if (kinds == (1 << SIPD_KIND_TRI | 1 << SIPD_KIND_MIDEDGE))
        return model_all_snh(b) ? 7 : 0;
    for (g = 0; g < SIPD_KIND_COUNT; g++)
        if (kinds & 1 << g) {
            if (kind >= 0)
                return 0;   /* another mix */
            kind = g;
        }
    if (kind == SIPD_KIND_EDGE)
        return 2;
    if (kind == SIPD_KIND_TET && !model_all_snh(b)) {   /* one model: neo-Hookean 4, StVK 5 */
        const host_material_f64 *hm = host_materials(b->m);
        int i, m = b->m->nmat > 0 ? hm[0].model : -1;
        for (i = 1; i < b->m->nmat; i++)
            if (hm[i].model != m)
                return 0;
        return m == SIPD_MAT_NEOHOOKEAN ? 4 : m == SIPD_MAT_STVK ? 5 : 0;
    }
    if (!model_all_snh(b))
        return 0;
    return kind == SIPD_KIND_TET || kind < 0 ? 1 : kind == SIPD_KIND_TRI ? 3 : 0;
}
static gs_kernel_p gs_kernel(sipd_backend *b)
{
    const int T = gs_fixed(b);
    switch (T) {
    case 1: return PICK(k_gs_color_tet_snh_table, b->precond, b->split);
    case 2: return PICK(k_gs_color_edge_table, b->precond, b->split);
    case 3: return PICK(k_gs_color_tri_snh_table, b->precond, b->split);   /* BLOCK, DIAG: generic */
    case 4: return PICK(k_gs_color_tet_nh_table, b->precond, b->split);    /* BLOCK, DIAG: generic */
    case 5: return PICK(k_gs_color_tet_stvk_table, b->precond, b->split);  /* BLOCK, DIAG: generic */
    case 6: case 7: case 8:                                                 /* BLOCK, DIAG: generic */
        return PICK(k_gs_color_kinds_table[T - 6], b->precond, b->split);
    default: return b->kgs;
    }
}
/* its line-search kernel (k_gs_search) */
static gs_search_kernel_p gs_search_kernel(sipd_backend *b)
{
    return k_gs_search_table[gs_fixed(b)];
}
/* backend_cuda.h: which Gauss–Seidel kernels the backend runs (gs_fixed), for the tests */
extern "C" int sipd_cuda_gs_class(sipd_backend *b)
{
    return gs_fixed(b);
}

/* v = (y − x)/h (0 when quasi-static), x = y. */
extern "C" __global__ void __launch_bounds__(NT) k_end_step(const __grid_constant__ dview d, float h)
{
    GRID_STRIDE(i, 3 * d.v.nv) pass_end_component(&d.v, (size_t)i, h);
}

/* The friction anchors at the step end, before k_end_step moves x (passes.h pass_end_anchor,
 * pass_pair_anchor_next): the ground's per vertex, the pairs' in place (each reads its own). */
extern "C" __global__ void __launch_bounds__(NT) k_end_anchor(const __grid_constant__ dview d)
{
    GRID_STRIDE(a, d.v.nv) pass_end_anchor(&d.v, a);
}

extern "C" __global__ void __launch_bounds__(NT) k_pair_anchor(const __grid_constant__ dview d)
{
    GRID_STRIDE(p, d.v.npr) view_st(d.v.pr_o, p, pass_pair_anchor_next(&d.v, p));
}

/* The contact and friction force per vertex at y (output.fields, backend.h contact_force). */
extern "C" __global__ void __launch_bounds__(NT) k_contact_force(const __grid_constant__ dview d, float *out)
{
    GRID_STRIDE(a, d.v.nv) view_st(out, a, pass_contact_force(&d.v, a));
}

/* The "do nothing" state of the step (backend.h, step_load; src/step_load.h). */
extern "C" __global__ void __launch_bounds__(NT) k_free_at_x(const __grid_constant__ dview d)
{
    GRID_STRIDE(i, 3 * d.v.nv) step_load_state(d.v.fixed, d.v.x, d.v.y, (size_t)i);
}

/* ---- host side ------------------------------------------------------------------------------ */
static void cuda_destroy(sipd_backend *b)
{
    int i;
    if (!b)
        return;
    for (i = 0; i < b->nalloc; i++) cudaFree(b->allocs[i]);
    for (i = 0; i < 9; i++) cudaFree(b->dpr[i]);
    cudaFree(b->dprD);
    free(b->prD_h);
    cudaFree((void *)b->hv.row_off);
    cudaFree((void *)b->hv.diag);
    cudaFree((void *)b->hv.elem_blk);
    cudaFree(b->hval);
    if (b->hval_h)
        cudaFreeHost(b->hval_h);
    sipd_cuda_broad_destroy(b->gb);
    collide_destroy(b->det);
    pair_data_free(&b->pd);
    free(b->hx);
    free(b->hy);
    free(b->h_v);
    free(b->h_f);
    free(b->gss_mask);
    if (b->red_h)
        cudaFreeHost(b->red_h);
    if (b->gacc_h)
        cudaFreeHost(b->gacc_h);
    if (b->hbuf)
        cudaFreeHost(b->hbuf);
    if (b->prof_ev) {
        for (i = 0; i < 2 * PROF_PAIRS; i++)
            if (b->prof_ev[i])
                cudaEventDestroy(b->prof_ev[i]);
        free(b->prof_ev);
    }
    free(b);
}

/* cudaMalloc tracked for destroy; a failure names the array and its size. */
static int dalloc(sipd_backend *b, void **p, size_t bytes, const char *what)
{
    cudaError_t e;
    *p = NULL;
    if (bytes == 0)
        return SIPD_OK;
    if (b->nalloc == (int)(sizeof b->allocs / sizeof b->allocs[0])) {
        sipd_error("cuda backend: create: too many device arrays (internal limit)");
        return SIPD_EFAIL;
    }
    e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        sipd_error("cuda backend: create: cudaMalloc of %.1f MiB for %s failed: %s", bytes / 1048576.0, what,
                   cudaGetErrorString(e));
        *p = NULL;
        return SIPD_EFAIL;
    }
    b->allocs[b->nalloc++] = *p;
    return SIPD_OK;
}

/* Upload n doubles as floats (through the pinned buffer when it is large enough). */
static int upload_f(sipd_backend *b, float *dst, const double *src, size_t n, const char *what)
{
    float *tmp = (float *)malloc(n * sizeof(float) + 1);
    size_t i;
    cudaError_t e;
    if (!tmp) {
        sipd_error("cuda backend: out of host memory converting %s", what);
        return SIPD_EFAIL;
    }
    for (i = 0; i < n; i++) tmp[i] = (float)src[i];
    e = cudaMemcpy(dst, tmp, n * sizeof(float), cudaMemcpyHostToDevice);
    free(tmp);
    if (e != cudaSuccess)
        return cu_fail(b, what, "cudaMemcpy", e);
    return SIPD_OK;
}

/* ---- cuda_create, step by step ----------------------------------------------------------------
 * Each step returns SIPD_OK or an error (cuda_create then destroys the half-made backend, which
 * frees whatever was allocated, and returns SIPD_EFAIL).  CK: a step that failed has said why;
 * CKC: a CUDA call, named in the message (cu_fail). */
#define CK(call)                                                                              \
    do {                                                                                      \
        if ((call) != SIPD_OK)                                                                \
            return SIPD_EFAIL;                                                                \
    } while (0)
#define CKC(call)                                                                             \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            cu_fail(b, "create", #call, e_);                                                  \
            return SIPD_EFAIL;                                                                \
        }                                                                                     \
    } while (0)

/* Before anything is allocated: a method this backend runs, a CUDA device, and materials laid out
 * as host_material_f64 expects. */
static int create_check(const sipd_model *m, const sipd_backend_params *p)
{
    int count = 0, i;
    cudaError_t e;
    /* Newton with pairs: `assemble` gives their couplings, but the g-only vertex pass
       (k_vertex_g_only) and the host's Newton over them were never compared with the CPU's */
    if (p->precond == SIPD_PRECOND_HESSIAN && p->pairs) {
        sipd_error("cuda backend: a direction solved over the assembled H with contact pairs runs on the CPU "
                   "backend only (use --device cpu)");
        return SIPD_EINPUT;
    }
    /* contact.ccd: the step filter (physics/ccd.h, collide_toi) is not on the device yet */
    if (p->ccd && (p->contact || p->pairs)) {
        sipd_error("cuda backend: contact.ccd (the step filter that keeps contact intersection-free) runs on the CPU "
                   "backend only: use --device cpu, or set contact.ccd = false for the discrete detection");
        return SIPD_EINPUT;
    }
    if (p->precond != SIPD_PRECOND_SPLIT && p->precond != SIPD_PRECOND_BLOCK && p->precond != SIPD_PRECOND_DIAG &&
        p->precond != SIPD_PRECOND_MASS && p->precond != SIPD_PRECOND_HESSIAN) {
        sipd_error("cuda backend: unknown preconditioner %d", p->precond);
        return SIPD_EINPUT;
    }
    e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        sipd_error("cuda backend: no CUDA device: %s", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return SIPD_EFAIL;
    }
    if ((i = host_materials_check(m)) >= 0) {
        sipd_error("cuda backend: material %d: unsupported model or unexpected sipd_material layout "
                   "(src/host_material.h host_material_f64 must mirror src/physics/material.h)", i);
        return SIPD_EFAIL;
    }
    return SIPD_OK;
}

/* The grid size for the device, and the element, Gauss–Seidel and vertex kernels of the method
 * (preconditioner and split); a binary built for another architecture fails here, with a hint,
 * not in the first step. */
static int create_kernels(sipd_backend *b, const sipd_backend_params *p)
{
    int dev = 0, nsm = 0;
    cudaError_t e;
    cudaFuncAttributes fa;
    CKC(cudaGetDevice(&dev));
    CKC(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
    b->grid_cap = (nsm > 0 ? nsm : 1) * BLOCKS_PER_SM;
    if (p->split < 0 || p->split > SIPD_SPLIT_ABS) {
        sipd_error("cuda backend: unknown split %d", p->split);
        return SIPD_EFAIL;
    }
    for (int g = 0; g < SIPD_KIND_COUNT; g++) b->grp_models[g] = 0;
    b->kelem = p->precond == SIPD_PRECOND_SPLIT ? k_element_tet_snh_table.split[p->split]
                                                : PICK(k_element_table, p->precond, p->split);
    b->kgs = PICK(k_gs_color_table, p->precond, p->split);
    if (p->precond == SIPD_PRECOND_HESSIAN)   /* g and the element Hessians (dy: the caller's) */
        b->kelem = k_element_hessian;
    b->kvert = p->precond == SIPD_PRECOND_HESSIAN ? k_vertex_g_only[p->contact != 0]
             : k_vertex_table[p->contact || p->pairs][p->precond == SIPD_PRECOND_SPLIT   ? 0
                                                     : p->precond == SIPD_PRECOND_BLOCK ? 1
                                                     : p->precond == SIPD_PRECOND_DIAG  ? 2
                                                                                        : 3];
    b->kfused = k_vertex_fused_table[p->contact || p->pairs][p->split];
    e = cudaFuncGetAttributes(&fa, b->kelem);
    if (e != cudaSuccess) {
        int maj = 0, min = 0;
        cudaDeviceGetAttribute(&maj, cudaDevAttrComputeCapabilityMajor, dev);
        cudaDeviceGetAttribute(&min, cudaDevAttrComputeCapabilityMinor, dev);
        sipd_error("cuda backend: create: the kernels cannot run on this device (compute capability %d.%d): %s; "
                   "rebuild with -DSIPD_CUDA_ARCH=%d%d",
                   maj, min, cudaGetErrorString(e), maj, min);
        return SIPD_EFAIL;
    }
    return SIPD_OK;
}

/* The state vectors (n3 floats each). */
static int create_state(sipd_backend *b, size_t n3, int adaptive_guess)
{
    dview *d = &b->d;
    CK(dalloc(b, (void **)&d->v.x, n3 * sizeof(float), "x"));
    CK(dalloc(b, (void **)&d->v.v, n3 * sizeof(float), "v"));
    CK(dalloc(b, (void **)&d->v.yt, n3 * sizeof(float), "y~"));
    CK(dalloc(b, (void **)&d->v.y, n3 * sizeof(float), "y"));
    CK(dalloc(b, (void **)&d->v.yp, n3 * sizeof(float), "y_prev"));
    CK(dalloc(b, (void **)&d->v.dy, n3 * sizeof(float), "dy"));
    CK(dalloc(b, (void **)&d->v.g, n3 * sizeof(float), "g"));
    CK(dalloc(b, (void **)&d->v.ys, n3 * sizeof(float), "y_snap"));
    CK(dalloc(b, (void **)&d->v.y0, n3 * sizeof(float), "y0"));
    CK(dalloc(b, (void **)&d->v.g0, n3 * sizeof(float), "g0"));
    if (adaptive_guess)
        CK(dalloc(b, (void **)&d->v.vp, n3 * sizeof(float), "v before the last step (adaptive guess)"));
    return SIPD_OK;
}

/* The model's element groups (src/kinds/kind.h) on the device: connectivity, rest data,
 * measures and materials uploaded; gradient, block and (params.assemble, SIPD_PRECOND_HESSIAN)
 * Hessian space per element.  *ninc = the number of incidences (corners of all elements). */
static int create_groups(sipd_backend *b, const sipd_model *m, const sipd_backend_params *p, size_t *ninc)
{
    dview *d = &b->d;
    size_t nblk;
    int i;
    for (i = 0; i < m->ngroups; i++) {
        const sipd_elem_group *G = &m->groups[i];
        sipd_group_view *W = &d->v.grp[i];
        size_t ne = (size_t)G->ne;
        view_group_init(W, G->kind, G->nc, G->ne);
        nblk = p->precond == SIPD_PRECOND_SPLIT ? (size_t)kind_block_size(G->kind, 0)
               : p->precond == SIPD_PRECOND_MASS || p->precond == SIPD_PRECOND_HESSIAN ? 0
                                                 : (size_t)kind_block_size(G->kind, 1);
        CK(dalloc(b, (void **)&W->v, ne * G->nc * sizeof(int), "element vertices"));
        CK(dalloc(b, (void **)&W->rest, ne * kind_rest_size(G->kind) * sizeof(float), "element rest data"));
        CK(dalloc(b, (void **)&W->vol, ne * sizeof(float), "element volumes"));
        CK(dalloc(b, (void **)&W->mat, ne * sizeof(int), "element materials"));
        CK(dalloc(b, (void **)&W->grad, ne * kind_grad_size(G->kind) * sizeof(float), "element gradients"));
        CK(dalloc(b, (void **)&W->blk, ne * nblk * sizeof(float), "element blocks"));
        W->hess = NULL;   /* the element Hessians for `assemble` */
        if (b->want_hessian)
            CK(dalloc(b, (void **)&W->hess, ne * kind_hessian_size(G->kind) * sizeof(float), "element Hessians"));
        if (ne > 0) {
            CKC(cudaMemcpy((void *)W->v, G->v, ne * G->nc * sizeof(int), cudaMemcpyHostToDevice));
            CK(upload_f(b, (float *)W->rest, G->rest, ne * kind_rest_size(G->kind), "create: element rest data"));
            CK(upload_f(b, (float *)W->vol, G->vol, ne, "create: element volumes"));
            CKC(cudaMemcpy((void *)W->mat, G->mat, ne * sizeof(int), cudaMemcpyHostToDevice));
        }
        *ninc += ne * G->nc;
    }
    return SIPD_OK;
}

/* Per-vertex, material, motion and incidence arrays (uploaded by create_upload), the reduction
 * partials and their pinned read-back, the contact-force output, the profile's events. */
static int create_arrays(sipd_backend *b, const sipd_model *m, const sipd_backend_params *p, size_t n3, size_t ninc)
{
    dview *d = &b->d;
    int i;
    CK(dalloc(b, (void **)&d->v.mats, (size_t)(m->nmat > 0 ? m->nmat : 1) * sizeof(sipd_material), "materials"));
    CK(dalloc(b, (void **)&d->v.mass, (size_t)m->nv * sizeof(float), "masses"));
    CK(dalloc(b, (void **)&d->v.X0, n3 * sizeof(float), "X0"));
    CK(dalloc(b, (void **)&d->v.fixed, (size_t)m->nv, "fixed"));
    CK(dalloc(b, (void **)&d->v.move_of, (size_t)m->nv * sizeof(int), "move_of"));
    CK(dalloc(b, (void **)&d->v.motions, (size_t)(m->nmotions > 0 ? m->nmotions : 1) * 9 * sizeof(float), "motions"));
    CK(dalloc(b, (void **)&d->v.inc_off, ((size_t)m->nv + 1) * sizeof(int), "incidence offsets"));
    CK(dalloc(b, (void **)&d->v.inc_elem, ninc * sizeof(int), "incidence elements"));
    CK(dalloc(b, (void **)&d->v.inc_group, ninc, "incidence groups"));
    CK(dalloc(b, (void **)&d->v.inc_corner, ninc, "incidence corners"));
    CK(dalloc(b, (void **)&d->v.inc_w, ninc * sizeof(float), "incidence weights"));
    CK(dalloc(b, (void **)&d->color_verts, (size_t)m->nv * sizeof(int), "colour lists"));
    CK(dalloc(b, (void **)&d->gsd, (size_t)m->nv * 6 * sizeof(float), "Gauss-Seidel directions"));
    CK(dalloc(b, (void **)&d->part, (size_t)NRED * (vertex_grid(b) > b->grid_cap ? vertex_grid(b) : b->grid_cap) * sizeof(double),
              "reduction partials"));
    CK(dalloc(b, (void **)&d->red, NRED * sizeof(double), "reductions"));
    CK(dalloc(b, (void **)&d->done, sizeof(unsigned), "reduction count"));
    CKC(cudaMemset(d->done, 0, sizeof(unsigned)));
    CK(dalloc(b, (void **)&b->gacc, sizeof(gs_acc), "Gauss-Seidel stats"));
    CKC(cudaMallocHost((void **)&b->red_h, NRED * sizeof(double)));
    CKC(cudaMallocHost((void **)&b->gacc_h, sizeof(gs_acc)));
    CKC(cudaMallocHost((void **)&b->hbuf, (n3 > 0 ? n3 : 1) * sizeof(float)));
    if (p->contact_force)
        CK(dalloc(b, (void **)&b->fc, (n3 > 0 ? n3 : 1) * sizeof(float), "contact forces"));
    b->prof.timed = p->profile != 0;
    if (p->profile) {   /* the event pool of the phase timing */
        b->prof_ev = (cudaEvent_t *)calloc(2 * PROF_PAIRS, sizeof(cudaEvent_t));
        if (!b->prof_ev) {
            sipd_error("cuda backend: out of host memory");
            return SIPD_EFAIL;
        }
        for (i = 0; i < 2 * PROF_PAIRS; i++) CKC(cudaEventCreate(&b->prof_ev[i]));
    }
    return SIPD_OK;
}

/* contact: the ground on the device; pairs: detected on the device (collide_cuda.cu; the host
   detector det gives the surface numbering), evaluated here */
static int create_contact(sipd_backend *b, const sipd_model *m, const sipd_backend_params *p, size_t n3)
{
    dview *d = &b->d;
    int i;
    if (p->contact || p->pairs) {
        d->v.dhat = (float)p->dhat;
        /* contact.stiffness, else the bodies' own (one scalar when they all agree; model.c) */
        b->kc = pair_contact_k(m, p->kc, &b->kv);
        d->v.kc = (float)b->kc;
        d->v.mu = (float)p->mu;
        b->eps_v = p->eps_v;
        b->mu = p->mu;
        b->dhat = p->dhat;
    }
    if (p->contact) {
        d->v.ground = 1;
        for (i = 0; i < 3; i++) d->v.pn[i] = (float)p->plane_n[i];
        d->v.ph = (float)p->plane_h;
        if (p->mu > 0) {
            CK(dalloc(b, (void **)&d->v.lam_n, (size_t)m->nv * sizeof(float), "ground friction forces"));
            CK(dalloc(b, (void **)&d->v.fa, (size_t)m->nv * 3 * sizeof(float), "ground friction anchors"));
        }
        if (m->crad) {   /* thin bodies: the ground plane is raised by each vertex's half-thickness */
            CK(dalloc(b, (void **)&d->v.vrad, (size_t)m->nv * sizeof(float), "contact thickness"));
            CK(upload_f(b, (float *)d->v.vrad, m->crad, (size_t)m->nv, "contact thickness"));
        }
        if (b->kv) {   /* bodies of different automatic stiffness: the ground's k_c per vertex */
            CK(dalloc(b, (void **)&d->v.kv, (size_t)m->nv * sizeof(float), "contact stiffness"));
            CK(upload_f(b, (float *)d->v.kv, b->kv, (size_t)m->nv, "contact stiffness"));
        }
    }
    if (p->pairs) {
        b->detect_every = pair_detect_every(p->detect_every);
        CK(collide_create(&b->det, m, p->self, SIPD_DETECT_FACTOR * p->dhat));
        if (!(getenv("SIPD_CUDA_HOST_DETECT") && atoi(getenv("SIPD_CUDA_HOST_DETECT")) != 0))
            CK(sipd_cuda_broad_create(&b->gb, b->det));
        CK(pair_data_init(&b->pd, m->nv));
        b->hx = (double *)malloc((n3 > 0 ? n3 : 1) * sizeof(double));
        b->hy = (double *)malloc((n3 > 0 ? n3 : 1) * sizeof(double));
        if (!b->hx || !b->hy) {
            sipd_error("cuda backend: out of host memory");
            return SIPD_EFAIL;
        }
        CK(dalloc(b, (void **)&d->v.pv_off, ((size_t)m->nv + 1) * sizeof(int), "pair incidence offsets"));
        CK(dalloc(b, (void **)&d->ydet, n3 * sizeof(float), "positions at detection"));
        CKC(cudaMemset((void *)d->v.pv_off, 0, ((size_t)m->nv + 1) * sizeof(int)));
    }
    return SIPD_OK;
}

/* The model's incidences, per-vertex data, materials (as float) and motions uploaded, through
 * the host tables *fm and *mot (the caller frees them); the state vectors zeroed. */
static int create_upload(sipd_backend *b, const sipd_model *m, size_t n3, size_t ninc, sipd_material **fm_out,
                         float **mot_out)
{
    dview *d = &b->d;
    sipd_material *fm;
    float *mot;
    int i;
    if (ninc > 0) {
        CKC(cudaMemcpy((void *)d->v.inc_elem, m->inc_elem, ninc * sizeof(int), cudaMemcpyHostToDevice));
        CKC(cudaMemcpy((void *)d->v.inc_group, m->inc_group, ninc, cudaMemcpyHostToDevice));
        CKC(cudaMemcpy((void *)d->v.inc_corner, m->inc_corner, ninc, cudaMemcpyHostToDevice));
        CK(upload_f(b, (float *)d->v.inc_w, m->inc_w, ninc, "create: incidence weights"));
    }
    if (m->nv > 0) {
        CK(upload_f(b, (float *)d->v.mass, m->mass, (size_t)m->nv, "create: masses"));
        CK(upload_f(b, (float *)d->v.X0, m->X0, n3, "create: X0"));
        CKC(cudaMemcpy((void *)d->v.fixed, m->fixed, (size_t)m->nv, cudaMemcpyHostToDevice));
        CKC(cudaMemcpy((void *)d->v.move_of, m->move_of, (size_t)m->nv * sizeof(int), cudaMemcpyHostToDevice));
        CKC(cudaMemcpy((void *)d->color_verts, m->color_verts, (size_t)m->nv * sizeof(int), cudaMemcpyHostToDevice));
    }
    CKC(cudaMemcpy((void *)d->v.inc_off, m->inc_off, ((size_t)m->nv + 1) * sizeof(int), cudaMemcpyHostToDevice));
    fm = *fm_out = (sipd_material *)calloc((size_t)(m->nmat > 0 ? m->nmat : 1), sizeof *fm);
    mot = *mot_out = (float *)calloc((size_t)(m->nmotions > 0 ? m->nmotions : 1) * 9, sizeof *mot);
    if (!fm || !mot) {
        sipd_error("cuda backend: out of host memory");
        return SIPD_EFAIL;
    }
    host_materials_to(m, fm);
    for (i = 0; i < m->nmotions; i++) {
        int k;
        for (k = 0; k < 3; k++) {
            mot[9 * i + k] = (float)m->motions[i].center[k];
            mot[9 * i + 3 + k] = (float)m->motions[i].velocity[k];
            mot[9 * i + 6 + k] = (float)m->motions[i].omega[k];
        }
    }
    CKC(cudaMemcpy((void *)d->v.mats, fm, (size_t)(m->nmat > 0 ? m->nmat : 1) * sizeof *fm, cudaMemcpyHostToDevice));
    CKC(cudaMemcpy((void *)d->v.motions, mot, (size_t)(m->nmotions > 0 ? m->nmotions : 1) * 9 * sizeof *mot,
                   cudaMemcpyHostToDevice));
    if (n3 > 0) {
        CKC(cudaMemset(d->v.x, 0, n3 * sizeof(float)));
        CKC(cudaMemset(d->v.v, 0, n3 * sizeof(float)));
        CKC(cudaMemset(d->v.y, 0, n3 * sizeof(float)));
        CKC(cudaMemset(d->v.yp, 0, n3 * sizeof(float)));
        CKC(cudaMemset(d->v.yt, 0, n3 * sizeof(float)));
        CKC(cudaMemset(d->v.dy, 0, n3 * sizeof(float)));
        CKC(cudaMemset(d->v.g, 0, n3 * sizeof(float)));
        CKC(cudaMemset(d->v.ys, 0, n3 * sizeof(float)));
    }
    return SIPD_OK;
}
#undef CK
#undef CKC

static int cuda_create(sipd_backend **out, const sipd_model *m, const sipd_backend_params *p)
{
    sipd_backend *b;
    size_t n3 = (size_t)m->nv * 3, ninc = 0;
    sipd_material *fm = NULL;
    float *mot = NULL;
    int rc;

    *out = NULL;
    if ((rc = create_check(m, p)) != SIPD_OK)   /* a method it runs, a device, the material layout */
        return rc;
    b = (sipd_backend *)calloc(1, sizeof *b);
    if (!b) {
        sipd_error("cuda backend: out of host memory");
        return SIPD_EFAIL;
    }
    b->m = m;
    b->d.v.nv = m->nv;
    b->d.v.ngroups = m->ngroups;
    b->d.v.gs_prev = 1;   /* apply's Σ g·s summed by the next vertex pass (k_apply, k_vertex) */
    b->split = p->split;
    b->precond = p->precond;
    b->want_hessian = p->assemble || p->precond == SIPD_PRECOND_HESSIAN;
    b->sync_each = getenv("SIPD_CUDA_SYNC") && atoi(getenv("SIPD_CUDA_SYNC")) != 0;
    b->gs_generic = getenv("SIPD_CUDA_GS_GENERIC") && atoi(getenv("SIPD_CUDA_GS_GENERIC")) != 0;
    b->gather = getenv("SIPD_CUDA_GATHER") && atoi(getenv("SIPD_CUDA_GATHER")) != 0;

    rc = create_kernels(b, p);                                   /* grid size, the method's kernels */
    if (rc == SIPD_OK)
        rc = create_state(b, n3, p->adaptive_guess);                              /* x, v, y, dy, g, ... */
    if (rc == SIPD_OK)
        rc = create_groups(b, m, p, &ninc);                      /* element groups, uploaded */
    if (rc == SIPD_OK)
        rc = create_arrays(b, m, p, n3, ninc);                   /* vertices, incidences, reductions */
    if (rc == SIPD_OK)
        rc = create_contact(b, m, p, n3);                        /* ground and pairs */
    if (rc == SIPD_OK)
        rc = create_upload(b, m, n3, ninc, &fm, &mot);           /* the model's arrays; state zeroed */
    free(fm);
    free(mot);
    if (rc != SIPD_OK) {
        cuda_destroy(b);
        return SIPD_EFAIL;
    }
    *out = b;
    return SIPD_OK;
}

/* Read the first nq folded results of the last reducing kernels back (block_reduce: a
 * synchronisation point). */
static int read_reduction(sipd_backend *b, int nq, const char *op)
{
    CU(dcopy(b, b->red_h, b->d.red, (size_t)nq * sizeof(double), cudaMemcpyDeviceToHost), op);
    return SIPD_OK;
}

static int upload_positions(sipd_backend *b, float *dst, const double *src, const char *op)
{
    size_t i, n3 = (size_t)b->d.v.nv * 3;
    for (i = 0; i < n3; i++) b->hbuf[i] = (float)src[i];
    CU(dcopy(b, dst, b->hbuf, n3 * sizeof(float), cudaMemcpyHostToDevice), op);
    return SIPD_OK;
}

static int cuda_upload(sipd_backend *b, const double *x, const double *v)
{
    size_t n3 = (size_t)b->d.v.nv * 3 * sizeof(float);
    if (b->failed)
        return SIPD_EFAIL;
    if (n3 == 0)
        return SIPD_OK;
    if (upload_positions(b, b->d.v.x, x, "upload") != SIPD_OK || upload_positions(b, b->d.v.v, v, "upload") != SIPD_OK)
        return SIPD_EFAIL;
    CU(dcopy(b, b->d.v.y, b->d.v.x, n3, cudaMemcpyDeviceToDevice), "upload");
    CU(dcopy(b, b->d.v.yp, b->d.v.x, n3, cudaMemcpyDeviceToDevice), "upload");
    b->d.v.vp_hist = 0;   /* no history: the next step starts from ỹ */
    if (b->d.v.fa)        /* no friction anchors: a fresh start (a resume sets them: friction_state) */
        CU(cudaMemset(b->d.v.fa, 0, n3), "upload (friction anchors)");
    if (b->det)
        pair_anchor_clear(&b->pd);
    return SIPD_OK;
}

static int download_array(sipd_backend *b, double *dst, const float *src, const char *op);

/* Device pair arrays for at least n pairs (contents not kept). */
static int pair_buffers(sipd_backend *b, int n)
{
    static const size_t sz[9] = {4 * sizeof(int), 4 * sizeof(float), 3 * sizeof(float), sizeof(float), sizeof(float),
                                 4 * sizeof(int), 4, sizeof(float), 3 * sizeof(float)};
    int cap, i;
    if (n <= b->pr_cap)
        return SIPD_OK;
    cap = n + n / 2 + 16;
    for (i = 0; i < 9; i++) {
        cudaFree(b->dpr[i]);
        b->dpr[i] = NULL;
    }
    cudaFree(b->dprD);
    b->dprD = NULL;
    free(b->prD_h);
    b->prD_h = NULL;
    free(b->h_v);
    free(b->h_f);
    b->pr_cap = 0;
    /* the view must not keep the freed arrays: no pairs until the new ones are uploaded */
    b->d.v.npr = 0;
    b->d.v.pr_v = NULL;
    b->d.v.pr_beta = b->d.v.pr_n = b->d.v.pr_k = b->d.v.pr_lam = b->d.v.pr_h = NULL;
    b->d.v.pr_o = NULL;
    b->d.v.pv_pair = NULL;
    b->d.v.pv_slot = NULL;
    b->h_v = (int *)malloc((size_t)cap * 4 * sizeof(int));
    b->h_f = (float *)malloc((size_t)cap * 13 * sizeof(float));
    if (b->want_hessian)   /* the pairs' D_z for `assemble` (its download goes through h_f) */
        b->prD_h = (double *)malloc((size_t)cap * 6 * sizeof(double));
    if (!b->h_v || !b->h_f || (b->want_hessian && !b->prD_h)) {
        sipd_error("cuda backend: detect: out of host memory for %d contact pairs", n);
        b->failed = 1;
        return SIPD_EFAIL;
    }
    for (i = 0; i < 9; i++) {
        cudaError_t e = cudaMalloc(&b->dpr[i], (size_t)cap * sz[i]);
        if (e != cudaSuccess) {
            sipd_error("cuda backend: detect: cudaMalloc of %.1f MiB for %d contact pairs failed: %s",
                       (double)cap * sz[i] / 1048576.0, n, cudaGetErrorString(e));
            b->failed = 1;
            return SIPD_EFAIL;
        }
    }
    if (b->want_hessian) {
        cudaError_t e = cudaMalloc((void **)&b->dprD, (size_t)cap * 6 * sizeof(float));
        if (e != cudaSuccess) {
            sipd_error("cuda backend: detect: cudaMalloc of %.1f MiB for %d contact pairs' blocks failed: %s",
                       (double)cap * 6 * sizeof(float) / 1048576.0, n, cudaGetErrorString(e));
            b->failed = 1;
            return SIPD_EFAIL;
        }
    }
    b->pr_cap = cap;
    b->d.v.pr_v = (const int *)b->dpr[0];
    b->d.v.pr_beta = (const float *)b->dpr[1];
    b->d.v.pr_n = (const float *)b->dpr[2];
    b->d.v.pr_k = (const float *)b->dpr[3];
    b->d.v.pr_lam = (const float *)b->dpr[4];
    b->d.v.pv_pair = (const int *)b->dpr[5];
    b->d.v.pv_slot = (const unsigned char *)b->dpr[6];
    b->d.v.pr_h = (const float *)b->dpr[7];
    b->d.v.pr_o = b->mu > 0 ? (float *)b->dpr[8] : NULL;
    return SIPD_OK;
}

/* Narrow phase (on the device at d.y, or on the host at hy, step start hx), then upload the
 * pairs, their data and incidences (pairs.h); ydet ← y.  *changed = 1 when there were or are
 * pairs. */
static int narrow_upload(sipd_backend *b, int *changed)
{
    const sipd_model *m = b->m;
    const sipd_contact_pair *pr;
    int npr, before = b->d.v.npr, p, k, ninc;
    *changed = 0;
    if (b->gb && sipd_cuda_broad_narrow(b->gb, b->d.v.x, b->d.v.y, &pr, &npr) != SIPD_OK) {
        b->failed = 1;
        return SIPD_EFAIL;
    }
    if (!b->gb) {   /* (SIPD_ESIGNAL: a stop request during the host's narrow phase) */
        int rc = collide_narrow(b->det, b->hx, b->hy, &pr, &npr);
        if (rc != SIPD_OK)
            return rc;
    }
    if (pair_data_build(&b->pd, m, pr, npr, b->hx, b->kc, b->kv, b->mu, b->dhat) != SIPD_OK ||
        pair_buffers(b, npr) != SIPD_OK)
        return SIPD_EFAIL;
    b->d.v.npr = 0;
    if (npr > 0) {
        float *fb = b->h_f, *fn = b->h_f + 4 * (size_t)npr, *fk = fn + 3 * (size_t)npr, *fl = fk + npr, *fh = fl + npr;
        float *fo = fh + npr;
        for (p = 0; p < npr; p++) {   /* pairs.h: the pairs' data as flat arrays, in float */
            for (k = 0; k < 4; k++) {
                b->h_v[4 * p + k] = b->pd.v[4 * p + k];
                fb[4 * p + k] = (float)b->pd.beta[4 * p + k];
            }
            for (k = 0; k < 3; k++) fn[3 * p + k] = (float)b->pd.n[3 * p + k];
            fk[p] = (float)b->pd.k[p];
            fl[p] = (float)b->pd.lam[p];
            fh[p] = (float)b->pd.h[p];
            for (k = 0; k < 3; k++) fo[3 * p + k] = (float)b->pd.o[3 * p + k];
        }
        ninc = b->pd.off[m->nv];
        CU(dcopy(b, b->dpr[0], b->h_v, (size_t)npr * 4 * sizeof(int), cudaMemcpyHostToDevice), "detect (pairs)");
        CU(dcopy(b, b->dpr[1], fb, (size_t)npr * 4 * sizeof(float), cudaMemcpyHostToDevice), "detect (pairs)");
        CU(dcopy(b, b->dpr[2], fn, (size_t)npr * 3 * sizeof(float), cudaMemcpyHostToDevice), "detect (pairs)");
        CU(dcopy(b, b->dpr[3], fk, (size_t)npr * sizeof(float), cudaMemcpyHostToDevice), "detect (pairs)");
        CU(dcopy(b, b->dpr[4], fl, (size_t)npr * sizeof(float), cudaMemcpyHostToDevice), "detect (pairs)");
        CU(dcopy(b, b->dpr[7], fh, (size_t)npr * sizeof(float), cudaMemcpyHostToDevice), "detect (pairs)");
        if (b->mu > 0)
            CU(dcopy(b, b->dpr[8], fo, (size_t)npr * 3 * sizeof(float), cudaMemcpyHostToDevice), "detect (pairs)");
        if (ninc > 0) {
            CU(dcopy(b, b->dpr[5], b->pd.pair, (size_t)ninc * sizeof(int), cudaMemcpyHostToDevice), "detect (pairs)");
            CU(dcopy(b, b->dpr[6], b->pd.slot, (size_t)ninc, cudaMemcpyHostToDevice), "detect (pairs)");
        }
    }
    CU(dcopy(b, (void *)b->d.v.pv_off, b->pd.off, ((size_t)m->nv + 1) * sizeof(int), cudaMemcpyHostToDevice),
       "detect (pair incidences)");
    b->d.v.npr = npr;
    if (m->nv > 0)
        CU(dcopy(b, b->d.ydet, b->d.v.y, (size_t)m->nv * 3 * sizeof(float), cudaMemcpyDeviceToDevice), "detect");
    b->since = 0;
    *changed = before > 0 || npr > 0;
    return SIPD_OK;
}

/* narrow_upload as one timed region (phase narrow), with collide_cuda.cu's launches and syncs. */
static int narrow_timed(sipd_backend *b, int *changed)
{
    long l0 = 0, s0 = 0;
    int rc;
    if (b->gb)
        sipd_cuda_broad_counters(b->gb, &l0, &s0);
    prof_begin(b, SIPD_PHASE_NARROW);
    rc = narrow_upload(b, changed);
    if (b->gb)
        prof_collide(b, l0, s0);
    prof_end(b);
    return rc;
}

/* backend.h detect: run = 0 asks whether a narrow phase is due, run = 1 runs it. */
static int cuda_detect(sipd_backend *b, int run, int *flag)
{
    int rc;
    *flag = 0;
    if (b->failed)
        return SIPD_EFAIL;
    if (!b->det)
        return SIPD_OK;
    if (!run) {
        int gv = grid_for(b, b->d.v.nv);
        if (pair_detect_count(&b->since, b->detect_every)) {
            *flag = 1;
            return SIPD_OK;
        }
        prof_begin(b, SIPD_PHASE_NARROW);   /* (the motion check is the narrow phase's trigger) */
        KLAUNCH(SIPD_PHASE_NARROW, "detect (motion since the last narrow phase)", k_moved, gv, b->d);
        rc = read_reduction(b, 1, "detect (reduction)");
        prof_end(b);
        if (rc != SIPD_OK)
            return SIPD_EFAIL;
        *flag = pair_detect_moved(b->red_h[0], b->dhat);
        return SIPD_OK;
    }
    if (b->gb) {   /* on the device: no positions cross the bus */
        int out = 0;
        long l0, s0;
        sipd_cuda_broad_counters(b->gb, &l0, &s0);
        prof_begin(b, SIPD_PHASE_BROAD);
        rc = sipd_cuda_broad_outside(b->gb, b->d.v.y, &out) != SIPD_OK ||
             (out && sipd_cuda_broad_run_device(b->gb, b->d.v.x, b->d.v.y, b->dhat) != SIPD_OK);
        prof_collide(b, l0, s0);
        prof_end(b);
        if (rc) {
            b->failed = 1;
            return SIPD_EFAIL;
        }
        return narrow_timed(b, flag);
    }
    prof_begin(b, SIPD_PHASE_BROAD);   /* (host detection: the positions come to the host) */
    rc = download_array(b, b->hy, b->d.v.y, "detect (positions)");
    if (rc == SIPD_OK && collide_outside(b->det, b->hy))
        rc = collide_broad(b->det, b->hx, b->hy, b->dhat);   /* (SIPD_ESIGNAL: a stop request) */
    prof_end(b);
    if (rc != SIPD_OK)
        return rc;
    return narrow_timed(b, flag);
}

static int step_load_eval(sipd_backend *b);

static int cuda_begin_step(sipd_backend *b, double t_end, double h, const double gravity[3], int qs)
{
    int a;
    if (b->failed)
        return SIPD_EFAIL;
    b->h = h;
    b->d.v.quasistatic = qs;
    b->d.v.inv_h2 = qs ? 0.0f : (float)(1 / (h * h));
    for (a = 0; a < 3; a++) b->d.v.gq[a] = qs ? (float)gravity[a] : 0.0f;
    if (b->d.v.nv == 0)
        return SIPD_OK;
    b->d.v.eps = (float)(b->eps_v * h);
    b->first = 1;
    KLAUNCH(SIPD_PHASE_OTHER, "begin_step", k_begin_step, grid_for(b, b->d.v.nv), b->d, (float)t_end, (float)h,
            (float)gravity[0], (float)gravity[1], (float)gravity[2]);
    if (b->det) {   /* broad phase over the step start and the initial guess, then narrow */
        int changed, rc;
        long l0 = 0, s0 = 0;
        /* x0 on the host: the pairs' lagged normal forces (pair_data_build) */
        if (download_array(b, b->hx, b->d.v.x, "begin_step (positions for detection)") != SIPD_OK)
            return SIPD_EFAIL;
        prof_begin(b, SIPD_PHASE_BROAD);
        if (b->gb) {
            sipd_cuda_broad_counters(b->gb, &l0, &s0);
            rc = sipd_cuda_broad_run_device(b->gb, b->d.v.x, b->d.v.y, b->dhat);
            prof_collide(b, l0, s0);
            if (rc != SIPD_OK) {
                b->failed = 1;
                rc = SIPD_EFAIL;
            }
        } else {
            rc = download_array(b, b->hy, b->d.v.y, "begin_step (positions for detection)");
            if (rc == SIPD_OK)
                rc = collide_broad(b->det, b->hx, b->hy, b->dhat);   /* (SIPD_ESIGNAL: a stop request) */
        }
        prof_end(b);
        if (rc == SIPD_OK)
            rc = narrow_timed(b, &changed);
        if (rc != SIPD_OK)
            return rc;
    }
    return step_load_eval(b);
}

static int cuda_direction(sipd_backend *b, sipd_dir_stats *st);
static int cuda_snapshot(sipd_backend *b);
static int cuda_restore(sipd_backend *b);

/* The step's load (backend.h): one direction pass at the "do nothing" state between a
 * snapshot of the initial guess and its restore, as the CPU backend does (there with the
 * cheaper D = m/h² I).  Compile-checked only: never run on a GPU. */
static int step_load_eval(sipd_backend *b)
{
    sipd_dir_stats st;
    if (cuda_snapshot(b) != SIPD_OK)
        return SIPD_EFAIL;
    KLAUNCH(SIPD_PHASE_OTHER, "step load (do-nothing state)", k_free_at_x, grid_for(b, 3L * b->d.v.nv), b->d);
    b->first = 0;   /* not the step's first direction: that comes at the initial guess */
    if (cuda_direction(b, &st) != SIPD_OK || cuda_restore(b) != SIPD_OK)
        return SIPD_EFAIL;
    b->first = 1;
    b->load = st.gmax;
    return SIPD_OK;
}

static int cuda_step_load(sipd_backend *b, double *fmax)
{
    *fmax = b->load;
    return b->failed ? SIPD_EFAIL : SIPD_OK;
}

static int cuda_direction(sipd_backend *b, sipd_dir_stats *st)
{
    int gv = vertex_grid(b), g;
    vertex_kernel_p kf;
    memset(st, 0, sizeof *st);
    st->rmax = st->gmax = st->gdy = NAN;   /* what the driver sees if this op fails */
    if (b->failed)
        return SIPD_EFAIL;
    if ((kf = fused_kernel(b)) != NULL) {   /* one kernel: the elements per corner, the solve */
        KLAUNCH(SIPD_PHASE_VERTEX, "direction (fused vertex pass)", kf, gv, b->d, b->first);
    } else {
        for (g = 0; g < b->d.v.ngroups; g++)   /* element pass */
            if (b->d.v.grp[g].ne > 0) {
                if (element_pass(b, g) != SIPD_OK)
                    return SIPD_EFAIL;
            }
        KLAUNCH(SIPD_PHASE_VERTEX, "direction (vertex pass)", b->kvert, gv, b->d, b->first);   /* the gather */
    }
    if (b->d.v.npr > 0)   /* its results beside the vertex pass's: one read-back for both */
        KLAUNCH(SIPD_PHASE_VERTEX, "direction (pair statistics)", k_pair_stats, grid_for(b, b->d.v.npr), b->d);
    if (read_reduction(b, VERTEX_NRED + (b->d.v.npr > 0 ? 2 : 0), "direction (reductions)") != SIPD_OK)
        return SIPD_EFAIL;
    st->rmax = sqrt(b->red_h[0]);
    st->gmax = sqrt(b->red_h[1]);
    st->gdy = b->red_h[2];
    st->gs = b->red_h[3];
    st->sDs = b->red_h[4];
    st->nonspd = (int)b->red_h[5];
    st->contacts = (int)b->red_h[6];
    st->max_pen = b->red_h[7];
    if (!b->first) {
        st->d_num = b->red_h[8];
        st->d_den = b->red_h[9];
    }
    for (g = 0; g < 3; g++) st->gsum[g] = b->red_h[10 + g];
    st->have_gsum = 1;
    st->gs_prev = b->red_h[13];   /* the last apply's Σ g·s (k_apply reduces nothing) ... */
    st->have_gs_prev = b->applied;   /* ... when there was one since the last direction (else that
                                        direction already reported it, and y − y_prev is its step) */
    b->applied = 0;
    if (b->d.v.npr > 0) {
        st->contacts += (int)b->red_h[VERTEX_NRED];
        if (b->red_h[VERTEX_NRED + 1] > st->max_pen)
            st->max_pen = b->red_h[VERTEX_NRED + 1];
    }
    b->first = 0;
    st->cg_iters = 0;
    if (b->precond == SIPD_PRECOND_HESSIAN && b->d.v.nv > 0)   /* the caller sets dy (set_direction) */
        CU(cudaMemset(b->d.v.dy, 0, (size_t)b->d.v.nv * 3 * sizeof(float)), "direction (dy = 0)");
    return SIPD_OK;
}

static int cuda_energy(sipd_backend *b, double alpha, double *E)
{
    int n = b->d.v.nv > b->d.v.npr ? b->d.v.nv : b->d.v.npr, gr, g;
    for (g = 0; g < b->d.v.ngroups; g++)
        if (b->d.v.grp[g].ne > n)
            n = b->d.v.grp[g].ne;
    gr = grid_for(b, n);
    *E = NAN;
    if (b->failed)
        return SIPD_EFAIL;
    KLAUNCH(SIPD_PHASE_ENERGY, "energy", k_energy, gr, b->d, (float)alpha, n);
    if (read_reduction(b, 1, "energy (reduction)") != SIPD_OK)
        return SIPD_EFAIL;
    *E = b->red_h[0];
    return SIPD_OK;
}

/* *gs_out: NaN; the next direction reports Σ g·s (sipd_dir_stats.gs_prev, backend.h) */
static int cuda_apply(sipd_backend *b, double alpha, double omega, double *gs_out)
{
    int gr = grid_for(b, b->d.v.nv);
    if (gs_out)
        *gs_out = NAN;
    if (b->failed)
        return SIPD_EFAIL;
    KLAUNCH(SIPD_PHASE_APPLY, "apply", k_apply, gr, b->d, (float)alpha, (float)omega);
    b->applied = 1;
    return SIPD_OK;
}

static int copy_state(sipd_backend *b, float *dst, const float *src, const char *op)
{
    size_t n3 = (size_t)b->d.v.nv * 3 * sizeof(float);
    if (b->failed)
        return SIPD_EFAIL;
    if (n3)
        CU(dcopy(b, dst, src, n3, cudaMemcpyDeviceToDevice), op);
    return SIPD_OK;
}

static int cuda_undo(sipd_backend *b) { return copy_state(b, b->d.v.y, b->d.v.yp, "undo"); }
static int cuda_snapshot(sipd_backend *b) { return copy_state(b, b->d.v.ys, b->d.v.y, "snapshot"); }
static int cuda_restore(sipd_backend *b)
{
    if (copy_state(b, b->d.v.y, b->d.v.ys, "restore") != SIPD_OK)
        return SIPD_EFAIL;
    return copy_state(b, b->d.v.yp, b->d.v.ys, "restore");
}

/* The staged sweep's class of incidence k (GSS_*), from its element's kind and material model. */
static int gss_class(sipd_backend *b, int k)
{
    const sipd_model *m = b->m;
    const int g = m->inc_group[k], kind = b->d.v.grp[g].kind;
    int model = host_materials(m)[m->groups[g].mat[m->inc_elem[k]]].model;
    if (model == SIPD_MAT_ARAP)   /* the corotational arithmetic */
        model = SIPD_MAT_COROTATIONAL;
    switch (kind) {
    case SIPD_KIND_TET:
    case SIPD_KIND_TRI: {
        const int base = kind == SIPD_KIND_TET ? GSS_TET_SNH : GSS_TRI_SNH;
        return model == SIPD_MAT_STABLE_NEOHOOKEAN ? base
             : model == SIPD_MAT_NEOHOOKEAN      ? base + 1
             : model == SIPD_MAT_COROTATIONAL    ? base + 2
                                                 : base + 3;
    }
    case SIPD_KIND_EDGE: return GSS_EDGE;
    case SIPD_KIND_HINGE: return GSS_HINGE;
    case SIPD_KIND_MIDEDGE: return GSS_MIDEDGE;
    default: return GSS_ROD_BEND;
    }
}

/* The staged sweep's data, on its first use: the incidences' classes (uploaded), their slots, the
 * searching flags, and per colour the classes its vertices' incidences hold. */
static int gss_setup(sipd_backend *b)
{
    const sipd_model *m = b->m;
    const size_t ninc = (size_t)m->inc_off[m->nv];
    unsigned char *cls;
    int c, i, k;
    if (b->gss_mask)
        return SIPD_OK;
    cls = (unsigned char *)malloc(ninc > 0 ? ninc : 1);
    b->gss_mask = (unsigned *)calloc((size_t)(m->ncolors > 0 ? m->ncolors : 1), sizeof(unsigned));
    if (!cls || !b->gss_mask) {
        free(cls);
        free(b->gss_mask);
        b->gss_mask = NULL;
        sipd_error("cuda backend: out of host memory for the Gauss-Seidel incidence classes");
        return SIPD_EFAIL;
    }
    for (k = 0; k < (int)ninc; k++) cls[k] = (unsigned char)gss_class(b, k);
    for (c = 0; c < m->ncolors; c++)
        for (i = m->color_off[c]; i < m->color_off[c + 1]; i++) {
            const int a = m->color_verts[i];
            for (k = m->inc_off[a]; k < m->inc_off[a + 1]; k++) b->gss_mask[c] |= 1u << cls[k];
        }
    if (dalloc(b, (void **)&b->gss_cls, ninc, "Gauss-Seidel incidence classes") != SIPD_OK ||
        dalloc(b, (void **)&b->gss_slots, ninc * SIPD_GS_SLOT * sizeof(float), "Gauss-Seidel incidence slots") != SIPD_OK ||
        dalloc(b, (void **)&b->gss_pending, (size_t)m->nv * sizeof(int), "Gauss-Seidel line-search flags") != SIPD_OK) {
        free(cls);
        free(b->gss_mask);
        b->gss_mask = NULL;
        return SIPD_EFAIL;
    }
    if (ninc > 0)
        CU(cudaMemcpy(b->gss_cls, cls, ninc, cudaMemcpyHostToDevice), "gs_sweep (incidence classes)");
    free(cls);
    return SIPD_OK;
}

/* One colour of the staged sweep (k_gss_*): its direction (SIPD: staged too; the other
 * preconditioners: their generic direction kernel), then with ls its line search, trial by trial
 * until no vertex is still searching. */
static int gss_colour(sipd_backend *b, int c, int ls, double omega)
{
    const sipd_model *m = b->m;
    const int begin = m->color_off[c], n = m->color_off[c + 1] - begin, grid = (n + NT - 1) / NT;
    const unsigned mask = b->gss_mask[c];
    float alpha = (float)omega;
    int C, h;
    if (b->precond == SIPD_PRECOND_SPLIT) {
        if (mask & 1u << GSS_TET_COROT)
            KLAUNCH(SIPD_PHASE_GS, "gs_sweep (rotations)", k_gss_polar, grid, b->d, begin, n, b->gss_cls, b->gss_slots,
                    -1, 0.0f, b->gss_pending);
        for (C = 0; C < GSS_NCLASS; C++)
            if (mask & 1u << C)
                KLAUNCH(SIPD_PHASE_GS, "gs_sweep (corners)", k_gss_corner_table[C][b->split], grid, b->d, begin, n,
                        b->gss_cls, b->gss_slots);
        KLAUNCH(SIPD_PHASE_GS, "gs_sweep (directions)", k_gss_direction, grid, b->d, begin, n, ls, (float)omega,
                b->gss_slots, b->gacc);
    } else {
        KLAUNCH(SIPD_PHASE_GS, "gs_sweep (colour kernel)", gs_kernel(b), grid, b->d, begin, n, ls, (float)omega, b->gacc);
    }
    if (!ls)
        return SIPD_OK;
    for (h = 0; h < SIPD_GS_MAX_HALVINGS; h++, alpha *= 0.5f) {
        int last = h == SIPD_GS_MAX_HALVINGS - 1, pending = 0;
        if (mask & 1u << GSS_TET_COROT)
            KLAUNCH(SIPD_PHASE_GS, "gs_sweep (rotations)", k_gss_polar, grid, b->d, begin, n, b->gss_cls, b->gss_slots,
                    h, alpha, b->gss_pending);
        for (C = 0; C < GSS_NCLASS; C++)
            if (mask & 1u << C)
                KLAUNCH(SIPD_PHASE_GS, "gs_sweep (energies)", k_gss_energy_table[C], grid, b->d, begin, n, b->gss_cls,
                        b->gss_slots, h, alpha, b->gss_pending);
        CU(cudaMemset(&b->gacc->pending, 0, sizeof(int)), "gs_sweep (line search)");
        KLAUNCH(SIPD_PHASE_GS, "gs_sweep (line search)", k_gss_accept, grid, b->d, begin, n, b->gss_slots, h, alpha,
                last, b->gss_pending, b->gacc);
        if (last)
            break;
        CU(dcopy(b, &pending, &b->gacc->pending, sizeof(int), cudaMemcpyDeviceToHost), "gs_sweep (line search)");
        if (pending == 0)
            break;
    }
    return SIPD_OK;
}

static int cuda_gs_sweep(sipd_backend *b, int ls, double omega, sipd_gs_stats *st)
{
    const sipd_model *m = b->m;
    int c;
    memset(st, 0, sizeof *st);
    st->rmax = st->gmax = NAN;
    if (b->failed)
        return SIPD_EFAIL;
    if (b->d.v.ground || b->det) {
        sipd_error("cuda backend: gauss-seidel sweeps (sipd gauss-seidel, vbd) with contact run on the CPU backend "
                   "only so far (use --device cpu, or a Jacobi sweep)");
        return SIPD_EINPUT;
    }
    CU(cudaMemset(b->gacc, 0, sizeof(gs_acc)), "gs_sweep");
    if (gs_fixed(b) == 0 && (b->precond == SIPD_PRECOND_SPLIT || ls) && gss_setup(b) != SIPD_OK)
        return SIPD_EFAIL;
    for (c = 0; c < m->ncolors; c++) {   /* per colour: direction, then the line search (when ls) */
        int n = m->color_off[c + 1] - m->color_off[c];
        if (n <= 0)
            continue;
        if (gs_fixed(b) == 0 && (b->precond == SIPD_PRECOND_SPLIT || ls)) {   /* the staged sweep */
            if (gss_colour(b, c, ls, omega) != SIPD_OK)
                return SIPD_EFAIL;
            continue;
        }
        const int grid = (int)((n + NT - 1) / NT);   /* one thread per vertex (not capped) */
        KLAUNCH(SIPD_PHASE_GS, "gs_sweep (colour kernel)", gs_kernel(b), grid, b->d, m->color_off[c], n, ls, (float)omega,
                b->gacc);
        if (ls)
            KLAUNCH(SIPD_PHASE_GS, "gs_sweep (line search)", gs_search_kernel(b), grid, b->d, m->color_off[c], n,
                    (float)omega, b->gacc);
    }
    CU(dcopy(b, b->gacc_h, b->gacc, sizeof(gs_acc), cudaMemcpyDeviceToHost), "gs_sweep (reductions)");
    {
        unsigned long long r = b->gacc_h->rmax2, g = b->gacc_h->gmax2;
        double r2, g2;
        memcpy(&r2, &r, sizeof r2);
        memcpy(&g2, &g, sizeof g2);
        st->rmax = sqrt(r2);
        st->gmax = sqrt(g2);
    }
    st->backtracks = b->gacc_h->backtracks;
    st->rejected = b->gacc_h->rejected;
    /* y_prev tracks y so that a following Jacobi/Rayleigh estimate starts clean */
    return copy_state(b, b->d.v.yp, b->d.v.y, "gs_sweep");
}

static int cuda_end_step(sipd_backend *b)
{
    if (b->failed)
        return SIPD_EFAIL;
    if (b->d.v.nv == 0)
        return SIPD_OK;
    if (b->d.v.fa) {   /* the ground friction's anchors (contact.h stick memory) */
        KLAUNCH(SIPD_PHASE_OTHER, "end_step (friction anchors)", k_end_anchor, grid_for(b, b->d.v.nv), b->d);
    }
    if (b->d.v.pr_o && b->d.v.npr > 0) {   /* the pairs': on the device, then to the host's store by
                                              key (12 bytes per pair, one copy per step) */
        int npr = b->d.v.npr, i;
        KLAUNCH(SIPD_PHASE_OTHER, "end_step (pair friction anchors)", k_pair_anchor, grid_for(b, npr), b->d);
        CU(dcopy(b, b->h_f, b->d.v.pr_o, (size_t)npr * 3 * sizeof(float), cudaMemcpyDeviceToHost),
           "end_step (pair friction anchors)");
        for (i = 0; i < 3 * npr; i++) b->pd.o[i] = b->h_f[i];
        if (pair_anchor_commit(&b->pd, b->pd.o) != SIPD_OK) {
            sipd_error("cuda backend: end_step: out of host memory for %d friction anchors", npr);
            return SIPD_EFAIL;
        }
    } else if (b->det) {
        b->pd.ns = 0;   /* no pairs: no anchors carried */
    }
    KLAUNCH(SIPD_PHASE_OTHER, "end_step", k_end_step, grid_for(b, 3L * b->d.v.nv), b->d, (float)b->h);
    b->d.v.vp_hist = b->d.v.vp != NULL;
    return SIPD_OK;
}

/* backend.h friction_state (the ground's anchors float32 on the device, the pairs' store on the
 * host) */
static int cuda_friction_state(sipd_backend *b, int set, double *buf, long *n)
{
    size_t n3 = b->d.v.fa ? (size_t)b->d.v.nv * 3 : 0, i;
    long np = 0;
    if (b->failed)
        return SIPD_EFAIL;
    if (!set) {
        if (b->det)
            pair_anchor_save(&b->pd, NULL, &np);
        *n = friction_state_len(n3, np);
        if (buf) {
            if (n3 && download_array(b, buf, b->d.v.fa, "friction_state") != SIPD_OK)
                return SIPD_EFAIL;
            buf[n3] = (double)np;
            if (b->det)
                pair_anchor_save(&b->pd, buf + n3 + 1, &np);
        }
        return SIPD_OK;
    }
    if (!friction_state_fits(buf, *n, n3, b->det != NULL))
        return SIPD_EINPUT;
    if (n3) {
        for (i = 0; i < n3; i++) b->hbuf[i] = (float)buf[i];
        CU(dcopy(b, b->d.v.fa, b->hbuf, n3 * sizeof(float), cudaMemcpyHostToDevice), "friction_state");
    }
    return b->det ? pair_anchor_load(&b->pd, buf + n3 + 1, (long)buf[n3]) : SIPD_OK;
}

static int download_array(sipd_backend *b, double *dst, const float *src, const char *op)
{
    size_t i, n3 = (size_t)b->d.v.nv * 3;
    CU(dcopy(b, b->hbuf, src, n3 * sizeof(float), cudaMemcpyDeviceToHost), op);
    for (i = 0; i < n3; i++) dst[i] = b->hbuf[i];
    return SIPD_OK;
}

static int cuda_contact_force(sipd_backend *b, double *f)
{
    if (b->failed)
        return SIPD_EFAIL;
    if (!b->fc) {
        sipd_error("cuda backend: contact_force: not requested when the backend was created");
        return SIPD_EFAIL;
    }
    if (b->d.v.nv == 0)
        return SIPD_OK;
    KLAUNCH(SIPD_PHASE_OTHER, "contact_force", k_contact_force, grid_for(b, b->d.v.nv), b->d, b->fc);
    return download_array(b, f, b->fc, "contact_force");
}

static int cuda_download(sipd_backend *b, double *x, double *v)
{
    if (b->failed)
        return SIPD_EFAIL;
    if (b->d.v.nv == 0)
        return SIPD_OK;
    if (x && download_array(b, x, b->d.v.x, "download (positions)") != SIPD_OK)
        return SIPD_EFAIL;
    if (v && download_array(b, v, b->d.v.v, "download (velocities)") != SIPD_OK)
        return SIPD_EFAIL;
    return SIPD_OK;
}

/* backend.h guess_history (float32 on the device) */
static int cuda_guess_history(sipd_backend *b, int set, double *vp, int *valid)
{
    if (b->failed)
        return SIPD_EFAIL;
    if (!b->d.v.vp) {
        sipd_error("cuda backend: guess_history: the adaptive initial guess was not requested at create");
        return SIPD_EFAIL;
    }
    if (set) {
        if (set == 1 && b->d.v.nv > 0 && upload_positions(b, b->d.v.vp, vp, "guess_history") != SIPD_OK)
            return SIPD_EFAIL;
        b->d.v.vp_hist = set == 1;
        return SIPD_OK;
    }
    *valid = b->d.v.vp_hist;
    if (b->d.v.vp_hist && b->d.v.nv > 0 && download_array(b, vp, b->d.v.vp, "guess_history") != SIPD_OK)
        return SIPD_EFAIL;
    return SIPD_OK;
}

/* ---- assemble (backend.h): H and g of every term at y ----
 * The element Hessians at y (k_element<SIPD_PRECOND_HESSIAN>, after the direction pass at y), the
 * block rows of H on the device (k_hessian_row, float32, no atomics), then H's values and g
 * come to the host (converted to double) for the caller's solve; set_direction uploads the
 * caller's direction, gradient downloads g, iterate y.  Transfers per call: 36 bytes per
 * stored block (assemble), 12 bytes per vertex (gradient, set_direction, iterate). */

/* The caller's block-CSR pattern (sparse.h) on the device, once per pattern. */
static int hessian_pattern(sipd_backend *b, const sipd_bsr *H)
{
    const sipd_model *m = b->m;
    size_t nelem = (size_t)H->ne * H->k * H->k;
    int gi;
    void *p;
    if (b->hval && b->hp_row_off == H->row_off && b->hp_n == H->n && b->hp_nnzb == H->nnzb)
        return SIPD_OK;
    cudaFree((void *)b->hv.row_off);
    cudaFree((void *)b->hv.diag);
    cudaFree((void *)b->hv.elem_blk);
    cudaFree(b->hval);
    if (b->hval_h)
        cudaFreeHost(b->hval_h);
    b->hv.row_off = b->hv.diag = b->hv.elem_blk = NULL;
    b->hval = b->hval_h = NULL;
    b->hp_row_off = NULL;
    CU(cudaMalloc(&p, ((size_t)H->n + 1) * sizeof(int)), "assemble (pattern)");
    b->hv.row_off = (const int *)p;
    CU(cudaMalloc(&p, ((size_t)H->n > 0 ? (size_t)H->n : 1) * sizeof(int)), "assemble (pattern)");
    b->hv.diag = (const int *)p;
    CU(cudaMalloc(&p, (nelem > 0 ? nelem : 1) * sizeof(int)), "assemble (pattern)");
    b->hv.elem_blk = (const int *)p;
    CU(cudaMalloc((void **)&b->hval, ((size_t)H->nnzb > 0 ? (size_t)H->nnzb : 1) * 9 * sizeof(float)), "assemble (values)");
    CU(cudaMallocHost((void **)&b->hval_h, ((size_t)H->nnzb > 0 ? (size_t)H->nnzb : 1) * 9 * sizeof(float)),
       "assemble (values)");
    CU(dcopy(b, (void *)b->hv.row_off, H->row_off, ((size_t)H->n + 1) * sizeof(int), cudaMemcpyHostToDevice),
       "assemble (pattern)");
    if (H->n > 0)
        CU(dcopy(b, (void *)b->hv.diag, H->diag, (size_t)H->n * sizeof(int), cudaMemcpyHostToDevice), "assemble (pattern)");
    if (nelem > 0)
        CU(dcopy(b, (void *)b->hv.elem_blk, H->elem_blk, nelem * sizeof(int), cudaMemcpyHostToDevice), "assemble (pattern)");
    b->hv.k = H->k;
    b->hv.goff[0] = 0;   /* group gi's elements start at goff[gi] (model_pattern_elements) */
    for (gi = 0; gi < m->ngroups; gi++) b->hv.goff[gi + 1] = b->hv.goff[gi] + m->groups[gi].ne;
    b->hp_row_off = H->row_off;
    b->hp_n = H->n;
    b->hp_nnzb = H->nnzb;
    return SIPD_OK;
}

/* backend.h assemble, after a direction pass at y: the set of all terms only.  The element
 * Hessians are the direction pass's with SIPD_PRECOND_HESSIAN, else evaluated here. */
static int cuda_assemble(sipd_backend *b, int terms, sipd_bsr *H, double *g, sipd_bsr_extra *extra)
{
    const sipd_model *m = b->m;
    size_t i, nval = (size_t)H->nnzb * 9;
    int gi, ne = 0, npr = b->d.v.npr;
    extra->row = NULL;
    extra->blocks = NULL;
    extra->ctx = NULL;
    if (b->failed)
        return SIPD_EFAIL;
    if (terms != SIPD_TERMS_ALL) {
        sipd_error("cuda backend: assemble: only the set of all terms (SIPD_TERMS_ALL) is assembled on the GPU");
        return SIPD_EFAIL;
    }
    for (gi = 0; gi < m->ngroups; gi++) ne += m->groups[gi].ne;
    if (!b->want_hessian || H->n != m->nv || H->ne != ne || H->k != model_max_corners(m)) {
        sipd_error("cuda backend: assemble: not created for it (params.assemble) or a pattern of another model");
        return SIPD_EFAIL;
    }
    if (npr > 0 && (!b->dprD || !b->prD_h || npr > b->pr_cap || b->pd.npr != npr)) {
        sipd_error("cuda backend: assemble: the contact pairs' blocks have no buffers");
        return SIPD_EFAIL;
    }
    if (hessian_pattern(b, H) != SIPD_OK)
        return SIPD_EFAIL;
    for (gi = 0; gi < (b->precond == SIPD_PRECOND_HESSIAN ? 0 : b->d.v.ngroups); gi++)   /* the element Hessians at y */
        if (b->d.v.grp[gi].ne > 0) {   /* (SIPD_PRECOND_HESSIAN: the direction pass computed them) */
            KLAUNCH(SIPD_PHASE_OTHER, "assemble (element Hessians)", element_kernel(b, gi, 1), grid_for(b, b->d.v.grp[gi].ne),
                    b->d, gi);
        }
    if (m->nv > 0) {   /* the block rows */
        KLAUNCH(SIPD_PHASE_OTHER, "assemble (rows)", k_hessian_row, grid_for(b, m->nv), b->d, b->hv, b->hval);
    }
    if (npr > 0) {   /* the pairs' D_z at y, for their couplings (the diagonal blocks are in the rows) */
        KLAUNCH(SIPD_PHASE_OTHER, "assemble (pair blocks)", k_pair_hessian, grid_for(b, npr), b->d, b->dprD);
    }
    if (nval > 0)
        CU(dcopy(b, b->hval_h, b->hval, nval * sizeof(float), cudaMemcpyDeviceToHost), "assemble (values to the host)");
    for (i = 0; i < nval; i++) H->val[i] = b->hval_h[i];
    if (m->nv > 0 && download_array(b, g, b->d.v.g, "assemble (gradient to the host)") != SIPD_OK)
        return SIPD_EFAIL;
    if (npr > 0) {   /* the pairs' D_z (24 bytes per pair) → the couplings, on the host in double */
        CU(dcopy(b, b->h_f, b->dprD, (size_t)npr * 6 * sizeof(float), cudaMemcpyDeviceToHost),
           "assemble (pair blocks to the host)");
        for (i = 0; i < (size_t)npr * 6; i++) b->prD_h[i] = b->h_f[i];
        b->pc.pd = &b->pd;
        b->pc.D = b->prD_h;
        b->pc.fixed = m->fixed;
        extra->row = pair_coupling_row;
        extra->blocks = pair_coupling_blocks;
        extra->ctx = &b->pc;
    }
    return SIPD_OK;
}

/* backend.h terms_energy: the set of all terms only (the energy kernel covers every term). */
static int cuda_terms_energy(sipd_backend *b, int terms, double alpha, double *E)
{
    if (terms != SIPD_TERMS_ALL) {
        *E = NAN;
        sipd_error("cuda backend: terms_energy: only the set of all terms (SIPD_TERMS_ALL) is evaluated on the GPU");
        return SIPD_EFAIL;
    }
    return cuda_energy(b, alpha, E);
}

/* backend.h iterate: y, to the host. */
static int cuda_iterate(sipd_backend *b, double *y_host)
{
    if (b->failed)
        return SIPD_EFAIL;
    if (b->d.v.nv == 0)
        return SIPD_OK;
    return download_array(b, y_host, b->d.v.y, "iterate");
}

/* backend.h gradient: g of the last direction pass, to the host. */
static int cuda_gradient(sipd_backend *b, double *g_host)
{
    if (b->failed)
        return SIPD_EFAIL;
    if (b->d.v.nv == 0)
        return SIPD_OK;
    return download_array(b, g_host, b->d.v.g, "gradient");
}

/* backend.h set_direction: dy ← the caller's direction (nv*3, as float). */
static int cuda_set_direction(sipd_backend *b, const double *dy_host)
{
    if (b->failed)
        return SIPD_EFAIL;
    if (b->d.v.nv == 0)
        return SIPD_OK;
    return upload_positions(b, b->d.v.dy, dy_host, "set_direction");
}

/* backend.h profile: the counters, and the event times read so far (waits for the last). */
static int cuda_profile(sipd_backend *b, sipd_profile *out, int reset)
{
    int rc = prof_flush(b), k;
    *out = b->prof;
    if (reset)
        for (k = 0; k < SIPD_NPHASE; k++) {
            b->prof.ms[k] = 0;
            b->prof.launches[k] = b->prof.syncs[k] = 0;
        }
    return rc;
}

extern "C" const sipd_backend_ops sipd_backend_cuda = {
    "cuda",        cuda_create,   cuda_upload,    cuda_begin_step, cuda_direction, cuda_energy,   cuda_apply,
    cuda_undo,     cuda_snapshot, cuda_restore,   cuda_detect,     cuda_gs_sweep,   cuda_end_step,  cuda_download, cuda_destroy,
    cuda_step_load,
    cuda_assemble,      /* SIPD_TERMS_ALL, without contact pairs */
    cuda_set_direction,
    FLT_EPSILON,
    cuda_terms_energy,  /* SIPD_TERMS_ALL */
    cuda_iterate,
    cuda_gradient,
    cuda_contact_force,
    cuda_profile,
    cuda_guess_history,
    cuda_friction_state,
    NULL,   /* ccd_scale: contact.ccd is refused (create_check) */
    NULL,   /* contact_gap */
};

/* ---- device queries -------------------------------------------------------------------------- */
extern "C" int sipd_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();   /* clear: "no device"/"no driver" is an answer, not an error */
        return 0;
    }
    return n;
}

extern "C" int sipd_cuda_describe(char *buf, int n)
{
    int count = 0, dev = 0;
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (n <= 0)
        return -1;
    if (e != cudaSuccess || count == 0) {
        snprintf(buf, (size_t)n, "no CUDA device: %s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found none");
        (void)cudaGetLastError();
        return -1;
    }
    if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess) {
        snprintf(buf, (size_t)n, "CUDA device query failed: %s", cudaGetErrorString(e));
        return -1;
    }
    snprintf(buf, (size_t)n, "%s (device %d, %.1f GiB, compute capability %d.%d, %d SMs)", prop.name, dev,
             prop.totalGlobalMem / 1073741824.0, prop.major, prop.minor, prop.multiProcessorCount);
    return 0;
}

extern "C" int sipd_cuda_device_name(char *buf, int n)
{
    int count = 0, dev = 0;
    cudaDeviceProp prop;
    if (n <= 0)
        return -1;
    buf[0] = '\0';
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || cudaGetDevice(&dev) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    snprintf(buf, (size_t)n, "%s", prop.name);
    return 0;
}
