/* tno.c — token-mixing plans (skit/tno.h): options, parameters, the
 * TNO and FD-TNO paths (RPE features, output layer, spectra), and the
 * layout transposes.
 *
 * TNO and FD-TNO apply through one engine, an skit_fdtno_plan (lib/freq,
 * freq_internal.h), which reads the ROWS layout (PyTorch's (B, N, D))
 * directly: each thread gathers 8 channels of every row into its FFT
 * buffers and scatters the outputs back, so no transposed copy of x or y
 * is made. SKI-TNO (ski_tno.c) works natively in ROWS: its interpolation
 * and band loops run along the contiguous channel index. Device plans
 * transpose on the host (lib/cuda/plan_tno.c, with p->xt, p->yt). */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "mlp/batch.h"
#include "freq/freq_internal.h"
#include "tno/tno_internal.h"
#include "core/simd.h" /* SKIT_SIMD_SUM */

/* Tile edge of the blocked transposes: 32 x 32 doubles (8 KiB) per tile
 * keeps source and destination lines in L1. */
#define TILE 32

void skit_tno_options_default(skit_tno_options *o, skit_tno_kind kind)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->causality = SKIT_BIDIRECTIONAL;
    o->layout = SKIT_TNO_ROWS;
    o->rpe_width = 64;
    o->rpe_layers = 3;
    o->activation = SKIT_ACTIVATION_RELU;
    o->norm = SKIT_NORM_RMS;
    o->decay = 0.99;
    o->rank = 64;
    o->taps = 17;
    o->knots = 32;
    o->fft_length = 0;
    o->seed = 1;
}

const char *skit_tno_kind_name(skit_tno_kind kind)
{
    switch (kind) {
    case SKIT_TNO_FFT: return "tno";
    case SKIT_TNO_SKI: return "ski";
    case SKIT_TNO_FD: return "fd";
    }
    return "unknown";
}

static int max_threads(void)
{
#ifdef _OPENMP
    int t = omp_get_max_threads();
    return t > 0 ? t : 1;
#else
    return 1;
#endif
}

void skit_tno_transpose_ld(const double *src, size_t rows, size_t cols, size_t lds, double *dst,
                           size_t ldd)
{
    size_t tr = (rows + TILE - 1) / TILE, tc = (cols + TILE - 1) / TILE;
    long tiles = (long)(tr * tc);
#pragma omp parallel for schedule(static) if (rows * cols >= 16384)
    for (long t = 0; t < tiles; t++) {
        size_t i0 = (size_t)t / tc * TILE, j0 = (size_t)t % tc * TILE;
        size_t i1 = SKIT_MIN(i0 + TILE, rows), j1 = SKIT_MIN(j0 + TILE, cols);
        for (size_t j = j0; j < j1; j++)
            for (size_t i = i0; i < i1; i++) dst[j * ldd + i] = src[i * lds + j];
    }
}

void skit_tno_transpose(const double *src, size_t rows, size_t cols, double *dst)
{
    skit_tno_transpose_ld(src, rows, cols, cols, dst, rows);
}

/* ---- option validation and sizes --------------------------------------- */

static int mlp_out_dim(const skit_tno_options *o, size_t d)
{
    return (int)(o->kind == SKIT_TNO_FD && o->causality == SKIT_BIDIRECTIONAL ? 2 * d : d);
}

static int validate_options(const skit_tno_options *o)
{
    if (o->kind != SKIT_TNO_FFT && o->kind != SKIT_TNO_SKI && o->kind != SKIT_TNO_FD)
        return SKIT_ERROR(SKIT_EINVAL, "kind = %d unknown: need SKIT_TNO_FFT, SKIT_TNO_SKI or SKIT_TNO_FD",
                          (int)o->kind);
    if (o->causality != SKIT_BIDIRECTIONAL && o->causality != SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d unknown: need SKIT_BIDIRECTIONAL or SKIT_CAUSAL",
                          (int)o->causality);
    if (o->layout != SKIT_TNO_ROWS && o->layout != SKIT_TNO_CHANNELS)
        return SKIT_ERROR(SKIT_EINVAL, "layout = %d unknown: need SKIT_TNO_ROWS or SKIT_TNO_CHANNELS",
                          (int)o->layout);
    if (o->device != SKIT_DEVICE_CPU && o->device != SKIT_DEVICE_CUDA)
        return SKIT_ERROR(SKIT_EINVAL, "device = %d unknown: need SKIT_DEVICE_CPU or SKIT_DEVICE_CUDA",
                          (int)o->device);
    if (o->kind == SKIT_TNO_FFT || o->kind == SKIT_TNO_FD) {
        if (o->rpe_width == 0 || o->rpe_width > 65536)
            return SKIT_ERROR(SKIT_EDOM, "rpe_width = %zu out of range: need 1 <= width <= 65536",
                              o->rpe_width);
        if (o->rpe_layers > 64)
            return SKIT_ERROR(SKIT_EDOM, "rpe_layers = %zu out of range: need 0 <= layers <= 64",
                              o->rpe_layers);
        if (o->activation != SKIT_ACTIVATION_RELU && o->activation != SKIT_ACTIVATION_SILU &&
            o->activation != SKIT_ACTIVATION_GELU)
            return SKIT_ERROR(SKIT_EINVAL, "activation = %d unknown: need ReLU, SiLU or GeLU",
                              (int)o->activation);
        if (o->norm != SKIT_NORM_NONE && o->norm != SKIT_NORM_LAYER && o->norm != SKIT_NORM_RMS)
            return SKIT_ERROR(SKIT_EINVAL, "norm = %d unknown: need none, LayerNorm or RMS norm",
                              (int)o->norm);
    }
    if (o->kind == SKIT_TNO_FFT && !(o->decay > 0 && o->decay <= 1))
        return SKIT_ERROR(SKIT_EDOM, "decay = %g out of range: the TNO decay bias needs 0 < lambda <= 1",
                          o->decay);
    if (o->kind == SKIT_TNO_SKI) {
        if (!(o->decay > 0 && o->decay < 1))
            return SKIT_ERROR(SKIT_EDOM, "decay = %g out of range: the SKI time warp needs 0 < lambda < 1",
                              o->decay);
        if (o->knots == 0 || o->knots > ((size_t)1 << 20))
            return SKIT_ERROR(SKIT_EDOM, "knots = %zu out of range: need 1 <= K <= 2^20 per side",
                              o->knots);
        if (o->taps % 2 == 0 && o->taps != 0)
            return SKIT_ERROR(SKIT_EDOM, "taps = %zu out of range: need an odd m (a centred filter) or 0",
                              o->taps);
        if (o->rank < 2)
            return SKIT_ERROR(SKIT_EDOM, "rank = %zu out of range: need 2 <= r <= n", o->rank);
        if (o->causal_ski != SKIT_TNO_CAUSAL_CUMSUM && o->causal_ski != SKIT_TNO_CAUSAL_BLOCKED)
            return SKIT_ERROR(SKIT_EINVAL, "causal_ski = %d unknown: need SKIT_TNO_CAUSAL_CUMSUM or "
                                           "SKIT_TNO_CAUSAL_BLOCKED", (int)o->causal_ski);
    }
    return SKIT_OK;
}

