/* ski_apply.c — SKI-TNO's per-call arithmetic in one precision: the band,
 * the bidirectional operator y = S x + W (A (W^T x)) and the causal forms
 * (Appendix B's running sums and the sums blocked by interpolation
 * bracket), in both layouts. Compiled as is (R = double: tno_ski_*) and
 * again by ski_applyf.c (R = float: tno_ski_*_f32) on the data a float32
 * plan rounds once per update (tno_ski_f32), as circulantf.c does for the
 * circulant engine, so that both precisions run the same loops.
 *
 * In the ROWS layout ((batch, n, d), channel fastest) every step runs along
 * the contiguous channel index: W^T x adds w_ik * x[i, :] into row
 * start_i + k of an r x d block, W v and the band read whole rows, so no
 * n x d transpose is needed; only the r x d block is transposed for the
 * FFT of A. Channels are split into chunks (one per thread) where rows are
 * accumulated, and rows are split where they are written. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "core/simd.h"
#include "tno/tno_internal.h"

#ifdef TNO_SKI_SINGLE
typedef float R;
#define X(name) tno_ski_##name##_f32
#define TRANSPOSE skit_transpose_ld_f32
#else
typedef double R;
#define X(name) tno_ski_##name
#define TRANSPOSE skit_transpose_ld
#endif
/* values of R in a 64-byte line */
#define LINE (64 / sizeof(R))

/* tno_region in values of R: whole lines and one more */
static size_t region(size_t values)
{
    return (values + LINE - 1) / LINE * LINE + LINE;
}

/* y += alpha x, y += a .* b, y += alpha a .* b, y = alpha x over len
 * values: inline, since the forms call them in their innermost loops on
 * short runs of channels; restrict and omp simd let them vectorise. */
static inline void vaxpy(size_t len, R alpha, const R *restrict x, R *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] += alpha * x[c];
}

static inline void vmul_add(size_t len, const R *restrict a, const R *restrict b, R *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] += a[c] * b[c];
}

static inline void vmul_axpy(size_t len, R alpha, const R *restrict a, const R *restrict b, R *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] += alpha * a[c] * b[c];
}

static inline void vscale(size_t len, R alpha, const R *restrict x, R *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] = alpha * x[c];
}

/* What a call reads, in R: W's weights (n x width), the taps channel-major
 * (d x m) and channel fastest (m x d), A's coefficients channel-major
 * (d x (2r-1)) and channel fastest ((2r-1) x d, causal only). */
typedef struct ski_data {
    const R *weights, *taps, *taps_t, *a, *a_t;
} ski_data;

#ifdef TNO_SKI_SINGLE
static ski_data data_of(const skit_tno_plan *p)
{
    const tno_ski_f32 *f = &((const tno_ski *)p->op)->f32;
    return (ski_data){f->weights, f->taps, f->taps_t, f->a_coeffs, f->a_coeffs_t};
}

/* values of R A's product takes from the workspace (the float engine's) */
static size_t a_workspace(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    return s->f32.engine ? region(skit_circulantf_workspace_doubles(s->f32.engine, 0)) : 0;
}

/* v_c = A_c u_c for the d channel-major columns (length r) */
static void apply_a(const skit_tno_plan *p, const R *u, R *v, R *work)
{
    const tno_ski *s = p->op;
    skit_circulantf_apply_channels(s->f32.engine, 0, u, s->r, v, s->r, p->d, work);
}

/* Channel by channel, U = W^T X (transpose; in: X, out: U, count x r) or
 * Y = W V (in: V, out: Y, count x n): skit/ski.h's are float64. The
 * backward (ski_backward.c) runs it on batch x d channels. */
void tno_ski_interp_f32(const skit_tno_plan *p, int transpose, size_t count, const R *in, R *out)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t n = p->n, r = s->r, width = W->width;
    const R *weights = s->f32.weights;
    const long dl = (long)count;
#pragma omp parallel for schedule(static) if (n * count >= 16384)
    for (long c = 0; c < dl; c++) {
        const R *a = in + (size_t)c * (transpose ? n : r);
        R *b = out + (size_t)c * (transpose ? r : n);
        if (transpose) memset(b, 0, r * sizeof *b);
        for (size_t i = 0; i < n; i++) {
            const R *w = weights + i * width;
            if (transpose) {
                for (size_t k = 0; k < width; k++) b[W->start[i] + k] += w[k] * a[i];
                continue;
            }
            R acc = 0;
            for (size_t k = 0; k < width; k++) acc += w[k] * a[W->start[i] + k];
            b[i] = acc;
        }
    }
}

