/* npy.c — NumPy .npy files (format versions 1.0, 2.0, 3.0), float64 and
 * float32, C or Fortran order, 1-D or 2-D (see skit/io.h).
 *
 * Layout: "\x93NUMPY", major, minor, header length (uint16 LE for 1.0,
 * uint32 LE for 2.0/3.0), then the header — a Python dict literal such as
 *   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and a newline — then the raw array data.
 *
 * The header is parsed by a small recursive-descent reader of exactly the
 * Python literal syntax NumPy writes (and the variations a hand-written or
 * other-tool file may use: either quote, keys in any order, extra spaces,
 * trailing commas), and nothing else: a file is either understood
 * completely or rejected with a message that says what is wrong.
 * Bytes are assembled explicitly little-endian so the code does not depend
 * on the host's byte order. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "skit/io.h"

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
/* NumPy itself refuses headers above 10000 bytes by default; anything this
 * large is not a header skit could accept anyway. */
#define NPY_MAX_HEADER ((size_t)1 << 20)

void skit_matrix_free(skit_matrix *m)
{
    if (!m) return;
    skit_free(m->data);
    memset(m, 0, sizeof *m);
}

void skit_matrix_f32_free(skit_matrix_f32 *m)
{
    if (!m) return;
    skit_free(m->data);
    memset(m, 0, sizeof *m);
}

/* Where a reader puts the array: doubles or (single) floats. */
typedef struct npy_target {
    int single;
    void *data;
    size_t rows, cols;
    int ndim;
} npy_target;

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* ---- header -------------------------------------------------------------- */

typedef struct npy_header {
    int itemsize;      /* 4 or 8 */
    int fortran_order; /* 0 or 1 */
    int ndim;          /* 1 .. SKIT_NPY_MAX_DIMS */
    size_t shape[2];   /* rows and columns: an N-D array (N > 2) is read as
                          the 2-D array of its last axis */
    size_t dims[SKIT_NPY_MAX_DIMS];
    size_t count;      /* shape product */
    size_t data_offset;
    size_t data_bytes;
} npy_header;

typedef struct cursor {
    const char *p, *end;
    const char *name; /* file name for messages */
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int expect_char(cursor *c, char ch, const char *where)
{
    skip_space(c);
    if (c->p >= c->end)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: ended where '%c' was expected %s", c->name, ch,
                          where);
    if (*c->p != ch)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: expected '%c' %s, found '%c'", c->name, ch, where,
                          *c->p);
    c->p++;
    return SKIT_OK;
}

/* A quoted Python string without escapes, into out[size]. */
static int parse_string(cursor *c, char *out, size_t size, const char *what)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: expected a quoted string for %s", c->name, what);
    char quote = *c->p++;
    size_t len = 0;
    while (c->p < c->end && *c->p != quote) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '\\' || ch == '\n' || ch < 0x20 || ch >= 0x7f)
            return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: unsupported character in %s string", c->name,
                              what);
        if (len + 1 >= size)
            return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: %s string too long", c->name, what);
        out[len++] = *c->p++;
    }
    if (c->p >= c->end)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: unterminated string in %s", c->name, what);
    c->p++;
    out[len] = '\0';
    return SKIT_OK;
}

static int is_identifier_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

static int parse_bool(cursor *c, int *out)
{
    skip_space(c);
    const char *start = c->p;
    while (c->p < c->end && is_identifier_char(*c->p)) c->p++;
    size_t len = (size_t)(c->p - start);
    if (len == 4 && memcmp(start, "True", 4) == 0) *out = 1;
    else if (len == 5 && memcmp(start, "False", 5) == 0) *out = 0;
    else
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: fortran_order must be True or False, found '%.*s'",
                          c->name, (int)(len ? len : 1), len ? start : (c->p < c->end ? c->p : "?"));
    return SKIT_OK;
}

/* A tuple of non-negative integers: (), (3,), (2, 3), (2, 3,). Python
 * 2-era files may write 3L. At most `max` entries are stored; *ndim gets
 * the full count. */
