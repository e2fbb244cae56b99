/* skit/cuda.h — optional CUDA backend (SPEC G): the GPU building blocks.
 * Device memory, copies and timing; device-resident plans for the batched
 * Toeplitz FFT matvec (cuFFT), exact softmax attention (cuBLAS GEMM per tile
 * + max-shifted softmax kernels) and MRA-2 / MRA-2-s attention (block
 * kernels + cuBLAS); and the elementwise device kernels a token mixer is
 * built from (pointwise complex products, SKI interpolation gather/scatter,
 * banded convolution). The attention and token-mixing plans of
 * skit/attention.h and skit/tno.h run on these when their options say
 * device = SKIT_DEVICE_CUDA (skit/device.h).
 *
 * Availability. Every function below exists in every build. A build without
 * CUDA (./configure --without-cuda, or no nvcc) returns SKIT_EUNSUPPORTED
 * with the message "cuda: not built"; a CUDA build whose plugin cannot be
 * loaded (skit/device.h says where it is looked for) returns
 * SKIT_EUNSUPPORTED with "cuda: backend not loadable (<reason>)"; one on a
 * machine without a usable device returns SKIT_EUNSUPPORTED with a message
 * that starts with "cuda: no device". Arguments are validated first, in
 * every build, so the same bad argument gives the same error code with or
 * without a GPU.
 *
 * Conventions (as in the CPU modules): column-major data with leading
 * dimensions; a multi-channel signal of d channels of length n is an n x d
 * block (channel c at x + c*ld). Pointers named *_dev are device memory
 * (from skit_cuda_malloc or cudaMalloc) holding elements of the plan's
 * precision (double or float); all other pointers are host memory holding
 * doubles. Host<->device copies are explicit: the host-array entry points
 * copy in, compute and copy out (they block until done); the device entry
 * points enqueue work on the default (legacy) stream and return without
 * waiting — call skit_cuda_synchronize() before reading results on the host
 * by other means. Device memory is owned by plans (allocated in create, freed
 * in destroy); execute allocates nothing. A plan holds its own scratch, so
 * one plan must not execute from two host threads at once. No managed
 * (unified) memory is used.
 *
 * Errors of every CUDA, cuFFT and cuBLAS call are turned into SKIT_ENOMEM
 * (device allocation failed) or SKIT_ELIBRARY (anything else) with the
 * library's own description in the message.
 */
#ifndef SKIT_CUDA_H
#define SKIT_CUDA_H

#include "skit/attention.h"
#include "skit/core.h"
#include "skit/device.h"
#include "skit/toeplitz.h"

SKIT_BEGIN_DECLS

/* Element type of device data and of the arithmetic on the device. */
typedef enum skit_cuda_precision {
    SKIT_CUDA_FLOAT64 = 0,
    SKIT_CUDA_FLOAT32 = 1
} skit_cuda_precision;

/* Bytes per element of `precision` (8 or 4; 0 for an unknown value). */
size_t skit_cuda_precision_bytes(skit_cuda_precision precision);

/* ---- availability ----------------------------------------------------- */

/* 1 if the backend is built, its plugin loads and a device is usable, else
 * 0. Raises nothing; the first call loads the plugin and initialises the
 * CUDA runtime (and the answer is cached). */
int skit_cuda_available(void);

/* One line describing the backend into buf (size bytes, NUL-terminated,
 * truncated to fit): "cuda: not built", "cuda: backend not loadable
 * (<reason>)", "cuda: no device (<reason>)", or
 * "cuda: <device name>, compute capability X.Y, N MiB, runtime A.B".
 * Returns SKIT_OK when a device is usable; otherwise raises SKIT_EUNSUPPORTED
 * with the same line as its message. SKIT_EINVAL if buf is NULL or size 0. */
int skit_cuda_status(char *buf, size_t size);

/* ---- device memory and timing (for callers, tests and benchmarks) ------ */

/* *ptr = bytes of device memory (bytes = 0 gives a valid unique pointer).
 * Errors: SKIT_EINVAL (ptr NULL), SKIT_ENOMEM, SKIT_EUNSUPPORTED. */
int skit_cuda_malloc(void **ptr, size_t bytes);
/* Frees device memory from skit_cuda_malloc; NULL is a no-op. */
void skit_cuda_free(void *ptr);
/* Blocking copies of `bytes` bytes: host -> device, device -> host, and
 * device -> device. Errors: SKIT_EINVAL (NULL pointer with bytes > 0),
 * SKIT_ELIBRARY, SKIT_EUNSUPPORTED. */
