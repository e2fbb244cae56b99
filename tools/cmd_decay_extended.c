/* cmd_decay_extended.c — `skit decay extended`: ski-to-go-faster Theorem 2
 * decided past double precision. The periodic response k(w) = MLP(cos w,
 * sin w) of a GeLU MLP is entire in w, so Theorem 2 says k[n] decays faster
 * than every exponential: the local rate a(n) = ln(|k[n]| / |k[n+1]|) grows
 * without bound. Double precision loses k[n] below ~1e-16 of the peak; here
 * k[n] comes from skit_freq_impulse_extended (MLP and DFT in __float128)
 * from N and from 2N samples, whose agreement bounds aliasing and rounding. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

static const char *const act_names[] = {"relu", "silu", "gelu", NULL};
static const char *const norm_names[] = {"none", "layer", "rms", NULL};

static const char *usage =
    "usage: skit decay extended [options]\n"
    "ski-to-go-faster Theorem 2 past double precision: the periodic response\n"
    "k(w) = MLP(cos w, sin w) of a randomly initialised MLP (PyTorch default init,\n"
    "--seed) and its impulse response k[n] = (1/N) sum_m k(w_m) e^{i w_m n} with the\n"
    "MLP and the DFT in extended precision (__float128 with libquadmath, else long\n"
    "double), from N and from 2N samples, beside the double-precision FFT (N).\n"
    "Rows n = 0..lags per seed and channel:\n"
    "  abs_k        |k[n]| (extended, 2N samples)\n"
    "  rel_diff     |k_N[n] - k_2N[n]| / |k_2N[n]| (aliasing and rounding)\n"
    "  abs_k_double |k[n]| in double (FFT, N samples)\n"
    "  rate         a(n) = ln(|k[n]| / |k[n+1]|) (extended); rate_double likewise\n"
    "  rate_window  ln(E(n) / E(n+4)) / 4 with the envelope E(n) = max_{j>=n} |k[j]|\n"
    "               over the valid range (a(n) smoothed over single dips)\n"
    "  valid        1 while rel_diff <= --agree at every lag up to n\n"
    "--summary: one row per seed and channel instead:\n"
    "  n_valid      last n of the valid range (N and 2N agree up to it)\n"
    "  n_double     first n where double departs from extended by > 10% (0: none)\n"
    "  rate_early, rate_late  mean a(n) over the first and the last quarter of\n"
    "               1..n_valid-1\n"
    "  slope, slope_se  least squares a(n) = c + slope ln n over 1..n_valid-1\n"
    "               and its standard error (Theorem 2: slope > 0; a response\n"
    "               analytic only in a strip |Im w| < s: a(n) -> s, slope ~ 0)\n"
    "  rise, rise_se  the same trend from the envelope E(n) = max_{j>=n} |k[j]|:\n"
    "               least squares ln E(n) = c - a n - rise (n ln n - n) over\n"
    "               1..n_valid, i.e. rate a + rise ln n (robust to single dips)\n"
    "  k_valid_over_k0  |k[n_valid]| / |k[0]|\n\n"
    "options:\n"
    "  --activation A     relu, silu or gelu (default gelu)\n"
    "  --norm M           none, layer or rms (default none)\n"
    "  --replicates R     seeds seed .. seed+R-1 (default 1)\n"
    "  --width W          hidden width (default 64)\n"
    "  --layers L         hidden layers (default 3)\n"
    "  --channels D       output channels (default 4)\n"
    "  --fft-size N       samples on the circle, even, 16..2^18 (default 512; 2N\n"
    "                     are taken too)\n"
    "  --lags K           rows n = 0..K, K < N/2 (default N/4)\n"
    "  --agree TOL        valid while rel_diff <= TOL (default 1e-8)\n"
    "  --summary          the per seed and channel summary\n" CLI_COMMON_HELP
    "  -h, --help         this message\n\n"
    "examples:\n"
    "  skit decay extended --fft-size 512 --channels 1 -o k.tsv\n"
    "  skit decay extended --summary --replicates 5 -o summary.tsv\n";

typedef struct extended_options {
    cli_common common;
    int act, norm, summary;
    size_t replicates, width, layers, channels, N, lags;
    double agree;
    int lags_given;
} extended_options;

/* One option (cli_options.apply). */
static int extended_option(void *ctx, int opt, const char *arg)
{
    extended_options *o = ctx;
    switch (opt) {
    case 'a': return cli_parse_choice("--activation", arg, act_names, &o->act);
    case 'm': return cli_parse_choice("--norm", arg, norm_names, &o->norm);
    case 'r': return cli_parse_size("--replicates", arg, 1, 1000, &o->replicates);
    case 'w': return cli_parse_size("--width", arg, 1, 1024, &o->width);
    case 'l': return cli_parse_size("--layers", arg, 0, 64, &o->layers);
    case 'd': return cli_parse_size("--channels", arg, 1, 64, &o->channels);
    case 'N': return cli_parse_size("--fft-size", arg, 16, (size_t)1 << 18, &o->N);
    case 'K':
        o->lags_given = 1;
        return cli_parse_size("--lags", arg, 1, (size_t)1 << 17, &o->lags);
    case 'A': return cli_parse_double("--agree", arg, 0, 1, 1, 1, &o->agree);
    case 'S': o->summary = 1; return CLI_OK;
    }
    return -1;
}

