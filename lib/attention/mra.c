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
 * The selection never sorts or copies a level's scores: they are recomputed
 * from the logits in a few streaming passes (row maxima, a radix select of
 * the global threshold, then the refined squares and the unrefined
 * contribution row by row), so level 0 costs its logits, 8 bytes a square,
 * and the rest of the plan is O(n (d + dv)) plus the finer levels' candidates
 * (budget x r^2).
 *
 * Every level keeps, per query block, its own running maximum m_l, the
 * shifted denominator and numerator; the final merge rescales each level by
 * exp(m_l - M) with M the largest of them, so no scale overflows, and
 * divides. A square contributes only at the level where it is not refined
 * (Algorithm 1 pops refined squares), weighted by its count of valid keys.
 * The coarse levels are complete before the finest sweep, which merges each
 * query tile as soon as it is done.
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
    double *rowmax;             /* rows */
    size_t *row_ptr;            /* CSR of refined squares: rows + 1 */
    uint32_t *cols, *prow;      /* key index and row of each refined square */
} mra_level;

/* The global budget's threshold is found by a radix select over the order
 * keys of the scores, 16 bits per pass, each pass recomputing the scores
 * from the logits: no copy of the (n/s_0)^2 scores is ever stored. */
#define MRA_DIGIT_BITS 16
#define MRA_BUCKETS ((size_t)1 << MRA_DIGIT_BITS)
/* candidates from which the selection passes run on all threads */
#define MRA_PARALLEL_CANDIDATES 262144

typedef struct mra_impl {
    size_t L;
    int sparse; /* MRA-2-s: finest level only */
    mra_level lv[SKIT_MRA_MAX_LEVELS];
    size_t rows_max;
    double *row_work;            /* per thread: 2 rows_max (a row's scores, and scratch) */
    /* the selection passes cut the rows into nchunks contiguous ranges */
    size_t nchunks;
    uint32_t *hist;              /* nchunks x MRA_BUCKETS digit counts */
    size_t *chunk_sel, *chunk_pos; /* nchunks: squares refined in the chunk, next slot */
    double *chunk_lo;            /* nchunks */
    size_t pool_cap;             /* candidates of the threshold's bucket, in id order */
    double *pool_score, *pool_tmp;
    uint32_t *pool_id;
    /* the finest level's sweep (fine_sweep) */
    double *sweep_work;          /* packed Q, accumulators, lsum; per thread sweep_per */
    size_t sweep_per;            /* per thread: t x t tile, 3 t rows, a K and a V tile */
    size_t *sweep_count;         /* per thread: key tiles + 1 */
    uint32_t *sweep_order;       /* refined squares of level L-2, key-major per chunk */
    uint32_t *sweep_slots;       /* query tiles: slot of each, and the free slots */
    double *mask_w;              /* n: mask as 0/1 weights */
    double *merge_w;             /* per thread: merge_per (L s_{L-2}) */
    size_t merge_per;
    int sweep_parallel, children_parallel[SKIT_MRA_MAX_LEVELS];
} mra_impl;

/* ---- candidates of a level's row ---------------------------------------- */

/* The candidates of row x of level l are the logits base .. base+count-1:
 * all key blocks at level 0; for level l >= 1 the children of parent row X
 * (cnt refined parents) fill a block of cnt r^2 logits, row a of it holding
 * parent j's children at j*r + c. Ids (logit positions) thus run in
 * row-major order of (row, key) at every level, which is also the
 * tie-break of the selection. */
typedef struct mra_row {
    size_t base, count, p0; /* p0: first refined parent of the row (l >= 1) */
} mra_row;

static mra_row row_of(const mra_impl *im, size_t l, size_t x)
{
    const mra_level *lv = &im->lv[l];
    mra_row w = {x * lv->rows, lv->rows, 0};
    if (l == 0) return w;
    const mra_level *up = &im->lv[l - 1];
    size_t r = lv->r, X = x / r, a = x % r;
    size_t cnt = up->row_ptr[X + 1] - up->row_ptr[X];
    w.p0 = up->row_ptr[X];
    w.base = w.p0 * r * r + a * cnt * r;
    w.count = cnt * r;
    return w;
}

/* Key index of candidate t of a row. */
static inline size_t row_key(const mra_impl *im, size_t l, const mra_row *w, size_t t)
{
    if (l == 0) return t;
    size_t r = im->lv[l].r;
    return (size_t)im->lv[l - 1].cols[w->p0 + t / r] * r + t % r;
}

static size_t level_candidates(const mra_impl *im, size_t l)
{
    if (l == 0) return im->lv[0].rows * im->lv[0].rows;
    size_t r = im->lv[l].r;
    return im->lv[l - 1].nrefined * r * r;
}

/* Selection state of one level: a square is refined if its score is above
 * thr, or equal to it with an id below cut (ties go in id order). */
typedef struct mra_sel {
    size_t l;
    int priors;
    double bonus; /* added to the scores of prior squares */
    double thr;
    size_t cut;
} mra_sel;

/* Largest of a[0..count) (-inf if empty); four running maxima for speed
 * (which of two equal zeros wins does not matter downstream). */
static double row_max(const double *a, size_t count)
{
    double m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY;
    size_t t = 0;
    for (; t + 4 <= count; t += 4) {
        m0 = a[t] > m0 ? a[t] : m0;
        m1 = a[t + 1] > m1 ? a[t + 1] : m1;
        m2 = a[t + 2] > m2 ? a[t + 2] : m2;
        m3 = a[t + 3] > m3 ? a[t + 3] : m3;
    }
    for (; t < count; t++) m0 = a[t] > m0 ? a[t] : m0;
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    return m2 > m0 ? m2 : m0;
}

