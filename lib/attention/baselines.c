/* baselines.c — the comparison methods of the MRA paper behind the plan
 * interface: best-possible low rank (truncated SVD) and sparse (top-k
 * entries) references on the explicit softmax matrix, Nyströmformer,
 * Linformer (seeded projections, or F fitted to the head) and Performer
 * (FAVOR+); and the Figure 7 budget search. */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention_internal.h"

#define ALLOC(ptr, count, type)                                                  \
    do {                                                                         \
        size_t alloc_count_ = (count);                                           \
        (ptr) = attn_plan_alloc(p, alloc_count_ ? alloc_count_ : 1, sizeof(type)); \
        if (!(ptr)) return p->alloc_status;                                      \
    } while (0)

static void zero_masked_rows(size_t n, size_t dv, const unsigned char *mask, double *y,
                             size_t ldy)
{
    if (!mask) return;
    for (size_t c = 0; c < dv; c++)
        for (size_t i = 0; i < n; i++)
            if (!mask[i]) y[i + c * ldy] = 0.0;
}

static void set_stats(const skit_attention_plan *plan, skit_attention_stats *stats, double entries)
{
    memset(stats, 0, sizeof *stats);
    stats->entries = entries;
    stats->work_fraction = entries / ((double)plan->n * (double)plan->n);
}

static int check_square_size(size_t n, const char *method)
{
    if (n > 65535)
        return SKIT_ERROR(SKIT_ETOOBIG,
                          "n = %zu too large for %s: it forms the n x n matrix (need n < 65536)", n,
                          method);
    return SKIT_OK;
}

/* ---- low rank: truncated SVD of S ----------------------------------------- */

typedef struct lowrank_impl {
    double *s, *u, *vt, *sv, *w, *work, *scratch;
    lapack_int *iwork;
    lapack_int lwork;
} lowrank_impl;

/* Workspace size of dgesdd (jobz 'S') for an n x n matrix; < 0 on failure. */
static lapack_int gesdd_lwork(size_t n)
{
    double query = 0;
    lapack_int nn = (lapack_int)n;
    lapack_int info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', nn, nn, NULL, nn, NULL, NULL, nn,
                                          NULL, nn, &query, -1, NULL);
    if (info != 0) return -1;
    return (lapack_int)query + 1;
}

static int lowrank_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                           const double *k, size_t ldk, const double *v, size_t ldv,
                           const unsigned char *mask, double *y, size_t ldy,
                           skit_attention_stats *stats)
{
    const lowrank_impl *im = plan->impl;
    size_t n = plan->n, dv = plan->dv, r = plan->o.rank;
    attn_softmax_matrix(n, plan->d, q, ldq, k, ldk, plan->scale, mask, plan->o.causal, im->s, n,
                        im->scratch);
    lapack_int nn = (lapack_int)n;
    lapack_int info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', nn, nn, im->s, nn, im->sv, im->u,
                                          nn, im->vt, nn, im->work, im->lwork, im->iwork);
    if (info != 0)
        return SKIT_ERROR(SKIT_ELIBRARY, "SVD of the %zu x %zu attention matrix failed (info = %d)",
                          n, n, (int)info);
    /* Y = U_r (Sigma_r (V_r^T V)) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)dv, (int)n, 1.0, im->vt,
                (int)n, v, (int)ldv, 0.0, im->w, (int)r);
    for (size_t c = 0; c < dv; c++)
        for (size_t t = 0; t < r; t++) im->w[t + c * r] *= im->sv[t];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dv, (int)r, 1.0, im->u,
                (int)n, im->w, (int)r, 0.0, y, (int)ldy);
    zero_masked_rows(n, dv, mask, y, ldy);
    set_stats(plan, stats, (double)n * (double)n);
    return SKIT_OK;
}

int attn_lowrank_create(skit_attention_plan *p)
{
    size_t n = p->n;
    SKIT_TRY(check_square_size(n, "lowrank"));
    if (p->o.rank < 1 || p->o.rank > n)
        return SKIT_ERROR(SKIT_EDOM, "rank = %zu out of range: need 1 <= rank <= n (= %zu)",
                          p->o.rank, n);
    lowrank_impl *im;
    ALLOC(im, 1, lowrank_impl);
    lapack_int lwork = gesdd_lwork(n);
    if (lwork < 0) return SKIT_ERROR(SKIT_ELIBRARY, "LAPACK dgesdd workspace query failed");
    im->lwork = lwork;
    ALLOC(im->s, n * n, double);
    ALLOC(im->u, n * n, double);
    ALLOC(im->vt, n * n, double);
    ALLOC(im->sv, n, double);
    ALLOC(im->w, p->o.rank * p->dv, double);
    ALLOC(im->work, (size_t)lwork, double);
    ALLOC(im->iwork, 8 * n, lapack_int);
    ALLOC(im->scratch, 2 * n, double);
    p->impl = im;
    p->execute = lowrank_execute;
    return SKIT_OK;
}

/* ---- top-k sparse: the largest entries of S -------------------------------- */

