/* bench_device.c — `skit bench device`: the same operators and shapes on the
 * CPU and on a CUDA device, measured in one run:
 *  - toeplitz:  batched Toeplitz FFT matvec, d channels with their own
 *               matrices (the TNO case), n x n, bidirectional or --causal;
 *               CPU = skit_toeplitz_plan_execute (FFTW, OpenMP over channels),
 *               GPU = skit_cuda_toeplitz_* (cuFFT);
 *  - attention: exact softmax attention, n queries and keys, head dim d;
 *               CPU = skit_attention_exact (blocked OpenBLAS GEMMs),
 *               GPU = skit_cuda_attention_* (cuBLAS GEMM per query tile);
 *  - mra:       MRA-2 at the attention sizes, block 32 (smaller for small n),
 *               8 blocks per row, global selection;
 *               CPU = skit_attention_plan (mra2), GPU = skit_cuda_mra_* (block
 *               kernels and cuBLAS; the selection on the host);
 *  - tno:       the token-mixing family TNO, FD-TNO and SKI-TNO (bidirectional
 *               SKI only; --causal makes TNO and FD-TNO causal) at the Toeplitz
 *               sizes and d, batch 1, (n, d) rows as PyTorch holds them;
 *               CPU = skit_tno_plan_execute, GPU = the same call on a plan
 *               with device = cuda (float64, host arrays: its only entry
 *               point, so only gpu_transfer_s is measured, by wall clock).
 *
 * GPU times come from CUDA events after a warm-up, as the median of several
 * samples: gpu_s with inputs and outputs already on the device, and
 * gpu_transfer_s through the host entry point (host double arrays in and
 * out, including both copies and, for float32, the conversion). floor_s is
 * bytes_moved / the device-to-device copy bandwidth measured in the same run
 * (read + write bytes per second): the time the operator could not beat if
 * it only had to stream its inputs and outputs once.
 *
 * Without a device (or in a build without CUDA) the line "cuda: not built" /
 * "cuda: no device (...)" goes to stderr and only the CPU side runs; asking
 * for the GPU explicitly (--device cuda) is then a usage error (exit 2). */
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
    "usage: skit bench device [options]\n"
    "Time the batched Toeplitz FFT matvec, exact attention, MRA-2 and the TNO family on\n"
    "the CPU and on a CUDA GPU in one run: GPU device-resident and including host<->device copies,\n"
    "beside the memory-bandwidth floor (bytes moved / measured device copy\n"
    "bandwidth). Writes a TSV (seconds per call) and prints the targets.\n\n"
    "options:\n"
    "  --device LIST       cpu, cuda or cpu,cuda (default: cpu, plus cuda when a\n"
    "                      device is present; naming cuda without one is an error)\n"
    "  --ops LIST          toeplitz, attention, mra, tno (default: all four; mra is\n"
    "                      MRA-2 at the attention sizes, 8 blocks of 32 per row;\n"
    "                      tno is TNO, FD-TNO and SKI-TNO at the Toeplitz sizes, float64)\n"
    "  --sizes LIST        Toeplitz n (default 2^10..2^16; --quick 2^10..2^12)\n"
    "  --channels D        Toeplitz channels d (default 64)\n"
    "  --causal            causal Toeplitz operators (default bidirectional)\n"
    "  --attention-sizes LIST  attention n (default 2^8..2^12; --quick 2^8..2^9)\n"
    "  --head-dim D        attention head dimension d = d_k = d_v (default 64)\n"
    "  --precision LIST    GPU precisions float64, float32 (default: both; the CPU\n"
    "                      path is float64)\n"
    "  --quick             a few seconds: small sizes, fewer samples\n" CLI_COMMON_HELP
    "\nexamples:\n"
    "  skit bench device -o device.tsv --plot device.png\n"
    "  skit bench device --device cuda --ops toeplitz --sizes 2^16 --precision float32\n"
    "  skit bench --device cpu,cuda -o device.tsv   (the same as 'skit bench device --device cpu,cuda')\n";

enum { OPT_DEVICE = 1, OPT_OPS, OPT_SIZES, OPT_CHANNELS, OPT_CAUSAL, OPT_ATT_SIZES, OPT_HEAD_DIM,
       OPT_PRECISION, OPT_QUICK };

static const char *const device_names[] = {"cpu", "cuda", NULL};
static const char *const op_names[] = {"toeplitz", "attention", "mra", "tno", NULL};
static const char *const precision_names[] = {"float64", "float32", NULL};

typedef struct options {
    cli_common common;
    int device[2], device_given;
    int ops[4];
    int precision[2];
    size_t *sizes, nsizes, *att_sizes, natt;
    size_t channels, head_dim;
    int causal, quick;
    double min_sample_s;
    size_t samples;
    double bandwidth; /* bytes/s, device-to-device copy, measured at start */
    int argc;
    char **argv;
} options;

/* One output row; NaN where not measured. */
typedef struct result {
    const char *op, *precision;
    double n, d, bytes, cpu_s, gpu_s, gpu_transfer_s, floor_s, gflops, rel_error;
} result;

static const char *const column_names[] = {
    "operator", "precision", "n", "d", "bytes_moved", "cpu_s", "gpu_s", "gpu_transfer_s",
    "floor_s", "gpu_over_floor", "cpu_over_gpu", "cpu_over_gpu_transfer", "gpu_gflops",
    "rel_error", NULL};

