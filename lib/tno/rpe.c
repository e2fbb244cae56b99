/* rpe.c — the RPE of TNO and FD-TNO (tno_internal.h): the MLP evaluated
 * at the operator's lags or frequencies into F, by layers or by the sweep
 * (mlp/batch.h), the overflow checks before kernels reach the FFTs, and
 * the GEMMs that apply the output layer. */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/simd.h"
#include "mlp/batch.h"
#include "tno/tno_internal.h"

size_t tno_round8(size_t v) { return (v + 7) / 8 * 8; }

static size_t thread_id(void)
{
#ifdef _OPENMP
    return (size_t)omp_get_thread_num();
#else
    return 0;
#endif
}

/* The RPE's GEMMs run on OpenBLAS's threads; when OpenBLAS is set to one
 * thread (skit's tools do this, so that a single OpenMP pool runs
 * everything and two spinning pools never compete for the cores), the
 * inputs are split over the OpenMP threads instead, each with its own
 * slice of the workspace. */
static int rpe_threads(const tno_rpe *r)
{
#if defined(_OPENMP) && defined(OPENBLAS_VERSION)
    if (r->threads > 1 && r->count >= 512 && openblas_get_num_threads() == 1) return r->threads;
#endif
    (void)r;
    return 1;
}

/* Work is cut into pieces of a fixed size, whatever the thread count: a
 * GEMM's or the sweep's rounding depends on where its column blocks start,
 * so cuts that moved with the team made the output differ between
 * --threads values (up to 2.2e-16 at n = 512). Threads take whole pieces. */
#define PIECE_COLS 256 /* a multiple of the GEMM kernels' 8 and SWEEP_BLOCK 32 */
#define PIECE_ROWS 16

static size_t pieces_of(size_t total, size_t piece) { return (total + piece - 1) / piece; }

void tno_gemm_cols(const tno_rpe *r, size_t m, size_t cols, size_t k, const double *A, size_t lda,
                   const double *B, size_t ldb, double *C, size_t ldc)
{
    const long pieces = (long)pieces_of(cols, PIECE_COLS);
    int nt = pieces > 1 ? rpe_threads(r) : 1;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (long i = 0; i < pieces; i++) {
        size_t c0 = (size_t)i * PIECE_COLS, c1 = SKIT_MIN(cols, c0 + PIECE_COLS);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)(c1 - c0), (int)k, 1.0, A,
                    (int)lda, B + c0, (int)ldb, 0.0, C + c0, (int)ldc);
    }
}

/* Split by rows of A (channels): the rows apply of the circulant engine
 * hands each thread a contiguous range of channels, so a thread mostly
 * reads the spectra it wrote from its own cache. single: float operands
 * (sgemm), else double. */
static void gemm_rows(const tno_rpe *r, int single, size_t m, size_t cols, size_t k, const void *A, size_t lda,
                      const void *B, size_t ldb, void *C, size_t ldc)
{
    /* each call packs all of B, so pieces are as tall as 8 of them allow
     * (up to 4 PIECE_ROWS: short pieces spend their time repacking B);
     * float pieces twice as tall, since the float kernel does twice the
     * work per instruction and the packing then weighs twice as much. The
     * size follows m only, never the thread count (above). */
    size_t piece = SKIT_MIN(4 * PIECE_ROWS, SKIT_MAX(PIECE_ROWS, (m / 8 + PIECE_ROWS - 1) / PIECE_ROWS * PIECE_ROWS));
    if (single) piece *= 2;
    const long pieces = (long)pieces_of(m, piece);
    int nt = pieces > 1 && cols >= 64 ? rpe_threads(r) : 1;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (long i = 0; i < pieces; i++) {
        size_t r0 = (size_t)i * piece, r1 = SKIT_MIN(m, r0 + piece);
        if (single)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(r1 - r0), (int)cols, (int)k, 1.0f,
                        (const float *)A + r0 * lda, (int)lda, B, (int)ldb, 0.0f, (float *)C + r0 * ldc, (int)ldc);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(r1 - r0), (int)cols, (int)k, 1.0,
                        (const double *)A + r0 * lda, (int)lda, B, (int)ldb, 0.0, (double *)C + r0 * ldc, (int)ldc);
    }
}

