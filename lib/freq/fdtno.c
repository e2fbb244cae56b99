/* fdtno.c — FD-TNO plans (skit/freq.h): the kernel is given by its
 * frequency response on the rfft grid; causal kernels get their imaginary
 * part from the Hilbert transform (Algorithm 2), bidirectional ones carry
 * a complex response with the imaginary part forced to 0 at 0 and π. A
 * front-end over the circulant engine (lib/fft/circulant.h), which holds
 * the spectra (split, scaled by 1/N) and runs the Hilbert step and the
 * products. */
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "fft/circulant.h"
#include "skit/freq.h"

struct skit_fdtno_plan {
    size_t n, d;
    skit_causality causality;
    skit_circulant *engine;
    skit_workspace *workspace; /* lent to calls made without one */
    size_t bytes;
};

size_t skit_fdtno_plan_fft_length(const skit_fdtno_plan *plan)
{
    return plan ? skit_circulant_length(plan->engine) : 0;
}
size_t skit_fdtno_plan_grid_size(const skit_fdtno_plan *plan)
{
    return plan ? skit_circulant_frequencies(plan->engine) : 0;
}
size_t skit_fdtno_plan_response_width(const skit_fdtno_plan *plan)
{
    if (!plan) return 0;
    return plan->causality == SKIT_CAUSAL ? plan->d : 2 * plan->d;
}
size_t skit_fdtno_plan_workspace_bytes(const skit_fdtno_plan *plan)
{
    return plan ? skit_circulant_workspace_doubles(plan->engine, 0) * sizeof(double) : 0;
}

size_t skit_fdtno_plan_bytes(const skit_fdtno_plan *plan)
{
    return plan ? plan->bytes : 0;
}

void skit_fdtno_plan_destroy(skit_fdtno_plan *plan)
{
    if (!plan) return;
    skit_circulant_destroy(plan->engine);
    skit_workspace_destroy(plan->workspace);
    skit_free(plan);
}

int skit_fdtno_plan_create(skit_fdtno_plan **plan, size_t n, size_t d, skit_causality causality,
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
    if (fft_length != 0 && (fft_length % 2 || fft_length < 2 * n || fft_length > ((size_t)1 << 31)))
        return SKIT_ERROR(SKIT_EDOM, "fft_length = %zu out of range: need an even N with "
                                     "2n (= %zu) <= N <= 2^31, or 0 for the default", fft_length, 2 * n);
    size_t N = fft_length;
    if (N == 0) /* the FD-TNN code's length: the next power of two >= 2n */
        for (N = 1; N < 2 * n; N *= 2) {}
    skit_fdtno_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->d = d;
    p->causality = causality;
    const skit_circulant_shape shape = {
        .rows = n, .cols = n, .channels = d, .spectra = d, .length = N, .what = "FD-TNO plan"};
    int status = skit_circulant_create(&p->engine, &shape);
    if (status == SKIT_OK)
        status = skit_workspace_create(&p->workspace, skit_circulant_workspace_doubles(p->engine, 0));
    if (status != SKIT_OK) {
        skit_fdtno_plan_destroy(p);
        return status;
    }
    p->bytes = sizeof *p + skit_circulant_bytes(p->engine) +
               skit_workspace_doubles(p->workspace) * sizeof(double);
    *plan = p;
    return SKIT_OK;
}

int skit_fdtno_plan_grid(const skit_fdtno_plan *plan, double *omega)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(omega);
    const size_t half = skit_circulant_frequencies(plan->engine), N = skit_circulant_length(plan->engine);
    for (size_t m = 0; m < half; m++) omega[m] = 2 * M_PI * (double)m / (double)N;
    return SKIT_OK;
}

