/* skit/cuda.h — optional CUDA backend. (Being written.) */
#ifndef SKIT_CUDA_H
#define SKIT_CUDA_H
#include "skit/core.h"
#endif