/* Parameters of an MLP 1 -> out with `layers` hidden layers of `width`. */
static int mlp_params(size_t width, size_t layers, size_t out, size_t *count)
{
    size_t hidden, last, total;
    if (skit_size_mul(width, width + 1, &hidden) || skit_size_mul(hidden, layers, &hidden) ||
        skit_size_mul(out, width + 1, &last) || skit_size_add(hidden, last, &total) ||
        skit_size_add(total, 2 * width, &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "RPE parameter count (width %zu, %zu layers, %zu outputs) "
                                          "overflows size_t", width, layers, out);
    *count = total;
    return SKIT_OK;
}

int skit_tno_parameter_count_for(const skit_tno_options *o, size_t d, size_t *count)
{
    SKIT_REQUIRE_PTR(count);
    *count = 0;
    SKIT_REQUIRE_PTR(o);
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1 channels");
    if (d > ((size_t)1 << 30)) return SKIT_ERROR(SKIT_EDOM, "d = %zu out of range: need d <= 2^30", d);
    SKIT_TRY(validate_options(o));
    if (o->kind == SKIT_TNO_SKI) {
        size_t a, b;
        if (skit_size_mul(d, 2 * o->knots, &a) || skit_size_mul(d, o->taps, &b) ||
            skit_size_add(a, b, count))
            return SKIT_ERROR(SKIT_EOVERFLOW, "SKI parameter count (d = %zu, K = %zu, m = %zu) "
                                              "overflows size_t", d, o->knots, o->taps);
        return SKIT_OK;
    }
    return mlp_params(o->rpe_width, o->rpe_layers, (size_t)mlp_out_dim(o, d), count);
}

/* ---- TNO and FD-TNO: RPE features -> output layer -> spectra ------------
 *
 * Both operators run on the circulant engine of lib/freq (p->fd, an
 * skit_fdtno_plan: d spectra on a length-N grid, one apply for both).
 * TNO's N is the FFTW-friendly length >= 2n-1 of the Toeplitz plans; its
 * lag t sits at circulant column t mod N, so the RPE is evaluated straight
 * into that order (columns 0..n-1 and N-n+1..N-1; the others stay 0).
 *
 * The RPE ends in a Linear layer and the decay lambda^|t| is one scalar
 * per lag for all channels, so channel c's kernel is
 *     k_c(t) = sum_j W[c][j] g_j(t) + b[c] lambda^|t|,  g_j = lambda^|t| z_j(t),
 * with z_j the activations entering the output layer (the "features",
 * skit_mlp_features). The features times the decay, plus the decay itself
 * as row h, form F ((h+1) x N, the column scale p->decay_pow). DFTs are
 * linear, so the spectra are [W b] (d x (h+1)) times the spectra of F's
 * rows: h+1 FFTs and one GEMM instead of the output layer's GEMM and d
 * FFTs ("pushdown", when h + 1 < d, causal 2 (h + 1) < d: see
 * tno_pushdown). Otherwise the output layer makes the d x (2n-1)
 * coefficients (p->coeffs) and each channel is transformed.
 *
 * FD-TNO's response is the MLP's output on the grid itself, so its output
 * layer writes the (split, 1/N-scaled) spectra directly: F holds the
 * features times 1/N and the constant 1/N as row h. Causal plans need the
 * Hilbert step, which is linear too: Im K = W times the Hilbert images of
 * F's rows (h transforms; the constant row has none) when d >= 2h (see
 * create_fd), else one Hilbert step per channel.
 *
 * p->mlp_out holds F (ld = feature_ld) followed by [W b] (out x (h+1)). */

static size_t round8(size_t v) { return (v + 7) / 8 * 8; }

static size_t rpe_width(const skit_tno *p) { return p->opt.rpe_width; }

/* TNO's circulant length: the Toeplitz plans' FFTW-friendly length >= 2n-1 */
static size_t tno_length(size_t n)
{
    size_t L = 0;
    skit_fft_good_length(2 * n - 1, &L); /* n <= 2^30: always fits */
    return L;
}

/* columns of F: TNO N, FD the grid */
static size_t feature_cols(const skit_tno *p)
{
    return p->opt.kind == SKIT_TNO_FD ? skit_fdtno_grid_size(p->fd) : tno_length(p->n);
}

static size_t feature_ld(const skit_tno *p) { return round8(feature_cols(p)); }

static double *features(const skit_tno *p) { return p->mlp_out; }

static double *wb_matrix(const skit_tno *p) { return p->mlp_out + (rpe_width(p) + 1) * feature_ld(p); }

/* The RPE's GEMMs run on OpenBLAS's threads; when OpenBLAS is set to one
 * thread (skit's tools do this, so that a single OpenMP pool runs
 * everything and two spinning pools never compete for the cores), the
 * lags are split over the OpenMP threads instead, each with its own slice
 * of the workspace. */
static int mlp_threads(const skit_tno *p)
{
#if defined(_OPENMP) && defined(OPENBLAS_VERSION)
    if (p->threads > 1 && p->mlp_count >= 512 && openblas_get_num_threads() == 1) return p->threads;
#endif
    (void)p;
    return 1;
}

/* The calling thread's share [*lo, *hi) of total items, cut at multiples
 * of align (the last thread takes the rest). */
static void thread_share(size_t total, size_t align, size_t *lo, size_t *hi)
{
    size_t id = 0, team = 1;
#ifdef _OPENMP
    id = (size_t)omp_get_thread_num();
    team = (size_t)omp_get_num_threads();
#endif
    *lo = total * id / team / align * align;
    *hi = id + 1 == team ? total : total * (id + 1) / team / align * align;
}

/* C (m x cols, ldc) = A (m x k, lda) B (k x cols, ldb), the columns split
 * over the OpenMP threads in multiples of 8 under the same rule. */
static void gemm_cols(const skit_tno *p, size_t m, size_t cols, size_t k, const double *A, size_t lda,
                      const double *B, size_t ldb, double *C, size_t ldc)
{
    int nt = cols >= 256 ? mlp_threads(p) : 1;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        size_t c0, c1;
        thread_share(cols, 8, &c0, &c1);
        if (c1 > c0)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)(c1 - c0), (int)k, 1.0, A,
                        (int)lda, B + c0, (int)ldb, 0.0, C + c0, (int)ldc);
    }
}

/* The same product with the rows of A (channels) split over the threads
 * in multiples of 8, for the GEMMs that write the spectra: the rows apply
 * (skit_fdtno_apply) hands each thread a contiguous range of channels
 * under the same split, so a thread reads the spectra it wrote from its
 * own cache. Split by columns, half of every channel's spectrum sat dirty
 * in the other core's cache (measured at n = 512, d = 512, batch 4, 2
 * threads: update + apply 4.95 ms split by columns, 4.55 ms by rows). */
static void gemm_rows(const skit_tno *p, size_t m, size_t cols, size_t k, const double *A, size_t lda,
                      const double *B, size_t ldb, double *C, size_t ldc)
{
    int nt = m >= 16 && cols >= 64 ? mlp_threads(p) : 1;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        size_t r0, r1;
        thread_share(m, 8, &r0, &r1);
        if (r1 > r0)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(r1 - r0), (int)cols, (int)k, 1.0,
                        A + r0 * lda, (int)lda, B, (int)ldb, 0.0, C + r0 * ldc, (int)ldc);
    }
}

/* The column ranges where the RPE is evaluated: TNO lags 0..n-1 at
 * columns 0..n-1 and (bidirectional) lags -(n-1)..-1 at N-n+1..N-1; FD
 * the whole grid. */
