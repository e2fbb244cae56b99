/* test_cuda_logic.c — the CUDA kernels' index logic (lib/cuda/index_logic.h)
 * run on the CPU against straightforward loops and dense references, and
 * every argument check of the CUDA API. Needs no GPU and runs in every
 * build: the kernels only call these functions and move data, so their
 * indexing is tested here even where no device exists.
 *
 * The Toeplitz pipeline is emulated end to end on the host exactly as the
 * device runs it — embed, pad, real DFT (bins 0..L/2 only, as cuFFT's R2C
 * returns), spectral product through skit_cuda_spectrum_offset (conjugated
 * for the transpose), C2R inverse, crop — and compared with the dense
 * product. Attention tiling (with the causal key cutoff), band lags and the
 * SKI transpose are checked the same way. */
#include "config.h"

#include <complex.h>
#include <math.h>

#include "check_util.h"
#include "cuda/index_logic.h"

/* ---- helpers ----------------------------------------------------------------------- */

/* t_k of coeffs in skit/toeplitz.h layout, 0 for negative lags if causal. */
static double coeff(const double *coeffs, size_t n, ptrdiff_t k, int causal)
{
    if (causal && k < 0) return 0;
    return coeffs[k + (ptrdiff_t)(n - 1)];
}

/* y = T x by the definition T(i, j) = t_{i-j}; transpose: y = T^T x. */
static void toeplitz_reference(size_t m, size_t n, const double *coeffs, int causal, int transpose,
                               const double *x, double *y)
{
    size_t rows = transpose ? n : m, cols = transpose ? m : n;
    for (size_t i = 0; i < rows; i++) {
        double s = 0;
        for (size_t j = 0; j < cols; j++) {
            ptrdiff_t k = transpose ? (ptrdiff_t)j - (ptrdiff_t)i : (ptrdiff_t)i - (ptrdiff_t)j;
            s += coeff(coeffs, n, k, causal) * x[j];
        }
        y[i] = s;
    }
}

/* ---- launch geometry ------------------------------------------------------------------ */

START_TEST(test_grid_blocks)
{
    const unsigned blocks[] = {1, 32, 256, 1024};
    for (size_t b = 0; b < 4; b++)
        for (size_t total = 0; total < 5000; total += 1 + total / 3) {
            unsigned g = skit_cuda_grid_blocks(total, blocks[b], 7);
            size_t need = (total + blocks[b] - 1) / blocks[b];
            size_t want = need < 1 ? 1 : (need > 7 ? 7 : need);
            ck_assert_uint_eq(g, want);
            /* a grid-stride loop over the grid visits every item exactly once */
            size_t threads = (size_t)g * blocks[b];
            size_t visited = 0;
            for (size_t tid = 0; tid < threads; tid++)
                for (size_t t = tid; t < total; t += threads) visited++;
            ck_assert_uint_eq(visited, total);
        }
    ck_assert_uint_eq(skit_cuda_grid_blocks((size_t)1 << 40, 256, SKIT_CUDA_MAX_BLOCKS), SKIT_CUDA_MAX_BLOCKS);
}
END_TEST

START_TEST(test_split_is_column_major)
{
    for (size_t rows = 1; rows < 20; rows++)
        for (size_t t = 0; t < rows * 9; t++) {
            size_t i, c;
            skit_cuda_split(t, rows, &i, &c);
            ck_assert_uint_lt(i, rows);
            ck_assert_uint_eq(i + c * rows, t);
        }
}
END_TEST

/* ---- FFT lengths ----------------------------------------------------------------------- */

static int smooth7(size_t v)
{
    const size_t primes[] = {2, 3, 5, 7};
    for (int p = 0; p < 4; p++)
        while (v % primes[p] == 0) v /= primes[p];
    return v == 1;
}

START_TEST(test_good_length)
{
    ck_assert_uint_eq(skit_cuda_good_length(0), 0);
    for (size_t n = 1; n <= 5000; n++) {
        size_t want = n;
        while (!smooth7(want)) want++;
        ck_assert_uint_eq(skit_cuda_good_length(n), want);
        size_t cpu;
        TU_EXPECT_OK(skit_fft_good_length(n, &cpu)); /* the CPU plan's rule */
        ck_assert_uint_eq(cpu, want);
    }
    const size_t big[] = {(size_t)1 << 20, ((size_t)1 << 20) + 1, 1000003, (size_t)1 << 40,
                          ((size_t)1 << 40) + 12345};
    for (size_t i = 0; i < 5; i++) {
        size_t got = skit_cuda_good_length(big[i]);
        ck_assert_uint_ge(got, big[i]);
        ck_assert(smooth7(got));
        for (size_t v = big[i]; v < got && v < big[i] + 100000; v++) ck_assert(!smooth7(v));
    }
    ck_assert_uint_eq(skit_cuda_good_length(SIZE_MAX), 0); /* none fits */
    ck_assert_uint_eq(skit_cuda_rfft_bins(8), 5);
    ck_assert_uint_eq(skit_cuda_rfft_bins(9), 5);
}
END_TEST

