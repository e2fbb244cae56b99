/* skit/ski.h — stationary (possibly asymmetric) kernels, interpolation
 * weights, asymmetric Nystrom and structured kernel interpolation (SKI), the
 * sparse + low-rank Toeplitz operator of SKI-TNN (Algorithm 1), and an
 * evaluator of every term of Theorem 1 of "SKI to go Faster" (Appendix D).
 * (SPEC K1–K5.)
 *
 * Conventions (used by every function below unless stated):
 *  - Observation points are x_i = i, i = 0..n-1, so T(i, j) = k(x_i - x_j)
 *    = k(i - j) is the n x n Toeplitz Gram matrix of the kernel k.
 *  - Inducing points are uniform on an interval [lo, hi] (lo < hi):
 *    p_j = lo + j h, h = (hi - lo)/(r - 1), j = 0..r-1. The default interval
 *    is [0, n-1], the authors' code's g_j = j (n-1)/(r-1).
 *  - A(i, j) = k(p_i - p_j) (r x r, Toeplitz because the p_j are uniform),
 *    F(i, j) = k(x_i - p_j) (n x r), B(i, j) = k(p_i - x_j) (r x n).
 *  - Toeplitz coefficients follow skit/toeplitz.h: coeffs[m + (r-1)] = t_m
 *    for m = -(r-1)..r-1, with A(i, j) = t_{i-j}.
 *  - Multi-channel data are n x d column-major blocks (channel c at x + c*ld).
 */
#ifndef SKIT_SKI_H
#define SKIT_SKI_H

#include "skit/core.h"
#include "skit/mlp.h"
#include "skit/toeplitz.h"

SKIT_BEGIN_DECLS

/* ====================================================================== */
/* K1 — kernels                                                            */
/* ====================================================================== */

typedef enum skit_kernel_type {
    SKIT_KERNEL_GAUSSIAN = 0,         /* s2 exp(-t^2 / (2 l^2)) */
    SKIT_KERNEL_SHIFTED_GAUSSIAN = 1, /* s2 exp(-(t - c)^2 / (2 l^2)): asymmetric */
    SKIT_KERNEL_MATERN52 = 2,         /* s2 (1 + u + u^2/3) exp(-u), u = sqrt5 |t| / l */
    SKIT_KERNEL_EXP_COSINE = 3,       /* s2 exp(-|t| / l) cos(w t) */
    SKIT_KERNEL_TNN = 4,              /* RPE_c(t) lambda^|t|, RPE an skit_mlp */
    SKIT_KERNEL_WARPED_LINEAR = 5,    /* RPE(sign(t) lambda^|t|), RPE piecewise linear */
    SKIT_KERNEL_SUM = 6               /* k1 + k2 */
} skit_kernel_type;

typedef struct skit_kernel skit_kernel;

/* Gaussian: variance s2 > 0, lengthscale l > 0 (finite).
 * Errors: SKIT_EINVAL (kernel NULL), SKIT_EDOM, SKIT_ENOMEM. */
int skit_kernel_gaussian_create(skit_kernel **kernel, double variance, double lengthscale);
/* Shifted Gaussian: as above, centred at `shift` (any finite value). */
int skit_kernel_shifted_gaussian_create(skit_kernel **kernel, double variance,
                                        double lengthscale, double shift);
/* Matern-5/2: variance > 0, lengthscale > 0. C^4 at t = 0 (its fifth
 * derivative jumps there), analytic elsewhere. */
int skit_kernel_matern52_create(skit_kernel **kernel, double variance, double lengthscale);
/* Exponential decay times cosine: variance > 0, lengthscale > 0, frequency
 * w >= 0 (radians per lag). Continuous but not differentiable at t = 0. */
int skit_kernel_exp_cosine_create(skit_kernel **kernel, double variance, double lengthscale,
                                  double frequency);
/* TNN kernel k(t) = RPE_channel(t) * lambda^|t| with RPE a scalar-input MLP
 * evaluated at the raw lag t (as the TNN code does). The MLP is borrowed:
 * it must outlive the kernel and is not changed. lambda in (0, 1).
 * activation: the MLP's activation (skit/mlp.h does not expose it); used
 * only to report smoothness (a ReLU RPE has kinks at unknown places).
 * Errors: SKIT_EINVAL (NULL, unknown activation), SKIT_ESHAPE (MLP input
 * dimension != 1), SKIT_EDOM (channel >= output dimension, lambda outside
 * (0, 1)). */
int skit_kernel_tnn_create(skit_kernel **kernel, const skit_mlp *rpe, size_t channel,
                           double lambda, skit_activation activation);
