/* check.c — the gradient checks of check.h. */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/fdiff.h"

static int loss_at(train_model *m, const int *in, const int *tg, const double *w, double *loss)
{
    int status = train_model_sync(m);
    return status ? status : train_model_forward(m, in, tg, w, loss, NULL);
}

/* Steps of the ladder: down to 1e-3 / 4^7 = 6e-8 of |p|, below the kinks of
 * a ReLU RPE that the larger steps straddle (with 5 steps, 2 of 234 ReLU
 * checks failed at 1.25e-6; with 8, none). */
#define FD_STEPS 8

/* central difference of the loss in *param with step h, and its rounding
 * error (a few ulps of the losses over 2h: a mean of positive terms, the
 * loss does not cancel) */
static int central(train_model *m, const int *in, const int *tg, const double *w, double *param, double h,
                   double *slope, double *noise)
{
    double saved = *param, plus = 0, minus = 0;
    *param = saved + h;
    int status = loss_at(m, in, tg, w, &plus);
    *param = saved - h;
    if (!status) status = loss_at(m, in, tg, w, &minus);
    *param = saved;
    *slope = (plus - minus) / (2 * h);
    *noise = 8 * DBL_EPSILON * (fabs(plus) + fabs(minus)) / (2 * h);
    return status;
}

/* The derivative as `skit grad-check` takes it (cli/fdiff.c): central
 * differences at h = 1e-3 |p|, h/4, h/16, ..., Richardson's extrapolation
 * of neighbours, the pair that agrees best among those the smaller steps
 * confirm. A tiny gradient group (its scale far below the loss's) needs
 * the large steps; a sharply curved loss the small ones. */
static int derivative(train_model *m, const int *in, const int *tg, const double *w, double *param,
                      double *slope, double *resolution)
{
    double h = 1e-3 * fmax(1.0, fabs(*param)), D[FD_STEPS], noise[FD_STEPS];
    for (int k = 0; k < FD_STEPS; k++, h /= 4) {
        int status = central(m, in, tg, w, param, h, &D[k], &noise[k]);
        if (status) return status;
    }
    fdiff_pick(FD_STEPS, D, noise, slope, resolution);
    return SKIT_OK;
}

/* A group whose gradient is far below what finite differences resolve
 * (seen: causal attention's layer-0 wk at 1e-21 from saturated softmax
 * rows, against differences good to 5e-13) is compared in absolute terms:
 * the denominator is at least RESOLVED times the difference's own
 * resolution (the agreement of its extrapolations plus their rounding), so
 * an error at that resolution reads 1e-7, below every tolerance. */
#define RESOLVED 1e7

int train_gradient_check(train_model *m, const int *in, const int *tg, const double *w, size_t probes,
                         uint64_t seed, double *worst)
{
    size_t P = train_model_parameter_count(m), G = train_model_group_count(m);
    double *p = train_model_parameters(m), *analytic = malloc(P * sizeof(double));
    if (!analytic) return SKIT_ENOMEM;
    double loss;
    int status = loss_at(m, in, tg, w, &loss);
    if (!status) status = train_model_backward(m);
    if (!status) memcpy(analytic, train_model_gradients(m), P * sizeof(double));
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t g = 0; g < G && !status; g++) {
        const train_group *gr = train_model_group(m, g);
        size_t count = gr->rows * gr->cols;
        double scale = 0;
        for (size_t i = 0; i < count; i++) scale = fmax(scale, fabs(analytic[gr->offset + i]));
        worst[g] = 0;
        for (size_t k = 0; k < probes && k < count && !status; k++) {
            size_t i = gr->offset + (count <= probes ? k : (size_t)skit_rng_below(&rng, count));
            double numeric = 0, resolution = 0;
            status = derivative(m, in, tg, w, p + i, &numeric, &resolution);
            double denom = fmax(scale, fmax(RESOLVED * resolution, 1e-300));
            worst[g] = fmax(worst[g], fabs(numeric - analytic[i]) / denom);
        }
    }
    if (!status) status = train_model_sync(m);
    free(analytic);
    return status;
}

