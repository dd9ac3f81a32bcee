/* device_radix_sort.cuh — the emulation's cub::DeviceRadixSort::SortPairs (tests/emu/README.md):
 * CUB's signature and temp-storage protocol; a stable LSD radix sort (8-bit digits) over key
 * bits [begin_bit, end_bit) only, as CUB's: keys equal in those bits keep their input order.
 * Unsigned and signed integral keys (signed: CUB's order, via the flipped sign bit). */
#ifndef SIPD_EMU_CUB_DEVICE_RADIX_SORT_CUH
#define SIPD_EMU_CUB_DEVICE_RADIX_SORT_CUH

#include <vector>

#include "emu_common.cuh"

namespace cub {

struct DeviceRadixSort {
    template <class KeyT, class ValueT, class NumItemsT>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, const KeyT *d_keys_in,
                                 KeyT *d_keys_out, const ValueT *d_values_in, ValueT *d_values_out, NumItemsT num_items,
                                 int begin_bit = 0, int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0)
    {
        static_assert(std::is_integral<KeyT>::value, "the emulated SortPairs sorts integral keys only");
        typedef typename std::make_unsigned<KeyT>::type U;
        const char *alg = "cub::DeviceRadixSort::SortPairs";
        const long long n = (long long)num_items;
        const size_t need = (size_t)(n > 0 ? n : 0) * (sizeof(KeyT) + sizeof(ValueT)) + 256;
        cudaError_t e;
        (void)stream;
        int r = emu_detail::temp_protocol(alg, d_temp_storage, temp_storage_bytes, need, &e);
        if (r)
            return r > 0 ? cudaSuccess : e;
        if (begin_bit < 0 || end_bit > (int)sizeof(KeyT) * 8 || begin_bit > end_bit || n < 0) {
            fprintf(stderr, "cuda emulation: %s: bad bit range [%d, %d) or item count %lld\n", alg, begin_bit, end_bit,
                    n);
            return cudaErrorInvalidValue;
        }
        if ((e = emu_detail::range(alg, d_keys_in, n)) != cudaSuccess ||
            (e = emu_detail::range(alg, d_keys_out, n)) != cudaSuccess ||
            (e = emu_detail::range(alg, d_values_in, n)) != cudaSuccess ||
            (e = emu_detail::range(alg, d_values_out, n)) != cudaSuccess)
            return e;
        if (n > 0 && ((const void *)d_keys_in == (const void *)d_keys_out ||
                      (const void *)d_values_in == (const void *)d_values_out)) {
            fprintf(stderr, "cuda emulation: %s: input and output alias (use the DoubleBuffer overload)\n", alg);
            return cudaErrorInvalidValue;
        }
        const U flip = std::is_signed<KeyT>::value ? (U)((U)1 << (sizeof(U) * 8 - 1)) : (U)0;
        std::vector<U> k0((size_t)n), k1((size_t)n);
        std::vector<ValueT> v0(d_values_in, d_values_in + n), v1((size_t)n);
        for (long long i = 0; i < n; i++) k0[(size_t)i] = (U)d_keys_in[i] ^ flip;
        for (int b = begin_bit; b < end_bit; b += 8) {
            const int w = end_bit - b < 8 ? end_bit - b : 8;
            const U mask = (U)((1u << w) - 1);
            size_t count[257] = {0};
            for (long long i = 0; i < n; i++) count[(size_t)((k0[(size_t)i] >> b) & mask) + 1]++;
            for (int d = 0; d < 256; d++) count[d + 1] += count[d];
            for (long long i = 0; i < n; i++) {   /* in input order: stable */
                size_t at = count[(size_t)((k0[(size_t)i] >> b) & mask)]++;
                k1[at] = k0[(size_t)i];
                v1[at] = v0[(size_t)i];
            }
            k0.swap(k1);
            v0.swap(v1);
        }
        for (long long i = 0; i < n; i++) {
            d_keys_out[i] = (KeyT)(k0[(size_t)i] ^ flip);
            d_values_out[i] = v0[(size_t)i];
        }
        return cudaSuccess;
    }
};

}  // namespace cub

#endif