/* ---- timing ----------------------------------------------------------------------- */

/* Median over o->samples of the CUDA-event time per call, each sample
 * repeating the call enough times to last about o->min_sample_s. */
static int gpu_time(const options *o, skit_cuda_work work, void *context, double *median)
{
    double once = 0, times[16];
    int status = skit_cuda_time(work, context, 1, &once);
    if (status != SKIT_OK) return status;
    size_t repeats = bench_calls_per_sample(once, o->min_sample_s, 10000);
    size_t samples = o->samples < 16 ? o->samples : 16;
    for (size_t s = 0; s < samples; s++)
        if ((status = skit_cuda_time(work, context, repeats, &times[s])) != SKIT_OK) return status;
    *median = bench_median(times, samples);
    return SKIT_OK;
}

/* Host doubles -> new device array of `precision`. */
static int upload(const double *x, size_t count, skit_cuda_precision precision, void **dev)
{
    size_t elt = skit_cuda_precision_bytes(precision);
    int status = skit_cuda_malloc(dev, count * elt);
    if (status != SKIT_OK) return status;
    if (precision == SKIT_CUDA_FLOAT64) return skit_cuda_copy_to_device(*dev, x, count * elt);
    float *tmp = skit_malloc(count, sizeof(float));
    if (!tmp) return SKIT_ENOMEM;
    for (size_t i = 0; i < count; i++) tmp[i] = (float)x[i];
    status = skit_cuda_copy_to_device(*dev, tmp, count * elt);
    skit_free(tmp);
    return status;
}

static int download(double *x, const void *dev, size_t count, skit_cuda_precision precision)
{
    if (precision == SKIT_CUDA_FLOAT64) return skit_cuda_copy_to_host(x, dev, count * sizeof(double));
    float *tmp = skit_malloc(count, sizeof(float));
    if (!tmp) return SKIT_ENOMEM;
    int status = skit_cuda_copy_to_host(tmp, dev, count * sizeof(float));
    for (size_t i = 0; status == SKIT_OK && i < count; i++) x[i] = (double)tmp[i];
    skit_free(tmp);
    return status;
}

/* ---- Toeplitz ---------------------------------------------------------------------------- */

typedef struct toeplitz_ctx {
    const skit_toeplitz_plan *cpu;
    const skit_cuda_toeplitz_plan *gpu;
    const double *x;
    double *y;
    const void *xd;
    void *yd;
    size_t n;
} toeplitz_ctx;

static void toeplitz_cpu(void *p)
{
    toeplitz_ctx *c = p;
    skit_toeplitz_plan_execute(c->cpu, c->x, c->n, c->y, c->n, NULL);
}

static int toeplitz_gpu_resident(void *p)
{
    toeplitz_ctx *c = p;
    return skit_cuda_toeplitz_execute_device(c->gpu, c->xd, c->n, c->yd, c->n);
}

static int toeplitz_gpu_transfer(void *p)
{
    toeplitz_ctx *c = p;
    return skit_cuda_toeplitz_execute(c->gpu, c->x, c->n, c->y, c->n);
}

/* Times one n for every requested device and precision; rows[k] for
 * precision k (rows for unrequested precisions are left alone). */
