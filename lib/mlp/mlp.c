/* mlp.c — the MLP of skit/mlp.h: evaluation by GEMM over blocks of inputs,
 * and exact input derivatives by pushing truncated Taylor series through
 * every layer (taylor.c). */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "mlp/mlp_internal.h"
#include "mlp/taylor.h"
#include "skit/mlp.h"
#include "core/simd.h" /* SKIT_MULTIVERSION, SKIT_SIMD */

/* Inputs evaluated per GEMM; fixes the workspace independent of `count`. */
#define MLP_BLOCK 1024
#define MAX_HIDDEN_LAYERS 64
#define MAX_TAYLOR_ORDER 16


/* the float copy of the parameters the float sweep reads */
static void round_params(skit_mlp *m)
{
    for (size_t i = 0; i < m->params_f_count; i++) m->params_f[i] = (float)m->params[i];
}

int skit_mlp_keep_float_copy(skit_mlp *mlp, int output_layer)
{
    const size_t count = output_layer ? mlp->parameter_count : mlp_layer_offset(mlp, mlp->linear_count - 1);
    if (count > mlp->params_f_count) {
        float *f = skit_malloc(count, sizeof(float));
        if (!f) return SKIT_ENOMEM;
        skit_free(mlp->params_f);
        mlp->params_f = f;
        mlp->params_f_count = count;
    }
    round_params(mlp);
    return SKIT_OK;
}

int skit_mlp_create(skit_mlp **mlp, size_t in_dim, size_t width, size_t hidden_layers,
                    size_t out_dim, skit_activation activation, skit_norm norm, uint64_t seed)
{
    SKIT_REQUIRE_PTR(mlp);
    *mlp = NULL;
    if (in_dim == 0) return SKIT_ERROR(SKIT_EDOM, "in_dim = 0 out of range: need in_dim >= 1");
    if (width == 0) return SKIT_ERROR(SKIT_EDOM, "width = 0 out of range: need width >= 1");
    if (out_dim == 0) return SKIT_ERROR(SKIT_EDOM, "out_dim = 0 out of range: need out_dim >= 1");
    if (hidden_layers > MAX_HIDDEN_LAYERS)
        return SKIT_ERROR(SKIT_EDOM, "hidden_layers = %zu out of range: need hidden_layers <= %d",
                          hidden_layers, MAX_HIDDEN_LAYERS);
    if ((int)activation < SKIT_ACTIVATION_RELU || (int)activation > SKIT_ACTIVATION_GELU)
        return SKIT_ERROR(SKIT_EINVAL, "activation = %d unknown: need relu (0), silu (1) or gelu (2)",
                          (int)activation);
    if ((int)norm < SKIT_NORM_NONE || (int)norm > SKIT_NORM_RMS)
        return SKIT_ERROR(SKIT_EINVAL, "norm = %d unknown: need none (0), layer (1) or rms (2)",
                          (int)norm);

    /* parameter count with overflow checks: (in+1)w + L(w+1)w + (w+1)out */
    size_t a, b, c, total;
    if (skit_size_add(in_dim, 1, &a) || skit_size_mul(a, width, &a) ||
        skit_size_add(width, 1, &b) || skit_size_mul(b, width, &c) ||
        skit_size_mul(c, hidden_layers, &c) || skit_size_mul(b, out_dim, &b) ||
        skit_size_add(a, b, &total) || skit_size_add(total, c, &total) ||
        skit_size_mul(total, sizeof(double), &a))
        return SKIT_ERROR(SKIT_EOVERFLOW, "MLP parameter count overflows size_t (width = %zu)", width);
    SKIT_TRY(skit_memory_check(a, "MLP parameters"));

    skit_mlp *m = skit_calloc(1, sizeof *m);
    if (!m) return SKIT_ENOMEM;
    m->in_dim = in_dim;
    m->width = width;
    m->hidden_layers = hidden_layers;
    m->out_dim = out_dim;
    m->linear_count = hidden_layers + 2;
    m->activation = activation;
    m->norm = norm;
    m->parameter_count = total;
    m->params = skit_malloc(total, sizeof(double));
    if (!m->params) {
        skit_mlp_destroy(m);
        return SKIT_ENOMEM;
    }
    /* PyTorch's nn.Linear default: kaiming_uniform(a = sqrt 5) for the
     * weight and U(+-1/sqrt(fan_in)) for the bias, i.e. both uniform with
     * bound 1/sqrt(fan_in); drawn layer by layer, weight then bias. */
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    double *p = m->params;
    for (size_t l = 0; l < m->linear_count; l++) {
        size_t fan_in = mlp_layer_in(m, l), fan_out = mlp_layer_out(m, l);
        double bound = 1.0 / sqrt((double)fan_in);
        skit_rng_fill_uniform(&rng, p, fan_out * fan_in + fan_out, -bound, bound);
        p += fan_out * (fan_in + 1);
    }
    *mlp = m;
    return SKIT_OK;
}

