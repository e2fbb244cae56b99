/* kernel.c — stationary kernels k(t) for Nystrom / SKI: values, exact
 * derivatives (one-sided at non-smooth points), bounds on a derivative over
 * an interval (Theorem 1's L) and where each kernel is smooth. */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "skit/ski.h"

/* Grid for the sampled bounds: enough that (step/2) * next-derivative is a
 * small correction for the interval lengths Theorem 1 uses. */
#define BOUND_SAMPLES 2049
/* Cramer's inequality: |He_m(u)| exp(-u^2/4) <= CRAMER_K sqrt(m!). */
#define CRAMER_K 1.086435

struct skit_kernel {
    skit_kernel_type type;
    double variance, lengthscale, shift, frequency, lambda;
    const skit_mlp *mlp;
    size_t channel, out_dim;
    skit_activation activation;
    size_t knots;   /* K per side */
    double *values; /* 2K+1 knot values f(j/K), j = -K..K, at index j+K */
    const skit_kernel *a, *b;
};

static int finite_positive(double v) { return isfinite(v) && v > 0; }

static int kernel_alloc(skit_kernel **kernel, skit_kernel_type type)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    skit_kernel *k = skit_calloc(1, sizeof *k);
    if (!k) return SKIT_ENOMEM;
    k->type = type;
    *kernel = k;
    return SKIT_OK;
}

static int check_variance_lengthscale(double variance, double lengthscale)
{
    if (!finite_positive(variance))
        return SKIT_ERROR(SKIT_EDOM, "variance = %g out of range: need 0 < variance < inf", variance);
    if (!finite_positive(lengthscale))
        return SKIT_ERROR(SKIT_EDOM, "lengthscale = %g out of range: need 0 < lengthscale < inf",
                          lengthscale);
    return SKIT_OK;
}

static int check_lambda(double lambda)
{
    if (!(lambda > 0 && lambda < 1))
        return SKIT_ERROR(SKIT_EDOM, "lambda = %g out of range: need 0 < lambda < 1", lambda);
    return SKIT_OK;
}

int skit_kernel_gaussian_create(skit_kernel **kernel, double variance, double lengthscale)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    SKIT_TRY(check_variance_lengthscale(variance, lengthscale));
    SKIT_TRY(kernel_alloc(kernel, SKIT_KERNEL_GAUSSIAN));
    (*kernel)->variance = variance;
    (*kernel)->lengthscale = lengthscale;
    return SKIT_OK;
}

int skit_kernel_shifted_gaussian_create(skit_kernel **kernel, double variance,
                                        double lengthscale, double shift)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    SKIT_TRY(check_variance_lengthscale(variance, lengthscale));
    if (!isfinite(shift))
        return SKIT_ERROR(SKIT_EDOM, "shift = %g out of range: need a finite shift", shift);
    SKIT_TRY(kernel_alloc(kernel, SKIT_KERNEL_SHIFTED_GAUSSIAN));
    (*kernel)->variance = variance;
    (*kernel)->lengthscale = lengthscale;
    (*kernel)->shift = shift;
    return SKIT_OK;
}

int skit_kernel_matern52_create(skit_kernel **kernel, double variance, double lengthscale)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    SKIT_TRY(check_variance_lengthscale(variance, lengthscale));
    SKIT_TRY(kernel_alloc(kernel, SKIT_KERNEL_MATERN52));
    (*kernel)->variance = variance;
    (*kernel)->lengthscale = lengthscale;
    return SKIT_OK;
}

int skit_kernel_exp_cosine_create(skit_kernel **kernel, double variance, double lengthscale,
                                  double frequency)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    SKIT_TRY(check_variance_lengthscale(variance, lengthscale));
    if (!(isfinite(frequency) && frequency >= 0))
        return SKIT_ERROR(SKIT_EDOM, "frequency = %g out of range: need 0 <= frequency < inf",
                          frequency);
    SKIT_TRY(kernel_alloc(kernel, SKIT_KERNEL_EXP_COSINE));
    (*kernel)->variance = variance;
    (*kernel)->lengthscale = lengthscale;
    (*kernel)->frequency = frequency;
    return SKIT_OK;
}

