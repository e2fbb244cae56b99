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

struct skit_mlp {
    size_t in_dim, width, hidden_layers, out_dim;
    size_t linear_count; /* hidden_layers + 2 */
    skit_activation activation;
    skit_norm norm;
    size_t parameter_count;
    double *params;
};

static size_t layer_in(const skit_mlp *m, size_t l) { return l == 0 ? m->in_dim : m->width; }
static size_t layer_out(const skit_mlp *m, size_t l)
{
    return l + 1 == m->linear_count ? m->out_dim : m->width;
}

/* Offset of layer l's weight in params; its bias follows the weight. */
static size_t layer_offset(const skit_mlp *m, size_t l)
{
    size_t off = 0;
    for (size_t i = 0; i < l; i++) off += layer_out(m, i) * (layer_in(m, i) + 1);
    return off;
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
        skit_free(m);
        return SKIT_ENOMEM;
    }
    /* PyTorch's nn.Linear default: kaiming_uniform(a = sqrt 5) for the
     * weight and U(+-1/sqrt(fan_in)) for the bias, i.e. both uniform with
     * bound 1/sqrt(fan_in); drawn layer by layer, weight then bias. */
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    double *p = m->params;
    for (size_t l = 0; l < m->linear_count; l++) {
        size_t fan_in = layer_in(m, l), fan_out = layer_out(m, l);
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
    size_t fan_in = layer_in(m, l), fan_out = layer_out(m, l);
    const double *w = m->params + layer_offset(m, l);
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
    size_t fan_in = layer_in(m, l), fan_out = layer_out(m, l);
    const double *w = m->params + layer_offset(m, l);
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
    const double *w = mlp->params + layer_offset(mlp, mlp->linear_count - 1);
    *weight = w;
    *bias = w + mlp->out_dim * mlp->width;
}

/* out (width x cols, ld ldo) = act(norm(a + bias)) * scale, column by
 * column: a is width x cols (ld lda) without its bias (NULL: none), stats
 * 2 x FEATURE_BLOCK of scratch, scale one value per column (NULL: none).
 * out may be a. The sums run over the rows in the order norm_stats uses.
 * Every loop is unit-stride over the columns, vectorised (omp simd, AVX2
 * and AVX-512 clones): at width 64 these passes cost as much as the GEMMs
 * when scalar. */
