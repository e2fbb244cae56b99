/* skit/ski.h — kernels, interpolation, Nystrom and SKI, Theorem 1. (Being written.) */
#ifndef SKIT_SKI_H
#define SKIT_SKI_H
#include "skit/core.h"
#endif
