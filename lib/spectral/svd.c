/* svd.c — SVD-based utilities (skit/spectral.h): singular values and thin
 * factors, spectral norm, best rank-r approximation, pseudo-inverse and
 * condition number. LAPACK's dgesdd does the work; dgesvd is the fallback
 * when dgesdd's divide-and-conquer fails to converge (it occasionally does
 * on matrices where the QR-iteration variant still succeeds). */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "skit/spectral.h"

/* LAPACK takes sizes as lapack_int (32-bit here); larger sizes would be
 * silently truncated, so they are refused up front. */
static const size_t lapack_int_max =
    sizeof(lapack_int) >= 8 ? (size_t)INT64_MAX : (size_t)INT32_MAX;

static int check_matrix_args(size_t m, size_t n, const double *A, size_t lda)
{
    SKIT_REQUIRE_PTR(A);
    if (m == 0) return SKIT_ERROR(SKIT_EDOM, "m = 0 out of range: need m >= 1 rows");
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 columns");
    if (m > lapack_int_max || n > lapack_int_max)
        return SKIT_ERROR(SKIT_EDOM, "matrix %zu x %zu out of range: LAPACK needs m, n <= %zu", m, n,
                          lapack_int_max);
    if (lda < m) return SKIT_ERROR(SKIT_ESHAPE, "lda = %zu too small: need lda >= m (= %zu)", lda, m);
    /* refuse hopeless sizes before touching the data (the working copy of A
     * alone needs m*n doubles) */
    size_t bytes;
    if (skit_size_mul(m, n, &bytes) || skit_size_mul(bytes, sizeof(double), &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "matrix %zu x %zu: size overflows size_t", m, n);
    SKIT_TRY(skit_memory_check(bytes, "SVD working copy of A"));
    return skit_check_finite_matrix(A, m, n, lda, "A");
}

/* SVD of the m x n matrix A (validated by the caller). With U and Vt
 * non-NULL, the thin factors are written there (ldu >= m, ldvt >= k);
 * otherwise singular values only. All scratch (a copy of A, which LAPACK
 * overwrites, and LAPACK's workspace) is sized by a workspace query and
 * checked against available memory before it is allocated. */
static int svd_core(size_t m, size_t n, const double *A, size_t lda, double *s, double *U,
                    size_t ldu, double *Vt, size_t ldvt)
{
    const size_t k = SKIT_MIN(m, n);
    const int vectors = U != NULL && Vt != NULL;
    const char jobz = vectors ? 'S' : 'N';
    /* LAPACK requires leading dimensions >= 1 even for arrays it ignores */
    lapack_int lu = vectors ? (lapack_int)ldu : 1, lvt = vectors ? (lapack_int)ldvt : 1;
    double dummy_u = 0, dummy_vt = 0;
    double *u = vectors ? U : &dummy_u, *vt = vectors ? Vt : &dummy_vt;

    double query_sdd = 0, query_svd = 0, dummy_a = 0;
    lapack_int idummy = 0;
    lapack_int info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, jobz, (lapack_int)m, (lapack_int)n,
                                          &dummy_a, (lapack_int)m, s, u, lu, vt, lvt, &query_sdd, -1,
                                          &idummy);
    if (info != 0) return SKIT_ERROR(SKIT_ELIBRARY, "LAPACK dgesdd workspace query failed (info = %d)", (int)info);
    info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, vectors ? 'S' : 'N', vectors ? 'S' : 'N',
                               (lapack_int)m, (lapack_int)n, &dummy_a, (lapack_int)m, s, u, lu, vt,
                               lvt, &query_svd, -1);
    if (info != 0) return SKIT_ERROR(SKIT_ELIBRARY, "LAPACK dgesvd workspace query failed (info = %d)", (int)info);
    double lwork_d = SKIT_MAX(query_sdd, query_svd);
    if (!(lwork_d >= 1) || lwork_d > (double)lapack_int_max)
        return SKIT_ERROR(SKIT_EOVERFLOW, "SVD workspace for %zu x %zu (%.0f doubles) exceeds LAPACK's size limit",
                          m, n, lwork_d);
    size_t lwork = (size_t)lwork_d;

    size_t mn, total, iwork_bytes;
    if (skit_size_mul(m, n, &mn) || skit_size_add(mn, lwork, &total) || skit_size_mul(total, sizeof(double), &total) ||
        skit_size_mul(8 * k, sizeof(lapack_int), &iwork_bytes) || skit_size_add(total, iwork_bytes, &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "SVD of %zu x %zu: workspace size overflows", m, n);
    SKIT_TRY(skit_memory_check(total, "SVD workspace"));

    double *a = skit_malloc(mn, sizeof(double));
    double *work = skit_malloc(lwork, sizeof(double));
    lapack_int *iwork = skit_malloc(8 * k, sizeof(lapack_int));
    if (!a || !work || !iwork) {
        skit_free(a);
        skit_free(work);
        skit_free(iwork);
        return SKIT_ENOMEM; /* raised by skit_malloc */
    }
    for (size_t j = 0; j < n; j++) memcpy(a + j * m, A + j * lda, m * sizeof(double));
    info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, jobz, (lapack_int)m, (lapack_int)n, a, (lapack_int)m, s, u,
                               lu, vt, lvt, work, (lapack_int)lwork, iwork);
    if (info > 0) {
        for (size_t j = 0; j < n; j++) memcpy(a + j * m, A + j * lda, m * sizeof(double));
        info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, vectors ? 'S' : 'N', vectors ? 'S' : 'N', (lapack_int)m,
                                   (lapack_int)n, a, (lapack_int)m, s, u, lu, vt, lvt, work, (lapack_int)lwork);
    }
    skit_free(a);
    skit_free(work);
    skit_free(iwork);
    if (info > 0)
        return SKIT_ERROR(SKIT_ENOCONV, "SVD of %zu x %zu did not converge (LAPACK dgesdd and dgesvd, info = %d)",
                          m, n, (int)info);
    if (info < 0) return SKIT_ERROR(SKIT_ELIBRARY, "LAPACK SVD rejected argument %d", (int)-info);
    return SKIT_OK;
}

