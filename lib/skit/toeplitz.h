/* skit/toeplitz.h — Toeplitz matrices: dense reference, FFT matvec plans,
 * Levinson solves.  (SPEC T1–T3; TNN Theorem 2.1.)
 *
 * Convention (TNN eq. 18): T(i, j) = t_{i-j}. An m x n Toeplitz matrix is
 * given by its m+n-1 coefficients t_{-(n-1)}, ..., t_0, ..., t_{m-1}, stored
 * in that order: coeffs[k + (n-1)] = t_k. For the square case that is 2n-1
 * coefficients with t_0 at index n-1.
 * Causal (lower-triangular) operators use only t_0..t_{m-1}; their
 * negative-lag coefficients are ignored (treated as zero).
 * Multi-channel data (d channels of length n) are column-major n x d blocks
 * with leading dimension ld >= n: channel c starts at x + c*ld.
 */
#ifndef SKIT_TOEPLITZ_H
#define SKIT_TOEPLITZ_H

#include "skit/core.h"
#include "skit/fft.h"

SKIT_BEGIN_DECLS

/* ---- dense reference (T1) --------------------------------------------- */

/* Materialise the m x n matrix into A (column-major, lda >= m).
 * coeffs: m+n-1 entries (see above). A: lda x n.
 * Errors: SKIT_EINVAL (NULL, bad causality), SKIT_EDOM (m or n = 0),
 *         SKIT_ESHAPE (lda < m), SKIT_ENONFINITE (a used coefficient is
 *         NaN/Inf), SKIT_EOVERFLOW (m+n-1 or the extent of A overflows). */
int skit_toeplitz_dense(size_t m, size_t n, const double *coeffs, skit_causality causality,
                        double *A, size_t lda);

/* y = T x (or y = T^T x if transpose) by the O(mn) definition.
 * x has n entries (m if transpose), y has m (n if transpose). NaN/Inf in x
 * propagate to y (only the coefficients are checked).
 * Errors: as skit_toeplitz_dense (no lda). */
int skit_toeplitz_matvec_dense(size_t m, size_t n, const double *coeffs,
                               skit_causality causality, int transpose,
                               const double *x, double *y);

/* ---- FFT matvec plan (T2) --------------------------------------------- */

typedef enum skit_toeplitz_sharing {
    SKIT_TOEPLITZ_PER_CHANNEL = 0, /* d matrices, channel c has its own (TNO) */
    SKIT_TOEPLITZ_SHARED = 1       /* one matrix applied to d right-hand sides */
} skit_toeplitz_sharing;

typedef struct skit_toeplitz_plan skit_toeplitz_plan;

typedef struct skit_toeplitz_options {
    skit_toeplitz_sharing sharing; /* default SKIT_TOEPLITZ_PER_CHANNEL */
    skit_causality causality;      /* default SKIT_BIDIRECTIONAL */
    /* Where execute runs (default SKIT_DEVICE_CPU). SKIT_DEVICE_CUDA runs
     * the product on the GPU in float64 through the same calls, on host
     * arrays (transfers included): the cuFFT plan of skit/cuda.h. */
    skit_device device;
    /* How FFTW plans the CPU transforms (skit/fft.h; default
     * SKIT_PLANNER_DEFAULT, the process default: ESTIMATE unless set).
     * MEASURE pays planning once for faster executes: for plans reused. */
    skit_planner planner;
} skit_toeplitz_options;

/* The defaults above. Does nothing if options is NULL. */
void skit_toeplitz_options_default(skit_toeplitz_options *options);

/* Plan y = T_c x_c for c = 0..d-1, with T_c m x n.
 * options: NULL for the defaults.
 * coeffs: (m+n-1) coefficients per matrix, matrix c at coeffs + c*(m+n-1)
 *         (only one matrix if sharing == SKIT_TOEPLITZ_SHARED). Copied into
 *         the plan as spectra; the caller's array may be freed afterwards.
 * The FFT length is the smallest 2^a 3^b 5^c 7^d >= m+n-1.
 * Errors: SKIT_EDOM (m, n or d = 0), SKIT_EINVAL (NULL plan or coeffs,
 *         unknown sharing, causality or device), SKIT_ENONFINITE,
 *         SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY,
 *         SKIT_EUNSUPPORTED (device = SKIT_DEVICE_CUDA without a usable
 *         GPU: "cuda: not built", "cuda: no device (...)"). */
