/* skit/spectral.h — SVD-based utilities on dense matrices (LAPACKE) and an
 * iterative spectral norm for operators too large to form.  (SPEC S.)
 * Matrices are column-major with leading dimension; inputs are never changed. */
#ifndef SKIT_SPECTRAL_H
#define SKIT_SPECTRAL_H

#include "skit/core.h"

SKIT_BEGIN_DECLS

/* Singular values of the m x n matrix A, descending, into s[min(m,n)].
 * If U/Vt are non-NULL, also the thin factors: U is m x k (ldu >= m),
 * Vt is k x n (ldvt >= k), k = min(m, n); either may be NULL alone.
 *
 * Errors of every function below that takes a matrix A: SKIT_EINVAL (NULL
 * A or output), SKIT_EDOM (m or n = 0, or beyond LAPACK's 32-bit sizes),
 * SKIT_ESHAPE (a leading dimension too small: lda < m, ldu < m, ...),
 * SKIT_ENONFINITE (NaN/Inf in A), SKIT_ETOOBIG / SKIT_ENOMEM /
 * SKIT_EOVERFLOW (workspace), SKIT_ENOCONV (LAPACK's SVD did not converge,
 * after trying dgesdd and then dgesvd). */
int skit_svd(size_t m, size_t n, const double *A, size_t lda, double *s, double *U,
             size_t ldu, double *Vt, size_t ldvt);

/* ||A||_2 (largest singular value) by SVD. */
int skit_spectral_norm(size_t m, size_t n, const double *A, size_t lda, double *norm);

/* Best rank-r approximation (Eckart–Young) into Ar (m x n, ldar >= m);
 * optionally the discarded sigma_{r+1} into *sigma_next (0 if r >= min(m,n)).
 * r = 0 gives the zero matrix. Errors: SKIT_EDOM if r > min(m, n);
 * SKIT_ESHAPE if ldar < m. */
int skit_svd_truncate(size_t m, size_t n, const double *A, size_t lda, size_t r, double *Ar,
                      size_t ldar, double *sigma_next);

/* Moore–Penrose pseudo-inverse: singular values <= rtol * sigma_1 are
 * treated as zero (rtol < 0 selects max(m,n) * eps). Apinv is n x m
 * (ldp >= n). *rank (may be NULL) receives the numerical rank used.
 * Errors: SKIT_EDOM if rtol is NaN or infinite; SKIT_ESHAPE if ldp < n. */
int skit_pinv(size_t m, size_t n, const double *A, size_t lda, double rtol, double *Apinv,
              size_t ldp, size_t *rank);

/* 2-norm condition number sigma_1 / sigma_min(m,n); +Inf if singular. */
int skit_condition_number(size_t m, size_t n, const double *A, size_t lda, double *kappa);

/* A linear operator given by its action: y = A x (transpose = 0, x has n
 * entries, y has m) or y = A^T x (transpose = 1, x has m, y has n).
 * Returns a skit_status. */
typedef int (*skit_linop_apply)(void *context, int transpose, const double *x, double *y);

/* ||A||_2 of an m x n operator by Golub–Kahan–Lanczos bidiagonalisation with
 * full reorthogonalisation, from a seeded random start. Stops when the
 * estimate changes by less than tol (relative) or after max_iter steps
 * (SKIT_ENOCONV, *norm still holds the best lower bound). *iterations may be
 * NULL. Uses O((m + n) * min(max_iter, m, n)) memory for the two bases.
 * Errors: SKIT_EINVAL (apply or norm NULL), SKIT_EDOM (m or n = 0,
 * tol outside (0, 1), max_iter = 0), SKIT_ENONFINITE (the operator returned
 * NaN/Inf), SKIT_ENOCONV, memory errors, and any status the operator
 * returns (its message is kept). */
int skit_spectral_norm_lanczos(size_t m, size_t n, skit_linop_apply apply, void *context,
                               double tol, size_t max_iter, uint64_t seed, double *norm,
                               size_t *iterations);

SKIT_END_DECLS
#endif
