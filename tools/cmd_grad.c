/* cmd_grad.c — `skit grad-check`: an operator's backward pass against
 * central finite differences (tools/gradcheck.h says how), or, --precision
 * f32, its float32 backward against its float64 one, one row per
 * parameter or input group; exit 1 when a group's error exceeds its
 * tolerance.
 *
 * For the checker's own tests (tests/cli_grad.sh), not for users: the
 * environment variable SKIT_GRADCHECK_INJECT=KIND:GROUP[:ROW[:EPS]] puts a
 * known error into one group's gradient after the backward (scale: row
 * ROW times 1 + EPS, default 1e-4; shift: row ROW takes its neighbour's
 * values; transpose: A dy for A^T dy), which the check must report. Only
 * this command reads it; the library has no such hook. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "gradcheck.h"
#include "cli/table.h"

#define SKIT_CLI_TRY(expr)          \
    do {                            \
        int rc_ = (expr);           \
        if (rc_ != CLI_OK) return rc_; \
    } while (0)

static const char *usage =
    "usage: skit grad-check --op OP [options]\n"
    "Check an operator's backward pass (vector-Jacobian product) against central\n"
    "finite differences in float64 on fresh random inputs: for a random output\n"
    "gradient dy, the gradient of <dy, f(p)> w.r.t. every parameter and input\n"
    "group: its rows (tokens, lags, a layer's outputs) in --blocks runs, each\n"
    "along the gradient and a random direction confined to it, then --samples\n"
    "coordinates and 2 random directions over the whole group; each derivative\n"
    "a Richardson-extrapolated central difference. A check's error is\n"
    "|<g, v> - fd_v| over the size <g, v> should have (tools/gradcheck.h), so an\n"
    "error confined to one row is measured against that row's run, not the\n"
    "whole group; a group's error is the worst over its checks.\n\n"
    "  --op OP             toeplitz (per-channel Toeplitz matvec: x, coeffs),\n"
    "                      mlp (the RPE MLP, 2 -> d at n inputs: x, each layer),\n"
    "                      decay (the decay bias rpe(t) lambda^|t|: rpe, lambda),\n"
    "                      tno (TNO: x, lambda, the RPE's layers),\n"
    "                      attention (exact softmax attention: q, k, v;\n"
    "                      --causal: the decoder's mask);\n"
    "                      fd (FD-TNO: x, the RPE's layers; causal through the\n"
    "                      Hilbert step), ski-tno (SKI-TNO: x, knot values,\n"
    "                      taps; --causal: the running sums), ski-causal\n"
    "                      (causal SKI-TNO whatever --causal says),\n"
    "                      mra2 (MRA-2, selection held fixed: q, k, v; even n;\n"
    "                      --causal: the causal selection and mask)\n"
    "  --precision P       f64 (default: finite differences as above) or f32\n"
    "                      (toeplitz, tno, fd, ski-tno, ski-causal, attention,\n"
    "                      mra2): the float32 backward against the float64\n"
    "                      backward on the same inputs rounded to float (mra2:\n"
    "                      the same refined squares); error max |g32 - g64| /\n"
    "                      max |g64|, each group's tolerance derived from 2^-24\n"
    "                      times the growth factors of skit/toeplitz.h,\n"
    "                      skit/tno.h and skit/attention.h (tno, fd: d(2n-1)\n"
    "                      extra float64 backward calls measure the RPE's map;\n"
    "                      ski-*: x, params, knots, taps; attention, mra2: the\n"
    "                      largest entry of the entry-wise bound)\n"
    "  --n N --d D         tokens (default 64) and channels (default 4)\n"
    "  --batch B           sequences (tno, fd, ski-*; default 2)\n"
    "  --causal            causal operator; --bidirectional (default) the other\n"
    "  --activation A      relu (default), silu or gelu (mlp, tno)\n"
    "  --norm N            rms (default), layer or none (mlp, tno)\n"
    "  --rpe-width W       MLP width (default 16); --rpe-layers L hidden layers (2)\n"
    "  --decay LAMBDA      decay bias in (0, 1) (default 0.9)\n"
    "  --samples K         coordinates checked at random per group (default 12)\n"
    "  --blocks B          row runs per group, two checks each (default 16; a\n"
    "                      group with no more rows than B, one value per row,\n"
    "                      is checked at every coordinate)\n"
    "  --full              every coordinate of every group against its own central\n"
    "                      difference (the whole gradient: for tiny shapes, at most\n"
    "                      4096 coordinates in all; f64 only)\n"
    "  --tolerance T       largest error accepted (default 1e-6; f64 only)\n" CLI_COMMON_HELP;

typedef struct gc_args {
    cli_common common;
    const char *op;
    gradcheck_options o;
} gc_args;

enum { OPT_OP = 1, OPT_PRECISION, OPT_N, OPT_D, OPT_BATCH, OPT_CAUSAL, OPT_BIDI, OPT_ACT, OPT_NORM, OPT_WIDTH,
       OPT_LAYERS, OPT_DECAY, OPT_SAMPLES, OPT_BLOCKS, OPT_FULL, OPT_TOL };

static int parse_op(gc_args *a, const char *text)
{
    int index;
    SKIT_CLI_TRY(cli_parse_choice("--op", text, gradcheck_ops, &index));
    a->op = gradcheck_ops[index];
    return CLI_OK;
}

static int op_has_f32(const char *op)
{
    for (size_t i = 0; gradcheck_ops_f32[i]; i++)
        if (!strcmp(op, gradcheck_ops_f32[i])) return 1;
    return 0;
}

/* One option (cli_options.apply): -1 if not one of grad-check's own. */
static int parse_one(void *ctx, int opt, const char *arg)
{
    gc_args *a = ctx;
    static const char *const precisions[] = {"f64", "f32", NULL}, *const acts[] = {"relu", "silu", "gelu", NULL},
                             *const norms[] = {"none", "layer", "rms", NULL};
    gradcheck_options *o = &a->o;
    int index;
    switch (opt) {
    case OPT_OP: return parse_op(a, arg);
    case OPT_PRECISION:
        SKIT_CLI_TRY(cli_parse_choice("--precision", arg, precisions, &index));
        o->f32 = index == 1;
        return CLI_OK;
    case OPT_N: return cli_parse_size("--n", arg, 1, (size_t)1 << 16, &o->n);
    case OPT_D: return cli_parse_size("--d", arg, 1, 4096, &o->d);
    case OPT_BATCH: return cli_parse_size("--batch", arg, 1, 1024, &o->batch);
    case OPT_CAUSAL: o->causal = 1; return CLI_OK;
    case OPT_BIDI: o->causal = 0; return CLI_OK;
    case OPT_ACT:
        SKIT_CLI_TRY(cli_parse_choice("--activation", arg, acts, &index));
        o->activation = (skit_activation)index;
        return CLI_OK;
    case OPT_NORM:
        SKIT_CLI_TRY(cli_parse_choice("--norm", arg, norms, &index));
        o->norm = (skit_norm)index;
        return CLI_OK;
    case OPT_WIDTH: return cli_parse_size("--rpe-width", arg, 1, 1024, &o->rpe_width);
    case OPT_LAYERS: return cli_parse_size("--rpe-layers", arg, 0, 64, &o->rpe_layers);
    case OPT_DECAY: return cli_parse_double("--decay", arg, 0, 1, 1, 1, &o->decay);
    case OPT_SAMPLES: return cli_parse_size("--samples", arg, 1, (size_t)1 << 20, &o->samples);
    case OPT_BLOCKS: return cli_parse_size("--blocks", arg, 1, (size_t)1 << 20, &o->blocks);
    case OPT_FULL: o->full = 1; return CLI_OK;
    case OPT_TOL: return cli_parse_double("--tolerance", arg, 0, 1, 1, 0, &o->tolerance);
    }
    return -1;
}

