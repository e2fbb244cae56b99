/* mra_backward.c — MRA-2's backward with the refined squares held fixed
 * (as the authors' implementation differentiates it: the selection is not
 * differentiable and passes no gradient). For two levels R = {b, 1} and no
 * mask, row i of block x is a softmax over "atoms": the fine logits P_ij =
 * scale q_i . k_j of every key j in a refined square (x, y), with value v_j,
 * and one coarse atom per unrefined square, logit C_xy + log b (C = scale
 * Qm Km^T on the block means), value Vm_y; that is what lib/attention/mra.c
 * computes; MRA-2-s (sparse) has no coarse atoms, and a row without
 * refined squares is 0 with no gradient. The backward is softmax attention's over the atoms, the coarse
 * atoms' gradients then spread evenly over their blocks (the means' adjoint).
 * skit_mra2_backward runs it by query blocks on GEMMs
 * (mra_backward_blocked.c); attn_mra2_backward_rows, row by row with a
 * scalar loop per atom, O(n (n/b + refined keys) (d + dv)), is the
 * reference the tests hold that one to. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention_internal.h"

typedef struct mra2_shape {
    size_t n, d, dv, b, rows;
    int causal; /* keys j <= i only: squares after the diagonal drop out */
    int sparse; /* MRA-2-s: unrefined squares drop out */
} mra2_shape;

static int check_shape(size_t n, size_t d, size_t dv, size_t block)
{
    if (n == 0 || d == 0 || dv == 0)
        return SKIT_ERROR(SKIT_EDOM, "n = %zu, d = %zu, dv = %zu out of range: need all >= 1", n, d, dv);
    if (block < 2 || n % block)
        return SKIT_ERROR(SKIT_ESHAPE, "block = %zu: need block >= 2 dividing n = %zu", block, n);
    return SKIT_OK;
}

/* ---- the selection (Algorithm 1 on two levels, no priors) ---------------- */

static size_t selection_doubles(size_t rows, size_t d)
{
    size_t N = rows * rows;
    /* Qm, Km; logits, scores, scratch; then ids, row_ptr, cols, prow (uint32)
     * and flags (bytes), rounded up to doubles */
    return 2 * rows * d + 3 * N + (rows + rows + 1 + 2 * N + 1) / 2 + rows / 8 + 1;
}

size_t skit_mra2_select_workspace(size_t n, size_t d, size_t block)
{
    return block ? selection_doubles(n / block, d) : 0;
}

int skit_mra2_selection(size_t n, size_t d, const double *q, size_t ldq, const double *k, size_t ldk, double scale,
                        size_t block, size_t blocks_per_row, skit_mra_selection selection, unsigned char *refined)
{
    return skit_mra2_select(n, d, q, ldq, k, ldk, scale, block, blocks_per_row, selection, 0, refined, NULL);
}

/* The coarse logits on the block means, causal ones after the diagonal
 * -inf, then the plan's own rule (attn_mra_select, as the CPU and device
 * plans select: score = logit - row max, the diagonal first when causal,
 * ties to the first square in row-major order); no allocation with work. */
int skit_mra2_select(size_t n, size_t d, const double *q, size_t ldq, const double *k, size_t ldk, double scale,
                     size_t block, size_t blocks_per_row, skit_mra_selection selection, int causal,
                     unsigned char *refined, double *work)
{
    SKIT_REQUIRE_PTR(refined);
    SKIT_TRY(check_shape(n, d, 1, block));
    if (causal != 0 && causal != 1) return SKIT_ERROR(SKIT_EDOM, "causal = %d out of range: need 0 or 1", causal);
    SKIT_TRY(attn_check_scale(scale));
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    const size_t rows = n / block, N = rows * rows;
    if (blocks_per_row == 0 || blocks_per_row > rows)
        return SKIT_ERROR(SKIT_EDOM, "blocks_per_row = %zu out of range: need 1..%zu", blocks_per_row, rows);
    if (selection != SKIT_MRA_GLOBAL && selection != SKIT_MRA_PER_ROW)
        return SKIT_ERROR(SKIT_EINVAL, "selection = %d unknown", (int)selection);
    double *owned = NULL;
    if (!work && !(work = owned = skit_malloc(selection_doubles(rows, d), sizeof(double)))) return SKIT_ENOMEM;
    double *qm = work, *km = qm + rows * d, *logit = km + rows * d, *score = logit + N, *tmp = score + N;
    uint32_t *ids = (uint32_t *)(tmp + N), *row_ptr = ids + rows, *cols = row_ptr + rows + 1, *prow = cols + N;
    unsigned char *flags = (unsigned char *)(prow + N);
    attn_block_means(n, d, q, ldq, block, NULL, 0, qm, NULL);
    attn_block_means(n, d, k, ldk, block, NULL, 0, km, NULL);
    /* logit[y + x rows] = scale Qm_x . Km_y */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)rows, (int)rows, (int)d, scale, km, (int)rows, qm,
                (int)rows, 0.0, logit, (int)rows);
    for (size_t x = 0; causal && x < rows; x++)
        for (size_t y = x + 1; y < rows; y++) logit[y + x * rows] = -INFINITY;
    size_t count = attn_mra_select(rows, logit, blocks_per_row, selection, causal ? 1 : 0, 0, score, tmp, ids,
                                   flags, row_ptr, cols, prow);
    memset(refined, 0, N);
    for (size_t p = 0; p < count; p++) refined[prow[p] + cols[p] * rows] = 1;
    skit_free(owned);
    return SKIT_OK;
}

