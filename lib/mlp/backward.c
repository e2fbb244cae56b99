/* backward.c — the MLP's vector–Jacobian product (skit_mlp_backward), for
 * one precision: R = double here, R = float when backwardf.c compiles this
 * file again with MLP_BACKWARD_SINGLE (skit_mlp_backward_dots_f32 of
 * mlp/batch.h, the float32 token mixers' parameter gradient).
 *
 * llm.c's pattern: the forward is recomputed block by block into the
 * workspace, keeping what each layer's backward reads (the normalised
 * values u = norm(h), the activations a = act(u) and the norm's 1/scale
 * per row), then the gradients run back through the block, each Linear's
 * weight gradient accumulated by one GEMM over the block's rows.
 *
 * In float the GEMMs run on the float copy of the weights (mlp_internal.h)
 * and the block's inputs and output gradients rounded as they are read;
 * the norms' statistics, the activations and their slopes are evaluated in
 * double on the float values and rounded once; each block's weight
 * gradient (a float GEMM over at most BACKWARD_BLOCK rows) is added into
 * the double dparams, so its rounding is per block and does not grow with
 * the number of blocks; the bias gradients and the dots are sums in double
 * of floats. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "mlp/mlp_internal.h"
#include "skit/mlp.h"

#ifdef MLP_BACKWARD_SINGLE
typedef float R;
#define GEMM cblas_sgemm
#define PARAMS(m) ((m)->params_f)
#else
typedef double R;
#define GEMM cblas_dgemm
#define PARAMS(m) ((m)->params)
#endif

/* Inputs per block: the stored activations are (layers + 1) x 2 x BLOCK x
 * width values, so the block stays small enough to sit in L2 at width 64. */
#define BACKWARD_BLOCK 256

typedef struct mlp_dims {
    size_t in, w, out, stages; /* stages = hidden_layers + 1 norm/activation steps */
} mlp_dims;

static mlp_dims dims_of(const skit_mlp *m)
{
    mlp_dims d = {skit_mlp_in_dim(m), skit_mlp_width_of(m), skit_mlp_out_dim(m),
                  skit_mlp_hidden_layers_of(m) + 1};
    return d;
}

static size_t layer_fan_in(const mlp_dims *d, size_t l) { return l == 0 ? d->in : d->w; }
static size_t layer_fan_out(const mlp_dims *d, size_t l) { return l == d->stages ? d->out : d->w; }

static size_t layer_offset(const mlp_dims *d, size_t l)
{
    size_t off = 0;
    for (size_t i = 0; i < l; i++) off += layer_fan_out(d, i) * (layer_fan_in(d, i) + 1);
    return off;
}

typedef struct block_store {
    R *u[65], *a[65];  /* per stage (hidden_layers <= 64) */
    double *inv[65];
    R *g, *t;
    R *x, *dy;   /* float only: the block's inputs and output gradients rounded */
    R *dw;       /* float only: one layer's weight gradient over the block */
} block_store;

/* doubles that hold count values of R */
static size_t doubles_of(size_t count) { return (count * sizeof(R) + sizeof(double) - 1) / sizeof(double); }

#ifdef MLP_BACKWARD_SINGLE
static size_t largest_weight(const mlp_dims *d)
{
    size_t most = 0;
    for (size_t l = 0; l <= d->stages; l++) most = SKIT_MAX(most, layer_fan_out(d, l) * layer_fan_in(d, l));
    return most;
}
#endif

/* the next `doubles` of work from *off (NULL while only counting) */
static void *carve(double *work, size_t *off, size_t doubles)
{
    void *at = work ? work + *off : NULL;
    *off += doubles;
    return at;
}

/* The block's buffers carved from work (NULL: only counted; s may then be
 * NULL); returns the doubles they take. Per stage u, a (B x w) and inv
 * (B); then two gradient buffers B x w; in float also x, dy and dw. */
static size_t store_layout(const mlp_dims *d, double *work, block_store *s)
{
    block_store counted;
    if (!s) s = &counted;
    const size_t bw = doubles_of((size_t)BACKWARD_BLOCK * d->w);
    size_t off = 0;
    for (size_t k = 0; k < d->stages; k++) {
        s->u[k] = carve(work, &off, bw);
        s->a[k] = carve(work, &off, bw);
        s->inv[k] = carve(work, &off, BACKWARD_BLOCK);
    }
    s->g = carve(work, &off, bw);
    s->t = carve(work, &off, bw);
    s->x = s->dy = s->dw = NULL;
#ifdef MLP_BACKWARD_SINGLE
    s->x = carve(work, &off, doubles_of((size_t)BACKWARD_BLOCK * d->in));
    s->dy = carve(work, &off, doubles_of((size_t)BACKWARD_BLOCK * d->out));
    s->dw = carve(work, &off, doubles_of(largest_weight(d)));
#endif
    return off;
}

