/* gradcheck_f32.c — precision f32 of gradcheck.h: the float32 backward of
 * an operator against the float64 backward of the same operator (same
 * parameters, the same inputs rounded to float), each group held to a
 * bound derived from the float32 error analyses of skit/toeplitz.h and
 * skit/tno.h (eps32 = 2^-24):
 *   a transposed product  dx_c:  G eps32 S_c ||dy_c||_2, with G = 20
 *       log2(2N) and S_c = ||t_c||_1 (Toeplitz) or G = skit_tno_plan_f32_growth
 *       and S_c = ||C_c||_2 + M_c (TNO, FD-TNO: skit_tno_plan_f32_error_scale);
 *   the kernels' gradient dk_c by float cross-correlation:
 *       (30 log2(2N) + batch) eps32 sum_b (||x_bc||_1 ||dy_bc||_2 +
 *       ||x_bc||_2 ||dy_bc||_1);
 *   SKI-TNO (ski-tno, ski-causal): dx as the forward's SKI bound with
 *       ||dy_c||_2, the knots through A's gradient (its own bound, times
 *       sqrt(2r - 1) for the knots' map) and the taps (sums in double),
 *       as skit/tno.h derives them;
 *   an RPE's parameters (and TNO's lambda), which the float64 code computes
 *       from the widened dk by a linear map B: ||B_g||_F ||dk32 - dk64||_2,
 *       ||B_g||_F (the group's rows of B) measured column by column: the
 *       float64 backward of a one-sequence plan with x and dy unit vectors
 *       whose correlation is a single lag of a single channel.
 * A 2-norm bound bounds every entry, so the group's bound on max |g32 -
 * g64| is the largest over its channels (and sequences).
 * Exact attention and MRA-2: the entry-wise bounds of skit/attention.h
 * for q, k and v, their largest entry per group (MRA-2's dq and dk
 * majorised by row sums of 1, see at_bounds_mra; the unit tests check
 * both bounds entry by entry). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradcheck.h"

#define EPS32 0x1p-24

/* ---- the inputs and the groups' verdicts ------------------------------------ */

/* count normal values rounded to float: f (float) and w (the same, double) */
static void random_f32(skit_rng *rng, size_t count, double scale, float *f, double *w)
{
    skit_rng_fill_normal(rng, w, count);
    for (size_t i = 0; i < count; i++) {
        f[i] = (float)(w[i] * scale);
        w[i] = (double)f[i];
    }
}

static void widen(const float *f, size_t count, double *w)
{
    for (size_t i = 0; i < count; i++) w[i] = (double)f[i];
}

static void poison_f32(float *f, size_t count)
{
    for (size_t i = 0; i < count; i++) f[i] = NAN;
}

/* The rounding float32 is expected to make, relative to a row's size:
 * Higham and Mary's probabilistic analysis (rounding errors independent,
 * of mean zero) grows a sum's error as lambda sqrt(L) eps32 rather than L
 * eps32; L here bounds the longest sums of these backwards (over the 2n -
 * 1 lags, channels, sequences, the RPE's width and the FFT's stages),
 * lambda = 16 (under the model, a chance of about exp(-lambda^2 / 2) of
 * exceeding it). Not a bound: measured errors stayed 3 to 30 times under
 * it from n = 4 to 2048, where the derived worst-case bounds are hundreds
 * to 10^5 times looser; a row scaled by 1 + 2e-5 shows at n = 64. */
double gradcheck_rounding_level(const gradcheck_options *o)
{
    double L = (double)(2 * o->n + o->d + o->batch + o->rpe_width) + log2(2.0 * (double)o->n);
    return 16.0 * sqrt(L) * EPS32;
}

/* A group whose entries may cancel far below the sums that make them
 * passes size (NULL otherwise): size[i] the magnitude of entry i's sums,
 * cancellation aside; an entry is then measured against at least
 * size[i] / CANCEL_FLOOR (see mx_report). */
#define CANCEL_FLOOR 128.0

static double size_floor(const double *size, size_t i) { return size ? size[i] / CANCEL_FLOOR : 0.0; }

/* The worst row's error, max |g32 - g64| over the row divided by the
 * largest of the row's max |g64| (or size floor), the group's rms |g64|
 * and an eighth of the group's size (rounding in a product spreads over
 * its outputs, and a row may be a sum that cancels, so rows far below the
 * group's size are compared with that size): an error confined to one row
 * is measured against that row, not against the group's largest entry. */
static double row_error(const double *g32, const double *g64, size_t count, const gradcheck_layout *L,
                        const double *size, double group)
{
    double ss = 0, worst = 0;
    for (size_t i = 0; i < count; i++) ss += g64[i] * g64[i];
    const double rms = fmax(sqrt(ss / (double)(count ? count : 1)), group / 8);
    for (size_t r = 0; r < L->rows; r++) {
        double err = 0, top = rms;
        for (size_t c = 0; c < count / L->rows; c++) {
            size_t i = r * L->row_stride + c * L->col_stride;
            double e = fabs(g32[i] - g64[i]);
            err = isnan(e) || e > err ? e : err;
            top = fmax(top, fmax(fabs(g64[i]), size_floor(size, i)));
        }
        double rel = isnan(err) ? INFINITY : err / (top > 0 ? top : 1.0);
        worst = fmax(worst, rel);
    }
    return worst;
}

