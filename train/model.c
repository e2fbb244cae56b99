/* model.c — forward and backward of the model in model.h, layer by layer,
 * each *_forward beside its *_backward. No allocation after create. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

const char *const train_mixer_names[] = {"tno", "fd", "ski", "attention", "mra", "toeplitz", "mra2s", NULL};
const char *const train_positions_names[] = {"rope", "learned", "alibi", NULL};

#define NORM_EPS 1e-5

/* What one block keeps for its backward (pointers into the activation
 * arena), in double (block_acts) or float (block_acts_f32). */
#define BLOCK_ACTS(REAL)                                                                   \
    REAL *n1, *rstd1;                /* GTU input norm: R x d, R */                        \
    REAL *up, *u, *vp, *v, *mix, *g; /* R x e each */                                      \
    REAL *q, *k, *p;                 /* attention: R x e, R x e, batch x n x n */          \
    REAL *qc, *kc, *vc, *yc;         /* MRA-2: q, k, v, y per sequence column-major */     \
    REAL *n2, *rstd2;                /* GLU input norm */                                  \
    REAL *ap, *a, *b, *gl;           /* R x h each */
typedef struct block_acts { BLOCK_ACTS(double) } block_acts;
typedef struct block_acts_f32 { BLOCK_ACTS(float) } block_acts_f32;

/* Offsets of one block's parameter groups in the parameter arena. */
typedef struct block_params {
    size_t wu, wv, wo, mixer, decay, wq, wk, w1, w2, w3;
    size_t mixer_count;
} block_params;

struct train_model {
    train_config c;
    size_t R, e, h;                /* rows = batch * n, GTU width, GLU width */
    size_t nparams, ngroups;
    train_group groups[16 * 64 + 4];
    unsigned char master_only[16 * 64 + 4]; /* groups whose gradient is float64 in both precisions */
    size_t embedding, head;        /* offsets; head = embedding when tied */
    size_t position;               /* attention: learned positions, n x d */
    double *rope;                  /* attention with rope: cos, sin of position x frequency, n x e/2 each */
    block_params *bp;
    skit_tno_plan **plans;         /* one per block (tno, fd, ski) */
    skit_toeplitz_plan **toeplitz; /* one per block (toeplitz) */
    double *coeffs, *dcoeffs;      /* toeplitz: one block's coefficients in the plan's layout (2n-1
                                      per channel, channel by channel) and their gradient */
    skit_tno_options mixer_options;
    double *rpe_params;            /* rpe_scale: one block's plan parameters (theta rescaled) */
    skit_attention_plan *mra;      /* MRA-2 (one plan, of the model's precision, serves every
                                      block and sequence) */
    skit_attention_options mra_options;
    size_t mra_squares;            /* (n/block)^2 */
    unsigned char *refined;        /* its refined squares, per block and sequence */
    double *params, *grads;        /* arenas: parameters and their gradients (f32: the master
                                      copies AdamW updates, gradients widened from float) */
    double *acts;                  /* arena: activations (f64) */
    double *scratch;               /* arena: backward scratch (f64) */
    void *mixer_work;              /* skit_tno workspace (execute and backward) */
    block_acts *ba;
    double *x, *nf, *rstdf, *logits; /* residual stream, final norm, logits */
    /* precision f32: the same in float (params_f32 narrowed at every sync) */
    float *params_f32, *grads_f32, *acts_f32, *scratch_f32;
    block_acts_f32 *ba_f32;
    float *x_f32, *nf_f32, *rstdf_f32, *logits_f32;
    int *inputs, *targets;
    double *weights, count;
    size_t bytes;
};

/* Mixers whose softmax sees no token order: they get W_q, W_k and positions. */
static int softmax_mixer(const train_config *c)
{
    return c->mixer == TRAIN_MIXER_ATTENTION || train_mixer_is_mra(c->mixer);
}

/* Mixers of a skit_tno plan: a flat parameter vector the plan generates. */
static int tno_mixer(const train_config *c) { return c->mixer <= TRAIN_MIXER_SKI; }

static int learned_positions(const train_config *c)
{
    return softmax_mixer(c) && c->positions == TRAIN_POSITIONS_LEARNED;
}

static int rotary_positions(const train_config *c) { return softmax_mixer(c) && c->positions == TRAIN_POSITIONS_ROPE; }

/* The token mixer inside the GTU (model_real.h calls it): v -> mix, and
 * its backward dmix -> dv with the mixer's parameter gradients: a plan's
 * (tno, fd, ski) into the float64 gradient arena in both precisions (the
 * plans' parameters are float64), attention's wq, wk into the arena of the
 * model's precision; s: R x e scratch, s[0] and s[4..6] free; dP: n x n. */
static int mixer_forward(train_model *m, size_t l, block_acts *a);
static int mixer_backward(train_model *m, size_t l, const block_acts *a, const double *dmix, double *dv,
                          double **s, double *dP);
