/* bench_tno.c — `skit bench tno`: the token-mixing operators TNO, FD-TNO
 * and SKI-TNO (causal: cumulative sums) against the bare Toeplitz FFT
 * matvec of the same (n, d, batch), all measured in one run, with the
 * targets and the papers' speed claims evaluated from the numbers.
 *
 * What is timed (plans, parameters and random data are made outside the
 * timer; every figure is the median over interleaved rounds, each round
 * one sample of every body — the median call time while calls repeat for
 * --min-time — so background load hits all bodies alike; OpenBLAS is set to one thread and
 * the library splits the RPE MLP over the OpenMP threads, so one thread
 * pool runs everything):
 *  - matvec:  skit_toeplitz_plan_execute on channel-major data, per-channel
 *             matrices whose coefficients are the TNO's own (precomputed),
 *             once per sequence of the batch: the floor every operator is
 *             divided by;
 *  - forward: skit_tno_plan_forward on (batch, n, d) row-major data (PyTorch's
 *             layout): kernels recomputed from the parameters (RPE MLP,
 *             decay, kernel FFTs; FD: MLP on the frequency grid and the
 *             Hilbert step; SKI: knot evaluation and the small FFT of A),
 *             then applied — the cost in a training step;
 *  - apply:   skit_tno_plan_execute with the cached kernels (inference);
 *  - the floor of a forward pass (TNO and causal FD-TNO rows), RPE not
 *    counted: any forward pass transforms x and back as the matvec does,
 *    and makes the d kernel spectra by FFTs: per channel (TNO: d r2c of
 *    the kernels; causal FD: d Hilbert steps, a c2r and an r2c each), or
 *    below the output layer (TNO: h+1 r2c of the features and decay, then
 *    the spectra GEMM d x (h+1) x 2 (N/2+1); causal FD: h Hilbert steps
 *    of the features, then the GEMM of their images d x h x (N/2+1)), and
 *    leaves the d spectra in the plan (the per-channel way: a bare store
 *    of d x 2 (N/2+1), causal FD d x (N/2+1) doubles; the GEMM writes its
 *    own). The bare FFTW transforms (FFTW_ESTIMATE, as the library plans
 *    them, the same threads, in cache), the bare store and the bare GEMM
 *    are timed in the same rounds, and
 *    floor_over_matvec = (matvec + the cheaper way) / matvec, per round:
 *    where it exceeds a target, no forward pass that makes its spectra by
 *    FFTs can meet it, however fast its RPE. Bidirectional FD-TNO
 *    evaluates its responses on the grid itself: its floor is the matvec;
 *  - the RPE's features alone (skit_tno_plan_eval_rpe, the MLP up to its output
 *    layer as the plan evaluates it), in the same rounds, and
 *    rpe_floor_over_matvec = floor + that.
 * Memory: the plan's bytes (skit_tno_plan_bytes / skit_toeplitz_plan_bytes)
 * plus the input and output arrays. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common.h"
#include "cli/cli.h"
#include "cli/table.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static const char *usage =
    "usage: skit bench tno [options]\n"
    "Time the token-mixing operators TNO (RPE MLP + decay + FFT Toeplitz), FD-TNO\n"
    "(frequency-domain RPE; causal by the Hilbert transform) and SKI-TNO (sparse\n"
    "band + SKI low rank; causal by cumulative sums) on (batch, n, d) row-major\n"
    "data against the bare Toeplitz FFT matvec of the same shape with the TNO's\n"
    "coefficients precomputed, measured in the same run. Writes a TSV (seconds per\n"
    "call for the whole batch) and prints the targets met / not met and the papers'\n"
    "speed claims reproduced / not reproduced with the measured ratios. For TNO and\n"
    "causal FD-TNO it also times, in the same rounds, the bare FFTW transforms (and\n"
    "GEMM) that make the kernel spectra the cheaper of the two ways (per channel,\n"
    "in cache, plus a bare store of the d spectra the plan keeps; or below the\n"
    "RPE's output layer): a forward pass costs at least matvec + those (column\n"
    "floor_over_matvec, the RPE not counted), which shows where a target ratio is\n"
    "out of reach; and the RPE's features alone (rpe_floor_over_matvec adds them).\n"
    "At the --shapes it then times every float32 forward (TNO, FD-TNO, SKI-TNO,\n"
    "both causalities, one thread) over FFTW's bare float r2c + c2r per channel at\n"
    "the plan's FFT length (notes floor-row; target <= 1.5x, note floor target).\n\n"
    "options:\n"
    "  --shapes LIST       n:d:batch,... (default 512:512:4,2048:512:1,8192:128:1,\n"
    "                      32768:64:1; --quick 512:64:1,2048:64:1,8192:16:1)\n"
    "  --sweep LIST        n of the time-vs-n sweep (default 2^9..2^15; --quick\n"
    "                      2^9..2^12)\n"
    "  --sweep-d D         channels of the sweep (default 64; --quick 16)\n"
    "  --no-sweep          skip the sweep\n"
    "  --causality C       both (default), bidirectional or causal\n"
    "  --layout L          rows (default: (batch, n, d), PyTorch's) or channels\n"
    "                      ((batch, d, n): no transposes for the FFT paths)\n"
    "  --rpe-width W       RPE MLP width (default 64)\n"
    "  --rpe-layers L      RPE hidden layers (default 3)\n"
    "  --rank R            SKI inducing points r (default 64; capped at n)\n"
    "  --taps M            SKI sparse filter taps, odd or 0 (default 17)\n"
    "  --knots K           SKI knots per side (default 32)\n"
    "  --decay LAMBDA      TNO decay bias / SKI time warp, in (0, 1) (default 0.99)\n"
    "  --samples N         timing rounds (default 5, sweep 3; --quick 3; points\n"
    "                      whose bodies take over 1.4 s together use at most 3)\n"
    "  --min-time S        minimum seconds per sample (default 0.05; --quick 0.01)\n"
    "  --quick             a few seconds: small shapes, fewer samples\n"
    "  --no-peer           skip the PyTorch peer (bench/peers/tno_torch.py, run by\n"
    "                      default when /usr/bin/python3 imports torch: the same\n"
    "                      operators at the --shapes, float32 and float64, one\n"
    "                      thread and all, each beside skit's forward of the same\n"
    "                      precision and threads, timed after it in this run;\n"
    "                      float32 TNO and FD-TNO on one thread also beside\n"
    "                      FFTW's bare float r2c + c2r per channel at the plan's\n"
    "                      FFT length, which no FFT implementation goes under)\n" CLI_COMMON_HELP CLI_PLANNER_HELP("measure: the plan is reused")
    "\nThe papers' numbers come from full training steps on A100 GPUs; these are\n"
    "single operators on this CPU, so a claim marked 'not reproduced' says what\n"
    "the operators cost here, not that the papers' measurements are wrong.\n\n"
    "example:\n"
    "  skit bench tno -o tno.tsv --plot tno.png\n";

enum { OPT_SHAPES = 1, OPT_SWEEP, OPT_SWEEP_D, OPT_NO_SWEEP, OPT_CAUSALITY, OPT_LAYOUT, OPT_RPE_WIDTH,
       OPT_RPE_LAYERS, OPT_RANK, OPT_TAPS, OPT_KNOTS, OPT_DECAY, OPT_SAMPLES, OPT_MIN_TIME, OPT_QUICK,
       OPT_NO_PEER };

typedef struct shape {
    size_t n, d, batch;
} shape;

typedef struct options {
    cli_common common;
    shape *shapes;
    size_t nshapes;
    const char *shapes_text, *sweep_text; /* as given (NULL: the default) */
    int peer; /* run the PyTorch peer */
    size_t *sweep, nsweep, sweep_d;
    int do_sweep;
    int causal[2]; /* [0] bidirectional, [1] causal selected */
    skit_tno_layout layout;
    size_t rpe_width, rpe_layers, rank, taps, knots;
    double decay;
    size_t samples;
    double min_time;
    int quick;
    int argc;
    char **argv;
} options;

