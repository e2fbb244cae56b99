/* backward_f32.c — the vector–Jacobian product of exact softmax attention
 * in float32: backward.c's query tiles on float arrays, sgemm for every
 * product (the logits scale Q K^T, dS = dY V^T, dV += S^T dY, dQ = scale
 * dP K, dK += scale dP^T Q). As in the float forward, the sums that run
 * over a whole row are kept in double: each softmax row's normaliser and
 * the row sums <S_i, dS_i> of the softmax backward, whose float error
 * would otherwise grow with n and be subtracted from every entry of the
 * row; dP = S (dS - <S_i, dS_i>) is formed in double and rounded once.
 * Causal tiles stop at the key of their last query. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

#define BACKWARD_TILE_F32 64

size_t skit_attention_exact_backward_f32_workspace(size_t n)
{
    return 2 * (size_t)BACKWARD_TILE_F32 * n;
}

/* rows x keys logits (ld rows) to softmax rows in place; masked keys and
 * rows 0, and (causal) the keys after each row's query */
static void softmax_tile_f32(size_t rows, size_t keys, size_t i0, const unsigned char *mask, int causal,
                             float *S)
{
    for (size_t r = 0; r < rows; r++) {
        int row_valid = !mask || mask[i0 + r];
        size_t last = causal ? i0 + r + 1 : keys;
        float mx = -INFINITY;
        double sum = 0;
        for (size_t j = 0; j < last; j++)
            if (row_valid && (!mask || mask[j]) && S[r + j * rows] > mx) mx = S[r + j * rows];
        for (size_t j = 0; j < keys; j++) {
            int on = j < last && row_valid && (!mask || mask[j]) && mx > -INFINITY;
            float e = on ? expf(S[r + j * rows] - mx) : 0.0f;
            S[r + j * rows] = e;
            sum += e;
        }
        double inv = sum > 0 ? 1.0 / sum : 0.0;
        for (size_t j = 0; j < keys; j++) S[r + j * rows] = (float)(S[r + j * rows] * inv);
    }
}

/* dS into dP = S (dS - <S_r, dS_r>) row by row, the row sums in double */
static void softmax_backward_tile_f32(size_t rows, size_t keys, const float *S, float *dS)
{
    for (size_t r = 0; r < rows; r++) {
        double dot = 0;
        for (size_t j = 0; j < keys; j++) dot += (double)S[r + j * rows] * dS[r + j * rows];
        for (size_t j = 0; j < keys; j++)
            dS[r + j * rows] = (float)((double)S[r + j * rows] * ((double)dS[r + j * rows] - dot));
    }
}

static void zero_block_f32(size_t rows, size_t cols, float *a, size_t lda)
{
    for (size_t c = 0; c < cols; c++) memset(a + c * lda, 0, rows * sizeof *a);
}

static int check_args_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq, const float *k, size_t ldk,
                          const float *v, size_t ldv, double scale, const float *dy, size_t lddy)
{
    SKIT_REQUIRE_PTR(dy);
    SKIT_TRY(attn_check_scale(scale));
    if (fabs(scale) > 3.4e38)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need |scale| <= 3.4e38 (float32)", scale);
    SKIT_TRY(attn_check_inputs_f32(n, d, dv, q, ldq, k, ldk, v, ldv));
    if (lddy < n) return SKIT_ERROR(SKIT_ESHAPE, "lddy = %zu < n = %zu", lddy, n);
    return attn_check_finite_f32(dy, n, dv, lddy, "dY");
}

int skit_attention_exact_backward_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq, const float *k,
                                      size_t ldk, const float *v, size_t ldv, double scale,
                                      const unsigned char *mask, const float *dy, size_t lddy, float *dq,
                                      size_t lddq, float *dk, size_t lddk, float *dvv, size_t lddv, float *work)
{
    skit_attention_mask m = {mask, 0};
    return skit_attention_exact_backward_masked_f32(n, d, dv, q, ldq, k, ldk, v, ldv, scale, &m, dy, lddy, dq,
                                                    lddq, dk, lddk, dvv, lddv, work);
}

int skit_attention_exact_backward_masked_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq,
                                             const float *k, size_t ldk, const float *v, size_t ldv, double scale,
                                             const skit_attention_mask *masks, const float *dy, size_t lddy,
                                             float *dq, size_t lddq, float *dk, size_t lddk, float *dvv,
                                             size_t lddv, float *work)
{
    const unsigned char *mask = masks ? masks->padding : NULL;
    int causal = masks && masks->causal;
    SKIT_TRY(attn_check_mask(masks));
    SKIT_TRY(check_args_f32(n, d, dv, q, ldq, k, ldk, v, ldv, scale, dy, lddy));
    if ((dq && lddq < n) || (dk && lddk < n) || (dvv && lddv < n))
        return SKIT_ERROR(SKIT_ESHAPE, "a gradient's leading dimension is < n = %zu", n);
    float *owned = NULL;
    if (!work) {
        owned = skit_malloc(skit_attention_exact_backward_f32_workspace(n), sizeof(float));
        if (!owned) return SKIT_ENOMEM;
        work = owned;
    }
    const float sc = (float)scale;
    if (dk) zero_block_f32(n, d, dk, lddk);
    if (dvv) zero_block_f32(n, dv, dvv, lddv);
    for (size_t i0 = 0; i0 < n; i0 += BACKWARD_TILE_F32) {
        const size_t T = SKIT_MIN((size_t)BACKWARD_TILE_F32, n - i0), keys = causal ? i0 + T : n;
        const int t = (int)T, N = (int)keys;
        float *S = work, *dS = work + T * keys;
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, t, N, (int)d, sc, q + i0, (int)ldq, k, (int)ldk, 0.0f,
                    S, t);
        softmax_tile_f32(T, keys, i0, mask, causal, S);
        if (dvv)
            cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, N, (int)dv, t, 1.0f, S, t, dy + i0, (int)lddy,
                        1.0f, dvv, (int)lddv);
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, t, N, (int)dv, 1.0f, dy + i0, (int)lddy, v, (int)ldv,
                    0.0f, dS, t);
        softmax_backward_tile_f32(T, keys, S, dS);
        if (dq)
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, t, (int)d, N, sc, dS, t, k, (int)ldk, 0.0f,
                        dq + i0, (int)lddq);
        if (dk)
            cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, N, (int)d, t, sc, dS, t, q + i0, (int)ldq, 1.0f, dk,
                        (int)lddk);
    }
    skit_free(owned);
    return SKIT_OK;
}
