/* test_attention.c — exact attention against a naive n x n softmax, MRA-2 /
 * MRA-2-s against exact attention (whole budget) and against an independent
 * dense reference of Algorithm 1 (partial budgets), shift invariance, large
 * logit scales, masks, baselines in their exact limits, the frame and Haar
 * transforms, Lemma 4.1 / Proposition 4.5 evaluators, synthetic inputs, and
 * every documented error code. */
#include "config.h"

#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#include "check_util.h"

/* ---- references ------------------------------------------------------------ */

/* Naive softmax attention with the documented mask semantics; causal:
 * query i sees keys j <= i only. */
static void naive_attention_causal(size_t n, size_t d, size_t dv, const double *q, const double *k,
                                   const double *v, double scale, const unsigned char *mask,
                                   int causal, double *y)
{
    double *row = malloc(n * sizeof *row);
    for (size_t i = 0; i < n; i++) {
        double mx = -INFINITY;
        for (size_t j = 0; j < n; j++) {
            double p = 0;
            for (size_t c = 0; c < d; c++) p += q[i + c * n] * k[j + c * n];
            row[j] = scale * p;
            if ((!mask || mask[j]) && !(causal && j > i) && row[j] > mx) mx = row[j];
        }
        double sum = 0;
        for (size_t j = 0; j < n; j++) {
            row[j] = (!mask || mask[j]) && !(causal && j > i) ? exp(row[j] - mx) : 0.0;
            sum += row[j];
        }
        for (size_t c = 0; c < dv; c++) {
            double acc = 0;
            for (size_t j = 0; j < n; j++) acc += row[j] * v[j + c * n];
            y[i + c * n] = (mask && !mask[i]) || sum == 0 ? 0.0 : acc / sum;
        }
    }
    free(row);
}

static void naive_attention(size_t n, size_t d, size_t dv, const double *q, const double *k,
                            const double *v, double scale, const unsigned char *mask, double *y)
{
    naive_attention_causal(n, d, dv, q, k, v, scale, mask, 0, y);
}

typedef struct ref_options {
    size_t L, scales[8], bpr[8], diag;
    int per_row, first, sparse, causal;
} ref_options;

/* Independent dense reference of Algorithm 1 + the merged softmax: every
 * entry (i, j) gets the logit of the level where its square stops being
 * refined (the mean of P over the valid entries of the square), or none. */
static void naive_mra(size_t n, size_t d, size_t dv, const double *q, const double *k,
                      const double *v, double scale, const unsigned char *mask,
                      const ref_options *o, double *y)
{
    double *P = malloc(n * n * sizeof *P), *A = malloc(n * n * sizeof *A);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            double p = 0;
            for (size_t c = 0; c < d; c++) p += q[i + c * n] * k[j + c * n];
            P[i + j * n] = scale * p;
            A[i + j * n] = NAN; /* unassigned */
        }
    /* cand/refined flags for the current level, rows x rows */
    size_t rows = n / o->scales[0];
    unsigned char *cand = calloc(rows * rows, 1);
    memset(cand, 1, rows * rows);
    for (size_t l = 0; l < o->L; l++) {
        size_t s = o->scales[l];
        rows = n / s;
        double *lg = malloc(rows * rows * sizeof *lg);
        for (size_t x = 0; x < rows; x++)
            for (size_t yy = 0; yy < rows; yy++) {
                double sum = 0;
                size_t cnt = 0;
                for (size_t i = x * s; i < x * s + s; i++)
                    for (size_t j = yy * s; j < yy * s + s; j++)
                        if (!mask || (mask[i] && mask[j])) {
                            sum += P[i + j * n];
                            cnt++;
                        }
                lg[x + yy * rows] = cnt && !(o->causal && yy > x) ? sum / (double)cnt : -INFINITY;
            }
        unsigned char *ref = calloc(rows * rows, 1);
        if (l + 1 < o->L) {
            /* scores */
            double *sc = malloc(rows * rows * sizeof *sc);
            double lo = 0;
            for (size_t x = 0; x < rows; x++) {
                double mx = -INFINITY;
                for (size_t yy = 0; yy < rows; yy++)
                    if (cand[x + yy * rows] && lg[x + yy * rows] > mx) mx = lg[x + yy * rows];
                for (size_t yy = 0; yy < rows; yy++) {
                    double v0 = lg[x + yy * rows];
                    double s0 = (mx == -INFINITY || v0 == -INFINITY) ? -INFINITY : v0 - mx;
                    sc[x + yy * rows] = cand[x + yy * rows] ? s0 : NAN;
                    if (cand[x + yy * rows] && s0 < lo) lo = s0;
                }
            }
            for (size_t x = 0; x < rows; x++)
                for (size_t yy = 0; yy < rows; yy++) {
                    size_t dist = x > yy ? x - yy : yy - x, diag = o->causal && !o->diag ? 1 : o->diag;
                    int prior = (diag && dist < diag) || (o->first && (x == 0 || yy == 0));
                    if (cand[x + yy * rows] && prior && sc[x + yy * rows] != -INFINITY)
                        sc[x + yy * rows] += 1.0 - lo;
                }
            /* greedy: repeatedly take the best remaining (ties: never in these tests) */
            size_t total = 0;
            for (size_t t = 0; t < rows * rows; t++) total += cand[t];
            if (o->per_row) {
                for (size_t x = 0; x < rows; x++)
                    for (size_t took = 0; took < o->bpr[l]; took++) {
                        double best = -INFINITY;
                        size_t arg = SIZE_MAX;
                        for (size_t yy = 0; yy < rows; yy++) {
                            size_t id = x + yy * rows;
                            if (cand[id] && !ref[id] && (arg == SIZE_MAX || sc[id] > best)) {
                                best = sc[id];
                                arg = id;
                            }
                        }
                        if (arg == SIZE_MAX) break;
                        ref[arg] = 1;
                    }
            } else {
                size_t M = rows * o->bpr[l];
                if (M > total) M = total;
                for (size_t took = 0; took < M; took++) {
                    double best = -INFINITY;
                    size_t arg = SIZE_MAX;
                    /* ties go to the first in row-major order */
                    for (size_t x = 0; x < rows; x++)
                        for (size_t yy = 0; yy < rows; yy++) {
                            size_t id = x + yy * rows;
                            if (cand[id] && !ref[id] && (arg == SIZE_MAX || sc[id] > best)) {
                                best = sc[id];
                                arg = id;
                            }
                        }
                    ref[arg] = 1;
                }
            }
            free(sc);
        }
        /* assign unrefined candidates of this level */
        int contributes = !o->sparse || l + 1 == o->L;
        for (size_t x = 0; x < rows; x++)
            for (size_t yy = 0; yy < rows; yy++) {
                size_t id = x + yy * rows;
                if (!cand[id] || ref[id] || !contributes) continue;
                for (size_t i = x * s; i < x * s + s; i++)
                    for (size_t j = yy * s; j < yy * s + s; j++) A[i + j * n] = lg[id];
            }
        /* children of refined squares are the next level's candidates */
        if (l + 1 < o->L) {
            size_t r = s / o->scales[l + 1], nrows = rows * r;
            unsigned char *next = calloc(nrows * nrows, 1);
            for (size_t x = 0; x < rows; x++)
                for (size_t yy = 0; yy < rows; yy++)
                    if (ref[x + yy * rows])
                        for (size_t a = 0; a < r; a++)
                            for (size_t c = 0; c < r; c++) next[(x * r + a) + (yy * r + c) * nrows] = 1;
            free(cand);
            cand = next;
        }
        free(ref);
        free(lg);
    }
    free(cand);
    /* softmax of the assigned logits over valid keys */
    for (size_t i = 0; i < n; i++) {
        double mx = -INFINITY;
        for (size_t j = 0; j < n; j++)
            if ((!mask || mask[j]) && !isnan(A[i + j * n]) && A[i + j * n] > mx) mx = A[i + j * n];
        double sum = 0;
        for (size_t j = 0; j < n; j++) {
            double a = A[i + j * n];
            P[j] = ((!mask || mask[j]) && !isnan(a) && a != -INFINITY) ? exp(a - mx) : 0.0;
            sum += P[j];
        }
        for (size_t c = 0; c < dv; c++) {
            double acc = 0;
            for (size_t j = 0; j < n; j++) acc += P[j] * v[j + c * n];
            y[i + c * n] = (mask && !mask[i]) || sum == 0 ? 0.0 : acc / sum;
        }
    }
    free(P);
    free(A);
}

/* Runs a plan, returns the relative L-inf error against ref (n x dv, ld n). */
static double run_plan(const skit_attention_options *o, size_t n, size_t d, size_t dv,
                       const double *q, const double *k, const double *v,
                       const unsigned char *mask, const double *ref)
{
    skit_attention_plan *plan = NULL;
    TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, o));
    double *y = tu_alloc(n * dv);
    TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, mask, y, n, NULL));
    double err = tu_rel_error(y, ref, n * dv);
    skit_free(y);
    skit_attention_plan_destroy(plan);
    return err;
}

static unsigned char *random_mask(skit_rng *rng, size_t n, double keep)
{
    unsigned char *m = malloc(n);
    for (size_t i = 0; i < n; i++) m[i] = skit_rng_uniform(rng) < keep;
    return m;
}

/* ---- exact attention ------------------------------------------------------- */

START_TEST(test_exact_matches_naive)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    size_t sizes[64], count = 0;
    for (size_t n = 1; n <= 40; n++) sizes[count++] = n;
    const size_t extra[] = {63, 64, 65, 97, 100, 127, 128, 129, 211, 256, 331};
    for (size_t t = 0; t < sizeof extra / sizeof *extra; t++) sizes[count++] = extra[t];
    for (size_t t = 0; t < count; t++) {
        size_t n = sizes[t], d = 1 + skit_rng_below(&rng, 70), dv = 1 + skit_rng_below(&rng, 9);
        double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
        double *y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
        double scale = 1.0 / sqrt((double)d);
        naive_attention(n, d, dv, q, k, v, scale, NULL, ref);
        TU_EXPECT_OK(skit_attention_exact(n, d, dv, q, n, k, n, v, n, scale, NULL, y, n));
        double err = tu_rel_error(y, ref, n * dv);
        ck_assert_msg(err < 1e-12, "n=%zu d=%zu dv=%zu err=%g seed=%llu", n, d, dv, err,
                      (unsigned long long)seed);
        skit_free(q);
        skit_free(k);
        skit_free(v);
        skit_free(y);
        skit_free(ref);
    }
}
END_TEST

START_TEST(test_exact_leading_dimensions_and_wide_heads)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    /* d = 300 takes the serial (OpenBLAS-threaded) path with larger tiles */
    const size_t ds[] = {300, 5};
    for (size_t t = 0; t < 2; t++) {
        size_t n = 131, d = ds[t], dv = 7, ld = n + 3;
        double *q = tu_random(&rng, ld * d), *k = tu_random(&rng, ld * d), *v = tu_random(&rng, ld * dv);
        double *qc = tu_alloc(n * d), *kc = tu_alloc(n * d), *vc = tu_alloc(n * dv);
        for (size_t c = 0; c < d; c++)
            for (size_t i = 0; i < n; i++) {
                qc[i + c * n] = q[i + c * ld];
                kc[i + c * n] = k[i + c * ld];
            }
        for (size_t c = 0; c < dv; c++)
            for (size_t i = 0; i < n; i++) vc[i + c * n] = v[i + c * ld];
        double *y = tu_alloc(ld * dv), *ref = tu_alloc(n * dv);
        naive_attention(n, d, dv, qc, kc, vc, 0.05, NULL, ref);
        TU_EXPECT_OK(skit_attention_exact(n, d, dv, q, ld, k, ld, v, ld, 0.05, NULL, y, ld));
        for (size_t c = 0; c < dv; c++)
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(fabs(y[i + c * ld] - ref[i + c * n]) < 1e-12, "d=%zu", d);
        skit_free(q); skit_free(k); skit_free(v); skit_free(qc); skit_free(kc); skit_free(vc);
        skit_free(y); skit_free(ref);
    }
}
END_TEST

START_TEST(test_exact_masks)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t sizes[] = {1, 2, 7, 33, 64, 97, 130};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        size_t n = sizes[t], d = 8, dv = 3;
        double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
        double *y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
        unsigned char *mask = random_mask(&rng, n, 0.7);
        naive_attention(n, d, dv, q, k, v, 0.3, mask, ref);
        TU_EXPECT_OK(skit_attention_exact(n, d, dv, q, n, k, n, v, n, 0.3, mask, y, n));
        ck_assert(tu_rel_error(y, ref, n * dv) < 1e-12);
        for (size_t i = 0; i < n; i++)
            if (!mask[i])
                for (size_t c = 0; c < dv; c++) ck_assert(y[i + c * n] == 0.0);
        /* all keys masked: every row is 0 */
        memset(mask, 0, n);
        TU_EXPECT_OK(skit_attention_exact(n, d, dv, q, n, k, n, v, n, 0.3, mask, y, n));
        for (size_t i = 0; i < n * dv; i++) ck_assert(y[i] == 0.0);
        free(mask);
        skit_free(q); skit_free(k); skit_free(v); skit_free(y); skit_free(ref);
    }
}
END_TEST

START_TEST(test_exact_huge_logits_finite)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 200, d = 16, dv = 4;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
    const double scales[] = {30.0 / sqrt(16.0), 300.0, 1e6};
    for (size_t t = 0; t < 3; t++) {
        naive_attention(n, d, dv, q, k, v, scales[t], NULL, ref);
        TU_EXPECT_OK(skit_attention_exact(n, d, dv, q, n, k, n, v, n, scales[t], NULL, y, n));
        for (size_t i = 0; i < n * dv; i++) ck_assert(isfinite(y[i]));
        ck_assert(tu_rel_error(y, ref, n * dv) < 1e-9);
    }
    skit_free(q); skit_free(k); skit_free(v); skit_free(y); skit_free(ref);
}
END_TEST

START_TEST(test_matrix_entropy_relative_error)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 45, d = 6;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d);
    double *s = tu_alloc(n * n), *h = tu_alloc(n);
    unsigned char *mask = random_mask(&rng, n, 0.8);
    mask[0] = 1;
    TU_EXPECT_OK(skit_attention_matrix(n, d, q, n, k, n, 0.7, mask, s, n));
    double mean;
    TU_EXPECT_OK(skit_attention_entropy(n, d, q, n, k, n, 0.7, mask, h, &mean));
    double total = 0;
    size_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0, ent = 0;
        for (size_t j = 0; j < n; j++) {
            double p = s[i + j * n];
            ck_assert(p >= 0);
            if (!mask[j] || !mask[i]) ck_assert(p == 0.0);
            sum += p;
            if (p > 0) ent -= p * log(p);
        }
        if (mask[i]) {
            ck_assert_msg(fabs(sum - 1) < 1e-13, "row %zu sums to %g", i, sum);
            ck_assert_msg(fabs(ent - h[i]) < 1e-11, "entropy %g vs %g", ent, h[i]);
            total += ent;
            rows++;
        } else {
            ck_assert(h[i] == 0.0);
        }
    }
    ck_assert(fabs(total / (double)rows - mean) < 1e-11);
    /* uniform attention: entropy log n */
    memset(q, 0, n * d * sizeof *q);
    TU_EXPECT_OK(skit_attention_entropy(n, d, q, n, k, n, 1.0, NULL, NULL, &mean));
    ck_assert(fabs(mean - log((double)n)) < 1e-12);
    double a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 6}, err;
    TU_EXPECT_OK(skit_attention_relative_error(2, 2, b, 2, a, 2, &err));
    ck_assert(fabs(err - 2.0 / sqrt(30.0)) < 1e-15);
    free(mask);
    skit_free(q); skit_free(k); skit_free(s); skit_free(h);
}
END_TEST

/* ---- MRA ------------------------------------------------------------------- */

static void set_levels(skit_attention_options *o, size_t L, const size_t *scales)
{
    o->levels = L;
    for (size_t l = 0; l < L; l++) o->scales[l] = scales[l];
}

