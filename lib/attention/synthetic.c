/* synthetic.c — structured, seeded Q, K, V with controllable locality and
 * softmax temperature (i.i.d. Gaussian inputs make every approximation look
 * poor; real attention is local and smooth along the sequence), and loading
 * user Q, K, V from .npy files. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

/* Random streams, so that e.g. changing dv leaves Q and K unchanged. */
enum { STREAM_LATENT = 11, STREAM_QNOISE, STREAM_KNOISE, STREAM_SINKS, STREAM_VLATENT,
       STREAM_VNOISE };

void skit_attention_synthetic_init(skit_attention_synthetic *spec)
{
    if (!spec) return;
    memset(spec, 0, sizeof *spec);
    spec->correlation_length = 16.0;
    spec->noise = 0.3;
    spec->inverse_temperature = 4.0;
    spec->sinks = 0;
    spec->sink_strength = 1.0;
    spec->value_correlation_length = 16.0;
    spec->value_mean = 0.5;
    spec->seed = 1;
}

/* Column c of an n x cols AR(1) process with unit variance into x (ld). */
static void ar1(skit_rng *rng, size_t n, size_t cols, double length, double *x, size_t ld)
{
    double rho = length > 0 ? exp(-1.0 / length) : 0.0;
    double innov = sqrt(1.0 - rho * rho);
    for (size_t c = 0; c < cols; c++) {
        double *col = x + c * ld;
        double z = skit_rng_normal(rng);
        col[0] = z;
        for (size_t i = 1; i < n; i++) {
            z = rho * z + innov * skit_rng_normal(rng);
            col[i] = z;
        }
    }
}

static int check_param(double v, const char *name)
{
    if (!isfinite(v) || v < 0)
        return SKIT_ERROR(SKIT_EDOM, "%s = %g out of range: need a finite value >= 0", name, v);
    return SKIT_OK;
}

static int check_spec(const skit_attention_synthetic *spec)
{
    SKIT_REQUIRE_PTR(spec);
    SKIT_TRY(check_param(spec->correlation_length, "correlation_length"));
    SKIT_TRY(check_param(spec->noise, "noise"));
    SKIT_TRY(check_param(spec->sink_strength, "sink_strength"));
    SKIT_TRY(check_param(spec->value_correlation_length, "value_correlation_length"));
    if (!isfinite(spec->value_mean))
        return SKIT_ERROR(SKIT_EDOM, "value_mean = %g out of range: need a finite value",
                          spec->value_mean);
    if (!isfinite(spec->inverse_temperature) || spec->inverse_temperature <= 0)
        return SKIT_ERROR(SKIT_EDOM,
                          "inverse_temperature = %g out of range: need a finite value > 0",
                          spec->inverse_temperature);
    return SKIT_OK;
}

