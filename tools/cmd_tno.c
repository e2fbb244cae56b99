/* cmd_tno.c — `skit tno`: apply a token-mixing operator (TNO, SKI-TNO,
 * FD-TNO; causal or bidirectional) to (batch, n, d) data from .npy / TSV
 * or generated, with parameters generated from a seed or loaded from
 * files (e.g. weights exported from a trained PyTorch model); writes the
 * output, optionally the operator's Toeplitz coefficients and parameters,
 * and with --verify the error against the dense O(n^2) product.
 * Everything is validated before any work is done or any file created;
 * every file is written atomically. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/checkpoint.h"
#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static const char *usage =
    "usage: skit tno [options]\n"
    "Apply a token-mixing operator to (batch, n, d) data: y_c = T_c x_c for every\n"
    "channel c of every sequence.\n\n"
    "  --op OP             tno (default): RPE MLP over raw integer lags, decay bias\n"
    "                        lambda^|t|, Toeplitz product by FFT (TNN);\n"
    "                      ski: sparse band (m taps) + SKI low rank W A W^T with the\n"
    "                        piecewise-linear RPE and inverse time warp (SKI-TNN\n"
    "                        Algorithm 1; causal: cumulative sums, Appendix B);\n"
    "                      fd: frequency-domain RPE (FD-TNN; causal: Hilbert)\n"
    "  --causal            causal operator (y_i depends on x_0..x_i)\n"
    "  --x FILE            input, .npy or TSV: (n, d), or (batch*n, d) with --batch,\n"
    "                      rows = tokens as PyTorch stores x.reshape(-1, d); a 1-D\n"
    "                      array is one channel\n"
    "  --batch B           sequences stacked in --x (default 1)\n"
    "  --n N --d D         generate a standard normal input (seeded) instead of --x\n"
    "  --rpe-width W       RPE MLP width (tno, fd; default 64)\n"
    "  --rpe-layers L      RPE hidden layers (default 3)\n"
    "  --activation A      relu (default), silu or gelu\n"
    "  --norm N            rms (default, TNN's), layer or none\n"
    "  --decay LAMBDA      tno: decay bias in (0, 1] (1: none); ski: time warp in\n"
    "                      (0, 1) (default 0.99)\n"
    "  --rank R            ski: inducing points, 2 <= r <= n (default min(64, n))\n"
    "  --taps M            ski: sparse filter taps, odd or 0 (default 17, capped\n"
    "                      at 2n-1)\n"
    "  --knots K           ski: knots per side of the piecewise-linear RPE (default 32)\n"
    "  --causal-ski A      causal ski: cumsum (the running sums of Appendix B, O(n r)\n"
    "                      per channel), blocked (the same product with the sums\n"
    "                      grouped by interpolation bracket, O(n + r^2)) or auto\n"
    "                      (default: blocked when n > 2r, where it is faster)\n"
    "  --fft-length N      fd: FFT length, even and >= 2n (default: next power of two)\n"
    "  --params FILE       every parameter as one vector (.npy/TSV, flattened in C\n"
    "                      order): tno/fd the RPE MLP (each Linear's weight\n"
    "                      (out x in) then bias, as torch.cat of p.flatten() over\n"
    "                      rpe.parameters()); ski the knot values (d x 2K) then\n"
    "                      the taps (d x m); a mixer of a 'skit train --save'\n"
    "                      checkpoint (DIR/layerL.mixer.npy beside DIR/model.tsv)\n"
    "                      is checked against its checksum and the options it was\n"
    "                      trained with: a difference is refused, naming the option\n"
    "  --knot-values FILE  ski: the knot values alone, d x 2K (sets K)\n"
    "  --filter FILE       ski: the taps alone, d x m, tap k at lag k - (m-1)/2\n"
    "                      (sets m; a PyTorch Conv1d weight flipped per channel)\n"
    "  --save-params FILE  write the parameters used (1-D .npy or TSV)\n"
    "  --coeffs FILE       write the Toeplitz coefficients (tno, fd) as a (2n-1) x d\n"
    "                      array t_{-(n-1)}..t_{n-1} per column (the layout of\n"
    "                      'skit toeplitz matvec --coeffs')\n"
    "  --coeff-layout L    skit (default) or reference: 2n x d in the TNN code's\n"
    "                      FFT layout [a_0..a_{n-1}, 0, a_{-(n-1)}..a_{-1}]\n"
    "  --verify            also compute the dense O(n^2) product and report\n"
    "                      max|y - dense| / max(|T||x|); exit 1 above the tolerance\n"
    "                      (1e-12; causal ski: max(1e-12, 8 n eps), its sums are\n"
    "                      sequential)\n"
    "  --stats FILE        one-row TSV: operator, shape, plan bytes, seconds, error\n"
    "  --device D          cpu (default) or cuda: apply the operator on the GPU\n"
    "                      (float64, transfers included; tno, fd, bidirectional ski)\n"
    "  --precision P       f64 (default) or f32 (cpu): the operator in float32 on\n"
    "                      float32 x and y (a .npy x of '<f4' read as is, y written\n"
    "                      '<f4'); the RPE / knots evaluated in float64, rounded\n"
    "  -o, --output FILE   y as .npy ((batch*n) x d) or TSV (default: TSV on stdout)\n"
    "      --seed N        seed of generated parameters and input (default 1)\n"
    "      --threads N     OpenMP threads (default: all cores)\n"
    "      --quiet         no messages on stderr\n"
    CLI_PLANNER_HELP("estimate: byte-reproducible output")
    "  -h, --help          this message\n\n"
    "examples:\n"
    "  skit tno --op fd --causal --x x.npy -o y.npy --verify\n"
    "  skit tno --op ski --n 4096 --d 64 --rank 64 --taps 17 --stats stats.tsv -o y.npy\n"
    "  skit tno --n 65536 --d 64 --device cuda --verify -o y.npy\n"
    "  skit tno --op fd --causal --x x32.npy --precision f32 -o y32.npy\n";

enum { OPT_OP = 0x2000, OPT_CAUSAL, OPT_X, OPT_BATCH, OPT_N, OPT_D, OPT_RPE_WIDTH, OPT_RPE_LAYERS,
       OPT_ACTIVATION, OPT_NORM, OPT_DECAY, OPT_RANK, OPT_TAPS, OPT_KNOTS, OPT_FFT_LENGTH, OPT_PARAMS,
       OPT_KNOT_VALUES, OPT_FILTER, OPT_SAVE_PARAMS, OPT_COEFFS, OPT_COEFF_LAYOUT, OPT_VERIFY, OPT_STATS, OPT_CAUSAL_SKI,
       OPT_DEVICE, OPT_PRECISION };

typedef struct args {
    cli_common common;
    skit_tno_options op;
    int have_decay, have_rank, have_taps, have_knots;
    const char *x_path, *params_path, *knots_path, *filter_path, *save_params, *coeffs_path, *stats_path;
    size_t batch, n, d;
    int coeff_reference, verify;
    int have_batch, have_algorithm;
} args;

/* C-order flattening of a column-major rows x cols matrix */
static void flatten_c(const skit_matrix *m, double *out)
{
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++) out[i * m->cols + j] = m->data[i + j * m->rows];
}

