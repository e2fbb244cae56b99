/* test_threads.c — execute on a const plan is thread-safe (skit/core.h):
 * two threads run one plan at once, each on its own input, many times,
 * and every result must equal the one the plan gives alone. The plans'
 * scratch is lent to one call at a time (a concurrent call gets its own),
 * so a shared buffer would show here as a wrong result.
 * Every run draws fresh random data (tu_seed; set SKIT_TEST_SEED to replay). */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check_util.h"

#define ROUNDS 40

/* One operator behind a uniform call: y = op(x). */
typedef struct shared_plan {
    int (*run)(const void *plan, const double *x, double *y);
    const void *plan;
    size_t in, out;         /* doubles of x and y */
    const double *x;        /* this thread's input */
    const double *expected; /* its output, computed alone */
    int failures;           /* results that differ */
    int status;             /* first non-OK status */
} shared_plan;

static void *worker(void *arg)
{
    shared_plan *s = arg;
    double *y = tu_alloc(s->out);
    for (int round = 0; round < ROUNDS; round++) {
        tu_poison(y, s->out);
        int status = s->run(s->plan, s->x, y);
        if (status != SKIT_OK && s->status == SKIT_OK) s->status = status;
        if (memcmp(y, s->expected, s->out * sizeof *y) != 0) s->failures++;
    }
    skit_free(y);
    return NULL;
}

/* Computes each input's output alone, then runs both at once. */
static void check_two_threads(int (*run)(const void *, const double *, double *), const void *plan,
                              size_t in, size_t out, const char *what)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    shared_plan s[2];
    for (int t = 0; t < 2; t++) {
        double *x = tu_random(&rng, in), *y = tu_alloc(out);
        TU_EXPECT_OK(run(plan, x, y));
        s[t] = (shared_plan){.run = run, .plan = plan, .in = in, .out = out, .x = x, .expected = y};
    }
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) ck_assert_int_eq(pthread_create(&threads[t], NULL, worker, &s[t]), 0);
    for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
    for (int t = 0; t < 2; t++) {
        ck_assert_msg(s[t].status == SKIT_OK, "%s: thread %d: status %d", what, t, s[t].status);
        ck_assert_msg(s[t].failures == 0, "%s: thread %d: %d of %d results differ from the plan's "
                      "result alone (seed %llu)", what, t, s[t].failures, ROUNDS, (unsigned long long)seed);
        skit_free((double *)s[t].x);
        skit_free((double *)s[t].expected);
    }
}

/* ---- Toeplitz ------------------------------------------------------------ */

typedef struct toeplitz_case {
    const skit_toeplitz_plan *plan;
    size_t m, n, d;
    int transpose;
} toeplitz_case;

static int run_toeplitz(const void *arg, const double *x, double *y)
{
    const toeplitz_case *c = arg;
    if (c->transpose) return skit_toeplitz_plan_execute_transpose(c->plan, x, c->m, y, c->n, NULL);
    return skit_toeplitz_plan_execute(c->plan, x, c->n, y, c->m, NULL);
}

/* A float32 plan behind the harness's double arrays: x rounded to float, y
 * widened back (each call its own buffers, so only the plan is shared). */
static int via_f32(int (*call)(const void *, const float *, float *), const void *arg, size_t nin, size_t nout,
                   const double *x, double *y)
{
    float *x32 = skit_malloc(nin, sizeof(float)), *y32 = skit_malloc(nout, sizeof(float));
    int status = x32 && y32 ? SKIT_OK : SKIT_ENOMEM;
    for (size_t i = 0; status == SKIT_OK && i < nin; i++) x32[i] = (float)x[i];
    if (status == SKIT_OK) status = call(arg, x32, y32);
    for (size_t i = 0; status == SKIT_OK && i < nout; i++) y[i] = y32[i];
    skit_free(x32);
    skit_free(y32);
    return status;
}