int skit_kernel_tnn_create(skit_kernel **kernel, const skit_mlp *rpe, size_t channel,
                           double lambda, skit_activation activation)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    SKIT_REQUIRE_PTR(rpe);
    if (skit_mlp_in_dim(rpe) != 1)
        return SKIT_ERROR(SKIT_ESHAPE, "rpe input dimension = %zu: the TNN kernel needs 1",
                          skit_mlp_in_dim(rpe));
    size_t out = skit_mlp_out_dim(rpe);
    if (channel >= out)
        return SKIT_ERROR(SKIT_EDOM, "channel = %zu out of range: need channel < %zu (rpe outputs)",
                          channel, out);
    SKIT_TRY(check_lambda(lambda));
    if ((int)activation < SKIT_ACTIVATION_RELU || (int)activation > SKIT_ACTIVATION_GELU)
        return SKIT_ERROR(SKIT_EINVAL, "activation = %d unknown: need relu, silu or gelu",
                          (int)activation);
    SKIT_TRY(kernel_alloc(kernel, SKIT_KERNEL_TNN));
    (*kernel)->mlp = rpe;
    (*kernel)->channel = channel;
    (*kernel)->out_dim = out;
    (*kernel)->lambda = lambda;
    (*kernel)->activation = activation;
    return SKIT_OK;
}

int skit_kernel_warped_linear_create(skit_kernel **kernel, size_t knots_per_side,
                                     const double *values, double lambda)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    SKIT_REQUIRE_PTR(values);
    if (knots_per_side == 0 || knots_per_side > (size_t)1 << 24)
        return SKIT_ERROR(SKIT_EDOM,
                          "knots_per_side = %zu out of range: need 1 <= knots_per_side <= 2^24",
                          knots_per_side);
    SKIT_TRY(check_lambda(lambda));
    SKIT_TRY(skit_check_finite(values, 2 * knots_per_side, "values"));
    double *v = skit_malloc(2 * knots_per_side + 1, sizeof *v);
    if (!v) return SKIT_ENOMEM;
    int status = kernel_alloc(kernel, SKIT_KERNEL_WARPED_LINEAR);
    if (status != SKIT_OK) {
        skit_free(v);
        return status;
    }
    size_t K = knots_per_side;
    memcpy(v, values, K * sizeof *v);
    v[K] = 0.0;
    memcpy(v + K + 1, values + K, K * sizeof *v);
    (*kernel)->knots = K;
    (*kernel)->values = v;
    (*kernel)->lambda = lambda;
    return SKIT_OK;
}

int skit_kernel_sum_create(skit_kernel **kernel, const skit_kernel *a, const skit_kernel *b)
{
    SKIT_REQUIRE_PTR(kernel);
    *kernel = NULL;
    SKIT_REQUIRE_PTR(a);
    SKIT_REQUIRE_PTR(b);
    SKIT_TRY(kernel_alloc(kernel, SKIT_KERNEL_SUM));
    (*kernel)->a = a;
    (*kernel)->b = b;
    return SKIT_OK;
}

void skit_kernel_destroy(skit_kernel *kernel)
{
    if (!kernel) return;
    skit_free(kernel->values);
    skit_free(kernel);
}

skit_kernel_type skit_kernel_get_type(const skit_kernel *kernel)
{
    return kernel ? kernel->type : SKIT_KERNEL_GAUSSIAN;
}

static const char *activation_name(skit_activation a)
{
    return a == SKIT_ACTIVATION_RELU ? "relu" : a == SKIT_ACTIVATION_SILU ? "silu" : "gelu";
}