/* An option of the operator itself (kind, RPE, SKI, FD, precision,
 * device) into a->op: CLI_OK, CLI_USAGE (reported), -1 if not one. */
static int apply_operator_option(args *a, int opt, const char *arg)
{
    static const char *const ops[] = {"tno", "ski", "fd", NULL};
    static const char *const acts[] = {"relu", "silu", "gelu", NULL};
    static const char *const norms[] = {"none", "layer", "rms", NULL};
    static const char *const devices[] = {"cpu", "cuda", NULL};
    int idx;
    switch (opt) {
    case OPT_OP:
        if (cli_parse_choice("--op", arg, ops, &idx) != CLI_OK) return CLI_USAGE;
        a->op.kind = (skit_tno_kind)idx;
        return CLI_OK;
    case OPT_CAUSAL: a->op.causality = SKIT_CAUSAL; return CLI_OK;
    case OPT_RPE_WIDTH: return cli_parse_size("--rpe-width", arg, 1, 4096, &a->op.rpe_width);
    case OPT_RPE_LAYERS: return cli_parse_size("--rpe-layers", arg, 0, 64, &a->op.rpe_layers);
    case OPT_ACTIVATION:
        if (cli_parse_choice("--activation", arg, acts, &idx) != CLI_OK) return CLI_USAGE;
        a->op.activation = (skit_activation)idx;
        return CLI_OK;
    case OPT_NORM:
        if (cli_parse_choice("--norm", arg, norms, &idx) != CLI_OK) return CLI_USAGE;
        a->op.norm = (skit_norm)idx;
        return CLI_OK;
    case OPT_DECAY:
        a->have_decay = 1;
        return cli_parse_double("--decay", arg, 0, 1, 1, 0, &a->op.decay);
    case OPT_RANK:
        a->have_rank = 1;
        return cli_parse_size("--rank", arg, 2, (size_t)1 << 20, &a->op.rank);
    case OPT_TAPS:
        if (cli_parse_size("--taps", arg, 0, (size_t)1 << 20, &a->op.taps) != CLI_OK) return CLI_USAGE;
        if (a->op.taps % 2 == 0 && a->op.taps)
            return cli_usage_error("--taps: %zu out of range: need an odd number (a centred filter) or 0",
                                   a->op.taps);
        a->have_taps = 1;
        return CLI_OK;
    case OPT_KNOTS:
        a->have_knots = 1;
        return cli_parse_size("--knots", arg, 1, (size_t)1 << 20, &a->op.knots);
    case OPT_FFT_LENGTH:
        if (cli_parse_size("--fft-length", arg, 2, (size_t)1 << 31, &a->op.fft_length) != CLI_OK)
            return CLI_USAGE;
        if (a->op.fft_length % 2)
            return cli_usage_error("--fft-length: %zu out of range: need an even length >= 2n",
                                   a->op.fft_length);
        return CLI_OK;
    case OPT_DEVICE:
        if (cli_parse_choice("--device", arg, devices, &idx) != CLI_OK) return CLI_USAGE;
        a->op.device = idx ? SKIT_DEVICE_CUDA : SKIT_DEVICE_CPU;
        return CLI_OK;
    case OPT_PRECISION: return cli_parse_precision(arg, &a->op.precision);
    case OPT_CAUSAL_SKI:
        a->have_algorithm = 1;
        return cli_parse_causal_ski(arg, &a->op.causal_ski);
    }
    return -1;
}