/* ---- circulant embedding -------------------------------------------------------------------- */

/* First column of the length-L circulant built through the embedding map. */
static void embed(size_t m, size_t n, size_t L, int causal, const double *coeffs, double *c)
{
    for (size_t p = 0; p < L; p++) {
        ptrdiff_t src = skit_cuda_embed_source(p, m, n, L, causal);
        c[p] = src >= 0 ? coeffs[src] : 0;
    }
}

START_TEST(test_embed_source_reproduces_toeplitz)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    for (size_t m = 1; m <= 17; m++)
        for (size_t n = 1; n <= 17; n++)
            for (int causal = 0; causal <= 1; causal++)
                for (size_t extra = 0; extra <= 3; extra += 3) {
                    size_t L = skit_cuda_good_length(m + n - 1) + extra;
                    double *coeffs = tu_random(&rng, m + n - 1);
                    double *c = tu_alloc(L), *xp = tu_alloc(L), *y = tu_alloc(m), *ref = tu_alloc(m);
                    double *x = tu_random(&rng, n);
                    embed(m, n, L, causal, coeffs, c);
                    /* (circulant * [x; 0])[0..m) */
                    for (size_t p = 0; p < L; p++) {
                        ptrdiff_t src = skit_cuda_pad_source(p, 0, n, n);
                        xp[p] = src >= 0 ? x[src] : 0;
                    }
                    for (size_t i = 0; i < m; i++) {
                        double s = 0;
                        for (size_t j = 0; j < L; j++) s += c[(i + L - j) % L] * xp[j];
                        y[i] = s;
                    }
                    TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs,
                                                            causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL,
                                                            0, x, ref));
                    ck_assert_msg(tu_rel_error(y, ref, m) < 1e-13, "m=%zu n=%zu L=%zu causal=%d seed=%llu",
                                  m, n, L, causal, (unsigned long long)seed);
                    /* the transpose is the reversed embedding (hence conj(S) on the device) */
                    double *yt = tu_alloc(n), *xt = tu_random(&rng, m), *reft = tu_alloc(n);
                    for (size_t i = 0; i < n; i++) {
                        double s = 0;
                        for (size_t j = 0; j < m; j++) s += c[(L - (i + L - j) % L) % L] * xt[j];
                        yt[i] = s;
                    }
                    toeplitz_reference(m, n, coeffs, causal, 1, xt, reft);
                    ck_assert_msg(tu_rel_error(yt, reft, n) < 1e-13, "transpose m=%zu n=%zu causal=%d seed=%llu",
                                  m, n, causal, (unsigned long long)seed);
                    skit_free(coeffs);
                    skit_free(c);
                    skit_free(xp);
                    skit_free(y);
                    skit_free(ref);
                    skit_free(x);
                    skit_free(yt);
                    skit_free(xt);
                    skit_free(reft);
                }
}
END_TEST

START_TEST(test_embed_source_range)
{
    /* every coefficient index is in range, and each lag appears once */
    for (size_t m = 1; m < 30; m += 3)
        for (size_t n = 1; n < 30; n += 4) {
            size_t L = skit_cuda_good_length(m + n - 1);
            int seen[64] = {0};
            for (size_t p = 0; p < L; p++) {
                ptrdiff_t s = skit_cuda_embed_source(p, m, n, L, 0);
                if (s < 0) continue;
                ck_assert_int_lt(s, (ptrdiff_t)(m + n - 1));
                seen[s]++;
            }
            for (size_t k = 0; k < m + n - 1; k++) ck_assert_int_eq(seen[k], 1);
            ck_assert_int_eq(skit_cuda_embed_source(L, m, n, L, 0), -1);
        }
}
END_TEST

/* The device pipeline on the host: real DFT bins 0..L/2 of pad(x) and of the
 * embedding (scaled by 1/L), spectral product (conjugated for the
 * transpose), inverse real DFT the way C2R reads the bins, crop. */
