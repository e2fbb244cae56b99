/* pwl.c — Proposition 1: breakpoints of ReLU MLPs and the exactness of
 * piecewise-linear interpolation through them (skit/freq.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "mlp/mlp_internal.h"
#include "skit/mlp.h"

#define MAX_DEPTH 80

typedef struct search {
    const skit_mlp *mlp;
    size_t units;
    double *pre, *y;             /* scratch for one evaluation */
    unsigned char *patterns;     /* (MAX_DEPTH + 2) x units sign patterns */
    double tol;
    double *breaks;
    size_t capacity, count;
    int status;
} search;

static int pattern_at(search *s, double x, unsigned char *pattern)
{
    int st = skit_mlp_preactivations(s->mlp, &x, s->pre, s->y);
    if (st != SKIT_OK) return st;
    for (size_t i = 0; i < s->units; i++) pattern[i] = s->pre[i] > 0;
    return SKIT_OK;
}

/* Bisect [lo, hi] (patterns plo, phi) down to width tol, recording one
 * breakpoint per final interval whose end patterns differ; both halves are
 * searched, so several breakpoints inside one step are all found. */
static void bisect(search *s, double lo, double hi, const unsigned char *plo,
                   const unsigned char *phi, size_t depth)
{
    if (s->status != SKIT_OK || memcmp(plo, phi, s->units) == 0) return;
    if (hi - lo <= s->tol || depth >= MAX_DEPTH) {
        if (s->count < s->capacity) s->breaks[s->count] = 0.5 * (lo + hi);
        s->count++;
        return;
    }
    double mid = 0.5 * (lo + hi);
    unsigned char *pmid = s->patterns + (depth + 2) * s->units;
    s->status = pattern_at(s, mid, pmid);
    if (s->status != SKIT_OK) return;
    bisect(s, lo, mid, plo, pmid, depth + 1);
    /* the left recursion reused deeper slots only; pmid is still intact */
    bisect(s, mid, hi, pmid, phi, depth + 1);
}

int skit_relu_breakpoints(const skit_mlp *mlp, double a, double b, size_t grid, double *breaks,
                          size_t capacity, size_t *count)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(count);
    if (capacity > 0) SKIT_REQUIRE_PTR(breaks);
    if (skit_mlp_in_dim(mlp) != 1)
        return SKIT_ERROR(SKIT_ESHAPE, "MLP in_dim = %zu: breakpoints need in_dim = 1",
                          skit_mlp_in_dim(mlp));
    if (!isfinite(a) || !isfinite(b) || !(a < b))
        return SKIT_ERROR(SKIT_EDOM, "interval [%g, %g] invalid: need finite a < b", a, b);
    if (grid < 1 || grid > ((size_t)1 << 24))
        return SKIT_ERROR(SKIT_EDOM, "grid = %zu out of range: need 1 <= grid <= 2^24", grid);
    if (skit_mlp_activation_of(mlp) != SKIT_ACTIVATION_RELU)
        return SKIT_ERROR(SKIT_EINVAL, "breakpoints need a ReLU MLP (Proposition 1); this MLP's "
                                       "activation is not ReLU");
    search s = {0};
    s.mlp = mlp;
    s.units = skit_mlp_preactivation_count(mlp);
    s.tol = 1e-14 * (b - a);
    s.breaks = breaks;
    s.capacity = capacity;
    s.pre = skit_malloc(s.units, sizeof(double));
    s.y = skit_malloc(skit_mlp_out_dim(mlp), sizeof(double));
    s.patterns = skit_malloc((MAX_DEPTH + 3) * s.units, sizeof(unsigned char));
    if (!s.pre || !s.y || !s.patterns) {
        s.status = SKIT_ENOMEM;
        goto done;
    }
    unsigned char *p0 = s.patterns, *p1 = s.patterns + s.units;
    s.status = pattern_at(&s, a, p0);
    for (size_t j = 0; j < grid && s.status == SKIT_OK; j++) {
        double lo = a + (b - a) * (double)j / (double)grid;
        double hi = j + 1 == grid ? b : a + (b - a) * (double)(j + 1) / (double)grid;
        s.status = pattern_at(&s, hi, p1);
        if (s.status != SKIT_OK) break;
        bisect(&s, lo, hi, p0, p1, 0);
        memcpy(p0, p1, s.units);
    }
