/* test_tno.c — token-mixing operators against dense references built
 * independently of lib/tno from the same parameters:
 *  - TNO equals the dense Toeplitz product of RPE(lag) * lambda^|lag| with
 *    the RPE an skit_mlp of the same seed/parameters evaluated here; its
 *    coefficient functions (skit layout and the TNN code's 2n layout, the
 *    latter checked by the circular convolution it is meant for);
 *  - SKI-TNO equals band + dense W A W^T (W from skit_interp_weights_dense,
 *    A from the warped piecewise-linear kernel of skit/ski.h), and causal
 *    SKI by cumulative sums equals the lower triangle of that matrix;
 *  - FD-TNO equals the Toeplitz product with its own impulse response and
 *    a separate skit_fdtno plan; causal FD-TNO ignores future inputs;
 *  - layouts, batches, update/forward/set_parameters, poisoned outputs;
 *  - a config test of every documented error code.
 * Fresh random inputs each run (tu_seed; SKIT_TEST_SEED replays). */
#include "config.h"

#include <stdint.h>

#include <cblas.h>

#include "tno_util.h"
#include "tno/tno_internal.h" /* the plan's spectra, poisoned below */

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Errors are measured normwise against |T| |x| (entrywise absolute
 * values): an FFT product's error in every entry is at most about
 * eps * log2(L) * ||t||_2 ||x||_2, which for the sizes here is within a
 * factor sqrt(n) of max(|T||x|), so 1e-12 is ~100x above what the FFT
 * paths reach at n = 1000 and far below the ~1/n that one wrong
 * coefficient or misplaced token gives. The causal cumulative sums add up
 * to n terms sequentially: their bound grows like n * eps. */
#define TOL 1e-12
static double cumsum_tol(size_t n) { return MAX(TOL, 8.0 * (double)n * 2.2e-16); }

static const size_t sizes[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,  12,  13,  15,  16, 17,
                               19, 23, 31, 32, 33, 47, 64, 97, 100, 127, 128, 211, 256, 331, 499, 512};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* err = max |y - ref| / max (|T| |x|) with T given per channel as dense
 * n x n column-major matrices (lower triangle only if causal). */
static double error_vs_matrices(size_t n, size_t d, size_t batch, skit_tno_layout layout,
                                double *const *T, int causal, const double *x, const double *y)
{
    double worst = 0, scale = 0;
    for (size_t b = 0; b < batch; b++)
        for (size_t c = 0; c < d; c++)
            for (size_t i = 0; i < n; i++) {
                double acc = 0, mag = 0;
                for (size_t j = 0; j < n; j++) {
                    if (causal && j > i) break;
                    double t = T[c][i + j * n], xj = x[tu_tno_index(layout, n, d, b, j, c)];
                    acc += t * xj;
                    mag += fabs(t * xj);
                }
                double e = fabs(y[tu_tno_index(layout, n, d, b, i, c)] - acc);
                if (!(e <= worst)) worst = e;
                if (mag > scale) scale = mag;
            }
    if (isnan(worst)) return INFINITY;
    return worst / (scale > 1e-300 ? scale : 1e-300);
}

/* d dense Toeplitz matrices from d x (2n-1) coefficients */
static double **toeplitz_matrices(size_t n, size_t d, const double *coeffs, int causal)
{
    double **T = malloc(d * sizeof *T);
    ck_assert_ptr_nonnull(T);
    for (size_t c = 0; c < d; c++) {
        T[c] = tu_alloc(n * n);
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                long lag = (long)i - (long)j;
                T[c][i + j * n] = (causal && lag < 0) ? 0.0 : coeffs[c * (2 * n - 1) + (size_t)(lag + (long)n - 1)];
            }
    }
    return T;
}

static void free_matrices(double **T, size_t d)
{
    for (size_t c = 0; c < d; c++) skit_free(T[c]);
    free(T);
}

/* ====================================================================== */
/* TNO                                                                     */
/* ====================================================================== */

/* Coefficients RPE_c(t) lambda^|t| from an independently created MLP. */
static double *tno_coeffs_independent(const skit_tno_options *o, size_t n, size_t d,
                                      const double *params, size_t count)
{
    skit_mlp *mlp = NULL;
    TU_EXPECT_OK(skit_mlp_create(&mlp, 1, o->rpe_width, o->rpe_layers, d, o->activation, o->norm, o->seed));
    if (params) TU_EXPECT_OK(skit_mlp_set_parameters(mlp, params, count));
    size_t per = 2 * n - 1;
    double *lags = tu_alloc(per), *out = tu_alloc(per * d), *coeffs = tu_alloc(per * d);
    for (size_t k = 0; k < per; k++) lags[k] = (double)k - (double)(n - 1);
    TU_EXPECT_OK(skit_mlp_eval(mlp, per, lags, out, NULL));
    for (size_t c = 0; c < d; c++)
        for (size_t k = 0; k < per; k++) {
            double lag = fabs(lags[k]);
            coeffs[c * per + k] =
                (o->causality == SKIT_CAUSAL && lags[k] < 0) ? 0.0 : out[k * d + c] * pow(o->decay, lag);
        }
    skit_mlp_destroy(mlp);
    skit_free(lags);
    skit_free(out);
    return coeffs;
}

/* The plan's description names the path its kernels took. */
static void expect_branch(const skit_tno_plan *p, const char *want)
{
    char text[512];
    skit_tno_plan_describe(p, text, sizeof text);
    ck_assert_msg(strstr(text, want) != NULL, "expected '%s' in '%s'", want, text);
}

static void check_tno(size_t n, size_t d, size_t batch, skit_causality causality, skit_tno_layout layout,
                      double decay, size_t width, size_t layers, uint64_t seed)
{
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_FFT);
    o.causality = causality;
    o.layout = layout;
    o.decay = decay;
    o.rpe_width = width;
    o.rpe_layers = layers;
    o.seed = seed;
    skit_tno_plan *p = NULL;
    TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
    /* the output layer goes after the FFTs exactly when width + 1 < d
     * (causal, or with the RPE by the sweep: 2 (width + 1) < d) */
    char text[512];
    skit_tno_plan_describe(p, text, sizeof text);
    const int sweep = strstr(text, "eval=sweep") != NULL;
    size_t switch_d = causality == SKIT_CAUSAL || sweep ? 2 * (width + 1) : width + 1;
    expect_branch(p, d > switch_d ? "spectra=features" : "spectra=channels");
    skit_rng rng;
    skit_rng_seed(&rng, seed ^ 0x5eed);
    size_t total = batch * n * d, per = 2 * n - 1;
    double *x = tu_random(&rng, total), *y = tu_alloc(total);
    TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));

    double *ref = tno_coeffs_independent(&o, n, d, NULL, 0);
    double *got = tu_alloc(per * d);
    TU_EXPECT_OK(skit_tno_plan_coeffs(p, got));
    ck_assert_msg(tu_rel_error(got, ref, per * d) <= 1e-14, "TNO coeffs differ (n=%zu seed=%llu)", n,
                  (unsigned long long)seed);
    double **T = toeplitz_matrices(n, d, ref, causality == SKIT_CAUSAL);
    double err = error_vs_matrices(n, d, batch, layout, T, 0, x, y);
    ck_assert_msg(err <= TOL, "TNO %s %s n=%zu d=%zu batch=%zu: error %g (seed %llu)",
                  causality == SKIT_CAUSAL ? "causal" : "bidirectional",
                  layout == SKIT_TNO_ROWS ? "rows" : "channels", n, d, batch, err, (unsigned long long)seed);

    /* the TNN code's layout: y_i = sum_j a[(i - j) mod 2n] x_j */
    double *a = tu_alloc(2 * n * d);
    TU_EXPECT_OK(skit_tno_plan_coeffs_reference(p, a));
    double worst = 0, scale = 0;
    for (size_t c = 0; c < d; c++) {
        ck_assert(a[c * 2 * n + n] == 0.0);
        for (size_t i = 0; i < n; i++) {
            double acc = 0, mag = 0;
            for (size_t j = 0; j < n; j++) {
                double t = a[c * 2 * n + (i + 2 * n - j) % (2 * n)], xj = x[tu_tno_index(layout, n, d, 0, j, c)];
                acc += t * xj;
                mag += fabs(t * xj);
            }
            worst = fmax(worst, fabs(acc - y[tu_tno_index(layout, n, d, 0, i, c)]));
            scale = fmax(scale, mag);
        }
    }
    ck_assert_msg(worst <= TOL * fmax(scale, 1e-300), "reference layout n=%zu: %g", n, worst / scale);

    /* the library's own dense reference agrees with the independent one */
    double *yr = tu_alloc(total), *mag = tu_alloc(total);
    TU_EXPECT_OK(skit_tno_plan_reference(p, x, yr, mag));
    ck_assert(error_vs_matrices(n, d, batch, layout, T, 0, x, yr) <= 1e-14);
    for (size_t k = 0; k < total; k++) ck_assert(mag[k] >= 0 && isfinite(mag[k]));

    free_matrices(T, d);
    skit_free(a);
    skit_free(yr);
    skit_free(mag);
    skit_free(ref);
    skit_free(got);
    skit_free(x);
    skit_free(y);
    skit_tno_plan_destroy(p);
}

