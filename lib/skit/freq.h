/* skit/freq.h — Hilbert transform, FD-TNO, MLP with Taylor-mode derivatives, decay. (Being written.) */
#ifndef SKIT_FREQ_H
#define SKIT_FREQ_H
#include "skit/core.h"
#endif
