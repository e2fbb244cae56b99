/* bench_precision.c — `skit bench precision`: float32 against float64 plans
 * of the same operator in one run, timed interleaved (bench_measure_
 * interleaved: load changes hit both alike), with the float32 result's
 * error against the float64 one and, where the kernel is known exactly
 * (Toeplitz, TNO), against the documented bound
 *     ||y32 - y64||_2 <= 20 log2(2N) 2^-24 ||k_c||_1 ||x_c||_2,
 * for SKI-TNO against skit/tno.h's (skit_tno_plan_f32_error_scale), for
 * the SKI and FD-TNO plans against skit/ski.h's and skit/freq.h's.
 * Operators: the Toeplitz FFT matvec (per-channel matrices), the SKI plan
 * (W A_c W^T) and the FD-TNO plan of skit/freq.h (both causalities), TNO,
 * FD-TNO and SKI-TNO (bidirectional and causal) execute and forward
 * (update + execute), and exact and MRA-2 attention (float64 and float32
 * attention plans, held to the entry-wise bounds of skit/attention.h).
 * Every row also gives the two plans' bytes (their _plan_bytes), and a note
 * after the table says whether every float32 plan holds at most 0.55 x the
 * float64 plan's bytes: a float32 plan's point is half the memory traffic,
 * so one that keeps float64 state is a regression even where it is fast. */
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
    "the Toeplitz FFT matvec (d per-channel matrices), the SKI plan (W A W^T, linear\n"
    "W, r = min(64, n)) and the FD-TNO plan (random response, bidirectional and\n"
    "causal) at the --sizes; TNO / FD-TNO / SKI-TNO (ROWS layout, bidirectional and\n"
    "causal; SKI: r = min(64, n), 17 taps, 32 knots), execute and forward (update +\n"
    "execute), at the --shapes; exact and MRA-2 attention (block 32) at the\n"
    "--attention sizes.\n"
    "Every row gives both plans' bytes and their ratio; a note after the table says\n"
    "whether every float32 plan holds at most 0.55x the float64 plan's bytes.\n\n"
    "  --sizes LIST        Toeplitz, SKI plan and FD-TNO plan n (default 2^10..2^18;\n"
    "                      the SKI and FD-TNO plans 2^10..2^16)\n"
    "  --d D               their channels (default 64)\n"
    "  --shapes LIST       TNO shapes n:d:batch (default 512:512:4,2048:512:1,\n"
    "                      8192:128:1,32768:64:1)\n"
    "  --attention LIST    attention n, head and value dimension 64 (default\n"
    "                      1024,2048,4096; MRA-2 where 32 divides n)\n"
    "  --rounds R          interleaved rounds, median taken (default 7, <= 15)\n"
    "  --quick             one small size and shape, 3 rounds (a smoke run)\n" CLI_COMMON_HELP
        CLI_PLANNER_HELP("measure: the plan is reused")
    "  -h, --help          this message\n";

/* The bytes target: a float32 plan holds at most this fraction of the
 * float64 plan's bytes (the SKI and FD-TNO plans' tests hold them to it). */
#define BYTES_TARGET 0.55

/* One run: the table, the timing settings, and the bytes target over the
 * rows written so far. */
typedef struct run {
    cli_table table;
    size_t rounds;
    skit_rng rng;
    size_t rows, met;
    double worst;
    char worst_at[96], over[2048];
} run;

/* What a row measured: operator, causality, call and shape. */
typedef struct row {
    const char *op, *causality, *call;
    size_t n, d, batch;
} row;

/* One row of the table from the two plans' medians, errors and bytes; the
 * bytes count towards the target. */
