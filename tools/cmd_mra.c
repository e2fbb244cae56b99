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
 * at the end (atomically with -o), so a failure leaves no partial file. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

/* The table with its comment lines (NULL-terminated) to -o or stdout, and
 * with --plot the figure. */
static int emit(cli_table *t, const cli_common *common, const char *units,
                const char *const *comments, int argc, char **argv, const char *script,
                const char *variables)
{
    for (size_t i = 0; comments && comments[i]; i++) cli_table_comment(t, "%s", comments[i]);
    return cli_table_emit(t, common, argc, argv, units, script, variables);
}

/* CPU seconds of the whole process (every thread): a measure of work that,
 * unlike wall time, barely moves when other programs share the cores. */
static double cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return NAN;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- options ---------------------------------------------------------------- */

enum mode { MODE_SWEEP, MODE_HAAR, MODE_WORKLOAD, MODE_BOUNDS, MODE_FRAME, MODE_COUNT };
static const char *const mode_names[] = {"sweep", "haar", "workload", "bounds", "frame", NULL};

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

typedef struct options {
    enum mode mode;
    cli_common common;
    int methods[SKIT_ATTENTION_METHOD_COUNT];
    size_t *n, nn, d, dv;
    double *budget, *temperature, *entropy, *keep, *targets;
    int budget_given; /* --budget on the command line (not the defaults) */
    size_t nbudget, ntemperature, nentropy, nkeep, ntargets;
    size_t *block, nblock, *scales, nscales;
    skit_attention_synthetic spec;
    const char *qpath, *kpath, *vpath, *matrix_out, *hist_out, *y_out, *save_inputs;
    double scale; /* 0 = 1/sqrt(d) */
    double threshold; /* haar: "small" coefficient magnitude */
    size_t pad;       /* padding tokens at the end of every sequence (masked) */
    int causal;       /* --mask causal: query i sees keys j <= i only */
    size_t *heads, nheads; /* user stacks: the heads to run (flat indices), NULL = all */
    int selection;
    size_t diag, repeat, subsets;
    size_t *per_row, nper_row; /* budgets as attention entries per query */
    int first;
    int device; /* 0 cpu, 1 cuda (sweep) */
    skit_precision precision; /* sweep: f32 runs exact, mra2, mra2s in float32 */
    int methods_given;
} options;

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
    "                      approximates the causal matrix (nystrom, linformer and\n"
    "                      performer have no causal form and are refused)\n"
    "  --scale X           logit scale before tau (default 1/sqrt(d))\n\n"
    "sweep options:\n"
    "  --methods LIST      exact,mra2,mra2s,lowrank,topk,nystrom,linformer,performer,\n"
    "                      window,bigbird (default mra2,mra2s)\n"
    "  --budget LIST       fractions f in (0, 1] of the n^2 attention entries (default\n"
    "                      0.05,0.1,0.25): mra2/mra2s refine round(f n/b) blocks per\n"
    "                      row; lowrank rank, nystrom landmarks, linformer k, performer\n"
    "                      features = round(f n); topk keeps round(f n^2) entries;\n"
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
static int apply_input_option(options *o, int opt, const char *arg)
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
static int apply_method_option(options *o, int opt, const char *arg)
{
    static const char *const method_choices[] = {"exact", "mra2", "mra2s", "lowrank", "topk",
                                                 "nystrom", "linformer", "performer", "window",
                                                 "bigbird", NULL};
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
    options *o = ctx;
    if (opt < OPT_METHODS || opt >= OPT_LAST) return -1;
    if (!(mode_options[o->mode] & BIT(opt)))
        return cli_usage_error("option '%s' does not apply to 'skit mra %s' (see --help)", cli_option_name(),
                               mode_names[o->mode]);
    int st = apply_input_option(o, opt, arg);
    return st != -1 ? st : apply_method_option(o, opt, arg);
}

static int parse_options(int argc, char **argv, options *o)
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
static int mode_defaults(options *o)
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
static int check_n(const options *o, size_t n)
{
    const char *what = o->qpath ? "n (tokens of --q)" : "--n";
    int pow2 = n && !(n & (n - 1));
    if ((o->mode == MODE_HAAR || o->mode == MODE_FRAME) && !pow2)
        return cli_usage_error("%s = %zu: %s needs powers of two", what, n, mode_names[o->mode]);
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
static int check_y_out(const options *o)
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
static int check_f32(const options *o)
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

static int check_options(const options *o)
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
                              m == SKIT_ATTENTION_PERFORMER))
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
        if (cli_check_quadratic_work(mode_names[o->mode], o->n[i], o->d + (o->dv ? o->dv : o->d)) != CLI_OK)
            return CLI_USAGE;
    /* mode-specific checks that need no data (user inputs: once loaded) */
    for (size_t i = 0; i < o->nn && !o->qpath; i++)
        if (check_n(o, o->n[i]) != CLI_OK) return CLI_USAGE;
    return CLI_OK;
}

/* ---- inputs ------------------------------------------------------------------ */

/* One sequence: Q, K (n x d), V (n x dv, or NULL), column-major with ld n. */
typedef struct inputs {
    size_t n, d, dv;
    double *q, *k, *v;
    unsigned char *mask; /* --pad: 0 for the padding tokens; NULL = all valid */
    char label[48];      /* user stacks: "\tLAYER\tHEAD" ending each row; else "" */
} inputs;

static void inputs_free(inputs *in)
{
    free(in->q);
    free(in->k);
    free(in->v);
    free(in->mask);
    memset(in, 0, sizeof *in);
}

/* --pad: the padding mask of in (nothing without --pad). */
static int attach_mask(const options *o, inputs *in)
{
    if (!o->pad) return CLI_OK;
    in->mask = malloc(in->n);
    if (!in->mask) return cli_failure("out of memory");
    for (size_t i = 0; i < in->n; i++) in->mask[i] = i + o->pad < in->n;
    return CLI_OK;
}

static int make_inputs(const options *o, size_t n, int need_v, inputs *in)
{
    memset(in, 0, sizeof *in);
    in->n = n;
    in->d = o->d;
    in->dv = o->dv;
    size_t bytes = n * (2 * o->d + (need_v ? o->dv : 0)) * sizeof(double);
    if (skit_memory_check(bytes, "Q, K, V (--n, --d, --dv)") != SKIT_OK) return cli_library_error(SKIT_ETOOBIG);
    in->q = malloc(n * o->d * sizeof(double));
    in->k = malloc(n * o->d * sizeof(double));
    in->v = need_v ? malloc(n * o->dv * sizeof(double)) : NULL;
    if (!in->q || !in->k || (need_v && !in->v)) {
        inputs_free(in);
        return cli_failure("out of memory for Q, K, V at n = %zu", n);
    }
    int st = skit_attention_synthetic_generate(&o->spec, n, o->d, o->dv, in->q, n, in->k, n, in->v, n);
    if (st != SKIT_OK) {
        inputs_free(in);
        return cli_library_error(st);
    }
    int status = attach_mask(o, in);
    if (status != CLI_OK) inputs_free(in);
    return status;
}

