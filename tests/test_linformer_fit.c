/* test_linformer_fit.c — linformer-fit: F fitted to the head by least
 * squares. Its output must be the orthogonal projection of the exact
 * output Y = S V onto the columns of P = softmax(scale Q (E K)^T), here
 * computed independently (segment-mean E, the n x n softmax and a
 * Gram-Schmidt basis of P's columns) at odd, prime and square sizes, with
 * and without padding, for two V on one fit (F does not depend on V). Also
 * the oracle property (never worse than Linformer with the same E, nor
 * than random projections), refits, and the errors. */
#include "config.h"

#include "check_util.h"

/* The segment-mean P (n x kp, ld n) of the valid tokens, as the header
 * documents it: segment t holds tokens [t n/kp, (t+1) n/kp); segments
 * without a valid token get weight 0; masked query rows are 0. */
static void ref_pooled_weights(size_t n, size_t d, size_t kp, const double *q, const double *k,
                               const unsigned char *mask, double scale, double *p)
{
    double *km = calloc(kp * d, sizeof(double));
    int *valid = calloc(kp, sizeof(int));
    ck_assert(km && valid);
    for (size_t t = 0; t < kp; t++) {
        size_t lo = t * n / kp, hi = (t + 1) * n / kp, cnt = 0;
        for (size_t i = lo; i < hi; i++)
            if (!mask || mask[i]) {
                cnt++;
                for (size_t c = 0; c < d; c++) km[t + c * kp] += k[i + c * n];
            }
        valid[t] = cnt > 0;
        for (size_t c = 0; c < d && cnt; c++) km[t + c * kp] /= (double)cnt;
    }
    for (size_t i = 0; i < n; i++) {
        double mx = -INFINITY, sum = 0;
        for (size_t t = 0; t < kp; t++) {
            double l = 0;
            for (size_t c = 0; c < d; c++) l += q[i + c * n] * km[t + c * kp];
            p[i + t * n] = valid[t] ? scale * l : -INFINITY;
            if (p[i + t * n] > mx) mx = p[i + t * n];
        }
        for (size_t t = 0; t < kp; t++) sum += p[i + t * n] = valid[t] ? exp(p[i + t * n] - mx) : 0.0;
        for (size_t t = 0; t < kp; t++) p[i + t * n] = mask && !mask[i] ? 0.0 : p[i + t * n] / sum;
    }
    free(km);
    free(valid);
}

/* Y = softmax(scale Q K^T) V with masked keys dropped, masked rows 0. */
static void ref_exact(size_t n, size_t d, size_t dv, const double *q, const double *k, const double *v,
                      const unsigned char *mask, double scale, double *y)
{
    double *w = malloc(n * sizeof(double));
    ck_assert_ptr_nonnull(w);
    for (size_t i = 0; i < n; i++) {
        double mx = -INFINITY, sum = 0;
        for (size_t j = 0; j < n; j++) {
            double l = 0;
            for (size_t c = 0; c < d; c++) l += q[i + c * n] * k[j + c * n];
            w[j] = !mask || mask[j] ? scale * l : -INFINITY;
            if (w[j] > mx) mx = w[j];
        }
        for (size_t j = 0; j < n; j++) sum += w[j] = exp(w[j] - mx);
        for (size_t c = 0; c < dv; c++) {
            double acc = 0;
            for (size_t j = 0; j < n; j++) acc += w[j] * v[j + c * n];
            y[i + c * n] = mask && !mask[i] ? 0.0 : acc / sum;
        }
    }
    free(w);
}

/* y (n x dv) replaced by its orthogonal projection onto the columns of p
 * (n x kp): modified Gram-Schmidt, each column orthogonalised twice,
 * columns dependent to 1e-12 dropped. p is overwritten by the basis. */
