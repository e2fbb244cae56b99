/* ski_backward.c — SKI-TNO's backward, both forms, in the CHANNELS layout
 * the front hands it; float32 bidirectional plans in the ROWS layout take
 * their own rows instead (tno_ski_backward_rows_f32 in ski_apply.c, the
 * forward's rows loops transposed), which saves the front's three n x d
 * transposes and runs the band and the interpolation along the channels. With the band S (taps), A_c Toeplitz in its
 * coefficients a (2r-1) and W the interpolation weights:
 *  band       dx += S^T dy;  dtap_l = sum_i dy_i x_{i-l}
 *  bidirect.  u = W^T x, g = W^T dy: dx += W A^T g;  da_k = sum_{p-q=k} g_p u_q
 *  causal     s_i = sum_{j<=i} w_j x_j, y_i += w_i^T A s_i: da_k = sum_i
 *             sum_{p-q=k} dy_i w_i[p] s_i[q];  dx_j = w_j^T A^T s'_j with
 *             s'_j = sum_{i>=j} w_i dy_i (Appendix B's running sums run
 *             from the end: the transposed operator is upper triangular)
 *  knots      a_q = (1-f_q) f(z_j) + f_q f(z_{j+1}) (tno_ski_compute_a):
 *             its transpose, f(z_0) = 0 fixed.
 * Compiled as is (R = double: the float64 plans', channel by channel, no
 * FFT: O(n m + n w^2 + runs w r + r^2) per channel and sequence, w = 2
 * the stencil width, runs about r the runs of tokens with one stencil
 * start) and again by ski_backwardf.c (R = float: run_f32) on the float
 * data of the float32 forward (tno_ski_f32), as ski_apply.c is. In float:
 *  - the products over the batch are the forward's arithmetic transposed:
 *    bidirectional g = W^T dy, A^T g on the forward's fftwf engine
 *    (transposed) and W v over all batch x d sequences at once; causal the
 *    reverse running sums s' (each entry a sum of at most 2h + 3 terms, as
 *    the forward's s) and dot products of at most r + w; the band's S^T dy;
 *  - A's gradient da: bidirectional the float cross-correlation of g and
 *    u = W^T x summed over the batch (fft/correlate.h, as TNO's kernel
 *    gradient); causal the running sums s_i and the sum over the
 *    sequence both in double, from the float weights and data;
 *  - the taps' gradient: sums over the sequence in double of products of
 *    floats (exact), so the float64 backward's numbers on the same inputs
 *    up to the order of the double sums;
 *  - from da (widened) on the float64 code: the knots' transpose, into the
 *    float64 dparams.
 * skit/tno.h states the bounds. */
#include "config.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/simd.h"
#include "fft/correlate.h"
#include "tno/tno_internal.h"

#ifdef TNO_SKI_SINGLE
typedef float R;
#else
typedef double R;
#endif
/* values of R in a 64-byte line */
#define LINE (64 / sizeof(R))

/* float32 bidirectional plans: A's gradient by float cross-correlation */
typedef struct ski_grad {
    skit_correlatef *correlate;
} ski_grad;

/* whole lines and one more, in values of R */
static size_t region(size_t values) { return (values + LINE - 1) / LINE * LINE + LINE; }

/* doubles that hold `values` values of R */
static size_t as_doubles(size_t values) { return values * sizeof(R) / sizeof(double); }

/* What a call reads, in R: W's weights (n x width), taps (d x m) and A's
 * coefficients (d x (2r-1)). */
typedef struct ski_data {
    const R *weights, *taps, *a;
} ski_data;

static ski_data data_of(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
#ifdef TNO_SKI_SINGLE
    return (ski_data){s->f32.weights, s->f32.taps, s->f32.a_coeffs};
#else
    return (ski_data){s->W->weights, s->params + p->d * 2 * s->K, s->a_coeffs};
#endif
}

/* per thread of the channel loop: da (2r-1 doubles), then u, g, s (r
 * values of R each) */
