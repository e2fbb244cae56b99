/* toeplitz_internal.h — shared by the files of lib/toeplitz only. */
#ifndef SKIT_TOEPLITZ_INTERNAL_H
#define SKIT_TOEPLITZ_INTERNAL_H

#include "core/internal.h"
#include "skit/toeplitz.h"

/* The GPU side of a plan with device = SKIT_DEVICE_CUDA (device.c): the
 * cuFFT plan of skit/cuda.h in float64 on host arrays, one execute at a
 * time (its device buffers are the plan's). */
typedef struct toeplitz_device toeplitz_device;

int toeplitz_device_create(toeplitz_device **device, size_t m, size_t n, size_t d,
                           const skit_toeplitz_options *options, const double *coeffs);
int toeplitz_device_set_coeffs(toeplitz_device *device, const double *coeffs);
int toeplitz_device_execute(toeplitz_device *device, int transpose, const double *x, size_t ldx,
                            double *y, size_t ldy);
size_t toeplitz_device_fft_length(const toeplitz_device *device);
size_t toeplitz_device_bytes(const toeplitz_device *device);
void toeplitz_device_destroy(toeplitz_device *device);

/* The raw Levinson recursions (levinson.c), used by the checked solves of
 * solve.c. They solve T W = W in place (W: n x nrhs, ld n) and raise no
 * error: on failure they return SKIT_ENOTPD (SPD) or SKIT_EBREAKDOWN
 * (general) with W partly overwritten and the outcome filled in.
 * scratch: 3n doubles (SPD: t is the first column, t[0] > 0 checked
 * here) or 4n doubles (general: coeffs has 2n-1 entries). */
typedef struct levinson_outcome {
    size_t failed_order; /* order of the first (numerically) singular or
                            non-positive leading minor; 0: completed */
    double pivot;        /* the pivot at that order (last pivot if none) */
    double tolerance;    /* n eps sum|t|: pivots at or below it stop */
    int overflow;        /* stopped by overflow rather than a small pivot */
} levinson_outcome;

int toeplitz_levinson_spd(size_t n, const double *t, size_t nrhs, double *W, double *scratch,
                          levinson_outcome *out);
int toeplitz_levinson_general(size_t n, const double *coeffs, size_t nrhs, double *W,
                              double *scratch, levinson_outcome *out);

/* What the backward (backward.c) reads of a plan (fft.c). */
typedef struct skit_correlate skit_correlate;
typedef struct skit_correlatef skit_correlatef;
typedef struct toeplitz_view {
    size_t m, n, d;
    int shared;
    skit_causality causality;
    skit_precision precision;
    skit_layout layout;
    const skit_correlate *correlate;   /* float64 plans */
    const skit_correlatef *correlate_f; /* float32 plans */
} toeplitz_view;
void toeplitz_plan_view(const skit_toeplitz_plan *p, toeplitz_view *v);
/* SKIT_ESHAPE/SKIT_EOVERFLOW unless ldx and ldy fit the plan's layout for
 * an input of the product (transpose 0) or of the transposed one. */
int toeplitz_check_lds(const skit_toeplitz_plan *p, int transpose, size_t ldx, size_t ldy);

#endif