void skit_kernel_describe(const skit_kernel *k, char *text, size_t size)
{
    if (!text || size == 0) return;
    if (!k) {
        snprintf(text, size, "(null)");
        return;
    }
    switch (k->type) {
    case SKIT_KERNEL_GAUSSIAN:
        snprintf(text, size, "gaussian(variance=%g, lengthscale=%g)", k->variance, k->lengthscale);
        break;
    case SKIT_KERNEL_SHIFTED_GAUSSIAN:
        snprintf(text, size, "shifted-gaussian(variance=%g, lengthscale=%g, shift=%g)",
                 k->variance, k->lengthscale, k->shift);
        break;
    case SKIT_KERNEL_MATERN52:
        snprintf(text, size, "matern52(variance=%g, lengthscale=%g)", k->variance, k->lengthscale);
        break;
    case SKIT_KERNEL_EXP_COSINE:
        snprintf(text, size, "exp-cosine(variance=%g, lengthscale=%g, frequency=%g)", k->variance,
                 k->lengthscale, k->frequency);
        break;
    case SKIT_KERNEL_TNN:
        snprintf(text, size, "tnn(rpe=mlp[%s, %zu outputs], channel=%zu, lambda=%g)",
                 activation_name(k->activation), k->out_dim, k->channel, k->lambda);
        break;
    case SKIT_KERNEL_WARPED_LINEAR:
        snprintf(text, size, "warped-linear(knots_per_side=%zu, lambda=%g)", k->knots, k->lambda);
        break;
    case SKIT_KERNEL_SUM: {
        char a[256], b[256];
        skit_kernel_describe(k->a, a, sizeof a);
        skit_kernel_describe(k->b, b, sizeof b);
        snprintf(text, size, "sum(%s + %s)", a, b);
        break;
    }
    }
}

/* ---- values ------------------------------------------------------------ */

/* Warp x(t) = sign0(t) lambda^|t|, sign0(0) = +1. */
static double warp(double lambda, double t)
{
    double m = pow(lambda, fabs(t));
    return t >= 0 ? m : -m;
}

/* Piecewise-linear f on the knots j/K, j = -K..K; piece index chosen by
 * `piece` (0..2K-1). */
static double warped_value_on_piece(const skit_kernel *k, double x, size_t piece)
{
    double K = (double)k->knots;
    double z0 = (double)piece / K - 1.0;
    double slope = (k->values[piece + 1] - k->values[piece]) * K;
    return k->values[piece] + slope * (x - z0);
}

static size_t warped_piece_floor(const skit_kernel *k, double x)
{
    double q = (x + 1.0) * (double)k->knots;
    double f = floor(q);
    if (f < 0) f = 0;
    if (f > (double)(2 * k->knots - 1)) f = (double)(2 * k->knots - 1);
    return (size_t)f;
}

static size_t warped_piece_ceil(const skit_kernel *k, double x)
{
    double q = ceil((x + 1.0) * (double)k->knots) - 1.0;
    if (q < 0) q = 0;
    if (q > (double)(2 * k->knots - 1)) q = (double)(2 * k->knots - 1);
    return (size_t)q;
}

static int eval_one_simple(const skit_kernel *k, double t, double *v)
{
    switch (k->type) {
    case SKIT_KERNEL_GAUSSIAN:
    case SKIT_KERNEL_SHIFTED_GAUSSIAN: {
        double u = (t - k->shift) / k->lengthscale;
        *v = k->variance * exp(-0.5 * u * u);
        return 1;
    }
    case SKIT_KERNEL_MATERN52: {
        double u = sqrt(5.0) * fabs(t) / k->lengthscale;
        *v = k->variance * (1.0 + u + u * u / 3.0) * exp(-u);
        return 1;
    }
    case SKIT_KERNEL_EXP_COSINE:
        *v = k->variance * exp(-fabs(t) / k->lengthscale) * cos(k->frequency * t);
        return 1;
    case SKIT_KERNEL_WARPED_LINEAR: {
        double x = warp(k->lambda, t);
        *v = warped_value_on_piece(k, x, warped_piece_floor(k, x));
        return 1;
    }
    default: return 0;
    }
}

static int eval_tnn(const skit_kernel *k, size_t count, const double *t, double *values)
{
    /* skit_mlp_eval works on blocks; keep the output buffer bounded. */
    enum { BLOCK = 256 };
    size_t out = k->out_dim;
    double *y = skit_malloc(BLOCK * out, sizeof *y);
    double *work = skit_malloc(skit_mlp_workspace_size(k->mlp) + 1, sizeof *work);
    if (!y || !work) {
        skit_free(y);
        skit_free(work);
        return SKIT_ENOMEM;
    }
    int status = SKIT_OK;
    double log_lambda = log(k->lambda);
    for (size_t start = 0; start < count && status == SKIT_OK; start += BLOCK) {
        size_t len = SKIT_MIN((size_t)BLOCK, count - start);
        status = skit_mlp_eval(k->mlp, len, t + start, y, work);
        if (status != SKIT_OK) break;
        for (size_t i = 0; i < len; i++)
            values[start + i] = y[i * out + k->channel] * exp(log_lambda * fabs(t[start + i]));
    }
    skit_free(y);
    skit_free(work);
    return status;
}