int skit_cuda_copy_to_device(void *dst_dev, const void *src, size_t bytes);
int skit_cuda_copy_to_host(void *dst, const void *src_dev, size_t bytes);
int skit_cuda_copy_on_device(void *dst_dev, const void *src_dev, size_t bytes);
/* Waits for all work enqueued so far; reports an error of any kernel that
 * ran since the last check (SKIT_ELIBRARY). */
int skit_cuda_synchronize(void);

/* Device time of `work`: runs work(context) once to warm up, then `repeats`
 * times between two CUDA events on the default stream, and sets *seconds to
 * the event-measured time per call. work enqueues device work and returns a
 * skit status; the first non-OK status stops the timing and is returned.
 * Errors: SKIT_EINVAL (work or seconds NULL), SKIT_EDOM (repeats = 0),
 * SKIT_ELIBRARY, SKIT_EUNSUPPORTED. */
typedef int (*skit_cuda_work)(void *context);
int skit_cuda_time(skit_cuda_work work, void *context, size_t repeats, double *seconds);

/* Device-to-device copy bandwidth in bytes per second, counting the bytes
 * read plus the bytes written (2 * bytes per copy), measured with CUDA events
 * over `repeats` copies of a `bytes`-byte buffer after one warm-up copy.
 * This is the bandwidth the benchmarks divide "bytes moved" by.
 * Errors: SKIT_EINVAL, SKIT_EDOM (bytes < 1 MiB or repeats = 0), SKIT_ENOMEM,
 * SKIT_ELIBRARY, SKIT_EUNSUPPORTED. */
int skit_cuda_copy_bandwidth(size_t bytes, size_t repeats, double *bytes_per_second);

/* ---- batched Toeplitz FFT matvec (cuFFT) ------------------------------- */

typedef struct skit_cuda_toeplitz_plan skit_cuda_toeplitz_plan;

/* Plan y(:, c) = T_c x(:, c), c = 0..d-1, with the coefficient layout and
 * semantics of skit_toeplitz_plan_create (skit/toeplitz.h): T_c is m x n,
 * T_c(i, j) = t_{i-j}, coeffs holds (m+n-1) doubles per matrix with
 * coeffs[k + (n-1)] = t_k, matrix c at coeffs + c*(m+n-1) (one matrix if
 * sharing == SKIT_TOEPLITZ_SHARED); causal plans ignore negative lags.
 * The product is a circulant embedding of FFT length L (smallest
 * 2^a 3^b 5^c 7^d >= m+n-1) computed by batched cuFFT D2Z/Z2D (float64) or
 * R2C/C2R (float32); spectra (scaled by 1/L) stay on the device.
 * Errors: SKIT_EINVAL (plan or coeffs NULL, bad enum), SKIT_EDOM (m, n or d
 * = 0), SKIT_ENONFINITE, SKIT_EOVERFLOW, SKIT_ETOOBIG (beyond cuFFT's or the
 * device's limits), SKIT_ENOMEM, SKIT_ELIBRARY, SKIT_EUNSUPPORTED. */
int skit_cuda_toeplitz_plan_create(skit_cuda_toeplitz_plan **plan, size_t m, size_t n, size_t d,
                                   skit_toeplitz_sharing sharing, skit_causality causality,
                                   skit_cuda_precision precision, const double *coeffs);

/* Replace the coefficients (same shape and layout); recomputes the spectra
 * on the device. Errors: SKIT_EINVAL, SKIT_ENONFINITE, SKIT_ENOMEM,
 * SKIT_ELIBRARY. */
int skit_cuda_toeplitz_plan_set_coeffs(skit_cuda_toeplitz_plan *plan, const double *coeffs);

/* Device-resident product: x_dev is n x d (ldx >= n), y_dev is m x d
 * (ldy >= m), both in the plan's precision; they must not overlap.
 * Asynchronous (default stream). Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE
 * (leading dimension too small), SKIT_ELIBRARY. */
int skit_cuda_toeplitz_execute_device(const skit_cuda_toeplitz_plan *plan, const void *x_dev,
                                      size_t ldx, void *y_dev, size_t ldy);
