/* mra_f32.c — MRA-2 / MRA-2-s (R = {b, 1}) in float32: block means and
 * coarse logits in float (one sgemm), Algorithm 1's selection by the rule
 * of the double plans (attn_mra_select, as the device plan uses it) on the
 * float logits, the unrefined squares' contribution by one sgemm, the
 * refined squares by the float sweep of exact_f32.c, and the merge of the
 * two levels with one shift per token (in double: O(n dv) work).
 *
 * Why not mra.c compiled again: that is MRA with any number of levels,
 * selecting by streaming radix passes over scores it never stores and
 * sweeping the finest level key tile by key tile; the float32 plans run
 * two levels {block, 1}, where one coarse logit matrix and the device
 * plan's selection (attn_mra_select) on its double copy are simpler. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "attention/attention_internal.h"

/* Scratch of one call: doubles, floats and the selection's integers,
 * carved from one block (the caller's, or allocated for the call). */
typedef struct mra_f32_work {
    size_t rows;
    float *qm, *km, *vm, *cnt, *logit, *m0, *num0, *mf, *wkey, *sweep;
    double *den0, *denf, *dlogit, *score, *tmp;
    uint32_t *ids, *row_ptr, *cols, *prow;
    unsigned char *flags;
} mra_f32_work;

static size_t round64(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* The scratch's element counts for `threads` sweep threads. doubles:
 * den0 (rows) denf (n) dlogit score tmp (r2); floats: qm km (rows d) vm
 * num0 (rows dv) cnt m0 (rows) logit (r2) mf wkey (n) sweep; ints: ids
 * (rows) row_ptr (rows + 1) cols prow (r2); then rows flags. bytes: the
 * whole block, each part 64-byte aligned (0: the size overflows). */
typedef struct work_counts {
    size_t rows, r2, db, fl, ints, bytes;
} work_counts;

static work_counts count_work(size_t n, size_t d, size_t dv, size_t b, int threads)
{
    work_counts c = {.rows = n / b};
    size_t rows = c.rows;
    if (skit_size_mul(rows, rows, &c.r2) || c.r2 > SIZE_MAX / 64 || d > SIZE_MAX / 8 / rows ||
        dv > SIZE_MAX / 8 / rows || n > SIZE_MAX / 64)
        return c;
    c.fl = 2 * rows * d + 2 * rows * dv + 2 * rows + c.r2 + 2 * n + attn_sweep_f32_work(b, threads);
    c.db = rows + n + 3 * c.r2;
    c.ints = 2 * rows + 1 + 2 * c.r2;
    if (c.fl > SIZE_MAX / 16 || c.db > SIZE_MAX / 16) return c;
    c.bytes = round64(c.db * sizeof(double)) + round64(c.fl * sizeof(float)) + round64(c.ints * 4) + round64(rows);
    return c;
}

static void work_carve(mra_f32_work *w, size_t n, size_t d, size_t dv, size_t b, int threads, void *base)
{
    const work_counts c = count_work(n, d, dv, b, threads);
    const size_t rows = c.rows, r2 = c.r2;
    unsigned char *at = base;
    double *g = (double *)at;
    float *f = (float *)(at += round64(c.db * sizeof(double)));
    uint32_t *u = (uint32_t *)(at += round64(c.fl * sizeof(float)));
    w->flags = at + round64(c.ints * 4);
    w->rows = rows;
    w->den0 = g, w->denf = g + rows, w->dlogit = w->denf + n, w->score = w->dlogit + r2;
    w->tmp = w->score + r2;
    w->qm = f, w->km = f + rows * d, w->vm = w->km + rows * d, w->num0 = w->vm + rows * dv;
    w->cnt = w->num0 + rows * dv, w->m0 = w->cnt + rows, w->logit = w->m0 + rows;
    w->mf = w->logit + r2, w->wkey = w->mf + n, w->sweep = w->wkey + n;
    w->ids = u, w->row_ptr = u + rows, w->cols = w->row_ptr + rows + 1, w->prow = w->cols + r2;
}

/* Means over the valid tokens of each block of b rows (float sums; 0 for a
 * block without one), and the blocks' valid counts. */
static void block_means_f32(size_t n, size_t cols, const float *x, size_t ldx, size_t b,
                            const unsigned char *mask, float *out, float *cnt)
{
    size_t rows = n / b;
    for (size_t c = 0; c < cols; c++)
        for (size_t X = 0; X < rows; X++) {
            float sum = 0.0f;
            size_t count = 0;
            for (size_t i = X * b; i < X * b + b; i++)
                if (!mask || mask[i]) {
                    sum += x[i + c * ldx];
                    count++;
                }
            out[X + c * rows] = count ? sum / (float)count : 0.0f;
            if (cnt) cnt[X] = (float)count;
        }
}

/* The unrefined squares of every query block: shift m0 = their largest
 * logit, weights cnt_y exp(logit - m0) in place of the logits (refined and
 * excluded squares 0), den0 their sum, num0 = weights x block means of V. */
static void coarse_contribution(mra_f32_work *w, size_t dv)
{
    size_t rows = w->rows;
    for (size_t x = 0; x < rows; x++) {
        float *lg = w->logit + x * rows;
        for (uint32_t p = w->row_ptr[x]; p < w->row_ptr[x + 1]; p++) lg[w->cols[p]] = -INFINITY;
        float mx = -INFINITY;
        for (size_t y = 0; y < rows; y++)
            if (lg[y] > mx) mx = lg[y];
        double sum = 0.0;
        for (size_t y = 0; y < rows; y++) {
            lg[y] = lg[y] == -INFINITY ? 0.0f : w->cnt[y] * expf(lg[y] - mx);
            sum += lg[y];
        }
        w->m0[x] = mx;
        w->den0[x] = sum;
    }
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)rows, (int)dv, (int)rows, 1.0f,
                w->logit, (int)rows, w->vm, (int)rows, 0.0f, w->num0, (int)rows);
}