/* Thin SVD into freshly allocated U (m x k) and Vt (k x n) and s (k). */
static int svd_alloc(size_t m, size_t n, const double *A, size_t lda, double **s, double **U, double **Vt)
{
    const size_t k = SKIT_MIN(m, n);
    *s = *U = *Vt = NULL;
    size_t mk, kn, bytes;
    if (skit_size_mul(m, k, &mk) || skit_size_mul(k, n, &kn) || skit_size_add(mk, kn, &bytes) ||
        skit_size_add(bytes, k, &bytes) || skit_size_mul(bytes, sizeof(double), &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "SVD factors of %zu x %zu overflow size_t", m, n);
    SKIT_TRY(skit_memory_check(bytes, "SVD factors"));
    *s = skit_malloc(k, sizeof(double));
    *U = skit_malloc(mk, sizeof(double));
    *Vt = skit_malloc(kn, sizeof(double));
    int status = (*s && *U && *Vt) ? svd_core(m, n, A, lda, *s, *U, m, *Vt, k) : SKIT_ENOMEM;
    if (status != SKIT_OK) {
        skit_free(*s);
        skit_free(*U);
        skit_free(*Vt);
        *s = *U = *Vt = NULL;
    }
    return status;
}

int skit_svd(size_t m, size_t n, const double *A, size_t lda, double *s, double *U, size_t ldu,
             double *Vt, size_t ldvt)
{
    SKIT_TRY(check_matrix_args(m, n, A, lda));
    SKIT_REQUIRE_PTR(s);
    const size_t k = SKIT_MIN(m, n);
    if (U && ldu < m) return SKIT_ERROR(SKIT_ESHAPE, "ldu = %zu too small: need ldu >= m (= %zu)", ldu, m);
    if (Vt && ldvt < k)
        return SKIT_ERROR(SKIT_ESHAPE, "ldvt = %zu too small: need ldvt >= min(m, n) (= %zu)", ldvt, k);
    if ((U && ldu > lapack_int_max) || (Vt && ldvt > lapack_int_max))
        return SKIT_ERROR(SKIT_EDOM, "ldu/ldvt out of range: LAPACK needs <= %zu", lapack_int_max);
    if ((U == NULL) == (Vt == NULL)) return svd_core(m, n, A, lda, s, U, ldu, Vt, ldvt);

    /* only one factor wanted: LAPACK computes both, so the other goes to scratch */
    size_t other;
    if (skit_size_mul(k, U ? n : m, &other))
        return SKIT_ERROR(SKIT_EOVERFLOW, "SVD factor of %zu x %zu overflows size_t", m, n);
    double *scratch = skit_malloc(other, sizeof(double));
    if (!scratch) return SKIT_ENOMEM;
    int status = U ? svd_core(m, n, A, lda, s, U, ldu, scratch, k) : svd_core(m, n, A, lda, s, scratch, m, Vt, ldvt);
    skit_free(scratch);
    return status;
}

/* Singular values only, into a fresh array of min(m, n). */
static int singular_values(size_t m, size_t n, const double *A, size_t lda, double **s)
{
    *s = skit_malloc(SKIT_MIN(m, n), sizeof(double));
    if (!*s) return SKIT_ENOMEM;
    int status = svd_core(m, n, A, lda, *s, NULL, 0, NULL, 0);
    if (status != SKIT_OK) {
        skit_free(*s);
        *s = NULL;
    }
    return status;
}

int skit_spectral_norm(size_t m, size_t n, const double *A, size_t lda, double *norm)
{
    SKIT_REQUIRE_PTR(norm);
    SKIT_TRY(check_matrix_args(m, n, A, lda));
    double *s;
    SKIT_TRY(singular_values(m, n, A, lda, &s));
    *norm = s[0];
    skit_free(s);
    return SKIT_OK;
}

int skit_condition_number(size_t m, size_t n, const double *A, size_t lda, double *kappa)
{
    SKIT_REQUIRE_PTR(kappa);
    SKIT_TRY(check_matrix_args(m, n, A, lda));
    double *s;
    SKIT_TRY(singular_values(m, n, A, lda, &s));
    double smin = s[SKIT_MIN(m, n) - 1];
    /* exact zero only: a tiny but nonzero sigma_min is a finite (huge) answer */
    *kappa = smin > 0 ? s[0] / smin : INFINITY;
    skit_free(s);
    return SKIT_OK;
}

int skit_svd_truncate(size_t m, size_t n, const double *A, size_t lda, size_t r, double *Ar, size_t ldar,
                      double *sigma_next)
{
    SKIT_REQUIRE_PTR(Ar);
    SKIT_TRY(check_matrix_args(m, n, A, lda));
    const size_t k = SKIT_MIN(m, n);
    if (r > k) return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need 0 <= r <= min(m, n) (= %zu)", r, k);
    if (ldar < m) return SKIT_ERROR(SKIT_ESHAPE, "ldar = %zu too small: need ldar >= m (= %zu)", ldar, m);
    if (ldar > lapack_int_max) return SKIT_ERROR(SKIT_EDOM, "ldar = %zu out of range: BLAS needs <= %zu", ldar, lapack_int_max);
    double *s, *U, *Vt;
    SKIT_TRY(svd_alloc(m, n, A, lda, &s, &U, &Vt));
    if (sigma_next) *sigma_next = r < k ? s[r] : 0.0;
    if (r == 0) {
        for (size_t j = 0; j < n; j++) memset(Ar + j * ldar, 0, m * sizeof(double));
    } else {
        /* Ar = (U_r diag(s_r)) Vt_r: scale U's first r columns in place */
        for (size_t j = 0; j < r; j++) cblas_dscal((int)m, s[j], U + j * m, 1);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)r, 1.0, U, (int)m, Vt,
                    (int)k, 0.0, Ar, (int)ldar);
    }
    skit_free(s);
    skit_free(U);
    skit_free(Vt);
    return SKIT_OK;
}