START_TEST(test_mra_full_budget_equals_exact)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    struct {
        size_t n, L, scales[4];
    } cases[] = {{32, 2, {4, 1}},     {64, 2, {8, 1}},       {96, 2, {32, 1}},
                 {128, 2, {16, 1}},   {64, 3, {16, 4, 1}},   {128, 3, {32, 8, 1}},
                 {96, 4, {16, 8, 2, 1}}, {256, 2, {32, 1}},  {192, 3, {64, 2, 1}}};
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++)
        for (int method = SKIT_ATTENTION_MRA2; method <= SKIT_ATTENTION_MRA2_SPARSE; method++)
            for (int sel = 0; sel < 2; sel++)
                for (int masked = 0; masked < 4; masked++) {
                    /* masked: bit 0 padding, bit 1 causal */
                    size_t n = cases[t].n, d = 1 + skit_rng_below(&rng, 20), dv = 1 + skit_rng_below(&rng, 5);
                    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d),
                           *v = tu_random(&rng, n * dv), *ref = tu_alloc(n * dv);
                    unsigned char *mask = masked & 1 ? random_mask(&rng, n, 0.75) : NULL;
                    double scale = 0.5;
                    naive_attention_causal(n, d, dv, q, k, v, scale, mask, masked >> 1, ref);
                    skit_attention_options o;
                    skit_attention_options_init(&o, method);
                    o.scale = scale;
                    o.causal = masked >> 1;
                    o.selection = sel;
                    set_levels(&o, cases[t].L, cases[t].scales);
                    for (size_t l = 0; l + 1 < cases[t].L; l++) o.blocks_per_row[l] = n / cases[t].scales[l];
                    double err = run_plan(&o, n, d, dv, q, k, v, mask, ref);
                    ck_assert_msg(err < 1e-10, "case %zu method %d sel %d mask %d: err %g seed %llu", t,
                                  method, sel, masked, err, (unsigned long long)seed);
                    free(mask);
                    skit_free(q); skit_free(k); skit_free(v); skit_free(ref);
                }
}
END_TEST

START_TEST(test_mra_partial_budget_matches_reference)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    struct {
        size_t n, L, scales[4];
    } cases[] = {{64, 2, {8, 1}}, {128, 2, {16, 1}}, {96, 2, {32, 1}}, {128, 3, {32, 8, 1}},
                 {128, 3, {16, 4, 1}}, {64, 4, {16, 8, 2, 1}}, {128, 3, {32, 4, 2}}};
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++)
        for (int rep = 0; rep < 12; rep++) {
            int causal = rep >= 6; /* causal MRA needs the finest scale 1 */
            if (causal && cases[t].scales[cases[t].L - 1] != 1) continue;
            size_t n = cases[t].n, L = cases[t].L, d = 2 + skit_rng_below(&rng, 12), dv = 3;
            double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d),
                   *v = tu_random(&rng, n * dv), *ref = tu_alloc(n * dv);
            /* smooth-ish rows so coarse squares differ meaningfully */
            skit_attention_options o;
            int method = rep % 2 ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2;
            skit_attention_options_init(&o, method);
            o.scale = 0.8;
            o.selection = (rep / 2) % 2;
            o.diagonal_prior = rep % 6 >= 4 ? 2 : 0;
            o.first_block_prior = rep % 6 == 5;
            o.causal = causal;
            set_levels(&o, L, cases[t].scales);
            ref_options ro = {.L = L, .diag = o.diagonal_prior, .per_row = o.selection,
                              .first = o.first_block_prior, .sparse = rep % 2, .causal = causal};
            for (size_t l = 0; l < L; l++) ro.scales[l] = cases[t].scales[l];
            for (size_t l = 0; l + 1 < L; l++) {
                size_t rows = n / cases[t].scales[l];
                o.blocks_per_row[l] = ro.bpr[l] = 1 + skit_rng_below(&rng, rows > 2 ? rows / 2 : 1);
            }
            naive_mra(n, d, dv, q, k, v, o.scale, NULL, &ro, ref);
            double err = run_plan(&o, n, d, dv, q, k, v, NULL, ref);
            ck_assert_msg(err < 1e-10, "case %zu rep %d: err %g seed %llu", t, rep, err,
                          (unsigned long long)seed);
            skit_free(q); skit_free(k); skit_free(v); skit_free(ref);
        }
}
END_TEST

START_TEST(test_mra_masked_partial_matches_reference)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int rep = 0; rep < 16; rep++) {
        size_t n = 128, d = 6, dv = 2;
        double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv),
               *ref = tu_alloc(n * dv);
        unsigned char *mask = random_mask(&rng, n, 0.8);
        /* a fully masked block exercises empty squares */
        memset(mask + 16, 0, 16);
        skit_attention_options o;
        skit_attention_options_init(&o, rep % 2 ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2);
        o.scale = 0.7;
        o.block = 16;
        o.blocks_per_row[0] = 2; /* well below the 7 valid key blocks per row */
        o.selection = (rep / 4) % 2;
        o.causal = rep >= 8;
        ref_options ro = {.L = 2, .scales = {16, 1}, .bpr = {2}, .per_row = (int)o.selection,
                          .sparse = rep % 2, .causal = o.causal};
        naive_mra(n, d, dv, q, k, v, o.scale, mask, &ro, ref);
        double err = run_plan(&o, n, d, dv, q, k, v, mask, ref);
        ck_assert_msg(err < 1e-10, "rep %d err %g seed %llu", rep, err, (unsigned long long)seed);
        free(mask);
        skit_free(q); skit_free(k); skit_free(v); skit_free(ref);
    }
}
END_TEST

/* Corner cases of the global budget's threshold search (a radix select over
 * the scores, collecting the threshold's bucket when it is small): exact
 * ties (every coarse logit 0, so the budget goes to the first squares in
 * row-major order and later query blocks keep no refined square) both more
 * numerous than the collection pool (found by a scan) and within it, ties
 * mostly in the second half of the rows (zero_q = 2), and candidate sets
 * whose threshold bucket needs further digits; per-row selection sees the
 * same ties. Each against the dense reference. */
START_TEST(test_mra_selection_ties_and_digits)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    struct {
        size_t n, s, bpr, d;
        int zero_q;
    } cases[] = {{256, 8, 2, 5, 1}, {256, 8, 16, 5, 1}, {256, 8, 2, 5, 2}, {1024, 4, 1, 4, 0},
                 {768, 4, 3, 3, 0}};
    size_t nmax = 1024, dmax = 5, dv = 2;
    double *q = tu_alloc(nmax * dmax), *k = tu_alloc(nmax * dmax), *v = tu_alloc(nmax * dv);
    double *ref = tu_alloc(nmax * dv);
    unsigned char *mask = malloc(nmax);
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++)
        for (int combo = 0; combo < 8; combo++) {
            int method = combo & 1 ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2;
            int sel = (combo >> 1) & 1, masked = combo >> 2;
            size_t n = cases[t].n, d = cases[t].d, from = cases[t].zero_q == 2 ? n / 2 : 0;
            for (size_t i = 0; i < n * d; i++) {
                q[i] = cases[t].zero_q && i % n >= from ? 0.0 : skit_rng_normal(&rng);
                k[i] = skit_rng_normal(&rng);
            }
            for (size_t i = 0; i < n * dv; i++) v[i] = skit_rng_normal(&rng);
            for (size_t i = 0; i < n; i++) /* with an empty block when masked */
                mask[i] = !masked || (skit_rng_uniform(&rng) < 0.8 && (i < n / 2 || i >= n / 2 + cases[t].s));
            skit_attention_options o;
            skit_attention_options_init(&o, method);
            o.scale = 0.5;
            o.block = cases[t].s;
            o.blocks_per_row[0] = cases[t].bpr;
            o.selection = sel;
            ref_options ro = {.L = 2, .scales = {cases[t].s, 1}, .bpr = {cases[t].bpr},
                              .per_row = sel, .sparse = method == SKIT_ATTENTION_MRA2_SPARSE};
            naive_mra(n, d, dv, q, k, v, o.scale, masked ? mask : NULL, &ro, ref);
            double err = run_plan(&o, n, d, dv, q, k, v, masked ? mask : NULL, ref);
            ck_assert_msg(err < 1e-10, "case %zu method %d sel %d mask %d: err %g seed %llu", t,
                          method, sel, masked, err, (unsigned long long)seed);
        }
    free(mask);
    skit_free(q); skit_free(k); skit_free(v); skit_free(ref);
}
END_TEST

/* Extreme inputs. MRA plans check Q, K, V for NaN/Inf through their block
 * means (and scan the inputs only when a mean is not finite, or with a
 * mask): every non-finite entry, masked token or not, is still refused
 * before y is written, and finite values whose block sum overflows are
 * accepted. Logits that overflow (inf, and NaN where inf - inf) must not
 * derail the selection's bookkeeping: the plans run and return. */
START_TEST(test_mra_extreme_inputs)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 128, d = 4, dv = 2;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *y = tu_alloc(n * dv);
    unsigned char *mask = random_mask(&rng, n, 0.5);
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int combo = 0; combo < 4; combo++) {
        skit_attention_options o;
        skit_attention_options_init(&o, combo & 1 ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2);
        o.block = 8;
        o.blocks_per_row[0] = 3;
        o.selection = combo >> 1;
        skit_attention_plan *plan;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
        for (int rep = 0; rep < 24; rep++) {
            double *x = rep % 3 == 0 ? q : rep % 3 == 1 ? k : v;
            size_t at = skit_rng_below(&rng, n * (x == v ? dv : d));
            double keep = x[at];
            x[at] = bad[rep % 3];
            for (size_t i = 0; i < n * dv; i++) y[i] = 7.0;
            TU_EXPECT_STATUS(skit_attention_plan_execute(plan, q, n, k, n, v, n,
                                                         rep % 2 ? mask : NULL, y, n, NULL),
                             SKIT_ENONFINITE);
            for (size_t i = 0; i < n * dv; i++) ck_assert(y[i] == 7.0);
            x[at] = keep;
        }
        v[8] = v[9] = 1e308; /* one block's sum overflows */
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL));
        v[8] = v[9] = 0.5;
        for (size_t i = 0; i < n * d; i++) {
            q[i] *= 1e200;
            k[i] *= 1e200;
        }
        skit_attention_stats st;
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, &st));
        ck_assert_uint_le(st.refined[0], 16 * 3);
        for (size_t i = 0; i < n * d; i++) {
            q[i] *= 1e-200;
            k[i] *= 1e-200;
        }
        skit_attention_plan_destroy(plan);
    }
    free(mask);
    skit_free(q); skit_free(k); skit_free(v); skit_free(y);
}
END_TEST

START_TEST(test_mra_coarse_logits_are_block_means)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t ss[] = {1, 2, 4, 8, 16, 48};
    size_t n = 96, d = 7;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d);
    for (size_t t = 0; t < sizeof ss / sizeof *ss; t++) {
        size_t s = ss[t], rows = n / s;
        double *c = tu_alloc(rows * rows);
        TU_EXPECT_OK(skit_mra_coarse_logits(n, d, q, n, k, n, 0.9, s, NULL, c, rows));
        for (size_t x = 0; x < rows; x++)
            for (size_t y = 0; y < rows; y++) {
                double sum = 0;
                for (size_t i = x * s; i < x * s + s; i++)
                    for (size_t j = y * s; j < y * s + s; j++) {
                        double p = 0;
                        for (size_t cc = 0; cc < d; cc++) p += q[i + cc * n] * k[j + cc * n];
                        sum += 0.9 * p;
                    }
                double mean = sum / (double)(s * s);
                ck_assert_msg(fabs(c[x + y * rows] - mean) < 1e-12 * (1 + fabs(mean)), "s=%zu", s);
            }
        skit_free(c);
    }
    skit_free(q);
    skit_free(k);
}
END_TEST

START_TEST(test_mra_shift_invariance)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    size_t n = 128, d = 8, dv = 3;
    double *q = tu_random(&rng, n * (d + 1)), *k = tu_random(&rng, n * (d + 1)),
           *v = tu_random(&rng, n * dv);
    double *y0 = tu_alloc(n * dv), *y1 = tu_alloc(n * dv);
    for (int method = 0; method < SKIT_ATTENTION_METHOD_COUNT; method++) {
        if (method != SKIT_ATTENTION_MRA2 && method != SKIT_ATTENTION_MRA2_SPARSE &&
            method != SKIT_ATTENTION_EXACT && method != SKIT_ATTENTION_WINDOW &&
            method != SKIT_ATTENTION_BIGBIRD)
            continue;
        skit_attention_options o;
        skit_attention_options_init(&o, method);
        o.block = 16;
        o.blocks_per_row[0] = 3;
        o.window = method == SKIT_ATTENTION_WINDOW ? 9 : 1;
        o.scale = 0.6;
        skit_attention_plan *plan;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y0, n, NULL));
        skit_attention_plan_destroy(plan);
        const double biases[] = {-30.0, 25.0};
        for (size_t b = 0; b < 2; b++) {
            o.shift_bias = biases[b];
            TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
            TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y1, n, NULL));
            skit_attention_plan_destroy(plan);
            ck_assert_msg(tu_rel_error(y1, y0, n * dv) < 1e-12, "method %d bias %g", method,
                          biases[b]);
        }
    }
    /* a constant added to every logit of a row (extra feature: q = c_i / scale,
     * k = 1) changes nothing: softmax is shift invariant, including the merge
     * of MRA-2's levels (the square means shift by the same c_i) */
    for (int method = SKIT_ATTENTION_MRA2; method <= SKIT_ATTENTION_MRA2_SPARSE; method++) {
        skit_attention_options o;
        skit_attention_options_init(&o, method);
        o.block = 16;
        o.blocks_per_row[0] = 3;
        o.scale = 0.6;
        skit_attention_plan *plan;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d + 1, dv, &o));
        for (size_t i = 0; i < n; i++) {
            q[i + d * n] = 0.0;
            k[i + d * n] = 1.0;
        }
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y0, n, NULL));
        /* constant over each query block of 16: MRA's coarse logits are block
         * means, so per-token shifts inside a block are not an invariance */
        for (size_t i = 0; i < n; i++) q[i + d * n] = (double)(((i / 16) * 37) % 11) * 40.0 / 0.6;
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y1, n, NULL));
        skit_attention_plan_destroy(plan);
        ck_assert_msg(tu_rel_error(y1, y0, n * dv) < 1e-11, "method %d row shift", method);
    }
    skit_free(q); skit_free(k); skit_free(v); skit_free(y0); skit_free(y1);
}
END_TEST

START_TEST(test_mra_30x_logit_scale_finite)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 256, d = 16, dv = 4;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
    double scale = 30.0 / sqrt((double)d);
    naive_attention(n, d, dv, q, k, v, scale, NULL, ref);
    for (int method = SKIT_ATTENTION_MRA2; method <= SKIT_ATTENTION_MRA2_SPARSE; method++)
        for (size_t bpr = 1; bpr <= 8; bpr *= 8) {
            skit_attention_options o;
            skit_attention_options_init(&o, method);
            o.scale = scale;
            o.blocks_per_row[0] = bpr;
            skit_attention_plan *plan;
            TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
            TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL));
            for (size_t i = 0; i < n * dv; i++) ck_assert(isfinite(y[i]));
            if (bpr == 8) ck_assert(tu_rel_error(y, ref, n * dv) < 1e-10);
            skit_attention_plan_destroy(plan);
        }
    skit_free(q); skit_free(k); skit_free(v); skit_free(y); skit_free(ref);
}
END_TEST

START_TEST(test_mra_stats_and_memory)
{
    size_t n = 256, d = 8, dv = 8;
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *y = tu_alloc(n * dv);
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    o.blocks_per_row[0] = 2;
    skit_attention_plan *plan;
    TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
    skit_attention_stats st;
    TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, &st));
    ck_assert_uint_eq(st.levels, 2);
    ck_assert_uint_eq(st.refined[0], 16); /* 8 block rows x 2 */
    ck_assert(fabs(st.entries - (64.0 + 16.0 * 1024.0)) < 1e-9);
    ck_assert(skit_attention_plan_bytes(plan) > 0);
    ck_assert(skit_attention_plan_bytes(NULL) == 0);
    skit_attention_plan_destroy(plan);
    skit_attention_plan_destroy(NULL);
    skit_free(q); skit_free(k); skit_free(v); skit_free(y);
}
END_TEST

