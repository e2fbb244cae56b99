/* plan.c — the token-mixing plan's front (skit/tno.h): options and their
 * validation, parameter counts, create / update / execute / destroy, the
 * parameters, and the queries; each operator behind its table of functions
 * (tno_internal.h). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tno/tno_internal.h"

void skit_tno_options_default(skit_tno_options *o, skit_tno_kind kind)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->causality = SKIT_BIDIRECTIONAL;
    o->layout = SKIT_TNO_ROWS;
    o->rpe_width = 64;
    o->rpe_layers = 3;
    o->activation = SKIT_ACTIVATION_RELU;
    o->norm = SKIT_NORM_RMS;
    o->decay = 0.99;
    o->rank = 64;
    o->taps = 17;
    o->knots = 32;
    o->fft_length = 0;
    o->seed = 1;
    o->causal_ski = SKIT_TNO_CAUSAL_AUTO;
}

const char *skit_tno_kind_name(skit_tno_kind kind)
{
    switch (kind) {
    case SKIT_TNO_FFT: return "tno";
    case SKIT_TNO_SKI: return "ski";
    case SKIT_TNO_FD: return "fd";
    }
    return "unknown";
}

const char *tno_activation_name(skit_activation a)
{
    return a == SKIT_ACTIVATION_RELU ? "relu" : a == SKIT_ACTIVATION_SILU ? "silu" : "gelu";
}

const char *tno_norm_name(skit_norm nm)
{
    return nm == SKIT_NORM_RMS ? "rms" : nm == SKIT_NORM_LAYER ? "layer" : "none";
}

/* ---- option validation and sizes --------------------------------------- */

static int mlp_out_dim(const skit_tno_options *o, size_t d)
{
    return (int)(o->kind == SKIT_TNO_FD && o->causality == SKIT_BIDIRECTIONAL ? 2 * d : d);
}

static int validate_options(const skit_tno_options *o)
{
    if (o->kind != SKIT_TNO_FFT && o->kind != SKIT_TNO_SKI && o->kind != SKIT_TNO_FD)
        return SKIT_ERROR(SKIT_EINVAL, "kind = %d unknown: need SKIT_TNO_FFT, SKIT_TNO_SKI or SKIT_TNO_FD",
                          (int)o->kind);
    if (o->causality != SKIT_BIDIRECTIONAL && o->causality != SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d unknown: need SKIT_BIDIRECTIONAL or SKIT_CAUSAL",
                          (int)o->causality);
    if (o->layout != SKIT_TNO_ROWS && o->layout != SKIT_TNO_CHANNELS)
        return SKIT_ERROR(SKIT_EINVAL, "layout = %d unknown: need SKIT_TNO_ROWS or SKIT_TNO_CHANNELS",
                          (int)o->layout);
    if (o->device != SKIT_DEVICE_CPU && o->device != SKIT_DEVICE_CUDA)
        return SKIT_ERROR(SKIT_EINVAL, "device = %d unknown: need SKIT_DEVICE_CPU or SKIT_DEVICE_CUDA",
                          (int)o->device);
    if (o->precision != SKIT_PRECISION_F64 && o->precision != SKIT_PRECISION_F32)
        return SKIT_ERROR(SKIT_EINVAL, "precision = %d unknown: need SKIT_PRECISION_F64 or SKIT_PRECISION_F32",
                          (int)o->precision);
    if (o->precision == SKIT_PRECISION_F32 && o->device != SKIT_DEVICE_CPU)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "precision = float32: on the cpu only (got device = %s)",
                          skit_device_name(o->device));
    if (o->kind == SKIT_TNO_FFT || o->kind == SKIT_TNO_FD) {
        if (o->rpe_width == 0 || o->rpe_width > 65536)
            return SKIT_ERROR(SKIT_EDOM, "rpe_width = %zu out of range: need 1 <= width <= 65536",
                              o->rpe_width);
        if (o->rpe_layers > 64)
            return SKIT_ERROR(SKIT_EDOM, "rpe_layers = %zu out of range: need 0 <= layers <= 64",
                              o->rpe_layers);
        if (o->activation != SKIT_ACTIVATION_RELU && o->activation != SKIT_ACTIVATION_SILU &&
            o->activation != SKIT_ACTIVATION_GELU)
            return SKIT_ERROR(SKIT_EINVAL, "activation = %d unknown: need ReLU, SiLU or GeLU",
                              (int)o->activation);
        if (o->norm != SKIT_NORM_NONE && o->norm != SKIT_NORM_LAYER && o->norm != SKIT_NORM_RMS)
            return SKIT_ERROR(SKIT_EINVAL, "norm = %d unknown: need none, LayerNorm or RMS norm",
                              (int)o->norm);
    }
    if (o->kind == SKIT_TNO_FFT && !(o->decay > 0 && o->decay <= 1))
        return SKIT_ERROR(SKIT_EDOM, "decay = %g out of range: the TNO decay bias needs 0 < lambda <= 1",
                          o->decay);
    if (o->kind == SKIT_TNO_SKI) {
        if (!(o->decay > 0 && o->decay < 1))
            return SKIT_ERROR(SKIT_EDOM, "decay = %g out of range: the SKI time warp needs 0 < lambda < 1",
                              o->decay);
        if (o->knots == 0 || o->knots > ((size_t)1 << 20))
            return SKIT_ERROR(SKIT_EDOM, "knots = %zu out of range: need 1 <= K <= 2^20 per side",
                              o->knots);
        if (o->taps % 2 == 0 && o->taps != 0)
            return SKIT_ERROR(SKIT_EDOM, "taps = %zu out of range: need an odd m (a centred filter) or 0",
                              o->taps);
        if (o->rank < 2)
            return SKIT_ERROR(SKIT_EDOM, "rank = %zu out of range: need 2 <= r <= n", o->rank);
        if (o->causal_ski != SKIT_TNO_CAUSAL_CUMSUM && o->causal_ski != SKIT_TNO_CAUSAL_BLOCKED &&
            o->causal_ski != SKIT_TNO_CAUSAL_AUTO)
            return SKIT_ERROR(SKIT_EINVAL, "causal_ski = %d unknown: need SKIT_TNO_CAUSAL_CUMSUM, "
                                           "SKIT_TNO_CAUSAL_BLOCKED or SKIT_TNO_CAUSAL_AUTO", (int)o->causal_ski);
    }
    return SKIT_OK;
}