/* The group's row: error row_error's (at least max |g32 - g64| over the
 * group's size, max |g64| or the largest size floor), tolerance the
 * smaller of the derived bound over that size and the rounding level (a
 * single value, such as lambda, a sum that may cancel, the bound alone).
 * An injected error (the checker's tests) goes into g32 first. */
static void add_result_at(gradcheck_result *r, const gradcheck_options *o, const char *name, double *g32,
                          const double *g64, size_t count, gradcheck_layout layout, double bound, double level,
                          const double *size)
{
    if (r->ngroups == GRADCHECK_MAX_GROUPS) return;
    int injected = gradcheck_inject_apply(&o->inject, name, g32, count, &layout);
    if (injected) r->injected = injected;
    gradcheck_group *g = &r->groups[r->ngroups++];
    double gmax = 0, err = 0;
    for (size_t i = 0; i < count; i++) {
        double e = fabs(g32[i] - g64[i]);
        err = isnan(e) || e > err ? e : err;
        gmax = fmax(gmax, fabs(g64[i]));
    }
    double group = gmax;
    for (size_t i = 0; i < count; i++) group = fmax(group, size_floor(size, i));
    double denom = group > 0 ? group : 1.0;
    snprintf(g->name, sizeof g->name, "%s", name);
    g->count = g->checked = count;
    g->max_grad = gmax;
    g->error = isnan(err) ? INFINITY : fmax(err / denom, row_error(g32, g64, count, &layout, size, group));
    g->tolerance = count > 1 ? fmin(bound / denom, level) : bound / denom;
    r->worst = isnan(g->error) || g->error > r->worst ? g->error : r->worst;
}

/* at the rounding level of gradcheck_rounding_level */
static void add_result(gradcheck_result *r, const gradcheck_options *o, const char *name, double *g32,
                       const double *g64, size_t count, gradcheck_layout layout, double bound)
{
    add_result_at(r, o, name, g32, g64, count, layout, bound, gradcheck_rounding_level(o), NULL);
}

double gradcheck_norm1(const double *v, size_t count)
{
    double s = 0;
    for (size_t i = 0; i < count; i++) s += fabs(v[i]);
    return s;
}

double gradcheck_norm2(const double *v, size_t count)
{
    double s = 0;
    for (size_t i = 0; i < count; i++) s += v[i] * v[i];
    return sqrt(s);
}

/* the correlation's bound for one (sequence, channel) pair, before eps32
 * and the growth factor */
static double correlation_norms(const double *x, const double *dy, size_t n)
{
    return gradcheck_norm1(x, n) * gradcheck_norm2(dy, n) + gradcheck_norm2(x, n) * gradcheck_norm1(dy, n);
}

static double *alloc_doubles(size_t count) { return skit_malloc(count ? count : 1, sizeof(double)); }
static float *alloc_floats(size_t count) { return skit_malloc(count ? count : 1, sizeof(float)); }

/* ---- Toeplitz matvec, per channel --------------------------------------------- */

typedef struct tz_data {
    float *xf, *dyf, *dxf, *dtf;
    double *x, *dy, *t, *dx64, *dt64, *dx32, *dt32;
} tz_data;

static void tz_free(tz_data *z)
{
    skit_free(z->xf), skit_free(z->dyf), skit_free(z->dxf), skit_free(z->dtf);
    skit_free(z->x), skit_free(z->dy), skit_free(z->t), skit_free(z->dx64), skit_free(z->dt64);
    skit_free(z->dx32), skit_free(z->dt32);
}

static int tz_alloc(tz_data *z, size_t nd, size_t nt)
{
    memset(z, 0, sizeof *z);
    z->xf = alloc_floats(nd), z->dyf = alloc_floats(nd), z->dxf = alloc_floats(nd), z->dtf = alloc_floats(nt);
    z->x = alloc_doubles(nd), z->dy = alloc_doubles(nd), z->t = alloc_doubles(nt);
    z->dx64 = alloc_doubles(nd), z->dt64 = alloc_doubles(nt), z->dx32 = alloc_doubles(nd);
    z->dt32 = alloc_doubles(nt);
    return z->xf && z->dyf && z->dxf && z->dtf && z->x && z->dy && z->t && z->dx64 && z->dt64 && z->dx32 && z->dt32
               ? SKIT_OK
               : SKIT_ENOMEM;
}

/* the bounds of both groups, per channel, the largest kept */
static void tz_bounds(const gradcheck_options *o, const tz_data *z, size_t N, double *bx, double *bt)
{
    const size_t n = o->n, per = 2 * n - 1, first = o->causal ? n - 1 : 0;
    const double lg = log2(2.0 * (double)N);
    *bx = *bt = 0;
    for (size_t c = 0; c < o->d; c++) {
        const double *x = z->x + c * n, *dy = z->dy + c * n;
        double t1 = gradcheck_norm1(z->t + c * per + first, per - first);
        *bx = fmax(*bx, 20.0 * lg * EPS32 * t1 * gradcheck_norm2(dy, n));
        *bt = fmax(*bt, (30.0 * lg + 1.0) * EPS32 * correlation_norms(x, dy, n));
    }
}

