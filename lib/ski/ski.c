/* ski.c — SKI W A W^T (sparse W + FFT Toeplitz A, or dense BLAS), the
 * asymmetric Nystrom F A^+ B, and the sparse + low-rank operator of
 * Algorithm 1 (band convolution + SKI), all as plans. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "ski/ski_internal.h"
#include "skit/spectral.h"
#include "core/simd.h"

/* ---- helpers shared with theorem1.c ---------------------------------------- */

int ski_weights_copy(const skit_interp_weights *src, skit_interp_weights **dst)
{
    *dst = NULL;
    skit_interp_weights *W = skit_calloc(1, sizeof *W);
    if (!W) return SKIT_ENOMEM;
    *W = *src;
    W->start = skit_malloc(src->n, sizeof *W->start);
    W->weights = skit_malloc(src->n * src->width, sizeof *W->weights);
    W->points = skit_malloc(src->n, sizeof *W->points);
    W->inducing = skit_malloc(src->r, sizeof *W->inducing);
    if (!W->start || !W->weights || !W->points || !W->inducing) {
        skit_interp_weights_destroy(W);
        return SKIT_ENOMEM;
    }
    memcpy(W->start, src->start, src->n * sizeof *W->start);
    memcpy(W->weights, src->weights, src->n * src->width * sizeof *W->weights);
    memcpy(W->points, src->points, src->n * sizeof *W->points);
    memcpy(W->inducing, src->inducing, src->r * sizeof *W->inducing);
    *dst = W;
    return SKIT_OK;
}

void ski_toeplitz_fill(size_t r, const double *coeffs, double *A, size_t lda)
{
    for (size_t j = 0; j < r; j++)
        for (size_t i = 0; i < r; i++) A[i + j * lda] = coeffs[i + (r - 1) - j];
}

int ski_check_weights(const skit_interp_weights *W)
{
    SKIT_REQUIRE_PTR(W);
    if (!W->start || !W->weights || W->n == 0 || W->r < 2 || W->width == 0 || W->width > W->r)
        return SKIT_ERROR(SKIT_EINVAL, "weights: not built by skit_interp_weights_create");
    return SKIT_OK;
}

/* ---- SKI plan ---------------------------------------------------------------- */

/* The sparse action is two streaming passes, U = W^T X and Y = W V, with the
 * tiny r x r Toeplitz product in between; at the sizes that matter X and Y
 * are far larger than the caches, so each pass should cost no more than
 * reading X (or writing Y) once. Rows are grouped in runs that share the
 * same window start (with sorted points a run is about n/r rows), cut to at
 * most SKI_CHUNK rows so a run of every operand stays in L1; W is stored as
 * `width` planes (planes[k*n + i] = W(i, start[i] + k)) so each run is a few
 * contiguous dot products / axpys. Channels go in groups of at most
 * SKI_GROUP, walked runs outside and the group's channels inside: the group
 * reuses each run of the planes from L1 (a quarter of the weight traffic of
 * one channel at a time) while every channel still streams forward through
 * memory.
 *
 * Threads: channels are cut into blocks, each with its own Toeplitz plan for
 * its A_c, and one parallel region takes blocks as they come (dynamic), a
 * block doing W^T, A and W for its channels with no barrier between them.
 * Every fork or barrier costs a thread's wake-up, which on a shared machine
 * can be a whole scheduler time slice; one region pays it once where three
 * (two passes and the Toeplitz product) paid it three times. Each block plan
 * carries FFT scratch, so where that would outgrow the planes (r large
 * against n) the action falls back to one Toeplitz plan for all channels
 * between two parallel passes ("phased"). */
void skit_ski_plan_destroy(skit_ski_plan *plan)
{
    if (!plan) return;
    skit_free(plan->planes);
    skit_free(plan->planes32);
    skit_free(plan->ramp);
    skit_free(plan->run_begin);
    skit_free(plan->run_start);
    skit_toeplitz_plan_destroy(plan->toeplitz);
    for (size_t q = 0; q < plan->blocks; q++) skit_toeplitz_plan_destroy(plan->block[q]);
    skit_free(plan->block);
    skit_workspace_destroy(plan->workspace);
    skit_free(plan->dense_w);
    skit_free(plan->dense_a);
    skit_free(plan);
}

/* Whether row i starts a run: a new window start, or SKI_CHUNK rows since
 * the run's first row. */
