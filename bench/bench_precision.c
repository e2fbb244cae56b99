/* bench_precision.c — `skit bench precision`: float32 against float64 plans
 * of the same operator in one run, timed interleaved (bench_measure_
 * interleaved: load changes hit both alike), with the float32 result's
 * error against the float64 one and, where the kernel is known exactly
 * (Toeplitz, TNO), against the documented bound
 *     ||y32 - y64||_2 <= 20 log2(2N) 2^-24 ||k_c||_1 ||x_c||_2,
 * and for SKI-TNO against skit/tno.h's (skit_tno_plan_f32_error_scale).
 * Operators: the Toeplitz FFT matvec (per-channel matrices), TNO, FD-TNO
 * and SKI-TNO (bidirectional and causal) execute and forward (update +
 * execute), and
 * exact attention (float64 and float32 attention plans, held to the
 * entry-wise bound of skit/attention.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cli/cli.h"
#include "cli/table.h"

static const char *usage =
    "usage: skit bench precision [options]\n"
    "float32 vs float64 plans of the same operator, timed interleaved in one run:\n"
    "the Toeplitz FFT matvec (d per-channel matrices) and TNO / FD-TNO / SKI-TNO (ROWS\n"
    "layout, bidirectional and causal; SKI: r = min(64, n), 17 taps, 32 knots),\n"
    "execute and forward (update + execute).\n\n"
    "  --sizes LIST        Toeplitz n (default 2^10..2^18)\n"
    "  --d D               Toeplitz channels (default 64)\n"
    "  --shapes LIST       TNO shapes n:d:batch (default 512:512:4,2048:512:1,\n"
    "                      8192:128:1,32768:64:1)\n"
    "  --attention LIST    exact attention n, head and value dimension 64 (default\n"
    "                      1024,2048,4096)\n"
    "  --rounds R          interleaved rounds, median taken (default 7, <= 15)\n"
    "  --quick             one small size and shape, 3 rounds (a smoke run)\n" CLI_COMMON_HELP
        CLI_PLANNER_HELP("measure: the plan is reused")
    "  -h, --help          this message\n";

typedef struct toeplitz_f32 {
    const skit_toeplitz_plan *plan;
    const float *x;
    float *y;
    size_t n;
} toeplitz_f32;

static void run_toeplitz_f32(void *p)
{
    toeplitz_f32 *c = p;
    skit_toeplitz_plan_execute_f32(c->plan, c->x, c->n, c->y, c->n, NULL);
}

typedef struct tno_body {
    skit_tno_plan *plan;
    const void *x;
    void *y;
    int f32, forward;
} tno_body;

static void run_tno(void *p)
{
    tno_body *b = p;
    if (b->f32 && b->forward) skit_tno_plan_forward_f32(b->plan, b->x, b->y);
    else if (b->f32) skit_tno_plan_execute_f32(b->plan, b->x, b->y, NULL);
    else if (b->forward) skit_tno_plan_forward(b->plan, b->x, b->y);
    else skit_tno_plan_execute(b->plan, b->x, b->y, NULL);
}

typedef struct attention_body {
    const skit_attention_plan *plan;
    size_t n;
    const void *q, *k, *v;
    void *y;
    int f32;
} attention_body;

static void run_attention(void *p)
{
    attention_body *b = p;
    if (b->f32)
        skit_attention_plan_execute_f32(b->plan, b->q, b->n, b->k, b->n, b->v, b->n, NULL, b->y, b->n, NULL);
    else
        skit_attention_plan_execute(b->plan, b->q, b->n, b->k, b->n, b->v, b->n, NULL, b->y, b->n, NULL);
}

/* max over channels (count of them, len values each, channel c at c*ld and
 * stride s) of ||y32 - y64|| / ||y64||, and of the error over the bound
 * unit[c] ||x_c|| when unit is given */
static void errors(const float *y32, const double *y64, const float *x, size_t count, size_t len, size_t ld,
                   size_t stride, const double *unit, double *rel, double *over)
{
    *rel = *over = 0;
    for (size_t c = 0; c < count; c++) {
        double e = 0, r = 0, xx = 0;
        for (size_t i = 0; i < len; i++) {
            size_t at = c * ld + i * stride;
            e += ((double)y32[at] - y64[at]) * ((double)y32[at] - y64[at]);
            r += y64[at] * y64[at];
            xx += (double)x[at] * x[at];
        }
        *rel = fmax(*rel, sqrt(e) / (r > 0 ? sqrt(r) : 1));
        if (unit) *over = fmax(*over, sqrt(e) / (unit[c] * sqrt(xx)));
    }
    if (!unit) *over = NAN;
}

