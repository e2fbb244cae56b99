/* backward.c — the vector–Jacobian product of exact softmax attention,
 * query tile by query tile (the flash-attention backward without its
 * recomputation trick: each tile's softmax rows are formed once, in the
 * caller's workspace): with S = softmax(scale Q K^T) and Y = S V,
 *   dV = S^T dY,  dS = dY V^T,  dP = S .* (dS - rowsum(S .* dS)),
 *   dQ = scale dP K,  dK = scale dP^T Q. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

#define BACKWARD_TILE 64

size_t skit_attention_exact_backward_workspace(size_t n)
{
    return 2 * (size_t)BACKWARD_TILE * n;
}

/* rows x n logits (ld rows) to softmax rows in place; masked keys and rows
 * 0, and (causal) the keys after each row's query */
static void softmax_tile(size_t rows, size_t n, size_t i0, const unsigned char *mask, int causal, double *S)
{
    for (size_t r = 0; r < rows; r++) {
        int row_valid = !mask || mask[i0 + r];
        size_t keys = causal ? i0 + r + 1 : n;
        double mx = -INFINITY, sum = 0;
        for (size_t j = 0; j < keys; j++)
            if (row_valid && (!mask || mask[j]) && S[r + j * rows] > mx) mx = S[r + j * rows];
        for (size_t j = 0; j < n; j++) {
            double e = j < keys && row_valid && (!mask || mask[j]) && mx > -INFINITY ? exp(S[r + j * rows] - mx)
                                                                                       : 0.0;
            S[r + j * rows] = e;
            sum += e;
        }
        double inv = sum > 0 ? 1.0 / sum : 0.0;
        for (size_t j = 0; j < n; j++) S[r + j * rows] *= inv;
    }
}

static void zero_block(size_t rows, size_t cols, double *a, size_t lda)
{
    for (size_t c = 0; c < cols; c++) memset(a + c * lda, 0, rows * sizeof *a);
}

static int check_args(size_t n, size_t d, size_t dv, const double *q, size_t ldq, const double *k, size_t ldk,
                      const double *v, size_t ldv, double scale, const double *dy, size_t lddy)
{
    SKIT_REQUIRE_PTR(q);
    SKIT_REQUIRE_PTR(k);
    SKIT_REQUIRE_PTR(v);
    SKIT_REQUIRE_PTR(dy);
    if (n == 0 || d == 0 || dv == 0)
        return SKIT_ERROR(SKIT_EDOM, "n = %zu, d = %zu, dv = %zu out of range: need all >= 1", n, d, dv);
    if (!isfinite(scale)) return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need a finite value", scale);
    if (ldq < n || ldk < n || ldv < n || lddy < n)
        return SKIT_ERROR(SKIT_ESHAPE, "a leading dimension (ldq %zu, ldk %zu, ldv %zu, lddy %zu) < n = %zu", ldq,
                          ldk, ldv, lddy, n);
    return SKIT_OK;
}

int skit_attention_exact_backward(size_t n, size_t d, size_t dv, const double *q, size_t ldq, const double *k,
                                  size_t ldk, const double *v, size_t ldv, double scale, const unsigned char *mask,
                                  const double *dy, size_t lddy, double *dq, size_t lddq, double *dk, size_t lddk,
                                  double *dvv, size_t lddv, double *work)
{
    skit_attention_mask m = {mask, 0};
    return skit_attention_exact_backward_masked(n, d, dv, q, ldq, k, ldk, v, ldv, scale, &m, dy, lddy, dq, lddq,
                                                dk, lddk, dvv, lddv, work);
}

int skit_attention_exact_backward_masked(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                                         const double *k, size_t ldk, const double *v, size_t ldv, double scale,
                                         const skit_attention_mask *masks, const double *dy, size_t lddy,
                                         double *dq, size_t lddq, double *dk, size_t lddk, double *dvv,
                                         size_t lddv, double *work)
{
    const unsigned char *mask = masks ? masks->padding : NULL;
    int causal = masks && masks->causal;
    SKIT_TRY(attn_check_mask(masks));
    SKIT_TRY(check_args(n, d, dv, q, ldq, k, ldk, v, ldv, scale, dy, lddy));
    if ((dq && lddq < n) || (dk && lddk < n) || (dvv && lddv < n))
        return SKIT_ERROR(SKIT_ESHAPE, "a gradient's leading dimension is < n = %zu", n);
    double *owned = NULL;
    if (!work) {
        owned = skit_malloc(skit_attention_exact_backward_workspace(n), sizeof(double));
        if (!owned) return SKIT_ENOMEM;
        work = owned;
    }
    if (dk) zero_block(n, d, dk, lddk);
    if (dvv) zero_block(n, dv, dvv, lddv);
    for (size_t i0 = 0; i0 < n; i0 += BACKWARD_TILE) {
        const size_t T = SKIT_MIN((size_t)BACKWARD_TILE, n - i0);
        const int t = (int)T, N = (int)n;
        double *S = work, *dS = work + T * n;
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, t, N, (int)d, scale, q + i0, (int)ldq, k, (int)ldk, 0.0,
                    S, t);
        softmax_tile(T, n, i0, mask, causal, S);
        if (dvv)
            cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, N, (int)dv, t, 1.0, S, t, dy + i0, (int)lddy, 1.0,
                        dvv, (int)lddv);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, t, N, (int)dv, 1.0, dy + i0, (int)lddy, v, (int)ldv,
                    0.0, dS, t);
        for (size_t r = 0; r < T; r++) {
            double dot = 0;
            for (size_t j = 0; j < n; j++) dot += S[r + j * T] * dS[r + j * T];
            for (size_t j = 0; j < n; j++) dS[r + j * T] = S[r + j * T] * (dS[r + j * T] - dot);
        }
        if (dq)
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, t, (int)d, N, scale, dS, t, k, (int)ldk, 0.0,
                        dq + i0, (int)lddq);
        if (dk)
            cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, N, (int)d, t, scale, dS, t, q + i0, (int)ldq, 1.0, dk,
                        (int)lddk);
    }
    skit_free(owned);
    return SKIT_OK;
}