/* The diagonal prior in effect: a causal plan refines every diagonal
 * square first (its coarse logit would average keys after the query). */
static size_t diagonal_prior(const skit_attention_plan *plan)
{
    size_t diag = plan->o.diagonal_prior;
    return plan->o.causal && diag < 1 ? 1 : diag;
}

static int has_priors(const skit_attention_plan *plan)
{
    return diagonal_prior(plan) || plan->o.first_block_prior;
}

/* Algorithm 1's scores of row x into sc: logit - row max (-inf stays
 * -inf; NaN from overflowed logits counts as -inf, which keeps the
 * selection's counts consistent); prior squares come before every other
 * square (+ bonus) but keep their own order. */
static void row_scores(const skit_attention_plan *plan, const mra_impl *im, const mra_sel *sel,
                       size_t x, const mra_row *w, double *sc)
{
    const mra_level *lv = &im->lv[sel->l];
    const double *lg = lv->logit + w->base;
    double mx = lv->rowmax[x];
    if (mx == -INFINITY) {
        for (size_t t = 0; t < w->count; t++) sc[t] = -INFINITY;
        return;
    }
    for (size_t t = 0; t < w->count; t++) {
        double v = lg[t] - mx;
        sc[t] = v == v ? v : -INFINITY;
    }
    if (!sel->priors) return;
    size_t diag = diagonal_prior(plan);
    int first = plan->o.first_block_prior != 0;
    for (size_t t = 0; t < w->count; t++) {
        size_t y = row_key(im, sel->l, w, t), dist = x > y ? x - y : y - x;
        int prior = (diag && dist < diag) || (first && (x == 0 || y == 0));
        if (prior && sc[t] != -INFINITY) sc[t] += sel->bonus;
    }
}

/* An unsigned key in the order of the doubles (-0 and +0 are one value). */
static inline uint64_t order_key(double v)
{
    uint64_t u;
    v += 0.0;
    memcpy(&u, &v, sizeof u);
    return u ^ ((uint64_t)((int64_t)u >> 63) | (UINT64_C(1) << 63));
}

