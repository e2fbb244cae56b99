/* tno_fft.c — TNO (TNN §3): the RPE MLP at the raw integer lags times the
 * decay lambda^|t|, applied per channel as a Toeplitz product on the
 * circulant engine.
 *
 * The engine's N is the FFTW-friendly length >= 2n-1 of the Toeplitz
 * plans; lag t sits at circulant column t mod N, so the RPE is evaluated
 * straight into that order (columns 0..n-1 and N-n+1..N-1; the others
 * stay 0). Three ways to the spectra:
 *  - pushdown: the spectra of F's h+1 rows (basis) combined by [W b] in
 *    one GEMM, h+1 FFTs instead of d (tno_pushdown says when);
 *  - kernels: the RPE's outputs by the sweep straight into zero-padded
 *    kernels in circulant order, each FFT'd in place;
 *  - coeffs: the output layer's GEMM (or the sweep) into d x (2n-1)
 *    coefficients, each embedded and transformed (also what device plans
 *    upload). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mlp/batch.h"
#include "tno/tno_internal.h"

/* TNO's circulant length: the Toeplitz plans' FFTW-friendly length >= 2n-1 */
static size_t tno_length(size_t n)
{
    size_t L = 0;
    skit_fft_good_length(2 * n - 1, &L); /* n <= 2^30: always fits */
    return L;
}

static size_t kernels_ld(const skit_tno_plan *p)
{
    return tno_round8(tno_length(p->n));
}

/* Channel c's coefficients by the sweep, to out + c*ld: lags
 * -(n-1)..-1 (columns N-n+1..) to out[lo[0]..] and 0..n-1 (columns 0..)
 * to out[lo[1]..] (skit's layout: lo = 0, n-1; circulant order: N-n+1,
 * 0). Causal plans write lags 0..n-1 only. */
static int coeffs_by_sweep(const skit_tno_plan *p, double *out, size_t ld, const size_t lo[2])
{
    tno_spectral *s = p->op;
    const size_t n = p->n, N = tno_length(n);
    const int bi = p->opt.causality == SKIT_BIDIRECTIONAL && n > 1;
    const size_t start[2] = {N - (n - 1), 0}, len[2] = {bi ? n - 1 : 0, n};
    return tno_rpe_sweep(&s->rpe, 2, start, len, out, ld, lo, p->d, 0, NULL);
}

/* d x (2n-1) coefficients (skit's layout) from the current parameters:
 * by the sweep, or by the output layer on the cached features */
static int rpe_coeffs(const skit_tno_plan *p, double *coeffs)
{
    if (p->opt.precision == SKIT_PRECISION_F32) return tno_spectral_coeffs(p, coeffs);
    const tno_spectral *s = p->op;
    const tno_rpe *r = &s->rpe;
    const size_t n = p->n, d = p->d, per = 2 * n - 1, h = r->width;
    if (tno_rpe_sweeps(r)) {
        const size_t lo[2] = {0, n - 1};
        if (p->opt.causality == SKIT_CAUSAL || n == 1)
            for (size_t c = 0; c < d; c++) memset(coeffs + c * per, 0, (n - 1) * sizeof(double));
        return coeffs_by_sweep(p, coeffs, per, lo);
    }
    /* lags 0..n-1 from columns 0..n-1, lags -(n-1)..-1 from N-n+1..N-1 */
    tno_gemm_cols(r, d, n, h + 1, r->wb, h + 1, r->F, r->ld, coeffs + (n - 1), per);
    if (p->opt.causality == SKIT_BIDIRECTIONAL && n > 1)
        tno_gemm_cols(r, d, n - 1, h + 1, r->wb, h + 1, r->F + (tno_length(n) - (n - 1)), r->ld, coeffs, per);
    else
        for (size_t c = 0; c < d; c++) memset(coeffs + c * per, 0, (n - 1) * sizeof(double));
    return SKIT_OK;
}

/* Float32 plans, per channel (kernels_f) with a ReLU RPE: the outputs by
 * the float sweep straight into the kernels in circulant order, which the
 * float engine transforms. Every spectrum value is at most sqrt(N)
 * ||k_c||_2, and the product and its inverse transform grow it by up to
 * 4 N^2 more: each kernel is checked for that room in float. */