void tno_gemm_rows(const tno_rpe *r, size_t m, size_t cols, size_t k, const double *A, size_t lda,
                   const double *B, size_t ldb, double *C, size_t ldc)
{
    gemm_rows(r, 0, m, cols, k, A, lda, B, ldb, C, ldc);
}

void tno_sgemm_rows(const tno_rpe *r, size_t m, size_t cols, size_t k, const float *A, size_t lda,
                    const float *B, size_t ldb, float *C, size_t ldc)
{
    gemm_rows(r, 1, m, cols, k, A, lda, B, ldb, C, ldc);
}

/* Pieces of nseg (<= 2) segments of len[s] columns: each segment cut into
 * PIECE_COLS columns. */
static size_t segment_piece_count(int nseg, const size_t *len)
{
    size_t total = 0;
    for (int s = 0; s < nseg; s++) total += pieces_of(len[s], PIECE_COLS);
    return total;
}

/* Piece i: count columns from offset off of segment seg. */
static void segment_piece(int nseg, const size_t *len, size_t i, int *seg, size_t *off, size_t *count)
{
    int s = 0;
    while (s + 1 < nseg && i >= pieces_of(len[s], PIECE_COLS)) i -= pieces_of(len[s++], PIECE_COLS);
    *seg = s;
    *off = i * PIECE_COLS;
    *count = SKIT_MIN(len[s] - *off, (size_t)PIECE_COLS);
}

/* doubles of one thread's MLP scratch: float64 plans the double sweep's
 * (or the layers'), float32 plans the float sweep's */
static size_t rpe_workspace(const tno_rpe *r)
{
    if (!r->single) return skit_mlp_outputs_workspace(r->mlp);
    return r->outputs_f32 ? skit_mlp_outputs_f32_workspace(r->mlp) : skit_mlp_features_f32_workspace(r->mlp);
}

int tno_rpe_sweeps(const tno_rpe *r) { return r->mlp && skit_mlp_outputs_sweep_able(r->mlp, r->count); }

/* Float32 plans evaluate the features in float (the float sweep, or the
 * layers in double rounded) straight into Ff: they keep no float64 F. */
int tno_rpe_features(const tno_rpe *r)
{
    const size_t ld = r->Ff ? r->ldf : r->ld, ws = rpe_workspace(r);
    const long pieces = (long)segment_piece_count(r->nseg, r->len);
    int nt = pieces > 1 ? rpe_threads(r) : 1;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (long i = 0; i < pieces; i++) {
        int seg;
        size_t off, count;
        segment_piece(r->nseg, r->len, (size_t)i, &seg, &off, &count);
        const size_t col = r->start[seg] + off;
        double *work = r->work + thread_id() * ws;
        if (r->Ff) skit_mlp_features_f32(r->mlp, count, r->in + col, r->scale + col, r->Ff + col, ld, work);
        else skit_mlp_features(r->mlp, count, r->in + col, r->scale + col, r->F + col, ld, work);
    }
    return SKIT_OK;
}

void tno_rpe_fill_scale_row(tno_rpe *r)
{
    const size_t h = r->width;
    if (r->F) memcpy(r->F + h * r->ld, r->scale, r->cols * sizeof(double));
    if (r->Ff)
        for (size_t k = 0; k < r->cols; k++) r->Ff[h * r->ldf + k] = (float)r->scale[k];
}

/* float32 plans: straight to wbf (they keep no double copy) */
void tno_rpe_fill_wb(tno_rpe *r)
{
    const size_t h = r->width;
    const double *W, *bias;
    skit_mlp_output_layer(r->mlp, &W, &bias);
    for (size_t c = 0; c < r->outputs; c++) {
        if (r->single) {
            for (size_t j = 0; j < h; j++) r->wbf[c * (h + 1) + j] = (float)W[c * h + j];
            r->wbf[c * (h + 1) + h] = (float)bias[c];
            continue;
        }
        memcpy(r->wb + c * (h + 1), W + c * h, h * sizeof(double));
        r->wb[c * (h + 1) + h] = bias[c];
    }
}

/* NaN if v has a NaN/Inf, else max |v| */
SKIT_MULTIVERSION static double max_abs_or_nan(const double *v, size_t count)
{
    double mx = 0.0, probe = 0.0;
#ifdef _OPENMP
#pragma omp simd reduction(max : mx) reduction(+ : probe)
#endif
    for (size_t i = 0; i < count; i++) {
        double a = fabs(v[i]);
        mx = a > mx ? a : mx;
        probe += v[i] * 0.0;
    }
    return probe == 0.0 ? mx : NAN;
}