START_TEST(test_tno_dense)
{
    uint64_t seed = tu_seed();
    for (size_t s = 0; s < NSIZES; s++)
        for (int causal = 0; causal < 2; causal++) {
            size_t n = sizes[s];
            skit_causality cz = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
            check_tno(n, 3, 1, cz, SKIT_TNO_ROWS, 0.99, 8, 1, seed + s);
            check_tno(n, 2, 2, cz, SKIT_TNO_CHANNELS, 0.9, 8, 1, seed + s + 1000);
        }
}
END_TEST

START_TEST(test_tno_settings)
{
    uint64_t seed = tu_seed();
    /* the default RPE (64 wide, 3 hidden layers), no decay, odd d, batch 3 */
    check_tno(97, 5, 3, SKIT_BIDIRECTIONAL, SKIT_TNO_ROWS, 1.0, 64, 3, seed);
    check_tno(98, 7, 3, SKIT_CAUSAL, SKIT_TNO_ROWS, 0.7, 64, 6, seed + 1);
    /* d and n not multiples of the transpose tile, larger than one tile */
    check_tno(33, 37, 2, SKIT_BIDIRECTIONAL, SKIT_TNO_ROWS, 0.99, 16, 0, seed + 2);
    check_tno(1000, 3, 1, SKIT_CAUSAL, SKIT_TNO_ROWS, 0.99, 8, 1, seed + 3);
    check_tno(997, 2, 1, SKIT_BIDIRECTIONAL, SKIT_TNO_CHANNELS, 0.99, 8, 1, seed + 4);
}
END_TEST

/* Both ways of applying the RPE's output layer (to the FFTs of the width
 * features and the decay, one GEMM for all channels; or per channel, d
 * FFTs) against the dense product of the independently evaluated RPE, on
 * both sides of the switch d = width + 1 (causal 2 (width + 1)), both layouts (the (B, N, D)
 * apply gathers channel groups of a multiple of 4 by AVX2 blocks, the
 * rest of a group and of the rows by scalar code: odd n and d reach both). */
START_TEST(test_tno_output_layer_paths)
{
    static const size_t ns[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 33, 64, 97, 100, 127, 211, 256, 331, 512};
    static const size_t ds[] = {3, 5, 6, 10, 11, 13};
    const size_t width = 4;
    uint64_t seed = tu_seed();
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
        for (int causal = 0; causal < 2; causal++)
            for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++)
                check_tno(ns[s], ds[k], 1 + (s + k) % 2, causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL,
                          (s + k) % 2 ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS, 0.95, width, 1 + k % 2,
                          seed + 97 * s + 7 * k + (uint64_t)causal);
}
END_TEST

/* The same with the RPE by the sweep (ReLU, width 16 >= 4 (layers + 2):
 * each layer on a basis of a few vectors while the ReLU masks hold): per
 * channel the kernels come straight from the sweep in circulant order;
 * past the switch d = 34 the sweep makes the features. Below 32 lags the
 * layers are evaluated by GEMMs (and the bidirectional switch is d = 17). */
START_TEST(test_tno_sweep_paths)
{
    static const size_t ns[] = {1, 15, 16, 17, 31, 32, 33, 64, 97, 211, 256, 331, 512};
    static const size_t ds[] = {3, 16, 17, 18, 34, 35};
    const size_t width = 16;
    uint64_t seed = tu_seed();
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
        for (int causal = 0; causal < 2; causal++)
            for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
                const size_t n = ns[s], lags = causal ? n : 2 * n - 1, layers = 1 + k % 2;
                skit_tno_options o;
                skit_tno_options_default(&o, SKIT_TNO_FFT);
                o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
                o.rpe_width = width;
                o.rpe_layers = layers;
                skit_tno_plan *p = NULL;
                TU_EXPECT_OK(skit_tno_plan_create(&p, n, ds[k], 1, &o, NULL, 0));
                expect_branch(p, lags >= 32 ? "eval=sweep" : "eval=layers");
                skit_tno_plan_destroy(p);
                check_tno(n, ds[k], 1 + (s + k) % 2, o.causality, (s + k) % 2 ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS,
                          0.95, width, layers, seed + 89 * s + 5 * k + (uint64_t)causal);
            }
}
END_TEST

/* Activations and norms other than the default, and loaded parameters. */
START_TEST(test_tno_parameters)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 41, d = 4, batch = 2, total = batch * n * d, per = 2 * n - 1;
    static const skit_activation acts[] = {SKIT_ACTIVATION_RELU, SKIT_ACTIVATION_SILU, SKIT_ACTIVATION_GELU};
    static const skit_norm norms[] = {SKIT_NORM_NONE, SKIT_NORM_LAYER, SKIT_NORM_RMS};
    for (int k = 0; k < 3; k++) {
        skit_tno_options o;
        skit_tno_options_default(&o, SKIT_TNO_FFT);
        o.activation = acts[k];
        o.norm = norms[k];
        o.rpe_width = 16;
        o.rpe_layers = 2;
        o.seed = seed + (uint64_t)k;
        size_t count = 0;
        TU_EXPECT_OK(skit_tno_options_parameter_count(&o, d, &count));
        ck_assert_uint_eq(count, 2 * 16 + 2 * 16 * 17 + d * 17);
        double *params = tu_random(&rng, count);
        for (size_t i = 0; i < count; i++) params[i] *= 0.3;
        skit_tno_plan *p = NULL, *q = NULL;
        TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, params, count));
        ck_assert_uint_eq(skit_tno_plan_parameter_count(p), count);
        double *back = tu_alloc(count);
        TU_EXPECT_OK(skit_tno_plan_get_parameters(p, back, count));
        ck_assert(memcmp(back, params, count * sizeof *back) == 0);

        double *x = tu_random(&rng, total), *y = tu_alloc(total), *y2 = tu_alloc(total);
        TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
        double *ref = tno_coeffs_independent(&o, n, d, params, count);
        double **T = toeplitz_matrices(n, d, ref, 0);
        ck_assert(error_vs_matrices(n, d, batch, SKIT_TNO_ROWS, T, 0, x, y) <= TOL);

        /* a seeded plan given the same parameters afterwards computes the same */
        TU_EXPECT_OK(skit_tno_plan_create(&q, n, d, batch, &o, NULL, 0));
        TU_EXPECT_OK(skit_tno_plan_set_parameters(q, params, count));
        tu_poison(y2, total);
        TU_EXPECT_OK(skit_tno_plan_execute(q, x, y2, NULL));
        ck_assert(tu_rel_error(y2, y, total) == 0.0);
        /* forward = update + execute gives the same again */
        tu_poison(y2, total);
        TU_EXPECT_OK(skit_tno_plan_forward(q, x, y2));
        ck_assert(tu_rel_error(y2, y, total) == 0.0);

        free_matrices(T, d);
        skit_free(ref);
        skit_free(params);
        skit_free(back);
        skit_free(x);
        skit_free(y);
        skit_free(y2);
        skit_tno_plan_destroy(p);
        skit_tno_plan_destroy(q);
    }
    (void)per;
}
END_TEST

/* Linearity, impulse and time shift (FFTW-style properties) of one TNO. */
START_TEST(test_tno_properties)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 77, d = 3;
    for (int causal = 0; causal < 2; causal++) {
        skit_tno_options o;
        skit_tno_options_default(&o, SKIT_TNO_FFT);
        o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        o.rpe_width = 8;
        o.seed = seed;
        skit_tno_plan *p = NULL;
        TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, 1, &o, NULL, 0));
        double *coeffs = tu_alloc((2 * n - 1) * d);
        TU_EXPECT_OK(skit_tno_plan_coeffs(p, coeffs));
        double *x = tu_random(&rng, n * d), *z = tu_random(&rng, n * d), *w = tu_alloc(n * d);
        double *yx = tu_alloc(n * d), *yz = tu_alloc(n * d), *yw = tu_alloc(n * d);
        double a = skit_rng_normal(&rng), b = skit_rng_normal(&rng);
        for (size_t k = 0; k < n * d; k++) w[k] = a * x[k] + b * z[k];
        TU_EXPECT_OK(skit_tno_plan_execute(p, x, yx, NULL));
        TU_EXPECT_OK(skit_tno_plan_execute(p, z, yz, NULL));
        TU_EXPECT_OK(skit_tno_plan_execute(p, w, yw, NULL));
        for (size_t k = 0; k < n * d; k++) yx[k] = a * yx[k] + b * yz[k];
        ck_assert(tu_rel_error(yw, yx, n * d) <= 1e-12);
        /* impulse at token j0 in every channel: column j0 of T_c */
        size_t j0 = 30;
        memset(x, 0, n * d * sizeof *x);
        for (size_t c = 0; c < d; c++) x[j0 * d + c] = 1.0;
        TU_EXPECT_OK(skit_tno_plan_execute(p, x, yx, NULL));
        for (size_t c = 0; c < d; c++)
            for (size_t i = 0; i < n; i++) {
                long lag = (long)i - (long)j0;
                double t = (causal && lag < 0) ? 0.0 : coeffs[c * (2 * n - 1) + (size_t)(lag + (long)n - 1)];
                double tmax = 0;
                for (size_t k = 0; k < 2 * n - 1; k++) tmax = fmax(tmax, fabs(coeffs[c * (2 * n - 1) + k]));
                ck_assert_msg(fabs(yx[i * d + c] - t) <= 1e-13 * tmax, "impulse i=%zu c=%zu", i, c);
            }
        skit_free(coeffs);
        skit_free(x);
        skit_free(z);
        skit_free(w);
        skit_free(yx);
        skit_free(yz);
        skit_free(yw);
        skit_tno_plan_destroy(p);
    }
}
END_TEST