void skit_mlp_destroy(skit_mlp *mlp)
{
    if (!mlp) return;
    skit_free(mlp->params);
    skit_free(mlp->params_f);
    skit_free(mlp);
}

size_t skit_mlp_in_dim(const skit_mlp *mlp) { return mlp ? mlp->in_dim : 0; }
size_t skit_mlp_out_dim(const skit_mlp *mlp) { return mlp ? mlp->out_dim : 0; }
skit_activation skit_mlp_activation_of(const skit_mlp *mlp) { return mlp->activation; }
skit_norm skit_mlp_norm_of(const skit_mlp *mlp) { return mlp->norm; }
size_t skit_mlp_parameter_count(const skit_mlp *mlp) { return mlp ? mlp->parameter_count : 0; }
size_t skit_mlp_width_of(const skit_mlp *mlp) { return mlp->width; }
size_t skit_mlp_hidden_layers_of(const skit_mlp *mlp) { return mlp->hidden_layers; }
const double *skit_mlp_params_of(const skit_mlp *mlp) { return mlp->params; }

int skit_mlp_get_parameters(const skit_mlp *mlp, double *params, size_t count)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(params);
    if (count != mlp->parameter_count)
        return SKIT_ERROR(SKIT_ESHAPE, "count = %zu does not match the MLP's parameter count (%zu)",
                          count, mlp->parameter_count);
    memcpy(params, mlp->params, count * sizeof(double));
    return SKIT_OK;
}

int skit_mlp_set_parameters(skit_mlp *mlp, const double *params, size_t count)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(params);
    if (count != mlp->parameter_count)
        return SKIT_ERROR(SKIT_ESHAPE, "count = %zu does not match the MLP's parameter count (%zu)",
                          count, mlp->parameter_count);
    SKIT_TRY(skit_check_finite(params, count, "MLP parameters"));
    memcpy(mlp->params, params, count * sizeof(double));
    round_params(mlp);
    return SKIT_OK;
}

size_t skit_mlp_workspace_size(const skit_mlp *mlp)
{
    return mlp ? 2 * (size_t)MLP_BLOCK * mlp->width : 0;
}

/* out (rows x fan_out, ld ldo) = in (rows x fan_in) W^T + b */
static void linear_rows(const skit_mlp *m, size_t l, size_t rows, const double *in, double *out,
                        size_t ldo)
{
    size_t fan_in = mlp_layer_in(m, l), fan_out = mlp_layer_out(m, l);
    const double *w = m->params + mlp_layer_offset(m, l);
    const double *bias = w + fan_out * fan_in;
    for (size_t r = 0; r < rows; r++) memcpy(out + r * ldo, bias, fan_out * sizeof(double));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)fan_out, (int)fan_in,
                1.0, in, (int)fan_in, w, (int)fan_in, 1.0, out, (int)ldo);
}