int tno_rpe_check_bound(const tno_rpe *r, size_t d, double N, const double *A, size_t lda, size_t m,
                        size_t k, const double *B, size_t ldb, size_t cols, const char *what)
{
    const double limit = DBL_MAX / (4.0 * N * N);
    double *mx = r->work; /* free between evaluations */
    long rows = (long)k;
#pragma omp parallel for schedule(static) if (k * cols >= 65536)
    for (long j = 0; j < rows; j++) mx[j] = max_abs_or_nan(B + (size_t)j * ldb, cols);
    for (size_t c = 0; c < m; c++) {
        double bound = 0;
        for (size_t j = 0; j < k; j++) bound += fabs(A[c * lda + j]) * mx[j];
        if (!(bound <= limit))
            return SKIT_ERROR(SKIT_ENONFINITE, "%s of channel %zu are NaN/Inf or bounded only by %g (the "
                                               "kernel's FFT could overflow): parameters too large",
                              what, c % d, bound);
    }
    return SKIT_OK;
}

/* sum of |t| over count values (vectorised: the order of the sum only
 * matters at the edge of overflow, where either answer is "too large") */
static double abs_sum(const double *t, size_t count)
{
    double sum = 0;
    SKIT_SIMD_SUM(sum)
    for (size_t k = 0; k < count; k++) sum += fabs(t[k]);
    return sum;
}

int tno_check_coeffs(const double *coeffs, size_t d, size_t per, const char *what)
{
    /* every spectrum value is bounded by the channel's sum of |t| */
    long bad = -1, channels = (long)d;
#pragma omp parallel for schedule(static) reduction(max : bad) if (d * per >= 65536)
    for (long c = 0; c < channels; c++)
        if (!isfinite(abs_sum(coeffs + (size_t)c * per, per)) && c > bad) bad = c;
    if (bad >= 0)
        return SKIT_ERROR(SKIT_ENONFINITE, "%s of channel %ld are NaN/Inf or sum to Inf in magnitude "
                                           "(the kernel's FFT would overflow): parameters too large",
                          what, bad);
    return SKIT_OK;
}

/* out: floats when single (float32 plans' kernels), else doubles */
static int rpe_sweep(tno_rpe *r, int single, int nseg, const size_t *start, const size_t *len, void *out,
                     size_t ld, const size_t *lo, size_t split, size_t part, size_t *changes)
{
    const size_t ws = rpe_workspace(r), rows = r->outputs;
    const long pieces = (long)segment_piece_count(nseg, len);
    int nt = pieces > 1 ? rpe_threads(r) : 1, status = SKIT_OK, team = 1;
    size_t cuts = 0;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(min : status) reduction(+ : cuts)
    {
        double *rss = r->row_ss + thread_id() * rows;
#ifdef _OPENMP
        if (thread_id() == 0) team = omp_get_num_threads();
#endif
        for (size_t k = 0; k < rows; k++) rss[k] = 0.0;
#pragma omp for schedule(static)
        for (long i = 0; i < pieces; i++) {
            int seg;
            size_t off, count;
            segment_piece(nseg, len, (size_t)i, &seg, &off, &count);
            const size_t col = start[seg] + off;
            double *work = r->work + thread_id() * ws;
            const size_t at = lo[seg] + off;
            int st = single ? skit_mlp_outputs_sweep_f32(r->mlp, count, r->in + col, r->scale + col,
                                                         (float *)out + at, ld, split, part, rss, &cuts, work)
                            : skit_mlp_outputs_sweep(r->mlp, count, r->in + col, r->scale + col,
                                                     (double *)out + at, ld, split, part, rss, &cuts, work);
            if (st < status) status = st;
        }
    }
    /* row k's sum of squares over the threads in row_ss[k] */
    for (int t = 1; t < team; t++)
        for (size_t k = 0; k < rows; k++) r->row_ss[k] += r->row_ss[(size_t)t * rows + k];
    if (changes) *changes = cuts;
    return status;
}

