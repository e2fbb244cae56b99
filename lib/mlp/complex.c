/* complex.c — the MLP continued to complex inputs (ski-to-go-faster Lemmas
 * 3 and 4: a GeLU MLP as a function of complex omega) and the contour
 * integrals that test where that continuation is analytic.
 *
 * Every layer is continued by the same formula with complex arithmetic:
 * Linear layers as they are, GeLU z Phi(z) with the complex error function,
 * SiLU z / (1 + e^-z), ReLU z [Re z > 0] (continuous in z on neither side of
 * Re z = 0: the non-analytic control), LayerNorm (h - mean) / sqrt(var + eps)
 * with var = mean((h - mean)^2) (squares, not |.|^2, so it stays the
 * analytic continuation) and the principal square root, and TNN's RMS norm
 * h / (sqrt(mean h^2) + eps) likewise. */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "mlp/mlp_internal.h"
#include "skit/mlp.h"

/* erf by its Taylor series 2/sqrt(pi) sum (-1)^k w^(2k+1) / (k! (2k+1)),
 * in long double: the terms grow to about e^|w|^2 while the sum is
 * e^(y^2 - x^2) in size, so the loss is e^(2 x^2) <= e^12.5 for |Re w| <= 2.5
 * (1e-14 relative with long double's 64-bit mantissa). */
static long double complex erf_series(long double complex w)
{
    long double complex w2 = w * w, term = w, sum = w;
    long double big = cabsl(w2);
    for (int k = 1; k < 2000; k++) {
        term *= -w2 / (long double)k;
        long double complex add = term / (long double)(2 * k + 1);
        sum += add;
        if ((long double)k > big && cabsl(add) <= 1e-22L * cabsl(sum)) break;
    }
    return sum * (2.0L / sqrtl(3.14159265358979323846264338327950288L));
}

/* erfc for Re w >= 2.5 by Laplace's continued fraction
 * erfc(w) = e^-w^2 / sqrt(pi) / (w + (1/2) / (w + 1 / (w + (3/2) / (w + ...)))),
 * evaluated from the tail (400 terms: converged to rounding at Re w = 2.5,
 * checked against the series there by tests/test_mlp.c). */
static long double complex erfc_fraction(long double complex w)
{
    long double complex f = w;
    for (int k = 400; k >= 1; k--) f = w + ((long double)k / 2.0L) / f;
    return cexpl(-w * w) / (sqrtl(3.14159265358979323846264338327950288L) * f);
}

void skit_erf_complex(double re, double im, double *out_re, double *out_im)
{
    long double complex w = (long double)re + (long double)im * I, e;
    if (fabs(re) < 2.5) {
        e = erf_series(w);
    } else if (re > 0) {
        e = 1.0L - erfc_fraction(w);
    } else {
        e = erfc_fraction(-w) - 1.0L;
    }
    *out_re = (double)creall(e);
    *out_im = (double)cimagl(e);
}

static double complex activate(skit_activation a, double complex z)
{
    switch (a) {
    case SKIT_ACTIVATION_RELU: return creal(z) > 0 ? z : 0.0;
    case SKIT_ACTIVATION_SILU: return z / (1.0 + cexp(-z));
    case SKIT_ACTIVATION_GELU: {
        double er, ei;
        double complex w = z / M_SQRT2;
        skit_erf_complex(creal(w), cimag(w), &er, &ei);
        return 0.5 * z * (1.0 + (er + ei * I));
    }
    }
    return z;
}

static void norm_row(skit_norm norm, double complex *row, size_t w)
{
    if (norm == SKIT_NORM_NONE) return;
    double complex shift = 0, inv = 1, s = 0;
    if (norm == SKIT_NORM_LAYER) {
        for (size_t i = 0; i < w; i++) shift += row[i];
        shift /= (double)w;
        for (size_t i = 0; i < w; i++) s += (row[i] - shift) * (row[i] - shift);
        inv = 1.0 / csqrt(s / (double)w + LAYER_NORM_EPS);
    } else {
        for (size_t i = 0; i < w; i++) s += row[i] * row[i];
        inv = 1.0 / (csqrt(s / (double)w) + RMS_NORM_EPS);
    }
    for (size_t i = 0; i < w; i++) row[i] = (row[i] - shift) * inv;
}

