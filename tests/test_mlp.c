/* test_mlp.c — the MLP of skit/mlp.h: initialisation statistics, parameter
 * layout, evaluation against a naive per-sample loop, Taylor-mode derivatives
 * against closed forms, known series and finite differences, and every
 * documented error code. */
#include "config.h"

#include <complex.h>

#include "check_util.h"
#include "mlp/mlp_internal.h"
#include "mlp/taylor.h"

static const char *act_name[] = {"relu", "silu", "gelu"};
static const char *norm_name[] = {"none", "layer", "rms"};

/* ---- naive reference: one input at a time, straight from the formulas ----
 * Optionally it also carries, per unit, a first-order bound e on the
 * rounding error |computed - exact| of ANY evaluation of the same formulas
 * (any summation order, with or without FMA; u = 2^-53, gamma_k = k u /
 * (1 - k u), Higham, Accuracy and Stability, 2nd ed., sec. 3.1):
 *  - Linear g = b + W h (fan-in n): the propagated sum |W| e plus the
 *    rounding of an (n + 1)-term dot product, gamma_(n+1) (|b| + |W||h|);
 *  - LayerNorm y = (h - m) / s, s = sqrt(var + 1e-5): its Jacobian is
 *    (I - y y^T / w) P / s with P the projection off the mean, of 2-norm
 *    <= 1/s, so an input error e moves each y_i by <= ||e||_2 / s. Its own
 *    rounding: the mean's, dm <= gamma_w mean |h|, and one more u |d_i| in
 *    d_i = h_i - m, so |dd_i| <= dm + u |d_i|, which moves y_i by dd_i / s;
 *    the variance's relative gamma_(w+2) and its data error 2 max|dd| sqrt
 *    (var) move s relatively by <= gamma_(w+2) / 2 + max|dd| / s + u, and
 *    the division (or 1/s and a product) adds 2 u: y_i's rounding is
 *    dd_i / s + |y_i| (gamma_(w+2) / 2 + max|dd| / s + 3 u). max |h| / s is
 *    the norm's condition: at width 2 with h_1 ~ h_2 it reaches
 *    max |h| / sqrt(1e-5), the amplification that a fixed tolerance missed;
 *  - RMS y = h / r, r = sqrt(mean h^2) + 1e-8: Jacobian 2-norm <= 2 / r,
 *    rounding |y_i| gamma_(w+5);
 *  - activation: Lipschitz 1 (ReLU, exact), 1.13 (SiLU's and GeLU's
 *    derivatives peak at 1.10 and 1.129), plus 16 u |v| for SiLU and GeLU:
 *    with exp, erf and erfc within 5 ulps either formula (ref_act's or
 *    skit_mlp_activate's) is within about 8 u |v|; against mpmath at 40000
 *    points in [-40, 40] with glibc 2.36 all four were within 1.9 u |v|.
 * Two evaluations then differ by at most 2 e, asserted per output. The
 * second-order terms left out are smaller than e by a factor of about
 * ||e||_2 / s (or / r), which stayed below 1e-6 in this test (seeds 1 to
 * 1000). */
#define REF_U 0x1p-53
static double ref_gamma(size_t k) { return (double)k * REF_U / (1 - (double)k * REF_U); }

static double ref_act(int a, double v)
{
    if (a == SKIT_ACTIVATION_RELU) return v > 0 ? v : 0;
    if (a == SKIT_ACTIVATION_SILU) return v / (1 + exp(-v));
    return 0.5 * v * (1 + erf(v / sqrt(2.0)));
}

/* g = b + W h, W (fan_out x fan_in) row-major, b right after it; e: the
 * bound on h's error, eg: g's (both NULL: no bound) */
static void ref_linear(const double *p, size_t fan_in, size_t fan_out, const double *h, double *g,
                       const double *e, double *eg)
{
    const double *b = p + fan_out * fan_in;
    for (size_t i = 0; i < fan_out; i++) {
        double s = b[i], mag = fabs(b[i]), prop = 0;
        for (size_t j = 0; j < fan_in; j++) {
            s += p[i * fan_in + j] * h[j];
            mag += fabs(p[i * fan_in + j] * h[j]);
            if (e) prop += fabs(p[i * fan_in + j]) * e[j];
        }
        g[i] = s;
        if (eg) eg[i] = prop + ref_gamma(fan_in + 1) * mag;
    }
}

static double ref_norm2(const double *e, size_t w)
{
    double s = 0;
    for (size_t i = 0; i < w; i++) s += e[i] * e[i];
    return sqrt(s);
}

/* LayerNorm of h in place, e (or NULL) with it: see above; the mean's
 * rounding is gamma_(w-1) mean |h| when w is a power of 2 (the divisions
 * by w exact; at w = 1 the output is exactly 0), else gamma_w mean |h| */
static void ref_layer_norm(double *h, size_t w, double *e)
{
    double m = 0, v = 0, mag = 0, dmax = 0;
    for (size_t i = 0; i < w; i++) m += h[i] / (double)w;
    for (size_t i = 0; i < w; i++) v += (h[i] - m) * (h[i] - m) / (double)w;
    for (size_t i = 0; i < w; i++) {
        mag += fabs(h[i]) / (double)w;
        dmax = fmax(dmax, fabs(h[i] - m));
    }
    const double s = sqrt(v + 1e-5), dm = ref_gamma(w - 1 + ((w & (w - 1)) != 0)) * mag;
    const double prop = e && w > 1 ? ref_norm2(e, w) / s : 0; /* P = 0 at w = 1 */
    const double rel = ref_gamma(w + 2) / 2 + (dm + REF_U * dmax) / s + 3 * REF_U; /* s's and the division's */
    for (size_t i = 0; i < w; i++) {
        double d = h[i] - m;
        h[i] = d / s;
        if (e) e[i] = prop + (dm + REF_U * fabs(d)) / s + fabs(h[i]) * rel;
    }
}

/* the norm of h in place; e (or NULL) in place with it */
static void ref_norm(int norm, double *h, size_t w, double *e)
{
    if (norm == SKIT_NORM_LAYER) {
        ref_layer_norm(h, w, e);
    } else if (norm == SKIT_NORM_RMS) {
        double s = 0;
        for (size_t i = 0; i < w; i++) s += h[i] * h[i];
        double r = sqrt(s) / sqrt((double)w) + 1e-8, prop = e ? 2 * ref_norm2(e, w) / r : 0;
        for (size_t i = 0; i < w; i++) {
            h[i] /= r;
            if (e) e[i] = prop + fabs(h[i]) * ref_gamma(w + 5);
        }
    }
}

