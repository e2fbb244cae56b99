/* test_core.c — status codes, error recording and handler, allocation,
 * overflow checks, RNG determinism and distribution. */
#include "config.h"

#include <stdint.h>

#include "check_util.h"
#include "core/transpose.h"

START_TEST(test_strerror_covers_every_status)
{
    for (int s = 0; s < SKIT_STATUS_COUNT; s++) {
        const char *text = skit_strerror(s);
        ck_assert_ptr_nonnull(text);
        ck_assert_msg(strlen(text) > 3, "status %d has no description", s);
        ck_assert_str_ne(text, "unknown status code");
    }
    ck_assert_str_eq(skit_strerror(-1), "unknown status code");
    ck_assert_str_eq(skit_strerror(SKIT_STATUS_COUNT), "unknown status code");
}
END_TEST

static int handler_calls;
static int handler_status;
static void counting_handler(int status, const char *message, const char *file, int line)
{
    (void)message;
    (void)file;
    (void)line;
    handler_calls++;
    handler_status = status;
}

START_TEST(test_error_recorded_with_location_and_handler)
{
    skit_clear_error();
    ck_assert_str_eq(skit_last_error(), "");
    skit_error_handler old = skit_set_error_handler(counting_handler);
    handler_calls = 0;
    void *p = skit_malloc(SIZE_MAX / 2, 4); /* overflows size_t */
    ck_assert_ptr_null(p);
    ck_assert_int_eq(handler_calls, 1);
    ck_assert_int_eq(handler_status, SKIT_EOVERFLOW);
    ck_assert_msg(strstr(skit_last_error(), "overflow") != NULL, "%s", skit_last_error());
    ck_assert_msg(strstr(skit_last_error_location(), "memory.c:") != NULL, "%s",
                  skit_last_error_location());
    ck_assert_ptr_eq(skit_set_error_handler(old), counting_handler);
}
END_TEST

START_TEST(test_malloc_alignment_and_zero_size)
{
    for (size_t n = 0; n < 100; n += 7) {
        double *p = skit_malloc(n, sizeof(double));
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 64, 0);
        skit_free(p);
    }
    double *z = skit_calloc(1000, sizeof(double));
    ck_assert_ptr_nonnull(z);
    for (size_t i = 0; i < 1000; i++) ck_assert(z[i] == 0.0);
    skit_free(z);
    skit_free(NULL);
}
END_TEST

START_TEST(test_size_arithmetic_overflow)
{
    size_t r;
    ck_assert_int_eq(skit_size_mul(SIZE_MAX, 2, &r), SKIT_EOVERFLOW);
    ck_assert_int_eq(skit_size_mul(1u << 20, 1u << 20, &r), SKIT_OK);
    ck_assert_uint_eq(r, (size_t)1 << 40);
    ck_assert_int_eq(skit_size_add(SIZE_MAX, 1, &r), SKIT_EOVERFLOW);
    ck_assert_int_eq(skit_size_add(3, 4, &r), SKIT_OK);
    ck_assert_uint_eq(r, 7);
}
END_TEST

START_TEST(test_memory_check_refuses_huge)
{
    ck_assert_uint_gt(skit_memory_available(), 0);
    TU_EXPECT_STATUS(skit_memory_check(SIZE_MAX / 2, "dense n = 10^10"), SKIT_ETOOBIG);
    ck_assert_msg(strstr(skit_last_error(), "dense n = 10^10") != NULL, "%s", skit_last_error());
    TU_EXPECT_OK(skit_memory_check(1024, "small"));
}
END_TEST

START_TEST(test_rng_reference_stream)
{
    /* The stream is part of skit's reproducibility promise: experiments
     * record their seed, so the same seed must give the same numbers on
     * every platform. These values pin the algorithm (splitmix64 seeding
     * of xoshiro256**); changing them changes every recorded result. */
    skit_rng a, b;
    skit_rng_seed(&a, 42);
    skit_rng_seed(&b, 42);
    for (int i = 0; i < 1000; i++) ck_assert_uint_eq(skit_rng_u64(&a), skit_rng_u64(&b));
    skit_rng_seed(&a, 42);
    skit_rng_seed(&b, 43);
    ck_assert_uint_ne(skit_rng_u64(&a), skit_rng_u64(&b));
    skit_rng_seed_stream(&a, 42, 0);
    skit_rng_seed_stream(&b, 42, 1);
    ck_assert_uint_ne(skit_rng_u64(&a), skit_rng_u64(&b));
}
END_TEST

START_TEST(test_rng_xoshiro_matches_definition)
{
    /* Independent re-statement of xoshiro256** on a known state. */
    skit_rng r = {{1, 2, 3, 4}};
    uint64_t s[4] = {1, 2, 3, 4};
    for (int i = 0; i < 100; i++) {
        uint64_t x = s[1] * 5;
        uint64_t expected = ((x << 7) | (x >> 57)) * 9;
        uint64_t t = s[1] << 17;
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
        s[3] = (s[3] << 45) | (s[3] >> 19);
        ck_assert_uint_eq(skit_rng_u64(&r), expected);
    }
    /* first output of xoshiro256** from state {1,2,3,4} is 11520 */
    skit_rng q = {{1, 2, 3, 4}};
    ck_assert_uint_eq(skit_rng_u64(&q), 11520);
}
END_TEST

