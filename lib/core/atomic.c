/* atomic.c — write-to-temporary-then-rename, so an interrupted or failed
 * write never leaves a partial file under the final name. Only regular
 * files are replaced that way: a device, a FIFO or a socket is written
 * directly (renaming over /dev/null as root would replace it for every
 * process on the machine), and a symbolic link is followed, so that the
 * file it names is replaced and the link stays. It sits in core, below
 * every module that writes files (the .npy and TSV writers, FFTW wisdom). */
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

/* Where a symbolic link points, read relative to the link's directory. */
static int follow_link(const char *link, const char *target, char *out, size_t size)
{
    const char *slash = strrchr(link, '/');
    int len = target[0] == '/' || !slash ? snprintf(out, size, "%s", target)
                                         : snprintf(out, size, "%.*s/%s", (int)(slash - link), link, target);
    return len >= 0 && (size_t)len < size ? SKIT_OK : SKIT_EINVAL;
}

int skit_link_target(const char *path, char *out, size_t size)
{
    char current[PATH_MAX], target[PATH_MAX];
    int len = snprintf(current, sizeof current, "%s", path);
    if (len < 0 || (size_t)len >= sizeof current) return SKIT_EINVAL;
    /* a chain of links, even one whose last target does not exist yet
     * (realpath fails on that one, and the link would be renamed over) */
    for (int hops = 0; hops < 40; hops++) {
        ssize_t n = readlink(current, target, sizeof target - 1);
        if (n < 0) break; /* not a link (or gone): the file to replace */
        target[n] = '\0';
        char next[PATH_MAX];
        if (follow_link(current, target, next, sizeof next) != SKIT_OK) return SKIT_EINVAL;
        memcpy(current, next, sizeof current);
    }
    len = snprintf(out, size, "%s", current);
    return len >= 0 && (size_t)len < size ? SKIT_OK : SKIT_EINVAL;
}

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
    char final[PATH_MAX];
    if (skit_link_target(path, final, sizeof final) != SKIT_OK)
        return SKIT_ERROR(SKIT_EINVAL, "output path '%s' is too long", path);
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