/* Parameters of an MLP 1 -> out with `layers` hidden layers of `width`. */
static int mlp_params(size_t width, size_t layers, size_t out, size_t *count)
{
    size_t hidden, last, total;
    if (skit_size_mul(width, width + 1, &hidden) || skit_size_mul(hidden, layers, &hidden) ||
        skit_size_mul(out, width + 1, &last) || skit_size_add(hidden, last, &total) ||
        skit_size_add(total, 2 * width, &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "RPE parameter count (width %zu, %zu layers, %zu outputs) "
                                          "overflows size_t", width, layers, out);
    *count = total;
    return SKIT_OK;
}

int skit_tno_options_parameter_count(const skit_tno_options *o, size_t d, size_t *count)
{
    SKIT_REQUIRE_PTR(count);
    *count = 0;
    SKIT_REQUIRE_PTR(o);
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1 channels");
    if (d > ((size_t)1 << 30)) return SKIT_ERROR(SKIT_EDOM, "d = %zu out of range: need d <= 2^30", d);
    SKIT_TRY(validate_options(o));
    if (o->kind == SKIT_TNO_SKI) {
        size_t a, b;
        if (skit_size_mul(d, 2 * o->knots, &a) || skit_size_mul(d, o->taps, &b) ||
            skit_size_add(a, b, count))
            return SKIT_ERROR(SKIT_EOVERFLOW, "SKI parameter count (d = %zu, K = %zu, m = %zu) "
                                              "overflows size_t", d, o->knots, o->taps);
        return SKIT_OK;
    }
    return mlp_params(o->rpe_width, o->rpe_layers, (size_t)mlp_out_dim(o, d), count);
}


/* ---- create / destroy --------------------------------------------------- */

static const tno_ops *ops_for(const skit_tno_options *o)
{
    switch (o->kind) {
    case SKIT_TNO_FFT: return &tno_fft_ops;
    case SKIT_TNO_FD: return &tno_fd_ops;
    case SKIT_TNO_SKI: return o->causality == SKIT_CAUSAL ? &tno_ski_causal_ops : &tno_ski_ops;
    }
    return NULL;
}

/* The size checks that need n as well as the options. */
static int validate_shape(const skit_tno_options *o, size_t n, size_t d, size_t batch)
{
    if (o->kind == SKIT_TNO_SKI) {
        if (o->rank > n)
            return SKIT_ERROR(SKIT_EDOM, "rank = %zu out of range: need 2 <= r <= n (= %zu)", o->rank, n);
        if (o->taps > 2 * n - 1)
            return SKIT_ERROR(SKIT_EDOM, "taps = %zu out of range: need m <= 2n - 1 (= %zu)", o->taps,
                              2 * n - 1);
    }
    if (o->kind == SKIT_TNO_FD && o->fft_length != 0 &&
        (o->fft_length % 2 || o->fft_length < 2 * n || o->fft_length > ((size_t)1 << 31)))
        return SKIT_ERROR(SKIT_EDOM, "fft_length = %zu out of range: need an even N with 2n (= %zu) "
                                     "<= N <= 2^31, or 0 for the default", o->fft_length, 2 * n);
    size_t elements;
    if (skit_size_mul(n, d, &elements) || skit_size_mul(elements, batch, &elements) ||
        skit_size_mul(elements, sizeof(double), &elements))
        return SKIT_ERROR(SKIT_EOVERFLOW, "batch * n * d (%zu * %zu * %zu) doubles overflow size_t",
                          batch, n, d);
    return SKIT_OK;
}

/* Bytes of everything create will allocate, so that a request beyond
 * available memory is refused before any allocation. */
static int estimate_bytes(const skit_tno_plan *p, size_t *bytes)
{
    size_t doubles = 2 * p->param_count; /* parameters + backup */
    int overflow = 0;
    if (p->opt.device == SKIT_DEVICE_CUDA &&
        skit_size_add(doubles, tno_device_host_estimate(&p->opt, p->n, p->d), &doubles))
        overflow = 1;
    if (p->ops->estimate(p, &doubles) != SKIT_OK || overflow ||
        skit_size_mul(doubles, sizeof(double), bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "operator size (n = %zu, d = %zu) overflows size_t", p->n, p->d);
    return SKIT_OK;
}

void skit_tno_plan_destroy(skit_tno_plan *p)
{
    if (!p) return;
    tno_device_destroy(p);
    if (p->ops->backward && p->grad) p->ops->backward->destroy(p);
    p->ops->destroy(p);
    skit_free(p->backup);
    skit_workspace_destroy(p->workspace);
    skit_free(p);
}

/* the operator, its workspace and its kernels; then the device side */
static int create_parts(skit_tno_plan *p, const double *params)
{
    size_t estimate;
    SKIT_TRY(estimate_bytes(p, &estimate));
    SKIT_TRY(skit_memory_check(estimate, "token-mixing operator plan"));
    p->backup = skit_malloc(p->param_count, sizeof(double));
    if (!p->backup) return SKIT_ENOMEM;
    SKIT_TRY(p->ops->create(p, params));
    if (p->opt.precision == SKIT_PRECISION_F32) SKIT_TRY(p->ops->create_f32(p));
    /* a float32 plan whose operator has no float32 backward keeps no gradient state */
    if (p->ops->backward && p->opt.device == SKIT_DEVICE_CPU &&
        (p->opt.precision != SKIT_PRECISION_F32 || p->ops->backward->run_f32))
        SKIT_TRY(p->ops->backward->create(p));
    SKIT_TRY(skit_workspace_create(&p->workspace, p->ops->workspace_doubles(p)));
    SKIT_TRY(skit_tno_plan_update(p));
    if (p->opt.device == SKIT_DEVICE_CUDA) SKIT_TRY(tno_device_create(p));
    return SKIT_OK;
}

int skit_tno_plan_create(skit_tno_plan **plan, size_t n, size_t d, size_t batch,
                         const skit_tno_options *options, const double *params, size_t param_count)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(options);
    const skit_tno_options *o = options;
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 tokens");
    if (n > ((size_t)1 << 30)) return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^30", n);
    if (batch == 0) return SKIT_ERROR(SKIT_EDOM, "batch = 0 out of range: need batch >= 1");
    size_t count;
    SKIT_TRY(skit_tno_options_parameter_count(o, d, &count));
    SKIT_TRY(validate_shape(o, n, d, batch));
    if (params) {
        if (param_count != count)
            return SKIT_ERROR(SKIT_ESHAPE, "param_count = %zu: this %s operator has %zu parameters",
                              param_count, skit_tno_kind_name(o->kind), count);
        SKIT_TRY(skit_check_finite(params, count, "params"));
    }
    /* every argument is valid: now whether this device can run it */
    if (o->device == SKIT_DEVICE_CUDA) {
        SKIT_TRY(tno_device_supported(o));
        SKIT_TRY(skit_device_check(SKIT_DEVICE_CUDA));
    }
    skit_tno_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->opt = *o;
    if (o->causal_ski == SKIT_TNO_CAUSAL_AUTO) /* the crossover of skit/tno.h */
        p->opt.causal_ski = n > 2 * o->rank ? SKIT_TNO_CAUSAL_BLOCKED : SKIT_TNO_CAUSAL_CUMSUM;
    p->n = n;
    p->d = d;
    p->batch = batch;
    p->param_count = count;
    p->threads = skit_max_threads();
    p->ops = ops_for(o);
    int status = create_parts(p, params);
    if (status != SKIT_OK) {
        skit_tno_plan_destroy(p);
        return status;
    }
    p->bytes = sizeof *p + p->ops->bytes(p) + tno_device_bytes(p) + p->param_count * sizeof(double) +
               skit_workspace_doubles(p->workspace) * sizeof(double);
    *plan = p;
    return SKIT_OK;
}

/* ---- parameters and kernels ----------------------------------------------- */

size_t skit_tno_plan_parameter_count(const skit_tno_plan *p)
{
    return p ? p->param_count : 0;
}

int skit_tno_plan_get_parameters(const skit_tno_plan *p, double *params, size_t count)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(params);
    if (count != p->param_count)
        return SKIT_ERROR(SKIT_ESHAPE, "count = %zu: this operator has %zu parameters", count,
                          p->param_count);
    return p->ops->get_parameters(p, params);
}

