/* backwardf.c — the backward of backward.c in single precision
 * (skit_mlp_backward_dots_f32 of mlp/batch.h): backward.c compiled again
 * with R = float. */
#define MLP_BACKWARD_SINGLE 1
#include "backward.c"