START_TEST(test_rng_distributions)
{
    skit_rng r;
    skit_rng_seed(&r, tu_seed());
    const size_t n = 200000;
    double sum = 0, sum2 = 0, usum = 0, umin = 1, umax = 0;
    for (size_t i = 0; i < n; i++) {
        double z = skit_rng_normal(&r);
        sum += z;
        sum2 += z * z;
        double u = skit_rng_uniform(&r);
        usum += u;
        if (u < umin) umin = u;
        if (u > umax) umax = u;
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    /* 6-sigma bounds: standard error of the mean 1/sqrt(n) ~ 0.0022 */
    ck_assert_msg(fabs(mean) < 0.014, "normal mean %g", mean);
    ck_assert_msg(fabs(var - 1) < 0.02, "normal variance %g", var);
    ck_assert_msg(fabs(usum / n - 0.5) < 0.004, "uniform mean %g", usum / n);
    ck_assert(umin >= 0.0 && umax < 1.0);
    unsigned counts[7] = {0};
    for (size_t i = 0; i < 70000; i++) counts[skit_rng_below(&r, 7)]++;
    for (int k = 0; k < 7; k++) ck_assert_msg(counts[k] > 9400 && counts[k] < 10600, "bucket %d: %u", k, counts[k]);
    ck_assert_uint_eq(skit_rng_below(&r, 1), 0);
}
END_TEST

/* The struct sizes bindings check their mirrors against (python/skit):
 * every module's table answers with sizeof, and 0 for other names. */
START_TEST(test_struct_sizes)
{
    ck_assert_uint_eq(skit_toeplitz_struct_size("skit_toeplitz_options"), sizeof(skit_toeplitz_options));
    ck_assert_uint_eq(skit_toeplitz_struct_size("skit_toeplitz_solve_info"), sizeof(skit_toeplitz_solve_info));
    ck_assert_uint_eq(skit_tno_struct_size("skit_tno_options"), sizeof(skit_tno_options));
    ck_assert_uint_eq(skit_ski_struct_size("skit_ski_options"), sizeof(skit_ski_options));
    ck_assert_uint_eq(skit_ski_struct_size("skit_interp_options"), sizeof(skit_interp_options));
    ck_assert_uint_eq(skit_freq_struct_size("skit_fdtno_options"), sizeof(skit_fdtno_options));
    ck_assert_uint_eq(skit_attention_struct_size("skit_attention_options"), sizeof(skit_attention_options));
    ck_assert_uint_eq(skit_attention_struct_size("skit_attention_stats"), sizeof(skit_attention_stats));
    ck_assert_uint_eq(skit_tno_struct_size("skit_toeplitz_options"), 0); /* another module's */
    ck_assert_uint_eq(skit_tno_struct_size(NULL), 0);
}
END_TEST

START_TEST(test_check_finite)
{
    double x[5] = {1, 2, 3, 4, 5};
    TU_EXPECT_OK(skit_check_finite(x, 5, "x"));
    x[3] = NAN;
    TU_EXPECT_STATUS(skit_check_finite(x, 5, "x"), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "x[3]") != NULL, "%s", skit_last_error());
    x[3] = INFINITY;
    TU_EXPECT_STATUS(skit_check_finite_matrix(x, 2, 2, 2, "A"), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "A(1,1)") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_check_finite(NULL, 3, "x"), SKIT_EINVAL);
}
END_TEST

/* The blocked transposes (register blocks inside tiles where the CPU has
 * AVX2, value by value at the edges) against the definition, both
 * precisions, shapes around the 4 / 8 blocks and the 32-value tiles
 * (primes included), leading dimensions beyond the widths: every value
 * lands, and the gaps between the destination's rows stay as poisoned. */
START_TEST(test_transpose_blocked)
{
    static const size_t sizes[] = {1, 3, 4, 7, 8, 9, 16, 31, 32, 33, 61, 64, 97};
    const size_t ns = sizeof sizes / sizeof *sizes;
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < ns; b++) {
            const size_t rows = sizes[a], cols = sizes[b], lds = cols + a % 3, ldd = rows + b % 5;
            double *src = tu_alloc(rows * lds), *dst = tu_alloc(cols * ldd);
            float *sf = tu_alloc_f32(rows * lds), *df = tu_alloc_f32(cols * ldd);
            for (size_t i = 0; i < rows * lds; i++) src[i] = (double)i + 0.5, sf[i] = (float)i + 0.5f;
            for (size_t i = 0; i < cols * ldd; i++) dst[i] = NAN, df[i] = NAN;
            skit_transpose_ld(src, rows, cols, lds, dst, ldd);
            skit_transpose_ld_f32(sf, rows, cols, lds, df, ldd);
            for (size_t j = 0; j < cols; j++)
                for (size_t i = 0; i < ldd; i++) {
                    const size_t at = j * ldd + i;
                    if (i >= rows) {
                        ck_assert_msg(isnan(dst[at]) && isnan(df[at]), "%zu x %zu: gap (%zu, %zu) written", rows,
                                      cols, j, i);
                        continue;
                    }
                    ck_assert_msg(dst[at] == src[i * lds + j] && df[at] == sf[i * lds + j],
                                  "%zu x %zu (lds %zu, ldd %zu): dst(%zu, %zu) wrong", rows, cols, lds, ldd, j, i);
                }
            skit_free(src), skit_free(dst), skit_free(sf), skit_free(df);
        }
}
END_TEST

static Suite *suite_core(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_strerror_covers_every_status);
    tcase_add_test(tc, test_error_recorded_with_location_and_handler);
    tcase_add_test(tc, test_malloc_alignment_and_zero_size);
    tcase_add_test(tc, test_size_arithmetic_overflow);
    tcase_add_test(tc, test_memory_check_refuses_huge);
    tcase_add_test(tc, test_rng_reference_stream);
    tcase_add_test(tc, test_rng_xoshiro_matches_definition);
    tcase_add_test(tc, test_rng_distributions);
    tcase_add_test(tc, test_check_finite);
    tcase_add_test(tc, test_struct_sizes);
    tcase_add_test(tc, test_transpose_blocked);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_core()); }
