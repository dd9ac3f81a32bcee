/* cuda_runtime.h — the emulation build's stand-in for CUDA's (tests/emu/README.md).  C++17, for
 * the kernels/ .cu files compiled by the host compiler (-x c++).
 *
 * Kernels are ordinary functions.  A launch (SIPD_LAUNCH, kernels/launch.h → emu::launch) runs
 * the grid's blocks one after another on the calling thread; the threads of a block are
 * cooperative fibers, so __syncthreads() is a real barrier over the block and the warp
 * shuffles exchange values between the 32 lanes of a warp (a warp barrier per shuffle).
 * threadIdx / blockIdx / blockDim / gridDim are globals that the scheduler sets for the fiber
 * it resumes.  __shared__ is `static`: one copy, which is correct because blocks run one at a
 * time (it is not refilled between blocks).  Atomics are plain read-modify-writes: fibers on
 * one OS thread never interleave inside one.
 */
#ifndef SIPD_EMU_CUDA_RUNTIME_H
#define SIPD_EMU_CUDA_RUNTIME_H

#ifndef __cplusplus
#error "tests/emu/cuda_runtime.h is C++ (the emulation compiles the kernels/ .cu files with -x c++)"
#endif

#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_runtime_api.h"

/* ---- qualifiers ----------------------------------------------------------------------------- */
#define __global__
#define __device__
#define __host__
#define __constant__
/* parameter-space qualifier (a kernel reads a const by-value parameter in place, no local copy):
 * nothing to do on the host */
#define __grid_constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __align__(n) alignas(n)
/* The bound is checked at launch against the bound the launch macro passes (kernels/launch.h):
 * the attribute itself cannot be read back from a function pointer on the host. */
#define __launch_bounds__(...)
/* a register cap for ptxas (the kernel's code is the same): nothing on the host */
#define __maxnreg__(n)

/* ---- vector types (CUDA's sizes and alignments) ---------------------------------------------- */
struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
struct alignas(8) int2 { int x, y; };
struct int3 { int x, y, z; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct float3 { float x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int3 make_int3(int x, int y, int z) { return {x, y, z}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
static_assert(sizeof(int4) == 16 && alignof(int4) == 16 && sizeof(float4) == 16, "CUDA vector layout");

/* ---- built-in variables (set by the scheduler for the running fiber) ------------------------- */
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
constexpr int warpSize = 32;

namespace emu {
/* barriers and lane exchange (emu.cpp) */
void sync_block();
void sync_warp();
/* lane's slot for this shuffle; returns the exchange buffer of the current warp after the barrier */
const uint64_t *warp_exchange(uint64_t mine);
unsigned lane_count();   /* lanes of the current warp (32 but in a partial last warp) */
unsigned lane_id();      /* the current thread's lane (linear thread index mod 32) */

template <class T> inline uint64_t to_bits(T v)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "shuffle of a type over 8 bytes");
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof v);
    return u;
}
template <class T> inline T from_bits(uint64_t u)
{
    T v;
    std::memcpy(&v, &u, sizeof v);
    return v;
}
void check_mask(unsigned mask, const char *what);
/* the value of lane src when ok (and src is a lane of this warp), else the caller's own */
template <class T> inline T shfl_from(T v, int src, int ok)
{
    const uint64_t *x = warp_exchange(to_bits(v));
    return ok && src >= 0 && src < (int)lane_count() ? from_bits<T>(x[src]) : v;
}
}  // namespace emu

inline void __syncthreads() { emu::sync_block(); }
/* the blocks of a grid run one after another on one host thread: memory is coherent, a fence
   orders nothing more (the "last block folds" reductions then meet their last block last) */
