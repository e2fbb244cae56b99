/* fdtno.c — FD-TNO plans (skit/freq.h): the kernel is given by its
 * frequency response on the rfft grid; causal kernels get their imaginary
 * part from the Hilbert transform (Algorithm 2), bidirectional ones carry
 * a complex response with the imaginary part forced to 0 at 0 and π. A
 * front-end over the circulant engine (lib/fft/circulant.h), which holds
 * the spectra (split, scaled by 1/N) and runs the Hilbert step and the
 * products: a float64 plan over skit_circulant, a float32 plan over
 * skit_circulantf only (fdtno_spectra.c fills either). */
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "freq/freq_internal.h"
#include "skit/freq.h"

struct skit_fdtno_plan {
    size_t n, d;
    skit_causality causality;
    skit_precision precision;
    skit_layout layout;
    skit_circulant *engine;    /* float64 plans */
    skit_circulantf *engine_f; /* float32 plans */
    size_t N, half;
    skit_workspace *workspace; /* the engine's scratch, lent to calls made without one */
    size_t bytes;
};

void skit_fdtno_options_default(skit_fdtno_options *options)
{
    if (!options) return;
    options->causality = SKIT_BIDIRECTIONAL;
    options->fft_length = 0;
    options->precision = SKIT_PRECISION_F64;
    options->planner = SKIT_PLANNER_DEFAULT;
    options->layout = SKIT_LAYOUT_COLUMNS;
}

size_t skit_fdtno_plan_fft_length(const skit_fdtno_plan *plan) { return plan ? plan->N : 0; }
size_t skit_fdtno_plan_grid_size(const skit_fdtno_plan *plan) { return plan ? plan->half : 0; }
size_t skit_fdtno_plan_response_width(const skit_fdtno_plan *plan)
{
    if (!plan) return 0;
    return plan->causality == SKIT_CAUSAL ? plan->d : 2 * plan->d;
}
skit_precision skit_fdtno_plan_precision(const skit_fdtno_plan *plan)
{
    return plan ? plan->precision : SKIT_PRECISION_F64;
}

size_t skit_fdtno_plan_workspace_bytes(const skit_fdtno_plan *plan)
{
    if (!plan) return 0;
    const int rows = plan->layout == SKIT_LAYOUT_ROWS;
    if (plan->engine_f) return skit_circulantf_workspace_doubles(plan->engine_f, rows) * sizeof(float);
    return skit_circulant_workspace_doubles(plan->engine, rows) * sizeof(double);
}

size_t skit_fdtno_plan_bytes(const skit_fdtno_plan *plan)
{
    return plan ? plan->bytes : 0;
}

void skit_fdtno_plan_destroy(skit_fdtno_plan *plan)
{
    if (!plan) return;
    skit_circulant_destroy(plan->engine);
    skit_circulantf_destroy(plan->engine_f);
    skit_workspace_destroy(plan->workspace);
    skit_free(plan);
}

static int check_options(size_t n, size_t d, const skit_fdtno_options *o)
{
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1 channels");
    if (o->causality != SKIT_CAUSAL && o->causality != SKIT_BIDIRECTIONAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d unknown: need bidirectional (0) or causal (1)",
                          (int)o->causality);
    if (o->precision != SKIT_PRECISION_F64 && o->precision != SKIT_PRECISION_F32)
        return SKIT_ERROR(SKIT_EINVAL,
                          "precision = %d unknown: need SKIT_PRECISION_F64 or SKIT_PRECISION_F32",
                          (int)o->precision);
    if (o->layout != SKIT_LAYOUT_COLUMNS && o->layout != SKIT_LAYOUT_ROWS)
        return SKIT_ERROR(SKIT_EINVAL, "layout = %d unknown: need SKIT_LAYOUT_COLUMNS or SKIT_LAYOUT_ROWS",
                          (int)o->layout);
    if (n > ((size_t)1 << 30))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^30", n);
    const size_t N = o->fft_length;
    if (N != 0 && (N % 2 || N < 2 * n || N > ((size_t)1 << 31)))
        return SKIT_ERROR(SKIT_EDOM, "fft_length = %zu out of range: need an even N with "
                                     "2n (= %zu) <= N <= 2^31, or 0 for the default", N, 2 * n);
    return SKIT_OK;
}

int skit_fdtno_plan_create(skit_fdtno_plan **plan, size_t n, size_t d, const skit_fdtno_options *options)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    skit_fdtno_options o;
    skit_fdtno_options_default(&o);
    if (options) o = *options;
    SKIT_TRY(check_options(n, d, &o));
    size_t N = o.fft_length;
    if (N == 0) /* the FD-TNN code's length: the next power of two >= 2n */
        for (N = 1; N < 2 * n; N *= 2) {}
    skit_fdtno_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->d = d;
    p->causality = o.causality;
    p->precision = o.precision;
    p->layout = o.layout;
    const int rows = o.layout == SKIT_LAYOUT_ROWS;
    const skit_circulant_shape shape = {.rows = n,
                                        .cols = n,
                                        .channels = d,
                                        .spectra = d,
                                        .length = N,
                                        .what = "FD-TNO plan",
                                        .planner = o.planner,
                                        .rows_layout = rows};
    int status;
    size_t engine_bytes = 0, doubles = 0;
    if (o.precision == SKIT_PRECISION_F32) {
        status = skit_circulantf_create(&p->engine_f, &shape);
        if (status == SKIT_OK) {
            p->N = skit_circulantf_length(p->engine_f);
            p->half = skit_circulantf_frequencies(p->engine_f);
            engine_bytes = skit_circulantf_bytes(p->engine_f);
            /* the float scratch, in doubles */
            doubles = (skit_circulantf_workspace_doubles(p->engine_f, rows) + 1) / 2;
        }
    } else {
        status = skit_circulant_create(&p->engine, &shape);
        if (status == SKIT_OK) {
            p->N = skit_circulant_length(p->engine);
            p->half = skit_circulant_frequencies(p->engine);
            engine_bytes = skit_circulant_bytes(p->engine);
            doubles = skit_circulant_workspace_doubles(p->engine, rows);
        }
    }
    if (status == SKIT_OK) status = skit_workspace_create(&p->workspace, doubles);
    if (status != SKIT_OK) {
        skit_fdtno_plan_destroy(p);
        return status;
    }
    p->bytes = sizeof *p + engine_bytes + doubles * sizeof(double);
    *plan = p;
    return SKIT_OK;
}