/* y = the merge of the fine sums (in y itself) and the coarse ones, one
 * shift per token; masked rows and rows with no weight 0. */
static void merge_levels(const mra_f32_work *w, size_t n, size_t dv, size_t b, int sparse,
                         const unsigned char *mask, float *y, size_t ldy)
{
    for (size_t i = 0; i < n; i++) {
        size_t x = i / b;
        double m0 = sparse ? -INFINITY : w->m0[x], mf = w->mf[i];
        double M = m0 > mf ? m0 : mf;
        double w0 = m0 == -INFINITY ? 0.0 : exp(m0 - M), wf = mf == -INFINITY ? 0.0 : exp(mf - M);
        double tot = w0 * (sparse ? 0.0 : w->den0[x]) + wf * w->denf[i];
        int zero = tot == 0.0 || (mask && !mask[i]);
        for (size_t c = 0; c < dv; c++) {
            double val = wf * y[i + c * ldy] + (w0 != 0.0 ? w0 * w->num0[x + c * w->rows] : 0.0);
            y[i + c * ldy] = zero ? 0.0f : (float)(val / tot);
        }
    }
}

/* Level 0: means of Q and K, coarse logits (-inf: an empty block, or
 * after the diagonal when causal), Algorithm 1's selection on them by the
 * plan's options (block, budget, selection, priors). */
static int select_squares(mra_f32_work *w, const skit_attention_plan *plan, const float *q, size_t ldq,
                          const float *k, size_t ldk, const unsigned char *mask)
{
    const skit_attention_options *o = &plan->o;
    const size_t n = plan->n, d = plan->d, b = n / w->rows, rows = w->rows, r2 = rows * rows;
    block_means_f32(n, d, q, ldq, b, mask, w->qm, w->cnt);
    block_means_f32(n, d, k, ldk, b, mask, w->km, NULL);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)rows, (int)rows, (int)d, (float)plan->scale, w->km,
                (int)rows, w->qm, (int)rows, 0.0f, w->logit, (int)rows);
    for (size_t x = 0; x < rows; x++)
        for (size_t y = 0; y < rows; y++) {
            float *lg = &w->logit[y + x * rows];
            if (w->cnt[x] == 0.0f || w->cnt[y] == 0.0f || (o->causal && y > x)) *lg = -INFINITY;
            else if (!isfinite(*lg))
                return SKIT_ERROR(SKIT_ENONFINITE,
                                  "coarse logit (%zu, %zu) overflows float32: scale the inputs "
                                  "down or use the float64 plan",
                                  x, y);
        }
    for (size_t i = 0; i < r2; i++) w->dlogit[i] = (double)w->logit[i];
    size_t diag = o->causal && o->diagonal_prior < 1 ? 1 : o->diagonal_prior;
    attn_mra_select(rows, w->dlogit, o->blocks_per_row[0], o->selection, diag, o->first_block_prior, w->score,
                    w->tmp, w->ids, w->flags, w->row_ptr, w->cols, w->prow);
    return SKIT_OK;
}

/* ---- the float32 MRA plan -------------------------------------------------- */

/* work serves one call at a time: an execute, a selection or a
 * backward (a selection the backward needs goes to the plan's refined
 * first) */
typedef struct mra_f32_impl {
    size_t b;
    void *work;
} mra_f32_impl;

static int mra_select_f32(const skit_attention_plan *plan, const void *q, size_t ldq, const void *k, size_t ldk,
                          const unsigned char *mask, unsigned char *refined)
{
    const mra_f32_impl *im = plan->impl;
    mra_f32_work w;
    work_carve(&w, plan->n, plan->d, plan->dv, im->b, plan->threads, im->work);
    SKIT_TRY(select_squares(&w, plan, q, ldq, k, ldk, mask));
    memset(refined, 0, w.rows * w.rows);
    for (size_t x = 0; x < w.rows; x++)
        for (uint32_t p = w.row_ptr[x]; p < w.row_ptr[x + 1]; p++) refined[x + w.cols[p] * w.rows] = 1;
    return SKIT_OK;
}

