/* ski_causal.c — causal SKI-TNO: the lower triangle of S + W A W^T, by the
 * running sums of ski-to-go-faster Appendix B (the paper's algorithm) or
 * with the same sums grouped by interpolation bracket
 * (SKIT_TNO_CAUSAL_BLOCKED). The set-up is SKI-TNO's (ski.c). */
#include "config.h"

#include <string.h>

#include "tno/tno_internal.h"

/* Y += the causal band, ROWS, in blocks of 64 rows over the threads */
static void causal_band_rows(const skit_tno_plan *p, const double *X, double *Y)
{
    const size_t n = p->n, d = p->d;
    const long blocks = (long)((n + 63) / 64);
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long bk = 0; bk < blocks; bk++) {
        size_t i0 = (size_t)bk * 64;
        tno_ski_band_rows(p, X, Y, i0, SKIT_MIN(i0 + 64, n), 1);
    }
}

/* ---- Appendix B --------------------------------------------------------- */

/* y_i = sum_{j <= i} w_i^T A w_j x_j = w_i^T A s_i with the running sum
 * s_i = s_{i-1} + w_i x_i (r entries per channel). s_i is zero beyond the
 * largest inducing index touched so far (`filled`), so (A s_i)[q] is a dot
 * product of length `filled`: O(n r / 2) per channel on average, and each
 * step depends on the previous one — the sequential cumulative sum the
 * paper found slower than FFT. S: r x d. */
static void cumsum_rows(const skit_tno_plan *p, const double *X, double *Y, double *S)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t n = p->n, d = p->d, r = s->r, width = W->width, chunk = s->chunk;
    const long chunks = (long)((d + chunk - 1) / chunk);
    const double *AT = s->a_coeffs_t; /* lag q - (r-1) at row q, channel fastest */
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, c1 = SKIT_MIN(c0 + chunk, d);
        for (size_t q = 0; q < r; q++) memset(S + q * d + c0, 0, (c1 - c0) * sizeof *S);
        size_t filled = 0;
        for (size_t i = 0; i < n; i++) {
            const double *w = W->weights + i * width, *xi = X + i * d;
            size_t start = W->start[i];
            for (size_t k = 0; k < width; k++) tno_vaxpy(c1 - c0, w[k], xi + c0, S + (start + k) * d + c0);
            if (start + width > filled) filled = start + width;
            double *yi = Y + i * d;
            for (size_t c = c0; c < c1; c++) yi[c] = 0;
            for (size_t k = 0; k < width; k++) {
                size_t row = start + k; /* A(row, q) = a_{row - q} */
                for (size_t q = 0; q < filled; q++)
                    tno_vmul_axpy(c1 - c0, w[k], AT + (row + r - 1 - q) * d + c0, S + q * d + c0, yi + c0);
            }
        }
    }
    if (s->m) causal_band_rows(p, X, Y);
}

/* channel-major; S: d x r */
static void cumsum_channels(const skit_tno_plan *p, const double *X, double *Y, double *S)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t n = p->n, d = p->d, r = s->r, width = W->width, per = 2 * r - 1;
    const double *taps = s->params + d * 2 * s->K;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long cl = 0; cl < dl; cl++) {
        size_t c = (size_t)cl;
        const double *x = X + c * n, *a = s->a_coeffs + c * per;
        double *y = Y + c * n, *sc = S + c * r;
        memset(sc, 0, r * sizeof *sc);
        size_t filled = 0;
        for (size_t i = 0; i < n; i++) {
            const double *w = W->weights + i * width;
            size_t start = W->start[i];
            for (size_t k = 0; k < width; k++) sc[start + k] += w[k] * x[i];
            if (start + width > filled) filled = start + width;
            double acc = 0;
            for (size_t k = 0; k < width; k++) {
                const double *ak = a + start + k + r - 1; /* A(row, q) = ak[-q] */
                double dot = 0;
                for (size_t q = 0; q < filled; q++) dot += ak[-(long)q] * sc[q];
                acc += w[k] * dot;
            }
            y[i] = acc;
        }
        if (s->m) tno_ski_band_channel(p, taps + c * s->m, x, y, 1);
    }
}

