/* decay.c — frequency responses of MLPs built three ways, their impulse
 * responses, Taylor-mode derivative norms, decay-rate fits and Parseval
 * (skit/freq.h, ski-to-go-faster §4.2 and Appendix E). */
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "fft/planner.h"
#include "mlp/batch.h"
#include "mlp/taylor.h"
#include "skit/freq.h"

#define MAX_ORDER 16
#define TAYLOR_CHUNK 256 /* expansion points per batched Taylor pass */

const char *skit_freq_construction_name(skit_freq_construction construction)
{
    switch (construction) {
    case SKIT_FREQ_HALF_CIRCLE: return "half-circle (FD-TNO code: MLP(w) on [0,pi], real inverse FFT)";
    case SKIT_FREQ_FULL_CIRCLE: return "full-circle (MLP(w) on [-pi,pi))";
    case SKIT_FREQ_PERIODIC: return "periodic (MLP(cos w, sin w))";
    }
    return "unknown";
}

const char *skit_freq_construction_token(skit_freq_construction construction)
{
    switch (construction) {
    case SKIT_FREQ_HALF_CIRCLE: return "half";
    case SKIT_FREQ_FULL_CIRCLE: return "full";
    case SKIT_FREQ_PERIODIC: return "periodic";
    }
    return "unknown";
}

static int check_construction(const skit_mlp *mlp, skit_freq_construction construction)
{
    if ((int)construction < SKIT_FREQ_HALF_CIRCLE || (int)construction > SKIT_FREQ_PERIODIC)
        return SKIT_ERROR(SKIT_EINVAL, "construction = %d unknown: need half (0), full (1) or "
                                       "periodic (2)", (int)construction);
    size_t want = construction == SKIT_FREQ_PERIODIC ? 2 : 1;
    if (skit_mlp_in_dim(mlp) != want)
        return SKIT_ERROR(SKIT_ESHAPE, "MLP in_dim = %zu: the %s construction needs in_dim = %zu",
                          skit_mlp_in_dim(mlp), skit_freq_construction_token(construction), want);
    return SKIT_OK;
}

/* MLP values at the angles omega[0..count): inputs ω or (cos ω, sin ω). */
static int eval_at(const skit_mlp *mlp, skit_freq_construction construction, size_t count,
                   const double *omega, double *values)
{
    if (construction != SKIT_FREQ_PERIODIC) return skit_mlp_eval(mlp, count, omega, values, NULL);
    double *feat = skit_malloc(2 * count, sizeof(double));
    if (!feat) return SKIT_ENOMEM;
    for (size_t j = 0; j < count; j++) {
        feat[2 * j] = cos(omega[j]);
        feat[2 * j + 1] = sin(omega[j]);
    }
    int status = skit_mlp_eval(mlp, count, feat, values, NULL);
    skit_free(feat);
    return status;
}

int skit_freq_response(const skit_mlp *mlp, skit_freq_construction construction, size_t count,
                       double *omega, double *response)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(omega);
    SKIT_REQUIRE_PTR(response);
    SKIT_TRY(check_construction(mlp, construction));
    if (count < 2 || count > ((size_t)1 << 26))
        return SKIT_ERROR(SKIT_EDOM, "count = %zu out of range: need 2 <= count <= 2^26", count);
    for (size_t j = 0; j < count; j++)
        omega[j] = construction == SKIT_FREQ_HALF_CIRCLE
                       ? M_PI * (double)j / (double)(count - 1)
                       : -M_PI + 2 * M_PI * (double)j / (double)count;
    return eval_at(mlp, construction, count, omega, response);
}

