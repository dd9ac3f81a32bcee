/* launch.h — kernel launches through one macro, so the kernels of kernels/ also compile with a host C++
 * compiler against the emulation layer (tests/emu, `make gpu-emu`).
 *   SIPD_LAUNCH(kernel, grid, block, smem, args...)  ==  kernel<<<grid, block, smem>>>(args...)
 */
#ifndef SIPD_KERNELS_LAUNCH_H
#define SIPD_KERNELS_LAUNCH_H
#ifdef __CUDACC__
#define SIPD_LAUNCH(kernel, grid, block, smem, ...) (kernel)<<<(grid), (block), (smem)>>>(__VA_ARGS__)
#else
#define SIPD_LAUNCH(kernel, grid, block, smem, ...) sipd_emu_launch((kernel), (grid), (block), (smem), __VA_ARGS__)
#endif
#endif
