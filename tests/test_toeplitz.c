/* test_toeplitz.c — the Toeplitz core: dense reference against the
 * definition T(i, j) = t_{i-j}; the FFT plan against the dense reference
 * (FFTW-style properties: agreement, impulse, linearity, time shift,
 * causality, leading dimensions, workspace, set_coeffs); the FFT length
 * rule; the Levinson solves (residuals, breakdown, not-PD); and a config
 * test of every documented error of every public function.
 * Every run draws fresh random data (tu_seed; set SKIT_TEST_SEED to replay). */
#include "config.h"

#include <float.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <lapacke.h>
#undef I /* <complex.h>, via lapacke.h: the tests name matrices I */
#include <omp.h>
#endif

#include "check_util.h"
#include "fft/circulant.h" /* the engine in both precisions, tested directly below */
#include "fft/planner.h"   /* the shared FFTW pairs the plans hold: their counts */
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

static const skit_causality causalities[] = {SKIT_BIDIRECTIONAL, SKIT_CAUSAL};
static const skit_toeplitz_sharing sharings[] = {SKIT_TOEPLITZ_PER_CHANNEL, SKIT_TOEPLITZ_SHARED};

/* FFT products are compared with the dense O(mn) sum normwise: the
 * error of an FFT convolution is bounded by c * eps * log2(L) * ||h||_2 *
 * ||x||_2 in every entry (h: the coefficients the operator uses), while an
 * entry-relative measure is meaningless for entries that cancel (e.g. a
 * 1 x n causal operator whose single output t_0 x_0 happens to be tiny).
 * |y_i| <= ||h||_2 ||x||_2 by Cauchy-Schwarz, so the measure is a relative
 * error against the largest possible output. 1e-13 is about 40x
 * eps * log2(4096); a single misplaced coefficient gives ~1/n >> 1e-13. */
#define FFT_TOL 1e-13
/* Property tests (impulse, linearity, shift, causality) on random data
 * compare against the largest output entry, which for random inputs is
 * within a factor sqrt(n) of the normwise scale above. */
#define PROPERTY_TOL 1e-12

static double norm2(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

/* max |y - ref| / (||used coefficients||_2 ||x||_2) */
static double fft_error(const double *y, const double *ref, size_t nout, const double *coeffs,
                        size_t m, size_t n, skit_causality causality, const double *x, size_t nin)
{
    double h = causality == SKIT_CAUSAL ? norm2(coeffs + n - 1, m) : norm2(coeffs, m + n - 1);
    double scale = h * norm2(x, nin), worst = 0;
    for (size_t i = 0; i < nout; i++) {
        double e = fabs(y[i] - ref[i]);
        if (!(e <= worst)) worst = e;
    }
    if (isnan(worst)) return INFINITY;
    return scale > 0 ? worst / scale : worst;
}

static uint64_t seed_for(const char *test)
{
    uint64_t s = tu_seed();
    (void)test;
    return s;
}

/* The sizes every operator is tested at: all n in 1..64, then the large list. */
static size_t test_size(size_t index)
{
    return index < 64 ? index + 1 : tu_large_sizes[index - 64];
}
#define NSIZES (64 + TU_NLARGE)

/* t_{i-j} from the definition (0 for negative lags of causal operators). */
static double coeff_at(const double *coeffs, size_t n, skit_causality causality, long lag)
{
    if (causality == SKIT_CAUSAL && lag < 0) return 0.0;
    return coeffs[(long)n - 1 + lag];
}

/* Channel c of the per-channel or shared plan's coefficients. */
static const double *matrix_of(const double *coeffs, skit_toeplitz_sharing sharing, size_t m,
                               size_t n, size_t c)
{
    return sharing == SKIT_TOEPLITZ_SHARED ? coeffs : coeffs + c * (m + n - 1);
}

/* Runs the plan (or its transpose) on d random channels with padded
 * leading dimensions, NaN in the input padding (must not be read) and a
 * sentinel in the output padding (must not be written); returns the worst
 * relative error against the dense reference over the channels. */
static double check_plan_against_dense(skit_rng *rng, size_t m, size_t n, size_t d,
                                       skit_toeplitz_sharing sharing, skit_causality causality,
                                       int transpose, uint64_t seed)
{
    size_t per = m + n - 1, nmat = sharing == SKIT_TOEPLITZ_SHARED ? 1 : d;
    double *coeffs = tu_random(rng, per * nmat);
    skit_toeplitz_plan *plan = NULL;
    TU_EXPECT_OK(skit_toeplitz_plan_create(
        &plan, m, n, d, &(skit_toeplitz_options){.sharing = sharing, .causality = causality},
        coeffs));
    size_t nin = transpose ? m : n, nout = transpose ? n : m;
    size_t ldx = nin + 3, ldy = nout + 2;
    double *x = tu_alloc(ldx * d), *y = tu_alloc(ldy * d), *ref = tu_alloc(nout);
    for (size_t c = 0; c < d; c++) {
        skit_rng_fill_normal(rng, x + c * ldx, nin); /* padding stays NaN */
        for (size_t i = nout; i < ldy; i++) y[c * ldy + i] = 12345.0;
    }
    if (transpose)
        TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(plan, x, ldx, y, ldy, NULL));
    else
        TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, ldx, y, ldy, NULL));
    double worst = 0;
    for (size_t c = 0; c < d; c++) {
        TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, matrix_of(coeffs, sharing, m, n, c), causality,
                                                transpose, x + c * ldx, ref));
        double e = fft_error(y + c * ldy, ref, nout, matrix_of(coeffs, sharing, m, n, c), m, n,
                             causality, x + c * ldx, nin);
        if (!(e <= worst)) worst = e;
        for (size_t i = nout; i < ldy; i++)
            ck_assert_msg(y[c * ldy + i] == 12345.0,
                          "output padding written: m=%zu n=%zu c=%zu i=%zu (seed %llu)", m, n, c, i,
                          (unsigned long long)seed);
    }
    skit_toeplitz_plan_destroy(plan);
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    skit_free(ref);
    return worst;
}

/* ---- dense reference ---------------------------------------------------- */

START_TEST(test_dense_matches_definition)
{
    uint64_t seed = seed_for("dense");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t m = 1; m <= 13; m++)
        for (size_t n = 1; n <= 13; n++)
            for (int cz = 0; cz < 2; cz++) {
                skit_causality causality = causalities[cz];
                double *coeffs = tu_random(&rng, m + n - 1);
                size_t lda = m + 2;
                double *A = tu_alloc(lda * n);
                TU_EXPECT_OK(skit_toeplitz_dense(m, n, coeffs, causality, A, lda));
                for (size_t j = 0; j < n; j++) {
                    for (size_t i = 0; i < m; i++)
                        ck_assert_msg(A[i + j * lda] ==
                                          coeff_at(coeffs, n, causality, (long)i - (long)j),
                                      "A(%zu,%zu) m=%zu n=%zu", i, j, m, n);
                    for (size_t i = m; i < lda; i++) ck_assert(isnan(A[i + j * lda]));
                }
                /* matvec and transposed matvec against A by explicit sums */
                double *x = tu_random(&rng, n), *y = tu_alloc(m);
                double *xt = tu_random(&rng, m), *yt = tu_alloc(n);
                TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs, causality, 0, x, y));
                TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs, causality, 1, xt, yt));
                for (size_t i = 0; i < m; i++) {
                    long double s = 0;
                    for (size_t j = 0; j < n; j++) s += (long double)A[i + j * lda] * x[j];
                    ck_assert_msg(fabs(y[i] - (double)s) <= 1e-13 * (1 + fabsl(s)), "y[%zu]", i);
                }
                for (size_t j = 0; j < n; j++) {
                    long double s = 0;
                    for (size_t i = 0; i < m; i++) s += (long double)A[i + j * lda] * xt[i];
                    ck_assert_msg(fabs(yt[j] - (double)s) <= 1e-13 * (1 + fabsl(s)), "yt[%zu]", j);
                }
                skit_free(coeffs);
                skit_free(A);
                skit_free(x);
                skit_free(y);
                skit_free(xt);
                skit_free(yt);
            }
}
END_TEST

/* ---- FFT plan against the dense reference ------------------------------- */

START_TEST(test_fft_matches_dense_square)
{
    uint64_t seed = seed_for("square");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t ds[] = {1, 3};
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = test_size(s);
        for (int cz = 0; cz < 2; cz++)
            for (int sh = 0; sh < 2; sh++)
                for (int di = 0; di < 2; di++)
                    for (int tr = 0; tr < 2; tr++) {
                        double e = check_plan_against_dense(&rng, n, n, ds[di], sharings[sh],
                                                            causalities[cz], tr, seed);
                        ck_assert_msg(e <= FFT_TOL,
                                      "n=%zu causal=%d shared=%d d=%zu transpose=%d: rel error %g "
                                      "(seed %llu)",
                                      n, cz, sh, ds[di], tr, e, (unsigned long long)seed);
                    }
    }
}
END_TEST

START_TEST(test_fft_matches_dense_rectangular)
{
    uint64_t seed = seed_for("rect");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t shapes[][2] = {{1, 2},    {2, 1},   {1, 64},  {64, 1},   {3, 97},
                                       {97, 3},   {100, 7}, {7, 100}, {211, 97}, {97, 211},
                                       {1000, 1}, {1, 997}, {255, 256}, {331, 499}, {2039, 100},
                                       /* L > 2^16: the in-place transform path */
                                       {3, 70001}, {70001, 3}, {1, 65536}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0] + 40; s++) {
        size_t m, n;
        if (s < sizeof shapes / sizeof shapes[0]) {
            m = shapes[s][0];
            n = shapes[s][1];
        } else { /* random shapes up to 80 x 80 */
            m = 1 + skit_rng_below(&rng, 80);
            n = 1 + skit_rng_below(&rng, 80);
        }
        for (int cz = 0; cz < 2; cz++)
            for (int sh = 0; sh < 2; sh++)
                for (int tr = 0; tr < 2; tr++) {
                    double e =
                        check_plan_against_dense(&rng, m, n, 3, sharings[sh], causalities[cz], tr, seed);
                    ck_assert_msg(e <= FFT_TOL,
                                  "m=%zu n=%zu causal=%d shared=%d transpose=%d: rel error %g (seed %llu)",
                                  m, n, cz, sh, tr, e, (unsigned long long)seed);
                }
    }
}
END_TEST

/* x = e_j in channel j gives column j of T: with d = n channels of a
 * shared plan and X = I, Y is the dense matrix (and X = I_m gives T^T). */
START_TEST(test_fft_impulse_response)
{
    uint64_t seed = seed_for("impulse");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t shapes[][2] = {{1, 1}, {5, 5}, {8, 3}, {3, 8}, {17, 17}, {64, 31}, {97, 97}, {128, 127}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1];
        for (int cz = 0; cz < 2; cz++) {
            double *coeffs = tu_random(&rng, m + n - 1);
            double *A = tu_alloc(m * n);
            TU_EXPECT_OK(skit_toeplitz_dense(m, n, coeffs, causalities[cz], A, m));
            double scale = 0;
            for (size_t i = 0; i < m * n; i++) scale = fmax(scale, fabs(A[i]));
            for (int tr = 0; tr < 2; tr++) {
                size_t nin = tr ? m : n, nout = tr ? n : m;
                skit_toeplitz_plan *plan = NULL;
                TU_EXPECT_OK(skit_toeplitz_plan_create(
                    &plan, m, n, nin,
                    &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED,
                                             .causality = causalities[cz]},
                    coeffs));
                double *I = tu_alloc(nin * nin), *Y = tu_alloc(nout * nin);
                for (size_t i = 0; i < nin * nin; i++) I[i] = 0;
                for (size_t i = 0; i < nin; i++) I[i + i * nin] = 1;
                if (tr)
                    TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(plan, I, nin, Y, nout, NULL));
                else
                    TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, I, nin, Y, nout, NULL));
                for (size_t j = 0; j < nin; j++)
                    for (size_t i = 0; i < nout; i++) {
                        double want = tr ? A[j + i * m] : A[i + j * m];
                        ck_assert_msg(fabs(Y[i + j * nout] - want) <= PROPERTY_TOL * scale,
                                      "impulse %zu, output %zu: %g vs %g (m=%zu n=%zu causal=%d "
                                      "transpose=%d, seed %llu)",
                                      j, i, Y[i + j * nout], want, m, n, cz, tr,
                                      (unsigned long long)seed);
                    }
                skit_toeplitz_plan_destroy(plan);
                skit_free(I);
                skit_free(Y);
            }
            skit_free(coeffs);
            skit_free(A);
        }
    }
}
END_TEST

/* T(a x1 + b x2) = a T x1 + b T x2, and linearity in the coefficients
 * (through set_coeffs): T_{a s + b u} x = a T_s x + b T_u x. */
START_TEST(test_fft_linearity)
{
    uint64_t seed = seed_for("linearity");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t sizes[] = {1, 2, 7, 31, 64, 97, 256, 499};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int cz = 0; cz < 2; cz++) {
            size_t n = sizes[s], m = n + (s % 3), d = 2, per = m + n - 1;
            double a = skit_rng_normal(&rng), b = skit_rng_normal(&rng);
            double *cs = tu_random(&rng, per * d), *cu = tu_random(&rng, per * d),
                   *cm = tu_alloc(per * d);
            for (size_t i = 0; i < per * d; i++) cm[i] = a * cs[i] + b * cu[i];
            double *x1 = tu_random(&rng, n * d), *x2 = tu_random(&rng, n * d), *xm = tu_alloc(n * d);
            for (size_t i = 0; i < n * d; i++) xm[i] = a * x1[i] + b * x2[i];
            double *y1 = tu_alloc(m * d), *y2 = tu_alloc(m * d), *ym = tu_alloc(m * d),
                   *comb = tu_alloc(m * d);
            skit_toeplitz_plan *plan = NULL;
            TU_EXPECT_OK(skit_toeplitz_plan_create(
                &plan, m, n, d,
                &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                         .causality = causalities[cz]},
                cs));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x1, n, y1, m, NULL));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x2, n, y2, m, NULL));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, xm, n, ym, m, NULL));
            for (size_t i = 0; i < m * d; i++) comb[i] = a * y1[i] + b * y2[i];
            double e = tu_rel_error(ym, comb, m * d);
            ck_assert_msg(e <= PROPERTY_TOL, "linearity in x: n=%zu causal=%d err %g (seed %llu)", n, cz, e,
                          (unsigned long long)seed);
            /* coefficients: T_s x1, T_u x1, T_{as+bu} x1 */
            TU_EXPECT_OK(skit_toeplitz_plan_set_coeffs(plan, cu));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x1, n, y2, m, NULL));
            TU_EXPECT_OK(skit_toeplitz_plan_set_coeffs(plan, cm));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x1, n, ym, m, NULL));
            for (size_t i = 0; i < m * d; i++) comb[i] = a * y1[i] + b * y2[i];
            e = tu_rel_error(ym, comb, m * d);
            ck_assert_msg(e <= PROPERTY_TOL, "linearity in t: n=%zu causal=%d err %g (seed %llu)", n, cz, e,
                          (unsigned long long)seed);
            skit_toeplitz_plan_destroy(plan);
            double *bufs[] = {cs, cu, cm, x1, x2, xm, y1, y2, ym, comb};
            for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) skit_free(bufs[i]);
        }
}
END_TEST