int skit_fdtno_plan_grid(const skit_fdtno_plan *plan, double *omega)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(omega);
    for (size_t m = 0; m < plan->half; m++) omega[m] = 2 * M_PI * (double)m / (double)plan->N;
    return SKIT_OK;
}

int skit_fdtno_plan_set_response(skit_fdtno_plan *plan, const double *response)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(response);
    const size_t width = skit_fdtno_plan_response_width(plan);
    SKIT_TRY(skit_check_finite(response, plan->half * width, "frequency response"));
    double *work = skit_workspace_take(plan->workspace);
    if (!work) return SKIT_ENOMEM;
    const int causal = plan->causality == SKIT_CAUSAL;
    if (plan->engine_f)
        fdtno_set_spectra_f32(plan->engine_f, response, width, plan->d, causal, (float *)work);
    else
        fdtno_set_spectra(plan->engine, response, width, plan->d, causal, work);
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
    double *omega = skit_malloc(plan->half, sizeof(double));
    double *resp = skit_malloc(plan->half * width, sizeof(double));
    int status = SKIT_ENOMEM;
    if (omega && resp) {
        skit_fdtno_plan_grid(plan, omega);
        status = skit_mlp_eval(mlp, plan->half, omega, resp, NULL);
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
    const size_t N = plan->N;
    if (ldk < N) return SKIT_ERROR(SKIT_ESHAPE, "ldk = %zu too small: need ldk >= N (= %zu)", ldk, N);
    double *work = skit_workspace_take(plan->workspace);
    if (!work) return SKIT_ENOMEM;
    if (plan->engine_f) fdtno_impulse_f32(plan->engine_f, plan->d, k, ldk, (float *)work);
    else fdtno_impulse(plan->engine, plan->d, k, ldk, work);
    skit_workspace_give(plan->workspace, work);
    return SKIT_OK;
}

/* The checks of both executes; f32: the call is the float32 one. */
static int check_execute(const skit_fdtno_plan *plan, const void *x, size_t ldx, const void *y, size_t ldy,
                         void *work, int f32)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    if ((plan->precision == SKIT_PRECISION_F32) != f32)
        return SKIT_ERROR(SKIT_EINVAL, "plan: a float%s FD-TNO plan: use skit_fdtno_plan_execute%s",
                          f32 ? "64" : "32", f32 ? "" : "_f32");
    const int rows = plan->layout == SKIT_LAYOUT_ROWS;
    const size_t need = rows ? plan->d : plan->n;
    const char *what = rows ? "d" : "n";
    if (ldx < need) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu too small: need ldx >= %s (= %zu)", ldx, what, need);
    if (ldy < need) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu too small: need ldy >= %s (= %zu)", ldy, what, need);
    /* FFTW's new-array execute needs the alignment the engine planned with */
    if (work && fftw_alignment_of(work) != 0)
        return SKIT_ERROR(SKIT_EINVAL, "work is not 64-byte aligned: allocate it with skit_malloc");
    return SKIT_OK;
}

int skit_fdtno_plan_execute(const skit_fdtno_plan *plan, const double *x, size_t ldx, double *y,
                            size_t ldy, void *work)
{
    SKIT_TRY(check_execute(plan, x, ldx, y, ldy, work, 0));
    double *buf = work ? work : skit_workspace_take(plan->workspace);
    if (!buf) return SKIT_ENOMEM;
    if (plan->layout == SKIT_LAYOUT_ROWS) skit_circulant_apply_rows(plan->engine, 0, x, ldx, y, ldy, 1, buf);
    else skit_circulant_apply_channels(plan->engine, 0, x, ldx, y, ldy, plan->d, buf);
    if (!work) skit_workspace_give(plan->workspace, buf);
    return SKIT_OK;
}

int skit_fdtno_plan_execute_f32(const skit_fdtno_plan *plan, const float *x, size_t ldx, float *y,
                                size_t ldy, void *work)
{
    SKIT_TRY(check_execute(plan, x, ldx, y, ldy, work, 1));
    double *buf = work ? work : skit_workspace_take(plan->workspace);
    if (!buf) return SKIT_ENOMEM;
    if (plan->layout == SKIT_LAYOUT_ROWS)
        skit_circulantf_apply_rows(plan->engine_f, 0, x, ldx, y, ldy, 1, (float *)buf);
    else skit_circulantf_apply_channels(plan->engine_f, 0, x, ldx, y, ldy, plan->d, (float *)buf);
    if (!work) skit_workspace_give(plan->workspace, buf);
    return SKIT_OK;
}

SKIT_DEFINE_STRUCT_SIZE(skit_freq_struct_size,
                        SKIT_STRUCT(skit_fdtno_options),
                        SKIT_STRUCT(skit_decay_fit))
