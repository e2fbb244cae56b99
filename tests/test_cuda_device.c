/* test_cuda_device.c — the CUDA backend against the CPU path on fresh random
 * inputs, with poisoned (NaN) outputs so that unwritten elements show:
 * batched Toeplitz products (both precisions, per-channel and shared,
 * causal and bidirectional, transposed, host and device-resident entry
 * points) against skit_toeplitz_plan and the dense reference; exact
 * attention against a naive loop; the elementwise kernels against host
 * loops; MRA-2 / MRA-2-s against the CPU plan; the attention and
 * token-mixing plans with device = cuda against the same plans on the CPU;
 * and the argument checks that need a live plan.
 *
 * Exits 77 (automake's "skipped") when the backend is not built or no device
 * is present. The tests run without check's fork (a CUDA context does not
 * survive fork()). Where a GPU exists, also run them under
 *   compute-sanitizer --tool memcheck tests/test_cuda_device */
#include "config.h"

#include <math.h>

#include "check_util.h"

/* float32 results are compared with the float64 CPU path at this relative
 * L-infinity tolerance (FFT and GEMM rounding in single precision grows
 * slowly with the size; these sizes stay far below it). */
#define TOL_F32 2e-4
#define TOL_F64 1e-10

static double tolerance(skit_cuda_precision precision)
{
    return precision == SKIT_CUDA_FLOAT32 ? TOL_F32 : TOL_F64;
}

/* Device copy of x (count doubles) in `precision`. */
static void *upload(const double *x, size_t count, skit_cuda_precision precision)
{
    size_t elt = skit_cuda_precision_bytes(precision);
    void *dev = NULL;
    TU_EXPECT_OK(skit_cuda_malloc(&dev, count * elt));
    if (precision == SKIT_CUDA_FLOAT64) {
        TU_EXPECT_OK(skit_cuda_copy_to_device(dev, x, count * elt));
    } else {
        float *tmp = skit_malloc(count ? count : 1, sizeof(float));
        for (size_t i = 0; i < count; i++) tmp[i] = (float)x[i];
        TU_EXPECT_OK(skit_cuda_copy_to_device(dev, tmp, count * elt));
        skit_free(tmp);
    }
    return dev;
}

static void download(double *x, const void *dev, size_t count, skit_cuda_precision precision)
{
    if (precision == SKIT_CUDA_FLOAT64) {
        TU_EXPECT_OK(skit_cuda_copy_to_host(x, dev, count * sizeof(double)));
        return;
    }
    float *tmp = skit_malloc(count ? count : 1, sizeof(float));
    TU_EXPECT_OK(skit_cuda_copy_to_host(tmp, dev, count * sizeof(float)));
    for (size_t i = 0; i < count; i++) x[i] = (double)tmp[i];
    skit_free(tmp);
}

/* ---- Toeplitz ------------------------------------------------------------------------ */

static const size_t shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 3}, {16, 16}, {17, 13}, {13, 17},
                                   {64, 64}, {97, 97}, {100, 37}, {127, 127}, {255, 256},
                                   {499, 499}, {1000, 1000}, {2039, 2039}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* One configuration: GPU (host entry point and device-resident) vs the CPU
 * FFT plan, and channel 0 vs the dense reference. */
static void check_toeplitz(skit_rng *rng, uint64_t seed, size_t m, size_t n, size_t d,
                           skit_toeplitz_sharing sharing, skit_causality causality,
                           skit_cuda_precision precision, int transpose)
{
    size_t ncoef = m + n - 1, nsets = sharing == SKIT_TOEPLITZ_SHARED ? 1 : d;
    size_t in_len = transpose ? m : n, out_len = transpose ? n : m;
    size_t ldx = in_len + 3, ldy = out_len + 2;
    double *coeffs = tu_random(rng, ncoef * nsets);
    double *x = tu_random(rng, ldx * d);
    double *y = tu_alloc(ldy * d), *yd = tu_alloc(ldy * d), *ref = tu_alloc(ldy * d);
    double *dense = tu_alloc(out_len);

    skit_toeplitz_plan *cpu = NULL;
    skit_cuda_toeplitz_plan *gpu = NULL;
    TU_EXPECT_OK(skit_toeplitz_plan_create(
        &cpu, m, n, d, &(skit_toeplitz_options){.sharing = sharing, .causality = causality},
        coeffs));
    TU_EXPECT_OK(skit_cuda_toeplitz_plan_create(&gpu, m, n, d, sharing, causality, precision, coeffs));
    ck_assert_uint_ge(skit_cuda_toeplitz_plan_fft_length(gpu), ncoef);
    ck_assert_uint_gt(skit_cuda_toeplitz_plan_device_bytes(gpu), 0);
    if (transpose) {
        TU_EXPECT_OK(skit_toeplitz_plan_execute_transpose(cpu, x, ldx, ref, ldy, NULL));
        TU_EXPECT_OK(skit_cuda_toeplitz_execute_transpose(gpu, x, ldx, y, ldy));
    } else {
        TU_EXPECT_OK(skit_toeplitz_plan_execute(cpu, x, ldx, ref, ldy, NULL));
        TU_EXPECT_OK(skit_cuda_toeplitz_execute(gpu, x, ldx, y, ldy));
    }
    /* device-resident: x and y live on the device with the same leading dimensions */
    void *xd = upload(x, ldx * d, precision);
    void *ydev = upload(yd, ldy * d, precision); /* NaN-poisoned */
    if (transpose)
        TU_EXPECT_OK(skit_cuda_toeplitz_execute_transpose_device(gpu, xd, ldx, ydev, ldy));
    else
        TU_EXPECT_OK(skit_cuda_toeplitz_execute_device(gpu, xd, ldx, ydev, ldy));
    TU_EXPECT_OK(skit_cuda_synchronize());
    download(yd, ydev, ldy * d, precision);

    double tol = tolerance(precision);
    for (size_t c = 0; c < d; c++) {
        double ey = tu_rel_error(y + c * ldy, ref + c * ldy, out_len);
        double ed = tu_rel_error(yd + c * ldy, ref + c * ldy, out_len);
        ck_assert_msg(ey < tol && ed < tol,
                      "m=%zu n=%zu d=%zu c=%zu shared=%d causal=%d prec=%d transpose=%d: host %.3g device %.3g (seed %llu)",
                      m, n, d, c, sharing, causality, precision, transpose, ey, ed,
                      (unsigned long long)seed);
        for (size_t i = out_len; i < ldy; i++) /* padding rows untouched */
            ck_assert(isnan(y[i + c * ldy]) && isnan(yd[i + c * ldy]));
    }
    /* channel 0 also against the O(mn) definition */
    if (!transpose) {
        TU_EXPECT_OK(skit_toeplitz_matvec_dense(m, n, coeffs, causality, 0, x, dense));
        ck_assert_msg(tu_rel_error(y, dense, out_len) < tol, "dense m=%zu n=%zu (seed %llu)", m, n,
                      (unsigned long long)seed);
    }
    skit_cuda_free(xd);
    skit_cuda_free(ydev);
    skit_cuda_toeplitz_plan_destroy(gpu);
    skit_toeplitz_plan_destroy(cpu);
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    skit_free(yd);
    skit_free(ref);
    skit_free(dense);
}