static void emulate_device_toeplitz(size_t m, size_t n, size_t d, int shared, int causal,
                                    int transpose, const double *coeffs, const double *x,
                                    size_t ldx, double *y, size_t ldy)
{
    size_t L = skit_cuda_good_length(m + n - 1), bins = skit_cuda_rfft_bins(L);
    size_t nsets = shared ? 1 : d, ncoef = m + n - 1;
    size_t in_len = transpose ? m : n, out_len = transpose ? n : m;
    double complex *S = skit_malloc(bins * nsets, sizeof *S);
    double complex *Z = skit_malloc(bins * d, sizeof *Z);
    double *R = skit_malloc(L * d, sizeof *R);
    /* spectra */
    for (size_t c = 0; c < nsets; c++) {
        for (size_t p = 0; p < L; p++) {
            ptrdiff_t src = skit_cuda_embed_source(p, m, n, L, causal);
            R[p] = src >= 0 ? coeffs[c * ncoef + (size_t)src] : 0;
        }
        for (size_t f = 0; f < bins; f++) {
            double complex s = 0;
            for (size_t p = 0; p < L; p++) s += R[p] * cexp(-2 * M_PI * I * (double)(f * p % L) / (double)L);
            S[f + c * bins] = s / (double)L;
        }
    }
    /* pad + forward */
    for (size_t t = 0; t < L * d; t++) {
        size_t p, c;
        skit_cuda_split(t, L, &p, &c);
        ptrdiff_t src = skit_cuda_pad_source(p, c, in_len, ldx);
        R[t] = src >= 0 ? x[src] : 0;
    }
    for (size_t c = 0; c < d; c++)
        for (size_t f = 0; f < bins; f++) {
            double complex s = 0;
            for (size_t p = 0; p < L; p++)
                s += R[p + c * L] * cexp(-2 * M_PI * I * (double)(f * p % L) / (double)L);
            Z[f + c * bins] = s;
        }
    /* spectral product, flat index as the kernel iterates */
    for (size_t t = 0; t < bins * d; t++) {
        size_t f, c;
        skit_cuda_split(t, bins, &f, &c);
        double complex s = S[skit_cuda_spectrum_offset(f, c, shared, bins)];
        Z[f + c * bins] *= transpose ? conj(s) : s;
    }
    /* C2R: x[k] = sum over the Hermitian completion; imaginary parts of bin 0
     * (and L/2 for even L) ignored */
    for (size_t c = 0; c < d; c++)
        for (size_t k = 0; k < L; k++) {
            const double complex *z = Z + c * bins;
            double s = creal(z[0]);
            for (size_t f = 1; f < bins; f++) {
                double complex w = cexp(2 * M_PI * I * (double)(f * k % L) / (double)L);
                if (L % 2 == 0 && f == L / 2)
                    s += creal(z[f]) * creal(w);
                else
                    s += 2 * creal(z[f] * w);
            }
            R[k + c * L] = s;
        }
    /* crop */
    for (size_t t = 0; t < out_len * d; t++) {
        size_t i, c;
        skit_cuda_split(t, out_len, &i, &c);
        y[i + c * ldy] = R[i + c * L];
    }
    skit_free(S);
    skit_free(Z);
    skit_free(R);
}

START_TEST(test_emulated_toeplitz_pipeline)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    const size_t shapes[][2] = {{1, 1}, {1, 5}, {5, 1}, {4, 4}, {7, 7}, {8, 3}, {3, 8}, {13, 13}, {17, 11}, {16, 16}, {31, 29}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int shared = 0; shared <= 1; shared++)
            for (int causal = 0; causal <= 1; causal++)
                for (int transpose = 0; transpose <= 1; transpose++) {
                    size_t m = shapes[s][0], n = shapes[s][1], d = 3, ncoef = m + n - 1;
                    size_t in_len = transpose ? m : n, out_len = transpose ? n : m;
                    size_t ldx = in_len + 2, ldy = out_len + 1;
                    double *coeffs = tu_random(&rng, ncoef * (shared ? 1 : d));
                    double *x = tu_random(&rng, ldx * d);
                    double *y = tu_alloc(ldy * d), *ref = tu_alloc(out_len);
                    emulate_device_toeplitz(m, n, d, shared, causal, transpose, coeffs, x, ldx, y, ldy);
                    for (size_t c = 0; c < d; c++) {
                        toeplitz_reference(m, n, coeffs + (shared ? 0 : c * ncoef), causal, transpose,
                                           x + c * ldx, ref);
                        ck_assert_msg(tu_rel_error(y + c * ldy, ref, out_len) < 1e-12,
                                      "m=%zu n=%zu shared=%d causal=%d transpose=%d c=%zu seed=%llu", m, n,
                                      shared, causal, transpose, c, (unsigned long long)seed);
                        ck_assert(isnan(y[out_len + c * ldy])); /* padding rows untouched */
                    }
                    skit_free(coeffs);
                    skit_free(x);
                    skit_free(y);
                    skit_free(ref);
                }
}
END_TEST

/* ---- band --------------------------------------------------------------------------------- */

