/* model.h — the small TNN-style language model `skit train` trains, in the
 * manner of llm.c: every layer a *_forward / *_backward pair (model.c),
 * parameters, their gradients, the activations and the backward scratch in
 * four flat arenas allocated once by train_model_create.
 *
 * Architecture (TNN §3, float64):
 *   x = E[token] (+ P[position] for attention     embedding, vocab x d
 *                 with learned positions)
 *   repeat layers times:
 *     x = x + GTU(norm(x))    u = silu(W_u h), v = silu(W_v h),
 *                             out = W_o (u * mixer(v))    (e = expand * d)
 *     x = x + GLU(norm(x))    out = W_3 (silu(W_1 h) * (W_2 h))   (hidden g;
 *                             g = 0: no GLU, norm or parameters: "GTU only")
 *   logits = head(norm(x))    head = E (tied) or its own out_vocab x d
 * norm: RMS (x / sqrt(mean x^2 + eps)) or LayerNorm ((x - mean) / sqrt(var +
 * eps)), eps = 1e-5 (NORM_EPS, model.c), both without affine parameters; no
 * biases in the linear layers. Mixers: TNO, FD-TNO, SKI-TNO (skit_tno plans
 * with their library backward), softmax attention with `heads` heads, q = W_q
 * v, k = W_k v (dense n x n, causal by masking), MRA-2 (the library's plan
 * forward, skit_mra2_backward with its selection held fixed; the causal forms
 * for the causal objective), or a Toeplitz operator whose coefficients are
 * the parameters themselves ("TNN w/o RPE": layerL.coeffs, lags x e, the
 * lags -(n-1)..n-1 or, causal, 0..n-1, applied by skit_toeplitz plans;
 * float64, at the training length only). Loss: cross-entropy averaged over the positions
 * with weight 1. Tokens are rows of (batch * n) x d row-major activations,
 * the (B, N, D) layout of PyTorch and of SKIT_TNO_ROWS. The layers run in
 * float64 or (precision f32: tno, fd, ski, attention) float32: model_real.h holds them
 * once for both. */
#ifndef SKIT_TRAIN_MODEL_H
#define SKIT_TRAIN_MODEL_H

#include <stddef.h>

#include "skit.h"

typedef enum train_mixer {
    TRAIN_MIXER_TNO = 0,
    TRAIN_MIXER_FD,
    TRAIN_MIXER_SKI,
    TRAIN_MIXER_ATTENTION,
    TRAIN_MIXER_MRA,
    TRAIN_MIXER_TOEPLITZ,
    TRAIN_MIXER_MRA2S /* MRA-2-s: MRA-2's finest level alone (no coarse term) */
} train_mixer;

extern const char *const train_mixer_names[]; /* "tno", "fd", "ski", "attention", "mra", "toeplitz", "mra2s", NULL */

/* MRA-2 or MRA-2-s: the same model and plan calls, the plan's method apart */
static inline int train_mixer_is_mra(train_mixer mixer)
{
    return mixer == TRAIN_MIXER_MRA || mixer == TRAIN_MIXER_MRA2S;
}

/* How attention (and MRA-2) learns token order: rotary q, k (RoFormer),
 * learned absolute positions added to the embedding (n x d), or ALiBi
 * (Press et al. 2022): head h's scores get -m_h |i - j| before the
 * softmax, m_h = 2^(-8 (h+1) / H), no parameters (attention only). */
typedef enum train_positions {
    TRAIN_POSITIONS_ROPE = 0,
    TRAIN_POSITIONS_LEARNED,
    TRAIN_POSITIONS_ALIBI
} train_positions;

extern const char *const train_positions_names[]; /* "rope", "learned", "alibi", NULL */

typedef struct train_config {
    size_t vocab;     /* embedding rows (the masked-LM mask token included) */
    size_t out_vocab; /* classes the head predicts (<= vocab) */
    size_t n, batch;  /* sequence length and sequences per step */
    size_t d, expand, glu_hidden, layers; /* glu_hidden 0: blocks without the GLU */
    train_mixer mixer;
    int causal;
    skit_norm norm; /* SKIT_NORM_RMS or SKIT_NORM_LAYER */
    int tied;       /* head = embedding's first out_vocab rows */
    skit_tno_options tno; /* tno, fd, ski: RPE width/layers, activation, decay, ...; seed per layer added */
    size_t rpe_scale;     /* tno, fd: > 1: the RPE MLP sees t / rpe_scale instead of t (TNN's
                             (-(n-1), ..., n-1) / n input, rpe_scale = the training n at every
                             length; fd: the frequency); the parameters hold theta, the plans get
                             the first Linear's weights theta / rpe_scale (model.c rpe_sync) */
    size_t heads;         /* attention: heads of width expand * d / heads (1: one head) */
    train_positions positions; /* attention, mra (not alibi): how token order enters */
    int learn_decay;      /* tno: each block's decay lambda = sigmoid(theta) is a parameter
                             (group layerL.decay_logit, 1 x 1, theta = logit(tno.decay) at start) */
    skit_precision precision; /* SKIT_PRECISION_F32 (tno, fd, ski, attention): activations, gradients and the
                                 float copies of the parameters in float, GEMMs by sgemm, the
                                 mixers on float32 plans; parameters, AdamW and the mixers'
                                 RPE gradients stay float64 (mixed precision) */
    uint64_t seed;
} train_config;

/* One named parameter group: a matrix rows x cols (row-major) or, for the
 * mixer of a skit_tno plan, its flat vector (cols = 1). */
typedef struct train_group {
    char name[48];
    size_t offset, rows, cols;
    int decayed; /* AdamW weight decay applies (matrices, not mixers) */
} train_group;

typedef struct train_model train_model;

/* Build the model, its arenas and plans; parameters from config->seed.
 * Returns 0, or prints nothing and returns a library status / -1 (no
 * backward for the mixer: SKIT_EUNSUPPORTED, with *why set). */
int train_model_create(train_model **model, const train_config *config, const char **why);
void train_model_destroy(train_model *model);

const train_config *train_model_config(const train_model *model);
size_t train_model_parameter_count(const train_model *model);
double *train_model_parameters(train_model *model);  /* the flat parameter arena */
double *train_model_gradients(train_model *model);   /* same layout */
size_t train_model_group_count(const train_model *model);
const train_group *train_model_group(const train_model *model, size_t i);
/* Bytes of the arenas and plans, allocated once at create. */
size_t train_model_bytes(const train_model *model);

/* Push the parameter arena into the mixer plans (after an update or a
 * load). Returns a library status (SKIT_ENONFINITE: parameters blew up). */
int train_model_sync(train_model *model);

/* Forward pass on batch * n inputs (token ids < vocab); with targets
 * (< out_vocab) and weights (0 or 1), *loss gets the mean cross-entropy
 * over the weighted positions and *count their number. Keeps what the
 * backward needs. Returns a library status. */
int train_model_forward(train_model *model, const int *inputs, const int *targets,
                        const double *weights, double *loss, double *count);
/* Gradients of the last forward's loss into the gradient arena
 * (overwritten). Returns a library status. */
int train_model_backward(train_model *model);

/* The skit tno plan options of the mixers (tno, fd, ski), for checkpoints. */
const skit_tno_options *train_model_mixer_options(const train_model *model);
/* Block layer's decay lambda (the learned one with learn_decay). */
double train_model_decay(const train_model *model, size_t layer);
/* MRA-2: the squares the last forward refined, every block's and
 * sequence's ((n/block)^2 bytes each; *count bytes in all); NULL for the
 * other mixers. */
const unsigned char *train_model_mra_refined(const train_model *model, size_t *count);

#endif