static int eval_any(const skit_kernel *k, size_t count, const double *t, double *values)
{
    if (k->type == SKIT_KERNEL_TNN) return eval_tnn(k, count, t, values);
    if (k->type == SKIT_KERNEL_SUM) {
        double *tmp = skit_malloc(count, sizeof *tmp);
        if (!tmp) return SKIT_ENOMEM;
        int status = eval_any(k->a, count, t, values);
        if (status == SKIT_OK) status = eval_any(k->b, count, t, tmp);
        if (status == SKIT_OK)
            for (size_t i = 0; i < count; i++) values[i] += tmp[i];
        skit_free(tmp);
        return status;
    }
    for (size_t i = 0; i < count; i++) eval_one_simple(k, t[i], &values[i]);
    return SKIT_OK;
}

int skit_kernel_eval(const skit_kernel *kernel, size_t count, const double *t, double *values)
{
    SKIT_REQUIRE_PTR(kernel);
    if (count == 0) return SKIT_OK;
    SKIT_REQUIRE_PTR(t);
    SKIT_REQUIRE_PTR(values);
    SKIT_TRY(skit_check_finite(t, count, "t"));
    return eval_any(kernel, count, t, values);
}

int skit_kernel_toeplitz_coeffs(const skit_kernel *kernel, size_t size, double h,
                                double *coeffs)
{
    SKIT_REQUIRE_PTR(kernel);
    SKIT_REQUIRE_PTR(coeffs);
    if (size == 0) return SKIT_ERROR(SKIT_EDOM, "size = 0 out of range: need size >= 1");
    if (!finite_positive(h))
        return SKIT_ERROR(SKIT_EDOM, "h = %g out of range: need 0 < h < inf", h);
    size_t total;
    if (skit_size_add(size, size - 1, &total) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "size = %zu: 2 size - 1 overflows", size);
    double *lags = skit_malloc(total, sizeof *lags);
    if (!lags) return SKIT_ENOMEM;
    for (size_t i = 0; i < total; i++) lags[i] = ((double)i - (double)(size - 1)) * h;
    int status = eval_any(kernel, total, lags, coeffs);
    skit_free(lags);
    return status;
}

/* ---- derivatives --------------------------------------------------------- */

/* side > 0: derivatives from the right at a non-smooth point, side < 0: from
 * the left. Away from such points both agree. */
