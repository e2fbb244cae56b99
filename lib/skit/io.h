/* skit/io.h — reading and writing numeric data: NumPy .npy files and TSV
 * tables. Readers validate everything (header, dtype, shape, order, length,
 * finiteness); writers write to a temporary file and rename it into place,
 * so a failed write never leaves a partial file. */
#ifndef SKIT_IO_H
#define SKIT_IO_H

#include <stdio.h>

#include "skit/core.h"

SKIT_BEGIN_DECLS

/* A dense rows x cols matrix of doubles, column-major, ld = rows.
 * A 1-D array of length n is rows = n, cols = 1, ndim = 1. */
typedef struct skit_matrix {
    double *data;
    size_t rows, cols;
    int ndim; /* 1 or 2 */
} skit_matrix;

void skit_matrix_free(skit_matrix *m); /* frees data, zeroes the struct */

/* The same in float32, for the float32 plans (skit_precision). */
typedef struct skit_matrix_f32 {
    float *data;
    size_t rows, cols;
    int ndim; /* 1 or 2 */
} skit_matrix_f32;

void skit_matrix_f32_free(skit_matrix_f32 *m);

/* ---- .npy (NumPy format versions 1.0, 2.0, 3.0) ------------------------ */

/* Parse an in-memory .npy image. Accepts dtypes '<f8' and '<f4' (converted
 * to double; '|' or '=' byte order on little-endian hosts too), C or Fortran
 * order, 1-D or 2-D shapes (a 2-D array with one axis of length 0 is
 * allowed). Rejects: bad magic, unknown version, header that is not a
 * well-formed dict with exactly descr/fortran_order/shape, other dtypes,
 * big-endian data, ndim > 2, truncated or trailing data, NaN/Inf values.
 * Errors: SKIT_EFORMAT (message says what is wrong), SKIT_ENONFINITE,
 * SKIT_EOVERFLOW, SKIT_ETOOBIG, SKIT_ENOMEM. */
int skit_npy_parse(const void *buffer, size_t length, skit_matrix *out);

/* Read a file with skit_npy_parse. SKIT_EIO if it cannot be read. */
int skit_npy_read(const char *path, skit_matrix *out);

/* The same into float32, without going through double: '<f4' data is
 * copied exactly, '<f8' rounded to nearest (a finite value beyond
 * float32's range is SKIT_ENONFINITE, "value beyond float32's range"). */
int skit_npy_parse_f32(const void *buffer, size_t length, skit_matrix_f32 *out);
int skit_npy_read_f32(const char *path, skit_matrix_f32 *out);

/* Most axes skit_npy_read_nd accepts. */
#define SKIT_NPY_MAX_DIMS 4

/* Read an array of 1 to SKIT_NPY_MAX_DIMS axes (C order for more than two)
 * as the 2-D matrix of its last axis: shape (s_0, ..., s_{k-1}) gives rows =
 * s_0 * ... * s_{k-2} and cols = s_{k-1} (so element [a, ..., i, c] of a
 * (A, ..., n, d) stack is out->data[r + c * rows] with r the row-major index
 * of (a, ..., i)); a 1-D array is read as skit_npy_read does. shape receives
 * SKIT_NPY_MAX_DIMS entries (1 past the last axis), *ndim the axis count.
 * Errors: as skit_npy_read; SKIT_EFORMAT also for a Fortran-order array of
 * more than two axes. */
int skit_npy_read_nd(const char *path, skit_matrix *out, size_t *shape, int *ndim);

/* Write a float64 .npy (version 1.0). 2-D data is written with
 * fortran_order True (no transposition); ndim selects 1-D (cols must be 1)
 * or 2-D. Atomic: temporary file + rename. data may be NULL if rows*cols = 0.
 * Errors: SKIT_EINVAL (NULL), SKIT_EDOM (ndim), SKIT_ESHAPE (cols != 1 for
 * 1-D, ld < rows), SKIT_ENONFINITE (NaN/Inf: the readers would refuse the
 * file), SKIT_EOVERFLOW, SKIT_EIO (nothing is left under path). */
int skit_npy_write(const char *path, const double *data, size_t rows, size_t cols,
                   size_t ld, int ndim);
/* The same as a float32 .npy ('<f4'). */
int skit_npy_write_f32(const char *path, const float *data, size_t rows, size_t cols,
                       size_t ld, int ndim);

