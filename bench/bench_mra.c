/* bench_mra.c — `skit bench mra`: MRA-2 / MRA-2-s against blocked exact
 * attention, all measured in one run:
 *   1. n = 4096, d = 64, 8 blocks per row: speed ratio exact / MRA-2
 *      (target >= 4);
 *   2. time against n = 2^12 .. 2^16 at fixed blocks per row, log-log
 *      slopes (targets: MRA-2 <= 1.2; exact about 2, timed only up to
 *      --exact-max-n because it is quadratic);
 *   3. memory at the largest n: the plan's own accounting, the inputs and the
 *      process's peak resident set (target < 1 GiB at n = 65536).
 * Setup (inputs, plans) stays outside the timer; each time is the median of
 * several samples after a warm-up (bench_measure). */
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
    "usage: skit bench mra [options]\n"
    "MRA-2 and MRA-2-s against blocked exact attention (OpenBLAS GEMM tiles, online\n"
    "softmax), on structured synthetic Q, K, V, in one run:\n"
    "  - n = 4096: exact / MRA-2 time ratio (target >= 4)\n"
    "  - time vs n = 2^12..2^16 at fixed blocks per row, log-log slopes (target:\n"
    "    MRA-2 <= 1.2; exact ~2, timed only up to --exact-max-n: it is quadratic)\n"
    "  - memory at the largest n: plan bytes, inputs, process peak RSS (< 1 GiB)\n\n"
    "options:\n"
    "  --d N               head dimension = value dimension (default 64)\n"
    "  --blocks-per-row K  MRA budget: blocks of 32 refined per block row (default 8)\n"
    "  --max-n N           largest n of the sweep (power of two, default 65536)\n"
    "  --exact-max-n N     largest n at which exact attention is timed (default 16384)\n"
    "  --samples S         timing samples per point (median; default 5)\n"
    "  --quick             n up to 2^14, exact up to 2^13, 3 samples (a smoke test)\n"
    CLI_COMMON_HELP
    "  -h, --help          this message\n\n"
    "example:\n"
    "  skit bench mra -o mra_bench.tsv --plot mra_bench.png\n";

typedef struct bench_ctx {
    const skit_attention_plan *plan;
    const double *q, *k, *v;
    double *y;
    size_t n;
} bench_ctx;

static void run_plan(void *p)
{
    bench_ctx *c = p;
    skit_attention_plan_execute(c->plan, c->q, c->n, c->k, c->n, c->v, c->n, NULL, c->y, c->n,
                                NULL);
}

typedef struct row {
    const char *method;
    size_t n, d, bpr;
    bench_timing t;
    size_t plan_bytes, rss;
} row;

typedef struct options {
    cli_common common;
    size_t d, bpr, max_n, exact_max, samples;
    int quick, max_given, exact_given, samples_given; /* --quick sets the sizes not given */
} options;

/* Time one method at n. The budget of bpr blocks (of the default 32) per
 * row is a per-query budget of bpr * 32 entries, mapped to the plan's
 * parameters by the library as `skit mra --per-row` maps it. */
static int time_method(int method, size_t n, const options *o, const double *q, const double *k,
                       const double *v, double *y, row *out)
{
    size_t d = o->d;
    skit_attention_options mo;
    skit_attention_options_init(&mo, method);
    int st = skit_attention_options_set_budget(&mo, n, (double)(o->bpr * mo.block) / (double)n, NULL);
    skit_attention_plan *plan = NULL;
    if (st == SKIT_OK) st = skit_attention_plan_create(&plan, n, d, d, &mo);
    if (st != SKIT_OK) return cli_library_error(st);
    bench_ctx c = {plan, q, k, v, y, n};
    st = skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL); /* check once */
    if (st != SKIT_OK) {
        skit_attention_plan_destroy(plan);
        return cli_library_error(st);
    }
    bench_measure(run_plan, &c, 0.2, o->samples, &out->t);
    out->method = skit_attention_method_name(method);
    out->n = n;
    out->d = d;
    out->bpr = method == SKIT_ATTENTION_EXACT ? 0 : mo.blocks_per_row[0];
    out->plan_bytes = skit_attention_plan_bytes(plan);
    out->rss = skit_memory_peak_rss();
    skit_attention_plan_destroy(plan);
    return CLI_OK;
}

