/* cmd_mra.c — `skit mra`: MRA attention and its baselines on structured
 * synthetic or user Q, K, V (mra-attention §3–5, A.2–A.3).
 *
 *   skit mra [sweep]   method x budget x n x temperature: relative error,
 *                      time, memory (Table 7, Figures 4-5)
 *   skit mra haar      2-D Haar coefficients of a softmax matrix, top-k
 *                      reconstructions vs low rank / sparse / MRA-2 (Figure 1)
 *   skit mra workload  budget needed for a target error vs n (Figure 7)
 *   skit mra bounds    Lemma 4.1 and Proposition 4.5 on every square
 *   skit mra frame     Observation A.1 on random subsets of the frame (1)
 *
 * Every argument is validated before any work; the tables are written once
 * at the end (atomically with -o), so a failure leaves no partial file.
 * This file holds the options, their checks and the dispatch to the modes:
 * mra_inputs.c reads or generates Q, K, V, mra_sweep.c runs sweep and
 * workload, mra_haar.c haar, mra_bounds.c bounds and frame (mra.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "mra.h"

/* The table with its comment lines (NULL-terminated) to -o or stdout, and
 * with --plot the figure. */
int mra_emit(cli_table *t, const cli_common *common, const char *units,
             const char *const *comments, int argc, char **argv, const char *script,
             const char *variables)
{
    for (size_t i = 0; comments && comments[i]; i++) cli_table_comment(t, "%s", comments[i]);
    return cli_table_emit(t, common, argc, argv, units, script, variables);
}

/* ---- options ---------------------------------------------------------------- */

const char *const mra_mode_names[] = {"sweep", "haar", "workload", "bounds", "frame", NULL};

enum {
    OPT_METHODS = 0x2000, OPT_N, OPT_D, OPT_DV, OPT_BUDGET, OPT_TEMPERATURE, OPT_ENTROPY,
    OPT_BETA, OPT_LOCALITY, OPT_NOISE, OPT_SINKS, OPT_SINK_STRENGTH, OPT_Q, OPT_K, OPT_V,
    OPT_SCALE, OPT_BLOCK, OPT_SCALES, OPT_SELECTION, OPT_DIAG, OPT_FIRST, OPT_REPEAT, OPT_KEEP,
    OPT_MATRIX_OUT, OPT_HIST_OUT, OPT_TARGETS, OPT_SUBSETS, OPT_PER_ROW, OPT_DEVICE, OPT_Y_OUT,
    OPT_THRESHOLD, OPT_PAD, OPT_HEADS, OPT_SAVE_INPUTS, OPT_MASK, OPT_PRECISION, OPT_LAST
};

/* Which options each mode takes (bit i = option OPT_METHODS + i). */
#define BIT(o) (1ull << ((o) - OPT_METHODS))
static const unsigned long long mode_options[MODE_COUNT] = {
    /* sweep */ BIT(OPT_METHODS) | BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_DV) | BIT(OPT_BUDGET) |
        BIT(OPT_TEMPERATURE) | BIT(OPT_ENTROPY) | BIT(OPT_BETA) | BIT(OPT_LOCALITY) |
        BIT(OPT_NOISE) | BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) | BIT(OPT_Q) | BIT(OPT_K) |
        BIT(OPT_V) | BIT(OPT_SCALE) | BIT(OPT_BLOCK) | BIT(OPT_SCALES) | BIT(OPT_SELECTION) |
        BIT(OPT_DIAG) | BIT(OPT_FIRST) | BIT(OPT_REPEAT) | BIT(OPT_PER_ROW) | BIT(OPT_DEVICE) |
        BIT(OPT_Y_OUT) | BIT(OPT_PAD) | BIT(OPT_HEADS) | BIT(OPT_SAVE_INPUTS) | BIT(OPT_MASK) |
        BIT(OPT_PRECISION),
    /* haar */ BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) |
        BIT(OPT_LOCALITY) | BIT(OPT_NOISE) | BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) |
        BIT(OPT_BLOCK) | BIT(OPT_KEEP) | BIT(OPT_MATRIX_OUT) | BIT(OPT_HIST_OUT) | BIT(OPT_Q) |
        BIT(OPT_K) | BIT(OPT_SCALE) | BIT(OPT_THRESHOLD) | BIT(OPT_PAD) | BIT(OPT_HEADS) |
        BIT(OPT_SAVE_INPUTS) | BIT(OPT_MASK),
    /* workload */ BIT(OPT_METHODS) | BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_DV) |
        BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) | BIT(OPT_LOCALITY) | BIT(OPT_NOISE) |
        BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) | BIT(OPT_BLOCK) | BIT(OPT_TARGETS) | BIT(OPT_Q) |
        BIT(OPT_K) | BIT(OPT_V) | BIT(OPT_SCALE) | BIT(OPT_HEADS) | BIT(OPT_SAVE_INPUTS),
    /* bounds */ BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) |
        BIT(OPT_LOCALITY) | BIT(OPT_NOISE) | BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) |
        BIT(OPT_BLOCK) | BIT(OPT_BUDGET) | BIT(OPT_Q) | BIT(OPT_K) | BIT(OPT_SCALE) | BIT(OPT_HEADS) |
        BIT(OPT_SAVE_INPUTS),
    /* frame */ BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) |
        BIT(OPT_LOCALITY) | BIT(OPT_NOISE) | BIT(OPT_SUBSETS) | BIT(OPT_Q) | BIT(OPT_K) |
        BIT(OPT_SCALE) | BIT(OPT_PAD) | BIT(OPT_HEADS) | BIT(OPT_SAVE_INPUTS) | BIT(OPT_MASK),
};

