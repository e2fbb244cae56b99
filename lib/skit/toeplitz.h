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
    /* Arithmetic (default SKIT_PRECISION_F64). SKIT_PRECISION_F32: fftwf
     * plans and float spectra (the coefficients rounded to float once);
     * execute with the _f32 functions below. CPU only. */
    skit_precision precision;
    /* How FFTW plans the CPU transforms (skit/fft.h; default
     * SKIT_PLANNER_DEFAULT, the process default: ESTIMATE unless set).
     * MEASURE pays planning once for faster executes: for plans reused. */
    skit_planner planner;
    /* The CPU product's inverse transform (skit/fft.h; default
     * SKIT_FFT_INVERSE_AUTO: chosen by the planner, timed under MEASURE);
     * skit_toeplitz_plan_inverse says which form a plan took. */
    skit_fft_inverse inverse;
    /* How execute and backward read x, y, dy and dx (skit/core.h; default
     * SKIT_LAYOUT_COLUMNS). SKIT_LAYOUT_ROWS: the data are row-major, each
     * leading dimension (ldx, ldy, lddx) the distance between rows, >= d.
     * The coefficients keep their layout (below) in both. CPU only. */
    skit_layout layout;
} skit_toeplitz_options;

/* The defaults above. Does nothing if options is NULL. */
void skit_toeplitz_options_default(skit_toeplitz_options *options);

/* Plan y = T_c x_c for c = 0..d-1, with T_c m x n.
 * options: NULL for the defaults.
 * coeffs: (m+n-1) coefficients per matrix, matrix c at coeffs + c*(m+n-1)
 *         (only one matrix if sharing == SKIT_TOEPLITZ_SHARED): the
 *         (m+n-1) x d matrix of lags by channels, column-major, as the
 *         CLI's files and the Python binding's arrays hold it row-major
 *         (docs/layout.md). Copied into
 *         the plan as spectra; the caller's array may be freed afterwards.
 * The FFT length is the smallest 2^a 3^b 5^c 7^d >= m+n-1.
 * Errors: SKIT_EDOM (m, n or d = 0), SKIT_EINVAL (NULL plan or coeffs,
 *         unknown sharing, causality, device or layout), SKIT_ENONFINITE,
 *         SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY,
 *         SKIT_EUNSUPPORTED (device = SKIT_DEVICE_CUDA without a usable
 *         GPU: "cuda: not built", "cuda: no device (...)"; or with
 *         precision = SKIT_PRECISION_F32 or layout = SKIT_LAYOUT_ROWS). */
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
 * (ldy >= m); in the rows layout x[i*ldx + c] and y[i*ldy + c] with ldx,
 * ldy >= d. Channels run in parallel (OpenMP).
 * work: skit_toeplitz_plan_workspace_bytes(plan) bytes (any alignment),
 * or NULL: the plan lends its own workspace to one call at a time, and a
 * call made while another holds it allocates one for its duration.
 * Thread-safe either way: many threads may execute one plan at once (a
 * device plan runs them one after another). A call with work, or alone,
 * allocates nothing.
 * NaN/Inf in x propagate to the same channel of y.
 * Errors: SKIT_EINVAL (NULL plan, x or y; a float32 plan: use the _f32
 *         form), SKIT_ESHAPE (ldx < n or ldy < m; rows layout: < d),
 *         SKIT_EOVERFLOW, SKIT_ENOMEM (only a concurrent call without
 *         work); device plans also SKIT_ELIBRARY (a CUDA call failed). */
int skit_toeplitz_plan_execute(const skit_toeplitz_plan *plan, const double *x, size_t ldx,
                               double *y, size_t ldy, void *work);

/* Transposed product y(:, c) = T_c^T x(:, c): x is m x d, y is n x d.
 * As skit_toeplitz_plan_execute otherwise. */
int skit_toeplitz_plan_execute_transpose(const skit_toeplitz_plan *plan, const double *x,
                                         size_t ldx, double *y, size_t ldy, void *work);