static int tz_backwards(const gradcheck_options *o, tz_data *z, size_t *N)
{
    const size_t n = o->n;
    skit_toeplitz_options opt;
    skit_toeplitz_options_default(&opt);
    opt.causality = o->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    skit_toeplitz_plan *p64 = NULL, *p32 = NULL;
    int status = skit_toeplitz_plan_create(&p64, n, n, o->d, &opt, z->t);
    opt.precision = SKIT_PRECISION_F32;
    if (status == SKIT_OK) status = skit_toeplitz_plan_create(&p32, n, n, o->d, &opt, z->t);
    if (status == SKIT_OK) status = skit_toeplitz_plan_backward(p64, z->x, n, z->dy, n, z->dx64, n, z->dt64, NULL);
    if (status == SKIT_OK)
        status = skit_toeplitz_plan_backward_f32(p32, z->xf, n, z->dyf, n, z->dxf, n, z->dtf, NULL);
    *N = skit_toeplitz_plan_fft_length(p32);
    skit_toeplitz_plan_destroy(p64);
    skit_toeplitz_plan_destroy(p32);
    return status;
}

static int check_toeplitz(const gradcheck_options *o, skit_rng *rng, gradcheck_result *r)
{
    const size_t n = o->n, nd = n * o->d, nt = o->d * (2 * n - 1);
    tz_data z;
    int status = tz_alloc(&z, nd, nt);
    if (status == SKIT_OK) {
        float *tf = z.dtf; /* the coefficients rounded, before dtf is poisoned */
        random_f32(rng, nd, 1.0, z.xf, z.x);
        random_f32(rng, nt, 1.0 / sqrt((double)n), tf, z.t);
        random_f32(rng, nd, 1.0, z.dyf, z.dy);
        poison_f32(z.dxf, nd), poison_f32(z.dtf, nt);
        size_t N = 0;
        status = tz_backwards(o, &z, &N);
        if (status == SKIT_OK) {
            double bx, bt;
            tz_bounds(o, &z, N, &bx, &bt);
            widen(z.dxf, nd, z.dx32), widen(z.dtf, nt, z.dt32);
            add_result(r, o, "x", z.dx32, z.dx64, nd, (gradcheck_layout){n, 1, n}, bx);
            add_result(r, o, "coeffs", z.dt32, z.dt64, nt, (gradcheck_layout){2 * n - 1, 1, 2 * n - 1}, bt);
        }
    }
    tz_free(&z);
    return status;
}

/* ---- TNO and FD-TNO ------------------------------------------------------------ */

typedef struct mx_data {
    skit_tno_options opt;
    skit_tno_plan *p64, *p32, *probe;
    size_t total, count;
    float *xf, *dyf, *dxf;
    double *x, *dy, *params, *dx64, *dp64, *dx32, *dp32, *scale, *col, *x1, *dy1;
    double dl64, dl32;
} mx_data;

static void mx_free(mx_data *m)
{
    skit_tno_plan_destroy(m->p64), skit_tno_plan_destroy(m->p32), skit_tno_plan_destroy(m->probe);
    skit_free(m->xf), skit_free(m->dyf), skit_free(m->dxf), skit_free(m->x), skit_free(m->dy);
    skit_free(m->params), skit_free(m->dx64), skit_free(m->dp64), skit_free(m->dx32), skit_free(m->dp32);
    skit_free(m->scale), skit_free(m->col), skit_free(m->x1), skit_free(m->dy1);
}

/* the float64 plan (parameters from the seed), the float32 one and the
 * one-sequence CHANNELS probe with the same parameters */
static int mx_plans(const gradcheck_options *o, mx_data *m)
{
    const size_t n = o->n, d = o->d;
    int status = skit_tno_plan_create(&m->p64, n, d, o->batch, &m->opt, NULL, 0);
    if (status != SKIT_OK) return status;
    m->count = skit_tno_plan_parameter_count(m->p64);
    if (!(m->params = alloc_doubles(m->count))) return SKIT_ENOMEM;
    if ((status = skit_tno_plan_get_parameters(m->p64, m->params, m->count)) != SKIT_OK) return status;
    skit_tno_options o32 = m->opt, o1 = m->opt;
    o32.precision = SKIT_PRECISION_F32;
    o1.layout = SKIT_TNO_CHANNELS;
    status = skit_tno_plan_create(&m->p32, n, d, o->batch, &o32, m->params, m->count);
    if (status == SKIT_OK) status = skit_tno_plan_create(&m->probe, n, d, 1, &o1, m->params, m->count);
    return status;
}

static int mx_alloc(const gradcheck_options *o, mx_data *m)
{
    const size_t total = m->total, nd = o->n * o->d;
    m->xf = alloc_floats(total), m->dyf = alloc_floats(total), m->dxf = alloc_floats(total);
    m->x = alloc_doubles(total), m->dy = alloc_doubles(total), m->dx64 = alloc_doubles(total);
    m->dx32 = alloc_doubles(total), m->dp64 = alloc_doubles(m->count), m->dp32 = alloc_doubles(m->count);
    m->col = alloc_doubles(m->count), m->scale = alloc_doubles(o->d);
    m->x1 = alloc_doubles(nd), m->dy1 = alloc_doubles(nd);
    return m->xf && m->dyf && m->dxf && m->x && m->dy && m->dx64 && m->dx32 && m->dp64 && m->dp32 && m->col &&
                   m->scale && m->x1 && m->dy1
               ? SKIT_OK
               : SKIT_ENOMEM;
}

