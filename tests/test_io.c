/* test_io.c — .npy reading and writing (round trips, hand-built images of
 * every accepted variant, every malformed variant including truncation at
 * every byte), the TSV reader (comments, header, separators, every error
 * with its line and column) and the TSV writer (provenance header, atomic
 * creation, abort). */
#include "config.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_util.h"

/* ---- helpers --------------------------------------------------------- */

static char tmpdir[256];

static void make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/skit-test-io-XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* number of entries in tmpdir other than . and .. */
static int tmpdir_entries(void)
{
    DIR *d = opendir(tmpdir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d) return;
    char path[512];
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(tmpdir);
}

static void tmp_path(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", tmpdir, name); }

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)size + 1);
    ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    buf[size] = 0;
    *len = (size_t)size;
    return buf;
}

/* A .npy image built by hand: preamble for `major`, the dict text padded
 * with spaces and '\n' to a multiple of 64, then `data`. */
typedef struct image {
    unsigned char bytes[4096];
    size_t len;
} image;

static void build_npy(image *im, int major, const char *dict, const void *data, size_t data_len)
{
    size_t prefix = major == 1 ? 10 : 12, dlen = strlen(dict);
    size_t header_len = dlen + 1;
    header_len += (64 - (prefix + header_len) % 64) % 64;
    ck_assert_uint_le(prefix + header_len + data_len, sizeof im->bytes);
    memcpy(im->bytes, "\x93NUMPY", 6);
    im->bytes[6] = (unsigned char)major;
    im->bytes[7] = 0;
    for (size_t b = 0; b < prefix - 8; b++) im->bytes[8 + b] = (unsigned char)(header_len >> (8 * b));
    memset(im->bytes + prefix, ' ', header_len);
    memcpy(im->bytes + prefix, dict, dlen);
    im->bytes[prefix + header_len - 1] = '\n';
    if (data_len) memcpy(im->bytes + prefix + header_len, data, data_len);
    im->len = prefix + header_len + data_len;
}

/* little-endian encodings of doubles / floats (host here is little-endian,
 * but spell it out so the images are the file format, not the host's) */
static void put_f8(unsigned char *out, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], 8);
        for (int b = 0; b < 8; b++) out[8 * i + b] = (unsigned char)(bits >> (8 * b));
    }
}

static void put_f4(unsigned char *out, const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &v[i], 4);
        for (int b = 0; b < 4; b++) out[4 * i + b] = (unsigned char)(bits >> (8 * b));
    }
}

