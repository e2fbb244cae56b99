/* model.c — forward and backward of the model in model.h, layer by layer,
 * each *_forward beside its *_backward. No allocation after create. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

const char *const train_mixer_names[] = {"tno", "fd", "ski", "attention", "mra", NULL};

#define NORM_EPS 1e-5

/* What one block keeps for its backward (pointers into the activation arena). */
typedef struct block_acts {
    double *n1, *rstd1;                 /* GTU input norm: R x d, R */
    double *up, *u, *vp, *v, *mix, *g;  /* R x e each */
    double *q, *k, *p;                  /* attention: R x e, R x e, batch x n x n */
    double *qc, *kc, *vc, *yc;          /* MRA-2: q, k, v, y per sequence column-major, R x e */
    double *n2, *rstd2;                 /* GLU input norm */
    double *ap, *a, *b, *gl;            /* R x h each */
} block_acts;

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
    size_t embedding, head;        /* offsets; head = embedding when tied */
    size_t position;               /* attention: learned positions, n x d */
    double *rope;                  /* attention with rope: cos, sin of position x frequency, n x e/2 each */
    block_params *bp;
    skit_tno_plan **plans;         /* one per block (tno, fd, ski) */
    skit_tno_options mixer_options;
    skit_attention_plan *mra;      /* MRA-2 (one plan serves every block and sequence) */
    size_t mra_block, mra_squares, mra_per_row; /* its block, (n/block)^2, blocks refined per row */
    unsigned char *refined;        /* its refined squares, per block and sequence */
    double *mra_work;              /* skit_mra2_backward's and skit_mra2_select's workspace */
    double *params, *grads;        /* arenas: parameters and their gradients */
    double *acts;                  /* arena: activations */
    double *scratch;               /* arena: backward scratch */
    void *mixer_work;              /* skit_tno workspace (execute and backward) */
    block_acts *ba;
    double *x, *nf, *rstdf, *logits; /* residual stream, final norm, logits */
    int *inputs, *targets;
    double *weights, count;
    size_t bytes;
};

/* Mixers whose softmax sees no token order: they get W_q, W_k and positions. */
static int softmax_mixer(const train_config *c)
{
    return c->mixer == TRAIN_MIXER_ATTENTION || c->mixer == TRAIN_MIXER_MRA;
}

static int learned_positions(const train_config *c) { return softmax_mixer(c) && !c->rope; }

/* ---- small layers ---------------------------------------------------- */

/* y = (x - mean) * rstd per row (mean 0 for RMS), rstd = 1/sqrt(var + eps). */
static void norm_forward(skit_norm kind, size_t rows, size_t d, const double *x, double *y, double *rstd)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * d;
        double mean = 0, var = 0;
        if (kind == SKIT_NORM_LAYER) {
            for (size_t j = 0; j < d; j++) mean += xr[j];
            mean /= (double)d;
        }
        for (size_t j = 0; j < d; j++) var += (xr[j] - mean) * (xr[j] - mean);
        rstd[r] = 1.0 / sqrt(var / (double)d + NORM_EPS);
        for (size_t j = 0; j < d; j++) y[r * d + j] = (xr[j] - mean) * rstd[r];
    }
}

/* dx += rstd (dy - mean(dy) [LayerNorm] - y mean(dy y)) */
static void norm_backward(skit_norm kind, size_t rows, size_t d, const double *y, const double *rstd,
                          const double *dy, double *dx)
{
    for (size_t r = 0; r < rows; r++) {
        const double *yr = y + r * d, *g = dy + r * d;
        double mg = 0, mgy = 0;
        for (size_t j = 0; j < d; j++) {
            mg += g[j];
            mgy += g[j] * yr[j];
        }
        mg = kind == SKIT_NORM_LAYER ? mg / (double)d : 0;
        mgy /= (double)d;
        for (size_t j = 0; j < d; j++) dx[r * d + j] += rstd[r] * (g[j] - mg - yr[j] * mgy);
    }
}