int skit_tno_plan_set_parameters(skit_tno_plan *p, const double *params, size_t count)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(params);
    if (count != p->param_count)
        return SKIT_ERROR(SKIT_ESHAPE, "count = %zu: this operator has %zu parameters", count,
                          p->param_count);
    SKIT_TRY(skit_check_finite(params, count, "params"));
    /* keep the old parameters until the new kernels are known to be finite */
    SKIT_TRY(p->ops->get_parameters(p, p->backup));
    SKIT_TRY(p->ops->put_parameters(p, params));
    int status = skit_tno_plan_update(p);
    if (status != SKIT_OK) {
        p->ops->put_parameters(p, p->backup);
        skit_tno_plan_update(p);
    }
    return status;
}

int skit_tno_plan_set_decay(skit_tno_plan *p, double lambda)
{
    SKIT_REQUIRE_PTR(p);
    if (p->opt.kind != SKIT_TNO_FFT)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "set_decay: only TNO (kind fft) has a decay bias");
    if (!(lambda > 0 && lambda <= 1))
        return SKIT_ERROR(SKIT_EDOM, "lambda = %g out of range: need 0 < lambda <= 1", lambda);
    double old = p->opt.decay;
    p->opt.decay = lambda;
    tno_fft_set_decay(p);
    int status = skit_tno_plan_update(p);
    if (status != SKIT_OK) {
        p->opt.decay = old;
        tno_fft_set_decay(p);
        skit_tno_plan_update(p);
    }
    return status;
}

