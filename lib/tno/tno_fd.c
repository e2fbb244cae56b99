/* tno_fd.c — FD-TNO (ski-to-go-faster Algorithm 2 and its bidirectional
 * form): the RPE evaluated on the rfft grid gives the kernels' frequency
 * response, written straight into the circulant engine's spectra.
 *
 * F holds the features times 1/N and the constant 1/N as row h, so the
 * output layer writes the (split, 1/N-scaled) spectra directly. Causal
 * plans need the Hilbert step, which is linear too: Im K = W times the
 * Hilbert images of F's rows (h transforms; the constant row has none)
 * when d >= 2h (the engine's basis holds them), else one Hilbert step per
 * channel. With a ReLU RPE the outputs may come by the sweep, straight
 * into the spectra without the features' GEMMs. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mlp/batch.h"
#include "tno/tno_internal.h"

/* The FD-TNN code's N: the next power of two >= 2n, unless given. */
static size_t fd_length(const skit_tno_options *o, size_t n)
{
    if (o->fft_length) return o->fft_length;
    size_t N = 1;
    while (N < 2 * n) N *= 2;
    return N;
}

/* The RPE's outputs by the sweep, straight into the spectra: when the
 * sweep applies, the last sweep did not find the masks changing too often,
 * and (causal) the Hilbert step is not below the output layer (then the
 * features are needed anyway). */
static int outputs_by_sweep(const skit_tno_plan *p, const tno_spectral *s)
{
    return tno_rpe_sweeps(&s->rpe) && !s->outputs_by_layers &&
           (p->opt.causality == SKIT_BIDIRECTIONAL || !s->basis_rows);
}

/* Real parts (and, bidirectional, the imaginary parts: outputs d.. to the
 * second half of each spectrum row) by the sweep; a causal plan then runs
 * its Hilbert step per channel. A failing check leaves the spectra
 * half-written: the front then restores the old parameters and updates
 * again. */
static int update_by_sweep(skit_tno_plan *p, tno_spectral *s, double *work)
{
    const size_t d = p->d, half = skit_circulant_frequencies(s->engine);
    const size_t ls = skit_circulant_spectra_ld(s->engine), start = 0, lo = 0;
    double *spec = skit_circulant_spectra(s->engine);
    const double N = (double)skit_circulant_length(s->engine);
    size_t changes = 0;
    SKIT_TRY(tno_rpe_sweep(&s->rpe, 1, &start, &half, spec, ls, &lo, d, half, &changes));
    /* The FD grid spans [0, pi] whatever n is, so its masks change about
     * as often at every n: where runs average under 64 points, the outputs
     * of short runs are scattered writes that cost more than the features'
     * GEMM, and later updates take that path. */
    s->outputs_by_layers = 64 * changes > half;
    /* finite, with room for the FFTs of a causal Hilbert step */
    SKIT_TRY(tno_rpe_check_rows(&s->rpe, d, DBL_MAX / (4.0 * N * N), "FD-TNO frequency responses"));
    if (p->opt.causality == SKIT_BIDIRECTIONAL) {
        for (size_t c = 0; c < d; c++) spec[c * ls + half] = spec[c * ls + half + half - 1] = 0.0;
        return SKIT_OK;
    }
    skit_circulant_hilbert_rows(s->engine, spec, ls, d, spec + half, ls, work);
    return SKIT_OK;
}

/* The float32 form of update_by_sweep (float sweep, float spectra, the
 * Hilbert step on the float engine), for plans that keep the output
 * layer in float (create_f32) */
static int update_f32_by_sweep(skit_tno_plan *p, tno_spectral *s, float *work)
{
    skit_circulantf *e = s->engine_f;
    const size_t d = p->d, half = s->length / 2 + 1, ls = skit_circulantf_spectra_ld(e), start = 0, lo = 0;
    float *spec = skit_circulantf_spectra(e);
    const double N = (double)s->length;
    size_t changes = 0;
    SKIT_TRY(tno_rpe_sweep_f32(&s->rpe, 1, &start, &half, spec, ls, &lo, d, half, &changes));
    s->outputs_by_layers = 64 * changes > half; /* as update_by_sweep */
    SKIT_TRY(tno_rpe_check_rows(&s->rpe, d, FLT_MAX / (4.0 * N * N), "FD-TNO frequency responses"));
    if (p->opt.causality == SKIT_BIDIRECTIONAL) {
        for (size_t c = 0; c < d; c++) spec[c * ls + half] = spec[c * ls + half + half - 1] = 0.0f;
        return SKIT_OK;
    }
    skit_circulantf_hilbert_rows(e, spec, ls, d, spec + half, ls, work);
    return SKIT_OK;
}