/* Y (rows x out) = X (rows x in) W^T, W out x in row-major (PyTorch Linear). */
static void linear_forward(size_t rows, size_t in, size_t out, const double *X, const double *W, double *Y)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)out, (int)in, 1.0, X, (int)in, W,
                (int)in, 0.0, Y, (int)out);
}

/* dX = beta dX + dY W; dW += dY^T X. */
static void linear_backward(size_t rows, size_t in, size_t out, const double *X, const double *W,
                            const double *dY, double *dX, double beta, double *dW)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)in, (int)out, 1.0, dY, (int)out,
                W, (int)in, beta, dX, (int)in);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)out, (int)in, (int)rows, 1.0, dY, (int)out, X,
                (int)in, 1.0, dW, (int)in);
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static void silu_forward(size_t count, const double *x, double *y)
{
    for (size_t i = 0; i < count; i++) y[i] = x[i] * sigmoid(x[i]);
}

/* dx = dy silu'(x), in place on dy allowed */
static void silu_backward(size_t count, const double *x, const double *dy, double *dx)
{
    for (size_t i = 0; i < count; i++) {
        double s = sigmoid(x[i]);
        dx[i] = dy[i] * s * (1.0 + x[i] * (1.0 - s));
    }
}

/* ---- rotary positions (RoFormer, Su et al. 2021): channel pairs (2c, 2c+1)
 * of q and k at position i turned by the angle i 10000^(-2c/e), so that
 * q_i . k_j depends on i - j: "attend to the token t back" is one pattern
 * for every position, where learned absolute positions must learn it n times. */

/* Width of one attention head (heads divide e). */
static size_t head_width(const train_model *m) { return m->e / m->c.heads; }

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

/* x (R x e rows) turned by +angle (sign 1) or back (sign -1, the transpose:
 * the backward), each head's channels on their own (an odd width's last
 * channel unturned) */
static void rope_apply(const train_model *m, double *x, double sign)
{
    size_t n = m->c.n, e = m->e, w = head_width(m), half = w / 2;
    for (size_t r = 0; r < m->R; r++) {
        const double *cs = m->rope + (r % n) * half, *sn = m->rope + (n + r % n) * half;
        for (size_t h = 0; h < m->c.heads; h++) {
            double *row = x + r * e + h * w;
            for (size_t c = 0; c < half; c++) {
                double a = row[2 * c], b = row[2 * c + 1], s = sign * sn[c];
                row[2 * c] = a * cs[c] - b * s;
                row[2 * c + 1] = a * s + b * cs[c];
            }
        }
    }
}

/* q = v Wq^T, k = v Wk^T, rotated with rope */
static void query_key_forward(train_model *m, const block_params *bp, block_acts *a)
{
    linear_forward(m->R, m->e, m->e, a->v, m->params + bp->wq, a->q);
    linear_forward(m->R, m->e, m->e, a->v, m->params + bp->wk, a->k);
    if (m->c.rope) rope_apply(m, a->q, 1), rope_apply(m, a->k, 1);
}

/* dv += the gradient through q and k, given theirs (dq, dk overwritten) */
static void query_key_backward(train_model *m, const block_params *bp, const block_acts *a, double *dq,
                               double *dk, double *dv)
{
    if (m->c.rope) rope_apply(m, dq, -1), rope_apply(m, dk, -1);
    linear_backward(m->R, m->e, m->e, a->v, m->params + bp->wq, dq, dv, 1.0, m->grads + bp->wq);
    linear_backward(m->R, m->e, m->e, a->v, m->params + bp->wk, dk, dv, 1.0, m->grads + bp->wk);
}

/* ---- attention mixer: per head (channels h w .. (h+1) w - 1 of q, k, v),
 * y = softmax(q k^T / sqrt(w) [causal mask]) v, q = v Wq^T, k = v Wk^T */

