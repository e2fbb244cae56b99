/* check_util.h — helpers shared by the check suites: references, error
 * measures, poisoning, status assertions, and a main() for one suite. */
#ifndef SKIT_CHECK_UTIL_H
#define SKIT_CHECK_UTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skit.h"

/* Sizes every operator is tested at: all n <= 64, then a spread including
 * primes and awkward composites. */
static const size_t tu_large_sizes[] = {97, 100, 127, 128, 211, 255, 256, 331, 499, 512, 997, 1000, 1024, 2039};
#define TU_NLARGE (sizeof tu_large_sizes / sizeof tu_large_sizes[0])

/* max_i |a_i - b_i| / max(max_i |b_i|, tiny): relative L-infinity error */
static inline double tu_rel_error(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= num)) num = d; /* NaN propagates as a large error */
        if (fabs(b[i]) > den) den = fabs(b[i]);
    }
    if (isnan(num)) return INFINITY;
    return num / (den > 1e-300 ? den : 1e-300);
}

/* Fill with NaN so that any element the code under test forgets to write
 * shows up as a NaN in the comparison. */
static inline void tu_poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = NAN;
}

static inline double *tu_alloc(size_t n)
{
    double *p = skit_malloc(n ? n : 1, sizeof(double));
    ck_assert_ptr_nonnull(p);
    tu_poison(p, n);
    return p;
}

static inline double *tu_random(skit_rng *rng, size_t n)
{
    double *p = tu_alloc(n);
    skit_rng_fill_normal(rng, p, n);
    return p;
}

/* ---- float32 against float64 ---------------------------------------------
 * The bound every float32 FFT product is held to (skit/toeplitz.h):
 *     ||y32 - y64||_2 <= 20 log2(2N) u ||C||_2 ||x||_2,   u = 2^-24,
 * for a product y = C x by a length-N circulant C (of which the operator
 * is a block), ||C||_2 = max |DFT(kernel)| <= ||kernel||_1. Why: FFTW's
 * transforms are backward stable, ||fl(F x) - F x|| <= log2(N) eta ||F x||
 * with eta = mu + gamma_4 (sqrt 2 + mu) ~ 6.7 u for accurate twiddles
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm
 * 24.2); a product takes three transforms (kernel, input, the Hartley
 * inverse: 20.1 log2(N) u), the spectral product and the Hartley
 * combination a few u, rounding the kernel to float u ||kernel||_1: all
 * within 20 (log2 N + 1) u. The float64 reference's own error (the same
 * with 2^-53) is below 1e-8 of it. */
#define TU_U32 0x1p-24

static inline double tu_f32_bound(size_t N, double op_norm, double x_norm)
{
    return 20.0 * log2(2.0 * (double)N) * TU_U32 * op_norm * x_norm;
}

static inline float *tu_alloc_f32(size_t n)
{
    float *p = skit_malloc(n ? n : 1, sizeof(float));
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++) p[i] = NAN;
    return p;
}

/* ||a32 - b64||_2 (NaN: infinite) and ||v||_2 of floats */
static inline double tu_diff_f32(const float *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return isnan(s) ? INFINITY : sqrt(s);
}

static inline double tu_norm_f32(const float *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)v[i] * v[i];
    return sqrt(s);
}

/* A float32 plan builds no float64 engine, spectra or scratch: at the
 * shapes of a layer (n, d) and each of `variants` variants of the plan,
 * bytes(n, d, variant, SKIT_PRECISION_F32) must be at most 0.55 x
 * bytes(..., SKIT_PRECISION_F64) (bytes: create the plan, return its
 * _plan_bytes, destroy it). The largest ratio goes to the test's log. */
static inline void tu_f32_bytes_sweep(const char *what, int variants,
                                      size_t (*bytes)(size_t n, size_t d, int variant, skit_precision precision))
{
    static const size_t shapes[][2] = {{1024, 64}, {1024, 128}, {4096, 64}, {4096, 128}, {16384, 64}, {16384, 128}};
    double worst = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int v = 0; v < variants; v++) {
            size_t n = shapes[s][0], d = shapes[s][1];
            size_t b32 = bytes(n, d, v, SKIT_PRECISION_F32), b64 = bytes(n, d, v, SKIT_PRECISION_F64);
            double ratio = (double)b32 / (double)b64;
            ck_assert_msg(ratio <= 0.55, "%s n %zu d %zu variant %d: float32 plan %zu bytes, float64 %zu (%.3f)",
                          what, n, d, v, b32, b64, ratio);
            worst = fmax(worst, ratio);
        }
    fprintf(stderr, "%s plan bytes float32 / float64: at most %.3f\n", what, worst);
}

/* A fresh seed per run unless SKIT_TEST_SEED is set. Every fresh seed is
 * printed on stderr (the test's log), so that any failure, whether or not
 * its message names the seed, can be rerun. */
static inline uint64_t tu_seed(void)
{
    const char *env = getenv("SKIT_TEST_SEED");
    if (env && *env) return strtoull(env, NULL, 10);
    static uint64_t counter = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    uint64_t s = 0;
    if (f) {
        if (fread(&s, sizeof s, 1, f) != 1) s = 0;
        fclose(f);
    }
    s ^= ++counter * 0x9e3779b97f4a7c15ULL;
    fprintf(stderr, "seed %llu (SKIT_TEST_SEED=%llu reruns it)\n", (unsigned long long)s, (unsigned long long)s);
    return s;
}

/* Assert that expr returns `status` and that a message was recorded. */
#define TU_EXPECT_STATUS(expr, status)                                                  \
    do {                                                                                \
        skit_clear_error();                                                             \
        int tu_got_ = (expr);                                                           \
        ck_assert_msg(tu_got_ == (status), "%s: expected %s, got %d (%s): %s", #expr,   \
                      #status, tu_got_, skit_strerror(tu_got_), skit_last_error());      \
        ck_assert_msg(skit_last_error()[0] != '\0', "%s: no error message recorded", #expr); \
    } while (0)

#define TU_EXPECT_OK(expr)                                                              \
    do {                                                                                \
        int tu_got_ = (expr);                                                           \
        ck_assert_msg(tu_got_ == SKIT_OK, "%s failed: %s (%s) at %s", #expr,            \
                      skit_strerror(tu_got_), skit_last_error(), skit_last_error_location()); \
    } while (0)

/* Runs one suite; exit status for automake's test driver. */
static inline int tu_main(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
