/* test_backward.c — every backward pass (vector-Jacobian product) of the
 * library: the Toeplitz plan's against the O(mn) definitions, and every
 * operator's against central finite differences (tools/gradcheck.c, the
 * checks `skit grad-check` runs) over many sizes including odd and prime
 * n, causal and bidirectional, every activation and norm; outputs are
 * NaN-poisoned first, so an unwritten gradient fails. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "attention/attention_internal.h"
#include "check_util.h"
#include "cli/fdiff.h"
#include "gradcheck.h"

/* dcoeffs by the definition: dt_k = sum_i dy_i x_{i-k} */
static void dcoeffs_naive(size_t m, size_t n, const double *x, const double *dy, double *dt)
{
    for (size_t k = 0; k < m + n - 1; k++) dt[k] = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) dt[i - j + (n - 1)] += dy[i] * x[j];
}

static void check_toeplitz_shape(skit_rng *rng, size_t m, size_t n, size_t d, int shared, int causal)
{
    skit_toeplitz_options opt;
    skit_toeplitz_options_default(&opt);
    opt.sharing = shared ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL;
    opt.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    size_t per = m + n - 1, nmat = shared ? 1 : d;
    double *t = tu_random(rng, nmat * per), *x = tu_random(rng, n * d), *dy = tu_random(rng, m * d);
    double *dx = tu_alloc(n * d), *dt = tu_alloc(nmat * per), *ref = tu_alloc(n), *ref_t = tu_alloc(nmat * per),
           *one = tu_alloc(per);
    skit_toeplitz_plan *p;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p, m, n, d, &opt, t));
    void *work = skit_malloc(skit_toeplitz_plan_backward_workspace_bytes(p), 1);
    TU_EXPECT_OK(skit_toeplitz_plan_backward(p, x, n, dy, m, dx, n, dt, work));
    for (size_t k = 0; k < nmat * per; k++) ref_t[k] = 0;
    for (size_t c = 0; c < d; c++) {
        const double *tc = t + (shared ? 0 : c * per);
        TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, tc, opt.causality, 1, dy + c * m, ref));
        double e = tu_rel_error(dx + c * n, ref, n);
        ck_assert_msg(e < 1e-12, "dx m=%zu n=%zu c=%zu causal=%d: error %g", m, n, c, causal, e);
        dcoeffs_naive(m, n, x + c * n, dy + c * m, one);
        if (causal)
            for (size_t k = 0; k + 1 < n; k++) one[k] = 0;
        for (size_t k = 0; k < per; k++) ref_t[(shared ? 0 : c * per) + k] += one[k];
    }
    double e = tu_rel_error(dt, ref_t, nmat * per);
    ck_assert_msg(e < 1e-12, "dcoeffs m=%zu n=%zu d=%zu shared=%d causal=%d: error %g", m, n, d, shared, causal, e);
    skit_toeplitz_plan_destroy(p);
    skit_free(work);
    skit_free(t);
    skit_free(x);
    skit_free(dy);
    skit_free(dx);
    skit_free(dt);
    skit_free(ref);
    skit_free(ref_t);
    skit_free(one);
}

START_TEST(test_toeplitz_backward_definition)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64, 97, 100, 127, 211};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (int causal = 0; causal < 2; causal++)
            for (int shared = 0; shared < 2; shared++) {
                size_t n = sizes[a];
                check_toeplitz_shape(&rng, n, n, 3, shared, causal);
                if (!causal) check_toeplitz_shape(&rng, n + 2, n, 2, shared, 0); /* rectangular */
            }
}
END_TEST

/* ---- float32 ------------------------------------------------------------- */

/* count normal values rounded to float: f, and w the same in double */
static void random_rounded(skit_rng *rng, size_t count, float *f, double *w)
{
    skit_rng_fill_normal(rng, w, count);
    for (size_t i = 0; i < count; i++) w[i] = f[i] = (float)w[i];
}

/* ||a32 - a64||_2 over count values (NaN: infinite) */
static double f32_distance(const float *a32, const double *a64, size_t count)
{
    double s = 0;
    for (size_t i = 0; i < count; i++) s += ((double)a32[i] - a64[i]) * ((double)a32[i] - a64[i]);
    return isnan(s) ? INFINITY : sqrt(s);
}

/* A float32 Toeplitz plan's backward against the float64 plan's on the
 * same (rounded) data, per channel within the bounds skit/toeplitz.h
 * states: dx 20 log2(2N) u ||t_c||_1 ||dy_c||_2, dcoeffs (30 log2(2N) + J) u
 * sum_j (||x_j||_1 ||dy_j||_2 + ||x_j||_2 ||dy_j||_1). */
static void check_toeplitz_f32(skit_rng *rng, size_t m, size_t n, size_t d, int shared, int causal, uint64_t seed)
{
    skit_toeplitz_options opt;
    skit_toeplitz_options_default(&opt);
    opt.sharing = shared ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL;
    opt.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    const size_t per = m + n - 1, nmat = shared ? 1 : d;
    float *xf = tu_alloc_f32(n * d), *dyf = tu_alloc_f32(m * d), *tf = tu_alloc_f32(nmat * per);
    float *dxf = tu_alloc_f32(n * d), *dtf = tu_alloc_f32(nmat * per);
    double *x = tu_alloc(n * d), *dy = tu_alloc(m * d), *t = tu_alloc(nmat * per), *dx = tu_alloc(n * d),
           *dt = tu_alloc(nmat * per);
    random_rounded(rng, n * d, xf, x);
    random_rounded(rng, m * d, dyf, dy);
    random_rounded(rng, nmat * per, tf, t);
    skit_toeplitz_plan *p64, *p32;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p64, m, n, d, &opt, t));
    opt.precision = SKIT_PRECISION_F32;
    TU_EXPECT_OK(skit_toeplitz_plan_create(&p32, m, n, d, &opt, t));
    TU_EXPECT_OK(skit_toeplitz_plan_backward(p64, x, n, dy, m, dx, n, dt, NULL));
    void *work = skit_malloc(skit_toeplitz_plan_backward_workspace_bytes(p32), 1);
    TU_EXPECT_OK(skit_toeplitz_plan_backward_f32(p32, xf, n, dyf, m, dxf, n, dtf, work));
    const double lg = log2(2.0 * (double)skit_toeplitz_plan_fft_length(p32));
    const size_t first = causal ? n - 1 : 0;
    double sums[256] = {0};
    ck_assert_uint_le(nmat, 256);
    for (size_t c = 0; c < d; c++) {
        const double *tc = t + (shared ? 0 : c * per) + first;
        double bound = 20.0 * lg * TU_U32 * gradcheck_norm1(tc, per - first) * gradcheck_norm2(dy + c * m, m);
        double err = f32_distance(dxf + c * n, dx + c * n, n);
        ck_assert_msg(err <= bound, "dx m=%zu n=%zu d=%zu shared=%d causal=%d channel %zu: %g > %g (seed %llu)", m,
                      n, d, shared, causal, c, err, bound, (unsigned long long)seed);
        sums[shared ? 0 : c] += gradcheck_norm1(x + c * n, n) * gradcheck_norm2(dy + c * m, m) +
                                gradcheck_norm2(x + c * n, n) * gradcheck_norm1(dy + c * m, m);
    }
    for (size_t k = 0; k < nmat; k++) {
        double bound = (30.0 * lg + (shared ? (double)d : 1.0)) * TU_U32 * sums[k];
        double err = f32_distance(dtf + k * per, dt + k * per, per);
        ck_assert_msg(err <= bound, "dcoeffs m=%zu n=%zu d=%zu shared=%d causal=%d matrix %zu: %g > %g (seed %llu)",
                      m, n, d, shared, causal, k, err, bound, (unsigned long long)seed);
        if (causal)
            for (size_t i = 0; i + 1 < n; i++) ck_assert(dtf[k * per + i] == 0.0f); /* exactly, as float64 */
    }
    /* each precision's plan refuses the other's backward */
    TU_EXPECT_STATUS(skit_toeplitz_plan_backward(p32, x, n, dy, m, dx, n, dt, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_toeplitz_plan_backward_f32(p64, xf, n, dyf, m, dxf, n, dtf, NULL), SKIT_EINVAL);
    skit_toeplitz_plan_destroy(p64);
    skit_toeplitz_plan_destroy(p32);
    skit_free(work);
    skit_free(xf), skit_free(dyf), skit_free(tf), skit_free(dxf), skit_free(dtf);
    skit_free(x), skit_free(dy), skit_free(t), skit_free(dx), skit_free(dt);
}

START_TEST(test_toeplitz_backward_f32)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64, 97, 100, 127, 211, 331, 1000, 2039};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (int causal = 0; causal < 2; causal++)
            for (int shared = 0; shared < 2; shared++) {
                size_t n = sizes[a];
                check_toeplitz_f32(&rng, n, n, 3, shared, causal, seed);
                if (!causal) check_toeplitz_f32(&rng, n + 2, n, 2, shared, 0, seed); /* rectangular */
            }
}
END_TEST