typedef struct topk_impl {
    double *s, *kept, *scratch;
    uint32_t *idx;
    size_t keep;
} topk_impl;

static int topk_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                        const double *k, size_t ldk, const double *v, size_t ldv,
                        const unsigned char *mask, double *y, size_t ldy,
                        skit_attention_stats *stats)
{
    const topk_impl *im = plan->impl;
    size_t n = plan->n, nn = n * n;
    attn_softmax_matrix(n, plan->d, q, ldq, k, ldk, plan->scale, mask, plan->o.causal, im->s, n,
                        im->scratch);
    for (size_t t = 0; t < nn; t++) im->idx[t] = (uint32_t)t;
    attn_select_top(im->idx, nn, im->keep, im->s);
    memset(im->kept, 0, nn * sizeof(double));
    for (size_t t = 0; t < im->keep; t++) im->kept[im->idx[t]] = im->s[im->idx[t]];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)plan->dv, (int)n, 1.0,
                im->kept, (int)n, v, (int)ldv, 0.0, y, (int)ldy);
    zero_masked_rows(n, plan->dv, mask, y, ldy);
    set_stats(plan, stats, (double)im->keep);
    return SKIT_OK;
}

int attn_topk_create(skit_attention_plan *p)
{
    size_t n = p->n;
    SKIT_TRY(check_square_size(n, "topk"));
    size_t nn = n * n, keep = p->o.nonzeros;
    if (keep == 0) {
        if (p->o.rank < 1 || p->o.rank > n)
            return SKIT_ERROR(SKIT_EDOM,
                              "rank = %zu out of range for topk with nonzeros = 0: need 1 <= rank "
                              "<= n (= %zu)",
                              p->o.rank, n);
        keep = n * p->o.rank;
    }
    if (keep > nn)
        return SKIT_ERROR(SKIT_EDOM, "nonzeros = %zu out of range: need 1 <= nonzeros <= n^2 (= %zu)",
                          keep, nn);
    topk_impl *im;
    ALLOC(im, 1, topk_impl);
    im->keep = keep;
    ALLOC(im->s, nn, double);
    ALLOC(im->kept, nn, double);
    ALLOC(im->idx, nn, uint32_t);
    ALLOC(im->scratch, 2 * n, double);
    p->impl = im;
    p->execute = topk_execute;
    return SKIT_OK;
}

/* ---- Nyströmformer ------------------------------------------------------- */

typedef struct nystrom_impl {
    size_t m;
    double *qm, *km, *cntk, *f, *a, *b, *bv, *z, *w, *scratch;
    unsigned char *col_ok;
    /* pseudo-inverse: SVD or Newton–Schulz */
    double *acopy, *u, *vt, *sv, *work, *kv, *t1, *t2, *znew;
    lapack_int *iwork;
    lapack_int lwork;
} nystrom_impl;

/* Segment t of m over n tokens: [floor(t n/m), floor((t+1) n/m)). */
static void segment_means(size_t n, size_t d, const double *x, size_t ldx, size_t m,
                          const unsigned char *mask, double *out, double *counts)
{
    for (size_t t = 0; t < m; t++) {
        size_t lo = t * n / m, hi = (t + 1) * n / m, cnt = 0;
        for (size_t i = lo; i < hi; i++) cnt += !mask || mask[i];
        if (counts) counts[t] = (double)cnt;
        for (size_t c = 0; c < d; c++) {
            double sum = 0;
            for (size_t i = lo; i < hi; i++)
                if (!mask || mask[i]) sum += x[i + c * ldx];
            out[t + c * m] = cnt ? sum / (double)cnt : 0.0;
        }
    }
}

static void add_identity(size_t m, double *a, double alpha, double beta)
{
    /* a = alpha I + beta a */
    for (size_t j = 0; j < m; j++)
        for (size_t i = 0; i < m; i++) a[i + j * m] = beta * a[i + j * m] + (i == j ? alpha : 0.0);
}

