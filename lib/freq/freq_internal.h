/* freq_internal.h — declarations shared by the files of lib/freq; not installed. */
#ifndef SKIT_FREQ_INTERNAL_H
#define SKIT_FREQ_INTERNAL_H

#include "skit/mlp.h"

/* Push Taylor series through the MLP. input: terms x in_dim row-major, the
 * normalised coefficients (f^(k)/k!) of each input as a function of the
 * expansion variable; output: terms x out_dim row-major, normalised
 * coefficients of each output. terms <= SKIT_SERIES_MAX; arguments are
 * trusted (callers validate). Errors: SKIT_EDOM (RMS norm of a zero layer),
 * SKIT_ENOMEM. */
int skit_mlp_taylor_series(const skit_mlp *mlp, size_t terms, const double *input,
                           double *output, int *at_kink);

#endif
