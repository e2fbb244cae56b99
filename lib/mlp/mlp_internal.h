/* mlp_internal.h — shared by the files of lib/mlp only. */
#ifndef SKIT_MLP_INTERNAL_H
#define SKIT_MLP_INTERNAL_H

#include "mlp/batch.h"

/* Number of activations the input passes through: (hidden_layers+1)*width. */
size_t skit_mlp_preactivation_count(const skit_mlp *mlp);

/* Evaluate one input x (in_dim values) and record the value every
 * activation receives (after the norm): pre has
 * skit_mlp_preactivation_count entries; y gets out_dim outputs.
 * Errors: SKIT_ENOMEM. */
int skit_mlp_preactivations(const skit_mlp *mlp, const double *x, double *pre, double *y);

/* The MLP's activation and norm. */
skit_activation skit_mlp_activation_of(const skit_mlp *mlp);
skit_norm skit_mlp_norm_of(const skit_mlp *mlp);

#endif
