/* fdtno_spectraf.c — an FD-TNO plan's work on the float circulant engine
 * (fdtno_*_f32): fdtno_spectra.c compiled again with R = float. */
#define FDTNO_SINGLE 1
#include "fdtno_spectra.c"