SKIT_MULTIVERSION static void norm_activate_cols(const skit_mlp *m, size_t cols, const double *a,
                                                 size_t lda, const double *bias, const double *scale,
                                                 double *out, size_t ldo, double *stats)
{
    const size_t w = m->width;
    double *restrict shift = stats, *restrict inv = stats + FEATURE_BLOCK;
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

/* ---- features by a sweep along a 1-D input (ReLU) ----------------------
 *
 * With one input and ReLU, every layer is linear in a few per-input
 * coefficients as long as the ReLU masks below it stay the same:
 *     z_0 = w_0 x + b_0 = B_0 [x, 1];
 * a norm subtracts the mean (a linear map P; LayerNorm only) and scales by
 * a positive inv, which ReLU commutes with, so a_s = D_s P B_s c_s inv_s,
 * D_s the 0/1 mask of the units with P B_s c_s > 0, and
 *     z_{s+1} = W_{s+1} a_s + b_{s+1} = [W_{s+1} D_s P B_s | b_{s+1}] [c_s inv_s; 1].
 * Stage s (the norm and activation after Linear s) thus has s + 2 basis
 * vectors Bt_s = P B_s of width w, and an input costs about w (s + 2)
 * multiply-adds per stage instead of the w^2 of a dense layer. The bases
 * are rebuilt (a (s+1) x w x w GEMM each) only where a mask changes, which
 * along the TNO's lags or the FD-TNO's frequency grid is rare: inputs are
 * swept in the order given, each one's masks compared with the last's.
 * Every sum is the dense path's reassociated, so the features agree with
 * skit_mlp_features_dense to rounding, not bit for bit (tests/test_mlp.c
 * checks both against skit_mlp_eval's layers on sorted, shuffled and
 * repeated inputs). */
#define SWEEP_BLOCK 32
/* Outputs on the basis are written a run of up to SWEEP_RUN inputs per
 * row at a time: a block's 32 values per row, for hundreds of rows, are
 * scattered writes. */
#define SWEEP_RUN 256
#define SWEEP_CR (SWEEP_RUN + SWEEP_BLOCK) /* a row of the run's coefficients, with a block's room */
#if defined(__GNUC__) /* GCC's vector extension (GCC and clang); elsewhere the dense path runs */
#define HAVE_SWEEP 1

static size_t sweep_stages(const skit_mlp *m) { return m->hidden_layers + 1; }

/* doubles of the sweep's state (sweep_layout) */
static size_t sweep_doubles(const skit_mlp *m)
{
    const size_t w = m->width, A = sweep_stages(m);
    return w * (A * (A + 1) + A + (A + 1) + 1 + 2 * SWEEP_BLOCK) + 2 * SWEEP_BLOCK * (A + 2) + 2 * (A + 2) +
           2 * SWEEP_BLOCK + (A + 2) * SWEEP_CR;
}

/* The sweep's state carved from the workspace (sweep_doubles of it) */
typedef struct sweep_state {
    double *bt;     /* A stages x (A + 1) basis rows of w: Bt_s at bt + s (A + 1) w */
    double *mask;   /* A x w: the 0/1 ReLU masks the bases were built for */
    double *db;     /* (A + 1) x w: a masked basis, for the rebuild's GEMM */
    double *v;      /* w: one input's values (sweep_one) */
    double *V;      /* w x SWEEP_BLOCK: a block's values */
    double *C, *Cn; /* (A + 2) x SWEEP_BLOCK: a block's coefficients, this stage and next */
    double *c, *cn; /* A + 2: one input's */
    double *Fb;     /* w x SWEEP_BLOCK: features of inputs in short runs, pending (outputs only) */
    double *Fs;     /* SWEEP_BLOCK: their scales */
    size_t *Fp;     /* SWEEP_BLOCK: their positions */
    double *Cr;     /* (A + 2) x SWEEP_CR: a run's last-stage coefficients, pending (outputs only) */
    double *M;      /* out_dim x (A + 2): the output layer on the last stage's basis (outputs only) */
    double *Y;      /* out_dim x SWEEP_BLOCK: the pending inputs' outputs */
} sweep_state;

static sweep_state sweep_layout(const skit_mlp *m, double *work)
{
    const size_t w = m->width, A = sweep_stages(m), B = SWEEP_BLOCK;
    sweep_state st;
    st.bt = work;
    st.mask = st.bt + A * (A + 1) * w;
    st.db = st.mask + A * w;
    st.v = st.db + (A + 1) * w;
    st.V = st.v + w;
    st.C = st.V + w * B;
    st.Cn = st.C + (A + 2) * B;
    st.c = st.Cn + (A + 2) * B;
    st.cn = st.c + A + 2;
    st.Fb = st.cn + A + 2;
    st.Fs = st.Fb + w * B;
    st.Fp = (size_t *)(st.Fs + B); /* as many doubles' room */
    st.Cr = st.Fs + 2 * B;
    st.M = st.Cr + (A + 2) * SWEEP_CR;
    st.Y = st.M + m->out_dim * (A + 2);
    return st;
}

/* The sweep pays while an input's basis work, w (s + 2) per stage, stays
 * well under a dense layer's w^2 (hence s + 2 <= w / 4); callers choosing
 * it also want the one-off build at the first input amortised (count >=
 * SWEEP_BLOCK: skit_mlp_features, skit_mlp_outputs_sweep_able), but it is
 * right for any count. */
static int sweep_eligible(const skit_mlp *m, size_t count)
{
    const size_t A = sweep_stages(m);
    if (m->activation != SKIT_ACTIVATION_RELU || m->in_dim != 1 || count == 0) return 0;
    if (4 * (A + 1) > m->width) return 0;
    return sweep_doubles(m) <= skit_mlp_features_workspace(m);
}

/* LayerNorm's mean subtraction on one basis vector */
static void project(const skit_mlp *m, double *row)
{
    if (m->norm != SKIT_NORM_LAYER) return;
    const size_t w = m->width;
    double mean = 0;
    for (size_t j = 0; j < w; j++) mean += row[j];
    mean /= (double)w;
    for (size_t j = 0; j < w; j++) row[j] -= mean;
}

/* Bt_s (s + 2 rows of w) from Bt_{s-1} and the mask D_{s-1}: the rows
 * D Bt_{s-1} times W_s^T, then b_s, each projected */
static void sweep_rebuild(const skit_mlp *m, size_t s, const double *prev, const double *mask, double *db,
                          double *next)
{
    const size_t w = m->width, rows = s + 1;
    const double *W = m->params + layer_offset(m, s), *bias = W + w * w;
    for (size_t q = 0; q < rows; q++)
        for (size_t j = 0; j < w; j++) db[q * w + j] = mask[j] * prev[q * w + j];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)w, (int)w, 1.0, db, (int)w, W, (int)w,
                0.0, next, (int)w);
    memcpy(next + rows * w, bias, w * sizeof(double));
    for (size_t q = 0; q <= rows; q++) project(m, next + q * w);
}

