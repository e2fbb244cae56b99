/* lanczos.c — ||A||_2 of an operator known only by its action, by
 * Golub–Kahan–Lanczos bidiagonalisation (skit/spectral.h).
 *
 * Recurrence (upper bidiagonal form), from a random unit v_1:
 *   alpha_j u_j     = A v_j   - beta_{j-1} u_{j-1}
 *   beta_j  v_{j+1} = A^T u_j - alpha_j v_j
 * so that U_j^T A V_{j+1} is the j x (j+1) upper bidiagonal matrix with
 * diagonal alpha_1..alpha_j and superdiagonal beta_1..beta_j. Its largest
 * singular value is a lower bound on ||A||_2 that increases with j and is
 * exact once the Krylov spaces are exhausted (j = min(m, n)) or a
 * recurrence coefficient vanishes. Both bases are reorthogonalised in full
 * (classical Gram–Schmidt applied twice): without it, rounding makes the
 * bases lose orthogonality and the estimate can show spurious copies of
 * sigma_1 — harmless for the maximum, but also makes the exhaustion test
 * meaningless. The cost is O((m + n) j^2) extra flops, small next to the
 * operator applications this routine is meant for. */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "skit/spectral.h"

/* w -= Q (Q^T w) twice, Q = first `cols` columns (leading dim ld) */
static void reorthogonalise(const double *Q, size_t rows, size_t cols, double *w, double *h)
{
    if (cols == 0) return;
    for (int pass = 0; pass < 2; pass++) {
        cblas_dgemv(CblasColMajor, CblasTrans, (int)rows, (int)cols, 1.0, Q, (int)rows, w, 1, 0.0, h, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)rows, (int)cols, -1.0, Q, (int)rows, h, 1, 1.0, w, 1);
    }
}

/* Largest singular value of the size x size upper bidiagonal (d, e);
 * d, e are copied into scratch because LAPACK overwrites them. */
static int bidiagonal_norm(const double *d, const double *e, size_t size, double *scratch, double *norm)
{
    double *dd = scratch, *ee = scratch + size, *work = scratch + 2 * size;
    memcpy(dd, d, size * sizeof(double));
    if (size > 1) memcpy(ee, e, (size - 1) * sizeof(double));
    double dummy = 0;
    lapack_int info = LAPACKE_dbdsqr_work(LAPACK_COL_MAJOR, 'U', (lapack_int)size, 0, 0, 0, dd, ee, &dummy, 1,
                                          &dummy, 1, &dummy, 1, work);
    if (info > 0)
        return SKIT_ERROR(SKIT_ENOCONV, "LAPACK dbdsqr did not converge on the %zu x %zu Lanczos bidiagonal", size,
                          size);
    if (info < 0) return SKIT_ERROR(SKIT_ELIBRARY, "LAPACK dbdsqr rejected argument %d", (int)-info);
    *norm = dd[0]; /* sorted descending */
    return SKIT_OK;
}

static int apply_checked(skit_linop_apply apply, void *context, int transpose, const double *x, double *y,
                         size_t ylen, size_t step)
{
    int status = apply(context, transpose, x, y);
    if (status != SKIT_OK) {
        /* keep the operator's own message, if it raised one, inside ours */
        char inner[200];
        snprintf(inner, sizeof inner, "%s", skit_last_error());
        return SKIT_ERROR(status, "linear operator (%s) failed at Lanczos step %zu: %s",
                          transpose ? "transpose" : "forward", step, inner[0] ? inner : skit_strerror(status));
    }
    for (size_t i = 0; i < ylen; i++)
        if (!isfinite(y[i]))
            return SKIT_ERROR(SKIT_ENONFINITE, "linear operator (%s) returned a non-finite value at index %zu (step %zu)",
                              transpose ? "transpose" : "forward", i, step);
    return SKIT_OK;
}

