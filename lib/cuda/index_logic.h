/* index_logic.h — the index arithmetic of the CUDA kernels, as plain
 * functions that nvcc compiles for the device and the C compiler compiles
 * for the host, so the CPU test suite (tests/test_cuda_logic.c) checks every
 * tiling, gather/scatter position and circulant-embedding map against
 * straightforward loops even where no GPU exists. A kernel does nothing but
 * call these and move data; a bug in its indexing would be a bug here.
 *
 * Not installed; C and CUDA C++ compatible; no allocation, no library calls.
 */
#ifndef SKIT_CUDA_INDEX_LOGIC_H
#define SKIT_CUDA_INDEX_LOGIC_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define SKIT_HOST_DEVICE __host__ __device__
#else
#define SKIT_HOST_DEVICE
#endif
#define SKIT_INDEX_FN static inline SKIT_HOST_DEVICE

/* ---- launch geometry --------------------------------------------------- */

/* Threads per block of every elementwise kernel. */
#define SKIT_CUDA_BLOCK 256u
/* Grid size cap: kernels use grid-stride loops, so a grid of at most this
 * many blocks still covers any total (and stays within every device's
 * gridDim.x limit). */
#define SKIT_CUDA_MAX_BLOCKS 65535u

/* Blocks for `total` work items at `block` threads each: ceil(total/block),
 * at least 1, at most max_blocks. */
SKIT_INDEX_FN unsigned skit_cuda_grid_blocks(size_t total, unsigned block, unsigned max_blocks)
{
    size_t blocks = total / block + (total % block != 0);
    if (blocks < 1) blocks = 1;
    if (blocks > max_blocks) blocks = max_blocks;
    return (unsigned)blocks;
}

/* Flat work item t of a rows x cols column-major iteration space ->
 * (row, col). Kernels iterate t over [0, rows*cols) so that consecutive
 * threads touch consecutive rows (coalesced). */
SKIT_INDEX_FN void skit_cuda_split(size_t t, size_t rows, size_t *row, size_t *col)
{
    *row = t % rows;
    *col = t / rows;
}

/* ---- FFT lengths and circulant embedding (Toeplitz matvec) -------------- */

/* Smallest length >= n whose prime factors are all in {2, 3, 5, 7} (cuFFT's
 * fast radices, and the same rule as skit_fft_good_length). 0 if none fits
 * in size_t or n = 0. */
SKIT_INDEX_FN size_t skit_cuda_good_length(size_t n)
{
    if (n == 0) return 0;
    size_t best = 0; /* 0 = none found yet */
    /* enumerate 2^a 3^b 5^c 7^d >= n, keeping the smallest; every factor
     * loop stops once the partial product alone reaches n */
    for (size_t p7 = 1;; p7 *= 7) {
        for (size_t p5 = p7;; p5 *= 5) {
            for (size_t p3 = p5;; p3 *= 3) {
                size_t p2 = p3;
                while (p2 < n) {
                    if (p2 > SIZE_MAX / 2) {
                        p2 = 0;
                        break;
                    }
                    p2 *= 2;
                }
                if (p2 != 0 && (best == 0 || p2 < best)) best = p2;
                if (p3 >= n || p3 > SIZE_MAX / 3) break;
            }
            if (p5 >= n || p5 > SIZE_MAX / 5) break;
        }
        if (p7 >= n || p7 > SIZE_MAX / 7) break;
    }
    return best;
}

/* Number of complex outputs of a real FFT of length L. */
SKIT_INDEX_FN size_t skit_cuda_rfft_bins(size_t L) { return L / 2 + 1; }

/* Circulant embedding of an m x n Toeplitz matrix T(i, j) = t_{i-j} in a
 * length-L circulant (L >= m+n-1): position p of the circulant's first
 * column holds t_p for p < m, t_{-(L-p)} for L-p <= n-1, and 0 between.
 * Returns the index of that coefficient in skit/toeplitz.h's layout
 * (coeffs[k + (n-1)] = t_k), or -1 for a zero (also for negative lags of a
 * causal matrix). Then (circulant * [x; 0])[0..m) = T x. */
SKIT_INDEX_FN ptrdiff_t skit_cuda_embed_source(size_t p, size_t m, size_t n, size_t L, int causal)
{
    if (p < m) return (ptrdiff_t)(p + (n - 1));
    if (p >= L) return -1;
    size_t k = L - p; /* lag -k */
    if (k <= n - 1 && !causal) return (ptrdiff_t)((n - 1) - k);
    return -1;
}