/* operators in table order; index 0 is the floor */
enum { OP_MATVEC = 0, OP_TNO, OP_FD, OP_SKI, OP_SKIB, NOPS };
/* ski-blocked: causal SKI with the sums grouped by interpolation bracket
 * (O(n + r^2) per channel); causal rows only */
static const char *const op_names[NOPS] = {"matvec", "tno", "fd", "ski", "ski-blocked"};

typedef struct result {
    int sweep; /* 0: a --shapes row, 1: a sweep row */
    int causal;
    size_t n, d, batch, rank;
    double forward[NOPS], apply[NOPS], bytes[NOPS];
    /* medians over the rounds of per-round ratios (both bodies timed in the
     * same round, so load that comes and goes cancels): forward and apply
     * over the matvec's forward, forward over TNO's forward */
    double fwd_matvec[NOPS], app_matvec[NOPS], fwd_tno[NOPS];
    /* TNO and FD only: the RPE's features alone, the kernel spectra's bare
     * transforms (+ GEMM) the cheaper way, (matvec + those) / matvec and
     * (matvec + those + RPE) / matvec, medians of per-round values */
    double rpe[NOPS], xform[NOPS], rpe_matvec[NOPS], floor_matvec[NOPS], rpe_floor_matvec[NOPS];
    double tno_vs_matvec; /* max|TNO - matvec| / max|matvec|: same coefficients */
} result;

/* ---- argument parsing ----------------------------------------------------- */

static int parse_shapes(const char *text, shape **out, size_t *count)
{
    size_t cap = 1;
    for (const char *s = text; *s; s++) cap += *s == ',';
    shape *v = calloc(cap, sizeof *v);
    if (!v) return cli_failure("out of memory");
    size_t k = 0;
    const char *s = text;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[96], *a, *b;
        if (len == 0 || len >= sizeof item) {
            free(v);
            return cli_usage_error("--shapes: item '%.*s' is not n:d:batch (e.g. 2048:512:1)", (int)len, s);
        }
        memcpy(item, s, len);
        item[len] = '\0';
        a = strchr(item, ':');
        b = a ? strchr(a + 1, ':') : NULL;
        if (!a || !b) {
            free(v);
            return cli_usage_error("--shapes: item '%s' is not n:d:batch (e.g. 2048:512:1)", item);
        }
        *a = *b = '\0';
        if (cli_parse_size("--shapes n", item, 2, (size_t)1 << 24, &v[k].n) != CLI_OK ||
            cli_parse_size("--shapes d", a + 1, 1, (size_t)1 << 16, &v[k].d) != CLI_OK ||
            cli_parse_size("--shapes batch", b + 1, 1, 1024, &v[k].batch) != CLI_OK) {
            free(v);
            return CLI_USAGE;
        }
        if (v[k].n * v[k].d * v[k].batch > ((size_t)1 << 27)) {
            size_t total = v[k].n * v[k].d * v[k].batch; /* read before the free */
            free(v);
            return cli_usage_error("--shapes: n*d*batch = %zu out of range: need <= 2^27 (1 GiB per array)",
                                   total);
        }
        k++;
        s += len;
        if (*s == ',') s++;
        if (end && !*s) {
            free(v);
            return cli_usage_error("--shapes: empty item after ','");
        }
    }
    if (k == 0) {
        free(v);
        return cli_usage_error("--shapes: empty list (need n:d:batch,...)");
    }
    *out = v;
    *count = k;
    return CLI_OK;
}

static void free_options(options *o)
{
    free(o->shapes);
    free(o->sweep);
}

/* An option of the operators timed: CLI_OK, CLI_USAGE (reported), -1 if
 * not one. */
static int apply_operator_option(options *o, int opt, const char *arg)
{
    static const char *const causalities[] = {"both", "bidirectional", "causal", NULL};
    static const char *const layouts[] = {"rows", "channels", NULL};
    int idx;
    switch (opt) {
    case OPT_CAUSALITY:
        if (cli_parse_choice("--causality", arg, causalities, &idx) != CLI_OK) return CLI_USAGE;
        o->causal[0] = idx != 2;
        o->causal[1] = idx != 1;
        return CLI_OK;
    case OPT_LAYOUT:
        if (cli_parse_choice("--layout", arg, layouts, &idx) != CLI_OK) return CLI_USAGE;
        o->layout = idx ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS;
        return CLI_OK;
    case OPT_RPE_WIDTH: return cli_parse_size("--rpe-width", arg, 1, 1024, &o->rpe_width);
    case OPT_RPE_LAYERS: return cli_parse_size("--rpe-layers", arg, 0, 16, &o->rpe_layers);
    case OPT_RANK: return cli_parse_size("--rank", arg, 2, 4096, &o->rank);
    case OPT_TAPS:
        if (cli_parse_size("--taps", arg, 0, 1023, &o->taps) != CLI_OK) return CLI_USAGE;
        if (o->taps % 2 == 0 && o->taps != 0)
            return cli_usage_error("--taps: %zu out of range: need an odd number of taps (a centred "
                                   "filter) or 0", o->taps);
        return CLI_OK;
    case OPT_KNOTS: return cli_parse_size("--knots", arg, 1, 4096, &o->knots);
    case OPT_DECAY: return cli_parse_double("--decay", arg, 0, 1, 1, 1, &o->decay);
    }
    return -1;
}