int skit_freq_circle_samples(const skit_mlp *mlp, skit_freq_construction construction, size_t N,
                             double *values)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(values);
    SKIT_TRY(check_construction(mlp, construction));
    if (N < 4 || N % 2 || N > ((size_t)1 << 26))
        return SKIT_ERROR(SKIT_EDOM, "N = %zu out of range: need an even 4 <= N <= 2^26", N);
    size_t d = skit_mlp_out_dim(mlp), half = N / 2 + 1, bytes;
    if (skit_size_mul(N + 1, d + 2, &bytes) || skit_size_mul(bytes, sizeof(double), &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "sample buffer size overflows (N = %zu)", N);
    SKIT_TRY(skit_memory_check(bytes, "frequency-response samples"));
    size_t points = construction == SKIT_FREQ_HALF_CIRCLE ? half : N + 1;
    double *omega = skit_malloc(points, sizeof(double));
    double *raw = skit_malloc(points * d, sizeof(double));
    int status = SKIT_ENOMEM;
    if (!omega || !raw) goto done;
    for (size_t m = 0; m < points; m++) {
        if (construction == SKIT_FREQ_FULL_CIRCLE)
            omega[m] = m == N ? M_PI : -M_PI + 2 * M_PI * (double)m / (double)N;
        else
            omega[m] = 2 * M_PI * (double)m / (double)N;
    }
    status = eval_at(mlp, construction, points, omega, raw);
    if (status == SKIT_OK) status = skit_check_finite(raw, points * d, "MLP frequency response");
    if (status != SKIT_OK) goto done;
    for (size_t c = 0; c < d; c++) {
        double *v = values + c * N;
        if (construction == SKIT_FREQ_HALF_CIRCLE) {
            for (size_t m = 0; m < half; m++) v[m] = raw[m * d + c];
            for (size_t m = half; m < N; m++) v[m] = v[N - m]; /* even extension */
        } else {
            for (size_t m = 0; m < N; m++) v[m] = raw[m * d + c];
            /* trapezoid rule at the ends of [-π, π]: the Fourier series of
             * the periodic extension takes the midpoint of a jump */
            if (construction == SKIT_FREQ_FULL_CIRCLE) v[0] = 0.5 * (raw[c] + raw[N * d + c]);
        }
    }
done:
    skit_free(omega);
    skit_free(raw);
    return status;
}

int skit_freq_impulse(const skit_mlp *mlp, skit_freq_construction construction, size_t N,
                      double *k_re, double *k_im)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(k_re);
    SKIT_TRY(check_construction(mlp, construction));
    if (N < 4 || N % 2 || N > ((size_t)1 << 26))
        return SKIT_ERROR(SKIT_EDOM, "N = %zu out of range: need an even 4 <= N <= 2^26", N);
    size_t d = skit_mlp_out_dim(mlp);
    SKIT_TRY(skit_memory_check(N * (d + 2) * sizeof(double), "impulse response buffers"));
    double *values = skit_malloc(N * d, sizeof(double));
    fftw_complex *buf = skit_malloc(N, sizeof(fftw_complex));
    fftw_plan plan = NULL;
    int status = SKIT_ENOMEM;
    if (!values || !buf) goto done;
    status = skit_freq_circle_samples(mlp, construction, N, values);
    if (status != SKIT_OK) goto done;
    skit_fftw_planner_init();
    plan = fftw_plan_dft_1d((int)N, buf, buf, FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!plan) {
        status = SKIT_ERROR(SKIT_ELIBRARY, "FFTW could not plan a length-%zu transform", N);
        goto done;
    }
    for (size_t c = 0; c < d; c++) {
        for (size_t m = 0; m < N; m++) {
            buf[m][0] = values[c * N + m];
            buf[m][1] = 0;
        }
        fftw_execute_dft(plan, buf, buf);
        for (size_t t = 0; t < N; t++) {
            /* ω_m = -π + 2πm/N puts a factor e^{-iπt} = (-1)^t on lag t */
            double sign = (construction == SKIT_FREQ_FULL_CIRCLE && t % 2) ? -1.0 : 1.0;
            k_re[c * N + t] = sign * buf[t][0] / (double)N;
            if (k_im)
                k_im[c * N + t] = construction == SKIT_FREQ_HALF_CIRCLE ? 0.0
                                                                         : sign * buf[t][1] / (double)N;
        }
    }
    status = SKIT_OK;
