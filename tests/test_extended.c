/* test_extended.c — the extended-precision path of Theorem 2's check
 * (skit_freq_impulse_extended): the DFT against closed-form Fourier
 * coefficients, the MLP against skit_mlp_eval, the impulse response against
 * the double-precision one, and the documented errors. */
#include "config.h"

#include "check_util.h"
#include "freq/extended.h"
#include "mlp/extended.h"

/* I_n(1) = sum_j (1/2)^(2j+n) / (j! (j+n)!), summed until the terms vanish
 * in skit_xreal (they fall faster than 1/(4 j^2)) */
static skit_xreal bessel_i_1(size_t n)
{
    skit_xreal term = 1;
    for (size_t i = 1; i <= n; i++) term = term / 2 / (skit_xreal)i;
    skit_xreal sum = term;
    for (size_t j = 1; j < 200; j++) {
        term = term / 4 / (skit_xreal)j / (skit_xreal)(j + n);
        sum += term;
    }
    return sum;
}

/* exp(cos(w - phi)) = sum_p I_p(1) e^(i p (w - phi)), so the DFT
 * (1/N) sum_m v_m e^(i w_m n) is I_n(1) e^(i n phi) plus aliasing
 * sum_(j != 0) I_(n + jN)(1) (< 1e-60 here: N - lags >= 96). Rounding: the
 * N products and sums carry a relative error of a few eps each and the
 * twiddles eps, so |error| <= 4 N eps max|v| (max|v| = e). */
START_TEST(test_xdft_exp_cos_is_bessel)
{
    const size_t N = 128, lags = 32;
    const skit_xreal phi = (skit_xreal)0.3;
    skit_xreal *c = malloc(N * sizeof *c), *s = malloc(N * sizeof *s), *v = malloc(N * sizeof *v);
    skit_xreal *re = malloc((lags + 1) * sizeof *re), *im = malloc((lags + 1) * sizeof *im);
    ck_assert(c && s && v && re && im);
    skit_xdft_twiddles(N, c, s);
    for (size_t m = 0; m < N; m++)
        v[m] = xr_exp(xr_cos(2 * XR_PI * (skit_xreal)m / (skit_xreal)N - phi));
    skit_xdft_lags(v, N, lags, c, s, re, im);
    skit_xreal tol = 4 * (skit_xreal)N * XR_EPSILON * xr_exp(1);
    for (size_t n = 0; n <= lags; n++) {
        skit_xreal in = bessel_i_1(n), er = re[n] - in * xr_cos((skit_xreal)n * phi),
                   ei = im[n] - in * xr_sin((skit_xreal)n * phi);
        ck_assert_msg(xr_fabs(er) <= tol && xr_fabs(ei) <= tol, "lag %zu: error (%g, %g) > %g, I_n(1) = %g", n,
                      (double)er, (double)ei, (double)tol, (double)in);
    }
    /* where I_n(1) is above the floor the local rate follows ln(2(n+1)) + O(1/n):
     * it rises at every step, which double precision cannot show past n ~ 15 */
    for (size_t n = 1; n + 2 <= lags && bessel_i_1(n + 2) > 1e6 * tol; n++) {
        skit_xreal a0 = xr_hypot(re[n], im[n]) / xr_hypot(re[n + 1], im[n + 1]);
        skit_xreal a1 = xr_hypot(re[n + 1], im[n + 1]) / xr_hypot(re[n + 2], im[n + 2]);
        ck_assert_msg(a1 > a0, "rate did not rise at lag %zu", n);
    }
    free(c);
    free(s);
    free(v);
    free(re);
    free(im);
}
END_TEST

/* skit_mlp_eval_xreal agrees with skit_mlp_eval: the double evaluation's
 * rounding is eps times the growth of |W||h| through the layers, which for
 * PyTorch's init at width <= 16 and <= 3 layers stays below 1e3 relative to
 * max(1, |y|): tolerance 1e3 * 2^-52 ~ 2e-13 */
