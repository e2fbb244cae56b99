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

/* ---- blocks transposed in AVX2 registers (x86-64 with GCC or clang) -----
 * A block of BLOCK x BLOCK values (8 x 8 floats, 4 x 4 doubles: one
 * 32-byte register a row), src rows sa apart to dst rows da apart; the
 * circulant engine's rows apply moves its channel groups with them too.
 * About two thirds of the scalar loop's time or less (the float rows
 * apply spent a sixth of its time in 4 x 4 blocks at n = d = 512). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_BLOCKS 1
#ifdef SKIT_TRANSPOSE_SINGLE
#define BLOCK 8
__attribute__((target("avx2"))) void skit_transpose4_avx2_f32(const float *src, size_t sa, float *dst, size_t da)
{
    __m128 r0 = _mm_loadu_ps(src), r1 = _mm_loadu_ps(src + sa);
    __m128 r2 = _mm_loadu_ps(src + 2 * sa), r3 = _mm_loadu_ps(src + 3 * sa);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(dst, r0);
    _mm_storeu_ps(dst + da, r1);
    _mm_storeu_ps(dst + 2 * da, r2);
    _mm_storeu_ps(dst + 3 * da, r3);
}

__attribute__((target("avx2"))) void skit_transpose8_avx2_f32(const float *src, size_t sa, float *dst, size_t da)
{
    __m256 r[8], t[8], u[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(src + k * sa);
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int k = 0; k < 4; k++) {
        _mm256_storeu_ps(dst + k * da, _mm256_permute2f128_ps(u[k], u[k + 4], 0x20));
        _mm256_storeu_ps(dst + (k + 4) * da, _mm256_permute2f128_ps(u[k], u[k + 4], 0x31));
    }
}
#define BLOCK_KERNEL skit_transpose8_avx2_f32
#else
#define BLOCK 4
__attribute__((target("avx2"))) void skit_transpose4_avx2(const double *src, size_t sa, double *dst, size_t da)
{
    __m256d r0 = _mm256_loadu_pd(src), r1 = _mm256_loadu_pd(src + sa);
    __m256d r2 = _mm256_loadu_pd(src + 2 * sa), r3 = _mm256_loadu_pd(src + 3 * sa);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(dst, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(dst + da, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(dst + 2 * da, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(dst + 3 * da, _mm256_permute2f128_pd(t1, t3, 0x31));
}
#define BLOCK_KERNEL skit_transpose4_avx2
#endif

/* a tile's whole blocks (rows and cols multiples of BLOCK) in registers */
__attribute__((target("avx2"))) static void tile_blocks(const R *src, size_t lds, R *dst, size_t ldd, size_t rows,
                                                        size_t cols)
{
    for (size_t i = 0; i + BLOCK <= rows; i += BLOCK)
        for (size_t j = 0; j + BLOCK <= cols; j += BLOCK)
            BLOCK_KERNEL(src + i * lds + j, lds, dst + j * ldd + i, ldd);
}
#endif

/* one tile: whole blocks in registers where the CPU has AVX2, the edges
 * (or all of it) value by value */
static void tile(const R *src, size_t lds, R *dst, size_t ldd, size_t rows, size_t cols, int blocks)
{
    size_t rb = 0, cb = 0;
#ifdef HAVE_AVX2_BLOCKS
    if (blocks) {
        rb = rows / BLOCK * BLOCK, cb = cols / BLOCK * BLOCK;
        tile_blocks(src, lds, dst, ldd, rb, cb);
    }
#else
    (void)blocks;
#endif
    for (size_t j = 0; j < cols; j++)
        for (size_t i = j < cb ? rb : 0; i < rows; i++) dst[j * ldd + i] = src[i * lds + j];
}

void TRANSPOSE_LD(const R *src, size_t rows, size_t cols, size_t lds, R *dst, size_t ldd)
{
    size_t tr = (rows + TILE - 1) / TILE, tc = (cols + TILE - 1) / TILE;
    long tiles = (long)(tr * tc);
#ifdef HAVE_AVX2_BLOCKS
    const int blocks = __builtin_cpu_supports("avx2");
#else
    const int blocks = 0;
#endif
#pragma omp parallel for schedule(static) if (rows * cols >= 16384)
    for (long t = 0; t < tiles; t++) {
        size_t i0 = (size_t)t / tc * TILE, j0 = (size_t)t % tc * TILE;
        size_t i1 = SKIT_MIN(i0 + TILE, rows), j1 = SKIT_MIN(j0 + TILE, cols);
        tile(src + i0 * lds + j0, lds, dst + j0 * ldd + i0, ldd, i1 - i0, j1 - j0, blocks);
    }
}

#ifndef SKIT_TRANSPOSE_SINGLE
void skit_transpose(const double *src, size_t rows, size_t cols, double *dst)
{
    skit_transpose_ld(src, rows, cols, cols, dst, rows);
}
#endif
