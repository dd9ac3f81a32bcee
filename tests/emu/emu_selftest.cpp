/* emu_selftest.cpp — checks of the emulation layer itself (tests/gpu/emu.cmake, CTest emu_selftest):
 * barriers and shuffles behave like a GPU's, launch and copy errors are reported, the CUB
 * stand-ins keep their protocol and CUB's results (stable radix sort on a bit range), events
 * time in order and refuse unrecorded or destroyed events, emu_counters counts what it is asked. */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "launch.h"
#include "check.h"

#define NT 256

/* block sum by warp shuffles + shared memory, as the backend's block_partials */
__global__ void __launch_bounds__(NT) k_blocksum(const int *in, int n, long long *out)
{
    __shared__ long long sh[NT / 32];
    long long v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? sh[threadIdx.x] : 0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0)
            atomicAdd((unsigned long long *)out, (unsigned long long)v);
    }
}

/* every thread writes, barrier, then reads its neighbour's value: needs a real barrier */
__global__ void __launch_bounds__(NT) k_rotate(int *out)
{
    __shared__ int sh[NT];
    sh[threadIdx.x] = (int)threadIdx.x * 3;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = sh[(threadIdx.x + 1) % blockDim.x];
}

/* lanes ≥ 16 return early, the others shuffle: a deadlock (undefined on a GPU) */
__global__ void __launch_bounds__(NT) k_divergent(int *out)
{
    if ((threadIdx.x & 31) >= 16)
        return;
    out[threadIdx.x] = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 1);
}

