/* bench_ski.c — `skit bench ski`: the SKI action W A W^T x (sparse W, r x r
 * Toeplitz A by FFT) against the FFT Toeplitz matvec of the full n x n
 * matrix, both measured in one run.
 *
 * Timed (setup — interpolation weights, plans, spectra, random data — is
 * outside the timer; median of samples after a warm-up):
 *  - ski:       skit_ski_plan_execute, sparse method, d channels (per-channel A);
 *  - ski_dense: skit_ski_plan_execute, dense W and A with BLAS (only n <= 2^14);
 *  - fft:       skit_toeplitz_plan_execute of the n x n Toeplitz matrices, d channels;
 *  - floor:     y = x / 2 on the same arrays, threads over channels as in the
 *               SKI action: reading x and writing y once, which any SKI
 *               action (and any matvec) has to do. ski/floor says how close
 *               the SKI action is to memory speed, fft/floor how large a
 *               speed-up over the FFT matvec memory traffic allows at all.
 * Targets: the SKI action's log-log slope in n at r = 64 is <= 1.15
 * over 2^12..2^20, and at n = 2^16, d = 64, r = 64 the SKI action is >= 10x
 * faster than the FFT matvec. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "common.h"
#include "cli/cli.h"
#include "cli/table.h"

static const char *usage =
    "usage: skit bench ski [options]\n"
    "Time the SKI action W A W^T x (sparse linear W, r x r Toeplitz A by FFT) for\n"
    "n = 2^12..2^20 at r = 64 (fitted log-log slope), and at n = 2^16, d = 64,\n"
    "r = 64 against the FFT Toeplitz matvec of the same size, in one run.\n\n"
    "options:\n"
    "  --sizes LIST     n for the time-vs-n sweep (default 2^12..2^20; --quick 2^12..2^16)\n"
    "  --r R            inducing points, 2 <= R <= min n (default 64)\n"
    "  --channels D     channels in the sweep (default 1)\n"
    "  --compare-n N    n of the SKI vs FFT comparison (default 65536; 0: skip)\n"
    "  --compare-d D    channels of the comparison (default 64)\n"
    "  --quick          a few seconds: smaller sizes, fewer samples\n" CLI_COMMON_HELP CLI_PLANNER_HELP("measure: the plan is reused")
    "  -h, --help       this message\n\n"
    "Times are seconds per call (all d channels). floor: y = x/2 on the same arrays\n"
    "(read x, write y once, same threads), which any SKI action has to do too.\n"
    "Targets: slope <= 1.15; SKI >= 10x faster than the FFT matvec at the\n"
    "comparison size (reachable at all only where fft/floor >= 10).\n\n"
    "example:\n"
    "  skit bench ski -o ski.tsv --plot ski.png\n";

enum { OPT_SIZES = 0x2100, OPT_R, OPT_CHANNELS, OPT_COMPARE_N, OPT_COMPARE_D, OPT_QUICK };

typedef struct options {
    cli_common common;
    size_t *sizes, nsizes, r, channels, compare_n, compare_d;
    int quick, sizes_given;
} options;

typedef struct ski_ctx {
    const skit_ski_plan *plan;
    const double *x;
    double *y;
    size_t n;
} ski_ctx;

static void run_ski(void *p)
{
    ski_ctx *c = p;
    skit_ski_plan_execute(c->plan, c->x, c->n, c->y, c->n);
}

typedef struct floor_ctx {
    const double *x;
    double *y;
    size_t n, d;
} floor_ctx;

/* The memory floor: every element of x read and of y written once, with the
 * SKI action's split of channels over threads (balanced groups of at most 4,
 * at least one per thread, taken dynamically). */
static void run_floor(void *p)
{
    floor_ctx *c = p;
    size_t n = c->n, d = c->d, groups = (d + 3) / 4;
    size_t threads = (size_t)bench_threads();
    if (groups < threads) groups = d < threads ? d : threads;
#pragma omp parallel for schedule(dynamic) if (d > 1 && n * d > 32768)
    for (size_t q = 0; q < groups; q++) {
        const double *x = c->x + d * q / groups * n;
        double *y = c->y + d * q / groups * n;
        size_t count = (d * (q + 1) / groups - d * q / groups) * n;
#pragma omp simd
        for (size_t i = 0; i < count; i++) y[i] = 0.5 * x[i];
    }
}

