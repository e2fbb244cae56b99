/* skit/tno.h — token-mixing operators of Toeplitz neural networks behind one
 * plan interface: TNO (TNN §3: RPE MLP over raw integer lags, exponential
 * decay bias, per-channel Toeplitz product by FFT), SKI-TNO (ski-to-go-faster
 * Algorithm 1: m-tap sparse convolution + SKI low-rank part with the
 * piecewise-linear RPE and inverse time warp; causal by the cumulative sums
 * of its Appendix B) and FD-TNO (Algorithm 2 and its bidirectional form).
 *
 * Data. An operator mixes tokens along n for each of d channels, batch
 * sequences at a time. x and y hold batch * n * d doubles in one of two
 * layouts (both C order, i.e. the last index varies fastest):
 *   SKIT_TNO_ROWS      (batch, n, d): element (b, i, c) at x[(b*n + i)*d + c].
 *                      A contiguous PyTorch tensor of shape (B, N, D) as a
 *                      TNN layer receives it; the default.
 *   SKIT_TNO_CHANNELS  (batch, d, n): element (b, i, c) at x[(b*d + c)*n + i].
 *                      Each channel contiguous, the form the FFTs read; in
 *                      ROWS the FFT paths gather groups of channels from the
 *                      rows into their FFT buffers and scatter the outputs
 *                      back (no transposed copy, but strided access: `skit
 *                      bench tno --layout channels` measures the difference).
 *                      SKI-TNO works natively in ROWS.
 * Channel c of sequence b is mixed by the n x n matrix T_c: y_c = T_c x_c,
 * T_c(i, j) = k_c(i - j) for TNO and FD-TNO (Toeplitz), and
 * T_c = S_c + W A_c W^T for SKI-TNO (S_c the band of the convolution taps),
 * restricted to its lower triangle (j <= i) when causal.
 *
 * Operators and their parameters (one flat vector per plan; see
 * skit_tno_plan_parameter_count, skit_tno_get/set_parameters):
 *  TNO   k_c(t) = RPE_c(t) * lambda^|t| for the integer lags |t| <= n-1; the
 *        RPE is an skit_mlp 1 -> d evaluated at the raw lag t (no
 *        normalisation, as the TNN code); lag 0 is not decayed (lambda^0 = 1);
 *        lambda = 1 means no decay. Causal: only lags 0..n-1 are evaluated
 *        and the operator is lower triangular. Parameters: the MLP's vector
 *        (skit/mlp.h layout: each Linear layer's weight (out x in, row-major)
 *        then bias), i.e. what
 *        torch.cat([p.flatten() for p in rpe.parameters()]) gives for TNN's
 *        Rpe module.
 *  FD    the kernel is given by its frequency response, an skit_mlp
 *        1 -> d (causal) or 1 -> 2d (bidirectional: d real parts then d
 *        imaginary parts) evaluated at the raw frequencies of the rfft grid
 *        ω_m = 2πm/N, m = 0..N/2 (N = fft_length, default the next power of
 *        two >= 2n, as the FD-TNN code); see skit_fdtno_plan_create in skit/freq.h
 *        for the Hilbert step and the forced-real endpoints. No decay bias.
 *        Parameters: the MLP's vector.
 *  SKI   k_c(t) = f_c(sign(t) lambda^|t|) (inverse time warp, sign(0) = +1)
 *        with f_c piecewise linear on the knots z_j = j/K, j = -K..K,
 *        f_c(0) = 0 (skit_kernel_warped_linear_create), A_c(i, j) =
 *        k_c(p_i - p_j) at r inducing points p_j = j (n-1)/(r-1), W the linear
 *        interpolation weights of the tokens 0..n-1 on them (two nonzeros per
 *        row, in [0, 1], rows sum to 1), and the band S_c(i, j) =
 *        taps_c[(i - j) + (m-1)/2] for |i - j| <= (m-1)/2 (m odd: a centred
 *        1-D convolution). Parameters: the knot values, d x 2K row-major
 *        (channel c's f_c(z_{-K})..f_c(z_{-1}), f_c(z_1)..f_c(z_K) at c*2K),
 *        then the taps, d x m row-major (channel c's tap for lag l at
 *        c*m + l + (m-1)/2: PyTorch's depthwise Conv1d weight (d, 1, m) after
 *        flipping each filter, since Conv1d correlates).
 *        Bidirectional: y = S x + W (A (W^T x)), A applied by FFT:
 *        O(n m + n + r log r) per channel. Causal (Appendix B):
 *        y_i = sum_{j <= i} (S(i, j) + w_i^T A w_j) x_j by the running sum
 *        s_i = s_{i-1} + w_i x_i, y_i = w_i^T A s_i: O(n r) per channel
 *        and sequential in i — the algorithm the paper measured; or, with
 *        causal_ski = SKIT_TNO_CAUSAL_BLOCKED, the same sums grouped by
 *        interpolation bracket: O(n + r^2) per channel (the default,
 *        SKIT_TNO_CAUSAL_AUTO, takes whichever is faster at the shape).
 *
 * Seeded parameters: the MLP gets PyTorch's default Linear initialisation
 * (skit_mlp_create with the seed); SKI knot values are uniform on [-1, 1]
 * and taps uniform on [-1/sqrt(m), 1/sqrt(m)] (PyTorch's Conv1d default for
 * a depthwise filter), drawn from skit_rng streams of the seed.
 *
 * Plans follow FFTW: create (all setup: FFT plans, interpolation weights,
 * buffers, the kernels from the parameters), execute(const plan *) with the
 * cached kernels (thread-safe: many threads may execute one plan at once),
 * destroy. skit_tno_plan_forward recomputes the kernels from the
 * parameters and then executes: what a training step's forward pass costs,
 * and what the benchmarks time as "forward". Functions that change the
 * plan (set_parameters, update, forward, eval_rpe) and the inspection
 * functions (coeffs, dense, reference), which use the plan's scratch, must
 * not run while another call runs on the same plan.
 */