int skit_toeplitz_plan_create(skit_toeplitz_plan **plan, size_t m, size_t n, size_t d,
                              const skit_toeplitz_options *options, const double *coeffs);

/* Replace the coefficients (same shape), recomputing the cached spectra
 * without replanning the FFTs. On error the old spectra are kept. Not to
 * be called while an execute runs on the plan.
 * Errors: SKIT_EINVAL (NULL), SKIT_ENONFINITE. */
int skit_toeplitz_plan_set_coeffs(skit_toeplitz_plan *plan, const double *coeffs);

/* Bytes of the workspace execute takes from its caller (every OpenMP
 * thread's FFT buffers); 0 for device plans, which take none. */
size_t skit_toeplitz_plan_workspace_bytes(const skit_toeplitz_plan *plan);

/* y(:, c) = T_c x(:, c), c = 0..d-1. x is n x d (ldx >= n), y is m x d
 * (ldy >= m). Channels run in parallel (OpenMP).
 * work: skit_toeplitz_plan_workspace_bytes(plan) bytes (any alignment),
 * or NULL: the plan lends its own workspace to one call at a time, and a
 * call made while another holds it allocates one for its duration.
 * Thread-safe either way: many threads may execute one plan at once (a
 * device plan runs them one after another). A call with work, or alone,
 * allocates nothing.
 * NaN/Inf in x propagate to the same channel of y.
 * Errors: SKIT_EINVAL (NULL plan, x or y), SKIT_ESHAPE (ldx < n or ldy < m),
 *         SKIT_EOVERFLOW, SKIT_ENOMEM (only a concurrent call without
 *         work); device plans also SKIT_ELIBRARY (a CUDA call failed). */
int skit_toeplitz_plan_execute(const skit_toeplitz_plan *plan, const double *x, size_t ldx,
                               double *y, size_t ldy, void *work);

/* Transposed product y(:, c) = T_c^T x(:, c): x is m x d, y is n x d.
 * As skit_toeplitz_plan_execute otherwise. */
int skit_toeplitz_plan_execute_transpose(const skit_toeplitz_plan *plan, const double *x,
                                         size_t ldx, double *y, size_t ldy, void *work);

/* The FFT length the plan chose, and its memory footprint in bytes. */
size_t skit_toeplitz_plan_fft_length(const skit_toeplitz_plan *plan);
size_t skit_toeplitz_plan_bytes(const skit_toeplitz_plan *plan);

void skit_toeplitz_plan_destroy(skit_toeplitz_plan *plan);

/* ---- solves (T3) ------------------------------------------------------ */

/* Levinson–Durbin for a symmetric positive-definite Toeplitz system
 * T X = B, T(i, j) = t[|i-j|], t has n entries (first column).
 * B is n x nrhs (ldb >= n), X is n x nrhs (ldx >= n); X may alias B.
 * Errors: SKIT_ENOTPD if a leading minor is not (numerically) positive:
 *         pivot <= n eps sum_k |t_k| (see lib/toeplitz/levinson.c); X is
 *         untouched on every error, never NaN.
 *         SKIT_EDOM (n or nrhs = 0), SKIT_EINVAL (NULL), SKIT_ESHAPE (ldb or
 *         ldx < n), SKIT_ENONFINITE (t or B), SKIT_EOVERFLOW, SKIT_ETOOBIG,
 *         SKIT_ENOMEM. */
int skit_toeplitz_solve_spd(size_t n, const double *t, size_t nrhs, const double *B,
                            size_t ldb, double *X, size_t ldx);

/* General (nonsymmetric) Toeplitz solve T X = B by the Levinson–Trench
 * recursion, n x n, coeffs as above (2n-1 entries, causality ignored).
 * Errors: SKIT_EBREAKDOWN when a leading principal minor is (numerically)
 * singular: its pivot |delta_k| <= n eps sum_k |t_k| (t_0 = 0 included) —
 * X is left untouched, never NaN; others as for the SPD solve. */
int skit_toeplitz_solve(size_t n, const double *coeffs, size_t nrhs, const double *B,
                        size_t ldb, double *X, size_t ldx);

SKIT_END_DECLS
#endif