static void attention_forward(train_model *m, const block_params *bp, block_acts *a)
{
    size_t n = m->c.n, e = m->e, w = head_width(m), H = m->c.heads;
    double scale = 1.0 / sqrt((double)w);
    query_key_forward(m, bp, a);
    for (size_t bh = 0; bh < m->c.batch * H; bh++) {
        size_t o = (bh / H) * n * e + (bh % H) * w;
        double *P = a->p + bh * n * n;
        const double *q = a->q + o, *k = a->k + o, *v = a->v + o;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)w, scale, q, (int)e, k,
                    (int)e, 0.0, P, (int)n);
        for (size_t i = 0; i < n; i++) {
            double *row = P + i * n, mx = -INFINITY, sum = 0;
            size_t valid = m->c.causal ? i + 1 : n;
            for (size_t j = 0; j < valid; j++) mx = fmax(mx, row[j]);
            for (size_t j = 0; j < valid; j++) sum += (row[j] = exp(row[j] - mx));
            for (size_t j = 0; j < valid; j++) row[j] /= sum;
            for (size_t j = valid; j < n; j++) row[j] = 0;
        }
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1.0, P, (int)n, v,
                    (int)e, 0.0, a->mix + o, (int)e);
    }
}

/* dv = (through P v, q and k) given dy; dP is n x n scratch, dq, dk R x e scratch. */
static void attention_backward(train_model *m, const block_params *bp, const block_acts *a, const double *dy,
                               double *dv, double *dq, double *dk, double *dP)
{
    size_t n = m->c.n, e = m->e, w = head_width(m), H = m->c.heads;
    double scale = 1.0 / sqrt((double)w);
    for (size_t bh = 0; bh < m->c.batch * H; bh++) {
        size_t o = (bh / H) * n * e + (bh % H) * w;
        const double *P = a->p + bh * n * n, *q = a->q + o, *k = a->k + o, *v = a->v + o, *g = dy + o;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)w, 1.0, g, (int)e, v, (int)e,
                    0.0, dP, (int)n);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1.0, P, (int)n, g, (int)e,
                    0.0, dv + o, (int)e);
        for (size_t i = 0; i < n; i++) { /* softmax backward, scaled: dS = P (dP - <P, dP>) scale */
            double dot = 0;
            for (size_t j = 0; j < n; j++) dot += P[i * n + j] * dP[i * n + j];
            for (size_t j = 0; j < n; j++) dP[i * n + j] = scale * P[i * n + j] * (dP[i * n + j] - dot);
        }
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1.0, dP, (int)n, k, (int)e,
                    0.0, dq + o, (int)e);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1.0, dP, (int)n, q, (int)e,
                    0.0, dk + o, (int)e);
    }
    query_key_backward(m, bp, a, dq, dk, dv);
}

/* ---- MRA-2 mixer: the library's MRA-2 approximation of the same attention */

/* row-major (n x e) <-> column-major (n x e, ld n) */
static void to_columns(size_t n, size_t e, const double *rows, double *cols)
{
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < e; c++) cols[i + c * n] = rows[i * e + c];
}

static void to_rows(size_t n, size_t e, const double *cols, double *rows)
{
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < e; c++) rows[i * e + c] = cols[i + c * n];
}

static int mra_forward(train_model *m, size_t l, const block_params *bp, block_acts *a)
{
    size_t n = m->c.n, e = m->e, bpr = m->mra_per_row;
    double scale = 1.0 / sqrt((double)e);
    query_key_forward(m, bp, a);
    for (size_t b = 0; b < m->c.batch; b++) {
        size_t o = b * n * e;
        to_columns(n, e, a->q + o, a->qc + o);
        to_columns(n, e, a->k + o, a->kc + o);
        to_columns(n, e, a->v + o, a->vc + o);
        int status = skit_attention_plan_execute(m->mra, a->qc + o, n, a->kc + o, n, a->vc + o, n, NULL, a->yc + o, n, NULL);
        if (!status) /* the squares the plan refined, for the backward */
            status = skit_mra2_select(n, e, a->qc + o, n, a->kc + o, n, scale, m->mra_block, bpr, SKIT_MRA_GLOBAL,
                                      m->c.causal, m->refined + (l * m->c.batch + b) * m->mra_squares, m->mra_work);
        if (status) return status;
        to_rows(n, e, a->yc + o, a->mix + o);
    }
    return SKIT_OK;
}