static int run_starts(const skit_interp_weights *weights, size_t i, size_t first)
{
    return i == 0 || weights->start[i] != weights->start[i - 1] || i - first == SKI_CHUNK;
}

/* Runs (cut at SKI_CHUNK rows; the tables sized to them, about r + n /
 * SKI_CHUNK), the planes in the plan's precision and, for float64, the
 * implicit-weight test. */
static int sparse_layout(skit_ski_plan *p, const skit_interp_weights *weights)
{
    size_t n = p->n, width = p->width, runs = 0;
    for (size_t i = 0, first = 0; i < n; i++)
        if (run_starts(weights, i, first)) runs++, first = i;
    p->run_begin = skit_malloc(runs + 1, sizeof *p->run_begin);
    p->run_start = skit_malloc(runs, sizeof *p->run_start);
    if (!p->run_begin || !p->run_start) return SKIT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (run_starts(weights, i, p->runs ? p->run_begin[p->runs - 1] : 0)) {
            p->run_begin[p->runs] = i;
            p->run_start[p->runs] = weights->start[i];
            p->runs++;
        }
    p->run_begin[p->runs] = n;
    p->bytes += (2 * runs + 1) * sizeof(size_t);
    if (p->precision == SKIT_PRECISION_F32) {
        p->planes32 = skit_malloc(n * width, sizeof *p->planes32);
        if (!p->planes32) return SKIT_ENOMEM;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < width; k++) p->planes32[k * n + i] = (float)weights->weights[i * width + k];
        p->bytes += n * width * sizeof(float);
        return SKIT_OK;
    }
    p->planes = skit_malloc(n * width, sizeof *p->planes);
    p->ramp = skit_malloc(SKI_CHUNK, sizeof *p->ramp);
    if (!p->planes || !p->ramp) return SKIT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < width; k++) p->planes[k * n + i] = weights->weights[i * width + k];
    for (size_t k = 0; k < SKI_CHUNK; k++) p->ramp[k] = (double)k;
    p->bytes += (n * width + SKI_CHUNK) * sizeof(double);
    p->lo = weights->options.lo;
    p->inv_h = 1.0 / weights->spacing;
    p->implicit = weights->options.scheme == SKIT_INTERP_LINEAR;
    for (size_t i = 0; i < n && p->implicit; i++)
        if (weights->points[i] != (double)i) p->implicit = 0;
    return SKIT_OK;
}

/* A's Toeplitz plan for channels [c0, c0 + channels), in the plan's precision. */
static int toeplitz_plan(const skit_ski_plan *p, const skit_ski_options *o, size_t c0, size_t channels,
                         const double *coeffs, skit_toeplitz_plan **out)
{
    const double *cq = o->sharing == SKIT_TOEPLITZ_SHARED ? coeffs : coeffs + c0 * (2 * p->r - 1);
    const skit_toeplitz_options to = {.sharing = o->sharing,
                                      .causality = SKIT_BIDIRECTIONAL,
                                      .device = SKIT_DEVICE_CPU,
                                      .precision = o->precision,
                                      .planner = o->planner,
                                      .inverse = SKIT_FFT_INVERSE_AUTO};
    return skit_toeplitz_plan_create(out, p->r, p->r, channels, &to, cq);
}

/* One Toeplitz plan per block of channels, or (float32, blocks < 2, or
 * their FFT scratch larger than the planes) one for all channels. Float32
 * plans keep one: per-block plans carry fixed overheads that would take
 * a float32 plan past half the float64 plan's bytes at d = 64, for a
 * difference in time within the noise (one thread). */
static int toeplitz_plans(skit_ski_plan *p, const skit_ski_options *o, const double *coeffs)
{
    size_t d = p->d, threads = (size_t)skit_max_threads();
    size_t blocks = SKIT_MIN(d, SKIT_MAX((d + SKI_GROUP - 1) / SKI_GROUP, threads));
    blocks = SKIT_MIN(blocks, SKI_BLOCKS_PER_THREAD * threads);
    if (blocks >= 2 && p->precision == SKIT_PRECISION_F64) {
        p->block = skit_calloc(blocks, sizeof *p->block);
        if (!p->block) return SKIT_ENOMEM;
        p->blocks = blocks;
        for (size_t q = 0; q < blocks; q++) {
            size_t c0 = d * q / blocks, c1 = d * (q + 1) / blocks;
            SKIT_TRY(toeplitz_plan(p, o, c0, c1 - c0, coeffs, &p->block[q]));
            if (q == 0 &&
                blocks * skit_toeplitz_plan_workspace_bytes(p->block[0]) > p->n * p->width) {
                skit_toeplitz_plan_destroy(p->block[0]);
                skit_free(p->block);
                p->block = NULL;
                p->blocks = 0;
                break;
            }
            p->bytes += skit_toeplitz_plan_bytes(p->block[q]);
        }
        if (p->blocks) {
            p->bytes += blocks * sizeof *p->block;
            return SKIT_OK;
        }
    }
    SKIT_TRY(toeplitz_plan(p, o, 0, d, coeffs, &p->toeplitz));
    p->bytes += skit_toeplitz_plan_bytes(p->toeplitz);
    return SKIT_OK;
}

