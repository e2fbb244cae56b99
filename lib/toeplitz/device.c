/* device.c — a Toeplitz plan on the GPU (toeplitz_internal.h): the batched
 * cuFFT product of lib/cuda (skit/cuda.h) behind skit_toeplitz_plan's
 * calls. Built in every configuration: without CUDA, or without a GPU,
 * creating one answers SKIT_EUNSUPPORTED. */
#include "config.h"

#include <pthread.h>

#include "skit/cuda.h"
#include "toeplitz/toeplitz_internal.h"

struct toeplitz_device {
    skit_cuda_toeplitz_plan *plan;
    pthread_mutex_t lock; /* the plan's device buffers serve one call at a time */
    int have_lock;
};

void toeplitz_device_destroy(toeplitz_device *dev)
{
    if (!dev) return;
    skit_cuda_toeplitz_plan_destroy(dev->plan);
    if (dev->have_lock) pthread_mutex_destroy(&dev->lock);
    skit_free(dev);
}

int toeplitz_device_create(toeplitz_device **device, size_t m, size_t n, size_t d,
                           const skit_toeplitz_options *o, const double *coeffs)
{
    *device = NULL;
    SKIT_TRY(skit_device_check(SKIT_DEVICE_CUDA));
    toeplitz_device *dev = skit_calloc(1, sizeof *dev);
    if (!dev) return SKIT_ENOMEM;
    int status = SKIT_OK;
    if (pthread_mutex_init(&dev->lock, NULL) != 0)
        status = SKIT_ERROR(SKIT_ENOMEM, "Toeplitz device plan: no mutex");
    else
        dev->have_lock = 1;
    if (status == SKIT_OK)
        status = skit_cuda_toeplitz_plan_create(&dev->plan, m, n, d, o->sharing, o->causality,
                                                SKIT_CUDA_FLOAT64, coeffs);
    if (status != SKIT_OK) {
        toeplitz_device_destroy(dev);
        return status;
    }
    *device = dev;
    return SKIT_OK;
}

int toeplitz_device_set_coeffs(toeplitz_device *dev, const double *coeffs)
{
    return skit_cuda_toeplitz_plan_set_coeffs(dev->plan, coeffs);
}

int toeplitz_device_execute(toeplitz_device *dev, int transpose, const double *x, size_t ldx,
                            double *y, size_t ldy)
{
    pthread_mutex_lock(&dev->lock);
    int status = transpose ? skit_cuda_toeplitz_execute_transpose(dev->plan, x, ldx, y, ldy)
                           : skit_cuda_toeplitz_execute(dev->plan, x, ldx, y, ldy);
    pthread_mutex_unlock(&dev->lock);
    return status;
}

size_t toeplitz_device_fft_length(const toeplitz_device *dev)
{
    return skit_cuda_toeplitz_plan_fft_length(dev->plan);
}

size_t toeplitz_device_bytes(const toeplitz_device *dev)
{
    return sizeof *dev + skit_cuda_toeplitz_plan_device_bytes(dev->plan);
}