/* index of token i, channel c of sequence b in the plan's layout */
static size_t mx_index(const gradcheck_options *o, const mx_data *m, size_t b, size_t i, size_t c)
{
    return m->opt.layout == SKIT_TNO_ROWS ? (b * o->n + i) * o->d + c : (b * o->d + c) * o->n + i;
}

/* one (sequence, channel) gathered: v[i] = data at token i */
static void mx_gather(const gradcheck_options *o, const mx_data *m, const double *data, size_t b, size_t c, double *v)
{
    for (size_t i = 0; i < o->n; i++) v[i] = data[mx_index(o, m, b, i, c)];
}

/* the dx bound (largest over sequences and channels) and ||dk32 - dk64||_2's */
static void mx_bounds(const gradcheck_options *o, mx_data *m, size_t N, double *bx, double *bk)
{
    const size_t n = o->n;
    const double lg = log2(2.0 * (double)N), gx = skit_tno_plan_f32_growth(m->p32);
    double *xv = m->x1, *dv = m->dy1, kk = 0;
    *bx = 0;
    for (size_t c = 0; c < o->d; c++) {
        double sum = 0;
        for (size_t b = 0; b < o->batch; b++) {
            mx_gather(o, m, m->x, b, c, xv);
            mx_gather(o, m, m->dy, b, c, dv);
            *bx = fmax(*bx, gx * EPS32 * m->scale[c] * gradcheck_norm2(dv, n));
            sum += correlation_norms(xv, dv, n);
        }
        double bc = (30.0 * lg + (double)o->batch) * EPS32 * sum;
        kk += bc * bc;
    }
    *bk = sqrt(kk);
}

/* the column of B for lag k of channel c: the probe's backward with the
 * unit vectors whose correlation is that one lag (lag >= 0: x = e_0, dy =
 * e_k; lag < 0: x = e_{-k}, dy = e_0); *dl its lambda entry */
static int mx_column(const gradcheck_options *o, mx_data *m, size_t c, long lag, double *dl)
{
    const size_t n = o->n, nd = n * o->d;
    memset(m->x1, 0, nd * sizeof *m->x1);
    memset(m->dy1, 0, nd * sizeof *m->dy1);
    m->x1[c * n + (lag < 0 ? (size_t)-lag : 0)] = 1.0;
    m->dy1[c * n + (lag < 0 ? 0 : (size_t)lag)] = 1.0;
    return skit_tno_plan_backward(m->probe, m->x1, m->dy1, NULL, m->col, dl, NULL);
}

/* sum_b sum_i |x_bic| |dy_b(i+lag)c|: the size of the sums that make the
 * kernels' gradient at (c, lag) (mx_column's lag: dy's index minus x's) */
static double mx_dk_size(const gradcheck_options *o, const mx_data *m, size_t c, long lag)
{
    const long n = (long)o->n;
    double s = 0;
    for (size_t b = 0; b < o->batch; b++)
        for (long i = lag < 0 ? -lag : 0; i < n && i + lag < n; i++)
            s += fabs(m->x[mx_index(o, m, b, (size_t)i, c)]) * fabs(m->dy[mx_index(o, m, b, (size_t)(i + lag), c)]);
    return s;
}

/* per parameter group (whole, then the MLP's layers) and lambda: ||B_g||_F^2;
 * size[i] = sum over lags |B_ik| mx_dk_size(k), the size of the sums that
 * make parameter i's gradient, cancellation aside */
static int mx_frobenius(const gradcheck_options *o, mx_data *m, size_t out, double *ff, double *ff_lambda,
                        double *size)
{
    const size_t groups = 1 + gradcheck_mlp_group_count(o->rpe_layers);
    const long n = (long)o->n, lo = o->causal ? 0 : -(n - 1);
    memset(ff, 0, groups * sizeof *ff);
    memset(size, 0, m->count * sizeof *size);
    *ff_lambda = 0;
    for (size_t c = 0; c < o->d; c++)
        for (long lag = lo; lag < n; lag++) {
            double dl = 0;
            int status = mx_column(o, m, c, lag, &dl);
            if (status != SKIT_OK) return status;
            *ff_lambda += dl * dl;
            const double dk = mx_dk_size(o, m, c, lag);
            for (size_t i = 0; i < m->count; i++) size[i] += fabs(m->col[i]) * dk;
            for (size_t g = 0; g < groups; g++) {
                char name[32];
                size_t first = 0, count = m->count;
                if (g) gradcheck_mlp_group(g - 1, 1, o->rpe_width, o->rpe_layers, out, name, sizeof name, "rpe",
                                           &first, &count);
                for (size_t i = first; i < first + count; i++) ff[g] += m->col[i] * m->col[i];
            }
        }
    return SKIT_OK;
}