/* SKI-TNN's inverse-time-warp kernel k(t) = f(x(t)), x(t) = sign(t) lambda^|t|
 * with sign(0) = +1, f piecewise linear on 2K+1 uniform knots z_j = j/K,
 * j = -K..K, with f(0) = 0 fixed (so k -> 0 as |t| -> infinity) and
 * k(0) = f(1). values has 2K entries: f(z_{-K}), ..., f(z_{-1}), then
 * f(z_1), ..., f(z_K). knots_per_side K >= 1, lambda in (0, 1).
 * Errors: SKIT_EINVAL, SKIT_EDOM, SKIT_ENONFINITE, SKIT_ENOMEM. */
int skit_kernel_warped_linear_create(skit_kernel **kernel, size_t knots_per_side,
                                     const double *values, double lambda);
/* k = a + b. Both are borrowed and must outlive the sum. */
int skit_kernel_sum_create(skit_kernel **kernel, const skit_kernel *a, const skit_kernel *b);

void skit_kernel_destroy(skit_kernel *kernel);

skit_kernel_type skit_kernel_get_type(const skit_kernel *kernel);
/* One-line description with every parameter, e.g.
 * "gaussian(variance=1, lengthscale=32)"; truncated to size. */
void skit_kernel_describe(const skit_kernel *kernel, char *text, size_t size);

/* values[i] = k(t[i]), i < count. Errors: SKIT_EINVAL, SKIT_ENONFINITE (t). */
int skit_kernel_eval(const skit_kernel *kernel, size_t count, const double *t, double *values);

/* derivs[m] = k^(m)(t), m = 0..order (order <= SKIT_KERNEL_MAX_ORDER).
 * At a point where k is not smooth (t = 0 for |t| kernels, the knots of the
 * warped kernel, a ReLU kink) the one-sided derivatives from the right are
 * returned. Errors: SKIT_EINVAL, SKIT_EDOM (order), SKIT_ENONFINITE (t). */
#define SKIT_KERNEL_MAX_ORDER 16
int skit_kernel_derivatives(const skit_kernel *kernel, double t, size_t order, double *derivs);

/* Toeplitz coefficients of the kernel sampled with spacing h:
 * coeffs[m + (size-1)] = k(m h), m = -(size-1)..size-1 (2 size - 1 values).
 * T = coefficients with h = 1; A with h = the inducing spacing.
 * Errors: SKIT_EINVAL, SKIT_EDOM (size = 0, h <= 0 or not finite). */
int skit_kernel_toeplitz_coeffs(const skit_kernel *kernel, size_t size, double h,
                                double *coeffs);

/* How trustworthy a derivative bound is. */
typedef enum skit_bound_kind {
    SKIT_BOUND_ANALYTIC = 0, /* closed form: an exact supremum or a proven upper bound */
    SKIT_BOUND_SAMPLED = 1,  /* rigorous: max over a grid + (grid step / 2) * a proven
                                bound on the next derivative */
    SKIT_BOUND_ESTIMATE = 2  /* max over a grid + (step / 2) * the sampled max of the
                                next derivative: a careful estimate, not a proof */
} skit_bound_kind;

typedef struct skit_derivative_bound {
    double value;         /* L >= sup |k^(order)(t)| over lo <= t <= hi, t not a
                             non-smooth point (one-sided limits included) */
    skit_bound_kind kind;
    int smooth;           /* 1 if k is C^order on the whole open interval (lo, hi):
                             the hypothesis of Theorem 1 with order = N + 1 */
} skit_derivative_bound;

/* Bound on |k^(order)| over [lo, hi] (order 0..SKIT_KERNEL_MAX_ORDER - 1).
 *  Gaussian, shifted Gaussian: SAMPLED (the next-derivative bound is Cramer's
 *    inequality |He_m(u)| e^{-u^2/4} <= 1.086435 sqrt(m!)).
 *  Matern-5/2: ANALYTIC, exact (k^(m) = e^{-u} q_m(u) with q_m quadratic).
 *  exp-cosine: ANALYTIC upper bound s2 (1/l^2 + w^2)^{m/2} e^{-min|t|/l}.
 *  warped linear: ANALYTIC, exact: |slope| |ln lambda|^m lambda^|t| per piece.
 *  TNN: ESTIMATE (exact Taylor-mode derivatives of the MLP at 2049 points).
 *    With a ReLU RPE the derivatives of order >= 2 of the RPE vanish between
 *    kinks; smooth is then 0 for order >= 1.
 *  sum: the sum of the parts' bounds, the weaker kind.
 * Errors: SKIT_EINVAL, SKIT_EDOM (order, lo > hi, not finite). */
