/* mra_sweep.c — `skit mra sweep` (relative error, time and memory of every
 * method at every budget, n and temperature; Table 7, Figures 4-5) and
 * `skit mra workload` (the budget each method needs for a target error;
 * Figure 7). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mra.h"

/* CPU seconds of the whole process (every thread): a measure of work that,
 * unlike wall time, barely moves when other programs share the cores. */
static double cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return NAN;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* tau whose mean row entropy is target (the library's bisection); a target
 * out of reach is bad input. */
static int temperature_for_entropy(const mra_inputs *in, double scale0, double target, double *tau,
                                   double *reached)
{
    double hmax = log((double)in->n);
    /* each bisection step is the entropy of every row: ~2 n^2 d flops, ~60 steps */
    cli_progress_cost(120.0 * (double)in->n * (double)in->n * (double)in->d, "temperature for entropy %g, n = %zu",
                      target, in->n);
    if (target >= hmax)
        return cli_usage_error("--entropy = %g out of range: need < log n (= %.4g) at n = %zu", target,
                               hmax, in->n);
    int st = skit_attention_temperature_for_entropy(in->n, in->d, in->q, in->n, in->k, in->n, scale0,
                                                    target, tau, reached);
    if (st == SKIT_ENOCONV) return cli_usage_error("--entropy: %s", skit_last_error());
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

/* ---- sweep --------------------------------------------------------------------- */

static const char *const sweep_columns[] = {
    "method", "n", "d", "dv", "temperature", "scale", "entropy", "budget", "parameter",
    "work_fraction", "rel_error", "time_s", "cpu_s", "exact_time_s", "plan_bytes", "peak_rss_bytes", NULL};

/* A --budget given that rounds to no MRA block per row would silently be
 * one block: refused, with the smallest budget that makes one. */
static int check_budget_blocks(const mra_options *o, size_t n, size_t block)
{
    for (size_t i = 0; o->budget_given && i < o->nbudget; i++)
        if (o->budget[i] * (double)(n / block) < 0.5)
            return cli_usage_error("--budget = %g rounds to 0 MRA blocks per row at n = %zu with block "
                                   "%zu (%zu blocks per row): need a budget >= %g there",
                                   o->budget[i], n, block, n / block, 0.5 / (double)(n / block));
    return CLI_OK;
}

/* Checks the sweep's method/size combinations before any work. */
static int check_sweep(const mra_options *o, const size_t *ns, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        size_t n = ns[i];
        for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++) {
            if (!o->methods[m]) continue;
            if ((m == SKIT_ATTENTION_MRA2 || m == SKIT_ATTENTION_MRA2_SPARSE)) {
                size_t s0 = o->nscales ? o->scales[0] : o->block[0];
                if (o->nscales) {
                    if (o->nscales < 2 || o->nscales > SKIT_MRA_MAX_LEVELS)
                        return cli_usage_error("--scales: expected 2 to %d scales, got %zu",
                                               SKIT_MRA_MAX_LEVELS, o->nscales);
                    for (size_t l = 1; l < o->nscales; l++)
                        if (o->scales[l] >= o->scales[l - 1] || o->scales[l - 1] % o->scales[l])
                            return cli_usage_error("--scales: each scale must be smaller than and "
                                                   "divide the one before (%zu, %zu)",
                                                   o->scales[l - 1], o->scales[l]);
                }
                if (s0 < 2 || s0 > n || n % s0)
                    return cli_usage_error("--n = %zu is not a multiple of the MRA block %zu "
                                           "(--block/--scales): need n divisible by it",
                                           n, s0);
                if (check_budget_blocks(o, n, s0) != CLI_OK) return CLI_USAGE;
            }
            if (m == SKIT_ATTENTION_BIGBIRD && o->block[0] > n)
                return cli_usage_error("--block = %zu out of range for bigbird: need <= n (= %zu)",
                                       o->block[0], n);
            if (m == SKIT_ATTENTION_LOWRANK && n > 4096)
                return cli_usage_error("--n = %zu too large for lowrank (an SVD of the n x n matrix): "
                                       "need n <= 4096",
                                       n);
            if (m == SKIT_ATTENTION_LINFORMER_FIT && n > 8192)
                return cli_usage_error("--n = %zu too large for linformer-fit (its fit forms the n x n "
                                       "matrix): need n <= 8192",
                                       n);
            if (m == SKIT_ATTENTION_TOPK && n > 8192)
                return cli_usage_error("--n = %zu too large for topk (forms the n x n matrix): need "
                                       "n <= 8192",
                                       n);
        }
    }
    return CLI_OK;
}

