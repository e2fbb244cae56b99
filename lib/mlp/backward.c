/* backward.c — the MLP's vector–Jacobian product (skit_mlp_backward).
 *
 * llm.c's pattern: the forward is recomputed block by block into the
 * workspace, keeping what each layer's backward reads (the normalised
 * values u = norm(h), the activations a = act(u) and the norm's 1/scale
 * per row), then the gradients run back through the block, each Linear's
 * weight gradient accumulated by one GEMM over the block's rows. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "mlp/mlp_internal.h"
#include "skit/mlp.h"

/* Inputs per block: the stored activations are (layers + 1) x 2 x BLOCK x
 * width doubles, so the block stays small enough to sit in L2 at width 64. */
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

/* doubles of the dense path's scratch */
static size_t dense_workspace(const skit_mlp *mlp)
{
    mlp_dims d = dims_of(mlp);
    /* per stage u, a (B x w) and inv (B); then two gradient buffers B x w */
    return d.stages * (2 * (size_t)BACKWARD_BLOCK * d.w + BACKWARD_BLOCK) + 2 * (size_t)BACKWARD_BLOCK * d.w;
}

size_t skit_mlp_backward_workspace_size(const skit_mlp *mlp)
{
    if (!mlp) return 0;
    return dense_workspace(mlp) + mlp_backward_sweep_workspace(mlp);
}

/* out (rows x fan_out, ld ldo) = in W^T + b for Linear l */
static void linear_forward(const skit_mlp *m, const mlp_dims *d, size_t l, size_t rows, const double *in,
                           double *out, size_t ldo)
{
    size_t fi = layer_fan_in(d, l), fo = layer_fan_out(d, l);
    const double *W = skit_mlp_params_of(m) + layer_offset(d, l), *b = W + fo * fi;
    for (size_t r = 0; r < rows; r++) memcpy(out + r * ldo, b, fo * sizeof(double));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)fo, (int)fi, 1.0, in, (int)fi, W,
                (int)fi, 1.0, out, (int)ldo);
}

/* Linear l backward: dW += g^T in, db += colsum g, din = g W (din may be NULL) */
static void linear_backward(const skit_mlp *m, const mlp_dims *d, size_t l, size_t rows, const double *in,
                            const double *g, double *din, double *dparams)
{
    size_t fi = layer_fan_in(d, l), fo = layer_fan_out(d, l), off = layer_offset(d, l);
    const double *W = skit_mlp_params_of(m) + off;
    if (dparams) {
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)fo, (int)fi, (int)rows, 1.0, g, (int)fo, in,
                    (int)fi, 1.0, dparams + off, (int)fi);
        double *db = dparams + off + fo * fi;
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < fo; j++) db[j] += g[r * fo + j];
    }
    if (din)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)fi, (int)fo, 1.0, g, (int)fo, W,
                    (int)fi, 0.0, din, (int)fi);
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

/* g (a row of w values) from the gradient w.r.t. u = norm(h) to the one
 * w.r.t. h, given u and the norm's inv. LayerNorm: inv (g - mean g - u
 * mean(g u)); RMS (u = h inv, inv = 1/(r + eps), r = ||h||/sqrt w):
 * inv g - u (sum g u) / (w r). */
static void norm_backward(skit_norm norm, size_t w, const double *u, double inv, double *g)
{
    if (norm == SKIT_NORM_NONE) return;
    double sg = 0, sgu = 0;
    for (size_t i = 0; i < w; i++) {
        sg += g[i];
        sgu += g[i] * u[i];
    }
    if (norm == SKIT_NORM_LAYER) {
        sg /= (double)w;
        sgu /= (double)w;
        for (size_t i = 0; i < w; i++) g[i] = inv * (g[i] - sg - u[i] * sgu);
        return;
    }
    double r = 1.0 / inv - 1e-8; /* RMS_NORM_EPS of mlp.c */
    double c = r > 0 ? sgu / ((double)w * r) : 0.0;
    for (size_t i = 0; i < w; i++) g[i] = inv * g[i] - u[i] * c;
}

typedef struct block_store {
    double *u[65], *a[65], *inv[65]; /* per stage (hidden_layers <= 64) */
    double *g, *t;
} block_store;

static block_store store_layout(const mlp_dims *d, double *work)
{
    block_store s;
    size_t bw = (size_t)BACKWARD_BLOCK * d->w;
    for (size_t k = 0; k < d->stages; k++) {
        s.u[k] = work;
        s.a[k] = work + bw;
        s.inv[k] = work + 2 * bw;
        work += 2 * bw + BACKWARD_BLOCK;
    }
    s.g = work;
    s.t = work + bw;
    return s;
}

