/* emu.cpp — the CUDA emulation layer (tests/emu/README.md): runtime calls, device memory
 * bookkeeping and the fiber scheduler that runs kernels on the CPU.
 *
 * Kernel execution.  emu::run_grid runs the blocks of a grid one after another on the calling
 * OS thread.  Each thread of a block is a fiber with its own stack (a pool of mmap'ed stacks
 * with a guard page, reused by every launch).  A fiber runs until it finishes or waits at a
 * barrier — the block's (__syncthreads) or its warp's (every shuffle, ballot and __syncwarp is
 * one warp barrier: the lane writes its value into the warp's exchange slots, waits for the
 * other lanes, then reads; the slots are double-buffered by barrier generation, so one barrier
 * per exchange suffices).  The last fiber to arrive releases the barrier and carries on; a
 * waiting fiber switches directly to the next runnable fiber of the block (round robin).  When
 * no fiber is runnable but some have not finished, the block is deadlocked — a barrier that not
 * every thread reaches, e.g. a shuffle after some lanes returned: undefined behaviour on a GPU.
 * The launch then fails with a sticky cudaErrorLaunchFailure (as a kernel fault does on CUDA)
 * and a message naming the kernel and the barrier.
 *
 * Context switches: a few instructions of assembly on x86-64 (callee-saved registers and the
 * stack pointer), ucontext elsewhere (slower: swapcontext makes a system call).
 * Under AddressSanitizer every switch is announced with __sanitizer_start_switch_fiber /
 * __sanitizer_finish_switch_fiber, so ASan knows which stack is live.
 */
#include "cuda_runtime.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#endif
#ifdef EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__) && !defined(SIPD_EMU_UCONTEXT)
#define EMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

