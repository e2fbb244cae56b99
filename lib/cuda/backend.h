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
    void *key_mask, *query_mask; /* device: n_k and n_q bytes (masked host entry) */
    void *host_stage;    /* pinned host staging (float32 only) */
    void *blas;          /* cublasHandle_t */
    void *blas_work;     /* device: cuBLAS workspace, so GEMMs allocate nothing */
    size_t device_bytes;
};

/* MRA-2 / MRA-2-s, R = {b, 1} (lib/cuda/mra.cu; layouts in index_logic.h). */
struct skit_cuda_mra_plan {
    size_t n, d, dv, b, rows, per_row;
    size_t ref_cap;       /* refined squares the buffers hold */
    int sparse;           /* MRA-2-s: the fine level only */
    skit_mra_selection selection;
    size_t diagonal_prior;
    int first_block_prior;
    double scale, shift_bias;
    skit_cuda_precision precision;
    size_t elt;
    /* device */
    void *qm, *km, *vm, *cnt; /* block means rows x d, rows x d, rows x dv; counts rows */
    void *coarse;             /* rows x rows logits coarse[y + x*rows]; then the weights */
    void *m0, *den0, *num0;   /* coarse level: rows, rows, rows x dv */
    void *csr;                /* uint32: row_ptr (rows+1), cols (ref_cap), prow (ref_cap) */
    void *ptrs;               /* 6 * ref_cap pointers of the batched GEMMs */
    void *fine;               /* ref_cap x b x b fine logits, then weights */
    void *fnum;               /* ref_cap x b x dv numerators */
    void *mf, *denf;          /* fine level: n each */
    void *q, *k, *v, *y;      /* device copies for the host entry point */
    void *mask;               /* n bytes for the host entry point */
    void *blas;               /* cublasHandle_t */
    void *blas_work;
    /* host */
    double *h_coarse, *h_score, *h_tmp; /* rows^2 each */
    uint32_t *h_ids;          /* rows */
    unsigned char *h_flags;   /* rows */
    uint32_t *h_csr;          /* as csr */
    void *host_stage;         /* pinned: float32 staging and the coarse copy */
    size_t *state;            /* state[0]: squares refined by the last execute */
    size_t device_bytes;
};

/* Algorithm 1 on the host (lib/cuda/mra_select.c, built everywhere):
 * logit is rows x rows, logit[y + x*rows] the coarse logit of query block x
 * and key block y (-inf for an empty block). Selects per_row squares per
 * row (SKIT_MRA_PER_ROW) or rows * per_row overall (SKIT_MRA_GLOBAL; all
 * when that exceeds rows^2) exactly as the CPU plan, and writes the CSR:
 * row_ptr (rows+1), cols and prow (one per square, key blocks ascending
 * within a row). Scratch: score, tmp (rows^2 doubles), ids (rows), flags
 * (rows bytes). Returns the number of squares. */
size_t skit_cuda_mra_select(size_t rows, const double *logit, size_t per_row,
                            skit_mra_selection selection, size_t diagonal_prior,
                            int first_block_prior, double *score, double *tmp, uint32_t *ids,
                            unsigned char *flags, uint32_t *row_ptr, uint32_t *cols,
                            uint32_t *prow);

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
/* key_mask / query_mask: NULL or host arrays of n_k / n_q bytes */
int skit_cuda_backend_attention_host(const struct skit_cuda_attention_plan *plan, double scale,
                                     const double *Q, size_t ldq, const double *K, size_t ldk,
                                     const double *V, size_t ldv, const unsigned char *key_mask,
                                     const unsigned char *query_mask, double *Y, size_t ldy);
void skit_cuda_backend_attention_release(struct skit_cuda_attention_plan *plan);

/* Allocate the plan's device and host resources (fields above set by
 * api.c); on failure the caller calls release. */
int skit_cuda_backend_mra_init(struct skit_cuda_mra_plan *plan);
/* mask: NULL or n device bytes */
int skit_cuda_backend_mra_device(const struct skit_cuda_mra_plan *plan, const void *Q, size_t ldq,
                                 const void *K, size_t ldk, const void *V, size_t ldv,
                                 const unsigned char *mask, void *Y, size_t ldy);
/* mask: NULL or n host bytes */
int skit_cuda_backend_mra_host(const struct skit_cuda_mra_plan *plan, const double *Q, size_t ldq,
                               const double *K, size_t ldk, const double *V, size_t ldv,
                               const unsigned char *mask, double *Y, size_t ldy);
void skit_cuda_backend_mra_release(struct skit_cuda_mra_plan *plan);

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