done:
    if (plan) fftw_destroy_plan(plan);
    skit_free(values);
    skit_free(buf);
    return status;
}

int skit_freq_energy(const skit_mlp *mlp, skit_freq_construction construction, size_t nodes,
                     double *energy)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(energy);
    SKIT_TRY(check_construction(mlp, construction));
    if (nodes < 2 || nodes > ((size_t)1 << 26))
        return SKIT_ERROR(SKIT_EDOM, "nodes = %zu out of range: need 2 <= nodes <= 2^26", nodes);
    size_t d = skit_mlp_out_dim(mlp);
    double *omega = skit_malloc(nodes, sizeof(double));
    double *vals = skit_malloc(nodes * d, sizeof(double));
    int status = SKIT_ENOMEM;
    if (!omega || !vals) goto done;
    /* midpoint rule on the construction's own interval; the half circle
     * counts twice (even extension) */
    double lo = construction == SKIT_FREQ_HALF_CIRCLE ? 0.0 : -M_PI;
    double width = construction == SKIT_FREQ_HALF_CIRCLE ? M_PI : 2 * M_PI;
    double h = width / (double)nodes;
    for (size_t j = 0; j < nodes; j++) omega[j] = lo + h * ((double)j + 0.5);
    status = eval_at(mlp, construction, nodes, omega, vals);
    if (status != SKIT_OK) goto done;
    for (size_t c = 0; c < d; c++) {
        double s = 0;
        for (size_t j = 0; j < nodes; j++) s += vals[j * d + c] * vals[j * d + c];
        energy[c] = s * h * (construction == SKIT_FREQ_HALF_CIRCLE ? 2.0 : 1.0) / (2 * M_PI);
    }
done:
    skit_free(omega);
    skit_free(vals);
    return status;
}

int skit_freq_derivative_norms(const skit_mlp *mlp, skit_freq_construction construction,
                               size_t max_order, size_t nodes, double *norms)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(norms);
    SKIT_TRY(check_construction(mlp, construction));
    if (max_order > MAX_ORDER)
        return SKIT_ERROR(SKIT_EDOM, "order N = %zu out of range: need N <= %d", max_order, MAX_ORDER);
    if (nodes < 2 || nodes > ((size_t)1 << 24))
        return SKIT_ERROR(SKIT_EDOM, "nodes = %zu out of range: need 2 <= nodes <= 2^24", nodes);
    size_t d = skit_mlp_out_dim(mlp), in = skit_mlp_in_dim(mlp), terms = max_order + 1;
    double *input = skit_malloc(TAYLOR_CHUNK * terms * in, sizeof(double));
    double *output = skit_malloc(TAYLOR_CHUNK * terms * d, sizeof(double));
    double *work = skit_malloc(skit_mlp_taylor_workspace(mlp, TAYLOR_CHUNK, terms), sizeof(double));
    int kinks[TAYLOR_CHUNK];
    int status = SKIT_ENOMEM;
    if (!input || !output || !work) goto done;
    double lo = construction == SKIT_FREQ_HALF_CIRCLE ? 0.0 : -M_PI;
    double width = construction == SKIT_FREQ_HALF_CIRCLE ? M_PI : 2 * M_PI;
    double h = width / (double)nodes;
    for (size_t i = 0; i < terms * d; i++) norms[i] = 0;
    for (size_t j0 = 0; j0 < nodes; j0 += TAYLOR_CHUNK) {
        size_t cnt = SKIT_MIN((size_t)TAYLOR_CHUNK, nodes - j0);
        memset(input, 0, cnt * terms * in * sizeof(double));
        for (size_t p = 0; p < cnt; p++) {
            double w = lo + h * ((double)(j0 + p) + 0.5);
            double *s = input + p * terms * in;
            if (construction == SKIT_FREQ_PERIODIC) {
                /* cos(w + t), sin(w + t): k-th coefficients cos(w + kπ/2)/k!, sin(...)/k! */
                double f = 1;
                for (size_t k = 0; k < terms; k++) {
                    if (k > 0) f *= (double)k;
                    s[2 * k] = cos(w + (double)k * M_PI_2) / f;
                    s[2 * k + 1] = sin(w + (double)k * M_PI_2) / f;
                }
            } else {
                s[0] = w;
                if (terms > 1) s[1] = 1.0;
            }
        }
        status = skit_mlp_taylor_batch(mlp, cnt, terms, input, output, kinks, work);
        if (status != SKIT_OK) goto done;
        for (size_t p = 0; p < cnt; p++)
            for (size_t k = 0; k < terms; k++)
                for (size_t c = 0; c < d; c++) norms[k * d + c] += fabs(output[(p * terms + k) * d + c]);
    }
    double factorial = 1;
    for (size_t k = 0; k < terms; k++) {
        if (k > 0) factorial *= (double)k;
        /* |f^(N)(|w|)| is even: the half circle counts twice */
        double scale = factorial * h * (construction == SKIT_FREQ_HALF_CIRCLE ? 2.0 : 1.0);
        for (size_t c = 0; c < d; c++) norms[k * d + c] *= scale;
    }
    status = SKIT_OK;