/* the float products' bound per unit ||x_c||: 20 log2(2N) 2^-24 ||k_c||_1 */
static void fft_units(double *norms1, size_t count, size_t N)
{
    for (size_t c = 0; c < count; c++) norms1[c] *= 20.0 * log2(2.0 * (double)N) * 0x1p-24;
}

/* float x and its widened copy */
static void random_pair(skit_rng *rng, size_t count, float *x32, double *x64)
{
    for (size_t i = 0; i < count; i++) x64[i] = x32[i] = (float)skit_rng_normal(rng);
}

static int time_toeplitz(cli_table *t, size_t n, size_t d, size_t rounds, skit_rng *rng)
{
    const size_t per = 2 * n - 1;
    double *coeffs = skit_malloc(per * d, sizeof(double)), *x64 = skit_malloc(n * d, sizeof(double));
    double *y64 = skit_malloc(n * d, sizeof(double)), *norms = skit_malloc(d, sizeof(double));
    float *x32 = skit_malloc(n * d, sizeof(float)), *y32 = skit_malloc(n * d, sizeof(float));
    skit_toeplitz_plan *p64 = NULL, *p32 = NULL;
    int status = coeffs && x64 && y64 && x32 && y32 && norms ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        skit_rng_fill_normal(rng, coeffs, per * d);
        random_pair(rng, n * d, x32, x64);
        skit_toeplitz_options o;
        skit_toeplitz_options_default(&o);
        status = skit_toeplitz_plan_create(&p64, n, n, d, &o, coeffs);
        o.precision = SKIT_PRECISION_F32;
        if (status == SKIT_OK) status = skit_toeplitz_plan_create(&p32, n, n, d, &o, coeffs);
    }
    if (status == SKIT_OK) {
        bench_matvec b64 = {p64, x64, y64, n};
        toeplitz_f32 b32 = {p32, x32, y32, n};
        bench_fn fns[2] = {bench_run_matvec, run_toeplitz_f32};
        void *ctx[2] = {&b64, &b32};
        double median[2], rel, over;
        bench_measure_interleaved(fns, ctx, 2, 0.05, rounds, median);
        for (size_t c = 0; c < d; c++) {
            norms[c] = 0;
            for (size_t k = 0; k < per; k++) norms[c] += fabs(coeffs[c * per + k]);
        }
        fft_units(norms, d, skit_toeplitz_plan_fft_length(p32));
        errors(y32, y64, x32, d, n, n, 1, norms, &rel, &over);
        cli_table_rowf(t, "toeplitz\tbidirectional\texecute\t%zu\t%zu\t1\t%.6g\t%.6g\t%.3f\t%.3g\t%.3g", n, d, median[0],
                       median[1], median[0] / median[1], rel, over);
    }
    skit_toeplitz_plan_destroy(p64);
    skit_toeplitz_plan_destroy(p32);
    skit_free(coeffs);
    skit_free(x64);
    skit_free(y64);
    skit_free(x32);
    skit_free(y32);
    skit_free(norms);
    return status;
}

/* The bound per unit ||x_c|| (NULL: none): TNO's float products' (its
 * kernel is exactly its 2n-1 coefficients); SKI-TNO's whole bound,
 * (20 log2(2N) + 2r + 2h + m + 12) 2^-24 s_c (skit/tno.h, the float32
 * plan's scale); FD-TNO's circulant kernel has N lags: none. */
static double *tno_units(skit_tno_plan *p, skit_tno_plan *p32, skit_tno_kind kind, size_t n, size_t d)
{
    if (kind == SKIT_TNO_SKI) {
        double *unit = skit_calloc(d, sizeof(double));
        if (!unit || skit_tno_plan_f32_error_scale(p32, unit, NULL) != SKIT_OK) {
            skit_free(unit);
            return NULL;
        }
        const double growth = skit_tno_plan_f32_growth(p32);
        for (size_t c = 0; c < d; c++) unit[c] *= growth * 0x1p-24;
        return unit;
    }
    if (kind != SKIT_TNO_FFT) return NULL;
    const size_t per = 2 * n - 1;
    double *coeffs = skit_malloc(per * d, sizeof(double)), *norms = skit_calloc(d, sizeof(double));
    if (!coeffs || !norms || skit_tno_plan_coeffs(p, coeffs) != SKIT_OK) {
        skit_free(coeffs);
        skit_free(norms);
        return NULL;
    }
    for (size_t c = 0; c < d; c++)
        for (size_t k = 0; k < per; k++) norms[c] += fabs(coeffs[c * per + k]);
    skit_free(coeffs);
    size_t N = 0;
    skit_fft_good_length(2 * n - 1, &N); /* TNO's circulant length */
    fft_units(norms, d, N);
    return norms;
}

