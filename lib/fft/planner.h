/* planner.h — FFTW planning for every module that makes FFTW plans; not
 * installed. */
#ifndef SKIT_FFT_PLANNER_H
#define SKIT_FFT_PLANNER_H

/* Call before creating or destroying any FFTW plan: makes FFTW's planner
 * thread-safe (once per process). */
void skit_fftw_planner_init(void);

#endif
