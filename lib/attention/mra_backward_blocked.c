/* mra_backward_blocked.c — MRA-2's backward (the refined squares held
 * fixed) by query blocks, the form skit_mra2_backward(_causal) and the
 * plans run: the same atoms and softmax as the row-by-row reference in
 * mra_backward.c (attn_mra2_backward_rows, which the tests hold this one
 * to), with the fine atoms of each refined square (x, y) as b x b tiles:
 *     S = scale Q_x K_y^T, P = exp(S - m) / l,  dP = dY_x V_y^T,
 *     G = P o (dP - t) scale,  dQ_x += G K_y,  dK_y += G^T Q_x,  dV_y += P^T dY_x,
 * (m, l, t per query row: the max, the normaliser and sum over atoms of
 * weight x dweight), and the coarse atoms of the unrefined squares (one
 * per square, logit C_xy + log b, value Vm_y) as a b x rows panel A:
 *     dA = dY_x Vm^T,  dC_xy = sum_i A_iy (dA_iy - t_i),  dVm += A^T dY_x;
 * then C = scale Qm Km^T's gradient (dQm = scale dC Km, dKm = scale dC^T
 * Qm) and the means' (each token carries 1/b of its block's).
 * The refined squares' keys and values of a block row are gathered first,
 * so that each product is one GEMM over all of them (per-square GEMMs of
 * b x b tiles spent more time packing than multiplying): a block row costs
 * O(b (refined squares b + rows) (d + dv)) flops at BLAS speed, where the
 * reference spends scalar loops on each atom.
 * Compiled twice: for double here, and with ATTN_MRA_BACKWARD_SINGLE for
 * float (mra_backward_f32.c: the float32 plans' backward), R the real
 * type. Every sum over a row's atoms (l, t, dC) and over a block (the
 * means) is double in both, rounded once: in float their error would grow
 * with n and be subtracted from every weight of the row. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

#ifdef ATTN_MRA_BACKWARD_SINGLE
typedef float R;
typedef attn_mra2_backward_args_f32 args_t;
typedef attn_mra2_coarse_f32 coarse_t;
#define NAME(name) name##_f32
#define GEMM cblas_sgemm
#define EXP expf
#else
typedef double R;
typedef attn_mra2_backward_args args_t;
typedef attn_mra2_coarse coarse_t;
#define NAME(name) name
#define GEMM cblas_dgemm
#define EXP exp
#endif

_Static_assert(sizeof(size_t) <= sizeof(double), "the workspace holds the squares' indices in doubles");

/* The tiles of one block row, in the workspace */
typedef struct block_row {
    size_t n, d, dv, b, rows;
    int causal, sparse; /* sparse: MRA-2-s, no coarse atoms */
    double scale;
    R *S, *dP;         /* refined squares' tiles, b x b each (column-major), in order */
    R *A, *dA;         /* b x rows: coarse weights and their dweights (0: no coarse atom) */
    R *mx;             /* b: per query row, the largest logit */
    double *l, *t;     /* b: per query row, the normaliser and sum of weight x dweight */
    R *ks, *vs;        /* the refined squares' keys and values gathered: (count b) x d, x dv */
    R *dks, *dvs;      /* their gradients, before they are added back */
    size_t *ys;        /* the refined squares' y, in order */
} block_row;

/* doubles l, t (2b) and ys (rows), then b R for mx: the part of the
 * tiles that is not R, in R units */
static size_t head_units(size_t b, size_t rows)
{
    return (2 * b + rows) * (sizeof(double) / sizeof(R));
}

size_t NAME(attn_mra2_blocked_count)(size_t n, size_t d, size_t dv, size_t block)
{
    size_t rows = block ? n / block : 0;
    /* S and dP for up to rows squares, A and dA, mx, the gathered keys and
     * values and their gradients (n rows at most), then l, t and ys */
    return 2 * rows * block * block + 2 * block * rows + block + 2 * n * (d + dv) + head_units(block, rows);
}