static int update_f32_by_sweep(skit_tno_plan *p, tno_rpe *r, float *work)
{
    tno_spectral *s = p->op;
    const size_t n = p->n, L = s->length;
    const int bi = p->opt.causality == SKIT_BIDIRECTIONAL && n > 1;
    const size_t start[2] = {L - (n - 1), 0}, len[2] = {bi ? n - 1 : 0, n};
    SKIT_TRY(tno_rpe_sweep_f32(r, 2, start, len, s->kernels_f, s->kernels_f_ld, start, p->d, 0, NULL));
    const double room = 4.0 * (double)L * (double)L * sqrt((double)L);
    SKIT_TRY(tno_rpe_check_rows(r, p->d, FLT_MAX / room, "RPE coefficients"));
    skit_circulantf_set_kernels(s->engine_f, s->kernels_f, s->kernels_f_ld, work);
    return SKIT_OK;
}

/* Float32 plans otherwise: the features by the float sweep (or the
 * layers in double, rounded), then [W b] applied by sgemm either to their
 * h+1 spectra (the pushdown, transformed by the float engine) straight
 * into the float spectra, or, causal at d <= 2(h+1) (kernels_f), to the n
 * causal lags into per-channel kernels the float engine transforms: half
 * the sgemm, as tno_pushdown weighs it in float64. */
static int update_f32(skit_tno_plan *p, tno_rpe *r, float *work)
{
    tno_spectral *s = p->op;
    const size_t h = r->width, L = s->length, ls = skit_circulantf_spectra_ld(s->engine_f);
    if (s->kernels_f && tno_rpe_sweeps(r)) return update_f32_by_sweep(p, r, work);
    SKIT_TRY(tno_rpe_features(r));
    tno_rpe_fill_wb(r);
    SKIT_TRY(tno_rpe_check_f32(r, (double)L, "RPE kernel spectra"));
    if (s->kernels_f) {
        tno_sgemm_rows(r, p->d, p->n, h + 1, r->wbf, h + 1, r->Ff, r->ldf, s->kernels_f, s->kernels_f_ld);
        skit_circulantf_set_kernels(s->engine_f, s->kernels_f, s->kernels_f_ld, work);
        return SKIT_OK;
    }
    skit_circulantf_basis_from_rows(s->engine_f, r->Ff, r->ldf, work);
    tno_sgemm_rows(r, p->d, ls, h + 1, r->wbf, h + 1, skit_circulantf_basis(s->engine_f), ls,
                   skit_circulantf_spectra(s->engine_f), ls);
    return SKIT_OK;
}

static int update(skit_tno_plan *p, double *work)
{
    tno_spectral *s = p->op;
    tno_rpe *r = &s->rpe;
    const size_t h = r->width, d = p->d, L = tno_length(p->n);
    if (s->engine_f) return update_f32(p, r, (float *)work);
    if (s->kernels) { /* per channel, the RPE by the sweep, in circulant order */
        const size_t ld = kernels_ld(p), lo[2] = {L - (p->n - 1), 0};
        SKIT_TRY(coeffs_by_sweep(p, s->kernels, ld, lo));
        /* every spectrum value is at most sum |k| <= sqrt(N) |k|_2: finite if that is */
        SKIT_TRY(tno_rpe_check_rows(r, d, DBL_MAX / sqrt((double)L), "RPE coefficients"));
        skit_circulant_set_kernels(s->engine, s->kernels, ld, work);
        return SKIT_OK;
    }
    if (s->coeffs) { /* per channel in skit's layout */
        if (!tno_rpe_sweeps(r)) {
            SKIT_TRY(tno_rpe_features(r));
            tno_rpe_fill_wb(r);
        }
        SKIT_TRY(rpe_coeffs(p, s->coeffs));
        SKIT_TRY(tno_check_coeffs(s->coeffs, d, 2 * p->n - 1, "RPE coefficients"));
        if (s->engine) skit_circulant_set_toeplitz(s->engine, s->coeffs, p->opt.causality, work);
        return SKIT_OK;
    }
    /* pushdown */
    SKIT_TRY(tno_rpe_features(r));
    tno_rpe_fill_wb(r);
    const size_t ls = skit_circulant_spectra_ld(s->engine);
    const double *basis = skit_circulant_basis(s->engine);
    skit_circulant_basis_from_rows(s->engine, r->F, r->ld, work);
    SKIT_TRY(tno_rpe_check_bound(r, d, (double)L, r->wb, h + 1, d, h + 1, basis, ls, ls, "RPE kernel spectra"));
    tno_gemm_rows(r, d, ls, h + 1, r->wb, h + 1, basis, ls, skit_circulant_spectra(s->engine), ls);
    return SKIT_OK;
}