#ifndef SKIT_TNO_H
#define SKIT_TNO_H

#include "skit/core.h"
#include "skit/device.h"
#include "skit/mlp.h"
#include "skit/toeplitz.h"

SKIT_BEGIN_DECLS

typedef enum skit_tno_kind {
    SKIT_TNO_FFT = 0, /* TNO: RPE MLP + decay bias + FFT Toeplitz product */
    SKIT_TNO_SKI = 1, /* SKI-TNO: sparse band + SKI low rank (causal: cumulative sums) */
    SKIT_TNO_FD = 2   /* FD-TNO: frequency-domain RPE (causal: Hilbert) */
} skit_tno_kind;

typedef enum skit_tno_layout {
    SKIT_TNO_ROWS = 0,    /* (batch, n, d), PyTorch's (B, N, D) */
    SKIT_TNO_CHANNELS = 1 /* (batch, d, n) */
} skit_tno_layout;

/* Algorithm of causal SKI-TNO; both compute the lower triangle of
 * S + W A W^T exactly (in exact arithmetic). */
typedef enum skit_tno_causal_ski {
    /* Appendix B: running sums s_i = s_{i-1} + w_i x_i, y_i = w_i^T A s_i:
     * O(n r) per channel, sequential in i (the paper's algorithm) */
    SKIT_TNO_CAUSAL_CUMSUM = 0,
    /* tokens grouped by interpolation bracket: within a bracket a running
     * sum over its w (= 2) stencil rows, across brackets (A S_g) on the
     * stencil once per bracket: O(n w^2 + r^2 w^2) per channel */
    SKIT_TNO_CAUSAL_BLOCKED = 1,
    /* the plan picks (skit_tno_options_default's choice): BLOCKED when
     * n > 2r, else CUMSUM, since the blocked form's O(r^2 w^2) per channel
     * is amortised only once n outgrows r. The plan's options
     * (skit_tno_plan_options) then say which */
    SKIT_TNO_CAUSAL_AUTO = 2
} skit_tno_causal_ski;