static const char *usage =
    "usage: skit mra [MODE] [options]                 skit mra MODE --help\n"
    "MRA attention (MRA-2, MRA-2-s) and its baselines on structured synthetic or\n"
    "user Q, K, V. Modes:\n"
    "  sweep     (default) method x budget x n x temperature: relative error\n"
    "            ||Yhat - Y||_F / ||Y||_F against exact attention, time, memory\n"
    "  haar      2-D Haar coefficients of a softmax matrix; reconstruction from the\n"
    "            top-k%% coefficients vs low rank, sparse and MRA-2 (paper Figure 1)\n"
    "  workload  the smallest budget reaching a target error, vs n (Figure 7)\n"
    "  bounds    Lemma 4.1 and Proposition 4.5 on every square of side --block\n"
    "  frame     Observation A.1 (forms (3) and (5) agree) on random subsets\n\n"
    "Inputs (all modes): synthetic Q, K, V from a seeded generator — tokens share a\n"
    "smooth latent sequence (locality), logits about --beta for a token with itself:\n"
    "  --n LIST            sequence lengths, e.g. 1024 or 256..4096 (default 1024;\n"
    "                      haar 128, workload 256,512,1024, frame 8,16,32,64)\n"
    "  --d N               head dimension (default 64)      --dv N  value dim (default d)\n"
    "  --beta B            generator's inverse temperature (default 4)\n"
    "  --locality L        correlation length in tokens (default 16; 0 = i.i.d.)\n"
    "  --noise X           i.i.d. noise relative to the smooth part (default 0.3)\n"
    "  --sinks N           key positions every query attends to (default 0)\n"
    "  --sink-strength X   their extra logit in units of beta (default 1)\n"
    "  --temperature LIST  softmax temperature tau: logits = scale q.k / tau (default 1)\n"
    "  --entropy LIST      instead of tau: the tau whose mean row entropy (nats) is\n"
    "                      each target, found by bisection (sweep)\n"
    "  --q F --k F --v F   user Q, K and V from .npy files instead (float64 or float32):\n"
    "                      one head (n x d), a stack (H, n, d) or (L, H, n, d) in C order,\n"
    "                      or a directory of per-head n x d files (natural name order;\n"
    "                      names with layer and head numbers forming a full grid, as\n"
    "                      l0_h0 .. l5_h11, give (L, H), else head = position); every\n"
    "                      head is run and its rows end in the columns\n"
    "                      layer and head. sweep and workload need --v (V: n x dv per\n"
    "                      head, same leading axes); haar, bounds, frame take --q --k.\n"
    "                      logits = scale Q K^T: give Q, K unscaled for the default scale\n"
    "  --heads LIST        with a stack: only these heads (flat index layer * H + head)\n"
    "  --save-inputs DIR   also write the synthetic Q, K, V (one --n) to DIR/q.npy,\n"
    "                      k.npy, v.npy (n x d, n x dv), e.g. to rerun them with --q --k\n"
    "  --pad P             the last P tokens are padding: never attended to, output 0\n"
    "                      (sweep, haar, frame; the library's padding mask)\n"
    "  --mask M            none (default) or causal: query i attends to keys j <= i\n"
    "                      only, as in a decoder (sweep, haar, frame); every method\n"
    "                      approximates the causal matrix (nystrom, linformer,\n"
    "                      linformer-fit and performer have no causal form and are\n"
    "                      refused)\n"
    "  --scale X           logit scale before tau (default 1/sqrt(d))\n\n"
    "sweep options:\n"
    "  --methods LIST      exact,mra2,mra2s,lowrank,topk,nystrom,linformer,performer,\n"
    "                      window,bigbird,linformer-fit (default mra2,mra2s);\n"
    "                      linformer: seeded Gaussian E, F; linformer-fit: E the\n"
    "                      segment means, F = P^+ S fitted to the head it is scored\n"
    "                      on (least squares: an oracle, the smallest rel_error any\n"
    "                      F gives with that E; the fit is not timed)\n"
    "  --budget LIST       fractions f in (0, 1] of the n^2 attention entries (default\n"
    "                      0.05,0.1,0.25): mra2/mra2s refine round(f n/b) blocks per\n"
    "                      row; lowrank rank, nystrom landmarks, linformer and\n"
    "                      linformer-fit k, performer features = round(f n); topk\n"
    "                      keeps round(f n^2) entries;\n"
    "                      window: the narrowest band |i - j| <= w with f n^2 entries;\n"
    "                      bigbird: 3 window + 1 global + random blocks, round(f n/b)\n"
    "                      blocks per row in all (at least 4)\n"
    "  --per-row LIST      budgets as attention entries per query instead (fixed across\n"
    "                      n: f = k/n; budgets with k > n are skipped), e.g. 256,512\n"
    "  --block B           MRA and BigBird block size (default 32; n a multiple of it)\n"
    "  --scales LIST       MRA scales R, e.g. 128,32,1 (default block,1)\n"
    "  --selection S       global (default: one top-k) or row (per-row top-k)\n"
    "  --diagonal-prior W  refine squares with |x - y| < W first (default 0)\n"
    "  --first-block-prior refine the first block row and column first\n"
    "  --repeat N          time the minimum of N runs (default 3)\n"
    "  --y-out FILE.npy    the approximate output Y of the one method, budget and\n"
    "                      temperature given: the shape of V's stack (synthetic: n x dv)\n"
    "  --device D          cpu (default) or cuda: run the methods on the GPU (exact,\n"
    "                      mra2, mra2s; float64, transfers included in time_s; MRA\n"
    "                      with two levels); the reference Y stays on the CPU\n"
    "  --precision P       f64 (default) or f32: exact, mra2, mra2s computed in float32\n"
    "                      (sgemm, float tiles; Q, K, V rounded to float; MRA with\n"
    "                      two levels, on the cpu); rel_error stays against float64\n"
    "                      exact attention, --y-out is written '<f4'\n"
    "haar options:   --keep LIST (fractions of coefficients, default 0.05,0.1),\n"
    "                --threshold X (a coefficient is small below X, default 0.005; the\n"
    "                orthonormal 2-D Haar transform of the row-stochastic softmax matrix),\n"
    "                the non-standard (square-support) decomposition of the paper's Fig. 2:\n"
    "                per level one Haar step on the rows and the columns of the low-low\n"
    "                quadrant, then recursion on it (not the tensor-product standard one,\n"
    "                whose rectangular supports give other counts of small coefficients),\n"
    "                --matrix-out FILE (i, j, S and reconstructions), --histogram-out FILE\n"
    "                (with a stack: one head, chosen by --heads)\n"
    "workload:       --methods (lowrank,topk,mra2,mra2s; default lowrank,topk,mra2),\n"
    "                --targets LIST (default 0.05,0.1)\n"
    "bounds:         --block LIST (square sides, default 32), --budget LIST (fraction of\n"
    "                squares exact in Proposition 4.5, default 0.1)\n"
    "frame:          --subsets N (random subsets per n, default 20)\n\n"
    CLI_COMMON_HELP
    "  -h, --help          this message\n\n"
    "examples:\n"
    "  skit mra --methods mra2,mra2s,nystrom,performer,bigbird --n 1024,4096 --plot err.png\n"
    "  skit mra --methods exact,mra2 --q q.npy --k k.npy --v v.npy --budget 0.1\n"
    "  skit mra --methods exact,mra2,mra2s --n 4096,16384 --device cuda\n"
    "  skit mra haar --n 256 --keep 0.05,0.1 --histogram-out hist.tsv\n"
    "  skit mra haar --q q.npy --k k.npy --block 32 --keep 0.1    (every head of a stack)\n"
    "  skit mra workload --n 256..2048 --targets 0.05,0.1\n"
    "  skit mra bounds --n 1024 --block 8,32 --temperature 0.5,1,2\n";

