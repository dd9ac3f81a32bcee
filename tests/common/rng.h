/* rng.h — the random numbers of the tests (docs/testing.md, "Shared helpers"): xorshift64*
 * (Marsaglia's xorshift with Vigna's multiplier), reproducible on every platform, no libc rand().
 *
 *   test_rng r = rng_make(seed);   an explicit stream (a case that must redraw the same numbers)
 *   rng_next(&r) / rng_uniform(&r) / rng_range(&r, a, b) / rng_log(&r, lo, hi) / rng_int(&r, n)
 *
 *   rng_seed(seed); rnd(); rndu(a, b); rnd_log(lo, hi); rnd_int(n)
 *                                  the same on the program's one default stream
 *
 * rng_uniform is in [0, 1) with 53 random bits; rng_range in [a, b); rng_log is log-uniform in
 * [lo, hi) (lo, hi > 0: scales that span decades); rng_int in {0, ..., n - 1}.  Seed 0 means 1
 * (xorshift's state must not be zero).  Header-only (static inline), C11 and C++.
 */
#ifndef SIPD_TEST_RNG_H
#define SIPD_TEST_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct {
    uint64_t state;
} test_rng;

static inline test_rng rng_make(uint64_t seed)
{
    test_rng r;
    r.state = seed ? seed : 1;
    return r;
}

static inline uint64_t rng_next(test_rng *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static inline double rng_uniform(test_rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static inline double rng_range(test_rng *r, double a, double b) { return a + (b - a) * rng_uniform(r); }
static inline double rng_log(test_rng *r, double lo, double hi) { return exp(rng_range(r, log(lo), log(hi))); }
static inline int rng_int(test_rng *r, int n) { return (int)(rng_uniform(r) * n); }

/* the default stream (its state before any rng_seed: the golden-ratio constant) */
static test_rng rng_default_ = {0x9E3779B97F4A7C15ull};
static inline void rng_seed(uint64_t seed) { rng_default_ = rng_make(seed); }
static inline uint64_t rng_u64(void) { return rng_next(&rng_default_); }
static inline double rnd(void) { return rng_uniform(&rng_default_); }
static inline double rndu(double a, double b) { return rng_range(&rng_default_, a, b); }
static inline double rnd_log(double lo, double hi) { return rng_log(&rng_default_, lo, hi); }
static inline int rnd_int(int n) { return rng_int(&rng_default_, n); }

#endif
