/* fuzz_io.c — fuzz targets for the .npy and TSV readers (skit/io.h).
 *
 * The bytes are copied into a buffer of exactly their size so that
 * AddressSanitizer (or valgrind) sees any read past the end. Beyond "no
 * crash", each target checks the reader's contract: the status is one of the
 * documented codes, a failure leaves a zeroed matrix and a message, a success
 * gives a consistent finite matrix. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skit.h"
#include "fuzz.h"

void skit_fuzz_fail(const char *target, const uint8_t *data, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "skit fuzz %s: invariant broken: ", target);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ninput (%zu bytes):", size);
    for (size_t i = 0; i < size && i < 512; i++) {
        unsigned c = data[i];
        if (c == '\n') fputs("\\n", stderr);
        else if (c >= 32 && c < 127) fputc((int)c, stderr);
        else fprintf(stderr, "\\x%02x", c);
    }
    fputc('\n', stderr);
    abort();
}

/* Common checks of a reader's result. */
static void check_result(const char *target, const uint8_t *data, size_t size, int status,
                         const skit_matrix *m, const int *allowed, size_t nallowed)
{
    int ok = 0;
    for (size_t i = 0; i < nallowed; i++) ok |= status == allowed[i];
    if (!ok) skit_fuzz_fail(target, data, size, "undocumented status %d (%s)", status, skit_strerror(status));
    if (status != SKIT_OK) {
        if (m->data || m->rows || m->cols || m->ndim)
            skit_fuzz_fail(target, data, size, "failure (%s) left a non-zeroed matrix", skit_strerror(status));
        if (!skit_last_error()[0])
            skit_fuzz_fail(target, data, size, "failure (%s) without a message", skit_strerror(status));
        return;
    }
    if (m->ndim != 1 && m->ndim != 2) skit_fuzz_fail(target, data, size, "ndim = %d", m->ndim);
    if (m->ndim == 1 && m->cols != 1) skit_fuzz_fail(target, data, size, "1-D with %zu columns", m->cols);
    size_t count;
    if (skit_size_mul(m->rows, m->cols, &count) != SKIT_OK)
        skit_fuzz_fail(target, data, size, "%zu x %zu overflows", m->rows, m->cols);
    if (count && !m->data) skit_fuzz_fail(target, data, size, "%zu x %zu without data", m->rows, m->cols);
    /* every element must be written and finite (reading them all also lets
     * valgrind report uninitialised values) */
    for (size_t i = 0; i < count; i++)
        if (!isfinite(m->data[i])) skit_fuzz_fail(target, data, size, "element %zu is not finite", i);
}

int skit_fuzz_npy(const uint8_t *data, size_t size)
{
    static const int allowed[] = {SKIT_OK,       SKIT_EFORMAT, SKIT_ENONFINITE,
                                  SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM};
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return -1;
    if (size) memcpy(copy, data, size);
    skit_matrix m;
    memset(&m, 0xA5, sizeof m); /* the reader must initialise it on every path */
    int status = skit_npy_parse(copy, size, &m);
    check_result("npy", data, size, status, &m, allowed, sizeof allowed / sizeof *allowed);
    /* a .npy image holds rows*cols elements of at least 4 bytes after a
     * 10-byte preamble: a larger matrix means bytes were invented */
    if (status == SKIT_OK && m.rows * m.cols > size / 4)
        skit_fuzz_fail("npy", data, size, "%zu x %zu elements from %zu bytes", m.rows, m.cols, size);
    skit_matrix_free(&m);
    if (m.data || m.rows || m.cols) skit_fuzz_fail("npy", data, size, "skit_matrix_free did not zero the matrix");
    free(copy);
    return 0;
}

/* Prints m as a TSV table (%.17g round-trips every double). */
static char *format_tsv(const skit_matrix *m, size_t *length)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, length);
    if (!f) return NULL;
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            fprintf(f, "%.17g%c", m->data[i + j * m->rows], j + 1 < m->cols ? '\t' : '\n');
    fclose(f);
    return text;
}

int skit_fuzz_tsv(const uint8_t *data, size_t size)
{
    static const int allowed[] = {SKIT_OK, SKIT_EFORMAT, SKIT_ENONFINITE, SKIT_ETOOBIG, SKIT_ENOMEM};
    char *copy = malloc(size ? size : 1);
    if (!copy) return -1;
    if (size) memcpy(copy, data, size);
    skit_matrix m;
    memset(&m, 0xA5, sizeof m);
    int status = skit_tsv_parse(copy, size, &m);
    check_result("tsv", data, size, status, &m, allowed, sizeof allowed / sizeof *allowed);
    if (status == SKIT_OK) {
        /* differential check: print the table and read it back bit for bit */
        size_t length = 0;
        char *text = format_tsv(&m, &length);
        if (text && m.rows) {
            skit_matrix back;
            int st = skit_tsv_parse(text, length, &back);
            if (st != SKIT_OK)
                skit_fuzz_fail("tsv", data, size, "re-reading the printed table failed: %s", skit_last_error());
            if (back.rows != m.rows || back.cols != m.cols || back.ndim != m.ndim)
                skit_fuzz_fail("tsv", data, size, "re-read shape %zu x %zu (ndim %d) != %zu x %zu (ndim %d)",
                               back.rows, back.cols, back.ndim, m.rows, m.cols, m.ndim);
            if (memcmp(back.data, m.data, m.rows * m.cols * sizeof(double)) != 0)
                skit_fuzz_fail("tsv", data, size, "re-read values differ from the printed ones");
            skit_matrix_free(&back);
        }
        free(text);
    }
    skit_matrix_free(&m);
    free(copy);
    return 0;
}