int skit_spectral_norm_lanczos(size_t m, size_t n, skit_linop_apply apply, void *context, double tol,
                               size_t max_iter, uint64_t seed, double *norm, size_t *iterations)
{
    SKIT_REQUIRE_PTR(apply);
    SKIT_REQUIRE_PTR(norm);
    if (iterations) *iterations = 0;
    if (m == 0) return SKIT_ERROR(SKIT_EDOM, "m = 0 out of range: need m >= 1 rows");
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 columns");
    if (!(tol > 0 && tol < 1)) return SKIT_ERROR(SKIT_EDOM, "tol = %g out of range: need 0 < tol < 1", tol);
    if (max_iter == 0) return SKIT_ERROR(SKIT_EDOM, "max_iter = 0 out of range: need max_iter >= 1");
    if (m > (size_t)INT32_MAX || n > (size_t)INT32_MAX)
        return SKIT_ERROR(SKIT_EDOM, "operator %zu x %zu out of range: need m, n <= %d", m, n, INT32_MAX);

    const size_t kmax = SKIT_MIN(max_iter, SKIT_MIN(m, n));
    /* V: n x (kmax+1), U: m x kmax, h: kmax+1, d/e: kmax+1 each, LAPACK scratch 6(kmax+1) */
    size_t vsize, usize, total, bytes;
    if (skit_size_mul(n, kmax + 1, &vsize) || skit_size_mul(m, kmax, &usize) || skit_size_add(vsize, usize, &total) ||
        skit_size_add(total, 9 * (kmax + 1), &total) || skit_size_mul(total, sizeof(double), &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "Lanczos bases for %zu x %zu with %zu steps overflow size_t", m, n, kmax);
    SKIT_TRY(skit_memory_check(bytes, "Lanczos bases"));
    double *V = skit_malloc(vsize, sizeof(double));
    double *U = skit_malloc(usize, sizeof(double));
    double *small = skit_malloc(9 * (kmax + 1), sizeof(double));
    if (!V || !U || !small) {
        skit_free(V);
        skit_free(U);
        skit_free(small);
        return SKIT_ENOMEM;
    }
    double *alpha = small, *beta = small + (kmax + 1), *h = small + 2 * (kmax + 1),
           *scratch = small + 3 * (kmax + 1);

    skit_rng rng;
    skit_rng_seed(&rng, seed);
    skit_rng_fill_normal(&rng, V, n);
    cblas_dscal((int)n, 1.0 / cblas_dnrm2((int)n, V, 1), V, 1);

    int status = SKIT_OK, converged = 0;
    double estimate = 0, scale = 0;
    size_t j = 0;
    while (j < kmax && !converged) {
        const size_t step = j + 1;
        double *u = U + j * m, *v = V + j * n, *vnext = V + (j + 1) * n;
        status = apply_checked(apply, context, 0, v, u, m, step);
        if (status != SKIT_OK) break;
        if (j > 0) cblas_daxpy((int)m, -beta[j - 1], U + (j - 1) * m, 1, u, 1);
        reorthogonalise(U, m, j, u, h);
        alpha[j] = cblas_dnrm2((int)m, u, 1);
        scale = SKIT_MAX(scale, alpha[j]);
        /* A coefficient at rounding level means the Krylov space is invariant:
         * the previous estimate is already exact. */
        const double breakdown = DBL_EPSILON * (double)SKIT_MAX(m, n) * scale;
        if (alpha[j] <= breakdown) {
            j++;
            converged = 1;
            break;
        }
        cblas_dscal((int)m, 1.0 / alpha[j], u, 1);

        status = apply_checked(apply, context, 1, u, vnext, n, step);
        if (status != SKIT_OK) break;
        cblas_daxpy((int)n, -alpha[j], v, 1, vnext, 1);
        reorthogonalise(V, n, j + 1, vnext, h);
        beta[j] = cblas_dnrm2((int)n, vnext, 1);
        int invariant = beta[j] <= breakdown;
        if (invariant) beta[j] = 0;
        else cblas_dscal((int)n, 1.0 / beta[j], vnext, 1);

        /* sigma_max of the j x (j+1) matrix U_j^T A V_{j+1}, as a square
         * (j+1) x (j+1) bidiagonal with a zero last diagonal entry */
        alpha[j + 1] = 0;
        double previous = estimate;
        status = bidiagonal_norm(alpha, beta, j + 2, scratch, &estimate);
        alpha[j + 1] = NAN; /* not computed yet */
        if (status != SKIT_OK) break;
        j++;
        if (invariant || j == SKIT_MIN(m, n) || (j > 1 && fabs(estimate - previous) <= tol * estimate))
            converged = 1;
    }
    skit_free(V);
    skit_free(U);
    skit_free(small);
    if (iterations) *iterations = j;
    if (status != SKIT_OK) return status;
    *norm = estimate;
    if (!converged)
        return SKIT_ERROR(SKIT_ENOCONV,
                          "Lanczos spectral norm did not converge to tol = %g in max_iter = %zu steps "
                          "(last estimate %.17g, a lower bound)",
                          tol, max_iter, estimate);
    return SKIT_OK;
}
