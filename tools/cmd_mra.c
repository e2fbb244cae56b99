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
#include <unistd.h>

#include "cli.h"
#include "table.h"

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
    OPT_MATRIX_OUT, OPT_HIST_OUT, OPT_TARGETS, OPT_SUBSETS, OPT_PER_ROW, OPT_DEVICE, OPT_LAST
};

/* Which options each mode takes (bit i = option OPT_METHODS + i). */
#define BIT(o) (1ull << ((o) - OPT_METHODS))
static const unsigned long long mode_options[MODE_COUNT] = {
    /* sweep */ BIT(OPT_METHODS) | BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_DV) | BIT(OPT_BUDGET) |
        BIT(OPT_TEMPERATURE) | BIT(OPT_ENTROPY) | BIT(OPT_BETA) | BIT(OPT_LOCALITY) |
        BIT(OPT_NOISE) | BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) | BIT(OPT_Q) | BIT(OPT_K) |
        BIT(OPT_V) | BIT(OPT_SCALE) | BIT(OPT_BLOCK) | BIT(OPT_SCALES) | BIT(OPT_SELECTION) |
        BIT(OPT_DIAG) | BIT(OPT_FIRST) | BIT(OPT_REPEAT) | BIT(OPT_PER_ROW) | BIT(OPT_DEVICE),
    /* haar */ BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) |
        BIT(OPT_LOCALITY) | BIT(OPT_NOISE) | BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) |
        BIT(OPT_BLOCK) | BIT(OPT_KEEP) | BIT(OPT_MATRIX_OUT) | BIT(OPT_HIST_OUT),
    /* workload */ BIT(OPT_METHODS) | BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_DV) |
        BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) | BIT(OPT_LOCALITY) | BIT(OPT_NOISE) |
        BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) | BIT(OPT_BLOCK) | BIT(OPT_TARGETS),
    /* bounds */ BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) |
        BIT(OPT_LOCALITY) | BIT(OPT_NOISE) | BIT(OPT_SINKS) | BIT(OPT_SINK_STRENGTH) |
        BIT(OPT_BLOCK) | BIT(OPT_BUDGET) | BIT(OPT_Q) | BIT(OPT_K) | BIT(OPT_SCALE),
    /* frame */ BIT(OPT_N) | BIT(OPT_D) | BIT(OPT_TEMPERATURE) | BIT(OPT_BETA) |
        BIT(OPT_LOCALITY) | BIT(OPT_NOISE) | BIT(OPT_SUBSETS),
};