START_TEST(test_toeplitz_matches_cpu)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    skit_cuda_precision precision = (skit_cuda_precision)_i;
    for (size_t s = 0; s < NSHAPES; s++)
        for (int shared = 0; shared <= 1; shared++)
            for (int causal = 0; causal <= 1; causal++)
                for (int transpose = 0; transpose <= 1; transpose++) {
                    size_t d = 1 + (s % 3) * 2; /* 1, 3, 5 */
                    check_toeplitz(&rng, seed, shapes[s][0], shapes[s][1], d,
                                   shared ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL,
                                   causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL, precision, transpose);
                }
}
END_TEST

START_TEST(test_toeplitz_large_and_set_coeffs)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    skit_cuda_precision precision = (skit_cuda_precision)_i;
    check_toeplitz(&rng, seed, 65536, 65536, 4, SKIT_TOEPLITZ_PER_CHANNEL, SKIT_CAUSAL, precision, 0);
    check_toeplitz(&rng, seed, 10007, 10007, 2, SKIT_TOEPLITZ_SHARED, SKIT_BIDIRECTIONAL, precision, 1);

    /* set_coeffs: the plan then computes with the new matrices */
    size_t n = 333, d = 3, ncoef = 2 * n - 1;
    double *c1 = tu_random(&rng, ncoef * d), *c2 = tu_random(&rng, ncoef * d);
    double *x = tu_random(&rng, n * d), *y = tu_alloc(n * d), *ref = tu_alloc(n * d);
    skit_cuda_toeplitz_plan *gpu = NULL;
    skit_toeplitz_plan *cpu = NULL;
    TU_EXPECT_OK(skit_cuda_toeplitz_plan_create(&gpu, n, n, d, SKIT_TOEPLITZ_PER_CHANNEL,
                                                SKIT_BIDIRECTIONAL, precision, c1));
    TU_EXPECT_OK(skit_cuda_toeplitz_plan_set_coeffs(gpu, c2));
    TU_EXPECT_OK(
        skit_toeplitz_plan_create(&cpu, n, n, d,
                                  &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL,
                                                           .causality = SKIT_BIDIRECTIONAL},
                                  c2));
    TU_EXPECT_OK(skit_cuda_toeplitz_execute(gpu, x, n, y, n));
    TU_EXPECT_OK(skit_toeplitz_plan_execute(cpu, x, n, ref, n, NULL));
    ck_assert_msg(tu_rel_error(y, ref, n * d) < tolerance(precision), "set_coeffs (seed %llu)",
                  (unsigned long long)seed);
    /* a second execute on the same plan gives the same result (no state left behind) */
    double *y2 = tu_alloc(n * d);
    TU_EXPECT_OK(skit_cuda_toeplitz_execute(gpu, x, n, y2, n));
    ck_assert(memcmp(y, y2, n * d * sizeof(double)) == 0);
    c2[5] = NAN;
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_set_coeffs(gpu, c2), SKIT_ENONFINITE);
    skit_cuda_toeplitz_plan_destroy(gpu);
    skit_toeplitz_plan_destroy(cpu);
    skit_free(c1);
    skit_free(c2);
    skit_free(x);
    skit_free(y);
    skit_free(y2);
    skit_free(ref);
}
END_TEST

