/* cmd_hilbert.c — `skit hilbert`: the discrete Hilbert transform, causal
 * kernels, and the agreement of its methods vs size. Thin: parse and
 * validate everything, call lib/freq, write one TSV (and a figure with
 * --plot). Conventions are in skit/freq.h and are repeated in every output
 * header. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

static const char *const activation_names[] = {"relu", "silu", "gelu", NULL};

static const char *hilbert_usage =
    "usage: skit hilbert <transform|causal|sweep> [options]\n"
    "Discrete Hilbert transform of one period of a sampled spectrum\n"
    "x[m] = k(w_m), w_m = 2 pi m / n, m = 0..n-1, by the FFT (multiplier -i sign(q)\n"
    "on DFT bin q; exact) and by Definition 1 of ski-to-go-faster (convolution with\n"
    "h[l] = 2/(pi l), l odd, over the periodic extension, truncated at |l| <= L).\n"
    "Sign: H{cos w} = sin w. Causal spectrum: x - i H{x} (the paper's k_causal).\n\n"
    "  transform   columns m, omega, x, H_fft, H_definition (and H_exact when known)\n"
    "  causal      causal impulse response by both methods against lag\n"
    "              (-(n/2-1)..n/2), with the causality residual (relative energy at\n"
    "              negative lags) in the header\n"
    "  sweep       method agreement and causality residual against n and L\n\n"
    "options:\n"
    "  --spectrum S      poisson[:a] (default poisson:0.9; (1-a^2)/(1-2a cos w+a^2),\n"
    "                    impulse response a^|t|), cos[:q] (cos(q w)), or\n"
    "                    mlp[:relu|silu|gelu] (a random MLP of |w|: the FD-TNO\n"
    "                    construction; width 64, 3 hidden layers, --seed)\n"
    "  --input FILE      one period of n real samples instead (.npy 1-D or a TSV\n"
    "                    column); transform and causal only\n"
    "  -n N              samples per period of a generated spectrum (default 256,\n"
    "                    2 <= N <= 2^20; definition is O(N^2): N <= 2^16 for it)\n"
    "  --lag-window L    truncation of the definition (default N/2: one period)\n"
    "  --sizes LIST      sweep: sizes (default 2^4..2^12)\n"
    "  --periods LIST    sweep: lag windows L = P*n/2 for each P (default 1,8,64)\n"
    CLI_COMMON_HELP
    "  -h, --help        this message\n\n"
    "examples:\n"
    "  skit hilbert transform --spectrum cos:3 -n 64\n"
    "  skit hilbert causal --spectrum mlp:gelu -n 512 --plot causal.png\n"
    "  skit hilbert sweep --sizes 2^4..2^12 -o sweep.tsv --plot sweep.png\n";

typedef enum { SPEC_POISSON, SPEC_COS, SPEC_MLP, SPEC_FILE } spectrum_kind;

typedef struct hilbert_options {
    cli_common common;
    int mode; /* 0 transform, 1 causal, 2 sweep */
    spectrum_kind kind;
    double a;
    size_t q;
    int activation;
    const char *input;
    size_t n;
    size_t lag_window;
    size_t *sizes, nsizes;
    double *periods;
    size_t nperiods;
    skit_matrix file;
    const char *sizes_text, *periods_text; /* sweep's lists, parsed once the mode is known */
    int spectrum_given;
} hilbert_options;

static int parse_spectrum(hilbert_options *o, const char *text)
{
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    const char *arg = colon ? colon + 1 : NULL;
    if (len == 7 && !strncmp(text, "poisson", 7)) {
        o->kind = SPEC_POISSON;
        if (arg) return cli_parse_double("--spectrum poisson:a", arg, 0, 1, 1, 1, &o->a);
        return CLI_OK;
    }
    if (len == 3 && !strncmp(text, "cos", 3)) {
        o->kind = SPEC_COS;
        if (arg) return cli_parse_size("--spectrum cos:q", arg, 0, (size_t)1 << 19, &o->q);
        return CLI_OK;
    }
    if (len == 3 && !strncmp(text, "mlp", 3)) {
        o->kind = SPEC_MLP;
        if (arg) return cli_parse_choice("--spectrum mlp:activation", arg, activation_names, &o->activation);
        return CLI_OK;
    }
    return cli_usage_error("--spectrum: unknown spectrum '%s': need poisson[:a], cos[:q] or mlp[:activation]",
                           text);
}