static int call_toeplitz_f32(const void *arg, const float *x, float *y)
{
    const toeplitz_case *c = arg;
    return c->transpose ? skit_toeplitz_plan_execute_transpose_f32(c->plan, x, c->m, y, c->n, NULL)
                        : skit_toeplitz_plan_execute_f32(c->plan, x, c->n, y, c->m, NULL);
}

static int run_toeplitz_f32(const void *arg, const double *x, double *y)
{
    const toeplitz_case *c = arg;
    const size_t nin = (c->transpose ? c->m : c->n) * c->d, nout = (c->transpose ? c->n : c->m) * c->d;
    return via_f32(call_toeplitz_f32, arg, nin, nout, x, y);
}

START_TEST(test_toeplitz_plan_two_threads)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t m = 3001, n = 2048, d = 6;
    double *coeffs = tu_random(&rng, d * (m + n - 1));
    for (int f32 = 0; f32 < 2; f32++) {
        skit_toeplitz_plan *plan = NULL;
        TU_EXPECT_OK(skit_toeplitz_plan_create(
            &plan, m, n, d,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                     .causality = SKIT_BIDIRECTIONAL,
                                     .precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64},
            coeffs));
        for (int transpose = 0; transpose < 2; transpose++) {
            toeplitz_case c = {plan, m, n, d, transpose};
            check_two_threads(f32 ? run_toeplitz_f32 : run_toeplitz, &c, (transpose ? m : n) * d,
                              (transpose ? n : m) * d,
                              transpose ? (f32 ? "Toeplitz float32 transposed" : "Toeplitz transposed")
                                        : (f32 ? "Toeplitz float32" : "Toeplitz"));
        }
        skit_toeplitz_plan_destroy(plan);
    }
    skit_free(coeffs);
}
END_TEST

/* ---- FD-TNO plan ---------------------------------------------------------- */

typedef struct fdtno_case {
    const skit_fdtno_plan *plan;
    size_t n, d;
} fdtno_case;

static int run_fdtno(const void *arg, const double *x, double *y)
{
    const fdtno_case *c = arg;
    return skit_fdtno_plan_execute(c->plan, x, c->n, y, c->n, NULL);
}

static int call_fdtno_f32(const void *arg, const float *x, float *y)
{
    const fdtno_case *c = arg;
    return skit_fdtno_plan_execute_f32(c->plan, x, c->n, y, c->n, NULL);
}

static int run_fdtno_f32(const void *arg, const double *x, double *y)
{
    const fdtno_case *c = arg;
    return via_f32(call_fdtno_f32, arg, c->n * c->d, c->n * c->d, x, y);
}

START_TEST(test_fdtno_plan_two_threads)
{
    const size_t n = 1500, d = 8;
    skit_mlp *mlp = NULL;
    TU_EXPECT_OK(skit_mlp_create(&mlp, 1, 16, 2, d, SKIT_ACTIVATION_GELU, SKIT_NORM_RMS, tu_seed()));
    for (int f32 = 0; f32 < 2; f32++) {
        skit_fdtno_options o;
        skit_fdtno_options_default(&o);
        o.causality = SKIT_CAUSAL;
        o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
        skit_fdtno_plan *plan = NULL;
        TU_EXPECT_OK(skit_fdtno_plan_create(&plan, n, d, &o));
        TU_EXPECT_OK(skit_fdtno_plan_set_mlp(plan, mlp));
        fdtno_case c = {plan, n, d};
        check_two_threads(f32 ? run_fdtno_f32 : run_fdtno, &c, n * d, n * d,
                          f32 ? "FD-TNO plan float32" : "FD-TNO plan");
        skit_fdtno_plan_destroy(plan);
    }
    skit_mlp_destroy(mlp);
}
END_TEST

/* ---- token mixers ---------------------------------------------------------- */

static int run_tno(const void *plan, const double *x, double *y)
{
    return skit_tno_plan_execute(plan, x, y, NULL);
}