/* Transposed product y(:, c) = T_c^T x(:, c): x_dev is m x d, y_dev n x d. */
int skit_cuda_toeplitz_execute_transpose_device(const skit_cuda_toeplitz_plan *plan,
                                                const void *x_dev, size_t ldx, void *y_dev,
                                                size_t ldy);

/* The same products on host arrays of doubles (x n x d, y m x d; swapped
 * for the transpose), including both transfers; float32 plans round the
 * input to float on the host. Blocking. Errors as for the device versions. */
int skit_cuda_toeplitz_execute(const skit_cuda_toeplitz_plan *plan, const double *x, size_t ldx,
                               double *y, size_t ldy);
int skit_cuda_toeplitz_execute_transpose(const skit_cuda_toeplitz_plan *plan, const double *x,
                                         size_t ldx, double *y, size_t ldy);

/* FFT length L, and the device memory the plan holds (bytes, including
 * cuFFT's work areas). 0 for NULL. */
size_t skit_cuda_toeplitz_plan_fft_length(const skit_cuda_toeplitz_plan *plan);
size_t skit_cuda_toeplitz_plan_device_bytes(const skit_cuda_toeplitz_plan *plan);

void skit_cuda_toeplitz_plan_destroy(skit_cuda_toeplitz_plan *plan);

/* ---- exact softmax attention (cuBLAS) ---------------------------------- */

typedef struct skit_cuda_attention_plan skit_cuda_attention_plan;

/* Plan Y = softmax(scale * Q K^T) V row by row, exactly, without an
 * n_q x n_k buffer: queries are processed in tiles of `tile` rows; per tile
 * one GEMM forms the scaled logits (n_k x tile), a kernel applies the
 * max-shifted softmax down each column (so no exponential overflows), and a
 * second GEMM multiplies by V. Causal plans give query i weight only on keys
 * j <= i. Q is n_q x d_k, K n_k x d_k, V n_k x d_v, Y n_q x d_v.
 * tile = 0 chooses the largest tile whose logits fit in 256 MiB.
 * Errors: SKIT_EINVAL, SKIT_EDOM (a size = 0, or tile > n_q), SKIT_ETOOBIG
 * (a size beyond cuBLAS's int range or device memory), SKIT_EOVERFLOW,
 * SKIT_ENOMEM, SKIT_ELIBRARY, SKIT_EUNSUPPORTED. */
int skit_cuda_attention_plan_create(skit_cuda_attention_plan **plan, size_t n_q, size_t n_k,
                                    size_t d_k, size_t d_v, int causal,
                                    skit_cuda_precision precision, size_t tile);

/* Device-resident: Q_dev, K_dev, V_dev, Y_dev in the plan's precision with
 * leading dimensions ldq >= n_q, ldk >= n_k, ldv >= n_k, ldy >= n_q; Y must
 * not overlap the inputs. scale is usually 1/sqrt(d_k).
 * Errors: SKIT_EINVAL, SKIT_ESHAPE, SKIT_EDOM (scale not finite),
 * SKIT_ELIBRARY. */
int skit_cuda_attention_execute_device(const skit_cuda_attention_plan *plan, double scale,
                                       const void *Q_dev, size_t ldq, const void *K_dev,
                                       size_t ldk, const void *V_dev, size_t ldv, void *Y_dev,
                                       size_t ldy);
/* Same on host arrays of doubles, including the transfers; blocking. */
int skit_cuda_attention_execute(const skit_cuda_attention_plan *plan, double scale,
                                const double *Q, size_t ldq, const double *K, size_t ldk,
                                const double *V, size_t ldv, double *Y, size_t ldy);

/* The same with padding masks (self-attention semantics, as
 * skit/attention.h): key_mask (NULL or n_k bytes) marks the keys that may be
 * attended to (0 = padding: weight 0 in every row); query_mask (NULL or n_q
 * bytes) marks the query rows to compute (0: the output row is 0). A row
 * without a valid key gets output 0. Both masks are host arrays; the
 * arrays Q, K, V, Y are host doubles as in skit_cuda_attention_execute.
 * Errors: as skit_cuda_attention_execute. */
int skit_cuda_attention_execute_masked(const skit_cuda_attention_plan *plan, double scale,
                                       const double *Q, size_t ldq, const double *K, size_t ldk,
                                       const double *V, size_t ldv,
                                       const unsigned char *key_mask,
                                       const unsigned char *query_mask, double *Y, size_t ldy);

