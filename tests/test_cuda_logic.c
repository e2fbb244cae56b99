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
 * SKI transpose are checked the same way. The MRA-2 / MRA-2-s pipeline of
 * mra.cu is emulated with its own per-thread functions (mra_logic.h), naive
 * loops for the cuBLAS GEMMs and the host selection, and compared with the
 * CPU attention plan: the same squares refined, the same output to
 * rounding. Config tests cover skit/device.h and options.device of the
 * attention and token-mixing plans (SKIT_EUNSUPPORTED where no GPU is). */
#include "config.h"

#include <complex.h>
#include <math.h>

#include "check_util.h"
#include "attention/attention_internal.h" /* attn_mra_select */
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
                    /* errors relative to sum |W||x|: random repeated columns can
                     * cancel, and then the result itself is no scale */
                    double ref_y[97], ref_u[16], mag = 0, err = 0;
                    for (size_t i = 0; i < n; i++) {
                        double m = 0;
                        ref_y[i] = 0;
                        for (size_t j = 0; j < r; j++) {
                            ref_y[i] += Wd[i + j * n] * u[j + c * r];
                            m += fabs(Wd[i + j * n] * u[j + c * r]);
                        }
                        if (m > mag) mag = m;
                        if (fabs(y[i + c * n] - ref_y[i]) > err || isnan(y[i + c * n])) err = fabs(y[i + c * n] - ref_y[i]);
                    }
                    ck_assert_msg(err <= 1e-13 * mag, "gather seed=%llu", (unsigned long long)seed);
                    mag = 0, err = 0;
                    for (size_t j = 0; j < r; j++) {
                        double m = 0;
                        ref_u[j] = 0;
                        for (size_t i = 0; i < n; i++) {
                            ref_u[j] += Wd[i + j * n] * x[i + c * n];
                            m += fabs(Wd[i + j * n] * x[i + c * n]);
                        }
                        if (m > mag) mag = m;
                        if (fabs(ut[j + c * r] - ref_u[j]) > err || isnan(ut[j + c * r])) err = fabs(ut[j + c * r] - ref_u[j]);
                    }
                    ck_assert_msg(err <= 1e-13 * mag, "scatter seed=%llu", (unsigned long long)seed);
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

/* ---- MRA-2 / MRA-2-s (mra.cu) -------------------------------------------------------- */

START_TEST(test_mra_offsets)
{
    ck_assert_uint_eq(skit_cuda_mra_capacity(8, 3), 24);
    ck_assert_uint_eq(skit_cuda_mra_capacity(8, 8), 64);
    ck_assert_uint_eq(skit_cuda_mra_capacity(8, 9), 64);
    ck_assert_uint_eq(skit_cuda_mra_capacity(1, 1), 1);
    /* fine logits and numerators of different squares, keys and queries
     * never share a slot, and fill their buffers exactly */
    const size_t bs[] = {1, 2, 5, 32}, dvs[] = {1, 3, 64};
    for (size_t bi = 0; bi < 4; bi++)
        for (size_t vi = 0; vi < 3; vi++) {
            size_t b = bs[bi], dv = dvs[vi], sq = 3;
            unsigned char *seen = calloc(sq * b * (b > dv ? b : dv), 1);
            ck_assert_ptr_nonnull(seen);
            for (size_t e = 0; e < sq; e++)
                for (size_t c = 0; c < b; c++)
                    for (size_t a = 0; a < b; a++) {
                        size_t off = skit_cuda_mra_fine_offset(e, c, a, b);
                        ck_assert_uint_lt(off, sq * b * b);
                        ck_assert(!seen[off]);
                        seen[off] = 1;
                    }
            memset(seen, 0, sq * b * (b > dv ? b : dv));
            for (size_t e = 0; e < sq; e++)
                for (size_t a = 0; a < b; a++)
                    for (size_t col = 0; col < dv; col++) {
                        size_t off = skit_cuda_mra_num_offset(e, a, col, b, dv);
                        ck_assert_uint_lt(off, sq * b * dv);
                        ck_assert(!seen[off]);
                        seen[off] = 1;
                    }
            free(seen);
        }
    uint32_t cols[3] = {4, 0, 7}, prow[3] = {1, 1, 2};
    size_t kr, qr;
    skit_cuda_mra_square_rows(2, cols, prow, 32, &kr, &qr);
    ck_assert_uint_eq(kr, 224);
    ck_assert_uint_eq(qr, 64);
}
END_TEST

