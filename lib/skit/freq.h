/* skit/freq.h — the frequency domain of ski-to-go-faster §3.3 and §4.2:
 * discrete Hilbert transform, causal kernels from a real frequency response,
 * FD-TNO plans (Algorithm 2 and its bidirectional form), and the
 * smoothness-to-decay analysis of MLP frequency responses (Proposition 1,
 * Theorems 2–4, Proposition 4). SPEC H1–H3, D3–D4; the MLP itself (D1–D2)
 * is skit/mlp.h.
 *
 * Conventions (used by every function below)
 *  - DTFT: k̂(ω) = Σ_m k[m] e^{-iωm}; inverse k[n] = (1/2π) ∫_{-π}^{π}
 *    k̂(ω) e^{iωn} dω (the paper's Definitions 2 and 3).
 *  - A sampled spectrum of length n holds one period: x[m] = k̂(ω_m),
 *    ω_m = 2πm/n, m = 0..n-1 (bins m > n/2 are the negative frequencies
 *    ω_m - 2π). Its impulse response is the inverse DFT
 *    k[t] = (1/n) Σ_m x[m] e^{+2πimt/n}, t = 0..n-1, which equals the DTFT
 *    inverse aliased with period n. Lag t with 2t > n is the negative lag
 *    t - n; for even n, lag n/2 is both +n/2 and -n/2 and counts as causal.
 *  - Hilbert transform sign: H{cos ω} = sin ω, i.e. H multiplies the
 *    component e^{-iωt} of lag t by i·sign(t) (0 at lag 0 and, for even n,
 *    at lag n/2); equivalently the DFT bin q of the samples by -i·sign(q).
 *    No other scaling. With it, k̂ - i·H{k̂} has the impulse response
 *    k_e[0] at lag 0, 2·k_e[t] at lags 0 < t < n/2, k_e[n/2] at n/2 and 0 at
 *    negative lags, where k_e is the (even) impulse response of k̂: the
 *    paper's k̂_causal = k̂ - i·H{k̂}.
 *  - Definition 1 (h[l] = 2/(πl) for odd l, 0 for even l) acts on the
 *    spectrum index m: H{x}[m] = Σ_l h[l] x[m - l], over the periodic
 *    extension of the samples. Its multiplier is exactly -i·sign on
 *    (-π, π), so summed over all l it equals the FFT method for every n.
 *    skit truncates the sum at |l| <= L (the lag window); with L = n/2 (one
 *    period, O(n²)) the lowest harmonics overshoot by up to
 *    (2/π)·Si(π) - 1 ≈ 17.9% (Gibbs) no matter how large n is; the error
 *    falls like n/L as L grows. `skit hilbert sweep` measures this.
 */
#ifndef SKIT_FREQ_H
#define SKIT_FREQ_H

#include "skit/core.h"
#include "skit/mlp.h"
#include "skit/toeplitz.h"

SKIT_BEGIN_DECLS

/* ---- discrete Hilbert transform (H1, H2) ------------------------------ */

typedef enum skit_hilbert_method {
    SKIT_HILBERT_FFT = 0,       /* multiplier -i·sign(lag) on the DFT: exact, O(n log n) */
    SKIT_HILBERT_DEFINITION = 1 /* Σ_{|l| <= L, l odd} 2/(πl) x[m-l]: O(n² + L) */
} skit_hilbert_method;

/* Largest lag window accepted by the definition method (folding the kernel
 * costs O(L): 2^32 terms take seconds). */
#define SKIT_HILBERT_MAX_LAG_WINDOW ((size_t)1 << 32)

/* y = H{x} for one period of n real samples (see Conventions).
 * lag_window: for SKIT_HILBERT_DEFINITION the truncation L of the kernel
 * sum (0 means L = floor(n/2), one period); ignored by SKIT_HILBERT_FFT.
 * The definition is evaluated in O(L) by folding the kernel onto one
 * period, then O(n²) for the circular convolution. y may not alias x.
 * Errors: SKIT_EINVAL (NULL, unknown method), SKIT_EDOM (n = 0,
 * lag_window > SKIT_HILBERT_MAX_LAG_WINDOW), SKIT_ENONFINITE (x),
 * SKIT_EOVERFLOW (an element of y beyond the double range: samples near
 * DBL_MAX are scaled by a power of two inside, so only a result that
 * cannot be represented fails),
 * SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY (FFTW planning failed). */
