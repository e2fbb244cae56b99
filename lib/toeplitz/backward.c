/* backward.c — the vector–Jacobian product of a Toeplitz plan: for
 * y_c = T_c x_c, dx_c = T_c^T dy_c (the plan's transposed product) and
 * dt_k = sum_i dy_i x_{i-k} (an FFT cross-correlation, fft/correlate.h),
 * summed over the channels of a shared matrix. Float32 plans do both in
 * float: the transposed product on their fftwf engine, the correlation on
 * the float correlation engine (correlatef.c). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "fft/correlate.h"
#include "toeplitz/toeplitz_internal.h"

#define ALIGN_BYTES 64

size_t skit_toeplitz_plan_backward_workspace_bytes(const skit_toeplitz_plan *plan)
{
    if (!plan) return 0;
    toeplitz_view v;
    toeplitz_plan_view(plan, &v);
    size_t corr = v.correlate_f ? skit_correlatef_workspace_doubles(v.correlate_f) * sizeof(float)
                                : skit_correlate_workspace_doubles(v.correlate) * sizeof(double);
    return SKIT_MAX(corr + ALIGN_BYTES, skit_toeplitz_plan_workspace_bytes(plan));
}

static int check_shapes(const toeplitz_view *v, size_t ldx, size_t ldy, size_t lddx, int want_dx)
{
    if (ldx < v->n) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu out of range: need ldx >= %zu (n)", ldx, v->n);
    if (ldy < v->m) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu out of range: need ldy >= %zu (m)", ldy, v->m);
    if (want_dx && lddx < v->n)
        return SKIT_ERROR(SKIT_ESHAPE, "lddx = %zu out of range: need lddx >= %zu (n)", lddx, v->n);
    size_t extent;
    if (skit_size_mul(v->d - 1, SKIT_MAX(SKIT_MAX(ldx, ldy), lddx), &extent) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "leading dimension times d = %zu overflows size_t", v->d);
    return SKIT_OK;
}

/* The checks both precisions share; the plan computes in `precision`. */
static int check_backward(const skit_toeplitz_plan *plan, skit_precision precision, const void *x, size_t ldx,
                          const void *dy, size_t ldy, const void *dx, size_t lddx, const void *dcoeffs,
                          toeplitz_view *v)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(dy);
    if (dcoeffs) SKIT_REQUIRE_PTR(x);
    toeplitz_plan_view(plan, v);
    if (v->precision != precision)
        return SKIT_ERROR(SKIT_EINVAL, "plan computes in %s: use skit_toeplitz_plan_backward%s",
                          v->precision == SKIT_PRECISION_F32 ? "float32" : "float64",
                          v->precision == SKIT_PRECISION_F32 ? "_f32" : "");
    return check_shapes(v, dcoeffs ? ldx : v->n, ldy, lddx, dx != NULL);
}

static void *aligned(void *work)
{
    uintptr_t addr = (uintptr_t)work;
    return (void *)((addr + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES);
}

/* a causal plan ignores its negative lags: their gradient is 0 */
static void zero_negative_lags(const toeplitz_view *v, void *dcoeffs, size_t value_bytes)
{
    if (v->causality != SKIT_CAUSAL) return;
    const size_t per = v->m + v->n - 1;
    for (size_t c = 0; c < (v->shared ? 1 : v->d); c++)
        memset((char *)dcoeffs + c * per * value_bytes, 0, (v->n - 1) * value_bytes);
}

/* Both precisions: x, dy, dx and dcoeffs are arrays of the plan's type. */
static int backward(const skit_toeplitz_plan *plan, skit_precision precision, const void *x, size_t ldx,
                    const void *dy, size_t ldy, void *dx, size_t lddx, void *dcoeffs, void *work)
{
    toeplitz_view v;
    SKIT_TRY(check_backward(plan, precision, x, ldx, dy, ldy, dx, lddx, dcoeffs, &v));
    const int f32 = precision == SKIT_PRECISION_F32;
    void *owned = NULL;
    if (!work && !(work = owned = skit_malloc(skit_toeplitz_plan_backward_workspace_bytes(plan), 1)))
        return SKIT_ENOMEM;
    int status = SKIT_OK;
    if (dx)
        status = f32 ? skit_toeplitz_plan_execute_transpose_f32(plan, dy, ldy, dx, lddx, work)
                     : skit_toeplitz_plan_execute_transpose(plan, dy, ldy, dx, lddx, work);
    if (status == SKIT_OK && dcoeffs) {
        const size_t per = v.m + v.n - 1;
        if (f32) skit_correlatef_run(v.correlate_f, v.d, 1, x, ldx, 0, dy, ldy, 0, v.shared, dcoeffs, per, aligned(work));
        else skit_correlate_run(v.correlate, v.d, 1, x, ldx, 0, dy, ldy, 0, v.shared, dcoeffs, per, aligned(work));
        zero_negative_lags(&v, dcoeffs, f32 ? sizeof(float) : sizeof(double));
    }
    skit_free(owned);
    return status;
}

int skit_toeplitz_plan_backward(const skit_toeplitz_plan *plan, const double *x, size_t ldx, const double *dy,
                                size_t ldy, double *dx, size_t lddx, double *dcoeffs, void *work)
{
    return backward(plan, SKIT_PRECISION_F64, x, ldx, dy, ldy, dx, lddx, dcoeffs, work);
}

int skit_toeplitz_plan_backward_f32(const skit_toeplitz_plan *plan, const float *x, size_t ldx, const float *dy,
                                    size_t ldy, float *dx, size_t lddx, float *dcoeffs, void *work)
{
    return backward(plan, SKIT_PRECISION_F32, x, ldx, dy, ldy, dx, lddx, dcoeffs, work);
}