/* ---- baselines ----------------------------------------------------------- */

START_TEST(test_baselines_exact_limits)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t sizes[] = {1, 5, 31, 64, 97};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++)
        for (int masked = 0; masked < 2; masked++) {
            size_t n = sizes[t], d = 6, dv = 3;
            double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv),
                   *ref = tu_alloc(n * dv);
            unsigned char *mask = masked ? random_mask(&rng, n, 0.7) : NULL;
            double scale = 0.4;
            naive_attention(n, d, dv, q, k, v, scale, mask, ref);
            struct {
                int method;
                double tol;
            } limits[] = {{SKIT_ATTENTION_EXACT, 1e-12},   {SKIT_ATTENTION_WINDOW, 1e-12},
                          {SKIT_ATTENTION_BIGBIRD, 1e-12}, {SKIT_ATTENTION_LOWRANK, 1e-9},
                          {SKIT_ATTENTION_TOPK, 1e-12},    {SKIT_ATTENTION_NYSTROM, 1e-7},
                          {SKIT_ATTENTION_LINFORMER, 1e-12}};
            for (size_t m = 0; m < sizeof limits / sizeof *limits; m++) {
                skit_attention_options o;
                skit_attention_options_init(&o, limits[m].method);
                o.scale = scale;
                o.window = n;            /* window / bigbird: everything */
                o.block = n < 8 ? n : 8;
                o.rank = n;              /* full rank / all landmarks / k = n */
                o.nonzeros = n * n;
                o.pinv_iterations = 0;   /* SVD pseudo-inverse */
                o.random_blocks = 0;
                o.linformer_projection = SKIT_LINFORMER_POOLING;
                double err = run_plan(&o, n, d, dv, q, k, v, mask, ref);
                ck_assert_msg(err < limits[m].tol, "%s n=%zu mask=%d err=%g seed=%llu",
                              skit_attention_method_name(limits[m].method), n, masked, err,
                              (unsigned long long)seed);
            }
            free(mask);
            skit_free(q); skit_free(k); skit_free(v); skit_free(ref);
        }
}
END_TEST

/* Naive references with explicit patterns for window and top-k. */
START_TEST(test_window_and_topk_patterns)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 77, d = 5, dv = 2;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *y = tu_alloc(n * dv), *ref = tu_alloc(n * dv), *s = tu_alloc(n * n);
    const size_t windows[] = {0, 1, 5, 40};
    for (size_t t = 0; t < 4; t++) {
        size_t w = windows[t];
        for (size_t i = 0; i < n; i++) {
            double mx = -INFINITY, sum = 0, row[77];
            for (size_t j = 0; j < n; j++) {
                double p = 0;
                for (size_t c = 0; c < d; c++) p += q[i + c * n] * k[j + c * n];
                size_t dist = i > j ? i - j : j - i;
                row[j] = dist <= w ? 0.5 * p : -INFINITY;
                if (row[j] > mx) mx = row[j];
            }
            for (size_t j = 0; j < n; j++) sum += row[j] = exp(row[j] - mx);
            for (size_t c = 0; c < dv; c++) {
                double acc = 0;
                for (size_t j = 0; j < n; j++) acc += row[j] * v[j + c * n];
                ref[i + c * n] = acc / sum;
            }
        }
        skit_attention_options o;
        skit_attention_options_init(&o, SKIT_ATTENTION_WINDOW);
        o.scale = 0.5;
        o.window = w;
        ck_assert_msg(run_plan(&o, n, d, dv, q, k, v, NULL, ref) < 1e-12, "window %zu", w);
    }
    /* top-k keeps exactly the largest entries of S */
    TU_EXPECT_OK(skit_attention_matrix(n, d, q, n, k, n, 0.5, NULL, s, n));
    size_t keep = 500;
    double *sorted = malloc(n * n * sizeof *sorted);
    memcpy(sorted, s, n * n * sizeof *s);
    for (size_t a = 0; a < keep; a++) /* partial selection sort: the keep largest */
        for (size_t b = a + 1; b < n * n; b++)
            if (sorted[b] > sorted[a]) { double tmp = sorted[a]; sorted[a] = sorted[b]; sorted[b] = tmp; }
    double thr = sorted[keep - 1];
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < dv; c++) {
            double acc = 0;
            for (size_t j = 0; j < n; j++)
                if (s[i + j * n] >= thr) acc += s[i + j * n] * v[j + c * n];
            ref[i + c * n] = acc;
        }
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_TOPK);
    o.scale = 0.5;
    o.nonzeros = keep;
    ck_assert(run_plan(&o, n, d, dv, q, k, v, NULL, ref) < 1e-12);
    free(sorted);
    skit_free(q); skit_free(k); skit_free(v); skit_free(y); skit_free(ref); skit_free(s);
}
END_TEST

/* BigBird without random blocks against a naive pattern reference: query
 * block x sees key blocks |x - y| <= w and the g global blocks; global query
 * blocks see everything. */
START_TEST(test_bigbird_pattern)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    size_t n = 75, d = 4, dv = 2, b = 8, nb = (n + b - 1) / b;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
    double *ref = tu_alloc(n * dv);
    for (size_t w = 0; w <= 1; w++)
        for (size_t g = 0; g <= 2; g++) {
            for (size_t i = 0; i < n; i++) {
                double row[75], mx = -INFINITY, sum = 0;
                size_t x = i / b;
                for (size_t j = 0; j < n; j++) {
                    size_t y = j / b, dist = x > y ? x - y : y - x;
                    int seen = x < g || y < g || dist <= w;
                    double p = 0;
                    for (size_t c = 0; c < d; c++) p += q[i + c * n] * k[j + c * n];
                    row[j] = seen ? 0.7 * p : -INFINITY;
                    if (row[j] > mx) mx = row[j];
                }
                for (size_t j = 0; j < n; j++) sum += row[j] = exp(row[j] - mx);
                for (size_t c = 0; c < dv; c++) {
                    double acc = 0;
                    for (size_t j = 0; j < n; j++) acc += row[j] * v[j + c * n];
                    ref[i + c * n] = acc / sum;
                }
            }
            skit_attention_options o;
            skit_attention_options_init(&o, SKIT_ATTENTION_BIGBIRD);
            o.scale = 0.7;
            o.block = b;
            o.window = w;
            o.global_blocks = g;
            o.random_blocks = 0;
            ck_assert_msg(run_plan(&o, n, d, dv, q, k, v, NULL, ref) < 1e-12, "w=%zu g=%zu", w, g);
        }
    /* random blocks: each extra block raises the entries by one block's worth */
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_BIGBIRD);
    o.block = b;
    o.window = 0;
    o.global_blocks = 0;
    double entries[3];
    for (size_t r = 0; r < 3; r++) {
        o.random_blocks = r;
        skit_attention_plan *plan;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
        skit_attention_stats st;
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, ref, n, &st));
        entries[r] = st.entries;
        skit_attention_plan_destroy(plan);
    }
    ck_assert(entries[1] > entries[0] && entries[2] > entries[1]);
    ck_assert(entries[2] <= entries[0] + 2.0 * (double)nb * (double)(b * b));
    skit_free(q); skit_free(k); skit_free(v); skit_free(ref);
}
END_TEST

static double plan_error(int method, size_t rank, uint64_t seed, size_t n, size_t d, size_t dv,
                         const double *q, const double *k, const double *v, const double *ref,
                         double *out)
{
    skit_attention_options o;
    skit_attention_options_init(&o, method);
    o.rank = rank;
    o.seed = seed;
    skit_attention_plan *plan;
    TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
    TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, out, n, NULL));
    skit_attention_plan_destroy(plan);
    double err;
    TU_EXPECT_OK(skit_attention_relative_error(n, dv, out, n, ref, n, &err));
    return err;
}

START_TEST(test_random_baselines_seeded_and_converging)
{
    size_t n = 256, d = 16, dv = 4;
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    spec.seed = tu_seed();
    spec.inverse_temperature = 1.0;
    double *q = tu_alloc(n * d), *k = tu_alloc(n * d), *v = tu_alloc(n * dv);
    double *ref = tu_alloc(n * dv), *y1 = tu_alloc(n * dv), *y2 = tu_alloc(n * dv);
    TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, dv, q, n, k, n, v, n));
    TU_EXPECT_OK(skit_attention_exact(n, d, dv, q, n, k, n, v, n, 0.25, NULL, ref, n));
    const int methods[] = {SKIT_ATTENTION_PERFORMER, SKIT_ATTENTION_LINFORMER, SKIT_ATTENTION_NYSTROM};
    for (size_t m = 0; m < 3; m++) {
        double e1 = plan_error(methods[m], 32, 5, n, d, dv, q, k, v, ref, y1);
        double e2 = plan_error(methods[m], 32, 5, n, d, dv, q, k, v, ref, y2);
        ck_assert(memcmp(y1, y2, n * dv * sizeof *y1) == 0); /* same seed, same numbers */
        ck_assert(isfinite(e1) && e1 == e2);
        if (methods[m] != SKIT_ATTENTION_NYSTROM) {
            plan_error(methods[m], 32, 6, n, d, dv, q, k, v, ref, y2);
            ck_assert(memcmp(y1, y2, n * dv * sizeof *y1) != 0);
        }
    }
    /* Performer's estimate converges as features grow (averaged over seeds) */
    double small = 0, large = 0;
    for (uint64_t s = 1; s <= 3; s++) {
        small += plan_error(SKIT_ATTENTION_PERFORMER, 8, s, n, d, dv, q, k, v, ref, y1);
        large += plan_error(SKIT_ATTENTION_PERFORMER, 2048, s, n, d, dv, q, k, v, ref, y1);
    }
    ck_assert_msg(large < 0.4 * small && large / 3 < 0.1, "performer %g -> %g", small / 3, large / 3);
    /* Nyström with Newton–Schulz iterations approaches the SVD pseudo-inverse */
    double it = plan_error(SKIT_ATTENTION_NYSTROM, 64, 1, n, d, dv, q, k, v, ref, y1);
    ck_assert(isfinite(it) && it < 1.0);
    skit_free(q); skit_free(k); skit_free(v); skit_free(ref); skit_free(y1); skit_free(y2);
}
END_TEST

START_TEST(test_budget_needed)
{
    size_t n = 64, d = 8, dv = 3;
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    spec.seed = tu_seed();
    double *q = tu_alloc(n * d), *k = tu_alloc(n * d), *v = tu_alloc(n * dv), *ref = tu_alloc(n * dv),
           *y = tu_alloc(n * dv), *errors = tu_alloc(n + 1);
    TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, dv, q, n, k, n, v, n));
    double scale = 1.0 / sqrt((double)d);
    TU_EXPECT_OK(skit_attention_exact(n, d, dv, q, n, k, n, v, n, scale, NULL, ref, n));
    const double targets[] = {0.1, 0.05, 0.0};
    size_t needed[3];
    TU_EXPECT_OK(skit_attention_budget_needed(SKIT_ATTENTION_LOWRANK, n, d, dv, q, n, k, n, v, n,
                                              scale, 3, targets, needed, errors));
    ck_assert(fabs(errors[0] - 1.0) < 1e-10 && errors[n] < 1e-12);
    ck_assert(needed[0] <= needed[1] && needed[1] <= n && needed[0] >= 1);
    for (size_t t = 0; t < 2; t++) {
        /* the plan at that rank reaches the target; one rank less does not */
        skit_attention_options o;
        skit_attention_options_init(&o, SKIT_ATTENTION_LOWRANK);
        o.rank = needed[t];
        skit_attention_plan *plan;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL));
        skit_attention_plan_destroy(plan);
        double err;
        TU_EXPECT_OK(skit_attention_relative_error(n, dv, y, n, ref, n, &err));
        ck_assert_msg(err <= targets[t] * (1 + 1e-9) && fabs(err - errors[needed[t]]) < 1e-9,
                      "rank %zu err %g profile %g", needed[t], err, errors[needed[t]]);
        ck_assert(errors[needed[t] - 1] > targets[t]);
    }
    TU_EXPECT_OK(skit_attention_budget_needed(SKIT_ATTENTION_TOPK, n, d, dv, q, n, k, n, v, n, scale,
                                              3, targets, needed, NULL));
    ck_assert(needed[0] <= needed[1] && needed[1] <= n * n && needed[0] >= 1);
    for (size_t t = 0; t < 2; t++) {
        skit_attention_options o;
        skit_attention_options_init(&o, SKIT_ATTENTION_TOPK);
        o.nonzeros = needed[t];
        skit_attention_plan *plan;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL));
        skit_attention_plan_destroy(plan);
        double err;
        TU_EXPECT_OK(skit_attention_relative_error(n, dv, y, n, ref, n, &err));
        ck_assert_msg(err <= targets[t] * (1 + 1e-9), "nonzeros %zu err %g", needed[t], err);
    }
    skit_free(q); skit_free(k); skit_free(v); skit_free(ref); skit_free(y); skit_free(errors);
}
END_TEST

/* ---- budgets and entropy targets ------------------------------------------ */

static size_t ref_clamp(double v, size_t lo, size_t hi)
{
    if (!(v >= (double)lo)) return lo;
    if (v >= (double)hi) return hi;
    return (size_t)llround(v);
}

/* The budget -> parameters mapping as `skit mra` computed it before it moved
 * into the library (tools/cmd_mra.c, method_options), kept as the reference
 * the library must reproduce exactly. */
static void ref_budget(int method, size_t n, double f, size_t nscales, const size_t *scales,
                       size_t b, skit_attention_options *mo, double *param)
{
    switch (method) {
    case SKIT_ATTENTION_MRA2:
    case SKIT_ATTENTION_MRA2_SPARSE:
        if (nscales) {
            for (size_t l = 0; l + 1 < nscales; l++)
                mo->blocks_per_row[l] = ref_clamp(f * (double)(n / scales[l]), 1, n / scales[l]);
        } else {
            mo->blocks_per_row[0] = ref_clamp(f * (double)(n / b), 1, n / b);
        }
        *param = (double)mo->blocks_per_row[0];
        break;
    case SKIT_ATTENTION_LOWRANK:
    case SKIT_ATTENTION_NYSTROM:
    case SKIT_ATTENTION_LINFORMER:
    case SKIT_ATTENTION_LINFORMER_FIT:
        mo->rank = ref_clamp(f * (double)n, 1, n);
        *param = (double)mo->rank;
        break;
    case SKIT_ATTENTION_PERFORMER:
        mo->rank = ref_clamp(f * (double)n, 1, (size_t)1 << 20);
        *param = (double)mo->rank;
        break;
    case SKIT_ATTENTION_TOPK:
        mo->nonzeros = ref_clamp(f * (double)n * (double)n, 1, n * n);
        *param = (double)mo->nonzeros;
        break;
    case SKIT_ATTENTION_WINDOW: {
        double want = f * (double)n * (double)n;
        size_t lo = 0, hi = n - 1;
        while (lo < hi) {
            size_t w = lo + (hi - lo) / 2;
            double entries = (double)n * (double)(2 * w + 1) - (double)w * (double)(w + 1);
            if (entries + 0.5 >= want)
                hi = w;
            else
                lo = w + 1;
        }
        mo->window = lo;
        *param = (double)mo->window;
        break;
    }
    case SKIT_ATTENTION_BIGBIRD: {
        size_t nb = (n + b - 1) / b, total = ref_clamp(f * (double)nb, 4, nb + 4);
        mo->window = 1;
        mo->global_blocks = 1;
        size_t avail = nb > 4 ? nb - 4 : 0;
        mo->random_blocks = total - 4 < avail ? total - 4 : avail;
        *param = (double)mo->random_blocks;
        break;
    }
    default: *param = 0; break;
    }
}

/* Every field the mapping may write, and a few it must leave alone. */
static int same_budget_fields(const skit_attention_options *a, const skit_attention_options *b)
{
    return memcmp(a->blocks_per_row, b->blocks_per_row, sizeof a->blocks_per_row) == 0 &&
           memcmp(a->scales, b->scales, sizeof a->scales) == 0 && a->rank == b->rank &&
           a->nonzeros == b->nonzeros && a->window == b->window &&
           a->global_blocks == b->global_blocks && a->random_blocks == b->random_blocks &&
           a->levels == b->levels && a->block == b->block && a->seed == b->seed &&
           a->scale == b->scale && a->method == b->method && a->selection == b->selection;
}

