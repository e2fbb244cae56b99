/* check.h — the model's gradients against central finite differences, and
 * the float32 model's against the float64 model's. */
#ifndef SKIT_TRAIN_CHECK_H
#define SKIT_TRAIN_CHECK_H

#include <stdio.h>

#include "model.h"

/* For every parameter group: up to `probes` entries (seeded choice), the
 * analytic gradient of the loss of (inputs, targets, weights) against
 * central differences (L(p + h) - L(p - h)) / 2h at h = 1e-3 max(1, |p|),
 * h/4, ... (check.c), extrapolated and picked by cli/fdiff.c; the worst error
 * relative to max(the group's largest |gradient|, 1e-12) per group into
 * worst[group] (train_model_group_count entries). Returns a library status. */
int train_gradient_check(train_model *model, const int *inputs, const int *targets, const double *weights,
                         size_t probes, uint64_t seed, double *worst);

/* The float32 model's loss and gradients against the float64 model's on
 * the same parameters (model32's, copied into model64) and batch: per
 * group max |g32 - g64| over the group's max |g64| (at least float32's
 * resolution of the largest gradient, check.c) into worst[group], and
 * |loss32 - loss64| / loss64 into *loss_error. MRA-2: *same_selection 0
 * if the two forwards refined different squares (scores within rounding
 * of each other: the gradients then differ by more than rounding), else
 * 1. Returns a library status. */
int train_precision_check(train_model *model32, train_model *model64, const int *inputs, const int *targets,
                          const double *weights, double *loss_error, double *worst, int *same_selection);

/* The tolerance of train_precision_check for a configuration, derived in
 * check.c from float32's unit roundoff, the longest sums and the depth. */
double train_precision_tolerance(const train_config *config);

#endif
