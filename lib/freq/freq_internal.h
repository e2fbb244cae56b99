/* freq_internal.h — declarations shared by the files of lib/freq; not
 * installed. Arguments of these functions are trusted (callers validate). */
#ifndef SKIT_FREQ_INTERNAL_H
#define SKIT_FREQ_INTERNAL_H

#include "skit/mlp.h"

/* Doubles of scratch skit_mlp_taylor_batch needs. */
size_t skit_mlp_taylor_workspace(const skit_mlp *mlp, size_t points, size_t terms);

/* Push Taylor series through the MLP at `points` expansion points at once.
 * input: points x terms x in_dim (row-major): the normalised coefficients
 * (f^(k)/k!) of each input as a function of the expansion variable;
 * output: points x terms x out_dim, normalised coefficients of each output;
 * kinks[p] = 1 if a ReLU pre-activation at point p was within 1e-12 of 0.
 * terms <= SKIT_SERIES_MAX. Errors: SKIT_EDOM (RMS norm of a zero layer). */
int skit_mlp_taylor_batch(const skit_mlp *mlp, size_t points, size_t terms, const double *input,
                          double *output, int *kinks, double *work);

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
