/* core/transpose.h — blocked out-of-place transposes, the one routine for
 * every change of data layout in the library; not installed.
 *
 * dst (cols x rows, row-major, leading dimension ldd >= rows) = src^T for
 * src rows x cols row-major with leading dimension lds >= cols; OpenMP-
 * parallel above 16384 values. The same call moves a column-major block
 * to row-major and back (a transpose is its own inverse). skit_transpose:
 * both leading dimensions tight. */
#ifndef SKIT_CORE_TRANSPOSE_H
#define SKIT_CORE_TRANSPOSE_H

#include <stddef.h>

void skit_transpose(const double *src, size_t rows, size_t cols, double *dst);
void skit_transpose_ld(const double *src, size_t rows, size_t cols, size_t lds, double *dst, size_t ldd);
void skit_transpose_ld_f32(const float *src, size_t rows, size_t cols, size_t lds, float *dst, size_t ldd);

/* One block in AVX2 registers (x86-64 GCC/clang only; the caller checks
 * __builtin_cpu_supports("avx2")): dst rows da apart = the transpose of
 * src's rows sa apart; 4 x 4 doubles, 4 x 4 or 8 x 8 floats. */
#if defined(__x86_64__) && defined(__GNUC__)
void skit_transpose4_avx2(const double *src, size_t sa, double *dst, size_t da);
void skit_transpose4_avx2_f32(const float *src, size_t sa, float *dst, size_t da);
void skit_transpose8_avx2_f32(const float *src, size_t sa, float *dst, size_t da);
#endif

#endif