static void interp_transpose(const skit_tno_plan *p, const R *X, R *U)
{
    tno_ski_interp_f32(p, 1, p->d, X, U);
}

static void interp_apply(const skit_tno_plan *p, const R *V, R *Y)
{
    tno_ski_interp_f32(p, 0, p->d, V, Y);
}
#else
static ski_data data_of(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    return (ski_data){s->W->weights, s->params + p->d * 2 * s->K, s->taps_t, s->a_coeffs, s->a_coeffs_t};
}

/* the Toeplitz plan lends its own workspace */
static size_t a_workspace(const skit_tno_plan *p)
{
    (void)p;
    return 0;
}

static void apply_a(const skit_tno_plan *p, const R *u, R *v, R *work)
{
    (void)work;
    const tno_ski *s = p->op;
    skit_toeplitz_plan_execute(s->toeplitz, u, s->r, v, s->r, NULL);
}

static void interp_transpose(const skit_tno_plan *p, const R *X, R *U)
{
    const tno_ski *s = p->op;
    skit_interp_apply_transpose(s->W, p->d, X, p->n, U, s->r);
}

static void interp_apply(const skit_tno_plan *p, const R *V, R *Y)
{
    const tno_ski *s = p->op;
    skit_interp_apply(s->W, p->d, V, s->r, Y, p->n);
}
#endif

/* ---- the band ------------------------------------------------------------ */

/* The band's sum over the taps runs on blocks of BAND_VECS vectors of 32
 * bytes (8 floats or 4 doubles) of channels held in registers: eight
 * independent chains of multiply-adds, enough to cover their latency on
 * AVX2 (two FMA units, 4 cycles), where four scalar chains left the loop
 * latency-bound. The function is cloned for AVX2 and AVX-512
 * (core/simd.h); the per-row order of the sum (y, then the taps in order)
 * is the same in every form. aligned(sizeof(R)): rows start anywhere. */
#define BAND_VLEN (32 / sizeof(R))
#define BAND_VECS 8
typedef R band_vec __attribute__((vector_size(32), aligned(sizeof(R))));

/* y[c] += sum_{k0 <= k < k1} taps[k d + c] x[(half - k) d + c] for one row:
 * xi points at row i of X, taps at the first channel */
SKIT_MULTIVERSION static void band_row(size_t d, size_t k0, size_t k1, size_t half, const R *restrict taps,
                                       const R *restrict xi, R *restrict yi)
{
    const size_t block = BAND_VECS * BAND_VLEN;
    size_t c = 0;
    for (; c + block <= d; c += block) {
        band_vec acc[BAND_VECS];
#pragma GCC unroll 8
        for (size_t u = 0; u < BAND_VECS; u++) acc[u] = *(const band_vec *)(yi + c + u * BAND_VLEN);
        for (size_t k = k0; k < k1; k++) {
            const R *t = taps + k * d + c, *xr = xi + ((ptrdiff_t)half - (ptrdiff_t)k) * (ptrdiff_t)d + c;
#pragma GCC unroll 8
            for (size_t u = 0; u < BAND_VECS; u++)
                acc[u] += *(const band_vec *)(t + u * BAND_VLEN) * *(const band_vec *)(xr + u * BAND_VLEN);
        }
#pragma GCC unroll 8
        for (size_t u = 0; u < BAND_VECS; u++) *(band_vec *)(yi + c + u * BAND_VLEN) = acc[u];
    }
    for (; c + BAND_VLEN <= d; c += BAND_VLEN) {
        band_vec acc = *(const band_vec *)(yi + c);
        for (size_t k = k0; k < k1; k++)
            acc += *(const band_vec *)(taps + k * d + c) *
                   *(const band_vec *)(xi + ((ptrdiff_t)half - (ptrdiff_t)k) * (ptrdiff_t)d + c);
        *(band_vec *)(yi + c) = acc;
    }
    for (; c < d; c++) {
        R acc = yi[c];
        for (size_t k = k0; k < k1; k++) acc += taps[k * d + c] * xi[((ptrdiff_t)half - (ptrdiff_t)k) * (ptrdiff_t)d + c];
        yi[c] = acc;
    }
}