/* As attention_backward; s4, s5: R x e scratch. */
static int mra_backward(train_model *m, size_t l, const block_params *bp, const block_acts *a, const double *dy,
                        double *dv, double *dq, double *dk, double *s4, double *s5)
{
    size_t n = m->c.n, e = m->e;
    double scale = 1.0 / sqrt((double)e), *dyc = s4, *dc = s5;
    for (size_t b = 0; b < m->c.batch; b++) {
        size_t o = b * n * e;
        to_columns(n, e, dy + o, dyc);
        int status = (m->c.causal ? skit_mra2_backward_causal : skit_mra2_backward)(
            n, e, e, a->qc + o, n, a->kc + o, n, a->vc + o, n, scale, m->mra_block,
            m->refined + (l * m->c.batch + b) * m->mra_squares, dyc, n, dq + o, n, dk + o, n, dc, n, m->mra_work);
        if (status) return status;
        to_rows(n, e, dc, dv + o);
        to_rows(n, e, dq + o, dc), memcpy(dq + o, dc, n * e * sizeof(double));
        to_rows(n, e, dk + o, dc), memcpy(dk + o, dc, n * e * sizeof(double));
    }
    query_key_backward(m, bp, a, dq, dk, dv);
    return SKIT_OK;
}

/* ---- GTU: out = Wo (silu(Wu h) * mixer(silu(Wv h))) ---------------------- */

static int gtu_forward(train_model *m, size_t l, double *out)
{
    const block_params *bp = &m->bp[l];
    block_acts *a = &m->ba[l];
    size_t R = m->R, d = m->c.d, e = m->e;
    linear_forward(R, d, e, a->n1, m->params + bp->wu, a->up);
    linear_forward(R, d, e, a->n1, m->params + bp->wv, a->vp);
    silu_forward(R * e, a->up, a->u);
    silu_forward(R * e, a->vp, a->v);
    if (m->c.mixer == TRAIN_MIXER_ATTENTION)
        attention_forward(m, bp, a);
    else if (m->c.mixer == TRAIN_MIXER_MRA) {
        int status = mra_forward(m, l, bp, a);
        if (status) return status;
    } else {
        int status = skit_tno_plan_execute(m->plans[l], a->v, a->mix, m->mixer_work);
        if (status) return status;
    }
    for (size_t i = 0; i < R * e; i++) a->g[i] = a->u[i] * a->mix[i];
    linear_forward(R, e, d, a->g, m->params + bp->wo, out);
    return SKIT_OK;
}

/* dn = d(loss)/d(n1) given dout; scratch s[0..3] are R x e, dP n x n. */
static int gtu_backward(train_model *m, size_t l, const double *dout, double *dn, double **s, double *dP)
{
    const block_params *bp = &m->bp[l];
    const block_acts *a = &m->ba[l];
    size_t R = m->R, d = m->c.d, e = m->e;
    double *dg = s[0], *dmix = s[1], *dv = s[2], *du = s[3];
    linear_backward(R, e, d, a->g, m->params + bp->wo, dout, dg, 0.0, m->grads + bp->wo);
    for (size_t i = 0; i < R * e; i++) {
        du[i] = dg[i] * a->mix[i];
        dmix[i] = dg[i] * a->u[i];
    }
    if (m->c.mixer == TRAIN_MIXER_ATTENTION)
        attention_backward(m, bp, a, dmix, dv, dg, s[4], dP);
    else if (m->c.mixer == TRAIN_MIXER_MRA) {
        int status = mra_backward(m, l, bp, a, dmix, dv, dg, s[4], s[5], s[6]);
        if (status) return status;
    } else {
        double dlambda = 0;
        int status = skit_tno_plan_backward(m->plans[l], a->v, dmix, dv, m->grads + bp->mixer,
                                            m->c.learn_decay ? &dlambda : NULL, m->mixer_work);
        if (status) return status;
        if (m->c.learn_decay) { /* lambda = sigmoid(theta): dlambda/dtheta = lambda (1 - lambda) */
            double lambda = sigmoid(m->params[bp->decay]);
            m->grads[bp->decay] = dlambda * lambda * (1 - lambda);
        }
    }
    silu_backward(R * e, a->up, du, du);
    silu_backward(R * e, a->vp, dv, dv);
    linear_backward(R, d, e, a->n1, m->params + bp->wu, du, dn, 0.0, m->grads + bp->wu);
    linear_backward(R, d, e, a->n1, m->params + bp->wv, dv, dn, 1.0, m->grads + bp->wv);
    return SKIT_OK;
}

