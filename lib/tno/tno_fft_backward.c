/* tno_fft_backward.c — TNO's backward: the Toeplitz product's (dx =
 * T_c^T dy_c on the plan's circulant engine, the coefficient gradient by
 * FFT cross-correlation summed over the batch), then the decay bias's and
 * the RPE MLP's at the plan's lags. The gradients are those of the
 * parameters the plan holds (the MLP's), whatever path update took to the
 * spectra. */
#include "config.h"

#include "fft/correlate.h"
#include "tno/tno_internal.h"

typedef struct tno_fft_grad {
    skit_correlate *correlate;
} tno_fft_grad;

static size_t lag_count(const skit_tno_plan *p) { return p->opt.causality == SKIT_CAUSAL ? p->n : 2 * p->n - 1; }

static int grad_create(skit_tno_plan *p)
{
    tno_fft_grad *g = skit_calloc(1, sizeof *g);
    if (!g) return SKIT_ENOMEM;
    p->grad = g;
    const tno_spectral *s = p->op;
    return skit_correlate_create(&g->correlate, p->n, p->n, skit_circulant_length(s->engine));
}

static void grad_destroy(skit_tno_plan *p)
{
    tno_fft_grad *g = p->grad;
    skit_correlate_destroy(g->correlate);
    skit_free(g);
    p->grad = NULL;
}

/* regions: engine | correlate | dcoeffs d(2n-1) | lags | dk | drpe | rpe (count x d each) | mlp */
typedef struct fft_regions {
    double *engine, *correlate, *dcoeffs, *lags, *dk, *drpe, *rpe, *mlp;
} fft_regions;

static size_t regions(const skit_tno_plan *p, double *base, fft_regions *r)
{
    const tno_spectral *s = p->op;
    const tno_fft_grad *g = p->grad;
    const size_t count = lag_count(p), cd = tno_region(count * p->d);
    size_t sizes[8] = {tno_region(skit_circulant_workspace_doubles(s->engine, 0)),
                       tno_region(skit_correlate_workspace_doubles(g->correlate)),
                       tno_region(p->d * (2 * p->n - 1)), tno_region(count), cd, cd, cd,
                       tno_region(skit_mlp_backward_workspace_size(s->rpe.mlp))};
    double **slots[8] = {&r->engine, &r->correlate, &r->dcoeffs, &r->lags, &r->dk, &r->drpe, &r->rpe, &r->mlp};
    size_t off = 0;
    for (int i = 0; i < 8; i++) {
        if (base) *slots[i] = base + off;
        off += sizes[i];
    }
    return off;
}

static size_t workspace_doubles(const skit_tno_plan *p)
{
    fft_regions r;
    return regions(p, NULL, &r);
}

static int run(const skit_tno_plan *p, const double *x, const double *dy, double *dx, double *dparams,
               double *dlambda, double *work)
{
    const tno_spectral *s = p->op;
    const tno_fft_grad *g = p->grad;
    const size_t n = p->n, d = p->d, per = 2 * n - 1, count = lag_count(p);
    const int causal = p->opt.causality == SKIT_CAUSAL;
    fft_regions r;
    regions(p, work, &r);
    if (dx) skit_circulant_apply_channels(s->engine, 1, dy, n, dx, n, p->batch * d, r.engine);
    if (!dparams && !dlambda) return SKIT_OK;
    skit_correlate_run(g->correlate, d, p->batch, x, n, d * n, dy, n, d * n, 0, r.dcoeffs, per, r.correlate);
    /* lag j of the RPE's inputs: t = j (causal) or j - (n-1); dk lag-major */
    for (size_t j = 0; j < count; j++) {
        size_t col = causal ? j + (n - 1) : j;
        r.lags[j] = (double)col - (double)(n - 1);
        for (size_t c = 0; c < d; c++) r.dk[j * d + c] = r.dcoeffs[c * per + col];
    }
    const double lambda = p->opt.decay;
    SKIT_TRY(skit_tno_decay_bias_backward(count, r.lags, d, lambda, NULL, r.dk, r.drpe, NULL));
    SKIT_TRY(skit_mlp_backward(s->rpe.mlp, count, r.lags, r.drpe, r.rpe, NULL, dparams, r.mlp));
    if (dlambda) SKIT_TRY(skit_tno_decay_bias_backward(count, r.lags, d, lambda, r.rpe, r.dk, NULL, dlambda));
    return SKIT_OK;
}

const tno_backward_ops tno_fft_backward = {
    .create = grad_create,
    .destroy = grad_destroy,
    .workspace_doubles = workspace_doubles,
    .run = run,
};
