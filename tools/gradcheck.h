/* gradcheck.h — every backward pass of the library against central finite
 * differences (float64) on fresh random inputs: `skit grad-check` and the
 * unit tests (tests/test_backward.c) run the same checks.
 *
 * For an operator y = f(p) with parameter and input groups p_g, a random
 * output gradient dy makes the scalar L(p) = <dy, f(p)>, whose gradient
 * the backward gives in one call. Each group is checked at `samples`
 * coordinates (all of them when the group is no larger) and along 2
 * random directions, each by Richardson-extrapolated central differences
 * on a ladder of steps 1e-3 4^-k max(1, |p_i|), k = 0..5 (through a ReLU
 * 0..11), keeping the
 * estimate that agrees best with the next (truncation, ReLU kinks and
 * rounding each spoil some steps, not all). A group's
 * error is max |g_i - fd_i| / max_j |g_j| over its checks (directions:
 * |<g, v> - fd_v| / (max_j |g_j| ||v||_1)): relative to the group's
 * largest gradient, so coordinates whose gradient is tiny do not divide
 * rounding by nearly zero.
 *
 * precision f32 (gradcheck_f32.c; ops toeplitz, tno, fd, ski-tno,
 * ski-causal, attention, mra2): finite
 * differences in float say nothing about a float backward (their own
 * error, ~sqrt(eps32), swamps it), so the reference is the float64
 * backward of the same operator on the same inputs rounded to float. A
 * group's error is max |g32 - g64| / max |g64|, and its tolerance a
 * derived bound on max |g32 - g64| over the same max |g64|: eps32 = 2^-24
 * times the growth factors skit/toeplitz.h, skit/tno.h and
 * skit/attention.h state for the float products, the float
 * cross-correlation and the float softmax, times the norms of the
 * inputs (and, for an RPE's parameters, times the Frobenius norm of the
 * map from the kernels' gradient to them, measured column by column on a
 * float64 plan: d (2n-1) backward calls). */
#ifndef SKIT_GRADCHECK_H
#define SKIT_GRADCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "skit.h"

#define GRADCHECK_MAX_GROUPS 80

typedef struct gradcheck_options {
    size_t n, d, batch;
    uint64_t seed;
    int causal;
    skit_activation activation;
    skit_norm norm;
    size_t rpe_width, rpe_layers;
    double decay;
    size_t samples; /* coordinates checked per group */
    double tolerance; /* float64: every group's; float32 groups derive their own */
    int f32;          /* 1: precision f32, the float32 backward against the float64 one */
} gradcheck_options;

typedef struct gradcheck_group {
    char name[32];
    size_t count, checked;
    double max_grad, error, tolerance;
} gradcheck_group;

typedef struct gradcheck_result {
    gradcheck_group groups[GRADCHECK_MAX_GROUPS];
    size_t ngroups;
    double worst;
} gradcheck_result;

/* The ops, NULL-terminated; those with a float32 backward. */
extern const char *const gradcheck_ops[];
extern const char *const gradcheck_ops_f32[];

/* n 64, d 4, batch 2, seed 1, bidirectional, ReLU, RMS, RPE 16 x 2,
 * decay 0.9, 12 samples, tolerance 1e-6. */
void gradcheck_options_default(gradcheck_options *options);

/* Run the check of `op`: a library status (the backward's or forward's
 * error, SKIT_EINVAL for an unknown op); result->worst the largest group
 * error (NaN or Inf when a gradient was not written: the outputs are
 * NaN-filled before the backward). */
int gradcheck_run(const char *op, const gradcheck_options *options, gradcheck_result *result);

/* ---- shared by gradcheck.c and gradcheck_f32.c ---- */

/* A mixer's options from the check's (kind FFT, FD or SKI). */
void gradcheck_mixer_options(const gradcheck_options *o, skit_tno_kind kind, skit_tno_options *opt);
/* The parameter groups of an RPE MLP (in -> w x layers -> out): group g <
 * 2 (layers + 2) is W<l> (g even) or b<l> (g odd), l = g / 2; its name,
 * first index and count. */
size_t gradcheck_mlp_group_count(size_t layers);
void gradcheck_mlp_group(size_t g, size_t in, size_t w, size_t layers, size_t out, char *name, size_t size,
                         const char *prefix, size_t *first, size_t *count);
/* MRA-2's block (the largest of 8, 4, 2 dividing n at least twice) and
 * squares refined per row (a quarter); SKIT_ESHAPE for odd n or n < 4. */
int gradcheck_mra_shape(size_t n, size_t *block, size_t *per_row);
/* ||v||_1 and ||v||_2 (the float32 bounds' norms) */
double gradcheck_norm1(const double *v, size_t count);
double gradcheck_norm2(const double *v, size_t count);
/* The float32 checks (precision f32), as gradcheck_run. */
int gradcheck_run_f32(const char *op, const gradcheck_options *options, gradcheck_result *result);

#endif