static int derivs_sided(const skit_kernel *k, double t, int side, size_t order, double *d)
{
    int right = t > 0 || (t == 0 && side > 0);
    switch (k->type) {
    case SKIT_KERNEL_GAUSSIAN:
    case SKIT_KERNEL_SHIFTED_GAUSSIAN: {
        /* k^(m) = s2 (-1/l)^m He_m(u) e^{-u^2/2} */
        double u = (t - k->shift) / k->lengthscale;
        double g = k->variance * exp(-0.5 * u * u);
        double hm1 = 0, h = 1, scale = 1;
        for (size_t m = 0; m <= order; m++) {
            d[m] = scale * h * g;
            double next = u * h - (double)m * hm1;
            hm1 = h;
            h = next;
            scale *= -1.0 / k->lengthscale;
        }
        return SKIT_OK;
    }
    case SKIT_KERNEL_MATERN52: {
        double c = sqrt(5.0) / k->lengthscale;
        double u = c * fabs(t);
        double e = exp(-u);
        double s = right ? 1.0 : -1.0, scale = k->variance;
        for (size_t m = 0; m <= order; m++) {
            double mm = (double)m;
            double q = 1.0 + u + u * u / 3.0 - mm * (1.0 + 2.0 * u / 3.0) + mm * (mm - 1.0) / 3.0;
            d[m] = scale * ((m % 2) ? -1.0 : 1.0) * e * q;
            scale *= s * c;
        }
        return SKIT_OK;
    }
    case SKIT_KERNEL_EXP_COSINE: {
        /* for t >= 0, k = s2 Re e^{z t}, z = -1/l + i w; k is even */
        double complex z = -1.0 / k->lengthscale + I * k->frequency;
        double a = fabs(t);
        double complex e = k->variance * cexp(z * a), zm = 1.0;
        for (size_t m = 0; m <= order; m++) {
            double v = creal(zm * e);
            d[m] = (!right && (m % 2)) ? -v : v;
            zm *= z;
        }
        return SKIT_OK;
    }
    case SKIT_KERNEL_TNN: {
        double r[SKIT_KERNEL_MAX_ORDER + 1], g[SKIT_KERNEL_MAX_ORDER + 1];
        size_t out = k->out_dim;
        double *all = skit_malloc((order + 1) * out, sizeof *all);
        if (!all) return SKIT_ENOMEM;
        int status = skit_mlp_taylor(k->mlp, t, order, all, NULL);
        if (status != SKIT_OK) {
            skit_free(all);
            return status;
        }
        for (size_t m = 0; m <= order; m++) r[m] = all[m * out + k->channel];
        skit_free(all);
        /* g = lambda^|t|: g^(m) = (+-ln lambda)^m g */
        double ll = log(k->lambda), gl = exp(ll * fabs(t)), f = right ? ll : -ll, p = 1;
        for (size_t m = 0; m <= order; m++) {
            g[m] = p * gl;
            p *= f;
        }
        for (size_t m = 0; m <= order; m++) {
            double sum = 0, binom = 1;
            for (size_t j = 0; j <= m; j++) {
                sum += binom * r[j] * g[m - j];
                binom = binom * (double)(m - j) / (double)(j + 1);
            }
            d[m] = sum;
        }
        return SKIT_OK;
    }
    case SKIT_KERNEL_WARPED_LINEAR: {
        /* Moving right in t moves x(t) towards smaller values on both sides
         * of 0 (x = lambda^t for t >= 0, -lambda^{-t} for t < 0). */
        double x = right ? pow(k->lambda, fabs(t)) : -pow(k->lambda, fabs(t));
        size_t piece = side > 0 ? warped_piece_ceil(k, x) : warped_piece_floor(k, x);
        /* left limit at t = 0 is x -> -1 */
        if (t == 0 && side < 0) piece = 0;
        double slope = (k->values[piece + 1] - k->values[piece]) * (double)k->knots;
        d[0] = warped_value_on_piece(k, x, piece);
        double ll = log(k->lambda), lam = pow(k->lambda, fabs(t));
        /* x^(m) = (ln lambda)^m lambda^t (t >= 0) or -(-ln lambda)^m lambda^{-t} */
        double p = 1;
        for (size_t m = 1; m <= order; m++) {
            p *= right ? ll : -ll;
            d[m] = slope * (right ? p * lam : -p * lam);
        }
        return SKIT_OK;
    }
    case SKIT_KERNEL_SUM: {
        double tmp[SKIT_KERNEL_MAX_ORDER + 1];
        SKIT_TRY(derivs_sided(k->a, t, side, order, d));
        SKIT_TRY(derivs_sided(k->b, t, side, order, tmp));
        for (size_t m = 0; m <= order; m++) d[m] += tmp[m];
        return SKIT_OK;
    }
    }
    return SKIT_ERROR(SKIT_EINVAL, "kernel type %d unknown", (int)k->type);
}

int skit_kernel_derivatives(const skit_kernel *kernel, double t, size_t order, double *derivs)
{
    SKIT_REQUIRE_PTR(kernel);
    SKIT_REQUIRE_PTR(derivs);
    if (order > SKIT_KERNEL_MAX_ORDER)
        return SKIT_ERROR(SKIT_EDOM, "order = %zu out of range: need order <= %d", order,
                          SKIT_KERNEL_MAX_ORDER);
    if (!isfinite(t)) return SKIT_ERROR(SKIT_ENONFINITE, "t = %g: NaN/Inf not allowed", t);
    return derivs_sided(kernel, t, 1, order, derivs);
}

/* ---- smoothness ----------------------------------------------------------- */

static int inside_open(double x, double lo, double hi) { return x > lo && x < hi; }