static int mixer_forward_f32(train_model *m, size_t l, block_acts_f32 *a);
static int mixer_backward_f32(train_model *m, size_t l, const block_acts_f32 *a, const float *dmix, float *dv,
                              float **s, float *dP);

/* MRA-2's library calls, in each precision (below) */
static int mra_apply(train_model *m, size_t l, size_t b, const double *q, const double *k, const double *v,
                     double *y);
static int mra_apply_f32(train_model *m, size_t l, size_t b, const float *q, const float *k, const float *v,
                         float *y);
static int mra_gradients(train_model *m, size_t l, size_t b, const double *q, const double *k, const double *v,
                         const double *dy, double *dq, double *dk, double *dv);
static int mra_gradients_f32(train_model *m, size_t l, size_t b, const float *q, const float *k, const float *v,
                             const float *dy, float *dq, float *dk, float *dv);

/* Width of one attention head (heads divide e). */
static size_t head_width(const train_model *m) { return m->e / m->c.heads; }

/* ALiBi's slope of head h of H: the geometric sequence 2^(-8/H), 2^(-16/H),
 * ..., 2^(-8) of Press et al. (2022), by the same formula when H is not a
 * power of two (the paper then interleaves two such sequences instead). */
static double alibi_slope(const train_model *m, size_t head)
{
    return m->c.positions == TRAIN_POSITIONS_ALIBI ? exp2(-8.0 * (double)(head + 1) / (double)m->c.heads) : 0;
}

/* ---- the layers in double (plain names) and in float (_f32) ------------- */

#define REAL double
#define SFX(name) name
#define GEMM cblas_dgemm
#define AXPY cblas_daxpy
#define R_EXP exp
#include "model_real.h"
#undef REAL
#undef SFX
#undef GEMM
#undef AXPY
#undef R_EXP

#define REAL float
#define SFX(name) name##_f32
#define GEMM cblas_sgemm
#define AXPY cblas_saxpy
#define R_EXP expf
#include "model_real.h"
#undef REAL
#undef SFX
#undef GEMM
#undef AXPY
#undef R_EXP

/* ---- rotary positions (RoFormer, Su et al. 2021): channel pairs (2c, 2c+1)
 * of q and k at position i turned by the angle i 10000^(-2c/e), so that
 * q_i . k_j depends on i - j: "attend to the token t back" is one pattern
 * for every position, where learned absolute positions must learn it n times. */

/* per head of width w: pairs c < w/2 at the angle i 10000^(-2c/w) */
static void rope_tables(train_model *m)
{
    size_t n = m->c.n, w = head_width(m), half = w / 2;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < half; c++) {
            double angle = (double)i * pow(10000.0, -2.0 * (double)c / (double)w);
            m->rope[i * half + c] = cos(angle);
            m->rope[(n + i) * half + c] = sin(angle);
        }
}

/* ---- MRA-2 mixer (model_real.h): the plan's calls in each precision: the
 * execute, then the squares it refined (the plan's selection on the same
 * q, k), which the backward holds fixed. */

static unsigned char *mra_refined(train_model *m, size_t l, size_t b)
{
    return m->refined + (l * m->c.batch + b) * m->mra_squares;
}

static int mra_apply(train_model *m, size_t l, size_t b, const double *q, const double *k, const double *v,
                     double *y)
{
    size_t n = m->c.n;
    int status = skit_attention_plan_execute(m->mra, q, n, k, n, v, n, NULL, y, n, NULL);
    return status ? status : skit_attention_plan_select(m->mra, q, n, k, n, NULL, mra_refined(m, l, b));
}

static int mra_apply_f32(train_model *m, size_t l, size_t b, const float *q, const float *k, const float *v,
                         float *y)
{
    size_t n = m->c.n;
    int status = skit_attention_plan_execute_f32(m->mra, q, n, k, n, v, n, NULL, y, n, NULL);
    return status ? status : skit_attention_plan_select_f32(m->mra, q, n, k, n, NULL, mra_refined(m, l, b));
}

static int mra_gradients(train_model *m, size_t l, size_t b, const double *q, const double *k, const double *v,
                         const double *dy, double *dq, double *dk, double *dv)
{
    size_t n = m->c.n;
    return skit_attention_plan_backward(m->mra, q, n, k, n, v, n, NULL, mra_refined(m, l, b), dy, n, dq, n, dk, n,
                                        dv, n);
}

static int mra_gradients_f32(train_model *m, size_t l, size_t b, const float *q, const float *k, const float *v,
                             const float *dy, float *dq, float *dk, float *dv)
{
    size_t n = m->c.n;
    return skit_attention_plan_backward_f32(m->mra, q, n, k, n, v, n, NULL, mra_refined(m, l, b), dy, n, dq, n, dk,
                                            n, dv, n);
}

