/* mra.c — multiresolution approximation of attention (MRA-2, MRA-2-s) with
 * any number of levels R = {s_0 > s_1 > ... > s_{L-1}} (mra-attention §4,
 * Algorithms 1 and 2).
 *
 * Level l cuts the n x n matrix into squares of side s_l. The coarse logit of
 * a square is scale * (mean of its valid queries) . (mean of its valid keys),
 * the mean of its fine logits by bilinearity, so mu = exp(coarse logit) needs
 * no n x n matrix. Level 0 evaluates all (n/s_0)^2 squares with one GEMM;
 * level l+1 evaluates only the children of the squares refined at level l
 * (one small GEMM per refined square); the finest level runs the tiled
 * online-softmax sweep over the refined squares of the level above.
 *
 * Every level keeps, per query block, its own running maximum m_l, the
 * shifted denominator and numerator; the final merge rescales each level by
 * exp(m_l - M) with M the largest of them, so no scale overflows, and
 * divides. A square contributes only at the level where it is not refined
 * (Algorithm 1 pops refined squares), weighted by its count of valid keys.
 */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

typedef struct mra_level {
    size_t s, rows, r;          /* side, n/s, s_{l-1}/s_l (0 for level 0) */
    double *qm, *km, *vm, *cnt; /* means over valid tokens, counts (s > 1) */
    double *m, *den, *num;      /* this level's contribution per query block */
    /* selection of squares to refine (levels 0..L-2) */
    size_t cand_cap, ref_cap, nrefined;
    double *logit;              /* level 0: [y + x*rows]; l >= 1: r x r tile per parent */
    unsigned char *refined;     /* per candidate */
    double *rowmax;             /* rows */
    size_t *row_ptr;            /* CSR of refined squares: rows + 1 */
    uint32_t *cols, *prow;      /* key index and row of each refined square */
} mra_level;

typedef struct mra_impl {
    size_t L;
    int sparse; /* MRA-2-s: finest level only */
    mra_level lv[SKIT_MRA_MAX_LEVELS];
    double *score, *tmp;         /* max candidates */
    uint32_t *row_ids, *row_ys;  /* per thread: rows_max each */
    size_t rows_max;
    double *sweep_work;
    double *mask_w;              /* n: mask as 0/1 weights */
    double *merge_w;             /* L x n */
    int sweep_parallel, children_parallel[SKIT_MRA_MAX_LEVELS];
} mra_impl;

/* ---- candidates of a level's row ---------------------------------------- */

/* Candidates of row x of level l (l <= L-2): ids into the level's logit
 * array and their key indices. Ids run in row-major order of (row, key) at
 * every level, which is also the tie-break of the selection: for level
 * l >= 1 the children of parent row X (cnt parents) fill a block of
 * cnt r^2 logits, row a of it holding parent j's children at j*r + c. */
static size_t row_candidates(const mra_impl *im, size_t l, size_t x, uint32_t *ids,
                             uint32_t *ys)
{
    const mra_level *lv = &im->lv[l];
    size_t count = 0;
    if (l == 0) {
        for (size_t y = 0; y < lv->rows; y++) {
            ids[count] = (uint32_t)(y + x * lv->rows);
            ys[count++] = (uint32_t)y;
        }
        return count;
    }
    const mra_level *up = &im->lv[l - 1];
    size_t r = lv->r, X = x / r, a = x % r;
    size_t p0 = up->row_ptr[X], cnt = up->row_ptr[X + 1] - p0;
    size_t base = p0 * r * r + a * cnt * r;
    for (size_t j = 0; j < cnt; j++)
        for (size_t c = 0; c < r; c++) {
            ids[count] = (uint32_t)(base + j * r + c);
            ys[count++] = (uint32_t)((size_t)up->cols[p0 + j] * r + c);
        }
    return count;
}

static size_t level_candidates(const mra_impl *im, size_t l)
{
    if (l == 0) return im->lv[0].rows * im->lv[0].rows;
    size_t r = im->lv[l].r;
    return im->lv[l - 1].nrefined * r * r;
}

/* Algorithm 1 at level l: score = logit - row max (+ priors), keep the best
 * blocks_per_row per row or rows x blocks_per_row overall; then the CSR of
 * refined squares. */
