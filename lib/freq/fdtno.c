/* fdtno.c — FD-TNO plans (skit/freq.h): the kernel is given by its
 * frequency response on the rfft grid; causal kernels get their imaginary
 * part from the Hilbert transform (Algorithm 2), bidirectional ones carry
 * a complex response with the imaginary part forced to 0 at 0 and π. */
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "skit/freq.h"

struct skit_fdtno_plan {
    size_t n, d, N, half;
    skit_causality causality;
    int threads;
    size_t slice; /* doubles of scratch per thread: N real + half complex, 8-aligned */
    fftw_plan r2c, c2r;
    fftw_complex *spectra; /* half x d kernel spectra, already scaled by 1/N */
    double *scratch;       /* threads * slice */
};

static size_t round8(size_t v) { return (v + 7) / 8 * 8; }

size_t skit_fdtno_fft_length(const skit_fdtno_plan *plan) { return plan ? plan->N : 0; }
size_t skit_fdtno_grid_size(const skit_fdtno_plan *plan) { return plan ? plan->half : 0; }
size_t skit_fdtno_response_width(const skit_fdtno_plan *plan)
{
    if (!plan) return 0;
    return plan->causality == SKIT_CAUSAL ? plan->d : 2 * plan->d;
}
size_t skit_fdtno_workspace_size(const skit_fdtno_plan *plan)
{
    return plan ? (size_t)plan->threads * plan->slice : 0;
}

void skit_fdtno_destroy(skit_fdtno_plan *plan)
{
    if (!plan) return;
    if (plan->r2c) fftw_destroy_plan(plan->r2c);
    if (plan->c2r) fftw_destroy_plan(plan->c2r);
    skit_free(plan->spectra);
    skit_free(plan->scratch);
    skit_free(plan);
}

int skit_fdtno_create(skit_fdtno_plan **plan, size_t n, size_t d, skit_causality causality,
                      size_t fft_length)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1 channels");
    if (causality != SKIT_CAUSAL && causality != SKIT_BIDIRECTIONAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d unknown: need bidirectional (0) or causal (1)",
                          (int)causality);
    if (n > ((size_t)1 << 30))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^30", n);
    size_t N = fft_length;
    if (N == 0) {
        N = 1;
        while (N < 2 * n) N *= 2;
    } else if (N % 2 || N < 2 * n || N > ((size_t)1 << 31)) {
        return SKIT_ERROR(SKIT_EDOM, "fft_length = %zu out of range: need an even N with "
                                     "2n (= %zu) <= N <= 2^31, or 0 for the default", N, 2 * n);
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    if (threads < 1) threads = 1;
#endif
    size_t half = N / 2 + 1, slice = round8(N) + round8(2 * half);
    size_t spec_doubles, scratch_doubles, total;
    if (skit_size_mul(half, 2 * d, &spec_doubles) ||
        skit_size_mul(slice, (size_t)threads, &scratch_doubles) ||
        skit_size_add(spec_doubles, scratch_doubles, &total) ||
        skit_size_mul(total, sizeof(double), &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "FD-TNO plan size overflows (n = %zu, d = %zu)", n, d);
    SKIT_TRY(skit_memory_check(total, "FD-TNO plan"));

    skit_fdtno_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->d = d;
    p->N = N;
    p->half = half;
    p->causality = causality;
    p->threads = threads;
    p->slice = slice;
    p->spectra = skit_calloc(half * d, sizeof(fftw_complex));
    p->scratch = skit_malloc(scratch_doubles, sizeof(double));
    if (!p->spectra || !p->scratch) {
        skit_fdtno_destroy(p);
        return SKIT_ENOMEM;
    }
    double *buf = p->scratch;
    fftw_complex *spec = (fftw_complex *)(p->scratch + round8(N));
    skit_fftw_planner_init();
    p->r2c = fftw_plan_dft_r2c_1d((int)N, buf, spec, FFTW_ESTIMATE);
    p->c2r = fftw_plan_dft_c2r_1d((int)N, spec, buf, FFTW_ESTIMATE);
    if (!p->r2c || !p->c2r) {
        skit_fdtno_destroy(p);
        return SKIT_ERROR(SKIT_ELIBRARY, "FFTW could not plan a length-%zu transform", N);
    }
    *plan = p;
    return SKIT_OK;
}

int skit_fdtno_grid(const skit_fdtno_plan *plan, double *omega)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(omega);
    for (size_t m = 0; m < plan->half; m++) omega[m] = 2 * M_PI * (double)m / (double)plan->N;
    return SKIT_OK;
}