/* z = pinv(a) (m x m). */
static int nystrom_pinv(const nystrom_impl *im, size_t iterations)
{
    size_t m = im->m;
    if (iterations == 0) {
        memcpy(im->acopy, im->a, m * m * sizeof(double));
        lapack_int mm = (lapack_int)m;
        lapack_int info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', mm, mm, im->acopy, mm, im->sv,
                                              im->u, mm, im->vt, mm, im->work, im->lwork, im->iwork);
        if (info != 0)
            return SKIT_ERROR(SKIT_ELIBRARY, "SVD of the %zu x %zu landmark kernel failed (info = %d)",
                              m, m, (int)info);
        double tol = (double)m * 2.220446049250313e-16 * im->sv[0];
        for (size_t t = 0; t < m; t++) {
            double f = im->sv[t] > tol ? 1.0 / im->sv[t] : 0.0;
            for (size_t i = 0; i < m; i++) im->u[i + t * m] *= f;
        }
        /* pinv = V Sigma^+ U^T = vt^T (u Sigma^+)^T */
        cblas_dgemm(CblasColMajor, CblasTrans, CblasTrans, (int)m, (int)m, (int)m, 1.0, im->vt,
                    (int)m, im->u, (int)m, 0.0, im->z, (int)m);
        return SKIT_OK;
    }
    /* Nyströmformer's iterative inverse: Z0 = A^T / max column sum,
     * Z <- Z (13 I - AZ (15 I - AZ (7 I - AZ))) / 4 */
    double maxcol = 0;
    for (size_t j = 0; j < m; j++) {
        double sum = 0;
        for (size_t i = 0; i < m; i++) sum += fabs(im->a[i + j * m]);
        if (sum > maxcol) maxcol = sum;
    }
    double inv = maxcol > 0 ? 1.0 / maxcol : 0.0;
    for (size_t j = 0; j < m; j++)
        for (size_t i = 0; i < m; i++) im->z[i + j * m] = inv * im->a[j + i * m];
    int mm = (int)m;
    for (size_t it = 0; it < iterations; it++) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, mm, mm, mm, 1.0, im->a, mm, im->z,
                    mm, 0.0, im->kv, mm);
        memcpy(im->t1, im->kv, m * m * sizeof(double));
        add_identity(m, im->t1, 7.0, -1.0);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, mm, mm, mm, 1.0, im->kv, mm, im->t1,
                    mm, 0.0, im->t2, mm);
        add_identity(m, im->t2, 15.0, -1.0);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, mm, mm, mm, 1.0, im->kv, mm, im->t2,
                    mm, 0.0, im->t1, mm);
        add_identity(m, im->t1, 13.0, -1.0);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, mm, mm, mm, 0.25, im->z, mm, im->t1,
                    mm, 0.0, im->znew, mm);
        memcpy(im->z, im->znew, m * m * sizeof(double));
    }
    return SKIT_OK;
}

