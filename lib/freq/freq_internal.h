/* freq_internal.h — declarations shared by the files of lib/freq and the
 * token mixers of lib/tno (which run on the FD-TNO engine and the
 * feature-major MLP); not installed. Arguments of these functions are
 * trusted (callers validate). */
#ifndef SKIT_FREQ_INTERNAL_H
#define SKIT_FREQ_INTERNAL_H

#include "skit/freq.h"
#include "skit/mlp.h"

/* Doubles of scratch skit_mlp_taylor_batch needs. */
size_t skit_mlp_taylor_workspace(const skit_mlp *mlp, size_t points, size_t terms);

/* Push Taylor series through the MLP at `points` expansion points at once.
 * input: points x terms x in_dim (row-major): the normalised coefficients
 * (f^(k)/k!) of each input as a function of the expansion variable;
 * output: points x terms x out_dim, normalised coefficients of each output;
 * kinks[p] = 1 if a ReLU pre-activation at point p was within 1e-12 of 0.
 * terms <= SKIT_SERIES_MAX. Errors: SKIT_EDOM (RMS norm of a zero layer). */
int skit_mlp_taylor_batch(const skit_mlp *mlp, size_t points, size_t terms, const double *input,
                          double *output, int *kinks, double *work);

/* Number of activations the input passes through: (hidden_layers+1)*width. */
size_t skit_mlp_preactivation_count(const skit_mlp *mlp);

/* Evaluate one input x (in_dim values) and record the value every
 * activation receives (after the norm): pre has
 * skit_mlp_preactivation_count entries; y gets out_dim outputs.
 * Errors: SKIT_ENOMEM. */
int skit_mlp_preactivations(const skit_mlp *mlp, const double *x, double *pre, double *y);

/* The MLP's activation and norm. */
skit_activation skit_mlp_activation_of(const skit_mlp *mlp);
skit_norm skit_mlp_norm_of(const skit_mlp *mlp);

/* ---- feature-major MLP evaluation (mlp.c) -------------------------------
 * out[j*ldo + k] = scale[k] * act(norm(h(x_k)))_j, j < width, k < count:
 * the activations the output Linear consumes (the "features"), one row per
 * hidden unit with the inputs along it; scale NULL: none. x is count x
 * in_dim row-major. work: skit_mlp_features_workspace(mlp) doubles. The
 * output layer is left to the caller (skit_mlp_output_layer), which can
 * then apply it in whatever basis is cheapest (the token mixers push it
 * past their FFTs). Allocates nothing; always SKIT_OK. */
size_t skit_mlp_features_workspace(const skit_mlp *mlp);
int skit_mlp_features(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                      double *out, size_t ldo, double *work);
/* The two ways skit_mlp_features chooses between, for the tests: layer by
 * layer with GEMMs over blocks of inputs (any MLP; always SKIT_OK), and
 * for ReLU with one input a sweep along the inputs that keeps each layer
 * in a basis of (layers + 2) vectors while the ReLU masks below it hold
 * (mlp.c; SKIT_EINVAL where it does not apply; skit_mlp_features takes it
 * from 32 inputs on). */
int skit_mlp_features_dense(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work);
int skit_mlp_features_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work);
/* The MLP's outputs by the sweep, the output layer applied on the last
 * layer's basis (out_dim x (layers + 3) per input instead of out_dim x
 * width): output r of input k, times scale[k] (NULL: 1), goes to
 * out[(r % split) ldo + (r / split) part + k]; row_ss (NULL: none; else
 * out_dim values, set by the caller) gets each row's sum of squares added
 * (NaN/Inf where an output is), for the callers' overflow checks without
 * another pass over the outputs (|output| <= its root); *changes (NULL: none) gets the number of inputs
 * at which a ReLU mask changed added to it (the first counts), which says
 * whether the sweep paid. Needs what the sweep
 * needs (else SKIT_EINVAL) and work of skit_mlp_outputs_workspace(mlp)
 * doubles; skit_mlp_outputs_sweep_able says whether it applies and pays
 * for `count` inputs in all (which may then be split into any pieces). */
int skit_mlp_outputs_sweep_able(const skit_mlp *mlp, size_t count);
size_t skit_mlp_outputs_workspace(const skit_mlp *mlp);
int skit_mlp_outputs_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale, double *out,
                           size_t ldo, size_t split, size_t part, double *row_ss, size_t *changes,
                           double *work);
/* The last Linear: weight out_dim x width row-major, then its bias. */
void skit_mlp_output_layer(const skit_mlp *mlp, const double **weight, const double **bias);

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
