/* data.c — the tasks of data.h. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

const char *const train_task_names[] = {"markov", "recall", "copy", "text", NULL};

#define MASK_RATE 0.15

/* pi = stationary distribution of the context chain (contexts = base-V
 * numbers of the last k tokens, newest least significant). */
static void stationary(const train_task *t, size_t contexts, double *pi, double *next)
{
    size_t V = t->vocab;
    for (size_t c = 0; c < contexts; c++) pi[c] = 1.0 / (double)contexts;
    for (int it = 0; it < 100000; it++) {
        memset(next, 0, contexts * sizeof(double));
        for (size_t c = 0; c < contexts; c++)
            for (size_t x = 0; x < V; x++) next[(c * V + x) % contexts] += pi[c] * t->table[c * V + x];
        double change = 0;
        for (size_t c = 0; c < contexts; c++) {
            change = fmax(change, fabs(next[c] - pi[c]));
            pi[c] = next[c];
        }
        if (change < 1e-15) break;
    }
}

static int markov_create(train_task *t, size_t V, size_t k, uint64_t seed)
{
    size_t contexts = 1;
    for (size_t i = 0; i < k; i++) contexts *= V;
    t->table = malloc(contexts * V * sizeof(double));
    t->stationary = malloc(contexts * sizeof(double));
    double *next = malloc(contexts * sizeof(double));
    if (!t->table || !t->stationary || !next) {
        free(next);
        return SKIT_ENOMEM;
    }
    skit_rng rng;
    skit_rng_seed_stream(&rng, seed, 0x6d61726b); /* the chain's own stream */
    for (size_t c = 0; c < contexts; c++) {
        double *p = t->table + c * V, sum = 0;
        for (size_t x = 0; x < V; x++) sum += (p[x] = exp(2.0 * skit_rng_normal(&rng)));
        for (size_t x = 0; x < V; x++) p[x] /= sum;
    }
    stationary(t, contexts, t->stationary, next);
    free(next);
    double H = 0;
    for (size_t c = 0; c < contexts; c++)
        for (size_t x = 0; x < V; x++) {
            double p = t->table[c * V + x];
            if (p > 0) H -= t->stationary[c] * p * log(p);
        }
    t->entropy_rate = H;
    return SKIT_OK;
}

static int text_create(train_task *t, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return SKIT_EIO;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    t->text = len > 0 ? malloc((size_t)len) : NULL;
    int ok = t->text && fread(t->text, 1, (size_t)len, f) == (size_t)len;
    fclose(f);
    if (!ok) return SKIT_EIO;
    t->text_length = (size_t)len;
    t->split = t->text_length / 10 * 9;
    return SKIT_OK;
}

int train_task_create(train_task *t, train_task_kind kind, size_t vocab_hint, size_t order,
                      const char *text_path, int masked, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->masked = masked;
    t->order = order;
    t->entropy_rate = NAN;
    switch (kind) {
    case TRAIN_TASK_MARKOV: t->vocab = vocab_hint; return markov_create(t, vocab_hint, order, seed);
    case TRAIN_TASK_RECALL: t->vocab = 2 * vocab_hint; return SKIT_OK;
    case TRAIN_TASK_COPY: t->vocab = 2 + vocab_hint; return SKIT_OK;
    case TRAIN_TASK_TEXT: t->vocab = 256; return text_create(t, text_path);
    }
    return SKIT_EINVAL;
}

void train_task_destroy(train_task *t)
{
    free(t->table);
    free(t->stationary);
    free(t->text);
    memset(t, 0, sizeof *t);
}

double train_task_floor(const train_task *t)
{
    return t->kind == TRAIN_TASK_MARKOV ? t->entropy_rate : t->kind == TRAIN_TASK_TEXT ? NAN : 0.0;
}

/* 1 when token x may stand at a position whose input is in: any token under
 * the mask token V, else only the visible one */
static int allowed(int in, size_t V, size_t x)
{
    return (size_t)in == V || (size_t)in == x;
}

/* Forward pass over one sequence's contexts: alpha[i][c] (i = k-1..n-1, c
 * the context of tokens i-k+1..i, newest least significant) is proportional
 * to P(context c at i, visible tokens 0..i); each row normalised. */