static int feature_segments(const skit_tno *p, size_t start[2], size_t len[2])
{
    if (p->opt.kind == SKIT_TNO_FD) {
        start[0] = 0;
        len[0] = feature_cols(p);
        return 1;
    }
    start[0] = 0;
    len[0] = p->n;
    if (p->opt.causality == SKIT_CAUSAL || p->n == 1) return 1;
    start[1] = tno_length(p->n) - (p->n - 1);
    len[1] = p->n - 1;
    return 2;
}

/* The calling thread's pieces of nseg (<= 2) segments of len[s] columns,
 * taken in order and split evenly over the team: piece i is count[i]
 * columns from offset off[i] of segment seg[i]; returns the pieces. */
static int segment_pieces(int nseg, const size_t *len, int seg[2], size_t off[2], size_t count[2])
{
    size_t total = 0, a, b, before = 0;
    int pieces = 0;
    for (int s = 0; s < nseg; s++) total += len[s];
    thread_share(total, 1, &a, &b);
    for (int s = 0; s < nseg; s++) {
        size_t from = SKIT_MAX(a, before), to = SKIT_MIN(b, before + len[s]);
        if (to > from) {
            seg[pieces] = s;
            off[pieces] = from - before;
            count[pieces++] = to - from;
        }
        before += len[s];
    }
    return pieces;
}

static size_t thread_id(void)
{
#ifdef _OPENMP
    return (size_t)omp_get_thread_num();
#else
    return 0;
#endif
}

/* F's rows 0..h-1 = the RPE's features at every evaluated column times
 * the column scale (row h is constant, set at create). */
static int eval_features(skit_tno *p)
{
    size_t start[2], len[2];
    const int nseg = feature_segments(p, start, len);
    const size_t ld = feature_ld(p), ws = skit_mlp_outputs_workspace(p->mlp);
    double *F = features(p);
    int nt = mlp_threads(p);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int seg[2];
        size_t off[2], count[2];
        const int pieces = segment_pieces(nseg, len, seg, off, count);
        for (int i = 0; i < pieces; i++) {
            const size_t col = start[seg[i]] + off[i];
            skit_mlp_features(p->mlp, count[i], p->mlp_in + col, p->decay_pow + col, F + col, ld,
                              p->mlp_work + thread_id() * ws);
        }
    }
    return SKIT_OK;
}

