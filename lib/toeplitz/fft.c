/* fft.c — Toeplitz matvec by circulant embedding (TNN Theorem 2.1), a
 * front-end over the circulant engine (lib/fft/circulant.h), which
 * explains the embedding, the transposed product (the conjugate
 * spectrum: t_0 sits at index 0 of the kernel for every m and n, so
 * rectangular shapes need no index shift) and the Hartley inverse. */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "fft/circulant.h"
#include "fft/correlate.h"
#include "toeplitz/toeplitz_internal.h"

/* A caller's workspace is aligned up to a 64-byte block, as FFTW's
 * new-array execute needs the alignment the engine planned with. */
#define ALIGN_BYTES 64

struct skit_toeplitz_plan {
    size_t m, n, d;
    size_t nmat;        /* d (per channel) or 1 (shared) */
    skit_toeplitz_sharing sharing;
    skit_causality causality;
    skit_precision precision;
    skit_planner planner;
    skit_fft_inverse inverse; /* as asked (the engine reports what it took) */
    skit_layout layout;
    skit_circulant *engine;    /* CPU plans in float64 */
    skit_circulantf *engine_f; /* CPU plans in float32 */
    skit_workspace *workspace; /* lent to an execute called without one */
    toeplitz_device *device;   /* device plans */
    skit_correlate *correlate; /* the coefficient gradient (backward.c), float64 plans */
    skit_correlatef *correlate_f; /* float32 plans */
    size_t bytes;
};

/* The coefficients one matrix actually uses must be finite. */
static int check_coeffs(const skit_toeplitz_plan *p, const double *coeffs)
{
    size_t per = p->m + p->n - 1;
    for (size_t c = 0; c < p->nmat; c++) {
        const double *t = coeffs + c * per;
        size_t first = p->causality == SKIT_CAUSAL ? p->n - 1 : 0;
        for (size_t k = first; k < per; k++)
            if (!isfinite(t[k]))
                return SKIT_ERROR(SKIT_ENONFINITE,
                                  "coeffs[%zu] (matrix %zu, lag %td) = %g: NaN/Inf not allowed",
                                  c * per + k, c, (ptrdiff_t)k - (ptrdiff_t)(p->n - 1), t[k]);
    }
    return SKIT_OK;
}

/* The spectra from coefficients already checked, in the plan's workspace. */
static int compute_spectra(skit_toeplitz_plan *p, const double *coeffs)
{
    float *rounded = NULL;
    const size_t count = p->nmat * (p->m + p->n - 1);
    if (p->engine_f) { /* float32 plans transform the coefficients rounded to float */
        if (!(rounded = skit_malloc(count, sizeof(float)))) return SKIT_ENOMEM;
        for (size_t i = 0; i < count; i++) rounded[i] = (float)coeffs[i];
    }
    double *work = skit_workspace_take(p->workspace);
    if (!work) {
        skit_free(rounded);
        return SKIT_ENOMEM;
    }
    if (p->engine_f) skit_circulantf_set_toeplitz(p->engine_f, rounded, p->causality, (float *)work);
    else skit_circulant_set_toeplitz(p->engine, coeffs, p->causality, work);
    skit_workspace_give(p->workspace, work);
    skit_free(rounded);
    return SKIT_OK;
}

void skit_toeplitz_options_default(skit_toeplitz_options *options)
{
    if (!options) return;
    options->sharing = SKIT_TOEPLITZ_PER_CHANNEL;
    options->causality = SKIT_BIDIRECTIONAL;
    options->device = SKIT_DEVICE_CPU;
    options->precision = SKIT_PRECISION_F64;
    options->planner = SKIT_PLANNER_DEFAULT;
    options->inverse = SKIT_FFT_INVERSE_AUTO;
    options->layout = SKIT_LAYOUT_COLUMNS;
}

