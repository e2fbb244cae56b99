/* internal.h — helpers shared by the library's source files; not installed. */
#ifndef SKIT_INTERNAL_H
#define SKIT_INTERNAL_H

#include "skit/core.h"

#if defined(__GNUC__)
#define SKIT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SKIT_PRINTF(a, b)
#endif

/* Record an error (message, file, line), call the handler, return `status`.
 * Use through SKIT_ERROR so the location is filled in. */
int skit_error_raise(int status, const char *file, int line, const char *fmt, ...)
    SKIT_PRINTF(4, 5);

/* `return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need 2 <= r <= n (= %zu)", r, n);` */
#define SKIT_ERROR(status, ...) skit_error_raise((status), __FILE__, __LINE__, __VA_ARGS__)

/* Argument checks that raise with the parameter's name. */
#define SKIT_REQUIRE_PTR(p)                                                     \
    do {                                                                        \
        if ((p) == NULL) return SKIT_ERROR(SKIT_EINVAL, "%s must not be NULL", #p); \
    } while (0)

/* Propagate a non-OK status (already raised by the callee). */
#define SKIT_TRY(expr)                                                          \
    do {                                                                        \
        int skit_try_status_ = (expr);                                          \
        if (skit_try_status_ != SKIT_OK) return skit_try_status_;               \
    } while (0)

/* Call before creating or destroying any FFTW plan: makes FFTW's planner
 * thread-safe (once per process). */
void skit_fftw_planner_init(void);

#define SKIT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SKIT_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
