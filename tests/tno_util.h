/* tno_util.h — set-up shared by the TNO check suites (test_tno.c and
 * test_tno_f32.c): where a token lies in either layout, and a float64 and
 * a float32 plan of the same options run on the same input, with the
 * per-(sequence, channel) error between their outputs. */
#ifndef SKIT_TNO_UTIL_H
#define SKIT_TNO_UTIL_H

#include "check_util.h"
#include "skit/tno.h"

/* the flat index of token i, channel c of sequence b */
static inline size_t tu_tno_index(skit_tno_layout layout, size_t n, size_t d, size_t b, size_t i, size_t c)
{
    return layout == SKIT_TNO_ROWS ? (b * n + i) * d + c : (b * d + c) * n + i;
}

/* Plans of both precisions from the same options (so the same seeded
 * parameters), a normal input x rounded to float and its double copy
 * x64, the float64 plan's output y64, and y32 poisoned with NaN for the
 * float32 plan to write. */
typedef struct {
    skit_tno_plan *p64, *p32;
    size_t total; /* batch n d */
    float *x, *y32;
    double *x64, *y64;
} tu_tno_pair;

static inline void tu_tno_pair_create(tu_tno_pair *t, size_t n, size_t d, size_t batch,
                                      const skit_tno_options *o, skit_rng *rng)
{
    skit_tno_options single = *o;
    single.precision = SKIT_PRECISION_F32;
    t->p64 = t->p32 = NULL;
    TU_EXPECT_OK(skit_tno_plan_create(&t->p64, n, d, batch, o, NULL, 0));
    TU_EXPECT_OK(skit_tno_plan_create(&t->p32, n, d, batch, &single, NULL, 0));
    t->total = batch * n * d;
    t->x = tu_alloc_f32(t->total);
    t->y32 = tu_alloc_f32(t->total);
    t->x64 = tu_alloc(t->total);
    t->y64 = tu_alloc(t->total);
    for (size_t i = 0; i < t->total; i++) t->x64[i] = t->x[i] = (float)skit_rng_normal(rng);
    TU_EXPECT_OK(skit_tno_plan_execute(t->p64, t->x64, t->y64, NULL));
}

static inline void tu_tno_pair_destroy(tu_tno_pair *t)
{
    skit_free(t->x);
    skit_free(t->y32);
    skit_free(t->x64);
    skit_free(t->y64);
    skit_tno_plan_destroy(t->p64);
    skit_tno_plan_destroy(t->p32);
}

/* ||y32 - y64||_2 over sequence b, channel c (NaN: infinite); *x_norm =
 * ||x||_2 over the same */
static inline double tu_tno_pair_error(const tu_tno_pair *t, size_t b, size_t c, double *x_norm)
{
    const skit_tno_plan *p = t->p32;
    const size_t n = skit_tno_plan_n(p), d = skit_tno_plan_d(p);
    const skit_tno_layout layout = skit_tno_plan_options(p)->layout;
    double err = 0, xx = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = tu_tno_index(layout, n, d, b, i, c);
        double e = (double)t->y32[at] - t->y64[at];
        err += e * e;
        xx += (double)t->x[at] * t->x[at];
    }
    *x_norm = sqrt(xx);
    return isnan(err) ? INFINITY : sqrt(err);
}

/* Checks y32 (written by the caller's execute_f32) with `check`, again
 * after skit_tno_plan_forward_f32 (which recomputes the float kernels
 * from the parameters) into a poisoned y32, and that each plan refuses
 * the other precision's execute. */
typedef void (*tu_tno_pair_check)(const tu_tno_pair *t, const char *what, uint64_t seed);

static inline void tu_tno_pair_check_forward(tu_tno_pair *t, tu_tno_pair_check check, const char *what,
                                             uint64_t seed)
{
    check(t, what, seed);
    for (size_t i = 0; i < t->total; i++) t->y32[i] = NAN;
    TU_EXPECT_OK(skit_tno_plan_forward_f32(t->p32, t->x, t->y32));
    check(t, what, seed);
    TU_EXPECT_STATUS(skit_tno_plan_execute(t->p32, t->x64, t->y64, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tno_plan_execute_f32(t->p64, t->x, t->y32, NULL), SKIT_EINVAL);
}

#endif