static void ref_activate(int act, double *h, size_t w, double *e)
{
    const int smooth = act != SKIT_ACTIVATION_RELU;
    for (size_t i = 0; i < w; i++) {
        if (e && smooth) e[i] = 1.13 * e[i] + 16 * REF_U * fabs(h[i]);
        h[i] = ref_act(act, h[i]);
    }
}

/* the activations entering the output layer (feat: w values) when
 * features != NULL, else the outputs y; bound (or NULL): the outputs'
 * error bound e described above */
static void ref_run(const double *p, size_t in, size_t w, size_t hidden, size_t out, int act, int norm,
                    const double *x, double *y, double *features, double *bound)
{
    double h[512], g[512], eh[512], eg[512];
    double *e = bound ? eh : NULL, *ge = bound ? eg : NULL;
    ref_linear(p, in, w, x, h, NULL, e);
    p += w * (in + 1);
    for (size_t l = 0; l <= hidden; l++) {
        size_t o = l == hidden ? out : w;
        ref_norm(norm, h, w, e);
        ref_activate(act, h, w, e);
        if (l == hidden && features) {
            memcpy(features, h, w * sizeof(double));
            return;
        }
        ref_linear(p, w, o, h, g, e, ge);
        p += o * (w + 1);
        memcpy(h, g, o * sizeof(double));
        if (e) memcpy(e, ge, o * sizeof(double));
    }
    memcpy(y, h, out * sizeof(double));
    if (bound) memcpy(bound, e, out * sizeof(double));
}

static void ref_eval(const double *p, size_t in, size_t w, size_t hidden, size_t out, int act,
                     int norm, const double *x, double *y)
{
    ref_run(p, in, w, hidden, out, act, norm, x, y, NULL, NULL);
}

START_TEST(test_init_statistics)
{
    /* PyTorch nn.Linear default: weight and bias ~ U(-1/sqrt(fan_in), +) */
    uint64_t seed = tu_seed();
    size_t in = 3, w = 200, hidden = 2, out = 150;
    skit_mlp *m;
    TU_EXPECT_OK(skit_mlp_create(&m, in, w, hidden, out, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, seed));
    size_t n = skit_mlp_parameter_count(m);
    ck_assert_uint_eq(n, (in + 1) * w + hidden * (w + 1) * w + (w + 1) * out);
    double *p = tu_alloc(n);
    TU_EXPECT_OK(skit_mlp_get_parameters(m, p, n));
    const double *q = p;
    for (size_t l = 0; l < hidden + 2; l++) {
        size_t fi = l == 0 ? in : w, fo = l == hidden + 1 ? out : w;
        double bound = 1 / sqrt((double)fi);
        for (int part = 0; part < 2; part++) {
            size_t cnt = part == 0 ? fo * fi : fo;
            double mean = 0, var = 0, lo = INFINITY, hi = -INFINITY;
            for (size_t i = 0; i < cnt; i++) {
                mean += q[i];
                lo = fmin(lo, q[i]);
                hi = fmax(hi, q[i]);
            }
            mean /= (double)cnt;
            for (size_t i = 0; i < cnt; i++) var += (q[i] - mean) * (q[i] - mean);
            var /= (double)cnt;
            double sd = bound / sqrt(3.0);
            ck_assert_msg(lo >= -bound && hi <= bound, "layer %zu part %d outside +-%g (seed %llu)", l,
                          part, bound, (unsigned long long)seed);
            /* 6 standard errors: a false alarm is ~1e-9 */
            ck_assert_msg(fabs(mean) < 6 * sd / sqrt((double)cnt), "layer %zu mean %g", l, mean);
            /* variance of U^2 is b^4 (1/5 - 1/9) */
            double var_se = bound * bound * sqrt(1.0 / 5 - 1.0 / 9) / sqrt((double)cnt);
            ck_assert_msg(fabs(var - sd * sd) < 6 * var_se + 1e-12, "layer %zu var %g vs %g", l, var,
                          sd * sd);
            if (cnt > 1000) ck_assert(hi - lo > 1.9 * bound); /* the whole interval is used */
            q += cnt;
        }
    }
    /* same seed, same parameters; another seed, different ones */
    skit_mlp *m2;
    double *p2 = tu_alloc(n);
    TU_EXPECT_OK(skit_mlp_create(&m2, in, w, hidden, out, SKIT_ACTIVATION_RELU, SKIT_NORM_RMS, seed));
    TU_EXPECT_OK(skit_mlp_get_parameters(m2, p2, n));
    ck_assert(memcmp(p, p2, n * sizeof(double)) == 0);
    skit_mlp_destroy(m2);
    TU_EXPECT_OK(skit_mlp_create(&m2, in, w, hidden, out, SKIT_ACTIVATION_RELU, SKIT_NORM_RMS, seed + 1));
    TU_EXPECT_OK(skit_mlp_get_parameters(m2, p2, n));
    ck_assert(memcmp(p, p2, n * sizeof(double)) != 0);
    skit_mlp_destroy(m2);
    skit_free(p);
    skit_free(p2);
    skit_mlp_destroy(m);
}
END_TEST

START_TEST(test_parameters_round_trip)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    skit_mlp *m;
    TU_EXPECT_OK(skit_mlp_create(&m, 2, 5, 1, 3, SKIT_ACTIVATION_SILU, SKIT_NORM_LAYER, 1));
    size_t n = skit_mlp_parameter_count(m);
    double *p = tu_random(&rng, n), *q = tu_alloc(n);
    TU_EXPECT_OK(skit_mlp_set_parameters(m, p, n));
    TU_EXPECT_OK(skit_mlp_get_parameters(m, q, n));
    ck_assert(memcmp(p, q, n * sizeof(double)) == 0);
    ck_assert_uint_eq(skit_mlp_in_dim(m), 2);
    ck_assert_uint_eq(skit_mlp_out_dim(m), 3);
    skit_free(p);
    skit_free(q);
    skit_mlp_destroy(m);
}
END_TEST