typedef struct options {
    enum mode mode;
    cli_common common;
    int methods[SKIT_ATTENTION_METHOD_COUNT];
    size_t *n, nn, d, dv;
    double *budget, *temperature, *entropy, *keep, *targets;
    size_t nbudget, ntemperature, nentropy, nkeep, ntargets;
    size_t *block, nblock, *scales, nscales;
    skit_attention_synthetic spec;
    const char *qpath, *kpath, *vpath, *matrix_out, *hist_out;
    double scale; /* 0 = 1/sqrt(d) */
    int selection;
    size_t diag, repeat, subsets;
    size_t *per_row, nper_row; /* budgets as attention entries per query */
    int first;
    int device; /* 0 cpu, 1 cuda (sweep) */
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
    "  --q F --k F --v F   user Q, K (n x d) and V (n x dv) from .npy files instead\n"
    "                      (sweep; bounds takes --q --k)\n"
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
    "  --device D          cpu (default) or cuda: run the methods on the GPU (exact,\n"
    "                      mra2, mra2s; float64, transfers included in time_s; MRA\n"
    "                      with two levels); the reference Y stays on the CPU\n"
    "haar options:   --keep LIST (fractions of coefficients, default 0.05,0.1),\n"
    "                --matrix-out FILE (i, j, S and reconstructions), --histogram-out FILE\n"
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
    "  skit mra workload --n 256..2048 --targets 0.05,0.1\n"
    "  skit mra bounds --n 1024 --block 8,32 --temperature 0.5,1,2\n";

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
        {NULL, 0, NULL, 0}};
    static const char *const method_choices[] = {"exact", "mra2", "mra2s", "lowrank", "topk",
                                                 "nystrom", "linformer", "performer", "window",
                                                 "bigbird", NULL};
    static const char *const selection_choices[] = {"global", "row", NULL};
    static const char *const device_choices[] = {"cpu", "cuda", NULL};
    int opt, methods_given = 0;
    double v;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs(usage, stdout);
            return -1;
        }
        int c = cli_common_option(&o->common, opt, optarg);
        if (c == CLI_USAGE) return CLI_USAGE;
        if (c == CLI_OK) continue;
        if (opt == '?' || opt < OPT_METHODS || opt >= OPT_LAST)
            return cli_usage_error("unknown option '%s' (see 'skit mra --help')", argv[optind - 1]);
        if (!(mode_options[o->mode] & BIT(opt)))
            return cli_usage_error("option '%s' does not apply to 'skit mra %s' (see --help)",
                                   /* the option, not its separate value */
                                   optarg && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1],
                                   mode_names[o->mode]);
        int st = CLI_OK;
        switch (opt) {
        case OPT_METHODS:
            memset(o->methods, 0, sizeof o->methods);
            st = cli_parse_choice_list("--methods", optarg, method_choices, o->methods);
            methods_given = 1;
            break;
        case OPT_N:
            free(o->n);
            st = cli_parse_size_list("--n", optarg, 1, (size_t)1 << 24, &o->n, &o->nn);
            break;
        case OPT_D: st = cli_parse_size("--d", optarg, 1, 4096, &o->d); break;
        case OPT_DV: st = cli_parse_size("--dv", optarg, 1, 4096, &o->dv); break;
        case OPT_BUDGET:
            free(o->budget);
            st = cli_parse_double_list("--budget", optarg, 0, 1, &o->budget, &o->nbudget);
            for (size_t i = 0; st == CLI_OK && i < o->nbudget; i++)
                if (!(o->budget[i] > 0))
                    st = cli_usage_error("--budget: expected fractions in (0, 1], got %g", o->budget[i]);
            break;
        case OPT_TEMPERATURE:
            free(o->temperature);
            st = cli_parse_double_list("--temperature", optarg, 1e-6, 1e6, &o->temperature,
                                       &o->ntemperature);
            break;
        case OPT_ENTROPY:
            free(o->entropy);
            st = cli_parse_double_list("--entropy", optarg, 1e-3, 30, &o->entropy, &o->nentropy);
            break;
        case OPT_BETA:
            st = cli_parse_double("--beta", optarg, 0, 1e6, 1, 0, &v);
            o->spec.inverse_temperature = v;
            break;
        case OPT_LOCALITY:
            st = cli_parse_double("--locality", optarg, 0, 1e9, 0, 0, &o->spec.correlation_length);
            break;
        case OPT_NOISE: st = cli_parse_double("--noise", optarg, 0, 1e6, 0, 0, &o->spec.noise); break;
        case OPT_SINKS: st = cli_parse_size("--sinks", optarg, 0, (size_t)1 << 24, &o->spec.sinks); break;
        case OPT_SINK_STRENGTH:
            st = cli_parse_double("--sink-strength", optarg, 0, 1e6, 0, 0, &o->spec.sink_strength);
            break;
        case OPT_Q: o->qpath = optarg; break;
        case OPT_K: o->kpath = optarg; break;
        case OPT_V: o->vpath = optarg; break;
        case OPT_SCALE: st = cli_parse_double("--scale", optarg, 0, 1e6, 1, 0, &o->scale); break;
        case OPT_BLOCK:
            free(o->block);
            st = cli_parse_size_list("--block", optarg, 1, (size_t)1 << 20, &o->block, &o->nblock);
            if (st == CLI_OK && o->mode != MODE_BOUNDS && o->nblock > 1)
                st = cli_usage_error("--block: expected one block size, got a list '%s'", optarg);
            break;
        case OPT_SCALES:
            free(o->scales);
            st = cli_parse_size_list("--scales", optarg, 1, (size_t)1 << 20, &o->scales, &o->nscales);
            break;
        case OPT_SELECTION: st = cli_parse_choice("--selection", optarg, selection_choices, &o->selection); break;
        case OPT_DIAG: st = cli_parse_size("--diagonal-prior", optarg, 0, (size_t)1 << 24, &o->diag); break;
        case OPT_FIRST: o->first = 1; break;
        case OPT_REPEAT: st = cli_parse_size("--repeat", optarg, 1, 100, &o->repeat); break;
        case OPT_KEEP:
            free(o->keep);
            st = cli_parse_double_list("--keep", optarg, 0, 1, &o->keep, &o->nkeep);
            for (size_t i = 0; st == CLI_OK && i < o->nkeep; i++)
                if (!(o->keep[i] > 0))
                    st = cli_usage_error("--keep: expected fractions in (0, 1], got %g", o->keep[i]);
            break;
        case OPT_MATRIX_OUT: o->matrix_out = optarg; break;
        case OPT_HIST_OUT: o->hist_out = optarg; break;
        case OPT_TARGETS:
            free(o->targets);
            st = cli_parse_double_list("--targets", optarg, 0, 10, &o->targets, &o->ntargets);
            for (size_t i = 0; st == CLI_OK && i < o->ntargets; i++)
                if (!(o->targets[i] > 0))
                    st = cli_usage_error("--targets: expected relative errors in (0, 10], got %g",
                                         o->targets[i]);
            break;
        case OPT_SUBSETS: st = cli_parse_size("--subsets", optarg, 1, 10000, &o->subsets); break;
        case OPT_DEVICE: st = cli_parse_choice("--device", optarg, device_choices, &o->device); break;
        case OPT_PER_ROW:
            free(o->per_row);
            st = cli_parse_size_list("--per-row", optarg, 1, (size_t)1 << 24, &o->per_row, &o->nper_row);
            break;
        default: break;
        }
        if (st != CLI_OK) return CLI_USAGE;
    }
    if (optind < argc) return cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (!methods_given) {
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

/* Defaults that depend on the mode, then validation of everything. */
static int finish_options(options *o)
{
    static const size_t n_sweep[] = {1024}, n_haar[] = {128}, n_work[] = {256, 512, 1024},
                        n_frame[] = {8, 16, 32, 64};
    if (!o->n) {
        const size_t *src = o->mode == MODE_HAAR ? n_haar
                            : o->mode == MODE_WORKLOAD ? n_work
                            : o->mode == MODE_FRAME ? n_frame : n_sweep;
        o->nn = o->mode == MODE_WORKLOAD ? 3 : o->mode == MODE_FRAME ? 4 : 1;
        o->n = malloc(o->nn * sizeof *o->n);
        if (!o->n) return cli_failure("out of memory");
        memcpy(o->n, src, o->nn * sizeof *o->n);
    }
    if (o->per_row && o->budget)
        return cli_usage_error("--budget and --per-row exclude each other");
    if (!o->budget && !o->per_row) {
        static const double sweep_b[] = {0.05, 0.1, 0.25}, bounds_b[] = {0.1};
        o->nbudget = o->mode == MODE_BOUNDS ? 1 : 3;
        o->budget = malloc(o->nbudget * sizeof *o->budget);
        if (!o->budget) return cli_failure("out of memory");
        memcpy(o->budget, o->mode == MODE_BOUNDS ? bounds_b : sweep_b, o->nbudget * sizeof(double));
    }
    if (!o->temperature && !o->entropy) {
        o->ntemperature = 1;
        o->temperature = malloc(sizeof(double));
        if (!o->temperature) return cli_failure("out of memory");
        o->temperature[0] = 1.0;
    }
    if (o->temperature && o->entropy)
        return cli_usage_error("--temperature and --entropy exclude each other");
    if (!o->keep) {
        o->nkeep = 2;
        o->keep = malloc(2 * sizeof(double));
        if (!o->keep) return cli_failure("out of memory");
        o->keep[0] = 0.05;
        o->keep[1] = 0.1;
    }
    if (!o->targets) {
        o->ntargets = 2;
        o->targets = malloc(2 * sizeof(double));
        if (!o->targets) return cli_failure("out of memory");
        o->targets[0] = 0.05;
        o->targets[1] = 0.1;
    }
    if (!o->block) {
        o->nblock = 1;
        o->block = malloc(sizeof(size_t));
        if (!o->block) return cli_failure("out of memory");
        o->block[0] = 32;
    }
    if (o->dv == 0) o->dv = o->d;
    if (o->qpath || o->kpath || o->vpath) {
        int need_v = o->mode == MODE_SWEEP;
        if (!o->qpath || !o->kpath || (need_v && !o->vpath))
            return cli_usage_error("--q, --k%s must be given together", need_v ? " and --v" : "");
    }
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    /* every output path is checked before anything is written, so a bad
     * second path cannot leave the first file behind */
    if (cli_check_output_path("--matrix-out", o->matrix_out) != CLI_OK ||
        cli_check_output_path("--histogram-out", o->hist_out) != CLI_OK)
        return CLI_USAGE;
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
    /* mode-specific checks that need no data */
    for (size_t i = 0; i < o->nn; i++) {
        size_t n = o->n[i];
        int pow2 = n && !(n & (n - 1));
        if ((o->mode == MODE_HAAR || o->mode == MODE_FRAME) && !pow2)
            return cli_usage_error("--n = %zu: %s needs powers of two", n, mode_names[o->mode]);
        if (o->mode == MODE_HAAR && n > 2048)
            return cli_usage_error("--n = %zu out of range: haar forms the n x n matrix, need n <= 2048", n);
        if (o->mode == MODE_FRAME && n > 512)
            return cli_usage_error("--n = %zu out of range: frame needs n <= 512", n);
        if (o->mode == MODE_WORKLOAD && n > 2048)
            return cli_usage_error("--n = %zu out of range: workload takes an SVD of the n x n matrix, need n <= 2048", n);
        if (o->mode == MODE_HAAR && (n < 2 * o->block[0] || n % o->block[0]))
            return cli_usage_error("--n = %zu: need a multiple of --block (= %zu) of at least 2 blocks",
                                   n, o->block[0]);
    }
    return CLI_OK;
}

/* ---- inputs ------------------------------------------------------------------ */

typedef struct inputs {
    size_t n, d, dv;
    double *q, *k, *v;
    skit_matrix mq, mk, mv; /* when loaded from files */
} inputs;

static void inputs_free(inputs *in)
{
    if (in->mq.data) {
        skit_matrix_free(&in->mq);
        skit_matrix_free(&in->mk);
        skit_matrix_free(&in->mv);
    } else {
        free(in->q);
        free(in->k);
        free(in->v);
    }
    memset(in, 0, sizeof *in);
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
    return CLI_OK;
}

static int load_inputs(const options *o, int need_v, inputs *in)
{
    memset(in, 0, sizeof *in);
    int st;
    if (need_v) {
        st = skit_attention_read_npy(o->qpath, o->kpath, o->vpath, &in->mq, &in->mk, &in->mv);
    } else {
        st = skit_attention_read_npy(o->qpath, o->kpath, o->qpath, &in->mq, &in->mk, &in->mv);
    }
    if (st != SKIT_OK) /* the message names the file; say which options gave it */
        return st == SKIT_ENOMEM ? cli_library_error(st) : cli_usage_error("--q/--k/--v: %s", skit_last_error());
    in->n = in->mq.rows;
    in->d = in->mq.cols;
    in->dv = in->mv.cols;
    in->q = in->mq.data;
    in->k = in->mk.data;
    in->v = in->mv.data;
    return CLI_OK;
}

static double base_scale(const options *o, size_t d)
{
    return o->scale > 0 ? o->scale : 1.0 / sqrt((double)d);
}

/* tau whose mean row entropy is target (bisection on log tau; entropy grows
 * with tau). */
static int temperature_for_entropy(const inputs *in, double scale0, double target, double *tau,
                                   double *reached)
{
    double hmax = log((double)in->n);
    if (target >= hmax)
        return cli_usage_error("--entropy = %g out of range: need < log n (= %.4g) at n = %zu", target,
                               hmax, in->n);
    double lo = log(1e-4), hi = log(1e4), h = 0, mid = 0, hlo, hhi;
    int st = skit_attention_entropy(in->n, in->d, in->q, in->n, in->k, in->n, scale0 / exp(lo), NULL,
                                    NULL, &hlo);
    if (st == SKIT_OK)
        st = skit_attention_entropy(in->n, in->d, in->q, in->n, in->k, in->n, scale0 / exp(hi),
                                    NULL, NULL, &hhi);
    if (st != SKIT_OK) return cli_library_error(st);
    if (!(hlo <= target && hhi >= target))
        return cli_usage_error("--entropy = %g not reachable: temperatures 1e-4..1e4 give %g..%g nats",
                               target, hlo, hhi);
    for (int it = 0; it < 60; it++) {
        mid = 0.5 * (lo + hi);
        st = skit_attention_entropy(in->n, in->d, in->q, in->n, in->k, in->n, scale0 / exp(mid), NULL,
                                    NULL, &h);
        if (st != SKIT_OK) return cli_library_error(st);
        if (fabs(h - target) < 1e-6 * target) break;
        if (h < target)
            lo = mid;
        else
            hi = mid;
    }
    *tau = exp(mid);
    *reached = h;
    return CLI_OK;
}

/* ---- sweep --------------------------------------------------------------------- */

static size_t clamp_size(double v, size_t lo, size_t hi)
{
    if (!(v >= (double)lo)) return lo;
    if (v >= (double)hi) return hi;
    return (size_t)llround(v);
}

/* Method options for budget fraction f at n; *param receives the method's
 * own parameter (blocks per row, rank, nonzeros, window, ...). */
static void method_options(const options *o, int method, size_t n, double f,
                           skit_attention_options *mo, double *param)
{
    skit_attention_options_init(mo, method);
    mo->seed = o->common.seed;
    mo->block = o->block[0];
    mo->selection = o->selection ? SKIT_MRA_PER_ROW : SKIT_MRA_GLOBAL;
    mo->diagonal_prior = o->diag;
    mo->first_block_prior = o->first;
    size_t b = o->block[0];
    switch (method) {
    case SKIT_ATTENTION_MRA2:
    case SKIT_ATTENTION_MRA2_SPARSE:
        if (o->nscales) {
            mo->levels = o->nscales;
            for (size_t l = 0; l < o->nscales; l++) mo->scales[l] = o->scales[l];
            for (size_t l = 0; l + 1 < o->nscales; l++)
                mo->blocks_per_row[l] = clamp_size(f * (double)(n / o->scales[l]), 1, n / o->scales[l]);
            *param = (double)mo->blocks_per_row[0];
        } else {
            mo->blocks_per_row[0] = clamp_size(f * (double)(n / b), 1, n / b);
            *param = (double)mo->blocks_per_row[0];
        }
        break;
    case SKIT_ATTENTION_LOWRANK:
    case SKIT_ATTENTION_NYSTROM:
    case SKIT_ATTENTION_LINFORMER:
        mo->rank = clamp_size(f * (double)n, 1, n);
        *param = (double)mo->rank;
        break;
    case SKIT_ATTENTION_PERFORMER:
        mo->rank = clamp_size(f * (double)n, 1, (size_t)1 << 20);
        *param = (double)mo->rank;
        break;
    case SKIT_ATTENTION_TOPK:
        mo->nonzeros = clamp_size(f * (double)n * (double)n, 1, n * n);
        *param = (double)mo->nonzeros;
        break;
    case SKIT_ATTENTION_WINDOW: {
        /* the narrowest band |i - j| <= w holding at least f n^2 entries */
        double want = f * (double)n * (double)n;
        size_t lo = 0, hi = n - 1;
        while (lo < hi) {
            size_t w = lo + (hi - lo) / 2;
            double entries = (double)n * (double)(2 * w + 1) - (double)w * (double)(w + 1);
            if (entries + 0.5 >= want)
                hi = w;
            else
                lo = w + 1;
        }
        mo->window = lo;
        *param = (double)mo->window;
        break;
    }
    case SKIT_ATTENTION_BIGBIRD: {
        size_t nb = (n + b - 1) / b, total = clamp_size(f * (double)nb, 4, nb + 4);
        mo->window = 1;
        mo->global_blocks = 1;
        size_t avail = nb > 4 ? nb - 4 : 0;
        mo->random_blocks = total - 4 < avail ? total - 4 : avail;
        *param = (double)mo->random_blocks;
        break;
    }
    default: *param = 0; break;
    }
}

static const char *const sweep_columns[] = {
    "method", "n", "d", "dv", "temperature", "scale", "entropy", "budget", "parameter",
    "work_fraction", "rel_error", "time_s", "cpu_s", "exact_time_s", "plan_bytes", "peak_rss_bytes", NULL};

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
                    skit_attention_options mo;
                    skit_attention_options_init(&mo, m);
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

static int run_sweep(options *o, int argc, char **argv)
{
    int files = o->qpath != NULL;
    inputs in;
    size_t file_n = 0;
    if (files) {
        if (load_inputs(o, 1, &in) != CLI_OK) return CLI_USAGE;
        file_n = in.n;
        if (check_sweep(o, &file_n, 1) != CLI_OK) {
            inputs_free(&in);
            return CLI_USAGE;
        }
    } else if (check_sweep(o, o->n, o->nn) != CLI_OK) {
        return CLI_USAGE;
    }
    cli_table t;
    cli_table_init(&t, sweep_columns);
    char first_tau[48] = "1"; /* the figure's default temperature */
    int status = CLI_OK;
    size_t nruns = files ? 1 : o->nn;
    size_t nt = o->entropy ? o->nentropy : o->ntemperature;
    cli_progress_start(&o->common);
    for (size_t ni = 0; ni < nruns && status == CLI_OK; ni++) {
        if (!files) {
            status = make_inputs(o, o->n[ni], 1, &in);
            if (status != CLI_OK) break;
        }
        size_t n = in.n, d = in.d, dv = in.dv;
        double *y = malloc(n * dv * sizeof *y), *yh = malloc(n * dv * sizeof *yh);
        if (!y || !yh) {
            free(y);
            free(yh);
            inputs_free(&in);
            status = cli_failure("out of memory at n = %zu", n);
            break;
        }
        for (size_t ti = 0; ti < nt && status == CLI_OK; ti++) {
            double tau = 0, h = 0, scale0 = base_scale(o, d);
            if (o->entropy) {
                status = temperature_for_entropy(&in, scale0, o->entropy[ti], &tau, &h);
                if (status != CLI_OK) break;
            } else {
                tau = o->temperature[ti];
            }
            double scale = scale0 / tau;
            int st = skit_attention_entropy(n, d, in.q, n, in.k, n, scale, NULL, NULL, &h);
            double t0 = skit_clock_seconds();
            if (st == SKIT_OK) st = skit_attention_exact(n, d, dv, in.q, n, in.k, n, in.v, n, scale, NULL, y, n);
            double exact_time = skit_clock_seconds() - t0;
            if (st != SKIT_OK) {
                status = cli_library_error(st);
                break;
            }
            for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT && status == CLI_OK; m++) {
                if (!o->methods[m]) continue;
                size_t nb = m == SKIT_ATTENTION_EXACT ? 1 : o->per_row ? o->nper_row : o->nbudget;
                for (size_t bi = 0; bi < nb && status == CLI_OK; bi++) {
                    double f = m == SKIT_ATTENTION_EXACT ? 1.0 : o->per_row ? (double)o->per_row[bi] / (double)n : o->budget[bi], param;
                    /* a per-row budget beyond the row length does not exist at this n */
                    if (m != SKIT_ATTENTION_EXACT && o->per_row && o->per_row[bi] > n) continue;
                    skit_attention_options mo;
                    method_options(o, m, n, f, &mo, &param);
                    mo.scale = scale;
                    mo.device = o->device ? SKIT_DEVICE_CUDA : SKIT_DEVICE_CPU;
                    cli_progress("n = %zu, tau = %g, %s, budget %g", n, tau,
                                 skit_attention_method_name(m), f);
                    skit_attention_plan *plan;
                    st = skit_attention_plan_create(&plan, n, d, dv, &mo);
                    if (st != SKIT_OK) {
                        status = cli_library_error(st);
                        break;
                    }
                    double best = INFINITY, best_cpu = INFINITY;
                    for (size_t r = 0; r < o->repeat && st == SKIT_OK; r++) {
                        double c0 = cpu_seconds(), s0 = skit_clock_seconds();
                        st = skit_attention_execute(plan, in.q, n, in.k, n, in.v, n, NULL, yh, n);
                        double dt = skit_clock_seconds() - s0, dc = cpu_seconds() - c0;
                        if (dt < best) best = dt;
                        if (dc < best_cpu) best_cpu = dc;
                    }
                    skit_attention_stats stats;
                    skit_attention_plan_stats(plan, &stats);
                    size_t bytes = skit_attention_plan_memory(plan);
                    skit_attention_plan_destroy(plan);
                    if (st != SKIT_OK) {
                        status = cli_library_error(st);
                        break;
                    }
                    double err;
                    skit_attention_relative_error(n, dv, yh, n, y, n, &err);
                    if (!cli_table_rows(&t)) snprintf(first_tau, sizeof first_tau, "%.6g", tau);
                    cli_table_rowf(&t, "%s\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%zu\t%zu",
                                   skit_attention_method_name(m), n, d, dv, tau, scale, h, f, param,
                                   stats.work_fraction, err, best, best_cpu, exact_time, bytes,
                                   skit_memory_peak_rss());
                }
            }
        }
        free(y);
        free(yh);
        inputs_free(&in);
    }
    cli_progress_done();
    if (status == CLI_OK) {
        char vars[1024], methods[512] = "";
        for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
            if (o->methods[m] && m != SKIT_ATTENTION_EXACT) {
                strcat(methods, skit_attention_method_name(m));
                strcat(methods, " ");
            }
        snprintf(vars, sizeof vars, "methods='%s'; nsel=%zu; tsel='%s'", methods,
                 files ? file_n : o->n[0], first_tau);
        const char *comments[] = {
            files ? "inputs: Q, K, V from .npy files" : "inputs: synthetic (skit_attention_synthetic)",
            "rel_error = ||Yhat - Y||_F / ||Y||_F against blocked exact attention (same scale)",
            "entropy = mean row entropy of softmax(scale Q K^T) (nats); budget = fraction f of n^2",
            "parameter: mra blocks per row, rank/landmarks/k/features, topk nonzeros, window "
            "half-width, bigbird random blocks",
            NULL};
        char gen[256];
        snprintf(gen, sizeof gen,
                 "generator: beta %g, locality %g, noise %g, sinks %zu, sink strength %g, block %zu",
                 o->spec.inverse_temperature, o->spec.correlation_length, o->spec.noise,
                 o->spec.sinks, o->spec.sink_strength, o->block[0]);
        char device_line[320] = "";
        if (o->device) {
            char status_line[256];
            skit_cuda_status(status_line, sizeof status_line);
            snprintf(device_line, sizeof device_line,
                     "device: %s (float64; time_s includes the host<->device transfers)", status_line);
        }
        const char *all[7] = {comments[0], comments[1], comments[2], comments[3], gen,
                              o->device ? device_line : NULL, NULL};
        status = emit(&t, &o->common,
                      "time_s: wall seconds, cpu_s: CPU seconds of all threads (each the minimum "
                      "of --repeat runs; exact_time_s: one run); plan_bytes, peak_rss_bytes: "
                      "bytes; entropy: nats",
                      all, argc, argv, "mra_sweep", vars);
    }
    cli_table_free(&t);
    return status;
}

