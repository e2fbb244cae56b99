/* mra_haar.c — `skit mra haar`: the 2-D Haar coefficients of a softmax
 * matrix and its reconstructions from the top coefficients against low
 * rank, sparse and MRA-2 approximations at equal budgets (Figure 1). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mra.h"

static double frob_diff(size_t n, const double *a, const double *b)
{
    double s = 0;
    for (size_t i = 0; i < n * n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}

/* The softmax matrix of one input and what haar computes on it. */
typedef struct haar_work {
    const mra_inputs *in;
    size_t n, d;
    int causal;                         /* --mask causal */
    double tau, scale, entropy, norm;   /* norm: ||A||_F */
    double small;                       /* fraction of |Haar coefficients| < --threshold */
    double *s, *c, *hat, *eye, *sv;     /* A, its Haar coefficients, a reconstruction, I, sigma(A) */
    double *keepmat[2];                 /* the Haar reconstructions at the first two --keep */
} haar_work;

/* The histogram of log10 |c| (bins of 0.25 from -16) into ht (if not
 * NULL); returns the fraction of coefficients below threshold. */
static double haar_histogram(const double *c, size_t nn, double threshold, cli_table *ht)
{
    size_t bins = 68, counts[68] = {0}, small = 0;
    for (size_t i = 0; i < nn; i++) {
        double a = fabs(c[i]);
        if (a < threshold) small++;
        if (a == 0) continue;
        long bin = (long)floor((log10(a) + 16.0) * 4.0);
        if (bin < 0) bin = 0;
        if (bin >= (long)bins) bin = (long)bins - 1;
        counts[bin]++;
    }
    for (size_t k = 0; ht && k < bins; k++)
        cli_table_rowf(ht, "%.6g\t%.6g\t%zu\t%.6g", -16.0 + (double)k / 4.0, -16.0 + (double)(k + 1) / 4.0, counts[k],
                       (double)counts[k] / (double)nn);
    return (double)small / (double)nn;
}

/* ||Ahat - A||_F for the plan of `method` at budget f applied to V = I
 * (which gives the approximated, normalised matrix itself). */
static int haar_method_error(const mra_options *o, const haar_work *w, int method, double f, double *error)
{
    size_t n = w->n;
    skit_attention_options mo;
    int st = mra_method_options(o, method, n, f, &mo, NULL);
    mo.scale = w->scale;
    skit_attention_plan *plan = NULL;
    if (st == SKIT_OK) st = skit_attention_plan_create(&plan, n, w->d, n, &mo);
    if (st == SKIT_OK)
        st = skit_attention_plan_execute(plan, w->in->q, n, w->in->k, n, w->eye, n, w->in->mask, w->hat,
                                         n, NULL);
    skit_attention_plan_destroy(plan);
    *error = frob_diff(n, w->hat, w->s);
    return st;
}

/* The row of keep fraction ki: Haar from the top coefficients, and at the
 * same budget the best rank-r (the discarded sigma), the best sparse (topk)
 * and MRA-2 / MRA-2-s approximations. */
static int haar_row(const mra_options *o, haar_work *w, size_t ki, cli_table *t)
{
    size_t n = w->n, nn = n * n;
    double f = o->keep[ki], thr = 0, e_top = 0, e_mra[2] = {0, 0};
    skit_attention_options top, low;
    skit_attention_options_init(&top, SKIT_ATTENTION_TOPK);
    skit_attention_options_init(&low, SKIT_ATTENTION_LOWRANK);
    int st = skit_attention_options_set_budget(&top, n, f, NULL);
    if (st == SKIT_OK) st = skit_attention_options_set_budget(&low, n, f, NULL);
    if (st == SKIT_OK) st = skit_haar2d_compress(n, w->s, n, top.nonzeros, w->hat, n, &thr);
    if (st != SKIT_OK) return cli_library_error(st);
    double e_haar = frob_diff(n, w->hat, w->s);
    if (ki < 2) {
        w->keepmat[ki] = malloc(nn * sizeof(double));
        if (w->keepmat[ki]) memcpy(w->keepmat[ki], w->hat, nn * sizeof(double));
    }
    double tail = 0;
    for (size_t i = low.rank; i < n; i++) tail += w->sv[i] * w->sv[i];
    double e_low = sqrt(tail);
    st = haar_method_error(o, w, SKIT_ATTENTION_TOPK, f, &e_top);
    for (int m = 0; m < 2 && st == SKIT_OK; m++)
        st = haar_method_error(o, w, m ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2, f, &e_mra[m]);
    if (st != SKIT_OK) return cli_library_error(st);
    double a = w->norm;
    const double errors[] = {e_haar, e_low, e_top, e_mra[0], e_mra[1]};
    int finite = mra_require_finite(errors, sizeof errors / sizeof errors[0], "an approximation error");
    if (finite != CLI_OK) return finite;
    cli_table_rowf(t, "%.6g\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g%s",
                   f, n, w->tau, w->entropy, e_haar, e_low, e_top, e_mra[0], e_mra[1], e_haar / a, e_low / a,
                   e_top / a, e_mra[0] / a, e_mra[1] / a, thr, w->small, w->in->label);
    return CLI_OK;
}

