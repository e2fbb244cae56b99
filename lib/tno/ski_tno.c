/* ski_tno.c — SKI-TNO (ski-to-go-faster Algorithm 1) and its causal form by
 * cumulative sums (Appendix B), composed from skit/ski.h's interpolation
 * weights and skit/toeplitz.h's FFT plan for the small matrices A_c.
 *
 * In the ROWS layout ((batch, n, d), channel fastest) every step runs along
 * the contiguous channel index: W^T x adds w_ik * x[i, :] into row
 * start_i + k of an r x d block, W v and the band read whole rows, so no
 * n x d transpose is needed; only the r x d block is transposed for the
 * FFT of A. Channels are split into chunks (one per thread) where rows are
 * accumulated, and rows are split where they are written. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "tno/tno_internal.h"

#define MIN_SIZE(a, b) ((a) < (b) ? (a) : (b))

/* The inner loops run over contiguous channels (or tokens); restrict and
 * omp simd let them vectorise at -O2. */
static inline void vmul_add(size_t len, const double *restrict a, const double *restrict b, double *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] += a[c] * b[c];
}

static inline void vaxpy(size_t len, double alpha, const double *restrict x, double *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] += alpha * x[c];
}

static inline void vscale(size_t len, double alpha, const double *restrict x, double *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] = alpha * x[c];
}

/* y += alpha a .* b */
static inline void vmul_axpy(size_t len, double alpha, const double *restrict a, const double *restrict b,
                             double *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] += alpha * a[c] * b[c];
}

/* f_c(z_j), j = -K..K, with f_c(0) = 0 (the knot layout of skit/ski.h) */
static double knot_value(const double *knots, size_t K, long j)
{
    if (j == 0) return 0.0;
    return j < 0 ? knots[(long)K + j] : knots[K + (size_t)j - 1];
}

void skit_tno_ski_compute_a(const skit_tno *p, const double *knots, double *a_coeffs)
{
    const size_t r = p->r, K = p->K, per = 2 * r - 1;
    for (size_t c = 0; c < p->d; c++) {
        const double *kc = knots + c * 2 * K;
        double *a = a_coeffs + c * per;
        for (size_t q = 0; q < per; q++) {
            long j = p->knot_index[q];
            double f = p->knot_frac[q];
            a[q] = (1.0 - f) * knot_value(kc, K, j) + f * knot_value(kc, K, j + 1);
        }
    }
}

int skit_tno_ski_update(skit_tno *p)
{
    const size_t d = p->d, m = p->m, per = 2 * p->r - 1;
    const double *taps = p->params + d * 2 * p->K;
    skit_tno_ski_compute_a(p, p->params, p->a_coeffs);
    for (size_t c = 0; c < d; c++)
        for (size_t k = 0; k < m; k++) p->taps_t[k * d + c] = taps[c * m + k];
    SKIT_TRY(skit_tno_check_coeffs(p->a_coeffs, d, per, "coefficients of A"));
    if (p->a_coeffs_t) skit_tno_transpose(p->a_coeffs, d, per, p->a_coeffs_t);
    if (p->toeplitz) return skit_toeplitz_plan_set_coeffs(p->toeplitz, p->a_coeffs);
    return SKIT_OK;
}

/* ---- bidirectional ------------------------------------------------------ */

/* y[i, :] += sum_k taps(k) x[i - (k - half), :] over the valid k; `causal`
 * keeps the lags k - half >= 0 only. Rows i0..i1 of one sequence. The sum
 * over k is accumulated in registers, 4 channels at a time, so y is read
 * and written once per row instead of once per tap (measured ~2x faster
 * than one axpy per tap at -O2). */
static void band_rows(const skit_tno *p, const double *X, double *Y, size_t i0, size_t i1, int causal)
{
    const size_t n = p->n, d = p->d, m = p->m, half = m / 2;
    const size_t d4 = d / 4 * 4;
    const double *taps = p->taps_t;
    for (size_t i = i0; i < i1; i++) {
        /* taps k with source token j = i + half - k inside 0..n-1 */
        size_t k0 = causal ? half : 0, k1 = m;
        if (i + half + 1 > n && i + half + 1 - n > k0) k0 = i + half + 1 - n;
        if (i + half + 1 < k1) k1 = i + half + 1;
        if (k0 >= k1) continue;
        double *restrict yi = Y + i * d;
        for (size_t c = 0; c < d4; c += 4) {
            double a0 = yi[c], a1 = yi[c + 1], a2 = yi[c + 2], a3 = yi[c + 3];
            for (size_t k = k0; k < k1; k++) {
                const double *t = taps + k * d + c, *xr = X + (i + half - k) * d + c;
                a0 += t[0] * xr[0];
                a1 += t[1] * xr[1];
                a2 += t[2] * xr[2];
                a3 += t[3] * xr[3];
            }
            yi[c] = a0;
            yi[c + 1] = a1;
            yi[c + 2] = a2;
            yi[c + 3] = a3;
        }
        if (d4 < d)
            for (size_t k = k0; k < k1; k++) vmul_add(d - d4, taps + k * d + d4, X + (i + half - k) * d + d4, yi + d4);
    }
}

