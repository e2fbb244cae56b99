/* backward.c — the vector–Jacobian product of a token-mixing plan
 * (skit_tno_plan_backward, and _f32 on float32 plans): the front that
 * validates, converts the ROWS layout to channels in the workspace and
 * calls the operator's backward (tno_backward_ops), and the decay bias's
 * own product. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tno/tno_internal.h"

static int is_f32(const skit_tno_plan *p) { return p->opt.precision == SKIT_PRECISION_F32; }

/* the front's regions: x, dy, dx in CHANNELS (ROWS plans only; float32
 * plans' hold floats) */
static size_t front_region(const skit_tno_plan *p)
{
    const size_t total = p->batch * p->n * p->d;
    return tno_region(is_f32(p) ? (total + 1) / 2 : total);
}

/* a float32 ROWS plan whose operator's backward reads the ROWS layout itself */
static int rows_direct(const skit_tno_plan *p)
{
    const tno_backward_ops *b = p->ops->backward;
    return is_f32(p) && p->opt.layout == SKIT_TNO_ROWS && b && b->takes_rows_f32 && b->takes_rows_f32(p);
}

static size_t front_doubles(const skit_tno_plan *p)
{
    return p->opt.layout == SKIT_TNO_ROWS && !rows_direct(p) ? 3 * front_region(p) : 0;
}

size_t skit_tno_plan_backward_workspace_bytes(const skit_tno_plan *plan)
{
    if (!plan || !plan->ops->backward || plan->opt.device != SKIT_DEVICE_CPU) return 0;
    if (is_f32(plan) && !plan->ops->backward->run_f32) return 0;
    return (front_doubles(plan) + plan->ops->backward->workspace_doubles(plan)) * sizeof(double);
}

static int check_backward(const skit_tno_plan *p, skit_precision precision, const void *x, const void *dy,
                          const void *work)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(dy);
    if (!p->ops->backward || (is_f32(p) && !p->ops->backward->run_f32))
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "backward: not implemented for %s%s operators",
                          is_f32(p) ? "float32 " : "", skit_tno_kind_name(p->opt.kind));
    if (p->opt.device != SKIT_DEVICE_CPU)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "backward: CPU plans only (this plan runs on a device)");
    if (p->opt.precision != precision)
        return SKIT_ERROR(SKIT_EINVAL, "plan computes in %s: use skit_tno_plan_backward%s",
                          is_f32(p) ? "float32" : "float64", is_f32(p) ? "_f32" : "");
    if (work && (uintptr_t)work % 64)
        return SKIT_ERROR(SKIT_EINVAL, "work is not 64-byte aligned: use skit_malloc");
    return SKIT_OK;
}

int skit_tno_plan_backward(const skit_tno_plan *plan, const double *x, const double *dy, double *dx,
                           double *dparams, double *dlambda, void *work)
{
    SKIT_TRY(check_backward(plan, SKIT_PRECISION_F64, x, dy, work));
    const skit_tno_plan *p = plan;
    const size_t n = p->n, d = p->d, total = p->batch * n * d;
    double *owned = NULL, *w = work;
    if (!w) {
        owned = skit_malloc(skit_tno_plan_backward_workspace_bytes(p), 1);
        if (!owned) return SKIT_ENOMEM;
        w = owned;
    }
    if (dlambda) *dlambda = 0;
    const double *xc = x, *dyc = dy;
    double *dxc = dx, *rest = w;
    if (p->opt.layout == SKIT_TNO_ROWS) {
        double *bx = w, *bdy = w + tno_region(total), *bdx = w + 2 * tno_region(total);
        for (size_t b = 0; b < p->batch; b++) {
            skit_transpose(x + b * n * d, n, d, bx + b * n * d);
            skit_transpose(dy + b * n * d, n, d, bdy + b * n * d);
        }
        xc = bx;
        dyc = bdy;
        dxc = dx ? bdx : NULL;
        rest = w + front_doubles(p);
    }
    int status = p->ops->backward->run(p, xc, dyc, dxc, dparams, dlambda, rest);
    if (status == SKIT_OK && dx && dxc != dx)
        for (size_t b = 0; b < p->batch; b++) skit_transpose(dxc + b * n * d, d, n, dx + b * n * d);
    skit_free(owned);
    return status;
}