static void markov_forward(const train_task *t, size_t n, size_t C, const int *in, double *alpha)
{
    size_t V = t->vocab, k = t->order;
    double *a = alpha + (k - 1) * C;
    for (size_t c = 0; c < C; c++) {
        int ok = 1;
        for (size_t j = 0, rest = c; j < k; j++, rest /= V) ok &= allowed(in[k - 1 - j], V, rest % V);
        a[c] = ok ? t->stationary[c] : 0;
    }
    for (size_t i = k; i < n; i++) {
        double *prev = alpha + (i - 1) * C, *cur = alpha + i * C, sum = 0;
        memset(cur, 0, C * sizeof(double));
        for (size_t c = 0; c < C; c++)
            for (size_t x = 0; x < V; x++)
                if (prev[c] > 0 && allowed(in[i], V, x)) cur[(c * V + x) % C] += prev[c] * t->table[c * V + x];
        for (size_t c = 0; c < C; c++) sum += cur[c];
        for (size_t c = 0; c < C; c++) cur[c] /= sum;
    }
}

/* -log P(tok | visible tokens) at the masked positions of one sequence, by
 * the forward-backward recursions over the chain's contexts: the exact
 * masked-LM floor of the sample. alpha: n * C, beta: 2 * C doubles. */
static double markov_masked_loss(const train_task *t, size_t n, size_t C, const int *in, const int *tg,
                                 const double *w, double *alpha, double *beta)
{
    size_t V = t->vocab, k = t->order;
    markov_forward(t, n, C, in, alpha);
    double loss = 0, *b = beta, *bnext = beta + C;
    for (size_t c = 0; c < C; c++) b[c] = 1;
    for (size_t i = n; i-- > k - 1;) {
        double post[64] = {0}, sum = 0; /* P(token x at position i | all visible), V <= 64 */
        for (size_t c = 0; c < C; c++) post[c % V] += alpha[i * C + c] * b[c];
        for (size_t x = 0; x < V; x++) sum += post[x];
        if (w[i] != 0) loss -= w[i] * log(post[tg[i]] / sum);
        if (i == k - 1) { /* the first k - 1 tokens: digits of the first context */
            for (size_t j = 0; j + 1 < k; j++) {
                if (w[j] == 0) continue;
                double pj = 0, place = 1;
                for (size_t q = 0; q < k - 1 - j; q++) place *= (double)V;
                for (size_t c = 0; c < C; c++)
                    if ((c / (size_t)place) % V == (size_t)tg[j]) pj += alpha[i * C + c] * b[c];
                loss -= w[j] * log(pj / sum);
            }
            break;
        }
        double bs = 0;
        for (size_t c = 0; c < C; c++) {
            double s = 0;
            for (size_t x = 0; x < V; x++)
                if (allowed(in[i], V, x)) s += t->table[c * V + x] * b[(c * V + x) % C];
            bs += (bnext[c] = s);
        }
        for (size_t c = 0; c < C; c++) bnext[c] /= bs;
        double *tmp = b;
        b = bnext, bnext = tmp;
    }
    return loss;
}

/* Masked LM: the exact floor, summed over the batch; NAN when a sequence's
 * n x V^k forward table would pass 2^24 doubles (128 MiB), n < k or V > 64
 * (outside train_task_create's range). */
static double markov_masked_oracle(const train_task *t, size_t batch, size_t n, const int *inputs,
                                   const int *targets, const double *weights)
{
    size_t C = 1;
    for (size_t i = 0; i < t->order; i++) C *= t->vocab;
    if (t->vocab > 64 || n < t->order || n > ((size_t)1 << 24) / C) return NAN; /* post[64] below */
    double *alpha = malloc(n * C * sizeof(double)), *beta = malloc(2 * C * sizeof(double)), loss = 0;
    if (!alpha || !beta) loss = NAN;
    for (size_t r = 0; r < batch && !isnan(loss); r++)
        loss += markov_masked_loss(t, n, C, inputs + r * n, targets + r * n, weights + r * n, alpha, beta);
    free(alpha);
    free(beta);
    return loss;
}

double train_task_oracle_loss(const train_task *t, size_t batch, size_t n, const int *inputs, const int *targets,
                              const double *weights)
{
    if (t->kind != TRAIN_TASK_MARKOV) return NAN;
    if (t->masked) return markov_masked_oracle(t, batch, n, inputs, targets, weights);
    size_t V = t->vocab, k = t->order;
    double loss = 0;
    for (size_t r = 0; r < batch * n; r++) {
        size_t i = r % n, c = 0;
        if (weights[r] == 0 || i + 1 < k) continue;
        for (size_t j = 0, place = 1; j < k; j++, place *= V) c += (size_t)inputs[r - j] * place; /* newest least significant */
        loss -= weights[r] * log(t->table[c * V + (size_t)targets[r]]);
    }
    return loss;
}

static size_t draw(skit_rng *rng, const double *p, size_t count)
{
    double u = skit_rng_uniform(rng), acc = 0;
    for (size_t i = 0; i < count; i++)
        if (u < (acc += p[i])) return i;
    return count - 1;
}

