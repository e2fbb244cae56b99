/* mra_backward_f32.c — MRA-2's backward in float32 (the float32 plans'
 * backward, attn_mra2_backward_f32): mra_backward_blocked.c compiled again
 * with R = float, sgemm for every product. */
#define ATTN_MRA_BACKWARD_SINGLE 1
#include "mra_backward_blocked.c"