/* Time shift. Toeplitz means shift-equivariant up to the window: if x is
 * supported on [0, n-s) and x' is x delayed by s (x'_j = x_{j-s}), then
 * y'_i = sum_j t_{i-j} x_{j-s} = y_{i-s} for every i in [s, m). Conversely
 * advancing an x supported on [s, n) by s gives y''_i = y_{i+s} for i in
 * [0, m-s). The two directions exercise positive and negative lags. */
START_TEST(test_fft_time_shift)
{
    uint64_t seed = seed_for("shift");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t sizes[] = {2, 5, 16, 37, 64, 100, 211, 512};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int cz = 0; cz < 2; cz++) {
            size_t n = sizes[si], m = n + si % 2 * 3;
            size_t s = 1 + skit_rng_below(&rng, n - 1 > 0 ? n - 1 : 1);
            if (s >= n) s = n - 1;
            double *coeffs = tu_random(&rng, m + n - 1);
            skit_toeplitz_plan *plan = NULL;
            TU_EXPECT_OK(
                skit_toeplitz_plan_create(&plan, m, n, 1,
                                          &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED,
                                                                   .causality = causalities[cz]},
                                          coeffs));
            double *x = tu_alloc(n), *xs = tu_alloc(n), *y = tu_alloc(m), *ys = tu_alloc(m);
            /* delay */
            for (size_t j = 0; j < n; j++) x[j] = j < n - s ? skit_rng_normal(&rng) : 0.0;
            for (size_t j = 0; j < n; j++) xs[j] = j >= s ? x[j - s] : 0.0;
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y, m, NULL));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, xs, n, ys, m, NULL));
            double scale = 0;
            for (size_t i = 0; i < m; i++) scale = fmax(scale, fabs(y[i]));
            for (size_t i = s; i < m; i++)
                ck_assert_msg(fabs(ys[i] - y[i - s]) <= PROPERTY_TOL * scale,
                              "delay: n=%zu m=%zu s=%zu i=%zu causal=%d (seed %llu)", n, m, s, i, cz,
                              (unsigned long long)seed);
            /* advance */
            for (size_t j = 0; j < n; j++) x[j] = j >= s ? skit_rng_normal(&rng) : 0.0;
            for (size_t j = 0; j < n; j++) xs[j] = j + s < n ? x[j + s] : 0.0;
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y, m, NULL));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, xs, n, ys, m, NULL));
            scale = 0;
            for (size_t i = 0; i < m; i++) scale = fmax(scale, fabs(y[i]));
            for (size_t i = 0; i + s < m; i++)
                ck_assert_msg(fabs(ys[i] - y[i + s]) <= PROPERTY_TOL * scale,
                              "advance: n=%zu m=%zu s=%zu i=%zu causal=%d (seed %llu)", n, m, s, i,
                              cz, (unsigned long long)seed);
            skit_toeplitz_plan_destroy(plan);
            skit_free(coeffs);
            skit_free(x);
            skit_free(xs);
            skit_free(y);
            skit_free(ys);
        }
}
END_TEST

/* Perturbing x[k:] leaves y[:k] of a causal operator unchanged (to
 * rounding for the FFT path, exactly for the dense one); for the transpose
 * (anti-causal) perturbing x[:k] leaves y[k:] unchanged. */
START_TEST(test_fft_causality)
{
    uint64_t seed = seed_for("causality");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t s = 0; s < NSIZES; s += 3) {
        size_t n = test_size(s), m = n, d = 2;
        double *coeffs = tu_random(&rng, (m + n - 1) * d);
        skit_toeplitz_plan *plan = NULL;
        TU_EXPECT_OK(
            skit_toeplitz_plan_create(&plan, m, n, d,
                                      &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                               .causality = SKIT_CAUSAL},
                                      coeffs));
        double *x = tu_random(&rng, n * d), *xp = tu_alloc(n * d), *y = tu_alloc(m * d),
               *yp = tu_alloc(m * d);
        size_t k = skit_rng_below(&rng, n);
        for (int tr = 0; tr < 2; tr++) {
            for (size_t c = 0; c < d; c++)
                for (size_t j = 0; j < n; j++) {
                    int perturbed = tr ? j < k : j >= k;
                    xp[c * n + j] = x[c * n + j] + (perturbed ? 10 * skit_rng_normal(&rng) : 0.0);
                }
            if (tr) {
                TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(plan, x, n, y, n, NULL));
                TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(plan, xp, n, yp, n, NULL));
            } else {
                TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y, m, NULL));
                TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, xp, n, yp, m, NULL));
            }
            double scale = 0;
            for (size_t i = 0; i < m * d; i++) scale = fmax(scale, fmax(fabs(y[i]), fabs(yp[i])));
            for (size_t c = 0; c < d; c++)
                for (size_t i = tr ? k : 0; i < (tr ? n : k); i++)
                    ck_assert_msg(fabs(y[c * m + i] - yp[c * m + i]) <= PROPERTY_TOL * scale,
                                  "n=%zu k=%zu i=%zu transpose=%d: %g vs %g (seed %llu)", n, k, i, tr,
                                  y[c * m + i], yp[c * m + i], (unsigned long long)seed);
            /* the dense reference is exactly causal */
            double *yd = tu_alloc(n), *ydp = tu_alloc(n);
            TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs, SKIT_CAUSAL, tr, x, yd));
            TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs, SKIT_CAUSAL, tr, xp, ydp));
            for (size_t i = tr ? k : 0; i < (tr ? n : k); i++) ck_assert(yd[i] == ydp[i]);
            skit_free(yd);
            skit_free(ydp);
        }
        skit_toeplitz_plan_destroy(plan);
        skit_free(coeffs);
        skit_free(x);
        skit_free(xp);
        skit_free(y);
        skit_free(yp);
    }
}
END_TEST

/* The negative lags of a causal plan are ignored, even NaN ones. */
START_TEST(test_fft_causal_ignores_negative_lags)
{
    skit_rng rng;
    skit_rng_seed(&rng, seed_for("neglags"));
    size_t n = 37, m = 41;
    double *coeffs = tu_random(&rng, m + n - 1), *clean = tu_alloc(m + n - 1);
    for (size_t k = 0; k < m + n - 1; k++) clean[k] = k < n - 1 ? 0.0 : coeffs[k];
    for (size_t k = 0; k < n - 1; k++) coeffs[k] = NAN;
    skit_toeplitz_plan *plan = NULL, *ref = NULL;
    TU_EXPECT_OK(skit_toeplitz_plan_create(
        &plan, m, n, 1,
        &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL},
        coeffs));
    TU_EXPECT_OK(skit_toeplitz_plan_create(
        &ref, m, n, 1,
        &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_BIDIRECTIONAL},
        clean));
    double *x = tu_random(&rng, n), *y = tu_alloc(m), *yr = tu_alloc(m);
    TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y, m, NULL));
    TU_EXPECT_OK(skit_toeplitz_plan_execute(ref, x, n, yr, m, NULL));
    ck_assert(tu_rel_error(y, yr, m) <= PROPERTY_TOL);
    TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs, SKIT_CAUSAL, 0, x, yr));
    ck_assert(tu_rel_error(y, yr, m) <= PROPERTY_TOL);
    skit_toeplitz_plan_destroy(plan);
    skit_toeplitz_plan_destroy(ref);
    skit_free(coeffs);
    skit_free(clean);
    skit_free(x);
    skit_free(y);
    skit_free(yr);
}
END_TEST

/* A caller workspace (deliberately misaligned by one double) gives results
 * identical to the plan's own, also when threads share the plan. */
START_TEST(test_fft_caller_workspace)
{
    uint64_t seed = seed_for("workspace");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t sizes[] = {1, 13, 64, 100, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s], m = n + 1, d = 5;
        double *coeffs = tu_random(&rng, (m + n - 1) * d);
        skit_toeplitz_plan *plan = NULL;
        TU_EXPECT_OK(
            skit_toeplitz_plan_create(&plan, m, n, d,
                                      &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                               .causality = SKIT_BIDIRECTIONAL},
                                      coeffs));
        size_t wsize = skit_toeplitz_plan_workspace_bytes(plan);
        ck_assert_uint_ge(wsize, 2 * skit_toeplitz_plan_fft_length(plan) * sizeof(double));
        double *work = tu_alloc(wsize / sizeof(double) + 1);
        double *x = tu_random(&rng, n * d), *y1 = tu_alloc(m * d), *y2 = tu_alloc(m * d);
        TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y1, m, NULL));
        TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y2, m, work + 1));
        ck_assert_msg(memcmp(y1, y2, m * d * sizeof *y1) == 0, "n=%zu: workspace changes results", n);
        double *xt = tu_random(&rng, m * d);
        TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(plan, xt, m, y1, n, NULL));
        TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(plan, xt, m, y2, n, work + 1));
        ck_assert(memcmp(y1, y2, n * d * sizeof *y1) == 0);
        skit_free(xt);
        /* concurrent callers, each with its own workspace */
        TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y1, m, NULL));
        int bad = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(3) reduction(+ : bad)
#endif
        {
            double *w = skit_malloc(wsize, 1), *yy = skit_malloc(m * d, sizeof(double));
            for (int rep = 0; rep < 4; rep++) {
                if (!w || !yy || skit_toeplitz_plan_execute(plan, x, n, yy, m, w) != SKIT_OK ||
                    memcmp(yy, y1, m * d * sizeof *yy) != 0)
                    bad++;
            }
            skit_free(w);
            skit_free(yy);
        }
        ck_assert_int_eq(bad, 0);
        skit_toeplitz_plan_destroy(plan);
        skit_free(coeffs);
        skit_free(work);
        skit_free(x);
        skit_free(y1);
        skit_free(y2);
    }
}
END_TEST

/* ||used coefficients of channel c||_1: a bound on the circulant's 2-norm */
static double used_norm1(const double *coeffs, size_t m, size_t n, skit_causality causality)
{
    double s = 0;
    for (size_t k = causality == SKIT_CAUSAL ? n - 1 : 0; k < m + n - 1; k++) s += fabs(coeffs[k]);
    return s;
}

/* One shape: the float32 plan against the float64 plan on the same
 * coefficients and the same (float) inputs, forward and transposed, every
 * channel within tu_f32_bound; outputs poisoned. */
static void check_f32_shape(skit_rng *rng, size_t m, size_t n, size_t d, skit_toeplitz_sharing sharing,
                            skit_causality causality, uint64_t seed)
{
    const size_t nmat = sharing == SKIT_TOEPLITZ_SHARED ? 1 : d, per = m + n - 1, big = m > n ? m : n;
    double *coeffs = tu_random(rng, per * nmat), *x64 = tu_alloc(big * d), *y64 = tu_alloc(big * d);
    float *x32 = tu_alloc_f32(big * d), *y32 = tu_alloc_f32(big * d);
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    o.sharing = sharing;
    o.causality = causality;
    skit_toeplitz_plan *p64 = NULL, *p32 = NULL;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p64, m, n, d, &o, coeffs));
    o.precision = SKIT_PRECISION_F32;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p32, m, n, d, &o, coeffs));
    ck_assert_int_eq(skit_toeplitz_plan_precision(p32), SKIT_PRECISION_F32);
    const size_t N = skit_toeplitz_plan_fft_length(p32);
    for (int transpose = 0; transpose < 2; transpose++) {
        const size_t nin = transpose ? m : n, nout = transpose ? n : m;
        for (size_t i = 0; i < nin * d; i++) x64[i] = x32[i] = (float)skit_rng_normal(rng);
        tu_poison(y64, big * d);
        for (size_t i = 0; i < big * d; i++) y32[i] = NAN;
        int (*run64)(const skit_toeplitz_plan *, const double *, size_t, double *, size_t, void *) =
            transpose ? skit_toeplitz_plan_execute_transpose : skit_toeplitz_plan_execute;
        int (*run32)(const skit_toeplitz_plan *, const float *, size_t, float *, size_t, void *) =
            transpose ? skit_toeplitz_plan_execute_transpose_f32 : skit_toeplitz_plan_execute_f32;
        TU_EXPECT_OK(run64(p64, x64, nin, y64, nout, NULL));
        TU_EXPECT_OK(run32(p32, x32, nin, y32, nout, NULL));
        for (size_t c = 0; c < d; c++) {
            const double *t = coeffs + (sharing == SKIT_TOEPLITZ_SHARED ? 0 : c) * per;
            double err = tu_diff_f32(y32 + c * nout, y64 + c * nout, nout);
            double bound = tu_f32_bound(N, used_norm1(t, m, n, causality), tu_norm_f32(x32 + c * nin, nin));
            ck_assert_msg(err <= bound,
                          "seed %llu: m=%zu n=%zu d=%zu channel %zu %s %s%s: ||y32 - y64|| = %g > bound %g (N = %zu)",
                          (unsigned long long)seed, m, n, d, c, causality == SKIT_CAUSAL ? "causal" : "bidirectional",
                          sharing == SKIT_TOEPLITZ_SHARED ? "shared" : "per-channel", transpose ? " transposed" : "",
                          err, bound, N);
        }
    }
    skit_toeplitz_plan_destroy(p64);
    skit_toeplitz_plan_destroy(p32);
    skit_free(coeffs);
    skit_free(x64);
    skit_free(y64);
    skit_free(x32);
    skit_free(y32);
}

/* float32 plans against float64 plans at every test size (odd and prime n
 * included), square and rectangular, causal and bidirectional, per-channel
 * and shared matrices, forward and transposed. */
START_TEST(test_fft_f32_matches_f64)
{
    uint64_t seed = seed_for("f32");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = test_size(s), m = s % 3 == 0 ? n : s % 3 == 1 ? n / 2 + 1 : 2 * n + 1;
        for (size_t ci = 0; ci < 2; ci++)
            for (size_t si = 0; si < 2; si++)
                check_f32_shape(&rng, m, n, 1 + s % 4, sharings[si], causalities[ci], seed);
    }
    /* 2^14 and an odd large size: the lengths the speed targets are about */
    check_f32_shape(&rng, 16384, 16384, 2, SKIT_TOEPLITZ_PER_CHANNEL, SKIT_BIDIRECTIONAL, seed);
    check_f32_shape(&rng, 9973, 9973, 2, SKIT_TOEPLITZ_PER_CHANNEL, SKIT_CAUSAL, seed);
}
END_TEST