typedef struct result {
    double part, n, d, r, ski_s, ski_dense_s, fft_s, fft_over_ski, ski_ns_per_point, floor_s,
        ski_over_floor, fft_over_floor;
} result;
#define RESULT_FIELDS 12
_Static_assert(sizeof(result) == RESULT_FIELDS * sizeof(double), "result must be plain doubles");
static const char *const result_names[] = {"part", "n", "d", "r", "ski_s", "ski_dense_s",
                                           "fft_s", "fft_over_ski", "ski_ns_per_point", "floor_s",
                                           "ski_over_floor", "fft_over_floor", NULL};

/* The FFT matvec of the kernel's full n x n Toeplitz matrix (d channels) on
 * x, timed into out against the SKI action and the floor measured before. */
static int measure_fft(const skit_kernel *k, size_t n, size_t d, const double *x, double *y, double min_s,
                       size_t samples, result *out)
{
    skit_toeplitz_plan *fft = NULL;
    double *big = skit_malloc(d * (2 * n - 1), sizeof *big);
    int st = big ? skit_kernel_toeplitz_coeffs(k, n, 1.0, big) : SKIT_ENOMEM;
    if (st == SKIT_OK) {
        for (size_t c = 1; c < d; c++) memcpy(big + c * (2 * n - 1), big, (2 * n - 1) * sizeof *big);
        st = skit_toeplitz_plan_create(
            &fft, n, n, d,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL, .causality = SKIT_BIDIRECTIONAL},
            big);
    }
    if (st == SKIT_OK) {
        bench_matvec c = {fft, x, y, n};
        bench_timing t;
        bench_measure(bench_run_matvec, &c, min_s, samples, &t);
        out->fft_s = t.median;
        out->fft_over_ski = out->fft_s / out->ski_s;
        out->fft_over_floor = out->fft_s / out->floor_s;
    }
    skit_toeplitz_plan_destroy(fft);
    skit_free(big);
    return st;
}

/* Time the SKI action and the memory floor (and optionally the dense SKI and
 * the FFT matvec) at one size. */
static int measure(size_t n, size_t d, size_t r, int with_dense, int with_fft, int quick,
                   uint64_t seed, result *out)
{
    double min_s = quick ? 0.02 : 0.1;
    size_t samples = quick ? 3 : 7;
    memset(out, 0, sizeof *out);
    out->n = (double)n;
    out->d = (double)d;
    out->r = (double)r;
    out->ski_dense_s = out->fft_s = out->fft_over_ski = out->fft_over_floor = NAN;
    skit_kernel *k = NULL;
    skit_interp_weights *W = NULL;
    skit_ski_plan *plan = NULL, *dense = NULL;
    double *coeffs = NULL, *x = NULL, *y = NULL;
    skit_interp_options io;
    skit_interp_options_default(&io, n);
    int st = skit_kernel_matern52_create(&k, 1.0, (double)n / 16.0);
    if (st == SKIT_OK) st = skit_interp_weights_create(&W, n, NULL, r, &io);
    if (st == SKIT_OK) {
        coeffs = skit_malloc(d * (2 * r - 1), sizeof *coeffs);
        x = skit_malloc(n * d, sizeof *x);
        y = skit_malloc(n * d, sizeof *y);
        if (!coeffs || !x || !y) st = SKIT_ENOMEM;
    }
    if (st == SKIT_OK) st = skit_kernel_toeplitz_coeffs(k, r, W->spacing, coeffs);
    if (st == SKIT_OK) {
        for (size_t c = 1; c < d; c++) memcpy(coeffs + c * (2 * r - 1), coeffs, (2 * r - 1) * sizeof *coeffs);
        skit_rng rng;
        skit_rng_seed(&rng, seed);
        skit_rng_fill_normal(&rng, x, n * d);
        st = skit_ski_plan_create(&plan, W, d, NULL, coeffs);
    }
    if (st == SKIT_OK) {
        ski_ctx c = {plan, x, y, n};
        bench_timing t;
        bench_measure(run_ski, &c, min_s, samples, &t);
        out->ski_s = t.median;
        out->ski_ns_per_point = 1e9 * t.median / ((double)n * (double)d);
        floor_ctx f = {x, y, n, d};
        bench_measure(run_floor, &f, min_s, samples, &t);
        out->floor_s = t.median;
        out->ski_over_floor = out->ski_s / out->floor_s;
    }
    if (st == SKIT_OK && with_dense) {
        skit_ski_options o;
        skit_ski_options_default(&o);
        o.method = SKIT_SKI_DENSE;
        st = skit_ski_plan_create(&dense, W, d, &o, coeffs);
        if (st == SKIT_OK) {
            ski_ctx c = {dense, x, y, n};
            bench_timing t;
            bench_measure(run_ski, &c, min_s, samples, &t);
            out->ski_dense_s = t.median;
        }
    }
    if (st == SKIT_OK && with_fft) st = measure_fft(k, n, d, x, y, min_s, samples, out);
    skit_kernel_destroy(k);
    skit_interp_weights_destroy(W);
    skit_ski_plan_destroy(plan);
    skit_ski_plan_destroy(dense);
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    return st;
}