START_TEST(test_band_lags_and_product)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    for (size_t n = 1; n <= 23; n++)
        for (size_t lo = 0; lo < n && lo <= 5; lo++)
            for (size_t hi = 0; hi < n && hi <= 5; hi += 2) {
                for (size_t i = 0; i < n; i++) {
                    ptrdiff_t lmin, lmax, bmin = PTRDIFF_MAX, bmax = PTRDIFF_MIN;
                    skit_cuda_band_lags(i, n, lo, hi, &lmin, &lmax);
                    for (ptrdiff_t l = -(ptrdiff_t)lo; l <= (ptrdiff_t)hi; l++)
                        if ((ptrdiff_t)i - l >= 0 && (ptrdiff_t)i - l < (ptrdiff_t)n) {
                            if (l < bmin) bmin = l;
                            if (l > bmax) bmax = l;
                        }
                    if (bmin == PTRDIFF_MAX) {
                        ck_assert_int_gt(lmin, lmax);
                    } else {
                        ck_assert_int_eq(lmin, bmin);
                        ck_assert_int_eq(lmax, bmax);
                    }
                }
                /* band product through the lags = dense Toeplitz with only the band */
                size_t ntaps = lo + hi + 1;
                double *taps = tu_random(&rng, ntaps), *x = tu_random(&rng, n);
                double *coeffs = tu_alloc(2 * n - 1), *y = tu_alloc(n), *ref = tu_alloc(n);
                for (size_t k = 0; k < 2 * n - 1; k++) coeffs[k] = 0;
                for (size_t t = 0; t < ntaps; t++) coeffs[t - lo + (n - 1)] = taps[t];
                for (size_t i = 0; i < n; i++) {
                    ptrdiff_t lmin, lmax;
                    skit_cuda_band_lags(i, n, lo, hi, &lmin, &lmax);
                    const double *tc = taps + lo;
                    double s = 0;
                    for (ptrdiff_t l = lmin; l <= lmax; l++) s += tc[l] * x[(ptrdiff_t)i - l];
                    y[i] = s;
                }
                TU_EXPECT_OK(skit_toeplitz_matvec_dense(n, n, coeffs, SKIT_BIDIRECTIONAL, 0, x, ref));
                ck_assert_msg(tu_rel_error(y, ref, n) < 1e-13, "n=%zu lo=%zu hi=%zu seed=%llu", n, lo,
                              hi, (unsigned long long)seed);
                skit_free(taps);
                skit_free(x);
                skit_free(coeffs);
                skit_free(y);
                skit_free(ref);
            }
}
END_TEST

/* ---- SKI interpolation transpose ------------------------------------------------------------------ */

START_TEST(test_interp_transpose)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    const size_t ns[] = {1, 2, 7, 64, 97};
    const size_t rs[] = {1, 2, 5, 16};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t width = 1; width <= 4; width++) {
                size_t n = ns[a], r = rs[b], entries = n * width, d = 2;
                size_t *cols = skit_malloc(entries, sizeof *cols);
                size_t *row_ptr = skit_malloc(r + 1, sizeof *row_ptr);
                size_t *trow = skit_malloc(entries, sizeof *trow), *tsrc = skit_malloc(entries, sizeof *tsrc);
                double *w = tu_random(&rng, entries);
                /* contiguous stencils like linear/cubic interpolation, and
                 * random (possibly repeated) columns */
                int random_cols = skit_rng_below(&rng, 2) == 1;
                for (size_t i = 0; i < n; i++)
                    for (size_t k = 0; k < width; k++)
                        cols[i * width + k] = random_cols ? (size_t)skit_rng_below(&rng, r)
                                                          : (i * r / n + k) % r;
                skit_cuda_interp_transpose(n, r, width, cols, row_ptr, trow, tsrc);
                ck_assert_uint_eq(row_ptr[0], 0);
                ck_assert_uint_eq(row_ptr[r], entries);
                for (size_t j = 0; j < r; j++) {
                    ck_assert_uint_le(row_ptr[j], row_ptr[j + 1]);
                    for (size_t e = row_ptr[j]; e < row_ptr[j + 1]; e++) {
                        ck_assert_uint_eq(cols[tsrc[e]], j);
                        ck_assert_uint_eq(trow[e], tsrc[e] / width);
                        if (e > row_ptr[j]) ck_assert_uint_lt(tsrc[e - 1], tsrc[e]); /* fixed order */
                    }
                }
                /* gather (W u) and scatter (W^T x) as the kernels run them, vs dense W */
                double *Wd = tu_alloc(n * r);
                for (size_t q = 0; q < n * r; q++) Wd[q] = 0;
                for (size_t e = 0; e < entries; e++) Wd[e / width + cols[e] * n] += w[e];
                double *u = tu_random(&rng, r * d), *x = tu_random(&rng, n * d);
                double *y = tu_alloc(n * d), *ut = tu_alloc(r * d);
                for (size_t t = 0; t < n * d; t++) {
                    size_t i, c;
                    skit_cuda_split(t, n, &i, &c);
                    double s = 0;
                    for (size_t k = 0; k < width; k++) s += w[i * width + k] * u[cols[i * width + k] + c * r];
                    y[i + c * n] = s;
                }
                for (size_t t = 0; t < r * d; t++) {
                    size_t j, c;
                    skit_cuda_split(t, r, &j, &c);
                    double s = 0;
                    for (size_t e = row_ptr[j]; e < row_ptr[j + 1]; e++) s += w[tsrc[e]] * x[trow[e] + c * n];
                    ut[j + c * r] = s;
                }
                for (size_t c = 0; c < d; c++) {
                    double ref_y[97], ref_u[16];
                    for (size_t i = 0; i < n; i++) {
                        ref_y[i] = 0;
                        for (size_t j = 0; j < r; j++) ref_y[i] += Wd[i + j * n] * u[j + c * r];
                    }
                    for (size_t j = 0; j < r; j++) {
                        ref_u[j] = 0;
                        for (size_t i = 0; i < n; i++) ref_u[j] += Wd[i + j * n] * x[i + c * n];
                    }
                    ck_assert_msg(tu_rel_error(y + c * n, ref_y, n) < 1e-13, "gather seed=%llu", (unsigned long long)seed);
                    ck_assert_msg(tu_rel_error(ut + c * r, ref_u, r) < 1e-13, "scatter seed=%llu", (unsigned long long)seed);
                }
                skit_free(cols);
                skit_free(row_ptr);
                skit_free(trow);
                skit_free(tsrc);
                skit_free(w);
                skit_free(Wd);
                skit_free(u);
                skit_free(x);
                skit_free(y);
                skit_free(ut);
            }
}
END_TEST