START_TEST(test_eval_matches_naive_loop)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t counts[] = {1, 2, 7, 255, 1023, 1024, 1025, 2100}; /* across the 1024-input blocks */
    for (int act = 0; act < 3; act++)
        for (int norm = 0; norm < 3; norm++)
            for (size_t in = 1; in <= 2; in++) {
                size_t w = 1 + skit_rng_below(&rng, 40), hidden = skit_rng_below(&rng, 4);
                size_t out = 1 + skit_rng_below(&rng, 9);
                skit_mlp *m;
                TU_EXPECT_OK(skit_mlp_create(&m, in, w, hidden, out, act, norm, seed + (uint64_t)act));
                size_t np = skit_mlp_parameter_count(m);
                double *p = tu_alloc(np);
                TU_EXPECT_OK(skit_mlp_get_parameters(m, p, np));
                double *work = tu_alloc(skit_mlp_workspace_size(m));
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    size_t cnt = counts[c];
                    double *x = tu_random(&rng, cnt * in);
                    for (size_t i = 0; i < cnt * in; i++) x[i] *= 3;
                    double *y = tu_alloc(cnt * out), *r = tu_alloc(cnt * out), *bound = tu_alloc(cnt * out);
                    TU_EXPECT_OK(skit_mlp_eval(m, cnt, x, y, c % 2 ? work : NULL));
                    for (size_t k = 0; k < cnt; k++)
                        ref_run(p, in, w, hidden, out, act, norm, x + k * in, r + k * out, NULL, bound + k * out);
                    /* each output within twice the rounding bound of ref_run (both evaluations
                     * are within it of the exact value); NaN fails */
                    for (size_t i = 0; i < cnt * out; i++) {
                        double e = fabs(y[i] - r[i]);
                        ck_assert_msg(e <= 2 * bound[i], "%s/%s in=%zu w=%zu L=%zu out=%zu count=%zu output %zu: "
                                      "|%.17g - %.17g| = %g > 2 x bound %g (seed %llu)",
                                      act_name[act], norm_name[norm], in, w, hidden, out, cnt, i, y[i], r[i], e,
                                      bound[i], (unsigned long long)seed);
                    }
                    skit_free(x);
                    skit_free(y);
                    skit_free(r);
                    skit_free(bound);
                }
                skit_free(work);
                skit_free(p);
                skit_mlp_destroy(m);
            }
}
END_TEST

/* ---- the features (skit_mlp_features): dense and sweep ---- */

/* Both ways of evaluating the features against the naive loop. The sweep
 * reuses each layer's basis while the ReLU masks below hold, so inputs
 * come in the orders that decide how often it must rebuild: sorted lags
 * (TNO), a frequency grid (FD-TNO), descending, shuffled (a rebuild at
 * nearly every input), constant, and runs of repeats; counts across its
 * 32-input blocks; with and without a per-input scale; outputs poisoned,
 * written with ld > count. */
START_TEST(test_features_match_naive)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t counts[] = {1, 5, 32, 33, 63, 97, 1000};
    static const struct { size_t w, hidden; } nets[] = {{8, 0}, {16, 2}, {20, 3}, {64, 3}, {64, 5}};
    for (int norm = 0; norm < 3; norm++)
        for (size_t t = 0; t < sizeof nets / sizeof nets[0]; t++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int order = 0; order < 6; order++) {
                    const size_t w = nets[t].w, hidden = nets[t].hidden, cnt = counts[c], ld = cnt + 3;
                    skit_mlp *m;
                    TU_EXPECT_OK(skit_mlp_create(&m, 1, w, hidden, 3, SKIT_ACTIVATION_RELU, norm,
                                                 seed + 7 * t + (uint64_t)norm));
                    size_t np = skit_mlp_parameter_count(m);
                    double *p = tu_alloc(np), *x = tu_alloc(cnt), *scale = tu_random(&rng, cnt);
                    TU_EXPECT_OK(skit_mlp_get_parameters(m, p, np));
                    for (size_t k = 0; k < cnt; k++) {
                        double lag = (double)k - (double)(cnt / 2);
                        x[k] = order == 0   ? lag
                             : order == 1 ? M_PI * (double)k / (double)(cnt > 1 ? cnt - 1 : 1)
                             : order == 2 ? 1e4 - 37.5 * (double)k
                             : order == 3 ? 50 * (skit_rng_uniform(&rng) - 0.5)
                             : order == 4 ? 0.25
                                          : (double)(k / 5) * 0.5 - 20;
                    }
                    double *ref = tu_alloc(w * cnt), *f = tu_alloc(w);
                    const double *sc = order % 2 ? scale : NULL;
                    double mx = 1.0;
                    for (size_t k = 0; k < cnt; k++) {
                        ref_run(p, 1, w, hidden, 3, SKIT_ACTIVATION_RELU, norm, x + k, NULL, f, NULL);
                        for (size_t j = 0; j < w; j++) {
                            ref[j * cnt + k] = f[j] * (sc ? sc[k] : 1.0);
                            mx = fmax(mx, fabs(ref[j * cnt + k]));
                        }
                    }
                    double *work = tu_alloc(skit_mlp_features_workspace(m));
                    for (int way = 0; way < 2; way++) {
                        double *out = tu_alloc(w * ld);
                        int st = way ? skit_mlp_features_sweep(m, cnt, x, sc, out, ld, work)
                                     : skit_mlp_features_dense(m, cnt, x, sc, out, ld, work);
                        /* the sweep applies while 4 (hidden + 2) <= w */
                        if (way && 4 * (hidden + 2) > w) {
                            ck_assert_int_eq(st, SKIT_EINVAL);
                            skit_free(out);
                            continue;
                        }
                        TU_EXPECT_OK(st);
                        double err = 0;
                        for (size_t j = 0; j < w; j++)
                            for (size_t k = 0; k < cnt; k++) {
                                double v = out[j * ld + k];
                                err = isfinite(v) ? fmax(err, fabs(v - ref[j * cnt + k])) : INFINITY;
                            }
                        ck_assert_msg(err <= 1e-12 * mx, "%s w=%zu L=%zu count=%zu order %d %s: max error %g "
                                                          "(max |feature| %g, seed %llu)",
                                      norm_name[norm], w, hidden, cnt, order, way ? "sweep" : "dense", err, mx,
                                      (unsigned long long)seed);
                        skit_free(out);
                    }
                    skit_free(work);
                    skit_free(f);
                    skit_free(ref);
                    skit_free(scale);
                    skit_free(x);
                    skit_free(p);
                    skit_mlp_destroy(m);
                }
}
END_TEST

/* The sweeps' inputs: sorted lags, a frequency grid, random (a new mask
 * almost every input), repeated values. */
static double sweep_input(int order, size_t k, size_t cnt, skit_rng *rng)
{
    return order == 0   ? (double)k - (double)(cnt / 2)
         : order == 1 ? M_PI * (double)k / (double)(cnt > 1 ? cnt - 1 : 1)
         : order == 2 ? 50 * (skit_rng_uniform(rng) - 0.5)
                      : (double)(k / 5) * 0.5 - 20;
}

/* The outputs by the sweep (the output layer on the last layer's basis)
 * against the naive loop, the input orders as above, written plainly
 * (split = out) and as FD-TNO does (rows out/2.. into the second part of
 * each row: split = out/2, part = count + 1; odd out makes a third part). */
