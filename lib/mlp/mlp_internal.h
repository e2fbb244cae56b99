/* mlp_internal.h — shared by the files of lib/mlp only. */
#ifndef SKIT_MLP_INTERNAL_H
#define SKIT_MLP_INTERNAL_H

#include "mlp/batch.h"

/* the norms' epsilons (skit/mlp.h): LayerNorm's inside the root, RMS's added to it */
#define LAYER_NORM_EPS 1e-5
#define RMS_NORM_EPS 1e-8

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
size_t skit_mlp_width_of(const skit_mlp *mlp);
size_t skit_mlp_hidden_layers_of(const skit_mlp *mlp);
/* the parameter vector (layout of skit/mlp.h) */
const double *skit_mlp_params_of(const skit_mlp *mlp);

/* The activation of one value, and the norm of one row of w values as
 * row[i] -> (row[i] - *shift) * *inv (what eval applies; backward.c
 * recomputes the forward with them). */
double skit_mlp_activate(skit_activation a, double v);
void skit_mlp_norm_stats(skit_norm norm, const double *row, size_t w, double *shift, double *inv);

#endif