static void ski_rows(const skit_tno *p, const double *X, double *Y)
{
    const skit_interp_weights *W = p->W;
    const size_t n = p->n, d = p->d, r = p->r, width = W->width, chunk = p->chunk;
    const long chunks = (long)((d + chunk - 1) / chunk);
    double *U = p->u, *V = p->v;
    /* U = W^T X, r x d: each chunk of channels owns its columns */
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, c1 = SKIT_MIN(c0 + chunk, d);
        for (size_t q = 0; q < r; q++) memset(U + q * d + c0, 0, (c1 - c0) * sizeof *U);
        for (size_t i = 0; i < n; i++) {
            const double *w = W->weights + i * width, *xi = X + i * d;
            for (size_t k = 0; k < width; k++) vaxpy(c1 - c0, w[k], xi + c0, U + (W->start[i] + k) * d + c0);
        }
    }
    /* V = A U, channel by channel by FFT (A_c is r x r) */
    skit_tno_transpose(U, r, d, p->ut);
    skit_toeplitz_execute(p->toeplitz, p->ut, r, p->vt, r, NULL);
    skit_tno_transpose(p->vt, d, r, V);
    /* Y = W V + band */
    const long blocks = (long)((n + 63) / 64);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long bk = 0; bk < blocks; bk++) {
        size_t i0 = (size_t)bk * 64, i1 = SKIT_MIN(i0 + 64, n);
        for (size_t i = i0; i < i1; i++) {
            const double *w = W->weights + i * width;
            double *yi = Y + i * d;
            const double *v0 = V + W->start[i] * d;
            vscale(d, w[0], v0, yi);
            for (size_t k = 1; k < width; k++) vaxpy(d, w[k], v0 + k * d, yi);
        }
        if (p->m) band_rows(p, X, Y, i0, i1, 0);
    }
}

/* channel-major: y_c += sum_k taps_c(k) x_c[i - (k - half)] */
static void band_channel(const skit_tno *p, const double *taps, const double *x, double *y, int causal)
{
    const size_t n = p->n, m = p->m, half = m / 2;
    for (size_t k = causal ? half : 0; k < m; k++) {
        /* y[i] += t x[i + half - k] for 0 <= i + half - k < n */
        size_t i0 = k > half ? k - half : 0;
        size_t i1 = k < half ? (n > half - k ? n - (half - k) : 0) : n;
        if (i1 > i0) vaxpy(i1 - i0, taps[k], x + i0 + half - k, y + i0);
    }
}

static void ski_channels(const skit_tno *p, const double *X, double *Y)
{
    const size_t n = p->n, d = p->d, r = p->r;
    skit_interp_apply_transpose(p->W, d, X, n, p->u, r);
    skit_toeplitz_execute(p->toeplitz, p->u, r, p->v, r, NULL);
    skit_interp_apply(p->W, d, p->v, r, Y, n);
    if (!p->m) return;
    const double *taps = p->params + d * 2 * p->K;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long c = 0; c < dl; c++)
        band_channel(p, taps + (size_t)c * p->m, X + (size_t)c * n, Y + (size_t)c * n, 0);
}

/* ---- causal: Appendix B ------------------------------------------------ */

/* y_i = sum_{j <= i} w_i^T A w_j x_j = w_i^T A s_i with the running sum
 * s_i = s_{i-1} + w_i x_i (r entries per channel). s_i is zero beyond the
 * largest inducing index touched so far (`filled`), so (A s_i)[q] is a dot
 * product of length `filled`: O(n r / 2) per channel on average, and each
 * step depends on the previous one — the sequential cumulative sum the
 * paper found slower than FFT. */