/* User Q, K, V: `count` heads (L x H, layer-major) of n tokens; head h's
 * token i is row h*n + i of each matrix. */
typedef struct head_stack {
    size_t count, layers, heads, n, d, dv;
    size_t vshape[SKIT_NPY_MAX_DIMS]; /* V's axes (for --y-out) */
    int vndim;
    skit_matrix q, k, v;
} head_stack;

static void stack_free(head_stack *s)
{
    skit_matrix_free(&s->q);
    skit_matrix_free(&s->k);
    skit_matrix_free(&s->v);
    memset(s, 0, sizeof *s);
}

static int npy_name(const struct dirent *e)
{
    return cli_ends_with(e->d_name, ".npy");
}

/* Names in natural order: digit runs compare as numbers ("h2" < "h10"). */
static int natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
            if (x != y) return x < y ? -1 : 1;
            a = ea, b = eb;
        } else {
            if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++, b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int natural_dirent(const struct dirent **a, const struct dirent **b)
{
    return natural_compare((*a)->d_name, (*b)->d_name);
}

/* The last two numbers of a name ("q_l3_h07.npy": 3, 7); 0 if it has fewer. */
static int name_layer_head(const char *name, size_t *layer, size_t *head)
{
    size_t nums[2] = {0, 0}, found = 0;
    for (const char *p = name; *p;) {
        if (!isdigit((unsigned char)*p)) {
            p++;
            continue;
        }
        char *end;
        nums[0] = nums[1];
        nums[1] = (size_t)strtoull(p, &end, 10);
        found++;
        p = end;
    }
    *layer = nums[0], *head = nums[1];
    return found >= 2;
}

/* Files named by layer and head (two numbers each) that form a full
 * grid, layer-major, layers and heads from 0: *layers x *heads. */
static int names_form_grid(struct dirent **names, int count, size_t *layers, size_t *heads)
{
    size_t l, h, H = 0;
    for (int f = 0; f < count; f++) {
        if (!name_layer_head(names[f]->d_name, &l, &h)) return 0;
        if (l == 0) H = h + 1;
    }
    if (!H || (size_t)count % H) return 0;
    for (int f = 0; f < count; f++) {
        name_layer_head(names[f]->d_name, &l, &h);
        if (l != (size_t)f / H || h != (size_t)f % H) return 0;
    }
    *layers = (size_t)count / H, *heads = H;
    return 1;
}

/* A directory of per-head n x c files in natural name order as one stack:
 * (L, H, n, c) when the names carry layer and head numbers forming a full
 * grid (e.g. l0_h0.npy .. l5_h11.npy), else (files, n, c) with head = the
 * position. CLI status (errors reported, naming the option and the file). */
static int read_head_directory(const char *option, const char *dir, skit_matrix *m, size_t *shape, int *ndim)
{
    struct dirent **names = NULL;
    int count = scandir(dir, &names, npy_name, natural_dirent);
    if (count < 0) return cli_usage_error("%s: cannot read directory %s: %s", option, dir, strerror(errno));
    int status = count ? CLI_OK : cli_usage_error("%s: no .npy files in the directory %s", option, dir);
    skit_matrix one;
    memset(&one, 0, sizeof one);
    for (int f = 0; f < count && status == CLI_OK; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]->d_name);
        int st = skit_npy_read(path, &one);
        if (st != SKIT_OK)
            status = st == SKIT_ENOMEM ? cli_library_error(st) : cli_usage_error("%s: %s", option, skit_last_error());
        else if (one.ndim != 2 || (f && (one.rows != shape[*ndim - 2] || one.cols != shape[*ndim - 1])))
            status = cli_usage_error("%s: %s is %zu x %zu: need a 2-D array like the first file (%zu x %zu)", option,
                                     path, one.rows, one.cols, f ? shape[*ndim - 2] : one.rows,
                                     f ? shape[*ndim - 1] : one.cols);
        if (status == CLI_OK && !f) {
            size_t layers, heads;
            if (names_form_grid(names, count, &layers, &heads)) {
                shape[0] = layers, shape[1] = heads, shape[2] = one.rows, shape[3] = one.cols;
                *ndim = 4;
            } else {
                shape[0] = (size_t)count, shape[1] = one.rows, shape[2] = one.cols, shape[3] = 1;
                *ndim = 3;
            }
            m->rows = (size_t)count * one.rows, m->cols = one.cols, m->ndim = 2;
            m->data = skit_malloc(m->rows * m->cols, sizeof(double));
            if (!m->data) status = cli_failure("out of memory reading %s", dir);
        }
        for (size_t c = 0; status == CLI_OK && c < one.cols; c++)
            memcpy(m->data + (size_t)f * one.rows + c * m->rows, one.data + c * one.rows, one.rows * sizeof(double));
        skit_matrix_free(&one);
    }
    for (int f = 0; f < count; f++) free(names[f]);
    free(names);
    if (status != CLI_OK) skit_matrix_free(m);
    return status;
}

/* One of --q/--k/--v: a file of 2 to 4 axes or a directory. */
static int read_stack_part(const char *option, const char *path, skit_matrix *m, size_t *shape, int *ndim)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (read_head_directory(option, path, m, shape, ndim) != CLI_OK) return CLI_USAGE;
    } else {
        int st = skit_npy_read_nd(path, m, shape, ndim);
        if (st == SKIT_ENOMEM) return cli_library_error(st);
        if (st != SKIT_OK) return cli_usage_error("%s: %s", option, skit_last_error());
    }
    if (*ndim < 2 || !shape[*ndim - 1] || !shape[*ndim - 2]) {
        skit_matrix_free(m);
        return cli_usage_error("%s: %s has %d axes or an empty one: need (n, d), (H, n, d) or (L, H, n, d)",
                               option, path, *ndim);
    }
    return CLI_OK;
}

static void format_shape(char *buf, size_t size, const size_t *shape, int ndim)
{
    int len = snprintf(buf, size, "(");
    for (int a = 0; a < ndim; a++) len += snprintf(buf + len, size - (size_t)len, "%s%zu", a ? ", " : "", shape[a]);
    snprintf(buf + len, size - (size_t)len, ")");
}

