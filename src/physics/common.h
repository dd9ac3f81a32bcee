/* common.h — the portability layer of the shared physics headers.
 *
 * Every per-element formula of sipd-run lives once, in the headers of src/physics, as static inline
 * functions marked SIPD_HD.  Under nvcc (__CUDACC__) SIPD_HD adds __host__ __device__, so the
 * CUDA kernels call exactly the functions that the CPU backend (and the CPU tests) call.
 * Keep these headers in the common subset of C11 and C++: no restrict (use SIPD_RESTRICT), no
 * VLAs, compound literals, designated initialisers or _Generic.
 *
 * Scalar type: sipd_real is double unless SIPD_REAL_FLOAT is defined (the CUDA backend
 * defines it: float32 on the device, as in the paper).
 */
#ifndef SIPD_PHYSICS_COMMON_H
#define SIPD_PHYSICS_COMMON_H

#include <math.h>

#ifdef __CUDACC__
#define SIPD_HD __host__ __device__ static inline
#define SIPD_RESTRICT __restrict__
#else
#define SIPD_HD static inline
#define SIPD_RESTRICT restrict
#endif
/* a hot pass function that must be inlined into the CPU backend's loop (GCC's stack-frame limits
 * would keep it out of line); nothing on the device, where the kernels inline anyway */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define SIPD_ALWAYS_INLINE __attribute__((always_inline))
#else
#define SIPD_ALWAYS_INLINE
#endif

/* a loop that the device compiler must not unroll (each unrolled copy keeps its loads in flight,
 * in registers); nothing on the host, whose loops and results it leaves alone */
#ifdef __CUDA_ARCH__
#define SIPD_DEVICE_NO_UNROLL _Pragma("unroll 1")
#else
#define SIPD_DEVICE_NO_UNROLL
#endif

#ifdef SIPD_REAL_FLOAT
typedef float sipd_real;
#define SIPD_R(x) ((float)(x))
#define sipd_sqrt sqrtf
#define sipd_fabs fabsf
#define SIPD_REAL_NAME "float32"
#define SIPD_REAL_EPS SIPD_R(1.1920929e-7)
#else
typedef double sipd_real;
#define SIPD_R(x) ((double)(x))
#define sipd_sqrt sqrt
#define sipd_fabs fabs
#define SIPD_REAL_NAME "float64"
#define SIPD_REAL_EPS SIPD_R(2.220446049250313e-16)
#endif

SIPD_HD sipd_real sipd_max(sipd_real a, sipd_real b) { return a > b ? a : b; }
SIPD_HD sipd_real sipd_min(sipd_real a, sipd_real b) { return a < b ? a : b; }
/* a·b rounded on its own: on the device never contracted with a following sum into an FMA
 * (__fmul_rn), where a caller's result must not depend on how the compiler laid out the blocks
 * (kinds/tet.h kind_tet_corner_nh); the host contracts nothing (C11, no FMA target) */
#if defined(__CUDA_ARCH__) && defined(SIPD_REAL_FLOAT)
SIPD_HD sipd_real sipd_mul_nc(sipd_real a, sipd_real b) { return __fmul_rn(a, b); }
#else
SIPD_HD sipd_real sipd_mul_nc(sipd_real a, sipd_real b) { return a * b; }
#endif

/* Armijo test of a per-vertex (Gauss–Seidel) local line search: E1 = E(y_a + α d) against
 * E0 + c α g·d, with a rise within the round-off of the local elastic sum allowed
 * (scale = √Σ_{e∋a} ((μ+λ)V_e)²: the elements round independently; 16 ε of it, as the driver's
 * global comparisons).  Without the allowance the sweeps floored near 1e-6 of the relative force
 * residual; with Σ instead of the root sum of squares, float32 sweeps accepted real rises. */
SIPD_HD int local_ls_accept(sipd_real E1, sipd_real E0, sipd_real alpha, sipd_real gd, sipd_real scale)
{
    return gd < 0 && E1 <= E0 + SIPD_R(1e-4) * alpha * gd + SIPD_R(16.0) * SIPD_REAL_EPS * scale;
}

#endif
