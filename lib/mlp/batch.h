/* batch.h — the MLP evaluated at many inputs at once: Taylor series
 * through the network (freq's decay analysis) and the activations feeding
 * the output layer, laid out feature-major (the token mixers of lib/tno).
 * The mlp module's interface for modules above it; not installed.
 * Arguments are trusted (callers validate). */
#ifndef SKIT_MLP_BATCH_H
#define SKIT_MLP_BATCH_H

#include "skit/mlp.h"

/* skit_mlp_backward that also gives dots[k] = <dy_k, y_k> (count values;
 * NULL: none), the outputs' product with their gradient, from the output
 * layer's input and gradient (O(count (width + out_dim))) without
 * evaluating y: what a caller scaling the outputs by a learnt factor
 * needs for that factor's gradient. */
int skit_mlp_backward_dots(const skit_mlp *mlp, size_t count, const double *x, const double *dy, double *y,
                           double *dx, double *dparams, double *dots, double *work);

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

/* ---- feature-major evaluation along one input -------------------------
 * out[j*ldo + k] = scale[k] * act(norm(h(x_k)))_j, j < width, k < count:
 * the activations the output Linear consumes (the "features"), one row per
 * hidden unit with the inputs along it; scale NULL: none. x is count x
 * in_dim row-major. work: skit_mlp_features_workspace(mlp) doubles. The
 * output layer is left to the caller (skit_mlp_output_layer), which can
 * then apply it in whatever basis is cheapest (the token mixers push it
 * past their FFTs). Allocates nothing; always SKIT_OK. */
size_t skit_mlp_features_workspace(const skit_mlp *mlp);
int skit_mlp_features(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                      double *out, size_t ldo, double *work);
/* The two ways skit_mlp_features chooses between, for the tests: layer by
 * layer with GEMMs over blocks of inputs (any MLP; always SKIT_OK), and
 * for ReLU with one input a sweep along the inputs that keeps each layer
 * in a basis of (layers + 2) vectors while the ReLU masks below it hold
 * (mlp.c; SKIT_EINVAL where it does not apply; skit_mlp_features takes it
 * from 32 inputs on). */
int skit_mlp_features_dense(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work);
int skit_mlp_features_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work);
/* The MLP's outputs by the sweep, the output layer applied on the last
 * layer's basis (out_dim x (layers + 3) per input instead of out_dim x
 * width): output r of input k, times scale[k] (NULL: 1), goes to
 * out[(r % split) ldo + (r / split) part + k]; row_ss (NULL: none; else
 * out_dim values, set by the caller) gets each row's sum of squares added
 * (NaN/Inf where an output is), for the callers' overflow checks without
 * another pass over the outputs (|output| <= its root); *changes (NULL: none) gets the number of inputs
 * at which a ReLU mask changed added to it (the first counts), which says
 * whether the sweep paid. Needs what the sweep
 * needs (else SKIT_EINVAL) and work of skit_mlp_outputs_workspace(mlp)
 * doubles; skit_mlp_outputs_sweep_able says whether it applies and pays
 * for `count` inputs in all (which may then be split into any pieces). */
int skit_mlp_outputs_sweep_able(const skit_mlp *mlp, size_t count);
size_t skit_mlp_outputs_workspace(const skit_mlp *mlp);
int skit_mlp_outputs_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale, double *out,
                           size_t ldo, size_t split, size_t part, double *row_ss, size_t *changes,
                           double *work);
/* The same in float32 (the float32 token mixers): features and outputs
 * by the sweep of sweep.c compiled for float (weights rounded once per
 * skit_mlp_set_parameters, inputs and scales rounded as read, every sum in
 * float but the norms' sums of squares and row_ss, in double), written as
 * floats. skit_mlp_features_f32 takes the layers' path in double and
 * rounds where the sweep does not apply. Both need the float copy of the
 * weights, which skit_mlp_keep_float_copy makes (and set_parameters then
 * keeps in step; without it the float sweep does not apply): of the
 * hidden layers for the features, of the output layer too (output_layer
 * 1) for the outputs. The sweep takes any count here. Work:
 * skit_mlp_features_f32_workspace(mlp) doubles for the features,
 * skit_mlp_outputs_f32_workspace(mlp) for the outputs. The features differ from the double sweep's by the float
 * rounding of the same sums: first order, at most (s + 2 + w) 2^-24 of
 * the magnitudes summed at stage s (the basis products and the norm's
 * root), carried through the later stages' bases (tests/test_mlp.c
 * compares them with the double sweep). */
int skit_mlp_keep_float_copy(skit_mlp *mlp, int output_layer);
size_t skit_mlp_features_f32_workspace(const skit_mlp *mlp);
size_t skit_mlp_outputs_f32_workspace(const skit_mlp *mlp);
int skit_mlp_features_f32(const skit_mlp *mlp, size_t count, const double *x, const double *scale, float *out,
                          size_t ldo, double *work);
int skit_mlp_outputs_sweep_f32(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                               float *out, size_t ldo, size_t split, size_t part, double *row_ss,
                               size_t *changes, double *work);
/* The last Linear: weight out_dim x width row-major, then its bias. */
void skit_mlp_output_layer(const skit_mlp *mlp, const double **weight, const double **bias);

#endif