/* ---- Toeplitz mixer ("TNN w/o RPE"): channel c of each sequence times
 * T_c(i, j) = t_c(i - j), the coefficients the parameters themselves. The
 * group layerL.coeffs holds them lags x e (row k: lag k - (n-1), or k when
 * causal, whose plan ignores the negative lags); the plan takes each
 * channel's 2n-1 lags -(n-1)..n-1 contiguously (lib/skit/toeplitz.h). */

static size_t toeplitz_lags(const train_config *c) { return c->causal ? c->n : 2 * c->n - 1; }

/* the plan's index of the group's row k */
static size_t toeplitz_lag_index(const train_model *m, size_t k) { return m->c.causal ? k + m->c.n - 1 : k; }

/* Normal with standard deviation 1/sqrt(n): an output sums at most n
 * products t x, so its variance at init is at most its input's, the
 * fan-in scaling init_linear gives the linear layers. At the defaults (n =
 * 64, e = 32, causal) the channels' operator 2-norms at init have median
 * 1.6 (1.3 to 2.6), the TNO's 9 (0.6 to 34: its RPE, at the raw lag,
 * grows with it): the same order, without the TNO's spread. */
static void init_toeplitz(skit_rng *rng, double *t, size_t count, size_t n)
{
    for (size_t i = 0; i < count; i++) t[i] = skit_rng_normal(rng) / sqrt((double)n);
}

static int toeplitz_sync(train_model *m)
{
    size_t n = m->c.n, e = m->e, full = 2 * n - 1, lags = toeplitz_lags(&m->c);
    for (size_t l = 0; l < m->c.layers; l++) {
        const double *t = m->params + m->bp[l].mixer;
        for (size_t k = 0; k < lags; k++)
            for (size_t c = 0; c < e; c++) m->coeffs[c * full + toeplitz_lag_index(m, k)] = t[k * e + c];
        int status = skit_toeplitz_plan_set_coeffs(m->toeplitz[l], m->coeffs);
        if (status) return status;
    }
    return SKIT_OK;
}

static int toeplitz_forward(train_model *m, size_t l, block_acts *a)
{
    size_t n = m->c.n, e = m->e;
    for (size_t b = 0; b < m->c.batch; b++) {
        int status = skit_toeplitz_plan_execute(m->toeplitz[l], a->v + b * n * e, e, a->mix + b * n * e, e,
                                                m->mixer_work);
        if (status) return status;
    }
    return SKIT_OK;
}

/* dv = T^T dmix per sequence; the coefficients' gradient summed over the
 * batch into the group's rows */
static int toeplitz_backward(train_model *m, size_t l, const block_acts *a, const double *dmix, double *dv)
{
    size_t n = m->c.n, e = m->e, full = 2 * n - 1, lags = toeplitz_lags(&m->c);
    double *g = m->grads + m->bp[l].mixer;
    for (size_t b = 0; b < m->c.batch; b++) {
        size_t o = b * n * e;
        int status = skit_toeplitz_plan_backward(m->toeplitz[l], a->v + o, e, dmix + o, e, dv + o, e, m->dcoeffs,
                                                 m->mixer_work);
        if (status) return status;
        for (size_t k = 0; k < lags; k++)
            for (size_t c = 0; c < e; c++) g[k * e + c] += m->dcoeffs[c * full + toeplitz_lag_index(m, k)];
    }
    return SKIT_OK;
}

/* One plan per block (zero coefficients until toeplitz_sync), rows layout;
 * one workspace for execute and backward. */
static int create_toeplitz(train_model *m)
{
    size_t n = m->c.n, e = m->e, full = 2 * n - 1;
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    o.causality = m->c.causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    o.layout = SKIT_LAYOUT_ROWS;
    m->coeffs = skit_calloc(full * e, sizeof(double));
    m->dcoeffs = skit_calloc(full * e, sizeof(double));
    if (!m->coeffs || !m->dcoeffs) return SKIT_ENOMEM;
    for (size_t l = 0; l < m->c.layers; l++) {
        int status = skit_toeplitz_plan_create(&m->toeplitz[l], n, n, e, &o, m->coeffs);
        if (status) return status;
        m->bytes += skit_toeplitz_plan_bytes(m->toeplitz[l]);
    }
    size_t work = skit_toeplitz_plan_workspace_bytes(m->toeplitz[0]);
    size_t bwork = skit_toeplitz_plan_backward_workspace_bytes(m->toeplitz[0]);
    m->mixer_work = skit_malloc(work > bwork ? work : bwork, 1);
    if (!m->mixer_work) return SKIT_ENOMEM;
    m->bytes += (work > bwork ? work : bwork) + 2 * full * e * sizeof(double);
    return SKIT_OK;
}

