/* test_freq.c — Hilbert transform, causal kernels, FD-TNO plans, MLP
 * frequency responses and decay analysis, Proposition 1; every documented
 * error code of skit/freq.h. */
#include "config.h"

#include "check_util.h"

static double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* ---- Hilbert transform ---- */

START_TEST(test_hilbert_cos_is_sin)
{
    for (size_t n = 2; n <= 300; n += (n < 40 ? 1 : 37)) {
        double *x = tu_alloc(n), *y = tu_alloc(n);
        for (size_t q = 1; 2 * q < n; q++) {
            for (size_t m = 0; m < n; m++) x[m] = cos(2 * M_PI * (double)(q * m % n) / (double)n);
            tu_poison(y, n);
            TU_EXPECT_OK(skit_hilbert_transform(n, x, y, SKIT_HILBERT_FFT, 0));
            for (size_t m = 0; m < n; m++)
                ck_assert_msg(fabs(y[m] - sin(2 * M_PI * (double)(q * m % n) / (double)n)) < 1e-13,
                              "n=%zu q=%zu m=%zu: H{cos} = %g", n, q, m, y[m]);
            /* H{sin} = -cos */
            for (size_t m = 0; m < n; m++) x[m] = sin(2 * M_PI * (double)(q * m % n) / (double)n);
            TU_EXPECT_OK(skit_hilbert_transform(n, x, y, SKIT_HILBERT_FFT, 0));
            for (size_t m = 0; m < n; m++)
                ck_assert(fabs(y[m] + cos(2 * M_PI * (double)(q * m % n) / (double)n)) < 1e-13);
        }
        /* constants and (even n) the Nyquist alternation map to 0 */
        for (size_t m = 0; m < n; m++) x[m] = 3 + (n % 2 ? 0 : (m % 2 ? -1.0 : 1.0));
        TU_EXPECT_OK(skit_hilbert_transform(n, x, y, SKIT_HILBERT_FFT, 0));
        ck_assert(max_abs(y, n) < 1e-13);
        skit_free(x);
        skit_free(y);
    }
}
END_TEST

/* The float32 transform against the float64 one on the same (float)
 * samples, n = 1..64 and larger sizes incl. primes: within tu_f32_bound
 * with ||H||_2 = 1 (skit/freq.h), outputs poisoned; its errors. */
START_TEST(test_hilbert_f32_matches_f64)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t i = 0; i < 64 + TU_NLARGE + 2; i++) {
        size_t n = i < 64 ? i + 1 : i < 64 + TU_NLARGE ? tu_large_sizes[i - 64] : i == 64 + TU_NLARGE ? 65537 : 100003;
        double *x = tu_random(&rng, n), *y = tu_alloc(n);
        float *x32 = tu_alloc_f32(n), *y32 = tu_alloc_f32(n);
        for (size_t m = 0; m < n; m++) x[m] = x32[m] = (float)x[m];
        TU_EXPECT_OK(skit_hilbert_transform(n, x, y, SKIT_HILBERT_FFT, 0));
        TU_EXPECT_OK(skit_hilbert_transform_f32(n, x32, y32));
        double err = tu_diff_f32(y32, y, n), bound = tu_f32_bound(n, 1.0, tu_norm_f32(x32, n));
        ck_assert_msg(err <= bound, "n %zu: ||y32 - y64|| = %g > bound %g, seed %llu", n, err, bound,
                      (unsigned long long)seed);
        skit_free(x); skit_free(y); skit_free(x32); skit_free(y32);
    }
    float x[4] = {1, 2, 3, 4}, y[4];
    TU_EXPECT_STATUS(skit_hilbert_transform_f32(4, NULL, y), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_hilbert_transform_f32(4, x, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_hilbert_transform_f32(0, x, y), SKIT_EDOM);
    x[2] = NAN;
    TU_EXPECT_STATUS(skit_hilbert_transform_f32(4, x, y), SKIT_ENONFINITE);
}
END_TEST

/* Poisson kernel P(ω) = Σ a^|t| e^{-iωt}: H{P} = 2a sin ω / (1 - 2a cos ω + a²) */
static double poisson(double a, double w) { return (1 - a * a) / (1 - 2 * a * cos(w) + a * a); }
static double poisson_hilbert(double a, double w) { return 2 * a * sin(w) / (1 - 2 * a * cos(w) + a * a); }

START_TEST(test_hilbert_poisson_and_definition_convergence)
{
    double a = 0.5;
    for (size_t n = 64; n <= 1024; n *= 2) {
        double *x = tu_alloc(n), *yf = tu_alloc(n), *yd = tu_alloc(n), *ref = tu_alloc(n);
        for (size_t m = 0; m < n; m++) {
            x[m] = poisson(a, 2 * M_PI * (double)m / (double)n);
            ref[m] = poisson_hilbert(a, 2 * M_PI * (double)m / (double)n);
        }
        TU_EXPECT_OK(skit_hilbert_transform(n, x, yf, SKIT_HILBERT_FFT, 0));
        /* exact up to the aliasing of the sampled kernel, a^(n/2) */
        double tol = 10 * pow(a, (double)n / 2) + 1e-13;
        ck_assert_msg(tu_rel_error(yf, ref, n) < tol, "n=%zu fft vs analytic %g", n, tu_rel_error(yf, ref, n));
        /* the definition converges to the FFT result as the lag window
         * grows: measured error <= n/L (stated tolerance, see freq.h) */
        double prev = INFINITY;
        for (size_t K = 1; K <= 4096; K *= 8) {
            size_t L = K * n / 2;
            tu_poison(yd, n);
            TU_EXPECT_OK(skit_hilbert_transform(n, x, yd, SKIT_HILBERT_DEFINITION, L));
            double e = tu_rel_error(yd, yf, n);
            ck_assert_msg(e <= (double)n / (double)L, "n=%zu L=%zu: definition vs fft %g > n/L", n, L, e);
            ck_assert_msg(e < prev, "n=%zu L=%zu: error %g did not decrease (%g)", n, L, e, prev);
            prev = e;
        }
        ck_assert(prev < 1e-3);
        skit_free(x);
        skit_free(yf);
        skit_free(yd);
        skit_free(ref);
    }
}
END_TEST

/* the folded definition equals the naive double sum, and with one period
 * reproduces the Gibbs partial sum on cos */
START_TEST(test_hilbert_definition_vs_naive)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (size_t n = 1; n <= 40; n++) {
        size_t L = 3 * n + 1;
        double *x = tu_random(&rng, n), *y = tu_alloc(n), *r = tu_alloc(n);
        for (size_t m = 0; m < n; m++) {
            double s = 0;
            for (long l = -(long)L; l <= (long)L; l++) {
                if (l % 2 == 0) continue;
                long idx = ((long)m - l) % (long)n;
                if (idx < 0) idx += (long)n;
                s += 2.0 / (M_PI * (double)l) * x[idx];
            }
            r[m] = s;
        }
        TU_EXPECT_OK(skit_hilbert_transform(n, x, y, SKIT_HILBERT_DEFINITION, L));
        double e = 0;
        for (size_t m = 0; m < n; m++) e = fmax(e, fabs(y[m] - r[m]));
        ck_assert_msg(e < 1e-12 * max_abs(x, n), "n=%zu: %g", n, e);
        skit_free(x);
        skit_free(y);
        skit_free(r);
    }
    /* one period on cos(ω): gain (4/π) Σ_{l odd < n/2} sin(2πl/n)/l -> (2/π) Si(π) */
    size_t n = 512;
    double *x = tu_alloc(n), *y = tu_alloc(n);
    for (size_t m = 0; m < n; m++) x[m] = cos(2 * M_PI * (double)m / (double)n);
    TU_EXPECT_OK(skit_hilbert_transform(n, x, y, SKIT_HILBERT_DEFINITION, 0));
    double gain = 0;
    for (size_t l = 1; 2 * l < n; l += 2) gain += 4 / M_PI * sin(2 * M_PI * (double)l / (double)n) / (double)l;
    for (size_t m = 0; m < n; m++) ck_assert(fabs(y[m] - gain * sin(2 * M_PI * (double)m / (double)n)) < 1e-12);
    ck_assert_msg(fabs(gain - 1.17898) < 1e-3, "Gibbs gain %g", gain);
    skit_free(x);
    skit_free(y);
}
END_TEST

