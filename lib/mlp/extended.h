/* extended.h — the MLP evaluated in extended precision (core/xreal.h), for
 * the impulse responses whose decay must be followed below double's
 * rounding floor (skit_freq_impulse_extended). */
#ifndef SKIT_MLP_EXTENDED_H
#define SKIT_MLP_EXTENDED_H

#include "core/xreal.h"
#include "skit/mlp.h"

/* Values of work that skit_mlp_eval_xreal needs: 2 * width. */
size_t skit_mlp_xreal_work(const skit_mlp *mlp);

/* y (out_dim) = mlp(x) (in_dim) with every operation in skit_xreal: the
 * stored double weights taken exactly, GeLU x Phi(x) by erfc, SiLU, ReLU,
 * LayerNorm and RMS norm as skit_mlp_eval computes them. */
void skit_mlp_eval_xreal(const skit_mlp *mlp, const skit_xreal *x, skit_xreal *y, skit_xreal *work);

#endif