/* Q and K of the same shape; V with their leading axes and tokens. */
static int check_stack_shapes(const size_t *qs, int qn, const size_t *ks, int kn, const size_t *vs, int vn)
{
    char a[96], b[96];
    int same = qn == kn;
    for (int x = 0; same && x < qn; x++) same = qs[x] == ks[x];
    if (!same) {
        format_shape(a, sizeof a, qs, qn);
        format_shape(b, sizeof b, ks, kn);
        const char *what = qn != kn                       ? "shapes differ"
                           : qs[qn - 1] != ks[kn - 1]     ? "columns (head dimension) differ"
                           : qs[qn - 2] != ks[kn - 2]     ? "row counts (tokens) differ"
                                                          : "stack shapes differ";
        return cli_usage_error("--q/--k: %s: Q %s, K %s (need equal shapes)", what, a, b);
    }
    same = !vs || vn == qn;
    for (int x = 0; vs && same && x + 1 < qn; x++) same = qs[x] == vs[x];
    if (!same) {
        format_shape(a, sizeof a, qs, qn);
        format_shape(b, sizeof b, vs, vn);
        return cli_usage_error("--v: shape %s does not match Q %s: need the same axes but the last", b, a);
    }
    return CLI_OK;
}

/* --q/--k[/--v] into s; every shape and --heads checked. */
static int load_stack(const options *o, int need_v, head_stack *s)
{
    memset(s, 0, sizeof *s);
    size_t qs[SKIT_NPY_MAX_DIMS], ks[SKIT_NPY_MAX_DIMS];
    int qn = 0, kn = 0;
    int st = read_stack_part("--q", o->qpath, &s->q, qs, &qn);
    if (st == CLI_OK) st = read_stack_part("--k", o->kpath, &s->k, ks, &kn);
    if (st == CLI_OK && need_v) st = read_stack_part("--v", o->vpath, &s->v, s->vshape, &s->vndim);
    if (st == CLI_OK) st = check_stack_shapes(qs, qn, ks, kn, need_v ? s->vshape : NULL, s->vndim);
    if (st != CLI_OK) {
        stack_free(s);
        return st;
    }
    s->n = qs[qn - 2];
    s->d = qs[qn - 1];
    s->dv = need_v ? s->vshape[s->vndim - 1] : 0;
    s->layers = qn == 4 ? qs[0] : 1;
    s->heads = qn >= 3 ? qs[qn - 3] : 1;
    s->count = s->layers * s->heads;
    for (size_t i = 0; i < o->nheads && st == CLI_OK; i++)
        if (o->heads[i] >= s->count)
            st = cli_usage_error("--heads: %zu out of range: the stack has %zu heads (0..%zu)", o->heads[i],
                                 s->count, s->count - 1);
    if (st == CLI_OK) st = check_n(o, s->n);
    if (st != CLI_OK) stack_free(s);
    return st;
}

/* Head h of the stack as one sequence (copied, ld n). */
static int head_inputs(const options *o, const head_stack *s, size_t h, inputs *in)
{
    memset(in, 0, sizeof *in);
    size_t n = s->n, rows = s->count * n;
    in->n = n;
    in->d = s->d;
    in->dv = s->dv;
    in->q = malloc(n * s->d * sizeof(double));
    in->k = malloc(n * s->d * sizeof(double));
    in->v = s->dv ? malloc(n * s->dv * sizeof(double)) : NULL;
    if (!in->q || !in->k || (s->dv && !in->v)) {
        inputs_free(in);
        return cli_failure("out of memory");
    }
    for (size_t c = 0; c < s->d; c++) {
        memcpy(in->q + c * n, s->q.data + h * n + c * rows, n * sizeof(double));
        memcpy(in->k + c * n, s->k.data + h * n + c * rows, n * sizeof(double));
    }
    for (size_t c = 0; c < s->dv; c++) memcpy(in->v + c * n, s->v.data + h * n + c * rows, n * sizeof(double));
    snprintf(in->label, sizeof in->label, "\t%zu\t%zu", h / s->heads, h % s->heads);
    int status = attach_mask(o, in);
    if (status != CLI_OK) inputs_free(in);
    return status;
}

/* The runs of a mode: the chosen heads of a user stack, or one per --n. */
static size_t run_count(const options *o, const head_stack *s)
{
    if (!o->qpath) return o->nn;
    return o->heads ? o->nheads : s->count;
}

static int run_inputs(const options *o, const head_stack *s, size_t r, int need_v, inputs *in)
{
    if (!o->qpath) return make_inputs(o, o->n[r], need_v, in);
    return head_inputs(o, s, o->heads ? o->heads[r] : r, in);
}