static void ref_project(size_t n, size_t kp, double *p, size_t dv, double *y)
{
    size_t rank = 0;
    for (size_t t = 0; t < kp; t++) {
        double *col = p + t * n, before = 0, after = 0;
        for (size_t i = 0; i < n; i++) before += col[i] * col[i];
        for (int pass = 0; pass < 2; pass++)
            for (size_t b = 0; b < rank; b++) {
                double dot = 0, *basis = p + b * n;
                for (size_t i = 0; i < n; i++) dot += basis[i] * col[i];
                for (size_t i = 0; i < n; i++) col[i] -= dot * basis[i];
            }
        for (size_t i = 0; i < n; i++) after += col[i] * col[i];
        if (!(after > 1e-24 * before) || after == 0) continue;
        double *dst = p + rank * n, inv = 1.0 / sqrt(after);
        for (size_t i = 0; i < n; i++) dst[i] = col[i] * inv;
        rank++;
    }
    double *proj = calloc(n * dv, sizeof(double));
    ck_assert_ptr_nonnull(proj);
    for (size_t c = 0; c < dv; c++)
        for (size_t b = 0; b < rank; b++) {
            double dot = 0;
            for (size_t i = 0; i < n; i++) dot += p[i + b * n] * y[i + c * n];
            for (size_t i = 0; i < n; i++) proj[i + c * n] += dot * p[i + b * n];
        }
    memcpy(y, proj, n * dv * sizeof(double));
    free(proj);
}

static skit_attention_plan *fitted_plan(size_t n, size_t d, size_t dv, size_t kp, double scale,
                                        skit_linformer_projection e, const double *q, const double *k,
                                        const unsigned char *mask)
{
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_LINFORMER_FIT);
    o.rank = kp;
    o.scale = scale;
    o.linformer_projection = e;
    skit_attention_plan *plan = NULL;
    TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
    TU_EXPECT_OK(skit_attention_plan_fit(plan, q, n, k, n, mask));
    return plan;
}

/* The plan's output: every entry written (y poisoned first), stats 2 n k. */
static void run(const skit_attention_plan *plan, size_t n, size_t dv, size_t kp, const double *q, const double *k,
                const double *v, const unsigned char *mask, double *y)
{
    tu_poison(y, n * dv);
    skit_attention_stats stats;
    TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, mask, y, n, &stats));
    for (size_t i = 0; i < n * dv; i++) ck_assert_msg(isfinite(y[i]), "y[%zu] = %g", i, y[i]);
    ck_assert(stats.entries == 2.0 * (double)n * (double)kp);
}

static double rel_error(size_t n, size_t dv, const double *y_hat, const double *y)
{
    double err;
    TU_EXPECT_OK(skit_attention_relative_error(n, dv, y_hat, n, y, n, &err));
    return err;
}

static unsigned char *padding(size_t n)
{
    unsigned char *mask = malloc(n);
    ck_assert_ptr_nonnull(mask);
    for (size_t i = 0; i < n; i++) mask[i] = i % 7 != 2 && i + 2 < n;
    return mask;
}

START_TEST(test_fit_is_the_projection)
{
    const uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t ns[] = {13, 31, 50, 97}, ks[] = {1, 2, 5, 7, 0 /* = n */};
    const size_t d = 6, dv = 3;
    const double scale = 0.8;
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof ks / sizeof ks[0]; b++)
            for (int masked = 0; masked < 2; masked++) {
                const size_t n = ns[a], kp = ks[b] ? ks[b] : n;
                double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d);
                double *v = tu_random(&rng, 2 * n * dv); /* two V, one fit */
                double *p = tu_alloc(n * kp), *ref = tu_alloc(n * dv), *y = tu_alloc(n * dv);
                unsigned char *mask = masked ? padding(n) : NULL;
                skit_attention_plan *plan = fitted_plan(n, d, dv, kp, scale, SKIT_LINFORMER_POOLING, q, k, mask);
                for (int which = 0; which < 2; which++) {
                    const double *vv = v + (size_t)which * n * dv;
                    ref_exact(n, d, dv, q, k, vv, mask, scale, ref);
                    ref_pooled_weights(n, d, kp, q, k, mask, scale, p);
                    ref_project(n, kp, p, dv, ref);
                    run(plan, n, dv, kp, q, k, vv, mask, y);
                    double err = tu_rel_error(y, ref, n * dv);
                    ck_assert_msg(err < 1e-8, "n %zu k %zu mask %d V %d: max error %g against the projection (seed %llu)",
                                  n, kp, masked, which, err, (unsigned long long)seed);
                }
                skit_attention_plan_destroy(plan);
                free(mask);
                skit_free(q); skit_free(k); skit_free(v); skit_free(p); skit_free(ref); skit_free(y);
            }
}
END_TEST