/* y[i, :] += sum_k taps(k) x[i - (k - half), :] over the valid k; `causal`
 * keeps the lags k - half >= 0 only. Each row of y is read and written
 * once (band_row). */
static void band_rows_with(const skit_tno_plan *p, const R *taps, size_t half, const R *X, R *Y, size_t i0,
                           size_t i1, int causal)
{
    const size_t n = p->n, d = p->d, m = ((const tno_ski *)p->op)->m;
    for (size_t i = i0; i < i1; i++) {
        /* taps k with source token j = i + half - k inside 0..n-1 */
        size_t k0 = causal ? half : 0, k1 = m;
        if (i + half + 1 > n && i + half + 1 - n > k0) k0 = i + half + 1 - n;
        if (i + half + 1 < k1) k1 = i + half + 1;
        if (k0 < k1) band_row(d, k0, k1, half, taps, X + i * d, Y + i * d);
    }
}

/* the plan's band: its taps channel fastest, centred at m / 2 */
static void band_rows(const skit_tno_plan *p, const R *X, R *Y, size_t i0, size_t i1, int causal)
{
    band_rows_with(p, data_of(p).taps_t, ((const tno_ski *)p->op)->m / 2, X, Y, i0, i1, causal);
}

/* channel-major: y_c += sum_k taps_c(k) x_c[i - (k - half)] */
static void band_channel(const skit_tno_plan *p, const R *taps, const R *x, R *y, int causal)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, m = s->m, half = m / 2;
    for (size_t k = causal ? half : 0; k < m; k++) {
        /* y[i] += t x[i + half - k] for 0 <= i + half - k < n */
        size_t i0 = k > half ? k - half : 0;
        size_t i1 = k < half ? (n > half - k ? n - (half - k) : 0) : n;
        if (i1 > i0) vaxpy(i1 - i0, taps[k], x + i0 + half - k, y + i0);
    }
}

/* Y += the band, ROWS, in blocks of 64 rows over the threads */
static void band_rows_parallel(const skit_tno_plan *p, const R *X, R *Y, int causal)
{
    const size_t n = p->n, d = p->d;
    const long blocks = (long)((n + 63) / 64);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long bk = 0; bk < blocks; bk++) {
        size_t i0 = (size_t)bk * 64;
        band_rows(p, X, Y, i0, SKIT_MIN(i0 + 64, n), causal);
    }
}

/* channel-major: every channel's band */
static void band_channels(const skit_tno_plan *p, const R *X, R *Y, int causal)
{
    const tno_ski *s = p->op;
    const size_t n = p->n;
    const R *taps = data_of(p).taps;
    const long dl = (long)p->d;
#pragma omp parallel for schedule(static) if (n * p->d >= 16384)
    for (long c = 0; c < dl; c++)
        band_channel(p, taps + (size_t)c * s->m, X + (size_t)c * n, Y + (size_t)c * n, causal);
}

/* ---- the interpolation, ROWS ----------------------------------------------- */

/* U[start_i + k, :len] += w_ik X[i, :len] for the rows i in [i0, i1) (X and
 * U rows of d values, both already offset to the first channel). Cloned
 * like band_row: the axpys are a large share of a float32 forward. */
SKIT_MULTIVERSION static void interp_t_rows(const skit_interp_weights *W, const R *weights, size_t i0, size_t i1,
                                            const R *X, size_t d, size_t len, R *U)
{
    const size_t width = W->width;
    for (size_t i = i0; i < i1; i++) {
        const R *w = weights + i * width, *xi = X + i * d;
        for (size_t k = 0; k < width; k++) vaxpy(len, w[k], xi, U + (W->start[i] + k) * d);
    }
}

/* Y[i, :] = sum_k w_ik V[start_i + k, :] for the rows i in [i0, i1) */
SKIT_MULTIVERSION static void interp_rows(const skit_interp_weights *W, const R *weights, size_t i0, size_t i1,
                                          const R *V, size_t d, R *Y)
{
    const size_t width = W->width;
    for (size_t i = i0; i < i1; i++) {
        const R *w = weights + i * width, *v0 = V + W->start[i] * d;
        R *yi = Y + i * d;
        vscale(d, w[0], v0, yi);
        for (size_t k = 1; k < width; k++) vaxpy(d, w[k], v0 + k * d, yi);
    }
}

