/* api.c — the public CUDA API (skit/cuda.h), built in every configuration.
 * It validates every argument before it asks whether a device exists, so a
 * bad argument gives the same status with or without CUDA; then it checks
 * availability ("cuda: not built" / "cuda: no device") and calls the backend
 * (the lib/cuda .cu files, or lib/cuda/stub.c in a build without CUDA). Plan structs
 * are allocated here and released here, so a failed create frees whatever
 * the backend had allocated. */
#include "config.h"

#include "core/internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "attention/attention_internal.h"
#include "cuda/backend.h"
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

static int check_precision(skit_cuda_precision precision)
{
    if (skit_cuda_precision_bytes(precision) == 0)
        return SKIT_ERROR(SKIT_EINVAL,
                          "precision = %d is not SKIT_CUDA_FLOAT64 (0) or SKIT_CUDA_FLOAT32 (1)",
                          (int)precision);
    return SKIT_OK;
}

static int check_positive(size_t value, const char *name)
{
    if (value == 0) return SKIT_ERROR(SKIT_EDOM, "%s = 0 out of range: need %s >= 1", name, name);
    return SKIT_OK;
}

static int check_ld(size_t ld, size_t rows, const char *ld_name, const char *rows_name)
{
    if (ld < rows)
        return SKIT_ERROR(SKIT_ESHAPE, "%s = %zu too small: need %s >= %s (= %zu)", ld_name, ld,
                          ld_name, rows_name, rows);
    return SKIT_OK;
}

/* Bytes spanned by a rows x cols block with leading dimension ld:
 * (ld*(cols-1) + rows) * elt. */