int skit_attention_synthetic_generate(const skit_attention_synthetic *spec, size_t n, size_t d,
                                      size_t dv, double *q, size_t ldq, double *k, size_t ldk,
                                      double *v, size_t ldv)
{
    SKIT_TRY(check_spec(spec));
    if (n == 0 || d == 0 || dv == 0)
        return SKIT_ERROR(SKIT_EDOM, "n, d, dv = %zu, %zu, %zu out of range: need all >= 1", n, d,
                          dv);
    if (spec->sinks > n)
        return SKIT_ERROR(SKIT_EDOM, "sinks = %zu out of range: need sinks <= n (= %zu)",
                          spec->sinks, n);
    if ((q && ldq < n) || (k && ldk < n) || (v && ldv < n))
        return SKIT_ERROR(SKIT_ESHAPE, "leading dimensions (%zu, %zu, %zu) too small: need >= n (= %zu)",
                          ldq, ldk, ldv, n);
    skit_rng rng;
    /* With scale 1/sqrt(d): q_i . k_j / sqrt(d) = beta/d * (z_i + .)(z_j + .),
     * about beta for i = j (z has d unit-variance coordinates). */
    double beta = spec->inverse_temperature, a = pow((double)d, -0.25);
    if (q || k) {
        size_t count = n * d;
        double *z = skit_malloc(count + d, sizeof(double));
        if (!z) return SKIT_ENOMEM;
        double *g = z + count;
        skit_rng_seed_stream(&rng, spec->seed, STREAM_LATENT);
        ar1(&rng, n, d, spec->correlation_length, z, n);
        /* sinks: a common unit direction g in every query and in the sink keys */
        skit_rng_seed_stream(&rng, spec->seed, STREAM_SINKS);
        double gn = 0;
        for (size_t c = 0; c < d; c++) {
            g[c] = skit_rng_normal(&rng);
            gn += g[c] * g[c];
        }
        gn = sqrt(gn);
        for (size_t c = 0; c < d; c++) g[c] /= gn > 0 ? gn : 1.0;
        if (q) {
            skit_rng_seed_stream(&rng, spec->seed, STREAM_QNOISE);
            double qs = spec->sinks ? beta * spec->sink_strength * pow((double)d, 0.25) : 0.0;
            for (size_t c = 0; c < d; c++)
                for (size_t i = 0; i < n; i++)
                    q[i + c * ldq] = beta * a * (z[i + c * n] + spec->noise * skit_rng_normal(&rng)) +
                                     qs * g[c];
        }
        if (k) {
            skit_rng_seed_stream(&rng, spec->seed, STREAM_KNOISE);
            for (size_t c = 0; c < d; c++)
                for (size_t i = 0; i < n; i++)
                    k[i + c * ldk] = a * (z[i + c * n] + spec->noise * skit_rng_normal(&rng));
            /* sink positions: distinct, drawn without replacement */
            skit_rng_seed_stream(&rng, spec->seed, STREAM_SINKS + 100);
            double ks = pow((double)d, 0.25);
            size_t placed = 0;
            unsigned char *used = spec->sinks ? skit_calloc(n, 1) : NULL;
            if (spec->sinks && !used) {
                skit_free(z);
                return SKIT_ENOMEM;
            }
            while (placed < spec->sinks) {
                size_t j = (size_t)skit_rng_below(&rng, n);
                if (used[j]) continue;
                used[j] = 1;
                placed++;
                for (size_t c = 0; c < d; c++) k[j + c * ldk] += ks * g[c];
            }
            skit_free(used);
        }
        skit_free(z);
    }
    if (v) {
        skit_rng_seed_stream(&rng, spec->seed, STREAM_VLATENT);
        ar1(&rng, n, dv, spec->value_correlation_length, v, ldv);
        skit_rng_seed_stream(&rng, spec->seed, STREAM_VNOISE);
        for (size_t c = 0; c < dv; c++)
            for (size_t i = 0; i < n; i++)
                v[i + c * ldv] = (v[i + c * ldv] + skit_rng_normal(&rng)) / sqrt(2.0) + spec->value_mean;
    }
    return SKIT_OK;
}