START_TEST(test_mra_refined_walk)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int trial = 0; trial < 200; trial++) {
        size_t rows = 1 + (size_t)skit_rng_below(&rng, 40);
        uint32_t cols[64];
        unsigned char in[64] = {0};
        size_t cnt = 0;
        for (size_t y = 0; y < rows; y++)
            if (skit_rng_uniform(&rng) < 0.3) {
                cols[cnt++] = (uint32_t)y;
                in[y] = 1;
            }
        /* a row of squares starts anywhere in the CSR: offset it */
        uint32_t buf[80];
        size_t off = (size_t)skit_rng_below(&rng, 8);
        for (size_t t = 0; t < off; t++) buf[t] = 99;
        memcpy(buf + off, cols, cnt * sizeof *cols);
        uint32_t row_ptr[2] = {(uint32_t)off, (uint32_t)(off + cnt)};
        size_t begin, end, pos;
        skit_cuda_mra_row_squares(row_ptr, 0, &begin, &end);
        ck_assert_uint_eq(begin, off);
        ck_assert_uint_eq(end, off + cnt);
        pos = begin;
        for (size_t y = 0; y < rows; y++)
            ck_assert_int_eq(skit_cuda_mra_refined_walk(buf, &pos, end, y), in[y]);
        ck_assert_uint_le(pos, end);
    }
}
END_TEST

/* Coarse (n/b x n/b) logits in the device's layout C[y + x*rows] from
 * naive block means, masked blocks -inf. */
static void naive_gemm_nt(size_t m, size_t n, size_t k, double alpha, const double *A, size_t lda,
                          const double *B, size_t ldb, double *C, size_t ldc)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t t = 0; t < k; t++) s += A[i + t * lda] * B[j + t * ldb];
            C[i + j * ldc] = alpha * s;
        }
}

/* The device pipeline of mra.cu on the host: each kernel a loop over its
 * threads calling the same per-thread functions, each cuBLAS GEMM a naive
 * loop, the selection the same host function. Buffers start poisoned. */