done:
    skit_free(s.pre);
    skit_free(s.y);
    skit_free(s.patterns);
    if (s.status != SKIT_OK) return s.status;
    *count = s.count;
    if (s.count > capacity)
        return SKIT_ERROR(SKIT_ESHAPE, "found %zu breakpoints: capacity %zu is too small", s.count,
                          capacity);
    return SKIT_OK;
}

int skit_pwl_interpolation_error(const skit_mlp *mlp, double a, double b, const double *breaks,
                                 size_t count, size_t per_piece, double *relative_error)
{
    SKIT_REQUIRE_PTR(mlp);
    SKIT_REQUIRE_PTR(relative_error);
    if (count > 0) SKIT_REQUIRE_PTR(breaks);
    if (skit_mlp_in_dim(mlp) != 1)
        return SKIT_ERROR(SKIT_ESHAPE, "MLP in_dim = %zu: interpolation check needs in_dim = 1",
                          skit_mlp_in_dim(mlp));
    if (!isfinite(a) || !isfinite(b) || !(a < b))
        return SKIT_ERROR(SKIT_EDOM, "interval [%g, %g] invalid: need finite a < b", a, b);
    if (per_piece < 1 || per_piece > 4096)
        return SKIT_ERROR(SKIT_EDOM, "per_piece = %zu out of range: need 1 <= per_piece <= 4096",
                          per_piece);
    for (size_t i = 0; i < count; i++) {
        double lo = i == 0 ? a : breaks[i - 1];
        if (!(breaks[i] > lo) || !(breaks[i] < b))
            return SKIT_ERROR(SKIT_EDOM, "breaks[%zu] = %g: need ascending values inside (%g, %g)",
                              i, breaks[i], a, b);
    }
    size_t pieces = count + 1, stride = per_piece + 1, d = skit_mlp_out_dim(mlp), total;
    /* points: every knot, then per_piece interior points of each piece */
    if (skit_size_mul(pieces, stride, &total) || skit_size_add(total, 1, &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "too many points (count = %zu)", count);
    SKIT_TRY(skit_memory_check(total * (d + 1) * sizeof(double), "interpolation check"));
    double *x = skit_malloc(total, sizeof(double));
    double *y = skit_malloc(total * d, sizeof(double));
    int status = SKIT_ENOMEM;
    if (!x || !y) goto done;
    for (size_t i = 0; i < pieces; i++) {
        double lo = i == 0 ? a : breaks[i - 1], hi = i == count ? b : breaks[i];
        for (size_t j = 0; j < stride; j++) x[i * stride + j] = lo + (hi - lo) * (double)j / (double)stride;
    }
    x[total - 1] = b;
    status = skit_mlp_eval(mlp, total, x, y, NULL);
    if (status != SKIT_OK) goto done;
    double err = 0, scale = 0;
    for (size_t i = 0; i < pieces; i++) {
        const double *ylo = y + i * stride * d, *yhi = y + (i + 1) * stride * d;
        for (size_t j = 1; j < stride; j++) {
            double t = (double)j / (double)stride;
            const double *yj = y + (i * stride + j) * d;
            for (size_t c = 0; c < d; c++) {
                double interp = (1 - t) * ylo[c] + t * yhi[c];
                err = fmax(err, fabs(yj[c] - interp));
                scale = fmax(scale, fabs(yj[c]));
            }
        }
    }
    for (size_t i = 0; i < total * d; i++) scale = fmax(scale, fabs(y[i]));
    *relative_error = scale > 0 ? err / scale : err;
done:
    skit_free(x);
    skit_free(y);
    return status;
}