/* ---- GLU: out = W3 (silu(W1 h) * (W2 h)) --------------------------------- */

static void glu_forward(train_model *m, size_t l, double *out)
{
    const block_params *bp = &m->bp[l];
    block_acts *a = &m->ba[l];
    size_t R = m->R, d = m->c.d, h = m->h;
    linear_forward(R, d, h, a->n2, m->params + bp->w1, a->ap);
    linear_forward(R, d, h, a->n2, m->params + bp->w2, a->b);
    silu_forward(R * h, a->ap, a->a);
    for (size_t i = 0; i < R * h; i++) a->gl[i] = a->a[i] * a->b[i];
    linear_forward(R, h, d, a->gl, m->params + bp->w3, out);
}

static void glu_backward(train_model *m, size_t l, const double *dout, double *dn, double **s)
{
    const block_params *bp = &m->bp[l];
    const block_acts *a = &m->ba[l];
    size_t R = m->R, d = m->c.d, h = m->h;
    double *dgl = s[0], *da = s[1], *db = s[2];
    linear_backward(R, h, d, a->gl, m->params + bp->w3, dout, dgl, 0.0, m->grads + bp->w3);
    for (size_t i = 0; i < R * h; i++) {
        da[i] = dgl[i] * a->b[i];
        db[i] = dgl[i] * a->a[i];
    }
    silu_backward(R * h, a->ap, da, da);
    linear_backward(R, d, h, a->n2, m->params + bp->w1, da, dn, 0.0, m->grads + bp->w1);
    linear_backward(R, d, h, a->n2, m->params + bp->w2, db, dn, 1.0, m->grads + bp->w2);
}

/* ---- cross-entropy over the weighted positions -------------------------- */

/* logits -> probabilities in place; returns the summed loss. */
static double cross_entropy_forward(size_t rows, size_t V, double *logits, const int *targets,
                                    const double *weights)
{
    double loss = 0;
    for (size_t r = 0; r < rows; r++) {
        double *z = logits + r * V, mx = z[0], sum = 0;
        for (size_t j = 1; j < V; j++) mx = fmax(mx, z[j]);
        for (size_t j = 0; j < V; j++) sum += (z[j] = exp(z[j] - mx));
        for (size_t j = 0; j < V; j++) z[j] /= sum;
        if (weights[r] != 0) loss -= weights[r] * log(fmax(z[targets[r]], 1e-300));
    }
    return loss;
}

/* probabilities -> d(mean loss)/d(logits) in place */
static void cross_entropy_backward(size_t rows, size_t V, double *probs, const int *targets,
                                   const double *weights, double count)
{
    for (size_t r = 0; r < rows; r++) {
        double w = weights[r] / count, *z = probs + r * V;
        for (size_t j = 0; j < V; j++) z[j] *= w;
        z[targets[r]] -= w;
    }
}

/* ---- the whole model ----------------------------------------------------- */