/* v = Bt c (k rows), then the norm's inv and the ReLU mask; returns the
 * number of units whose mask changed (mask updated in place) */
SKIT_MULTIVERSION static size_t sweep_stage(const skit_mlp *m, const double *restrict bt, size_t k,
                                            const double *restrict c, double *restrict v,
                                            double *restrict mask, double *inv)
{
    const size_t w = m->width;
    for (size_t j = 0; j < w; j++) v[j] = bt[j] * c[0];
    for (size_t q = 1; q < k; q++) {
        const double *restrict row = bt + q * w;
        const double cq = c[q];
        SKIT_SIMD
        for (size_t j = 0; j < w; j++) v[j] += row[j] * cq;
    }
    double ss = 0;
    size_t changed = 0;
    SKIT_SIMD_SUM(ss)
    for (size_t j = 0; j < w; j++) ss += v[j] * v[j];
    for (size_t j = 0; j < w; j++) {
        double on = v[j] > 0 ? 1.0 : 0.0;
        changed += on != mask[j];
        mask[j] = on;
    }
    *inv = m->norm == SKIT_NORM_LAYER ? 1.0 / sqrt(ss / (double)w + LAYER_NORM_EPS)
         : m->norm == SKIT_NORM_RMS   ? 1.0 / (sqrt(ss / (double)w) + RMS_NORM_EPS)
                                      : 1.0;
    return changed;
}

/* One input the slow way: stage by stage, each mask compared with the
 * last input's and every basis above a changed mask rebuilt. Leaves the
 * last stage's values in st->v and coefficients in st->c, returns its inv. */
static double sweep_one(const skit_mlp *m, double x, const sweep_state *st)
{
    const size_t w = m->width, A = sweep_stages(m), stride = (A + 1) * w;
    double *bt = st->bt, *mask = st->mask, *c = st->c, *cn = st->cn;
    int stale = 0;
    double inv = 1.0;
    c[0] = x;
    c[1] = 1.0;
    for (size_t s = 0; s < A; s++) {
        const size_t k = s + 2;
        if (stale) sweep_rebuild(m, s, bt + (s - 1) * stride, mask + (s - 1) * w, st->db, bt + s * stride);
        if (sweep_stage(m, bt + s * stride, k, c, st->v, mask + s * w, &inv)) stale = 1;
        if (s + 1 == A) break;
        for (size_t q = 0; q < k; q++) cn[q] = c[q] * inv;
        cn[k] = 1.0;
        double *t = c;
        c = cn;
        cn = t;
    }
    if (c != st->c) memcpy(st->c, c, (A + 1) * sizeof(double));
    return inv;
}

