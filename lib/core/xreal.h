/* xreal.h — the extended-precision real type of the computations that must
 * reach past double's rounding floor (the MLP and the DFT of
 * skit_freq_impulse_extended): __float128 with libquadmath when configure
 * found it (HAVE_QUADMATH, 113-bit mantissa, unit roundoff 1e-34), else
 * long double (x87: 64-bit mantissa, 5e-20; elsewhere possibly double). */
#ifndef SKIT_CORE_XREAL_H
#define SKIT_CORE_XREAL_H

#include "config.h"

#include <float.h>
#include <math.h>

/* configure tests the compiler it is run with (gcc); a build of the same
 * sources by clang (the fuzz targets, tests/fuzz) finds no quadmath.h, which
 * is gcc's own header, and links no libquadmath: it takes long double. */
#if defined(HAVE_QUADMATH) && !defined(__clang__)
#define SKIT_XREAL_QUAD 1
#include <quadmath.h>
typedef __float128 skit_xreal;
#define XR_FN(f) f##q
#define XR_EPSILON FLT128_EPSILON
#define XR_PI M_PIq
#define XR_SQRT1_2 M_SQRT1_2q
#else
typedef long double skit_xreal;
#define XR_FN(f) f##l
#define XR_EPSILON LDBL_EPSILON
#define XR_PI 3.141592653589793238462643383279502884L
#define XR_SQRT1_2 0.707106781186547524400844362104849039L
#endif

#define xr_cos XR_FN(cos)
#define xr_sin XR_FN(sin)
#define xr_exp XR_FN(exp)
#define xr_erfc XR_FN(erfc)
#define xr_sqrt XR_FN(sqrt)
#define xr_fabs XR_FN(fabs)
#define xr_hypot XR_FN(hypot)

#endif