/* ---- attention tiles --------------------------------------------------------------------------------- */

START_TEST(test_tiles_cover_rows)
{
    for (size_t n = 1; n < 200; n += 7)
        for (size_t tile = 1; tile <= n + 3; tile += 1 + tile / 2) {
            size_t tiles = skit_cuda_tile_count(n, tile), covered = 0;
            ck_assert_uint_eq(tiles, (n + tile - 1) / tile);
            for (size_t t = 0; t < tiles; t++) {
                size_t rows = skit_cuda_tile_rows(t, n, tile);
                ck_assert_uint_ge(rows, 1);
                ck_assert_uint_le(rows, tile);
                ck_assert_uint_eq(t * tile, covered); /* contiguous */
                covered += rows;
            }
            ck_assert_uint_eq(covered, n);
            ck_assert_uint_eq(skit_cuda_tile_rows(tiles, n, tile), 0);
        }
}
END_TEST

START_TEST(test_auto_tile)
{
    ck_assert_uint_eq(skit_cuda_attention_auto_tile(100, 10, 8, (size_t)1 << 30), 100);
    ck_assert_uint_eq(skit_cuda_attention_auto_tile(100000, 1000, 8, 8000 * 70), 64);
    ck_assert_uint_eq(skit_cuda_attention_auto_tile(100000, 1000, 8, 8000 * 20), 20);
    ck_assert_uint_eq(skit_cuda_attention_auto_tile(100000, 1000000, 8, 100), 1);
    for (size_t nk = 1; nk < 5000; nk += 97) {
        size_t tile = skit_cuda_attention_auto_tile(4096, nk, 4, (size_t)1 << 20);
        ck_assert_uint_ge(tile, 1);
        ck_assert_uint_le(tile, 4096);
        ck_assert_uint_le(tile * nk * 4, (size_t)1 << 20);
    }
}
END_TEST

START_TEST(test_causal_keys)
{
    for (size_t nk = 1; nk < 20; nk++)
        for (size_t row = 0; row < 30; row++) {
            size_t want = 0;
            for (size_t j = 0; j < nk; j++) want += j <= row;
            ck_assert_uint_eq(skit_cuda_causal_keys(row, nk, 1), want);
            ck_assert_uint_eq(skit_cuda_causal_keys(row, nk, 0), nk);
            for (size_t rows = 1; rows < 5; rows++) {
                size_t most = 0;
                for (size_t q = row; q < row + rows; q++)
                    if (skit_cuda_causal_keys(q, nk, 1) > most) most = skit_cuda_causal_keys(q, nk, 1);
                ck_assert_uint_eq(skit_cuda_tile_keys(row, rows, nk, 1), most);
            }
        }
}
END_TEST

static void naive_attention(size_t nq, size_t nk, size_t dk, size_t dv, int causal, double scale,
                            const double *Q, const double *K, const double *V, double *Y)
{
    double *w = skit_malloc(nk, sizeof *w);
    for (size_t i = 0; i < nq; i++) {
        double top = -INFINITY, sum = 0;
        for (size_t j = 0; j < nk; j++) {
            double s = 0;
            for (size_t a = 0; a < dk; a++) s += Q[i + a * nq] * K[j + a * nk];
            w[j] = (causal && j > i) ? -INFINITY : scale * s;
            if (w[j] > top) top = w[j];
        }
        for (size_t j = 0; j < nk; j++) sum += (w[j] = exp(w[j] - top));
        for (size_t b = 0; b < dv; b++) {
            double s = 0;
            for (size_t j = 0; j < nk; j++) s += w[j] * V[j + b * nk];
            Y[i + b * nq] = s / sum;
        }
    }
    skit_free(w);
}

/* The tile loop of attention.cu on the host: S (keys x rows, ld n_k) =
 * scale K Q_tile^T; column softmax over the valid keys, zeros below; Y_tile =
 * S^T V over the tile's keys. Rows of S beyond `keys` stay poisoned, so a
 * GEMM that read them would produce NaN. */