/* ---- scaled RPE input (rpe_scale > 1): the library's RPE evaluates its MLP
 * at the integer lag t (fd: the frequency), h_1 = w1 t + b1 first. The
 * parameter arena holds theta, the plan gets w1 = theta / s (biases and
 * later layers as they are), so h_1 = theta (t / s) + b1: the plan's
 * MLP(t) is the MLP with weights theta at t / s, the same function in
 * exact arithmetic (in floating point w1 is theta / s rounded once: exact
 * for s a power of two). By the chain rule d theta = d w1 / s. The first
 * Linear(1, width) layer's weights are the first rpe_width entries of the
 * plan's vector (skit/tno.h, skit/mlp.h: each layer's weight, then bias). */

static int rpe_scaled(const train_model *m) { return m->c.rpe_scale > 1 && tno_mixer(&m->c); }

/* the plan's parameters of block l: the arena's, theta rescaled */
static const double *rpe_plan_parameters(train_model *m, size_t l)
{
    const double *theta = m->params + m->bp[l].mixer;
    if (!rpe_scaled(m)) return theta;
    memcpy(m->rpe_params, theta, m->bp[l].mixer_count * sizeof(double));
    for (size_t i = 0; i < m->c.tno.rpe_width; i++) m->rpe_params[i] = theta[i] / (double)m->c.rpe_scale;
    return m->rpe_params;
}

/* the plan's gradient (d w1) -> the arena's (d theta), in place */
static void rpe_gradient(train_model *m, size_t l)
{
    double *g = m->grads + m->bp[l].mixer;
    for (size_t i = 0; rpe_scaled(m) && i < m->c.tno.rpe_width; i++) g[i] /= (double)m->c.rpe_scale;
}

/* ---- the mixers ---------------------------------------------------------- */

/* lambda = sigmoid(theta): dlambda/dtheta = lambda (1 - lambda) */
static void decay_gradient(train_model *m, size_t l, double dlambda)
{
    if (!m->c.learn_decay) return;
    double lambda = sigmoid(m->params[m->bp[l].decay]);
    m->grads[m->bp[l].decay] = dlambda * lambda * (1 - lambda);
}

static int mixer_forward(train_model *m, size_t l, block_acts *a)
{
    if (m->c.mixer == TRAIN_MIXER_ATTENTION) {
        attention_forward(m, &m->bp[l], a);
        return SKIT_OK;
    }
    if (train_mixer_is_mra(m->c.mixer)) return mra_forward(m, l, &m->bp[l], a);
    if (m->c.mixer == TRAIN_MIXER_TOEPLITZ) return toeplitz_forward(m, l, a);
    return skit_tno_plan_execute(m->plans[l], a->v, a->mix, m->mixer_work);
}

static int mixer_backward(train_model *m, size_t l, const block_acts *a, const double *dmix, double *dv,
                          double **s, double *dP)
{
    const block_params *bp = &m->bp[l];
    if (m->c.mixer == TRAIN_MIXER_ATTENTION) {
        attention_backward(m, bp, a, dmix, dv, s[0], s[4], dP);
        return SKIT_OK;
    }
    if (train_mixer_is_mra(m->c.mixer)) return mra_backward(m, l, bp, a, dmix, dv, s[0], s[4], s[5], s[6]);
    if (m->c.mixer == TRAIN_MIXER_TOEPLITZ) return toeplitz_backward(m, l, a, dmix, dv);
    double dlambda = 0;
    int status = skit_tno_plan_backward(m->plans[l], a->v, dmix, dv, m->grads + bp->mixer,
                                        m->c.learn_decay ? &dlambda : NULL, m->mixer_work);
    if (!status) decay_gradient(m, l, dlambda), rpe_gradient(m, l);
    return status;
}

/* float32: attention, MRA-2 and the library's float32 TNO, FD-TNO and SKI-TNO plans */
static int mixer_forward_f32(train_model *m, size_t l, block_acts_f32 *a)
{
    if (m->c.mixer == TRAIN_MIXER_ATTENTION) {
        attention_forward_f32(m, &m->bp[l], a);
        return SKIT_OK;
    }
    if (train_mixer_is_mra(m->c.mixer)) return mra_forward_f32(m, l, &m->bp[l], a);
    return skit_tno_plan_execute_f32(m->plans[l], a->v, a->mix, m->mixer_work);
}

static int mixer_backward_f32(train_model *m, size_t l, const block_acts_f32 *a, const float *dmix, float *dv,
                              float **s, float *dP)
{
    if (m->c.mixer == TRAIN_MIXER_ATTENTION) {
        attention_backward_f32(m, &m->bp[l], a, dmix, dv, s[0], s[4], dP);
        return SKIT_OK;
    }
    if (train_mixer_is_mra(m->c.mixer)) return mra_backward_f32(m, l, &m->bp[l], a, dmix, dv, s[0], s[4], s[5], s[6]);
    double dlambda = 0;
    int status = skit_tno_plan_backward_f32(m->plans[l], a->v, dmix, dv, m->grads + m->bp[l].mixer,
                                            m->c.learn_decay ? &dlambda : NULL, m->mixer_work);
    if (!status) decay_gradient(m, l, dlambda), rpe_gradient(m, l);
    return status;
}

/* ---- the whole model ----------------------------------------------------- */