/* One option (cli_options.apply): -1 for the common ones. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    options *o = ctx;
    switch (opt) {
    case OPT_SIZES:
        free(o->sizes);
        o->sizes_given = 1;
        return cli_parse_size_list("--sizes", arg, 2, (size_t)1 << 26, &o->sizes, &o->nsizes);
    case OPT_R: return cli_parse_size("--r", arg, 2, (size_t)1 << 20, &o->r);
    case OPT_CHANNELS: return cli_parse_size("--channels", arg, 1, 4096, &o->channels);
    case OPT_COMPARE_N: return cli_parse_size("--compare-n", arg, 0, (size_t)1 << 24, &o->compare_n);
    case OPT_COMPARE_D: return cli_parse_size("--compare-d", arg, 1, 4096, &o->compare_d);
    case OPT_QUICK: o->quick = 1; return CLI_OK;
    }
    return -1;
}

static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, CLI_PLANNER_LONGOPTS,
                                             {"sizes", required_argument, NULL, OPT_SIZES},
                                             {"r", required_argument, NULL, OPT_R},
                                             {"channels", required_argument, NULL, OPT_CHANNELS},
                                             {"compare-n", required_argument, NULL, OPT_COMPARE_N},
                                             {"compare-d", required_argument, NULL, OPT_COMPARE_D},
                                             {"quick", no_argument, NULL, OPT_QUICK},
                                             {NULL, 0, NULL, 0}};
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (!o->sizes_given) {
        free(o->sizes);
        o->sizes = NULL;
        if (cli_parse_size_list("--sizes", o->quick ? "2^12..2^16" : "2^12..2^20", 2, (size_t)1 << 26,
                                &o->sizes, &o->nsizes) != CLI_OK)
            return CLI_USAGE;
    }
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] < o->r)
            return cli_usage_error("--r: r = %zu out of range: need 2 <= r <= n (= %zu)", o->r, o->sizes[i]);
    if (o->compare_n > 0 && o->compare_n < o->r)
        return cli_usage_error("--compare-n: n = %zu out of range: need n >= r (= %zu) or 0", o->compare_n, o->r);
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    size_t nmax = o->compare_n;
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] * o->channels > nmax * o->compare_d) nmax = o->sizes[i];
    /* x, y and the FFT plan's spectra: about 6 n d doubles */
    if (skit_memory_check(6 * nmax * (o->compare_d > o->channels ? o->compare_d : o->channels) * sizeof(double),
                          "benchmark arrays") != SKIT_OK)
        return cli_usage_error("--sizes / --compare-n: %s", skit_last_error());
    return CLI_OK;
}

/* The sweep over --sizes (part 0) and the comparison at --compare-n (part
 * 1) into res; *count: the rows. */
static int measure_all(const options *o, result *res, size_t *count)
{
    int status = CLI_OK;
    cli_progress_start(&o->common);
    for (size_t i = 0; i < o->nsizes && status == CLI_OK; i++) {
        cli_progress("sweep n = %zu", o->sizes[i]);
        int st = measure(o->sizes[i], o->channels, o->r, o->sizes[i] <= ((size_t)1 << 14), 1, o->quick,
                         o->common.seed, &res[*count]);
        if (st != SKIT_OK) status = cli_library_error(st);
        res[(*count)++].part = 0;
    }
    if (status == CLI_OK && o->compare_n > 0) {
        cli_progress("comparison n = %zu, d = %zu", o->compare_n, o->compare_d);
        int st = measure(o->compare_n, o->compare_d, o->r, 0, 1, o->quick, o->common.seed, &res[*count]);
        if (st != SKIT_OK) status = cli_library_error(st);
        res[(*count)++].part = 1;
    }
    cli_progress_done();
    return status;
}

/* What the memory floor says about the 10x target, from this run's
 * comparison row. */