/* One option (cli_options.apply): CLI_OK, CLI_USAGE (reported), -1 if
 * not one of tno's own. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    static const char *const layouts[] = {"skit", "reference", NULL};
    args *a = ctx;
    int idx, rc = apply_operator_option(a, opt, arg);
    if (rc != -1) return rc;
    switch (opt) {
    case 0x1001: return cli_usage_error("--plot: skit tno draws no figure");
    case OPT_X: a->x_path = arg; return CLI_OK;
    case OPT_BATCH:
        a->have_batch = 1;
        return cli_parse_size("--batch", arg, 1, (size_t)1 << 20, &a->batch);
    case OPT_N: return cli_parse_size("--n", arg, 1, (size_t)1 << 26, &a->n);
    case OPT_D: return cli_parse_size("--d", arg, 1, (size_t)1 << 16, &a->d);
    case OPT_PARAMS: a->params_path = arg; return CLI_OK;
    case OPT_KNOT_VALUES: a->knots_path = arg; return CLI_OK;
    case OPT_FILTER: a->filter_path = arg; return CLI_OK;
    case OPT_SAVE_PARAMS: a->save_params = arg; return CLI_OK;
    case OPT_COEFFS: a->coeffs_path = arg; return CLI_OK;
    case OPT_COEFF_LAYOUT:
        if (cli_parse_choice("--coeff-layout", arg, layouts, &idx) != CLI_OK) return CLI_USAGE;
        a->coeff_reference = idx;
        return CLI_OK;
    case OPT_VERIFY: a->verify = 1; return CLI_OK;
    case OPT_STATS: a->stats_path = arg; return CLI_OK;
    }
    return -1;
}

/* The combinations of options, and every output path, before any work. */
static int check_args(args *a)
{
    skit_tno_options *o = &a->op;
    if (a->x_path && (a->n || a->d))
        return cli_usage_error("--x: give either --x FILE or --n and --d (generated input), not both");
    if (!a->x_path && !(a->n && a->d))
        return cli_usage_error("--x: missing (an input file, or --n N --d D to generate one)");
    if (!a->x_path && a->have_batch && a->batch > 1 && a->n * a->d * a->batch > ((size_t)1 << 28))
        return cli_usage_error("--batch: batch*n*d = %zu out of range: need <= 2^28 generated values",
                               a->n * a->d * a->batch);
    if (!a->x_path && a->n * a->d > ((size_t)1 << 28))
        return cli_usage_error("--n: n*d = %zu out of range: need <= 2^28 generated values", a->n * a->d);
    if (o->kind != SKIT_TNO_SKI && (a->have_rank || a->have_taps || a->have_knots || a->knots_path || a->filter_path))
        return cli_usage_error("--rank/--taps/--knots/--knot-values/--filter: only for --op ski");
    if (o->kind == SKIT_TNO_SKI && o->decay >= 1)
        return cli_usage_error("--decay: %g out of range: the SKI time warp needs 0 < lambda < 1", o->decay);
    if (o->kind == SKIT_TNO_SKI && a->params_path && (a->knots_path || a->filter_path))
        return cli_usage_error("--params: give either --params or --knot-values/--filter, not both");
    if (o->kind == SKIT_TNO_SKI && (a->coeffs_path))
        return cli_usage_error("--coeffs: SKI-TNO has no Toeplitz coefficients (W A W^T is not Toeplitz)");
    if (a->have_algorithm && !(o->kind == SKIT_TNO_SKI && o->causality == SKIT_CAUSAL))
        return cli_usage_error("--causal-ski: only for --op ski --causal");
    if (o->kind != SKIT_TNO_FD && o->fft_length)
        return cli_usage_error("--fft-length: only for --op fd");
    if (o->precision == SKIT_PRECISION_F32 && o->device != SKIT_DEVICE_CPU)
        return cli_usage_error("--precision f32: on the cpu only (--device cpu)");
    if (o->precision == SKIT_PRECISION_F32 && a->verify)
        return cli_usage_error("--precision f32: --verify checks float64 against the dense product; compare a "
                               "float32 run with a --precision f64 one (tests/test_tno.c and test_tno_f32.c "
                               "hold the bounds)");
    if (cli_common_validate(&a->common) != CLI_OK) return CLI_USAGE;
    if (a->common.output && strcmp(a->common.output, "-") != 0 &&
        cli_check_data_path("-o", a->common.output, 1) != CLI_OK)
        return CLI_USAGE;
    if (cli_check_data_path("--save-params", a->save_params, 1) != CLI_OK ||
        cli_check_data_path("--coeffs", a->coeffs_path, 1) != CLI_OK ||
        cli_check_data_path("--stats", a->stats_path, 0) != CLI_OK)
        return CLI_USAGE;
    if (o->device == SKIT_DEVICE_CUDA) {
        if (o->kind == SKIT_TNO_SKI && o->causality == SKIT_CAUSAL)
            return cli_usage_error("--device cuda: causal SKI-TNO runs on the CPU only (use --device cpu, "
                                   "or a bidirectional --op ski)");
        if (skit_device_check(SKIT_DEVICE_CUDA) != SKIT_OK)
            return cli_usage_error("--device cuda: %s", skit_last_error());
    }
    return CLI_OK;
}