int skit_kernel_derivative_bound(const skit_kernel *kernel, size_t order, double lo, double hi,
                                 skit_derivative_bound *bound);

/* *smooth = 1 if k is C^order on the open interval (lo, hi) (lo <= hi). */
int skit_kernel_smoothness(const skit_kernel *kernel, size_t order, double lo, double hi,
                           int *smooth);

/* ====================================================================== */
/* K2 — interpolation weights                                               */
/* ====================================================================== */

typedef enum skit_interp_scheme {
    SKIT_INTERP_LINEAR = 0,   /* 2 nonzeros, weights in [0, 1] inside [lo, hi] */
    SKIT_INTERP_CUBIC = 1,    /* Keys cubic convolution, a = -0.5, 4 nonzeros */
    SKIT_INTERP_LAGRANGE = 2, /* degree N through the N+1 nearest inducing points */
    /* Reproductions of the public ski-tnn code's W (docs/reference-code.md), for
     * experiments only: for point x it takes j = the first inducing index with
     * p_j >= x (the upper bracket, clamped to 0..r-2) and puts
     * (x - p_j)/h on p_j and 1 - (x - p_j)/h on p_{j+1}: weights in (-1, 0]
     * and [1, 2) instead of in [0, 1]. */
    SKIT_INTERP_AUTHORS_BRACKET = 3,
    /* ... and each row scaled by gamma^(x n) as that code does. */
    SKIT_INTERP_AUTHORS = 4
} skit_interp_scheme;

#define SKIT_INTERP_MAX_DEGREE 15

typedef struct skit_interp_options {
    skit_interp_scheme scheme;
    size_t degree; /* Lagrange degree N, 1..min(r-1, SKIT_INTERP_MAX_DEGREE);
                      ignored by the other schemes */
    double lo, hi; /* inducing interval, lo < hi */
    double gamma;  /* falloff of SKIT_INTERP_AUTHORS, in (0, 1) */
} skit_interp_options;

/* Linear weights on [0, n-1], degree 1, gamma 0.99. */
void skit_interp_options_default(skit_interp_options *options, size_t n);

/* W: n x r with `width` stored nonzeros per row in consecutive columns:
 * W(i, start[i] + k) = weights[i*width + k], k < width.
 * Boundary handling: rows always use a full stencil inside 0..r-1.
 *  linear: the bracketing pair [p_j, p_{j+1}], j clamped to 0..r-2; a point
 *    outside [lo, hi] is extrapolated linearly from the end pair.
 *  cubic (Keys): nodes j-1..j+2 of the bracket j; the missing ghost nodes
 *    p_{-1} and p_r are replaced by Keys' boundary rule
 *    f(p_{-1}) = 3 f(p_0) - 3 f(p_1) + f(p_2) (and mirrored), which keeps
 *    quadratics exact; needs r >= 3. width = min(4, r). Outside [lo, hi] the
 *    end pieces' cubics are extended.
 *  Lagrange: the N+1 nearest nodes (for even N centred on the nearest node),
 *    shifted inwards at the ends; outside [lo, hi] the end stencil
 *    extrapolates.
 * Polynomial exactness: linear reproduces degree 1, cubic degree 2, Lagrange
 * degree N; the authors' schemes reproduce nothing (exactness = -1). */
typedef struct skit_interp_weights {
    size_t n, r, width;
    size_t *start;      /* n entries */
    double *weights;    /* n * width */
    double *points;     /* the n observation points */
    double *inducing;   /* the r inducing points */
    double spacing;     /* h */
    int exactness;      /* highest polynomial degree reproduced exactly, or -1 */
    skit_interp_options options;
} skit_interp_weights;

/* Build W for n observation points (points = NULL: x_i = i) and r inducing
 * points. Errors: SKIT_EINVAL (NULL, unknown scheme), SKIT_EDOM (n = 0,
 * r < 2, r > n when points is NULL, cubic with r < 3, degree outside
 * 1..min(r-1, 15), empty interval lo >= hi, gamma outside (0, 1) for the
 * authors' scheme), SKIT_ENONFINITE, SKIT_EOVERFLOW, SKIT_ENOMEM. */
int skit_interp_weights_create(skit_interp_weights **weights, size_t n, const double *points,
                               size_t r, const skit_interp_options *options);
void skit_interp_weights_destroy(skit_interp_weights *weights);

/* Dense copy of W into D (n x r, ldd >= n). */
int skit_interp_weights_dense(const skit_interp_weights *weights, double *D, size_t ldd);

/* Y = W U (U is r x d, ldu >= r; Y is n x d, ldy >= n) and U = W^T X
 * (X n x d, U r x d). O(n * width * d). Allocate nothing. */
