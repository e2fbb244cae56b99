/* skit/mlp.h — the small MLP R^in -> R^out used as a relative-position
 * encoder (TNN RPE) and as a frequency response (FD-TNO), with exact
 * input derivatives by truncated Taylor (power-series) arithmetic.
 *
 * Architecture (TNN's RPE, see docs/reference-code.md):
 *   h = Linear(in, width)(x)
 *   repeat hidden_layers times: h = Linear(width, width)(act(norm(h)))
 *   y = Linear(width, out)(act(norm(h)))
 * so there are hidden_layers + 2 Linear layers.
 * norm: none, LayerNorm (no affine parameters: (h - mean)/sqrt(var + 1e-5)),
 * or TNN's parameter-free RMS norm h / (||h||/sqrt(width) + 1e-8).
 * Activations: ReLU, SiLU x*sigmoid(x), GeLU (exact erf form).
 * Initialisation as PyTorch's default nn.Linear: weights and biases uniform
 * on [-1/sqrt(fan_in), 1/sqrt(fan_in)], drawn from skit_rng seeded with
 * `seed` in the order W1, b1, W2, b2, ... (W row-major out x in, as PyTorch
 * stores weight[out][in]).
 * Parameter vector layout (for loading weights exported from PyTorch):
 * for each Linear layer in order, weight (out x in, row-major) then bias. */
#ifndef SKIT_MLP_H
#define SKIT_MLP_H

#include "skit/core.h"

SKIT_BEGIN_DECLS

typedef enum skit_activation {
    SKIT_ACTIVATION_RELU = 0,
    SKIT_ACTIVATION_SILU = 1,
    SKIT_ACTIVATION_GELU = 2
} skit_activation;

typedef enum skit_norm {
    SKIT_NORM_NONE = 0,
    SKIT_NORM_LAYER = 1,
    SKIT_NORM_RMS = 2
} skit_norm;

typedef struct skit_mlp skit_mlp;

/* Errors: SKIT_EDOM (in_dim, width or out_dim = 0, hidden_layers > 64),
 * SKIT_EINVAL (unknown activation/norm), SKIT_ENOMEM. */
int skit_mlp_create(skit_mlp **mlp, size_t in_dim, size_t width, size_t hidden_layers,
                    size_t out_dim, skit_activation activation, skit_norm norm, uint64_t seed);
void skit_mlp_destroy(skit_mlp *mlp);

size_t skit_mlp_in_dim(const skit_mlp *mlp);
size_t skit_mlp_out_dim(const skit_mlp *mlp);
size_t skit_mlp_parameter_count(const skit_mlp *mlp);
/* Copy all parameters out / in (layout above). SKIT_ESHAPE if count differs,
 * SKIT_ENONFINITE on NaN/Inf. */
int skit_mlp_get_parameters(const skit_mlp *mlp, double *params, size_t count);
int skit_mlp_set_parameters(skit_mlp *mlp, const double *params, size_t count);

/* Doubles of scratch skit_mlp_eval needs per call. */
size_t skit_mlp_workspace_size(const skit_mlp *mlp);

/* y = mlp(x) for `count` inputs. x is count x in_dim row-major (input k at
 * x + k*in_dim); y is count x out_dim row-major (output k at y + k*out_dim).
 * work: skit_mlp_workspace_size(mlp) doubles, or NULL to allocate.
 * count = 0 is a no-op. Errors: SKIT_EINVAL (NULL), SKIT_ENONFINITE (NaN/Inf
 * in x), SKIT_EOVERFLOW, SKIT_ENOMEM (only when work is NULL). */
int skit_mlp_eval(const skit_mlp *mlp, size_t count, const double *x, double *y, double *work);

/* ---- backward (vector–Jacobian product) --------------------------------
 * For count inputs x (count x in_dim) and output gradients dy (count x
 * out_dim, row-major): dx = (dy/dx)^T dy (count x in_dim) and dparams =
 * sum over the inputs of (dy/dparams)^T dy (parameter_count values in the
 * layout above, overwritten). The forward is recomputed (y, if not NULL,
 * gets the outputs, count x out_dim). dx, dparams and y may each be NULL.
 * ReLU's derivative at 0 is taken as 0 (PyTorch's choice). For a ReLU MLP
 * with one input and RMS norm or none, dparams alone (dx and y NULL) from
 * 1024 inputs on is taken by a sweep along the inputs that keeps each
 * layer's gradient in a small basis while the ReLU masks hold (a few
 * out_dim-long products per input instead of width x out_dim + 3 width^2
 * per layer); it agrees with the dense path to rounding.
 * work: skit_mlp_backward_workspace_size(mlp) doubles, or NULL to allocate;
 * with work it allocates nothing, and it may run on one MLP from many
 * threads with different work. Errors: as skit_mlp_eval. */
size_t skit_mlp_backward_workspace_size(const skit_mlp *mlp);
int skit_mlp_backward(const skit_mlp *mlp, size_t count, const double *x, const double *dy, double *y,
                      double *dx, double *dparams, double *work);