void skit_ski_options_default(skit_ski_options *options)
{
    if (!options) return;
    options->sharing = SKIT_TOEPLITZ_PER_CHANNEL;
    options->method = SKIT_SKI_SPARSE_FFT;
    options->precision = SKIT_PRECISION_F64;
    options->planner = SKIT_PLANNER_DEFAULT;
    options->layout = SKIT_LAYOUT_COLUMNS;
}

static int check_options(const skit_ski_options *o)
{
    if (o->layout != SKIT_LAYOUT_COLUMNS && o->layout != SKIT_LAYOUT_ROWS)
        return SKIT_ERROR(SKIT_EINVAL, "layout = %d unknown: need SKIT_LAYOUT_COLUMNS or SKIT_LAYOUT_ROWS",
                          (int)o->layout);
    if (o->sharing != SKIT_TOEPLITZ_PER_CHANNEL && o->sharing != SKIT_TOEPLITZ_SHARED)
        return SKIT_ERROR(SKIT_EINVAL, "sharing = %d unknown: need per-channel or shared", (int)o->sharing);
    if (o->method != SKIT_SKI_SPARSE_FFT && o->method != SKIT_SKI_DENSE)
        return SKIT_ERROR(SKIT_EINVAL, "method = %d unknown: need sparse-fft or dense", (int)o->method);
    if (o->precision != SKIT_PRECISION_F64 && o->precision != SKIT_PRECISION_F32)
        return SKIT_ERROR(SKIT_EINVAL,
                          "precision = %d unknown: need SKIT_PRECISION_F64 or SKIT_PRECISION_F32",
                          (int)o->precision);
    if (!skit_planner_name(o->planner))
        return SKIT_ERROR(SKIT_EINVAL,
                          "planner = %d unknown: need SKIT_PLANNER_DEFAULT, _ESTIMATE, _MEASURE, "
                          "_PATIENT, _EXHAUSTIVE or _WISDOM_ONLY",
                          (int)o->planner);
    if (o->precision == SKIT_PRECISION_F32 && o->method != SKIT_SKI_SPARSE_FFT)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "method = dense: the float32 SKI plan runs sparse-fft only");
    return SKIT_OK;
}

int skit_ski_plan_create(skit_ski_plan **plan, const skit_interp_weights *weights, size_t d,
                         const skit_ski_options *options, const double *coeffs)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_TRY(ski_check_weights(weights));
    SKIT_REQUIRE_PTR(coeffs);
    skit_ski_options o;
    skit_ski_options_default(&o);
    if (options) o = *options;
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1");
    SKIT_TRY(check_options(&o));
    const skit_ski_method method = o.method;
    const int f32 = o.precision == SKIT_PRECISION_F32;
    size_t n = weights->n, r = weights->r;
    size_t count = o.sharing == SKIT_TOEPLITZ_SHARED ? 1 : d;
    size_t ncoef, rd, nr, rr, estimate;
    if (skit_size_mul(2 * r - 1, count, &ncoef) || skit_size_mul(r, d, &rd) ||
        skit_size_mul(n, r, &nr) || skit_size_mul(r * r, count, &rr))
        return SKIT_ERROR(SKIT_EOVERFLOW, "SKI plan size (n = %zu, r = %zu, d = %zu) overflows", n, r, d);
    SKIT_TRY(skit_check_finite(coeffs, ncoef, "coeffs"));
    /* U and V, planes, run tables, ramp: at most what a float64 plan takes */
    estimate = (2 * rd + n * (weights->width + 3) + SKI_CHUNK) * sizeof(double);
    if (method == SKIT_SKI_DENSE) {
        if (nr > SIZE_MAX / 16 || rr > SIZE_MAX / 16)
            return SKIT_ERROR(SKIT_EOVERFLOW, "dense SKI plan size overflows");
        estimate += (nr + rr) * sizeof(double);
    }
    SKIT_TRY(skit_memory_check(estimate, "SKI plan"));

    skit_ski_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->r = r;
    p->d = d;
    p->count = count;
    p->width = weights->width;
    p->method = method;
    p->precision = o.precision;
    p->layout = o.layout;
    /* U and V: 2 r d values of the plan's precision, in doubles */
    size_t scratch = f32 ? rd : 2 * rd;
    p->bytes = sizeof *p + scratch * sizeof(double);
    int status = skit_workspace_create(&p->workspace, scratch);
    if (status != SKIT_OK) goto fail;
    if (method == SKIT_SKI_SPARSE_FFT) {
        status = sparse_layout(p, weights);
        if (status == SKIT_OK) status = toeplitz_plans(p, &o, coeffs);
        if (status != SKIT_OK) goto fail;
    } else {
        p->dense_w = skit_malloc(nr, sizeof *p->dense_w);
        p->dense_a = skit_malloc(rr, sizeof *p->dense_a);
        if (!p->dense_w || !p->dense_a) {
            status = SKIT_ENOMEM;
            goto fail;
        }
        skit_interp_weights_dense(weights, p->dense_w, n);
        for (size_t c = 0; c < count; c++)
            ski_toeplitz_fill(r, coeffs + c * (2 * r - 1), p->dense_a + c * r * r, r);
        p->bytes += (nr + rr) * sizeof(double);
    }
    *plan = p;
    return SKIT_OK;