START_TEST(test_options_set_budget_matches_tool)
{
    const size_t ns[] = {64, 100, 256, 1000, 1024, 4096};
    const double budgets[] = {1e-4, 0.01, 0.05, 0.1, 0.25, 0.3333, 0.5, 0.9, 1.0};
    const size_t blocks[] = {16, 32};
    const size_t scales[] = {64, 16, 1};
    size_t checked = 0;
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++)
        for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
            for (size_t ib = 0; ib < sizeof budgets / sizeof budgets[0]; ib++)
                for (size_t il = 0; il < 3; il++) {
                    size_t n = ns[in], b = blocks[il % 2], nscales = il == 2 ? 3 : 0;
                    if (nscales && (m != SKIT_ATTENTION_MRA2 && m != SKIT_ATTENTION_MRA2_SPARSE)) continue;
                    if (nscales && n % 64) continue;
                    skit_attention_options got, want;
                    skit_attention_options_init(&got, m);
                    got.block = b;
                    got.seed = 12345;
                    got.scale = 0.5;
                    if (nscales) {
                        got.levels = nscales;
                        memcpy(got.scales, scales, sizeof scales);
                    }
                    want = got;
                    double param_got = -1, param_want = -1;
                    TU_EXPECT_OK(skit_attention_options_set_budget(&got, n, budgets[ib], &param_got));
                    ref_budget(m, n, budgets[ib], nscales, scales, b, &want, &param_want);
                    ck_assert_msg(same_budget_fields(&got, &want) && param_got == param_want,
                                  "%s n = %zu budget %g block %zu levels %zu: parameter %g, want %g",
                                  skit_attention_method_name(m), n, budgets[ib], b, nscales,
                                  param_got, param_want);
                    checked++;
                }
    ck_assert(checked > 500);

    /* values worked by hand: n = 1024, block 32 */
    skit_attention_options o;
    double p;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    TU_EXPECT_OK(skit_attention_options_set_budget(&o, 1024, 0.1, &p));
    ck_assert(o.blocks_per_row[0] == 3 && p == 3); /* round(0.1 * 32) */
    skit_attention_options_init(&o, SKIT_ATTENTION_TOPK);
    TU_EXPECT_OK(skit_attention_options_set_budget(&o, 1024, 0.1, &p));
    ck_assert(o.nonzeros == 104858); /* round(104857.6) */
    skit_attention_options_init(&o, SKIT_ATTENTION_WINDOW);
    TU_EXPECT_OK(skit_attention_options_set_budget(&o, 1024, 0.05, &p));
    ck_assert(o.window == 26 && p == 26); /* 53570 entries >= 52428.8 > 51574 at w = 25 */
    skit_attention_options_init(&o, SKIT_ATTENTION_BIGBIRD);
    TU_EXPECT_OK(skit_attention_options_set_budget(&o, 1024, 0.25, &p));
    ck_assert(o.window == 1 && o.global_blocks == 1 && o.random_blocks == 4 && p == 4);
    skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
    TU_EXPECT_OK(skit_attention_options_set_budget(&o, 1024, 1.0, NULL));

    /* the budget is what the plan spends: window and topk count their entries */
    const size_t n = 256, d = 4;
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *y = tu_alloc(n * d);
    const int methods[] = {SKIT_ATTENTION_WINDOW, SKIT_ATTENTION_TOPK};
    for (size_t i = 0; i < 2; i++) {
        skit_attention_options_init(&o, methods[i]);
        TU_EXPECT_OK(skit_attention_options_set_budget(&o, n, 0.2, NULL));
        skit_attention_plan *plan;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, d, &o));
        skit_attention_stats stats;
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, q, n, NULL, y, n, &stats));
        skit_attention_plan_destroy(plan);
        ck_assert_msg(stats.work_fraction >= 0.2 - 0.5 / (double)(n * n) &&
                          stats.work_fraction < 0.2 + 2.0 * (double)n / (double)(n * n),
                      "%s: work fraction %g for budget 0.2", skit_attention_method_name(methods[i]),
                      stats.work_fraction);
    }
    skit_free(q);
    skit_free(k);
    skit_free(y);
}
END_TEST

/* The bisection `skit mra --entropy` ran before it moved into the library. */
static double ref_temperature(size_t n, size_t d, const double *q, const double *k, double scale0,
                              double target)
{
    double lo = log(1e-4), hi = log(1e4), h = 0, mid = 0;
    for (int it = 0; it < 60; it++) {
        mid = 0.5 * (lo + hi);
        ck_assert(skit_attention_entropy(n, d, q, n, k, n, scale0 / exp(mid), NULL, NULL, &h) == SKIT_OK);
        if (fabs(h - target) < 1e-6 * target) break;
        if (h < target)
            lo = mid;
        else
            hi = mid;
    }
    return exp(mid);
}

START_TEST(test_temperature_for_entropy)
{
    size_t n = 128, d = 16;
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    spec.seed = tu_seed();
    double *q = tu_alloc(n * d), *k = tu_alloc(n * d);
    TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, 1, q, n, k, n, NULL, n));
    const double scale = 1.0 / sqrt((double)d), targets[] = {0.5, 1.0, 2.5, 4.0, 4.8};
    double last = 0;
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        double tau = 0, h = 0, check;
        TU_EXPECT_OK(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, targets[t], &tau, &h));
        ck_assert_msg(tau == ref_temperature(n, d, q, k, scale, targets[t]),
                      "target %g: tau %.17g differs from the reference bisection", targets[t], tau);
        ck_assert_msg(fabs(h - targets[t]) < 1e-6 * targets[t], "target %g reached %.17g", targets[t], h);
        TU_EXPECT_OK(skit_attention_entropy(n, d, q, n, k, n, scale / tau, NULL, NULL, &check));
        ck_assert(check == h);
        ck_assert(tau > last); /* higher entropy, higher temperature */
        last = tau;
    }
    double tau;
    TU_EXPECT_OK(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, 2.0, &tau, NULL));

    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, 2.0, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, NULL, n, k, n, scale, 2.0, &tau, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, log((double)n), &tau, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, 0.0, &tau, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, NAN, &tau, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, 0.0, 2.0, &tau, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, INFINITY, 2.0, &tau, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(1, d, q, n, k, n, scale, 0.5, &tau, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, 0, q, n, k, n, scale, 2.0, &tau, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n - 1, k, n, scale, 2.0, &tau, NULL), SKIT_ESHAPE);
    q[5] = NAN;
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, 2.0, &tau, NULL), SKIT_ENONFINITE);
    /* Q = 0: uniform rows (entropy log n) at every temperature */
    memset(q, 0, n * d * sizeof *q);
    TU_EXPECT_STATUS(skit_attention_temperature_for_entropy(n, d, q, n, k, n, scale, 2.0, &tau, NULL), SKIT_ENOCONV);
    skit_free(q);
    skit_free(k);
}
END_TEST

START_TEST(test_options_set_budget_errors)
{
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    TU_EXPECT_STATUS(skit_attention_options_set_budget(NULL, 64, 0.1, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 0, 0.1, NULL), SKIT_EDOM);
    const double bad[] = {0.0, -0.5, 1.0 + 1e-12, 2.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, bad[i], NULL), SKIT_EDOM);
    o.block = 0;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EDOM);
    o.block = 128;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EDOM);
    o.block = 32;
    o.levels = 1;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EDOM);
    o.levels = SKIT_MRA_MAX_LEVELS + 1;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EDOM);
    o.levels = 3;
    o.scales[0] = 16;
    o.scales[1] = 0;
    o.scales[2] = 1;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EDOM);
    o.scales[1] = 4;
    TU_EXPECT_OK(skit_attention_options_set_budget(&o, 64, 0.1, NULL));
    skit_attention_options_init(&o, SKIT_ATTENTION_BIGBIRD);
    o.block = 0;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EDOM);
    o.block = 65;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EDOM);
    o.method = SKIT_ATTENTION_METHOD_COUNT;
    TU_EXPECT_STATUS(skit_attention_options_set_budget(&o, 64, 0.1, NULL), SKIT_EINVAL);
}
END_TEST

/* ---- frame and Haar ------------------------------------------------------- */

START_TEST(test_frame_decomposition_and_observation_a1)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    ck_assert_uint_eq(skit_mra_frame_count(8), 85); /* Figure 2 */
    ck_assert_uint_eq(skit_mra_frame_count(1), 1);
    ck_assert_uint_eq(skit_mra_frame_count(6), 0);
    size_t idx;
    TU_EXPECT_OK(skit_mra_frame_index(8, 8, 0, 0, &idx));
    ck_assert_uint_eq(idx, 0);
    TU_EXPECT_OK(skit_mra_frame_index(8, 4, 1, 1, &idx));
    ck_assert_uint_eq(idx, 1 + 1 + 2);
    TU_EXPECT_OK(skit_mra_frame_index(8, 1, 7, 7, &idx));
    ck_assert_uint_eq(idx, 84);
    const size_t sizes[] = {1, 2, 4, 8, 16, 32, 64};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        size_t n = sizes[t], count = skit_mra_frame_count(n);
        double *a = tu_random(&rng, n * n), *alpha = tu_alloc(count), *h = tu_alloc(n * n);
        for (size_t i = 0; i < n * n; i++) a[i] = exp(a[i]); /* like exp(P) */
        /* the whole frame: exact reconstruction */
        TU_EXPECT_OK(skit_mra_frame_decompose(n, a, n, NULL, alpha, h, n));
        ck_assert(tu_rel_error(h, a, n * n) < 1e-13);
        /* random subsets: forms (3) and (5) agree (Observation A.1) */
        unsigned char *sub = malloc(count);
        for (int rep = 0; rep < 5; rep++) {
            double p = 0.1 + 0.2 * rep;
            for (size_t i = 0; i < count; i++) sub[i] = skit_rng_uniform(&rng) < p;
            double diff;
            TU_EXPECT_OK(skit_mra_observation_a1(n, a, n, sub, &diff));
            ck_assert_msg(diff < 1e-13, "n=%zu diff=%g seed=%llu", n, diff, (unsigned long long)seed);
        }
        free(sub);
        skit_free(a); skit_free(alpha); skit_free(h);
    }
}
END_TEST

START_TEST(test_haar_transform)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t sizes[] = {1, 2, 4, 16, 64, 128};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        size_t n = sizes[t], ld = n + 2;
        double *a = tu_random(&rng, ld * n), *c = tu_alloc(n * n), *b = tu_alloc(ld * n);
        TU_EXPECT_OK(skit_haar2d_forward(n, a, ld, c, n));
        double na = 0, nc = 0;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) {
                na += a[i + j * ld] * a[i + j * ld];
                nc += c[i + j * n] * c[i + j * n];
            }
        ck_assert_msg(fabs(na - nc) < 1e-12 * na, "Parseval n=%zu", n);
        TU_EXPECT_OK(skit_haar2d_inverse(n, c, n, b, ld));
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) ck_assert(fabs(b[i + j * ld] - a[i + j * ld]) < 1e-12);
        /* all coefficients kept: exact */
        double thr;
        TU_EXPECT_OK(skit_haar2d_compress(n, a, ld, n * n, b, ld, &thr));
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) ck_assert(fabs(b[i + j * ld] - a[i + j * ld]) < 1e-12);
        /* a constant matrix has one coefficient, c n, at (0, 0) */
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) a[i + j * ld] = 3.0;
        TU_EXPECT_OK(skit_haar2d_forward(n, a, ld, c, n));
        for (size_t i = 0; i < n * n; i++)
            ck_assert(fabs(c[i] - (i == 0 ? 3.0 * (double)n : 0.0)) < 1e-12 * (double)n);
        TU_EXPECT_OK(skit_haar2d_compress(n, a, ld, 1, b, ld, &thr));
        ck_assert(fabs(thr - 3.0 * (double)n) < 1e-12 * (double)n);
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++) ck_assert(fabs(b[i + j * ld] - 3.0) < 1e-12);
        skit_free(a); skit_free(c); skit_free(b);
    }
}
END_TEST

/* ---- Lemma 4.1, Proposition 4.5 ---------------------------------------------- */

START_TEST(test_lemma41_and_prop45_hold)
{
    uint64_t seed = tu_seed();
    size_t n = 128, d = 16;
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    spec.seed = seed;
    double *q = tu_alloc(n * d), *k = tu_alloc(n * d);
    const double betas[] = {0.5, 4.0, 20.0};
    for (size_t t = 0; t < 3; t++) {
        spec.inverse_temperature = betas[t];
        TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, 1, q, n, k, n, NULL, n));
        const size_t ss[] = {1, 4, 16};
        for (size_t u = 0; u < 3; u++) {
            skit_mra_lemma41 r;
            TU_EXPECT_OK(skit_mra_lemma41_evaluate(n, d, q, n, k, n, 0.25, ss[u], &r));
            ck_assert_uint_eq(r.blocks, (n / ss[u]) * (n / ss[u]));
            ck_assert_msg(r.lower_violations == 0 && r.upper_violations == 0 &&
                              r.holder_violations == 0,
                          "beta %g s %zu: %zu %zu %zu", betas[t], ss[u], r.lower_violations,
                          r.upper_violations, r.holder_violations);
            ck_assert(r.max_ratio <= 1 + 1e-9 && r.max_ratio_holder <= r.max_ratio + 1e-12);
            ck_assert(r.min_gap >= -1e-12);
            if (ss[u] == 1) ck_assert(r.max_range == 0 && r.max_gap < 1e-15);
        }
        const size_t m1s[] = {0, 10, 40, 64};
        for (size_t u = 0; u < 4; u++) {
            skit_mra_prop45 r;
            TU_EXPECT_OK(skit_mra_prop45_evaluate(n, d, q, n, k, n, 0.25, 16, m1s[u], &r));
            ck_assert_msg(r.holds && r.measured <= r.bound, "beta %g m1 %zu: %g > %g", betas[t],
                          m1s[u], r.measured, r.bound);
            if (m1s[u] == 64) ck_assert(r.measured == 0.0);
        }
    }
    skit_free(q);
    skit_free(k);
}
END_TEST

/* ---- synthetic inputs -------------------------------------------------------- */

START_TEST(test_synthetic_deterministic_and_entropy)
{
    size_t n = 256, d = 16, dv = 4;
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    spec.seed = tu_seed();
    spec.sinks = 3;
    double *q1 = tu_alloc(n * d), *k1 = tu_alloc(n * d), *v1 = tu_alloc(n * dv);
    double *q2 = tu_alloc(n * d), *k2 = tu_alloc(n * d), *v2 = tu_alloc(n * 2 * dv);
    TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, dv, q1, n, k1, n, v1, n));
    TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, 2 * dv, q2, n, k2, n, v2, n));
    ck_assert(memcmp(q1, q2, n * d * sizeof *q1) == 0 && memcmp(k1, k2, n * d * sizeof *k1) == 0);
    /* entropy falls as the inverse temperature grows */
    double last = INFINITY;
    const double betas[] = {0.25, 1, 4, 16, 64};
    for (size_t t = 0; t < 5; t++) {
        spec.inverse_temperature = betas[t];
        TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, dv, q1, n, k1, n, NULL, n));
        double h;
        TU_EXPECT_OK(skit_attention_entropy(n, d, q1, n, k1, n, 0.25, NULL, NULL, &h));
        ck_assert_msg(h < last && h >= 0 && h <= log((double)n) + 1e-12, "beta %g h %g", betas[t], h);
        last = h;
    }
    double reached;
    TU_EXPECT_OK(skit_attention_synthetic_for_entropy(&spec, n, d, 2.5, &reached));
    ck_assert(fabs(reached - 2.5) < 1e-3);
    TU_EXPECT_OK(skit_attention_synthetic_generate(&spec, n, d, dv, q1, n, k1, n, NULL, n));
    double h;
    TU_EXPECT_OK(skit_attention_entropy(n, d, q1, n, k1, n, 0.25, NULL, NULL, &h));
    ck_assert(fabs(h - 2.5) < 1e-3);
    skit_free(q1); skit_free(k1); skit_free(v1); skit_free(q2); skit_free(k2); skit_free(v2);
}
END_TEST