/* ---- the backward ------------------------------------------------------------ */

size_t skit_mra2_backward_workspace(size_t n, size_t d, size_t dv, size_t block)
{
    size_t rows = block ? n / block : 0;
    /* the coarse level (means, their gradients, C and dC), then the atoms'
     * scratch: one row's atoms (n + rows) twice (the reference) and the
     * blocked form's tiles */
    return attn_mra2_coarse_count(n, d, dv, block) + 2 * (n + rows) + attn_mra2_blocked_count(n, d, dv, block);
}

static double dot_rows(const double *a, size_t lda, size_t i, const double *b, size_t ldb, size_t j, size_t d)
{
    double s = 0;
    for (size_t c = 0; c < d; c++) s += a[i + c * lda] * b[j + c * ldb];
    return s;
}

/* the coarse level, and one row's atoms' logits and weights (n + rows each) */
typedef struct mra2_work {
    const attn_mra2_coarse *c;
    double *logit, *weight;
} mra2_work;

/* Square (x, y) in row i: 0 if it has no atom (causal, after the
 * diagonal), 1 for one coarse atom, 2 for fine atoms j in [*j0, *j1). */
static int square_atoms(const mra2_shape *s, const unsigned char *refined, size_t x, size_t y, size_t i,
                        size_t *j0, size_t *j1)
{
    if (s->causal && y > x) return 0;
    if (!refined[x + y * s->rows]) return s->sparse ? 0 : 1;
    *j0 = y * s->b;
    *j1 = s->causal && y == x ? i + 1 : (y + 1) * s->b;
    return 2;
}

/* Row i: the atoms' logits (fine keys of refined squares, then one per
 * unrefined square) into w->logit, their softmax weights into w->weight. */
static void row_atoms(const mra2_shape *s, const double *q, size_t ldq, const double *k, size_t ldk, double scale,
                      const unsigned char *refined, size_t i, const mra2_work *w)
{
    const size_t x = i / s->b, rows = s->rows;
    double mx = -INFINITY, sum = 0;
    size_t a = 0, j0, j1;
    for (size_t y = 0; y < rows; y++) {
        int kind = square_atoms(s, refined, x, y, i, &j0, &j1);
        if (kind == 2)
            for (size_t j = j0; j < j1; j++) w->logit[a++] = scale * dot_rows(q, ldq, i, k, ldk, j, s->d);
        else if (kind == 1)
            w->logit[a++] = scale * dot_rows(w->c->qm, rows, x, w->c->km, rows, y, s->d) + log((double)s->b);
    }
    for (size_t t = 0; t < a; t++) mx = fmax(mx, w->logit[t]);
    for (size_t t = 0; t < a; t++) sum += (w->weight[t] = exp(w->logit[t] - mx));
    for (size_t t = 0; t < a; t++) w->weight[t] /= sum;
}

/* Row i's backward: w->logit becomes d(loss)/d(logit) per atom; fine atoms
 * go to dq, dk, dv at once, coarse ones to dC and dVm. */
static void row_backward(const mra2_shape *s, const double *q, size_t ldq, const double *k, size_t ldk,
                         const double *v, size_t ldv, double scale, const unsigned char *refined, size_t i,
                         const double *dy, size_t lddy, double *dq, size_t lddq, double *dk, size_t lddk, double *dvv,
                         size_t lddv, const mra2_work *w)
{
    const size_t x = i / s->b, rows = s->rows;
    double total = 0;
    size_t a = 0, j0, j1;
    for (size_t y = 0; y < rows; y++) { /* dweight = dy_i . value, into logit */
        int kind = square_atoms(s, refined, x, y, i, &j0, &j1);
        if (kind == 2)
            for (size_t j = j0; j < j1; j++, a++) w->logit[a] = dot_rows(dy, lddy, i, v, ldv, j, s->dv);
        else if (kind == 1)
            w->logit[a++] = dot_rows(dy, lddy, i, w->c->vm, rows, y, s->dv);
    }
    for (size_t t = 0; t < a; t++) total += w->weight[t] * w->logit[t];
    a = 0;
    for (size_t y = 0; y < rows; y++) {
        int kind = square_atoms(s, refined, x, y, i, &j0, &j1);
        if (kind == 2) {
            for (size_t j = j0; j < j1; j++, a++) {
                double al = w->weight[a], g = al * (w->logit[a] - total) * scale;
                for (size_t c = 0; c < s->d; c++) {
                    if (dq) dq[i + c * lddq] += g * k[j + c * ldk];
                    if (dk) dk[j + c * lddk] += g * q[i + c * ldq];
                }
                if (dvv)
                    for (size_t c = 0; c < s->dv; c++) dvv[j + c * lddv] += al * dy[i + c * lddy];
            }
        } else if (kind == 1) {
            double al = w->weight[a];
            w->c->dC[x + y * rows] += al * (w->logit[a] - total);
            for (size_t c = 0; c < s->dv; c++) w->c->dvm[y + c * rows] += al * dy[i + c * lddy];
            a++;
        }
    }
}