static int single_precision(const train_model *m) { return m->c.precision == SKIT_PRECISION_F32; }

int train_model_forward(train_model *m, const int *inputs, const int *targets, const double *weights,
                        double *loss, double *count)
{
    double total = 0;
    int status = single_precision(m) ? model_forward_f32(m, inputs, targets, weights, &total)
                                     : model_forward(m, inputs, targets, weights, &total);
    if (status) return status;
    m->inputs = (int *)inputs;
    m->targets = (int *)targets;
    m->weights = (double *)weights;
    m->count = 0;
    for (size_t r = 0; r < m->R; r++) m->count += weights[r];
    if (count) *count = m->count;
    if (loss) *loss = m->count > 0 ? total / m->count : 0;
    return SKIT_OK;
}

/* float32 gradients into the float64 arena the optimiser reads, but for the
 * mixers' (and decays'): their backward wrote them there in float64 */
static void widen_gradients(train_model *m)
{
    for (size_t g = 0; g < m->ngroups; g++) {
        const train_group *gr = &m->groups[g];
        if (m->master_only[g]) continue;
        for (size_t i = gr->offset; i < gr->offset + gr->rows * gr->cols; i++) m->grads[i] = m->grads_f32[i];
    }
}

int train_model_backward(train_model *m)
{
    if (!single_precision(m)) return model_backward(m);
    memset(m->grads, 0, m->nparams * sizeof(double));
    int status = model_backward_f32(m);
    if (!status) widen_gradients(m);
    return status;
}

/* float32: the float copies of the parameters the forward and backward read */
static void narrow_parameters(train_model *m)
{
    if (single_precision(m))
        for (size_t i = 0; i < m->nparams; i++) m->params_f32[i] = (float)m->params[i];
}

int train_model_sync(train_model *m)
{
    if (m->c.mixer == TRAIN_MIXER_TOEPLITZ) return toeplitz_sync(m);
    for (size_t l = 0; l < m->c.layers && tno_mixer(&m->c); l++) {
        int status = skit_tno_plan_set_parameters(m->plans[l], rpe_plan_parameters(m, l), m->bp[l].mixer_count);
        if (!status && m->c.learn_decay) status = skit_tno_plan_set_decay(m->plans[l], train_model_decay(m, l));
        if (status) return status;
    }
    narrow_parameters(m);
    return SKIT_OK;
}

/* ---- creation: parameter groups, arenas, plans --------------------------- */

static size_t add_group(train_model *m, const char *name, size_t rows, size_t cols, int decayed)
{
    train_group *g = &m->groups[m->ngroups++];
    snprintf(g->name, sizeof g->name, "%s", name);
    g->offset = m->nparams;
    g->rows = rows;
    g->cols = cols;
    g->decayed = decayed;
    m->nparams += rows * cols;
    return g->offset;
}

/* PyTorch's default Linear initialisation, uniform on +-1/sqrt(fan_in). */
static void init_linear(skit_rng *rng, double *w, size_t out, size_t in)
{
    double bound = 1.0 / sqrt((double)in);
    skit_rng_fill_uniform(rng, w, out * in, -bound, bound);
}

/* SKI-TNO: at most n inducing points and 2n - 1 taps (short sequences). */
static void clamp_ski(skit_tno_options *o, size_t n)
{
    if (o->rank > n) o->rank = n;
    if (o->taps > 2 * n - 1) o->taps = 2 * n - 1;
}

/* MRA-2 (or MRA-2-s: the refined squares alone) with blocks of 8 tokens
 * (4 when n is not a multiple of 8), half of each row's blocks refined
 * (one global top-k, the paper's default rule). */
static int create_mra(train_model *m, const char **why)
{
    size_t n = m->c.n, e = m->e;
    skit_attention_options *o = &m->mra_options;
    skit_attention_options_init(o, m->c.mixer == TRAIN_MIXER_MRA2S ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2);
    o->block = n % 8 == 0 ? 8 : 4;
    o->blocks_per_row[0] = n / o->block / 2 ? n / o->block / 2 : 1;
    o->scale = 1.0 / sqrt((double)e);
    o->causal = m->c.causal; /* diagonal squares refined first, none after them */
    m->mra_squares = (n / o->block) * (n / o->block);
    m->refined = skit_calloc(m->c.layers * m->c.batch, m->mra_squares);
    if (!m->refined) return SKIT_ENOMEM;
    m->bytes += m->c.layers * m->c.batch * m->mra_squares;
    (void)why;
    o->precision = single_precision(m) ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
    int status = skit_attention_plan_create(&m->mra, n, e, e, o);
    if (status) return status;
    m->bytes += skit_attention_plan_bytes(m->mra);
    return SKIT_OK;
}

