/* planner.h — FFTW planning for every module that makes FFTW plans; not
 * installed. */
#ifndef SKIT_FFT_PLANNER_H
#define SKIT_FFT_PLANNER_H

#include <fftw3.h>
#include <stddef.h>

#include "skit/fft.h"

/* Call before creating or destroying any FFTW plan: makes FFTW's planner
 * thread-safe (once per process). */
void skit_fftw_planner_init(void);

/* The lock skit holds around FFTW's planner and wisdom (planner.c). */
void skit_fftw_lock(void);
void skit_fftw_unlock(void);

/* FFTW's flags for `planner` (DEFAULT resolved to the process default);
 * SKIT_EINVAL for an unknown value. */
int skit_fftw_flags(skit_planner planner, unsigned *flags);

/* Out-of-place r2c (real -> complex_buf, N/2+1 interleaved complex) and
 * c2r plans of length N (<= INT_MAX), under the lock; both or none.
 * SKIT_ELIBRARY (its message says when wisdom-only found no wisdom). */
int skit_fftw_plan_real_pair(size_t N, double *real, double *complex_buf, unsigned flags, fftw_plan *r2c,
                             fftw_plan *c2r);
/* fftw_destroy_plan under the lock; NULL is fine. */
void skit_fftw_destroy(fftw_plan plan);
/* The same two in single precision (fftwf: the float32 engine). Its
 * wisdom is fftwf's own, which skit's wisdom functions carry after the
 * double's. */
int skit_fftwf_plan_real_pair(size_t N, float *real, float *complex_buf, unsigned flags, fftwf_plan *r2c,
                              fftwf_plan *c2r);
void skit_fftwf_destroy(fftwf_plan plan);

/* FFTW's operation count of one execution of plan: add + mul + 2 fma
 * (fftw_flops; a fused multiply-add is two operations), under the lock
 * (fftw_flops reads the planner's global state). */
double skit_fftw_plan_flops(fftw_plan plan);
double skit_fftwf_plan_flops(fftwf_plan plan);

/* A pair of length N for flags, shared between callers (planner.c says
 * why): planned on 64-byte aligned buffers of the engine's slice layout
 * (real part N rounded up to a 64-byte line plus one line, then N/2+1
 * complex), so execute it only on arrays of that alignment. Release it
 * with the release function, never with fftw_destroy_plan. Errors as
 * skit_fftw_plan_real_pair, and SKIT_ENOMEM. */
int skit_fftw_pair_acquire(size_t N, unsigned flags, fftw_plan *r2c, fftw_plan *c2r);
void skit_fftw_pair_release(fftw_plan r2c, fftw_plan c2r);
int skit_fftwf_pair_acquire(size_t N, unsigned flags, fftwf_plan *r2c, fftwf_plan *c2r);
void skit_fftwf_pair_release(fftwf_plan r2c, fftwf_plan c2r);

/* A small integer a user of shared pairs measured once for the pair
 * whose r2c this is (the circulant engine's choice of inverse), kept
 * while the pair stays shared so that later users need not measure it
 * again: choice answers -1 when none was set or the pair is not shared
 * (then set_choice does nothing). */
int skit_fftw_pair_choice(fftw_plan r2c);
void skit_fftw_pair_set_choice(fftw_plan r2c, int choice);
int skit_fftwf_pair_choice(fftwf_plan r2c);
void skit_fftwf_pair_set_choice(fftwf_plan r2c, int choice);

#endif
