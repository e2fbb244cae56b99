/* test_ski.c — kernels (values, derivatives, bounds, smoothness),
 * interpolation weights (polynomial exactness), SKI / Nystrom / sparse +
 * low-rank plans against dense references, the Theorem 1 evaluator against
 * an independent LAPACK computation, the fits, and every documented error. */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>

#include "check_util.h"
#include "core/internal.h" /* ski_internal.h uses its types */
#include "ski/ski_internal.h"

/* sizes for operator tests: all small n, then odd / prime / composite */
static const size_t op_sizes[] = {2, 3, 4, 5, 7, 8, 11, 13, 16, 17, 31, 32, 64, 97, 100, 127, 211, 256, 499, 1000, 2039};
#define NOP (sizeof op_sizes / sizeof op_sizes[0])

/* ---- helpers --------------------------------------------------------------- */

static skit_kernel *make_kernel(int which, skit_mlp **mlp_out)
{
    skit_kernel *k = NULL;
    *mlp_out = NULL;
    switch (which) {
    case 0: TU_EXPECT_OK(skit_kernel_gaussian_create(&k, 1.3, 7.0)); break;
    case 1: TU_EXPECT_OK(skit_kernel_shifted_gaussian_create(&k, 0.8, 5.0, 3.5)); break;
    case 2: TU_EXPECT_OK(skit_kernel_matern52_create(&k, 2.0, 9.0)); break;
    case 3: TU_EXPECT_OK(skit_kernel_exp_cosine_create(&k, 1.0, 6.0, 0.4)); break;
    case 4: {
        skit_mlp *m = NULL;
        TU_EXPECT_OK(skit_mlp_create(&m, 1, 16, 2, 3, SKIT_ACTIVATION_GELU, SKIT_NORM_LAYER, 7));
        TU_EXPECT_OK(skit_kernel_tnn_create(&k, m, 1, 0.9, SKIT_ACTIVATION_GELU));
        *mlp_out = m;
        break;
    }
    case 5: {
        double v[8] = {0.3, -0.2, 0.5, 0.1, 0.7, -0.4, 0.9, 1.1};
        TU_EXPECT_OK(skit_kernel_warped_linear_create(&k, 4, v, 0.8));
        break;
    }
    }
    return k;
}
#define NKERNELS 6

/* make_kernel(5)'s interior knots z = j/4 (j = 1..3) are reached at |t| = ln(j/4)/ln(0.8) */
#define WARPED_INNER_KNOTS 3
static double warped_knot_lag(int j) { return log(j / 4.0) / log(0.8); }

/* SKI plan options: the defaults with these three fields */
static skit_ski_options ski_options(skit_toeplitz_sharing sharing, skit_ski_method method, skit_precision precision)
{
    skit_ski_options o;
    skit_ski_options_default(&o);
    o.sharing = sharing;
    o.method = method;
    o.precision = precision;
    return o;
}

static void naive_ski(const skit_interp_weights *W, const double *coeffs, const double *x, double *y)
{
    size_t n = W->n, r = W->r;
    double *u = calloc(r, sizeof *u), *v = calloc(r, sizeof *v);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < W->width; k++) u[W->start[i] + k] += W->weights[i * W->width + k] * x[i];
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < r; j++) v[i] += coeffs[i - j + r - 1] * u[j];
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t k = 0; k < W->width; k++) s += W->weights[i * W->width + k] * v[W->start[i] + k];
        y[i] = s;
    }
    free(u);
    free(v);
}

/* ||M||_2 by LAPACK dgesvd, independent of skit's spectral module */
static double lapack_norm2(size_t m, size_t n, const double *M)
{
    double *c = malloc(m * n * sizeof *c), *s = malloc((m < n ? m : n) * sizeof *s);
    double *sup = malloc((m < n ? m : n) * sizeof *sup);
    memcpy(c, M, m * n * sizeof *c);
    lapack_int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', (lapack_int)m, (lapack_int)n, c,
                                     (lapack_int)m, s, NULL, 1, NULL, 1, sup);
    ck_assert_int_eq(info, 0);
    double v = s[0];
    free(c);
    free(s);
    free(sup);
    return v;
}

/* ---- kernels ------------------------------------------------------------------- */

START_TEST(test_kernel_values_closed_form)
{
    skit_kernel *g, *sg, *m, *ec;
    TU_EXPECT_OK(skit_kernel_gaussian_create(&g, 2.0, 3.0));
    TU_EXPECT_OK(skit_kernel_shifted_gaussian_create(&sg, 2.0, 3.0, 1.5));
    TU_EXPECT_OK(skit_kernel_matern52_create(&m, 2.0, 3.0));
    TU_EXPECT_OK(skit_kernel_exp_cosine_create(&ec, 2.0, 3.0, 0.7));
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int it = 0; it < 200; it++) {
        double t = skit_rng_uniform_range(&rng, -20, 20), v;
        TU_EXPECT_OK(skit_kernel_eval(g, 1, &t, &v));
        ck_assert_double_eq_tol(v, 2.0 * exp(-t * t / 18.0), 1e-14);
        TU_EXPECT_OK(skit_kernel_eval(sg, 1, &t, &v));
        ck_assert_double_eq_tol(v, 2.0 * exp(-(t - 1.5) * (t - 1.5) / 18.0), 1e-14);
        TU_EXPECT_OK(skit_kernel_eval(m, 1, &t, &v));
        double u = sqrt(5.0) * fabs(t) / 3.0;
        ck_assert_double_eq_tol(v, 2.0 * (1 + u + u * u / 3) * exp(-u), 1e-14);
        TU_EXPECT_OK(skit_kernel_eval(ec, 1, &t, &v));
        ck_assert_double_eq_tol(v, 2.0 * exp(-fabs(t) / 3.0) * cos(0.7 * t), 1e-14);
    }
    /* the shifted Gaussian is asymmetric */
    double tp = 2, tn = -2, vp, vn;
    skit_kernel_eval(sg, 1, &tp, &vp);
    skit_kernel_eval(sg, 1, &tn, &vn);
    ck_assert(fabs(vp - vn) > 0.1);
    char text[256];
    skit_kernel_describe(sg, text, sizeof text);
    ck_assert_msg(strstr(text, "shift=1.5") != NULL, "%s", text);
    skit_kernel_destroy(g);
    skit_kernel_destroy(sg);
    skit_kernel_destroy(m);
    skit_kernel_destroy(ec);
}
END_TEST

START_TEST(test_kernel_tnn_and_warped_values)
{
    skit_mlp *mlp;
    TU_EXPECT_OK(skit_mlp_create(&mlp, 1, 8, 1, 2, SKIT_ACTIVATION_SILU, SKIT_NORM_RMS, 3));
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_tnn_create(&k, mlp, 1, 0.95, SKIT_ACTIVATION_SILU));
    double t[5] = {-7, -1, 0, 2, 30}, v[5], y[10];
    TU_EXPECT_OK(skit_kernel_eval(k, 5, t, v));
    TU_EXPECT_OK(skit_mlp_eval(mlp, 5, t, y, NULL));
    for (int i = 0; i < 5; i++) ck_assert_double_eq_tol(v[i], y[2 * i + 1] * pow(0.95, fabs(t[i])), 1e-14);
    skit_kernel_destroy(k);
    skit_mlp_destroy(mlp);

    /* warped: knots z = -1, -0.5, 0, 0.5, 1 with f(0) = 0 */
    double vals[4] = {4, 2, 3, 5}; /* f(-1), f(-0.5), f(0.5), f(1) */
    TU_EXPECT_OK(skit_kernel_warped_linear_create(&k, 2, vals, 0.5));
    double tt[6] = {0, 1, 2, -1, -2, 200}, vv[6];
    TU_EXPECT_OK(skit_kernel_eval(k, 6, tt, vv));
    ck_assert_double_eq_tol(vv[0], 5, 1e-15);      /* k(0) = f(1), outermost knot */
    ck_assert_double_eq_tol(vv[1], 3, 1e-15);      /* x = 0.5 */
    ck_assert_double_eq_tol(vv[2], 3 * 0.5, 1e-15); /* x = 0.25: halfway between 0 and f(0.5) = 3 */
    ck_assert_double_eq_tol(vv[3], 2, 1e-15);      /* x = -0.5 */
    ck_assert_double_eq_tol(vv[4], 1, 1e-15);      /* x = -0.25 */
    ck_assert(fabs(vv[5]) < 1e-12);                /* k -> 0 as |t| -> infinity */
    skit_kernel_destroy(k);
}
END_TEST

START_TEST(test_kernel_derivatives_match_finite_differences)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int which = 0; which < NKERNELS; which++) {
        skit_mlp *mlp;
        skit_kernel *k = make_kernel(which, &mlp);
        for (int it = 0; it < 40; it++) {
            double t = skit_rng_uniform_range(&rng, 0.3, 12.0) * (skit_rng_uniform(&rng) < 0.5 ? -1 : 1);
            double d[7], dp[7], dm[7], h = 1e-5;
            TU_EXPECT_OK(skit_kernel_derivatives(k, t, 6, d));
            TU_EXPECT_OK(skit_kernel_derivatives(k, t + h, 5, dp));
            TU_EXPECT_OK(skit_kernel_derivatives(k, t - h, 5, dm));
            double v;
            TU_EXPECT_OK(skit_kernel_eval(k, 1, &t, &v));
            ck_assert_double_eq_tol(d[0], v, 1e-12 * (1 + fabs(v)));
            /* the warped kernel has knots: skip samples within h of one */
            int near_knot = 0;
            if (which == 5)
                for (int j = 1; j <= WARPED_INNER_KNOTS; j++)
                    if (fabs(fabs(t) - warped_knot_lag(j)) < 1e-3) near_knot = 1;
            if (near_knot) continue;
            for (int m = 1; m <= 5; m++) {
                double fd = (dp[m - 1] - dm[m - 1]) / (2 * h);
                double scale = 1e-6 * (fabs(d[m]) + fabs(dp[m - 1]) + 1e-3 * fabs(d[0]) + 1e-12);
                ck_assert_msg(fabs(fd - d[m]) <= scale + 1e-7,
                              "kernel %d t %g order %d: derivative %g, finite difference %g", which,
                              t, m, d[m], fd);
            }
        }
        skit_kernel_destroy(k);
        skit_mlp_destroy(mlp);
    }
}
END_TEST

/* Lags in [lo, hi] where a supremum of |k^(order)| can sit on a set too small
 * for random samples to hit: the ends, and both sides of the kernel's
 * non-smooth points (t = 0; the warped kernel's knots), taken 1e-9 inside
 * each piece since the derivative there is a one-sided limit. */
static size_t bound_lags(int which, double lo, double hi, double *lags)
{
    double marks[1 + 2 * WARPED_INNER_KNOTS] = {0};
    size_t nmarks = 1, n = 0;
    if (which == 5)
        for (int j = 1; j <= WARPED_INNER_KNOTS; j++) {
            marks[nmarks++] = warped_knot_lag(j);
            marks[nmarks++] = -warped_knot_lag(j);
        }
    lags[n++] = lo;
    lags[n++] = hi;
    for (size_t i = 0; i < nmarks; i++)
        if (marks[i] > lo && marks[i] < hi) {
            double inside = 1e-9 * (1 + fabs(marks[i]));
            lags[n++] = marks[i] - inside;
            lags[n++] = marks[i] + inside;
        }
    return n;
}

/* max |k^(order)| over 3000 random lags in [lo, hi] and the bound_lags */
static double sampled_derivative_max(const skit_kernel *k, int which, size_t order, double lo,
                                     double hi, skit_rng *rng)
{
    double lags[3000 + 2 + 2 * (1 + 2 * WARPED_INNER_KNOTS)];
    size_t n = 0;
    while (n < 3000) lags[n++] = skit_rng_uniform_range(rng, lo, hi);
    n += bound_lags(which, lo, hi, lags + n);
    double seen = 0;
    for (size_t s = 0; s < n; s++) {
        double d[8];
        TU_EXPECT_OK(skit_kernel_derivatives(k, lags[s], order, d));
        if (fabs(d[order]) > seen) seen = fabs(d[order]);
    }
    return seen;
}

/* The exact bounds (Matern, warped) and the Gaussian's near-exact one must
 * be attained: the supremum sits at an end, at a one-sided limit at 0 or a
 * knot, or (Matern, Gaussian) at a smooth interior maximum that the random
 * lags resolve to well within 5%.
 * Random lags alone missed a supremum on a sliver of the interval about
 * once in 300 runs, e.g. SKIT_TEST_SEED=884 (warped, order 1, [-26.44, 1.2899]:
 * the steep piece past the knot at t = 1.2892) and 2049 (Matern, order 4,
 * [1.78, 28.47]: fast decay from t = lo). */
