/* dense.c — the O(mn) Toeplitz reference (materialisation and matvec) and
 * the FFT length rule shared by the FFT plans.
 *
 * The dense routines are the references every fast path is tested against,
 * so they follow the definition T(i, j) = t_{i-j} literally; the only
 * concession to speed is the loop order, which walks the coefficient array
 * contiguously so that the n = 2^13 benchmark point stays cheap. */
#include "config.h"

#include <stdint.h>

#include "core/internal.h"
#include "skit/toeplitz.h"

/* Shared checks of the dense routines: sizes, overflow of the coefficient
 * count, causality value. */
static int check_dense_args(size_t m, size_t n, skit_causality causality)
{
    if (m == 0) return SKIT_ERROR(SKIT_EDOM, "m = 0 out of range: need m >= 1");
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (causality != SKIT_BIDIRECTIONAL && causality != SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d: need SKIT_BIDIRECTIONAL or SKIT_CAUSAL",
                          (int)causality);
    size_t count;
    if (skit_size_add(m, n - 1, &count) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "m + n - 1 coefficients (m = %zu, n = %zu) overflow size_t",
                          m, n);
    return SKIT_OK;
}

/* Only the coefficients the operator uses must be finite: causal operators
 * ignore the negative lags t_{-(n-1)}..t_{-1}. */
static int check_dense_coeffs(size_t m, size_t n, const double *coeffs, skit_causality causality)
{
    if (causality == SKIT_CAUSAL) return skit_check_finite(coeffs + (n - 1), m, "coeffs");
    return skit_check_finite(coeffs, m + n - 1, "coeffs");
}

int skit_toeplitz_dense(size_t m, size_t n, const double *coeffs, skit_causality causality,
                        double *A, size_t lda)
{
    SKIT_REQUIRE_PTR(coeffs);
    SKIT_REQUIRE_PTR(A);
    SKIT_TRY(check_dense_args(m, n, causality));
    if (lda < m) return SKIT_ERROR(SKIT_ESHAPE, "lda = %zu out of range: need lda >= m (= %zu)", lda, m);
    size_t extent;
    if (skit_size_mul(n - 1, lda, &extent) != SKIT_OK || skit_size_add(extent, m, &extent) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "matrix extent (n = %zu, lda = %zu) overflows size_t", n, lda);
    SKIT_TRY(check_dense_coeffs(m, n, coeffs, causality));
    for (size_t j = 0; j < n; j++) {
        double *col = A + j * lda;
        /* column j holds t_{-j}, ..., t_{m-1-j}: coeffs[n-1-j .. n-1-j+m) */
        const double *c = coeffs + (n - 1 - j);
        size_t first = 0;
        if (causality == SKIT_CAUSAL) {
            first = SKIT_MIN(j, m);
            for (size_t i = 0; i < first; i++) col[i] = 0.0;
        }
        for (size_t i = first; i < m; i++) col[i] = c[i];
    }
    return SKIT_OK;
}

int skit_toeplitz_matvec_dense(size_t m, size_t n, const double *coeffs,
                               skit_causality causality, int transpose, const double *x, double *y)
{
    SKIT_REQUIRE_PTR(coeffs);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    SKIT_TRY(check_dense_args(m, n, causality));
    SKIT_TRY(check_dense_coeffs(m, n, coeffs, causality));
    int causal = causality == SKIT_CAUSAL;
    if (!transpose) {
        /* y = sum_j x_j * column j: the column is a contiguous slice of
         * coeffs, so the inner loop is an axpy. */
        for (size_t i = 0; i < m; i++) y[i] = 0.0;
        for (size_t j = 0; j < n; j++) {
            size_t first = causal ? j : 0;
            if (first >= m) break;
            const double *c = coeffs + (n - 1 - j);
            double xj = x[j];
            for (size_t i = first; i < m; i++) y[i] += c[i] * xj;
        }
    } else {
        /* y_j = sum_i t_{i-j} x_i: again a contiguous slice, as a dot product */
        for (size_t j = 0; j < n; j++) {
            size_t first = causal ? j : 0;
            const double *c = coeffs + (n - 1 - j);
            double s = 0.0;
            for (size_t i = first; i < m; i++) s += c[i] * x[i];
            y[j] = s;
        }
    }
    return SKIT_OK;
}