static int extended_parse(int argc, char **argv, extended_options *o)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"activation", required_argument, NULL, 'a'},
                                             {"norm", required_argument, NULL, 'm'},
                                             {"replicates", required_argument, NULL, 'r'},
                                             {"width", required_argument, NULL, 'w'},
                                             {"layers", required_argument, NULL, 'l'},
                                             {"channels", required_argument, NULL, 'd'},
                                             {"fft-size", required_argument, NULL, 'N'},
                                             {"lags", required_argument, NULL, 'K'},
                                             {"agree", required_argument, NULL, 'A'},
                                             {"summary", no_argument, NULL, 'S'},
                                             {NULL, 0, NULL, 0}};
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = extended_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (o->N % 2) return cli_usage_error("--fft-size: %zu: need an even N, 16..2^18", o->N);
    if (!o->lags_given) o->lags = o->N / 4;
    if (o->lags >= o->N / 2)
        return cli_usage_error("--lags: %zu: need 1 <= K < N/2 = %zu (k[n] for n >= N/2 aliases k[n - N])",
                               o->lags, o->N / 2);
    if (cli_check_seed_range(o->common.seed, o->replicates) != CLI_OK) return CLI_USAGE;
    return cli_common_validate(&o->common);
}

/* One MLP's impulse responses: extended from 2N and N, double from N. */
typedef struct responses {
    size_t lags, N, d;
    double *x2_re, *x2_im, *x1_re, *x1_im; /* (lags + 1) x d, column-major */
    double *dbl_re, *dbl_im;               /* N x d, column-major */
} responses;

static void responses_free(responses *r)
{
    free(r->x2_re);
    free(r->x2_im);
    free(r->x1_re);
    free(r->x1_im);
    free(r->dbl_re);
    free(r->dbl_im);
}