fail:
    skit_ski_plan_destroy(p);
    return status;
}

skit_precision skit_ski_plan_precision(const skit_ski_plan *plan)
{
    return plan ? plan->precision : SKIT_PRECISION_F64;
}

/* dense: U = W^T X, V_c = A_c U_c, Y = W V */
static void dense_apply(const skit_ski_plan *plan, const double *X, size_t ldx, double *Y, size_t ldy,
                        double *U, double *V)
{
    size_t n = plan->n, r = plan->r, d = plan->d;
    /* rows: X is X^T column-major (d x n), and Y^T = V^T W^T */
    const int rows = plan->layout == SKIT_LAYOUT_ROWS;
    cblas_dgemm(CblasColMajor, CblasTrans, rows ? CblasTrans : CblasNoTrans, (int)r, (int)d, (int)n, 1.0,
                plan->dense_w, (int)n, X, (int)ldx, 0.0, U, (int)r);
    if (plan->count == 1) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)d, (int)r, 1.0,
                    plan->dense_a, (int)r, U, (int)r, 0.0, V, (int)r);
    } else {
        for (size_t c = 0; c < d; c++)
            cblas_dgemv(CblasColMajor, CblasNoTrans, (int)r, (int)r, 1.0, plan->dense_a + c * r * r,
                        (int)r, U + c * r, 1, 0.0, V + c * r, 1);
    }
    if (rows)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasTrans, (int)d, (int)n, (int)r, 1.0, V, (int)r,
                    plan->dense_w, (int)n, 0.0, Y, (int)ldy);
    else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)d, (int)r, 1.0,
                    plan->dense_w, (int)n, V, (int)r, 0.0, Y, (int)ldy);
}

/* The checks of both executes; f32: the call is the float32 one. */
static int check_execute(const skit_ski_plan *plan, const void *X, size_t ldx, const void *Y, size_t ldy,
                         int f32)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(X);
    SKIT_REQUIRE_PTR(Y);
    if ((plan->precision == SKIT_PRECISION_F32) != f32)
        return SKIT_ERROR(SKIT_EINVAL, "plan: a float%s SKI plan: use skit_ski_plan_execute%s",
                          f32 ? "64" : "32", f32 ? "" : "_f32");
    const int rows = plan->layout == SKIT_LAYOUT_ROWS;
    const size_t need = rows ? plan->d : plan->n;
    const char *what = rows ? "d" : "n";
    if (ldx < need) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu too small: need ldx >= %s (= %zu)", ldx, what, need);
    if (ldy < need) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu too small: need ldy >= %s (= %zu)", ldy, what, need);
    return SKIT_OK;
}

