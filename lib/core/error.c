/* error.c — status strings, per-thread last-error record, replaceable handler. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static const char *const status_text[SKIT_STATUS_COUNT] = {
    [SKIT_OK] = "success",
    [SKIT_EINVAL] = "invalid argument",
    [SKIT_EDOM] = "parameter out of range",
    [SKIT_ESHAPE] = "shapes do not match",
    [SKIT_ENONFINITE] = "NaN or Inf in input",
    [SKIT_ENOMEM] = "out of memory",
    [SKIT_EOVERFLOW] = "size computation overflows",
    [SKIT_ETOOBIG] = "request exceeds available memory",
    [SKIT_EBREAKDOWN] = "algorithm broke down",
    [SKIT_ENOTPD] = "matrix not positive definite",
    [SKIT_ENOCONV] = "iteration did not converge",
    [SKIT_EIO] = "input/output error",
    [SKIT_EFORMAT] = "malformed file",
    [SKIT_EUNSUPPORTED] = "not supported in this build or on this machine",
    [SKIT_ELIBRARY] = "underlying library failed",
};

const char *skit_strerror(int status)
{
    if (status < 0 || status >= SKIT_STATUS_COUNT) return "unknown status code";
    return status_text[status];
}

/* Thread-local so that OpenMP workers and user threads do not clobber each
 * other's messages. */
static _Thread_local char last_message[512];
static _Thread_local char last_location[160];
static skit_error_handler current_handler = NULL;

const char *skit_last_error(void) { return last_message; }
const char *skit_last_error_location(void) { return last_location; }

void skit_clear_error(void)
{
    last_message[0] = '\0';
    last_location[0] = '\0';
}

skit_error_handler skit_set_error_handler(skit_error_handler handler)
{
    skit_error_handler previous = current_handler;
    current_handler = handler;
    return previous;
}

int skit_error_raise(int status, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    snprintf(last_location, sizeof last_location, "%s:%d", file, line);
    if (current_handler) current_handler(status, last_message, file, line);
    return status;
}

const char *skit_version(void) { return PACKAGE_VERSION; }