START_TEST(test_kernel_derivative_bound_dominates_samples)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int which = 0; which < NKERNELS; which++) {
        skit_mlp *mlp;
        skit_kernel *k = make_kernel(which, &mlp);
        for (size_t order = 0; order <= 5; order++) {
            double lo = skit_rng_uniform_range(&rng, -30, 5), hi = lo + skit_rng_uniform_range(&rng, 0.5, 40);
            skit_derivative_bound b;
            TU_EXPECT_OK(skit_kernel_derivative_bound(k, order, lo, hi, &b));
            ck_assert(isfinite(b.value) && b.value >= 0);
            double seen = sampled_derivative_max(k, which, order, lo, hi, &rng);
            ck_assert_msg(seen <= b.value * (1 + 1e-9) + 1e-300,
                          "kernel %d order %zu on [%g, %g]: sampled %g > bound %g (kind %d)", which,
                          order, lo, hi, seen, b.value, (int)b.kind);
            /* the warped kernel's supremum always sits at one of the bound_lags */
            double slack = which == 5 ? 1e-6 : 0.05;
            if (which == 2 || which == 5 || which == 0)
                ck_assert_msg(b.value <= (1 + slack) * seen + 1e-12,
                              "kernel %d order %zu on [%g, %g]: bound %g much larger than sampled max %g",
                              which, order, lo, hi, b.value, seen);
        }
        skit_kernel_destroy(k);
        skit_mlp_destroy(mlp);
    }
}
END_TEST

START_TEST(test_kernel_smoothness_flags)
{
    skit_mlp *mlp;
    skit_kernel *k;
    int s;
    k = make_kernel(2, &mlp); /* Matern-5/2: C^4 at 0 */
    TU_EXPECT_OK(skit_kernel_smoothness(k, 4, -1, 1, &s));
    ck_assert_int_eq(s, 1);
    TU_EXPECT_OK(skit_kernel_smoothness(k, 5, -1, 1, &s));
    ck_assert_int_eq(s, 0);
    TU_EXPECT_OK(skit_kernel_smoothness(k, 9, 0, 1, &s)); /* 0 only at the end: fine */
    ck_assert_int_eq(s, 1);
    skit_kernel_destroy(k);
    k = make_kernel(3, &mlp); /* exp-cosine: C^0 at 0 */
    TU_EXPECT_OK(skit_kernel_smoothness(k, 1, -1, 1, &s));
    ck_assert_int_eq(s, 0);
    TU_EXPECT_OK(skit_kernel_smoothness(k, 0, -1, 1, &s));
    ck_assert_int_eq(s, 1);
    TU_EXPECT_OK(skit_kernel_smoothness(k, 7, 1, 2, &s));
    ck_assert_int_eq(s, 1);
    skit_kernel_destroy(k);
    k = make_kernel(0, &mlp);
    TU_EXPECT_OK(skit_kernel_smoothness(k, 12, -100, 100, &s));
    ck_assert_int_eq(s, 1);
    skit_kernel_destroy(k);
    k = make_kernel(5, &mlp); /* warped: knot at |t| = ln(1/2)/ln(0.8) = 3.106 */
    TU_EXPECT_OK(skit_kernel_smoothness(k, 1, 3.0, 3.2, &s));
    ck_assert_int_eq(s, 0);
    TU_EXPECT_OK(skit_kernel_smoothness(k, 1, 3.2, 3.5, &s));
    ck_assert_int_eq(s, 1);
    TU_EXPECT_OK(skit_kernel_smoothness(k, 0, -1, 1, &s)); /* f(-1) != f(1): jump at 0 */
    ck_assert_int_eq(s, 0);
    skit_kernel_destroy(k);
}
END_TEST

START_TEST(test_kernel_toeplitz_coeffs)
{
    skit_mlp *mlp;
    skit_kernel *k = make_kernel(1, &mlp);
    double c[9];
    TU_EXPECT_OK(skit_kernel_toeplitz_coeffs(k, 5, 2.5, c));
    for (int m = -4; m <= 4; m++) {
        double t = 2.5 * m, v;
        skit_kernel_eval(k, 1, &t, &v);
        ck_assert_double_eq_tol(c[m + 4], v, 1e-15);
    }
    skit_kernel_destroy(k);
}
END_TEST

/* ---- interpolation weights ------------------------------------------------------ */

static double poly(const double *c, int deg, double x)
{
    double v = 0;
    for (int k = deg; k >= 0; k--) v = v * x + c[k];
    return v;
}

/* max over rows of |sum_l w_il q(p_l) - q(x_i)| / scale for a random polynomial q of degree deg */
static double reproduction_error(const skit_interp_weights *W, int deg, skit_rng *rng)
{
    double c[16];
    for (int k = 0; k <= deg; k++) c[k] = skit_rng_normal(rng);
    double lo = W->options.lo, hi = W->options.hi, mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
    double err = 0;
    for (size_t i = 0; i < W->n; i++) {
        double s = 0;
        for (size_t k = 0; k < W->width; k++) {
            double p = (W->inducing[W->start[i] + k] - mid) / half;
            s += W->weights[i * W->width + k] * poly(c, deg, p);
        }
        double e = fabs(s - poly(c, deg, (W->points[i] - mid) / half));
        if (e > err) err = e;
    }
    return err;
}

START_TEST(test_linear_weights_properties)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (size_t a = 0; a < NOP; a++) {
        size_t n = op_sizes[a];
        size_t rs[3] = {2, n > 3 ? n / 3 + 1 : 2, n};
        for (int b = 0; b < 3; b++) {
            size_t r = rs[b];
            skit_interp_options o;
            skit_interp_options_default(&o, n);
            if (n == 1) continue;
            skit_interp_weights *W;
            TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
            ck_assert_uint_eq(W->width, 2);
            for (size_t i = 0; i < n; i++) {
                double s = 0;
                for (size_t k = 0; k < 2; k++) {
                    double w = W->weights[i * 2 + k];
                    ck_assert_msg(w >= 0 && w <= 1, "n %zu r %zu row %zu weight %g", n, r, i, w);
                    s += w;
                }
                ck_assert_double_eq_tol(s, 1.0, 1e-14);
            }
            ck_assert(reproduction_error(W, 1, &rng) < 1e-12);
            skit_interp_weights_destroy(W);
        }
    }
    /* random points on a random interval */
    for (int it = 0; it < 20; it++) {
        size_t n = 1 + skit_rng_below(&rng, 300), r = 2 + skit_rng_below(&rng, 60);
        skit_interp_options o;
        skit_interp_options_default(&o, n);
        o.lo = skit_rng_uniform_range(&rng, -10, 10);
        o.hi = o.lo + skit_rng_uniform_range(&rng, 0.1, 100);
        double *x = tu_alloc(n);
        for (size_t i = 0; i < n; i++) x[i] = skit_rng_uniform_range(&rng, o.lo, o.hi);
        skit_interp_weights *W;
        TU_EXPECT_OK(skit_interp_weights_create(&W, n, x, r, &o));
        for (size_t i = 0; i < n * 2; i++) ck_assert(W->weights[i] >= -1e-15 && W->weights[i] <= 1 + 1e-15);
        ck_assert(reproduction_error(W, 1, &rng) < 1e-12);
        skit_interp_weights_destroy(W);
        skit_free(x);
    }
}
END_TEST

START_TEST(test_cubic_weights_reproduce_quadratics)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (size_t a = 0; a < NOP; a++) {
        size_t n = op_sizes[a];
        if (n < 3) continue;
        size_t rs[4] = {3, n >= 4 ? 4 : 3, n / 2 > 3 ? n / 2 : 3, n};
        for (int b = 0; b < 4; b++) {
            skit_interp_options o;
            skit_interp_options_default(&o, n);
            o.scheme = SKIT_INTERP_CUBIC;
            skit_interp_weights *W;
            TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, rs[b], &o));
            for (size_t i = 0; i < n; i++) {
                double s = 0;
                for (size_t k = 0; k < W->width; k++) s += W->weights[i * W->width + k];
                ck_assert_double_eq_tol(s, 1.0, 1e-13);
            }
            double e2 = reproduction_error(W, 2, &rng);
            ck_assert_msg(e2 < 1e-11, "n %zu r %zu: quadratic error %g", n, rs[b], e2);
            /* and not cubics (the scheme is third-order, not exact for cubics) */
            skit_interp_weights_destroy(W);
        }
    }
    /* points outside [lo, hi] extend the end pieces and stay quadratic-exact */
    skit_interp_options o;
    skit_interp_options_default(&o, 10);
    o.scheme = SKIT_INTERP_CUBIC;
    o.lo = 2;
    o.hi = 7;
    double x[4] = {0, 1.5, 7.5, 9};
    skit_interp_weights *W;
    TU_EXPECT_OK(skit_interp_weights_create(&W, 4, x, 6, &o));
    ck_assert(reproduction_error(W, 2, &rng) < 1e-10);
    skit_interp_weights_destroy(W);
}
END_TEST

START_TEST(test_lagrange_weights_reproduce_degree_n)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (size_t N = 1; N <= SKIT_INTERP_MAX_DEGREE; N++) {
        size_t sizes[3] = {N + 1, 2 * N + 3, 97};
        for (int a = 0; a < 3; a++) {
            size_t n = sizes[a] < N + 1 ? N + 1 : sizes[a];
            size_t r = a == 0 ? N + 1 : (n / 2 > N + 1 ? n / 2 : N + 1);
            skit_interp_options o;
            skit_interp_options_default(&o, n);
            o.scheme = SKIT_INTERP_LAGRANGE;
            o.degree = N;
            skit_interp_weights *W;
            TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
            ck_assert_uint_eq(W->width, N + 1);
            ck_assert_int_eq(W->exactness, (int)N);
            double e = reproduction_error(W, (int)N, &rng);
            ck_assert_msg(e < 1e-9 * pow(2.0, (double)N), "N %zu n %zu r %zu: error %g", N, n, r, e);
            skit_interp_weights_destroy(W);
        }
    }
    /* Lagrange N = 1 is linear interpolation */
    skit_interp_options o1, o2;
    skit_interp_options_default(&o1, 50);
    skit_interp_options_default(&o2, 50);
    o2.scheme = SKIT_INTERP_LAGRANGE;
    o2.degree = 1;
    skit_interp_weights *A, *B;
    TU_EXPECT_OK(skit_interp_weights_create(&A, 50, NULL, 9, &o1));
    TU_EXPECT_OK(skit_interp_weights_create(&B, 50, NULL, 9, &o2));
    for (size_t i = 0; i < 50; i++) {
        ck_assert_uint_eq(A->start[i], B->start[i]);
        ck_assert_double_eq_tol(A->weights[2 * i], B->weights[2 * i], 1e-15);
    }
    skit_interp_weights_destroy(A);
    skit_interp_weights_destroy(B);
}
END_TEST

START_TEST(test_authors_weights_reproduce_their_construction)
{
    size_t n = 512, r = 32;
    skit_interp_options o;
    skit_interp_options_default(&o, n);
    o.scheme = SKIT_INTERP_AUTHORS_BRACKET;
    skit_interp_weights *W;
    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
    double h = (double)(n - 1) / (double)(r - 1);
    int outside = 0;
    for (size_t i = 0; i < n; i++) {
        /* upper bracket: first j with p_j >= x, clamped to r-2 */
        size_t j = 0;
        while (j < r && (double)j * h < (double)i) j++;
        if (j > r - 2) j = r - 2;
        ck_assert_uint_eq(W->start[i], j);
        double wl = ((double)i - (double)j * h) / h;
        ck_assert_double_eq_tol(W->weights[2 * i], wl, 1e-12);
        ck_assert_double_eq_tol(W->weights[2 * i + 1], 1 - wl, 1e-12);
        if (W->weights[2 * i] < -1e-12 || W->weights[2 * i + 1] > 1 + 1e-12) outside++;
    }
    ck_assert_msg(outside > (int)n / 2, "only %d rows with weights outside [0, 1]", outside);
    skit_interp_weights_destroy(W);
    /* with the falloff gamma^(i n): at n = 512, gamma = 0.99 only ~3 rows stay above 1e-6 */
    o.scheme = SKIT_INTERP_AUTHORS;
    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
    int alive = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(W->weights[2 * i]) + fabs(W->weights[2 * i + 1]) > 1e-6) alive++;
    ck_assert_int_eq(alive, 3);
    ck_assert_int_eq(W->exactness, -1);
    skit_interp_weights_destroy(W);
}
END_TEST