static int responses_compute(const extended_options *o, uint64_t seed, responses *r)
{
    size_t d = o->channels, K = o->lags + 1;
    memset(r, 0, sizeof *r);
    r->lags = o->lags;
    r->N = o->N;
    r->d = d;
    skit_mlp *mlp;
    int st = skit_mlp_create(&mlp, 2, o->width, o->layers, d, (skit_activation)o->act, (skit_norm)o->norm, seed);
    if (st != SKIT_OK) return st;
    r->x2_re = malloc(K * d * sizeof(double));
    r->x2_im = malloc(K * d * sizeof(double));
    r->x1_re = malloc(K * d * sizeof(double));
    r->x1_im = malloc(K * d * sizeof(double));
    r->dbl_re = malloc(o->N * d * sizeof(double));
    r->dbl_im = malloc(o->N * d * sizeof(double));
    st = r->x2_re && r->x2_im && r->x1_re && r->x1_im && r->dbl_re && r->dbl_im ? SKIT_OK : SKIT_ENOMEM;
    if (st == SKIT_OK) st = skit_freq_impulse_extended(mlp, 2 * o->N, o->lags, r->x2_re, r->x2_im);
    if (st == SKIT_OK) st = skit_freq_impulse_extended(mlp, o->N, o->lags, r->x1_re, r->x1_im);
    if (st == SKIT_OK) st = skit_freq_impulse(mlp, SKIT_FREQ_PERIODIC, o->N, r->dbl_re, r->dbl_im);
    skit_mlp_destroy(mlp);
    return st;
}

/* The per-lag quantities of channel c. */
typedef struct lag_values {
    double abs_k, abs_k_N, rel_diff, abs_k_double, rel_double;
} lag_values;

static lag_values lag_at(const responses *r, size_t c, size_t n)
{
    size_t i = c * (r->lags + 1) + n, j = c * r->N + n;
    lag_values v;
    v.abs_k = hypot(r->x2_re[i], r->x2_im[i]);
    v.abs_k_N = hypot(r->x1_re[i], r->x1_im[i]);
    v.rel_diff = hypot(r->x1_re[i] - r->x2_re[i], r->x1_im[i] - r->x2_im[i]) / v.abs_k;
    v.abs_k_double = hypot(r->dbl_re[j], r->dbl_im[j]);
    v.rel_double = hypot(r->dbl_re[j] - r->x2_re[i], r->dbl_im[j] - r->x2_im[i]) / v.abs_k;
    return v;
}

/* ln(a / b), or NaN when either is 0 */
static double log_ratio(double a, double b)
{
    return a > 0 && b > 0 ? log(a / b) : NAN;
}

/* last n with rel_diff <= agree at every lag 0..n (0 if lag 0 fails too) */
static size_t valid_end(const responses *r, size_t c, double agree)
{
    size_t n = 0;
    while (n + 1 <= r->lags && lag_at(r, c, n + 1).rel_diff <= agree) n++;
    return n;
}

#define RATE_WINDOW 4 /* lags of the smoothed rate */

/* the upper envelope E(n) = max_{n <= j <= nv} |k[j]| for n = 0..nv */
static void envelope_of(const responses *r, size_t c, size_t nv, double *E)
{
    double e = 0;
    for (size_t j = nv + 1; j-- > 0;) {
        e = fmax(e, lag_at(r, c, j).abs_k);
        E[j] = e;
    }
}

static int lag_rows(cli_table *t, const extended_options *o, const responses *r, uint64_t seed)
{
    double *E = malloc((r->lags + 1) * sizeof(double));
    if (!E) return cli_failure("out of memory");
    for (size_t c = 0; c < r->d; c++) {
        size_t nv = valid_end(r, c, o->agree);
        envelope_of(r, c, nv, E);
        for (size_t n = 0; n <= r->lags; n++) {
            lag_values v = lag_at(r, c, n), w = n < r->lags ? lag_at(r, c, n + 1) : v;
            double rate = n < r->lags ? log_ratio(v.abs_k, w.abs_k) : NAN;
            double rate_double = n < r->lags ? log_ratio(v.abs_k_double, w.abs_k_double) : NAN;
            double smooth = n + RATE_WINDOW <= nv ? log_ratio(E[n], E[n + RATE_WINDOW]) / RATE_WINDOW : NAN;
            cli_table_rowf(t, "%llu\t%zu\t%zu\t%.17g\t%.17g\t%.6g\t%.17g\t%.6g\t%.6g\t%.6g\t%.6g\t%d",
                           (unsigned long long)seed, c, n, v.abs_k, v.abs_k_N, v.rel_diff, v.abs_k_double,
                           v.rel_double, rate, smooth, rate_double, n <= nv);
        }
    }
    free(E);
    return CLI_OK;
}