START_TEST(test_outputs_sweep_match_naive)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t counts[] = {1, 7, 32, 33, 97, 1000};
    static const struct { size_t w, hidden, out; } nets[] = {{8, 0, 2}, {16, 2, 6}, {20, 3, 9}, {64, 3, 40}};
    for (int norm = 0; norm < 3; norm++)
        for (size_t t = 0; t < sizeof nets / sizeof nets[0]; t++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int order = 0; order < 4; order++) {
                    const size_t w = nets[t].w, hidden = nets[t].hidden, out = nets[t].out, cnt = counts[c];
                    const int halves = order % 2;
                    const size_t split = halves ? out / 2 : out, part = halves ? cnt + 1 : 0;
                    const size_t ld = (out + split - 1) / split * (cnt + 1) + 3;
                    skit_mlp *m;
                    TU_EXPECT_OK(skit_mlp_create(&m, 1, w, hidden, out, SKIT_ACTIVATION_RELU, norm,
                                                 seed + 11 * t + (uint64_t)norm));
                    size_t np = skit_mlp_parameter_count(m);
                    double *p = tu_alloc(np), *x = tu_alloc(cnt), *scale = tu_random(&rng, cnt);
                    TU_EXPECT_OK(skit_mlp_get_parameters(m, p, np));
                    for (size_t k = 0; k < cnt; k++) x[k] = sweep_input(order, k, cnt, &rng);
                    const double *sc = order >= 2 ? scale : NULL;
                    double *ref = tu_alloc(out * cnt + out), *y = ref + out * cnt, mx = 1.0;
                    for (size_t k = 0; k < cnt; k++) {
                        ref_eval(p, 1, w, hidden, out, SKIT_ACTIVATION_RELU, norm, x + k, y);
                        for (size_t r = 0; r < out; r++) {
                            ref[r * cnt + k] = y[r] * (sc ? sc[k] : 1.0);
                            mx = fmax(mx, fabs(ref[r * cnt + k]));
                        }
                    }
                    double *work = tu_alloc(skit_mlp_outputs_workspace(m));
                    double *got = tu_alloc(split * ld);
                    double *rmax = tu_alloc(out); /* row sums of squares */
                    for (size_t r = 0; r < out; r++) rmax[r] = 0.0;
                    size_t changes = 0;
                    int st = skit_mlp_outputs_sweep(m, cnt, x, sc, got, ld, split, part, rmax, &changes, work);
                    if (4 * (hidden + 2) > w) {
                        ck_assert_int_eq(st, SKIT_EINVAL);
                    } else {
                        TU_EXPECT_OK(st);
                        double err = 0;
                        for (size_t r = 0; r < out; r++)
                            for (size_t k = 0; k < cnt; k++) {
                                double v = got[(r % split) * ld + (r / split) * part + k];
                                err = isfinite(v) ? fmax(err, fabs(v - ref[r * cnt + k])) : INFINITY;
                            }
                        /* at least the first input; a constant input changes nothing more */
                        ck_assert(changes >= 1 && changes <= cnt);
                        /* row_ss: each row's sum of squares */
                        for (size_t r = 0; r < out; r++) {
                            double want = 0;
                            for (size_t k = 0; k < cnt; k++) want += ref[r * cnt + k] * ref[r * cnt + k];
                            ck_assert_msg(fabs(rmax[r] - want) <= 1e-12 * mx * mx * (double)cnt,
                                          "row_ss[%zu] = %g, want %g", r, rmax[r], want);
                        }
                        ck_assert_msg(err <= 1e-12 * mx, "%s w=%zu L=%zu out=%zu count=%zu order %d: max error "
                                                          "%g (max |output| %g, seed %llu)",
                                      norm_name[norm], w, hidden, out, cnt, order, err, mx,
                                      (unsigned long long)seed);
                    }
                    skit_free(rmax);
                    skit_free(got);
                    skit_free(work);
                    skit_free(ref); /* and y */
                    skit_free(scale);
                    skit_free(x);
                    skit_free(p);
                    skit_mlp_destroy(m);
                }
}
END_TEST

/* The backward's sweep (parameters' gradient and the output dots) against
 * the dense backward on the same inputs: sorted lags (long runs, chunk
 * ends), a frequency grid, shuffled inputs (a run per input) and repeated
 * ones; every run swept (min_run 1) and by the cost model's choice. The
 * dense part is poisoned with NaN where the sweep must not read it. */
static double rel_diff(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return isfinite(num) ? sqrt(num / fmax(den, 1e-300)) : INFINITY;
}

START_TEST(test_backward_sweep_matches_dense)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    static const size_t counts[] = {1, 7, 255, 256, 257, 1031};
    static const struct { size_t w, hidden, out; } nets[] = {{8, 0, 2}, {5, 1, 1}, {16, 2, 6}, {64, 3, 40}};
    static const int norms[] = {SKIT_NORM_NONE, SKIT_NORM_RMS};
    for (size_t ni = 0; ni < 2; ni++)
        for (size_t t = 0; t < sizeof nets / sizeof nets[0]; t++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int order = 0; order < 4; order++)
                    for (size_t min_run = 0; min_run < 2; min_run++) {
                        const size_t w = nets[t].w, out = nets[t].out, cnt = counts[c];
                        skit_mlp *m;
                        TU_EXPECT_OK(skit_mlp_create(&m, 1, w, nets[t].hidden, out, SKIT_ACTIVATION_RELU,
                                                     norms[ni], seed + 7 * t + ni));
                        const size_t np = skit_mlp_parameter_count(m);
                        double *x = tu_alloc(cnt), *dy = tu_random(&rng, cnt * out);
                        for (size_t k = 0; k < cnt; k++) x[k] = sweep_input(order, k, cnt, &rng);
                        double *want = tu_alloc(np + cnt), *got = tu_alloc(np + cnt);
                        double *work = tu_alloc(skit_mlp_backward_workspace_size(m));
                        TU_EXPECT_OK(skit_mlp_backward_dots(m, cnt, x, dy, NULL, NULL, want, want + np, NULL));
                        for (size_t i = 0; i < np; i++) got[i] = 0.0;
                        for (size_t i = np; i < np + cnt; i++) got[i] = NAN;
                        size_t dense = skit_mlp_backward_workspace_size(m) - mlp_backward_sweep_workspace(m);
                        for (size_t i = 0; i < skit_mlp_backward_workspace_size(m); i++) work[i] = NAN;
                        mlp_backward_sweep(m, cnt, x, dy, got, got + np, work + dense, work, min_run);
                        double ep = rel_diff(got, want, np), ed = rel_diff(got + np, want + np, cnt);
                        ck_assert_msg(ep <= 1e-11 && ed <= 1e-11,
                                      "%s w=%zu L=%zu out=%zu count=%zu order %d min_run %zu: relative error "
                                      "%g (parameters), %g (dots), seed %llu",
                                      norm_name[norms[ni]], w, nets[t].hidden, out, cnt, order, min_run, ep, ed,
                                      (unsigned long long)seed);
                        skit_free(work);
                        skit_free(got);
                        skit_free(want);
                        skit_free(dy);
                        skit_free(x);
                        skit_mlp_destroy(m);
                    }
}
END_TEST