int skit_hilbert_transform(size_t n, const double *x, double *y, skit_hilbert_method method,
                           size_t lag_window);

/* skit_hilbert_transform's FFT method in float32 on float arrays: the
 * circular convolution with multiplier -i sign(q) on the float circulant
 * engine (fftwf, the engine of FD-TNO's float path), the multiplier
 * written exactly into its spectrum. Against the float64 transform of the
 * same samples (tests/test_freq.c checks it)
 *     ||y32 - y64||_2 <= 20 log2(2n) u ||x||_2,   u = 2^-24,
 * the bound of skit_toeplitz_plan_execute_f32 with ||H||_2 = 1 (FFTW's
 * transforms are backward stable with O(log n u) error; prime n runs
 * FFTW's Rader/Bluestein transforms, also held to it by the tests). The
 * bound is normwise: elements far below it, subnormals among them, may
 * come back zero (skit_precision, skit/core.h).
 * Errors: as skit_hilbert_transform (no method, no lag window). */
int skit_hilbert_transform_f32(size_t n, const float *x, float *y);

/* The causal spectrum from a real response: re = x, im = -H{x}, i.e.
 * k̂_causal = x - i·H{x}. x should be even (x[m] = x[n-m]) for the kernel
 * to be real; it need not be (then the kernel is complex, still causal up
 * to the method's error). re, im: n values each (re may alias x).
 * Errors: as skit_hilbert_transform. */
int skit_hilbert_causal_spectrum(size_t n, const double *x, skit_hilbert_method method,
                                 size_t lag_window, double *re, double *im);

/* Impulse response of one period of a complex spectrum re + i·im (inverse
 * DFT, see Conventions). k_re, k_im: n values each (k_im may be NULL when
 * the caller only wants the real part). im may be NULL (a real spectrum).
 * Errors: SKIT_EINVAL (NULL re/k_re), SKIT_EDOM (n = 0), SKIT_ENONFINITE,
 * SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY. */
int skit_spectrum_impulse(size_t n, const double *re, const double *im, double *k_re,
                          double *k_im);

/* Causality residual of an impulse response k (n lags, see Conventions):
 * Σ_{negative lags} |k|² / Σ_all |k|² (0 for an all-zero k). k_im may be
 * NULL. Errors: SKIT_EINVAL (NULL), SKIT_EDOM (n = 0), SKIT_ENONFINITE. */
int skit_causality_residual(size_t n, const double *k_re, const double *k_im,
                            double *residual);

/* ---- FD-TNO (H3): Algorithm 2 and the bidirectional FD operator ------- */

/* Plan y_c = T_c x_c for d channels of length n where T_c is defined by a
 * frequency response sampled on the rfft grid ω_m = 2πm/N, m = 0..N/2
 * (the FD-TNO code evaluates its RPE MLP at these raw ω; N is the FFT
 * length). No decay bias (as in the code).
 *  - SKIT_CAUSAL (Algorithm 2): the response is the real part R_c(ω_m);
 *    the kernel spectrum is R - i·H{R} by the FFT method, so the operator
 *    is the lower-triangular Toeplitz matrix of the causal impulse response
 *    (R's even impulse response doubled at lags 1..N/2-1). Lag N/2 is kept
 *    once; the FD-TNO code doubles it; it never reaches the output since
 *    N >= 2n.
 *  - SKIT_BIDIRECTIONAL: the response is complex, R_c + i·I_c (the RPE's
 *    2d outputs: real parts first, then imaginary parts); I_c is forced to
 *    0 at ω = 0 and ω = π so that the kernel is real. The operator is the
 *    full Toeplitz matrix t_l = k_c[l mod N], |l| < n, k_c = irfft(R + iI).
 * The kernel starts as zero (set it before executing). */
typedef struct skit_fdtno_plan skit_fdtno_plan;

