/* emu_common.cuh — shared by the emulation's CUB stand-ins (tests/emu/README.md): the
 * temp-storage protocol and the range checks.  CUB's protocol: a first call with
 * d_temp_storage == NULL only sets temp_storage_bytes; the second call, with at least that much
 * device memory, does the work.  The stand-ins ask for scratch proportional to the input (as
 * CUB's do), fail with cudaErrorInvalidValue when the storage passed is smaller than asked or
 * is not device memory, clobber it, and check every input and output range against the device
 * allocations. */
#ifndef SIPD_EMU_CUB_COMMON_CUH
#define SIPD_EMU_CUB_COMMON_CUH

#include <cstdio>
#include <iterator>
#include <type_traits>

#include "../../cuda_runtime.h"

namespace cub {
namespace emu_detail {

/* 1: only the size was asked (done); 0: go on; -1: error in *e */
inline int temp_protocol(const char *alg, void *d_temp, size_t &bytes, size_t need, cudaError_t *e)
{
    *e = ::emu::sticky_error();
    if (*e != cudaSuccess)
        return -1;
    if (!d_temp) {
        bytes = need;
        return 1;
    }
    if (bytes < need) {
        fprintf(stderr, "cuda emulation: %s: temp_storage_bytes %zu is less than the %zu bytes the size query asked for\n",
                alg, bytes, need);
        *e = cudaErrorInvalidValue;
        return -1;
    }
    if ((*e = ::emu::check_device_range(d_temp, need, alg)) != cudaSuccess)
        return -1;
    ::emu::fill_scratch(d_temp, need);
    return 0;
}

/* device range check of a pointer argument; other iterators are not checked */
template <class T> inline cudaError_t range(const char *alg, T *p, long long n)
{
    if (n <= 0)
        return cudaSuccess;
    return ::emu::check_device_range((const void *)p, (size_t)n * sizeof(T), alg);
}
template <class It, class = typename std::enable_if<!std::is_pointer<It>::value>::type>
inline cudaError_t range(const char *, It, long long)
{
    return cudaSuccess;
}

}  // namespace emu_detail
}  // namespace cub

#endif
