/* test_tno_f32.c — float32 SKI-TNO (skit_tno_plan_execute_f32,
 * _forward_f32 and _backward_f32 on kind SKI) against the float64 plan of
 * the same parameters on the same (float) inputs: bidirectional and both
 * causal algorithms, both layouts, odd and prime n, batch 1 and 3, d 1 and
 * 5, outputs and gradients poisoned with NaN; and the float32 plan's
 * errors. (TNO's and
 * FD-TNO's float32 tests are in test_tno.c.) */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check_util.h"
#include "skit/tno.h"
#include "tno_util.h"

/* The growth factor of skit/tno.h's float32 SKI bound,
 *     ||y32 - y64||_2 <= G 2^-24 scale[c] ||x_c||_2,
 *     G = 20 log2(2N) + 2r + 2h + m + 12   (the log term only if N > 0),
 * N A's FFT length (0 for causal plans), h = (n-1)/(r-1) the inducing
 * spacing: the FFT product's 20 log2(2N) (skit_toeplitz_plan_execute_f32),
 * W^T's sums of at most 2h + 3 terms, the causal dot products of at most
 * 2r, the band's chains of m + 1 and a few roundings of the data. */
static double ski_growth(const skit_tno_options *o, size_t n, size_t N)
{
    const double r = (double)o->rank, h = (double)(n - 1) / (r - 1);
    return (N ? 20.0 * log2(2.0 * (double)N) : 0.0) + 2 * r + 2 * h + (double)o->taps + 12;
}

/* The scale is the operator's magnitude, not inflated: ||W||_1 <= h + 2
 * and |a_c| <= max |knot_c| (A's coefficients interpolate the knots), so
 * scale[c] <= ||taps_c||_1 + (h + 2) (2r - 1) max |knot_c|. */
static void expect_scale_bounded(const skit_tno_plan *p, const double *scale, uint64_t seed)
{
    const skit_tno_options *o = skit_tno_plan_options(p);
    const size_t n = skit_tno_plan_n(p), d = skit_tno_plan_d(p), K = o->knots, m = o->taps;
    const size_t count = skit_tno_plan_parameter_count(p);
    double *params = tu_alloc(count);
    TU_EXPECT_OK(skit_tno_plan_get_parameters(p, params, count));
    const double h = (double)(n - 1) / (double)(o->rank - 1);
    for (size_t c = 0; c < d; c++) {
        double knot = 0, taps = 0;
        for (size_t j = 0; j < 2 * K; j++) knot = fmax(knot, fabs(params[c * 2 * K + j]));
        for (size_t k = 0; k < m; k++) taps += fabs(params[d * 2 * K + c * m + k]);
        double cap = taps + (h + 2) * (double)(2 * o->rank - 1) * knot;
        ck_assert_msg(scale[c] > 0 && scale[c] <= cap * (1 + 1e-12),
                      "n=%zu channel %zu: scale %g outside (0, %g] (seed %llu)", n, c, scale[c], cap,
                      (unsigned long long)seed);
    }
    skit_free(params);
}

/* every (sequence, channel) of y32 within the bound above of y64 */
static void expect_close(const tu_tno_pair *t, const char *what, uint64_t seed)
{
    const skit_tno_plan *p32 = t->p32;
    const skit_tno_options *o = skit_tno_plan_options(p32);
    const size_t n = skit_tno_plan_n(p32), d = skit_tno_plan_d(p32), batch = skit_tno_plan_batch(p32);
    double *scale = tu_alloc(d);
    size_t N;
    TU_EXPECT_OK(skit_tno_plan_f32_error_scale(p32, scale, &N));
    ck_assert_msg((N == 0) == (o->causality == SKIT_CAUSAL), "%s: FFT length %zu", what, N);
    expect_scale_bounded(p32, scale, seed);
    const double growth = ski_growth(o, n, N);
    /* the library's own factor (skit_tno_plan_f32_growth) is this one */
    ck_assert_msg(fabs(skit_tno_plan_f32_growth(p32) - growth) <= 1e-12 * growth, "%s: f32 growth %g, want %g", what,
                  skit_tno_plan_f32_growth(p32), growth);
    for (size_t b = 0; b < batch; b++)
        for (size_t c = 0; c < d; c++) {
            double x_norm, err = tu_tno_pair_error(t, b, c, &x_norm);
            double bound = growth * TU_U32 * scale[c] * x_norm;
            ck_assert_msg(err <= bound,
                          "%s n=%zu d=%zu r=%zu m=%zu sequence %zu channel %zu: ||y32 - y64|| = %g > %g (seed %llu)",
                          what, n, d, o->rank, o->taps, b, c, err, bound, (unsigned long long)seed);
        }
    skit_free(scale);
}