static int bench_toeplitz_size(const options *o, size_t n, skit_rng *rng, result rows[3])
{
    size_t d = o->channels, ncoef = 2 * n - 1;
    skit_causality causality = o->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    double *coeffs = skit_malloc(ncoef, d * sizeof(double));
    double *x = skit_malloc(n, d * sizeof(double));
    double *y_cpu = skit_malloc(n, d * sizeof(double)), *y_gpu = skit_malloc(n, d * sizeof(double));
    if (!coeffs || !x || !y_cpu || !y_gpu) {
        skit_free(coeffs);
        skit_free(x);
        skit_free(y_cpu);
        skit_free(y_gpu);
        return SKIT_ENOMEM;
    }
    skit_rng_fill_normal(rng, coeffs, ncoef * d);
    skit_rng_fill_normal(rng, x, n * d);
    int status = SKIT_OK;
    double cpu_s = NAN;
    /* the CPU result is the reference for the GPU's error even when only
     * the GPU is timed */
    skit_toeplitz_plan *cpu = NULL;
    status = skit_toeplitz_plan_create(
        &cpu, n, n, d,
        &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL, .causality = causality},
        coeffs);
    if (status == SKIT_OK) status = skit_toeplitz_plan_execute(cpu, x, n, y_cpu, n, NULL);
    if (status == SKIT_OK && o->device[0]) {
        cli_progress("toeplitz n = %zu: cpu", n);
        toeplitz_ctx c = {cpu, NULL, x, y_gpu, NULL, NULL, n};
        bench_timing t;
        bench_measure(toeplitz_cpu, &c, o->min_sample_s, o->samples, &t);
        cpu_s = t.median;
    }
    for (int k = 0; k < 2 && status == SKIT_OK; k++) {
        if (!o->precision[k]) continue;
        skit_cuda_precision precision = k ? SKIT_CUDA_FLOAT32 : SKIT_CUDA_FLOAT64;
        size_t elt = skit_cuda_precision_bytes(precision);
        result *r = &rows[k];
        *r = (result){"toeplitz", precision_names[k], (double)n, (double)d, NAN, cpu_s, NAN, NAN, NAN, NAN, NAN};
        if (!o->device[1]) continue;
        cli_progress("toeplitz n = %zu: cuda %s", n, precision_names[k]);
        skit_cuda_toeplitz_plan *gpu = NULL;
        void *xd = NULL, *yd = NULL;
        status = skit_cuda_toeplitz_plan_create(&gpu, n, n, d, SKIT_TOEPLITZ_PER_CHANNEL, causality,
                                                precision, coeffs);
        if (status == SKIT_OK) status = upload(x, n * d, precision, &xd);
        if (status == SKIT_OK) status = skit_cuda_malloc(&yd, n * d * elt);
        toeplitz_ctx c = {cpu, gpu, x, y_gpu, xd, yd, n};
        if (status == SKIT_OK) status = gpu_time(o, toeplitz_gpu_resident, &c, &r->gpu_s);
        if (status == SKIT_OK) status = download(y_gpu, yd, n * d, precision);
        if (status == SKIT_OK) r->rel_error = bench_max_relative_error(y_gpu, y_cpu, n * d);
        if (status == SKIT_OK) status = gpu_time(o, toeplitz_gpu_transfer, &c, &r->gpu_transfer_s);
        if (status == SKIT_OK) {
            /* read x, write y, read the d spectra: the least any method moves */
            size_t L = skit_cuda_toeplitz_plan_fft_length(gpu);
            r->bytes = (double)elt * ((double)(2 * n * d) + 2.0 * (double)(L / 2 + 1) * (double)d);
            r->floor_s = r->bytes / o->bandwidth;
        }
        skit_cuda_free(xd);
        skit_cuda_free(yd);
        skit_cuda_toeplitz_plan_destroy(gpu);
    }
    skit_toeplitz_plan_destroy(cpu);
    skit_free(coeffs);
    skit_free(x);
    skit_free(y_cpu);
    skit_free(y_gpu);
    return status;
}

/* ---- attention ------------------------------------------------------------------------------ */

typedef struct attention_ctx {
    const skit_cuda_attention_plan *gpu;
    const double *q, *k, *v;
    double *y;
    const void *qd, *kd, *vd;
    void *yd;
    size_t n, d;
    double scale;
} attention_ctx;

static void attention_cpu(void *p)
{
    attention_ctx *c = p;
    skit_attention_exact(c->n, c->d, c->d, c->q, c->n, c->k, c->n, c->v, c->n, c->scale, NULL,
                         c->y, c->n);
}

static int attention_gpu_resident(void *p)
{
    attention_ctx *c = p;
    return skit_cuda_attention_execute_device(c->gpu, c->scale, c->qd, c->n, c->kd, c->n, c->vd,
                                              c->n, c->yd, c->n);
}

static int attention_gpu_transfer(void *p)
{
    attention_ctx *c = p;
    return skit_cuda_attention_execute(c->gpu, c->scale, c->q, c->n, c->k, c->n, c->v, c->n,
                                       c->y, c->n);
}

static int bench_attention_size(const options *o, size_t n, skit_rng *rng, result rows[3])
{
    size_t d = o->head_dim;
    double *q = skit_malloc(n, d * sizeof(double)), *k = skit_malloc(n, d * sizeof(double));
    double *v = skit_malloc(n, d * sizeof(double));
    double *y_cpu = skit_malloc(n, d * sizeof(double)), *y_gpu = skit_malloc(n, d * sizeof(double));
    int status = (q && k && v && y_cpu && y_gpu) ? SKIT_OK : SKIT_ENOMEM;
    double cpu_s = NAN, scale = 1.0 / sqrt((double)d);
    if (status == SKIT_OK) {
        skit_rng_fill_normal(rng, q, n * d);
        skit_rng_fill_normal(rng, k, n * d);
        skit_rng_fill_normal(rng, v, n * d);
        status = skit_attention_exact(n, d, d, q, n, k, n, v, n, scale, NULL, y_cpu, n);
    }
    if (status == SKIT_OK && o->device[0]) {
        cli_progress("attention n = %zu: cpu", n);
        attention_ctx c = {NULL, q, k, v, y_gpu, NULL, NULL, NULL, NULL, n, d, scale};
        bench_timing t;
        bench_measure(attention_cpu, &c, o->min_sample_s, o->samples, &t);
        cpu_s = t.median;
    }
    for (int p = 0; p < 2 && status == SKIT_OK; p++) {
        if (!o->precision[p]) continue;
        skit_cuda_precision precision = p ? SKIT_CUDA_FLOAT32 : SKIT_CUDA_FLOAT64;
        size_t elt = skit_cuda_precision_bytes(precision);
        result *r = &rows[p];
        *r = (result){"attention", precision_names[p], (double)n, (double)d, NAN, cpu_s, NAN, NAN, NAN, NAN, NAN};
        if (!o->device[1]) continue;
        cli_progress("attention n = %zu: cuda %s", n, precision_names[p]);
        skit_cuda_attention_plan *gpu = NULL;
        void *qd = NULL, *kd = NULL, *vd = NULL, *yd = NULL;
        status = skit_cuda_attention_plan_create(&gpu, n, n, d, d, 0, precision, 0);
        if (status == SKIT_OK) status = upload(q, n * d, precision, &qd);
        if (status == SKIT_OK) status = upload(k, n * d, precision, &kd);
        if (status == SKIT_OK) status = upload(v, n * d, precision, &vd);
        if (status == SKIT_OK) status = skit_cuda_malloc(&yd, n * d * elt);
        attention_ctx c = {gpu, q, k, v, y_gpu, qd, kd, vd, yd, n, d, scale};
        if (status == SKIT_OK) status = gpu_time(o, attention_gpu_resident, &c, &r->gpu_s);
        if (status == SKIT_OK) status = download(y_gpu, yd, n * d, precision);
        if (status == SKIT_OK) r->rel_error = bench_max_relative_error(y_gpu, y_cpu, n * d);
        if (status == SKIT_OK) status = gpu_time(o, attention_gpu_transfer, &c, &r->gpu_transfer_s);
        if (status == SKIT_OK) {
            /* Q, K, V read and Y written once; attention is compute-bound,
             * so gpu_gflops (two GEMMs: 4 n^2 d flops) is the figure to watch */
            r->bytes = (double)elt * 4.0 * (double)n * (double)d;
            r->floor_s = r->bytes / o->bandwidth;
            r->gflops = 4.0 * (double)n * (double)n * (double)d / r->gpu_s * 1e-9;
        }
        skit_cuda_free(qd);
        skit_cuda_free(kd);
        skit_cuda_free(vd);
        skit_cuda_free(yd);
        skit_cuda_attention_plan_destroy(gpu);
    }
    skit_free(q);
    skit_free(k);
    skit_free(v);
    skit_free(y_cpu);
    skit_free(y_gpu);
    return status;
}