START_TEST(test_toeplitz_config_with_plan)
{
    double coeffs[2 * 8 - 1] = {0};
    coeffs[7] = 1;
    skit_cuda_toeplitz_plan *plan = NULL;
    TU_EXPECT_OK(skit_cuda_toeplitz_plan_create(&plan, 8, 8, 2, SKIT_TOEPLITZ_SHARED,
                                                SKIT_BIDIRECTIONAL, SKIT_CUDA_FLOAT64, coeffs));
    double x[32] = {0}, y[32];
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute(plan, NULL, 8, y, 8), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute(plan, x, 8, NULL, 8), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute(plan, x, 7, y, 8), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute(plan, x, 8, y, 7), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute(plan, x, 8, x + 4, 8), SKIT_EINVAL);
    x[3] = INFINITY;
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute(plan, x, 8, y, 8), SKIT_ENONFINITE);
    x[3] = 0;
    TU_EXPECT_OK(skit_cuda_toeplitz_execute(plan, x, 8, y, 8)); /* identity */
    for (int i = 0; i < 16; i++) ck_assert(fabs(y[i] - x[i]) < 1e-14);
    void *xd = NULL;
    TU_EXPECT_OK(skit_cuda_malloc(&xd, 32 * sizeof(double)));
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute_device(plan, xd, 8, (double *)xd + 8, 8), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_execute_transpose_device(plan, xd, 7, (double *)xd + 16, 8), SKIT_ESHAPE);
    skit_cuda_free(xd);
    TU_EXPECT_STATUS(skit_cuda_toeplitz_plan_set_coeffs(plan, NULL), SKIT_EINVAL);
    skit_cuda_toeplitz_plan_destroy(plan);
}
END_TEST

/* ---- attention ----------------------------------------------------------------------- */

static void naive_attention(size_t nq, size_t nk, size_t dk, size_t dv, int causal, double scale,
                            const double *Q, size_t ldq, const double *K, size_t ldk,
                            const double *V, size_t ldv, double *Y, size_t ldy)
{
    double *w = skit_malloc(nk, sizeof *w);
    for (size_t i = 0; i < nq; i++) {
        double top = -INFINITY, sum = 0;
        for (size_t j = 0; j < nk; j++) {
            double s = 0;
            for (size_t a = 0; a < dk; a++) s += Q[i + a * ldq] * K[j + a * ldk];
            w[j] = (causal && j > i) ? -INFINITY : scale * s;
            if (w[j] > top) top = w[j];
        }
        for (size_t j = 0; j < nk; j++) sum += (w[j] = exp(w[j] - top));
        for (size_t b = 0; b < dv; b++) {
            double s = 0;
            for (size_t j = 0; j < nk; j++) s += w[j] * V[j + b * ldv];
            Y[i + b * ldy] = s / sum;
        }
    }
    skit_free(w);
}

START_TEST(test_attention_matches_naive)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    skit_cuda_precision precision = (skit_cuda_precision)_i;
    const size_t dims[][4] = {{1, 1, 1, 1}, {7, 7, 3, 5}, {64, 64, 16, 16}, {100, 37, 8, 3},
                              {37, 100, 5, 9}, {257, 257, 64, 64}, {1000, 1000, 32, 17}};
    const size_t tiles[] = {0, 1, 7, 64};
    for (size_t s = 0; s < sizeof dims / sizeof dims[0]; s++)
        for (int causal = 0; causal <= 1; causal++)
            for (size_t t = 0; t < 4; t++) {
                size_t nq = dims[s][0], nk = dims[s][1], dk = dims[s][2], dv = dims[s][3];
                size_t tile = tiles[t] > nq ? nq : tiles[t];
                size_t ldq = nq + 1, ldk = nk + 2, ldv = nk, ldy = nq + 3;
                double *Q = tu_random(&rng, ldq * dk), *K = tu_random(&rng, ldk * dk);
                double *V = tu_random(&rng, ldv * dv);
                double *Y = tu_alloc(ldy * dv), *Yd = tu_alloc(ldy * dv), *ref = tu_alloc(ldy * dv);
                /* 1/sqrt(dk) and a 30x hotter softmax: the max shift keeps it finite */
                double scale = (t % 2 ? 30.0 : 1.0) / sqrt((double)dk);
                skit_cuda_attention_plan *plan = NULL;
                TU_EXPECT_OK(skit_cuda_attention_plan_create(&plan, nq, nk, dk, dv, causal, precision, tile));
                ck_assert_uint_ge(skit_cuda_attention_plan_tile(plan), 1);
                TU_EXPECT_OK(skit_cuda_attention_execute(plan, scale, Q, ldq, K, ldk, V, ldv, Y, ldy));
                void *qd = upload(Q, ldq * dk, precision), *kd = upload(K, ldk * dk, precision);
                void *vd = upload(V, ldv * dv, precision), *yd = upload(Yd, ldy * dv, precision);
                TU_EXPECT_OK(skit_cuda_attention_execute_device(plan, scale, qd, ldq, kd, ldk, vd,
                                                                ldv, yd, ldy));
                download(Yd, yd, ldy * dv, precision);
                naive_attention(nq, nk, dk, dv, causal, scale, Q, ldq, K, ldk, V, ldv, ref, ldy);
                /* hot softmax in float32 amplifies the logits' rounding: looser there */
                double tol = tolerance(precision) * (precision == SKIT_CUDA_FLOAT32 && t % 2 ? 50 : 1);
                for (size_t b = 0; b < dv; b++) {
                    double e1 = tu_rel_error(Y + b * ldy, ref + b * ldy, nq);
                    double e2 = tu_rel_error(Yd + b * ldy, ref + b * ldy, nq);
                    ck_assert_msg(e1 < tol && e2 < tol,
                                  "nq=%zu nk=%zu dk=%zu dv=%zu causal=%d tile=%zu prec=%d: %.3g %.3g (seed %llu)",
                                  nq, nk, dk, dv, causal, tile, precision, e1, e2,
                                  (unsigned long long)seed);
                    for (size_t i = nq; i < ldy; i++) ck_assert(isnan(Y[i + b * ldy]) && isnan(Yd[i + b * ldy]));
                }
                skit_cuda_free(qd);
                skit_cuda_free(kd);
                skit_cuda_free(vd);
                skit_cuda_free(yd);
                skit_cuda_attention_plan_destroy(plan);
                skit_free(Q);
                skit_free(K);
                skit_free(V);
                skit_free(Y);
                skit_free(Yd);
                skit_free(ref);
            }
}
END_TEST