START_TEST(test_interp_apply_matches_dense)
{
    /* W^T x sums runs of rows that share a window start (>= 8 rows: long
     * for n >> r) in one vectorised pass and scatters shorter runs row by
     * row: short and long runs, and unsorted points (runs of one row). */
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    static const size_t ns[] = {37, 37, 1031, 4099, 211};
    static const size_t rsz[] = {9, 2, 64, 7, 17};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (int scheme = 0; scheme <= 4; scheme++) {
            size_t n = ns[a], r = rsz[a], d = 3;
            if (scheme == 1 && r < 3) continue;
            skit_interp_options o;
            skit_interp_options_default(&o, n);
            o.scheme = (skit_interp_scheme)scheme;
            o.degree = r > 4 ? 4 : r - 1;
            double *pts = NULL;
            if (a == 4) { /* unsorted, off the grid */
                pts = tu_alloc(n);
                for (size_t i = 0; i < n; i++) pts[i] = skit_rng_uniform_range(&rng, 0, (double)(n - 1));
            }
            skit_interp_weights *W;
            TU_EXPECT_OK(skit_interp_weights_create(&W, n, pts, r, &o));
            double *D = tu_alloc(n * r), *X = tu_random(&rng, n * d), *U = tu_random(&rng, r * d);
            double *Y = tu_alloc(n * d), *V = tu_alloc(r * d), *Yr = tu_alloc(n * d), *Vr = tu_alloc(r * d);
            TU_EXPECT_OK(skit_interp_weights_dense(W, D, n));
            TU_EXPECT_OK(skit_interp_apply(W, d, U, r, Y, n));
            TU_EXPECT_OK(skit_interp_apply_transpose(W, d, X, n, V, r));
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)d, (int)r, 1, D, (int)n, U, (int)r, 0, Yr, (int)n);
            cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)r, (int)d, (int)n, 1, D, (int)n, X, (int)n, 0, Vr, (int)r);
            ck_assert_msg(tu_rel_error(Y, Yr, n * d) < 1e-13, "n %zu r %zu scheme %d", n, r, scheme);
            ck_assert_msg(tu_rel_error(V, Vr, r * d) < 1e-13, "n %zu r %zu scheme %d: %g", n, r, scheme, tu_rel_error(V, Vr, r * d));
            skit_interp_weights_destroy(W);
            skit_free(pts); skit_free(D); skit_free(X); skit_free(U); skit_free(Y); skit_free(V); skit_free(Yr); skit_free(Vr);
        }
}
END_TEST

/* ---- SKI, Nystrom, sparse + low rank ----------------------------------------------- */

/* W of a scheme on the points 0..n-1 with r inducing points (degree 3,
 * or r - 1 if smaller). */
static skit_interp_weights *scheme_weights(size_t n, size_t r, int scheme)
{
    skit_interp_options o;
    skit_interp_options_default(&o, n);
    o.scheme = (skit_interp_scheme)scheme;
    o.degree = r > 3 ? 3 : r - 1;
    skit_interp_weights *W;
    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
    return W;
}

START_TEST(test_ski_action_equals_dense)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (size_t a = 0; a < NOP; a++) {
        size_t n = op_sizes[a];
        size_t rs[3] = {2, n < 5 ? n : 5, n > 64 ? 64 : n};
        for (int b = 0; b < 3; b++)
            for (int scheme = 0; scheme <= 4; scheme++) {
                size_t r = rs[b], d = 1 + (a % 3);
                if (scheme == 1 && r < 3) continue;
                skit_interp_weights *W = scheme_weights(n, r, scheme);
                double *coeffs = tu_random(&rng, d * (2 * r - 1)), *X = tu_random(&rng, n * d);
                double *Y = tu_alloc(n * d), *R = tu_alloc(n * d);
                for (size_t c = 0; c < d; c++) naive_ski(W, coeffs + c * (2 * r - 1), X + c * n, R + c * n);
                for (int method = 0; method <= 1; method++) {
                    skit_ski_plan *p;
                    skit_ski_options o = ski_options(SKIT_TOEPLITZ_PER_CHANNEL, (skit_ski_method)method,
                                                     SKIT_PRECISION_F64);
                    TU_EXPECT_OK(skit_ski_plan_create(&p, W, d, &o, coeffs));
                    tu_poison(Y, n * d);
                    TU_EXPECT_OK(skit_ski_plan_execute(p, X, n, Y, n));
                    double e = tu_rel_error(Y, R, n * d);
                    ck_assert_msg(e < 1e-12, "n %zu r %zu scheme %d method %d: error %g", n, r, scheme, method, e);
                    skit_ski_plan_destroy(p);
                    /* shared: channel 0's matrix for every column */
                    o.sharing = SKIT_TOEPLITZ_SHARED;
                    TU_EXPECT_OK(skit_ski_plan_create(&p, W, d, &o, coeffs));
                    tu_poison(Y, n * d);
                    TU_EXPECT_OK(skit_ski_plan_execute(p, X, n, Y, n));
                    for (size_t c = 0; c < d; c++) naive_ski(W, coeffs, X + c * n, R + c * n);
                    ck_assert(tu_rel_error(Y, R, n * d) < 1e-12);
                    for (size_t c = 0; c < d; c++) naive_ski(W, coeffs + c * (2 * r - 1), X + c * n, R + c * n);
                    skit_ski_plan_destroy(p);
                }
                if (n <= 256) {
                    double *T = tu_alloc(n * n);
                    TU_EXPECT_OK(skit_ski_dense(W, coeffs, T, n));
                    double *y = tu_alloc(n);
                    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)n, 1, T, (int)n, X, 1, 0, y, 1);
                    ck_assert(tu_rel_error(y, R, n) < 1e-12);
                    skit_free(T);
                    skit_free(y);
                }
                skit_interp_weights_destroy(W);
                skit_free(coeffs); skit_free(X); skit_free(Y); skit_free(R);
            }
    }
}
END_TEST

START_TEST(test_ski_action_arbitrary_points)
{
    /* unsorted points off the integer grid: every row its own run */
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int scheme = 0; scheme <= 2; scheme++) {
        size_t n = 301, r = 17, d = 2;
        double *x = tu_alloc(n);
        for (size_t i = 0; i < n; i++) x[i] = skit_rng_uniform_range(&rng, -3, 250);
        skit_interp_options o;
        skit_interp_options_default(&o, n);
        o.lo = -3;
        o.hi = 250;
        o.scheme = (skit_interp_scheme)scheme;
        o.degree = 2;
        skit_interp_weights *W;
        TU_EXPECT_OK(skit_interp_weights_create(&W, n, x, r, &o));
        double *coeffs = tu_random(&rng, d * (2 * r - 1)), *X = tu_random(&rng, n * d);
        double *Y = tu_alloc(n * d), *R = tu_alloc(n * d);
        for (size_t c = 0; c < d; c++) naive_ski(W, coeffs + c * (2 * r - 1), X + c * n, R + c * n);
        skit_ski_plan *p;
        TU_EXPECT_OK(skit_ski_plan_create(&p, W, d, NULL, coeffs));
        TU_EXPECT_OK(skit_ski_plan_execute(p, X, n, Y, n));
        ck_assert_msg(tu_rel_error(Y, R, n * d) < 1e-12, "scheme %d: %g", scheme, tu_rel_error(Y, R, n * d));
        skit_ski_plan_destroy(p);
        skit_interp_weights_destroy(W);
        skit_free(x); skit_free(coeffs); skit_free(X); skit_free(Y); skit_free(R);
    }
}
END_TEST

/* R = W A_c W^T x_c for every channel through dense W (n x r) and dense A_c
 * by BLAS: independent of the plan's runs, planes and implicit weights. */
static void dense_ski(const skit_interp_weights *W, const double *coeffs, size_t d, const double *X,
                      size_t ldx, double *R)
{
    size_t n = W->n, r = W->r;
    double *D = tu_alloc(n * r), *A = tu_alloc(r * r), *U = tu_alloc(r * d), *V = tu_alloc(r * d);
    TU_EXPECT_OK(skit_interp_weights_dense(W, D, n));
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)r, (int)d, (int)n, 1, D, (int)n, X, (int)ldx, 0, U, (int)r);
    for (size_t c = 0; c < d; c++) {
        for (size_t j = 0; j < r; j++)
            for (size_t i = 0; i < r; i++) A[i + j * r] = coeffs[c * (2 * r - 1) + i - j + r - 1];
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)r, (int)r, 1, A, (int)r, U + c * r, 1, 0, V + c * r, 1);
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)d, (int)r, 1, D, (int)n, V, (int)r, 0, R, (int)n);
    skit_free(D); skit_free(A); skit_free(U); skit_free(V);
}

/* The float32 SKI action against the float64 one on the same (float)
 * inputs, channel by channel within the bound of skit/ski.h, every scheme,
 * both sharings, sizes incl. odd and prime n, d up to 40 (threads, and the
 * float64 plan's channel blocks, when n d > 32768), leading dimensions
 * above n, outputs poisoned; and its refusals. */
static double ski_f32_bound(const skit_interp_weights *W, const double *D, const double *a, const double *x,
                            size_t N)
{
    size_t n = W->n, r = W->r, m = 0;
    double *U = tu_alloc(r), *V = tu_alloc(r), *Ua = tu_alloc(r), wn1 = 0, wninf = 0, a1 = 0;
    for (size_t j = 0; j < r; j++) {
        size_t cnt = 0;
        double col = 0;
        U[j] = Ua[j] = 0;
        for (size_t i = 0; i < n; i++) {
            cnt += W->start[i] <= j && j < W->start[i] + W->width;
            U[j] += D[i + j * n] * x[i];
            Ua[j] += fabs(D[i + j * n] * x[i]);
            col += fabs(D[i + j * n]);
        }
        m = cnt > m ? cnt : m;
        wn1 = fmax(wn1, col);
    }
    for (size_t k = 0; k < 2 * r - 1; k++) a1 += fabs(a[k]);
    for (size_t i = 0; i < r; i++) {
        V[i] = 0;
        for (size_t j = 0; j < r; j++) V[i] += a[i - j + r - 1] * U[j];
    }
    double wv = 0, un = 0, uan = 0;
    for (size_t i = 0; i < n; i++) {
        double row = 0, s = 0;
        for (size_t j = 0; j < r; j++) row += fabs(D[i + j * n]), s += fabs(D[i + j * n] * V[j]);
        wninf = fmax(wninf, row);
        wv += s * s;
    }
    for (size_t j = 0; j < r; j++) un += U[j] * U[j], uan += Ua[j] * Ua[j];
    double w2 = sqrt(wn1 * wninf), eU = (2.0 * (double)m + 1) * TU_U32 * sqrt(uan);
    double toe = 20.0 * log2(2.0 * (double)N) * TU_U32 * a1 * (sqrt(un) + eU);
    skit_free(U); skit_free(V); skit_free(Ua);
    return 1.01 * (w2 * (a1 * eU + toe) + ((double)W->width + 1) * TU_U32 * sqrt(wv));
}