/* ---- bidirectional ------------------------------------------------------ */

/* U = W^T X (r x d, ROWS): each chunk of channels owns its columns */
static void interp_t_block(const skit_tno_plan *p, const R *X, R *U)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, r = s->r, chunk = s->chunk;
    const R *weights = data_of(p).weights;
    const long chunks = (long)((d + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, c1 = SKIT_MIN(c0 + chunk, d);
        for (size_t q = 0; q < r; q++) memset(U + q * d + c0, 0, (c1 - c0) * sizeof *U);
        interp_t_rows(s->W, weights, 0, n, X + c0, d, c1 - c0, U + c0);
    }
}

/* ROWS: U = W^T X (r x d), V = A U by the FFT channel-major (ut, vt), Y =
 * W V + band. work: A's workspace, then U, V, ut, vt (r x d each). */
static void bidirectional_rows(const skit_tno_plan *p, const R *X, R *Y, R *work)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const R *weights = data_of(p).weights;
    const size_t n = p->n, d = p->d, r = s->r;
    const size_t rd = region(r * d);
    R *U = work + a_workspace(p), *V = U + rd, *ut = V + rd, *vt = ut + rd;
    interp_t_block(p, X, U);
    /* V = A U, channel by channel by FFT (A_c is r x r) */
    TRANSPOSE(U, r, d, d, ut, r);
    apply_a(p, ut, vt, work);
    TRANSPOSE(vt, d, r, r, V, d);
    /* Y = W V + band */
    const long blocks = (long)((n + 63) / 64);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long bk = 0; bk < blocks; bk++) {
        size_t i0 = (size_t)bk * 64, i1 = SKIT_MIN(i0 + 64, n);
        interp_rows(W, weights, i0, i1, V, d, Y);
        if (s->m) band_rows(p, X, Y, i0, i1, 0);
    }
}

/* CHANNELS: the same channel by channel; work: A's workspace, u, v (d x r) */
static void bidirectional_channels(const skit_tno_plan *p, const R *X, R *Y, R *work)
{
    const tno_ski *s = p->op;
    R *u = work + a_workspace(p), *v = u + region(s->r * p->d);
    interp_transpose(p, X, u);
    apply_a(p, u, v, work);
    interp_apply(p, v, Y);
    if (s->m) band_channels(p, X, Y, 0);
}

void X(bidirectional_execute)(const skit_tno_plan *p, const R *x, R *y, R *work)
{
    const size_t block = p->n * p->d;
    for (size_t b = 0; b < p->batch; b++) {
        if (p->opt.layout == SKIT_TNO_ROWS) bidirectional_rows(p, x + b * block, y + b * block, work);
        else bidirectional_channels(p, x + b * block, y + b * block, work);
    }
}

size_t X(bidirectional_workspace)(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    return a_workspace(p) + (p->opt.layout == SKIT_TNO_ROWS ? 4 : 2) * region(s->r * p->d);
}

#ifdef TNO_SKI_SINGLE
/* ---- bidirectional backward, ROWS (the float32 plans' ski_backward.c) ----
 * bidirectional_rows transposed, on one sequence, with no n x d
 * transpose: G = W^T dY (r x d) goes to gt (d x r, channel-major, for
 * A's gradient); dX = W (A^T G) + S^T dY where dx is not NULL, S^T being
 * the band with its taps reversed (centred at m - 1 - m/2); U = W^T X
 * goes to ut where ut is not NULL; and where acc is not NULL, acc[k d + c]
 * += sum_i dY[i, c] X[i + m/2 - k, c] (the taps' gradient; float products,
 * exact in double, summed in double). work: backward_rows_workspace floats. */

/* acc[k d + c] += dY[i, c] X[i + half - k, c] over rows [i0, i1) and the
 * channels [c0, c1) */
