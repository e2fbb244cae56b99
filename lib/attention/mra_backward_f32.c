/* mra_backward_f32.c — MRA-2's backward in float32, blocked: the atoms of
 * mra_backward.c (the fine keys of each refined square, one coarse atom
 * of logit C_xy + log b per unrefined square) for a whole query block at
 * once. The refined squares' keys and values of a block row are gathered
 * first, as mra_backward_blocked.c does in float64, so that each product
 * (logits Q_x K_s^T, dY_x V_s^T, dQ_x += G K_s, dK_s = G^T Q_x,
 * dV_s = W^T dY_x) is one sgemm over all of them: one sgemm per square
 * and product spent more time packing than multiplying. The coarse atoms
 * take one sgemm per query block (dY_x Vm^T, dVm += Wc^T dY_x); the
 * coarse logits' gradient then goes through C = scale Qm Km^T (two
 * sgemms) and the means. The block means are taken in double and rounded
 * once; every softmax row's normaliser and its row sum <W_i, dW_i> are
 * double, as in backward_f32.c. The selection is held fixed (the caller's
 * `refined`), as the float64 backward holds it. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

typedef struct mra32 {
    size_t n, d, dv, b, rows;
    int causal;
    float scale, logb;
    const unsigned char *refined; /* square (x, y) at x + y * rows */
    /* means and their gradients, coarse logits C[x + y rows] and dC */
    float *qm, *km, *vm, *dqm, *dkm, *dvm, *C, *dC;
    /* one query block: fine logits / weights / gradients (b x n at most,
     * one b x b square after another), coarse ones (b x rows) */
    float *Wf, *Gf, *Wc, *Gc;
    /* the block row's refined squares' keys and values gathered ((count b)
     * x d, x dv, ld count b) and the gradients of those rows */
    float *ks, *vs, *dks, *dvs;
} mra32;

size_t attn_mra2_backward_f32_floats(size_t n, size_t d, size_t dv, size_t block)
{
    size_t rows = block ? n / block : 0;
    return 2 * rows * (2 * d + dv) + 2 * rows * rows + 2 * block * (n + rows) + 2 * n * (d + dv);
}

/* square (x, y): 0 no atom (causal, after the diagonal), 1 coarse, 2 fine */
static int square_kind(const mra32 *s, size_t x, size_t y)
{
    if (s->causal && y > x) return 0;
    return s->refined[x + y * s->rows] ? 2 : 1;
}

/* block means of x (n x cols, ld ldx) in double, rounded once: out (rows x cols) */
static void block_means_rounded(const mra32 *s, size_t cols, const float *x, size_t ldx, float *out)
{
    for (size_t c = 0; c < cols; c++)
        for (size_t X = 0; X < s->rows; X++) {
            double sum = 0;
            for (size_t i = X * s->b; i < (X + 1) * s->b; i++) sum += x[i + c * ldx];
            out[X + c * s->rows] = (float)(sum / (double)s->b);
        }
}

/* Rows y b .. y b + b - 1 of x (n x cols, ld ldx) for each refined y of
 * block row x, in order, to g ((count b) x cols, ld count b); or added
 * back from g (scatter_add). */
static void gather(const mra32 *s, size_t x, size_t count, size_t cols, const float *a, size_t lda, float *g)
{
    const size_t b = s->b, ld = count * b;
    for (size_t y = 0, p = 0; y < s->rows; y++)
        if (square_kind(s, x, y) == 2) {
            for (size_t c = 0; c < cols; c++) memcpy(g + p * b + c * ld, a + y * b + c * lda, b * sizeof(float));
            p++;
        }
}

static void scatter_add(const mra32 *s, size_t x, size_t count, size_t cols, const float *g, float *a, size_t lda)
{
    const size_t b = s->b, ld = count * b;
    for (size_t y = 0, p = 0; y < s->rows; y++)
        if (square_kind(s, x, y) == 2) {
            for (size_t c = 0; c < cols; c++) {
                float *to = a + y * b + c * lda;
                const float *from = g + p * b + c * ld;
                for (size_t j = 0; j < b; j++) to[j] += from[j];
            }
            p++;
        }
}

/* Block x's atoms: fine logits into Wf (square after square), coarse ones
 * into Wc (-inf where a square has no coarse atom), then softmax over each
 * row's atoms in place (causal: the diagonal square's keys after the
 * query excluded). */
