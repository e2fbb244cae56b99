/* ski_sparse.c — the SKI plan's sparse action (ski_internal.h) for one
 * precision: R = double here, R = float when ski_sparsef.c compiles this
 * file again with SKI_SPARSE_SINGLE (float32 plans: the float planes, A
 * by a float32 Toeplitz plan). The implicit-weight form runs in double
 * only: its run sums (sum x and sum i x, then differenced) would carry
 * float's rounding of the whole run into weights near 0, outside the
 * float32 plan's bound (skit/ski.h), so float32 plans read the planes. */
#include "config.h"

#include <string.h>

#include "core/internal.h"
#include "core/simd.h"
#include "ski/ski_internal.h"

#ifdef SKI_SPARSE_SINGLE
typedef float R;
#define PLANES(p) ((p)->planes32)
#define RAMP(p) ((const R *)NULL)
#define IMPLICIT(p) 0
#define TOEPLITZ_EXECUTE skit_toeplitz_plan_execute_f32
#define SPARSE_RUN ski_sparse_run_f32
#else
typedef double R;
#define PLANES(p) ((p)->planes)
#define RAMP(p) ((p)->ramp)
#define IMPLICIT(p) ((p)->implicit)
#define TOEPLITZ_EXECUTE skit_toeplitz_plan_execute
#define SPARSE_RUN ski_sparse_run
#endif

/* Implicit linear weights of run q: W(i, s + 1) = w1(i) = (i - lo)/h - s =
 * base + ramp[i - b] / h and W(i, s) = 1 - w1(i). Computing them from a
 * table of small integers keeps the loops free of integer-to-double
 * conversions, which baseline x86-64 cannot vectorise. */
static double implicit_base(const skit_ski_plan *p, size_t b, size_t s)
{
    return ((double)b - p->lo) * p->inv_h - (double)s;
}

/* u_g = W^T x_g for the G <= SKI_GROUP channels of a group; token i of
 * channel g at x[g][i * xs] (xs = 1: columns; the row length: rows). The
 * body is inlined into a unit-stride and a strided function, so the
 * columns loops keep their vector form. */
static inline __attribute__((always_inline)) void transpose_body(const skit_ski_plan *p, const R *const *x,
                                                                size_t xs, R *const *u, size_t G)
{
    size_t n = p->n, width = p->width;
    const R *restrict ramp = RAMP(p);
    const R ih = (R)p->inv_h;
    for (size_t g = 0; g < G; g++) memset(u[g], 0, p->r * sizeof *u[g]);
    for (size_t q = 0; q < p->runs; q++) {
        size_t b = p->run_begin[q], len = p->run_begin[q + 1] - b, s = p->run_start[q];
        if (IMPLICIT(p)) {
            /* sum w1 x = base sum x + (1/h) sum ramp x */
            const R base = (R)implicit_base(p, b, s);
            for (size_t g = 0; g < G; g++) {
                const R *restrict xg = x[g] + b * xs;
                R sx = 0, sk = 0;
                SKIT_SIMD_SUM(sx, sk)
                for (size_t k = 0; k < len; k++) {
                    sx += xg[k * xs];
                    sk += ramp[k] * xg[k * xs];
                }
                R s1 = base * sx + ih * sk;
                u[g][s] += sx - s1;
                u[g][s + 1] += s1;
            }
            continue;
        }
        for (size_t g = 0; g < G; g++) {
            const R *restrict xg = x[g] + b * xs;
            for (size_t k = 0; k < width; k++) {
                const R *restrict w = PLANES(p) + k * n + b;
                R a = 0;
                SKIT_SIMD_SUM(a)
                for (size_t i = 0; i < len; i++) a += w[i] * xg[i * xs];
                u[g][s + k] += a;
            }
        }
    }
}

SKIT_MULTIVERSION static void transpose_group(const skit_ski_plan *p, const R *const *x, R *const *u, size_t G)
{
    transpose_body(p, x, 1, u, G);
}

SKIT_MULTIVERSION static void transpose_group_strided(const skit_ski_plan *p, const R *const *x, size_t xs,
                                                      R *const *u, size_t G)
{
    transpose_body(p, x, xs, u, G);
}

/* y_g = W v_g for the G <= SKI_GROUP channels of a group; token i of
 * channel g at y[g][i * ys], inlined as transpose_body. */