static void carve(block_row *r, R *work)
{
    const size_t b = r->b, rows = r->rows, n = r->n;
    r->l = (double *)(void *)work;
    r->t = r->l + b;
    r->ys = (size_t *)(void *)(r->t + b); /* rows doubles hold rows size_t (asserted above) */
    r->ks = work + head_units(b, rows);
    r->vs = r->ks + n * r->d;
    r->dks = r->vs + n * r->dv;
    r->dvs = r->dks + n * r->d;
    r->S = r->dvs + n * r->dv;
    r->dP = r->S + rows * b * b;
    r->A = r->dP + rows * b * b;
    r->dA = r->A + b * rows;
    r->mx = r->dA + b * rows;
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
static void coarse_logits(const block_row *r, const unsigned char *refined, const R *C, size_t x)
{
    const size_t b = r->b;
    const R logb = (R)log((double)b);
    for (size_t y = 0; y < r->rows; y++) {
        const int atom = !r->sparse && !(r->causal && y > x) && !refined[x + y * r->rows];
        const R logit = atom ? C[x + y * r->rows] + logb : -INFINITY;
        for (size_t i = 0; i < b; i++) r->A[i + y * b] = logit;
    }
}

/* rows y b .. y b + b - 1 of x (n x cols, ld ldx) for each refined y, to
 * g ((count b) x cols, ld count b), or added back from g (scatter) */
static void gather(const block_row *r, size_t count, size_t cols, const R *x, size_t ldx, R *g)
{
    const size_t b = r->b, ld = count * b;
    for (size_t c = 0; c < cols; c++)
        for (size_t s = 0; s < count; s++) memcpy(g + s * b + c * ld, x + r->ys[s] * b + c * ldx, b * sizeof(R));
}

static void scatter_add(const block_row *r, size_t count, size_t cols, const R *g, R *x, size_t ldx)
{
    const size_t b = r->b, ld = count * b;
    for (size_t c = 0; c < cols; c++)
        for (size_t s = 0; s < count; s++) {
            R *to = x + r->ys[s] * b + c * ldx;
            const R *from = g + s * b + c * ld;
            for (size_t j = 0; j < b; j++) to[j] += from[j];
        }
}

/* S tiles of the refined squares, one GEMM on the gathered keys
 * (tile s = columns s b .. s b + b - 1 of S, ld b); the causal diagonal's
 * keys after the query at -inf */
static void fine_logits(const block_row *r, const R *q, size_t ldq, size_t x, size_t count)
{
    const size_t b = r->b;
    GEMM(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)(count * b), (int)r->d, (R)r->scale, q + x * b,
         (int)ldq, r->ks, (int)(count * b), 0, r->S, (int)b);
    for (size_t s = 0; r->causal && s < count; s++)
        if (r->ys[s] == x)
            for (size_t j = 1; j < b; j++)
                for (size_t i = 0; i < j; i++) r->S[s * b * b + i + j * b] = -INFINITY;
}

static inline R larger(R a, R b) { return b > a ? b : a; }

/* exp(logit - mx), 0 in a row without atoms (mx = -inf: MRA-2-s with no
 * refined square), whose output the forward sets to 0 */
static inline R shifted_exp(R logit, R mx) { return mx == -INFINITY ? 0 : EXP(logit - mx); }

static inline R normalised(R p, double l) { return l > 0 ? (R)(p / l) : 0; }

/* logits -> softmax weights in place over every atom of each query row:
 * the fine tiles and the coarse panel */
static void softmax_rows(const block_row *r, size_t count)
{
    const size_t b = r->b, rows = r->rows;
    for (size_t i = 0; i < b; i++) r->mx[i] = -INFINITY, r->l[i] = 0.0;
    for (size_t s = 0; s < count; s++)
        for (size_t j = 0; j < b; j++)
            for (size_t i = 0; i < b; i++) r->mx[i] = larger(r->mx[i], r->S[s * b * b + i + j * b]);
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->mx[i] = larger(r->mx[i], r->A[i + y * b]);
    for (size_t s = 0; s < count; s++)
        for (size_t j = 0; j < b; j++)
            for (size_t i = 0; i < b; i++) {
                R *p = &r->S[s * b * b + i + j * b];
                r->l[i] += (*p = shifted_exp(*p, r->mx[i]));
            }
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->l[i] += (r->A[i + y * b] = shifted_exp(r->A[i + y * b], r->mx[i]));
    for (size_t s = 0; s < count; s++)
        for (size_t j = 0; j < b; j++)
            for (size_t i = 0; i < b; i++) r->S[s * b * b + i + j * b] = normalised(r->S[s * b * b + i + j * b], r->l[i]);
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->A[i + y * b] = normalised(r->A[i + y * b], r->l[i]);
}

/* dweights (dP tiles: one GEMM on the gathered values; the dA panel) and
 * t_i = sum over atoms of weight x dweight */