static int create_plans(train_model *m, const char **why)
{
    static const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI};
    m->mixer_options = m->c.tno;
    m->mixer_options.kind = kinds[m->c.mixer];
    m->mixer_options.causality = m->c.causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    m->mixer_options.layout = SKIT_TNO_ROWS;
    m->mixer_options.precision = m->c.precision;
    clamp_ski(&m->mixer_options, m->c.n);
    for (size_t l = 0; l < m->c.layers; l++) {
        skit_tno_options o = m->mixer_options;
        o.seed = m->c.seed * 1000003u + l + 1;
        int status = skit_tno_plan_create(&m->plans[l], m->c.n, m->e, m->c.batch, &o, NULL, 0);
        if (status) return status;
    }
    size_t work = skit_tno_plan_workspace_bytes(m->plans[0]);
    size_t bwork = skit_tno_plan_backward_workspace_bytes(m->plans[0]);
    m->mixer_work = skit_malloc(work > bwork ? work : bwork, 1);
    if (!m->mixer_work) return SKIT_ENOMEM;
    m->bytes += (work > bwork ? work : bwork) + m->c.layers * skit_tno_plan_bytes(m->plans[0]);
    if (single_precision(m)) return SKIT_OK; /* TNO, FD-TNO and SKI-TNO: each has a float32 backward */
    /* probe the library's backward once: a mixer without one is refused here */
    int status = skit_tno_plan_backward(m->plans[0], m->ba[0].v, m->ba[0].mix, NULL, NULL, NULL, m->mixer_work);
    if (status == SKIT_EUNSUPPORTED) {
        *why = "the library has no backward for this mixer yet";
        return SKIT_EUNSUPPORTED;
    }
    return status;
}

static void lay_out_parameters(train_model *m)
{
    const train_config *c = &m->c;
    size_t d = c->d, e = m->e, h = m->h;
    char name[48];
    m->embedding = add_group(m, "embedding", c->vocab, d, 1);
    if (learned_positions(c)) m->position = add_group(m, "position", c->n, d, 1);
    for (size_t l = 0; l < c->layers; l++) {
        block_params *bp = &m->bp[l];
#define GROUP(field, what, rows, cols, decayed)                          \
    snprintf(name, sizeof name, "layer%zu.%s", l, what);                 \
    bp->field = add_group(m, name, rows, cols, decayed)
        GROUP(wu, "gtu.wu", e, d, 1);
        GROUP(wv, "gtu.wv", e, d, 1);
        GROUP(wo, "gtu.wo", d, e, 1);
        if (softmax_mixer(c)) {
            GROUP(wq, "mixer.wq", e, e, 1);
            GROUP(wk, "mixer.wk", e, e, 1);
        } else if (c->mixer == TRAIN_MIXER_TOEPLITZ) {
            GROUP(mixer, "coeffs", toeplitz_lags(c), e, 0);
        } else {
            GROUP(mixer, "mixer", bp->mixer_count, 1, 0);
            m->master_only[m->ngroups - 1] = 1;
            if (c->learn_decay) {
                GROUP(decay, "decay_logit", 1, 1, 0);
                m->master_only[m->ngroups - 1] = 1;
            }
        }
        if (h) { /* --glu 0: no channel mixer */
            GROUP(w1, "glu.w1", h, d, 1);
            GROUP(w2, "glu.w2", h, d, 1);
            GROUP(w3, "glu.w3", d, h, 1);
        }
#undef GROUP
    }
    m->head = c->tied ? m->embedding : add_group(m, "head", c->out_vocab, d, 1);
}

static void init_parameters(train_model *m)
{
    skit_rng rng;
    skit_rng_seed(&rng, m->c.seed);
    for (size_t i = 0; i < m->ngroups; i++) {
        const train_group *g = &m->groups[i];
        double *w = m->params + g->offset;
        if (!strcmp(g->name, "embedding") || !strcmp(g->name, "position"))
            for (size_t j = 0; j < g->rows * g->cols; j++) w[j] = skit_rng_normal(&rng) / sqrt((double)g->cols);
        else if (strstr(g->name, ".mixer") && g->cols == 1)
            ; /* the plan's own seeded initialisation, copied below */
        else if (strstr(g->name, ".coeffs"))
            init_toeplitz(&rng, w, g->rows * g->cols, m->c.n);
        else
            init_linear(&rng, w, g->rows, g->cols);
    }
    if (tno_mixer(&m->c))
        for (size_t l = 0; l < m->c.layers; l++)
            skit_tno_plan_get_parameters(m->plans[l], m->params + m->bp[l].mixer, m->bp[l].mixer_count);
    if (m->c.learn_decay) /* theta = logit(lambda) */
        for (size_t l = 0; l < m->c.layers; l++) m->params[m->bp[l].decay] = log(m->c.tno.decay / (1 - m->c.tno.decay));
}

/* Elements of the activation arena, every array rounded up to pad elements
 * (64 bytes: carve). */