typedef struct skit_fdtno_options {
    skit_causality causality; /* default SKIT_BIDIRECTIONAL */
    /* 0 (the default) selects the FD-TNO code's N = next power of two
     * >= 2n; otherwise an even N >= 2n. */
    size_t fft_length;
    /* Arithmetic (default SKIT_PRECISION_F64). SKIT_PRECISION_F32: fftwf
     * plans and float spectra only (no float64 engine); execute with
     * skit_fdtno_plan_execute_f32. */
    skit_precision precision;
    /* How FFTW plans the transforms (skit/fft.h; default
     * SKIT_PLANNER_DEFAULT, the process default). */
    skit_planner planner;
    /* How execute reads x and writes y (skit/core.h; default
     * SKIT_LAYOUT_COLUMNS). SKIT_LAYOUT_ROWS: row-major n x d data,
     * ldx, ldy >= d, read and written in place. */
    skit_layout layout;
} skit_fdtno_options;

/* The defaults above. Does nothing if options is NULL. */
void skit_fdtno_options_default(skit_fdtno_options *options);

/* options: NULL for the defaults.
 * Errors: SKIT_EINVAL (NULL plan; unknown causality, precision,
 * planner or layout), SKIT_EDOM (n or d = 0, n > 2^30, fft_length odd or < 2n or
 * > 2^31), SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY. */
int skit_fdtno_plan_create(skit_fdtno_plan **plan, size_t n, size_t d,
                           const skit_fdtno_options *options);
void skit_fdtno_plan_destroy(skit_fdtno_plan *plan);

size_t skit_fdtno_plan_fft_length(const skit_fdtno_plan *plan);
/* N/2 + 1: the number of frequencies of the grid. */
size_t skit_fdtno_plan_grid_size(const skit_fdtno_plan *plan);
/* Values per frequency set_response expects: d (causal) or 2d. */
size_t skit_fdtno_plan_response_width(const skit_fdtno_plan *plan);
/* The plan's precision (SKIT_PRECISION_F64 for NULL). */
skit_precision skit_fdtno_plan_precision(const skit_fdtno_plan *plan);
/* The grid ω_m (grid_size values). Errors: SKIT_EINVAL (NULL). */
int skit_fdtno_plan_grid(const skit_fdtno_plan *plan, double *omega);

/* Set the kernels from a sampled response: response is grid_size x
 * response_width row-major (what skit_mlp_eval writes for the grid):
 * response[m*width + c] = R_c(ω_m); bidirectional: response[m*width + d + c]
 * = I_c(ω_m). Computes the kernel spectra (Hilbert step for causal);
 * allocates nothing. A float32 plan takes the response in double too: its
 * spectra are the response scaled by 1/N in double and rounded to float
 * once, and a causal plan's Hilbert step runs on them in float (fftwf).
 * On error the previous kernels are kept.
 * Errors: SKIT_EINVAL (NULL), SKIT_ENONFINITE. */
int skit_fdtno_plan_set_response(skit_fdtno_plan *plan, const double *response);

/* Evaluate an MLP (in_dim 1, out_dim = response_width) on the grid and set
 * the response from it. Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE (in_dim or
 * out_dim wrong), SKIT_ENONFINITE (MLP output), SKIT_ENOMEM. */
int skit_fdtno_plan_set_mlp(skit_fdtno_plan *plan, const skit_mlp *mlp);

/* The time-domain kernels the plan applies: k is N x d column-major
 * (ldk >= N), k[t + c*ldk] = kernel of channel c at circular lag t
 * (negative lag -l at t = N - l). A float32 plan gives its float kernels
 * (the float inverse transform of its float spectra) widened to double.
 * Errors: SKIT_EINVAL, SKIT_ESHAPE. */
int skit_fdtno_plan_impulse(const skit_fdtno_plan *plan, double *k, size_t ldk);

/* Bytes of the workspace execute may take from its caller, and the bytes
 * the plan holds (a float32 plan's are about half a float64 plan's). */
size_t skit_fdtno_plan_workspace_bytes(const skit_fdtno_plan *plan);
size_t skit_fdtno_plan_bytes(const skit_fdtno_plan *plan);

/* y(:, c) = T_c x(:, c), c = 0..d-1: x and y are n x d column-major with
 * leading dimensions ldx, ldy >= n (rows layout: row-major, ldx, ldy >=
 * d); y may alias x when ldx == ldy.
 * Channels run in parallel (OpenMP).
 * work: NULL, or skit_fdtno_plan_workspace_bytes(plan) bytes from
 * skit_malloc (64-byte aligned, as FFTW needs). Thread-safe either way:
 * without work the plan lends its own workspace to one call at a time and
 * a concurrent call allocates one for its duration; a call with work, or
 * alone, allocates nothing. NaN/Inf in x propagate to the same channel of
 * y. Not to be called while set_response or set_mlp runs on the plan.
 * Errors: SKIT_EINVAL (NULL, misaligned work; a float32 plan: use the _f32
 * form), SKIT_ESHAPE (ldx or ldy < n; rows layout: < d), SKIT_ENOMEM (a concurrent call
 * without work). */