int tno_rpe_sweep(tno_rpe *r, int nseg, const size_t *start, const size_t *len, double *out, size_t ld,
                  const size_t *lo, size_t split, size_t part, size_t *changes)
{
    return rpe_sweep(r, 0, nseg, start, len, out, ld, lo, split, part, changes);
}

int tno_rpe_sweep_f32(tno_rpe *r, int nseg, const size_t *start, const size_t *len, float *out, size_t ld,
                      const size_t *lo, size_t split, size_t part, size_t *changes)
{
    return rpe_sweep(r, 1, nseg, start, len, out, ld, lo, split, part, changes);
}

int tno_rpe_check_rows(const tno_rpe *r, size_t d, double limit, const char *what)
{
    for (size_t k = 0; k < r->outputs; k++)
        if (!(sqrt(r->row_ss[k]) <= limit))
            return SKIT_ERROR(SKIT_ENONFINITE, "%s of channel %zu are NaN/Inf or too large (over %g): "
                                               "parameters too large", what, k % d, limit);
    return SKIT_OK;
}

/* ||v||_1 of a float row, summed in double (NaN/Inf propagate) */
SKIT_MULTIVERSION static double abs_sum_f32(const float *restrict v, size_t count)
{
    double sum = 0;
    SKIT_SIMD_SUM(sum)
    for (size_t k = 0; k < count; k++) sum += fabs((double)v[k]);
    return sum;
}

int tno_rpe_check_f32(tno_rpe *r, double N, const char *what)
{
    const size_t h = r->width, rows = h + 1, cols = r->cols;
    const double limit = FLT_MAX / (4.0 * N * N);
    double *l1 = r->work; /* free between evaluations */
    const long count = (long)rows;
    /* the evaluated columns only: the others are zero */
#pragma omp parallel for schedule(static) if (rows * cols >= 65536)
    for (long j = 0; j < count; j++) {
        const float *row = r->Ff + (size_t)j * r->ldf;
        l1[j] = 0;
        for (int sg = 0; sg < r->nseg; sg++) l1[j] += abs_sum_f32(row + r->start[sg], r->len[sg]);
    }
    for (size_t j = 0; j < rows; j++)
        if (!(l1[j] <= limit))
            return SKIT_ERROR(SKIT_ENONFINITE, "%s: feature %zu sums to %g, too large for float32: parameters "
                                               "too large", what, j, l1[j]);
    for (size_t c = 0; c < r->outputs; c++) {
        double bound = 0;
        for (size_t j = 0; j < rows; j++) bound += fabs((double)r->wbf[c * rows + j]) * l1[j];
        if (!(bound <= limit))
            return SKIT_ERROR(SKIT_ENONFINITE, "%s of output %zu are NaN/Inf or bounded only by %g (too large "
                                               "for float32 transforms): parameters too large", what, c, bound);
    }
    return SKIT_OK;
}

/* ---- create / destroy ----------------------------------------------------- */

void tno_add_terms(const size_t (*terms)[2], size_t count, size_t *doubles, int *overflow)
{
    for (size_t i = 0; i < count; i++) {
        size_t v;
        if (skit_size_mul(terms[i][0], terms[i][1], &v) || skit_size_add(*doubles, v, doubles))
            *overflow = 1;
    }
}

void tno_rpe_estimate(const skit_tno_plan *p, size_t cols, size_t outputs, size_t *doubles,
                      int *overflow)
{
    const size_t h = p->opt.rpe_width, threads = (size_t)p->threads;
    size_t terms[4][2] = {{cols + 8, h + 3},                             /* F, inputs, column scale */
                          {outputs, h + 1},                              /* [W b] */
                          {threads, 1024 * (h + 1)},                     /* feature workspaces */
                          {threads, outputs * (p->opt.rpe_layers + 36)}}; /* the sweep's basis, maxima */
    tno_add_terms(terms, 4, doubles, overflow);
}