/* The same products on a plan created with precision SKIT_PRECISION_F32,
 * on float arrays, computed in float (workspace: that plan's
 * skit_toeplitz_plan_workspace_bytes). Against the float64 product
 * (tests/test_toeplitz.c checks it),
 *     ||y32 - y64||_2 <= 20 log2(2N) eps32 ||t_c||_1 ||x_c||_2
 * per channel, eps32 = 2^-24, N the FFT length: FFTW's transforms are
 * backward stable with error O(log2 N eps) (Higham, Accuracy and
 * Stability, Thm 24.2) and the circulant's 2-norm is at most ||t_c||_1.
 * The bound is normwise: elements far below it, subnormals among them,
 * may come back zero (skit_precision, skit/core.h).
 * Errors: as the float64 forms; SKIT_EINVAL on a float64 plan. */
int skit_toeplitz_plan_execute_f32(const skit_toeplitz_plan *plan, const float *x, size_t ldx,
                                   float *y, size_t ldy, void *work);
int skit_toeplitz_plan_execute_transpose_f32(const skit_toeplitz_plan *plan, const float *x,
                                             size_t ldx, float *y, size_t ldy, void *work);
/* The plan's precision (SKIT_PRECISION_F64 for NULL). */
skit_precision skit_toeplitz_plan_precision(const skit_toeplitz_plan *plan);

/* The form of the inverse transform the plan's CPU product uses:
 * SKIT_FFT_INVERSE_HARTLEY or SKIT_FFT_INVERSE_C2R (SKIT_FFT_INVERSE_AUTO
 * for NULL and for device plans, whose transforms are cuFFT's). */
skit_fft_inverse skit_toeplitz_plan_inverse(const skit_toeplitz_plan *plan);

/* The FFT length the plan chose, and its memory footprint in bytes. */
size_t skit_toeplitz_plan_fft_length(const skit_toeplitz_plan *plan);
size_t skit_toeplitz_plan_bytes(const skit_toeplitz_plan *plan);

/* Floating-point operations of one skit_toeplitz_plan_execute (all d
 * channels; the _f32 form on a float32 plan) into *flops: per channel,
 * FFTW's own count of the plan's transforms (fftw_flops, or fftwf_flops
 * for float32 plans: adds + muls + 2 x fused multiply-adds), the forward
 * r2c of the zero-padded input and the inverse (c2r, or the Hartley
 * form's second r2c: skit_toeplitz_plan_inverse), plus the pointwise work
 * the engine does between them (fft/circulant.h: the spectrum product, 6
 * per frequency, or in the Hartley form 8 per pair of frequencies, 3 at
 * the ends, and one per output). The 1/N scale is folded into the spectra
 * at create and set_coeffs, so an execute has none to count. Not counted:
 * memory traffic (copies in and out, zero padding), the rows layout's
 * transposes, threading. The transposed execute counts the same but for
 * the one-per-output term (n outputs instead of m, Hartley form only).
 * FFTW counts each arithmetic instruction of its codelets once: a SIMD
 * codelet's vector add or multiply is one operation whatever its width,
 * so where FFTW runs SIMD codelets (SSE2/AVX/AVX2/AVX-512, chosen by the
 * CPU's extensions at run time) the transforms' share is a count of
 * arithmetic instructions, several times below the scalar count, and
 * differs between CPUs with different extensions.
 * The count is that of the FFTW algorithm the plan holds: fixed on one
 * machine under ESTIMATE (or given wisdom), while under MEASURE and above
 * FFTW chooses by timing, so the count may differ between runs (between
 * processes, or after the wisdom is forgotten).
 * Errors: SKIT_EINVAL (NULL plan or flops), SKIT_EUNSUPPORTED (device
 * plans: cuFFT reports no operation count). */
int skit_toeplitz_plan_flops(const skit_toeplitz_plan *plan, double *flops);

void skit_toeplitz_plan_destroy(skit_toeplitz_plan *plan);

/* ---- backward (vector-Jacobian product) ------------------------------ */