START_TEST(test_ski_f32_matches_f64)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t a = 0; a < NOP; a++)
        for (int scheme = 0; scheme <= 4; scheme++)
            for (int shared = 0; shared <= 1; shared++) {
                size_t n = op_sizes[a], r = n < 3 ? n : 3 + skit_rng_below(&rng, n < 80 ? n - 2 : 78);
                size_t d = 1 + skit_rng_below(&rng, n >= 1000 ? 40 : 9), ldx = n + 2, ldy = n + 1;
                if (scheme == 1 && r < 3) continue;
                skit_interp_weights *W = scheme_weights(n, r, scheme);
                skit_toeplitz_sharing sharing = shared ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL;
                size_t per = shared ? 0 : 2 * r - 1;
                double *coeffs = tu_random(&rng, (shared ? 1 : d) * (2 * r - 1)), *X = tu_random(&rng, ldx * d);
                double *Y = tu_alloc(ldy * d), *D = tu_alloc(n * r);
                float *X32 = tu_alloc_f32(ldx * d), *Y32 = tu_alloc_f32(ldy * d); /* Y32 NaN-filled */
                for (size_t i = 0; i < ldx * d; i++) X[i] = X32[i] = (float)X[i];
                /* the float plan rounds coeffs; the bound's 20 log2 term covers it */
                TU_EXPECT_OK(skit_interp_weights_dense(W, D, n));
                skit_ski_plan *p64, *p32;
                skit_ski_options o64 = ski_options(sharing, SKIT_SKI_SPARSE_FFT, SKIT_PRECISION_F64);
                skit_ski_options o32 = ski_options(sharing, SKIT_SKI_SPARSE_FFT, SKIT_PRECISION_F32);
                TU_EXPECT_OK(skit_ski_plan_create(&p64, W, d, &o64, coeffs));
                TU_EXPECT_OK(skit_ski_plan_create(&p32, W, d, &o32, coeffs));
                ck_assert_int_eq(skit_ski_plan_precision(p64), SKIT_PRECISION_F64);
                ck_assert_int_eq(skit_ski_plan_precision(p32), SKIT_PRECISION_F32);
                TU_EXPECT_OK(skit_ski_plan_execute(p64, X, ldx, Y, ldy));
                TU_EXPECT_OK(skit_ski_plan_execute_f32(p32, X32, ldx, Y32, ldy));
                size_t N = 0;
                TU_EXPECT_OK(skit_fft_good_length(2 * r - 1, &N));
                double *xc = tu_alloc(n);
                for (size_t c = 0; c < d; c++) {
                    memcpy(xc, X + c * ldx, n * sizeof *xc);
                    double err = tu_diff_f32(Y32 + c * ldy, Y + c * ldy, n);
                    double bound = ski_f32_bound(W, D, coeffs + c * per, xc, N);
                    ck_assert_msg(err <= bound, "n %zu r %zu scheme %d shared %d c %zu: %g > bound %g, seed %llu",
                                  n, r, scheme, shared, c, err, bound, (unsigned long long)seed);
                    ck_assert(isnan(Y32[c * ldy + n])); /* padding untouched */
                }
                TU_EXPECT_STATUS(skit_ski_plan_execute(p32, X, ldx, Y, ldy), SKIT_EINVAL);
                TU_EXPECT_STATUS(skit_ski_plan_execute_f32(p64, X32, ldx, Y32, ldy), SKIT_EINVAL);
                TU_EXPECT_STATUS(skit_ski_plan_execute_f32(p32, X32, n - 1, Y32, ldy), SKIT_ESHAPE);
                TU_EXPECT_STATUS(skit_ski_plan_execute_f32(p32, X32, ldx, Y32, n - 1), SKIT_ESHAPE);
                TU_EXPECT_STATUS(skit_ski_plan_execute_f32(p32, NULL, ldx, Y32, ldy), SKIT_EINVAL);
                TU_EXPECT_STATUS(skit_ski_plan_execute_f32(NULL, X32, ldx, Y32, ldy), SKIT_EINVAL);
                skit_ski_plan_destroy(p64);
                skit_ski_plan_destroy(p32);
                skit_interp_weights_destroy(W);
                skit_free(coeffs); skit_free(X); skit_free(Y); skit_free(D); skit_free(X32); skit_free(Y32);
                skit_free(xc);
            }
}
END_TEST

/* A float32 plan holds no float64 state (W's planes, A's spectra and FFT
 * scratch, U and V all in float), against a float64 plan cut into channel
 * blocks or not; variants: narrow (r = 64, linear) or wide (r = n/16,
 * cubic) stencils, per-channel or shared A. */
static size_t ski_bytes(size_t n, size_t d, int variant, skit_precision precision)
{
    int wide = variant % 2, shared = variant / 2;
    size_t r = wide ? n / 16 : 64, count = (shared ? 1 : d) * (2 * r - 1);
    skit_interp_weights *W = scheme_weights(n, r, wide ? SKIT_INTERP_CUBIC : SKIT_INTERP_LINEAR);
    double *coeffs = tu_alloc(count);
    for (size_t i = 0; i < count; i++) coeffs[i] = 1.0 / (1.0 + (double)i);
    skit_ski_options o = ski_options(shared ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL,
                                     SKIT_SKI_SPARSE_FFT, precision);
    skit_ski_plan *plan;
    TU_EXPECT_OK(skit_ski_plan_create(&plan, W, d, &o, coeffs));
    size_t bytes = skit_ski_plan_bytes(plan);
    skit_ski_plan_destroy(plan);
    skit_interp_weights_destroy(W);
    skit_free(coeffs);
    return bytes;
}

START_TEST(test_ski_f32_plan_bytes)
{
    tu_f32_bytes_sweep("SKI", 4, ski_bytes);
}
END_TEST

START_TEST(test_ski_action_threads_groups_and_long_runs)
{
    /* The sparse action hands blocks of channels to threads (when n d >
     * 32768), each block with its own Toeplitz plan, or for r large against
     * n (the last size) runs two passes around one plan ("phased"); it walks
     * channels in balanced groups of at most 4, cuts runs longer than 1024
     * rows, and recomputes linear weights on the grid 0..n-1 (any lo, hi)
     * instead of reading them: every scheme, on and off the grid, at sizes
     * with long runs (r small), odd / prime n, d that leave remainders, and
     * leading dimensions > n. */
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    static const size_t ns[] = {1031, 4099, 12289, 65537, 4099};
    static const size_t ds[] = {5, 9, 16, 3, 9};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        size_t n = ns[a], d = ds[a], ldx = n + 3, ldy = n + 1;
        size_t rs[3] = {2, 7, 64}, nr = 3;
        if (a == 4) {
            rs[0] = 1024;
            nr = 1;
        }
        for (size_t b = 0; b < nr; b++)
            for (int scheme = 0; scheme <= 4; scheme++)
                for (int grid = 0; grid <= 1; grid++) {
                    size_t r = rs[b];
                    if (scheme == 1 && r < 3) continue;
                    skit_interp_options o;
                    skit_interp_options_default(&o, n);
                    o.scheme = (skit_interp_scheme)scheme;
                    o.degree = r > 3 ? 3 : r - 1;
                    double *pts = NULL;
                    if (grid) {
                        /* inducing points past both ends of the data */
                        o.lo = -2.5;
                        o.hi = (double)n + 4.0;
                    } else {
                        /* sorted points off the integer grid */
                        pts = tu_alloc(n);
                        for (size_t i = 0; i < n; i++) pts[i] = (double)i + 0.25 * skit_rng_uniform(&rng);
                    }
                    skit_interp_weights *W;
                    TU_EXPECT_OK(skit_interp_weights_create(&W, n, pts, r, &o));
                    double *coeffs = tu_random(&rng, d * (2 * r - 1)), *X = tu_random(&rng, ldx * d);
                    double *Y = tu_alloc(ldy * d), *R = tu_alloc(n * d);
                    dense_ski(W, coeffs, d, X, ldx, R);
                    skit_ski_plan *p;
                    TU_EXPECT_OK(skit_ski_plan_create(&p, W, d, NULL, coeffs));
                    tu_poison(Y, ldy * d);
                    TU_EXPECT_OK(skit_ski_plan_execute(p, X, ldx, Y, ldy));
                    for (size_t c = 0; c < d; c++) {
                        /* FFT rounding: |y - y^| <= c eps log2 N (|W| |T| |W^T| |x|), and
                         * |W| rows sum to at most ~2 (Lebesgue constant of the schemes), so
                         * relative to max|y| the bound grows by |t|_1 max|x| / max|y|:
                         * a channel whose output cancels may exceed a fixed 1e-12 (seen:
                         * 2.8e-12 at n = 12289) without any bug. */
                        double t1 = 0, xmax = 0, ymax = 0;
                        for (size_t k = 0; k < 2 * r - 1; k++) t1 += fabs(coeffs[c * (2 * r - 1) + k]);
                        for (size_t i = 0; i < n; i++) {
                            xmax = fmax(xmax, fabs(X[c * ldx + i]));
                            ymax = fmax(ymax, fabs(R[c * n + i]));
                        }
                        double tol = fmax(1e-12, 64 * DBL_EPSILON * log2((double)n) * t1 * xmax /
                                                     (ymax > 0 ? ymax : 1));
                        double e = tu_rel_error(Y + c * ldy, R + c * n, n);
                        ck_assert_msg(e < tol, "n %zu d %zu r %zu scheme %d grid %d channel %zu: error %g > %g",
                                      n, d, r, scheme, grid, c, e, tol);
                        ck_assert(isnan(Y[c * ldy + n])); /* padding untouched */
                    }
                    skit_ski_plan_destroy(p);
                    skit_interp_weights_destroy(W);
                    skit_free(pts); skit_free(coeffs); skit_free(X); skit_free(Y); skit_free(R);
                }
    }
}
END_TEST

/* The rows layout against the columns layout (checked against the naive
 * action above) on the same W and coefficients: both methods, both
 * precisions, shared and per-channel, read weights and implicit ones
 * (linear on the grid), blocked and phased passes (n d past 32768), odd
 * and prime n, rows with a leading dimension beyond d whose gaps must keep
 * their poison. Both layouts sum the same products in the same order. */
static void ski_rows_case(skit_rng *rng, size_t n, size_t r, size_t d, int scheme, skit_ski_method method,
                          skit_precision precision, skit_toeplitz_sharing sharing)
{
    skit_interp_weights *W = scheme_weights(n, r, scheme);
    double *coeffs = tu_random(rng, d * (2 * r - 1)), *X = tu_random(rng, n * d);
    const size_t ld = d + 3;
    skit_ski_options o = ski_options(sharing, method, precision);
    skit_ski_plan *pc = NULL, *pr = NULL;
    TU_EXPECT_OK(skit_ski_plan_create(&pc, W, d, &o, coeffs));
    o.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_ski_plan_create(&pr, W, d, &o, coeffs));
    double *yc = tu_alloc(n * d), *yr = tu_alloc(n * ld), *xr = tu_alloc(n * ld);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < d; c++) xr[i * ld + c] = X[c * n + i];
    if (precision == SKIT_PRECISION_F32) {
        float *xcf = tu_alloc_f32(n * d), *ycf = tu_alloc_f32(n * d), *xrf = tu_alloc_f32(n * ld),
              *yrf = tu_alloc_f32(n * ld);
        for (size_t i = 0; i < n * d; i++) xcf[i] = (float)X[i];
        for (size_t i = 0; i < n * ld; i++) xrf[i] = (float)xr[i];
        TU_EXPECT_OK(skit_ski_plan_execute_f32(pc, xcf, n, ycf, n));
        TU_EXPECT_OK(skit_ski_plan_execute_f32(pr, xrf, ld, yrf, ld));
        for (size_t i = 0; i < n * d; i++) yc[i] = ycf[i];
        for (size_t i = 0; i < n * ld; i++) yr[i] = yrf[i];
        skit_free(xcf);
        skit_free(ycf);
        skit_free(xrf);
        skit_free(yrf);
    } else {
        TU_EXPECT_OK(skit_ski_plan_execute(pc, X, n, yc, n));
        TU_EXPECT_OK(skit_ski_plan_execute(pr, xr, ld, yr, ld));
    }
    double scale = 0, worst = 0;
    for (size_t i = 0; i < n * d; i++) scale = fmax(scale, fabs(yc[i]));
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < d; c++) {
            double e = fabs(yr[i * ld + c] - yc[c * n + i]);
            worst = e <= worst ? worst : e; /* NaN sticks */
        }
        for (size_t c = d; c < ld; c++)
            ck_assert_msg(isnan(yr[i * ld + c]), "n %zu: the rows plan wrote a gap", n);
    }
    /* the dense method's GEMMs sum in another order in each layout */
    const double tol = (precision == SKIT_PRECISION_F32 ? 1e-6 : 1e-13) * (method == SKIT_SKI_DENSE ? (double)n : 1.0);
    ck_assert_msg(worst <= tol * fmax(scale, 1e-300), "n %zu r %zu d %zu scheme %d method %d f32 %d shared %d: "
                  "rows off by %g of %g", n, r, d, scheme, (int)method, precision == SKIT_PRECISION_F32,
                  sharing == SKIT_TOEPLITZ_SHARED, worst, scale);
    skit_ski_plan_destroy(pc);
    skit_ski_plan_destroy(pr);
    skit_interp_weights_destroy(W);
    skit_free(coeffs);
    skit_free(X);
    skit_free(yc);
    skit_free(yr);
    skit_free(xr);
}