int tno_rpe_create(tno_rpe *r, const skit_tno_plan *p, const double *params, size_t cols,
                   size_t outputs)
{
    const skit_tno_options *o = &p->opt;
    const size_t h = o->rpe_width, ld = tno_round8(cols);
    r->width = h;
    r->outputs = outputs;
    r->cols = cols;
    r->ld = ld;
    r->threads = p->threads;
    r->single = o->precision == SKIT_PRECISION_F32;
    SKIT_TRY(skit_mlp_create(&r->mlp, 1, h, o->rpe_layers, outputs, o->activation, o->norm, o->seed));
    r->features_params = skit_mlp_parameter_count(r->mlp) - outputs * (h + 1);
    if (r->single) SKIT_TRY(skit_mlp_keep_float_copy(r->mlp, 0));
    if (params) SKIT_TRY(skit_mlp_set_parameters(r->mlp, params, p->param_count));
    r->work = skit_malloc((size_t)p->threads, rpe_workspace(r) * sizeof(double));
    r->row_ss = skit_malloc((size_t)p->threads, outputs * sizeof(double));
    r->in = skit_calloc(cols, sizeof(double));
    r->scale = skit_calloc(cols, sizeof(double));
    if (!r->work || !r->row_ss || !r->in || !r->scale) return SKIT_ENOMEM;
    if (r->single) return SKIT_OK; /* F and [W b] in float: Ff (tno_spectral_create_f32) */
    r->F = skit_calloc((h + 1) * ld, sizeof(double));
    r->wb = skit_calloc(outputs * (h + 1), sizeof(double));
    return r->F && r->wb ? SKIT_OK : SKIT_ENOMEM;
}

int tno_rpe_keep_outputs_f32(tno_rpe *r)
{
    SKIT_TRY(skit_mlp_keep_float_copy(r->mlp, 1));
    r->outputs_f32 = 1;
    skit_free(r->work);
    r->work = skit_malloc((size_t)r->threads, rpe_workspace(r) * sizeof(double));
    return r->work ? SKIT_OK : SKIT_ENOMEM;
}

void tno_rpe_destroy(tno_rpe *r)
{
    skit_mlp_destroy(r->mlp);
    skit_free(r->work);
    skit_free(r->row_ss);
    skit_free(r->in);
    skit_free(r->scale);
    skit_free(r->F);
    skit_free(r->wb);
    skit_free(r->Ff);
}

size_t tno_rpe_bytes(const tno_rpe *r)
{
    if (!r->mlp) return 0;
    const size_t h = r->width, out = r->outputs, dbl = sizeof(double);
    size_t total = skit_mlp_parameter_count(r->mlp) * dbl;
    if (r->single) total += (r->outputs_f32 ? skit_mlp_parameter_count(r->mlp) : r->features_params) * sizeof(float);
    total += (size_t)r->threads * (rpe_workspace(r) + out) * dbl;
    total += 2 * r->cols * dbl; /* inputs, scale */
    if (r->F) total += ((h + 1) * r->ld + out * (h + 1)) * dbl; /* F, [W b] */
    if (r->Ff) total += ((h + 1) * r->ldf + out * (h + 1)) * sizeof(float);
    return total;
}

/* ---- the operator functions TNO and FD-TNO share --------------------------- */

int tno_spectral_get_parameters(const skit_tno_plan *p, double *params)
{
    const tno_spectral *s = p->op;
    return skit_mlp_get_parameters(s->rpe.mlp, params, p->param_count);
}

/* New weights move the ReLU masks: FD-TNO's next update sweeps again and
 * measures how often they change. */
int tno_spectral_put_parameters(skit_tno_plan *p, const double *params)
{
    tno_spectral *s = p->op;
    s->outputs_by_layers = 0;
    return skit_mlp_set_parameters(s->rpe.mlp, params, p->param_count);
}

int tno_spectral_eval_rpe(skit_tno_plan *p, size_t *points)
{
    tno_spectral *s = p->op;
    SKIT_TRY(tno_rpe_features(&s->rpe));
    *points = s->rpe.count;
    return SKIT_OK;
}

static size_t engine_workspace(const skit_tno_plan *p)
{
    const tno_spectral *s = p->op;
    const int rows = p->opt.layout == SKIT_TNO_ROWS;
    if (s->engine) return skit_circulant_workspace_doubles(s->engine, rows);
    if (!s->engine_f) return 0; /* device plans */
    /* float32 plans: update and execute use the float engine's (floats, two to a double) */
    size_t floats = SKIT_MAX(skit_circulantf_workspace_doubles(s->engine_f, rows),
                             skit_circulantf_workspace_doubles(s->engine_f, 0));
    return (floats + 1) / 2;
}

/* The engine's buffers, then, for FD-TNO and float32 plans, room for one
 * kernel (tno_spectral_coeffs; device plans take the Toeplitz form at
 * every update, which allocates nothing). */
