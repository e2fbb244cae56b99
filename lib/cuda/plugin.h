/* plugin.h — the functions of the CUDA plugin (libskit-cuda.so): defined
 * in the .cu files, gathered into the table of cuda/backend.h by plugin.c,
 * and reached from libskit only through that table. Their arguments and
 * errors are those of the table's entries. Not installed. */
#ifndef SKIT_CUDA_PLUGIN_H
#define SKIT_CUDA_PLUGIN_H

#include "cuda/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the entry point (a skit_cuda_plugin_entry), the plugin's only export */
const struct skit_cuda_backend *skit_cuda_plugin_init(int abi, const struct skit_cuda_host *host);

/* runtime.cu */
int skit_cuda_backend_status(char *buf, size_t size);
int skit_cuda_backend_malloc(void **ptr, size_t bytes);
void skit_cuda_backend_free(void *ptr);
int skit_cuda_backend_copy(void *dst, const void *src, size_t bytes, int kind);
int skit_cuda_backend_synchronize(void);
int skit_cuda_backend_time(skit_cuda_work work, void *context, size_t repeats, double *seconds);
int skit_cuda_backend_copy_bandwidth(size_t bytes, size_t repeats, double *bytes_per_second);

/* toeplitz.cu */
int skit_cuda_backend_toeplitz_init(struct skit_cuda_toeplitz_plan *plan, const double *coeffs);
int skit_cuda_backend_toeplitz_set_coeffs(struct skit_cuda_toeplitz_plan *plan,
                                          const double *coeffs);
int skit_cuda_backend_toeplitz_device(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                                      const void *x, size_t ldx, void *y, size_t ldy);
int skit_cuda_backend_toeplitz_host(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                                    const double *x, size_t ldx, double *y, size_t ldy);
void skit_cuda_backend_toeplitz_release(struct skit_cuda_toeplitz_plan *plan);

/* attention.cu */
int skit_cuda_backend_attention_init(struct skit_cuda_attention_plan *plan);
int skit_cuda_backend_attention_device(const struct skit_cuda_attention_plan *plan, double scale,
                                       const void *Q, size_t ldq, const void *K, size_t ldk,
                                       const void *V, size_t ldv, void *Y, size_t ldy);
int skit_cuda_backend_attention_host(const struct skit_cuda_attention_plan *plan, double scale,
                                     const double *Q, size_t ldq, const double *K, size_t ldk,
                                     const double *V, size_t ldv, const unsigned char *key_mask,
                                     const unsigned char *query_mask, double *Y, size_t ldy);
void skit_cuda_backend_attention_release(struct skit_cuda_attention_plan *plan);

/* mra.cu */
int skit_cuda_backend_mra_init(struct skit_cuda_mra_plan *plan);
int skit_cuda_backend_mra_device(const struct skit_cuda_mra_plan *plan, const void *Q, size_t ldq,
                                 const void *K, size_t ldk, const void *V, size_t ldv,
                                 const unsigned char *mask, void *Y, size_t ldy);
int skit_cuda_backend_mra_host(const struct skit_cuda_mra_plan *plan, const double *Q, size_t ldq,
                               const double *K, size_t ldk, const double *V, size_t ldv,
                               const unsigned char *mask, double *Y, size_t ldy);
void skit_cuda_backend_mra_release(struct skit_cuda_mra_plan *plan);

/* kernels.cu */
int skit_cuda_backend_complex_multiply(skit_cuda_precision precision, size_t nfreq, size_t d,
                                       int shared, const void *s, size_t lds, void *z, size_t ldz,
                                       int conjugate);
int skit_cuda_backend_band_convolve(skit_cuda_precision precision, size_t n, size_t d, size_t lo,
                                    size_t hi, int shared, const void *taps, const void *x,
                                    size_t ldx, void *y, size_t ldy, int accumulate);
int skit_cuda_backend_interp_init(struct skit_cuda_interp_plan *plan, const size_t *cols,
                                  const double *weights, const size_t *row_ptr,
                                  const size_t *trow, const size_t *tsrc);
int skit_cuda_backend_interp_gather(const struct skit_cuda_interp_plan *plan, size_t d,
                                    const void *u, size_t ldu, void *y, size_t ldy,
                                    int accumulate);
int skit_cuda_backend_interp_scatter(const struct skit_cuda_interp_plan *plan, size_t d,
                                     const void *x, size_t ldx, void *u, size_t ldu);
void skit_cuda_backend_interp_release(struct skit_cuda_interp_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
