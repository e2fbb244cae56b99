/* table.c — tables, matrices and JSON out, arrays in (see table.h). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "table.h"

/* ---- text helpers ------------------------------------------------------- */

/* printf into a new string (NULL when out of memory). */
static char *vformat(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int length = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (length < 0) return NULL;
    char *text = malloc((size_t)length + 1);
    if (text) vsnprintf(text, (size_t)length + 1, fmt, ap);
    return text;
}

/* Append `text` to a growing array of strings (takes it; frees it on
 * failure). */
static int push_string(char ***array, size_t *count, char *text)
{
    if (!text) return -1;
    char **grown = realloc(*array, (*count + 2) * sizeof *grown);
    if (!grown) {
        free(text);
        return -1;
    }
    grown[(*count)++] = text;
    grown[*count] = NULL; /* kept NULL-terminated for skit_tsv_columns */
    *array = grown;
    return 0;
}

/* ---- tables ------------------------------------------------------------- */

int cli_table_init(cli_table *t, const char *const *names)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; names && names[i]; i++)
        if (push_string(&t->names, &t->ncols, strdup(names[i])) != 0) t->failed = 1;
    return t->failed ? -1 : 0;
}

void cli_table_column(cli_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (push_string(&t->names, &t->ncols, vformat(fmt, ap)) != 0) t->failed = 1;
    va_end(ap);
}

void cli_table_free(cli_table *t)
{
    for (size_t i = 0; i < t->ncols; i++) free(t->names[i]);
    for (size_t i = 0; i < t->ncomments; i++) free(t->comments[i]);
    for (size_t i = 0; i < t->nlines; i++) free(t->lines[i]);
    free(t->names);
    free(t->comments);
    free(t->lines);
    free(t->notes);
    free(t->row);
    memset(t, 0, sizeof *t);
}

void cli_table_comment(cli_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (push_string(&t->comments, &t->ncomments, vformat(fmt, ap)) != 0) t->failed = 1;
    va_end(ap);
}

/* Append a row or a note (takes `text`). */
static void add_line(cli_table *t, char *text, int note)
{
    if (!text) {
        t->failed = 1;
        return;
    }
    if (t->nlines == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **lines = realloc(t->lines, cap * sizeof *lines);
        if (lines) t->lines = lines;
        unsigned char *notes = lines ? realloc(t->notes, cap) : NULL;
        if (notes) t->notes = notes;
        if (!lines || !notes) {
            free(text);
            t->failed = 1;
            return;
        }
        t->cap = cap;
    }
    t->notes[t->nlines] = (unsigned char)note;
    t->lines[t->nlines++] = text;
}

void cli_table_note(cli_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_line(t, vformat(fmt, ap), 1);
    va_end(ap);
}

void cli_table_cell(cli_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cell = vformat(fmt, ap);
    va_end(ap);
    size_t length = cell ? strlen(cell) : 0;
    char *row = cell ? realloc(t->row, t->row_length + length + 2) : NULL;
    if (!row) {
        free(cell);
        t->failed = 1;
        return;
    }
    if (t->row_cells++) row[t->row_length++] = '\t';
    memcpy(row + t->row_length, cell, length + 1);
    t->row_length += length;
    t->row = row;
    free(cell);
}

void cli_table_end_row(cli_table *t)
{
    add_line(t, t->row ? t->row : strdup(""), 0);
    t->row = NULL;
    t->row_length = t->row_cells = 0;
}

void cli_table_rowf(cli_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_line(t, vformat(fmt, ap), 0);
    va_end(ap);
}

void cli_table_row(cli_table *t, const char *const *cells, size_t count)
{
    for (size_t i = 0; i < count; i++) cli_table_cell(t, "%s", cells[i] ? cells[i] : "");
    cli_table_end_row(t);
}

void cli_table_row_numbers(cli_table *t, const double *values, size_t count)
{
    for (size_t i = 0; i < count; i++) cli_table_cell(t, "%.17g", values[i]);
    cli_table_end_row(t);
}

size_t cli_table_rows(const cli_table *t)
{
    size_t rows = 0;
    for (size_t i = 0; i < t->nlines; i++) rows += !t->notes[i];
    return rows;
}

int cli_table_save(const cli_table *t, const char *path, int argc, char **argv, uint64_t seed,
                   const char *units)
{
    if (t->failed) return cli_failure("out of memory");
    skit_tsv_writer *w;
    int status = skit_tsv_open(&w, cli_output_stage(path), argc, argv, 1, seed, units);
    if (status != SKIT_OK) return cli_write_error(status);
    for (size_t i = 0; i < t->ncomments; i++) skit_tsv_comment(w, "%s", t->comments[i]);
    static const char *const no_names[] = {NULL};
    skit_tsv_columns(w, t->names ? (const char *const *)t->names : no_names);
    FILE *stream = skit_tsv_stream(w);
    for (size_t i = 0; i < t->nlines; i++) {
        if (t->notes[i])
            skit_tsv_comment(w, "%s", t->lines[i]);
        else
            fprintf(stream, "%s\n", t->lines[i]);
    }
    status = skit_tsv_close(w);
    return status == SKIT_OK ? CLI_OK : cli_write_error(status);
}