/* An option of the inputs (synthetic generator, user files, masks):
 * CLI_OK, CLI_USAGE (reported), -1 if not one. */
static int apply_input_option(mra_options *o, int opt, const char *arg)
{
    static const char *const mask_choices[] = {"none", "causal", NULL};
    switch (opt) {
    case OPT_N:
        free(o->n);
        return cli_parse_size_list("--n", arg, 1, (size_t)1 << 24, &o->n, &o->nn);
    case OPT_D: return cli_parse_size("--d", arg, 1, 4096, &o->d);
    case OPT_DV: return cli_parse_size("--dv", arg, 1, 4096, &o->dv);
    case OPT_TEMPERATURE:
        free(o->temperature);
        return cli_parse_double_list("--temperature", arg, 1e-6, 1e6, &o->temperature, &o->ntemperature);
    case OPT_ENTROPY:
        free(o->entropy);
        return cli_parse_double_list("--entropy", arg, 1e-3, 30, &o->entropy, &o->nentropy);
    case OPT_BETA: return cli_parse_double("--beta", arg, 0, 1e6, 1, 0, &o->spec.inverse_temperature);
    case OPT_LOCALITY: return cli_parse_double("--locality", arg, 0, 1e9, 0, 0, &o->spec.correlation_length);
    case OPT_NOISE: return cli_parse_double("--noise", arg, 0, 1e6, 0, 0, &o->spec.noise);
    case OPT_SINKS: return cli_parse_size("--sinks", arg, 0, (size_t)1 << 24, &o->spec.sinks);
    case OPT_SINK_STRENGTH: return cli_parse_double("--sink-strength", arg, 0, 1e6, 0, 0, &o->spec.sink_strength);
    case OPT_Q: o->qpath = arg; return CLI_OK;
    case OPT_K: o->kpath = arg; return CLI_OK;
    case OPT_V: o->vpath = arg; return CLI_OK;
    case OPT_SCALE: return cli_parse_double("--scale", arg, 0, 1e6, 1, 0, &o->scale);
    case OPT_SAVE_INPUTS: o->save_inputs = arg; return CLI_OK;
    case OPT_PAD: return cli_parse_size("--pad", arg, 0, (size_t)1 << 24, &o->pad);
    case OPT_MASK: return cli_parse_choice("--mask", arg, mask_choices, &o->causal);
    case OPT_HEADS:
        free(o->heads);
        return cli_parse_size_list("--heads", arg, 0, (size_t)1 << 24, &o->heads, &o->nheads);
    }
    return -1;
}

