/* backward_f32.c — the vector–Jacobian product of exact softmax attention
 * in float32 (skit_attention_exact_backward(_masked)_f32): backward.c
 * compiled again with R = float, sgemm for every product. */
#define ATTN_BACKWARD_SINGLE 1
#include "backward.c"
