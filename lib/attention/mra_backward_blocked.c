/* mra_backward_blocked.c — MRA-2's backward (the refined squares held
 * fixed) by query blocks, the form skit_mra2_backward(_causal) runs: the
 * same atoms and softmax as the row-by-row reference in mra_backward.c
 * (attn_mra2_backward_rows, which the tests hold this one to), with the
 * fine atoms of each refined square (x, y) as b x b tiles:
 *     S = scale Q_x K_y^T, P = exp(S - m) / l,  dP = dY_x V_y^T,
 *     G = P o (dP - t) scale,  dQ_x += G K_y,  dK_y += G^T Q_x,  dV_y += P^T dY_x,
 * (m, l, t per query row: the max, the normaliser and sum over atoms of
 * weight x dweight), and the coarse atoms of the unrefined squares (one
 * per square, logit C_xy + log b, value Vm_y) as a b x rows panel A:
 *     dA = dY_x Vm^T,  dC_xy = sum_i A_iy (dA_iy - t_i),  dVm += A^T dY_x.
 * The refined squares' keys and values of a block row are gathered first,
 * so that each product is one GEMM over all of them (per-square GEMMs of
 * b x b tiles spent more time packing than multiplying): a block row costs
 * O(b (refined squares b + rows) (d + dv)) flops at BLAS speed, where the
 * reference spends scalar loops on each atom. Sums over a row's atoms are plain double sums, as
 * the reference's. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

_Static_assert(sizeof(size_t) <= sizeof(double), "the workspace holds the squares' indices in doubles");

/* The tiles of one block row, in the workspace */
typedef struct block_row {
    size_t n, d, dv, b, rows;
    int causal;
    double scale;
    double *S, *dP;    /* refined squares' tiles, b x b each (column-major), in order */
    double *A, *dA;    /* b x rows: coarse weights and their dweights (0: no coarse atom) */
    double *mx, *l, *t; /* b: per query row */
    double *ks, *vs;   /* the refined squares' keys and values gathered: (count b) x d, x dv */
    double *dks, *dvs; /* their gradients, before they are added back */
    size_t *ys;        /* the refined squares' y, in order */
} block_row;

size_t attn_mra2_blocked_doubles(size_t n, size_t d, size_t dv, size_t block)
{
    size_t rows = block ? n / block : 0;
    /* S and dP for up to rows squares, A and dA, mx l t, the gathered keys
     * and values and their gradients (n rows at most), ys (as doubles) */
    return 2 * rows * block * block + 2 * block * rows + 3 * block + 2 * n * (d + dv) + rows;
}

static void carve(block_row *r, double *work)
{
    const size_t b = r->b, rows = r->rows, n = r->n;
    r->ks = work;
    r->vs = r->ks + n * r->d;
    r->dks = r->vs + n * r->dv;
    r->dvs = r->dks + n * r->d;
    r->S = r->dvs + n * r->dv;
    r->dP = r->S + rows * b * b;
    r->A = r->dP + rows * b * b;
    r->dA = r->A + b * rows;
    r->mx = r->dA + b * rows;
    r->l = r->mx + b;
    r->t = r->l + b;
    r->ys = (size_t *)(r->t + b); /* rows doubles hold rows size_t (asserted below) */
}

/* The refined squares of block row x (causal: none after the diagonal) */
static size_t refined_of(const block_row *r, const unsigned char *refined, size_t x)
{
    size_t count = 0;
    for (size_t y = 0; y < r->rows; y++)
        if (!(r->causal && y > x) && refined[x + y * r->rows]) r->ys[count++] = y;
    return count;
}

/* The coarse atoms' logits of block row x: A[i + y b] = C_xy + log b for
 * every unrefined square before the diagonal (causal) and -inf elsewhere */
static void coarse_logits(const block_row *r, const unsigned char *refined, const double *C, size_t x)
{
    const size_t b = r->b;
    for (size_t y = 0; y < r->rows; y++) {
        const int atom = !(r->causal && y > x) && !refined[x + y * r->rows];
        const double logit = atom ? C[x + y * r->rows] + log((double)b) : -INFINITY;
        for (size_t i = 0; i < b; i++) r->A[i + y * b] = logit;
    }
}

/* rows y b .. y b + b - 1 of x (n x cols, ld ldx) for each refined y, to
 * g ((count b) x cols, ld count b), or added back from g (scatter) */
static void gather(const block_row *r, size_t count, size_t cols, const double *x, size_t ldx, double *g)
{
    const size_t b = r->b, ld = count * b;
    for (size_t c = 0; c < cols; c++)
        for (size_t s = 0; s < count; s++) memcpy(g + s * b + c * ld, x + r->ys[s] * b + c * ldx, b * sizeof(double));
}

static void scatter_add(const block_row *r, size_t count, size_t cols, const double *g, double *x, size_t ldx)
{
    const size_t b = r->b, ld = count * b;
    for (size_t c = 0; c < cols; c++)
        for (size_t s = 0; s < count; s++) {
            double *to = x + r->ys[s] * b + c * ldx;
            const double *from = g + s * b + c * ld;
            for (size_t j = 0; j < b; j++) to[j] += from[j];
        }
}

/* S tiles of the refined squares, one GEMM on the gathered keys
 * (tile s = columns s b .. s b + b - 1 of S, ld b); the causal diagonal's
 * keys after the query at -inf */
static void fine_logits(const block_row *r, const double *q, size_t ldq, size_t x, size_t count)
{
    const size_t b = r->b;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)(count * b), (int)r->d, r->scale, q + x * b,
                (int)ldq, r->ks, (int)(count * b), 0.0, r->S, (int)b);
    for (size_t s = 0; r->causal && s < count; s++)
        if (r->ys[s] == x)
            for (size_t j = 1; j < b; j++)
                for (size_t i = 0; i < j; i++) r->S[s * b * b + i + j * b] = -INFINITY;
}