/* One period of the generated spectrum at n samples. */
static int make_spectrum(const hilbert_options *o, size_t n, double *x)
{
    if (o->kind == SPEC_FILE) {
        memcpy(x, o->file.data, n * sizeof(double));
        return SKIT_OK;
    }
    if (o->kind == SPEC_MLP) {
        skit_mlp *mlp;
        int st = skit_mlp_create(&mlp, 1, 64, 3, 1, (skit_activation)o->activation, SKIT_NORM_NONE,
                                 o->common.seed);
        if (st != SKIT_OK) return st;
        double *w = malloc(n * sizeof(double));
        if (!w) {
            skit_mlp_destroy(mlp);
            return SKIT_ENOMEM;
        }
        /* |w| on [-π, π): the even extension the FD-TNO code uses */
        for (size_t m = 0; m < n; m++) {
            double om = 2 * M_PI * (double)m / (double)n;
            w[m] = om > M_PI ? 2 * M_PI - om : om;
        }
        st = skit_mlp_eval(mlp, n, w, x, NULL);
        free(w);
        skit_mlp_destroy(mlp);
        return st;
    }
    for (size_t m = 0; m < n; m++) {
        double w = 2 * M_PI * (double)m / (double)n;
        if (o->kind == SPEC_POISSON) x[m] = (1 - o->a * o->a) / (1 - 2 * o->a * cos(w) + o->a * o->a);
        else x[m] = cos(2 * M_PI * (double)((o->q * m) % n) / (double)n);
    }
    return SKIT_OK;
}

static int exact_hilbert(const hilbert_options *o, size_t n, double *y)
{
    if (o->kind != SPEC_POISSON && o->kind != SPEC_COS) return 0;
    for (size_t m = 0; m < n; m++) {
        double w = 2 * M_PI * (double)m / (double)n;
        if (o->kind == SPEC_POISSON) y[m] = 2 * o->a * sin(w) / (1 - 2 * o->a * cos(w) + o->a * o->a);
        else y[m] = (2 * o->q == n || o->q == 0) ? 0.0 : sin(2 * M_PI * (double)((o->q * m) % n) / (double)n);
    }
    return 1;
}

static const char *spectrum_description(const hilbert_options *o, char *buf, size_t size)
{
    switch (o->kind) {
    case SPEC_POISSON: snprintf(buf, size, "poisson a=%g: (1-a^2)/(1-2a cos w+a^2)", o->a); break;
    case SPEC_COS: snprintf(buf, size, "cos(q w), q=%zu", o->q); break;
    case SPEC_MLP:
        snprintf(buf, size, "random MLP(|w|) (%s, width 64, 3 hidden layers, no norm, seed %llu; the FD-TNO "
                            "half-circle construction)",
                 activation_names[o->activation], (unsigned long long)o->common.seed);
        break;
    case SPEC_FILE: snprintf(buf, size, "file %s", o->input); break;
    }
    return buf;
}

static void hilbert_conventions(cli_table *t, const hilbert_options *o, size_t n, size_t L)
{
    char desc[256];
    cli_table_comment(t, "spectrum: %s; n = %zu samples of one period at w_m = 2 pi m/n", spectrum_description(o, desc, sizeof desc), n);
    cli_table_comment(t, "conventions: H{cos w} = sin w (DFT bin q times -i sign(q), 0 at DC and Nyquist); "
                     "causal spectrum x - i H{x}; lag t > n/2 is the negative lag t - n");
    cli_table_comment(t, "definition: sum over odd |l| <= L = %zu of 2/(pi l) x[m-l] on the periodic extension "
                     "(L = n/2 is one period)", L);
}

static double seconds_since(double t0) { return skit_clock_seconds() - t0; }

/* max |hd - hf| / max |hf| (max |hd - hf| when hf is 0), halved inside:
 * the difference of two values near DBL_MAX does not overflow. */
static double relative_gap(size_t n, const double *hd, const double *hf)
{
    double gap = 0, top = 0;
    for (size_t m = 0; m < n; m++) {
        gap = fmax(gap, fabs(0.5 * hd[m] - 0.5 * hf[m]));
        top = fmax(top, fabs(0.5 * hf[m]));
    }
    return top > 0 ? gap / top : 2 * gap;
}

/* A library status: a result beyond the double range is a failure of the
 * computation (exit 1), the rest as cli_library_error. */
static int hilbert_error(int status)
{
    if (status == SKIT_EOVERFLOW) return cli_failure("%s", skit_last_error());
    return cli_library_error(status);
}

