/* cmd_decay.c — `skit decay`: frequency and impulse responses of MLPs,
 * decay fits, Theorem 3 bound curves, Parseval, Proposition 1 (`skit decay
 * extended` is cmd_decay_extended.c). Thin: parse and validate everything,
 * call lib/freq, write one TSV (and a figure with --plot). Conventions are
 * in skit/freq.h and are repeated in every output header. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/checkpoint.h"
#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

/* Widest row: impulse with 64 channels has 1 + 2*64 columns. */
#define MAX_COLUMNS 160

static const char *const activation_names[] = {"relu", "silu", "gelu", NULL};
static const char *const norm_names[] = {"none", "layer", "rms", NULL};
static const char *const construction_names[] = {"half", "full", "periodic", NULL};

/* "A..B" with sizes: the fit range. */
static int parse_range(const char *option, const char *text, size_t *lo, size_t *hi)
{
    const char *dots = strstr(text, "..");
    if (!dots) return cli_usage_error("%s: expected A..B (e.g. 1..512), got '%s'", option, text);
    char a[64];
    size_t len = (size_t)(dots - text);
    if (len == 0 || len >= sizeof a) return cli_usage_error("%s: expected A..B, got '%s'", option, text);
    memcpy(a, text, len);
    a[len] = '\0';
    if (cli_parse_size(option, a, 1, (size_t)1 << 24, lo) != CLI_OK) return CLI_USAGE;
    if (cli_parse_size(option, dots + 2, 2, (size_t)1 << 24, hi) != CLI_OK) return CLI_USAGE;
    if (*lo >= *hi) return cli_usage_error("%s: need A < B, got '%s'", option, text);
    return CLI_OK;
}

static const char *decay_usage =
    "usage: skit decay <summary|response|impulse|bound|prop1|extended> [options]\n"
    "Frequency responses k(w) of randomly initialised MLPs (PyTorch default init,\n"
    "--seed) and the decay of their impulse responses k[n] (ski-to-go-faster\n"
    "Section 4.2, Appendix E). The response is built one of three ways, always\n"
    "named in the output:\n"
    "  half      the FD-TNO code: MLP(w) sampled on [0, pi], real inverse FFT\n"
    "            (= the even extension MLP(|w|); derivative jumps at 0 and pi)\n"
    "  full      MLP(w) sampled on [-pi, pi) (jumps at +-pi unless MLP(pi) = MLP(-pi))\n"
    "  periodic  MLP(cos w, sin w) (2 pi-periodic and as smooth as the MLP)\n"
    "k[n] = (1/N) sum_m k(w_m) e^{i w_m n} from N samples (trapezoid rule).\n\n"
    "  summary   one row per activation x norm x construction x seed x channel:\n"
    "            decay fits over the fit range (exponential rate, polynomial\n"
    "            exponent, class), tails, Parseval (Theorem 4), and for each order\n"
    "            N the Theorem 3 margin min_n bound_N(n)/|k[n]| (>= 1: the bound holds\n"
    "            at every n measured) with ||k^(N)||_1 from Taylor-mode derivatives\n"
    "  response  omega and the response of every channel (one configuration)\n"
    "  impulse   n = 0..lags and k[n] (real part, |k[n]|) of every channel\n"
    "  bound     |k[n]| of one channel against bound_N(n) = ||k^(N)||_1/(2 pi n^N)\n"
    "  prop1     Proposition 1 for ReLU MLPs: breakpoints located and the error of\n"
    "            linear interpolation through them (0 = piecewise linear)\n"
    "  extended  Theorem 2 past double precision: the periodic response's k[n] in\n"
    "            __float128 (own options: skit decay extended --help)\n\n"
    "options (lists are comma-separated; summary and prop1 sweep them, the other\n"
    "modes take one value):\n"
    "  --activation LIST  relu, silu, gelu (summary default: all; else gelu)\n"
    "  --norm LIST        none, layer (LayerNorm), rms (TNN's RMS norm) (default none)\n"
    "  --construction LIST half, full, periodic (summary default: all; else half;\n"
    "                     prop1: half or full)\n"
    "  --replicates R     seeds seed .. seed+R-1 (summary, prop1; default 1)\n"
    "  --width W          hidden width (default 64)\n"
    "  --layers L         hidden layers (Linear(W,W) blocks; default 3)\n"
    "  --channels D       output channels (default 4)\n"
    "  --fft-size N       samples on the circle (default 8192; even, 16..2^22)\n"
    "  --range A..B       fit range in n (default 1..512, at most N/4)\n"
    "  --orders LIST      derivative orders for the bound (default 1,2,3,4,5,6; 0..16;\n"
    "                     0 = Lemma 6, ||k||_inf <= ||k^||_1 / 2 pi, n = 0 included)\n"
    "  --nodes M          midpoint-rule nodes for ||k^(N)||_1 (default 4096)\n"
    "  --floor F          ignore |k[n]| <= F * max|k| (rounding floor; default 1e-12)\n"
    "  --lags K           impulse: rows n = 0..K (default 64)\n"
    "  --points P         response: samples (default 512)\n"
    "  --channel C        bound: channel (default 0)\n"
    "  --params FILE      the MLP's parameters (.npy/TSV; skit/mlp.h layout) instead\n"
    "                     of a seeded init, e.g. a trained causal FD-TNO mixer\n"
    "                     (skit train --save: DIR/layerL.mixer.npy, --channels = its d)\n"
    CLI_COMMON_HELP
    "  -h, --help         this message\n\n"
    "examples:\n"
    "  skit decay summary --construction half,periodic -o decay.tsv\n"
    "  skit decay impulse --activation silu --construction half --lags 64 --plot k.png\n"
    "  skit decay bound --activation silu --construction periodic --plot bound.png\n";