static int parse_args(int argc, char **argv, args *a)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, CLI_PLANNER_LONGOPTS,
                                             {"op", required_argument, NULL, OPT_OP},
                                             {"causal", no_argument, NULL, OPT_CAUSAL},
                                             {"x", required_argument, NULL, OPT_X},
                                             {"batch", required_argument, NULL, OPT_BATCH},
                                             {"n", required_argument, NULL, OPT_N},
                                             {"d", required_argument, NULL, OPT_D},
                                             {"rpe-width", required_argument, NULL, OPT_RPE_WIDTH},
                                             {"rpe-layers", required_argument, NULL, OPT_RPE_LAYERS},
                                             {"activation", required_argument, NULL, OPT_ACTIVATION},
                                             {"norm", required_argument, NULL, OPT_NORM},
                                             {"decay", required_argument, NULL, OPT_DECAY},
                                             {"rank", required_argument, NULL, OPT_RANK},
                                             {"taps", required_argument, NULL, OPT_TAPS},
                                             {"knots", required_argument, NULL, OPT_KNOTS},
                                             {"fft-length", required_argument, NULL, OPT_FFT_LENGTH},
                                             {"params", required_argument, NULL, OPT_PARAMS},
                                             {"knot-values", required_argument, NULL, OPT_KNOT_VALUES},
                                             {"filter", required_argument, NULL, OPT_FILTER},
                                             {"save-params", required_argument, NULL, OPT_SAVE_PARAMS},
                                             {"coeffs", required_argument, NULL, OPT_COEFFS},
                                             {"coeff-layout", required_argument, NULL, OPT_COEFF_LAYOUT},
                                             {"verify", no_argument, NULL, OPT_VERIFY},
                                             {"device", required_argument, NULL, OPT_DEVICE},
                                             {"stats", required_argument, NULL, OPT_STATS},
                                             {"causal-ski", required_argument, NULL, OPT_CAUSAL_SKI},
                                             {"precision", required_argument, NULL, OPT_PRECISION},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_common_init(&a->common);
    /* ESTIMATE, not MEASURE: skit tno's output is byte-identical from run
     * to run (tests/cli_determinism.sh), and MEASURE chooses FFTW's
     * algorithms (and the circulant engine its form of the inverse) by
     * timing them, so two runs may round differently. With --planner
     * wisdom-only and --wisdom FILE every choice is fixed by the file;
     * --plan-seconds bounds a first MEASURE at long lengths. */
    a->common.planner_default = SKIT_PLANNER_ESTIMATE;
    a->common.plan_seconds = 2;
    skit_tno_options_default(&a->op, SKIT_TNO_FFT);
    a->batch = 1;
    const cli_options options = {.longopts = longopts, .usage = usage, .common = &a->common,
                                 .apply = apply_option, .ctx = a};
    int rc = cli_parse_options(&options, argc, argv);
    if (rc != CLI_OK) return rc;
    return check_args(a);
}

/* (batch*n) x d column-major (as read) <-> (batch, d, n), values of `size`
 * bytes (double or float) */
static void reorder(const void *src, void *dst, size_t n, size_t d, size_t batch, size_t size, int to_channels)
{
    const size_t rows = n * batch;
    for (size_t b = 0; b < batch; b++)
        for (size_t c = 0; c < d; c++)
            for (size_t i = 0; i < n; i++) {
                size_t read = (b * n + i) + c * rows, channel = (b * d + c) * n + i;
                if (!to_channels) {
                    size_t t = read;
                    read = channel;
                    channel = t;
                }
                memcpy((char *)dst + channel * size, (const char *)src + read * size, size);
            }
}

