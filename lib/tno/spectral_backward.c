/* spectral_backward.c — the backward of TNO and FD-TNO. Both apply
 * per-channel kernels on the circulant engine, so both start alike: dx =
 * T_c^T dy_c (the engine's transposed product) and the kernels' gradient
 * by FFT cross-correlation summed over the batch (fft/correlate.h). Then:
 *  TNO    the coefficients are rpe(t) lambda^|t| at the integer lags: the
 *         decay bias's backward, then the RPE MLP's at the lags;
 *  FD     the kernel is the inverse DFT of the MLP's response on the rfft
 *         grid, k_j = (1/N) [R_0 + (-1)^j R_{N/2} + 2 sum_m (R_m cos -
 *         I_m sin)(2 pi m j / N)], so with DK = DFT(dk), dR_m = c_m Re DK_m
 *         / N and dI_m = c_m Im DK_m / N (c_m = 1 at m = 0, N/2, else 2;
 *         I is forced to 0 there). Causal, the kernel is w .* IDFT(R) (the
 *         Hilbert step of lib/fft/circulant.c: weights 1, 2, .., 2, 1 on
 *         lags 0..N/2, 0 beyond), so dR is the same with dk replaced by
 *         w .* dk.
 * The gradients are those of the parameters the plan holds (the MLP's),
 * whatever path update took to the spectra.
 *
 * Float32 plans (run_f32) do the two products of the batch in float: dx
 * on the float engine, the kernels' gradient on the float correlation
 * engine (both O(batch d N log N), the bulk of the work). The rest starts
 * from that gradient widened to double and is the float64 code above:
 * FD's DFT of dk (d transforms, not batch d), the decay's and the RPE
 * MLP's backward. The MLP is small (count x h GEMMs, independent of the
 * batch and of d but for the output layer), the forward evaluates its
 * features in float64 too, and the plan's parameters are float64; kept in
 * double, the map from the kernels' gradient to dparams is exactly the
 * float64 plan's, so dparams's float32 error is that of the correlation
 * pushed through it (skit/tno.h states the bound) and no second MLP
 * backward exists to keep in step. The price: at small d x batch the MLP
 * is most of a backward, so an sgemm MLP backward is where a faster
 * float32 backward would start. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fft/correlate.h"
#include "mlp/batch.h"
#include "tno/tno_internal.h"

typedef struct spectral_grad {
    skit_correlate *correlate;    /* float64 plans' correlation; FD's DFT of dk */
    skit_correlatef *correlate_f; /* float32 plans' correlation */
} spectral_grad;

static int is_f32(const skit_tno_plan *p) { return p->opt.precision == SKIT_PRECISION_F32; }

static int is_fd(const skit_tno_plan *p) { return p->opt.kind == SKIT_TNO_FD; }

/* the MLP's inputs (TNO: lags; FD: frequencies) and outputs per input */
static size_t input_count(const skit_tno_plan *p)
{
    const tno_spectral *s = p->op;
    if (is_fd(p)) return s->length / 2 + 1;
    return p->opt.causality == SKIT_CAUSAL ? p->n : 2 * p->n - 1;
}

static size_t output_count(const skit_tno_plan *p) { return skit_mlp_out_dim(((const tno_spectral *)p->op)->rpe.mlp); }

static int grad_create(skit_tno_plan *p)
{
    spectral_grad *g = skit_calloc(1, sizeof *g);
    if (!g) return SKIT_ENOMEM;
    p->grad = g;
    const tno_spectral *s = p->op;
    const size_t N = s->length;
    /* float64: the correlation; causal FD: also the DFT of its kernels' gradient */
    if (!is_f32(p) || (is_fd(p) && p->opt.causality == SKIT_CAUSAL))
        SKIT_TRY(skit_correlate_create(&g->correlate, p->n, p->n, N));
    return is_f32(p) ? skit_correlatef_create(&g->correlate_f, p->n, p->n, N) : SKIT_OK;
}

static void grad_destroy(skit_tno_plan *p)
{
    spectral_grad *g = p->grad;
    skit_correlate_destroy(g->correlate);
    skit_correlatef_destroy(g->correlate_f);
    skit_free(g);
    p->grad = NULL;
}

