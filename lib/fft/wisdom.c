/* wisdom.c — FFTW wisdom as text and in files (skit/fft.h): text is
 * checked before FFTW reads it, a file is read only as text of a bounded
 * size, and a writer that many processes may run on one file at once does
 * not lose their wisdom.
 *
 * The writer holds an exclusive flock on the directory of the file while
 * it re-reads the file, merges what it holds into the process's wisdom,
 * and replaces the file atomically (lib/core/atomic.c): a writer that
 * waited for the lock reads the file its predecessor renamed into place.
 * The directory, not the file, is locked because the file is replaced
 * (a lock on the old inode would not exclude a writer that opened the new
 * one) and may not exist yet; no lock file is left behind. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fftw3.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "fft/planner.h"
#include "skit/fft.h"
#include "skit/io.h"

/* ---- wisdom text ---------------------------------------------------------
 * FFTW's import aborts the process (an assertion, not an error) on an
 * entry whose flag fields do not fit the bit fields it keeps them in, and
 * its number reader takes any letter for a digit: each form is checked
 * against the grammar FFTW exports before FFTW sees it,
 *   form  := "(" name name hex hex hex hex entry* ")"
 *   entry := "(" name int hex hex hex hex hex hex hex ")"
 * with hex "#x" and 1 to 8 hex digits, int at most 9 decimal digits, and
 * an entry's flags (its first three hex fields) below 2^20, 2^20 and 2^9. */

static void skip_blanks(const char **p)
{
    while (**p && isspace((unsigned char)**p)) ++*p;
}

static int take_char(const char **p, char c)
{
    skip_blanks(p);
    if (**p != c) return 0;
    ++*p;
    return 1;
}

/* A name as FFTW reads one: up to a blank or a parenthesis, < 64 bytes. */
static int take_name(const char **p)
{
    skip_blanks(p);
    size_t n = 0;
    while ((*p)[n] && !isspace((unsigned char)(*p)[n]) && (*p)[n] != '(' && (*p)[n] != ')') n++;
    *p += n;
    return n > 0 && n < 64;
}

static int take_int(const char **p)
{
    skip_blanks(p);
    if (**p == '-') ++*p;
    size_t n = 0;
    while (isdigit((unsigned char)(*p)[n])) n++;
    *p += n;
    return n > 0 && n <= 9;
}

static int take_hex(const char **p, unsigned long *value)
{
    skip_blanks(p);
    if ((*p)[0] != '#' || (*p)[1] != 'x') return 0;
    *p += 2;
    size_t n = 0;
    *value = 0;
    for (; isxdigit((unsigned char)(*p)[n]); n++)
        *value = 16 * *value + (unsigned long)(isdigit((unsigned char)(*p)[n]) ? (*p)[n] - '0'
                                                                                : tolower((unsigned char)(*p)[n]) - 'a' + 10);
    *p += n;
    return n > 0 && n <= 8;
}

static int valid_entry(const char **p)
{
    unsigned long field[7];
    if (!take_char(p, '(') || !take_name(p) || !take_int(p)) return 0;
    for (int i = 0; i < 7; i++)
        if (!take_hex(p, &field[i])) return 0;
    return take_char(p, ')') && field[0] < (1ul << 20) && field[1] < (1ul << 20) && field[2] < (1ul << 9);
}

static int valid_form(const char *form)
{
    const char *p = form;
    unsigned long signature;
    if (!take_char(&p, '(') || !take_name(&p) || !take_name(&p)) return 0;
    for (int i = 0; i < 4; i++)
        if (!take_hex(&p, &signature)) return 0;
    for (skip_blanks(&p); *p != ')'; skip_blanks(&p))
        if (!valid_entry(&p)) return 0;
    p++;
    skip_blanks(&p);
    return *p == '\0';
}

/* Wisdom text holds up to two forms, "(fftw-3.x fftw_wisdom ...)" and
 * "(fftw-3.x fftwf_wisdom ...)": each is imported by its precision's
 * FFTW. *forms gets how many were imported; 0 on the first form that is
 * malformed or that FFTW rejects. The caller holds the lock. */
static int import_forms(const char *text, int *forms)
{
    *forms = 0;
    const char *p = text;
    while (*p) {
        while (*p && *p != '(') {
            if (!strchr(" \t\r\n", *p)) return 0;
            p++;
        }
        if (!*p) break;
        const char *start = p;
        long depth = 0;
        do {
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            p++;
        } while (*p && depth > 0);
        if (depth) return 0;
        size_t len = (size_t)(p - start);
        char *form = skit_malloc(len + 1, 1);
        if (!form) return 0;
        memcpy(form, start, len);
        form[len] = '\0';
        const char *space = strchr(form, ' ');
        int single = space && !strncmp(space + 1, "fftwf_wisdom", 12);
        int ok = valid_form(form) &&
                 (single ? fftwf_import_wisdom_from_string(form) : fftw_import_wisdom_from_string(form));
        skit_free(form);
        if (!ok) return 0;
        ++*forms;
    }
    return *forms > 0;
}

int skit_fft_wisdom_import_string(const char *text)
{
    SKIT_REQUIRE_PTR(text);
    int forms;
    skit_fftw_lock();
    int ok = import_forms(text, &forms);
    skit_fftw_unlock();
    return ok ? SKIT_OK : SKIT_ERROR(SKIT_EFORMAT, "not FFTW wisdom (double, then float) of this FFTW");
}

