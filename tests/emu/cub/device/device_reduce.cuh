/* device_reduce.cuh — the emulation's cub::DeviceReduce::Reduce (tests/emu/README.md): CUB's
 * signature and temp-storage protocol; *d_out = init ⊕ in[0] ⊕ … ⊕ in[n-1], folded left to
 * right (CUB's order is unspecified: the operator must be associative and commutative). */
#ifndef SIPD_EMU_CUB_DEVICE_REDUCE_CUH
#define SIPD_EMU_CUB_DEVICE_REDUCE_CUH

#include "emu_common.cuh"

namespace cub {

struct DeviceReduce {
    template <class InputIt, class OutputIt, class NumItemsT, class ReductionOpT, class T>
    static cudaError_t Reduce(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in, OutputIt d_out,
                              NumItemsT num_items, ReductionOpT op, T init, cudaStream_t stream = 0)
    {
        const char *alg = "cub::DeviceReduce::Reduce";
        const long long n = (long long)num_items;
        cudaError_t e;
        (void)stream;
        int r = emu_detail::temp_protocol(alg, d_temp_storage, temp_storage_bytes, 256, &e);
        if (r)
            return r > 0 ? cudaSuccess : e;
        if ((e = emu_detail::range(alg, d_in, n)) != cudaSuccess || (e = emu_detail::range(alg, d_out, 1)) != cudaSuccess)
            return e;
        T acc = init;
        for (long long i = 0; i < n; i++) acc = op(acc, d_in[i]);
        *d_out = acc;
        return cudaSuccess;
    }
};

}  // namespace cub

#endif