static int nystrom_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                           const double *k, size_t ldk, const double *v, size_t ldv,
                           const unsigned char *mask, double *y, size_t ldy,
                           skit_attention_stats *stats)
{
    const nystrom_impl *im = plan->impl;
    size_t n = plan->n, d = plan->d, dv = plan->dv, m = im->m;
    double sc = plan->scale;
    segment_means(n, d, q, ldq, m, mask, im->qm, NULL);
    segment_means(n, d, k, ldk, m, mask, im->km, im->cntk);
    for (size_t t = 0; t < m; t++) im->col_ok[t] = im->cntk[t] > 0;
    /* F = softmax(Q Km^T), A = softmax(Qm Km^T), B = softmax(Qm K^T) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)m, (int)d, sc, q, (int)ldq,
                im->km, (int)m, 0.0, im->f, (int)n);
    attn_softmax_rows(n, m, im->f, n, im->col_ok, im->scratch);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)m, (int)d, sc, im->qm,
                (int)m, im->km, (int)m, 0.0, im->a, (int)m);
    attn_softmax_rows(m, m, im->a, m, im->col_ok, im->scratch);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)d, sc, im->qm,
                (int)m, k, (int)ldk, 0.0, im->b, (int)m);
    attn_softmax_rows(m, n, im->b, m, mask, im->scratch);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)dv, (int)n, 1.0, im->b,
                (int)m, v, (int)ldv, 0.0, im->bv, (int)m);
    SKIT_TRY(nystrom_pinv(im, plan->o.pinv_iterations));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)dv, (int)m, 1.0, im->z,
                (int)m, im->bv, (int)m, 0.0, im->w, (int)m);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dv, (int)m, 1.0, im->f,
                (int)n, im->w, (int)m, 0.0, y, (int)ldy);
    zero_masked_rows(n, dv, mask, y, ldy);
    set_stats(plan, stats, 2.0 * (double)n * (double)m + (double)m * (double)m);
    return SKIT_OK;
}

int attn_nystrom_create(skit_attention_plan *p)
{
    size_t n = p->n, d = p->d, dv = p->dv, m = p->o.rank;
    if (m < 1 || m > n)
        return SKIT_ERROR(SKIT_EDOM, "rank = %zu landmarks out of range: need 1 <= rank <= n (= %zu)",
                          m, n);
    if (p->o.pinv_iterations > 100)
        return SKIT_ERROR(SKIT_EDOM, "pinv_iterations = %zu out of range: need <= 100",
                          p->o.pinv_iterations);
    if (m > 65535) return SKIT_ERROR(SKIT_ETOOBIG, "rank = %zu landmarks: need < 65536", m);
    nystrom_impl *im;
    ALLOC(im, 1, nystrom_impl);
    memset(im, 0, sizeof *im);
    im->m = m;
    ALLOC(im->qm, m * d, double);
    ALLOC(im->km, m * d, double);
    ALLOC(im->cntk, m, double);
    ALLOC(im->col_ok, m, unsigned char);
    ALLOC(im->f, n * m, double);
    ALLOC(im->a, m * m, double);
    ALLOC(im->b, m * n, double);
    ALLOC(im->bv, m * dv, double);
    ALLOC(im->z, m * m, double);
    ALLOC(im->w, m * dv, double);
    ALLOC(im->scratch, 2 * SKIT_MAX(n, m), double);
    if (p->o.pinv_iterations == 0) {
        lapack_int lwork = gesdd_lwork(m);
        if (lwork < 0) return SKIT_ERROR(SKIT_ELIBRARY, "LAPACK dgesdd workspace query failed");
        im->lwork = lwork;
        ALLOC(im->acopy, m * m, double);
        ALLOC(im->u, m * m, double);
        ALLOC(im->vt, m * m, double);
        ALLOC(im->sv, m, double);
        ALLOC(im->work, (size_t)lwork, double);
        ALLOC(im->iwork, 8 * m, lapack_int);
    } else {
        ALLOC(im->kv, m * m, double);
        ALLOC(im->t1, m * m, double);
        ALLOC(im->t2, m * m, double);
        ALLOC(im->znew, m * m, double);
    }
    p->impl = im;
    p->execute = nystrom_execute;
    return SKIT_OK;
}

/* ---- Linformer ------------------------------------------------------------ */

/* linformer-fit's F, shared by the plan and the copies concurrent
 * executes make (the fit is the head's, not a copy's) */
typedef struct linformer_fitted {
    int fitted;
    double *f; /* k x n, ld k */
} linformer_fitted;

typedef struct linformer_impl {
    size_t kp;
    double *e, *f, *em, *fm, *kproj, *vproj, *logits, *cnt, *scratch;
    unsigned char *col_ok;
    linformer_fitted *fit; /* linformer-fit only */
} linformer_impl;

/* Singular values of P below this fraction of the largest count as 0 in
 * the fit: F's entries stay bounded (about 1e10 / sigma_max), so that
 * execute's P (F V) loses at most ~1e-6 of ||V|| to rounding. */
#define LINFORMER_FIT_RCOND 1e-10

/* E and F for this call's padding mask: the segment means over the valid
 * tokens (E = F; *col_ok marks the segments with one), or the seeded
 * Gaussian ones with the masked tokens' columns 0 (*col_ok NULL). */
static void linformer_projections(const skit_attention_plan *plan, const unsigned char *mask,
                                  const double **e, const double **f,
                                  const unsigned char **col_ok)
{
    const linformer_impl *im = plan->impl;
    size_t n = plan->n, kp = im->kp;
    *e = im->e;
    *f = im->f;
    *col_ok = NULL;
    if (plan->o.linformer_projection == SKIT_LINFORMER_POOLING) {
        memset(im->em, 0, kp * n * sizeof(double));
        for (size_t t = 0; t < kp; t++) {
            size_t lo = t * n / kp, hi = (t + 1) * n / kp, cnt = 0;
            for (size_t i = lo; i < hi; i++) cnt += !mask || mask[i];
            im->col_ok[t] = cnt > 0;
            for (size_t i = lo; i < hi; i++)
                if (!mask || mask[i]) im->em[t + i * kp] = 1.0 / (double)cnt;
        }
        *e = *f = im->em;
        *col_ok = im->col_ok;
    } else if (mask) {
        for (size_t i = 0; i < n; i++)
            for (size_t t = 0; t < kp; t++) {
                im->em[t + i * kp] = mask[i] ? im->e[t + i * kp] : 0.0;
                im->fm[t + i * kp] = mask[i] ? im->f[t + i * kp] : 0.0;
            }
        *e = im->em;
        *f = im->fm;
    }
}

/* P = softmax(scale Q (E K)^T) (n x k) into im->logits. */
static void linformer_weights(const skit_attention_plan *plan, const double *q, size_t ldq,
                              const double *k, size_t ldk, const double *e,
                              const unsigned char *col_ok)
{
    const linformer_impl *im = plan->impl;
    size_t n = plan->n, d = plan->d, kp = im->kp;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)kp, (int)d, (int)n, 1.0, e,
                (int)kp, k, (int)ldk, 0.0, im->kproj, (int)kp);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)kp, (int)d, plan->scale, q,
                (int)ldq, im->kproj, (int)kp, 0.0, im->logits, (int)n);
    attn_softmax_rows(n, kp, im->logits, n, col_ok, im->scratch);
}