/* least squares y = c0 + slope x over the points; its standard error */
static void fit_line(const double *x, const double *y, size_t m, double *slope, double *se)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0, rss = 0;
    for (size_t i = 0; i < m; i++) {
        mx += x[i] / (double)m;
        my += y[i] / (double)m;
    }
    for (size_t i = 0; i < m; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    *slope = sxx > 0 ? sxy / sxx : NAN;
    for (size_t i = 0; i < m; i++) {
        double e = y[i] - my - *slope * (x[i] - mx);
        rss += e * e;
    }
    *se = m > 2 && sxx > 0 ? sqrt(rss / (double)(m - 2) / sxx) : NAN;
}

static double mean_of(const double *y, size_t m)
{
    double s = 0;
    for (size_t i = 0; i < m; i++) s += y[i];
    return m ? s / (double)m : NAN;
}

/* least squares ln E(n) = c - a n - b (n ln n - n) over the points (n, lnE):
 * the rate -d ln E/dn is then a + b ln n, so b is the rise of the rate per
 * unit of ln n, estimated from the integrated curve (robust to the
 * oscillation of single ratios); *se: b's standard error from the residuals */
static void fit_rise(const double *n, const double *lnE, size_t m, double *b, double *se)
{
    double mu[3] = {0, 0, 0}, S[3][3] = {{0}};
    for (size_t i = 0; i < m; i++) {
        double v[3] = {n[i], n[i] * log(n[i]) - n[i], lnE[i]};
        for (int k = 0; k < 3; k++) mu[k] += v[k] / (double)m;
    }
    for (size_t i = 0; i < m; i++) {
        double v[3] = {n[i] - mu[0], n[i] * log(n[i]) - n[i] - mu[1], lnE[i] - mu[2]};
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) S[j][k] += v[j] * v[k];
    }
    double det = S[0][0] * S[1][1] - S[0][1] * S[0][1];
    if (m < 4 || !(det > 0)) {
        *b = *se = NAN;
        return;
    }
    double c1 = (S[0][0] * S[1][2] - S[0][1] * S[0][2]) / det, c0 = (S[1][1] * S[0][2] - S[0][1] * S[1][2]) / det;
    double rss = S[2][2] - c0 * S[0][2] - c1 * S[1][2];
    *b = -c1;
    *se = sqrt(fmax(rss, 0) / (double)(m - 3) * S[0][0] / det);
}

/* first n >= 1 where double departs from extended by > 10% (0: none) */
static size_t double_departure(const responses *r, size_t c)
{
    for (size_t n = 1; n <= r->lags; n++)
        if (!(lag_at(r, c, n).rel_double <= 0.1)) return n;
    return 0;
}

/* (ln n, a(n)) for n = 1..nv-1 where a(n) is finite; returns the count */
static size_t rate_points(const responses *r, size_t c, size_t nv, double *x, double *y)
{
    size_t m = 0;
    for (size_t n = 1; n < nv; n++) {
        double a = log_ratio(lag_at(r, c, n).abs_k, lag_at(r, c, n + 1).abs_k);
        if (isfinite(a)) {
            x[m] = log((double)n);
            y[m++] = a;
        }
    }
    return m;
}