/* rows x cols column-major to FILE (.npy or TSV with named columns; with
 * sequence and token columns for the n-token rows of y) */
static int write_matrix(const char *path, int argc, char **argv, uint64_t seed, const void *data, int f32,
                        size_t rows, size_t cols, int ndim, const char *name, const char *comment, int with_token,
                        size_t n)
{
    for (size_t k = 0; k < rows * cols; k++)
        if (!isfinite(f32 ? ((const float *)data)[k] : ((const double *)data)[k]))
            return cli_failure("%s: the result has non-finite values (overflow): inputs or parameters too large%s",
                               path ? path : "stdout", f32 ? " for float32 (run with --precision f64)" : "");
    const size_t period = with_token ? n : 0;
    if (f32) return cli_write_matrix_f32(path, argc, argv, 1, seed, data, rows, cols, ndim, name, comment, period);
    return cli_write_matrix(path, argc, argv, 1, seed, data, rows, cols, ndim, name, comment, period);
}

/* --params naming a mixer of a `skit train` checkpoint: the operator's
 * options must be the ones it was trained with. */
static int check_checkpoint_mixer(const args *a, size_t d)
{
    static const char *const ops[] = {"tno", "ski", "fd"}, *const acts[] = {"relu", "silu", "gelu"},
                             *const norms[] = {"none", "layer", "rms"};
    const skit_tno_options *o = &a->op;
    char decay_key[48] = "tno.decay";
    int layer = cli_checkpoint_mixer_layer(a->params_path);
    if (layer >= 0) snprintf(decay_key, sizeof decay_key, "layer%d.decay|tno.decay", layer);
    cli_field_check c[] = {{"tno.op", "--op", ""}, {"tno.causal", "--causal", ""}, {"tno.d", "--d", ""},
                           {"tno.norm", "--norm", ""}, {decay_key, "--decay", ""}, {"tno.rank", "--rank", ""},
                           {"tno.taps", "--taps", ""}, {"tno.knots", "--knots", ""},
                           {"tno.rpe-width", "--rpe-width", ""}, {"tno.rpe-layers", "--rpe-layers", ""},
                           {"tno.activation", "--activation", ""}};
    snprintf(c[0].value, sizeof c[0].value, "%s", ops[o->kind]);
    snprintf(c[1].value, sizeof c[1].value, "%s", o->causality == SKIT_CAUSAL ? "yes" : "no");
    snprintf(c[2].value, sizeof c[2].value, "%zu", d);
    snprintf(c[3].value, sizeof c[3].value, "%s", norms[o->norm]);
    cli_format_exact(o->decay, c[4].value, sizeof c[4].value);
    snprintf(c[5].value, sizeof c[5].value, "%zu", o->rank);
    snprintf(c[6].value, sizeof c[6].value, "%zu", o->taps);
    snprintf(c[7].value, sizeof c[7].value, "%zu", o->knots);
    snprintf(c[8].value, sizeof c[8].value, "%zu", o->rpe_width);
    snprintf(c[9].value, sizeof c[9].value, "%zu", o->rpe_layers);
    snprintf(c[10].value, sizeof c[10].value, "%s", acts[o->activation]);
    if (o->kind != SKIT_TNO_SKI) memmove(c + 5, c + 8, 3 * sizeof *c); /* the RPE's, not SKI's rank, taps, knots */
    return cli_checkpoint_check_mixer("--params", a->params_path, c, 8);
}

/* Parameters from --params, or --knot-values / --filter (ski). *params is
 * NULL when everything is generated from the seed. */