static int linformer_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                             const double *k, size_t ldk, const double *v, size_t ldv,
                             const unsigned char *mask, double *y, size_t ldy,
                             skit_attention_stats *stats)
{
    const linformer_impl *im = plan->impl;
    size_t n = plan->n, dv = plan->dv, kp = im->kp;
    if (im->fit && !im->fit->fitted)
        return SKIT_ERROR(SKIT_EINVAL, "linformer-fit plan not fitted: call skit_attention_plan_fit "
                                       "on the head first");
    const double *e, *f;
    const unsigned char *col_ok;
    linformer_projections(plan, mask, &e, &f, &col_ok);
    if (im->fit) f = im->fit->f; /* its masked tokens' columns are 0 already */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)kp, (int)dv, (int)n, 1.0, f,
                (int)kp, v, (int)ldv, 0.0, im->vproj, (int)kp);
    linformer_weights(plan, q, ldq, k, ldk, e, col_ok);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dv, (int)kp, 1.0,
                im->logits, (int)n, im->vproj, (int)kp, 0.0, y, (int)ldy);
    zero_masked_rows(n, dv, mask, y, ldy);
    set_stats(plan, stats, 2.0 * (double)n * (double)kp);
    return SKIT_OK;
}

/* F = P^+ S by dgelsd on a copy of P (masked rows 0, so that padding
 * constrains nothing) with S as the right-hand sides; S's masked columns
 * are 0, and so are those of the minimum-norm F. */
static int linformer_solve(const skit_attention_plan *plan, const double *q, size_t ldq,
                           const double *k, size_t ldk, const unsigned char *mask)
{
    const linformer_impl *im = plan->impl;
    size_t n = plan->n, kp = im->kp, bytes = (n * n + n * kp + kp + 2 * n) * sizeof(double);
    SKIT_TRY(skit_memory_check(bytes, "linformer-fit: the n x n attention matrix"));
    double *s = skit_malloc(n * n, sizeof(double)), *a = skit_malloc(n * kp, sizeof(double));
    double *sv = skit_malloc(kp, sizeof(double)), *scratch = skit_malloc(2 * n, sizeof(double));
    int status = SKIT_OK;
    if (!s || !a || !sv || !scratch) status = SKIT_ENOMEM;
    if (status == SKIT_OK) {
        attn_softmax_matrix(n, plan->d, q, ldq, k, ldk, plan->scale, mask, 0, s, n, scratch);
        for (size_t t = 0; t < kp; t++)
            for (size_t i = 0; i < n; i++)
                a[i + t * n] = !mask || mask[i] ? im->logits[i + t * n] : 0.0;
        lapack_int rank = 0, nn = (lapack_int)n;
        lapack_int info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, nn, (lapack_int)kp, nn, a, nn, s, nn, sv,
                                         LINFORMER_FIT_RCOND, &rank);
        if (info != 0)
            status = SKIT_ERROR(SKIT_ELIBRARY, "linformer-fit: least squares (dgelsd) of the %zu x %zu "
                                               "weights failed (info = %d)",
                                n, kp, (int)info);
    }
    for (size_t j = 0; status == SKIT_OK && j < n; j++)
        memcpy(im->fit->f + j * kp, s + j * n, kp * sizeof(double));
    if (status == SKIT_OK) im->fit->fitted = 1;
    skit_free(s);
    skit_free(a);
    skit_free(sv);
    skit_free(scratch);
    return status;
}

static int linformer_fit(skit_attention_plan *plan, const double *q, size_t ldq, const double *k,
                         size_t ldk, const unsigned char *mask)
{
    const double *e, *f;
    const unsigned char *col_ok;
    linformer_projections(plan, mask, &e, &f, &col_ok);
    linformer_weights(plan, q, ldq, k, ldk, e, col_ok);
    return linformer_solve(plan, q, ldq, k, ldk, mask);
}

static void linformer_adopt(skit_attention_plan *copy, const skit_attention_plan *plan)
{
    linformer_impl *mine = copy->impl;
    const linformer_impl *theirs = plan->impl;
    mine->fit = theirs->fit;
}