static int smooth_on(const skit_kernel *k, size_t order, double lo, double hi)
{
    switch (k->type) {
    case SKIT_KERNEL_GAUSSIAN:
    case SKIT_KERNEL_SHIFTED_GAUSSIAN: return 1;
    case SKIT_KERNEL_MATERN52: return order <= 4 || !inside_open(0.0, lo, hi);
    case SKIT_KERNEL_EXP_COSINE: return order == 0 || !inside_open(0.0, lo, hi);
    case SKIT_KERNEL_TNN:
        /* a ReLU RPE has kinks at unknown lags: C^0 only */
        if (k->activation == SKIT_ACTIVATION_RELU && order >= 1) return 0;
        return order == 0 || !inside_open(0.0, lo, hi);
    case SKIT_KERNEL_WARPED_LINEAR: {
        size_t K = k->knots;
        /* t = 0: x jumps from -1 to +1; continuous only if f(-1) = f(1) */
        if (inside_open(0.0, lo, hi) && (order >= 1 || k->values[0] != k->values[2 * K]))
            return 0;
        if (order == 0) return 1;
        /* interior knots z = +-j/K, j = 1..K-1, reached at |t| = ln(j/K)/ln(lambda) */
        for (size_t j = 1; j < K; j++) {
            double tj = log((double)j / (double)K) / log(k->lambda);
            if (inside_open(tj, lo, hi) || inside_open(-tj, lo, hi)) return 0;
        }
        return 1;
    }
    case SKIT_KERNEL_SUM:
        return smooth_on(k->a, order, lo, hi) && smooth_on(k->b, order, lo, hi);
    }
    return 0;
}

int skit_kernel_smoothness(const skit_kernel *kernel, size_t order, double lo, double hi,
                           int *smooth)
{
    SKIT_REQUIRE_PTR(kernel);
    SKIT_REQUIRE_PTR(smooth);
    if (!(isfinite(lo) && isfinite(hi) && lo <= hi))
        return SKIT_ERROR(SKIT_EDOM, "interval [%g, %g] invalid: need finite lo <= hi", lo, hi);
    *smooth = smooth_on(kernel, order, lo, hi);
    return SKIT_OK;
}

/* ---- derivative bounds ---------------------------------------------------- */

/* Range of |t| over [lo, hi]. */
static void abs_range(double lo, double hi, double *amin, double *amax)
{
    if (lo <= 0 && hi >= 0) *amin = 0;
    else *amin = SKIT_MIN(fabs(lo), fabs(hi));
    *amax = SKIT_MAX(fabs(lo), fabs(hi));
}

static double factorial(size_t m)
{
    double f = 1;
    for (size_t i = 2; i <= m; i++) f *= (double)i;
    return f;
}

/* max over samples of |k^(order)| and |k^(order+1)| (both one-sided limits at
 * t = 0 included when 0 is in the interval). */
static int sampled_max(const skit_kernel *k, size_t order, double lo, double hi, double *max_m,
                       double *max_next, double *max_next2, double *step)
{
    double d[SKIT_KERNEL_MAX_ORDER + 3];
    size_t top = order + 2 <= SKIT_KERNEL_MAX_ORDER ? order + 2 : order + 1;
    size_t samples = hi > lo ? BOUND_SAMPLES : 1;
    *step = samples > 1 ? (hi - lo) / (double)(samples - 1) : 0;
    *max_m = 0;
    *max_next = 0;
    *max_next2 = 0;
    for (size_t i = 0; i < samples + 2; i++) {
        double t;
        int side = 1;
        if (i < samples) t = samples > 1 ? lo + (double)i * *step : lo;
        else if (lo <= 0 && hi >= 0) {
            t = 0;
            side = i == samples ? 1 : -1;
        } else break;
        SKIT_TRY(derivs_sided(k, t, side, top, d));
        if (!(fabs(d[order]) <= *max_m)) *max_m = fabs(d[order]);
        if (!(fabs(d[order + 1]) <= *max_next)) *max_next = fabs(d[order + 1]);
        if (top == order + 2 && !(fabs(d[order + 2]) <= *max_next2)) *max_next2 = fabs(d[order + 2]);
    }
    return SKIT_OK;
}

