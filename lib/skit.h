/* skit.h — the one header to include. Each module also has its own header
 * under skit/ for finer-grained use; they are listed here from the bottom
 * of the library up (docs/development.md). */
#ifndef SKIT_H
#define SKIT_H

/* clang-format off */
#include "skit/core.h"
#include "skit/io.h"
#include "skit/fft.h"
#include "skit/spectral.h"
#include "skit/mlp.h"
#include "skit/device.h"
#include "skit/cuda.h"
#include "skit/toeplitz.h"
#include "skit/ski.h"
#include "skit/freq.h"
#include "skit/attention.h"
#include "skit/tno.h"
/* clang-format on */

#endif