static void expect_gradcheck(const char *op, const gradcheck_options *o)
{
    gradcheck_result r;
    TU_EXPECT_OK(gradcheck_run(op, o, &r));
    for (size_t k = 0; k < r.ngroups; k++)
        ck_assert_msg(r.groups[k].error <= o->tolerance,
                      "%s n=%zu d=%zu %s act=%d norm=%d seed=%llu: group %s error %.3g > %.3g", op, o->n, o->d,
                      o->causal ? "causal" : "bidirectional", (int)o->activation, (int)o->norm,
                      (unsigned long long)o->seed, r.groups[k].name, r.groups[k].error, o->tolerance);
}

static const size_t fd_sizes[] = {1, 2, 3, 5, 7, 16, 31, 64, 97, 128};
#define NFD (sizeof fd_sizes / sizeof *fd_sizes)

/* the sweeps' options at size index a: activations and norms cycle with the size */
static void sweep_options(size_t a, int causal, uint64_t seed, gradcheck_options *o)
{
    gradcheck_options_default(o);
    o->n = fd_sizes[a];
    o->d = 1 + a % 4;
    o->seed = seed + a;
    o->causal = causal;
    o->activation = (skit_activation)((a + causal) % 3);
    o->norm = (skit_norm)(a % 3);
    o->samples = 4;
    o->rpe_width = 8;
    o->rpe_layers = a % 3;
}

/* every size, both causalities */
static void gradcheck_sweep(const char *op)
{
    uint64_t seed = tu_seed();
    for (size_t a = 0; a < NFD; a++)
        for (int causal = 0; causal < 2; causal++) {
            if (fd_sizes[a] < 2 && !strncmp(op, "ski", 3)) continue; /* SKI needs r >= 2 inducing points */
            gradcheck_options o;
            sweep_options(a, causal, seed, &o);
            expect_gradcheck(op, &o);
        }
}

/* fdiff_pick on ladders known in closed form: L(x) = g x + c x^3 + J
 * max(0, x - delta) has D(h) = g + c h^2 + J max(0, h - delta) / 2h. A
 * kink between two steps of the ladder biases every larger step by about
 * J/2, and those steps agree with each other: the pick must take the
 * steps below the kink (the best agreement alone took the large ones, off
 * by J/2), and claim a resolution no smaller than its error. The rounding
 * added is what the model says, u |L| / 2h, with the smallest steps' pair
 * agreeing exactly, as seen at n = 2048; kinks down to steps of 1e-8,
 * where that rounding still allows 1e-6. */
START_TEST(test_fdiff_pick_kink)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int trial = 0; trial < 200; trial++) {
        const double g = 2 * skit_rng_uniform(&rng) - 1, c = 10 * skit_rng_uniform(&rng);
        const double J = (skit_rng_uniform(&rng) < 0.5 ? -1 : 1) * (0.01 + skit_rng_uniform(&rng));
        const int kink = 2 + trial % 6; /* delta between steps kink and kink + 1 */
        const double delta = 1e-3 * pow(4.0, -(kink + skit_rng_uniform(&rng) * 0.8 + 0.1));
        const double loss = 10 + skit_rng_uniform(&rng); /* |L|: what the rounding scales with */
        double D[FDIFF_MAX_STEPS], model[FDIFF_MAX_STEPS], h = 1e-3;
        for (int k = 0; k < FDIFF_MAX_STEPS; k++, h /= 4) {
            model[k] = DBL_EPSILON * loss / h;
            double rounding = model[k] * (2 * skit_rng_uniform(&rng) - 1);
            D[k] = g + c * h * h + J * fmax(0.0, h - delta) / (2 * h) + rounding;
        }
        D[FDIFF_MAX_STEPS - 1] = D[FDIFF_MAX_STEPS - 2]; /* a coincidence of the smallest steps */
        double estimate, resolution;
        fdiff_pick(FDIFF_MAX_STEPS, D, model, &estimate, &resolution);
        ck_assert_msg(fabs(estimate - g) <= 1e-6 * fmax(1.0, fabs(g)),
                      "trial %d (kink after step %d, J %.3g): estimate %.17g, g %.17g (seed %llu)", trial, kink, J,
                      estimate, g, (unsigned long long)seed);
        ck_assert_msg(fabs(estimate - g) <= resolution, "trial %d: error %.3g beyond the resolution %.3g claimed",
                      trial, fabs(estimate - g), resolution);
    }
}
END_TEST

START_TEST(test_gradcheck_toeplitz) { gradcheck_sweep("toeplitz"); }
END_TEST
START_TEST(test_gradcheck_mlp) { gradcheck_sweep("mlp"); }
END_TEST
START_TEST(test_gradcheck_decay) { gradcheck_sweep("decay"); }
END_TEST
START_TEST(test_gradcheck_tno) { gradcheck_sweep("tno"); }
END_TEST
START_TEST(test_gradcheck_fd) { gradcheck_sweep("fd"); }
END_TEST
START_TEST(test_gradcheck_ski) { gradcheck_sweep("ski-tno"); }
END_TEST
START_TEST(test_gradcheck_attention) { gradcheck_sweep("attention"); }
END_TEST

/* MRA-2 at even n (blocks of 2, 4 or 8), the selection held fixed */
/* precision f32 (tools/gradcheck_f32.c): the float32 backward within its
 * derived bound of the float64 one at every size, both causalities. A
 * bound as large as the group's largest gradient checks nothing there:
 * such groups may be at most a tenth of the sweep's (a layer's gradient
 * can nearly cancel at one size and seed: d = 1, causal n = 97 gave W1 a
 * bound 1.22 times its largest entry), single values exempt (a sum such
 * as dlambda may cancel to nearly zero, and the bound is relative to it) */
static void gradcheck_sweep_f32(const char *op)
{
    uint64_t seed = tu_seed();
    size_t groups = 0, vacuous = 0;
    for (size_t a = 0; a < NFD; a++)
        for (int causal = 0; causal < 2; causal++) {
            if (fd_sizes[a] < 2 && !strncmp(op, "ski", 3)) continue; /* SKI needs r >= 2 inducing points */
            gradcheck_options o;
            sweep_options(a, causal, seed, &o);
            o.f32 = 1;
            o.batch = 1 + a % 3;
            gradcheck_result r;
            TU_EXPECT_OK(gradcheck_run(op, &o, &r));
            ck_assert_uint_ge(r.ngroups, 2);
            for (size_t k = 0; k < r.ngroups; k++) {
                const gradcheck_group *g = &r.groups[k];
                ck_assert_msg(g->error <= g->tolerance, "f32 %s n=%zu d=%zu %s seed=%llu: group %s error %.3g, "
                              "tolerance %.3g", op, o.n, o.d, causal ? "causal" : "bidirectional",
                              (unsigned long long)o.seed, g->name, g->error, g->tolerance);
                groups += g->count > 1;
                vacuous += g->count > 1 && g->tolerance >= 1;
            }
        }
    ck_assert_msg(10 * vacuous <= groups, "f32 %s: %zu of %zu groups had a bound as large as their largest "
                  "gradient (seed %llu)", op, vacuous, groups, (unsigned long long)seed);
}

START_TEST(test_gradcheck_f32_toeplitz) { gradcheck_sweep_f32("toeplitz"); }
END_TEST

START_TEST(test_gradcheck_f32_tno) { gradcheck_sweep_f32("tno"); }
END_TEST

START_TEST(test_gradcheck_f32_fd) { gradcheck_sweep_f32("fd"); }
END_TEST

/* SKI-TNO: float32 ROWS plans' bidirectional backward reads the rows itself */
START_TEST(test_gradcheck_f32_ski) { gradcheck_sweep_f32("ski-tno"); }
END_TEST
START_TEST(test_gradcheck_f32_attention) { gradcheck_sweep_f32("attention"); }
END_TEST

/* MRA-2 at even n >= 4 (blocks of 2, 4 or 8), the selection held fixed */
START_TEST(test_gradcheck_f32_mra2)
{
    static const size_t sizes[] = {4, 6, 10, 12, 16, 22, 28, 64, 96, 128};
    uint64_t seed = tu_seed();
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (int causal = 0; causal < 2; causal++) {
            gradcheck_options o;
            gradcheck_options_default(&o);
            o.n = sizes[a], o.d = 1 + a % 4, o.seed = seed + a, o.causal = causal, o.f32 = 1;
            gradcheck_result r;
            TU_EXPECT_OK(gradcheck_run("mra2", &o, &r));
            ck_assert_uint_eq(r.ngroups, 3);
            for (size_t k = 0; k < r.ngroups; k++)
                ck_assert_msg(r.groups[k].error <= r.groups[k].tolerance && r.groups[k].tolerance < 1,
                              "f32 mra2 n=%zu causal=%d seed=%llu: group %s error %.3g, tolerance %.3g", o.n, causal,
                              (unsigned long long)o.seed, r.groups[k].name, r.groups[k].error, r.groups[k].tolerance);
        }
}
END_TEST

/* float32 TNO and FD-TNO: one const plan, many threads, each with its own
 * work: the same bits; ROWS and CHANNELS give the same gradients */