/* dst (cols x rows) = src^T (rows x cols), float, for every sequence of
 * the batch: the ROWS layout to channels and back */
static void transpose_batch_f32(const skit_tno_plan *p, const float *src, size_t rows, size_t cols, float *dst)
{
    const size_t block = rows * cols;
    for (size_t b = 0; b < p->batch; b++) skit_transpose_ld_f32(src + b * block, rows, cols, cols, dst + b * block, rows);
}

int skit_tno_plan_backward_f32(const skit_tno_plan *plan, const float *x, const float *dy, float *dx,
                               double *dparams, double *dlambda, void *work)
{
    SKIT_TRY(check_backward(plan, SKIT_PRECISION_F32, x, dy, work));
    const skit_tno_plan *p = plan;
    const size_t n = p->n, d = p->d;
    double *owned = NULL, *w = work;
    if (!w && !(w = owned = skit_malloc(skit_tno_plan_backward_workspace_bytes(p), 1))) return SKIT_ENOMEM;
    if (dlambda) *dlambda = 0;
    if (rows_direct(p)) {
        int status = p->ops->backward->run_rows_f32(p, x, dy, dx, dparams, dlambda, w);
        skit_free(owned);
        return status;
    }
    const float *xc = x, *dyc = dy;
    float *dxc = dx;
    double *rest = w;
    if (p->opt.layout == SKIT_TNO_ROWS) {
        const size_t region = front_region(p);
        float *bx = (float *)w, *bdy = (float *)(w + region), *bdx = (float *)(w + 2 * region);
        transpose_batch_f32(p, x, n, d, bx);
        transpose_batch_f32(p, dy, n, d, bdy);
        xc = bx;
        dyc = bdy;
        dxc = dx ? bdx : NULL;
        rest = w + front_doubles(p);
    }
    int status = p->ops->backward->run_f32(p, xc, dyc, dxc, dparams, dlambda, rest);
    if (status == SKIT_OK && dx && dxc != dx) transpose_batch_f32(p, dxc, d, n, dx);
    skit_free(owned);
    return status;
}

/* ---- the decay bias k(t) = rpe(t) lambda^|t| ------------------------------ */

static int check_decay(size_t count, const double *lags, size_t d, double lambda)
{
    if (count && !lags) return SKIT_ERROR(SKIT_EINVAL, "lags is NULL");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1");
    if (!(lambda > 0 && lambda <= 1))
        return SKIT_ERROR(SKIT_EDOM, "lambda = %g out of range: need 0 < lambda <= 1", lambda);
    return SKIT_OK;
}

int skit_tno_decay_bias(size_t count, const double *lags, size_t d, double lambda, const double *rpe, double *k)
{
    SKIT_TRY(check_decay(count, lags, d, lambda));
    SKIT_REQUIRE_PTR(rpe);
    SKIT_REQUIRE_PTR(k);
    for (size_t j = 0; j < count; j++) {
        double s = pow(lambda, fabs(lags[j]));
        for (size_t c = 0; c < d; c++) k[j * d + c] = rpe[j * d + c] * s;
    }
    return SKIT_OK;
}

int skit_tno_decay_bias_backward(size_t count, const double *lags, size_t d, double lambda, const double *rpe,
                                 const double *dk, double *drpe, double *dlambda)
{
    SKIT_TRY(check_decay(count, lags, d, lambda));
    SKIT_REQUIRE_PTR(dk);
    if (dlambda) SKIT_REQUIRE_PTR(rpe);
    double sum = 0;
    for (size_t j = 0; j < count; j++) {
        double a = fabs(lags[j]), s = pow(lambda, a);
        /* d lambda^a / d lambda = a lambda^(a-1); 0 at lag 0 */
        double slope = a > 0 ? a * pow(lambda, a - 1) : 0.0;
        for (size_t c = 0; c < d; c++) {
            if (drpe) drpe[j * d + c] = dk[j * d + c] * s;
            if (dlambda) sum += dk[j * d + c] * rpe[j * d + c] * slope;
        }
    }
    if (dlambda) *dlambda = sum;
    return SKIT_OK;
}