static int load_params(args *a, size_t d, double **params, size_t *count)
{
    *params = NULL;
    *count = 0;
    skit_tno_options *o = &a->op;
    skit_matrix K = {0}, F = {0}, P = {0};
    int rc = CLI_OK;
    if (a->knots_path) {
        rc = cli_read_matrix("--knot-values", a->knots_path, &K);
        if (rc == CLI_OK && (K.rows != d || K.cols % 2 || K.cols == 0))
            rc = cli_usage_error("--knot-values: shape %zu x %zu: need d x 2K (d = %zu rows, an even number of "
                                 "columns: K values each side of 0)", K.rows, K.cols, d);
        if (rc == CLI_OK) o->knots = K.cols / 2;
    }
    if (rc == CLI_OK && a->filter_path) {
        rc = cli_read_matrix("--filter", a->filter_path, &F);
        if (rc == CLI_OK && (F.rows != d || F.cols % 2 == 0))
            rc = cli_usage_error("--filter: shape %zu x %zu: need d x m (d = %zu rows, an odd number m of taps)",
                                 F.rows, F.cols, d);
        if (rc == CLI_OK) o->taps = F.cols;
    }
    size_t need = 0;
    if (rc == CLI_OK) {
        int status = skit_tno_options_parameter_count(o, d, &need);
        if (status != SKIT_OK) rc = cli_library_error(status);
    }
    if (rc == CLI_OK && a->params_path) rc = check_checkpoint_mixer(a, d);
    if (rc == CLI_OK && a->params_path) {
        rc = cli_read_matrix("--params", a->params_path, &P);
        if (rc == CLI_OK && P.rows * P.cols != need)
            rc = cli_usage_error("--params: has %zu values; this %s operator (d = %zu%s) has %zu parameters",
                                 P.rows * P.cols, skit_tno_kind_name(o->kind), d,
                                 o->kind == SKIT_TNO_SKI ? ", 2K knot values and m taps per channel"
                                                         : ", RPE width/layers as given",
                                 need);
    }
    if (rc == CLI_OK && (a->params_path || a->knots_path || a->filter_path)) {
        double *v = malloc((need ? need : 1) * sizeof *v);
        if (!v) rc = cli_failure("out of memory");
        else if (a->params_path) {
            flatten_c(&P, v);
        } else {
            /* a missing part comes from the seed, as a plan would draw it */
            skit_tno_plan *tmp = NULL;
            skit_tno_options host = *o; /* only its parameters are needed */
            host.device = SKIT_DEVICE_CPU;
            int status =
                skit_tno_plan_create(&tmp, MAX(o->rank, (o->taps + 1) / 2), d, 1, &host, NULL, 0);
            if (status == SKIT_OK) status = skit_tno_plan_get_parameters(tmp, v, need);
            skit_tno_plan_destroy(tmp);
            if (status != SKIT_OK) rc = cli_library_error(status);
            if (rc == CLI_OK && a->knots_path) flatten_c(&K, v);
            if (rc == CLI_OK && a->filter_path) flatten_c(&F, v + d * 2 * o->knots);
        }
        if (rc == CLI_OK) {
            *params = v;
            *count = need;
        } else {
            free(v);
        }
    }
    skit_matrix_free(&K);
    skit_matrix_free(&F);
    skit_matrix_free(&P);
    return rc;
}

/* The operator applied: its plan, input and output (batch, d, n), and
 * what --stats records. */
typedef struct run {
    skit_tno_plan *op;
    size_t n, d, batch, total;
    int f32;         /* xc and yc hold floats (--precision f32) */
    void *xc, *yc;
    double seconds, error, tolerance;
    double *coeffs, *params; /* for --coeffs (per x d) and --save-params */
    size_t per;
} run;

/* n and d from --x (X keeps the array) or --n/--d; then SKI's defaults and
 * checks that depend on n. */
static int read_input(args *a, skit_matrix *X, skit_matrix_f32 *X32, run *r)
{
    skit_tno_options *o = &a->op;
    r->n = a->n;
    r->d = a->d;
    r->batch = a->batch;
    r->f32 = o->precision == SKIT_PRECISION_F32;
    if (a->x_path) {
        if ((r->f32 ? cli_read_matrix_f32("--x", a->x_path, X32) : cli_read_matrix("--x", a->x_path, X)) != CLI_OK)
            return CLI_USAGE;
        const size_t rows = r->f32 ? X32->rows : X->rows, cols = r->f32 ? X32->cols : X->cols;
        if (cols == 0 || rows == 0) return cli_usage_error("--x: empty array (%zu x %zu)", rows, cols);
        if (rows % r->batch)
            return cli_usage_error("--batch: %zu does not divide the %zu rows of --x (need batch*n rows)",
                                   r->batch, rows);
        r->d = cols;
        r->n = rows / r->batch;
    }
    if (o->kind == SKIT_TNO_SKI) {
        if (r->n < 2) return cli_usage_error("--x: n = %zu tokens: SKI-TNO needs n >= 2", r->n);
        if (!a->have_rank) o->rank = MIN(o->rank, r->n);
        if (!a->have_taps && !a->filter_path && o->taps > 2 * r->n - 1) o->taps = (2 * r->n - 1) | 1;
        if (o->rank > r->n)
            return cli_usage_error("--rank: %zu out of range: need 2 <= r <= n (= %zu)", o->rank, r->n);
    }
    r->total = r->n * r->d * r->batch;
    return CLI_OK;
}

/* The operator (parameters loaded or drawn from the seed) and its input,
 * channel-major: from X, or standard normal from the seed. */