START_TEST(test_tno_backward_f32_threads)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int kind = 0; kind < 4; kind++) {
        const size_t n = 53, d = 5, batch = 3, total = n * d * batch;
        skit_tno_options o;
        skit_tno_options_default(&o, kind < 2 ? SKIT_TNO_FFT : SKIT_TNO_FD);
        o.rpe_width = 8;
        o.causality = kind % 2 ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        o.precision = SKIT_PRECISION_F32;
        skit_tno_plan *p, *q;
        TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
        size_t count = skit_tno_plan_parameter_count(p);
        float *x = tu_alloc_f32(total), *dy = tu_alloc_f32(total), *dx0 = tu_alloc_f32(total);
        double *xd = tu_alloc(total), *dyd = tu_alloc(total), *dp0 = tu_alloc(count), dl0 = NAN;
        random_rounded(&rng, total, x, xd);
        random_rounded(&rng, total, dy, dyd);
        TU_EXPECT_OK(skit_tno_plan_backward_f32(p, x, dy, dx0, dp0, &dl0, NULL));
        ck_assert(isfinite(dl0));
        int bad = 0;
#pragma omp parallel for num_threads(4) reduction(| : bad)
        for (int t = 0; t < 8; t++) {
            void *work = skit_malloc(skit_tno_plan_backward_workspace_bytes(p), 1);
            float *dx = skit_malloc(total, sizeof(float));
            double *dp = skit_malloc(count, sizeof(double)), dl;
            if (skit_tno_plan_backward_f32(p, x, dy, dx, dp, &dl, work) != SKIT_OK || dl != dl0 ||
                memcmp(dx, dx0, total * sizeof *dx) || memcmp(dp, dp0, count * sizeof *dp))
                bad = 1;
            skit_free(work), skit_free(dx), skit_free(dp);
        }
        ck_assert_msg(bad == 0, "kind %d: threads differ (seed %llu)", kind, (unsigned long long)seed);
        /* the CHANNELS layout on the same sequences transposed: the same bits */
        skit_tno_options oc = o;
        oc.layout = SKIT_TNO_CHANNELS;
        double *params = tu_alloc(count), *dp = tu_alloc(count), dl = NAN;
        TU_EXPECT_OK(skit_tno_plan_get_parameters(p, params, count));
        TU_EXPECT_OK(skit_tno_plan_create(&q, n, d, batch, &oc, params, count));
        float *xc = tu_alloc_f32(total), *dyc = tu_alloc_f32(total), *dxc = tu_alloc_f32(total);
        for (size_t b = 0; b < batch; b++)
            for (size_t i = 0; i < n; i++)
                for (size_t c = 0; c < d; c++) {
                    xc[(b * d + c) * n + i] = x[(b * n + i) * d + c];
                    dyc[(b * d + c) * n + i] = dy[(b * n + i) * d + c];
                }
        TU_EXPECT_OK(skit_tno_plan_backward_f32(q, xc, dyc, dxc, dp, &dl, NULL));
        ck_assert(dl == dl0 && !memcmp(dp, dp0, count * sizeof *dp));
        for (size_t b = 0; b < batch; b++)
            for (size_t i = 0; i < n; i++)
                for (size_t c = 0; c < d; c++) ck_assert(dxc[(b * d + c) * n + i] == dx0[(b * n + i) * d + c]);
        skit_tno_plan_destroy(q);
        skit_free(params), skit_free(dp), skit_free(xc), skit_free(dyc), skit_free(dxc);
        TU_EXPECT_STATUS(skit_tno_plan_backward(p, xd, dyd, NULL, NULL, NULL, NULL), SKIT_EINVAL);
        skit_tno_plan_destroy(p);
        skit_free(x), skit_free(dy), skit_free(dx0), skit_free(xd), skit_free(dyd), skit_free(dp0);
    }
}
END_TEST

START_TEST(test_gradcheck_mra2)
{
    static const size_t sizes[] = {4, 6, 10, 12, 16, 22, 28, 64, 96, 128};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++) {
        gradcheck_options o;
        gradcheck_options_default(&o);
        o.n = sizes[a];
        o.d = 1 + a % 4;
        o.seed = tu_seed() + a;
        o.samples = 4;
        o.causal = a % 2; /* the decoder's mask: causal selection and backward */
        expect_gradcheck("mra2", &o);
    }
}
END_TEST

/* With every square refined MRA-2 is exact attention, and so its backward;
 * the selection refines exactly rows x blocks_per_row squares (global) or
 * blocks_per_row in each row, every row's best among them. */
START_TEST(test_mra2_backward_all_refined_is_exact)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t n = 48, d = 3, b = 8, rows = n / b;
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * d),
           *dy = tu_random(&rng, n * d), *g1 = tu_alloc(3 * n * d), *g2 = tu_alloc(3 * n * d);
    unsigned char refined[36];
    memset(refined, 1, sizeof refined);
    TU_EXPECT_OK(skit_mra2_backward(n, d, d, q, n, k, n, v, n, 0.7, b, refined, dy, n, g1, n, g1 + n * d, n,
                                    g1 + 2 * n * d, n, NULL));
    TU_EXPECT_OK(skit_attention_exact_backward(n, d, d, q, n, k, n, v, n, 0.7, NULL, dy, n, g2, n, g2 + n * d, n,
                                               g2 + 2 * n * d, n, NULL));
    ck_assert_msg(tu_rel_error(g1, g2, 3 * n * d) < 1e-12, "all refined vs exact: %g", tu_rel_error(g1, g2, 3 * n * d));
    for (int sel = 0; sel < 2; sel++) {
        TU_EXPECT_OK(skit_mra2_selection(n, d, q, n, k, n, 0.7, b, 2, (skit_mra_selection)sel, refined));
        size_t total = 0;
        for (size_t x = 0; x < rows; x++) {
            size_t in_row = 0;
            for (size_t y = 0; y < rows; y++) in_row += refined[x + y * rows];
            if (sel == SKIT_MRA_PER_ROW) ck_assert_uint_eq(in_row, 2);
            total += in_row;
        }
        ck_assert_uint_eq(total, 2 * rows);
    }
    TU_EXPECT_STATUS(skit_mra2_selection(n, d, q, n, k, n, 0.7, 5, 2, SKIT_MRA_GLOBAL, refined), SKIT_ESHAPE);
    double *all[] = {q, k, v, dy, g1, g2};
    for (size_t i = 0; i < 6; i++) skit_free(all[i]);
}
END_TEST

/* skit_mra2_backward (by query blocks, on GEMMs) against the row-by-row
 * reference attn_mra2_backward_rows: same atoms, same softmax, sums in
 * another order. An entry of either is a sum over K <= n + rows atoms of
 * products of sums of d or dv terms; reordering such sums moves each by at
 * most about 2 (K + d + dv) u times the sum of its terms' magnitudes
 * (Higham, Accuracy and Stability, 3.1), and on these inputs (standard
 * normal q, k, v, dy; scale 0.7) no term exceeds a few times the largest
 * entry of its group, so the groups are held to 16 (K + d + dv) u of their
 * largest entry. Random refined squares (the diagonal always, causal),
 * n with odd and prime block counts, outputs NaN-poisoned, dk omitted once;
 * MRA-2 and MRA-2-s (no coarse atoms; bidirectional, some block rows
 * refine nothing). */
START_TEST(test_mra2_backward_blocked_matches_rows)
{
    const uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t shapes[][4] = {{8, 2, 3, 2}, {12, 3, 2, 5}, {30, 5, 4, 4}, {49, 7, 5, 3},
                                       {64, 8, 8, 8}, {96, 16, 6, 7}, {130, 13, 9, 4}, {256, 32, 16, 16}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        for (int variant = 0; variant < 4; variant++) {
            const int causal = variant & 1, sparse = variant >> 1;
            const size_t n = shapes[t][0], b = shapes[t][1], d = shapes[t][2], dv = shapes[t][3], rows = n / b;
            double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * dv),
                   *dy = tu_random(&rng, n * dv);
            double *g1 = tu_alloc(n * (2 * d + dv)), *g2 = tu_alloc(n * (2 * d + dv));
            unsigned char *refined = skit_malloc(rows * rows, 1);
            ck_assert_ptr_nonnull(refined);
            for (size_t x = 0; x < rows; x++)
                for (size_t y = 0; y < rows; y++)
                    refined[x + y * rows] = (causal && x == y) || skit_rng_uniform(&rng) < 0.4;
            const int drop_dk = t == 3;
            attn_mra2_backward_args a = {n, d, dv, b, causal, 0.7, q, k, v, dy, n, n, n, n, refined,
                                         g2, drop_dk ? NULL : g2 + n * d, g2 + 2 * n * d, n, n, n, sparse};
            TU_EXPECT_OK(attn_mra2_backward_rows(&a, NULL));
            a.dq = g1, a.dk = drop_dk ? NULL : g1 + n * d, a.dvv = g1 + 2 * n * d;
            if (sparse) TU_EXPECT_OK(attn_mra2_backward(&a, NULL));
            else
                TU_EXPECT_OK((causal ? skit_mra2_backward_causal : skit_mra2_backward)(
                    n, d, dv, q, n, k, n, v, n, 0.7, b, refined, dy, n, g1, n, drop_dk ? NULL : g1 + n * d, n,
                    g1 + 2 * n * d, n, NULL));
            const double tol = 16.0 * (double)(n + rows + d + dv) * DBL_EPSILON / 2;
            const size_t off[3] = {0, n * d, 2 * n * d}, len[3] = {n * d, n * d, n * dv};
            for (int g = 0; g < 3; g++) {
                if (g == 1 && drop_dk) continue;
                double err = tu_rel_error(g1 + off[g], g2 + off[g], len[g]);
                ck_assert_msg(err <= tol,
                              "n=%zu b=%zu d=%zu dv=%zu %s%s group %d: blocked vs rows %g > %g (seed %llu)", n, b, d,
                              dv, causal ? "causal" : "bidirectional", sparse ? " sparse" : "", g, err, tol,
                              (unsigned long long)seed);
            }
            skit_free(q), skit_free(k), skit_free(v), skit_free(dy), skit_free(g1), skit_free(g2);
            skit_free(refined);
        }
}
END_TEST