typedef struct decay_options {
    cli_common common;
    int mode; /* 0 summary, 1 response, 2 impulse, 3 bound, 4 prop1 */
    int act[3], norm[3], con[3];
    int act_given, con_given;
    size_t replicates, width, layers, channels, N, lo, hi, nodes, lags, points, channel;
    size_t *orders, norders, max_order;
    double floor;
    skit_matrix params; /* --params: the MLP's parameters instead of seeded ones */
    const char *params_path;
    int range_given;
    const char *orders_text; /* --orders, parsed once --fft-size is known */
} decay_options;

static size_t count_selected(const int *sel)
{
    return (size_t)(sel[0] + sel[1] + sel[2]);
}

static int first_selected(const int *sel)
{
    for (int i = 0; i < 3; i++)
        if (sel[i]) return i;
    return 0;
}

static int make_mlp(const decay_options *o, int act, int norm, int con, uint64_t seed, skit_mlp **mlp)
{
    int status = skit_mlp_create(mlp, con == SKIT_FREQ_PERIODIC ? 2 : 1, o->width, o->layers, o->channels,
                                 (skit_activation)act, (skit_norm)norm, seed);
    if (status == SKIT_OK && o->params.data)
        status = skit_mlp_set_parameters(*mlp, o->params.data, o->params.rows * o->params.cols);
    return status;
}

static void decay_conventions(cli_table *t, const decay_options *o)
{
    cli_table_comment(t, "MLP: Linear(in,%zu), %zu x [norm, activation, Linear(%zu,%zu)], norm, activation, "
                     "Linear(%zu,%zu); PyTorch default init U(+-1/sqrt(fan_in))",
                  o->width, o->layers, o->width, o->width, o->width, o->channels);
    cli_table_comment(t, "constructions: half = FD-TNO code (MLP(w) on [0,pi], real inverse FFT = even extension); "
                     "full = MLP(w) on [-pi,pi); periodic = MLP(cos w, sin w)");
    cli_table_comment(t, "impulse response: k[n] = (1/N) sum_m k(w_m) exp(i w_m n), N = %zu samples (aliasing: "
                     "true k[n] summed over n + jN)", o->N);
}

/* |k[n]| for n = 0..N-1 of channel c */
static void magnitudes(const double *kr, const double *ki, size_t N, size_t c, double *mag, double *peak)
{
    *peak = 0;
    for (size_t t = 0; t < N; t++) {
        mag[t] = hypot(kr[c * N + t], ki[c * N + t]);
        if (mag[t] > *peak) *peak = mag[t];
    }
}

/* The responses of one MLP that the summary rows are computed from. */
typedef struct summary_work {
    double *kr, *ki;   /* impulse responses, d x N */
    double *samples;   /* k(w_m) on the circle, d x N */
    double *dn;        /* ||k^(N)||_1 for N = 0..max_order, (max_order + 1) x d */
    double *energy;    /* (1/2pi) int |k(w)|^2 per channel */
    double *mag;       /* |k[n]| of the channel at hand, N */
} summary_work;

