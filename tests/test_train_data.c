/* test_train_data.c — the Markov task's masked-LM floor: the forward-backward
 * recursions of train_task_oracle_loss against brute-force enumeration of
 * every completion of the masked positions, on small chains. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "check_util.h"
#include "train/data.h"

/* P(tokens) under the chain: the stationary law of the first k tokens'
 * context, then the transitions */
static double sequence_probability(const train_task *t, size_t n, const int *tok)
{
    size_t V = t->vocab, k = t->order, C = 1, c = 0;
    for (size_t i = 0; i < k; i++) C *= V;
    for (size_t i = 0; i < k; i++) c = c * V + (size_t)tok[i]; /* newest least significant */
    double p = t->stationary[c];
    for (size_t i = k; i < n; i++) {
        p *= t->table[c * V + (size_t)tok[i]];
        c = (c * V + (size_t)tok[i]) % C;
    }
    return p;
}

/* -sum over masked i of log P(tok_i | visible tokens), by enumerating the
 * V^(masked) completions */
static double brute_force_loss(const train_task *t, size_t n, const int *in, const int *tg)
{
    size_t V = t->vocab, masked[16], m = 0, total = 1;
    for (size_t i = 0; i < n; i++)
        if ((size_t)in[i] == V) masked[m++] = i;
    for (size_t i = 0; i < m; i++) total *= V;
    double loss = 0;
    for (size_t q = 0; q < m; q++) {
        double joint = 0, hit = 0;
        int tok[16];
        for (size_t code = 0; code < total; code++) {
            for (size_t i = 0; i < n; i++) tok[i] = in[i];
            for (size_t i = 0, rest = code; i < m; i++, rest /= V) tok[masked[i]] = (int)(rest % V);
            double p = sequence_probability(t, n, tok);
            joint += p;
            if (tok[masked[q]] == tg[masked[q]]) hit += p;
        }
        loss -= log(hit / joint);
    }
    return loss;
}

START_TEST(test_masked_floor_matches_enumeration)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int rep = 0; rep < 40; rep++) {
        size_t V = 2 + skit_rng_below(&rng, 2), k = 1 + skit_rng_below(&rng, 2), n = k + 1 + skit_rng_below(&rng, 6);
        train_task t;
        ck_assert_int_eq(train_task_create(&t, TRAIN_TASK_MARKOV, V, k, NULL, 1, skit_rng_u64(&rng)), SKIT_OK);
        int in[16], tg[16];
        double w[16];
        for (size_t i = 0; i < n; i++) {
            tg[i] = (int)skit_rng_below(&rng, V);
            int masked = skit_rng_uniform(&rng) < 0.4;
            in[i] = masked ? (int)V : tg[i];
            w[i] = masked;
        }
        double fb = train_task_oracle_loss(&t, 1, n, in, tg, w), bf = brute_force_loss(&t, n, in, tg);
        /* both are sums of at most 16 logs of ratios of sums of positive terms */
        ck_assert_msg(fabs(fb - bf) <= 1e-12 * (1 + fabs(bf)), "V=%zu k=%zu n=%zu: forward-backward %.17g vs %.17g (seed %llu)",
                      V, k, n, fb, bf, (unsigned long long)seed);
        train_task_destroy(&t);
    }
}
END_TEST

static Suite *suite_train_data(void)
{
    Suite *s = suite_create("train_data");
    TCase *tc = tcase_create("markov");
    tcase_add_test(tc, test_masked_floor_matches_enumeration);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_train_data()); }