typedef struct skit_tno_options {
    skit_tno_kind kind;
    skit_causality causality;
    skit_tno_layout layout;
    /* RPE MLP (FFT, FD): width, hidden layers (Linear(1, width), then
     * hidden_layers x [norm, act, Linear(width, width)], then norm, act,
     * Linear(width, out)), activation, norm. */
    size_t rpe_width;
    size_t rpe_layers;
    skit_activation activation;
    skit_norm norm;
    /* Decay lambda: TNO's bias lambda^|t| (0 < lambda <= 1) or SKI's time
     * warp sign(t) lambda^|t| (0 < lambda < 1). Ignored by FD. */
    double decay;
    /* SKI: inducing points r (2 <= r <= n), taps m (odd and <= 2n - 1, or 0
     * for no band: low rank only), knots per side K (1 <= K <= 2^20). */
    size_t rank;
    size_t taps;
    size_t knots;
    /* FD: FFT length N (0: next power of two >= 2n; else even, >= 2n). */
    size_t fft_length;
    /* Seed of the generated parameters. */
    uint64_t seed;
    /* Causal SKI-TNO algorithm (default SKIT_TNO_CAUSAL_AUTO). */
    skit_tno_causal_ski causal_ski;
    /* Where execute runs (default SKIT_DEVICE_CPU). SKIT_DEVICE_CUDA applies
     * the operator on the GPU in float64 (skit/cuda.h) through the same
     * calls, on host arrays (transfers included; the ROWS layout is
     * transposed on the host): TNO and FD-TNO as the batched cuFFT Toeplitz
     * product of their coefficients (skit_tno_plan_coeffs: for FD-TNO the
     * Toeplitz form of its circular product, equal up to rounding); SKI-TNO
     * bidirectional as band kernel + interpolation gather/scatter + cuFFT
     * for A. Causal SKI-TNO has no device path (SKIT_EUNSUPPORTED: its
     * running sums are sequential). The parameters, the RPE MLP and the
     * kernels stay on the CPU; update uploads the new kernels. */
    skit_device device;
    /* Arithmetic of execute (default SKIT_PRECISION_F64). SKIT_PRECISION_F32
     * (CPU): execute and forward take float arrays (skit_tno_plan_execute_f32
     * / _forward_f32) and compute in float. TNO and FD-TNO: the products
     * run on fftwf plans with float spectra, and update makes those
     * spectra in float32 from the RPE, which a ReLU RPE evaluates in float
     * too (the sweep of mlp/batch.h compiled for float; other activations
     * in float64, rounded). TNO at d <= 2 (h+1) with a ReLU RPE takes the
     * outputs per channel into kernels it transforms with fftwf
     * (describe: spectra=channels); otherwise TNO transforms the h+1
     * feature rows and FD-TNO takes them as they are (causal: the Hilbert
     * step with fftwf), and the output layer is applied by sgemm straight
     * into the float spectra (spectra=features). The plan builds no
     * float64 engine or feature buffer: the backward is
     * skit_tno_plan_backward_f32, and FD-TNO's coefficients come from the
     * float spectra. SKI-TNO (both forms, every causal_ski): update
     * evaluates the knots into A's coefficients in float64 and rounds
     * them, the taps and W's weights to float once; the band, W^T x, A's
     * product (bidirectional: an fftwf circulant engine; causal: the
     * running or blocked sums) and W v run in float, the same loops as
     * the float64 plan's; its backward is skit_tno_plan_backward_f32.
     * Device plans: SKIT_EUNSUPPORTED. */
    skit_precision precision;
    /* How FFTW plans the CPU transforms of every kind (skit/fft.h; default
     * SKIT_PLANNER_DEFAULT, the process default). */
    skit_planner planner;
} skit_tno_options;

/* Defaults (the papers' and reference code's settings where they exist):
 * bidirectional, ROWS; RPE width 64, 3 hidden layers, ReLU, RMS norm;
 * decay 0.99; r = 64, m = 17 taps, K = 32 knots per side; fft_length 0;
 * seed 1; causal SKI by Appendix B's running sums. kind is set to the
 * argument. Does nothing if options is NULL. */
void skit_tno_options_default(skit_tno_options *options, skit_tno_kind kind);

typedef struct skit_tno_plan skit_tno_plan;

/* Plan an operator for batch sequences of n tokens and d channels.
 * params: NULL to generate the parameters from options->seed (param_count
 *         ignored), or param_count values in the layout above, param_count
 *         as skit_tno_options_parameter_count(options, d) returns. Copied.
 * The plan's threads are OpenMP's maximum at create time.
 * Errors: SKIT_EINVAL (NULL plan or options, unknown kind / causality /
 *         layout / activation / norm / causal_ski), SKIT_EDOM (n, d or
 *         batch = 0; n or d > 2^30;
 *         rpe_width = 0 or rpe_layers > 64 for FFT/FD; decay outside (0, 1]
 *         for FFT or (0, 1) for SKI; SKI: r < 2, r > n, m even or > 2n - 1,
 *         K = 0 or > 2^20; FD: fft_length odd or < 2n), SKIT_ESHAPE
 *         (param_count differs from the plan's count), SKIT_ENONFINITE (NaN/Inf
 *         in params), SKIT_EOVERFLOW (sizes), SKIT_ETOOBIG (more memory than
 *         available), SKIT_ENOMEM, SKIT_ELIBRARY (FFTW planning or a CUDA
 *         library call failed), SKIT_EUNSUPPORTED (device = SKIT_DEVICE_CUDA
 *         with causal SKI-TNO, or no GPU here: "cuda: not built" /
 *         "cuda: no device (...)"); SKIT_EINVAL also for an unknown device. */
