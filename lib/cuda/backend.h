/* backend.h — between the public CUDA API (lib/cuda/api.c, plain C, built
 * in every configuration: argument validation, availability, ownership) and
 * its implementation (the lib/cuda .cu files when configure found nvcc, otherwise
 * lib/cuda/stub.c). api.c validates every argument before calling a backend
 * function, so the backend only checks what needs the device (memory,
 * library limits). Backend functions raise their own errors. Not installed.
 */
#ifndef SKIT_CUDA_BACKEND_H
#define SKIT_CUDA_BACKEND_H

#include "skit/cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory and cuFFT handles are held as untyped pointers / ints so
 * that this header stays plain C. */
struct skit_cuda_toeplitz_plan {
    size_t m, n, d;
    size_t L;     /* FFT length >= m+n-1 */
    size_t nfreq; /* L/2 + 1 */
    size_t nsets; /* coefficient sets: 1 if shared, else d */
    skit_toeplitz_sharing sharing;
    skit_causality causality;
    skit_cuda_precision precision;
    size_t elt;          /* bytes per real element */
    void *spectra;       /* device: nsets x nfreq complex, scaled by 1/L */
    void *real_work;     /* device: L x d real (padded signal / result) */
    void *complex_work;  /* device: nfreq x d complex */
    void *fft_work;      /* device: one cuFFT work area shared by both plans */
    void *host_stage;    /* pinned host: max(m, n) x d floats (float32 only) */
    int fft_forward, fft_inverse; /* cufftHandle values */
    int have_forward, have_inverse;
    size_t device_bytes;
};

struct skit_cuda_attention_plan {
    size_t n_q, n_k, d_k, d_v, tile;
    int causal;
    skit_cuda_precision precision;
    size_t elt;
    void *logits;        /* device: n_k x tile */
    void *q, *k, *v, *y; /* device copies for the host entry point */
    void *host_stage;    /* pinned host staging (float32 only) */
    void *blas;          /* cublasHandle_t */
    void *blas_work;     /* device: cuBLAS workspace, so GEMMs allocate nothing */
    size_t device_bytes;
};

struct skit_cuda_interp_plan {
    size_t n, r, width;
    skit_cuda_precision precision;
    size_t elt;
    void *cols;    /* device: n*width size_t */
    void *weights; /* device: n*width reals */
    void *t_ptr;   /* device: r+1 size_t (rows of W^T) */
    void *t_row;   /* device: n*width size_t */
    void *t_weights; /* device: n*width reals, W^T's entries in row order */
    size_t device_bytes;
};

/* One line into buf (always terminated). SKIT_OK if a device is usable,
 * else SKIT_EUNSUPPORTED. Raises nothing. */
int skit_cuda_backend_status(char *buf, size_t size);

int skit_cuda_backend_malloc(void **ptr, size_t bytes);
void skit_cuda_backend_free(void *ptr);
/* kind: 0 host->device, 1 device->host, 2 device->device */
int skit_cuda_backend_copy(void *dst, const void *src, size_t bytes, int kind);
int skit_cuda_backend_synchronize(void);
int skit_cuda_backend_time(skit_cuda_work work, void *context, size_t repeats, double *seconds);
int skit_cuda_backend_copy_bandwidth(size_t bytes, size_t repeats, double *bytes_per_second);

/* Allocate the plan's device resources (fields above already set by api.c)
 * and compute the spectra; on failure the caller calls release. */
int skit_cuda_backend_toeplitz_init(struct skit_cuda_toeplitz_plan *plan, const double *coeffs);
int skit_cuda_backend_toeplitz_set_coeffs(struct skit_cuda_toeplitz_plan *plan,
                                          const double *coeffs);
int skit_cuda_backend_toeplitz_device(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                                      const void *x, size_t ldx, void *y, size_t ldy);
int skit_cuda_backend_toeplitz_host(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                                    const double *x, size_t ldx, double *y, size_t ldy);
/* Frees whatever init managed to allocate (NULL/zero fields are skipped). */
void skit_cuda_backend_toeplitz_release(struct skit_cuda_toeplitz_plan *plan);

int skit_cuda_backend_attention_init(struct skit_cuda_attention_plan *plan);
int skit_cuda_backend_attention_device(const struct skit_cuda_attention_plan *plan, double scale,
                                       const void *Q, size_t ldq, const void *K, size_t ldk,
                                       const void *V, size_t ldv, void *Y, size_t ldy);
int skit_cuda_backend_attention_host(const struct skit_cuda_attention_plan *plan, double scale,
                                     const double *Q, size_t ldq, const double *K, size_t ldk,
                                     const double *V, size_t ldv, double *Y, size_t ldy);
void skit_cuda_backend_attention_release(struct skit_cuda_attention_plan *plan);

int skit_cuda_backend_complex_multiply(skit_cuda_precision precision, size_t nfreq, size_t d,
                                       int shared, const void *s, size_t lds, void *z, size_t ldz,
                                       int conjugate);
int skit_cuda_backend_band_convolve(skit_cuda_precision precision, size_t n, size_t d, size_t lo,
                                    size_t hi, int shared, const void *taps, const void *x,
                                    size_t ldx, void *y, size_t ldy, int accumulate);

/* row_ptr/trow/tsrc: W^T built on the host by skit_cuda_interp_transpose. */
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
