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
/* Fused multiply–add on the host (docs/precision.md, "FMA on the CPU").  The host compilers
 * contract nothing on their own (ISO C/C++, -ffp-contract=off).  Where the target has a fast FMA
 * (FP_FAST_FMA, FP_FAST_FMAF: the build's -mavx2 -mfma, CMakeLists.txt SIPD_HOST_FMA, or aarch64)
 * and the build does not define SIPD_NO_HOST_FMA, the small products below are fma() calls, one
 * rounding each, the same in every loop that calls them (the CPU's lane loops and its tet-by-tet
 * loops stay bit-identical).  Elsewhere — without FMA, and on the device, where nvcc contracts as
 * it always did — they expand to the plain expressions, operation for operation those of the code
 * before (the PTX is unchanged).  SIPD_DOT3's FMA form, fma(a2, b2, fma(a1, b1, a0 b0)), is the
 * one nvcc chose for m3_mulv (kinds/tet.h kind_tet_Pg). */
#if !defined(__CUDA_ARCH__) && !defined(SIPD_NO_HOST_FMA) &&                                                   \
    ((defined(SIPD_REAL_FLOAT) && defined(FP_FAST_FMAF)) || (!defined(SIPD_REAL_FLOAT) && defined(FP_FAST_FMA)))
#define SIPD_HOST_FMA 1
#ifdef SIPD_REAL_FLOAT
#define SIPD_MULADD(a, b, c) fmaf((a), (b), (c))
#else
#define SIPD_MULADD(a, b, c) fma((a), (b), (c))
#endif
#define SIPD_DOT3(a0, b0, a1, b1, a2, b2) SIPD_MULADD((a2), (b2), SIPD_MULADD((a1), (b1), (a0) * (b0)))
#define SIPD_DOT2(a0, b0, a1, b1) SIPD_MULADD((a1), (b1), (a0) * (b0))
#define SIPD_DIFF2(a0, b0, a1, b1) SIPD_MULADD((a0), (b0), -((a1) * (b1)))
#else
#define SIPD_HOST_FMA 0
#define SIPD_MULADD(a, b, c) ((a) * (b) + (c))
#define SIPD_DOT3(a0, b0, a1, b1, a2, b2) ((a0) * (b0) + (a1) * (b1) + (a2) * (b2))
#define SIPD_DOT2(a0, b0, a1, b1) ((a0) * (b0) + (a1) * (b1))
#define SIPD_DIFF2(a0, b0, a1, b1) ((a0) * (b0) - (a1) * (b1))
#endif

/* a·b rounded on its own: on the device never contracted with a following sum into an FMA
 * (__fmul_rn), where a caller's result must not depend on how the compiler laid out the blocks
 * (kinds/tet.h kind_tet_corner_nh); the host contracts only what the SIPD_MULADD family spells out */
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