/* --save-inputs: the synthetic Q, K, V of the one --n as DIR/{q,k,v}.npy. */
static int save_inputs(const options *o)
{
    inputs in;
    if (make_inputs(o, o->n[0], 1, &in) != CLI_OK) return CLI_FAILED;
    const double *arrays[3] = {in.q, in.k, in.v};
    size_t cols[3] = {in.d, in.d, in.dv};
    int st = SKIT_OK;
    for (int a = 0; a < 3 && st == SKIT_OK; a++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%c.npy", o->save_inputs, "qkv"[a]);
        st = skit_npy_write(path, arrays[a], in.n, cols[a], in.n, 2);
    }
    inputs_free(&in);
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

/* The table's columns, and layer, head for user inputs. */
static void table_init(cli_table *t, const options *o, const char *const *cols)
{
    cli_table_init(t, cols);
    if (o->qpath) {
        cli_table_column(t, "layer");
        cli_table_column(t, "head");
    }
}

static double base_scale(const options *o, size_t d)
{
    return o->scale > 0 ? o->scale : 1.0 / sqrt((double)d);
}

/* tau whose mean row entropy is target (the library's bisection); a target
 * out of reach is bad input. */
static int temperature_for_entropy(const inputs *in, double scale0, double target, double *tau,
                                   double *reached)
{
    double hmax = log((double)in->n);
    if (target >= hmax)
        return cli_usage_error("--entropy = %g out of range: need < log n (= %.4g) at n = %zu", target,
                               hmax, in->n);
    int st = skit_attention_temperature_for_entropy(in->n, in->d, in->q, in->n, in->k, in->n, scale0,
                                                    target, tau, reached);
    if (st == SKIT_ENOCONV) return cli_usage_error("--entropy: %s", skit_last_error());
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

/* ---- sweep --------------------------------------------------------------------- */

static size_t clamp_size(double v, size_t lo, size_t hi)
{
    if (!(v >= (double)lo)) return lo;
    if (v >= (double)hi) return hi;
    return (size_t)llround(v);
}

/* Method options for budget fraction f at n: the options given (seed,
 * block, scales, selection, priors) and the library's budget mapping;
 * *param receives the method's own parameter (blocks per row, rank,
 * nonzeros, window, ...). */
static int method_options(const options *o, int method, size_t n, double f,
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

static const char *const sweep_columns[] = {
    "method", "n", "d", "dv", "temperature", "scale", "entropy", "budget", "parameter",
    "work_fraction", "rel_error", "time_s", "cpu_s", "exact_time_s", "plan_bytes", "peak_rss_bytes", NULL};

/* A --budget given that rounds to no MRA block per row would silently be
 * one block: refused, with the smallest budget that makes one. */
static int check_budget_blocks(const options *o, size_t n, size_t block)
{
    for (size_t i = 0; o->budget_given && i < o->nbudget; i++)
        if (o->budget[i] * (double)(n / block) < 0.5)
            return cli_usage_error("--budget = %g rounds to 0 MRA blocks per row at n = %zu with block "
                                   "%zu (%zu blocks per row): need a budget >= %g there",
                                   o->budget[i], n, block, n / block, 0.5 / (double)(n / block));
    return CLI_OK;
}

/* Checks the sweep's method/size combinations before any work. */
static int check_sweep(const options *o, const size_t *ns, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        size_t n = ns[i];
        for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++) {
            if (!o->methods[m]) continue;
            if ((m == SKIT_ATTENTION_MRA2 || m == SKIT_ATTENTION_MRA2_SPARSE)) {
                size_t s0 = o->nscales ? o->scales[0] : o->block[0];
                if (o->nscales) {
                    if (o->nscales < 2 || o->nscales > SKIT_MRA_MAX_LEVELS)
                        return cli_usage_error("--scales: expected 2 to %d scales, got %zu",
                                               SKIT_MRA_MAX_LEVELS, o->nscales);
                    for (size_t l = 1; l < o->nscales; l++)
                        if (o->scales[l] >= o->scales[l - 1] || o->scales[l - 1] % o->scales[l])
                            return cli_usage_error("--scales: each scale must be smaller than and "
                                                   "divide the one before (%zu, %zu)",
                                                   o->scales[l - 1], o->scales[l]);
                }
                if (s0 < 2 || s0 > n || n % s0)
                    return cli_usage_error("--n = %zu is not a multiple of the MRA block %zu "
                                           "(--block/--scales): need n divisible by it",
                                           n, s0);
                if (check_budget_blocks(o, n, s0) != CLI_OK) return CLI_USAGE;
            }
            if (m == SKIT_ATTENTION_BIGBIRD && o->block[0] > n)
                return cli_usage_error("--block = %zu out of range for bigbird: need <= n (= %zu)",
                                       o->block[0], n);
            if (m == SKIT_ATTENTION_LOWRANK && n > 4096)
                return cli_usage_error("--n = %zu too large for lowrank (an SVD of the n x n matrix): "
                                       "need n <= 4096",
                                       n);
            if (m == SKIT_ATTENTION_TOPK && n > 8192)
                return cli_usage_error("--n = %zu too large for topk (forms the n x n matrix): need "
                                       "n <= 8192",
                                       n);
        }
    }
    return CLI_OK;
}

/* One temperature of the sweep at one n: the inputs, the exact output y
 * (the reference), a buffer yh for the approximations, and what every row
 * records about the temperature. */
typedef struct sweep_point {
    const inputs *in;
    double *y, *yh;
    double tau, scale, entropy, exact_time;
    double *y_all;  /* --y-out: every run's output, run r at rows r*n.. (ld y_rows) */
    size_t y_rows, run;
    float *q32, *k32, *v32, *y32; /* --precision f32: the inputs rounded, an output */
    unsigned char *refined;       /* f32 MRA: its refined squares */
} sweep_point;

/* --precision f32: method m with options mo in float32 on p's float
 * inputs, --repeat times (the minimum wall and CPU time), into p->yh (as
 * doubles); stats: entries and work fraction. */
static int sweep_f32(const options *o, const sweep_point *p, int m, const skit_attention_options *mo,
                     double *best, double *best_cpu, skit_attention_stats *stats)
{
    const inputs *in = p->in;
    size_t n = in->n, d = in->d, dv = in->dv, b = mo->levels ? mo->scales[0] : mo->block, rows = n / b;
    skit_attention_mask mask = {in->mask, o->causal};
    int st = SKIT_OK;
    for (size_t r = 0; r < o->repeat && st == SKIT_OK; r++) {
        double c0 = cpu_seconds(), s0 = skit_clock_seconds();
        st = m == SKIT_ATTENTION_EXACT
                 ? skit_attention_exact_masked_f32(n, d, dv, p->q32, n, p->k32, n, p->v32, n, mo->scale, &mask,
                                                   p->y32, n)
                 : skit_attention_mra_f32(n, d, dv, p->q32, n, p->k32, n, p->v32, n, mo, in->mask, p->y32, n,
                                          p->refined);
        *best = fmin(*best, skit_clock_seconds() - s0);
        *best_cpu = fmin(*best_cpu, cpu_seconds() - c0);
    }
    if (st != SKIT_OK) return cli_library_error(st);
    for (size_t i = 0; i < n * dv; i++) p->yh[i] = p->y32[i];
    memset(stats, 0, sizeof *stats);
    double entries = (double)n * (double)n;
    if (m != SKIT_ATTENTION_EXACT) {
        size_t squares = 0;
        for (size_t i = 0; i < rows * rows; i++) squares += p->refined[i];
        entries = (double)rows * (double)rows + (double)squares * (double)b * (double)b;
    }
    stats->entries = entries;
    stats->work_fraction = entries / ((double)n * (double)n);
    return CLI_OK;
}

/* The plan of options mo run --repeat times (the minimum wall and CPU
 * time) into p->yh; *bytes: the plan's memory. Library status. */
static int sweep_plan(const options *o, const sweep_point *p, const skit_attention_options *mo, double *best,
                      double *best_cpu, skit_attention_stats *stats, size_t *bytes)
{
    const inputs *in = p->in;
    size_t n = in->n;
    skit_attention_plan *plan = NULL;
    int st = skit_attention_plan_create(&plan, n, in->d, in->dv, mo);
    for (size_t r = 0; r < o->repeat && st == SKIT_OK; r++) {
        double c0 = cpu_seconds(), s0 = skit_clock_seconds();
        st = skit_attention_plan_execute(plan, in->q, n, in->k, n, in->v, n, in->mask, p->yh, n, stats);
        *best = fmin(*best, skit_clock_seconds() - s0);
        *best_cpu = fmin(*best_cpu, cpu_seconds() - c0);
    }
    *bytes = skit_attention_plan_bytes(plan);
    skit_attention_plan_destroy(plan);
    return st;
}

/* The row of method m at budget fraction f: its plan (or, f32, its float
 * path) run --repeat times, its error against y. */
static int sweep_row(const options *o, cli_table *t, const sweep_point *p, int m, double f)
{
    const inputs *in = p->in;
    size_t n = in->n, d = in->d, dv = in->dv;
    skit_attention_options mo;
    double param = 0;
    int st = method_options(o, m, n, f, &mo, &param);
    mo.scale = p->scale;
    mo.device = o->device ? SKIT_DEVICE_CUDA : SKIT_DEVICE_CPU;
    cli_progress("n = %zu, tau = %g, %s, budget %g", n, p->tau, skit_attention_method_name(m), f);
    if (st != SKIT_OK) return cli_library_error(st);
    double best = INFINITY, best_cpu = INFINITY;
    skit_attention_stats stats;
    size_t bytes = 0; /* float32: no plan */
    if (o->precision == SKIT_PRECISION_F32) {
        int status = sweep_f32(o, p, m, &mo, &best, &best_cpu, &stats);
        if (status != CLI_OK) return status;
    } else {
        st = sweep_plan(o, p, &mo, &best, &best_cpu, &stats, &bytes);
        if (st != SKIT_OK) return cli_library_error(st);
    }
    double err;
    skit_attention_relative_error(n, dv, p->yh, n, p->y, n, &err);
    for (size_t c = 0; p->y_all && c < dv; c++)
        memcpy(p->y_all + p->run * n + c * p->y_rows, p->yh + c * n, n * sizeof(double));
    cli_table_rowf(t, "%s\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%zu\t%zu%s",
                   skit_attention_method_name(m), n, d, dv, p->tau, p->scale, p->entropy, f, param,
                   stats.work_fraction, err, best, best_cpu, p->exact_time, bytes, skit_memory_peak_rss(),
                   in->label);
    return CLI_OK;
}

/* Temperature ti (given, or the one of entropy target ti): exact attention
 * (timed once), then every method at every budget. */
static int sweep_temperature(const options *o, cli_table *t, sweep_point *p, size_t ti)
{
    const inputs *in = p->in;
    size_t n = in->n, d = in->d, dv = in->dv;
    double scale0 = base_scale(o, d);
    p->entropy = 0;
    if (o->entropy) {
        int status = temperature_for_entropy(in, scale0, o->entropy[ti], &p->tau, &p->entropy);
        if (status != CLI_OK) return status;
    } else {
        p->tau = o->temperature[ti];
    }
    p->scale = scale0 / p->tau;
    skit_attention_mask mask = {in->mask, o->causal};
    int st = skit_attention_entropy_masked(n, d, in->q, n, in->k, n, p->scale, &mask, NULL, &p->entropy);
    double t0 = skit_clock_seconds();
    if (st == SKIT_OK)
        st = skit_attention_exact_masked(n, d, dv, in->q, n, in->k, n, in->v, n, p->scale, &mask, p->y, n);
    p->exact_time = skit_clock_seconds() - t0;
    if (st != SKIT_OK) return cli_library_error(st);
    int status = CLI_OK;
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT && status == CLI_OK; m++) {
        if (!o->methods[m]) continue;
        size_t nb = m == SKIT_ATTENTION_EXACT ? 1 : o->per_row ? o->nper_row : o->nbudget;
        for (size_t bi = 0; bi < nb && status == CLI_OK; bi++) {
            /* a per-row budget beyond the row length does not exist at this n */
            if (m != SKIT_ATTENTION_EXACT && o->per_row && o->per_row[bi] > n) continue;
            double f = m == SKIT_ATTENTION_EXACT ? 1.0
                       : o->per_row               ? (double)o->per_row[bi] / (double)n
                                                  : o->budget[bi];
            status = sweep_row(o, t, p, m, f);
        }
    }
    return status;
}

