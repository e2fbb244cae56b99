/* tsv_writer.c — TSV tables with a provenance header (see skit/io.h). */
#include "config.h"

#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "skit/io.h"

struct skit_tsv_writer {
    FILE *stream;
    int atomic; /* 1: writing to tmp_path, renamed on close */
    char *path, *tmp_path;
};

int skit_tsv_open(skit_tsv_writer **writer, const char *path, int argc, char *const argv[],
                  int has_seed, uint64_t seed, const char *units)
{
    SKIT_REQUIRE_PTR(writer);
    *writer = NULL;
    if (argc < 0 || (argc > 0 && argv == NULL))
        return SKIT_ERROR(SKIT_EINVAL, "argc = %d / argv inconsistent", argc);
    skit_tsv_writer *w = calloc(1, sizeof *w);
    if (!w) return SKIT_ERROR(SKIT_ENOMEM, "out of memory");
    if (path == NULL || strcmp(path, "-") == 0) {
        w->stream = stdout;
    } else {
        size_t tmp_size = strlen(path) + PATH_MAX + 32; /* room for a followed link */
        w->path = strdup(path);
        w->tmp_path = malloc(tmp_size);
        if (!w->path || !w->tmp_path) {
            free(w->path);
            free(w->tmp_path);
            free(w);
            return SKIT_ERROR(SKIT_ENOMEM, "out of memory");
        }
        int status = skit_atomic_open(path, w->tmp_path, tmp_size, &w->stream);
        if (status != SKIT_OK) {
            free(w->path);
            free(w->tmp_path);
            free(w);
            return status;
        }
        w->atomic = 1;
    }
    fprintf(w->stream, "# skit %s\n# command:", skit_version());
    for (int i = 0; i < argc; i++) {
        /* keep the header one line per field even if an argument has a newline */
        fputc(' ', w->stream);
        for (const char *p = argv[i]; *p; p++) fputc(*p == '\n' || *p == '\t' ? ' ' : *p, w->stream);
    }
    fputc('\n', w->stream);
    if (has_seed) fprintf(w->stream, "# seed: %llu\n", (unsigned long long)seed);
    if (units) fprintf(w->stream, "# units: %s\n", units);
    *writer = w;
    return SKIT_OK;
}

int skit_tsv_comment(skit_tsv_writer *w, const char *fmt, ...)
{
    SKIT_REQUIRE_PTR(w);
    SKIT_REQUIRE_PTR(fmt);
    fputs("# ", w->stream);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(w->stream, fmt, ap);
    va_end(ap);
    fputc('\n', w->stream);
    return SKIT_OK;
}

int skit_tsv_columns(skit_tsv_writer *w, const char *const *names)
{
    SKIT_REQUIRE_PTR(w);
    SKIT_REQUIRE_PTR(names);
    for (size_t i = 0; names[i]; i++) fprintf(w->stream, "%s%s", i ? "\t" : "", names[i]);
    fputc('\n', w->stream);
    return SKIT_OK;
}

int skit_tsv_row(skit_tsv_writer *w, const double *values, size_t count)
{
    SKIT_REQUIRE_PTR(w);
    if (count > 0) SKIT_REQUIRE_PTR(values);
    for (size_t i = 0; i < count; i++) fprintf(w->stream, "%s%.17g", i ? "\t" : "", values[i]);
    fputc('\n', w->stream);
    return SKIT_OK;
}

int skit_tsv_row_text(skit_tsv_writer *w, const char *const *fields, size_t count)
{
    SKIT_REQUIRE_PTR(w);
    if (count > 0) SKIT_REQUIRE_PTR(fields);
    for (size_t i = 0; i < count; i++) fprintf(w->stream, "%s%s", i ? "\t" : "", fields[i] ? fields[i] : "");
    fputc('\n', w->stream);
    return SKIT_OK;
}

FILE *skit_tsv_stream(skit_tsv_writer *w) { return w ? w->stream : NULL; }

static void writer_free(skit_tsv_writer *w)
{
    free(w->path);
    free(w->tmp_path);
    free(w);
}

int skit_tsv_close(skit_tsv_writer *w)
{
    if (!w) return SKIT_OK;
    int status = SKIT_OK;
    if (w->atomic) {
        status = skit_atomic_commit(w->stream, w->tmp_path, w->path);
    } else {
        errno = 0;
        if (fflush(w->stream) != 0 || ferror(w->stream))
            status = SKIT_ERROR(SKIT_EIO, "error writing to standard output: %s",
                                strerror(errno ? errno : EIO));
    }
    writer_free(w);
    return status;
}

void skit_tsv_abort(skit_tsv_writer *w)
{
    if (!w) return;
    if (w->atomic) skit_atomic_discard(w->stream, w->tmp_path);
    else fflush(w->stream);
    writer_free(w);
}
