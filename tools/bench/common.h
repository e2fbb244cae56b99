/* common.h — timing for `skit bench`: setup stays outside the timer; the
 * reported time is the median of several samples after a warm-up, each
 * sample repeating the call enough times to last at least min_sample_s. */
#ifndef SKIT_BENCH_COMMON_H
#define SKIT_BENCH_COMMON_H

#include <stddef.h>

typedef void (*bench_fn)(void *context);

typedef struct bench_timing {
    double median; /* seconds per call */
    double min, max;
    size_t samples, calls_per_sample;
} bench_timing;

/* Time fn(context). */
void bench_measure(bench_fn fn, void *context, double min_sample_s, size_t samples,
                   bench_timing *out);

/* Least-squares slope of log t against log n. */
double bench_loglog_slope(const double *n, const double *t, size_t count);

/* Runs an external peer (e.g. python3 with scipy) and reads one number from
 * its stdout; returns 0 and sets *seconds, or -1 if the peer is missing or
 * failed (the caller reports "not installed"). */
int bench_run_peer(const char *const argv[], double *seconds);

/* Subcommands of `skit bench`, one per area. */
int bench_toeplitz(int argc, char **argv); /* tools/bench/bench_toeplitz.c */
int bench_ski(int argc, char **argv);      /* tools/bench/bench_ski.c */
int bench_mra(int argc, char **argv);      /* tools/bench/bench_mra.c */
int bench_tno(int argc, char **argv);      /* tools/bench/bench_tno.c */
int bench_device(int argc, char **argv);   /* tools/bench/bench_device.c */

#endif
