/* ski_sparsef.c — the SKI plan's sparse action in single precision
 * (ski_sparse_run_f32): ski_sparse.c compiled again with R = float. */
#define SKI_SPARSE_SINGLE 1
#include "ski_sparse.c"