START_TEST(test_attention_config_with_plan)
{
    skit_cuda_attention_plan *plan = NULL;
    TU_EXPECT_OK(skit_cuda_attention_plan_create(&plan, 4, 4, 2, 2, 0, SKIT_CUDA_FLOAT64, 0));
    double q[8] = {0}, k[8] = {0}, v[8] = {0}, y[8];
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, NAN, q, 4, k, 4, v, 4, y, 4), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, 1.0, q, 3, k, 4, v, 4, y, 4), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, 1.0, q, 4, k, 3, v, 4, y, 4), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, 1.0, q, 4, k, 4, v, 3, y, 4), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, 1.0, q, 4, k, 4, v, 4, y, 3), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, 1.0, q, 4, k, 4, v, 4, v, 4), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, 1.0, q, 4, k, 4, v, 4, NULL, 4), SKIT_EINVAL);
    v[2] = NAN;
    TU_EXPECT_STATUS(skit_cuda_attention_execute(plan, 1.0, q, 4, k, 4, v, 4, y, 4), SKIT_ENONFINITE);
    v[2] = 0;
    TU_EXPECT_STATUS(skit_cuda_attention_execute_device(plan, 1.0, q, (size_t)1 << 31, k, 4, v, 4, y, 4), SKIT_ESHAPE);
    /* a uniform softmax of V = 0 */
    TU_EXPECT_OK(skit_cuda_attention_execute(plan, 1.0, q, 4, k, 4, v, 4, y, 4));
    for (int i = 0; i < 8; i++) ck_assert(y[i] == 0);
    skit_cuda_attention_plan_destroy(plan);
}
END_TEST

/* ---- elementwise kernels ------------------------------------------------------------- */

START_TEST(test_complex_multiply)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    skit_cuda_precision precision = (skit_cuda_precision)_i;
    const size_t nfs[] = {1, 5, 129, 1025};
    for (size_t a = 0; a < 4; a++)
        for (int shared = 0; shared <= 1; shared++)
            for (int conjugate = 0; conjugate <= 1; conjugate++) {
                size_t nf = nfs[a], d = 3, ldz = nf + 1, lds = nf + 2;
                double *s = tu_random(&rng, 2 * lds * d), *z = tu_random(&rng, 2 * ldz * d);
                double *out = tu_alloc(2 * ldz * d), *ref = tu_alloc(2 * ldz * d);
                memcpy(ref, z, 2 * ldz * d * sizeof(double));
                for (size_t c = 0; c < d; c++)
                    for (size_t f = 0; f < nf; f++) {
                        const double *sv = s + 2 * (f + (shared ? 0 : c * lds));
                        double *zv = ref + 2 * (f + c * ldz);
                        double br = sv[0], bi = conjugate ? -sv[1] : sv[1];
                        double re = zv[0] * br - zv[1] * bi, im = zv[0] * bi + zv[1] * br;
                        zv[0] = re;
                        zv[1] = im;
                    }
                void *sd = upload(s, 2 * lds * d, precision), *zd = upload(z, 2 * ldz * d, precision);
                TU_EXPECT_OK(skit_cuda_complex_multiply_device(precision, nf, d, shared, sd, lds, zd, ldz, conjugate));
                download(out, zd, 2 * ldz * d, precision);
                /* entries beyond nfreq keep their input values */
                ck_assert_msg(tu_rel_error(out, ref, 2 * ldz * d) < tolerance(precision),
                              "nf=%zu shared=%d conj=%d (seed %llu)", nf, shared, conjugate,
                              (unsigned long long)seed);
                skit_cuda_free(sd);
                skit_cuda_free(zd);
                skit_free(s);
                skit_free(z);
                skit_free(out);
                skit_free(ref);
            }
}
END_TEST

START_TEST(test_band_convolve)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    skit_cuda_precision precision = (skit_cuda_precision)_i;
    const size_t ns[] = {1, 2, 9, 100, 1031};
    for (size_t a = 0; a < 5; a++)
        for (size_t lo = 0; lo <= 6; lo += 3)
            for (size_t hi = 0; hi <= 4; hi += 2)
                for (int shared = 0; shared <= 1; shared++)
                    for (int accumulate = 0; accumulate <= 1; accumulate++) {
                        size_t n = ns[a], d = 2, ld = n + 1;
                        if (lo >= n || hi >= n) continue;
                        size_t ntaps = lo + hi + 1, nsets = shared ? 1 : d;
                        double *taps = tu_random(&rng, ntaps * nsets), *x = tu_random(&rng, ld * d);
                        double *y0 = tu_random(&rng, ld * d), *out = tu_alloc(ld * d);
                        double *coeffs = tu_alloc(2 * n - 1), *ref = tu_alloc(n);
                        for (size_t c = 0; c < d; c++) y0[n + c * ld] = NAN; /* padding */
                        void *td = upload(taps, ntaps * nsets, precision), *xd = upload(x, ld * d, precision);
                        void *yd = upload(y0, ld * d, precision);
                        TU_EXPECT_OK(skit_cuda_band_convolve_device(precision, n, d, lo, hi, shared, td, xd,
                                                                    ld, yd, ld, accumulate));
                        download(out, yd, ld * d, precision);
                        for (size_t c = 0; c < d; c++) {
                            for (size_t k = 0; k < 2 * n - 1; k++) coeffs[k] = 0;
                            for (size_t t = 0; t < ntaps; t++)
                                coeffs[t - lo + (n - 1)] = taps[t + (shared ? 0 : c * ntaps)];
                            TU_EXPECT_OK(skit_toeplitz_matvec_dense(n, n, coeffs, SKIT_BIDIRECTIONAL, 0,
                                                                    x + c * ld, ref));
                            if (accumulate)
                                for (size_t i = 0; i < n; i++) ref[i] += y0[i + c * ld];
                            ck_assert_msg(tu_rel_error(out + c * ld, ref, n) < tolerance(precision),
                                          "n=%zu lo=%zu hi=%zu shared=%d acc=%d (seed %llu)", n, lo, hi,
                                          shared, accumulate, (unsigned long long)seed);
                            ck_assert(isnan(out[n + c * ld]));
                        }
                        skit_cuda_free(td);
                        skit_cuda_free(xd);
                        skit_cuda_free(yd);
                        skit_free(taps);
                        skit_free(x);
                        skit_free(y0);
                        skit_free(out);
                        skit_free(coeffs);
                        skit_free(ref);
                    }
}
END_TEST