int train_model_forward(train_model *m, const int *inputs, const int *targets, const double *weights,
                        double *loss, double *count)
{
    size_t R = m->R, d = m->c.d;
    double *tmp = m->scratch; /* R x d: a block's output before the residual add */
    for (size_t r = 0; r < R; r++) memcpy(m->x + r * d, m->params + m->embedding + (size_t)inputs[r] * d, d * sizeof(double));
    if (learned_positions(&m->c)) /* attention alone does not know the order of the tokens */
        for (size_t r = 0; r < R; r++) cblas_daxpy((int)d, 1.0, m->params + m->position + (r % m->c.n) * d, 1, m->x + r * d, 1);
    for (size_t l = 0; l < m->c.layers; l++) {
        block_acts *a = &m->ba[l];
        norm_forward(m->c.norm, R, d, m->x, a->n1, a->rstd1);
        int status = gtu_forward(m, l, tmp);
        if (status) return status;
        cblas_daxpy((int)(R * d), 1.0, tmp, 1, m->x, 1);
        norm_forward(m->c.norm, R, d, m->x, a->n2, a->rstd2);
        glu_forward(m, l, tmp);
        cblas_daxpy((int)(R * d), 1.0, tmp, 1, m->x, 1);
    }
    norm_forward(m->c.norm, R, d, m->x, m->nf, m->rstdf);
    linear_forward(R, d, m->c.out_vocab, m->nf, m->params + m->head, m->logits);
    m->inputs = (int *)inputs;
    m->targets = (int *)targets;
    m->weights = (double *)weights;
    m->count = 0;
    for (size_t r = 0; r < R; r++) m->count += weights[r];
    double total = cross_entropy_forward(R, m->c.out_vocab, m->logits, targets, weights);
    if (count) *count = m->count;
    if (loss) *loss = m->count > 0 ? total / m->count : 0;
    return SKIT_OK;
}

int train_model_backward(train_model *m)
{
    size_t R = m->R, d = m->c.d, e = m->e, h = m->h;
    double *dx = m->scratch, *dn = dx + R * d, *dP = dn + R * d;
    double *s[7];
    double *base = dP + m->c.n * m->c.n;
    size_t wide = e > h ? e : h;
    for (int i = 0; i < 7; i++) s[i] = base + (size_t)i * R * wide;
    memset(m->grads, 0, m->nparams * sizeof(double));
    if (m->count == 0) return SKIT_OK;
    cross_entropy_backward(R, m->c.out_vocab, m->logits, m->targets, m->weights, m->count);
    memset(dn, 0, R * d * sizeof(double));
    linear_backward(R, d, m->c.out_vocab, m->nf, m->params + m->head, m->logits, dn, 0.0, m->grads + m->head);
    memset(dx, 0, R * d * sizeof(double));
    norm_backward(m->c.norm, R, d, m->nf, m->rstdf, dn, dx);
    for (size_t l = m->c.layers; l-- > 0;) {
        const block_acts *a = &m->ba[l];
        glu_backward(m, l, dx, dn, s);
        norm_backward(m->c.norm, R, d, a->n2, a->rstd2, dn, dx);
        int status = gtu_backward(m, l, dx, dn, s, dP);
        if (status) return status;
        norm_backward(m->c.norm, R, d, a->n1, a->rstd1, dn, dx);
    }
    for (size_t r = 0; r < R; r++)
        cblas_daxpy((int)d, 1.0, dx + r * d, 1, m->grads + m->embedding + (size_t)m->inputs[r] * d, 1);
    if (learned_positions(&m->c))
        for (size_t r = 0; r < R; r++) cblas_daxpy((int)d, 1.0, dx + r * d, 1, m->grads + m->position + (r % m->c.n) * d, 1);
    return SKIT_OK;
}