/* The sweep refuses what it cannot do, and skit_mlp_features then takes
 * the dense path: other activations, two inputs, no inputs; below 32
 * inputs it is right but not chosen. */
START_TEST(test_features_sweep_refuses)
{
    skit_mlp *m;
    double x[64], out[64 * 16];
    for (size_t k = 0; k < 64; k++) x[k] = (double)k;
    TU_EXPECT_OK(skit_mlp_create(&m, 1, 16, 1, 2, SKIT_ACTIVATION_SILU, SKIT_NORM_RMS, 3));
    double *work = tu_alloc(skit_mlp_features_workspace(m));
    TU_EXPECT_STATUS(skit_mlp_features_sweep(m, 64, x, NULL, out, 64, work), SKIT_EINVAL);
    TU_EXPECT_OK(skit_mlp_features(m, 64, x, NULL, out, 64, work));
    skit_free(work);
    skit_mlp_destroy(m);
    TU_EXPECT_OK(skit_mlp_create(&m, 2, 16, 1, 2, SKIT_ACTIVATION_RELU, SKIT_NORM_RMS, 3));
    work = tu_alloc(skit_mlp_features_workspace(m));
    TU_EXPECT_STATUS(skit_mlp_features_sweep(m, 32, x, NULL, out, 32, work), SKIT_EINVAL);
    skit_free(work);
    skit_mlp_destroy(m);
    TU_EXPECT_OK(skit_mlp_create(&m, 1, 16, 1, 2, SKIT_ACTIVATION_RELU, SKIT_NORM_RMS, 3));
    work = tu_alloc(skit_mlp_outputs_workspace(m));
    /* an infinite scale makes an output of every row NaN/Inf, and row_ss says so */
    double scale[64], rmax[2] = {0, 0};
    for (size_t k = 0; k < 64; k++) scale[k] = k == 40 ? INFINITY : 1.0;
    TU_EXPECT_OK(skit_mlp_outputs_sweep(m, 64, x, scale, out, 64, 2, 0, rmax, NULL, work));
    /* constant inputs: the masks change at the first input only */
    size_t changes = 0;
    double same[64];
    for (size_t k = 0; k < 64; k++) same[k] = 3.5;
    TU_EXPECT_OK(skit_mlp_outputs_sweep(m, 64, same, NULL, out, 64, 2, 0, NULL, &changes, work));
    ck_assert_uint_eq(changes, 1);
    ck_assert(!isfinite(rmax[0]) && !isfinite(rmax[1]));
    TU_EXPECT_STATUS(skit_mlp_features_sweep(m, 0, x, NULL, out, 1, work), SKIT_EINVAL);
    TU_EXPECT_OK(skit_mlp_features_sweep(m, 1, x, NULL, out, 1, work));
    ck_assert(!skit_mlp_outputs_sweep_able(m, 31));
    ck_assert(skit_mlp_outputs_sweep_able(m, 32));
    skit_free(work);
    skit_mlp_destroy(m);
}
END_TEST

/* ---- series primitives against known expansions at 0 ---- */
START_TEST(test_series_known_expansions)
{
    size_t m = SKIT_SERIES_MAX;
    double x[SKIT_SERIES_MAX] = {0, 1}, c[SKIT_SERIES_MAX], e[SKIT_SERIES_MAX];
    /* exp(x) */
    skit_series_exp(x, c, m);
    double f = 1;
    for (size_t k = 0; k < m; k++) {
        if (k) f *= (double)k;
        ck_assert_msg(fabs(c[k] - 1 / f) <= 1e-15 / f, "exp coefficient %zu", k);
    }
    /* 1/(1 - x) and (1 + x)^(-1/2), sqrt(1 + x) by the binomial series */
    double one_minus[SKIT_SERIES_MAX] = {1, -1}, one[SKIT_SERIES_MAX] = {1}, onep[SKIT_SERIES_MAX] = {1, 1};
    skit_series_div(one, one_minus, c, m);
    for (size_t k = 0; k < m; k++) ck_assert(fabs(c[k] - 1) < 1e-15);
    skit_series_pow(onep, -0.5, c, m);
    skit_series_sqrt(onep, e, m);
    double bin = 1, bs = 1;
    for (size_t k = 0; k < m; k++) {
        ck_assert_msg(fabs(c[k] - bin) < 1e-14, "rsqrt %zu: %g vs %g", k, c[k], bin);
        ck_assert_msg(fabs(e[k] - bs) < 1e-14, "sqrt %zu: %g vs %g", k, e[k], bs);
        bin *= (-0.5 - (double)k) / (double)(k + 1);
        bs *= (0.5 - (double)k) / (double)(k + 1);
    }
    /* erf(x) = 2/sqrt(pi) sum (-1)^j x^(2j+1) / (j! (2j+1)) */
    skit_series_erf(x, c, m);
    double jf = 1;
    for (size_t k = 0; k < m; k++) {
        double want = 0;
        if (k % 2) {
            size_t j = k / 2;
            if (j) jf *= (double)j;
            want = (j % 2 ? -1 : 1) * 2 / sqrt(M_PI) / (jf * (double)k);
        }
        ck_assert_msg(fabs(c[k] - want) < 1e-15, "erf %zu: %g vs %g", k, c[k], want);
    }
    /* sigmoid(x) = 1/2 + x/4 - x^3/48 + x^5/480 - 17 x^7/80640 + ... */
    skit_series_sigmoid(x, c, m);
    static const double sig[] = {0.5, 0.25, 0, -1.0 / 48, 0, 1.0 / 480, 0, -17.0 / 80640};
    for (size_t k = 0; k < 8; k++) ck_assert_msg(fabs(c[k] - sig[k]) < 1e-16, "sigmoid %zu", k);
    /* sigmoid far in the tails stays finite */
    double far[SKIT_SERIES_MAX] = {-800, 1};
    skit_series_sigmoid(far, c, m);
    for (size_t k = 0; k < m; k++) ck_assert(isfinite(c[k]));
    far[0] = 800;
    skit_series_gelu(far, c, m);
    ck_assert(fabs(c[0] - 800) < 1e-12 && fabs(c[1] - 1) < 1e-12 && fabs(c[2]) < 1e-12);
    /* relu: branch right of the point */
    double kink[SKIT_SERIES_MAX] = {0, -2, 5};
    ck_assert_int_eq(skit_series_relu(kink, c, 3), 1);
    ck_assert(c[0] == 0 && c[1] == 0 && c[2] == 0);
    kink[1] = 2;
    ck_assert_int_eq(skit_series_relu(kink, c, 3), 1);
    ck_assert(c[1] == 2 && c[2] == 5);
}
END_TEST

