/* ski.c — SKI-TNO (ski-to-go-faster Algorithm 1): what both forms share
 * (parameters, interpolation weights, the knot positions of A's lags, the
 * band, the dense matrix) and the bidirectional operator
 * y = S x + W (A (W^T x)), A applied by the Toeplitz plan's FFT.
 *
 * In the ROWS layout ((batch, n, d), channel fastest) every step runs along
 * the contiguous channel index: W^T x adds w_ik * x[i, :] into row
 * start_i + k of an r x d block, W v and the band read whole rows, so no
 * n x d transpose is needed; only the r x d block is transposed for the
 * FFT of A. Channels are split into chunks (one per thread) where rows are
 * accumulated, and rows are split where they are written. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tno/tno_internal.h"

static inline void vscale(size_t len, double alpha, const double *restrict x, double *restrict y)
{
#pragma omp simd
    for (size_t c = 0; c < len; c++) y[c] = alpha * x[c];
}

/* ---- parameters and the matrices A_c --------------------------------------- */

/* f_c(z_j), j = -K..K, with f_c(0) = 0 (the knot layout of skit/ski.h) */
static double knot_value(const double *knots, size_t K, long j)
{
    if (j == 0) return 0.0;
    return j < 0 ? knots[(long)K + j] : knots[K + (size_t)j - 1];
}

void tno_ski_compute_a(const skit_tno_plan *p, const double *knots, double *a_coeffs)
{
    const tno_ski *s = p->op;
    const size_t r = s->r, K = s->K, per = 2 * r - 1;
    for (size_t c = 0; c < p->d; c++) {
        const double *kc = knots + c * 2 * K;
        double *a = a_coeffs + c * per;
        for (size_t q = 0; q < per; q++) {
            long j = s->knot_index[q];
            double f = s->knot_frac[q];
            a[q] = (1.0 - f) * knot_value(kc, K, j) + f * knot_value(kc, K, j + 1);
        }
    }
}

int tno_ski_update_common(skit_tno_plan *p)
{
    tno_ski *s = p->op;
    const size_t d = p->d, m = s->m, per = 2 * s->r - 1;
    const double *taps = s->params + d * 2 * s->K;
    tno_ski_compute_a(p, s->params, s->a_coeffs);
    for (size_t c = 0; c < d; c++)
        for (size_t k = 0; k < m; k++) s->taps_t[k * d + c] = taps[c * m + k];
    return tno_check_coeffs(s->a_coeffs, d, per, "coefficients of A");
}

int tno_ski_get_parameters(const skit_tno_plan *p, double *params)
{
    const tno_ski *s = p->op;
    memcpy(params, s->params, p->param_count * sizeof(double));
    return SKIT_OK;
}

int tno_ski_put_parameters(skit_tno_plan *p, const double *params)
{
    tno_ski *s = p->op;
    memcpy(s->params, params, p->param_count * sizeof(double));
    return SKIT_OK;
}

/* Generated parameters: knots uniform on [-1, 1] (stream 1), taps uniform
 * on +-1/sqrt(m) (stream 2), channel by channel. */
static void generate_params(const skit_tno_options *o, size_t d, double *params)
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

/* The warped positions of A's lags are the same for every channel: their
 * knot intervals are located once. */
static int locate_knots(const skit_tno_plan *p, tno_ski *s)
{
    const size_t r = s->r, K = s->K;
    s->knot_index = skit_malloc(2 * r - 1, sizeof(long));
    s->knot_frac = skit_malloc(2 * r - 1, sizeof(double));
    if (!s->knot_index || !s->knot_frac) return SKIT_ENOMEM;
    for (size_t q = 0; q < 2 * r - 1; q++) {
        double t = ((double)q - (double)(r - 1)) * s->spacing;
        double w = (t < 0 ? -1.0 : 1.0) * pow(p->opt.decay, fabs(t));
        double u = w * (double)K; /* knot coordinate in [-K, K] */
        double j = floor(u);
        if (j > (double)K - 1) j = (double)K - 1;
        if (j < -(double)K) j = -(double)K;
        s->knot_index[q] = (long)j;
        s->knot_frac[q] = u - j;
    }
    return SKIT_OK;
}

int tno_ski_create_common(skit_tno_plan *p, const double *params)
{
    const size_t n = p->n, d = p->d;
    tno_ski *s = skit_calloc(1, sizeof *s);
    if (!s) return SKIT_ENOMEM;
    p->op = s;
    s->r = p->opt.rank;
    s->m = p->opt.taps;
    s->K = p->opt.knots;
    s->params = skit_malloc(p->param_count, sizeof(double));
    if (!s->params) return SKIT_ENOMEM;
    if (params) memcpy(s->params, params, p->param_count * sizeof(double));
    else generate_params(&p->opt, d, s->params);

    skit_interp_options io;
    skit_interp_options_default(&io, n); /* linear, inducing points on [0, n-1] */
    SKIT_TRY(skit_interp_weights_create(&s->W, n, NULL, s->r, &io));
    s->spacing = (double)(n - 1) / (double)(s->r - 1);
    SKIT_TRY(locate_knots(p, s));
    s->a_coeffs = skit_malloc(d, (2 * s->r - 1) * sizeof(double));
    s->taps_t = skit_malloc(s->m ? s->m : 1, d * sizeof(double));
    if (!s->a_coeffs || !s->taps_t) return SKIT_ENOMEM;
    /* channel chunks of whole cache lines, about one per thread */
    size_t chunk = (d + (size_t)p->threads - 1) / (size_t)p->threads;
    s->chunk = SKIT_MAX((size_t)8, (chunk + 7) / 8 * 8);
    tno_ski_compute_a(p, s->params, s->a_coeffs);
    return SKIT_OK;
}