/* For y(:, c) = T_c x(:, c) and an output gradient dy (m x d, ldy >= m):
 * dx(:, c) = T_c^T dy(:, c) (n x d, lddx >= n; may be NULL) and dcoeffs
 * (the gradient w.r.t. the coefficients, same layout as coeffs: d x
 * (m+n-1), or one row for a shared matrix, summed over the channels; may
 * be NULL): dt_k = sum_i dy_i x_{i-k}, an FFT cross-correlation; a causal
 * plan gets 0 at its negative lags. x (n x d, ldx >= n) is needed only for
 * dcoeffs. dcoeffs is computed on the CPU for device plans too. In the
 * rows layout x, dy and dx are row-major (leading dimensions >= d; the
 * correlation reads transposed copies in work); dcoeffs keeps its layout.
 * work: skit_toeplitz_plan_backward_workspace_bytes(plan) bytes (any
 * alignment) or NULL (allocated for the call). Thread-safe on a const plan;
 * with work it allocates nothing (device plans: as execute).
 * Errors: SKIT_EINVAL (NULL plan, dy; x when dcoeffs; a float32 plan:
 * use the _f32 form), SKIT_ESHAPE (a leading dimension too small),
 * SKIT_EOVERFLOW, SKIT_ENOMEM (no work); device plans also as execute. */
size_t skit_toeplitz_plan_backward_workspace_bytes(const skit_toeplitz_plan *plan);
int skit_toeplitz_plan_backward(const skit_toeplitz_plan *plan, const double *x, size_t ldx,
                                const double *dy, size_t ldy, double *dx, size_t lddx,
                                double *dcoeffs, void *work);

/* The same on a plan created with precision SKIT_PRECISION_F32, float
 * arrays throughout (dcoeffs too), computed in float: dx by the plan's
 * float transposed product (its bound above: 20 log2(2N) eps32 ||t_c||_1
 * ||dy_c||_2), dcoeffs by an fftwf cross-correlation on the same length N.
 * Against the float64 backward on the same (float) inputs, per matrix c
 * (a shared matrix: summed over the channels j it serves, and the sums
 * below over them),
 *     ||dt32_c - dt64_c||_2 <= (30 log2(2N) + J) eps32
 *                              sum_j (||x_j||_1 ||dy_j||_2 + ||x_j||_2 ||dy_j||_1),
 * eps32 = 2^-24, J the channels summed: three transforms (X, DY, the
 * inverse), each backward stable with error 10 log2(2N) eps32 relative to
 * its input's 2-norm (as the product's bound counts two), a DFT's
 * infinity-norm at most the 1-norm of its input (||X||_inf <= ||x||_1),
 * and J accumulations of spectra (tests/test_toeplitz.c checks it).
 * Errors: as the float64 form; SKIT_EINVAL also when the plan's precision
 * is the other one. */
int skit_toeplitz_plan_backward_f32(const skit_toeplitz_plan *plan, const float *x, size_t ldx,
                                    const float *dy, size_t ldy, float *dx, size_t lddx,
                                    float *dcoeffs, void *work);

/* ---- solves (T3) ------------------------------------------------------ */

/* Every solve checks its answer. After the O(n^2) Levinson recursion it
 * computes the normwise backward error of each column (Rigal–Gaches)
 *     eta_j = ||b_j - T x_j||_inf / (||T||_inf ||x_j||_inf + ||b_j||_inf)
 * and holds max_j eta_j to SKIT_TOEPLITZ_SOLVE_TOLERANCE(n). Levinson is
 * not backward stable for every matrix (a small leading minor makes it
 * unstable even when T is well conditioned), so when the bound is missed
 * the solve refines the answer (x += T^{-1} r, computed by Levinson, up
 * to SKIT_TOEPLITZ_SOLVE_REFINEMENTS steps) and, if that fails or the
 * recursion broke down, solves the dense system by LAPACK's dgesv (LU
 * with partial pivoting) when n <= SKIT_TOEPLITZ_SOLVE_DENSE_MAX. If no
 * method meets the bound the solve fails with SKIT_EBREAKDOWN, naming the
 * backward error it reached, and X is untouched: a returned X always
 * meets the bound. Backward error bounds the forward error only through
 * the condition number: ||x - x*|| / ||x*|| <~ 2 cond(T) eta; ask for
 * skit_toeplitz_solve_with_info for the condition estimate. */
#define SKIT_TOEPLITZ_SOLVE_TOLERANCE(n) (32.0 * (double)(n) * 2.220446049250313e-16)
#define SKIT_TOEPLITZ_SOLVE_REFINEMENTS 3
#define SKIT_TOEPLITZ_SOLVE_DENSE_MAX 4096

