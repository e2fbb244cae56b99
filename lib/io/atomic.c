/* atomic.c — write-to-temporary-then-rename, so an interrupted or failed
 * write never leaves a partial file under the final name. Only regular
 * files are replaced that way: a device, a FIFO or a socket is written
 * directly (renaming over /dev/null as root would replace it for every
 * process on the machine), and a symbolic link is followed, so that the
 * file it names is replaced and the link stays. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    if (tmp_size == 0) return SKIT_ERROR(SKIT_EINVAL, "output path '%s' is too long", path);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        FILE *f = fopen(path, "wb"); /* written through: no temporary (empty name) */
        if (!f) return SKIT_ERROR(SKIT_EIO, "cannot write %s: %s", path, strerror(errno));
        tmp_path[0] = '\0';
        *stream = f;
        return SKIT_OK;
    }
    char target[PATH_MAX];
    const char *final = path;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, target)) final = target;
    int len = snprintf(tmp_path, tmp_size, "%s.tmp.%ld", final, (long)getpid());
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
        if (*tmp_path) unlink(tmp_path);
        return SKIT_ERROR(SKIT_EIO, "error writing %s: %s", path, strerror(err));
    }
    if (!*tmp_path) return SKIT_OK; /* written through (a device, a FIFO) */
    /* the final name is the temporary's without ".tmp.<pid>": the file a
     * symbolic link named, or path itself */
    char final[PATH_MAX + 64];
    snprintf(final, sizeof final, "%s", tmp_path);
    char *suffix = strrchr(final, '.');
    if (suffix) *suffix = '\0';
    suffix = strrchr(final, '.');
    if (suffix && !strcmp(suffix, ".tmp")) *suffix = '\0';
    else snprintf(final, sizeof final, "%s", path);
    if (rename(tmp_path, final) != 0) {
        err = errno;
        unlink(tmp_path);
        return SKIT_ERROR(SKIT_EIO, "cannot rename into %s: %s", path, strerror(err));
    }
    return SKIT_OK;
}

void skit_atomic_discard(FILE *stream, const char *tmp_path)
{
    if (stream) fclose(stream);
    if (tmp_path && *tmp_path) unlink(tmp_path);
}