/* One option (cli_options.apply): -1 for the common ones. The sizes
 * and counts left 0 get their defaults (--quick's or the full run's). */
static int apply_option(void *ctx, int opt, const char *arg)
{
    options *o = ctx;
    int rc = apply_operator_option(o, opt, arg);
    if (rc != -1) return rc;
    switch (opt) {
    case OPT_SHAPES: o->shapes_text = arg; return CLI_OK;
    case OPT_SWEEP: o->sweep_text = arg; return CLI_OK;
    case OPT_SWEEP_D: return cli_parse_size("--sweep-d", arg, 1, 4096, &o->sweep_d);
    case OPT_NO_SWEEP: o->do_sweep = 0; return CLI_OK;
    case OPT_SAMPLES: return cli_parse_size("--samples", arg, 1, 64, &o->samples);
    case OPT_MIN_TIME: return cli_parse_double("--min-time", arg, 0, 10, 1, 0, &o->min_time);
    case OPT_QUICK: o->quick = 1; return CLI_OK;
    case OPT_NO_PEER: o->peer = 0; return CLI_OK;
    }
    return -1;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, CLI_PLANNER_LONGOPTS,
                                             {"shapes", required_argument, NULL, OPT_SHAPES},
                                             {"sweep", required_argument, NULL, OPT_SWEEP},
                                             {"sweep-d", required_argument, NULL, OPT_SWEEP_D},
                                             {"no-sweep", no_argument, NULL, OPT_NO_SWEEP},
                                             {"causality", required_argument, NULL, OPT_CAUSALITY},
                                             {"layout", required_argument, NULL, OPT_LAYOUT},
                                             {"rpe-width", required_argument, NULL, OPT_RPE_WIDTH},
                                             {"rpe-layers", required_argument, NULL, OPT_RPE_LAYERS},
                                             {"rank", required_argument, NULL, OPT_RANK},
                                             {"taps", required_argument, NULL, OPT_TAPS},
                                             {"knots", required_argument, NULL, OPT_KNOTS},
                                             {"decay", required_argument, NULL, OPT_DECAY},
                                             {"samples", required_argument, NULL, OPT_SAMPLES},
                                             {"min-time", required_argument, NULL, OPT_MIN_TIME},
                                             {"quick", no_argument, NULL, OPT_QUICK},
                                             {"no-peer", no_argument, NULL, OPT_NO_PEER},
                                             {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    cli_common_init(&o->common);
    bench_planner_defaults(&o->common);
    o->argc = argc;
    o->argv = argv;
    o->do_sweep = 1;
    o->peer = 1;
    o->causal[0] = o->causal[1] = 1;
    o->rpe_width = 64;
    o->rpe_layers = 3;
    o->rank = 64;
    o->taps = 17;
    o->knots = 32;
    o->decay = 0.99;
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    if (!o->shapes_text)
        o->shapes_text = o->quick ? "512:64:1,2048:64:1,8192:16:1" : "512:512:4,2048:512:1,8192:128:1,32768:64:1";
    if (parse_shapes(o->shapes_text, &o->shapes, &o->nshapes) != CLI_OK) return CLI_USAGE;
    if (!o->sweep_text) o->sweep_text = o->quick ? "2^9..2^12" : "2^9..2^15";
    if (o->do_sweep &&
        cli_parse_size_list("--sweep", o->sweep_text, 2, (size_t)1 << 22, &o->sweep, &o->nsweep) != CLI_OK)
        return CLI_USAGE;
    if (!o->sweep_d) o->sweep_d = o->quick ? 16 : 64;
    if (!o->samples) o->samples = o->quick ? 3 : 5;
    if (!(o->min_time > 0)) o->min_time = o->quick ? 0.01 : 0.05;
    return CLI_OK;
}

/* ---- timed bodies ----------------------------------------------------------- */

enum { BODY_MATVEC, BODY_FORWARD, BODY_APPLY, BODY_RPE, BODY_GEMM, BODY_FFTS, BODY_STORE };

typedef struct body {
    int kind;
    skit_tno_plan *op;
    const skit_toeplitz_plan *matvec;
    const double *x;
    double *y;
    size_t n, d, batch;
    /* BODY_GEMM: C (rows x cols) = A (rows x inner) B (inner x cols);
     * BODY_STORE: C (rows x cols) written, the rows over the threads
     * (the d spectra a forward pass must leave in the plan) */
    const double *A, *B;
    double *C;
    size_t rows, inner, cols;
    /* BODY_FFTS: count r2c (pairs: an r2c then a c2r, as a Hilbert step runs) */
    const bench_fftw *tf;
    size_t count;
    int pairs;
} body;

static void run_body(void *ctx)
{
    body *b = ctx;
    if (b->kind == BODY_MATVEC) {
        size_t block = b->n * b->d;
        for (size_t s = 0; s < b->batch; s++)
            skit_toeplitz_plan_execute(b->matvec, b->x + s * block, b->n, b->y + s * block, b->n,
                                       NULL);
    } else if (b->kind == BODY_FORWARD) {
        skit_tno_plan_forward(b->op, b->x, b->y);
    } else if (b->kind == BODY_APPLY) {
        skit_tno_plan_execute(b->op, b->x, b->y, NULL);
    } else if (b->kind == BODY_RPE) {
        skit_tno_plan_eval_rpe(b->op, NULL);
    } else if (b->kind == BODY_GEMM) {
        bench_gemm(b->rows, b->inner, b->cols, b->A, b->B, b->C);
    } else if (b->kind == BODY_STORE) {
        bench_store(b->rows, b->cols, b->C);
    } else {
        bench_fftw_run(b->tf, b->count, b->pairs, bench_threads());
    }
}

/* Per-round times t[i][r] of k bodies over `rounds` interleaved rounds, so
 * background load hits all bodies alike; each time the median of single
 * calls (bench_call_median): an OpenMP barrier whose thread lost its core
 * to another process stalls for a scheduler quantum, and such stalls would
 * otherwise decide the ratios. */
#define MAX_ROUNDS 64
static void measure_interleaved(body *bodies, size_t k, double min_sample, size_t rounds,
                                double t[][MAX_ROUNDS])
{
    for (size_t r = 0; r < rounds; r++)
        for (size_t i = 0; i < k; i++) t[i][r] = bench_call_median(run_body, &bodies[i], min_sample);
}

/* median over rounds of a[r] / b[r] */
static double paired_ratio(const double *a, const double *b, size_t rounds)
{
    double q[MAX_ROUNDS];
    for (size_t r = 0; r < rounds; r++) q[r] = a[r] / b[r];
    return bench_median(q, rounds);
}

/* median over rounds of a[r] (a is left as it was) */
static double median_of(const double *a, size_t rounds)
{
    double q[MAX_ROUNDS];
    memcpy(q, a, rounds * sizeof *q);
    return bench_median(q, rounds);
}

/* ---- one (n, d, batch, causality) point ---------------------------------------- */

static int create_op(const options *o, skit_tno_kind kind, int causal, size_t n, size_t d,
                     size_t batch, int blocked, skit_tno_plan **op)
{
    skit_tno_options t;
    skit_tno_options_default(&t, kind);
    t.causal_ski = blocked ? SKIT_TNO_CAUSAL_BLOCKED : SKIT_TNO_CAUSAL_CUMSUM;
    t.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    t.layout = o->layout;
    t.rpe_width = o->rpe_width;
    t.rpe_layers = o->rpe_layers;
    t.decay = o->decay;
    t.rank = MIN(o->rank, n);
    t.taps = o->taps <= 2 * n - 1 ? o->taps : ((2 * n - 1) | 1);
    t.knots = o->knots;
    t.seed = o->common.seed + (uint64_t)kind;
    int status = skit_tno_plan_create(op, n, d, batch, &t, NULL, 0);
    return status == SKIT_OK ? CLI_OK : cli_library_error(status);
}

/* Everything one (n, d, batch, causality) point times: the operators, the
 * matvec of the TNO's coefficients, the data, and the bodies timed. */
typedef struct point {
    size_t n, d, batch;
    int causal, nops;
    skit_tno_plan *ops[NOPS];
    skit_toeplitz_plan *mv;
    double *x, *xc, *y, *yc, *coeffs;
    /* the floors of TNO (f = 0) and FD (f = 1): transforms, GEMM operands;
     * bodies floor_at[f].. are the RPE, the per-channel transforms, the
     * features' transforms, their GEMM and the store (has_route[f] = 0:
     * the RPE only, bidirectional FD evaluating on its grid) */
    bench_fftw tf[2];
    double *gemm_a[2], *gemm_b[2], *gemm_c[2];
    size_t floor_at[2];
    int has_route[2];
    body bodies[2 * NOPS - 1 + 10];
    size_t nbodies;
} point;

static void point_free(point *p)
{
    for (int k = 0; k < NOPS; k++)
        skit_tno_plan_destroy(p->ops[k]);
    skit_toeplitz_plan_destroy(p->mv);
    skit_free(p->x);
    skit_free(p->xc);
    skit_free(p->y);
    skit_free(p->yc);
    skit_free(p->coeffs);
    for (int f = 0; f < 2; f++) {
        skit_free(p->gemm_a[f]);
        skit_free(p->gemm_b[f]);
        skit_free(p->gemm_c[f]);
        bench_fftw_destroy(&p->tf[f]);
    }
}

/* The operators, the matvec of the TNO's own coefficients (precomputed:
 * the floor every operator is divided by) and the input. */
static int point_create(point *p, const options *o, skit_rng *rng)
{
    size_t n = p->n, d = p->d, batch = p->batch, total = n * d * batch, block = n * d;
    p->x = skit_malloc(total, sizeof(double));
    p->xc = skit_malloc(total, sizeof(double));
    p->y = skit_malloc(total, sizeof(double));
    p->yc = skit_malloc(total, sizeof(double));
    p->coeffs = skit_malloc(d, (2 * n - 1) * sizeof(double));
    if (!p->x || !p->xc || !p->y || !p->yc || !p->coeffs) return cli_failure("out of memory (n = %zu, d = %zu)", n, d);
    int rc = create_op(o, SKIT_TNO_FFT, p->causal, n, d, batch, 0, &p->ops[OP_TNO]);
    if (rc == CLI_OK) rc = create_op(o, SKIT_TNO_FD, p->causal, n, d, batch, 0, &p->ops[OP_FD]);
    if (rc == CLI_OK) rc = create_op(o, SKIT_TNO_SKI, p->causal, n, d, batch, 0, &p->ops[OP_SKI]);
    if (rc == CLI_OK && p->causal) rc = create_op(o, SKIT_TNO_SKI, p->causal, n, d, batch, 1, &p->ops[OP_SKIB]);
    if (rc != CLI_OK) return rc;
    int status = skit_tno_plan_coeffs(p->ops[OP_TNO], p->coeffs);
    if (status == SKIT_OK)
        status = skit_toeplitz_plan_create(
            &p->mv, n, n, d,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                     .causality = p->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL},
            p->coeffs);
    if (status != SKIT_OK) return cli_library_error(status);
    skit_rng_fill_normal(rng, p->x, total);
    /* the same data channel-major for the matvec (and for the operators
     * when --layout channels) */
    for (size_t s = 0; s < batch; s++)
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < d; c++) p->xc[s * block + c * n + i] = p->x[s * block + i * d + c];
    return CLI_OK;
}