static void tiled_attention(size_t nq, size_t nk, size_t dk, size_t dv, int causal, double scale,
                            size_t tile, const double *Q, const double *K, const double *V, double *Y)
{
    double *S = tu_alloc(nk * tile);
    for (size_t t = 0; t < skit_cuda_tile_count(nq, tile); t++) {
        size_t row0 = t * tile, rows = skit_cuda_tile_rows(t, nq, tile);
        size_t keys = skit_cuda_tile_keys(row0, rows, nk, causal);
        tu_poison(S, nk * tile);
        for (size_t q = 0; q < rows; q++)
            for (size_t j = 0; j < keys; j++) {
                double s = 0;
                for (size_t a = 0; a < dk; a++) s += K[j + a * nk] * Q[row0 + q + a * nq];
                S[j + q * nk] = scale * s;
            }
        for (size_t q = 0; q < rows; q++) {
            double *s = S + q * nk, top = -INFINITY, sum = 0;
            size_t valid = skit_cuda_causal_keys(row0 + q, nk, causal);
            for (size_t j = 0; j < valid; j++) top = s[j] > top ? s[j] : top;
            for (size_t j = 0; j < valid; j++) sum += (s[j] = exp(s[j] - top));
            for (size_t j = 0; j < valid; j++) s[j] /= sum;
            for (size_t j = valid; j < keys; j++) s[j] = 0;
        }
        for (size_t q = 0; q < rows; q++)
            for (size_t b = 0; b < dv; b++) {
                double s = 0;
                for (size_t j = 0; j < keys; j++) s += S[j + q * nk] * V[j + b * nk];
                Y[row0 + q + b * nq] = s;
            }
    }
    skit_free(S);
}

START_TEST(test_emulated_attention_tiles)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    const size_t shapes[][4] = {{1, 1, 1, 1}, {5, 5, 3, 2}, {17, 17, 4, 5}, {33, 20, 8, 3}, {20, 33, 2, 7}};
    const size_t tiles[] = {1, 3, 7, 32, 0};
    for (size_t s = 0; s < 5; s++)
        for (int causal = 0; causal <= 1; causal++)
            for (size_t ti = 0; ti < 5; ti++) {
                size_t nq = shapes[s][0], nk = shapes[s][1], dk = shapes[s][2], dv = shapes[s][3];
                size_t tile = tiles[ti] == 0 ? skit_cuda_attention_auto_tile(nq, nk, 8, 8 * nk * 4) : tiles[ti];
                if (tile > nq) tile = nq;
                double *Q = tu_random(&rng, nq * dk), *K = tu_random(&rng, nk * dk), *V = tu_random(&rng, nk * dv);
                double *Y = tu_alloc(nq * dv), *ref = tu_alloc(nq * dv);
                double scale = 30.0 / sqrt((double)dk); /* large logits: the max shift matters */
                tiled_attention(nq, nk, dk, dv, causal, scale, tile, Q, K, V, Y);
                naive_attention(nq, nk, dk, dv, causal, scale, Q, K, V, ref);
                ck_assert_msg(tu_rel_error(Y, ref, nq * dv) < 1e-12, "nq=%zu nk=%zu causal=%d tile=%zu seed=%llu",
                              nq, nk, causal, tile, (unsigned long long)seed);
                skit_free(Q);
                skit_free(K);
                skit_free(V);
                skit_free(Y);
                skit_free(ref);
            }
}
END_TEST

/* ---- the API's argument checks (every build) -------------------------------------------------------- */

/* A valid call reaches the availability check: OK with a device, else
 * SKIT_EUNSUPPORTED with "cuda: not built" / "cuda: no device". */
static void expect_unavailable(int status)
{
    ck_assert_int_eq(skit_cuda_available(), 0);
    ck_assert_msg(status == SKIT_EUNSUPPORTED, "got %d (%s)", status, skit_last_error());
    const char *msg = skit_last_error();
    ck_assert_msg(!strcmp(msg, "cuda: not built") || !strncmp(msg, "cuda: no device", 15), "%s", msg);
}

START_TEST(test_status_line)
{
    char line[256];
    TU_EXPECT_STATUS(skit_cuda_status(NULL, 10), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_status(line, 0), SKIT_EINVAL);
    int status = skit_cuda_status(line, sizeof line);
    ck_assert_uint_gt(strlen(line), 10);
    ck_assert(!strncmp(line, "cuda: ", 6));
    if (skit_cuda_available()) {
        ck_assert_int_eq(status, SKIT_OK);
    } else {
        expect_unavailable(status);
        ck_assert_str_eq(skit_last_error(), line);
#ifndef SKIT_HAVE_CUDA
        ck_assert_str_eq(line, "cuda: not built");
#else
        ck_assert(!strncmp(line, "cuda: no device", 15));
#endif
    }
    char tiny[8];
    skit_cuda_status(tiny, sizeof tiny); /* truncated, still terminated */
    ck_assert_uint_eq(strlen(tiny), 7);
    ck_assert_uint_eq(skit_cuda_precision_bytes(SKIT_CUDA_FLOAT64), 8);
    ck_assert_uint_eq(skit_cuda_precision_bytes(SKIT_CUDA_FLOAT32), 4);
    ck_assert_uint_eq(skit_cuda_precision_bytes((skit_cuda_precision)7), 0);
}
END_TEST