/* <dy, Y> of an MRA-2-s plan's output, in double (either precision) */
typedef struct mra2s_fd {
    skit_attention_plan *plan;
    int f32;
    size_t n, d;
    double *qkv, *dy; /* q, k, v (n x d each), then dy */
    float *qkvf, *yf;
    double *y;
} mra2s_fd;

static double mra2s_loss(mra2s_fd *t)
{
    const size_t n = t->n, nd = n * t->d;
    double L = 0;
    if (t->f32) {
        for (size_t i = 0; i < 3 * nd; i++) t->qkvf[i] = (float)t->qkv[i];
        TU_EXPECT_OK(skit_attention_plan_execute_f32(t->plan, t->qkvf, n, t->qkvf + nd, n, t->qkvf + 2 * nd, n,
                                                     NULL, t->yf, n, NULL));
        for (size_t i = 0; i < nd; i++) L += t->dy[i] * (double)t->yf[i];
    } else {
        TU_EXPECT_OK(skit_attention_plan_execute(t->plan, t->qkv, n, t->qkv + nd, n, t->qkv + 2 * nd, n, NULL,
                                                 t->y, n, NULL));
        for (size_t i = 0; i < nd; i++) L += t->dy[i] * t->y[i];
    }
    return L;
}

static void mra2s_gradients(mra2s_fd *t, double *g)
{
    const size_t n = t->n, nd = n * t->d;
    if (!t->f32) {
        TU_EXPECT_OK(skit_attention_plan_backward(t->plan, t->qkv, n, t->qkv + nd, n, t->qkv + 2 * nd, n, NULL,
                                                  NULL, t->dy, n, g, n, g + nd, n, g + 2 * nd, n));
        return;
    }
    float *dyf = tu_alloc_f32(nd), *gf = tu_alloc_f32(3 * nd);
    for (size_t i = 0; i < nd; i++) dyf[i] = (float)t->dy[i];
    for (size_t i = 0; i < 3 * nd; i++) t->qkvf[i] = (float)t->qkv[i];
    TU_EXPECT_OK(skit_attention_plan_backward_f32(t->plan, t->qkvf, n, t->qkvf + nd, n, t->qkvf + 2 * nd, n, NULL,
                                                  NULL, dyf, n, gf, n, gf + nd, n, gf + 2 * nd, n));
    for (size_t i = 0; i < 3 * nd; i++) g[i] = gf[i];
    skit_free(dyf), skit_free(gf);
}

/* d<dy, Y>/d(coordinate i) by central differences (float64 plans; the
 * selection unchanged at both points, else NAN) */
static double mra2s_difference(mra2s_fd *t, size_t i, const unsigned char *sel, unsigned char *moved)
{
    const size_t n = t->n, nd = n * t->d, N = (n / 8) * (n / 8);
    const double h = 1e-5, x = t->qkv[i];
    double L[2];
    for (int side = 0; side < 2; side++) {
        t->qkv[i] = x + (side ? -h : h);
        TU_EXPECT_OK(skit_attention_plan_select(t->plan, t->qkv, n, t->qkv + nd, n, NULL, moved));
        if (memcmp(moved, sel, N)) return t->qkv[i] = x, NAN;
        L[side] = mra2s_loss(t);
    }
    t->qkv[i] = x;
    return (L[0] - L[1]) / (2 * h);
}

/* MRA-2-s's backward (the plans': no coarse term, the refined squares
 * held fixed) against central differences of its float64 forward at
 * every coordinate whose perturbation keeps the selection; the float32
 * plan's backward against the same differences within float rounding.
 * Global selection at a quarter of the squares (bidirectional: some block
 * rows refine nothing, output and gradient 0) and causal. */
START_TEST(test_mra2s_plan_backward_fdiff)
{
    const uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t n = 32, d = 3, nd = n * d;
    for (int variant = 0; variant < 4; variant++) {
        const int causal = variant & 1, f32 = variant >> 1;
        skit_attention_options o;
        skit_attention_options_init(&o, SKIT_ATTENTION_MRA2_SPARSE);
        o.block = 8, o.blocks_per_row[0] = 1, o.scale = 0.7, o.causal = causal;
        o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
        mra2s_fd t = {.f32 = f32, .n = n, .d = d, .qkv = tu_random(&rng, 3 * nd), .dy = tu_random(&rng, nd),
                      .qkvf = tu_alloc_f32(3 * nd), .yf = tu_alloc_f32(nd), .y = tu_alloc(nd)};
        TU_EXPECT_OK(skit_attention_plan_create(&t.plan, n, d, d, &o));
        double *g = tu_alloc(3 * nd);
        mra2s_gradients(&t, g);
        o.precision = SKIT_PRECISION_F64;
        mra2s_fd ref = t;
        ref.f32 = 0;
        TU_EXPECT_OK(skit_attention_plan_create(&ref.plan, n, d, d, &o));
        unsigned char sel[16], moved[16];
        TU_EXPECT_OK(skit_attention_plan_select(ref.plan, t.qkv, n, t.qkv + nd, n, NULL, sel));
        size_t checked = 0;
        const double tol = f32 ? 1e-4 : 1e-7;
        for (size_t i = 0; i < 3 * nd; i++) {
            double fd = mra2s_difference(&ref, i, sel, moved);
            if (isnan(fd)) continue;
            checked++;
            ck_assert_msg(fabs(fd - g[i]) <= tol * (1 + fabs(fd)), "%s%s coordinate %zu: backward %.10g, "
                          "differences %.10g (seed %llu)", f32 ? "f32 " : "", causal ? "causal" : "bidirectional", i,
                          g[i], fd, (unsigned long long)seed);
        }
        ck_assert_uint_ge(checked, 3 * nd / 2);
        skit_attention_plan_destroy(t.plan), skit_attention_plan_destroy(ref.plan);
        skit_free(t.qkv), skit_free(t.dy), skit_free(t.qkvf), skit_free(t.yf), skit_free(t.y), skit_free(g);
    }
}
END_TEST

/* every activation x norm of the MLP at one size */
START_TEST(test_mlp_every_activation_and_norm)
{
    for (int act = 0; act < 3; act++)
        for (int norm = 0; norm < 3; norm++) {
            gradcheck_options o;
            gradcheck_options_default(&o);
            o.n = 33;
            o.seed = tu_seed();
            o.activation = (skit_activation)act;
            o.norm = (skit_norm)norm;
            o.rpe_layers = 3;
            expect_gradcheck("mlp", &o);
        }
}
END_TEST

/* masked keys get no gradient, masked rows give none */
START_TEST(test_attention_backward_mask)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t n = 37, d = 5;
    unsigned char mask[37];
    for (size_t i = 0; i < n; i++) mask[i] = (unsigned char)(i % 5 != 2);
    double *q = tu_random(&rng, n * d), *k = tu_random(&rng, n * d), *v = tu_random(&rng, n * d),
           *dy = tu_random(&rng, n * d), *dq = tu_alloc(n * d), *dk = tu_alloc(n * d), *dv = tu_alloc(n * d);
    TU_EXPECT_OK(skit_attention_exact_backward(n, d, d, q, n, k, n, v, n, 0.5, mask, dy, n, dq, n, dk, n, dv, n, NULL));
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < d; c++) {
            ck_assert(isfinite(dq[i + c * n]) && isfinite(dk[i + c * n]) && isfinite(dv[i + c * n]));
            if (!mask[i]) ck_assert(dq[i + c * n] == 0 && dk[i + c * n] == 0 && dv[i + c * n] == 0);
        }
    /* and the unmasked part equals the backward of the attention of the
     * valid tokens alone */
    size_t nv = 0, idx[37];
    for (size_t i = 0; i < n; i++)
        if (mask[i]) idx[nv++] = i;
    double *qs = tu_alloc(nv * d), *ks = tu_alloc(nv * d), *vs = tu_alloc(nv * d), *dys = tu_alloc(nv * d),
           *dqs = tu_alloc(nv * d), *dks = tu_alloc(nv * d), *dvs = tu_alloc(nv * d);
    for (size_t a = 0; a < nv; a++)
        for (size_t c = 0; c < d; c++) {
            qs[a + c * nv] = q[idx[a] + c * n];
            ks[a + c * nv] = k[idx[a] + c * n];
            vs[a + c * nv] = v[idx[a] + c * n];
            dys[a + c * nv] = dy[idx[a] + c * n];
        }
    TU_EXPECT_OK(skit_attention_exact_backward(nv, d, d, qs, nv, ks, nv, vs, nv, 0.5, NULL, dys, nv, dqs, nv, dks, nv,
                                               dvs, nv, NULL));
    for (size_t a = 0; a < nv; a++)
        for (size_t c = 0; c < d; c++) {
            ck_assert(fabs(dq[idx[a] + c * n] - dqs[a + c * nv]) < 1e-12);
            ck_assert(fabs(dk[idx[a] + c * n] - dks[a + c * nv]) < 1e-12);
            ck_assert(fabs(dv[idx[a] + c * n] - dvs[a + c * nv]) < 1e-12);
        }
    double *all[] = {q, k, v, dy, dq, dk, dv, qs, ks, vs, dys, dqs, dks, dvs};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) skit_free(all[i]);
}
END_TEST