static int validate_shape(size_t m, size_t n, size_t d, const skit_toeplitz_options *o)
{
    const skit_toeplitz_sharing sharing = o->sharing;
    const skit_causality causality = o->causality;
    if (m == 0) return SKIT_ERROR(SKIT_EDOM, "m = 0 out of range: need m >= 1");
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1 channels");
    if (sharing != SKIT_TOEPLITZ_PER_CHANNEL && sharing != SKIT_TOEPLITZ_SHARED)
        return SKIT_ERROR(SKIT_EINVAL,
                          "sharing = %d: need SKIT_TOEPLITZ_PER_CHANNEL or SKIT_TOEPLITZ_SHARED",
                          (int)sharing);
    if (causality != SKIT_BIDIRECTIONAL && causality != SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d: need SKIT_BIDIRECTIONAL or SKIT_CAUSAL",
                          (int)causality);
    if (o->device != SKIT_DEVICE_CPU && o->device != SKIT_DEVICE_CUDA)
        return SKIT_ERROR(SKIT_EINVAL,
                          "device = %d unknown: need SKIT_DEVICE_CPU or SKIT_DEVICE_CUDA",
                          (int)o->device);
    if (o->precision != SKIT_PRECISION_F64 && o->precision != SKIT_PRECISION_F32)
        return SKIT_ERROR(SKIT_EINVAL,
                          "precision = %d unknown: need SKIT_PRECISION_F64 or SKIT_PRECISION_F32",
                          (int)o->precision);
    if (!skit_fft_inverse_name(o->inverse))
        return SKIT_ERROR(SKIT_EINVAL, "inverse = %d unknown: need SKIT_FFT_INVERSE_AUTO, _HARTLEY or _C2R",
                          (int)o->inverse);
    if (o->layout != SKIT_LAYOUT_COLUMNS && o->layout != SKIT_LAYOUT_ROWS)
        return SKIT_ERROR(SKIT_EINVAL, "layout = %d unknown: need SKIT_LAYOUT_COLUMNS or SKIT_LAYOUT_ROWS",
                          (int)o->layout);
    if (o->layout == SKIT_LAYOUT_ROWS && o->device == SKIT_DEVICE_CUDA)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "layout = rows with device = cuda: the CUDA plan reads column-major data only");
    if (o->precision == SKIT_PRECISION_F32 && o->device == SKIT_DEVICE_CUDA)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "precision = float32 with device = cuda: the CUDA plan computes in float64 only");
    size_t per, coeff_count;
    if (skit_size_add(m, n - 1, &per) != SKIT_OK ||
        skit_size_mul(sharing == SKIT_TOEPLITZ_SHARED ? 1 : d, per, &coeff_count) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW,
                          "Toeplitz plan size (m = %zu, n = %zu, d = %zu) overflows size_t", m, n, d);
    return SKIT_OK;
}

/* The CPU side: the circulant engine and the workspace it lends. */
static int create_engine(skit_toeplitz_plan *p, const double *coeffs)
{
    const skit_circulant_shape shape = {.rows = p->m,
                                        .cols = p->n,
                                        .channels = p->d,
                                        .spectra = p->nmat,
                                        .what = "Toeplitz FFT plan",
                                        .planner = p->planner,
                                        .inverse = p->inverse,
                                        .rows_layout = p->layout == SKIT_LAYOUT_ROWS};
    const int rows = p->layout == SKIT_LAYOUT_ROWS;
    size_t doubles;
    if (p->precision == SKIT_PRECISION_F32) {
        SKIT_TRY(skit_circulantf_create(&p->engine_f, &shape));
        doubles = (skit_circulantf_workspace_doubles(p->engine_f, rows) + 1) / 2; /* floats, in doubles */
    } else {
        SKIT_TRY(skit_circulant_create(&p->engine, &shape));
        doubles = skit_circulant_workspace_doubles(p->engine, rows);
    }
    SKIT_TRY(check_coeffs(p, coeffs));
    SKIT_TRY(skit_workspace_create(&p->workspace, doubles));
    SKIT_TRY(compute_spectra(p, coeffs));
    p->bytes = sizeof *p + skit_circulant_bytes(p->engine) + skit_circulantf_bytes(p->engine_f) +
               skit_workspace_doubles(p->workspace) * sizeof(double);
    return SKIT_OK;
}