static int hilbert_transform_mode(hilbert_options *o, int argc, char **argv)
{
    size_t n = o->n, L = o->lag_window ? o->lag_window : n / 2;
    double *x = malloc(n * sizeof(double)), *hf = malloc(n * sizeof(double));
    double *hd = malloc(n * sizeof(double)), *he = malloc(n * sizeof(double));
    int rc = CLI_OK, st, has_exact = 0;
    cli_table t = {0};
    static const char *const cols_exact[] = {"m", "omega", "x", "H_fft", "H_definition", "H_exact", NULL};
    static const char *const cols[] = {"m", "omega", "x", "H_fft", "H_definition", NULL};
    if (!x || !hf || !hd || !he) {
        rc = cli_failure("out of memory");
        goto done;
    }
    if ((st = make_spectrum(o, n, x)) != SKIT_OK ||
        (st = skit_hilbert_transform(n, x, hf, SKIT_HILBERT_FFT, 0)) != SKIT_OK ||
        (st = skit_hilbert_transform(n, x, hd, SKIT_HILBERT_DEFINITION, L)) != SKIT_OK) {
        rc = hilbert_error(st);
        goto done;
    }
    has_exact = exact_hilbert(o, n, he);
    cli_table_init(&t, has_exact ? cols_exact : cols);
    hilbert_conventions(&t, o, n, L);
    double emax = 0;
    for (size_t m = 0; m < n; m++) {
        if (has_exact) emax = fmax(emax, fabs(hf[m] - he[m]));
        double row[6] = {(double)m, 2 * M_PI * (double)m / (double)n, x[m], hf[m], hd[m], has_exact ? he[m] : 0};
        cli_table_row_numbers(&t, row, has_exact ? 6 : 5);
    }
    cli_table_comment(&t, "max |H_definition - H_fft| / max |H_fft| = %.3g", relative_gap(n, hd, hf));
    if (has_exact) cli_table_comment(&t, "max |H_fft - H_exact| = %.3g (aliasing of the sampled spectrum and rounding)", emax);
    rc = cli_table_emit(&t, &o->common, argc, argv, "dimensionless (spectrum values); omega in radians",
              "freq_hilbert_transform", has_exact ? "has_exact=1" : "has_exact=0");
done:
    cli_table_free(&t);
    free(x);
    free(hf);
    free(hd);
    free(he);
    return rc;
}

/* causal impulse response by one method: k (re, im), residual */
static int causal_kernel(size_t n, const double *x, skit_hilbert_method method, size_t L, double *re,
                         double *im, double *kr, double *ki, double *residual)
{
    int st = skit_hilbert_causal_spectrum(n, x, method, L, re, im);
    if (st == SKIT_OK) st = skit_spectrum_impulse(n, re, im, kr, ki);
    if (st == SKIT_OK) st = skit_causality_residual(n, kr, ki, residual);
    return st;
}

static int hilbert_causal_mode(hilbert_options *o, int argc, char **argv)
{
    size_t n = o->n, L = o->lag_window ? o->lag_window : n / 2;
    double *buf = malloc(9 * n * sizeof(double));
    if (!buf) return cli_failure("out of memory");
    double *x = buf, *re = buf + n, *im = buf + 2 * n, *kfr = buf + 3 * n, *kfi = buf + 4 * n;
    double *kdr = buf + 5 * n, *kdi = buf + 6 * n, *ker = buf + 7 * n, *kei = buf + 8 * n;
    double res_fft, res_def;
    int rc = CLI_OK, st;
    cli_table t = {0};
    if ((st = make_spectrum(o, n, x)) != SKIT_OK ||
        (st = causal_kernel(n, x, SKIT_HILBERT_FFT, 0, re, im, kfr, kfi, &res_fft)) != SKIT_OK ||
        (st = causal_kernel(n, x, SKIT_HILBERT_DEFINITION, L, re, im, kdr, kdi, &res_def)) != SKIT_OK ||
        (st = skit_spectrum_impulse(n, x, NULL, ker, kei)) != SKIT_OK) {
        rc = hilbert_error(st);
        goto done;
    }
    static const char *const cols[] = {"lag", "k_even", "k_fft", "k_fft_imag", "k_definition",
                                       "k_definition_imag", NULL};
    cli_table_init(&t, cols);
    hilbert_conventions(&t, o, n, L);
    cli_table_comment(&t, "k_even: impulse response of x itself (inverse DFT); k_fft, k_definition: impulse "
                      "responses of x - i H{x}");
    cli_table_comment(&t, "causality residual (energy at negative lags / total): fft %.3g, definition %.3g", res_fft,
                  res_def);
    for (size_t i = 0; i < n; i++) {
        /* lags -(n-1)/2 .. n/2 in increasing order */
        size_t neg = (n - 1) / 2;
        long lag = (long)i - (long)neg;
        size_t t_idx = lag < 0 ? (size_t)((long)n + lag) : (size_t)lag;
        double row[6] = {(double)lag, ker[t_idx], kfr[t_idx], kfi[t_idx], kdr[t_idx], kdi[t_idx]};
        cli_table_row_numbers(&t, row, 6);
    }
    rc = cli_table_emit(&t, &o->common, argc, argv, "dimensionless (impulse-response values); lag in samples",
              "freq_hilbert_causal", NULL);
done:
    cli_table_free(&t);
    free(buf);
    return rc;
}

