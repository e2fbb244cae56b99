/* plans.c — the CUDA plans of skit/cuda.h, built in every configuration:
 * the batched Toeplitz product (cuFFT), exact attention (cuBLAS) and the
 * MRA-2 / MRA-2-s kernels. Arguments are validated as in api.c before the
 * availability check; the plugin's table does the device work. The MRA
 * plan's option rules and selection come from the attention module through
 * skit_cuda_mra_plan_build (cuda/mra_rules.h), which is how
 * skit_cuda_mra_plan_create reaches this file. */
#include "config.h"

#include "core/internal.h"

#include <limits.h>
#include <math.h>

#include "cuda/api.h"
#include "cuda/index_logic.h"
#include "skit/cuda.h"

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
    SKIT_TRY(skit_cuda_check_precision(precision));
    SKIT_TRY(skit_cuda_check_positive(m, "m"));
    SKIT_TRY(skit_cuda_check_positive(n, "n"));
    SKIT_TRY(skit_cuda_check_positive(d, "d"));
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
    SKIT_TRY(skit_cuda_require_device());
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
    const struct skit_cuda_backend *backend = skit_cuda_loaded();
    int status = backend->toeplitz_init(p, coeffs);
    if (status != SKIT_OK) {
        backend->toeplitz_release(p);
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
    return skit_cuda_loaded()->toeplitz_set_coeffs(plan, coeffs);
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
    SKIT_TRY(skit_cuda_check_ld(ldx, in_rows, "ldx", in_name));
    SKIT_TRY(skit_cuda_check_ld(ldy, out_rows, "ldy", out_name));
    SKIT_TRY(skit_cuda_block_span(in_rows, plan->d, ldx, plan->elt, "x_dev", &x_bytes));
    SKIT_TRY(skit_cuda_block_span(out_rows, plan->d, ldy, plan->elt, "y_dev", &y_bytes));
    SKIT_TRY(skit_cuda_check_disjoint(x, x_bytes, "x_dev", y, y_bytes, "y_dev"));
    return skit_cuda_loaded()->toeplitz_device(plan, transpose, x, ldx, y, ldy);
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
    SKIT_TRY(skit_cuda_check_ld(ldx, in_rows, "ldx", in_name));
    SKIT_TRY(skit_cuda_check_ld(ldy, out_rows, "ldy", out_name));
    SKIT_TRY(skit_cuda_block_span(in_rows, plan->d, ldx, sizeof(double), "x", &x_bytes));
    SKIT_TRY(skit_cuda_block_span(out_rows, plan->d, ldy, sizeof(double), "y", &y_bytes));
    SKIT_TRY(skit_cuda_check_disjoint(x, x_bytes, "x", y, y_bytes, "y"));
    SKIT_TRY(skit_check_finite_matrix(x, in_rows, plan->d, ldx, "x"));
    return skit_cuda_loaded()->toeplitz_host(plan, transpose, x, ldx, y, ldy);
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
    skit_cuda_loaded()->toeplitz_release(plan);
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
    SKIT_TRY(skit_cuda_check_precision(precision));
    SKIT_TRY(skit_cuda_check_positive(n_q, "n_q"));
    SKIT_TRY(skit_cuda_check_positive(n_k, "n_k"));
    SKIT_TRY(skit_cuda_check_positive(d_k, "d_k"));
    SKIT_TRY(skit_cuda_check_positive(d_v, "d_v"));
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
    SKIT_TRY(skit_cuda_require_device());
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
    const struct skit_cuda_backend *backend = skit_cuda_loaded();
    int status = backend->attention_init(p);
    if (status != SKIT_OK) {
        backend->attention_release(p);
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
    SKIT_TRY(skit_cuda_check_ld(ldq, n_q, "ldq", q_name));
    SKIT_TRY(skit_cuda_check_ld(ldk, n_k, "ldk", k_name));
    SKIT_TRY(skit_cuda_check_ld(ldv, n_k, "ldv", k_name));
    SKIT_TRY(skit_cuda_check_ld(ldy, n_q, "ldy", q_name));
    if (device) {
        SKIT_TRY(check_blas_int(ldq, "ldq", SKIT_ESHAPE));
        SKIT_TRY(check_blas_int(ldk, "ldk", SKIT_ESHAPE));
        SKIT_TRY(check_blas_int(ldv, "ldv", SKIT_ESHAPE));
        SKIT_TRY(check_blas_int(ldy, "ldy", SKIT_ESHAPE));
    }
    size_t q_bytes, k_bytes, v_bytes, y_bytes;
    SKIT_TRY(skit_cuda_block_span(n_q, d_k, ldq, elt, "Q", &q_bytes));
    SKIT_TRY(skit_cuda_block_span(n_k, d_k, ldk, elt, "K", &k_bytes));
    SKIT_TRY(skit_cuda_block_span(n_k, d_v, ldv, elt, "V", &v_bytes));
    SKIT_TRY(skit_cuda_block_span(n_q, d_v, ldy, elt, "Y", &y_bytes));
    SKIT_TRY(skit_cuda_check_disjoint(Q, q_bytes, "Q", Y, y_bytes, "Y"));
    SKIT_TRY(skit_cuda_check_disjoint(K, k_bytes, "K", Y, y_bytes, "Y"));
    SKIT_TRY(skit_cuda_check_disjoint(V, v_bytes, "V", Y, y_bytes, "Y"));
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
    return skit_cuda_loaded()->attention_device(plan, scale, Q_dev, ldq, K_dev, ldk, V_dev, ldv,
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
    return skit_cuda_loaded()->attention_host(plan, scale, Q, ldq, K, ldk, V, ldv, NULL, NULL, Y,
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
    return skit_cuda_loaded()->attention_host(plan, scale, Q, ldq, K, ldk, V, ldv, key_mask,
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
    skit_cuda_loaded()->attention_release(plan);
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

int skit_cuda_mra_plan_build(skit_cuda_mra_plan **plan, size_t n, size_t d, size_t dv,
                             const skit_attention_options *o, skit_cuda_precision precision,
                             const skit_cuda_mra_rules *rules)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(o);
    SKIT_TRY(skit_cuda_check_precision(precision));
    if (o->method != SKIT_ATTENTION_MRA2 && o->method != SKIT_ATTENTION_MRA2_SPARSE)
        return SKIT_ERROR(SKIT_EINVAL, "method = %d: the CUDA MRA plan runs mra2 (%d) or mra2s (%d)",
                          (int)o->method, (int)SKIT_ATTENTION_MRA2,
                          (int)SKIT_ATTENTION_MRA2_SPARSE);
    SKIT_TRY(skit_cuda_check_positive(n, "n"));
    SKIT_TRY(skit_cuda_check_positive(d, "d"));
    SKIT_TRY(skit_cuda_check_positive(dv, "dv"));
    if (!isfinite(o->scale) || o->scale < 0)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need finite scale >= 0 (0 = 1/sqrt(d))",
                          o->scale);
    size_t levels, scales[SKIT_MRA_MAX_LEVELS];
    SKIT_TRY(rules->levels(o, n, scales, &levels));
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
    SKIT_TRY(skit_cuda_require_device());
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
    p->select = rules->select;
    p->scale = o->scale > 0 ? o->scale : 1.0 / sqrt((double)d);
    p->shift_bias = o->shift_bias;
    p->precision = precision;
    p->elt = elt;
    const struct skit_cuda_backend *backend = skit_cuda_loaded();
    int status = backend->mra_init(p);
    if (status != SKIT_OK) {
        backend->mra_release(p);
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
    return skit_cuda_loaded()->mra_host(plan, Q, ldq, K, ldk, V, ldv, mask, Y, ldy);
}

int skit_cuda_mra_execute_device(const skit_cuda_mra_plan *plan, const void *Q_dev, size_t ldq,
                                 const void *K_dev, size_t ldk, const void *V_dev, size_t ldv,
                                 const unsigned char *mask_dev, void *Y_dev, size_t ldy)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(mra_check(plan, Q_dev, ldq, K_dev, ldk, V_dev, ldv, Y_dev, ldy, plan->elt, 1));
    return skit_cuda_loaded()->mra_device(plan, Q_dev, ldq, K_dev, ldk, V_dev, ldv, mask_dev, Y_dev,
                                          ldy);
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
    skit_cuda_loaded()->mra_release(plan);
    skit_free(plan);
}