static void select_level(const skit_attention_plan *plan, mra_impl *im, size_t l)
{
    mra_level *lv = &im->lv[l];
    size_t rows = lv->rows, N = level_candidates(im, l);
    size_t per_row = plan->o.blocks_per_row[l];
    size_t diag = plan->o.diagonal_prior;
    int first = plan->o.first_block_prior != 0;
    long nrows = (long)rows;
    double lo = 0.0;
#pragma omp parallel num_threads(plan->threads) if (N > 1048576 && plan->threads > 1)
    {
        uint32_t *ids = im->row_ids + (size_t)attn_thread_id() * im->rows_max;
        uint32_t *ys = im->row_ys + (size_t)attn_thread_id() * im->rows_max;
        double lo_local = 0.0;
#pragma omp for schedule(static)
        for (long xl = 0; xl < nrows; xl++) {
            size_t x = (size_t)xl, cnt = row_candidates(im, l, x, ids, ys);
            double mx = -INFINITY;
            for (size_t t = 0; t < cnt; t++)
                if (lv->logit[ids[t]] > mx) mx = lv->logit[ids[t]];
            lv->rowmax[x] = mx;
            for (size_t t = 0; t < cnt; t++) {
                double v = lv->logit[ids[t]];
                double sc = mx == -INFINITY || v == -INFINITY ? -INFINITY : v - mx;
                im->score[ids[t]] = sc;
                if (sc < lo_local) lo_local = sc;
                lv->refined[ids[t]] = 0;
            }
        }
#pragma omp critical(skit_mra_lo)
        if (lo_local < lo) lo = lo_local;
    }
    if (diag || first) {
        /* priors come before every other square but keep their own order */
        double bonus = 1.0 - lo;
        uint32_t *ids = im->row_ids, *ys = im->row_ys;
        for (size_t x = 0; x < rows; x++) {
            size_t cnt = row_candidates(im, l, x, ids, ys);
            for (size_t t = 0; t < cnt; t++) {
                size_t y = ys[t], dist = x > y ? x - y : y - x;
                int prior = (diag && dist < diag) || (first && (x == 0 || y == 0));
                if (prior && im->score[ids[t]] != -INFINITY) im->score[ids[t]] += bonus;
            }
        }
    }
    if (plan->o.selection == SKIT_MRA_GLOBAL) {
        /* the M-th largest score by quickselect on a copy; then everything
         * above it and, in id (row-major) order, enough of its ties */
        size_t M = SKIT_MIN(N, rows * per_row);
        memcpy(im->tmp, im->score, N * sizeof(double));
        double thr = attn_kth_largest(im->tmp, N, M - 1);
        size_t above = 0;
        for (size_t t = 0; t < N; t++) above += im->score[t] > thr;
        size_t ties = M - above;
        for (size_t t = 0; t < N; t++) {
            double sc = im->score[t];
            if (sc > thr || (sc == thr && ties && ties--)) lv->refined[t] = 1;
        }
    } else {
#pragma omp parallel num_threads(plan->threads) if (N > 1048576 && plan->threads > 1)
        {
            uint32_t *ids = im->row_ids + (size_t)attn_thread_id() * im->rows_max;
            uint32_t *ys = im->row_ys + (size_t)attn_thread_id() * im->rows_max;
#pragma omp for schedule(static)
            for (long xl = 0; xl < nrows; xl++) {
                size_t cnt = row_candidates(im, l, (size_t)xl, ids, ys);
                size_t M = SKIT_MIN(cnt, per_row);
                attn_select_top(ids, cnt, M, im->score);
                for (size_t t = 0; t < M; t++) lv->refined[ids[t]] = 1;
            }
        }
    }
    size_t pos = 0;
    uint32_t *ids = im->row_ids, *ys = im->row_ys;
    for (size_t x = 0; x < rows; x++) {
        lv->row_ptr[x] = pos;
        size_t cnt = row_candidates(im, l, x, ids, ys);
        for (size_t t = 0; t < cnt; t++)
            if (lv->refined[ids[t]]) {
                lv->cols[pos] = ys[t];
                lv->prow[pos++] = (uint32_t)x;
            }
    }
    lv->row_ptr[rows] = pos;
    lv->nrefined = pos;
}

/* Logits of the children of level l-1's refined squares (1 <= l <= L-2),
 * in the row-major layout of row_candidates: one GEMM per parent writes its
 * r x r children transposed (key-major) with leading dimension cnt r. */
