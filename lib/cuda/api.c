/* api.c — the public CUDA API's building blocks (skit/cuda.h) and
 * skit/device.h, built in every configuration: availability, device memory,
 * copies, timing, the elementwise kernels and the SKI interpolation plan;
 * the argument checks that plans.c shares. Every entry point validates its
 * arguments before it asks whether a device exists, so a bad argument gives
 * the same status with or without CUDA; then it checks availability
 * ("cuda: not built", "cuda: backend not loadable (...)", "cuda: no device
 * (...)") and calls the plugin through its table (cuda/backend.h). Plan
 * structs are allocated and released on this side (here and in plans.c), so
 * a failed create frees whatever the backend had allocated. */
#include "config.h"

#include "core/internal.h"

#include <stdint.h>
#include <string.h>

#include "cuda/api.h"
#include "cuda/index_logic.h"
#include "skit/cuda.h"

size_t skit_cuda_precision_bytes(skit_cuda_precision precision)
{
    switch (precision) {
    case SKIT_CUDA_FLOAT64: return sizeof(double);
    case SKIT_CUDA_FLOAT32: return sizeof(float);
    }
    return 0;
}

/* ---- argument checks shared by the entry points ------------------------- */

int skit_cuda_check_precision(skit_cuda_precision precision)
{
    if (skit_cuda_precision_bytes(precision) == 0)
        return SKIT_ERROR(SKIT_EINVAL,
                          "precision = %d is not SKIT_CUDA_FLOAT64 (0) or SKIT_CUDA_FLOAT32 (1)",
                          (int)precision);
    return SKIT_OK;
}

int skit_cuda_check_positive(size_t value, const char *name)
{
    if (value == 0) return SKIT_ERROR(SKIT_EDOM, "%s = 0 out of range: need %s >= 1", name, name);
    return SKIT_OK;
}

int skit_cuda_check_ld(size_t ld, size_t rows, const char *ld_name, const char *rows_name)
{
    if (ld < rows)
        return SKIT_ERROR(SKIT_ESHAPE, "%s = %zu too small: need %s >= %s (= %zu)", ld_name, ld,
                          ld_name, rows_name, rows);
    return SKIT_OK;
}

/* Bytes spanned by a rows x cols block with leading dimension ld:
 * (ld*(cols-1) + rows) * elt. */
int skit_cuda_block_span(size_t rows, size_t cols, size_t ld, size_t elt, const char *what,
                         size_t *bytes)
{
    size_t span;
    if (skit_size_mul(ld, cols - 1, &span) || skit_size_add(span, rows, &span) ||
        skit_size_mul(span, elt, bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "%s: %zu x %zu block with leading dimension %zu overflows size_t",
                          what, rows, cols, ld);
    return SKIT_OK;
}

static int overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + b_bytes && pb < pa + a_bytes;
}

/* Input block `in` (read) and output block `out` (written) must not share
 * memory: the kernels read and write in parallel. */
int skit_cuda_check_disjoint(const void *in, size_t in_bytes, const char *in_name, const void *out,
                             size_t out_bytes, const char *out_name)
{
    if (overlaps(in, in_bytes, out, out_bytes))
        return SKIT_ERROR(SKIT_EINVAL, "%s and %s overlap: the output must not share memory with an input",
                          in_name, out_name);
    return SKIT_OK;
}

/* ---- availability -------------------------------------------------------- */

/* The plugin's status line, or the loader's reason why there is none. */
static int backend_status(char *line, size_t size)
{
    const struct skit_cuda_backend *backend = skit_cuda_backend_load(line, size);
    return backend ? backend->status(line, size) : SKIT_EUNSUPPORTED;
}

int skit_cuda_require_device(void)
{
    char line[512];
    if (backend_status(line, sizeof line) == SKIT_OK) return SKIT_OK;
    return SKIT_ERROR(SKIT_EUNSUPPORTED, "%s", line);
}

int skit_cuda_available(void)
{
    char line[512];
    return backend_status(line, sizeof line) == SKIT_OK;
}

int skit_cuda_status(char *buf, size_t size)
{
    SKIT_REQUIRE_PTR(buf);
    if (size == 0) return SKIT_ERROR(SKIT_EINVAL, "size = 0: the buffer must hold at least the terminating NUL");
    int status = backend_status(buf, size);
    if (status != SKIT_OK) return SKIT_ERROR(SKIT_EUNSUPPORTED, "%s", buf);
    return SKIT_OK;
}