/* Exact derivatives d^k y / dx^k, k = 0..order (order <= 16), of a scalar-
 * input MLP (in_dim = 1) at x, by truncated power-series arithmetic through
 * every layer, norm and activation. derivs is (order+1) x out_dim row-major:
 * derivs[k*out_dim + j] = k-th derivative of output j.
 * ReLU: derivatives of order >= 2 are 0 and the first is the one-sided
 * derivative from the right at a kink (x where a pre-activation is exactly
 * 0); *at_kink (may be NULL) is set to 1 if any pre-activation was within
 * 1e-12 of 0 so the caller knows the value is one-sided. (Through a ReLU
 * the branch valid just right of x is kept as a series, so a network with a
 * norm between ReLUs still has nonzero higher derivatives.)
 * Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE (in_dim != 1), SKIT_EDOM
 * (order > 16; RMS norm of an all-zero layer with order >= 1, where the
 * derivative does not exist), SKIT_ENONFINITE (x), SKIT_ENOMEM. */
int skit_mlp_taylor(const skit_mlp *mlp, double x, size_t order, double *derivs, int *at_kink);

/* ---- complex inputs (ski-to-go-faster Lemmas 3 and 4) ------------------
 * The MLP continued to complex inputs, every layer by its own formula in
 * complex arithmetic: GeLU z Phi(z) with the complex error function (entire),
 * SiLU z / (1 + e^-z) (poles at i pi (2k + 1)), ReLU z [Re z > 0] (not
 * analytic across Re z = 0), LayerNorm (h - mean) / sqrt(var + 1e-5) and RMS
 * h / (sqrt(mean h^2) + 1e-8) with squares (not |h|^2) and the principal
 * square root (analytic except where the radicand crosses (-inf, 0]).
 * z: count x in_dim complex values as (re, im) pairs; y: count x out_dim
 * pairs. Errors: SKIT_EINVAL (NULL), SKIT_ENONFINITE, SKIT_EOVERFLOW,
 * SKIT_ENOMEM. Outputs may overflow to Inf/NaN far from the real axis. */
int skit_mlp_eval_complex(const skit_mlp *mlp, size_t count, const double *z, double *y);

/* erf(re + i im): Taylor series in long double for |re| < 2.5, Laplace's
 * continued fraction for erfc beyond (relative error ~1e-14 where the value
 * does not overflow). */
void skit_erf_complex(double re, double im, double *out_re, double *out_im);

/* Analyticity of a scalar-input MLP on the disc |z - c| <= radius, by the
 * trapezoid rule on `points` nodes of its boundary, maximised over outputs:
 *   integral = |(1/2pi) oint f dz| / (radius max|f|)   (Cauchy: 0 if analytic)
 *   cauchy   = |f(c) - (1/2pi i) oint f/(z - c) dz| / max|f|   (0 if analytic)
 *   fmax     = max |f| on the circle.
 * For f analytic on a neighbourhood of the disc both are rounding-level once
 * points is large enough (the trapezoid rule converges geometrically there);
 * a singularity or kink inside or on the circle leaves them O(1).
 * NaN when a value overflowed. Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE
 * (in_dim != 1), SKIT_EDOM (radius <= 0, non-finite, points outside
 * 8..2^24), SKIT_ENOMEM. */
typedef struct skit_contour_result {
    double integral, cauchy, fmax;
} skit_contour_result;
int skit_mlp_contour(const skit_mlp *mlp, double c_re, double c_im, double radius, size_t points,
                     skit_contour_result *result);

/* The root in the upper half plane of the first norm's radicand (LayerNorm:
 * var + eps, RMS: mean h^2) as a function of the scalar input z, where the
 * first layer is affine: a branch point of the continued MLP, so a network
 * with a norm is not entire. SKIT_EDOM when the MLP has no norm or constant
 * first-layer weights; SKIT_ESHAPE (in_dim != 1). */
int skit_mlp_norm_branch_point(const skit_mlp *mlp, double *re, double *im);

/* ---- piecewise linearity of ReLU MLPs (ski-to-go-faster Proposition 1) */

/* Locate the breakpoints of a ReLU MLP (in_dim 1) on [a, b]: the x where
 * some activation's input changes sign. The interval is scanned on `grid`
 * equal steps; every step whose sign pattern differs at its ends is
 * bisected (recursively, so several breakpoints in one step are found) to
 * width 1e-14·(b - a). Two sign changes of the same unit inside one step
 * are missed (make grid fine). breaks: capacity values, ascending; *count
 * the number found (if > capacity, only the first capacity are stored and
 * SKIT_ESHAPE is returned with *count set).
 * Errors: SKIT_EINVAL (NULL, activation not ReLU), SKIT_ESHAPE (in_dim != 1,
 * capacity too small), SKIT_EDOM (a >= b, non-finite, grid < 1 or > 2^24),
 * SKIT_ENOMEM. */
int skit_relu_breakpoints(const skit_mlp *mlp, double a, double b, size_t grid, double *breaks,
                          size_t capacity, size_t *count);

/* Max deviation of the MLP from the piecewise-linear interpolant through
 * its values at a, the breaks (ascending, inside (a, b)) and b, measured at
 * `per_piece` equally spaced interior points of every piece, relative to
 * max |f| over the same points, over all output channels. Exact (rounding
 * level) iff the MLP is linear between consecutive knots.
 * Errors: SKIT_EINVAL (NULL), SKIT_ESHAPE (in_dim != 1), SKIT_EDOM (a >= b,
 * breaks not ascending inside (a, b), per_piece < 1), SKIT_ENOMEM. */
int skit_pwl_interpolation_error(const skit_mlp *mlp, double a, double b, const double *breaks,
                                 size_t count, size_t per_piece, double *relative_error);

SKIT_END_DECLS
#endif