int cli_table_emit(const cli_table *t, const cli_common *common, int argc, char **argv,
                   const char *units, const char *script, const char *variables)
{
    int to_file = common->output && strcmp(common->output, "-") != 0;
    int status = cli_table_save(t, to_file ? common->output : NULL, argc, argv, common->seed, units);
    if (status != CLI_OK || !common->plot || !script) return status;
    if (to_file) return cli_plot(script, common->output, common->plot, variables);
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s/skit-%s-%ld.tsv", cli_temp_dir(), script, (long)getpid());
    int slot = cli_temp_register(tmp);
    status = cli_table_save(t, tmp, argc, argv, common->seed, units);
    if (status == CLI_OK) status = cli_plot(script, tmp, common->plot, variables);
    unlink(tmp);
    cli_temp_release(slot);
    return status;
}

/* ---- matrices and arrays ------------------------------------------------ */

int cli_read_matrix(const char *option, const char *path, skit_matrix *m)
{
    int status = cli_ends_with(path, ".npy") ? skit_npy_read(path, m) : skit_tsv_read(path, m);
    if (status == SKIT_OK) return CLI_OK;
    if (status == SKIT_ENOMEM) return cli_failure("%s: %s", option, skit_last_error());
    return cli_usage_error("%s: %s", option, skit_last_error());
}

/* an output path that names a .npy file (not stdout) */
static int is_npy(const char *path) { return path && strcmp(path, "-") != 0 && cli_ends_with(path, ".npy"); }

static int npy_result(int status) { return status == SKIT_OK ? CLI_OK : cli_write_error(status); }

int cli_read_matrix_f32(const char *option, const char *path, skit_matrix_f32 *m)
{
    memset(m, 0, sizeof *m);
    if (cli_ends_with(path, ".npy")) {
        int status = skit_npy_read_f32(path, m);
        if (status == SKIT_OK) return CLI_OK;
        if (status == SKIT_ENOMEM) return cli_failure("%s: %s", option, skit_last_error());
        return cli_usage_error("%s: %s", option, skit_last_error());
    }
    skit_matrix d = {0};
    int rc = cli_read_matrix(option, path, &d);
    if (rc != CLI_OK) return rc;
    float *data = skit_malloc(d.rows * d.cols, sizeof(float));
    if (!data) rc = cli_failure("%s: out of memory", option);
    for (size_t i = 0; rc == CLI_OK && i < d.rows * d.cols; i++)
        if (!isfinite(data[i] = (float)d.data[i]))
            rc = cli_usage_error("%s: value %g (element %zu) beyond float32's range", option, d.data[i], i);
    if (rc == CLI_OK) *m = (skit_matrix_f32){data, d.rows, d.cols, d.ndim};
    else skit_free(data);
    skit_matrix_free(&d);
    return rc;
}

int cli_write_matrix_f32(const char *path, int argc, char **argv, int has_seed, uint64_t seed,
                         const float *data, size_t rows, size_t cols, int ndim, const char *name,
                         const char *comment, size_t token_period)
{
    if (is_npy(path)) return npy_result(skit_npy_write_f32(cli_output_stage(path), data, rows, cols, rows, ndim));
    double *wide = malloc((rows * cols > 0 ? rows * cols : 1) * sizeof *wide);
    if (!wide) return cli_failure("out of memory");
    for (size_t i = 0; i < rows * cols; i++) wide[i] = data[i];
    int rc = cli_write_matrix(path, argc, argv, has_seed, seed, wide, rows, cols, ndim, name, comment, token_period);
    free(wide);
    return rc;
}

int cli_parse_precision(const char *text, skit_precision *precision)
{
    static const char *const names[] = {"f64", "f32", NULL};
    int choice = 0;
    if (cli_parse_choice("--precision", text, names, &choice) != CLI_OK) return CLI_USAGE;
    *precision = choice == 1 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
    return CLI_OK;
}

int cli_parse_causal_ski(const char *text, skit_tno_causal_ski *algorithm)
{
    static const char *const names[] = {"cumsum", "blocked", "auto", NULL}; /* the enum's order */
    int choice = 0;
    if (cli_parse_choice("--causal-ski", text, names, &choice) != CLI_OK) return CLI_USAGE;
    *algorithm = (skit_tno_causal_ski)choice;
    return CLI_OK;
}

int cli_check_data_path(const char *option, const char *path, int npy_allowed)
{
    if (!path) return CLI_OK;
    /* a device or FIFO (/dev/null, /dev/stdout) takes TSV whatever its name */
    if (cli_written_through(path)) return cli_check_output_path(option, path);
    if (!(npy_allowed && cli_ends_with(path, ".npy")) && !cli_ends_with(path, ".tsv") &&
        !cli_ends_with(path, ".txt"))
        return cli_usage_error("%s: file name must end in %s.tsv (or .txt), got '%s'", option,
                               npy_allowed ? ".npy or " : "", path);
    return cli_check_output_path(option, path);
}