static int time_tno(cli_table *t, skit_tno_kind kind, skit_causality causality, const size_t shape[3],
                    size_t rounds, skit_rng *rng)
{
    const size_t n = shape[0], d = shape[1], batch = shape[2], total = n * d * batch;
    double *x64 = skit_malloc(total, sizeof(double)), *y64 = skit_malloc(total, sizeof(double));
    float *x32 = skit_malloc(total, sizeof(float)), *y32 = skit_malloc(total, sizeof(float));
    skit_tno_plan *p64 = NULL, *p32 = NULL;
    int status = x64 && y64 && x32 && y32 ? SKIT_OK : SKIT_ENOMEM;
    skit_tno_options o;
    skit_tno_options_default(&o, kind);
    o.causality = causality;
    o.rank = o.rank < n ? o.rank : n;
    if (status == SKIT_OK) status = skit_tno_plan_create(&p64, n, d, batch, &o, NULL, 0);
    o.precision = SKIT_PRECISION_F32;
    if (status == SKIT_OK) status = skit_tno_plan_create(&p32, n, d, batch, &o, NULL, 0);
    if (status == SKIT_OK) random_pair(rng, total, x32, x64);
    for (int forward = 0; forward < 2 && status == SKIT_OK; forward++) {
        tno_body b64 = {p64, x64, y64, 0, forward}, b32 = {p32, x32, y32, 1, forward};
        bench_fn fns[2] = {run_tno, run_tno};
        void *ctx[2] = {&b64, &b32};
        double median[2], rel, over;
        bench_measure_interleaved(fns, ctx, 2, 0.05, rounds, median);
        double *units = tno_units(p64, p32, kind, n, d);
        rel = 0;
        over = units ? 0 : NAN;
        /* ROWS layout: channel c of sequence b at b*n*d + c, stride d */
        for (size_t s = 0; s < batch; s++) {
            double r, v;
            errors(y32 + s * n * d, y64 + s * n * d, x32 + s * n * d, d, n, 1, d, units, &r, &v);
            rel = fmax(rel, r);
            if (units) over = fmax(over, v);
        }
        skit_free(units);
        cli_table_rowf(t, "%s\t%s\t%s\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.3f\t%.3g\t%.3g", skit_tno_kind_name(kind),
                       causality == SKIT_CAUSAL ? "causal" : "bidirectional", forward ? "forward" : "execute", n, d,
                       batch, median[0], median[1], median[0] / median[1], rel, over);
    }
    skit_tno_plan_destroy(p64);
    skit_tno_plan_destroy(p32);
    skit_free(x64);
    skit_free(y64);
    skit_free(x32);
    skit_free(y32);
    return status;
}

/* Largest |y32 - y64| over the entry-wise bound of a float32 exact plan
 * (skit/attention.h) with G_i <= scale ||q_i||_2 max_j ||k_j||_2 (Cauchy-
 * Schwarz: a larger, still valid bound) and t >= 16. */
static double attention_over_bound(size_t n, size_t d, const double *q, const double *k, const double *v,
                                   const float *y32, const double *y64)
{
    double scale = 1.0 / sqrt((double)d), kmax = 0, over = 0;
    for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (size_t c = 0; c < d; c++) s += k[j + c * n] * k[j + c * n];
        kmax = fmax(kmax, sqrt(s));
    }
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t c = 0; c < d; c++) s += q[i + c * n] * q[i + c * n];
        double g = scale * sqrt(s) * kmax, eta = 0x1p-24 * (((double)d + 6) * g + 3.0 * (double)((n + 15) / 16) + 4);
        for (size_t c = 0; c < d; c++) {
            double vmax = 0;
            for (size_t j = 0; j < n; j++) vmax = fmax(vmax, fabs(v[j + c * n]));
            double bound = (2.1 * eta + ((double)n + 4) * 0x1p-24) * vmax;
            over = fmax(over, fabs((double)y32[i + c * n] - y64[i + c * n]) / bound);
        }
    }
    return over;
}