/* Pushdown pays when the spectra of the h+1 rows of F are fewer FFTs than
 * the d channels'. Bidirectional, the GEMMs are the same size either way;
 * causal, the coefficients have n lags but the spectra still N/2+1
 * complex values, so the pushdown's GEMM is twice the output layer's: it
 * pays from d > 2 (h+1). With the RPE by the sweep the per-channel output
 * layer costs a few multiply-adds an output, and the trade is d FFTs
 * against h+1 FFTs and the spectra GEMM: also d > 2 (h+1). Device plans
 * upload coefficients, so they keep the per-channel path. */
static int tno_pushdown(const skit_tno_plan *p, const tno_rpe *r)
{
    const size_t h = p->opt.rpe_width;
    if (p->opt.device != SKIT_DEVICE_CPU || p->opt.precision == SKIT_PRECISION_F32) return 0;
    return p->opt.causality == SKIT_CAUSAL || tno_rpe_sweeps(r) ? p->d > 2 * (h + 1) : p->d > h + 1;
}

/* raw integer lags, as the TNN code feeds its RPE, in circulant order */
static void set_lags(const skit_tno_plan *p, tno_rpe *r, size_t L)
{
    const size_t n = p->n;
    r->nseg = p->opt.causality == SKIT_CAUSAL || n == 1 ? 1 : 2;
    r->start[0] = 0;
    r->len[0] = n;
    r->start[1] = L - (n - 1);
    r->len[1] = n - 1;
    r->count = p->opt.causality == SKIT_CAUSAL ? n : 2 * n - 1;
    for (int sg = 0; sg < r->nseg; sg++)
        for (size_t k = 0; k < r->len[sg]; k++) {
            size_t col = r->start[sg] + k;
            double lag = sg == 0 ? (double)k : -(double)(n - 1) + (double)k;
            r->in[col] = lag;
            r->scale[col] = pow(p->opt.decay, fabs(lag));
        }
    tno_rpe_fill_scale_row(r);
}

void tno_fft_set_decay(skit_tno_plan *p)
{
    tno_spectral *s = p->op;
    set_lags(p, &s->rpe, tno_length(p->n));
}

static int create(skit_tno_plan *p, const double *params)
{
    const size_t n = p->n, d = p->d, h = p->opt.rpe_width, L = tno_length(n);
    tno_spectral *s = skit_calloc(1, sizeof *s);
    if (!s) return SKIT_ENOMEM;
    p->op = s;
    s->length = L;
    SKIT_TRY(tno_rpe_create(&s->rpe, p, params, L, d));
    set_lags(p, &s->rpe, L);
    const int pushdown = tno_pushdown(p, &s->rpe);
    /* on the device the product runs on the GPU's plan (device.c); a
     * float32 plan's engine is float (create_f32) */
    if (p->opt.device == SKIT_DEVICE_CPU && p->opt.precision != SKIT_PRECISION_F32) {
        const skit_circulant_shape shape = {.rows = n, .cols = n, .channels = d, .spectra = d, .length = L,
                                            .basis_rows = pushdown ? h + 1 : 0,
                                            .rows_layout = p->opt.layout == SKIT_TNO_ROWS,
                                            .what = "token-mixing operator plan",
                                            .planner = p->opt.planner};
        SKIT_TRY(skit_circulant_create(&s->engine, &shape));
    }
    if (p->opt.precision == SKIT_PRECISION_F32) return SKIT_OK; /* update_f32: no kernels or coefficients */
    if (!pushdown && s->engine && tno_rpe_sweeps(&s->rpe)) {
        s->kernels = skit_calloc(d, kernels_ld(p) * sizeof(double)); /* the zeros stay */
        if (!s->kernels) return SKIT_ENOMEM;
    } else if (!pushdown) {
        s->coeffs = skit_calloc(d, (2 * n - 1) * sizeof(double));
        if (!s->coeffs) return SKIT_ENOMEM;
    }
    return SKIT_OK;
}

static void destroy(skit_tno_plan *p)
{
    tno_spectral *s = p->op;
    if (!s) return;
    tno_rpe_destroy(&s->rpe);
    skit_circulant_destroy(s->engine);
    skit_circulantf_destroy(s->engine_f);
    skit_free(s->coeffs);
    skit_free(s->kernels);
    skit_free(s->kernels_f);
    skit_free(s);
}