/* Write a float64 C-order .npy of shape[0..ndim) (1 <= ndim <=
 * SKIT_NPY_MAX_DIMS) from the column-major matrix laid out as
 * skit_npy_read_nd returns it: rows = shape[0] * ... * shape[ndim-2], cols =
 * shape[ndim-1] (a 1-D array: rows = shape[0], cols = 1), ld >= rows.
 * Atomic. Errors: as skit_npy_write, SKIT_EDOM (ndim). */
int skit_npy_write_nd(const char *path, const double *data, size_t ld, const size_t *shape, int ndim);
/* The same as a float32 .npy ('<f4'). */
int skit_npy_write_nd_f32(const char *path, const float *data, size_t ld, const size_t *shape, int ndim);

/* ---- TSV ---------------------------------------------------------------- */

/* Read a numeric table: lines starting with '#' are comments, blank lines
 * skipped, one optional header line of column names (non-numeric first
 * field) is skipped, fields separated by tabs or spaces. Every row must have
 * the same number of fields; every field must parse completely as a finite
 * number. A line containing a tab is split at every tab (an empty field is
 * an error); other lines at runs of spaces. Rows x columns become a
 * column-major matrix; a single column gives ndim = 1.
 * Errors (with line and column in the message): SKIT_EFORMAT (also for a
 * file with no data rows), SKIT_ENONFINITE (NaN, Inf, overflow), SKIT_EIO,
 * SKIT_EINVAL (NULL), SKIT_ETOOBIG, SKIT_ENOMEM. */
int skit_tsv_read(const char *path, skit_matrix *out);
int skit_tsv_parse(const char *text, size_t length, skit_matrix *out);

/* TSV writer. The header comment block records what produced the data:
 *   # skit <version>
 *   # command: <argv joined with spaces>
 *   # seed: <seed>            (omitted if has_seed == 0)
 *   # units: <units>          (omitted if NULL)
 *   # <any extra lines added with skit_tsv_comment>
 *   col1<TAB>col2...          (column names line, written by skit_tsv_columns)
 * then rows. gnuplot reads it as is (set datafile separator tab; comments
 * start with '#'; the column-names line is used with `columnhead`).
 * path NULL or "-" writes to stdout (not atomic). Otherwise output goes to
 * "<path>.tmp.<pid>" and is renamed on skit_tsv_close; skit_tsv_abort
 * removes it. */
typedef struct skit_tsv_writer skit_tsv_writer;

int skit_tsv_open(skit_tsv_writer **writer, const char *path, int argc, char *const argv[],
                  int has_seed, uint64_t seed, const char *units);
int skit_tsv_comment(skit_tsv_writer *writer, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Column names, tab-separated, given as a NULL-terminated list. */
int skit_tsv_columns(skit_tsv_writer *writer, const char *const *names);
/* One row of doubles, printed with %.17g (round-trips exactly). */
int skit_tsv_row(skit_tsv_writer *writer, const double *values, size_t count);
/* One row of preformatted fields (strings, already without tabs). */
int skit_tsv_row_text(skit_tsv_writer *writer, const char *const *fields, size_t count);
/* The underlying stream for free-form output. */
FILE *skit_tsv_stream(skit_tsv_writer *writer);
/* Flush, fsync-free close and rename into place. Frees the writer. */
int skit_tsv_close(skit_tsv_writer *writer);
/* Discard: close and delete the temporary file. Frees the writer. */
void skit_tsv_abort(skit_tsv_writer *writer);

/* Atomic file creation for any writer: opens "<path>.tmp.<pid>" for
 * writing; skit_atomic_commit renames it to path, skit_atomic_discard
 * removes it. A path that names a device, a FIFO or a socket (/dev/null,
 * /dev/stdout) is opened and written directly, never renamed over
 * (tmp_path is then set to ""); a symbolic link is followed: the file it
 * names is replaced and the link kept. tmp_path must hold at least
 * strlen(path) + 32 bytes, and PATH_MAX + 32 for a link to be followed (a
 * shorter buffer gives SKIT_EINVAL for a link whose target is longer). */
int skit_atomic_open(const char *path, char *tmp_path, size_t tmp_size, FILE **stream);
int skit_atomic_commit(FILE *stream, const char *tmp_path, const char *path);
void skit_atomic_discard(FILE *stream, const char *tmp_path);

SKIT_END_DECLS
#endif