/* GeLU and SiLU derivatives in closed form, k = 0..4 (GeLU) and 0..3 (SiLU) */
static void gelu_closed(double u, double *d)
{
    double phi = exp(-u * u / 2) / sqrt(2 * M_PI), Phi = 0.5 * erfc(-u / sqrt(2.0));
    d[0] = u * Phi;
    d[1] = Phi + u * phi;
    d[2] = phi * (2 - u * u);
    d[3] = phi * (u * u * u - 4 * u);
    d[4] = phi * (-u * u * u * u + 7 * u * u - 4);
}

static void silu_closed(double u, double *d)
{
    double s = 1 / (1 + exp(-u)), s1 = s * (1 - s);
    d[0] = u * s;
    d[1] = s + u * s1;
    d[2] = 2 * s1 + u * s1 * (1 - 2 * s);
    d[3] = 3 * s1 * (1 - 2 * s) + u * s1 * (1 - 6 * s + 6 * s * s);
    d[4] = NAN;
}

START_TEST(test_taylor_width_one_closed_forms)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int act = 1; act < 3; act++) {
        skit_mlp *m;
        TU_EXPECT_OK(skit_mlp_create(&m, 1, 1, 0, 1, act, SKIT_NORM_NONE, 0));
        for (int trial = 0; trial < 20; trial++) {
            double p[4]; /* w1 b1 w2 b2: y = w2 act(w1 x + b1) + b2 */
            for (int i = 0; i < 4; i++) p[i] = skit_rng_uniform_range(&rng, -2, 2);
            TU_EXPECT_OK(skit_mlp_set_parameters(m, p, 4));
            double x = skit_rng_uniform_range(&rng, -3, 3), u = p[0] * x + p[1];
            double d[5], got[5];
            (act == SKIT_ACTIVATION_GELU ? gelu_closed : silu_closed)(u, d);
            size_t order = act == SKIT_ACTIVATION_GELU ? 4 : 3;
            TU_EXPECT_OK(skit_mlp_taylor(m, x, order, got, NULL));
            for (size_t k = 0; k <= order; k++) {
                double want = p[2] * pow(p[0], (double)k) * d[k] + (k == 0 ? p[3] : 0);
                ck_assert_msg(fabs(got[k] - want) <= 1e-13 * (1 + fabs(want)),
                              "%s order %zu at u=%g: %.17g vs %.17g (seed %llu)", act_name[act], k, u,
                              got[k], want, (unsigned long long)seed);
            }
        }
        skit_mlp_destroy(m);
    }
    /* ReLU width 1: slope w2 w1 on the positive side, 0 on the other, kink flagged */
    skit_mlp *m;
    TU_EXPECT_OK(skit_mlp_create(&m, 1, 1, 0, 1, SKIT_ACTIVATION_RELU, SKIT_NORM_NONE, 0));
    double p[4] = {2, -1, 3, 0.5}, d[3];
    int kink = -1;
    TU_EXPECT_OK(skit_mlp_set_parameters(m, p, 4));
    TU_EXPECT_OK(skit_mlp_taylor(m, 1.0, 2, d, &kink));
    ck_assert(kink == 0 && d[0] == 3.5 && d[1] == 6 && d[2] == 0);
    TU_EXPECT_OK(skit_mlp_taylor(m, 0.5, 2, d, &kink)); /* pre-activation exactly 0 */
    ck_assert_msg(kink == 1 && d[0] == 0.5 && d[1] == 6 && d[2] == 0, "right derivative %g", d[1]);
    TU_EXPECT_OK(skit_mlp_taylor(m, 0.0, 2, d, &kink));
    ck_assert(kink == 0 && d[0] == 0.5 && d[1] == 0);
    skit_mlp_destroy(m);
}
END_TEST

/* Order k+1 from Taylor mode against the central difference of order k from
 * Taylor mode, for k = 0..5, random MLPs of each activation and norm. */
START_TEST(test_taylor_vs_finite_differences)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int act = 0; act < 3; act++)
        for (int norm = 0; norm < 3; norm++) {
            size_t out = 3;
            skit_mlp *m;
            TU_EXPECT_OK(skit_mlp_create(&m, 1, 16, 2, out, act, norm, skit_rng_u64(&rng)));
            double val[3];
            for (int trial = 0; trial < 8; trial++) {
                double x = skit_rng_uniform_range(&rng, -M_PI, M_PI), h = 1e-4;
                size_t order = 9, checked = 6;
                double d[10 * 3], dp[10 * 3], dm[10 * 3];
                TU_EXPECT_OK(skit_mlp_taylor(m, x, order, d, NULL));
                TU_EXPECT_OK(skit_mlp_taylor(m, x + h, order, dp, NULL));
                TU_EXPECT_OK(skit_mlp_taylor(m, x - h, order, dm, NULL));
                TU_EXPECT_OK(skit_mlp_eval(m, 1, &x, val, NULL));
                for (size_t j = 0; j < out; j++) ck_assert(fabs(val[j] - d[j]) <= 1e-13 * (1 + fabs(val[j])));
                if (act == SKIT_ACTIVATION_RELU) {
                    /* skip points with a kink inside [x - h, x + h]: there the
                     * derivative jumps and no difference quotient applies */
                    int jump = 0;
                    for (size_t j = 0; j < out; j++)
                        if (fabs(dp[out + j] - dm[out + j] - 2 * h * d[2 * out + j]) >
                            1e-6 * (1 + fabs(d[out + j])))
                            jump = 1;
                    if (jump) continue;
                }
                for (size_t k = 0; k + 1 <= checked; k++)
                    for (size_t j = 0; j < out; j++) {
                        double fd = (dp[k * out + j] - dm[k * out + j]) / (2 * h);
                        double ex = d[(k + 1) * out + j];
                        /* error O(h^2 f^(k+3)) plus rounding */
                        double scale = 1 + fabs(ex) + fabs(d[(k + 3) * out + j]);
                        ck_assert_msg(fabs(fd - ex) <= 1e-5 * scale,
                                      "%s/%s order %zu output %zu x=%g: taylor %.12g fd %.12g (seed %llu)",
                                      act_name[act], norm_name[norm], k + 1, j, x, ex, fd,
                                      (unsigned long long)seed);
                    }
            }
            skit_mlp_destroy(m);
        }
}
END_TEST