static void children_logits(const skit_attention_plan *plan, mra_impl *im, size_t l)
{
    mra_level *lv = &im->lv[l];
    const mra_level *up = &im->lv[l - 1];
    size_t r = lv->r, d = plan->d, rows = lv->rows;
    long np = (long)up->nrefined;
    int threads = im->children_parallel[l] ? plan->threads : 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long pl = 0; pl < np; pl++) {
        size_t p = (size_t)pl, X = up->prow[p], Y = up->cols[p];
        size_t p0 = up->row_ptr[X], cnt = up->row_ptr[X + 1] - p0, ld = cnt * r;
        double *T = lv->logit + p0 * r * r + (p - p0) * r; /* T[c + a*ld] = logit(a, c) */
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)r, (int)r, (int)d, plan->scale,
                    lv->km + Y * r, (int)rows, lv->qm + X * r, (int)rows, 0.0, T, (int)ld);
        for (size_t a = 0; a < r; a++)
            for (size_t c = 0; c < r; c++)
                if (lv->cnt[X * r + a] == 0.0 || lv->cnt[Y * r + c] == 0.0)
                    T[c + a * ld] = -INFINITY;
    }
}

/* Contribution of the unrefined squares of level l (l <= L-2). */
static void level_contribution(const skit_attention_plan *plan, mra_impl *im, size_t l)
{
    mra_level *lv = &im->lv[l];
    size_t rows = lv->rows, dv = plan->dv;
    double bias = plan->o.shift_bias;
    long nrows = (long)rows;
    if (l == 0) {
        /* E(x, y) = cnt_y exp(L - m_x - bias) on unrefined squares, stored
         * transposed in place of the logits; num = E * vm by one GEMM */
#pragma omp parallel for schedule(static) num_threads(plan->threads) if (rows * rows > 1048576)
        for (long xl = 0; xl < nrows; xl++) {
            size_t x = (size_t)xl;
            double *col = lv->logit + x * rows;
            const unsigned char *ref = lv->refined + x * rows;
            double mx = -INFINITY;
            for (size_t y = 0; y < rows; y++)
                if (!ref[y] && col[y] > mx) mx = col[y];
            double sum = 0.0, shift = mx + bias;
            for (size_t y = 0; y < rows; y++) {
                double e = (ref[y] || col[y] == -INFINITY) ? 0.0 : lv->cnt[y] * exp(col[y] - shift);
                col[y] = e;
                sum += e;
            }
            lv->m[x] = mx;
            lv->den[x] = sum;
        }
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)rows, (int)dv, (int)rows, 1.0,
                    lv->logit, (int)rows, lv->vm, (int)rows, 0.0, lv->num, (int)rows);
        return;
    }
#pragma omp parallel num_threads(plan->threads) if (rows > 8192 && plan->threads > 1)
    {
        uint32_t *ids = im->row_ids + (size_t)attn_thread_id() * im->rows_max;
        uint32_t *ys = im->row_ys + (size_t)attn_thread_id() * im->rows_max;
#pragma omp for schedule(static)
        for (long xl = 0; xl < nrows; xl++) {
            size_t x = (size_t)xl, cnt = row_candidates(im, l, x, ids, ys);
            double mx = -INFINITY;
            for (size_t t = 0; t < cnt; t++)
                if (!lv->refined[ids[t]] && lv->logit[ids[t]] > mx) mx = lv->logit[ids[t]];
            double sum = 0.0, shift = mx + bias;
            for (size_t c = 0; c < dv; c++) lv->num[x + c * rows] = 0.0;
            if (mx != -INFINITY)
                for (size_t t = 0; t < cnt; t++) {
                    double v = lv->logit[ids[t]];
                    if (lv->refined[ids[t]] || v == -INFINITY) continue;
                    size_t y = ys[t];
                    double e = lv->cnt[y] * exp(v - shift);
                    sum += e;
                    for (size_t c = 0; c < dv; c++) lv->num[x + c * rows] += e * lv->vm[y + c * rows];
                }
            lv->m[x] = mx;
            lv->den[x] = sum;
        }
    }
}

