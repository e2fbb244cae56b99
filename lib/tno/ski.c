/* ski.c — SKI-TNO (ski-to-go-faster Algorithm 1): what both forms share
 * (parameters, interpolation weights, the knot positions of A's lags, the
 * dense matrix, a float32 plan's rounded data) and the bidirectional
 * operator's plan, y = S x + W (A (W^T x)) with A applied by FFT (the
 * Toeplitz plan's, or a float32 plan's fftwf engine). The arithmetic of a
 * call is ski_apply.c's, in both precisions. */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tno/tno_internal.h"

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

int tno_ski_update_common(skit_tno_plan *p, double *a)
{
    tno_ski *s = p->op;
    const size_t d = p->d, m = s->m, per = 2 * s->r - 1;
    const double *taps = s->params + d * 2 * s->K;
    tno_ski_compute_a(p, s->params, a);
    if (s->taps_t) /* float64 plans' (float32 plans transpose as they round) */
        for (size_t c = 0; c < d; c++)
            for (size_t k = 0; k < m; k++) s->taps_t[k * d + c] = taps[c * m + k];
    return tno_check_coeffs(a, d, per, "coefficients of A");
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
    /* float32 plans keep A's coefficients and the taps in float only
     * (tno_ski_update_f32: A's float64 ones pass through the workspace) */
    if (p->opt.precision != SKIT_PRECISION_F32) {
        s->a_coeffs = skit_malloc(d, (2 * s->r - 1) * sizeof(double));
        s->taps_t = skit_malloc(s->m ? s->m : 1, d * sizeof(double));
        if (!s->a_coeffs || !s->taps_t) return SKIT_ENOMEM;
        tno_ski_compute_a(p, s->params, s->a_coeffs); /* A's Toeplitz plan is made from them */
    }
    /* channel chunks of whole cache lines, about one per thread */
    size_t chunk = (d + (size_t)p->threads - 1) / (size_t)p->threads;
    s->chunk = SKIT_MAX((size_t)8, (chunk + 7) / 8 * 8);
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
    tno_ski_destroy_f32(&s->f32);
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
    /* float32: weights (n x 2), taps and A's coefficients twice, as floats */
    size_t floats[3][2] = {{n, 1}, {p->opt.taps + 1, d}, {2 * r - 1, d}};
    if (p->opt.precision == SKIT_PRECISION_F32) tno_add_terms(floats, 3, doubles, overflow);
}

static size_t bytes_f32(const skit_tno_plan *p);