/* ---- memory and timing ---------------------------------------------------- */

int skit_cuda_malloc(void **ptr, size_t bytes)
{
    SKIT_REQUIRE_PTR(ptr);
    *ptr = NULL;
    SKIT_TRY(skit_cuda_require_device());
    return skit_cuda_loaded()->malloc(ptr, bytes);
}

void skit_cuda_free(void *ptr)
{
    /* a device pointer comes from a loaded backend */
    const struct skit_cuda_backend *backend = ptr ? skit_cuda_loaded() : NULL;
    if (backend) backend->free(ptr);
}

static int copy(void *dst, const void *src, size_t bytes, int kind)
{
    if (bytes > 0) {
        SKIT_REQUIRE_PTR(dst);
        SKIT_REQUIRE_PTR(src);
    }
    SKIT_TRY(skit_cuda_require_device());
    if (bytes == 0) return SKIT_OK;
    return skit_cuda_loaded()->copy(dst, src, bytes, kind);
}

int skit_cuda_copy_to_device(void *dst_dev, const void *src, size_t bytes)
{
    return copy(dst_dev, src, bytes, 0);
}

int skit_cuda_copy_to_host(void *dst, const void *src_dev, size_t bytes)
{
    return copy(dst, src_dev, bytes, 1);
}

int skit_cuda_copy_on_device(void *dst_dev, const void *src_dev, size_t bytes)
{
    return copy(dst_dev, src_dev, bytes, 2);
}

int skit_cuda_synchronize(void)
{
    SKIT_TRY(skit_cuda_require_device());
    return skit_cuda_loaded()->synchronize();
}

int skit_cuda_time(skit_cuda_work work, void *context, size_t repeats, double *seconds)
{
    SKIT_REQUIRE_PTR(work);
    SKIT_REQUIRE_PTR(seconds);
    SKIT_TRY(skit_cuda_check_positive(repeats, "repeats"));
    SKIT_TRY(skit_cuda_require_device());
    return skit_cuda_loaded()->time(work, context, repeats, seconds);
}

int skit_cuda_copy_bandwidth(size_t bytes, size_t repeats, double *bytes_per_second)
{
    SKIT_REQUIRE_PTR(bytes_per_second);
    if (bytes < ((size_t)1 << 20))
        return SKIT_ERROR(SKIT_EDOM, "bytes = %zu out of range: need bytes >= 1 MiB (= %zu) for a meaningful bandwidth",
                          bytes, (size_t)1 << 20);
    SKIT_TRY(skit_cuda_check_positive(repeats, "repeats"));
    SKIT_TRY(skit_cuda_require_device());
    return skit_cuda_loaded()->copy_bandwidth(bytes, repeats, bytes_per_second);
}

/* ---- devices (skit/device.h) ------------------------------------------------ */

const char *skit_device_name(int device)
{
    switch (device) {
    case SKIT_DEVICE_CPU: return "cpu";
    case SKIT_DEVICE_CUDA: return "cuda";
    }
    return NULL;
}

int skit_device_parse(const char *name, skit_device *device)
{
    SKIT_REQUIRE_PTR(name);
    SKIT_REQUIRE_PTR(device);
    if (!strcmp(name, "cpu")) *device = SKIT_DEVICE_CPU;
    else if (!strcmp(name, "cuda")) *device = SKIT_DEVICE_CUDA;
    else return SKIT_ERROR(SKIT_EINVAL, "device '%s' unknown: need cpu or cuda", name);
    return SKIT_OK;
}

int skit_device_check(skit_device device)
{
    if (device == SKIT_DEVICE_CPU) return SKIT_OK;
    if (device != SKIT_DEVICE_CUDA)
        return SKIT_ERROR(SKIT_EINVAL, "device = %d unknown: need SKIT_DEVICE_CPU (0) or "
                                       "SKIT_DEVICE_CUDA (1)", (int)device);
    return skit_cuda_require_device();
}

/* ---- elementwise kernels -------------------------------------------------- */