double skit_mlp_activate(skit_activation a, double v)
{
    switch (a) {
    case SKIT_ACTIVATION_RELU: return v > 0 ? v : 0.0;
    case SKIT_ACTIVATION_SILU: return v >= 0 ? v / (1.0 + exp(-v)) : v * exp(v) / (1.0 + exp(v));
    case SKIT_ACTIVATION_GELU: return v * 0.5 * erfc(-v / M_SQRT2);
    }
    return v;
}

/* The activation over a contiguous span, in place. ReLU gets its own
 * vectorised loop, so that the cheapest activation costs next to nothing
 * beside the GEMMs; SiLU and GeLU call exp/erfc per element anyway. */
static void activate_span(skit_activation a, double *v, size_t count)
{
    if (a == SKIT_ACTIVATION_RELU) {
        SKIT_SIMD
        for (size_t i = 0; i < count; i++) v[i] = v[i] > 0 ? v[i] : 0.0;
        return;
    }
    for (size_t i = 0; i < count; i++) v[i] = skit_mlp_activate(a, v[i]);
}

/* The norm of one row of w values: row[i] = (row[i] - *shift) * *inv. */
void skit_mlp_norm_stats(skit_norm norm, const double *row, size_t w, double *shift, double *inv)
{
    *shift = 0.0;
    *inv = 1.0;
    if (norm == SKIT_NORM_LAYER) {
        double mean = 0, var = 0;
        for (size_t i = 0; i < w; i++) mean += row[i];
        mean /= (double)w;
        for (size_t i = 0; i < w; i++) var += (row[i] - mean) * (row[i] - mean);
        *shift = mean;
        *inv = 1.0 / sqrt(var / (double)w + LAYER_NORM_EPS);
    } else if (norm == SKIT_NORM_RMS) {
        double ss = 0;
        for (size_t i = 0; i < w; i++) ss += row[i] * row[i];
        *inv = 1.0 / (sqrt(ss / (double)w) + RMS_NORM_EPS);
    }
}

/* the norm on each row of h (rows x width), in place */
static void norm_rows(const skit_mlp *m, size_t rows, double *h)
{
    size_t w = m->width;
    for (size_t r = 0; r < rows; r++) {
        double *row = h + r * w, shift, inv;
        if (m->norm == SKIT_NORM_NONE) continue;
        skit_mlp_norm_stats(m->norm, row, w, &shift, &inv);
        for (size_t i = 0; i < w; i++) row[i] = (row[i] - shift) * inv;
    }
}

/* norm then activation, one row at a time while the row is in L1 */
static void norm_activate_rows(const skit_mlp *m, size_t rows, double *h)
{
    for (size_t r = 0; r < rows; r++) {
        norm_rows(m, 1, h + r * m->width);
        activate_span(m->activation, h + r * m->width, m->width);
    }
}

int skit_mlp_eval(const skit_mlp *mlp, size_t count, const double *x, double *y, double *work)
{
    SKIT_REQUIRE_PTR(mlp);
    if (count == 0) return SKIT_OK;
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t nx;
    if (skit_size_mul(count, mlp->in_dim, &nx) || skit_size_mul(count, mlp->out_dim, &nx))
        return SKIT_ERROR(SKIT_EOVERFLOW, "count = %zu: input/output size overflows size_t", count);
    SKIT_TRY(skit_check_finite(x, count * mlp->in_dim, "x"));
    double *owned = NULL;
    if (!work) {
        owned = skit_malloc(skit_mlp_workspace_size(mlp), sizeof(double));
        if (!owned) return SKIT_ENOMEM;
        work = owned;
    }
    size_t w = mlp->width;
    for (size_t k0 = 0; k0 < count; k0 += MLP_BLOCK) {
        size_t rows = SKIT_MIN((size_t)MLP_BLOCK, count - k0);
        double *a = work, *b = work + (size_t)MLP_BLOCK * w;
        linear_rows(mlp, 0, rows, x + k0 * mlp->in_dim, a, w);
        for (size_t l = 1; l < mlp->linear_count; l++) {
            norm_activate_rows(mlp, rows, a);
            if (l + 1 == mlp->linear_count) {
                linear_rows(mlp, l, rows, a, y + k0 * mlp->out_dim, mlp->out_dim);
            } else {
                linear_rows(mlp, l, rows, a, b, w);
                double *t = a;
                a = b;
                b = t;
            }
        }
    }
    skit_free(owned);
    return SKIT_OK;
}