/* --matrix-out: A and the two reconstructions, entry by entry. */
static void haar_matrix_rows(const haar_work *w, cli_table *mt)
{
    size_t n = w->n;
    const double *s = w->s;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            size_t id = i + j * n;
            double h1 = w->keepmat[0] ? w->keepmat[0][id] : 0, h2 = w->keepmat[1] ? w->keepmat[1][id] : 0;
            cli_table_rowf(mt, "%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g", i, j, s[id], h1, fabs(h1 - s[id]), h2,
                           fabs(h2 - s[id]));
        }
}

/* A, its entropy, Haar coefficients and singular values. */
static int haar_prepare(haar_work *w)
{
    size_t n = w->n, nn = n * n;
    w->s = malloc(nn * sizeof(double));
    w->c = malloc(nn * sizeof(double));
    w->hat = malloc(nn * sizeof(double));
    w->eye = calloc(nn, sizeof(double));
    w->sv = malloc(n * sizeof(double));
    if (!w->s || !w->c || !w->hat || !w->eye || !w->sv) return cli_failure("out of memory");
    const mra_inputs *in = w->in;
    skit_attention_mask mask = {in->mask, w->causal};
    /* the matrix and its entropy (4 n^2 d), the Haar transform, the SVD (~20 n^3) */
    cli_progress_cost(4.0 * (double)nn * (double)w->d + 20.0 * (double)nn * (double)n,
                      "attention matrix and its SVD, n = %zu", n);
    int st = skit_attention_matrix_masked(n, w->d, in->q, n, in->k, n, w->scale, &mask, w->s, n);
    if (st == SKIT_OK)
        st = skit_attention_entropy_masked(n, w->d, in->q, n, in->k, n, w->scale, &mask, NULL, &w->entropy);
    if (st != SKIT_OK) return cli_library_error(st);
    int finite = mra_require_finite(w->s, nn, "the attention matrix");
    if (finite == CLI_OK) finite = mra_require_finite(&w->entropy, 1, "its entropy");
    if (finite != CLI_OK) return finite;
    st = skit_haar2d_forward(n, w->s, n, w->c, n);
    if (st == SKIT_OK) st = skit_svd(n, n, w->s, n, w->sv, NULL, n, NULL, n);
    if (st != SKIT_OK) return cli_library_error(st);
    double norm = 0;
    for (size_t i = 0; i < nn; i++) norm += w->s[i] * w->s[i];
    w->norm = sqrt(norm);
    /* a row-stochastic matrix has ||S||_F >= 1 (each valid row's squares
     * sum to at least 1/n); 0 means every row's softmax failed */
    if (!(w->norm > 0)) return mra_require_finite(&(double){NAN}, 1, "the attention matrix's norm");
    for (size_t j = 0; j < n; j++) w->eye[j + j * n] = 1.0;
    return CLI_OK;
}

static void haar_free(haar_work *w)
{
    free(w->s);
    free(w->c);
    free(w->hat);
    free(w->eye);
    free(w->sv);
    free(w->keepmat[0]);
    free(w->keepmat[1]);
}

/* --matrix-out, --histogram-out, then the table of errors; small: the
 * fraction of small coefficients of the one run (NAN for several). */