/* The fractions of --keep (haar) and the errors of --targets (workload):
 * lists of positive numbers up to `hi`. */
static int parse_positive_list(const char *option, const char *arg, double hi, const char *what,
                               double **values, size_t *count)
{
    free(*values);
    int st = cli_parse_double_list(option, arg, 0, hi, values, count);
    for (size_t i = 0; st == CLI_OK && i < *count; i++)
        if (!((*values)[i] > 0))
            st = cli_usage_error("%s: expected %s in (0, %g], got %g", option, what, hi, (*values)[i]);
    return st;
}

/* An option of the methods and of what the modes measure: CLI_OK,
 * CLI_USAGE (reported), -1 if not one. */
static int apply_method_option(mra_options *o, int opt, const char *arg)
{
    static const char *const method_choices[] = {"exact", "mra2", "mra2s", "lowrank", "topk",
                                                 "nystrom", "linformer", "performer", "window",
                                                 "bigbird", "linformer-fit", NULL};
    static const char *const selection_choices[] = {"global", "row", NULL};
    static const char *const device_choices[] = {"cpu", "cuda", NULL};
    switch (opt) {
    case OPT_METHODS:
        memset(o->methods, 0, sizeof o->methods);
        o->methods_given = 1;
        return cli_parse_choice_list("--methods", arg, method_choices, o->methods);
    case OPT_BUDGET:
        free(o->budget);
        o->budget_given = 1;
        return cli_parse_double_list_range("--budget", arg, 0, 1, 1, 0, &o->budget, &o->nbudget);
    case OPT_PER_ROW:
        free(o->per_row);
        return cli_parse_size_list("--per-row", arg, 1, (size_t)1 << 24, &o->per_row, &o->nper_row);
    case OPT_BLOCK:
        free(o->block);
        if (cli_parse_size_list("--block", arg, 1, (size_t)1 << 20, &o->block, &o->nblock) != CLI_OK)
            return CLI_USAGE;
        if (o->mode != MODE_BOUNDS && o->nblock > 1)
            return cli_usage_error("--block: expected one block size, got a list '%s'", arg);
        return CLI_OK;
    case OPT_SCALES:
        free(o->scales);
        return cli_parse_size_list("--scales", arg, 1, (size_t)1 << 20, &o->scales, &o->nscales);
    case OPT_SELECTION: return cli_parse_choice("--selection", arg, selection_choices, &o->selection);
    case OPT_DIAG: return cli_parse_size("--diagonal-prior", arg, 0, (size_t)1 << 24, &o->diag);
    case OPT_FIRST: o->first = 1; return CLI_OK;
    case OPT_REPEAT: return cli_parse_size("--repeat", arg, 1, 100, &o->repeat);
    case OPT_KEEP: return parse_positive_list("--keep", arg, 1, "fractions", &o->keep, &o->nkeep);
    case OPT_TARGETS:
        return parse_positive_list("--targets", arg, 10, "relative errors", &o->targets, &o->ntargets);
    case OPT_MATRIX_OUT: o->matrix_out = arg; return CLI_OK;
    case OPT_HIST_OUT: o->hist_out = arg; return CLI_OK;
    case OPT_SUBSETS: return cli_parse_size("--subsets", arg, 1, 10000, &o->subsets);
    case OPT_DEVICE: return cli_parse_choice("--device", arg, device_choices, &o->device);
    case OPT_Y_OUT: o->y_out = arg; return CLI_OK;
    case OPT_THRESHOLD: return cli_parse_double("--threshold", arg, 0, 1e6, 1, 0, &o->threshold);
    case OPT_PRECISION: return cli_parse_precision(arg, &o->precision);
    }
    return -1;
}