START_TEST(test_config_memory_and_timing)
{
    void *p = (void *)1;
    char buf[16];
    TU_EXPECT_STATUS(skit_cuda_malloc(NULL, 8), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_copy_to_device(NULL, buf, 8), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_copy_to_device(buf, NULL, 8), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_copy_to_host(NULL, buf, 8), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_copy_on_device(buf, NULL, 8), SKIT_EINVAL);
    double seconds, bw;
    TU_EXPECT_STATUS(skit_cuda_time(NULL, NULL, 1, &seconds), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_copy_bandwidth(1 << 20, 1, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_copy_bandwidth(1000, 1, &bw), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_copy_bandwidth(1 << 20, 0, &bw), SKIT_EDOM);
    skit_cuda_free(NULL);
    if (skit_cuda_available()) return;
    expect_unavailable(skit_cuda_malloc(&p, 8));
    ck_assert_ptr_null(p);
    expect_unavailable(skit_cuda_copy_to_device(buf, buf, 8));
    expect_unavailable(skit_cuda_synchronize());
    expect_unavailable(skit_cuda_copy_bandwidth(1 << 20, 1, &bw));
}
END_TEST

START_TEST(test_config_toeplitz)
{
    skit_cuda_toeplitz_plan *plan = (skit_cuda_toeplitz_plan *)1;
    double coeffs[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const skit_toeplitz_sharing per = SKIT_TOEPLITZ_PER_CHANNEL;
    const skit_causality bi = SKIT_BIDIRECTIONAL;
    const skit_cuda_precision f64 = SKIT_CUDA_FLOAT64;
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(NULL, 3, 3, 1, per, bi, f64, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 1, per, bi, f64, NULL), SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 1, (skit_toeplitz_sharing)5, bi, f64, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 1, per, (skit_causality)5, f64, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 1, per, bi, (skit_cuda_precision)5, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 0, 3, 1, per, bi, f64, coeffs), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 0, 1, per, bi, f64, coeffs), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 0, per, bi, f64, coeffs), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, SIZE_MAX, 3, 1, per, bi, f64, coeffs), SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, SIZE_MAX / 4, SIZE_MAX / 4, 1, per, bi, f64, coeffs), SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, (size_t)1 << 40, 3, (size_t)1 << 30, SKIT_TOEPLITZ_SHARED, bi, f64, coeffs), SKIT_EOVERFLOW);
    coeffs[4] = NAN;
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 1, per, bi, f64, coeffs), SKIT_ENONFINITE);
    coeffs[4] = INFINITY;
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 1, per, bi, f64, coeffs), SKIT_ENONFINITE);
    coeffs[4] = 5;
    ck_assert_ptr_null(plan);
    double x[3] = {1, 2, 3}, y[3];
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_set_coeffs(NULL, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute(NULL, x, 3, y, 3), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute_transpose(NULL, x, 3, y, 3), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute_device(NULL, x, 3, y, 3), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute_transpose_device(NULL, x, 3, y, 3), SKIT_EINVAL);
    ck_assert_uint_eq(skit_cuda_toeplitz_plan_fft_length(NULL), 0);
    ck_assert_uint_eq(skit_cuda_toeplitz_plan_device_bytes(NULL), 0);
    skit_cuda_toeplitz_plan_destroy(NULL);
    if (skit_cuda_available()) return;
    for (int prec = 0; prec <= 1; prec++) {
        skit_clear_error();
        expect_unavailable(skit_cuda_toeplitz_plan_create(&plan, 3, 3, 1, per, SKIT_CAUSAL,
                                                          (skit_cuda_precision)prec, coeffs));
        ck_assert_ptr_null(plan);
    }
}
END_TEST

START_TEST(test_config_attention)
{
    skit_cuda_attention_plan *plan = (skit_cuda_attention_plan *)1;
    const skit_cuda_precision f32 = SKIT_CUDA_FLOAT32;
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(NULL, 4, 4, 2, 2, 0, f32, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, 4, 2, 2, 0, (skit_cuda_precision)-1, 0), SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 0, 4, 2, 2, 0, f32, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, 0, 2, 2, 0, f32, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, 4, 0, 2, 0, f32, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, 4, 2, 0, 0, f32, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, 4, 2, 2, 0, f32, 5), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, (size_t)1 << 32, 4, 2, 2, 0, f32, 1), SKIT_ETOOBIG);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, (size_t)1 << 31, 2, 2, 0, f32, 0), SKIT_ETOOBIG);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, 4, (size_t)1 << 31, 2, 0, f32, 0), SKIT_ETOOBIG);
    TU_EXPECT_STATUS(skit_cuda_attention_plan_create(&plan, 4, 4, 2, (size_t)1 << 31, 0, f32, 0), SKIT_ETOOBIG);
    ck_assert_ptr_null(plan);
    double buf[8];
    TU_EXPECT_STATUS(skit_cuda_attention_execute(NULL, 1.0, buf, 4, buf, 4, buf, 4, buf, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_attention_execute_device(NULL, 1.0, buf, 4, buf, 4, buf, 4, buf, 4), SKIT_EINVAL);
    ck_assert_uint_eq(skit_cuda_attention_plan_tile(NULL), 0);
    ck_assert_uint_eq(skit_cuda_attention_plan_device_bytes(NULL), 0);
    skit_cuda_attention_plan_destroy(NULL);
    if (skit_cuda_available()) return;
    expect_unavailable(skit_cuda_attention_plan_create(&plan, 4, 4, 2, 2, 1, f32, 0));
    ck_assert_ptr_null(plan);
}
END_TEST