/* Which method produced a solve's answer. */
typedef enum skit_toeplitz_solver {
    SKIT_TOEPLITZ_SOLVER_LEVINSON = 0, /* the recursion alone (the fast path) */
    SKIT_TOEPLITZ_SOLVER_REFINED = 1,  /* the recursion + iterative refinement */
    SKIT_TOEPLITZ_SOLVER_DENSE_LU = 2  /* LAPACK dgesv on the dense matrix */
} skit_toeplitz_solver;

/* What a solve measured about its answer. */
typedef struct skit_toeplitz_solve_info {
    skit_toeplitz_solver solver;  /* the method of the returned X */
    int refinement_steps;         /* refinement steps taken (0 on the fast path) */
    int levinson_completed;       /* 0 when the recursion broke down */
    double levinson_backward_error; /* before refinement; NaN if broken down */
    double backward_error;        /* max_j eta_j of the returned X (see above) */
    double tolerance;             /* the bound it was held to */
    double rcond;                 /* estimate of 1 / (||T||_1 ||T^{-1}||_1):
                                     LAPACK's 1-norm estimator (dlacn2) with
                                     solves by the returned method, or dgecon */
} skit_toeplitz_solve_info;

/* Levinson–Durbin for a symmetric positive-definite Toeplitz system
 * T X = B, T(i, j) = t[|i-j|], t has n entries (first column).
 * B is n x nrhs (ldb >= n), X is n x nrhs (ldx >= n); X may alias B.
 * Checked as described above.
 * Errors: SKIT_ENOTPD if a leading minor is not (numerically) positive:
 *         pivot <= n eps sum_k |t_k| (see lib/toeplitz/levinson.c);
 *         SKIT_EBREAKDOWN when no method meets the backward-error bound;
 *         X is untouched on every error, never NaN.
 *         SKIT_EDOM (n or nrhs = 0), SKIT_EINVAL (NULL), SKIT_ESHAPE (ldb or
 *         ldx < n), SKIT_ENONFINITE (t or B), SKIT_EOVERFLOW, SKIT_ETOOBIG,
 *         SKIT_ENOMEM, SKIT_ELIBRARY (LAPACK failed). */
int skit_toeplitz_solve_spd(size_t n, const double *t, size_t nrhs, const double *B,
                            size_t ldb, double *X, size_t ldx);

/* General (nonsymmetric) Toeplitz solve T X = B by the Levinson–Trench
 * recursion, n x n, coeffs as above (2n-1 entries, causality ignored),
 * checked as described above. A (numerically) singular leading minor,
 * |pivot| <= n eps sum_k |t_k|, breaks the recursion: the solve then
 * falls back to the dense LU.
 * Errors: SKIT_EBREAKDOWN when T is singular (an exact zero pivot in the
 *         LU) or no method meets the backward-error bound (n above
 *         SKIT_TOEPLITZ_SOLVE_DENSE_MAX and Levinson failed) — X is left
 *         untouched, never NaN; others as for the SPD solve. */
int skit_toeplitz_solve(size_t n, const double *coeffs, size_t nrhs, const double *B,
                        size_t ldb, double *X, size_t ldx);

/* The same two solves, also filling *info (not NULL) with the method, the
 * backward errors and a condition estimate. The estimate costs a few more
 * solves with T and T^T (about 4 single right-hand-side solves). On error
 * *info holds what was measured before the failure. */
int skit_toeplitz_solve_spd_with_info(size_t n, const double *t, size_t nrhs, const double *B,
                                 size_t ldb, double *X, size_t ldx,
                                 skit_toeplitz_solve_info *info);
int skit_toeplitz_solve_with_info(size_t n, const double *coeffs, size_t nrhs,
                                     const double *B, size_t ldb, double *X, size_t ldx,
                                     skit_toeplitz_solve_info *info);

/* The size in bytes of this header's public struct `name` (e.g. "skit_toeplitz_options"),
 * 0 for any other name: bindings that mirror the structs (python/skit)
 * check their layout against it when they load, so a field added here
 * cannot shift theirs unnoticed. */
size_t skit_toeplitz_struct_size(const char *name);

SKIT_END_DECLS
#endif