static void summary_columns(cli_table *t, const decay_options *o)
{
    static const char *const fixed[] = {"activation", "norm", "construction", "seed", "channel", "fit_lo",
                                        "fit_hi", "points", "exp_rate", "exp_residual", "poly_exponent",
                                        "poly_residual", "rate_first_half", "rate_second_half", "class",
                                        "tail30", "tail_end", "energy_tail", "parseval_discrete",
                                        "parseval_continuous", NULL};
    cli_table_init(t, fixed);
    for (size_t i = 0; i < o->norders; i++) {
        cli_table_column(t, "dnorm_N%zu", o->orders[i]);
        cli_table_column(t, "bound_margin_N%zu", o->orders[i]);
        cli_table_column(t, "first_violation_N%zu", o->orders[i]);
    }
    decay_conventions(t, o);
    cli_table_comment(t, "fit: upper envelope max_{j>=n}|k[j]| over n = %zu..%zu where above %.3g * max|k|; "
                      "class: polynomial if log-log fits better, super-exponential if the 2nd-half rate >= 1.5 x "
                      "1st-half rate, else exponential", o->lo, o->hi, o->floor);
    cli_table_comment(t, "tail30 = max_{n>=30}|k[n]|/max|k|; tail_end = max over n in [B/2, B]; energy_tail = "
                      "sum_{B<|n|<=N/2}|k[n]|^2 / sum|k|^2; parseval_discrete = "
                      "|sum|k|^2 - (1/N) sum|k(w_m)|^2| / sum|k|^2; parseval_continuous: against (1/2pi) int |k(w)|^2 "
                      "(midpoint rule, 4N nodes)");
    cli_table_comment(t, "bound_margin_N = min over n in [1, B] with |k[n]| above the floor of "
                      "(||k^(N)||_1/(2 pi n^N)) / |k[n]|; first_violation_N = first such n with margin < 1 - 1e-6 "
                      "(0: none); ||k^(N)||_1 = dnorm_N by Taylor mode + midpoint rule (%zu nodes), pointwise "
                      "derivatives", o->nodes);
}

/* Responses, circle samples, derivative norms and energies of one MLP. */
static int summary_responses(const decay_options *o, int a, int nm, int c, uint64_t seed, summary_work *w)
{
    skit_freq_construction con = (skit_freq_construction)c;
    skit_mlp *mlp = NULL;
    int st = make_mlp(o, a, nm, c, seed, &mlp);
    if (st == SKIT_OK) st = skit_freq_impulse(mlp, con, o->N, w->kr, w->ki);
    if (st == SKIT_OK) st = skit_freq_circle_samples(mlp, con, o->N, w->samples);
    if (st == SKIT_OK) st = skit_freq_derivative_norms(mlp, con, o->max_order, o->nodes, w->dn);
    if (st == SKIT_OK) st = skit_freq_energy(mlp, con, 4 * o->N, w->energy);
    skit_mlp_destroy(mlp);
    return st;
}

/* The Theorem 3 cells of one order: ||k^(N)||_1, the smallest margin
 * bound / |k[n]| over n in [1, B] above the floor ([0, B] for N = 0, Lemma
 * 6), the first n below 1 (0: none). */
static void summary_bound_cells(cli_table *t, const decay_options *o, const summary_work *w, size_t ch,
                                size_t order, double floor)
{
    double norm1 = w->dn[order * o->channels + ch], margin = INFINITY;
    size_t first = 0;
    for (size_t n = order == 0 ? 0 : 1; n <= o->hi; n++) {
        if (w->mag[n] <= floor) continue;
        double ratio = skit_decay_bound(norm1, order, n) / w->mag[n];
        if (ratio < margin) margin = ratio;
        if (!first && ratio < 1 - 1e-6) first = n;
    }
    cli_table_cell(t, "%.17g", norm1);
    cli_table_cell(t, "%.17g", margin);
    cli_table_cell(t, "%zu", first);
}

/* summary_row's status for a response beyond double's range (library
 * statuses are 0 and up) */
#define DECAY_OVERFLOW (-1)