/* n + 1 tokens of one sequence into tok; w[t] = 1 where predicting tok[t+1]
 * from tok[0..t] is scored by the causal objective. */
static void markov_sequence(const train_task *t, skit_rng *rng, size_t n, int *tok, double *w)
{
    size_t V = t->vocab, k = t->order, contexts = 1;
    for (size_t i = 0; i < k; i++) contexts *= V;
    size_t c = draw(rng, t->stationary, contexts);
    for (size_t i = 0, rest = c; i < k; i++, rest /= V) /* newest token least significant */
        if (k - 1 - i <= n) tok[k - 1 - i] = (int)(rest % V);
    for (size_t i = k; i <= n; i++) {
        size_t x = draw(rng, t->table + c * V, V);
        tok[i] = (int)x;
        c = (c * V + x) % contexts;
    }
    for (size_t i = 0; i < n; i++) w[i] = i + 1 >= k ? 1.0 : 0.0;
}

static void recall_sequence(const train_task *t, skit_rng *rng, size_t n, int *tok, double *w)
{
    size_t K = t->vocab / 2, pairs = n / 4 < K ? n / 4 : K;
    int value[4096];
    size_t keys[4096];
    for (size_t i = 0; i < K && i < 4096; i++) keys[i] = i;
    for (size_t i = 0; i < pairs; i++) { /* distinct keys: a partial Fisher-Yates shuffle */
        size_t j = i + (size_t)skit_rng_below(rng, K - i), tmp = keys[i];
        keys[i] = keys[j], keys[j] = tmp;
        value[i] = (int)(K + skit_rng_below(rng, K));
        tok[2 * i] = (int)keys[i], tok[2 * i + 1] = value[i];
    }
    for (size_t i = 0; i < n; i++) w[i] = 0;
    for (size_t p = 2 * pairs; p <= n; p += 2) {
        size_t q = (size_t)skit_rng_below(rng, pairs);
        tok[p] = (int)keys[q];
        if (p + 1 <= n) tok[p + 1] = value[q], w[p] = 1.0;
    }
}

static void copy_sequence(const train_task *t, skit_rng *rng, size_t n, int *tok, double *w)
{
    size_t C = t->vocab - 2, M = n / 8 ? n / 8 : 1, L = n - M;
    for (size_t i = 0; i < L; i++) tok[i] = 0;
    for (size_t j = 0; j < M; j++) { /* M distinct positions among L, kept in order */
        size_t pos;
        do pos = (size_t)skit_rng_below(rng, L);
        while (tok[pos] != 0);
        tok[pos] = (int)(2 + skit_rng_below(rng, C));
    }
    tok[L] = 1;
    for (size_t i = 0, j = L + 1; i < L; i++)
        if (tok[i] != 0) tok[j++] = tok[i];
    for (size_t i = 0; i < n; i++) w[i] = i >= L ? 1.0 : 0.0;
}

static void text_sequence(const train_task *t, skit_rng *rng, int validation, size_t n, int *tok, double *w)
{
    size_t lo = validation ? t->split : 0, hi = validation ? t->text_length : t->split;
    size_t start = lo + (size_t)skit_rng_below(rng, hi - lo - n);
    for (size_t i = 0; i <= n; i++) tok[i] = t->text[start + i];
    for (size_t i = 0; i < n; i++) w[i] = 1.0;
}

void train_task_batch(const train_task *t, skit_rng *rng, int validation, size_t batch, size_t n, int *inputs,
                      int *targets, double *weights)
{
    int tok[n + 1];
    for (size_t b = 0; b < batch; b++) {
        int *in = inputs + b * n, *tg = targets + b * n;
        double *w = weights + b * n;
        switch (t->kind) {
        case TRAIN_TASK_MARKOV: markov_sequence(t, rng, n, tok, w); break;
        case TRAIN_TASK_RECALL: recall_sequence(t, rng, n, tok, w); break;
        case TRAIN_TASK_COPY: copy_sequence(t, rng, n, tok, w); break;
        case TRAIN_TASK_TEXT: text_sequence(t, rng, validation, n, tok, w); break;
        }
        if (!t->masked) {
            for (size_t i = 0; i < n; i++) in[i] = tok[i], tg[i] = tok[i + 1];
            continue;
        }
        for (size_t i = 0; i < n; i++) { /* masked LM: the loss on the masked positions only */
            int masked = skit_rng_uniform(rng) < MASK_RATE;
            in[i] = masked ? (int)t->vocab : tok[i];
            tg[i] = tok[i];
            w[i] = masked ? 1.0 : 0.0;
        }
    }
}