void tno_ski_destroy(skit_tno_plan *p)
{
    tno_ski *s = p->op;
    if (!s) return;
    skit_free(s->params);
    skit_interp_weights_destroy(s->W);
    skit_free(s->knot_index);
    skit_free(s->knot_frac);
    skit_free(s->a_coeffs);
    skit_free(s->a_coeffs_t);
    skit_free(s->taps_t);
    skit_toeplitz_plan_destroy(s->toeplitz);
    skit_free(s->group_token);
    skit_free(s->group_row);
    skit_free(s);
}

void tno_ski_estimate_common(const skit_tno_plan *p, size_t *doubles, int *overflow)
{
    const size_t n = p->n, d = p->d, r = p->opt.rank;
    size_t L = 0;
    if (skit_fft_good_length(2 * r - 1, &L) != SKIT_OK) *overflow = 1;
    size_t terms[6][2] = {{n, 4},                        /* interpolation weights, starts, points */
                          {2 * r - 1, 2 * d + 2},        /* A's coefficients (+ transposed), knots */
                          {p->opt.taps + 1, d},          /* taps */
                          {9 * r, d},                    /* workspace: u, v, ut, vt, s or groups */
                          {L / 2 + 1, 2 * d},            /* A's spectra */
                          {(size_t)p->threads, 2 * L + 16}};
    tno_add_terms(terms, 6, doubles, overflow);
}

size_t tno_ski_bytes(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, r = s->r, dbl = sizeof(double);
    size_t total = sizeof *s + p->param_count * dbl;
    total += skit_toeplitz_plan_bytes(s->toeplitz);
    total += n * (s->W->width * dbl + sizeof(size_t) + dbl) + r * dbl;
    total += (2 * r - 1) * (sizeof(long) + dbl);
    total += d * (2 * r - 1) * dbl * (s->a_coeffs_t ? 2 : 1);
    total += (s->m ? s->m : 1) * d * dbl;
    if (s->group_token) total += (2 * s->groups + 1) * sizeof(size_t);
    return total;
}

void tno_ski_describe(const skit_tno_plan *p, char *text, size_t size)
{
    const tno_ski *s = p->op;
    const skit_tno_options *o = &p->opt;
    snprintf(text, size, " r=%zu taps=%zu knots=%zu decay=%g interp=linear%s", s->r, s->m, s->K, o->decay,
             o->causality != SKIT_CAUSAL ? ""
             : o->causal_ski == SKIT_TNO_CAUSAL_BLOCKED ? " blocked-sums"
                                                         : " cumulative-sums");
}

/* T = S + W A W^T for channel c (the front applies the causal mask) */
int tno_ski_dense(const skit_tno_plan *p, size_t c, double *T, size_t ldt)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, r = s->r, per = 2 * r - 1, m = s->m, half = m / 2;
    double *Wd = skit_malloc(n, r * sizeof(double));
    double *WA = skit_malloc(n, r * sizeof(double));
    double *A = skit_malloc(r, r * sizeof(double));
    double *a = skit_malloc(p->d, per * sizeof(double));
    int status = (Wd && WA && A && a) ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        tno_ski_compute_a(p, s->params, a);
        status = skit_interp_weights_dense(s->W, Wd, n);
    }
    if (status == SKIT_OK) status = skit_toeplitz_dense(r, r, a + c * per, SKIT_BIDIRECTIONAL, A, r);
    if (status == SKIT_OK) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)r, (int)r, 1.0, Wd, (int)n,
                    A, (int)r, 0.0, WA, (int)n);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)r, 1.0, WA, (int)n,
                    Wd, (int)n, 0.0, T, (int)ldt);
        const double *taps = s->params + p->d * 2 * s->K + c * m;
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < m; k++) {
                /* lag i - j = k - half */
                if (j + k < half || j + k - half >= n) continue;
                T[(j + k - half) + j * ldt] += taps[k];
            }
    }
    skit_free(Wd);
    skit_free(WA);
    skit_free(A);
    skit_free(a);
    return status;
}

/* ---- the band ------------------------------------------------------------ */

/* y[i, :] += sum_k taps(k) x[i - (k - half), :] over the valid k; `causal`
 * keeps the lags k - half >= 0 only. The sum over k is accumulated in
 * registers, 4 channels at a time, so y is read and written once per row
 * instead of once per tap. */