int train_model_sync(train_model *m)
{
    if (softmax_mixer(&m->c)) return SKIT_OK;
    for (size_t l = 0; l < m->c.layers; l++) {
        int status = skit_tno_plan_set_parameters(m->plans[l], m->params + m->bp[l].mixer, m->bp[l].mixer_count);
        if (!status && m->c.learn_decay) status = skit_tno_plan_set_decay(m->plans[l], train_model_decay(m, l));
        if (status) return status;
    }
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

/* MRA-2 with blocks of 8 tokens (4 when n is not a multiple of 8), half of
 * each row's blocks refined (one global top-k, the paper's default rule). */
static int create_mra(train_model *m, const char **why)
{
    size_t n = m->c.n, e = m->e;
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    o.block = m->mra_block = n % 8 == 0 ? 8 : 4;
    o.blocks_per_row[0] = m->mra_per_row = n / o.block / 2 ? n / o.block / 2 : 1;
    o.scale = 1.0 / sqrt((double)e);
    o.causal = m->c.causal; /* diagonal squares refined first, none after them */
    m->mra_squares = (n / o.block) * (n / o.block);
    int status = skit_attention_plan_create(&m->mra, n, e, e, &o);
    if (status) return status;
    m->refined = skit_calloc(m->c.layers * m->c.batch, m->mra_squares);
    size_t work = skit_mra2_backward_workspace(n, e, e, o.block), select = skit_mra2_select_workspace(n, e, o.block);
    if (select > work) work = select;
    m->mra_work = skit_malloc(work, sizeof(double));
    if (!m->refined || !m->mra_work) return SKIT_ENOMEM;
    m->bytes += skit_attention_plan_bytes(m->mra) + m->c.layers * m->c.batch * m->mra_squares +
                work * sizeof(double);
    (void)why;
    return SKIT_OK;
}

static int create_plans(train_model *m, const char **why)
{
    static const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI};
    m->mixer_options = m->c.tno;
    m->mixer_options.kind = kinds[m->c.mixer];
    m->mixer_options.causality = m->c.causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    m->mixer_options.layout = SKIT_TNO_ROWS;
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
    /* probe the library's backward once: a mixer without one is refused here */
    int status = skit_tno_plan_backward(m->plans[0], m->ba[0].v, m->ba[0].mix, NULL, NULL, NULL, m->mixer_work);
    if (status == SKIT_EUNSUPPORTED) {
        *why = "the library has no backward for this mixer yet (issue 16 item 1)";
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
        } else {
            GROUP(mixer, "mixer", bp->mixer_count, 1, 0);
            if (c->learn_decay) {
                GROUP(decay, "decay_logit", 1, 1, 0);
            }
        }
        GROUP(w1, "glu.w1", h, d, 1);
        GROUP(w2, "glu.w2", h, d, 1);
        GROUP(w3, "glu.w3", d, h, 1);
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
        else
            init_linear(&rng, w, g->rows, g->cols);
    }
    if (!softmax_mixer(&m->c))
        for (size_t l = 0; l < m->c.layers; l++)
            skit_tno_plan_get_parameters(m->plans[l], m->params + m->bp[l].mixer, m->bp[l].mixer_count);
    if (m->c.learn_decay) /* theta = logit(lambda) */
        for (size_t l = 0; l < m->c.layers; l++) m->params[m->bp[l].decay] = log(m->c.tno.decay / (1 - m->c.tno.decay));
}

static double *carve(double **p, size_t count)
{
    double *q = *p;
    *p += (count + 7) & ~(size_t)7; /* keep 64-byte alignment */
    return q;
}

static size_t activation_doubles(const train_model *m)
{
    size_t R = m->R, d = m->c.d, e = m->e, h = m->h, n = m->c.n;
    size_t per = 2 * (R * d + R + 16) + 6 * (R * e + 8) + 4 * (R * h + 8);
    if (m->c.mixer == TRAIN_MIXER_ATTENTION) per += 2 * (R * e + 8) + m->c.batch * m->c.heads * n * n + 8;
    if (m->c.mixer == TRAIN_MIXER_MRA) per += 6 * (R * e + 8);
    return m->c.layers * per + 2 * (R * d + 8) + R + 8 + R * m->c.out_vocab + 8;
}

static void carve_activations(train_model *m)
{
    size_t R = m->R, d = m->c.d, e = m->e, h = m->h, n = m->c.n;
    double *p = m->acts;
    for (size_t l = 0; l < m->c.layers; l++) {
        block_acts *a = &m->ba[l];
        a->n1 = carve(&p, R * d), a->rstd1 = carve(&p, R);
        a->up = carve(&p, R * e), a->u = carve(&p, R * e), a->vp = carve(&p, R * e);
        a->v = carve(&p, R * e), a->mix = carve(&p, R * e), a->g = carve(&p, R * e);
        if (m->c.mixer == TRAIN_MIXER_ATTENTION)
            a->q = carve(&p, R * e), a->k = carve(&p, R * e), a->p = carve(&p, m->c.batch * m->c.heads * n * n);
        if (m->c.mixer == TRAIN_MIXER_MRA) {
            a->q = carve(&p, R * e), a->k = carve(&p, R * e);
            a->qc = carve(&p, R * e), a->kc = carve(&p, R * e), a->vc = carve(&p, R * e), a->yc = carve(&p, R * e);
        }
        a->n2 = carve(&p, R * d), a->rstd2 = carve(&p, R);
        a->ap = carve(&p, R * h), a->a = carve(&p, R * h), a->b = carve(&p, R * h), a->gl = carve(&p, R * h);
    }
    m->x = carve(&p, R * d), m->nf = carve(&p, R * d), m->rstdf = carve(&p, R);
    m->logits = carve(&p, R * m->c.out_vocab);
}