/* The row of channel ch: decay fit, tails, Parseval, Theorem 3 margins. */
static int summary_row(cli_table *t, const decay_options *o, int a, int nm, int c, uint64_t seed,
                       size_t ch, summary_work *w)
{
    size_t N = o->N;
    double peak;
    magnitudes(w->kr, w->ki, N, ch, w->mag, &peak);
    const double *mag = w->mag, floor = o->floor * peak;
    skit_decay_fit fit;
    double pd = 0, time_energy = 0, tail30 = 0, tail_end = 0, energy_tail = 0;
    int st = skit_decay_fit_magnitudes(N, mag, o->lo, o->hi, floor, &fit);
    if (st == SKIT_OK) st = skit_parseval_difference(N, w->samples + ch * N, NULL, w->kr + ch * N, w->ki + ch * N, &pd);
    if (st != SKIT_OK) return st;
    for (size_t tt = 0; tt < N; tt++) time_energy += mag[tt] * mag[tt];
    /* finite parameters whose response's energy passes DBL_MAX (or whose
     * norm layer overflowed: a zero response, Parseval 0/0): no row to print */
    if (!isfinite(pd) || !isfinite(time_energy) || !isfinite(w->energy[ch]))
        return DECAY_OVERFLOW;
    for (size_t n = 30; n <= N / 2; n++) tail30 = fmax(tail30, mag[n]);
    for (size_t n = o->hi + 1; n < N - o->hi; n++) energy_tail += mag[n] * mag[n];
    for (size_t n = o->hi / 2; n <= o->hi; n++) tail_end = fmax(tail_end, mag[n]);
    cli_table_cell(t, "%s", activation_names[a]);
    cli_table_cell(t, "%s", norm_names[nm]);
    cli_table_cell(t, "%s", construction_names[c]);
    cli_table_cell(t, "%llu", (unsigned long long)seed);
    cli_table_cell(t, "%zu", ch);
    cli_table_cell(t, "%zu", fit.n_lo);
    cli_table_cell(t, "%zu", fit.n_hi);
    cli_table_cell(t, "%zu", fit.points);
    const double fitted[] = {fit.exp_rate, fit.exp_residual, fit.poly_exponent, fit.poly_residual,
                             fit.rate_first_half, fit.rate_second_half};
    for (size_t i = 0; i < sizeof fitted / sizeof fitted[0]; i++) cli_table_cell(t, "%.17g", fitted[i]);
    cli_table_cell(t, "%s", skit_decay_class_name(skit_decay_classify(&fit)));
    const double tails[] = {peak > 0 ? tail30 / peak : 0, peak > 0 ? tail_end / peak : 0,
                            time_energy > 0 ? energy_tail / time_energy : 0, pd,
                            fabs(time_energy - w->energy[ch]) / fmax(w->energy[ch], DBL_MIN)};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) cli_table_cell(t, "%.17g", tails[i]);
    for (size_t i = 0; i < o->norders; i++) summary_bound_cells(t, o, w, ch, o->orders[i], floor);
    cli_table_end_row(t);
    return SKIT_OK;
}

static int decay_summary_mode(const decay_options *o, int argc, char **argv)
{
    size_t N = o->N, d = o->channels;
    cli_table t;
    summary_columns(&t, o);
    summary_work w = {malloc(N * d * sizeof(double)), malloc(N * d * sizeof(double)),
                      malloc(N * d * sizeof(double)), malloc((o->max_order + 1) * d * sizeof(double)),
                      malloc(d * sizeof(double)), malloc(N * sizeof(double))};
    int rc = CLI_OK;
    if (!w.kr || !w.ki || !w.samples || !w.mag || !w.dn || !w.energy) rc = cli_failure("out of memory");
    cli_progress_start(&o->common);
    for (int a = 0; a < 3 && rc == CLI_OK; a++) {
        if (!o->act[a]) continue;
        for (int nm = 0; nm < 3 && rc == CLI_OK; nm++) {
            if (!o->norm[nm]) continue;
            for (int c = 0; c < 3 && rc == CLI_OK; c++) {
                if (!o->con[c]) continue;
                for (size_t r = 0; r < o->replicates && rc == CLI_OK; r++) {
                    uint64_t seed = o->common.seed + r;
                    cli_progress("%s/%s/%s seed %llu", activation_names[a], norm_names[nm], construction_names[c],
                                 (unsigned long long)seed);
                    int st = summary_responses(o, a, nm, c, seed, &w);
                    for (size_t ch = 0; ch < d && st == SKIT_OK; ch++) st = summary_row(&t, o, a, nm, c, seed, ch, &w);
                    if (st == DECAY_OVERFLOW)
                        rc = cli_failure("%s/%s/%s seed %llu: the frequency response or its energy overflowed "
                                         "double precision: the MLP's parameters are too large",
                                         activation_names[a], norm_names[nm], construction_names[c],
                                         (unsigned long long)seed);
                    else if (st != SKIT_OK) rc = cli_library_error(st);
                }
            }
        }
    }
    cli_progress_done();
    if (rc == CLI_OK)
        rc = cli_table_emit(&t, &o->common, argc, argv,
                            "rates per sample (log-magnitude units), exponents, margins and ratios dimensionless",
                            "freq_summary", NULL);
    cli_table_free(&t);
    free(w.kr);
    free(w.ki);
    free(w.samples);
    free(w.mag);
    free(w.dn);
    free(w.energy);
    return rc;
}

static void single_config_comment(cli_table *t, const decay_options *o, int a, int nm, int c)
{
    cli_table_comment(t, "activation %s, norm %s, construction %s: %s, seed %llu", activation_names[a], norm_names[nm],
                  construction_names[c], skit_freq_construction_name((skit_freq_construction)c),
                  (unsigned long long)o->common.seed);
}