/* count values from src as R: the values themselves in double, rounded
 * into scratch in float */
static const R *block_values(const double *src, size_t count, R *scratch)
{
#ifdef MLP_BACKWARD_SINGLE
    for (size_t i = 0; i < count; i++) scratch[i] = (R)src[i];
    return scratch;
#else
    (void)count, (void)scratch;
    return src;
#endif
}

/* out (rows x fan_out, ld ldo) = in W^T + b for Linear l */
static void linear_forward(const skit_mlp *m, const mlp_dims *d, size_t l, size_t rows, const R *in, R *out,
                           size_t ldo)
{
    size_t fi = layer_fan_in(d, l), fo = layer_fan_out(d, l);
    const R *W = PARAMS(m) + layer_offset(d, l), *b = W + fo * fi;
    for (size_t r = 0; r < rows; r++) memcpy(out + r * ldo, b, fo * sizeof(R));
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)fo, (int)fi, 1.0, in, (int)fi, W, (int)fi, 1.0,
         out, (int)ldo);
}

/* dW += g^T in (fo x fi at dW): double straight into dparams; float over
 * the block into dw, then added in double */
static void add_weight_gradient(size_t fo, size_t fi, size_t rows, const R *in, const R *g, double *dW, R *dw)
{
#ifdef MLP_BACKWARD_SINGLE
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)fo, (int)fi, (int)rows, 1.0f, g, (int)fo, in, (int)fi,
                0.0f, dw, (int)fi);
    for (size_t i = 0; i < fo * fi; i++) dW[i] += (double)dw[i];
#else
    (void)dw;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)fo, (int)fi, (int)rows, 1.0, g, (int)fo, in, (int)fi,
                1.0, dW, (int)fi);
#endif
}

/* Linear l backward: dW += g^T in, db += colsum g, din = g W (din may be NULL) */
static void linear_backward(const skit_mlp *m, const mlp_dims *d, size_t l, size_t rows, const R *in, const R *g,
                            R *din, double *dparams, const block_store *s)
{
    size_t fi = layer_fan_in(d, l), fo = layer_fan_out(d, l), off = layer_offset(d, l);
    const R *W = PARAMS(m) + off;
    if (dparams) {
        add_weight_gradient(fo, fi, rows, in, g, dparams + off, s->dw);
        double *db = dparams + off + fo * fi;
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < fo; j++) db[j] += g[r * fo + j];
    }
    if (din)
        GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)fi, (int)fo, 1.0, g, (int)fo, W, (int)fi,
             0.0, din, (int)fi);
}

/* derivative of the activation at u */
static double activation_slope(skit_activation a, double u)
{
    switch (a) {
    case SKIT_ACTIVATION_RELU: return u > 0 ? 1.0 : 0.0;
    case SKIT_ACTIVATION_SILU: {
        double s = u >= 0 ? 1.0 / (1.0 + exp(-u)) : exp(u) / (1.0 + exp(u));
        return s + u * s * (1.0 - s);
    }
    case SKIT_ACTIVATION_GELU: return 0.5 * erfc(-u / M_SQRT2) + u * exp(-0.5 * u * u) / sqrt(2.0 * M_PI);
    }
    return 1.0;
}

/* ReLU's loops are written out, so that they vectorise; the values are
 * those of skit_mlp_activate and activation_slope (a product by 1 or 0) */
static void activate_row(skit_activation act, const R *u, R *a, size_t w)
{
    if (act == SKIT_ACTIVATION_RELU) {
        for (size_t i = 0; i < w; i++) a[i] = u[i] > 0 ? u[i] : (R)0;
        return;
    }
    for (size_t i = 0; i < w; i++) a[i] = (R)skit_mlp_activate(act, u[i]);
}

static void slope_row(skit_activation act, const R *u, R *g, size_t w)
{
    if (act == SKIT_ACTIVATION_RELU) {
        for (size_t i = 0; i < w; i++) g[i] *= u[i] > 0 ? (R)1 : (R)0;
        return;
    }
    for (size_t i = 0; i < w; i++) g[i] = (R)(g[i] * activation_slope(act, u[i]));
}

#ifdef MLP_BACKWARD_SINGLE
/* Row sums in double over LANES interleaved partial sums. In float the
 * element-wise work around the sgemms would otherwise be one chain of
 * dependent double additions per row and stage, as long as the GEMMs; w
 * terms summed in double stay far below float's rounding in any order. */
#define LANES 8
static double lanes_total(const double *acc)
{
    double s = 0;
    for (int l = 0; l < LANES; l++) s += acc[l];
    return s;
}