/* float32 plans: a caller's workspace (misaligned), the precision checks */
START_TEST(test_fft_f32_workspace_and_errors)
{
    uint64_t seed = seed_for("f32 workspace");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 1000, d = 3;
    double *coeffs = tu_random(&rng, (2 * n - 1) * d), *x64 = tu_alloc(n * d), *y64 = tu_alloc(n * d);
    float *x = tu_alloc_f32(n * d), *y1 = tu_alloc_f32(n * d), *y2 = tu_alloc_f32(n * d);
    for (size_t i = 0; i < n * d; i++) x[i] = (float)skit_rng_normal(&rng);
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    o.precision = SKIT_PRECISION_F32;
    skit_toeplitz_plan *plan = NULL, *p64 = NULL;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&plan, n, n, d, &o, coeffs));
    size_t wsize = skit_toeplitz_plan_workspace_bytes(plan);
    ck_assert_uint_ge(wsize, 2 * skit_toeplitz_plan_fft_length(plan) * sizeof(float));
    char *work = skit_malloc(wsize + 4, 1);
    ck_assert_ptr_nonnull(work);
    TU_EXPECT_OK(skit_toeplitz_plan_execute_f32(plan, x, n, y1, n, NULL));
    TU_EXPECT_OK(skit_toeplitz_plan_execute_f32(plan, x, n, y2, n, work + 4));
    ck_assert_msg(memcmp(y1, y2, n * d * sizeof *y1) == 0, "f32: the caller's workspace changes results");
    /* a plan runs in the precision it was created in */
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(plan, x64, n, y64, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose(plan, x64, n, y64, n, NULL), SKIT_EINVAL);
    o.precision = SKIT_PRECISION_F64;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p64, n, n, d, &o, coeffs));
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_f32(p64, x, n, y1, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose_f32(p64, x, n, y1, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_f32(plan, x, n - 1, y1, n, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_f32(NULL, x, n, y1, n, NULL), SKIT_EINVAL);
    ck_assert_int_eq(skit_toeplitz_plan_precision(NULL), SKIT_PRECISION_F64);
    skit_toeplitz_plan *bad = NULL;
    o.precision = (skit_precision)7;
    TU_EXPECT_STATUS(skit_toeplitz_plan_create(&bad, n, n, d, &o, coeffs), SKIT_EINVAL);
    o.precision = SKIT_PRECISION_F32;
    o.device = SKIT_DEVICE_CUDA;
    TU_EXPECT_STATUS(skit_toeplitz_plan_create(&bad, n, n, d, &o, coeffs), SKIT_EUNSUPPORTED);
    ck_assert_ptr_null(bad);
    /* set_coeffs recomputes the float spectra: the impulse gives x back */
    memset(coeffs, 0, (2 * n - 1) * d * sizeof *coeffs);
    for (size_t c = 0; c < d; c++) coeffs[c * (2 * n - 1) + n - 1] = 1.0;
    TU_EXPECT_OK(skit_toeplitz_plan_set_coeffs(plan, coeffs));
    TU_EXPECT_OK(skit_toeplitz_plan_execute_f32(plan, x, n, y1, n, NULL));
    for (size_t c = 0; c < d; c++) {
        double err = 0;
        for (size_t i = 0; i < n; i++) err += ((double)y1[c * n + i] - x[c * n + i]) * ((double)y1[c * n + i] - x[c * n + i]);
        ck_assert_msg(sqrt(err) <= tu_f32_bound(skit_toeplitz_plan_fft_length(plan), 1.0, tu_norm_f32(x + c * n, n)),
                      "seed %llu: f32 identity after set_coeffs: error %g", (unsigned long long)seed, sqrt(err));
    }
    skit_toeplitz_plan_destroy(plan);
    skit_toeplitz_plan_destroy(p64);
    skit_free(work);
    skit_free(coeffs);
    skit_free(x64);
    skit_free(y64);
    skit_free(x);
    skit_free(y1);
    skit_free(y2);
}
END_TEST

/* Both forms of the engine's inverse (c2r and the Hartley form), forced,
 * in both precisions, against the dense product: apply_channels
 * and apply_rows (both transposed too; rows with a leading dimension
 * beyond d) on m x n blocks of odd, even and prime-factor lengths N;
 * outputs poisoned first. float64 is held to
 * FFT_TOL, float32 to tu_f32_bound against the float64 dense product of
 * the same float inputs. A measuring engine must report a form, and one
 * made while the first holds the shared pair must report the same. */
static double form_error(int f32, size_t N, const double *coeffs, size_t m, size_t n, skit_causality causality,
                         int transpose, const double *x, const double *y)
{
    size_t nin = transpose ? m : n, nout = transpose ? n : m;
    double *ref = tu_alloc(nout);
    TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs, causality, transpose, x, ref));
    double err;
    if (f32) {
        float *yf = tu_alloc_f32(nout);
        for (size_t i = 0; i < nout; i++) yf[i] = (float)y[i];
        double l1 = 0;
        for (size_t k = 0; k < m + n - 1; k++) l1 += fabs(coeffs[k]);
        err = tu_diff_f32(yf, ref, nout) / tu_f32_bound(N, l1, norm2(x, nin)) * FFT_TOL;
        skit_free(yf);
    } else {
        err = fft_error(y, ref, nout, coeffs, m, n, causality, x, nin);
    }
    skit_free(ref);
    return err;
}

/* one engine of the given form and precision on count channels of random
 * float-representable data; returns the worst form_error */
static double check_form(skit_rng *rng, int f32, skit_fft_inverse form, size_t N, size_t m, size_t n,
                         skit_causality causality, int transpose, int rows)
{
    const size_t count = 3, per = m + n - 1, nin = transpose ? m : n, nout = transpose ? n : m;
    const skit_circulant_shape shape = {.rows = m, .cols = n, .channels = count, .spectra = count, .length = N,
                                        .rows_layout = rows, .what = "test", .inverse = form};
    double *coeffs = tu_random(rng, per * count), *x = tu_random(rng, nin * count), *y = tu_alloc(nout * count);
    for (size_t i = 0; i < per * count; i++) coeffs[i] = (float)coeffs[i];
    for (size_t i = 0; i < nin * count; i++) x[i] = (float)x[i];
    const size_t ld = count + 2; /* rows: (n, count) in rows of ld, the gap poisoned */
    double *xr = tu_alloc(nin * ld), *yr = tu_alloc(nout * ld);
    for (size_t c = 0; c < count; c++)
        for (size_t i = 0; i < nin; i++) xr[i * ld + c] = x[c * nin + i];
    if (f32) {
        skit_circulantf *e = NULL;
        TU_EXPECT_OK(skit_circulantf_create(&e, &shape));
        ck_assert_int_eq(skit_circulantf_inverse_c2r(e), form == SKIT_FFT_INVERSE_C2R);
        float *w = tu_alloc_f32(skit_circulantf_workspace_doubles(e, rows)), *cf = tu_alloc_f32(per * count);
        float *xf = tu_alloc_f32(nin * ld), *yf = tu_alloc_f32(nout * ld);
        for (size_t i = 0; i < per * count; i++) cf[i] = (float)coeffs[i];
        skit_circulantf_set_toeplitz(e, cf, causality, w);
        for (size_t i = 0; i < nin * (rows ? ld : count); i++) xf[i] = (float)(rows ? xr[i] : x[i]);
        if (rows) skit_circulantf_apply_rows(e, transpose, xf, ld, yf, ld, 1, w);
        else skit_circulantf_apply_channels(e, transpose, xf, nin, yf, nout, count, w);
        for (size_t i = 0; i < nout * (rows ? ld : count); i++) (rows ? yr : y)[i] = yf[i];
        skit_circulantf_destroy(e);
        skit_free(w);
        skit_free(cf);
        skit_free(xf);
        skit_free(yf);
    } else {
        skit_circulant *e = NULL;
        TU_EXPECT_OK(skit_circulant_create(&e, &shape));
        ck_assert_int_eq(skit_circulant_inverse_c2r(e), form == SKIT_FFT_INVERSE_C2R);
        double *w = tu_alloc(skit_circulant_workspace_doubles(e, rows));
        skit_circulant_set_toeplitz(e, coeffs, causality, w);
        if (rows) skit_circulant_apply_rows(e, transpose, xr, ld, yr, ld, 1, w);
        else skit_circulant_apply_channels(e, transpose, x, nin, y, nout, count, w);
        skit_circulant_destroy(e);
        skit_free(w);
    }
    if (rows)
        for (size_t c = 0; c < count; c++)
            for (size_t i = 0; i < nout; i++) y[c * nout + i] = yr[i * ld + c];
    double worst = 0;
    for (size_t c = 0; c < count; c++) {
        double e = form_error(f32, N, coeffs + c * per, m, n, causality, transpose, x + c * nin, y + c * nout);
        if (!(e <= worst)) worst = e;
    }
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    skit_free(xr);
    skit_free(yr);
    return worst;
}

START_TEST(test_circulant_inverse_forms)
{
    uint64_t seed = seed_for("inverse forms");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t lengths[] = {1, 2, 3, 15, 16, 27, 30, 105, 126, 210, 1024, 1215, 4096, 6000};
    static const skit_fft_inverse forms[] = {SKIT_FFT_INVERSE_HARTLEY, SKIT_FFT_INVERSE_C2R};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
        for (int f32 = 0; f32 < 2; f32++)
            for (int fi = 0; fi < 2; fi++)
                for (int mode = 0; mode < 4; mode++) { /* channels, rows; each also transposed */
                    const size_t N = lengths[l];
                    const int rows = mode >= 2, transpose = mode & 1;
                    /* m + n - 1 <= N: any split */
                    size_t n = 1 + skit_rng_below(&rng, N);
                    size_t m = N + 1 - n;
                    skit_causality causality = causalities[skit_rng_below(&rng, 2)];
                    double err = check_form(&rng, f32, forms[fi], N, m, n, causality, transpose, rows);
                    ck_assert_msg(err <= FFT_TOL,
                                  "seed %llu: N=%zu m=%zu n=%zu %s %s mode %d: off by %g of the tolerance",
                                  (unsigned long long)seed, N, m, n, f32 ? "float32" : "float64",
                                  fi ? "c2r" : "Hartley", mode, err / FFT_TOL);
                }
    /* a measuring engine chooses a form; the next one of that length reuses it */
    const skit_circulant_shape shape = {.rows = 500, .cols = 500, .channels = 1, .spectra = 1,
                                        .what = "test", .planner = SKIT_PLANNER_MEASURE};
    skit_circulant *a = NULL, *b = NULL;
    TU_EXPECT_OK(skit_circulant_create(&a, &shape));
    TU_EXPECT_OK(skit_circulant_create(&b, &shape));
    ck_assert_int_eq(skit_circulant_inverse_c2r(a), skit_circulant_inverse_c2r(b));
    skit_circulant_destroy(a);
    skit_circulant_destroy(b);
}
END_TEST

/* The float32 engine's own steps against the float64 engine's: the causal
 * Hilbert step (FD-TNO's) on random responses, and a kernel's spectrum
 * and back. ||im32 - im64||_2 <= 20 log2(2N) u 4 ||re||_2: the step is a
 * c2r, a lag doubling and an r2c; with the 1/N scaling its output is at
 * most 2 ||re_full||_2 <= 2 sqrt(2) ||re||_2, rounding re to float adds
 * u times that (see tu_f32_bound for the transforms' share). */
START_TEST(test_circulant_f32_engine)
{
    uint64_t seed = seed_for("f32 engine");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t lengths[] = {2, 16, 30, 126, 210, 1024, 4096, 6000};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        const size_t N = lengths[l], count = 3;
        const skit_circulant_shape shape = {.rows = N / 2, .cols = N / 2, .channels = count, .spectra = count,
                                            .length = N, .what = "test"};
        skit_circulant *e64 = NULL;
        skit_circulantf *e32 = NULL;
        TU_EXPECT_OK(skit_circulant_create(&e64, &shape));
        TU_EXPECT_OK(skit_circulantf_create(&e32, &shape));
        ck_assert_uint_eq(skit_circulantf_length(e32), N);
        const size_t half = skit_circulant_frequencies(e64), ld = skit_circulantf_spectra_ld(e32);
        double *w64 = tu_alloc(skit_circulant_workspace_doubles(e64, 0));
        float *w32 = tu_alloc_f32(skit_circulantf_workspace_doubles(e32, 0));
        double *re64 = tu_alloc(count * half), *im64 = tu_alloc(count * half);
        float *re32 = tu_alloc_f32(count * half), *im32 = tu_alloc_f32(count * half);
        for (size_t i = 0; i < count * half; i++) re64[i] = re32[i] = (float)skit_rng_normal(&rng);
        skit_circulant_hilbert_rows(e64, re64, half, count, im64, half, w64);
        skit_circulantf_hilbert_rows(e32, re32, half, count, im32, half, w32);
        for (size_t r = 0; r < count; r++) {
            double err = tu_diff_f32(im32 + r * half, im64 + r * half, half);
            double bound = 4 * tu_f32_bound(N, 1.0, tu_norm_f32(re32 + r * half, half));
            ck_assert_msg(err <= bound, "seed %llu: N=%zu row %zu: float32 Hilbert step off by %g > %g",
                          (unsigned long long)seed, N, r, err, bound);
        }
        /* kernels -> spectra -> kernel 0 again (64-byte aligned, ld a line multiple) */
        const size_t kld = (N + 15) / 16 * 16;
        float *kernels = tu_alloc_f32(count * kld), *back = tu_alloc_f32(N);
        for (size_t i = 0; i < count * kld; i++) kernels[i] = (float)skit_rng_normal(&rng);
        skit_circulantf_set_kernels(e32, kernels, kld, w32);
        ck_assert(skit_circulantf_spectra(e32) != NULL && ld == 2 * half);
        skit_circulantf_kernel(e32, 1, back, w32);
        double err = 0;
        for (size_t i = 0; i < N; i++) err += ((double)back[i] - kernels[kld + i]) * ((double)back[i] - kernels[kld + i]);
        ck_assert_msg(sqrt(err) <= tu_f32_bound(N, 1.0, tu_norm_f32(kernels + kld, N)),
                      "seed %llu: N=%zu: float32 kernel -> spectrum -> kernel off by %g", (unsigned long long)seed, N,
                      sqrt(err));
        skit_circulant_destroy(e64);
        skit_circulantf_destroy(e32);
        skit_free(w64);
        skit_free(w32);
        skit_free(re64);
        skit_free(im64);
        skit_free(re32);
        skit_free(im32);
        skit_free(kernels);
        skit_free(back);
    }
}
END_TEST