static void dweights(const block_row *r, const R *vm, const R *dy, size_t lddy, size_t x, size_t count)
{
    const size_t b = r->b, rows = r->rows, tiles = count * b * b;
    for (size_t i = 0; i < b; i++) r->t[i] = 0.0;
    if (count)
        GEMM(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)(count * b), (int)r->dv, 1, dy + x * b, (int)lddy,
             r->vs, (int)(count * b), 0, r->dP, (int)b);
    for (size_t e = 0; e < tiles; e++) r->t[e % b] += (double)r->S[e] * r->dP[e];
    GEMM(CblasColMajor, CblasNoTrans, CblasTrans, (int)b, (int)rows, (int)r->dv, 1, dy + x * b, (int)lddy, vm,
         (int)rows, 0, r->dA, (int)b);
    for (size_t y = 0; y < rows; y++)
        for (size_t i = 0; i < b; i++) r->t[i] += (double)r->A[i + y * b] * r->dA[i + y * b];
}

/* The fine tiles' gradients: G = P o (dP - t) scale into dP (formed in
 * double, rounded once), then dQ_x += G K_s, dK_s = G^T Q_x, dV_s = P^T
 * dY_x on the gathered rows (one GEMM each), the last two added back to
 * their blocks */
static void fine_gradients(const block_row *r, const args_t *a, size_t x, size_t count)
{
    const size_t b = r->b, m = count * b, tiles = count * b * b;
    if (!count) return;
    for (size_t e = 0; e < tiles; e++) r->dP[e] = (R)((double)r->S[e] * ((double)r->dP[e] - r->t[e % b]) * r->scale);
    if (a->dq)
        GEMM(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)r->d, (int)m, 1, r->dP, (int)b, r->ks, (int)m, 1,
             a->dq + x * b, (int)a->lddq);
    if (a->dk) {
        GEMM(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)r->d, (int)b, 1, r->dP, (int)b, a->q + x * b,
             (int)a->ldq, 0, r->dks, (int)m);
        scatter_add(r, count, r->d, r->dks, a->dk, a->lddk);
    }
    if (a->dvv) {
        GEMM(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)r->dv, (int)b, 1, r->S, (int)b, a->dy + x * b,
             (int)a->lddy, 0, r->dvs, (int)m);
        scatter_add(r, count, r->dv, r->dvs, a->dvv, a->lddv);
    }
}

/* The coarse atoms' gradients: dC row x and dVm += A^T dY_x */
static void coarse_gradients(const block_row *r, const R *dy, size_t lddy, R *dC, R *dvm, size_t x)
{
    const size_t b = r->b, rows = r->rows;
    for (size_t y = 0; y < rows; y++) {
        double g = 0.0;
        for (size_t i = 0; i < b; i++) g += (double)r->A[i + y * b] * ((double)r->dA[i + y * b] - r->t[i]);
        dC[x + y * rows] = (R)(dC[x + y * rows] + g);
    }
    GEMM(CblasColMajor, CblasTrans, CblasNoTrans, (int)rows, (int)r->dv, (int)b, 1, r->A, (int)b, dy + x * b,
         (int)lddy, 1, dvm, (int)rows);
}

void NAME(attn_mra2_backward_blocks)(const args_t *a, const coarse_t *c, R *work)
{
    block_row r = {.n = a->n, .d = a->d, .dv = a->dv, .b = a->block, .rows = a->n / a->block,
                   .causal = a->causal, .sparse = a->sparse, .scale = a->scale};
    carve(&r, work);
    const size_t rows = r.rows;
    /* C = scale Qm Km^T (rows x rows, C[x + y rows]) */
    GEMM(CblasColMajor, CblasNoTrans, CblasTrans, (int)rows, (int)rows, (int)a->d, (R)a->scale, c->qm, (int)rows,
         c->km, (int)rows, 0, c->C, (int)rows);
    for (size_t x = 0; x < rows; x++) {
        const size_t count = refined_of(&r, a->refined, x);
        gather(&r, count, a->d, a->k, a->ldk, r.ks);
        gather(&r, count, a->dv, a->v, a->ldv, r.vs);
        coarse_logits(&r, a->refined, c->C, x);
        if (count) fine_logits(&r, a->q, a->ldq, x, count);
        softmax_rows(&r, count);
        dweights(&r, c->vm, a->dy, a->lddy, x, count);
        fine_gradients(&r, a, x, count);
        coarse_gradients(&r, a->dy, a->lddy, c->dC, c->dvm, x);
    }
}

/* ---- the whole backward: the means, the atoms, the means' gradient ------ */