static size_t slice_doubles(const tno_ski *s)
{
    return tno_region(2 * s->r - 1) + as_doubles(3 * region(s->r));
}

static double *thread_slice(const skit_tno_plan *p, double *work)
{
    size_t id = 0;
#ifdef _OPENMP
    id = (size_t)omp_get_thread_num();
#endif
    return work + id * slice_doubles(p->op);
}

/* dx[i] += t dy[i] and the sum of dy[i] x[i] in double, i < count:
 * vectorised (omp simd, AVX2/AVX-512 clones), the double sum in lanes */
SKIT_MULTIVERSION static double tap_backward(R t, const R *restrict dy, const R *restrict x, R *restrict dx,
                                             size_t count)
{
    double acc = 0;
    if (dx) {
        SKIT_SIMD
        for (size_t i = 0; i < count; i++) dx[i] += t * dy[i];
    }
    SKIT_SIMD_SUM(acc)
    for (size_t i = 0; i < count; i++) acc += (double)dy[i] * x[i];
    return acc;
}

/* the band's backward for one channel and sequence: dx += S^T dy, dtaps +=
 * the sums over the sequence in double */
static void band_backward(const skit_tno_plan *p, const R *taps, const R *x, const R *dy, R *dx, double *dtaps,
                          int causal)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, m = s->m, half = m / 2;
    for (size_t k = causal ? half : 0; k < m; k++) {
        /* forward: y[i] += taps[k] x[i + half - k] for 0 <= i + half - k < n */
        size_t i0 = k > half ? k - half : 0;
        size_t i1 = k < half ? (n > half - k ? n - (half - k) : 0) : n;
        if (i1 <= i0) continue;
        const size_t shift = i0 + half - k; /* x's and dx's index of i0 */
        double acc = tap_backward(taps[k], dy + i0, x + shift, dx ? dx + shift : NULL, i1 - i0);
        if (dtaps) dtaps[k] += acc;
    }
}

/* da[-q] += f sums[q], q < count (da points at lag 0 of a stencil row:
 * the lags run backwards); vectorised (omp simd, AVX2/AVX-512 clones):
 * these two loops are the causal backward's O(runs w r) work */
SKIT_MULTIVERSION static void add_scaled_reversed(double *restrict da, double f, const double *restrict sums,
                                                 size_t count)
{
    SKIT_SIMD
    for (size_t q = 0; q < count; q++) da[-(long)q] += f * sums[q];
}

/* sum of a[q] b[q] over lo <= q < hi, in lanes (any order: the bound of
 * skit/tno.h holds for every summation order) */
SKIT_MULTIVERSION static R dot_range(const R *restrict a, const R *restrict b, size_t lo, size_t hi)
{
    R dot = 0;
    SKIT_SIMD_SUM(dot)
    for (size_t q = lo; q < hi; q++) dot += a[q] * b[q];
    return dot;
}

/* stencil widths a run's scalars hold (skit/ski.h: at most Lagrange's
 * SKIT_INTERP_MAX_DEGREE + 1) */
#define MAX_STENCIL (SKIT_INTERP_MAX_DEGREE + 1)

/* The run of tokens that share W's stencil start with token i: its end
 * (one past its last token) from its first, its first from its last */
static size_t run_end(const skit_interp_weights *W, size_t first)
{
    size_t i = first + 1;
    while (i < W->n && W->start[i] == W->start[first]) i++;
    return i;
}

static size_t run_start(const skit_interp_weights *W, size_t last)
{
    size_t i = last;
    while (i > 0 && W->start[i - 1] == W->start[last]) i--;
    return i;
}