START_TEST(test_mlp_xreal_matches_double)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int a = 0; a < 3; a++)
        for (int nm = 0; nm < 3; nm++) {
            size_t width = 1 + (size_t)(skit_rng_uniform(&rng) * 16), layers = (size_t)(skit_rng_uniform(&rng) * 4);
            skit_mlp *mlp;
            TU_EXPECT_OK(skit_mlp_create(&mlp, 2, width, layers, 3, (skit_activation)a, (skit_norm)nm, seed + 7));
            skit_xreal *work = malloc(skit_mlp_xreal_work(mlp) * sizeof *work);
            ck_assert(work);
            for (int k = 0; k < 20; k++) {
                double x[2] = {4 * skit_rng_uniform(&rng) - 2, 4 * skit_rng_uniform(&rng) - 2}, y[3];
                skit_xreal xx[2] = {x[0], x[1]}, yy[3];
                TU_EXPECT_OK(skit_mlp_eval(mlp, 1, x, y, NULL));
                skit_mlp_eval_xreal(mlp, xx, yy, work);
                for (int c = 0; c < 3; c++)
                    ck_assert_msg(fabs((double)yy[c] - y[c]) <= 2e-13 * fmax(1, fabs(y[c])),
                                  "seed %llu act %d norm %d width %zu layers %zu: %.17g vs %.17g",
                                  (unsigned long long)seed, a, nm, width, layers, (double)yy[c], y[c]);
            }
            free(work);
            skit_mlp_destroy(mlp);
        }
}
END_TEST

/* the extended impulse response equals the double one (same convention)
 * to the double FFT's rounding, ~ N eps max|k(w)| <= 1e-12 here */
START_TEST(test_impulse_extended_matches_double)
{
    uint64_t seed = tu_seed();
    const size_t N = 64, lags = 20, d = 2;
    skit_mlp *mlp;
    TU_EXPECT_OK(skit_mlp_create(&mlp, 2, 8, 1, d, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, seed));
    double *xr = tu_alloc((lags + 1) * d), *xi = tu_alloc((lags + 1) * d);
    double *dr = tu_alloc(N * d), *di = tu_alloc(N * d);
    TU_EXPECT_OK(skit_freq_impulse_extended(mlp, N, lags, xr, xi));
    TU_EXPECT_OK(skit_freq_impulse(mlp, SKIT_FREQ_PERIODIC, N, dr, di));
    double scale = 0;
    for (size_t c = 0; c < d; c++) scale = fmax(scale, hypot(dr[c * N], di[c * N]));
    for (size_t c = 0; c < d; c++)
        for (size_t n = 0; n <= lags; n++) {
            double e = hypot(xr[c * (lags + 1) + n] - dr[c * N + n], xi[c * (lags + 1) + n] - di[c * N + n]);
            ck_assert_msg(e <= 1e-12 * fmax(1, scale), "seed %llu channel %zu lag %zu: difference %g",
                          (unsigned long long)seed, c, n, e);
        }
    skit_free(xr);
    skit_free(xi);
    skit_free(dr);
    skit_free(di);
    skit_mlp_destroy(mlp);
}
END_TEST

START_TEST(test_impulse_extended_errors)
{
    skit_mlp *m1, *m2;
    double kr[16], ki[16];
    TU_EXPECT_OK(skit_mlp_create(&m1, 1, 4, 1, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 1));
    TU_EXPECT_OK(skit_mlp_create(&m2, 2, 4, 1, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 1));
    TU_EXPECT_STATUS(skit_freq_impulse_extended(NULL, 16, 4, kr, ki), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_freq_impulse_extended(m2, 16, 4, NULL, ki), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_freq_impulse_extended(m2, 16, 4, kr, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_freq_impulse_extended(m1, 16, 4, kr, ki), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_freq_impulse_extended(m2, 15, 4, kr, ki), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_impulse_extended(m2, 2, 0, kr, ki), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_freq_impulse_extended(m2, 16, 8, kr, ki), SKIT_EDOM);
    ck_assert(skit_freq_extended_epsilon() > 0 && skit_freq_extended_epsilon() < 0x1p-52);
    skit_mlp_destroy(m1);
    skit_mlp_destroy(m2);
}
END_TEST

static Suite *suite_extended(void)
{
    Suite *s = suite_create("extended");
    TCase *tc = tcase_create("extended");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_xdft_exp_cos_is_bessel);
    tcase_add_test(tc, test_mlp_xreal_matches_double);
    tcase_add_test(tc, test_impulse_extended_matches_double);
    tcase_add_test(tc, test_impulse_extended_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_extended()); }
