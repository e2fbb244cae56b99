/* plan_tno.c — the CUDA backend behind skit_tno (options.device =
 * SKIT_DEVICE_CUDA), float64, on host arrays:
 *   TNO, FD-TNO   y_c = T_c x_c by the device's batched cuFFT Toeplitz plan
 *                 with the operator's coefficients (for FD-TNO its impulse
 *                 response folded into Toeplitz form, as skit_tno_coeffs);
 *   SKI-TNO       y = W (A (W^T x)) + S x: interpolation scatter / gather
 *                 plans, the r x r cuFFT Toeplitz plan of A, the band kernel
 *                 (bidirectional only).
 * The parameters, the RPE MLP and the kernels stay on the CPU side of the
 * plan (lib/tno); update re-uploads the kernels. Sequences are mixed one at
 * a time in channel-major form (the ROWS layout is transposed on the host
 * into the plan's buffers). Built in every configuration: without CUDA the
 * device plans answer "cuda: not built". */
#include "config.h"

#include <string.h>

#include "core/internal.h"
#include "skit/cuda.h"
#include "tno/tno_internal.h"

typedef struct tno_device {
    skit_cuda_toeplitz_plan *toeplitz; /* TNO / FD: n x n; SKI: r x r (A_c) */
    skit_cuda_interp_plan *interp;     /* SKI: W */
    double *coeffs;                    /* FD: d x (2n-1) Toeplitz coefficients */
    double *impulse;                   /* FD: N x d impulse responses */
    double *xt, *yt;                   /* SKI in ROWS: one sequence, channel-major */
    size_t *cols;                      /* SKI: W's columns (set-up only) */
    void *x, *y;                       /* device: n x d */
    void *u, *v;                       /* device SKI: r x d */
    void *taps;                        /* device SKI: m x d (NULL without a band) */
    size_t host_bytes;
} tno_device;

int skit_tno_device_supported(const skit_tno_options *o)
{
    if (o->kind == SKIT_TNO_SKI && o->causality == SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "causal SKI-TNO runs on the CPU only (its running sums are sequential): "
                          "use device = cpu, or a bidirectional SKI-TNO on cuda");
    return SKIT_OK;
}

/* FD: coefficients in skit's layout from the plan's impulse responses
 * (the fold of lib/tno/reference.c: lag l at l mod N, causal negative lags 0). */
static int fd_coeffs(const skit_tno *p, tno_device *dv)
{
    const size_t n = p->n, d = p->d, per = 2 * n - 1, N = skit_fdtno_fft_length(p->fd);
    SKIT_TRY(skit_fdtno_impulse(p->fd, dv->impulse, N));
    for (size_t c = 0; c < d; c++) {
        const double *kc = dv->impulse + c * N;
        double *t = dv->coeffs + c * per;
        for (size_t q = 0; q < per; q++) {
            long lag = (long)q - (long)(n - 1);
            if (lag < 0 && p->opt.causality == SKIT_CAUSAL) t[q] = 0.0;
            else t[q] = kc[lag < 0 ? N - (size_t)(-lag) : (size_t)lag];
        }
    }
    return SKIT_OK;
}

/* SKI: the taps (after the knots in the parameter vector) to the device. */
static int ski_taps(const skit_tno *p, tno_device *dv)
{
    if (!dv->taps) return SKIT_OK;
    return skit_cuda_copy_to_device(dv->taps, p->params + p->d * 2 * p->K,
                                    p->m * p->d * sizeof(double));
}

static int device_alloc(void **ptr, size_t count)
{
    return skit_cuda_malloc(ptr, count * sizeof(double));
}

static int create_fft(skit_tno *p, tno_device *dv)
{
    const double *coeffs = p->coeffs;
    if (p->opt.kind == SKIT_TNO_FD) {
        size_t N = skit_fdtno_fft_length(p->fd);
        dv->impulse = skit_malloc(N, p->d * sizeof(double));
        dv->coeffs = skit_malloc(2 * p->n - 1, p->d * sizeof(double));
        if (!dv->impulse || !dv->coeffs) return SKIT_ENOMEM;
        dv->host_bytes += (N + 2 * p->n - 1) * p->d * sizeof(double);
        SKIT_TRY(fd_coeffs(p, dv));
        coeffs = dv->coeffs;
    }
    return skit_cuda_toeplitz_plan_create(&dv->toeplitz, p->n, p->n, p->d,
                                          SKIT_TOEPLITZ_PER_CHANNEL, p->opt.causality,
                                          SKIT_CUDA_FLOAT64, coeffs);
}

static int create_ski(skit_tno *p, tno_device *dv)
{
    const skit_interp_weights *W = p->W;
    const size_t n = p->n, d = p->d, r = p->r, width = W->width;
    dv->cols = skit_malloc(n, width * sizeof(size_t));
    if (!dv->cols) return SKIT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < width; k++) dv->cols[i * width + k] = W->start[i] + k;
    int status = skit_cuda_interp_plan_create(&dv->interp, n, r, width, dv->cols, W->weights,
                                              SKIT_CUDA_FLOAT64);
    skit_free(dv->cols);
    dv->cols = NULL;
    SKIT_TRY(status);
    SKIT_TRY(skit_cuda_toeplitz_plan_create(&dv->toeplitz, r, r, d, SKIT_TOEPLITZ_PER_CHANNEL,
                                            SKIT_BIDIRECTIONAL, SKIT_CUDA_FLOAT64, p->a_coeffs));
    SKIT_TRY(device_alloc(&dv->u, r * d));
    SKIT_TRY(device_alloc(&dv->v, r * d));
    if (p->m) {
        SKIT_TRY(device_alloc(&dv->taps, p->m * d));
        SKIT_TRY(ski_taps(p, dv));
    }
    if (p->opt.layout == SKIT_TNO_ROWS) {
        dv->xt = skit_malloc(n, d * sizeof(double));
        dv->yt = skit_malloc(n, d * sizeof(double));
        if (!dv->xt || !dv->yt) return SKIT_ENOMEM;
        dv->host_bytes += 2 * n * d * sizeof(double);
    }
    return SKIT_OK;
}

