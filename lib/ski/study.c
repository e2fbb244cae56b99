/* study.c — error measurements behind the SKI experiments: Algorithm 1's
 * sparse + low-rank split against band-only and low-rank-only on a kernel
 * that is spiky near the diagonal, and the spectral distance between the
 * Toeplitz matrices of two kernels (extrapolation of fitted RPEs). */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ski/ski_internal.h"
#include "skit/spectral.h"

typedef struct dense_op {
    const double *M;
    size_t n;
} dense_op;

static int dense_apply(void *context, int transpose, const double *x, double *y)
{
    const dense_op *op = context;
    cblas_dgemv(CblasColMajor, transpose ? CblasTrans : CblasNoTrans, (int)op->n, (int)op->n, 1.0,
                op->M, (int)op->n, x, 1, 0.0, y, 1);
    return SKIT_OK;
}

static int square_norm(skit_norm_method method, size_t n, const double *M, double *out)
{
    if (method == SKIT_NORM_LANCZOS && n > 64) {
        dense_op op = {M, n};
        return skit_spectral_norm_lanczos(n, n, dense_apply, &op, 1e-12, n, 1, out, NULL);
    }
    return skit_spectral_norm(n, n, M, n, out);
}

/* Toeplitz matrix of a kernel at spacing 1 */
static int kernel_matrix(const skit_kernel *k, size_t n, double *coeffs, double *T)
{
    SKIT_TRY(skit_kernel_toeplitz_coeffs(k, n, 1.0, coeffs));
    ski_toeplitz_fill(n, coeffs, T, n);
    return SKIT_OK;
}

/* zero every entry with |i - j| <= half (half < 0: nothing) */
static void remove_band(size_t n, long half, double *M)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            if (labs((long)i - (long)j) <= half) M[i + j * n] = 0;
}

int skit_sparse_lowrank_study(const skit_kernel *smooth, const skit_kernel *spike, size_t n,
                              size_t r, size_t m, const skit_interp_options *options,
                              skit_norm_method method, skit_sparse_lowrank_errors *e)
{
    SKIT_REQUIRE_PTR(smooth);
    SKIT_REQUIRE_PTR(spike);
    SKIT_REQUIRE_PTR(options);
    SKIT_REQUIRE_PTR(e);
    if (n < 2 || n > ((size_t)1 << 15))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need 2 <= n <= 32768 (dense matrices)", n);
    if (r < 2 || r > n) return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need 2 <= r <= n (= %zu)", r, n);
    if (m > 0 && (m % 2 == 0 || m > 2 * n - 1))
        return SKIT_ERROR(SKIT_EDOM, "m = %zu out of range: need m = 0 or odd m <= 2n - 1 (= %zu)", m, 2 * n - 1);
    if (method != SKIT_NORM_DENSE_SVD && method != SKIT_NORM_LANCZOS)
        return SKIT_ERROR(SKIT_EINVAL, "norm method = %d unknown: need dense-svd or lanczos", (int)method);
    size_t nn = n * n;
    SKIT_TRY(skit_memory_check(8 * nn * sizeof(double), "sparse + low-rank study (dense n x n)"));
    skit_interp_weights *W = NULL;
    SKIT_TRY(skit_interp_weights_create(&W, n, NULL, r, options));
    skit_kernel *sum = NULL;
    double *Tsm = skit_malloc(nn, sizeof *Tsm), *Tsp = skit_malloc(nn, sizeof *Tsp);
    double *Sfull = skit_malloc(nn, sizeof *Sfull), *Ssm = skit_malloc(nn, sizeof *Ssm);
    double *D = skit_malloc(nn, sizeof *D), *coeffs = skit_malloc(2 * n - 1, sizeof *coeffs);
    double *taps = skit_malloc(2 * n - 1, sizeof *taps);
    int st = SKIT_OK;
    if (!Tsm || !Tsp || !Sfull || !Ssm || !D || !coeffs || !taps) st = SKIT_ENOMEM;
    if (st == SKIT_OK) st = skit_kernel_sum_create(&sum, smooth, spike);
    if (st == SKIT_OK) st = kernel_matrix(smooth, n, coeffs, Tsm);
    if (st == SKIT_OK) st = kernel_matrix(spike, n, coeffs, Tsp);
    /* SKI of the whole kernel and of its smooth part */
    if (st == SKIT_OK) st = skit_kernel_toeplitz_coeffs(sum, r, W->spacing, coeffs);
    if (st == SKIT_OK) st = skit_ski_dense(W, coeffs, Sfull, n);
    if (st == SKIT_OK) st = skit_kernel_toeplitz_coeffs(smooth, r, W->spacing, coeffs);
    if (st == SKIT_OK) st = skit_ski_dense(W, coeffs, Ssm, n);
    long half = m > 0 ? (long)(m - 1) / 2 : -1;
    memset(e, 0, sizeof *e);
    if (st == SKIT_OK) {
        for (size_t i = 0; i < nn; i++) D[i] = Tsm[i] + Tsp[i];
        st = square_norm(method, n, D, &e->t_norm);
    }
    if (st == SKIT_OK) {
        remove_band(n, half, D);
        st = square_norm(method, n, D, &e->band_only);
    }
    if (st == SKIT_OK) {
        for (size_t i = 0; i < nn; i++) D[i] = Tsm[i] + Tsp[i] - Sfull[i];
        st = square_norm(method, n, D, &e->lowrank_only);
    }
    if (st == SKIT_OK) {
        /* the Frobenius-optimal Toeplitz band correction of R is the mean of R
         * along each diagonal */
        for (long o = -half; o <= half; o++) {
            double s = 0;
            size_t count = 0;
            for (size_t j = 0; j < n; j++) {
                long i = (long)j + o;
                if (i < 0 || i >= (long)n) continue;
                s += D[(size_t)i + j * n];
                count++;
            }
            taps[o + half] = count ? s / (double)count : 0;
        }
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                long o = (long)i - (long)j;
                if (labs(o) <= half) D[i + j * n] -= taps[o + half];
            }
        st = square_norm(method, n, D, &e->sparse_lowrank_fit);
    }
    if (st == SKIT_OK) {
        for (size_t i = 0; i < nn; i++) D[i] = Tsm[i] - Ssm[i];
        st = square_norm(method, n, D, &e->smooth_ski);
    }
    if (st == SKIT_OK) {
        memcpy(D, Tsp, nn * sizeof *D);
        remove_band(n, half, D);
        st = square_norm(method, n, D, &e->spike_outside_band);
    }
    if (st == SKIT_OK) {
        /* T - band(T_spike) - W A_smooth W^T = (T_smooth - S_smooth) + (T_spike - band(T_spike)) */
        for (size_t i = 0; i < nn; i++) D[i] += Tsm[i] - Ssm[i];
        st = square_norm(method, n, D, &e->sparse_lowrank);
    }
    skit_kernel_destroy(sum);
    skit_interp_weights_destroy(W);
    skit_free(Tsm);
    skit_free(Tsp);
    skit_free(Sfull);
    skit_free(Ssm);
    skit_free(D);
    skit_free(coeffs);
    skit_free(taps);
    return st;
}