static void floor_note_text(const result *cmp, char *note, size_t size)
{
    if (cmp->fft_over_floor < 10)
        snprintf(note, size,
                 "memory floor (read x, write y once): fft/floor = %.2f < 10, so no SKI action that reads x and writes y can be 10x faster than the FFT matvec here; ski/floor = %.2f",
                 cmp->fft_over_floor, cmp->ski_over_floor);
    else
        snprintf(note, size,
                 "memory floor (read x, write y once): fft/floor = %.2f (room for >= 10x), ski/floor = %.2f",
                 cmp->fft_over_floor, cmp->ski_over_floor);
}

/* The table with the targets' verdicts, and their summary on stderr. */
static int emit_results(const options *o, const result *res, size_t count, int argc, char **argv)
{
    double *xs = malloc(o->nsizes * sizeof *xs), *ts = malloc(o->nsizes * sizeof *ts);
    if (!xs || !ts) {
        free(xs);
        free(ts);
        return cli_failure("out of memory");
    }
    for (size_t i = 0; i < o->nsizes; i++) {
        xs[i] = res[i].n;
        ts[i] = res[i].ski_s;
    }
    double slope = o->nsizes >= 2 ? bench_loglog_slope(xs, ts, o->nsizes) : NAN;
    double ratio = o->compare_n > 0 ? res[count - 1].fft_over_ski : NAN;
    free(xs);
    free(ts);
    char floor_note[256] = "";
    if (o->compare_n > 0) floor_note_text(&res[count - 1], floor_note, sizeof floor_note);
    cli_table t;
    cli_table_init(&t, result_names);
    bench_machine_header(&t, &o->common, "float64");
    cli_table_comment(&t, "SKI action W A W^T x: linear W (2 nonzeros per row), inducing points "
                          "uniform on [0, n-1], A = Matern-5/2 Toeplitz (r x r) applied by FFT; "
                          "fft = skit_toeplitz_plan_execute of the n x n matrices");
    cli_table_comment(&t, "part 0: time vs n at r = %zu, d = %zu; part 1: n = %zu, d = %zu, r = %zu", o->r, o->channels, o->compare_n, o->compare_d, o->r);
    cli_table_comment(&t, "target: SKI log-log slope <= 1.15: measured %.3f over n = %zu..%zu (%s)", slope,
                      o->sizes[0], o->sizes[o->nsizes - 1], isfinite(slope) ? (slope <= 1.15 ? "met" : "NOT met") : "n/a");
    cli_table_comment(&t, "target: SKI >= 10x faster than the FFT matvec at n = %zu, d = %zu: measured %.2fx (%s)",
                      o->compare_n, o->compare_d, ratio, isfinite(ratio) ? (ratio >= 10 ? "met" : "NOT met") : "n/a");
    if (floor_note[0]) cli_table_comment(&t, "%s", floor_note);
    for (size_t i = 0; i < count; i++) cli_table_row_numbers(&t, (const double *)&res[i], RESULT_FIELDS);
    if (!o->common.quiet) {
        fprintf(stderr, "skit bench ski: SKI action slope %.3f (target <= 1.15: %s); at n = %zu, d = %zu, r = %zu SKI is %.1fx faster than the FFT matvec (target >= 10: %s)\n",
            slope, isfinite(slope) ? (slope <= 1.15 ? "met" : "NOT met") : "n/a", o->compare_n,
            o->compare_d, o->r, ratio, isfinite(ratio) ? (ratio >= 10 ? "met" : "NOT met") : "n/a");
        if (floor_note[0]) fprintf(stderr, "skit bench ski: %s\n", floor_note);
    }
    int status = cli_table_emit(&t, &o->common, argc, argv, "seconds per call (all d channels); ns per point = 1e9 s / (n d)",
                                "ski_bench", NULL);
    cli_table_free(&t);
    return status;
}

int bench_ski(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.common);
    bench_planner_defaults(&o.common);
    o.r = 64;
    o.channels = 1;
    o.compare_n = 65536;
    o.compare_d = 64;
    int status = parse(argc, argv, &o);
    if (status != CLI_OK) {
        free(o.sizes);
        return status == CLI_HELP ? CLI_OK : status;
    }
    cli_apply_threads(&o.common);
    result *res = calloc(o.nsizes + 1, sizeof *res);
    size_t count = 0;
    status = res ? measure_all(&o, res, &count) : cli_failure("out of memory");
    if (status == CLI_OK) status = emit_results(&o, res, count, argc, argv);
    free(res);
    free(o.sizes);
    return status;
}