/* one const plan, many threads, each with its own work: the same bits */
START_TEST(test_tno_backward_threads)
{
    static const skit_tno_kind kinds[] = {SKIT_TNO_FFT, SKIT_TNO_FD, SKIT_TNO_SKI, SKIT_TNO_SKI};
    for (int kind = 0; kind < 4; kind++) {
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t n = 77, d = 6, batch = 3, total = n * d * batch;
    skit_tno_options o;
    skit_tno_options_default(&o, kinds[kind]);
    o.rpe_width = 8;
    o.causality = kind % 2 ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    o.rank = 8;
    o.taps = 5;
    skit_tno_plan *p;
    TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
    size_t count = skit_tno_plan_parameter_count(p);
    double *x = tu_random(&rng, total), *dy = tu_random(&rng, total), *dx0 = tu_alloc(total), *dp0 = tu_alloc(count);
    double dl0;
    TU_EXPECT_OK(skit_tno_plan_backward(p, x, dy, dx0, dp0, &dl0, NULL));
    int bad = 0;
#pragma omp parallel for num_threads(4) reduction(| : bad)
    for (int t = 0; t < 8; t++) {
        void *work = skit_malloc(skit_tno_plan_backward_workspace_bytes(p), 1);
        double *dx = skit_malloc(total, sizeof(double)), *dp = skit_malloc(count, sizeof(double)), dl;
        if (skit_tno_plan_backward(p, x, dy, dx, dp, &dl, work) != SKIT_OK || dl != dl0 ||
            memcmp(dx, dx0, total * sizeof *dx) || memcmp(dp, dp0, count * sizeof *dp))
            bad = 1;
        skit_free(work);
        skit_free(dx);
        skit_free(dp);
    }
    ck_assert_int_eq(bad, 0);
    skit_tno_plan_destroy(p);
    skit_free(x);
    skit_free(dy);
    skit_free(dx0);
    skit_free(dp0);
    }
}
END_TEST

/* set_decay(lambda) gives the kernels, output and backward of a plan created
 * with that decay (same parameters), causal and bidirectional, odd and prime
 * n; FD/SKI plans and lambda outside (0, 1] are refused, the plan unchanged. */
START_TEST(test_tno_set_decay)
{
    static const size_t sizes[] = {1, 2, 7, 31, 64};
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int causal = 0; causal < 2; causal++) {
            const size_t n = sizes[si], d = 5, batch = 2, total = n * d * batch;
            skit_tno_options o;
            skit_tno_options_default(&o, SKIT_TNO_FFT);
            o.rpe_width = 6;
            o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
            o.decay = 0.9;
            skit_tno_plan *p, *q;
            TU_EXPECT_OK(skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0));
            size_t count = skit_tno_plan_parameter_count(p);
            double *params = tu_alloc(count), *x = tu_random(&rng, total), *dy = tu_random(&rng, total);
            double *y0 = tu_alloc(total), *y1 = tu_alloc(total), dl0 = NAN, dl1 = NAN;
            TU_EXPECT_OK(skit_tno_plan_get_parameters(p, params, count));
            o.decay = 0.7;
            TU_EXPECT_OK(skit_tno_plan_create(&q, n, d, batch, &o, params, count));
            tu_poison(y0, total), tu_poison(y1, total);
            TU_EXPECT_OK(skit_tno_plan_set_decay(p, 0.7));
            TU_EXPECT_OK(skit_tno_plan_execute(p, x, y0, NULL));
            TU_EXPECT_OK(skit_tno_plan_execute(q, x, y1, NULL));
            ck_assert_double_le(tu_rel_error(y0, y1, total), 1e-13);
            TU_EXPECT_OK(skit_tno_plan_backward(p, x, dy, NULL, NULL, &dl0, NULL));
            TU_EXPECT_OK(skit_tno_plan_backward(q, x, dy, NULL, NULL, &dl1, NULL));
            ck_assert_double_le(fabs(dl0 - dl1), 1e-12 * (1 + fabs(dl1)));
            TU_EXPECT_STATUS(skit_tno_plan_set_decay(p, 0.0), SKIT_EDOM);
            TU_EXPECT_STATUS(skit_tno_plan_set_decay(p, 1.5), SKIT_EDOM);
            TU_EXPECT_STATUS(skit_tno_plan_set_decay(NULL, 0.5), SKIT_EINVAL);
            TU_EXPECT_OK(skit_tno_plan_execute(p, x, y0, NULL)); /* unchanged by the refusals */
            ck_assert_double_le(tu_rel_error(y0, y1, total), 1e-13);
            skit_tno_plan_destroy(p);
            skit_tno_plan_destroy(q);
            skit_free(params), skit_free(x), skit_free(dy), skit_free(y0), skit_free(y1);
        }
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_FD);
    o.rpe_width = 4;
    skit_tno_plan *p;
    TU_EXPECT_OK(skit_tno_plan_create(&p, 8, 2, 1, &o, NULL, 0));
    TU_EXPECT_STATUS(skit_tno_plan_set_decay(p, 0.5), SKIT_EUNSUPPORTED);
    skit_tno_plan_destroy(p);
}
END_TEST

START_TEST(test_backward_errors)
{
    skit_tno_options o;
    skit_tno_options_default(&o, SKIT_TNO_SKI);
    o.rank = 4;
    o.taps = 3;
    skit_tno_plan *p;
    TU_EXPECT_OK(skit_tno_plan_create(&p, 16, 2, 1, &o, NULL, 0));
    double x[32] = {0}, dy[32] = {0};
    TU_EXPECT_STATUS(skit_tno_plan_backward(NULL, x, dy, NULL, NULL, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_backward(p, NULL, dy, NULL, NULL, NULL, NULL), SKIT_EINVAL);
    char *misaligned = (char *)x + ((uintptr_t)x % 64 == 56 ? 16 : 8);
    TU_EXPECT_STATUS(skit_tno_plan_backward(p, x, dy, NULL, NULL, NULL, misaligned), SKIT_EINVAL);
    skit_tno_plan_destroy(p);
    TU_EXPECT_STATUS(skit_tno_decay_bias_backward(1, x, 1, 1.5, x, dy, NULL, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_attention_exact_backward(0, 1, 1, x, 1, x, 1, x, 1, 1.0, NULL, dy, 1, NULL, 1, NULL, 1,
                                                   NULL, 1, NULL),
                     SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mlp_backward(NULL, 1, x, dy, NULL, NULL, NULL, NULL), SKIT_EINVAL);
    /* the float64 attention backwards scan q, k, v and dy as the forward does */
    unsigned char refined[4] = {1, 1, 1, 1};
    double g[32];
    for (int bad = 0; bad < 4; bad++) {
        double *in[4] = {x, x + 8, x + 16, dy};
        in[bad][3] = bad % 2 ? INFINITY : NAN;
        TU_EXPECT_STATUS(skit_attention_exact_backward(4, 2, 2, x, 4, x + 8, 4, x + 16, 4, 1.0, NULL, dy, 4, g, 4,
                                                       NULL, 1, NULL, 1, NULL),
                         SKIT_ENONFINITE);
        TU_EXPECT_STATUS(skit_mra2_backward(4, 2, 2, x, 4, x + 8, 4, x + 16, 4, 1.0, 2, refined, dy, 4, g, 4, NULL,
                                            1, NULL, 1, NULL),
                         SKIT_ENONFINITE);
        in[bad][3] = 0;
    }
    ck_assert_uint_eq(skit_tno_plan_backward_workspace_bytes(NULL), 0);
    double scale[2];
    TU_EXPECT_STATUS(skit_tno_plan_f32_error_scale(NULL, scale, NULL), SKIT_EINVAL);
    skit_tno_options_default(&o, SKIT_TNO_FFT);
    o.rpe_width = 4;
    TU_EXPECT_OK(skit_tno_plan_create(&p, 16, 2, 1, &o, NULL, 0));
    TU_EXPECT_STATUS(skit_tno_plan_f32_error_scale(p, scale, NULL), SKIT_EINVAL); /* a float64 plan */
    float xf[32] = {0}, dyf[32] = {0};
    TU_EXPECT_STATUS(skit_tno_plan_backward_f32(p, xf, dyf, NULL, NULL, NULL, NULL), SKIT_EINVAL);
    skit_tno_plan_destroy(p);
}
END_TEST

/* ---- float32 exact attention backward ------------------------------------- */

/* one float32 attention backward problem and its float64 reference */
typedef struct att32 {
    size_t n, d, dv;
    double scale;
    skit_attention_mask mask;
    float *qf, *kf, *vf, *dyf, *dqf, *dkf, *dvf;
    double *q, *k, *v, *dy, *dq, *dk, *dv64, *S;
} att32;

static void att32_alloc(att32 *a, skit_rng *rng)
{
    const size_t n = a->n, nd = n * a->d, nv = n * a->dv;
    a->qf = tu_alloc_f32(nd), a->kf = tu_alloc_f32(nd), a->vf = tu_alloc_f32(nv), a->dyf = tu_alloc_f32(nv);
    a->dqf = tu_alloc_f32(nd), a->dkf = tu_alloc_f32(nd), a->dvf = tu_alloc_f32(nv);
    a->q = tu_alloc(nd), a->k = tu_alloc(nd), a->v = tu_alloc(nv), a->dy = tu_alloc(nv);
    a->dq = tu_alloc(nd), a->dk = tu_alloc(nd), a->dv64 = tu_alloc(nv), a->S = tu_alloc(n * n);
    random_rounded(rng, nd, a->qf, a->q);
    random_rounded(rng, nd, a->kf, a->k);
    random_rounded(rng, nv, a->vf, a->v);
    random_rounded(rng, nv, a->dyf, a->dy);
}

static void att32_free(att32 *a)
{
    float *f[] = {a->qf, a->kf, a->vf, a->dyf, a->dqf, a->dkf, a->dvf};
    double *g[] = {a->q, a->k, a->v, a->dy, a->dq, a->dk, a->dv64, a->S};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) skit_free(f[i]);
    for (size_t i = 0; i < sizeof g / sizeof *g; i++) skit_free(g[i]);
}

/* G = |scale| max_ij sum_c |q_ic k_jc| (the header's G) */
static double att32_logit_bound(const att32 *a)
{
    double G = 0;
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; j < a->n; j++) {
            double s = 0;
            for (size_t c = 0; c < a->d; c++) s += fabs(a->q[i + c * a->n] * a->k[j + c * a->n]);
            G = fmax(G, fabs(a->scale) * s);
        }
    return G;
}

