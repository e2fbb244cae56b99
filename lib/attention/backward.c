/* backward.c — the vector–Jacobian product of exact softmax attention,
 * query tile by query tile (the flash-attention backward without its
 * recomputation trick: each tile's softmax rows are formed once, in the
 * caller's workspace): with S = softmax(scale Q K^T) and Y = S V,
 *   dV = S^T dY,  dS = dY V^T,  dP = S .* (dS - rowsum(S .* dS)),
 *   dQ = scale dP K,  dK = scale dP^T Q.
 * One GEMM per product; causal tiles stop at the key of their last query.
 * Compiled twice: for double here (the public functions), and with
 * ATTN_BACKWARD_SINGLE for float (backward_f32.c: the float32 plans'
 * backward), where the sums that run over a whole row stay in
 * double: each softmax row's normaliser and the row sums <S_i, dS_i> of
 * the softmax backward, whose float error would otherwise grow with n and
 * be subtracted from every entry of the row; dP is formed in double and
 * rounded once. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

#ifdef ATTN_BACKWARD_SINGLE
typedef float R;
#define WORKSPACE attn_exact_backward_f32_floats
#define GEMM cblas_sgemm
#define EXP expf
#else
typedef double R;
#define WORKSPACE skit_attention_exact_backward_workspace
#define GEMM cblas_dgemm
#define EXP exp
#endif

#define BACKWARD_TILE 64

size_t WORKSPACE(size_t n)
{
    return 2 * (size_t)BACKWARD_TILE * n;
}

/* rows x keys logits (ld rows) to softmax rows in place; masked keys and
 * rows 0, and (causal) the keys after each row's query */
static void softmax_tile(size_t rows, size_t keys, size_t i0, const unsigned char *mask, int causal, R *S)
{
    for (size_t r = 0; r < rows; r++) {
        int row_valid = !mask || mask[i0 + r];
        size_t last = causal ? i0 + r + 1 : keys;
        R mx = -INFINITY;
        double sum = 0;
        for (size_t j = 0; j < last; j++)
            if (row_valid && (!mask || mask[j]) && S[r + j * rows] > mx) mx = S[r + j * rows];
        for (size_t j = 0; j < keys; j++) {
            int on = j < last && row_valid && (!mask || mask[j]) && mx > -INFINITY;
            R e = on ? EXP(S[r + j * rows] - mx) : 0;
            S[r + j * rows] = e;
            sum += e;
        }
        double inv = sum > 0 ? 1.0 / sum : 0.0;
        for (size_t j = 0; j < keys; j++) S[r + j * rows] = (R)(S[r + j * rows] * inv);
    }
}

/* dS into dP = S (dS - <S_r, dS_r>) row by row, the row sums in double */
static void softmax_backward_tile(size_t rows, size_t keys, const R *S, R *dS)
{
    for (size_t r = 0; r < rows; r++) {
        double dot = 0;
        for (size_t j = 0; j < keys; j++) dot += (double)S[r + j * rows] * dS[r + j * rows];
        for (size_t j = 0; j < keys; j++)
            dS[r + j * rows] = (R)((double)S[r + j * rows] * ((double)dS[r + j * rows] - dot));
    }
}

static void zero_block(size_t rows, size_t cols, R *a, size_t lda)
{
    for (size_t c = 0; c < cols; c++) memset(a + c * lda, 0, rows * sizeof *a);
}

/* the forward's checks, NaN/Inf scans included (O(n d) beside the O(n^2 d) work) */
static int check_args(size_t n, size_t d, size_t dv, const R *q, size_t ldq, const R *k, size_t ldk, const R *v,
                      size_t ldv, double scale, const R *dy, size_t lddy)
{
    SKIT_REQUIRE_PTR(dy);
    SKIT_TRY(attn_check_scale(scale));
    if (lddy < n) return SKIT_ERROR(SKIT_ESHAPE, "lddy = %zu < n = %zu", lddy, n);
#ifdef ATTN_BACKWARD_SINGLE
    if (fabs(scale) > 3.4e38)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need |scale| <= 3.4e38 (float32)", scale);
    SKIT_TRY(attn_check_inputs_f32(n, d, dv, q, ldq, k, ldk, v, ldv));
    return attn_check_finite_f32(dy, n, dv, lddy, "dY");
#else
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    SKIT_TRY(attn_check_v(n, dv, v, ldv));
    return skit_check_finite_matrix(dy, n, dv, lddy, "dY");
#endif
}