static size_t emulated_mra(size_t n, size_t d, size_t dv, const double *Q, const double *K,
                           const double *V, const unsigned char *mask,
                           const skit_attention_options *o, double *Y)
{
    size_t b = o->levels ? o->scales[0] : o->block, rows = n / b, per_row = o->blocks_per_row[0];
    size_t cap = skit_cuda_mra_capacity(rows, per_row), count;
    double scale = o->scale > 0 ? o->scale : 1.0 / sqrt((double)d), bias = o->shift_bias;
    int sparse = o->method == SKIT_ATTENTION_MRA2_SPARSE;
    double *qm = tu_alloc(rows * d), *km = tu_alloc(rows * d), *vm = tu_alloc(rows * dv);
    double *cnt = tu_alloc(rows), *C = tu_alloc(rows * rows);
    double *m0 = tu_alloc(rows), *den0 = tu_alloc(rows), *num0 = tu_alloc(rows * dv);
    double *fine = tu_alloc(cap * b * b), *fnum = tu_alloc(cap * b * dv);
    double *mf = tu_alloc(n), *denf = tu_alloc(n);
    double *score = tu_alloc(rows * rows), *tmp = tu_alloc(rows * rows);
    uint32_t *ids = malloc(rows * sizeof *ids), *csr = malloc((rows + 1 + 2 * cap) * sizeof *csr);
    unsigned char *flags = malloc(rows);
    ck_assert(ids && csr && flags);
    for (size_t t = 0; t < rows + 1 + 2 * cap; t++) csr[t] = 0xdeadbeefu;
    uint32_t *row_ptr = csr, *cols = csr + rows + 1, *prow = cols + cap;

    for (size_t t = 0; t < rows * d; t++) { /* block_means_kernel, threads (xb, c) */
        size_t xb, c;
        skit_cuda_split(t, rows, &xb, &c);
        qm[t] = skit_cuda_mra_block_mean_d(Q + c * n, xb, b, mask, &count);
        if (c == 0) cnt[xb] = (double)count;
        km[t] = skit_cuda_mra_block_mean_d(K + c * n, xb, b, mask, &count);
    }
    for (size_t t = 0; t < rows * dv; t++) {
        size_t xb, c;
        skit_cuda_split(t, rows, &xb, &c);
        vm[t] = skit_cuda_mra_block_mean_d(V + c * n, xb, b, mask, &count);
    }
    naive_gemm_nt(rows, rows, d, scale, km, rows, qm, rows, C, rows);
    if (mask)
        for (size_t t = 0; t < rows * rows; t++) { /* coarse_mask_kernel */
            size_t y, x;
            skit_cuda_split(t, rows, &y, &x);
            if (cnt[x] == 0 || cnt[y] == 0) C[t] = -INFINITY;
        }
    size_t nref = attn_mra_select(rows, C, per_row, o->selection, o->diagonal_prior,
                                  o->first_block_prior, score, tmp, ids, flags, row_ptr, cols,
                                  prow);
    ck_assert_uint_le(nref, cap);
    if (!sparse) {
        for (size_t x = 0; x < rows; x++)
            skit_cuda_mra_coarse_row_d(C + x * rows, rows, row_ptr, cols, x, cnt, bias, m0 + x, den0 + x);
        /* num0 = E^T vm */
        for (size_t x = 0; x < rows; x++)
            for (size_t c = 0; c < dv; c++) {
                double s = 0;
                for (size_t y = 0; y < rows; y++) s += C[y + x * rows] * vm[y + c * rows];
                num0[x + c * rows] = s;
            }
    }
    for (size_t e = 0; e < nref; e++) { /* batched GEMM 1 through the pointer kernel's offsets */
        size_t kr, qr;
        skit_cuda_mra_square_rows(e, cols, prow, b, &kr, &qr);
        naive_gemm_nt(b, b, d, scale, K + kr, n, Q + qr, n, fine + skit_cuda_mra_fine_offset(e, 0, 0, b), b);
    }
    for (size_t i = 0; i < n; i++)
        skit_cuda_mra_fine_row_d(fine, i, b, row_ptr, cols, mask, bias, mf + i, denf + i);
    for (size_t e = 0; e < nref; e++) { /* batched GEMM 2: N_e = S_e^T V_y */
        size_t kr, qr;
        skit_cuda_mra_square_rows(e, cols, prow, b, &kr, &qr);
        for (size_t a = 0; a < b; a++)
            for (size_t c = 0; c < dv; c++) {
                double s = 0;
                for (size_t k = 0; k < b; k++)
                    s += fine[skit_cuda_mra_fine_offset(e, k, a, b)] * V[kr + k + c * n];
                fnum[skit_cuda_mra_num_offset(e, a, c, b, dv)] = s;
            }
    }
    for (size_t t = 0; t < n * dv; t++) { /* merge_kernel */
        size_t i, c;
        skit_cuda_split(t, n, &i, &c);
        Y[i + c * n] = skit_cuda_mra_merge_d(i, c, b, dv, row_ptr, fnum, mf, denf, sparse, rows,
                                             sparse ? NULL : m0, sparse ? NULL : den0,
                                             sparse ? NULL : num0, mask);
    }
    skit_free(qm), skit_free(km), skit_free(vm), skit_free(cnt), skit_free(C);
    skit_free(m0), skit_free(den0), skit_free(num0), skit_free(fine), skit_free(fnum);
    skit_free(mf), skit_free(denf), skit_free(score), skit_free(tmp);
    free(ids), free(csr), free(flags);
    return nref;
}

/* The emulated device pipeline against the CPU plan: same squares refined,
 * same output to rounding, over block sizes (odd ones too), budgets,
 * both selections, priors, masks (whole blocks too), shift biases and large
 * logits. */