int skit_cuda_complex_multiply_device(skit_cuda_precision precision, size_t nfreq, size_t d,
                                      int shared, const void *s_dev, size_t lds, void *z_dev,
                                      size_t ldz, int conjugate)
{
    SKIT_TRY(skit_cuda_check_precision(precision));
    SKIT_REQUIRE_PTR(s_dev);
    SKIT_REQUIRE_PTR(z_dev);
    SKIT_TRY(skit_cuda_check_positive(nfreq, "nfreq"));
    SKIT_TRY(skit_cuda_check_positive(d, "d"));
    SKIT_TRY(skit_cuda_check_ld(ldz, nfreq, "ldz", "nfreq"));
    if (!shared) SKIT_TRY(skit_cuda_check_ld(lds, nfreq, "lds", "nfreq"));
    size_t celt = 2 * skit_cuda_precision_bytes(precision), s_bytes, z_bytes;
    SKIT_TRY(
        skit_cuda_block_span(nfreq, shared ? 1 : d, shared ? nfreq : lds, celt, "s_dev", &s_bytes));
    SKIT_TRY(skit_cuda_block_span(nfreq, d, ldz, celt, "z_dev", &z_bytes));
    SKIT_TRY(skit_cuda_check_disjoint(s_dev, s_bytes, "s_dev", z_dev, z_bytes, "z_dev"));
    SKIT_TRY(skit_cuda_require_device());
    return skit_cuda_loaded()->complex_multiply(precision, nfreq, d, shared != 0, s_dev, lds, z_dev,
                                                ldz, conjugate != 0);
}

int skit_cuda_band_convolve_device(skit_cuda_precision precision, size_t n, size_t d, size_t lo,
                                   size_t hi, int shared, const void *taps_dev, const void *x_dev,
                                   size_t ldx, void *y_dev, size_t ldy, int accumulate)
{
    SKIT_TRY(skit_cuda_check_precision(precision));
    SKIT_REQUIRE_PTR(taps_dev);
    SKIT_REQUIRE_PTR(x_dev);
    SKIT_REQUIRE_PTR(y_dev);
    SKIT_TRY(skit_cuda_check_positive(n, "n"));
    SKIT_TRY(skit_cuda_check_positive(d, "d"));
    if (lo >= n) return SKIT_ERROR(SKIT_EDOM, "lo = %zu out of range: need lo < n (= %zu)", lo, n);
    if (hi >= n) return SKIT_ERROR(SKIT_EDOM, "hi = %zu out of range: need hi < n (= %zu)", hi, n);
    SKIT_TRY(skit_cuda_check_ld(ldx, n, "ldx", "n"));
    SKIT_TRY(skit_cuda_check_ld(ldy, n, "ldy", "n"));
    size_t elt = skit_cuda_precision_bytes(precision), x_bytes, y_bytes, t_bytes;
    size_t ntaps = lo + hi + 1; /* < 2n, no overflow */
    SKIT_TRY(skit_cuda_block_span(ntaps, shared ? 1 : d, ntaps, elt, "taps_dev", &t_bytes));
    SKIT_TRY(skit_cuda_block_span(n, d, ldx, elt, "x_dev", &x_bytes));
    SKIT_TRY(skit_cuda_block_span(n, d, ldy, elt, "y_dev", &y_bytes));
    SKIT_TRY(skit_cuda_check_disjoint(x_dev, x_bytes, "x_dev", y_dev, y_bytes, "y_dev"));
    SKIT_TRY(skit_cuda_check_disjoint(taps_dev, t_bytes, "taps_dev", y_dev, y_bytes, "y_dev"));
    SKIT_TRY(skit_cuda_require_device());
    return skit_cuda_loaded()->band_convolve(precision, n, d, lo, hi, shared != 0, taps_dev, x_dev,
                                             ldx, y_dev, ldy, accumulate != 0);
}