int skit_ski_plan_execute(const skit_ski_plan *plan, const double *X, size_t ldx, double *Y,
                          size_t ldy)
{
    SKIT_TRY(check_execute(plan, X, ldx, Y, ldy, 0));
    size_t r = plan->r, d = plan->d;
    double *U = skit_workspace_take(plan->workspace);
    if (!U) return SKIT_ENOMEM;
    double *V = U + r * d;
    int status = SKIT_OK;
    if (plan->method == SKIT_SKI_SPARSE_FFT) status = ski_sparse_run(plan, X, ldx, Y, ldy, U, V);
    else dense_apply(plan, X, ldx, Y, ldy, U, V);
    skit_workspace_give(plan->workspace, U);
    return status;
}

int skit_ski_plan_execute_f32(const skit_ski_plan *plan, const float *X, size_t ldx, float *Y,
                              size_t ldy)
{
    SKIT_TRY(check_execute(plan, X, ldx, Y, ldy, 1));
    size_t r = plan->r, d = plan->d;
    float *U = (float *)skit_workspace_take(plan->workspace);
    if (!U) return SKIT_ENOMEM;
    int status = ski_sparse_run_f32(plan, X, ldx, Y, ldy, U, U + r * d);
    skit_workspace_give(plan->workspace, (double *)U);
    return status;
}

size_t skit_ski_plan_bytes(const skit_ski_plan *plan) { return plan ? plan->bytes : 0; }

int skit_ski_dense(const skit_interp_weights *weights, const double *coeffs, double *T,
                   size_t ldt)
{
    SKIT_TRY(ski_check_weights(weights));
    SKIT_REQUIRE_PTR(coeffs);
    SKIT_REQUIRE_PTR(T);
    size_t n = weights->n, r = weights->r;
    if (ldt < n) return SKIT_ERROR(SKIT_ESHAPE, "ldt = %zu too small: need ldt >= n (= %zu)", ldt, n);
    SKIT_TRY(skit_check_finite(coeffs, 2 * r - 1, "coeffs"));
    SKIT_TRY(skit_memory_check((2 * n * r + r * r) * sizeof(double), "dense SKI"));
    double *Wd = skit_malloc(n * r, sizeof *Wd);
    double *A = skit_malloc(r * r, sizeof *A);
    double *WA = skit_malloc(n * r, sizeof *WA);
    if (!Wd || !A || !WA) {
        skit_free(Wd);
        skit_free(A);
        skit_free(WA);
        return SKIT_ENOMEM;
    }
    skit_interp_weights_dense(weights, Wd, n);
    ski_toeplitz_fill(r, coeffs, A, r);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)r, (int)r, 1.0, Wd, (int)n,
                A, (int)r, 0.0, WA, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)r, 1.0, WA, (int)n,
                Wd, (int)n, 0.0, T, (int)ldt);
    skit_free(Wd);
    skit_free(A);
    skit_free(WA);
    return SKIT_OK;
}

/* ---- Nystrom ------------------------------------------------------------------ */

#define NYSTROM_BLOCK 64

struct skit_nystrom_plan {
    size_t n, r;
    skit_layout layout;
    double *F;       /* n x r */
    double *G;       /* r x n: A^+ B */
    skit_workspace *workspace; /* r x NYSTROM_BLOCK, lent to one execute at a time */
};

void skit_nystrom_plan_destroy(skit_nystrom_plan *plan)
{
    if (!plan) return;
    skit_free(plan->F);
    skit_free(plan->G);
    skit_workspace_destroy(plan->workspace);
    skit_free(plan);
}

int ski_nystrom_factors(const skit_kernel *kernel, size_t n, size_t r, double lo, double hi,
                        double *A, double *F, double *B)
{
    double h = (hi - lo) / (double)(r - 1);
    double *coeffs = skit_malloc(2 * r - 1, sizeof *coeffs);
    double *lags = skit_malloc(n * r, sizeof *lags);
    if (!coeffs || !lags) {
        skit_free(coeffs);
        skit_free(lags);
        return SKIT_ENOMEM;
    }
    int status = skit_kernel_toeplitz_coeffs(kernel, r, h, coeffs);
    if (status == SKIT_OK) {
        ski_toeplitz_fill(r, coeffs, A, r);
        /* F(i, j) = k(i - p_j), column-major n x r */
        for (size_t j = 0; j < r; j++)
            for (size_t i = 0; i < n; i++) lags[i + j * n] = (double)i - (lo + (double)j * h);
        status = skit_kernel_eval(kernel, n * r, lags, F);
    }
    if (status == SKIT_OK) {
        /* B(i, j) = k(p_i - j), column-major r x n */
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < r; i++) lags[i + j * r] = (lo + (double)i * h) - (double)j;
        status = skit_kernel_eval(kernel, n * r, lags, B);
    }
    skit_free(coeffs);
    skit_free(lags);
    return status;
}