START_TEST(test_fft_set_coeffs)
{
    uint64_t seed = seed_for("setcoeffs");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int sh = 0; sh < 2; sh++)
        for (int cz = 0; cz < 2; cz++) {
            size_t m = 50, n = 77, d = 4, nmat = sh ? 1 : d, per = m + n - 1;
            double *c1 = tu_random(&rng, per * nmat), *c2 = tu_random(&rng, per * nmat);
            skit_toeplitz_plan *p1 = NULL, *p2 = NULL;
            TU_EXPECT_OK(skit_toeplitz_plan_create(
                &p1, m, n, d,
                &(skit_toeplitz_options){.sharing = sharings[sh], .causality = causalities[cz]},
                c1));
            TU_EXPECT_OK(skit_toeplitz_plan_create(
                &p2, m, n, d,
                &(skit_toeplitz_options){.sharing = sharings[sh], .causality = causalities[cz]},
                c2));
            double *x = tu_random(&rng, n * d), *y1 = tu_alloc(m * d), *y2 = tu_alloc(m * d),
                   *y0 = tu_alloc(m * d);
            TU_EXPECT_OK(skit_toeplitz_plan_execute(p1, x, n, y0, m, NULL));
            TU_EXPECT_OK(skit_toeplitz_plan_set_coeffs(p1, c2));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(p1, x, n, y1, m, NULL));
            TU_EXPECT_OK(skit_toeplitz_plan_execute(p2, x, n, y2, m, NULL));
            ck_assert(memcmp(y1, y2, m * d * sizeof *y1) == 0);
            /* a rejected update keeps the previous spectra */
            double *bad = tu_random(&rng, per * nmat);
            memcpy(bad, c1, per * nmat * sizeof *bad);
            bad[per * nmat - 1] = INFINITY;
            TU_EXPECT_STATUS(skit_toeplitz_plan_set_coeffs(p1, bad), SKIT_ENONFINITE);
            TU_EXPECT_OK(skit_toeplitz_plan_execute(p1, x, n, y1, m, NULL));
            ck_assert(memcmp(y1, y2, m * d * sizeof *y1) == 0);
            skit_toeplitz_plan_destroy(p1);
            skit_toeplitz_plan_destroy(p2);
            skit_free(c1);
            skit_free(c2);
            skit_free(bad);
            skit_free(x);
            skit_free(y0);
            skit_free(y1);
            skit_free(y2);
        }
}
END_TEST

/* ---- the rows layout --------------------------------------------------
 * A plan with layout SKIT_LAYOUT_ROWS against the same plan in columns
 * (checked against the dense product above): products, transposed
 * products and both gradients, in both precisions, per-channel and
 * shared, causal and not, on rectangular m x n (odd and prime sizes too)
 * with leading dimensions beyond d. Outputs poisoned first, and the gaps
 * of the rows must stay poisoned. Both layouts run the same FFTs on the
 * same values, so they agree to a few ulps of the output's scale. */
typedef struct rows_case {
    size_t m, n, d;
    int shared, f32;
    skit_causality causality;
} rows_case;

static skit_toeplitz_plan *layout_plan(const rows_case *c, skit_layout layout, const double *coeffs)
{
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    o.sharing = c->shared ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL;
    o.causality = c->causality;
    o.precision = c->f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
    o.layout = layout;
    skit_toeplitz_plan *p = NULL;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p, c->m, c->n, c->d, &o, coeffs));
    return p;
}

/* The plan's product (which: 0 product, 1 transposed, 2 backward: y = dx
 * of dy = in, dc = dcoeffs with x = aux) on double arrays, the float32
 * plans through float copies of the same values. */
static void layout_call(const rows_case *c, const skit_toeplitz_plan *p, int which, const double *in, size_t ldi,
                        size_t in_count, const double *aux, size_t lda, size_t aux_count, double *out,
                        size_t ldo, size_t out_count, double *dc, size_t dc_count)
{
    if (!c->f32) {
        if (which == 2) TU_EXPECT_OK(skit_toeplitz_plan_backward(p, aux, lda, in, ldi, out, ldo, dc, NULL));
        else if (which == 1) TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(p, in, ldi, out, ldo, NULL));
        else TU_EXPECT_OK(skit_toeplitz_plan_execute(p, in, ldi, out, ldo, NULL));
        return;
    }
    float *fi = tu_alloc_f32(in_count), *fa = tu_alloc_f32(aux_count ? aux_count : 1);
    float *fo = tu_alloc_f32(out_count), *fd = tu_alloc_f32(dc_count ? dc_count : 1);
    for (size_t i = 0; i < in_count; i++) fi[i] = (float)in[i];
    for (size_t i = 0; i < aux_count; i++) fa[i] = (float)aux[i];
    for (size_t i = 0; i < out_count; i++) fo[i] = (float)out[i]; /* keeps the poison */
    if (which == 2) TU_EXPECT_OK(skit_toeplitz_plan_backward_f32(p, fa, lda, fi, ldi, fo, ldo, fd, NULL));
    else if (which == 1) TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose_f32(p, fi, ldi, fo, ldo, NULL));
    else TU_EXPECT_OK(skit_toeplitz_plan_execute_f32(p, fi, ldi, fo, ldo, NULL));
    for (size_t i = 0; i < out_count; i++) out[i] = fo[i];
    for (size_t i = 0; i < dc_count; i++) dc[i] = fd[i];
    skit_free(fi);
    skit_free(fa);
    skit_free(fo);
    skit_free(fd);
}

/* rows (rows x d, leading dimension ld) of a column-major rows x d block */
static double *to_rows(const double *col, size_t rows, size_t d, size_t ld)
{
    double *r = tu_alloc(rows * ld);
    for (size_t i = 0; i < rows; i++)
        for (size_t k = 0; k < d; k++) r[i * ld + k] = col[k * rows + i];
    return r;
}

/* max |columns - rows| over the block, and whether the row gaps kept their poison */
static double rows_diff(const double *col, const double *row, size_t rows, size_t d, size_t ld, int *gaps_ok)
{
    double worst = 0;
    for (size_t i = 0; i < rows; i++) {
        for (size_t k = 0; k < d; k++) {
            double e = fabs(col[k * rows + i] - row[i * ld + k]);
            if (!(e <= worst)) worst = e;
        }
        for (size_t k = d; k < ld; k++)
            if (!isnan(row[i * ld + k])) *gaps_ok = 0;
    }
    return worst;
}

static double max_abs(const double *a, size_t count)
{
    double s = 0;
    for (size_t i = 0; i < count; i++) s = fmax(s, fabs(a[i]));
    return s;
}

static void check_rows_case(skit_rng *rng, const rows_case *c, uint64_t seed)
{
    const size_t m = c->m, n = c->n, d = c->d, per = m + n - 1, ld = d + 3;
    double *coeffs = tu_random(rng, per * (c->shared ? 1 : d));
    skit_toeplitz_plan *pc = layout_plan(c, SKIT_LAYOUT_COLUMNS, coeffs), *pr = layout_plan(c, SKIT_LAYOUT_ROWS, coeffs);
    const double tol = (c->f32 ? 1e-6 : 1e-14) * (double)per;
    for (int which = 0; which < 3; which++) {
        const size_t nin = which ? m : n, nout = which ? n : m; /* backward: dy in, dx out */
        double *x = tu_random(rng, nin * d), *aux = which == 2 ? tu_random(rng, n * d) : NULL;
        double *xr = to_rows(x, nin, d, ld), *auxr = aux ? to_rows(aux, n, d, ld) : NULL;
        double *yc = tu_alloc(nout * d), *yr = tu_alloc(nout * ld);
        const size_t dcn = which == 2 ? per * (c->shared ? 1 : d) : 0;
        double *dcc = tu_alloc(dcn ? dcn : 1), *dcr = tu_alloc(dcn ? dcn : 1);
        layout_call(c, pc, which, x, nin, nin * d, aux, n, aux ? n * d : 0, yc, nout, nout * d, dcc, dcn);
        layout_call(c, pr, which, xr, ld, nin * ld, auxr, ld, aux ? n * ld : 0, yr, ld, nout * ld, dcr, dcn);
        int gaps_ok = 1;
        double err = rows_diff(yc, yr, nout, d, ld, &gaps_ok) / fmax(max_abs(yc, nout * d), 1e-300);
        ck_assert_msg(gaps_ok && err <= tol, "seed %llu: m=%zu n=%zu d=%zu shared=%d f32=%d causal=%d call %d: "
                      "rows off by %g (tolerance %g)%s", (unsigned long long)seed, m, n, d, c->shared, c->f32,
                      c->causality == SKIT_CAUSAL, which, err, tol, gaps_ok ? "" : ", wrote a row gap");
        for (size_t i = 0; i < dcn; i++) {
            double e = fabs(dcc[i] - dcr[i]) / fmax(max_abs(dcc, dcn), 1e-300);
            ck_assert_msg(e <= tol, "seed %llu: m=%zu n=%zu d=%zu shared=%d f32=%d: dcoeffs[%zu] off by %g",
                          (unsigned long long)seed, m, n, d, c->shared, c->f32, i, e);
        }
        skit_free(x);
        skit_free(aux);
        skit_free(xr);
        skit_free(auxr);
        skit_free(yc);
        skit_free(yr);
        skit_free(dcc);
        skit_free(dcr);
    }
    skit_toeplitz_plan_destroy(pc);
    skit_toeplitz_plan_destroy(pr);
    skit_free(coeffs);
}

START_TEST(test_fft_rows_layout)
{
    uint64_t seed = seed_for("rows layout");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t sizes[][3] = {{1, 1, 1}, {7, 7, 3},   {13, 5, 8},   {5, 13, 9},
                                      {64, 64, 16}, {97, 31, 5}, {31, 97, 17}, {256, 200, 33}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int f32 = 0; f32 < 2; f32++)
            for (int shared = 0; shared < 2; shared++) {
                rows_case c = {.m = sizes[s][0], .n = sizes[s][1], .d = sizes[s][2], .shared = shared,
                               .f32 = f32, .causality = causalities[skit_rng_below(&rng, 2)]};
                check_rows_case(&rng, &c, seed);
            }
    /* a leading dimension below d, an unknown layout, rows on the GPU */
    skit_toeplitz_plan *p = NULL;
    double coeffs[5] = {1, 2, 3, 4, 5}, x[12] = {0}, y[12];
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    o.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p, 3, 3, 4, &o, (double[20]){0}));
    ck_assert_int_eq(skit_toeplitz_plan_execute(p, x, 3, y, 4, NULL), SKIT_ESHAPE);
    ck_assert_int_eq(skit_toeplitz_plan_execute(p, x, 4, y, 3, NULL), SKIT_ESHAPE);
    ck_assert_int_eq(skit_toeplitz_plan_execute(p, x, 4, y, 4, NULL), SKIT_OK);
    skit_toeplitz_plan_destroy(p);
    o.layout = (skit_layout)7;
    ck_assert_int_eq(skit_toeplitz_plan_create(&p, 3, 3, 1, &o, coeffs), SKIT_EINVAL);
    o.layout = SKIT_LAYOUT_ROWS;
    o.device = SKIT_DEVICE_CUDA;
    ck_assert_int_eq(skit_toeplitz_plan_create(&p, 3, 3, 1, &o, coeffs), SKIT_EUNSUPPORTED);
}
END_TEST

START_TEST(test_plan_queries)
{
    double coeffs[200];
    for (size_t i = 0; i < 200; i++) coeffs[i] = 1.0 / (1.0 + (double)i);
    static const size_t shapes[][2] = {{1, 1}, {2, 2}, {64, 64}, {97, 3}, {100, 101}};
    for (size_t s = 0; s < 5; s++) {
        size_t m = shapes[s][0], n = shapes[s][1], want;
        skit_toeplitz_plan *plan = NULL;
        TU_EXPECT_OK(
            skit_toeplitz_plan_create(&plan, m, n, 1,
                                      &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED,
                                                               .causality = SKIT_BIDIRECTIONAL},
                                      coeffs));
        TU_EXPECT_OK(skit_fft_good_length(m + n - 1, &want));
        ck_assert_uint_eq(skit_toeplitz_plan_fft_length(plan), want);
        ck_assert_uint_ge(skit_toeplitz_plan_bytes(plan), (want / 2 + 1) * 16);
        skit_toeplitz_plan_destroy(plan);
    }
    ck_assert_uint_eq(skit_toeplitz_plan_fft_length(NULL), 0);
    ck_assert_uint_eq(skit_toeplitz_plan_bytes(NULL), 0);
    ck_assert_uint_eq(skit_toeplitz_plan_workspace_bytes(NULL), 0);
    skit_toeplitz_plan_destroy(NULL);
}
END_TEST

/* ---- operation counts ------------------------------------------------------ */

/* FFTW's count of one plan: add + mul + 2 fma */
static double fftw_count(fftw_plan p)
{
    double add, mul, fma;
    fftw_flops(p, &add, &mul, &fma);
    return add + mul + 2 * fma;
}

static double fftwf_count(fftwf_plan p)
{
    double add, mul, fma;
    fftwf_flops(p, &add, &mul, &fma);
    return add + mul + 2 * fma;
}

/* The count skit_toeplitz_plan_flops documents, for d channels of an m x n
 * plan of FFT length N whose forward r2c and c2r FFTW counts are r2c, c2r:
 * the transforms plus the stated pointwise work of the form (c2r or
 * Hartley). */
static double stated_count(size_t m, size_t N, size_t d, int c2r_form, double r2c, double c2r)
{
    if (c2r_form) return (double)d * (r2c + c2r + 6.0 * (double)(N / 2 + 1));
    double pointwise = 3.0 + 8.0 * (double)((N - 1) / 2) + (N % 2 == 0 ? 3.0 : 0.0) + (double)m;
    return (double)d * (2 * r2c + pointwise);
}

/* The count of an ESTIMATE plan of n x n, d channels, in one precision
 * and form; checked against the FFTW counts of the shared pair the plan
 * holds (acquired again here: the same plans) plus the stated pointwise
 * work. */
static double checked_count(size_t m, size_t n, size_t d, skit_precision precision, skit_fft_inverse form)
{
    double *coeffs = tu_alloc(d * (m + n - 1));
    for (size_t i = 0; i < d * (m + n - 1); i++) coeffs[i] = 1.0 / (1.0 + (double)i);
    skit_toeplitz_plan *plan = NULL;
    skit_toeplitz_options o = {.planner = SKIT_PLANNER_ESTIMATE, .precision = precision, .inverse = form};
    TU_EXPECT_OK(skit_toeplitz_plan_create(&plan, m, n, d, &o, coeffs));
    const size_t N = skit_toeplitz_plan_fft_length(plan);
    const int c2r = skit_toeplitz_plan_inverse(plan) == SKIT_FFT_INVERSE_C2R;
    double want, got = -1;
    if (precision == SKIT_PRECISION_F32) {
        fftwf_plan r, c;
        TU_EXPECT_OK(skit_fftwf_pair_acquire(N, FFTW_ESTIMATE, &r, &c));
        want = stated_count(m, N, d, c2r, fftwf_count(r), fftwf_count(c));
        skit_fftwf_pair_release(r, c);
    } else {
        fftw_plan r, c;
        TU_EXPECT_OK(skit_fftw_pair_acquire(N, FFTW_ESTIMATE, &r, &c));
        want = stated_count(m, N, d, c2r, fftw_count(r), fftw_count(c));
        skit_fftw_pair_release(r, c);
    }
    TU_EXPECT_OK(skit_toeplitz_plan_flops(plan, &got));
    ck_assert_msg(got > 0 && got == want, "m=%zu n=%zu d=%zu N=%zu %s %s: flops %.17g, stated %.17g", m, n, d, N,
                  precision == SKIT_PRECISION_F32 ? "f32" : "f64", c2r ? "c2r" : "hartley", got, want);
    skit_toeplitz_plan_destroy(plan);
    free(coeffs);
    return got;
}