START_TEST(test_emulated_mra_matches_cpu)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    const size_t shapes[][4] = {/* n, b, d, dv */ {6, 2, 2, 1},   {32, 4, 3, 2},  {35, 5, 4, 3},
                                {64, 8, 5, 4},   {96, 32, 8, 5}, {256, 32, 8, 3}};
    int cases = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int method = SKIT_ATTENTION_MRA2; method <= SKIT_ATTENTION_MRA2_SPARSE; method++)
            for (int variant = 0; variant < 6; variant++) {
                size_t n = shapes[s][0], b = shapes[s][1], d = shapes[s][2], dv = shapes[s][3];
                size_t rows = n / b;
                skit_attention_options o;
                skit_attention_options_init(&o, (skit_attention_method)method);
                o.block = b;
                o.blocks_per_row[0] = 1 + (size_t)skit_rng_below(&rng, rows);
                o.selection = (variant & 1) ? SKIT_MRA_PER_ROW : SKIT_MRA_GLOBAL;
                o.diagonal_prior = variant == 2 ? 2 : 0;
                o.first_block_prior = variant == 3;
                o.shift_bias = variant == 4 ? 100.0 : 0.0;
                if (variant == 5) { /* the explicit two-level form, large logits */
                    o.levels = 2;
                    o.scales[0] = b;
                    o.scales[1] = 1;
                    o.scale = 30.0 / sqrt((double)d);
                    o.block = 7; /* ignored when levels > 0 */
                }
                double *Q = tu_random(&rng, n * d), *K = tu_random(&rng, n * d), *V = tu_random(&rng, n * dv);
                unsigned char *mask = NULL;
                if (variant >= 3) { /* random padding, and the last block entirely */
                    mask = malloc(n);
                    for (size_t i = 0; i < n; i++) mask[i] = skit_rng_uniform(&rng) < 0.8;
                    if (rows > 1)
                        for (size_t i = n - b; i < n; i++) mask[i] = 0;
                }
                double *Y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
                size_t nref = emulated_mra(n, d, dv, Q, K, V, mask, &o, Y);
                skit_attention_plan *plan = NULL;
                TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
                skit_attention_stats st;
                TU_EXPECT_OK(
                    skit_attention_plan_execute(plan, Q, n, K, n, V, n, mask, ref, n, &st));
                ck_assert_msg(st.refined[0] == nref, "refined %zu vs cpu %zu (n=%zu b=%zu variant %d seed %llu)",
                              nref, st.refined[0], n, b, variant, (unsigned long long)seed);
                double err = tu_rel_error(Y, ref, n * dv);
                ck_assert_msg(err < 1e-12, "%s n=%zu b=%zu per_row=%zu variant %d: error %g (seed %llu)",
                              skit_attention_method_name(method), n, b, o.blocks_per_row[0], variant,
                              err, (unsigned long long)seed);
                if (mask)
                    for (size_t i = 0; i < n; i++)
                        if (!mask[i]) ck_assert(Y[i] == 0.0);
                skit_attention_plan_destroy(plan);
                skit_free(Q), skit_free(K), skit_free(V), skit_free(Y), skit_free(ref);
                free(mask);
                cases++;
            }
    ck_assert_int_eq(cases, 72);
}
END_TEST