void skit_nystrom_options_default(skit_nystrom_options *options)
{
    if (options) *options = (skit_nystrom_options){.layout = SKIT_LAYOUT_COLUMNS};
}

static int check_layout(skit_layout layout)
{
    if (layout == SKIT_LAYOUT_COLUMNS || layout == SKIT_LAYOUT_ROWS) return SKIT_OK;
    return SKIT_ERROR(SKIT_EINVAL, "layout = %d unknown: need SKIT_LAYOUT_COLUMNS (0) or SKIT_LAYOUT_ROWS (1)",
                      (int)layout);
}

/* ldx, ldy of an n x d block in the layout */
static int check_block_lds(skit_layout layout, size_t n, size_t d, size_t ldx, size_t ldy)
{
    const int rows = layout == SKIT_LAYOUT_ROWS;
    const size_t least = rows ? d : n;
    const char *need = rows ? "d" : "n";
    if (ldx < least) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu too small: need ldx >= %s (= %zu)", ldx, need, least);
    if (ldy < least) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu too small: need ldy >= %s (= %zu)", ldy, need, least);
    return SKIT_OK;
}

int skit_nystrom_plan_create(skit_nystrom_plan **plan, const skit_kernel *kernel, size_t n,
                             size_t r, double lo, double hi, double rtol, size_t *rank)
{
    return skit_nystrom_plan_create_with(plan, kernel, n, r, lo, hi, rtol, NULL, rank);
}

int skit_nystrom_plan_create_with(skit_nystrom_plan **plan, const skit_kernel *kernel, size_t n,
                                  size_t r, double lo, double hi, double rtol,
                                  const skit_nystrom_options *options, size_t *rank)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    skit_nystrom_options o;
    skit_nystrom_options_default(&o);
    if (options) o = *options;
    SKIT_TRY(check_layout(o.layout));
    SKIT_REQUIRE_PTR(kernel);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (r < 2 || r > n)
        return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need 2 <= r <= n (= %zu)", r, n);
    if (!(isfinite(lo) && isfinite(hi) && lo < hi))
        return SKIT_ERROR(SKIT_EDOM, "inducing interval [%g, %g] is empty: need lo < hi", lo, hi);
    if (isnan(rtol)) return SKIT_ERROR(SKIT_EDOM, "rtol = NaN out of range");
    size_t nr;
    if (skit_size_mul(n, r, &nr) != SKIT_OK || nr > SIZE_MAX / 32)
        return SKIT_ERROR(SKIT_EOVERFLOW, "n * r overflows (n = %zu, r = %zu)", n, r);
    SKIT_TRY(skit_memory_check((3 * nr + 2 * r * r + r * NYSTROM_BLOCK) * sizeof(double), "Nystrom plan"));
    skit_nystrom_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->r = r;
    p->layout = o.layout;
    double *A = skit_malloc(r * r, sizeof *A), *Ap = skit_malloc(r * r, sizeof *Ap);
    double *B = skit_malloc(nr, sizeof *B);
    p->F = skit_malloc(nr, sizeof *p->F);
    p->G = skit_malloc(nr, sizeof *p->G);
    if (skit_workspace_create(&p->workspace, r * NYSTROM_BLOCK) != SKIT_OK) p->workspace = NULL;
    int status = SKIT_OK;
    if (!A || !Ap || !B || !p->F || !p->G || !p->workspace) status = SKIT_ENOMEM;
    if (status == SKIT_OK) status = ski_nystrom_factors(kernel, n, r, lo, hi, A, p->F, B);
    size_t rk = 0;
    if (status == SKIT_OK) status = skit_pinv(r, r, A, r, rtol, Ap, r, &rk);
    if (status == SKIT_OK)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)n, (int)r, 1.0, Ap,
                    (int)r, B, (int)r, 0.0, p->G, (int)r);
    skit_free(A);
    skit_free(Ap);
    skit_free(B);
    if (status != SKIT_OK) {
        skit_nystrom_plan_destroy(p);
        return status;
    }
    if (rank) *rank = rk;
    *plan = p;
    return SKIT_OK;
}

/* Rows: a block of channels of X is a column-major cols x n block X^T
 * (ld ldx), so Z^T = X^T G^T and Y^T = Z^T F^T, the transposed GEMMs of
 * the columns form (scratch: cols x r). */