/* Float32 plans: the outputs by the float sweep where the plan keeps the
 * float output layer (create_f32) and the sweep pays, else the features
 * by the float sweep (or the layers in double, rounded), the output layer
 * by sgemm straight into the float spectra, and the causal Hilbert step on
 * the float engine, below the output layer when d >= 2h as in float64. */
static int update_f32(skit_tno_plan *p, tno_spectral *s, float *work)
{
    tno_rpe *r = &s->rpe;
    skit_circulantf *e = s->engine_f;
    const size_t h = r->width, d = p->d, half = skit_circulantf_frequencies(e), ls = skit_circulantf_spectra_ld(e);
    float *spec = skit_circulantf_spectra(e);
    if (r->outputs_f32 && outputs_by_sweep(p, s)) return update_f32_by_sweep(p, s, work);
    SKIT_TRY(tno_rpe_features(r));
    tno_rpe_fill_wb(r);
    SKIT_TRY(tno_rpe_check_f32(r, (double)s->length, "FD-TNO frequency responses"));
    tno_sgemm_rows(r, d, half, h + 1, r->wbf, h + 1, r->Ff, r->ldf, spec, ls);
    if (p->opt.causality == SKIT_BIDIRECTIONAL) {
        tno_sgemm_rows(r, d, half, h + 1, r->wbf + d * (h + 1), h + 1, r->Ff, r->ldf, spec + half, ls);
        for (size_t c = 0; c < d; c++) spec[c * ls + half] = spec[c * ls + half + half - 1] = 0.0f;
    } else if (skit_circulantf_basis_rows(e)) {
        float *basis = skit_circulantf_basis(e);
        skit_circulantf_hilbert_rows(e, r->Ff, r->ldf, h, basis, ls, work);
        tno_sgemm_rows(r, d, half, h, r->wbf, h + 1, basis, ls, spec + half, ls);
    } else {
        skit_circulantf_hilbert_rows(e, spec, ls, d, spec + half, ls, work);
    }
    return SKIT_OK;
}

static int update(skit_tno_plan *p, double *work)
{
    tno_spectral *s = p->op;
    if (s->engine_f) return update_f32(p, s, (float *)work);
    if (outputs_by_sweep(p, s)) return update_by_sweep(p, s, work);
    tno_rpe *r = &s->rpe;
    const size_t h = r->width, d = p->d, half = skit_circulant_frequencies(s->engine);
    const size_t ls = skit_circulant_spectra_ld(s->engine), ld = r->ld;
    const double N = (double)skit_circulant_length(s->engine);
    double *spec = skit_circulant_spectra(s->engine);
    SKIT_TRY(tno_rpe_features(r));
    tno_rpe_fill_wb(r);
    SKIT_TRY(tno_rpe_check_bound(r, d, N, r->wb, h + 1, r->outputs, h + 1, r->F, ld, half,
                                 "FD-TNO frequency responses"));
    if (p->opt.causality == SKIT_BIDIRECTIONAL) {
        /* Re K_c from outputs c, Im K_c from outputs d + c (0 at 0 and π) */
        tno_gemm_rows(r, d, half, h + 1, r->wb, h + 1, r->F, ld, spec, ls);
        tno_gemm_rows(r, d, half, h + 1, r->wb + d * (h + 1), h + 1, r->F, ld, spec + half, ls);
        for (size_t c = 0; c < d; c++) spec[c * ls + half] = spec[c * ls + half + half - 1] = 0.0;
        return SKIT_OK;
    }
    if (skit_circulant_basis_rows(s->engine)) { /* the Hilbert step below the output layer */
        double *basis = skit_circulant_basis(s->engine);
        skit_circulant_hilbert_rows(s->engine, r->F, ld, h, basis, ls, work);
        SKIT_TRY(tno_rpe_check_bound(r, d, N, r->wb, h + 1, d, h, basis, ls, half, "FD-TNO Hilbert spectra"));
        tno_gemm_rows(r, d, half, h + 1, r->wb, h + 1, r->F, ld, spec, ls);
        tno_gemm_rows(r, d, half, h, r->wb, h + 1, basis, ls, spec + half, ls);
        return SKIT_OK;
    }
    tno_gemm_rows(r, d, half, h + 1, r->wb, h + 1, r->F, ld, spec, ls);
    skit_circulant_hilbert_rows(s->engine, spec, ls, d, spec + half, ls, work);
    return SKIT_OK;
}