/* No F with the same E does better on the head it was fitted to: not
 * Linformer's seeded F (same seed: the same Gaussian E), not the segment
 * means (pooling's F = E); and at k = n with segment means (E = I) the
 * fit reproduces exact attention. */
START_TEST(test_fit_is_an_oracle)
{
    const uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 67, d = 8, dv = 4;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
    const double scale = 0.7;
    ref_exact(n, d, dv, q, k, v, NULL, scale, ref);
    const size_t ks[] = {3, 9, 20};
    const skit_linformer_projection es[] = {SKIT_LINFORMER_GAUSSIAN, SKIT_LINFORMER_POOLING};
    for (size_t b = 0; b < 3; b++)
        for (size_t e = 0; e < 2; e++) {
            skit_attention_plan *fit = fitted_plan(n, d, dv, ks[b], scale, es[e], q, k, NULL), *random = NULL;
            run(fit, n, dv, ks[b], q, k, v, NULL, y);
            double err_fit = rel_error(n, dv, y, ref);
            skit_attention_options o;
            skit_attention_options_init(&o, SKIT_ATTENTION_LINFORMER);
            o.rank = ks[b];
            o.scale = scale;
            o.linformer_projection = es[e];
            TU_EXPECT_OK(skit_attention_plan_create(&random, n, d, dv, &o));
            run(random, n, dv, ks[b], q, k, v, NULL, y);
            double err_random = rel_error(n, dv, y, ref);
            ck_assert_msg(err_fit <= err_random * (1 + 1e-9) + 1e-12,
                          "k %zu E %d: fitted %g > linformer %g (seed %llu)", ks[b], (int)es[e], err_fit, err_random,
                          (unsigned long long)seed);
            skit_attention_plan_destroy(fit);
            skit_attention_plan_destroy(random);
        }
    skit_attention_plan *full = fitted_plan(n, d, dv, n, scale, SKIT_LINFORMER_POOLING, q, k, NULL);
    run(full, n, dv, n, q, k, v, NULL, y);
    ck_assert_msg(rel_error(n, dv, y, ref) < 1e-8, "k = n: %g", rel_error(n, dv, y, ref));
    skit_attention_plan_destroy(full);
    skit_free(q); skit_free(k); skit_free(v); skit_free(y); skit_free(ref);
}
END_TEST

/* A refit replaces F: fitting head A then head B gives B's fresh fit, bit
 * for bit (tests/test_attention_rows.c fits in the rows layout). */
START_TEST(test_refit_replaces)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t n = 41, d = 5, dv = 2, kp = 6;
    double *qa = tu_random(&rng, n * d), *ka = tu_random(&rng, n * d);
    double *qb = tu_random(&rng, n * d), *kb = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *y1 = tu_alloc(n * dv), *y2 = tu_alloc(n * dv);
    skit_attention_plan *twice = fitted_plan(n, d, dv, kp, 0, SKIT_LINFORMER_POOLING, qa, ka, NULL);
    TU_EXPECT_OK(skit_attention_plan_fit(twice, qb, n, kb, n, NULL));
    skit_attention_plan *once = fitted_plan(n, d, dv, kp, 0, SKIT_LINFORMER_POOLING, qb, kb, NULL);
    run(twice, n, dv, kp, qb, kb, v, NULL, y1);
    run(once, n, dv, kp, qb, kb, v, NULL, y2);
    ck_assert(memcmp(y1, y2, n * dv * sizeof(double)) == 0);
    skit_attention_plan_destroy(twice);
    skit_attention_plan_destroy(once);
    skit_free(qa); skit_free(ka); skit_free(qb); skit_free(kb); skit_free(v); skit_free(y1); skit_free(y2);
}
END_TEST

