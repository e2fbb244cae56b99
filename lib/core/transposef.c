/* transposef.c — the transposes of transpose.c in single precision
 * (skit_transpose_ld_f32): transpose.c compiled again with R = float. */
#define SKIT_TRANSPOSE_SINGLE 1
#include "transpose.c"
