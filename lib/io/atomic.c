/* atomic.c — write-to-temporary-then-rename, so an interrupted or failed
 * write never leaves a partial file under the final name. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "skit/io.h"

int skit_atomic_open(const char *path, char *tmp_path, size_t tmp_size, FILE **stream)
{
    SKIT_REQUIRE_PTR(path);
    SKIT_REQUIRE_PTR(tmp_path);
    SKIT_REQUIRE_PTR(stream);
    *stream = NULL;
    if (!*path) return SKIT_ERROR(SKIT_EINVAL, "output path must not be empty");
    int len = snprintf(tmp_path, tmp_size, "%s.tmp.%ld", path, (long)getpid());
    if (len < 0 || (size_t)len >= tmp_size)
        return SKIT_ERROR(SKIT_EINVAL, "output path '%s' is too long", path);
    FILE *f = fopen(tmp_path, "wb");
    if (!f) return SKIT_ERROR(SKIT_EIO, "cannot create %s: %s", path, strerror(errno));
    *stream = f;
    return SKIT_OK;
}

/* The reason a buffered stream failed (0: it did not). A write that failed
 * earlier left only its error flag; the disk that was full or the device
 * that failed still is, so one more byte, flushed, gives the reason. */
static int write_error(FILE *stream)
{
    errno = 0;
    if (!ferror(stream) && fflush(stream) == 0) return 0;
    if (!ferror(stream)) return errno ? errno : EIO;
    clearerr(stream);
    errno = 0;
    if (fputc('\n', stream) != EOF && fflush(stream) == 0) return EIO;
    return errno ? errno : EIO;
}

int skit_atomic_commit(FILE *stream, const char *tmp_path, const char *path)
{
    SKIT_REQUIRE_PTR(stream);
    int err = write_error(stream);
    if (fclose(stream) != 0 && !err) err = errno ? errno : EIO;
    if (err) {
        unlink(tmp_path);
        return SKIT_ERROR(SKIT_EIO, "error writing %s: %s", path, strerror(err));
    }
    if (rename(tmp_path, path) != 0) {
        err = errno;
        unlink(tmp_path);
        return SKIT_ERROR(SKIT_EIO, "cannot rename into %s: %s", path, strerror(err));
    }
    return SKIT_OK;
}

void skit_atomic_discard(FILE *stream, const char *tmp_path)
{
    if (stream) fclose(stream);
    if (tmp_path) unlink(tmp_path);
}