/* [W b]: the output layer's weight with its bias as column h */
static void fill_wb(skit_tno *p)
{
    const size_t h = rpe_width(p), out = skit_mlp_out_dim(p->mlp);
    const double *W, *bias;
    skit_mlp_output_layer(p->mlp, &W, &bias);
    double *wb = wb_matrix(p);
    for (size_t c = 0; c < out; c++) {
        memcpy(wb + c * (h + 1), W + c * h, h * sizeof(double));
        wb[c * (h + 1) + h] = bias[c];
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

/* Before a GEMM writes the spectra: every product row c of A (m x k, lda)
 * times the k rows of B (cols wide, ldb) is bounded by sum_j |A[c][j]|
 * max|B_j|; refuse (SKIT_ENONFINITE) unless that bound is finite with
 * room for the FFTs a causal Hilbert step still runs on it (N^2), so a
 * failing update leaves the old spectra in place. */
static int check_bound(const skit_tno *p, const double *A, size_t lda, size_t m, size_t k, const double *B,
                       size_t ldb, size_t cols, const char *what)
{
    const double N = (double)skit_fdtno_fft_length(p->fd), limit = DBL_MAX / (4.0 * N * N);
    double *mx = p->mlp_work; /* free between evaluations */
    long rows = (long)k;
#pragma omp parallel for schedule(static) if (k * cols >= 65536)
    for (long j = 0; j < rows; j++) mx[j] = max_abs_or_nan(B + (size_t)j * ldb, cols);
    for (size_t c = 0; c < m; c++) {
        double bound = 0;
        for (size_t j = 0; j < k; j++) bound += fabs(A[c * lda + j]) * mx[j];
        if (!(bound <= limit))
            return SKIT_ERROR(SKIT_ENONFINITE, "%s of channel %zu are NaN/Inf or bounded only by %g (the "
                                               "kernel's FFT could overflow): parameters too large",
                              what, c % p->d, bound);
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

int skit_tno_check_coeffs(const double *coeffs, size_t d, size_t per, const char *what)
{
    /* every spectrum value is bounded by the channel's sum of |t|: if that
     * is finite, so are the FFTs of the kernels (the Toeplitz plan checks
     * only the coefficients themselves) */
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

/* The RPE by the sweep (ReLU, see skit_mlp_outputs_sweep): the output
 * layer on the last layer's basis instead of the features' GEMM */
static int tno_sweep(const skit_tno *p)
{
    return p->mlp && skit_mlp_outputs_sweep_able(p->mlp, p->mlp_count);
}

/* The RPE's outputs by the sweep over nseg segments of columns (start,
 * len), in that order, each thread on its share of them: output r of the
 * k-th column of segment s, times the column scale, goes to
 * out[(r % split) ld + (r / split) part + lo[s] + k]. */
static int sweep_segments(const skit_tno *p, int nseg, const size_t *start, const size_t *len, double *out,
                          size_t ld, const size_t *lo, size_t split, size_t part, size_t *changes)
{
    const size_t ws = skit_mlp_outputs_workspace(p->mlp), rows = skit_mlp_out_dim(p->mlp);
    int nt = mlp_threads(p), status = SKIT_OK, team = 1;
    size_t cuts = 0;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(min : status) reduction(+ : cuts)
    {
        int seg[2];
        size_t off[2], count[2];
        const int pieces = segment_pieces(nseg, len, seg, off, count);
        double *rss = p->row_ss + thread_id() * rows;
#ifdef _OPENMP
        if (thread_id() == 0) team = omp_get_num_threads();
#endif
        for (size_t r = 0; r < rows; r++) rss[r] = 0.0;
        for (int i = 0; i < pieces; i++) {
            const size_t col = start[seg[i]] + off[i];
            int st = skit_mlp_outputs_sweep(p->mlp, count[i], p->mlp_in + col, p->decay_pow + col,
                                            out + lo[seg[i]] + off[i], ld, split, part, rss, &cuts,
                                            p->mlp_work + thread_id() * ws);
            if (st < status) status = st;
        }
    }
    /* row r's sum of squares over the threads in row_ss[r] */
    for (int t = 1; t < team; t++)
        for (size_t r = 0; r < rows; r++) p->row_ss[r] += p->row_ss[(size_t)t * rows + r];
    if (changes) *changes = cuts;
    return status;
}

/* After sweep_segments: every row's 2-norm (the root of row_ss, at least
 * its max |output|) finite and at most limit, else SKIT_ENONFINITE naming
 * the channel (row % d) */
static int check_row_norms(const skit_tno *p, double limit, const char *what)
{
    const size_t rows = skit_mlp_out_dim(p->mlp);
    for (size_t r = 0; r < rows; r++)
        if (!(sqrt(p->row_ss[r]) <= limit))
            return SKIT_ERROR(SKIT_ENONFINITE, "%s of channel %zu are NaN/Inf or too large (over %g): "
                                               "parameters too large", what, r % p->d, limit);
    return SKIT_OK;
}

/* Channel c's TNO coefficients by the sweep, to out + c*ld: the lags in
 * increasing order, -(n-1)..-1 (columns N-n+1..) to out[lo[0]..] and
 * 0..n-1 (columns 0..) to out[lo[1]..] (skit's layout: lo = 0, n-1;
 * circulant order: N-n+1, 0). Causal plans write lags 0..n-1 only. */
static int rpe_coeffs_sweep(const skit_tno *p, double *out, size_t ld, const size_t lo[2])
{
    const size_t n = p->n, N = tno_length(n);
    const int bi = p->opt.causality == SKIT_BIDIRECTIONAL && n > 1;
    const size_t start[2] = {N - (n - 1), 0}, len[2] = {bi ? n - 1 : 0, n};
    return sweep_segments(p, 2, start, len, out, ld, lo, p->d, 0, NULL);
}

/* CPU per-channel plans with the sweep: the kernels in circulant order */
static size_t kernels_ld(const skit_tno *p) { return round8(tno_length(p->n)); }

int skit_tno_rpe_coeffs(const skit_tno *p, double *coeffs)
{
    if (tno_sweep(p)) {
        const size_t n = p->n, per = 2 * n - 1, lo[2] = {0, n - 1};
        if (p->opt.causality == SKIT_CAUSAL || n == 1)
            for (size_t c = 0; c < p->d; c++) memset(coeffs + c * per, 0, (n - 1) * sizeof(double));
        return rpe_coeffs_sweep(p, coeffs, per, lo);
    }
    const size_t n = p->n, d = p->d, per = 2 * n - 1, h = rpe_width(p), ld = feature_ld(p);
    const double *F = features(p), *wb = wb_matrix(p);
    /* lags 0..n-1 from columns 0..n-1, lags -(n-1)..-1 from N-n+1..N-1 */
    gemm_cols(p, d, n, h + 1, wb, h + 1, F, ld, coeffs + (n - 1), per);
    if (p->opt.causality == SKIT_BIDIRECTIONAL && n > 1)
        gemm_cols(p, d, n - 1, h + 1, wb, h + 1, F + (tno_length(p->n) - (n - 1)), ld, coeffs, per);
    else
        for (size_t c = 0; c < d; c++) memset(coeffs + c * per, 0, (n - 1) * sizeof(double));
    return SKIT_OK;
}

static int update_tno(skit_tno *p)
{
    const size_t h = rpe_width(p), d = p->d;
    if (p->kernels) { /* per channel, the RPE by the sweep, in circulant order */
        const size_t ld = kernels_ld(p), lo[2] = {tno_length(p->n) - (p->n - 1), 0};
        SKIT_TRY(rpe_coeffs_sweep(p, p->kernels, ld, lo));
        /* every spectrum value is at most sum |k| <= sqrt(N) |k|_2: finite if that is */
        SKIT_TRY(check_row_norms(p, DBL_MAX / sqrt((double)tno_length(p->n)), "RPE coefficients"));
        skit_fdtno_set_kernels(p->fd, p->kernels, ld);
        return SKIT_OK;
    }
    if (p->coeffs) { /* per channel in skit's layout (skit_tno_rpe_coeffs: sweep or GEMM) */
        if (!tno_sweep(p)) {
            SKIT_TRY(eval_features(p));
            fill_wb(p);
        }
        SKIT_TRY(skit_tno_rpe_coeffs(p, p->coeffs));
        SKIT_TRY(skit_tno_check_coeffs(p->coeffs, d, 2 * p->n - 1, "RPE coefficients"));
        if (p->fd) skit_fdtno_set_toeplitz(p->fd, p->coeffs); /* device plans have none */
        return SKIT_OK;
    }
    /* pushdown */
    SKIT_TRY(eval_features(p));
    fill_wb(p);
    const size_t ls = skit_fdtno_spectra_ld(p->fd);
    const double *basis = skit_fdtno_basis_data(p->fd);
    skit_fdtno_basis_from_rows(p->fd, features(p), feature_ld(p));
    SKIT_TRY(check_bound(p, wb_matrix(p), h + 1, d, h + 1, basis, ls, ls, "RPE kernel spectra"));
    gemm_rows(p, d, ls, h + 1, wb_matrix(p), h + 1, basis, ls, skit_fdtno_spectra_data(p->fd), ls);
    return SKIT_OK;
}

/* FD-TNO with the RPE's outputs by the sweep: the real parts (and,
 * bidirectional, the imaginary parts: outputs d.. to the second half of
 * each spectrum row) straight into the spectra, without the features'
 * GEMMs; a causal plan then runs its Hilbert step per channel. (With the
 * Hilbert step below the output layer the features are needed anyway, and
 * the layers' path computes them once, by the sweep too.) A failing check
 * leaves the spectra half-written: skit_tno_set_parameters then restores
 * the old parameters and updates again. */
static int fd_outputs_sweep(const skit_tno *p)
{
    return skit_mlp_outputs_sweep_able(p->mlp, p->mlp_count) && !p->outputs_by_layers &&
           (p->opt.causality == SKIT_BIDIRECTIONAL || !skit_fdtno_basis_rows(p->fd));
}

static int update_fd_sweep(skit_tno *p)
{
    const size_t d = p->d, half = skit_fdtno_grid_size(p->fd);
    const size_t ls = skit_fdtno_spectra_ld(p->fd), start = 0, lo = 0;
    double *spec = skit_fdtno_spectra_data(p->fd);
    const double N = (double)skit_fdtno_fft_length(p->fd);
    size_t changes = 0;
    SKIT_TRY(sweep_segments(p, 1, &start, &half, spec, ls, &lo, d, half, &changes));
    /* The FD grid spans [0, pi] whatever n is, so its masks change about
     * as often at every n (84 of 513 points, 99 of 2049, 101 of 8193 at
     * width 64): where runs average under 64 points, the outputs of short
     * runs are scattered writes and cost more than the features' GEMM
     * (bidirectional, d = 512: forward 4.9 against 4.3 ms at n = 512,
     * 2.27x against 1.86x the matvec at n = 2048; at n = 8192, d = 128
     * the sweep is the faster), and later updates take that path. */
    p->outputs_by_layers = 64 * changes > half;
    /* finite, with room for the FFTs of a causal Hilbert step (as check_bound) */
    SKIT_TRY(check_row_norms(p, DBL_MAX / (4.0 * N * N), "FD-TNO frequency responses"));
    if (p->opt.causality == SKIT_BIDIRECTIONAL) {
        for (size_t c = 0; c < d; c++) spec[c * ls + half] = spec[c * ls + half + half - 1] = 0.0;
        return SKIT_OK;
    }
    skit_fdtno_hilbert_rows(p->fd, spec, ls, d, spec + half, ls);
    return SKIT_OK;
}

static int update_fd(skit_tno *p)
{
    if (fd_outputs_sweep(p)) return update_fd_sweep(p);
    const size_t h = rpe_width(p), d = p->d, half = skit_fdtno_grid_size(p->fd);
    const size_t ls = skit_fdtno_spectra_ld(p->fd), ld = feature_ld(p);
    const double *F = features(p), *wb = wb_matrix(p);
    double *spec = skit_fdtno_spectra_data(p->fd);
    SKIT_TRY(eval_features(p));
    fill_wb(p);
    const size_t out = skit_mlp_out_dim(p->mlp);
    SKIT_TRY(check_bound(p, wb, h + 1, out, h + 1, F, ld, half, "FD-TNO frequency responses"));
    if (p->opt.causality == SKIT_BIDIRECTIONAL) {
        /* Re K_c from outputs c, Im K_c from outputs d + c (0 at 0 and π) */
        gemm_rows(p, d, half, h + 1, wb, h + 1, F, ld, spec, ls);
        gemm_rows(p, d, half, h + 1, wb + d * (h + 1), h + 1, F, ld, spec + half, ls);
        for (size_t c = 0; c < d; c++) spec[c * ls + half] = spec[c * ls + half + half - 1] = 0.0;
        return SKIT_OK;
    }
    if (skit_fdtno_basis_rows(p->fd)) { /* pushdown of the Hilbert step */
        double *basis = skit_fdtno_basis_data(p->fd);
        skit_fdtno_hilbert_rows(p->fd, F, ld, h, basis, ls);
        SKIT_TRY(check_bound(p, wb, h + 1, d, h, basis, ls, half, "FD-TNO Hilbert spectra"));
        gemm_rows(p, d, half, h + 1, wb, h + 1, F, ld, spec, ls);
        gemm_rows(p, d, half, h, wb, h + 1, basis, ls, spec + half, ls);
        return SKIT_OK;
    }
    gemm_rows(p, d, half, h + 1, wb, h + 1, F, ld, spec, ls);
    skit_fdtno_hilbert_rows(p->fd, spec, ls, d, spec + half, ls);
    return SKIT_OK;
}

int skit_tno_eval_rpe(skit_tno *p, size_t *points)
{
    SKIT_REQUIRE_PTR(p);
    if (points) *points = 0;
    if (!p->mlp) return SKIT_OK;
    SKIT_TRY(eval_features(p));
    if (points) *points = p->mlp_count;
    return SKIT_OK;
}

static int update_host(skit_tno *p)
{
    switch (p->opt.kind) {
    case SKIT_TNO_FFT: return update_tno(p);
    case SKIT_TNO_FD: return update_fd(p);
    case SKIT_TNO_SKI: return skit_tno_ski_update(p);
    }
    return SKIT_ERROR(SKIT_EINVAL, "plan of unknown kind %d", (int)p->opt.kind);
}

int skit_tno_update(skit_tno *p)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_TRY(update_host(p));
    return p->dev ? skit_tno_device_update(p) : SKIT_OK;
}

/* ---- create / destroy --------------------------------------------------- */

void skit_tno_destroy(skit_tno *p)
{
    if (!p) return;
    skit_tno_device_destroy(p);
    skit_mlp_destroy(p->mlp);
    skit_free(p->mlp_work);
    skit_free(p->row_ss);
    skit_free(p->mlp_in);
    skit_free(p->mlp_out);
    skit_free(p->backup);
    skit_free(p->decay_pow);
    skit_free(p->coeffs);
    skit_free(p->kernels);
    skit_toeplitz_plan_destroy(p->toeplitz);
    skit_fdtno_destroy(p->fd);
    skit_free(p->xt);
    skit_free(p->yt);
    skit_free(p->params);
    skit_interp_weights_destroy(p->W);
    skit_free(p->knot_index);
    skit_free(p->knot_frac);
    skit_free(p->a_coeffs);
    skit_free(p->a_coeffs_t);
    skit_free(p->taps_t);
    skit_free(p->u);
    skit_free(p->v);
    skit_free(p->ut);
    skit_free(p->vt);
    skit_free(p->s);
    skit_free(p->group_token);
    skit_free(p->group_row);
    skit_free(p->gv);
    skit_free(p->gu);
    skit_free(p);
}

/* Accumulates doubles of buffers with an overflow check. */
typedef struct budget {
    size_t doubles;
    int overflow;
} budget;

static void add(budget *b, size_t rows, size_t cols)
{
    size_t v;
    if (skit_size_mul(rows, cols, &v) || skit_size_add(b->doubles, v, &b->doubles)) b->overflow = 1;
}

/* Generated SKI parameters: knots uniform on [-1, 1] (stream 1), taps
 * uniform on +-1/sqrt(m) (stream 2), channel by channel. */
static void generate_ski_params(const skit_tno_options *o, size_t d, double *params)
{
    skit_rng rng;
    size_t nk = d * 2 * o->knots;
    skit_rng_seed_stream(&rng, o->seed, 1);
    skit_rng_fill_uniform(&rng, params, nk, -1.0, 1.0);
    if (o->taps) {
        double bound = 1.0 / sqrt((double)o->taps);
        skit_rng_seed_stream(&rng, o->seed, 2);
        skit_rng_fill_uniform(&rng, params + nk, d * o->taps, -bound, bound);
    }
}

/* The RPE MLP and its buffers: lags / grid (cols), column scale (cols),
 * F ((h+1) x feature_ld) with its constant row h = the column scale, and
 * [W b]; one feature workspace per thread (see eval_features). */
static int create_mlp_part(skit_tno *p, const double *params, size_t cols)
{
    const skit_tno_options *o = &p->opt;
    const size_t out = (size_t)mlp_out_dim(o, p->d), h = o->rpe_width, ld = round8(cols);
    SKIT_TRY(skit_mlp_create(&p->mlp, 1, h, o->rpe_layers, out, o->activation, o->norm, o->seed));
    if (params) SKIT_TRY(skit_mlp_set_parameters(p->mlp, params, p->param_count));
    p->mlp_work = skit_malloc((size_t)p->threads, skit_mlp_outputs_workspace(p->mlp) * sizeof(double));
    p->row_ss = skit_malloc((size_t)p->threads, out * sizeof(double));
    p->mlp_in = skit_calloc(cols, sizeof(double));
    p->decay_pow = skit_calloc(cols, sizeof(double));
    p->mlp_out = skit_calloc((h + 1) * ld + out * (h + 1), sizeof(double));
    p->backup = skit_malloc(p->param_count, sizeof(double));
    if (!p->mlp_work || !p->row_ss || !p->mlp_in || !p->decay_pow || !p->mlp_out || !p->backup)
        return SKIT_ENOMEM;
    return SKIT_OK;
}

/* Pushdown pays when the spectra of the h+1 rows of F are fewer FFTs than
 * the d channels'. Bidirectional, the GEMMs are the same size either way
 * (d (h+1) x N/2+1 complex against d (h+1) x 2n-1 real); causal, the
 * coefficients have n lags but the spectra still N/2+1 complex values, so
 * the pushdown's GEMM is twice the output layer's. Measured (1 thread,
 * h = 64): causal about even at d = 128, a gain at d = 512; hence
 * d > 2 (h+1) there. With the RPE by the sweep the per-channel output
 * layer costs a few multiply-adds an output, and the trade is d FFTs
 * against h+1 FFTs and the spectra GEMM: measured with a temporary switch
 * (skit bench tno, 2 threads, h = 64, bidirectional) per channel faster at
 * d = 128 (n = 8192: 2.25-2.33x the matvec against 2.46-2.54x), the
 * pushdown at d = 512 (n = 512, 2048: 1.53-1.57x and 2.17-2.23x against
 * 1.65-1.69x and 2.50x); hence d > 2 (h+1) for both. Device plans upload coefficients,
 * so they keep the per-channel path. */
static int tno_pushdown(const skit_tno *p)
{
    const size_t h = p->opt.rpe_width;
    if (p->opt.device != SKIT_DEVICE_CPU) return 0;
    return p->opt.causality == SKIT_CAUSAL || tno_sweep(p) ? p->d > 2 * (h + 1) : p->d > h + 1;
}

static int create_tno(skit_tno *p, const double *params)
{
    const size_t n = p->n, d = p->d, h = p->opt.rpe_width, L = tno_length(n);
    p->mlp_count = p->opt.causality == SKIT_CAUSAL ? n : 2 * n - 1;
    SKIT_TRY(create_mlp_part(p, params, L));
    const int pushdown = tno_pushdown(p); /* needs the MLP */
    /* on the device the product runs on the GPU's plan (skit_tno_device_create) */
    if (p->opt.device == SKIT_DEVICE_CPU)
        SKIT_TRY(skit_fdtno_create_engine(&p->fd, n, d, p->opt.causality, L, pushdown ? h + 1 : 0,
                                          p->opt.layout == SKIT_TNO_ROWS));
    /* raw integer lags, as the TNN code feeds its RPE, in circulant order */
    size_t start[2], len[2];
    int nseg = feature_segments(p, start, len);
    for (int s = 0; s < nseg; s++)
        for (size_t k = 0; k < len[s]; k++) {
            size_t col = start[s] + k;
            double lag = s == 0 ? (double)k : -(double)(n - 1) + (double)k;
            p->mlp_in[col] = lag;
            p->decay_pow[col] = pow(p->opt.decay, fabs(lag));
        }
    memcpy(features(p) + h * feature_ld(p), p->decay_pow, L * sizeof(double));
    if (!pushdown && p->fd && tno_sweep(p)) {
        p->kernels = skit_calloc(d, kernels_ld(p) * sizeof(double)); /* the zeros stay */
        if (!p->kernels) return SKIT_ENOMEM;
    } else if (!pushdown) {
        p->coeffs = skit_calloc(d, (2 * n - 1) * sizeof(double));
        if (!p->coeffs) return SKIT_ENOMEM;
    }
    return update_tno(p);
}

static int create_fd(skit_tno *p, const double *params)
{
    const size_t h = p->opt.rpe_width;
    /* The Hilbert step pushed below the output layer: h transforms instead
     * of d, but Im K then needs its own GEMM (d x h x N/2 multiply-adds,
     * while Re K's is the output layer itself). Measured (1 thread, h = 64):
     * a loss at d = 64 and 80, a gain from d = 128; the rule d >= 2h. */
    size_t basis = p->opt.causality == SKIT_CAUSAL && p->d >= 2 * h ? h : 0;
    SKIT_TRY(skit_fdtno_create_engine(&p->fd, p->n, p->d, p->opt.causality, p->opt.fft_length, basis,
                                      p->opt.layout == SKIT_TNO_ROWS));
    const size_t half = skit_fdtno_grid_size(p->fd);
    p->mlp_count = half;
    SKIT_TRY(create_mlp_part(p, params, half));
    SKIT_TRY(skit_fdtno_grid(p->fd, p->mlp_in));
    /* the 1/N of the stored spectra, folded into F */
    const double scale = 1.0 / (double)skit_fdtno_fft_length(p->fd);
    for (size_t m = 0; m < half; m++) p->decay_pow[m] = scale;
    memcpy(features(p) + h * feature_ld(p), p->decay_pow, half * sizeof(double));
    return update_fd(p);
}

static int create_ski(skit_tno *p, const double *params)
{
    const size_t n = p->n, d = p->d, r = p->r, m = p->m, K = p->K;
    p->params = skit_malloc(p->param_count, sizeof(double));
    p->backup = skit_malloc(p->param_count, sizeof(double));
    if (!p->params || !p->backup) return SKIT_ENOMEM;
    if (params) memcpy(p->params, params, p->param_count * sizeof(double));
    else generate_ski_params(&p->opt, d, p->params);

    skit_interp_options io;
    skit_interp_options_default(&io, n); /* linear, inducing points on [0, n-1] */
    SKIT_TRY(skit_interp_weights_create(&p->W, n, NULL, r, &io));
    p->spacing = (double)(n - 1) / (double)(r - 1);

    /* The warped positions of A's lags are the same for every channel:
     * locate their knot intervals once. */
    p->knot_index = skit_malloc(2 * r - 1, sizeof(long));
    p->knot_frac = skit_malloc(2 * r - 1, sizeof(double));
    if (!p->knot_index || !p->knot_frac) return SKIT_ENOMEM;
    for (size_t q = 0; q < 2 * r - 1; q++) {
        double t = ((double)q - (double)(r - 1)) * p->spacing;
        double w = (t < 0 ? -1.0 : 1.0) * pow(p->opt.decay, fabs(t));
        double u = w * (double)K; /* knot coordinate in [-K, K] */
        double j = floor(u);
        if (j > (double)K - 1) j = (double)K - 1;
        if (j < -(double)K) j = -(double)K;
        p->knot_index[q] = (long)j;
        p->knot_frac[q] = u - j;
    }

    p->a_coeffs = skit_malloc(d, (2 * r - 1) * sizeof(double));
    p->taps_t = skit_malloc(m ? m : 1, d * sizeof(double));
    p->u = skit_malloc(r, d * sizeof(double));
    p->v = skit_malloc(r, d * sizeof(double));
    if (!p->a_coeffs || !p->taps_t || !p->u || !p->v) return SKIT_ENOMEM;
    if (p->opt.causality == SKIT_CAUSAL) {
        p->a_coeffs_t = skit_malloc(2 * r - 1, d * sizeof(double));
        p->s = skit_malloc(r, d * sizeof(double));
        if (!p->a_coeffs_t || !p->s) return SKIT_ENOMEM;
        if (p->opt.causal_ski == SKIT_TNO_CAUSAL_BLOCKED) {
            /* group consecutive tokens that share a stencil */
            const skit_interp_weights *W = p->W;
            size_t G = 1;
            for (size_t i = 1; i < n; i++) G += W->start[i] != W->start[i - 1];
            p->groups = G;
            p->group_token = skit_malloc(G + 1, sizeof(size_t));
            p->group_row = skit_malloc(G, sizeof(size_t));
            p->gv = skit_malloc(G * W->width, d * sizeof(double));
            p->gu = skit_malloc(G * W->width, d * sizeof(double));
            if (!p->group_token || !p->group_row || !p->gv || !p->gu) return SKIT_ENOMEM;
            size_t g = 0;
            for (size_t i = 0; i < n; i++)
                if (i == 0 || W->start[i] != W->start[i - 1]) {
                    p->group_token[g] = i;
                    p->group_row[g++] = W->start[i];
                }
            p->group_token[G] = n;
        }
    } else if (p->opt.layout == SKIT_TNO_ROWS) {
        p->ut = skit_malloc(d, r * sizeof(double));
        p->vt = skit_malloc(d, r * sizeof(double));
        if (!p->ut || !p->vt) return SKIT_ENOMEM;
    }
    /* channel chunks of whole cache lines, about one per thread */
    size_t chunk = (d + (size_t)p->threads - 1) / (size_t)p->threads;
    p->chunk = SKIT_MAX((size_t)8, (chunk + 7) / 8 * 8);

    SKIT_TRY(skit_tno_ski_update(p));
    if (p->opt.causality == SKIT_BIDIRECTIONAL)
        SKIT_TRY(skit_toeplitz_plan_create(&p->toeplitz, r, r, d, SKIT_TOEPLITZ_PER_CHANNEL,
                                           SKIT_BIDIRECTIONAL, p->a_coeffs));
    return SKIT_OK;
}

/* Bytes of everything create will allocate (sub-plans estimated), so a
 * request beyond available memory is refused before any allocation. */
static int estimate_bytes(const skit_tno *p, size_t *bytes)
{
    const skit_tno_options *o = &p->opt;
    const size_t n = p->n, d = p->d;
    budget b = {0, 0};
    add(&b, p->param_count, 2); /* parameters + backup */
    /* device plans in ROWS: one sequence channel-major for the transfers */
    if (o->kind != SKIT_TNO_SKI && o->layout == SKIT_TNO_ROWS && o->device == SKIT_DEVICE_CUDA)
        add(&b, 2 * n, d);
    size_t L = 0;
    if (o->kind == SKIT_TNO_FFT || o->kind == SKIT_TNO_FD) {
        const size_t h = o->rpe_width, out = (size_t)mlp_out_dim(o, d);
        if (o->kind == SKIT_TNO_FFT) {
            if (skit_fft_good_length(2 * n - 1, &L) != SKIT_OK) b.overflow = 1;
        } else {
            L = 1;
            if (o->fft_length) L = o->fft_length;
            else
                while (L < 2 * n) L *= 2;
        }
        size_t cols = o->kind == SKIT_TNO_FFT ? L : L / 2 + 1;
        add(&b, cols + 8, h + 3);                    /* F, lags, column scale */
        add(&b, out, h + 1);                         /* [W b] */
        add(&b, (size_t)p->threads, 1024 * (h + 1)); /* feature workspaces */
        add(&b, (size_t)p->threads, out * (o->rpe_layers + 4 + 32)); /* the sweep's output basis, block, maxima */
        add(&b, L / 2 + 1, 2 * (d + h + 1));         /* spectra, pushdown basis */
        add(&b, (size_t)p->threads, 9 * L + 32);     /* FFT buffers (8-channel groups) */
        if (o->kind == SKIT_TNO_FFT) add(&b, L + 8, d); /* per-channel coefficients or kernels */
    } else {
        size_t r = p->r;
        if (skit_fft_good_length(2 * r - 1, &L) != SKIT_OK) b.overflow = 1;
        add(&b, n, 4);              /* interpolation weights, starts, points */
        add(&b, 2 * r - 1, 2 * d + 2); /* A's coefficients (+ transposed), knot positions */
        add(&b, o->taps + 1, d);
        add(&b, 9 * r, d);           /* u, v, ut, vt, s; blocked: 2 (G w) x d */
        add(&b, L / 2 + 1, 2 * d);
        add(&b, (size_t)p->threads, 2 * L + 16);
    }
    if (b.overflow || skit_size_mul(b.doubles, sizeof(double), bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "operator size (n = %zu, d = %zu) overflows size_t", n, d);
    return SKIT_OK;
}

static size_t actual_bytes(const skit_tno *p)
{
    const size_t n = p->n, d = p->d;
    size_t total = sizeof *p, dbl = sizeof(double);
    total += p->toeplitz ? skit_toeplitz_plan_bytes(p->toeplitz) : 0;
    total += skit_tno_device_bytes(p);
    if (p->mlp) {
        const size_t h = rpe_width(p), out = skit_mlp_out_dim(p->mlp), cols = feature_cols(p);
        total += skit_mlp_parameter_count(p->mlp) * dbl;
        total += (size_t)p->threads * (skit_mlp_outputs_workspace(p->mlp) + out) * dbl;
        total += (2 * cols + (h + 1) * feature_ld(p) + out * (h + 1)) * dbl; /* lags, scale, F, [W b] */
        total += p->param_count * dbl; /* backup */
    }
    if (p->coeffs) total += d * (2 * n - 1) * dbl;
    if (p->kernels) total += d * kernels_ld(p) * dbl;
    total += skit_fdtno_bytes(p->fd);
    if (p->xt) total += 2 * n * d * dbl;
    if (p->W) {
        total += p->param_count * 2 * dbl;
        total += n * (p->W->width * dbl + sizeof(size_t) + dbl) + p->r * dbl;
        total += (2 * p->r - 1) * (sizeof(long) + dbl);
        total += d * (2 * p->r - 1) * dbl * (p->a_coeffs_t ? 2 : 1);
        total += (p->m ? p->m : 1) * d * dbl;
        total += p->r * d * dbl * (2 + (p->ut ? 2 : 0) + (p->s ? 1 : 0));
        if (p->gv) total += (2 * p->groups + 1) * sizeof(size_t) + 2 * p->groups * p->W->width * d * dbl;
    }
    return total;
}

int skit_tno_create(skit_tno **plan, size_t n, size_t d, size_t batch,
                    const skit_tno_options *options, const double *params, size_t param_count)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(options);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 tokens");
    if (n > ((size_t)1 << 30)) return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^30", n);
    if (batch == 0) return SKIT_ERROR(SKIT_EDOM, "batch = 0 out of range: need batch >= 1");
    size_t count;
    SKIT_TRY(skit_tno_parameter_count_for(options, d, &count));
    const skit_tno_options *o = options;
    if (o->kind == SKIT_TNO_SKI) {
        if (o->rank > n)
            return SKIT_ERROR(SKIT_EDOM, "rank = %zu out of range: need 2 <= r <= n (= %zu)", o->rank, n);
        if (o->taps > 2 * n - 1)
            return SKIT_ERROR(SKIT_EDOM, "taps = %zu out of range: need m <= 2n - 1 (= %zu)", o->taps,
                              2 * n - 1);
    }
    if (o->kind == SKIT_TNO_FD && o->fft_length != 0 &&
        (o->fft_length % 2 || o->fft_length < 2 * n || o->fft_length > ((size_t)1 << 31)))
        return SKIT_ERROR(SKIT_EDOM, "fft_length = %zu out of range: need an even N with 2n (= %zu) "
                                     "<= N <= 2^31, or 0 for the default", o->fft_length, 2 * n);
    size_t elements;
    if (skit_size_mul(n, d, &elements) || skit_size_mul(elements, batch, &elements) ||
        skit_size_mul(elements, sizeof(double), &elements))
        return SKIT_ERROR(SKIT_EOVERFLOW, "batch * n * d (%zu * %zu * %zu) doubles overflow size_t",
                          batch, n, d);
    if (params) {
        if (param_count != count)
            return SKIT_ERROR(SKIT_ESHAPE, "param_count = %zu: this %s operator has %zu parameters",
                              param_count, skit_tno_kind_name(o->kind), count);
        SKIT_TRY(skit_check_finite(params, count, "params"));
    }
    /* every argument is valid: now whether this device can run it */
    if (o->device == SKIT_DEVICE_CUDA) {
        SKIT_TRY(skit_tno_device_supported(o));
        SKIT_TRY(skit_device_check(SKIT_DEVICE_CUDA));
    }

    skit_tno *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->opt = *o;
    p->n = n;
    p->d = d;
    p->batch = batch;
    p->param_count = count;
    p->threads = max_threads();
    p->r = o->rank;
    p->m = o->taps;
    p->K = o->knots;
    size_t estimate;
    int status = estimate_bytes(p, &estimate);
    if (status == SKIT_OK) status = skit_memory_check(estimate, "token-mixing operator plan");
    if (status == SKIT_OK && o->kind != SKIT_TNO_SKI && o->layout == SKIT_TNO_ROWS &&
        o->device == SKIT_DEVICE_CUDA) {
        p->xt = skit_malloc(n, d * sizeof(double));
        p->yt = skit_malloc(n, d * sizeof(double));
        if (!p->xt || !p->yt) status = SKIT_ENOMEM;
    }
    if (status == SKIT_OK) {
        switch (o->kind) {
        case SKIT_TNO_FFT: status = create_tno(p, params); break;
        case SKIT_TNO_FD: status = create_fd(p, params); break;
        case SKIT_TNO_SKI: status = create_ski(p, params); break;
        }
    }
    if (status == SKIT_OK && o->device == SKIT_DEVICE_CUDA) status = skit_tno_device_create(p);
    if (status != SKIT_OK) {
        skit_tno_destroy(p);
        return status;
    }
    p->bytes = actual_bytes(p);
    *plan = p;
    return SKIT_OK;
}

/* ---- parameters --------------------------------------------------------- */

size_t skit_tno_parameter_count(const skit_tno *p) { return p ? p->param_count : 0; }

int skit_tno_get_parameters(const skit_tno *p, double *params, size_t count)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(params);
    if (count != p->param_count)
        return SKIT_ERROR(SKIT_ESHAPE, "count = %zu: this operator has %zu parameters", count,
                          p->param_count);
    if (p->mlp) return skit_mlp_get_parameters(p->mlp, params, count);
    memcpy(params, p->params, count * sizeof(double));
    return SKIT_OK;
}

int skit_tno_set_parameters(skit_tno *p, const double *params, size_t count)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(params);
    if (count != p->param_count)
        return SKIT_ERROR(SKIT_ESHAPE, "count = %zu: this operator has %zu parameters", count,
                          p->param_count);
    SKIT_TRY(skit_check_finite(params, count, "params"));
    /* keep the old parameters until the new kernels are known to be finite */
    int status;
    if (p->mlp) {
        /* new weights move the ReLU masks: FD-TNO's next update sweeps
         * again and measures how often they change (update_fd_sweep) */
        p->outputs_by_layers = 0;
        SKIT_TRY(skit_mlp_get_parameters(p->mlp, p->backup, count));
        SKIT_TRY(skit_mlp_set_parameters(p->mlp, params, count));
        status = skit_tno_update(p);
        if (status != SKIT_OK) {
            skit_mlp_set_parameters(p->mlp, p->backup, count);
            skit_tno_update(p);
        }
        return status;
    }
    memcpy(p->backup, p->params, count * sizeof(double));
    memcpy(p->params, params, count * sizeof(double));
    status = skit_tno_update(p);
    if (status != SKIT_OK) {
        memcpy(p->params, p->backup, count * sizeof(double));
        skit_tno_update(p);
    }
    return status;
}

/* ---- execute ---------------------------------------------------------- */

int skit_tno_execute(const skit_tno *p, const double *x, double *y)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t bytes = p->batch * p->n * p->d * sizeof(double);
    uintptr_t xa = (uintptr_t)x, ya = (uintptr_t)y;
    if (xa < ya + bytes && ya < xa + bytes)
        return SKIT_ERROR(SKIT_EINVAL, "x and y overlap: the operator needs separate input and output "
                                       "arrays of batch * n * d (= %zu) doubles", p->batch * p->n * p->d);
    if (p->dev) return skit_tno_device_execute(p, x, y);
    if (p->opt.kind == SKIT_TNO_SKI) skit_tno_ski_execute(p, x, y);
    else skit_fdtno_apply(p->fd, x, y, p->batch, p->opt.layout == SKIT_TNO_ROWS);
    return SKIT_OK;
}

int skit_tno_forward(skit_tno *p, const double *x, double *y)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_TRY(skit_tno_update(p));
    return skit_tno_execute(p, x, y);
}