static void emit(run *r, const row *w, const double median[2], double rel, double over, size_t bytes64,
                 size_t bytes32)
{
    double ratio = bytes64 ? (double)bytes32 / (double)bytes64 : NAN;
    cli_table_rowf(&r->table, "%s\t%s\t%s\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.3f\t%.3g\t%.3g\t%zu\t%zu\t%.3f", w->op,
                   w->causality, w->call, w->n, w->d, w->batch, median[0], median[1], median[0] / median[1], rel, over,
                   bytes64, bytes32, ratio);
    char at[96];
    snprintf(at, sizeof at, "%s %s %s %zu:%zu:%zu", w->op, w->causality, w->call, w->n, w->d, w->batch);
    r->rows++;
    if (ratio <= BYTES_TARGET) r->met++;
    else {
        size_t len = strlen(r->over);
        if (len + sizeof at + 16 < sizeof r->over)
            snprintf(r->over + len, sizeof r->over - len, "%s%s %.2f", len ? ", " : "", at, ratio);
        else if (len + 5 < sizeof r->over && strcmp(r->over + len - 3, "...") != 0)
            snprintf(r->over + len, sizeof r->over - len, ", ...");
    }
    if (r->rows == 1 || !(ratio <= r->worst)) {
        r->worst = ratio;
        snprintf(r->worst_at, sizeof r->worst_at, "%s", at);
    }
}

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

/* A SKI or FD-TNO plan of one precision on n x d column-major x and y. */
typedef struct plan_body {
    const void *plan;
    const void *x;
    void *y;
    size_t n;
    int f32;
} plan_body;

static void run_ski_plan(void *p)
{
    plan_body *b = p;
    if (b->f32) skit_ski_plan_execute_f32(b->plan, b->x, b->n, b->y, b->n);
    else skit_ski_plan_execute(b->plan, b->x, b->n, b->y, b->n);
}