namespace {

/* ---- the emulated device -------------------------------------------------------------------- */
const int EMU_SMS = 2;   /* small, so the backends' grid-stride caps (blocks per SM) are exercised */
const int EMU_MAX_THREADS = 1024;
const size_t EMU_MAX_SMEM = 48 * 1024;
const size_t EMU_GLOBAL_MEM = (size_t)4 << 30;

std::recursive_mutex api_mutex;
cudaError_t last_error = cudaSuccess;   /* cudaGetLastError: returned and cleared           */
emu_counts counts;                      /* emu_counters                                      */
cudaError_t sticky = cudaSuccess;       /* a kernel fault: every later call returns it (CUDA) */

void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuda emulation: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

cudaError_t fail(cudaError_t e)
{
    last_error = e;
    return e;
}

/* ---- memory --------------------------------------------------------------------------------- */
struct Allocs {
    std::map<uintptr_t, size_t> dev, host;   /* base → bytes */
    size_t dev_bytes = 0;
    ~Allocs()
    {
        if (!dev.empty() && getenv("SIPD_EMU_REPORT_LEAKS"))
            msg("%zu device allocation(s), %zu bytes, never freed", dev.size(), dev_bytes);
    }
};
Allocs &allocs()
{
    static Allocs a;
    return a;
}

/* the allocation of m that contains p, or end() */
std::map<uintptr_t, size_t>::const_iterator containing(const std::map<uintptr_t, size_t> &m, const void *p)
{
    uintptr_t u = (uintptr_t)p;
    auto it = m.upper_bound(u);
    if (it == m.begin())
        return m.end();
    --it;
    return u < it->first + it->second ? it : m.end();
}

bool is_device(const void *p) { return containing(allocs().dev, p) != allocs().dev.end(); }

/* [p, p + n) inside one device allocation; else a message */
bool device_range(const void *p, size_t n, const char *call, const char *which)
{
    auto it = containing(allocs().dev, p);
    if (it == allocs().dev.end()) {
        msg("%s: %s %p is not device memory (no cudaMalloc allocation contains it)", call, which, p);
        return false;
    }
    if ((uintptr_t)p + n > it->first + it->second) {
        msg("%s: %s [%p, +%zu bytes) runs %zu bytes past the end of its device allocation (%zu bytes at %p, "
            "offset %zu)",
            call, which, p, n, (size_t)((uintptr_t)p + n - (it->first + it->second)), it->second,
            (void *)it->first, (size_t)((uintptr_t)p - it->first));
        return false;
    }
    return true;
}

bool host_side(const void *p, const char *call, const char *which)
{
    if (is_device(p)) {
        msg("%s: %s %p is device memory but the copy kind says host", call, which, p);
        return false;
    }
    return true;
}

/* ---- fibers --------------------------------------------------------------------------------- */
#ifdef EMU_ASAN
const size_t STACK_BYTES = 1024 * 1024;   /* ASan's redzones make frames several times larger */
#else
const size_t STACK_BYTES = 256 * 1024;
#endif

struct Barrier {
    unsigned need = 0, arrived = 0, gen = 0;
};

struct Fiber {
#ifdef EMU_ASM_SWITCH
    void *sp = nullptr;
#else
    ucontext_t uc;
#endif
    char *stack = nullptr;   /* usable [stack, stack + STACK_BYTES); a guard page below */
    uint3 tid = {0, 0, 0};
    unsigned lane = 0, warp = 0;
    const unsigned *wait_gen = nullptr;   /* waiting until *wait_gen != wait_val   */
    unsigned wait_val = 0;
    const char *wait_what = nullptr;
    bool done = false;
    /* ASan: the fake stack saved at a switch away, and this stack's bounds */
    void *fake = nullptr;
    const void *bottom = nullptr;
    size_t size = 0;
};

struct Warp {
    Barrier bar;
    uint64_t slot[2][32];
};

struct Sched {
    std::vector<Fiber *> pool;   /* fibers (and their stacks), grown to the largest block */
    Fiber main;                  /* the launching thread                                   */
    Fiber *cur = nullptr;
    Fiber *from = nullptr;       /* the fiber that switched to the running one (ASan)      */
    unsigned n = 0, left = 0;    /* threads of the block, not finished                     */
    Barrier block;
    Warp warps[EMU_MAX_THREADS / 32];
    bool deadlock = false;
    bool poisoned = false;       /* stacks abandoned by a deadlock: unpoison before reuse   */
    void (*body)(void *) = nullptr;
    void *ctx = nullptr;
};
/* never destroyed (the fibers are reused until exit): reachable, so LeakSanitizer stays quiet */
Sched &S = *new Sched;

#ifdef EMU_ASM_SWITCH
/* emu_switch(&save_sp, new_sp): push the callee-saved registers, save rsp, load new_sp, pop, ret.
 * MXCSR and the x87 control word are not switched: nothing here changes them, and loading them
 * costs more than the rest of the switch. */
extern "C" void emu_switch(void **save, void *to);
asm(R"(
    .text
    .p2align 4
    .type emu_switch, @function
emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size emu_switch, .-emu_switch
)");
#endif

void fiber_main();

void prepare(Fiber *f)
{
#ifdef EMU_ASM_SWITCH
    /* what emu_switch pops: r15..rbp, then the return address (fiber_main), placed so that
       fiber_main starts with rsp ≡ 8 (mod 16) as after a call */
    uintptr_t top = ((uintptr_t)f->stack + STACK_BYTES) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)top;
    *--sp = 0;                          /* fake return address of fiber_main (never used) */
    *--sp = (uint64_t)(uintptr_t)&fiber_main;
    for (int i = 0; i < 6; i++) *--sp = 0;
    f->sp = sp;
#else
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = f->stack;
    f->uc.uc_stack.ss_size = STACK_BYTES;
    f->uc.uc_link = nullptr;
    makecontext(&f->uc, fiber_main, 0);
#endif
}

void set_builtins(const Fiber *f)
{
    if (f != &S.main)
        threadIdx = f->tid;
}

/* Leave `me` for `to`; `final` when me has finished (ASan drops its fake stack). */
void switch_to(Fiber *me, Fiber *to, bool final)
{
#ifdef EMU_ASAN
    __sanitizer_start_switch_fiber(final ? nullptr : &me->fake, to->bottom, to->size);
#else
    (void)final;
#endif
    S.from = me;
    S.cur = to;
    set_builtins(to);
#ifdef EMU_ASM_SWITCH
    emu_switch(&me->sp, to->sp);
#else
    swapcontext(&me->uc, &to->uc);
#endif
    /* resumed as me */
#ifdef EMU_ASAN
    {
        const void *b;
        size_t s;
        __sanitizer_finish_switch_fiber(me->fake, &b, &s);
        if (S.from == &S.main) {
            S.main.bottom = b;
            S.main.size = s;
        }
    }
#endif
}