/* out (fan_out) = W in (fan_in) + b for Linear layer l */
static void linear(const double *w, size_t fan_in, size_t fan_out, const double complex *in,
                   double complex *out)
{
    const double *bias = w + fan_out * fan_in;
    for (size_t o = 0; o < fan_out; o++) {
        double complex s = bias[o];
        for (size_t i = 0; i < fan_in; i++) s += w[o * fan_in + i] * in[i];
        out[o] = s;
    }
}

/* one complex input through the network; buf: 2 * width values */
static void eval_one(const skit_mlp *mlp, const double complex *x, double complex *y, double complex *buf)
{
    size_t w = skit_mlp_width_of(mlp), in = skit_mlp_in_dim(mlp), out = skit_mlp_out_dim(mlp);
    size_t layers = skit_mlp_hidden_layers_of(mlp) + 2;
    skit_activation act = skit_mlp_activation_of(mlp);
    const double *p = skit_mlp_params_of(mlp);
    double complex *a = buf, *b = buf + w;
    linear(p, in, w, x, a);
    p += w * in + w;
    for (size_t l = 1; l < layers; l++) {
        norm_row(skit_mlp_norm_of(mlp), a, w);
        for (size_t i = 0; i < w; i++) a[i] = activate(act, a[i]);
        if (l + 1 == layers) {
            linear(p, w, out, a, y);
        } else {
            linear(p, w, w, a, b);
            p += w * w + w;
            double complex *t = a;
            a = b;
            b = t;
        }
    }
}

int skit_mlp_eval_complex(const skit_mlp *mlp, size_t count, const double *z, double *y)
{
    SKIT_REQUIRE_PTR(mlp);
    if (count == 0) return SKIT_OK;
    SKIT_REQUIRE_PTR(z);
    SKIT_REQUIRE_PTR(y);
    size_t in = skit_mlp_in_dim(mlp), out = skit_mlp_out_dim(mlp), w = skit_mlp_width_of(mlp), nz;
    if (skit_size_mul(count, 2 * SKIT_MAX(in, out), &nz))
        return SKIT_ERROR(SKIT_EOVERFLOW, "count = %zu: input/output size overflows size_t", count);
    SKIT_TRY(skit_check_finite(z, 2 * count * in, "z"));
    double complex *buf = malloc((2 * w + in + out) * sizeof(double complex));
    if (!buf) return SKIT_ERROR(SKIT_ENOMEM, "complex MLP evaluation: %zu values", 2 * w + in + out);
    double complex *xc = buf + 2 * w, *yc = xc + in;
    for (size_t k = 0; k < count; k++) {
        for (size_t i = 0; i < in; i++) xc[i] = z[2 * (k * in + i)] + z[2 * (k * in + i) + 1] * I;
        eval_one(mlp, xc, yc, buf);
        for (size_t j = 0; j < out; j++) {
            y[2 * (k * out + j)] = creal(yc[j]);
            y[2 * (k * out + j) + 1] = cimag(yc[j]);
        }
    }
    free(buf);
    return SKIT_OK;
}

/* The trapezoid sums on the circle |z - c| = r at z_k = c + r e^(i theta_k),
 * theta_k = 2 pi (k + 1/2) / points, per output j: the contour integral
 * (1 / 2 pi) oint f_j dz = (r / points) sum f_j(z_k) i e^(i theta_k), and the
 * mean (1 / points) sum f_j(z_k) (Cauchy's formula for f_j(c)). */
