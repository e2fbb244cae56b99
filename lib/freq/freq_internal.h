/* freq_internal.h — private to the freq module: what an FD-TNO plan does on
 * its circulant engine, in each precision (fdtno_spectra.c, compiled again
 * by fdtno_spectraf.c). */
#ifndef SKIT_FREQ_INTERNAL_H
#define SKIT_FREQ_INTERNAL_H

#include <stddef.h>

#include "fft/circulant.h"

/* The engine's d spectra from a response (grid_size x width row-major, as
 * skit_fdtno_plan_set_response takes it), scaled by 1/N in double and
 * rounded once to the engine's precision; causal: the imaginary parts by
 * the Hilbert step on the engine, else the response's, 0 at 0 and pi.
 * work: the engine's workspace. */
void fdtno_set_spectra(skit_circulant *engine, const double *response, size_t width, size_t d,
                       int causal, double *work);
void fdtno_set_spectra_f32(skit_circulantf *engine, const double *response, size_t width, size_t d,
                           int causal, float *work);

/* The d circulant kernels (N values each) into k + c * ldk, widened to
 * double. */
void fdtno_impulse(const skit_circulant *engine, size_t d, double *k, size_t ldk, double *work);
void fdtno_impulse_f32(const skit_circulantf *engine, size_t d, double *k, size_t ldk, float *work);

#endif