static void run_fdtno_plan(void *p)
{
    plan_body *b = p;
    if (b->f32) skit_fdtno_plan_execute_f32(b->plan, b->x, b->n, b->y, b->n, NULL);
    else skit_fdtno_plan_execute(b->plan, b->x, b->n, b->y, b->n, NULL);
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

/* Median seconds per call of a float64 and a float32 body, interleaved. */
static void measure(const run *r, bench_fn f64, void *b64, bench_fn f32, void *b32, double median[2])
{
    bench_fn fns[2] = {f64, f32};
    void *ctx[2] = {b64, b32};
    bench_measure_interleaved(fns, ctx, 2, 0.05, r->rounds, median);
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

/* An operator's x and y in both precisions, count values each. */
typedef struct io_pair {
    double *x64, *y64;
    float *x32, *y32;
} io_pair;

static int io_pair_alloc(io_pair *io, size_t count)
{
    io->x64 = skit_malloc(count, sizeof(double));
    io->y64 = skit_malloc(count, sizeof(double));
    io->x32 = skit_malloc(count, sizeof(float));
    io->y32 = skit_malloc(count, sizeof(float));
    return io->x64 && io->y64 && io->x32 && io->y32 ? SKIT_OK : SKIT_ENOMEM;
}

static void io_pair_free(io_pair *io)
{
    skit_free(io->x64);
    skit_free(io->y64);
    skit_free(io->x32);
    skit_free(io->y32);
}

static int time_toeplitz(run *r, size_t n, size_t d)
{
    const size_t per = 2 * n - 1;
    double *coeffs = skit_malloc(per * d, sizeof(double)), *norms = skit_malloc(d, sizeof(double));
    io_pair io;
    skit_toeplitz_plan *p64 = NULL, *p32 = NULL;
    int status = io_pair_alloc(&io, n * d) == SKIT_OK && coeffs && norms ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        skit_rng_fill_normal(&r->rng, coeffs, per * d);
        random_pair(&r->rng, n * d, io.x32, io.x64);
        skit_toeplitz_options o;
        skit_toeplitz_options_default(&o);
        status = skit_toeplitz_plan_create(&p64, n, n, d, &o, coeffs);
        o.precision = SKIT_PRECISION_F32;
        if (status == SKIT_OK) status = skit_toeplitz_plan_create(&p32, n, n, d, &o, coeffs);
    }
    if (status == SKIT_OK) {
        bench_matvec b64 = {p64, io.x64, io.y64, n};
        toeplitz_f32 b32 = {p32, io.x32, io.y32, n};
        double median[2], rel, over;
        measure(r, bench_run_matvec, &b64, run_toeplitz_f32, &b32, median);
        for (size_t c = 0; c < d; c++) {
            norms[c] = 0;
            for (size_t k = 0; k < per; k++) norms[c] += fabs(coeffs[c * per + k]);
        }
        fft_units(norms, d, skit_toeplitz_plan_fft_length(p32));
        errors(io.y32, io.y64, io.x32, d, n, n, 1, norms, &rel, &over);
        emit(r, &(row){"toeplitz", "bidirectional", "execute", n, d, 1}, median, rel, over,
             skit_toeplitz_plan_bytes(p64), skit_toeplitz_plan_bytes(p32));
    }
    skit_toeplitz_plan_destroy(p64);
    skit_toeplitz_plan_destroy(p32);
    skit_free(coeffs);
    io_pair_free(&io);
    skit_free(norms);
    return status;
}

/* The bound of skit_ski_plan_execute_f32 (skit/ski.h) per channel, per
 * unit ||x_c|| (it is not linear in x: this x_c's bound over its norm, so
 * that errors() takes it as the others), with ||W||_2 <= sqrt(||W||_1
 * ||W||_inf): a larger, still valid bound. N: A's FFT length. NULL out of
 * memory. */
static double *ski_plan_units(const skit_interp_weights *W, const double *coeffs, const double *x, size_t d,
                              size_t N)
{
    const size_t n = W->n, rank = W->r, width = W->width, per = 2 * rank - 1;
    double *units = skit_malloc(d, sizeof(double)), *col = skit_calloc(4 * rank, sizeof(double));
    size_t *count = skit_calloc(rank, sizeof(size_t));
    if (!units || !col || !count) {
        skit_free(units);
        skit_free(col);
        skit_free(count);
        return NULL;
    }
    double *U = col + rank, *Ua = U + rank, *V = Ua + rank; /* W^T x, |W|^T |x|, A U */
    double w1 = 0, winf = 0;
    size_t m = 0; /* the most rows whose window holds one inducing point */
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t k = 0; k < width; k++) {
            double w = fabs(W->weights[i * width + k]);
            sum += w;
            col[W->start[i] + k] += w;
            count[W->start[i] + k]++;
        }
        winf = fmax(winf, sum);
    }
    for (size_t j = 0; j < rank; j++) {
        w1 = fmax(w1, col[j]);
        m = count[j] > m ? count[j] : m;
    }
    const double u = 0x1p-24, w2 = sqrt(w1 * winf), fft = 20.0 * log2(2.0 * (double)N) * u;
    for (size_t c = 0; c < d; c++) {
        const double *a = coeffs + c * per, *xc = x + c * n;
        double a1 = 0, un = 0, uan = 0, wv = 0, xx = 0;
        memset(U, 0, 2 * rank * sizeof *U);
        for (size_t i = 0; i < n; i++) {
            xx += xc[i] * xc[i];
            for (size_t k = 0; k < width; k++) {
                double w = W->weights[i * width + k];
                U[W->start[i] + k] += w * xc[i];
                Ua[W->start[i] + k] += fabs(w * xc[i]);
            }
        }
        for (size_t k = 0; k < per; k++) a1 += fabs(a[k]);
        for (size_t i = 0; i < rank; i++) {
            V[i] = 0;
            for (size_t j = 0; j < rank; j++) V[i] += a[i - j + rank - 1] * U[j];
            un += U[i] * U[i];
            uan += Ua[i] * Ua[i];
        }
        for (size_t i = 0; i < n; i++) {
            double s = 0;
            for (size_t k = 0; k < width; k++) s += fabs(W->weights[i * width + k] * V[W->start[i] + k]);
            wv += s * s;
        }
        double eU = (2.0 * (double)m + 1) * u * sqrt(uan);
        double bound = 1.01 * (w2 * (a1 * eU + fft * a1 * (sqrt(un) + eU)) + ((double)width + 1) * u * sqrt(wv));
        units[c] = bound / sqrt(xx);
    }
    skit_free(col);
    skit_free(count);
    return units;
}