static int mra_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                       const double *k, size_t ldk, const double *v, size_t ldv,
                       const unsigned char *mask, double *y, size_t ldy)
{
    mra_impl *im = plan->impl;
    size_t n = plan->n, d = plan->d, dv = plan->dv, L = im->L;
    mra_level *fin = &im->lv[L - 1];

    /* 1. block means and valid counts of every level with s > 1 */
    for (size_t l = 0; l < L; l++) {
        mra_level *lv = &im->lv[l];
        if (lv->s == 1) continue;
        attn_block_means(n, d, q, ldq, lv->s, mask, 0, lv->qm, lv->cnt);
        attn_block_means(n, d, k, ldk, lv->s, mask, 0, lv->km, NULL);
        attn_block_means(n, dv, v, ldv, lv->s, mask, 0, lv->vm, NULL);
    }
    if (mask)
        for (size_t i = 0; i < n; i++) im->mask_w[i] = mask[i] ? 1.0 : 0.0;

    /* 2. level 0: every square, one GEMM: logit[y + x*rows] */
    mra_level *l0 = &im->lv[0];
    size_t r0 = l0->rows;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)r0, (int)r0, (int)d, plan->scale,
                l0->km, (int)r0, l0->qm, (int)r0, 0.0, l0->logit, (int)r0);
    if (mask)
        for (size_t x = 0; x < r0; x++)
            for (size_t yy = 0; yy < r0; yy++)
                if (l0->cnt[x] == 0.0 || l0->cnt[yy] == 0.0) l0->logit[yy + x * r0] = -INFINITY;

    /* 3. Algorithm 1: refine level by level */
    for (size_t l = 0; l + 1 < L; l++) {
        select_level(plan, im, l);
        if (l + 2 < L) children_logits(plan, im, l + 1);
    }

    /* 4. the finest level: tiled sweep over the refined squares above it */
    const mra_level *par = &im->lv[L - 2];
    int fine_s1 = fin->s == 1;
    double *fin_num = fine_s1 ? y : fin->num;
    size_t fin_ld = fine_s1 ? ldy : fin->rows;
    attn_sweep s = {.n = fin->rows, .d = d, .dv = dv, .t = fin->r,
                    .q = fine_s1 ? q : fin->qm, .k = fine_s1 ? k : fin->km,
                    .v = fine_s1 ? v : fin->vm, .ldq = fine_s1 ? ldq : fin->rows,
                    .ldk = fine_s1 ? ldk : fin->rows, .ldv = fine_s1 ? ldv : fin->rows,
                    .scale = plan->scale, .bias = plan->o.shift_bias,
                    .key_weight = fine_s1 ? (mask ? im->mask_w : NULL) : fin->cnt, .band = -1,
                    .row_ptr = par->row_ptr, .cols = par->cols, .num = fin_num, .ldnum = fin_ld,
                    .m = fin->m, .den = fin->den, .lsum = NULL, .work = im->sweep_work,
                    .threads = plan->threads, .parallel = im->sweep_parallel};
    attn_sweep_run(&s);

    /* 5. coarse contributions (MRA-2) */
    size_t first_level = im->sparse ? L - 1 : 0;
    for (size_t l = first_level; l + 1 < L; l++) level_contribution(plan, im, l);

    /* 6. merge: one shift per token over the levels, then divide */
    long nl = (long)n;
    double *W = im->merge_w;
#pragma omp parallel for schedule(static) num_threads(plan->threads) if (n > 262144)
    for (long il = 0; il < nl; il++) {
        size_t i = (size_t)il;
        double M = -INFINITY;
        for (size_t l = first_level; l < L; l++) {
            const mra_level *lv = &im->lv[l];
            double ml = lv->m[i / lv->s];
            if (ml > M) M = ml;
        }
        double tot = 0.0;
        for (size_t l = first_level; l < L; l++) {
            const mra_level *lv = &im->lv[l];
            size_t x = i / lv->s;
            double w = lv->m[x] == -INFINITY ? 0.0 : exp(lv->m[x] - M);
            W[l * n + i] = w;
            tot += w * lv->den[x];
        }
        int zero = tot == 0.0 || (mask && !mask[i]);
        for (size_t l = first_level; l < L; l++) W[l * n + i] = zero ? 0.0 : W[l * n + i] / tot;
    }
    /* weighted sum over levels, block by block (no per-element division) */
    long ndv = (long)dv;