/* ---- MRA-2 --------------------------------------------------------------------------------------- */

/* Block of the MRA benchmark at n: 32, halved until it divides n with at
 * least two blocks (0: n has no such block, the size is skipped). */
static size_t mra_block(size_t n)
{
    size_t b = 32;
    while (b > 2 && (n % b || n / b < 2)) b /= 2;
    return (n % b || n / b < 2) ? 0 : b;
}

typedef struct mra_ctx {
    const skit_attention_plan *cpu;
    const skit_cuda_mra_plan *gpu;
    const double *q, *k, *v;
    double *y;
    const void *qd, *kd, *vd;
    void *yd;
    size_t n;
} mra_ctx;

static void mra_cpu(void *p)
{
    mra_ctx *c = p;
    skit_attention_plan_execute(c->cpu, c->q, c->n, c->k, c->n, c->v, c->n, NULL, c->y, c->n, NULL);
}

static int mra_gpu_resident(void *p)
{
    mra_ctx *c = p;
    return skit_cuda_mra_execute_device(c->gpu, c->qd, c->n, c->kd, c->n, c->vd, c->n, NULL, c->yd,
                                        c->n);
}

static int mra_gpu_transfer(void *p)
{
    mra_ctx *c = p;
    return skit_cuda_mra_execute(c->gpu, c->q, c->n, c->k, c->n, c->v, c->n, NULL, c->y, c->n);
}