START_TEST(test_ski_rows_layout)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    static const size_t cases[][3] = {{2, 2, 1}, {7, 3, 2}, {45, 7, 4}, {97, 13, 9}, {1031, 64, 5}, {4099, 7, 17}};
    for (size_t a = 0; a < sizeof cases / sizeof cases[0]; a++)
        for (int scheme = 0; scheme <= 4; scheme++) {
            size_t n = cases[a][0], r = cases[a][1], d = cases[a][2];
            if (scheme == 1 && r < 3) continue;
            for (int f32 = 0; f32 < 2; f32++)
                for (int method = 0; method < (f32 ? 1 : 2); method++)
                    for (int shared = 0; shared < 2; shared++)
                        ski_rows_case(&rng, n, r, d, scheme, (skit_ski_method)method,
                                      f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64,
                                      shared ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL);
        }
    skit_interp_weights *W = scheme_weights(9, 3, 0);
    double coeffs[5] = {1, 2, 3, 2, 1}, x[27] = {0}, y[27];
    skit_ski_options o = ski_options(SKIT_TOEPLITZ_SHARED, SKIT_SKI_SPARSE_FFT, SKIT_PRECISION_F64);
    o.layout = (skit_layout)3;
    skit_ski_plan *p = NULL;
    TU_EXPECT_STATUS(skit_ski_plan_create(&p, W, 3, &o, coeffs), SKIT_EINVAL);
    o.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_ski_plan_create(&p, W, 3, &o, coeffs));
    TU_EXPECT_STATUS(skit_ski_plan_execute(p, x, 2, y, 3), SKIT_ESHAPE);
    TU_EXPECT_OK(skit_ski_plan_execute(p, x, 3, y, 3));
    skit_ski_plan_destroy(p);
    skit_interp_weights_destroy(W);
}
END_TEST

START_TEST(test_ski_plan_leading_dimensions)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 45, r = 7, d = 4, ld = 50;
    skit_interp_options o;
    skit_interp_options_default(&o, n);
    skit_interp_weights *W;
    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
    double *coeffs = tu_random(&rng, d * (2 * r - 1)), *X = tu_random(&rng, ld * d);
    double *Y = tu_alloc(ld * d), *R = tu_alloc(n);
    skit_ski_plan *p;
    TU_EXPECT_OK(skit_ski_plan_create(&p, W, d, NULL, coeffs));
    ck_assert(skit_ski_plan_bytes(p) > 0);
    TU_EXPECT_OK(skit_ski_plan_execute(p, X, ld, Y, ld));
    for (size_t c = 0; c < d; c++) {
        naive_ski(W, coeffs + c * (2 * r - 1), X + c * ld, R);
        ck_assert(tu_rel_error(Y + c * ld, R, n) < 1e-12);
        for (size_t i = n; i < ld; i++) ck_assert(isnan(Y[c * ld + i])); /* padding untouched */
    }
    skit_ski_plan_destroy(p);
    skit_interp_weights_destroy(W);
    skit_free(coeffs); skit_free(X); skit_free(Y); skit_free(R);
}
END_TEST

START_TEST(test_nystrom_full_rank_reproduces_t)
{
    for (size_t n = 2; n <= 40; n += 3) {
        skit_kernel *k;
        TU_EXPECT_OK(skit_kernel_matern52_create(&k, 1.0, 1.5));
        skit_nystrom_plan *p;
        size_t rank;
        /* r = n inducing points on the observation points 0..n-1 */
        TU_EXPECT_OK(skit_nystrom_plan_create(&p, k, n, n, 0, (double)(n - 1), -1, &rank));
        ck_assert_uint_eq(rank, n);
        double *T = tu_alloc(n * n), *R = tu_alloc(n * n);
        TU_EXPECT_OK(skit_nystrom_plan_dense(p, T, n));
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                double t = (double)i - (double)j;
                skit_kernel_eval(k, 1, &t, &R[i + j * n]);
            }
        ck_assert_msg(tu_rel_error(T, R, n * n) < 1e-10, "n %zu: %g", n, tu_rel_error(T, R, n * n));
        skit_nystrom_plan_destroy(p);
        skit_kernel_destroy(k);
        skit_free(T);
        skit_free(R);
    }
}
END_TEST

START_TEST(test_nystrom_singular_a_uses_pseudo_inverse)
{
    /* exp-cosine with a huge lengthscale is cos(w t): rank-2 Gram matrices.
     * A (r = 8) is singular; F A^+ B still reproduces T and nothing is NaN. */
    size_t n = 30, r = 8;
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_exp_cosine_create(&k, 1.0, 1e12, 0.3));
    skit_nystrom_plan *p;
    size_t rank;
    TU_EXPECT_OK(skit_nystrom_plan_create(&p, k, n, r, 0, (double)(n - 1), 1e-10, &rank));
    ck_assert_uint_eq(rank, 2);
    double *T = tu_alloc(n * n), *R = tu_alloc(n * n);
    TU_EXPECT_OK(skit_nystrom_plan_dense(p, T, n));
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) R[i + j * n] = cos(0.3 * ((double)i - (double)j));
    ck_assert(tu_rel_error(T, R, n * n) < 1e-8);
    /* execute equals the dense product */
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    double *X = tu_random(&rng, n * 70), *Y = tu_alloc(n * 70), *Yr = tu_alloc(n * 70);
    TU_EXPECT_OK(skit_nystrom_plan_execute(p, 70, X, n, Y, n));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, 70, (int)n, 1, T, (int)n, X, (int)n, 0, Yr, (int)n);
    ck_assert(tu_rel_error(Y, Yr, n * 70) < 1e-12);
    skit_nystrom_plan_destroy(p);
    skit_kernel_destroy(k);
    skit_free(T); skit_free(R); skit_free(X); skit_free(Y); skit_free(Yr);
}
END_TEST

START_TEST(test_sparse_lowrank_equals_band_plus_ski)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t sizes[] = {1, 2, 5, 17, 64, 101, 256};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++) {
        size_t n = sizes[a], d = 3;
        size_t ms[4] = {0, 1, n >= 3 ? 3 : 1, 2 * n - 1};
        for (int b = 0; b < 4; b++)
            for (int low = 0; low <= 1; low++) {
                size_t m = ms[b], r = n >= 2 ? (n < 9 ? n : 9) : 2;
                if (!low && m == 0) continue;
                if (low && n < 2) continue;
                skit_interp_weights *W = NULL;
                if (low) {
                    skit_interp_options o;
                    skit_interp_options_default(&o, n);
                    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
                }
                double *band = m ? tu_random(&rng, d * m) : NULL;
                double *coeffs = tu_random(&rng, d * (2 * r - 1)), *X = tu_random(&rng, n * d);
                double *Y = tu_alloc(n * d), *R = tu_alloc(n * d);
                for (size_t c = 0; c < d; c++) {
                    if (low) naive_ski(W, coeffs + c * (2 * r - 1), X + c * n, R + c * n);
                    else for (size_t i = 0; i < n; i++) R[c * n + i] = 0;
                    long half = m ? (long)(m - 1) / 2 : -1;
                    for (long i = 0; i < (long)n; i++)
                        for (long j = 0; j < (long)n; j++)
                            if (labs(i - j) <= half) R[c * n + i] += band[c * m + (i - j) + half] * X[c * n + j];
                }
                skit_sparse_lowrank_plan *p;
                TU_EXPECT_OK(skit_sparse_lowrank_plan_create(&p, n, d, m, band, W, coeffs, SKIT_SKI_SPARSE_FFT));
                TU_EXPECT_OK(skit_sparse_lowrank_plan_execute(p, X, n, Y, n));
                ck_assert_msg(tu_rel_error(Y, R, n * d) < 1e-12, "n %zu m %zu low %d: %g", n, m, low, tu_rel_error(Y, R, n * d));
                skit_sparse_lowrank_plan_destroy(p);
                skit_interp_weights_destroy(W);
                skit_free(band); skit_free(coeffs); skit_free(X); skit_free(Y); skit_free(R);
            }
    }
}
END_TEST

/* ---- the rows layout of the Nystrom and sparse + low-rank plans ------------------ */

/* X (n x d, column-major) copied into rows of stride ld, NaN in the gaps */
static double *rows_copy(const double *X, size_t n, size_t d, size_t ld)
{
    double *R = tu_alloc(n * ld);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < d; c++) R[i * ld + c] = X[c * n + i];
    return R;
}

/* Every entry of rows (stride ld) within tol[i + c n] of cols (ld n; tol
 * NULL: bit for bit) and every gap still NaN. */
static void expect_rows_match(const double *rows, size_t ld, const double *cols, size_t n, size_t d,
                              const double *tol, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < d; c++) {
            double r = rows[i * ld + c], k = cols[c * n + i];
            int ok = tol ? fabs(r - k) <= tol[c * n + i] : memcmp(&r, &k, sizeof r) == 0;
            ck_assert_msg(ok && !isnan(k), "%s n %zu d %zu (%zu,%zu): rows %.17g, columns %.17g (allowed %g)", what,
                          n, d, i, c, r, k, tol ? tol[c * n + i] : 0.0);
        }
        for (size_t c = d; c < ld; c++) ck_assert_msg(isnan(rows[i * ld + c]), "%s: row %zu's gap written", what, i);
    }
}

/* The Nystrom plan's rows form runs the columns form's two GEMMs on the
 * transposed blocks. The products are the same; only the GEMMs' order of
 * summation may differ, so each form is within gamma_{n+r} (|F| |G| |X|)
 * of the exact F (G X) (G = A^+ B, the plan's, recomputed here by the
 * plan's own code: n-term sums for G X, r-term sums for F (G X)), and the
 * two within twice that: the tolerance, entry by entry. */
static void nystrom_rows_case(skit_rng *rng, const skit_kernel *k, size_t n, size_t r, size_t d)
{
    const size_t ld = d + 3;
    skit_nystrom_options o;
    skit_nystrom_options_default(&o);
    ck_assert_int_eq(o.layout, SKIT_LAYOUT_COLUMNS);
    skit_nystrom_plan *pc, *pr;
    TU_EXPECT_OK(skit_nystrom_plan_create_with(&pc, k, n, r, 0, (double)(n - 1), -1, &o, NULL));
    o.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_nystrom_plan_create_with(&pr, k, n, r, 0, (double)(n - 1), -1, &o, NULL));
    double *X = tu_random(rng, n * d), *Xr = rows_copy(X, n, d, ld), *Yc = tu_alloc(n * d), *Yr = tu_alloc(n * ld);
    TU_EXPECT_OK(skit_nystrom_plan_execute(pc, d, X, n, Yc, n));
    TU_EXPECT_OK(skit_nystrom_plan_execute(pr, d, Xr, ld, Yr, ld));
    double *A = tu_alloc(r * r), *Ap = tu_alloc(r * r), *F = tu_alloc(n * r), *B = tu_alloc(r * n),
           *G = tu_alloc(r * n), *Z = tu_alloc(r * d), *tol = tu_alloc(n * d);
    TU_EXPECT_OK(ski_nystrom_factors(k, n, r, 0, (double)(n - 1), A, F, B));
    size_t rank;
    TU_EXPECT_OK(skit_pinv(r, r, A, r, -1, Ap, r, &rank));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)n, (int)r, 1.0, Ap, (int)r, B, (int)r, 0.0,
                G, (int)r);
    for (size_t i = 0; i < r * n; i++) G[i] = fabs(G[i]);
    for (size_t i = 0; i < n * r; i++) F[i] = fabs(F[i]);
    for (size_t i = 0; i < n * d; i++) X[i] = fabs(X[i]);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)d, (int)n, 1.0, G, (int)r, X, (int)n, 0.0,
                Z, (int)r);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)d, (int)r, 1.0, F, (int)n, Z, (int)r, 0.0,
                tol, (int)n);
    const double m = (double)(n + r + 2), gamma = m * 0x1p-53 / (1 - m * 0x1p-53);
    for (size_t i = 0; i < n * d; i++) tol[i] *= 2 * gamma;
    expect_rows_match(Yr, ld, Yc, n, d, tol, "nystrom");
    skit_nystrom_plan_destroy(pc);
    skit_nystrom_plan_destroy(pr);
    double *all[] = {X, Xr, Yc, Yr, A, Ap, F, B, G, Z, tol};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) skit_free(all[i]);
}

/* The sparse + low-rank plan's rows form: the band's taps in the columns
 * form's order (band alone: bit for bit), the SKI part as the SKI plan's
 * rows layout (test_ski_rows_layout's tolerance). */