static int allocate(train_model *m)
{
    size_t wide = m->e > m->h ? m->e : m->h;
    size_t acts = activation_doubles(m);
    size_t scratch = 2 * m->R * m->c.d + m->c.n * m->c.n + 7 * m->R * wide;
    m->params = skit_calloc(m->nparams, sizeof(double));
    m->grads = skit_calloc(m->nparams, sizeof(double));
    m->acts = skit_calloc(acts, sizeof(double));
    m->scratch = skit_calloc(scratch, sizeof(double));
    size_t rope = m->c.rope && softmax_mixer(&m->c) ? m->c.n * (head_width(m) / 2) * 2 : 0;
    m->rope = rope ? skit_calloc(rope, sizeof(double)) : NULL;
    if (!m->params || !m->grads || !m->acts || !m->scratch || (rope && !m->rope)) return SKIT_ENOMEM;
    if (rope) rope_tables(m);
    m->bytes += (2 * m->nparams + acts + scratch + rope) * sizeof(double);
    carve_activations(m);
    return SKIT_OK;
}

int train_model_create(train_model **out, const train_config *c, const char **why)
{
    *out = NULL;
    *why = NULL;
    if (c->mixer == TRAIN_MIXER_MRA && (c->n % 4 || c->n < 8)) {
        *why = "MRA-2 needs n a multiple of 4 and >= 8 (blocks of 4 or 8 tokens)";
        return SKIT_EUNSUPPORTED;
    }
    if (c->learn_decay && (c->mixer != TRAIN_MIXER_TNO || !(c->tno.decay > 0 && c->tno.decay < 1))) {
        *why = "a learnable decay needs --mixer tno and an initial --decay in (0, 1)";
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
    int status = (m->bp && m->ba && m->plans) ? SKIT_OK : SKIT_ENOMEM;
    if (!status && !softmax_mixer(c)) {
        skit_tno_options o = c->tno;
        o.kind = c->mixer == TRAIN_MIXER_TNO ? SKIT_TNO_FFT : c->mixer == TRAIN_MIXER_FD ? SKIT_TNO_FD : SKIT_TNO_SKI;
        o.causality = c->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        clamp_ski(&o, c->n);
        size_t count = 0;
        status = skit_tno_options_parameter_count(&o, m->e, &count);
        for (size_t l = 0; l < c->layers; l++) m->bp[l].mixer_count = count;
    }
    if (!status) {
        lay_out_parameters(m);
        status = allocate(m);
    }
    if (!status && c->mixer == TRAIN_MIXER_MRA) status = create_mra(m, why);
    if (!status && !softmax_mixer(c)) status = create_plans(m, why);
    if (status) {
        train_model_destroy(m);
        return status;
    }
    init_parameters(m);
    *out = m;
    return SKIT_OK;
}

void train_model_destroy(train_model *m)
{
    if (!m) return;
    if (m->plans)
        for (size_t l = 0; l < m->c.layers; l++) skit_tno_plan_destroy(m->plans[l]);
    skit_free(m->plans);
    skit_free(m->bp);
    skit_free(m->ba);
    skit_free(m->params);
    skit_free(m->grads);
    skit_free(m->acts);
    skit_free(m->scratch);
    skit_free(m->rope);
    skit_free(m->mixer_work);
    skit_attention_plan_destroy(m->mra);
    skit_free(m->refined);
    skit_free(m->mra_work);
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
