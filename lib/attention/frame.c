/* frame.c — the overcomplete frame (1), decomposition (2), its two forms (3)
 * and (5) (Observation A.1), and the orthonormal 2-D Haar transform with
 * top-k reconstruction (Figure 1). Dense n x n matrices: small n. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

static int is_power_of_two(size_t n) { return n && !(n & (n - 1)); }

size_t skit_mra_frame_count(size_t n)
{
    if (!is_power_of_two(n) || n > ((size_t)1 << 30)) return 0;
    size_t total = 0;
    for (size_t s = n; s >= 1; s /= 2) {
        size_t rows = n / s;
        total += rows * rows;
        if (s == 1) break;
    }
    return total;
}

/* Offset of level s in the frame numbering (levels from s = n down). */
static size_t level_offset(size_t n, size_t s)
{
    size_t off = 0;
    for (size_t t = n; t > s; t /= 2) off += (n / t) * (n / t);
    return off;
}

int skit_mra_frame_index(size_t n, size_t s, size_t x, size_t y, size_t *index)
{
    SKIT_REQUIRE_PTR(index);
    if (!skit_mra_frame_count(n))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need a power of two <= 2^30", n);
    if (!is_power_of_two(s) || s > n)
        return SKIT_ERROR(SKIT_EDOM, "s = %zu out of range: need a power of two <= n (= %zu)", s, n);
    size_t rows = n / s;
    if (x >= rows || y >= rows)
        return SKIT_ERROR(SKIT_EDOM, "x = %zu, y = %zu out of range: need both < n/s (= %zu)", x, y,
                          rows);
    *index = level_offset(n, s) + x + y * rows;
    return SKIT_OK;
}

static int check_square(size_t n, const double *a, size_t lda, const char *name)
{
    if (!a) return SKIT_ERROR(SKIT_EINVAL, "%s must not be NULL", name);
    if (!skit_mra_frame_count(n))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need a power of two <= 2^30", n);
    if (lda < n)
        return SKIT_ERROR(SKIT_ESHAPE, "leading dimension of %s = %zu too small: need >= n (= %zu)",
                          name, lda, n);
    return SKIT_OK;
}

int skit_mra_frame_decompose(size_t n, const double *a, size_t lda,
                             const unsigned char *subset, double *alpha, double *a_hat,
                             size_t ldh)
{
    SKIT_TRY(check_square(n, a, lda, "a"));
    SKIT_REQUIRE_PTR(alpha);
    if (a_hat) SKIT_TRY(check_square(n, a_hat, ldh, "a_hat"));
    SKIT_TRY(skit_check_finite_matrix(a, n, n, lda, "A"));
    double *e = skit_malloc(n * n, sizeof(double));
    if (!e) return SKIT_ENOMEM;
    for (size_t j = 0; j < n; j++) memcpy(e + j * n, a + j * lda, n * sizeof(double));
    if (a_hat)
        for (size_t j = 0; j < n; j++) memset(a_hat + j * ldh, 0, n * sizeof(double));
    size_t idx = 0;
    for (size_t s = n; s >= 1; s /= 2) {
        size_t rows = n / s;
        for (size_t y = 0; y < rows; y++)
            for (size_t x = 0; x < rows; x++) {
                size_t id = idx + x + y * rows;
                if (subset && !subset[id]) {
                    alpha[id] = 0.0;
                    continue;
                }
                /* alpha = <B, E_s> / s^2: least squares on this support */
                double sum = 0;
                for (size_t j = y * s; j < y * s + s; j++)
                    for (size_t i = x * s; i < x * s + s; i++) sum += e[i + j * n];
                double al = sum / ((double)s * (double)s);
                alpha[id] = al;
                for (size_t j = y * s; j < y * s + s; j++)
                    for (size_t i = x * s; i < x * s + s; i++) {
                        e[i + j * n] -= al;
                        if (a_hat) a_hat[i + j * ldh] += al;
                    }
            }
        idx += rows * rows;
        if (s == 1) break;
    }
    skit_free(e);
    return SKIT_OK;
}

int skit_mra_frame_mu_form(size_t n, const double *a, size_t lda, const unsigned char *subset,
                           double *a_hat, size_t ldh)
{
    SKIT_TRY(check_square(n, a, lda, "a"));
    SKIT_REQUIRE_PTR(subset);
    SKIT_TRY(check_square(n, a_hat, ldh, "a_hat"));
    SKIT_TRY(skit_check_finite_matrix(a, n, n, lda, "A"));
    for (size_t j = 0; j < n; j++) memset(a_hat + j * ldh, 0, n * sizeof(double));
    /* from coarse to fine, so the smallest square of J containing (i, j)
     * is the last one written there */
    size_t idx = 0;
    for (size_t s = n; s >= 1; s /= 2) {
        size_t rows = n / s;
        for (size_t y = 0; y < rows; y++)
            for (size_t x = 0; x < rows; x++) {
                if (!subset[idx + x + y * rows]) continue;
                double sum = 0;
                for (size_t j = y * s; j < y * s + s; j++)
                    for (size_t i = x * s; i < x * s + s; i++) sum += a[i + j * lda];
                double mu = sum / ((double)s * (double)s);
                for (size_t j = y * s; j < y * s + s; j++)
                    for (size_t i = x * s; i < x * s + s; i++) a_hat[i + j * ldh] = mu;
            }
        idx += rows * rows;
        if (s == 1) break;
    }
    return SKIT_OK;
}