void tno_ski_band_rows(const skit_tno_plan *p, const double *X, double *Y, size_t i0, size_t i1,
                       int causal)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, m = s->m, half = m / 2;
    const size_t d4 = d / 4 * 4;
    const double *taps = s->taps_t;
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
            for (size_t k = k0; k < k1; k++)
                tno_vmul_add(d - d4, taps + k * d + d4, X + (i + half - k) * d + d4, yi + d4);
    }
}

/* channel-major: y_c += sum_k taps_c(k) x_c[i - (k - half)] */
void tno_ski_band_channel(const skit_tno_plan *p, const double *taps, const double *x, double *y,
                          int causal)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, m = s->m, half = m / 2;
    for (size_t k = causal ? half : 0; k < m; k++) {
        /* y[i] += t x[i + half - k] for 0 <= i + half - k < n */
        size_t i0 = k > half ? k - half : 0;
        size_t i1 = k < half ? (n > half - k ? n - (half - k) : 0) : n;
        if (i1 > i0) tno_vaxpy(i1 - i0, taps[k], x + i0 + half - k, y + i0);
    }
}

/* ---- bidirectional ------------------------------------------------------ */

/* ROWS: U = W^T X (r x d), V = A U by the FFT channel-major (ut, vt), Y =
 * W V + band. work: U, V, ut, vt (r x d each). */
static void bidirectional_rows(const skit_tno_plan *p, const double *X, double *Y, double *work)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t n = p->n, d = p->d, r = s->r, width = W->width, chunk = s->chunk;
    const long chunks = (long)((d + chunk - 1) / chunk);
    const size_t rd = tno_region(r * d);
    double *U = work, *V = U + rd, *ut = V + rd, *vt = ut + rd;
    /* U = W^T X, r x d: each chunk of channels owns its columns */
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long ch = 0; ch < chunks; ch++) {
        size_t c0 = (size_t)ch * chunk, c1 = SKIT_MIN(c0 + chunk, d);
        for (size_t q = 0; q < r; q++) memset(U + q * d + c0, 0, (c1 - c0) * sizeof *U);
        for (size_t i = 0; i < n; i++) {
            const double *w = W->weights + i * width, *xi = X + i * d;
            for (size_t k = 0; k < width; k++) tno_vaxpy(c1 - c0, w[k], xi + c0, U + (W->start[i] + k) * d + c0);
        }
    }
    /* V = A U, channel by channel by FFT (A_c is r x r) */
    tno_transpose(U, r, d, ut);
    skit_toeplitz_plan_execute(s->toeplitz, ut, r, vt, r, NULL);
    tno_transpose(vt, d, r, V);
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
            for (size_t k = 1; k < width; k++) tno_vaxpy(d, w[k], v0 + k * d, yi);
        }
        if (s->m) tno_ski_band_rows(p, X, Y, i0, i1, 0);
    }
}

/* CHANNELS: the same with skit/ski.h's interpolation; work: u, v (d x r) */
static void bidirectional_channels(const skit_tno_plan *p, const double *X, double *Y, double *work)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, r = s->r;
    double *u = work, *v = u + tno_region(r * d);
    skit_interp_apply_transpose(s->W, d, X, n, u, r);
    skit_toeplitz_plan_execute(s->toeplitz, u, r, v, r, NULL);
    skit_interp_apply(s->W, d, v, r, Y, n);
    if (!s->m) return;
    const double *taps = s->params + d * 2 * s->K;
    const long dl = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 16384)
    for (long c = 0; c < dl; c++)
        tno_ski_band_channel(p, taps + (size_t)c * s->m, X + (size_t)c * n, Y + (size_t)c * n, 0);
}

static void execute(const skit_tno_plan *p, const double *x, double *y, double *work)
{
    const size_t block = p->n * p->d;
    for (size_t b = 0; b < p->batch; b++) {
        if (p->opt.layout == SKIT_TNO_ROWS) bidirectional_rows(p, x + b * block, y + b * block, work);
        else bidirectional_channels(p, x + b * block, y + b * block, work);
    }
}

static size_t workspace_doubles(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    return (p->opt.layout == SKIT_TNO_ROWS ? 4 : 2) * tno_region(s->r * p->d);
}

static int create(skit_tno_plan *p, const double *params)
{
    SKIT_TRY(tno_ski_create_common(p, params));
    tno_ski *s = p->op;
    return skit_toeplitz_plan_create(&s->toeplitz, s->r, s->r, p->d,
                                     &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                              .causality = SKIT_BIDIRECTIONAL,
                                                              .planner = p->opt.planner},
                                     s->a_coeffs);
}

static int update(skit_tno_plan *p, double *work)
{
    (void)work;
    tno_ski *s = p->op;
    SKIT_TRY(tno_ski_update_common(p));
    return skit_toeplitz_plan_set_coeffs(s->toeplitz, s->a_coeffs);
}

static int estimate(const skit_tno_plan *p, size_t *doubles)
{
    int overflow = 0;
    tno_ski_estimate_common(p, doubles, &overflow);
    return overflow ? SKIT_EOVERFLOW : SKIT_OK;
}

const tno_ops tno_ski_ops = {
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