START_TEST(test_interp_gather_scatter)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    skit_cuda_precision precision = (skit_cuda_precision)_i;
    const size_t ns[] = {1, 10, 257, 4096};
    const size_t rs[] = {2, 16, 64};
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 3; b++)
            for (size_t width = 2; width <= 4; width += 2) {
                size_t n = ns[a], r = rs[b], d = 3, entries = n * width, ldu = r + 1, ldy = n + 2;
                size_t *cols = skit_malloc(entries, sizeof *cols);
                double *w = tu_random(&rng, entries);
                for (size_t i = 0; i < n; i++) /* a stencil of consecutive inducing points, like SKI */
                    for (size_t k = 0; k < width; k++) {
                        size_t start = (i * (r - 1)) / (n > 1 ? n - 1 : 1);
                        cols[i * width + k] = (start + k < r) ? start + k : r - 1;
                    }
                double *u = tu_random(&rng, ldu * d), *x = tu_random(&rng, ldy * d);
                double *y = tu_random(&rng, ldy * d), *ut = tu_alloc(ldu * d);
                double *yo = tu_alloc(ldy * d), *refy = tu_alloc(n), *refu = tu_alloc(r);
                skit_cuda_interp_plan *plan = NULL;
                TU_EXPECT_OK(skit_cuda_interp_plan_create(&plan, n, r, width, cols, w, precision));
                ck_assert_uint_gt(skit_cuda_interp_plan_device_bytes(plan), 0);
                void *ud = upload(u, ldu * d, precision), *xd = upload(x, ldy * d, precision);
                void *yd = upload(y, ldy * d, precision), *utd = upload(ut, ldu * d, precision);
                TU_EXPECT_OK(skit_cuda_interp_gather_device(plan, d, ud, ldu, yd, ldy, 1));
                TU_EXPECT_OK(skit_cuda_interp_scatter_device(plan, d, xd, ldy, utd, ldu));
                download(yo, yd, ldy * d, precision);
                download(ut, utd, ldu * d, precision);
                for (size_t c = 0; c < d; c++) {
                    for (size_t i = 0; i < n; i++) {
                        refy[i] = y[i + c * ldy];
                        for (size_t k = 0; k < width; k++)
                            refy[i] += w[i * width + k] * u[cols[i * width + k] + c * ldu];
                    }
                    for (size_t j = 0; j < r; j++) refu[j] = 0;
                    for (size_t i = 0; i < n; i++)
                        for (size_t k = 0; k < width; k++)
                            refu[cols[i * width + k]] += w[i * width + k] * x[i + c * ldy];
                    double tol = tolerance(precision);
                    ck_assert_msg(tu_rel_error(yo + c * ldy, refy, n) < tol, "gather n=%zu r=%zu (seed %llu)",
                                  n, r, (unsigned long long)seed);
                    ck_assert_msg(tu_rel_error(ut + c * ldu, refu, r) < tol, "scatter n=%zu r=%zu (seed %llu)",
                                  n, r, (unsigned long long)seed);
                    ck_assert(isnan(ut[r + c * ldu]));
                }
                TU_EXPECT_STATUS(skit_cuda_interp_gather_device(plan, d, ud, r - 1, yd, ldy, 0), SKIT_ESHAPE);
                TU_EXPECT_STATUS(skit_cuda_interp_scatter_device(plan, d, xd, n - 1, utd, ldu), SKIT_ESHAPE);
                TU_EXPECT_STATUS(skit_cuda_interp_scatter_device(plan, 0, xd, ldy, utd, ldu), SKIT_EDOM);
                TU_EXPECT_STATUS(skit_cuda_interp_scatter_device(plan, d, xd, ldy, xd, ldu), SKIT_EINVAL);
                skit_cuda_interp_plan_destroy(plan);
                skit_cuda_free(ud);
                skit_cuda_free(xd);
                skit_cuda_free(yd);
                skit_cuda_free(utd);
                skit_free(cols);
                skit_free(w);
                skit_free(u);
                skit_free(x);
                skit_free(y);
                skit_free(ut);
                skit_free(yo);
                skit_free(refy);
                skit_free(refu);
            }
}
END_TEST

/* ---- MRA-2 / MRA-2-s and the plans' device option ------------------------------------- */

/* Upload n bytes of a host mask (NULL stays NULL). */
static unsigned char *upload_mask(const unsigned char *mask, size_t n)
{
    if (!mask) return NULL;
    void *dev = NULL;
    TU_EXPECT_OK(skit_cuda_malloc(&dev, n));
    TU_EXPECT_OK(skit_cuda_copy_to_device(dev, mask, n));
    return dev;
}

/* float64: the device MRA plan (host and device entry points, leading
 * dimensions > n) against the CPU plan — the same squares refined, the
 * same output to rounding — over blocks, budgets, selections, priors,
 * masks, shift biases and hot logits. */
