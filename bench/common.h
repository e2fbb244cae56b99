/* common.h — what every `skit bench` target shares: timing (setup outside
 * the timer, a warm-up, the median of samples), log-log slopes, peers
 * (python3 with scipy), the floors an operator is compared with (bare FFTW
 * transforms, a GEMM, a bare store) measured in the same run, and the
 * state of the machine (threads, cores, load) recorded in the header. */
#ifndef SKIT_BENCH_COMMON_H
#define SKIT_BENCH_COMMON_H

#include <fftw3.h>
#include <stddef.h>

#include "skit.h"
#include "cli/cli.h"
#include "cli/table.h"

/* ---- timing ------------------------------------------------------------ */

typedef void (*bench_fn)(void *context);

typedef struct bench_timing {
    double median; /* seconds per call */
    double min, max;
    size_t samples, calls_per_sample;
} bench_timing;

/* Calls per sample so that a sample lasts at least min_sample seconds when
 * one call took `once` (1 when one call is long enough), at most max_calls. */
size_t bench_calls_per_sample(double once, double min_sample, size_t max_calls);

/* The median of count values (sorted in place; count >= 1). */
double bench_median(double *values, size_t count);

/* Time fn(context): one warm-up call (caches, page faults, FFTW wisdom,
 * thread pools) that also sets the calls per sample, then `samples` (1..64)
 * samples; seconds per call. */
void bench_measure(bench_fn fn, void *context, double min_sample_s, size_t samples,
                   bench_timing *out);

/* Times k bodies (k <= BENCH_MAX_BODIES) in `rounds` (<= BENCH_MAX_ROUNDS)
 * interleaved rounds, so that load changes during the run hit all of them
 * alike: one warm-up call each (which sets its calls per sample), then
 * every round one sample of every body; median[i] is the median over the
 * rounds of body i's seconds per call. */
#define BENCH_MAX_BODIES 4
#define BENCH_MAX_ROUNDS 15
void bench_measure_interleaved(bench_fn *fns, void **contexts, size_t k, double min_sample,
                               size_t rounds, double *median);

/* Seconds per call of fn(context) as the median of the single calls made
 * while calls repeat for min_sample seconds (at most 4096): unlike the mean,
 * it ignores the scheduler stalls of a thread that lost its core. */
double bench_call_median(bench_fn fn, void *context, double min_sample);

/* Least-squares slope of log t against log n. */
double bench_loglog_slope(const double *n, const double *t, size_t count);

/* max |a - ref| / max |ref| (max |a - ref| when ref = 0; NaN propagates). */
double bench_max_relative_error(const double *a, const double *ref, size_t count);

/* The Toeplitz FFT matvec as a timed body (a bench_fn): y = T x for the
 * plan's channels, n rows each (x, y channel-major, ld = n). */
typedef struct bench_matvec {
    const skit_toeplitz_plan *plan;
    const double *x;
    double *y;
    size_t n;
} bench_matvec;
void bench_run_matvec(void *matvec);

/* ---- peers ------------------------------------------------------------- */

#define BENCH_PYTHON "/usr/bin/python3"

/* 1 if BENCH_PYTHON can import `module`. */
int bench_python_has(const char *module);

/* A python peer kept running across requests, so that the interpreter
 * starts and imports once per run rather than once per size. `script`
 * defines measure(*words) — returning one number or a tuple — and ends
 * with BENCH_PEER_SERVE: each request line is split into words and
 * answered with one line of numbers (nan when measure raised; the error
 * goes to stderr). The peer blocks on its input between requests, so it
 * takes no CPU from what skit times meanwhile. */
typedef struct bench_peer {
    const char *script;
    long pid;   /* 0: not started */
    int fd;     /* socket to the peer's stdin and stdout; -1 when closed */
    int failed; /* it could not start or it died: every answer is NaN */
} bench_peer;

#define BENCH_PEER_SERVE                                                            \
    "for line in iter(sys.stdin.readline, ''):\n"                                   \
    "    try:\n"                                                                    \
    "        out = measure(*line.split())\n"                                        \
    "    except Exception as e:\n"                                                  \
    "        print('peer: %r' % e, file=sys.stderr)\n"                              \
    "        out = float('nan')\n"                                                  \
    "    print(*(repr(float(v)) for v in (out if isinstance(out, tuple) else (out,))), flush=True)\n"

/* Only records the script: the peer starts at its first request. */
void bench_peer_init(bench_peer *peer, const char *script);
/* Sends `request` (one line without its newline; the peer is started first
 * if needed) and reads the `count` numbers of its answer into out[0..count);
 * 0, or -1 with out all NaN if the peer failed or a number is not finite. */