static void sparse_lowrank_rows_case(skit_rng *rng, size_t n, size_t d, size_t m, int low, skit_ski_method method)
{
    const size_t r = n < 9 ? n : 9, ld = d + 2;
    skit_interp_weights *W = NULL;
    if (low) {
        skit_interp_options io;
        skit_interp_options_default(&io, n);
        TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &io));
    }
    double *band = m ? tu_random(rng, d * m) : NULL;
    if (m > 2) band[1] = 0; /* a zero tap, skipped in both forms */
    double *coeffs = tu_random(rng, d * (2 * r - 1)), *X = tu_random(rng, n * d);
    double *Xr = rows_copy(X, n, d, ld), *Yc = tu_alloc(n * d), *Yr = tu_alloc(n * ld);
    skit_sparse_lowrank_options o;
    skit_sparse_lowrank_options_default(&o);
    ck_assert_int_eq(o.layout, SKIT_LAYOUT_COLUMNS);
    o.method = method;
    skit_sparse_lowrank_plan *pc, *pr;
    TU_EXPECT_OK(skit_sparse_lowrank_plan_create_with(&pc, n, d, m, band, W, coeffs, &o));
    o.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_sparse_lowrank_plan_create_with(&pr, n, d, m, band, W, coeffs, &o));
    TU_EXPECT_OK(skit_sparse_lowrank_plan_execute(pc, X, n, Yc, n));
    TU_EXPECT_OK(skit_sparse_lowrank_plan_execute(pr, Xr, ld, Yr, ld));
    double *tol = NULL;
    if (low) {
        double scale = 0;
        for (size_t i = 0; i < n * d; i++) scale = fmax(scale, fabs(Yc[i]));
        tol = tu_alloc(n * d);
        for (size_t i = 0; i < n * d; i++) tol[i] = 1e-13 * (method == SKIT_SKI_DENSE ? (double)n : 1.0) * scale;
    }
    expect_rows_match(Yr, ld, Yc, n, d, tol, low ? "sparse+lowrank" : "band");
    skit_sparse_lowrank_plan_destroy(pc);
    skit_sparse_lowrank_plan_destroy(pr);
    skit_interp_weights_destroy(W);
    double *all[] = {band, coeffs, X, Xr, Yc, Yr, tol};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) skit_free(all[i]);
}

START_TEST(test_nystrom_sparse_lowrank_rows_layout)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_matern52_create(&k, 1.0, 4.0));
    static const size_t ny[][3] = {{2, 2, 1}, {13, 5, 3}, {97, 12, 70}, {211, 7, 129}};
    for (size_t a = 0; a < sizeof ny / sizeof ny[0]; a++) nystrom_rows_case(&rng, k, ny[a][0], ny[a][1], ny[a][2]);
    static const size_t sizes[] = {1, 2, 13, 97};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++) {
        const size_t n = sizes[a], ms[] = {0, 1, n >= 3 ? 5 : 1, 2 * n - 1};
        for (size_t b = 0; b < 4; b++)
            for (int low = 0; low <= 1; low++)
                for (int method = 0; method < 2; method++) {
                    if ((!low && ms[b] == 0) || (low && n < 2) || (!low && method)) continue;
                    sparse_lowrank_rows_case(&rng, n, 3 + a, ms[b], low, (skit_ski_method)method);
                }
    }
    /* errors: an unknown layout; a row stride below d (one below n is fine) */
    skit_nystrom_options no = {.layout = (skit_layout)2};
    skit_nystrom_plan *np = NULL;
    TU_EXPECT_STATUS(skit_nystrom_plan_create_with(&np, k, 10, 4, 0, 9, -1, &no, NULL), SKIT_EINVAL);
    ck_assert_ptr_null(np);
    no.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_nystrom_plan_create_with(&np, k, 10, 4, 0, 9, -1, &no, NULL));
    double x[30] = {0}, y[30];
    TU_EXPECT_STATUS(skit_nystrom_plan_execute(np, 3, x, 2, y, 3), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_nystrom_plan_execute(np, 3, x, 3, y, 2), SKIT_ESHAPE);
    TU_EXPECT_OK(skit_nystrom_plan_execute(np, 3, x, 3, y, 3));
    skit_nystrom_plan_destroy(np);
    double band[3] = {1, 2, 1};
    skit_sparse_lowrank_options so = {.method = SKIT_SKI_SPARSE_FFT, .layout = (skit_layout)5};
    skit_sparse_lowrank_plan *sp = NULL;
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create_with(&sp, 10, 1, 3, band, NULL, NULL, &so), SKIT_EINVAL);
    so.layout = SKIT_LAYOUT_ROWS;
    TU_EXPECT_OK(skit_sparse_lowrank_plan_create_with(&sp, 10, 3, 1, band, NULL, NULL, &so));
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_execute(sp, x, 2, y, 3), SKIT_ESHAPE);
    TU_EXPECT_OK(skit_sparse_lowrank_plan_execute(sp, x, 3, y, 3));
    skit_sparse_lowrank_plan_destroy(sp);
    skit_kernel_destroy(k);
}
END_TEST

/* ---- Theorem 1 evaluator ------------------------------------------------------------ */

START_TEST(test_theorem1_terms_match_independent_dense)
{
    size_t n = 36, r = 7;
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_matern52_create(&k, 1.0, 6.0));
    skit_theorem1 *ctx;
    TU_EXPECT_OK(skit_theorem1_create(&ctx, k, n, SKIT_NORM_DENSE_SVD));
    skit_interp_options o;
    skit_interp_options_default(&o, n);
    skit_theorem1_terms t;
    TU_EXPECT_OK(skit_theorem1_evaluate(ctx, r, &o, -1, &t));

    /* independent: closed-form kernel, explicit linear weights, LAPACK */
    double h = (double)(n - 1) / (double)(r - 1);
#define KM(tt) (exp(-sqrt(5.0) * fabs(tt) / 6.0) * (1 + sqrt(5.0) * fabs(tt) / 6.0 + 5.0 * (tt) * (tt) / 108.0))
    double *T = calloc(n * n, sizeof *T), *Wd = calloc(n * r, sizeof *Wd), *A = calloc(r * r, sizeof *A);
    double *F = calloc(n * r, sizeof *F), *B = calloc(r * n, sizeof *B);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) T[i + j * n] = KM((double)i - (double)j);
    for (size_t j = 0; j < r; j++)
        for (size_t i = 0; i < r; i++) A[i + j * r] = KM(((double)i - (double)j) * h);
    for (size_t j = 0; j < r; j++)
        for (size_t i = 0; i < n; i++) {
            F[i + j * n] = KM((double)i - (double)j * h);
            B[j + i * r] = KM((double)j * h - (double)i);
        }
    double psi = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = (size_t)floor((double)i / h);
        if (j > r - 2) j = r - 2;
        double f = (double)i / h - (double)j;
        Wd[i + j * n] = 1 - f;
        Wd[i + (j + 1) * n] = f;
        double ps = fabs(((double)i - (double)j * h) * ((double)i - (double)(j + 1) * h)) / 2;
        if (ps > psi) psi = ps;
    }
    /* SVD of T -> T_opt */
    double *Tc = malloc(n * n * sizeof *Tc), *U = malloc(n * n * sizeof *U), *Vt = malloc(n * n * sizeof *Vt);
    double *s = malloc(n * sizeof *s), *sup = malloc(n * sizeof *sup);
    memcpy(Tc, T, n * n * sizeof *T);
    ck_assert_int_eq(LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'A', (int)n, (int)n, Tc, (int)n, s, U, (int)n, Vt, (int)n, sup), 0);
    double *Topt = calloc(n * n, sizeof *Topt);
    for (size_t q = 0; q < r; q++)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) Topt[i + j * n] += U[i + q * n] * s[q] * Vt[q + j * n];
    /* A^{-1} by dgesv */
    double *Ai = calloc(r * r, sizeof *Ai), *Ac = malloc(r * r * sizeof *Ac);
    lapack_int *piv = malloc(r * sizeof *piv);
    for (size_t i = 0; i < r; i++) Ai[i + i * r] = 1;
    memcpy(Ac, A, r * r * sizeof *A);
    ck_assert_int_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, (int)r, (int)r, Ac, (int)r, piv, Ai, (int)r), 0);
    double *WA = calloc(n * r, sizeof *WA), *S = calloc(n * n, sizeof *S), *FAi = calloc(n * r, sizeof *FAi);
    double *Nys = calloc(n * n, sizeof *Nys), *AWt = calloc(r * n, sizeof *AWt), *AiB = calloc(r * n, sizeof *AiB);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < r; j++)
            for (size_t q = 0; q < r; q++) {
                WA[i + j * n] += Wd[i + q * n] * A[q + j * r];
                FAi[i + j * n] += F[i + q * n] * Ai[q + j * r];
                AWt[j + i * r] += A[j + q * r] * Wd[i + q * n];
                AiB[j + i * r] += Ai[j + q * r] * B[q + i * r];
            }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t q = 0; q < r; q++) {
                S[i + j * n] += WA[i + q * n] * Wd[j + q * n];
                Nys[i + j * n] += FAi[i + q * n] * B[q + j * r];
            }
    double *D = malloc(n * n * sizeof *D);
#define DIFFNORM(X, Y) (({ for (size_t z_ = 0; z_ < n * n; z_++) D[z_] = (X)[z_] - (Y)[z_]; }), lapack_norm2(n, n, D))
    double e_ski = DIFFNORM(S, Topt), e_nyst = DIFFNORM(Nys, Topt), ski_err = DIFFNORM(T, S);
    double ski_nys = DIFFNORM(S, Nys);
    for (size_t z = 0; z < n * r; z++) {
        WA[z] -= F[z];
        AWt[z] -= B[z];
    }
    double wa_f = lapack_norm2(n, r, WA), awt_b = lapack_norm2(r, n, AWt);
    double s1f = lapack_norm2(n, r, F), s1b = lapack_norm2(r, n, B), wn = lapack_norm2(n, r, Wd);
    double fai = lapack_norm2(n, r, FAi), aib = lapack_norm2(r, n, AiB);
    double *sa = malloc(r * sizeof *sa);
    memcpy(Ac, A, r * r * sizeof *A);
    ck_assert_int_eq(LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', (int)r, (int)r, Ac, (int)r, sa, NULL, 1, NULL, 1, sup), 0);

    const double tol = 1e-9;
#define CLOSE(a, b) ck_assert_msg(fabs((a) - (b)) <= tol * (fabs(b) + 1e-14), "%s = %.15g, independent %.15g", #a, (double)(a), (double)(b))
    CLOSE(t.e_ski, e_ski);
    CLOSE(t.e_nyst, e_nyst);
    CLOSE(t.ski_error, ski_err);
    CLOSE(t.ski_nystrom, ski_nys);
    CLOSE(t.sigma_next, s[r]);
    CLOSE(t.t_norm, s[0]);
    CLOSE(t.wa_f, wa_f);
    CLOSE(t.awt_b, awt_b);
    CLOSE(t.sigma1_f, s1f);
    CLOSE(t.sigma1_b, s1b);
    CLOSE(t.w_norm, wn);
    CLOSE(t.f_ainv, fai);
    CLOSE(t.ainv_b, aib);
    CLOSE(t.sigma1_a, sa[0]);
    CLOSE(t.sigma_r_a, sa[r - 1]);
    CLOSE(t.psi, psi);
    ck_assert(t.psi <= t.psi_linear_h2_8 * (1 + 1e-12));
    /* L: sup |k''| of Matern-5/2 is |k''(0)| = 5 / (3 l^2) */
    CLOSE(t.lipschitz, 5.0 / (3.0 * 36.0));
    double eps = sqrt((double)(n * r)) * psi * t.lipschitz;
    double rhs = eps * (2 * sqrt((double)n) + fmin(s1f, s1b) / sa[r - 1]) + e_nyst;
    CLOSE(t.rhs, rhs);
    CLOSE(t.chain[1], ski_nys + e_nyst);
    ck_assert_uint_eq(t.degree, 1);
    ck_assert_int_eq(t.a_nonsingular, 1);
    ck_assert_int_eq(t.smooth, 1);
    ck_assert_int_eq(t.entrywise_valid, 1);
    ck_assert_int_eq(t.holds, 1);
    for (int c = 1; c < SKIT_THEOREM1_CHAIN; c++)
        ck_assert_msg(t.chain[c] >= t.chain[c - 1] * (1 - 1e-10), "chain[%d] = %g < chain[%d] = %g", c,
                      t.chain[c], c - 1, t.chain[c - 1]);
    ck_assert(t.loosest_step >= 1 && t.loosest_step <= 7);
    ck_assert(strlen(skit_theorem1_step_name(t.loosest_step)) > 0);
    free(T); free(Wd); free(A); free(F); free(B); free(Tc); free(U); free(Vt); free(s); free(sup);
    free(Topt); free(Ai); free(Ac); free(piv); free(WA); free(S); free(FAi); free(Nys); free(AWt);
    free(AiB); free(D); free(sa);
    skit_theorem1_destroy(ctx);
    skit_kernel_destroy(k);
}
END_TEST