int skit_tno_plan_create(skit_tno_plan **plan, size_t n, size_t d, size_t batch,
                         const skit_tno_options *options, const double *params, size_t param_count);

void skit_tno_plan_destroy(skit_tno_plan *plan);

/* Number of parameters a plan with these options and d channels has
 * (0 and SKIT_EINVAL/SKIT_EDOM/SKIT_EOVERFLOW raised if they are invalid). */
int skit_tno_options_parameter_count(const skit_tno_options *options, size_t d, size_t *count);
size_t skit_tno_plan_parameter_count(const skit_tno_plan *plan);
/* Copy the parameters out / in (layout above). set recomputes the kernels;
 * on error the plan is unchanged.
 * Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE (count differs), SKIT_ENONFINITE
 * (NaN/Inf in params, or kernels that overflow as in skit_tno_plan_update). */
int skit_tno_plan_get_parameters(const skit_tno_plan *plan, double *params, size_t count);
int skit_tno_plan_set_parameters(skit_tno_plan *plan, const double *params, size_t count);

/* Set TNO's decay lambda in (0, 1] (options.decay) and recompute the
 * kernels, for training lambda with the gradient skit_tno_plan_backward
 * gives. Allocates nothing; on error the plan is unchanged.
 * Errors: SKIT_EINVAL (NULL), SKIT_EUNSUPPORTED (a kind other than
 * SKIT_TNO_FFT: FD-TNO has no decay, SKI's time warp is fixed at create),
 * SKIT_EDOM (lambda outside (0, 1]), SKIT_ENONFINITE (as
 * skit_tno_plan_update). */
int skit_tno_plan_set_decay(skit_tno_plan *plan, double lambda);

/* Recompute the kernels from the current parameters (RPE MLP and decay,
 * knot evaluation, kernel spectra). Allocates nothing. The RPE's GEMMs run
 * on OpenBLAS's threads, or, when OpenBLAS is set to one thread, split by
 * lags over the plan's OpenMP threads (skit's tools do the latter so that
 * one thread pool runs everything). Where it is cheaper, TNO and FD-TNO
 * apply the RPE's output layer after their transforms (exact: the layer,
 * the decay, the DFT and the Hilbert step are linear);
 * skit_tno_plan_describe names the path taken.
 * Errors: SKIT_EINVAL (NULL), SKIT_ENONFINITE (a kernel is NaN/Inf or
 * could overflow in its FFT: its coefficients' absolute sum, or, where the
 * output layer is applied to spectra, sum_j |W[c][j]| max|spectrum_j|,
 * is not finite with room for the transforms: parameters too large); the
 * spectra then keep their previous values. */
int skit_tno_plan_update(skit_tno_plan *plan);

/* Evaluate only the RPE MLP up to its output layer (TNO: at the plan's
 * lags, FD-TNO: at its frequency grid) into the plan's buffers, the first
 * step of skit_tno_plan_update; *points (may be NULL) gets the number of inputs
 * evaluated (TNO 2n-1, causal n; FD N/2+1; SKI 0: a no-op). Its cost
 * depends on the MLP's width and depth and on n, not on d: what `skit
 * bench tno` measures as the RPE floor of a forward pass. The features it
 * recomputes equal the cached ones (same parameters), so the plan stays
 * consistent. Allocates nothing. Errors: SKIT_EINVAL (NULL). */
int skit_tno_plan_eval_rpe(skit_tno_plan *plan, size_t *points);

/* Bytes of the workspace execute may take from its caller (0 for device
 * plans, which take none). */
size_t skit_tno_plan_workspace_bytes(const skit_tno_plan *plan);