static void matern_bound(const skit_kernel *k, size_t order, double lo, double hi, double *value)
{
    double c = sqrt(5.0) / k->lengthscale, amin, amax;
    abs_range(lo, hi, &amin, &amax);
    double u0 = c * amin, u1 = c * amax, m = (double)order;
    /* |k^(m)| = s2 c^m e^{-u} |q(u)|, q(u) = u^2/3 + (1 - 2m/3) u + (1 - m + m(m-1)/3);
     * extrema where q' - q = 0: -u^2/3 + (2m - 1)/3 u + (m - m(m-1))/3 = 0,
     * i.e. u^2 - (2m - 1) u - (2m - m^2) = 0. */
    double qa = 1.0 / 3.0, qb = 1.0 - 2.0 * m / 3.0, qc = 1.0 - m + m * (m - 1.0) / 3.0;
    double cand[4] = {u0, u1, u0, u0};
    size_t nc = 2;
    double B = -(2 * m - 1), C = -(2 * m - m * m);
    double disc = B * B - 4 * C;
    if (disc >= 0) {
        double r1 = (-B - sqrt(disc)) / 2, r2 = (-B + sqrt(disc)) / 2;
        if (r1 > u0 && r1 < u1) cand[nc++] = r1;
        if (r2 > u0 && r2 < u1) cand[nc++] = r2;
    }
    double best = 0;
    for (size_t i = 0; i < nc; i++) {
        double u = cand[i];
        double v = fabs(exp(-u) * (qa * u * u + qb * u + qc));
        if (v > best) best = v;
    }
    *value = k->variance * pow(c, m) * best;
}

static void warped_bound(const skit_kernel *k, size_t order, double lo, double hi, double *value)
{
    size_t K = k->knots;
    double ll = log(k->lambda), best = 0;
    if (order == 0) {
        /* f is continuous in x: |f| is largest at a knot or at an end of the
         * x-range that [lo, hi] maps to (closures: t -> 0- gives x -> -1). */
        double ranges[2][2];
        int count = 0;
        if (hi >= 0) {
            ranges[count][0] = pow(k->lambda, hi);
            ranges[count][1] = pow(k->lambda, SKIT_MAX(lo, 0.0));
            count++;
        }
        if (lo < 0) {
            ranges[count][0] = -pow(k->lambda, SKIT_MAX(-hi, 0.0));
            ranges[count][1] = -pow(k->lambda, -lo);
            count++;
        }
        for (int r = 0; r < count; r++) {
            double xlo = ranges[r][0], xhi = ranges[r][1];
            for (int e = 0; e < 2; e++) {
                double x = ranges[r][e];
                double v = fabs(warped_value_on_piece(k, x, warped_piece_floor(k, x)));
                if (v > best) best = v;
            }
            for (size_t j = 0; j <= 2 * K; j++) {
                double z = (double)j / (double)K - 1.0;
                if (z >= xlo && z <= xhi && fabs(k->values[j]) > best) best = fabs(k->values[j]);
            }
        }
        *value = best;
        return;
    }
    /* On the piece between knots z_a < z_b the kernel is c + s x(t) and
     * |k^(m)| = |s| |ln lambda|^m lambda^|t|, largest at the smallest |t|. */
    double lm = pow(fabs(ll), (double)order);
    for (size_t piece = 0; piece < 2 * K; piece++) {
        double za = (double)piece / (double)K - 1.0, zb = (double)(piece + 1) / (double)K - 1.0;
        double slope = fabs(k->values[piece + 1] - k->values[piece]) * (double)K;
        if (slope == 0) continue;
        /* |t| range of this piece: x in [za, zb] on the positive side (t >= 0,
         * x = lambda^t) or negative side (t < 0, x = -lambda^|t|) */
        double ta, tb;
        int positive = zb > 0;
        if (positive) {
            ta = zb >= 1 ? 0 : log(zb) / ll;              /* smallest |t| */
            tb = za <= 0 ? INFINITY : log(za) / ll;       /* largest |t| */
        } else {
            ta = za <= -1 ? 0 : log(-za) / ll;
            tb = zb >= 0 ? INFINITY : log(-zb) / ll;
        }
        /* intersect {t : |t| in [ta, tb], sign} with [lo, hi] */
        double smin;
        if (positive) {
            double a = SKIT_MAX(lo, ta), b = SKIT_MIN(hi, tb);
            if (a > b) continue;
            smin = a;
        } else {
            double a = SKIT_MAX(lo, -tb), b = SKIT_MIN(hi, -ta);
            if (a > b || a > 0 || (b >= 0 && a >= 0)) continue;
            smin = fabs(SKIT_MIN(b, 0.0));
        }
        double v = slope * lm * pow(k->lambda, smin);
        if (v > best) best = v;
    }
    *value = best;
}