int skit_tno_plan_update(skit_tno_plan *p)
{
    SKIT_REQUIRE_PTR(p);
    double *work = skit_workspace_take(p->workspace);
    if (!work) return SKIT_ENOMEM;
    int status = p->ops->update(p, work);
    skit_workspace_give(p->workspace, work);
    SKIT_TRY(status);
    return p->dev ? tno_device_update(p) : SKIT_OK;
}

int skit_tno_plan_eval_rpe(skit_tno_plan *p, size_t *points)
{
    SKIT_REQUIRE_PTR(p);
    if (points) *points = 0;
    if (!p->ops->eval_rpe) return SKIT_OK;
    size_t evaluated = 0;
    SKIT_TRY(p->ops->eval_rpe(p, &evaluated));
    if (points) *points = evaluated;
    return SKIT_OK;
}

/* ---- execute ---------------------------------------------------------- */

size_t skit_tno_plan_workspace_bytes(const skit_tno_plan *p)
{
    if (!p || p->dev) return 0;
    return skit_workspace_doubles(p->workspace) * sizeof(double);
}

/* x and y of the precision the caller says it passes */
static int execute(const skit_tno_plan *p, skit_precision precision, const void *x, void *y, void *work)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    const int f32 = p->opt.precision == SKIT_PRECISION_F32;
    if (precision != p->opt.precision)
        return SKIT_ERROR(SKIT_EINVAL, "plan computes in %s: execute it with skit_tno_plan_execute%s",
                          f32 ? "float32" : "float64", f32 ? "_f32" : "");
    size_t bytes = p->batch * p->n * p->d * (f32 ? sizeof(float) : sizeof(double));
    uintptr_t xa = (uintptr_t)x, ya = (uintptr_t)y;
    if (xa < ya + bytes && ya < xa + bytes)
        return SKIT_ERROR(SKIT_EINVAL, "x and y overlap: the operator needs separate input and output "
                                       "arrays of batch * n * d (= %zu) values", p->batch * p->n * p->d);
    if (p->dev) return tno_device_execute(p, x, y);
    /* FFTW's new-array execute needs the alignment the engine planned with */
    if (work && ((uintptr_t)work % 64) != 0)
        return SKIT_ERROR(SKIT_EINVAL, "work is not 64-byte aligned: allocate it with skit_malloc");
    double *buf = work ? work : skit_workspace_take(p->workspace);
    if (!buf) return SKIT_ENOMEM;
    if (f32) p->ops->execute_f32(p, x, y, (float *)buf);
    else p->ops->execute(p, x, y, buf);
    if (!work) skit_workspace_give(p->workspace, buf);
    return SKIT_OK;
}