/* Log-log slope of the median times (fastest != 0: of the fastest samples,
 * which other programs on the machine disturb least). */
static double slope_of(const row *rows, size_t count, const char *method, size_t from, size_t to,
                       int fastest, size_t *points)
{
    double xs[32], ts[32];
    size_t m = 0;
    for (size_t i = 0; i < count && m < 32; i++)
        if (!strcmp(rows[i].method, method) && rows[i].n >= from && rows[i].n <= to) {
            xs[m] = (double)rows[i].n;
            ts[m++] = fastest ? rows[i].t.min : rows[i].t.median;
        }
    *points = m;
    return m >= 2 ? bench_loglog_slope(xs, ts, m) : NAN;
}

static double time_at(const row *rows, size_t count, const char *method, size_t n, int fastest)
{
    for (size_t i = 0; i < count; i++)
        if (!strcmp(rows[i].method, method) && rows[i].n == n)
            return fastest ? rows[i].t.min : rows[i].t.median;
    return NAN;
}

enum { OPT_D = 0x2000, OPT_BPR, OPT_MAXN, OPT_EXACT, OPT_SAMPLES, OPT_QUICK };

/* One option (cli_options.apply): -1 for the common ones. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    options *o = ctx;
    switch (opt) {
    case OPT_D: return cli_parse_size("--d", arg, 1, 1024, &o->d);
    case OPT_BPR: return cli_parse_size("--blocks-per-row", arg, 1, 128, &o->bpr);
    case OPT_MAXN:
        o->max_given = 1;
        if (cli_parse_size("--max-n", arg, 4096, (size_t)1 << 20, &o->max_n) != CLI_OK) return CLI_USAGE;
        if (o->max_n & (o->max_n - 1)) return cli_usage_error("--max-n: expected a power of two, got %zu", o->max_n);
        return CLI_OK;
    case OPT_EXACT:
        o->exact_given = 1;
        return cli_parse_size("--exact-max-n", arg, 4096, (size_t)1 << 20, &o->exact_max);
    case OPT_SAMPLES:
        o->samples_given = 1;
        return cli_parse_size("--samples", arg, 1, 64, &o->samples);
    case OPT_QUICK: o->quick = 1; return CLI_OK;
    }
    return -1;
}

/* Options, validated before any work; CLI_HELP after --help. */
static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"d", required_argument, NULL, OPT_D},
        {"blocks-per-row", required_argument, NULL, OPT_BPR},
        {"max-n", required_argument, NULL, OPT_MAXN},
        {"exact-max-n", required_argument, NULL, OPT_EXACT},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"quick", no_argument, NULL, OPT_QUICK},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    cli_common_init(&o->common);
    o->d = 64;
    o->bpr = 8;
    o->max_n = 65536;
    o->exact_max = 16384;
    o->samples = 5;
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (o->quick) {
        if (!o->max_given) o->max_n = 16384;
        if (!o->exact_given) o->exact_max = 8192;
        if (!o->samples_given) o->samples = 3;
    }
    if (o->bpr > 4096 / 32)
        return cli_usage_error("--blocks-per-row = %zu out of range: need <= 128 (n/32 at n = 4096)", o->bpr);
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    if (skit_memory_check(o->max_n * 4 * o->d * sizeof(double), "benchmark inputs") != SKIT_OK)
        return cli_library_error(SKIT_ETOOBIG);
    return CLI_OK;
}

/* Exact softmax attention in numpy, the peer of skit's exact attention:
 * softmax(Q K^T / sqrt(d)) V in row blocks of 1024 (the n x n matrix
 * does not fit at n = 2^14), each block two GEMMs (numpy on OpenBLAS, its
 * default threads) and a max-subtracted exp; median seconds per call. */
/* The numpy peer (bench_peer: one interpreter for the run): exact
 * attention in 1024-row query tiles on float64 inputs, as skit's exact
 * rows compute it; the median of up to reps timed calls (5 s at most). */