START_TEST(test_mra_matches_cpu)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    const size_t mra_shapes[][4] = {/* n, b, d, dv */ {6, 2, 2, 1},     {35, 5, 4, 3},
                                    {256, 32, 16, 8}, {1024, 32, 64, 64}, {2048, 64, 32, 16}};
    for (size_t s = 0; s < sizeof mra_shapes / sizeof mra_shapes[0]; s++)
        for (int method = SKIT_ATTENTION_MRA2; method <= SKIT_ATTENTION_MRA2_SPARSE; method++)
            for (int variant = 0; variant < 6; variant++) {
                size_t n = mra_shapes[s][0], b = mra_shapes[s][1], d = mra_shapes[s][2];
                size_t dv = mra_shapes[s][3], rows = n / b, ld = n + 3;
                skit_attention_options o;
                skit_attention_options_init(&o, (skit_attention_method)method);
                o.block = b;
                o.blocks_per_row[0] = 1 + (size_t)skit_rng_below(&rng, rows);
                o.selection = (variant & 1) ? SKIT_MRA_PER_ROW : SKIT_MRA_GLOBAL;
                o.diagonal_prior = variant == 2 ? 2 : 0;
                o.first_block_prior = variant == 3;
                o.shift_bias = variant == 4 ? 100.0 : 0.0;
                if (variant == 5) o.scale = 30.0 / sqrt((double)d);
                double *Q = tu_random(&rng, ld * d), *K = tu_random(&rng, ld * d);
                double *V = tu_random(&rng, ld * dv);
                unsigned char *mask = NULL;
                if (variant >= 3) {
                    mask = malloc(n);
                    for (size_t i = 0; i < n; i++) mask[i] = skit_rng_uniform(&rng) < 0.8;
                    if (rows > 1)
                        for (size_t i = n - b; i < n; i++) mask[i] = 0;
                }
                double *Y = tu_alloc(ld * dv), *Yd = tu_alloc(ld * dv), *ref = tu_alloc(n * dv);
                skit_attention_plan *cpu = NULL;
                TU_EXPECT_OK(skit_attention_plan_create(&cpu, n, d, dv, &o));
                skit_attention_stats st;
                TU_EXPECT_OK(
                    skit_attention_plan_execute(cpu, Q, ld, K, ld, V, ld, mask, ref, n, &st));
                skit_cuda_mra_plan *plan = NULL;
                TU_EXPECT_OK(skit_cuda_mra_plan_create(&plan, n, d, dv, &o, SKIT_CUDA_FLOAT64));
                ck_assert_uint_gt(skit_cuda_mra_plan_device_bytes(plan), 0);
                ck_assert_uint_eq(skit_cuda_mra_plan_block(plan), b);
                TU_EXPECT_OK(skit_cuda_mra_execute(plan, Q, ld, K, ld, V, ld, mask, Y, ld));
                ck_assert_uint_eq(skit_cuda_mra_plan_refined(plan), st.refined[0]);
                void *qd = upload(Q, ld * d, SKIT_CUDA_FLOAT64), *kd = upload(K, ld * d, SKIT_CUDA_FLOAT64);
                void *vd = upload(V, ld * dv, SKIT_CUDA_FLOAT64), *yd = upload(Yd, ld * dv, SKIT_CUDA_FLOAT64);
                unsigned char *md = upload_mask(mask, n);
                TU_EXPECT_OK(skit_cuda_mra_execute_device(plan, qd, ld, kd, ld, vd, ld, md, yd, ld));
                download(Yd, yd, ld * dv, SKIT_CUDA_FLOAT64);
                for (size_t c = 0; c < dv; c++) {
                    double e1 = tu_rel_error(Y + c * ld, ref + c * n, n);
                    double e2 = tu_rel_error(Yd + c * ld, ref + c * n, n);
                    ck_assert_msg(e1 < TOL_F64 && e2 < TOL_F64,
                                  "%s n=%zu b=%zu per_row=%zu variant %d: %.3g %.3g (seed %llu)",
                                  skit_attention_method_name(method), n, b, o.blocks_per_row[0],
                                  variant, e1, e2, (unsigned long long)seed);
                    for (size_t i = n; i < ld; i++) ck_assert(isnan(Y[i + c * ld]) && isnan(Yd[i + c * ld]));
                }
                skit_cuda_free(qd), skit_cuda_free(kd), skit_cuda_free(vd), skit_cuda_free(yd);
                skit_cuda_free(md);
                skit_cuda_mra_plan_destroy(plan);
                skit_attention_plan_destroy(cpu);
                skit_free(Q), skit_free(K), skit_free(V), skit_free(Y), skit_free(Yd), skit_free(ref);
                free(mask);
            }
}
END_TEST

/* Both precisions: with every square refined MRA-2 and MRA-2-s are exact
 * attention; float32 at a partial budget refines the requested count and
 * stays finite (its selection may differ from float64's near ties). */