/* the reference's atoms: row by row, a scalar loop per atom */
static void rows_atoms(const attn_mra2_backward_args *a, const attn_mra2_coarse *c, double *scratch)
{
    const mra2_shape s = {a->n, a->d, a->dv, a->block, a->n / a->block, a->causal, a->sparse};
    const mra2_work w = {c, scratch, scratch + a->n + s.rows};
    for (size_t i = 0; i < a->n; i++) {
        row_atoms(&s, a->q, a->ldq, a->k, a->ldk, a->scale, a->refined, i, &w);
        row_backward(&s, a->q, a->ldq, a->k, a->ldk, a->v, a->ldv, a->scale, a->refined, i, a->dy, a->lddy, a->dq,
                     a->lddq, a->dk, a->lddk, a->dvv, a->lddv, &w);
    }
}

int attn_mra2_check_diagonal(size_t rows, int causal, const unsigned char *refined)
{
    for (size_t x = 0; causal && x < rows; x++)
        if (!refined[x + x * rows])
            return SKIT_ERROR(SKIT_EINVAL, "refined: causal MRA-2 refines every diagonal square; (%zu, %zu) is not", x,
                              x);
    return SKIT_OK;
}

static int check_args(const attn_mra2_backward_args *a)
{
    SKIT_REQUIRE_PTR(a->dy);
    SKIT_REQUIRE_PTR(a->refined);
    SKIT_TRY(check_shape(a->n, a->d, a->dv, a->block));
    const size_t n = a->n, rows = n / a->block;
    SKIT_TRY(attn_check_scale(a->scale));
    SKIT_TRY(attn_check_qk(n, a->d, a->q, a->ldq, a->k, a->ldk));
    SKIT_TRY(attn_check_v(n, a->dv, a->v, a->ldv));
    if (a->lddy < n || (a->dq && a->lddq < n) || (a->dk && a->lddk < n) || (a->dvv && a->lddv < n))
        return SKIT_ERROR(SKIT_ESHAPE, "a leading dimension is < n = %zu", n);
    SKIT_TRY(skit_check_finite_matrix(a->dy, n, a->dv, a->lddy, "dY"));
    return attn_mra2_check_diagonal(rows, a->causal, a->refined);
}

/* Both forms (mra_backward_blocked.c's run): the means, the outputs
 * zeroed, the atoms' gradients (by blocks, or row by row), then the
 * coarse logits' back through the means */
static int mra2_backward(const attn_mra2_backward_args *a, int blocked, double *work)
{
    SKIT_TRY(check_args(a));
    double *owned = NULL;
    if (!work &&
        !(work = owned = skit_malloc(skit_mra2_backward_workspace(a->n, a->d, a->dv, a->block), sizeof(double))))
        return SKIT_ENOMEM;
    attn_mra2_backward_run(a, work, blocked ? attn_mra2_backward_blocks : rows_atoms);
    skit_free(owned);
    return SKIT_OK;
}

int attn_mra2_backward_rows(const attn_mra2_backward_args *a, double *work) { return mra2_backward(a, 0, work); }
int attn_mra2_backward(const attn_mra2_backward_args *a, double *work) { return mra2_backward(a, 1, work); }

int skit_mra2_backward(size_t n, size_t d, size_t dv, const double *q, size_t ldq, const double *k, size_t ldk,
                       const double *v, size_t ldv, double scale, size_t block, const unsigned char *refined,
                       const double *dy, size_t lddy, double *dq, size_t lddq, double *dk, size_t lddk, double *dvv,
                       size_t lddv, double *work)
{
    const attn_mra2_backward_args a = {n, d, dv, block, 0, scale, q, k, v, dy, ldq, ldk, ldv, lddy,
                                       refined, dq, dk, dvv, lddq, lddk, lddv, 0};
    return mra2_backward(&a, 1, work);
}

int skit_mra2_backward_causal(size_t n, size_t d, size_t dv, const double *q, size_t ldq, const double *k,
                              size_t ldk, const double *v, size_t ldv, double scale, size_t block,
                              const unsigned char *refined, const double *dy, size_t lddy, double *dq, size_t lddq,
                              double *dk, size_t lddk, double *dvv, size_t lddv, double *work)
{
    const attn_mra2_backward_args a = {n, d, dv, block, 1, scale, q, k, v, dy, ldq, ldk, ldv, lddy,
                                       refined, dq, dk, dvv, lddq, lddk, lddv, 0};
    return mra2_backward(&a, 1, work);
}
