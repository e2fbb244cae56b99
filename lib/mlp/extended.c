/* extended.c — the MLP in extended precision (mlp/extended.h): the same
 * layers as skit_mlp_eval (Linear, then per hidden block norm, activation,
 * Linear), each formula evaluated in skit_xreal. */
#include "config.h"

#include "mlp/extended.h"
#include "mlp/mlp_internal.h"

size_t skit_mlp_xreal_work(const skit_mlp *mlp)
{
    return 2 * skit_mlp_width_of(mlp);
}

static skit_xreal activate(skit_activation a, skit_xreal v)
{
    switch (a) {
    case SKIT_ACTIVATION_RELU: return v > 0 ? v : 0;
    case SKIT_ACTIVATION_SILU: return v >= 0 ? v / (1 + xr_exp(-v)) : v * xr_exp(v) / (1 + xr_exp(v));
    case SKIT_ACTIVATION_GELU: return v * xr_erfc(-v * XR_SQRT1_2) / 2;
    }
    return v;
}

static void norm_row(skit_norm norm, skit_xreal *row, size_t w)
{
    skit_xreal shift = 0, inv = 1, s = 0;
    if (norm == SKIT_NORM_LAYER) {
        for (size_t i = 0; i < w; i++) shift += row[i];
        shift /= (skit_xreal)w;
        for (size_t i = 0; i < w; i++) s += (row[i] - shift) * (row[i] - shift);
        inv = 1 / xr_sqrt(s / (skit_xreal)w + (skit_xreal)LAYER_NORM_EPS);
    } else if (norm == SKIT_NORM_RMS) {
        for (size_t i = 0; i < w; i++) s += row[i] * row[i];
        inv = 1 / (xr_sqrt(s / (skit_xreal)w) + (skit_xreal)RMS_NORM_EPS);
    } else {
        return;
    }
    for (size_t i = 0; i < w; i++) row[i] = (row[i] - shift) * inv;
}

/* out (fan_out) = W in (fan_in) + b, W row-major then b (skit/mlp.h layout) */
static void linear(const double *w, size_t fan_in, size_t fan_out, const skit_xreal *in, skit_xreal *out)
{
    const double *bias = w + fan_out * fan_in;
    for (size_t o = 0; o < fan_out; o++) {
        skit_xreal s = bias[o];
        for (size_t i = 0; i < fan_in; i++) s += (skit_xreal)w[o * fan_in + i] * in[i];
        out[o] = s;
    }
}

void skit_mlp_eval_xreal(const skit_mlp *mlp, const skit_xreal *x, skit_xreal *y, skit_xreal *work)
{
    size_t w = skit_mlp_width_of(mlp), in = skit_mlp_in_dim(mlp), out = skit_mlp_out_dim(mlp);
    size_t layers = skit_mlp_hidden_layers_of(mlp) + 2;
    skit_activation act = skit_mlp_activation_of(mlp);
    skit_norm norm = skit_mlp_norm_of(mlp);
    const double *p = skit_mlp_params_of(mlp);
    skit_xreal *a = work, *b = work + w;
    linear(p, in, w, x, a);
    p += w * in + w;
    for (size_t l = 1; l < layers; l++) {
        norm_row(norm, a, w);
        for (size_t i = 0; i < w; i++) a[i] = activate(act, a[i]);
        size_t fan_out = l + 1 == layers ? out : w;
        linear(p, w, fan_out, a, l + 1 == layers ? y : b);
        p += w * fan_out + fan_out;
        skit_xreal *t = a;
        a = b;
        b = t;
    }
}