/* entry (i, c) of a gradient's bound, computed from the explicit S, for
 * the problem ctx (an att32, or an mra32t) */
typedef double (*f32_entry)(const void *ctx, size_t i, size_t c);

/* the three gradients of a float32 backward against float64, entry by
 * entry: |g32 - g64| <= factor * entry; what and b name the case */
typedef struct f32_case {
    const char *what;
    const att32 *a;
    size_t b;
    const void *ctx;
    uint64_t seed;
} f32_case;

static void check_group_f32(const f32_case *k, const char *name, const float *g32, const double *g64, size_t cols,
                            double factor, f32_entry entry)
{
    const att32 *a = k->a;
    const size_t n = a->n;
    for (size_t c = 0; c < cols; c++)
        for (size_t i = 0; i < n; i++) {
            double bound = factor * entry(k->ctx, i, c), e = fabs((double)g32[i + c * n] - g64[i + c * n]);
            ck_assert_msg(e <= bound, "f32 %s backward %s n=%zu b=%zu d=%zu dv=%zu causal=%d padded=%d seed=%llu: "
                          "entry (%zu, %zu) error %.3g above its bound %.3g", k->what, name, n, k->b, a->d, a->dv,
                          a->mask.causal, a->mask.padding != NULL, (unsigned long long)k->seed, i, c, e, bound);
        }
}

/* dv within (eS + gamma_m) S^T |dY|, dq and dk within 2 |scale| max|v|
 * (eP + gamma_{m+1}) times their majorants (the headers' bounds; m = n +
 * extra, gamma_m = m u / (1 - m u)); entries: dv, dq, dk */
static void check_gradients_f32(const f32_case *k, double eS, double eP, size_t extra, const f32_entry entries[3])
{
    const att32 *a = k->a;
    const double u = TU_U32, m = (double)(a->n + extra);
    const double gA = m * u / (1 - m * u), gB = (m + 1) * u / (1 - (m + 1) * u);
    double vmax = 0;
    for (size_t i = 0; i < a->n * a->dv; i++) vmax = fmax(vmax, fabs(a->v[i]));
    /* each bound is a small multiple of a majorant of its gradient (S^T
     * |dY| >= |dV|, 2 |scale| vmax r_i (S |K|) >= |dQ|, ...): were the
     * multiple near 1 the check would be vacuous */
    ck_assert_msg(eS + gA < 0.01 && eP + gB < 0.01, "bound multipliers %.3g, %.3g", eS + gA, eP + gB);
    const double F = 2 * fabs(a->scale) * vmax * (eP + gB);
    check_group_f32(k, "dv", a->dvf, a->dv64, a->dv, eS + gA, entries[0]);
    check_group_f32(k, "dq", a->dqf, a->dq, a->d, F, entries[1]);
    check_group_f32(k, "dk", a->dkf, a->dk, a->d, F, entries[2]);
}

static double entry_dv(const void *ctx, size_t j, size_t c) /* (S^T |dY|)_jc */
{
    const att32 *a = ctx;
    double s = 0;
    for (size_t i = 0; i < a->n; i++) s += a->S[i + j * a->n] * fabs(a->dy[i + c * a->n]);
    return s;
}

static double row_l1(const att32 *a, size_t i)
{
    double r = 0;
    for (size_t c = 0; c < a->dv; c++) r += fabs(a->dy[i + c * a->n]);
    return r;
}

static double entry_dq(const void *ctx, size_t i, size_t c) /* r_i (S |K|)_ic */
{
    const att32 *a = ctx;
    double s = 0;
    for (size_t j = 0; j < a->n; j++) s += a->S[i + j * a->n] * fabs(a->k[j + c * a->n]);
    return row_l1(a, i) * s;
}

static double entry_dk(const void *ctx, size_t j, size_t c) /* (S^T (r o |Q|))_jc */
{
    const att32 *a = ctx;
    double s = 0;
    for (size_t i = 0; i < a->n; i++) s += a->S[i + j * a->n] * row_l1(a, i) * fabs(a->q[i + c * a->n]);
    return s;
}

/* the header's bound, entry by entry */
static void att32_check(const att32 *a, uint64_t seed)
{
    const double u = TU_U32, G = att32_logit_bound(a);
    const double eS = 2.1 * u * (((double)a->d + 4) * G + 2) + 2 * u, eP = 2 * eS + ((double)a->dv + 1) * u;
    static const f32_entry entries[3] = {entry_dv, entry_dq, entry_dk};
    f32_case k = {"attention", a, 0, a, seed};
    check_gradients_f32(&k, eS, eP, 1, entries);
}

/* the float64 and float32 plans of a problem: exact attention, or MRA-2
 * (block > 0: its block, budget and selection rule) */
static void att32_plans(const att32 *a, size_t block, size_t per_row, int per_row_selection, skit_attention_plan **p64,
                        skit_attention_plan **p32)
{
    skit_attention_options o;
    skit_attention_options_init(&o, block ? SKIT_ATTENTION_MRA2 : SKIT_ATTENTION_EXACT);
    o.scale = a->scale;
    o.causal = a->mask.causal;
    o.block = block;
    o.blocks_per_row[0] = per_row;
    o.selection = per_row_selection ? SKIT_MRA_PER_ROW : SKIT_MRA_GLOBAL;
    TU_EXPECT_OK(skit_attention_plan_create(p64, a->n, a->d, a->dv, &o));
    o.precision = SKIT_PRECISION_F32;
    TU_EXPECT_OK(skit_attention_plan_create(p32, a->n, a->d, a->dv, &o));
}

/* both plans' backwards (refined: MRA-2's squares, for both) */
static void att32_backwards(const att32 *a, const skit_attention_plan *p64, const skit_attention_plan *p32,
                            const unsigned char *refined)
{
    const size_t n = a->n;
    TU_EXPECT_OK(skit_attention_plan_backward(p64, a->q, n, a->k, n, a->v, n, a->mask.padding, refined, a->dy, n,
                                              a->dq, n, a->dk, n, a->dv64, n));
    TU_EXPECT_OK(skit_attention_plan_backward_f32(p32, a->qf, n, a->kf, n, a->vf, n, a->mask.padding, refined, a->dyf,
                                                  n, a->dqf, n, a->dkf, n, a->dvf, n));
}

static void att32_run(att32 *a, uint64_t seed)
{
    skit_attention_plan *p64, *p32;
    att32_plans(a, 0, 0, 0, &p64, &p32);
    att32_backwards(a, p64, p32, NULL);
    TU_EXPECT_OK(skit_attention_matrix_masked(a->n, a->d, a->q, a->n, a->k, a->n, a->scale, &a->mask, a->S, a->n));
    att32_check(a, seed);
    skit_attention_plan_destroy(p64);
    skit_attention_plan_destroy(p32);
}