/* Every temperature of run r (the inputs in); y_all, y_rows: see sweep_point. */
/* --precision f32: p's float copies of the inputs, its float output and
 * the refined squares' flags (an MRA block divides n). CLI status. */
static int sweep_f32_buffers(const options *o, const inputs *in, sweep_point *p)
{
    size_t n = in->n, d = in->d, dv = in->dv, rows = n / (o->nscales ? o->scales[0] : o->block[0]);
    p->q32 = malloc(n * d * sizeof(float));
    p->k32 = malloc(n * d * sizeof(float));
    p->v32 = malloc(n * dv * sizeof(float));
    p->y32 = malloc(n * dv * sizeof(float));
    p->refined = malloc(rows * rows + 1);
    if (!p->q32 || !p->k32 || !p->v32 || !p->y32 || !p->refined)
        return cli_failure("out of memory for the float32 inputs at n = %zu", n);
    for (size_t i = 0; i < n * d; i++) p->q32[i] = (float)in->q[i], p->k32[i] = (float)in->k[i];
    for (size_t i = 0; i < n * dv; i++) p->v32[i] = (float)in->v[i];
    return CLI_OK;
}

static int sweep_inputs(const options *o, cli_table *t, const inputs *in, size_t nt, double *first_tau,
                        double *y_all, size_t y_rows, size_t r)
{
    size_t n = in->n, dv = in->dv;
    sweep_point p = {in, malloc(n * dv * sizeof(double)), malloc(n * dv * sizeof(double)), 0, 0, 0, 0,
                     y_all, y_rows, r, NULL, NULL, NULL, NULL, NULL};
    int status = p.y && p.yh ? CLI_OK : cli_failure("out of memory at n = %zu", n);
    if (status == CLI_OK && o->precision == SKIT_PRECISION_F32) status = sweep_f32_buffers(o, in, &p);
    for (size_t ti = 0; ti < nt && status == CLI_OK; ti++) {
        size_t rows = cli_table_rows(t);
        status = sweep_temperature(o, t, &p, ti);
        if (!rows && cli_table_rows(t)) *first_tau = p.tau;
    }
    free(p.y);
    free(p.yh);
    free(p.q32);
    free(p.k32);
    free(p.v32);
    free(p.y32);
    free(p.refined);
    return status;
}

static int sweep_emit(const options *o, cli_table *t, int argc, char **argv, int files, size_t file_n,
                      double first_tau)
{
    char vars[1024], methods[512] = "", tsel[48] = "1";
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
        if (o->methods[m] && m != SKIT_ATTENTION_EXACT) {
            strcat(methods, skit_attention_method_name(m));
            strcat(methods, " ");
        }
    if (cli_table_rows(t)) snprintf(tsel, sizeof tsel, "%.6g", first_tau);
    snprintf(vars, sizeof vars, "methods='%s'; nsel=%zu; tsel='%s'", methods, files ? file_n : o->n[0], tsel);
    const char *comments[] = {
        files ? "inputs: Q, K, V from .npy files (layer, head: the head of a stack)"
              : "inputs: synthetic (skit_attention_synthetic)",
        "rel_error = ||Yhat - Y||_F / ||Y||_F against blocked exact attention (same scale)",
        "entropy = mean row entropy of softmax(scale Q K^T) (nats); budget = fraction f of n^2",
        "parameter: mra blocks per row, rank/landmarks/k/features, topk nonzeros, window "
        "half-width, bigbird random blocks",
        NULL};
    for (size_t i = 0; comments[i]; i++) cli_table_comment(t, "%s", comments[i]);
    cli_table_comment(t, "generator: beta %g, locality %g, noise %g, sinks %zu, sink strength %g, block %zu",
                      o->spec.inverse_temperature, o->spec.correlation_length, o->spec.noise, o->spec.sinks,
                      o->spec.sink_strength, o->block[0]);
    if (o->precision == SKIT_PRECISION_F32)
        cli_table_comment(t, "precision: float32 (exact, mra2, mra2s on Q, K, V rounded to float; sgemm, "
                             "float tiles, no plan: plan_bytes 0); rel_error and exact_time_s: float64 "
                             "exact attention");
    if (o->device) {
        char status_line[256];
        skit_cuda_status(status_line, sizeof status_line);
        cli_table_comment(t, "device: %s (float64; time_s includes the host<->device transfers)", status_line);
    }
    return emit(t, &o->common,
                "time_s: wall seconds, cpu_s: CPU seconds of all threads (each the minimum "
                "of --repeat runs; exact_time_s: one run); plan_bytes, peak_rss_bytes: "
                "bytes; entropy: nats",
                NULL, argc, argv, "mra_sweep", vars);
}