/* The block's accumulators in GCC vector types, so that they stay in
 * registers (as plain arrays they go through memory and the block loop is
 * latency-bound). Vectors of 4 doubles, the widest that every x86-64-v3
 * (AVX2) machine has: GCC lowers 8-double vectors on AVX2 to scalar
 * compares and stack traffic, slower than the dense path. aligned(8):
 * the workspace is only double-aligned. */
#define SWEEP_LANES 4
#define SWEEP_VECS (SWEEP_BLOCK / SWEEP_LANES)
/* vectors a pass of sweep_block_stage holds: acc, ss and bad of each,
 * 3 x 4 of AVX2's 16 registers */
#define SWEEP_CHUNK 4
typedef double sweep_vec __attribute__((vector_size(8 * SWEEP_LANES), aligned(8)));
typedef long long sweep_ivec __attribute__((vector_size(8 * SWEEP_LANES), aligned(8)));

/* Stage s for a block of SWEEP_BLOCK inputs at once, on the current
 * bases: V (w x SWEEP_BLOCK) = Bt_s C (C: k rows of SWEEP_BLOCK
 * coefficients), inv per input; returns how many of the first `cols`
 * inputs in a row have every unit's sign equal to the current mask (the
 * inputs the bases are right for). The lanes past cols are computed
 * too (on finite filler), so every loop has the block's fixed length and
 * the inputs run across the vector lanes, SWEEP_CHUNK vectors a pass. */
SKIT_MULTIVERSION static size_t sweep_block_stage(const skit_mlp *m, const double *restrict bt, size_t k,
                                                  const double *restrict C, const double *restrict mask,
                                                  size_t cols, double *restrict V, double *restrict inv)
{
    const size_t w = m->width;
    const sweep_vec *Cv = (const sweep_vec *)C;
    double sum[SWEEP_BLOCK];
    long long off[SWEEP_BLOCK];
    for (size_t u0 = 0; u0 < SWEEP_VECS; u0 += SWEEP_CHUNK) {
        sweep_vec ss[SWEEP_CHUNK], acc[SWEEP_CHUNK];
        sweep_ivec bad[SWEEP_CHUNK];
#pragma GCC unroll 8
        for (size_t u = 0; u < SWEEP_CHUNK; u++) {
            ss[u] = (sweep_vec){0};
            bad[u] = (sweep_ivec){0};
        }
        for (size_t j = 0; j < w; j++) {
            const double b0 = bt[j];
            const long long mj = mask[j] > 0 ? -1 : 0;
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_CHUNK; u++) acc[u] = b0 * Cv[u0 + u];
            for (size_t q = 1; q < k; q++) {
                const double bq = bt[q * w + j];
                const sweep_vec *cq = Cv + q * SWEEP_VECS + u0;
#pragma GCC unroll 8
                for (size_t u = 0; u < SWEEP_CHUNK; u++) acc[u] += bq * cq[u];
            }
            sweep_vec *vj = (sweep_vec *)(V + j * SWEEP_BLOCK) + u0;
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_CHUNK; u++) {
                vj[u] = acc[u];
                ss[u] += acc[u] * acc[u];
                bad[u] |= (acc[u] > 0) ^ mj;
            }
        }
        memcpy(sum + u0 * SWEEP_LANES, ss, sizeof ss);
        memcpy(off + u0 * SWEEP_LANES, bad, sizeof bad);
    }
    size_t good = 0;
    while (good < cols && off[good] == 0) good++;
    for (size_t b = 0; b < SWEEP_BLOCK; b++)
        inv[b] = m->norm == SKIT_NORM_LAYER ? 1.0 / sqrt(sum[b] / (double)w + LAYER_NORM_EPS)
               : m->norm == SKIT_NORM_RMS   ? 1.0 / (sqrt(sum[b] / (double)w) + RMS_NORM_EPS)
                                            : 1.0;
    return good;
}

