/* correlatef.c — the FFT cross-correlations in single precision
 * (skit_correlatef_*, fftwf plans, float buffers): correlate.c compiled
 * again with R = float, the coefficient gradient of float32 plans. */
#define SKIT_CORRELATE_SINGLE 1
#include "correlate.c"
