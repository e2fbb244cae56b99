/* device.c — the CUDA side of a token-mixing plan (options.device =
 * SKIT_DEVICE_CUDA), float64, on host arrays, through lib/cuda's building
 * blocks (skit/cuda.h):
 *   TNO, FD-TNO   y_c = T_c x_c by the device's batched cuFFT Toeplitz plan
 *                 with the operator's coefficients (for FD-TNO its impulse
 *                 response folded into Toeplitz form, as skit_tno_plan_coeffs);
 *   SKI-TNO       y = W (A (W^T x)) + S x: interpolation scatter / gather
 *                 plans, the r x r cuFFT Toeplitz plan of A, the band kernel
 *                 (bidirectional only).
 * The parameters, the RPE MLP and the kernels stay on the CPU side of the
 * plan (lib/tno); update re-uploads the kernels. Sequences are mixed one at
 * a time in channel-major form (the ROWS layout is transposed on the host
 * into the plan's buffers). The device buffers are the plan's, so executes
 * on one device plan run one at a time (a mutex). Built in every
 * configuration: without CUDA the device plans answer "cuda: not built". */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "skit/cuda.h"
#include "tno/tno_internal.h"

typedef struct tno_device {
    skit_cuda_toeplitz_plan *toeplitz; /* TNO / FD: n x n; SKI: r x r (A_c) */
    skit_cuda_interp_plan *interp;     /* SKI: W */
    double *coeffs;                    /* FD: d x (2n-1) Toeplitz coefficients */
    double *xt, *yt;                   /* ROWS: one sequence, channel-major */
    size_t *cols;                      /* SKI: W's columns (set-up only) */
    void *x, *y;                       /* device: n x d */
    void *u, *v;                       /* device SKI: r x d */
    void *taps;                        /* device SKI: m x d (NULL without a band) */
    size_t host_bytes;
    pthread_mutex_t lock;              /* one execute at a time on the buffers above */
    int have_lock;
} tno_device;

int tno_device_supported(const skit_tno_options *o)
{
    if (o->kind == SKIT_TNO_SKI && o->causality == SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "causal SKI-TNO runs on the CPU only (its running sums are sequential): "
                          "use device = cpu, or a bidirectional SKI-TNO on cuda");
    return SKIT_OK;
}

/* SKI: the taps (after the knots in the parameter vector) to the device. */
static int ski_taps(const skit_tno_plan *p, tno_device *dv)
{
    const tno_ski *s = p->op;
    if (!dv->taps) return SKIT_OK;
    return skit_cuda_copy_to_device(dv->taps, s->params + p->d * 2 * s->K, s->m * p->d * sizeof(double));
}

static int device_alloc(void **ptr, size_t count)
{
    return skit_cuda_malloc(ptr, count * sizeof(double));
}

/* TNO and FD-TNO: the batched Toeplitz product of their coefficients (for
 * FD-TNO the Toeplitz form of its circular product, skit_tno_plan_coeffs) */
static const double *toeplitz_coeffs(const skit_tno_plan *p, tno_device *dv)
{
    const tno_spectral *s = p->op;
    return p->opt.kind == SKIT_TNO_FFT ? s->coeffs : dv->coeffs;
}

static int create_fft(skit_tno_plan *p, tno_device *dv)
{
    if (p->opt.kind == SKIT_TNO_FD) {
        dv->coeffs = skit_malloc(2 * p->n - 1, p->d * sizeof(double));
        if (!dv->coeffs) return SKIT_ENOMEM;
        dv->host_bytes += (2 * p->n - 1) * p->d * sizeof(double);
        SKIT_TRY(p->ops->coeffs(p, dv->coeffs));
    }
    return skit_cuda_toeplitz_plan_create(&dv->toeplitz, p->n, p->n, p->d, SKIT_TOEPLITZ_PER_CHANNEL,
                                          p->opt.causality, SKIT_CUDA_FLOAT64, toeplitz_coeffs(p, dv));
}

static int create_ski(skit_tno_plan *p, tno_device *dv)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t n = p->n, d = p->d, r = s->r, width = W->width;
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
                                            SKIT_BIDIRECTIONAL, SKIT_CUDA_FLOAT64, s->a_coeffs));
    SKIT_TRY(device_alloc(&dv->u, r * d));
    SKIT_TRY(device_alloc(&dv->v, r * d));
    if (s->m) {
        SKIT_TRY(device_alloc(&dv->taps, s->m * d));
        SKIT_TRY(ski_taps(p, dv));
    }
    return SKIT_OK;
}

size_t tno_device_host_estimate(const skit_tno_options *o, size_t n, size_t d)
{
    /* the ROWS transposes, and FD-TNO's coefficients (overflow is checked
     * by the front's element count, n * d * batch) */
    return (o->layout == SKIT_TNO_ROWS ? 2 * n * d : 0) + (o->kind == SKIT_TNO_FD ? 2 * n * d : 0);
}