static void nystrom_rows(const skit_nystrom_plan *plan, size_t d, const double *X, size_t ldx, double *Y,
                         size_t ldy, double *scratch)
{
    const int n = (int)plan->n, r = (int)plan->r;
    for (size_t c0 = 0; c0 < d; c0 += NYSTROM_BLOCK) {
        int cols = (int)SKIT_MIN((size_t)NYSTROM_BLOCK, d - c0);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, cols, r, n, 1.0, X + c0, (int)ldx, plan->G, r, 0.0,
                    scratch, cols);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, cols, n, r, 1.0, scratch, cols, plan->F, n, 0.0, Y + c0,
                    (int)ldy);
    }
}

int skit_nystrom_plan_execute(const skit_nystrom_plan *plan, size_t d, const double *X, size_t ldx,
                              double *Y, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    if (d == 0) return SKIT_OK;
    SKIT_REQUIRE_PTR(X);
    SKIT_REQUIRE_PTR(Y);
    size_t n = plan->n, r = plan->r;
    SKIT_TRY(check_block_lds(plan->layout, n, d, ldx, ldy));
    double *scratch = skit_workspace_take(plan->workspace);
    if (!scratch) return SKIT_ENOMEM;
    if (plan->layout == SKIT_LAYOUT_ROWS) {
        nystrom_rows(plan, d, X, ldx, Y, ldy, scratch);
        skit_workspace_give(plan->workspace, scratch);
        return SKIT_OK;
    }
    for (size_t c0 = 0; c0 < d; c0 += NYSTROM_BLOCK) {
        int cols = (int)SKIT_MIN((size_t)NYSTROM_BLOCK, d - c0);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, cols, (int)n, 1.0, plan->G,
                    (int)r, X + c0 * ldx, (int)ldx, 0.0, scratch, (int)r);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, cols, (int)r, 1.0, plan->F,
                    (int)n, scratch, (int)r, 0.0, Y + c0 * ldy, (int)ldy);
    }
    skit_workspace_give(plan->workspace, scratch);
    return SKIT_OK;
}

int skit_nystrom_plan_dense(const skit_nystrom_plan *plan, double *T, size_t ldt)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(T);
    size_t n = plan->n, r = plan->r;
    if (ldt < n) return SKIT_ERROR(SKIT_ESHAPE, "ldt = %zu too small: need ldt >= n (= %zu)", ldt, n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)r, 1.0, plan->F,
                (int)n, plan->G, (int)r, 0.0, T, (int)ldt);
    return SKIT_OK;
}

/* ---- sparse + low rank (Algorithm 1) --------------------------------------------- */

struct skit_sparse_lowrank_plan {
    size_t n, d, m;
    skit_layout layout;
    double *band; /* d x m */
    skit_ski_plan *ski;
};

void skit_sparse_lowrank_plan_destroy(skit_sparse_lowrank_plan *plan)
{
    if (!plan) return;
    skit_free(plan->band);
    skit_ski_plan_destroy(plan->ski);
    skit_free(plan);
}

void skit_sparse_lowrank_options_default(skit_sparse_lowrank_options *options)
{
    if (options)
        *options = (skit_sparse_lowrank_options){.method = SKIT_SKI_SPARSE_FFT, .layout = SKIT_LAYOUT_COLUMNS};
}

int skit_sparse_lowrank_plan_create(skit_sparse_lowrank_plan **plan, size_t n, size_t d,
                                    size_t m, const double *band,
                                    const skit_interp_weights *weights, const double *coeffs,
                                    skit_ski_method method)
{
    const skit_sparse_lowrank_options o = {.method = method, .layout = SKIT_LAYOUT_COLUMNS};
    return skit_sparse_lowrank_plan_create_with(plan, n, d, m, band, weights, coeffs, &o);
}