static int parse_shape(cursor *c, size_t *dims, size_t max, int *ndim)
{
    SKIT_TRY(expect_char(c, '(', "to open the shape tuple"));
    int count = 0, trailing_comma = 0;
    for (;;) {
        skip_space(c);
        if (c->p < c->end && *c->p == ')') {
            c->p++;
            break;
        }
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: shape must be a tuple of non-negative integers",
                              c->name);
        size_t value = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            size_t digit = (size_t)(*c->p - '0');
            if (value > (SIZE_MAX - digit) / 10)
                return SKIT_ERROR(SKIT_EOVERFLOW, "%s: .npy shape entry %d does not fit in size_t", c->name, count);
            value = value * 10 + digit;
            c->p++;
        }
        if (c->p < c->end && (*c->p == 'L' || *c->p == 'l')) c->p++;
        if (count < 64) {
            if ((size_t)count < max) dims[count] = value;
            count++;
        } else {
            return SKIT_ERROR(SKIT_EFORMAT, "%s: .npy shape has more than 64 dimensions", c->name);
        }
        skip_space(c);
        trailing_comma = 0;
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            trailing_comma = 1;
            continue;
        }
        if (c->p < c->end && *c->p == ')') {
            c->p++;
            break;
        }
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: expected ',' or ')' in the shape tuple", c->name);
    }
    /* "(3)" is the integer 3 in Python, not a tuple */
    if (count == 1 && !trailing_comma)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: shape (%zu) is not a tuple (a 1-D shape is (%zu,))",
                          c->name, dims[0], dims[0]);
    *ndim = count;
    return SKIT_OK;
}

static int parse_descr(const char *name, const char *descr, int *itemsize)
{
    size_t len = strlen(descr);
    char order = len ? descr[0] : '?';
    const char *type = (order == '<' || order == '>' || order == '=' || order == '|') ? descr + 1 : descr;
    int is_float = type[0] == 'f' && (strcmp(type + 1, "8") == 0 || strcmp(type + 1, "4") == 0);
    if (!is_float)
        return SKIT_ERROR(SKIT_EFORMAT,
                          "%s: unsupported .npy dtype '%s': need float64 '<f8' or float32 '<f4' "
                          "(convert with arr.astype('<f8'))",
                          name, descr);
    /* '=' is native order; '|' ("not applicable") is what some writers put
     * for any 1-byte-aligned type: both mean little-endian only on a
     * little-endian host */
    int little = order == '<' || ((order == '=' || order == '|') && host_is_little_endian());
    if (!little)
        return SKIT_ERROR(SKIT_EFORMAT,
                          "%s: big-endian or unspecified byte order in .npy dtype '%s' not supported: "
                          "need '<f8' or '<f4' (convert with arr.astype('<f8'))",
                          name, descr);
    *itemsize = type[1] == '8' ? 8 : 4;
    return SKIT_OK;
}

/* The fixed preamble: magic, version and header length. `b` holds the
 * first min(total, 12) bytes of a file or image of `total` bytes. */
static int parse_preamble(const unsigned char *b, size_t total, const char *name, size_t *prefix,
                          size_t *header_len)
{
    if (total < 6 || memcmp(b, npy_magic, 6) != 0)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: not a .npy file (bad magic string; need \\x93NUMPY)", name);
    if (total < 8) return SKIT_ERROR(SKIT_EFORMAT, "%s: truncated .npy file (%zu bytes, no version)", name, total);
    int major = b[6], minor = b[7];
    if (!(major >= 1 && major <= 3 && minor == 0))
        return SKIT_ERROR(SKIT_EFORMAT, "%s: unsupported .npy format version %d.%d: need 1.0, 2.0 or 3.0", name, major,
                          minor);
    *prefix = major == 1 ? 10 : 12;
    if (total < *prefix)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: truncated .npy file (%zu bytes, no header length)", name, total);
    if (major == 1) *header_len = (size_t)b[8] | (size_t)b[9] << 8;
    else *header_len = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    if (*header_len > NPY_MAX_HEADER)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: .npy header length %zu exceeds the %zu-byte limit", name, *header_len,
                          NPY_MAX_HEADER);
    if (*header_len > total - *prefix)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: truncated .npy file: header of %zu bytes but only %zu bytes follow", name,
                          *header_len, total - *prefix);
    return SKIT_OK;
}