#pragma omp parallel for schedule(static) num_threads(plan->threads) if (n * dv >= 4194304)
    for (long cl = 0; cl < ndv; cl++) {
        size_t c = (size_t)cl;
        const double *wf = W + (L - 1) * n;
        const double *fcol = fin_num + c * fin_ld;
        double *ycol = y + c * ldy;
        size_t sf = fin->s;
        for (size_t x = 0; x < fin->rows; x++)
            for (size_t i = x * sf; i < x * sf + sf; i++) ycol[i] = wf[i] == 0.0 ? 0.0 : wf[i] * fcol[x];
        for (size_t l = first_level; l + 1 < L; l++) {
            const mra_level *lv = &im->lv[l];
            const double *wl = W + l * n, *ncol = lv->num + c * lv->rows;
            for (size_t x = 0; x < lv->rows; x++) {
                double val = ncol[x];
                for (size_t i = x * lv->s; i < x * lv->s + lv->s; i++)
                    if (wl[i] != 0.0) ycol[i] += wl[i] * val;
            }
        }
    }

    /* 7. statistics */
    skit_attention_stats *st = plan->stats;
    memset(st, 0, sizeof *st);
    st->levels = L;
    double entries = (double)r0 * (double)r0;
    for (size_t l = 0; l + 1 < L; l++) {
        st->refined[l] = im->lv[l].nrefined;
        double r = (double)im->lv[l + 1].r;
        entries += (double)im->lv[l].nrefined * r * r;
    }
    st->entries = entries;
    st->work_fraction = entries / ((double)n * (double)n);
    return SKIT_OK;
}

/* ---- create -------------------------------------------------------------- */

#define ALLOC(ptr, count, type)                                                  \
    do {                                                                         \
        size_t alloc_count_ = (count);                                           \
        (ptr) = attn_plan_alloc(p, alloc_count_ ? alloc_count_ : 1, sizeof(type)); \
        if (!(ptr)) return p->alloc_status;                                      \
    } while (0)