/* ---- haar (Figure 1) ---------------------------------------------------------- */

static double frob_diff(size_t n, const double *a, const double *b)
{
    double s = 0;
    for (size_t i = 0; i < n * n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}

static int run_haar(options *o, int argc, char **argv)
{
    static const char *const cols[] = {"keep", "n", "temperature", "entropy", "haar_error",
                                       "lowrank_error", "topk_error", "mra2_error", "mra2s_error",
                                       "haar_rel", "lowrank_rel", "topk_rel", "mra2_rel", "mra2s_rel",
                                       "haar_threshold", NULL};
    static const char *const hcols[] = {"log10_lo", "log10_hi", "count", "fraction", NULL};
    static const char *const mcols[] = {"i", "j", "A", "hat1", "err1", "hat2", "err2", NULL};
    size_t n = o->n[0], d = o->d, b = o->block[0];
    double tau = o->temperature ? o->temperature[0] : 1.0;
    if (o->ntemperature > 1) return cli_usage_error("--temperature: haar takes one value");
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra haar'");
    if (o->nn > 1) return cli_usage_error("--n: haar takes one value");
    inputs in;
    if (make_inputs(o, n, 0, &in) != CLI_OK) return CLI_USAGE;
    double scale = base_scale(o, d) / tau, h = 0;
    size_t nn = n * n;
    double *s = malloc(nn * sizeof *s), *c = malloc(nn * sizeof *c), *hat = malloc(nn * sizeof *hat),
           *eye = calloc(nn, sizeof *eye), *keepmat[2] = {NULL, NULL};
    double *sv = malloc(n * sizeof *sv), small_fraction = 0;
    cli_table t, ht, mt;
    cli_table_init(&t, cols);
    cli_table_init(&ht, hcols);
    cli_table_init(&mt, mcols);
    int status = CLI_OK;
    if (!s || !c || !hat || !eye || !sv) {
        status = cli_failure("out of memory");
        goto done;
    }
    int st = skit_attention_matrix(n, d, in.q, n, in.k, n, scale, NULL, s, n);
    if (st == SKIT_OK) st = skit_attention_entropy(n, d, in.q, n, in.k, n, scale, NULL, NULL, &h);
    if (st == SKIT_OK) st = skit_haar2d_forward(n, s, n, c, n);
    if (st == SKIT_OK) st = skit_svd(n, n, s, n, sv, NULL, n, NULL, n);
    if (st != SKIT_OK) {
        status = cli_library_error(st);
        goto done;
    }
    double snorm = 0;
    for (size_t i = 0; i < nn; i++) snorm += s[i] * s[i];
    snorm = sqrt(snorm);
    /* histogram of log10 |coefficient| */
    {
        size_t bins = 68, counts[68] = {0}, zeros = 0, small = 0;
        for (size_t i = 0; i < nn; i++) {
            double a = fabs(c[i]);
            if (a < 0.005) small++;
            if (a == 0) {
                zeros++;
                continue;
            }
            double lg = log10(a);
            long bin = (long)floor((lg + 16.0) * 4.0);
            if (bin < 0) bin = 0;
            if (bin >= (long)bins) bin = (long)bins - 1;
            counts[bin]++;
        }
        for (size_t k = 0; k < bins; k++)
            cli_table_rowf(&ht, "%.6g\t%.6g\t%zu\t%.6g", -16.0 + (double)k / 4.0, -16.0 + (double)(k + 1) / 4.0, counts[k],
                      (double)counts[k] / (double)nn);
        (void)zeros;
        small_fraction = (double)small / (double)nn;
    }
    for (size_t j = 0; j < n; j++) eye[j + j * n] = 1.0;
    for (size_t ki = 0; ki < o->nkeep && status == CLI_OK; ki++) {
        double f = o->keep[ki], thr = 0;
        size_t keep = clamp_size(f * (double)nn, 1, nn);
        st = skit_haar2d_compress(n, s, n, keep, hat, n, &thr);
        if (st != SKIT_OK) {
            status = cli_library_error(st);
            break;
        }
        double e_haar = frob_diff(n, hat, s);
        if (ki < 2) {
            keepmat[ki] = malloc(nn * sizeof(double));
            if (keepmat[ki]) memcpy(keepmat[ki], hat, nn * sizeof(double));
        }
        /* best rank-r: sqrt(sum of the discarded sigma^2) */
        size_t r = clamp_size(f * (double)n, 1, n);
        double tail = 0;
        for (size_t i = r; i < n; i++) tail += sv[i] * sv[i];
        double e_low = sqrt(tail);
        /* best sparse: the discarded entries, smallest first */
        double e_top;
        {
            skit_attention_options mo;
            double param;
            method_options(o, SKIT_ATTENTION_TOPK, n, f, &mo, &param);
            mo.scale = scale;
            skit_attention_plan *plan;
            st = skit_attention_plan_create(&plan, n, d, n, &mo);
            if (st == SKIT_OK) st = skit_attention_execute(plan, in.q, n, in.k, n, eye, n, NULL, hat, n);
            skit_attention_plan_destroy(plan);
            e_top = frob_diff(n, hat, s);
        }
        double e_mra[2] = {0, 0};
        for (int m = 0; m < 2 && st == SKIT_OK; m++) {
            skit_attention_options mo;
            double param;
            method_options(o, m ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2, n, f, &mo, &param);
            mo.scale = scale;
            mo.block = b;
            skit_attention_plan *plan;
            st = skit_attention_plan_create(&plan, n, d, n, &mo);
            /* V = I gives the approximated (normalised) matrix itself */
            if (st == SKIT_OK) st = skit_attention_execute(plan, in.q, n, in.k, n, eye, n, NULL, hat, n);
            skit_attention_plan_destroy(plan);
            e_mra[m] = frob_diff(n, hat, s);
        }
        if (st != SKIT_OK) {
            status = cli_library_error(st);
            break;
        }
        cli_table_rowf(&t, "%.6g\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g", f, n, tau, h, e_haar, e_low, e_top, e_mra[0], e_mra[1],
                  e_haar / snorm, e_low / snorm, e_top / snorm, e_mra[0] / snorm, e_mra[1] / snorm,
                  thr);
    }
    if (status == CLI_OK && o->matrix_out) {
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                size_t id = i + j * n;
                double h1 = keepmat[0] ? keepmat[0][id] : 0, h2 = keepmat[1] ? keepmat[1][id] : 0;
                cli_table_rowf(&mt, "%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g", i, j, s[id], h1, fabs(h1 - s[id]), h2, fabs(h2 - s[id]));
            }
        status = cli_table_save(&mt, o->matrix_out, argc, argv, o->common.seed,
                                "A = softmax matrix; hat1/hat2: Haar reconstructions at the first two "
                                "--keep fractions; err = |hat - A|");
    }
    if (status == CLI_OK && o->hist_out)
        status = cli_table_save(&ht, o->hist_out, argc, argv, o->common.seed,
                                "histogram of log10 |Haar coefficient| (bins of 0.25)");
    if (status == CLI_OK) {
        char cm1[200];
        snprintf(cm1, sizeof cm1, "fraction of Haar coefficients with magnitude < 0.005: %.4f",
                 small_fraction);
        const char *comments[] = {
            "errors: ||Ahat - A||_F on the softmax matrix A at equal budgets: haar keeps the top "
            "fraction of coefficients, lowrank the top fraction of singular values, topk of entries, "
            "mra2/mra2s refine that fraction of blocks",
            "*_rel = error / ||A||_F", cm1, NULL};
        status = emit(&t, &o->common, "errors: Frobenius norms (dimensionless)", comments, argc, argv,
                      "mra_haar_errors", NULL);
    }
done:
    free(s);
    free(c);
    free(hat);
    free(eye);
    free(sv);
    free(keepmat[0]);
    free(keepmat[1]);
    cli_table_free(&t);
    cli_table_free(&ht);
    cli_table_free(&mt);
    inputs_free(&in);
    return status;
}

