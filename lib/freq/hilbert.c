/* hilbert.c — discrete Hilbert transform of a sampled spectrum, causal
 * spectra, impulse responses and the causality residual (skit/freq.h). */
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "fft/circulant.h"
#include "fft/planner.h"
#include "skit/freq.h"

static int check_buffer(size_t n, size_t per, const char *what)
{
    size_t bytes;
    if (skit_size_mul(n, per, &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "n = %zu: %s size overflows size_t", n, what);
    return skit_memory_check(bytes, what);
}

/* FFT method: bins q of the r2c transform times -i·sign(q), zero at DC and
 * (even n) Nyquist, back with c2r and 1/n. */
static int hilbert_fft(size_t n, const double *x, double *y)
{
    size_t half = n / 2 + 1;
    SKIT_TRY(check_buffer(n + 2 * half, sizeof(double), "Hilbert FFT buffers"));
    double *buf = skit_malloc(n, sizeof(double));
    fftw_complex *spec = skit_malloc(half, sizeof(fftw_complex));
    if (!buf || !spec) {
        skit_free(buf);
        skit_free(spec);
        return SKIT_ENOMEM;
    }
    skit_fftw_planner_init();
    fftw_plan fwd = fftw_plan_dft_r2c_1d((int)n, buf, spec, FFTW_ESTIMATE);
    fftw_plan bwd = fftw_plan_dft_c2r_1d((int)n, spec, buf, FFTW_ESTIMATE);
    if (!fwd || !bwd) {
        if (fwd) fftw_destroy_plan(fwd);
        if (bwd) fftw_destroy_plan(bwd);
        skit_free(buf);
        skit_free(spec);
        return SKIT_ERROR(SKIT_ELIBRARY, "FFTW could not plan a length-%zu transform", n);
    }
    memcpy(buf, x, n * sizeof(double));
    fftw_execute(fwd);
    spec[0][0] = spec[0][1] = 0;
    for (size_t q = 1; q < half; q++) {
        if (2 * q == n) {
            spec[q][0] = spec[q][1] = 0;
        } else {
            double re = spec[q][0], im = spec[q][1];
            spec[q][0] = im; /* (re + i im)(-i) = im - i re */
            spec[q][1] = -re;
        }
    }
    fftw_execute(bwd);
    for (size_t m = 0; m < n; m++) y[m] = buf[m] / (double)n;
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    skit_free(buf);
    skit_free(spec);
    return SKIT_OK;
}

/* Definition 1 on the periodic extension, truncated at |l| <= L: the kernel
 * is first folded onto one period (hf[r] = Σ_{l ≡ r mod n} h[l]), smallest
 * terms first, then applied as a circular convolution. */
static int hilbert_definition(size_t n, const double *x, double *y, size_t L)
{
    SKIT_TRY(check_buffer(n, sizeof(double), "Hilbert kernel"));
    double *hf = skit_calloc(n, sizeof(double));
    if (!hf) return SKIT_ENOMEM;
    size_t top = L % 2 ? L : L - 1; /* largest odd l <= L (L >= 1) */
    for (size_t l = top; l >= 1; l -= 2) {
        double h = 2.0 / (M_PI * (double)l);
        hf[l % n] += h;
        hf[(n - l % n) % n] -= h;
        if (l < 2) break;
    }
    for (size_t m = 0; m < n; m++) {
        double s = 0;
        for (size_t r = 0; r < n; r++) {
            if (hf[r] == 0) continue;
            s += hf[r] * x[(m + n - r) % n];
        }
        y[m] = s;
    }
    skit_free(hf);
    return SKIT_OK;
}

/* Inputs near the top of the range overflow the unnormalised FFT sums
 * (|X[q]| up to n max|x|): above this bound the samples are scaled by a
 * power of two, exactly, and the result scaled back. */
#define HILBERT_SCALE_ABOVE 0x1p900

static int run_method(size_t n, const double *x, double *y, skit_hilbert_method method, size_t lag_window)
{
    if (method == SKIT_HILBERT_FFT) return hilbert_fft(n, x, y);
    return hilbert_definition(n, x, y, lag_window ? lag_window : n / 2);
}

/* The result, scaled back by 2^e: SKIT_EOVERFLOW where it leaves the
 * double range (|H{x}| exceeds max |x| by up to about (2/pi) ln n). */
static int scale_back(size_t n, double *y, int e)
{
    for (size_t m = 0; m < n; m++) {
        y[m] = ldexp(y[m], e);
        if (!isfinite(y[m]))
            return SKIT_ERROR(SKIT_EOVERFLOW, "H{x}[%zu] exceeds the double range: the spectrum's values "
                                              "are too large", m);
    }
    return SKIT_OK;
}

static int transform_scaled(size_t n, const double *x, double *y, skit_hilbert_method method, size_t lag_window)
{
    double top = 0;
    for (size_t m = 0; m < n; m++) top = fmax(top, fabs(x[m]));
    if (top <= HILBERT_SCALE_ABOVE) return run_method(n, x, y, method, lag_window);
    int e;
    frexp(top, &e);
    double *scaled = skit_malloc(n, sizeof(double));
    if (!scaled) return SKIT_ENOMEM;
    for (size_t m = 0; m < n; m++) scaled[m] = ldexp(x[m], -e);
    int status = run_method(n, scaled, y, method, lag_window);
    skit_free(scaled);
    return status == SKIT_OK ? scale_back(n, y, e) : status;
}

int skit_hilbert_transform(size_t n, const double *x, double *y, skit_hilbert_method method,
                           size_t lag_window)
{
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 samples");
    if (method != SKIT_HILBERT_FFT && method != SKIT_HILBERT_DEFINITION)
        return SKIT_ERROR(SKIT_EINVAL, "method = %d unknown: need fft (0) or definition (1)",
                          (int)method);
    if (lag_window > SKIT_HILBERT_MAX_LAG_WINDOW)
        return SKIT_ERROR(SKIT_EDOM, "lag window L = %zu out of range: need L <= 2^32", lag_window);
    if ((uint64_t)n > (uint64_t)1 << 31)
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^31", n);
    SKIT_TRY(skit_check_finite(x, n, "spectrum"));
    if (n == 1) {
        y[0] = 0;
        return SKIT_OK;
    }
    return transform_scaled(n, x, y, method, lag_window);
}

/* ---- float32 ------------------------------------------------------------- */

/* The FFT method is a circular convolution of length n whose multiplier
 * -i sign(q) is known exactly, so it runs on the float circulant engine
 * (the one FD-TNO's float path uses) with that multiplier written into the
 * engine's spectrum: no kernel is rounded, the only error is the FFTs'. */
int skit_hilbert_transform_f32(size_t n, const float *x, float *y)
{
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 samples");
    if ((uint64_t)n > (uint64_t)1 << 31)
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^31", n);
    for (size_t m = 0; m < n; m++)
        if (!isfinite(x[m]))
            return SKIT_ERROR(SKIT_ENONFINITE, "spectrum[%zu] = %g: need finite values", m, (double)x[m]);
    if (n == 1) {
        y[0] = 0;
        return SKIT_OK;
    }
    skit_circulant_shape shape = {.rows = n, .cols = n, .channels = 1, .spectra = 1, .length = n,
                                  .what = "Hilbert FFT buffers", .planner = SKIT_PLANNER_ESTIMATE};
    skit_circulantf *e;
    SKIT_TRY(skit_circulantf_create(&e, &shape));
    float *work = skit_malloc(skit_circulantf_workspace_doubles(e, 0), sizeof(float));
    if (!work) {
        skit_circulantf_destroy(e);
        return SKIT_ENOMEM;
    }
    /* split spectrum scaled by 1/n: Re 0, Im -1/n at 0 < q < n/2, 0 at DC
     * and Nyquist (the engine's spectra start zeroed) */
    size_t half = skit_circulantf_frequencies(e);
    float *im = skit_circulantf_spectra(e) + half;
    for (size_t q = 1; 2 * q < n; q++) im[q] = -1.0f / (float)n;
    /* as in double: samples near FLT_MAX are scaled by 2^-e, exactly, so
     * that the FFT sums do not overflow; the result is scaled back */
    float top = 0;
    for (size_t m = 0; m < n; m++) top = fmaxf(top, fabsf(x[m]));
    int exponent = 0;
    if (top > 0x1p100f) frexpf(top, &exponent);
    float *scaled = exponent ? skit_malloc(n, sizeof(float)) : NULL;
    int status = SKIT_OK;
    if (exponent && !scaled) status = SKIT_ENOMEM;
    else if (scaled) for (size_t m = 0; m < n; m++) scaled[m] = ldexpf(x[m], -exponent);
    if (status == SKIT_OK) skit_circulantf_apply_channels(e, 0, scaled ? scaled : x, n, y, n, 1, work);
    for (size_t m = 0; status == SKIT_OK && exponent && m < n; m++)
        if (!isfinite(y[m] = ldexpf(y[m], exponent)))
            status = SKIT_ERROR(SKIT_EOVERFLOW, "H{x}[%zu] exceeds the float range: the spectrum's values "
                                                "are too large", m);
    skit_free(scaled);
    skit_free(work);
    skit_circulantf_destroy(e);
    return status;
}

int skit_hilbert_causal_spectrum(size_t n, const double *x, skit_hilbert_method method,
                                 size_t lag_window, double *re, double *im)
{
    SKIT_REQUIRE_PTR(re);
    SKIT_REQUIRE_PTR(im);
    SKIT_TRY(skit_hilbert_transform(n, x, im, method, lag_window));
    if (re != x) memcpy(re, x, n * sizeof(double));
    for (size_t m = 0; m < n; m++) im[m] = -im[m];
    return SKIT_OK;
}

int skit_spectrum_impulse(size_t n, const double *re, const double *im, double *k_re,
                          double *k_im)
{
    SKIT_REQUIRE_PTR(re);
    SKIT_REQUIRE_PTR(k_re);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 samples");
    if ((uint64_t)n > (uint64_t)1 << 31)
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^31", n);
    SKIT_TRY(skit_check_finite(re, n, "spectrum (real part)"));
    if (im) SKIT_TRY(skit_check_finite(im, n, "spectrum (imaginary part)"));
    SKIT_TRY(check_buffer(n, sizeof(fftw_complex), "inverse DFT buffer"));
    fftw_complex *buf = skit_malloc(n, sizeof(fftw_complex));
    if (!buf) return SKIT_ENOMEM;
    skit_fftw_planner_init();
    fftw_plan p = fftw_plan_dft_1d((int)n, buf, buf, FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!p) {
        skit_free(buf);
        return SKIT_ERROR(SKIT_ELIBRARY, "FFTW could not plan a length-%zu transform", n);
    }
    /* samples near DBL_MAX: scaled by 2^-e (exactly) so that the sums do
     * not overflow, the result scaled back */
    double top = 0;
    for (size_t m = 0; m < n; m++) top = fmax(top, fmax(fabs(re[m]), im ? fabs(im[m]) : 0.0));
    int e = 0;
    if (top > HILBERT_SCALE_ABOVE) frexp(top, &e);
    for (size_t m = 0; m < n; m++) {
        buf[m][0] = ldexp(re[m], -e);
        buf[m][1] = im ? ldexp(im[m], -e) : 0.0;
    }
    fftw_execute(p);
    int status = SKIT_OK;
    for (size_t t = 0; t < n; t++) {
        k_re[t] = ldexp(buf[t][0] / (double)n, e);
        if (k_im) k_im[t] = ldexp(buf[t][1] / (double)n, e);
        if (status == SKIT_OK && (!isfinite(k_re[t]) || (k_im && !isfinite(k_im[t]))))
            status = SKIT_ERROR(SKIT_EOVERFLOW, "impulse response[%zu] exceeds the double range: the "
                                                "spectrum's values are too large", t);
    }
    fftw_destroy_plan(p);
    skit_free(buf);
    return status;
}

int skit_causality_residual(size_t n, const double *k_re, const double *k_im, double *residual)
{
    SKIT_REQUIRE_PTR(k_re);
    SKIT_REQUIRE_PTR(residual);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 lags");
    SKIT_TRY(skit_check_finite(k_re, n, "impulse response (real part)"));
    if (k_im) SKIT_TRY(skit_check_finite(k_im, n, "impulse response (imaginary part)"));
    /* a ratio of energies: scaled by the largest |k| so that squares of
     * values beyond 1e154 do not overflow */
    double top = 0;
    for (size_t t = 0; t < n; t++) top = fmax(top, fmax(fabs(k_re[t]), k_im ? fabs(k_im[t]) : 0.0));
    const double s = top > 0 ? 1 / top : 1;
    double neg = 0, all = 0;
    for (size_t t = 0; t < n; t++) {
        double e = (s * k_re[t]) * (s * k_re[t]) + (k_im ? (s * k_im[t]) * (s * k_im[t]) : 0.0);
        all += e;
        if (2 * t > n) neg += e;
    }
    *residual = all > 0 ? neg / all : 0.0;
    return SKIT_OK;
}
