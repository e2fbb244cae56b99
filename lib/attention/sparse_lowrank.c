/* sparse_lowrank.c — MRA App. A.2: MRA-2 with R = {b, 1} as a sparse +
 * low-rank approximation A ~ S + L of A = exp(P), P = scale Q K^T. For a
 * budget of m squares of side b (m b^2 entries of S):
 *   - the optimum of ||S||_0 + lambda ||L||_F at that sparsity: S = A on its
 *     m b^2 largest entries (scattered support);
 *   - the optimal block-sparse S: the m squares with the largest
 *     mu'_{b,x,y} = mean of exp(2P) over the square (App. A.2, eq. 10);
 *   - MRA-2's choice: the m squares with the largest mu_{b,x,y}^2 =
 *     exp(2 mean P), the lower bound used as a proxy for mu';
 *   - MRA-2's whole approximation A_1 + A_b: S on the proxy squares plus
 *     L = mu_{b,x,y} on every other square (block constant, rank <= n/b).
 * Everything is computed on exp(P - max P): the relative errors do not
 * depend on the shift, and nothing overflows. O(n^2 d) time, O(n^2)
 * memory (the whole matrix, like the paper's best-possible references). */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention_internal.h"

typedef struct sl_work {
    double *a;              /* exp(P - max P), n x n row-major */
    double *mu2, *mup;      /* per square: mu^2 and mu' (shifted), (n/b)^2 */
    double *mean_p;         /* per square: mean of P - max P */
    double *sq;             /* scratch: n^2 squares */
    uint32_t *idx;          /* scratch: (n/b)^2 */
} sl_work;

static void sl_free(sl_work *w)
{
    free(w->a);
    free(w->mu2);
    free(w->mup);
    free(w->mean_p);
    free(w->sq);
    free(w->idx);
}

/* A = exp(P - max P) and the per-square statistics */
static void sl_fill(size_t n, size_t d, const double *q, size_t ldq, const double *k, size_t ldk,
                    double scale, size_t b, sl_work *w)
{
    /* column-major K Q^T is P row-major: a[i * n + j] = P_ij */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)d, scale, k, (int)ldk, q,
                (int)ldq, 0.0, w->a, (int)n);
    double mx = -INFINITY;
    for (size_t i = 0; i < n * n; i++) mx = fmax(mx, w->a[i]);
    size_t nb = n / b;
    for (size_t s = 0; s < nb * nb; s++) w->mean_p[s] = w->mup[s] = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double pij = w->a[i * n + j] - mx, e = exp(pij);
            size_t s = (i / b) * nb + j / b;
            w->mean_p[s] += pij / (double)(b * b);
            w->mup[s] += e * e / (double)(b * b);
            w->a[i * n + j] = e;
        }
    for (size_t s = 0; s < nb * nb; s++) w->mu2[s] = exp(2 * w->mean_p[s]);
}

/* sum of A^2 outside the squares of `chosen` (1 = in S): summed directly,
 * not as total - kept, which cancels to ~eps * total when S holds nearly
 * all of A and then breaks the ordering entry <= block optimal <= proxy */
static double dropped_energy(size_t n, size_t b, const double *a, const unsigned char *chosen)
{
    size_t nb = n / b;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (!chosen[(i / b) * nb + j / b]) s += a[i * n + j] * a[i * n + j];
    return s;
}

/* the m squares with the largest key -> chosen (0/1, (n/b)^2) */
static void top_squares(size_t count, size_t m, const double *key, uint32_t *idx, unsigned char *chosen)
{
    for (size_t s = 0; s < count; s++) idx[s] = (uint32_t)s;
    attn_select_top(idx, count, m, key);
    memset(chosen, 0, count);
    for (size_t t = 0; t < m; t++) chosen[idx[t]] = 1;
}

/* ||A - S - L||_F^2 with S = A on the chosen squares and L = exp(mean P)
 * (MRA-2's coarse value) on the others */
static double mra_residual(size_t n, size_t b, const sl_work *w, const unsigned char *chosen, double *lfro2)
{
    size_t nb = n / b;
    double r = 0, l2 = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            size_t s = (i / b) * nb + j / b;
            if (chosen[s]) continue;
            double mu = exp(w->mean_p[s]), e = w->a[i * n + j] - mu;
            r += e * e;
            l2 += mu * mu;
        }
    *lfro2 = l2;
    return r;
}

/* S on the m squares MRA-2 ranks last (smallest mu^2) into chosen: the
 * proxy's own order reversed, so that a test of the proxy has a selection
 * it must tell apart from a poor one */