static int haar_write(const mra_options *o, cli_table *t, cli_table *ht, cli_table *mt, double small,
                      int argc, char **argv)
{
    int status = CLI_OK;
    if (o->matrix_out)
        status = cli_table_save(mt, o->matrix_out, argc, argv, o->common.seed,
                                "A = softmax matrix; hat1/hat2: Haar reconstructions at the first two "
                                "--keep fractions; err = |hat - A|");
    if (status == CLI_OK && o->hist_out)
        status = cli_table_save(ht, o->hist_out, argc, argv, o->common.seed,
                                "histogram of log10 |Haar coefficient| (bins of 0.25)");
    if (status != CLI_OK) return status;
    char cm1[200], cm2[300];
    if (isnan(small))
        snprintf(cm1, sizeof cm1, "fraction_small: fraction of Haar coefficients with magnitude < %g, per head",
                 o->threshold);
    else
        snprintf(cm1, sizeof cm1, "fraction of Haar coefficients with magnitude < %g: %.4f", o->threshold, small);
    snprintf(cm2, sizeof cm2,
             "Haar: orthonormal 2-D transform (pyramid, Parseval ||C||_F = ||A||_F) of the n x n softmax matrix A "
             "with unit row sums (entries ~1/n); small = |coefficient| < %g (--threshold)", o->threshold);
    const char *comments[] = {
        "errors: ||Ahat - A||_F on the softmax matrix A at equal budgets: haar keeps the top "
        "fraction of coefficients, lowrank the top fraction of singular values, topk of entries, "
        "mra2/mra2s refine that fraction of blocks",
        "*_rel = error / ||A||_F", cm1, cm2, NULL};
    return mra_emit(t, &o->common, "errors: Frobenius norms (dimensionless)", comments, argc, argv,
                    "mra_haar_errors", NULL);
}

/* haar on one input: a row per --keep into t; the histogram (ht) and
 * entries (mt) when not NULL. *small: its fraction of small coefficients. */
static int haar_run(const mra_options *o, const mra_inputs *in, cli_table *t, cli_table *ht, cli_table *mt,
                    double *small)
{
    haar_work w;
    memset(&w, 0, sizeof w);
    w.in = in;
    w.n = in->n;
    w.d = in->d;
    w.tau = o->temperature ? o->temperature[0] : 1.0;
    w.scale = mra_base_scale(o, w.d) / w.tau;
    w.causal = o->causal;
    int status = haar_prepare(&w);
    if (status == CLI_OK) *small = w.small = haar_histogram(w.c, w.n * w.n, o->threshold, ht);
    for (size_t ki = 0; ki < o->nkeep && status == CLI_OK; ki++) status = haar_row(o, &w, ki, t);
    if (status == CLI_OK && mt) haar_matrix_rows(&w, mt);
    haar_free(&w);
    return status;
}

int mra_haar(mra_options *o, int argc, char **argv)
{
    static const char *const cols[] = {"keep", "n", "temperature", "entropy", "haar_error",
                                       "lowrank_error", "topk_error", "mra2_error", "mra2s_error",
                                       "haar_rel", "lowrank_rel", "topk_rel", "mra2_rel", "mra2s_rel",
                                       "haar_threshold", "fraction_small", NULL};
    static const char *const hcols[] = {"log10_lo", "log10_hi", "count", "fraction", NULL};
    static const char *const mcols[] = {"i", "j", "A", "hat1", "err1", "hat2", "err2", NULL};
    if (o->ntemperature > 1) return cli_usage_error("--temperature: haar takes one value");
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra haar'");
    if (o->nn > 1) return cli_usage_error("--n: haar takes one value");
    mra_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && mra_load_stack(o, 0, &stack) != CLI_OK) return CLI_USAGE;
    size_t runs = mra_run_count(o, &stack);
    if ((o->matrix_out || o->hist_out) && runs != 1) {
        mra_stack_free(&stack);
        return cli_usage_error("--matrix-out/--histogram-out: one head at a time (--heads I), got %zu", runs);
    }
    cli_table t, ht, mt;
    mra_table_init(&t, o, cols);
    cli_table_init(&ht, hcols);
    cli_table_init(&mt, mcols);
    int status = CLI_OK;
    double small = NAN;
    cli_progress_start(&o->common);
    for (size_t r = 0; r < runs && status == CLI_OK; r++) {
        mra_inputs in;
        if ((status = mra_run_inputs(o, &stack, r, 0, &in)) != CLI_OK) break;
        cli_progress("haar %zu of %zu", r + 1, runs);
        status = haar_run(o, &in, &t, r ? NULL : &ht, o->matrix_out && !r ? &mt : NULL, &small);
        mra_inputs_free(&in);
    }
    cli_progress_done();
    if (status == CLI_OK) status = haar_write(o, &t, &ht, &mt, runs == 1 ? small : NAN, argc, argv);
    cli_table_free(&t);
    cli_table_free(&ht);
    cli_table_free(&mt);
    mra_stack_free(&stack);
    return status;
}