static int call_tno_f32(const void *plan, const float *x, float *y)
{
    return skit_tno_plan_execute_f32(plan, x, y, NULL);
}

static int run_tno_f32(const void *plan, const double *x, double *y)
{
    const size_t total = skit_tno_plan_batch(plan) * skit_tno_plan_n(plan) * skit_tno_plan_d(plan);
    return via_f32(call_tno_f32, plan, total, total, x, y);
}

START_TEST(test_tno_plans_two_threads)
{
    const size_t n = 700, d = 24, batch = 2;
    const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI};
    for (size_t k = 0; k < 3; k++)
        for (int causal = 0; causal < 2; causal++)
            for (int layout = 0; layout < 2; layout++) {
                skit_tno_options o;
                skit_tno_options_default(&o, kinds[k]);
                o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
                o.layout = layout ? SKIT_TNO_CHANNELS : SKIT_TNO_ROWS;
                o.rpe_width = 8;
                o.rpe_layers = 1;
                o.rank = 32;
                o.seed = tu_seed();
                for (int blocked = 0; blocked < (kinds[k] == SKIT_TNO_SKI && causal ? 2 : 1); blocked++) {
                    o.causal_ski = blocked ? SKIT_TNO_CAUSAL_BLOCKED : SKIT_TNO_CAUSAL_CUMSUM;
                    skit_tno_plan *plan = NULL;
                    TU_EXPECT_OK(skit_tno_plan_create(&plan, n, d, batch, &o, NULL, 0));
                    char what[256];
                    skit_tno_plan_describe(plan, what, sizeof what);
                    check_two_threads(run_tno, plan, batch * n * d, batch * n * d, what);
                    skit_tno_plan_destroy(plan);
                    o.precision = SKIT_PRECISION_F32;
                    TU_EXPECT_OK(skit_tno_plan_create(&plan, n, d, batch, &o, NULL, 0));
                    check_two_threads(run_tno_f32, plan, batch * n * d, batch * n * d, "float32 TNO/FD-TNO/SKI-TNO");
                    skit_tno_plan_destroy(plan);
                    o.precision = SKIT_PRECISION_F64;
                }
            }
}
END_TEST

/* ---- SKI and Nystrom plans -------------------------------------------------- */

typedef struct ski_case {
    const skit_ski_plan *ski;
    const skit_nystrom_plan *nystrom;
    const skit_sparse_lowrank_plan *sparse;
    size_t n, d;
} ski_case;

static int run_ski(const void *arg, const double *x, double *y)
{
    const ski_case *c = arg;
    if (c->ski) return skit_ski_plan_execute(c->ski, x, c->n, y, c->n);
    if (c->nystrom) return skit_nystrom_plan_execute(c->nystrom, c->d, x, c->n, y, c->n);
    return skit_sparse_lowrank_plan_execute(c->sparse, x, c->n, y, c->n);
}

static int call_ski_f32(const void *arg, const float *x, float *y)
{
    const ski_case *c = arg;
    return skit_ski_plan_execute_f32(c->ski, x, c->n, y, c->n);
}

static int run_ski_f32(const void *arg, const double *x, double *y)
{
    const ski_case *c = arg;
    return via_f32(call_ski_f32, arg, c->n * c->d, c->n * c->d, x, y);
}

