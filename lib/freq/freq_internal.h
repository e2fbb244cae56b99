/* freq_internal.h — declarations shared by the files of lib/freq and the
 * token mixers of lib/tno (which run on the FD-TNO engine and the
 * feature-major MLP); not installed. Arguments of these functions are
 * trusted (callers validate). */
#ifndef SKIT_FREQ_INTERNAL_H
#define SKIT_FREQ_INTERNAL_H

#include "skit/freq.h"
#include "skit/mlp.h"

/* ---- FD-TNO plans as the circulant-product engine (fdtno.c) --------------
 * An skit_fdtno_plan holds d kernel spectra on a length-N grid and applies
 * y_c = first n entries of (kernel_c circularly convolved with [x_c; 0]).
 * TNO plans use the same engine with N = any FFTW-friendly length >= 2n-1
 * (a Toeplitz matrix is the top-left block of such a circulant), so TNO
 * and FD-TNO share one apply. Spectra are stored split per channel: Re of
 * the N/2+1 frequencies, then Im, scaled by 1/N (spectra_ld = 2 (N/2+1)
 * doubles per channel), so that GEMMs can write them directly. */

/* length: 0 = FD-TNO's default (next power of two >= 2n), else any N >=
 * 2n-1 (FD callers validate FD's rule: even, >= 2n). basis_rows: rows of
 * a spectra basis for the output-layer pushdown (0: none). rows_layout:
 * also allocate the per-thread buffers of the (batch, n, d) apply. */
int skit_fdtno_create_engine(skit_fdtno_plan **plan, size_t n, size_t d, skit_causality causality,
                             size_t length, size_t basis_rows, int rows_layout);
double *skit_fdtno_spectra_data(skit_fdtno_plan *plan);
double *skit_fdtno_basis_data(skit_fdtno_plan *plan);
size_t skit_fdtno_spectra_ld(const skit_fdtno_plan *plan);
size_t skit_fdtno_basis_rows(const skit_fdtno_plan *plan);
/* Bytes the plan holds (spectra, basis, FFT scratch). */
size_t skit_fdtno_bytes(const skit_fdtno_plan *plan);

/* Spectra from Toeplitz coefficients, d x (2n-1) in skit's layout (the
 * circulant embedding of each, transformed), channels over the threads. */
void skit_fdtno_set_toeplitz(skit_fdtno_plan *plan, const double *coeffs);
/* The same from kernels already in circulant order: row c (kernels +
 * c*ld, length N, 64-byte aligned, ld a multiple of 8) is channel c's. */
void skit_fdtno_set_kernels(skit_fdtno_plan *plan, const double *kernels, size_t ld);
/* Basis row j (split, scaled by 1/N) = DFT of rows[j*ld ..], a length-N
 * sequence already in circulant order (64-byte aligned, ld a multiple of 8),
 * for j < basis_rows; rows over the threads. */
void skit_fdtno_basis_from_rows(skit_fdtno_plan *plan, const double *rows, size_t ld);
/* The Hilbert step on count real responses, each already scaled by 1/N:
 * im[r*ldo + m] = Im of the causal kernel's spectrum (scaled by 1/N) of
 * re[r*ld + m], m < N/2+1 (N even); rows over the threads. re and im may
 * be the two halves of the plan's spectra. */
void skit_fdtno_hilbert_rows(skit_fdtno_plan *plan, const double *re, size_t ld, size_t count,
                             double *im, size_t ldo);
/* y = the operator applied to batch sequences in TNO layout: rows_layout
 * (batch, n, d) — each thread gathers a group of channels straight from
 * the rows into its FFT buffers, so no transposed copy of x or y is made —
 * or (batch, d, n). x and y must not overlap. Allocates nothing; uses the
 * plan's scratch (one call at a time). */
void skit_fdtno_apply(const skit_fdtno_plan *plan, const double *x, double *y, size_t batch,
                      int rows_layout);

#endif