/* engine | correlate | dcoeffs d(2n-1) | inputs | dout (count x out) | dots (count) | mlp | kernel N | DFT |
 * dcoeffs in float | spectra d(N+2) (bidirectional FD only)
 * float32 plans: dcoeffs in float (the engine's and correlation's regions,
 * and the spectra, then hold floats) */
enum { R_ENGINE, R_CORRELATE, R_DCOEFFS, R_INPUTS, R_DOUT, R_DOTS, R_MLP, R_KERNEL, R_DFT, R_DCOEFFS_F,
       R_SPECTRA, R_COUNT };

/* Bidirectional FD-TNO needs the kernels' gradient only as its DFT on the
 * N-point grid, which is the correlation's spectrum itself (DY .* conj(X)
 * summed over the batch; the correlation of x and dy lives on lags
 * -(n-1)..n-1 only, so the N-point DFT of those lags is that spectrum):
 * the correlation's inverse transforms and the DFT of each channel's
 * kernel gradient are skipped. Causal FD weights the kernel in time (the
 * Hilbert step) and keeps the round trip. */
static int fd_from_spectra(const skit_tno_plan *p) { return is_fd(p) && p->opt.causality != SKIT_CAUSAL; }

/* doubles that hold `floats` floats */
static size_t in_doubles(size_t floats) { return (floats + 1) / 2; }

static size_t regions(const skit_tno_plan *p, double *base, double **r)
{
    const tno_spectral *s = p->op;
    const spectral_grad *g = p->grad;
    const size_t count = input_count(p), co = tno_region(count * output_count(p)), N = s->length;
    const size_t dcoeffs = p->d * (2 * p->n - 1);
    const size_t engine = g->correlate_f ? in_doubles(skit_circulantf_workspace_doubles(s->engine_f, 0))
                                         : skit_circulant_workspace_doubles(s->engine, 0);
    const size_t correlate = g->correlate_f ? in_doubles(skit_correlatef_workspace_doubles(g->correlate_f))
                                            : skit_correlate_workspace_doubles(g->correlate);
    /* each path's regions only: TNO's dots, causal FD's
     * kernel and DFT, the kernels' gradient in time unless FD takes it as
     * spectra */
    const int tno = !is_fd(p), spectra = fd_from_spectra(p), fd_time = is_fd(p) && !spectra;
    /* R_DCOEFFS: the kernels' gradient in time, or (bidirectional FD) its
     * spectra transposed frequency-major (fd_outputs_spectra) */
    const size_t transposed = p->d * (N + 2);
    const size_t dco = spectra ? (is_f32(p) ? in_doubles(transposed) : transposed) : dcoeffs;
    const size_t sizes[R_COUNT] = {tno_region(engine), tno_region(correlate), tno_region(dco),
                                   tno_region(count), co, tno ? tno_region(count) : 0,
                                   tno_region(skit_mlp_backward_workspace_size(s->rpe.mlp)),
                                   fd_time ? tno_region(N) : 0, fd_time ? tno_region(N + 2) : 0,
                                   g->correlate_f && !spectra ? tno_region(in_doubles(dcoeffs)) : 0,
                                   spectra ? tno_region(p->d * (N + 2)) : 0};
    size_t off = 0;
    for (int i = 0; i < R_COUNT; i++) {
        if (base) r[i] = base + off;
        off += sizes[i];
    }
    return off;
}

static size_t workspace_doubles(const skit_tno_plan *p)
{
    double *r[R_COUNT];
    return regions(p, NULL, r);
}

/* TNO: dout (lag-major, count x d) = the coefficients' gradient (d rows
 * of 2n - 1 lags, double, or float on float32 plans) times lambda^|t|,
 * the decay's backward as skit_tno_decay_bias_backward takes it: the
 * blocked transposes of lib/core, then one pass along the channels (a
 * float32 plan's gradient transposed in float into the double region of
 * R_DCOEFFS, which it no longer needs, and widened in that pass). */