static inline double key_value(uint64_t key)
{
    uint64_t u = key ^ ((uint64_t)((int64_t)~key >> 63) | (UINT64_C(1) << 63));
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

enum { SCAN_MAX = 1, SCAN_HIST = 2, SCAN_COLLECT = 4, SCAN_COLLECT_ALL = 8 };

/* Largest of -a[0..count), i.e. minus the smallest of a (+inf if empty). */
static double row_max_negated(const double *a, size_t count)
{
    double m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY;
    size_t t = 0;
    for (; t + 4 <= count; t += 4) {
        m0 = -a[t] > m0 ? -a[t] : m0;
        m1 = -a[t + 1] > m1 ? -a[t + 1] : m1;
        m2 = -a[t + 2] > m2 ? -a[t + 2] : m2;
        m3 = -a[t + 3] > m3 ? -a[t + 3] : m3;
    }
    for (; t < count; t++) m0 = -a[t] > m0 ? -a[t] : m0;
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    return m2 > m0 ? m2 : m0;
}

/* One pass over the candidates of level sel->l, chunk by chunk:
 *   SCAN_MAX: row maxima (rowmax) and each chunk's lowest score (chunk_lo);
 *   SCAN_HIST: per-chunk counts of digit (key >> shift) of the scores whose
 *     higher digits equal those of prefix;
 *   SCAN_COLLECT: the scores whose key >> shift equals prefix >> shift, with
 *     their ids, into the pool at chunk_pos (advanced);
 *   SCAN_COLLECT_ALL: every score so. */
static void scan_rows(const skit_attention_plan *plan, mra_impl *im, const mra_sel *sel,
                      int mode, unsigned shift, uint64_t prefix, int parallel)
{
    mra_level *lv = &im->lv[sel->l];
    size_t rows = lv->rows, nch = im->nchunks;
    unsigned high = shift + MRA_DIGIT_BITS; /* digits above this one are fixed */
    int lo_needed = has_priors(plan); /* for the bonus */
    long nchl = (long)nch;
#pragma omp parallel for schedule(static) num_threads(plan->threads) if (parallel)
    for (long cl = 0; cl < nchl; cl++) {
        size_t c = (size_t)cl;
        double *sc = im->row_work + (size_t)attn_thread_id() * 2 * im->rows_max;
        uint32_t *h = im->hist + c * MRA_BUCKETS;
        double lo = 0.0;
        if (mode & SCAN_HIST) memset(h, 0, MRA_BUCKETS * sizeof *h);
        for (size_t x = c * rows / nch; x < (c + 1) * rows / nch; x++) {
            mra_row w = row_of(im, sel->l, x);
            if (mode & SCAN_MAX) lv->rowmax[x] = row_max(lv->logit + w.base, w.count);
            row_scores(plan, im, sel, x, &w, sc);
            if ((mode & SCAN_MAX) && lo_needed) {
                double m = -row_max_negated(sc, w.count);
                lo = m < lo ? m : lo;
            }
            if ((mode & SCAN_HIST) && high >= 64) {
                for (size_t t = 0; t < w.count; t++) h[order_key(sc[t]) >> shift]++;
            } else if (mode & SCAN_HIST) {
                for (size_t t = 0; t < w.count; t++) {
                    uint64_t key = order_key(sc[t]);
                    if (key >> high == prefix >> high) h[(key >> shift) & (MRA_BUCKETS - 1)]++;
                }
            }
            if (mode & (SCAN_COLLECT | SCAN_COLLECT_ALL)) {
                uint64_t want = prefix >> shift;
                for (size_t t = 0; t < w.count; t++)
                    if ((mode & SCAN_COLLECT_ALL) || order_key(sc[t]) >> shift == want) {
                        size_t slot = im->chunk_pos[c]++;
                        im->pool_score[slot] = sc[t];
                        im->pool_id[slot] = (uint32_t)(w.base + t);
                    }
            }
        }
        im->chunk_lo[c] = lo;
    }
}

/* The pool holds, chunk after chunk (chunk c's part ending at chunk_pos[c]),
 * in id order, the candidates that compete for the last need places;
 * chunk_sel already counts those above them. Sets sel->thr, sel->cut and
 * completes chunk_sel. */
static void resolve_pool(mra_impl *im, mra_sel *sel, size_t need, size_t total)
{
    memcpy(im->pool_tmp, im->pool_score, total * sizeof(double));
    double thr = attn_kth_largest(im->pool_tmp, total, need - 1);
    size_t ties = need;
    for (size_t i = 0; i < total; i++) ties -= im->pool_score[i] > thr;
    sel->thr = thr;
    sel->cut = 0;
    for (size_t c = 0, i = 0; c < im->nchunks; c++)
        for (; i < im->chunk_pos[c]; i++) {
            double v = im->pool_score[i];
            if (v > thr || (v == thr && ties && ties--)) {
                im->chunk_sel[c]++;
                if (v == thr) sel->cut = (size_t)im->pool_id[i] + 1;
            }
        }
}

/* The global budget: the M best of the N scores by (score desc, id asc).
 * Sets sel->thr, sel->cut and chunk_sel (the squares each chunk refines).
 * When the pool can hold all N they are collected at once; otherwise the
 * digit histogram of the full keys is already in hist. */
static void select_global(const skit_attention_plan *plan, mra_impl *im, mra_sel *sel, size_t M,
                          size_t N, int parallel)
{
    size_t nch = im->nchunks, need = M, rows = im->lv[sel->l].rows;
    unsigned shift = 64 - MRA_DIGIT_BITS;
    uint64_t prefix = 0;
    for (size_t c = 0; c < nch; c++) im->chunk_sel[c] = 0;
    if (N <= im->pool_cap) {
        for (size_t c = 0, pos = 0; c < nch; c++) {
            im->chunk_pos[c] = pos;
            for (size_t x = c * rows / nch; x < (c + 1) * rows / nch; x++)
                pos += row_of(im, sel->l, x).count;
        }
        scan_rows(plan, im, sel, SCAN_COLLECT_ALL, 0, 0, parallel);
        resolve_pool(im, sel, need, N);
        return;
    }
    for (;;) {
        /* the bucket holding the need-th largest key; everything above it
         * is refined */
        size_t above = 0, b = 0, in_b = 0;
        for (size_t bb = MRA_BUCKETS; bb-- > 0;) {
            size_t h = 0;
            for (size_t c = 0; c < nch; c++) h += im->hist[c * MRA_BUCKETS + bb];
            if (above + h >= need) {
                b = bb;
                in_b = h;
                break;
            }
            above += h;
        }
        for (size_t c = 0; c < nch; c++)
            for (size_t bb = b + 1; bb < MRA_BUCKETS; bb++)
                im->chunk_sel[c] += im->hist[c * MRA_BUCKETS + bb];
        need -= above;
        prefix |= (uint64_t)b << shift;
        if (in_b <= im->pool_cap) { /* the bucket's scores, in id order */
            for (size_t c = 0, pos = 0; c < nch; c++) {
                im->chunk_pos[c] = pos;
                pos += im->hist[c * MRA_BUCKETS + b];
            }
            scan_rows(plan, im, sel, SCAN_COLLECT, shift, prefix, parallel);
            resolve_pool(im, sel, need, in_b);
            return;
        }
        if (shift == 0) break;
        shift -= MRA_DIGIT_BITS;
        scan_rows(plan, im, sel, SCAN_HIST, shift, prefix, parallel);
    }
    /* more than pool_cap squares share the threshold's value: the first
     * need of them in id order, found chunk by chunk */
    size_t b = prefix & (MRA_BUCKETS - 1);
    double *sc = im->row_work;
    sel->thr = key_value(prefix);
    for (size_t c = 0; c < nch && need; c++) {
        size_t ties = im->hist[c * MRA_BUCKETS + b];
        if (ties < need) {
            im->chunk_sel[c] += ties;
            need -= ties;
            continue;
        }
        im->chunk_sel[c] += need;
        for (size_t x = c * rows / nch; need; x++) {
            mra_row w = row_of(im, sel->l, x);
            row_scores(plan, im, sel, x, &w, sc);
            for (size_t t = 0; t < w.count && need; t++)
                if (sc[t] == sel->thr && !--need) sel->cut = w.base + t + 1;
        }
    }
}

/* Row x's own budget (per-row selection): its M best by (score desc, id
 * asc) as a threshold and a cut in local positions. */
static void select_row(const double *sc, size_t count, size_t M, double *tmp, double *thr,
                       size_t *cut)
{
    if (M >= count) {
        *thr = -INFINITY;
        *cut = count;
        return;
    }
    memcpy(tmp, sc, count * sizeof(double));
    *thr = attn_kth_largest(tmp, count, M - 1);
    size_t ties = M;
    for (size_t t = 0; t < count; t++) ties -= sc[t] > *thr;
    *cut = 0;
    for (size_t t = 0; t < count && ties; t++)
        if (sc[t] == *thr && !--ties) *cut = t + 1;
}

static inline int is_refined(double sc, double thr, size_t t, size_t cut)
{
    return sc > thr || (sc == thr && t < cut);
}

/* Row x's refined squares into the CSR from pos on, and (contributes) the
 * contribution of its unrefined squares (l <= L-2): shift m = their
 * largest logit, den = sum cnt_y exp(logit - m - bias); at level 0 the
 * weights replace the logits (num by one GEMM afterwards), at l >= 1 num
 * is summed here. u: count scratch. Returns the next free CSR position. */
static size_t fill_row(const skit_attention_plan *plan, const mra_impl *im, size_t l, size_t x,
                       const mra_row *w, const double *sc, double thr, size_t cut, size_t pos,
                       int contributes, double *u)
{
    const mra_level *lv = &im->lv[l];
    size_t rows = lv->rows, dv = plan->dv;
    double *lg = lv->logit + w->base;
    for (size_t t = 0; t < w->count; t++)
        if (is_refined(sc[t], thr, t, cut)) {
            lv->cols[pos] = (uint32_t)row_key(im, l, w, t);
            lv->prow[pos++] = (uint32_t)x;
        }
    if (!contributes) return pos;
    /* the unrefined logits (refined ones as -inf) into u, their maximum */
    for (size_t t = 0; t < w->count; t++) u[t] = is_refined(sc[t], thr, t, cut) ? -INFINITY : lg[t];
    double mx = row_max(u, w->count), sum = 0.0, shift = mx + plan->o.shift_bias;
    if (l == 0) {
        for (size_t y = 0; y < w->count; y++) {
            double e = u[y] == -INFINITY ? 0.0 : lv->cnt[y] * exp(u[y] - shift);
            lg[y] = e;
            sum += e;
        }
    } else {
        for (size_t c = 0; c < dv; c++) lv->num[x + c * rows] = 0.0;
        if (mx != -INFINITY)
            for (size_t t = 0; t < w->count; t++) {
                if (u[t] == -INFINITY) continue;
                size_t y = row_key(im, l, w, t);
                double e = lv->cnt[y] * exp(u[t] - shift);
                sum += e;
                for (size_t c = 0; c < dv; c++) lv->num[x + c * rows] += e * lv->vm[y + c * rows];
            }
    }
    lv->m[x] = mx;
    lv->den[x] = sum;
    return pos;
}

/* Algorithm 1 at level l: score = logit - row max (+ priors), keep the best
 * blocks_per_row per row or rows x blocks_per_row overall; writes the CSR of
 * refined squares and, when the level contributes (MRA-2's execute, not a
 * selection alone), its unrefined part. */
static void select_level(const skit_attention_plan *plan, mra_impl *im, size_t l, int contributes)
{
    mra_level *lv = &im->lv[l];
    size_t rows = lv->rows, N = level_candidates(im, l), nch = im->nchunks;
    size_t per_row = plan->o.blocks_per_row[l];
    int global = plan->o.selection == SKIT_MRA_GLOBAL;
    int parallel = N >= MRA_PARALLEL_CANDIDATES && plan->threads > 1;
    mra_sel sel = {.l = l, .priors = 0, .bonus = 0.0, .thr = -INFINITY, .cut = 0};
    int priors = has_priors(plan);
    /* pass 1: row maxima and the lowest score before the priors (for their
     * bonus); without priors the scores are final, so it also counts the
     * first digit (unless the pool takes all candidates at once) */
    int first_hist = global && !priors && N > im->pool_cap ? SCAN_HIST : 0;
    scan_rows(plan, im, &sel, SCAN_MAX | first_hist, 64 - MRA_DIGIT_BITS, 0, parallel);
    sel.priors = priors;
    double lo = 0.0;
    for (size_t c = 0; c < nch; c++)
        if (im->chunk_lo[c] < lo) lo = im->chunk_lo[c];
    sel.bonus = 1.0 - lo;
    if (global) {
        if (!first_hist && N > im->pool_cap)
            scan_rows(plan, im, &sel, SCAN_HIST, 64 - MRA_DIGIT_BITS, 0, parallel);
        select_global(plan, im, &sel, SKIT_MIN(N, rows * per_row), N, parallel);
        size_t pos = 0;
        for (size_t c = 0; c < nch; c++) {
            im->chunk_pos[c] = pos;
            pos += im->chunk_sel[c];
        }
        lv->row_ptr[rows] = pos;
    } else {
        size_t pos = 0;
        for (size_t x = 0; x < rows; x++) {
            lv->row_ptr[x] = pos;
            pos += SKIT_MIN(row_of(im, l, x).count, per_row);
        }
        lv->row_ptr[rows] = pos;
    }
    /* pass 2: the CSR and the contribution, row by row */
    long nchl = (long)nch;
#pragma omp parallel for schedule(static) num_threads(plan->threads) if (parallel)
    for (long cl = 0; cl < nchl; cl++) {
        size_t c = (size_t)cl;
        double *sc = im->row_work + (size_t)attn_thread_id() * 2 * im->rows_max;
        for (size_t x = c * rows / nch; x < (c + 1) * rows / nch; x++) {
            mra_row w = row_of(im, l, x);
            row_scores(plan, im, &sel, x, &w, sc);
            double thr = sel.thr;
            size_t cut, pos;
            if (global) {
                cut = sel.cut > w.base ? SKIT_MIN(sel.cut - w.base, w.count) : 0;
                pos = im->chunk_pos[c];
                lv->row_ptr[x] = pos;
            } else {
                select_row(sc, w.count, per_row, sc + im->rows_max, &thr, &cut);
                pos = lv->row_ptr[x];
            }
            pos = fill_row(plan, im, l, x, &w, sc, thr, cut, pos, contributes, sc + im->rows_max);
            if (global) im->chunk_pos[c] = pos;
        }
    }
    lv->nrefined = lv->row_ptr[rows];
    if (l == 0 && contributes)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)rows, (int)plan->dv, (int)rows,
                    1.0, lv->logit, (int)rows, lv->vm, (int)rows, 0.0, lv->num, (int)rows);
}