size_t NAME(attn_mra2_coarse_count)(size_t n, size_t d, size_t dv, size_t block)
{
    size_t rows = block ? n / block : 0;
    return 2 * rows * (2 * d + dv) + 2 * rows * rows;
}

/* the block means of x (n x cols, ld ldx) over blocks of b rows, summed in
 * double and rounded once, into out (rows x cols) */
static void block_means(size_t n, size_t cols, const R *x, size_t ldx, size_t b, R *out)
{
    const size_t rows = n / b;
    for (size_t c = 0; c < cols; c++)
        for (size_t X = 0; X < rows; X++) {
            double sum = 0;
            for (size_t i = X * b; i < X * b + b; i++) sum += x[i + c * ldx];
            out[X + c * rows] = (R)(sum / (double)b);
        }
}

static void zero_cols(size_t rows, size_t cols, R *a, size_t lda)
{
    for (size_t c = 0; a && c < cols; c++) memset(a + c * lda, 0, rows * sizeof *a);
}

/* the coarse logits' gradient through C = scale Qm Km^T (dQm = scale dC
 * Km, dKm = scale dC^T Qm) and the means (each token carries 1/b of its
 * block's) */
static void coarse_backward(const args_t *a, const coarse_t *c)
{
    const int rows = (int)(a->n / a->block);
    const size_t b = a->block;
    GEMM(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, (int)a->d, rows, (R)a->scale, c->dC, rows, c->km, rows, 0,
         c->dqm, rows);
    GEMM(CblasColMajor, CblasTrans, CblasNoTrans, rows, (int)a->d, rows, (R)a->scale, c->dC, rows, c->qm, rows, 0,
         c->dkm, rows);
    for (size_t col = 0; col < a->d; col++)
        for (size_t i = 0; i < a->n; i++) {
            if (a->dq) a->dq[i + col * a->lddq] += c->dqm[i / b + col * (size_t)rows] / (R)b;
            if (a->dk) a->dk[i + col * a->lddk] += c->dkm[i / b + col * (size_t)rows] / (R)b;
        }
    for (size_t col = 0; a->dvv && col < a->dv; col++)
        for (size_t i = 0; i < a->n; i++) a->dvv[i + col * a->lddv] += c->dvm[i / b + col * (size_t)rows] / (R)b;
}

void NAME(attn_mra2_backward_run)(const args_t *a, R *work, void (*atoms)(const args_t *, const coarse_t *, R *))
{
    const size_t n = a->n, d = a->d, dv = a->dv, rows = n / a->block;
    coarse_t c = {.qm = work};
    c.km = c.qm + rows * d, c.vm = c.km + rows * d, c.dqm = c.vm + rows * dv, c.dkm = c.dqm + rows * d;
    c.dvm = c.dkm + rows * d, c.C = c.dvm + rows * dv, c.dC = c.C + rows * rows;
    R *tiles = c.dC + rows * rows;
    memset(c.dvm, 0, rows * dv * sizeof(R));
    memset(c.dC, 0, rows * rows * sizeof(R));
    block_means(n, d, a->q, a->ldq, a->block, c.qm);
    block_means(n, d, a->k, a->ldk, a->block, c.km);
    block_means(n, dv, a->v, a->ldv, a->block, c.vm);
    zero_cols(n, d, a->dq, a->lddq);
    zero_cols(n, d, a->dk, a->lddk);
    zero_cols(n, dv, a->dvv, a->lddv);
    atoms(a, &c, tiles);
    coarse_backward(a, &c);
}

#ifdef ATTN_MRA_BACKWARD_SINGLE
size_t attn_mra2_backward_f32_floats(size_t n, size_t d, size_t dv, size_t block)
{
    return attn_mra2_coarse_count_f32(n, d, dv, block) + attn_mra2_blocked_count_f32(n, d, dv, block);
}

int attn_mra2_backward_f32(const attn_mra2_backward_args_f32 *a, float *work)
{
    if (fabs(a->scale) > 3.4e38)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need |scale| <= 3.4e38 (float32)", a->scale);
    if (a->block < 2 || a->n % a->block)
        return SKIT_ERROR(SKIT_ESHAPE, "block = %zu: need block >= 2 dividing n = %zu", a->block, a->n);
    SKIT_TRY(attn_mra2_check_diagonal(a->n / a->block, a->causal, a->refined));
    attn_mra2_backward_run_f32(a, work, attn_mra2_backward_blocks_f32);
    return SKIT_OK;
}
#endif
