/* skit.h — the one header to include. Each module also has its own header
 * under skit/ for finer-grained use. */
#ifndef SKIT_H
#define SKIT_H

#include "skit/core.h"
#include "skit/fft.h"
#include "skit/io.h"
#include "skit/toeplitz.h"
#include "skit/spectral.h"
#include "skit/ski.h"
#include "skit/mlp.h"
#include "skit/freq.h"
#include "skit/attention.h"
#include "skit/tno.h"
#include "skit/cuda.h"

#endif