/* The header dict text[0..len), then the shape/size checks against the
 * file length `total`; the data start at prefix + len. */
static int parse_dict(const char *text, size_t len, size_t prefix, size_t total, const char *name, int max_ndim,
                      npy_header *h)
{
    const size_t header_len = len;
    memset(h, 0, sizeof *h);
    cursor c = {text, text + len, name};
    int have_descr = 0, have_order = 0, have_shape = 0, ndim = 0;
    size_t *dims = h->dims;
    SKIT_TRY(expect_char(&c, '{', "at the start of the header dict"));
    for (;;) {
        skip_space(&c);
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            break;
        }
        char key[32];
        SKIT_TRY(parse_string(&c, key, sizeof key, "a dict key"));
        SKIT_TRY(expect_char(&c, ':', "after a dict key"));
        if (strcmp(key, "descr") == 0) {
            if (have_descr++) return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: key 'descr' repeated", name);
            char descr[64];
            SKIT_TRY(parse_string(&c, descr, sizeof descr, "descr"));
            SKIT_TRY(parse_descr(name, descr, &h->itemsize));
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_order++)
                return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: key 'fortran_order' repeated", name);
            SKIT_TRY(parse_bool(&c, &h->fortran_order));
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape++) return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: key 'shape' repeated", name);
            SKIT_TRY(parse_shape(&c, dims, SKIT_NPY_MAX_DIMS, &ndim));
        } else {
            return SKIT_ERROR(SKIT_EFORMAT,
                              "%s: malformed .npy header: unexpected key '%s' (need exactly 'descr', "
                              "'fortran_order', 'shape')",
                              name, key);
        }
        skip_space(&c);
        if (c.p < c.end && *c.p == ',') {
            c.p++;
            continue;
        }
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            break;
        }
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: expected ',' or '}' after the value of '%s'", name,
                          key);
    }
    skip_space(&c);
    if (c.p != c.end)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: unexpected text after the dict", name);
    if (!have_descr || !have_order || !have_shape)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: malformed .npy header: missing key '%s'", name,
                          !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    if (ndim < 1 || ndim > max_ndim) {
        if (max_ndim == 2)
            return SKIT_ERROR(SKIT_EFORMAT, "%s: .npy array has %d dimensions: need a 1-D or 2-D array", name, ndim);
        return SKIT_ERROR(SKIT_EFORMAT, "%s: .npy array has %d dimensions: need 1 to %d", name, ndim, max_ndim);
    }
    if (ndim > 2 && h->fortran_order)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: %d-D .npy array in Fortran order: need C order (numpy's default)",
                          name, ndim);
    h->ndim = ndim;
    h->shape[0] = dims[0];
    h->shape[1] = ndim >= 2 ? dims[ndim - 1] : 1;
    for (int a = 1; a + 1 < ndim; a++)
        if (skit_size_mul(h->shape[0], dims[a], &h->shape[0]))
            return SKIT_ERROR(SKIT_EOVERFLOW, "%s: .npy shape overflows size_t", name);
    if (skit_size_mul(h->shape[0], h->shape[1], &h->count) ||
        skit_size_mul(h->count, (size_t)h->itemsize, &h->data_bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "%s: .npy shape (%zu, %zu) overflows size_t", name, h->shape[0], h->shape[1]);
    h->data_offset = prefix + header_len;
    size_t have = total - h->data_offset;
    if (have < h->data_bytes)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: truncated .npy file: shape needs %zu data bytes, file has %zu", name,
                          h->data_bytes, have);
    if (have > h->data_bytes)
        return SKIT_ERROR(SKIT_EFORMAT, "%s: %zu trailing bytes after the .npy data (shape needs %zu bytes)", name,
                          have - h->data_bytes, h->data_bytes);
    return SKIT_OK;
}

