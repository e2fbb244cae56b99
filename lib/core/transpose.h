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

#endif
