/* table.h — how every `skit` subcommand writes its results: tables (TSV
 * with the provenance header of skit/io.h, optionally drawn by gnuplot),
 * matrices (.npy or TSV) and JSON; and reads its array inputs.
 *
 * A table is collected in memory and written once the computation has
 * succeeded, so that a failure leaves no partial output (with -o, files are
 * also written atomically). Out of memory while collecting is remembered
 * and reported when the table is written. */
#ifndef SKIT_TABLE_H
#define SKIT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

typedef struct cli_table {
    /* private: use the functions below */
    char **names;         /* column names */
    size_t ncols;
    char **comments;      /* header comments, before the column names */
    size_t ncomments;
    char **lines;         /* rows (cells joined by tabs) and notes, in order */
    unsigned char *notes; /* lines[i] is a note (a comment after rows) */
    size_t nlines, cap;
    char *row;            /* the row being built by cli_table_cell */
    size_t row_length, row_cells;
    int failed;           /* an allocation failed */
} cli_table;

/* Start a table with the NULL-terminated column names (copied; NULL: none
 * yet, add them with cli_table_column). Returns 0, or -1 out of memory
 * (also remembered for cli_table_emit). */
int cli_table_init(cli_table *table, const char *const *names);
/* Append one column name, printf-style. */
void cli_table_column(cli_table *table, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_table_free(cli_table *table);

/* A header comment line ("# text"), written before the column names
 * whenever it is added. */
void cli_table_comment(cli_table *table, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A comment line written after the rows added so far (e.g. a summary). */
void cli_table_note(cli_table *table, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One cell of the row being built, printf-style (e.g. "%.6g"); the row
 * ends with cli_table_end_row. */
void cli_table_cell(cli_table *table, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_table_end_row(cli_table *table);
/* A whole row, printf-style, its cells separated by tabs in `fmt`. */
void cli_table_rowf(cli_table *table, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A whole row of text cells (NULL prints as empty). */
void cli_table_row(cli_table *table, const char *const *cells, size_t count);
/* A whole row of numbers, each "%.17g" (as skit_tsv_row). */
void cli_table_row_numbers(cli_table *table, const double *values, size_t count);
size_t cli_table_rows(const cli_table *table);

/* Write the table to `path` (stdout when NULL or "-"; a file atomically):
 * the provenance header (argv, seed, units; units may be NULL), the header
 * comments, the column names, then the rows and notes. On error prints one
 * line and returns CLI_FAILED or CLI_USAGE (cli_library_error). */
int cli_table_save(const cli_table *table, const char *path, int argc, char **argv,
                   uint64_t seed, const char *units);
/* Write the table to common->output (stdout when NULL or "-") and, if
 * common->plot and `script` are set, draw plots/<script>.gp from it (from a
 * temporary copy, removed afterwards, when the table went to stdout).
 * `variables`: extra gnuplot code (may be NULL), see cli_plot. */
int cli_table_emit(const cli_table *table, const cli_common *common, int argc, char **argv,
                   const char *units, const char *script, const char *variables);

/* ---- matrices and arrays -------------------------------------------- */

/* Read FILE for `option`: .npy when the name ends in .npy, else TSV. The
 * library's message is prefixed with the option: CLI_USAGE, or CLI_FAILED
 * when out of memory. */
int cli_read_matrix(const char *option, const char *path, skit_matrix *matrix);
/* The same in float32 (--precision f32): a .npy read without going
 * through double (skit_npy_read_f32), a TSV read and rounded. */
int cli_read_matrix_f32(const char *option, const char *path, skit_matrix_f32 *matrix);

/* Validate a data output before any work: NULL is fine; else the name ends
 * in .tsv or .txt (or .npy when npy_allowed) and its directory is writable
 * (cli_check_output_path). */
int cli_check_data_path(const char *option, const char *path, int npy_allowed);

/* Write the rows x cols column-major matrix `data` (ld = rows) to `path`:
 * .npy (float64, ndim 1 or 2) when the name ends in .npy; otherwise a TSV
 * (stdout when NULL or "-") with the provenance header (the seed line only
 * when has_seed), the comment line and one column per matrix column, named
 * `name` for a single column and name_0, name_1, ... otherwise. With
 * token_period > 0 two columns "sequence", "token" (row / token_period,
 * row % token_period) come first. Values are written "%.17g". */
int cli_write_matrix(const char *path, int argc, char **argv, int has_seed, uint64_t seed,
                     const double *data, size_t rows, size_t cols, int ndim, const char *name,
                     const char *comment, size_t token_period);
/* The same from floats: .npy as float32 ('<f4'), TSV with each float's
 * exact value. */
int cli_write_matrix_f32(const char *path, int argc, char **argv, int has_seed, uint64_t seed,
                         const float *data, size_t rows, size_t cols, int ndim, const char *name,
                         const char *comment, size_t token_period);
/* "--precision f32|f64": SKIT_PRECISION_F32 or _F64, or a usage error. */
int cli_parse_precision(const char *text, skit_precision *precision);
/* "--causal-ski cumsum|blocked|auto": the skit_tno_causal_ski of that name,
 * or a usage error. */
int cli_parse_causal_ski(const char *text, skit_tno_causal_ski *algorithm);

/* ---- JSON ------------------------------------------------------------ */

/* A JSON document written atomically to a file. Containers are either
 * multi-line (one member per line, indented by two spaces per level) or
 * one-line (members separated by ", "); the document is one multi-line
 * object. Inside an object, name each member with cli_json_key first. */
typedef struct cli_json {
    /* private */
    FILE *stream;
    char path[4096], tmp[4200];
    int depth, after_key;
    unsigned char first[16], one_line[16];
} cli_json;

/* Open `path` and begin the top-level object; on error prints one line. */
int cli_json_open(cli_json *json, const char *path);
void cli_json_key(cli_json *json, const char *key);
void cli_json_string(cli_json *json, const char *text);
/* A number "%.17g"; null when not finite. */
void cli_json_number(cli_json *json, double value);
void cli_json_unsigned(cli_json *json, unsigned long long value);
void cli_json_bool(cli_json *json, int value);
void cli_json_begin_object(cli_json *json, int one_line);
void cli_json_end_object(cli_json *json);
void cli_json_begin_array(cli_json *json, int one_line);
void cli_json_end_array(cli_json *json);
/* End the top-level object and commit the file; on error prints one line. */
int cli_json_close(cli_json *json);

#endif