static int estimate(const skit_tno_plan *p, size_t *doubles)
{
    const size_t n = p->n, d = p->d, h = p->opt.rpe_width, L = tno_length(n);
    int overflow = 0;
    tno_rpe_estimate(p, L, d, doubles, &overflow);
    size_t terms[3][2] = {{L / 2 + 1, 2 * (d + h + 1)},         /* spectra, pushdown basis */
                          {(size_t)p->threads, 9 * L + 32},      /* FFT buffers */
                          {L + 8, d}};                           /* coefficients or kernels */
    tno_add_terms(terms, 3, doubles, &overflow);
    return overflow ? SKIT_EOVERFLOW : SKIT_OK;
}

static size_t bytes(const skit_tno_plan *p)
{
    const tno_spectral *s = p->op;
    size_t total = sizeof *s + tno_rpe_bytes(&s->rpe) + skit_circulant_bytes(s->engine) + skit_circulantf_bytes(s->engine_f);
    if (s->coeffs) total += p->d * (2 * p->n - 1) * sizeof(double);
    if (s->kernels) total += p->d * kernels_ld(p) * sizeof(double);
    if (s->kernels_f) total += p->d * s->kernels_f_ld * sizeof(float);
    return total;
}

static void describe(const skit_tno_plan *p, char *text, size_t size)
{
    const tno_spectral *s = p->op;
    const skit_tno_options *o = &p->opt;
    /* where the output layer is applied (to the transformed features, or per
     * channel) and how the RPE is evaluated (by the sweep along its input, or
     * layer by layer) */
    snprintf(text, size, " rpe=%zux%zu %s %s decay=%g fft=%zu spectra=%s eval=%s", o->rpe_width,
             o->rpe_layers, tno_activation_name(o->activation), tno_norm_name(o->norm), o->decay,
             p->dev ? tno_device_fft_length(p) : s->length,
             s->coeffs || s->kernels || s->kernels_f ? "channels" : "features", tno_rpe_sweeps(&s->rpe) ? "sweep" : "layers");
}

/* Per channel (kernels_f) or by the features' spectra (update_f32).
 * With a ReLU RPE the outputs come by the float sweep at (layers + 3)
 * multiply-adds an output, so per channel costs the d kernel transforms
 * against the features' h+1 and the spectra's sgemm (d x (h+1) x N):
 * measured (one thread, AVX-512 EPYC, n = 512..32768), per channel is
 * faster at d = 64 and 128 and slower at d = 512, as the float64 rule's
 * d <= 2 (h+1) puts it. Without the sweep, the output layer is a
 * GEMM either way: per channel causal at d <= 2 (h+1), as float64. */
static int per_channel_f32(const skit_tno_plan *p)
{
    const size_t h = p->opt.rpe_width;
    const tno_spectral *s = p->op;
    return p->d <= 2 * (h + 1) && (tno_rpe_sweeps(&s->rpe) || p->opt.causality == SKIT_CAUSAL);
}

static int create_f32(skit_tno_plan *p)
{
    tno_spectral *s = p->op;
    const size_t h = p->opt.rpe_width;
    const int per_channel = per_channel_f32(p);
    SKIT_TRY(tno_spectral_create_f32(p, per_channel ? 0 : h + 1));
    if (!per_channel) return SKIT_OK;
    if (tno_rpe_sweeps(&s->rpe)) SKIT_TRY(tno_rpe_keep_outputs_f32(&s->rpe));
    s->kernels_f_ld = (s->length + 15) / 16 * 16; /* rows 64-byte aligned, as FFTW planned */
    s->kernels_f = skit_calloc(p->d, s->kernels_f_ld * sizeof(float));
    return s->kernels_f ? SKIT_OK : SKIT_ENOMEM;
}

const tno_ops tno_fft_ops = {
    .estimate = estimate,
    .create = create,
    .destroy = destroy,
    .get_parameters = tno_spectral_get_parameters,
    .put_parameters = tno_spectral_put_parameters,
    .update = update,
    .eval_rpe = tno_spectral_eval_rpe,
    .workspace_doubles = tno_spectral_workspace,
    .execute = tno_spectral_execute,
    .create_f32 = create_f32,
    .execute_f32 = tno_spectral_execute_f32,
    .coeffs = rpe_coeffs,
    .bytes = bytes,
    .describe = describe,
    .backward = &tno_spectral_backward,
};
