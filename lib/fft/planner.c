/* planner.c — FFTW's planner (fftw_plan_*, fftw_destroy_plan) is not
 * thread-safe by default. FFTW >= 3.3.5 can make it so itself; we switch that
 * on once, before the first plan any skit module makes, so that user threads
 * creating skit plans concurrently are safe. (Executing plans on new arrays
 * was always thread-safe.) */
#include "config.h"

#include <fftw3.h>
#include <pthread.h>

#include "fft/planner.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_thread_safe(void)
{
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe(); /* the float32 plans' planner is another */
}

void skit_fftw_planner_init(void) { pthread_once(&once, make_thread_safe); }