int tno_device_create(skit_tno_plan *p)
{
    SKIT_TRY(tno_device_supported(&p->opt));
    tno_device *dv = skit_calloc(1, sizeof *dv);
    if (!dv) return SKIT_ENOMEM;
    p->dev = dv; /* from here on skit_tno_plan_destroy releases it */
    dv->host_bytes = sizeof *dv;
    if (pthread_mutex_init(&dv->lock, NULL) != 0)
        return SKIT_ERROR(SKIT_ENOMEM, "token-mixing device plan: no mutex");
    dv->have_lock = 1;
    if (p->opt.layout == SKIT_TNO_ROWS) {
        dv->xt = skit_malloc(p->n, p->d * sizeof(double));
        dv->yt = skit_malloc(p->n, p->d * sizeof(double));
        if (!dv->xt || !dv->yt) return SKIT_ENOMEM;
        dv->host_bytes += 2 * p->n * p->d * sizeof(double);
    }
    SKIT_TRY(device_alloc(&dv->x, p->n * p->d));
    SKIT_TRY(device_alloc(&dv->y, p->n * p->d));
    if (p->opt.kind == SKIT_TNO_SKI) return create_ski(p, dv);
    return create_fft(p, dv);
}

int tno_device_update(skit_tno_plan *p)
{
    tno_device *dv = p->dev;
    if (p->opt.kind == SKIT_TNO_SKI) {
        const tno_ski *s = p->op;
        SKIT_TRY(skit_cuda_toeplitz_plan_set_coeffs(dv->toeplitz, s->a_coeffs));
        return ski_taps(p, dv);
    }
    if (p->opt.kind == SKIT_TNO_FD) SKIT_TRY(p->ops->coeffs(p, dv->coeffs));
    return skit_cuda_toeplitz_plan_set_coeffs(dv->toeplitz, toeplitz_coeffs(p, dv));
}

/* One sequence, channel-major n x d (ld n) on the host, x -> y. */
static int mix_one(const skit_tno_plan *p, const tno_device *dv, const double *x, double *y)
{
    const size_t n = p->n, d = p->d, bytes = n * d * sizeof(double);
    SKIT_TRY(skit_cuda_copy_to_device(dv->x, x, bytes));
    if (p->opt.kind == SKIT_TNO_SKI) {
        const tno_ski *s = p->op;
        size_t r = s->r, half = s->m / 2;
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

static int execute_locked(const skit_tno_plan *p, tno_device *dv, const double *x, double *y)
{
    const size_t n = p->n, d = p->d, block = n * d;
    for (size_t b = 0; b < p->batch; b++) {
        const double *xb = x + b * block;
        double *yb = y + b * block;
        if (p->opt.layout == SKIT_TNO_CHANNELS) {
            SKIT_TRY(mix_one(p, dv, xb, yb));
            continue;
        }
        skit_transpose(xb, n, d, dv->xt);
        SKIT_TRY(mix_one(p, dv, dv->xt, dv->yt));
        skit_transpose(dv->yt, d, n, yb);
    }
    return SKIT_OK;
}

int tno_device_execute(const skit_tno_plan *p, const double *x, double *y)
{
    tno_device *dv = p->dev;
    pthread_mutex_lock(&dv->lock);
    int status = execute_locked(p, dv, x, y);
    pthread_mutex_unlock(&dv->lock);
    return status;
}

void tno_device_destroy(skit_tno_plan *p)
{
    tno_device *dv = p->dev;
    if (!dv) return;
    if (dv->have_lock) pthread_mutex_destroy(&dv->lock);
    skit_cuda_toeplitz_plan_destroy(dv->toeplitz);
    skit_cuda_interp_plan_destroy(dv->interp);
    skit_cuda_free(dv->x);
    skit_cuda_free(dv->y);
    skit_cuda_free(dv->u);
    skit_cuda_free(dv->v);
    skit_cuda_free(dv->taps);
    skit_free(dv->coeffs);
    skit_free(dv->xt);
    skit_free(dv->yt);
    skit_free(dv->cols);
    skit_free(dv);
    p->dev = NULL;
}

size_t tno_device_bytes(const skit_tno_plan *p)
{
    const tno_device *dv = p ? p->dev : NULL;
    if (!dv) return 0;
    size_t total = dv->host_bytes;
    total += skit_cuda_toeplitz_plan_device_bytes(dv->toeplitz);
    total += skit_cuda_interp_plan_device_bytes(dv->interp);
    total += 2 * p->n * p->d * sizeof(double);
    if (p->opt.kind == SKIT_TNO_SKI) {
        const tno_ski *s = p->op;
        total += 2 * s->r * p->d * sizeof(double);
        if (dv->taps) total += s->m * p->d * sizeof(double);
    }
    return total;
}

size_t tno_device_fft_length(const skit_tno_plan *p)
{
    const tno_device *dv = p ? p->dev : NULL;
    return dv ? skit_cuda_toeplitz_plan_fft_length(dv->toeplitz) : 0;
}