/* ====================================================================== */
/* SKI-TNO                                                                 */
/* ====================================================================== */

/* band + W A W^T of every channel, from skit/ski.h pieces and the plan's
 * parameters (knots d x 2K, taps d x m) */
static double **ski_matrices(size_t n, size_t d, const skit_tno_options *o, const double *params, int causal)
{
    const size_t r = o->rank, K = o->knots, m = o->taps, half = m / 2;
    skit_interp_options io;
    skit_interp_options_default(&io, n);
    skit_interp_weights *W = NULL;
    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &io));
    double *Wd = tu_alloc(n * r), *WA = tu_alloc(n * r), *A = tu_alloc(r * r), *a = tu_alloc(2 * r - 1);
    TU_EXPECT_OK(skit_interp_weights_dense(W, Wd, n));
    double h = (double)(n - 1) / (double)(r - 1);
    double **T = malloc(d * sizeof *T);
    ck_assert_ptr_nonnull(T);
    for (size_t c = 0; c < d; c++) {
        skit_kernel *kernel = NULL;
        TU_EXPECT_OK(skit_kernel_warped_linear_create(&kernel, K, params + c * 2 * K, o->decay));
        TU_EXPECT_OK(skit_kernel_toeplitz_coeffs(kernel, r, h, a));
        skit_kernel_destroy(kernel);
        TU_EXPECT_OK(skit_toeplitz_dense(r, r, a, SKIT_BIDIRECTIONAL, A, r));
        T[c] = tu_alloc(n * n);
        for (size_t q = 0; q < r; q++) /* WA = W A, n x r */
            for (size_t i = 0; i < n; i++) {
                double s = 0;
                for (size_t p = 0; p < r; p++) s += Wd[i + p * n] * A[p + q * r];
                WA[i + q * n] = s;
            }
        const double *taps = params + d * 2 * K + c * m;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                double s = 0;
                for (size_t q = 0; q < r; q++) s += WA[i + q * n] * Wd[j + q * n];
                long lag = (long)i - (long)j;
                if (m && labs(lag) <= (long)half) s += taps[(size_t)(lag + (long)half)];
                T[c][i + j * n] = (causal && lag < 0) ? 0.0 : s;
            }
    }
    skit_free(Wd);
    skit_free(WA);
    skit_free(A);
    skit_free(a);
    skit_interp_weights_destroy(W);
    return T;
}

static void check_ski_algorithm(size_t n, size_t d, size_t batch, skit_causality causality,
                                skit_tno_layout layout, size_t r, size_t m, size_t K, uint64_t seed,
                                skit_tno_causal_ski algorithm)
{
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_SKI);
    o.causal_ski = algorithm;
    o.causality = causality;
    o.layout = layout;
    o.rank = r;
    o.taps = m;
    o.knots = K;
    o.decay = 0.9;
    o.seed = seed;
    skit_tno_plan *p = NULL;
    TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
    size_t count = skit_tno_plan_parameter_count(p);
    ck_assert_uint_eq(count, d * (2 * K + m));
    double *params = tu_alloc(count);
    TU_EXPECT_OK(skit_tno_plan_get_parameters(p, params, count));
    skit_rng rng;
    skit_rng_seed(&rng, seed ^ 0xabc);
    size_t total = batch * n * d;
    double *x = tu_random(&rng, total), *y = tu_alloc(total);
    TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
    int causal = causality == SKIT_CAUSAL;
    double **T = ski_matrices(n, d, &o, params, causal);
    double err = error_vs_matrices(n, d, batch, layout, T, causal, x, y);
    double tol = causal ? cumsum_tol(n) : TOL;
    ck_assert_msg(err <= tol, "SKI %s%s %s n=%zu d=%zu batch=%zu r=%zu m=%zu K=%zu: error %g (seed %llu)",
                  causal ? "causal" : "bidirectional", algorithm == SKIT_TNO_CAUSAL_BLOCKED ? " blocked" : "", layout == SKIT_TNO_ROWS ? "rows" : "channels", n, d,
                  batch, r, m, K, err, (unsigned long long)seed);
    /* skit_tno_plan_dense gives the same matrices */
    double *D = tu_alloc(n * n);
    for (size_t c = 0; c < d; c++) {
        TU_EXPECT_OK(skit_tno_plan_dense(p, c, D, n));
        /* the same sums in another order: a few ulps of the largest entry
         * (1e-13 failed once in many runs, seed not printed then) */
        double e = tu_rel_error(D, T[c], n * n);
        ck_assert_msg(e <= 1e-12, "SKI dense c=%zu n=%zu: error %g (seed %llu)", c, n, e,
                      (unsigned long long)seed);
    }
    free_matrices(T, d);
    skit_free(D);
    skit_free(params);
    skit_free(x);
    skit_free(y);
    skit_tno_plan_destroy(p);
}

/* causal plans are checked with both algorithms (Appendix B's running sums
 * and the bracket-blocked sums) */
static void check_ski(size_t n, size_t d, size_t batch, skit_causality causality, skit_tno_layout layout,
                      size_t r, size_t m, size_t K, uint64_t seed)
{
    check_ski_algorithm(n, d, batch, causality, layout, r, m, K, seed, SKIT_TNO_CAUSAL_CUMSUM);
    if (causality == SKIT_CAUSAL)
        check_ski_algorithm(n, d, batch, causality, layout, r, m, K, seed, SKIT_TNO_CAUSAL_BLOCKED);
}

START_TEST(test_ski_dense)
{
    uint64_t seed = tu_seed();
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        if (n < 2 || n > 256) continue; /* the reference is O(n^2 r^2) */
        size_t rs[3] = {2, MIN(n, (size_t)7), n};
        size_t ms[3] = {0, 1, MIN(2 * n - 1, (size_t)17) | 1};
        for (int causal = 0; causal < 2; causal++)
            for (int k = 0; k < 3; k++) {
                skit_causality cz = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
                size_t r = rs[k];
                check_ski(n, 3, 1, cz, SKIT_TNO_ROWS, r, ms[k], 1 + (size_t)k * 4, seed + s * 7 + (size_t)k);
                check_ski(n, 2, 2, cz, SKIT_TNO_CHANNELS, r, ms[(k + 1) % 3], 3, seed + s * 7 + (size_t)k + 3);
            }
    }
}
END_TEST

START_TEST(test_ski_settings)
{
    uint64_t seed = tu_seed();
    /* many channels (several chunks), a long filter, the paper's r and K */
    check_ski(331, 37, 2, SKIT_BIDIRECTIONAL, SKIT_TNO_ROWS, 32, 33, 32, seed);
    check_ski(331, 37, 2, SKIT_CAUSAL, SKIT_TNO_ROWS, 32, 33, 32, seed + 1);
    check_ski(200, 5, 1, SKIT_CAUSAL, SKIT_TNO_CHANNELS, 64, 17, 8, seed + 2);
    /* taps as wide as the matrix allows (2n - 1) */
    check_ski(9, 2, 1, SKIT_BIDIRECTIONAL, SKIT_TNO_ROWS, 3, 17, 2, seed + 3);
    check_ski(9, 2, 1, SKIT_CAUSAL, SKIT_TNO_CHANNELS, 3, 17, 2, seed + 4);
}
END_TEST

/* The default causal algorithm is picked by the plan: blocked sums when
 * n > 2r, running sums otherwise; the plan's options say which, and its
 * products are that algorithm's (bit for bit: the same code runs). */