/* --y-out: the outputs of every run in the shape of V's stack (or of the
 * chosen heads, or n x dv for synthetic inputs). */
static int write_y_out(const options *o, const head_stack *s, const double *y, size_t runs, size_t n, size_t dv)
{
    size_t shape[SKIT_NPY_MAX_DIMS] = {n, dv, 1, 1};
    int ndim = 2;
    if (o->qpath && o->heads) {
        shape[0] = runs, shape[1] = n, shape[2] = dv;
        ndim = 3;
    } else if (o->qpath) {
        memcpy(shape, s->vshape, sizeof shape);
        ndim = s->vndim;
    }
    if (o->precision != SKIT_PRECISION_F32) {
        int st = skit_npy_write_nd(o->y_out, y, runs * n, shape, ndim);
        return st == SKIT_OK ? CLI_OK : cli_library_error(st);
    }
    /* float32 outputs, held as doubles: written '<f4' exactly */
    float *y32 = malloc(runs * n * dv * sizeof(float) + 1);
    if (!y32) return cli_failure("out of memory for --y-out");
    for (size_t i = 0; i < runs * n * dv; i++) y32[i] = (float)y[i];
    int st = skit_npy_write_nd_f32(o->y_out, y32, runs * n, shape, ndim);
    free(y32);
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

static int run_sweep(options *o, int argc, char **argv)
{
    int files = o->qpath != NULL;
    head_stack stack;
    memset(&stack, 0, sizeof stack);
    if (files && load_stack(o, 1, &stack) != CLI_OK) return CLI_USAGE;
    if (check_sweep(o, files ? &stack.n : o->n, files ? 1 : o->nn) != CLI_OK) {
        stack_free(&stack);
        return CLI_USAGE;
    }
    cli_table t;
    table_init(&t, o, sweep_columns);
    double first_tau = 1, *y_all = NULL;
    int status = CLI_OK;
    size_t nruns = run_count(o, &stack), nt = o->entropy ? o->nentropy : o->ntemperature;
    size_t n = files ? stack.n : o->n[0], dv = files ? stack.dv : o->dv;
    if (o->y_out && !(y_all = malloc(nruns * n * dv * sizeof *y_all))) status = cli_failure("out of memory");
    cli_progress_start(&o->common);
    for (size_t r = 0; r < nruns && status == CLI_OK; r++) {
        inputs in;
        if ((status = run_inputs(o, &stack, r, 1, &in)) != CLI_OK) break;
        status = sweep_inputs(o, &t, &in, nt, &first_tau, y_all, nruns * n, r);
        inputs_free(&in);
    }
    cli_progress_done();
    if (status == CLI_OK && y_all) status = write_y_out(o, &stack, y_all, nruns, n, dv);
    if (status == CLI_OK) status = sweep_emit(o, &t, argc, argv, files, stack.n, first_tau);
    free(y_all);
    cli_table_free(&t);
    stack_free(&stack);
    return status;
}

/* ---- haar (Figure 1) ---------------------------------------------------------- */

static double frob_diff(size_t n, const double *a, const double *b)
{
    double s = 0;
    for (size_t i = 0; i < n * n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}

/* The softmax matrix of one input and what haar computes on it. */
typedef struct haar_work {
    const inputs *in;
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
static int haar_method_error(const options *o, const haar_work *w, int method, double f, double *error)
{
    size_t n = w->n;
    skit_attention_options mo;
    int st = method_options(o, method, n, f, &mo, NULL);
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
static int haar_row(const options *o, haar_work *w, size_t ki, cli_table *t)
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
    const inputs *in = w->in;
    skit_attention_mask mask = {in->mask, w->causal};
    int st = skit_attention_matrix_masked(n, w->d, in->q, n, in->k, n, w->scale, &mask, w->s, n);
    if (st == SKIT_OK)
        st = skit_attention_entropy_masked(n, w->d, in->q, n, in->k, n, w->scale, &mask, NULL, &w->entropy);
    if (st == SKIT_OK) st = skit_haar2d_forward(n, w->s, n, w->c, n);
    if (st == SKIT_OK) st = skit_svd(n, n, w->s, n, w->sv, NULL, n, NULL, n);
    if (st != SKIT_OK) return cli_library_error(st);
    double norm = 0;
    for (size_t i = 0; i < nn; i++) norm += w->s[i] * w->s[i];
    w->norm = sqrt(norm);
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
static int haar_write(const options *o, cli_table *t, cli_table *ht, cli_table *mt, double small, int argc,
                      char **argv)
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
    return emit(t, &o->common, "errors: Frobenius norms (dimensionless)", comments, argc, argv,
                "mra_haar_errors", NULL);
}

/* haar on one input: a row per --keep into t; the histogram (ht) and
 * entries (mt) when not NULL. *small: its fraction of small coefficients. */
static int haar_run(const options *o, const inputs *in, cli_table *t, cli_table *ht, cli_table *mt, double *small)
{
    haar_work w;
    memset(&w, 0, sizeof w);
    w.in = in;
    w.n = in->n;
    w.d = in->d;
    w.tau = o->temperature ? o->temperature[0] : 1.0;
    w.scale = base_scale(o, w.d) / w.tau;
    w.causal = o->causal;
    int status = haar_prepare(&w);
    if (status == CLI_OK) *small = w.small = haar_histogram(w.c, w.n * w.n, o->threshold, ht);
    for (size_t ki = 0; ki < o->nkeep && status == CLI_OK; ki++) status = haar_row(o, &w, ki, t);
    if (status == CLI_OK && mt) haar_matrix_rows(&w, mt);
    haar_free(&w);
    return status;
}

static int run_haar(options *o, int argc, char **argv)
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
    head_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && load_stack(o, 0, &stack) != CLI_OK) return CLI_USAGE;
    size_t runs = run_count(o, &stack);
    if ((o->matrix_out || o->hist_out) && runs != 1) {
        stack_free(&stack);
        return cli_usage_error("--matrix-out/--histogram-out: one head at a time (--heads I), got %zu", runs);
    }
    cli_table t, ht, mt;
    table_init(&t, o, cols);
    cli_table_init(&ht, hcols);
    cli_table_init(&mt, mcols);
    int status = CLI_OK;
    double small = NAN;
    cli_progress_start(&o->common);
    for (size_t r = 0; r < runs && status == CLI_OK; r++) {
        inputs in;
        if ((status = run_inputs(o, &stack, r, 0, &in)) != CLI_OK) break;
        cli_progress("haar %zu of %zu", r + 1, runs);
        status = haar_run(o, &in, &t, r ? NULL : &ht, o->matrix_out && !r ? &mt : NULL, &small);
        inputs_free(&in);
    }
    cli_progress_done();
    if (status == CLI_OK) status = haar_write(o, &t, &ht, &mt, runs == 1 ? small : NAN, argc, argv);
    cli_table_free(&t);
    cli_table_free(&ht);
    cli_table_free(&mt);
    stack_free(&stack);
    return status;
}

/* ---- workload (Figure 7) -------------------------------------------------------- */

/* lowrank and topk: the best possible budget of their kind for every target
 * (on the explicit softmax matrix, paper A.2), one row each. */
static int workload_best(const options *o, cli_table *t, const inputs *in, int m, double scale)
{
    size_t n = in->n;
    size_t *needed = malloc(o->ntargets * sizeof *needed);
    double *errors = malloc((n + 1) * sizeof *errors);
    if (!needed || !errors) {
        free(needed);
        free(errors);
        return cli_failure("out of memory");
    }
    int st = skit_attention_budget_needed(m, n, in->d, in->dv, in->q, n, in->k, n, in->v, n, scale, o->ntargets,
                                          o->targets, needed, m == SKIT_ATTENTION_LOWRANK ? errors : NULL);
    for (size_t t2 = 0; t2 < o->ntargets && st == SKIT_OK; t2++) {
        double work = m == SKIT_ATTENTION_LOWRANK ? 2.0 * (double)n * (double)needed[t2] : (double)needed[t2];
        double err = m == SKIT_ATTENTION_LOWRANK ? errors[needed[t2]] : o->targets[t2];
        cli_table_rowf(t, "%s\t%zu\t%.6g\t%zu\t%.6g\t%.6g\t%.6g%s", skit_attention_method_name(m), n,
                       o->targets[t2], needed[t2], work, work / ((double)n * (double)n), err, in->label);
    }
    free(needed);
    free(errors);
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

/* MRA: the smallest blocks per row reaching each target (plans from one
 * block per row up), one row each; y: the exact output, yh: scratch. */
static int workload_mra(const options *o, cli_table *t, const inputs *in, int m, double scale, double *y,
                        double *yh)
{
    size_t n = in->n, b = o->block[0];
    int st = skit_attention_exact(n, in->d, in->dv, in->q, n, in->k, n, in->v, n, scale, NULL, y, n);
    for (size_t t2 = 0; t2 < o->ntargets && st == SKIT_OK; t2++) {
        size_t rows = n / b, found = 0;
        double work = 0, err = 0;
        for (size_t bpr = 1; bpr <= rows && !found; bpr++) {
            skit_attention_options mo;
            skit_attention_options_init(&mo, m);
            mo.block = b;
            mo.blocks_per_row[0] = bpr;
            mo.scale = scale;
            mo.selection = o->selection ? SKIT_MRA_PER_ROW : SKIT_MRA_GLOBAL;
            skit_attention_plan *plan;
            skit_attention_stats stats;
            st = skit_attention_plan_create(&plan, n, in->d, in->dv, &mo);
            if (st == SKIT_OK)
                st = skit_attention_plan_execute(plan, in->q, n, in->k, n, in->v, n, NULL, yh, n,
                                                 &stats);
            skit_attention_plan_destroy(plan);
            if (st != SKIT_OK) break;
            skit_attention_relative_error(n, in->dv, yh, n, y, n, &err);
            if (err <= o->targets[t2]) {
                found = bpr;
                work = stats.entries;
            }
        }
        if (st == SKIT_OK)
            cli_table_rowf(t, "%s\t%zu\t%.6g\t%zu\t%.6g\t%.6g\t%.6g%s", skit_attention_method_name(m), n,
                           o->targets[t2], found, found ? work : NAN, found ? work / ((double)n * (double)n) : NAN,
                           err, in->label);
    }
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

static int run_workload(options *o, int argc, char **argv)
{
    static const char *const cols[] = {"method", "n", "target", "budget", "workload",
                                       "work_fraction", "error", NULL};
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
        if (o->methods[m] && m != SKIT_ATTENTION_LOWRANK && m != SKIT_ATTENTION_TOPK &&
            m != SKIT_ATTENTION_MRA2 && m != SKIT_ATTENTION_MRA2_SPARSE)
            return cli_usage_error("--methods: workload supports lowrank, topk, mra2, mra2s, got %s",
                                   skit_attention_method_name(m));
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra workload'");
    if (o->ntemperature > 1) return cli_usage_error("--temperature: workload takes one value");
    size_t b = o->block[0];
    head_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && load_stack(o, 1, &stack) != CLI_OK) return CLI_USAGE;
    size_t runs = run_count(o, &stack);
    for (size_t i = 0; i < runs; i++) {
        size_t n = o->qpath ? stack.n : o->n[i];
        if ((o->methods[SKIT_ATTENTION_MRA2] || o->methods[SKIT_ATTENTION_MRA2_SPARSE]) && (n % b || n < 2 * b)) {
            stack_free(&stack);
            return cli_usage_error("--n = %zu is not a multiple of the MRA block %zu (at least 2 blocks)", n, b);
        }
    }
    cli_table t;
    table_init(&t, o, cols);
    int status = CLI_OK;
    cli_progress_start(&o->common);
    for (size_t r = 0; r < runs && status == CLI_OK; r++) {
        inputs in;
        if ((status = run_inputs(o, &stack, r, 1, &in)) != CLI_OK) break;
        size_t n = in.n, dv = in.dv;
        double scale = base_scale(o, in.d) / o->temperature[0];
        double *y = malloc(n * dv * sizeof *y), *yh = malloc(n * dv * sizeof *yh);
        if (!y || !yh) status = cli_failure("out of memory");
        for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT && status == CLI_OK; m++) {
            if (!o->methods[m]) continue;
            cli_progress("n = %zu, run %zu, %s", n, r, skit_attention_method_name(m));
            if (m == SKIT_ATTENTION_LOWRANK || m == SKIT_ATTENTION_TOPK)
                status = workload_best(o, &t, &in, m, scale);
            else
                status = workload_mra(o, &t, &in, m, scale, y, yh);
        }
        free(y);
        free(yh);
        inputs_free(&in);
    }
    stack_free(&stack);
    cli_progress_done();
    if (status == CLI_OK) {
        const char *comments[] = {
            "budget: lowrank rank, topk nonzeros, mra blocks per row (0 = target not reached)",
            "workload: attention-matrix numbers computed: lowrank 2 n r (factors), topk nonzeros, "
            "mra coarse + exact entries",
            "lowrank/topk are the best possible of their kind on the explicit softmax matrix (paper "
            "A.2); error = relative output error ||Shat V - S V||_F / ||S V||_F",
            NULL};
        status = emit(&t, &o->common, "workload: entries; error: relative", comments, argc, argv,
                      "mra_workload", NULL);
    }
    cli_table_free(&t);
    return status;
}

/* ---- bounds (Lemma 4.1, Proposition 4.5) ---------------------------------------------- */

/* Lemma 4.1 on squares of side b and Proposition 4.5 at every --budget: one
 * row per budget. */
static int bounds_rows(const options *o, cli_table *t, const inputs *in, double tau, double scale, size_t b)
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
        cli_table_rowf(t, "%zu\t%.6g\t%zu\t%.6g\t%zu\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s%s", n,
                       tau, b, o->budget[fi], lr.blocks, lr.lower_violations, lr.upper_violations,
                       lr.holder_violations, lr.max_ratio, lr.max_ratio_holder, lr.mean_range, lr.max_range,
                       (double)m1, pr.measured, pr.bound, pr.holds ? "yes" : "no", in->label);
    }
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

