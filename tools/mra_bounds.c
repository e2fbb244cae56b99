/* mra_bounds.c — the paper's statements checked on every square or subset:
 * `skit mra bounds` (Lemma 4.1, Proposition 4.5) and `skit mra frame`
 * (Observation A.1). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mra.h"

static size_t clamp_size(double v, size_t lo, size_t hi)
{
    if (!(v >= (double)lo)) return lo;
    if (v >= (double)hi) return hi;
    return (size_t)llround(v);
}

/* ---- bounds (Lemma 4.1, Proposition 4.5) ---------------------------------------------- */

/* Lemma 4.1 on squares of side b and Proposition 4.5 at every --budget: one
 * row per budget. */
static int bounds_rows(const mra_options *o, cli_table *t, const mra_inputs *in, double tau, double scale,
                       size_t b)
{
    size_t n = in->n, d = in->d, rows = n / b;
    cli_progress("n = %zu, tau = %g, block %zu", n, tau, b);
    skit_mra_lemma41 lr;
    int st = skit_mra_lemma41_evaluate(n, d, in->q, n, in->k, n, scale, b, &lr);
    for (size_t fi = 0; fi < o->nbudget && st == SKIT_OK; fi++) {
        size_t m1 = clamp_size(o->budget[fi] * (double)rows * (double)rows, 0, rows * rows);
        skit_mra_prop45 pr;
        st = skit_mra_prop45_evaluate(n, d, in->q, n, in->k, n, scale, b, m1, &pr);
        if (st != SKIT_OK) break;
        const double measured[] = {lr.max_ratio, lr.max_ratio_holder, lr.mean_range, lr.max_range, pr.measured,
                                   pr.bound};
        int finite = mra_require_finite(measured, sizeof measured / sizeof measured[0], "a Lemma 4.1 / Prop. 4.5 term");
        if (finite != CLI_OK) return finite;
        cli_table_rowf(t, "%zu\t%.6g\t%zu\t%.6g\t%zu\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s%s", n,
                       tau, b, o->budget[fi], lr.blocks, lr.lower_violations, lr.upper_violations,
                       lr.holder_violations, lr.max_ratio, lr.max_ratio_holder, lr.mean_range, lr.max_range,
                       (double)m1, pr.measured, pr.bound, pr.holds ? "yes" : "no", in->label);
    }
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

int mra_bounds(mra_options *o, int argc, char **argv)
{
    static const char *const cols[] = {
        "n", "temperature", "block", "budget", "blocks", "lemma_lower_violations",
        "lemma_upper_violations", "lemma_holder_violations", "lemma_max_ratio",
        "lemma_max_ratio_holder", "mean_range", "max_range", "prop_refined", "prop_measured",
        "prop_bound", "prop_holds", NULL};
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra bounds'");
    mra_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && mra_load_stack(o, 0, &stack) != CLI_OK) return CLI_USAGE;
    size_t nruns = mra_run_count(o, &stack);
    int status = CLI_OK;
    /* validate sizes first */
    for (size_t ni = 0; ni < nruns; ni++) {
        size_t n = o->qpath ? stack.n : o->n[ni];
        for (size_t bi = 0; bi < o->nblock; bi++)
            if (o->block[bi] > n || n % o->block[bi]) {
                mra_stack_free(&stack);
                return cli_usage_error("--block = %zu does not divide --n = %zu", o->block[bi], n);
            }
    }
    cli_table t;
    mra_table_init(&t, o, cols);
    cli_progress_start(&o->common);
    for (size_t ni = 0; ni < nruns && status == CLI_OK; ni++) {
        mra_inputs in;
        if ((status = mra_run_inputs(o, &stack, ni, 0, &in)) != CLI_OK) break;
        size_t d = in.d;
        for (size_t ti = 0; ti < o->ntemperature && status == CLI_OK; ti++) {
            double tau = o->temperature[ti], scale = mra_base_scale(o, d) / tau;
            for (size_t bi = 0; bi < o->nblock && status == CLI_OK; bi++)
                status = bounds_rows(o, &t, &in, tau, scale, o->block[bi]);
        }
        mra_inputs_free(&in);
    }
    mra_stack_free(&stack);
    cli_progress_done();
    if (status == CLI_OK) {
        const char *comments[] = {
            "Lemma 4.1: 0 <= mu* - mu <= C_r mu on every square of side block; ratio = (mu* - mu) / "
            "(C_r mu) (<= 1 means it holds), r = measured range of P on the square, holder: r = 2 "
            "beta1 beta2 (p = q = 2)",
            "Proposition 4.5: R = {block, 1}, the budget fraction of squares with the largest mu "
            "exact; measured = ||Ahat - A||_F / ||A||_F for A = exp(P)",
            NULL};
        status = mra_emit(&t, &o->common, "ratios and errors dimensionless; ranges in logit units",
                          comments, argc, argv, "mra_bounds", NULL);
    }
    cli_table_free(&t);
    return status;
}

/* ---- frame (Observation A.1) --------------------------------------------------------- */

int mra_frame(mra_options *o, int argc, char **argv)
{
    static const char *const cols[] = {"n", "subset", "density", "components", "max_difference", NULL};
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra frame'");
    size_t subsets = o->subsets ? o->subsets : 20;
    mra_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && mra_load_stack(o, 0, &stack) != CLI_OK) return CLI_USAGE;
    size_t runs = mra_run_count(o, &stack);
    cli_table t;
    mra_table_init(&t, o, cols);
    int status = CLI_OK;
    skit_rng rng;
    skit_rng_seed_stream(&rng, o->common.seed, 77);
    for (size_t ni = 0; ni < runs && status == CLI_OK; ni++) {
        mra_inputs in;
        if ((status = mra_run_inputs(o, &stack, ni, 0, &in)) != CLI_OK) break;
        size_t n = in.n, count = skit_mra_frame_count(n);
        double *s = malloc(n * n * sizeof *s);
        unsigned char *sub = malloc(count);
        if (!s || !sub) status = cli_failure("out of memory");
        int st = SKIT_OK;
        skit_attention_mask mask = {in.mask, o->causal};
        if (status == CLI_OK)
            st = skit_attention_matrix_masked(n, in.d, in.q, n, in.k, n,
                                              mra_base_scale(o, in.d) / o->temperature[0], &mask, s, n);
        for (size_t r = 0; r < subsets && st == SKIT_OK && status == CLI_OK; r++) {
            double density = skit_rng_uniform(&rng);
            size_t in_j = 0;
            for (size_t i = 0; i < count; i++) in_j += sub[i] = skit_rng_uniform(&rng) < density;
            double diff;
            st = skit_mra_observation_a1(n, s, n, sub, &diff);
            if (st == SKIT_OK)
                cli_table_rowf(&t, "%zu\t%zu\t%.6g\t%zu\t%.6g%s", n, r, density, in_j, diff, in.label);
        }
        if (st != SKIT_OK && status == CLI_OK) status = cli_library_error(st);
        free(s);
        free(sub);
        mra_inputs_free(&in);
    }
    mra_stack_free(&stack);
    if (status == CLI_OK) {
        const char *comments[] = {
            "max_difference = max |form (3) - form (5)| / max |A| for A = the softmax matrix and a "
            "random subset J of the frame (1) (each component in J with probability density)",
            NULL};
        status = mra_emit(&t, &o->common, "differences relative to max |A|", comments, argc, argv,
                          "mra_frame", NULL);
    }
    cli_table_free(&t);
    return status;
}
