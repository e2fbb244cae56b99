/* circulantf.c — the circulant engine in single precision
 * (skit_circulantf_*, fftwf plans, float spectra): circulant.c compiled
 * again with R = float. */
#define SKIT_CIRCULANT_SINGLE 1
#include "circulant.c"