int bench_peer_ask(bench_peer *peer, const char *request, double *out, size_t count);
/* Ends the peer (end of input) and waits for it; harmless if never started. */
void bench_peer_close(bench_peer *peer);

/* ---- floors ------------------------------------------------------------ */

/* Bare FFTW transforms of one length, planned as asked (out of place), with one set of buffers per OpenMP thread:
 * the r2c reads real + t * real_stride (and keeps it), writes spectrum +
 * t * spectrum_stride; the c2r writes back + t * real_stride. */
typedef struct bench_fftw {
    fftw_plan r2c, c2r;
    double *real, *back;
    fftw_complex *spectrum;
    size_t real_stride, spectrum_stride;
    int buffers; /* sets of buffers: the OpenMP threads */
} bench_fftw;

/* Plans length-`length` transforms with `planner` (skit/fft.h), buffers
 * zeroed. SKIT_OK, SKIT_ENOMEM, or SKIT_ELIBRARY when FFTW cannot plan
 * (nothing is left allocated). */
int bench_fftw_create(bench_fftw *f, size_t length, skit_planner planner);
/* FFTW's planner flags for a skit planner (DEFAULT: skit's default) */
unsigned bench_fftw_flags(skit_planner planner);
void bench_fftw_destroy(bench_fftw *f);
/* count r2c (pairs: each followed by a c2r, as a matvec or a Hilbert step
 * runs them) over `threads` OpenMP threads (<= f->buffers), each on its own
 * buffers. */
void bench_fftw_run(const bench_fftw *f, size_t count, int pairs, int threads);

/* C (rows x cols) = A (rows x inner) B (inner x cols), row-major, with the
 * columns split over the OpenMP threads in multiples of 8, each part one
 * OpenBLAS GEMM (OpenBLAS on one thread, as the library's RPE runs it). */
void bench_gemm(size_t rows, size_t inner, size_t cols, const double *a, const double *b, double *c);

/* A bare store of rows x cols doubles into c, the rows over the threads. */
void bench_store(size_t rows, size_t cols, double *c);

/* ---- the machine ------------------------------------------------------- */

/* The planner of every bench (before parsing the options): MEASURE, the
 * planner of a plan reused, at most BENCH_PLAN_SECONDS per transform so
 * that a first run without wisdom stays short. */
#define BENCH_PLAN_SECONDS 0.25
void bench_planner_defaults(cli_common *common);
/* "measure, <= 0.25 s per transform, wisdom imported" ...: what planned */
const char *bench_planner_text(const cli_common *common);

/* The machine header every bench prints (one comment line each): CPU
 * model, the ISA flags FFTW and OpenBLAS use, cores, threads, load, and
 * the planner and precision of the run. */
void bench_machine_header(cli_table *table, const cli_common *common, const char *precision);
/* The "model name" of /proc/cpuinfo and the ISA flags FFTW and BLAS use. */
void bench_cpu_description(char *model, size_t model_size, char *flags, size_t flags_size);

int bench_threads(void);          /* OpenMP threads a parallel region gets */
int bench_cores(void);            /* online cores (at least 1) */
double bench_load_average(void);  /* 1-minute load average, NaN if unknown */

/* ---- the targets of `skit bench`, one per area ------------------------- */

/* skit-bench (`skit bench`): dispatch to a target (bench/cmd_bench.c). */
int cmd_bench(int argc, char **argv);

int bench_toeplitz(int argc, char **argv); /* bench/bench_toeplitz.c */
int bench_ski(int argc, char **argv);      /* bench/bench_ski.c */
int bench_mra(int argc, char **argv);      /* bench/bench_mra.c */
int bench_tno(int argc, char **argv);      /* bench/bench_tno.c */
int bench_device(int argc, char **argv);   /* bench/bench_device.c */
int bench_precision(int argc, char **argv); /* bench/bench_precision.c */
/* The PyTorch peer of `skit bench tno` at the shapes (its --shapes text),
 * skit's plans from `base` (kind, causality, precision set per row); notes
 * (and stderr unless quiet) in t (bench/bench_tno_peer.c). */
int bench_tno_peer(const char *shapes, const skit_tno_options *base, uint64_t seed, int quiet, cli_table *t);
/* skit's float32 forwards over FFTW's bare transforms at the shapes, one
 * thread, as notes of t (bench/bench_tno_peer.c), with or without torch. */
int bench_tno_floor(const char *shapes, const skit_tno_options *base, uint64_t seed, int quiet, cli_table *t);

#endif