/* causal low rank: the running sums s_i from the start for da (summed in
 * double), those of w_i dy_i from the end for dx, by runs of tokens with
 * one stencil start s. Within a run only the entries s..s+w-1 of a
 * running sum change, so a token's terms split into the run's fixed
 * entries times the run's total weight (one pass of O(r) a run and
 * stencil row, not a token) and its own O(w^2) terms on the changing
 * entries: O(n w^2 + runs w r) a channel instead of O(n w r). sums (r
 * doubles) may be run itself (float64 plans): the da pass is over before
 * run is zeroed. */
static void lowrank_causal(const skit_tno_plan *p, const R *a, const R *x, const R *dy, R *dx, double *da, R *run,
                           double *sums)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const R *weights = data_of(p).weights;
    const size_t r = s->r, n = p->n, w = W->width;
    size_t filled = 0; /* sums is zero from filled on */
    memset(sums, 0, r * sizeof *sums);
    for (size_t i0 = 0, i1; i0 < n; i0 = i1) {
        const size_t si = W->start[i0];
        /* part[t]: the run's sum so far into entry si + t; F[k]: sum of
         * dy_i w_i[k]; E[k][t]: sum of dy_i w_i[k] part[t] after token i */
        double part[MAX_STENCIL] = {0}, F[MAX_STENCIL] = {0}, E[MAX_STENCIL][MAX_STENCIL] = {{0}};
        i1 = run_end(W, i0);
        for (size_t i = i0; i < i1; i++) {
            const R *wi = weights + i * w;
            for (size_t t = 0; t < w; t++) part[t] += (double)wi[t] * x[i];
            for (size_t k = 0; k < w; k++) {
                const double f = (double)dy[i] * wi[k];
                F[k] += f;
                for (size_t t = 0; t < w; t++) E[k][t] += f * part[t];
            }
        }
        if (si + w > filled) filled = si + w;
        for (size_t k = 0; k < w; k++) {
            add_scaled_reversed(da + si + k + r - 1, F[k], sums, filled); /* lag si + k - q at [-q] */
            for (size_t t = 0; t < w; t++) da[k - t + r - 1] += E[k][t]; /* q = si + t */
        }
        for (size_t t = 0; t < w; t++) sums[si + t] += part[t];
    }
    if (!dx) return;
    size_t low = r; /* run is zero below low */
    memset(run, 0, r * sizeof *run);
    for (size_t i1 = n, i0; i1 > 0; i1 = i0) {
        const size_t si = W->start[i1 - 1];
        i0 = run_start(W, i1 - 1);
        if (si < low) low = si;
        /* base[k]: A's column si + k against the run's fixed entries; the
         * changing ones, si + t, enter as A(si + t, si + k) part[t] */
        R base[MAX_STENCIL], part[MAX_STENCIL] = {0};
        for (size_t k = 0; k < w; k++) base[k] = dot_range(a + (r - 1) - (si + k), run, low, r);
        for (size_t i = i1; i-- > i0;) {
            const R *wi = weights + i * w;
            for (size_t t = 0; t < w; t++) part[t] += wi[t] * dy[i];
            R acc = 0;
            for (size_t k = 0; k < w; k++) {
                R col = base[k];
                for (size_t t = 0; t < w; t++) col += a[r - 1 + t - k] * part[t];
                acc += wi[k] * col;
            }
            dx[i] += acc;
        }
        for (size_t t = 0; t < w; t++) run[si + t] += part[t];
    }
}

#ifndef TNO_SKI_SINGLE
/* u = W^T x (r values) */
static void interp_transpose(const skit_interp_weights *W, const double *x, double *u)
{
    memset(u, 0, W->r * sizeof *u);
    for (size_t i = 0; i < W->n; i++)
        for (size_t k = 0; k < W->width; k++) u[W->start[i] + k] += W->weights[i * W->width + k] * x[i];
}