static int hilbert_sweep_mode(hilbert_options *o, int argc, char **argv)
{
    static const char *const cols[] = {"n", "periods", "lag_window", "agreement", "residual_fft",
                                       "residual_definition", "seconds_fft", "seconds_definition", NULL};
    cli_table t;
    cli_table_init(&t, cols);
    char desc[256];
    cli_table_comment(&t, "spectrum: %s, sampled at n points of one period", spectrum_description(o, desc, sizeof desc));
    cli_table_comment(&t, "agreement = max |H_definition - H_fft| / max |H_fft|; residual = energy of the causal kernel "
                      "at negative lags / total; definition truncated at L = periods * n/2");
    cli_table_comment(&t, "conventions: H{cos w} = sin w; causal spectrum x - i H{x}; see skit/freq.h");
    cli_progress_start(&o->common);
    int rc = CLI_OK;
    for (size_t i = 0; i < o->nsizes && rc == CLI_OK; i++) {
        size_t n = o->sizes[i];
        double *buf = malloc(7 * n * sizeof(double));
        if (!buf) {
            rc = cli_failure("out of memory");
            break;
        }
        double *x = buf, *re = buf + n, *im = buf + 2 * n, *kr = buf + 3 * n, *ki = buf + 4 * n;
        double *hf = buf + 5 * n, *hd = buf + 6 * n;
        int st = make_spectrum(o, n, x);
        double t0 = skit_clock_seconds(), res_fft = 0;
        if (st == SKIT_OK) st = skit_hilbert_transform(n, x, hf, SKIT_HILBERT_FFT, 0);
        double sec_fft = seconds_since(t0);
        if (st == SKIT_OK) st = causal_kernel(n, x, SKIT_HILBERT_FFT, 0, re, im, kr, ki, &res_fft);
        for (size_t p = 0; p < o->nperiods && st == SKIT_OK; p++) {
            double Ld = o->periods[p] * (double)n / 2;
            size_t L = Ld < 1 ? 1 : (size_t)Ld;
            cli_progress("n = %zu, L = %zu", n, L);
            t0 = skit_clock_seconds();
            st = skit_hilbert_transform(n, x, hd, SKIT_HILBERT_DEFINITION, L);
            double sec_def = seconds_since(t0), res_def = 0;
            if (st == SKIT_OK) st = causal_kernel(n, x, SKIT_HILBERT_DEFINITION, L, re, im, kr, ki, &res_def);
            if (st != SKIT_OK) break;
            double row[8] = {(double)n, o->periods[p], (double)L, relative_gap(n, hd, hf), res_fft, res_def,
                             sec_fft, sec_def};
            cli_table_row_numbers(&t, row, 8);
        }
        if (st != SKIT_OK) rc = hilbert_error(st);
        free(buf);
    }
    cli_progress_done();
    char vars[512] = "periods='";
    for (size_t p = 0; p < o->nperiods; p++)
        snprintf(vars + strlen(vars), sizeof vars - strlen(vars), "%s%g", p ? " " : "", o->periods[p]);
    snprintf(vars + strlen(vars), sizeof vars - strlen(vars), "'");
    if (rc == CLI_OK)
        rc = cli_table_emit(&t, &o->common, argc, argv,
                  "agreement, residual dimensionless; seconds wall-clock, one-shot calls including FFTW planning",
                  "freq_hilbert_sweep", vars);
    cli_table_free(&t);
    return rc;
}

/* One option of `skit hilbert MODE` (cli_options.apply). */
static int hilbert_option(void *ctx, int opt, const char *arg)
{
    hilbert_options *o = ctx;
    switch (opt) {
    case 's':
        o->spectrum_given = 1;
        return parse_spectrum(o, arg);
    case 'i': o->input = arg; return CLI_OK;
    case 'n': return cli_parse_size("-n", arg, 2, (size_t)1 << 20, &o->n);
    case 'L': return cli_parse_size("--lag-window", arg, 1, (size_t)1 << 32, &o->lag_window);
    case 'S': o->sizes_text = arg; return CLI_OK;
    case 'P': o->periods_text = arg; return CLI_OK;
    }
    return -1;
}