/* Logits of the children of level l-1's refined squares (1 <= l <= L-2),
 * in the row-major layout of row_of: one GEMM per parent writes its
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
                if (lv->cnt[X * r + a] == 0.0 || lv->cnt[Y * r + c] == 0.0 ||
                    (plan->o.causal && Y * r + c > X * r + a))
                    T[c + a * ld] = -INFINITY;
    }
}

/* ---- the finest level ------------------------------------------------------ */

/* Output tokens of fine rows x0 .. x0+t-1 (Algorithm 2's merge): one
 * shift per token over the levels, then divide; fine holds the finest
 * level's numerators of these rows (ld t). The tokens lie in one square
 * row of every coarser level (s_{L-2} divides them all). W: L t s_f
 * scratch. */
static void merge_tile(const skit_attention_plan *plan, const mra_impl *im, size_t x0, size_t t,
                       const double *fine, const unsigned char *mask, double *y, size_t ldy,
                       double *W)
{
    size_t L = im->L, first = im->sparse ? L - 1 : 0;
    const mra_level *fin = &im->lv[L - 1];
    size_t sf = fin->s, nt = t * sf, i0 = x0 * sf;
    for (size_t xf = 0; xf < t; xf++)
        for (size_t a = xf * sf; a < xf * sf + sf; a++) {
            double M = -INFINITY, tot = 0.0;
            for (size_t l = first; l < L; l++) {
                const mra_level *lv = &im->lv[l];
                double ml = lv->m[l + 1 < L ? i0 / lv->s : x0 + xf];
                if (ml > M) M = ml;
            }
            for (size_t l = first; l < L; l++) {
                const mra_level *lv = &im->lv[l];
                size_t x = l + 1 < L ? i0 / lv->s : x0 + xf;
                double w = lv->m[x] == -INFINITY ? 0.0 : exp(lv->m[x] - M);
                W[l * nt + a] = w;
                tot += w * lv->den[x];
            }
            int zero = tot == 0.0 || (mask && !mask[i0 + a]);
            for (size_t l = first; l < L; l++) W[l * nt + a] = zero ? 0.0 : W[l * nt + a] / tot;
        }
    /* weighted sum over levels (no per-element division) */
    for (size_t c = 0; c < plan->dv; c++) {
        const double *wf = W + (L - 1) * nt, *fcol = fine + c * t;
        double *ycol = y + i0 + c * ldy;
        for (size_t xf = 0; xf < t; xf++) {
            double val = fcol[xf];
            for (size_t a = xf * sf; a < xf * sf + sf; a++) ycol[a] = wf[a] == 0.0 ? 0.0 : wf[a] * val;
        }
        for (size_t l = first; l + 1 < L; l++) {
            const mra_level *lv = &im->lv[l];
            const double *wl = W + l * nt;
            double val = lv->num[i0 / lv->s + c * lv->rows];
            for (size_t a = 0; a < nt; a++)
                if (wl[a] != 0.0) ycol[a] += wl[a] * val;
        }
    }
}