int skit_fdtno_set_response(skit_fdtno_plan *plan, const double *response)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(response);
    size_t width = skit_fdtno_response_width(plan), half = plan->half, N = plan->N, d = plan->d;
    SKIT_TRY(skit_check_finite(response, half * width, "frequency response"));
    double *buf = plan->scratch;
    fftw_complex *spec = (fftw_complex *)(plan->scratch + round8(N));
    double scale = 1.0 / (double)N;
    for (size_t c = 0; c < d; c++) {
        fftw_complex *K = plan->spectra + c * half;
        if (plan->causality == SKIT_BIDIRECTIONAL) {
            for (size_t m = 0; m < half; m++) {
                K[m][0] = response[m * width + c] * scale;
                K[m][1] = (m == 0 || m == half - 1) ? 0.0 : response[m * width + d + c] * scale;
            }
            continue;
        }
        /* Hilbert step by FFT: even impulse response k_e of R, then keep
         * lag 0 and N/2 once, double lags 1..N/2-1, zero negative lags;
         * its spectrum is R - i·H{R}. */
        for (size_t m = 0; m < half; m++) {
            spec[m][0] = response[m * width + c];
            spec[m][1] = 0;
        }
        fftw_execute_dft_c2r(plan->c2r, spec, buf);
        for (size_t t = 1; t < N / 2; t++) buf[t] *= 2.0 * scale;
        buf[0] *= scale;
        buf[N / 2] *= scale;
        for (size_t t = N / 2 + 1; t < N; t++) buf[t] = 0;
        fftw_execute_dft_r2c(plan->r2c, buf, spec);
        for (size_t m = 0; m < half; m++) {
            K[m][0] = spec[m][0] * scale;
            K[m][1] = spec[m][1] * scale;
        }
    }
    return SKIT_OK;
}

int skit_fdtno_set_mlp(skit_fdtno_plan *plan, const skit_mlp *mlp)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(mlp);
    size_t width = skit_fdtno_response_width(plan);
    if (skit_mlp_in_dim(mlp) != 1 || skit_mlp_out_dim(mlp) != width)
        return SKIT_ERROR(SKIT_ESHAPE, "MLP is %zu -> %zu: FD-TNO needs 1 -> %zu (%s, d = %zu)",
                          skit_mlp_in_dim(mlp), skit_mlp_out_dim(mlp), width,
                          plan->causality == SKIT_CAUSAL ? "causal: d real parts"
                                                         : "bidirectional: d real + d imaginary",
                          plan->d);
    double *omega = skit_malloc(plan->half, sizeof(double));
    double *resp = skit_malloc(plan->half * width, sizeof(double));
    int status = SKIT_ENOMEM;
    if (omega && resp) {
        skit_fdtno_grid(plan, omega);
        status = skit_mlp_eval(mlp, plan->half, omega, resp, NULL);
        if (status == SKIT_OK) status = skit_fdtno_set_response(plan, resp);
    }
    skit_free(omega);
    skit_free(resp);
    return status;
}

int skit_fdtno_impulse(const skit_fdtno_plan *plan, double *k, size_t ldk)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(k);
    if (ldk < plan->N)
        return SKIT_ERROR(SKIT_ESHAPE, "ldk = %zu too small: need ldk >= N (= %zu)", ldk, plan->N);
    double *buf = plan->scratch;
    fftw_complex *spec = (fftw_complex *)(plan->scratch + round8(plan->N));
    for (size_t c = 0; c < plan->d; c++) {
        memcpy(spec, plan->spectra + c * plan->half, plan->half * sizeof(fftw_complex));
        fftw_execute_dft_c2r(plan->c2r, spec, buf);
        memcpy(k + c * ldk, buf, plan->N * sizeof(double));
    }
    return SKIT_OK;
}

int skit_fdtno_execute(const skit_fdtno_plan *plan, const double *x, size_t ldx, double *y,
                       size_t ldy, double *work)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t n = plan->n, N = plan->N, half = plan->half;
    if (ldx < n) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu too small: need ldx >= n (= %zu)", ldx, n);
    if (ldy < n) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu too small: need ldy >= n (= %zu)", ldy, n);
    if (work && fftw_alignment_of(work) != fftw_alignment_of(plan->scratch))
        return SKIT_ERROR(SKIT_EINVAL, "work is not 64-byte aligned: allocate it with skit_malloc");
    double *scratch = work ? work : plan->scratch;
    long d = (long)plan->d;
#pragma omp parallel for num_threads(plan->threads) schedule(static)
    for (long c = 0; c < d; c++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        double *buf = scratch + (size_t)tid * plan->slice;
        fftw_complex *spec = (fftw_complex *)(buf + round8(N));
        const fftw_complex *K = plan->spectra + (size_t)c * half;
        memcpy(buf, x + (size_t)c * ldx, n * sizeof(double));
        memset(buf + n, 0, (N - n) * sizeof(double));
        fftw_execute_dft_r2c(plan->r2c, buf, spec);
        for (size_t m = 0; m < half; m++) {
            double re = spec[m][0] * K[m][0] - spec[m][1] * K[m][1];
            double im = spec[m][0] * K[m][1] + spec[m][1] * K[m][0];
            spec[m][0] = re;
            spec[m][1] = im;
        }
        fftw_execute_dft_c2r(plan->c2r, spec, buf);
        memcpy(y + (size_t)c * ldy, buf, n * sizeof(double));
    }
    return SKIT_OK;
}