/* sum_i (a_i - ca) (b_i - cb); b NULL: sum_i (a_i - ca) */
static double lanes_dot(const R *a, double ca, const R *b, double cb, size_t w)
{
    double acc[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= w; i += LANES)
        for (int l = 0; l < LANES; l++) acc[l] += (a[i + l] - ca) * (b ? b[i + l] - cb : 1.0);
    for (; i < w; i++) acc[0] += (a[i] - ca) * (b ? b[i] - cb : 1.0);
    return lanes_total(acc);
}

/* skit_mlp_norm_stats on a float row, its sums in lanes */
static void row_stats(skit_norm norm, const R *row, size_t w, double *shift, double *inv)
{
    *shift = 0.0;
    *inv = 1.0;
    if (norm == SKIT_NORM_LAYER) {
        *shift = lanes_dot(row, 0.0, NULL, 0.0, w) / (double)w;
        *inv = 1.0 / sqrt(lanes_dot(row, *shift, row, *shift, w) / (double)w + LAYER_NORM_EPS);
    } else if (norm == SKIT_NORM_RMS) {
        *inv = 1.0 / (sqrt(lanes_dot(row, 0.0, row, 0.0, w) / (double)w) + RMS_NORM_EPS);
    }
}

/* sum g and sum g u of a row */
static void row_sums(const R *g, const R *u, size_t w, double *sg, double *sgu)
{
    *sg = lanes_dot(g, 0.0, NULL, 0.0, w);
    *sgu = lanes_dot(g, 0.0, u, 0.0, w);
}
#else
static void row_stats(skit_norm norm, const R *row, size_t w, double *shift, double *inv)
{
    skit_mlp_norm_stats(norm, row, w, shift, inv);
}

static void row_sums(const R *g, const R *u, size_t w, double *sg, double *sgu)
{
    double a = 0, b = 0;
    for (size_t i = 0; i < w; i++) {
        a += g[i];
        b += g[i] * u[i];
    }
    *sg = a;
    *sgu = b;
}
#endif

/* g (a row of w values) from the gradient w.r.t. u = norm(h) to the one
 * w.r.t. h, given u and the norm's inv. LayerNorm: inv (g - mean g - u
 * mean(g u)); RMS (u = h inv, inv = 1/(r + eps), r = ||h||/sqrt w):
 * inv g - u (sum g u) / (w r). Sums in double. */
static void norm_backward(skit_norm norm, size_t w, const R *u, double inv, R *g)
{
    if (norm == SKIT_NORM_NONE) return;
    double sg, sgu;
    row_sums(g, u, w, &sg, &sgu);
    if (norm == SKIT_NORM_LAYER) {
        sg /= (double)w;
        sgu /= (double)w;
        for (size_t i = 0; i < w; i++) g[i] = (R)(inv * (g[i] - sg - u[i] * sgu));
        return;
    }
    double r = 1.0 / inv - RMS_NORM_EPS;
    double c = r > 0 ? sgu / ((double)w * r) : 0.0;
    for (size_t i = 0; i < w; i++) g[i] = (R)(inv * g[i] - u[i] * c);
}

/* one row h (w values) to u = norm(h) in place and a = act(u); *inv the
 * norm's; statistics in double */
static void norm_activate_row(skit_norm norm, skit_activation act, size_t w, R *row, double *inv, R *a)
{
    double shift;
    row_stats(norm, row, w, &shift, inv);
    if (norm != SKIT_NORM_NONE)
        for (size_t i = 0; i < w; i++) row[i] = (R)((row[i] - shift) * *inv);
    activate_row(act, row, a, w);
}

/* forward of one block, keeping u, a, inv of every stage; y (may be NULL) */
static void block_forward(const skit_mlp *m, const mlp_dims *d, size_t rows, const R *x, R *y,
                          const block_store *s)
{
    skit_norm norm = skit_mlp_norm_of(m);
    skit_activation act = skit_mlp_activation_of(m);
    size_t w = d->w;
    for (size_t k = 0; k < d->stages; k++) {
        R *u = s->u[k];
        linear_forward(m, d, k, rows, k == 0 ? x : s->a[k - 1], u, w);
        for (size_t r = 0; r < rows; r++)
            norm_activate_row(norm, act, w, u + r * w, &s->inv[k][r], s->a[k] + r * w);
    }
    if (y) linear_forward(m, d, d->stages, rows, s->a[d->stages - 1], y, d->out);
}

/* dots[r] = <dy_r, y_r> from the output layer's input a and its gradient
 * g = dy W: <dy_r, a_r W^T + b> = <a_r, g_r> + <dy_r, b>; sums in double
 * (the float64 bias and dy) */
static void output_dots(const skit_mlp *m, const mlp_dims *d, size_t rows, const R *a, const R *g,
                        const double *dy, double *dots)
{
    const double *b = skit_mlp_params_of(m) + layer_offset(d, d->stages) + d->out * d->w;
    for (size_t r = 0; r < rows; r++) {
        double sum = 0;
        for (size_t j = 0; j < d->w; j++) sum += (double)a[r * d->w + j] * g[r * d->w + j];
        for (size_t c = 0; c < d->out; c++) sum += dy[r * d->out + c] * b[c];
        dots[r] = sum;
    }
}