START_TEST(test_ski_auto)
{
    uint64_t seed = tu_seed();
    const size_t shapes[][2] = {{8, 4}, {9, 4}, {64, 64}, {129, 64}, {331, 32}, {2, 2}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const size_t n = shapes[k][0], r = shapes[k][1], d = 3;
        skit_tno_options o;
        skit_tno_options_default(&o, SKIT_TNO_SKI);
        ck_assert_int_eq(o.causal_ski, SKIT_TNO_CAUSAL_AUTO);
        o.causality = SKIT_CAUSAL;
        o.rank = r;
        o.taps = 1;
        o.seed = seed + k;
        const skit_tno_causal_ski want = n > 2 * r ? SKIT_TNO_CAUSAL_BLOCKED : SKIT_TNO_CAUSAL_CUMSUM;
        skit_tno_plan *p = NULL, *q = NULL;
        TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, 1, &o, NULL, 0));
        ck_assert_msg(skit_tno_plan_options(p)->causal_ski == want, "n=%zu r=%zu: auto chose %d", n, r,
                      (int)skit_tno_plan_options(p)->causal_ski);
        o.causal_ski = want;
        TU_EXPECT_OK(skit_tno_plan_create(&q, n, d, 1, &o, NULL, 0));
        skit_rng rng;
        skit_rng_seed(&rng, seed ^ k);
        double *x = tu_random(&rng, n * d), *y = tu_alloc(n * d), *z = tu_alloc(n * d);
        TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
        TU_EXPECT_OK(skit_tno_plan_execute(q, x, z, NULL));
        ck_assert_msg(memcmp(y, z, n * d * sizeof(double)) == 0, "n=%zu r=%zu: auto differs", n, r);
        skit_free(x);
        skit_free(y);
        skit_free(z);
        skit_tno_plan_destroy(p);
        skit_tno_plan_destroy(q);
    }
}
END_TEST

/* SKI's A coefficients are the warped kernel of skit/ski.h, and updates
 * through set_parameters take effect. */
START_TEST(test_ski_parameters)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 150, d = 6, batch = 2, total = batch * n * d;
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_SKI);
    o.rank = 20;
    o.taps = 5;
    o.knots = 6;
    o.seed = seed;
    for (int causal = 0; causal < 2; causal++) {
        o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        skit_tno_plan *p = NULL;
        TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
        size_t count = skit_tno_plan_parameter_count(p);
        double *params = tu_random(&rng, count), *x = tu_random(&rng, total), *y = tu_alloc(total);
        TU_EXPECT_OK(skit_tno_plan_set_parameters(p, params, count));
        TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
        double **T = ski_matrices(n, d, &o, params, causal);
        double err = error_vs_matrices(n, d, batch, SKIT_TNO_ROWS, T, causal, x, y);
        ck_assert_msg(err <= (causal ? cumsum_tol(n) : TOL), "after set_parameters: %g", err);
        /* a plan created from the parameters computes the same */
        skit_tno_plan *q = NULL;
        double *y2 = tu_alloc(total);
        TU_EXPECT_OK(skit_tno_plan_create(&q, n, d, batch, &o, params, count));
        TU_EXPECT_OK(skit_tno_plan_forward(q, x, y2));
        ck_assert(tu_rel_error(y2, y, total) == 0.0);
        free_matrices(T, d);
        skit_free(params);
        skit_free(x);
        skit_free(y);
        skit_free(y2);
        skit_tno_plan_destroy(p);
        skit_tno_plan_destroy(q);
    }
}
END_TEST

/* ====================================================================== */
/* FD-TNO                                                                  */
/* ====================================================================== */

static void check_fd_act(size_t n, size_t d, size_t batch, skit_causality causality, skit_tno_layout layout,
                         size_t fft_length, skit_activation act, uint64_t seed)
{
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_FD);
    o.causality = causality;
    o.layout = layout;
    o.rpe_width = 16;
    o.rpe_layers = 1;
    o.activation = act;
    o.fft_length = fft_length;
    o.seed = seed;
    skit_tno_plan *p = NULL;
    TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
    /* causal: the Hilbert step runs on the 16 features exactly when d >= 32 */
    if (causality == SKIT_CAUSAL) expect_branch(p, d >= 32 ? "hilbert=features" : "hilbert=channels");
    skit_rng rng;
    skit_rng_seed(&rng, seed ^ 0xfd);
    size_t total = batch * n * d, per = 2 * n - 1;
    double *x = tu_random(&rng, total), *y = tu_alloc(total);
    TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
    /* its own impulse response as Toeplitz coefficients */
    double *coeffs = tu_alloc(per * d);
    TU_EXPECT_OK(skit_tno_plan_coeffs(p, coeffs));
    int causal = causality == SKIT_CAUSAL;
    double **T = toeplitz_matrices(n, d, coeffs, causal);
    double err = error_vs_matrices(n, d, batch, layout, T, 0, x, y);
    ck_assert_msg(err <= TOL, "FD %s n=%zu d=%zu batch=%zu: error %g (seed %llu)",
                  causal ? "causal" : "bidirectional", n, d, batch, err, (unsigned long long)seed);
    /* a second update: with ReLU, where the first one's sweep saw masks
     * change at over 1 frequency in 64, this one takes the features' GEMM */
    tu_poison(y, total);
    TU_EXPECT_OK(skit_tno_plan_update(p));
    TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
    err = error_vs_matrices(n, d, batch, layout, T, 0, x, y);
    ck_assert_msg(err <= TOL, "FD %s n=%zu d=%zu after an update: error %g (seed %llu)",
                  causal ? "causal" : "bidirectional", n, d, err, (unsigned long long)seed);

    /* a separate skit_fdtno plan with an MLP of the same seed, channel-major */
    skit_mlp *mlp = NULL;
    skit_fdtno_plan *fd = NULL;
    TU_EXPECT_OK(skit_mlp_create(&mlp, 1, 16, 1, causal ? d : 2 * d, act, SKIT_NORM_RMS, seed));
    TU_EXPECT_OK(skit_fdtno_plan_create(
        &fd, n, d, &(skit_fdtno_options){.causality = causality, .fft_length = fft_length}));
    TU_EXPECT_OK(skit_fdtno_plan_set_mlp(fd, mlp));
    double *xc = tu_alloc(n * d), *yc = tu_alloc(n * d);
    for (size_t b = 0; b < batch; b++) {
        for (size_t c = 0; c < d; c++)
            for (size_t i = 0; i < n; i++) xc[c * n + i] = x[tu_tno_index(layout, n, d, b, i, c)];
        TU_EXPECT_OK(skit_fdtno_plan_execute(fd, xc, n, yc, n, NULL));
        for (size_t c = 0; c < d; c++)
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(fabs(yc[c * n + i] - y[tu_tno_index(layout, n, d, b, i, c)]) <= 1e-14 * (1 + fabs(yc[c * n + i])),
                              "FD vs skit_fdtno b=%zu", b);
    }
    if (causal) {
        /* the impulse response vanishes at negative lags */
        size_t N = skit_fdtno_plan_fft_length(fd);
        double *k = tu_alloc(N * d);
        TU_EXPECT_OK(skit_fdtno_plan_impulse(fd, k, N));
        for (size_t c = 0; c < d; c++) {
            double neg = 0, all = 0;
            for (size_t t = 0; t < N; t++) {
                all += k[c * N + t] * k[c * N + t];
                if (t > N / 2) neg += k[c * N + t] * k[c * N + t];
            }
            ck_assert_msg(neg <= 1e-24 * all, "causal FD kernel has energy %g at negative lags", neg / all);
        }
        skit_free(k);
    }
    skit_fdtno_plan_destroy(fd);
    skit_mlp_destroy(mlp);
    free_matrices(T, d);
    skit_free(xc);
    skit_free(yc);
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    skit_tno_plan_destroy(p);
}

static void check_fd(size_t n, size_t d, size_t batch, skit_causality causality, skit_tno_layout layout,
                     size_t fft_length, uint64_t seed)
{
    check_fd_act(n, d, batch, causality, layout, fft_length, SKIT_ACTIVATION_GELU, seed);
}

START_TEST(test_fd_dense)
{
    uint64_t seed = tu_seed();
    for (size_t s = 0; s < NSIZES; s++)
        for (int causal = 0; causal < 2; causal++) {
            size_t n = sizes[s];
            skit_causality cz = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
            check_fd(n, 3, 1, cz, SKIT_TNO_ROWS, 0, seed + s);
            check_fd(n, 2, 2, cz, SKIT_TNO_CHANNELS, 2 * n + 2 * (s % 3), seed + s + 500);
        }
}
END_TEST

/* FD-TNO's output layer writes the spectra (bidirectional) or is pushed
 * below the Hilbert step (causal, d >= 2 x width 16) or not: each
 * against the dense product of its own impulse response and against a
 * separate skit_fdtno plan that evaluates the MLP row by row and runs one
 * Hilbert step per channel (check_fd). */
