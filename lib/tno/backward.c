/* backward.c — the vector–Jacobian product of a token-mixing plan
 * (skit_tno_plan_backward): the front that validates, converts the ROWS
 * layout to channels in the workspace and calls the operator's backward
 * (tno_backward_ops), and the decay bias's own product. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tno/tno_internal.h"

/* the front's regions: x, dy, dx in CHANNELS (ROWS plans only) */
static size_t front_doubles(const skit_tno_plan *p)
{
    return p->opt.layout == SKIT_TNO_ROWS ? 3 * tno_region(p->batch * p->n * p->d) : 0;
}

size_t skit_tno_plan_backward_workspace_bytes(const skit_tno_plan *plan)
{
    if (!plan || !plan->ops->backward || plan->opt.device != SKIT_DEVICE_CPU) return 0;
    return (front_doubles(plan) + plan->ops->backward->workspace_doubles(plan)) * sizeof(double);
}

static int check_backward(const skit_tno_plan *p, const double *x, const double *dy, const void *work)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(dy);
    if (!p->ops->backward)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "backward: not implemented for %s operators",
                          skit_tno_kind_name(p->opt.kind));
    if (p->opt.device != SKIT_DEVICE_CPU)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "backward: CPU plans only (this plan runs on a device)");
    if (p->opt.precision != SKIT_PRECISION_F64) /* its update writes the float spectra only */
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "backward: float64 plans only (this plan is float32)");
    if (work && (uintptr_t)work % 64)
        return SKIT_ERROR(SKIT_EINVAL, "work is not 64-byte aligned: use skit_malloc");
    return SKIT_OK;
}

int skit_tno_plan_backward(const skit_tno_plan *plan, const double *x, const double *dy, double *dx,
                           double *dparams, double *dlambda, void *work)
{
    SKIT_TRY(check_backward(plan, x, dy, work));
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
            tno_transpose(x + b * n * d, n, d, bx + b * n * d);
            tno_transpose(dy + b * n * d, n, d, bdy + b * n * d);
        }
        xc = bx;
        dyc = bdy;
        dxc = dx ? bdx : NULL;
        rest = w + front_doubles(p);
    }
    int status = p->ops->backward->run(p, xc, dyc, dxc, dparams, dlambda, rest);
    if (status == SKIT_OK && dx && dxc != dx)
        for (size_t b = 0; b < p->batch; b++) tno_transpose(dxc + b * n * d, d, n, dx + b * n * d);
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
