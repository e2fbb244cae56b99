/* correlate.c — FFT cross-correlations (fft/correlate.h). Spectra are
 * accumulated over the batch (and, shared, over the channels) before the
 * one inverse transform per output row. In double precision; correlatef.c
 * compiles this file again in single precision (fftwf plans, float
 * buffers), as circulantf.c does the circulant engine: R the real type,
 * X(name) the public name, FFTW(name) FFTW's, E the engine's type. */
#include "config.h"

#include <fftw3.h>
#include <limits.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "fft/correlate.h"
#include "fft/planner.h"
#include "skit/fft.h"

#ifdef SKIT_CORRELATE_SINGLE
typedef float R;
#define X(name) skit_correlatef_##name
#define FFTW(name) fftwf_##name
#define E skit_correlatef
#define PAIR_ACQUIRE skit_fftwf_pair_acquire
#define PAIR_RELEASE skit_fftwf_pair_release
#else
typedef double R;
#define X(name) skit_correlate_##name
#define FFTW(name) fftw_##name
#define E skit_correlate
#define PAIR_ACQUIRE skit_fftw_pair_acquire
#define PAIR_RELEASE skit_fftw_pair_release
#endif
#define LINE (64 / sizeof(R))

struct E {
    size_t m, n, N, half;
    int threads;
    size_t real_stride, cplx_stride, slice; /* one thread: real buffer, 3 spectra */
    FFTW(plan) r2c, c2r;
};

/* slices in whole 64-byte lines: every buffer keeps the alignment and
 * layout the shared FFTW pair was planned with (fft/planner.h) */
static size_t round_line(size_t v) { return (v + LINE - 1) / LINE * LINE; }

size_t X(length)(const E *e) { return e->N; }
size_t X(bytes)(const E *e) { return e ? sizeof *e : 0; }
size_t X(workspace_doubles)(const E *e) { return (size_t)e->threads * e->slice; }

void X(destroy)(E *e)
{
    if (!e) return;
    PAIR_RELEASE(e->r2c, e->c2r);
    skit_free(e);
}

int X(create)(E **engine, size_t m, size_t n, size_t length)
{
    *engine = NULL;
    size_t span, N = length;
    if (skit_size_add(m, n - 1, &span) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "m + n - 1 (m = %zu, n = %zu) overflows size_t", m, n);
    if (N == 0) SKIT_TRY(skit_fft_good_length(span, &N));
    if (N > (size_t)INT_MAX / 2)
        return SKIT_ERROR(SKIT_ETOOBIG, "FFT length %zu for m = %zu, n = %zu exceeds FFTW's limit", N, m, n);
    E *e = skit_calloc(1, sizeof *e);
    if (!e) return SKIT_ENOMEM;
    e->m = m;
    e->n = n;
    e->N = N;
    e->half = N / 2 + 1;
    e->threads = skit_max_threads();
    e->real_stride = round_line(N) + LINE;
    e->cplx_stride = round_line(2 * e->half);
    e->slice = e->real_stride + 3 * e->cplx_stride;
    int status = PAIR_ACQUIRE(N, FFTW_ESTIMATE, &e->r2c, &e->c2r);
    if (status != SKIT_OK) {
        skit_free(e);
        return status;
    }
    *engine = e;
    return SKIT_OK;
}

static R *thread_slice(R *base, size_t stride)
{
    size_t id = 0;
#ifdef _OPENMP
    id = (size_t)omp_get_thread_num();
#endif
    return base + id * stride;
}

/* acc += DY .* conj(X) for one pair (h: the real buffer, zx, zy: spectra) */
static void add_pair(const E *e, const R *x, const R *dy, R *h, R *zx, R *zy, R *acc)
{
    memcpy(h, x, e->n * sizeof *h);
    memset(h + e->n, 0, (e->N - e->n) * sizeof *h);
    FFTW(execute_dft_r2c)(e->r2c, h, (FFTW(complex) *)zx);
    memcpy(h, dy, e->m * sizeof *h);
    memset(h + e->m, 0, (e->N - e->m) * sizeof *h);
    FFTW(execute_dft_r2c)(e->r2c, h, (FFTW(complex) *)zy);
    for (size_t k = 0; k < e->half; k++) {
        R xr = zx[2 * k], xi = zx[2 * k + 1], yr = zy[2 * k], yi = zy[2 * k + 1];
        acc[2 * k] += yr * xr + yi * xi;
        acc[2 * k + 1] += yi * xr - yr * xi;
    }
}

/* out (m+n-1, lag k at k + n - 1) from the accumulated spectrum (destroyed) */
static void finish(const E *e, R *acc, R *h, R *out)
{
    FFTW(execute_dft_c2r)(e->c2r, (FFTW(complex) *)acc, h);
    const R scale = (R)(1.0 / (double)e->N);
    for (size_t k = 0; k < e->m; k++) out[e->n - 1 + k] = h[k] * scale;
    for (size_t k = 1; k < e->n; k++) out[e->n - 1 - k] = h[e->N - k] * scale;
}

void X(spectra)(const E *e, size_t channels, size_t batch, const R *x, size_t ldx, size_t x_stride, const R *dy,
                size_t lddy, size_t dy_stride, R *out, size_t ldo, R *work)
{
    long count = (long)channels;
#pragma omp parallel for num_threads(e->threads) schedule(static) if (count > 1)
    for (long c = 0; c < count; c++) {
        R *h = thread_slice(work, e->slice), *zx = h + e->real_stride, *zy = zx + e->cplx_stride,
               *acc = out + (size_t)c * ldo;
        memset(acc, 0, 2 * e->half * sizeof *acc);
        for (size_t b = 0; b < batch; b++)
            add_pair(e, x + (size_t)c * ldx + b * x_stride, dy + (size_t)c * lddy + b * dy_stride, h, zx, zy, acc);
    }
}

void X(run)(const E *e, size_t channels, size_t batch, const R *x, size_t ldx, size_t x_stride, const R *dy,
            size_t lddy, size_t dy_stride, int shared, R *out, size_t ldo, R *work)
{
    const size_t half2 = 2 * e->half;
    long count = (long)channels;
    int threads = e->threads;
    if (shared)
        for (int t = 0; t < threads; t++) memset(work + (size_t)t * e->slice + e->real_stride + 2 * e->cplx_stride, 0,
                                                  half2 * sizeof(R));
#pragma omp parallel for num_threads(threads) schedule(static) if (count > 1)
    for (long c = 0; c < count; c++) {
        R *h = thread_slice(work, e->slice), *zx = h + e->real_stride, *zy = zx + e->cplx_stride,
               *acc = zy + e->cplx_stride;
        if (!shared) memset(acc, 0, half2 * sizeof *acc);
        for (size_t b = 0; b < batch; b++)
            add_pair(e, x + (size_t)c * ldx + b * x_stride, dy + (size_t)c * lddy + b * dy_stride, h, zx, zy, acc);
        if (!shared) finish(e, acc, h, out + (size_t)c * ldo);
    }
    if (!shared) return;
    R *acc0 = work + e->real_stride + 2 * e->cplx_stride;
    for (int t = 1; t < threads; t++) {
        const R *acc = work + (size_t)t * e->slice + e->real_stride + 2 * e->cplx_stride;
        for (size_t k = 0; k < half2; k++) acc0[k] += acc[k];
    }
    finish(e, acc0, work, out);
}

void X(dft)(const E *e, const R *x, R *z)
{
    FFTW(execute_dft_r2c)(e->r2c, (R *)x, (FFTW(complex) *)z); /* r2c keeps its input */
}