START_TEST(test_causal_kernel_vanishes_at_negative_lags)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    for (size_t n = 2; n <= 2100; n = n < 64 ? n + 1 : n * 2 + 1) {
        /* a random even spectrum x[m] = x[n-m] */
        double *x = tu_random(&rng, n);
        for (size_t m = 1; 2 * m < n; m++) x[n - m] = x[m];
        double *re = tu_alloc(n), *im = tu_alloc(n), *kr = tu_alloc(n), *ki = tu_alloc(n);
        double *er = tu_alloc(n);
        TU_EXPECT_OK(skit_hilbert_causal_spectrum(n, x, SKIT_HILBERT_FFT, 0, re, im));
        ck_assert(memcmp(re, x, n * sizeof(double)) == 0); /* real part kept */
        TU_EXPECT_OK(skit_spectrum_impulse(n, re, im, kr, ki));
        TU_EXPECT_OK(skit_spectrum_impulse(n, x, NULL, er, NULL));
        double scale = fmax(max_abs(kr, n), max_abs(ki, n));
        for (size_t t = 0; t < n; t++) {
            ck_assert_msg(fabs(ki[t]) <= 1e-12 * scale, "n=%zu: imaginary kernel %g", n, ki[t]);
            double want = (2 * t > n) ? 0.0 : (t == 0 || 2 * t == n) ? er[t] : 2 * er[t];
            ck_assert_msg(fabs(kr[t] - want) <= 1e-12 * scale, "n=%zu t=%zu: %g vs %g (seed %llu)", n, t,
                          kr[t], want, (unsigned long long)seed);
        }
        double res;
        TU_EXPECT_OK(skit_causality_residual(n, kr, ki, &res));
        ck_assert_msg(res <= 1e-24, "n=%zu residual %g", n, res);
        skit_free(x);
        skit_free(re);
        skit_free(im);
        skit_free(kr);
        skit_free(ki);
        skit_free(er);
    }
}
END_TEST

START_TEST(test_impulse_and_residual_definitions)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (size_t n = 1; n <= 50; n += 7) {
        double *re = tu_random(&rng, n), *im = tu_random(&rng, n), *kr = tu_alloc(n), *ki = tu_alloc(n);
        TU_EXPECT_OK(skit_spectrum_impulse(n, re, im, kr, ki));
        for (size_t t = 0; t < n; t++) {
            double sr = 0, si = 0;
            for (size_t m = 0; m < n; m++) {
                double ang = 2 * M_PI * (double)(m * t % n) / (double)n;
                sr += re[m] * cos(ang) - im[m] * sin(ang);
                si += re[m] * sin(ang) + im[m] * cos(ang);
            }
            ck_assert(fabs(kr[t] - sr / (double)n) < 1e-12 && fabs(ki[t] - si / (double)n) < 1e-12);
        }
        skit_free(re);
        skit_free(im);
        skit_free(kr);
        skit_free(ki);
    }
    double k[6] = {1, 0, 0, 0, 2, 0}, r; /* n = 6: lags 4, 5 negative; lag 3 causal */
    TU_EXPECT_OK(skit_causality_residual(6, k, NULL, &r));
    ck_assert(fabs(r - 4.0 / 5.0) < 1e-15);
    double k5[5] = {1, 0, 0, 1, 0}; /* n = 5: lags 3, 4 negative */
    TU_EXPECT_OK(skit_causality_residual(5, k5, NULL, &r));
    ck_assert(fabs(r - 0.5) < 1e-15);
}
END_TEST

/* ---- FD-TNO ---- */

/* skit_fdtno_plan_create with these options (the rest the defaults) */
static int fdtno_create(skit_fdtno_plan **plan, size_t n, size_t d, skit_causality causality, size_t fft_length,
                        skit_precision precision)
{
    skit_fdtno_options o;
    skit_fdtno_options_default(&o);
    o.causality = causality;
    o.fft_length = fft_length;
    o.precision = precision;
    return skit_fdtno_plan_create(plan, n, d, &o);
}

/* y_i = Σ_j t_{i-j} x_j, with t_l = k[l mod N] for |l| < n (causal: l >= 0) */
static void toeplitz_ref(size_t n, const double *k, size_t N, int causal, const double *x, double *y)
{
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t j = 0; j < n; j++) {
            if (causal && j > i) continue;
            size_t idx = i >= j ? i - j : N - (j - i);
            s += k[idx] * x[j];
        }
        y[i] = s;
    }
}

static void run_fdtno_case(skit_rng *rng, size_t n, size_t d, skit_causality causality, size_t fft_len)
{
    skit_fdtno_plan *plan;
    TU_EXPECT_OK(fdtno_create(&plan, n, d, causality, fft_len, SKIT_PRECISION_F64));
    size_t N = skit_fdtno_plan_fft_length(plan), half = skit_fdtno_plan_grid_size(plan);
    size_t width = skit_fdtno_plan_response_width(plan);
    ck_assert_uint_eq(half, N / 2 + 1);
    ck_assert(N >= 2 * n && N % 2 == 0);
    if (fft_len == 0) ck_assert((N & (N - 1)) == 0 && N / 2 < 2 * n);
    ck_assert_uint_eq(width, causality == SKIT_CAUSAL ? d : 2 * d);
    double *resp = tu_random(rng, half * width);
    TU_EXPECT_OK(skit_fdtno_plan_set_response(plan, resp));
    double *k = tu_alloc(N * d);
    TU_EXPECT_OK(skit_fdtno_plan_impulse(plan, k, N));
    size_t ldx = n + 3;
    double *x = tu_random(rng, ldx * d), *y = tu_alloc(ldx * d), *r = tu_alloc(n);
    double *work = tu_alloc(skit_fdtno_plan_workspace_bytes(plan) / sizeof(double));
    TU_EXPECT_OK(skit_fdtno_plan_execute(plan, x, ldx, y, ldx, work));
    for (size_t c = 0; c < d; c++) {
        const double *kc = k + c * N;
        if (causality == SKIT_CAUSAL) {
            double s = max_abs(kc, N);
            for (size_t t = N / 2 + 1; t < N; t++)
                ck_assert_msg(fabs(kc[t]) <= 1e-12 * s, "causal kernel at negative lag %zu: %g", t, kc[t]);
        }
        toeplitz_ref(n, kc, N, causality == SKIT_CAUSAL, x + c * ldx, r);
        double e = tu_rel_error(y + c * ldx, r, n);
        ck_assert_msg(e < 1e-12, "n=%zu d=%zu N=%zu %s channel %zu: error %g", n, d, N,
                      causality == SKIT_CAUSAL ? "causal" : "bidirectional", c, e);
    }
    /* in place with the plan's own scratch gives the same */
    double *z = tu_alloc(ldx * d);
    memcpy(z, x, ldx * d * sizeof(double));
    TU_EXPECT_OK(skit_fdtno_plan_execute(plan, z, ldx, z, ldx, NULL));
    for (size_t c = 0; c < d; c++) ck_assert(tu_rel_error(z + c * ldx, y + c * ldx, n) < 1e-14);
    if (causality == SKIT_CAUSAL && n > 1) {
        /* perturbing x[k:] leaves y[:k] unchanged */
        size_t cut = 1 + skit_rng_below(rng, n - 1);
        memcpy(z, x, ldx * d * sizeof(double));
        for (size_t c = 0; c < d; c++)
            for (size_t i = cut; i < n; i++) z[c * ldx + i] = x[c * ldx + i] + 100 * skit_rng_normal(rng);
        TU_EXPECT_OK(skit_fdtno_plan_execute(plan, z, ldx, z, ldx, NULL));
        for (size_t c = 0; c < d; c++) {
            /* rounding of an FFT convolution: eps log N |k|_1 |x|_inf */
            double s = 0;
            for (size_t t = 0; t < N; t++) s += fabs(k[c * N + t]);
            s *= 1e-13 * (max_abs(z + c * ldx, n) + max_abs(x + c * ldx, n));
            for (size_t i = 0; i < cut; i++)
                ck_assert_msg(fabs(z[c * ldx + i] - y[c * ldx + i]) <= s,
                              "n=%zu: y[%zu] changed when x[%zu:] did", n, i, cut);
        }
    }
    skit_free(resp);
    skit_free(k);
    skit_free(x);
    skit_free(y);
    skit_free(r);
    skit_free(z);
    skit_free(work);
    skit_fdtno_plan_destroy(plan);
}