bool runnable(const Fiber *f) { return !f->done && (!f->wait_gen || *f->wait_gen != f->wait_val); }

/* the next runnable fiber after me in the block (me last), or null */
Fiber *next_runnable(const Fiber *me)
{
    unsigned i0 = (unsigned)(me->tid.x + blockDim.x * (me->tid.y + blockDim.y * me->tid.z));
    for (unsigned k = 1; k <= S.n; k++) {
        Fiber *f = S.pool[(i0 + k) % S.n];
        if (runnable(f))
            return f;
    }
    return nullptr;
}

void wait_at(Barrier &b, const char *what)
{
    Fiber *me = S.cur;
    if (me == &S.main) {
        msg("%s called outside a kernel", what);
        abort();
    }
    if (++b.arrived == b.need) {   /* the last one releases the others and carries on */
        b.arrived = 0;
        b.gen++;
        return;
    }
    me->wait_gen = &b.gen;
    me->wait_val = b.gen;
    me->wait_what = what;
    Fiber *n = next_runnable(me);
    if (!n) {
        S.deadlock = true;
        switch_to(me, &S.main, false);   /* never resumed */
    } else {
        switch_to(me, n, false);
    }
    me->wait_gen = nullptr;
    me->wait_what = nullptr;
}

#ifdef EMU_ASAN
__attribute__((no_sanitize_address))
#endif
void fiber_main()
{
#ifdef EMU_ASAN
    {
        const void *b;
        size_t s;
        __sanitizer_finish_switch_fiber(nullptr, &b, &s);
        if (S.from == &S.main) {
            S.main.bottom = b;
            S.main.size = s;
        }
    }
#endif
    Fiber *me = S.cur;
    S.body(S.ctx);
    me->done = true;
    S.left--;
    Fiber *n = next_runnable(me);
    if (!n) {
        if (S.left)
            S.deadlock = true;
        n = &S.main;
    }
    switch_to(me, n, true);
    abort();   /* a finished fiber is never resumed */
}

bool grow_pool(unsigned n)
{
    while (S.pool.size() < n) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        char *m = (char *)mmap(nullptr, STACK_BYTES + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            msg("cannot map a %zu-byte fiber stack: %s", STACK_BYTES, strerror(errno));
            return false;
        }
        mprotect(m, page, PROT_NONE);   /* guard: a stack overflow faults instead of corrupting */
        Fiber *f = new Fiber;
        f->stack = m + page;
        f->bottom = f->stack;
        f->size = STACK_BYTES;
        S.pool.push_back(f);
    }
    return true;
}

void report_deadlock(const char *name)
{
    unsigned done = 0, shown = 0;
    for (unsigned i = 0; i < S.n; i++) done += S.pool[i]->done;
    msg("kernel %s, block (%u,%u,%u): deadlock: %u of %u threads finished, the others wait at a barrier that "
        "not all threads reach (undefined behaviour on a GPU):",
        name, blockIdx.x, blockIdx.y, blockIdx.z, done, S.n);
    for (unsigned i = 0; i < S.n && shown < 8; i++) {
        const Fiber *f = S.pool[i];
        if (!f->done && f->wait_what) {
            fprintf(stderr, "    thread (%u,%u,%u) (warp %u lane %u) waits in %s\n", f->tid.x, f->tid.y, f->tid.z,
                    f->warp, f->lane, f->wait_what);
            shown++;
        }
    }
}

}  // namespace