int skit_sparse_lowrank_plan_create_with(skit_sparse_lowrank_plan **plan, size_t n, size_t d,
                                         size_t m, const double *band,
                                         const skit_interp_weights *weights, const double *coeffs,
                                         const skit_sparse_lowrank_options *options)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    skit_sparse_lowrank_options o;
    skit_sparse_lowrank_options_default(&o);
    if (options) o = *options;
    SKIT_TRY(check_layout(o.layout));
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1");
    if (m == 0 && !weights)
        return SKIT_ERROR(SKIT_EINVAL, "nothing to apply: need a band (m > 0) or weights (low rank)");
    if (m > 0 && (m % 2 == 0 || m > 2 * n - 1))
        return SKIT_ERROR(SKIT_EDOM, "m = %zu out of range: need m odd and m <= 2n - 1 (= %zu)", m,
                          2 * n - 1);
    size_t dm;
    if (skit_size_mul(d, m, &dm) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "d * m overflows (d = %zu, m = %zu)", d, m);
    if (m > 0) {
        SKIT_REQUIRE_PTR(band);
        SKIT_TRY(skit_check_finite(band, dm, "band"));
    }
    if (weights) {
        SKIT_TRY(ski_check_weights(weights));
        if (weights->n != n)
            return SKIT_ERROR(SKIT_ESHAPE, "weights have %zu rows: need n (= %zu)", weights->n, n);
    }
    skit_sparse_lowrank_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->d = d;
    p->m = m;
    p->layout = o.layout;
    int status = SKIT_OK;
    if (m > 0) {
        p->band = skit_malloc(dm, sizeof *p->band);
        if (!p->band) status = SKIT_ENOMEM;
        else memcpy(p->band, band, dm * sizeof *band);
    }
    if (status == SKIT_OK && weights)
        status = skit_ski_plan_create(&p->ski, weights, d,
                                      &(skit_ski_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                          .method = o.method, .layout = o.layout},
                                      coeffs);
    if (status != SKIT_OK) {
        skit_sparse_lowrank_plan_destroy(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

/* The band on rows: y[i, c] += b_c[o + half] x[i - o, c], offsets o in
 * the columns form's order (so each entry's sum is the same), zero taps
 * skipped as there. */
static void band_rows(const skit_sparse_lowrank_plan *plan, const double *X, size_t ldx, double *Y, size_t ldy)
{
    const size_t n = plan->n, d = plan->d, m = plan->m;
    const long half = (long)(m - 1) / 2, nn = (long)n;
#pragma omp parallel for schedule(static) if (n > 1 && n * m * d > 65536)
    for (long i = 0; i < nn; i++) {
        double *y = Y + (size_t)i * ldy;
        for (long o = SKIT_MAX(-half, i - nn + 1); o <= SKIT_MIN(half, i); o++) {
            const double *x = X + (size_t)(i - o) * ldx, *b = plan->band + (o + half);
            for (size_t c = 0; c < d; c++) {
                double w = b[c * m];
                if (w != 0) y[c] += w * x[c];
            }
        }
    }
}

int skit_sparse_lowrank_plan_execute(const skit_sparse_lowrank_plan *plan, const double *X,
                                     size_t ldx, double *Y, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(X);
    SKIT_REQUIRE_PTR(Y);
    size_t n = plan->n, d = plan->d, m = plan->m;
    SKIT_TRY(check_block_lds(plan->layout, n, d, ldx, ldy));
    const int rows = plan->layout == SKIT_LAYOUT_ROWS;
    if (plan->ski)
        SKIT_TRY(skit_ski_plan_execute(plan->ski, X, ldx, Y, ldy));
    else
        for (size_t c = 0; c < (rows ? n : d); c++) memset(Y + c * ldy, 0, (rows ? d : n) * sizeof *Y);
    if (m == 0) return SKIT_OK;
    if (rows) {
        band_rows(plan, X, ldx, Y, ldy);
        return SKIT_OK;
    }
    long half = (long)(m - 1) / 2, nn = (long)n;
#pragma omp parallel for schedule(static) if (d > 1 && n * m * d > 65536)
    for (size_t c = 0; c < d; c++) {
        const double *x = X + c * ldx, *b = plan->band + c * m;
        double *y = Y + c * ldy;
        /* offset o = i - j: y_i += b[o + half] x_{i-o} */
        for (long o = -half; o <= half; o++) {
            double w = b[o + half];
            if (w == 0) continue;
            long i0 = o > 0 ? o : 0, i1 = o < 0 ? nn + o : nn;
            for (long i = i0; i < i1; i++) y[i] += w * x[i - o];
        }
    }
    return SKIT_OK;
}

SKIT_DEFINE_STRUCT_SIZE(skit_ski_struct_size,
                        SKIT_STRUCT(skit_derivative_bound),
                        SKIT_STRUCT(skit_interp_options),
                        SKIT_STRUCT(skit_ski_options),
                        SKIT_STRUCT(skit_nystrom_options),
                        SKIT_STRUCT(skit_sparse_lowrank_options),
                        SKIT_STRUCT(skit_sparse_lowrank_errors),
                        SKIT_STRUCT(skit_theorem1_terms))