static int run_create(args *a, const skit_matrix *X, const skit_matrix_f32 *X32, run *r)
{
    skit_tno_options *o = &a->op;
    o->seed = a->common.seed;
    double *params = NULL;
    size_t count = 0;
    if (load_params(a, r->d, &params, &count) != CLI_OK) return CLI_USAGE;
    /* the operator works on (batch, d, n): a .npy read is column-major
     * (batch*n) x d, i.e. channel-major already for one sequence */
    o->layout = SKIT_TNO_CHANNELS;
    int status = skit_tno_plan_create(&r->op, r->n, r->d, r->batch, o, params, count);
    free(params);
    if (status != SKIT_OK) return cli_library_error(status);
    const size_t size = r->f32 ? sizeof(float) : sizeof(double);
    r->xc = skit_malloc(r->total, size);
    r->yc = skit_malloc(r->total, size);
    if (!r->xc || !r->yc) return cli_failure("out of memory");
    if (a->x_path) {
        reorder(r->f32 ? (const void *)X32->data : X->data, r->xc, r->n, r->d, r->batch, size, 1);
        return CLI_OK;
    }
    /* the same draws in either precision (float32: rounded) */
    double *draws = r->f32 ? skit_malloc(r->total, sizeof(double)) : r->xc;
    if (!draws) return cli_failure("out of memory");
    skit_rng rng;
    skit_rng_seed_stream(&rng, a->common.seed, 77);
    skit_rng_fill_normal(&rng, draws, r->total);
    if (r->f32) {
        for (size_t k = 0; k < r->total; k++) ((float *)r->xc)[k] = (float)draws[k];
        skit_free(draws);
    }
    return CLI_OK;
}

/* --verify: max|y - dense| / max(|T||x|) against the O(n^2) product, and
 * the tolerance it is held to. */
static int run_verify(const args *a, run *r)
{
    double *ref = skit_malloc(r->total, sizeof(double)), *mag = skit_malloc(r->total, sizeof(double));
    int rc = CLI_OK, status;
    if (!ref || !mag) rc = cli_failure("out of memory");
    else if ((status = skit_tno_plan_reference(r->op, r->xc, ref, mag)) != SKIT_OK)
        rc = cli_library_error(status);
    if (rc == CLI_OK) {
        double worst = 0, scale = 0;
        for (size_t k = 0; k < r->total; k++) {
            double e = fabs(((const double *)r->yc)[k] - ref[k]);
            if (!(e <= worst)) worst = e;
            if (mag[k] > scale) scale = mag[k];
        }
        r->error = isnan(worst) ? INFINITY : worst / (scale > 1e-300 ? scale : 1e-300);
        r->tolerance = 1e-12;
        if (a->op.kind == SKIT_TNO_SKI && a->op.causality == SKIT_CAUSAL)
            r->tolerance = MAX(1e-12, 8.0 * (double)r->n * 2.220446049250313e-16);
    }
    skit_free(ref);
    skit_free(mag);
    return rc;
}

/* -o: y as (batch*n) x d with sequence and token columns. */
static int write_output(const args *a, const run *r, const char *description, int argc, char **argv)
{
    const size_t size = r->f32 ? sizeof(float) : sizeof(double);
    void *Y = skit_malloc(r->total, size);
    if (!Y) return cli_failure("out of memory");
    reorder(r->yc, Y, r->n, r->d, r->batch, size, 0);
    char comment[1024];
    snprintf(comment, sizeof comment, "operator: %s; rows: sequence-major tokens (batch*n), columns: channels",
             description);
    int rc = write_matrix(a->common.output, argc, argv, a->common.seed, Y, r->f32, r->n * r->batch, r->d, 2, "y",
                          comment, 1, r->n);
    skit_free(Y);
    return rc;
}

/* What --coeffs and --save-params write, computed before any file is:
 * the Toeplitz coefficients per channel (skit's or the TNN code's layout)
 * and every parameter in skit/tno.h's layout. */
static int run_extras(const args *a, run *r)
{
    int status = SKIT_OK;
    if (a->coeffs_path) {
        r->per = a->coeff_reference ? 2 * r->n : 2 * r->n - 1;
        r->coeffs = skit_malloc(r->per, r->d * sizeof(double));
        if (!r->coeffs) return cli_failure("out of memory");
        status = a->coeff_reference ? skit_tno_plan_coeffs_reference(r->op, r->coeffs)
                                    : skit_tno_plan_coeffs(r->op, r->coeffs);
        if (status != SKIT_OK) return cli_library_error(status);
    }
    if (a->save_params) {
        size_t count = skit_tno_plan_parameter_count(r->op);
        r->params = skit_malloc(count, sizeof(double));
        if (!r->params) return cli_failure("out of memory");
        status = skit_tno_plan_get_parameters(r->op, r->params, count);
        if (status != SKIT_OK) return cli_library_error(status);
    }
    return CLI_OK;
}