START_TEST(test_config_errors)
{
    skit_mlp *m = (skit_mlp *)1;
    TU_EXPECT_STATUS(skit_mlp_create(NULL, 1, 4, 1, 1, 0, 0, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 0, 4, 1, 1, 0, 0, 0), SKIT_EDOM);
    ck_assert_ptr_null(m);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, 0, 1, 1, 0, 0, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, 4, 1, 0, 0, 0, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, 4, 65, 1, 0, 0, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, 4, 1, 1, (skit_activation)3, 0, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, 4, 1, 1, (skit_activation)-1, 0, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, 4, 1, 1, 0, (skit_norm)3, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, (size_t)1 << 20, 1, 1, 0, 0, 0), SKIT_ETOOBIG);
    TU_EXPECT_STATUS(skit_mlp_create(&m, 1, SIZE_MAX / 2, 1, 1, 0, 0, 0), SKIT_EOVERFLOW);

    TU_EXPECT_OK(skit_mlp_create(&m, 1, 4, 1, 2, SKIT_ACTIVATION_GELU, SKIT_NORM_RMS, 0));
    size_t n = skit_mlp_parameter_count(m);
    double p[64], d[34], x = 0.3, y[2];
    TU_EXPECT_STATUS(skit_mlp_get_parameters(m, p, n - 1), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mlp_get_parameters(m, NULL, n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_get_parameters(NULL, p, n), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_set_parameters(m, p, n + 1), SKIT_ESHAPE);
    TU_EXPECT_OK(skit_mlp_get_parameters(m, p, n));
    p[3] = NAN;
    TU_EXPECT_STATUS(skit_mlp_set_parameters(m, p, n), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_mlp_taylor(m, 0.1, 17, d, NULL), SKIT_EDOM);
    TU_EXPECT_OK(skit_mlp_taylor(m, 0.1, 16, d, NULL));
    TU_EXPECT_STATUS(skit_mlp_taylor(m, NAN, 2, d, NULL), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_mlp_taylor(m, 0.1, 2, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_taylor(NULL, 0.1, 2, d, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_eval(m, 1, NULL, y, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_eval(m, 1, &x, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_mlp_eval(NULL, 1, &x, y, NULL), SKIT_EINVAL);
    x = INFINITY;
    TU_EXPECT_STATUS(skit_mlp_eval(m, 1, &x, y, NULL), SKIT_ENONFINITE);
    TU_EXPECT_OK(skit_mlp_eval(m, 0, NULL, NULL, NULL));
    /* RMS norm of an all-zero layer has no derivative */
    for (size_t i = 0; i < n; i++) p[i] = 0;
    TU_EXPECT_OK(skit_mlp_set_parameters(m, p, n));
    TU_EXPECT_STATUS(skit_mlp_taylor(m, 0.1, 1, d, NULL), SKIT_EDOM);
    TU_EXPECT_OK(skit_mlp_taylor(m, 0.1, 0, d, NULL));
    skit_mlp_destroy(m);
    m = NULL;
    TU_EXPECT_OK(skit_mlp_create(&m, 2, 4, 1, 1, 0, 0, 0));
    TU_EXPECT_STATUS(skit_mlp_taylor(m, 0.1, 2, d, NULL), SKIT_ESHAPE);
    skit_mlp_destroy(m);
    skit_mlp_destroy(NULL);
    ck_assert_uint_eq(skit_mlp_parameter_count(NULL), 0);
}
END_TEST

/* ---- complex inputs (skit_mlp_eval_complex, skit_mlp_contour) ---- */

/* erf at complex arguments: the real axis against libm, a tabulated value,
 * its symmetries, and its derivative 2/sqrt(pi) e^(-z^2) by central
 * differences at points on both sides of the series / fraction switch
 * (|Re z| = 2.5), so a mismatch between the two methods shows. */
START_TEST(test_erf_complex)
{
    double re, im;
    for (double x = -6; x <= 6; x += 0.37) {
        skit_erf_complex(x, 0, &re, &im);
        ck_assert_msg(fabs(re - erf(x)) <= 2e-15 && im == 0, "erf(%g) = %.17g%+gi, libm %.17g", x, re, im, erf(x));
    }
    skit_erf_complex(1, 1, &re, &im); /* A&S 7.1; mpmath erf(1+1j) */
    ck_assert_msg(fabs(re - 1.3161512816979476) < 1e-14 && fabs(im - 0.19045346923783471) < 1e-14,
                  "erf(1+i) = %.17g%+.17gi", re, im);
    static const double pts[][2] = {{0.3, 2.1}, {2.49, 0.7}, {2.51, 0.7}, {-2.5, -1.2}, {3.2, 2.2},
                                    {-4, 1}, {0.1, -3}, {2.5, 2.4}};
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        double x = pts[k][0], y = pts[k][1], h = 1e-5, ar, ai, br, bi, cr, ci;
        skit_erf_complex(x + h, y, &ar, &ai);
        skit_erf_complex(x - h, y, &br, &bi);
        double complex z = x + y * I, d = 2 / sqrt(M_PI) * cexp(-z * z);
        double complex fd = ((ar - br) + (ai - bi) * I) / (2 * h);
        ck_assert_msg(cabs(fd - d) <= 1e-8 * (1 + cabs(d)), "erf' at %g%+gi: %g%+gi vs %g%+gi", x, y, creal(fd),
                      cimag(fd), creal(d), cimag(d));
        skit_erf_complex(x, -y, &ar, &ai); /* erf(conj z) = conj erf(z) */
        skit_erf_complex(-x, y, &br, &bi); /* erf(-z) = -erf(z) */
        skit_erf_complex(x, y, &cr, &ci);
        ck_assert(fabs(ar - cr) <= 1e-15 * fabs(cr) + 1e-300 && fabs(ai + ci) <= 1e-15 * fabs(ci) + 1e-300);
        ck_assert(fabs(br + cr) <= 1e-13 * cabs(cr + ci * I) && fabs(bi - ci) <= 1e-13 * cabs(cr + ci * I));
    }
}
END_TEST

/* On the real axis the complex evaluation is skit_mlp_eval; a step i h off
 * it gives the derivative of an analytic continuation (Im f(x + ih) / h =
 * f'(x) + O(h^2)), checked against Taylor mode for SiLU and GeLU. */
START_TEST(test_eval_complex_real_axis_and_derivative)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (int act = 0; act < 3; act++)
        for (int norm = 0; norm < 3; norm++) {
            size_t w = 1 + skit_rng_below(&rng, 33), hidden = skit_rng_below(&rng, 4), out = 1 + skit_rng_below(&rng, 5);
            size_t cnt = 37;
            skit_mlp *m;
            TU_EXPECT_OK(skit_mlp_create(&m, 1, w, hidden, out, act, norm, seed + 7 * (uint64_t)act + (uint64_t)norm));
            double *x = tu_random(&rng, cnt), *z = tu_alloc(2 * cnt), *y = tu_alloc(cnt * out);
            double *yc = tu_alloc(2 * cnt * out), *yr = tu_alloc(cnt * out), *yi = tu_alloc(cnt * out);
            for (size_t k = 0; k < cnt; k++) {
                x[k] *= 3;
                z[2 * k] = x[k];
                z[2 * k + 1] = 0;
            }
            TU_EXPECT_OK(skit_mlp_eval(m, cnt, x, y, NULL));
            for (size_t i = 0; i < 2 * cnt * out; i++) yc[i] = NAN;
            TU_EXPECT_OK(skit_mlp_eval_complex(m, cnt, z, yc));
            for (size_t i = 0; i < cnt * out; i++) {
                yr[i] = yc[2 * i];
                yi[i] = yc[2 * i + 1];
            }
            double e = tu_rel_error(yr, y, cnt * out), imax = 0;
            for (size_t i = 0; i < cnt * out; i++) imax = fmax(imax, fabs(yi[i]));
            ck_assert_msg(e < 1e-12 && imax == 0, "%s/%s: real-axis error %g, max |Im| %g (seed %llu)", act_name[act],
                          norm_name[norm], e, imax, (unsigned long long)seed);
            if (act != SKIT_ACTIVATION_RELU) {
                double h = 1e-20, d[2 * 8], worst = 0, scale = 0;
                for (size_t k = 0; k < 5; k++) {
                    double zz[2] = {x[k], h}, f[2 * 8];
                    TU_EXPECT_OK(skit_mlp_eval_complex(m, 1, zz, f));
                    TU_EXPECT_OK(skit_mlp_taylor(m, x[k], 1, d, NULL));
                    for (size_t j = 0; j < out; j++) {
                        worst = fmax(worst, fabs(f[2 * j + 1] / h - d[out + j]));
                        scale = fmax(scale, fabs(d[out + j]));
                    }
                }
                ck_assert_msg(worst <= 1e-10 * (1 + scale), "%s/%s: Im f(x+ih)/h vs f'(x): %g (scale %g, seed %llu)",
                              act_name[act], norm_name[norm], worst, scale, (unsigned long long)seed);
            }
            skit_free(x);
            skit_free(z);
            skit_free(y);
            skit_free(yc);
            skit_free(yr);
            skit_free(yi);
            skit_mlp_destroy(m);
        }
}
END_TEST

/* The contour test separates analytic from non-analytic: a GeLU MLP
 * without norm integrates to rounding on every circle; a ReLU MLP does not
 * on circles crossing its kinks; a LayerNorm GeLU MLP does not around the
 * branch point skit_mlp_norm_branch_point names, and does on a small
 * circle beside it. */
START_TEST(test_contour_separates)
{
    skit_mlp *g, *r, *ln;
    skit_contour_result c;
    TU_EXPECT_OK(skit_mlp_create(&g, 1, 16, 2, 3, SKIT_ACTIVATION_GELU, SKIT_NORM_NONE, 5));
    TU_EXPECT_OK(skit_mlp_create(&r, 1, 16, 2, 3, SKIT_ACTIVATION_RELU, SKIT_NORM_NONE, 5));
    TU_EXPECT_OK(skit_mlp_create(&ln, 1, 16, 2, 3, SKIT_ACTIVATION_GELU, SKIT_NORM_LAYER, 5));
    static const double circles[][3] = {{0, 0, 1}, {1.5, 0.3, 0.5}, {-2, 0, 1}, {0, 0, 1.5}};
    double worst_relu = 0;
    for (size_t k = 0; k < 4; k++) {
        TU_EXPECT_OK(skit_mlp_contour(g, circles[k][0], circles[k][1], circles[k][2], 512, &c));
        ck_assert_msg(c.integral < 1e-12 && c.cauchy < 1e-12, "gelu circle %zu: %g %g", k, c.integral, c.cauchy);
        TU_EXPECT_OK(skit_mlp_contour(r, circles[k][0], circles[k][1], circles[k][2], 512, &c));
        worst_relu = fmax(worst_relu, c.integral);
    }
    ck_assert_msg(worst_relu > 1e-3, "relu: every circle integrates to %g", worst_relu);
    double br, bi;
    TU_EXPECT_OK(skit_mlp_norm_branch_point(ln, &br, &bi));
    ck_assert(bi > 0);
    TU_EXPECT_OK(skit_mlp_contour(ln, br, bi, 0.5 * bi, 4096, &c));
    ck_assert_msg(c.integral > 1e-3, "layer norm around its branch point %g%+gi: %g", br, bi, c.integral);
    TU_EXPECT_OK(skit_mlp_contour(ln, br, 0, 0.3 * bi, 512, &c));
    ck_assert_msg(c.integral < 1e-12, "layer norm away from the branch point: %g", c.integral);
    /* errors */
    TU_EXPECT_STATUS(skit_mlp_contour(g, 0, 0, 0, 512, &c), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mlp_contour(g, 0, 0, 1, 4, &c), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mlp_contour(g, NAN, 0, 1, 64, &c), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_mlp_norm_branch_point(g, &br, &bi), SKIT_EDOM);
    skit_mlp_destroy(g);
    skit_mlp_destroy(r);
    skit_mlp_destroy(ln);
    TU_EXPECT_OK(skit_mlp_create(&g, 2, 4, 1, 1, SKIT_ACTIVATION_GELU, SKIT_NORM_RMS, 1));
    TU_EXPECT_STATUS(skit_mlp_contour(g, 0, 0, 1, 64, &c), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_mlp_norm_branch_point(g, &br, &bi), SKIT_ESHAPE);
    double z[2] = {NAN, 0}, y[2];
    TU_EXPECT_STATUS(skit_mlp_eval_complex(g, 1, z, y), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_mlp_eval_complex(NULL, 1, z, y), SKIT_EINVAL);
    skit_mlp_destroy(g);
}
END_TEST

static Suite *suite_mlp(void)
{
    Suite *s = suite_create("mlp");
    TCase *tc = tcase_create("mlp");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_init_statistics);
    tcase_add_test(tc, test_parameters_round_trip);
    tcase_add_test(tc, test_eval_matches_naive_loop);
    tcase_add_test(tc, test_features_match_naive);
    tcase_add_test(tc, test_outputs_sweep_match_naive);
    tcase_add_test(tc, test_features_sweep_refuses);
    tcase_add_test(tc, test_backward_sweep_matches_dense);
    tcase_add_test(tc, test_series_known_expansions);
    tcase_add_test(tc, test_taylor_width_one_closed_forms);
    tcase_add_test(tc, test_taylor_vs_finite_differences);
    tcase_add_test(tc, test_config_errors);
    tcase_add_test(tc, test_erf_complex);
    tcase_add_test(tc, test_eval_complex_real_axis_and_derivative);
    tcase_add_test(tc, test_contour_separates);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_mlp()); }