/* y = TNO(x) with the cached kernels: x and y hold batch * n * d doubles in
 * the plan's layout and must not overlap. OpenMP inside.
 * work: NULL, or skit_tno_plan_workspace_bytes(plan) bytes from skit_malloc
 * (64-byte aligned, as FFTW needs). Thread-safe either way: without work
 * the plan lends its own workspace to one call at a time and a concurrent
 * call allocates one for its duration (device plans run concurrent calls
 * one after another); a call with work, or alone, allocates nothing.
 * NaN/Inf in x propagate (a NaN in channel c may spread over all of
 * channel c, and for SKI through the interpolation to neighbouring tokens
 * of that channel).
 * Errors: SKIT_EINVAL (NULL plan, x or y; x and y overlap; work not 64-byte
 * aligned), SKIT_ENOMEM (a concurrent call without work); device plans also
 * SKIT_ELIBRARY (a CUDA call failed). */
int skit_tno_plan_execute(const skit_tno_plan *plan, const double *x, double *y, void *work);

/* ---- backward (vector-Jacobian product) ----------------------------------
 * For y = op(x) and an output gradient dy (both batch * n * d in the
 * plan's layout): dx = (dy/dx)^T dy (same layout; may be NULL), dparams =
 * the gradient of <dy, y> w.r.t. the plan's parameters (param_count
 * values, the layout of skit_tno_plan_get_parameters; may be NULL), and
 * *dlambda (may be NULL) the gradient w.r.t. TNO's decay lambda (0 for the
 * other kinds, whose decay is not a learnable bias). The gradients are
 * those of the plan's current parameters (as after set_parameters or
 * update). TNO: the Toeplitz product's (T^T dy on the plan's engine, the
 * coefficient gradient by FFT cross-correlation over the batch), then the
 * decay bias's and the RPE MLP's at the plan's lags. FD-TNO: the same
 * product's, then the inverse DFT's (and, causal, the Hilbert step's) and
 * the RPE MLP's at the frequencies. SKI-TNO (both forms): the band's and
 * the low rank part's directly (O(n m + n r) per channel, no FFT), the knot
 * values' through the piecewise-linear interpolation of A's coefficients.
 * work: NULL (allocated for the call) or
 * skit_tno_plan_backward_workspace_bytes(plan) bytes from skit_malloc
 * (64-byte aligned). Thread-safe on a const plan; with work it allocates
 * nothing. Errors: SKIT_EINVAL (NULL plan, x or dy; misaligned work; a
 * float32 plan: use the _f32 form), SKIT_EUNSUPPORTED (a device plan),
 * SKIT_ENOMEM (no work). */
size_t skit_tno_plan_backward_workspace_bytes(const skit_tno_plan *plan);
int skit_tno_plan_backward(const skit_tno_plan *plan, const double *x, const double *dy, double *dx,
                           double *dparams, double *dlambda, void *work);