static int run_bounds(options *o, int argc, char **argv)
{
    static const char *const cols[] = {
        "n", "temperature", "block", "budget", "blocks", "lemma_lower_violations",
        "lemma_upper_violations", "lemma_holder_violations", "lemma_max_ratio",
        "lemma_max_ratio_holder", "mean_range", "max_range", "prop_refined", "prop_measured",
        "prop_bound", "prop_holds", NULL};
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra bounds'");
    head_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && load_stack(o, 0, &stack) != CLI_OK) return CLI_USAGE;
    size_t nruns = run_count(o, &stack);
    int status = CLI_OK;
    /* validate sizes first */
    for (size_t ni = 0; ni < nruns; ni++) {
        size_t n = o->qpath ? stack.n : o->n[ni];
        for (size_t bi = 0; bi < o->nblock; bi++)
            if (o->block[bi] > n || n % o->block[bi]) {
                stack_free(&stack);
                return cli_usage_error("--block = %zu does not divide --n = %zu", o->block[bi], n);
            }
    }
    cli_table t;
    table_init(&t, o, cols);
    cli_progress_start(&o->common);
    for (size_t ni = 0; ni < nruns && status == CLI_OK; ni++) {
        inputs in;
        if ((status = run_inputs(o, &stack, ni, 0, &in)) != CLI_OK) break;
        size_t d = in.d;
        for (size_t ti = 0; ti < o->ntemperature && status == CLI_OK; ti++) {
            double tau = o->temperature[ti], scale = base_scale(o, d) / tau;
            for (size_t bi = 0; bi < o->nblock && status == CLI_OK; bi++)
                status = bounds_rows(o, &t, &in, tau, scale, o->block[bi]);
        }
        inputs_free(&in);
    }
    stack_free(&stack);
    cli_progress_done();
    if (status == CLI_OK) {
        const char *comments[] = {
            "Lemma 4.1: 0 <= mu* - mu <= C_r mu on every square of side block; ratio = (mu* - mu) / "
            "(C_r mu) (<= 1 means it holds), r = measured range of P on the square, holder: r = 2 "
            "beta1 beta2 (p = q = 2)",
            "Proposition 4.5: R = {block, 1}, the budget fraction of squares with the largest mu "
            "exact; measured = ||Ahat - A||_F / ||A||_F for A = exp(P)",
            NULL};
        status = emit(&t, &o->common, "ratios and errors dimensionless; ranges in logit units",
                      comments, argc, argv, "mra_bounds", NULL);
    }
    cli_table_free(&t);
    return status;
}