/* Sanity: max|TNO - matvec| / max|matvec|, the same matrices applied. */
static double point_tno_vs_matvec(point *p, const options *o)
{
    size_t n = p->n, d = p->d, block = n * d;
    skit_tno_plan_execute(p->ops[OP_TNO], o->layout == SKIT_TNO_ROWS ? p->x : p->xc, p->y, NULL);
    for (size_t s = 0; s < p->batch; s++)
        skit_toeplitz_plan_execute(p->mv, p->xc + s * block, n, p->yc + s * block, n, NULL);
    double worst = 0, scale = 0;
    for (size_t s = 0; s < p->batch; s++)
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < d; c++) {
                double ref = p->yc[s * block + c * n + i];
                double got = o->layout == SKIT_TNO_ROWS ? p->y[s * block + i * d + c] : p->y[s * block + c * n + i];
                worst = fmax(worst, fabs(got - ref));
                scale = fmax(scale, fabs(ref));
            }
    return scale > 0 ? worst / scale : worst;
}

/* The floor bodies of TNO (f = 0) or FD (f = 1), see the top: the RPE's
 * features, the per-channel transforms, the features' transforms, their
 * GEMM and the store of the d spectra. */
static int point_floor(point *p, const options *o, int f, skit_rng *rng)
{
    skit_tno_plan *op = p->ops[f ? OP_FD : OP_TNO];
    char text[512];
    skit_tno_plan_describe(op, text, sizeof text);
    const char *at = strstr(text, "fft=");
    const size_t N = at ? (size_t)strtoull(at + 4, NULL, 10) : 0, h = o->rpe_width, d = p->d;
    p->floor_at[f] = p->nbodies;
    p->bodies[p->nbodies++] = (body){.kind = BODY_RPE, .op = op};
    p->has_route[f] = N > 0 && (f == 0 || p->causal);
    if (!p->has_route[f]) return CLI_OK;
    /* TNO: r2c of d kernels, or of h+1 rows, then d x (h+1) times
     * (h+1) x 2 (N/2+1); causal FD: Hilbert steps (r2c + c2r) of d
     * responses, or of h features, then d x h times h x (N/2+1) */
    const size_t inner = f == 0 ? h + 1 : h, cols = f == 0 ? 2 * (N / 2 + 1) : N / 2 + 1;
    int st = bench_fftw_create(&p->tf[f], N, SKIT_PLANNER_DEFAULT);
    if (st == SKIT_ENOMEM) return cli_failure("out of memory (transforms of length %zu)", N);
    if (st != SKIT_OK) return cli_failure("FFTW could not plan transforms of length %zu", N);
    skit_rng_fill_normal(rng, p->tf[f].real, (size_t)p->tf[f].buffers * p->tf[f].real_stride);
    p->gemm_a[f] = skit_malloc(d, inner * sizeof(double));
    p->gemm_b[f] = skit_malloc(inner, cols * sizeof(double));
    p->gemm_c[f] = skit_malloc(d, cols * sizeof(double));
    if (!p->gemm_a[f] || !p->gemm_b[f] || !p->gemm_c[f])
        return cli_failure("out of memory (GEMM floor, %zu x %zu)", d, cols);
    skit_rng_fill_uniform(rng, p->gemm_a[f], d * inner, -0.125, 0.125);
    skit_rng_fill_uniform(rng, p->gemm_b[f], inner * cols, 0.0, 1.0);
    p->bodies[p->nbodies++] = (body){.kind = BODY_FFTS, .tf = &p->tf[f], .count = d, .pairs = f == 1};
    p->bodies[p->nbodies++] = (body){.kind = BODY_FFTS, .tf = &p->tf[f], .count = inner, .pairs = f == 1};
    p->bodies[p->nbodies++] = (body){.kind = BODY_GEMM, .A = p->gemm_a[f], .B = p->gemm_b[f], .C = p->gemm_c[f],
                                     .rows = d, .inner = inner, .cols = cols};
    /* the per-channel way also stores the d spectra (the GEMM writes its own) */
    p->bodies[p->nbodies++] = (body){.kind = BODY_STORE, .C = p->gemm_c[f], .rows = d, .cols = cols};
    return CLI_OK;
}