/* bidirectional low rank: dx += W A^T g, da += g u^T summed along diagonals */
static void lowrank_bidirectional(const skit_tno_plan *p, const double *a, const double *x, const double *dy,
                                  double *dx, double *da, double *buf)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t r = s->r, n = p->n, w = W->width;
    double *u = buf, *g = buf + region(r), *v = g + region(r);
    interp_transpose(W, x, u);
    interp_transpose(W, dy, g);
    for (size_t pp = 0; pp < r; pp++)
        for (size_t q = 0; q < r; q++) da[pp - q + r - 1] += g[pp] * u[q];
    if (!dx) return;
    for (size_t q = 0; q < r; q++) { /* v = A^T g: A(p, q) = a[p - q + r - 1] */
        double acc = 0;
        for (size_t pp = 0; pp < r; pp++) acc += a[pp - q + r - 1] * g[pp];
        v[q] = acc;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < w; k++) dx[i] += W->weights[i * w + k] * v[W->start[i] + k];
}

void tno_ski_knots_backward(const tno_ski *s, const double *da, double *dknots)
{
    const size_t per = 2 * s->r - 1;
    const long K = (long)s->K;
    for (size_t q = 0; q < per; q++) {
        const long j = s->knot_index[q];
        const double f = s->knot_frac[q], part[2] = {(1.0 - f) * da[q], f * da[q]};
        for (int e = 0; e < 2; e++) {
            long jj = j + e;
            if (jj == 0) continue; /* f(0) = 0 is no parameter */
            dknots[jj < 0 ? K + jj : K + jj - 1] += part[e];
        }
    }
}
#endif

/* Channel by channel over the threads (float64 plans, and causal float32
 * ones): the band's and the low rank part's backward of every sequence,
 * then the knots' from the channel's da. */
static void channels_backward(const skit_tno_plan *p, const R *x, const R *dy, R *dx, double *dparams,
                              double *work)
{
    const tno_ski *s = p->op;
    const ski_data D = data_of(p);
    const size_t n = p->n, d = p->d, r = s->r, m = s->m, K = s->K, per = 2 * r - 1;
    const int causal = p->opt.causality == SKIT_CAUSAL;
    const long channels = (long)d;
#pragma omp parallel for num_threads(p->threads) schedule(static)
    for (long cl = 0; cl < channels; cl++) {
        const size_t c = (size_t)cl;
        double *da = thread_slice(p, work);
        R *buf = (R *)(da + tno_region(per));
        memset(da, 0, per * sizeof *da);
        for (size_t b = 0; b < p->batch; b++) {
            const size_t off = (b * d + c) * n;
            R *dxc = dx ? dx + off : NULL;
            if (m) band_backward(p, D.taps + c * m, x + off, dy + off, dxc, dparams ? dparams + d * 2 * K + c * m : NULL,
                                 causal);
#ifdef TNO_SKI_SINGLE
            /* the double sums after run's region: 2 region(r) floats hold r doubles */
            lowrank_causal(p, D.a + c * per, x + off, dy + off, dxc, da, buf, (double *)(buf + region(r)));
#else
            if (causal) lowrank_causal(p, D.a + c * per, x + off, dy + off, dxc, da, buf, buf);
            else lowrank_bidirectional(p, D.a + c * per, x + off, dy + off, dxc, da, buf);
#endif
        }
        if (dparams) tno_ski_knots_backward(s, da, dparams + c * 2 * K);
    }
}

#ifdef TNO_SKI_SINGLE
/* ---- float32 bidirectional: the whole batch at once ----------------------- */

/* the regions of work: A's engine's and the correlation's scratch, u, g,
 * v (batch x d x r floats each), da in float and in double (d x (2r-1)) */
enum { B_ENGINE, B_CORRELATE, B_U, B_G, B_V, B_DAF, B_DA, B_ROWS, B_ACC, B_COUNT };