static void tno_outputs(const skit_tno_plan *p, double **r, const float *dcoeffs_f)
{
    const size_t n = p->n, d = p->d, per = 2 * n - 1, count = input_count(p);
    const size_t first = p->opt.causality == SKIT_CAUSAL ? n - 1 : 0; /* causal: lags 0..n-1 only */
    double *dout = r[R_DOUT];
    float *lag_major = (float *)r[R_DCOEFFS];
    if (dcoeffs_f) skit_transpose_ld_f32(dcoeffs_f + first, d, count, per, lag_major, d);
    else skit_transpose_ld(r[R_DCOEFFS] + first, d, count, per, dout, d);
    for (size_t j = 0; j < count; j++) {
        const double lag = (double)(j + first) - (double)(n - 1), scale = pow(p->opt.decay, fabs(lag));
        double *row = dout + j * d;
        r[R_INPUTS][j] = lag;
        if (dcoeffs_f)
            for (size_t c = 0; c < d; c++) row[c] = (double)lag_major[j * d + c] * scale;
        else
            for (size_t c = 0; c < d; c++) row[c] *= scale;
    }
}

/* FD: dout (frequency-major: d real parts, then, bidirectional, d
 * imaginary parts) from the kernels' gradient, channel by channel */
static void fd_outputs(const skit_tno_plan *p, double **r)
{
    const tno_spectral *s = p->op;
    const spectral_grad *g = p->grad;
    const size_t n = p->n, d = p->d, per = 2 * n - 1, N = s->length, half = N / 2 + 1;
    const size_t out = output_count(p);
    const int causal = p->opt.causality == SKIT_CAUSAL;
    double *dk = r[R_KERNEL], *z = r[R_DFT];
    for (size_t m = 0; m < half; m++) r[R_INPUTS][m] = 2 * M_PI * (double)m / (double)N;
    for (size_t c = 0; c < d; c++) {
        const double *t = r[R_DCOEFFS] + c * per;
        memset(dk, 0, N * sizeof *dk);
        for (size_t l = 0; l < n; l++) dk[l] = t[l + n - 1];
        for (size_t l = 1; l < n; l++) dk[N - l] = t[n - 1 - l];
        if (causal) { /* the Hilbert step's weights */
            for (size_t j = 1; j < N / 2; j++) dk[j] *= 2.0;
            for (size_t j = N / 2 + 1; j < N; j++) dk[j] = 0.0;
        }
        skit_correlate_dft(g->correlate, dk, z);
        for (size_t m = 0; m < half; m++) {
            const int edge = m == 0 || 2 * m == N;
            const double cm = (edge ? 1.0 : 2.0) / (double)N;
            r[R_DOUT][m * out + c] = cm * z[2 * m];
            if (!causal) r[R_DOUT][m * out + d + c] = edge ? 0.0 : cm * z[2 * m + 1];
        }
    }
}

/* bidirectional FD: dout from the kernels' gradient spectra (R_SPECTRA,
 * channel c at c (N + 2), float or double), as fd_outputs from their DFT */
static void fd_outputs_spectra(const skit_tno_plan *p, double **r)
{
    const tno_spectral *s = p->op;
    const size_t d = p->d, N = s->length, half = N / 2 + 1, out = output_count(p), ld = N + 2;
    for (size_t m = 0; m < half; m++) r[R_INPUTS][m] = 2 * M_PI * (double)m / (double)N;
    /* frequency-major from channel-major by the blocked transposes of
     * lib/core (rows 2m and 2m + 1: the real and imaginary parts at
     * frequency m, every channel), then one pass along the channels */
    float *tf = is_f32(p) ? (float *)r[R_DCOEFFS] : NULL;
    double *td = r[R_DCOEFFS];
    if (tf) skit_transpose_ld_f32((const float *)r[R_SPECTRA], d, 2 * half, ld, tf, d);
    else skit_transpose_ld(r[R_SPECTRA], d, 2 * half, ld, td, d);
    for (size_t m = 0; m < half; m++) {
        const int edge = m == 0 || 2 * m == N;
        const double cm = (edge ? 1.0 : 2.0) / (double)N;
        double *re = r[R_DOUT] + m * out, *im = re + d;
        if (tf)
            for (size_t c = 0; c < d; c++) re[c] = cm * (double)tf[2 * m * d + c];
        else
            for (size_t c = 0; c < d; c++) re[c] = cm * td[2 * m * d + c];
        if (edge) memset(im, 0, d * sizeof *im);
        else if (tf)
            for (size_t c = 0; c < d; c++) im[c] = cm * (double)tf[(2 * m + 1) * d + c];
        else
            for (size_t c = 0; c < d; c++) im[c] = cm * td[(2 * m + 1) * d + c];
    }
}