/* The bodies: the matvec, forward and apply of every operator, the floors. */
static int point_bodies(point *p, const options *o, skit_rng *rng)
{
    const double *xin = o->layout == SKIT_TNO_ROWS ? p->x : p->xc;
    p->nbodies = 2 * (size_t)p->nops - 1;
    p->bodies[0] = (body){.kind = BODY_MATVEC, .matvec = p->mv, .x = p->xc, .y = p->yc, .n = p->n, .d = p->d,
                          .batch = p->batch};
    for (int k = 1; k < p->nops; k++) {
        p->bodies[2 * k - 1] = (body){.kind = BODY_FORWARD, .op = p->ops[k], .x = xin, .y = p->y};
        p->bodies[2 * k] = (body){.kind = BODY_APPLY, .op = p->ops[k], .x = xin, .y = p->y};
    }
    int rc = CLI_OK;
    for (int f = 0; f < 2 && rc == CLI_OK; f++) rc = point_floor(p, o, f, rng);
    return rc;
}

/* The results from the per-round times t of the bodies: medians and
 * per-round ratios over the matvec (and over TNO's forward); for TNO and
 * FD the RPE, the cheaper way to the spectra and the floors. */
static void point_results(const point *p, double t[][MAX_ROUNDS], size_t rounds, result *res)
{
    for (int k = 0; k < NOPS; k++)
        res->forward[k] = res->apply[k] = res->bytes[k] = res->fwd_matvec[k] = res->app_matvec[k] =
            res->fwd_tno[k] = res->rpe[k] = res->xform[k] = res->rpe_matvec[k] = res->floor_matvec[k] =
                res->rpe_floor_matvec[k] = NAN;
    for (int k = 0; k < p->nops; k++) {
        size_t fb = k ? 2 * (size_t)k - 1 : 0, ab = k ? 2 * (size_t)k : 0;
        res->forward[k] = median_of(t[fb], rounds);
        res->apply[k] = median_of(t[ab], rounds);
        res->fwd_matvec[k] = paired_ratio(t[fb], t[0], rounds);
        res->app_matvec[k] = paired_ratio(t[ab], t[0], rounds);
        res->fwd_tno[k] = paired_ratio(t[fb], t[2 * OP_TNO - 1], rounds);
    }
    for (int f = 0; f < 2; f++) {
        const size_t rb = p->floor_at[f], ab = rb + 1, fb = rb + 2, gb = rb + 3, sb = rb + 4;
        const int k = f ? OP_FD : OP_TNO;
        double way[MAX_ROUNDS], sum[MAX_ROUNDS];
        res->rpe[k] = median_of(t[rb], rounds);
        res->rpe_matvec[k] = paired_ratio(t[rb], t[0], rounds);
        /* per round, the cheaper way to the spectra (0 without one) */
        for (size_t r = 0; r < rounds; r++)
            way[r] = p->has_route[f] ? MIN(t[ab][r] + t[sb][r], t[fb][r] + t[gb][r]) : 0.0;
        res->xform[k] = median_of(way, rounds);
        for (size_t r = 0; r < rounds; r++) sum[r] = t[0][r] + way[r];
        res->floor_matvec[k] = paired_ratio(sum, t[0], rounds);
        for (size_t r = 0; r < rounds; r++) sum[r] += t[rb][r];
        res->rpe_floor_matvec[k] = paired_ratio(sum, t[0], rounds);
    }
    double io = 2.0 * (double)(p->n * p->d * p->batch) * sizeof(double);
    res->bytes[OP_MATVEC] = (double)skit_toeplitz_plan_bytes(p->mv) + io;
    for (int k = 1; k < p->nops; k++) res->bytes[k] = (double)skit_tno_plan_bytes(p->ops[k]) + io;
}