static size_t bidirectional_regions(const skit_tno_plan *p, double *base, double **at)
{
    const tno_ski *s = p->op;
    const ski_grad *g = p->grad;
    const size_t rd = region(p->batch * p->d * s->r), ad = p->d * (2 * s->r - 1);
    const size_t sizes[B_COUNT] = {as_doubles(region(skit_circulantf_workspace_doubles(s->f32.engine, 0))),
                                   as_doubles(region(skit_correlatef_workspace_doubles(g->correlate))),
                                   as_doubles(rd), as_doubles(rd), as_doubles(rd), as_doubles(region(ad)),
                                   tno_region(ad), as_doubles(region(tno_ski_backward_rows_workspace_f32(p))),
                                   tno_region(s->m * p->d)};
    size_t off = 0;
    for (int i = 0; i < B_COUNT; i++) {
        if (base) at[i] = base + off;
        off += sizes[i];
    }
    return off;
}

/* dtaps and dx's band, channel by channel (dx already holds W A^T g) */
static void band_channels(const skit_tno_plan *p, const R *x, const R *dy, R *dx, double *dparams)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, m = s->m;
    const R *taps = data_of(p).taps;
    const long channels = (long)d;
    if (!m) return;
#pragma omp parallel for num_threads(p->threads) schedule(static)
    for (long cl = 0; cl < channels; cl++) {
        const size_t c = (size_t)cl;
        double *dtaps = dparams ? dparams + d * 2 * s->K + c * m : NULL;
        for (size_t b = 0; b < p->batch; b++) {
            const size_t off = (b * d + c) * n;
            band_backward(p, taps + c * m, x + off, dy + off, dx ? dx + off : NULL, dtaps, 0);
        }
    }
}

/* A's gradient da = the correlation of g = W^T dy with u = W^T x summed
 * over the batch (both channel-major, batch x d x r), widened, then the
 * knots' transpose into dparams */
static void a_gradient(const skit_tno_plan *p, const R *u, const R *g, double *dparams, double **at)
{
    const tno_ski *s = p->op;
    const ski_grad *grad = p->grad;
    const size_t d = p->d, r = s->r, per = 2 * r - 1;
    R *daf = (R *)at[B_DAF];
    skit_correlatef_run(grad->correlate, d, p->batch, u, r, d * r, g, r, d * r, 0, daf, per, (R *)at[B_CORRELATE]);
    for (size_t i = 0; i < d * per; i++) at[B_DA][i] = (double)daf[i];
    for (size_t c = 0; c < d; c++) tno_ski_knots_backward(s, at[B_DA] + c * per, dparams + c * 2 * s->K);
}

static void bidirectional_f32(const skit_tno_plan *p, const R *x, const R *dy, R *dx, double *dparams,
                              double *work)
{
    const tno_ski *s = p->op;
    const size_t d = p->d, r = s->r, count = p->batch * d;
    double *at[B_COUNT];
    bidirectional_regions(p, work, at);
    R *u = (R *)at[B_U], *g = (R *)at[B_G], *v = (R *)at[B_V];
    tno_ski_interp_f32(p, 1, count, dy, g);
    if (dx) {
        skit_circulantf_apply_channels(s->f32.engine, 1, g, r, v, r, count, (R *)at[B_ENGINE]);
        tno_ski_interp_f32(p, 0, count, v, dx);
    }
    band_channels(p, x, dy, dx, dparams);
    if (!dparams) return;
    tno_ski_interp_f32(p, 1, count, x, u);
    a_gradient(p, u, g, dparams, at);
}

/* ROWS (C-ordered (batch, n, d)): each sequence by tno_ski_backward_rows_f32,
 * which needs no n x d transpose, then A's gradient as above and the
 * taps' from their sums over the rows */
static void bidirectional_rows_f32(const skit_tno_plan *p, const R *x, const R *dy, R *dx, double *dparams,
                                   double *work)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, r = s->r, m = s->m;
    double *at[B_COUNT];
    bidirectional_regions(p, work, at);
    R *ut = (R *)at[B_U], *gt = (R *)at[B_G];
    double *acc = dparams && m ? at[B_ACC] : NULL;
    if (acc) memset(acc, 0, m * d * sizeof *acc);
    for (size_t b = 0; b < p->batch; b++)
        tno_ski_backward_rows_f32(p, x + b * n * d, dy + b * n * d, dx ? dx + b * n * d : NULL,
                                  dparams ? ut + b * d * r : NULL, gt + b * d * r, acc, (R *)at[B_ROWS]);
    if (!dparams) return;
    double *dtaps = dparams + d * 2 * s->K;
    for (size_t c = 0; c < d; c++)
        for (size_t k = 0; k < m; k++) dtaps[c * m + k] = acc[k * d + c];
    a_gradient(p, ut, gt, dparams, at);
}