int skit_fdtno_plan_execute(const skit_fdtno_plan *plan, const double *x, size_t ldx, double *y,
                            size_t ldy, void *work);

/* The same product on a plan created with precision SKIT_PRECISION_F32, on
 * float arrays, computed in float (work: that plan's
 * skit_fdtno_plan_workspace_bytes). Against the float64 plan with the same
 * options and response on the same (float) x, per channel
 * (tests/test_freq.c checks it), with u = 2^-24, k_c the float64 plan's
 * kernel (skit_fdtno_plan_impulse) and N the FFT length,
 *     ||y32 - y64||_2 <= u (20 log2(2N) ||k_c||_1 + S_c) ||x_c||_2,
 *     S_c = ||k_c||_1                             (bidirectional),
 *     S_c = (20 log2(2N) + 2) sqrt(n) ||k_c||_2   (causal).
 * The first term is the float products' (skit_toeplitz_plan_execute_f32:
 * FFTW's transforms are backward stable with error O(log2 N u), Higham,
 * Accuracy and Stability, Thm 24.2, and the circulant's 2-norm is at most
 * ||k_c||_1). S_c is the rounding of the spectra; with Δλ the difference
 * of the two plans' eigenvalues (the N-point DFTs of their kernels) and R
 * the real part on the whole circle: bidirectional, each spectrum value
 * is rounded once, |Δλ_m| <= u |λ_m| <= u ||k_c||_1, and the operator's
 * 2-norm is at most the circulant's, max |Δλ_m|. Causal: R rounded,
 * u ||R||_2, and the Hilbert transform of that rounding, u ||R||_2, plus
 * the float Hilbert step's own error, the bound of
 * skit_hilbert_transform_f32 on the N-point circle, 20 log2(2N) u ||R||_2,
 * where ||R||_2 <= ||λ||_2 = sqrt(N) ||k_c||_2 (Parseval); the n x n block
 * of a circulant with kernel Δk has Frobenius norm at most sqrt(n)
 * ||Δk||_2 = sqrt(n / N) ||Δλ||_2.
 * Errors: as skit_fdtno_plan_execute; SKIT_EINVAL on a float64 plan. */
int skit_fdtno_plan_execute_f32(const skit_fdtno_plan *plan, const float *x, size_t ldx, float *y,
                                size_t ldy, void *work);

/* ---- frequency responses of MLPs and their decay (D3, D4) -------------- */

/* How a frequency response k̂ on the circle is built from an MLP f. */
typedef enum skit_freq_construction {
    /* The FD-TNO code: f (in_dim 1) sampled at raw ω on [0, π] and inverted
     * with a real inverse FFT, i.e. k̂(ω) = f(|ω|), the even extension:
     * continuous and 2π-periodic, but its odd derivatives jump at 0 and π
     * unless f'(0) = f'(π) = 0. Kernel real and even. */
    SKIT_FREQ_HALF_CIRCLE = 0,
    /* f (in_dim 1) sampled at raw ω on [-π, π): k̂(ω) = f(ω), which jumps
     * at ±π unless f(π) = f(-π). The inverse DFT uses the trapezoid rule
     * (the sample at -π is (f(-π) + f(π))/2). Kernel complex,
     * k[-n] = conj(k[n]). */
    SKIT_FREQ_FULL_CIRCLE = 1,
    /* f (in_dim 2) of the periodic features: k̂(ω) = f(cos ω, sin ω):
     * 2π-periodic and as smooth as the MLP. Kernel complex, k[-n] =
     * conj(k[n]). */
    SKIT_FREQ_PERIODIC = 2
} skit_freq_construction;

/* "half-circle (FD-TNO code)", "full-circle", "periodic (cos, sin)";
 * "unknown" otherwise. */
const char *skit_freq_construction_name(skit_freq_construction construction);
/* Short tokens for the CLI: "half", "full", "periodic". */
const char *skit_freq_construction_token(skit_freq_construction construction);

