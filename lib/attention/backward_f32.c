/* backward_f32.c — the vector–Jacobian product of exact softmax attention
 * in float32 (the float32 plans' backward, attn_exact_backward_f32):
 * backward.c compiled again with R = float, sgemm for every product. */
#define ATTN_BACKWARD_SINGLE 1
#include "backward.c"