static int measure_point(const options *o, int sweep, int causal, size_t n, size_t d, size_t batch,
                         skit_rng *rng, result *res)
{
    memset(res, 0, sizeof *res);
    res->sweep = sweep;
    res->causal = causal;
    res->n = n;
    res->d = d;
    res->batch = batch;
    res->rank = MIN(o->rank, n);
    point p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.d = d;
    p.batch = batch;
    p.causal = causal;
    p.nops = causal ? NOPS : NOPS - 1;
    int rc = point_create(&p, o, rng);
    if (rc == CLI_OK) {
        res->tno_vs_matvec = point_tno_vs_matvec(&p, o);
        rc = point_bodies(&p, o, rng);
    }
    if (rc == CLI_OK) {
        /* a rough single-call time decides how many rounds the big shapes get */
        double t0 = skit_clock_seconds();
        for (size_t k = 0; k < p.nbodies; k++) run_body(&p.bodies[k]);
        double once = skit_clock_seconds() - t0;
        size_t rounds = (once > 1.4 || sweep) ? MIN(o->samples, (size_t)3) : o->samples;
        if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
        double t[2 * NOPS - 1 + 10][MAX_ROUNDS];
        measure_interleaved(p.bodies, p.nbodies, o->min_time, rounds, t);
        point_results(&p, t, rounds, res);
    }
    point_free(&p);
    return rc;
}

/* ---- targets and claims ------------------------------------------------------ */

/* Lines are collected and written both to the TSV header and to stderr. */
typedef struct report {
    char lines[32][600];
    size_t count;
} report;

static void say(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(report *r, const char *fmt, ...)
{
    if (r->count >= 32) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->lines[r->count++], sizeof r->lines[0], fmt, ap);
    va_end(ap);
}

/* the first --shapes result (else sweep result) with this n and causality */
static const result *find(const result *res, size_t count, size_t n, int causal)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < count; i++)
            if (res[i].sweep == pass && res[i].n == n && res[i].causal == causal) return &res[i];
    return NULL;
}

static void shape_text(const result *r, char *text, size_t size)
{
    snprintf(text, size, "n=%zu d=%zu batch=%zu %s", r->n, r->d, r->batch, r->causal ? "causal" : "bidirectional");
}

/* The targets of TNO and FD-TNO over the --shapes rows, each with the
 * measured floor of the same shapes. */
static void evaluate_targets(const result *res, size_t count, report *rep)
{
    char list[400];
    const struct {
        int op, causal; /* causal -1: both */
        int forward;
        double limit;
        const char *what;
    } targets[] = {
        {OP_TNO, -1, 1, 1.5, "TNO forward (RPE + decay + kernel FFT + mixing) <= 1.5x bare matvec"},
        {OP_TNO, -1, 0, 1.5, "TNO apply (cached kernels) <= 1.5x bare matvec"},
        {OP_FD, 1, 1, 1.25, "FD-TNO causal forward (MLP + Hilbert step + mixing) <= 1.25x bare matvec"},
        {OP_FD, 1, 0, 1.25, "FD-TNO causal apply (cached spectra) <= 1.25x bare matvec"},
    };
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        size_t met = 0, seen = 0;
        double worst = 0;
        list[0] = '\0';
        for (size_t i = 0; i < count; i++) {
            const result *r = &res[i];
            if (r->sweep || (targets[t].causal >= 0 && r->causal != targets[t].causal)) continue;
            double v = targets[t].forward ? r->fwd_matvec[targets[t].op] : r->app_matvec[targets[t].op];
            seen++;
            met += v <= targets[t].limit;
            worst = fmax(worst, v);
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%zu%s %.2fx", len ? ", " : "", r->n, r->causal ? "c" : "b", v);
        }
        if (seen)
            say(rep, "target: %s: %s (%zu of %zu shapes; worst %.2fx; %s)", targets[t].what,
                met == seen ? "met" : "not met", met, seen, worst, list);
        if (!seen || !targets[t].forward) continue;
        /* the measured floor of the same shapes: where it exceeds the
         * limit, no forward pass that makes its spectra by FFTs can meet
         * the target, however fast its RPE */
        size_t reachable = 0;
        list[0] = '\0';
        for (size_t i = 0; i < count; i++) {
            const result *r = &res[i];
            if (r->sweep || (targets[t].causal >= 0 && r->causal != targets[t].causal)) continue;
            const int k = targets[t].op;
            reachable += r->floor_matvec[k] <= targets[t].limit;
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%zu%s %.2fx (+RPE %.2fx)", len ? ", " : "", r->n,
                     r->causal ? "c" : "b", r->floor_matvec[k], r->rpe_floor_matvec[k]);
        }
        say(rep, "floor: %s forward >= matvec + %s, bare, the cheaper way, measured in the same rounds (RPE not "
                 "counted): %.2fx is reachable at %zu of %zu shapes (floor / matvec; with the RPE's features as "
                 "the plan evaluates them: %s)",
            targets[t].op == OP_FD ? "FD-TNO causal" : "TNO",
            targets[t].op == OP_FD ? "the Hilbert steps (d FFT pairs and a store of their images, or h pairs and "
                                     "the GEMM of the images)"
                                   : "the kernel spectra's FFTs (d r2c and a store of the spectra, or h+1 r2c "
                                     "and the spectra GEMM)",
            targets[t].limit, reachable, seen, list);
    }
}

/* SKI-TNO's target: faster than the bare matvec at the long --shapes. */
static void evaluate_ski_target(const result *res, size_t count, report *rep)
{
    char list[400] = "";
    size_t met = 0, seen = 0;
    for (size_t i = 0; i < count; i++) {
        const result *r = &res[i];
        if (r->sweep || r->causal || r->n < 8192) continue;
        double v = r->fwd_matvec[OP_SKI];
        seen++;
        met += v < 1;
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%sn=%zu %.3fx", len ? ", " : "", r->n, v);
    }
    if (seen)
        say(rep, "target: SKI-TNO bidirectional forward faster than the bare matvec at n >= 8192: %s (%zu of "
                 "%zu; %s)", met == seen ? "met" : "not met", met, seen, list);
}