int attn_linformer_create(skit_attention_plan *p)
{
    size_t n = p->n, d = p->d, dv = p->dv, kp = p->o.rank;
    const int fitted = p->o.method == SKIT_ATTENTION_LINFORMER_FIT;
    if (kp < 1 || kp > n)
        return SKIT_ERROR(SKIT_EDOM, "rank = %zu (projected length) out of range: need 1 <= rank <= "
                                     "n (= %zu)",
                          kp, n);
    int proj = (int)p->o.linformer_projection;
    if (proj != SKIT_LINFORMER_GAUSSIAN && proj != SKIT_LINFORMER_POOLING)
        return SKIT_ERROR(SKIT_EINVAL,
                          "linformer_projection = %d unknown: need 0 (gaussian) or 1 (pooling)", proj);
    if (fitted) SKIT_TRY(check_square_size(n, "linformer-fit"));
    linformer_impl *im;
    ALLOC(im, 1, linformer_impl);
    memset(im, 0, sizeof *im);
    im->kp = kp;
    ALLOC(im->em, kp * n, double);
    ALLOC(im->col_ok, kp, unsigned char);
    if (proj == SKIT_LINFORMER_GAUSSIAN) {
        ALLOC(im->e, kp * n, double);
        ALLOC(im->f, kp * n, double);
        ALLOC(im->fm, kp * n, double);
        skit_rng rng;
        double sd = 1.0 / sqrt((double)kp);
        skit_rng_seed_stream(&rng, p->o.seed, 1);
        skit_rng_fill_normal(&rng, im->e, kp * n);
        skit_rng_seed_stream(&rng, p->o.seed, 2);
        skit_rng_fill_normal(&rng, im->f, kp * n);
        for (size_t t = 0; t < kp * n; t++) {
            im->e[t] *= sd;
            im->f[t] *= sd;
        }
    }
    if (fitted) {
        ALLOC(im->fit, 1, linformer_fitted);
        im->fit->fitted = 0;
        ALLOC(im->fit->f, kp * n, double);
        p->fit = linformer_fit;
        p->adopt = linformer_adopt;
    }
    ALLOC(im->kproj, kp * d, double);
    ALLOC(im->vproj, kp * dv, double);
    ALLOC(im->logits, n * kp, double);
    ALLOC(im->scratch, 2 * n, double);
    p->impl = im;
    p->execute = linformer_execute;
    return SKIT_OK;
}

/* ---- Performer (FAVOR+) ----------------------------------------------------- */

typedef struct performer_impl {
    size_t m;
    double *w, *hq, *hk, *kv, *ksum, *den;
} performer_impl;

static int performer_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                             const double *k, size_t ldk, const double *v, size_t ldv,
                             const unsigned char *mask, double *y, size_t ldy,
                             skit_attention_stats *stats)
{
    const performer_impl *im = plan->impl;
    size_t n = plan->n, d = plan->d, dv = plan->dv, m = im->m;
    double rs = sqrt(plan->scale);
    /* features of x' = sqrt(scale) x: phi(x') = exp(w.x' - |x'|^2/2) / sqrt(m);
     * per-query and one global key stabiliser cancel in the normalisation */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)m, (int)d, rs, q, (int)ldq,
                im->w, (int)m, 0.0, im->hq, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)m, (int)d, rs, k, (int)ldk,
                im->w, (int)m, 0.0, im->hk, (int)n);
    double *rowmax = im->den; /* n scratch, reused below */
    for (size_t i = 0; i < n; i++) rowmax[i] = -INFINITY;
    for (size_t f = 0; f < m; f++)
        for (size_t i = 0; i < n; i++)
            if (im->hq[i + f * n] > rowmax[i]) rowmax[i] = im->hq[i + f * n];
    for (size_t f = 0; f < m; f++)
        for (size_t i = 0; i < n; i++) im->hq[i + f * n] = exp(im->hq[i + f * n] - rowmax[i]);
    double gmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (mask && !mask[i]) continue;
        double half = 0;
        for (size_t c = 0; c < d; c++) half += k[i + c * ldk] * k[i + c * ldk];
        half *= 0.5 * plan->scale;
        rowmax[i] = half; /* |k'|^2 / 2 */
        for (size_t f = 0; f < m; f++) {
            double h = im->hk[i + f * n] - half;
            if (h > gmax) gmax = h;
        }
    }
    for (size_t f = 0; f < m; f++)
        for (size_t i = 0; i < n; i++) {
            double *h = &im->hk[i + f * n];
            *h = (mask && !mask[i]) ? 0.0 : exp(*h - rowmax[i] - gmax);
        }
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)dv, (int)n, 1.0, im->hk,
                (int)n, v, (int)ldv, 0.0, im->kv, (int)m);
    for (size_t f = 0; f < m; f++) {
        double sum = 0;
        for (size_t i = 0; i < n; i++) sum += im->hk[i + f * n];
        im->ksum[f] = sum;
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)m, 1.0, im->hq, (int)n, im->ksum, 1, 0.0,
                im->den, 1);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dv, (int)m, 1.0, im->hq,
                (int)n, im->kv, (int)m, 0.0, y, (int)ldy);
    attn_normalise(n, dv, y, ldy, im->den, mask, y, ldy);
    set_stats(plan, stats, 2.0 * (double)n * (double)m);
    return SKIT_OK;
}