/* ---- data ---------------------------------------------------------------- */

static double load_value(const unsigned char *b, int itemsize)
{
    if (itemsize == 8) {
        uint64_t bits = 0;
        for (int i = 7; i >= 0; i--) bits = bits << 8 | b[i];
        double v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    uint32_t bits = 0;
    for (int i = 3; i >= 0; i--) bits = bits << 8 | b[i];
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

/* Convert elements first..first+count-1 (in file order) from raw bytes into
 * the column-major output (float: '<f4' exactly, '<f8' rounded). */
static int decode(const npy_header *h, const unsigned char *raw, size_t first, size_t count, npy_target *out,
                  const char *name)
{
    const size_t rows = h->shape[0], cols = h->shape[1];
    for (size_t e = first; e < first + count; e++) {
        double v = load_value(raw + (e - first) * (size_t)h->itemsize, h->itemsize);
        /* C order: element e is (e / cols, e % cols); Fortran order and 1-D
         * arrays are already column-major */
        size_t i = e, j = 0;
        if (!h->fortran_order && h->ndim >= 2) {
            i = e / cols;
            j = e % cols;
        } else if (h->ndim >= 2) {
            i = e % rows;
            j = e / rows;
        }
        const char *what = isfinite(v) ? "value beyond float32's range" : "non-finite value";
        if (out->single && isfinite(v) && isfinite((float)v)) {
            ((float *)out->data)[i + j * rows] = (float)v;
            continue;
        }
        if (!out->single && isfinite(v)) {
            ((double *)out->data)[i + j * rows] = v;
            continue;
        }
        if (h->ndim == 1) return SKIT_ERROR(SKIT_ENONFINITE, "%s: %s %g at element [%zu]", name, what, v, i);
        return SKIT_ERROR(SKIT_ENONFINITE, "%s: %s %g at element [%zu, %zu]", name, what, v, i, j);
    }
    return SKIT_OK;
}

static int allocate_output(const npy_header *h, const char *name, npy_target *out)
{
    size_t bytes, elem = out->single ? sizeof(float) : sizeof(double);
    if (skit_size_mul(h->count, elem, &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "%s: .npy array of %zu elements overflows size_t", name, h->count);
    SKIT_TRY(skit_memory_check(bytes, "array from .npy file"));
    out->data = skit_malloc(h->count, elem);
    if (!out->data) return SKIT_ENOMEM;
    out->rows = h->shape[0];
    out->cols = h->shape[1];
    out->ndim = h->ndim > 2 ? 2 : h->ndim;
    return SKIT_OK;
}

static int parse_target(const void *buffer, size_t length, npy_target *out)
{
    if (length > 0) SKIT_REQUIRE_PTR(buffer);
    static const unsigned char empty[1] = {0};
    const unsigned char *b = length ? buffer : empty;
    npy_header h;
    size_t prefix, header_len;
    SKIT_TRY(parse_preamble(b, length, "<npy buffer>", &prefix, &header_len));
    SKIT_TRY(parse_dict((const char *)b + prefix, header_len, prefix, length, "<npy buffer>", 2, &h));
    SKIT_TRY(allocate_output(&h, "<npy buffer>", out));
    int status = decode(&h, b + h.data_offset, 0, h.count, out, "<npy buffer>");
    if (status != SKIT_OK) {
        skit_free(out->data);
        out->data = NULL;
    }
    return status;
}

int skit_npy_parse(const void *buffer, size_t length, skit_matrix *out)
{
    SKIT_REQUIRE_PTR(out);
    memset(out, 0, sizeof *out);
    npy_target t = {0};
    SKIT_TRY(parse_target(buffer, length, &t));
    *out = (skit_matrix){t.data, t.rows, t.cols, t.ndim};
    return SKIT_OK;
}

int skit_npy_parse_f32(const void *buffer, size_t length, skit_matrix_f32 *out)
{
    SKIT_REQUIRE_PTR(out);
    memset(out, 0, sizeof *out);
    npy_target t = {.single = 1};
    SKIT_TRY(parse_target(buffer, length, &t));
    *out = (skit_matrix_f32){t.data, t.rows, t.cols, t.ndim};
    return SKIT_OK;
}

/* Reads exactly `size` bytes or reports why not. */
static int read_exact(FILE *f, void *buffer, size_t size, const char *path)
{
    if (size == 0) return SKIT_OK;
    size_t got = fread(buffer, 1, size, f);
    if (got == size) return SKIT_OK;
    if (ferror(f)) return SKIT_ERROR(SKIT_EIO, "cannot read %s: %s", path, strerror(errno));
    return SKIT_ERROR(SKIT_EFORMAT, "%s: truncated .npy file (file shrank while reading)", path);
}

/* The file at path with at most max_ndim axes into out, its header into *h. */
static int read_file(const char *path, int max_ndim, npy_target *out, npy_header *h)
{
    SKIT_REQUIRE_PTR(path);
    FILE *f = fopen(path, "rb");
    if (!f) return SKIT_ERROR(SKIT_EIO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = errno;
        fclose(f);
        if (S_ISDIR(st.st_mode)) return SKIT_ERROR(SKIT_EIO, "cannot read %s: is a directory", path);
        return SKIT_ERROR(SKIT_EIO, "cannot read %s: not a regular file%s%s", path, err ? ": " : "",
                          err ? strerror(err) : "");
    }
    const size_t total = (size_t)st.st_size;
    /* Read the preamble and header first, then stream the data straight
     * into the output so a large file is not held twice in memory. */
    unsigned char pre[12] = {0};
    size_t pre_len = total < sizeof pre ? total : sizeof pre, prefix = 0, header_len = 0;
    int status = read_exact(f, pre, pre_len, path);
    if (status == SKIT_OK) status = parse_preamble(pre, total, path, &prefix, &header_len);
    if (status == SKIT_OK) {
        char *header = malloc(header_len + 1);
        if (!header) status = SKIT_ERROR(SKIT_ENOMEM, "out of memory reading the header of %s", path);
        if (status == SKIT_OK && fseek(f, (long)prefix, SEEK_SET) != 0)
            status = SKIT_ERROR(SKIT_EIO, "cannot seek in %s: %s", path, strerror(errno));
        if (status == SKIT_OK) status = read_exact(f, header, header_len, path);
        if (status == SKIT_OK) status = parse_dict(header, header_len, prefix, total, path, max_ndim, h);
        free(header);
    }
    if (status == SKIT_OK) status = allocate_output(h, path, out);
    if (status == SKIT_OK) {
        unsigned char chunk[1 << 16];
        const size_t per_chunk = sizeof chunk / (size_t)h->itemsize;
        for (size_t done = 0; done < h->count && status == SKIT_OK;) {
            size_t n = SKIT_MIN(per_chunk, h->count - done);
            status = read_exact(f, chunk, n * (size_t)h->itemsize, path);
            if (status == SKIT_OK) status = decode(h, chunk, done, n, out, path);
            done += n;
        }
        if (status != SKIT_OK) {
            skit_free(out->data);
            out->data = NULL;
        }
    }
    fclose(f);
    return status;
}

int skit_npy_read(const char *path, skit_matrix *out)
{
    SKIT_REQUIRE_PTR(out);
    memset(out, 0, sizeof *out);
    npy_header h;
    npy_target t = {0};
    SKIT_TRY(read_file(path, 2, &t, &h));
    *out = (skit_matrix){t.data, t.rows, t.cols, t.ndim};
    return SKIT_OK;
}

int skit_npy_read_f32(const char *path, skit_matrix_f32 *out)
{
    SKIT_REQUIRE_PTR(out);
    memset(out, 0, sizeof *out);
    npy_header h;
    npy_target t = {.single = 1};
    SKIT_TRY(read_file(path, 2, &t, &h));
    *out = (skit_matrix_f32){t.data, t.rows, t.cols, t.ndim};
    return SKIT_OK;
}

int skit_npy_read_nd(const char *path, skit_matrix *out, size_t *shape, int *ndim)
{
    SKIT_REQUIRE_PTR(out);
    memset(out, 0, sizeof *out);
    SKIT_REQUIRE_PTR(shape);
    SKIT_REQUIRE_PTR(ndim);
    npy_header h;
    npy_target t = {0};
    SKIT_TRY(read_file(path, SKIT_NPY_MAX_DIMS, &t, &h));
    *out = (skit_matrix){t.data, t.rows, t.cols, t.ndim};
    *ndim = h.ndim;
    for (int a = 0; a < SKIT_NPY_MAX_DIMS; a++) shape[a] = a < h.ndim ? h.dims[a] : 1;
    return SKIT_OK;
}

/* ---- writing ------------------------------------------------------------- */

/* Header dict + the rows x cols column-major data (ld) to path, atomically:
 * column by column (Fortran order) or row by row (C order). */
static int write_image(const char *path, const char *dict, int len, const void *data, int single, size_t rows,
                       size_t cols, size_t ld, int c_order)
{
    /* pad with spaces so that preamble + header is a multiple of 64 and ends in '\n' */
    size_t header_len = (size_t)len + 1;
    header_len += (64 - (10 + header_len) % 64) % 64;
    unsigned char head[256];
    memcpy(head, npy_magic, 6);
    head[6] = 1;
    head[7] = 0;
    head[8] = (unsigned char)(header_len & 0xff);
    head[9] = (unsigned char)(header_len >> 8);
    memset(head + 10, ' ', header_len);
    memcpy(head + 10, dict, (size_t)len);
    head[10 + header_len - 1] = '\n';

    size_t tmp_size = strlen(path) + PATH_MAX + 32; /* room for a followed link */
    char *tmp = malloc(tmp_size);
    if (!tmp) return SKIT_ERROR(SKIT_ENOMEM, "out of memory");
    FILE *f = NULL;
    int status = skit_atomic_open(path, tmp, tmp_size, &f);
    if (status != SKIT_OK) {
        free(tmp);
        return status;
    }
    fwrite(head, 1, 10 + header_len, f);
    unsigned char chunk[8 * 1024];
    size_t fill = 0, outer = c_order ? rows : cols, inner = c_order ? cols : rows;
    for (size_t a = 0; a < outer; a++)
        for (size_t b = 0; b < inner; b++) {
            size_t at = c_order ? a + b * ld : b + a * ld;
            uint64_t bits = 0;
            if (single) {
                uint32_t b32;
                memcpy(&b32, (const float *)data + at, sizeof b32);
                bits = b32;
            } else {
                memcpy(&bits, (const double *)data + at, sizeof bits);
            }
            for (int k = 0; k < (single ? 4 : 8); k++) chunk[fill++] = (unsigned char)(bits >> (8 * k));
            if (fill == sizeof chunk) {
                fwrite(chunk, 1, fill, f);
                fill = 0;
            }
        }
    if (fill) fwrite(chunk, 1, fill, f);
    status = skit_atomic_commit(f, tmp, path);
    free(tmp);
    return status;
}

/* SKIT_OK if the floats of a rows x cols block are finite */
static int check_finite_f32(const float *a, size_t rows, size_t cols, size_t ld)
{
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++)
            if (!isfinite(a[i + j * ld]))
                return SKIT_ERROR(SKIT_ENONFINITE, "data[%zu, %zu] = %g: NaN/Inf not allowed", i, j,
                                  (double)a[i + j * ld]);
    return SKIT_OK;
}

/* Checks shared by the writers: rows x cols fits, ld, finite data. */
static int check_write(const void *data, int single, size_t rows, size_t cols, size_t ld)
{
    size_t count;
    if (skit_size_mul(rows, cols, &count) || count > SIZE_MAX / 8)
        return SKIT_ERROR(SKIT_EOVERFLOW, "array %zu x %zu overflows size_t", rows, cols);
    if (count > 0) {
        SKIT_REQUIRE_PTR(data);
        if (ld < rows) return SKIT_ERROR(SKIT_ESHAPE, "ld = %zu too small: need ld >= rows (= %zu)", ld, rows);
        /* the readers reject NaN/Inf, so a file with them could not be read back */
        SKIT_TRY(single ? check_finite_f32(data, rows, cols, ld)
                        : skit_check_finite_matrix(data, rows, cols, ld, "data"));
    }
    return SKIT_OK;
}

/* A 1-D or 2-D (Fortran order) '<f8' from doubles or (single) '<f4' from floats. */
static int write_matrix(const char *path, const void *data, int single, size_t rows, size_t cols, size_t ld,
                        int ndim)
{
    SKIT_REQUIRE_PTR(path);
    if (ndim != 1 && ndim != 2) return SKIT_ERROR(SKIT_EDOM, "ndim = %d out of range: need 1 or 2", ndim);
    if (ndim == 1 && cols != 1)
        return SKIT_ERROR(SKIT_ESHAPE, "cols = %zu for a 1-D array: need cols = 1", cols);
    SKIT_TRY(check_write(data, single, rows, cols, ld));
    char dict[160];
    const int itemsize = single ? 4 : 8;
    int len = ndim == 1 ? snprintf(dict, sizeof dict, "{'descr': '<f%d', 'fortran_order': False, 'shape': (%zu,), }",
                                   itemsize, rows)
                        : snprintf(dict, sizeof dict,
                                   "{'descr': '<f%d', 'fortran_order': True, 'shape': (%zu, %zu), }", itemsize,
                                   rows, cols);
    return write_image(path, dict, len, data, single, rows, cols, ld, 0);
}

int skit_npy_write(const char *path, const double *data, size_t rows, size_t cols, size_t ld, int ndim)
{
    return write_matrix(path, data, 0, rows, cols, ld, ndim);
}

int skit_npy_write_f32(const char *path, const float *data, size_t rows, size_t cols, size_t ld, int ndim)
{
    return write_matrix(path, data, 1, rows, cols, ld, ndim);
}

/* A C-order array of shape[0..ndim) from the column-major matrix of
 * skit_npy_read_nd's layout: '<f8' from doubles or (single) '<f4' from floats. */
static int write_nd(const char *path, const void *data, int single, size_t ld, const size_t *shape, int ndim)
{
    SKIT_REQUIRE_PTR(path);
    SKIT_REQUIRE_PTR(shape);
    if (ndim < 1 || ndim > SKIT_NPY_MAX_DIMS)
        return SKIT_ERROR(SKIT_EDOM, "ndim = %d out of range: need 1 to %d", ndim, SKIT_NPY_MAX_DIMS);
    size_t rows = 1, cols = ndim >= 2 ? shape[ndim - 1] : 1;
    for (int a = 0; a < (ndim >= 2 ? ndim - 1 : 1); a++)
        if (skit_size_mul(rows, shape[a], &rows))
            return SKIT_ERROR(SKIT_EOVERFLOW, "array shape overflows size_t");
    SKIT_TRY(check_write(data, single, rows, cols, ld));
    char dict[200];
    int len = snprintf(dict, sizeof dict, "{'descr': '<f%d', 'fortran_order': False, 'shape': (", single ? 4 : 8);
    for (int a = 0; a < ndim; a++)
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%zu%s", shape[a], a + 1 < ndim || ndim == 1 ? ", " : "");
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    return write_image(path, dict, len, data, single, rows, cols, ld, 1);
}

int skit_npy_write_nd(const char *path, const double *data, size_t ld, const size_t *shape, int ndim)
{
    return write_nd(path, data, 0, ld, shape, ndim);
}

int skit_npy_write_nd_f32(const char *path, const float *data, size_t ld, const size_t *shape, int ndim)
{
    return write_nd(path, data, 1, ld, shape, ndim);
}