/* from the kernels' gradient (r[R_DCOEFFS], or R_SPECTRA) on: the MLP's inputs and
 * output gradient, its backward, and TNO's dlambda. With dout = dk
 * lambda^|t| (the decay's backward), dk . d(rpe lambda^|t|)/dlambda =
 * (|t| / lambda) dout . rpe, and the MLP's backward gives dout_t . rpe_t
 * from its output layer's input and gradient (skit_mlp_backward_dots), so
 * no output-layer GEMM evaluates rpe and no lambda^-|t| (which underflows)
 * appears. */
static int rpe_backward(const skit_tno_plan *p, double *dparams, double *dlambda, double **r,
                        const float *dcoeffs_f)
{
    const tno_spectral *s = p->op;
    const size_t count = input_count(p);
    if (fd_from_spectra(p)) fd_outputs_spectra(p, r);
    else if (is_fd(p)) fd_outputs(p, r);
    else tno_outputs(p, r, dcoeffs_f);
    const int want_lambda = dlambda && !is_fd(p);
    SKIT_TRY(skit_mlp_backward_dots(s->rpe.mlp, count, r[R_INPUTS], r[R_DOUT], NULL, NULL, dparams,
                                    want_lambda ? r[R_DOTS] : NULL, r[R_MLP]));
    if (want_lambda) {
        double sum = 0;
        for (size_t j = 0; j < count; j++) sum += fabs(r[R_INPUTS][j]) * r[R_DOTS][j];
        *dlambda = sum / p->opt.decay;
    }
    return SKIT_OK;
}

static int run(const skit_tno_plan *p, const double *x, const double *dy, double *dx, double *dparams,
               double *dlambda, double *work)
{
    const tno_spectral *s = p->op;
    const spectral_grad *g = p->grad;
    const size_t n = p->n, d = p->d;
    double *r[R_COUNT];
    regions(p, work, r);
    if (dx) skit_circulant_apply_channels(s->engine, 1, dy, n, dx, n, p->batch * d, r[R_ENGINE]);
    if (!dparams && !dlambda) return SKIT_OK;
    if (fd_from_spectra(p))
        skit_correlate_spectra(g->correlate, d, p->batch, x, n, d * n, dy, n, d * n, r[R_SPECTRA], s->length + 2,
                               r[R_CORRELATE]);
    else
        skit_correlate_run(g->correlate, d, p->batch, x, n, d * n, dy, n, d * n, 0, r[R_DCOEFFS], 2 * n - 1,
                           r[R_CORRELATE]);
    return rpe_backward(p, dparams, dlambda, r, NULL);
}

static int run_f32(const skit_tno_plan *p, const float *x, const float *dy, float *dx, double *dparams,
                   double *dlambda, double *work)
{
    const tno_spectral *s = p->op;
    const spectral_grad *g = p->grad;
    const size_t n = p->n, d = p->d, total = d * (2 * n - 1);
    double *r[R_COUNT];
    regions(p, work, r);
    if (dx) skit_circulantf_apply_channels(s->engine_f, 1, dy, n, dx, n, p->batch * d, (float *)r[R_ENGINE]);
    if (!dparams && !dlambda) return SKIT_OK;
    if (fd_from_spectra(p)) {
        skit_correlatef_spectra(g->correlate_f, d, p->batch, x, n, d * n, dy, n, d * n, (float *)r[R_SPECTRA],
                                s->length + 2, (float *)r[R_CORRELATE]);
        return rpe_backward(p, dparams, dlambda, r, NULL);
    }
    float *dcoeffs = (float *)r[R_DCOEFFS_F];
    skit_correlatef_run(g->correlate_f, d, p->batch, x, n, d * n, dy, n, d * n, 0, dcoeffs, 2 * n - 1,
                        (float *)r[R_CORRELATE]);
    if (!is_fd(p)) return rpe_backward(p, dparams, dlambda, r, dcoeffs); /* TNO widens as it transposes */
    for (size_t i = 0; i < total; i++) r[R_DCOEFFS][i] = (double)dcoeffs[i];
    return rpe_backward(p, dparams, dlambda, r, NULL);
}

const tno_backward_ops tno_spectral_backward = {
    .create = grad_create,
    .destroy = grad_destroy,
    .workspace_doubles = workspace_doubles,
    .run = run,
    .run_f32 = run_f32,
};