static const char *variant_name(int variant)
{
    return variant == 0 ? "bidirectional" : variant == 1 ? "causal cumsum" : "causal blocked";
}

/* Options of size s: ranks, taps, knots and decays varied with n; taps
 * odd and <= 2n - 1 (or 0: no band), r <= n. */
static void ski_options(skit_tno_options *o, size_t s, size_t n, int variant, int layout, uint64_t seed)
{
    static const size_t ranks[] = {64, 7, 33}, taps[] = {17, 0, 5, 1}, knots[] = {32, 1, 8};
    static const double decays[] = {0.99, 0.9, 0.5};
    skit_tno_options_default(o, SKIT_TNO_SKI);
    o->causality = variant ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    o->causal_ski = variant == 2 ? SKIT_TNO_CAUSAL_BLOCKED : SKIT_TNO_CAUSAL_CUMSUM;
    o->layout = layout ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS;
    o->rank = n < ranks[s % 3] ? n : ranks[s % 3];
    o->taps = taps[s % 4];
    while (o->taps > 2 * n - 1) o->taps -= 2;
    o->knots = knots[s % 3];
    o->decay = decays[s % 3];
    o->seed = seed;
}

/* What a case checks: the float64 and float32 plans of options o (the same
 * parameters) on the same float input, t's batch x n x d values in the
 * plans' layout. */
typedef void (*ski_case)(tu_tno_pair *t, skit_rng *rng, const char *what, uint64_t seed);

/* every variant, layout, size (odd and prime n among them), batch 1 and 3
 * and d 1 and 5 */
static void for_each_ski_case(ski_case check)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t ns[] = {2, 3, 7, 17, 64, 97, 251, 256, 511, 1000};
    /* d = 75 (batch 1, n <= 256: the cost): the ROWS kernels' register
     * blocks of 64 floats, vectors of 8 and a scalar tail in one row
     * (ski_apply.c's band_row) */
    static const size_t batches[] = {1, 3}, ds[] = {1, 5, 75};
    for (int variant = 0; variant < 3; variant++)
        for (int layout = 0; layout < 2; layout++)
            for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
                for (size_t bd = 0; bd < 6; bd++) {
                    const size_t n = ns[s], batch = batches[bd / 3], d = ds[bd % 3];
                    if (d == 75 && (batch > 1 || n > 256)) continue;
                    skit_tno_options o;
                    ski_options(&o, s, n, variant, layout, seed + 4 * s + bd);
                    tu_tno_pair t;
                    tu_tno_pair_create(&t, n, d, batch, &o, &rng);
                    char what[64];
                    snprintf(what, sizeof what, "%s %s batch %zu", variant_name(variant),
                             layout ? "channels" : "rows", batch);
                    check(&t, &rng, what, seed);
                    tu_tno_pair_destroy(&t);
                }
}

static void check_forward(tu_tno_pair *t, skit_rng *rng, const char *what, uint64_t seed)
{
    (void)rng;
    /* the caller's workspace: execute allocates nothing */
    void *work = skit_malloc(skit_tno_plan_workspace_bytes(t->p32) + 1, 1);
    ck_assert_ptr_nonnull(work);
    TU_EXPECT_OK(skit_tno_plan_execute_f32(t->p32, t->x, t->y32, work));
    tu_tno_pair_check_forward(t, expect_close, what, seed);
    TU_EXPECT_STATUS(skit_tno_plan_backward_f32(t->p64, t->x, t->x, NULL, NULL, NULL, NULL), SKIT_EINVAL);
    skit_free(work);
}

START_TEST(test_ski_f32_matches_f64) { for_each_ski_case(check_forward); }
END_TEST

/* ---- the backward ------------------------------------------------------------ */

/* ||.||_1 and ||.||_2 of sequence b, channel c of v */
static void seq_norms(skit_tno_layout layout, size_t n, size_t d, size_t b, size_t c, const float *v, double *n1,
                      double *n2)
{
    double s1 = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        double e = v[tu_tno_index(layout, n, d, b, i, c)];
        s1 += fabs(e);
        s2 += e * e;
    }
    *n1 = s1;
    *n2 = sqrt(s2);
}

typedef struct bw_result {
    const float *dx32;
    const double *dx64, *dp32, *dp64;
} bw_result;

/* ||e||_2 of count differences (NaN: Inf) */
static double diff_norm(const double *a, const double *b, size_t count)
{
    double e = 0;
    for (size_t i = 0; i < count; i++) e += (a[i] - b[i]) * (a[i] - b[i]);
    return isnan(e) ? INFINITY : sqrt(e);
}

/* skit/tno.h's float32 SKI backward bounds, per (sequence, channel) for dx
 * and per channel for the knots (2-norm) and the taps (every entry) */