/* The same on a float32 plan: x, dy and dx hold batch * n * d floats (the
 * plan's layout); dparams and *dlambda stay float64, as the plan's
 * parameters are. TNO and FD-TNO: the two products over the batch run in
 * float:
 * dx = the transposed product on the float spectra, and the kernels'
 * gradient dk by an fftwf cross-correlation (bidirectional FD: left as its
 * N-point spectrum, which is all FD's backward needs of it); from dk
 * (widened) on, the float64 backward (FD's DFT of dk, the decay's, the
 * RPE MLP's), so
 * against the float64 plan with the same parameters on the same inputs,
 *   dx: per (sequence, channel) the bound of skit_tno_plan_execute_f32
 *       with ||x_c||_2 replaced by ||dy_c||_2 (the transposed circulant has
 *       the same norm; the spectra's rounding is the forward's);
 *   dparams, dlambda: B (dk32 - dk64), B the linear map from the kernels'
 *       gradient (d x (2n-1)) to them that the float64 backward applies,
 *       where per channel ||dk32_c - dk64_c||_2 <= (30 log2(2N) + batch)
 *       eps32 sum_b (||x_bc||_1 ||dy_bc||_2 + ||x_bc||_2 ||dy_bc||_1)
 *       (the correlation's bound of skit_toeplitz_plan_backward_f32);
 *       bidirectional FD: dk32 - dk64 is the inverse DFT of the
 *       spectra's difference, on all N lags, with B extended to them
 *       (its columns there as large as on the 2n - 1 lags: ||B||_F grows
 *       by sqrt(N / (2n - 1)));
 * tools/gradcheck.c (skit grad-check --precision f32) checks both, with
 * ||B||_F measured column by column on the float64 plan.
 * SKI-TNO (both forms, every causal_ski): on the float data of the
 * float32 forward (weights, taps and A's coefficients rounded once per
 * update). dx = T^T dy in float, the forward's arithmetic transposed:
 * bidirectional W^T dy, A^T on the forward's fftwf engine and W v over
 * all batch x d sequences at once, then the band's S^T dy; causal (either
 * causal_ski: one backward) Appendix B's running sums from the end,
 * s'_j = sum_{i>=j} w_i dy_i, and dx_j = w_j^T A^T s'_j (per run of
 * tokens with one stencil start, a dot product of at most r terms with
 * the entries the run leaves fixed, plus w terms a token). A's gradient da (d x (2r-1)): bidirectional the fftwf
 * cross-correlation of g = W^T dy with u = W^T x (both in float) summed
 * over the batch, as TNO's kernel gradient; causal the running sums s_i
 * of the float weights and x and the sum over the sequence of dy_i w_i[p]
 * s_i[q], both in double (within the bound below, which allows s_i's
 * rounding in float). The taps' gradient: sums over the sequence in double of the
 * products of floats (exact in double). From da widened, the knots' map
 * (the transpose of the linear interpolation of the knots) in double.
 * Against the float64 plan with the same parameters on the same inputs,
 * per (sequence, channel) and per channel (h = (n-1)/(r-1), s_c and N
 * as skit_tno_plan_f32_error_scale gives, N = 0 causal, omega = ||W||_1
 * <= h + 2):
 *   dx: the bound of skit_tno_plan_execute_f32 for SKI-TNO with ||x_c||_2
 *       replaced by ||dy_c||_2: the same growth factor 20 log2(2N) + 2r +
 *       2h + m + 12 (the transposed pieces have the same norms and sums
 *       of the same lengths: W^T dy at most 2h + 3 terms, A^T by the same
 *       FFT or dot products of at most r, the band's chains of m + 1);
 *   da: ||da32_c - da64_c||_2 <= G_a 2^-24 sqrt(omega) sum_b
 *       (||x_bc||_1 ||dy_bc||_2 + ||x_bc||_2 ||dy_bc||_1) [+ causal:
 *       (batch n + 1) 2^-51 sum_b ||x_bc||_1 ||dy_bc||_1, the double sums
 *       of both backwards], with G_a = 30 log2(2N) + batch + 2h + 6
 *       bidirectional (the correlation's bound of
 *       skit_toeplitz_plan_backward_f32 on u and g, ||u||_1 <= ||x||_1
 *       and ||u||_2 <= sqrt(omega) ||x||_2 as W >= 0 has rows summing to
 *       1, plus the rounding of u and g, |du| <= (2h + 4) 2^-24 W^T |x|,
 *       carried through the correlation by ||f * e||_2 <= ||f||_1
 *       ||e||_2, and 2 for the float64 backward's own rounding and second
 *       order terms) and G_a = 2h + 6 causal (s_i's rounding the same way);
 *   knots: ||dknots32_c - dknots64_c||_2 <= sqrt(2r - 1) times da's bound
 *       (the knots' map has columns of 1-norm <= 1 and rows of at most
 *       2r - 1 entries in [0, 1], so its 2-norm is <= sqrt(2r - 1));
 *   taps: every entry within 2 (batch n + 1) 2^-53 sum_b ||x_bc||_2
 *       ||dy_bc||_2 (both sums in double; in practice the float64
 *       backward's numbers, computed in the same order).
 * tools/gradcheck_f32.c (skit grad-check --op ski-tno --precision f32)
 * checks them. work: skit_tno_plan_backward_workspace_bytes(plan) bytes of
 * this plan, as above. Errors: as skit_tno_plan_backward; SKIT_EINVAL on
 * a float64 plan. */
int skit_tno_plan_backward_f32(const skit_tno_plan *plan, const float *x, const float *dy, float *dx,
                               double *dparams, double *dlambda, void *work);