static int create(skit_tno_plan *p, const double *params)
{
    const size_t h = p->opt.rpe_width, d = p->d, N = fd_length(&p->opt, p->n), half = N / 2 + 1;
    const int causal = p->opt.causality == SKIT_CAUSAL;
    tno_spectral *s = skit_calloc(1, sizeof *s);
    if (!s) return SKIT_ENOMEM;
    p->op = s;
    /* The Hilbert step pushed below the output layer: h transforms instead
     * of d, but Im K then needs its own GEMM (d x h x N/2 multiply-adds,
     * while Re K's is the output layer itself): it pays from d >= 2h. */
    s->length = N;
    s->basis_rows = causal && d >= 2 * h ? h : 0;
    const skit_circulant_shape shape = {.rows = p->n, .cols = p->n, .channels = d, .spectra = d, .length = N,
                                        .basis_rows = s->basis_rows,
                                        .rows_layout = p->opt.layout == SKIT_TNO_ROWS,
                                        .what = "token-mixing operator plan",
                                        .planner = p->opt.planner};
    /* a float32 plan's engine is float (create_f32) */
    if (p->opt.precision != SKIT_PRECISION_F32) SKIT_TRY(skit_circulant_create(&s->engine, &shape));
    tno_rpe *r = &s->rpe;
    SKIT_TRY(tno_rpe_create(r, p, params, half, causal ? d : 2 * d));
    r->nseg = 1;
    r->start[0] = 0;
    r->len[0] = half;
    r->count = half;
    /* the grid ω_m = 2πm/N, and the 1/N of the stored spectra folded into F */
    for (size_t m = 0; m < half; m++) {
        r->in[m] = 2 * M_PI * (double)m / (double)N;
        r->scale[m] = 1.0 / (double)N;
    }
    tno_rpe_fill_scale_row(r);
    return SKIT_OK;
}

static void destroy(skit_tno_plan *p)
{
    tno_spectral *s = p->op;
    if (!s) return;
    tno_rpe_destroy(&s->rpe);
    skit_circulant_destroy(s->engine);
    skit_circulantf_destroy(s->engine_f);
    skit_free(s);
}

static int estimate(const skit_tno_plan *p, size_t *doubles)
{
    const size_t d = p->d, h = p->opt.rpe_width, L = fd_length(&p->opt, p->n);
    const size_t out = p->opt.causality == SKIT_CAUSAL ? d : 2 * d;
    int overflow = 0;
    tno_rpe_estimate(p, L / 2 + 1, out, doubles, &overflow);
    size_t terms[2][2] = {{L / 2 + 1, 2 * (d + h + 1)},     /* spectra, Hilbert basis */
                          {(size_t)p->threads, 9 * L + 32}}; /* FFT buffers */
    tno_add_terms(terms, 2, doubles, &overflow);
    return overflow ? SKIT_EOVERFLOW : SKIT_OK;
}

static size_t bytes(const skit_tno_plan *p)
{
    const tno_spectral *s = p->op;
    return sizeof *s + tno_rpe_bytes(&s->rpe) + skit_circulant_bytes(s->engine) + skit_circulantf_bytes(s->engine_f);
}

static void describe(const skit_tno_plan *p, char *text, size_t size)
{
    const tno_spectral *s = p->op;
    const skit_tno_options *o = &p->opt;
    snprintf(text, size, " rpe=%zux%zu %s %s fft=%zu%s eval=%s", o->rpe_width, o->rpe_layers,
             tno_activation_name(o->activation), tno_norm_name(o->norm), s->length,
             o->causality != SKIT_CAUSAL ? ""
             : s->basis_rows ? " hilbert=features"
                                                     : " hilbert=channels",
             tno_rpe_sweeps(&s->rpe) ? "sweep" : "layers");
}

/* The float output layer (and the outputs' sweep scratch) where the
 * sweep can take the outputs straight into the spectra, at d <= 2 (h+1):
 * at larger d its copy and scratch outweigh the features' sgemm they
 * save (the float32 plan is held to about half the float64 plan's bytes). */
static int create_f32(skit_tno_plan *p)
{
    tno_spectral *s = p->op;
    SKIT_TRY(tno_spectral_create_f32(p, s->basis_rows));
    if (p->d <= 2 * (p->opt.rpe_width + 1) && outputs_by_sweep(p, s)) SKIT_TRY(tno_rpe_keep_outputs_f32(&s->rpe));
    return SKIT_OK;
}

const tno_ops tno_fd_ops = {
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
    .coeffs = tno_spectral_coeffs,
    .bytes = bytes,
    .describe = describe,
    .backward = &tno_spectral_backward,
};