START_TEST(test_fdtno_equals_toeplitz_of_own_impulse)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int causal = 0; causal < 2; causal++) {
        skit_causality cz = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        for (size_t n = 1; n <= 64; n++) run_fdtno_case(&rng, n, 1 + n % 4, cz, 0);
        for (size_t i = 0; i < TU_NLARGE; i++) run_fdtno_case(&rng, tu_large_sizes[i], 2, cz, 0);
        run_fdtno_case(&rng, 37, 3, cz, 74);  /* N = 2n exactly */
        run_fdtno_case(&rng, 37, 3, cz, 150); /* a non power of two */
    }
}
END_TEST

/* The float32 plan against the float64 plan of the same options and
 * response on the same (float) x: the bound of skit_fdtno_plan_execute_f32
 * per channel, the widened float kernels against the float64 ones (the
 * spectra's rounding, (20 log2(2N) + 2) u ||k||_2 at most, causal, and the
 * float inverse transform, 10 log2(2N) u ||k||_2), outputs poisoned, the
 * caller's workspace and the plan's giving the same result, and the
 * refusals of the other precision. */
typedef struct f32_run {
    uint64_t seed; /* for the messages */
    skit_rng rng;
} f32_run;

static void run_fdtno_f32_case(f32_run *run, size_t n, size_t d, skit_causality causality, size_t fft_len,
                               const skit_mlp *mlp)
{
    skit_rng *rng = &run->rng;
    const uint64_t seed = run->seed;
    skit_fdtno_plan *p64, *p32;
    TU_EXPECT_OK(fdtno_create(&p64, n, d, causality, fft_len, SKIT_PRECISION_F64));
    TU_EXPECT_OK(fdtno_create(&p32, n, d, causality, fft_len, SKIT_PRECISION_F32));
    ck_assert_int_eq(skit_fdtno_plan_precision(p64), SKIT_PRECISION_F64);
    ck_assert_int_eq(skit_fdtno_plan_precision(p32), SKIT_PRECISION_F32);
    const size_t N = skit_fdtno_plan_fft_length(p64), half = skit_fdtno_plan_grid_size(p64);
    const size_t width = skit_fdtno_plan_response_width(p64);
    ck_assert_uint_eq(skit_fdtno_plan_fft_length(p32), N);
    ck_assert_uint_eq(skit_fdtno_plan_grid_size(p32), half);
    ck_assert_uint_eq(skit_fdtno_plan_response_width(p32), width);
    double *resp = tu_random(rng, half * width);
    if (mlp) {
        TU_EXPECT_OK(skit_fdtno_plan_set_mlp(p64, mlp));
        TU_EXPECT_OK(skit_fdtno_plan_set_mlp(p32, mlp));
    } else {
        TU_EXPECT_OK(skit_fdtno_plan_set_response(p64, resp));
        TU_EXPECT_OK(skit_fdtno_plan_set_response(p32, resp));
    }
    double *k64 = tu_alloc(N * d), *k32 = tu_alloc(N * d);
    TU_EXPECT_OK(skit_fdtno_plan_impulse(p64, k64, N));
    TU_EXPECT_OK(skit_fdtno_plan_impulse(p32, k32, N));
    const size_t ldx = n + 3, ldy = n + 1;
    double *x = tu_random(rng, ldx * d), *y64 = tu_alloc(ldy * d);
    float *x32 = tu_alloc_f32(ldx * d), *y32 = tu_alloc_f32(ldy * d), *z32 = tu_alloc_f32(ldy * d);
    for (size_t i = 0; i < ldx * d; i++) x[i] = x32[i] = (float)x[i];
    void *work = skit_malloc(skit_fdtno_plan_workspace_bytes(p32) + 1, 1);
    ck_assert_ptr_nonnull(work);
    ck_assert(skit_fdtno_plan_workspace_bytes(p32) <= skit_fdtno_plan_workspace_bytes(p64));
    TU_EXPECT_OK(skit_fdtno_plan_execute(p64, x, ldx, y64, ldy, NULL));
    TU_EXPECT_OK(skit_fdtno_plan_execute_f32(p32, x32, ldx, y32, ldy, work));
    TU_EXPECT_OK(skit_fdtno_plan_execute_f32(p32, x32, ldx, z32, ldy, NULL));
    const double u = TU_U32, lg = 20.0 * log2(2.0 * (double)N);
    for (size_t c = 0; c < d; c++) {
        const double *kc = k64 + c * N;
        double k1 = 0, k2 = 0, xn = 0;
        for (size_t t = 0; t < N; t++) k1 += fabs(kc[t]), k2 += kc[t] * kc[t];
        k2 = sqrt(k2);
        for (size_t i = 0; i < n; i++) xn += x[c * ldx + i] * x[c * ldx + i];
        xn = sqrt(xn);
        double S = causality == SKIT_CAUSAL ? (lg + 2) * sqrt((double)n) * k2 : k1;
        double bound = u * (lg * k1 + S) * xn;
        double err = tu_diff_f32(y32 + c * ldy, y64 + c * ldy, n);
        ck_assert_msg(err <= bound, "n %zu d %zu N %zu %s%s channel %zu: ||y32 - y64|| = %g > bound %g, seed %llu",
                      n, d, N, causality == SKIT_CAUSAL ? "causal" : "bidirectional", mlp ? " mlp" : "", c, err,
                      bound, (unsigned long long)seed);
        ck_assert(isnan(y32[c * ldy + n])); /* padding untouched */
        ck_assert(memcmp(y32 + c * ldy, z32 + c * ldy, n * sizeof *y32) == 0);
        double kerr = 0;
        for (size_t t = 0; t < N; t++) kerr += (k32[c * N + t] - kc[t]) * (k32[c * N + t] - kc[t]);
        kerr = sqrt(kerr);
        ck_assert_msg(kerr <= (1.5 * lg + 2) * u * k2, "n %zu N %zu channel %zu: ||k32 - k64|| = %g > %g, seed %llu",
                      n, N, c, kerr, (1.5 * lg + 2) * u * k2, (unsigned long long)seed);
    }
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(p32, x, ldx, y64, ldy, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute_f32(p64, x32, ldx, y32, ldy, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute_f32(p32, x32, n - 1, y32, ldy, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute_f32(p32, x32, ldx, y32, n - 1, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute_f32(p32, NULL, ldx, y32, ldy, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute_f32(NULL, x32, ldx, y32, ldy, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute_f32(p32, x32, ldx, y32, ldy, (char *)work + 4), SKIT_EINVAL);
    skit_free(work);
    skit_free(resp); skit_free(k64); skit_free(k32); skit_free(x); skit_free(y64);
    skit_free(x32); skit_free(y32); skit_free(z32);
    skit_fdtno_plan_destroy(p64);
    skit_fdtno_plan_destroy(p32);
}

/* The rows layout against the columns layout (checked against the
 * Toeplitz product of the plan's own impulse above) on the same response:
 * both precisions and causalities, odd and prime n, rows with a leading
 * dimension beyond d whose gaps must keep their poison, and in place. */
static void fdtno_rows_case(skit_rng *rng, size_t n, size_t d, skit_causality causality, int f32)
{
    skit_fdtno_options o;
    skit_fdtno_options_default(&o);
    o.causality = causality;
    o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
    skit_fdtno_plan *pc = NULL, *pr = NULL;
    TU_EXPECT_OK(skit_fdtno_plan_create(&pc, n, d, &o));
    o.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_fdtno_plan_create(&pr, n, d, &o));
    double *resp = tu_random(rng, skit_fdtno_plan_grid_size(pc) * skit_fdtno_plan_response_width(pc));
    TU_EXPECT_OK(skit_fdtno_plan_set_response(pc, resp));
    TU_EXPECT_OK(skit_fdtno_plan_set_response(pr, resp));
    const size_t ld = d + 2;
    float *xc = tu_alloc_f32(n * d), *yc = tu_alloc_f32(n * d), *xr = tu_alloc_f32(n * ld), *yr = tu_alloc_f32(n * ld);
    double *dxc = tu_random(rng, n * d), *dyc = tu_alloc(n * d), *dxr = tu_alloc(n * ld), *dyr = tu_alloc(n * ld);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < d; c++) dxr[i * ld + c] = xr[i * ld + c] = xc[c * n + i] = (float)dxc[c * n + i];
    for (size_t i = 0; i < n * d; i++) dxc[i] = xc[i];
    if (f32) {
        TU_EXPECT_OK(skit_fdtno_plan_execute_f32(pc, xc, n, yc, n, NULL));
        TU_EXPECT_OK(skit_fdtno_plan_execute_f32(pr, xr, ld, yr, ld, NULL));
        TU_EXPECT_OK(skit_fdtno_plan_execute_f32(pr, xr, ld, xr, ld, NULL)); /* in place */
    } else {
        TU_EXPECT_OK(skit_fdtno_plan_execute(pc, dxc, n, dyc, n, NULL));
        TU_EXPECT_OK(skit_fdtno_plan_execute(pr, dxr, ld, dyr, ld, NULL));
        TU_EXPECT_OK(skit_fdtno_plan_execute(pr, dxr, ld, dxr, ld, NULL));
    }
    double scale = 0, worst = 0;
    for (size_t i = 0; i < n * d; i++) scale = fmax(scale, fabs(f32 ? yc[i] : dyc[i]));
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < d; c++) {
            double want = f32 ? yc[c * n + i] : dyc[c * n + i];
            double got = f32 ? yr[i * ld + c] : dyr[i * ld + c], inplace = f32 ? xr[i * ld + c] : dxr[i * ld + c];
            worst = fmax(worst, fmax(fabs(got - want), fabs(inplace - want)));
            if (worst != worst) worst = INFINITY;
        }
        for (size_t c = d; c < ld; c++)
            ck_assert_msg(f32 ? isnan(yr[i * ld + c]) : isnan(dyr[i * ld + c]), "n=%zu: a row gap was written", n);
    }
    ck_assert_msg(worst <= (f32 ? 1e-6 : 1e-14) * (double)n * fmax(scale, 1e-300),
                  "n=%zu d=%zu %s f32=%d: rows off by %g of %g", n, d, causality == SKIT_CAUSAL ? "causal" : "bidir",
                  f32, worst, scale);
    skit_free(resp);
    skit_free(xc);
    skit_free(yc);
    skit_free(xr);
    skit_free(yr);
    skit_free(dxc);
    skit_free(dyc);
    skit_free(dxr);
    skit_free(dyr);
    skit_fdtno_plan_destroy(pc);
    skit_fdtno_plan_destroy(pr);
}

START_TEST(test_fdtno_rows_layout)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t sizes[][2] = {{1, 1}, {2, 3}, {7, 5}, {31, 8}, {64, 17}, {97, 4}, {257, 33}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int f32 = 0; f32 < 2; f32++)
            for (int causal = 0; causal < 2; causal++)
                fdtno_rows_case(&rng, sizes[s][0], sizes[s][1], causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL, f32);
    skit_fdtno_plan *p = NULL;
    skit_fdtno_options o;
    skit_fdtno_options_default(&o);
    o.layout = (skit_layout)5;
    TU_EXPECT_STATUS(skit_fdtno_plan_create(&p, 4, 1, &o), SKIT_EINVAL);
    o.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_fdtno_plan_create(&p, 4, 3, &o));
    double x[12] = {0}, y[12];
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(p, x, 2, y, 3, NULL), SKIT_ESHAPE);
    TU_EXPECT_OK(skit_fdtno_plan_execute(p, x, 3, y, 3, NULL));
    skit_fdtno_plan_destroy(p);
}
END_TEST