SKIT_MULTIVERSION static void band_grad_rows(size_t n, size_t d, size_t m, size_t half, size_t i0, size_t i1,
                                             size_t c0, size_t c1, const R *X, const R *dY, double *acc)
{
    for (size_t i = i0; i < i1; i++) {
        size_t k0 = 0, k1 = m; /* source rows i + half - k inside 0..n-1 */
        if (i + half + 1 > n) k0 = i + half + 1 - n;
        if (i + half + 1 < k1) k1 = i + half + 1;
        const R *dyi = dY + i * d;
        for (size_t k = k0; k < k1; k++) {
            const R *xr = X + (i + half - k) * d;
            double *a = acc + k * d;
            SKIT_SIMD
            for (size_t c = c0; c < c1; c++) a[c] += (double)dyi[c] * (double)xr[c];
        }
    }
}

size_t tno_ski_backward_rows_workspace_f32(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    return a_workspace(p) + 3 * region(s->r * p->d) + region(s->m * p->d);
}

void tno_ski_backward_rows_f32(const skit_tno_plan *p, const R *X, const R *dY, R *dX, R *ut, R *gt,
                               double *acc, R *work)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const R *weights = data_of(p).weights, *taps = data_of(p).taps_t;
    const size_t n = p->n, d = p->d, r = s->r, m = s->m, rd = region(r * d);
    R *U = work + a_workspace(p), *V = U + rd, *vt = V + rd, *reversed = vt + rd;
    interp_t_block(p, dY, U);
    TRANSPOSE(U, r, d, d, gt, r);
    if (dX) {
        skit_circulantf_apply_channels(s->f32.engine, 1, gt, r, vt, r, d, work);
        TRANSPOSE(vt, d, r, r, V, d);
        for (size_t k = 0; k < m; k++) memcpy(reversed + k * d, taps + (m - 1 - k) * d, d * sizeof *taps);
        const long blocks = (long)((n + 63) / 64);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
        for (long bk = 0; bk < blocks; bk++) {
            size_t i0 = (size_t)bk * 64, i1 = SKIT_MIN(i0 + 64, n);
            interp_rows(W, weights, i0, i1, V, d, dX);
            if (m) band_rows_with(p, reversed, m - 1 - m / 2, dY, dX, i0, i1, 0);
        }
    }
    if (ut) {
        interp_t_block(p, X, U);
        TRANSPOSE(U, r, d, d, ut, r);
    }
    if (!acc || !m) return;
    const size_t chunk = s->chunk;
    const long chunks = (long)((d + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, c1 = SKIT_MIN(c0 + chunk, d);
        band_grad_rows(n, d, m, m / 2, 0, n, c0, c1, X, dY, acc);
    }
}
#endif

/* ---- causal: Appendix B ------------------------------------------------- */

/* y_i = sum_{j <= i} w_i^T A w_j x_j = w_i^T A s_i with the running sum
 * s_i = s_{i-1} + w_i x_i (r entries per channel). s_i is zero beyond the
 * largest inducing index touched so far (`filled`), so (A s_i)[q] is a dot
 * product of length `filled`: O(n r / 2) per channel on average, and each
 * step depends on the previous one — the sequential cumulative sum the
 * paper found slower than FFT. S: r x d. One chunk of channels
 * [c0, c0 + len) of causal_rows (cloned like band_row: its axpys are the
 * whole cost). */
SKIT_MULTIVERSION static void cumsum_chunk(const skit_tno_plan *p, const R *X, R *Y, R *S, size_t c0, size_t len)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const ski_data D = data_of(p);
    const size_t n = p->n, d = p->d, r = s->r, width = W->width;
    const R *AT = D.a_t; /* lag q - (r-1) at row q, channel fastest */
    for (size_t q = 0; q < r; q++) memset(S + q * d + c0, 0, len * sizeof *S);
    size_t filled = 0;
    for (size_t i = 0; i < n; i++) {
        const R *w = D.weights + i * width, *xi = X + i * d;
        size_t start = W->start[i];
        for (size_t k = 0; k < width; k++) vaxpy(len, w[k], xi + c0, S + (start + k) * d + c0);
        if (start + width > filled) filled = start + width;
        R *yi = Y + i * d + c0;
        memset(yi, 0, len * sizeof *yi);
        for (size_t k = 0; k < width; k++) {
            size_t row = start + k; /* A(row, q) = a_{row - q} */
            for (size_t q = 0; q < filled; q++)
                vmul_axpy(len, w[k], AT + (row + r - 1 - q) * d + c0, S + q * d + c0, yi);
        }
    }
}