static int bench_mra_size(const options *o, size_t n, skit_rng *rng, result rows[3])
{
    size_t d = o->head_dim, b = mra_block(n);
    for (int p = 0; p < 2; p++)
        rows[p] = (result){"mra", precision_names[p], (double)n, (double)d, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    if (!b) return SKIT_OK; /* odd n: no block; the row stays empty */
    skit_attention_options mo;
    skit_attention_options_init(&mo, SKIT_ATTENTION_MRA2);
    mo.block = b;
    /* 8 blocks per row (all of them below 8): a per-query budget of 8 b entries */
    int status = skit_attention_options_set_budget(&mo, n, fmin(1.0, 8.0 * (double)b / (double)n), NULL);
    if (status != SKIT_OK) return status;
    double *q = skit_malloc(n, d * sizeof(double)), *k = skit_malloc(n, d * sizeof(double));
    double *v = skit_malloc(n, d * sizeof(double));
    double *y_cpu = skit_malloc(n, d * sizeof(double)), *y_gpu = skit_malloc(n, d * sizeof(double));
    status = (q && k && v && y_cpu && y_gpu) ? SKIT_OK : SKIT_ENOMEM;
    double cpu_s = NAN;
    skit_attention_plan *cpu = NULL;
    if (status == SKIT_OK) {
        skit_rng_fill_normal(rng, q, n * d);
        skit_rng_fill_normal(rng, k, n * d);
        skit_rng_fill_normal(rng, v, n * d);
        status = skit_attention_plan_create(&cpu, n, d, d, &mo);
    }
    if (status == SKIT_OK)
        status = skit_attention_plan_execute(cpu, q, n, k, n, v, n, NULL, y_cpu, n, NULL);
    if (status == SKIT_OK && o->device[0]) {
        cli_progress("mra n = %zu: cpu", n);
        mra_ctx c = {cpu, NULL, q, k, v, y_gpu, NULL, NULL, NULL, NULL, n};
        bench_timing t;
        bench_measure(mra_cpu, &c, o->min_sample_s, o->samples, &t);
        cpu_s = t.median;
    }
    for (int p = 0; p < 2 && status == SKIT_OK; p++) {
        if (!o->precision[p]) continue;
        skit_cuda_precision precision = p ? SKIT_CUDA_FLOAT32 : SKIT_CUDA_FLOAT64;
        size_t elt = skit_cuda_precision_bytes(precision);
        result *r = &rows[p];
        r->cpu_s = cpu_s;
        if (!o->device[1]) continue;
        cli_progress("mra n = %zu: cuda %s", n, precision_names[p]);
        skit_cuda_mra_plan *gpu = NULL;
        void *qd = NULL, *kd = NULL, *vd = NULL, *yd = NULL;
        status = skit_cuda_mra_plan_create(&gpu, n, d, d, &mo, precision);
        if (status == SKIT_OK) status = upload(q, n * d, precision, &qd);
        if (status == SKIT_OK) status = upload(k, n * d, precision, &kd);
        if (status == SKIT_OK) status = upload(v, n * d, precision, &vd);
        if (status == SKIT_OK) status = skit_cuda_malloc(&yd, n * d * elt);
        mra_ctx c = {cpu, gpu, q, k, v, y_gpu, qd, kd, vd, yd, n};
        if (status == SKIT_OK) status = gpu_time(o, mra_gpu_resident, &c, &r->gpu_s);
        if (status == SKIT_OK) status = download(y_gpu, yd, n * d, precision);
        if (status == SKIT_OK) r->rel_error = bench_max_relative_error(y_gpu, y_cpu, n * d);
        if (status == SKIT_OK) status = gpu_time(o, mra_gpu_transfer, &c, &r->gpu_transfer_s);
        if (status == SKIT_OK) {
            /* Q, K, V read and Y written once; flops of the coarse GEMMs and
             * of the refined squares' two GEMMs */
            double rows_ = (double)(n / b), nref = (double)skit_cuda_mra_plan_refined(gpu);
            r->bytes = (double)elt * 4.0 * (double)n * (double)d;
            r->floor_s = r->bytes / o->bandwidth;
            r->gflops = (4.0 * rows_ * rows_ * (double)d + 4.0 * nref * (double)b * (double)b * (double)d) /
                        r->gpu_s * 1e-9;
        }
        skit_cuda_free(qd);
        skit_cuda_free(kd);
        skit_cuda_free(vd);
        skit_cuda_free(yd);
        skit_cuda_mra_plan_destroy(gpu);
    }
    skit_attention_plan_destroy(cpu);
    skit_free(q);
    skit_free(k);
    skit_free(v);
    skit_free(y_cpu);
    skit_free(y_gpu);
    return status;
}

/* ---- the TNO family ------------------------------------------------------------------------------ */

typedef struct tno_ctx {
    const skit_tno_plan *plan;
    const double *x;
    double *y;
} tno_ctx;

static void tno_run(void *p)
{
    tno_ctx *c = p;
    skit_tno_plan_execute(c->plan, c->x, c->y, NULL);
}

/* One kind at one n: the CPU plan and, where timed, the device plan with the
 * same (generated) parameters; the row is float64 (the device plans' only
 * precision), gpu_transfer_s by wall clock (the device plan works on host
 * arrays and returns when y is back). */
static int bench_tno_kind(const options *o, skit_tno_kind kind, const char *name, size_t n,
                          skit_rng *rng, result *r)
{
    size_t d = o->channels;
    skit_tno_options to;
    skit_tno_options_default(&to, kind);
    to.causality = (o->causal && kind != SKIT_TNO_SKI) ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    if (kind == SKIT_TNO_SKI && to.rank > n) to.rank = n;
    *r = (result){name, "float64", (double)n, (double)d, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    double *x = skit_malloc(n, d * sizeof(double));
    double *y_cpu = skit_malloc(n, d * sizeof(double)), *y_gpu = skit_malloc(n, d * sizeof(double));
    skit_tno_plan *cpu = NULL, *gpu = NULL;
    int status = (x && y_cpu && y_gpu) ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        skit_rng_fill_normal(rng, x, n * d);
        status = skit_tno_plan_create(&cpu, n, d, 1, &to, NULL, 0);
    }
    if (status == SKIT_OK) status = skit_tno_plan_execute(cpu, x, y_cpu, NULL);
    if (status == SKIT_OK && o->device[0]) {
        cli_progress("%s n = %zu: cpu", name, n);
        tno_ctx c = {cpu, x, y_gpu};
        bench_timing t;
        bench_measure(tno_run, &c, o->min_sample_s, o->samples, &t);
        r->cpu_s = t.median;
    }
    if (status == SKIT_OK && o->device[1]) {
        cli_progress("%s n = %zu: cuda float64", name, n);
        to.device = SKIT_DEVICE_CUDA;
        status = skit_tno_plan_create(&gpu, n, d, 1, &to, NULL, 0);
        for (size_t i = 0; status == SKIT_OK && i < n * d; i++) y_gpu[i] = NAN; /* unwritten shows */
        if (status == SKIT_OK) status = skit_tno_plan_execute(gpu, x, y_gpu, NULL);
        if (status == SKIT_OK) r->rel_error = bench_max_relative_error(y_gpu, y_cpu, n * d);
        if (status == SKIT_OK) {
            tno_ctx c = {gpu, x, y_gpu};
            bench_timing t;
            bench_measure(tno_run, &c, o->min_sample_s, o->samples, &t);
            r->gpu_transfer_s = t.median;
        }
    }
    skit_tno_plan_destroy(gpu);
    skit_tno_plan_destroy(cpu);
    skit_free(x);
    skit_free(y_cpu);
    skit_free(y_gpu);
    return status;
}

/* rows[0..2]: TNO, FD-TNO, SKI-TNO at n (float64 rows; the float32 slot of
 * the other operators is not used). */
static int bench_tno_size(const options *o, size_t n, skit_rng *rng, result rows[3])
{
    static const struct {
        skit_tno_kind kind;
        const char *name;
    } kinds[3] = {{SKIT_TNO_FFT, "tno"}, {SKIT_TNO_FD, "fd-tno"}, {SKIT_TNO_SKI, "ski-tno"}};
    int status = SKIT_OK;
    for (int k = 0; k < 3 && status == SKIT_OK; k++)
        status = bench_tno_kind(o, kinds[k].kind, kinds[k].name, n, rng, &rows[k]);
    return status;
}

/* ---- output ------------------------------------------------------------------------------------- */

static double ratio(double a, double b)
{
    return (isfinite(a) && isfinite(b) && b > 0) ? a / b : NAN;
}

static void output_row(cli_table *t, const result *r)
{
    double v[12] = {r->n, r->d, r->bytes, r->cpu_s, r->gpu_s, r->gpu_transfer_s, r->floor_s,
                    ratio(r->gpu_s, r->floor_s), ratio(r->cpu_s, r->gpu_s),
                    ratio(r->cpu_s, r->gpu_transfer_s), r->gflops, r->rel_error};
    cli_table_cell(t, "%s", r->op);
    cli_table_cell(t, "%s", r->precision);
    for (int i = 0; i < 12; i++) {
        if (isnan(v[i]))
            cli_table_cell(t, "nan");
        else
            cli_table_cell(t, "%.6g", v[i]);
    }
    cli_table_end_row(t);
}

/* ---- targets ---------------------------------------------------------------------------------------- */

/* The targets when a device is present, judged from this run. */
static void report_targets(const options *o, cli_table *out, const result *rows, size_t nrows,
                           const char *cuda_line)
{
    char line[1024];
    if (!o->device[1]) {
        snprintf(line, sizeof line, "target: GPU targets not measured (%s)", cuda_line);
        cli_table_note(out, "%s", line);
        if (!o->common.quiet) fprintf(stderr, "%s: %s\n", cli_context(), line + 8);
        return;
    }
    /* 1: Toeplitz n = 65536, d = 64, float32, device-resident <= 3x floor */
    const result *hit = NULL;
    for (size_t i = 0; i < nrows; i++)
        if (!strcmp(rows[i].op, "toeplitz") && rows[i].n == 65536 && rows[i].d == 64 &&
            !strcmp(rows[i].precision, "float32") && isfinite(rows[i].gpu_s))
            hit = &rows[i];
    if (hit)
        snprintf(line, sizeof line,
                 "target: toeplitz n = 65536, d = 64, float32, device-resident <= 3x bandwidth floor: "
                 "%.3g s vs floor %.3g s = %.2fx: %s",
                 hit->gpu_s, hit->floor_s, hit->gpu_s / hit->floor_s,
                 hit->gpu_s <= 3 * hit->floor_s ? "met" : "NOT met");
    else
        snprintf(line, sizeof line,
                 "target: toeplitz n = 65536, d = 64, float32 vs 3x floor: not measured in this run "
                 "(needs --sizes with 2^16, --channels 64, float32)");
    cli_table_note(out, "%s", line);
    if (!o->common.quiet) fprintf(stderr, "%s: %s\n", cli_context(), line + 8);
    /* 2: GPU faster than CPU including transfers wherever n*d >= 2^20 */
    size_t checked = 0, met = 0;
    double worst = INFINITY;
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].n * rows[i].d < 1048576.0) continue;
        double s = ratio(rows[i].cpu_s, rows[i].gpu_transfer_s);
        if (!isfinite(s)) continue;
        checked++;
        met += s > 1;
        if (s < worst) worst = s;
    }
    if (checked)
        snprintf(line, sizeof line,
                 "target: GPU faster than CPU including transfers for n*d >= 2^20: %zu of %zu rows; "
                 "smallest cpu/gpu_transfer %.2f: %s",
                 met, checked, worst, met == checked ? "met" : "NOT met");
    else
        snprintf(line, sizeof line,
                 "target: GPU faster than CPU for n*d >= 2^20: not measured (no row with n*d >= 2^20 "
                 "timed on both devices)");
    cli_table_note(out, "%s", line);
    if (!o->common.quiet) fprintf(stderr, "%s: %s\n", cli_context(), line + 8);
}