START_TEST(test_theorem1_schemes_and_methods)
{
    size_t n = 150;
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_gaussian_create(&k, 1.0, 12.0));
    skit_theorem1 *dense, *lanczos;
    TU_EXPECT_OK(skit_theorem1_create(&dense, k, n, SKIT_NORM_DENSE_SVD));
    TU_EXPECT_OK(skit_theorem1_create(&lanczos, k, n, SKIT_NORM_LANCZOS));
    for (int scheme = 0; scheme <= 4; scheme++) {
        skit_interp_options o;
        skit_interp_options_default(&o, n);
        o.scheme = (skit_interp_scheme)scheme;
        o.degree = 3;
        skit_theorem1_terms a, b;
        TU_EXPECT_OK(skit_theorem1_evaluate(dense, 12, &o, -1, &a));
        TU_EXPECT_OK(skit_theorem1_evaluate(lanczos, 12, &o, -1, &b));
        ck_assert_msg(fabs(a.e_ski - b.e_ski) <= 1e-8 * a.e_ski, "%g vs %g", a.e_ski, b.e_ski);
        ck_assert(fabs(a.ski_error - b.ski_error) <= 1e-8 * a.ski_error);
        if (scheme <= 2) {
            ck_assert_int_eq(a.holds, 1);
            ck_assert(isfinite(a.rhs) && a.rhs >= a.e_ski);
        } else {
            ck_assert_int_eq(a.holds, -1);
            ck_assert(isnan(a.rhs));
            ck_assert(isfinite(a.chain[4]));
        }
    }
    /* r = n: T_opt = T, sigma_{r+1} = 0 */
    skit_interp_options o;
    skit_interp_options_default(&o, n);
    skit_theorem1_terms t;
    TU_EXPECT_OK(skit_theorem1_evaluate(dense, n, &o, -1, &t));
    ck_assert(t.sigma_next == 0);
    skit_theorem1_destroy(dense);
    skit_theorem1_destroy(lanczos);
    skit_kernel_destroy(k);
}
END_TEST

START_TEST(test_theorem1_kink_kernel_flags)
{
    /* exp-cosine is not differentiable at 0: linear interpolation is still
     * valid entry by entry (0 is never strictly inside a stencil), cubic
     * Lagrange is not. */
    size_t n = 80;
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_exp_cosine_create(&k, 1.0, 10.0, 0.1));
    skit_theorem1 *ctx;
    TU_EXPECT_OK(skit_theorem1_create(&ctx, k, n, SKIT_NORM_DENSE_SVD));
    skit_interp_options o;
    skit_interp_options_default(&o, n);
    skit_theorem1_terms t;
    TU_EXPECT_OK(skit_theorem1_evaluate(ctx, 10, &o, -1, &t));
    ck_assert_int_eq(t.smooth, 0);
    ck_assert_int_eq(t.entrywise_valid, 1);
    ck_assert_int_eq(t.holds, 1);
    o.scheme = SKIT_INTERP_LAGRANGE;
    o.degree = 3;
    TU_EXPECT_OK(skit_theorem1_evaluate(ctx, 10, &o, -1, &t));
    ck_assert_int_eq(t.entrywise_valid, 0);
    skit_theorem1_destroy(ctx);
    skit_kernel_destroy(k);
}
END_TEST

/* ---- fits ------------------------------------------------------------------------------- */

START_TEST(test_warped_linear_fit_recovers_knots)
{
    size_t K = 6;
    double lambda = 0.9, vals[12];
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int i = 0; i < 12; i++) vals[i] = skit_rng_normal(&rng);
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_warped_linear_create(&k, K, vals, lambda));
    /* dense real-valued samples reach every piece */
    size_t count = 2001;
    double *t = tu_alloc(count), *y = tu_alloc(count), fit[12];
    for (size_t i = 0; i < count; i++) t[i] = -100 + 0.1 * (double)i;
    TU_EXPECT_OK(skit_kernel_eval(k, count, t, y));
    TU_EXPECT_OK(skit_warped_linear_fit(K, lambda, count, t, y, fit));
    for (int i = 0; i < 12; i++) ck_assert_double_eq_tol(fit[i], vals[i], 1e-8);
    skit_kernel_destroy(k);
    skit_free(t);
    skit_free(y);
}
END_TEST

START_TEST(test_tnn_rpe_fit_exact_on_its_span)
{
    /* y = 0.7 lambda^|t| is in the span (the bias column): fit is exact */
    size_t count = 200;
    double *t = tu_alloc(count), *y = tu_alloc(count), *v = tu_alloc(count);
    for (size_t i = 0; i < count; i++) {
        t[i] = (double)i - 100;
        y[i] = 0.7 * pow(0.97, fabs(t[i]));
    }
    skit_mlp *m;
    TU_EXPECT_OK(skit_tnn_rpe_fit(&m, 16, 2, SKIT_ACTIVATION_GELU, SKIT_NORM_RMS, 5, 0.97, count, t, y));
    ck_assert_uint_eq(skit_mlp_out_dim(m), 1);
    skit_kernel *k;
    TU_EXPECT_OK(skit_kernel_tnn_create(&k, m, 0, 0.97, SKIT_ACTIVATION_GELU));
    TU_EXPECT_OK(skit_kernel_eval(k, count, t, v));
    ck_assert_msg(tu_rel_error(v, y, count) < 1e-6, "%g", tu_rel_error(v, y, count));
    skit_kernel_destroy(k);
    skit_mlp_destroy(m);
    skit_free(t);
    skit_free(y);
    skit_free(v);
}
END_TEST

/* ---- studies ------------------------------------------------------------------------------ */

START_TEST(test_sparse_lowrank_study_limits)
{
    size_t n = 40, r = 6;
    skit_kernel *sm, *sp;
    TU_EXPECT_OK(skit_kernel_gaussian_create(&sm, 1.0, 8.0));
    TU_EXPECT_OK(skit_kernel_exp_cosine_create(&sp, 0.5, 1.5, 0.0));
    skit_interp_options o;
    skit_interp_options_default(&o, n);
    skit_sparse_lowrank_errors none, all, mid;
    TU_EXPECT_OK(skit_sparse_lowrank_study(sm, sp, n, r, 0, &o, SKIT_NORM_DENSE_SVD, &none));
    TU_EXPECT_OK(skit_sparse_lowrank_study(sm, sp, n, r, 2 * n - 1, &o, SKIT_NORM_DENSE_SVD, &all));
    TU_EXPECT_OK(skit_sparse_lowrank_study(sm, sp, n, r, 9, &o, SKIT_NORM_DENSE_SVD, &mid));
    ck_assert_double_eq_tol(none.band_only, none.t_norm, 1e-12);
    ck_assert_double_eq_tol(none.sparse_lowrank_fit, none.lowrank_only, 1e-12);
    ck_assert(all.band_only < 1e-14 && all.spike_outside_band < 1e-14);
    ck_assert_double_eq_tol(all.sparse_lowrank, all.smooth_ski, 1e-12);
    /* independent: ||T - W A W^T|| with A from the summed kernel */
    skit_kernel *sum;
    TU_EXPECT_OK(skit_kernel_sum_create(&sum, sm, sp));
    skit_interp_weights *W;
    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &o));
    double *c = tu_alloc(2 * n - 1), *S = tu_alloc(n * n), *T = tu_alloc(n * n);
    TU_EXPECT_OK(skit_kernel_toeplitz_coeffs(sum, r, W->spacing, c));
    TU_EXPECT_OK(skit_ski_dense(W, c, S, n));
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double t = (double)i - (double)j, v;
            skit_kernel_eval(sum, 1, &t, &v);
            T[i + j * n] = v - S[i + j * n];
        }
    ck_assert_double_eq_tol(mid.lowrank_only, lapack_norm2(n, n, T), 1e-10);
    /* with r large enough for the smooth part, the split beats low rank alone */
    TU_EXPECT_OK(skit_sparse_lowrank_study(sm, sp, n, 20, 9, &o, SKIT_NORM_DENSE_SVD, &mid));
    ck_assert_msg(mid.sparse_lowrank < 0.8 * mid.lowrank_only, "t %g band %g low %g sl %g fit %g", mid.t_norm, mid.band_only, mid.lowrank_only, mid.sparse_lowrank, mid.sparse_lowrank_fit);
    skit_free(c); skit_free(S); skit_free(T);
    skit_interp_weights_destroy(W);
    skit_kernel_destroy(sum);
    skit_kernel_destroy(sm);
    skit_kernel_destroy(sp);
}
END_TEST

START_TEST(test_kernel_matrix_error_matches_dense)
{
    size_t n = 57;
    skit_kernel *a, *b;
    TU_EXPECT_OK(skit_kernel_matern52_create(&a, 1.0, 5.0));
    TU_EXPECT_OK(skit_kernel_shifted_gaussian_create(&b, 0.9, 4.0, 1.0));
    double diff, ref;
    TU_EXPECT_OK(skit_kernel_matrix_error(a, b, n, &diff, &ref));
    double *Da = tu_alloc(n * n), *Db = tu_alloc(n * n);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double t = (double)i - (double)j, va, vb;
            skit_kernel_eval(a, 1, &t, &va);
            skit_kernel_eval(b, 1, &t, &vb);
            Da[i + j * n] = va - vb;
            Db[i + j * n] = vb;
        }
    ck_assert_double_eq_tol(diff, lapack_norm2(n, n, Da), 1e-8 * diff);
    ck_assert_double_eq_tol(ref, lapack_norm2(n, n, Db), 1e-8 * ref);
    TU_EXPECT_STATUS(skit_kernel_matrix_error(a, b, 0, &diff, &ref), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_matrix_error(a, NULL, 4, &diff, &ref), SKIT_EINVAL);
    skit_sparse_lowrank_errors e;
    skit_interp_options o;
    skit_interp_options_default(&o, 20);
    TU_EXPECT_STATUS(skit_sparse_lowrank_study(a, b, 20, 1, 3, &o, SKIT_NORM_DENSE_SVD, &e), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_sparse_lowrank_study(a, b, 20, 4, 4, &o, SKIT_NORM_DENSE_SVD, &e), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_sparse_lowrank_study(a, b, 1, 2, 1, &o, SKIT_NORM_DENSE_SVD, &e), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_sparse_lowrank_study(a, NULL, 20, 4, 3, &o, SKIT_NORM_DENSE_SVD, &e), SKIT_EINVAL);
    skit_free(Da);
    skit_free(Db);
    skit_kernel_destroy(a);
    skit_kernel_destroy(b);
}
END_TEST

/* ---- invalid arguments -------------------------------------------------------------------- */