int skit_interp_apply(const skit_interp_weights *weights, size_t d, const double *U, size_t ldu,
                      double *Y, size_t ldy);
int skit_interp_apply_transpose(const skit_interp_weights *weights, size_t d, const double *X,
                                size_t ldx, double *U, size_t ldu);

/* ====================================================================== */
/* K3 — SKI and asymmetric Nystrom                                          */
/* ====================================================================== */

typedef enum skit_ski_method {
    SKIT_SKI_SPARSE_FFT = 0, /* sparse W, A by FFT: O(n width + r log r) per channel */
    SKIT_SKI_DENSE = 1       /* dense W and A with BLAS: O(n r + r^2) per channel */
} skit_ski_method;

typedef struct skit_ski_plan skit_ski_plan;

typedef struct skit_ski_options {
    skit_toeplitz_sharing sharing; /* default SKIT_TOEPLITZ_PER_CHANNEL */
    skit_ski_method method;        /* default SKIT_SKI_SPARSE_FFT */
    /* Arithmetic (default SKIT_PRECISION_F64). SKIT_PRECISION_F32 (sparse-fft
     * only): execute with skit_ski_plan_execute_f32, below. */
    skit_precision precision;
    /* How FFTW plans A's transforms (skit/fft.h; default
     * SKIT_PLANNER_DEFAULT, the process default). */
    skit_planner planner;
    /* How execute reads X and writes Y (skit/core.h; default
     * SKIT_LAYOUT_COLUMNS). SKIT_LAYOUT_ROWS: row-major n x d, ldx, ldy >=
     * d, read and written in place (W's passes walk the rows; the dense
     * method's GEMMs take them transposed). */
    skit_layout layout;
} skit_ski_options;

/* The defaults above. Does nothing if options is NULL. */
void skit_ski_options_default(skit_ski_options *options);

/* Plan Y(:, c) = W A_c W^T X(:, c), c = 0..d-1, A_c the r x r Toeplitz matrix
 * with coefficients coeffs + c*(2r-1) (sharing = SKIT_TOEPLITZ_PER_CHANNEL)
 * or coeffs for every channel (SKIT_TOEPLITZ_SHARED). options: NULL for the
 * defaults. W and the coefficients are copied into the plan (as W's
 * planes and A's spectra, in the plan's precision); the caller's arrays
 * may be freed afterwards.
 * Errors: SKIT_EINVAL (NULL plan, weights or coeffs; unknown sharing,
 * method, precision, planner or layout), SKIT_EDOM (d = 0), SKIT_ENONFINITE,
 * SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY,
 * SKIT_EUNSUPPORTED (precision float32 with method dense). */
int skit_ski_plan_create(skit_ski_plan **plan, const skit_interp_weights *weights, size_t d,
                         const skit_ski_options *options, const double *coeffs);
/* X is n x d (ldx >= n), Y is n x d (ldy >= n), no aliasing (rows layout:
 * row-major, ldx, ldy >= d). Thread-safe:
 * the plan lends its scratch to one call at a time and a concurrent call
 * allocates its own (SKIT_ENOMEM if that fails); one call alone allocates
 * nothing.
 * Errors: SKIT_EINVAL (NULL; a float32 plan: use the _f32 form),
 * SKIT_ESHAPE (ldx or ldy < n; rows layout: < d), SKIT_ENOMEM. */
int skit_ski_plan_execute(const skit_ski_plan *plan, const double *X, size_t ldx, double *Y,
                          size_t ldy);

/* The same action on a plan created with precision SKIT_PRECISION_F32, on
 * float arrays, computed in float: the planes of W in float (rounded once
 * at create), U = W^T X and Y = W V in float and A_c by a float32 Toeplitz
 * plan (fftwf; coeffs rounded to float once), channels W^T, A, W phase by
 * phase. The plan holds no float64 copy of W, of A's spectra or of the
 * scratch: skit_ski_plan_bytes is about half the float64 plan's.
 * Against the float64 plan, per channel (tests/test_ski.c checks it), with
 * u = 2^-24, |W| the entry-wise absolute value, a_c the 2r-1 coefficients,
 * U = W^T x_c, V = A_c U:
 *     ||y32 - y64||_2 <= 1.01 (||W||_2 (||a_c||_1 e_U + 20 log2(2N) u
 *                        ||a_c||_1 (||U||_2 + e_U)) + (width + 1) u
 *                        || |W| |V| ||_2),
 *     e_U = (2 m + 1) u || |W|^T |x_c| ||_2,
 * m the most rows whose window holds one inducing point, N the Toeplitz
 * plan's FFT length: W^T's float sums (chains of at most 2m terms), the
 * Toeplitz product's bound (skit_toeplitz_plan_execute_f32) on the rounded
 * U, and W's width-term sums.
 * Errors: as skit_ski_plan_execute; SKIT_EINVAL on a float64 plan. */
