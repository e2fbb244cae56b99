/* circulant.h — the one circulant-product engine under every FFT-based
 * operator of the library: the Toeplitz plans (skit/toeplitz.h), FD-TNO
 * (skit/freq.h), TNO and SKI-TNO (skit/tno.h) are front-ends over it.
 * The fft module's interface for modules above it; not installed.
 * Arguments are trusted: the front-ends validate them.
 *
 * An engine holds `spectra` kernel spectra on a length-N grid and applies,
 * for every channel c of d,
 *     y_c = first `rows` entries of  kernel_c (*) [x_c; 0],
 * the circular convolution of the kernel with the `cols` inputs of x_c
 * zero-padded to N. An m x n Toeplitz matrix T(i, j) = t_{i-j} is the
 * top-left block of the N x N circulant whose kernel has t_k at k and
 * t_{-k} at N - k, provided N >= m + n - 1; channel c uses spectrum
 * c % spectra (so one spectrum may serve every channel). The transposed
 * product reads `rows` inputs and writes `cols` outputs with the
 * conjugate spectrum: the circulant of the reversed kernel.
 *
 * Spectra are stored split, Re of the N/2+1 frequencies then Im, each
 * scaled by 1/N (FFTW's transforms are unnormalised; folding the scale in
 * saves execute a pass): spectrum s starts at skit_circulant_spectra(e) +
 * s * skit_circulant_spectra_ld(e). Split rows let GEMMs write spectra
 * directly (a linear layer applied after the transform) and let a "basis"
 * of extra rows (basis_rows) hold the transforms such a GEMM combines.
 *
 * The inverse transform is FFTW's c2r, or a second forward r2c through
 * the Hartley identity: with V = X .* K, w[k] = Re V[k] - Im V[k]
 * (w[N-k] = Re V[k] + Im V[k]) is the Hartley transform of y, and y_j =
 * Re W[j] - Im W[j] with W = DFT(w) (W[N-j] = conj W[j] for j > N/2).
 * FFTW_ESTIMATE's c2r is slower than its r2c at many lengths, so ESTIMATE
 * and wisdom-only engines take the Hartley form; under a measuring
 * planner (MEASURE, PATIENT, EXHAUSTIVE) the engine times both forms once
 * per length and keeps the faster (lib/fft/circulant.c says why), so
 * that, like FFTW's own algorithms then, the rounding may differ from run
 * to run.
 *
 * Threads: the engine is created for OpenMP's maximum thread count at that
 * time and splits channels (or rows) over them. Every function takes its
 * scratch from the caller, `work`: skit_circulant_workspace_doubles
 * doubles, 64-byte aligned (skit_malloc), so applies on one engine may run
 * concurrently with different workspaces; the set_* functions write the
 * engine's spectra (one at a time, and not during an apply).
 *
 * Precision: every function below exists twice, FFTW's way: skit_circulant_*
 * on double (fftw plans, double spectra) and skit_circulantf_* on float
 * (fftwf plans, float spectra, float workspace: "doubles" in the names
 * below then count floats); one source (circulant.c, compiled again by
 * circulantf.c) makes both. Shapes are shared. */
#ifndef SKIT_FFT_CIRCULANT_H
#define SKIT_FFT_CIRCULANT_H

#include <stddef.h>

#include "skit/core.h"
#include "skit/fft.h"

typedef struct skit_circulant skit_circulant;

typedef struct skit_circulant_shape {
    size_t rows;       /* m: outputs of a product (inputs of the transposed one) */
    size_t cols;       /* n: inputs of a product (outputs of the transposed one) */
    size_t channels;   /* d */
    size_t spectra;    /* d (a kernel per channel) or 1 (one for all) */
    size_t length;     /* N >= m + n - 1; 0: the smallest 2^a 3^b 5^c 7^d that is */
    size_t basis_rows; /* extra spectra rows for a GEMM to combine (0: none) */
    int rows_layout;   /* also size the buffers of skit_circulant_apply_rows */
    const char *what;  /* the front-end, for the memory check's message */
    skit_planner planner; /* how FFTW plans (skit/fft.h; 0: the process default) */
    skit_fft_inverse inverse; /* skit/fft.h; 0 (AUTO): chosen as above */
} skit_circulant_shape;