/* The SKI plan W A_c W^T of skit/ski.h: linear W (the default
 * interpolation), r = min(64, n) inducing points, random coefficients. */
static int time_ski_plan(run *r, size_t n, size_t d)
{
    const size_t rank = n < 64 ? n : 64, per = 2 * rank - 1;
    skit_interp_options interp;
    skit_interp_options_default(&interp, n);
    skit_interp_weights *W = NULL;
    skit_ski_plan *p64 = NULL, *p32 = NULL;
    double *coeffs = skit_malloc(per * d, sizeof(double));
    io_pair io;
    int status = io_pair_alloc(&io, n * d) == SKIT_OK && coeffs ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) status = skit_interp_weights_create(&W, n, NULL, rank, &interp);
    if (status == SKIT_OK) {
        skit_rng_fill_normal(&r->rng, coeffs, per * d);
        random_pair(&r->rng, n * d, io.x32, io.x64);
        skit_ski_options o;
        skit_ski_options_default(&o);
        status = skit_ski_plan_create(&p64, W, d, &o, coeffs);
        o.precision = SKIT_PRECISION_F32;
        if (status == SKIT_OK) status = skit_ski_plan_create(&p32, W, d, &o, coeffs);
    }
    size_t N = 0;
    if (status == SKIT_OK) status = skit_fft_good_length(per, &N); /* A's Toeplitz plan's length */
    if (status == SKIT_OK) {
        plan_body b64 = {p64, io.x64, io.y64, n, 0}, b32 = {p32, io.x32, io.y32, n, 1};
        double median[2], rel, over;
        measure(r, run_ski_plan, &b64, run_ski_plan, &b32, median);
        double *units = ski_plan_units(W, coeffs, io.x64, d, N);
        errors(io.y32, io.y64, io.x32, d, n, n, 1, units, &rel, &over);
        skit_free(units);
        emit(r, &(row){"ski-plan", "bidirectional", "execute", n, d, 1}, median, rel, over,
             skit_ski_plan_bytes(p64), skit_ski_plan_bytes(p32));
    }
    skit_ski_plan_destroy(p64);
    skit_ski_plan_destroy(p32);
    skit_interp_weights_destroy(W);
    skit_free(coeffs);
    io_pair_free(&io);
    return status;
}

/* The bound of skit_fdtno_plan_execute_f32 (skit/freq.h) per unit ||x_c||:
 * u (20 log2(2N) ||k_c||_1 + S_c), k_c the float64 plan's kernel. NULL
 * out of memory. */
static double *fd_plan_units(const skit_fdtno_plan *p64, size_t n, size_t d, skit_causality causality)
{
    const size_t N = skit_fdtno_plan_fft_length(p64);
    double *units = skit_malloc(d, sizeof(double)), *k = skit_malloc(N * d, sizeof(double));
    if (!units || !k || skit_fdtno_plan_impulse(p64, k, N) != SKIT_OK) {
        skit_free(units);
        skit_free(k);
        return NULL;
    }
    const double log_term = 20.0 * log2(2.0 * (double)N);
    for (size_t c = 0; c < d; c++) {
        double k1 = 0, k2 = 0;
        for (size_t t = 0; t < N; t++) {
            k1 += fabs(k[c * N + t]);
            k2 += k[c * N + t] * k[c * N + t];
        }
        double spectra = causality == SKIT_CAUSAL ? (log_term + 2) * sqrt((double)n) * sqrt(k2) : k1;
        units[c] = 0x1p-24 * (log_term * k1 + spectra);
    }
    skit_free(k);
    return units;
}

/* The FD-TNO plan of skit/freq.h with a random response (normal values,
 * the same for both precisions). */