int skit_cuda_interp_plan_create(skit_cuda_interp_plan **plan, size_t n, size_t r, size_t width,
                                 const size_t *cols, const double *weights,
                                 skit_cuda_precision precision)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(cols);
    SKIT_REQUIRE_PTR(weights);
    SKIT_TRY(skit_cuda_check_precision(precision));
    SKIT_TRY(skit_cuda_check_positive(n, "n"));
    SKIT_TRY(skit_cuda_check_positive(r, "r"));
    SKIT_TRY(skit_cuda_check_positive(width, "width"));
    size_t entries, bytes, r1;
    if (skit_size_mul(n, width, &entries) || skit_size_mul(entries, 3 * sizeof(size_t), &bytes) ||
        skit_size_add(r, 1, &r1))
        return SKIT_ERROR(SKIT_EOVERFLOW, "n x width = %zu x %zu interpolation entries overflow size_t",
                          n, width);
    for (size_t e = 0; e < entries; e++)
        if (cols[e] >= r)
            return SKIT_ERROR(SKIT_EDOM, "cols[%zu] = %zu out of range: need cols < r (= %zu)", e,
                              cols[e], r);
    SKIT_TRY(skit_check_finite(weights, entries, "weights"));
    SKIT_TRY(skit_cuda_require_device());

    size_t *row_ptr = skit_malloc(r + 1, sizeof(size_t));
    size_t *trow = skit_malloc(entries, sizeof(size_t));
    size_t *tsrc = skit_malloc(entries, sizeof(size_t));
    struct skit_cuda_interp_plan *p = skit_calloc(1, sizeof *p);
    int status = SKIT_ENOMEM;
    if (row_ptr && trow && tsrc && p) {
        skit_cuda_interp_transpose(n, r, width, cols, row_ptr, trow, tsrc);
        p->n = n;
        p->r = r;
        p->width = width;
        p->precision = precision;
        p->elt = skit_cuda_precision_bytes(precision);
        status = skit_cuda_loaded()->interp_init(p, cols, weights, row_ptr, trow, tsrc);
    }
    skit_free(row_ptr);
    skit_free(trow);
    skit_free(tsrc);
    if (status != SKIT_OK) {
        if (p) skit_cuda_loaded()->interp_release(p);
        skit_free(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

int skit_cuda_interp_gather_device(const skit_cuda_interp_plan *plan, size_t d, const void *u_dev,
                                   size_t ldu, void *y_dev, size_t ldy, int accumulate)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(u_dev);
    SKIT_REQUIRE_PTR(y_dev);
    SKIT_TRY(skit_cuda_check_positive(d, "d"));
    SKIT_TRY(skit_cuda_check_ld(ldu, plan->r, "ldu", "r"));
    SKIT_TRY(skit_cuda_check_ld(ldy, plan->n, "ldy", "n"));
    size_t u_bytes, y_bytes;
    SKIT_TRY(skit_cuda_block_span(plan->r, d, ldu, plan->elt, "u_dev", &u_bytes));
    SKIT_TRY(skit_cuda_block_span(plan->n, d, ldy, plan->elt, "y_dev", &y_bytes));
    SKIT_TRY(skit_cuda_check_disjoint(u_dev, u_bytes, "u_dev", y_dev, y_bytes, "y_dev"));
    return skit_cuda_loaded()->interp_gather(plan, d, u_dev, ldu, y_dev, ldy, accumulate != 0);
}

int skit_cuda_interp_scatter_device(const skit_cuda_interp_plan *plan, size_t d,
                                    const void *x_dev, size_t ldx, void *u_dev, size_t ldu)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x_dev);
    SKIT_REQUIRE_PTR(u_dev);
    SKIT_TRY(skit_cuda_check_positive(d, "d"));
    SKIT_TRY(skit_cuda_check_ld(ldx, plan->n, "ldx", "n"));
    SKIT_TRY(skit_cuda_check_ld(ldu, plan->r, "ldu", "r"));
    size_t x_bytes, u_bytes;
    SKIT_TRY(skit_cuda_block_span(plan->n, d, ldx, plan->elt, "x_dev", &x_bytes));
    SKIT_TRY(skit_cuda_block_span(plan->r, d, ldu, plan->elt, "u_dev", &u_bytes));
    SKIT_TRY(skit_cuda_check_disjoint(x_dev, x_bytes, "x_dev", u_dev, u_bytes, "u_dev"));
    return skit_cuda_loaded()->interp_scatter(plan, d, x_dev, ldx, u_dev, ldu);
}

size_t skit_cuda_interp_plan_device_bytes(const skit_cuda_interp_plan *plan)
{
    return plan ? plan->device_bytes : 0;
}

void skit_cuda_interp_plan_destroy(skit_cuda_interp_plan *plan)
{
    if (!plan) return;
    skit_cuda_loaded()->interp_release(plan);
    skit_free(plan);
}