/* skit_toeplitz_plan_flops is FFTW's count of the plan's transforms plus
 * the engine's stated pointwise work, for odd, prime, power-of-two and
 * rectangular shapes, both forms of the inverse and both precisions; and
 * it grows like n log n: count(2n) / count(n) within [1.8, 2.6] for n a
 * power of two >= 256 (n log n gives 2 (1 + 1/log2 n)), where the dense
 * product's would be 4. */
START_TEST(test_plan_flops)
{
    static const size_t shapes[][2] = {{97, 97}, {255, 255}, {1024, 1024}, {100, 37}, {1, 1}};
    const skit_fft_inverse forms[] = {SKIT_FFT_INVERSE_HARTLEY, SKIT_FFT_INVERSE_C2R};
    for (size_t s = 0; s < 5; s++)
        for (int f = 0; f < 2; f++) {
            checked_count(shapes[s][0], shapes[s][1], 3, SKIT_PRECISION_F64, forms[f]);
            checked_count(shapes[s][0], shapes[s][1], 2, SKIT_PRECISION_F32, forms[f]);
        }
    /* per channel: d channels count d times one */
    ck_assert(checked_count(97, 97, 4, SKIT_PRECISION_F64, SKIT_FFT_INVERSE_AUTO) ==
              4 * checked_count(97, 97, 1, SKIT_PRECISION_F64, SKIT_FFT_INVERSE_AUTO));
    for (size_t n = 256; n <= 8192; n *= 2) {
        double a = checked_count(n, n, 1, SKIT_PRECISION_F64, SKIT_FFT_INVERSE_AUTO);
        double b = checked_count(2 * n, 2 * n, 1, SKIT_PRECISION_F64, SKIT_FFT_INVERSE_AUTO);
        ck_assert_msg(b / a >= 1.8 && b / a <= 2.6, "count(%zu) / count(%zu) = %g: not n log n growth", 2 * n, n,
                      b / a);
    }
}
END_TEST

/* ---- FFTW planner and wisdom ------------------------------------------------ */

/* y of an n x n per-channel plan (d = 2) with `planner`; SKIT_OK or the
 * create's status. */
static int product_with(skit_planner planner, size_t n, const double *coeffs, const double *x, double *y)
{
    skit_toeplitz_plan *plan = NULL;
    int st = skit_toeplitz_plan_create(&plan, n, n, 2, &(skit_toeplitz_options){.planner = planner}, coeffs);
    if (st != SKIT_OK) return st;
    tu_poison(y, 2 * n);
    TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y, n, NULL));
    skit_toeplitz_plan_destroy(plan);
    return SKIT_OK;
}

/* Engines of one FFT length share one FFTW plan pair (fft/planner.c):
 * 40 plans of 40 lengths alive at once (more lengths than the cache's 32
 * slots, so some pairs are the callers' own), two plans per length with
 * different coefficients, half of them destroyed and created again while
 * the others live: every product still matches the dense one. */
static double shared_plan_error(const skit_toeplitz_plan *plan, size_t n, const double *coeffs,
                                const double *x)
{
    double y[2 * 64], ref[2 * 64];
    tu_poison(y, 2 * n);
    TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y, n, NULL));
    double err = 0, scale = 0;
    for (size_t c = 0; c < 2; c++) {
        TU_EXPECT_OK(skit_toeplitz_matvec_dense(n, n, coeffs + c * (2 * n - 1), SKIT_BIDIRECTIONAL, 0,
                                                x + c * n, ref + c * n));
        for (size_t i = 0; i < n; i++) {
            err = fmax(err, fabs(y[c * n + i] - ref[c * n + i]));
            scale = fmax(scale, fabs(ref[c * n + i]));
        }
    }
    return scale > 0 ? err / scale : err;
}

START_TEST(test_shared_fft_pairs)
{
    enum { LENGTHS = 40, MAXN = 64 };
    uint64_t seed = seed_for("shared");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static double coeffs[2][LENGTHS][2 * (2 * MAXN - 1)], x[LENGTHS][2 * MAXN];
    skit_toeplitz_plan *plans[2][LENGTHS] = {{NULL}};
    for (size_t l = 0; l < LENGTHS; l++) {
        size_t n = l + 1;
        for (size_t i = 0; i < 2 * n; i++) x[l][i] = skit_rng_normal(&rng);
        for (int k = 0; k < 2; k++) {
            for (size_t i = 0; i < 2 * (2 * n - 1); i++) coeffs[k][l][i] = skit_rng_normal(&rng);
            TU_EXPECT_OK(skit_toeplitz_plan_create(&plans[k][l], n, n, 2, NULL, coeffs[k][l]));
        }
    }
    for (int round = 0; round < 2; round++) {
        for (size_t l = 0; l < LENGTHS; l++)
            for (int k = 0; k < 2; k++) {
                double e = shared_plan_error(plans[k][l], l + 1, coeffs[k][l], x[l]);
                ck_assert_msg(e <= FFT_TOL, "n=%zu plan %d round %d: rel error %g (seed %llu)", l + 1, k,
                              round, e, (unsigned long long)seed);
            }
        for (size_t l = 0; l < LENGTHS; l += 2) { /* plan 0 of every other length anew */
            skit_toeplitz_plan_destroy(plans[0][l]);
            plans[0][l] = NULL;
        }
        for (size_t l = 0; l < LENGTHS; l += 2)
            TU_EXPECT_OK(skit_toeplitz_plan_create(&plans[0][l], l + 1, l + 1, 2, NULL, coeffs[0][l]));
    }
    for (size_t l = 0; l < LENGTHS; l++)
        for (int k = 0; k < 2; k++) skit_toeplitz_plan_destroy(plans[k][l]);
}
END_TEST

/* The plan's inverse option reaches the engine: a forced form is the form
 * the plan reports, and its product is the dense one's to FFT rounding
 * (float32: check_f32_shape's bound), in both precisions; AUTO under
 * ESTIMATE is the Hartley form; unknown forms are refused. */
START_TEST(test_plan_inverse_option)
{
    uint64_t seed = seed_for("inverse");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 211, d = 2;
    double *coeffs = tu_random(&rng, d * (2 * n - 1)), *x = tu_random(&rng, d * n);
    double *y = tu_alloc(d * n), *ref = tu_alloc(d * n);
    float *xf = tu_alloc_f32(d * n), *yf = tu_alloc_f32(d * n);
    for (size_t i = 0; i < d * n; i++) x[i] = xf[i] = (float)x[i]; /* both precisions, one input */
    for (size_t c = 0; c < d; c++)
        TU_EXPECT_OK(skit_toeplitz_matvec_dense(n, n, coeffs + c * (2 * n - 1), SKIT_BIDIRECTIONAL, 0, x + c * n,
                                                ref + c * n));
    static const skit_fft_inverse forms[] = {SKIT_FFT_INVERSE_AUTO, SKIT_FFT_INVERSE_HARTLEY, SKIT_FFT_INVERSE_C2R};
    for (int f32 = 0; f32 < 2; f32++)
        for (size_t k = 0; k < 3; k++) {
            skit_toeplitz_options o;
            skit_toeplitz_options_default(&o);
            ck_assert_int_eq(o.inverse, SKIT_FFT_INVERSE_AUTO);
            o.inverse = forms[k];
            o.planner = SKIT_PLANNER_ESTIMATE;
            o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
            skit_toeplitz_plan *plan = NULL;
            TU_EXPECT_OK(skit_toeplitz_plan_create(&plan, n, n, d, &o, coeffs));
            ck_assert_int_eq(skit_toeplitz_plan_inverse(plan), k ? forms[k] : SKIT_FFT_INVERSE_HARTLEY);
            tu_poison(y, d * n);
            for (size_t i = 0; i < d * n; i++) yf[i] = NAN;
            if (f32) TU_EXPECT_OK(skit_toeplitz_plan_execute_f32(plan, xf, n, yf, n, NULL));
            else TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, n, y, n, NULL));
            const size_t N = skit_toeplitz_plan_fft_length(plan);
            for (size_t c = 0; c < d; c++) {
                const double *t = coeffs + c * (2 * n - 1);
                double e = f32 ? tu_diff_f32(yf + c * n, ref + c * n, n)
                               : fft_error(y + c * n, ref + c * n, n, t, n, n, SKIT_BIDIRECTIONAL, x + c * n, n);
                double tol = f32 ? tu_f32_bound(N, used_norm1(t, n, n, SKIT_BIDIRECTIONAL), tu_norm_f32(xf + c * n, n))
                                 : FFT_TOL;
                ck_assert_msg(e <= tol, "inverse %s %s c=%zu: error %g > %g (seed %llu)",
                              skit_fft_inverse_name(forms[k]), f32 ? "f32" : "f64", c, e, tol,
                              (unsigned long long)seed);
            }
            skit_toeplitz_plan_destroy(plan);
        }
    skit_toeplitz_options bad;
    skit_toeplitz_options_default(&bad);
    bad.inverse = (skit_fft_inverse)3;
    skit_toeplitz_plan *plan = NULL;
    TU_EXPECT_STATUS(skit_toeplitz_plan_create(&plan, n, n, d, &bad, coeffs), SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    ck_assert_int_eq(skit_toeplitz_plan_inverse(NULL), SKIT_FFT_INVERSE_AUTO);
    ck_assert_str_eq(skit_fft_inverse_name(SKIT_FFT_INVERSE_C2R), "c2r");
    ck_assert_ptr_null(skit_fft_inverse_name((skit_fft_inverse)3));
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    skit_free(ref);
    skit_free(xf);
    skit_free(yf);
}
END_TEST

/* Every planner gives the product of the dense reference to FFT rounding
 * (different FFTW algorithms, different rounding: not bit-equal), over
 * odd, prime and 7-smooth n. MEASURE and PATIENT run under a 20 ms time
 * limit, which keeps the test short and still lets FFTW time candidates. */
START_TEST(test_planner_results_agree)
{
    uint64_t seed = seed_for("planner");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    skit_fft_set_time_limit(0.02);
    static const size_t sizes[] = {1, 2, 7, 31, 97, 128, 211, 1000, 1031};
    static const skit_planner planners[] = {SKIT_PLANNER_ESTIMATE, SKIT_PLANNER_MEASURE, SKIT_PLANNER_PATIENT,
                                            SKIT_PLANNER_DEFAULT};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *coeffs = tu_random(&rng, 2 * (2 * n - 1)), *x = tu_random(&rng, 2 * n);
        double *y = tu_alloc(2 * n), *ref = tu_alloc(n);
        for (size_t p = 0; p < 4; p++) {
            TU_EXPECT_OK(product_with(planners[p], n, coeffs, x, y));
            for (size_t c = 0; c < 2; c++) {
                const double *t = coeffs + c * (2 * n - 1);
                TU_EXPECT_OK(skit_toeplitz_matvec_dense(n, n, t, SKIT_BIDIRECTIONAL, 0, x + c * n, ref));
                double e = fft_error(y + c * n, ref, n, t, n, n, SKIT_BIDIRECTIONAL, x + c * n, n);
                ck_assert_msg(e <= FFT_TOL, "planner %s n=%zu c=%zu: error %g (seed %llu)",
                              skit_planner_name(planners[p]), n, c, e, (unsigned long long)seed);
            }
        }
        skit_free(coeffs);
        skit_free(x);
        skit_free(y);
        skit_free(ref);
    }
    skit_fft_set_time_limit(-1);
}
END_TEST

/* Export, forget, WISDOM_ONLY fails; import, WISDOM_ONLY plans (and gives
 * the product); the file round trip; bad wisdom and bad planners. (A fresh
 * process importing the file: tests/cli_wisdom.sh.) */