int skit_fdtno_plan_set_response(skit_fdtno_plan *plan, const double *response)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(response);
    skit_circulant *e = plan->engine;
    const size_t width = skit_fdtno_plan_response_width(plan), d = plan->d;
    const size_t half = skit_circulant_frequencies(e), ls = skit_circulant_spectra_ld(e);
    SKIT_TRY(skit_check_finite(response, half * width, "frequency response"));
    double *work = skit_workspace_take(plan->workspace);
    if (!work) return SKIT_ENOMEM;
    const double scale = 1.0 / (double)skit_circulant_length(e);
    double *spectra = skit_circulant_spectra(e);
    for (size_t c = 0; c < d; c++) {
        double *re = spectra + c * ls, *im = re + half;
        for (size_t m = 0; m < half; m++) re[m] = response[m * width + c] * scale;
        if (plan->causality == SKIT_BIDIRECTIONAL)
            for (size_t m = 0; m < half; m++)
                im[m] = (m == 0 || m == half - 1) ? 0.0 : response[m * width + d + c] * scale;
    }
    if (plan->causality == SKIT_CAUSAL) skit_circulant_hilbert_rows(e, spectra, ls, d, spectra + half, ls, work);
    skit_workspace_give(plan->workspace, work);
    return SKIT_OK;
}

int skit_fdtno_plan_set_mlp(skit_fdtno_plan *plan, const skit_mlp *mlp)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(mlp);
    size_t width = skit_fdtno_plan_response_width(plan);
    if (skit_mlp_in_dim(mlp) != 1 || skit_mlp_out_dim(mlp) != width)
        return SKIT_ERROR(SKIT_ESHAPE, "MLP is %zu -> %zu: FD-TNO needs 1 -> %zu (%s, d = %zu)",
                          skit_mlp_in_dim(mlp), skit_mlp_out_dim(mlp), width,
                          plan->causality == SKIT_CAUSAL ? "causal: d real parts"
                                                         : "bidirectional: d real + d imaginary",
                          plan->d);
    double *omega = skit_malloc(skit_fdtno_plan_grid_size(plan), sizeof(double));
    double *resp = skit_malloc(skit_fdtno_plan_grid_size(plan) * width, sizeof(double));
    int status = SKIT_ENOMEM;
    if (omega && resp) {
        skit_fdtno_plan_grid(plan, omega);
        status = skit_mlp_eval(mlp, skit_fdtno_plan_grid_size(plan), omega, resp, NULL);
        if (status == SKIT_OK) status = skit_fdtno_plan_set_response(plan, resp);
    }
    skit_free(omega);
    skit_free(resp);
    return status;
}

int skit_fdtno_plan_impulse(const skit_fdtno_plan *plan, double *k, size_t ldk)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(k);
    const size_t N = skit_circulant_length(plan->engine);
    if (ldk < N) return SKIT_ERROR(SKIT_ESHAPE, "ldk = %zu too small: need ldk >= N (= %zu)", ldk, N);
    double *work = skit_workspace_take(plan->workspace);
    if (!work) return SKIT_ENOMEM;
    for (size_t c = 0; c < plan->d; c++) skit_circulant_kernel(plan->engine, c, k + c * ldk, work);
    skit_workspace_give(plan->workspace, work);
    return SKIT_OK;
}

int skit_fdtno_plan_execute(const skit_fdtno_plan *plan, const double *x, size_t ldx, double *y,
                            size_t ldy, void *work)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t n = plan->n;
    if (ldx < n) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu too small: need ldx >= n (= %zu)", ldx, n);
    if (ldy < n) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu too small: need ldy >= n (= %zu)", ldy, n);
    /* FFTW's new-array execute needs the alignment the engine planned with */
    if (work && fftw_alignment_of(work) != 0)
        return SKIT_ERROR(SKIT_EINVAL, "work is not 64-byte aligned: allocate it with skit_malloc");
    double *buf = work ? work : skit_workspace_take(plan->workspace);
    if (!buf) return SKIT_ENOMEM;
    skit_circulant_apply_channels(plan->engine, 0, x, ldx, y, ldy, plan->d, buf);
    if (!work) skit_workspace_give(plan->workspace, buf);
    return SKIT_OK;
}