static int mx_backwards(mx_data *m)
{
    for (size_t i = 0; i < m->count; i++) m->dp32[i] = NAN;
    poison_f32(m->dxf, m->total);
    m->dl32 = NAN;
    int status = skit_tno_plan_backward(m->p64, m->x, m->dy, m->dx64, m->dp64, &m->dl64, NULL);
    if (status == SKIT_OK) status = skit_tno_plan_backward_f32(m->p32, m->xf, m->dyf, m->dxf, m->dp32, &m->dl32, NULL);
    if (status == SKIT_OK) widen(m->dxf, m->total, m->dx32);
    return status;
}

/* a row per token of a sequence, in the plan's layout */
static gradcheck_layout mx_rows(const gradcheck_options *o, const mx_data *m)
{
    if (m->opt.layout == SKIT_TNO_ROWS) return (gradcheck_layout){o->batch * o->n, o->d, 1};
    return (gradcheck_layout){o->n, 1, o->n}; /* channels: the first sequence's tokens */
}

static int mx_report(const gradcheck_options *o, mx_data *m, skit_tno_kind kind, size_t N, gradcheck_result *r)
{
    const size_t out = kind == SKIT_TNO_FD && !o->causal ? 2 * o->d : o->d;
    double bx, bk, ff[1 + 2 * (64 + 2)], ff_lambda;
    if (o->rpe_layers > 64) return SKIT_EDOM; /* the CLI's range */
    mx_bounds(o, m, N, &bx, &bk);
    double *size = alloc_doubles(m->count);
    if (!size) return SKIT_ENOMEM;
    int status = mx_frobenius(o, m, out, ff, &ff_lambda, size);
    if (status != SKIT_OK) {
        skit_free(size);
        return status;
    }
    /* bidirectional FD takes the kernels' gradient as its N-point spectrum
     * (skit/tno.h): the float error then spreads over all N lags, whose
     * columns of B are as large as the 2n - 1 probed ones (the DFT of a
     * unit lag has unit magnitude everywhere), so ||B||_F over N lags is
     * sqrt(N / (2n - 1)) times the probed one */
    if (kind == SKIT_TNO_FD && !o->causal) bk *= sqrt((double)N / (double)(2 * o->n - 1));
    add_result(r, o, "x", m->dx32, m->dx64, m->total, mx_rows(o, m), bx);
    if (kind == SKIT_TNO_FFT)
        add_result(r, o, "lambda", &m->dl32, &m->dl64, 1, (gradcheck_layout){1, 1, 1}, sqrt(ff_lambda) * bk);
    /* The parameters' gradients are the float64 map B of one float kernel
     * gradient, whose rounding is relative to the sizes of the sums that
     * make it, not to a result that cancels. Each entry is measured against
     * at least its size / CANCEL_FLOOR (size: |B| times the kernels' sums
     * of |x| |dy|). On the sweep of tests/test_backward.c and the CLI's
     * defaults a group's sizes are 5 to 70 times its largest entry, so the
     * floor leaves those entries, and the check's sensitivity to an error
     * in one row (an injected 1e-4 caught as often as before), as they
     * were; entries that cancel 200 to 1200 times below their sizes
     * (causal, n = 7, d = 1: every parameter's gradient below 0.072 while
     * x's reaches 1.09) failed the rounding level in 3 of 100 sweeps
     * without it. Every parameter together normwise (the layers' groups
     * check the rows). */
    add_result_at(r, o, "params", m->dp32, m->dp64, m->count, (gradcheck_layout){1, m->count, 1}, sqrt(ff[0]) * bk,
                  gradcheck_rounding_level(o), size);
    for (size_t g = 0; g < gradcheck_mlp_group_count(o->rpe_layers); g++) {
        char name[32];
        size_t first, count;
        gradcheck_mlp_group(g, 1, o->rpe_width, o->rpe_layers, out, name, sizeof name, "rpe", &first, &count);
        size_t l = g / 2, rows = g % 2 ? count : l == o->rpe_layers + 1 ? out : o->rpe_width;
        add_result_at(r, o, name, m->dp32 + first, m->dp64 + first, count, (gradcheck_layout){rows, count / rows, 1},
                      sqrt(ff[g + 1]) * bk, gradcheck_rounding_level(o), size + first);
    }
    skit_free(size);
    return SKIT_OK;
}

/* ---- SKI-TNO ------------------------------------------------------------------- */

/* The groups' bounds of skit/tno.h for float32 SKI-TNO, the largest over
 * sequences and channels: dx per (sequence, channel); A's gradient da per
 * channel, through the knots' map (2-norm <= sqrt(2r - 1)); the taps'
 * (sums in double) per channel. */