/* One temperature of the sweep at one n: the inputs, the exact output y
 * (the reference), a buffer yh for the approximations, and what every row
 * records about the temperature. */
typedef struct sweep_point {
    const mra_inputs *in;
    double *y, *yh;
    double tau, scale, entropy, exact_time;
    double *y_all;  /* --y-out: every run's output, run r at rows r*n.. (ld y_rows) */
    size_t y_rows, run;
    float *q32, *k32, *v32, *y32; /* --precision f32: the inputs rounded, an output */
} sweep_point;

/* The plan of options mo run --repeat times (the minimum wall and CPU
 * time) into p->yh (a float32 plan on p's float inputs, its output
 * widened); *bytes: the plan's memory. Library status. */
static int sweep_plan(const mra_options *o, const sweep_point *p, const skit_attention_options *mo,
                      double *best, double *best_cpu, skit_attention_stats *stats, size_t *bytes)
{
    const mra_inputs *in = p->in;
    size_t n = in->n;
    const int f32 = mo->precision == SKIT_PRECISION_F32;
    skit_attention_plan *plan = NULL;
    int st = skit_attention_plan_create(&plan, n, in->d, in->dv, mo);
    /* the fit is linformer-fit's training: outside the timed runs */
    if (st == SKIT_OK && mo->method == SKIT_ATTENTION_LINFORMER_FIT)
        st = skit_attention_plan_fit(plan, in->q, n, in->k, n, in->mask);
    for (size_t r = 0; r < o->repeat && st == SKIT_OK; r++) {
        double c0 = cpu_seconds(), s0 = skit_clock_seconds();
        st = f32 ? skit_attention_plan_execute_f32(plan, p->q32, n, p->k32, n, p->v32, n, in->mask, p->y32, n, stats)
                 : skit_attention_plan_execute(plan, in->q, n, in->k, n, in->v, n, in->mask, p->yh, n, stats);
        *best = fmin(*best, skit_clock_seconds() - s0);
        *best_cpu = fmin(*best_cpu, cpu_seconds() - c0);
    }
    for (size_t i = 0; f32 && st == SKIT_OK && i < n * in->dv; i++) p->yh[i] = p->y32[i];
    *bytes = skit_attention_plan_bytes(plan);
    skit_attention_plan_destroy(plan);
    return st;
}

/* The row of method m at budget fraction f: its plan (float32 with
 * --precision f32) run --repeat times, its error against y. */
/* A method's output from finite inputs must be finite: where it is not,
 * the computation overflowed (float32's range is the usual reason), and
 * its error against the reference would read nan. */
static int check_output(const mra_options *o, int m, size_t n, size_t dv, const double *yh)
{
    for (size_t i = 0; i < n * dv; i++)
        if (!isfinite(yh[i]))
            return cli_failure("%s: the output has non-finite values (overflow): Q, K or V too large%s",
                               skit_attention_method_name(m),
                               o->precision == SKIT_PRECISION_F32 ? " for float32 (run with --precision f64)" : "");
    return CLI_OK;
}

static int sweep_row(const mra_options *o, cli_table *t, const sweep_point *p, int m, double f)
{
    const mra_inputs *in = p->in;
    size_t n = in->n, d = in->d, dv = in->dv;
    skit_attention_options mo;
    double param = 0;
    int st = mra_method_options(o, m, n, f, &mo, &param);
    mo.scale = p->scale;
    mo.device = o->device ? SKIT_DEVICE_CUDA : SKIT_DEVICE_CPU;
    mo.precision = o->precision;
    cli_progress("n = %zu, tau = %g, %s, budget %g", n, p->tau, skit_attention_method_name(m), f);
    if (st != SKIT_OK) return cli_library_error(st);
    double best = INFINITY, best_cpu = INFINITY;
    skit_attention_stats stats;
    size_t bytes = 0;
    st = sweep_plan(o, p, &mo, &best, &best_cpu, &stats, &bytes);
    if (st != SKIT_OK) return cli_library_error(st);
    if (check_output(o, m, n, dv, p->yh) != CLI_OK) return CLI_FAILED;
    double err;
    skit_attention_relative_error(n, dv, p->yh, n, p->y, n, &err);
    for (size_t c = 0; p->y_all && c < dv; c++)
        memcpy(p->y_all + p->run * n + c * p->y_rows, p->yh + c * n, n * sizeof(double));
    cli_table_rowf(t, "%s\t%zu\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%zu\t%zu%s",
                   skit_attention_method_name(m), n, d, dv, p->tau, p->scale, p->entropy, f, param,
                   stats.work_fraction, err, best, best_cpu, p->exact_time, bytes, skit_memory_peak_rss(),
                   in->label);
    return CLI_OK;
}