int attn_mra_create(skit_attention_plan *p)
{
    const skit_attention_options *o = &p->o;
    size_t n = p->n, d = p->d, dv = p->dv;
    size_t L, scales[SKIT_MRA_MAX_LEVELS];
    if (!isfinite(o->shift_bias))
        return SKIT_ERROR(SKIT_EDOM, "shift_bias = %g out of range: need a finite value",
                          o->shift_bias);
    if ((int)o->selection != SKIT_MRA_GLOBAL && (int)o->selection != SKIT_MRA_PER_ROW)
        return SKIT_ERROR(SKIT_EINVAL, "selection = %d unknown: need 0 (global) or 1 (per row)",
                          (int)o->selection);
    if (o->levels == 0) {
        if (o->block < 2 || o->block > n)
            return SKIT_ERROR(SKIT_EDOM, "block = %zu out of range: need 2 <= block <= n (= %zu)",
                              o->block, n);
        L = 2;
        scales[0] = o->block;
        scales[1] = 1;
    } else {
        if (o->levels < 2 || o->levels > SKIT_MRA_MAX_LEVELS)
            return SKIT_ERROR(SKIT_EDOM, "levels = %zu out of range: need 2 <= levels <= %d",
                              o->levels, SKIT_MRA_MAX_LEVELS);
        L = o->levels;
        for (size_t l = 0; l < L; l++) scales[l] = o->scales[l];
        if (scales[0] < 2 || scales[0] > n)
            return SKIT_ERROR(SKIT_EDOM, "scales[0] = %zu out of range: need 2 <= s_0 <= n (= %zu)",
                              scales[0], n);
        for (size_t l = 1; l < L; l++)
            if (scales[l] < 1 || scales[l] >= scales[l - 1] || scales[l - 1] % scales[l])
                return SKIT_ERROR(SKIT_EDOM,
                                  "scales[%zu] = %zu out of range: need 1 <= s_%zu < s_%zu (= %zu) "
                                  "and dividing it",
                                  l, scales[l], l, l - 1, scales[l - 1]);
    }
    if (n % scales[0])
        return SKIT_ERROR(SKIT_ESHAPE,
                          "n = %zu is not a multiple of the MRA block %zu: need n divisible by s_0",
                          n, scales[0]);
    for (size_t l = 0; l + 1 < L; l++) {
        size_t rows = n / scales[l];
        if (o->blocks_per_row[l] < 1 || o->blocks_per_row[l] > rows)
            return SKIT_ERROR(SKIT_EDOM,
                              "blocks_per_row[%zu] = %zu out of range: need 1 <= blocks_per_row "
                              "<= n/s_%zu (= %zu)",
                              l, o->blocks_per_row[l], l, rows);
    }

    mra_impl *im;
    ALLOC(im, 1, mra_impl);
    memset(im, 0, sizeof *im);
    im->L = L;
    im->sparse = o->method == SKIT_ATTENTION_MRA2_SPARSE;
    size_t cand_max = 0;
    for (size_t l = 0; l < L; l++) {
        mra_level *lv = &im->lv[l];
        lv->s = scales[l];
        lv->rows = n / scales[l];
        lv->r = l ? scales[l - 1] / scales[l] : 0;
        if (lv->rows > im->rows_max) im->rows_max = lv->rows;
        /* candidate capacity: all squares at level 0, children of the refined
         * squares above otherwise */
        if (l + 1 < L) {
            size_t cap, per;
            if (l == 0) {
                cap = lv->rows * lv->rows;
                if (lv->rows > 65535)
                    return SKIT_ERROR(SKIT_ETOOBIG,
                                      "n/s_0 = %zu coarse blocks per row: need fewer than 65536 "
                                      "(use a larger block)",
                                      lv->rows);
            } else {
                size_t rr = lv->r * lv->r;
                if (skit_size_mul(im->lv[l - 1].ref_cap, rr, &cap))
                    return SKIT_ERROR(SKIT_EOVERFLOW, "MRA candidate count overflows size_t");
            }
            if (cap >= UINT32_MAX)
                return SKIT_ERROR(SKIT_ETOOBIG,
                                  "MRA level %zu has %zu candidate squares: need fewer than 2^32",
                                  l, cap);
            lv->cand_cap = cap;
            if (skit_size_mul(lv->rows, o->blocks_per_row[l], &per))
                return SKIT_ERROR(SKIT_EOVERFLOW, "MRA budget overflows size_t");
            lv->ref_cap = SKIT_MIN(cap, per);
            if (cap > cand_max) cand_max = cap;
        }
    }
    for (size_t l = 0; l < L; l++) {
        mra_level *lv = &im->lv[l];
        size_t rows = lv->rows;
        if (lv->s > 1) {
            ALLOC(lv->qm, rows * d, double);
            ALLOC(lv->km, rows * d, double);
            ALLOC(lv->vm, rows * dv, double);
            ALLOC(lv->cnt, rows, double);
        }
        int contributes = l + 1 == L || !im->sparse;
        if (contributes) {
            ALLOC(lv->m, 2 * rows, double);
            lv->den = lv->m + rows;
            if (l + 1 < L || lv->s > 1) ALLOC(lv->num, rows * dv, double);
        }
        if (l + 1 < L) {
            ALLOC(lv->logit, lv->cand_cap, double);
            ALLOC(lv->refined, lv->cand_cap, unsigned char);
            ALLOC(lv->rowmax, rows, double);
            ALLOC(lv->row_ptr, rows + 1, size_t);
            ALLOC(lv->cols, lv->ref_cap, uint32_t);
            ALLOC(lv->prow, lv->ref_cap, uint32_t);
        }
        if (l >= 1 && l + 1 < L)
            im->children_parallel[l] =
                (double)lv->r * (double)lv->r * (double)d <= ATTN_GEMM_SERIAL_LIMIT;
    }
    ALLOC(im->score, cand_max, double);
    ALLOC(im->tmp, cand_max, double);
    size_t per_thread = im->rows_max * (size_t)p->threads;
    ALLOC(im->row_ids, per_thread, uint32_t);
    ALLOC(im->row_ys, per_thread, uint32_t);
    size_t t = im->lv[L - 1].r, work;
    SKIT_TRY(attn_sweep_work_count(im->lv[L - 1].rows, t, d, dv, p->threads, &work));
    ALLOC(im->sweep_work, work, double);
    im->sweep_parallel =
        (double)t * (double)t * (double)SKIT_MAX(d, dv) <= ATTN_GEMM_SERIAL_LIMIT;
    ALLOC(im->mask_w, n, double);
    ALLOC(im->merge_w, L * n, double);
    p->impl = im;
    p->execute = mra_execute;
    return SKIT_OK;
}