/* The backward proper (both precisions); work as the public forms */
static int backward_masked(size_t n, size_t d, size_t dv, const R *q, size_t ldq, const R *k, size_t ldk,
                           const R *v, size_t ldv, double scale, const skit_attention_mask *masks, const R *dy,
                           size_t lddy, R *dq, size_t lddq, R *dk, size_t lddk, R *dvv, size_t lddv, R *work)
{
    const unsigned char *mask = masks ? masks->padding : NULL;
    int causal = masks && masks->causal;
    SKIT_TRY(attn_check_mask(masks));
    SKIT_TRY(check_args(n, d, dv, q, ldq, k, ldk, v, ldv, scale, dy, lddy));
    if ((dq && lddq < n) || (dk && lddk < n) || (dvv && lddv < n))
        return SKIT_ERROR(SKIT_ESHAPE, "a gradient's leading dimension is < n = %zu", n);
    R *owned = NULL;
    if (!work) {
        owned = skit_malloc(WORKSPACE(n), sizeof(R));
        if (!owned) return SKIT_ENOMEM;
        work = owned;
    }
    const R sc = (R)scale;
    if (dk) zero_block(n, d, dk, lddk);
    if (dvv) zero_block(n, dv, dvv, lddv);
    for (size_t i0 = 0; i0 < n; i0 += BACKWARD_TILE) {
        const size_t T = SKIT_MIN((size_t)BACKWARD_TILE, n - i0), keys = causal ? i0 + T : n;
        const int t = (int)T, N = (int)keys;
        R *S = work, *dS = work + T * keys;
        GEMM(CblasColMajor, CblasNoTrans, CblasTrans, t, N, (int)d, sc, q + i0, (int)ldq, k, (int)ldk, 0, S, t);
        softmax_tile(T, keys, i0, mask, causal, S);
        if (dvv)
            GEMM(CblasColMajor, CblasTrans, CblasNoTrans, N, (int)dv, t, 1, S, t, dy + i0, (int)lddy, 1, dvv,
                 (int)lddv);
        GEMM(CblasColMajor, CblasNoTrans, CblasTrans, t, N, (int)dv, 1, dy + i0, (int)lddy, v, (int)ldv, 0, dS, t);
        softmax_backward_tile(T, keys, S, dS);
        if (dq)
            GEMM(CblasColMajor, CblasNoTrans, CblasNoTrans, t, (int)d, N, sc, dS, t, k, (int)ldk, 0, dq + i0,
                 (int)lddq);
        if (dk)
            GEMM(CblasColMajor, CblasTrans, CblasNoTrans, N, (int)d, t, sc, dS, t, q + i0, (int)ldq, 1, dk, (int)lddk);
    }
    skit_free(owned);
    return SKIT_OK;
}

#ifdef ATTN_BACKWARD_SINGLE
int attn_exact_backward_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq, const float *k, size_t ldk,
                            const float *v, size_t ldv, double scale, const skit_attention_mask *mask,
                            const float *dy, size_t lddy, float *dq, size_t lddq, float *dk, size_t lddk,
                            float *dvv, size_t lddv, float *work)
{
    return backward_masked(n, d, dv, q, ldq, k, ldk, v, ldv, scale, mask, dy, lddy, dq, lddq, dk, lddk, dvv, lddv,
                           work);
}
#else
int skit_attention_exact_backward(size_t n, size_t d, size_t dv, const double *q, size_t ldq, const double *k,
                                  size_t ldk, const double *v, size_t ldv, double scale, const unsigned char *mask,
                                  const double *dy, size_t lddy, double *dq, size_t lddq, double *dk, size_t lddk,
                                  double *dvv, size_t lddv, double *work)
{
    skit_attention_mask m = {mask, 0};
    return backward_masked(n, d, dv, q, ldq, k, ldk, v, ldv, scale, &m, dy, lddy, dq, lddq, dk, lddk, dvv, lddv,
                           work);
}

int skit_attention_exact_backward_masked(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                                         const double *k, size_t ldk, const double *v, size_t ldv, double scale,
                                         const skit_attention_mask *mask, const double *dy, size_t lddy,
                                         double *dq, size_t lddq, double *dk, size_t lddk, double *dvv,
                                         size_t lddv, double *work)
{
    return backward_masked(n, d, dv, q, ldq, k, ldk, v, ldv, scale, mask, dy, lddy, dq, lddq, dk, lddk, dvv, lddv,
                           work);
}
#endif
