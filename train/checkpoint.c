/* checkpoint.c — writing and loading the checkpoints of checkpoint.h. */
#define _GNU_SOURCE /* renameat2 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "cli/cli.h"

/* out = dir/name; -1 if it does not fit */
static int join(char *out, size_t size, const char *dir, const char *name)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* ---- writing ------------------------------------------------------------- */

/* What a write needs along the way: where, and the files so far (for
 * checksums.tsv and the signal handler). */
typedef struct writer {
    const char *option;
    char tmp[4096];
    char *names; /* "name\n" each */
    size_t length;
} writer;

static int io_failure(const writer *w, const char *what, const char *path)
{
    fprintf(stderr, "%s: %s: cannot %s %s: %s\n", cli_context(), w->option, what, path, strerror(errno));
    return CLI_IO;
}

/* Name the next file (before it exists, so that a signal removes it). */
static int add_name(writer *w, const char *name, char *path, size_t size)
{
    size_t len = strlen(name);
    char *grown = realloc(w->names, w->length + len + 2);
    if (!grown) return cli_failure("%s: out of memory", w->option);
    w->names = grown;
    memcpy(w->names + w->length, name, len);
    w->length += len + 1;
    w->names[w->length - 1] = '\n';
    w->names[w->length] = '\0';
    if (cli_temp_dir_add(name) != 0 || join(path, size, w->tmp, name) != 0)
        return cli_usage_error("%s: %s/%s: path too long", w->option, w->tmp, name);
    return CLI_OK;
}

static int write_text(writer *w, const char *name, const char *text)
{
    char path[4200];
    int rc = add_name(w, name, path, sizeof path);
    if (rc != CLI_OK) return rc;
    FILE *f = fopen(path, "w");
    if (!f) return io_failure(w, "create", path);
    size_t len = strlen(text);
    int failed = fwrite(text, 1, len, f) != len || fflush(f) != 0;
    int err = errno;
    if (fclose(f) != 0 && !failed) failed = 1, err = errno;
    errno = err;
    return failed ? io_failure(w, "write", path) : CLI_OK;
}

/* A rows x cols array: 1-D when cols is 1 (mixers), else rows x cols;
 * row-major values are written column-major (skit_npy_write's layout). */
static int write_array(writer *w, const char *name, const double *values, size_t rows, size_t cols)
{
    char path[4200];
    int rc = add_name(w, name, path, sizeof path);
    if (rc != CLI_OK) return rc;
    if (cols == 1) return skit_npy_write(path, values, rows, 1, rows, 1) ? cli_write_error(SKIT_EIO) : CLI_OK;
    double *t = malloc(rows * cols * sizeof(double));
    if (!t) return cli_failure("%s: out of memory", w->option);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) t[i + j * rows] = values[i * cols + j];
    int status = skit_npy_write(path, t, rows, cols, rows, 2);
    free(t);
    return status ? cli_write_error(status) : CLI_OK;
}

/* The log's rows so far, every value exact ("%.17g"; nan where a step had
 * no validation). */
static int write_log(writer *w, const train_state *s)
{
    size_t size = 64 + s->step * TRAIN_LOG_COLUMNS * 26 + s->step * 12, used = 0;
    char *text = malloc(size);
    if (!text) return cli_failure("%s: out of memory", w->option);
    used += (size_t)snprintf(text, size, "step\tloss\tval_loss\tlr\tgrad_norm\ttokens_per_s\tseconds\n");
    for (size_t t = 0; t < s->step; t++) {
        used += (size_t)snprintf(text + used, size - used, "%zu", t + 1);
        for (size_t c = 0; c < TRAIN_LOG_COLUMNS; c++)
            used += (size_t)snprintf(text + used, size - used, "\t%.17g", s->history[t * TRAIN_LOG_COLUMNS + c]);
        used += (size_t)snprintf(text + used, size - used, "\n");
    }
    int rc = write_text(w, "log.tsv", text);
    free(text);
    return rc;
}