static size_t activation_count(const train_model *m, size_t pad)
{
    size_t R = m->R, d = m->c.d, e = m->e, h = m->h, n = m->c.n;
    size_t per = 2 * (R * d + R + 2 * pad) + 6 * (R * e + pad) + 4 * (R * h + pad);
    if (m->c.mixer == TRAIN_MIXER_ATTENTION) per += 2 * (R * e + pad) + m->c.batch * m->c.heads * n * n + pad;
    if (train_mixer_is_mra(m->c.mixer)) per += 6 * (R * e + pad);
    return m->c.layers * per + 2 * (R * d + pad) + R + pad + R * m->c.out_vocab + pad;
}

/* Activations and scratch in the model's precision; float64 parameters and
 * gradients always (f32: AdamW's master copies), their float copies in f32. */
static int allocate_arenas(train_model *m, size_t scratch)
{
    m->params = skit_calloc(m->nparams, sizeof(double));
    m->grads = skit_calloc(m->nparams, sizeof(double));
    if (!m->params || !m->grads) return SKIT_ENOMEM;
    m->bytes += 2 * m->nparams * sizeof(double);
    if (!single_precision(m)) {
        size_t acts = activation_count(m, 64 / sizeof(double));
        m->acts = skit_calloc(acts, sizeof(double));
        m->scratch = skit_calloc(scratch, sizeof(double));
        if (!m->acts || !m->scratch) return SKIT_ENOMEM;
        m->bytes += (acts + scratch) * sizeof(double);
        carve_activations(m);
        return SKIT_OK;
    }
    size_t acts = activation_count(m, 64 / sizeof(float));
    m->params_f32 = skit_calloc(m->nparams, sizeof(float));
    m->grads_f32 = skit_calloc(m->nparams, sizeof(float));
    m->acts_f32 = skit_calloc(acts, sizeof(float));
    m->scratch_f32 = skit_calloc(scratch, sizeof(float));
    m->ba_f32 = skit_calloc(m->c.layers, sizeof *m->ba_f32);
    if (!m->params_f32 || !m->grads_f32 || !m->acts_f32 || !m->scratch_f32 || !m->ba_f32) return SKIT_ENOMEM;
    m->bytes += (2 * m->nparams + acts + scratch) * sizeof(float);
    carve_activations_f32(m);
    return SKIT_OK;
}

static size_t scratch_count(const train_model *m)
{
    size_t wide = m->e > m->h ? m->e : m->h;
    return 2 * m->R * m->c.d + m->c.n * m->c.n + 7 * m->R * wide;
}

/* Refuse up front (SKIT_ETOOBIG, naming the options) what would not fit:
 * parameters, gradients and AdamW's two moments, activations, scratch. */
static int check_memory(const train_model *m)
{
    size_t element = single_precision(m) ? sizeof(float) : sizeof(double);
    double bytes = 4.0 * (double)m->nparams * sizeof(double) +
                   (double)(activation_count(m, 64 / element) + scratch_count(m)) * (double)element;
    return skit_memory_check(bytes < 0x1p62 ? (size_t)bytes : SIZE_MAX,
                             "the model's parameters, optimiser state and activations (--n, --batch, --d, --layers)");
}

static int allocate(train_model *m)
{
    int status = check_memory(m);
    if (status) return status;
    status = allocate_arenas(m, scratch_count(m));
    if (status) return status;
    size_t rope = rotary_positions(&m->c) ? m->c.n * (head_width(m) / 2) * 2 : 0;
    m->rope = rope ? skit_calloc(rope, sizeof(double)) : NULL;
    if (rope && !m->rope) return SKIT_ENOMEM;
    if (rope) rope_tables(m);
    m->bytes += rope * sizeof(double);
    return SKIT_OK;
}