/* Zero-padding of channel c of an input with `len` valid rows and leading
 * dimension ld into a length-L FFT buffer: the source index of padded
 * element p, or -1 for a pad zero. */
SKIT_INDEX_FN ptrdiff_t skit_cuda_pad_source(size_t p, size_t c, size_t len, size_t ld)
{
    return p < len ? (ptrdiff_t)(p + c * ld) : -1;
}

/* Offset of spectrum entry (f, c) when d channels share one spectrum
 * (shared != 0) or each has its own with leading dimension lds. */
SKIT_INDEX_FN size_t skit_cuda_spectrum_offset(size_t f, size_t c, int shared, size_t lds)
{
    return shared ? f : f + c * lds;
}

/* ---- banded Toeplitz (short convolution) -------------------------------- */

/* For output row i of a length-n signal and lags -lo..hi, the lags l whose
 * input row i-l lies in [0, n): [*lmin, *lmax] (empty when *lmin > *lmax).
 * The tap of lag l is taps[(l + lo) + set*(lo+hi+1)]. */
SKIT_INDEX_FN void skit_cuda_band_lags(size_t i, size_t n, size_t lo, size_t hi, ptrdiff_t *lmin,
                                       ptrdiff_t *lmax)
{
    ptrdiff_t a = -(ptrdiff_t)lo, b = (ptrdiff_t)hi;
    ptrdiff_t first = (ptrdiff_t)i - (ptrdiff_t)(n - 1); /* i - l <= n-1 */
    ptrdiff_t last = (ptrdiff_t)i;                      /* i - l >= 0 */
    *lmin = a > first ? a : first;
    *lmax = b < last ? b : last;
}

/* ---- SKI interpolation: transpose of a sparse-row matrix ----------------- */

/* W is n x r with `width` entries per row, columns cols[i*width + k] < r.
 * W^T as compressed rows (one row per inducing point j): row_ptr has r+1
 * entries; row j's entries are e in [row_ptr[j], row_ptr[j+1]) with
 * W^T(j, trow[e]) = weights[tsrc[e]]. Entries of a row appear in increasing
 * i (then k), so each output is summed in the same order on every run. The
 * caller checked every column < r. */
SKIT_INDEX_FN void skit_cuda_interp_transpose(size_t n, size_t r, size_t width,
                                              const size_t *cols, size_t *row_ptr, size_t *trow,
                                              size_t *tsrc)
{
    for (size_t j = 0; j <= r; j++) row_ptr[j] = 0;
    for (size_t e = 0; e < n * width; e++) row_ptr[cols[e] + 1]++;
    for (size_t j = 0; j < r; j++) row_ptr[j + 1] += row_ptr[j];
    /* counting sort: the running position of each row lives in row_ptr[j]
     * (shifted back to the row starts afterwards) */
    for (size_t e = 0; e < n * width; e++) {
        size_t pos = row_ptr[cols[e]]++;
        trow[pos] = e / width;
        tsrc[pos] = e;
    }
    for (size_t j = r; j > 0; j--) row_ptr[j] = row_ptr[j - 1];
    row_ptr[0] = 0;
}

/* ---- attention tiles ----------------------------------------------------- */

/* Number of tiles of `tile` rows covering n rows, and the rows of tile t. */
SKIT_INDEX_FN size_t skit_cuda_tile_count(size_t n, size_t tile)
{
    return n / tile + (n % tile != 0);
}
SKIT_INDEX_FN size_t skit_cuda_tile_rows(size_t t, size_t n, size_t tile)
{
    size_t start = t * tile;
    return start >= n ? 0 : (n - start < tile ? n - start : tile);
}

/* Query rows per tile when the tile's logits (n_k x tile elements of
 * elt_bytes) must fit in budget_bytes: at least 1, at most n_q, and a
 * multiple of 32 when that is possible (whole warps, aligned GEMM sizes). */
SKIT_INDEX_FN size_t skit_cuda_attention_auto_tile(size_t n_q, size_t n_k, size_t elt_bytes,
                                                   size_t budget_bytes)
{
    size_t per_row = n_k * elt_bytes;
    size_t rows = per_row ? budget_bytes / per_row : n_q;
    if (rows >= 32) rows -= rows % 32;
    if (rows < 1) rows = 1;
    if (rows > n_q) rows = n_q;
    return rows;
}