/* With every square refined MRA-2-s is exact attention; MRA-2 too. */
START_TEST(test_emulated_mra_full_budget_is_exact)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    size_t n = 48, b = 8, d = 4, dv = 3;
    for (int method = SKIT_ATTENTION_MRA2; method <= SKIT_ATTENTION_MRA2_SPARSE; method++) {
        skit_attention_options o;
        skit_attention_options_init(&o, (skit_attention_method)method);
        o.block = b;
        o.blocks_per_row[0] = n / b;
        double *Q = tu_random(&rng, n * d), *K = tu_random(&rng, n * d), *V = tu_random(&rng, n * dv);
        double *Y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
        ck_assert_uint_eq(emulated_mra(n, d, dv, Q, K, V, NULL, &o, Y), (n / b) * (n / b));
        naive_attention(n, n, d, dv, 0, 1.0 / sqrt((double)d), Q, K, V, ref);
        ck_assert_msg(tu_rel_error(Y, ref, n * dv) < 1e-12, "seed %llu", (unsigned long long)seed);
        skit_free(Q), skit_free(K), skit_free(V), skit_free(Y), skit_free(ref);
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

START_TEST(test_config_mra)
{
    skit_cuda_mra_plan *plan = (skit_cuda_mra_plan *)1;
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    o.block = 4;
    o.blocks_per_row[0] = 2;
    const skit_cuda_precision f64 = SKIT_CUDA_FLOAT64;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(NULL, 16, 2, 2, &o, f64), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, NULL, f64), SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, (skit_cuda_precision)3), SKIT_EINVAL);
    o.method = SKIT_ATTENTION_EXACT;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EINVAL);
    o.method = SKIT_ATTENTION_MRA2_SPARSE;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 0, 2, 2, &o, f64), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 0, 2, &o, f64), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 0, &o, f64), SKIT_EDOM);
    o.scale = -1;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.scale = NAN;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.scale = 0;
    o.shift_bias = INFINITY;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.shift_bias = 0;
    o.selection = (skit_mra_selection)9;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EINVAL);
    o.selection = SKIT_MRA_PER_ROW;
    o.block = 1;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.block = 32;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.block = 5;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_ESHAPE);
    o.block = 4;
    o.blocks_per_row[0] = 0;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.blocks_per_row[0] = 5;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.blocks_per_row[0] = 2;
    o.levels = 1;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EDOM);
    o.levels = 3;
    o.scales[0] = 8, o.scales[1] = 2, o.scales[2] = 1;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EUNSUPPORTED);
    ck_assert(strstr(skit_last_error(), "R = {block, 1}") != NULL);
    o.levels = 2;
    o.scales[1] = 2;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, f64), SKIT_EUNSUPPORTED);
    o.scales[0] = 2, o.scales[1] = 1; /* 65536 coarse blocks */
    o.blocks_per_row[0] = 1;
    TU_EXPECT_STATUS(skit_cuda_mra_plan_create(&plan, 2 * (size_t)65536, 2, 2, &o, f64), SKIT_ETOOBIG);
    ck_assert_ptr_null(plan);
    double buf[16];
    TU_EXPECT_STATUS(skit_cuda_mra_execute(NULL, buf, 4, buf, 4, buf, 4, NULL, buf, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_mra_execute_device(NULL, buf, 4, buf, 4, buf, 4, NULL, buf, 4), SKIT_EINVAL);
    ck_assert_uint_eq(skit_cuda_mra_plan_refined(NULL), 0);
    ck_assert_uint_eq(skit_cuda_mra_plan_block(NULL), 0);
    ck_assert_uint_eq(skit_cuda_mra_plan_device_bytes(NULL), 0);
    skit_cuda_mra_plan_destroy(NULL);
    TU_EXPECT_STATUS(skit_cuda_attention_execute_masked(NULL, 1.0, buf, 4, buf, 4, buf, 4, NULL, NULL, buf, 4),
                     SKIT_EINVAL);
    if (skit_cuda_available()) return;
    o.levels = 0;
    expect_unavailable(skit_cuda_mra_plan_create(&plan, 16, 2, 2, &o, SKIT_CUDA_FLOAT32));
    ck_assert_ptr_null(plan);
}
END_TEST