START_TEST(test_read_npy)
{
    char dir[] = "/tmp/skit_attn_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char pq[64], pk[64], pv[64], pbad[64];
    snprintf(pq, sizeof pq, "%s/q.npy", dir);
    snprintf(pk, sizeof pk, "%s/k.npy", dir);
    snprintf(pv, sizeof pv, "%s/v.npy", dir);
    snprintf(pbad, sizeof pbad, "%s/bad.npy", dir);
    double data[60];
    for (size_t i = 0; i < 60; i++) data[i] = (double)i;
    TU_EXPECT_OK(skit_npy_write(pq, data, 10, 4, 10, 2));
    TU_EXPECT_OK(skit_npy_write(pk, data, 10, 4, 10, 2));
    TU_EXPECT_OK(skit_npy_write(pv, data, 10, 6, 10, 2));
    TU_EXPECT_OK(skit_npy_write(pbad, data, 12, 4, 12, 2));
    skit_matrix q, k, v;
    TU_EXPECT_OK(skit_attention_read_npy(pq, pk, pv, &q, &k, &v));
    ck_assert(q.rows == 10 && q.cols == 4 && v.cols == 6 && q.data[13] == 13.0);
    skit_matrix_free(&q);
    skit_matrix_free(&k);
    skit_matrix_free(&v);
    TU_EXPECT_STATUS(skit_attention_read_npy(pq, pbad, pv, &q, &k, &v), SKIT_ESHAPE);
    ck_assert_ptr_null(q.data);
    TU_EXPECT_OK(skit_attention_read_npy(pq, pk, pq, &q, &k, &v)); /* V may be Q-shaped */
    skit_matrix_free(&q);
    skit_matrix_free(&k);
    skit_matrix_free(&v);
    TU_EXPECT_STATUS(skit_attention_read_npy(pq, pk, "/nonexistent/v.npy", &q, &k, &v), SKIT_EIO);
    TU_EXPECT_STATUS(skit_attention_read_npy(NULL, pk, pv, &q, &k, &v), SKIT_EINVAL);
    unlink(pq);
    unlink(pk);
    unlink(pv);
    unlink(pbad);
    rmdir(dir);
}
END_TEST

/* ---- config: every documented error ------------------------------------------- */

START_TEST(test_config_errors)
{
    double q[64 * 4] = {0}, k[64 * 4] = {0}, v[64 * 2] = {0}, y[64 * 2];
    size_t n = 64, d = 4, dv = 2;
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, NULL, n, k, n, v, n, 1, NULL, y, n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, n, k, n, v, n, 1, NULL, NULL, n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_exact(0, d, dv, q, n, k, n, v, n, 1, NULL, y, n), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_exact(n, 0, dv, q, n, k, n, v, n, 1, NULL, y, n), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_exact(n, d, 0, q, n, k, n, v, n, 1, NULL, y, n), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, n, k, n, v, n, NAN, NULL, y, n), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, n - 1, k, n, v, n, 1, NULL, y, n), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, n, k, n, v, n - 1, 1, NULL, y, n), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, n, k, n, v, n, 1, NULL, y, 3), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, SIZE_MAX / 2, k, n, v, n, 1, NULL, y, n),
                     SKIT_EOVERFLOW);
    q[5] = NAN;
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, n, k, n, v, n, 1, NULL, y, n), SKIT_ENONFINITE);
    q[5] = 0;
    v[7] = INFINITY;
    TU_EXPECT_STATUS(skit_attention_exact(n, d, dv, q, n, k, n, v, n, 1, NULL, y, n), SKIT_ENONFINITE);
    v[7] = 0;
    double s[16], h[4], mean, err;
    TU_EXPECT_STATUS(skit_attention_matrix(4, d, q, 4, k, 4, 1, NULL, NULL, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_matrix(4, d, q, 4, k, 4, 1, NULL, s, 3), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_entropy(4, d, q, 4, k, 4, 1, NULL, h, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_entropy(4, d, q, 4, k, 4, INFINITY, NULL, h, &mean), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_relative_error(0, 1, s, 1, s, 1, &err), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_relative_error(4, 1, s, 3, s, 4, &err), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_relative_error(4, 1, s, 4, s, 4, NULL), SKIT_EINVAL);
    skit_attention_method m;
    TU_EXPECT_STATUS(skit_attention_method_parse("nope", &m), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_method_parse(NULL, &m), SKIT_EINVAL);
    for (int i = 0; i < SKIT_ATTENTION_METHOD_COUNT; i++) {
        TU_EXPECT_OK(skit_attention_method_parse(skit_attention_method_name(i), &m));
        ck_assert_int_eq((int)m, i);
    }
    ck_assert_ptr_null(skit_attention_method_name(-1));
    ck_assert_ptr_null(skit_attention_method_name(SKIT_ATTENTION_METHOD_COUNT));

    /* plan creation */
    skit_attention_plan *plan = (skit_attention_plan *)1;
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    TU_EXPECT_STATUS(skit_attention_plan_create(NULL, n, d, dv, &o), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, NULL), SKIT_EINVAL);
    ck_assert_ptr_null(plan);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 0, d, dv, &o), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, 0, dv, &o), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, 0, &o), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 100, d, dv, &o), SKIT_ESHAPE); /* 32 !| 100 */
    skit_attention_options bad = o;
    bad.method = (skit_attention_method)99;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EINVAL);
    bad = o;
    bad.scale = -1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad = o;
    bad.blocks_per_row[0] = 0; /* zero budget */
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad.blocks_per_row[0] = 3; /* oversize: only 2 block columns */
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad = o;
    bad.block = 1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad.block = 128;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad = o;
    bad.selection = (skit_mra_selection)7;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EINVAL);
    bad = o;
    bad.shift_bias = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad = o;
    bad.levels = 1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad.levels = SKIT_MRA_MAX_LEVELS + 1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad.levels = 3;
    bad.scales[0] = 16;
    bad.scales[1] = 6; /* does not divide 16 */
    bad.scales[2] = 1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad.scales[1] = 16; /* not decreasing */
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    bad.scales[0] = 48; /* does not divide 64 */
    bad.scales[1] = 16;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_ESHAPE);
    bad.scales[0] = 128;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    struct {
        int method;
        size_t field;
        size_t value;
    } rng_bad[] = {{SKIT_ATTENTION_LOWRANK, 0, 0},     {SKIT_ATTENTION_LOWRANK, 0, 65},
                   {SKIT_ATTENTION_NYSTROM, 0, 0},     {SKIT_ATTENTION_NYSTROM, 0, 65},
                   {SKIT_ATTENTION_LINFORMER, 0, 0},   {SKIT_ATTENTION_LINFORMER, 0, 65},
                   {SKIT_ATTENTION_PERFORMER, 0, 0},   {SKIT_ATTENTION_TOPK, 1, 64 * 64 + 1},
                   {SKIT_ATTENTION_BIGBIRD, 2, 0},     {SKIT_ATTENTION_BIGBIRD, 2, 65},
                   {SKIT_ATTENTION_BIGBIRD, 3, 9},     {SKIT_ATTENTION_BIGBIRD, 4, 9},
                   {SKIT_ATTENTION_NYSTROM, 5, 101}};
    for (size_t t = 0; t < sizeof rng_bad / sizeof *rng_bad; t++) {
        skit_attention_options_init(&bad, rng_bad[t].method);
        size_t value = rng_bad[t].value;
        switch (rng_bad[t].field) {
        case 0: bad.rank = value; break;
        case 1: bad.nonzeros = value; break;
        case 2: bad.block = value; break;
        case 3: bad.global_blocks = value; bad.block = 8; break;
        case 4: bad.random_blocks = value; bad.block = 8; break;
        case 5: bad.pinv_iterations = value; break;
        }
        TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EDOM);
    }
    skit_attention_options_init(&bad, SKIT_ATTENTION_LINFORMER);
    bad.linformer_projection = (skit_linformer_projection)5;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &bad), SKIT_EINVAL);
    skit_attention_options_init(&bad, SKIT_ATTENTION_LOWRANK);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, 70000, d, dv, &bad), SKIT_ETOOBIG);
    skit_attention_options_init(&bad, SKIT_ATTENTION_MRA2);
    bad.block = 2;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, (size_t)1 << 20, d, dv, &bad), SKIT_ETOOBIG);
    skit_attention_options_init(&bad, SKIT_ATTENTION_EXACT);
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, (size_t)1 << 40, d, dv, &bad), SKIT_EDOM);

    /* execute */
    o.blocks_per_row[0] = 2;
    TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
    TU_EXPECT_STATUS(skit_attention_plan_execute(NULL, q, n, k, n, v, n, NULL, y, n, NULL),
                     SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_execute(plan, q, n, NULL, n, v, n, NULL, y, n, NULL),
                     SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, 5, NULL),
                     SKIT_ESHAPE);
    k[3] = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL),
                     SKIT_ENONFINITE);
    k[3] = 0;
    /* stats are optional, and a failed call leaves them as they were */
    skit_attention_stats st = {.entries = -1};
    TU_EXPECT_STATUS(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, 5, &st),
                     SKIT_ESHAPE);
    ck_assert(st.entries == -1);
    TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, &st));
    ck_assert(st.entries > 0 && st.levels == 2);
    skit_attention_plan_destroy(plan);

    /* coarse logits */
    double c[4];
    TU_EXPECT_STATUS(skit_mra_coarse_logits(n, d, q, n, k, n, 1, 0, NULL, c, 2), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_coarse_logits(n, d, q, n, k, n, 1, 48, NULL, c, 2), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_coarse_logits(n, d, q, n, k, n, 1, 32, NULL, c, 1), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_coarse_logits(n, d, q, n, k, n, 1, 32, NULL, NULL, 2), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mra_coarse_logits(n, d, q, n, k, n, NAN, 32, NULL, c, 2), SKIT_EDOM);

    /* budget search */
    double targets[1] = {0.1};
    size_t needed[1];
    TU_EXPECT_STATUS(skit_attention_budget_needed(SKIT_ATTENTION_MRA2, 4, d, dv, q, 4, k, 4, v, 4, 1,
                                                  1, targets, needed, NULL),
                     SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_budget_needed(SKIT_ATTENTION_TOPK, 4, d, dv, q, 4, k, 4, v, 4, 1,
                                                  1, targets, needed, s),
                     SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_budget_needed(SKIT_ATTENTION_TOPK, 4, d, dv, q, 4, k, 4, v, 4, 1,
                                                  0, targets, needed, NULL),
                     SKIT_EDOM);
    targets[0] = -1;
    TU_EXPECT_STATUS(skit_attention_budget_needed(SKIT_ATTENTION_LOWRANK, 4, d, dv, q, 4, k, 4, v, 4,
                                                  1, 1, targets, needed, NULL),
                     SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_budget_needed(SKIT_ATTENTION_LOWRANK, 4, d, dv, q, 4, k, 4, v, 4,
                                                  1, 1, NULL, needed, NULL),
                     SKIT_EINVAL);

    /* frame and Haar */
    double a[16] = {0}, alpha[21], out[16], diff, thr;
    size_t idx_dummy;
    unsigned char sub[21] = {0};
    TU_EXPECT_STATUS(skit_mra_frame_index(6, 1, 0, 0, &idx_dummy), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_frame_index(4, 3, 0, 0, &idx_dummy), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_frame_index(4, 2, 2, 0, &idx_dummy), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_frame_index(4, 2, 0, 0, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mra_frame_decompose(3, a, 3, NULL, alpha, NULL, 3), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_frame_decompose(4, a, 3, NULL, alpha, NULL, 4), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_frame_decompose(4, a, 4, NULL, NULL, NULL, 4), SKIT_EINVAL);
    a[2] = NAN;
    TU_EXPECT_STATUS(skit_mra_frame_decompose(4, a, 4, NULL, alpha, NULL, 4), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_haar2d_forward(4, a, 4, out, 4), SKIT_ENONFINITE);
    a[2] = 0;
    TU_EXPECT_STATUS(skit_mra_frame_mu_form(4, a, 4, NULL, out, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mra_frame_mu_form(4, a, 4, sub, out, 2), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_observation_a1(4, a, 4, sub, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mra_observation_a1(5, a, 5, sub, &diff), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_haar2d_forward(6, a, 6, out, 6), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_haar2d_forward(4, a, 4, NULL, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_haar2d_inverse(4, a, 2, out, 4), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_haar2d_compress(4, a, 4, 17, out, 4, &thr), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_haar2d_compress(4, a, 4, 1, NULL, 4, &thr), SKIT_EINVAL);

    /* bounds */
    skit_mra_lemma41 l41;
    skit_mra_prop45 p45;
    TU_EXPECT_STATUS(skit_mra_lemma41_evaluate(n, d, q, n, k, n, 1, 0, &l41), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_lemma41_evaluate(n, d, q, n, k, n, 1, 5, &l41), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_lemma41_evaluate(n, d, q, n, k, n, -1, 4, &l41), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_lemma41_evaluate(n, d, q, n, k, n, 1, 4, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mra_prop45_evaluate(n, d, q, n, k, n, 1, 16, 17, &p45), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra_prop45_evaluate(n, d, q, n, k, n, 1, 3, 1, &p45), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mra_prop45_evaluate(n, d, NULL, n, k, n, 1, 16, 1, &p45), SKIT_EINVAL);
    k[0] = NAN;
    TU_EXPECT_STATUS(skit_mra_prop45_evaluate(n, d, q, n, k, n, 1, 16, 1, &p45), SKIT_ENONFINITE);
    k[0] = 0;

    /* synthetic */
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    TU_EXPECT_STATUS(skit_attention_synthetic_generate(NULL, n, d, dv, q, n, k, n, v, n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_synthetic_generate(&spec, 0, d, dv, q, n, k, n, v, n), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_synthetic_generate(&spec, n, d, dv, q, 3, k, n, v, n), SKIT_ESHAPE);
    spec.inverse_temperature = 0;
    TU_EXPECT_STATUS(skit_attention_synthetic_generate(&spec, n, d, dv, q, n, k, n, v, n), SKIT_EDOM);
    spec.inverse_temperature = 1;
    spec.noise = -1;
    TU_EXPECT_STATUS(skit_attention_synthetic_generate(&spec, n, d, dv, q, n, k, n, v, n), SKIT_EDOM);
    spec.noise = 0;
    spec.sinks = n + 1;
    TU_EXPECT_STATUS(skit_attention_synthetic_generate(&spec, n, d, dv, q, n, k, n, v, n), SKIT_EDOM);
    spec.sinks = 0;
    TU_EXPECT_STATUS(skit_attention_synthetic_for_entropy(&spec, n, d, log((double)n), NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_synthetic_for_entropy(&spec, n, d, 0.0, NULL), SKIT_EDOM);
    /* unreachable: even beta = 1e-3 leaves the entropy below log n - 1e-12 */
    TU_EXPECT_STATUS(skit_attention_synthetic_for_entropy(&spec, 8, 1, log(8.0) - 1e-12, NULL),
                     SKIT_ENOCONV);
}
END_TEST

/* ---- causal masks ------------------------------------------------------------ */

/* The free functions and the exact plan under a causal mask (with and
 * without padding) against the naive reference; S and the entropies too. */
START_TEST(test_causal_exact_matrix_entropy)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t sizes[] = {1, 2, 3, 5, 7, 16, 31, 64, 65, 97, 130, 211};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++)
        for (int padded = 0; padded < 2; padded++) {
            size_t n = sizes[t], d = 1 + skit_rng_below(&rng, 40), dv = 1 + skit_rng_below(&rng, 6);
            double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv);
            double *y = tu_alloc(n * dv), *ref = tu_alloc(n * dv), *s = tu_alloc(n * n), *eye = tu_alloc(n * n);
            unsigned char *pad = padded ? random_mask(&rng, n, 0.8) : NULL;
            skit_attention_mask m = {pad, 1};
            naive_attention_causal(n, d, dv, q, k, v, 0.4, pad, 1, ref);
            for (size_t i = 0; i < n * dv; i++) y[i] = NAN;
            TU_EXPECT_OK(skit_attention_exact_masked(n, d, dv, q, n, k, n, v, n, 0.4, &m, y, n));
            double err = tu_rel_error(y, ref, n * dv);
            ck_assert_msg(err < 1e-12, "exact n=%zu pad=%d err %g seed %llu", n, padded, err,
                          (unsigned long long)seed);
            skit_attention_options o;
            skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
            o.scale = 0.4;
            o.causal = 1;
            err = run_plan(&o, n, d, dv, q, k, v, pad, ref);
            ck_assert_msg(err < 1e-12, "plan n=%zu pad=%d err %g", n, padded, err);
            /* S: lower triangular, and S V is the output; entropies from S */
            TU_EXPECT_OK(skit_attention_matrix_masked(n, d, q, n, k, n, 0.4, &m, s, n));
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < j; i++) ck_assert(s[i + j * n] == 0.0);
            for (size_t i = 0; i < n * n; i++) eye[i] = 0;
            for (size_t i = 0; i < n; i++) eye[i + i * n] = 1;
            double *sref = tu_alloc(n * n);
            naive_attention_causal(n, d, n, q, k, eye, 0.4, pad, 1, sref);
            ck_assert(tu_rel_error(s, sref, n * n) < 1e-12);
            skit_free(sref);
            double *h = tu_alloc(n), mean = NAN, ref_mean = 0;
            size_t rows = 0;
            TU_EXPECT_OK(skit_attention_entropy_masked(n, d, q, n, k, n, 0.4, &m, h, &mean));
            for (size_t i = 0; i < n; i++) {
                double hi = 0;
                for (size_t j = 0; j <= i; j++)
                    if (s[i + j * n] > 0) hi -= s[i + j * n] * log(s[i + j * n]);
                if (!pad || pad[i]) {
                    ck_assert_msg(fabs(h[i] - hi) < 1e-10, "entropy row %zu: %g vs %g", i, h[i], hi);
                    ref_mean += hi;
                    rows++;
                }
            }
            if (rows) ck_assert(fabs(mean - ref_mean / (double)rows) < 1e-10);
            free(pad);
            skit_free(q); skit_free(k); skit_free(v); skit_free(y); skit_free(ref); skit_free(s);
            skit_free(eye); skit_free(h);
        }
}
END_TEST

/* Every method with a causal form: at a full budget it is exact causal
 * attention; and (lowrank aside, whose rank-r S is not triangular) no
 * output row uses a later value: changing V after row i0 leaves rows
 * 0..i0 bit for bit. The others refuse causal. */
START_TEST(test_causal_methods)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    size_t n = 64, d = 5, dv = 3, i0 = 37;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv),
           *ref = tu_alloc(n * dv), *y1 = tu_alloc(n * dv), *y2 = tu_alloc(n * dv), *v2 = tu_alloc(n * dv);
    naive_attention_causal(n, d, dv, q, k, v, 0.6, NULL, 1, ref);
    for (size_t c = 0; c < dv; c++)
        for (size_t i = 0; i < n; i++) v2[i + c * n] = i > i0 ? v[i + c * n] + 3.0 : v[i + c * n];
    const int methods[] = {SKIT_ATTENTION_EXACT,  SKIT_ATTENTION_MRA2,   SKIT_ATTENTION_MRA2_SPARSE,
                           SKIT_ATTENTION_LOWRANK, SKIT_ATTENTION_TOPK,  SKIT_ATTENTION_WINDOW,
                           SKIT_ATTENTION_BIGBIRD};
    for (size_t t = 0; t < sizeof methods / sizeof *methods; t++)
        for (int full = 0; full < 2; full++) {
            skit_attention_options o;
            skit_attention_options_init(&o, methods[t]);
            o.scale = 0.6;
            o.causal = 1;
            o.block = 8;
            o.blocks_per_row[0] = full ? n / 8 : 2;
            o.rank = full ? n : 5;
            o.nonzeros = full ? n * n : 300;
            o.window = full ? (methods[t] == SKIT_ATTENTION_BIGBIRD ? n / 8 : n) : 4;
            o.random_blocks = 1;
            if (full) {
                double err = run_plan(&o, n, d, dv, q, k, v, NULL, ref);
                ck_assert_msg(err < 1e-10, "%s full: err %g seed %llu", skit_attention_method_name(methods[t]),
                              err, (unsigned long long)seed);
            }
            if (methods[t] == SKIT_ATTENTION_LOWRANK) continue;
            skit_attention_plan *plan = NULL;
            TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, dv, &o));
            TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y1, n, NULL));
            TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v2, n, NULL, y2, n, NULL));
            for (size_t c = 0; c < dv; c++)
                for (size_t i = 0; i <= i0; i++)
                    ck_assert_msg(y1[i + c * n] == y2[i + c * n], "%s full=%d: row %zu sees a later value",
                                  skit_attention_method_name(methods[t]), full, i);
            skit_attention_plan_destroy(plan);
        }
    const int refused[] = {SKIT_ATTENTION_NYSTROM, SKIT_ATTENTION_LINFORMER, SKIT_ATTENTION_PERFORMER};
    for (size_t t = 0; t < 3; t++) {
        skit_attention_options o;
        skit_attention_options_init(&o, refused[t]);
        o.causal = 1;
        o.rank = 8;
        skit_attention_plan *plan = NULL;
        TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &o), SKIT_EUNSUPPORTED);
        ck_assert_ptr_null(plan);
    }
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    o.causal = 1;
    const size_t coarse[] = {16, 4};
    set_levels(&o, 2, coarse);
    skit_attention_plan *plan = NULL;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &o), SKIT_EDOM);
    skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
    o.causal = 2;
    TU_EXPECT_STATUS(skit_attention_plan_create(&plan, n, d, dv, &o), SKIT_EDOM);
    /* the free functions and the selection refuse it too */
    skit_attention_mask bad = {NULL, 2};
    double h = 0;
    unsigned char refined[64];
    TU_EXPECT_STATUS(skit_attention_exact_masked(n, d, dv, q, n, k, n, v, n, 0.6, &bad, y1, n), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_entropy_masked(n, d, q, n, k, n, 0.6, &bad, NULL, &h), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_exact_backward_masked(n, d, dv, q, n, k, n, v, n, 0.6, &bad, y1, n, NULL, n,
                                                          NULL, n, y2, n, NULL),
                     SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mra2_select(n, d, q, n, k, n, 0.6, 8, 2, SKIT_MRA_GLOBAL, 2, refined, NULL), SKIT_EDOM);
    skit_free(q); skit_free(k); skit_free(v); skit_free(ref); skit_free(y1); skit_free(y2); skit_free(v2);
}
END_TEST

