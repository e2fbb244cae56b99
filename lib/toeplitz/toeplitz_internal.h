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

/* What the backward (backward.c) reads of a plan (fft.c). */
typedef struct skit_correlate skit_correlate;
typedef struct toeplitz_view {
    size_t m, n, d;
    int shared;
    skit_causality causality;
    const skit_correlate *correlate;
} toeplitz_view;
void toeplitz_plan_view(const skit_toeplitz_plan *p, toeplitz_view *v);

#endif