/* --coeffs and --save-params, as computed by run_extras. */
static int write_extras(const args *a, const run *r, const char *description, int argc, char **argv)
{
    char comment[1024];
    int rc = CLI_OK;
    if (a->coeffs_path) {
        snprintf(comment, sizeof comment,
                 a->coeff_reference ? "operator: %s; TNN code layout: rows a_0..a_{n-1}, 0 (filler), "
                                      "a_{-(n-1)}..a_{-1}; one column per channel"
                                    : "operator: %s; rows t_{-(n-1)}..t_{n-1} (t_0 in the middle); one column per "
                                      "channel",
                 description);
        rc = write_matrix(a->coeffs_path, argc, argv, a->common.seed, r->coeffs, 0, r->per, r->d, 2, "t", comment,
                          0, r->n);
    }
    if (rc == CLI_OK && a->save_params) {
        snprintf(comment, sizeof comment, "operator: %s; parameters in skit/tno.h's layout", description);
        rc = write_matrix(a->save_params, argc, argv, a->common.seed, r->params, 0,
                          skit_tno_plan_parameter_count(r->op), 1, 1, "param", comment, 0, r->n);
    }
    return rc;
}

/* --stats: one row of what was run, its time and error. */
static int write_stats(const args *a, const run *r, const char *description, int argc, char **argv)
{
    static const char *const names[] = {"operator", "causality", "n", "d", "batch", "parameters",
                                        "plan_bytes", "forward_s", "max_rel_error", "tolerance", "verdict",
                                        NULL};
    const skit_tno_options *o = &a->op;
    cli_table t;
    cli_table_init(&t, names);
    cli_table_comment(&t, "operator: %s; max_rel_error: max|y - dense| / max(|T||x|)", description);
    cli_table_rowf(&t, "%s\t%s\t%zu\t%zu\t%zu\t%zu\t%zu\t%.6g\t%.3g\t%.3g\t%s",
                   skit_tno_kind_name(o->kind),
                   o->causality == SKIT_CAUSAL ? "causal" : "bidirectional", r->n, r->d, r->batch,
                   skit_tno_plan_parameter_count(r->op), skit_tno_plan_bytes(r->op), r->seconds,
                   r->error, r->tolerance,
                   !a->verify                 ? "not-verified"
                   : r->error <= r->tolerance ? "ok"
                                              : "failed");
    int rc = cli_table_save(&t, a->stats_path, argc, argv, a->common.seed, "seconds; bytes");
    cli_table_free(&t);
    return rc;
}

int cmd_tno(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
#ifdef OPENBLAS_VERSION
    /* one thread pool: the RPE's GEMMs are split over the OpenMP threads by
     * the library (lib/tno/tno.c) instead of running on OpenBLAS's own
     * threads, whose spinning would compete with OpenMP's for the cores */
    openblas_set_num_threads(1);
#endif
    cli_apply_threads(&a.common);
    skit_matrix X = {0};
    skit_matrix_f32 X32 = {0};
    run r;
    memset(&r, 0, sizeof r);
    r.seconds = r.error = r.tolerance = NAN;
    rc = read_input(&a, &X, &X32, &r);
    if (rc == CLI_OK && a.verify)
        rc = cli_check_quadratic_work("--verify (the dense reference)", r.n, r.batch * r.d);
    if (rc == CLI_OK) rc = run_create(&a, &X, &X32, &r);
    skit_matrix_free(&X);
    skit_matrix_f32_free(&X32);
    if (rc == CLI_OK) {
        double t0 = skit_clock_seconds();
        int status = r.f32 ? skit_tno_plan_forward_f32(r.op, r.xc, r.yc) : skit_tno_plan_forward(r.op, r.xc, r.yc);
        r.seconds = skit_clock_seconds() - t0;
        if (status != SKIT_OK) rc = cli_library_error(status);
    }
    if (rc == CLI_OK && a.verify) {
        cli_progress_start(&a.common);
        /* named, not costed: the library may still refuse the dense matrix for
         * its memory, and a refusal is one line */
        cli_progress("--verify: the dense O(n^2) product, n = %zu", r.n);
        rc = run_verify(&a, &r);
        cli_progress_done();
    }
    if (rc == CLI_OK) rc = run_extras(&a, &r);
    /* argv[0] is already "skit tno" (tools/skit.c): the command as typed */
    char description[512];
    if (r.op) skit_tno_plan_describe(r.op, description, sizeof description);
    if (rc == CLI_OK) rc = write_output(&a, &r, description, argc, argv);
    if (rc == CLI_OK) rc = write_extras(&a, &r, description, argc, argv);
    if (rc == CLI_OK && a.stats_path) rc = write_stats(&a, &r, description, argc, argv);
    if (rc == CLI_OK && a.verify && !a.common.quiet)
        fprintf(stderr, "%s: verify: max|y - dense| / max(|T||x|) = %.3g (tolerance %.3g): %s\n", cli_context(),
                r.error, r.tolerance, r.error <= r.tolerance ? "ok" : "FAILED");
    if (rc == CLI_OK && a.verify && !(r.error <= r.tolerance))
        rc = cli_failure("verify: error %.3g above the tolerance %.3g", r.error, r.tolerance);
    skit_free(r.xc);
    skit_free(r.yc);
    skit_free(r.coeffs);
    skit_free(r.params);
    skit_tno_plan_destroy(r.op);
    return rc;
}
