/* sweepf.c — the sweep of sweep.c in single precision (the *_f32 entry
 * points of mlp_internal.h): sweep.c compiled again with R = float. */
#define MLP_SWEEP_SINGLE 1
#include "sweep.c"