START_TEST(test_fdtno_f32_matches_f64)
{
    f32_run run = {.seed = tu_seed()};
    skit_rng_seed(&run.rng, run.seed);
    const size_t d_mlp = 6;
    for (int causal = 0; causal < 2; causal++) {
        const skit_causality cz = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        /* every n <= 64, the large sizes (odd, prime), a prime past them */
        for (size_t i = 0; i < 64 + TU_NLARGE + 1; i++) {
            size_t n = i < 64 ? i + 1 : i < 64 + TU_NLARGE ? tu_large_sizes[i - 64] : 4099;
            run_fdtno_f32_case(&run, n, i < 64 ? 1 + n % 4 : 3, cz, 0, NULL);
        }
        run_fdtno_f32_case(&run, 37, 3, cz, 74, NULL);  /* N = 2n exactly */
        run_fdtno_f32_case(&run, 37, 3, cz, 150, NULL); /* a non power of two */
        run_fdtno_f32_case(&run, 331, 5, cz, 1386, NULL);
        /* an RPE's smooth response, as a layer sets it */
        skit_mlp *mlp = NULL;
        TU_EXPECT_OK(skit_mlp_create(&mlp, 1, 16, 2, causal ? d_mlp : 2 * d_mlp, SKIT_ACTIVATION_GELU,
                                     SKIT_NORM_RMS, run.seed));
        run_fdtno_f32_case(&run, 1000, d_mlp, cz, 0, mlp);
        run_fdtno_f32_case(&run, 2039, d_mlp, cz, 0, mlp);
        skit_mlp_destroy(mlp);
    }
}
END_TEST

/* A float32 plan holds the float engine alone (float spectra, fftwf
 * scratch); variant 0 bidirectional, 1 causal. */
static size_t fdtno_bytes(size_t n, size_t d, int variant, skit_precision precision)
{
    skit_fdtno_plan *plan;
    TU_EXPECT_OK(fdtno_create(&plan, n, d, variant ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL, 0, precision));
    size_t bytes = skit_fdtno_plan_bytes(plan);
    skit_fdtno_plan_destroy(plan);
    return bytes;
}

START_TEST(test_fdtno_f32_plan_bytes)
{
    tu_f32_bytes_sweep("FD-TNO", 2, fdtno_bytes);
}
END_TEST