int skit_ski_plan_execute_f32(const skit_ski_plan *plan, const float *X, size_t ldx, float *Y,
                              size_t ldy);
/* The plan's precision (SKIT_PRECISION_F64 for NULL). */
skit_precision skit_ski_plan_precision(const skit_ski_plan *plan);
/* Bytes the plan holds: W's planes, the run tables, the scratch it lends,
 * A's Toeplitz plans (or the dense W and A). 0 for NULL. */
size_t skit_ski_plan_bytes(const skit_ski_plan *plan);
void skit_ski_plan_destroy(skit_ski_plan *plan);

/* Dense W A W^T (n x n, ldt >= n) for one coefficient vector (2r-1).
 * Errors as above plus SKIT_ESHAPE (ldt < n). */
int skit_ski_dense(const skit_interp_weights *weights, const double *coeffs, double *T,
                   size_t ldt);

/* Asymmetric Nystrom F A^+ B of the kernel (observation points 0..n-1,
 * inducing points uniform on [lo, hi]): A^+ is the pseudo-inverse with
 * singular values <= rtol * sigma_1 dropped (rtol < 0: r * eps), so a
 * singular A is allowed. */
typedef struct skit_nystrom_plan skit_nystrom_plan;
/* Errors: SKIT_EINVAL, SKIT_EDOM (n = 0, r < 2, r > n, lo >= hi),
 * SKIT_ENOMEM, SKIT_ELIBRARY. *rank (may be NULL): numerical rank of A. */
int skit_nystrom_plan_create(skit_nystrom_plan **plan, const skit_kernel *kernel, size_t n,
                             size_t r, double lo, double hi, double rtol, size_t *rank);
/* Options of a Nystrom plan; skit_nystrom_options_default fills the
 * defaults in brackets (does nothing for NULL). */
typedef struct skit_nystrom_options {
    /* How execute reads X and writes Y (skit/core.h) [SKIT_LAYOUT_COLUMNS]:
     * columns, X[i + c*ldx] with ldx, ldy >= n; SKIT_LAYOUT_ROWS, X[i*ldx +
     * c] with ldx, ldy >= d, read and written in place: the two GEMMs take
     * the blocks transposed, Y^T = (X^T G^T) F^T with G = A^+ B. */
    skit_layout layout;
} skit_nystrom_options;
void skit_nystrom_options_default(skit_nystrom_options *options);
/* skit_nystrom_plan_create with options (NULL: the defaults).
 * Errors: as skit_nystrom_plan_create, SKIT_EINVAL (unknown layout). */
int skit_nystrom_plan_create_with(skit_nystrom_plan **plan, const skit_kernel *kernel, size_t n,
                                  size_t r, double lo, double hi, double rtol,
                                  const skit_nystrom_options *options, size_t *rank);
/* Y = F (A^+ B) X for X n x d: O(n r d) by two GEMMs. Thread-safe as
 * skit_ski_plan_execute. Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE (ldx or
 * ldy < n; rows layout: < d), SKIT_ENOMEM. The rows layout's sums are the
 * columns layout's in the GEMMs' own order, which may differ: the two
 * agree to the GEMMs' error bound (tests/test_ski.c). */
int skit_nystrom_plan_execute(const skit_nystrom_plan *plan, size_t d, const double *X, size_t ldx,
                              double *Y, size_t ldy);
/* The dense n x n F A^+ B (ldt >= n). */
int skit_nystrom_plan_dense(const skit_nystrom_plan *plan, double *T, size_t ldt);
void skit_nystrom_plan_destroy(skit_nystrom_plan *plan);

/* ====================================================================== */
/* K4 — sparse + low-rank Toeplitz operator (Algorithm 1)                   */
/* ====================================================================== */

typedef struct skit_sparse_lowrank_plan skit_sparse_lowrank_plan;

/* Y(:, c) = (T_sparse,c + W A_c W^T) X(:, c), c = 0..d-1.
 * T_sparse,c: band of m diagonals (m odd, half = (m-1)/2), applied as a
 *   1-D convolution: y_i += sum_k band[c*m + k] x_{i - (k - half)}, i.e.
 *   T_sparse(i, j) = band[c*m + (i - j) + half] for |i - j| <= half.
 *   m = 0 (band may be NULL): no sparse part.
 * weights NULL: no low-rank part (band only). Otherwise the low-rank part is
 *   a SKI plan with per-channel coefficients coeffs + c*(2r-1).
 * Errors: SKIT_EINVAL (nothing to apply, NULL), SKIT_EDOM (n or d = 0, m even
 * or m > 2n-1), SKIT_ESHAPE (weights->n != n), SKIT_ENONFINITE, SKIT_ENOMEM,
 * SKIT_ELIBRARY. */