/* next stage's coefficients of a block: Cn = [C inv; 1] */
SKIT_MULTIVERSION static void sweep_block_next(size_t k, const double *restrict C, const double *restrict inv,
                                               double *restrict Cn)
{
    enum { B = SWEEP_BLOCK };
    for (size_t q = 0; q < k; q++)
        for (size_t b = 0; b < B; b++) Cn[q * B + b] = C[q * B + b] * inv[b];
    for (size_t b = 0; b < B; b++) Cn[k * B + b] = 1.0;
}

/* a block's features: out row j = relu(V row j) inv scale */
SKIT_MULTIVERSION static void sweep_block_out(size_t w, const double *restrict V, const double *restrict inv,
                                              const double *restrict scale, size_t cols, double *restrict out,
                                              size_t ldo)
{
    const size_t B = SWEEP_BLOCK;
    double f[SWEEP_BLOCK];
    for (size_t b = 0; b < cols; b++) f[b] = inv[b] * (scale ? scale[b] : 1.0);
    for (size_t j = 0; j < w; j++) {
        const double *restrict vj = V + j * B;
        double *restrict o = out + j * ldo;
        SKIT_SIMD
        for (size_t b = 0; b < cols; b++) o[b] = (vj[b] > 0 ? vj[b] : 0.0) * f[b];
    }
}

/* Where the sweep writes: the features (M == NULL: row j at out + j ldo),
 * or the outputs, row r at out + (r % split) ldo + (r / split) part (so
 * that FD-TNO's real and imaginary outputs can land in one spectrum row) */
typedef struct sweep_sink {
    double *out;
    size_t ldo, split, part;
    int outputs;
    double *row_ss; /* outputs: each row's sum of squares so far (NULL: none) */
} sweep_sink;

/* row_ss[r] takes in the squares of count values (inline: it runs per
 * row and block, where a call cost as much as the outputs themselves) */
static inline __attribute__((always_inline)) void track_ss(const sweep_sink *sk, size_t r, const double *v,
                                                          size_t count)
{
    if (!sk->row_ss) return;
    double ss = 0.0;
#ifdef _OPENMP
#pragma omp simd reduction(+ : ss)
#endif
    for (size_t b = 0; b < count; b++) ss += v[b] * v[b];
    sk->row_ss[r] += ss;
}

static double *sink_row(const sweep_sink *sk, size_t r)
{
    return sk->out + (r % sk->split) * sk->ldo + (r / sk->split) * sk->part;
}

/* M = [W_out D_L Bt_L | b_out] (ld A + 2): the output layer on the last
 * stage's basis, rebuilt after a mask change for the next long run */
static void sweep_output_basis(const skit_mlp *m, const sweep_state *st)
{
    const size_t w = m->width, A = sweep_stages(m), k = A + 1, out = m->out_dim;
    const double *bt = st->bt + (A - 1) * (A + 1) * w, *mask = st->mask + (A - 1) * w;
    const double *W = m->params + layer_offset(m, m->linear_count - 1), *bias = W + out * w;
    for (size_t q = 0; q < k; q++)
        for (size_t j = 0; j < w; j++) st->db[q * w + j] = mask[j] * bt[q * w + j];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)out, (int)k, (int)w, 1.0, W, (int)w, st->db, (int)w,
                0.0, st->M, (int)(A + 2));
    for (size_t r = 0; r < out; r++) st->M[r * (A + 2) + k] = bias[r];
}

/* A run's outputs: row r = (M row r) Cr for the count inputs from pos,
 * Cr the (A + 2) x SWEEP_RUN last-stage coefficients [c inv; 1] with the
 * scale folded in (rows SWEEP_CR apart); each row's sum of squares taken
 * on the way (lanes past count hold zeros) */
