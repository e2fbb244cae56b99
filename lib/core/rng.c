/* rng.c — xoshiro256** (Blackman & Vigna) seeded through splitmix64.
 * Pure integer arithmetic, so a seed gives the same stream everywhere. */
#include "config.h"

#include <math.h>

#include "core/internal.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void skit_rng_seed(skit_rng *rng, uint64_t seed) { skit_rng_seed_stream(rng, seed, 0); }

void skit_rng_seed_stream(skit_rng *rng, uint64_t seed, uint64_t stream)
{
    /* Mix the stream number in through a second splitmix pass so that
     * (seed, stream) pairs give unrelated states. */
    uint64_t x = seed;
    uint64_t mixed = splitmix64(&x) ^ (stream * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL);
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&mixed);
    if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0) rng->s[0] = 1;
}

uint64_t skit_rng_u64(skit_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double skit_rng_uniform(skit_rng *rng) { return (double)(skit_rng_u64(rng) >> 11) * 0x1.0p-53; }

double skit_rng_uniform_range(skit_rng *rng, double a, double b)
{
    return a + (b - a) * skit_rng_uniform(rng);
}

double skit_rng_normal(skit_rng *rng)
{
    /* Polar method; the second variate is discarded so that the stream
     * position depends only on the number of calls, not on cached state. */
    for (;;) {
        double u = 2.0 * skit_rng_uniform(rng) - 1.0;
        double v = 2.0 * skit_rng_uniform(rng) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0) return u * sqrt(-2.0 * log(s) / s);
    }
}

uint64_t skit_rng_below(skit_rng *rng, uint64_t bound)
{
    if (bound <= 1) return 0;
    /* Lemire's rejection: unbiased and usually one multiply */
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        __uint128_t m = (__uint128_t)skit_rng_u64(rng) * bound;
        if ((uint64_t)m >= threshold) return (uint64_t)(m >> 64);
    }
}

void skit_rng_fill_normal(skit_rng *rng, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = skit_rng_normal(rng);
}

void skit_rng_fill_uniform(skit_rng *rng, double *x, size_t n, double a, double b)
{
    for (size_t i = 0; i < n; i++) x[i] = skit_rng_uniform_range(rng, a, b);
}