static int time_fd_plan(run *r, size_t n, size_t d, skit_causality causality)
{
    skit_fdtno_options o;
    skit_fdtno_options_default(&o);
    o.causality = causality;
    skit_fdtno_plan *p64 = NULL, *p32 = NULL;
    int status = skit_fdtno_plan_create(&p64, n, d, &o);
    o.precision = SKIT_PRECISION_F32;
    if (status == SKIT_OK) status = skit_fdtno_plan_create(&p32, n, d, &o);
    const size_t values = status == SKIT_OK ? skit_fdtno_plan_grid_size(p64) * skit_fdtno_plan_response_width(p64) : 0;
    double *response = skit_malloc(values ? values : 1, sizeof(double));
    io_pair io;
    const int allocated = io_pair_alloc(&io, n * d) == SKIT_OK && response;
    if (status == SKIT_OK && !allocated) status = SKIT_ENOMEM;
    if (status == SKIT_OK) {
        skit_rng_fill_normal(&r->rng, response, values);
        status = skit_fdtno_plan_set_response(p64, response);
        if (status == SKIT_OK) status = skit_fdtno_plan_set_response(p32, response);
    }
    if (status == SKIT_OK) {
        random_pair(&r->rng, n * d, io.x32, io.x64);
        plan_body b64 = {p64, io.x64, io.y64, n, 0}, b32 = {p32, io.x32, io.y32, n, 1};
        double median[2], rel, over;
        measure(r, run_fdtno_plan, &b64, run_fdtno_plan, &b32, median);
        double *units = fd_plan_units(p64, n, d, causality);
        errors(io.y32, io.y64, io.x32, d, n, n, 1, units, &rel, &over);
        skit_free(units);
        emit(r, &(row){"fd-plan", causality == SKIT_CAUSAL ? "causal" : "bidirectional", "execute", n, d, 1}, median,
             rel, over, skit_fdtno_plan_bytes(p64), skit_fdtno_plan_bytes(p32));
    }
    skit_fdtno_plan_destroy(p64);
    skit_fdtno_plan_destroy(p32);
    skit_free(response);
    io_pair_free(&io);
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

static int time_tno(run *r, skit_tno_kind kind, skit_causality causality, const size_t shape[3])
{
    const size_t n = shape[0], d = shape[1], batch = shape[2], total = n * d * batch;
    io_pair io;
    skit_tno_plan *p64 = NULL, *p32 = NULL;
    int status = io_pair_alloc(&io, total);
    skit_tno_options o;
    skit_tno_options_default(&o, kind);
    o.causality = causality;
    o.rank = o.rank < n ? o.rank : n;
    if (status == SKIT_OK) status = skit_tno_plan_create(&p64, n, d, batch, &o, NULL, 0);
    o.precision = SKIT_PRECISION_F32;
    if (status == SKIT_OK) status = skit_tno_plan_create(&p32, n, d, batch, &o, NULL, 0);
    if (status == SKIT_OK) random_pair(&r->rng, total, io.x32, io.x64);
    for (int forward = 0; forward < 2 && status == SKIT_OK; forward++) {
        tno_body b64 = {p64, io.x64, io.y64, 0, forward}, b32 = {p32, io.x32, io.y32, 1, forward};
        double median[2], rel, over;
        measure(r, run_tno, &b64, run_tno, &b32, median);
        double *units = tno_units(p64, p32, kind, n, d);
        rel = 0;
        over = units ? 0 : NAN;
        /* ROWS layout: channel c of sequence b at b*n*d + c, stride d */
        for (size_t s = 0; s < batch; s++) {
            double e, v;
            errors(io.y32 + s * n * d, io.y64 + s * n * d, io.x32 + s * n * d, d, n, 1, d, units, &e, &v);
            rel = fmax(rel, e);
            if (units) over = fmax(over, v);
        }
        skit_free(units);
        emit(r,
             &(row){skit_tno_kind_name(kind), causality == SKIT_CAUSAL ? "causal" : "bidirectional",
                    forward ? "forward" : "execute", n, d, batch},
             median, rel, over, skit_tno_plan_bytes(p64), skit_tno_plan_bytes(p32));
    }
    skit_tno_plan_destroy(p64);
    skit_tno_plan_destroy(p32);
    io_pair_free(&io);
    return status;
}

/* Largest |y32 - y64| over the entry-wise bound of a float32 plan
 * (skit/attention.h). block 0, exact: G_i <= scale ||q_i||_2 max_j
 * ||k_j||_2 (Cauchy-Schwarz: a larger, still valid bound) and t >= 16.
 * block > 0, MRA-2: G = scale sum_c max_i |q_ic| max_j |k_jc|, a bound for
 * the same refined squares only (the caller checks). */
static double attention_over_bound(size_t n, size_t d, size_t block, const double *q, const double *k,
                                   const double *v, const float *y32, const double *y64)
{
    const double u = 0x1p-24, scale = 1.0 / sqrt((double)d);
    double *vmax = skit_calloc(d, sizeof(double)), kmax = 0, G = 0, over = 0;
    if (!vmax) return NAN;
    for (size_t c = 0; c < d; c++) {
        double qc = 0, kc = 0;
        for (size_t j = 0; j < n; j++) {
            vmax[c] = fmax(vmax[c], fabs(v[j + c * n]));
            qc = fmax(qc, fabs(q[j + c * n]));
            kc = fmax(kc, fabs(k[j + c * n]));
        }
        G += scale * qc * kc;
    }
    for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (size_t c = 0; c < d; c++) s += k[j + c * n] * k[j + c * n];
        kmax = fmax(kmax, sqrt(s));
    }
    for (size_t i = 0; i < n; i++) {
        double eta, tail;
        if (block) {
            eta = u * (((double)d + 2.0 * (double)block + 10) * G + 3.0 * (double)(n / block) + 6);
            tail = ((double)n + 2.0 * (double)block + 4) * u;
        } else {
            double s = 0;
            for (size_t c = 0; c < d; c++) s += q[i + c * n] * q[i + c * n];
            eta = u * (((double)d + 6) * scale * sqrt(s) * kmax + 3.0 * (double)((n + 15) / 16) + 4);
            tail = ((double)n + 4) * u;
        }
        for (size_t c = 0; c < d; c++)
            over = fmax(over, fabs((double)y32[i + c * n] - y64[i + c * n]) / ((2.1 * eta + tail) * vmax[c]));
    }
    skit_free(vmax);
    return over;
}

