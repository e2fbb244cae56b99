/* taylor.c — truncated power-series arithmetic (see taylor.h).
 *
 * Elementary functions are composed through their differential equations
 * (f(u)' = g(u) u'), which turns each into an O(m^2) recurrence on the
 * coefficients instead of Faa di Bruno's formula. */
#include "config.h"

#include <math.h>

#include "mlp/taylor.h"

void skit_series_mul(const double *a, const double *b, double *c, size_t m)
{
    for (size_t k = 0; k < m; k++) {
        double s = 0;
        for (size_t j = 0; j <= k; j++) s += a[j] * b[k - j];
        c[k] = s;
    }
}

void skit_series_div(const double *a, const double *b, double *c, size_t m)
{
    for (size_t k = 0; k < m; k++) {
        double s = a[k];
        for (size_t j = 1; j <= k; j++) s -= b[j] * c[k - j];
        c[k] = s / b[0];
    }
}

/* From y' a = p a' y: k a0 y_k = sum_{j=1..k} (p j - (k - j)) a_j y_{k-j}. */
void skit_series_pow(const double *a, double p, double *c, size_t m)
{
    if (m == 0) return;
    c[0] = pow(a[0], p);
    for (size_t k = 1; k < m; k++) {
        double s = 0;
        for (size_t j = 1; j <= k; j++) s += (p * (double)j - (double)(k - j)) * a[j] * c[k - j];
        c[k] = s / ((double)k * a[0]);
    }
}

/* From c^2 = a: 2 c0 c_k = a_k - sum_{j=1..k-1} c_j c_{k-j}. */
void skit_series_sqrt(const double *a, double *c, size_t m)
{
    if (m == 0) return;
    c[0] = sqrt(a[0]);
    for (size_t k = 1; k < m; k++) {
        double s = a[k];
        for (size_t j = 1; j < k; j++) s -= c[j] * c[k - j];
        c[k] = s / (2 * c[0]);
    }
}

/* From y' = a' y: k y_k = sum_{j=1..k} j a_j y_{k-j}. */
void skit_series_exp(const double *a, double *c, size_t m)
{
    if (m == 0) return;
    c[0] = exp(a[0]);
    for (size_t k = 1; k < m; k++) {
        double s = 0;
        for (size_t j = 1; j <= k; j++) s += (double)j * a[j] * c[k - j];
        c[k] = s / (double)k;
    }
}

/* F = f(a) where f' = g and G = g(a) is known: k F_k = sum j a_j G_{k-j}. */
static void integrate_chain(const double *a, const double *g, double f0, double *c, size_t m)
{
    c[0] = f0;
    for (size_t k = 1; k < m; k++) {
        double s = 0;
        for (size_t j = 1; j <= k; j++) s += (double)j * a[j] * g[k - j];
        c[k] = s / (double)k;
    }
}

/* g = scale * exp(-factor * a^2) */
static void gaussian_series(const double *a, double factor, double scale, double *g, size_t m)
{
    double sq[SKIT_SERIES_MAX], e[SKIT_SERIES_MAX];
    skit_series_mul(a, a, sq, m);
    for (size_t k = 0; k < m; k++) sq[k] *= -factor;
    skit_series_exp(sq, e, m);
    for (size_t k = 0; k < m; k++) g[k] = scale * e[k];
}

void skit_series_erf(const double *a, double *c, size_t m)
{
    if (m == 0) return;
    double g[SKIT_SERIES_MAX];
    gaussian_series(a, 1.0, 2.0 / sqrt(M_PI), g, m);
    integrate_chain(a, g, erf(a[0]), c, m);
}

void skit_series_normal_cdf(const double *a, double *c, size_t m)
{
    if (m == 0) return;
    double g[SKIT_SERIES_MAX];
    gaussian_series(a, 0.5, 1.0 / sqrt(2 * M_PI), g, m);
    /* erfc keeps the left tail accurate where 1 + erf would cancel */
    integrate_chain(a, g, 0.5 * erfc(-a[0] / M_SQRT2), c, m);
}

/* sigma' = sigma (1 - sigma) u': the derivative series z = sigma(1 - sigma)
 * is extended one coefficient at a time as sigma's coefficients appear. */
void skit_series_sigmoid(const double *a, double *c, size_t m)
{
    if (m == 0) return;
    double z[SKIT_SERIES_MAX];
    double a0 = a[0];
    if (a0 >= 0) {
        c[0] = 1.0 / (1.0 + exp(-a0));
    } else {
        double e = exp(a0);
        c[0] = e / (1.0 + e);
    }
    for (size_t k = 0; k < m; k++) {
        if (k > 0) {
            double s = 0;
            for (size_t j = 1; j <= k; j++) s += (double)j * a[j] * z[k - j];
            c[k] = s / (double)k;
        }
        double sq = 0;
        for (size_t l = 0; l <= k; l++) sq += c[l] * c[k - l];
        z[k] = c[k] - sq;
    }
}

void skit_series_silu(const double *a, double *c, size_t m)
{
    double s[SKIT_SERIES_MAX];
    skit_series_sigmoid(a, s, m);
    skit_series_mul(a, s, c, m);
}

void skit_series_gelu(const double *a, double *c, size_t m)
{
    double p[SKIT_SERIES_MAX];
    skit_series_normal_cdf(a, p, m);
    skit_series_mul(a, p, c, m);
}

int skit_series_relu(const double *a, double *c, size_t m)
{
    if (m == 0) return 0;
    int kink = fabs(a[0]) <= 1e-12;
    /* sign of the first nonzero coefficient decides the branch to the right */
    int positive = 0;
    for (size_t k = 0; k < m; k++) {
        if (a[k] != 0) {
            positive = a[k] > 0;
            break;
        }
    }
    for (size_t k = 0; k < m; k++) c[k] = positive ? a[k] : 0.0;
    return kink;
}