static const char *numpy_exact_script =
    "import sys, time\n"
    "import numpy as np\n"
    "def measure(n, d, reps, seed):\n"
    "    n, d, reps, seed = int(n), int(d), int(reps), int(seed)\n"
    "    rng = np.random.default_rng(seed)\n"
    "    Q, K, V = (rng.standard_normal((n, d)) for _ in range(3))\n"
    "    def attend():\n"
    "        Y = np.empty((n, d))\n"
    "        for b in range(0, n, 1024):\n"
    "            S = Q[b:b + 1024] @ K.T * (1.0 / np.sqrt(d))\n"
    "            S = np.exp(S - S.max(axis=1, keepdims=True))\n"
    "            Y[b:b + 1024] = (S @ V) / S.sum(axis=1, keepdims=True)\n"
    "        return Y\n"
    "    attend()\n"
    "    ts = []\n"
    "    while len(ts) < reps and sum(ts) < 5.0:\n"
    "        t0 = time.perf_counter(); attend(); ts.append(time.perf_counter() - t0)\n"
    "    ts.sort()\n"
    "    return ts[len(ts) // 2]\n"
    BENCH_PEER_SERVE;

/* The numpy peer at n (a row "numpy_exact"; its min and max are the median). */
static void time_numpy_exact(const options *o, bench_peer *peer, size_t n, row *r)
{
    char request[128];
    snprintf(request, sizeof request, "%zu %zu %zu %llu", n, o->d, o->samples, (unsigned long long)o->common.seed);
    double s;
    bench_peer_ask(peer, request, &s, 1);
    *r = (row){"numpy_exact", n, o->d, 0, {s, s, s, 1, 1}, 0, 0};
}

/* Exact attention (up to --exact-max-n), MRA-2 and MRA-2-s at n = 4096 ..
 * --max-n on the same synthetic inputs; rows[*count] onwards. */
static int measure(const options *o, row *rows, size_t *count)
{
    size_t d = o->d, max_n = o->max_n;
    double *q = malloc(max_n * 4 * d * sizeof(double)), *k = q ? q + max_n * d : NULL,
           *v = k ? k + max_n * d : NULL, *y = v ? v + max_n * d : NULL;
    if (!q) return cli_failure("out of memory for the inputs");
    int status = CLI_OK;
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    spec.seed = o->common.seed;
    const int numpy = bench_python_has("numpy");
    if (!numpy) fprintf(stderr, "%s: numpy: not installed for %s; no numpy_exact rows\n", cli_context(), BENCH_PYTHON);
    bench_peer peer;
    bench_peer_init(&peer, numpy_exact_script);
    cli_progress_start(&o->common);
    for (size_t n = 4096; n <= max_n && status == CLI_OK; n *= 2) {
        int st = skit_attention_synthetic_generate(&spec, n, d, d, q, n, k, n, v, n);
        if (st != SKIT_OK) {
            status = cli_library_error(st);
            break;
        }
        const int methods[] = {SKIT_ATTENTION_EXACT, SKIT_ATTENTION_MRA2, SKIT_ATTENTION_MRA2_SPARSE};
        for (size_t m = 0; m < 3 && status == CLI_OK; m++) {
            if (methods[m] == SKIT_ATTENTION_EXACT && n > o->exact_max) continue;
            cli_progress("n = %zu, %s", n, skit_attention_method_name(methods[m]));
            status = time_method(methods[m], n, o, q, k, v, y, &rows[*count]);
            if (status == CLI_OK) (*count)++;
            if (status == CLI_OK && methods[m] == SKIT_ATTENTION_EXACT && numpy) {
                cli_progress("n = %zu, numpy exact attention", n);
                time_numpy_exact(o, &peer, n, &rows[(*count)++]);
            }
        }
    }
    cli_progress_done();
    bench_peer_close(&peer);
    free(q);
    return status;
}