int skit_sparse_lowrank_plan_create(skit_sparse_lowrank_plan **plan, size_t n, size_t d,
                                    size_t m, const double *band,
                                    const skit_interp_weights *weights, const double *coeffs,
                                    skit_ski_method method);
/* Options of a sparse + low-rank plan; skit_sparse_lowrank_options_default
 * fills the defaults in brackets (does nothing for NULL). */
typedef struct skit_sparse_lowrank_options {
    skit_ski_method method; /* the low-rank part's SKI method [SKIT_SKI_SPARSE_FFT] */
    /* How execute reads X and writes Y (skit/core.h) [SKIT_LAYOUT_COLUMNS]:
     * columns, ldx, ldy >= n; SKIT_LAYOUT_ROWS, row-major n x d with ldx,
     * ldy >= d, read and written in place: the SKI part in its rows layout
     * (skit_ski_options.layout: within rounding of the columns layout),
     * the band walked along the rows, each y[i, c] adding its taps in the
     * columns layout's order. */
    skit_layout layout;
} skit_sparse_lowrank_options;
void skit_sparse_lowrank_options_default(skit_sparse_lowrank_options *options);
/* skit_sparse_lowrank_plan_create with options (NULL: the defaults).
 * Errors: as skit_sparse_lowrank_plan_create, SKIT_EINVAL (unknown
 * layout or method). */
int skit_sparse_lowrank_plan_create_with(skit_sparse_lowrank_plan **plan, size_t n, size_t d,
                                         size_t m, const double *band,
                                         const skit_interp_weights *weights, const double *coeffs,
                                         const skit_sparse_lowrank_options *options);
/* Y = (T_sparse + W A W^T) X, X and Y n x d in the plan's layout, no
 * aliasing. Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE (ldx or ldy < n; rows
 * layout: < d), those of skit_ski_plan_execute. */
int skit_sparse_lowrank_plan_execute(const skit_sparse_lowrank_plan *plan, const double *X,
                                     size_t ldx, double *Y, size_t ldy);
void skit_sparse_lowrank_plan_destroy(skit_sparse_lowrank_plan *plan);

/* How the evaluators compute spectral norms of n x n matrices. */
typedef enum skit_norm_method {
    SKIT_NORM_DENSE_SVD = 0, /* LAPACK SVD of each n x n matrix */
    SKIT_NORM_LANCZOS = 1    /* Golub-Kahan-Lanczos on the dense matrix (O(n^2) per step) */
} skit_norm_method;

/* ====================================================================== */
/* Error studies (experiments of `skit ski-bound --study ...`)             */
/* ====================================================================== */

/* Algorithm 1's split on a kernel k = smooth + spike, for n, r, m:
 * relative to nothing (absolute spectral norms; t_norm for scaling). band_m(M)
 * keeps the m central diagonals (|i - j| <= (m-1)/2) of M. */
typedef struct skit_sparse_lowrank_errors {
    double t_norm;             /* ||T||_2, T = T_smooth + T_spike */
    double band_only;          /* ||T - band_m(T)||_2 (m = 0: ||T||) */
    double lowrank_only;       /* ||T - W A W^T||_2, A from the whole kernel */
    double sparse_lowrank;     /* ||T - band_m(T_spike) - W A_smooth W^T||_2 (split known) */
    double sparse_lowrank_fit; /* ||R - band_m(diagonal means of R)||_2, R = T - W A W^T:
                                  the band fitted (least squares, Frobenius) to what the
                                  low-rank part misses, split unknown */
    double spike_outside_band; /* ||T_spike - band_m(T_spike)||_2 */
    double smooth_ski;         /* ||T_smooth - W A_smooth W^T||_2 */
} skit_sparse_lowrank_errors;

/* Errors: SKIT_EINVAL, SKIT_EDOM (n < 2, r outside 2..n, m even or > 2n-1,
 * options), SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY, SKIT_ENOCONV. */
int skit_sparse_lowrank_study(const skit_kernel *smooth, const skit_kernel *spike, size_t n,
                              size_t r, size_t m, const skit_interp_options *options,
                              skit_norm_method method, skit_sparse_lowrank_errors *errors);