START_TEST(test_config_errors)
{
    skit_kernel *k = NULL;
    TU_EXPECT_STATUS(skit_kernel_gaussian_create(NULL, 1, 1), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_kernel_gaussian_create(&k, 0, 1), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_gaussian_create(&k, 1, -1), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_gaussian_create(&k, 1, INFINITY), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_shifted_gaussian_create(&k, 1, 1, NAN), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_matern52_create(&k, NAN, 1), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_exp_cosine_create(&k, 1, 1, -0.1), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_tnn_create(&k, NULL, 0, 0.5, SKIT_ACTIVATION_RELU), SKIT_EINVAL);
    skit_mlp *m2, *m1;
    TU_EXPECT_OK(skit_mlp_create(&m2, 2, 4, 1, 3, SKIT_ACTIVATION_RELU, SKIT_NORM_NONE, 1));
    TU_EXPECT_OK(skit_mlp_create(&m1, 1, 4, 1, 3, SKIT_ACTIVATION_RELU, SKIT_NORM_NONE, 1));
    TU_EXPECT_STATUS(skit_kernel_tnn_create(&k, m2, 0, 0.5, SKIT_ACTIVATION_RELU), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_kernel_tnn_create(&k, m1, 3, 0.5, SKIT_ACTIVATION_RELU), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_tnn_create(&k, m1, 0, 1.0, SKIT_ACTIVATION_RELU), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_tnn_create(&k, m1, 0, 0.0, SKIT_ACTIVATION_RELU), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_tnn_create(&k, m1, 0, 0.5, (skit_activation)9), SKIT_EINVAL);
    double vals[4] = {1, 2, 3, 4}, bad[2] = {1, NAN};
    TU_EXPECT_STATUS(skit_kernel_warped_linear_create(&k, 0, vals, 0.5), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_warped_linear_create(&k, 2, vals, 1.5), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_warped_linear_create(&k, 2, NULL, 0.5), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_kernel_warped_linear_create(&k, 1, bad, 0.5), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_kernel_sum_create(&k, NULL, NULL), SKIT_EINVAL);
    ck_assert_ptr_null(k);

    skit_kernel *g;
    TU_EXPECT_OK(skit_kernel_gaussian_create(&g, 1, 1));
    double t = NAN, v, d[20];
    TU_EXPECT_STATUS(skit_kernel_eval(g, 1, &t, &v), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_kernel_eval(g, 1, NULL, &v), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_kernel_derivatives(g, 0, SKIT_KERNEL_MAX_ORDER + 1, d), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_derivatives(g, INFINITY, 1, d), SKIT_ENONFINITE);
    skit_derivative_bound b;
    TU_EXPECT_STATUS(skit_kernel_derivative_bound(g, 2, 1, 0, &b), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_derivative_bound(g, SKIT_KERNEL_MAX_ORDER, 0, 1, &b), SKIT_EDOM);
    int s;
    TU_EXPECT_STATUS(skit_kernel_smoothness(g, 1, 2, 1, &s), SKIT_EDOM);
    double c[5];
    TU_EXPECT_STATUS(skit_kernel_toeplitz_coeffs(g, 0, 1, c), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_kernel_toeplitz_coeffs(g, 3, 0, c), SKIT_EDOM);

    /* interpolation weights */
    skit_interp_options o;
    skit_interp_options_default(&o, 10);
    skit_interp_weights *W = NULL;
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 1, &o), SKIT_EDOM);   /* r < 2 */
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 11, &o), SKIT_EDOM);  /* r > n */
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 0, NULL, 2, &o), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 4, NULL), SKIT_EINVAL);
    o.lo = o.hi = 3;
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 4, &o), SKIT_EDOM);   /* empty interval */
    skit_interp_options_default(&o, 10);
    o.scheme = SKIT_INTERP_CUBIC;
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 2, &o), SKIT_EDOM);
    o.scheme = SKIT_INTERP_LAGRANGE;
    o.degree = 0;
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 5, &o), SKIT_EDOM);   /* N out of range */
    o.degree = 5;
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 5, &o), SKIT_EDOM);   /* N > r - 1 */
    o.scheme = SKIT_INTERP_AUTHORS;
    o.gamma = 1.0;
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 5, &o), SKIT_EDOM);
    o.scheme = (skit_interp_scheme)17;
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 10, NULL, 5, &o), SKIT_EINVAL);
    skit_interp_options_default(&o, 10);
    double pts[2] = {1, INFINITY};
    TU_EXPECT_STATUS(skit_interp_weights_create(&W, 2, pts, 2, &o), SKIT_ENONFINITE);
    ck_assert_ptr_null(W);
    TU_EXPECT_OK(skit_interp_weights_create(&W, 10, NULL, 4, &o));
    double D[40], U[8], Y[20];
    TU_EXPECT_STATUS(skit_interp_weights_dense(W, D, 9), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_interp_apply(W, 1, U, 3, Y, 10), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_interp_apply(W, 1, U, 4, Y, 9), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_interp_apply_transpose(W, 1, Y, 9, U, 4), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_interp_apply_transpose(W, 1, Y, 10, U, 3), SKIT_ESHAPE);

    /* plans */
    double coeffs[7] = {1, 2, 3, 4, 3, 2, 1}, badc[7] = {1, 2, NAN, 4, 3, 2, 1};
    skit_ski_plan *p = NULL;
    skit_ski_options so = ski_options(SKIT_TOEPLITZ_SHARED, SKIT_SKI_SPARSE_FFT, SKIT_PRECISION_F64);
    skit_ski_options sd = ski_options(SKIT_TOEPLITZ_SHARED, SKIT_SKI_DENSE, SKIT_PRECISION_F64);
    TU_EXPECT_STATUS(skit_ski_plan_create(&p, W, 0, &so, coeffs), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_ski_plan_create(&p, NULL, 1, &so, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_ski_plan_create(&p, W, 1, &so, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_ski_plan_create(NULL, W, 1, &so, coeffs), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_ski_plan_create(&p, W, 1, &sd, badc), SKIT_ENONFINITE);
    skit_ski_options unknown[4] = {so, so, so, so}; /* one unknown field each */
    unknown[0].sharing = (skit_toeplitz_sharing)5;
    unknown[1].method = (skit_ski_method)5;
    unknown[2].precision = (skit_precision)7;
    unknown[3].planner = (skit_planner)99;
    for (int i = 0; i < 4; i++) TU_EXPECT_STATUS(skit_ski_plan_create(&p, W, 1, &unknown[i], coeffs), SKIT_EINVAL);
    sd.precision = SKIT_PRECISION_F32;
    TU_EXPECT_STATUS(skit_ski_plan_create(&p, W, 1, &sd, coeffs), SKIT_EUNSUPPORTED);
    ck_assert_ptr_null(p);
    skit_ski_options_default(NULL);
    ck_assert_int_eq(skit_ski_plan_precision(NULL), SKIT_PRECISION_F64);
    ck_assert_uint_eq(skit_ski_plan_bytes(NULL), 0);
    TU_EXPECT_OK(skit_ski_plan_create(&p, W, 1, &so, coeffs));
    TU_EXPECT_STATUS(skit_ski_plan_execute(p, Y, 9, Y, 10), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_ski_plan_execute(p, Y, 10, NULL, 10), SKIT_EINVAL);
    skit_ski_plan_destroy(p);
    double T[100];
    TU_EXPECT_STATUS(skit_ski_dense(W, coeffs, T, 9), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_ski_dense(W, badc, T, 10), SKIT_ENONFINITE);

    skit_nystrom_plan *ny = NULL;
    TU_EXPECT_STATUS(skit_nystrom_plan_create(&ny, g, 10, 1, 0, 9, -1, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_nystrom_plan_create(&ny, g, 10, 11, 0, 9, -1, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_nystrom_plan_create(&ny, g, 10, 4, 5, 5, -1, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_nystrom_plan_create(&ny, g, 0, 4, 0, 9, -1, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_nystrom_plan_create(&ny, NULL, 10, 4, 0, 9, -1, NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_nystrom_plan_create(&ny, g, 10, 4, 0, 9, -1, NULL));
    TU_EXPECT_STATUS(skit_nystrom_plan_execute(ny, 1, Y, 9, Y, 10), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_nystrom_plan_dense(ny, T, 9), SKIT_ESHAPE);
    skit_nystrom_plan_destroy(ny);

    skit_sparse_lowrank_plan *sl = NULL;
    double band[3] = {1, 2, 1};
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create(&sl, 10, 1, 0, NULL, NULL, NULL, SKIT_SKI_SPARSE_FFT), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create(&sl, 10, 1, 2, band, NULL, NULL, SKIT_SKI_SPARSE_FFT), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create(&sl, 1, 1, 3, band, NULL, NULL, SKIT_SKI_SPARSE_FFT), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create(&sl, 0, 1, 3, band, NULL, NULL, SKIT_SKI_SPARSE_FFT), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create(&sl, 10, 0, 3, band, NULL, NULL, SKIT_SKI_SPARSE_FFT), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create(&sl, 11, 1, 3, band, W, coeffs, SKIT_SKI_SPARSE_FFT), SKIT_ESHAPE);
    band[1] = NAN;
    TU_EXPECT_STATUS(skit_sparse_lowrank_plan_create(&sl, 10, 1, 3, band, NULL, NULL, SKIT_SKI_SPARSE_FFT), SKIT_ENONFINITE);
    ck_assert_ptr_null(sl);

    /* evaluator */
    skit_theorem1 *ctx = NULL;
    TU_EXPECT_STATUS(skit_theorem1_create(&ctx, g, 1, SKIT_NORM_DENSE_SVD), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_theorem1_create(&ctx, NULL, 10, SKIT_NORM_DENSE_SVD), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_theorem1_create(&ctx, g, 10, (skit_norm_method)4), SKIT_EINVAL);
    TU_EXPECT_OK(skit_theorem1_create(&ctx, g, 10, SKIT_NORM_DENSE_SVD));
    skit_theorem1_terms tt;
    TU_EXPECT_STATUS(skit_theorem1_evaluate(ctx, 1, &o, -1, &tt), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_theorem1_evaluate(ctx, 11, &o, -1, &tt), SKIT_EDOM);
    o.lo = 4;
    o.hi = 2;
    TU_EXPECT_STATUS(skit_theorem1_evaluate(ctx, 4, &o, -1, &tt), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_theorem1_evaluate(ctx, 4, NULL, -1, &tt), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_theorem1_evaluate(ctx, 4, &o, NAN, &tt), SKIT_EDOM);
    skit_theorem1_destroy(ctx);
    /* refused before allocating: 11 n^2 doubles at n = 65536 is ~378 GB */
    TU_EXPECT_STATUS(skit_theorem1_create(&ctx, g, 65536, SKIT_NORM_DENSE_SVD), SKIT_ETOOBIG);
    ck_assert_ptr_null(ctx);
    skit_sparse_lowrank_errors se;
    skit_interp_options_default(&o, 32768);
    TU_EXPECT_STATUS(skit_sparse_lowrank_study(g, g, 32768, 2, 1, &o, SKIT_NORM_LANCZOS, &se), SKIT_ETOOBIG);
    skit_interp_options_default(&o, 10);

    /* fits */
    double ft[3] = {0, 1, 2}, fy[3] = {1, 2, 3}, out[8];
    TU_EXPECT_STATUS(skit_warped_linear_fit(0, 0.5, 3, ft, fy, out), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_warped_linear_fit(2, 1.0, 3, ft, fy, out), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_warped_linear_fit(2, 0.5, 0, ft, fy, out), SKIT_EDOM);
    skit_mlp *fm = NULL;
    TU_EXPECT_STATUS(skit_tnn_rpe_fit(&fm, 0, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 1, 0.5, 3, ft, fy), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_tnn_rpe_fit(&fm, 4, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 1, -0.5, 3, ft, fy), SKIT_EDOM);
    fy[1] = NAN;
    TU_EXPECT_STATUS(skit_tnn_rpe_fit(&fm, 4, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 1, 0.5, 3, ft, fy), SKIT_ENONFINITE);
    ck_assert_ptr_null(fm);

    skit_interp_weights_destroy(W);
    skit_kernel_destroy(g);
    skit_mlp_destroy(m1);
    skit_mlp_destroy(m2);
}
END_TEST

static Suite *suite_ski(void)
{
    Suite *s = suite_create("ski");
    TCase *tk = tcase_create("kernels");
    tcase_add_test(tk, test_kernel_values_closed_form);
    tcase_add_test(tk, test_kernel_tnn_and_warped_values);
    tcase_add_test(tk, test_kernel_derivatives_match_finite_differences);
    tcase_add_test(tk, test_kernel_derivative_bound_dominates_samples);
    tcase_add_test(tk, test_kernel_smoothness_flags);
    tcase_add_test(tk, test_kernel_toeplitz_coeffs);
    tcase_set_timeout(tk, 60);
    suite_add_tcase(s, tk);
    TCase *tw = tcase_create("weights");
    tcase_add_test(tw, test_linear_weights_properties);
    tcase_add_test(tw, test_cubic_weights_reproduce_quadratics);
    tcase_add_test(tw, test_lagrange_weights_reproduce_degree_n);
    tcase_add_test(tw, test_authors_weights_reproduce_their_construction);
    tcase_add_test(tw, test_interp_apply_matches_dense);
    suite_add_tcase(s, tw);
    TCase *to = tcase_create("operators");
    tcase_add_test(to, test_ski_action_equals_dense);
    tcase_add_test(to, test_ski_action_arbitrary_points);
    tcase_add_test(to, test_ski_plan_leading_dimensions);
    tcase_add_test(to, test_ski_rows_layout);
    tcase_add_test(to, test_ski_action_threads_groups_and_long_runs);
    tcase_add_test(to, test_nystrom_full_rank_reproduces_t);
    tcase_add_test(to, test_nystrom_singular_a_uses_pseudo_inverse);
    tcase_add_test(to, test_sparse_lowrank_equals_band_plus_ski);
    tcase_add_test(to, test_nystrom_sparse_lowrank_rows_layout);
    tcase_set_timeout(to, 60);
    suite_add_tcase(s, to);
    TCase *tt = tcase_create("theorem1");
    tcase_add_test(tt, test_theorem1_terms_match_independent_dense);
    tcase_add_test(tt, test_theorem1_schemes_and_methods);
    tcase_add_test(tt, test_theorem1_kink_kernel_flags);
    tcase_add_test(tt, test_warped_linear_fit_recovers_knots);
    tcase_add_test(tt, test_tnn_rpe_fit_exact_on_its_span);
    tcase_add_test(tt, test_sparse_lowrank_study_limits);
    tcase_add_test(tt, test_kernel_matrix_error_matches_dense);
    tcase_set_timeout(tt, 60);
    suite_add_tcase(s, tt);
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, test_config_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("float32");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ski_f32_matches_f64);
    tcase_add_test(tc, test_ski_f32_plan_bytes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_ski()); }