/* The summary lines (targets met or not, setup) from the rows. */
static void summarize(const options *o, const row *rows, size_t count, char lines[6][256])
{
    size_t d = o->d, max_n = o->max_n, exact_max = o->exact_max;
    double te = time_at(rows, count, "exact", 4096, 0), tm = time_at(rows, count, "mra2", 4096, 0);
    double ts = time_at(rows, count, "mra2s", 4096, 0);
    double te_min = time_at(rows, count, "exact", 4096, 1), tm_min = time_at(rows, count, "mra2", 4096, 1);
    size_t pm, pe, ps;
    double slope_mra = slope_of(rows, count, "mra2", 4096, max_n, 0, &pm);
    double slope_mras = slope_of(rows, count, "mra2s", 4096, max_n, 0, &ps);
    double slope_exact = slope_of(rows, count, "exact", 4096, exact_max, 0, &pe);
    double slope_mra_min = slope_of(rows, count, "mra2", 4096, max_n, 1, &pm);
    size_t rss = skit_memory_peak_rss(), plan_max = 0;
    for (size_t i = 0; i < count; i++)
        if (!strcmp(rows[i].method, "mra2") && rows[i].n == max_n) plan_max = rows[i].plan_bytes;
    double inputs_max = (double)max_n * 4.0 * (double)d * sizeof(double);
    snprintf(lines[0], 256,
             "speed ratio exact / mra2 at n = 4096, d = %zu, %zu blocks per row: %.2f (target >= 4: %s; "
             "fastest samples: %.2f); exact / mra2s: %.2f",
             d, o->bpr, te / tm, te / tm >= 4 ? "met" : "NOT met", te_min / tm_min, te / ts);
    snprintf(lines[1], 256,
             "log-log slope of mra2 time, n = 4096..%zu (%zu points): %.3f (target <= 1.2: %s; "
             "fastest samples: %.3f); mra2s: %.3f",
             max_n, pm, slope_mra, slope_mra <= 1.2 ? "met" : "NOT met", slope_mra_min, slope_mras);
    snprintf(lines[2], 256,
             "log-log slope of exact time, n = 4096..%zu (%zu points): %.3f (expected about 2); exact "
             "not timed above n = %zu (quadratic cost)",
             exact_max, pe, slope_exact, exact_max);
    snprintf(lines[3], 256,
             "memory at n = %zu: mra2 plan %.1f MiB, inputs Q K V Y %.1f MiB, process peak RSS %.1f "
             "MiB (target < 1024 MiB: %s)",
             max_n, (double)plan_max / 1048576.0, inputs_max / 1048576.0, (double)rss / 1048576.0,
             rss < ((size_t)1 << 30) ? "met" : "NOT met");
    snprintf(lines[4], 256,
             "threads: %d; times are medians of %zu samples after a warm-up; inputs: structured "
             "synthetic (locality 16, beta 4)",
             bench_threads(), o->samples);
    double tn = time_at(rows, count, "numpy_exact", 4096, 0);
    snprintf(lines[5], 256,
             "exact attention at n = 4096: skit %.4g s, numpy (blocked softmax, OpenBLAS GEMMs) %.4g s: "
             "numpy / skit %.2f",
             te, tn, tn / te);
}

int bench_mra(int argc, char **argv)
{
    options o;
    int status = parse_options(argc, argv, &o);
    if (status != CLI_OK) return status == CLI_HELP ? CLI_OK : status;
    cli_apply_threads(&o.common);
    row rows[64];
    size_t count = 0;
    status = measure(&o, rows, &count);
    if (status != CLI_OK) return status;
    char lines[6][256];
    summarize(&o, rows, count, lines);
    static const char *const cols[] = {"method", "n", "d", "blocks_per_row", "time_s", "time_min_s",
                                       "time_max_s", "plan_bytes", "peak_rss_bytes", NULL};
    cli_table t;
    cli_table_init(&t, cols);
    bench_machine_header(&t, &o.common, "float64");
    for (int i = 0; i < 6; i++) cli_table_comment(&t, "%s", lines[i]);
    for (size_t i = 0; i < count; i++)
        cli_table_rowf(&t, "%s\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%zu\t%zu", rows[i].method, rows[i].n, rows[i].d,
                       rows[i].bpr, rows[i].t.median, rows[i].t.min, rows[i].t.max, rows[i].plan_bytes, rows[i].rss);
    status = cli_table_emit(&t, &o.common, argc, argv, "time: seconds per call; memory: bytes", "mra_bench", NULL);
    cli_table_free(&t);
    if (status == CLI_OK && !o.common.quiet)
        for (int i = 0; i < 6; i++)
            if (i != 4) fprintf(stderr, "skit bench mra: %s\n", lines[i]);
    return status;
}