int skit_mlp_contour(const skit_mlp *mlp, double c_re, double c_im, double radius, size_t points,
                     skit_contour_result *result)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(result);
    if (skit_mlp_in_dim(mlp) != 1)
        return SKIT_ERROR(SKIT_ESHAPE, "contour: in_dim = %zu, need a scalar-input MLP (1)", skit_mlp_in_dim(mlp));
    if (!isfinite(c_re) || !isfinite(c_im) || !(radius > 0) || !isfinite(radius))
        return SKIT_ERROR(SKIT_EDOM, "contour: centre and radius must be finite, radius > 0 (got %g)", radius);
    if (points < 8 || points > ((size_t)1 << 24))
        return SKIT_ERROR(SKIT_EDOM, "contour: points = %zu, need 8..2^24", points);
    size_t out = skit_mlp_out_dim(mlp);
    double *z = malloc(2 * (points + 1) * sizeof(double));
    double *f = malloc(2 * (points + 1) * out * sizeof(double));
    if (!z || !f) {
        free(z);
        free(f);
        return SKIT_ERROR(SKIT_ENOMEM, "contour: %zu points", points);
    }
    for (size_t k = 0; k < points; k++) {
        double t = 2.0 * M_PI * ((double)k + 0.5) / (double)points;
        z[2 * k] = c_re + radius * cos(t);
        z[2 * k + 1] = c_im + radius * sin(t);
    }
    z[2 * points] = c_re;
    z[2 * points + 1] = c_im;
    int status = skit_mlp_eval_complex(mlp, points + 1, z, f);
    memset(result, 0, sizeof *result);
    for (size_t j = 0; status == SKIT_OK && j < out; j++) {
        double complex integral = 0, mean = 0;
        double fmax = 0;
        for (size_t k = 0; k < points; k++) {
            double complex v = f[2 * (k * out + j)] + f[2 * (k * out + j) + 1] * I;
            double t = 2.0 * M_PI * ((double)k + 0.5) / (double)points;
            integral += v * I * cexp(I * t);
            mean += v;
            fmax = SKIT_MAX(fmax, cabs(v));
        }
        double complex centre = f[2 * (points * out + j)] + f[2 * (points * out + j) + 1] * I;
        double rel_integral = cabs(integral) / (double)points / fmax;
        double rel_cauchy = cabs(mean / (double)points - centre) / fmax;
        /* NaN (a value overflowed) propagates: !(x <= max) takes it */
        if (!(rel_integral <= result->integral)) result->integral = rel_integral;
        if (!(rel_cauchy <= result->cauchy)) result->cauchy = rel_cauchy;
        if (!(fmax <= result->fmax)) result->fmax = fmax;
    }
    free(z);
    free(f);
    return status;
}

int skit_mlp_norm_branch_point(const skit_mlp *mlp, double *re, double *im)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(re);
    SKIT_REQUIRE_PTR(im);
    if (skit_mlp_in_dim(mlp) != 1)
        return SKIT_ERROR(SKIT_ESHAPE, "branch point: in_dim = %zu, need 1", skit_mlp_in_dim(mlp));
    skit_norm norm = skit_mlp_norm_of(mlp);
    if (norm == SKIT_NORM_NONE)
        return SKIT_ERROR(SKIT_EDOM, "branch point: the MLP has no norm (its first layer is affine)");
    /* first layer h_i = W_i z + b_i; the norm's radicand is the quadratic
     * A z^2 + 2 B z + C (LayerNorm: + eps), zero at (-B +- i sqrt(AC - B^2)) / A */
    size_t w = skit_mlp_width_of(mlp);
    const double *W = skit_mlp_params_of(mlp), *b = W + w;
    double mw = 0, mb = 0, A = 0, B = 0, C = 0;
    if (norm == SKIT_NORM_LAYER) {
        for (size_t i = 0; i < w; i++) {
            mw += W[i] / (double)w;
            mb += b[i] / (double)w;
        }
    }
    for (size_t i = 0; i < w; i++) {
        A += (W[i] - mw) * (W[i] - mw) / (double)w;
        B += (W[i] - mw) * (b[i] - mb) / (double)w;
        C += (b[i] - mb) * (b[i] - mb) / (double)w;
    }
    if (norm == SKIT_NORM_LAYER) C += LAYER_NORM_EPS;
    if (!(A > 0)) return SKIT_ERROR(SKIT_EDOM, "branch point: the first layer's weights are constant");
    *re = -B / A;
    *im = sqrt(SKIT_MAX(A * C - B * B, 0.0)) / A;
    return SKIT_OK;
}