done:
    skit_free(input);
    skit_free(output);
    skit_free(work);
    return status;
}

double skit_decay_bound(double derivative_norm, size_t order, size_t n)
{
    /* N = 0 is Lemma 6 (|k[n]| <= ||k||_1 / 2 pi for every n, n = 0 too) */
    if (n == 0) return order == 0 ? derivative_norm / (2 * M_PI) : INFINITY;
    return derivative_norm / (2 * M_PI * pow((double)n, (double)order));
}

/* least squares slope and RMS residual of y against x */
static void line_fit(size_t count, const double *x, const double *y, double *slope, double *rms)
{
    double mx = 0, my = 0;
    for (size_t i = 0; i < count; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)count;
    my /= (double)count;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < count; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    double b = sxx > 0 ? sxy / sxx : 0;
    double ss = 0;
    for (size_t i = 0; i < count; i++) {
        double r = y[i] - (my + b * (x[i] - mx));
        ss += r * r;
    }
    *slope = b;
    *rms = sqrt(ss / (double)count);
}

int skit_decay_fit_magnitudes(size_t count, const double *magnitude, size_t n_lo, size_t n_hi,
                              double floor, skit_decay_fit *fit)
{
    SKIT_REQUIRE_PTR(magnitude);
    SKIT_REQUIRE_PTR(fit);
    if (n_lo < 1 || n_lo >= n_hi || n_hi >= count)
        return SKIT_ERROR(SKIT_EDOM, "fit range %zu..%zu out of range: need 1 <= n_lo < n_hi < "
                                     "count (= %zu)", n_lo, n_hi, count);
    if (!(floor >= 0) || !isfinite(floor))
        return SKIT_ERROR(SKIT_EDOM, "floor = %g out of range: need a finite floor >= 0", floor);
    SKIT_TRY(skit_check_finite(magnitude + n_lo, n_hi - n_lo + 1, "magnitudes"));
    memset(fit, 0, sizeof *fit);
    size_t span = n_hi - n_lo + 1;
    double *env = skit_malloc(span, sizeof(double));
    double *xs = skit_malloc(span, sizeof(double));
    double *ls = skit_malloc(span, sizeof(double));
    double *ys = skit_malloc(span, sizeof(double));
    if (!env || !xs || !ls || !ys) {
        skit_free(env);
        skit_free(xs);
        skit_free(ls);
        skit_free(ys);
        return SKIT_ENOMEM;
    }
    double run = 0;
    for (size_t i = span; i-- > 0;) {
        double v = fabs(magnitude[n_lo + i]);
        if (v > run) run = v;
        env[i] = run;
    }
    /* the envelope is non-increasing: usable points are a prefix */
    size_t used = 0;
    while (used < span && env[used] > floor) used++;
    if (used >= 4) {
        for (size_t i = 0; i < used; i++) {
            xs[i] = (double)(n_lo + i);
            ls[i] = log(xs[i]);
            ys[i] = log(env[i]);
        }
        double slope, rms;
        fit->n_lo = n_lo;
        fit->n_hi = n_lo + used - 1;
        fit->points = used;
        line_fit(used, xs, ys, &slope, &rms);
        fit->exp_rate = -slope;
        fit->exp_residual = rms;
        line_fit(used, ls, ys, &slope, &rms);
        fit->poly_exponent = -slope;
        fit->poly_residual = rms;
        size_t h1 = used / 2, h2 = used - h1;
        line_fit(h1, xs, ys, &slope, &rms);
        fit->rate_first_half = -slope;
        line_fit(h1, ls, ys, &slope, &rms);
        fit->exponent_first_half = -slope;
        line_fit(h2, xs + h1, ys + h1, &slope, &rms);
        fit->rate_second_half = -slope;
        line_fit(h2, ls + h1, ys + h1, &slope, &rms);
        fit->exponent_second_half = -slope;
    }
    skit_free(env);
    skit_free(xs);
    skit_free(ls);
    skit_free(ys);
    return SKIT_OK;
}

