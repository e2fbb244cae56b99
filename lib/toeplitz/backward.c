/* backward.c — the vector–Jacobian product of a Toeplitz plan: for
 * y_c = T_c x_c, dx_c = T_c^T dy_c (the plan's transposed product) and
 * dt_k = sum_i dy_i x_{i-k} (an FFT cross-correlation, fft/correlate.h),
 * summed over the channels of a shared matrix. */
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
    size_t corr = skit_correlate_workspace_doubles(v.correlate) * sizeof(double) + ALIGN_BYTES;
    return SKIT_MAX(corr, skit_toeplitz_plan_workspace_bytes(plan));
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

int skit_toeplitz_plan_backward(const skit_toeplitz_plan *plan, const double *x, size_t ldx, const double *dy,
                                size_t ldy, double *dx, size_t lddx, double *dcoeffs, void *work)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(dy);
    if (dcoeffs) SKIT_REQUIRE_PTR(x);
    toeplitz_view v;
    toeplitz_plan_view(plan, &v);
    SKIT_TRY(check_shapes(&v, dcoeffs ? ldx : v.n, ldy, lddx, dx != NULL));
    void *owned = NULL;
    if (!work) {
        owned = skit_malloc(skit_toeplitz_plan_backward_workspace_bytes(plan), 1);
        if (!owned) return SKIT_ENOMEM;
        work = owned;
    }
    int status = SKIT_OK;
    if (dx) status = skit_toeplitz_plan_execute_transpose(plan, dy, ldy, dx, lddx, work);
    if (status == SKIT_OK && dcoeffs) {
        uintptr_t addr = (uintptr_t)work;
        double *base = (double *)((addr + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES);
        size_t per = v.m + v.n - 1;
        skit_correlate_run(v.correlate, v.d, 1, x, ldx, 0, dy, ldy, 0, v.shared, dcoeffs, per, base);
        /* a causal plan ignores its negative lags: their gradient is 0 */
        if (v.causality == SKIT_CAUSAL)
            for (size_t c = 0; c < (v.shared ? 1 : v.d); c++) memset(dcoeffs + c * per, 0, (v.n - 1) * sizeof(double));
    }
    skit_free(owned);
    return status;
}