/* Temperature ti (given, or the one of entropy target ti): exact attention
 * (timed once), then every method at every budget. */
static int sweep_temperature(const mra_options *o, cli_table *t, sweep_point *p, size_t ti)
{
    const mra_inputs *in = p->in;
    size_t n = in->n, d = in->d, dv = in->dv;
    double scale0 = mra_base_scale(o, d);
    p->entropy = 0;
    if (o->entropy) {
        int status = temperature_for_entropy(in, scale0, o->entropy[ti], &p->tau, &p->entropy);
        if (status != CLI_OK) return status;
    } else {
        p->tau = o->temperature[ti];
    }
    p->scale = scale0 / p->tau;
    skit_attention_mask mask = {in->mask, o->causal};
    /* the entropy (2 n^2 d) and the exact reference (2 n^2 (d + dv)): before the first method's line */
    cli_progress_cost(2.0 * (double)n * (double)n * (double)(2 * d + dv), "exact reference, n = %zu, d = %zu", n, d);
    int st = skit_attention_entropy_masked(n, d, in->q, n, in->k, n, p->scale, &mask, NULL, &p->entropy);
    double t0 = skit_clock_seconds();
    if (st == SKIT_OK)
        st = skit_attention_exact_masked(n, d, dv, in->q, n, in->k, n, in->v, n, p->scale, &mask, p->y, n);
    p->exact_time = skit_clock_seconds() - t0;
    if (st != SKIT_OK) return cli_library_error(st);
    int status = CLI_OK;
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT && status == CLI_OK; m++) {
        if (!o->methods[m]) continue;
        size_t nb = m == SKIT_ATTENTION_EXACT ? 1 : o->per_row ? o->nper_row : o->nbudget;
        for (size_t bi = 0; bi < nb && status == CLI_OK; bi++) {
            /* a per-row budget beyond the row length does not exist at this n */
            if (m != SKIT_ATTENTION_EXACT && o->per_row && o->per_row[bi] > n) continue;
            double f = m == SKIT_ATTENTION_EXACT ? 1.0
                       : o->per_row               ? (double)o->per_row[bi] / (double)n
                                                  : o->budget[bi];
            status = sweep_row(o, t, p, m, f);
        }
    }
    return status;
}

/* Every temperature of run r (the inputs in); y_all, y_rows: see sweep_point. */
/* --precision f32: p's float copies of the inputs and its float output.
 * CLI status. */
static int sweep_f32_buffers(const mra_inputs *in, sweep_point *p)
{
    size_t n = in->n, d = in->d, dv = in->dv;
    p->q32 = malloc(n * d * sizeof(float));
    p->k32 = malloc(n * d * sizeof(float));
    p->v32 = malloc(n * dv * sizeof(float));
    p->y32 = malloc(n * dv * sizeof(float));
    if (!p->q32 || !p->k32 || !p->v32 || !p->y32)
        return cli_failure("out of memory for the float32 inputs at n = %zu", n);
    for (size_t i = 0; i < n * d; i++) p->q32[i] = (float)in->q[i], p->k32[i] = (float)in->k[i];
    for (size_t i = 0; i < n * dv; i++) p->v32[i] = (float)in->v[i];
    return CLI_OK;
}