/* The per-channel magnitude of the float32 bounds above and of
 * skit_tno_plan_execute_f32's: TNO and FD-TNO scale[c] = ||C_c||_2 + M_c
 * (d values), ||C_c||_2 measured on the plan's float spectra (the max
 * |eigenvalue| of channel c's circulant), M_c from its RPE as the last
 * update left it, *fft_length (may be NULL) = N; SKI-TNO scale[c] =
 * ||taps_c||_1 + ||W||_1 ||a_c||_1 (a_c A_c's coefficients, ||W||_1 the
 * largest column sum of W: a bound of ||T_c||_2, as ||W||_2^2 <=
 * ||W||_1 ||W||_inf = ||W||_1), *fft_length = A's FFT length
 * (bidirectional) or 0 (causal: no transform). Error: SKIT_EINVAL (NULL;
 * a float64 plan). */
int skit_tno_plan_f32_error_scale(const skit_tno_plan *plan, double *scale, size_t *fft_length);
/* The growth factor G of skit_tno_plan_execute_f32's bound,
 * ||y32 - y64||_2 <= G 2^-24 scale[c] ||x_c||_2 with scale[c] as above:
 * TNO and FD-TNO 20 log2(2N) + 2 (h + 1) + 4 (L + 3) (L the RPE's hidden
 * layers), SKI-TNO 20 log2(2N) + 2r + 2h + m
 * + 12 (the log term 0 when causal), with the plan's N, r, m and
 * h = (n-1)/(r-1). 0 for NULL and for a float64 plan. */
double skit_tno_plan_f32_growth(const skit_tno_plan *plan);

/* The decay bias of TNO on its own (TNN §3.2): k[j d + c] = rpe[j d + c] *
 * lambda^|lags[j]| for count lags and d channels (lag-major), and its
 * backward: drpe = dk lambda^|t| (may be NULL) and *dlambda = sum dk rpe
 * |t| lambda^(|t|-1) (may be NULL; then rpe may be NULL).
 * Errors: SKIT_EINVAL (NULL), SKIT_EDOM (d = 0, lambda outside (0, 1]). */
int skit_tno_decay_bias(size_t count, const double *lags, size_t d, double lambda, const double *rpe,
                        double *k);
int skit_tno_decay_bias_backward(size_t count, const double *lags, size_t d, double lambda,
                                 const double *rpe, const double *dk, double *drpe, double *dlambda);

/* skit_tno_plan_update then skit_tno_plan_execute: the cost of a training step's
 * forward pass (the parameters may have changed since the last call).
 * Errors: as the two. */
int skit_tno_plan_forward(skit_tno_plan *plan, const double *x, double *y);

/* The same on a plan created with precision SKIT_PRECISION_F32: x and y
 * hold batch * n * d floats; the spectra and products in float32. Per
 * channel, against the float64 plan with the same parameters
 * (tests/test_tno.c checks it),
 *     ||y32 - y64||_2 <= (20 log2(2N) + 2 (h + 1) + 4 (L + 3)) 2^-24 (||k_c||_1 + M_c) ||x_c||_2
 * with N the FFT length, k_c the channel's circulant kernel, h the RPE's
 * width, L its hidden layers, and M_c the magnitude the float32 RPE
 * rounds: TNO
 * ||kbar_c||_1, kbar_c(t) = sum_j |W[c][j]| |g_j(t)| + |b[c]| lambda^|t|
 * (the kernel of the output layer's absolute values on the decayed
 * features, >= |k_c(t)|); FD-TNO N max_w sum over the channel's output
 * rows r of sum_j |W[r][j]| |z_j(w)| / N + |b[r]| / N. The first term is
 * the float products' (see skit_toeplitz_plan_execute_f32); M_c counts
 * the output layer's cancellation, which float32 cannot resolve below
 * (h + 1) 2^-24 of the magnitudes it sums, and the features' own float
 * rounding: the float sweep sums at most L + 3 basis products a unit and
 * stage and the norm's h squares, so to first order each feature is
 * within (h + 4 (L + 3)) 2^-24 of the magnitudes it sums (the features'
 * term is not a proof for every input: near a ReLU kink the rounding can
 * flip a unit, which moves a feature by about as much; tests/test_tno.c
 * and `skit bench precision` measure the margin, error_over_bound). SKI-TNO (tests/test_tno_f32.c):
 *     ||y32 - y64||_2 <= (20 log2(2N) + 2r + 2h + m + 12) 2^-24 s_c ||x_c||_2
 * with s_c and N as skit_tno_plan_f32_error_scale gives (the log term 0
 * when causal), h = (n-1)/(r-1) the inducing spacing: A's FFT product,
 * W^T's sums of at most 2h + 3 terms, the causal forms' dot products of
 * at most 2r, the band's chains of m + 1 (it adds onto the low-rank
 * part), and the roundings of the data. update fails with
 * SKIT_ENONFINITE when a channel's s_c exceeds float's range with room
 * 4 L^2 for the FFT (L: A's FFT length, causal 2r - 1).
 * Errors: as the float64 forms, and SKIT_EINVAL when the plan's precision
 * is the other one. */
