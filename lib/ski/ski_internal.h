/* ski_internal.h — helpers shared by the SKI area's source files; not installed. */
#ifndef SKIT_SKI_INTERNAL_H
#define SKIT_SKI_INTERNAL_H

#include "skit/ski.h"

/* Deep copy of interpolation weights. */
int ski_weights_copy(const skit_interp_weights *src, skit_interp_weights **dst);
/* Dense r x r Toeplitz matrix A(i, j) = coeffs[i - j + r - 1]. */
void ski_toeplitz_fill(size_t r, const double *coeffs, double *A, size_t lda);
/* SKIT_OK if W looks like the output of skit_interp_weights_create. */
int ski_check_weights(const skit_interp_weights *W);
/* A (r x r), F (n x r), B (r x n), column-major with ld = rows, for the
 * observation points 0..n-1 and r inducing points uniform on [lo, hi]. */
int ski_nystrom_factors(const skit_kernel *kernel, size_t n, size_t r, double lo, double hi,
                        double *A, double *F, double *B);

#endif
