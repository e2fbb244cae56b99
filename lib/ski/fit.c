/* fit.c — least-squares fits of the two RPE parameterisations compared in
 * the extrapolation experiment: the warped piecewise-linear RPE (knot values)
 * and an MLP RPE whose output layer is fitted over fixed random hidden
 * layers. Both are linear least-squares problems solved by LAPACK dgelsd
 * (SVD-based, minimum norm for rank-deficient designs). */
#include "config.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "skit/ski.h"

/* Singular values below this fraction of the largest are treated as zero. */
#define FIT_RCOND 1e-12

/* min ||D v - y||, D m x k column-major; v (k) receives the solution. */
static int least_squares(size_t m, size_t k, double *D, const double *y, double *v)
{
    size_t ldb = SKIT_MAX(m, k);
    double *b = skit_calloc(ldb, sizeof *b);
    double *s = skit_malloc(SKIT_MIN(m, k) + 1, sizeof *s);
    if (!b || !s) {
        skit_free(b);
        skit_free(s);
        return SKIT_ENOMEM;
    }
    memcpy(b, y, m * sizeof *b);
    lapack_int rank = 0;
    lapack_int info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)k, 1, D,
                                     (lapack_int)m, b, (lapack_int)ldb, s, FIT_RCOND, &rank);
    int status = SKIT_OK;
    if (info != 0) status = SKIT_ERROR(SKIT_ELIBRARY, "LAPACKE_dgelsd failed (info = %d)", (int)info);
    else memcpy(v, b, k * sizeof *v);
    skit_free(b);
    skit_free(s);
    return status;
}

int skit_warped_linear_fit(size_t knots_per_side, double lambda, size_t count, const double *t,
                           const double *y, double *values)
{
    SKIT_REQUIRE_PTR(t);
    SKIT_REQUIRE_PTR(y);
    SKIT_REQUIRE_PTR(values);
    size_t K = knots_per_side;
    if (K == 0 || K > 4096)
        return SKIT_ERROR(SKIT_EDOM, "knots_per_side = %zu out of range: need 1 <= knots_per_side <= 4096", K);
    if (count == 0) return SKIT_ERROR(SKIT_EDOM, "count = 0 out of range: need count >= 1");
    if (!(lambda > 0 && lambda < 1))
        return SKIT_ERROR(SKIT_EDOM, "lambda = %g out of range: need 0 < lambda < 1", lambda);
    SKIT_TRY(skit_check_finite(t, count, "t"));
    SKIT_TRY(skit_check_finite(y, count, "y"));
    size_t k = 2 * K, size;
    if (skit_size_mul(count, k, &size) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "count * 2K overflows");
    SKIT_TRY(skit_memory_check(size * sizeof(double), "warped-linear fit"));
    double *D = skit_calloc(size, sizeof *D);
    if (!D) return SKIT_ENOMEM;
    for (size_t i = 0; i < count; i++) {
        double m = pow(lambda, fabs(t[i]));
        double x = t[i] >= 0 ? m : -m;
        double q = (x + 1.0) * (double)K;
        double f = floor(q);
        if (f < 0) f = 0;
        if (f > (double)(2 * K - 1)) f = (double)(2 * K - 1);
        size_t p = (size_t)f;
        double theta = q - f;
        /* knot j (0..2K) -> column j (j < K) or j - 1 (j > K); knot K is f(0) = 0 */
        size_t js[2] = {p, p + 1};
        double ws[2] = {1 - theta, theta};
        for (int e = 0; e < 2; e++) {
            if (js[e] == K) continue;
            size_t col = js[e] < K ? js[e] : js[e] - 1;
            D[i + col * count] += ws[e];
        }
    }
    int status = least_squares(count, k, D, y, values);
    skit_free(D);
    return status;
}

