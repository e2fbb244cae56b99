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
 * rounding by nearly zero. */
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
    double tolerance;
} gradcheck_options;

typedef struct gradcheck_group {
    char name[32];
    size_t count, checked;
    double max_grad, error;
} gradcheck_group;

typedef struct gradcheck_result {
    gradcheck_group groups[GRADCHECK_MAX_GROUPS];
    size_t ngroups;
    double worst;
} gradcheck_result;

/* The ops, NULL-terminated. */
extern const char *const gradcheck_ops[];

/* n 64, d 4, batch 2, seed 1, bidirectional, ReLU, RMS, RPE 16 x 2,
 * decay 0.9, 12 samples, tolerance 1e-6. */
void gradcheck_options_default(gradcheck_options *options);

/* Run the check of `op`: a library status (the backward's or forward's
 * error, SKIT_EINVAL for an unknown op); result->worst the largest group
 * error (NaN or Inf when a gradient was not written: the outputs are
 * NaN-filled before the backward). */
int gradcheck_run(const char *op, const gradcheck_options *options, gradcheck_result *result);

#endif