/* ---- workload (Figure 7) -------------------------------------------------------- */

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
    for (size_t i = 0; i < o->nn; i++)
        if ((o->methods[SKIT_ATTENTION_MRA2] || o->methods[SKIT_ATTENTION_MRA2_SPARSE]) &&
            (o->n[i] % b || o->n[i] < 2 * b))
            return cli_usage_error("--n = %zu is not a multiple of the MRA block %zu (at least 2 blocks)",
                                   o->n[i], b);
    cli_table t;
    cli_table_init(&t, cols);
    int status = CLI_OK;
    double tau = o->temperature[0];
    cli_progress_start(&o->common);
    for (size_t ni = 0; ni < o->nn && status == CLI_OK; ni++) {
        size_t n = o->n[ni], d = o->d, dv = o->dv;
        inputs in;
        if ((status = make_inputs(o, n, 1, &in)) != CLI_OK) break;
        double scale = base_scale(o, d) / tau;
        size_t *needed = malloc(o->ntargets * sizeof *needed);
        double *errors = malloc((n + 1) * sizeof *errors), *y = malloc(n * dv * sizeof *y),
               *yh = malloc(n * dv * sizeof *yh);
        if (!needed || !errors || !y || !yh) status = cli_failure("out of memory");
        for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT && status == CLI_OK; m++) {
            if (!o->methods[m]) continue;
            cli_progress("n = %zu, %s", n, skit_attention_method_name(m));
            if (m == SKIT_ATTENTION_LOWRANK || m == SKIT_ATTENTION_TOPK) {
                int st = skit_attention_budget_needed(m, n, d, dv, in.q, n, in.k, n, in.v, n, scale,
                                                      o->ntargets, o->targets, needed,
                                                      m == SKIT_ATTENTION_LOWRANK ? errors : NULL);
                if (st != SKIT_OK) {
                    status = cli_library_error(st);
                    break;
                }
                for (size_t t2 = 0; t2 < o->ntargets; t2++) {
                    double work = m == SKIT_ATTENTION_LOWRANK ? 2.0 * (double)n * (double)needed[t2]
                                                              : (double)needed[t2];
                    double err = m == SKIT_ATTENTION_LOWRANK ? errors[needed[t2]] : o->targets[t2];
                    cli_table_rowf(&t, "%s\t%zu\t%.6g\t%zu\t%.6g\t%.6g\t%.6g", skit_attention_method_name(m), n, o->targets[t2],
                              needed[t2], work, work / ((double)n * (double)n), err);
                }
                continue;
            }
            /* MRA: the smallest blocks per row reaching each target */
            int st = skit_attention_exact(n, d, dv, in.q, n, in.k, n, in.v, n, scale, NULL, y, n);
            if (st != SKIT_OK) {
                status = cli_library_error(st);
                break;
            }
            for (size_t t2 = 0; t2 < o->ntargets && status == CLI_OK; t2++) {
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
                    st = skit_attention_plan_create(&plan, n, d, dv, &mo);
                    if (st == SKIT_OK) st = skit_attention_execute(plan, in.q, n, in.k, n, in.v, n, NULL, yh, n);
                    skit_attention_stats stats;
                    if (st == SKIT_OK) skit_attention_plan_stats(plan, &stats);
                    skit_attention_plan_destroy(plan);
                    if (st != SKIT_OK) break;
                    skit_attention_relative_error(n, dv, yh, n, y, n, &err);
                    if (err <= o->targets[t2]) {
                        found = bpr;
                        work = stats.entries;
                    }
                }
                if (st != SKIT_OK) {
                    status = cli_library_error(st);
                    break;
                }
                cli_table_rowf(&t, "%s\t%zu\t%.6g\t%zu\t%.6g\t%.6g\t%.6g", skit_attention_method_name(m), n, o->targets[t2], found,
                          found ? work : NAN, found ? work / ((double)n * (double)n) : NAN, err);
            }
        }
        free(needed);
        free(errors);
        free(y);
        free(yh);
        inputs_free(&in);
    }
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