static void ski_bounds(const gradcheck_options *o, mx_data *m, size_t N, double *bx, double *bknots, double *btaps)
{
    const size_t n = o->n, r = m->opt.rank;
    const int causal = m->opt.causality == SKIT_CAUSAL;
    const double h = (double)(n - 1) / (double)(r - 1), omega = h + 2.0, lg = N ? log2(2.0 * (double)N) : 0.0;
    const double batch = (double)o->batch, bn = batch * (double)n + 1.0;
    const double gx = skit_tno_plan_f32_growth(m->p32); /* the forward's: dx's sums are as long (tno.h) */
    const double ga = causal ? 2.0 * h + 6.0 : 30.0 * lg + batch + 2.0 * h + 6.0;
    double *xv = m->x1, *dv = m->dy1;
    *bx = *bknots = *btaps = 0;
    for (size_t c = 0; c < o->d; c++) {
        double corr = 0, ones = 0, twos = 0;
        for (size_t b = 0; b < o->batch; b++) {
            mx_gather(o, m, m->x, b, c, xv);
            mx_gather(o, m, m->dy, b, c, dv);
            *bx = fmax(*bx, gx * EPS32 * m->scale[c] * gradcheck_norm2(dv, n));
            corr += correlation_norms(xv, dv, n);
            ones += gradcheck_norm1(xv, n) * gradcheck_norm1(dv, n);
            twos += gradcheck_norm2(xv, n) * gradcheck_norm2(dv, n);
        }
        double da = ga * EPS32 * sqrt(omega) * corr + (causal ? bn * 0x1p-51 * ones : 0.0);
        *bknots = fmax(*bknots, sqrt(2.0 * (double)r - 1.0) * da);
        *btaps = fmax(*btaps, 2.0 * bn * 0x1p-53 * twos);
    }
}

static void ski_report(const gradcheck_options *o, mx_data *m, size_t N, gradcheck_result *r)
{
    const size_t nk = o->d * 2 * m->opt.knots;
    double bx, bknots, btaps;
    ski_bounds(o, m, N, &bx, &bknots, &btaps);
    const size_t per = 2 * m->opt.knots, taps = (m->count - nk) / o->d;
    add_result(r, o, "x", m->dx32, m->dx64, m->total, mx_rows(o, m), bx);
    add_result(r, o, "params", m->dp32, m->dp64, m->count, (gradcheck_layout){m->count, 1, m->count},
               fmax(bknots, btaps));
    add_result(r, o, "knots", m->dp32, m->dp64, nk, (gradcheck_layout){per, 1, per}, bknots);
    add_result(r, o, "taps", m->dp32 + nk, m->dp64 + nk, m->count - nk, (gradcheck_layout){taps, 1, taps}, btaps);
}

/* TNO, FD-TNO, SKI-TNO (force_causal: causal whatever o says) */
static int check_mixer(const gradcheck_options *o, skit_rng *rng, skit_tno_kind kind, int force_causal,
                       gradcheck_result *r)
{
    mx_data m;
    memset(&m, 0, sizeof m);
    gradcheck_mixer_options(o, kind, &m.opt);
    if (force_causal) m.opt.causality = SKIT_CAUSAL;
    m.total = o->batch * o->n * o->d;
    int status = mx_plans(o, &m);
    if (status == SKIT_OK) status = mx_alloc(o, &m);
    size_t N = 0;
    if (status == SKIT_OK) status = skit_tno_plan_f32_error_scale(m.p32, m.scale, &N);
    if (status == SKIT_OK) {
        random_f32(rng, m.total, 1.0, m.xf, m.x);
        random_f32(rng, m.total, 1.0, m.dyf, m.dy);
        status = mx_backwards(&m);
    }
    if (status == SKIT_OK && kind == SKIT_TNO_SKI) ski_report(o, &m, N, r);
    else if (status == SKIT_OK) status = mx_report(o, &m, kind, N, r);
    mx_free(&m);
    return status;
}

/* ---- exact attention -------------------------------------------------------- */

/* The entry-wise bound of skit/attention.h for the float32 attention
 * backward, its largest entry per group: dV (e_S + g(n+1)) S^T |dY|, dQ
 * and dK 2 |scale| vmax (e_P + g(n+2)) times r_i (S |K|)_ic and
 * (S^T (r o |Q|))_jc, the products with S evaluated by the float64
 * forward (S |K|) and backward (its dV = S^T dY for dY = |dY| or r o |Q|). */
enum { AT_Q, AT_K, AT_V, AT_DY, AT_DQ, AT_DK, AT_DV, AT_DQ32, AT_DK32, AT_DV32, AT_TMP, AT_B, AT_N };
enum { AF_Q, AF_K, AF_V, AF_DY, AF_DQ, AF_DK, AF_DV, AF_N };

typedef struct at_data {
    size_t n, d;
    double scale;
    skit_attention_mask mask;
    double *w[AT_N];
    float *f[AF_N];
    size_t block;            /* MRA-2: its block and refined squares; */
    unsigned char *refined;  /* NULL: exact attention */
    skit_attention_plan *p64, *p32; /* the operator's plans in each precision */
} at_data;

/* the float64 backward of the check's operator: exact attention or MRA-2 */
static int at_backward64(const at_data *a, const double *v, const double *dy, double *dq, double *dk, double *dv)
{
    const size_t n = a->n;
    return skit_attention_plan_backward(a->p64, a->w[AT_Q], n, a->w[AT_K], n, v, n, NULL, a->refined, dy, n, dq, n,
                                        dk, n, dv, n);
}

