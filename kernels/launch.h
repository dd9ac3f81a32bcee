/* launch.h — kernel launches that both nvcc and the emulation build (SIPD_CUDA_EMU,
 * tests/emu/README.md) compile.
 *
 *   SIPD_LAUNCH(kernel, grid, block, smem, args...)
 *
 * is `kernel<<<grid, block, smem>>>(args...)` under nvcc.  In the emulation build (the kernels/ .cu files
 * compiled as C++ by the host compiler) it converts the arguments to the kernel's parameter
 * types once and runs the grid on the CPU (emu::launch, tests/emu/cuda_runtime.h); kernel may be
 * a function or a function pointer (the k_element / k_gs_color tables).  The emulation checks
 * the block size against SIPD_LAUNCH_BOUND — the __launch_bounds__ every kernel of the file is
 * declared with, NT unless the file defines SIPD_LAUNCH_BOUND — since a host function pointer
 * does not carry the attribute. */
#ifndef SIPD_KERNELS_LAUNCH_H
#define SIPD_KERNELS_LAUNCH_H

#ifdef __CUDACC__
#define SIPD_LAUNCH(kernel, grid, block, smem, ...) kernel<<<(grid), (block), (smem)>>>(__VA_ARGS__)
#else
#ifndef SIPD_CUDA_EMULATION
#error "kernels/launch.h: compile the kernels/ .cu files with nvcc, or with the emulation's tests/emu first on the include path"
#endif
#ifndef SIPD_LAUNCH_BOUND
#define SIPD_LAUNCH_BOUND NT
#endif
#define SIPD_LAUNCH(kernel, grid, block, smem, ...)                                           \
    do {                                                                                      \
        auto emu_k_ = (kernel);                                                               \
        typename ::emu::kernel_args<decltype(emu_k_)>::type emu_a_(__VA_ARGS__);              \
        ::emu::launch(#kernel, emu_k_, emu_a_, (SIPD_LAUNCH_BOUND), (grid), (block), (smem)); \
    } while (0)
#endif

#endif