/* First query tile of chunk c of the finest sweep: chunks hold about equal
 * work, counted as refined squares plus query tiles (each tile also costs
 * its packing and its merge). */
static size_t sweep_chunk_start(const mra_level *par, size_t c, size_t nch)
{
    size_t rows = par->rows, total = par->row_ptr[rows] + rows;
    if (c >= nch) return rows;
    size_t target = c * total / nch, lo = 0, hi = rows;
    while (lo < hi) { /* first X with row_ptr[X] + X >= target */
        size_t mid = lo + (hi - lo) / 2;
        if (par->row_ptr[mid] + mid < target) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The online-softmax sweep over the refined squares of level L-2, in the
 * order of attn_sweep_run for every query tile (its key tiles ascending,
 * so the sums are the same), but run key tile by key tile within each
 * chunk of query tiles: under a global budget a few query tiles hold
 * hundreds of key tiles each, and visiting them row by row streams K and V
 * from memory once per such row, while key-major order reads each packed
 * key tile once per chunk and keeps the busy rows' state in cache. A
 * query tile's output rows are merged as soon as its last key tile is in
 * (the coarse levels are complete by then). */
static void fine_sweep(const skit_attention_plan *plan, const attn_sweep *s, const mra_impl *im,
                       const unsigned char *mask, double *y, size_t ldy)
{
    const mra_level *par = &im->lv[im->L - 2];
    size_t t = s->t, d = s->d, dv = s->dv, tiles = par->rows, nt = tiles * t;
    double *qs = im->sweep_work, *acc = qs + nt * d, *ls = acc + nt * dv, *thread_base = ls + nt;
    const size_t *row_ptr = par->row_ptr;
    const uint32_t *cols = par->cols;
    int threads = s->threads > 0 && s->parallel ? s->threads : 1;
    size_t nch = (size_t)threads;
    long nchl = (long)nch;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long cl = 0; cl < nchl; cl++) {
        size_t c = (size_t)cl, id = (size_t)attn_thread_id();
        double *base = thread_base + id * im->sweep_per, *W = im->merge_w + id * im->merge_per;
        size_t X0 = sweep_chunk_start(par, c, nch), X1 = sweep_chunk_start(par, c + 1, nch);
        size_t p0 = row_ptr[X0], count = row_ptr[X1] - p0;
        /* counting sort of the chunk's squares by key tile; each bucket
         * lists its query tiles ascending */
        size_t *end = im->sweep_count + id * (tiles + 1);
        uint32_t *order = im->sweep_order + p0;
        memset(end, 0, (tiles + 1) * sizeof *end);
        for (size_t p = p0; p < p0 + count; p++) end[cols[p] + 1]++;
        for (size_t Y = 0; Y < tiles; Y++) end[Y + 1] += end[Y];
        for (size_t X = X0; X < X1; X++) {
            for (size_t p = row_ptr[X]; p < row_ptr[X + 1]; p++) order[end[cols[p]]++] = (uint32_t)X;
            if (row_ptr[X] == row_ptr[X + 1]) { /* no square: empty rows */
                for (size_t a = 0; a < t; a++) {
                    s->m[X * t + a] = -INFINITY;
                    s->den[X * t + a] = 0.0;
                }
                memset(acc + X0 * t * dv, 0, t * dv * sizeof(double)); /* a free slot */
                merge_tile(plan, im, X * t, t, acc + X0 * t * dv, mask, y, ldy, W);
            }
        }
        /* each key tile is packed by the thread that needs it, once; a
         * query tile's packed rows and accumulators live in a slot from
         * its first key tile to its last, and freed slots are reused first
         * (most query tiles have one or two key tiles, so their state
         * stays in cache) */
        attn_sweep_state w = {.T = base, .rowmax = base + t * t};
        w.dsum = w.rowmax + t;
        w.lsum = w.dsum + t;
        double *kt = w.lsum + t, *vt = kt + t * d;
        uint32_t *slot_of = im->sweep_slots, *free_slots = slot_of + tiles;
        size_t nfree = 0;
        for (size_t X = X1; X-- > X0;) free_slots[X0 + nfree++] = (uint32_t)X;
        for (size_t Y = 0, i = 0; Y < tiles; Y++) {
            if (i < end[Y]) {
                attn_pack_rows(s->k, s->ldk, Y * t, t, d, t, kt);
                attn_pack_rows(s->v, s->ldv, Y * t, t, dv, t, vt);
            }
            for (; i < end[Y]; i++) {
                size_t X = order[i], i0 = X * t;
                int first = Y == cols[row_ptr[X]]; /* the query tile's first square */
                if (first) slot_of[X] = free_slots[X0 + --nfree];
                size_t slot = slot_of[X];
                w.m = s->m + i0;
                w.den = s->den + i0;
                w.ls = ls + slot * t;
                w.qt = qs + slot * t * d;
                w.acc = acc + slot * t * dv;
                if (first) {
                    attn_pack_rows(s->q, s->ldq, i0, t, d, t, w.qt);
                    for (size_t a = 0; a < t; a++) {
                        w.m[a] = -INFINITY;
                        w.den[a] = w.ls[a] = 0.0;
                    }
                    memset(w.acc, 0, t * dv * sizeof(double));
                }
                attn_sweep_tile(s, &w, i0, t, Y, kt, vt);
                if (Y == cols[row_ptr[X + 1] - 1]) { /* its last */
                    merge_tile(plan, im, i0, t, w.acc, mask, y, ldy, W);
                    free_slots[X0 + nfree++] = (uint32_t)slot;
                }
            }
        }
    }
}

static int all_finite(const double *a, size_t count)
{
    int ok = 1;
    for (size_t i = 0; i < count; i++) ok &= isfinite(a[i]) != 0;
    return ok;
}

/* Level 0's logits from its block means: logit[y + x*rows], -inf for an
 * empty block and (causal) the squares after the diagonal, which never
 * contribute nor get refined */
static void level0_logits(const skit_attention_plan *plan, mra_impl *im, const unsigned char *mask)
{
    mra_level *l0 = &im->lv[0];
    const size_t r0 = l0->rows;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)r0, (int)r0, (int)plan->d, plan->scale, l0->km,
                (int)r0, l0->qm, (int)r0, 0.0, l0->logit, (int)r0);
    if (mask)
        for (size_t x = 0; x < r0; x++)
            for (size_t y = 0; y < r0; y++)
                if (l0->cnt[x] == 0.0 || l0->cnt[y] == 0.0) l0->logit[y + x * r0] = -INFINITY;
    if (plan->o.causal)
        for (size_t x = 0; x < r0; x++)
            for (size_t y = x + 1; y < r0; y++) l0->logit[y + x * r0] = -INFINITY;
}