/* The options of `skit hilbert MODE` (argv2[0] is the mode). */
static int hilbert_parse(int argc2, char **argv2, hilbert_options *o)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"spectrum", required_argument, NULL, 's'},
        {"input", required_argument, NULL, 'i'},
        {"lag-window", required_argument, NULL, 'L'},
        {"sizes", required_argument, NULL, 'S'},
        {"periods", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0}};
    const cli_options parser = {.shortopts = CLI_COMMON_SHORTOPTS "n:", .longopts = longopts,
                                .usage = hilbert_usage, .common = &o->common, .apply = hilbert_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc2, argv2);
    if (rc != CLI_OK) return rc;
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    if (o->input && o->spectrum_given) return cli_usage_error("--input and --spectrum: give one of them");
    return CLI_OK;
}

/* sweep: its sizes and lag windows checked, then run. */
static int hilbert_sweep(hilbert_options *o, int argc, char **argv)
{
    if (o->input) return cli_usage_error("--input: sweep generates its spectra (sizes vary); use transform or causal");
    if (cli_parse_size_list("--sizes", o->sizes_text, 4, (size_t)1 << 16, &o->sizes, &o->nsizes) != CLI_OK)
        return CLI_USAGE;
    int rc = cli_parse_double_list("--periods", o->periods_text, 1e-3, 1e6, &o->periods, &o->nperiods);
    for (size_t i = 0; i < o->nsizes && rc == CLI_OK; i++)
        if (o->kind == SPEC_COS && 2 * o->q >= o->sizes[i])
            rc = cli_usage_error("--spectrum cos:q = %zu: need 2q < n for every size (smallest n = %zu)", o->q,
                                 o->sizes[i]);
    if (rc == CLI_OK) {
        cli_apply_threads(&o->common);
        rc = hilbert_sweep_mode(o, argc, argv);
    }
    free(o->sizes);
    free(o->periods);
    return rc;
}

/* transform, causal: --input read (n from it), the sizes checked, then run. */
static int hilbert_single(hilbert_options *o, const char *mode, int argc, char **argv)
{
    if (o->input) {
        int st = strlen(o->input) > 4 && !strcmp(o->input + strlen(o->input) - 4, ".npy")
                     ? skit_npy_read(o->input, &o->file)
                     : skit_tsv_read(o->input, &o->file);
        if (st != SKIT_OK) return cli_usage_error("--input %s: %s", o->input, skit_last_error());
        if (o->file.cols != 1 || o->file.rows < 2)
            return cli_usage_error("--input %s: need one column of n >= 2 samples, got %zu x %zu", o->input,
                                   o->file.rows, o->file.cols);
        o->kind = SPEC_FILE;
        o->n = o->file.rows;
    }
    if (o->n > ((size_t)1 << 16))
        return cli_usage_error("-n = %zu out of range for %s: the definition is O(n^2), need n <= 2^16", o->n,
                               mode);
    if (o->kind == SPEC_COS && (o->q == 0 || 2 * o->q >= o->n))
        return cli_usage_error("--spectrum cos:q = %zu out of range: need 1 <= q < n/2 (n = %zu)", o->q, o->n);
    if (o->lag_window > SKIT_HILBERT_MAX_LAG_WINDOW) return cli_usage_error("--lag-window too large");
    cli_apply_threads(&o->common);
    return o->mode == 0 ? hilbert_transform_mode(o, argc, argv) : hilbert_causal_mode(o, argc, argv);
}

int cmd_hilbert(int argc, char **argv)
{
    cli_set_context("skit hilbert");
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc < 2) return cli_usage_error("missing mode: transform, causal or sweep (see --help)");
        fputs(hilbert_usage, stdout);
        return CLI_OK;
    }
    static const char *const modes[] = {"transform", "causal", "sweep", NULL};
    hilbert_options o;
    memset(&o, 0, sizeof o);
    if (cli_parse_choice("mode", argv[1], modes, &o.mode) != CLI_OK) return CLI_USAGE;
    char ctx[64];
    snprintf(ctx, sizeof ctx, "skit hilbert %s", modes[o.mode]);
    cli_set_context(ctx);
    cli_common_init(&o.common);
    o.kind = SPEC_POISSON;
    o.a = 0.9;
    o.q = 1;
    o.activation = SKIT_ACTIVATION_GELU;
    o.n = 256;
    o.sizes_text = "2^4..2^12";
    o.periods_text = "1,8,64";
    int rc = hilbert_parse(argc - 1, argv + 1, &o);
    if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
    if (o.mode == 2) return hilbert_sweep(&o, argc, argv);
    rc = hilbert_single(&o, modes[o.mode], argc, argv);
    skit_matrix_free(&o.file);
    return rc;
}