static void causal_rows(const skit_tno *p, const double *X, double *Y)
{
    const skit_interp_weights *W = p->W;
    const size_t n = p->n, d = p->d, r = p->r, width = W->width, chunk = p->chunk;
    const long chunks = (long)((d + chunk - 1) / chunk);
    double *S = p->s;
    const double *AT = p->a_coeffs_t; /* lag q - (r-1) at row q, channel fastest */
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, c1 = SKIT_MIN(c0 + chunk, d);
        for (size_t q = 0; q < r; q++) memset(S + q * d + c0, 0, (c1 - c0) * sizeof *S);
        size_t filled = 0;
        for (size_t i = 0; i < n; i++) {
            const double *w = W->weights + i * width, *xi = X + i * d;
            size_t start = W->start[i];
            for (size_t k = 0; k < width; k++) vaxpy(c1 - c0, w[k], xi + c0, S + (start + k) * d + c0);
            if (start + width > filled) filled = start + width;
            double *yi = Y + i * d;
            for (size_t c = c0; c < c1; c++) yi[c] = 0;
            for (size_t k = 0; k < width; k++) {
                size_t row = start + k; /* A(row, q) = a_{row - q} */
                for (size_t q = 0; q < filled; q++)
                    vmul_axpy(c1 - c0, w[k], AT + (row + r - 1 - q) * d + c0, S + q * d + c0, yi + c0);
            }
        }
    }
    if (p->m) {
        const long blocks = (long)((n + 63) / 64);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
        for (long bk = 0; bk < blocks; bk++) {
            size_t i0 = (size_t)bk * 64;
            band_rows(p, X, Y, i0, SKIT_MIN(i0 + 64, n), 1);
        }
    }
}

static void causal_channels(const skit_tno *p, const double *X, double *Y)
{
    const skit_interp_weights *W = p->W;
    const size_t n = p->n, d = p->d, r = p->r, width = W->width, per = 2 * r - 1;
    const double *taps = p->params + d * 2 * p->K;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long cl = 0; cl < dl; cl++) {
        size_t c = (size_t)cl;
        const double *x = X + c * n, *a = p->a_coeffs + c * per;
        double *y = Y + c * n, *s = p->s + c * r;
        memset(s, 0, r * sizeof *s);
        size_t filled = 0;
        for (size_t i = 0; i < n; i++) {
            const double *w = W->weights + i * width;
            size_t start = W->start[i];
            for (size_t k = 0; k < width; k++) s[start + k] += w[k] * x[i];
            if (start + width > filled) filled = start + width;
            double acc = 0;
            for (size_t k = 0; k < width; k++) {
                const double *ak = a + start + k + r - 1; /* A(row, q) = ak[-q] */
                double dot = 0;
                for (size_t q = 0; q < filled; q++) dot += ak[-(long)q] * s[q];
                acc += w[k] * dot;
            }
            y[i] = acc;
        }
        if (p->m) band_channel(p, taps + c * p->m, x, y, 1);
    }
}

/* ---- causal, blocked by interpolation bracket ------------------------------ */

/* The same masked product in O(n w^2 + G^2 w^2) per channel (G <= r
 * groups of tokens that share an interpolation stencil, w = 2 for linear
 * weights). For token t of group g (stencil rows b_g..b_g+w-1),
 *   s_t = S_g + p_t,  S_g = sum of the totals v_g' of the groups g' < g,
 *   p_t = sum_{t' <= t in g} w_t' x_t'   (supported on the stencil),
 * so y_t = w_t^T (u_g + A_gg p_t) with u_g = (A S_g) on the stencil rows:
 * u_g[k] = sum_{g' < g} sum_k' a_{(b_g + k) - (b_g' + k')} v_g'[k'], a
 * strictly causal convolution over groups computed once per group, and
 * A_gg the w x w block of A on the stencil. Exact in exact arithmetic:
 * only the order of the sums differs from the running sums. */
static void blocked_channels(const skit_tno *p, const double *X, double *Y)
{
    const skit_interp_weights *W = p->W;
    const size_t n = p->n, d = p->d, r = p->r, w = W->width, per = 2 * r - 1, G = p->groups;
    const double *taps = p->params + d * 2 * p->K;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long cl = 0; cl < dl; cl++) {
        size_t c = (size_t)cl;
        const double *x = X + c * n, *a = p->a_coeffs + c * per + (r - 1); /* a[l] = a_l */
        double *y = Y + c * n, *v = p->gv + c * G * w, *u = p->gu + c * G * w;
        for (size_t g = 0; g < G; g++) {
            double *vg = v + g * w;
            for (size_t k = 0; k < w; k++) vg[k] = 0;
            for (size_t t = p->group_token[g]; t < p->group_token[g + 1]; t++)
                for (size_t k = 0; k < w; k++) vg[k] += W->weights[t * w + k] * x[t];
        }
        for (size_t g = 0; g < G; g++)
            for (size_t k = 0; k < w; k++) {
                long row = (long)(p->group_row[g] + k);
                double acc = 0;
                for (size_t h = 0; h < g; h++)
                    for (size_t k2 = 0; k2 < w; k2++) acc += a[row - (long)(p->group_row[h] + k2)] * v[h * w + k2];
                u[g * w + k] = acc;
            }
        double part[SKIT_TNO_MAX_WIDTH];
        for (size_t g = 0; g < G; g++) {
            for (size_t k = 0; k < w; k++) part[k] = 0;
            for (size_t t = p->group_token[g]; t < p->group_token[g + 1]; t++) {
                const double *wt = W->weights + t * w;
                for (size_t k = 0; k < w; k++) part[k] += wt[k] * x[t];
                double acc = 0;
                for (size_t k = 0; k < w; k++) {
                    double z = u[g * w + k];
                    for (size_t k2 = 0; k2 < w; k2++) z += a[(long)k - (long)k2] * part[k2];
                    acc += wt[k] * z;
                }
                y[t] = acc;
            }
        }
        if (p->m) band_channel(p, taps + c * p->m, x, y, 1);
    }
}

