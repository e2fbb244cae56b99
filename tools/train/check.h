/* check.h — the model's gradients against central finite differences, and
 * checkpoints (a directory of .npy files). */
#ifndef SKIT_TRAIN_CHECK_H
#define SKIT_TRAIN_CHECK_H

#include <stdio.h>

#include "model.h"

/* For every parameter group: up to `probes` entries (seeded choice), the
 * analytic gradient of the loss of (inputs, targets, weights) against
 * (L(p + h) - L(p - h)) / 2h, h = 1e-5 max(1, |p|); the worst error
 * relative to max(the group's largest |gradient|, 1e-12) per group into
 * worst[group] (train_model_group_count entries). Returns a library status. */
int train_gradient_check(train_model *model, const int *inputs, const int *targets, const double *weights,
                         size_t probes, uint64_t seed, double *worst);

/* Write every parameter group as DIR/<name>.npy (matrices rows x cols,
 * mixers 1-D) and DIR/model.tsv (group, shape, and `description`, the
 * settings to load the mixers with), into a temporary directory renamed
 * to dir at the end. Returns 0 or -1 (errno set, nothing left under dir). */
int train_checkpoint_save(train_model *model, const char *dir, const char *description);
/* The same for any array in the parameter layout (e.g. the gradients). */
int train_checkpoint_save_values(train_model *model, const double *values, const char *dir, const char *description);

#endif