/* response: omega and the response of every channel at o->points samples */
static int response_table(cli_table *t, const decay_options *o, const skit_mlp *mlp, int c)
{
    size_t d = o->channels;
    cli_table_column(t, "omega");
    for (size_t ch = 0; ch < d; ch++) cli_table_column(t, "ch%zu", ch);
    double *om = malloc(o->points * sizeof(double)), *v = malloc(o->points * d * sizeof(double));
    int st = om && v ? skit_freq_response(mlp, (skit_freq_construction)c, o->points, om, v) : SKIT_ENOMEM;
    for (size_t j = 0; j < o->points && st == SKIT_OK; j++) {
        double row[MAX_COLUMNS];
        row[0] = om[j];
        for (size_t ch = 0; ch < d; ch++) row[1 + ch] = v[j * d + ch];
        cli_table_row_numbers(t, row, 1 + d);
    }
    free(om);
    free(v);
    return st;
}

/* impulse: n = 0..lags, the real part and magnitude of every channel's k[n] */
static int impulse_table(cli_table *t, const decay_options *o, const skit_mlp *mlp, int c)
{
    size_t d = o->channels, N = o->N;
    cli_table_column(t, "n");
    for (size_t ch = 0; ch < d; ch++) cli_table_column(t, "re%zu", ch);
    for (size_t ch = 0; ch < d; ch++) cli_table_column(t, "abs%zu", ch);
    double *kr = malloc(N * d * sizeof(double)), *ki = malloc(N * d * sizeof(double));
    int st = kr && ki ? skit_freq_impulse(mlp, (skit_freq_construction)c, N, kr, ki) : SKIT_ENOMEM;
    for (size_t n = 0; n <= o->lags && st == SKIT_OK; n++) {
        double row[MAX_COLUMNS];
        row[0] = (double)n;
        for (size_t ch = 0; ch < d; ch++) {
            row[1 + ch] = kr[ch * N + n];
            row[1 + d + ch] = hypot(kr[ch * N + n], ki[ch * N + n]);
        }
        cli_table_row_numbers(t, row, 1 + 2 * d);
    }
    free(kr);
    free(ki);
    return st;
}

/* bound: |k[n]| of one channel against bound_N(n) for every order; the
 * figure's variables into vars */
static int bound_table(cli_table *t, const decay_options *o, const skit_mlp *mlp, int c, char *vars,
                       size_t size)
{
    size_t d = o->channels, N = o->N, no = o->norders, ch = o->channel;
    cli_table_column(t, "n");
    cli_table_column(t, "abs_k");
    for (size_t i = 0; i < no; i++) cli_table_column(t, "bound_N%zu", o->orders[i]);
    double *kr = malloc(N * d * sizeof(double)), *ki = malloc(N * d * sizeof(double));
    double *dn = malloc((o->max_order + 1) * d * sizeof(double)), *mag = malloc(N * sizeof(double));
    int st = kr && ki && dn && mag ? skit_freq_impulse(mlp, (skit_freq_construction)c, N, kr, ki) : SKIT_ENOMEM;
    if (st == SKIT_OK) st = skit_freq_derivative_norms(mlp, (skit_freq_construction)c, o->max_order, o->nodes, dn);
    if (st == SKIT_OK) {
        double peak;
        magnitudes(kr, ki, N, ch, mag, &peak);
        for (size_t i = 0; i < no; i++)
            cli_table_comment(t, "||k^(%zu)||_1 = %.10g (channel %zu; Taylor mode, midpoint rule, %zu nodes)",
                              o->orders[i], dn[o->orders[i] * d + ch], ch, o->nodes);
        cli_table_comment(t, "floor: |k[n]| <= %.3g is rounding noise", o->floor * peak);
        for (size_t n = 1; n <= o->hi; n++) {
            double row[MAX_COLUMNS];
            row[0] = (double)n;
            row[1] = mag[n];
            for (size_t i = 0; i < no; i++) row[2 + i] = skit_decay_bound(dn[o->orders[i] * d + ch], o->orders[i], n);
            cli_table_row_numbers(t, row, 2 + no);
        }
        snprintf(vars, size, "norders=%zu; floor=%.17g", no, o->floor * peak);
    }
    free(kr);
    free(ki);
    free(dn);
    free(mag);
    return st;
}

static int decay_single_mode(const decay_options *o, int argc, char **argv)
{
    static const char *const scripts[] = {NULL, "freq_response", "freq_impulse", "freq_bound"};
    static const char *const units[] = {NULL, "omega in radians; response dimensionless",
                                        "n in samples; k[n] dimensionless",
                                        "n in samples; |k[n]| and bounds dimensionless"};
    int a = first_selected(o->act), nm = first_selected(o->norm), c = first_selected(o->con);
    skit_mlp *mlp;
    int st = make_mlp(o, a, nm, c, o->common.seed, &mlp);
    if (st != SKIT_OK) return cli_library_error(st);
    cli_table t;
    cli_table_init(&t, NULL);
    char vars[256] = "";
    if (o->mode == 1) st = response_table(&t, o, mlp, c);
    else if (o->mode == 2) st = impulse_table(&t, o, mlp, c);
    else st = bound_table(&t, o, mlp, c, vars, sizeof vars);
    skit_mlp_destroy(mlp);
    decay_conventions(&t, o);
    single_config_comment(&t, o, a, nm, c);
    int rc;
    if (st != SKIT_OK) {
        rc = cli_library_error(st);
    } else {
        if (!vars[0]) snprintf(vars, sizeof vars, "channels=%zu", o->channels);
        rc = cli_table_emit(&t, &o->common, argc, argv, units[o->mode], scripts[o->mode], vars);
    }
    cli_table_free(&t);
    return rc;
}