/* One option (cli_options.apply): refused unless the mode takes it;
 * -1 for the common options. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    mra_options *o = ctx;
    if (opt < OPT_METHODS || opt >= OPT_LAST) return -1;
    if (!(mode_options[o->mode] & BIT(opt)))
        return cli_usage_error("option '%s' does not apply to 'skit mra %s' (see --help)", cli_option_name(),
                               mra_mode_names[o->mode]);
    int st = apply_input_option(o, opt, arg);
    return st != -1 ? st : apply_method_option(o, opt, arg);
}

static int parse_options(int argc, char **argv, mra_options *o)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"methods", required_argument, NULL, OPT_METHODS},
        {"n", required_argument, NULL, OPT_N},
        {"d", required_argument, NULL, OPT_D},
        {"dv", required_argument, NULL, OPT_DV},
        {"budget", required_argument, NULL, OPT_BUDGET},
        {"temperature", required_argument, NULL, OPT_TEMPERATURE},
        {"entropy", required_argument, NULL, OPT_ENTROPY},
        {"beta", required_argument, NULL, OPT_BETA},
        {"locality", required_argument, NULL, OPT_LOCALITY},
        {"noise", required_argument, NULL, OPT_NOISE},
        {"sinks", required_argument, NULL, OPT_SINKS},
        {"sink-strength", required_argument, NULL, OPT_SINK_STRENGTH},
        {"q", required_argument, NULL, OPT_Q},
        {"k", required_argument, NULL, OPT_K},
        {"v", required_argument, NULL, OPT_V},
        {"scale", required_argument, NULL, OPT_SCALE},
        {"block", required_argument, NULL, OPT_BLOCK},
        {"scales", required_argument, NULL, OPT_SCALES},
        {"selection", required_argument, NULL, OPT_SELECTION},
        {"diagonal-prior", required_argument, NULL, OPT_DIAG},
        {"first-block-prior", no_argument, NULL, OPT_FIRST},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"keep", required_argument, NULL, OPT_KEEP},
        {"matrix-out", required_argument, NULL, OPT_MATRIX_OUT},
        {"histogram-out", required_argument, NULL, OPT_HIST_OUT},
        {"targets", required_argument, NULL, OPT_TARGETS},
        {"subsets", required_argument, NULL, OPT_SUBSETS},
        {"per-row", required_argument, NULL, OPT_PER_ROW},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"y-out", required_argument, NULL, OPT_Y_OUT},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"pad", required_argument, NULL, OPT_PAD},
        {"mask", required_argument, NULL, OPT_MASK},
        {"heads", required_argument, NULL, OPT_HEADS},
        {"save-inputs", required_argument, NULL, OPT_SAVE_INPUTS},
        {"precision", required_argument, NULL, OPT_PRECISION},
        {NULL, 0, NULL, 0}};
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (!o->methods_given) {
        memset(o->methods, 0, sizeof o->methods);
        if (o->mode == MODE_WORKLOAD) {
            o->methods[SKIT_ATTENTION_LOWRANK] = o->methods[SKIT_ATTENTION_TOPK] = 1;
            o->methods[SKIT_ATTENTION_MRA2] = 1;
        } else {
            o->methods[SKIT_ATTENTION_MRA2] = o->methods[SKIT_ATTENTION_MRA2_SPARSE] = 1;
        }
    }
    return CLI_OK;
}

/* *list = a copy of values[0..n) unless the user gave the list. */
static int default_doubles(double **list, size_t *count, const double *values, size_t n)
{
    if (*list) return CLI_OK;
    *list = malloc(n * sizeof **list);
    if (!*list) return cli_failure("out of memory");
    memcpy(*list, values, n * sizeof **list);
    *count = n;
    return CLI_OK;
}

