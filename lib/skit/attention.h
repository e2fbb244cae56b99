/* skit/attention.h — exact attention, MRA, baselines. (Being written.) */
#ifndef SKIT_ATTENTION_H
#define SKIT_ATTENTION_H
#include "skit/core.h"
#endif