/* dy: the block's output gradients (dyr as R, dy as given for the dots) */
static void block_backward(const skit_mlp *m, const mlp_dims *d, size_t rows, const R *x, const R *dyr,
                           const double *dy, R *dx, double *dparams, double *dots, const block_store *s)
{
    skit_norm norm = skit_mlp_norm_of(m);
    skit_activation act = skit_mlp_activation_of(m);
    size_t w = d->w;
    R *g = s->g, *t = s->t;
    linear_backward(m, d, d->stages, rows, s->a[d->stages - 1], dyr, g, dparams, s);
    if (dots) output_dots(m, d, rows, s->a[d->stages - 1], g, dy, dots);
    for (size_t k = d->stages; k-- > 0;) {
        for (size_t r = 0; r < rows; r++) {
            R *gr = g + r * w;
            const R *ur = s->u[k] + r * w;
            slope_row(act, ur, gr, w);
            norm_backward(norm, w, ur, s->inv[k][r], gr);
        }
        R *din = k == 0 ? dx : t;
        linear_backward(m, d, k, rows, k == 0 ? x : s->a[k - 1], g, din, dparams, s);
        if (k > 0) {
            R *tmp = g;
            g = t;
            t = tmp;
        }
    }
}

/* the blocks; y and dx (may be NULL) in R */
static int backward_blocks(const skit_mlp *mlp, size_t count, const double *x, const double *dy, R *y, R *dx,
                           double *dparams, double *dots, double *work)
{
    SKIT_REQUIRE_PTR(mlp);
    if (dparams) memset(dparams, 0, skit_mlp_parameter_count(mlp) * sizeof(double));
    if (count == 0) return SKIT_OK;
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(dy);
    mlp_dims d = dims_of(mlp);
    size_t nx;
    if (skit_size_mul(count, d.in, &nx) || skit_size_mul(count, d.out, &nx))
        return SKIT_ERROR(SKIT_EOVERFLOW, "count = %zu: input/output size overflows size_t", count);
    SKIT_TRY(skit_check_finite(x, count * d.in, "x"));
    double *owned = NULL;
    if (!work) {
        owned = skit_malloc(store_layout(&d, NULL, NULL), sizeof(double));
        if (!owned) return SKIT_ENOMEM;
        work = owned;
    }
    block_store s;
    store_layout(&d, work, &s);
    for (size_t k0 = 0; k0 < count; k0 += BACKWARD_BLOCK) {
        size_t rows = SKIT_MIN((size_t)BACKWARD_BLOCK, count - k0);
        const R *xb = block_values(x + k0 * d.in, rows * d.in, s.x);
        block_forward(mlp, &d, rows, xb, y ? y + k0 * d.out : NULL, &s);
        block_backward(mlp, &d, rows, xb, block_values(dy + k0 * d.out, rows * d.out, s.dy), dy + k0 * d.out,
                       dx ? dx + k0 * d.in : NULL, dparams, dots ? dots + k0 : NULL, &s);
    }
    skit_free(owned);
    return SKIT_OK;
}

#ifdef MLP_BACKWARD_SINGLE
size_t skit_mlp_backward_f32_workspace(const skit_mlp *mlp)
{
    if (!mlp) return 0;
    mlp_dims d = dims_of(mlp);
    return store_layout(&d, NULL, NULL);
}

int skit_mlp_backward_dots_f32(const skit_mlp *mlp, size_t count, const double *x, const double *dy,
                               double *dparams, double *dots, double *work)
{
    SKIT_REQUIRE_PTR(mlp);
    if (mlp->params_f_count < mlp->parameter_count)
        return SKIT_ERROR(SKIT_EINVAL, "float MLP backward: no float copy of the weights (skit_mlp_keep_float_copy)");
    return backward_blocks(mlp, count, x, dy, NULL, NULL, dparams, dots, work);
}
#else
size_t skit_mlp_backward_workspace_size(const skit_mlp *mlp)
{
    if (!mlp) return 0;
    mlp_dims d = dims_of(mlp);
    return store_layout(&d, NULL, NULL);
}

int skit_mlp_backward(const skit_mlp *mlp, size_t count, const double *x, const double *dy, double *y,
                      double *dx, double *dparams, double *work)
{
    return backward_blocks(mlp, count, x, dy, y, dx, dparams, NULL, work);
}

int skit_mlp_backward_dots(const skit_mlp *mlp, size_t count, const double *x, const double *dy, double *y,
                           double *dx, double *dparams, double *dots, double *work)
{
    return backward_blocks(mlp, count, x, dy, y, dx, dparams, dots, work);
}
#endif
