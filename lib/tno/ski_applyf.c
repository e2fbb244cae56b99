/* ski_applyf.c — SKI-TNO's per-call arithmetic in single precision
 * (tno_ski_*_f32): ski_apply.c compiled again with R = float. */
#define TNO_SKI_SINGLE 1
#include "ski_apply.c"