START_TEST(test_config_kernels)
{
    double a[64], b[64], c[64];
    const skit_cuda_precision f64 = SKIT_CUDA_FLOAT64;
    /* complex multiply */
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device((skit_cuda_precision)2, 4, 1, 0, a, 4, b, 4, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device(f64, 4, 1, 0, NULL, 4, b, 4, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device(f64, 4, 1, 0, a, 4, NULL, 4, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device(f64, 0, 1, 0, a, 4, b, 4, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device(f64, 4, 0, 0, a, 4, b, 4, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device(f64, 4, 2, 0, a, 4, b, 3, 0), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device(f64, 4, 2, 0, a, 3, b, 4, 0), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_complex_multiply_device(f64, 4, 2, 0, a, 4, a + 8, 4, 0), SKIT_EINVAL);
    /* band */
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device((skit_cuda_precision)2, 8, 1, 1, 1, 0, a, b, 8, c, 8, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 1, 1, 0, NULL, b, 8, c, 8, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 1, 1, 0, a, NULL, 8, c, 8, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 1, 1, 0, a, b, 8, NULL, 8, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 0, 1, 0, 0, 0, a, b, 8, c, 8, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 0, 1, 1, 0, a, b, 8, c, 8, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 8, 1, 0, a, b, 8, c, 8, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 1, 8, 0, a, b, 8, c, 8, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 1, 1, 0, a, b, 7, c, 8, 0), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 1, 1, 0, a, b, 8, c, 7, 0), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 2, 1, 1, 0, a, b, 8, b + 4, 8, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_band_convolve_device(f64, 8, 1, 1, 1, 0, c + 2, b, 8, c, 8, 0), SKIT_EINVAL);
    /* interpolation */
    skit_cuda_interp_plan *plan = (skit_cuda_interp_plan *)1;
    size_t cols[8] = {0, 1, 1, 2, 2, 3, 3, 3};
    double w[8] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(NULL, 4, 4, 2, cols, w, f64), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 4, 4, 2, NULL, w, f64), SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 4, 4, 2, cols, NULL, f64), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 4, 4, 2, cols, w, (skit_cuda_precision)9), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 0, 4, 2, cols, w, f64), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 4, 0, 2, cols, w, f64), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 4, 4, 0, cols, w, f64), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 4, 3, 2, cols, w, f64), SKIT_EDOM); /* column 3 >= r */
    ck_assert_msg(strstr(skit_last_error(), "cols[5]") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, SIZE_MAX / 2, 4, 4, cols, w, f64), SKIT_EOVERFLOW);
    w[3] = NAN;
    TU_EXPECT_STATUS(skit_cuda_interp_plan_create(&plan, 4, 4, 2, cols, w, f64), SKIT_ENONFINITE);
    w[3] = 0.5;
    TU_EXPECT_STATUS(skit_cuda_interp_gather_device(NULL, 1, a, 4, b, 4, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_interp_scatter_device(NULL, 1, a, 4, b, 4), SKIT_EINVAL);
    ck_assert_uint_eq(skit_cuda_interp_plan_device_bytes(NULL), 0);
    skit_cuda_interp_plan_destroy(NULL);
    if (skit_cuda_available()) return;
    expect_unavailable(skit_cuda_complex_multiply_device(f64, 4, 2, 1, a, 0, b, 4, 1));
    expect_unavailable(skit_cuda_band_convolve_device(f64, 8, 2, 1, 1, 1, a, b, 8, c, 8, 1));
    expect_unavailable(skit_cuda_interp_plan_create(&plan, 4, 4, 2, cols, w, f64));
    ck_assert_ptr_null(plan);
}
END_TEST

static Suite *suite_cuda_logic(void)
{
    Suite *s = suite_create("cuda_logic");
    TCase *logic = tcase_create("index_logic");
    tcase_set_timeout(logic, 60);
    tcase_add_test(logic, test_grid_blocks);
    tcase_add_test(logic, test_split_is_column_major);
    tcase_add_test(logic, test_good_length);
    tcase_add_test(logic, test_embed_source_reproduces_toeplitz);
    tcase_add_test(logic, test_embed_source_range);
    tcase_add_test(logic, test_emulated_toeplitz_pipeline);
    tcase_add_test(logic, test_band_lags_and_product);
    tcase_add_test(logic, test_interp_transpose);
    tcase_add_test(logic, test_tiles_cover_rows);
    tcase_add_test(logic, test_auto_tile);
    tcase_add_test(logic, test_causal_keys);
    tcase_add_test(logic, test_emulated_attention_tiles);
    suite_add_tcase(s, logic);
    TCase *config = tcase_create("config");
    tcase_add_test(config, test_status_line);
    tcase_add_test(config, test_config_memory_and_timing);
    tcase_add_test(config, test_config_toeplitz);
    tcase_add_test(config, test_config_attention);
    tcase_add_test(config, test_config_kernels);
    suite_add_tcase(s, config);
    return s;
}

int main(void)
{
    return tu_main(suite_cuda_logic());
}