/* <dy, Y(x)> for the exact causal attention or a causal MRA-2 plan (plan
 * NULL: exact), x = (q, k, v) */
static double causal_loss(const skit_attention_plan *plan, size_t n, size_t d, const double *q, const double *k,
                          const double *v, const double *dy, double *y)
{
    skit_attention_mask m = {NULL, 1};
    if (plan)
        TU_EXPECT_OK(skit_attention_plan_execute(plan, q, n, k, n, v, n, NULL, y, n, NULL));
    else
        TU_EXPECT_OK(skit_attention_exact_masked(n, d, d, q, n, k, n, v, n, 0.7, &m, y, n));
    double s = 0;
    for (size_t i = 0; i < n * d; i++) s += dy[i] * y[i];
    return s;
}

/* Directional derivative of causal_loss along u in (q, k, v) (central, h
 * = 1e-5) against <gradient, u>: relative to |g| |u| (rounding ~1e-10). */
static void check_direction(skit_rng *rng, const skit_attention_plan *plan, size_t n, size_t d, double *qkv,
                            const double *dy, const double *grad, const char *what)
{
    size_t N = 3 * n * d;
    double *u = tu_random(rng, N), *y = tu_alloc(n * d), h = 1e-5, gu = 0, gg = 0, uu = 0;
    for (size_t i = 0; i < N; i++) gu += grad[i] * u[i], gg += grad[i] * grad[i], uu += u[i] * u[i];
    for (size_t i = 0; i < N; i++) qkv[i] += h * u[i];
    double lp = causal_loss(plan, n, d, qkv, qkv + n * d, qkv + 2 * n * d, dy, y);
    for (size_t i = 0; i < N; i++) qkv[i] -= 2 * h * u[i];
    double lm = causal_loss(plan, n, d, qkv, qkv + n * d, qkv + 2 * n * d, dy, y);
    for (size_t i = 0; i < N; i++) qkv[i] += h * u[i];
    double err = fabs((lp - lm) / (2 * h) - gu) / sqrt(gg * uu);
    ck_assert_msg(err < 1e-7, "%s: directional derivative off by %g", what, err);
    skit_free(u);
    skit_free(y);
}

/* The causal backward passes: exact attention's and MRA-2's (its causal
 * selection held fixed, as a causal plan selects) against finite
 * differences; MRA-2 with every square refined is exact attention. */
START_TEST(test_causal_backward)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t sizes[] = {16, 40, 64, 96};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        size_t n = sizes[t], d = 3, b = 8, rows = n / b;
        double *qkv = tu_random(&rng, 3 * n * d), *dy = tu_random(&rng, n * d), *g = tu_alloc(3 * n * d),
               *g2 = tu_alloc(3 * n * d);
        double *q = qkv, *k = qkv + n * d, *v = qkv + 2 * n * d;
        skit_attention_mask m = {NULL, 1};
        for (size_t i = 0; i < 3 * n * d; i++) g[i] = NAN;
        TU_EXPECT_OK(skit_attention_exact_backward_masked(n, d, d, q, n, k, n, v, n, 0.7, &m, dy, n, g, n,
                                                          g + n * d, n, g + 2 * n * d, n, NULL));
        check_direction(&rng, NULL, n, d, qkv, dy, g, "exact causal");
        unsigned char *refined = malloc(rows * rows);
        memset(refined, 1, rows * rows);
        TU_EXPECT_OK(skit_mra2_backward_causal(n, d, d, q, n, k, n, v, n, 0.7, b, refined, dy, n, g2, n,
                                               g2 + n * d, n, g2 + 2 * n * d, n, NULL));
        ck_assert_msg(tu_rel_error(g2, g, 3 * n * d) < 1e-12, "n=%zu: all refined != exact causal", n);
        for (int sel = 0; sel < 2; sel++) {
            skit_attention_options o;
            skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
            o.scale = 0.7;
            o.block = b;
            o.blocks_per_row[0] = 2;
            o.selection = sel;
            o.causal = 1;
            skit_attention_plan *plan = NULL;
            TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, d, &o));
            double *work = skit_malloc(skit_mra2_select_workspace(n, d, b), sizeof(double));
            TU_EXPECT_OK(skit_mra2_select(n, d, q, n, k, n, 0.7, b, 2, (skit_mra_selection)sel, 1, refined, work));
            skit_free(work);
            for (size_t x = 0; x < rows; x++) ck_assert(refined[x + x * rows]);
            for (size_t i = 0; i < 3 * n * d; i++) g2[i] = NAN;
            TU_EXPECT_OK(skit_mra2_backward_causal(n, d, d, q, n, k, n, v, n, 0.7, b, refined, dy, n, g2, n,
                                                   g2 + n * d, n, g2 + 2 * n * d, n, NULL));
            check_direction(&rng, plan, n, d, qkv, dy, g2, sel ? "mra2 causal per-row" : "mra2 causal global");
            skit_attention_plan_destroy(plan);
        }
        refined[0] = 0;
        TU_EXPECT_STATUS(skit_mra2_backward_causal(n, d, d, q, n, k, n, v, n, 0.7, b, refined, dy, n, g2, n,
                                                   g2 + n * d, n, g2 + 2 * n * d, n, NULL), SKIT_EINVAL);
        free(refined);
        skit_free(qkv); skit_free(dy); skit_free(g); skit_free(g2);
    }
}
END_TEST

/* ---- float32 against float64 ------------------------------------------------- */

/* n x c normals rounded to float: the float array and the same values in
 * double, so that both precisions see the same inputs. */
static float *random_f32(skit_rng *rng, size_t count, double **same)
{
    float *f = tu_alloc_f32(count);
    *same = tu_alloc(count);
    skit_rng_fill_normal(rng, *same, count);
    for (size_t i = 0; i < count; i++) (*same)[i] = f[i] = (float)(*same)[i];
    return f;
}

static double max_abs_column(const double *x, size_t n, size_t c)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i + c * n]));
    return m;
}

/* Entry by entry: |y32 - y64| <= (2.1 eta_i + (n + extra) u) max |v_c|
 * (the bounds of skit/attention.h); returns the largest ratio
 * error / bound (NaN: infinite). */
static double f32_bound_ratio(size_t n, size_t dv, const float *y32, const double *y64,
                              const double *v, const double *eta, double extra)
{
    double worst = 0;
    for (size_t c = 0; c < dv; c++) {
        double vmax = max_abs_column(v, n, c);
        for (size_t i = 0; i < n; i++) {
            double err = fabs((double)y32[i + c * n] - y64[i + c * n]);
            double bound = (2.1 * eta[i] + ((double)n + extra) * TU_U32) * vmax;
            double r = isnan(err) ? INFINITY : err / (bound > 0 ? bound : 1e-300);
            if (!(r <= worst)) worst = r;
        }
    }
    return worst;
}

/* eta_i of skit_attention_exact_f32: u ((d + 6) G_i + 3 ceil(n / 16) + 4),
 * G_i = |scale| max_j sum_c |q_ic k_jc| (16: the smallest tile side). */
static void exact_f32_eta(size_t n, size_t d, const double *q, const double *k, double scale,
                          double *eta)
{
    for (size_t i = 0; i < n; i++) {
        double g = 0;
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t c = 0; c < d; c++) s += fabs(q[i + c * n] * k[j + c * n]);
            g = fmax(g, s);
        }
        g *= fabs(scale);
        eta[i] = TU_U32 * (((double)d + 6) * g + 3.0 * (double)((n + 15) / 16) + 4);
        ck_assert_msg(eta[i] < 0.04, "test inputs too large for the first-order bound");
    }
}

/* Q, K, V in both precisions (random_f32) */
static void free_inputs(double *q, double *k, double *v, float *q32, float *k32, float *v32)
{
    skit_free(q), skit_free(k), skit_free(v), skit_free(q32), skit_free(k32), skit_free(v32);
}

static void destroy_pair(skit_attention_plan *a, skit_attention_plan *b)
{
    skit_attention_plan_destroy(a);
    skit_attention_plan_destroy(b);
}

/* The float64 and float32 plans of options o (o->precision ignored). */
static void plan_pair(size_t n, size_t d, size_t dv, skit_attention_options *o, skit_attention_plan **p64,
                      skit_attention_plan **p32)
{
    o->precision = SKIT_PRECISION_F64;
    TU_EXPECT_OK(skit_attention_plan_create(p64, n, d, dv, o));
    o->precision = SKIT_PRECISION_F32;
    TU_EXPECT_OK(skit_attention_plan_create(p32, n, d, dv, o));
}

/* The float32 exact plan against the float64 one on the same (float)
 * inputs, entry by entry under skit/attention.h's bound; outputs poisoned
 * (NaN) before each call; padded and causal; stats as the float64 plan's */