/* Samples of the construction's response for plotting: `count` equally
 * spaced ω on its domain ([0, π] inclusive for HALF_CIRCLE, [-π, π) else):
 * omega (count values) and response (count x out_dim row-major).
 * Errors: SKIT_EINVAL (NULL, unknown construction), SKIT_EDOM (count < 2),
 * SKIT_ESHAPE (in_dim does not suit the construction), SKIT_ENOMEM. */
int skit_freq_response(const skit_mlp *mlp, skit_freq_construction construction, size_t count,
                       double *omega, double *response);

/* Impulse response of every output channel from N samples of the
 * response on the circle (inverse FFT, see Conventions). k_re, k_im are
 * N x out_dim column-major: k_re[t + c*N] is channel c at circular lag t.
 * k_im may be NULL (it is identically 0 for HALF_CIRCLE).
 * N: 4 <= N <= 2^26, even.
 * Errors: SKIT_EINVAL, SKIT_EDOM (N), SKIT_ESHAPE (in_dim), SKIT_ENONFINITE
 * (MLP output), SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY. */
int skit_freq_impulse(const skit_mlp *mlp, skit_freq_construction construction, size_t N,
                      double *k_re, double *k_im);

/* The impulse response of the PERIODIC construction k̂(ω) = f(cos ω, sin ω)
 * with every operation in extended precision (ski-to-go-faster Theorem 2:
 * decay followed below double's rounding floor): the MLP (its double
 * weights taken exactly) at ω_m = 2πm/N, m = 0..N-1, and the DFT
 * k[n] = (1/N) Σ_m k̂(ω_m) e^{iω_m n} for n = 0..lags, rounded to double
 * only at the end. The rounding floor is about
 * skit_freq_extended_epsilon() x max|k̂| instead of double's 1e-16; the
 * aliasing error is Σ_{j≠0} k[n + jN], which comparing N with 2N bounds.
 * k_re, k_im: (lags + 1) x out_dim column-major (k_re[n + c*(lags + 1)]).
 * N: even, 4..2^20; lags < N/2. Cost: N MLP evaluations and
 * (lags + 1) N products per channel in software arithmetic (libquadmath).
 * Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE (in_dim != 2), SKIT_EDOM (N,
 * lags), SKIT_ETOOBIG, SKIT_ENOMEM. */
int skit_freq_impulse_extended(const skit_mlp *mlp, size_t N, size_t lags, double *k_re, double *k_im);

/* The unit roundoff of that extended type: 2^-112 (__float128, skit built
 * with libquadmath), else long double's (2^-63 on x86). */
double skit_freq_extended_epsilon(void);

/* The N samples on one period whose inverse DFT skit_freq_impulse takes:
 * values is N x out_dim column-major, values[m + c*N] = k̂_c(ω_m) with
 * ω_m = 2πm/N (HALF_CIRCLE: f(ω_m) for m <= N/2 mirrored evenly;
 * PERIODIC: f(cos ω_m, sin ω_m)) or ω_m = -π + 2πm/N (FULL_CIRCLE, the
 * value at -π replaced by (f(-π) + f(π))/2). Use with
 * skit_parseval_difference. Errors: as skit_freq_impulse. */
int skit_freq_circle_samples(const skit_mlp *mlp, skit_freq_construction construction, size_t N,
                             double *values);

/* (1/2π) ∫_{-π}^{π} |k̂(ω)|² dω for every channel (energy: out_dim values),
 * by the composite midpoint rule with `nodes` nodes on the construction's
 * interval: by Parseval (Theorem 4) this is Σ_n |k[n]|².
 * Errors: SKIT_EINVAL, SKIT_EDOM (nodes < 2 or > 2^26), SKIT_ESHAPE,
 * SKIT_ENONFINITE, SKIT_ENOMEM. */
int skit_freq_energy(const skit_mlp *mlp, skit_freq_construction construction, size_t nodes,
                     double *energy);