START_TEST(test_wisdom_round_trip)
{
    const size_t n = 40; /* FFT length 80 */
    double coeffs[2 * 79], x[80], y[80];
    for (size_t i = 0; i < 2 * 79; i++) coeffs[i] = sin(0.3 * (double)i);
    for (size_t i = 0; i < 80; i++) x[i] = cos(0.7 * (double)i);
    /* no time limit: wisdom of a plan cut short by one is kept with the
     * impatience it had, which WISDOM_ONLY does not accept */
    skit_fft_set_time_limit(-1);
    double seconds = -1;
    TU_EXPECT_OK(skit_fft_plan_length(80, SKIT_PLANNER_MEASURE, &seconds));
    ck_assert(seconds >= 0);
    char *text = skit_fft_wisdom_export_string();
    ck_assert_ptr_nonnull(text);
    skit_fft_wisdom_forget();
    TU_EXPECT_STATUS(product_with(SKIT_PLANNER_WISDOM_ONLY, n, coeffs, x, y), SKIT_ELIBRARY);
    ck_assert_msg(strstr(skit_last_error(), "wisdom") != NULL, "message: %s", skit_last_error());
    TU_EXPECT_OK(skit_fft_wisdom_import_string(text));
    TU_EXPECT_OK(product_with(SKIT_PLANNER_WISDOM_ONLY, n, coeffs, x, y));
    for (size_t i = 0; i < 2 * n; i++) ck_assert(isfinite(y[i]));

    char path[] = "/tmp/skit-test-wisdom-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    TU_EXPECT_OK(skit_fft_wisdom_export_file(path));
    skit_fft_wisdom_forget();
    TU_EXPECT_STATUS(product_with(SKIT_PLANNER_WISDOM_ONLY, n, coeffs, x, y), SKIT_ELIBRARY);
    TU_EXPECT_OK(skit_fft_wisdom_import_file(path));
    TU_EXPECT_OK(product_with(SKIT_PLANNER_WISDOM_ONLY, n, coeffs, x, y));
    FILE *f = fopen(path, "w");
    fputs("(not wisdom", f);
    fclose(f);
    TU_EXPECT_STATUS(skit_fft_wisdom_import_file(path), SKIT_EFORMAT);
    /* export merges what the file holds: a file that is not wisdom is
     * refused and kept */
    TU_EXPECT_STATUS(skit_fft_wisdom_export_file(path), SKIT_EFORMAT);
    char kept[32] = "";
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(fgets(kept, sizeof kept, f));
    fclose(f);
    ck_assert_str_eq(kept, "(not wisdom");
    /* ... and wisdom another writer left there survives the next export */
    unlink(path);
    TU_EXPECT_OK(skit_fft_wisdom_export_file(path)); /* length 80's */
    skit_fft_wisdom_forget();
    TU_EXPECT_OK(skit_fft_plan_length(96, SKIT_PLANNER_MEASURE, NULL));
    TU_EXPECT_OK(skit_fft_wisdom_export_file(path));
    skit_fft_wisdom_forget();
    TU_EXPECT_OK(skit_fft_wisdom_import_file(path));
    TU_EXPECT_OK(product_with(SKIT_PLANNER_WISDOM_ONLY, n, coeffs, x, y));
    TU_EXPECT_OK(skit_fft_plan_length(96, SKIT_PLANNER_WISDOM_ONLY, NULL));
    unlink(path);
    TU_EXPECT_STATUS(skit_fft_wisdom_import_file(path), SKIT_EIO);
    TU_EXPECT_STATUS(skit_fft_wisdom_import_string("garbage"), SKIT_EFORMAT);
    TU_EXPECT_STATUS(skit_fft_wisdom_import_file(NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fft_wisdom_export_file("/nonexistent/dir/w"), SKIT_EIO);
    TU_EXPECT_STATUS(skit_fft_wisdom_export_file(""), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fft_wisdom_export_file(NULL), SKIT_EINVAL);
    skit_free(text);

    TU_EXPECT_STATUS(product_with((skit_planner)99, n, coeffs, x, y), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fft_plan_length(0, SKIT_PLANNER_ESTIMATE, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_fft_set_default_planner(SKIT_PLANNER_DEFAULT), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fft_set_default_planner((skit_planner)-1), SKIT_EINVAL);
    skit_planner p;
    TU_EXPECT_STATUS(skit_planner_parse("fast", &p), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_planner_parse(NULL, &p), SKIT_EINVAL);
    static const char *const names[] = {"estimate", "measure", "patient", "exhaustive", "wisdom-only"};
    for (int i = 0; i < 5; i++) {
        TU_EXPECT_OK(skit_planner_parse(names[i], &p));
        ck_assert_str_eq(skit_planner_name(p), names[i]);
    }
    ck_assert_ptr_null(skit_planner_name((skit_planner)42));
    ck_assert_int_eq(skit_fft_default_planner(), SKIT_PLANNER_ESTIMATE);
    TU_EXPECT_OK(skit_fft_set_default_planner(SKIT_PLANNER_MEASURE));
    ck_assert_str_eq(skit_planner_name(SKIT_PLANNER_DEFAULT), "measure");
    TU_EXPECT_OK(skit_fft_set_default_planner(SKIT_PLANNER_ESTIMATE));
}
END_TEST

/* ---- FFT length rule ----------------------------------------------------- */

static int is_7_smooth(size_t v)
{
    if (v == 0) return 0;
    static const size_t primes[] = {2, 3, 5, 7};
    for (int i = 0; i < 4; i++)
        while (v % primes[i] == 0) v /= primes[i];
    return v == 1;
}

START_TEST(test_fft_good_length)
{
    /* minimal: no 7-smooth number in [n, L) — brute force up to 5000 */
    for (size_t n = 0; n <= 5000; n++) {
        size_t L = 0;
        TU_EXPECT_OK(skit_fft_good_length(n, &L));
        ck_assert_msg(L >= n && is_7_smooth(L), "n=%zu L=%zu", n, L);
        for (size_t v = n; v < L; v++) ck_assert_msg(!is_7_smooth(v), "n=%zu: %zu < L=%zu is smooth", n, v, L);
    }
    size_t L;
    TU_EXPECT_OK(skit_fft_good_length((size_t)1 << 40, &L));
    ck_assert_uint_eq(L, (size_t)1 << 40);
    TU_EXPECT_OK(skit_fft_good_length(((size_t)1 << 40) + 1, &L));
    ck_assert(L > ((size_t)1 << 40) && is_7_smooth(L) && L < ((size_t)1 << 41));
    TU_EXPECT_OK(skit_fft_good_length(SIZE_MAX / 4, &L));
    ck_assert(L >= SIZE_MAX / 4 && is_7_smooth(L));
    TU_EXPECT_STATUS(skit_fft_good_length(SIZE_MAX, &L), SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_fft_good_length(10, NULL), SKIT_EINVAL);
}
END_TEST

/* ---- solves --------------------------------------------------------------- */

/* max over right-hand sides of ||T x - b||_2 / ||b||_2 with the dense
 * reference (coeffs: 2n-1 entries). */
static double residual(size_t n, const double *coeffs, size_t nrhs, const double *B, size_t ldb,
                       const double *X, size_t ldx)
{
    double *r = tu_alloc(n), worst = 0;
    for (size_t j = 0; j < nrhs; j++) {
        TU_EXPECT_OK(skit_toeplitz_matvec_dense(n, n, coeffs, SKIT_BIDIRECTIONAL, 0, X + j * ldx, r));
        double num = 0, den = 0;
        for (size_t i = 0; i < n; i++) {
            double e = r[i] - B[i + j * ldb];
            num += e * e;
            den += B[i + j * ldb] * B[i + j * ldb];
        }
        double rel = sqrt(num) / (den > 0 ? sqrt(den) : 1);
        if (!(rel <= worst)) worst = rel;
    }
    skit_free(r);
    return worst;
}

/* Symmetric coefficients t[|k|] as the 2n-1 array of the general API. */
static double *symmetric_coeffs(size_t n, const double *t)
{
    double *c = tu_alloc(2 * n - 1);
    for (size_t k = 0; k < n; k++) c[n - 1 + k] = c[n - 1 - k] = t[k];
    return c;
}

/* An SPD first column: Kac–Murdock–Szegö rho^k (cond <= (1+|rho|)/(1-|rho|))
 * or a diagonally dominant random one. */
static double *spd_column(skit_rng *rng, size_t n, int kind)
{
    double *t = tu_alloc(n);
    if (kind == 0) {
        double rho = skit_rng_uniform_range(rng, -0.8, 0.8);
        t[0] = 1;
        for (size_t k = 1; k < n; k++) t[k] = t[k - 1] * rho;
    } else {
        double sum = 0;
        for (size_t k = 1; k < n; k++) {
            t[k] = skit_rng_normal(rng) / (double)(k * k);
            sum += 2 * fabs(t[k]);
        }
        t[0] = 1 + 1.5 * sum;
    }
    double scale = skit_rng_uniform_range(rng, 0.5, 4.0);
    for (size_t k = 0; k < n; k++) t[k] *= scale;
    return t;
}

START_TEST(test_solve_spd_residual)
{
    uint64_t seed = seed_for("spd");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = test_size(s);
        for (int kind = 0; kind < 2; kind++) {
            size_t nrhs = 1 + (s + (size_t)kind) % 3, ld = n + 2;
            double *t = spd_column(&rng, n, kind), *coeffs = symmetric_coeffs(n, t);
            double *B = tu_alloc(ld * nrhs), *X = tu_alloc(ld * nrhs);
            for (size_t j = 0; j < nrhs; j++) skit_rng_fill_normal(&rng, B + j * ld, n);
            TU_EXPECT_OK(skit_toeplitz_solve_spd(n, t, nrhs, B, ld, X, ld));
            double r = residual(n, coeffs, nrhs, B, ld, X, ld);
            ck_assert_msg(r <= 1e-10, "SPD n=%zu kind=%d nrhs=%zu residual %g (seed %llu)", n, kind,
                          nrhs, r, (unsigned long long)seed);
            for (size_t j = 0; j < nrhs; j++)
                for (size_t i = n; i < ld; i++) ck_assert(isnan(X[i + j * ld])); /* padding */
            /* the recursion alone met the tolerance (a refinement or the dense
             * fallback would hide an error in it), and each right-hand side
             * alone gives the same solution as when solved together */
            skit_toeplitz_solve_info info;
            double *x1 = tu_alloc(n);
            size_t last = nrhs - 1;
            TU_EXPECT_OK(skit_toeplitz_solve_spd_with_info(n, t, 1, B + last * ld, ld, x1, n, &info));
            ck_assert_msg(info.solver == SKIT_TOEPLITZ_SOLVER_LEVINSON, "SPD n=%zu: solver %d (seed %llu)", n,
                          (int)info.solver, (unsigned long long)seed);
            ck_assert_msg(tu_rel_error(x1, X + last * ld, n) <= 1e-14, "SPD n=%zu nrhs=%zu: rhs %zu alone differs",
                          n, nrhs, last);
            skit_free(x1);
            /* in place: X aliases B; the general solver agrees */
            double *XB = tu_alloc(ld * nrhs);
            memcpy(XB, B, ld * nrhs * sizeof *XB);
            TU_EXPECT_OK(skit_toeplitz_solve_spd(n, t, nrhs, XB, ld, XB, ld));
            for (size_t j = 0; j < nrhs; j++)
                ck_assert(memcmp(XB + j * ld, X + j * ld, n * sizeof *XB) == 0);
            memcpy(XB, B, ld * nrhs * sizeof *XB);
            TU_EXPECT_OK(skit_toeplitz_solve(n, coeffs, nrhs, XB, ld, XB, ld));
            r = residual(n, coeffs, nrhs, B, ld, XB, ld);
            ck_assert_msg(r <= 1e-10, "general on SPD n=%zu residual %g (seed %llu)", n, r,
                          (unsigned long long)seed);
            skit_free(t);
            skit_free(coeffs);
            skit_free(B);
            skit_free(X);
            skit_free(XB);
        }
    }
}
END_TEST

/* Nonsymmetric, diagonally dominant (every leading minor then is too). */
START_TEST(test_solve_general_residual)
{
    uint64_t seed = seed_for("general");
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = test_size(s), nrhs = 1 + s % 4, ldb = n + 1, ldx = n + 3;
        double *coeffs = tu_alloc(2 * n - 1), sum = 0;
        for (size_t k = 1; k < n; k++) {
            double decay = 1.0 / (double)(1 + k);
            coeffs[n - 1 + k] = skit_rng_normal(&rng) * decay;
            coeffs[n - 1 - k] = skit_rng_normal(&rng) * decay * 0.3;
            sum += fabs(coeffs[n - 1 + k]) + fabs(coeffs[n - 1 - k]);
        }
        coeffs[n - 1] = (skit_rng_uniform(&rng) < 0.5 ? -1 : 1) * (0.5 + 1.2 * sum);
        double *B = tu_alloc(ldb * nrhs), *X = tu_alloc(ldx * nrhs);
        for (size_t j = 0; j < nrhs; j++) skit_rng_fill_normal(&rng, B + j * ldb, n);
        TU_EXPECT_OK(skit_toeplitz_solve(n, coeffs, nrhs, B, ldb, X, ldx));
        double r = residual(n, coeffs, nrhs, B, ldb, X, ldx);
        ck_assert_msg(r <= 1e-10, "general n=%zu nrhs=%zu residual %g (seed %llu)", n, nrhs, r,
                      (unsigned long long)seed);
        /* each right-hand side alone gives the same solution */
        double *x1 = tu_alloc(n);
        size_t j = nrhs - 1;
        skit_toeplitz_solve_info info;
        TU_EXPECT_OK(skit_toeplitz_solve_with_info(n, coeffs, 1, B + j * ldb, ldb, x1, n, &info));
        ck_assert_msg(info.solver == SKIT_TOEPLITZ_SOLVER_LEVINSON, "general n=%zu: solver %d (seed %llu)", n,
                      (int)info.solver, (unsigned long long)seed);
        ck_assert_msg(tu_rel_error(x1, X + j * ldx, n) <= 1e-14, "general n=%zu nrhs=%zu: rhs %zu alone differs", n,
                      nrhs, j);
        skit_free(x1);
        skit_free(coeffs);
        skit_free(B);
        skit_free(X);
    }
}
END_TEST

/* Exponentially decaying coefficients reach the subnormal range (0.5^k for
 * k > 1022): the solvers flush them (and run with FTZ/DAZ on x86) yet still
 * solve accurately, and leave the caller's floating-point mode as it was. */
START_TEST(test_solve_subnormal_coefficients)
{
    skit_rng rng;
    skit_rng_seed(&rng, seed_for("subnormal"));
    size_t n = 1500;
    double *t = tu_alloc(n), *B = tu_random(&rng, n), *X = tu_alloc(n);
    t[0] = 1;
    for (size_t k = 1; k < n; k++) t[k] = 0.5 * t[k - 1];
    ck_assert(t[1030] > 0 && t[1030] < DBL_MIN); /* really subnormal */
    double *coeffs = symmetric_coeffs(n, t);
#if defined(__SSE2__)
    unsigned int csr = _mm_getcsr();
#endif
    TU_EXPECT_OK(skit_toeplitz_solve_spd(n, t, 1, B, n, X, n));
    ck_assert(residual(n, coeffs, 1, B, n, X, n) <= 1e-10);
    TU_EXPECT_OK(skit_toeplitz_solve(n, coeffs, 1, B, n, X, n));
    ck_assert(residual(n, coeffs, 1, B, n, X, n) <= 1e-10);
    /* failures restore the mode too, and so does a breakdown that the
     * dense fallback repairs */
    t[n - 1] = 5;
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(n, t, 1, B, n, X, n), SKIT_ENOTPD);
    coeffs[n - 1] = 0;
    TU_EXPECT_OK(skit_toeplitz_solve(n, coeffs, 1, B, n, X, n));
    ck_assert(residual(n, coeffs, 1, B, n, X, n) <= 1e-10);
#if defined(__SSE2__)
    ck_assert_uint_eq(_mm_getcsr(), csr);
#endif
    skit_free(t);
    skit_free(B);
    skit_free(X);
    skit_free(coeffs);
}
END_TEST

/* Sentinel-filled X must survive a failed solve bit for bit. */
static void fill_sentinel(double *X, size_t count)
{
    for (size_t i = 0; i < count; i++) X[i] = -777.25 + (double)i;
}
static void expect_sentinel(const double *X, size_t count)
{
    for (size_t i = 0; i < count; i++)
        ck_assert_msg(X[i] == -777.25 + (double)i, "X[%zu] = %g was modified", i, X[i]);
}