static void expect_backward_close(const skit_tno_plan *p32, const float *x, const float *dy, const bw_result *g,
                                  const char *what, uint64_t seed)
{
    const skit_tno_options *o = skit_tno_plan_options(p32);
    const size_t n = skit_tno_plan_n(p32), d = skit_tno_plan_d(p32), batch = skit_tno_plan_batch(p32);
    const size_t r = o->rank, K = o->knots, m = o->taps;
    const int causal = o->causality == SKIT_CAUSAL;
    double *scale = tu_alloc(d), *dx = tu_alloc(n);
    size_t N;
    TU_EXPECT_OK(skit_tno_plan_f32_error_scale(p32, scale, &N));
    const double h = (double)(n - 1) / (double)(r - 1), lg = N ? log2(2.0 * (double)N) : 0.0;
    const double ga = causal ? 2 * h + 6 : 30 * lg + (double)batch + 2 * h + 6, bn = (double)(batch * n) + 1;
    for (size_t c = 0; c < d; c++) {
        double corr = 0, ones = 0, twos = 0;
        for (size_t b = 0; b < batch; b++) {
            double x1, x2, d1, d2, e = 0;
            seq_norms(o->layout, n, d, b, c, x, &x1, &x2);
            seq_norms(o->layout, n, d, b, c, dy, &d1, &d2);
            for (size_t i = 0; i < n; i++) {
                size_t at = tu_tno_index(o->layout, n, d, b, i, c);
                dx[i] = (double)g->dx32[at] - g->dx64[at];
                e += dx[i] * dx[i];
            }
            e = isnan(e) ? INFINITY : sqrt(e);
            double bound = ski_growth(o, n, N) * TU_U32 * scale[c] * d2;
            ck_assert_msg(e <= bound, "%s n=%zu d=%zu r=%zu m=%zu sequence %zu channel %zu: ||dx32 - dx64|| = %g > %g "
                          "(seed %llu)", what, n, d, r, m, b, c, e, bound, (unsigned long long)seed);
            corr += x1 * d2 + x2 * d1;
            ones += x1 * d1;
            twos += x2 * d2;
        }
        double da = ga * TU_U32 * sqrt(h + 2) * corr + (causal ? bn * 0x1p-51 * ones : 0.0);
        double ek = diff_norm(g->dp32 + c * 2 * K, g->dp64 + c * 2 * K, 2 * K), bk = sqrt(2.0 * r - 1) * da;
        ck_assert_msg(ek <= bk, "%s n=%zu r=%zu K=%zu channel %zu: ||dknots32 - dknots64|| = %g > %g (seed %llu)",
                      what, n, r, K, c, ek, bk, (unsigned long long)seed);
        for (size_t k = 0; k < m; k++) {
            size_t at = d * 2 * K + c * m + k;
            double et = fabs(g->dp32[at] - g->dp64[at]), bt = 2 * bn * 0x1p-53 * twos;
            ck_assert_msg(et <= bt, "%s n=%zu m=%zu channel %zu tap %zu: |dtap32 - dtap64| = %g > %g (seed %llu)",
                          what, n, m, c, k, et, bt, (unsigned long long)seed);
        }
    }
    skit_free(scale);
    skit_free(dx);
}

/* dx alone and dparams alone give the same numbers as both at once */
static void expect_parts_equal(const skit_tno_plan *p32, const float *x, const float *dy, const bw_result *g,
                               void *work, const char *what, uint64_t seed)
{
    const size_t total = skit_tno_plan_batch(p32) * skit_tno_plan_n(p32) * skit_tno_plan_d(p32);
    const size_t count = skit_tno_plan_parameter_count(p32);
    float *dx = tu_alloc_f32(total);
    double *dp = tu_alloc(count);
    TU_EXPECT_OK(skit_tno_plan_backward_f32(p32, x, dy, dx, NULL, NULL, work));
    TU_EXPECT_OK(skit_tno_plan_backward_f32(p32, x, dy, NULL, dp, NULL, work));
    for (size_t i = 0; i < total; i++)
        ck_assert_msg(dx[i] == g->dx32[i], "%s: dx[%zu] alone %g, with dparams %g (seed %llu)", what, i, (double)dx[i],
                      (double)g->dx32[i], (unsigned long long)seed);
    for (size_t i = 0; i < count; i++)
        ck_assert_msg(dp[i] == g->dp32[i], "%s: dparams[%zu] alone %g, with dx %g (seed %llu)", what, i, dp[i],
                      g->dp32[i], (unsigned long long)seed);
    skit_free(dx);
    skit_free(dp);
}

