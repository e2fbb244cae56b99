/* ski_backwardf.c — SKI-TNO's backward in single precision
 * (tno_ski_backward_run_f32): ski_backward.c compiled again with R = float. */
#define TNO_SKI_SINGLE 1
#include "ski_backward.c"