/* ---- kernel-side entry points (cuda_runtime.h) -------------------------------------------- */
namespace emu {

void sync_block() { wait_at(S.block, "__syncthreads"); }
void sync_warp() { wait_at(S.warps[S.cur->warp].bar, "a warp barrier (__syncwarp / shuffle / ballot)"); }

const uint64_t *warp_exchange(uint64_t mine)
{
    Warp &w = S.warps[S.cur->warp];
    unsigned g = w.bar.gen & 1;
    w.slot[g][S.cur->lane] = mine;
    wait_at(w.bar, "a warp shuffle / ballot");
    return w.slot[g];
}

unsigned lane_count() { return S.warps[S.cur->warp].bar.need; }
unsigned lane_id() { return S.cur->lane; }

void check_mask(unsigned mask, const char *what)
{
    unsigned n = lane_count(), full = n == 32 ? 0xffffffffu : (1u << n) - 1;
    if ((mask & full) != full) {
        msg("%s with mask 0x%08x: the emulation supports only masks naming every lane of the warp", what, mask);
        abort();
    }
}

cudaError_t check_device_range(const void *p, size_t bytes, const char *what)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (sticky)
        return sticky;
    if (bytes == 0)
        return cudaSuccess;
    return device_range(p, bytes, what, "pointer") ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t sticky_error() { return sticky; }

void fill_scratch(void *p, size_t bytes)
{
    if (p && bytes)
        std::memset(p, 0xA5, bytes);
}

void run_grid(const char *name, const void *fn, unsigned bound, dim3 grid, dim3 block, size_t smem,
              void (*body)(void *), void *ctx)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    unsigned long long nthreads = (unsigned long long)block.x * block.y * block.z;
    cudaError_t e = cudaSuccess;
    const char *why = nullptr;
    counts.launches++;
    if (sticky) {
        last_error = sticky;
        return;
    }
    if (S.cur && S.cur != &S.main) {
        msg("kernel %s launched from inside a kernel (dynamic parallelism is not emulated)", name);
        abort();
    }
    if (!fn)
        e = cudaErrorInvalidDeviceFunction, why = "null kernel";
    else if (grid.x == 0 || grid.y == 0 || grid.z == 0)
        e = cudaErrorInvalidConfiguration, why = "empty grid";
    else if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
        e = cudaErrorInvalidConfiguration, why = "grid too large";
    else if (nthreads == 0)
        e = cudaErrorInvalidConfiguration, why = "empty block";
    else if (block.x > 1024 || block.y > 1024 || block.z > 64 || nthreads > (unsigned long long)EMU_MAX_THREADS)
        e = cudaErrorInvalidConfiguration, why = "more than 1024 threads per block";
    else if (bound && nthreads > bound)
        e = cudaErrorLaunchOutOfResources, why = "more threads per block than the kernel's __launch_bounds__";
    else if (smem > EMU_MAX_SMEM)
        e = cudaErrorInvalidValue, why = "more than 48 KiB of dynamic shared memory";
    if (e != cudaSuccess) {
        msg("launch of %s<<<(%u,%u,%u), (%u,%u,%u), %zu>>> (bound %u): %s: %s", name, grid.x, grid.y, grid.z,
            block.x, block.y, block.z, smem, bound, why, cudaGetErrorName(e));
        last_error = e;
        return;
    }
    if (!grow_pool((unsigned)nthreads)) {
        last_error = cudaErrorLaunchOutOfResources;
        return;
    }
#ifdef EMU_ASAN
    if (S.poisoned) {
        for (Fiber *f : S.pool) ASAN_UNPOISON_MEMORY_REGION(f->stack, STACK_BYTES);
        S.poisoned = false;
    }
#endif
    gridDim = grid;
    blockDim = block;
    S.n = (unsigned)nthreads;
    S.body = body;
    S.ctx = ctx;
    S.block.need = S.n;
    unsigned nw = (S.n + 31) / 32;
    for (unsigned w = 0; w < nw; w++) S.warps[w].bar.need = S.n - 32 * w < 32 ? S.n - 32 * w : 32;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = {bx, by, bz};
                S.block.arrived = 0;
                for (unsigned w = 0; w < nw; w++) S.warps[w].bar.arrived = 0;
                for (unsigned i = 0; i < S.n; i++) {
                    Fiber *f = S.pool[i];
                    f->tid = {i % block.x, i / block.x % block.y, i / (block.x * block.y)};
                    f->lane = i % 32;
                    f->warp = i / 32;
                    f->done = false;
                    f->wait_gen = nullptr;
                    f->wait_what = nullptr;
                    f->fake = nullptr;
                    prepare(f);
                }
                S.left = S.n;
                S.deadlock = false;
                S.cur = &S.main;
                switch_to(&S.main, S.pool[0], false);
                S.cur = nullptr;
                if (S.deadlock) {
                    report_deadlock(name);
                    S.poisoned = true;
                    sticky = last_error = cudaErrorLaunchFailure;
                    return;
                }
            }
}

}  // namespace emu