/* ---- frame (Observation A.1) --------------------------------------------------------- */

static int run_frame(options *o, int argc, char **argv)
{
    static const char *const cols[] = {"n", "subset", "density", "components", "max_difference", NULL};
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra frame'");
    size_t subsets = o->subsets ? o->subsets : 20;
    head_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && load_stack(o, 0, &stack) != CLI_OK) return CLI_USAGE;
    size_t runs = run_count(o, &stack);
    cli_table t;
    table_init(&t, o, cols);
    int status = CLI_OK;
    skit_rng rng;
    skit_rng_seed_stream(&rng, o->common.seed, 77);
    for (size_t ni = 0; ni < runs && status == CLI_OK; ni++) {
        inputs in;
        if ((status = run_inputs(o, &stack, ni, 0, &in)) != CLI_OK) break;
        size_t n = in.n, count = skit_mra_frame_count(n);
        double *s = malloc(n * n * sizeof *s);
        unsigned char *sub = malloc(count);
        if (!s || !sub) status = cli_failure("out of memory");
        int st = SKIT_OK;
        skit_attention_mask mask = {in.mask, o->causal};
        if (status == CLI_OK)
            st = skit_attention_matrix_masked(n, in.d, in.q, n, in.k, n,
                                              base_scale(o, in.d) / o->temperature[0], &mask, s, n);
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
        inputs_free(&in);
    }
    stack_free(&stack);
    if (status == CLI_OK) {
        const char *comments[] = {
            "max_difference = max |form (3) - form (5)| / max |A| for A = the softmax matrix and a "
            "random subset J of the frame (1) (each component in J with probability density)",
            NULL};
        status = emit(&t, &o->common, "differences relative to max |A|", comments, argc, argv,
                      "mra_frame", NULL);
    }
    cli_table_free(&t);
    return status;
}

int cmd_mra(int argc, char **argv)
{
    options o;
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
        if (cli_parse_choice("mode", argv[1], mode_names, &idx) != CLI_OK) return CLI_USAGE;
        o.mode = (enum mode)idx;
        shift = 1;
        char ctx[64];
        snprintf(ctx, sizeof ctx, "skit mra %s", mode_names[idx]);
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
        case MODE_SWEEP: status = run_sweep(&o, argc, argv); break;
        case MODE_HAAR: status = run_haar(&o, argc, argv); break;
        case MODE_WORKLOAD: status = run_workload(&o, argc, argv); break;
        case MODE_BOUNDS: status = run_bounds(&o, argc, argv); break;
        case MODE_FRAME: status = run_frame(&o, argc, argv); break;
        default: status = CLI_USAGE; break;
        }
        if (status == CLI_OK && o.save_inputs) status = save_inputs(&o);
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