inline void __threadfence() {}
inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    emu::check_mask(mask, "__syncwarp");
    emu::sync_warp();
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    int lane = (int)emu::lane_id(), base = lane / width * width;
    emu::check_mask(mask, "__shfl_sync");
    return emu::shfl_from(v, base + (src % width), 1);
}
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    int lane = (int)emu::lane_id(), base = lane / width * width, src = lane + (int)delta;
    emu::check_mask(mask, "__shfl_down_sync");
    return emu::shfl_from(v, src, src < base + width);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    int lane = (int)emu::lane_id(), base = lane / width * width, src = lane - (int)delta;
    emu::check_mask(mask, "__shfl_up_sync");
    return emu::shfl_from(v, src, src >= base);
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int lanemask, int width = 32)
{
    int lane = (int)emu::lane_id(), base = lane / width * width, src = lane ^ lanemask;
    emu::check_mask(mask, "__shfl_xor_sync");
    return emu::shfl_from(v, src, src >= base && src < base + width);
}
inline unsigned __ballot_sync(unsigned mask, int pred)
{
    emu::check_mask(mask, "__ballot_sync");
    const uint64_t *x = emu::warp_exchange(pred != 0);
    unsigned r = 0, n = emu::lane_count();
    for (unsigned l = 0; l < n; l++) r |= (x[l] ? 1u : 0u) << l;
    return r;
}
inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
inline int __all_sync(unsigned mask, int pred)
{
    unsigned n = emu::lane_count();
    return __ballot_sync(mask, pred) == (n == 32 ? 0xffffffffu : (1u << n) - 1);
}

/* ---- atomics: one OS thread, so a plain read-modify-write is atomic ------------------------- */
template <class T> inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> inline T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }
template <class T> inline T atomicMax(T *p, T v) { T o = *p; if (v > o) *p = v; return o; }
template <class T> inline T atomicMin(T *p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <class T> inline T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }
template <class T> inline T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <class T> inline T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <class T> inline T atomicCAS(T *p, T cmp, T v) { T o = *p; if (o == cmp) *p = v; return o; }

/* ---- intrinsics ------------------------------------------------------------------------------- */
inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, sizeof r); return r; }
inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, sizeof r); return r; }
inline int __float_as_int(float x) { int r; std::memcpy(&r, &x, sizeof r); return r; }
inline float __int_as_float(int x) { float r; std::memcpy(&r, &x, sizeof r); return r; }
template <class T> inline T __ldg(const T *p) { return *p; }

/* ---- C++ overloads of the runtime API --------------------------------------------------------- */
template <class T> inline cudaError_t cudaMalloc(T **p, size_t bytes) { return cudaMalloc((void **)p, bytes); }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t bytes) { return cudaMallocHost((void **)p, bytes); }
template <class R, class... A> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, R (*f)(A...))
{
    return cudaFuncGetAttributes(a, (const void *)f);
}

/* ---- used by the CUB stand-ins (tests/emu/cub) ------------------------------------------------ */
namespace emu {
/* cudaSuccess when [p, p + bytes) lies inside one device allocation, else cudaErrorInvalidValue
 * (and a message naming what) */
cudaError_t check_device_range(const void *p, size_t bytes, const char *what);
cudaError_t sticky_error();   /* an earlier kernel fault (sticky, as on CUDA) or cudaSuccess */
void fill_scratch(void *p, size_t bytes);   /* clobber CUB scratch like a real algorithm would */
}  // namespace emu

/* ---- launches ---------------------------------------------------------------------------------- */
namespace emu {
/* Checks the configuration (a launch error for cudaGetLastError when it is invalid), then runs
 * body(ctx) once per thread, block after block.  fn names the kernel in messages. */
void run_grid(const char *name, const void *fn, unsigned bound, dim3 grid, dim3 block, size_t smem,
              void (*body)(void *), void *ctx);

template <class F> struct kernel_args;
template <class... P> struct kernel_args<void (*)(P...)> {
    typedef std::tuple<typename std::decay<P>::type...> type;
};

/* The arguments are converted to the kernel's parameter types once, at the launch (as CUDA
 * does); each thread gets its own copy of them (kernels may modify their parameters). */
template <class K, class T> void launch(const char *name, K k, T &args, unsigned bound, dim3 grid, dim3 block,
                                        size_t smem)
{
    struct ctx_t { K k; T *a; } ctx = {k, &args};
    run_grid(name, (const void *)k, bound, grid, block, smem,
             [](void *p) {
                 ctx_t *c = (ctx_t *)p;
                 std::apply(c->k, *c->a);
             },
             &ctx);
}
}  // namespace emu

#endif