static int run_bounds(options *o, int argc, char **argv)
{
    static const char *const cols[] = {
        "n", "temperature", "block", "budget", "blocks", "lemma_lower_violations",
        "lemma_upper_violations", "lemma_holder_violations", "lemma_max_ratio",
        "lemma_max_ratio_holder", "mean_range", "max_range", "prop_refined", "prop_measured",
        "prop_bound", "prop_holds", NULL};
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra bounds'");
    int files = o->qpath != NULL;
    inputs in;
    size_t nruns = files ? 1 : o->nn;
    int status = CLI_OK;
    if (files && load_inputs(o, 0, &in) != CLI_OK) return CLI_USAGE;
    /* validate sizes first */
    for (size_t ni = 0; ni < nruns; ni++) {
        size_t n = files ? in.n : o->n[ni];
        for (size_t bi = 0; bi < o->nblock; bi++)
            if (o->block[bi] > n || n % o->block[bi]) {
                if (files) inputs_free(&in);
                return cli_usage_error("--block = %zu does not divide --n = %zu", o->block[bi], n);
            }
    }
    cli_table t;
    cli_table_init(&t, cols);
    cli_progress_start(&o->common);
    for (size_t ni = 0; ni < nruns && status == CLI_OK; ni++) {
        if (!files && (status = make_inputs(o, o->n[ni], 0, &in)) != CLI_OK) break;
        size_t n = in.n, d = in.d;
        for (size_t ti = 0; ti < o->ntemperature && status == CLI_OK; ti++) {
            double tau = o->temperature[ti], scale = base_scale(o, d) / tau;
            for (size_t bi = 0; bi < o->nblock && status == CLI_OK; bi++) {
                size_t b = o->block[bi], rows = n / b;
                cli_progress("n = %zu, tau = %g, block %zu", n, tau, b);
                skit_mra_lemma41 lr;
                int st = skit_mra_lemma41_evaluate(n, d, in.q, n, in.k, n, scale, b, &lr);
                for (size_t fi = 0; fi < o->nbudget && st == SKIT_OK; fi++) {
                    size_t m1 = clamp_size(o->budget[fi] * (double)rows * (double)rows, 0, rows * rows);
                    skit_mra_prop45 pr;
                    st = skit_mra_prop45_evaluate(n, d, in.q, n, in.k, n, scale, b, m1, &pr);
                    if (st != SKIT_OK) break;
                    cli_table_rowf(&t, "%zu\t%.6g\t%zu\t%.6g\t%zu\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s", n, tau, b, o->budget[fi], lr.blocks,
                              lr.lower_violations, lr.upper_violations, lr.holder_violations,
                              lr.max_ratio, lr.max_ratio_holder, lr.mean_range, lr.max_range,
                              (double)m1, pr.measured, pr.bound, pr.holds ? "yes" : "no");
                }
                if (st != SKIT_OK) status = cli_library_error(st);
            }
        }
        inputs_free(&in);
    }
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
    cli_table t;
    cli_table_init(&t, cols);
    int status = CLI_OK;
    skit_rng rng;
    skit_rng_seed_stream(&rng, o->common.seed, 77);
    for (size_t ni = 0; ni < o->nn && status == CLI_OK; ni++) {
        size_t n = o->n[ni], count = skit_mra_frame_count(n);
        inputs in;
        if ((status = make_inputs(o, n, 0, &in)) != CLI_OK) break;
        double *s = malloc(n * n * sizeof *s);
        unsigned char *sub = malloc(count);
        if (!s || !sub) status = cli_failure("out of memory");
        int st = SKIT_OK;
        if (status == CLI_OK)
            st = skit_attention_matrix(n, in.d, in.q, n, in.k, n, base_scale(o, in.d) / o->temperature[0],
                                       NULL, s, n);
        for (size_t r = 0; r < subsets && st == SKIT_OK && status == CLI_OK; r++) {
            double density = skit_rng_uniform(&rng);
            size_t in_j = 0;
            for (size_t i = 0; i < count; i++) in_j += sub[i] = skit_rng_uniform(&rng) < density;
            double diff;
            st = skit_mra_observation_a1(n, s, n, sub, &diff);
            if (st == SKIT_OK) cli_table_rowf(&t, "%zu\t%zu\t%.6g\t%zu\t%.6g", n, r, density, in_j, diff);
        }
        if (st != SKIT_OK && status == CLI_OK) status = cli_library_error(st);
        free(s);
        free(sub);
        inputs_free(&in);
    }
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
    if (status == -1) {
        status = CLI_OK;
        goto out;
    }
    if (status == CLI_OK) status = finish_options(&o);
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
    return status;
}