START_TEST(test_fd_output_layer_paths)
{
    static const size_t ns[] = {1, 2, 3, 5, 8, 17, 31, 64, 97, 128, 211, 300};
    static const size_t ds[] = {16, 31, 32, 37};
    uint64_t seed = tu_seed();
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
        for (int causal = 0; causal < 2; causal++)
            for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++)
                check_fd(ns[s], ds[k], 1 + (s + k) % 2, causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL,
                         (s + k) % 2 ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS, k == 3 ? 2 * ns[s] + 6 : 0,
                         seed + 31 * s + k + 1000 * (uint64_t)causal);
}
END_TEST

/* With ReLU the RPE runs by the sweep from a grid of 32 frequencies on
 * (N >= 62): the responses go straight into the spectra (bidirectional:
 * real and imaginary parts; causal: real parts, then the Hilbert step on
 * the features when d >= 32, else per channel), checked as above against
 * the dense product and a skit_fdtno plan that evaluates the MLP by
 * layers. */
START_TEST(test_fd_sweep_paths)
{
    static const size_t ns[] = {2, 17, 31, 32, 33, 64, 97, 128, 211, 300};
    static const size_t ds[] = {16, 31, 32, 37};
    uint64_t seed = tu_seed();
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
        for (int causal = 0; causal < 2; causal++)
            for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
                const size_t fft = k == 3 ? 2 * ns[s] + 6 : 0;
                skit_tno_options o;
                skit_tno_options_default(&o, SKIT_TNO_FD);
                o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
                o.rpe_width = 16;
                o.rpe_layers = 1;
                o.fft_length = fft;
                skit_tno_plan *p = NULL;
                TU_EXPECT_OK(skit_tno_plan_create(&p, ns[s], ds[k], 1, &o, NULL, 0));
                char text[512];
                skit_tno_plan_describe(p, text, sizeof text);
                const size_t half = (size_t)strtoull(strstr(text, "fft=") + 4, NULL, 10) / 2 + 1;
                expect_branch(p, half >= 32 ? "eval=sweep" : "eval=layers");
                skit_tno_plan_destroy(p);
                check_fd_act(ns[s], ds[k], 1 + (s + k) % 2, o.causality,
                             (s + k) % 2 ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS, fft, SKIT_ACTIVATION_RELU,
                             seed + 37 * s + k + 1000 * (uint64_t)causal);
            }
}
END_TEST

/* skit_tno_plan_forward recomputes every spectrum from the parameters: the
 * spectra are poisoned first, then its output, a later apply and the
 * coefficients read back from the spectra go against the dense product;
 * TNO below the output layer (d > 2 (width + 1)), FD-TNO bidirectional by
 * the layers (GeLU; ReLU once the sweep has seen many mask changes) and
 * causal with the Hilbert step on the features (d >= 2 width), with
 * OpenBLAS on one thread (the RPE's GEMMs split over the OpenMP threads by
 * the library) and on two. */
START_TEST(test_forward_recomputes)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t ns[] = {37, 64, 211};
    const size_t d = 13, batch = 2;
#ifdef OPENBLAS_VERSION
    const int saved = openblas_get_num_threads();
    for (int blas = 1; blas <= 2; blas++) {
        openblas_set_num_threads(blas);
#else
    {
#endif
        for (int fd = 0; fd < 2; fd++)
            for (int causal = 0; causal < 2; causal++)
                for (int relu = 0; relu < 2; relu++)
                    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
                        const size_t n = ns[s], total = batch * n * d, per = 2 * n - 1;
                        skit_tno_options o;
                        skit_tno_options_default(&o, fd ? SKIT_TNO_FD : SKIT_TNO_FFT);
                        o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
                        o.rpe_width = 4;
                        o.rpe_layers = 1;
                        o.activation = relu ? SKIT_ACTIVATION_RELU : SKIT_ACTIVATION_GELU;
                        o.seed = seed + 17 * s + (uint64_t)(8 * fd + 4 * causal + 2 * relu);
                        skit_tno_plan *p = NULL;
                        TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
                        double *coeffs = tu_alloc(per * d);
                        TU_EXPECT_OK(skit_tno_plan_coeffs(p, coeffs));
                        double **T = toeplitz_matrices(n, d, coeffs, causal);
                        double *x = tu_random(&rng, total), *y = tu_alloc(total);
                        for (int round = 0; round < 2; round++) {
                            size_t spectra_doubles;
                            double *spectra = tno_spectral_spectra(p, &spectra_doubles);
                            tu_poison(spectra, spectra_doubles);
                            TU_EXPECT_OK(skit_tno_plan_forward(p, x, y));
                            double err = error_vs_matrices(n, d, batch, SKIT_TNO_ROWS, T, 0, x, y);
                            ck_assert_msg(err <= TOL, "forward %s %s %s n=%zu round %d: error %g (seed %llu)",
                                          fd ? "fd" : "tno", causal ? "causal" : "bidirectional",
                                          relu ? "relu" : "gelu", n, round, err, (unsigned long long)seed);
                            tu_poison(y, total);
                            TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
                            err = error_vs_matrices(n, d, batch, SKIT_TNO_ROWS, T, 0, x, y);
                            ck_assert_msg(err <= TOL, "apply after forward n=%zu: error %g", n, err);
                            /* the cached spectra whole (FD: Im at 0 and pi too) */
                            double *again = tu_alloc(per * d);
                            TU_EXPECT_OK(skit_tno_plan_coeffs(p, again));
                            ck_assert_msg(tu_rel_error(again, coeffs, per * d) <= 1e-12,
                                          "coefficients after forward n=%zu differ by %g", n,
                                          tu_rel_error(again, coeffs, per * d));
                            skit_free(again);
                        }
                        free_matrices(T, d);
                        skit_free(coeffs);
                        skit_free(x);
                        skit_free(y);
                        skit_tno_plan_destroy(p);
                    }
    }
#ifdef OPENBLAS_VERSION
    openblas_set_num_threads(saved);
#endif
}
END_TEST

/* Every (sequence, channel) of y32 within the bound of
 * skit_tno_plan_execute_f32 of y64:
 *     (20 log2(2N) + 2 (h + 1) + 4 (L + 3)) u (||C_c||_2 + M_c) ||x_c||_2
 * (tu_f32_bound with the factor widened by the RPE's terms and M_c added) */
static void expect_f32_close(const tu_tno_pair *t, const char *what, uint64_t seed)
{
    const skit_tno_plan *p64 = t->p64;
    const size_t n = skit_tno_plan_n(p64), d = skit_tno_plan_d(p64), batch = skit_tno_plan_batch(p64);
    const double h = (double)p64->opt.rpe_width, layers = (double)p64->opt.rpe_layers;
    double *scale = tu_alloc(d); /* ||C_c||_2 + M_c, the magnitudes skit/tno.h's bound names */
    size_t N;
    TU_EXPECT_OK(skit_tno_plan_f32_error_scale(t->p32, scale, &N));
    const double want = 20.0 * log2(2.0 * (double)N) + 2 * (h + 1) + 4 * (layers + 3);
    const double widen = want / (20.0 * log2(2.0 * (double)N));
    /* the library's own factor (skit_tno_plan_f32_growth) is this one */
    const double growth = skit_tno_plan_f32_growth(t->p32);
    ck_assert_msg(fabs(growth - want) <= 1e-12 * want, "%s: f32 growth %g, want %g", what, growth, want);
    ck_assert(skit_tno_plan_f32_growth(p64) == 0);
    for (size_t b = 0; b < batch; b++)
        for (size_t c = 0; c < d; c++) {
            double x_norm, err = tu_tno_pair_error(t, b, c, &x_norm);
            double bound = widen * tu_f32_bound(N, scale[c], x_norm);
            ck_assert_msg(err <= bound, "%s n=%zu d=%zu sequence %zu channel %zu: ||y32 - y64|| = %g > %g (seed %llu)",
                          what, n, d, b, c, err, bound, (unsigned long long)seed);
        }
    skit_free(scale);
}

/* float32 TNO and FD-TNO plans against float64 plans of the same
 * parameters, within the bound of skit_tno_plan_execute_f32: sizes with
 * odd and prime n, causal and bidirectional, both layouts, the float64
 * plans' per-channel and output-layer-after-transform (pushdown) spectra
 * against the float32 plans' float RPE; outputs poisoned. */
/* Float wisdom round trip: the exported text carries fftwf wisdom after
 * the double's; forgotten, a float32 plan with WISDOM_ONLY fails; imported
 * (both forms, or the float form alone), it plans and executes. */
