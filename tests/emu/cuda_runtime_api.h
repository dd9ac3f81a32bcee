/* cuda_runtime_api.h — the CUDA runtime API of the emulation build (SIPD_CUDA_EMU, tests/emu/README.md):
 * the subset of types and calls that the kernels/ .cu files and the gpu tests use, implemented on the host by
 * tests/emu/emu.cpp.  C-compatible (tests/gpu/test_gpu_collide.c is C); the C++-only parts (kernel
 * qualifiers, vector types, builtins, launches) are in cuda_runtime.h.
 *
 * Device memory is host memory from malloc, filled with 0xFF bytes when allocated (reads of
 * never-written device memory show up as NaN / -1), and tracked: a cudaMemcpy or cudaMemset that
 * leaves a device allocation, or names a host pointer where the kind says device (or the reverse),
 * fails with cudaErrorInvalidValue and a message on stderr. */
#ifndef SIPD_EMU_CUDA_RUNTIME_API_H
#define SIPD_EMU_CUDA_RUNTIME_API_H

#include <stddef.h>

#define SIPD_CUDA_EMULATION 1
#define CUDART_VERSION 12000

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

typedef enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76
} cudaDeviceAttr;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#ifdef __cplusplus
#define EMU_DEFAULT(v) = v
#else
#define EMU_DEFAULT(v)
#endif

typedef struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    int major;
    int minor;
    int multiProcessorCount;
    int maxThreadsPerMultiProcessor;
} cudaDeviceProp;

typedef struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
} cudaFuncAttributes;

cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *p, int value, size_t bytes);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int dev);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int dev);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
/* Events: a record takes the host clock (every launch before it has completed); elapsed time
 * between two recorded events in ms; an event never recorded, or destroyed, is an error there. */
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream EMU_DEFAULT(0));
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* Not CUDA: what the emulated device was asked to do since the program started — kernel
 * launches (emu::launch, failed ones included), cudaMemcpy calls by kind, cudaDeviceSynchronize
 * and cudaEventSynchronize calls.  Tests compare a backend's own counters with these. */
typedef struct {
    long launches, h2d, d2h, d2d, h2h, device_syncs, event_syncs;
} emu_counts;
void emu_counters(emu_counts *out);

#ifdef __cplusplus
}
#endif

#endif
