/* data.h — what `skit train` learns from: synthetic token tasks generated
 * from a seed, and a byte-level text corpus.
 *
 *  markov  a k-th order Markov chain on V tokens: each of the V^k contexts
 *          has a next-token distribution softmax(2 z), z standard normal
 *          (drawn from the seed). Sequences start from the stationary
 *          distribution of the contexts, so the loss floor of every
 *          position with its k tokens of context in view is the entropy
 *          rate H = sum_ctx pi(ctx) H(P(. | ctx)) (nats/token), computed
 *          from the table (pi by power iteration to 1e-15).
 *  recall  associative recall (multi-query): n/4 distinct key-value pairs,
 *          then n/4 queries "key value" of keys seen before; the loss is on
 *          the values of the queries (floor 0). Keys 0..K-1, values K..2K-1.
 *  copy    selective copy: M data tokens (2..2+C-1) scattered among noise
 *          tokens (0), a separator (1), then the M tokens in order; the loss
 *          is on the copied tokens (floor 0).
 *  text    bytes of a text file (vocab 256): train = the first 90 %,
 *          validation = the last 10 % (a fixed split, no shuffling).
 * Objectives: causal (targets = the next token) or masked LM (15 % of the
 * positions replaced by the mask token V, targets = the original tokens
 * there; the loss is on those positions). */
#ifndef SKIT_TRAIN_DATA_H
#define SKIT_TRAIN_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "skit.h"

typedef enum train_task_kind { TRAIN_TASK_MARKOV = 0, TRAIN_TASK_RECALL, TRAIN_TASK_COPY, TRAIN_TASK_TEXT } train_task_kind;
extern const char *const train_task_names[]; /* "markov", "recall", "copy", "text", NULL */

typedef struct train_task {
    train_task_kind kind;
    size_t vocab;          /* tokens of the task (the mask token is vocab) */
    size_t order;          /* markov k */
    double *table;         /* markov: V^k x V next-token probabilities */
    double *stationary;    /* markov: V^k context probabilities */
    double entropy_rate;   /* markov: H in nats/token; else NAN */
    unsigned char *text;   /* text: the bytes */
    size_t text_length, split; /* text: train = [0, split), validation = [split, length) */
    int masked;            /* masked-LM objective */
} train_task;

/* Markov: vocab V (2..64), order k (1..4, V^k <= 2^16). Other tasks: vocab
 * is set by the task (recall 2K with K = vocab_hint, copy 2 + C with C =
 * vocab_hint, text 256). Returns a library status (SKIT_EIO for the text). */
int train_task_create(train_task *task, train_task_kind kind, size_t vocab_hint, size_t order,
                      const char *text_path, int masked, uint64_t seed);
void train_task_destroy(train_task *task);

/* One batch of batch sequences of n tokens from rng: inputs, targets and
 * weights, each batch * n. validation selects the held-out stream (text:
 * the validation part; synthetic: the same generator, another stream). */
void train_task_batch(const train_task *task, skit_rng *rng, int validation, size_t batch, size_t n,
                      int *inputs, int *targets, double *weights);

/* The loss floor of the task for the causal objective (markov: H, recall
 * and copy: 0, text: NAN). */
double train_task_floor(const train_task *task);

/* Markov: the summed cross-entropy of the true chain on a batch's weighted
 * positions, so that a model's loss can be set against the chain's on the
 * same tokens, free of the sampling noise of a validation set. Causal: the
 * chain's next-token law given the k inputs up to each position. Masked LM:
 * the exact posterior of each masked token given every visible token of its
 * sequence (forward-backward over the V^k contexts; the masked-LM floor,
 * NAN when n * V^k > 2^24). NAN for the other tasks. */
double train_task_oracle_loss(const train_task *task, size_t batch, size_t n, const int *inputs,
                              const int *targets, const double *weights);

#endif