/* ---- the magnitudes of the float32 bound ------------------------------------ */

/* M_c (skit/tno.h): the output layer's magnitudes on F, as update left
 * them. TNO: sum_j |[W b]_cj| ||F_j||_1 (F_j the decayed features at the
 * N lags); FD: N max over the grid of sum_j |[W b]_rj| |F_j(w)| over the
 * channel's output rows r (c, and d + c bidirectional; F_j carries 1/N). */
static double output_magnitude(const skit_tno_plan *p, size_t c)
{
    const tno_rpe *r = &((const tno_spectral *)p->op)->rpe;
    const size_t d = p->d, rows = r->width + 1, outs = r->outputs / d;
    const int fd = p->opt.kind == SKIT_TNO_FD;
    double best = 0;
    for (size_t k = 0; k < (fd ? r->cols : 1); k++) {
        double sum = 0;
        for (size_t o = 0; o < outs; o++)
            for (size_t j = 0; j < rows; j++) {
                double f = 0;
                if (fd) f = fabs(r->Ff[j * r->ldf + k]);
                else
                    for (size_t q = 0; q < r->cols; q++) f += fabs(r->Ff[j * r->ldf + q]);
                sum += fabs((double)r->wbf[(o * d + c) * rows + j]) * f;
            }
        best = fmax(best, sum);
    }
    return fd ? best * (double)(2 * (r->cols - 1)) : best;
}

int skit_tno_plan_f32_error_scale(const skit_tno_plan *plan, double *scale, size_t *fft_length)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(scale);
    if (!is_f32(plan))
        return SKIT_ERROR(SKIT_EINVAL, "f32 error scale: a float32 plan only (this one is float64 %s)",
                          skit_tno_kind_name(plan->opt.kind));
    if (plan->opt.kind == SKIT_TNO_SKI) return tno_ski_f32_error_scale(plan, scale, fft_length);
    tno_spectral *s = plan->op;
    /* plans that take the RPE's outputs by the float sweep keep no
     * features: make them (Ff is theirs to use; that update never reads it) */
    if (s->rpe.outputs_f32) {
        SKIT_TRY(tno_rpe_features(&s->rpe));
        tno_rpe_fill_wb(&s->rpe);
    }
    const size_t N = skit_circulantf_length(s->engine_f), half = skit_circulantf_frequencies(s->engine_f);
    const size_t ld = skit_circulantf_spectra_ld(s->engine_f);
    const float *spectra = skit_circulantf_spectra(s->engine_f);
    for (size_t c = 0; c < plan->d; c++) {
        double norm = 0; /* ||C_c||_2 = max |eigenvalue|: the spectrum is stored split and scaled by 1/N */
        for (size_t k = 0; k < half; k++) norm = fmax(norm, hypot(spectra[c * ld + k], spectra[c * ld + half + k]));
        scale[c] = norm * (double)N + output_magnitude(plan, c);
    }
    if (fft_length) *fft_length = N;
    return SKIT_OK;
}

double skit_tno_plan_f32_growth(const skit_tno_plan *plan)
{
    if (!plan || !is_f32(plan)) return 0;
    size_t N = 0;
    const skit_tno_options *o = &plan->opt;
    if (o->kind != SKIT_TNO_SKI) {
        const tno_spectral *s = plan->op;
        N = skit_circulantf_length(s->engine_f);
        return 20.0 * log2(2.0 * (double)N) + 2.0 * ((double)o->rpe_width + 1.0) + 4.0 * ((double)o->rpe_layers + 3.0);
    }
    const tno_ski *s = plan->op;
    const double lg = s->f32.engine ? log2(2.0 * (double)skit_circulantf_length(s->f32.engine)) : 0.0;
    const double h = (double)(plan->n - 1) / (double)(s->r - 1);
    return 20.0 * lg + 2.0 * (double)s->r + 2.0 * h + (double)s->m + 12.0;
}
