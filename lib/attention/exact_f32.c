/* exact_f32.c — exact softmax attention in float32: the online max-shifted
 * softmax of exact.c on float tiles (sgemm for the logits and for E V,
 * expf on the shifted logits), with the row sums kept in double. The
 * tiled sweep here also serves the float32 MRA-2 (mra_f32.c), over the
 * refined squares only.
 *
 * Why the row sums are double: each key adds one term to its row's sum,
 * so a float sum would carry n u of error on its own; in double it costs
 * one conversion per weight and leaves the denominator exact to O(u) of
 * the output, so the error is the logits' and the numerator's alone (the
 * numerator is summed by sgemm, in float).
 *
 * Why not exact.c compiled again: its sweep keeps its state in one type
 * and carries what window, BigBird, the entropies and MRA's key-major fine
 * sweep need (packed tiles, band, shift bias, entropy sums); this one is
 * the subset the float32 plans run, with mixed state (float maxima and
 * numerators, double sums). */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

int attn_check_finite_f32(const float *a, size_t rows, size_t cols, size_t ld, const char *what)
{
    for (size_t c = 0; c < cols; c++)
        for (size_t i = 0; i < rows; i++)
            if (!isfinite(a[i + c * ld]))
                return SKIT_ERROR(SKIT_ENONFINITE, "%s[%zu, %zu] = %g: need finite values", what, i,
                                  c, (double)a[i + c * ld]);
    return SKIT_OK;
}

/* The checks of skit_attention_exact on float arrays (the shapes are the
 * same; only the pointers' types differ, and the shape checks never read
 * through them). */
int attn_check_inputs_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq,
                          const float *k, size_t ldk, const float *v, size_t ldv)
{
    SKIT_REQUIRE_PTR(q);
    SKIT_REQUIRE_PTR(k);
    SKIT_REQUIRE_PTR(v);
    SKIT_TRY(attn_check_qk_shape(n, d, (const double *)(const void *)q, ldq,
                                 (const double *)(const void *)k, ldk));
    SKIT_TRY(attn_check_v_shape(n, dv, (const double *)(const void *)v, ldv));
    SKIT_TRY(attn_check_finite_f32(q, n, d, ldq, "Q"));
    SKIT_TRY(attn_check_finite_f32(k, n, d, ldk, "K"));
    return attn_check_finite_f32(v, n, dv, ldv, "V");
}

/* ---- the float sweep ------------------------------------------------------ */

/* Key tile Y into the state of the query rows i0 .. i0+ti-1; T (t x t),
 * rowmax and fac (t each) are the thread's scratch. */
static void sweep_tile_f32(const attn_sweep_f32 *s, float *T, float *rowmax, float *fac,
                           size_t i0, size_t ti, size_t Y)
{
    size_t t = s->t, j0 = Y * t, tj = SKIT_MIN(t, s->n - j0);
    float *m = s->m + i0;
    double *den = s->den + i0;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)ti, (int)tj, (int)s->d, s->scale,
                s->q + i0, (int)s->ldq, s->k + j0, (int)s->ldk, 0.0f, T, (int)ti);
    for (size_t a = 0; a < ti; a++) rowmax[a] = -INFINITY;
    for (size_t c = 0; c < tj; c++) {
        size_t j = j0 + c;
        float *col = T + c * ti;
        if (s->key_weight && s->key_weight[j] == 0.0f) {
            for (size_t a = 0; a < ti; a++) col[a] = -INFINITY;
            continue;
        }
        if (s->causal)
            for (size_t a = 0; a < ti && i0 + a < j; a++) col[a] = -INFINITY;
        for (size_t a = 0; a < ti; a++)
            if (col[a] > rowmax[a]) rowmax[a] = col[a];
    }
    /* rows whose maximum grew: rescale their sums by exp(old - new) */
    int any = 0, grew = 0;
    for (size_t a = 0; a < ti; a++) {
        fac[a] = 1.0f;
        if (rowmax[a] == -INFINITY) continue;
        any = 1;
        if (rowmax[a] > m[a]) {
            fac[a] = m[a] == -INFINITY ? 0.0f : expf(m[a] - rowmax[a]);
            den[a] *= fac[a];
            m[a] = rowmax[a];
            grew = 1;
        }
    }
    if (!any) return;
    if (grew)
        for (size_t c = 0; c < s->dv; c++) {
            float *acc = s->num + i0 + c * s->ldnum;
            for (size_t a = 0; a < ti; a++) acc[a] *= fac[a];
        }
    for (size_t c = 0; c < tj; c++) {
        float *col = T + c * ti;
        float wt = s->key_weight ? s->key_weight[j0 + c] : 1.0f;
        for (size_t a = 0; a < ti; a++) {
            float p = col[a];
            float e = p == -INFINITY ? 0.0f : wt * expf(p - m[a]);
            den[a] += e;
            col[a] = e;
        }
    }
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)ti, (int)s->dv, (int)tj, 1.0f, T,
                (int)ti, s->v + j0, (int)s->ldv, 1.0f, s->num + i0, (int)s->ldnum);
}