/* Series are stored point-major then coefficient-major: row p*terms + k
 * holds the k-th Taylor coefficient of every unit at point p, so a Linear
 * layer maps all points and orders with one GEMM (the bias enters the
 * order-0 rows only). */
static void linear_series(const skit_mlp *m, size_t l, size_t points, size_t terms,
                          const double *in, double *out)
{
    size_t fan_in = mlp_layer_in(m, l), fan_out = mlp_layer_out(m, l);
    const double *w = m->params + mlp_layer_offset(m, l);
    const double *bias = w + fan_out * fan_in;
    for (size_t p = 0; p < points; p++) {
        double *row = out + p * terms * fan_out;
        memcpy(row, bias, fan_out * sizeof(double));
        memset(row + fan_out, 0, (terms - 1) * fan_out * sizeof(double));
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)(points * terms), (int)fan_out,
                (int)fan_in, 1.0, in, (int)fan_in, w, (int)fan_in, 1.0, out, (int)fan_out);
}

/* norm and activation on the series of one point: s is terms x width */
static int norm_activate_series(const skit_mlp *m, size_t terms, double *s, int *kink)
{
    size_t w = m->width;
    double u[SKIT_SERIES_MAX], v[SKIT_SERIES_MAX], t[SKIT_SERIES_MAX];
    if (m->norm == SKIT_NORM_LAYER) {
        double mean[SKIT_SERIES_MAX] = {0}, var[SKIT_SERIES_MAX] = {0};
        for (size_t k = 0; k < terms; k++) {
            for (size_t i = 0; i < w; i++) mean[k] += s[k * w + i];
            mean[k] /= (double)w;
            for (size_t i = 0; i < w; i++) s[k * w + i] -= mean[k];
        }
        for (size_t i = 0; i < w; i++) {
            for (size_t k = 0; k < terms; k++) u[k] = s[k * w + i];
            skit_series_mul(u, u, v, terms);
            for (size_t k = 0; k < terms; k++) var[k] += v[k];
        }
        for (size_t k = 0; k < terms; k++) var[k] /= (double)w;
        var[0] += LAYER_NORM_EPS;
        skit_series_pow(var, -0.5, t, terms); /* 1/sqrt(var + eps) */
        for (size_t i = 0; i < w; i++) {
            for (size_t k = 0; k < terms; k++) u[k] = s[k * w + i];
            skit_series_mul(u, t, v, terms);
            for (size_t k = 0; k < terms; k++) s[k * w + i] = v[k];
        }
    } else if (m->norm == SKIT_NORM_RMS) {
        double ms[SKIT_SERIES_MAX] = {0}, rms[SKIT_SERIES_MAX];
        for (size_t i = 0; i < w; i++) {
            for (size_t k = 0; k < terms; k++) u[k] = s[k * w + i];
            skit_series_mul(u, u, v, terms);
            for (size_t k = 0; k < terms; k++) ms[k] += v[k];
        }
        for (size_t k = 0; k < terms; k++) ms[k] /= (double)w;
        if (!(ms[0] > 0) && terms > 1)
            return SKIT_ERROR(SKIT_EDOM, "RMS norm of an all-zero layer: its derivatives do not exist "
                                         "at this x (need a nonzero pre-norm vector)");
        skit_series_sqrt(ms, rms, terms);
        rms[0] += RMS_NORM_EPS;
        for (size_t i = 0; i < w; i++) {
            for (size_t k = 0; k < terms; k++) u[k] = s[k * w + i];
            skit_series_div(u, rms, v, terms);
            for (size_t k = 0; k < terms; k++) s[k * w + i] = v[k];
        }
    }
    for (size_t i = 0; i < w; i++) {
        for (size_t k = 0; k < terms; k++) u[k] = s[k * w + i];
        switch (m->activation) {
        case SKIT_ACTIVATION_RELU:
            if (skit_series_relu(u, v, terms)) *kink = 1;
            break;
        case SKIT_ACTIVATION_SILU: skit_series_silu(u, v, terms); break;
        case SKIT_ACTIVATION_GELU: skit_series_gelu(u, v, terms); break;
        }
        for (size_t k = 0; k < terms; k++) s[k * w + i] = v[k];
    }
    return SKIT_OK;
}