/* logits -> softmax weights in place over every atom of each query row:
 * the fine tiles and the coarse panel */
static void softmax_rows(const block_row *r, size_t count)
{
    const size_t b = r->b, rows = r->rows;
    for (size_t i = 0; i < b; i++) r->mx[i] = -INFINITY, r->l[i] = 0.0;
    for (size_t s = 0; s < count; s++)
        for (size_t j = 0; j < b; j++)
            for (size_t i = 0; i < b; i++) r->mx[i] = fmax(r->mx[i], r->S[s * b * b + i + j * b]);
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->mx[i] = fmax(r->mx[i], r->A[i + y * b]);
    for (size_t s = 0; s < count; s++)
        for (size_t j = 0; j < b; j++)
            for (size_t i = 0; i < b; i++) {
                double *p = &r->S[s * b * b + i + j * b];
                r->l[i] += (*p = exp(*p - r->mx[i]));
            }
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->l[i] += (r->A[i + y * b] = exp(r->A[i + y * b] - r->mx[i]));
    for (size_t s = 0; s < count; s++)
        for (size_t j = 0; j < b; j++)
            for (size_t i = 0; i < b; i++) r->S[s * b * b + i + j * b] /= r->l[i];
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->A[i + y * b] /= r->l[i];
}

/* dweights (dP tiles: one GEMM on the gathered values; the dA panel) and
 * t_i = sum over atoms of weight x dweight */
static void dweights(const block_row *r, const double *vm, const double *dy, size_t lddy, size_t x, size_t count)
{
    const size_t b = r->b, rows = r->rows, tiles = count * b * b;
    for (size_t i = 0; i < b; i++) r->t[i] = 0.0;
    if (count)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)(count * b), (int)r->dv, 1.0, dy + x * b,
                    (int)lddy, r->vs, (int)(count * b), 0.0, r->dP, (int)b);
    for (size_t e = 0; e < tiles; e++) r->t[e % b] += r->S[e] * r->dP[e];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)rows, (int)r->dv, 1.0, dy + x * b, (int)lddy,
                vm, (int)rows, 0.0, r->dA, (int)b);
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->t[i] += r->A[i + y * b] * r->dA[i + y * b];
}

/* The fine tiles' gradients: G = P o (dP - t) scale into dP, then
 * dQ_x += G K_s, dK_s = G^T Q_x, dV_s = P^T dY_x on the gathered rows
 * (one GEMM each), the last two added back to their blocks */
static void fine_gradients(const block_row *r, const double *q, size_t ldq, const double *dy, size_t lddy,
                           double *dq, size_t lddq, double *dk, size_t lddk, double *dv, size_t lddv, size_t x,
                           size_t count)
{
    const size_t b = r->b, m = count * b, tiles = count * b * b;
    if (!count) return;
    for (size_t e = 0; e < tiles; e++) r->dP[e] = r->S[e] * (r->dP[e] - r->t[e % b]) * r->scale;
    if (dq)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)r->d, (int)m, 1.0, r->dP, (int)b, r->ks,
                    (int)m, 1.0, dq + x * b, (int)lddq);
    if (dk) {
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)r->d, (int)b, 1.0, r->dP, (int)b, q + x * b,
                    (int)ldq, 0.0, r->dks, (int)m);
        scatter_add(r, count, r->d, r->dks, dk, lddk);
    }
    if (dv) {
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)r->dv, (int)b, 1.0, r->S, (int)b,
                    dy + x * b, (int)lddy, 0.0, r->dvs, (int)m);
        scatter_add(r, count, r->dv, r->dvs, dv, lddv);
    }
}

/* The coarse atoms' gradients: dC row x and dVm += A^T dY_x */
static void coarse_gradients(const block_row *r, const double *dy, size_t lddy, double *dC, double *dvm, size_t x)
{
    const size_t b = r->b, rows = r->rows;
    for (size_t y = 0; y < rows; y++) {
        double g = 0.0;
        for (size_t i = 0; i < b; i++) g += r->A[i + y * b] * (r->dA[i + y * b] - r->t[i]);
        dC[x + y * rows] += g;
    }
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)rows, (int)r->dv, (int)b, 1.0, r->A, (int)b,
                dy + x * b, (int)lddy, 1.0, dvm, (int)rows);
}

void attn_mra2_backward_blocks(const attn_mra2_backward_args *a, const double *qm, const double *km,
                               const double *vm, double *C, double *dC, double *dvm, double *work)
{
    block_row r = {.n = a->n, .d = a->d, .dv = a->dv, .b = a->block, .rows = a->n / a->block,
                   .causal = a->causal, .scale = a->scale};
    carve(&r, work);
    const size_t rows = r.rows;
    /* C = scale Qm Km^T (rows x rows, C[x + y rows]) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)rows, (int)rows, (int)a->d, a->scale, qm, (int)rows,
                km, (int)rows, 0.0, C, (int)rows);
    for (size_t x = 0; x < rows; x++) {
        const size_t count = refined_of(&r, a->refined, x);
        gather(&r, count, a->d, a->k, a->ldk, r.ks);
        gather(&r, count, a->dv, a->v, a->ldv, r.vs);
        coarse_logits(&r, a->refined, C, x);
        if (count) fine_logits(&r, a->q, a->ldq, x, count);
        softmax_rows(&r, count);
        dweights(&r, vm, a->dy, a->lddy, x, count);
        fine_gradients(&r, a->q, a->ldq, a->dy, a->lddy, a->dq, a->lddq, a->dk, a->lddk, a->dvv, a->lddv, x, count);
        coarse_gradients(&r, a->dy, a->lddy, dC, dvm, x);
    }
}