static int mra_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                       const double *k, size_t ldk, const double *v, size_t ldv,
                       const unsigned char *mask, double *y, size_t ldy,
                       skit_attention_stats *stats)
{
    mra_impl *im = plan->impl;
    size_t n = plan->n, d = plan->d, dv = plan->dv, L = im->L;
    mra_level *fin = &im->lv[L - 1];

    /* 1. block means and valid counts of every level with s > 1; they
     * double as the NaN/Inf check of Q, K, V (checks_inputs): without a
     * mask a non-finite entry makes its level-0 block mean non-finite, and
     * only then (or when finite sums overflow) are the inputs scanned, for
     * the usual error; masked tokens are not in the means, so with a mask
     * the inputs are scanned first */
    if (mask) {
        SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
        SKIT_TRY(attn_check_v(n, dv, v, ldv));
    }
    for (size_t l = 0; l < L; l++) {
        mra_level *lv = &im->lv[l];
        if (lv->s == 1) continue;
        attn_block_means(n, d, q, ldq, lv->s, mask, 0, lv->qm, lv->cnt);
        attn_block_means(n, d, k, ldk, lv->s, mask, 0, lv->km, NULL);
        attn_block_means(n, dv, v, ldv, lv->s, mask, 0, lv->vm, NULL);
    }
    mra_level *l0 = &im->lv[0];
    size_t r0 = l0->rows;
    if (!mask && !(all_finite(l0->qm, r0 * d) && all_finite(l0->km, r0 * d) &&
                   all_finite(l0->vm, r0 * dv))) {
        SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
        SKIT_TRY(attn_check_v(n, dv, v, ldv));
    }
    if (mask)
        for (size_t i = 0; i < n; i++) im->mask_w[i] = mask[i] ? 1.0 : 0.0;

    /* 2. level 0: every square, one GEMM */
    level0_logits(plan, im, mask);

    /* 3. Algorithm 1: refine level by level; the unrefined squares'
     * contributions (MRA-2) come out of the same passes */
    for (size_t l = 0; l + 1 < L; l++) {
        select_level(plan, im, l, !im->sparse);
        if (l + 2 < L) children_logits(plan, im, l + 1);
    }

    /* 4. the finest level: tiled sweep over the refined squares above it,
     * and the merge of all levels */
    int fine_s1 = fin->s == 1;
    attn_sweep s = {.n = fin->rows, .d = d, .dv = dv, .t = fin->r,
                    .q = fine_s1 ? q : fin->qm, .k = fine_s1 ? k : fin->km,
                    .v = fine_s1 ? v : fin->vm, .ldq = fine_s1 ? ldq : fin->rows,
                    .ldk = fine_s1 ? ldk : fin->rows, .ldv = fine_s1 ? ldv : fin->rows,
                    .scale = plan->scale, .bias = plan->o.shift_bias,
                    .key_weight = fine_s1 ? (mask ? im->mask_w : NULL) : fin->cnt, .band = -1,
                    .causal = plan->o.causal,
                    .m = fin->m, .den = fin->den, .threads = plan->threads,
                    .parallel = im->sweep_parallel};
    fine_sweep(plan, &s, im, mask, y, ldy);

    /* 5. statistics */
    skit_attention_stats *st = stats;
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

/* ---- the selection alone, and MRA-2's backward ------------------------------ */

/* Level 0's squares as mra_execute refines them: the same means, logits
 * and selection passes (inputs checked by the caller) */
static int mra_select(const skit_attention_plan *plan, const void *qv, size_t ldq, const void *kv, size_t ldk,
                      const unsigned char *mask, unsigned char *refined)
{
    mra_impl *im = plan->impl;
    mra_level *l0 = &im->lv[0];
    const size_t n = plan->n, d = plan->d, rows = l0->rows;
    attn_block_means(n, d, qv, ldq, l0->s, mask, 0, l0->qm, l0->cnt);
    attn_block_means(n, d, kv, ldk, l0->s, mask, 0, l0->km, NULL);
    level0_logits(plan, im, mask);
    select_level(plan, im, 0, 0);
    memset(refined, 0, rows * rows);
    for (size_t p = 0; p < l0->nrefined; p++) refined[l0->prow[p] + (size_t)l0->cols[p] * rows] = 1;
    return SKIT_OK;
}

/* MRA-2 (two levels {block, 1}) with the refined squares held fixed */
static int mra_backward(const skit_attention_plan *plan, const attn_backward_call *c)
{
    const mra_impl *im = plan->impl;
    const attn_mra2_backward_args a = {plan->n, plan->d, plan->dv, im->lv[0].s, plan->o.causal, plan->scale,
                                       c->q, c->k, c->v, c->dy, c->ldq, c->ldk, c->ldv, c->lddy, c->refined,
                                       c->dq, c->dk, c->dv, c->lddq, c->lddk, c->lddv, im->sparse};
    return attn_mra2_backward(&a, im->sweep_work);
}

/* ---- create -------------------------------------------------------------- */

#define ALLOC(ptr, count, type)                                                  \
    do {                                                                         \
        size_t alloc_count_ = (count);                                           \
        (ptr) = attn_plan_alloc(p, alloc_count_ ? alloc_count_ : 1, sizeof(type)); \
        if (!(ptr)) return p->alloc_status;                                      \
    } while (0)

int attn_mra_levels(const skit_attention_options *o, size_t n, size_t scales[SKIT_MRA_MAX_LEVELS],
                    size_t *levels)
{
    size_t L;
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
    *levels = L;
    return SKIT_OK;
}

int attn_mra_create(skit_attention_plan *p)
{
    const skit_attention_options *o = &p->o;
    size_t n = p->n, d = p->d, dv = p->dv;
    size_t L, scales[SKIT_MRA_MAX_LEVELS];
    SKIT_TRY(attn_mra_levels(o, n, scales, &L));
    if (o->causal && scales[L - 1] != 1)
        return SKIT_ERROR(SKIT_EDOM,
                          "scales: causal MRA needs the finest scale 1 (got %zu): coarser finest "
                          "squares on the diagonal would average keys after their queries",
                          scales[L - 1]);

    mra_impl *im;
    ALLOC(im, 1, mra_impl);
    memset(im, 0, sizeof *im);
    im->L = L;
    im->sparse = o->method == SKIT_ATTENTION_MRA2_SPARSE;
    for (size_t l = 0; l < L; l++) {
        mra_level *lv = &im->lv[l];
        lv->s = scales[l];
        lv->rows = n / scales[l];
        lv->r = l ? scales[l - 1] / scales[l] : 0;
        if (l + 1 < L && lv->rows > im->rows_max) im->rows_max = lv->rows;
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
        }
    }
    size_t pool_cap = 0;
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
            if (l + 1 < L) ALLOC(lv->num, rows * dv, double);
        }
        if (l + 1 < L) {
            ALLOC(lv->logit, lv->cand_cap, double);
            ALLOC(lv->rowmax, rows, double);
            ALLOC(lv->row_ptr, rows + 1, size_t);
            ALLOC(lv->cols, lv->ref_cap, uint32_t);
            ALLOC(lv->prow, lv->ref_cap, uint32_t);
            if (lv->ref_cap > pool_cap) pool_cap = lv->ref_cap;
        }
        if (l >= 1 && l + 1 < L)
            im->children_parallel[l] =
                (double)lv->r * (double)lv->r * (double)d <= ATTN_GEMM_SERIAL_LIMIT;
    }
    size_t per_thread;
    if (skit_size_mul(im->rows_max, 2 * (size_t)p->threads, &per_thread))
        return SKIT_ERROR(SKIT_EOVERFLOW, "MRA row scratch overflows size_t");
    ALLOC(im->row_work, per_thread, double);
    /* at least two chunks, so that the bookkeeping across chunks is the
     * same with one thread */
    im->nchunks = p->threads < 2 ? 2 : (size_t)p->threads;
    ALLOC(im->hist, im->nchunks * MRA_BUCKETS, uint32_t);
    ALLOC(im->chunk_sel, 2 * im->nchunks, size_t);
    im->chunk_pos = im->chunk_sel + im->nchunks;
    ALLOC(im->chunk_lo, im->nchunks, double);
    /* the threshold's bucket is collected when it holds at most twice the
     * largest budget (else one more digit narrows it) */
    if (skit_size_mul(pool_cap, 2, &im->pool_cap))
        return SKIT_ERROR(SKIT_EOVERFLOW, "MRA selection pool overflows size_t");
    ALLOC(im->pool_score, 2 * im->pool_cap, double);
    im->pool_tmp = im->pool_score + im->pool_cap;
    ALLOC(im->pool_id, im->pool_cap, uint32_t);
    /* finest sweep: packed Q and accumulators (n_f (d + dv)), lsum (n_f),
     * per thread a t x t tile, 3 t rows and a K and a V tile; key tile
     * counters */
    size_t t = im->lv[L - 1].r, nf = im->lv[L - 1].rows, tiles = im->lv[L - 2].rows, work, per;
    if (skit_size_mul(nf, d + dv + 1, &work) || skit_size_mul(t, t + 3 + d + dv, &im->sweep_per) ||
        skit_size_mul(im->sweep_per, (size_t)p->threads, &per) || skit_size_add(work, per, &work) ||
        skit_size_mul(tiles + 1, (size_t)p->threads, &per))
        return SKIT_ERROR(SKIT_EOVERFLOW, "MRA sweep scratch overflows size_t");
    /* MRA-2 and -2-s of two levels {block, 1} have a backward, run on the
     * sweep's scratch (one call at a time uses it) */
    const int has_backward = L == 2 && scales[1] == 1;
    if (has_backward) {
        work = SKIT_MAX(work, skit_mra2_backward_workspace(n, d, dv, scales[0]));
        ALLOC(p->refined, im->lv[0].rows * im->lv[0].rows, unsigned char);
    }
    ALLOC(im->sweep_work, work, double);
    ALLOC(im->sweep_count, per, size_t);
    ALLOC(im->sweep_order, im->lv[L - 2].ref_cap, uint32_t);
    ALLOC(im->sweep_slots, 2 * tiles, uint32_t);
    im->sweep_parallel =
        (double)t * (double)t * (double)SKIT_MAX(d, dv) <= ATTN_GEMM_SERIAL_LIMIT;
    ALLOC(im->mask_w, n, double);
    im->merge_per = L * scales[L - 2];
    ALLOC(im->merge_w, im->merge_per * (size_t)p->threads, double);
    p->impl = im;
    p->execute = mra_execute;
    p->select = mra_select;
    if (has_backward) p->backward = mra_backward;
    else p->no_backward = "levels: the mra2 backward runs two levels R = {block, 1}";
    p->checks_inputs = 1;
    return SKIT_OK;
}
