/* extended.c — the impulse response of the periodic construction
 * f(cos w, sin w) with the MLP and the DFT in extended precision
 * (skit/freq.h: skit_freq_impulse_extended), for following k[n] below
 * double's rounding floor (ski-to-go-faster Theorem 2). */
#include "config.h"

#include <string.h>

#include "core/internal.h"
#include "freq/extended.h"
#include "mlp/extended.h"
#include "skit/freq.h"

#define EXTENDED_MAX_N ((size_t)1 << 20)

void skit_xdft_twiddles(size_t N, skit_xreal *cos_t, skit_xreal *sin_t)
{
    for (size_t j = 0; j < N; j++) {
        skit_xreal t = 2 * XR_PI * (skit_xreal)j / (skit_xreal)N;
        cos_t[j] = xr_cos(t);
        sin_t[j] = xr_sin(t);
    }
}

void skit_xdft_lags(const skit_xreal *v, size_t N, size_t lags, const skit_xreal *cos_t,
                    const skit_xreal *sin_t, skit_xreal *re, skit_xreal *im)
{
    for (size_t n = 0; n <= lags; n++) {
        skit_xreal sr = 0, si = 0;
        size_t idx = 0; /* m n mod N, stepped without overflow */
        for (size_t m = 0; m < N; m++) {
            sr += v[m] * cos_t[idx];
            si += v[m] * sin_t[idx];
            idx += n % N;
            if (idx >= N) idx -= N;
        }
        re[n] = sr / (skit_xreal)N;
        im[n] = si / (skit_xreal)N;
    }
}

double skit_freq_extended_epsilon(void)
{
    return (double)XR_EPSILON;
}

/* the MLP at (cos w_m, sin w_m), m = 0..N-1: values (N x out_dim, channel-major) */
static int sample_circle(const skit_mlp *mlp, size_t N, const skit_xreal *cos_t, const skit_xreal *sin_t,
                         skit_xreal *values)
{
    size_t d = skit_mlp_out_dim(mlp);
    int status = SKIT_OK;
#pragma omp parallel
    {
        skit_xreal *work = skit_malloc(skit_mlp_xreal_work(mlp) + d, sizeof(skit_xreal));
        if (!work) {
#pragma omp atomic write
            status = SKIT_ENOMEM;
        }
#pragma omp for schedule(static)
        for (size_t m = 0; m < N; m++) {
            if (!work) continue;
            skit_xreal x[2] = {cos_t[m], sin_t[m]}, *y = work + skit_mlp_xreal_work(mlp);
            skit_mlp_eval_xreal(mlp, x, y, work);
            for (size_t c = 0; c < d; c++) values[c * N + m] = y[c];
        }
        skit_free(work);
    }
    return status == SKIT_OK ? SKIT_OK : SKIT_ERROR(SKIT_ENOMEM, "extended-precision MLP work buffers");
}

int skit_freq_impulse_extended(const skit_mlp *mlp, size_t N, size_t lags, double *k_re, double *k_im)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(k_re);
    SKIT_REQUIRE_PTR(k_im);
    if (skit_mlp_in_dim(mlp) != 2)
        return SKIT_ERROR(SKIT_ESHAPE, "MLP in_dim = %zu: the periodic construction needs in_dim = 2",
                          skit_mlp_in_dim(mlp));
    if (N < 4 || N % 2 || N > EXTENDED_MAX_N)
        return SKIT_ERROR(SKIT_EDOM, "N = %zu out of range: need an even 4 <= N <= 2^20", N);
    if (lags >= N / 2)
        return SKIT_ERROR(SKIT_EDOM, "lags = %zu out of range: need lags < N/2 = %zu", lags, N / 2);
    size_t d = skit_mlp_out_dim(mlp);
    SKIT_TRY(skit_memory_check((N * (d + 2) + 2 * (lags + 1)) * sizeof(skit_xreal), "extended-precision samples"));
    skit_xreal *cos_t = skit_malloc(N, sizeof(skit_xreal)), *sin_t = skit_malloc(N, sizeof(skit_xreal));
    skit_xreal *values = skit_malloc(N * d, sizeof(skit_xreal));
    skit_xreal *re = skit_malloc(lags + 1, sizeof(skit_xreal)), *im = skit_malloc(lags + 1, sizeof(skit_xreal));
    int status = SKIT_OK;
    if (!cos_t || !sin_t || !values || !re || !im) {
        status = SKIT_ERROR(SKIT_ENOMEM, "extended-precision impulse response, N = %zu", N);
        goto done;
    }
    skit_xdft_twiddles(N, cos_t, sin_t);
    status = sample_circle(mlp, N, cos_t, sin_t, values);
    for (size_t c = 0; status == SKIT_OK && c < d; c++) {
        skit_xdft_lags(values + c * N, N, lags, cos_t, sin_t, re, im);
        for (size_t n = 0; n <= lags; n++) {
            k_re[c * (lags + 1) + n] = (double)re[n];
            k_im[c * (lags + 1) + n] = (double)im[n];
        }
    }
done:
    skit_free(cos_t);
    skit_free(sin_t);
    skit_free(values);
    skit_free(re);
    skit_free(im);
    return status;
}