/* SKIT_GRADCHECK_INJECT (tests only, see the top of this file) */
static int parse_injection(gradcheck_inject *inject, int f32)
{
    const char *text = getenv("SKIT_GRADCHECK_INJECT");
    memset(inject, 0, sizeof *inject);
    if (!text || !*text) return CLI_OK;
    if (!gradcheck_inject_parse(text, inject))
        return inject->kind == GRADCHECK_INJECT_TRANSPOSE && f32
                   ? cli_usage_error("SKIT_GRADCHECK_INJECT=%s: transpose is for precision f64", text)
                   : CLI_OK;
    return cli_usage_error("SKIT_GRADCHECK_INJECT=%s: need scale, shift or transpose:GROUP[:ROW[:EPS]]", text);
}

static int parse_args(int argc, char **argv, gc_args *a)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"op", required_argument, NULL, OPT_OP},
        {"precision", required_argument, NULL, OPT_PRECISION},
        {"n", required_argument, NULL, OPT_N},
        {"d", required_argument, NULL, OPT_D},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"causal", no_argument, NULL, OPT_CAUSAL},
        {"bidirectional", no_argument, NULL, OPT_BIDI},
        {"activation", required_argument, NULL, OPT_ACT},
        {"norm", required_argument, NULL, OPT_NORM},
        {"rpe-width", required_argument, NULL, OPT_WIDTH},
        {"rpe-layers", required_argument, NULL, OPT_LAYERS},
        {"decay", required_argument, NULL, OPT_DECAY},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"blocks", required_argument, NULL, OPT_BLOCKS},
        {"full", no_argument, NULL, OPT_FULL},
        {"tolerance", required_argument, NULL, OPT_TOL},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_common_init(&a->common);
    gradcheck_options_default(&a->o);
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &a->common,
                                .apply = parse_one, .ctx = a};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (a->common.plot) return cli_usage_error("--plot: grad-check draws no figure (its table is the result)");
    rc = cli_common_validate(&a->common);
    if (rc != CLI_OK) return rc;
    if (!a->op)
        return cli_usage_error("--op is required: toeplitz, mlp, decay, tno, fd, ski-tno, ski-causal, attention or mra2");
    if (!strcmp(a->op, "mra2") && (a->o.n % 2 || a->o.n < 4))
        return cli_usage_error("--n %zu: mra2 needs an even n >= 4 (blocks of 8, 4 or 2 tokens, two at least)",
                               a->o.n);
    if (a->o.f32 && !op_has_f32(a->op))
        return cli_usage_error("--precision f32 with --op %s: float32 backward passes exist for toeplitz, tno, fd, "
                               "ski-tno, ski-causal, attention and mra2",
                               a->op);
    if (a->o.full && a->o.f32)
        return cli_usage_error("--full with --precision f32: the float32 check already compares every coordinate");
    a->o.seed = a->common.seed;
    return parse_injection(&a->o.inject, a->o.f32);
}