/* The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]] stored in C order (f8). */
static void valid_c_order_image(image *im)
{
    const double c_order[6] = {1, 2, 3, 4, 5, 6};
    unsigned char raw[48];
    put_f8(raw, c_order, 6);
    build_npy(im, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", raw, sizeof raw);
}

static void expect_2x3(const skit_matrix *m)
{
    ck_assert_int_eq(m->ndim, 2);
    ck_assert_uint_eq(m->rows, 2);
    ck_assert_uint_eq(m->cols, 3);
    const double want[6] = {1, 4, 2, 5, 3, 6}; /* column-major */
    for (int i = 0; i < 6; i++) ck_assert_msg(m->data[i] == want[i], "data[%d] = %g, want %g", i, m->data[i], want[i]);
}

/* ---- .npy ------------------------------------------------------------ */

/* A fresh temporary directory, a seeded generator and path = name in it */
static uint64_t npy_test_begin(skit_rng *rng, char *path, size_t size, const char *name)
{
    make_tmpdir();
    uint64_t seed = tu_seed();
    skit_rng_seed(rng, seed);
    tmp_path(path, size, name);
    return seed;
}

START_TEST(test_npy_round_trip_bit_exact)
{
    skit_rng rng;
    char path[512];
    uint64_t seed = npy_test_begin(&rng, path, sizeof path, "x.npy");
    const size_t dims[][2] = {{1, 1}, {7, 1}, {1, 9}, {5, 3}, {64, 17}, {0, 3}, {3, 0}, {0, 1}, {1000, 1}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        for (int ndim = 1; ndim <= 2; ndim++) {
            size_t rows = dims[t][0], cols = dims[t][1];
            if (ndim == 1 && cols != 1) continue;
            size_t ld = rows + 2;
            double *x = tu_random(&rng, ld * (cols ? cols : 1));
            /* extreme but finite values survive bit for bit */
            if (rows >= 3) {
                x[0] = 1e-310;
                x[1] = -1.7976931348623157e308;
                x[2] = -0.0;
            }
            TU_EXPECT_OK(skit_npy_write(path, x, rows, cols, ld, ndim));
            size_t len;
            unsigned char *bytes = read_file(path, &len);
            ck_assert_uint_eq((len - rows * cols * 8) % 64, 0); /* data aligned to 64 bytes */
            skit_matrix m;
            TU_EXPECT_OK(skit_npy_read(path, &m));
            ck_assert_int_eq(m.ndim, ndim);
            ck_assert_uint_eq(m.rows, rows);
            ck_assert_uint_eq(m.cols, cols);
            for (size_t j = 0; j < cols; j++)
                ck_assert_msg(memcmp(m.data + j * rows, x + j * ld, rows * sizeof(double)) == 0,
                              "%zux%zu ndim %d: column %zu differs (seed %llu)", rows, cols, ndim, j,
                              (unsigned long long)seed);
            skit_matrix_free(&m);
            ck_assert_ptr_null(m.data);
            /* the in-memory parser agrees with the file reader */
            TU_EXPECT_OK(skit_npy_parse(bytes, len, &m));
            ck_assert_uint_eq(m.rows, rows);
            if (rows && cols) ck_assert(memcmp(m.data, x, rows * sizeof(double)) == 0);
            skit_matrix_free(&m);
            free(bytes);
            skit_free(x);
        }
    }
    ck_assert_int_eq(tmpdir_entries(), 1); /* only x.npy: no temporary left */
    remove_tmpdir();
}
END_TEST

/* float32 .npy: written '<f4' and read back bit for bit (C and Fortran
 * order, extremes, -0), '<f8' rounded to nearest on a float32 read,
 * out-of-range and non-finite values refused, nothing half-written. */
START_TEST(test_npy_f32)
{
    skit_rng rng;
    char path[512];
    uint64_t seed = npy_test_begin(&rng, path, sizeof path, "x32.npy");
    const size_t dims[][2] = {{1, 1}, {7, 1}, {1, 9}, {5, 3}, {64, 17}, {0, 3}, {1000, 1}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int ndim = 1; ndim <= 2; ndim++) {
            size_t rows = dims[t][0], cols = dims[t][1], ld = rows + 3;
            if (ndim == 1 && cols != 1) continue;
            float *x = tu_alloc_f32(ld * (cols ? cols : 1));
            for (size_t i = 0; i < ld * (cols ? cols : 1); i++) x[i] = (float)skit_rng_normal(&rng);
            if (rows >= 3) {
                x[0] = 1e-40f; /* subnormal */
                x[1] = -3.4028235e38f;
                x[2] = -0.0f;
            }
            TU_EXPECT_OK(skit_npy_write_f32(path, x, rows, cols, ld, ndim));
            size_t len;
            unsigned char *bytes = read_file(path, &len);
            ck_assert_uint_eq((len - rows * cols * 4) % 64, 0);
            ck_assert_ptr_nonnull(strstr((const char *)bytes + 10, "'<f4'"));
            skit_matrix_f32 m;
            TU_EXPECT_OK(skit_npy_read_f32(path, &m));
            ck_assert(m.ndim == ndim && m.rows == rows && m.cols == cols);
            for (size_t j = 0; j < cols; j++)
                ck_assert_msg(memcmp(m.data + j * rows, x + j * ld, rows * sizeof(float)) == 0,
                              "%zux%zu: column %zu differs (seed %llu)", rows, cols, j, (unsigned long long)seed);
            skit_matrix_f32_free(&m);
            ck_assert_ptr_null(m.data);
            /* the float64 reader widens the same file exactly */
            skit_matrix w;
            TU_EXPECT_OK(skit_npy_parse(bytes, len, &w));
            for (size_t i = 0; i < rows && cols; i++) ck_assert(w.data[i] == (double)x[i]);
            skit_matrix_free(&w);
            free(bytes);
            skit_free(x);
        }
    /* '<f8' in C order read as float32: rounded to nearest, transposed to column-major */
    image im;
    const double c_order[6] = {1.0 / 3.0, 2, 3, 4, 5, 1e-300};
    unsigned char raw[48];
    put_f8(raw, c_order, 6);
    build_npy(&im, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", raw, sizeof raw);
    skit_matrix_f32 m;
    TU_EXPECT_OK(skit_npy_parse_f32(im.bytes, im.len, &m));
    const float want[6] = {1.0f / 3.0f, 4, 2, 5, 3, 0.0f};
    ck_assert(m.rows == 2 && m.cols == 3 && memcmp(m.data, want, sizeof want) == 0);
    skit_matrix_f32_free(&m);
    /* beyond float32's range, and NaN: refused, with the element */
    const double big[2] = {1, 1e39};
    put_f8(raw, big, 2);
    build_npy(&im, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", raw, 16);
    TU_EXPECT_STATUS(skit_npy_parse_f32(im.bytes, im.len, &m), SKIT_ENONFINITE);
    ck_assert_ptr_nonnull(strstr(skit_last_error(), "float32's range"));
    ck_assert_ptr_null(m.data);
    const float nan32[1] = {NAN};
    put_f4(raw, nan32, 1);
    build_npy(&im, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", raw, 4);
    TU_EXPECT_STATUS(skit_npy_parse_f32(im.bytes, im.len, &m), SKIT_ENONFINITE);
    /* the writer refuses NaN and leaves nothing */
    char bad[512];
    tmp_path(bad, sizeof bad, "bad.npy");
    TU_EXPECT_STATUS(skit_npy_write_f32(bad, nan32, 1, 1, 1, 1), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_npy_read_f32(bad, &m), SKIT_EIO);
    TU_EXPECT_STATUS(skit_npy_read_f32(NULL, &m), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_npy_write_f32(bad, nan32, 1, 2, 1, 1), SKIT_ESHAPE);
    ck_assert_int_eq(tmpdir_entries(), 1); /* only x32.npy */
    remove_tmpdir();
}
END_TEST

START_TEST(test_npy_nd_round_trip)
{
    make_tmpdir();
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    char path[512];
    tmp_path(path, sizeof path, "s.npy");
    /* (L, H, n, d) and (H, n, d) stacks, and 2-D / 1-D written in C order */
    const size_t shapes[][4] = {{2, 3, 5, 4}, {3, 7, 2, 1}, {4, 6, 1, 1}, {9, 1, 1, 1}, {1, 1, 3, 2}};
    const int ndims[] = {4, 3, 2, 1, 4};
    for (size_t t = 0; t < sizeof ndims / sizeof ndims[0]; t++) {
        int ndim = ndims[t];
        size_t cols = ndim >= 2 ? shapes[t][ndim - 1] : 1, rows = 1;
        for (int a = 0; a < (ndim >= 2 ? ndim - 1 : 1); a++) rows *= shapes[t][a];
        size_t ld = rows + 1;
        double *x = tu_random(&rng, ld * cols);
        TU_EXPECT_OK(skit_npy_write_nd(path, x, ld, shapes[t], ndim));
        skit_matrix m;
        size_t shape[SKIT_NPY_MAX_DIMS];
        int got;
        TU_EXPECT_OK(skit_npy_read_nd(path, &m, shape, &got));
        ck_assert_int_eq(got, ndim);
        for (int a = 0; a < ndim; a++) ck_assert_uint_eq(shape[a], shapes[t][a]);
        ck_assert_uint_eq(m.rows, rows);
        ck_assert_uint_eq(m.cols, cols);
        for (size_t j = 0; j < cols; j++)
            ck_assert_msg(memcmp(m.data + j * rows, x + j * ld, rows * sizeof(double)) == 0,
                          "shape %zu: column %zu differs (seed %llu)", t, j, (unsigned long long)seed);
        skit_matrix_free(&m);
        /* the 2-D reader accepts what it can and refuses more axes */
        int st = skit_npy_read(path, &m);
        if (ndim <= 2) {
            TU_EXPECT_OK(st);
            skit_matrix_free(&m);
        } else {
            ck_assert_int_eq(st, SKIT_EFORMAT);
        }
        skit_free(x);
    }
    /* the element order is C order: [l, h, i, c] is row (l*H + h)*n + i, column c */
    const size_t s4[4] = {2, 2, 2, 2};
    double v[16];
    for (size_t e = 0; e < 16; e++) v[(e / 2) + (e % 2) * 8] = (double)e;
    TU_EXPECT_OK(skit_npy_write_nd(path, v, 8, s4, 4));
    size_t len;
    unsigned char *bytes = read_file(path, &len);
    for (size_t e = 0; e < 16; e++) {
        double d;
        memcpy(&d, bytes + len - 128 + 8 * e, 8);
        ck_assert_double_eq(d, (double)e);
    }
    const char *want = "'shape': (2, 2, 2, 2)";
    int found = 0;
    for (size_t i = 10; i + strlen(want) <= len && !found; i++) found = memcmp(bytes + i, want, strlen(want)) == 0;
    ck_assert(found);
    free(bytes);
    const size_t s5[4] = {1, 1, 1, 1};
    ck_assert_int_eq(skit_npy_write_nd(path, v, 1, s5, 5), SKIT_EDOM);
    remove_tmpdir();
}
END_TEST

START_TEST(test_npy_hand_built_variants)
{
    image im;
    skit_matrix m;
    /* float64, C order */
    valid_c_order_image(&im);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    expect_2x3(&m);
    skit_matrix_free(&m);

    /* float64, Fortran order */
    const double f_order[6] = {1, 4, 2, 5, 3, 6};
    unsigned char raw[64];
    put_f8(raw, f_order, 6);
    build_npy(&im, 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", raw, 48);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    expect_2x3(&m);
    skit_matrix_free(&m);

    /* float32, C order: values exactly representable, converted to double */
    const float f32[6] = {1, 2, 3, 4, 5, 6};
    put_f4(raw, f32, 6);
    build_npy(&im, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", raw, 24);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    expect_2x3(&m);
    skit_matrix_free(&m);
    /* a float32 value that is not a short decimal converts exactly */
    const float third = 1.0f / 3.0f;
    put_f4(raw, &third, 1);
    build_npy(&im, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", raw, 4);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    ck_assert(m.data[0] == (double)third && m.ndim == 1 && m.rows == 1 && m.cols == 1);
    skit_matrix_free(&m);

    /* version 2.0 and 3.0 headers (4-byte length) */
    put_f8(raw, f_order, 6);
    build_npy(&im, 2, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", raw, 48);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    expect_2x3(&m);
    skit_matrix_free(&m);
    build_npy(&im, 3, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", raw, 48);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    expect_2x3(&m);
    skit_matrix_free(&m);

    /* keys in any order, double quotes, no spaces, no trailing comma,
     * '=' byte order, Python 2's 3L, a tuple with a trailing comma */
    const char *dicts[] = {
        "{\"shape\":(2,3),\"fortran_order\":True,\"descr\":\"<f8\"}",
        "{ 'fortran_order' : True , 'descr' : '=f8' , 'shape' : ( 2 , 3 , ) }",
        "{'descr': '|f8', 'shape': (2L, 3L), 'fortran_order': True}",
        "{'descr':'<f8','fortran_order':True,'shape':(2,3),}",
    };
    for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++) {
        build_npy(&im, 1, dicts[i], raw, 48);
        skit_clear_error();
        int st = skit_npy_parse(im.bytes, im.len, &m);
        ck_assert_msg(st == SKIT_OK, "dict %s: %s", dicts[i], skit_last_error());
        expect_2x3(&m);
        skit_matrix_free(&m);
    }
    /* 1-D of length 6 */
    build_npy(&im, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", raw, 48);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    ck_assert(m.ndim == 1 && m.rows == 6 && m.cols == 1 && m.data[1] == 4);
    skit_matrix_free(&m);
    /* 2-D with an empty axis, and empty 1-D */
    build_npy(&im, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", raw, 0);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    ck_assert(m.ndim == 2 && m.rows == 0 && m.cols == 4);
    skit_matrix_free(&m);
    build_npy(&im, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", raw, 0);
    TU_EXPECT_OK(skit_npy_parse(im.bytes, im.len, &m));
    ck_assert(m.ndim == 1 && m.rows == 0);
    skit_matrix_free(&m);
}
END_TEST

START_TEST(test_npy_truncated_at_every_byte)
{
    image im;
    valid_c_order_image(&im);
    skit_matrix m;
    for (size_t len = 0; len < im.len; len++) {
        skit_clear_error();
        int st = skit_npy_parse(im.bytes, len, &m);
        ck_assert_msg(st == SKIT_EFORMAT, "truncated to %zu of %zu bytes: status %d (%s)", len, im.len, st,
                      skit_last_error());
        ck_assert(skit_last_error()[0] != '\0');
        ck_assert_ptr_null(m.data);
    }
    /* the same through files (a different code path: streamed reads) */
    make_tmpdir();
    char path[512];
    tmp_path(path, sizeof path, "t.npy");
    for (size_t len = 0; len < im.len; len++) {
        write_file(path, im.bytes, len);
        skit_clear_error();
        int st = skit_npy_read(path, &m);
        ck_assert_msg(st == SKIT_EFORMAT, "file truncated to %zu bytes: status %d (%s)", len, st, skit_last_error());
        ck_assert_ptr_null(m.data);
    }
    write_file(path, im.bytes, im.len);
    TU_EXPECT_OK(skit_npy_read(path, &m));
    expect_2x3(&m);
    skit_matrix_free(&m);
    remove_tmpdir();
}
END_TEST

/* one malformed variant: the dict, the data length and the expected status,
 * and a word the message must contain */
typedef struct bad_case {
    const char *dict;
    size_t data_len;
    int status;
    const char *word;
} bad_case;

START_TEST(test_npy_malformed_variants)
{
    static const bad_case cases[] = {
        {"{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "big-endian"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "dtype"},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 24, SKIT_EFORMAT, "dtype"},
        {"{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "dtype"},
        {"{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 12, SKIT_EFORMAT, "dtype"},
        {"{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3), }", 96, SKIT_EFORMAT, "dtype"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 3), }", 48, SKIT_EFORMAT, "3 dimensions"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8, SKIT_EFORMAT, "0 dimensions"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (6), }", 48, SKIT_EFORMAT, "not a tuple"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': [2, 3], }", 48, SKIT_EFORMAT, "shape"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }", 48, SKIT_EFORMAT, "shape"},
        {"{'descr': '<f8', 'fortran_order': False, }", 48, SKIT_EFORMAT, "missing key 'shape'"},
        {"{'descr': '<f8', 'shape': (2, 3), }", 48, SKIT_EFORMAT, "fortran_order"},
        {"{'fortran_order': False, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "descr"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", 48, SKIT_EFORMAT, "extra"},
        {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "repeated"},
        {"{'descr': '<f8', 'fortran_order': 0, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "True or False"},
        {"{'descr': '<f8', 'fortran_order': false, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "True or False"},
        {"{'descr': '<f8, 'fortran_order': False, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "dtype"},
        {"{'descr': '<f8' 'fortran_order': False, 'shape': (2, 3), }", 48, SKIT_EFORMAT, "header"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), ", 48, SKIT_EFORMAT, "header"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)} junk", 48, SKIT_EFORMAT, "after the dict"},
        {"('descr', '<f8')", 48, SKIT_EFORMAT, "header"},
        {"", 48, SKIT_EFORMAT, "header"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 40, SKIT_EFORMAT, "truncated"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 56, SKIT_EFORMAT, "trailing"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 48, SKIT_EOVERFLOW, "overflow"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999, 1), }", 48, SKIT_EOVERFLOW, "size_t"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000), }", 48, SKIT_EFORMAT, "truncated"},
    };
    unsigned char raw[128] = {0};
    image im;
    skit_matrix m;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        build_npy(&im, 1, cases[i].dict, raw, cases[i].data_len);
        skit_clear_error();
        int st = skit_npy_parse(im.bytes, im.len, &m);
        ck_assert_msg(st == cases[i].status, "case %zu (%s): status %d (%s), want %d", i, cases[i].dict, st,
                      skit_last_error(), cases[i].status);
        ck_assert_msg(strstr(skit_last_error(), cases[i].word) != NULL, "case %zu: message '%s' lacks '%s'", i,
                      skit_last_error(), cases[i].word);
        ck_assert_ptr_null(m.data);
    }
    /* preamble defects */
    valid_c_order_image(&im);
    image bad = im;
    bad.bytes[1] = 'n';
    TU_EXPECT_STATUS(skit_npy_parse(bad.bytes, bad.len, &m), SKIT_EFORMAT);
    ck_assert_msg(strstr(skit_last_error(), "magic") != NULL, "%s", skit_last_error());
    bad = im;
    bad.bytes[6] = 4;
    TU_EXPECT_STATUS(skit_npy_parse(bad.bytes, bad.len, &m), SKIT_EFORMAT);
    ck_assert_msg(strstr(skit_last_error(), "version 4.0") != NULL, "%s", skit_last_error());
    bad = im;
    bad.bytes[7] = 1;
    TU_EXPECT_STATUS(skit_npy_parse(bad.bytes, bad.len, &m), SKIT_EFORMAT);
    bad = im;
    bad.bytes[8] = 0xff, bad.bytes[9] = 0x7f; /* header longer than the file */
    TU_EXPECT_STATUS(skit_npy_parse(bad.bytes, bad.len, &m), SKIT_EFORMAT);
    ck_assert_msg(strstr(skit_last_error(), "truncated") != NULL, "%s", skit_last_error());
    /* a text file is not a .npy */
    TU_EXPECT_STATUS(skit_npy_parse("1\t2\n3\t4\n", 8, &m), SKIT_EFORMAT);

    /* NaN / Inf data, f8 and f4, with the element named */
    double vals[6] = {1, 2, 3, 4, NAN, 6};
    put_f8(raw, vals, 6);
    build_npy(&im, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", raw, 48);
    TU_EXPECT_STATUS(skit_npy_parse(im.bytes, im.len, &m), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "[1, 1]") != NULL, "%s", skit_last_error());
    ck_assert_ptr_null(m.data);
    float fv[3] = {1, INFINITY, 3};
    put_f4(raw, fv, 3);
    build_npy(&im, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", raw, 12);
    TU_EXPECT_STATUS(skit_npy_parse(im.bytes, im.len, &m), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "[1]") != NULL, "%s", skit_last_error());
}
END_TEST

START_TEST(test_npy_config_errors)
{
    make_tmpdir();
    char path[512], dir_missing[512];
    tmp_path(path, sizeof path, "a.npy");
    tmp_path(dir_missing, sizeof dir_missing, "no/such/dir/a.npy");
    skit_matrix m;
    double x[4] = {1, 2, 3, 4};
    TU_EXPECT_STATUS(skit_npy_parse(NULL, 10, &m), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_npy_parse(x, 10, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_npy_read(NULL, &m), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_npy_read(path, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_npy_read(path, &m), SKIT_EIO); /* missing */
    ck_assert_msg(strstr(skit_last_error(), "a.npy") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_npy_read(tmpdir, &m), SKIT_EIO); /* a directory */
    TU_EXPECT_STATUS(skit_npy_write(NULL, x, 2, 2, 2, 2), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_npy_write(path, NULL, 2, 2, 2, 2), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_npy_write(path, x, 2, 2, 2, 3), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_npy_write(path, x, 2, 2, 2, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_npy_write(path, x, 2, 2, 2, 1), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_npy_write(path, x, 2, 2, 1, 2), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_npy_write(path, x, SIZE_MAX / 2, 4, SIZE_MAX / 2, 2), SKIT_EOVERFLOW);
    x[3] = NAN;
    TU_EXPECT_STATUS(skit_npy_write(path, x, 2, 2, 2, 2), SKIT_ENONFINITE);
    x[3] = 4;
    TU_EXPECT_STATUS(skit_npy_write(dir_missing, x, 2, 2, 2, 2), SKIT_EIO);
    ck_assert_int_eq(tmpdir_entries(), 0); /* no file, no temporary */

    /* a (sparse) file whose array cannot fit in memory is refused before
     * the data is read: float32 data of 2^40 bytes would need 2^41 bytes */
    image im;
    build_npy(&im, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1073741824, 256), }", NULL, 0);
    write_file(path, im.bytes, im.len);
    if (truncate(path, (off_t)(im.len + ((size_t)1 << 40))) == 0) {
        TU_EXPECT_STATUS(skit_npy_read(path, &m), SKIT_ETOOBIG);
        ck_assert_ptr_null(m.data);
    }
    unlink(path);
    skit_matrix_free(NULL); /* allowed */
    remove_tmpdir();
}
END_TEST

/* ---- TSV reader -------------------------------------------------------- */

static void expect_tsv(const char *text, size_t rows, size_t cols, const double *colmajor)
{
    skit_matrix m;
    skit_clear_error();
    int st = skit_tsv_parse(text, strlen(text), &m);
    ck_assert_msg(st == SKIT_OK, "parse of [%s]: %s", text, skit_last_error());
    ck_assert_uint_eq(m.rows, rows);
    ck_assert_uint_eq(m.cols, cols);
    ck_assert_int_eq(m.ndim, cols == 1 ? 1 : 2);
    for (size_t i = 0; i < rows * cols; i++)
        ck_assert_msg(m.data[i] == colmajor[i], "[%s] data[%zu] = %g want %g", text, i, m.data[i], colmajor[i]);
    skit_matrix_free(&m);
}

static void expect_tsv_error(const char *text, int status, const char *word)
{
    skit_matrix m;
    skit_clear_error();
    int st = skit_tsv_parse(text, strlen(text), &m);
    ck_assert_msg(st == status, "[%s]: status %d (%s), want %d", text, st, skit_last_error(), status);
    ck_assert_msg(strstr(skit_last_error(), word) != NULL, "[%s]: message '%s' lacks '%s'", text, skit_last_error(),
                  word);
    ck_assert_ptr_null(m.data);
}

START_TEST(test_tsv_reader_accepts)
{
    const double a23[6] = {1, 4, 2, 5, 3, 6};
    expect_tsv("1\t2\t3\n4\t5\t6\n", 2, 3, a23);
    expect_tsv("1 2 3\n4   5 6", 2, 3, a23); /* spaces, no final newline */
    expect_tsv("# skit 0.1\n# command: x\nn\tvalue\tz\n1\t2\t3\n\n# mid comment\n4\t5\t6\n", 2, 3, a23);
    expect_tsv("a b c\r\n1 2 3\r\n4 5 6\r\n", 2, 3, a23); /* CRLF, space header */
    expect_tsv("  1\t 2 \t3\n\t\n4\t5\t6\n", 2, 3, a23); /* spaces around tab fields, blank line */
    expect_tsv("  # indented comment\n1e0\t+2\t3.000\n0.4e1\t5\t6\n", 2, 3, a23);
    const double col[4] = {0.5, -1e-300, 1e300, 0x1p-3};
    expect_tsv("value\n0.5\n-1e-300\n1e300\n0.125\n", 4, 1, col);
    const double row[3] = {7, 8, 9};
    expect_tsv("7 8 9\n", 1, 3, row);
    /* %.17g output of the writer round-trips exactly */
    char text[256];
    double v[3] = {0.1, 1.0 / 3.0, -2.2250738585072014e-308};
    snprintf(text, sizeof text, "%.17g\n%.17g\n%.17g\n", v[0], v[1], v[2]);
    expect_tsv(text, 3, 1, v);
    /* inputs users send: a UTF-8 BOM, a lone CR as line end, fields longer than 128
     * characters, hex floats and underflow to zero */
    expect_tsv("\xEF\xBB\xBF" "1\t2\t3\n4\t5\t6\n", 2, 3, a23);
    expect_tsv("\xEF\xBB\xBF" "a\tb\tc\r\n1\t2\t3\r\n4\t5\t6\r\n", 2, 3, a23);
    expect_tsv("1 2 3\r4 5 6\r", 2, 3, a23);
    expect_tsv("1 2 3\r\r\n4 5 6", 2, 3, a23); /* CR, then CRLF: an empty line between */
    char longer[640];
    snprintf(longer, sizeof longer, "1.%0200d\t2\t3\n4\t5.%0300d\t6\n", 0, 0);
    expect_tsv(longer, 2, 3, a23);
    snprintf(longer, sizeof longer, "4.%0200d\n", 0);
    const double four[1] = {4};
    expect_tsv(longer, 1, 1, four);
    const double hex[3] = {3, 0x1p-1074, 0};
    expect_tsv("0x1.8p1\n0x1p-1074\n1e-400\n", 3, 1, hex);
}
END_TEST

START_TEST(test_tsv_reader_rejects)
{
    expect_tsv_error("", SKIT_EFORMAT, "no data rows");
    expect_tsv_error("# only a comment\n\n", SKIT_EFORMAT, "no data rows");
    expect_tsv_error("n\tvalue\n", SKIT_EFORMAT, "no data rows");
    expect_tsv_error("1\t2\n3\t4\t5\n", SKIT_EFORMAT, "line 2 has 3 fields, expected 2");
    expect_tsv_error("1\t2\n3\n", SKIT_EFORMAT, "line 2 has 1 fields");
    expect_tsv_error("# c\n1\t2\n3\tx4\n", SKIT_EFORMAT, "line 3, column 2: 'x4' is not a number");
    expect_tsv_error("1\t2\nn\tvalue\n", SKIT_EFORMAT, "line 2, column 1");   /* header after data */
    expect_tsv_error("a\tb\nc\td\n1\t2\n", SKIT_EFORMAT, "line 2, column 1"); /* two headers */
    expect_tsv_error("1\t2abc\n", SKIT_EFORMAT, "column 2");
    expect_tsv_error("1\t\t2\n", SKIT_EFORMAT, "line 1, column 2: empty field");
    expect_tsv_error("1\t2\t\n", SKIT_EFORMAT, "empty field");
    expect_tsv_error("1\t2\n3\tnan\n", SKIT_ENONFINITE, "line 2, column 2");
    expect_tsv_error("inf 2\n", SKIT_ENONFINITE, "line 1, column 1");
    expect_tsv_error("1 -Infinity\n", SKIT_ENONFINITE, "non-finite");
    expect_tsv_error("1 1e400\n", SKIT_ENONFINITE, "overflows");
    /* a malformed number on line 1 is reported, never taken for a header */
    expect_tsv_error("1.5.5\t2\n3\t4\n", SKIT_EFORMAT, "line 1, column 1");
    expect_tsv_error("-x\t2\n3\t4\n", SKIT_EFORMAT, "line 1, column 1");
}
END_TEST

START_TEST(test_tsv_reader_binary_and_files)
{
    skit_matrix m;
    const char bin[] = "1 2\n3 \0 4\n";
    TU_EXPECT_STATUS(skit_tsv_parse(bin, sizeof bin - 1, &m), SKIT_EFORMAT);
    ck_assert_msg(strstr(skit_last_error(), "NUL") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_tsv_parse(NULL, 3, &m), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tsv_parse("1", 1, NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_tsv_parse("12345", 2, &m)); /* length bounds the text */
    ck_assert(m.rows == 1 && m.data[0] == 12);
    skit_matrix_free(&m);

    make_tmpdir();
    char path[512];
    tmp_path(path, sizeof path, "t.tsv");
    TU_EXPECT_STATUS(skit_tsv_read(path, &m), SKIT_EIO);
    ck_assert_msg(strstr(skit_last_error(), "t.tsv") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_tsv_read(NULL, &m), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tsv_read(path, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_tsv_read(tmpdir, &m), SKIT_EIO);
    write_file(path, "", 0);
    TU_EXPECT_STATUS(skit_tsv_read(path, &m), SKIT_EFORMAT);
    ck_assert_msg(strstr(skit_last_error(), "t.tsv") != NULL, "%s", skit_last_error());
    write_file(path, "x\n1\n2\nzz\n", 9);
    TU_EXPECT_STATUS(skit_tsv_read(path, &m), SKIT_EFORMAT);
    ck_assert_msg(strstr(skit_last_error(), "line 4, column 1") != NULL, "%s", skit_last_error());

    /* a larger file written by the TSV writer reads back bit for bit */
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t rows = 3000, cols = 3;
    double *x = tu_random(&rng, rows * cols);
    skit_tsv_writer *w;
    char *argv[] = {"test_io", "--flag"};
    TU_EXPECT_OK(skit_tsv_open(&w, path, 2, argv, 1, seed, "none"));
    const char *names[] = {"a", "b", "c", NULL};
    TU_EXPECT_OK(skit_tsv_columns(w, names));
    for (size_t i = 0; i < rows; i++) {
        double row[3] = {x[i], x[i + rows], x[i + 2 * rows]};
        TU_EXPECT_OK(skit_tsv_row(w, row, 3));
    }
    TU_EXPECT_OK(skit_tsv_close(w));
    TU_EXPECT_OK(skit_tsv_read(path, &m));
    ck_assert(m.rows == rows && m.cols == cols && m.ndim == 2);
    ck_assert_msg(memcmp(m.data, x, rows * cols * sizeof(double)) == 0, "round trip differs (seed %llu)",
                  (unsigned long long)seed);
    skit_matrix_free(&m);
    skit_free(x);
    remove_tmpdir();
}
END_TEST

/* ---- TSV writer ---------------------------------------------------------- */

START_TEST(test_tsv_writer_header_and_atomicity)
{
    make_tmpdir();
    char path[512];
    tmp_path(path, sizeof path, "out.tsv");
    char *argv[] = {"skit", "toeplitz", "matvec", "--coeffs", "c.npy"};
    skit_tsv_writer *w;
    TU_EXPECT_OK(skit_tsv_open(&w, path, 5, argv, 1, 42, "seconds"));
    TU_EXPECT_OK(skit_tsv_comment(w, "n = %d", 7));
    const char *names[] = {"n", "time", NULL};
    TU_EXPECT_OK(skit_tsv_columns(w, names));
    double row[2] = {7, 0.25};
    TU_EXPECT_OK(skit_tsv_row(w, row, 2));
    const char *text[2] = {"8", "fast"};
    TU_EXPECT_OK(skit_tsv_row_text(w, text, 2));
    /* nothing under the final name until close; the temporary is there */
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(tmpdir_entries(), 1);
    TU_EXPECT_OK(skit_tsv_close(w));
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(tmpdir_entries(), 1);
    size_t len;
    char *content = (char *)read_file(path, &len);
    char expected[256];
    snprintf(expected, sizeof expected,
             "# skit %s\n# command: skit toeplitz matvec --coeffs c.npy\n# seed: 42\n# units: seconds\n"
             "# n = 7\nn\ttime\n7\t0.25\n8\tfast\n",
             skit_version());
    ck_assert_str_eq(content, expected);
    free(content);
    /* the reader takes the writer's numeric output, header and all */
    unlink(path);
    TU_EXPECT_OK(skit_tsv_open(&w, path, 5, argv, 0, 0, NULL));
    TU_EXPECT_OK(skit_tsv_columns(w, names));
    TU_EXPECT_OK(skit_tsv_row(w, row, 2));
    TU_EXPECT_OK(skit_tsv_close(w));
    content = (char *)read_file(path, &len);
    ck_assert_ptr_null(strstr(content, "# seed"));
    ck_assert_ptr_null(strstr(content, "# units"));
    free(content);
    skit_matrix m;
    TU_EXPECT_OK(skit_tsv_read(path, &m));
    ck_assert(m.rows == 1 && m.cols == 2 && m.data[1] == 0.25);
    skit_matrix_free(&m);
    unlink(path);

    /* abort leaves nothing behind */
    TU_EXPECT_OK(skit_tsv_open(&w, path, 5, argv, 1, 1, NULL));
    TU_EXPECT_OK(skit_tsv_row(w, row, 2));
    skit_tsv_abort(w);
    ck_assert_int_eq(tmpdir_entries(), 0);
    /* an unwritable location fails at open, creating nothing */
    char bad[512];
    tmp_path(bad, sizeof bad, "missing/out.tsv");
    TU_EXPECT_STATUS(skit_tsv_open(&w, bad, 5, argv, 0, 0, NULL), SKIT_EIO);
    ck_assert_ptr_null(w);
    TU_EXPECT_STATUS(skit_tsv_open(NULL, path, 0, NULL, 0, 0, NULL), SKIT_EINVAL);
    ck_assert_int_eq(tmpdir_entries(), 0);
    remove_tmpdir();
}
END_TEST

static Suite *suite_io(void)
{
    Suite *s = suite_create("io");
    TCase *tc = tcase_create("io");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_npy_round_trip_bit_exact);
    tcase_add_test(tc, test_npy_nd_round_trip);
    tcase_add_test(tc, test_npy_hand_built_variants);
    tcase_add_test(tc, test_npy_f32);
    tcase_add_test(tc, test_npy_truncated_at_every_byte);
    tcase_add_test(tc, test_npy_malformed_variants);
    tcase_add_test(tc, test_npy_config_errors);
    tcase_add_test(tc, test_tsv_reader_accepts);
    tcase_add_test(tc, test_tsv_reader_rejects);
    tcase_add_test(tc, test_tsv_reader_binary_and_files);
    tcase_add_test(tc, test_tsv_writer_header_and_atomicity);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_io()); }
