/* backend.h — the contract between libskit and the CUDA backend, a plugin
 * (libskit-cuda.so, the .cu files and plugin.c) that libskit loads with
 * dlopen on first use (loader.c), so that CPU-only use never needs the CUDA
 * runtime. Both sides share the plan structs below; libskit reaches the
 * plugin through ONE table of functions (struct skit_cuda_backend), and the
 * plugin reaches libskit's error raising and allocator through the host
 * services it is given (struct skit_cuda_host), not through symbols.
 *
 * libskit's side (api.c, plans.c: plain C, in every configuration)
 * validates every argument before it calls the table, so the backend only
 * checks what needs the device (memory, library limits). Backend functions
 * raise their own errors. Not installed.
 */
#ifndef SKIT_CUDA_BACKEND_H
#define SKIT_CUDA_BACKEND_H

#include "cuda/mra_rules.h"
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

/* MRA-2 / MRA-2-s, R = {b, 1} (mra.cu; layouts in index_logic.h). */
struct skit_cuda_mra_plan {
    size_t n, d, dv, b, rows, per_row;
    size_t ref_cap;       /* refined squares the buffers hold */
    int sparse;           /* MRA-2-s: the fine level only */
    skit_mra_selection selection;
    size_t diagonal_prior;
    int first_block_prior;
    skit_cuda_mra_select_fn select; /* the attention module's rule (mra_rules.h) */
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

/* Bump whenever anything in this header changes: a plugin from another
 * build of skit is then refused instead of misreading the structs. */
#define SKIT_CUDA_PLUGIN_ABI 1

/* What libskit lends the plugin: its error record (skit_error_raise, with
 * the message already formatted: fmt is "%s") and its allocator, so that
 * the plugin's errors reach skit_last_error and the handler, and its host
 * buffers count as the library's. */
struct skit_cuda_host {
    int (*error_raise)(int status, const char *file, int line, const char *fmt, ...);
    void *(*malloc)(size_t count, size_t size);
    void *(*calloc)(size_t count, size_t size);
    void (*free)(void *ptr);
};

/* The plugin's functions. The plan structs' fields above are set by
 * libskit; *_init allocate the plan's device resources (on failure libskit
 * calls *_release, which frees whatever init managed to allocate).
 * status: one line into buf (always terminated); SKIT_OK if a device is
 * usable, else SKIT_EUNSUPPORTED ("cuda: no device (<reason>)"); raises
 * nothing. copy: kind 0 host->device, 1 device->host, 2 device->device.
 * interp_init: row_ptr/trow/tsrc are W^T built on the host by
 * skit_cuda_interp_transpose. Masks of the host entry points are host
 * arrays (attention: n_k / n_q bytes, MRA: n bytes) or NULL; the MRA's
 * device entry point takes n device bytes. */
struct skit_cuda_backend {
    int (*status)(char *buf, size_t size);

    int (*malloc)(void **ptr, size_t bytes);
    void (*free)(void *ptr);
    int (*copy)(void *dst, const void *src, size_t bytes, int kind);
    int (*synchronize)(void);
    int (*time)(skit_cuda_work work, void *context, size_t repeats, double *seconds);
    int (*copy_bandwidth)(size_t bytes, size_t repeats, double *bytes_per_second);

    int (*toeplitz_init)(struct skit_cuda_toeplitz_plan *plan, const double *coeffs);
    int (*toeplitz_set_coeffs)(struct skit_cuda_toeplitz_plan *plan, const double *coeffs);
    int (*toeplitz_device)(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                           const void *x, size_t ldx, void *y, size_t ldy);
    int (*toeplitz_host)(const struct skit_cuda_toeplitz_plan *plan, int transpose,
                         const double *x, size_t ldx, double *y, size_t ldy);
    void (*toeplitz_release)(struct skit_cuda_toeplitz_plan *plan);

    int (*attention_init)(struct skit_cuda_attention_plan *plan);
    int (*attention_device)(const struct skit_cuda_attention_plan *plan, double scale,
                            const void *Q, size_t ldq, const void *K, size_t ldk, const void *V,
                            size_t ldv, void *Y, size_t ldy);
    int (*attention_host)(const struct skit_cuda_attention_plan *plan, double scale,
                          const double *Q, size_t ldq, const double *K, size_t ldk,
                          const double *V, size_t ldv, const unsigned char *key_mask,
                          const unsigned char *query_mask, double *Y, size_t ldy);
    void (*attention_release)(struct skit_cuda_attention_plan *plan);

    int (*mra_init)(struct skit_cuda_mra_plan *plan);
    int (*mra_device)(const struct skit_cuda_mra_plan *plan, const void *Q, size_t ldq,
                      const void *K, size_t ldk, const void *V, size_t ldv,
                      const unsigned char *mask, void *Y, size_t ldy);
    int (*mra_host)(const struct skit_cuda_mra_plan *plan, const double *Q, size_t ldq,
                    const double *K, size_t ldk, const double *V, size_t ldv,
                    const unsigned char *mask, double *Y, size_t ldy);
    void (*mra_release)(struct skit_cuda_mra_plan *plan);

    int (*complex_multiply)(skit_cuda_precision precision, size_t nfreq, size_t d, int shared,
                            const void *s, size_t lds, void *z, size_t ldz, int conjugate);
    int (*band_convolve)(skit_cuda_precision precision, size_t n, size_t d, size_t lo, size_t hi,
                         int shared, const void *taps, const void *x, size_t ldx, void *y,
                         size_t ldy, int accumulate);

    int (*interp_init)(struct skit_cuda_interp_plan *plan, const size_t *cols,
                       const double *weights, const size_t *row_ptr, const size_t *trow,
                       const size_t *tsrc);
    int (*interp_gather)(const struct skit_cuda_interp_plan *plan, size_t d, const void *u,
                         size_t ldu, void *y, size_t ldy, int accumulate);
    int (*interp_scatter)(const struct skit_cuda_interp_plan *plan, size_t d, const void *x,
                          size_t ldx, void *u, size_t ldu);
    void (*interp_release)(struct skit_cuda_interp_plan *plan);
};

/* The plugin's one exported symbol, looked up by this name: returns its
 * table, or NULL when abi is not the plugin's own SKIT_CUDA_PLUGIN_ABI.
 * host must outlive the plugin. Called once per process. */
#define SKIT_CUDA_PLUGIN_ENTRY "skit_cuda_plugin_init"
typedef const struct skit_cuda_backend *(*skit_cuda_plugin_entry)(int abi,
                                                                 const struct skit_cuda_host *host);

#ifdef __cplusplus
}
#endif
#endif
