/* skit/fft.h — FFT lengths and FFTW planning. Every FFT-based operator of
 * skit runs on FFTW through one circulant-product engine (lib/fft); this
 * header holds what a user needs of it directly: how hard FFTW plans
 * (skit_planner, carried by the plan options of skit/toeplitz.h and
 * skit/tno.h) and FFTW's wisdom, the plans it remembers. */
#ifndef SKIT_FFT_H
#define SKIT_FFT_H

#include "skit/core.h"

SKIT_BEGIN_DECLS

/* Smallest integer >= n whose prime factors are all in {2, 3, 5, 7}
 * (fast for FFTW). SKIT_EOVERFLOW if none fits in size_t. */
int skit_fft_good_length(size_t n, size_t *length);

/* How FFTW chooses its algorithms when a plan is created: FFTW's planner
 * flags of the same names. ESTIMATE plans in microseconds from a model;
 * MEASURE times candidates (ms to s per length, paid once per length and
 * process, or never with wisdom) and gives the fastest transforms a plan
 * reused many times wants; PATIENT and EXHAUSTIVE time more candidates.
 * WISDOM_ONLY plans only from wisdom already loaded (any rigor) and fails
 * with SKIT_ELIBRARY otherwise. Results agree across planners to rounding
 * (different algorithms, different rounding). */
typedef enum skit_planner {
    SKIT_PLANNER_DEFAULT = 0, /* the process default (skit_fft_set_default_planner) */
    SKIT_PLANNER_ESTIMATE = 1,
    SKIT_PLANNER_MEASURE = 2,
    SKIT_PLANNER_PATIENT = 3,
    SKIT_PLANNER_EXHAUSTIVE = 4,
    SKIT_PLANNER_WISDOM_ONLY = 5
} skit_planner;

/* The planner SKIT_PLANNER_DEFAULT stands for: ESTIMATE until set (the
 * library makes no assumption on how often a plan is reused).
 * Errors: SKIT_EINVAL (planner unknown, or SKIT_PLANNER_DEFAULT). */
int skit_fft_set_default_planner(skit_planner planner);
skit_planner skit_fft_default_planner(void);

/* The most seconds MEASURE, PATIENT or EXHAUSTIVE spend planning one
 * transform (FFTW's fftw_set_timelimit: past it FFTW keeps the best plan
 * found so far); a negative value (the default) for no limit. MEASURE of
 * a long length can take a long time, more on a loaded machine: a limit
 * bounds a first run, wisdom removes the cost.
 * Wisdom of a plan the limit cut short keeps that impatience: WISDOM_ONLY
 * does not accept it (plan wisdom for reuse without a limit). */
void skit_fft_set_time_limit(double seconds);

/* "estimate", "measure", "patient", "exhaustive", "wisdom-only" (DEFAULT:
 * the default's name); NULL for an unknown value. */
const char *skit_planner_name(skit_planner planner);
/* The planner of one of the names above. SKIT_EINVAL (naming the valid
 * names) for any other text. */
int skit_planner_parse(const char *name, skit_planner *planner);

/* How a circulant product's inverse transform runs (skit/toeplitz.h's
 * plans, and every operator built on them). FFTW's c2r, or a second r2c
 * through the Hartley identity: under ESTIMATE FFTW's c2r is slower than
 * its r2c at many lengths, under MEASURE neither form wins at every
 * length. AUTO: the Hartley form under ESTIMATE and WISDOM_ONLY; under
 * MEASURE, PATIENT and EXHAUSTIVE each form is timed once per length and
 * the faster kept. The two forced forms are for comparing them; the
 * results agree to rounding. */
typedef enum skit_fft_inverse {
    SKIT_FFT_INVERSE_AUTO = 0,
    SKIT_FFT_INVERSE_HARTLEY = 1,
    SKIT_FFT_INVERSE_C2R = 2
} skit_fft_inverse;

/* "auto", "hartley", "c2r"; NULL for an unknown value. */
const char *skit_fft_inverse_name(skit_fft_inverse inverse);

/* Wisdom: FFTW's memory of the plans it measured, for this machine and
 * FFTW build. Importing adds to what the process knows; plans made after
 * it with any planner use it. All wisdom calls and every plan of the
 * circulant engine (all plans of skit/toeplitz.h, skit/tno.h, skit/freq.h's
 * FD-TNO, skit/ski.h) hold one lock, so they may be called from any thread;
 * FFTW's own planner lock covers the other plans (the Hilbert transforms
 * of skit/freq.h, which always plan with ESTIMATE).
 * Wisdom carries both precisions: the text is FFTW's double wisdom
 * followed by its float (fftwf) wisdom, the plans of float32 operators;
 * import takes either or both forms, each by its precision (a file of
 * double wisdom alone still imports).
 * Every form is checked against the text FFTW writes before FFTW reads
 * it (FFTW aborts the process on some malformed entries).
 * import_file: SKIT_EIO (cannot open or read) or SKIT_EFORMAT (not FFTW
 * wisdom, or wisdom of another FFTW build; not text: a NUL byte; larger
 * than 16 MiB); nothing is imported then, or only the forms before the
 * bad one. SKIT_ENOMEM.
 * export_file writes what the process knows, merged with what the file
 * already holds, atomically (a temporary file then rename): the file is
 * whole, old or new, never half-written. Concurrent writers, threads or
 * processes, take turns (an exclusive flock on the file's directory) and
 * each merges the file its predecessor wrote, so none loses wisdom; the
 * process imports the file's wisdom on the way. A symbolic link is
 * followed (the file it names is replaced, also one that does not exist
 * yet); a device or FIFO is written directly. SKIT_EIO if it cannot
 * write (the message ends with the system's reason), SKIT_EFORMAT if the
 * file holds something other than wisdom (it is kept), SKIT_EINVAL for
 * an empty or too long name, SKIT_ENOMEM. */
int skit_fft_wisdom_import_file(const char *path);
int skit_fft_wisdom_export_file(const char *path);
/* Wisdom as FFTW's text (caller frees with skit_free), NULL when out of
 * memory; import from such text: SKIT_EFORMAT if FFTW rejects it. */
char *skit_fft_wisdom_export_string(void);
int skit_fft_wisdom_import_string(const char *text);
/* Forget all wisdom (plans already made are kept). */
void skit_fft_wisdom_forget(void);

/* Plan, with `planner`, the transforms skit's circulant engine uses for an
 * FFT of length N (a real-to-complex and a complex-to-real, out of place,
 * 64-byte aligned), and drop them: what stays is the wisdom, and, for
 * planners other than ESTIMATE, the time FFTW took (*seconds, may be
 * NULL). What `skit wisdom` runs for each length.
 * Errors: SKIT_EDOM (N = 0 or above FFTW's int), SKIT_EINVAL (planner),
 * SKIT_ENOMEM, SKIT_ELIBRARY (FFTW could not plan; WISDOM_ONLY without
 * wisdom for N). _f32: the same for the float32 engine (fftwf). */
int skit_fft_plan_length(size_t length, skit_planner planner, double *seconds);
int skit_fft_plan_length_f32(size_t length, skit_planner planner, double *seconds);

SKIT_END_DECLS
#endif