static int block_span(size_t rows, size_t cols, size_t ld, size_t elt, const char *what,
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
static int check_disjoint(const void *in, size_t in_bytes, const char *in_name, const void *out,
                          size_t out_bytes, const char *out_name)
{
    if (overlaps(in, in_bytes, out, out_bytes))
        return SKIT_ERROR(SKIT_EINVAL, "%s and %s overlap: the output must not share memory with an input",
                          in_name, out_name);
    return SKIT_OK;
}

static int require_device(void)
{
    char line[256];
    if (skit_cuda_backend_status(line, sizeof line) == SKIT_OK) return SKIT_OK;
    return SKIT_ERROR(SKIT_EUNSUPPORTED, "%s", line);
}

/* ---- availability -------------------------------------------------------- */

int skit_cuda_available(void)
{
    char line[256];
    return skit_cuda_backend_status(line, sizeof line) == SKIT_OK;
}

int skit_cuda_status(char *buf, size_t size)
{
    SKIT_REQUIRE_PTR(buf);
    if (size == 0) return SKIT_ERROR(SKIT_EINVAL, "size = 0: the buffer must hold at least the terminating NUL");
    int status = skit_cuda_backend_status(buf, size);
    if (status != SKIT_OK) return SKIT_ERROR(SKIT_EUNSUPPORTED, "%s", buf);
    return SKIT_OK;
}

/* ---- memory and timing ---------------------------------------------------- */

int skit_cuda_malloc(void **ptr, size_t bytes)
{
    SKIT_REQUIRE_PTR(ptr);
    *ptr = NULL;
    SKIT_TRY(require_device());
    return skit_cuda_backend_malloc(ptr, bytes);
}

void skit_cuda_free(void *ptr)
{
    if (ptr) skit_cuda_backend_free(ptr);
}

static int copy(void *dst, const void *src, size_t bytes, int kind)
{
    if (bytes > 0) {
        SKIT_REQUIRE_PTR(dst);
        SKIT_REQUIRE_PTR(src);
    }
    SKIT_TRY(require_device());
    if (bytes == 0) return SKIT_OK;
    return skit_cuda_backend_copy(dst, src, bytes, kind);
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
    SKIT_TRY(require_device());
    return skit_cuda_backend_synchronize();
}

int skit_cuda_time(skit_cuda_work work, void *context, size_t repeats, double *seconds)
{
    SKIT_REQUIRE_PTR(work);
    SKIT_REQUIRE_PTR(seconds);
    SKIT_TRY(check_positive(repeats, "repeats"));
    SKIT_TRY(require_device());
    return skit_cuda_backend_time(work, context, repeats, seconds);
}

int skit_cuda_copy_bandwidth(size_t bytes, size_t repeats, double *bytes_per_second)
{
    SKIT_REQUIRE_PTR(bytes_per_second);
    if (bytes < ((size_t)1 << 20))
        return SKIT_ERROR(SKIT_EDOM, "bytes = %zu out of range: need bytes >= 1 MiB (= %zu) for a meaningful bandwidth",
                          bytes, (size_t)1 << 20);
    SKIT_TRY(check_positive(repeats, "repeats"));
    SKIT_TRY(require_device());
    return skit_cuda_backend_copy_bandwidth(bytes, repeats, bytes_per_second);
}

/* ---- Toeplitz ------------------------------------------------------------- */

static size_t toeplitz_coeff_count(const struct skit_cuda_toeplitz_plan *p)
{
    return (p->m + p->n - 1) * p->nsets; /* checked for overflow in create */
}

int skit_cuda_toeplitz_plan_create(skit_cuda_toeplitz_plan **plan, size_t m, size_t n, size_t d,
                                   skit_toeplitz_sharing sharing, skit_causality causality,
                                   skit_cuda_precision precision, const double *coeffs)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(coeffs);
    if (sharing != SKIT_TOEPLITZ_PER_CHANNEL && sharing != SKIT_TOEPLITZ_SHARED)
        return SKIT_ERROR(SKIT_EINVAL, "sharing = %d is not SKIT_TOEPLITZ_PER_CHANNEL (0) or SKIT_TOEPLITZ_SHARED (1)",
                          (int)sharing);
    if (causality != SKIT_BIDIRECTIONAL && causality != SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d is not SKIT_BIDIRECTIONAL (0) or SKIT_CAUSAL (1)",
                          (int)causality);
    SKIT_TRY(check_precision(precision));
    SKIT_TRY(check_positive(m, "m"));
    SKIT_TRY(check_positive(n, "n"));
    SKIT_TRY(check_positive(d, "d"));
    size_t ncoef, total, L, elems, bytes;
    size_t nsets = sharing == SKIT_TOEPLITZ_SHARED ? 1 : d;
    if (skit_size_add(m, n - 1, &ncoef) || skit_size_mul(ncoef, nsets, &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "m + n - 1 coefficients times %zu matrices overflows size_t (m = %zu, n = %zu)",
                          nsets, m, n);
    L = skit_cuda_good_length(ncoef);
    size_t elt = skit_cuda_precision_bytes(precision);
    /* the largest device buffer: the complex work array, (L/2+1) x d complex */
    if (L == 0 || skit_size_mul(skit_cuda_rfft_bins(L), d, &elems) ||
        skit_size_mul(elems, 2 * elt, &bytes) || skit_size_mul(L, d, &elems))
        return SKIT_ERROR(SKIT_EOVERFLOW, "FFT length for m + n - 1 = %zu times d = %zu channels overflows size_t",
                          ncoef, d);
    SKIT_TRY(skit_check_finite(coeffs, total, "coeffs"));
    SKIT_TRY(require_device());
    if (precision == SKIT_CUDA_FLOAT32) {
        size_t stage;
        if (skit_size_mul(SKIT_MAX(m, n), d, &stage) || skit_size_mul(stage, sizeof(float), &stage))
            return SKIT_ERROR(SKIT_EOVERFLOW, "staging buffer of max(m, n) x d floats overflows size_t");
        SKIT_TRY(skit_memory_check(stage, "cuda toeplitz plan (pinned host staging)"));
    }

    struct skit_cuda_toeplitz_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->m = m;
    p->n = n;
    p->d = d;
    p->L = L;
    p->nfreq = skit_cuda_rfft_bins(L);
    p->nsets = nsets;
    p->sharing = sharing;
    p->causality = causality;
    p->precision = precision;
    p->elt = elt;
    int status = skit_cuda_backend_toeplitz_init(p, coeffs);
    if (status != SKIT_OK) {
        skit_cuda_backend_toeplitz_release(p);
        skit_free(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

int skit_cuda_toeplitz_plan_set_coeffs(skit_cuda_toeplitz_plan *plan, const double *coeffs)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(coeffs);
    SKIT_TRY(skit_check_finite(coeffs, toeplitz_coeff_count(plan), "coeffs"));
    return skit_cuda_backend_toeplitz_set_coeffs(plan, coeffs);
}

/* Shapes of a product: input rows and output rows (swapped for T^T). */
static void toeplitz_rows(const skit_cuda_toeplitz_plan *plan, int transpose, size_t *in_rows,
                          size_t *out_rows, const char **in_name, const char **out_name)
{
    *in_rows = transpose ? plan->m : plan->n;
    *out_rows = transpose ? plan->n : plan->m;
    *in_name = transpose ? "m" : "n";
    *out_name = transpose ? "n" : "m";
}

static int toeplitz_device(const skit_cuda_toeplitz_plan *plan, int transpose, const void *x,
                           size_t ldx, void *y, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t in_rows, out_rows, x_bytes, y_bytes;
    const char *in_name, *out_name;
    toeplitz_rows(plan, transpose, &in_rows, &out_rows, &in_name, &out_name);
    SKIT_TRY(check_ld(ldx, in_rows, "ldx", in_name));
    SKIT_TRY(check_ld(ldy, out_rows, "ldy", out_name));
    SKIT_TRY(block_span(in_rows, plan->d, ldx, plan->elt, "x_dev", &x_bytes));
    SKIT_TRY(block_span(out_rows, plan->d, ldy, plan->elt, "y_dev", &y_bytes));
    SKIT_TRY(check_disjoint(x, x_bytes, "x_dev", y, y_bytes, "y_dev"));
    return skit_cuda_backend_toeplitz_device(plan, transpose, x, ldx, y, ldy);
}

static int toeplitz_host(const skit_cuda_toeplitz_plan *plan, int transpose, const double *x,
                         size_t ldx, double *y, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t in_rows, out_rows, x_bytes, y_bytes;
    const char *in_name, *out_name;
    toeplitz_rows(plan, transpose, &in_rows, &out_rows, &in_name, &out_name);
    SKIT_TRY(check_ld(ldx, in_rows, "ldx", in_name));
    SKIT_TRY(check_ld(ldy, out_rows, "ldy", out_name));
    SKIT_TRY(block_span(in_rows, plan->d, ldx, sizeof(double), "x", &x_bytes));
    SKIT_TRY(block_span(out_rows, plan->d, ldy, sizeof(double), "y", &y_bytes));
    SKIT_TRY(check_disjoint(x, x_bytes, "x", y, y_bytes, "y"));
    SKIT_TRY(skit_check_finite_matrix(x, in_rows, plan->d, ldx, "x"));
    return skit_cuda_backend_toeplitz_host(plan, transpose, x, ldx, y, ldy);
}

int skit_cuda_toeplitz_execute_device(const skit_cuda_toeplitz_plan *plan, const void *x_dev,
                                      size_t ldx, void *y_dev, size_t ldy)
{
    return toeplitz_device(plan, 0, x_dev, ldx, y_dev, ldy);
}

int skit_cuda_toeplitz_execute_transpose_device(const skit_cuda_toeplitz_plan *plan,
                                                const void *x_dev, size_t ldx, void *y_dev,
                                                size_t ldy)
{
    return toeplitz_device(plan, 1, x_dev, ldx, y_dev, ldy);
}

int skit_cuda_toeplitz_execute(const skit_cuda_toeplitz_plan *plan, const double *x, size_t ldx,
                               double *y, size_t ldy)
{
    return toeplitz_host(plan, 0, x, ldx, y, ldy);
}

int skit_cuda_toeplitz_execute_transpose(const skit_cuda_toeplitz_plan *plan, const double *x,
                                         size_t ldx, double *y, size_t ldy)
{
    return toeplitz_host(plan, 1, x, ldx, y, ldy);
}

size_t skit_cuda_toeplitz_plan_fft_length(const skit_cuda_toeplitz_plan *plan)
{
    return plan ? plan->L : 0;
}

size_t skit_cuda_toeplitz_plan_device_bytes(const skit_cuda_toeplitz_plan *plan)
{
    return plan ? plan->device_bytes : 0;
}

void skit_cuda_toeplitz_plan_destroy(skit_cuda_toeplitz_plan *plan)
{
    if (!plan) return;
    skit_cuda_backend_toeplitz_release(plan);
    skit_free(plan);
}

/* ---- attention ------------------------------------------------------------ */

/* cuBLAS takes int sizes and leading dimensions. */
static int check_blas_int(size_t value, const char *name, int status)
{
    if (value > (size_t)INT_MAX)
        return SKIT_ERROR(status, "%s = %zu beyond cuBLAS's int range: need %s <= %d", name, value,
                          name, INT_MAX);
    return SKIT_OK;
}

/* The logits of one tile are capped at this many bytes when tile = 0. */
#define SKIT_CUDA_ATTENTION_TILE_BUDGET ((size_t)256 << 20)

int skit_cuda_attention_plan_create(skit_cuda_attention_plan **plan, size_t n_q, size_t n_k,
                                    size_t d_k, size_t d_v, int causal,
                                    skit_cuda_precision precision, size_t tile)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_TRY(check_precision(precision));
    SKIT_TRY(check_positive(n_q, "n_q"));
    SKIT_TRY(check_positive(n_k, "n_k"));
    SKIT_TRY(check_positive(d_k, "d_k"));
    SKIT_TRY(check_positive(d_v, "d_v"));
    if (tile > n_q)
        return SKIT_ERROR(SKIT_EDOM, "tile = %zu out of range: need tile <= n_q (= %zu), or 0 for automatic",
                          tile, n_q);
    SKIT_TRY(check_blas_int(n_q, "n_q", SKIT_ETOOBIG));
    SKIT_TRY(check_blas_int(n_k, "n_k", SKIT_ETOOBIG));
    SKIT_TRY(check_blas_int(d_k, "d_k", SKIT_ETOOBIG));
    SKIT_TRY(check_blas_int(d_v, "d_v", SKIT_ETOOBIG));
    size_t elt = skit_cuda_precision_bytes(precision);
    if (tile == 0) tile = skit_cuda_attention_auto_tile(n_q, n_k, elt, SKIT_CUDA_ATTENTION_TILE_BUDGET);
    /* sizes of every device buffer, for overflow: logits, Q, K, V, Y */
    size_t sizes[5][2] = {{n_k, tile}, {n_q, d_k}, {n_k, d_k}, {n_k, d_v}, {n_q, d_v}};
    size_t largest = 0;
    for (int i = 0; i < 5; i++) {
        size_t count, bytes;
        if (skit_size_mul(sizes[i][0], sizes[i][1], &count) || skit_size_mul(count, elt, &bytes))
            return SKIT_ERROR(SKIT_EOVERFLOW, "attention buffer of %zu x %zu elements overflows size_t",
                              sizes[i][0], sizes[i][1]);
        if (i > 0 && bytes > largest) largest = bytes;
    }
    SKIT_TRY(require_device());
    if (precision == SKIT_CUDA_FLOAT32)
        SKIT_TRY(skit_memory_check(largest, "cuda attention plan (pinned host staging)"));

    struct skit_cuda_attention_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n_q = n_q;
    p->n_k = n_k;
    p->d_k = d_k;
    p->d_v = d_v;
    p->tile = tile;
    p->causal = causal != 0;
    p->precision = precision;
    p->elt = elt;
    int status = skit_cuda_backend_attention_init(p);
    if (status != SKIT_OK) {
        skit_cuda_backend_attention_release(p);
        skit_free(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

/* Shape checks of Q (n_q x d_k), K (n_k x d_k), V (n_k x d_v) and the output
 * Y (n_q x d_v) shared by the attention and MRA entry points: leading
 * dimensions, cuBLAS int limits on device arrays, and Y disjoint from the
 * inputs. q_name / k_name name the sizes in messages ("n_q" or "n"). elt is
 * the element size of the caller's arrays. */
static int qkvy_check(const void *Q, size_t ldq, const void *K, size_t ldk, const void *V,
                      size_t ldv, const void *Y, size_t ldy, size_t n_q, size_t n_k, size_t d_k,
                      size_t d_v, const char *q_name, const char *k_name, size_t elt, int device)
{
    SKIT_REQUIRE_PTR(Q);
    SKIT_REQUIRE_PTR(K);
    SKIT_REQUIRE_PTR(V);
    SKIT_REQUIRE_PTR(Y);
    SKIT_TRY(check_ld(ldq, n_q, "ldq", q_name));
    SKIT_TRY(check_ld(ldk, n_k, "ldk", k_name));
    SKIT_TRY(check_ld(ldv, n_k, "ldv", k_name));
    SKIT_TRY(check_ld(ldy, n_q, "ldy", q_name));
    if (device) {
        SKIT_TRY(check_blas_int(ldq, "ldq", SKIT_ESHAPE));
        SKIT_TRY(check_blas_int(ldk, "ldk", SKIT_ESHAPE));
        SKIT_TRY(check_blas_int(ldv, "ldv", SKIT_ESHAPE));
        SKIT_TRY(check_blas_int(ldy, "ldy", SKIT_ESHAPE));
    }
    size_t q_bytes, k_bytes, v_bytes, y_bytes;
    SKIT_TRY(block_span(n_q, d_k, ldq, elt, "Q", &q_bytes));
    SKIT_TRY(block_span(n_k, d_k, ldk, elt, "K", &k_bytes));
    SKIT_TRY(block_span(n_k, d_v, ldv, elt, "V", &v_bytes));
    SKIT_TRY(block_span(n_q, d_v, ldy, elt, "Y", &y_bytes));
    SKIT_TRY(check_disjoint(Q, q_bytes, "Q", Y, y_bytes, "Y"));
    SKIT_TRY(check_disjoint(K, k_bytes, "K", Y, y_bytes, "Y"));
    SKIT_TRY(check_disjoint(V, v_bytes, "V", Y, y_bytes, "Y"));
    return SKIT_OK;
}

/* Shape checks shared by both attention entry points. */
static int attention_check(const skit_cuda_attention_plan *plan, double scale, const void *Q,
                           size_t ldq, const void *K, size_t ldk, const void *V, size_t ldv,
                           const void *Y, size_t ldy, size_t elt, int device)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(Q); /* pointers before the scale, as documented */
    SKIT_REQUIRE_PTR(K);
    SKIT_REQUIRE_PTR(V);
    SKIT_REQUIRE_PTR(Y);
    if (!isfinite(scale))
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need a finite scale", scale);
    return qkvy_check(Q, ldq, K, ldk, V, ldv, Y, ldy, plan->n_q, plan->n_k, plan->d_k, plan->d_v,
                      "n_q", "n_k", elt, device);
}

int skit_cuda_attention_execute_device(const skit_cuda_attention_plan *plan, double scale,
                                       const void *Q_dev, size_t ldq, const void *K_dev,
                                       size_t ldk, const void *V_dev, size_t ldv, void *Y_dev,
                                       size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(attention_check(plan, scale, Q_dev, ldq, K_dev, ldk, V_dev, ldv, Y_dev, ldy,
                             plan->elt, 1));
    return skit_cuda_backend_attention_device(plan, scale, Q_dev, ldq, K_dev, ldk, V_dev, ldv,
                                              Y_dev, ldy);
}

int skit_cuda_attention_execute(const skit_cuda_attention_plan *plan, double scale,
                                const double *Q, size_t ldq, const double *K, size_t ldk,
                                const double *V, size_t ldv, double *Y, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(attention_check(plan, scale, Q, ldq, K, ldk, V, ldv, Y, ldy, sizeof(double), 0));
    SKIT_TRY(skit_check_finite_matrix(Q, plan->n_q, plan->d_k, ldq, "Q"));
    SKIT_TRY(skit_check_finite_matrix(K, plan->n_k, plan->d_k, ldk, "K"));
    SKIT_TRY(skit_check_finite_matrix(V, plan->n_k, plan->d_v, ldv, "V"));
    return skit_cuda_backend_attention_host(plan, scale, Q, ldq, K, ldk, V, ldv, NULL, NULL, Y,
                                            ldy);
}

int skit_cuda_attention_execute_masked(const skit_cuda_attention_plan *plan, double scale,
                                       const double *Q, size_t ldq, const double *K, size_t ldk,
                                       const double *V, size_t ldv,
                                       const unsigned char *key_mask,
                                       const unsigned char *query_mask, double *Y, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(attention_check(plan, scale, Q, ldq, K, ldk, V, ldv, Y, ldy, sizeof(double), 0));
    SKIT_TRY(skit_check_finite_matrix(Q, plan->n_q, plan->d_k, ldq, "Q"));
    SKIT_TRY(skit_check_finite_matrix(K, plan->n_k, plan->d_k, ldk, "K"));
    SKIT_TRY(skit_check_finite_matrix(V, plan->n_k, plan->d_v, ldv, "V"));
    return skit_cuda_backend_attention_host(plan, scale, Q, ldq, K, ldk, V, ldv, key_mask,
                                            query_mask, Y, ldy);
}

size_t skit_cuda_attention_plan_tile(const skit_cuda_attention_plan *plan)
{
    return plan ? plan->tile : 0;
}

size_t skit_cuda_attention_plan_device_bytes(const skit_cuda_attention_plan *plan)
{
    return plan ? plan->device_bytes : 0;
}

void skit_cuda_attention_plan_destroy(skit_cuda_attention_plan *plan)
{
    if (!plan) return;
    skit_cuda_backend_attention_release(plan);
    skit_free(plan);
}

/* ---- MRA-2 / MRA-2-s ------------------------------------------------------ */

/* Refuses host allocations beyond available memory before the backend makes
 * them: the selection's rows^2 doubles (three arrays) dominate. */
static int mra_host_check(size_t rows)
{
    size_t bytes;
    if (skit_size_mul(rows, rows, &bytes) || skit_size_mul(bytes, 3 * sizeof(double), &bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "MRA coarse level of %zu x %zu blocks overflows size_t",
                          rows, rows);
    return skit_memory_check(bytes, "cuda MRA plan (host selection buffers)");
}

int skit_cuda_mra_plan_create(skit_cuda_mra_plan **plan, size_t n, size_t d, size_t dv,
                              const skit_attention_options *o, skit_cuda_precision precision)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(o);
    SKIT_TRY(check_precision(precision));
    if (o->method != SKIT_ATTENTION_MRA2 && o->method != SKIT_ATTENTION_MRA2_SPARSE)
        return SKIT_ERROR(SKIT_EINVAL, "method = %d: the CUDA MRA plan runs mra2 (%d) or mra2s (%d)",
                          (int)o->method, (int)SKIT_ATTENTION_MRA2,
                          (int)SKIT_ATTENTION_MRA2_SPARSE);
    SKIT_TRY(check_positive(n, "n"));
    SKIT_TRY(check_positive(d, "d"));
    SKIT_TRY(check_positive(dv, "dv"));
    if (!isfinite(o->scale) || o->scale < 0)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need finite scale >= 0 (0 = 1/sqrt(d))",
                          o->scale);
    size_t levels, scales[SKIT_MRA_MAX_LEVELS];
    SKIT_TRY(attn_mra_levels(o, n, scales, &levels));
    if (levels != 2 || scales[1] != 1)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "cuda: MRA on the device runs two levels R = {block, 1}; levels = %zu "
                          "with finest scale %zu runs on the CPU (device = cpu)",
                          levels, scales[levels - 1]);
    const size_t b = scales[0], rows = n / b;
    if (rows > 65535)
        return SKIT_ERROR(SKIT_ETOOBIG,
                          "n/s_0 = %zu coarse blocks per row: need fewer than 65536 (use a larger "
                          "block)",
                          rows);
    SKIT_TRY(check_blas_int(n, "n", SKIT_ETOOBIG));
    SKIT_TRY(check_blas_int(d, "d", SKIT_ETOOBIG));
    SKIT_TRY(check_blas_int(dv, "dv", SKIT_ETOOBIG));
    /* sizes of the largest device buffers, for overflow: ref_cap * b * max(b, dv) */
    size_t cap = skit_cuda_mra_capacity(rows, o->blocks_per_row[0]), count;
    size_t elt = skit_cuda_precision_bytes(precision);
    if (skit_size_mul(cap, b, &count) || skit_size_mul(count, SKIT_MAX(b, dv), &count) ||
        skit_size_mul(count, elt, &count) || skit_size_mul(n, SKIT_MAX(d, dv), &count) ||
        skit_size_mul(count, elt, &count))
        return SKIT_ERROR(SKIT_EOVERFLOW, "MRA device buffers (n = %zu, block %zu, %zu squares) "
                                          "overflow size_t", n, b, cap);
    SKIT_TRY(require_device());
    SKIT_TRY(mra_host_check(rows));

    struct skit_cuda_mra_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->d = d;
    p->dv = dv;
    p->b = b;
    p->rows = rows;
    p->per_row = o->blocks_per_row[0];
    p->ref_cap = cap;
    p->sparse = o->method == SKIT_ATTENTION_MRA2_SPARSE;
    p->selection = o->selection;
    p->diagonal_prior = o->diagonal_prior;
    p->first_block_prior = o->first_block_prior != 0;
    p->scale = o->scale > 0 ? o->scale : 1.0 / sqrt((double)d);
    p->shift_bias = o->shift_bias;
    p->precision = precision;
    p->elt = elt;
    int status = skit_cuda_backend_mra_init(p);
    if (status != SKIT_OK) {
        skit_cuda_backend_mra_release(p);
        skit_free(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

/* Shape checks of both MRA entry points (elt: element size of the arrays). */
static int mra_check(const skit_cuda_mra_plan *plan, const void *Q, size_t ldq, const void *K,
                     size_t ldk, const void *V, size_t ldv, const void *Y, size_t ldy, size_t elt,
                     int device)
{
    SKIT_REQUIRE_PTR(plan);
    return qkvy_check(Q, ldq, K, ldk, V, ldv, Y, ldy, plan->n, plan->n, plan->d, plan->dv, "n", "n",
                      elt, device);
}

int skit_cuda_mra_execute(const skit_cuda_mra_plan *plan, const double *Q, size_t ldq,
                          const double *K, size_t ldk, const double *V, size_t ldv,
                          const unsigned char *mask, double *Y, size_t ldy)
{
    SKIT_TRY(mra_check(plan, Q, ldq, K, ldk, V, ldv, Y, ldy, sizeof(double), 0));
    SKIT_TRY(skit_check_finite_matrix(Q, plan->n, plan->d, ldq, "Q"));
    SKIT_TRY(skit_check_finite_matrix(K, plan->n, plan->d, ldk, "K"));
    SKIT_TRY(skit_check_finite_matrix(V, plan->n, plan->dv, ldv, "V"));
    return skit_cuda_backend_mra_host(plan, Q, ldq, K, ldk, V, ldv, mask, Y, ldy);
}

int skit_cuda_mra_execute_device(const skit_cuda_mra_plan *plan, const void *Q_dev, size_t ldq,
                                 const void *K_dev, size_t ldk, const void *V_dev, size_t ldv,
                                 const unsigned char *mask_dev, void *Y_dev, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(mra_check(plan, Q_dev, ldq, K_dev, ldk, V_dev, ldv, Y_dev, ldy, plan->elt, 1));
    return skit_cuda_backend_mra_device(plan, Q_dev, ldq, K_dev, ldk, V_dev, ldv, mask_dev,
                                        Y_dev, ldy);
}

size_t skit_cuda_mra_plan_refined(const skit_cuda_mra_plan *plan)
{
    return plan && plan->state ? plan->state[0] : 0;
}

size_t skit_cuda_mra_plan_block(const skit_cuda_mra_plan *plan) { return plan ? plan->b : 0; }

size_t skit_cuda_mra_plan_device_bytes(const skit_cuda_mra_plan *plan)
{
    return plan ? plan->device_bytes : 0;
}

void skit_cuda_mra_plan_destroy(skit_cuda_mra_plan *plan)
{
    if (!plan) return;
    skit_cuda_backend_mra_release(plan);
    skit_free(plan);
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
    return require_device();
}

/* ---- elementwise kernels -------------------------------------------------- */

int skit_cuda_complex_multiply_device(skit_cuda_precision precision, size_t nfreq, size_t d,
                                      int shared, const void *s_dev, size_t lds, void *z_dev,
                                      size_t ldz, int conjugate)
{
    SKIT_TRY(check_precision(precision));
    SKIT_REQUIRE_PTR(s_dev);
    SKIT_REQUIRE_PTR(z_dev);
    SKIT_TRY(check_positive(nfreq, "nfreq"));
    SKIT_TRY(check_positive(d, "d"));
    SKIT_TRY(check_ld(ldz, nfreq, "ldz", "nfreq"));
    if (!shared) SKIT_TRY(check_ld(lds, nfreq, "lds", "nfreq"));
    size_t celt = 2 * skit_cuda_precision_bytes(precision), s_bytes, z_bytes;
    SKIT_TRY(block_span(nfreq, shared ? 1 : d, shared ? nfreq : lds, celt, "s_dev", &s_bytes));
    SKIT_TRY(block_span(nfreq, d, ldz, celt, "z_dev", &z_bytes));
    SKIT_TRY(check_disjoint(s_dev, s_bytes, "s_dev", z_dev, z_bytes, "z_dev"));
    SKIT_TRY(require_device());
    return skit_cuda_backend_complex_multiply(precision, nfreq, d, shared != 0, s_dev, lds, z_dev,
                                              ldz, conjugate != 0);
}

int skit_cuda_band_convolve_device(skit_cuda_precision precision, size_t n, size_t d, size_t lo,
                                   size_t hi, int shared, const void *taps_dev, const void *x_dev,
                                   size_t ldx, void *y_dev, size_t ldy, int accumulate)
{
    SKIT_TRY(check_precision(precision));
    SKIT_REQUIRE_PTR(taps_dev);
    SKIT_REQUIRE_PTR(x_dev);
    SKIT_REQUIRE_PTR(y_dev);
    SKIT_TRY(check_positive(n, "n"));
    SKIT_TRY(check_positive(d, "d"));
    if (lo >= n) return SKIT_ERROR(SKIT_EDOM, "lo = %zu out of range: need lo < n (= %zu)", lo, n);
    if (hi >= n) return SKIT_ERROR(SKIT_EDOM, "hi = %zu out of range: need hi < n (= %zu)", hi, n);
    SKIT_TRY(check_ld(ldx, n, "ldx", "n"));
    SKIT_TRY(check_ld(ldy, n, "ldy", "n"));
    size_t elt = skit_cuda_precision_bytes(precision), x_bytes, y_bytes, t_bytes;
    size_t ntaps = lo + hi + 1; /* < 2n, no overflow */
    SKIT_TRY(block_span(ntaps, shared ? 1 : d, ntaps, elt, "taps_dev", &t_bytes));
    SKIT_TRY(block_span(n, d, ldx, elt, "x_dev", &x_bytes));
    SKIT_TRY(block_span(n, d, ldy, elt, "y_dev", &y_bytes));
    SKIT_TRY(check_disjoint(x_dev, x_bytes, "x_dev", y_dev, y_bytes, "y_dev"));
    SKIT_TRY(check_disjoint(taps_dev, t_bytes, "taps_dev", y_dev, y_bytes, "y_dev"));
    SKIT_TRY(require_device());
    return skit_cuda_backend_band_convolve(precision, n, d, lo, hi, shared != 0, taps_dev, x_dev,
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
    SKIT_TRY(check_precision(precision));
    SKIT_TRY(check_positive(n, "n"));
    SKIT_TRY(check_positive(r, "r"));
    SKIT_TRY(check_positive(width, "width"));
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
    SKIT_TRY(require_device());

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
        status = skit_cuda_backend_interp_init(p, cols, weights, row_ptr, trow, tsrc);
    }
    skit_free(row_ptr);
    skit_free(trow);
    skit_free(tsrc);
    if (status != SKIT_OK) {
        if (p) skit_cuda_backend_interp_release(p);
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
    SKIT_TRY(check_positive(d, "d"));
    SKIT_TRY(check_ld(ldu, plan->r, "ldu", "r"));
    SKIT_TRY(check_ld(ldy, plan->n, "ldy", "n"));
    size_t u_bytes, y_bytes;
    SKIT_TRY(block_span(plan->r, d, ldu, plan->elt, "u_dev", &u_bytes));
    SKIT_TRY(block_span(plan->n, d, ldy, plan->elt, "y_dev", &y_bytes));
    SKIT_TRY(check_disjoint(u_dev, u_bytes, "u_dev", y_dev, y_bytes, "y_dev"));
    return skit_cuda_backend_interp_gather(plan, d, u_dev, ldu, y_dev, ldy, accumulate != 0);
}

int skit_cuda_interp_scatter_device(const skit_cuda_interp_plan *plan, size_t d,
                                    const void *x_dev, size_t ldx, void *u_dev, size_t ldu)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x_dev);
    SKIT_REQUIRE_PTR(u_dev);
    SKIT_TRY(check_positive(d, "d"));
    SKIT_TRY(check_ld(ldx, plan->n, "ldx", "n"));
    SKIT_TRY(check_ld(ldu, plan->r, "ldu", "r"));
    size_t x_bytes, u_bytes;
    SKIT_TRY(block_span(plan->n, d, ldx, plan->elt, "x_dev", &x_bytes));
    SKIT_TRY(block_span(plan->r, d, ldu, plan->elt, "u_dev", &u_bytes));
    SKIT_TRY(check_disjoint(x_dev, x_bytes, "x_dev", u_dev, u_bytes, "u_dev"));
    return skit_cuda_backend_interp_scatter(plan, d, x_dev, ldx, u_dev, ldu);
}

size_t skit_cuda_interp_plan_device_bytes(const skit_cuda_interp_plan *plan)
{
    return plan ? plan->device_bytes : 0;
}

void skit_cuda_interp_plan_destroy(skit_cuda_interp_plan *plan)
{
    if (!plan) return;
    skit_cuda_backend_interp_release(plan);
    skit_free(plan);
}
