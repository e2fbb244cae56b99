/* tsv_reader.c — numeric tables from TSV / whitespace-separated text (see
 * skit/io.h). Reads skit's own TSV output (comment header, a column-names
 * line, tab-separated rows) and the plain files people write by hand or
 * export with numpy.savetxt.
 *
 * Field splitting: a line that contains a tab is split at every tab (so an
 * empty field between two tabs is an error rather than a silently shifted
 * column); a line without tabs is split at runs of spaces. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "skit/io.h"

/* Longest numeric field parsed on the stack ("-1.2345678901234567e-308"
 * is 24); longer ones are parsed from the heap. */
#define TSV_MAX_FIELD 128

typedef struct growable {
    double *v;
    size_t count, capacity;
} growable;

static int push(growable *g, double x)
{
    if (g->count == g->capacity) {
        size_t cap = g->capacity ? g->capacity * 2 : 256;
        if (cap > SIZE_MAX / sizeof(double) / 2) return SKIT_ERROR(SKIT_EOVERFLOW, "TSV table too large");
        double *p = realloc(g->v, cap * sizeof(double));
        if (!p) return SKIT_ERROR(SKIT_ENOMEM, "out of memory reading a TSV table (%zu values)", g->count);
        g->v = p;
        g->capacity = cap;
    }
    g->v[g->count++] = x;
    return SKIT_OK;
}

static int is_space(char ch) { return ch == ' ' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* Parse one field completely as a double. Returns 1 if numeric (value in
 * *out, possibly non-finite), 0 if not a number. */
static int parse_number(const char *field, size_t len, double *out, int *range_error)
{
    char small[TSV_MAX_FIELD + 1];
    *range_error = 0;
    if (len == 0) return 0;
    /* a longer field (a number with many digits) gets a buffer of its own */
    char *buf = len > TSV_MAX_FIELD ? malloc(len + 1) : small;
    if (!buf) return 0;
    memcpy(buf, field, len);
    buf[len] = '\0';
    errno = 0;
    char *end;
    double v = strtod(buf, &end);
    int whole = end == buf + len;
    if (buf != small) free(buf);
    if (!whole) return 0;
    /* ERANGE with an infinite result is overflow; underflow to a
     * subnormal or zero is an accurate enough answer and is accepted */
    if (errno == ERANGE && isinf(v)) *range_error = 1;
    *out = v;
    return 1;
}

static int begins_like_number(const char *field)
{
    return field[0] && strchr("+-.0123456789", field[0]) != NULL;
}

typedef struct field_span {
    const char *start;
    size_t len;
} field_span;

/* Split line[0..len) into fields; returns the count, or (size_t)-1 for an
 * empty field (position in *empty_at, 1-based). */
static size_t split_fields(const char *line, size_t len, field_span *fields, size_t max, size_t *empty_at)
{
    size_t count = 0;
    if (memchr(line, '\t', len)) {
        size_t start = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i == len || line[i] == '\t') {
                size_t a = start, b = i;
                while (a < b && is_space(line[a])) a++;
                while (b > a && is_space(line[b - 1])) b--;
                if (a == b) {
                    *empty_at = count + 1;
                    return (size_t)-1;
                }
                if (count < max) fields[count] = (field_span){line + a, b - a};
                count++;
                start = i + 1;
            }
        }
    } else {
        size_t i = 0;
        while (i < len) {
            while (i < len && is_space(line[i])) i++;
            if (i == len) break;
            size_t a = i;
            while (i < len && !is_space(line[i])) i++;
            if (count < max) fields[count] = (field_span){line + a, i - a};
            count++;
        }
    }
    return count;
}