int skit_tno_plan_execute_f32(const skit_tno_plan *plan, const float *x, float *y, void *work);
int skit_tno_plan_forward_f32(skit_tno_plan *plan, const float *x, float *y);

/* Bytes the plan holds (kernels, spectra, FFT and layout buffers, the MLP,
 * its own workspace): with the caller's x and y, the operator's memory. */
size_t skit_tno_plan_bytes(const skit_tno_plan *plan);

size_t skit_tno_plan_n(const skit_tno_plan *plan);
size_t skit_tno_plan_d(const skit_tno_plan *plan);
size_t skit_tno_plan_batch(const skit_tno_plan *plan);
/* The options the plan was created with (NULL for a NULL plan). */
const skit_tno_options *skit_tno_plan_options(const skit_tno_plan *plan);
/* "tno", "ski", "fd" (and "unknown"), and a one-line description with every
 * setting, e.g. "tno causal n=512 d=64 rpe=64x3 relu rms decay=0.99". */
const char *skit_tno_kind_name(skit_tno_kind kind);
void skit_tno_plan_describe(const skit_tno_plan *plan, char *text, size_t size);

/* The Toeplitz coefficients of every channel of a TNO or FD-TNO in skit's
 * layout (skit/toeplitz.h): coeffs is d x (2n-1) row-major,
 * coeffs[c*(2n-1) + t + (n-1)] = k_c(t), t = -(n-1)..n-1; causal operators
 * give 0 at negative lags. TNO with a ReLU RPE evaluates it anew in the
 * plan's scratch (the sweep).
 * Errors: SKIT_EINVAL (NULL), SKIT_EUNSUPPORTED (SKI-TNO: W A W^T is not
 * Toeplitz; use skit_tno_plan_dense), SKIT_ENOMEM (FD: a buffer, only while an
 * execute holds the plan's workspace). */
int skit_tno_plan_coeffs(skit_tno_plan *plan, double *coeffs);

/* The same in the TNN reference code's FFT layout, length exactly 2n per
 * channel (d x 2n row-major): [a_0, a_1..a_{n-1}, filler, a_{-(n-1)}..a_{-1}]
 * (bidirectional) or [a_0, a_1..a_{n-1}, filler, zeros] (causal), with
 * filler = 0 here (it never reaches the output); then
 * y = irfft(rfft(x, 2n) * rfft(a, 2n))[:n]. Errors: as skit_tno_plan_coeffs. */
int skit_tno_plan_coeffs_reference(skit_tno_plan *plan, double *coeffs);

/* The n x n matrix T_c of channel c (column-major, ldt >= n), causal mask
 * applied. Errors: SKIT_EINVAL (NULL), SKIT_EDOM (channel >= d), SKIT_ESHAPE
 * (ldt < n), SKIT_ENOMEM. */
int skit_tno_plan_dense(skit_tno_plan *plan, size_t channel, double *T, size_t ldt);

/* Dense reference: y = TNO(x) by the O(n^2) products with the matrices of
 * skit_tno_plan_dense, and magnitude = |T| |x| (entrywise absolute values; may
 * be NULL), both in the plan's layout: the scale against which rounding
 * errors of the fast paths are measured. Allocates an n x n matrix.
 * Errors: SKIT_EINVAL (NULL), SKIT_ETOOBIG (n x n does not fit),
 * SKIT_ENOMEM, SKIT_EOVERFLOW. */
int skit_tno_plan_reference(skit_tno_plan *plan, const double *x, double *y, double *magnitude);

/* The size in bytes of this header's public struct `name` (e.g. "skit_tno_options"),
 * 0 for any other name: bindings that mirror the structs (python/skit)
 * check their layout against it when they load, so a field added here
 * cannot shift theirs unnoticed. */
size_t skit_tno_struct_size(const char *name);

SKIT_END_DECLS
#endif