/* The papers' claims (their numbers: training steps on A100 GPUs). */
static void evaluate_claims(const result *res, size_t count, report *rep)
{
    char where[96];
    const result *c512 = find(res, count, 512, 1), *b512 = find(res, count, 512, 0);
    const result *b2048 = find(res, count, 2048, 0), *c2048 = find(res, count, 2048, 1);
    if (c512) {
        double speedup = 1 / c512->fwd_tno[OP_FD] - 1;
        shape_text(c512, where, sizeof where);
        say(rep, "claim: FD-TNO causal faster than TNO (paper: +10-15%% it/s, training steps, A100): %s, "
                 "measured speedup %+.0f%% (forward TNO %.3g s / FD %.3g s, %s)",
            speedup >= 0.10 ? "reproduced" : "not reproduced", 100 * speedup, c512->forward[OP_TNO],
            c512->forward[OP_FD], where);
    }
    if (b512) {
        double speedup = 1 / b512->fwd_tno[OP_FD] - 1;
        shape_text(b512, where, sizeof where);
        say(rep, "claim: FD-TNO bidirectional faster than TNO (paper: +35-80%% it/s, training steps, A100): %s, "
                 "measured speedup %+.0f%% (forward TNO %.3g s / FD %.3g s, %s)",
            speedup >= 0.35 ? "reproduced" : "not reproduced", 100 * speedup, b512->forward[OP_TNO],
            b512->forward[OP_FD], where);
    }
    if (b512 && b2048) {
        double r1 = 1 - b512->fwd_tno[OP_SKI];
        double r2 = 1 - b2048->fwd_tno[OP_SKI];
        say(rep, "claim: SKI-TNO 25-30%% less time than TNO at n = 512 and 2048 (paper: per training step, "
                 "A100): %s, measured time reduction %.0f%% (n=512, d=%zu) and %.0f%% (n=2048, d=%zu)",
            (r1 >= 0.25 && r2 >= 0.25) ? "reproduced" : "not reproduced", 100 * r1, b512->d, 100 * r2, b2048->d);
    }
    if (c512 && c2048) {
        double q1 = c512->fwd_tno[OP_SKI], q2 = c2048->fwd_tno[OP_SKI];
        double m1 = c512->fwd_matvec[OP_SKI], m2 = c2048->fwd_matvec[OP_SKI];
        say(rep, "claim: causal SKI by cumulative sums slower than the FFT TNO up to n = 2048 (paper: V100/A10/A100): "
                 "%s, causal SKI / TNO forward %.2fx (n=512), %.2fx (n=2048); / bare matvec %.2fx, %.2fx",
            (q1 > 1 && q2 > 1) ? "reproduced" : "not reproduced", q1, q2, m1, m2);
        say(rep, "beyond the paper: causal SKI with the sums grouped by interpolation bracket (O(n + r^2) per "
                 "channel) / TNO forward %.2fx (n=512), %.2fx (n=2048); / bare matvec %.2fx, %.2fx",
            c512->fwd_tno[OP_SKIB], c2048->fwd_tno[OP_SKIB], c512->fwd_matvec[OP_SKIB], c2048->fwd_matvec[OP_SKIB]);
    }
}

static void evaluate(const result *res, size_t count, report *rep)
{
    evaluate_targets(res, count, rep);
    evaluate_ski_target(res, count, rep);
    evaluate_claims(res, count, rep);
}

/* ---- output -------------------------------------------------------------------- */

static const char *const columns[] = {"section", "operator", "causality", "n", "d", "batch", "rank",
                                      "forward_s", "apply_s", "forward_over_matvec", "apply_over_matvec",
                                      "forward_over_tno", "plan_bytes", "memory_bytes", "tno_vs_matvec", "rpe_s",
                                      "transforms_s", "rpe_over_matvec", "floor_over_matvec",
                                      "rpe_floor_over_matvec", NULL};

/* The rows of one result (only operator `only` if >= 0). */
static void write_rows(cli_table *t, const result *r, int only)
{
    for (int k = 0; k < NOPS; k++) {
        if (only >= 0 && k != only) continue;
        if (k == OP_SKIB && !r->causal) continue;
        double io = 2.0 * (double)(r->n * r->d * r->batch) * sizeof(double);
        cli_table_rowf(t, "%s\t%s\t%s\t%zu\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.4g\t%.4g\t%.4g\t%.0f\t%.0f\t%.3g\t%.6g\t%.6g\t%.4g\t%.4g\t%.4g",
                       r->sweep ? "sweep" : "shape", op_names[k], r->causal ? "causal" : "bidirectional", r->n,
                       r->d, r->batch, k >= OP_SKI ? r->rank : (size_t)0, r->forward[k], r->apply[k],
                       r->fwd_matvec[k], r->app_matvec[k], r->fwd_tno[k], r->bytes[k] - io, r->bytes[k],
                       k == OP_TNO ? r->tno_vs_matvec : 0.0, r->rpe[k], r->xform[k], r->rpe_matvec[k],
                       r->floor_matvec[k], r->rpe_floor_matvec[k]);
    }
}

static void slopes(const result *res, size_t count, report *rep)
{
    for (int causal = 0; causal < 2; causal++) {
        char text[400];
        size_t len = 0;
        text[0] = '\0';
        for (int k = 0; k < NOPS; k++) {
            if (k == OP_SKIB && !causal) continue;
            double xs[64], ts[64];
            size_t m = 0;
            for (size_t i = 0; i < count && m < 64; i++)
                if (res[i].sweep && res[i].causal == causal) {
                    xs[m] = (double)res[i].n;
                    ts[m++] = res[i].forward[k];
                }
            if (m < 2) return;
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s %.2f", k ? ", " : "", op_names[k],
                                    bench_loglog_slope(xs, ts, m));
            if (len >= sizeof text) break;
        }
        say(rep, "sweep %s: log-log slope of forward time vs n: %s", causal ? "causal" : "bidirectional", text);
    }
}