/* ---- the runtime API -------------------------------------------------------------------------- */
extern "C" {

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!p)
        return fail(cudaErrorInvalidValue);
    *p = nullptr;
    if (sticky)
        return sticky;
    if (bytes == 0)
        return cudaSuccess;   /* as CUDA: success, and a null pointer */
    if (bytes > EMU_GLOBAL_MEM || allocs().dev_bytes + bytes > EMU_GLOBAL_MEM)
        return fail(cudaErrorMemoryAllocation);
    void *m = malloc(bytes);   /* exact size: ASan sees accesses past the end from kernels too */
    if (!m)
        return fail(cudaErrorMemoryAllocation);
    std::memset(m, 0xFF, bytes);   /* never-written device memory reads as NaN / -1 */
    allocs().dev[(uintptr_t)m] = bytes;
    allocs().dev_bytes += bytes;
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!p)
        return cudaSuccess;
    auto it = allocs().dev.find((uintptr_t)p);
    if (it == allocs().dev.end()) {
        msg("cudaFree(%p): not the start of a live device allocation", p);
        return fail(cudaErrorInvalidValue);
    }
    allocs().dev_bytes -= it->second;
    allocs().dev.erase(it);
    free(p);
    return sticky;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!p)
        return fail(cudaErrorInvalidValue);
    *p = nullptr;
    if (sticky)
        return sticky;
    void *m = malloc(bytes ? bytes : 1);
    if (!m)
        return fail(cudaErrorMemoryAllocation);
    std::memset(m, 0xFF, bytes);
    allocs().host[(uintptr_t)m] = bytes ? bytes : 1;
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!p)
        return cudaSuccess;
    auto it = allocs().host.find((uintptr_t)p);
    if (it == allocs().host.end()) {
        msg("cudaFreeHost(%p): not a cudaMallocHost allocation", p);
        return fail(cudaErrorInvalidValue);
    }
    allocs().host.erase(it);
    free(p);
    return sticky;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    bool ok = true;
    switch (kind) {
    case cudaMemcpyHostToDevice: counts.h2d++; break;
    case cudaMemcpyDeviceToHost: counts.d2h++; break;
    case cudaMemcpyDeviceToDevice: counts.d2d++; break;
    case cudaMemcpyHostToHost: counts.h2h++; break;
    default: break;
    }
    if (sticky)
        return sticky;
    if (bytes == 0)
        return cudaSuccess;
    if (!dst || !src) {
        msg("cudaMemcpy(%p, %p, %zu): null pointer", dst, src, bytes);
        return fail(cudaErrorInvalidValue);
    }
    switch (kind) {
    case cudaMemcpyHostToDevice:
        ok = device_range(dst, bytes, "cudaMemcpy (host to device)", "destination") &&
             host_side(src, "cudaMemcpy (host to device)", "source");
        break;
    case cudaMemcpyDeviceToHost:
        ok = device_range(src, bytes, "cudaMemcpy (device to host)", "source") &&
             host_side(dst, "cudaMemcpy (device to host)", "destination");
        break;
    case cudaMemcpyDeviceToDevice:
        ok = device_range(src, bytes, "cudaMemcpy (device to device)", "source") &&
             device_range(dst, bytes, "cudaMemcpy (device to device)", "destination");
        break;
    case cudaMemcpyHostToHost:
        ok = host_side(src, "cudaMemcpy (host to host)", "source") &&
             host_side(dst, "cudaMemcpy (host to host)", "destination");
        break;
    case cudaMemcpyDefault:
        ok = (!is_device(src) || device_range(src, bytes, "cudaMemcpy (default)", "source")) &&
             (!is_device(dst) || device_range(dst, bytes, "cudaMemcpy (default)", "destination"));
        break;
    default:
        return fail(cudaErrorInvalidMemcpyDirection);
    }
    if (!ok)
        return fail(cudaErrorInvalidValue);
    std::memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t bytes)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (sticky)
        return sticky;
    if (bytes == 0)
        return cudaSuccess;
    if (!device_range(p, bytes, "cudaMemset", "destination"))
        return fail(cudaErrorInvalidValue);
    std::memset(p, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    cudaError_t e = last_error;
    last_error = sticky;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }
cudaError_t cudaDeviceSynchronize(void)   /* every launch has completed */
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    counts.device_syncs++;
    return sticky;
}