static size_t block_weights(const mra32 *s, size_t x, const float *q, size_t ldq, const float *k, size_t ldk)
{
    const size_t b = s->b, rows = s->rows, i0 = x * b;
    size_t nf = 0, diag = SIZE_MAX;
    for (size_t y = 0; y < rows; y++) {
        int kind = square_kind(s, x, y);
        for (size_t r = 0; r < b; r++) s->Wc[r + y * b] = kind == 1 ? s->C[x + y * rows] + s->logb : -INFINITY;
        if (kind != 2) continue;
        if (y == x && s->causal) diag = nf;
        nf++;
    }
    gather(s, x, nf, s->d, k, ldk, s->ks);
    if (nf)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)(nf * b), (int)s->d, s->scale, q + i0,
                    (int)ldq, s->ks, (int)(nf * b), 0.0f, s->Wf, (int)b);
    for (size_t r = 0; diag != SIZE_MAX && r < b; r++)
        for (size_t c = r + 1; c < b; c++) s->Wf[diag * b * b + r + c * b] = -INFINITY;
    for (size_t r = 0; r < b; r++) {
        float mx = -INFINITY;
        double sum = 0;
        for (size_t a = 0; a < nf * b; a++) mx = fmaxf(mx, s->Wf[r + a * b]);
        for (size_t y = 0; y < rows; y++) mx = fmaxf(mx, s->Wc[r + y * b]);
        for (size_t a = 0; a < nf * b; a++) sum += s->Wf[r + a * b] = expf(s->Wf[r + a * b] - mx);
        for (size_t y = 0; y < rows; y++) sum += s->Wc[r + y * b] = expf(s->Wc[r + y * b] - mx);
        double inv = 1.0 / sum; /* sum >= 1: the maximum's own weight */
        for (size_t a = 0; a < nf * b; a++) s->Wf[r + a * b] = (float)(s->Wf[r + a * b] * inv);
        for (size_t y = 0; y < rows; y++) s->Wc[r + y * b] = (float)(s->Wc[r + y * b] * inv);
    }
    return nf;
}

/* Block x's atom gradients: dW = dy_i . value into Gf, Gc (sgemm), then
 * G = W (dW - <W_i, dW_i>), the row sums in double; nf fine squares. */
static void block_gradients(const mra32 *s, size_t x, size_t nf, const float *v, size_t ldv, const float *dy,
                            size_t lddy)
{
    const size_t b = s->b, rows = s->rows, i0 = x * b;
    gather(s, x, nf, s->dv, v, ldv, s->vs);
    if (nf)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)(nf * b), (int)s->dv, 1.0f, dy + i0,
                    (int)lddy, s->vs, (int)(nf * b), 0.0f, s->Gf, (int)b);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)rows, (int)s->dv, 1.0f, dy + i0, (int)lddy,
                s->vm, (int)rows, 0.0f, s->Gc, (int)b);
    for (size_t r = 0; r < b; r++) {
        double dot = 0;
        for (size_t a = 0; a < nf * b; a++) dot += (double)s->Wf[r + a * b] * s->Gf[r + a * b];
        for (size_t y = 0; y < rows; y++) dot += (double)s->Wc[r + y * b] * s->Gc[r + y * b];
        for (size_t a = 0; a < nf * b; a++)
            s->Gf[r + a * b] = (float)((double)s->Wf[r + a * b] * ((double)s->Gf[r + a * b] - dot));
        for (size_t y = 0; y < rows; y++)
            s->Gc[r + y * b] = (float)((double)s->Wc[r + y * b] * ((double)s->Gc[r + y * b] - dot));
    }
}

/* Block x's products: the nf fine squares' into dq, dk, dv (one sgemm
 * each on the gathered rows, dk and dv added back to their blocks); the
 * coarse atoms' into dC (row x) and dVm. */
static void block_products(const mra32 *s, size_t x, size_t nf, const float *q, size_t ldq, const float *dy,
                           size_t lddy, float *dq, size_t lddq, float *dk, size_t lddk, float *dvv, size_t lddv)
{
    const size_t b = s->b, rows = s->rows, i0 = x * b;
    const int B = (int)b, D = (int)s->d, DV = (int)s->dv, M = (int)(nf * b);
    if (nf && dq)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, B, D, M, s->scale, s->Gf, B, s->ks, M, 1.0f, dq + i0,
                    (int)lddq);
    if (nf && dk) {
        cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, M, D, B, s->scale, s->Gf, B, q + i0, (int)ldq, 0.0f,
                    s->dks, M);
        scatter_add(s, x, nf, s->d, s->dks, dk, lddk);
    }
    if (nf && dvv) {
        cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, M, DV, B, 1.0f, s->Wf, B, dy + i0, (int)lddy, 0.0f,
                    s->dvs, M);
        scatter_add(s, x, nf, s->dv, s->dvs, dvv, lddv);
    }
    for (size_t y = 0; y < rows; y++) {
        double sum = 0;
        for (size_t r = 0; r < b; r++) sum += s->Gc[r + y * b];
        s->dC[x + y * rows] = (float)sum;
    }
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)rows, DV, B, 1.0f, s->Wc, B, dy + i0, (int)lddy, 1.0f,
                s->dvm, (int)rows);
}

/* dC through C = scale Qm Km^T, then each token's 1/b share of its
 * block's mean gradient */