/* channel-major; S: d x r */
static void cumsum_channels(const skit_tno_plan *p, const R *X, R *Y, R *S)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const ski_data D = data_of(p);
    const size_t n = p->n, d = p->d, r = s->r, width = W->width, per = 2 * r - 1;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long cl = 0; cl < dl; cl++) {
        size_t c = (size_t)cl;
        const R *x = X + c * n, *a = D.a + c * per;
        R *y = Y + c * n, *sc = S + c * r;
        memset(sc, 0, r * sizeof *sc);
        size_t filled = 0;
        for (size_t i = 0; i < n; i++) {
            const R *w = D.weights + i * width;
            size_t start = W->start[i];
            for (size_t k = 0; k < width; k++) sc[start + k] += w[k] * x[i];
            if (start + width > filled) filled = start + width;
            R acc = 0;
            for (size_t k = 0; k < width; k++) {
                const R *ak = a + start + k + r - 1; /* A(row, q) = ak[-q] */
                R dot = 0;
                for (size_t q = 0; q < filled; q++) dot += ak[-(long)q] * sc[q];
                acc += w[k] * dot;
            }
            y[i] = acc;
        }
        if (s->m) band_channel(p, D.taps + c * s->m, x, y, 1);
    }
}

/* ---- causal, blocked by interpolation bracket ----------------------------- */

/* The same masked product in O(n w^2 + G^2 w^2) per channel (G <= r
 * groups of tokens that share an interpolation stencil, w = 2 for linear
 * weights). For token t of group g (stencil rows b_g..b_g+w-1),
 *   s_t = S_g + p_t,  S_g = sum of the totals v_g' of the groups g' < g,
 *   p_t = sum_{t' <= t in g} w_t' x_t'   (supported on the stencil),
 * so y_t = w_t^T (u_g + A_gg p_t) with u_g = (A S_g) on the stencil rows:
 * u_g[k] = sum_{g' < g} sum_k' a_{(b_g + k) - (b_g' + k')} v_g'[k'], a
 * strictly causal convolution over groups computed once per group, and
 * A_gg the w x w block of A on the stencil. Exact in exact arithmetic:
 * only the order of the sums differs from the running sums.
 * gv, gu: (G w) per channel, channel after channel. */
static void blocked_channels(const skit_tno_plan *p, const R *X, R *Y, R *gv, R *gu)
{
    const tno_ski *s = p->op;
    const ski_data D = data_of(p);
    const size_t n = p->n, d = p->d, r = s->r, w = s->W->width, per = 2 * r - 1, G = s->groups;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long cl = 0; cl < dl; cl++) {
        size_t c = (size_t)cl;
        const R *x = X + c * n, *a = D.a + c * per + (r - 1); /* a[l] = a_l */
        R *y = Y + c * n, *v = gv + c * G * w, *u = gu + c * G * w;
        for (size_t g = 0; g < G; g++) {
            R *vg = v + g * w;
            for (size_t k = 0; k < w; k++) vg[k] = 0;
            for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++)
                for (size_t k = 0; k < w; k++) vg[k] += D.weights[t * w + k] * x[t];
        }
        for (size_t g = 0; g < G; g++)
            for (size_t k = 0; k < w; k++) {
                long row = (long)(s->group_row[g] + k);
                R acc = 0;
                for (size_t h = 0; h < g; h++)
                    for (size_t k2 = 0; k2 < w; k2++) acc += a[row - (long)(s->group_row[h] + k2)] * v[h * w + k2];
                u[g * w + k] = acc;
            }
        R part[SKIT_TNO_MAX_WIDTH];
        for (size_t g = 0; g < G; g++) {
            for (size_t k = 0; k < w; k++) part[k] = 0;
            for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++) {
                const R *wt = D.weights + t * w;
                for (size_t k = 0; k < w; k++) part[k] += wt[k] * x[t];
                R acc = 0;
                for (size_t k = 0; k < w; k++) {
                    R z = u[g * w + k];
                    for (size_t k2 = 0; k2 < w; k2++) z += a[(long)k - (long)k2] * part[k2];
                    acc += wt[k] * z;
                }
                y[t] = acc;
            }
        }
        if (s->m) band_channel(p, D.taps + c * s->m, x, y, 1);
    }
}