/* Whether the float64 and float32 MRA plans refine the same squares for
 * these q, k (their float32 bound holds only then). */
static int same_squares(const skit_attention_plan *p64, const skit_attention_plan *p32, size_t squares,
                        const double *q64, const double *k64, const float *q32, const float *k32, size_t n)
{
    unsigned char *refined = skit_malloc(2 * squares, 1);
    int same = refined && skit_attention_plan_select(p64, q64, n, k64, n, NULL, refined) == SKIT_OK &&
               skit_attention_plan_select_f32(p32, q32, n, k32, n, NULL, refined + squares) == SKIT_OK &&
               memcmp(refined, refined + squares, squares) == 0;
    skit_free(refined);
    return same;
}

/* Exact attention or MRA-2 (the default block and budget, the budget at
 * most every square) at n tokens, d = dv = 64, random normal Q, K, V.
 * MRA-2 needs its block to divide n: other n give no row. */
static int time_attention(run *r, skit_attention_method method, size_t n)
{
    const size_t d = 64, total = n * d;
    skit_attention_options o;
    skit_attention_options_init(&o, method);
    const int mra = method == SKIT_ATTENTION_MRA2;
    if (mra && n % o.block) return SKIT_OK;
    if (mra && o.blocks_per_row[0] > n / o.block) o.blocks_per_row[0] = n / o.block;
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
    random_pair(&r->rng, 3 * total, x32, x64); /* q, k, v; y after them */
    attention_body b64 = {p64, n, x64, x64 + total, x64 + 2 * total, x64 + 3 * total, 0};
    attention_body b32 = {p32, n, x32, x32 + total, x32 + 2 * total, x32 + 3 * total, 1};
    double median[2], rel, over = NAN;
    measure(r, run_attention, &b64, run_attention, &b32, median);
    const size_t squares = mra ? (n / o.block) * (n / o.block) : 0;
    if (!mra || same_squares(p64, p32, squares, x64, x64 + total, x32, x32 + total, n))
        over = attention_over_bound(n, d, mra ? o.block : 0, x64, x64 + total, x64 + 2 * total, x32 + 3 * total,
                                    x64 + 3 * total);
    errors(x32 + 3 * total, x64 + 3 * total, x32, d, n, n, 1, NULL, &rel, &(double){0});
    emit(r, &(row){"attention", "bidirectional", mra ? "mra2" : "exact", n, d, 1}, median, rel, over,
         skit_attention_plan_bytes(p64), skit_attention_plan_bytes(p32));
    skit_attention_plan_destroy(p64);
    skit_attention_plan_destroy(p32);
    skit_free(x64);
    skit_free(x32);
    return SKIT_OK;
}