START_TEST(test_mra_full_budget_is_exact)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    skit_cuda_precision precision = (skit_cuda_precision)_i;
    size_t n = 512, b = 32, d = 32, dv = 16, rows = n / b;
    double *Q = tu_random(&rng, n * d), *K = tu_random(&rng, n * d), *V = tu_random(&rng, n * dv);
    double *Y = tu_alloc(n * dv), *ref = tu_alloc(n * dv);
    naive_attention(n, n, d, dv, 0, 1.0 / sqrt((double)d), Q, n, K, n, V, n, ref, n);
    for (int method = SKIT_ATTENTION_MRA2; method <= SKIT_ATTENTION_MRA2_SPARSE; method++)
        for (size_t per_row = rows; per_row >= 2; per_row /= 4) {
            skit_attention_options o;
            skit_attention_options_init(&o, (skit_attention_method)method);
            o.block = b;
            o.blocks_per_row[0] = per_row;
            skit_cuda_mra_plan *plan = NULL;
            TU_EXPECT_OK(skit_cuda_mra_plan_create(&plan, n, d, dv, &o, precision));
            tu_poison(Y, n * dv);
            TU_EXPECT_OK(skit_cuda_mra_execute(plan, Q, n, K, n, V, n, NULL, Y, n));
            ck_assert_uint_eq(skit_cuda_mra_plan_refined(plan), rows * per_row);
            if (per_row == rows)
                ck_assert_msg(tu_rel_error(Y, ref, n * dv) < tolerance(precision),
                              "%s prec %d: %.3g (seed %llu)", skit_attention_method_name(method),
                              precision, tu_rel_error(Y, ref, n * dv), (unsigned long long)seed);
            for (size_t i = 0; i < n * dv; i++) ck_assert(isfinite(Y[i]));
            skit_cuda_mra_plan_destroy(plan);
        }
    skit_free(Q), skit_free(K), skit_free(V), skit_free(Y), skit_free(ref);
}
END_TEST

/* skit_attention_plan with device = cuda (exact, mra2, mra2s; masks) against
 * the same plan on the CPU. */
START_TEST(test_attention_plan_device)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    const int methods[] = {SKIT_ATTENTION_EXACT, SKIT_ATTENTION_MRA2, SKIT_ATTENTION_MRA2_SPARSE};
    const size_t ns[] = {32, 96, 1024};
    for (size_t a = 0; a < 3; a++)
        for (size_t mi = 0; mi < 3; mi++)
            for (int masked = 0; masked <= 1; masked++) {
                size_t n = ns[a], d = 16, dv = 8, ld = n + 1;
                skit_attention_options o;
                skit_attention_options_init(&o, (skit_attention_method)methods[mi]);
                o.block = 16;
                o.blocks_per_row[0] = 2;
                double *Q = tu_random(&rng, ld * d), *K = tu_random(&rng, ld * d), *V = tu_random(&rng, ld * dv);
                double *Y = tu_alloc(ld * dv), *ref = tu_alloc(ld * dv);
                unsigned char *mask = NULL;
                if (masked) {
                    mask = malloc(n);
                    for (size_t i = 0; i < n; i++) mask[i] = skit_rng_uniform(&rng) < 0.7;
                }
                skit_attention_plan *cpu = NULL, *gpu = NULL;
                TU_EXPECT_OK(skit_attention_plan_create(&cpu, n, d, dv, &o));
                o.device = SKIT_DEVICE_CUDA;
                TU_EXPECT_OK(skit_attention_plan_create(&gpu, n, d, dv, &o));
                ck_assert_uint_gt(skit_attention_plan_bytes(gpu), 0);
                skit_attention_stats sc, sg;
                TU_EXPECT_OK(
                    skit_attention_plan_execute(cpu, Q, ld, K, ld, V, ld, mask, ref, ld, &sc));
                TU_EXPECT_OK(
                    skit_attention_plan_execute(gpu, Q, ld, K, ld, V, ld, mask, Y, ld, &sg));
                ck_assert(sc.entries == sg.entries && sc.refined[0] == sg.refined[0]);
                for (size_t c = 0; c < dv; c++) {
                    double e = tu_rel_error(Y + c * ld, ref + c * ld, n);
                    ck_assert_msg(e < TOL_F64, "%s n=%zu masked=%d: %.3g (seed %llu)",
                                  skit_attention_method_name(methods[mi]), n, masked, e,
                                  (unsigned long long)seed);
                    ck_assert(isnan(Y[n + c * ld]));
                }
                double *bad = tu_random(&rng, ld * d);
                bad[3] = NAN;
                TU_EXPECT_STATUS(
                    skit_attention_plan_execute(gpu, bad, ld, K, ld, V, ld, mask, Y, ld, NULL),
                    SKIT_ENONFINITE);
                skit_free(bad);
                skit_attention_plan_destroy(cpu);
                skit_attention_plan_destroy(gpu);
                skit_free(Q), skit_free(K), skit_free(V), skit_free(Y), skit_free(ref);
                free(mask);
            }
}
END_TEST

/* skit_tno_plan with device = cuda: TNO, FD-TNO (both causalities) and
 * bidirectional SKI-TNO, both layouts, batches, against the CPU plan; and
 * after new parameters (the update path). */