/* The header of the table: the operators' settings and the machine's load. */
static void tno_header(cli_table *t, const options *o)
{
    double load = bench_load_average();
    const char *wait_policy = getenv("OMP_WAIT_POLICY");
    int passive = wait_policy && !strcasecmp(wait_policy, "passive");
    int busy = bench_threads() > 1 && load >= 0.5 && !passive;
    if (busy && !o->common.quiet)
        fprintf(stderr, "%s: warning: load average %.2f on %d cores before the run: with %d threads, OpenMP "
                        "barriers spin and stall when other processes hold the cores; compare ratios from a quiet "
                        "machine, or run with OMP_WAIT_POLICY=passive or --threads 1\n", cli_context(), load, bench_cores(), bench_threads());
    bench_machine_header(t, &o->common, "float64");
    cli_table_comment(t, "threads: %d; layout: %s; RPE MLP 1->%zu, %zu hidden layers, ReLU, RMS norm; "
                         "decay %g; SKI r = %zu (capped at n), %zu taps, %zu knots per side, linear "
                         "interpolation; FD fft length: next power of two >= 2n",
                      bench_threads(), o->layout == SKIT_TNO_ROWS ? "rows (batch, n, d)" : "channels (batch, d, n)",
                      o->rpe_width, o->rpe_layers, o->decay, o->rank, o->taps, o->knots);
    cli_table_comment(t, "load average before the run: %.2f on %d cores; OMP_WAIT_POLICY=%s%s", load,
                      bench_cores(), wait_policy ? wait_policy : "(default)",
                      busy ? " (multi-threaded timings with spinning barriers are unreliable beside other "
                             "busy processes)"
                           : "");
    cli_table_comment(
        t, "matvec: skit_toeplitz_plan_execute, per-channel, channel-major, TNO's coefficients "
           "precomputed; forward: skit_tno_plan_forward (kernels recomputed from the parameters, "
           "then applied); apply: skit_tno_plan_execute (cached kernels); ratios over the matvec "
           "time; memory_bytes = plan_bytes + input + output arrays; tno_vs_matvec: "
           "max|TNO - matvec| / max|matvec| (same matrices)");
    cli_table_comment(t, "ski causal = cumulative sums of ski-to-go-faster Appendix B (O(n r) per channel); "
                         "ski-blocked (causal only) = the same masked product with the sums grouped by "
                         "interpolation bracket (O(n + r^2) per channel)");
}

/* Every --shapes point (its rows added as measured), then every sweep
 * point, each causality selected; res[*count] onwards. */
static int tno_measure(const options *o, cli_table *t, result *res, size_t *count)
{
    skit_rng rng;
    skit_rng_seed(&rng, o->common.seed);
    cli_progress_start(&o->common);
    for (int pass = 0; pass < 2; pass++) {
        size_t npass = pass ? o->nsweep : o->nshapes;
        for (size_t i = 0; i < npass; i++)
            for (int causal = 0; causal < 2; causal++) {
                if (!o->causal[causal]) continue;
                size_t n = pass ? o->sweep[i] : o->shapes[i].n;
                size_t d = pass ? o->sweep_d : o->shapes[i].d;
                size_t batch = pass ? 1 : o->shapes[i].batch;
                cli_progress("%s n = %zu, d = %zu, batch = %zu, %s", pass ? "sweep" : "shape", n, d, batch,
                             causal ? "causal" : "bidirectional");
                int rc = measure_point(o, pass, causal, n, d, batch, &rng, &res[*count]);
                if (rc != CLI_OK) return rc;
                if (!pass) write_rows(t, &res[*count], -1);
                (*count)++;
            }
    }
    cli_progress_done();
    /* sweep rows grouped by causality and operator, n ascending within a
     * group, so that plotted series are contiguous lines */
    for (int causal = 0; causal < 2; causal++)
        for (int op = 0; op < NOPS; op++)
            for (size_t i = 0; i < *count; i++)
                if (res[i].sweep && res[i].causal == causal) write_rows(t, &res[i], op);
    return CLI_OK;
}

/* The floor line of skit's float32 forwards, then (unless --no-peer) the
 * PyTorch peer, at the --shapes, skit's plans with this run's settings
 * (the peer's own are TNN's defaults: RPE 64 x 3, decay 0.99, r = 64, 17
 * taps) */
static int run_peer(const options *o, cli_table *t)
{
    skit_tno_options base;
    skit_tno_options_default(&base, SKIT_TNO_FFT);
    base.layout = o->layout;
    base.rpe_width = o->rpe_width;
    base.rpe_layers = o->rpe_layers;
    base.decay = o->decay;
    base.rank = o->rank;
    base.taps = o->taps;
    base.knots = o->knots;
    if (o->rpe_width != 64 || o->rpe_layers != 3 || o->decay != 0.99 || o->rank != 64 || o->taps != 17)
        cli_table_note(t, "peer: the PyTorch peer uses RPE 64 x 3, decay 0.99, r = 64, 17 taps; this run's "
                          "settings differ, so its ratios compare different operators");
    int rc = bench_tno_floor(o->shapes_text, &base, o->common.seed, o->common.quiet, t);
    return rc == CLI_OK && o->peer ? bench_tno_peer(o->shapes_text, &base, o->common.seed, o->common.quiet, t) : rc;
}

int bench_tno(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != CLI_OK) {
        free_options(&o);
        return rc == CLI_HELP ? CLI_OK : rc;
    }
#ifdef OPENBLAS_VERSION
    /* one thread pool: the RPE's GEMMs are split over the OpenMP threads by
     * the library (lib/tno/tno.c) instead of running on OpenBLAS's own
     * threads, whose spinning would compete with OpenMP's for the cores */
    openblas_set_num_threads(1);
#endif
    cli_apply_threads(&o.common);
    size_t points = (o.nshapes + o.nsweep) * 2, count = 0;
    result *res = calloc(points, sizeof *res);
    if (!res) {
        free_options(&o);
        return cli_failure("out of memory");
    }
    cli_table t;
    cli_table_init(&t, columns);
    tno_header(&t, &o);
    rc = tno_measure(&o, &t, res, &count);
    if (rc == CLI_OK) {
        report rep;
        rep.count = 0;
        evaluate(res, count, &rep);
        slopes(res, count, &rep);
        say(&rep, "note: the papers' speed numbers are whole training steps (forward + backward of every layer) "
                  "on A100 GPUs; these are single forward operators on this CPU with %d threads", bench_threads());
        for (size_t i = 0; i < rep.count; i++) {
            cli_table_note(&t, "%s", rep.lines[i]);
            if (!o.common.quiet) fprintf(stderr, "%s: %s\n", cli_context(), rep.lines[i]);
        }
        rc = run_peer(&o, &t);
    }
    if (rc == CLI_OK) {
        rc = cli_table_emit(&t, &o.common, argc, argv,
                            "seconds per call for the whole batch; bytes; ratios dimensionless", "tno_bench", NULL);
    }
    cli_table_free(&t);
    free(res);
    free_options(&o);
    return rc;
}