/* Keys that query row `row` may attend to: all n_k, or under a causal mask
 * keys 0..row (at most n_k). */
SKIT_INDEX_FN size_t skit_cuda_causal_keys(size_t row, size_t n_k, int causal)
{
    if (!causal) return n_k;
    return row + 1 < n_k ? row + 1 : n_k;
}

/* Keys a whole tile (rows row0 .. row0+rows-1) needs: the GEMMs of a causal
 * tile stop at the last row's last key, skipping the masked remainder. */
SKIT_INDEX_FN size_t skit_cuda_tile_keys(size_t row0, size_t rows, size_t n_k, int causal)
{
    return rows == 0 ? 0 : skit_cuda_causal_keys(row0 + rows - 1, n_k, causal);
}


/* ---- MRA-2 / MRA-2-s (lib/cuda/mra.cu) ----------------------------------------
 * Two levels, R = {b, 1}: rows = n/b coarse blocks. The refined squares are
 * a CSR over coarse query rows: square e in [row_ptr[x], row_ptr[x+1]) of row
 * x has key block cols[e] (ascending within a row) and query block
 * prow[e] = x. Every square's b x b fine logits are stored key-major (one
 * column per query) at fine + e*b*b, and its b x dv numerator at
 * fnum + e*b*dv, both column-major with leading dimension b. */

/* Refined squares that a (n/b) x per_row budget can hold: the plan's
 * capacity, min(rows^2, rows * per_row). The caller checked rows^2 fits. */
SKIT_INDEX_FN size_t skit_cuda_mra_capacity(size_t rows, size_t per_row)
{
    return per_row < rows ? rows * per_row : rows * rows;
}

/* Squares of coarse query row x: [*begin, *end). */
SKIT_INDEX_FN void skit_cuda_mra_row_squares(const uint32_t *row_ptr, size_t x, size_t *begin,
                                             size_t *end)
{
    *begin = row_ptr[x];
    *end = row_ptr[x + 1];
}

/* Position of fine logit (key c, query a) of square e (0 <= a, c < b). */
SKIT_INDEX_FN size_t skit_cuda_mra_fine_offset(size_t e, size_t key, size_t query, size_t b)
{
    return e * b * b + key + query * b;
}

/* Position of numerator entry (query a, value column col) of square e. */
SKIT_INDEX_FN size_t skit_cuda_mra_num_offset(size_t e, size_t query, size_t col, size_t b,
                                              size_t dv)
{
    return e * b * dv + query + col * b;
}

/* Row offsets of square e's blocks in K / V (*key_row) and Q (*query_row):
 * the first token of its key block and of its query block. */
SKIT_INDEX_FN void skit_cuda_mra_square_rows(size_t e, const uint32_t *cols, const uint32_t *prow,
                                             size_t b, size_t *key_row, size_t *query_row)
{
    *key_row = (size_t)cols[e] * b;
    *query_row = (size_t)prow[e] * b;
}

/* Walk of a coarse row's refined key blocks in ascending y: advances *pos
 * (within [pos, end) of cols) to the first entry >= y and tells whether
 * square (x, y) is refined. Called with y = 0, 1, 2, ... in order, the
 * walk visits each entry once. */
SKIT_INDEX_FN int skit_cuda_mra_refined_walk(const uint32_t *cols, size_t *pos, size_t end, size_t y)
{
    while (*pos < end && (size_t)cols[*pos] < y) (*pos)++;
    return *pos < end && (size_t)cols[*pos] == y;
}

/* The value kernels of mra.cu (block means, coarse-level softmax of a row,
 * fine-level softmax of a query, merge) for double (suffix _d) and float
 * (_f): lib/cuda/mra_logic.h holds them once, instantiated twice here. */
#define SKIT_R double
#define SKIT_R_SFX d
#define SKIT_R_EXP exp
#include "cuda/mra_logic.h"
#undef SKIT_R
#undef SKIT_R_SFX
#undef SKIT_R_EXP
#define SKIT_R float
#define SKIT_R_SFX f
#define SKIT_R_EXP expf
#include "cuda/mra_logic.h"
#undef SKIT_R
#undef SKIT_R_SFX
#undef SKIT_R_EXP

#endif /* SKIT_CUDA_INDEX_LOGIC_H */