START_TEST(test_fdtno_causal_spectrum_is_hilbert)
{
    /* The plan's causal kernel spectrum is R - i·H{R} of the even spectrum */
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 50, d = 2;
    skit_fdtno_plan *plan;
    TU_EXPECT_OK(fdtno_create(&plan, n, d, SKIT_CAUSAL, 0, SKIT_PRECISION_F64));
    size_t N = skit_fdtno_plan_fft_length(plan), half = N / 2 + 1;
    double *resp = tu_random(&rng, half * d), *k = tu_alloc(N * d);
    TU_EXPECT_OK(skit_fdtno_plan_set_response(plan, resp));
    TU_EXPECT_OK(skit_fdtno_plan_impulse(plan, k, N));
    for (size_t c = 0; c < d; c++) {
        double *full = tu_alloc(N), *re = tu_alloc(N), *im = tu_alloc(N), *kr = tu_alloc(N);
        for (size_t m = 0; m < half; m++) full[m] = resp[m * d + c];
        for (size_t m = half; m < N; m++) full[m] = full[N - m];
        TU_EXPECT_OK(skit_hilbert_causal_spectrum(N, full, SKIT_HILBERT_FFT, 0, re, im));
        TU_EXPECT_OK(skit_spectrum_impulse(N, re, im, kr, NULL));
        ck_assert(tu_rel_error(k + c * N, kr, N) < 1e-12);
        skit_free(full);
        skit_free(re);
        skit_free(im);
        skit_free(kr);
    }
    skit_free(resp);
    skit_free(k);
    skit_fdtno_plan_destroy(plan);
}
END_TEST

START_TEST(test_fdtno_bidirectional_real_at_0_and_pi)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 40, d = 3;
    skit_fdtno_plan *plan;
    TU_EXPECT_OK(fdtno_create(&plan, n, d, SKIT_BIDIRECTIONAL, 0, SKIT_PRECISION_F64));
    size_t N = skit_fdtno_plan_fft_length(plan), half = N / 2 + 1, w = 2 * d;
    double *resp = tu_random(&rng, half * w), *k = tu_alloc(N * d);
    TU_EXPECT_OK(skit_fdtno_plan_set_response(plan, resp));
    TU_EXPECT_OK(skit_fdtno_plan_impulse(plan, k, N));
    for (size_t c = 0; c < d; c++) {
        /* DFT of the kernel: R + iI inside, R (imaginary part 0) at 0 and π */
        for (size_t m = 0; m < half; m++) {
            double sr = 0, si = 0;
            for (size_t t = 0; t < N; t++) {
                double ang = -2 * M_PI * (double)(m * t % N) / (double)N;
                sr += k[c * N + t] * cos(ang);
                si += k[c * N + t] * sin(ang);
            }
            double want_im = (m == 0 || m == half - 1) ? 0.0 : resp[m * w + d + c];
            ck_assert(fabs(sr - resp[m * w + c]) < 1e-12 && fabs(si - want_im) < 1e-12);
        }
    }
    /* the imaginary inputs at 0 and π are ignored */
    double *x = tu_random(&rng, n * d), *y1 = tu_alloc(n * d), *y2 = tu_alloc(n * d);
    TU_EXPECT_OK(skit_fdtno_plan_execute(plan, x, n, y1, n, NULL));
    for (size_t c = 0; c < d; c++) {
        resp[0 * w + d + c] = 1e3;
        resp[(half - 1) * w + d + c] = -7;
    }
    TU_EXPECT_OK(skit_fdtno_plan_set_response(plan, resp));
    TU_EXPECT_OK(skit_fdtno_plan_execute(plan, x, n, y2, n, NULL));
    ck_assert(memcmp(y1, y2, n * d * sizeof(double)) == 0);
    skit_free(resp);
    skit_free(k);
    skit_free(x);
    skit_free(y1);
    skit_free(y2);
    skit_fdtno_plan_destroy(plan);
}
END_TEST