/* ---- distance between two kernels' Toeplitz matrices ------------------------- */

typedef struct toeplitz_op {
    const skit_toeplitz_plan *plan;
    size_t n;
} toeplitz_op;

static int toeplitz_apply(void *context, int transpose, const double *x, double *y)
{
    const toeplitz_op *op = context;
    return transpose ? skit_toeplitz_plan_execute_transpose(op->plan, x, op->n, y, op->n, NULL)
                     : skit_toeplitz_plan_execute(op->plan, x, op->n, y, op->n, NULL);
}

int skit_kernel_matrix_error(const skit_kernel *a, const skit_kernel *b, size_t n,
                             double *difference, double *reference)
{
    SKIT_REQUIRE_PTR(a);
    SKIT_REQUIRE_PTR(b);
    SKIT_REQUIRE_PTR(difference);
    SKIT_REQUIRE_PTR(reference);
    if (n == 0 || n > ((size_t)1 << 26))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need 1 <= n <= 2^26", n);
    double *ca = skit_malloc(2 * n - 1, sizeof *ca), *cb = skit_malloc(2 * n - 1, sizeof *cb);
    skit_toeplitz_plan *plan = NULL;
    int st = SKIT_OK;
    if (!ca || !cb) st = SKIT_ENOMEM;
    if (st == SKIT_OK) st = skit_kernel_toeplitz_coeffs(a, n, 1.0, ca);
    if (st == SKIT_OK) st = skit_kernel_toeplitz_coeffs(b, n, 1.0, cb);
    /* ||T_b|| first, then the difference with the same plan shape */
    size_t max_iter = n < 1000 ? n : 1000;
    if (st == SKIT_OK)
        st = skit_toeplitz_plan_create(&plan, n, n, 1,
                                       &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED,
                                                                .causality = SKIT_BIDIRECTIONAL},
                                       cb);
    if (st == SKIT_OK) {
        toeplitz_op op = {plan, n};
        st = skit_spectral_norm_lanczos(n, n, toeplitz_apply, &op, 1e-7, max_iter, 1, reference, NULL);
    }
    if (st == SKIT_OK) {
        for (size_t i = 0; i < 2 * n - 1; i++) ca[i] -= cb[i];
        st = skit_toeplitz_plan_set_coeffs(plan, ca);
    }
    if (st == SKIT_OK) {
        toeplitz_op op = {plan, n};
        st = skit_spectral_norm_lanczos(n, n, toeplitz_apply, &op, 1e-7, max_iter, 1, difference, NULL);
    }
    skit_toeplitz_plan_destroy(plan);
    skit_free(ca);
    skit_free(cb);
    return st;
}
