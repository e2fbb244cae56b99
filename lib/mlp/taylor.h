/* taylor.h — truncated power-series (Taylor-mode) arithmetic: the mlp
 * module's interface for modules above it (not installed).
 *
 * A series of length m holds the normalised Taylor coefficients
 * a[k] = f^(k)(x0) / k!, k = 0..m-1, of a function around the point x0.
 * Every operation returns the first m coefficients of the exact result, so
 * composing them through a network gives exact derivatives (up to rounding)
 * without finite differences. Unless stated, the output must not alias an
 * input. All functions are total: callers check the documented domain
 * (positive leading coefficient for sqrt/rsqrt/division) before calling. */
#ifndef SKIT_MLP_TAYLOR_H
#define SKIT_MLP_TAYLOR_H

#include <stddef.h>

/* Largest series length the library uses (order 16 + 1). */
#define SKIT_SERIES_MAX 17

/* c = a * b (Cauchy product). */
void skit_series_mul(const double *a, const double *b, double *c, size_t m);
/* c = a / b; needs b[0] != 0. */
void skit_series_div(const double *a, const double *b, double *c, size_t m);
/* c = a^p for real p; needs a[0] > 0. */
void skit_series_pow(const double *a, double p, double *c, size_t m);
/* c = sqrt(a); needs a[0] > 0. */
void skit_series_sqrt(const double *a, double *c, size_t m);
/* c = exp(a). */
void skit_series_exp(const double *a, double *c, size_t m);
/* c = erf(a), from erf' = (2/sqrt(pi)) exp(-u^2). */
void skit_series_erf(const double *a, double *c, size_t m);
/* c = Phi(a), the standard normal CDF 0.5 (1 + erf(a / sqrt 2)). */
void skit_series_normal_cdf(const double *a, double *c, size_t m);
/* c = 1 / (1 + exp(-a)), from sigma' = sigma (1 - sigma); no overflow for
 * large |a[0]|. */
void skit_series_sigmoid(const double *a, double *c, size_t m);
/* c = a * sigmoid(a)  (SiLU). */
void skit_series_silu(const double *a, double *c, size_t m);
/* c = a * Phi(a)  (exact GeLU). */
void skit_series_gelu(const double *a, double *c, size_t m);
/* c = max(a, 0) as a one-sided series: the branch is chosen by the sign of
 * the first nonzero coefficient of a, i.e. the branch valid just to the right
 * of x0; returns 1 if |a[0]| <= 1e-12 (a kink at or next to x0), else 0.
 * c may alias a. */
int skit_series_relu(const double *a, double *c, size_t m);

#endif