size_t skit_mlp_taylor_workspace(const skit_mlp *mlp, size_t points, size_t terms)
{
    return 2 * points * terms * mlp->width;
}

int skit_mlp_taylor_batch(const skit_mlp *mlp, size_t points, size_t terms, const double *input,
                          double *output, int *kinks, double *work)
{
    size_t w = mlp->width;
    double *a = work, *b = work + points * terms * w;
    linear_series(mlp, 0, points, terms, input, a);
    for (size_t p = 0; p < points; p++) kinks[p] = 0;
    for (size_t l = 1; l < mlp->linear_count; l++) {
        for (size_t p = 0; p < points; p++)
            SKIT_TRY(norm_activate_series(mlp, terms, a + p * terms * w, &kinks[p]));
        linear_series(mlp, l, points, terms, a, l + 1 == mlp->linear_count ? output : b);
        double *t = a;
        a = b;
        b = t;
    }
    return SKIT_OK;
}

int skit_mlp_taylor(const skit_mlp *mlp, double x, size_t order, double *derivs, int *at_kink)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(derivs);
    if (mlp->in_dim != 1)
        return SKIT_ERROR(SKIT_ESHAPE, "in_dim = %zu: Taylor derivatives need a scalar-input MLP "
                                       "(in_dim = 1)", mlp->in_dim);
    if (order > MAX_TAYLOR_ORDER)
        return SKIT_ERROR(SKIT_EDOM, "order = %zu out of range: need order <= %d", order,
                          MAX_TAYLOR_ORDER);
    if (!isfinite(x)) return SKIT_ERROR(SKIT_ENONFINITE, "x = %g is not finite", x);
    size_t terms = order + 1;
    double input[SKIT_SERIES_MAX] = {x, 1.0}; /* the identity series x + dx */
    double *work = skit_malloc(skit_mlp_taylor_workspace(mlp, 1, terms), sizeof(double));
    if (!work) return SKIT_ENOMEM;
    int kink = 0;
    int status = skit_mlp_taylor_batch(mlp, 1, terms, input, derivs, &kink, work);
    skit_free(work);
    if (status != SKIT_OK) return status;
    double factorial = 1;
    for (size_t k = 1; k < terms; k++) {
        factorial *= (double)k;
        for (size_t j = 0; j < mlp->out_dim; j++) derivs[k * mlp->out_dim + j] *= factorial;
    }
    if (at_kink) *at_kink = kink;
    return SKIT_OK;
}

size_t skit_mlp_preactivation_count(const skit_mlp *mlp)
{
    return (mlp->linear_count - 1) * mlp->width;
}

/* One input through the network, recording what each activation sees. */
int skit_mlp_preactivations(const skit_mlp *mlp, const double *x, double *pre, double *y)
{
    size_t w = mlp->width;
    double *buf = skit_malloc(2 * w, sizeof(double));
    if (!buf) return SKIT_ENOMEM;
    double *a = buf, *b = buf + w;
    linear_rows(mlp, 0, 1, x, a, w);
    for (size_t l = 1; l < mlp->linear_count; l++) {
        norm_rows(mlp, 1, a);
        memcpy(pre + (l - 1) * w, a, w * sizeof(double));
        for (size_t i = 0; i < w; i++) a[i] = skit_mlp_activate(mlp->activation, a[i]);
        if (l + 1 == mlp->linear_count) {
            linear_rows(mlp, l, 1, a, y, mlp->out_dim);
        } else {
            linear_rows(mlp, l, 1, a, b, w);
            double *t = a;
            a = b;
            b = t;
        }
    }
    skit_free(buf);
    return SKIT_OK;
}