/* options.device of the attention and token-mixing plans */
START_TEST(test_config_device_plans)
{
    skit_device dev;
    ck_assert_str_eq(skit_device_name(SKIT_DEVICE_CPU), "cpu");
    ck_assert_str_eq(skit_device_name(SKIT_DEVICE_CUDA), "cuda");
    ck_assert_ptr_null(skit_device_name(7));
    TU_EXPECT_OK(skit_device_parse("cuda", &dev));
    ck_assert_int_eq(dev, SKIT_DEVICE_CUDA);
    TU_EXPECT_OK(skit_device_parse("cpu", &dev));
    ck_assert_int_eq(dev, SKIT_DEVICE_CPU);
    TU_EXPECT_STATUS(skit_device_parse("gpu", &dev), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_device_parse(NULL, &dev), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_device_parse("cpu", NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_device_check(SKIT_DEVICE_CPU));
    TU_EXPECT_STATUS(skit_device_check((skit_device)5), SKIT_EINVAL);
    int have = skit_cuda_available();
    if (!have) expect_unavailable(skit_device_check(SKIT_DEVICE_CUDA));
    else TU_EXPECT_OK(skit_device_check(SKIT_DEVICE_CUDA));

    /* attention: defaults to the CPU; unknown device; methods without a device path */
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
    ck_assert_int_eq(o.device, SKIT_DEVICE_CPU);
    skit_attention_plan *plan = (skit_attention_plan *)1;
    o.device = (skit_device)3;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 16, 2, 2, &o), SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++) {
        skit_attention_options_init(&o, (skit_attention_method)m);
        o.device = SKIT_DEVICE_CUDA;
        o.block = 4;
        o.rank = 4;
        o.window = 1;
        o.blocks_per_row[0] = 2;
        int status = skit_attention_plan_create(&plan, 16, 2, 2, &o);
        if (m == SKIT_ATTENTION_EXACT || m == SKIT_ATTENTION_MRA2 || m == SKIT_ATTENTION_MRA2_SPARSE) {
            if (have) {
                TU_EXPECT_OK(status);
                skit_attention_plan_destroy(plan);
            } else {
                expect_unavailable(status);
                ck_assert_ptr_null(plan);
            }
        } else {
            ck_assert_msg(status == SKIT_EUNSUPPORTED && strstr(skit_last_error(), "CPU only"),
                          "%s: %d %s", skit_attention_method_name(m), status, skit_last_error());
            ck_assert_ptr_null(plan);
        }
    }
    /* argument errors come before the device check */
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    o.device = SKIT_DEVICE_CUDA;
    o.block = 5;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 16, 2, 2, &o), SKIT_ESHAPE);
    o.block = 4;
    o.shift_bias = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 16, 2, 2, &o), SKIT_EDOM);
    o.method = SKIT_ATTENTION_EXACT;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 16, 2, 2, &o), SKIT_EDOM);

    /* token mixers */
    skit_tno_options t;
    skit_tno_plan *op = (skit_tno_plan *)1;
    skit_tno_options_default(&t, SKIT_TNO_FFT);
    ck_assert_int_eq(t.device, SKIT_DEVICE_CPU);
    t.rpe_width = 4;
    t.rpe_layers = 1;
    t.device = (skit_device)9;
    size_t count;
    TU_EXPECT_STATUS(skit_tno_options_parameter_count(&t, 2, &count), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_create(&op, 8, 2, 1, &t, NULL, 0), SKIT_EINVAL);
    ck_assert_ptr_null(op);
    t.device = SKIT_DEVICE_CUDA;
    TU_EXPECT_OK(skit_tno_options_parameter_count(&t, 2, &count)); /* no device needed */
    TU_EXPECT_STATUS(skit_tno_plan_create(&op, 0, 2, 1, &t, NULL, 0), SKIT_EDOM);
    for (int kind = 0; kind <= 2; kind++)
        for (int causal = 0; causal <= 1; causal++) {
            skit_tno_options_default(&t, (skit_tno_kind)kind);
            t.rpe_width = 4;
            t.rpe_layers = 1;
            t.rank = 4;
            t.taps = 3;
            t.knots = 4;
            t.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
            t.device = SKIT_DEVICE_CUDA;
            int status = skit_tno_plan_create(&op, 8, 2, 1, &t, NULL, 0);
            if (kind == SKIT_TNO_SKI && causal) {
                ck_assert_msg(status == SKIT_EUNSUPPORTED && strstr(skit_last_error(), "CPU only"), "%d %s",
                              status, skit_last_error());
            } else if (have) {
                TU_EXPECT_OK(status);
                skit_tno_plan_destroy(op);
                continue;
            } else {
                expect_unavailable(status);
            }
            ck_assert_ptr_null(op);
        }
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
    tcase_add_test(logic, test_mra_offsets);
    tcase_add_test(logic, test_mra_refined_walk);
    tcase_add_test(logic, test_emulated_mra_matches_cpu);
    tcase_add_test(logic, test_emulated_mra_full_budget_is_exact);
    suite_add_tcase(s, logic);
    TCase *config = tcase_create("config");
    tcase_add_test(config, test_status_line);
    tcase_add_test(config, test_config_memory_and_timing);
    tcase_add_test(config, test_config_toeplitz);
    tcase_add_test(config, test_config_attention);
    tcase_add_test(config, test_config_kernels);
    tcase_add_test(config, test_config_mra);
    tcase_add_test(config, test_config_device_plans);
    suite_add_tcase(s, config);
    return s;
}

int main(void)
{
    return tu_main(suite_cuda_logic());
}