int skit_kernel_derivative_bound(const skit_kernel *kernel, size_t order, double lo, double hi,
                                 skit_derivative_bound *bound)
{
    SKIT_REQUIRE_PTR(kernel);
    SKIT_REQUIRE_PTR(bound);
    if (order >= SKIT_KERNEL_MAX_ORDER)
        return SKIT_ERROR(SKIT_EDOM, "order = %zu out of range: need order < %d", order,
                          SKIT_KERNEL_MAX_ORDER);
    if (!(isfinite(lo) && isfinite(hi) && lo <= hi))
        return SKIT_ERROR(SKIT_EDOM, "interval [%g, %g] invalid: need finite lo <= hi", lo, hi);
    const skit_kernel *k = kernel;
    bound->smooth = smooth_on(k, order, lo, hi);
    switch (k->type) {
    case SKIT_KERNEL_GAUSSIAN:
    case SKIT_KERNEL_SHIFTED_GAUSSIAN: {
        /* two levels: sup|k^(m+1)| <= sampled max + (step/2) * Cramer bound of
         * k^(m+2), then sup|k^(m)| <= sampled max + (step/2) * that. */
        double mx, mnext, mnext2, step;
        SKIT_TRY(sampled_max(k, order, lo, hi, &mx, &mnext, &mnext2, &step));
        double l = k->lengthscale;
        double cramer1 = k->variance * CRAMER_K * sqrt(factorial(order + 1)) / pow(l, (double)order + 1);
        double cramer2 = k->variance * CRAMER_K * sqrt(factorial(order + 2)) / pow(l, (double)order + 2);
        double next = order + 2 <= SKIT_KERNEL_MAX_ORDER ? SKIT_MIN(cramer1, mnext + 0.5 * step * cramer2)
                                                          : cramer1;
        double global = k->variance * CRAMER_K * sqrt(factorial(order)) / pow(l, (double)order);
        double sampled = mx + 0.5 * step * next;
        bound->value = SKIT_MIN(sampled, global);
        bound->kind = sampled <= global ? SKIT_BOUND_SAMPLED : SKIT_BOUND_ANALYTIC;
        return SKIT_OK;
    }
    case SKIT_KERNEL_MATERN52:
        matern_bound(k, order, lo, hi, &bound->value);
        bound->kind = SKIT_BOUND_ANALYTIC;
        return SKIT_OK;
    case SKIT_KERNEL_EXP_COSINE: {
        double amin, amax;
        abs_range(lo, hi, &amin, &amax);
        double a = 1.0 / k->lengthscale, w = k->frequency;
        bound->value = k->variance * pow(a * a + w * w, 0.5 * (double)order) * exp(-a * amin);
        bound->kind = SKIT_BOUND_ANALYTIC;
        return SKIT_OK;
    }
    case SKIT_KERNEL_TNN: {
        double mx, mnext, mnext2, step;
        SKIT_TRY(sampled_max(k, order, lo, hi, &mx, &mnext, &mnext2, &step));
        bound->value = mx + 0.5 * step * mnext;
        bound->kind = SKIT_BOUND_ESTIMATE;
        return SKIT_OK;
    }
    case SKIT_KERNEL_WARPED_LINEAR:
        warped_bound(k, order, lo, hi, &bound->value);
        bound->kind = SKIT_BOUND_ANALYTIC;
        return SKIT_OK;
    case SKIT_KERNEL_SUM: {
        skit_derivative_bound ba, bb;
        SKIT_TRY(skit_kernel_derivative_bound(k->a, order, lo, hi, &ba));
        SKIT_TRY(skit_kernel_derivative_bound(k->b, order, lo, hi, &bb));
        bound->value = ba.value + bb.value;
        bound->kind = SKIT_MAX(ba.kind, bb.kind);
        return SKIT_OK;
    }
    }
    return SKIT_ERROR(SKIT_EINVAL, "kernel type %d unknown", (int)k->type);
}