int cmd_grad_check(int argc, char **argv)
{
    gc_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
    cli_apply_threads(&a.common);
    gradcheck_result r;
    cli_progress_start(&a.common);
    cli_progress("--op %s, n = %zu", a.op, a.o.n); /* the heartbeat shows it while the check runs */
    int status = gradcheck_run(a.op, &a.o, &r);
    cli_progress_done();
    if (status == SKIT_EINVAL && a.o.inject.kind)
        return a.o.inject.kind == GRADCHECK_INJECT_TRANSPOSE
                   ? cli_usage_error("SKIT_GRADCHECK_INJECT: --op %s has no group %s of the output's size", a.op,
                                     a.o.inject.group)
                   : cli_usage_error("SKIT_GRADCHECK_INJECT: --op %s has no group %s with a row %zu", a.op,
                                     a.o.inject.group, a.o.inject.row);
    if (status == SKIT_ETOOBIG && a.o.full)
        return cli_usage_error("--full: --op %s has %zu coordinates at these sizes, at most %d (smaller --n, --d, "
                               "--batch or --rpe-width)", a.op, r.coordinates, GRADCHECK_FULL_MAX);
    if (status != SKIT_OK) return cli_library_error(status);
    static const char *const cols[] = {"op", "group", "count", "checked", "max_abs_grad", "rel_error", "tolerance",
                                       "verdict", NULL};
    cli_table t;
    cli_table_init(&t, cols);
    /* ski-causal is causal whatever --causal says */
    const char *direction = a.o.causal || !strcmp(a.op, "ski-causal") ? "causal" : "bidirectional";
    if (a.o.f32)
        cli_table_comment(&t, "precision f32, n=%zu d=%zu batch=%zu %s; error = max |g32 - g64| / max |g64| per group, "
                          "tolerance = the smaller of the derived bound / max |g64| and the expected rounding %.3g "
                          "(single values: the bound; TNO and FD-TNO parameters: max |g64| at least 1/128 of "
                          "the sums' size)", a.o.n, a.o.d, a.o.batch, direction, gradcheck_rounding_level(&a.o));
    else
        cli_table_comment(&t, "precision f64, n=%zu d=%zu batch=%zu %s; blocks %zu, samples %zu%s; error = the worst "
                          "|<g, v> - fd_v| / the size of <g, v> over the checks",
                          a.o.n, a.o.d, a.o.batch, direction, a.o.blocks, a.o.samples, a.o.full ? ", full" : "");
    const gradcheck_group *worst = NULL;
    for (size_t k = 0; k < r.ngroups; k++) {
        const gradcheck_group *g = &r.groups[k];
        int ok = g->error <= g->tolerance;
        if (!ok && !worst) worst = g;
        cli_table_rowf(&t, "%s\t%s\t%zu\t%zu\t%.3g\t%.3g\t%.3g\t%s", a.op, g->name, g->count, g->checked,
                       g->max_grad, g->error, g->tolerance, ok ? "ok" : "FAILED");
    }
    rc = cli_table_emit(&t, &a.common, argc, argv, NULL, NULL, NULL);
    cli_table_free(&t);
    if (rc == CLI_OK && worst)
        rc = cli_failure("group %s: relative error %.3g above its tolerance %.3g (worst error %.3g)", worst->name,
                         worst->error, worst->tolerance, r.worst);
    return rc;
}