/* forward of one block, keeping u, a, inv of every stage; y (may be NULL) */
static void block_forward(const skit_mlp *m, const mlp_dims *d, size_t rows, const double *x, double *y,
                          const block_store *s)
{
    skit_norm norm = skit_mlp_norm_of(m);
    skit_activation act = skit_mlp_activation_of(m);
    size_t w = d->w;
    for (size_t k = 0; k < d->stages; k++) {
        double *u = s->u[k];
        linear_forward(m, d, k, rows, k == 0 ? x : s->a[k - 1], u, w);
        for (size_t r = 0; r < rows; r++) {
            double shift, inv, *row = u + r * w;
            skit_mlp_norm_stats(norm, row, w, &shift, &inv);
            if (norm != SKIT_NORM_NONE)
                for (size_t i = 0; i < w; i++) row[i] = (row[i] - shift) * inv;
            s->inv[k][r] = inv;
            for (size_t i = 0; i < w; i++) s->a[k][r * w + i] = skit_mlp_activate(act, row[i]);
        }
    }
    if (y) linear_forward(m, d, d->stages, rows, s->a[d->stages - 1], y, d->out);
}

/* dots[r] = <dy_r, y_r> from the output layer's input a and its gradient
 * g = dy W: <dy_r, a_r W^T + b> = <a_r, g_r> + <dy_r, b> */
static void output_dots(const skit_mlp *m, const mlp_dims *d, size_t rows, const double *a, const double *g,
                        const double *dy, double *dots)
{
    const double *b = skit_mlp_params_of(m) + layer_offset(d, d->stages) + d->out * d->w;
    for (size_t r = 0; r < rows; r++) {
        double sum = 0;
        for (size_t j = 0; j < d->w; j++) sum += a[r * d->w + j] * g[r * d->w + j];
        for (size_t c = 0; c < d->out; c++) sum += dy[r * d->out + c] * b[c];
        dots[r] = sum;
    }
}

static void block_backward(const skit_mlp *m, const mlp_dims *d, size_t rows, const double *x, const double *dy,
                           double *dx, double *dparams, double *dots, const block_store *s)
{
    skit_norm norm = skit_mlp_norm_of(m);
    skit_activation act = skit_mlp_activation_of(m);
    size_t w = d->w;
    double *g = s->g, *t = s->t;
    linear_backward(m, d, d->stages, rows, s->a[d->stages - 1], dy, g, dparams);
    if (dots) output_dots(m, d, rows, s->a[d->stages - 1], g, dy, dots);
    for (size_t k = d->stages; k-- > 0;) {
        for (size_t r = 0; r < rows; r++) {
            double *gr = g + r * w;
            const double *ur = s->u[k] + r * w;
            for (size_t i = 0; i < w; i++) gr[i] *= activation_slope(act, ur[i]);
            norm_backward(norm, w, ur, s->inv[k][r], gr);
        }
        double *din = k == 0 ? dx : t;
        linear_backward(m, d, k, rows, k == 0 ? x : s->a[k - 1], g, din, dparams);
        if (k > 0) {
            double *tmp = g;
            g = t;
            t = tmp;
        }
    }
}

int skit_mlp_backward(const skit_mlp *mlp, size_t count, const double *x, const double *dy, double *y,
                      double *dx, double *dparams, double *work)
{
    return skit_mlp_backward_dots(mlp, count, x, dy, y, dx, dparams, NULL, work);
}

/* blocks of inputs through block_forward and block_backward (dparams added to) */
static void dense_rows(const skit_mlp *mlp, size_t count, const double *x, const double *dy, double *y, double *dx,
                       double *dparams, double *dots, double *work)
{
    mlp_dims d = dims_of(mlp);
    block_store s = store_layout(&d, work);
    for (size_t k0 = 0; k0 < count; k0 += BACKWARD_BLOCK) {
        size_t rows = SKIT_MIN((size_t)BACKWARD_BLOCK, count - k0);
        block_forward(mlp, &d, rows, x + k0 * d.in, y ? y + k0 * d.out : NULL, &s);
        block_backward(mlp, &d, rows, x + k0 * d.in, dy + k0 * d.out, dx ? dx + k0 * d.in : NULL, dparams,
                       dots ? dots + k0 : NULL, &s);
    }
}

void mlp_backward_dense(const skit_mlp *m, size_t count, const double *x, const double *dy, double *dparams,
                        double *dots, double *work)
{
    dense_rows(m, count, x, dy, NULL, NULL, dparams, dots, work);
}

int skit_mlp_backward_dots(const skit_mlp *mlp, size_t count, const double *x, const double *dy, double *y,
                           double *dx, double *dparams, double *dots, double *work)
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
        owned = skit_malloc(skit_mlp_backward_workspace_size(mlp), sizeof(double));
        if (!owned) return SKIT_ENOMEM;
        work = owned;
    }
    /* the sweep gives the parameters' gradient only; dx and y take the dense path */
    if (dparams && !dx && !y && mlp_backward_sweep_able(mlp, count))
        mlp_backward_sweep(mlp, count, x, dy, dparams, dots, work + dense_workspace(mlp), work, 0);
    else
        dense_rows(mlp, count, x, dy, y, dx, dparams, dots, work);
    skit_free(owned);
    return SKIT_OK;
}
