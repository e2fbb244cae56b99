/* transposef.c — the transposes of transpose.c in single precision
 * (tno_transpose_ld_f32): transpose.c compiled again with R = float. */
#define TNO_TRANSPOSE_SINGLE 1
#include "transpose.c"