START_TEST(test_f32_wisdom_round_trip)
{
    const size_t n = 48, d = 3; /* TNO's FFT length 96 */
    skit_fft_set_time_limit(-1); /* wisdom of a time-limited plan is not WISDOM_ONLY's */
    TU_EXPECT_OK(skit_fft_plan_length_f32(96, SKIT_PLANNER_MEASURE, NULL));
    TU_EXPECT_OK(skit_fft_plan_length(96, SKIT_PLANNER_MEASURE, NULL));
    char *text = skit_fft_wisdom_export_string();
    ck_assert_ptr_nonnull(text);
    const char *single = strstr(text, "fftwf_wisdom");
    ck_assert_msg(single && strstr(text, "fftw_wisdom") < single, "no float wisdom after the double: %s", text);
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_FFT);
    o.precision = SKIT_PRECISION_F32;
    o.planner = SKIT_PLANNER_WISDOM_ONLY;
    skit_tno_plan *p = NULL;
    skit_fft_wisdom_forget();
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, n, d, 1, &o, NULL, 0), SKIT_ELIBRARY);
    TU_EXPECT_OK(skit_fft_wisdom_import_string(text));
    TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, 1, &o, NULL, 0));
    float *x = tu_alloc_f32(n * d), *y = tu_alloc_f32(n * d);
    for (size_t i = 0; i < n * d; i++) x[i] = (float)i / (float)(n * d);
    TU_EXPECT_OK(skit_tno_plan_execute_f32(p, x, y, NULL));
    for (size_t i = 0; i < n * d; i++) ck_assert(isfinite(y[i]));
    skit_tno_plan_destroy(p);
    /* the float form on its own plans a float32 plan: it builds no
     * float64 engine (and the double planner, WISDOM_ONLY, finds none) */
    skit_fft_wisdom_forget();
    char *start = text + (single - text);
    while (start > text && *start != '(') start--;
    TU_EXPECT_OK(skit_fft_wisdom_import_string(start));
    TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, 1, &o, NULL, 0));
    skit_tno_plan_destroy(p);
    TU_EXPECT_STATUS(skit_fft_plan_length(96, SKIT_PLANNER_WISDOM_ONLY, NULL), SKIT_ELIBRARY);
    double seconds;
    TU_EXPECT_OK(skit_fft_plan_length_f32(96, SKIT_PLANNER_WISDOM_ONLY, &seconds));
    TU_EXPECT_STATUS(skit_fft_wisdom_import_string("(fftw-3 fftwf_wisdom (unbalanced"), SKIT_EFORMAT);
    TU_EXPECT_STATUS(skit_fft_plan_length_f32(0, SKIT_PLANNER_MEASURE, NULL), SKIT_EDOM);
    skit_fft_wisdom_forget();
    skit_free(x);
    skit_free(y);
    skit_free(text);
}
END_TEST

START_TEST(test_f32_matches_f64)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t ns[] = {1, 2, 3, 7, 13, 31, 64, 97, 211, 331, 512, 1000, 2039};
    static const size_t ds[] = {5, 13, 16};
    const size_t batch = 2;
    for (int fd = 0; fd < 2; fd++)
        for (int causal = 0; causal < 2; causal++)
            for (int layout = 0; layout < 2; layout++)
                for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
                    /* s = 7: d above 2 (h+1), where float32 TNO transforms the features */
                    const size_t n = ns[s], d = s == 7 ? 133 : ds[s % 3];
                    skit_tno_options o;
                    skit_tno_options_default(&o, fd ? SKIT_TNO_FD : SKIT_TNO_FFT);
                    o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
                    o.layout = layout ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS;
                    /* every fourth size with TNN's RPE (64 x 3): its output layer sums 65
                     * terms of both signs, the float32 rounding M_c counts */
                    o.rpe_width = s % 4 == 3 ? 64 : 4;
                    o.rpe_layers = s % 4 == 3 ? 3 : 1;
                    /* ReLU at 64 x 3 (s = 3, 7, 11) takes the sweep; GELU elsewhere the layers */
                    o.activation = s % 2 && s % 8 != 3 && s != 7 ? SKIT_ACTIVATION_GELU : SKIT_ACTIVATION_RELU;
                    o.seed = seed + s;
                    tu_tno_pair t;
                    tu_tno_pair_create(&t, n, d, batch, &o, &rng);
                    if (!fd && (s == 7 || s == 11)) { /* the float sweep: outputs per channel (s = 11), features (s = 7) */
                        char desc[256];
                        skit_tno_plan_describe(t.p32, desc, sizeof desc);
                        const char *spectra = s == 7 ? "spectra=features" : "spectra=channels";
                        ck_assert_msg(strstr(desc, "eval=sweep") && strstr(desc, spectra),
                                      "n = %zu relu 64 x 3: expected the sweep and %s, got %s", n, spectra, desc);
                    }
                    TU_EXPECT_OK(skit_tno_plan_execute_f32(t.p32, t.x, t.y32, NULL));
                    char what[96];
                    snprintf(what, sizeof what, "%s %s %s", fd ? "fd" : "tno", causal ? "causal" : "bidirectional",
                             layout ? "channels" : "rows");
                    tu_tno_pair_check_forward(&t, expect_f32_close, what, seed);
                    /* a float32 plan's backward is the _f32 form */
                    TU_EXPECT_STATUS(skit_tno_plan_backward(t.p32, t.x64, t.y64, NULL, NULL, NULL, NULL),
                                     SKIT_EINVAL);
                    tu_tno_pair_destroy(&t);
                }
    /* device plans have no float32 path (SKI-TNO's: tests/test_tno_f32.c) */
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_FFT);
    o.precision = SKIT_PRECISION_F32;
    o.device = SKIT_DEVICE_CUDA;
    skit_tno_plan *p = NULL;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 64, 4, 1, &o, NULL, 0), SKIT_EUNSUPPORTED);
    skit_tno_options_default(&o, SKIT_TNO_FFT);
    o.precision = (skit_precision)9;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 64, 4, 1, &o, NULL, 0), SKIT_EINVAL);
    ck_assert_ptr_null(p);
}
END_TEST

/* Causal operators ignore future inputs: perturbing x[k:] leaves y[:k]. */
START_TEST(test_causality)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 211, d = 4, batch = 2, total = batch * n * d, k0 = 101;
    const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI, SKIT_TNO_SKI};
    for (int kk = 0; kk < 4; kk++)
        for (int lay = 0; lay < 2; lay++) {
            skit_tno_options o;
            skit_tno_options_default(&o, kinds[kk]);
            if (kk == 3) o.causal_ski = SKIT_TNO_CAUSAL_BLOCKED;
            o.causality = SKIT_CAUSAL;
            o.layout = lay ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS;
            o.rpe_width = 8;
            o.rank = 16;
            o.seed = seed + (uint64_t)kk;
            skit_tno_plan *p = NULL;
            TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
            double *x = tu_random(&rng, total), *y = tu_alloc(total), *y2 = tu_alloc(total);
            TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
            for (size_t b = 0; b < batch; b++)
                for (size_t c = 0; c < d; c++)
                    for (size_t i = k0; i < n; i++) x[tu_tno_index(o.layout, n, d, b, i, c)] += 100.0 * skit_rng_normal(&rng);
            TU_EXPECT_OK(skit_tno_plan_execute(p, x, y2, NULL));
            double scale = 0, worst = 0;
            for (size_t k = 0; k < total; k++) scale = fmax(scale, fabs(y2[k]));
            for (size_t b = 0; b < batch; b++)
                for (size_t c = 0; c < d; c++)
                    for (size_t i = 0; i < k0; i++) {
                        size_t at = tu_tno_index(o.layout, n, d, b, i, c);
                        worst = fmax(worst, fabs(y2[at] - y[at]));
                    }
            ck_assert_msg(worst <= 1e-13 * scale, "%s causal: past outputs moved by %g (relative)",
                          skit_tno_kind_name(kinds[kk]), worst / scale);
            skit_free(x);
            skit_free(y);
            skit_free(y2);
            skit_tno_plan_destroy(p);
        }
}
END_TEST

/* ROWS and CHANNELS layouts compute the same operator; each sequence of a
 * batch equals a batch-1 plan on it. */