size_t tno_spectral_workspace(const skit_tno_plan *p)
{
    const tno_spectral *s = p->op;
    const int kernel = p->opt.kind == SKIT_TNO_FD || p->opt.precision == SKIT_PRECISION_F32;
    return engine_workspace(p) + (kernel ? tno_round8(s->length) : 0);
}

/* The Toeplitz form of the circular product: lag l at l mod N (the causal
 * plan's negative lags are zero up to rounding, and set to 0). */
/* Channel c's circulant kernel (N values) from the spectra update wrote:
 * the float engine's on float32 plans, widened in place (the floats fill
 * the first half of kernel; work holds the engine's scratch). */
static void kernel_of(const skit_tno_plan *p, size_t c, double *kernel, double *work)
{
    const tno_spectral *s = p->op;
    if (!s->engine_f) {
        skit_circulant_kernel(s->engine, c, kernel, work);
        return;
    }
    const size_t N = skit_circulantf_length(s->engine_f);
    float *kf = (float *)kernel;
    skit_circulantf_kernel(s->engine_f, c, kf, (float *)work);
    for (size_t q = N; q-- > 0;) kernel[q] = (double)kf[q];
}

int tno_spectral_coeffs(const skit_tno_plan *p, double *out)
{
    const tno_spectral *s = p->op;
    const size_t n = p->n, d = p->d, per = 2 * n - 1, N = s->length;
    double *work = skit_workspace_take(p->workspace);
    if (!work) return SKIT_ENOMEM;
    double *k = work + engine_workspace(p);
    for (size_t c = 0; c < d; c++) {
        kernel_of(p, c, k, work);
        double *t = out + c * per;
        for (size_t q = 0; q < per; q++) {
            long lag = (long)q - (long)(n - 1);
            if (lag < 0 && p->opt.causality == SKIT_CAUSAL) t[q] = 0.0;
            else t[q] = k[lag < 0 ? N - (size_t)(-lag) : (size_t)lag];
        }
    }
    skit_workspace_give(p->workspace, work);
    return SKIT_OK;
}

int tno_spectral_create_f32(skit_tno_plan *p, size_t basis_rows)
{
    tno_spectral *s = p->op;
    tno_rpe *r = &s->rpe;
    const skit_circulant_shape shape = {.rows = p->n, .cols = p->n, .channels = p->d, .spectra = p->d,
                                        .length = s->length, .basis_rows = basis_rows,
                                        .rows_layout = p->opt.layout == SKIT_TNO_ROWS,
                                        .what = "token-mixing operator plan (float32)",
                                        .planner = p->opt.planner};
    SKIT_TRY(skit_circulantf_create(&s->engine_f, &shape));
    const size_t h = r->width;
    r->ldf = (r->cols + 15) / 16 * 16; /* float rows 64-byte aligned, as FFTW planned */
    r->Ff = skit_calloc((h + 1) * r->ldf + r->outputs * (h + 1), sizeof(float));
    if (!r->Ff) return SKIT_ENOMEM;
    r->wbf = r->Ff + (h + 1) * r->ldf;
    tno_rpe_fill_scale_row(r);
    return SKIT_OK;
}

void tno_spectral_execute_f32(const skit_tno_plan *p, const float *x, float *y, float *work)
{
    const tno_spectral *s = p->op;
    if (p->opt.layout == SKIT_TNO_ROWS) skit_circulantf_apply_rows(s->engine_f, 0, x, p->d, y, p->d, p->batch, work);
    else skit_circulantf_apply_channels(s->engine_f, 0, x, p->n, y, p->n, p->batch * p->d, work);
}

void tno_spectral_execute(const skit_tno_plan *p, const double *x, double *y, double *work)
{
    const tno_spectral *s = p->op;
    if (p->opt.layout == SKIT_TNO_ROWS) skit_circulant_apply_rows(s->engine, 0, x, p->d, y, p->d, p->batch, work);
    else skit_circulant_apply_channels(s->engine, 0, x, p->n, y, p->n, p->batch * p->d, work);
}

double *tno_spectral_spectra(skit_tno_plan *p, size_t *doubles)
{
    tno_spectral *s = p->op;
    *doubles = p->d * skit_circulant_spectra_ld(s->engine);
    return skit_circulant_spectra(s->engine);
}