START_TEST(test_tno_device)
{
    skit_rng rng;
    uint64_t seed = tu_seed();
    skit_rng_seed(&rng, seed);
    const size_t ns[] = {1, 17, 256, 1000};
    for (int kind = 0; kind <= 2; kind++)
        for (int causal = 0; causal <= 1; causal++)
            for (int layout = 0; layout <= 1; layout++)
                for (size_t a = 0; a < 4; a++) {
                    if (kind == SKIT_TNO_SKI && causal) continue;
                    size_t n = ns[a], d = 5, batch = 2, total = batch * n * d;
                    skit_tno_options t;
                    skit_tno_options_default(&t, (skit_tno_kind)kind);
                    t.rpe_width = 16;
                    t.rpe_layers = 2;
                    t.rank = n < 8 ? (n < 2 ? 2 : n) : 8;
                    t.taps = n < 3 ? 1 : 5;
                    t.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
                    t.layout = (skit_tno_layout)layout;
                    if (kind == SKIT_TNO_SKI && n < 2) continue; /* r >= 2 needs n >= 2 */
                    skit_tno_plan *cpu = NULL, *gpu = NULL;
                    TU_EXPECT_OK(skit_tno_plan_create(&cpu, n, d, batch, &t, NULL, 0));
                    t.device = SKIT_DEVICE_CUDA;
                    TU_EXPECT_OK(skit_tno_plan_create(&gpu, n, d, batch, &t, NULL, 0));
                    double *x = tu_random(&rng, total), *y = tu_alloc(total), *ref = tu_alloc(total);
                    for (int round = 0; round < 2; round++) {
                        if (round == 1) { /* new parameters on both */
                            size_t count = skit_tno_plan_parameter_count(cpu);
                            double *p = tu_alloc(count);
                            TU_EXPECT_OK(skit_tno_plan_get_parameters(cpu, p, count));
                            for (size_t k = 0; k < count; k++) p[k] *= 1.0 + 0.1 * skit_rng_normal(&rng);
                            TU_EXPECT_OK(skit_tno_plan_set_parameters(cpu, p, count));
                            TU_EXPECT_OK(skit_tno_plan_set_parameters(gpu, p, count));
                            skit_free(p);
                        }
                        tu_poison(y, total);
                        TU_EXPECT_OK(skit_tno_plan_execute(cpu, x, ref, NULL));
                        TU_EXPECT_OK(skit_tno_plan_forward(gpu, x, y));
                        double e = tu_rel_error(y, ref, total);
                        ck_assert_msg(e < 1e-9, "%s causal=%d layout=%d n=%zu round %d: %.3g (seed %llu)",
                                      skit_tno_kind_name((skit_tno_kind)kind), causal, layout, n, round,
                                      e, (unsigned long long)seed);
                    }
                    char text[256];
                    skit_tno_plan_describe(gpu, text, sizeof text);
                    ck_assert(strstr(text, "device=cuda") != NULL);
                    skit_tno_plan_destroy(cpu);
                    skit_tno_plan_destroy(gpu);
                    skit_free(x), skit_free(y), skit_free(ref);
                }
}
END_TEST

/* ---- runtime helpers ------------------------------------------------------------------ */

static int copy_work(void *context)
{
    void **buffers = context;
    return skit_cuda_copy_on_device(buffers[1], buffers[0], 1 << 20);
}

START_TEST(test_runtime_helpers)
{
    char line[256];
    TU_EXPECT_OK(skit_cuda_status(line, sizeof line));
    ck_assert_msg(strstr(line, "compute capability") != NULL, "%s", line);
    void *zero = NULL, *buffers[2] = {NULL, NULL};
    TU_EXPECT_OK(skit_cuda_malloc(&zero, 0));
    ck_assert_ptr_nonnull(zero);
    skit_cuda_free(zero);
    TU_EXPECT_OK(skit_cuda_malloc(&buffers[0], 1 << 20));
    TU_EXPECT_OK(skit_cuda_malloc(&buffers[1], 1 << 20));
    /* the source written first: compute-sanitizer's initcheck flags a copy
     * of never-written device memory (2^20 / 8 reports before this line) */
    unsigned char *host = malloc(1 << 20);
    ck_assert_ptr_nonnull(host);
    memset(host, 0x5a, 1 << 20);
    TU_EXPECT_OK(skit_cuda_copy_to_device(buffers[0], host, 1 << 20));
    free(host);
    double seconds = 0, bandwidth = 0;
    TU_EXPECT_OK(skit_cuda_time(copy_work, buffers, 3, &seconds));
    ck_assert(seconds > 0 && isfinite(seconds));
    TU_EXPECT_OK(skit_cuda_copy_bandwidth(1 << 24, 3, &bandwidth));
    ck_assert(bandwidth > 1e9); /* any GPU moves more than 1 GB/s */
    TU_EXPECT_STATUS(skit_cuda_malloc(&zero, SIZE_MAX / 2), SKIT_ETOOBIG);
    ck_assert_ptr_null(zero);
    skit_cuda_free(buffers[0]);
    skit_cuda_free(buffers[1]);
}
END_TEST

static Suite *suite_cuda_device(void)
{
    Suite *s = suite_create("cuda_device");
    TCase *tc = tcase_create("device");
    tcase_set_timeout(tc, 120);
    /* loop index _i: 0 = float64, 1 = float32 */
    tcase_add_loop_test(tc, test_toeplitz_matches_cpu, 0, 2);
    tcase_add_loop_test(tc, test_toeplitz_large_and_set_coeffs, 0, 2);
    tcase_add_test(tc, test_toeplitz_config_with_plan);
    tcase_add_loop_test(tc, test_attention_matches_naive, 0, 2);
    tcase_add_test(tc, test_attention_config_with_plan);
    tcase_add_loop_test(tc, test_complex_multiply, 0, 2);
    tcase_add_loop_test(tc, test_band_convolve, 0, 2);
    tcase_add_loop_test(tc, test_interp_gather_scatter, 0, 2);
    tcase_add_test(tc, test_mra_matches_cpu);
    tcase_add_loop_test(tc, test_mra_full_budget_is_exact, 0, 2);
    tcase_add_test(tc, test_attention_plan_device);
    tcase_add_test(tc, test_tno_device);
    tcase_add_test(tc, test_runtime_helpers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    char line[256];
    if (skit_cuda_status(line, sizeof line) != SKIT_OK) {
        /* not a failure: this build or machine has no GPU to test */
        fprintf(stderr, "%s: skipping the device tests\n", line);
        return 77;
    }
    fprintf(stderr, "%s\n", line);
    /* The probe above initialised CUDA in this process, and a CUDA context
     * does not survive fork(): run the tests in this process, not in check's
     * forked children. */
    setenv("CK_FORK", "no", 1);
    return tu_main(suite_cuda_device());
}
