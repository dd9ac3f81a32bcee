/* device_scan.cuh — the emulation's cub::DeviceScan::ExclusiveSum (tests/emu/README.md): CUB's
 * signature and temp-storage protocol; out[0] = 0, out[i] = in[0] + … + in[i-1], accumulated in
 * the input's value type; in place (d_in == d_out) allowed, as in CUB. */
#ifndef SIPD_EMU_CUB_DEVICE_SCAN_CUH
#define SIPD_EMU_CUB_DEVICE_SCAN_CUH

#include "emu_common.cuh"

namespace cub {

struct DeviceScan {
    template <class InputIt, class OutputIt, class NumItemsT>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in, OutputIt d_out,
                                    NumItemsT num_items, cudaStream_t stream = 0)
    {
        typedef typename std::iterator_traits<InputIt>::value_type T;
        const char *alg = "cub::DeviceScan::ExclusiveSum";
        const long long n = (long long)num_items;
        cudaError_t e;
        (void)stream;
        int r = emu_detail::temp_protocol(alg, d_temp_storage, temp_storage_bytes,
                                          (size_t)(n > 0 ? n : 0) / 64 * sizeof(T) + 256, &e);
        if (r)
            return r > 0 ? cudaSuccess : e;
        if ((e = emu_detail::range(alg, d_in, n)) != cudaSuccess || (e = emu_detail::range(alg, d_out, n)) != cudaSuccess)
            return e;
        T acc = T();
        for (long long i = 0; i < n; i++) {
            T x = d_in[i];
            d_out[i] = acc;
            acc = acc + x;
        }
        return cudaSuccess;
    }
};

}  // namespace cub

#endif