static int default_sizes(size_t **list, size_t *count, const size_t *values, size_t n)
{
    if (*list) return CLI_OK;
    *list = malloc(n * sizeof **list);
    if (!*list) return cli_failure("out of memory");
    memcpy(*list, values, n * sizeof **list);
    *count = n;
    return CLI_OK;
}

/* The lists the user did not give, with the mode's defaults. */
static int mode_defaults(mra_options *o)
{
    static const size_t n_sweep[] = {1024}, n_haar[] = {128}, n_work[] = {256, 512, 1024},
                        n_frame[] = {8, 16, 32, 64}, block[] = {32};
    static const double sweep_b[] = {0.05, 0.1, 0.25}, bounds_b[] = {0.1}, tau[] = {1.0},
                        keep[] = {0.05, 0.1}, targets[] = {0.05, 0.1};
    const size_t *n = o->mode == MODE_HAAR ? n_haar
                      : o->mode == MODE_WORKLOAD ? n_work
                      : o->mode == MODE_FRAME ? n_frame : n_sweep;
    size_t nn = o->mode == MODE_WORKLOAD ? 3 : o->mode == MODE_FRAME ? 4 : 1;
    int st = default_sizes(&o->n, &o->nn, n, nn);
    if (st != CLI_OK) return st;
    if (o->per_row && o->budget) return cli_usage_error("--budget and --per-row exclude each other");
    if (!o->per_row) {
        int bounds = o->mode == MODE_BOUNDS;
        st = default_doubles(&o->budget, &o->nbudget, bounds ? bounds_b : sweep_b, bounds ? 1 : 3);
    }
    if (st == CLI_OK && !o->entropy) st = default_doubles(&o->temperature, &o->ntemperature, tau, 1);
    if (st != CLI_OK) return st;
    if (o->temperature && o->entropy) return cli_usage_error("--temperature and --entropy exclude each other");
    st = default_doubles(&o->keep, &o->nkeep, keep, 2);
    if (st == CLI_OK) st = default_doubles(&o->targets, &o->ntargets, targets, 2);
    if (st == CLI_OK) st = default_sizes(&o->block, &o->nblock, block, 1);
    if (o->dv == 0) o->dv = o->d;
    return st;
}

/* The sequence length n (given or of the user's inputs) against the mode. */
int mra_check_n(const mra_options *o, size_t n)
{
    const char *what = o->qpath ? "n (tokens of --q)" : "--n";
    int pow2 = n && !(n & (n - 1));
    if ((o->mode == MODE_HAAR || o->mode == MODE_FRAME) && !pow2)
        return cli_usage_error("%s = %zu: %s needs powers of two", what, n, mra_mode_names[o->mode]);
    if (o->mode == MODE_HAAR && n > 2048)
        return cli_usage_error("%s = %zu out of range: haar forms the n x n matrix, need n <= 2048", what, n);
    if (o->mode == MODE_FRAME && n > 512)
        return cli_usage_error("%s = %zu out of range: frame needs n <= 512", what, n);
    if (o->mode == MODE_WORKLOAD && n > 2048)
        return cli_usage_error("%s = %zu out of range: workload takes an SVD of the n x n matrix, need n <= 2048", what, n);
    if (o->mode == MODE_HAAR && (n < 2 * o->block[0] || n % o->block[0]))
        return cli_usage_error("%s = %zu: need a multiple of --block (= %zu) of at least 2 blocks",
                               what, n, o->block[0]);
    if (o->pad >= n) return cli_usage_error("--pad = %zu out of range: need < n (= %zu)", o->pad, n);
    return CLI_OK;
}

