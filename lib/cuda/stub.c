/* stub.c — the CUDA backend of a build without CUDA (configure found no
 * nvcc, or --without-cuda): no device is ever available, so api.c stops at
 * its availability check with "cuda: not built" and the entry points below
 * are reached only through a programming error; they answer the same. */
#include "config.h"

#include "core/internal.h"

#include <stdio.h>

#include "cuda/backend.h"

#define NOT_BUILT "cuda: not built"

int skit_cuda_backend_status(char *buf, size_t size)
{
    if (buf && size) snprintf(buf, size, "%s", NOT_BUILT);
    return SKIT_EUNSUPPORTED;
}

static int not_built(void)
{
    return SKIT_ERROR(SKIT_EUNSUPPORTED, NOT_BUILT);
}

int skit_cuda_backend_malloc(void **ptr, size_t bytes) { return not_built(); }
void skit_cuda_backend_free(void *ptr) {}
int skit_cuda_backend_copy(void *dst, const void *src, size_t bytes, int kind) { return not_built(); }
int skit_cuda_backend_synchronize(void) { return not_built(); }
int skit_cuda_backend_time(skit_cuda_work work, void *context, size_t repeats, double *seconds)
{
    return not_built();
}
int skit_cuda_backend_copy_bandwidth(size_t bytes, size_t repeats, double *bytes_per_second)
{
    return not_built();
}

int skit_cuda_backend_toeplitz_init(struct skit_cuda_toeplitz_plan *plan, const double *coeffs)
{
    return not_built();
}
int skit_cuda_backend_toeplitz_set_coeffs(struct skit_cuda_toeplitz_plan *plan,
                                          const double *coeffs)
{
    return not_built();
}
int skit_cuda_backend_toeplitz_device(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                                      const void *x, size_t ldx, void *y, size_t ldy)
{
    return not_built();
}
int skit_cuda_backend_toeplitz_host(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                                    const double *x, size_t ldx, double *y, size_t ldy)
{
    return not_built();
}
void skit_cuda_backend_toeplitz_release(struct skit_cuda_toeplitz_plan *plan) {}

int skit_cuda_backend_attention_init(struct skit_cuda_attention_plan *plan) { return not_built(); }
int skit_cuda_backend_attention_device(const struct skit_cuda_attention_plan *plan, double scale,
                                       const void *Q, size_t ldq, const void *K, size_t ldk,
                                       const void *V, size_t ldv, void *Y, size_t ldy)
{
    return not_built();
}
int skit_cuda_backend_attention_host(const struct skit_cuda_attention_plan *plan, double scale,
                                     const double *Q, size_t ldq, const double *K, size_t ldk,
                                     const double *V, size_t ldv, const unsigned char *key_mask,
                                     const unsigned char *query_mask, double *Y, size_t ldy)
{
    return not_built();
}
void skit_cuda_backend_attention_release(struct skit_cuda_attention_plan *plan) {}

int skit_cuda_backend_mra_init(struct skit_cuda_mra_plan *plan) { return not_built(); }
int skit_cuda_backend_mra_device(const struct skit_cuda_mra_plan *plan, const void *Q, size_t ldq,
                                 const void *K, size_t ldk, const void *V, size_t ldv,
                                 const unsigned char *mask, void *Y, size_t ldy)
{
    return not_built();
}
int skit_cuda_backend_mra_host(const struct skit_cuda_mra_plan *plan, const double *Q, size_t ldq,
                               const double *K, size_t ldk, const double *V, size_t ldv,
                               const unsigned char *mask, double *Y, size_t ldy)
{
    return not_built();
}
void skit_cuda_backend_mra_release(struct skit_cuda_mra_plan *plan) {}

int skit_cuda_backend_complex_multiply(skit_cuda_precision precision, size_t nfreq, size_t d,
                                       int shared, const void *s, size_t lds, void *z, size_t ldz,
                                       int conjugate)
{
    return not_built();
}
int skit_cuda_backend_band_convolve(skit_cuda_precision precision, size_t n, size_t d, size_t lo,
                                    size_t hi, int shared, const void *taps, const void *x,
                                    size_t ldx, void *y, size_t ldy, int accumulate)
{
    return not_built();
}

int skit_cuda_backend_interp_init(struct skit_cuda_interp_plan *plan, const size_t *cols,
                                  const double *weights, const size_t *row_ptr,
                                  const size_t *trow, const size_t *tsrc)
{
    return not_built();
}
int skit_cuda_backend_interp_gather(const struct skit_cuda_interp_plan *plan, size_t d,
                                    const void *u, size_t ldu, void *y, size_t ldy,
                                    int accumulate)
{
    return not_built();
}
int skit_cuda_backend_interp_scatter(const struct skit_cuda_interp_plan *plan, size_t d,
                                     const void *x, size_t ldx, void *u, size_t ldu)
{
    return not_built();
}
void skit_cuda_backend_interp_release(struct skit_cuda_interp_plan *plan) {}
