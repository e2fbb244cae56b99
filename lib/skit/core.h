/* skit/core.h — status codes, error reporting, memory, random numbers.
 *
 * Conventions used by every skit module:
 *  - Every function that can fail returns a skit_status; SKIT_OK is 0.
 *  - On failure, the library records a one-line message naming the offending
 *    parameter and its valid range (skit_last_error()) and calls the error
 *    handler if one is installed. The library never prints, exits or aborts.
 *  - Sizes are size_t; matrices are column-major with a leading dimension
 *    (element (i, j) of A is A[i + j*lda]), as OpenBLAS/LAPACKE expect.
 *  - Objects follow create / execute / destroy; a create either succeeds
 *    completely or frees everything it allocated. destroy(NULL) is a no-op.
 */
#ifndef SKIT_CORE_H
#define SKIT_CORE_H

#include <stddef.h>
#include <stdint.h>

/* Every public declaration sits between SKIT_BEGIN_DECLS and SKIT_END_DECLS:
 * C linkage for C++ callers, and default visibility, since the library is
 * built with -fvisibility=hidden and exports exactly what these headers
 * declare. */
#if defined(__GNUC__) || defined(__clang__)
#define SKIT_VISIBILITY_PUSH_DEFAULT _Pragma("GCC visibility push(default)")
#define SKIT_VISIBILITY_POP _Pragma("GCC visibility pop")
#else
#define SKIT_VISIBILITY_PUSH_DEFAULT
#define SKIT_VISIBILITY_POP
#endif
#ifdef __cplusplus
#define SKIT_BEGIN_DECLS extern "C" { SKIT_VISIBILITY_PUSH_DEFAULT
#define SKIT_END_DECLS SKIT_VISIBILITY_POP }
#else
#define SKIT_BEGIN_DECLS SKIT_VISIBILITY_PUSH_DEFAULT
#define SKIT_END_DECLS SKIT_VISIBILITY_POP
#endif

SKIT_BEGIN_DECLS

/* One enum for every module. Keep skit_strerror() in step. */
typedef enum skit_status {
    SKIT_OK = 0,
    SKIT_EINVAL,       /* invalid argument: NULL pointer, unknown enum value */
    SKIT_EDOM,         /* numeric parameter outside its valid range */
    SKIT_ESHAPE,       /* sizes or leading dimensions that do not fit together */
    SKIT_ENONFINITE,   /* NaN or Inf in input data */
    SKIT_ENOMEM,       /* allocation failed */
    SKIT_EOVERFLOW,    /* a size computation would overflow size_t */
    SKIT_ETOOBIG,      /* request's memory estimate exceeds available memory */
    SKIT_EBREAKDOWN,   /* algorithm broke down (e.g. singular leading minor) */
    SKIT_ENOTPD,       /* matrix not positive definite */
    SKIT_ENOCONV,      /* iteration did not converge within its limit */
    SKIT_EIO,          /* file could not be opened, read or written */
    SKIT_EFORMAT,      /* malformed or truncated file */
    SKIT_EUNSUPPORTED, /* feature not built in or not available (e.g. no GPU) */
    SKIT_ELIBRARY,     /* an underlying library (FFTW, LAPACK, CUDA) failed */
    SKIT_STATUS_COUNT
} skit_status;

/* Whether an operator mixes tokens in both directions or only from the
 * past: shared by the Toeplitz, FD-TNO, TNO and attention modules. */
typedef enum skit_causality {
    SKIT_BIDIRECTIONAL = 0, /* full Toeplitz matrix */
    SKIT_CAUSAL = 1         /* lower triangular: y_i depends on x_0..x_i only */
} skit_causality;

/* Where a plan runs (the device field of the plans' options; skit/device.h
 * has the functions that name and check devices). */
typedef enum skit_device {
    SKIT_DEVICE_CPU = 0, /* the default (0, so zeroed options run on the CPU) */
    SKIT_DEVICE_CUDA = 1 /* the CUDA backend (skit/cuda.h), float64 arithmetic */
} skit_device;

/* The arithmetic a plan computes in (the precision field of the plans'
 * options). A float32 plan runs FFTW's single-precision plans (fftwf) on
 * float spectra and float workspaces, and is executed with the _f32 forms
 * of its execute functions, on float arrays; parameters and coefficients
 * are still given in double and rounded once, at create or update.
 * Theorem evaluators and reference paths compute in float64 only.
 * Subnormals: every float32 bound in these headers is normwise (relative
 * to ||x||, not to each element), and float has 2^-149 (about 1.4e-45)
 * as its smallest subnormal: doubles below half of it round to zero when
 * inputs are rounded to float, subnormals (below FLT_MIN, about 1.2e-38)
 * keep only some of their bits, and an output element far below
 * eps ||x|| (a subnormal beside normal values) can come back zero or off
 * by a factor of two. No error is raised for this (it is not overflow);
 * compute in float64 where such elements matter. */
typedef enum skit_precision {
    SKIT_PRECISION_F64 = 0, /* the default (0, so zeroed options compute in double) */
    SKIT_PRECISION_F32 = 1  /* float32: about 2x the speed, eps = 2^-24 */
} skit_precision;