/* ---- blocked by interpolation bracket -------------------------------------- */

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
static void blocked_channels(const skit_tno_plan *p, const double *X, double *Y, double *gv,
                             double *gu)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t n = p->n, d = p->d, r = s->r, w = W->width, per = 2 * r - 1, G = s->groups;
    const double *taps = s->params + d * 2 * s->K;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long cl = 0; cl < dl; cl++) {
        size_t c = (size_t)cl;
        const double *x = X + c * n, *a = s->a_coeffs + c * per + (r - 1); /* a[l] = a_l */
        double *y = Y + c * n, *v = gv + c * G * w, *u = gu + c * G * w;
        for (size_t g = 0; g < G; g++) {
            double *vg = v + g * w;
            for (size_t k = 0; k < w; k++) vg[k] = 0;
            for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++)
                for (size_t k = 0; k < w; k++) vg[k] += W->weights[t * w + k] * x[t];
        }
        for (size_t g = 0; g < G; g++)
            for (size_t k = 0; k < w; k++) {
                long row = (long)(s->group_row[g] + k);
                double acc = 0;
                for (size_t h = 0; h < g; h++)
                    for (size_t k2 = 0; k2 < w; k2++) acc += a[row - (long)(s->group_row[h] + k2)] * v[h * w + k2];
                u[g * w + k] = acc;
            }
        double part[SKIT_TNO_MAX_WIDTH];
        for (size_t g = 0; g < G; g++) {
            for (size_t k = 0; k < w; k++) part[k] = 0;
            for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++) {
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
        if (s->m) tno_ski_band_channel(p, taps + c * s->m, x, y, 1);
    }
}

/* ROWS: the same, vectorised over a chunk of channels; gv and gu are
 * (G w) x d, part is w x d. */
static void blocked_rows(const skit_tno_plan *p, const double *X, double *Y, double *gv, double *gu,
                         double *part)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t n = p->n, d = p->d, r = s->r, w = W->width, G = s->groups, chunk = s->chunk;
    const long chunks = (long)((d + chunk - 1) / chunk);
    const double *AT = s->a_coeffs_t + (r - 1) * d; /* lag l at AT + l*d */
#pragma omp parallel for schedule(static) if (n * d >= 4096)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, len = SKIT_MIN(c0 + chunk, d) - c0;
        for (size_t g = 0; g < G; g++) {
            for (size_t k = 0; k < w; k++) memset(gv + (g * w + k) * d + c0, 0, len * sizeof(double));
            for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++)
                for (size_t k = 0; k < w; k++)
                    tno_vaxpy(len, W->weights[t * w + k], X + t * d + c0, gv + (g * w + k) * d + c0);
        }
        for (size_t g = 0; g < G; g++)
            for (size_t k = 0; k < w; k++) {
                double *ug = gu + (g * w + k) * d + c0;
                memset(ug, 0, len * sizeof(double));
                long row = (long)(s->group_row[g] + k);
                for (size_t h = 0; h < g; h++)
                    for (size_t k2 = 0; k2 < w; k2++)
                        tno_vmul_add(len, AT + (row - (long)(s->group_row[h] + k2)) * (long)d + c0,
                                     gv + (h * w + k2) * d + c0, ug);
            }
        for (size_t g = 0; g < G; g++) {
            for (size_t k = 0; k < w; k++) memset(part + k * d + c0, 0, len * sizeof(double));
            for (size_t t = s->group_token[g]; t < s->group_token[g + 1]; t++) {
                const double *wt = W->weights + t * w;
                double *yt = Y + t * d + c0;
                for (size_t k = 0; k < w; k++) tno_vaxpy(len, wt[k], X + t * d + c0, part + k * d + c0);
                memset(yt, 0, len * sizeof(double));
                for (size_t k = 0; k < w; k++) {
                    tno_vaxpy(len, wt[k], gu + (g * w + k) * d + c0, yt);
                    for (size_t k2 = 0; k2 < w; k2++)
                        tno_vmul_axpy(len, wt[k], AT + ((long)k - (long)k2) * (long)d + c0, part + k2 * d + c0, yt);
                }
            }
        }
    }
    if (s->m) causal_band_rows(p, X, Y);
}