/* Exact attention at n tokens, d = dv = 64, random normal Q, K, V. */
static int time_attention(cli_table *t, size_t n, size_t rounds, skit_rng *rng)
{
    const size_t d = 64, total = n * d;
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
    skit_attention_plan *p64 = NULL, *p32 = NULL;
    int status = skit_attention_plan_create(&p64, n, d, d, &o);
    o.precision = SKIT_PRECISION_F32;
    if (status == SKIT_OK) status = skit_attention_plan_create(&p32, n, d, d, &o);
    double *x64 = skit_malloc(4 * total, sizeof(double));
    float *x32 = skit_malloc(4 * total, sizeof(float));
    if (status != SKIT_OK || !x64 || !x32) {
        skit_attention_plan_destroy(p64);
        skit_attention_plan_destroy(p32);
        skit_free(x64);
        skit_free(x32);
        return status != SKIT_OK ? status : SKIT_ENOMEM;
    }
    random_pair(rng, 3 * total, x32, x64); /* q, k, v; y after them */
    attention_body b64 = {p64, n, x64, x64 + total, x64 + 2 * total, x64 + 3 * total, 0};
    attention_body b32 = {p32, n, x32, x32 + total, x32 + 2 * total, x32 + 3 * total, 1};
    bench_fn fns[2] = {run_attention, run_attention};
    void *ctx[2] = {&b64, &b32};
    double median[2], rel;
    bench_measure_interleaved(fns, ctx, 2, 0.05, rounds, median);
    double over = attention_over_bound(n, d, x64, x64 + total, x64 + 2 * total, x32 + 3 * total, x64 + 3 * total);
    errors(x32 + 3 * total, x64 + 3 * total, x32, d, n, n, 1, NULL, &rel, &(double){0});
    cli_table_rowf(t, "attention\tbidirectional\texact\t%zu\t%zu\t1\t%.6g\t%.6g\t%.3f\t%.3g\t%.3g", n, d, median[0],
                   median[1], median[0] / median[1], rel, over);
    skit_attention_plan_destroy(p64);
    skit_attention_plan_destroy(p32);
    skit_free(x64);
    skit_free(x32);
    return SKIT_OK;
}

typedef struct precision_options {
    cli_common common;
    size_t *sizes, nsizes, d, rounds, *attention, nattention;
    size_t shapes[8][3], nshapes;
    const char *sizes_text, *shapes_text, *attention_text; /* the lists as given */
} precision_options;

/* n:d:batch,... */
static int parse_shapes(const char *text, precision_options *o)
{
    o->nshapes = 0;
    for (const char *p = text; *p;) {
        size_t v[3];
        int used = 0;
        if (o->nshapes == 8 || sscanf(p, "%zu:%zu:%zu%n", &v[0], &v[1], &v[2], &used) != 3 || !v[0] || !v[1] ||
            !v[2] || v[0] > ((size_t)1 << 24) || v[1] > 4096 || v[2] > 64)
            return cli_usage_error("--shapes: expected up to 8 n:d:batch (1 <= n <= 2^24, d <= 4096, batch <= 64), "
                                   "got '%s'", text);
        memcpy(o->shapes[o->nshapes++], v, sizeof v);
        p += used;
        if (*p == ',') p++;
        else if (*p) return cli_usage_error("--shapes: expected ',' between shapes in '%s'", text);
    }
    return CLI_OK;
}

enum { OPT_SIZES = 0x2000, OPT_D, OPT_SHAPES, OPT_ROUNDS, OPT_QUICK, OPT_ATTENTION };