int skit_tno_device_create(skit_tno *p)
{
    SKIT_TRY(skit_tno_device_supported(&p->opt));
    tno_device *dv = skit_calloc(1, sizeof *dv);
    if (!dv) return SKIT_ENOMEM;
    p->dev = dv; /* from here on skit_tno_destroy releases it */
    dv->host_bytes = sizeof *dv;
    SKIT_TRY(device_alloc(&dv->x, p->n * p->d));
    SKIT_TRY(device_alloc(&dv->y, p->n * p->d));
    if (p->opt.kind == SKIT_TNO_SKI) return create_ski(p, dv);
    return create_fft(p, dv);
}

int skit_tno_device_update(skit_tno *p)
{
    tno_device *dv = p->dev;
    switch (p->opt.kind) {
    case SKIT_TNO_FFT: return skit_cuda_toeplitz_plan_set_coeffs(dv->toeplitz, p->coeffs);
    case SKIT_TNO_FD:
        SKIT_TRY(fd_coeffs(p, dv));
        return skit_cuda_toeplitz_plan_set_coeffs(dv->toeplitz, dv->coeffs);
    case SKIT_TNO_SKI:
        SKIT_TRY(skit_cuda_toeplitz_plan_set_coeffs(dv->toeplitz, p->a_coeffs));
        return ski_taps(p, dv);
    }
    return SKIT_ERROR(SKIT_EINVAL, "plan of unknown kind %d", (int)p->opt.kind);
}

/* One sequence, channel-major n x d (ld n) on the host, x -> y. */
static int mix_one(const skit_tno *p, const tno_device *dv, const double *x, double *y)
{
    const size_t n = p->n, d = p->d, bytes = n * d * sizeof(double);
    SKIT_TRY(skit_cuda_copy_to_device(dv->x, x, bytes));
    if (p->opt.kind == SKIT_TNO_SKI) {
        size_t r = p->r, half = p->m / 2;
        SKIT_TRY(skit_cuda_interp_scatter_device(dv->interp, d, dv->x, n, dv->u, r));
        SKIT_TRY(skit_cuda_toeplitz_execute_device(dv->toeplitz, dv->u, r, dv->v, r));
        SKIT_TRY(skit_cuda_interp_gather_device(dv->interp, d, dv->v, r, dv->y, n, 0));
        if (dv->taps)
            SKIT_TRY(skit_cuda_band_convolve_device(SKIT_CUDA_FLOAT64, n, d, half, half, 0,
                                                    dv->taps, dv->x, n, dv->y, n, 1));
    } else {
        SKIT_TRY(skit_cuda_toeplitz_execute_device(dv->toeplitz, dv->x, n, dv->y, n));
    }
    return skit_cuda_copy_to_host(y, dv->y, bytes); /* waits for the work above */
}

int skit_tno_device_execute(const skit_tno *p, const double *x, double *y)
{
    const tno_device *dv = p->dev;
    const size_t n = p->n, d = p->d, block = n * d;
    /* channel-major buffers for the ROWS layout: the CPU side's (TNO, FD) or ours (SKI) */
    double *xt = dv->xt ? dv->xt : p->xt, *yt = dv->yt ? dv->yt : p->yt;
    for (size_t b = 0; b < p->batch; b++) {
        const double *xb = x + b * block;
        double *yb = y + b * block;
        if (p->opt.layout == SKIT_TNO_CHANNELS) {
            SKIT_TRY(mix_one(p, dv, xb, yb));
            continue;
        }
        skit_tno_transpose(xb, n, d, xt);
        SKIT_TRY(mix_one(p, dv, xt, yt));
        skit_tno_transpose(yt, d, n, yb);
    }
    return SKIT_OK;
}

void skit_tno_device_destroy(skit_tno *p)
{
    tno_device *dv = p->dev;
    if (!dv) return;
    skit_cuda_toeplitz_plan_destroy(dv->toeplitz);
    skit_cuda_interp_plan_destroy(dv->interp);
    skit_cuda_free(dv->x);
    skit_cuda_free(dv->y);
    skit_cuda_free(dv->u);
    skit_cuda_free(dv->v);
    skit_cuda_free(dv->taps);
    skit_free(dv->coeffs);
    skit_free(dv->impulse);
    skit_free(dv->xt);
    skit_free(dv->yt);
    skit_free(dv->cols);
    skit_free(dv);
    p->dev = NULL;
}

size_t skit_tno_device_bytes(const skit_tno *p)
{
    const tno_device *dv = p ? p->dev : NULL;
    if (!dv) return 0;
    size_t total = dv->host_bytes;
    total += skit_cuda_toeplitz_plan_device_bytes(dv->toeplitz);
    total += skit_cuda_interp_plan_device_bytes(dv->interp);
    total += 2 * p->n * p->d * sizeof(double);
    if (dv->u) total += 2 * p->r * p->d * sizeof(double);
    if (dv->taps) total += p->m * p->d * sizeof(double);
    return total;
}

size_t skit_tno_device_fft_length(const skit_tno *p)
{
    const tno_device *dv = p ? p->dev : NULL;
    return dv ? skit_cuda_toeplitz_plan_fft_length(dv->toeplitz) : 0;
}