int cli_write_matrix(const char *path, int argc, char **argv, int has_seed, uint64_t seed,
                     const double *data, size_t rows, size_t cols, int ndim, const char *name,
                     const char *comment, size_t token_period)
{
    if (is_npy(path)) return npy_result(skit_npy_write(cli_output_stage(path), data, rows, cols, rows, ndim));
    size_t extra = token_period ? 2 : 0, width = cols + extra;
    char **names = calloc(width + 1, sizeof *names);
    char *text = malloc(width * 32 + 1);
    double *row = malloc((width ? width : 1) * sizeof *row);
    if (!names || !text || !row) {
        free(names);
        free(text);
        free(row);
        return cli_failure("out of memory");
    }
    for (size_t j = 0; j < width; j++) {
        names[j] = text + 32 * j;
        if (j < extra) snprintf(names[j], 32, "%s", j ? "token" : "sequence");
        else if (cols == 1) snprintf(names[j], 32, "%s", name);
        else snprintf(names[j], 32, "%s_%zu", name, j - extra);
    }
    skit_tsv_writer *w = NULL;
    int status = skit_tsv_open(&w, cli_output_stage(path), argc, argv, has_seed, seed, NULL);
    if (status == SKIT_OK) status = skit_tsv_comment(w, "%s", comment);
    if (status == SKIT_OK) status = skit_tsv_columns(w, (const char *const *)names);
    for (size_t i = 0; i < rows && status == SKIT_OK; i++) {
        if (extra) {
            row[0] = (double)(i / token_period);
            row[1] = (double)(i % token_period);
        }
        for (size_t j = 0; j < cols; j++) row[extra + j] = data[i + j * rows];
        status = skit_tsv_row(w, row, width);
    }
    if (status == SKIT_OK) status = skit_tsv_close(w);
    else skit_tsv_abort(w);
    free(names);
    free(text);
    free(row);
    return status == SKIT_OK ? CLI_OK : cli_write_error(status);
}

/* ---- JSON --------------------------------------------------------------- */

/* Before a member of the current container: its separator and indent
 * (nothing after a key, whose value follows on the same line). */
static void json_member(cli_json *j)
{
    int d = j->depth;
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->one_line[d]) {
        if (!j->first[d]) fputs(", ", j->stream);
    } else {
        fputs(j->first[d] ? "\n" : ",\n", j->stream);
        fprintf(j->stream, "%*s", 2 * d, "");
    }
    j->first[d] = 0;
}

static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

int cli_json_open(cli_json *j, const char *path)
{
    memset(j, 0, sizeof *j);
    snprintf(j->path, sizeof j->path, "%s", cli_output_stage(path));
    if (skit_atomic_open(j->path, j->tmp, sizeof j->tmp, &j->stream) != SKIT_OK)
        return cli_write_error(SKIT_EIO);
    fputc('{', j->stream);
    j->depth = 1;
    j->first[1] = 1;
    return CLI_OK;
}

void cli_json_key(cli_json *j, const char *key)
{
    json_member(j);
    json_text(j->stream, key);
    fputs(": ", j->stream);
    j->after_key = 1;
}

void cli_json_string(cli_json *j, const char *text)
{
    json_member(j);
    json_text(j->stream, text);
}

void cli_json_number(cli_json *j, double value)
{
    json_member(j);
    if (isfinite(value))
        fprintf(j->stream, "%.17g", value);
    else
        fputs("null", j->stream);
}

void cli_json_unsigned(cli_json *j, unsigned long long value)
{
    json_member(j);
    fprintf(j->stream, "%llu", value);
}

void cli_json_bool(cli_json *j, int value)
{
    json_member(j);
    fputs(value ? "true" : "false", j->stream);
}

static void json_begin(cli_json *j, char opener, int one_line)
{
    json_member(j);
    fputc(opener, j->stream);
    if (j->depth + 1 < (int)sizeof j->first) j->depth++;
    j->first[j->depth] = 1;
    j->one_line[j->depth] = (unsigned char)(one_line != 0);
}

/* A multi-line container closes on its own line, even when empty. */
static void json_end(cli_json *j, char closer)
{
    if (!j->one_line[j->depth]) fprintf(j->stream, "\n%*s", 2 * (j->depth - 1), "");
    fputc(closer, j->stream);
    if (j->depth > 1) j->depth--;
}

void cli_json_begin_object(cli_json *j, int one_line) { json_begin(j, '{', one_line); }
void cli_json_end_object(cli_json *j) { json_end(j, '}'); }
void cli_json_begin_array(cli_json *j, int one_line) { json_begin(j, '[', one_line); }
void cli_json_end_array(cli_json *j) { json_end(j, ']'); }

int cli_json_close(cli_json *j)
{
    fputs("\n}\n", j->stream);
    if (skit_atomic_commit(j->stream, j->tmp, j->path) != SKIT_OK) return cli_write_error(SKIT_EIO);
    return CLI_OK;
}
