/* budget.c — what a budget or an entropy target asks of a method: the size
 * parameters with which each approximation spends a fraction of the n^2
 * attention entries, and the softmax temperature that gives the attention
 * rows a target entropy (see skit/attention.h). */
#include "config.h"

#include <math.h>
#include <stddef.h>

#include "core/internal.h"
#include "skit/attention.h"

/* round(v) clamped to [lo, hi] (NaN gives lo). */
static size_t clamp_round(double v, size_t lo, size_t hi)
{
    if (!(v >= (double)lo)) return lo;
    if (v >= (double)hi) return hi;
    return (size_t)llround(v);
}

/* The narrowest band |i - j| <= w whose n (2w + 1) - w (w + 1) entries
 * reach `entries` (bisection on w; n - 1 covers everything). */
static size_t narrowest_window(size_t n, double entries)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t w = lo + (hi - lo) / 2;
        double band = (double)n * (double)(2 * w + 1) - (double)w * (double)(w + 1);
        if (band + 0.5 >= entries)
            hi = w;
        else
            lo = w + 1;
    }
    return lo;
}

/* MRA: blocks per row at every level but the last, from the scales
 * R = {s_0 > s_1 > ...} (levels = 0: R = {block, 1}). */
static int mra_budget(skit_attention_options *o, size_t n, double budget, double *parameter)
{
    size_t levels = o->levels ? o->levels : 2;
    if (o->levels == 1 || o->levels > SKIT_MRA_MAX_LEVELS)
        return SKIT_ERROR(SKIT_EDOM, "levels = %zu out of range: need 0 or 2..%d", o->levels,
                          SKIT_MRA_MAX_LEVELS);
    for (size_t l = 0; l + 1 < levels; l++) {
        size_t s = o->levels ? o->scales[l] : o->block;
        if (s == 0 || s > n)
            return SKIT_ERROR(SKIT_EDOM, "%s = %zu out of range: need 1 <= %s <= n (= %zu)",
                              o->levels ? "scale" : "block", s, o->levels ? "scale" : "block", n);
        o->blocks_per_row[l] = clamp_round(budget * (double)(n / s), 1, n / s);
    }
    *parameter = (double)o->blocks_per_row[0];
    return SKIT_OK;
}

/* BigBird: 3 window blocks and 1 global block, the rest of
 * round(budget * blocks) (at least 4) random. */
static int bigbird_budget(skit_attention_options *o, size_t n, double budget, double *parameter)
{
    size_t b = o->block;
    if (b == 0 || b > n)
        return SKIT_ERROR(SKIT_EDOM, "block = %zu out of range: need 1 <= block <= n (= %zu)", b, n);
    size_t blocks = (n + b - 1) / b, total = clamp_round(budget * (double)blocks, 4, blocks + 4);
    size_t available = blocks > 4 ? blocks - 4 : 0;
    o->window = 1;
    o->global_blocks = 1;
    o->random_blocks = SKIT_MIN(total - 4, available);
    *parameter = (double)o->random_blocks;
    return SKIT_OK;
}

int skit_attention_options_set_budget(skit_attention_options *options, size_t n, double budget,
                                      double *parameter)
{
    SKIT_REQUIRE_PTR(options);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (!(budget > 0 && budget <= 1))
        return SKIT_ERROR(SKIT_EDOM, "budget = %g out of range: need a fraction in (0, 1]", budget);
    double nn = (double)n * (double)n, value = 0;
    int status = SKIT_OK;
    switch (options->method) {
    case SKIT_ATTENTION_EXACT: break;
    case SKIT_ATTENTION_MRA2:
    case SKIT_ATTENTION_MRA2_SPARSE: status = mra_budget(options, n, budget, &value); break;
    case SKIT_ATTENTION_LOWRANK:
    case SKIT_ATTENTION_NYSTROM:
    case SKIT_ATTENTION_LINFORMER:
    case SKIT_ATTENTION_LINFORMER_FIT:
        options->rank = clamp_round(budget * (double)n, 1, n);
        value = (double)options->rank;
        break;
    case SKIT_ATTENTION_PERFORMER:
        options->rank = clamp_round(budget * (double)n, 1, (size_t)1 << 20);
        value = (double)options->rank;
        break;
    case SKIT_ATTENTION_TOPK:
        options->nonzeros = clamp_round(budget * nn, 1, n * n);
        value = (double)options->nonzeros;
        break;
    case SKIT_ATTENTION_WINDOW:
        options->window = narrowest_window(n, budget * nn);
        value = (double)options->window;
        break;
    case SKIT_ATTENTION_BIGBIRD: status = bigbird_budget(options, n, budget, &value); break;
    default:
        return SKIT_ERROR(SKIT_EINVAL, "method = %d unknown: need 0..%d", (int)options->method,
                          SKIT_ATTENTION_METHOD_COUNT - 1);
    }
    if (status == SKIT_OK && parameter) *parameter = value;
    return status;
}

/* Mean row entropy of softmax((scale / tau) Q K^T) at tau = exp(log_tau). */
static int entropy_at(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                      size_t ldk, double scale, double log_tau, double *entropy)
{
    return skit_attention_entropy(n, d, q, ldq, k, ldk, scale / exp(log_tau), NULL, NULL, entropy);
}

int skit_attention_temperature_for_entropy(size_t n, size_t d, const double *q, size_t ldq,
                                           const double *k, size_t ldk, double scale,
                                           double target, double *temperature, double *entropy)
{
    SKIT_REQUIRE_PTR(temperature);
    if (!(isfinite(scale) && scale > 0))
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need a finite scale > 0", scale);
    double hmax = n ? log((double)n) : 0;
    if (!(isfinite(target) && target > 0 && target < hmax))
        return SKIT_ERROR(SKIT_EDOM,
                          "target = %g out of range: need 0 < target < log n (= %.4g) at n = %zu",
                          target, hmax, n);
    double lo = log(1e-4), hi = log(1e4), h_lo, h_hi, h = 0, mid = 0;
    SKIT_TRY(entropy_at(n, d, q, ldq, k, ldk, scale, lo, &h_lo));
    SKIT_TRY(entropy_at(n, d, q, ldq, k, ldk, scale, hi, &h_hi));
    if (!(h_lo <= target && h_hi >= target))
        return SKIT_ERROR(SKIT_ENOCONV,
                          "target = %g not reachable: temperatures 1e-4..1e4 give %g..%g nats",
                          target, h_lo, h_hi);
    /* the entropy grows with tau: halve [lo, hi] until it is within 1e-6
     * of the target (relative) */
    for (int halvings = 0; halvings < 60; halvings++) {
        mid = 0.5 * (lo + hi);
        SKIT_TRY(entropy_at(n, d, q, ldq, k, ldk, scale, mid, &h));
        if (fabs(h - target) < 1e-6 * target) break;
        if (h < target)
            lo = mid;
        else
            hi = mid;
    }
    *temperature = exp(mid);
    if (entropy) *entropy = h;
    return SKIT_OK;
}