static int decay_prop1_mode(const decay_options *o, int argc, char **argv)
{
    static const char *const cols[] = {"norm", "construction", "seed", "interval_lo", "interval_hi", "breakpoints",
                                       "error_through_breakpoints", "error_uniform_knots", NULL};
    size_t cap = 1 << 16;
    double *breaks = malloc(cap * sizeof(double));
    if (!breaks) return cli_failure("out of memory");
    cli_table t;
    cli_table_init(&t, cols);
    cli_table_comment(&t, "Proposition 1: a ReLU MLP R -> R^d (with layer norm, the paper says) is piecewise linear");
    cli_table_comment(&t, "breakpoints: sign changes of any activation input, scanned on %zu steps and bisected to "
                      "1e-14 of the interval; errors: max |MLP - linear interpolant| / max |MLP| at 5 interior points "
                      "per piece; uniform knots: the same number of knots equally spaced", o->points * 4);
    cli_table_comment(&t, "MLP: width %zu, %zu hidden layers, %zu outputs, PyTorch default init", o->width, o->layers,
                  o->channels);
    int rc = CLI_OK;
    for (int nm = 0; nm < 3 && rc == CLI_OK; nm++) {
        if (!o->norm[nm]) continue;
        for (int c = 0; c < 2 && rc == CLI_OK; c++) {
            if (!o->con[c]) continue;
            double lo = c == SKIT_FREQ_HALF_CIRCLE ? 0 : -M_PI, hi = M_PI;
            for (size_t r = 0; r < o->replicates && rc == CLI_OK; r++) {
                uint64_t seed = o->common.seed + r;
                skit_mlp *mlp;
                size_t count = 0;
                double e_b = 0, e_u = 0;
                int st = make_mlp(o, SKIT_ACTIVATION_RELU, nm, c, seed, &mlp);
                if (st == SKIT_OK) st = skit_relu_breakpoints(mlp, lo, hi, o->points * 4, breaks, cap, &count);
                if (st == SKIT_OK) st = skit_pwl_interpolation_error(mlp, lo, hi, breaks, count, 5, &e_b);
                if (st == SKIT_OK) {
                    for (size_t i = 0; i < count; i++) breaks[i] = lo + (hi - lo) * (double)(i + 1) / (double)(count + 1);
                    st = skit_pwl_interpolation_error(mlp, lo, hi, breaks, count, 5, &e_u);
                }
                skit_mlp_destroy(mlp);
                if (st != SKIT_OK) {
                    rc = cli_library_error(st);
                    break;
                }
                cli_table_rowf(&t, "%s\t%s\t%llu\t%.17g\t%.17g\t%zu\t%.17g\t%.17g", norm_names[nm],
                               construction_names[c], (unsigned long long)seed, lo, hi, count, e_b, e_u);
            }
        }
    }
    free(breaks);
    if (rc == CLI_OK) rc = cli_table_emit(&t, &o->common, argc, argv, "errors relative to max |MLP|", "freq_prop1", NULL);
    cli_table_free(&t);
    return rc;
}

/* The choices of the MLPs: lists of activations, norms, constructions. */
static int decay_choice_option(decay_options *o, int opt, const char *arg)
{
    switch (opt) {
    case 'a':
        memset(o->act, 0, sizeof o->act);
        o->act_given = 1;
        return cli_parse_choice_list("--activation", arg, activation_names, o->act);
    case 'm':
        memset(o->norm, 0, sizeof o->norm);
        return cli_parse_choice_list("--norm", arg, norm_names, o->norm);
    case 'c':
        memset(o->con, 0, sizeof o->con);
        o->con_given = 1;
        return cli_parse_choice_list("--construction", arg, construction_names, o->con);
    }
    return -1;
}