START_TEST(test_layout_batch)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 70, d = 9, batch = 3, total = batch * n * d;
    const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI, SKIT_TNO_SKI};
    for (int kk = 0; kk < 4; kk++)
        for (int causal = 0; causal < 2; causal++) {
            skit_tno_options o;
            skit_tno_options_default(&o, kinds[kk]);
            if (kk == 3) o.causal_ski = SKIT_TNO_CAUSAL_BLOCKED;
            o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
            o.rpe_width = 8;
            o.rank = 10;
            o.seed = seed;
            skit_tno_plan *rows = NULL, *chan = NULL, *one = NULL;
            TU_EXPECT_OK(skit_tno_plan_create(&rows, n, d, batch, &o, NULL, 0));
            o.layout = SKIT_TNO_CHANNELS;
            TU_EXPECT_OK(skit_tno_plan_create(&chan, n, d, batch, &o, NULL, 0));
            o.layout = SKIT_TNO_ROWS;
            TU_EXPECT_OK(skit_tno_plan_create(&one, n, d, 1, &o, NULL, 0));
            double *x = tu_random(&rng, total), *xc = tu_alloc(total), *y = tu_alloc(total),
                   *yc = tu_alloc(total), *y1 = tu_alloc(n * d);
            for (size_t b = 0; b < batch; b++)
                for (size_t i = 0; i < n; i++)
                    for (size_t c = 0; c < d; c++)
                        xc[tu_tno_index(SKIT_TNO_CHANNELS, n, d, b, i, c)] = x[tu_tno_index(SKIT_TNO_ROWS, n, d, b, i, c)];
            TU_EXPECT_OK(skit_tno_plan_execute(rows, x, y, NULL));
            TU_EXPECT_OK(skit_tno_plan_execute(chan, xc, yc, NULL));
            double worst = 0, scale = 0;
            for (size_t b = 0; b < batch; b++)
                for (size_t i = 0; i < n; i++)
                    for (size_t c = 0; c < d; c++) {
                        double a = y[tu_tno_index(SKIT_TNO_ROWS, n, d, b, i, c)];
                        double e = yc[tu_tno_index(SKIT_TNO_CHANNELS, n, d, b, i, c)];
                        worst = fmax(worst, fabs(a - e));
                        scale = fmax(scale, fabs(a));
                    }
            ck_assert_msg(worst <= 1e-13 * scale, "%s: layouts differ by %g", skit_tno_kind_name(kinds[kk]),
                          worst / scale);
            for (size_t b = 0; b < batch; b++) {
                tu_poison(y1, n * d);
                TU_EXPECT_OK(skit_tno_plan_execute(one, x + b * n * d, y1, NULL));
                ck_assert(tu_rel_error(y1, y + b * n * d, n * d) <= 1e-15);
            }
            skit_free(x);
            skit_free(xc);
            skit_free(y);
            skit_free(yc);
            skit_free(y1);
            skit_tno_plan_destroy(rows);
            skit_tno_plan_destroy(chan);
            skit_tno_plan_destroy(one);
        }
}
END_TEST

/* skit_tno_plan_eval_rpe: the number of points the RPE runs at, and the plan
 * computes exactly the same afterwards (the features it rewrites are the
 * cached ones). */
START_TEST(test_eval_rpe)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t n = 37, d = 6, total = n * d;
    const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI};
    for (int k = 0; k < 3; k++)
        for (int causal = 0; causal < 2; causal++) {
            skit_tno_options o;
            skit_tno_options_default(&o, kinds[k]);
            o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
            o.rpe_width = 4;
            o.rank = 8;
            skit_tno_plan *p = NULL;
            TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, 1, &o, NULL, 0));
            double *x = tu_random(&rng, total), *y = tu_alloc(total), *y2 = tu_alloc(total);
            TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
            size_t points = 99;
            TU_EXPECT_OK(skit_tno_plan_eval_rpe(p, &points));
            size_t want = kinds[k] == SKIT_TNO_SKI ? 0 : kinds[k] == SKIT_TNO_FD ? 128 / 2 + 1 /* N = 128 >= 2n */ : causal ? n : 2 * n - 1;
            ck_assert_uint_eq(points, want);
            TU_EXPECT_OK(skit_tno_plan_eval_rpe(p, NULL));
            TU_EXPECT_OK(skit_tno_plan_execute(p, x, y2, NULL));
            ck_assert(memcmp(y, y2, total * sizeof *y) == 0);
            tu_poison(y2, total);
            TU_EXPECT_OK(skit_tno_plan_forward(p, x, y2));
            ck_assert(memcmp(y, y2, total * sizeof *y) == 0);
            skit_free(x);
            skit_free(y);
            skit_free(y2);
            skit_tno_plan_destroy(p);
        }
    TU_EXPECT_STATUS(skit_tno_plan_eval_rpe(NULL, NULL), SKIT_EINVAL);
}
END_TEST

START_TEST(test_queries)
{
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_SKI);
    ck_assert_int_eq(o.kind, SKIT_TNO_SKI);
    ck_assert_int_eq(o.causality, SKIT_BIDIRECTIONAL);
    ck_assert_int_eq(o.layout, SKIT_TNO_ROWS);
    ck_assert_uint_eq(o.rpe_width, 64);
    ck_assert_uint_eq(o.rpe_layers, 3);
    ck_assert(o.decay == 0.99);
    ck_assert_uint_eq(o.rank, 64);
    ck_assert_uint_eq(o.taps, 17);
    skit_tno_options_default(NULL, SKIT_TNO_FFT); /* no crash */
    ck_assert_str_eq(skit_tno_kind_name(SKIT_TNO_FFT), "tno");
    ck_assert_str_eq(skit_tno_kind_name(SKIT_TNO_SKI), "ski");
    ck_assert_str_eq(skit_tno_kind_name(SKIT_TNO_FD), "fd");
    ck_assert_str_eq(skit_tno_kind_name((skit_tno_kind)9), "unknown");
    const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI};
    for (int k = 0; k < 3; k++) {
        skit_tno_options_default(&o, kinds[k]);
        skit_tno_plan *p = NULL;
        TU_EXPECT_OK(skit_tno_plan_create(&p, 128, 8, 2, &o, NULL, 0));
        ck_assert_uint_eq(skit_tno_plan_n(p), 128);
        ck_assert_uint_eq(skit_tno_plan_d(p), 8);
        ck_assert_uint_eq(skit_tno_plan_batch(p), 2);
        ck_assert_int_eq(skit_tno_plan_options(p)->kind, kinds[k]);
        ck_assert(skit_tno_plan_bytes(p) > 128 * 8 * sizeof(double));
        char text[256];
        skit_tno_plan_describe(p, text, sizeof text);
        ck_assert_msg(strstr(text, skit_tno_kind_name(kinds[k])) == text, "%s", text);
        ck_assert(strstr(text, "n=128") != NULL);
        skit_tno_plan_describe(p, text, 5); /* truncates safely */
        ck_assert_uint_eq(strlen(text), 4);
        skit_tno_plan_destroy(p);
    }
    ck_assert_uint_eq(skit_tno_plan_bytes(NULL), 0);
    ck_assert_uint_eq(skit_tno_plan_parameter_count(NULL), 0);
    ck_assert_ptr_null(skit_tno_plan_options(NULL));
    skit_tno_plan_destroy(NULL);
}
END_TEST

/* ====================================================================== */
/* config: every documented error                                          */
/* ====================================================================== */

START_TEST(test_config_create)
{
    skit_tno_plan *p = (skit_tno_plan *)1;
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_FFT);
    TU_EXPECT_STATUS(skit_tno_plan_create(NULL, 8, 2, 1, &o, NULL, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, NULL, NULL, 0), SKIT_EINVAL);
    ck_assert_ptr_null(p);
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 0, 2, 1, &o, NULL, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, ((size_t)1 << 30) + 1, 2, 1, &o, NULL, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 0, 1, &o, NULL, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 0, &o, NULL, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(
        skit_tno_plan_create(&p, (size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 20, &o, NULL, 0),
        SKIT_EOVERFLOW);
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, (size_t)1 << 30, (size_t)1 << 16, 1, &o, NULL, 0),
                     SKIT_ETOOBIG);

    skit_tno_options bad = o;
    bad.kind = (skit_tno_kind)7;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EINVAL);
    bad = o;
    bad.causality = (skit_causality)5;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EINVAL);
    bad = o;
    bad.layout = (skit_tno_layout)5;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EINVAL);
    bad = o;
    bad.activation = (skit_activation)9;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EINVAL);
    bad = o;
    bad.norm = (skit_norm)9;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EINVAL);
    bad = o;
    bad.rpe_width = 0;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad = o;
    bad.rpe_layers = 65;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    double decays[] = {0.0, -0.5, 1.0000001, NAN};
    for (int k = 0; k < 4; k++) {
        bad = o;
        bad.decay = decays[k];
        TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    }
    bad = o;
    bad.decay = 1.0; /* no decay: allowed for TNO */
    TU_EXPECT_OK(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0));
    skit_tno_plan_destroy(p);

    /* SKI */
    skit_tno_options s;
    skit_tno_options_default(&s, SKIT_TNO_SKI);
    s.rank = 4;
    s.taps = 3;
    bad = s;
    bad.decay = 1.0; /* the time warp needs lambda < 1 */
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad = s;
    bad.rank = 1;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad = s;
    bad.rank = 9;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad = s;
    bad.taps = 4;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad = s;
    bad.taps = 17;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad = s;
    bad.knots = 0;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad.knots = ((size_t)1 << 20) + 1;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad = s;
    bad.causal_ski = (skit_tno_causal_ski)4;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EINVAL);
    bad = s;
    bad.taps = 15; /* = 2n - 1: allowed */
    TU_EXPECT_OK(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0));
    skit_tno_plan_destroy(p);

    /* FD */
    skit_tno_options f;
    skit_tno_options_default(&f, SKIT_TNO_FD);
    bad = f;
    bad.fft_length = 17;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad.fft_length = 14;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0), SKIT_EDOM);
    bad.fft_length = 16;
    TU_EXPECT_OK(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0));
    skit_tno_plan_destroy(p);
    bad = f;
    bad.decay = 7; /* ignored by FD */
    TU_EXPECT_OK(skit_tno_plan_create(&p, 8, 2, 1, &bad, NULL, 0));
    skit_tno_plan_destroy(p);

    /* parameters */
    size_t count = 0;
    TU_EXPECT_OK(skit_tno_options_parameter_count(&s, 2, &count));
    double *params = tu_alloc(count + 1);
    for (size_t k = 0; k <= count; k++) params[k] = 0.25;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &s, params, count + 1), SKIT_ESHAPE);
    params[3] = NAN;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &s, params, count), SKIT_ENONFINITE);
    params[3] = INFINITY;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 8, 2, 1, &s, params, count), SKIT_ENONFINITE);
    ck_assert_ptr_null(p);
    skit_free(params);

    TU_EXPECT_STATUS(skit_tno_options_parameter_count(NULL, 2, &count), SKIT_EINVAL);
    ck_assert_uint_eq(count, 0);
    TU_EXPECT_STATUS(skit_tno_options_parameter_count(&s, 2, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_options_parameter_count(&s, 0, &count), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_tno_options_parameter_count(&s, ((size_t)1 << 30) + 1, &count),
                     SKIT_EDOM);
    bad = s;
    bad.kind = (skit_tno_kind)-1;
    TU_EXPECT_STATUS(skit_tno_options_parameter_count(&bad, 2, &count), SKIT_EINVAL);
    bad = s;
    bad.taps = SIZE_MAX; /* odd; bounded by 2n - 1 only once n is known */
    TU_EXPECT_STATUS(skit_tno_options_parameter_count(&bad, 3, &count), SKIT_EOVERFLOW);
    bad = o;
    bad.rpe_width = 65536;
    bad.rpe_layers = 64;
    TU_EXPECT_OK(skit_tno_options_parameter_count(&bad, (size_t)1 << 30, &count));
}
END_TEST