static void check_backward(tu_tno_pair *t, skit_rng *rng, const char *what, uint64_t seed)
{
    skit_tno_plan *p32 = t->p32;
    const size_t total = t->total, count = skit_tno_plan_parameter_count(p32);
    float *dy = tu_alloc_f32(total), *dx32 = tu_alloc_f32(total);
    double *dy64 = tu_alloc(total), *dx64 = tu_alloc(total);
    double *dp64 = tu_alloc(count), *dp32 = tu_alloc(count); /* NaN-poisoned */
    for (size_t i = 0; i < total; i++) dy64[i] = dy[i] = (float)skit_rng_normal(rng);
    TU_EXPECT_OK(skit_tno_plan_backward(t->p64, t->x64, dy64, dx64, dp64, NULL, NULL));
    /* the caller's workspace: the backward allocates nothing */
    void *work = skit_malloc(skit_tno_plan_backward_workspace_bytes(p32) + 1, 1);
    ck_assert_ptr_nonnull(work);
    double dlambda = NAN;
    TU_EXPECT_OK(skit_tno_plan_backward_f32(p32, t->x, dy, dx32, dp32, &dlambda, work));
    ck_assert(dlambda == 0);
    const bw_result g = {dx32, dx64, dp32, dp64};
    expect_backward_close(p32, t->x, dy, &g, what, seed);
    expect_parts_equal(p32, t->x, dy, &g, work, what, seed);
    skit_free(work);
    skit_free(dy), skit_free(dx32);
    skit_free(dy64), skit_free(dx64), skit_free(dp64), skit_free(dp32);
}

START_TEST(test_ski_f32_backward_matches_f64) { for_each_ski_case(check_backward); }
END_TEST

/* Knot values beyond float's range (with room for the FFTs) are refused
 * with the plan unchanged; n = 1 has no SKI plan (r >= 2 > n); the error
 * scale wants a float32 plan. */
START_TEST(test_ski_f32_errors)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 97, d = 3, batch = 2, total = batch * n * d;
    for (int variant = 0; variant < 3; variant++) {
        skit_tno_options o;
        ski_options(&o, 0, n, variant, variant == 1, seed);
        o.precision = SKIT_PRECISION_F32;
        skit_tno_plan *p = NULL;
        TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
        const size_t count = skit_tno_plan_parameter_count(p);
        double *params = tu_alloc(count), *big = tu_alloc(count);
        TU_EXPECT_OK(skit_tno_plan_get_parameters(p, params, count));
        float *x = tu_alloc_f32(total), *y = tu_alloc_f32(total), *y2 = tu_alloc_f32(total);
        for (size_t i = 0; i < total; i++) x[i] = (float)skit_rng_normal(&rng);
        TU_EXPECT_OK(skit_tno_plan_execute_f32(p, x, y, NULL));
        for (size_t i = 0; i < count; i++) big[i] = params[i];
        big[d * 2 * o.knots - 1] = 1e36; /* the last channel's outermost knot */
        TU_EXPECT_STATUS(skit_tno_plan_set_parameters(p, big, count), SKIT_ENONFINITE);
        TU_EXPECT_OK(skit_tno_plan_get_parameters(p, big, count));
        for (size_t i = 0; i < count; i++) ck_assert(big[i] == params[i]);
        TU_EXPECT_OK(skit_tno_plan_execute_f32(p, x, y2, NULL));
        for (size_t i = 0; i < total; i++)
            ck_assert_msg(y2[i] == y[i], "%s: output %zu changed after a refused update (seed %llu)",
                          variant_name(variant), i, (unsigned long long)seed);
        skit_free(params);
        skit_free(big);
        skit_free(x);
        skit_free(y);
        skit_free(y2);
        skit_tno_plan_destroy(p);
    }
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_SKI);
    o.precision = SKIT_PRECISION_F32;
    skit_tno_plan *p = NULL;
    TU_EXPECT_STATUS(skit_tno_plan_create(&p, 1, 4, 1, &o, NULL, 0), SKIT_EDOM);
    o.rank = 8;
    o.taps = 3;
    o.precision = SKIT_PRECISION_F64;
    TU_EXPECT_OK(skit_tno_plan_create(&p, 16, 2, 1, &o, NULL, 0));
    double scale[2];
    TU_EXPECT_STATUS(skit_tno_plan_f32_error_scale(p, scale, NULL), SKIT_EINVAL);
    ck_assert(skit_tno_plan_f32_growth(p) == 0);
    ck_assert(skit_tno_plan_f32_growth(NULL) == 0);
    skit_tno_plan_destroy(p);
}
END_TEST

static Suite *tno_f32_suite(void)
{
    Suite *s = suite_create("tno_f32");
    TCase *tc = tcase_create("ski");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ski_f32_matches_f64);
    tcase_add_test(tc, test_ski_f32_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("ski_backward");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ski_f32_backward_matches_f64);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(tno_f32_suite()); }