static int bidirectional(const skit_tno_plan *p) { return p->opt.causality != SKIT_CAUSAL; }

size_t tno_ski_backward_workspace_f32(const skit_tno_plan *p)
{
    double *at[B_COUNT];
    if (bidirectional(p)) return bidirectional_regions(p, NULL, at);
    return (size_t)p->threads * slice_doubles(p->op);
}

int tno_ski_backward_run_f32(const skit_tno_plan *p, const R *x, const R *dy, R *dx, double *dparams,
                             double *dlambda, double *work)
{
    (void)dlambda; /* the time warp's lambda is not a learnable bias */
    if (dx) memset(dx, 0, p->batch * p->n * p->d * sizeof *dx);
    if (dparams) memset(dparams, 0, p->param_count * sizeof *dparams);
    if (bidirectional(p)) bidirectional_f32(p, x, dy, dx, dparams, work);
    else channels_backward(p, x, dy, dx, dparams, work);
    return SKIT_OK;
}

int tno_ski_backward_takes_rows_f32(const skit_tno_plan *p) { return bidirectional(p); }

int tno_ski_backward_run_rows_f32(const skit_tno_plan *p, const R *x, const R *dy, R *dx, double *dparams,
                                  double *dlambda, double *work)
{
    (void)dlambda;
    if (dparams) memset(dparams, 0, p->param_count * sizeof *dparams);
    bidirectional_rows_f32(p, x, dy, dx, dparams, work);
    return SKIT_OK;
}
#else
/* ---- the operator's backward (both precisions' entry points) ------------- */

static int grad_create(skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    if (p->opt.precision != SKIT_PRECISION_F32 || p->opt.causality == SKIT_CAUSAL) return SKIT_OK;
    ski_grad *g = skit_calloc(1, sizeof *g);
    if (!g) return SKIT_ENOMEM;
    p->grad = g;
    /* the length of A's engine (>= 2r - 1): one FFT length in the bounds */
    return skit_correlatef_create(&g->correlate, s->r, s->r, skit_circulantf_length(s->f32.engine));
}

static void grad_destroy(skit_tno_plan *p)
{
    ski_grad *g = p->grad;
    if (g) skit_correlatef_destroy(g->correlate);
    skit_free(g);
    p->grad = NULL;
}

static size_t workspace_doubles(const skit_tno_plan *p)
{
    if (p->opt.precision == SKIT_PRECISION_F32) return tno_ski_backward_workspace_f32(p);
    return (size_t)p->threads * slice_doubles(p->op);
}

static int run(const skit_tno_plan *p, const double *x, const double *dy, double *dx, double *dparams,
               double *dlambda, double *work)
{
    (void)dlambda; /* the time warp's lambda is not a learnable bias */
    if (dx) memset(dx, 0, p->batch * p->n * p->d * sizeof *dx);
    if (dparams) memset(dparams, 0, p->param_count * sizeof *dparams);
    channels_backward(p, x, dy, dx, dparams, work);
    return SKIT_OK;
}

const tno_backward_ops tno_ski_backward = {
    .create = grad_create,
    .destroy = grad_destroy,
    .workspace_doubles = workspace_doubles,
    .run = run,
    .run_f32 = tno_ski_backward_run_f32,
    .takes_rows_f32 = tno_ski_backward_takes_rows_f32,
    .run_rows_f32 = tno_ski_backward_run_rows_f32,
};
#endif