/* ---- main ----------------------------------------------------------------------------------------- */

/* The header of the table: devices, shapes, what each column is. */
static void device_header(cli_table *t, const options *o, const char *cuda_line)
{
    cli_table_comment(t, "%s", cuda_line);
    cli_table_comment(t, "devices: %s%s%s; CPU threads: %d; device copy bandwidth (read+write): %.4g GB/s",
                      o->device[0] ? "cpu" : "", o->device[0] && o->device[1] ? "," : "",
                      o->device[1] ? "cuda" : "", bench_threads(), o->device[1] ? o->bandwidth * 1e-9 : NAN);
    cli_table_comment(t,
                      "toeplitz: n x n, d = %zu channels with their own matrices, %s; attention: n queries = n keys, "
                      "d = d_k = d_v = %zu, scale 1/sqrt(d), no mask",
                      o->channels, o->causal ? "causal" : "bidirectional", o->head_dim);
    cli_table_comment(t, "mra: MRA-2 at the attention sizes and d, block 32 (halved while it does not divide n "
                         "into >= 2 blocks), 8 blocks per row (global selection); GPU selection on the host; "
                         "rel_error against the CPU's MRA-2 (float32 may refine other squares near ties); "
                         "gpu_gflops counts the coarse and refined-square GEMMs");
    cli_table_comment(t, "tno, fd-tno, ski-tno: generated parameters (seed 1 of skit_tno_options_default), "
                         "batch 1, (n, d) rows at the toeplitz n and d, %s (ski-tno bidirectional), float64; "
                         "the GPU plan works on host arrays: gpu_transfer_s only (wall clock), the RPE and "
                         "kernels stay on the CPU", o->causal ? "causal" : "bidirectional");
    cli_table_comment(t, "cpu_s: CPU float64 (the CPU library is float64), same value on both precision rows; "
                         "gpu_s: CUDA events, data on the device; gpu_transfer_s: host double arrays in and "
                         "out, copies (and float32 conversion) included");
    cli_table_comment(t, "bytes_moved: toeplitz = elt*(read x + write y + read spectra), attention = "
                         "elt*(Q+K+V+Y); floor_s = bytes_moved / device copy bandwidth; rel_error: "
                         "max|gpu - cpu| / max|cpu|");
}