/* One option of `skit decay MODE` (cli_options.apply). */
static int decay_option(void *ctx, int opt, const char *arg)
{
    decay_options *o = ctx;
    int rc = decay_choice_option(o, opt, arg);
    if (rc != -1) return rc;
    switch (opt) {
    case 'r': return cli_parse_size("--replicates", arg, 1, 1000, &o->replicates);
    case 'w': return cli_parse_size("--width", arg, 1, 4096, &o->width);
    case 'l': return cli_parse_size("--layers", arg, 0, 64, &o->layers);
    case 'd': return cli_parse_size("--channels", arg, 1, 64, &o->channels);
    case 'N': return cli_parse_size("--fft-size", arg, 16, (size_t)1 << 22, &o->N);
    case 'R':
        o->range_given = 1;
        return parse_range("--range", arg, &o->lo, &o->hi);
    case 'O': o->orders_text = arg; return CLI_OK;
    case 'M': return cli_parse_size("--nodes", arg, 16, (size_t)1 << 22, &o->nodes);
    case 'F': return cli_parse_double("--floor", arg, 0, 1, 0, 1, &o->floor);
    case 'K': return cli_parse_size("--lags", arg, 1, (size_t)1 << 20, &o->lags);
    case 'P': return cli_parse_size("--points", arg, 2, (size_t)1 << 20, &o->points);
    case 'C': return cli_parse_size("--channel", arg, 0, 63, &o->channel);
    case 'p':
        skit_matrix_free(&o->params);
        o->params_path = arg;
        return cli_read_matrix("--params", arg, &o->params);
    }
    return -1;
}

/* The options of `skit decay MODE` (argv[0] is the mode). */
static int decay_parse(int argc2, char **argv2, decay_options *o)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"activation", required_argument, NULL, 'a'},
        {"norm", required_argument, NULL, 'm'},
        {"construction", required_argument, NULL, 'c'},
        {"replicates", required_argument, NULL, 'r'},
        {"width", required_argument, NULL, 'w'},
        {"layers", required_argument, NULL, 'l'},
        {"channels", required_argument, NULL, 'd'},
        {"fft-size", required_argument, NULL, 'N'},
        {"range", required_argument, NULL, 'R'},
        {"orders", required_argument, NULL, 'O'},
        {"nodes", required_argument, NULL, 'M'},
        {"floor", required_argument, NULL, 'F'},
        {"lags", required_argument, NULL, 'K'},
        {"points", required_argument, NULL, 'P'},
        {"channel", required_argument, NULL, 'C'},
        {"params", required_argument, NULL, 'p'},
        {NULL, 0, NULL, 0}};
    const cli_options parser = {.longopts = longopts, .usage = decay_usage, .common = &o->common,
                                .apply = decay_option, .ctx = o};
    return cli_parse_options(&parser, argc2, argv2);
}

/* --params naming a mixer of a `skit train` checkpoint: an FD-TNO RPE of
 * this width, depth, channel count, activation and norm. */
static int check_checkpoint_mixer(const decay_options *o)
{
    cli_field_check c[] = {{"tno.op", "--op", "fd"}, {"tno.rpe-width", "--width", ""},
                           {"tno.rpe-layers", "--layers", ""}, {"tno.d", "--channels", ""},
                           {"tno.activation", "--activation", ""}, {"tno.norm", "--norm", ""}};
    snprintf(c[1].value, sizeof c[1].value, "%zu", o->width);
    snprintf(c[2].value, sizeof c[2].value, "%zu", o->layers);
    snprintf(c[3].value, sizeof c[3].value, "%zu", o->channels);
    snprintf(c[4].value, sizeof c[4].value, "%s", activation_names[first_selected(o->act)]);
    snprintf(c[5].value, sizeof c[5].value, "%s", norm_names[first_selected(o->norm)]);
    return cli_checkpoint_check_mixer("--params", o->params_path, c, sizeof c / sizeof *c);
}

/* --params: one configuration, a scalar input, as many values as the MLP has. */
static int decay_check_params(const decay_options *o)
{
    if (count_selected(o->act) != 1 || count_selected(o->norm) != 1 || count_selected(o->con) != 1 ||
        o->replicates != 1)
        return cli_usage_error("--params: give one --activation, --norm and --construction and no --replicates");
    if (o->con[2]) return cli_usage_error("--params: the periodic construction has a 2-input MLP; use half or full");
    skit_mlp *mlp = NULL;
    int status = skit_mlp_create(&mlp, 1, o->width, o->layers, o->channels, SKIT_ACTIVATION_RELU, SKIT_NORM_NONE, 1);
    if (status) return cli_library_error(status);
    size_t want = skit_mlp_parameter_count(mlp), have = o->params.rows * o->params.cols;
    skit_mlp_destroy(mlp);
    if (have != want)
        return cli_usage_error("--params: has %zu values; an MLP of --width %zu --layers %zu --channels %zu has %zu",
                               have, o->width, o->layers, o->channels, want);
    return check_checkpoint_mixer(o);
}

/* Checks and the mode's defaults, before any work; o->orders is the
 * caller's to free (also on error). */
