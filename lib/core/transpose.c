/* transpose.c — blocked out-of-place transposes (core/transpose.h) for one
 * precision: R = double here, R = float when transposef.c compiles this
 * file again with SKIT_TRANSPOSE_SINGLE. Every change of data layout in
 * the library (the TNO plans' rows and channels, the Toeplitz plans'
 * rows-layout gradients) goes through them. */
#include "config.h"

#include "core/internal.h"
#include "core/transpose.h"

#ifdef SKIT_TRANSPOSE_SINGLE
typedef float R;
#define TRANSPOSE_LD skit_transpose_ld_f32
#else
typedef double R;
#define TRANSPOSE_LD skit_transpose_ld
#endif

/* Tile edge: 32 x 32 doubles (8 KiB) per tile keeps source and
 * destination lines in L1; tiles of TILE x TILE, so that both the reads
 * and the strided writes stay in cache. */
#define TILE 32

void TRANSPOSE_LD(const R *src, size_t rows, size_t cols, size_t lds, R *dst, size_t ldd)
{
    size_t tr = (rows + TILE - 1) / TILE, tc = (cols + TILE - 1) / TILE;
    long tiles = (long)(tr * tc);
#pragma omp parallel for schedule(static) if (rows * cols >= 16384)
    for (long t = 0; t < tiles; t++) {
        size_t i0 = (size_t)t / tc * TILE, j0 = (size_t)t % tc * TILE;
        size_t i1 = SKIT_MIN(i0 + TILE, rows), j1 = SKIT_MIN(j0 + TILE, cols);
        for (size_t j = j0; j < j1; j++)
            for (size_t i = i0; i < i1; i++) dst[j * ldd + i] = src[i * lds + j];
    }
}

#ifndef SKIT_TRANSPOSE_SINGLE
void skit_transpose(const double *src, size_t rows, size_t cols, double *dst)
{
    skit_transpose_ld(src, rows, cols, cols, dst, rows);
}
#endif