/* The bytes target's line, after the table. A report, never a failure. */
static void bytes_note(run *r, int quiet)
{
    if (!r->rows) return;
    char line[2400];
    snprintf(line, sizeof line,
             "bytes target: every float32 plan <= %.2fx the float64 plan's bytes: %s (%zu of %zu rows; worst %.2f at "
             "%s): %s",
             BYTES_TARGET, r->met == r->rows ? "met" : "not met", r->met, r->rows, r->worst, r->worst_at,
             r->over[0] ? r->over : "none over");
    cli_table_note(&r->table, "%s", line);
    if (!quiet) fprintf(stderr, "%s: %s\n", cli_context(), line);
}

typedef struct precision_options {
    cli_common common;
    size_t *sizes, nsizes, *plan_sizes, nplan_sizes, d, rounds, *attention, nattention;
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
    o->sizes_text = NULL;
    o->shapes_text = "512:512:4,2048:512:1,8192:128:1,32768:64:1";
    o->attention_text = "1024,2048,4096";
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    /* without --sizes the SKI and FD-TNO plans stop at 2^16: the largest
     * lengths add memory and minutes, not a different ratio */
    const char *sizes = o->sizes_text ? o->sizes_text : "2^10..2^18";
    const char *plan_sizes = o->sizes_text ? o->sizes_text : "2^10..2^16";
    const char *shapes = o->shapes_text, *attention = o->attention_text;
    if (cli_parse_size_list("--sizes", sizes, 1, (size_t)1 << 24, &o->sizes, &o->nsizes) != CLI_OK) return CLI_USAGE;
    if (cli_parse_size_list("--sizes", plan_sizes, 1, (size_t)1 << 24, &o->plan_sizes, &o->nplan_sizes) != CLI_OK)
        return CLI_USAGE;
    if (parse_shapes(shapes, o) != CLI_OK) return CLI_USAGE;
    if (cli_parse_size_list("--attention", attention, 1, 16384, &o->attention, &o->nattention) != CLI_OK)
        return CLI_USAGE;
    return cli_common_validate(&o->common) == CLI_OK ? CLI_OK : CLI_USAGE;
}

static void free_options(precision_options *o)
{
    free(o->sizes);
    free(o->plan_sizes);
    free(o->attention);
}

static void header(run *r, const precision_options *o)
{
    char model[256], isa[256];
    bench_cpu_description(model, sizeof model, isa, sizeof isa);
    cli_table_comment(&r->table, "machine: %s; ISA: %s; %d threads of %d cores; load average %.2f at the start",
                      model, isa, bench_threads(), bench_cores(), bench_load_average());
    cli_table_comment(&r->table, "planner: %s (fftw and fftwf alike); times: median over %zu interleaved rounds of "
                      "f64 and f32 (seconds per call)", bench_planner_text(&o->common), o->rounds);
    cli_table_comment(&r->table, "max_rel_error: max over channels of ||y32 - y64|| / ||y64||; error_over_bound: "
                      "||y32 - y64|| over the documented bound: toeplitz, tno: ||y32 - y64|| / (20 log2(2N) 2^-24 "
                      "||k||_1 ||x||), the float products' part of it (TNO's whole bound, skit/tno.h, has the growth "
                      "20 log2(2N) + 2(h+1) + 4(L+3) and adds its float32 RPE's M_c to ||k||_1); ski: its whole "
                      "bound, (20 log2(2N) + 2r + 2h + m + 12) 2^-24 s_c ||x||, skit/tno.h; ski-plan, fd-plan: their "
                      "whole bounds, skit/ski.h and skit/freq.h; fd: nan, kernel not known; attention: max entry "
                      "|y32 - y64| over the entry-wise bound of the float32 exact or MRA-2 plan, skit/attention.h "
                      "(mra2: nan where the two precisions refine different squares; d = dv, d = 64 in the column d)");
    cli_table_comment(&r->table, "f64_bytes, f32_bytes: the bytes each plan holds (skit_*_plan_bytes: spectra, "
                      "tables, parameters and the scratch it lends; not the caller's x and y); bytes_ratio: "
                      "f32_bytes / f64_bytes, the target %.2f or less", BYTES_TARGET);
}