/* Query rows per tile, and the device memory the plan holds (bytes). */
size_t skit_cuda_attention_plan_tile(const skit_cuda_attention_plan *plan);
size_t skit_cuda_attention_plan_device_bytes(const skit_cuda_attention_plan *plan);

void skit_cuda_attention_plan_destroy(skit_cuda_attention_plan *plan);

/* ---- MRA-2 / MRA-2-s attention (cuBLAS + block kernels) ----------------- */

/* The multiresolution approximation of skit/attention.h (methods mra2 and
 * mra2s, R = {b, 1}: options->levels = 0, or 2 with scales {b, 1}) on the
 * device, with the CPU plan's semantics: block means of the valid tokens,
 * coarse logits scale * Qm Km^T (one cuBLAS GEMM), Algorithm 1's selection
 * (score = coarse logit - row max, priors, global or per-row top-k, ties to
 * the square first in row-major order), exact b x b logits on the refined
 * squares (batched cuBLAS GEMMs), a max-shifted softmax per query and the
 * merge of the coarse and fine levels with one shift per query (MRA-2) or
 * the fine level alone (MRA-2-s).
 *
 * The selection runs on the host: each execute copies the (n/b)^2 coarse
 * logits to the host, selects exactly as the CPU plan does (so both
 * backends refine the same squares for the same logits) and uploads the
 * refined squares, O(n/b * blocks_per_row) indices. Execute therefore
 * synchronises with the device once in the middle.
 *
 * Memory on the device: O(n (d + dv) + (n/b)^2 + budget * b * (b + dv))
 * elements, budget = the refined squares' capacity
 * min((n/b)^2, (n/b) * blocks_per_row[0]).
 *
 * scale: options->scale (0 selects 1/sqrt(d)). Other options as the CPU
 * plan; levels > 2 or a finest scale > 1 are SKIT_EUNSUPPORTED here (the
 * CPU plan runs them).
 * Errors: SKIT_EINVAL (NULL, method not mra2/mra2s, unknown selection or
 * precision), SKIT_EDOM (n, d, dv = 0; scale, shift_bias, block, levels,
 * scales or blocks_per_row out of range), SKIT_ESHAPE (n not a multiple of
 * the block), SKIT_EUNSUPPORTED (more than two levels; no device),
 * SKIT_ETOOBIG (n/b >= 65536, a size beyond cuBLAS's int range, or more
 * memory than the device or host has), SKIT_EOVERFLOW, SKIT_ENOMEM,
 * SKIT_ELIBRARY. */
typedef struct skit_cuda_mra_plan skit_cuda_mra_plan;

int skit_cuda_mra_plan_create(skit_cuda_mra_plan **plan, size_t n, size_t d, size_t dv,
                              const skit_attention_options *options,
                              skit_cuda_precision precision);

/* Host arrays of doubles (layout of skit_attention_plan_execute: Q, K n x d,
 * V n x dv, Y n x dv, column-major; mask NULL or n host bytes), including
 * the transfers. Blocking.
 * Errors: SKIT_EINVAL (NULL, Y overlapping an input), SKIT_ESHAPE (ld < n),
 * SKIT_ENONFINITE, SKIT_ELIBRARY. */
int skit_cuda_mra_execute(const skit_cuda_mra_plan *plan, const double *Q, size_t ldq,
                          const double *K, size_t ldk, const double *V, size_t ldv,
                          const unsigned char *mask, double *Y, size_t ldy);

/* Device arrays in the plan's precision (mask_dev: NULL or n device
 * bytes). Returns after the work is enqueued, but waits for the coarse
 * logits in the middle (see above).
 * Errors: SKIT_EINVAL, SKIT_ESHAPE (ld < n or beyond cuBLAS's int range),
 * SKIT_ELIBRARY. */
int skit_cuda_mra_execute_device(const skit_cuda_mra_plan *plan, const void *Q_dev, size_t ldq,
                                 const void *K_dev, size_t ldk, const void *V_dev, size_t ldv,
                                 const unsigned char *mask_dev, void *Y_dev, size_t ldy);

/* Squares refined by the last execute (0 before the first), the block b,
 * and the device memory the plan holds (bytes). 0 for NULL. */