SKIT_MULTIVERSION static void sweep_run_outputs(const skit_mlp *m, const double *restrict M,
                                                const double *restrict Cr, size_t count, const sweep_sink *sk,
                                                size_t pos)
{
    const size_t kk = sweep_stages(m) + 2, chunks = (count + SWEEP_BLOCK - 1) / SWEEP_BLOCK;
    for (size_t r = 0; r < m->out_dim; r++) {
        const double *mr = M + r * kk;
        double *o = sink_row(sk, r) + pos;
        sweep_vec ss = {0};
        for (size_t ch = 0; ch < chunks; ch++) {
            const sweep_vec *Cv = (const sweep_vec *)(Cr + ch * SWEEP_BLOCK);
            sweep_vec acc[SWEEP_VECS];
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_VECS; u++) acc[u] = mr[0] * Cv[u];
            for (size_t q = 1; q < kk; q++) {
                const double mq = mr[q];
                const sweep_vec *cq = Cv + q * (SWEEP_CR / SWEEP_LANES);
#pragma GCC unroll 8
                for (size_t u = 0; u < SWEEP_VECS; u++) acc[u] += mq * cq[u];
            }
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_VECS; u++) ss += acc[u] * acc[u];
            const size_t at = ch * SWEEP_BLOCK, left = count - at;
            if (left >= SWEEP_BLOCK) {
#pragma GCC unroll 8
                for (size_t u = 0; u < SWEEP_VECS; u++) *(sweep_vec *)(o + at + u * SWEEP_LANES) = acc[u];
            } else {
                double t[SWEEP_BLOCK];
                memcpy(t, acc, sizeof t);
                memcpy(o + at, t, left * sizeof(double));
            }
        }
        if (sk->row_ss) {
            double lane[SWEEP_LANES];
            memcpy(lane, &ss, sizeof lane);
            for (size_t l = 0; l < SWEEP_LANES; l++) sk->row_ss[r] += lane[l];
        }
    }
}

/* The pending inputs' outputs from their features (Fb, w x count, ld
 * SWEEP_BLOCK, scale folded in): one GEMM for all of them (OpenBLAS
 * packs W_out per call, so one call per input cost more than the dense
 * output layer), then the bias times the scale, to their positions */
SKIT_MULTIVERSION static void sweep_flush(const skit_mlp *m, const sweep_state *st, size_t count,
                                          const sweep_sink *sk)
{
    const size_t w = m->width, out = m->out_dim;
    const double *W = m->params + layer_offset(m, m->linear_count - 1), *bias = W + out * w;
    if (count == 0) return;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)out, (int)count, (int)w, 1.0, W, (int)w, st->Fb,
                SWEEP_BLOCK, 0.0, st->Y, SWEEP_BLOCK);
    for (size_t r = 0; r < out; r++) {
        double *o = sink_row(sk, r), *y = st->Y + r * SWEEP_BLOCK;
        for (size_t b = 0; b < count; b++) y[b] += bias[r] * st->Fs[b];
        for (size_t b = 0; b < count; b++) o[st->Fp[b]] = y[b];
        track_ss(sk, r, y, count);
    }
}

/* Blocks of inputs go through every stage on the bases of the last mask
 * change; the block is cut at the first input whose masks differ, which
 * then goes through sweep_one (rebuilding the bases) before the next
 * block starts. */