static const size_t att32_sizes[] = {1, 2, 3, 5, 7, 13, 31, 63, 64, 65, 97, 128, 131};
#define NATT32 (sizeof att32_sizes / sizeof *att32_sizes)

/* the float32 exact plan's backward against the float64 plan's over odd,
 * prime and tile-edge n, causal or not, padded or not, several
 * temperatures; outputs NaN-poisoned (tu_alloc_f32) */
START_TEST(test_attention_backward_f32)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t s = 0; s < NATT32; s++)
        for (int variant = 0; variant < 4; variant++) {
            att32 a = {.n = att32_sizes[s], .d = 1 + (s + variant) % 6, .dv = 1 + (2 * s + variant) % 5};
            a.scale = (double)(float)((0.5 + (double)((s + variant) % 3)) / sqrt((double)a.d));
            unsigned char *pad = malloc(a.n);
            for (size_t i = 0; i < a.n; i++) pad[i] = (unsigned char)(i % 4 != 1);
            a.mask.causal = variant & 1;
            a.mask.padding = variant & 2 ? pad : NULL;
            att32_alloc(&a, &rng);
            att32_run(&a, seed);
            for (size_t i = 0; a.mask.padding && i < a.n; i++)
                for (size_t c = 0; !pad[i] && c < a.d; c++)
                    ck_assert(a.dqf[i + c * a.n] == 0.0f && a.dkf[i + c * a.n] == 0.0f);
            att32_free(&a);
            free(pad);
        }
}
END_TEST

/* a gradient left NULL changes none of the others, bit for bit; errors */
START_TEST(test_attention_backward_f32_null_outputs)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    att32 a = {.n = 70, .d = 3, .dv = 4, .scale = 0.5, .mask = {NULL, 1}};
    att32_alloc(&a, &rng);
    const size_t n = a.n;
    skit_attention_plan *p64, *p32;
    att32_plans(&a, 0, 0, 0, &p64, &p32);
    TU_EXPECT_OK(skit_attention_plan_backward_f32(p32, a.qf, n, a.kf, n, a.vf, n, NULL, NULL, a.dyf, n, a.dqf, n,
                                                  a.dkf, n, a.dvf, n));
    float *only = tu_alloc_f32(n * a.d);
    TU_EXPECT_OK(skit_attention_plan_backward_f32(p32, a.qf, n, a.kf, n, a.vf, n, NULL, NULL, a.dyf, n, NULL, n, only,
                                                  n, NULL, n));
    ck_assert_msg(!memcmp(only, a.dkf, n * a.d * sizeof(float)), "dk alone differs (seed %llu)",
                  (unsigned long long)seed);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, a.qf, n, a.kf, n, a.vf, n, NULL, NULL, NULL, n, a.dqf, n,
                                                      NULL, n, NULL, n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, a.qf, n, a.kf, n, a.vf, n, NULL, NULL, a.dyf, n, a.dqf,
                                                      n - 1, NULL, n, NULL, n), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, a.qf, n - 1, a.kf, n, a.vf, n, NULL, NULL, a.dyf, n, a.dqf,
                                                      n, NULL, n, NULL, n), SKIT_ESHAPE);
    a.dyf[5] = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_backward_f32(p32, a.qf, n, a.kf, n, a.vf, n, NULL, NULL, a.dyf, n, a.dqf, n,
                                                      NULL, n, NULL, n), SKIT_ENONFINITE);
    a.dy[5] = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_backward(p64, a.q, n, a.k, n, a.v, n, NULL, NULL, a.dy, n, a.dq, n, NULL, n,
                                                  NULL, n), SKIT_ENONFINITE);
    skit_attention_plan_destroy(p64);
    skit_attention_plan_destroy(p32);
    skit_free(only);
    att32_free(&a);
}
END_TEST

/* ---- float32 MRA-2 backward --------------------------------------------- */

/* MRA-2's effective matrix split (skit/attention.h): S holds Sf (the
 * refined squares), Sc the rest, both from the float64 backward with dY =
 * I (its dV = (Sf + Sc)^T) */
typedef struct mra32t {
    att32 a;
    size_t b, rows;
    unsigned char *refined;
    double *Sc;
} mra32t;

static int mra32t_fine(const mra32t *m, size_t i, size_t j)
{
    return m->refined[i / m->b + (j / m->b) * m->rows];
}

static void mra32t_split(mra32t *m, int causal)
{
    const size_t n = m->a.n;
    double *eye = tu_alloc(n * n), *t = tu_alloc(n * n);
    for (size_t i = 0; i < n * n; i++) eye[i] = i % (n + 1) == 0;
    TU_EXPECT_OK((causal ? skit_mra2_backward_causal : skit_mra2_backward)(
        n, m->a.d, n, m->a.q, n, m->a.k, n, eye, n, m->a.scale, m->b, m->refined, eye, n, NULL, n, NULL, n, t, n,
        NULL));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double s = t[j + i * n];
            int fine = mra32t_fine(m, i, j);
            m->a.S[i + j * n] = fine ? s : 0.0;
            m->Sc[i + j * n] = fine ? 0.0 : s;
        }
    skit_free(eye);
    skit_free(t);
}

static double mra_entry_dv(const void *ctx, size_t j, size_t c) /* (S^T |dY|)_jc */
{
    const mra32t *m = ctx;
    const att32 *a = &m->a;
    double s = 0;
    for (size_t i = 0; i < a->n; i++) s += (a->S[i + j * a->n] + m->Sc[i + j * a->n]) * fabs(a->dy[i + c * a->n]);
    return s;
}

/* mean of |x_jc| over the block of i */
static double block_mean_abs(const mra32t *m, const double *x, size_t i, size_t c)
{
    double s = 0;
    for (size_t j = i / m->b * m->b; j < (i / m->b + 1) * m->b; j++) s += fabs(x[j + c * m->a.n]);
    return s / (double)m->b;
}

static double mra_entry_dq(const void *ctx, size_t i, size_t c)
{
    const mra32t *m = ctx;
    const att32 *a = &m->a;
    const size_t n = a->n;
    double fine = 0, coarse = 0;
    for (size_t j = 0; j < n; j++) fine += a->S[i + j * n] * fabs(a->k[j + c * n]);
    for (size_t i2 = i / m->b * m->b; i2 < (i / m->b + 1) * m->b; i2++) {
        double s = 0;
        for (size_t j = 0; j < n; j++) s += m->Sc[i2 + j * n] * fabs(a->k[j + c * n]);
        coarse += row_l1(a, i2) * s;
    }
    return row_l1(a, i) * fine + coarse / (double)m->b;
}

static double mra_entry_dk(const void *ctx, size_t j, size_t c)
{
    const mra32t *m = ctx;
    const att32 *a = &m->a;
    const size_t n = a->n;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += row_l1(a, i) * (a->S[i + j * n] * fabs(a->q[i + c * n]) + m->Sc[i + j * n] * block_mean_abs(m, a->q, i, c));
    return s;
}

static void mra32t_check(const mra32t *m, uint64_t seed)
{
    const att32 *a = &m->a;
    const double u = TU_U32, G = att32_logit_bound(a), L = log((double)m->b);
    const double eS = 2.1 * u * (((double)a->d + 7) * G + 2 * L + 2) + 2 * u, eP = 2 * eS + ((double)a->dv + 2) * u;
    static const f32_entry entries[3] = {mra_entry_dv, mra_entry_dq, mra_entry_dk};
    f32_case k = {"MRA-2", a, m->b, m, seed};
    check_gradients_f32(&k, eS, eP, 3, entries);
}

/* The float64 plan's selection held fixed for both plans' backwards; and
 * each plan's backward with refined NULL is its backward on its own
 * selection (skit_attention_plan_select), bit for bit */
static void mra32t_run(mra32t *m, size_t per_row, int per_row_selection, uint64_t seed)
{
    att32 *a = &m->a;
    const size_t n = a->n, d = a->d, dv = a->dv, nd = n * d, nv = n * dv, rows = m->rows;
    skit_attention_plan *p64, *p32;
    att32_plans(a, m->b, per_row, per_row_selection, &p64, &p32);
    TU_EXPECT_OK(skit_attention_plan_select(p64, a->q, n, a->k, n, NULL, m->refined));
    att32_backwards(a, p64, p32, m->refined);
    mra32t_split(m, a->mask.causal);
    mra32t_check(m, seed);
    unsigned char *own = malloc(rows * rows);
    float *g32 = tu_alloc_f32(2 * nd + nv), *h32 = tu_alloc_f32(2 * nd + nv);
    double *g64 = tu_alloc(2 * nd + nv), *h64 = tu_alloc(2 * nd + nv);
    TU_EXPECT_OK(skit_attention_plan_select_f32(p32, a->qf, n, a->kf, n, NULL, own));
    TU_EXPECT_OK(skit_attention_plan_backward_f32(p32, a->qf, n, a->kf, n, a->vf, n, NULL, own, a->dyf, n, g32, n,
                                                  g32 + nd, n, g32 + 2 * nd, n));
    TU_EXPECT_OK(skit_attention_plan_backward_f32(p32, a->qf, n, a->kf, n, a->vf, n, NULL, NULL, a->dyf, n, h32, n,
                                                  h32 + nd, n, h32 + 2 * nd, n));
    ck_assert_msg(!memcmp(g32, h32, (2 * nd + nv) * sizeof(float)), "f32: refined NULL is not the plan's selection "
                  "(seed %llu)", (unsigned long long)seed);
    TU_EXPECT_OK(skit_attention_plan_backward(p64, a->q, n, a->k, n, a->v, n, NULL, NULL, a->dy, n, g64, n, g64 + nd, n,
                                              g64 + 2 * nd, n));
    ck_assert_msg(!memcmp(g64, a->dq, nd * sizeof(double)) && !memcmp(g64 + nd, a->dk, nd * sizeof(double)) &&
                      !memcmp(g64 + 2 * nd, a->dv64, nv * sizeof(double)),
                  "f64: refined NULL is not the plan's selection (seed %llu)", (unsigned long long)seed);
    free(own);
    skit_free(g32), skit_free(h32), skit_free(g64), skit_free(h64);
    skit_attention_plan_destroy(p64);
    skit_attention_plan_destroy(p32);
}