size_t tno_ski_bytes(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, r = s->r, dbl = sizeof(double);
    size_t total = sizeof *s + p->param_count * dbl;
    total += skit_toeplitz_plan_bytes(s->toeplitz);
    total += n * sizeof(size_t) + r * dbl;
    if (s->W->weights) total += n * (s->W->width + 1) * dbl; /* weights, points: float64 plans */
    total += (2 * r - 1) * (sizeof(long) + dbl);
    if (s->a_coeffs) total += d * (2 * r - 1) * dbl * (s->a_coeffs_t ? 2 : 1);
    if (s->taps_t) total += (s->m ? s->m : 1) * d * dbl;
    if (s->group_token) total += (2 * s->groups + 1) * sizeof(size_t);
    return total + bytes_f32(p);
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

/* ---- float32 plans ------------------------------------------------------ */

static void round_to_float(float *dst, const double *src, size_t count)
{
    for (size_t i = 0; i < count; i++) dst[i] = (float)src[i];
}

/* ||W||_1: W's largest column sum (its weights are >= 0) */
static int weights_norm1(const skit_interp_weights *W, double *norm)
{
    double *col = skit_calloc(W->r, sizeof(double));
    if (!col) return SKIT_ENOMEM;
    for (size_t i = 0; i < W->n; i++)
        for (size_t k = 0; k < W->width; k++) col[W->start[i] + k] += fabs(W->weights[i * W->width + k]);
    *norm = 0;
    for (size_t q = 0; q < W->r; q++) *norm = fmax(*norm, col[q]);
    skit_free(col);
    return SKIT_OK;
}

int tno_ski_create_f32(skit_tno_plan *p)
{
    tno_ski *s = p->op;
    tno_ski_f32 *f = &s->f32;
    const size_t n = p->n, d = p->d, per = 2 * s->r - 1, width = s->W->width, m = s->m ? s->m : 1;
    f->weights = skit_malloc(n, width * sizeof(float));
    f->taps = skit_malloc(d, m * sizeof(float));
    f->taps_t = skit_malloc(m, d * sizeof(float));
    f->a_coeffs = skit_malloc(d, per * sizeof(float));
    if (!f->weights || !f->taps || !f->taps_t || !f->a_coeffs) return SKIT_ENOMEM;
    if (p->opt.causality == SKIT_CAUSAL) {
        if (!(f->a_coeffs_t = skit_malloc(per, d * sizeof(float)))) return SKIT_ENOMEM;
    } else {
        const skit_circulant_shape shape = {.rows = s->r, .cols = s->r, .channels = d, .spectra = d,
                                            .what = "SKI-TNO float32 plan", .planner = p->opt.planner};
        SKIT_TRY(skit_circulantf_create(&f->engine, &shape));
    }
    round_to_float(f->weights, s->W->weights, n * width);
    SKIT_TRY(weights_norm1(s->W, &f->w_norm1));
    /* the float weights are the plan's now; the float64 ones come back
     * only for tno_ski_dense, which rebuilds them */
    skit_free(s->W->weights);
    skit_free(s->W->points);
    s->W->weights = s->W->points = NULL;
    return SKIT_OK;
}

size_t tno_ski_workspace_f32(const skit_tno_plan *p, size_t floats)
{
    const tno_ski *s = p->op;
    return SKIT_MAX((floats + 1) / 2, p->d * (2 * s->r - 1));
}

void tno_ski_destroy_f32(tno_ski_f32 *f)
{
    skit_free(f->weights);
    skit_free(f->taps);
    skit_free(f->taps_t);
    skit_free(f->a_coeffs);
    skit_free(f->a_coeffs_t);
    skit_circulantf_destroy(f->engine);
}

/* Each channel's ||taps_c||_1 + ||W||_1 ||a_c||_1 (a_c: A's coefficients,
 * float64 during update, the float ones after: a or af) */
static double channel_magnitude(const tno_ski *s, size_t d, size_t c, const double *a, const float *af)
{
    const size_t per = 2 * s->r - 1, m = s->m;
    const double *taps = s->params + d * 2 * s->K + c * m;
    double sa = 0, st = 0;
    for (size_t q = 0; q < per; q++) sa += fabs(a ? a[c * per + q] : (double)af[c * per + q]);
    for (size_t k = 0; k < m; k++) st += fabs(taps[k]);
    return st + s->f32.w_norm1 * sa;
}

/* The float data from A's float64 coefficients a (update_common's, in
 * the workspace) and the taps. Checked first: each channel's
 * ||taps_c||_1 + ||W||_1 ||a_c||_1 bounds its operator's entries' sums,
 * which must be finite in float with room 4 L^2 for A's transforms (L =
 * 2r - 1 or the FFT length); else SKIT_ENONFINITE with the float data
 * unchanged. work: the workspace, free once a is rounded. */
int tno_ski_update_f32(skit_tno_plan *p, const double *a, float *work)
{
    tno_ski *s = p->op;
    tno_ski_f32 *f = &s->f32;
    const size_t d = p->d, m = s->m, per = 2 * s->r - 1;
    const double L = (double)(f->engine ? skit_circulantf_length(f->engine) : per);
    const double limit = FLT_MAX / (4.0 * L * L);
    for (size_t c = 0; c < d; c++) {
        double magnitude = channel_magnitude(s, d, c, a, NULL);
        if (!(magnitude <= limit))
            return SKIT_ERROR(SKIT_ENONFINITE, "SKI-TNO float32: channel %zu's ||taps||_1 + ||W||_1 ||a||_1 "
                                               "= %g exceeds %g (float's range with room for the FFTs)",
                              c, magnitude, limit);
    }
    const double *taps = s->params + d * 2 * s->K;
    round_to_float(f->taps, taps, d * m);
    for (size_t c = 0; c < d; c++)
        for (size_t k = 0; k < m; k++) f->taps_t[k * d + c] = (float)taps[c * m + k];
    round_to_float(f->a_coeffs, a, d * per);
    if (f->a_coeffs_t)
        for (size_t c = 0; c < d; c++)
            for (size_t q = 0; q < per; q++) f->a_coeffs_t[q * d + c] = f->a_coeffs[c * per + q];
    if (f->engine) skit_circulantf_set_toeplitz(f->engine, f->a_coeffs, SKIT_BIDIRECTIONAL, work);
    return SKIT_OK;
}

int tno_ski_f32_error_scale(const skit_tno_plan *p, double *scale, size_t *fft_length)
{
    const tno_ski *s = p->op;
    for (size_t c = 0; c < p->d; c++) scale[c] = channel_magnitude(s, p->d, c, NULL, s->f32.a_coeffs);
    if (fft_length) *fft_length = s->f32.engine ? skit_circulantf_length(s->f32.engine) : 0;
    return SKIT_OK;
}

static size_t bytes_f32(const skit_tno_plan *p)
{
    const tno_ski *s = p->op;
    const size_t per = 2 * s->r - 1;
    if (!s->f32.weights) return 0;
    size_t floats = p->n * s->W->width + 2 * (s->m ? s->m : 1) * p->d + per * p->d;
    if (s->f32.a_coeffs_t) floats += per * p->d;
    return floats * sizeof(float) + skit_circulantf_bytes(s->f32.engine);
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
    skit_interp_weights *W = NULL; /* float32 plans keep only float weights: W made again */
    if (status == SKIT_OK && !s->W->weights) status = skit_interp_weights_create(&W, n, NULL, r, &s->W->options);
    if (status == SKIT_OK) {
        tno_ski_compute_a(p, s->params, a);
        status = skit_interp_weights_dense(W ? W : s->W, Wd, n);
    }
    skit_interp_weights_destroy(W);
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

/* the workspace in doubles (a float32 plan's floats rounded up) */
static size_t workspace_doubles(const skit_tno_plan *p)
{
    if (p->opt.precision == SKIT_PRECISION_F32) return tno_ski_workspace_f32(p, tno_ski_bidirectional_workspace_f32(p));
    return tno_ski_bidirectional_workspace(p);
}

static int create(skit_tno_plan *p, const double *params)
{
    SKIT_TRY(tno_ski_create_common(p, params));
    tno_ski *s = p->op;
    if (p->opt.precision == SKIT_PRECISION_F32) return SKIT_OK; /* A's float engine: create_f32 */
    return skit_toeplitz_plan_create(&s->toeplitz, s->r, s->r, p->d,
                                     &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                              .causality = SKIT_BIDIRECTIONAL,
                                                              .planner = p->opt.planner},
                                     s->a_coeffs);
}

static int update(skit_tno_plan *p, double *work)
{
    tno_ski *s = p->op;
    if (p->opt.precision == SKIT_PRECISION_F32) {
        SKIT_TRY(tno_ski_update_common(p, work));
        return tno_ski_update_f32(p, work, (float *)work);
    }
    SKIT_TRY(tno_ski_update_common(p, s->a_coeffs));
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
    .execute = tno_ski_bidirectional_execute,
    .create_f32 = tno_ski_create_f32,
    .execute_f32 = tno_ski_bidirectional_execute_f32,
    .dense = tno_ski_dense,
    .bytes = tno_ski_bytes,
    .describe = tno_ski_describe,
    .backward = &tno_ski_backward,
};