static int mra_execute_f32(const skit_attention_plan *plan, const float *q, size_t ldq, const float *k,
                           size_t ldk, const float *v, size_t ldv, const unsigned char *mask, float *y, size_t ldy,
                           skit_attention_stats *stats)
{
    const mra_f32_impl *im = plan->impl;
    const size_t n = plan->n, d = plan->d, dv = plan->dv, b = im->b;
    mra_f32_work w;
    work_carve(&w, n, d, dv, b, plan->threads, im->work);
    SKIT_TRY(select_squares(&w, plan, q, ldq, k, ldk, mask));
    block_means_f32(n, dv, v, ldv, b, mask, w.vm, NULL);
    const int sparse = plan->o.method == SKIT_ATTENTION_MRA2_SPARSE;
    if (!sparse) coarse_contribution(&w, dv);
    if (mask)
        for (size_t i = 0; i < n; i++) w.wkey[i] = mask[i] ? 1.0f : 0.0f;
    attn_sweep_f32 s = {.n = n, .d = d, .dv = dv, .t = b, .q = q, .k = k, .v = v, .ldq = ldq, .ldk = ldk,
                        .ldv = ldv, .scale = (float)plan->scale, .key_weight = mask ? w.wkey : NULL,
                        .causal = plan->o.causal, .row_ptr = w.row_ptr, .cols = w.cols, .num = y, .ldnum = ldy,
                        .m = w.mf, .den = w.denf, .work = w.sweep, .threads = plan->threads,
                        .parallel = (double)b * (double)b * (double)SKIT_MAX(d, dv) <= ATTN_GEMM_SERIAL_LIMIT};
    attn_sweep_f32_run(&s);
    merge_levels(&w, n, dv, b, sparse, mask, y, ldy);
    const size_t refined = w.row_ptr[w.rows];
    memset(stats, 0, sizeof *stats);
    stats->levels = 2;
    stats->refined[0] = refined;
    stats->entries = (double)w.rows * (double)w.rows + (double)refined * (double)b * (double)b;
    stats->work_fraction = stats->entries / ((double)n * (double)n);
    return SKIT_OK;
}

static int mra_backward_f32(const skit_attention_plan *plan, const attn_backward_call *c)
{
    const mra_f32_impl *im = plan->impl;
    const attn_mra2_backward_args_f32 a = {plan->n, plan->d, plan->dv, im->b, plan->o.causal, plan->scale,
                                           c->q, c->k, c->v, c->dy, c->ldq, c->ldk, c->ldv, c->lddy, c->refined,
                                           c->dq, c->dk, c->dv, c->lddq, c->lddk, c->lddv,
                                           plan->o.method == SKIT_ATTENTION_MRA2_SPARSE};
    return attn_mra2_backward_f32(&a, im->work);
}

/* MRA-2 / -2-s of two levels {block, 1}; the method, device, causal flag
 * and scale are the front's (plan.c). */
int attn_mra_create_f32(skit_attention_plan *p)
{
    const size_t n = p->n, d = p->d, dv = p->dv;
    size_t scales[SKIT_MRA_MAX_LEVELS], L;
    SKIT_TRY(attn_mra_levels(&p->o, n, scales, &L));
    if (L != 2 || scales[1] != 1)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "levels = %zu: a float32 %s plan runs two levels R = {block, 1} (levels 0, or 2 with "
                          "scales[1] = 1)",
                          L, skit_attention_method_name(p->o.method));
    const size_t b = scales[0], rows = n / b;
    if (rows > 65535)
        return SKIT_ERROR(SKIT_ETOOBIG,
                          "n/block = %zu coarse blocks per row: need fewer than 65536 (use a larger block)", rows);
    const size_t forward = count_work(n, d, dv, b, p->threads).bytes;
    const size_t backward = attn_mra2_backward_f32_floats(n, d, dv, b);
    if (forward == 0 || backward > SIZE_MAX / sizeof(float))
        return SKIT_ERROR(SKIT_EOVERFLOW, "MRA scratch size overflows size_t");
    mra_f32_impl *im = attn_plan_alloc(p, 1, sizeof *im);
    if (!im) return p->alloc_status;
    im->b = b;
    im->work = attn_plan_alloc(p, SKIT_MAX(forward, backward * sizeof(float)), 1);
    if (!im->work) return p->alloc_status;
    p->impl = im;
    p->execute_f32 = mra_execute_f32;
    p->select = mra_select_f32;
    p->refined = attn_plan_alloc(p, rows * rows, 1);
    if (!p->refined) return p->alloc_status;
    p->backward = mra_backward_f32;
    return SKIT_OK;
}