/* (n, block): even and odd blocks, a prime number of blocks, b = n / 2 */
static const size_t mra32_sizes[][2] = {{4, 2},  {6, 2},  {14, 2},  {21, 3}, {26, 13}, {35, 5},
                                        {39, 3}, {64, 8}, {96, 8}, {128, 16}, {130, 2}};
#define NMRA32 (sizeof mra32_sizes / sizeof *mra32_sizes)

/* the float32 MRA-2 plan's backward against the float64 plan's with the
 * same refined squares (Algorithm 1, global and per row, causal or not),
 * outputs NaN-poisoned */
START_TEST(test_mra2_backward_f32)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t s = 0; s < NMRA32; s++)
        for (int variant = 0; variant < 4; variant++) {
            mra32t m = {.a = {.n = mra32_sizes[s][0], .d = 1 + (s + variant) % 5, .dv = 1 + (2 * s + variant) % 4},
                        .b = mra32_sizes[s][1]};
            m.rows = m.a.n / m.b;
            m.a.scale = (double)(float)((0.5 + (double)((s + variant) % 3)) / sqrt((double)m.a.d));
            m.a.mask.causal = variant & 1;
            att32_alloc(&m.a, &rng);
            m.Sc = tu_alloc(m.a.n * m.a.n);
            m.refined = malloc(m.rows * m.rows);
            size_t per_row = 1 + (size_t)skit_rng_below(&rng, m.rows);
            mra32t_run(&m, per_row, variant >> 1, seed);
            skit_free(m.Sc);
            free(m.refined);
            att32_free(&m.a);
        }
}
END_TEST

/* every square refined: the float32 MRA-2 backward is the float32 exact
 * one up to rounding (both within their bounds of the same float64
 * gradients) */
START_TEST(test_mra2_backward_f32_all_refined)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    att32 a = {.n = 12, .d = 2, .dv = 3, .scale = 0.5, .mask = {NULL, 1}};
    att32_alloc(&a, &rng);
    const size_t n = a.n;
    unsigned char refined[9];
    memset(refined, 1, sizeof refined);
    skit_attention_plan *m64, *m32, *e64, *e32;
    att32_plans(&a, 4, 3, 0, &m64, &m32);
    att32_plans(&a, 0, 0, 0, &e64, &e32);
    float *g = tu_alloc_f32(3 * n * a.d);
    TU_EXPECT_OK(skit_attention_plan_backward_f32(m32, a.qf, n, a.kf, n, a.vf, n, NULL, refined, a.dyf, n, g, n,
                                                  g + n * a.d, n, a.dvf, n));
    TU_EXPECT_OK(skit_attention_plan_backward_f32(e32, a.qf, n, a.kf, n, a.vf, n, NULL, NULL, a.dyf, n, a.dqf, n,
                                                  a.dkf, n, NULL, n));
    for (size_t i = 0; i < n * a.d; i++)
        ck_assert_msg(fabsf(g[i] - a.dqf[i]) < 1e-5f && fabsf(g[n * a.d + i] - a.dkf[i]) < 1e-5f,
                      "all refined vs exact, entry %zu (seed %llu)", i, (unsigned long long)seed);
    skit_attention_plan_destroy(m64), skit_attention_plan_destroy(m32);
    skit_attention_plan_destroy(e64), skit_attention_plan_destroy(e32);
    skit_free(g);
    att32_free(&a);
}
END_TEST

/* one plan's backward from many threads at once (concurrent calls run
 * on copies of the plan; MRA-2 selects its squares again in each): the
 * same bits as one call alone */
static int att32_threads_differ(const att32 *a, const skit_attention_plan *p, const float *ref)
{
    const size_t n = a->n, d = a->d, dv = a->dv, total = n * (2 * d + dv);
    int bad = 0;
#pragma omp parallel for num_threads(4) reduction(| : bad)
    for (int t = 0; t < 8; t++) {
        float *g = skit_malloc(total, sizeof(float));
        int st = skit_attention_plan_backward_f32(p, a->qf, n, a->kf, n, a->vf, n, NULL, NULL, a->dyf, n, g, n,
                                                  g + n * d, n, g + 2 * n * d, n);
        bad |= st != SKIT_OK || memcmp(g, ref, total * sizeof(float));
        skit_free(g);
    }
    return bad;
}

START_TEST(test_attention_backward_f32_threads)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    att32 a = {.n = 96, .d = 3, .dv = 2, .scale = 0.5, .mask = {NULL, 1}};
    att32_alloc(&a, &rng);
    const size_t n = a.n, total = n * (2 * a.d + a.dv);
    float *g = tu_alloc_f32(total);
    for (size_t block = 0; block <= 8; block += 8) {
        skit_attention_plan *p64, *p32;
        att32_plans(&a, block, 3, 0, &p64, &p32);
        TU_EXPECT_OK(skit_attention_plan_backward_f32(p32, a.qf, n, a.kf, n, a.vf, n, NULL, NULL, a.dyf, n, g, n,
                                                      g + n * a.d, n, g + 2 * n * a.d, n));
        ck_assert_msg(!att32_threads_differ(&a, p32, g), "%s: threads differ (seed %llu)", block ? "mra2" : "exact",
                      (unsigned long long)seed);
        skit_attention_plan_destroy(p64);
        skit_attention_plan_destroy(p32);
    }
    skit_free(g);
    att32_free(&a);
}
END_TEST

static Suite *suite_backward(void)
{
    Suite *s = suite_create("backward");
    TCase *tc = tcase_create("backward");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_toeplitz_backward_definition);
    tcase_add_test(tc, test_fdiff_pick_kink);
    tcase_add_test(tc, test_gradcheck_toeplitz);
    tcase_add_test(tc, test_gradcheck_mlp);
    tcase_add_test(tc, test_gradcheck_decay);
    tcase_add_test(tc, test_gradcheck_tno);
    tcase_add_test(tc, test_gradcheck_fd);
    tcase_add_test(tc, test_gradcheck_ski);
    tcase_add_test(tc, test_gradcheck_attention);
    tcase_add_test(tc, test_gradcheck_mra2);
    tcase_add_test(tc, test_mra2_backward_all_refined_is_exact);
    tcase_add_test(tc, test_mra2_backward_blocked_matches_rows);
    tcase_add_test(tc, test_mlp_every_activation_and_norm);
    tcase_add_test(tc, test_attention_backward_mask);
    tcase_add_test(tc, test_tno_backward_threads);
    tcase_add_test(tc, test_tno_set_decay);
    tcase_add_test(tc, test_backward_errors);
    suite_add_tcase(s, tc);
    TCase *f32 = tcase_create("backward_f32"); /* CK_RUN_CASE=backward_f32 runs these alone */
    tcase_set_timeout(f32, 300);
    tcase_add_test(f32, test_toeplitz_backward_f32);
    tcase_add_test(f32, test_gradcheck_f32_toeplitz);
    tcase_add_test(f32, test_gradcheck_f32_tno);
    tcase_add_test(f32, test_gradcheck_f32_fd);
    tcase_add_test(f32, test_gradcheck_f32_ski);
    tcase_add_test(f32, test_tno_backward_f32_threads);
    suite_add_tcase(s, f32);
    TCase *att = tcase_create("attention_f32"); /* CK_RUN_CASE=attention_f32 */
    tcase_set_timeout(att, 300);
    tcase_add_test(att, test_attention_backward_f32);
    tcase_add_test(att, test_attention_backward_f32_null_outputs);
    tcase_add_test(att, test_gradcheck_f32_attention);
    tcase_add_test(att, test_mra2_backward_f32);
    tcase_add_test(att, test_mra2_backward_f32_all_refined);
    tcase_add_test(att, test_gradcheck_f32_mra2);
    tcase_add_test(att, test_mra2s_plan_backward_fdiff);
    tcase_add_test(att, test_attention_backward_f32_threads);
    suite_add_tcase(s, att);
    return s;
}

int main(void) { return tu_main(suite_backward()); }