static int sweep_inputs(const mra_options *o, cli_table *t, const mra_inputs *in, size_t nt,
                        double *first_tau, double *y_all, size_t y_rows, size_t r)
{
    size_t n = in->n, dv = in->dv;
    sweep_point p = {in, malloc(n * dv * sizeof(double)), malloc(n * dv * sizeof(double)), 0, 0, 0, 0,
                     y_all, y_rows, r, NULL, NULL, NULL, NULL};
    int status = p.y && p.yh ? CLI_OK : cli_failure("out of memory at n = %zu", n);
    if (status == CLI_OK && o->precision == SKIT_PRECISION_F32) status = sweep_f32_buffers(in, &p);
    for (size_t ti = 0; ti < nt && status == CLI_OK; ti++) {
        size_t rows = cli_table_rows(t);
        status = sweep_temperature(o, t, &p, ti);
        if (!rows && cli_table_rows(t)) *first_tau = p.tau;
    }
    free(p.y);
    free(p.yh);
    free(p.q32);
    free(p.k32);
    free(p.v32);
    free(p.y32);
    return status;
}

static int sweep_emit(const mra_options *o, cli_table *t, int argc, char **argv, int files, size_t file_n,
                      double first_tau)
{
    char vars[1024], methods[512] = "", tsel[48] = "1";
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
        if (o->methods[m] && m != SKIT_ATTENTION_EXACT) {
            strcat(methods, skit_attention_method_name(m));
            strcat(methods, " ");
        }
    if (cli_table_rows(t)) snprintf(tsel, sizeof tsel, "%.6g", first_tau);
    snprintf(vars, sizeof vars, "methods='%s'; nsel=%zu; tsel='%s'", methods, files ? file_n : o->n[0], tsel);
    const char *comments[] = {
        files ? "inputs: Q, K, V from .npy files (layer, head: the head of a stack)"
              : "inputs: synthetic (skit_attention_synthetic)",
        "rel_error = ||Yhat - Y||_F / ||Y||_F against blocked exact attention (same scale)",
        "entropy = mean row entropy of softmax(scale Q K^T) (nats); budget = fraction f of n^2",
        "parameter: mra blocks per row, rank/landmarks/k/features, topk nonzeros, window "
        "half-width, bigbird random blocks",
        NULL};
    for (size_t i = 0; comments[i]; i++) cli_table_comment(t, "%s", comments[i]);
    cli_table_comment(t, "generator: beta %g, locality %g, noise %g, sinks %zu, sink strength %g, block %zu",
                      o->spec.inverse_temperature, o->spec.correlation_length, o->spec.noise, o->spec.sinks,
                      o->spec.sink_strength, o->block[0]);
    if (o->precision == SKIT_PRECISION_F32)
        cli_table_comment(t, "precision: float32 (exact, mra2, mra2s on Q, K, V rounded to float; sgemm, "
                             "float tiles: float32 plans); rel_error and exact_time_s: float64 "
                             "exact attention");
    if (o->device) {
        char status_line[256];
        skit_cuda_status(status_line, sizeof status_line);
        cli_table_comment(t, "device: %s (float64; time_s includes the host<->device transfers)", status_line);
    }
    return mra_emit(t, &o->common,
                    "time_s: wall seconds, cpu_s: CPU seconds of all threads (each the minimum "
                    "of --repeat runs; exact_time_s: one run); plan_bytes, peak_rss_bytes: "
                    "bytes; entropy: nats",
                    NULL, argc, argv, "mra_sweep", vars);
}

/* --y-out: the outputs of every run in the shape of V's stack (or of the
 * chosen heads, or n x dv for synthetic inputs). */