static inline __attribute__((always_inline)) void forward_body(const skit_ski_plan *p, const R *const *v,
                                                              R *const *y, size_t ys, size_t G)
{
    size_t n = p->n, width = p->width;
    const R *restrict ramp = RAMP(p);
    const R ih = (R)p->inv_h;
    for (size_t q = 0; q < p->runs; q++) {
        size_t b = p->run_begin[q], len = p->run_begin[q + 1] - b, s = p->run_start[q];
        if (IMPLICIT(p)) {
            /* y = v0 + w1 (v1 - v0) = (v0 + base dv) + ramp (dv / h) */
            const R base = (R)implicit_base(p, b, s);
            for (size_t g = 0; g < G; g++) {
                R *restrict yg = y[g] + b * ys;
                R dv = v[g][s + 1] - v[g][s], a0 = v[g][s] + base * dv, a1 = ih * dv;
                SKIT_SIMD
                for (size_t k = 0; k < len; k++) yg[k * ys] = a0 + ramp[k] * a1;
            }
            continue;
        }
        for (size_t g = 0; g < G; g++) {
            R *restrict yg = y[g] + b * ys;
            const R *vg = v[g] + s;
            const R *restrict w = PLANES(p) + b;
            R vk = vg[0];
            SKIT_SIMD
            for (size_t i = 0; i < len; i++) yg[i * ys] = w[i] * vk;
            for (size_t k = 1; k < width; k++) {
                w = PLANES(p) + k * n + b;
                vk = vg[k];
                SKIT_SIMD
                for (size_t i = 0; i < len; i++) yg[i * ys] += w[i] * vk;
            }
        }
    }
}

SKIT_MULTIVERSION static void forward_group(const skit_ski_plan *p, const R *const *v, R *const *y, size_t G)
{
    forward_body(p, v, y, 1, G);
}

SKIT_MULTIVERSION static void forward_group_strided(const skit_ski_plan *p, const R *const *v, R *const *y,
                                                    size_t ys, size_t G)
{
    forward_body(p, v, y, ys, G);
}

/* U = W^T X (forward = 0) or Y = W V (forward = 1) for the channels
 * [c0, c1), in balanced groups of at most SKI_GROUP. */
static void channel_range(const skit_ski_plan *p, const R *X, size_t ldx, R *Y,
                          size_t ldy, R *U, const R *V, size_t c0, size_t c1, int forward)
{
    size_t r = p->r, groups = (c1 - c0 + SKI_GROUP - 1) / SKI_GROUP;
    /* a channel of X or Y: a column (ld apart), or a row offset (rows ld apart) */
    const int rows = p->layout == SKIT_LAYOUT_ROWS;
    const size_t xc = rows ? 1 : ldx, yc = rows ? 1 : ldy;
    for (size_t q = 0; q < groups; q++) {
        size_t c = c0 + (c1 - c0) * q / groups, G = c0 + (c1 - c0) * (q + 1) / groups - c;
        const R *in[SKI_GROUP];
        R *out[SKI_GROUP];
        for (size_t g = 0; g < G; g++) {
            in[g] = forward ? V + (c + g) * r : X + (c + g) * xc;
            out[g] = forward ? Y + (c + g) * yc : U + (c + g) * r;
        }
        if (forward && rows) forward_group_strided(p, in, out, ldy, G);
        else if (forward) forward_group(p, in, out, G);
        else if (rows) transpose_group_strided(p, in, ldx, out, G);
        else transpose_group(p, in, out, G);
    }
}

/* Blocked: one parallel region, a block's W^T, A and W back to back. */
static int sparse_blocked(const skit_ski_plan *p, const R *X, size_t ldx, R *Y, size_t ldy,
                          R *U, R *V)
{
    size_t n = p->n, r = p->r, d = p->d, blocks = p->blocks;
    int status = SKIT_OK;
#pragma omp parallel for schedule(dynamic) if (n * d > 32768)
    for (size_t q = 0; q < blocks; q++) {
        size_t c0 = d * q / blocks, c1 = d * (q + 1) / blocks;
        channel_range(p, X, ldx, NULL, 0, U, V, c0, c1, 0);
        int st = TOEPLITZ_EXECUTE(p->block[q], U + c0 * r, r, V + c0 * r, r, NULL);
        if (st != SKIT_OK) {
#pragma omp atomic write
            status = st;
        }
        channel_range(p, NULL, 0, Y, ldy, U, V, c0, c1, 1);
    }
    return status;
}

/* Phased: one pass over all channels (groups at least one per thread, taken
 * dynamically), the Toeplitz product of all channels, the other pass. */
static void sparse_pass(const skit_ski_plan *p, const R *X, size_t ldx, R *Y,
                        size_t ldy, R *U, const R *V, int forward)
{
    size_t n = p->n, d = p->d;
    size_t groups = SKIT_MAX((d + SKI_GROUP - 1) / SKI_GROUP, SKIT_MIN(d, (size_t)skit_max_threads()));
#pragma omp parallel for schedule(dynamic) if (d > 1 && n * d > 32768)
    for (size_t q = 0; q < groups; q++)
        channel_range(p, X, ldx, Y, ldy, U, V, d * q / groups, d * (q + 1) / groups, forward);
}

int SPARSE_RUN(const skit_ski_plan *p, const R *X, size_t ldx, R *Y, size_t ldy, R *U, R *V)
{
    if (p->blocks) return sparse_blocked(p, X, ldx, Y, ldy, U, V);
    sparse_pass(p, X, ldx, NULL, 0, U, V, 0);
    int status = TOEPLITZ_EXECUTE(p->toeplitz, U, p->r, V, p->r, NULL);
    if (status == SKIT_OK) sparse_pass(p, NULL, 0, Y, ldy, U, V, 1);
    return status;
}