int skit_tno_plan_execute(const skit_tno_plan *p, const double *x, double *y, void *work)
{
    return execute(p, SKIT_PRECISION_F64, x, y, work);
}

int skit_tno_plan_execute_f32(const skit_tno_plan *p, const float *x, float *y, void *work)
{
    return execute(p, SKIT_PRECISION_F32, x, y, work);
}

int skit_tno_plan_forward(skit_tno_plan *p, const double *x, double *y)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_TRY(skit_tno_plan_update(p));
    return skit_tno_plan_execute(p, x, y, NULL);
}

int skit_tno_plan_forward_f32(skit_tno_plan *p, const float *x, float *y)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_TRY(skit_tno_plan_update(p));
    return skit_tno_plan_execute_f32(p, x, y, NULL);
}

/* ---- queries ---------------------------------------------------------- */

size_t skit_tno_plan_bytes(const skit_tno_plan *p)
{
    return p ? p->bytes : 0;
}
size_t skit_tno_plan_n(const skit_tno_plan *p)
{
    return p ? p->n : 0;
}
size_t skit_tno_plan_d(const skit_tno_plan *p)
{
    return p ? p->d : 0;
}
size_t skit_tno_plan_batch(const skit_tno_plan *p)
{
    return p ? p->batch : 0;
}
const skit_tno_options *skit_tno_plan_options(const skit_tno_plan *p)
{
    return p ? &p->opt : NULL;
}

void skit_tno_plan_describe(const skit_tno_plan *p, char *text, size_t size)
{
    if (!text || size == 0) return;
    if (!p) {
        snprintf(text, size, "(null)");
        return;
    }
    const skit_tno_options *o = &p->opt;
    int k = snprintf(text, size, "%s %s n=%zu d=%zu batch=%zu layout=%s", skit_tno_kind_name(o->kind),
                     o->causality == SKIT_CAUSAL ? "causal" : "bidirectional", p->n, p->d, p->batch,
                     o->layout == SKIT_TNO_ROWS ? "rows" : "channels");
    if (k < 0 || (size_t)k >= size) return;
    p->ops->describe(p, text + k, size - (size_t)k);
    if (o->device == SKIT_DEVICE_CUDA) {
        size_t len = strlen(text);
        if (len + 1 < size) snprintf(text + len, size - len, " device=cuda");
    }
}

SKIT_DEFINE_STRUCT_SIZE(skit_tno_struct_size,
                        SKIT_STRUCT(skit_tno_options))