static double at_max_abs(const double *a, size_t count)
{
    double m = 0;
    for (size_t i = 0; i < count; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/* G = |scale| max_ij sum_c |q_ic k_jc| */
static double at_logit_bound(const at_data *a)
{
    const double *q = a->w[AT_Q], *k = a->w[AT_K];
    double G = 0;
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; j < a->n; j++) {
            double s = 0;
            for (size_t c = 0; c < a->d; c++) s += fabs(q[i + c * a->n] * k[j + c * a->n]);
            G = fmax(G, s);
        }
    return fabs(a->scale) * G;
}

/* max_jc (S^T x)_jc for x = w[AT_TMP] (n x d) */
static int at_max_transposed(const at_data *a, double *out)
{
    const size_t n = a->n, d = a->d;
    double *x = a->w[AT_TMP], *y = a->w[AT_B];
    int status = at_backward64(a, x, x, NULL, NULL, y);
    *out = at_max_abs(y, n * d);
    return status;
}

static double at_row_l1(const at_data *a, size_t i)
{
    double r = 0;
    for (size_t c = 0; c < a->d; c++) r += fabs(a->w[AT_DY][i + c * a->n]);
    return r;
}

/* the three groups' bounds: bq, bk, bv */
static int at_bounds(const at_data *a, double *bq, double *bk, double *bv)
{
    const size_t n = a->n, d = a->d, nd = n * d;
    const double u = EPS32, G = at_logit_bound(a), vmax = at_max_abs(a->w[AT_V], nd);
    const double eS = 2.1 * u * (((double)d + 4) * G + 2) + 2 * u, eP = 2 * eS + ((double)d + 1) * u;
    const double g1 = ((double)n + 1) * u / (1 - ((double)n + 1) * u), g2 = ((double)n + 2) * u / (1 - ((double)n + 2) * u);
    const double fqk = 2 * fabs(a->scale) * vmax * (eP + g2);
    double *t = a->w[AT_TMP], *b = a->w[AT_B], m;
    for (size_t i = 0; i < nd; i++) t[i] = fabs(a->w[AT_DY][i]);
    int status = at_max_transposed(a, &m);
    *bv = (eS + g1) * m;
    for (size_t i = 0; i < nd; i++) t[i] = fabs(a->w[AT_K][i]);
    if (status == SKIT_OK)
        status = skit_attention_exact_masked(n, d, d, a->w[AT_Q], n, a->w[AT_K], n, t, n, a->scale, &a->mask, b, n);
    m = 0;
    for (size_t i = 0; i < n; i++) {
        double r = at_row_l1(a, i);
        for (size_t c = 0; c < d; c++) m = fmax(m, r * b[i + c * n]);
    }
    *bq = fqk * m;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < d; c++) t[i + c * n] = at_row_l1(a, i) * fabs(a->w[AT_Q][i + c * n]);
    if (status == SKIT_OK) status = at_max_transposed(a, &m);
    *bk = fqk * m;
    return status;
}

static int at_backwards(at_data *a)
{
    const size_t n = a->n;
    double **w = a->w;
    float **f = a->f;
    int status = at_backward64(a, w[AT_V], w[AT_DY], w[AT_DQ], w[AT_DK], w[AT_DV]);
    if (status != SKIT_OK) return status;
    return skit_attention_plan_backward_f32(a->p32, f[AF_Q], n, f[AF_K], n, f[AF_V], n, NULL, a->refined, f[AF_DY],
                                            n, f[AF_DQ], n, f[AF_DK], n, f[AF_DV], n);
}

/* the operator's plan in each precision: exact attention, or MRA-2 with
 * the check's block and budget (its backward then takes a->refined) */
static int at_plans(at_data *a, int mra, size_t per_row)
{
    skit_attention_options o;
    skit_attention_options_init(&o, mra ? SKIT_ATTENTION_MRA2 : SKIT_ATTENTION_EXACT);
    o.scale = a->scale;
    o.causal = a->mask.causal;
    if (mra) o.block = a->block, o.blocks_per_row[0] = per_row;
    int status = skit_attention_plan_create(&a->p64, a->n, a->d, a->d, &o);
    o.precision = SKIT_PRECISION_F32;
    return status == SKIT_OK ? skit_attention_plan_create(&a->p32, a->n, a->d, a->d, &o) : status;
}

/* MRA-2's bound (skit/attention.h), its largest entry per group: dV as
 * exact attention's with e_S's MRA form and g(n + 3); dQ <= F 2 max_i r_i
 * max |k| (the rows of Sf + Sc sum to 1); dK <= F (S^T (r o Q*)), Q* =
 * max(|Q|, Qb) entry by entry, S^T by the float64 MRA-2 backward */
static int at_bounds_mra(const at_data *a, double *bq, double *bk, double *bv)
{
    const size_t n = a->n, d = a->d, nd = n * d, b = a->block;
    const double u = EPS32, G = at_logit_bound(a), vmax = at_max_abs(a->w[AT_V], nd), L = log((double)b);
    const double eS = 2.1 * u * (((double)d + 7) * G + 2 * L + 2) + 2 * u, eP = 2 * eS + ((double)d + 2) * u;
    const double g3 = ((double)n + 3) * u / (1 - ((double)n + 3) * u), g4 = ((double)n + 4) * u / (1 - ((double)n + 4) * u);
    const double F = 2 * fabs(a->scale) * vmax * (eP + g4);
    double *t = a->w[AT_TMP], m, rmax = 0;
    for (size_t i = 0; i < nd; i++) t[i] = fabs(a->w[AT_DY][i]);
    int status = at_max_transposed(a, &m);
    *bv = (eS + g3) * m;
    for (size_t i = 0; i < n; i++) rmax = fmax(rmax, at_row_l1(a, i));
    *bq = F * 2 * rmax * at_max_abs(a->w[AT_K], nd);
    for (size_t c = 0; c < d; c++)
        for (size_t x = 0; x < n / b; x++) {
            const double *qc = a->w[AT_Q] + c * n;
            double mean = gradcheck_norm1(qc + x * b, b) / (double)b;
            for (size_t i = x * b; i < (x + 1) * b; i++) t[i + c * n] = at_row_l1(a, i) * fmax(fabs(qc[i]), mean);
        }
    if (status == SKIT_OK) status = at_max_transposed(a, &m);
    *bk = F * m;
    return status;
}

