/* test_mra_appendix.c — the MRA appendix evaluators (skit/attention.h):
 * App. A.5's Haar bound against a naive computation from the dense P and
 * the Haar transform of its columns, and App. A.2's sparse + low-rank
 * errors against brute force on small n (every support enumerated from the
 * dense matrix), on random sizes including odd d. */
#include "config.h"

#include "check_util.h"

/* P = scale Q K^T dense, row-major p[i * n + j]; Q, K column-major */
static void dense_p(size_t n, size_t d, const double *q, const double *k, double scale, double *p)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t c = 0; c < d; c++) s += q[i + c * n] * k[j + c * n];
            p[i * n + j] = scale * s;
        }
}

static double naive_pnorm(const double *x, size_t stride, size_t d, double p)
{
    double s = 0;
    for (size_t c = 0; c < d; c++) s = isinf(p) ? fmax(s, fabs(x[c * stride])) : s + pow(fabs(x[c * stride]), p);
    return isinf(p) ? s : pow(s, 1 / p);
}

START_TEST(test_haar_bound_matches_naive)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const double ps[] = {1, 1.5, 2, INFINITY};
    for (int rep = 0; rep < 12; rep++) {
        size_t level = 1 + skit_rng_below(&rng, 3), n = ((size_t)1 << level) * (1 + skit_rng_below(&rng, 9));
        size_t d = 1 + skit_rng_below(&rng, 7);
        double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *p = tu_alloc(n * n);
        double *lhs = tu_alloc(n), *rhs = tu_alloc(n), *hq = tu_alloc(n * d);
        dense_p(n, d, q, k, 1.0, p);
        for (int side = 0; side < 2; side++)
            for (size_t pi = 0; pi < 4; pi++) {
                for (size_t j = 0; j < n; j++) lhs[j] = rhs[j] = NAN;
                TU_EXPECT_OK(skit_mra_haar_bound(n, d, q, n, k, n, level, ps[pi], side, lhs, rhs));
                const double *a = side ? k : q, *b = side ? q : k;
                size_t len = (size_t)1 << level, m = n / len;
                double qq = isinf(ps[pi]) ? 1 : ps[pi] == 1 ? INFINITY : ps[pi] / (ps[pi] - 1), hsum = 0;
                for (size_t i = 0; i < m; i++) {
                    for (size_t c = 0; c < d; c++) {
                        double s = 0;
                        for (size_t t = 0; t < len; t++) s += (t < len / 2 ? 1 : -1) * a[i * len + t + c * n];
                        hq[i + c * m] = s / sqrt((double)len);
                    }
                    hsum += naive_pnorm(hq + i, m, d, ps[pi]);
                }
                for (size_t j = 0; j < n; j++) {
                    /* the detail of column j of P (side 0) or row j (side 1) */
                    double l = 0;
                    for (size_t i = 0; i < m; i++) {
                        double s = 0;
                        for (size_t t = 0; t < len; t++) {
                            size_t r = i * len + t;
                            s += (t < len / 2 ? 1 : -1) * (side ? p[j * n + r] : p[r * n + j]);
                        }
                        l += fabs(s) / sqrt((double)len);
                    }
                    double r = hsum * naive_pnorm(b + j, n, d, qq);
                    ck_assert_msg(fabs(lhs[j] - l) <= 1e-12 * (1 + l) && fabs(rhs[j] - r) <= 1e-12 * (1 + r),
                                  "n=%zu d=%zu level=%zu p=%g side=%d j=%zu: %g/%g vs %g/%g (seed %llu)", n, d, level,
                                  ps[pi], side, j, lhs[j], rhs[j], l, r, (unsigned long long)seed);
                    ck_assert(lhs[j] <= rhs[j] * (1 + 1e-12)); /* Hölder */
                }
            }
        skit_free(q);
        skit_free(k);
        skit_free(p);
        skit_free(lhs);
        skit_free(rhs);
        skit_free(hq);
    }
    double x[8] = {0}, l[4], r[4];
    TU_EXPECT_STATUS(skit_mra_haar_bound(4, 2, x, 4, x, 4, 3, 2, 0, l, r), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_haar_bound(4, 2, x, 4, x, 4, 0, 2, 0, l, r), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_haar_bound(4, 2, x, 4, x, 4, 1, 0.5, 0, l, r), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_haar_bound(4, 2, x, 4, x, 4, 1, 2, 0, NULL, r), SKIT_EINVAL);
}
END_TEST

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