static int run(options *o, const char *cuda_line)
{
    size_t nprec = (size_t)(o->precision[0] + o->precision[1]);
    size_t nrows = (o->ops[0] ? o->nsizes : 0) * nprec + (o->ops[1] ? o->natt : 0) * nprec +
                   (o->ops[2] ? o->natt : 0) * nprec + (o->ops[3] ? o->nsizes : 0) * 3;
    result *rows = calloc(nrows ? nrows : 1, sizeof *rows);
    if (!rows) return cli_failure("out of memory");
    if (o->device[1]) {
        /* the floor's denominator, measured now on a buffer far beyond any cache */
        int status = skit_cuda_copy_bandwidth((size_t)256 << 20, 20, &o->bandwidth);
        if (status != SKIT_OK) {
            free(rows);
            return cli_library_error(status);
        }
    }
    cli_table t;
    cli_table_init(&t, column_names);
    device_header(&t, o, cuda_line);
    /* the operators in table order, each over its sizes; the first three
     * fill one row per GPU precision (emitted where that precision was
     * asked for), the TNO family three float64 rows */
    const struct {
        int (*size)(const options *, size_t, skit_rng *, result[3]);
        const size_t *sizes;
        size_t count;
    } parts[4] = {{bench_toeplitz_size, o->sizes, o->nsizes},
                  {bench_attention_size, o->att_sizes, o->natt},
                  {bench_mra_size, o->att_sizes, o->natt},
                  {bench_tno_size, o->sizes, o->nsizes}};
    skit_rng rng;
    skit_rng_seed(&rng, o->common.seed);
    cli_progress_start(&o->common);
    size_t count = 0;
    int status = SKIT_OK;
    for (int op = 0; op < 4; op++)
        for (size_t i = 0; o->ops[op] && i < parts[op].count && status == SKIT_OK; i++) {
            result got[3];
            status = parts[op].size(o, parts[op].sizes[i], &rng, got);
            for (int p = 0; p < 3 && status == SKIT_OK; p++)
                if (op == 3 || (p < 2 && o->precision[p])) {
                    rows[count] = got[p];
                    output_row(&t, &rows[count++]);
                }
        }
    cli_progress_done();
    int rc;
    if (status != SKIT_OK) {
        rc = cli_library_error(status);
    } else {
        report_targets(o, &t, rows, count, cuda_line);
        rc = cli_table_emit(&t, &o->common, o->argc, o->argv,
                            "seconds per call (all d channels / the whole attention); bytes; "
                            "GFLOP/s; ratios and errors dimensionless",
                            "bench_device", NULL);
    }
    cli_table_free(&t);
    free(rows);
    return rc;
}

/* The option values as given, parsed by device_options. */
typedef struct option_texts {
    options *o; /* the flags go here */
    const char *device, *ops, *sizes, *channels, *att, *head, *precision;
} option_texts;

/* One option (cli_options.apply): -1 for the common ones. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    option_texts *x = ctx;
    switch (opt) {
    case OPT_DEVICE: x->device = arg; return CLI_OK;
    case OPT_OPS: x->ops = arg; return CLI_OK;
    case OPT_SIZES: x->sizes = arg; return CLI_OK;
    case OPT_CHANNELS: x->channels = arg; return CLI_OK;
    case OPT_CAUSAL: x->o->causal = 1; return CLI_OK;
    case OPT_ATT_SIZES: x->att = arg; return CLI_OK;
    case OPT_HEAD_DIM: x->head = arg; return CLI_OK;
    case OPT_PRECISION: x->precision = arg; return CLI_OK;
    case OPT_QUICK: x->o->quick = 1; return CLI_OK;
    }
    return -1;
}

/* The lists and sizes (defaults where not given), and the memory of the
 * largest case before anything is allocated: Toeplitz coefficients + x +
 * two outputs (d x (2n-1) + 3 n d doubles), attention Q, K, V + two
 * outputs (5 n d doubles). */