/* d = dv = the check's d; scale 1/sqrt(d) rounded to float (both run it);
 * mra: MRA-2 with gradcheck_mra_shape's block, Algorithm 1's global
 * selection (causal with --causal) on the rounded inputs, held fixed */
static int check_attention(const gradcheck_options *o, skit_rng *rng, int mra, gradcheck_result *r)
{
    const size_t nd = o->n * o->d;
    at_data a = {.n = o->n, .d = o->d, .scale = (double)(float)(1.0 / sqrt((double)o->d)), .mask = {NULL, o->causal}};
    size_t per_row = 0;
    int status = mra ? gradcheck_mra_shape(o->n, &a.block, &per_row) : SKIT_OK;
    if (status == SKIT_OK && mra && !(a.refined = malloc((o->n / a.block) * (o->n / a.block)))) status = SKIT_ENOMEM;
    for (int i = 0; i < AT_N; i++)
        if (!(a.w[i] = alloc_doubles(nd))) status = SKIT_ENOMEM;
    for (int i = 0; i < AF_N; i++)
        if (!(a.f[i] = alloc_floats(nd))) status = SKIT_ENOMEM;
    if (status == SKIT_OK) status = at_plans(&a, mra, per_row);
    if (status == SKIT_OK) {
        for (int i = AF_Q; i <= AF_DY; i++) random_f32(rng, nd, 1.0, a.f[i], a.w[i]);
        for (int i = AF_DQ; i < AF_N; i++) poison_f32(a.f[i], nd);
        if (mra)
            status = skit_mra2_select(o->n, o->d, a.w[AT_Q], o->n, a.w[AT_K], o->n, a.scale, a.block, per_row,
                                      SKIT_MRA_GLOBAL, o->causal, a.refined, NULL);
        if (status == SKIT_OK) status = at_backwards(&a);
    }
    double bq, bk, bv;
    if (status == SKIT_OK) status = (mra ? at_bounds_mra : at_bounds)(&a, &bq, &bk, &bv);
    if (status == SKIT_OK) {
        widen(a.f[AF_DQ], nd, a.w[AT_DQ32]), widen(a.f[AF_DK], nd, a.w[AT_DK32]), widen(a.f[AF_DV], nd, a.w[AT_DV32]);
        const gradcheck_layout rows = {o->n, 1, o->n}; /* n x d, a column per channel */
        /* the softmax's rounding grows with the logits' size G (e_S of skit/attention.h
         * is linear in G; the probabilistic model, as sqrt(G)) */
        const double level = gradcheck_rounding_level(o) * sqrt(fmax(1.0, at_logit_bound(&a)));
        add_result_at(r, o, "q", a.w[AT_DQ32], a.w[AT_DQ], nd, rows, bq, level, NULL);
        add_result_at(r, o, "k", a.w[AT_DK32], a.w[AT_DK], nd, rows, bk, level, NULL);
        add_result_at(r, o, "v", a.w[AT_DV32], a.w[AT_DV], nd, rows, bv, level, NULL);
    }
    for (int i = 0; i < AT_N; i++) skit_free(a.w[i]);
    for (int i = 0; i < AF_N; i++) skit_free(a.f[i]);
    free(a.refined);
    skit_attention_plan_destroy(a.p64);
    skit_attention_plan_destroy(a.p32);
    return status;
}

static int run_op_f32(const char *op, const gradcheck_options *o, skit_rng *rng, gradcheck_result *r)
{
    if (!strcmp(op, "toeplitz")) return check_toeplitz(o, rng, r);
    if (!strcmp(op, "tno")) return check_mixer(o, rng, SKIT_TNO_FFT, 0, r);
    if (!strcmp(op, "fd")) return check_mixer(o, rng, SKIT_TNO_FD, 0, r);
    if (!strcmp(op, "ski-tno")) return check_mixer(o, rng, SKIT_TNO_SKI, 0, r);
    if (!strcmp(op, "ski-causal")) return check_mixer(o, rng, SKIT_TNO_SKI, 1, r);
    if (!strcmp(op, "attention")) return check_attention(o, rng, 0, r);
    if (!strcmp(op, "mra2")) return check_attention(o, rng, 1, r);
    return SKIT_EUNSUPPORTED;
}

int gradcheck_run_f32(const char *op, const gradcheck_options *o, gradcheck_result *r)
{
    memset(r, 0, sizeof *r);
    skit_rng rng;
    skit_rng_seed(&rng, o->seed);
    int status = run_op_f32(op, o, &rng, r);
    /* an injection that named no group, or a row it lacks */
    return status == SKIT_OK && o->inject.kind && r->injected != 1 ? SKIT_EINVAL : status;
}