/* ---- feature-major evaluation (the RPE inside TNO and FD-TNO plans) ----
 *
 * skit_mlp_eval keeps one input per row (count x out_dim), what a caller
 * of the MLP expects. The token mixers want the transpose: one row per
 * feature or output channel, all lags (or frequencies) along it, which is
 * the layout their FFTs and the output-layer GEMM read. Evaluating in that
 * layout from the start costs nothing extra (each Linear is W (out x in)
 * times a block of in x cols activations) and removes a transpose of the
 * whole output; the norm's statistics are then per column, accumulated
 * over the rows with the lags contiguous, so every pass is a unit-stride
 * loop over FEATURE_BLOCK lags. */
#define FEATURE_BLOCK 512

size_t skit_mlp_features_workspace(const skit_mlp *mlp)
{
    return 2 * (size_t)FEATURE_BLOCK * mlp->width + 2 * (size_t)FEATURE_BLOCK;
}

void skit_mlp_output_layer(const skit_mlp *mlp, const double **weight, const double **bias)
{
    const double *w = mlp->params + mlp_layer_offset(mlp, mlp->linear_count - 1);
    *weight = w;
    *bias = w + mlp->out_dim * mlp->width;
}

/* out (width x cols, ld ldo) = act(norm(a + bias)) * scale, column by
 * column: a is width x cols (ld lda) without its bias (NULL: none), stats
 * 2 x block of scratch (cols <= block), scale one value per column (NULL: none).
 * out may be a. The sums run over the rows in the order norm_stats uses.
 * Every loop is unit-stride over the columns, vectorised (omp simd, AVX2
 * and AVX-512 clones): at width 64 these passes cost as much as the GEMMs
 * when scalar. */
SKIT_MULTIVERSION static void norm_activate_cols(const skit_mlp *m, size_t block, size_t cols, const double *a,
                                                 size_t lda, const double *bias, const double *scale,
                                                 double *out, size_t ldo, double *stats)
{
    const size_t w = m->width;
    double *restrict shift = stats, *restrict inv = stats + block;
    for (size_t k = 0; k < cols; k++) {
        shift[k] = 0.0;
        inv[k] = m->norm == SKIT_NORM_NONE ? 1.0 : 0.0;
    }
    if (m->norm == SKIT_NORM_LAYER) {
        for (size_t j = 0; j < w; j++) {
            const double *restrict r = a + j * lda;
            const double bj = bias ? bias[j] : 0.0;
            SKIT_SIMD
            for (size_t k = 0; k < cols; k++) shift[k] += r[k] + bj;
        }
        for (size_t k = 0; k < cols; k++) shift[k] /= (double)w;
    }
    if (m->norm != SKIT_NORM_NONE) {
        /* LayerNorm: sum of squared deviations; RMS: of squares (shift 0) */
        for (size_t j = 0; j < w; j++) {
            const double *restrict r = a + j * lda;
            const double bj = bias ? bias[j] : 0.0;
            SKIT_SIMD
            for (size_t k = 0; k < cols; k++) {
                double v = r[k] + bj - shift[k];
                inv[k] += v * v;
            }
        }
        if (m->norm == SKIT_NORM_LAYER) {
            SKIT_SIMD
            for (size_t k = 0; k < cols; k++) inv[k] = 1.0 / sqrt(inv[k] / (double)w + LAYER_NORM_EPS);
        } else {
            SKIT_SIMD
            for (size_t k = 0; k < cols; k++) inv[k] = 1.0 / (sqrt(inv[k] / (double)w) + RMS_NORM_EPS);
        }
    }
    const int relu = m->activation == SKIT_ACTIVATION_RELU;
    for (size_t j = 0; j < w; j++) {
        const double *r = a + j * lda;
        const double bj = bias ? bias[j] : 0.0;
        double *o = out + j * ldo;
        if (relu && scale) {
            SKIT_SIMD
            for (size_t k = 0; k < cols; k++) {
                double v = (r[k] + bj - shift[k]) * inv[k];
                o[k] = (v > 0 ? v : 0.0) * scale[k];
            }
            continue;
        }
        if (relu) {
            SKIT_SIMD
            for (size_t k = 0; k < cols; k++) {
                double v = (r[k] + bj - shift[k]) * inv[k];
                o[k] = v > 0 ? v : 0.0;
            }
            continue;
        }
        for (size_t k = 0; k < cols; k++) o[k] = skit_mlp_activate(m->activation, (r[k] + bj - shift[k]) * inv[k]);
        if (scale)
            for (size_t k = 0; k < cols; k++) o[k] *= scale[k];
    }
}