/* The functions, declared once for each precision by SKIT_CIRCULANT_API
 * (E = skit_circulant with R = double, E = skit_circulantf with R = float;
 * below, create means skit_circulant_create and skit_circulantf_create):
 *
 * create: Errors: SKIT_EOVERFLOW (sizes), SKIT_ETOOBIG (memory estimate or
 *   N above FFTW's int), SKIT_EINVAL (planner), SKIT_ENOMEM, SKIT_ELIBRARY
 *   (FFTW could not plan, or wisdom-only found no wisdom of the engine's
 *   precision: skit_fft_plan_length / _f32 make it).
 *   With shape->inverse AUTO and a measuring planner, create
 *   times a few products in each form of the inverse (one channel, about
 *   a millisecond or three products of length N, whichever is longer) the
 *   first time a length and planner are planned, while the FFTW pair
 *   stays shared: engines made later reuse that choice.
 * length: N. frequencies: N/2 + 1. spectra_ld: 2 (N/2 + 1).
 * inverse_c2r: 1 if the engine's inverse is c2r, 0 if the Hartley form.
 * bytes: bytes the engine holds (spectra, basis, the struct; no workspace).
 *
 * ---- setting spectra ----
 * set_toeplitz: spectrum s of Toeplitz coefficients coeffs + s * (m+n-1),
 *   in skit's order t_{-(n-1)}..t_{m-1} (skit/toeplitz.h); causal plans
 *   leave the negative lags out. All spectra, over the threads.
 * set_kernels: spectrum s from a kernel already in circulant order:
 *   kernels + s * ld, N values (64-byte aligned, ld a multiple of a 64-byte
 *   line). All spectra.
 * basis_from_rows: basis row j = DFT of rows + j * ld (as set_kernels),
 *   j < basis_rows.
 * hilbert_rows: the causal Hilbert step (ski-to-go-faster Algorithm 2) on
 *   count real responses re + r * ld (N/2+1 values each, scaled by 1/N; N
 *   even): im + r * ldo gets the imaginary part of the spectrum of the
 *   causal kernel whose spectrum has real part re, i.e. -H{re}. Rows over
 *   the threads; re and im may be the halves of the engine's spectra.
 * kernel: kernel (N values) = the circulant kernel of spectrum s (inverse
 *   DFT).
 *
 * ---- applying ----
 * workspace_doubles: values of R (doubles, or floats for skit_circulantf)
 *   of `work` a call needs (every thread's buffers): rows_layout 0 for
 *   every function but apply_rows, 1 for it.
 * apply_channels: channel-major data: channels k = 0..count-1 at x + k ldx,
 *   outputs at y + k ldy, channel k with spectrum k % spectra; transpose
 *   selects the transposed product (inputs rows, outputs cols). NaN/Inf in
 *   a channel propagate within it. x and y must not overlap.
 * channel_flops: floating-point operations of one channel's product
 *   (transposed or not) in apply_channels or apply_rows: FFTW's own count
 *   of the engine's plans (fftw_flops / fftwf_flops: add + mul + 2 fma)
 *   for the forward r2c and the inverse (c2r, or the Hartley form's
 *   second r2c), plus the engine's pointwise work: 6 per frequency for
 *   the spectrum product of the c2r form; 8 per pair of frequencies, 3
 *   at k = 0 and at N/2 (N even), and one per output for the Hartley
 *   form. Not counted: memory traffic (copies, zero padding, the rows
 *   apply's transposes) and the 1/N scaling, folded into the spectra
 *   when they are set (set_* work, not an apply's). Under a measuring
 *   planner FFTW's algorithm, and so its count, may differ from run to
 *   run; under ESTIMATE (and a given wisdom) it is fixed. FFTW counts a
 *   SIMD codelet's vector operation once (skit/toeplitz.h says more).
 * apply_rows: row-major data, C order: `batch` sequences of nin rows of
 *   the engine's d channels, element (b, i, c) at x[(b nin + i) ldx + c]
 *   (ldx >= d; nin = cols, or rows when transposed), outputs at
 *   y[(b nout + i) ldy + c]; channel c with spectrum c % spectra. Each
 *   thread gathers a group of channels from the rows into its FFT buffers
 *   and scatters the outputs back, so no transposed copy of x or y is
 *   made. Needs rows_layout at create. */
#define SKIT_CIRCULANT_API(E, R)                                                                          \
    typedef struct E E;                                                                                   \
    int E##_create(E **engine, const skit_circulant_shape *shape);                                        \
    void E##_destroy(E *engine);                                                                          \
    size_t E##_length(const E *engine);                                                                   \
    int E##_inverse_c2r(const E *engine);                                                                 \
    size_t E##_frequencies(const E *engine);                                                              \
    size_t E##_spectra_ld(const E *engine);                                                               \
    size_t E##_basis_rows(const E *engine);                                                               \
    R *E##_spectra(E *engine);                                                                            \
    R *E##_basis(E *engine);                                                                              \
    size_t E##_bytes(const E *engine);                                                                    \
    void E##_set_toeplitz(E *engine, const R *coeffs, skit_causality causality, R *work);                 \
    void E##_set_kernels(E *engine, const R *kernels, size_t ld, R *work);                                \
    void E##_basis_from_rows(E *engine, const R *rows, size_t ld, R *work);                               \
    void E##_hilbert_rows(const E *engine, const R *re, size_t ld, size_t count, R *im, size_t ldo,       \
                          R *work);                                                                       \
    void E##_kernel(const E *engine, size_t s, R *kernel, R *work);                                       \
    size_t E##_workspace_doubles(const E *engine, int rows_layout);                                       \
    double E##_channel_flops(const E *engine, int transpose);                                             \
    void E##_apply_channels(const E *engine, int transpose, const R *x, size_t ldx, R *y, size_t ldy,     \
                            size_t count, R *work);                                                       \
    void E##_apply_rows(const E *engine, int transpose, const R *x, size_t ldx, R *y, size_t ldy,         \
                        size_t batch, R *work);

SKIT_CIRCULANT_API(skit_circulant, double)
SKIT_CIRCULANT_API(skit_circulantf, float)

#endif