int attn_performer_create(skit_attention_plan *p)
{
    size_t n = p->n, d = p->d, dv = p->dv, m = p->o.rank;
    if (m < 1 || m > 1048576)
        return SKIT_ERROR(SKIT_EDOM, "rank = %zu random features out of range: need 1 <= rank <= 2^20",
                          m);
    performer_impl *im;
    ALLOC(im, 1, performer_impl);
    im->m = m;
    ALLOC(im->w, m * d, double);
    ALLOC(im->hq, n * m, double);
    ALLOC(im->hk, n * m, double);
    ALLOC(im->kv, m * dv, double);
    ALLOC(im->ksum, m, double);
    ALLOC(im->den, n, double);
    skit_rng rng;
    skit_rng_seed_stream(&rng, p->o.seed, 3);
    if (!p->o.performer_orthogonal) {
        skit_rng_fill_normal(&rng, im->w, m * d);
    } else {
        /* blocks of d orthonormal directions (QR of a Gaussian matrix), each
         * row rescaled by the norm of an independent Gaussian vector so that
         * row norms follow the chi distribution of i.i.d. features */
        double *g = skit_malloc(d * d + d, sizeof(double));
        if (!g) return SKIT_ENOMEM;
        double *tau = g + d * d;
        for (size_t b0 = 0; b0 < m; b0 += d) {
            skit_rng_fill_normal(&rng, g, d * d);
            lapack_int dd = (lapack_int)d;
            lapack_int info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, dd, dd, g, dd, tau);
            if (info == 0) info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, dd, dd, dd, g, dd, tau);
            if (info != 0) {
                skit_free(g);
                return SKIT_ERROR(SKIT_ELIBRARY, "QR of the random feature block failed (info = %d)",
                                  (int)info);
            }
            for (size_t t = 0; t < d && b0 + t < m; t++) {
                double norm = 0;
                for (size_t c = 0; c < d; c++) {
                    double z = skit_rng_normal(&rng);
                    norm += z * z;
                }
                norm = sqrt(norm);
                /* column t of the orthogonal factor is direction t */
                for (size_t c = 0; c < d; c++) im->w[(b0 + t) + c * m] = norm * g[c + t * d];
            }
        }
        skit_free(g);
    }
    p->impl = im;
    p->execute = performer_execute;
    return SKIT_OK;
}

/* ---- Figure 7: budget needed for a target error ----------------------------- */

typedef struct entry {
    double value;
    uint32_t i, j;
} entry;