/* ---- the sweep's wrappers (sweep.c, sweepf.c) ------------------------- */

int skit_mlp_features(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                      double *out, size_t ldo, double *work)
{
    if (count >= MLP_SWEEP_BLOCK && mlp_sweep_eligible(mlp, count)) {
        mlp_sweep_features(mlp, count, x, scale, out, ldo, work);
        return SKIT_OK;
    }
    return skit_mlp_features_dense(mlp, count, x, scale, out, ldo, work);
}

static int sweep_refused(const skit_mlp *mlp, size_t count, size_t split)
{
    return SKIT_ERROR(SKIT_EINVAL, "the sweep needs ReLU, in_dim = 1, count >= 1, width >= 4 (hidden layers + 2), "
                                   "split >= 1 and a GCC-compatible compiler (have in_dim = %zu, width = %zu, "
                                   "count = %zu, split = %zu)", mlp->in_dim, mlp->width, count, split);
}

int skit_mlp_features_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work)
{
    if (!mlp_sweep_eligible(mlp, count)) return sweep_refused(mlp, count, 1);
    mlp_sweep_features(mlp, count, x, scale, out, ldo, work);
    return SKIT_OK;
}

int skit_mlp_outputs_sweep_able(const skit_mlp *mlp, size_t count)
{
    return count >= MLP_SWEEP_BLOCK && mlp_sweep_eligible(mlp, count);
}

size_t skit_mlp_outputs_workspace(const skit_mlp *mlp)
{
    const size_t A = mlp->hidden_layers + 1;
    if (!mlp_sweep_eligible(mlp, MLP_SWEEP_BLOCK)) return skit_mlp_features_workspace(mlp);
    return SKIT_MAX(skit_mlp_features_workspace(mlp),
                    mlp_sweep_values(mlp) + mlp->out_dim * (A + 2 + MLP_SWEEP_BLOCK));
}

int skit_mlp_outputs_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale, double *out,
                           size_t ldo, size_t split, size_t part, double *row_ss, size_t *changes,
                           double *work)
{
    if (!mlp_sweep_eligible(mlp, count) || split == 0) return sweep_refused(mlp, count, split);
    size_t cuts = mlp_sweep_outputs(mlp, count, x, scale, out, ldo, split, part, row_ss, work);
    if (changes) *changes += cuts;
    return SKIT_OK;
}

/* The float sweep takes any count (a short piece costs its one-off basis
 * build, no more), so a plan on it needs only the sweep's state: floats,
 * two to a double. */
static void features_dense(const skit_mlp *mlp, size_t block, size_t count, const double *x, const double *scale,
                           double *out, size_t ldo, double *work);

/* Without the sweep, the layers in double on blocks of F32_BLOCK inputs
 * (a quarter of FEATURE_BLOCK: the float32 plan's scratch stays under the
 * float64 plan's), each rounded into the float features. */
#define F32_BLOCK 128

size_t skit_mlp_features_f32_workspace(const skit_mlp *mlp)
{
    if (mlp_sweep_eligible_f32(mlp, 1)) return (mlp_sweep_values_f32(mlp) + 1) / 2;
    return 3 * (size_t)F32_BLOCK * mlp->width + 2 * (size_t)F32_BLOCK;
}