static int decay_check(decay_options *o, const char *mode)
{
    if (cli_common_validate(&o->common) != CLI_OK ||
        cli_check_seed_range(o->common.seed, o->replicates) != CLI_OK)
        return CLI_USAGE;
    /* one MLP at N frequencies: N width^2 (layers + 1) multiply-adds */
    double mlp_work = (double)o->N * (double)o->width * (double)o->width * (double)(o->layers + 1);
    if (mlp_work > 1099511627776.0)
        return cli_usage_error("--fft-size %zu with --width %zu: one MLP response takes %.3g multiply-adds, "
                               "above the limit 2^40 (about an hour on one core): reduce --fft-size or --width",
                               o->N, o->width, mlp_work);
    if (o->N % 2) return cli_usage_error("--fft-size = %zu out of range: need an even N", o->N);
    if (!o->range_given && o->hi > o->N / 4) o->hi = o->N / 4;
    if (o->hi > o->N / 4)
        return cli_usage_error("--range %zu..%zu out of range: need B <= N/4 (= %zu) to keep aliasing small", o->lo,
                               o->hi, o->N / 4);
    if (o->hi - o->lo < 3) return cli_usage_error("--range %zu..%zu: need at least 4 points", o->lo, o->hi);
    if (o->lags >= o->N) return cli_usage_error("--lags = %zu out of range: need lags < N (= %zu)", o->lags, o->N);
    if (o->channel >= o->channels)
        return cli_usage_error("--channel = %zu out of range: need channel < channels (= %zu)", o->channel, o->channels);
    if (cli_parse_size_list("--orders", o->orders_text, 0, 16, &o->orders, &o->norders) != CLI_OK) return CLI_USAGE;
    if (o->norders > 16) return cli_usage_error("--orders: at most 16 orders");
    for (size_t i = 0; i < o->norders; i++)
        if (o->orders[i] > o->max_order) o->max_order = o->orders[i];
    int single = o->mode >= 1 && o->mode <= 3;
    if (!o->act_given) {
        if (o->mode == 0) o->act[0] = o->act[1] = o->act[2] = 1;
        else if (o->mode == 4) o->act[0] = 1;
        else o->act[2] = 1;
    }
    if (!o->con_given) {
        if (o->mode == 0) o->con[0] = o->con[1] = o->con[2] = 1;
        else if (o->mode == 4) o->con[1] = 1;
        else o->con[0] = 1;
    }
    int rc = CLI_OK;
    if (single && (count_selected(o->act) != 1 || count_selected(o->norm) != 1 || count_selected(o->con) != 1))
        rc = cli_usage_error("%s takes one --activation, one --norm and one --construction", mode);
    else if (o->mode == 4 && (o->act[1] || o->act[2]))
        rc = cli_usage_error("--activation: prop1 is about ReLU MLPs (Proposition 1): use relu");
    else if (o->mode == 4 && o->con[2])
        rc = cli_usage_error("--construction periodic: prop1 needs a scalar-input MLP: use half or full");
    if (rc == CLI_OK && o->params.data) rc = decay_check_params(o);
    return rc;
}

int cmd_decay(int argc, char **argv)
{
    cli_set_context("skit decay");
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc < 2)
            return cli_usage_error("missing mode: summary, response, impulse, bound, prop1 or extended (see --help)");
        fputs(decay_usage, stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "extended")) return cmd_decay_extended(argc - 1, argv + 1);
    static const char *const modes[] = {"summary", "response", "impulse", "bound", "prop1", NULL};
    decay_options o;
    memset(&o, 0, sizeof o);
    if (cli_parse_choice("mode", argv[1], modes, &o.mode) != CLI_OK) return CLI_USAGE;
    char ctx[64];
    snprintf(ctx, sizeof ctx, "skit decay %s", modes[o.mode]);
    cli_set_context(ctx);
    cli_common_init(&o.common);
    o.replicates = 1;
    o.width = 64;
    o.layers = 3;
    o.channels = 4;
    o.N = 8192;
    o.lo = 1;
    o.hi = 512;
    o.nodes = 4096;
    o.lags = 64;
    o.points = 512;
    o.floor = 1e-12;
    o.norm[0] = 1;
    o.orders_text = "1,2,3,4,5,6";
    int rc = decay_parse(argc - 1, argv + 1, &o);
    if (rc != CLI_OK) {
        skit_matrix_free(&o.params);
        return rc == CLI_HELP ? CLI_OK : rc;
    }
    rc = decay_check(&o, modes[o.mode]);
    if (rc != CLI_OK) {
        free(o.orders);
        skit_matrix_free(&o.params);
        return rc;
    }
    cli_apply_threads(&o.common);
    if (o.mode == 0) rc = decay_summary_mode(&o, argc, argv);
    else if (o.mode == 4) rc = decay_prop1_mode(&o, argc, argv);
    else rc = decay_single_mode(&o, argc, argv);
    free(o.orders);
    skit_matrix_free(&o.params);
    return rc;
}