static int device_options(options *o, const option_texts *x)
{
    int status = CLI_OK;
    o->channels = 64;
    o->head_dim = 64;
    if (x->device) {
        status = cli_parse_choice_list("--device", x->device, device_names, o->device);
        o->device_given = 1;
    } else {
        o->device[0] = o->device[1] = 1;
    }
    if (status == CLI_OK) {
        if (x->ops)
            status = cli_parse_choice_list("--ops", x->ops, op_names, o->ops);
        else
            o->ops[0] = o->ops[1] = o->ops[2] = o->ops[3] = 1;
    }
    if (status == CLI_OK) {
        if (x->precision)
            status = cli_parse_choice_list("--precision", x->precision, precision_names, o->precision);
        else
            o->precision[0] = o->precision[1] = 1;
    }
    if (status == CLI_OK && x->channels) status = cli_parse_size("--channels", x->channels, 1, 4096, &o->channels);
    if (status == CLI_OK && x->head) status = cli_parse_size("--head-dim", x->head, 1, 1024, &o->head_dim);
    if (status == CLI_OK)
        status = cli_parse_size_list("--sizes", x->sizes ? x->sizes : (o->quick ? "2^10..2^12" : "2^10..2^16"),
                                     1, (size_t)1 << 22, &o->sizes, &o->nsizes);
    if (status == CLI_OK)
        status = cli_parse_size_list("--attention-sizes",
                                     x->att ? x->att : (o->quick ? "2^8..2^9" : "2^8..2^12"), 1,
                                     (size_t)1 << 16, &o->att_sizes, &o->natt);
    if (status == CLI_OK && (o->nsizes > 64 || o->natt > 64))
        status = cli_usage_error("--sizes / --attention-sizes: at most 64 sizes each");
    size_t largest = 0;
    for (size_t i = 0; status == CLI_OK && (o->ops[0] || o->ops[3]) && i < o->nsizes; i++) {
        size_t bytes = (5 * o->sizes[i]) * o->channels * sizeof(double);
        if (bytes > largest) largest = bytes;
    }
    for (size_t i = 0; status == CLI_OK && (o->ops[1] || o->ops[2]) && i < o->natt; i++) {
        size_t bytes = 5 * o->att_sizes[i] * o->head_dim * sizeof(double);
        if (bytes > largest) largest = bytes;
    }
    if (status == CLI_OK && skit_memory_check(largest, "skit bench device (largest case)") != SKIT_OK)
        status = cli_library_error(SKIT_ETOOBIG);
    if (status == CLI_OK) status = cli_common_validate(&o->common);
    return status;
}

/* The GPU where asked for and present (the default asks only where there
 * is one); cuda_line: the CUDA status recorded in the header. */
static int choose_devices(options *o, char *cuda_line, size_t size)
{
    if (o->device[1] && skit_cuda_status(cuda_line, size) != SKIT_OK) {
        if (o->device_given)
            return cli_usage_error("--device cuda: %s (run with --device cpu, or on a machine with a GPU "
                                   "and a CUDA build)", cuda_line);
        fprintf(stderr, "%s: %s; timing the CPU only\n", cli_context(), cuda_line);
        o->device[1] = 0;
    } else if (!o->device[1]) {
        skit_cuda_status(cuda_line, size);
    }
    if (!o->device[1]) {
        /* precisions are the GPU's: a CPU-only run has one (float64) row per size */
        o->precision[0] = 1;
        o->precision[1] = 0;
    }
    return CLI_OK;
}

int bench_device(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"device", required_argument, NULL, OPT_DEVICE},
        {"ops", required_argument, NULL, OPT_OPS},
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"channels", required_argument, NULL, OPT_CHANNELS},
        {"causal", no_argument, NULL, OPT_CAUSAL},
        {"attention-sizes", required_argument, NULL, OPT_ATT_SIZES},
        {"head-dim", required_argument, NULL, OPT_HEAD_DIM},
        {"precision", required_argument, NULL, OPT_PRECISION},
        {"quick", no_argument, NULL, OPT_QUICK},
        {NULL, 0, NULL, 0}};
    options o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.common);
    o.argc = argc;
    o.argv = argv;
    option_texts x = {.o = &o};
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o.common,
                                .apply = apply_option, .ctx = &x};
    int status = cli_parse_options(&parser, argc, argv);
    if (status != CLI_OK) return status == CLI_HELP ? CLI_OK : status;
    /* validate everything before any work or any file */
    char cuda_line[512];
    status = device_options(&o, &x);
    if (status == CLI_OK) status = choose_devices(&o, cuda_line, sizeof cuda_line);
    if (status == CLI_OK) {
        o.min_sample_s = o.quick ? 0.02 : 0.1;
        o.samples = o.quick ? 3 : 5;
        cli_apply_threads(&o.common);
        status = run(&o, cuda_line);
    }
    free(o.sizes);
    free(o.att_sizes);
    return status;
}