/* the outputs' sweep adds the output layer on the basis and a block's outputs */
size_t skit_mlp_outputs_f32_workspace(const skit_mlp *mlp)
{
    const size_t A = mlp->hidden_layers + 1, extra = mlp->out_dim * (A + 2 + MLP_SWEEP_BLOCK);
    return SKIT_MAX(skit_mlp_features_f32_workspace(mlp), (mlp_sweep_values_f32(mlp) + extra + 1) / 2);
}

int skit_mlp_features_f32(const skit_mlp *mlp, size_t count, const double *x, const double *scale, float *out,
                          size_t ldo, double *work)
{
    const size_t w = mlp->width;
    if (mlp_sweep_eligible_f32(mlp, count)) {
        mlp_sweep_features_f32(mlp, count, x, scale, out, ldo, work);
        return SKIT_OK;
    }
    /* the layers' path in double, a block at a time, rounded */
    double *block = work + 2 * (size_t)F32_BLOCK * w + 2 * (size_t)F32_BLOCK;
    for (size_t k0 = 0; k0 < count; k0 += F32_BLOCK) {
        const size_t cols = SKIT_MIN((size_t)F32_BLOCK, count - k0);
        features_dense(mlp, F32_BLOCK, cols, x + k0, scale ? scale + k0 : NULL, block, cols, work);
        for (size_t j = 0; j < w; j++)
            for (size_t k = 0; k < cols; k++) out[j * ldo + k0 + k] = (float)block[j * cols + k];
    }
    return SKIT_OK;
}

int skit_mlp_outputs_sweep_f32(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                               float *out, size_t ldo, size_t split, size_t part, double *row_ss,
                               size_t *changes, double *work)
{
    if (!mlp_sweep_eligible_f32(mlp, count) || split == 0 || mlp->params_f_count < mlp->parameter_count)
        return sweep_refused(mlp, count, split);
    size_t cuts = mlp_sweep_outputs_f32(mlp, count, x, scale, out, ldo, split, part, row_ss, work);
    if (changes) *changes += cuts;
    return SKIT_OK;
}

/* The layers on blocks of `block` inputs: work holds 2 block x w values
 * (the layers' ping-pong) and the norms' 2 x block statistics. */
static void features_dense(const skit_mlp *mlp, size_t block, size_t count, const double *x, const double *scale,
                           double *out, size_t ldo, double *work)
{
    const size_t w = mlp->width, in = mlp->in_dim;
    double *stats = work + 2 * block * w;
    for (size_t k0 = 0; k0 < count; k0 += block) {
        size_t cols = SKIT_MIN(block, count - k0);
        double *a = work, *b = work + block * w;
        const double *w0 = mlp->params, *pending = w0 + w * in;
        /* the first Linear; its bias enters with the first norm */
        if (in == 1) {
            for (size_t j = 0; j < w; j++)
                for (size_t k = 0; k < cols; k++) a[j * cols + k] = w0[j] * x[k0 + k];
        } else {
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)w, (int)cols, (int)in, 1.0, w0,
                        (int)in, x + k0 * in, (int)in, 0.0, a, (int)cols);
        }
        for (size_t l = 1; l + 1 < mlp->linear_count; l++) {
            const double *wl = mlp->params + mlp_layer_offset(mlp, l);
            norm_activate_cols(mlp, block, cols, a, cols, pending, NULL, a, cols, stats);
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)w, (int)cols, (int)w, 1.0, wl,
                        (int)w, a, (int)cols, 0.0, b, (int)cols);
            pending = wl + w * w;
            double *t = a;
            a = b;
            b = t;
        }
        norm_activate_cols(mlp, block, cols, a, cols, pending, scale ? scale + k0 : NULL, out + k0, ldo, stats);
    }
}

int skit_mlp_features_dense(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work)
{
    features_dense(mlp, FEATURE_BLOCK, count, x, scale, out, ldo, work);
    return SKIT_OK;
}
