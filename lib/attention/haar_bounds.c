/* haar_bounds.c — MRA App. A.5 (Remark 4.2): the Haar detail coefficients
 * of the columns of P = Q K^T bounded by those of Q,
 *   ||H_k^{P,j}||_1 <= (sum_i ||(H_k^Q)_i||_p) ||K_j||_q,  1/p + 1/q = 1,
 * evaluated column by column (and, transposed, row by row with Q and K
 * swapped). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "attention/attention_internal.h"

/* ||x||_p of d values (p = INFINITY: max) */
static double pnorm(const double *x, size_t d, double p)
{
    double s = 0;
    if (isinf(p)) {
        for (size_t c = 0; c < d; c++) s = fmax(s, fabs(x[c]));
        return s;
    }
    for (size_t c = 0; c < d; c++) s += pow(fabs(x[c]), p);
    return pow(s, 1 / p);
}

/* the orthonormal Haar detail of level `level` along the rows of x (n x d,
 * column-major):
 * h[i] = 2^(-level/2) (sum of the first half of block i - sum of the second),
 * blocks of 2^level rows; h is (n >> level) x d */
static void haar_detail(size_t n, size_t d, const double *x, size_t ldx, size_t level, double *h)
{
    size_t len = (size_t)1 << level, half = len / 2;
    double norm = pow(2.0, -0.5 * (double)level);
    for (size_t i = 0; i < n / len; i++)
        for (size_t c = 0; c < d; c++) {
            double s = 0;
            for (size_t t = 0; t < len; t++) s += (t < half ? 1 : -1) * x[i * len + t + c * ldx];
            h[i * d + c] = norm * s;
        }
}

int skit_mra_haar_bound(size_t n, size_t d, const double *q, size_t ldq, const double *k, size_t ldk,
                        size_t level, double p, int transposed, double *lhs, double *rhs)
{
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    SKIT_REQUIRE_PTR(lhs);
    SKIT_REQUIRE_PTR(rhs);
    if (level < 1 || level > 30 || n % ((size_t)1 << level))
        return SKIT_ERROR(SKIT_ESHAPE, "level = %zu: need 1 <= level and 2^level dividing n = %zu", level, n);
    if (!(p >= 1)) return SKIT_ERROR(SKIT_EDOM, "p = %g out of range: need 1 <= p <= inf", p);
    double qexp = isinf(p) ? 1 : p == 1 ? INFINITY : p / (p - 1);
    /* columns of P: details of Q's rows against K_j; rows of P (P^T = K Q^T):
     * details of K's rows against Q_i */
    const double *a = transposed ? k : q, *b = transposed ? q : k;
    size_t lda = transposed ? ldk : ldq, ldb = transposed ? ldq : ldk, m = n >> level;
    double *h = malloc((m + 1) * d * sizeof(double)), *bj = h ? h + m * d : NULL;
    if (!h) return SKIT_ERROR(SKIT_ENOMEM, "Haar bound: %zu x %zu details", m, d);
    haar_detail(n, d, a, lda, level, h);
    double hsum = 0;
    for (size_t i = 0; i < m; i++) hsum += pnorm(h + i * d, d, p);
    for (size_t j = 0; j < n; j++) {
        for (size_t c = 0; c < d; c++) bj[c] = b[j + c * ldb];
        double s = 0;
        for (size_t i = 0; i < m; i++) {
            double dot = 0;
            for (size_t c = 0; c < d; c++) dot += h[i * d + c] * bj[c];
            s += fabs(dot);
        }
        lhs[j] = s;
        rhs[j] = hsum * pnorm(bj, d, qexp);
    }
    free(h);
    return SKIT_OK;
}