START_TEST(test_solve_spd_not_pd)
{
    skit_rng rng;
    skit_rng_seed(&rng, seed_for("notpd"));
    size_t n = 40, nrhs = 2;
    double *B = tu_random(&rng, n * nrhs), *X = tu_alloc(n * nrhs);
    /* indefinite already at order 2: [[1, 2], [2, 1]] */
    double *t = tu_alloc(n);
    for (size_t k = 0; k < n; k++) t[k] = k == 0 ? 1.0 : k == 1 ? 2.0 : 0.0;
    fill_sentinel(X, n * nrhs);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(n, t, nrhs, B, n, X, n), SKIT_ENOTPD);
    ck_assert_msg(strstr(skit_last_error(), "2 x 2") != NULL, "%s", skit_last_error());
    expect_sentinel(X, n * nrhs);
    /* KMS leading part, indefinite only at full order: t_{n-1} = 5 */
    for (size_t k = 0; k < n; k++) t[k] = pow(0.5, (double)k);
    t[n - 1] = 5.0;
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(n, t, nrhs, B, n, X, n), SKIT_ENOTPD);
    ck_assert_msg(strstr(skit_last_error(), "40 x 40") != NULL, "%s", skit_last_error());
    expect_sentinel(X, n * nrhs);
    /* in place: B must survive too */
    double *XB = tu_alloc(n * nrhs);
    fill_sentinel(XB, n * nrhs);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(n, t, nrhs, XB, n, XB, n), SKIT_ENOTPD);
    expect_sentinel(XB, n * nrhs);
    /* t_0 <= 0, and a singular PSD matrix (all ones) */
    t[0] = 0.0;
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(n, t, nrhs, B, n, X, n), SKIT_ENOTPD);
    t[0] = -1.0;
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(n, t, nrhs, B, n, X, n), SKIT_ENOTPD);
    for (size_t k = 0; k < n; k++) t[k] = 1.0;
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(n, t, nrhs, B, n, X, n), SKIT_ENOTPD);
    expect_sentinel(X, n * nrhs);
    skit_free(t);
    skit_free(B);
    skit_free(X);
    skit_free(XB);
}
END_TEST

/* Normwise backward error max_j |b - T x|_inf / (|T|_inf |x|_inf + |b|_inf)
 * from the dense definition: the library's own check, recomputed. */
static double backward_error_dense(size_t n, const double *coeffs, size_t nrhs, const double *B,
                                   size_t ldb, const double *X, size_t ldx)
{
    double *A = tu_alloc(n * n), worst = 0, norm = 0;
    TU_EXPECT_OK(skit_toeplitz_dense(n, n, coeffs, SKIT_BIDIRECTIONAL, A, n));
    for (size_t i = 0; i < n; i++) {
        double row = 0;
        for (size_t j = 0; j < n; j++) row += fabs(A[i + j * n]);
        norm = fmax(norm, row);
    }
    for (size_t c = 0; c < nrhs; c++) {
        double r = 0, xn = 0, bn = 0;
        for (size_t i = 0; i < n; i++) {
            double ax = 0;
            for (size_t j = 0; j < n; j++) ax += A[i + j * n] * X[j + c * ldx];
            r = fmax(r, fabs(B[i + c * ldb] - ax));
            xn = fmax(xn, fabs(X[i + c * ldx]));
            bn = fmax(bn, fabs(B[i + c * ldb]));
        }
        double eta = r / (norm * xn + bn);
        if (!(eta <= worst)) worst = eta;
    }
    skit_free(A);
    return worst;
}

/* A singular leading minor breaks the recursion; the dense fallback then
 * solves a nonsingular T, and only a singular T is an error (X untouched). */
START_TEST(test_solve_breakdown)
{
    skit_rng rng;
    skit_rng_seed(&rng, seed_for("breakdown"));
    size_t n = 33, nrhs = 3;
    double *coeffs = tu_random(&rng, 2 * n - 1), *B = tu_random(&rng, n * nrhs),
           *X = tu_alloc(n * nrhs);
    skit_toeplitz_solve_info info;
    /* t_0 = 0: the 1 x 1 leading minor is singular */
    coeffs[n - 1] = 0.0;
    TU_EXPECT_OK(skit_toeplitz_solve_with_info(n, coeffs, nrhs, B, n, X, n, &info));
    ck_assert_int_eq(info.solver, SKIT_TOEPLITZ_SOLVER_DENSE_LU);
    ck_assert_int_eq(info.levinson_completed, 0);
    ck_assert(backward_error_dense(n, coeffs, nrhs, B, n, X, n) <= SKIT_TOEPLITZ_SOLVE_TOLERANCE(n));
    /* singular 2 x 2 leading minor [[1, 1/2], [2, 1]] (t_1 = 2, t_-1 = 1/2),
     * exactly and to working precision */
    coeffs[n - 1] = 1.0;
    coeffs[n] = 2.0;
    coeffs[n - 2] = 0.5;
    for (int k = 0; k < 2; k++) {
        fill_sentinel(X, n * nrhs);
        TU_EXPECT_OK(skit_toeplitz_solve_with_info(n, coeffs, nrhs, B, n, X, n, &info));
        ck_assert_int_eq(info.solver, SKIT_TOEPLITZ_SOLVER_DENSE_LU);
        ck_assert(backward_error_dense(n, coeffs, nrhs, B, n, X, n) <= SKIT_TOEPLITZ_SOLVE_TOLERANCE(n));
        coeffs[n - 2] = 0.5 * (1 + 4e-16);
    }
    /* the all-ones matrix is singular: an error, X and (in place) B kept */
    for (size_t k = 0; k < 2 * n - 1; k++) coeffs[k] = 1.0;
    fill_sentinel(X, n * nrhs);
    TU_EXPECT_STATUS(skit_toeplitz_solve(n, coeffs, nrhs, B, n, X, n), SKIT_EBREAKDOWN);
    ck_assert_msg(strstr(skit_last_error(), "singular") != NULL, "%s", skit_last_error());
    expect_sentinel(X, n * nrhs);
    double *XB = tu_alloc(n * nrhs);
    fill_sentinel(XB, n * nrhs);
    TU_EXPECT_STATUS(skit_toeplitz_solve(n, coeffs, nrhs, XB, n, XB, n), SKIT_EBREAKDOWN);
    expect_sentinel(XB, n * nrhs);
    skit_free(coeffs);
    skit_free(B);
    skit_free(X);
    skit_free(XB);
}
END_TEST

/* Above the dense fallback's size limit a breakdown is an error that says so. */
START_TEST(test_solve_breakdown_large)
{
    skit_rng rng;
    skit_rng_seed(&rng, seed_for("breakdown-large"));
    size_t n = SKIT_TOEPLITZ_SOLVE_DENSE_MAX + 3;
    double *coeffs = tu_random(&rng, 2 * n - 1), *B = tu_random(&rng, n), *X = tu_alloc(n);
    coeffs[n - 1] = 0.0;
    fill_sentinel(X, n);
    TU_EXPECT_STATUS(skit_toeplitz_solve(n, coeffs, 1, B, n, X, n), SKIT_EBREAKDOWN);
    ck_assert_msg(strstr(skit_last_error(), "dense fallback is limited") != NULL, "%s", skit_last_error());
    expect_sentinel(X, n);
    skit_free(coeffs);
    skit_free(B);
    skit_free(X);
}
END_TEST

/* Random nonsymmetric T whose leading minors are tiny but not singular
 * enough to stop the recursion (t_0 = 1e-12 .. 1e-6): Levinson alone is
 * inaccurate there (n = 8, t_0 = 1e-12 gave relative error 1.8e-4 before
 * the check existed). Every answer must meet the bound, agree with LU,
 * and the info must tell the truth about the path taken. Also indefinite
 * symmetric and plain nonsymmetric matrices. */
START_TEST(test_solve_unstable_minors)
{
    skit_rng rng;
    uint64_t seed = seed_for("unstable");
    skit_rng_seed(&rng, seed);
    size_t sizes[] = {2, 3, 5, 8, 13, 31, 64, 97, 127, 256, 257, 509};
    int slow_paths = 0; /* the repairs must really run */
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s], nrhs = 1 + s % 3;
        for (int kind = 0; kind < 3; kind++) {
            double *c = tu_alloc(2 * n - 1), *B = tu_random(&rng, n * nrhs), *X = tu_alloc(n * nrhs);
            for (size_t k = 0; k < 2 * n - 1; k++) {
                double lag = fabs((double)k - (double)(n - 1));
                c[k] = skit_rng_normal(&rng) / (1 + lag);
            }
            if (kind == 0) c[n - 1] = pow(10.0, -skit_rng_uniform_range(&rng, 6, 12)); /* tiny t_0 */
            if (kind == 1) /* symmetric, indefinite */
                for (size_t k = 1; k < n; k++) c[n - 1 - k] = c[n - 1 + k];
            skit_toeplitz_solve_info info;
            fill_sentinel(X, n * nrhs);
            int st = skit_toeplitz_solve_with_info(n, c, nrhs, B, n, X, n, &info);
            if (st == SKIT_EBREAKDOWN) { /* only a singular T may fail */
                expect_sentinel(X, n * nrhs);
                ck_assert_msg(strstr(skit_last_error(), "singular") != NULL, "%s", skit_last_error());
            } else {
                TU_EXPECT_OK(st);
                double eta = backward_error_dense(n, c, nrhs, B, n, X, n);
                double tol = SKIT_TOEPLITZ_SOLVE_TOLERANCE(n);
                ck_assert_msg(eta <= tol, "n=%zu kind %d: backward error %g > %g (seed %llu)", n, kind, eta,
                              tol, (unsigned long long)seed);
                /* the reported error is the one the test measures (FFT residuals
                 * for n >= 256 differ by rounding only) */
                ck_assert_msg(fabs(info.backward_error - eta) <= 0.5 * eta + 8 * n * DBL_EPSILON,
                              "n=%zu kind %d: reported %g, measured %g", n, kind, info.backward_error, eta);
                ck_assert(info.tolerance == tol);
                if (info.solver == SKIT_TOEPLITZ_SOLVER_LEVINSON) {
                    ck_assert(info.levinson_completed && info.refinement_steps == 0);
                    ck_assert(info.levinson_backward_error == info.backward_error);
                } else if (info.levinson_completed) {
                    ck_assert(info.levinson_backward_error > tol);
                }
                ck_assert(info.rcond > 0 && info.rcond <= 1);
                slow_paths += info.solver != SKIT_TOEPLITZ_SOLVER_LEVINSON;
            }
            skit_free(c);
            skit_free(B);
            skit_free(X);
        }
    }
    ck_assert_msg(slow_paths >= 4, "only %d solves needed refinement or LU", slow_paths);
}
END_TEST

/* The issue's two cases. n = 8, cond(T) = 3.4, t_0 = 1e-12 (and 1e-13):
 * x within the condition bound of LU's answer. A Gaussian-kernel matrix
 * at n = 64 is singular to working precision: the answer meets the
 * backward-error bound and the condition estimate exposes it. */
START_TEST(test_solve_reported_cases)
{
    const size_t n = 8;
    double c[15] = {0.3, -0.2, 0.5, 0.1, -0.4, 0.6, 0.9, 1e-12, 0.8, -0.7, 0.5, 0.2, -0.3, 0.4, 0.1};
    double b[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[8], xlu[8], A[64];
    for (int e = 12; e <= 13; e++) {
        c[n - 1] = pow(10.0, -e);
        skit_toeplitz_solve_info info;
        TU_EXPECT_OK(skit_toeplitz_solve_with_info(n, c, 1, b, n, x, n, &info));
        TU_EXPECT_OK(skit_toeplitz_dense(n, n, c, SKIT_BIDIRECTIONAL, A, n));
        lapack_int ipiv[8];
        memcpy(xlu, b, sizeof b);
        ck_assert_int_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, 8, 1, A, 8, ipiv, xlu, 8), 0);
        double bound = 4.0 / info.rcond * info.tolerance; /* 2 cond eta, twice over */
        ck_assert_msg(tu_rel_error(x, xlu, n) <= bound, "t_0 = 1e-%d: error %g > %g", e,
                      tu_rel_error(x, xlu, n), bound);
        ck_assert(tu_rel_error(x, xlu, n) <= 1e-12);
        ck_assert(info.solver != SKIT_TOEPLITZ_SOLVER_LEVINSON);
        ck_assert(1.0 / info.rcond < 100); /* well conditioned: cond_1 ~ 18 */
    }
    const size_t m = 64;
    double *g = tu_alloc(2 * m - 1), *bg = tu_alloc(m), *xg = tu_alloc(m);
    for (size_t k = 0; k < 2 * m - 1; k++) {
        double lag = ((double)k - (double)(m - 1)) / 4.0;
        g[k] = exp(-0.5 * lag * lag);
    }
    for (size_t i = 0; i < m; i++) bg[i] = (double)(i % 3);
    skit_toeplitz_solve_info info;
    TU_EXPECT_OK(skit_toeplitz_solve_with_info(m, g, 1, bg, m, xg, m, &info));
    ck_assert(backward_error_dense(m, g, 1, bg, m, xg, m) <= SKIT_TOEPLITZ_SOLVE_TOLERANCE(m));
    ck_assert_msg(info.rcond < DBL_EPSILON, "rcond %g", info.rcond);
    skit_free(g);
    skit_free(bg);
    skit_free(xg);
}
END_TEST

/* SPD matrices take the fast path: no refinement, no fallback; and the
 * condition estimate is within a factor 3 of the true cond_1. */
START_TEST(test_solve_spd_fast_path)
{
    skit_rng rng;
    skit_rng_seed(&rng, seed_for("spd-fast"));
    size_t sizes[] = {1, 2, 7, 31, 64, 101, 256, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        double *t = spd_column(&rng, n, (int)(s % 2)), *B = tu_random(&rng, n), *X = tu_alloc(n);
        skit_toeplitz_solve_info info;
        TU_EXPECT_OK(skit_toeplitz_solve_spd_with_info(n, t, 1, B, n, X, n, &info));
        ck_assert_int_eq(info.solver, SKIT_TOEPLITZ_SOLVER_LEVINSON);
        ck_assert_int_eq(info.refinement_steps, 0);
        ck_assert(info.backward_error <= info.tolerance);
        if (n <= 256) {
            double *c = symmetric_coeffs(n, t), *A = tu_alloc(n * n), anorm = 0;
            TU_EXPECT_OK(skit_toeplitz_dense(n, n, c, SKIT_BIDIRECTIONAL, A, n));
            for (size_t j = 0; j < n; j++) {
                double col = 0;
                for (size_t i = 0; i < n; i++) col += fabs(A[i + j * n]);
                anorm = fmax(anorm, col);
            }
            lapack_int *ipiv = malloc(n * sizeof *ipiv);
            ck_assert_int_eq(LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, A, (lapack_int)n, ipiv), 0);
            ck_assert_int_eq(LAPACKE_dgetri(LAPACK_COL_MAJOR, (lapack_int)n, A, (lapack_int)n, ipiv), 0);
            double inorm = 0;
            for (size_t j = 0; j < n; j++) {
                double col = 0;
                for (size_t i = 0; i < n; i++) col += fabs(A[i + j * n]);
                inorm = fmax(inorm, col);
            }
            double rcond = 1.0 / (anorm * inorm);
            ck_assert_msg(info.rcond >= rcond * 0.999 && info.rcond <= 3 * rcond, "n=%zu rcond %g, true %g",
                          n, info.rcond, rcond);
            free(ipiv);
            skit_free(c);
            skit_free(A);
        }
        skit_free(t);
        skit_free(B);
        skit_free(X);
    }
}
END_TEST