int bench_precision(int argc, char **argv)
{
    precision_options o = {.d = 64, .rounds = 7};
    cli_common_init(&o.common);
    bench_planner_defaults(&o.common); /* the plans are reused: MEASURE, as every bench */
    int rc = parse(argc, argv, &o);
    if (rc != CLI_OK) {
        free_options(&o);
        return rc == CLI_HELP ? CLI_OK : rc;
    }
    cli_apply_threads(&o.common);
    static const char *const names[] = {"operator", "causality", "call", "n", "d", "batch", "f64_s", "f32_s",
                                        "f32_speedup", "max_rel_error", "error_over_bound", "f64_bytes", "f32_bytes",
                                        "bytes_ratio", NULL};
    run r = {.rounds = o.rounds};
    cli_table_init(&r.table, names);
    header(&r, &o);
    skit_rng_seed(&r.rng, o.common.seed);
    const int quiet = o.common.quiet;
    int status = SKIT_OK;
    for (size_t i = 0; i < o.nsizes && status == SKIT_OK; i++) {
        if (!quiet) fprintf(stderr, "%s: toeplitz n = %zu\n", cli_context(), o.sizes[i]);
        status = time_toeplitz(&r, o.sizes[i], o.d);
    }
    for (size_t i = 0; i < o.nplan_sizes && status == SKIT_OK; i++) {
        const size_t n = o.plan_sizes[i];
        if (!quiet) fprintf(stderr, "%s: ski-plan, fd-plan n = %zu\n", cli_context(), n);
        if (n >= 2) status = time_ski_plan(&r, n, o.d); /* SKI needs r >= 2 tokens */
        if (status == SKIT_OK) status = time_fd_plan(&r, n, o.d, SKIT_BIDIRECTIONAL);
        if (status == SKIT_OK) status = time_fd_plan(&r, n, o.d, SKIT_CAUSAL);
    }
    static const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI};
    for (size_t s = 0; s < o.nshapes && status == SKIT_OK; s++)
        for (size_t k = 0; k < 3 && status == SKIT_OK; k++)
            for (int causal = 0; causal < 2 && status == SKIT_OK; causal++) {
                if (kinds[k] == SKIT_TNO_SKI && o.shapes[s][0] < 2) continue; /* SKI needs r >= 2 tokens */
                if (!quiet)
                    fprintf(stderr, "%s: %s %zu:%zu:%zu\n", cli_context(), skit_tno_kind_name(kinds[k]),
                            o.shapes[s][0], o.shapes[s][1], o.shapes[s][2]);
                status = time_tno(&r, kinds[k], causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL, o.shapes[s]);
            }
    for (size_t i = 0; i < o.nattention && status == SKIT_OK; i++) {
        if (!quiet) fprintf(stderr, "%s: attention exact, mra2 n = %zu\n", cli_context(), o.attention[i]);
        status = time_attention(&r, SKIT_ATTENTION_EXACT, o.attention[i]);
        if (status == SKIT_OK) status = time_attention(&r, SKIT_ATTENTION_MRA2, o.attention[i]);
    }
    if (status == SKIT_OK) bytes_note(&r, quiet);
    rc = status == SKIT_OK ? cli_table_emit(&r.table, &o.common, argc, argv, "seconds; bytes", NULL, NULL)
                           : cli_library_error(status);
    cli_table_free(&r.table);
    free_options(&o);
    return rc;
}