int skit_mra_observation_a1(size_t n, const double *a, size_t lda,
                            const unsigned char *subset, double *max_difference)
{
    SKIT_TRY(check_square(n, a, lda, "a"));
    SKIT_REQUIRE_PTR(subset);
    SKIT_REQUIRE_PTR(max_difference);
    size_t count = skit_mra_frame_count(n);
    SKIT_TRY(skit_memory_check((count + 2 * n * n) * sizeof(double), "frame decomposition"));
    double *alpha = skit_malloc(count + 2 * n * n, sizeof(double));
    if (!alpha) return SKIT_ENOMEM;
    double *h3 = alpha + count, *h5 = h3 + n * n;
    int status = skit_mra_frame_decompose(n, a, lda, subset, alpha, h3, n);
    if (status == SKIT_OK) status = skit_mra_frame_mu_form(n, a, lda, subset, h5, n);
    if (status == SKIT_OK) {
        double diff = 0, amax = 0;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                double dd = fabs(h3[i + j * n] - h5[i + j * n]);
                if (dd > diff) diff = dd;
                if (fabs(a[i + j * lda]) > amax) amax = fabs(a[i + j * lda]);
            }
        *max_difference = amax > 0 ? diff / amax : diff;
    }
    skit_free(alpha);
    return status;
}

/* ---- 2-D Haar -------------------------------------------------------------- */

/* One orthonormal Haar step on x[0..m) with stride st: averages then details. */
static void haar_step(double *x, size_t st, size_t m, double *tmp)
{
    const double r = 0.70710678118654752440;
    size_t h = m / 2;
    for (size_t i = 0; i < h; i++) {
        double a = x[(2 * i) * st], b = x[(2 * i + 1) * st];
        tmp[i] = r * (a + b);
        tmp[h + i] = r * (a - b);
    }
    for (size_t i = 0; i < m; i++) x[i * st] = tmp[i];
}

static void haar_unstep(double *x, size_t st, size_t m, double *tmp)
{
    const double r = 0.70710678118654752440;
    size_t h = m / 2;
    for (size_t i = 0; i < h; i++) {
        double a = x[i * st], b = x[(h + i) * st];
        tmp[2 * i] = r * (a + b);
        tmp[2 * i + 1] = r * (a - b);
    }
    for (size_t i = 0; i < m; i++) x[i * st] = tmp[i];
}

int skit_haar2d_forward(size_t n, const double *a, size_t lda, double *c, size_t ldc)
{
    SKIT_TRY(check_square(n, a, lda, "a"));
    SKIT_TRY(check_square(n, c, ldc, "c"));
    SKIT_TRY(skit_check_finite_matrix(a, n, n, lda, "A"));
    double *tmp = skit_malloc(n, sizeof(double));
    if (!tmp) return SKIT_ENOMEM;
    for (size_t j = 0; j < n; j++) memmove(c + j * ldc, a + j * lda, n * sizeof(double));
    for (size_t m = n; m >= 2; m /= 2) {
        for (size_t j = 0; j < m; j++) haar_step(c + j * ldc, 1, m, tmp);  /* columns */
        for (size_t i = 0; i < m; i++) haar_step(c + i, ldc, m, tmp);      /* rows */
    }
    skit_free(tmp);
    return SKIT_OK;
}

int skit_haar2d_inverse(size_t n, const double *c, size_t ldc, double *a, size_t lda)
{
    SKIT_TRY(check_square(n, c, ldc, "c"));
    SKIT_TRY(check_square(n, a, lda, "a"));
    SKIT_TRY(skit_check_finite_matrix(c, n, n, ldc, "C"));
    double *tmp = skit_malloc(n, sizeof(double));
    if (!tmp) return SKIT_ENOMEM;
    for (size_t j = 0; j < n; j++) memmove(a + j * lda, c + j * ldc, n * sizeof(double));
    for (size_t m = 2; m <= n; m *= 2) {
        for (size_t i = 0; i < m; i++) haar_unstep(a + i, lda, m, tmp);
        for (size_t j = 0; j < m; j++) haar_unstep(a + j * lda, 1, m, tmp);
    }
    skit_free(tmp);
    return SKIT_OK;
}

int skit_haar2d_compress(size_t n, const double *a, size_t lda, size_t keep, double *a_hat,
                         size_t ldh, double *threshold)
{
    SKIT_TRY(check_square(n, a, lda, "a"));
    SKIT_TRY(check_square(n, a_hat, ldh, "a_hat"));
    if (n > 65535) return SKIT_ERROR(SKIT_ETOOBIG, "n = %zu too large: need n < 65536", n);
    size_t nn = n * n;
    if (keep > nn)
        return SKIT_ERROR(SKIT_EDOM, "keep = %zu out of range: need keep <= n^2 (= %zu)", keep, nn);
    SKIT_TRY(skit_memory_check(nn * (2 * sizeof(double) + sizeof(uint32_t)), "Haar coefficients"));
    double *c = skit_malloc(2 * nn, sizeof(double));
    uint32_t *idx = skit_malloc(nn, sizeof(uint32_t));
    if (!c || !idx) {
        skit_free(c);
        skit_free(idx);
        return SKIT_ENOMEM;
    }
    double *mag = c + nn;
    int status = skit_haar2d_forward(n, a, lda, c, n);
    if (status == SKIT_OK) {
        for (size_t t = 0; t < nn; t++) {
            mag[t] = fabs(c[t]);
            idx[t] = (uint32_t)t;
        }
        attn_select_top(idx, nn, keep, mag);
        double thr = keep ? INFINITY : 0.0;
        for (size_t t = 0; t < keep; t++)
            if (mag[idx[t]] < thr) thr = mag[idx[t]];
        /* mag becomes the kept coefficients */
        memset(mag, 0, nn * sizeof(double));
        for (size_t t = 0; t < keep; t++) mag[idx[t]] = c[idx[t]];
        status = skit_haar2d_inverse(n, mag, n, a_hat, ldh);
        if (threshold) *threshold = thr;
    }
    skit_free(c);
    skit_free(idx);
    return status;
}