static int write_state(writer *w, size_t count, const train_state *s)
{
    int rc = write_array(w, "optimizer.m.npy", s->m, count, 1);
    if (rc == CLI_OK) rc = write_array(w, "optimizer.v.npy", s->v, count, 1);
    if (rc == CLI_OK) rc = write_log(w, s);
    char text[512];
    snprintf(text, sizeof text,
             CLI_CHECKPOINT_STATE_TITLE ": where training stood\nfield\tvalue\nstep\t%zu\n"
             "rng\t%016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n",
             s->step, s->rng.s[0], s->rng.s[1], s->rng.s[2], s->rng.s[3]);
    return rc == CLI_OK ? write_text(w, "state.tsv", text) : rc;
}

/* checksums.tsv: every file written so far, read back. */
static int write_checksums(writer *w)
{
    size_t size = 128;
    for (const char *p = w->names; p && *p; p++) size += *p == '\n' ? 48 : 1;
    char *text = malloc(size), path[4200];
    if (!text) return cli_failure("%s: out of memory", w->option);
    size_t used = (size_t)snprintf(text, size, CLI_CHECKPOINT_SUMS_TITLE ": size and FNV-1a 64 of each file\nfield\tvalue\n");
    int rc = CLI_OK;
    for (char *name = w->names; rc == CLI_OK && name && *name;) {
        char *nl = strchr(name, '\n'), sum[64];
        *nl = '\0';
        if (join(path, sizeof path, w->tmp, name) || cli_digest_file(path, sum, sizeof sum)) rc = io_failure(w, "read", path);
        else used += (size_t)snprintf(text + used, size - used, "%s\t%s\n", name, sum);
        *nl = '\n';
        name = nl + 1;
    }
    if (rc == CLI_OK) rc = write_text(w, "checksums.tsv", text);
    free(text);
    return rc;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                if (!join(path, sizeof path, dir, e->d_name)) unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}

/* The commit point: tmp becomes dir in one rename; an earlier checkpoint
 * there is swapped out atomically and removed. */
static int commit(writer *w, const char *dir)
{
    if (rename(w->tmp, dir) == 0) return CLI_OK;
    if (errno != ENOTEMPTY && errno != EEXIST) return io_failure(w, "rename into", dir);
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        remove_tree(w->tmp); /* the earlier checkpoint, now under the temporary name */
        return CLI_OK;
    }
    if (errno != ENOSYS && errno != EINVAL) return io_failure(w, "exchange into", dir);
#endif
    /* no atomic exchange here: a short window without dir */
    char old[4200];
    snprintf(old, sizeof old, "%s.old.%ld", dir, (long)getpid());
    if (rename(dir, old) != 0) return io_failure(w, "move aside", dir);
    if (rename(w->tmp, dir) != 0) {
        int rc = io_failure(w, "rename into", dir);
        rename(old, dir);
        return rc;
    }
    remove_tree(old);
    return CLI_OK;
}

static int write_model(writer *w, train_model *m, const double *values, const char *kind, const char *description,
                       const char *fields)
{
    int rc = CLI_OK;
    for (size_t g = 0; g < train_model_group_count(m) && rc == CLI_OK; g++) {
        const train_group *gr = train_model_group(m, g);
        char name[64];
        snprintf(name, sizeof name, "%s.npy", gr->name);
        rc = write_array(w, name, values + gr->offset, gr->rows, gr->cols);
    }
    size_t size = strlen(description) + strlen(fields) + 128;
    char *text = rc == CLI_OK ? malloc(size) : NULL;
    if (rc == CLI_OK && !text) rc = cli_failure("%s: out of memory", w->option);
    if (rc == CLI_OK) {
        snprintf(text, size, CLI_CHECKPOINT_TITLE ": %s\nfield\tvalue\nformat\t%d\nkind\t%s\n%s", description,
                 CLI_CHECKPOINT_FORMAT, kind, fields);
        rc = write_text(w, "model.tsv", text);
    }
    free(text);
    return rc;
}