int skit_pinv(size_t m, size_t n, const double *A, size_t lda, double rtol, double *Apinv, size_t ldp,
              size_t *rank)
{
    SKIT_REQUIRE_PTR(Apinv);
    SKIT_TRY(check_matrix_args(m, n, A, lda));
    if (isnan(rtol) || isinf(rtol))
        return SKIT_ERROR(SKIT_EDOM, "rtol = %g out of range: need a finite value (< 0 selects max(m,n)*eps)", rtol);
    if (ldp < n) return SKIT_ERROR(SKIT_ESHAPE, "ldp = %zu too small: need ldp >= n (= %zu)", ldp, n);
    if (ldp > lapack_int_max) return SKIT_ERROR(SKIT_EDOM, "ldp = %zu out of range: BLAS needs <= %zu", ldp, lapack_int_max);
    const size_t k = SKIT_MIN(m, n);
    if (rtol < 0) rtol = (double)SKIT_MAX(m, n) * DBL_EPSILON;
    double *s, *U, *Vt;
    SKIT_TRY(svd_alloc(m, n, A, lda, &s, &U, &Vt));
    const double cutoff = rtol * s[0];
    size_t kept = 0;
    /* s[0] == 0 (zero matrix) keeps nothing: pinv(0) = 0 */
    while (kept < k && s[kept] > cutoff) kept++;
    if (rank) *rank = kept;
    if (kept == 0) {
        for (size_t i = 0; i < m; i++) memset(Apinv + i * ldp, 0, n * sizeof(double));
    } else {
        /* A+ = V_r diag(1/s_r) U_r^T = (diag(1/s_r) Vt_r)^T U_r^T */
        for (size_t i = 0; i < kept; i++) cblas_dscal((int)n, 1.0 / s[i], Vt + i, (int)k);
        cblas_dgemm(CblasColMajor, CblasTrans, CblasTrans, (int)n, (int)m, (int)kept, 1.0, Vt, (int)k, U, (int)m,
                    0.0, Apinv, (int)ldp);
    }
    skit_free(s);
    skit_free(U);
    skit_free(Vt);
    return SKIT_OK;
}