/* ‖k̂^{(N)}‖₁ = ∫_{-π}^{π} |d^N k̂/dω^N| dω for N = 0..max_order and every
 * output channel, all from one Taylor-mode pass (skit_mlp_taylor's
 * arithmetic): norms is (max_order+1) x out_dim row-major,
 * norms[N*out_dim + c]. Quadrature: composite midpoint rule with `nodes`
 * nodes on [-π, π] (HALF_CIRCLE: `nodes` nodes on [0, π], doubled by
 * symmetry). These are pointwise derivatives: the jumps of the even
 * extension's odd derivatives at 0 and π (HALF_CIRCLE) and the jump of k̂
 * at ±π (FULL_CIRCLE) are not included; that is exactly where Proposition
 * 4's hypothesis fails for those constructions. ReLU: one-sided
 * derivatives (exact a.e.; 0 for N >= 2 without a norm). Error of the rule:
 * O(nodes^-2) where |k̂^{(N)}| is smooth, O(nodes^-1) next to its kinks.
 * Errors: SKIT_EINVAL, SKIT_EDOM (max_order > 16, nodes < 2 or > 2^24, or
 * from the MLP's Taylor mode), SKIT_ESHAPE (in_dim), SKIT_ENOMEM. */
int skit_freq_derivative_norms(const skit_mlp *mlp, skit_freq_construction construction,
                               size_t max_order, size_t nodes, double *norms);

/* Theorem 3 / Proposition 4 bound ‖k̂^{(N)}‖₁ / (2π |n|^N) for n != 0
 * (infinite at n = 0); for N = 0 Lemma 6's ‖k̂‖₁ / 2π at every n. */
double skit_decay_bound(double derivative_norm, size_t order, size_t n);

/* Decay-rate fit of magnitudes |k[n]|, n = 0..count-1, over n_lo..n_hi.
 * The fit uses the upper envelope e[n] = max_{n <= j <= n_hi} |k[j]|
 * (robust to zero crossings) and only the n with e[n] > floor (the
 * rounding floor of the data); least squares on
 *   log e[n] = c - rate·n              (exponential), and
 *   log e[n] = c - exponent·log n      (polynomial),
 * each with the RMS of its residuals (natural log). The exponential rate
 * is also fitted on the first and second halves of the range: a second-half
 * rate well above the first-half rate means faster than exponential. */
typedef struct skit_decay_fit {
    size_t n_lo, n_hi;          /* the range actually fitted (after the floor) */
    size_t points;              /* n_hi - n_lo + 1; 0 if fewer than 4 usable */
    double exp_rate;            /* a in e ~ exp(-a n) */
    double exp_residual;        /* RMS residual of log e */
    double poly_exponent;       /* p in e ~ n^-p */
    double poly_residual;
    double rate_first_half, rate_second_half;
    double exponent_first_half, exponent_second_half;
} skit_decay_fit;

typedef enum skit_decay_class {
    SKIT_DECAY_UNDETERMINED = 0,   /* fewer than 4 points above the floor */
    SKIT_DECAY_POLYNOMIAL = 1,     /* log-log fits better; exponent stable */
    SKIT_DECAY_EXPONENTIAL = 2,    /* log-linear fits better; rate stable */
    SKIT_DECAY_SUPEREXPONENTIAL = 3 /* log-linear, second-half rate >= 1.5x first */
} skit_decay_class;

/* Errors: SKIT_EINVAL (NULL), SKIT_EDOM (need 1 <= n_lo < n_hi < count,
 * floor >= 0), SKIT_ENONFINITE. A range with fewer than 4 usable points
 * is not an error: fit->points = 0. */
int skit_decay_fit_magnitudes(size_t count, const double *magnitude, size_t n_lo, size_t n_hi,
                              double floor, skit_decay_fit *fit);
/* Classification of a fit (rule in the enum comments). */
skit_decay_class skit_decay_classify(const skit_decay_fit *fit);
const char *skit_decay_class_name(skit_decay_class c);

/* Parseval check for one channel: relative difference between
 * Σ_t |k[t]|² and (1/N) Σ_m |x[m]|² where x = DFT of k (N samples,
 * re/im of the spectrum, im may be NULL). Errors: SKIT_EINVAL, SKIT_EDOM
 * (N = 0), SKIT_ENONFINITE. */
int skit_parseval_difference(size_t N, const double *spec_re, const double *spec_im,
                             const double *k_re, const double *k_im, double *relative_difference);

/* The size in bytes of this header's public struct `name` (e.g. "skit_fdtno_options"),
 * 0 for any other name: bindings that mirror the structs (python/skit)
 * check their layout against it when they load, so a field added here
 * cannot shift theirs unnoticed. */
size_t skit_freq_struct_size(const char *name);

SKIT_END_DECLS
#endif