static size_t sweep_run(const skit_mlp *m, size_t count, const double *x, const double *scale,
                        const sweep_sink *sk, double *work)
{
    const size_t w = m->width, A = sweep_stages(m), B = SWEEP_BLOCK;
    const sweep_state st = sweep_layout(m, work);
    double *bt = st.bt, *mask = st.mask, *V = st.V;
    double inv[SWEEP_BLOCK];
    /* stage 0's basis [w_0, b_0] is fixed; the masks start invalid, so the
     * first input (sweep_one) builds every later stage */
    memcpy(bt, m->params, w * sizeof(double));
    memcpy(bt + w, m->params + w, w * sizeof(double));
    project(m, bt);
    project(m, bt + w);
    for (size_t j = 0; j < A * w; j++) mask[j] = -1.0;
    /* The output basis M costs out x w x (A + 1) to rebuild after a mask
     * change, as a skinny GEMM; a run of fewer than half a block gets its
     * outputs from its features instead (out x w each, pending until a
     * block's worth is there: sweep_flush, one efficient GEMM), so that
     * inputs whose masks change often (the FD-TNO's frequency grid, where
     * the flop count's rule "runs of A + 2 or more" lost to the dense
     * output layer) cost about as much as the dense output layer; so does
     * every run once more than one input in 8 has changed a mask. */
    int basis_stale = 1;
    size_t pos = 0, pending = 0, cuts = 0, run_start = 0, run_len = 0;
    while (pos < count) {
        const size_t block = SKIT_MIN(B, count - pos);
        size_t cols = pos ? block : 0; /* the first input goes through sweep_one */
        double *c = st.C, *cn = st.Cn;
        for (size_t b = 0; b < B; b++) { /* lanes past cols: the last input again */
            c[b] = x[pos + SKIT_MIN(b, block - 1)];
            c[B + b] = 1.0;
        }
        for (size_t s = 0; s < A && cols > 0; s++) {
            const size_t k = s + 2;
            cols = sweep_block_stage(m, bt + s * (A + 1) * w, k, c, mask + s * w, cols, V, inv);
            if (s + 1 == A) break;
            sweep_block_next(k, c, inv, cn);
            double *t = c;
            c = cn;
            cn = t;
        }
        const double *sc = scale ? scale + pos : NULL;
        if (cols > 0 && !sk->outputs) sweep_block_out(w, V, inv, sc, cols, sk->out + pos, sk->ldo);
        if (cols >= SWEEP_BLOCK / 2 && 8 * cuts <= pos && sk->outputs) { /* a long run, rare changes: the basis */
            double f[SWEEP_BLOCK];
            for (size_t b = 0; b < B; b++) f[b] = inv[b] * (scale ? scale[pos + SKIT_MIN(b, block - 1)] : 1.0);
            sweep_block_next(A + 1, c, f, cn);
            if (scale)
                for (size_t b = 0; b < B; b++) cn[(A + 1) * B + b] = scale[pos + SKIT_MIN(b, block - 1)];
            if (basis_stale) sweep_output_basis(m, &st);
            basis_stale = 0;
            if (run_len + cols > SWEEP_RUN) {
                sweep_run_outputs(m, st.M, st.Cr, run_len, sk, run_start);
                run_len = 0;
            }
            if (run_len == 0) run_start = pos;
            for (size_t q = 0; q < A + 2; q++) { /* lanes past cols: zeros */
                double *dst = st.Cr + q * SWEEP_CR + run_len;
                memcpy(dst, cn + q * B, cols * sizeof(double));
                memset(dst + cols, 0, (B - cols) * sizeof(double));
            }
            run_len += cols;
        } else if (cols > 0 && sk->outputs) { /* a short run: pending */
            if (pending + cols > B) {
                sweep_flush(m, &st, pending, sk);
                pending = 0;
            }
            sweep_block_out(w, V, inv, sc, cols, st.Fb + pending, SWEEP_BLOCK);
            for (size_t b = 0; b < cols; b++) {
                st.Fs[pending + b] = scale ? scale[pos + b] : 1.0;
                st.Fp[pending + b] = pos + b;
            }
            pending += cols;
        }
        pos += cols;
        if (cols < block) { /* input pos changed a mask (or is the first) */
            if (run_len) { /* before the basis changes */
                sweep_run_outputs(m, st.M, st.Cr, run_len, sk, run_start);
                run_len = 0;
            }
            const double s1 = scale ? scale[pos] : 1.0, in = sweep_one(m, x[pos], &st);
            if (sk->outputs && pending == B) {
                sweep_flush(m, &st, pending, sk);
                pending = 0;
            }
            double *f = sk->outputs ? st.Fb + pending : sk->out + pos;
            const size_t ld = sk->outputs ? SWEEP_BLOCK : sk->ldo;
            for (size_t j = 0; j < w; j++) f[j * ld] = (st.v[j] > 0 ? st.v[j] : 0.0) * in * s1;
            if (sk->outputs) {
                st.Fs[pending] = s1;
                st.Fp[pending++] = pos;
            }
            basis_stale = 1;
            cuts++;
            pos++;
        }
    }
    if (run_len) sweep_run_outputs(m, st.M, st.Cr, run_len, sk, run_start);
    if (sk->outputs) sweep_flush(m, &st, pending, sk);
    return cuts;
}