int train_checkpoint_write(const char *option, train_model *m, const double *values, const char *dir,
                           const char *kind, const char *description, const char *fields, const train_state *state)
{
    writer w = {.option = option};
    int len = snprintf(w.tmp, sizeof w.tmp, "%s.tmp.%ld", dir, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof w.tmp) return cli_usage_error("%s: %s: path too long", option, dir);
    if (mkdir(w.tmp, 0777) != 0) return io_failure(&w, "create", w.tmp);
    if (cli_temp_dir_register(w.tmp) != 0) {
        rmdir(w.tmp);
        return cli_usage_error("%s: %s: path too long", option, dir);
    }
    int rc = write_model(&w, m, values, kind, description, fields);
    if (rc == CLI_OK && state) rc = write_state(&w, train_model_parameter_count(m), state);
    if (rc == CLI_OK) rc = write_checksums(&w);
    if (rc == CLI_OK) rc = commit(&w, dir);
    if (rc != CLI_OK) remove_tree(w.tmp);
    cli_temp_dir_release();
    free(w.names);
    return rc;
}

/* ---- loading ------------------------------------------------------------- */

/* DIR/name as a rows x cols array (1-D when cols is 1), finite, into out
 * row-major. */
static int load_array(const char *option, const char *dir, const cli_fields *sums, const char *name, size_t rows,
                      size_t cols, double *out)
{
    unsigned char *bytes;
    size_t size;
    int rc = cli_checkpoint_read_file(option, dir, sums, name, &bytes, &size);
    if (rc != CLI_OK) return rc;
    skit_matrix a = {0};
    int status = skit_npy_parse(bytes, size, &a);
    free(bytes);
    if (status == SKIT_ENOMEM) return cli_failure("%s: %s/%s: out of memory", option, dir, name);
    if (status) return cli_usage_error("%s: %s/%s: %s", option, dir, name, skit_last_error());
    int ndim = cols == 1 ? 1 : 2;
    if (a.ndim != ndim || a.rows != rows || a.cols != cols) {
        rc = cli_usage_error("%s: %s/%s: shape %zu x %zu (%d-D); this model needs %zu x %zu (%d-D): the checkpoint "
                             "does not match its model.tsv", option, dir, name, a.rows, a.cols, a.ndim, rows, cols, ndim);
    }
    for (size_t i = 0; rc == CLI_OK && i < rows; i++)
        for (size_t j = 0; j < cols; j++) out[i * cols + j] = a.data[i + j * rows];
    skit_matrix_free(&a);
    return rc;
}

static int parse_state(const char *option, const char *path, const cli_fields *f, train_state *s)
{
    const char *step = cli_fields_get(f, "step"), *rng = cli_fields_get(f, "rng");
    char *end = NULL;
    unsigned long long v = step && *step != '-' ? strtoull(step, &end, 10) : 0;
    if (!end || *end || v == 0 || v > ((size_t)1 << 30))
        return cli_usage_error("%s: %s: field step '%s': need 1..2^30", option, path, step ? step : "(missing)");
    s->step = (size_t)v;
    int used = 0;
    if (!rng || sscanf(rng, "%16" SCNx64 " %16" SCNx64 " %16" SCNx64 " %16" SCNx64 "%n", &s->rng.s[0], &s->rng.s[1],
                       &s->rng.s[2], &s->rng.s[3], &used) != 4 || rng[used] != '\0' ||
        !(s->rng.s[0] | s->rng.s[1] | s->rng.s[2] | s->rng.s[3]))
        return cli_usage_error("%s: %s: field rng: need four hexadecimal words, not all zero", option, path);
    return CLI_OK;
}