START_TEST(test_config_plan)
{
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_FFT);
    o.rpe_width = 8;
    skit_tno_plan *p = NULL, *s = NULL;
    TU_EXPECT_OK(skit_tno_plan_create(&p, 16, 2, 2, &o, NULL, 0));
    skit_tno_options_default(&o, SKIT_TNO_SKI);
    o.rank = 4;
    TU_EXPECT_OK(skit_tno_plan_create(&s, 16, 2, 2, &o, NULL, 0));
    size_t count = skit_tno_plan_parameter_count(p), total = 2 * 16 * 2;
    double *params = tu_alloc(count), *x = tu_alloc(total), *y = tu_alloc(total), *y0 = tu_alloc(total);
    double *T = tu_alloc(16 * 16), *coeffs = tu_alloc(2 * 16 * 2);
    for (size_t k = 0; k < total; k++) x[k] = (double)(k % 7) - 3.0;

    TU_EXPECT_STATUS(skit_tno_plan_get_parameters(NULL, params, count), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_get_parameters(p, NULL, count), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_get_parameters(p, params, count - 1), SKIT_ESHAPE);
    TU_EXPECT_OK(skit_tno_plan_get_parameters(p, params, count));
    TU_EXPECT_STATUS(skit_tno_plan_set_parameters(NULL, params, count), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_set_parameters(p, NULL, count), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_set_parameters(p, params, count + 1), SKIT_ESHAPE);
    TU_EXPECT_OK(skit_tno_plan_execute(p, x, y0, NULL));
    params[0] = NAN;
    TU_EXPECT_STATUS(skit_tno_plan_set_parameters(p, params, count), SKIT_ENONFINITE);
    /* weights so large that the RPE overflows: the kernels become Inf, the
     * call fails and the plan keeps its old parameters and kernels */
    for (size_t k = 0; k < count; k++) params[k] = 1e308;
    TU_EXPECT_STATUS(skit_tno_plan_set_parameters(p, params, count), SKIT_ENONFINITE);
    TU_EXPECT_OK(skit_tno_plan_execute(p, x, y, NULL));
    ck_assert(tu_rel_error(y, y0, total) == 0.0);
    {
        /* the same where the sweep writes the kernels (width 64, n = 64: per
         * channel, eval=sweep), bidirectional and causal */
        skit_tno_options_default(&o, SKIT_TNO_FFT);
        for (int causal = 0; causal < 2; causal++) {
            o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
            skit_tno_plan *q = NULL;
            TU_EXPECT_OK(skit_tno_plan_create(&q, 64, 2, 1, &o, NULL, 0));
            char text[256];
            skit_tno_plan_describe(q, text, sizeof text);
            ck_assert_msg(strstr(text, "spectra=channels") && strstr(text, "eval=sweep"), "%s", text);
            const size_t qc = skit_tno_plan_parameter_count(q), qt = 64 * 2;
            double *qp = tu_alloc(qc), *qx = tu_alloc(qt), *qy = tu_alloc(qt), *qy0 = tu_alloc(qt);
            for (size_t k = 0; k < qt; k++) qx[k] = (double)(k % 5) - 2.0;
            TU_EXPECT_OK(skit_tno_plan_execute(q, qx, qy0, NULL));
            for (size_t k = 0; k < qc; k++) qp[k] = 1e300;
            TU_EXPECT_STATUS(skit_tno_plan_set_parameters(q, qp, qc), SKIT_ENONFINITE);
            TU_EXPECT_OK(skit_tno_plan_execute(q, qx, qy, NULL));
            ck_assert(tu_rel_error(qy, qy0, qt) == 0.0);
            skit_free(qy0);
            skit_free(qy);
            skit_free(qx);
            skit_free(qp);
            skit_tno_plan_destroy(q);
        }
    }

    TU_EXPECT_STATUS(skit_tno_plan_update(NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_execute(NULL, x, y, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_execute(p, NULL, y, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_execute(p, x, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_execute(p, x, x, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_execute(p, x, x + total - 1, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_forward(NULL, x, y), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_forward(p, x, NULL), SKIT_EINVAL);

    TU_EXPECT_STATUS(skit_tno_plan_coeffs(NULL, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_coeffs(p, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_coeffs(s, coeffs), SKIT_EUNSUPPORTED);
    TU_EXPECT_STATUS(skit_tno_plan_coeffs_reference(NULL, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_coeffs_reference(p, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_coeffs_reference(s, coeffs), SKIT_EUNSUPPORTED);

    TU_EXPECT_STATUS(skit_tno_plan_dense(NULL, 0, T, 16), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_dense(p, 0, NULL, 16), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_dense(p, 2, T, 16), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_tno_plan_dense(s, 0, T, 15), SKIT_ESHAPE);

    TU_EXPECT_STATUS(skit_tno_plan_reference(NULL, x, y, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_reference(p, NULL, y, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_reference(p, x, NULL, NULL), SKIT_EINVAL);
    skit_tno_plan *big = NULL;
    skit_tno_options_default(&o, SKIT_TNO_SKI);
    o.rank = 2;
    o.taps = 1;
    o.knots = 1;
    TU_EXPECT_OK(skit_tno_plan_create(&big, (size_t)1 << 20, 1, 1, &o, NULL, 0));
    TU_EXPECT_STATUS(skit_tno_plan_reference(big, x, y, NULL), SKIT_ETOOBIG);
    skit_tno_plan_destroy(big);

    skit_free(params);
    skit_free(x);
    skit_free(y);
    skit_free(y0);
    skit_free(T);
    skit_free(coeffs);
    skit_tno_plan_destroy(p);
    skit_tno_plan_destroy(s);
}
END_TEST

static Suite *tno_suite(void)
{
    Suite *s = suite_create("tno");
    TCase *tc = tcase_create("tno");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_tno_dense);
    tcase_add_test(tc, test_tno_settings);
    tcase_add_test(tc, test_tno_output_layer_paths);
    tcase_add_test(tc, test_tno_sweep_paths);
    tcase_add_test(tc, test_tno_parameters);
    tcase_add_test(tc, test_tno_properties);
    tcase_add_test(tc, test_ski_dense);
    tcase_add_test(tc, test_ski_settings);
    tcase_add_test(tc, test_ski_auto);
    tcase_add_test(tc, test_ski_parameters);
    tcase_add_test(tc, test_fd_dense);
    tcase_add_test(tc, test_fd_output_layer_paths);
    tcase_add_test(tc, test_fd_sweep_paths);
    tcase_add_test(tc, test_forward_recomputes);
    tcase_add_test(tc, test_f32_matches_f64);
    tcase_add_test(tc, test_f32_wisdom_round_trip);
    tcase_add_test(tc, test_causality);
    tcase_add_test(tc, test_layout_batch);
    tcase_add_test(tc, test_eval_rpe);
    tcase_add_test(tc, test_queries);
    tcase_add_test(tc, test_config_create);
    tcase_add_test(tc, test_config_plan);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(tno_suite()); }