/* ROWS: the same, vectorised over a chunk of channels; v and u are
 * (G * w) x d, part is w x d (the running-sum buffer s). */
static void blocked_rows(const skit_tno *p, const double *X, double *Y)
{
    const skit_interp_weights *W = p->W;
    const size_t n = p->n, d = p->d, r = p->r, w = W->width, G = p->groups, chunk = p->chunk;
    const long chunks = (long)((d + chunk - 1) / chunk);
    const double *AT = p->a_coeffs_t + (r - 1) * d; /* lag l at AT + l*d */
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, len = MIN_SIZE(c0 + chunk, d) - c0;
        for (size_t g = 0; g < G; g++) {
            for (size_t k = 0; k < w; k++) memset(p->gv + (g * w + k) * d + c0, 0, len * sizeof(double));
            for (size_t t = p->group_token[g]; t < p->group_token[g + 1]; t++)
                for (size_t k = 0; k < w; k++)
                    vaxpy(len, W->weights[t * w + k], X + t * d + c0, p->gv + (g * w + k) * d + c0);
        }
        for (size_t g = 0; g < G; g++)
            for (size_t k = 0; k < w; k++) {
                double *ug = p->gu + (g * w + k) * d + c0;
                memset(ug, 0, len * sizeof(double));
                long row = (long)(p->group_row[g] + k);
                for (size_t h = 0; h < g; h++)
                    for (size_t k2 = 0; k2 < w; k2++)
                        vmul_add(len, AT + (row - (long)(p->group_row[h] + k2)) * (long)d + c0,
                                 p->gv + (h * w + k2) * d + c0, ug);
            }
        double *part = p->s; /* w x d */
        for (size_t g = 0; g < G; g++) {
            for (size_t k = 0; k < w; k++) memset(part + k * d + c0, 0, len * sizeof(double));
            for (size_t t = p->group_token[g]; t < p->group_token[g + 1]; t++) {
                const double *wt = W->weights + t * w;
                double *yt = Y + t * d + c0;
                for (size_t k = 0; k < w; k++) vaxpy(len, wt[k], X + t * d + c0, part + k * d + c0);
                memset(yt, 0, len * sizeof(double));
                for (size_t k = 0; k < w; k++) {
                    vaxpy(len, wt[k], p->gu + (g * w + k) * d + c0, yt);
                    for (size_t k2 = 0; k2 < w; k2++)
                        vmul_axpy(len, wt[k], AT + ((long)k - (long)k2) * (long)d + c0, part + k2 * d + c0, yt);
                }
            }
        }
    }
    if (p->m) {
        const long blocks = (long)((n + 63) / 64);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
        for (long bk = 0; bk < blocks; bk++) {
            size_t i0 = (size_t)bk * 64;
            band_rows(p, X, Y, i0, MIN_SIZE(i0 + 64, n), 1);
        }
    }
}

void skit_tno_ski_execute(const skit_tno *p, const double *x, double *y)
{
    const size_t block = p->n * p->d;
    const int causal = p->opt.causality == SKIT_CAUSAL, rows = p->opt.layout == SKIT_TNO_ROWS;
    for (size_t b = 0; b < p->batch; b++) {
        const double *xb = x + b * block;
        double *yb = y + b * block;
        if (causal && p->opt.causal_ski == SKIT_TNO_CAUSAL_BLOCKED) {
            if (rows) blocked_rows(p, xb, yb);
            else blocked_channels(p, xb, yb);
        } else if (causal) {
            if (rows) causal_rows(p, xb, yb);
            else causal_channels(p, xb, yb);
        } else {
            if (rows) ski_rows(p, xb, yb);
            else ski_channels(p, xb, yb);
        }
    }
}