/* ||T_a - T_b||_2 and ||T_b||_2 for the n x n Toeplitz matrices of two
 * kernels, by Lanczos on FFT matvecs (O(n log n) per step, no n x n matrix).
 * Errors: SKIT_EINVAL, SKIT_EDOM (n = 0), SKIT_ENOMEM, SKIT_ENOCONV,
 * SKIT_ELIBRARY. */
int skit_kernel_matrix_error(const skit_kernel *a, const skit_kernel *b, size_t n,
                             double *difference, double *reference);

/* ====================================================================== */
/* Fitting (for the extrapolation experiment)                              */
/* ====================================================================== */

/* Least-squares knot values of the warped piecewise-linear kernel:
 * minimise sum_i (k(t_i) - y_i)^2 over the 2K free knot values (f(0) = 0
 * fixed). Knots no sample reaches get the minimum-norm value 0 (LAPACK
 * dgelsd). values receives 2K entries (layout of the create function).
 * Errors: SKIT_EINVAL, SKIT_EDOM (count = 0, K = 0, lambda), SKIT_ENONFINITE,
 * SKIT_ENOMEM, SKIT_ELIBRARY. */
int skit_warped_linear_fit(size_t knots_per_side, double lambda, size_t count, const double *t,
                           const double *y, double *values);

/* An MLP RPE fitted so that RPE(t) lambda^|t| ~ y at the lags t: the hidden
 * layers keep their seeded PyTorch initialisation (random features) and the
 * output layer (width weights + bias) is the least-squares solution. The
 * returned MLP has one output; destroy it with skit_mlp_destroy.
 * Errors: SKIT_EINVAL, SKIT_EDOM, SKIT_ENONFINITE, SKIT_ENOMEM, SKIT_ELIBRARY. */
int skit_tnn_rpe_fit(skit_mlp **rpe, size_t width, size_t hidden_layers,
                     skit_activation activation, skit_norm norm, uint64_t seed, double lambda,
                     size_t count, const double *t, const double *y);

/* ====================================================================== */
/* K5 — Theorem 1 evaluator                                                 */
/* ====================================================================== */

/* Theorem 1 (SKI to go Faster, Appendix D), with A nonsingular and k C^{N+1}:
 *   ||E_SKI||_2 <= sqrt(n r) psi L ((N+1) sqrt(n) + min(s1(F), s1(B)) / s_r(A))
 *                  + ||E_nyst||_2,
 * E_SKI = W A W^T - T_opt, E_nyst = F A^{-1} B - T_opt, T_opt the best rank-r
 * approximation of T, psi = max_i |psi_N(x_i)| / (N+1)!, psi_N(x) the product
 * of (x - p) over the N+1 inducing points p used for x (the paper writes the
 * product over N points, but its linear example (x - p_A)(x - p_B)/2 <= h^2/8
 * and Lagrange's remainder use all N+1), and L >= |k^(N+1)| over the lags
 * the proof evaluates.
 *
 * The proof's chain, each level >= the previous one when its premises hold:
 *  chain[0] ||E_SKI||                                          measured
 *  chain[1] ||W A W^T - F A^-1 B|| + ||E_nyst||                triangle inequality
 *  chain[2] min(||W|| ||WA-F|| + ||F A^-1|| ||AW^T-B||,         eqs. (1), (2)
 *               ||W|| ||AW^T-B|| + ||A^-1 B|| ||WA-F||) + ||E_nyst||
 *  chain[3] as [2] with ||F A^-1|| -> s1(F)/s_r(A), ||A^-1 B|| -> s1(B)/s_r(A)
 *  chain[4] as [3] with the spectral norms of WA-F, AW^T-B -> Frobenius norms
 *  chain[5] as [4] with both Frobenius norms -> sqrt(n r) psi L    (interpolation)
 *  chain[6] as [5] with ||W||_2 -> sqrt(n) ||W||_inf
 *  chain[7] as [6] with ||W||_inf -> N+1: the theorem's right-hand side
 * A^-1 is computed as the pseudo-inverse with tolerance pinv_rtol. For the
 * Keys cubic scheme (exact for quadratics, N = 2) psi is replaced by the
 * Taylor-remainder factor max_i sum_l |w_il| |p_l - x_i|^3 / 3!, valid for
 * any quadratic-exact W; for the authors' schemes (no polynomial exactness)
 * chain[5..7], psi and the right-hand side are NaN. */
#define SKIT_THEOREM1_CHAIN 8

