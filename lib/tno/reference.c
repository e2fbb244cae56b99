/* reference.c — what an operator is, materialised: its Toeplitz
 * coefficients (skit's layout and the TNN code's length-2n layout), its
 * dense matrices, and the O(n^2) dense product that the fast paths are
 * tested against. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "tno/tno_internal.h"

int skit_tno_plan_coeffs(skit_tno_plan *p, double *coeffs)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(coeffs);
    if (!p->ops->coeffs)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "SKI-TNO has no Toeplitz coefficients (W A W^T is not "
                                             "Toeplitz): use skit_tno_plan_dense");
    return p->ops->coeffs(p, coeffs);
}

int skit_tno_plan_coeffs_reference(skit_tno_plan *p, double *coeffs)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(coeffs);
    if (!p->ops->coeffs)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "SKI-TNO has no Toeplitz coefficients (W A W^T is not "
                                             "Toeplitz): use skit_tno_plan_dense");
    const size_t n = p->n, d = p->d, per = 2 * n - 1;
    double *t = skit_malloc(d, per * sizeof(double));
    if (!t) return SKIT_ENOMEM;
    int status = p->ops->coeffs(p, t);
    for (size_t c = 0; c < d && status == SKIT_OK; c++) {
        const double *tc = t + c * per;
        double *a = coeffs + c * 2 * n;
        memcpy(a, tc + (n - 1), n * sizeof *a); /* a_0 .. a_{n-1} */
        a[n] = 0.0;                              /* filler */
        for (size_t j = 1; j < n; j++)           /* a_{-(n-j)} at n + j */
            a[n + j] = p->opt.causality == SKIT_CAUSAL ? 0.0 : tc[(n - 1) - (n - j)];
    }
    skit_free(t);
    return status;
}

int skit_tno_plan_dense(skit_tno_plan *p, size_t channel, double *T, size_t ldt)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(T);
    if (channel >= p->d)
        return SKIT_ERROR(SKIT_EDOM, "channel = %zu out of range: need channel < d (= %zu)", channel, p->d);
    if (ldt < p->n) return SKIT_ERROR(SKIT_ESHAPE, "ldt = %zu too small: need ldt >= n (= %zu)", ldt, p->n);
    const size_t n = p->n;
    if (p->ops->dense) {
        SKIT_TRY(p->ops->dense(p, channel, T, ldt));
        if (p->opt.causality == SKIT_CAUSAL)
            for (size_t j = 1; j < n; j++) memset(T + j * ldt, 0, SKIT_MIN(j, n) * sizeof *T);
        return SKIT_OK;
    }
    const size_t per = 2 * n - 1;
    double *t = skit_malloc(p->d, per * sizeof(double));
    if (!t) return SKIT_ENOMEM;
    int status = p->ops->coeffs(p, t);
    if (status == SKIT_OK)
        status = skit_toeplitz_dense(n, n, t + channel * per, p->opt.causality, T, ldt);
    skit_free(t);
    return status;
}

int skit_tno_plan_reference(skit_tno_plan *p, const double *x, double *y, double *magnitude)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    const size_t n = p->n, d = p->d;
    size_t bytes;
    if (skit_size_mul(n, n + 2, &bytes) || skit_size_mul(bytes, sizeof(double), &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "dense reference: n x n (n = %zu) overflows size_t", n);
    SKIT_TRY(skit_memory_check(bytes, "dense reference operator (an n x n matrix)"));
    double *T = skit_malloc(n, n * sizeof(double));
    double *xc = skit_malloc(n, sizeof(double));
    double *yc = skit_malloc(n, sizeof(double));
    double *mc = skit_malloc(n, sizeof(double));
    int status = (T && xc && yc && mc) ? SKIT_OK : SKIT_ENOMEM;
    const int rows = p->opt.layout == SKIT_TNO_ROWS;
    for (size_t c = 0; c < d && status == SKIT_OK; c++) {
        status = skit_tno_plan_dense(p, c, T, n);
        for (size_t b = 0; b < p->batch && status == SKIT_OK; b++) {
            /* element (b, i, c) */
            size_t base = rows ? b * n * d + c : (b * d + c) * n, stride = rows ? d : 1;
            for (size_t i = 0; i < n; i++) {
                xc[i] = x[base + i * stride];
                yc[i] = mc[i] = 0.0;
            }
            for (size_t j = 0; j < n; j++) {
                const double *col = T + j * n;
                double xj = xc[j], aj = fabs(xj);
                for (size_t i = 0; i < n; i++) {
                    yc[i] += col[i] * xj;
                    mc[i] += fabs(col[i]) * aj;
                }
            }
            for (size_t i = 0; i < n; i++) {
                y[base + i * stride] = yc[i];
                if (magnitude) magnitude[base + i * stride] = mc[i];
            }
        }
    }
    skit_free(T);
    skit_free(xc);
    skit_free(yc);
    skit_free(mc);
    return status;
}