int skit_tnn_rpe_fit(skit_mlp **rpe, size_t width, size_t hidden_layers,
                     skit_activation activation, skit_norm norm, uint64_t seed, double lambda,
                     size_t count, const double *t, const double *y)
{
    SKIT_REQUIRE_PTR(rpe);
    *rpe = NULL;
    SKIT_REQUIRE_PTR(t);
    SKIT_REQUIRE_PTR(y);
    if (width == 0 || width > 4096)
        return SKIT_ERROR(SKIT_EDOM, "width = %zu out of range: need 1 <= width <= 4096", width);
    if (count == 0) return SKIT_ERROR(SKIT_EDOM, "count = 0 out of range: need count >= 1");
    if (!(lambda > 0 && lambda < 1))
        return SKIT_ERROR(SKIT_EDOM, "lambda = %g out of range: need 0 < lambda < 1", lambda);
    SKIT_TRY(skit_check_finite(t, count, "t"));
    SKIT_TRY(skit_check_finite(y, count, "y"));
    /* The feature MLP has `width` outputs: any linear functional of the last
     * hidden layer plus a constant is a combination of them (the random
     * output matrix is square and almost surely invertible). */
    size_t F = width, cols = F + 1, size;
    if (skit_size_mul(count, cols, &size) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "count * (width + 1) overflows");
    SKIT_TRY(skit_memory_check(2 * size * sizeof(double), "MLP RPE fit"));
    skit_mlp *features = NULL, *out = NULL;
    SKIT_TRY(skit_mlp_create(&features, 1, width, hidden_layers, F, activation, norm, seed));
    double *Y = skit_malloc(size, sizeof *Y), *D = skit_malloc(size, sizeof *D);
    double *coef = skit_malloc(cols, sizeof *coef);
    size_t pc = skit_mlp_parameter_count(features);
    double *params = skit_malloc(pc, sizeof *params);
    int status = SKIT_OK;
    if (!Y || !D || !coef || !params) status = SKIT_ENOMEM;
    if (status == SKIT_OK) status = skit_mlp_eval(features, count, t, Y, NULL);
    if (status == SKIT_OK) {
        for (size_t i = 0; i < count; i++) {
            double decay = pow(lambda, fabs(t[i]));
            for (size_t c = 0; c < F; c++) D[i + c * count] = Y[i * F + c] * decay;
            D[i + F * count] = decay;
        }
        status = least_squares(count, cols, D, y, coef);
    }
    if (status == SKIT_OK) status = skit_mlp_get_parameters(features, params, pc);
    if (status == SKIT_OK) status = skit_mlp_create(&out, 1, width, hidden_layers, 1, activation, norm, seed);
    if (status == SKIT_OK) {
        /* last layer of `features`: weight F x width (row-major), bias F */
        size_t prefix = pc - F * width - F;
        const double *Wout = params + prefix, *bout = params + prefix + F * width;
        size_t pc1 = skit_mlp_parameter_count(out);
        double *p1 = params; /* reuse: prefix is identical, then width + 1 values */
        double *w1 = p1 + prefix;
        double b1 = coef[F];
        double *tmp = skit_malloc(width, sizeof *tmp);
        if (!tmp) status = SKIT_ENOMEM;
        else {
            for (size_t j = 0; j < width; j++) {
                double s = 0;
                for (size_t c = 0; c < F; c++) s += coef[c] * Wout[c * width + j];
                tmp[j] = s;
            }
            for (size_t c = 0; c < F; c++) b1 += coef[c] * bout[c];
            memcpy(w1, tmp, width * sizeof *tmp);
            w1[width] = b1;
            skit_free(tmp);
            status = skit_mlp_set_parameters(out, p1, pc1);
        }
    }
    skit_mlp_destroy(features);
    skit_free(Y);
    skit_free(D);
    skit_free(coef);
    skit_free(params);
    if (status != SKIT_OK) {
        skit_mlp_destroy(out);
        return status;
    }
    *rpe = out;
    return SKIT_OK;
}