static double reversed_error(size_t n, size_t b, size_t m, sl_work *w, unsigned char *chosen, double total)
{
    size_t count = (n / b) * (n / b);
    for (size_t s = 0; s < count; s++) w->mu2[s] = -w->mu2[s];
    top_squares(count, m, w->mu2, w->idx, chosen);
    for (size_t s = 0; s < count; s++) w->mu2[s] = -w->mu2[s];
    return sqrt(dropped_energy(n, b, w->a, chosen) / total);
}

int skit_mra_sparse_lowrank_evaluate(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                                     size_t ldk, double scale, size_t b, size_t m,
                                     skit_mra_sparse_lowrank *result, unsigned char *proxy_support,
                                     unsigned char *optimal_support, unsigned char *entry_support)
{
    SKIT_REQUIRE_PTR(result);
    SKIT_TRY(attn_check_scale(scale));
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    if (b < 1 || n % b) return SKIT_ERROR(SKIT_ESHAPE, "b = %zu: need b >= 1 dividing n = %zu", b, n);
    size_t nb = n / b;
    if (m > nb * nb) return SKIT_ERROR(SKIT_EDOM, "m = %zu out of range: need m <= (n/b)^2 = %zu", m, nb * nb);
    if (n > 8192) return SKIT_ERROR(SKIT_ETOOBIG, "n = %zu: the whole n x n matrix is formed; need n <= 8192", n);
    sl_work w = {0};
    w.a = malloc(n * n * sizeof(double));
    w.sq = malloc(n * n * sizeof(double));
    w.mu2 = malloc(nb * nb * sizeof(double));
    w.mup = malloc(nb * nb * sizeof(double));
    w.mean_p = malloc(nb * nb * sizeof(double));
    w.idx = malloc(nb * nb * sizeof(uint32_t));
    unsigned char *proxy = malloc(nb * nb), *opt = malloc(nb * nb);
    if (!w.a || !w.sq || !w.mu2 || !w.mup || !w.mean_p || !w.idx || !proxy || !opt) {
        sl_free(&w);
        free(proxy);
        free(opt);
        return SKIT_ERROR(SKIT_ENOMEM, "sparse + low rank: n = %zu", n);
    }
    sl_fill(n, d, q, ldq, k, ldk, scale, b, &w);
    double total = 0;
    for (size_t i = 0; i < n * n; i++) total += w.a[i] * w.a[i];
    memset(result, 0, sizeof *result);
    result->block = b;
    result->squares = m;
    result->nnz = m * b * b;
    /* Jensen: mu^2 <= mu' on every square */
    result->min_jensen_gap = INFINITY;
    for (size_t s = 0; s < nb * nb; s++)
        result->min_jensen_gap = fmin(result->min_jensen_gap, (w.mup[s] - w.mu2[s]) / w.mup[s]);
    top_squares(nb * nb, m, w.mup, w.idx, opt);
    top_squares(nb * nb, m, w.mu2, w.idx, proxy);
    size_t common = 0;
    for (size_t s = 0; s < nb * nb; s++) common += opt[s] && proxy[s];
    result->support_overlap = m ? (double)common / (double)m : 1;
    result->block_optimal = sqrt(dropped_energy(n, b, w.a, opt) / total);
    result->block_proxy = sqrt(dropped_energy(n, b, w.a, proxy) / total);
    double lfro2;
    result->mra = sqrt(mra_residual(n, b, &w, proxy, &lfro2) / total);
    result->lowrank_norm = sqrt(lfro2 / total);
    /* the optimal scattered support: the m b^2 largest entries */
    size_t keep = m * b * b;
    for (size_t i = 0; i < n * n; i++) w.sq[i] = w.a[i] * w.a[i];
    double thr = keep ? attn_kth_largest(w.sq, n * n, keep - 1) : INFINITY, dropped = 0;
    size_t above = 0, ties = 0;
    for (size_t i = 0; i < n * n; i++) {
        double e2 = w.a[i] * w.a[i];
        if (e2 > thr)
            above++;
        else if (e2 == thr)
            ties++;
        else
            dropped += e2;
    }
    /* of the entries tied at the threshold, keep - above are kept */
    if (ties > keep - above) dropped += (double)(ties - (keep - above)) * thr;
    result->entry_optimal = sqrt(dropped / total);
    if (entry_support) {
        size_t left = keep - above;
        for (size_t i = 0; i < n * n; i++) {
            double e2 = w.a[i] * w.a[i];
            entry_support[i] = e2 > thr || (e2 == thr && left && left--);
        }
    }
    if (proxy_support) memcpy(proxy_support, proxy, nb * nb);
    if (optimal_support) memcpy(optimal_support, opt, nb * nb);
    result->block_reversed = reversed_error(n, b, m, &w, proxy, total);
    sl_free(&w);
    free(proxy);
    free(opt);
    return SKIT_OK;
}