START_TEST(test_fit_errors)
{
    const size_t n = 16, d = 3, dv = 2;
    double q[16 * 3], k[16 * 3], v[16 * 2], y[16 * 2];
    for (size_t i = 0; i < n * d; i++) q[i] = k[i] = 0.1 * (double)(i % 7);
    for (size_t i = 0; i < n * dv; i++) v[i] = (double)i;
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_LINFORMER_FIT);
    ck_assert_int_eq(o.linformer_projection, SKIT_LINFORMER_POOLING);
    o.rank = 4;
    skit_attention_plan *plan = NULL, *other = NULL;
    TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
    /* never fitted: execute refuses */
    TU_EXPECT_STATUS(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL), SKIT_EINVAL);
    ck_assert_msg(strstr(skit_last_error(), "skit_attention_plan_fit") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_attention_plan_fit(NULL, q, n, k, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_fit(plan, NULL, n, k, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_fit(plan, q, n, NULL, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_fit(plan, q, n - 1, k, n, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_plan_fit(plan, q, n, k, n - 1, NULL), SKIT_ESHAPE);
    k[5] = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_fit(plan, q, n, k, n, NULL), SKIT_ENONFINITE);
    k[5] = 0;
    /* a failed fit leaves the plan unfitted */
    TU_EXPECT_STATUS(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_attention_plan_fit(plan, q, n, k, n, NULL));
    TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL));
    TU_EXPECT_STATUS(skit_attention_plan_backward(plan, q, n, k, n, v, n, NULL, NULL, v, n, q, n, NULL, 0, NULL, 0),
                     SKIT_EUNSUPPORTED);
    skit_attention_plan_destroy(plan);
    /* only linformer-fit plans are fitted */
    skit_attention_options_init(&o, SKIT_ATTENTION_LINFORMER);
    o.rank = 4;
    TU_EXPECT_OK(skit_attention_plan_create(&other, n, d, dv, &o));
    TU_EXPECT_STATUS(skit_attention_plan_fit(other, q, n, k, n, NULL), SKIT_EUNSUPPORTED);
    skit_attention_plan_destroy(other);
    /* the options it refuses: causal, float32, the GPU, k out of range, n too large */
    skit_attention_options_init(&o, SKIT_ATTENTION_LINFORMER_FIT);
    o.rank = 4;
    skit_attention_options bad = o;
    bad.causal = 1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EUNSUPPORTED);
    ck_assert_ptr_null(plan);
    bad = o;
    bad.precision = SKIT_PRECISION_F32;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EUNSUPPORTED);
    bad = o;
    bad.device = SKIT_DEVICE_CUDA;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EUNSUPPORTED);
    bad = o;
    bad.rank = 0;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad.rank = n + 1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad = o;
    bad.linformer_projection = (skit_linformer_projection)7;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 70000, d, dv, &o), SKIT_ETOOBIG);
    ck_assert_ptr_null(plan);
    skit_attention_method m;
    TU_EXPECT_OK(skit_attention_method_parse("linformer-fit", &m));
    ck_assert_int_eq(m, SKIT_ATTENTION_LINFORMER_FIT);
}
END_TEST

static Suite *suite_linformer_fit(void)
{
    Suite *s = suite_create("linformer_fit");
    TCase *t = tcase_create("fit");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_fit_is_the_projection);
    tcase_add_test(t, test_fit_is_an_oracle);
    tcase_add_test(t, test_refit_replaces);
    tcase_add_test(t, test_fit_errors);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tu_main(suite_linformer_fit()); }