/* One option (cli_options.apply): -1 for the common ones. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    precision_options *o = ctx;
    switch (opt) {
    case OPT_SIZES: o->sizes_text = arg; return CLI_OK;
    case OPT_SHAPES: o->shapes_text = arg; return CLI_OK;
    case OPT_ATTENTION: o->attention_text = arg; return CLI_OK;
    case OPT_D: return cli_parse_size("--d", arg, 1, 4096, &o->d);
    case OPT_ROUNDS: return cli_parse_size("--rounds", arg, 1, BENCH_MAX_ROUNDS, &o->rounds);
    case OPT_QUICK:
        o->sizes_text = "2^10";
        o->shapes_text = "256:16:1";
        o->attention_text = "256";
        o->rounds = 3;
        return CLI_OK;
    }
    return -1;
}

static int parse(int argc, char **argv, precision_options *o)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             CLI_PLANNER_LONGOPTS,
                                             {"sizes", required_argument, NULL, OPT_SIZES},
                                             {"d", required_argument, NULL, OPT_D},
                                             {"shapes", required_argument, NULL, OPT_SHAPES},
                                             {"rounds", required_argument, NULL, OPT_ROUNDS},
                                             {"quick", no_argument, NULL, OPT_QUICK},
                                             {"attention", required_argument, NULL, OPT_ATTENTION},
                                             {NULL, 0, NULL, 0}};
    o->sizes_text = "2^10..2^18";
    o->shapes_text = "512:512:4,2048:512:1,8192:128:1,32768:64:1";
    o->attention_text = "1024,2048,4096";
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    const char *sizes = o->sizes_text, *shapes = o->shapes_text, *attention = o->attention_text;
    if (cli_parse_size_list("--sizes", sizes, 1, (size_t)1 << 24, &o->sizes, &o->nsizes) != CLI_OK) return CLI_USAGE;
    if (parse_shapes(shapes, o) != CLI_OK) return CLI_USAGE;
    if (cli_parse_size_list("--attention", attention, 1, 16384, &o->attention, &o->nattention) != CLI_OK)
        return CLI_USAGE;
    return cli_common_validate(&o->common) == CLI_OK ? CLI_OK : CLI_USAGE;
}

int bench_precision(int argc, char **argv)
{
    precision_options o = {.d = 64, .rounds = 7};
    cli_common_init(&o.common);
    bench_planner_defaults(&o.common); /* the plans are reused: MEASURE, as every bench */
    int rc = parse(argc, argv, &o);
    if (rc != CLI_OK) {
        free(o.sizes);
        free(o.attention);
        return rc == CLI_HELP ? CLI_OK : rc;
    }
    cli_apply_threads(&o.common);
    static const char *const names[] = {"operator", "causality", "call", "n", "d", "batch", "f64_s", "f32_s",
                                        "f32_speedup", "max_rel_error", "error_over_bound", NULL};
    cli_table t;
    cli_table_init(&t, names);
    char model[256], isa[256];
    bench_cpu_description(model, sizeof model, isa, sizeof isa);
    cli_table_comment(&t, "machine: %s; ISA: %s; %d threads of %d cores; load average %.2f at the start", model, isa,
                      bench_threads(), bench_cores(), bench_load_average());
    cli_table_comment(&t, "planner: %s (fftw and fftwf alike); times: median over %zu interleaved rounds of "
                      "f64 and f32 (seconds per call)", bench_planner_text(&o.common), o.rounds);
    cli_table_comment(&t, "max_rel_error: max over channels of ||y32 - y64|| / ||y64||; error_over_bound: "
                      "||y32 - y64|| / (20 log2(2N) 2^-24 ||k||_1 ||x||), the float products' part of the documented "
                      "bound (TNO's adds (h+1) 2^-24 and its float32 RPE's M_c: skit/tno.h; ski: its whole bound, "
                      "(20 log2(2N) + 2r + 2h + m + 12) 2^-24 s_c ||x||, skit/tno.h; nan: kernel not known); "
                      "attention: max entry |y32 - y64| over the entry-wise bound of a float32 exact plan (d = dv, "
                      "d = 64 in the column d)");
    skit_rng rng;
    skit_rng_seed(&rng, o.common.seed);
    int status = SKIT_OK;
    for (size_t i = 0; i < o.nsizes && status == SKIT_OK; i++) {
        if (!o.common.quiet) fprintf(stderr, "%s: toeplitz n = %zu\n", cli_context(), o.sizes[i]);
        status = time_toeplitz(&t, o.sizes[i], o.d, o.rounds, &rng);
    }
    static const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI};
    for (size_t s = 0; s < o.nshapes && status == SKIT_OK; s++)
        for (size_t k = 0; k < 3 && status == SKIT_OK; k++)
            for (int causal = 0; causal < 2 && status == SKIT_OK; causal++) {
                if (kinds[k] == SKIT_TNO_SKI && o.shapes[s][0] < 2) continue; /* SKI needs r >= 2 tokens */
                if (!o.common.quiet)
                    fprintf(stderr, "%s: %s %zu:%zu:%zu\n", cli_context(), skit_tno_kind_name(kinds[k]),
                            o.shapes[s][0], o.shapes[s][1], o.shapes[s][2]);
                status = time_tno(&t, kinds[k], causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL, o.shapes[s], o.rounds, &rng);
            }
    for (size_t i = 0; i < o.nattention && status == SKIT_OK; i++) {
        if (!o.common.quiet) fprintf(stderr, "%s: attention n = %zu\n", cli_context(), o.attention[i]);
        status = time_attention(&t, o.attention[i], o.rounds, &rng);
    }
    rc = status == SKIT_OK ? cli_table_emit(&t, &o.common, argc, argv, "seconds", NULL, NULL)
                           : cli_library_error(status);
    cli_table_free(&t);
    free(o.sizes);
    free(o.attention);
    return rc;
}