/* --y-out: one .npy file of one method at one budget and temperature. */
static int check_y_out(const mra_options *o)
{
    int methods = 0, method = 0;
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
        if (o->methods[m]) methods++, method = m;
    if (!cli_ends_with(o->y_out, ".npy")) return cli_usage_error("--y-out: need a .npy file name, got '%s'", o->y_out);
    if (methods != 1) return cli_usage_error("--y-out: give exactly one method (--methods), got %d", methods);
    size_t budgets = o->per_row ? o->nper_row : o->nbudget;
    if (method != SKIT_ATTENTION_EXACT && budgets != 1)
        return cli_usage_error("--y-out: give exactly one budget (--budget or --per-row), got %zu", budgets);
    if ((o->entropy ? o->nentropy : o->ntemperature) != 1)
        return cli_usage_error("--y-out: give one --temperature or --entropy");
    if (!o->qpath && o->nn != 1) return cli_usage_error("--y-out: give one --n, got %zu", o->nn);
    return CLI_OK;
}

/* Validation of everything that needs no data. */
/* --precision f32: the methods with a float32 path, on the cpu. */
static int check_f32(const mra_options *o)
{
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
        if (o->methods[m] && m != SKIT_ATTENTION_EXACT && m != SKIT_ATTENTION_MRA2 &&
            m != SKIT_ATTENTION_MRA2_SPARSE)
            return cli_usage_error("--precision f32: method '%s' runs in float64 only (f32 runs exact, "
                                   "mra2, mra2s)",
                                   skit_attention_method_name(m));
    if (o->device) return cli_usage_error("--precision f32: runs on the cpu only (--device cpu)");
    if (o->nscales && (o->nscales != 2 || o->scales[1] != 1))
        return cli_usage_error("--precision f32: MRA in float32 runs two levels (--scales B,1)");
    return CLI_OK;
}