/* ---- config: every documented error of every public function ------------- */

START_TEST(test_config_dense)
{
    double c[7] = {1, 2, 3, 4, 5, 6, 7}, A[16], x[4] = {1, 2, 3, 4}, y[4];
    TU_EXPECT_OK(skit_toeplitz_dense(4, 4, c, SKIT_BIDIRECTIONAL, A, 4));
    TU_EXPECT_STATUS(skit_toeplitz_dense(4, 4, NULL, SKIT_BIDIRECTIONAL, A, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_dense(4, 4, c, SKIT_BIDIRECTIONAL, NULL, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_dense(4, 4, c, (skit_causality)7, A, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_dense(0, 4, c, SKIT_BIDIRECTIONAL, A, 4), SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "m = 0") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_toeplitz_dense(4, 0, c, SKIT_BIDIRECTIONAL, A, 4), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_toeplitz_dense(4, 4, c, SKIT_BIDIRECTIONAL, A, 3), SKIT_ESHAPE);
    ck_assert_msg(strstr(skit_last_error(), "lda = 3") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_toeplitz_dense(SIZE_MAX, 4, c, SKIT_BIDIRECTIONAL, A, SIZE_MAX), SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_toeplitz_dense(4, (size_t)1 << 33, c, SKIT_BIDIRECTIONAL, A, (size_t)1 << 32),
                     SKIT_EOVERFLOW);
    c[2] = NAN;
    TU_EXPECT_STATUS(skit_toeplitz_dense(4, 4, c, SKIT_BIDIRECTIONAL, A, 4), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "coeffs[2]") != NULL, "%s", skit_last_error());
    TU_EXPECT_OK(skit_toeplitz_dense(4, 4, c, SKIT_CAUSAL, A, 4)); /* negative lag ignored */

    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(4, 4, c, SKIT_BIDIRECTIONAL, 0, x, y), SKIT_ENONFINITE);
    c[2] = 3;
    TU_EXPECT_OK(skit_toeplitz_matvec_dense(4, 4, c, SKIT_BIDIRECTIONAL, 1, x, y));
    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(4, 4, NULL, SKIT_BIDIRECTIONAL, 0, x, y), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(4, 4, c, SKIT_BIDIRECTIONAL, 0, NULL, y), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(4, 4, c, SKIT_BIDIRECTIONAL, 0, x, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(4, 4, c, (skit_causality)-1, 0, x, y), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(0, 4, c, SKIT_BIDIRECTIONAL, 0, x, y), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(4, 0, c, SKIT_BIDIRECTIONAL, 0, x, y), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_toeplitz_matvec_dense(SIZE_MAX, 2, c, SKIT_BIDIRECTIONAL, 0, x, y),
                     SKIT_EOVERFLOW);
}
END_TEST

START_TEST(test_config_plan)
{
    double c[40], x[40], y[40];
    for (int i = 0; i < 40; i++) c[i] = x[i] = 1.0 / (1 + i);
    skit_toeplitz_plan *plan = (skit_toeplitz_plan *)(uintptr_t)1;
    double flops = -1;
    TU_EXPECT_STATUS(skit_toeplitz_plan_flops(NULL, &flops), SKIT_EINVAL);
    ck_assert(flops == -1);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            NULL, 4, 4, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL}, c),
        SKIT_EINVAL);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, 4, 4, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL},
            NULL),
        SKIT_EINVAL);
    ck_assert_ptr_null(plan); /* set to NULL on every failure */
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, 0, 4, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL}, c),
        SKIT_EDOM);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, 4, 0, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL}, c),
        SKIT_EDOM);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, 4, 4, 0,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL}, c),
        SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "d = 0") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, 4, 4, 1,
            &(skit_toeplitz_options){.sharing = (skit_toeplitz_sharing)2, .causality = SKIT_CAUSAL},
            c),
        SKIT_EINVAL);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(&plan, 4, 4, 1,
                                  &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED,
                                                           .causality = (skit_causality)2},
                                  c),
        SKIT_EINVAL);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, SIZE_MAX, 2, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL}, c),
        SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, SIZE_MAX / 2, SIZE_MAX / 2, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL}, c),
        SKIT_EOVERFLOW);
    /* beyond memory (and FFTW's int lengths): refused before allocating */
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(
            &plan, (size_t)1 << 36, (size_t)1 << 36, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_CAUSAL}, c),
        SKIT_ETOOBIG);
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(&plan, (size_t)1 << 24, (size_t)1 << 24, 1 << 20,
                                  &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                           .causality = SKIT_CAUSAL},
                                  c),
        SKIT_ETOOBIG);
    ck_assert_ptr_null(plan);
    c[1] = NAN; /* a negative lag: fatal only for bidirectional plans */
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(&plan, 4, 4, 2,
                                  &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                           .causality = SKIT_BIDIRECTIONAL},
                                  c),
        SKIT_ENONFINITE);
    TU_EXPECT_OK(skit_toeplitz_plan_create(
        &plan, 4, 4, 2,
        &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL, .causality = SKIT_CAUSAL},
        c));
    skit_toeplitz_plan_destroy(plan);
    c[1] = 0.5;
    c[12] = NAN; /* matrix 1, lag 2: used by causal plans too */
    TU_EXPECT_STATUS(
        skit_toeplitz_plan_create(&plan, 4, 4, 2,
                                  &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                           .causality = SKIT_CAUSAL},
                                  c),
        SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "matrix 1, lag 2") != NULL, "%s", skit_last_error());
    c[12] = 0.25;
    TU_EXPECT_OK(skit_toeplitz_plan_create(
        &plan, 4, 4, 2,
        &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL, .causality = SKIT_CAUSAL},
        c));

    TU_EXPECT_STATUS(skit_toeplitz_plan_set_coeffs(NULL, c), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_set_coeffs(plan, NULL), SKIT_EINVAL);
    c[10] = INFINITY; /* matrix 1, lag 0 */
    TU_EXPECT_STATUS(skit_toeplitz_plan_set_coeffs(plan, c), SKIT_ENONFINITE);
    c[10] = 0.1;
    TU_EXPECT_OK(skit_toeplitz_plan_set_coeffs(plan, c));

    TU_EXPECT_OK(skit_toeplitz_plan_execute(plan, x, 4, y, 4, NULL));
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(NULL, x, 4, y, 4, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(plan, NULL, 4, y, 4, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(plan, x, 4, NULL, 4, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(plan, x, 3, y, 4, NULL), SKIT_ESHAPE);
    ck_assert_msg(strstr(skit_last_error(), "ldx = 3") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(plan, x, 4, y, 3, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_plan_flops(plan, NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_toeplitz_plan_flops(plan, &flops));
    ck_assert(flops > 0);
    skit_toeplitz_plan_destroy(plan);

    /* rectangular 3 x 5, d = 3: transpose reads m and writes n */
    TU_EXPECT_OK(skit_toeplitz_plan_create(
        &plan, 3, 5, 3,
        &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = SKIT_BIDIRECTIONAL},
        c));
    TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(plan, x, 3, y, 5, NULL));
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose(plan, x, 2, y, 5, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose(plan, x, 3, y, 4, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(plan, x, 4, y, 3, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose(NULL, x, 3, y, 5, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose(plan, NULL, 3, y, 5, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose(plan, x, 3, NULL, 5, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute(plan, x, SIZE_MAX / 2 + 2, y, 3, NULL),
                     SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_toeplitz_plan_execute_transpose(plan, x, 3, y, SIZE_MAX / 2 + 2, NULL),
                     SKIT_EOVERFLOW);
    skit_toeplitz_plan_destroy(plan);

    /* options: NULL means the defaults; the device is checked like every enum,
     * and a GPU plan without a usable GPU is refused before anything is made */
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    ck_assert_int_eq(o.sharing, SKIT_TOEPLITZ_PER_CHANNEL);
    ck_assert_int_eq(o.causality, SKIT_BIDIRECTIONAL);
    ck_assert_int_eq(o.device, SKIT_DEVICE_CPU);
    TU_EXPECT_OK(skit_toeplitz_plan_create(&plan, 4, 4, 2, NULL, c));
    ck_assert_uint_gt(skit_toeplitz_plan_workspace_bytes(plan), 0);
    skit_toeplitz_plan_destroy(plan);
    o.device = (skit_device)7;
    TU_EXPECT_STATUS(skit_toeplitz_plan_create(&plan, 4, 4, 2, &o, c), SKIT_EINVAL);
    ck_assert_msg(strstr(skit_last_error(), "device") != NULL, "%s", skit_last_error());
    o.device = SKIT_DEVICE_CUDA;
    if (skit_device_check(SKIT_DEVICE_CUDA) != SKIT_OK) {
        TU_EXPECT_STATUS(skit_toeplitz_plan_create(&plan, 4, 4, 2, &o, c), SKIT_EUNSUPPORTED);
        ck_assert_msg(strstr(skit_last_error(), "cuda") != NULL, "%s", skit_last_error());
        ck_assert_ptr_null(plan);
    } else { /* cuFFT counts no operations */
        TU_EXPECT_OK(skit_toeplitz_plan_create(&plan, 4, 4, 2, &o, c));
        TU_EXPECT_STATUS(skit_toeplitz_plan_flops(plan, &flops), SKIT_EUNSUPPORTED);
        skit_toeplitz_plan_destroy(plan);
    }
}
END_TEST

START_TEST(test_config_solves)
{
    double t[4] = {4, 1, 0.5, 0.25}, c[7] = {0.1, 0.2, 0.3, 4, 1, 0.5, 0.25}, B[8] = {1, 2, 3, 4, 5, 6, 7, 8},
           X[8];
    TU_EXPECT_OK(skit_toeplitz_solve_spd(4, t, 2, B, 4, X, 4));
    TU_EXPECT_OK(skit_toeplitz_solve(4, c, 2, B, 4, X, 4));
    /* SPD */
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, NULL, 2, B, 4, X, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, 2, NULL, 4, X, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, 2, B, 4, NULL, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(0, t, 2, B, 4, X, 4), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, 0, B, 4, X, 4), SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "nrhs = 0") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, 2, B, 3, X, 4), SKIT_ESHAPE);
    ck_assert_msg(strstr(skit_last_error(), "ldb = 3") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, 2, B, 4, X, 3), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, SIZE_MAX / 2, B, 4, X, 4), SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd((size_t)1 << 40, t, 1, B, (size_t)1 << 40, X,
                                             (size_t)1 << 40),
                     SKIT_ETOOBIG);
    t[2] = NAN;
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, 2, B, 4, X, 4), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "t[2]") != NULL, "%s", skit_last_error());
    t[2] = 0.5;
    B[5] = INFINITY;
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd(4, t, 2, B, 4, X, 4), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "B(1,1)") != NULL, "%s", skit_last_error());
    /* general */
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 2, B, 4, X, 4), SKIT_ENONFINITE);
    B[5] = 6;
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, NULL, 2, B, 4, X, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 2, NULL, 4, X, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 2, B, 4, NULL, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_solve(0, c, 2, B, 4, X, 4), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 0, B, 4, X, 4), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 2, B, 2, X, 4), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 2, B, 4, X, 0), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, SIZE_MAX / 3, B, 4, X, 4), SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_toeplitz_solve((size_t)1 << 40, c, 1, B, (size_t)1 << 40, X, (size_t)1 << 40),
                     SKIT_ETOOBIG);
    c[0] = NAN;
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 2, B, 4, X, 4), SKIT_ENONFINITE);
    /* a singular T (rank one: all ones) */
    for (int k = 0; k < 7; k++) c[k] = 1.0;
    TU_EXPECT_STATUS(skit_toeplitz_solve(4, c, 2, B, 4, X, 4), SKIT_EBREAKDOWN);
    skit_toeplitz_solve_info info;
    TU_EXPECT_STATUS(skit_toeplitz_solve_with_info(4, c, 2, B, 4, X, 4, NULL), SKIT_EBREAKDOWN);
    TU_EXPECT_STATUS(skit_toeplitz_solve_spd_with_info(4, NULL, 2, B, 4, X, 4, &info), SKIT_EINVAL);
}
END_TEST

static Suite *suite_toeplitz(void)
{
    Suite *s = suite_create("toeplitz");
    TCase *dense = tcase_create("dense");
    tcase_add_test(dense, test_dense_matches_definition);
    suite_add_tcase(s, dense);
    TCase *fft = tcase_create("fft");
    tcase_set_timeout(fft, 60);
    tcase_add_test(fft, test_fft_matches_dense_square);
    tcase_add_test(fft, test_fft_matches_dense_rectangular);
    tcase_add_test(fft, test_fft_impulse_response);
    tcase_add_test(fft, test_fft_linearity);
    tcase_add_test(fft, test_fft_time_shift);
    tcase_add_test(fft, test_fft_causality);
    tcase_add_test(fft, test_fft_causal_ignores_negative_lags);
    tcase_add_test(fft, test_fft_caller_workspace);
    tcase_add_test(fft, test_fft_set_coeffs);
    tcase_add_test(fft, test_fft_f32_matches_f64);
    tcase_add_test(fft, test_fft_f32_workspace_and_errors);
    tcase_add_test(fft, test_circulant_f32_engine);
    tcase_add_test(fft, test_circulant_inverse_forms);
    tcase_add_test(fft, test_fft_rows_layout);
    tcase_add_test(fft, test_plan_queries);
    tcase_add_test(fft, test_plan_flops);
    tcase_add_test(fft, test_plan_inverse_option);
    tcase_add_test(fft, test_fft_good_length);
    tcase_add_test(fft, test_planner_results_agree);
    tcase_add_test(fft, test_wisdom_round_trip);
    tcase_add_test(fft, test_shared_fft_pairs);
    suite_add_tcase(s, fft);
    TCase *solve = tcase_create("solve");
    tcase_set_timeout(solve, 60);
    tcase_add_test(solve, test_solve_spd_residual);
    tcase_add_test(solve, test_solve_general_residual);
    tcase_add_test(solve, test_solve_subnormal_coefficients);
    tcase_add_test(solve, test_solve_spd_not_pd);
    tcase_add_test(solve, test_solve_breakdown);
    tcase_add_test(solve, test_solve_breakdown_large);
    tcase_add_test(solve, test_solve_unstable_minors);
    tcase_add_test(solve, test_solve_reported_cases);
    tcase_add_test(solve, test_solve_spd_fast_path);
    suite_add_tcase(s, solve);
    TCase *config = tcase_create("config");
    tcase_add_test(config, test_config_dense);
    tcase_add_test(config, test_config_plan);
    tcase_add_test(config, test_config_solves);
    suite_add_tcase(s, config);
    return s;
}

int main(void) { return tu_main(suite_toeplitz()); }