/* How a plan reads an n x d block of data (token i, channel c) with a
 * leading dimension ld (the layout field of the options of the Toeplitz,
 * FD-TNO, SKI, Nystrom, sparse + low-rank and attention plans; the TNO
 * plans have their own, skit/tno.h, which adds a batch). Both layouts are
 * read and written where the caller's block lies: the FFT plans' rows form
 * gathers each group of channels into the FFT buffers, the GEMM-based ones
 * hand BLAS the block transposed, and the attention plans transpose into
 * scratch they hold (docs/layout.md says which does what). */
typedef enum skit_layout {
    SKIT_LAYOUT_COLUMNS = 0, /* x[i + c*ld], ld >= n: column-major (BLAS, Fortran, numpy order 'F'); the default */
    SKIT_LAYOUT_ROWS = 1     /* x[i*ld + c], ld >= d: row-major (C order: numpy's and PyTorch's (n, d)) */
} skit_layout;

/* Short description of a status code ("parameter out of range", ...). */
const char *skit_strerror(int status);

/* The message of the most recent error raised in this thread, e.g.
 * "r = 1 out of range: need 2 <= r <= n (= 64)". Empty if none. */
const char *skit_last_error(void);
/* Source location (file:line) where the last error of this thread was raised. */
const char *skit_last_error_location(void);
void skit_clear_error(void);

/* Called on every raised error (after the message is recorded). NULL (the
 * default) means: record only. Tests install a handler that aborts so that an
 * unexpected error stops at its source. Returns the previous handler. */
typedef void (*skit_error_handler)(int status, const char *message,
                                   const char *file, int line);
skit_error_handler skit_set_error_handler(skit_error_handler handler);

/* Library version string, e.g. "0.1.0". */
const char *skit_version(void);

/* ---- memory ----------------------------------------------------------- */

/* 64-byte aligned allocation of count*size bytes with an overflow check.
 * Returns NULL (and raises SKIT_EOVERFLOW or SKIT_ENOMEM) on failure.
 * Zero-size requests return a valid unique pointer. Free with skit_free. */
void *skit_malloc(size_t count, size_t size);
/* Same, zero-filled. */
void *skit_calloc(size_t count, size_t size);
void skit_free(void *p);

/* *out = a*b; returns SKIT_EOVERFLOW (without raising) on overflow. */
int skit_size_mul(size_t a, size_t b, size_t *out);
/* *out = a+b; returns SKIT_EOVERFLOW (without raising) on overflow. */
int skit_size_add(size_t a, size_t b, size_t *out);

/* Bytes of memory currently available to this process: the smallest of
 * MemAvailable (/proc/meminfo, else physical pages), the headroom under
 * RLIMIT_AS (ulimit -v) and under the process's cgroup memory limit. 0 if
 * unknown. */
size_t skit_memory_available(void);
/* SKIT_OK if `bytes` fits in available memory, else raises SKIT_ETOOBIG with
 * a message naming `what` and both byte counts. */
int skit_memory_check(size_t bytes, const char *what);
/* Peak resident set size of this process in bytes (VmHWM), 0 if unknown. */
size_t skit_memory_peak_rss(void);

/* ---- random numbers --------------------------------------------------- */

/* xoshiro256** seeded by splitmix64: the same seed gives the same stream on
 * every platform and thread count. Not for cryptography. */
typedef struct skit_rng {
    uint64_t s[4];
} skit_rng;

void skit_rng_seed(skit_rng *rng, uint64_t seed);
/* Independent stream number `stream` derived from `seed` (for per-channel or
 * per-thread generators that do not depend on scheduling). */
void skit_rng_seed_stream(skit_rng *rng, uint64_t seed, uint64_t stream);
uint64_t skit_rng_u64(skit_rng *rng);
/* Uniform on [0, 1) with 53 random bits. */
double skit_rng_uniform(skit_rng *rng);
/* Uniform on [a, b). */
double skit_rng_uniform_range(skit_rng *rng, double a, double b);
/* Standard normal (Marsaglia polar method; uses only log and sqrt). */
double skit_rng_normal(skit_rng *rng);
/* Uniform integer in [0, bound), bound >= 1, without modulo bias. */
uint64_t skit_rng_below(skit_rng *rng, uint64_t bound);
/* Fill x[0..n) with standard normals / uniforms on [a, b). */
void skit_rng_fill_normal(skit_rng *rng, double *x, size_t n);
void skit_rng_fill_uniform(skit_rng *rng, double *x, size_t n, double a, double b);

/* ---- small helpers used across modules -------------------------------- */

/* SKIT_OK if all x[0..n) are finite, else raises SKIT_ENONFINITE naming
 * `what` and the first bad index. */
int skit_check_finite(const double *x, size_t n, const char *what);
/* Same for an m x n column-major block with leading dimension ld. */
int skit_check_finite_matrix(const double *a, size_t m, size_t n, size_t ld,
                             const char *what);

/* Wall-clock seconds from a monotonic clock (for benchmarks and progress). */
double skit_clock_seconds(void);

SKIT_END_DECLS
#endif /* SKIT_CORE_H */
