/* fma-check.c — run by CMakeLists.txt at configure time (SIPD_HOST_FMA=AUTO, x86-64): exits 0
 * where this machine's CPU has AVX2 and FMA, so that the build may target them, and where a
 * compiled fma() rounds once (the check that -mfma reached the compiler). */
#include <math.h>

int main(void)
{
    volatile double a = 1 + 0x1p-30, c = -(1 + 0x1p-29);
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        return 1;
    return fma(a, a, c) == 0x1p-60 ? 0 : 2;   /* a² = 1 + 2⁻²⁹ + 2⁻⁶⁰: only one rounding keeps 2⁻⁶⁰ */
}
