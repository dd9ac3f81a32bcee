/* backend_cuda.h — the CUDA backend (kernels/backend_cuda.cu) and device queries.
 *
 * Compiled only when nvcc is found (CMake defines SIPD_HAVE_CUDA=1 for the targets that link
 * the sipd_cuda library).  The backend keeps float32 state on the device (docs/design.md §2) and
 * implements every op of backend.h for the SPLIT, BLOCK, DIAG, MASS and SIPD_PRECOND_HESSIAN
 * passes (assemble and terms_energy: the set of all terms; create() refuses SIPD_PRECOND_HESSIAN
 * with contact pairs, SIPD_PRECOND_NONE altogether); contact (ground, pairs detected on the
 * device or the host) works with Jacobi sweeps, gs_sweep refuses it.
 * Every CUDA call is checked: a failure prints "cuda backend: OP: CALL failed: REASON" and the
 * op returns SIPD_EFAIL (never a silent fall-back to the CPU).
 */
#ifndef SIPD_BACKEND_CUDA_H
#define SIPD_BACKEND_CUDA_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sipd_backend_ops sipd_backend_cuda;

/* Number of usable CUDA devices; 0 when there is none or no usable driver (never an error). */
int sipd_cuda_device_count(void);

/* Describe the current device into buf (at most n bytes, NUL-terminated):
 * "NAME (device I, X GiB, compute capability M.m, S SMs)".  Returns 0; when no device is
 * usable returns -1 and writes the reason ("no CUDA device: ..."). */
int sipd_cuda_describe(char *buf, int n);

/* Just the device name (for the HDF5 `device` attribute); "" when none.  Returns 0 / -1. */
int sipd_cuda_device_name(char *buf, int n);

/* Which Gauss–Seidel kernels backend b (one of sipd_backend_cuda's) runs for its model: 0 the
 * generic k_gs_color, 1-5 one kind (tets of stable neo-Hookean, edges, triangles of stable
 * neo-Hookean, tets of neo-Hookean, of StVK), 6 / 7 triangles of stable neo-Hookean with hinges /
 * mid-edge bending, 8 edges with rod bending (kernels/backend_cuda.cu gs_fixed).  The environment
 * variable SIPD_CUDA_GS_GENERIC=1 at create makes it 0 (the generic kernels: tests/gpu compares
 * the specialised ones with them). */
int sipd_cuda_gs_class(sipd_backend *b);

#ifdef __cplusplus
}
#endif

#endif
