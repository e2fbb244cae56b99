/* mlp_internal.h — shared by the files of lib/mlp only. */
#ifndef SKIT_MLP_INTERNAL_H
#define SKIT_MLP_INTERNAL_H

#include "mlp/batch.h"

/* the norms' epsilons (skit/mlp.h): LayerNorm's inside the root, RMS's added to it */
#define LAYER_NORM_EPS 1e-5
#define RMS_NORM_EPS 1e-8

struct skit_mlp {
    size_t in_dim, width, hidden_layers, out_dim;
    size_t linear_count; /* hidden_layers + 2 */
    skit_activation activation;
    skit_norm norm;
    size_t parameter_count;
    double *params;
    float *params_f; /* params rounded, kept in step (the float sweep's weights) */
    size_t params_f_count; /* how many: all, or all but the output layer */
};

static inline size_t mlp_layer_in(const skit_mlp *m, size_t l) { return l == 0 ? m->in_dim : m->width; }
static inline size_t mlp_layer_out(const skit_mlp *m, size_t l)
{
    return l + 1 == m->linear_count ? m->out_dim : m->width;
}

/* Offset of layer l's weight in params; its bias follows the weight. */
static inline size_t mlp_layer_offset(const skit_mlp *m, size_t l)
{
    size_t off = 0;
    for (size_t i = 0; i < l; i++) off += mlp_layer_out(m, i) * (mlp_layer_in(m, i) + 1);
    return off;
}

/* ---- the sweep (sweep.c; the _f32 forms sweepf.c) ------------------------
 * Inputs a block of the sweep takes at once; the wrappers (mlp.c) take the
 * sweep from one block of inputs on. eligible: ReLU, one input, the width
 * for the bases; values: the sweep's state, in values of its precision
 * (the callers' workspace is counted in doubles, which hold either);
 * features / outputs: as skit_mlp_features_sweep / skit_mlp_outputs_sweep
 * (outputs returns the mask changes). */
#define MLP_SWEEP_BLOCK 32
int mlp_sweep_eligible(const skit_mlp *m, size_t count);
int mlp_sweep_eligible_f32(const skit_mlp *m, size_t count);
size_t mlp_sweep_values(const skit_mlp *m);
size_t mlp_sweep_values_f32(const skit_mlp *m);
void mlp_sweep_features(const skit_mlp *m, size_t count, const double *x, const double *scale, double *out,
                        size_t ldo, double *work);
void mlp_sweep_features_f32(const skit_mlp *m, size_t count, const double *x, const double *scale, float *out,
                            size_t ldo, double *work);
size_t mlp_sweep_outputs(const skit_mlp *m, size_t count, const double *x, const double *scale, double *out,
                         size_t ldo, size_t split, size_t part, double *row_ss, double *work);
size_t mlp_sweep_outputs_f32(const skit_mlp *m, size_t count, const double *x, const double *scale, float *out,
                             size_t ldo, size_t split, size_t part, double *row_ss, double *work);

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

/* ---- the backward (backward.c, backward_sweep.c) -------------------------
 * mlp_backward_dense: the dense backward's parameter gradient (added to
 * dparams) and dots (NULL: none) for count inputs, work of the dense
 * part's size. mlp_backward_sweep: the same by the sweep along the inputs
 * (where mlp_backward_sweep_able; from MLP_BACKWARD_SWEEP_MIN inputs on),
 * work of mlp_backward_sweep_workspace doubles, dense_work for its short
 * runs: those of fewer than min_run inputs (0: as many as the run's fixed
 * cost pays for; the tests pass 1 to sweep every run). */
#define MLP_BACKWARD_SWEEP_MIN 1024
void mlp_backward_dense(const skit_mlp *m, size_t count, const double *x, const double *dy, double *dparams,
                        double *dots, double *work);
int mlp_backward_sweep_able(const skit_mlp *m, size_t count);
size_t mlp_backward_sweep_workspace(const skit_mlp *m);
void mlp_backward_sweep(const skit_mlp *m, size_t count, const double *x, const double *dy, double *dparams,
                        double *dots, double *work, double *dense_work, size_t min_run);

#endif