START_TEST(test_exact_f32_plan_matches_f64)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t sizes[] = {1, 2, 3, 5, 7, 13, 16, 17, 31, 32, 63, 64, 65, 97, 127, 128,
                                   211, 257, 331, 499, 512, 997};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int rep = 0; rep < 3; rep++) {
            size_t n = sizes[si], d = 1 + skit_rng_below(&rng, rep == 2 ? 160 : 24);
            size_t dv = 1 + skit_rng_below(&rng, 9);
            double *q, *k, *v;
            float *q32 = random_f32(&rng, n * d, &q), *k32 = random_f32(&rng, n * d, &k),
                  *v32 = random_f32(&rng, n * dv, &v);
            skit_attention_options o;
            skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
            o.scale = (0.25 + 2.0 * skit_rng_uniform(&rng)) / sqrt((double)d);
            o.causal = rep != 0 && skit_rng_uniform(&rng) < 0.5;
            unsigned char *pad = rep == 1 ? random_mask(&rng, n, 0.8) : NULL;
            skit_attention_plan *p64, *p32;
            plan_pair(n, d, dv, &o, &p64, &p32);
            double *y64 = tu_alloc(n * dv), *eta = tu_alloc(n);
            float *y32 = tu_alloc_f32(n * dv);
            skit_attention_stats s64, s32;
            TU_EXPECT_OK(skit_attention_plan_execute(p64, q, n, k, n, v, n, pad, y64, n, &s64));
            TU_EXPECT_OK(skit_attention_plan_execute_f32(p32, q32, n, k32, n, v32, n, pad, y32, n, &s32));
            ck_assert(s32.entries == s64.entries && s32.work_fraction == s64.work_fraction && s32.levels == 0);
            exact_f32_eta(n, d, q, k, (double)(float)o.scale, eta);
            double r = f32_bound_ratio(n, dv, y32, y64, v, eta, 4);
            ck_assert_msg(r <= 1, "n %zu d %zu dv %zu rep %d causal %d: error / bound %g, seed %llu", n, d, dv, rep,
                          o.causal, r, (unsigned long long)seed);
            free(pad);
            destroy_pair(p64, p32);
            free_inputs(q, k, v, q32, k32, v32);
            skit_free(y64); skit_free(y32); skit_free(eta);
        }
}
END_TEST

/* Leading dimensions above n: only the n rows of y are written, and the
 * plan reads q, k, v through their leading dimensions (the same result
 * as contiguous arrays, bit for bit) */
START_TEST(test_f32_plan_leading_dimensions)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 48, d = 5, dv = 3, ld = 53;
    double *q, *k, *v;
    float *q32 = random_f32(&rng, n * d, &q), *k32 = random_f32(&rng, n * d, &k), *v32 = random_f32(&rng, n * dv, &v);
    float *qs = tu_alloc_f32(ld * d), *ks = tu_alloc_f32(ld * d), *vs = tu_alloc_f32(ld * dv);
    for (size_t c = 0; c < d; c++)
        for (size_t i = 0; i < n; i++) qs[i + c * ld] = q32[i + c * n], ks[i + c * ld] = k32[i + c * n];
    for (size_t c = 0; c < dv; c++)
        for (size_t i = 0; i < n; i++) vs[i + c * ld] = v32[i + c * n];
    const skit_attention_method methods[] = {SKIT_ATTENTION_EXACT, SKIT_ATTENTION_MRA2, SKIT_ATTENTION_MRA2_SPARSE};
    for (size_t m = 0; m < 3; m++) {
        skit_attention_options o;
        skit_attention_options_init(&o, methods[m]);
        o.precision = SKIT_PRECISION_F32;
        o.block = 8;
        o.blocks_per_row[0] = 2;
        skit_attention_plan *p;
        TU_EXPECT_OK(skit_attention_plan_create(&p, n, d, dv, &o));
        float *y = tu_alloc_f32(n * dv), *ys = tu_alloc_f32(ld * dv);
        for (size_t i = 0; i < ld * dv; i++) ys[i] = 7.0f;
        TU_EXPECT_OK(skit_attention_plan_execute_f32(p, q32, n, k32, n, v32, n, NULL, y, n, NULL));
        TU_EXPECT_OK(skit_attention_plan_execute_f32(p, qs, ld, ks, ld, vs, ld, NULL, ys, ld, NULL));
        for (size_t c = 0; c < dv; c++)
            for (size_t i = 0; i < ld; i++)
                ck_assert_msg(i < n ? ys[i + c * ld] == y[i + c * n] : ys[i + c * ld] == 7.0f,
                              "%s: entry (%zu, %zu) of the strided output", skit_attention_method_name(methods[m]), i,
                              c);
        skit_free(y);
        skit_free(ys);
        skit_attention_plan_destroy(p);
    }
    free_inputs(q, k, v, q32, k32, v32);
    skit_free(qs); skit_free(ks); skit_free(vs);
}
END_TEST

/* Block means in double over the valid tokens (0 for an empty block). */
static void means_f64(size_t n, size_t cols, const double *x, size_t b, const unsigned char *mask,
                      double *out, double *cnt)
{
    size_t rows = n / b;
    for (size_t X = 0; X < rows; X++) {
        size_t count = 0;
        for (size_t i = X * b; i < X * b + b; i++) count += !mask || mask[i];
        if (cnt) cnt[X] = (double)count;
        for (size_t c = 0; c < cols; c++) {
            double s = 0;
            for (size_t i = X * b; i < X * b + b; i++)
                if (!mask || mask[i]) s += x[i + c * n];
            out[X + c * rows] = count ? s / (double)count : 0;
        }
    }
}

typedef struct mra_case {
    size_t n, d, dv, b;
    double scale;
    const unsigned char *mask;
    int causal, sparse;
} mra_case;

/* The coarse logits in double, C[x * rows + y] (-inf: empty block, or
 * after the diagonal when causal), from the double block means. */
static void coarse_f64(const mra_case *m, const double *q, const double *k, double *qm, double *km,
                       double *cnt, double *C)
{
    size_t rows = m->n / m->b;
    means_f64(m->n, m->d, q, m->b, m->mask, qm, cnt);
    means_f64(m->n, m->d, k, m->b, m->mask, km, NULL);
    for (size_t x = 0; x < rows; x++)
        for (size_t y = 0; y < rows; y++) {
            double s = 0;
            for (size_t c = 0; c < m->d; c++) s += qm[x + c * rows] * km[y + c * rows];
            int none = cnt[x] == 0 || cnt[y] == 0 || (m->causal && y > x);
            C[x * rows + y] = none ? -INFINITY : m->scale * s;
        }
}

/* Dense float64 MRA-2 (R = {b, 1}) on a given set of refined squares:
 * refined squares by their exact entries, the others (MRA-2) by cnt_y
 * exp(C_xy) with the block mean of V, one softmax per token. */
static void mra2_given_selection(const mra_case *m, const double *q, const double *k,
                                 const double *v, const unsigned char *refined, double *y)
{
    size_t n = m->n, b = m->b, rows = n / b, d = m->d, dv = m->dv;
    double *qm = malloc(rows * d * sizeof *qm), *km = malloc(rows * d * sizeof *km),
           *vm = malloc(rows * dv * sizeof *vm), *cnt = malloc(rows * sizeof *cnt),
           *C = malloc(rows * rows * sizeof *C), *lg = malloc((n + rows) * sizeof *lg);
    coarse_f64(m, q, k, qm, km, cnt, C);
    means_f64(n, dv, v, b, m->mask, vm, NULL);
    for (size_t i = 0; i < n; i++) {
        size_t x = i / b;
        double M = -INFINITY;
        /* lg[j]: entry logits of refined squares; lg[n + y]: coarse ones */
        for (size_t yb = 0; yb < rows; yb++) {
            int ref = refined[x + yb * rows];
            lg[n + yb] = ref || m->sparse ? -INFINITY : C[x * rows + yb];
            for (size_t j = yb * b; j < yb * b + b; j++) {
                double s = 0;
                for (size_t c = 0; c < d; c++) s += q[i + c * n] * k[j + c * n];
                int ok = ref && (!m->mask || m->mask[j]) && !(m->causal && j > i);
                lg[j] = ok ? m->scale * s : -INFINITY;
            }
        }
        for (size_t j = 0; j < n + rows; j++) M = fmax(M, lg[j]);
        for (size_t c = 0; c < dv; c++) {
            double num = 0, den = 0;
            for (size_t j = 0; j < n + rows; j++) {
                if (lg[j] == -INFINITY) continue;
                double w = exp(lg[j] - M) * (j < n ? 1.0 : cnt[j - n]);
                den += w;
                num += w * (j < n ? v[j + c * n] : vm[j - n + c * rows]);
            }
            y[i + c * n] = den == 0 || (m->mask && !m->mask[i]) ? 0 : num / den;
        }
    }
    free(qm); free(km); free(vm); free(cnt); free(C); free(lg);
}

/* The float path's selection is Algorithm 1's up to the coarse logits'
 * float error: counts as the budget says, and in score order up to tol
 * (global: over all squares; per row: within each row) on float64 scores
 * (logit - row max, priors lifted above the rest). */
static void check_selection(const mra_case *m, const skit_attention_options *o, const double *C,
                            const unsigned char *refined, double tol, uint64_t seed)
{
    size_t rows = m->n / m->b, N = rows * rows, bpr = o->blocks_per_row[0];
    size_t diag = m->causal && !o->diagonal_prior ? 1 : o->diagonal_prior;
    double *sc = malloc(N * sizeof *sc), lo = 0;
    for (size_t x = 0; x < rows; x++) {
        double mx = -INFINITY;
        for (size_t y = 0; y < rows; y++) mx = fmax(mx, C[x * rows + y]);
        for (size_t y = 0; y < rows; y++) {
            double c = C[x * rows + y];
            sc[x * rows + y] = mx == -INFINITY || c == -INFINITY ? -INFINITY : c - mx;
            lo = fmin(lo, sc[x * rows + y]);
        }
    }
    for (size_t x = 0; x < rows; x++)
        for (size_t y = 0; y < rows; y++) {
            size_t dist = x > y ? x - y : y - x;
            int prior = (diag && dist < diag) || (o->first_block_prior && (x == 0 || y == 0));
            if (prior && sc[x * rows + y] != -INFINITY) sc[x * rows + y] += 1.0 - lo;
        }
    int global = o->selection == SKIT_MRA_GLOBAL;
    size_t groups = global ? 1 : rows, per = global ? N : rows;
    size_t want = global ? (bpr < rows ? rows * bpr : N) : (bpr < rows ? bpr : rows);
    for (size_t g = 0; g < groups; g++) {
        double min_in = INFINITY, max_out = -INFINITY;
        size_t count = 0;
        for (size_t t = g * per; t < g * per + per; t++) {
            if (refined[t / rows + t % rows * rows]) count++, min_in = fmin(min_in, sc[t]); /* sc row-major */
            else max_out = fmax(max_out, sc[t]);
        }
        ck_assert_msg(count == want, "n %zu b %zu: %zu squares refined in group %zu, want %zu, seed %llu",
                      m->n, m->b, count, g, want, (unsigned long long)seed);
        ck_assert_msg(max_out == -INFINITY || max_out <= min_in + tol,
                      "n %zu b %zu: unrefined score %g above refined %g + %g, seed %llu", m->n, m->b,
                      max_out, min_in, tol, (unsigned long long)seed);
    }
    free(sc);
}

/* G = |scale| sum_c max_i |q_ic| max_j |k_jc| */
static double logit_bound(size_t n, size_t d, const double *q, const double *k, double scale)
{
    double g = 0;
    for (size_t c = 0; c < d; c++) g += max_abs_column(q, n, c) * max_abs_column(k, n, c);
    return fabs(scale) * g;
}

/* squares refined in a selection of rows x rows */
static size_t count_refined(const unsigned char *refined, size_t rows)
{
    size_t count = 0;
    for (size_t i = 0; i < rows * rows; i++) count += refined[i] != 0;
    return count;
}

/* The float32 MRA plan against float64: its selection (select_f32, the
 * same count as its stats) is Algorithm 1's up to the coarse logits' float
 * error; where the float64 plan selects the same squares, the two plans'
 * outputs are held to skit/attention.h's bound, otherwise the float32
 * output against a dense float64 MRA-2 on the float32 plan's squares.
 * The float64 plan's own selection (select) is its execute's: its output
 * equals the dense reference on those squares. Outputs poisoned. */
START_TEST(test_mra_f32_plan_matches_f64)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    /* n = rows x b: odd and prime n and row counts, odd blocks */
    static const size_t cases[][2] = {{4, 2}, {26, 2}, {55, 5}, {56, 8}, {64, 8}, {91, 7},
                                      {96, 32}, {120, 8}, {128, 16}, {208, 16}, {343, 7},
                                      {256, 32}, {384, 64}};
    size_t same = 0, total = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++)
        for (int rep = 0; rep < 8; rep++) {
            size_t n = cases[ci][0], b = cases[ci][1], rows = n / b;
            size_t d = 1 + skit_rng_below(&rng, 40), dv = 1 + skit_rng_below(&rng, 6);
            double *q, *k, *v;
            float *q32 = random_f32(&rng, n * d, &q), *k32 = random_f32(&rng, n * d, &k),
                  *v32 = random_f32(&rng, n * dv, &v);
            skit_attention_options o;
            skit_attention_options_init(&o, rep % 2 ? SKIT_ATTENTION_MRA2_SPARSE : SKIT_ATTENTION_MRA2);
            o.block = b;
            o.scale = (0.25 + 1.5 * skit_rng_uniform(&rng)) / sqrt((double)d);
            o.selection = (rep / 2) % 2;
            o.blocks_per_row[0] = 1 + skit_rng_below(&rng, rows);
            o.diagonal_prior = rep == 6 ? 2 : 0;
            o.first_block_prior = rep == 7;
            o.causal = rep >= 4 && rep < 6;
            unsigned char *pad = rep % 3 == 2 ? random_mask(&rng, n, 0.85) : NULL;
            mra_case m = {n, d, dv, b, o.scale, pad, o.causal, rep % 2};
            skit_attention_plan *p64, *p32;
            plan_pair(n, d, dv, &o, &p64, &p32);
            unsigned char *r32 = malloc(rows * rows), *r64 = malloc(rows * rows);
            memset(r32, 7, rows * rows), memset(r64, 7, rows * rows);
            double *y64 = tu_alloc(n * dv), *ref = tu_alloc(n * dv), *eta = tu_alloc(n);
            float *y32 = tu_alloc_f32(n * dv);
            skit_attention_stats s32, s64;
            TU_EXPECT_OK(skit_attention_plan_execute_f32(p32, q32, n, k32, n, v32, n, pad, y32, n, &s32));
            TU_EXPECT_OK(skit_attention_plan_select_f32(p32, q32, n, k32, n, pad, r32));
            TU_EXPECT_OK(skit_attention_plan_execute(p64, q, n, k, n, v, n, pad, y64, n, &s64));
            TU_EXPECT_OK(skit_attention_plan_select(p64, q, n, k, n, pad, r64));
            ck_assert(s32.levels == 2 && s32.refined[0] == count_refined(r32, rows));
            ck_assert(s64.refined[0] == count_refined(r64, rows));
            ck_assert_msg(s32.entries == (double)(rows * rows) + (double)s32.refined[0] * (double)(b * b),
                          "stats.entries %g", s32.entries);
            mra2_given_selection(&m, q, k, v, r64, ref);
            double e64;
            TU_EXPECT_OK(skit_attention_relative_error(n, dv, y64, n, ref, n, &e64));
            ck_assert_msg(e64 < 1e-12, "n %zu b %zu: the float64 plan's select is not its execute's (%g), seed %llu",
                          n, b, e64, (unsigned long long)seed);
            int agree = !memcmp(r32, r64, rows * rows);
            same += agree, total++;
            if (!agree) mra2_given_selection(&m, q, k, v, r32, ref);
            double G = logit_bound(n, d, q, k, o.scale);
            for (size_t i = 0; i < n; i++)
                eta[i] = TU_U32 * (((double)d + 2.0 * (double)b + 10) * G + 3.0 * (double)rows + 6);
            ck_assert_msg(eta[0] < 0.04, "test inputs too large for the first-order bound");
            double r = f32_bound_ratio(n, dv, y32, agree ? y64 : ref, v, eta, 2.0 * (double)b + 4);
            ck_assert_msg(r <= 1, "n %zu b %zu d %zu rep %d: error / bound %g, seed %llu", n, b, d, rep,
                          r, (unsigned long long)seed);
            /* the selection: coarse logits off by <= (d + 2b + 4) u G, a
             * score (logit - row max) by twice that */
            double *qm = malloc(rows * d * sizeof *qm), *km = malloc(rows * d * sizeof *km),
                   *cnt = malloc(rows * sizeof *cnt), *C = malloc(rows * rows * sizeof *C);
            coarse_f64(&m, q, k, qm, km, cnt, C);
            check_selection(&m, &o, C, r32, 4.0 * ((double)d + 2.0 * (double)b + 4) * TU_U32 * G, seed);
            free(qm); free(km); free(cnt); free(C);
            free(pad); free(r32); free(r64);
            destroy_pair(p64, p32);
            free_inputs(q, k, v, q32, k32, v32);
            skit_free(y64); skit_free(ref); skit_free(y32); skit_free(eta);
        }
    /* near-ties are rare: most cases compare the two plans directly */
    ck_assert_msg(2 * same > total, "the precisions selected alike in %zu of %zu cases, seed %llu", same, total,
                  (unsigned long long)seed);
}
END_TEST