static int summary_rows(cli_table *t, const extended_options *o, const responses *r, uint64_t seed)
{
    double *x = malloc((r->lags + 1) * sizeof(double)), *y = malloc((r->lags + 1) * sizeof(double));
    if (!x || !y) {
        free(x);
        free(y);
        return cli_failure("out of memory");
    }
    for (size_t c = 0; c < r->d; c++) {
        size_t nv = valid_end(r, c, o->agree), nd = double_departure(r, c), m = rate_points(r, c, nv, x, y);
        double slope, se, rise, rise_se;
        fit_line(x, y, m, &slope, &se);
        size_t q = m / 4;
        double early = q ? mean_of(y, q) : NAN, late = q ? mean_of(y + m - q, q) : NAN;
        envelope_of(r, c, nv, y);
        for (size_t n = 1; n <= nv; n++) {
            x[n - 1] = (double)n;
            y[n - 1] = log(y[n]);
        }
        fit_rise(x, y, nv, &rise, &rise_se);
        cli_table_rowf(t, "%llu\t%zu\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g",
                       (unsigned long long)seed, c, nv, nd, m, early, late, slope, se, rise, rise_se,
                       lag_at(r, c, nv).abs_k / lag_at(r, c, 0).abs_k);
    }
    free(x);
    free(y);
    return CLI_OK;
}

static void extended_columns(cli_table *t, const extended_options *o)
{
    static const char *const lag_names[] = {"seed", "channel", "n", "abs_k", "abs_k_N", "rel_diff",
                                            "abs_k_double", "rel_double", "rate", "rate_window", "rate_double",
                                            "valid", NULL};
    static const char *const sum_names[] = {"seed", "channel", "n_valid", "n_double", "points", "rate_early",
                                            "rate_late", "slope", "slope_se", "rise", "rise_se", "k_valid_over_k0",
                                            NULL};
    cli_table_init(t, o->summary ? sum_names : lag_names);
    cli_table_comment(t, "MLP: Linear(2,%zu), %zu x [%s norm, %s, Linear(%zu,%zu)], %s norm, %s, Linear(%zu,%zu) "
                         "of (cos w, sin w); PyTorch default init",
                      o->width, o->layers, norm_names[o->norm], act_names[o->act], o->width, o->width,
                      norm_names[o->norm], act_names[o->act], o->width, o->channels);
    cli_table_comment(t, "k[n] = (1/N) sum_m k(w_m) exp(i w_m n), w_m = 2 pi m/N; extended precision: unit roundoff "
                         "%.3g (MLP and DFT), N = %zu and 2N = %zu; double: FFT, N = %zu",
                      skit_freq_extended_epsilon(), o->N, 2 * o->N, o->N);
    cli_table_comment(t, "valid range: rel_diff = |k_N - k_2N|/|k_2N| <= %.3g at every lag up to n; rel_double: "
                         "|k_double - k_2N|/|k_2N|; rate a(n) = ln(|k[n]|/|k[n+1]|)",
                      o->agree);
}

static int extended_run(const extended_options *o, int argc, char **argv)
{
    cli_table t;
    extended_columns(&t, o);
    int rc = CLI_OK;
    cli_progress_start(&o->common);
    for (size_t s = 0; rc == CLI_OK && s < o->replicates; s++) {
        uint64_t seed = o->common.seed + s;
        cli_progress("seed %llu", (unsigned long long)seed);
        responses r;
        int st = responses_compute(o, seed, &r);
        if (st != SKIT_OK) rc = cli_library_error(st);
        else if (o->summary) rc = summary_rows(&t, o, &r, seed);
        else rc = lag_rows(&t, o, &r, seed);
        responses_free(&r);
    }
    cli_progress_done();
    if (rc == CLI_OK) rc = cli_table_emit(&t, &o->common, argc, argv, NULL, NULL, NULL);
    cli_table_free(&t);
    return rc;
}

int cmd_decay_extended(int argc, char **argv)
{
    cli_set_context("skit decay extended");
    extended_options o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.common);
    o.act = SKIT_ACTIVATION_GELU;
    o.norm = SKIT_NORM_NONE;
    o.replicates = 1;
    o.width = 64;
    o.layers = 3;
    o.channels = 4;
    o.N = 512;
    o.agree = 1e-8;
    int rc = extended_parse(argc, argv, &o);
    if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
    cli_apply_threads(&o.common);
    return extended_run(&o, argc, argv);
}