skit_decay_class skit_decay_classify(const skit_decay_fit *fit)
{
    if (!fit || fit->points < 4) return SKIT_DECAY_UNDETERMINED;
    if (fit->poly_residual <= fit->exp_residual) return SKIT_DECAY_POLYNOMIAL;
    if (fit->rate_second_half >= 1.5 * fit->rate_first_half && fit->rate_first_half > 0)
        return SKIT_DECAY_SUPEREXPONENTIAL;
    return SKIT_DECAY_EXPONENTIAL;
}

const char *skit_decay_class_name(skit_decay_class c)
{
    switch (c) {
    case SKIT_DECAY_UNDETERMINED: return "undetermined";
    case SKIT_DECAY_POLYNOMIAL: return "polynomial";
    case SKIT_DECAY_EXPONENTIAL: return "exponential";
    case SKIT_DECAY_SUPEREXPONENTIAL: return "super-exponential";
    }
    return "unknown";
}

int skit_parseval_difference(size_t N, const double *spec_re, const double *spec_im,
                             const double *k_re, const double *k_im, double *relative_difference)
{
    SKIT_REQUIRE_PTR(spec_re);
    SKIT_REQUIRE_PTR(k_re);
    SKIT_REQUIRE_PTR(relative_difference);
    if (N == 0) return SKIT_ERROR(SKIT_EDOM, "N = 0 out of range: need N >= 1");
    SKIT_TRY(skit_check_finite(spec_re, N, "spectrum (real part)"));
    if (spec_im) SKIT_TRY(skit_check_finite(spec_im, N, "spectrum (imaginary part)"));
    SKIT_TRY(skit_check_finite(k_re, N, "impulse response (real part)"));
    if (k_im) SKIT_TRY(skit_check_finite(k_im, N, "impulse response (imaginary part)"));
    double time = 0, freq = 0;
    for (size_t i = 0; i < N; i++) {
        time += k_re[i] * k_re[i] + (k_im ? k_im[i] * k_im[i] : 0.0);
        freq += spec_re[i] * spec_re[i] + (spec_im ? spec_im[i] * spec_im[i] : 0.0);
    }
    freq /= (double)N;
    double scale = fmax(time, freq);
    *relative_difference = scale > 0 ? fabs(time - freq) / scale : 0.0;
    return SKIT_OK;
}