START_TEST(test_ski_plans_two_threads)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t n = 2000, r = 64, d = 12, m = 9;
    skit_interp_options io;
    skit_interp_options_default(&io, n);
    skit_interp_weights *W = NULL;
    TU_EXPECT_OK(skit_interp_weights_create(&W, n, NULL, r, &io));
    double *coeffs = tu_random(&rng, d * (2 * r - 1)), *band = tu_random(&rng, d * m);
    static const char *const names[] = {"SKI sparse-fft", "SKI dense", "SKI sparse-fft float32"};
    for (int variant = 0; variant < 3; variant++) {
        skit_ski_options o;
        skit_ski_options_default(&o);
        o.method = variant == 1 ? SKIT_SKI_DENSE : SKIT_SKI_SPARSE_FFT;
        o.precision = variant == 2 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
        skit_ski_plan *ski = NULL;
        TU_EXPECT_OK(skit_ski_plan_create(&ski, W, d, &o, coeffs));
        ski_case c = {.ski = ski, .n = n, .d = d};
        check_two_threads(variant == 2 ? run_ski_f32 : run_ski, &c, n * d, n * d, names[variant]);
        skit_ski_plan_destroy(ski);
    }
    skit_sparse_lowrank_plan *sparse = NULL;
    TU_EXPECT_OK(skit_sparse_lowrank_plan_create(&sparse, n, d, m, band, W, coeffs, SKIT_SKI_SPARSE_FFT));
    ski_case cs = {.sparse = sparse, .n = n, .d = d};
    check_two_threads(run_ski, &cs, n * d, n * d, "sparse + low rank");
    skit_sparse_lowrank_plan_destroy(sparse);
    skit_kernel *kernel = NULL;
    TU_EXPECT_OK(skit_kernel_gaussian_create(&kernel, 1.0, 40.0));
    skit_nystrom_plan *nystrom = NULL;
    TU_EXPECT_OK(skit_nystrom_plan_create(&nystrom, kernel, n, r, 0.0, (double)(n - 1), -1.0, NULL));
    ski_case cn = {.nystrom = nystrom, .n = n, .d = d};
    check_two_threads(run_ski, &cn, n * d, n * d, "Nystrom");
    skit_nystrom_plan_destroy(nystrom);
    skit_kernel_destroy(kernel);
    skit_interp_weights_destroy(W);
    skit_free(coeffs);
    skit_free(band);
}
END_TEST

/* ---- attention plans: concurrent calls run on copies of the plan -------------- */

typedef struct attention_case {
    const skit_attention_plan *plan;
    size_t n, d;
} attention_case;

/* x holds Q, K and V (n x d each) one after another */
static int run_attention(const void *arg, const double *x, double *y)
{
    const attention_case *c = arg;
    const size_t n = c->n, block = n * c->d;
    skit_attention_stats stats;
    int status = skit_attention_plan_execute(c->plan, x, n, x + block, n, x + 2 * block, n, NULL, y,
                                             n, &stats);
    if (status == SKIT_OK && !(stats.entries > 0)) status = SKIT_EINVAL;
    return status;
}

START_TEST(test_attention_plans_two_threads)
{
    const size_t n = 512, d = 16;
    const skit_attention_method methods[] = {SKIT_ATTENTION_EXACT,       SKIT_ATTENTION_MRA2,
                                             SKIT_ATTENTION_MRA2_SPARSE, SKIT_ATTENTION_NYSTROM,
                                             SKIT_ATTENTION_PERFORMER,   SKIT_ATTENTION_BIGBIRD};
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        skit_attention_options o;
        skit_attention_options_init(&o, methods[k]);
        skit_attention_plan *plan = NULL;
        TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, d, &o));
        attention_case c = {plan, n, d};
        check_two_threads(run_attention, &c, 3 * n * d, n * d,
                          skit_attention_method_name(methods[k]));
        skit_attention_plan_destroy(plan);
    }
    /* linformer-fit: a copy made for the second thread must execute with
     * the plan's fitted F (a copy of its own would be unfitted and fail) */
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_LINFORMER_FIT);
    skit_attention_plan *plan = NULL;
    TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, d, &o));
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d);
    TU_EXPECT_OK(skit_attention_plan_fit(plan, q, n, k, n, NULL));
    attention_case c = {plan, n, d};
    check_two_threads(run_attention, &c, 3 * n * d, n * d, "linformer-fit");
    skit_attention_plan_destroy(plan);
    skit_free(q);
    skit_free(k);
}
END_TEST