#endif /* HAVE_SWEEP */

int skit_mlp_features(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                      double *out, size_t ldo, double *work)
{
#ifdef HAVE_SWEEP
    if (count >= SWEEP_BLOCK && sweep_eligible(mlp, count)) {
        const sweep_sink sk = {out, ldo, 1, 0, 0, NULL};
        sweep_run(mlp, count, x, scale, &sk, work);
        return SKIT_OK;
    }
#endif
    return skit_mlp_features_dense(mlp, count, x, scale, out, ldo, work);
}

int skit_mlp_features_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work)
{
#ifdef HAVE_SWEEP
    if (sweep_eligible(mlp, count)) {
        const sweep_sink sk = {out, ldo, 1, 0, 0, NULL};
        sweep_run(mlp, count, x, scale, &sk, work);
        return SKIT_OK;
    }
#endif
    return SKIT_ERROR(SKIT_EINVAL, "the sweep needs ReLU, in_dim = 1, count >= 1, width >= 4 (hidden layers + 2) "
                                   "and a GCC-compatible compiler (have in_dim = %zu, width = %zu, count = %zu)",
                      mlp->in_dim, mlp->width, count);
}

int skit_mlp_outputs_sweep_able(const skit_mlp *mlp, size_t count)
{
#ifdef HAVE_SWEEP
    return count >= SWEEP_BLOCK && sweep_eligible(mlp, count);
#else
    (void)mlp;
    (void)count;
    return 0;
#endif
}

size_t skit_mlp_outputs_workspace(const skit_mlp *mlp)
{
#ifdef HAVE_SWEEP
    const size_t A = mlp->hidden_layers + 1;
    return SKIT_MAX(skit_mlp_features_workspace(mlp), sweep_doubles(mlp) + mlp->out_dim * (A + 2 + SWEEP_BLOCK));
#else
    return skit_mlp_features_workspace(mlp);
#endif
}

int skit_mlp_outputs_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale, double *out,
                           size_t ldo, size_t split, size_t part, double *row_ss, size_t *changes,
                           double *work)
{
#ifdef HAVE_SWEEP
    if (sweep_eligible(mlp, count) && split > 0) {
        const sweep_sink sk = {out, ldo, split, part, 1, row_ss};
        size_t cuts = sweep_run(mlp, count, x, scale, &sk, work);
        if (changes) *changes += cuts;
        return SKIT_OK;
    }
#endif
    (void)x, (void)scale, (void)out, (void)ldo, (void)part, (void)row_ss, (void)changes, (void)work;
    return SKIT_ERROR(SKIT_EINVAL, "the sweep needs ReLU, in_dim = 1, count >= 1, width >= 4 (hidden layers + 2), "
                                   "split >= 1 and a GCC-compatible compiler (have in_dim = %zu, width = %zu, "
                                   "count = %zu, split = %zu)", mlp->in_dim, mlp->width, count, split);
}

int skit_mlp_features_dense(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work)
{
    const size_t w = mlp->width, in = mlp->in_dim;
    double *stats = work + 2 * (size_t)FEATURE_BLOCK * w;
    for (size_t k0 = 0; k0 < count; k0 += FEATURE_BLOCK) {
        size_t cols = SKIT_MIN((size_t)FEATURE_BLOCK, count - k0);
        double *a = work, *b = work + (size_t)FEATURE_BLOCK * w;
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
            const double *wl = mlp->params + layer_offset(mlp, l);
            norm_activate_cols(mlp, cols, a, cols, pending, NULL, a, cols, stats);
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)w, (int)cols, (int)w, 1.0, wl,
                        (int)w, a, (int)cols, 0.0, b, (int)cols);
            pending = wl + w * w;
            double *t = a;
            a = b;
            b = t;
        }
        norm_activate_cols(mlp, cols, a, cols, pending, scale ? scale + k0 : NULL, out + k0, ldo, stats);
    }
    return SKIT_OK;
}