size_t skit_cuda_mra_plan_refined(const skit_cuda_mra_plan *plan);
size_t skit_cuda_mra_plan_block(const skit_cuda_mra_plan *plan);
size_t skit_cuda_mra_plan_device_bytes(const skit_cuda_mra_plan *plan);

void skit_cuda_mra_plan_destroy(skit_cuda_mra_plan *plan);

/* ---- elementwise kernels of a token mixer (device data) ---------------- */

/* Pointwise complex product in the frequency domain (FD-TNO, and the
 * spectral multiply of an FFT convolution): for f < nfreq, c < d,
 *   z(f, c) <- z(f, c) * s(f, c')   (conj(s) if conjugate),
 * c' = 0 if shared else c. Complex numbers are interleaved (re, im) pairs of
 * the given precision; ldz, lds count complex elements (ldz >= nfreq,
 * lds >= nfreq unless shared). Asynchronous.
 * Errors: SKIT_EINVAL, SKIT_EDOM (nfreq or d = 0), SKIT_ESHAPE,
 * SKIT_ELIBRARY, SKIT_EUNSUPPORTED. */
int skit_cuda_complex_multiply_device(skit_cuda_precision precision, size_t nfreq, size_t d,
                                      int shared, const void *s_dev, size_t lds, void *z_dev,
                                      size_t ldz, int conjugate);

/* Banded Toeplitz product (the short convolution of SKI-TNO): with lags
 * -lo..hi and taps t_l stored at taps[(l + lo) + c*(lo+hi+1)] (one set if
 * shared), y(i, c) = sum_{l=-lo..hi} t_l x(i-l, c) over 0 <= i-l < n — the
 * rows of skit/toeplitz.h's T(i, j) = t_{i-j} restricted to the band
 * (lo = 0 gives a causal filter). accumulate != 0 adds to y instead of
 * overwriting it. x and y are n x d and must not overlap. Asynchronous.
 * Errors: SKIT_EINVAL, SKIT_EDOM (n or d = 0, or lo or hi >= n),
 * SKIT_ESHAPE, SKIT_ELIBRARY, SKIT_EUNSUPPORTED. */
int skit_cuda_band_convolve_device(skit_cuda_precision precision, size_t n, size_t d, size_t lo,
                                   size_t hi, int shared, const void *taps_dev, const void *x_dev,
                                   size_t ldx, void *y_dev, size_t ldy, int accumulate);

/* SKI interpolation: a sparse n x r matrix W with `width` entries per row
 * (2 for linear, 4 for cubic interpolation): row i has weights
 * weights[i*width + k] in columns cols[i*width + k] < r (repeated columns
 * add). The plan keeps W and its transpose (built on the host by a counting
 * sort) on the device, so both products are gathers: no atomics, and the
 * same summation order on every run. */
typedef struct skit_cuda_interp_plan skit_cuda_interp_plan;

/* Errors: SKIT_EINVAL, SKIT_EDOM (n, r or width = 0, or a column >= r),
 * SKIT_ENONFINITE, SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY,
 * SKIT_EUNSUPPORTED. */
int skit_cuda_interp_plan_create(skit_cuda_interp_plan **plan, size_t n, size_t r, size_t width,
                                 const size_t *cols, const double *weights,
                                 skit_cuda_precision precision);

/* y = W u (+ y if accumulate): u_dev is r x d (ldu >= r), y_dev n x d
 * (ldy >= n), not overlapping. Asynchronous.
 * Errors: SKIT_EINVAL, SKIT_EDOM (d = 0), SKIT_ESHAPE, SKIT_ELIBRARY. */
int skit_cuda_interp_gather_device(const skit_cuda_interp_plan *plan, size_t d, const void *u_dev,
                                   size_t ldu, void *y_dev, size_t ldy, int accumulate);
/* u = W^T x: x_dev is n x d (ldx >= n), u_dev r x d (ldu >= r). */
int skit_cuda_interp_scatter_device(const skit_cuda_interp_plan *plan, size_t d,
                                    const void *x_dev, size_t ldx, void *u_dev, size_t ldu);

size_t skit_cuda_interp_plan_device_bytes(const skit_cuda_interp_plan *plan);
void skit_cuda_interp_plan_destroy(skit_cuda_interp_plan *plan);

SKIT_END_DECLS
#endif /* SKIT_CUDA_H */