static int parse_text(const char *text, size_t length, const char *name, skit_matrix *out)
{
    growable g = {NULL, 0, 0};
    size_t cols = 0, first_data_line = 0, line_no = 0, rows = 0;
    int seen_candidate_header = 0, status = SKIT_OK;
    field_span *fields = NULL;
    size_t fields_cap = 0;
    const char *p = text, *end = text + length;
    /* a UTF-8 byte-order mark (spreadsheet exports) is not part of the data */
    if (length >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    while (p < end && status == SKIT_OK) {
        const char *line = p, *line_end = p;
        /* lines end in \n, \r\n or a lone \r (old Mac exports) */
        while (line_end < end && *line_end != '\n' && *line_end != '\r') line_end++;
        size_t len = (size_t)(line_end - line);
        p = line_end;
        if (p < end && *p == '\r') p++;
        if (p < end && *p == '\n' && (p == line_end || p[-1] == '\r')) p++;
        line_no++;
        if (memchr(line, '\0', len)) {
            status = SKIT_ERROR(SKIT_EFORMAT, "%s: line %zu contains a NUL byte (binary file?)", name, line_no);
            break;
        }
        size_t k = 0;
        while (k < len && (is_space(line[k]) || line[k] == '\t')) k++;
        if (k == len || line[k] == '#') continue; /* blank or comment */

        size_t empty_at = 0, n = split_fields(line, len, fields, fields_cap, &empty_at);
        if (n == (size_t)-1) {
            status = SKIT_ERROR(SKIT_EFORMAT, "%s: line %zu, column %zu: empty field", name, line_no, empty_at);
            break;
        }
        if (n > fields_cap) {
            field_span *bigger = realloc(fields, n * sizeof *fields);
            if (!bigger) {
                status = SKIT_ERROR(SKIT_ENOMEM, "out of memory reading %s", name);
                break;
            }
            fields = bigger;
            fields_cap = n;
            n = split_fields(line, len, fields, fields_cap, &empty_at);
        }
        /* The first non-comment line is a header of column names when its
         * first field is not a number and does not begin like one: a
         * malformed number on line 1 is reported, never dropped as a header. */
        double v;
        int range_error;
        if (rows == 0 && !seen_candidate_header && !begins_like_number(fields[0].start) &&
            !parse_number(fields[0].start, fields[0].len, &v, &range_error)) {
            seen_candidate_header = 1;
            continue;
        }
        seen_candidate_header = 1;
        if (rows == 0) {
            cols = n;
            first_data_line = line_no;
        } else if (n != cols) {
            status = SKIT_ERROR(SKIT_EFORMAT, "%s: line %zu has %zu fields, expected %zu (as on line %zu)", name, line_no,
                                n, cols, first_data_line);
            break;
        }
        for (size_t c = 0; c < n && status == SKIT_OK; c++) {
            if (!parse_number(fields[c].start, fields[c].len, &v, &range_error)) {
                int shown = (int)(fields[c].len > 40 ? 40 : fields[c].len);
                status = SKIT_ERROR(SKIT_EFORMAT, "%s: line %zu, column %zu: '%.*s%s' is not a number", name, line_no,
                                    c + 1, shown, fields[c].start, fields[c].len > 40 ? "..." : "");
            } else if (range_error) {
                status = SKIT_ERROR(SKIT_ENONFINITE, "%s: line %zu, column %zu: '%.*s' overflows a double", name,
                                    line_no, c + 1, (int)fields[c].len, fields[c].start);
            } else if (!isfinite(v)) {
                status = SKIT_ERROR(SKIT_ENONFINITE, "%s: line %zu, column %zu: non-finite value '%.*s'", name, line_no,
                                    c + 1, (int)fields[c].len, fields[c].start);
            } else {
                status = push(&g, v);
            }
        }
        rows++;
    }
    free(fields);
    if (status == SKIT_OK && rows == 0)
        status = SKIT_ERROR(SKIT_EFORMAT, "%s: no data rows (empty file, or only comments and a header)", name);
    if (status == SKIT_OK) {
        /* rows were read row-major; skit matrices are column-major */
        out->data = skit_malloc(g.count, sizeof(double));
        if (!out->data) status = SKIT_ENOMEM;
        else {
            for (size_t i = 0; i < rows; i++)
                for (size_t j = 0; j < cols; j++) out->data[i + j * rows] = g.v[i * cols + j];
            out->rows = rows;
            out->cols = cols;
            out->ndim = cols == 1 ? 1 : 2;
        }
    }
    free(g.v);
    return status;
}

int skit_tsv_parse(const char *text, size_t length, skit_matrix *out)
{
    SKIT_REQUIRE_PTR(out);
    memset(out, 0, sizeof *out);
    if (length > 0) SKIT_REQUIRE_PTR(text);
    return parse_text(length ? text : "", length, "<tsv text>", out);
}

/* The most bytes read from a pipe or device, whose size is unknown: what
 * the values may take (text up to 1/5 of the available memory, as for a
 * regular file), at most 1 GiB. */
static size_t stream_limit(const struct stat *st)
{
    if (S_ISREG(st->st_mode)) return SIZE_MAX;
    size_t limit = (size_t)1 << 30, avail = skit_memory_available() / 5;
    if (avail && avail < limit) limit = avail;
    return limit < 65536 ? 65536 : limit;
}

int skit_tsv_read(const char *path, skit_matrix *out)
{
    SKIT_REQUIRE_PTR(out);
    memset(out, 0, sizeof *out);
    SKIT_REQUIRE_PTR(path);
    FILE *f = fopen(path, "rb");
    if (!f) return SKIT_ERROR(SKIT_EIO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return SKIT_ERROR(SKIT_EIO, "cannot read %s: is a directory", path);
    }
    /* a regular file's size is known: refuse before reading what cannot fit
     * (the values need up to 4x the text: 8 bytes per >= 2-byte field) */
    if (S_ISREG(st.st_mode)) {
        size_t bytes = (size_t)st.st_size;
        int status = bytes > SIZE_MAX / 5 ? SKIT_ERROR(SKIT_EOVERFLOW, "%s: file too large", path)
                                          : skit_memory_check(bytes * 5, "TSV file and its values");
        if (status != SKIT_OK) {
            fclose(f);
            return status;
        }
    }
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536, len = 0;
    size_t limit = stream_limit(&st);
    char *text = malloc(cap);
    int status = text ? SKIT_OK : SKIT_ERROR(SKIT_ENOMEM, "out of memory reading %s", path);
    while (status == SKIT_OK) {
        if (len == cap) {
            if (len >= limit) {
                status = SKIT_ERROR(SKIT_ETOOBIG, "%s: not a regular file and longer than %zu MiB "
                                    "(the limit for a pipe or device, from the memory available); "
                                    "save it to a file first", path, limit >> 20);
                break;
            }
            char *bigger = cap < SIZE_MAX / 2 ? realloc(text, cap * 2) : NULL;
            if (!bigger) {
                status = SKIT_ERROR(SKIT_ENOMEM, "out of memory reading %s", path);
                break;
            }
            text = bigger;
            cap *= 2;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        /* an endless binary stream (/dev/zero) is refused at its first NUL */
        if (got && memchr(text + len, '\0', got)) {
            status = SKIT_ERROR(SKIT_EFORMAT, "%s: contains a NUL byte (binary file?)", path);
            break;
        }
        len += got;
        if (got == 0) {
            if (ferror(f)) status = SKIT_ERROR(SKIT_EIO, "cannot read %s: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (status == SKIT_OK) status = parse_text(text, len, path, out);
    free(text);
    return status;
}