int skit_toeplitz_plan_create(skit_toeplitz_plan **plan, size_t m, size_t n, size_t d,
                              const skit_toeplitz_options *options, const double *coeffs)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(coeffs);
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    if (options) o = *options;
    SKIT_TRY(validate_shape(m, n, d, &o));
    skit_toeplitz_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->m = m;
    p->n = n;
    p->d = d;
    p->nmat = o.sharing == SKIT_TOEPLITZ_SHARED ? 1 : d;
    p->sharing = o.sharing;
    p->causality = o.causality;
    p->precision = o.precision;
    p->planner = o.planner;
    p->inverse = o.inverse;
    p->layout = o.layout;
    int status;
    if (o.device == SKIT_DEVICE_CUDA) {
        status = toeplitz_device_create(&p->device, m, n, d, &o, coeffs);
        if (status == SKIT_OK) p->bytes = sizeof *p + toeplitz_device_bytes(p->device);
    } else {
        status = create_engine(p, coeffs);
    }
    if (status == SKIT_OK)
        status = p->precision == SKIT_PRECISION_F32 ? skit_correlatef_create(&p->correlate_f, m, n, 0)
                                                    : skit_correlate_create(&p->correlate, m, n, 0);
    if (status != SKIT_OK) {
        skit_toeplitz_plan_destroy(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

int skit_toeplitz_plan_set_coeffs(skit_toeplitz_plan *plan, const double *coeffs)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(coeffs);
    if (plan->device) return toeplitz_device_set_coeffs(plan->device, coeffs);
    /* validate everything first so a failure leaves the old spectra intact */
    SKIT_TRY(check_coeffs(plan, coeffs));
    return compute_spectra(plan, coeffs);
}

size_t skit_toeplitz_plan_workspace_bytes(const skit_toeplitz_plan *plan)
{
    if (!plan || plan->device) return 0;
    const int rows = plan->layout == SKIT_LAYOUT_ROWS;
    /* ALIGN_BYTES of slack: a caller's array need only be 8-byte aligned */
    if (plan->engine_f) return skit_circulantf_workspace_doubles(plan->engine_f, rows) * sizeof(float) + ALIGN_BYTES;
    return skit_circulant_workspace_doubles(plan->engine, rows) * sizeof(double) + ALIGN_BYTES;
}

skit_precision skit_toeplitz_plan_precision(const skit_toeplitz_plan *plan)
{
    return plan ? plan->precision : SKIT_PRECISION_F64;
}

/* The leading dimensions of an n x d input and an m x d output (swapped
 * when transposed) in the plan's layout: >= the rows of a column or the d
 * values of a row, and the block's extent within size_t. */
int toeplitz_check_lds(const skit_toeplitz_plan *p, int transpose, size_t ldx, size_t ldy)
{
    const size_t nin = transpose ? p->m : p->n, nout = transpose ? p->n : p->m;
    const int rows = p->layout == SKIT_LAYOUT_ROWS;
    const size_t min_x = rows ? p->d : nin, min_y = rows ? p->d : nout;
    const char *what_x = rows ? "d, channels" : transpose ? "m, rows of T" : "n, columns of T";
    const char *what_y = rows ? "d, channels" : transpose ? "n, columns of T" : "m, rows of T";
    if (ldx < min_x) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu out of range: need ldx >= %zu (%s)", ldx, min_x, what_x);
    if (ldy < min_y) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu out of range: need ldy >= %zu (%s)", ldy, min_y, what_y);
    size_t extent_x, extent_y;
    if (skit_size_mul(rows ? nin - 1 : p->d - 1, ldx, &extent_x) != SKIT_OK ||
        skit_size_mul(rows ? nout - 1 : p->d - 1, ldy, &extent_y) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "leading dimension (ldx = %zu, ldy = %zu) times %s overflows size_t",
                          ldx, ldy, rows ? "the rows" : "d");
    return SKIT_OK;
}

/* y(:, c) = T_c x(:, c) (or T_c^T) for every channel; x and y are arrays of
 * the plan's precision, which the caller says it passes (precision). */
static int apply(const skit_toeplitz_plan *p, skit_precision precision, int transpose, const void *x,
                 size_t ldx, void *y, size_t ldy, void *work)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    if (precision != p->precision)
        return SKIT_ERROR(SKIT_EINVAL, "plan computes in %s: execute it with skit_toeplitz_plan_execute%s%s",
                          p->precision == SKIT_PRECISION_F32 ? "float32" : "float64",
                          transpose ? "_transpose" : "", p->precision == SKIT_PRECISION_F32 ? "_f32" : "");
    SKIT_TRY(toeplitz_check_lds(p, transpose, ldx, ldy));
    if (p->device) return toeplitz_device_execute(p->device, transpose, x, ldx, y, ldy);
    double *base = work;
    if (work) {
        uintptr_t addr = (uintptr_t)work;
        base = (double *)((addr + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES);
    } else if (!(base = skit_workspace_take(p->workspace))) {
        return SKIT_ENOMEM;
    }
    if (p->layout == SKIT_LAYOUT_ROWS) {
        if (p->engine_f) skit_circulantf_apply_rows(p->engine_f, transpose, x, ldx, y, ldy, 1, (float *)base);
        else skit_circulant_apply_rows(p->engine, transpose, x, ldx, y, ldy, 1, base);
    } else if (p->engine_f) {
        skit_circulantf_apply_channels(p->engine_f, transpose, x, ldx, y, ldy, p->d, (float *)base);
    } else {
        skit_circulant_apply_channels(p->engine, transpose, x, ldx, y, ldy, p->d, base);
    }
    if (!work) skit_workspace_give(p->workspace, base);
    return SKIT_OK;
}

int skit_toeplitz_plan_execute(const skit_toeplitz_plan *plan, const double *x, size_t ldx,
                               double *y, size_t ldy, void *work)
{
    return apply(plan, SKIT_PRECISION_F64, 0, x, ldx, y, ldy, work);
}

int skit_toeplitz_plan_execute_transpose(const skit_toeplitz_plan *plan, const double *x,
                                         size_t ldx, double *y, size_t ldy, void *work)
{
    return apply(plan, SKIT_PRECISION_F64, 1, x, ldx, y, ldy, work);
}

int skit_toeplitz_plan_execute_f32(const skit_toeplitz_plan *plan, const float *x, size_t ldx, float *y,
                                   size_t ldy, void *work)
{
    return apply(plan, SKIT_PRECISION_F32, 0, x, ldx, y, ldy, work);
}

int skit_toeplitz_plan_execute_transpose_f32(const skit_toeplitz_plan *plan, const float *x, size_t ldx,
                                             float *y, size_t ldy, void *work)
{
    return apply(plan, SKIT_PRECISION_F32, 1, x, ldx, y, ldy, work);
}

size_t skit_toeplitz_plan_fft_length(const skit_toeplitz_plan *plan)
{
    if (!plan) return 0;
    return plan->device ? toeplitz_device_fft_length(plan->device)
                        : plan->engine_f ? skit_circulantf_length(plan->engine_f)
                                         : skit_circulant_length(plan->engine);
}

skit_fft_inverse skit_toeplitz_plan_inverse(const skit_toeplitz_plan *plan)
{
    if (!plan || plan->device) return SKIT_FFT_INVERSE_AUTO;
    int c2r = plan->engine_f ? skit_circulantf_inverse_c2r(plan->engine_f) : skit_circulant_inverse_c2r(plan->engine);
    return c2r ? SKIT_FFT_INVERSE_C2R : SKIT_FFT_INVERSE_HARTLEY;
}

size_t skit_toeplitz_plan_bytes(const skit_toeplitz_plan *plan) { return plan ? plan->bytes : 0; }

int skit_toeplitz_plan_flops(const skit_toeplitz_plan *plan, double *flops)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(flops);
    if (plan->device)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "flops: a device plan's transforms are cuFFT's, which count none");
    double per = plan->engine_f ? skit_circulantf_channel_flops(plan->engine_f, 0)
                                : skit_circulant_channel_flops(plan->engine, 0);
    *flops = per * (double)plan->d;
    return SKIT_OK;
}

void skit_toeplitz_plan_destroy(skit_toeplitz_plan *plan)
{
    if (!plan) return;
    skit_circulant_destroy(plan->engine);
    skit_circulantf_destroy(plan->engine_f);
    skit_workspace_destroy(plan->workspace);
    toeplitz_device_destroy(plan->device);
    skit_correlate_destroy(plan->correlate);
    skit_correlatef_destroy(plan->correlate_f);
    skit_free(plan);
}

void toeplitz_plan_view(const skit_toeplitz_plan *p, toeplitz_view *v)
{
    v->m = p->m;
    v->n = p->n;
    v->d = p->d;
    v->shared = p->sharing == SKIT_TOEPLITZ_SHARED;
    v->causality = p->causality;
    v->precision = p->precision;
    v->layout = p->layout;
    v->correlate = p->correlate;
    v->correlate_f = p->correlate_f;
}