#define SQ_CLOSE(x, y) (fabs((x) * (x) - (y) * (y)) <= 1e-12)

/* ||A - A restricted to the squares of `chosen`||_F^2 by brute force */
static double outside(size_t n, size_t b, const double *a, const unsigned char *chosen)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (!chosen[(i / b) * (n / b) + j / b]) s += a[i * n + j] * a[i * n + j];
    return s;
}

/* the m squares of smallest mean logit -> chosen (0/1), by repeated minimum */
static void lowest_mean_squares(size_t n, size_t b, const double *p, size_t m, unsigned char *chosen)
{
    size_t nb = n / b;
    double sum[64];
    for (size_t s = 0; s < nb * nb; s++) {
        sum[s] = 0;
        for (size_t i = 0; i < b; i++)
            for (size_t j = 0; j < b; j++) sum[s] += p[((s / nb) * b + i) * n + (s % nb) * b + j];
    }
    for (size_t t = 0; t < m; t++) {
        size_t low = nb * nb;
        for (size_t s = 0; s < nb * nb; s++)
            if (!chosen[s] && (low == nb * nb || sum[s] < sum[low])) low = s;
        chosen[low] = 1;
    }
}

START_TEST(test_sparse_lowrank_matches_brute_force)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int rep = 0; rep < 10; rep++) {
        size_t b = 1 + skit_rng_below(&rng, 4), nb = 2 + skit_rng_below(&rng, 5), n = b * nb;
        size_t d = 1 + skit_rng_below(&rng, 5), m = skit_rng_below(&rng, nb * nb + 1);
        double scale = 0.3 + skit_rng_uniform(&rng);
        double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *p = tu_alloc(n * n), *a = tu_alloc(n * n);
        dense_p(n, d, q, k, scale, p);
        double total = 0;
        for (size_t i = 0; i < n * n; i++) {
            a[i] = exp(p[i]);
            total += a[i] * a[i];
        }
        unsigned char *proxy = calloc(nb * nb, 1), *opt = calloc(nb * nb, 1), *entry = calloc(n * n, 1);
        skit_mra_sparse_lowrank r;
        TU_EXPECT_OK(skit_mra_sparse_lowrank_evaluate(n, d, q, n, k, n, scale, b, m, &r, proxy, opt, entry));
        /* the optimal block support: no other choice of m squares keeps more energy */
        double sq_energy[64], kept = 0;
        for (size_t s = 0; s < nb * nb; s++) {
            sq_energy[s] = 0;
            for (size_t i = 0; i < b; i++)
                for (size_t j = 0; j < b; j++) {
                    double v = a[((s / nb) * b + i) * n + (s % nb) * b + j];
                    sq_energy[s] += v * v;
                }
        }
        qsort(sq_energy, nb * nb, sizeof(double), cmp_desc);
        for (size_t s = 0; s < m; s++) kept += sq_energy[s];
        double e_opt = sqrt(fmax(total - kept, 0) / total);
        /* squared errors compared: total - kept cancels to ~eps total when S is nearly all of A */
        ck_assert_msg(SQ_CLOSE(r.block_optimal, e_opt), "block optimal %g vs %g", r.block_optimal, e_opt);
        ck_assert(SQ_CLOSE(r.block_optimal, sqrt(outside(n, b, a, opt) / total)));
        ck_assert(SQ_CLOSE(r.block_proxy, sqrt(outside(n, b, a, proxy) / total)));
        /* the proxy squares: the m largest mean logits */
        for (size_t s = 0; s < nb * nb; s++)
            for (size_t t = 0; t < nb * nb; t++) {
                if (!proxy[s] || proxy[t]) continue;
                double ms = 0, mt = 0;
                for (size_t i = 0; i < b; i++)
                    for (size_t j = 0; j < b; j++) {
                        ms += p[((s / nb) * b + i) * n + (s % nb) * b + j];
                        mt += p[((t / nb) * b + i) * n + (t % nb) * b + j];
                    }
                ck_assert_msg(ms >= mt - 1e-9, "proxy square %zu (sum %g) below unchosen %zu (%g)", s, ms, t, mt);
            }
        /* the control: the m smallest mean logits, the proxy's order reversed */
        unsigned char *last = calloc(nb * nb, 1);
        lowest_mean_squares(n, b, p, m, last);
        ck_assert(SQ_CLOSE(r.block_reversed, sqrt(outside(n, b, a, last) / total)));
        free(last);
        /* the entry optimum: the m b^2 largest entries */
        double *sorted = tu_alloc(n * n), ent = 0;
        for (size_t i = 0; i < n * n; i++) sorted[i] = a[i] * a[i];
        qsort(sorted, n * n, sizeof(double), cmp_desc);
        for (size_t i = 0; i < m * b * b; i++) ent += sorted[i];
        ck_assert_msg(SQ_CLOSE(r.entry_optimal, sqrt(fmax(total - ent, 0) / total)), "entry optimal %g vs %g (n=%zu b=%zu m=%zu)", r.entry_optimal, sqrt(fmax(total - ent, 0) / total), n, b, m);
        size_t count = 0;
        for (size_t i = 0; i < n * n; i++) count += entry[i];
        ck_assert_uint_eq(count, m * b * b);
        /* MRA-2's S + L: L = exp(mean P) on the unchosen squares */
        double res = 0, l2 = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                size_t s = (i / b) * nb + j / b;
                if (proxy[s]) continue;
                double mean = 0;
                for (size_t u = 0; u < b; u++)
                    for (size_t v = 0; v < b; v++) mean += p[((s / nb) * b + u) * n + (s % nb) * b + v] / (double)(b * b);
                res += (a[i * n + j] - exp(mean)) * (a[i * n + j] - exp(mean));
                l2 += exp(2 * mean);
            }
        ck_assert(SQ_CLOSE(r.mra, sqrt(res / total)));
        ck_assert(SQ_CLOSE(r.lowrank_norm, sqrt(l2 / total)));
        /* squares compared: each is a sum over n^2 entries, good to ~n^2 eps of the total */
        ck_assert_msg(r.entry_optimal * r.entry_optimal <= r.block_optimal * r.block_optimal + 1e-12 &&
                          r.block_optimal * r.block_optimal <= r.block_proxy * r.block_proxy + 1e-12,
                      "entry %g <= block optimal %g <= proxy %g fails (n=%zu b=%zu m=%zu seed %llu)", r.entry_optimal,
                      r.block_optimal, r.block_proxy, n, b, m, (unsigned long long)seed);
        ck_assert(r.min_jensen_gap >= -1e-12);
        skit_free(q);
        skit_free(k);
        skit_free(p);
        skit_free(a);
        skit_free(sorted);
        free(proxy);
        free(opt);
        free(entry);
    }
    double x[8] = {0};
    skit_mra_sparse_lowrank r;
    TU_EXPECT_STATUS(skit_mra_sparse_lowrank_evaluate(4, 2, x, 4, x, 4, 1, 3, 1, &r, NULL, NULL, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_sparse_lowrank_evaluate(4, 2, x, 4, x, 4, 1, 2, 5, &r, NULL, NULL, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_sparse_lowrank_evaluate(4, 2, x, 4, x, 4, 1, 2, 1, NULL, NULL, NULL, NULL), SKIT_EINVAL);
}
END_TEST

static Suite *suite_mra_appendix(void)
{
    Suite *s = suite_create("mra_appendix");
    TCase *tc = tcase_create("mra_appendix");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_haar_bound_matches_naive);
    tcase_add_test(tc, test_sparse_lowrank_matches_brute_force);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_mra_appendix()); }