int main()
{
    const int n = 10000;
    std::vector<int> h(n);
    long long want = 0;
    for (int i = 0; i < n; i++) want += h[i] = (i * 7919) % 1000 - 300;
    int *d_in = nullptr, *d_out = nullptr;
    long long *d_sum = nullptr;
    CHECK(cudaMalloc((void **)&d_in, n * sizeof(int)) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc((void **)&d_out, 4 * NT * sizeof(int)) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc((void **)&d_sum, sizeof(long long)) == cudaSuccess, "cudaMalloc");
    {   /* new device memory reads as 0xFF bytes */
        int probe = 0;
        cudaMemcpy(&probe, d_in, sizeof probe, cudaMemcpyDeviceToHost);
        CHECK(probe == -1, "fresh device memory reads %d, not 0xFFFFFFFF", probe);
    }
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess, "upload");
    CHECK(cudaMemcpy(d_in, h.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
          "a copy past the end of an allocation is an error");
    CHECK(cudaMemset(d_in + 1, 0, n * sizeof(int)) == cudaErrorInvalidValue, "memset past the end is an error");
    CHECK(cudaMemcpy(d_out, d_in, sizeof(int), cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
          "a device source with kind HostToDevice is an error");
    CHECK(cudaFree(d_in + 1) == cudaErrorInvalidValue, "cudaFree of an interior pointer is an error");
    (void)cudaGetLastError();

    cudaMemset(d_sum, 0, sizeof(long long));
    SIPD_LAUNCH(k_blocksum, 3, NT, 0, d_in, n, d_sum);
    CHECK(cudaGetLastError() == cudaSuccess, "launch");
    long long got = 0;
    cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost);
    CHECK(got == want, "block sums by shuffles: %lld, want %lld", got, want);

    SIPD_LAUNCH(k_rotate, 4, NT, 0, d_out);
    std::vector<int> r(4 * NT);
    cudaMemcpy(r.data(), d_out, r.size() * sizeof(int), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < 4 * NT; i++) bad += r[i] != ((i % NT + 1) % NT) * 3;
    CHECK(bad == 0, "__syncthreads: %d threads read a value not yet written", bad);

    /* launch errors */
    SIPD_LAUNCH(k_rotate, 0, NT, 0, d_out);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "empty grid");
    SIPD_LAUNCH(k_rotate, 1, 2048, 0, d_out);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "2048 threads per block");
    SIPD_LAUNCH(k_rotate, 1, 512, 0, d_out);
    CHECK(cudaGetLastError() == cudaErrorLaunchOutOfResources, "512 threads over __launch_bounds__(256)");
    SIPD_LAUNCH(k_rotate, 1, NT, 64 * 1024, d_out);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue, "64 KiB of dynamic shared memory");
    CHECK(cudaGetLastError() == cudaSuccess, "launch errors are not sticky");

    /* CUB: protocol and a stable sort on bits [4, 12) */
    const int m = 5000;
    std::vector<unsigned long long> hk(m);
    std::vector<int> hv(m);
    for (int i = 0; i < m; i++) {
        hk[i] = ((unsigned long long)(i * 2654435761u) & 0xfff) | ((unsigned long long)i << 40);
        hv[i] = i;
    }
    unsigned long long *dk, *dk2;
    int *dv, *dv2;
    cudaMalloc((void **)&dk, m * 8);
    cudaMalloc((void **)&dk2, m * 8);
    cudaMalloc((void **)&dv, m * 4);
    cudaMalloc((void **)&dv2, m * 4);
    cudaMemcpy(dk, hk.data(), m * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, hv.data(), m * 4, cudaMemcpyHostToDevice);
    size_t bytes = 0;
    void *tmp = nullptr;
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dk2, dv, dv2, m, 4, 12) == cudaSuccess && bytes > 0,
          "size query");
    cudaMalloc(&tmp, bytes);
    size_t less = bytes - 1;
    CHECK(cub::DeviceRadixSort::SortPairs(tmp, less, dk, dk2, dv, dv2, m, 4, 12) == cudaErrorInvalidValue,
          "too little temp storage is an error");
    CHECK(cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dk2, dv, dv2, m, 4, 12) == cudaSuccess, "sort");
    std::vector<unsigned long long> sk(m);
    std::vector<int> sv(m);
    cudaMemcpy(sk.data(), dk2, m * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(sv.data(), dv2, m * 4, cudaMemcpyDeviceToHost);
    bad = 0;
    for (int i = 1; i < m; i++) {
        unsigned a = (sk[i - 1] >> 4) & 0xff, b = (sk[i] >> 4) & 0xff;
        bad += a > b || (a == b && sv[i - 1] > sv[i]) || sk[i] != hk[sv[i]];
    }
    CHECK(bad == 0, "radix sort on bits [4, 12): %d entries out of (stable) order", bad);
    cudaFree(tmp);

    long long *dc, *doff;
    cudaMalloc((void **)&dc, 101 * 8);
    cudaMalloc((void **)&doff, 101 * 8);
    std::vector<long long> hc(101, 2);
    cudaMemcpy(dc, hc.data(), 101 * 8, cudaMemcpyHostToDevice);
    bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, bytes, dc, doff, 101);
    cudaMalloc(&tmp, bytes);
    CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, dc, doff, 101) == cudaSuccess, "scan");
    long long last = 0;
    cudaMemcpy(&last, doff + 100, 8, cudaMemcpyDeviceToHost);
    CHECK(last == 200, "exclusive scan: last %lld, want 200", last);
    cudaFree(tmp);
    struct mx {
        long long operator()(long long a, long long b) const { return a > b ? a : b; }
    };
    bytes = 0;
    cub::DeviceReduce::Reduce(nullptr, bytes, doff, dc, 101, mx(), -1LL);
    cudaMalloc(&tmp, bytes);
    CHECK(cub::DeviceReduce::Reduce(tmp, bytes, doff, dc, 101, mx(), -1LL) == cudaSuccess, "reduce");
    cudaMemcpy(&last, dc, 8, cudaMemcpyDeviceToHost);
    CHECK(last == 200, "max reduction: %lld, want 200", last);
    cudaFree(tmp);

    /* events: host clock stamps in order; errors for unrecorded and destroyed events */
    {
        cudaEvent_t e0 = nullptr, e1 = nullptr, e2 = nullptr;
        float ms = -1;
        CHECK(cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess &&
                  cudaEventCreate(&e2) == cudaSuccess,
              "cudaEventCreate");
        CHECK(cudaEventElapsedTime(&ms, e0, e1) == cudaErrorInvalidResourceHandle,
              "elapsed time between events never recorded is an error");
        CHECK(cudaEventRecord(e0) == cudaSuccess, "record (default stream)");
        SIPD_LAUNCH(k_blocksum, 4, NT, 0, d_in, n, d_sum);   /* some work between the records */
        CHECK(cudaEventRecord(e1, 0) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess &&
                  cudaEventQuery(e1) == cudaSuccess,
              "record, synchronize, query");
        CHECK(cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess && ms >= 0, "elapsed time %g ms", ms);
        CHECK(cudaEventElapsedTime(&ms, e1, e0) == cudaSuccess && ms <= 0, "reversed: %g ms", ms);
        CHECK(cudaEventElapsedTime(&ms, e0, e2) == cudaErrorInvalidResourceHandle, "end event never recorded");
        CHECK(cudaEventDestroy(e2) == cudaSuccess, "destroy");
        CHECK(cudaEventRecord(e2) == cudaErrorInvalidResourceHandle, "record of a destroyed event is an error");
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        (void)cudaGetLastError();
    }
    /* emu_counters: launches, copies by kind and synchronisations, counted as they are asked for */
    {
        emu_counts c0, c1;
        long long v = 0;
        emu_counters(&c0);
        SIPD_LAUNCH(k_blocksum, 2, NT, 0, d_in, n, d_sum);
        SIPD_LAUNCH(k_rotate, 2, NT, 0, d_out);
        cudaMemcpy(&v, d_sum, sizeof v, cudaMemcpyDeviceToHost);
        cudaMemcpy(d_sum, &v, sizeof v, cudaMemcpyHostToDevice);
        cudaMemcpy(d_out, d_out + NT, sizeof(int), cudaMemcpyDeviceToDevice);
        cudaDeviceSynchronize();
        emu_counters(&c1);
        CHECK(c1.launches - c0.launches == 2 && c1.d2h - c0.d2h == 1 && c1.h2d - c0.h2d == 1 && c1.d2d - c0.d2d == 1 &&
                  c1.device_syncs - c0.device_syncs == 1,
              "counted %ld launches, %ld d2h, %ld h2d, %ld d2d, %ld syncs; want 2, 1, 1, 1, 1",
              c1.launches - c0.launches, c1.d2h - c0.d2h, c1.h2d - c0.h2d, c1.d2d - c0.d2d,
              c1.device_syncs - c0.device_syncs);
    }

    /* last: a deadlocked block is a sticky launch failure */
    SIPD_LAUNCH(k_divergent, 1, 64, 0, d_out);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure, "a shuffle after lanes returned deadlocks");
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure, "kernel faults are sticky");

    void *all[] = {d_in, d_out, d_sum, dk, dk2, dv, dv2, dc, doff};
    for (void *p : all) cudaFree(p);
    if (!failures)
        printf("emu_selftest: all checks passed\n");
    return failures ? 1 : 0;
}