static int write_y_out(const mra_options *o, const mra_stack *s, const double *y, size_t runs, size_t n,
                       size_t dv)
{
    size_t shape[SKIT_NPY_MAX_DIMS] = {n, dv, 1, 1};
    int ndim = 2;
    if (o->qpath && o->heads) {
        shape[0] = runs, shape[1] = n, shape[2] = dv;
        ndim = 3;
    } else if (o->qpath) {
        memcpy(shape, s->vshape, sizeof shape);
        ndim = s->vndim;
    }
    if (o->precision != SKIT_PRECISION_F32) {
        int st = skit_npy_write_nd(o->y_out, y, runs * n, shape, ndim);
        return st == SKIT_OK ? CLI_OK : cli_library_error(st);
    }
    /* float32 outputs, held as doubles: written '<f4' exactly */
    float *y32 = malloc(runs * n * dv * sizeof(float) + 1);
    if (!y32) return cli_failure("out of memory for --y-out");
    for (size_t i = 0; i < runs * n * dv; i++) y32[i] = (float)y[i];
    int st = skit_npy_write_nd_f32(o->y_out, y32, runs * n, shape, ndim);
    free(y32);
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

int mra_sweep(mra_options *o, int argc, char **argv)
{
    int files = o->qpath != NULL;
    mra_stack stack;
    memset(&stack, 0, sizeof stack);
    if (files && mra_load_stack(o, 1, &stack) != CLI_OK) return CLI_USAGE;
    if (check_sweep(o, files ? &stack.n : o->n, files ? 1 : o->nn) != CLI_OK) {
        mra_stack_free(&stack);
        return CLI_USAGE;
    }
    cli_table t;
    mra_table_init(&t, o, sweep_columns);
    double first_tau = 1, *y_all = NULL;
    int status = CLI_OK;
    size_t nruns = mra_run_count(o, &stack), nt = o->entropy ? o->nentropy : o->ntemperature;
    size_t n = files ? stack.n : o->n[0], dv = files ? stack.dv : o->dv;
    if (o->y_out && !(y_all = malloc(nruns * n * dv * sizeof *y_all))) status = cli_failure("out of memory");
    cli_progress_start(&o->common);
    for (size_t r = 0; r < nruns && status == CLI_OK; r++) {
        mra_inputs in;
        if ((status = mra_run_inputs(o, &stack, r, 1, &in)) != CLI_OK) break;
        status = sweep_inputs(o, &t, &in, nt, &first_tau, y_all, nruns * n, r);
        mra_inputs_free(&in);
    }
    cli_progress_done();
    if (status == CLI_OK && y_all) status = write_y_out(o, &stack, y_all, nruns, n, dv);
    if (status == CLI_OK) status = sweep_emit(o, &t, argc, argv, files, stack.n, first_tau);
    free(y_all);
    cli_table_free(&t);
    mra_stack_free(&stack);
    return status;
}

/* ---- workload (Figure 7) -------------------------------------------------------- */

/* lowrank and topk: the best possible budget of their kind for every target
 * (on the explicit softmax matrix, paper A.2), one row each. */
static int workload_best(const mra_options *o, cli_table *t, const mra_inputs *in, int m, double scale)
{
    size_t n = in->n;
    size_t *needed = malloc(o->ntargets * sizeof *needed);
    double *errors = malloc((n + 1) * sizeof *errors);
    if (!needed || !errors) {
        free(needed);
        free(errors);
        return cli_failure("out of memory");
    }
    int st = skit_attention_budget_needed(m, n, in->d, in->dv, in->q, n, in->k, n, in->v, n, scale, o->ntargets,
                                          o->targets, needed, m == SKIT_ATTENTION_LOWRANK ? errors : NULL);
    for (size_t t2 = 0; t2 < o->ntargets && st == SKIT_OK; t2++) {
        double work = m == SKIT_ATTENTION_LOWRANK ? 2.0 * (double)n * (double)needed[t2] : (double)needed[t2];
        double err = m == SKIT_ATTENTION_LOWRANK ? errors[needed[t2]] : o->targets[t2];
        cli_table_rowf(t, "%s\t%zu\t%.6g\t%zu\t%.6g\t%.6g\t%.6g%s", skit_attention_method_name(m), n,
                       o->targets[t2], needed[t2], work, work / ((double)n * (double)n), err, in->label);
    }
    free(needed);
    free(errors);
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

/* MRA: the smallest blocks per row reaching each target (plans from one
 * block per row up), one row each; y: the exact output, yh: scratch. */
static int workload_mra(const mra_options *o, cli_table *t, const mra_inputs *in, int m, double scale,
                        double *y, double *yh)
{
    size_t n = in->n, b = o->block[0];
    cli_progress_cost(2.0 * (double)n * (double)n * (double)(in->d + in->dv), "exact reference, n = %zu, d = %zu", n,
                      in->d);
    int st = skit_attention_exact(n, in->d, in->dv, in->q, n, in->k, n, in->v, n, scale, NULL, y, n);
    for (size_t t2 = 0; t2 < o->ntargets && st == SKIT_OK; t2++) {
        size_t rows = n / b, found = 0;
        double work = 0, err = 0;
        for (size_t bpr = 1; bpr <= rows && !found; bpr++) {
            skit_attention_options mo;
            skit_attention_options_init(&mo, m);
            mo.block = b;
            mo.blocks_per_row[0] = bpr;
            mo.scale = scale;
            mo.selection = o->selection ? SKIT_MRA_PER_ROW : SKIT_MRA_GLOBAL;
            skit_attention_plan *plan;
            skit_attention_stats stats;
            st = skit_attention_plan_create(&plan, n, in->d, in->dv, &mo);
            if (st == SKIT_OK)
                st = skit_attention_plan_execute(plan, in->q, n, in->k, n, in->v, n, NULL, yh, n,
                                                 &stats);
            skit_attention_plan_destroy(plan);
            if (st != SKIT_OK) break;
            skit_attention_relative_error(n, in->dv, yh, n, y, n, &err);
            if (err <= o->targets[t2]) {
                found = bpr;
                work = stats.entries;
            }
        }
        if (st == SKIT_OK)
            cli_table_rowf(t, "%s\t%zu\t%.6g\t%zu\t%.6g\t%.6g\t%.6g%s", skit_attention_method_name(m), n,
                           o->targets[t2], found, found ? work : NAN, found ? work / ((double)n * (double)n) : NAN,
                           err, in->label);
    }
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

int mra_workload(mra_options *o, int argc, char **argv)
{
    static const char *const cols[] = {"method", "n", "target", "budget", "workload",
                                       "work_fraction", "error", NULL};
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
        if (o->methods[m] && m != SKIT_ATTENTION_LOWRANK && m != SKIT_ATTENTION_TOPK &&
            m != SKIT_ATTENTION_MRA2 && m != SKIT_ATTENTION_MRA2_SPARSE)
            return cli_usage_error("--methods: workload supports lowrank, topk, mra2, mra2s, got %s",
                                   skit_attention_method_name(m));
    if (o->entropy) return cli_usage_error("--entropy does not apply to 'skit mra workload'");
    if (o->ntemperature > 1) return cli_usage_error("--temperature: workload takes one value");
    size_t b = o->block[0];
    mra_stack stack;
    memset(&stack, 0, sizeof stack);
    if (o->qpath && mra_load_stack(o, 1, &stack) != CLI_OK) return CLI_USAGE;
    size_t runs = mra_run_count(o, &stack);
    for (size_t i = 0; i < runs; i++) {
        size_t n = o->qpath ? stack.n : o->n[i];
        if ((o->methods[SKIT_ATTENTION_MRA2] || o->methods[SKIT_ATTENTION_MRA2_SPARSE]) && (n % b || n < 2 * b)) {
            mra_stack_free(&stack);
            return cli_usage_error("--n = %zu is not a multiple of the MRA block %zu (at least 2 blocks)", n, b);
        }
    }
    cli_table t;
    mra_table_init(&t, o, cols);
    int status = CLI_OK;
    cli_progress_start(&o->common);
    for (size_t r = 0; r < runs && status == CLI_OK; r++) {
        mra_inputs in;
        if ((status = mra_run_inputs(o, &stack, r, 1, &in)) != CLI_OK) break;
        size_t n = in.n, dv = in.dv;
        double scale = mra_base_scale(o, in.d) / o->temperature[0];
        double *y = malloc(n * dv * sizeof *y), *yh = malloc(n * dv * sizeof *yh);
        if (!y || !yh) status = cli_failure("out of memory");
        for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT && status == CLI_OK; m++) {
            if (!o->methods[m]) continue;
            cli_progress("n = %zu, run %zu, %s", n, r, skit_attention_method_name(m));
            if (m == SKIT_ATTENTION_LOWRANK || m == SKIT_ATTENTION_TOPK)
                status = workload_best(o, &t, &in, m, scale);
            else
                status = workload_mra(o, &t, &in, m, scale, y, yh);
        }
        free(y);
        free(yh);
        mra_inputs_free(&in);
    }
    mra_stack_free(&stack);
    cli_progress_done();
    if (status == CLI_OK) {
        const char *comments[] = {
            "budget: lowrank rank, topk nonzeros, mra blocks per row (0 = target not reached)",
            "workload: attention-matrix numbers computed: lowrank 2 n r (factors), topk nonzeros, "
            "mra coarse + exact entries",
            "lowrank/topk are the best possible of their kind on the explicit softmax matrix (paper "
            "A.2); error = relative output error ||Shat V - S V||_F / ||S V||_F",
            NULL};
        status = mra_emit(&t, &o->common, "workload: entries; error: relative", comments, argc, argv,
                          "mra_workload", NULL);
    }
    cli_table_free(&t);
    return status;
}