static int blocked(const skit_tno_plan *p)
{
    return p->opt.causal_ski == SKIT_TNO_CAUSAL_BLOCKED;
}

static void execute(const skit_tno_plan *p, const double *x, double *y, double *work)
{
    const tno_ski *s = p->op;
    const size_t block = p->n * p->d, gw = tno_region(s->groups * s->W->width * p->d);
    const int rows = p->opt.layout == SKIT_TNO_ROWS;
    for (size_t b = 0; b < p->batch; b++) {
        const double *xb = x + b * block;
        double *yb = y + b * block;
        if (blocked(p) && rows) blocked_rows(p, xb, yb, work, work + gw, work + 2 * gw);
        else if (blocked(p)) blocked_channels(p, xb, yb, work, work + gw);
        else if (rows) cumsum_rows(p, xb, yb, work);
        else cumsum_channels(p, xb, yb, work);
    }
}

/* the running sums (r x d), or the groups' totals and (A S_g) ((G w) x d
 * each) and, in ROWS, the partial sums (w x d) */
static size_t workspace_doubles(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    if (!blocked(p)) return s->r * p->d;
    return 2 * tno_region(s->groups * s->W->width * p->d) + s->W->width * p->d;
}

/* consecutive tokens that share a stencil form a group */
static int group_tokens(const skit_tno_plan *p, tno_ski *s)
{
    const skit_interp_weights *W = s->W;
    size_t G = 1;
    for (size_t i = 1; i < p->n; i++) G += W->start[i] != W->start[i - 1];
    s->groups = G;
    s->group_token = skit_malloc(G + 1, sizeof(size_t));
    s->group_row = skit_malloc(G, sizeof(size_t));
    if (!s->group_token || !s->group_row) return SKIT_ENOMEM;
    size_t g = 0;
    for (size_t i = 0; i < p->n; i++)
        if (i == 0 || W->start[i] != W->start[i - 1]) {
            s->group_token[g] = i;
            s->group_row[g++] = W->start[i];
        }
    s->group_token[G] = p->n;
    return SKIT_OK;
}

static int create(skit_tno_plan *p, const double *params)
{
    SKIT_TRY(tno_ski_create_common(p, params));
    tno_ski *s = p->op;
    s->a_coeffs_t = skit_malloc(2 * s->r - 1, p->d * sizeof(double));
    if (!s->a_coeffs_t) return SKIT_ENOMEM;
    return blocked(p) ? group_tokens(p, s) : SKIT_OK;
}

static int update(skit_tno_plan *p, double *work)
{
    (void)work;
    tno_ski *s = p->op;
    SKIT_TRY(tno_ski_update_common(p));
    tno_transpose(s->a_coeffs, p->d, 2 * s->r - 1, s->a_coeffs_t);
    return SKIT_OK;
}

static int estimate(const skit_tno_plan *p, size_t *doubles)
{
    int overflow = 0;
    tno_ski_estimate_common(p, doubles, &overflow);
    return overflow ? SKIT_EOVERFLOW : SKIT_OK;
}

const tno_ops tno_ski_causal_ops = {
    .estimate = estimate,
    .create = create,
    .destroy = tno_ski_destroy,
    .get_parameters = tno_ski_get_parameters,
    .put_parameters = tno_ski_put_parameters,
    .update = update,
    .workspace_doubles = workspace_doubles,
    .execute = execute,
    .dense = tno_ski_dense,
    .bytes = tno_ski_bytes,
    .describe = tno_ski_describe,
    .backward = &tno_ski_backward,
};