/* A float32 sum of k products carries at most k u relative error of the sum
 * of their magnitudes (u = 2^-24; Higham, Thm. 3.5, to first order); the
 * longest here: a weight gradient's sum over the R = batch n rows, the
 * GEMMs' over d, e, the GLU width and the vocabulary, and the mixer's
 * (20 log2(2N) + h + 1) u of skit_tno_plan_execute_f32 (tno.h, N <= 4n;
 * SKI-TNO: ski_growth below;
 * attention's sums run over n and the head width, within R and e, and so
 * do MRA-2's: block means over a block, coarse and refined logits over e,
 * the softmax over n, the coarse gradients over n / block).
 * Every layer's rounding reaches a gradient through the forward and again
 * through the backward of each of the 2 layers + 1 sub-blocks (pre-norm
 * residual blocks and the head), to first order additively: depth
 * 2 (2 layers + 1). PRECISION_CONDITION (8, three bits, set before any
 * run) allows for the cancellation of |terms| into the group-max scale the
 * error is measured against, which float32 cannot resolve below u |terms|:
 * the gradients are means of signed terms. The bound is a worst case
 * (k u, not the sqrt(k) u of random rounding), so it sits far above the
 * measured errors; a wrong term or index shows as O(1). */
#define PRECISION_CONDITION 8.0

/* SKI-TNO's float32 growth factors (skit/tno.h), the larger of the
 * products' (forward and dx) and A's gradient's, with the plan's r and m as
 * the model clamps them and N < 4r (A's FFT length, a good length below
 * 2 (2r - 1)); 0 for the other mixers. */
static double ski_growth(const train_config *c)
{
    if (c->mixer != TRAIN_MIXER_SKI || c->n < 2) return 0;
    const double n = (double)c->n, r = fmin((double)c->tno.rank, n), m = fmin((double)c->tno.taps, 2 * n - 1);
    const double h = (n - 1) / (r - 1), lg = log2(8.0 * r);
    return fmax(20 * lg + 2 * r + 2 * h + m + 12, 30 * lg + (double)c->batch + 2 * h + 6);
}

/* k u, k the longest float32 sum of the model */
static double longest_sum(const train_config *c)
{
    double longest = (double)(c->batch * c->n);
    double widths[] = {(double)c->d, (double)(c->expand * c->d), (double)c->glu_hidden, (double)c->vocab,
                       20 * log2(8.0 * (double)c->n) + (double)c->tno.rpe_width + 1, ski_growth(c)};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) longest = fmax(longest, widths[i]);
    return longest * ldexp(1.0, -24);
}

double train_precision_tolerance(const train_config *c)
{
    return PRECISION_CONDITION * 2 * (2 * (double)c->layers + 1) * longest_sum(c);
}

int train_precision_check(train_model *m32, train_model *m64, const int *in, const int *tg, const double *w,
                          double *loss_error, double *worst, int *same_selection)
{
    size_t P = train_model_parameter_count(m32);
    memcpy(train_model_parameters(m64), train_model_parameters(m32), P * sizeof(double));
    double loss32 = 0, loss64 = 0;
    int status = loss_at(m32, in, tg, w, &loss32);
    if (!status) status = loss_at(m64, in, tg, w, &loss64);
    if (!status) status = train_model_backward(m32);
    if (!status) status = train_model_backward(m64);
    if (status) return status;
    size_t c32 = 0, c64 = 0;
    const unsigned char *r32 = train_model_mra_refined(m32, &c32), *r64 = train_model_mra_refined(m64, &c64);
    *same_selection = c32 == c64 && (!c32 || !memcmp(r32, r64, c32));
    *loss_error = fabs(loss32 - loss64) / fabs(loss64);
    const double *g32 = train_model_gradients(m32), *g64 = train_model_gradients(m64);
    /* A group whose gradient lies below float32's resolution, k u of the
     * model's largest gradient (k the longest sum, as in the bound), is
     * compared against that resolution in absolute terms. Seen: attention's
     * wq, wk at 1e-21 under saturated softmax rows (P = 1 - 1e-12 is 1 in
     * float32), against float32's 1e-12, which no saturation makes smaller. */
    double largest = 0;
    for (size_t i = 0; i < P; i++) largest = fmax(largest, fabs(g64[i]));
    double resolution = longest_sum(train_model_config(m32)) * largest;
    for (size_t g = 0; g < train_model_group_count(m32); g++) {
        const train_group *gr = train_model_group(m32, g);
        double scale = resolution, error = 0;
        for (size_t i = gr->offset; i < gr->offset + gr->rows * gr->cols; i++) {
            scale = fmax(scale, fabs(g64[i]));
            error = fmax(error, fabs(g32[i] - g64[i]));
        }
        worst[g] = error / fmax(scale, 1e-300);
    }
    return SKIT_OK;
}