size_t attn_sweep_f32_work(size_t t, int threads)
{
    return (t * t + 2 * t) * (size_t)(threads > 0 ? threads : 1);
}

void attn_sweep_f32_run(const attn_sweep_f32 *s)
{
    size_t t = s->t, n = s->n, tiles = (n + t - 1) / t;
    int threads = s->threads > 0 && s->parallel ? s->threads : 1;
    long ntiles = (long)tiles;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (long xl = 0; xl < ntiles; xl++) {
        size_t X = (size_t)xl, i0 = X * t, ti = SKIT_MIN(t, n - i0);
        float *T = s->work + (size_t)attn_thread_id() * (t * t + 2 * t);
        float *rowmax = T + t * t, *fac = rowmax + t;
        for (size_t a = 0; a < ti; a++) {
            s->m[i0 + a] = -INFINITY;
            s->den[i0 + a] = 0.0;
        }
        for (size_t c = 0; c < s->dv; c++) memset(s->num + i0 + c * s->ldnum, 0, ti * sizeof(float));
        if (s->row_ptr) {
            for (uint32_t p = s->row_ptr[X]; p < s->row_ptr[X + 1]; p++)
                sweep_tile_f32(s, T, rowmax, fac, i0, ti, s->cols[p]);
        } else {
            size_t last = s->causal ? X + 1 : tiles; /* key tiles after the queries: all j > i */
            for (size_t Y = 0; Y < last; Y++) sweep_tile_f32(s, T, rowmax, fac, i0, ti, Y);
        }
    }
}

/* ---- the float32 exact plan ---------------------------------------------- */

/* The plan's scratch serves one call at a time, forward or backward:
 * forward, den (n doubles), m and the key weights (n floats each), then
 * the sweep's work; backward, the backward's tiles. */
typedef struct exact_f32_impl {
    size_t t;
    int parallel;
    float *scratch;
    double entries;
} exact_f32_impl;

static int exact_execute_f32(const skit_attention_plan *plan, const float *q, size_t ldq, const float *k,
                             size_t ldk, const float *v, size_t ldv, const unsigned char *mask, float *y,
                             size_t ldy, skit_attention_stats *stats)
{
    const exact_f32_impl *im = plan->impl;
    const size_t n = plan->n, dv = plan->dv;
    double *den = (double *)(void *)im->scratch;
    float *mrow = im->scratch + 2 * n, *w = mrow + n;
    if (mask)
        for (size_t i = 0; i < n; i++) w[i] = mask[i] ? 1.0f : 0.0f;
    attn_sweep_f32 s = {.n = n, .d = plan->d, .dv = dv, .t = im->t, .q = q, .k = k, .v = v, .ldq = ldq,
                        .ldk = ldk, .ldv = ldv, .scale = (float)plan->scale, .key_weight = mask ? w : NULL,
                        .causal = plan->o.causal, .num = y, .ldnum = ldy, .m = mrow, .den = den,
                        .work = w + n, .threads = plan->threads, .parallel = im->parallel};
    attn_sweep_f32_run(&s);
    for (size_t c = 0; c < dv; c++) {
        float *col = y + c * ldy;
        for (size_t i = 0; i < n; i++)
            col[i] = den[i] == 0.0 || (mask && !mask[i]) ? 0.0f : (float)(col[i] / den[i]);
    }
    stats->entries = im->entries;
    stats->work_fraction = im->entries / ((double)n * (double)n);
    stats->levels = 0;
    return SKIT_OK;
}

static int exact_backward_f32(const skit_attention_plan *plan, const attn_backward_call *c)
{
    const exact_f32_impl *im = plan->impl;
    const skit_attention_mask mask = {c->mask, plan->o.causal};
    return attn_exact_backward_f32(plan->n, plan->d, plan->dv, c->q, c->ldq, c->k, c->ldk, c->v, c->ldv, plan->scale,
                                   &mask, c->dy, c->lddy, c->dq, c->lddq, c->dk, c->lddk, c->dv, c->lddv,
                                   im->scratch);
}

int attn_exact_create_f32(skit_attention_plan *p)
{
    const size_t n = p->n;
    exact_f32_impl *im = attn_plan_alloc(p, 1, sizeof *im);
    if (!im) return p->alloc_status;
    im->t = attn_dense_tile(p->d, p->dv, &im->parallel);
    size_t forward, backward = attn_exact_backward_f32_floats(n);
    if (skit_size_add(attn_sweep_f32_work(im->t, p->threads), 4 * n, &forward))
        return SKIT_ERROR(SKIT_EOVERFLOW, "attention scratch size overflows size_t");
    im->scratch = attn_plan_alloc(p, SKIT_MAX(forward, backward), sizeof(float));
    if (!im->scratch) return p->alloc_status;
    const double nn = (double)n;
    im->entries = p->o.causal ? nn * (nn + 1) / 2 : nn * nn;
    p->impl = im;
    p->execute_f32 = exact_execute_f32;
    p->backward = exact_backward_f32;
    return SKIT_OK;
}
