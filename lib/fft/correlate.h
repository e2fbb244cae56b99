/* correlate.h — FFT cross-correlations, the coefficient gradient of every
 * Toeplitz-form operator: for y = T x with T(i, j) = t_{i-j} (m x n),
 * dL/dt_k = sum_i dy_i x_{i-k}, k = -(n-1)..m-1, whose DFT on a grid of
 * N >= m + n - 1 points is DY .* conj(X). The fft module's interface for
 * modules above it; not installed; arguments are trusted.
 *
 * Like the circulant engine: created for OpenMP's maximum thread count,
 * every run takes its scratch from the caller (64-byte aligned, see
 * skit_correlate_workspace_doubles), so runs on one engine may go on
 * concurrently with different workspaces. */
#ifndef SKIT_FFT_CORRELATE_H
#define SKIT_FFT_CORRELATE_H

#include <stddef.h>

#include "skit/core.h"

/* The functions, declared once for each precision by SKIT_CORRELATE_API
 * (E = skit_correlate with R = double; E = skit_correlatef with R = float,
 * correlatef.c: correlate.c compiled with float and fftwf plans, whose
 * workspace_doubles then counts floats):
 *
 * create: m outputs, n inputs per channel; length 0: the smallest
 *   2^a 3^b 5^c 7^d >= m + n - 1. Errors: SKIT_EOVERFLOW, SKIT_ETOOBIG,
 *   SKIT_ENOMEM, SKIT_ELIBRARY.
 * run: for channels c = 0..channels-1: out + c ldo (m+n-1 values, skit's
 *   Toeplitz order: lag k at k + n - 1) = sum over b < batch of the
 *   correlation of dy + c lddy + b dy_stride (m values) with x + c ldx +
 *   b x_stride (n values). shared: every channel sums into out (one row).
 * spectra: the same sums left in the frequency domain, out + c ldo (N/2+1
 *   complex values, interleaved; ldo >= N + 2) = sum over the batch of
 *   DY .* conj(X), the DFT of that channel's correlation on the N-point
 *   grid (lag k at k mod N), no inverse transform; no shared form.
 * dft: z (N/2+1 complex values, interleaved) = the DFT of x (N values); x
 *   and z any two 64-byte aligned arrays (the alignment the plan was made
 *   for). */
#define SKIT_CORRELATE_API(E, R)                                                                          \
    typedef struct E E;                                                                                   \
    int E##_create(E **engine, size_t m, size_t n, size_t length);                                        \
    void E##_destroy(E *engine);                                                                          \
    size_t E##_length(const E *engine);                                                                   \
    size_t E##_bytes(const E *engine);                                                                    \
    size_t E##_workspace_doubles(const E *engine);                                                        \
    void E##_run(const E *engine, size_t channels, size_t batch, const R *x, size_t ldx, size_t x_stride,  \
                 const R *dy, size_t lddy, size_t dy_stride, int shared, R *out, size_t ldo, R *work);     \
    void E##_spectra(const E *engine, size_t channels, size_t batch, const R *x, size_t ldx, size_t x_stride, \
                     const R *dy, size_t lddy, size_t dy_stride, R *out, size_t ldo, R *work);             \
    void E##_dft(const E *engine, const R *x, R *z);

SKIT_CORRELATE_API(skit_correlate, double)
SKIT_CORRELATE_API(skit_correlatef, float)

#endif