char *skit_fft_wisdom_export_string(void)
{
    skit_fftw_lock();
    char *text = fftw_export_wisdom_to_string(), *textf = fftwf_export_wisdom_to_string();
    skit_fftw_unlock();
    char *copy = NULL;
    if (text && textf) {
        size_t len = strlen(text), lenf = strlen(textf);
        copy = skit_malloc(len + lenf + 1, 1);
        if (copy) {
            memcpy(copy, text, len);
            memcpy(copy + len, textf, lenf + 1);
        }
    }
    free(text); /* FFTW's strings come from malloc */
    free(textf);
    return copy;
}

/* ---- wisdom files -------------------------------------------------------- */

/* Wisdom of every length skit plans takes some hundred kilobytes: a file
 * larger than this is not wisdom (it is refused before it fills memory). */
#define WISDOM_MAX_BYTES ((size_t)16 << 20)
enum { WISDOM_CHUNK = 65536 };

/* Appends one chunk of f to text (*size bytes, room for WISDOM_MAX_BYTES
 * and a NUL): SKIT_EFORMAT for a NUL byte (not text) or a file too large. */
static int read_chunk(FILE *f, const char *path, char *text, size_t *size, int *done)
{
    size_t want = WISDOM_MAX_BYTES + 1 - *size;
    if (want > WISDOM_CHUNK) want = WISDOM_CHUNK;
    size_t got = fread(text + *size, 1, want, f);
    const char *nul = memchr(text + *size, '\0', got);
    if (nul)
        return SKIT_ERROR(SKIT_EFORMAT, "wisdom file '%s': not text (a NUL byte at offset %zu)", path,
                          (size_t)(nul - text));
    *size += got;
    if (*size > WISDOM_MAX_BYTES)
        return SKIT_ERROR(SKIT_EFORMAT, "wisdom file '%s': larger than %zu MiB, the most a wisdom file may hold",
                          path, WISDOM_MAX_BYTES >> 20);
    *done = got < want;
    return SKIT_OK;
}

/* The whole file as a string (caller frees with skit_free). */
static int read_wisdom_text(const char *path, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) return SKIT_ERROR(SKIT_EIO, "wisdom file '%s': cannot open (%s)", path, strerror(errno));
    /* grown as the file is read: the cap bounds it, not the file's claim */
    size_t size = 0, cap = WISDOM_CHUNK + 1;
    char *text = skit_malloc(cap, 1);
    int status = text ? SKIT_OK : SKIT_ENOMEM, done = 0;
    while (status == SKIT_OK && !done) {
        if (cap < size + WISDOM_CHUNK + 1) {
            size_t grown = SKIT_MIN(2 * cap, WISDOM_MAX_BYTES + WISDOM_CHUNK + 1);
            char *more = skit_malloc(grown, 1);
            if (more) memcpy(more, text, size);
            skit_free(text);
            text = more, cap = grown;
            if (!text) status = SKIT_ENOMEM;
        }
        if (status == SKIT_OK) status = read_chunk(f, path, text, &size, &done);
    }
    if (status == SKIT_OK && ferror(f))
        status = SKIT_ERROR(SKIT_EIO, "wisdom file '%s': cannot read (%s)", path, strerror(errno));
    fclose(f);
    if (status != SKIT_OK) {
        skit_free(text);
        return status;
    }
    text[size] = '\0';
    *out = text;
    return SKIT_OK;
}

int skit_fft_wisdom_import_file(const char *path)
{
    SKIT_REQUIRE_PTR(path);
    char *text;
    SKIT_TRY(read_wisdom_text(path, &text));
    int forms;
    skit_fftw_lock();
    int ok = import_forms(text, &forms);
    skit_fftw_unlock();
    skit_free(text);
    if (!ok)
        return SKIT_ERROR(SKIT_EFORMAT, "wisdom file '%s': not FFTW wisdom (double, then float) of this FFTW "
                                        "(%s)", path, forms ? "the forms before the bad one imported" : "nothing imported");
    return SKIT_OK;
}

/* An exclusive flock on the directory holding `target`: its descriptor,
 * or -1 where none can be taken (a file system without flock), and the
 * write goes on unlocked, as it did before locks. */
static int lock_directory(const char *target)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(target, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", slash == target ? 1 : (int)(slash - target), target);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {}
    if (rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void unlock_directory(int fd)
{
    if (fd < 0) return;
    flock(fd, LOCK_UN);
    close(fd);
}

/* Imports what the regular file `target` holds (nothing for a missing or
 * empty file, a device or a FIFO): a file that is not wisdom is refused,
 * not replaced. */
static int merge_file_wisdom(const char *target)
{
    struct stat st;
    if (stat(target, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return SKIT_OK;
    return skit_fft_wisdom_import_file(target);
}

static int write_wisdom(const char *target, const char *text)
{
    char tmp[PATH_MAX + 64];
    FILE *f;
    SKIT_TRY(skit_atomic_open(target, tmp, sizeof tmp, &f));
    fputs(text, f); /* a failure stays in the stream: commit reports it */
    return skit_atomic_commit(f, tmp, target);
}

int skit_fft_wisdom_export_file(const char *path)
{
    SKIT_REQUIRE_PTR(path);
    char target[PATH_MAX];
    if (!*path || skit_link_target(path, target, sizeof target) != SKIT_OK)
        return SKIT_ERROR(SKIT_EINVAL, "wisdom file '%s': empty or too long a name", path);
    int lock = lock_directory(target);
    int status = merge_file_wisdom(target);
    char *text = NULL;
    if (status == SKIT_OK && !(text = skit_fft_wisdom_export_string())) status = SKIT_ENOMEM;
    if (status == SKIT_OK) status = write_wisdom(target, text);
    unlock_directory(lock);
    skit_free(text);
    return status;
}