/* float32 plans: x rounded to float (via_f32) */
static int call_attention_f32(const void *arg, const float *x, float *y)
{
    const attention_case *c = arg;
    const size_t n = c->n, block = n * c->d;
    skit_attention_stats stats;
    int status = skit_attention_plan_execute_f32(c->plan, x, n, x + block, n, x + 2 * block, n, NULL, y, n, &stats);
    if (status == SKIT_OK && !(stats.entries > 0)) status = SKIT_EINVAL;
    return status;
}

static int run_attention_f32(const void *arg, const double *x, double *y)
{
    const attention_case *c = arg;
    return via_f32(call_attention_f32, arg, 3 * c->n * c->d, c->n * c->d, x, y);
}

/* the backward: x holds Q, K, V and dY, y receives dQ, dK and dV */
static int run_attention_backward(const void *arg, const double *x, double *y)
{
    const attention_case *c = arg;
    const size_t n = c->n, b = n * c->d;
    return skit_attention_plan_backward(c->plan, x, n, x + b, n, x + 2 * b, n, NULL, NULL, x + 3 * b, n, y, n, y + b,
                                        n, y + 2 * b, n);
}

static int call_attention_backward_f32(const void *arg, const float *x, float *y)
{
    const attention_case *c = arg;
    const size_t n = c->n, b = n * c->d;
    return skit_attention_plan_backward_f32(c->plan, x, n, x + b, n, x + 2 * b, n, NULL, NULL, x + 3 * b, n, y, n,
                                            y + b, n, y + 2 * b, n);
}

static int run_attention_backward_f32(const void *arg, const double *x, double *y)
{
    const attention_case *c = arg;
    return via_f32(call_attention_backward_f32, arg, 4 * c->n * c->d, 3 * c->n * c->d, x, y);
}

/* float32 plans' executes, and both precisions' backwards (exact; MRA-2,
 * causal, selecting its squares again in every call) */
START_TEST(test_attention_f32_and_backward_two_threads)
{
    const size_t n = 256, d = 8;
    const skit_attention_method methods[] = {SKIT_ATTENTION_EXACT, SKIT_ATTENTION_MRA2, SKIT_ATTENTION_MRA2_SPARSE};
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        for (int f32 = 0; f32 < 2; f32++) {
            skit_attention_options o;
            skit_attention_options_init(&o, methods[k]);
            o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
            o.causal = methods[k] == SKIT_ATTENTION_MRA2;
            skit_attention_plan *plan = NULL;
            TU_EXPECT_OK(skit_attention_plan_create(&plan, n, d, d, &o));
            attention_case c = {plan, n, d};
            char what[64];
            snprintf(what, sizeof what, "%s %s", skit_attention_method_name(methods[k]), f32 ? "f32" : "f64");
            if (f32) check_two_threads(run_attention_f32, &c, 3 * n * d, n * d, what);
            if (methods[k] != SKIT_ATTENTION_MRA2_SPARSE) {
                strcat(what, " backward");
                check_two_threads(f32 ? run_attention_backward_f32 : run_attention_backward, &c, 4 * n * d, 3 * n * d,
                                  what);
            }
            skit_attention_plan_destroy(plan);
        }
}
END_TEST

static Suite *suite_threads(void)
{
    Suite *s = suite_create("threads");
    TCase *plans = tcase_create("plans");
    tcase_set_timeout(plans, 300);
    tcase_add_test(plans, test_toeplitz_plan_two_threads);
    tcase_add_test(plans, test_fdtno_plan_two_threads);
    tcase_add_test(plans, test_tno_plans_two_threads);
    tcase_add_test(plans, test_ski_plans_two_threads);
    tcase_add_test(plans, test_attention_plans_two_threads);
    tcase_add_test(plans, test_attention_f32_and_backward_two_threads);
    suite_add_tcase(s, plans);
    return s;
}

int main(void) { return tu_main(suite_threads()); }