START_TEST(test_fdtno_set_mlp_and_errors)
{
    skit_fdtno_plan *plan = (skit_fdtno_plan *)1;
    TU_EXPECT_STATUS(fdtno_create(NULL, 4, 1, SKIT_CAUSAL, 0, SKIT_PRECISION_F64), SKIT_EINVAL);
    TU_EXPECT_STATUS(fdtno_create(&plan, 0, 1, SKIT_CAUSAL, 0, SKIT_PRECISION_F64), SKIT_EDOM);
    ck_assert_ptr_null(plan);
    TU_EXPECT_STATUS(fdtno_create(&plan, 4, 0, SKIT_CAUSAL, 0, SKIT_PRECISION_F64), SKIT_EDOM);
    TU_EXPECT_STATUS(fdtno_create(&plan, 4, 1, (skit_causality)5, 0, SKIT_PRECISION_F64), SKIT_EINVAL);
    TU_EXPECT_STATUS(fdtno_create(&plan, 4, 1, SKIT_CAUSAL, 7, SKIT_PRECISION_F64), SKIT_EDOM);
    TU_EXPECT_STATUS(fdtno_create(&plan, 4, 1, SKIT_CAUSAL, 6, SKIT_PRECISION_F64), SKIT_EDOM);
    TU_EXPECT_STATUS(fdtno_create(&plan, 4, 1, SKIT_CAUSAL, 0, (skit_precision)7), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_create(&plan, 4, 1, &(skit_fdtno_options){.planner = (skit_planner)99}),
                     SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    skit_fdtno_options_default(NULL);
    ck_assert_int_eq(skit_fdtno_plan_precision(NULL), SKIT_PRECISION_F64);
    TU_EXPECT_OK(skit_fdtno_plan_create(&plan, 5, 2, NULL)); /* the defaults: bidirectional, N = 16 */
    ck_assert_uint_eq(skit_fdtno_plan_response_width(plan), 4);
    ck_assert_uint_eq(skit_fdtno_plan_fft_length(plan), 16);
    skit_fdtno_plan_destroy(plan);
    TU_EXPECT_STATUS(fdtno_create(&plan, 1u << 20, (size_t)1 << 30, SKIT_CAUSAL, 0, SKIT_PRECISION_F64),
                     SKIT_ETOOBIG);
    TU_EXPECT_STATUS(fdtno_create(&plan, 4, SIZE_MAX / 4, SKIT_CAUSAL, 0, SKIT_PRECISION_F64),
                     SKIT_EOVERFLOW);

    size_t n = 20, d = 3;
    TU_EXPECT_OK(fdtno_create(&plan, n, d, SKIT_BIDIRECTIONAL, 0, SKIT_PRECISION_F64));
    skit_mlp *mlp, *bad;
    TU_EXPECT_OK(skit_mlp_create(&mlp, 1, 16, 2, 2 * d, SKIT_ACTIVATION_GELU, SKIT_NORM_RMS, tu_seed()));
    TU_EXPECT_OK(skit_mlp_create(&bad, 1, 16, 2, d, SKIT_ACTIVATION_GELU, SKIT_NORM_RMS, 1));
    TU_EXPECT_STATUS(skit_fdtno_plan_set_mlp(plan, bad), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_fdtno_plan_set_mlp(plan, NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_fdtno_plan_set_mlp(plan, mlp));
    size_t half = skit_fdtno_plan_grid_size(plan);
    double *omega = tu_alloc(half), *resp = tu_alloc(half * 2 * d);
    TU_EXPECT_OK(skit_fdtno_plan_grid(plan, omega));
    ck_assert(omega[0] == 0 && fabs(omega[half - 1] - M_PI) < 1e-15);
    TU_EXPECT_OK(skit_mlp_eval(mlp, half, omega, resp, NULL));
    double *x = tu_alloc(n * d), *y1 = tu_alloc(n * d), *y2 = tu_alloc(n * d);
    for (size_t i = 0; i < n * d; i++) x[i] = sin((double)i);
    TU_EXPECT_OK(skit_fdtno_plan_execute(plan, x, n, y1, n, NULL));
    TU_EXPECT_OK(skit_fdtno_plan_set_response(plan, resp));
    TU_EXPECT_OK(skit_fdtno_plan_execute(plan, x, n, y2, n, NULL));
    ck_assert(memcmp(y1, y2, n * d * sizeof(double)) == 0);
    resp[5] = NAN;
    TU_EXPECT_STATUS(skit_fdtno_plan_set_response(plan, resp), SKIT_ENONFINITE);
    TU_EXPECT_OK(skit_fdtno_plan_execute(plan, x, n, y2, n, NULL));
    ck_assert(memcmp(y1, y2, n * d * sizeof(double)) == 0); /* old kernels kept */
    TU_EXPECT_STATUS(skit_fdtno_plan_set_response(plan, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(plan, x, n - 1, y2, n, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(plan, x, n, y2, n - 1, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(NULL, x, n, y2, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(plan, NULL, n, y2, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(plan, x, n, NULL, n, NULL), SKIT_EINVAL);
    double *work = tu_alloc(skit_fdtno_plan_workspace_bytes(plan) / sizeof(double) + 1);
    TU_EXPECT_STATUS(skit_fdtno_plan_execute(plan, x, n, y2, n, work + 1), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_fdtno_plan_impulse(plan, y2, skit_fdtno_plan_fft_length(plan) - 1),
                     SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_fdtno_plan_grid(plan, NULL), SKIT_EINVAL);
    ck_assert_uint_eq(skit_fdtno_plan_fft_length(NULL), 0);
    skit_free(work);
    skit_free(omega);
    skit_free(resp);
    skit_free(x);
    skit_free(y1);
    skit_free(y2);
    skit_mlp_destroy(mlp);
    skit_mlp_destroy(bad);
    skit_fdtno_plan_destroy(plan);
    skit_fdtno_plan_destroy(NULL);
}
END_TEST

/* ---- responses, impulses, derivative norms ---- */

static const skit_freq_construction constructions[] = {SKIT_FREQ_HALF_CIRCLE, SKIT_FREQ_FULL_CIRCLE,
                                                       SKIT_FREQ_PERIODIC};

START_TEST(test_freq_impulse_vs_naive_dft)
{
    uint64_t seed = tu_seed();
    for (int ci = 0; ci < 3; ci++) {
        skit_freq_construction con = constructions[ci];
        size_t in = con == SKIT_FREQ_PERIODIC ? 2 : 1, d = 3, N = 64;
        skit_mlp *m;
        TU_EXPECT_OK(skit_mlp_create(&m, in, 12, 1, d, SKIT_ACTIVATION_SILU, SKIT_NORM_LAYER, seed));
        double *kr = tu_alloc(N * d), *ki = tu_alloc(N * d), *samples = tu_alloc(N * d);
        TU_EXPECT_OK(skit_freq_impulse(m, con, N, kr, ki));
        TU_EXPECT_OK(skit_freq_circle_samples(m, con, N, samples));
        /* naive: k[t] = (1/N) Σ_m k̂(ω_m) e^{iω_m t} on the construction's grid */
        for (size_t c = 0; c < d; c++) {
            for (size_t t = 0; t < N; t++) {
                double sr = 0, si = 0;
                for (size_t mm = 0; mm <= N; mm++) {
                    double w, f[3], v;
                    if (con == SKIT_FREQ_FULL_CIRCLE) w = -M_PI + 2 * M_PI * (double)mm / (double)N;
                    else w = 2 * M_PI * (double)mm / (double)N;
                    if (mm == N && con != SKIT_FREQ_FULL_CIRCLE) break;
                    double xin[2] = {w, 0};
                    if (con == SKIT_FREQ_HALF_CIRCLE && w > M_PI) xin[0] = 2 * M_PI - w;
                    if (con == SKIT_FREQ_PERIODIC) {
                        xin[0] = cos(w);
                        xin[1] = sin(w);
                    }
                    TU_EXPECT_OK(skit_mlp_eval(m, 1, xin, f, NULL));
                    v = f[c];
                    /* trapezoid: half weight at both ends of [-π, π] */
                    double wt = (con == SKIT_FREQ_FULL_CIRCLE && (mm == 0 || mm == N)) ? 0.5 : 1.0;
                    sr += wt * v * cos(w * (double)t);
                    si += wt * v * sin(w * (double)t);
                    if (mm < N) ck_assert(con == SKIT_FREQ_FULL_CIRCLE && mm == 0 ? 1 : fabs(samples[c * N + mm] - v) < 1e-14);
                }
                ck_assert_msg(fabs(kr[c * N + t] - sr / (double)N) < 1e-12 &&
                                  fabs(ki[c * N + t] - si / (double)N) < 1e-12,
                              "construction %d channel %zu lag %zu: (%g, %g) vs (%g, %g)", ci, c, t,
                              kr[c * N + t], ki[c * N + t], sr / (double)N, si / (double)N);
            }
            double pd;
            TU_EXPECT_OK(skit_parseval_difference(N, samples + c * N, NULL, kr + c * N, ki + c * N, &pd));
            ck_assert_msg(pd <= 1e-10, "Parseval %g", pd);
        }
        skit_free(kr);
        skit_free(ki);
        skit_free(samples);
        skit_mlp_destroy(m);
    }
}
END_TEST

START_TEST(test_parseval_continuous_for_periodic)
{
    /* smooth periodic responses: Σ|k|² equals (1/2π)∫|k̂|² to 1e-10 */
    uint64_t seed = tu_seed();
    for (int act = 1; act < 3; act++) {
        skit_mlp *m;
        size_t d = 4, N = 1024;
        TU_EXPECT_OK(skit_mlp_create(&m, 2, 32, 2, d, act, SKIT_NORM_NONE, seed));
        double *kr = tu_alloc(N * d), *ki = tu_alloc(N * d), e[4];
        TU_EXPECT_OK(skit_freq_impulse(m, SKIT_FREQ_PERIODIC, N, kr, ki));
        TU_EXPECT_OK(skit_freq_energy(m, SKIT_FREQ_PERIODIC, 4096, e));
        for (size_t c = 0; c < d; c++) {
            double s = 0;
            for (size_t t = 0; t < N; t++) s += kr[c * N + t] * kr[c * N + t] + ki[c * N + t] * ki[c * N + t];
            ck_assert_msg(fabs(s - e[c]) <= 1e-10 * e[c], "channel %zu: %.17g vs %.17g", c, s, e[c]);
        }
        skit_free(kr);
        skit_free(ki);
        skit_mlp_destroy(m);
    }
}
END_TEST

static double gelu_d(double u, int k)
{
    double phi = exp(-u * u / 2) / sqrt(2 * M_PI), Phi = 0.5 * erfc(-u / sqrt(2.0));
    switch (k) {
    case 0: return u * Phi;
    case 1: return Phi + u * phi;
    case 2: return phi * (2 - u * u);
    case 3: return phi * (u * u * u - 4 * u);
    default: return phi * (-u * u * u * u + 7 * u * u - 4);
    }
}

START_TEST(test_derivative_norm_closed_forms)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t nodes = 1000;
    for (int trial = 0; trial < 5; trial++) {
        /* width 1: f(ω) = w2 gelu(w1 ω + b1) + b2 */
        skit_mlp *m;
        TU_EXPECT_OK(skit_mlp_create(&m, 1, 1, 0, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 0));
        double p[4];
        for (int i = 0; i < 4; i++) p[i] = skit_rng_uniform_range(&rng, -1.5, 1.5);
        TU_EXPECT_OK(skit_mlp_set_parameters(m, p, 4));
        for (int ci = 0; ci < 2; ci++) {
            skit_freq_construction con = constructions[ci];
            double all[5];
            TU_EXPECT_OK(skit_freq_derivative_norms(m, con, 4, nodes, all));
            for (size_t order = 0; order <= 4; order++) {
                double got = all[order], want = 0;
                double lo = con == SKIT_FREQ_HALF_CIRCLE ? 0 : -M_PI, width = con == SKIT_FREQ_HALF_CIRCLE ? M_PI : 2 * M_PI;
                double h = width / (double)nodes;
                for (size_t j = 0; j < nodes; j++) {
                    double w = lo + h * ((double)j + 0.5);
                    want += fabs(p[2] * pow(p[0], (double)order) * gelu_d(p[0] * w + p[1], (int)order) +
                                 (order == 0 ? p[3] : 0));
                }
                want *= h * (con == SKIT_FREQ_HALF_CIRCLE ? 2 : 1);
                ck_assert_msg(fabs(got - want) <= 1e-12 * (want + 1e-300), "order %zu: %g vs %g", order, got, want);
            }
        }
        skit_mlp_destroy(m);
        /* periodic, first order: d/dω gelu(a cos ω + b sin ω + c) */
        TU_EXPECT_OK(skit_mlp_create(&m, 2, 1, 0, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 0));
        double q[5];
        for (int i = 0; i < 5; i++) q[i] = skit_rng_uniform_range(&rng, -1.5, 1.5);
        TU_EXPECT_OK(skit_mlp_set_parameters(m, q, 5));
        double two[2], want = 0, h = 2 * M_PI / (double)nodes;
        TU_EXPECT_OK(skit_freq_derivative_norms(m, SKIT_FREQ_PERIODIC, 1, nodes, two));
        double got = two[1];
        for (size_t j = 0; j < nodes; j++) {
            double w = -M_PI + h * ((double)j + 0.5);
            double u = q[0] * cos(w) + q[1] * sin(w) + q[2];
            want += fabs(q[3] * gelu_d(u, 1) * (-q[0] * sin(w) + q[1] * cos(w)));
        }
        want *= h;
        ck_assert_msg(fabs(got - want) <= 1e-12 * want, "periodic order 1: %g vs %g", got, want);
        skit_mlp_destroy(m);
    }
}
END_TEST

/* Theorem 3 / Proposition 4 is a true inequality for a periodic smooth
 * response: check the pipeline never violates it. */
START_TEST(test_theorem3_bound_holds_for_periodic_silu)
{
    uint64_t seed = tu_seed();
    size_t d = 3, N = 2048;
    skit_mlp *m;
    TU_EXPECT_OK(skit_mlp_create(&m, 2, 16, 2, d, SKIT_ACTIVATION_SILU, SKIT_NORM_LAYER, seed));
    double *kr = tu_alloc(N * d), *ki = tu_alloc(N * d), all[6 * 3];
    TU_EXPECT_OK(skit_freq_impulse(m, SKIT_FREQ_PERIODIC, N, kr, ki));
    TU_EXPECT_OK(skit_freq_derivative_norms(m, SKIT_FREQ_PERIODIC, 5, 8192, all));
    for (size_t order = 1; order <= 5; order++) {
        const double *norms = all + order * d;
        for (size_t c = 0; c < d; c++)
            for (size_t t = 1; t < N / 4; t++) {
                double mag = hypot(kr[c * N + t], ki[c * N + t]);
                double bound = skit_decay_bound(norms[c], order, t);
                ck_assert_msg(mag <= bound * (1 + 1e-6) + 1e-13, "N=%zu n=%zu: |k|=%g > bound %g (seed %llu)",
                              order, t, mag, bound, (unsigned long long)seed);
            }
    }
    skit_free(kr);
    skit_free(ki);
    skit_mlp_destroy(m);
}
END_TEST

START_TEST(test_decay_fit_synthetic)
{
    size_t n = 200;
    double *m = tu_alloc(n);
    skit_decay_fit fit;
    for (size_t i = 0; i < n; i++) m[i] = 3 * exp(-0.3 * (double)i) * (i % 3 == 1 ? 0.5 : 1);
    TU_EXPECT_OK(skit_decay_fit_magnitudes(n, m, 1, 100, 0, &fit));
    ck_assert_msg(fabs(fit.exp_rate - 0.3) < 1e-3, "rate %g", fit.exp_rate);
    ck_assert_int_eq(skit_decay_classify(&fit), SKIT_DECAY_EXPONENTIAL);
    /* the floor cuts the range */
    TU_EXPECT_OK(skit_decay_fit_magnitudes(n, m, 1, 150, 1e-10, &fit));
    ck_assert_msg(fit.n_hi <= 81 && fit.n_hi >= 75, "n_hi %zu", fit.n_hi);
    for (size_t i = 0; i < n; i++) m[i] = i ? 5 / ((double)i * (double)i) * (i % 2 ? 1 : -0.3) : 0;
    TU_EXPECT_OK(skit_decay_fit_magnitudes(n, m, 2, 199, 0, &fit));
    ck_assert_msg(fabs(fit.poly_exponent - 2) < 0.05, "exponent %g", fit.poly_exponent);
    ck_assert_int_eq(skit_decay_classify(&fit), SKIT_DECAY_POLYNOMIAL);
    for (size_t i = 0; i < n; i++) m[i] = exp(-(double)(i * i) / 20.0);
    TU_EXPECT_OK(skit_decay_fit_magnitudes(n, m, 1, 30, 1e-300, &fit));
    ck_assert_int_eq(skit_decay_classify(&fit), SKIT_DECAY_SUPEREXPONENTIAL);
    TU_EXPECT_OK(skit_decay_fit_magnitudes(n, m, 1, 30, 1.0, &fit));
    ck_assert_uint_eq(fit.points, 0);
    ck_assert_int_eq(skit_decay_classify(&fit), SKIT_DECAY_UNDETERMINED);
    ck_assert_str_eq(skit_decay_class_name(SKIT_DECAY_POLYNOMIAL), "polynomial");
    TU_EXPECT_STATUS(skit_decay_fit_magnitudes(n, m, 0, 30, 0, &fit), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_decay_fit_magnitudes(n, m, 5, 5, 0, &fit), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_decay_fit_magnitudes(n, m, 5, n, 0, &fit), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_decay_fit_magnitudes(n, m, 5, 50, -1, &fit), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_decay_fit_magnitudes(n, NULL, 5, 50, 0, &fit), SKIT_EINVAL);
    m[10] = NAN;
    TU_EXPECT_STATUS(skit_decay_fit_magnitudes(n, m, 5, 50, 0, &fit), SKIT_ENONFINITE);
    skit_free(m);
    ck_assert(isinf(skit_decay_bound(1, 2, 0)));
    ck_assert(fabs(skit_decay_bound(2 * M_PI, 0, 0) - 1) < 1e-15); /* Lemma 6 */
    ck_assert(fabs(skit_decay_bound(2 * M_PI, 0, 7) - 1) < 1e-15);
    ck_assert(fabs(skit_decay_bound(2 * M_PI, 2, 3) - 1.0 / 9) < 1e-15);
}
END_TEST

/* ---- Proposition 1 ---- */

START_TEST(test_relu_piecewise_linear)
{
    uint64_t seed = tu_seed();
    /* one unit: the single breakpoint is -b1/w1 */
    skit_mlp *m;
    TU_EXPECT_OK(skit_mlp_create(&m, 1, 1, 0, 1, SKIT_ACTIVATION_RELU, SKIT_NORM_NONE, 0));
    double p[4] = {1.7, -0.9, 2.0, 0.1}, br[64];
    size_t count;
    TU_EXPECT_OK(skit_mlp_set_parameters(m, p, 4));
    TU_EXPECT_OK(skit_relu_breakpoints(m, -M_PI, M_PI, 7, br, 64, &count));
    ck_assert_uint_eq(count, 1);
    ck_assert_msg(fabs(br[0] - 0.9 / 1.7) < 1e-13, "break %.17g", br[0]);
    skit_mlp_destroy(m);

    for (int norm = 0; norm < 3; norm++) {
        TU_EXPECT_OK(skit_mlp_create(&m, 1, 16, 2, 3, SKIT_ACTIVATION_RELU, norm, seed));
        size_t cap = 4096;
        double *breaks = tu_alloc(cap), err, err_grid;
        TU_EXPECT_OK(skit_relu_breakpoints(m, -M_PI, M_PI, 2000, breaks, cap, &count));
        ck_assert_uint_gt(count, 0);
        for (size_t i = 1; i < count; i++) ck_assert(breaks[i] > breaks[i - 1]);
        TU_EXPECT_OK(skit_pwl_interpolation_error(m, -M_PI, M_PI, breaks, count, 5, &err));
        TU_EXPECT_OK(skit_pwl_interpolation_error(m, -M_PI, M_PI, NULL, 0, 200, &err_grid));
        if (norm == SKIT_NORM_NONE) {
            ck_assert_msg(err < 1e-12, "no norm: interpolation through %zu breaks off by %g (seed %llu)", count,
                          err, (unsigned long long)seed);
            ck_assert(err_grid > 1e-6);
        } else {
            /* LayerNorm / RMS norm divide by a data-dependent scale: not
             * piecewise linear (Proposition 1 with layer norm fails) */
            ck_assert_msg(err > 1e-9, "norm %d: interpolation error only %g", norm, err);
        }
        if (count > 1) TU_EXPECT_STATUS(skit_relu_breakpoints(m, -M_PI, M_PI, 2000, breaks, 1, &count), SKIT_ESHAPE);
        skit_free(breaks);
        skit_mlp_destroy(m);
    }
}
END_TEST

START_TEST(test_decay_config_errors)
{
    skit_mlp *m1, *m2, *gelu;
    TU_EXPECT_OK(skit_mlp_create(&m1, 1, 4, 1, 2, SKIT_ACTIVATION_RELU, SKIT_NORM_NONE, 1));
    TU_EXPECT_OK(skit_mlp_create(&m2, 2, 4, 1, 2, SKIT_ACTIVATION_SILU, SKIT_NORM_NONE, 1));
    TU_EXPECT_OK(skit_mlp_create(&gelu, 1, 4, 1, 2, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 1));
    double buf[4096], om[64], v;
    size_t count;
    TU_EXPECT_STATUS(skit_freq_response(m1, SKIT_FREQ_PERIODIC, 8, om, buf), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_freq_response(m2, SKIT_FREQ_HALF_CIRCLE, 8, om, buf), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_freq_response(m1, (skit_freq_construction)9, 8, om, buf), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_freq_response(m1, SKIT_FREQ_FULL_CIRCLE, 1, om, buf), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_response(NULL, SKIT_FREQ_FULL_CIRCLE, 8, om, buf), SKIT_EINVAL);
    TU_EXPECT_OK(skit_freq_response(m1, SKIT_FREQ_HALF_CIRCLE, 8, om, buf));
    ck_assert(om[0] == 0 && om[7] == M_PI);
    TU_EXPECT_STATUS(skit_freq_impulse(m1, SKIT_FREQ_FULL_CIRCLE, 7, buf, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_impulse(m1, SKIT_FREQ_FULL_CIRCLE, 2, buf, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_impulse(m1, SKIT_FREQ_FULL_CIRCLE, (size_t)1 << 27, buf, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_impulse(m2, SKIT_FREQ_FULL_CIRCLE, 8, buf, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_freq_impulse(m1, SKIT_FREQ_FULL_CIRCLE, 8, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_freq_circle_samples(m1, SKIT_FREQ_FULL_CIRCLE, 9, buf), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_energy(m1, SKIT_FREQ_FULL_CIRCLE, 1, buf), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_derivative_norms(m1, SKIT_FREQ_FULL_CIRCLE, 17, 100, buf), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_derivative_norms(m1, SKIT_FREQ_FULL_CIRCLE, 2, 1, buf), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_derivative_norms(m2, SKIT_FREQ_HALF_CIRCLE, 2, 100, buf), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_freq_derivative_norms(m1, SKIT_FREQ_HALF_CIRCLE, 2, 100, NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_freq_derivative_norms(m1, SKIT_FREQ_HALF_CIRCLE, 16, 100, buf));
    TU_EXPECT_STATUS(skit_relu_breakpoints(gelu, 0, 1, 10, buf, 10, &count), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_relu_breakpoints(m1, 1, 1, 10, buf, 10, &count), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_relu_breakpoints(m1, 0, NAN, 10, buf, 10, &count), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_relu_breakpoints(m1, 0, 1, 0, buf, 10, &count), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_relu_breakpoints(m1, 0, 1, 10, buf, 10, NULL), SKIT_EINVAL);
    double bad[2] = {0.5, 0.4};
    TU_EXPECT_STATUS(skit_pwl_interpolation_error(m1, 0, 1, bad, 2, 3, &v), SKIT_EDOM);
    bad[1] = 1.0;
    TU_EXPECT_STATUS(skit_pwl_interpolation_error(m1, 0, 1, bad, 2, 3, &v), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_pwl_interpolation_error(m1, 0, 1, bad, 1, 0, &v), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_pwl_interpolation_error(m2, 0, 1, bad, 1, 3, &v), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_pwl_interpolation_error(m1, 0, 1, bad, 1, 3, NULL), SKIT_EINVAL);
    /* Hilbert and friends */
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
    TU_EXPECT_STATUS(skit_hilbert_transform(0, x, y, SKIT_HILBERT_FFT, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_hilbert_transform(8, x, y, (skit_hilbert_method)2, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_hilbert_transform(8, NULL, y, SKIT_HILBERT_FFT, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_hilbert_transform(8, x, NULL, SKIT_HILBERT_FFT, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_hilbert_transform(8, x, y, SKIT_HILBERT_DEFINITION, SKIT_HILBERT_MAX_LAG_WINDOW + 1), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_hilbert_causal_spectrum(8, x, SKIT_HILBERT_FFT, 0, NULL, y), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_spectrum_impulse(0, x, NULL, y, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_spectrum_impulse(8, NULL, NULL, y, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_causality_residual(0, x, NULL, &v), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_causality_residual(8, x, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_parseval_difference(0, x, NULL, x, NULL, &v), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_parseval_difference(8, x, NULL, NULL, NULL, &v), SKIT_EINVAL);
    x[3] = INFINITY;
    TU_EXPECT_STATUS(skit_hilbert_transform(8, x, y, SKIT_HILBERT_FFT, 0), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_spectrum_impulse(8, x, NULL, y, NULL), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_causality_residual(8, x, NULL, &v), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_parseval_difference(8, x, NULL, y, NULL, &v), SKIT_ENONFINITE);
    ck_assert_str_eq(skit_freq_construction_token(SKIT_FREQ_PERIODIC), "periodic");
    ck_assert_str_eq(skit_freq_construction_name((skit_freq_construction)7), "unknown");
    skit_mlp_destroy(m1);
    skit_mlp_destroy(m2);
    skit_mlp_destroy(gelu);
}
END_TEST

static Suite *suite_freq(void)
{
    Suite *s = suite_create("freq");
    TCase *tc = tcase_create("freq");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_hilbert_cos_is_sin);
    tcase_add_test(tc, test_hilbert_poisson_and_definition_convergence);
    tcase_add_test(tc, test_hilbert_definition_vs_naive);
    tcase_add_test(tc, test_causal_kernel_vanishes_at_negative_lags);
    tcase_add_test(tc, test_impulse_and_residual_definitions);
    tcase_add_test(tc, test_fdtno_equals_toeplitz_of_own_impulse);
    tcase_add_test(tc, test_fdtno_causal_spectrum_is_hilbert);
    tcase_add_test(tc, test_fdtno_bidirectional_real_at_0_and_pi);
    tcase_add_test(tc, test_fdtno_set_mlp_and_errors);
    tcase_add_test(tc, test_fdtno_rows_layout);
    tcase_add_test(tc, test_freq_impulse_vs_naive_dft);
    tcase_add_test(tc, test_parseval_continuous_for_periodic);
    tcase_add_test(tc, test_derivative_norm_closed_forms);
    tcase_add_test(tc, test_theorem3_bound_holds_for_periodic_silu);
    tcase_add_test(tc, test_decay_fit_synthetic);
    tcase_add_test(tc, test_relu_piecewise_linear);
    tcase_add_test(tc, test_decay_config_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("float32");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_hilbert_f32_matches_f64);
    tcase_add_test(tc, test_fdtno_f32_matches_f64);
    tcase_add_test(tc, test_fdtno_f32_plan_bytes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_freq()); }
