/* bounds.c — Lemma 4.1 (mu* versus mu on a square) and Proposition 4.5 (the
 * error of R = {b, 1} with m_1 refined squares) evaluated on given Q, K.
 * Both work in shifted or ratio forms so that no logit scale overflows. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

/* log(e^r - 1) for r > 0 without overflow */
static double log_expm1(double r)
{
    if (r <= 0) return -INFINITY;
    return r > 30 ? r + log1p(-exp(-r)) : log(expm1(r));
}

static int check_common(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                        size_t ldk, double scale, size_t s, const char *sname)
{
    SKIT_TRY(attn_check_scale(scale));
    if (scale < 0)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need scale >= 0", scale);
    if (s == 0) return SKIT_ERROR(SKIT_EDOM, "%s = 0 out of range: need %s >= 1", sname, sname);
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    if (n % s)
        return SKIT_ERROR(SKIT_ESHAPE, "%s = %zu does not divide n = %zu: need n a multiple of %s",
                          sname, s, n, sname);
    if (n > (size_t)INT32_MAX) return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n < 2^31", n);
    return SKIT_OK;
}

/* Per block of s rows of x: max row 2-norm and diameter (max pairwise
 * distance), both times sqrt(scale). */
static void block_geometry(size_t n, size_t d, const double *x, size_t ldx, size_t s,
                           double rs, double *norm, double *diam)
{
    size_t rows = n / s;
    for (size_t b = 0; b < rows; b++) {
        double mn = 0, md = 0;
        for (size_t i = b * s; i < b * s + s; i++) {
            double sq = 0;
            for (size_t c = 0; c < d; c++) sq += x[i + c * ldx] * x[i + c * ldx];
            if (sq > mn) mn = sq;
            for (size_t j = i + 1; j < b * s + s; j++) {
                double dd = 0;
                for (size_t c = 0; c < d; c++) {
                    double t = x[i + c * ldx] - x[j + c * ldx];
                    dd += t * t;
                }
                if (dd > md) md = dd;
            }
        }
        norm[b] = rs * sqrt(mn);
        diam[b] = rs * sqrt(md);
    }
}

int skit_mra_lemma41_evaluate(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                              size_t ldk, double scale, size_t s, skit_mra_lemma41 *res)
{
    SKIT_REQUIRE_PTR(res);
    SKIT_TRY(check_common(n, d, q, ldq, k, ldk, scale, s, "s"));
    size_t rows = n / s, tile;
    if (skit_size_mul(s, n, &tile)) return SKIT_ERROR(SKIT_EOVERFLOW, "tile size overflows");
    SKIT_TRY(skit_memory_check((tile + 4 * rows) * sizeof(double), "Lemma 4.1 scratch"));
    double *p = skit_malloc(tile + 4 * rows, sizeof(double));
    if (!p) return SKIT_ENOMEM;
    double *nq = p + tile, *dq = nq + rows, *nk = dq + rows, *dk = nk + rows;
    double rs = sqrt(scale);
    block_geometry(n, d, q, ldq, s, rs, nq, dq);
    block_geometry(n, d, k, ldk, s, rs, nk, dk);
    memset(res, 0, sizeof *res);
    res->min_gap = INFINITY;
    double range_sum = 0;
    for (size_t x = 0; x < rows; x++) {
        /* logits of the s queries of block x against every key */
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)s, (int)n, (int)d, scale,
                    q + x * s, (int)ldq, k, (int)ldk, 0.0, p, (int)s);
        for (size_t y = 0; y < rows; y++) {
            double sum = 0, lo = INFINITY, hi = -INFINITY;
            for (size_t c = y * s; c < y * s + s; c++)
                for (size_t a = 0; a < s; a++) {
                    double v = p[a + c * s];
                    sum += v;
                    if (v < lo) lo = v;
                    if (v > hi) hi = v;
                }
            double mean = sum / ((double)s * (double)s);
            /* (mu* - mu)/mu = mean(exp(P - mean P)) - 1, summed as expm1 */
            double acc = 0;
            for (size_t c = y * s; c < y * s + s; c++)
                for (size_t a = 0; a < s; a++) acc += expm1(p[a + c * s] - mean);
            double gap = acc / ((double)s * (double)s);
            double r = hi - lo;
            double cr = expm1(r / 2) * expm1(r / 2); /* C_r = (e^{r/2} - 1)^2 */
            double rh = 2.0 * SKIT_MAX(nq[x], nk[y]) * SKIT_MAX(dq[x], dk[y]);
            double crh = expm1(rh / 2) * expm1(rh / 2);
            /* rounding allowance: a few ulps of the terms summed */
            double tol = 64 * 2.220446049250313e-16 * (1.0 + fabs(gap));
            if (gap < -tol) res->lower_violations++;
            if (gap > cr * (1 + 1e-12) + tol) res->upper_violations++;
            if (gap > crh * (1 + 1e-12) + tol) res->holder_violations++;
            double ratio = cr > 0 ? gap / cr : (fabs(gap) <= tol ? 0.0 : INFINITY);
            double ratio_h = crh > 0 ? gap / crh : (fabs(gap) <= tol ? 0.0 : INFINITY);
            if (ratio > res->max_ratio) res->max_ratio = ratio;
            if (ratio_h > res->max_ratio_holder) res->max_ratio_holder = ratio_h;
            if (gap < res->min_gap) res->min_gap = gap;
            if (gap > res->max_gap) res->max_gap = gap;
            range_sum += r;
            if (r > res->max_range) res->max_range = r;
            if (rh > res->max_holder_range) res->max_holder_range = rh;
            res->blocks++;
        }
    }
    res->mean_range = range_sum / (double)res->blocks;
    skit_free(p);
    return SKIT_OK;
}