/* ---- queries ---------------------------------------------------------- */

size_t skit_tno_plan_bytes(const skit_tno *p) { return p ? p->bytes : 0; }
size_t skit_tno_n(const skit_tno *p) { return p ? p->n : 0; }
size_t skit_tno_d(const skit_tno *p) { return p ? p->d : 0; }
size_t skit_tno_batch(const skit_tno *p) { return p ? p->batch : 0; }
const skit_tno_options *skit_tno_get_options(const skit_tno *p) { return p ? &p->opt : NULL; }

static const char *activation_name(skit_activation a)
{
    return a == SKIT_ACTIVATION_RELU ? "relu" : a == SKIT_ACTIVATION_SILU ? "silu" : "gelu";
}

static const char *norm_name(skit_norm nm)
{
    return nm == SKIT_NORM_RMS ? "rms" : nm == SKIT_NORM_LAYER ? "layer" : "none";
}

void skit_tno_describe(const skit_tno *p, char *text, size_t size)
{
    if (!text || size == 0) return;
    if (!p) {
        snprintf(text, size, "(null)");
        return;
    }
    const skit_tno_options *o = &p->opt;
    int k = snprintf(text, size, "%s %s n=%zu d=%zu batch=%zu layout=%s", skit_tno_kind_name(o->kind),
                     o->causality == SKIT_CAUSAL ? "causal" : "bidirectional", p->n, p->d, p->batch,
                     o->layout == SKIT_TNO_ROWS ? "rows" : "channels");
    if (k < 0 || (size_t)k >= size) return;
    char *rest = text + k;
    size_t left = size - (size_t)k;
    /* where the output layer is applied: to the transformed features
     * (width + 1 FFTs, resp. width Hilbert steps) or per channel */
    /* and how the RPE is evaluated: by the sweep along its 1-D input
     * (ReLU; skit_mlp_outputs_sweep) or layer by layer (GEMMs) */
    const char *eval = p->mlp && skit_mlp_outputs_sweep_able(p->mlp, p->mlp_count) ? "sweep" : "layers";
    if (o->kind == SKIT_TNO_FFT)
        snprintf(rest, left, " rpe=%zux%zu %s %s decay=%g fft=%zu spectra=%s eval=%s", o->rpe_width,
                 o->rpe_layers, activation_name(o->activation), norm_name(o->norm), o->decay,
                 p->dev ? skit_tno_device_fft_length(p) : skit_fdtno_fft_length(p->fd),
                 p->coeffs || p->kernels ? "channels" : "features", eval);
    else if (o->kind == SKIT_TNO_FD)
        snprintf(rest, left, " rpe=%zux%zu %s %s fft=%zu%s eval=%s", o->rpe_width, o->rpe_layers,
                 activation_name(o->activation), norm_name(o->norm), skit_fdtno_fft_length(p->fd),
                 o->causality != SKIT_CAUSAL                ? ""
                 : skit_fdtno_basis_rows(p->fd) ? " hilbert=features"
                                                : " hilbert=channels",
                 eval);
    else
        snprintf(rest, left, " r=%zu taps=%zu knots=%zu decay=%g interp=linear%s", p->r, p->m, p->K,
                 o->decay,
                 o->causality != SKIT_CAUSAL ? ""
                 : o->causal_ski == SKIT_TNO_CAUSAL_BLOCKED ? " blocked-sums" : " cumulative-sums");
    if (o->device == SKIT_DEVICE_CUDA) {
        size_t len = strlen(text);
        if (len + 1 < size) snprintf(text + len, size - len, " device=cuda");
    }
}