typedef struct skit_theorem1_terms {
    size_t n, r, degree;    /* degree N (polynomial exactness of W) */
    size_t width;           /* stored nonzeros per row of W */
    double spacing;         /* h */
    double lag_lo, lag_hi;  /* lags over which L bounds k^(N+1) */
    /* errors */
    double e_ski;           /* ||W A W^T - T_opt||_2 */
    double e_nyst;          /* ||F A^+ B - T_opt||_2 */
    double ski_error;       /* ||T - W A W^T||_2 */
    double nystrom_error;   /* ||T - F A^+ B||_2 */
    double sigma_next;      /* sigma_{r+1}(T) = ||T - T_opt||_2 */
    double t_norm;          /* ||T||_2 */
    double ski_nystrom;     /* ||W A W^T - F A^+ B||_2 */
    double ski_norm;        /* ||W A W^T||_2: how much low-rank term W keeps */
    size_t w_rows_alive;    /* rows of W with some |w| > 1e-6 */
    size_t w_rows_outside;  /* rows of W with a weight outside [0, 1] */
    /* singular values */
    double sigma1_f, sigma1_b, sigma1_a, sigma_r_a;
    size_t a_rank;          /* numerical rank of A used by the pseudo-inverse */
    /* the chain's factors */
    double w_norm;          /* ||W||_2 */
    double w_inf;           /* ||W||_inf (max row sum of |w|) */
    double w_max_abs;       /* max |w_il| */
    double wa_f, wa_f_frobenius;     /* ||W A - F||_2, _F */
    double awt_b, awt_b_frobenius;   /* ||A W^T - B||_2, _F */
    double wa_f_max_entry;  /* max |(W A - F)_ij| and of A W^T - B: what psi L bounds */
    double f_ainv;          /* ||F A^+||_2 */
    double ainv_b;          /* ||A^+ B||_2 */
    double psi;             /* max_i |psi_N(x_i)| / (N+1)! */
    double psi_linear_h2_8; /* h^2 / 8, the paper's linear-interpolation value */
    double lipschitz;       /* L */
    skit_bound_kind lipschitz_kind;
    double interp_bound;    /* sqrt(n r) psi L */
    double chain[SKIT_THEOREM1_CHAIN];
    double rhs;             /* = chain[7], the theorem's right-hand side */
    double rhs_valid;       /* = chain[6]: the bound without the ||W||_inf <= N+1 step */
    /* premises (1 = holds) */
    int a_nonsingular;      /* sigma_r(A) > pinv tolerance */
    int smooth;             /* k is C^{N+1} over the whole lag range (the paper's hypothesis) */
    int entrywise_valid;    /* the remainder formula applies to every entry of WA - F and
                               AW^T - B (no non-smooth point of k inside a stencil) */
    int w_inf_le_n1;        /* ||W||_inf <= N+1 (the last step's premise) */
    int holds;              /* 1: e_ski <= rhs, 0: violated, -1: no rhs (authors' W) */
    int loosest_step;       /* k in 1..7 maximising chain[k] / chain[k-1] */
} skit_theorem1_terms;

/* Names of chain steps 1..7 ("triangle", "eq1_eq2", "sigma_ratio",
 * "frobenius", "interpolation", "w_2_to_inf", "w_inf_to_N+1"); "" otherwise. */
const char *skit_theorem1_step_name(int step);

typedef struct skit_theorem1 skit_theorem1;

/* Precompute T = [k(i - j)] and its SVD for one kernel and n (O(n^3)); the
 * kernel is borrowed. Errors: SKIT_EINVAL, SKIT_EDOM (n < 2), SKIT_ETOOBIG
 * (memory estimate ~ 10 n^2 doubles), SKIT_ENOMEM, SKIT_ELIBRARY. */
int skit_theorem1_create(skit_theorem1 **ctx, const skit_kernel *kernel, size_t n,
                         skit_norm_method method);
/* Every term for r inducing points and the interpolation `options`.
 * pinv_rtol < 0 selects r * eps. r = n is allowed (then T_opt = T and
 * sigma_{r+1} = 0). Errors: SKIT_EINVAL, SKIT_EDOM (r < 2, r > n, degree,
 * interval, gamma), SKIT_ENOMEM, SKIT_ELIBRARY, SKIT_ENOCONV (Lanczos). */
int skit_theorem1_evaluate(skit_theorem1 *ctx, size_t r, const skit_interp_options *options,
                           double pinv_rtol, skit_theorem1_terms *terms);
void skit_theorem1_destroy(skit_theorem1 *ctx);

/* The size in bytes of this header's public struct `name` (e.g. "skit_derivative_bound"),
 * 0 for any other name: bindings that mirror the structs (python/skit)
 * check their layout against it when they load, so a field added here
 * cannot shift theirs unnoticed. */
size_t skit_ski_struct_size(const char *name);

SKIT_END_DECLS
#endif