static void coarse_backward(const mra32 *s, float *dq, size_t lddq, float *dk, size_t lddk, float *dvv, size_t lddv)
{
    const int R = (int)s->rows, D = (int)s->d;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, R, D, R, s->scale, s->dC, R, s->km, R, 0.0f, s->dqm, R);
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, R, D, R, s->scale, s->dC, R, s->qm, R, 0.0f, s->dkm, R);
    const float inv = 1.0f / (float)s->b;
    for (size_t i = 0; i < s->n; i++) {
        size_t x = i / s->b;
        for (size_t c = 0; c < s->d; c++) {
            if (dq) dq[i + c * lddq] += s->dqm[x + c * s->rows] * inv;
            if (dk) dk[i + c * lddk] += s->dkm[x + c * s->rows] * inv;
        }
        for (size_t c = 0; dvv && c < s->dv; c++) dvv[i + c * lddv] += s->dvm[x + c * s->rows] * inv;
    }
}

static void zero_cols_f32(size_t rows, size_t cols, float *a, size_t lda)
{
    for (size_t c = 0; a && c < cols; c++) memset(a + c * lda, 0, rows * sizeof *a);
}

static int check_args(size_t n, size_t d, size_t dv, const float *q, size_t ldq, const float *k, size_t ldk,
                      const float *v, size_t ldv, double scale, size_t block, int causal,
                      const unsigned char *refined, const float *dy, size_t lddy)
{
    SKIT_REQUIRE_PTR(refined);
    SKIT_REQUIRE_PTR(dy);
    SKIT_TRY(attn_check_scale(scale));
    if (fabs(scale) > 3.4e38)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need |scale| <= 3.4e38 (float32)", scale);
    SKIT_TRY(attn_check_inputs_f32(n, d, dv, q, ldq, k, ldk, v, ldv));
    if (block < 2 || n % block)
        return SKIT_ERROR(SKIT_ESHAPE, "block = %zu: need block >= 2 dividing n = %zu", block, n);
    if (lddy < n) return SKIT_ERROR(SKIT_ESHAPE, "lddy = %zu < n = %zu", lddy, n);
    SKIT_TRY(attn_check_finite_f32(dy, n, dv, lddy, "dY"));
    const size_t rows = n / block;
    for (size_t x = 0; causal && x < rows; x++)
        if (!refined[x + x * rows])
            return SKIT_ERROR(SKIT_EINVAL, "refined: causal MRA-2 refines every diagonal square; (%zu, %zu) is not", x,
                              x);
    return SKIT_OK;
}

int attn_mra2_backward_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq, const float *k, size_t ldk,
                           const float *v, size_t ldv, double scale, size_t block, int causal,
                           const unsigned char *refined, const float *dy, size_t lddy, float *dq, size_t lddq,
                           float *dk, size_t lddk, float *dvv, size_t lddv, float *work)
{
    SKIT_TRY(check_args(n, d, dv, q, ldq, k, ldk, v, ldv, scale, block, causal, refined, dy, lddy));
    if ((dq && lddq < n) || (dk && lddk < n) || (dvv && lddv < n))
        return SKIT_ERROR(SKIT_ESHAPE, "a gradient's leading dimension is < n = %zu", n);
    const size_t rows = n / block, b = block;
    mra32 s = {.n = n, .d = d, .dv = dv, .b = b, .rows = rows, .causal = causal, .scale = (float)scale,
               .logb = (float)log((double)b), .refined = refined, .qm = work};
    s.km = s.qm + rows * d, s.dqm = s.km + rows * d, s.dkm = s.dqm + rows * d, s.vm = s.dkm + rows * d;
    s.dvm = s.vm + rows * dv, s.C = s.dvm + rows * dv, s.dC = s.C + rows * rows, s.Wf = s.dC + rows * rows;
    s.Gf = s.Wf + b * n, s.Wc = s.Gf + b * n, s.Gc = s.Wc + b * rows, s.ks = s.Gc + b * rows;
    s.vs = s.ks + n * d, s.dks = s.vs + n * dv, s.dvs = s.dks + n * d;
    block_means_rounded(&s, d, q, ldq, s.qm);
    block_means_rounded(&s, d, k, ldk, s.km);
    block_means_rounded(&s, dv, v, ldv, s.vm);
    memset(s.dvm, 0, rows * dv * sizeof(float));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)rows, (int)rows, (int)d, s.scale, s.qm, (int)rows, s.km,
                (int)rows, 0.0f, s.C, (int)rows);
    zero_cols_f32(n, d, dq, lddq);
    zero_cols_f32(n, d, dk, lddk);
    zero_cols_f32(n, dv, dvv, lddv);
    for (size_t x = 0; x < rows; x++) {
        const size_t nf = block_weights(&s, x, q, ldq, k, ldk);
        block_gradients(&s, x, nf, v, ldv, dy, lddy);
        block_products(&s, x, nf, q, ldq, dy, lddy, dq, lddq, dk, lddk, dvv, lddv);
    }
    coarse_backward(&s, dq, lddq, dk, lddk, dvv, lddv);
    return SKIT_OK;
}