/* log.tsv: step rows of numbers (nan allowed: steps without validation). */
static int parse_log(const char *option, const char *path, char *text, train_state *s)
{
    char *line = strchr(text, '\n');
    if (!line || strncmp(text, "step\t", 5)) return cli_usage_error("%s: %s: no header line", option, path);
    for (size_t t = 0; t < s->step; t++) {
        char *end;
        line++;
        unsigned long long step = strtoull(line, &end, 10);
        if (step != t + 1 || *end != '\t')
            return cli_usage_error("%s: %s: row %zu: need step %zu first", option, path, t + 1, t + 1);
        for (size_t c = 0; c < TRAIN_LOG_COLUMNS; c++) {
            line = end + 1;
            s->history[t * TRAIN_LOG_COLUMNS + c] = strtod(line, &end);
            if (end == line || *end != (c + 1 < TRAIN_LOG_COLUMNS ? '\t' : '\n'))
                return cli_usage_error("%s: %s: row %zu: need %d numbers after the step", option, path, t + 1,
                                       TRAIN_LOG_COLUMNS);
        }
        line = end;
    }
    if (line[1] != '\0') return cli_usage_error("%s: %s: more rows than the %zu steps of state.tsv", option, path, s->step);
    return CLI_OK;
}

/* DIR/name checked against its checksum, NUL-terminated text; path receives its name. */
static int read_text(const char *option, const char *dir, const cli_fields *sums, const char *name, char *path,
                     size_t path_size, char **text, size_t *size)
{
    join(path, path_size, dir, name);
    int rc = cli_checkpoint_read_file(option, dir, sums, name, (unsigned char **)text, size);
    if (rc == CLI_OK && memchr(*text, '\0', *size)) {
        rc = cli_usage_error("%s: %s: holds a NUL byte: not a text file", option, path);
        free(*text);
    }
    return rc;
}

static int load_state(const char *option, const char *dir, const cli_fields *sums, size_t count, train_state *s)
{
    char path[4200], *text;
    size_t size;
    int rc = read_text(option, dir, sums, "state.tsv", path, sizeof path, &text, &size);
    if (rc != CLI_OK) return rc;
    cli_fields f;
    rc = cli_fields_parse(option, path, CLI_CHECKPOINT_STATE_TITLE, text, size, &f);
    free(text);
    if (rc == CLI_OK) rc = parse_state(option, path, &f, s);
    cli_fields_free(&f);
    if (rc == CLI_OK) rc = load_array(option, dir, sums, "optimizer.m.npy", count, 1, s->m);
    if (rc == CLI_OK) rc = load_array(option, dir, sums, "optimizer.v.npy", count, 1, s->v);
    for (size_t i = 0; rc == CLI_OK && i < count; i++)
        if (s->v[i] < 0) rc = cli_usage_error("%s: %s/optimizer.v.npy: negative second moment (element %zu)", option, dir, i);
    s->history = rc == CLI_OK ? malloc(s->step * TRAIN_LOG_COLUMNS * sizeof(double)) : NULL;
    if (rc == CLI_OK && !s->history) rc = cli_failure("%s: out of memory", option);
    if (rc == CLI_OK) rc = read_text(option, dir, sums, "log.tsv", path, sizeof path, &text, &size);
    if (rc == CLI_OK) {
        rc = parse_log(option, path, text, s);
        free(text);
    }
    return rc;
}

int train_checkpoint_load(const char *option, const char *dir, const cli_fields *sums, train_model *m,
                          train_state *state)
{
    int rc = CLI_OK;
    for (size_t g = 0; g < train_model_group_count(m) && rc == CLI_OK; g++) {
        const train_group *gr = train_model_group(m, g);
        char name[64];
        snprintf(name, sizeof name, "%s.npy", gr->name);
        rc = load_array(option, dir, sums, name, gr->rows, gr->cols, train_model_parameters(m) + gr->offset);
    }
    if (rc == CLI_OK && state) rc = load_state(option, dir, sums, train_model_parameter_count(m), state);
    int status = rc == CLI_OK ? train_model_sync(m) : SKIT_OK;
    if (status) rc = cli_usage_error("%s: %s: the parameters do not make a model: %s", option, dir, skit_last_error());
    return rc;
}