int train_model_create(train_model **out, const train_config *c, const char **why)
{
    *out = NULL;
    *why = NULL;
    if (train_mixer_is_mra(c->mixer) && (c->n % 4 || c->n < 8)) {
        *why = "MRA-2 needs n a multiple of 4 and >= 8 (blocks of 4 or 8 tokens)";
        return SKIT_EUNSUPPORTED;
    }
    if (c->learn_decay && (c->mixer != TRAIN_MIXER_TNO || !(c->tno.decay > 0 && c->tno.decay < 1))) {
        *why = "a learnable decay needs --mixer tno and an initial --decay in (0, 1)";
        return SKIT_EUNSUPPORTED;
    }
    if (c->positions == TRAIN_POSITIONS_ALIBI && c->mixer != TRAIN_MIXER_ATTENTION) {
        *why = "ALiBi positions need --mixer attention";
        return SKIT_EUNSUPPORTED;
    }
    if (c->rpe_scale > 1 && c->mixer != TRAIN_MIXER_TNO && c->mixer != TRAIN_MIXER_FD) {
        *why = "a scaled RPE input needs --mixer tno or fd";
        return SKIT_EUNSUPPORTED;
    }
    if (c->mixer == TRAIN_MIXER_TOEPLITZ && c->precision == SKIT_PRECISION_F32) {
        *why = "the Toeplitz mixer trains in float64 only (--precision f64)";
        return SKIT_EUNSUPPORTED;
    }
    if (c->heads > 1 && (c->mixer != TRAIN_MIXER_ATTENTION || (c->expand * c->d) % c->heads)) {
        *why = "several heads need --mixer attention and heads dividing the GTU width expand * d";
        return SKIT_EUNSUPPORTED;
    }
    if (c->layers > 64) return SKIT_EDOM;
    train_model *m = skit_calloc(1, sizeof *m);
    if (!m) return SKIT_ENOMEM;
    m->c = *c;
    if (!m->c.heads) m->c.heads = 1;
    m->R = c->batch * c->n;
    m->e = c->expand * c->d;
    m->h = c->glu_hidden;
    m->bp = skit_calloc(c->layers, sizeof *m->bp);
    m->ba = skit_calloc(c->layers, sizeof *m->ba);
    m->plans = skit_calloc(c->layers, sizeof *m->plans);
    m->toeplitz = skit_calloc(c->layers, sizeof *m->toeplitz);
    int status = (m->bp && m->ba && m->plans && m->toeplitz) ? SKIT_OK : SKIT_ENOMEM;
    if (!status && tno_mixer(c)) {
        skit_tno_options o = c->tno;
        o.kind = c->mixer == TRAIN_MIXER_TNO ? SKIT_TNO_FFT : c->mixer == TRAIN_MIXER_FD ? SKIT_TNO_FD : SKIT_TNO_SKI;
        o.causality = c->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        clamp_ski(&o, c->n);
        size_t count = 0;
        status = skit_tno_options_parameter_count(&o, m->e, &count);
        for (size_t l = 0; l < c->layers; l++) m->bp[l].mixer_count = count;
        m->rpe_params = !status && rpe_scaled(m) ? skit_calloc(count, sizeof(double)) : NULL;
        if (rpe_scaled(m) && !m->rpe_params && !status) status = SKIT_ENOMEM;
        m->bytes += m->rpe_params ? count * sizeof(double) : 0;
    }
    if (!status) {
        lay_out_parameters(m);
        status = allocate(m);
    }
    if (!status && train_mixer_is_mra(c->mixer)) status = create_mra(m, why);
    if (!status && tno_mixer(c)) status = create_plans(m, why);
    if (!status && c->mixer == TRAIN_MIXER_TOEPLITZ) status = create_toeplitz(m);
    if (!status) {
        init_parameters(m);
        /* the plans' parameters are the arena's but for toeplitz's layout and a scaled RPE input */
        status = c->mixer == TRAIN_MIXER_TOEPLITZ || rpe_scaled(m) ? train_model_sync(m) : SKIT_OK;
    }
    if (status) {
        train_model_destroy(m);
        return status;
    }
    narrow_parameters(m);
    *out = m;
    return SKIT_OK;
}

void train_model_destroy(train_model *m)
{
    if (!m) return;
    if (m->plans)
        for (size_t l = 0; l < m->c.layers; l++) skit_tno_plan_destroy(m->plans[l]);
    skit_free(m->plans);
    if (m->toeplitz)
        for (size_t l = 0; l < m->c.layers; l++) skit_toeplitz_plan_destroy(m->toeplitz[l]);
    skit_free(m->toeplitz);
    skit_free(m->coeffs);
    skit_free(m->rpe_params);
    skit_free(m->dcoeffs);
    skit_free(m->bp);
    skit_free(m->ba);
    skit_free(m->params);
    skit_free(m->grads);
    skit_free(m->acts);
    skit_free(m->scratch);
    skit_free(m->params_f32);
    skit_free(m->grads_f32);
    skit_free(m->acts_f32);
    skit_free(m->scratch_f32);
    skit_free(m->ba_f32);
    skit_free(m->rope);
    skit_free(m->mixer_work);
    skit_attention_plan_destroy(m->mra);
    skit_free(m->refined);
    skit_free(m);
}

const train_config *train_model_config(const train_model *m) { return &m->c; }
size_t train_model_parameter_count(const train_model *m) { return m->nparams; }
double *train_model_parameters(train_model *m) { return m->params; }
double *train_model_gradients(train_model *m) { return m->grads; }
size_t train_model_group_count(const train_model *m) { return m->ngroups; }
const train_group *train_model_group(const train_model *m, size_t i) { return &m->groups[i]; }
size_t train_model_bytes(const train_model *m) { return m->bytes; }
const skit_tno_options *train_model_mixer_options(const train_model *m) { return &m->mixer_options; }

double train_model_decay(const train_model *m, size_t layer)
{
    return m->c.learn_decay ? sigmoid(m->params[m->bp[layer].decay]) : m->c.tno.decay;
}

const unsigned char *train_model_mra_refined(const train_model *m, size_t *count)
{
    *count = m->refined ? m->c.layers * m->c.batch * m->mra_squares : 0;
    return m->refined;
}