int skit_mra_prop45_evaluate(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                             size_t ldk, double scale, size_t b, size_t m1, skit_mra_prop45 *res)
{
    SKIT_REQUIRE_PTR(res);
    SKIT_TRY(check_common(n, d, q, ldq, k, ldk, scale, b, "b"));
    size_t rows = n / b, nsq, tile;
    if (rows > 65535) return SKIT_ERROR(SKIT_ETOOBIG, "n/b = %zu: need n/b < 65536", rows);
    nsq = rows * rows;
    if (m1 > nsq)
        return SKIT_ERROR(SKIT_EDOM, "m1 = %zu out of range: need m1 <= (n/b)^2 (= %zu)", m1, nsq);
    if (skit_size_mul(b, n, &tile)) return SKIT_ERROR(SKIT_EOVERFLOW, "tile size overflows");
    size_t total = tile + 2 * nsq;
    SKIT_TRY(skit_memory_check(total * sizeof(double) + nsq * (sizeof(uint32_t) + 1),
                               "Proposition 4.5 scratch"));
    double *p = skit_malloc(total, sizeof(double));
    uint32_t *idx = skit_malloc(nsq, sizeof(uint32_t));
    unsigned char *exact = skit_malloc(nsq, 1);
    if (!p || !idx || !exact) {
        skit_free(p);
        skit_free(idx);
        skit_free(exact);
        return SKIT_ENOMEM;
    }
    double *coarse = p + tile, *key = coarse + nsq;
    /* log mu = coarse logit (the block mean of P); Algorithm 1 refines the
     * m1 largest, with no row normalisation */
    int status = skit_mra_coarse_logits(n, d, q, ldq, k, ldk, scale, b, NULL, coarse, rows);
    if (status != SKIT_OK) goto done;
    for (size_t t = 0; t < nsq; t++) {
        idx[t] = (uint32_t)t;
        key[t] = coarse[t];
        exact[t] = 0;
    }
    attn_select_top(idx, nsq, m1, key);
    double log_delta = -INFINITY;
    if (m1 == 0) {
        for (size_t t = 0; t < nsq; t++)
            if (coarse[t] > log_delta) log_delta = coarse[t];
    } else {
        log_delta = INFINITY;
        for (size_t t = 0; t < m1; t++) {
            exact[idx[t]] = 1;
            if (coarse[idx[t]] < log_delta) log_delta = coarse[idx[t]];
        }
    }
    /* pass 1: global max of P (the shift) */
    double pmax = -INFINITY;
    for (size_t x = 0; x < rows; x++) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)n, (int)d, scale,
                    q + x * b, (int)ldq, k, (int)ldk, 0.0, p, (int)b);
        for (size_t t = 0; t < tile; t++)
            if (p[t] > pmax) pmax = p[t];
    }
    /* pass 2: sum exp(2(P - pmax)), error on the coarse squares, ranges */
    double sum2 = 0, err2 = 0, r = 0;
    for (size_t x = 0; x < rows; x++) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)n, (int)d, scale,
                    q + x * b, (int)ldq, k, (int)ldk, 0.0, p, (int)b);
        for (size_t y = 0; y < rows; y++) {
            size_t sq = x + y * rows;
            double lo = INFINITY, hi = -INFINITY;
            double mu = exp(coarse[sq] - pmax);
            for (size_t c = y * b; c < y * b + b; c++)
                for (size_t a = 0; a < b; a++) {
                    double v = p[a + c * b];
                    double e = exp(v - pmax);
                    sum2 += e * e;
                    if (!exact[sq]) err2 += (mu - e) * (mu - e);
                    if (v < lo) lo = v;
                    if (v > hi) hi = v;
                }
            if (hi - lo > r) r = hi - lo;
        }
    }
    memset(res, 0, sizeof *res);
    res->refined = m1;
    res->range = r;
    res->log_delta = log_delta;
    res->measured = sqrt(err2 / sum2);
    double count = (double)n * (double)n - (double)m1 * (double)b * (double)b;
    double log_bound = count > 0 ? 0.5 * (log(count) + 2.0 * log_expm1(r) +
                                          2.0 * (log_delta - pmax) - log(sum2))
                                 : -INFINITY;
    res->bound = exp(log_bound);
    res->holds = res->measured <= res->bound * (1 + 1e-12) + 1e-300;
done:
    skit_free(p);
    skit_free(idx);
    skit_free(exact);
    return status;
}
