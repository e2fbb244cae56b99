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

typedef struct skit_correlate skit_correlate;

/* m outputs, n inputs per channel; length 0: the smallest 2^a 3^b 5^c 7^d
 * >= m + n - 1. Errors: SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM, SKIT_ELIBRARY. */
int skit_correlate_create(skit_correlate **engine, size_t m, size_t n, size_t length);
void skit_correlate_destroy(skit_correlate *engine);
size_t skit_correlate_length(const skit_correlate *engine);
size_t skit_correlate_bytes(const skit_correlate *engine);
size_t skit_correlate_workspace_doubles(const skit_correlate *engine);

/* For channels c = 0..channels-1: out + c ldo (m+n-1 values, skit's
 * Toeplitz order: lag k at k + n - 1) = sum over b < batch of the
 * correlation of dy + c lddy + b dy_stride (m values) with x + c ldx +
 * b x_stride (n values). shared: every channel sums into out (one row). */
void skit_correlate_run(const skit_correlate *engine, size_t channels, size_t batch, const double *x,
                        size_t ldx, size_t x_stride, const double *dy, size_t lddy, size_t dy_stride,
                        int shared, double *out, size_t ldo, double *work);

/* z (N/2+1 complex values, interleaved) = the DFT of x (N values); x and
 * z any two 64-byte aligned arrays (the alignment the plan was made
 * for). */
void skit_correlate_dft(const skit_correlate *engine, const double *x, double *z);

#endif