/* With every square refined, the float32 MRA-2 plan is exact attention:
 * held to the MRA bound against the float64 exact plan, at a prime row
 * count. */
START_TEST(test_mra_f32_full_budget_is_exact)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    size_t n = 112, d = 8, dv = 3, b = 16;
    double *q, *k, *v;
    float *q32 = random_f32(&rng, n * d, &q), *k32 = random_f32(&rng, n * d, &k),
          *v32 = random_f32(&rng, n * dv, &v);
    skit_attention_options o, e;
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    o.block = b;
    o.blocks_per_row[0] = n / b;
    o.precision = SKIT_PRECISION_F32;
    skit_attention_options_init(&e, SKIT_ATTENTION_EXACT);
    skit_attention_plan *p32, *p64;
    TU_EXPECT_OK(skit_attention_plan_create(&p32, n, d, dv, &o));
    TU_EXPECT_OK(skit_attention_plan_create(&p64, n, d, dv, &e));
    float *y32 = tu_alloc_f32(n * dv);
    double *y64 = tu_alloc(n * dv), *eta = tu_alloc(n), scale = 1 / sqrt((double)d);
    TU_EXPECT_OK(skit_attention_plan_execute_f32(p32, q32, n, k32, n, v32, n, NULL, y32, n, NULL));
    TU_EXPECT_OK(skit_attention_plan_execute(p64, q, n, k, n, v, n, NULL, y64, n, NULL));
    double G = logit_bound(n, d, q, k, scale);
    for (size_t i = 0; i < n; i++)
        eta[i] = TU_U32 * (((double)d + 2.0 * (double)b + 10) * G + 3.0 * (double)(n / b) + 6);
    double r = f32_bound_ratio(n, dv, y32, y64, v, eta, 2.0 * (double)b + 4);
    ck_assert_msg(r <= 1, "error / bound %g, seed %llu", r, (unsigned long long)seed);
    destroy_pair(p32, p64);
    free_inputs(q, k, v, q32, k32, v32);
    skit_free(y32); skit_free(y64); skit_free(eta);
}
END_TEST

/* Each precision's forms refuse the other's plans; float32 plans only for
 * exact, mra2, mra2s on the cpu with two MRA levels; argument errors of
 * the _f32 forms */
START_TEST(test_f32_plan_errors)
{
    size_t n = 64, d = 4, dv = 2;
    float q[64 * 4] = {0}, k[64 * 4] = {0}, v[64 * 2] = {0}, y[64 * 2], g[64 * 4];
    double qd[64 * 4] = {0}, kd[64 * 4] = {0}, vd[64 * 2] = {0}, yd[64 * 2], gd[64 * 4];
    unsigned char refined[16];
    skit_attention_options o;
    skit_attention_plan *p32 = NULL, *p64 = NULL;
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++) { /* the methods without a float32 plan */
        if (m == SKIT_ATTENTION_EXACT || m == SKIT_ATTENTION_MRA2 || m == SKIT_ATTENTION_MRA2_SPARSE) continue;
        skit_attention_options_init(&o, (skit_attention_method)m);
        o.precision = SKIT_PRECISION_F32;
        o.block = 16;
        TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_EUNSUPPORTED);
        ck_assert_ptr_null(p32);
    }
    skit_attention_options_init(&o, SKIT_ATTENTION_MRA2);
    o.block = 16;
    o.blocks_per_row[0] = 2;
    o.precision = (skit_precision)7;
    TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_EINVAL);
    o.precision = SKIT_PRECISION_F32;
    o.device = SKIT_DEVICE_CUDA;
    TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_EUNSUPPORTED);
    o.device = SKIT_DEVICE_CPU;
    o.levels = 3, o.scales[0] = 16, o.scales[1] = 4, o.scales[2] = 1;
    TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_EUNSUPPORTED);
    o.levels = 2, o.scales[1] = 2; /* two levels, but not down to single tokens */
    TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_EUNSUPPORTED);
    o.levels = 0;
    o.scale = 1e39;
    TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_EDOM);
    o.scale = 0;
    o.block = 24; /* does not divide n */
    TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_ESHAPE);
    o.block = 16;
    o.blocks_per_row[0] = 5;
    TU_EXPECT_STATUS(skit_attention_plan_create(&p32, n, d, dv, &o), SKIT_EDOM);
    o.blocks_per_row[0] = 2;
    TU_EXPECT_OK(skit_attention_plan_create(&p32, n, d, dv, &o));
    o.precision = SKIT_PRECISION_F64;
    TU_EXPECT_OK(skit_attention_plan_create(&p64, n, d, dv, &o));
    /* the other precision's forms: SKIT_EINVAL */
    TU_EXPECT_STATUS(skit_attention_plan_execute(p32, qd, n, kd, n, vd, n, NULL, yd, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(p64, q, n, k, n, v, n, NULL, y, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_backward(p32, qd, n, kd, n, vd, n, NULL, NULL, vd, n, gd, n, NULL, n, NULL,
                                                  n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p64, q, n, k, n, v, n, NULL, NULL, v, n, g, n, NULL, n, NULL,
                                                      n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_select(p32, qd, n, kd, n, NULL, refined), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_select_f32(p64, q, n, k, n, NULL, refined), SKIT_EINVAL);
    /* arguments of the _f32 forms */
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(NULL, q, n, k, n, v, n, NULL, y, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(p32, NULL, n, k, n, v, n, NULL, y, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(p32, q, n, k, n, v, n, NULL, NULL, n, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(p32, q, n - 1, k, n, v, n, NULL, y, n, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(p32, q, n, k, n, v, n, NULL, y, 3, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_plan_select_f32(p32, q, n, k, n, NULL, NULL), SKIT_EINVAL);
    q[5] = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(p32, q, n, k, n, v, n, NULL, y, n, NULL), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_attention_plan_select_f32(p32, q, n, k, n, NULL, refined), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, q, n, k, n, v, n, NULL, NULL, v, n, g, n, NULL, n, NULL,
                                                      n), SKIT_ENONFINITE);
    q[5] = 0;
    v[7] = INFINITY;
    TU_EXPECT_STATUS(skit_attention_plan_execute_f32(p32, q, n, k, n, v, n, NULL, y, n, NULL), SKIT_ENONFINITE);
    v[7] = 0;
    TU_EXPECT_OK(skit_attention_plan_execute_f32(p32, q, n, k, n, v, n, NULL, y, n, NULL));
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, q, n, k, n, v, n, NULL, NULL, NULL, n, g, n, NULL, n, NULL,
                                                      n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, q, n, k, n, v, n, NULL, NULL, v, n - 1, g, n, NULL, n,
                                                      NULL, n), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, q, n, k, n, v, n, NULL, NULL, v, n, g, n - 1, NULL, n,
                                                      NULL, n), SKIT_ESHAPE);
    unsigned char pad[64];
    memset(pad, 1, sizeof pad);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, q, n, k, n, v, n, pad, NULL, v, n, g, n, NULL, n, NULL, n),
                     SKIT_EUNSUPPORTED); /* MRA-2's backward takes no padding */
    TU_EXPECT_STATUS(skit_attention_plan_backward(p64, qd, n, kd, n, vd, n, pad, NULL, vd, n, gd, n, NULL, n, NULL,
                                                  n), SKIT_EUNSUPPORTED);
    destroy_pair(p32, p64);
    /* a causal MRA-2 backward needs every diagonal square refined */
    o.causal = 1;
    for (int f32 = 0; f32 < 2; f32++) {
        o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
        skit_attention_plan *p;
        TU_EXPECT_OK(skit_attention_plan_create(&p, n, d, dv, &o));
        memset(refined, 0, sizeof refined);
        TU_EXPECT_STATUS(f32 ? skit_attention_plan_backward_f32(p, q, n, k, n, v, n, NULL, refined, v, n, g, n, NULL,
                                                                n, NULL, n)
                             : skit_attention_plan_backward(p, qd, n, kd, n, vd, n, NULL, refined, vd, n, gd, n, NULL,
                                                            n, NULL, n),
                         SKIT_EINVAL);
        skit_attention_plan_destroy(p);
    }
    /* no backward: more MRA levels, the baselines; no selection but
     * MRA's */
    const struct {
        skit_attention_method method;
        size_t levels;
        skit_precision precision;
    } none[] = {{SKIT_ATTENTION_MRA2, 3, SKIT_PRECISION_F64},
                {SKIT_ATTENTION_LOWRANK, 0, SKIT_PRECISION_F64},
                {SKIT_ATTENTION_WINDOW, 0, SKIT_PRECISION_F64}};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        skit_attention_options_init(&o, none[i].method);
        o.block = 16, o.blocks_per_row[0] = o.blocks_per_row[1] = 2, o.rank = 8;
        o.levels = none[i].levels, o.scales[0] = 16, o.scales[1] = 4, o.scales[2] = 1;
        o.precision = none[i].precision;
        skit_attention_plan *p;
        TU_EXPECT_OK(skit_attention_plan_create(&p, n, d, dv, &o));
        TU_EXPECT_STATUS(none[i].precision == SKIT_PRECISION_F32
                             ? skit_attention_plan_backward_f32(p, q, n, k, n, v, n, NULL, NULL, v, n, g, n, NULL, n,
                                                                NULL, n)
                             : skit_attention_plan_backward(p, qd, n, kd, n, vd, n, NULL, NULL, vd, n, gd, n, NULL, n,
                                                            NULL, n),
                         SKIT_EUNSUPPORTED);
        if (none[i].method == SKIT_ATTENTION_LOWRANK || none[i].method == SKIT_ATTENTION_WINDOW)
            TU_EXPECT_STATUS(skit_attention_plan_select(p, qd, n, kd, n, NULL, refined), SKIT_EUNSUPPORTED);
        skit_attention_plan_destroy(p);
    }
    skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
    o.precision = SKIT_PRECISION_F32;
    TU_EXPECT_OK(skit_attention_plan_create(&p32, n, d, dv, &o));
    TU_EXPECT_STATUS(skit_attention_plan_select_f32(p32, q, n, k, n, NULL, refined), SKIT_EUNSUPPORTED);
    skit_attention_plan_destroy(p32);
}
END_TEST

/* A float32 plan's scratch is float: its memory well under the float64
 * plan's of the same options; calls change no plan's memory */
START_TEST(test_f32_plan_bytes)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 2048, d = 32, dv = 32;
    double *q, *k, *v, *dy;
    float *q32 = random_f32(&rng, n * d, &q), *k32 = random_f32(&rng, n * d, &k), *v32 = random_f32(&rng, n * dv, &v);
    float *dy32 = random_f32(&rng, n * dv, &dy), *y32 = tu_alloc_f32(3 * n * d);
    double *y = tu_alloc(3 * n * d);
    unsigned char refined[4096];
    const skit_attention_method methods[] = {SKIT_ATTENTION_EXACT, SKIT_ATTENTION_MRA2, SKIT_ATTENTION_MRA2_SPARSE};
    for (size_t m = 0; m < 3; m++) {
        skit_attention_options o;
        skit_attention_options_init(&o, methods[m]);
        skit_attention_plan *p64, *p32;
        plan_pair(n, d, dv, &o, &p64, &p32);
        size_t b64 = skit_attention_plan_bytes(p64), b32 = skit_attention_plan_bytes(p32);
        ck_assert_msg(b32 > 0 && 10 * b32 < 7 * b64, "%s: float32 plan %zu bytes, float64 %zu",
                      skit_attention_method_name(methods[m]), b32, b64);
        TU_EXPECT_OK(skit_attention_plan_execute(p64, q, n, k, n, v, n, NULL, y, n, NULL));
        TU_EXPECT_OK(skit_attention_plan_execute_f32(p32, q32, n, k32, n, v32, n, NULL, y32, n, NULL));
        if (methods[m] != SKIT_ATTENTION_EXACT) {
            TU_EXPECT_OK(skit_attention_plan_select(p64, q, n, k, n, NULL, refined));
            TU_EXPECT_OK(skit_attention_plan_select_f32(p32, q32, n, k32, n, NULL, refined));
        }
        if (methods[m] != SKIT_ATTENTION_MRA2_SPARSE) {
            TU_EXPECT_OK(skit_attention_plan_backward(p64, q, n, k, n, v, n, NULL, NULL, dy, n, y, n, y + n * d, n,
                                                      y + 2 * n * d, n));
            TU_EXPECT_OK(skit_attention_plan_backward_f32(p32, q32, n, k32, n, v32, n, NULL, NULL, dy32, n, y32, n,
                                                          y32 + n * d, n, y32 + 2 * n * d, n));
        }
        ck_assert(skit_attention_plan_bytes(p64) == b64 && skit_attention_plan_bytes(p32) == b32);
        destroy_pair(p64, p32);
    }
    skit_free(q); skit_free(k); skit_free(v); skit_free(dy);
    skit_free(q32); skit_free(k32); skit_free(v32); skit_free(dy32); skit_free(y32); skit_free(y);
}
END_TEST

static Suite *attention_suite(void)
{
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("exact");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_exact_matches_naive);
    tcase_add_test(tc, test_exact_leading_dimensions_and_wide_heads);
    tcase_add_test(tc, test_exact_masks);
    tcase_add_test(tc, test_exact_huge_logits_finite);
    tcase_add_test(tc, test_causal_exact_matrix_entropy);
    tcase_add_test(tc, test_causal_methods);
    tcase_add_test(tc, test_causal_backward);
    tcase_add_test(tc, test_matrix_entropy_relative_error);
    suite_add_tcase(s, tc);
    tc = tcase_create("float32");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_exact_f32_plan_matches_f64);
    tcase_add_test(tc, test_f32_plan_leading_dimensions);
    tcase_add_test(tc, test_mra_f32_plan_matches_f64);
    tcase_add_test(tc, test_mra_f32_full_budget_is_exact);
    tcase_add_test(tc, test_f32_plan_errors);
    tcase_add_test(tc, test_f32_plan_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("mra");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_mra_full_budget_equals_exact);
    tcase_add_test(tc, test_mra_partial_budget_matches_reference);
    tcase_add_test(tc, test_mra_masked_partial_matches_reference);
    tcase_add_test(tc, test_mra_selection_ties_and_digits);
    tcase_add_test(tc, test_mra_extreme_inputs);
    tcase_add_test(tc, test_mra_coarse_logits_are_block_means);
    tcase_add_test(tc, test_mra_shift_invariance);
    tcase_add_test(tc, test_mra_30x_logit_scale_finite);
    tcase_add_test(tc, test_mra_stats_and_memory);
    suite_add_tcase(s, tc);
    tc = tcase_create("baselines");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_baselines_exact_limits);
    tcase_add_test(tc, test_window_and_topk_patterns);
    tcase_add_test(tc, test_bigbird_pattern);
    tcase_add_test(tc, test_random_baselines_seeded_and_converging);
    tcase_add_test(tc, test_budget_needed);
    tcase_add_test(tc, test_options_set_budget_matches_tool);
    tcase_add_test(tc, test_options_set_budget_errors);
    tcase_add_test(tc, test_temperature_for_entropy);
    suite_add_tcase(s, tc);
    tc = tcase_create("analysis");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_frame_decomposition_and_observation_a1);
    tcase_add_test(tc, test_haar_transform);
    tcase_add_test(tc, test_lemma41_and_prop45_hold);
    tcase_add_test(tc, test_synthetic_deterministic_and_entropy);
    tcase_add_test(tc, test_read_npy);
    tcase_add_test(tc, test_config_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(attention_suite()); }
