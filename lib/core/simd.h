/* simd.h — vectorisation helpers shared by the library sources; not
 * installed.
 *
 * The O(n) loops beside the FFTs and GEMMs (spectrum products, Levinson's
 * dots and axpys, the RPE sweep) are a visible part of run time, and the
 * build targets baseline x86-64 (SSE2). SKIT_MULTIVERSION asks GCC for
 * AVX2 and AVX-512 clones of a function, chosen at load time from the CPU
 * (an ifunc), so one binary runs everywhere at the speed of the machine.
 * Not with clang (different clone syntax) or under AddressSanitizer (ifunc
 * resolvers run before its runtime is up). */
#ifndef SKIT_CORE_SIMD_H
#define SKIT_CORE_SIMD_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_ADDRESS__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define SKIT_MULTIVERSION \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef SKIT_MULTIVERSION
#define SKIT_MULTIVERSION
#endif

/* `omp simd` (OpenMP 4) lets the compiler vectorise a loop, reductions
 * included, without -ffast-math; a no-op without OpenMP. */
/* SKIT_SIMD_SUM(a, b, ...): the loop's sums a, b, ... as reductions */
#ifdef _OPENMP
#define SKIT_PRAGMA(text) _Pragma(#text)
#define SKIT_SIMD _Pragma("omp simd")
#define SKIT_SIMD_SUM(...) SKIT_PRAGMA(omp simd reduction(+ : __VA_ARGS__))
#else
#define SKIT_SIMD
#define SKIT_SIMD_SUM(...)
#endif

#endif