cudaError_t cudaGetDeviceCount(int *n)
{
    if (!n)
        return fail(cudaErrorInvalidValue);
    *n = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *dev)
{
    if (!dev)
        return fail(cudaErrorInvalidValue);
    *dev = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev) { return dev == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    if (!p)
        return fail(cudaErrorInvalidValue);
    if (dev != 0)
        return fail(cudaErrorInvalidDevice);
    std::memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "sipd CUDA emulation (CPU fibers, %d SMs)", EMU_SMS);
    p->totalGlobalMem = EMU_GLOBAL_MEM;
    p->sharedMemPerBlock = EMU_MAX_SMEM;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = EMU_MAX_THREADS;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = EMU_SMS;
    p->maxThreadsPerMultiProcessor = 2048;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int dev)
{
    if (!v)
        return fail(cudaErrorInvalidValue);
    if (dev != 0)
        return fail(cudaErrorInvalidDevice);
    switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = EMU_MAX_THREADS; break;
    case cudaDevAttrMaxBlockDimX: *v = 1024; break;
    case cudaDevAttrMaxGridDimX: *v = 2147483647; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)EMU_MAX_SMEM; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMultiProcessorCount: *v = EMU_SMS; break;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *func)
{
    if (!a)
        return fail(cudaErrorInvalidValue);
    if (!func)
        return fail(cudaErrorInvalidDeviceFunction);
    std::memset(a, 0, sizeof *a);
    a->maxThreadsPerBlock = EMU_MAX_THREADS;   /* __launch_bounds__ is checked at the launch */
    a->ptxVersion = a->binaryVersion = 90;
    return cudaSuccess;
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
    }
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error";
    }
}

/* ---- events: host clock stamps (the emulation runs every launch to completion) ---------------- */
}  // extern "C"

struct CUevent_st {
    unsigned magic;      /* EVENT_MAGIC while alive */
    bool recorded;
    double t;            /* seconds (CLOCK_MONOTONIC) at the last record */
};

namespace {
const unsigned EVENT_MAGIC = 0x45564e54u;
std::map<uintptr_t, bool> &events()   /* live events */
{
    static std::map<uintptr_t, bool> e;
    return e;
}
bool live_event(cudaEvent_t e, const char *call)
{
    if (e && events().count((uintptr_t)e) && e->magic == EVENT_MAGIC)
        return true;
    msg("%s(%p): not a live event", call, (void *)e);
    return false;
}
double host_seconds()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
}  // namespace

extern "C" {

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!e)
        return fail(cudaErrorInvalidValue);
    *e = nullptr;
    if (sticky)
        return sticky;
    cudaEvent_t n = new CUevent_st;
    n->magic = EVENT_MAGIC;
    n->recorded = false;
    n->t = 0;
    events()[(uintptr_t)n] = true;
    *e = n;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!live_event(e, "cudaEventDestroy"))
        return fail(cudaErrorInvalidResourceHandle);
    events().erase((uintptr_t)e);
    e->magic = 0;
    delete e;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (stream) {
        msg("cudaEventRecord: streams other than the default one are not emulated");
        return fail(cudaErrorInvalidValue);
    }
    if (!live_event(e, "cudaEventRecord"))
        return fail(cudaErrorInvalidResourceHandle);
    if (sticky)
        return sticky;
    e->recorded = true;
    e->t = host_seconds();
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!live_event(e, "cudaEventQuery"))
        return fail(cudaErrorInvalidResourceHandle);
    return sticky;   /* recorded work has completed (or nothing was recorded) */
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    counts.event_syncs++;
    if (!live_event(e, "cudaEventSynchronize"))
        return fail(cudaErrorInvalidResourceHandle);
    return sticky;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    if (!ms)
        return fail(cudaErrorInvalidValue);
    if (!live_event(start, "cudaEventElapsedTime") || !live_event(end, "cudaEventElapsedTime"))
        return fail(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded) {
        msg("cudaEventElapsedTime: an event that was never recorded");
        return fail(cudaErrorInvalidResourceHandle);
    }
    if (sticky)
        return sticky;
    *ms = (float)(1e3 * (end->t - start->t));
    return cudaSuccess;
}

void emu_counters(emu_counts *out)
{
    std::lock_guard<std::recursive_mutex> lk(api_mutex);
    *out = counts;
}

}  // extern "C"