static int entry_desc(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? 1 : -1;
    if (x->j != y->j) return x->j < y->j ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int budget_lowrank(size_t n, size_t dv, double *s, const double *v, size_t ldv,
                          double ynorm, size_t count, const double *targets, size_t *needed,
                          double *errors)
{
    lapack_int nn = (lapack_int)n, lwork = gesdd_lwork(n);
    if (lwork < 0) return SKIT_ERROR(SKIT_ELIBRARY, "LAPACK dgesdd workspace query failed");
    size_t total = 2 * n * n + n + (size_t)lwork + 2 * n + n * dv;
    SKIT_TRY(skit_memory_check(total * sizeof(double) + 8 * n * sizeof(lapack_int), "SVD workspace"));
    double *buf = skit_malloc(total, sizeof(double));
    lapack_int *iwork = skit_malloc(8 * n, sizeof(lapack_int));
    if (!buf || !iwork) {
        skit_free(buf);
        skit_free(iwork);
        return SKIT_ENOMEM;
    }
    double *u = buf, *vt = u + n * n, *sv = vt + n * n, *work = sv + n, *tail = work + lwork,
           *w = tail + 2 * n;
    lapack_int info =
        LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', nn, nn, s, nn, sv, u, nn, vt, nn, work, lwork, iwork);
    if (info != 0) {
        skit_free(buf);
        skit_free(iwork);
        return SKIT_ERROR(SKIT_ELIBRARY, "SVD of the %zu x %zu attention matrix failed (info = %d)",
                          n, n, (int)info);
    }
    /* error of rank r: sum_{t >= r} sigma_t^2 |v_t^T V|^2 (orthonormal u_t) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dv, (int)n, 1.0, vt,
                (int)n, v, (int)ldv, 0.0, w, (int)n);
    tail[n] = 0.0;
    for (size_t t = n; t-- > 0;) {
        double wt = 0;
        for (size_t c = 0; c < dv; c++) wt += w[t + c * n] * w[t + c * n];
        tail[t] = tail[t + 1] + sv[t] * sv[t] * wt;
    }
    for (size_t r = 0; r <= n; r++) {
        double e = sqrt(tail[r]) / ynorm;
        if (errors) errors[r] = e;
    }
    for (size_t t = 0; t < count; t++) {
        needed[t] = n;
        for (size_t r = 0; r <= n; r++)
            if (sqrt(tail[r]) <= targets[t] * ynorm) {
                needed[t] = r;
                break;
            }
    }
    skit_free(buf);
    skit_free(iwork);
    return SKIT_OK;
}

static int budget_topk(size_t n, size_t dv, const double *s, const double *v, size_t ldv,
                       const double *y, double ynorm, size_t count, const double *targets,
                       size_t *needed)
{
    size_t nn = n * n;
    SKIT_TRY(skit_memory_check(nn * sizeof(entry) + 2 * n * dv * sizeof(double), "top-k profile"));
    entry *e = skit_malloc(nn, sizeof(entry));
    double *buf = skit_malloc(2 * n * dv + n, sizeof(double));
    if (!e || !buf) {
        skit_free(e);
        skit_free(buf);
        return SKIT_ENOMEM;
    }
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) e[i + j * n] = (entry){s[i + j * n], (uint32_t)i, (uint32_t)j};
    qsort(e, nn, sizeof *e, entry_desc);
    /* residual R = Y - S_k V row-major; add entries in order */
    double *res = buf, *vr = res + n * dv, *vn = vr + n * dv;
    for (size_t i = 0; i < n; i++) {
        double norm = 0;
        for (size_t c = 0; c < dv; c++) {
            res[i * dv + c] = y[i + c * n];
            vr[i * dv + c] = v[i + c * ldv];
            norm += vr[i * dv + c] * vr[i * dv + c];
        }
        vn[i] = norm;
    }
    double err2 = ynorm * ynorm;
    for (size_t t = 0; t < count; t++) needed[t] = targets[t] >= 1.0 ? 0 : nn;
    for (size_t p = 0; p < nn; p++) {
        double sv = e[p].value;
        double *ri = res + (size_t)e[p].i * dv;
        const double *vj = vr + (size_t)e[p].j * dv;
        double dot = 0;
        for (size_t c = 0; c < dv; c++) dot += ri[c] * vj[c];
        for (size_t c = 0; c < dv; c++) ri[c] -= sv * vj[c];
        err2 += sv * sv * vn[e[p].j] - 2.0 * sv * dot;
        if ((p + 1) % (4 * n) == 0) { /* refresh against rounding drift */
            err2 = 0;
            for (size_t t = 0; t < n * dv; t++) err2 += res[t] * res[t];
        }
        double err = sqrt(err2 > 0 ? err2 : 0) / ynorm;
        for (size_t t = 0; t < count; t++)
            if (needed[t] == nn && err <= targets[t]) needed[t] = p + 1;
    }
    skit_free(e);
    skit_free(buf);
    return SKIT_OK;
}

int skit_attention_budget_needed(skit_attention_method method, size_t n, size_t d, size_t dv,
                                 const double *q, size_t ldq, const double *k, size_t ldk,
                                 const double *v, size_t ldv, double scale, size_t count,
                                 const double *targets, size_t *needed, double *errors)
{
    if (method != SKIT_ATTENTION_LOWRANK && method != SKIT_ATTENTION_TOPK)
        return SKIT_ERROR(SKIT_EINVAL, "method = %d unsupported: need lowrank or topk", (int)method);
    SKIT_REQUIRE_PTR(targets);
    SKIT_REQUIRE_PTR(needed);
    if (method == SKIT_ATTENTION_TOPK && errors)
        return SKIT_ERROR(SKIT_EINVAL, "errors must be NULL for topk");
    SKIT_TRY(attn_check_scale(scale));
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    SKIT_TRY(attn_check_v(n, dv, v, ldv));
    SKIT_TRY(check_square_size(n, skit_attention_method_name(method)));
    if (count == 0) return SKIT_ERROR(SKIT_EDOM, "count = 0 out of range: need at least one target");
    for (size_t t = 0; t < count; t++)
        if (!isfinite(targets[t]) || targets[t] < 0)
            return SKIT_ERROR(SKIT_EDOM, "targets[%zu] = %g out of range: need a finite error >= 0",
                              t, targets[t]);
    size_t nn = n * n;
    SKIT_TRY(skit_memory_check((nn + n * dv + 2 * n) * sizeof(double), "attention matrix"));
    double *s = skit_malloc(nn + n * dv + 2 * n, sizeof(double));
    if (!s) return SKIT_ENOMEM;
    double *y = s + nn, *scratch = y + n * dv;
    attn_softmax_matrix(n, d, q, ldq, k, ldk, scale, NULL, 0, s, n, scratch);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)dv, (int)n, 1.0, s, (int)n,
                v, (int)ldv, 0.0, y, (int)n);
    double ynorm = 0;
    for (size_t t = 0; t < n * dv; t++) ynorm += y[t] * y[t];
    ynorm = sqrt(ynorm);
    if (ynorm == 0) ynorm = 1.0;
    int status = method == SKIT_ATTENTION_LOWRANK
                     ? budget_lowrank(n, dv, s, v, ldv, ynorm, count, targets, needed, errors)
                     : budget_topk(n, dv, s, v, ldv, y, ynorm, count, targets, needed);
    skit_free(s);
    return status;
}