/* One chunk of channels [c0, c0 + len) of causal_rows' blocked sums
 * (cloned like band_row): gv and gu are (G w) x d, part is w x d */
SKIT_MULTIVERSION static void blocked_chunk(const skit_tno_plan *p, const R *X, R *Y, R *gv, R *gu, R *part,
                                            size_t c0, size_t len)
{
    const tno_ski *s = p->op;
    const ski_data D = data_of(p);
    const size_t d = p->d, r = s->r, w = s->W->width, G = s->groups;
    const R *AT = D.a_t + (r - 1) * d; /* lag l at AT + l*d */
    for (size_t g = 0; g < G; g++) {
        for (size_t k = 0; k < w; k++) memset(gv + (g * w + k) * d + c0, 0, len * sizeof(R));
        for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++)
            for (size_t k = 0; k < w; k++) vaxpy(len, D.weights[t * w + k], X + t * d + c0, gv + (g * w + k) * d + c0);
    }
    for (size_t g = 0; g < G; g++)
        for (size_t k = 0; k < w; k++) {
            R *ug = gu + (g * w + k) * d + c0;
            memset(ug, 0, len * sizeof(R));
            long row = (long)(s->group_row[g] + k);
            for (size_t h = 0; h < g; h++)
                for (size_t k2 = 0; k2 < w; k2++)
                    vmul_add(len, AT + (row - (long)(s->group_row[h] + k2)) * (long)d + c0, gv + (h * w + k2) * d + c0,
                             ug);
        }
    for (size_t g = 0; g < G; g++) {
        for (size_t k = 0; k < w; k++) memset(part + k * d + c0, 0, len * sizeof(R));
        for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++) {
            const R *wt = D.weights + t * w;
            R *yt = Y + t * d + c0;
            for (size_t k = 0; k < w; k++) vaxpy(len, wt[k], X + t * d + c0, part + k * d + c0);
            memset(yt, 0, len * sizeof(R));
            for (size_t k = 0; k < w; k++) {
                vaxpy(len, wt[k], gu + (g * w + k) * d + c0, yt);
                for (size_t k2 = 0; k2 < w; k2++)
                    vmul_axpy(len, wt[k], AT + ((long)k - (long)k2) * (long)d + c0, part + k2 * d + c0, yt);
            }
        }
    }
}

static int blocked(const skit_tno_plan *p)
{
    return p->opt.causal_ski == SKIT_TNO_CAUSAL_BLOCKED;
}

/* ROWS, either causal form, vectorised over chunks of channels (one per
 * thread), each chunk by its cloned body: the running sums in work (r x
 * d), or the groups' totals gv and (A S_g) gu ((G w) x d each) and the
 * partial sums part (w x d); then the band. */
static void causal_rows(const skit_tno_plan *p, const R *X, R *Y, R *work)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, chunk = s->chunk;
    const size_t gw = blocked(p) ? region(s->groups * s->W->width * d) : 0;
    const long chunks = (long)((d + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, len = SKIT_MIN(c0 + chunk, d) - c0;
        if (gw) blocked_chunk(p, X, Y, work, work + gw, work + 2 * gw, c0, len);
        else cumsum_chunk(p, X, Y, work, c0, len);
    }
    if (s->m) band_rows_parallel(p, X, Y, 1);
}

void X(causal_execute)(const skit_tno_plan *p, const R *x, R *y, R *work)
{
    const tno_ski *s = p->op;
    const size_t block = p->n * p->d, gw = region(s->groups * s->W->width * p->d);
    for (size_t b = 0; b < p->batch; b++) {
        const R *xb = x + b * block;
        R *yb = y + b * block;
        if (p->opt.layout == SKIT_TNO_ROWS) causal_rows(p, xb, yb, work);
        else if (blocked(p)) blocked_channels(p, xb, yb, work, work + gw);
        else cumsum_channels(p, xb, yb, work);
    }
}

/* the running sums (r x d), or the groups' totals and (A S_g) ((G w) x d
 * each) and, in ROWS, the partial sums (w x d) */
size_t X(causal_workspace)(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    if (!blocked(p)) return s->r * p->d;
    return 2 * region(s->groups * s->W->width * p->d) + s->W->width * p->d;
}
