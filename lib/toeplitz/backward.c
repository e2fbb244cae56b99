/* backward.c — the vector–Jacobian product of a Toeplitz plan: for
 * y_c = T_c x_c, dx_c = T_c^T dy_c (the plan's transposed product) and
 * dt_k = sum_i dy_i x_{i-k} (an FFT cross-correlation, fft/correlate.h),
 * summed over the channels of a shared matrix. Float32 plans do both in
 * float: the transposed product on their fftwf engine, the correlation on
 * the float correlation engine (correlatef.c). Rows-layout plans correlate
 * column-major copies of x and dy made in the workspace (the correlation
 * reads whole channels; the transposed product reads the rows in place). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "core/transpose.h"
#include "fft/correlate.h"
#include "toeplitz/toeplitz_internal.h"

#define ALIGN_BYTES 64

/* The column-major copies of x (n x d) and dy (m x d) a rows-layout
 * plan correlates, each rounded up to the workspace's alignment. */
static size_t columns_bytes(const toeplitz_view *v, size_t value)
{
    size_t x = (v->n * v->d * value + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES;
    size_t dy = (v->m * v->d * value + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES;
    return x + dy;
}

size_t skit_toeplitz_plan_backward_workspace_bytes(const skit_toeplitz_plan *plan)
{
    if (!plan) return 0;
    toeplitz_view v;
    toeplitz_plan_view(plan, &v);
    const size_t value = v.correlate_f ? sizeof(float) : sizeof(double);
    size_t corr = v.correlate_f ? skit_correlatef_workspace_doubles(v.correlate_f) * sizeof(float)
                                : skit_correlate_workspace_doubles(v.correlate) * sizeof(double);
    if (v.layout == SKIT_LAYOUT_ROWS) corr += columns_bytes(&v, value);
    return SKIT_MAX(corr + ALIGN_BYTES, skit_toeplitz_plan_workspace_bytes(plan));
}

static int check_shapes(const toeplitz_view *v, size_t ldx, size_t ldy, size_t lddx, int want_x, int want_dx)
{
    const int rows = v->layout == SKIT_LAYOUT_ROWS;
    /* a column's rows (n for x and dx, m for dy), or a row's d values */
    const size_t need_x = rows ? v->d : v->n, need_y = rows ? v->d : v->m;
    const char *what_x = rows ? "d, channels" : "n", *what_y = rows ? "d, channels" : "m";
    if (want_x && ldx < need_x)
        return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu out of range: need ldx >= %zu (%s)", ldx, need_x, what_x);
    if (ldy < need_y) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu out of range: need ldy >= %zu (%s)", ldy, need_y, what_y);
    if (want_dx && lddx < need_x)
        return SKIT_ERROR(SKIT_ESHAPE, "lddx = %zu out of range: need lddx >= %zu (%s)", lddx, need_x, what_x);
    size_t extent;
    if (skit_size_mul(rows ? SKIT_MAX(v->m, v->n) - 1 : v->d - 1, SKIT_MAX(SKIT_MAX(ldx, ldy), lddx), &extent) !=
        SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "leading dimension times %s overflows size_t", rows ? "the rows" : "d");
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
    return check_shapes(v, ldx, ldy, lddx, dcoeffs != NULL, dx != NULL);
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

/* dcoeffs from x and dy in the plan's layout: the rows layout correlates
 * column-major copies, made at the start of the (aligned) work. */
static void correlate(const toeplitz_view *v, const void *x, size_t ldx, const void *dy, size_t ldy,
                      void *dcoeffs, void *work)
{
    const int f32 = v->precision == SKIT_PRECISION_F32;
    const size_t value = f32 ? sizeof(float) : sizeof(double), per = v->m + v->n - 1;
    if (v->layout == SKIT_LAYOUT_ROWS) {
        char *xc = work, *dyc = xc + (v->n * v->d * value + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES;
        if (f32) {
            skit_transpose_ld_f32(x, v->n, v->d, ldx, (float *)xc, v->n);
            skit_transpose_ld_f32(dy, v->m, v->d, ldy, (float *)dyc, v->m);
        } else {
            skit_transpose_ld(x, v->n, v->d, ldx, (double *)xc, v->n);
            skit_transpose_ld(dy, v->m, v->d, ldy, (double *)dyc, v->m);
        }
        x = xc, ldx = v->n, dy = dyc, ldy = v->m;
        work = (char *)work + columns_bytes(v, value);
    }
    if (f32) skit_correlatef_run(v->correlate_f, v->d, 1, x, ldx, 0, dy, ldy, 0, v->shared, dcoeffs, per, work);
    else skit_correlate_run(v->correlate, v->d, 1, x, ldx, 0, dy, ldy, 0, v->shared, dcoeffs, per, work);
    zero_negative_lags(v, dcoeffs, value);
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
    if (status == SKIT_OK && dcoeffs) correlate(&v, x, ldx, dy, ldy, dcoeffs, aligned(work));
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