static int check_options(const mra_options *o)
{
    if (o->qpath || o->kpath || o->vpath) {
        int need_v = o->mode == MODE_SWEEP || o->mode == MODE_WORKLOAD;
        if (!o->qpath || !o->kpath || (need_v && !o->vpath))
            return cli_usage_error("--q, --k%s must be given together", need_v ? " and --v" : "");
    } else if (o->heads) {
        return cli_usage_error("--heads selects heads of a --q/--k stack: give --q and --k");
    }
    if (o->y_out && check_y_out(o) != CLI_OK) return CLI_USAGE;
    if (o->save_inputs && (o->qpath || o->nn != 1))
        return cli_usage_error("--save-inputs: writes synthetic inputs of one --n (not with --q)");
    struct stat sb;
    if (o->save_inputs && (stat(o->save_inputs, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(o->save_inputs, W_OK)))
        return cli_usage_error("--save-inputs: '%s' is not a writable directory", o->save_inputs);
    if ((o->pad || o->causal) && o->entropy)
        return cli_usage_error("--%s and --entropy exclude each other (the entropy search sees every token)",
                               o->pad ? "pad" : "mask causal");
    for (int m = 0; o->causal && m < SKIT_ATTENTION_METHOD_COUNT; m++)
        if (o->methods[m] && (m == SKIT_ATTENTION_NYSTROM || m == SKIT_ATTENTION_LINFORMER ||
                              m == SKIT_ATTENTION_LINFORMER_FIT || m == SKIT_ATTENTION_PERFORMER))
            return cli_usage_error("--mask causal: method '%s' has no causal form (use exact, mra2, "
                                   "mra2s, lowrank, topk, window or bigbird)",
                                   skit_attention_method_name(m));
    if (o->causal && o->device)
        return cli_usage_error("--mask causal: runs on the CPU only (--device cpu)");
    if (o->causal && o->nscales && o->scales[o->nscales - 1] != 1)
        return cli_usage_error("--mask causal: needs the finest scale 1 (--scales ...,1)");
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    /* every output path is checked before anything is written, so a bad
     * second path cannot leave the first file behind */
    if (cli_check_output_path("--matrix-out", o->matrix_out) != CLI_OK ||
        cli_check_output_path("--histogram-out", o->hist_out) != CLI_OK ||
        cli_check_output_path("--y-out", o->y_out) != CLI_OK)
        return CLI_USAGE;
    if (o->precision == SKIT_PRECISION_F32 && check_f32(o) != CLI_OK) return CLI_USAGE;
    if (o->device) {
        for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
            if (o->methods[m] && m != SKIT_ATTENTION_EXACT && m != SKIT_ATTENTION_MRA2 &&
                m != SKIT_ATTENTION_MRA2_SPARSE)
                return cli_usage_error("--device cuda: method '%s' runs on the CPU only (cuda runs "
                                       "exact, mra2, mra2s)",
                                       skit_attention_method_name(m));
        if (o->nscales && (o->nscales != 2 || o->scales[1] != 1))
            return cli_usage_error("--device cuda: MRA on the GPU runs two levels (--scales B,1)");
        if (skit_device_check(SKIT_DEVICE_CUDA) != SKIT_OK)
            return cli_usage_error("--device cuda: %s", skit_last_error());
    }
    /* every mode computes over all n^2 entries (exact reference, bounds) */
    for (size_t i = 0; i < o->nn && !o->qpath; i++)
        if (cli_check_quadratic_work(mra_mode_names[o->mode], o->n[i], o->d + (o->dv ? o->dv : o->d)) != CLI_OK)
            return CLI_USAGE;
    /* mode-specific checks that need no data (user inputs: once loaded) */
    for (size_t i = 0; i < o->nn && !o->qpath; i++)
        if (mra_check_n(o, o->n[i]) != CLI_OK) return CLI_USAGE;
    return CLI_OK;
}

/* ---- shared with the modes (mra.h) ------------------------------------------ */

/* The table's columns, and layer, head for user inputs. */
void mra_table_init(cli_table *t, const mra_options *o, const char *const *cols)
{
    cli_table_init(t, cols);
    if (o->qpath) {
        cli_table_column(t, "layer");
        cli_table_column(t, "head");
    }
}

double mra_base_scale(const mra_options *o, size_t d)
{
    return o->scale > 0 ? o->scale : 1.0 / sqrt((double)d);
}

/* Method options for budget fraction f at n: the options given (seed,
 * block, scales, selection, priors) and the library's budget mapping;
 * *param receives the method's own parameter (blocks per row, rank,
 * nonzeros, window, ...). */
int mra_method_options(const mra_options *o, int method, size_t n, double f,
                       skit_attention_options *mo, double *param)
{
    skit_attention_options_init(mo, method);
    mo->seed = o->common.seed;
    mo->block = o->block[0];
    mo->selection = o->selection ? SKIT_MRA_PER_ROW : SKIT_MRA_GLOBAL;
    mo->diagonal_prior = o->diag;
    mo->first_block_prior = o->first;
    mo->causal = o->causal;
    if ((method == SKIT_ATTENTION_MRA2 || method == SKIT_ATTENTION_MRA2_SPARSE) && o->nscales) {
        mo->levels = o->nscales;
        for (size_t l = 0; l < o->nscales; l++) mo->scales[l] = o->scales[l];
    }
    return skit_attention_options_set_budget(mo, n, f, param);
}

int cmd_mra(int argc, char **argv)
{
    mra_options o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.common);
    skit_attention_synthetic_init(&o.spec);
    o.d = 64;
    o.repeat = 3;
    o.threshold = 0.005;
    o.mode = MODE_SWEEP;
    int shift = 0;
    if (argc > 1 && argv[1][0] != '-') {
        int idx;
        if (cli_parse_choice("mode", argv[1], mra_mode_names, &idx) != CLI_OK) return CLI_USAGE;
        o.mode = (enum mode)idx;
        shift = 1;
        char ctx[64];
        snprintf(ctx, sizeof ctx, "skit mra %s", mra_mode_names[idx]);
        cli_set_context(ctx);
    }
    int status = parse_options(argc - shift, argv + shift, &o);
    if (status == CLI_HELP) {
        status = CLI_OK;
        goto out;
    }
    if (status == CLI_OK) status = mode_defaults(&o);
    if (status == CLI_OK) status = check_options(&o);
    if (status == CLI_OK) {
        o.spec.seed = o.common.seed;
        cli_apply_threads(&o.common);
        switch (o.mode) {
        case MODE_SWEEP: status = mra_sweep(&o, argc, argv); break;
        case MODE_HAAR: status = mra_haar(&o, argc, argv); break;
        case MODE_WORKLOAD: status = mra_workload(&o, argc, argv); break;
        case MODE_BOUNDS: status = mra_bounds(&o, argc, argv); break;
        case MODE_FRAME: status = mra_frame(&o, argc, argv); break;
        default: status = CLI_USAGE; break;
        }
        if (status == CLI_OK && o.save_inputs) status = mra_save_inputs(&o);
    }
out:
    free(o.n);
    free(o.budget);
    free(o.temperature);
    free(o.entropy);
    free(o.keep);
    free(o.targets);
    free(o.block);
    free(o.scales);
    free(o.per_row);
    free(o.heads);
    return status;
}