int skit_attention_synthetic_for_entropy(skit_attention_synthetic *spec, size_t n, size_t d,
                                         double target, double *entropy)
{
    SKIT_TRY(check_spec(spec));
    if (n < 2 || d == 0)
        return SKIT_ERROR(SKIT_EDOM, "n = %zu, d = %zu out of range: need n >= 2, d >= 1", n, d);
    double hmax = log((double)n);
    if (!isfinite(target) || target <= 0 || target >= hmax)
        return SKIT_ERROR(SKIT_EDOM, "target entropy = %g out of range: need 0 < target < log n (= %g)",
                          target, hmax);
    size_t count;
    if (skit_size_mul(n, 2 * d, &count)) return SKIT_ERROR(SKIT_EOVERFLOW, "n x d overflows");
    SKIT_TRY(skit_memory_check(count * sizeof(double), "synthetic Q, K"));
    double *q = skit_malloc(count, sizeof(double));
    if (!q) return SKIT_ENOMEM;
    double *k = q + n * d, scale = 1.0 / sqrt((double)d);
    skit_attention_synthetic trial = *spec;
    /* Q is proportional to beta and K does not depend on it, so the logits
     * are beta times a fixed matrix: generate once at beta = 1, then scale. */
    trial.inverse_temperature = 1.0;
    int status = skit_attention_synthetic_generate(&trial, n, d, 1, q, n, k, n, NULL, n);
    double lo = log(1e-3), hi = log(1e4), h = 0, best = 0;
    double h_lo = 0, h_hi = 0;
    if (status == SKIT_OK) status = skit_attention_entropy(n, d, q, n, k, n, scale * exp(lo), NULL, NULL, &h_lo);
    if (status == SKIT_OK) status = skit_attention_entropy(n, d, q, n, k, n, scale * exp(hi), NULL, NULL, &h_hi);
    if (status == SKIT_OK && !(h_lo >= target && h_hi <= target))
        status = SKIT_ERROR(SKIT_ENOCONV,
                            "target entropy = %g not reached: inverse temperatures 1e-3..1e4 give "
                            "%g..%g",
                            target, h_hi, h_lo);
    for (int it = 0; status == SKIT_OK && it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        status = skit_attention_entropy(n, d, q, n, k, n, scale * exp(mid), NULL, NULL, &h);
        if (status != SKIT_OK) break;
        best = mid;
        if (fabs(h - target) <= 1e-6 * target) break;
        if (h > target)
            lo = mid;
        else
            hi = mid;
    }
    skit_free(q);
    if (status != SKIT_OK) return status;
    spec->inverse_temperature = exp(best);
    if (entropy) *entropy = h;
    return SKIT_OK;
}

int skit_attention_read_npy(const char *q_path, const char *k_path, const char *v_path,
                            skit_matrix *q, skit_matrix *k, skit_matrix *v)
{
    SKIT_REQUIRE_PTR(q_path);
    SKIT_REQUIRE_PTR(k_path);
    SKIT_REQUIRE_PTR(v_path);
    SKIT_REQUIRE_PTR(q);
    SKIT_REQUIRE_PTR(k);
    SKIT_REQUIRE_PTR(v);
    memset(q, 0, sizeof *q);
    memset(k, 0, sizeof *k);
    memset(v, 0, sizeof *v);
    int status = skit_npy_read(q_path, q);
    if (status == SKIT_OK) status = skit_npy_read(k_path, k);
    if (status == SKIT_OK) status = skit_npy_read(v_path, v);
    if (status == SKIT_OK) {
        if (q->ndim != 2 || k->ndim != 2 || v->ndim != 2)
            status = SKIT_ERROR(SKIT_ESHAPE,
                                "Q, K, V must be 2-D arrays (tokens x features): got %d-D, %d-D, %d-D",
                                q->ndim, k->ndim, v->ndim);
        else if (q->rows == 0 || q->cols == 0 || v->cols == 0)
            status = SKIT_ERROR(SKIT_ESHAPE, "Q (%zu x %zu) and V (%zu x %zu) must not be empty",
                                q->rows, q->cols, v->rows, v->cols);
        else if (k->rows != q->rows || v->rows != q->rows)
            status = SKIT_ERROR(SKIT_ESHAPE,
                                "row counts differ: Q has %zu, K %zu, V %zu tokens (need equal)",
                                q->rows, k->rows, v->rows);
        else if (k->cols != q->cols)
            status = SKIT_ERROR(SKIT_ESHAPE, "Q has %zu columns but K has %zu (need equal head dimension)",
                                q->cols, k->cols);
    }
    if (status != SKIT_OK) {
        skit_matrix_free(q);
        skit_matrix_free(k);
        skit_matrix_free(v);
    }
    return status;
}
