/* exact.c — exact softmax attention (blocked, online max-shifted softmax),
 * the explicit softmax matrix, row entropies, and the tiled sweep that the
 * window, BigBird and MRA methods share. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "attention/attention_internal.h"

int attn_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int attn_thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

size_t attn_dense_tile(size_t d, size_t dv, int *parallel)
{
    double w = (double)SKIT_MAX(SKIT_MAX(d, dv), 1);
    for (size_t t = 64; t >= 16; t /= 2)
        if ((double)t * (double)t * w <= ATTN_GEMM_SERIAL_LIMIT) {
            *parallel = 1;
            return t;
        }
    /* very wide heads: bigger tiles, OpenBLAS threads each GEMM */
    *parallel = 0;
    return 128;
}

/* ---- argument checks ---------------------------------------------------- */

int attn_check_scale(double scale)
{
    if (!isfinite(scale))
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need a finite logit scale", scale);
    return SKIT_OK;
}

int attn_check_qk_shape(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                        size_t ldk)
{
    SKIT_REQUIRE_PTR(q);
    SKIT_REQUIRE_PTR(k);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 tokens");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need head dimension d >= 1");
    if (ldq < n) return SKIT_ERROR(SKIT_ESHAPE, "ldq = %zu too small: need ldq >= n (= %zu)", ldq, n);
    if (ldk < n) return SKIT_ERROR(SKIT_ESHAPE, "ldk = %zu too small: need ldk >= n (= %zu)", ldk, n);
    size_t extent;
    if (skit_size_mul(ldq, d, &extent) || skit_size_mul(ldk, d, &extent))
        return SKIT_ERROR(SKIT_EOVERFLOW, "Q or K extent (ld x d) overflows size_t");
    return SKIT_OK;
}

int attn_check_qk(size_t n, size_t d, const double *q, size_t ldq, const double *k, size_t ldk)
{
    SKIT_TRY(attn_check_qk_shape(n, d, q, ldq, k, ldk));
    SKIT_TRY(skit_check_finite_matrix(q, n, d, ldq, "Q"));
    SKIT_TRY(skit_check_finite_matrix(k, n, d, ldk, "K"));
    return SKIT_OK;
}

int attn_check_v_shape(size_t n, size_t dv, const double *v, size_t ldv)
{
    SKIT_REQUIRE_PTR(v);
    if (dv == 0) return SKIT_ERROR(SKIT_EDOM, "dv = 0 out of range: need value dimension dv >= 1");
    if (ldv < n) return SKIT_ERROR(SKIT_ESHAPE, "ldv = %zu too small: need ldv >= n (= %zu)", ldv, n);
    size_t extent;
    if (skit_size_mul(ldv, dv, &extent))
        return SKIT_ERROR(SKIT_EOVERFLOW, "V extent (ldv x dv) overflows size_t");
    return SKIT_OK;
}

int attn_check_v(size_t n, size_t dv, const double *v, size_t ldv)
{
    SKIT_TRY(attn_check_v_shape(n, dv, v, ldv));
    return skit_check_finite_matrix(v, n, dv, ldv, "V");
}

int attn_check_mask(const skit_attention_mask *mask)
{
    if (mask && mask->causal != 0 && mask->causal != 1)
        return SKIT_ERROR(SKIT_EDOM, "mask->causal = %d out of range: need 0 or 1", mask->causal);
    return SKIT_OK;
}

int attn_check_out(size_t n, size_t dv, const double *y, size_t ldy, const char *name)
{
    if (!y) return SKIT_ERROR(SKIT_EINVAL, "%s must not be NULL", name);
    if (ldy < n)
        return SKIT_ERROR(SKIT_ESHAPE, "leading dimension of %s = %zu too small: need >= n (= %zu)",
                          name, ldy, n);
    size_t extent;
    if (skit_size_mul(ldy, dv, &extent))
        return SKIT_ERROR(SKIT_EOVERFLOW, "%s extent overflows size_t", name);
    return SKIT_OK;
}

/* ---- the tiled sweep ----------------------------------------------------- */

int attn_sweep_work_count(size_t n, size_t t, size_t d, size_t dv, int threads, size_t *count)
{
    size_t tiles = (n + t - 1) / t, pack, per, total;
    /* per thread: T (t x t), 6 row vectors, Q tile (t x d), accumulator (t x dv) */
    if (skit_size_mul(tiles * t, d + dv, &pack) || skit_size_mul(t, t + 6 + d + dv, &per) ||
        skit_size_mul(per, (size_t)(threads > 0 ? threads : 1), &total) ||
        skit_size_add(total, pack, &total) || total > SIZE_MAX / sizeof(double))
        return SKIT_ERROR(SKIT_EOVERFLOW, "attention scratch size overflows size_t");
    *count = total;
    return SKIT_OK;
}

void attn_sweep_tile(const attn_sweep *s, const attn_sweep_state *w, size_t i0, size_t ti,
                     size_t Y, const double *kt, const double *vt)
{
    size_t t = s->t, j0 = Y * t, tj = SKIT_MIN(t, s->n - j0);
    double *T = w->T, *rowmax = w->rowmax, *dsum = w->dsum, *lsum = w->lsum;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)ti, (int)tj, (int)s->d, s->scale,
                w->qt, (int)t, kt, (int)t, 0.0, T, (int)ti);
    for (size_t a = 0; a < ti; a++) rowmax[a] = -INFINITY;
    for (size_t c = 0; c < tj; c++) {
        size_t j = j0 + c;
        double *col = T + c * ti;
        if (s->key_weight && s->key_weight[j] == 0.0) {
            for (size_t a = 0; a < ti; a++) col[a] = -INFINITY;
            continue;
        }
        if (s->band >= 0) {
            size_t band = (size_t)s->band;
            for (size_t a = 0; a < ti; a++) {
                size_t i = i0 + a;
                size_t dist = i > j ? i - j : j - i;
                if (dist > band) col[a] = -INFINITY;
            }
        }
        if (s->causal)
            for (size_t a = 0; a < ti && i0 + a < j; a++) col[a] = -INFINITY;
        for (size_t a = 0; a < ti; a++)
            if (col[a] > rowmax[a]) rowmax[a] = col[a];
    }
    /* new shifts; rescale the old state of rows whose maximum grew */
    int any = 0;
    for (size_t a = 0; a < ti; a++) {
        if (rowmax[a] == -INFINITY) continue;
        any = 1;
        if (rowmax[a] > w->m[a]) {
            double f = w->m[a] == -INFINITY ? 0.0 : exp(w->m[a] - rowmax[a]);
            w->den[a] *= f;
            w->ls[a] *= f;
            for (size_t c = 0; c < s->dv; c++) w->acc[a + c * t] *= f;
            w->m[a] = rowmax[a];
        }
    }
    if (!any) return;
    /* rowmax now holds the shift of each row (its running maximum + bias) */
    for (size_t a = 0; a < ti; a++) {
        rowmax[a] = w->m[a] + s->bias;
        dsum[a] = lsum[a] = 0.0;
    }
    for (size_t c = 0; c < tj; c++) {
        double *col = T + c * ti;
        double wt = s->key_weight ? s->key_weight[j0 + c] : 1.0;
        for (size_t a = 0; a < ti; a++) {
            double p = col[a];
            double e = p == -INFINITY ? 0.0 : wt * exp(p - rowmax[a]);
            if (s->lsum && e != 0.0) lsum[a] += e * p;
            dsum[a] += e;
            col[a] = e;
        }
    }
    for (size_t a = 0; a < ti; a++) {
        w->den[a] += dsum[a];
        w->ls[a] += lsum[a];
    }
    if (s->dv)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)ti, (int)s->dv, (int)tj, 1.0,
                    T, (int)ti, vt, (int)t, 1.0, w->acc, (int)t);
}

void attn_pack_rows(const double *x, size_t ldx, size_t r0, size_t rows, size_t cols, size_t t,
                    double *out)
{
    for (size_t c = 0; c < cols; c++) memcpy(out + c * t, x + r0 + c * ldx, rows * sizeof(double));
}

void attn_sweep_run(const attn_sweep *s)
{
    size_t t = s->t, n = s->n, d = s->d, dv = s->dv;
    size_t tiles = (n + t - 1) / t;
    double *kp = s->work, *vp = kp + tiles * t * d, *thread_base = vp + tiles * t * dv;
    size_t per = t * (t + 6 + d + dv);
    int threads = s->threads > 0 && s->parallel ? s->threads : 1;
    long ntiles = (long)tiles;
    /* one parallel region: every barrier is a stall when another program
     * holds a core, so the packing shares the region of the sweep */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
#pragma omp for schedule(static)
        for (long yl = 0; yl < ntiles; yl++) {
            size_t Y = (size_t)yl, j0 = Y * t, tj = SKIT_MIN(t, n - j0);
            attn_pack_rows(s->k, s->ldk, j0, tj, d, t, kp + Y * t * d);
            if (dv) attn_pack_rows(s->v, s->ldv, j0, tj, dv, t, vp + Y * t * dv);
        }
#pragma omp for schedule(dynamic, 1)
        for (long xr = 0; xr < ntiles; xr++) {
            size_t X = (size_t)xr;
            double *base = thread_base + (size_t)attn_thread_id() * per;
            attn_sweep_state w = {.T = base, .rowmax = base + t * t};
            w.dsum = w.rowmax + t;
            w.lsum = w.dsum + t;
            w.m = w.lsum + t;
            w.den = w.m + t;
            w.ls = w.den + t;
            w.qt = w.ls + t;
            w.acc = w.qt + t * d;
            size_t i0 = X * t, ti = SKIT_MIN(t, n - i0);
            attn_pack_rows(s->q, s->ldq, i0, ti, d, t, w.qt);
            for (size_t a = 0; a < ti; a++) {
                w.m[a] = -INFINITY;
                w.den[a] = w.ls[a] = 0.0;
            }
            for (size_t c = 0; c < dv; c++) memset(w.acc + c * t, 0, ti * sizeof(double));
            if (s->row_ptr) {
                for (size_t p = s->row_ptr[X]; p < s->row_ptr[X + 1]; p++) {
                    if (s->causal && s->cols[p] > X) continue; /* every key after every query */
                    attn_sweep_tile(s, &w, i0, ti, s->cols[p], kp + s->cols[p] * t * d,
                                    vp + s->cols[p] * t * dv);
                }
            } else {
                size_t first = 0, last = tiles;
                if (s->band >= 0) {
                    size_t band = (size_t)s->band;
                    size_t lo = i0 > band ? i0 - band : 0;
                    size_t hi = i0 + ti - 1 + band;
                    first = lo / t;
                    last = SKIT_MIN(tiles, hi / t + 1);
                }
                if (s->causal) last = SKIT_MIN(last, X + 1);
                for (size_t Y = first; Y < last; Y++)
                    attn_sweep_tile(s, &w, i0, ti, Y, kp + Y * t * d, vp + Y * t * dv);
            }
            memcpy(s->m + i0, w.m, ti * sizeof(double));
            memcpy(s->den + i0, w.den, ti * sizeof(double));
            if (s->lsum) memcpy(s->lsum + i0, w.ls, ti * sizeof(double));
            for (size_t c = 0; c < dv; c++)
                memcpy(s->num + i0 + c * s->ldnum, w.acc + c * t, ti * sizeof(double));
        }
    }
}

void attn_normalise(size_t n, size_t dv, const double *num, size_t ldnum, const double *den,
                    const unsigned char *mask, double *y, size_t ldy)
{
    for (size_t c = 0; c < dv; c++) {
        const double *src = num + c * ldnum;
        double *dst = y + c * ldy;
        for (size_t i = 0; i < n; i++) {
            int zero = den[i] == 0.0 || (mask && !mask[i]);
            dst[i] = zero ? 0.0 : src[i] / den[i];
        }
    }
}

/* ---- exact attention ----------------------------------------------------- */

static void mask_weights(size_t n, const unsigned char *mask, double *w)
{
    for (size_t i = 0; i < n; i++) w[i] = mask[i] ? 1.0 : 0.0;
}

/* Scratch for one dense sweep: the sweep's work, then m, den (and w). */
static int sweep_scratch(size_t n, size_t t, size_t d, size_t dv, int threads, double **work,
                         double **m, double **den, double **w)
{
    size_t total = 0;
    SKIT_TRY(attn_sweep_work_count(n, t, d, dv, threads, &total));
    size_t all = total + 3 * n;
    if (all < total) return SKIT_ERROR(SKIT_EOVERFLOW, "attention scratch size overflows size_t");
    SKIT_TRY(skit_memory_check(all * sizeof(double), "attention scratch"));
    double *p = skit_malloc(all, sizeof(double));
    if (!p) return SKIT_ENOMEM;
    *work = p;
    *m = p + total;
    *den = *m + n;
    *w = *den + n;
    return SKIT_OK;
}

int skit_attention_exact(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                         const double *k, size_t ldk, const double *v, size_t ldv, double scale,
                         const unsigned char *mask, double *y, size_t ldy)
{
    skit_attention_mask m = {mask, 0};
    return skit_attention_exact_masked(n, d, dv, q, ldq, k, ldk, v, ldv, scale, &m, y, ldy);
}

int skit_attention_exact_masked(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                                const double *k, size_t ldk, const double *v, size_t ldv,
                                double scale, const skit_attention_mask *masks, double *y,
                                size_t ldy)
{
    const unsigned char *mask = masks ? masks->padding : NULL;
    SKIT_TRY(attn_check_mask(masks));
    SKIT_TRY(attn_check_scale(scale));
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    SKIT_TRY(attn_check_v(n, dv, v, ldv));
    SKIT_TRY(attn_check_out(n, dv, y, ldy, "y"));
    int parallel;
    size_t t = attn_dense_tile(d, dv, &parallel);
    int threads = attn_max_threads();
    double *work, *m, *den, *w;
    SKIT_TRY(sweep_scratch(n, t, d, dv, threads, &work, &m, &den, &w));
    if (mask) mask_weights(n, mask, w);
    else w = NULL;
    attn_sweep s = {.n = n, .d = d, .dv = dv, .t = t, .q = q, .k = k, .v = v, .ldq = ldq,
                    .ldk = ldk, .ldv = ldv, .scale = scale, .bias = 0.0, .key_weight = w,
                    .band = -1, .causal = masks && masks->causal, .num = y, .ldnum = ldy, .m = m,
                    .den = den, .lsum = NULL, .work = work, .threads = threads, .parallel = parallel};
    attn_sweep_run(&s);
    attn_normalise(n, dv, y, ldy, den, mask, y, ldy);
    skit_free(work);
    return SKIT_OK;
}

int skit_attention_entropy(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                           size_t ldk, double scale, const unsigned char *mask,
                           double *row_entropy, double *mean_entropy)
{
    skit_attention_mask m = {mask, 0};
    return skit_attention_entropy_masked(n, d, q, ldq, k, ldk, scale, &m, row_entropy, mean_entropy);
}

int skit_attention_entropy_masked(size_t n, size_t d, const double *q, size_t ldq,
                                  const double *k, size_t ldk, double scale,
                                  const skit_attention_mask *masks, double *row_entropy,
                                  double *mean_entropy)
{
    const unsigned char *mask = masks ? masks->padding : NULL;
    SKIT_REQUIRE_PTR(mean_entropy);
    SKIT_TRY(attn_check_mask(masks));
    SKIT_TRY(attn_check_scale(scale));
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    int parallel;
    size_t t = attn_dense_tile(d, 1, &parallel);
    int threads = attn_max_threads();
    double *work, *m, *den, *w;
    SKIT_TRY(sweep_scratch(n, t, d, 0, threads, &work, &m, &den, &w));
    double *lsum = skit_malloc(n, sizeof(double));
    if (!lsum) {
        skit_free(work);
        return SKIT_ENOMEM;
    }
    if (mask) mask_weights(n, mask, w);
    else w = NULL;
    attn_sweep s = {.n = n, .d = d, .dv = 0, .t = t, .q = q, .k = k, .v = NULL, .ldq = ldq,
                    .ldk = ldk, .ldv = n, .scale = scale, .bias = 0.0, .key_weight = w,
                    .band = -1, .causal = masks && masks->causal, .num = NULL, .ldnum = n, .m = m,
                    .den = den, .lsum = lsum, .work = work, .threads = threads, .parallel = parallel};
    attn_sweep_run(&s);
    double total = 0.0;
    size_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        double h = 0.0;
        if ((!mask || mask[i]) && den[i] > 0.0) {
            /* H = log Z - sum_j p_j P_j with Z = den e^{m}, sum p P = lsum/den */
            h = log(den[i]) + m[i] - lsum[i] / den[i];
            if (h < 0.0) h = 0.0; /* rounding when one key takes everything */
            total += h;
            rows++;
        }
        if (row_entropy) row_entropy[i] = h;
    }
    *mean_entropy = rows ? total / (double)rows : 0.0;
    skit_free(lsum);
    skit_free(work);
    return SKIT_OK;
}

void attn_softmax_rows(size_t rows, size_t cols, double *a, size_t lda,
                       const unsigned char *col_ok, double *rowmax)
{
    for (size_t i = 0; i < rows; i++) rowmax[i] = -INFINITY;
    for (size_t j = 0; j < cols; j++) {
        if (col_ok && !col_ok[j]) continue;
        const double *col = a + j * lda;
        for (size_t i = 0; i < rows; i++)
            if (col[i] > rowmax[i]) rowmax[i] = col[i];
    }
    /* reuse: after the max pass rowmax is the shift, then the row sum */
    double *sum = rowmax + rows;
    for (size_t i = 0; i < rows; i++) sum[i] = 0.0;
    for (size_t j = 0; j < cols; j++) {
        double *col = a + j * lda;
        if (col_ok && !col_ok[j]) {
            for (size_t i = 0; i < rows; i++) col[i] = 0.0;
            continue;
        }
        for (size_t i = 0; i < rows; i++) {
            double e = rowmax[i] == -INFINITY ? 0.0 : exp(col[i] - rowmax[i]);
            col[i] = e;
            sum[i] += e;
        }
    }
    for (size_t j = 0; j < cols; j++) {
        double *col = a + j * lda;
        for (size_t i = 0; i < rows; i++) col[i] = sum[i] > 0.0 ? col[i] / sum[i] : 0.0;
    }
}

void attn_softmax_matrix(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                         size_t ldk, double scale, const unsigned char *mask, int causal,
                         double *s, size_t lds, double *scratch)
{
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)d, scale, q,
                (int)ldq, k, (int)ldk, 0.0, s, (int)lds);
    if (causal)
        for (size_t j = 1; j < n; j++)
            for (size_t i = 0; i < j; i++) s[i + j * lds] = -INFINITY;
    attn_softmax_rows(n, n, s, lds, mask, scratch);
    if (mask)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++)
                if (!mask[i]) s[i + j * lds] = 0.0;
}

int skit_attention_matrix(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                          size_t ldk, double scale, const unsigned char *mask, double *s,
                          size_t lds)
{
    skit_attention_mask m = {mask, 0};
    return skit_attention_matrix_masked(n, d, q, ldq, k, ldk, scale, &m, s, lds);
}

int skit_attention_matrix_masked(size_t n, size_t d, const double *q, size_t ldq,
                                 const double *k, size_t ldk, double scale,
                                 const skit_attention_mask *mask, double *s, size_t lds)
{
    SKIT_TRY(attn_check_mask(mask));
    SKIT_TRY(attn_check_scale(scale));
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    SKIT_TRY(attn_check_out(n, n, s, lds, "s"));
    double *scratch = skit_malloc(2 * n, sizeof(double));
    if (!scratch) return SKIT_ENOMEM;
    attn_softmax_matrix(n, d, q, ldq, k, ldk, scale, mask ? mask->padding : NULL,
                        mask && mask->causal, s, lds, scratch);
    skit_free(scratch);
    return SKIT_OK;
}

int skit_attention_relative_error(size_t n, size_t dv, const double *y_hat, size_t ldh,
                                  const double *y, size_t ldy, double *error)
{
    SKIT_REQUIRE_PTR(y_hat);
    SKIT_REQUIRE_PTR(y);
    SKIT_REQUIRE_PTR(error);
    if (n == 0 || dv == 0)
        return SKIT_ERROR(SKIT_EDOM, "n = %zu, dv = %zu out of range: need both >= 1", n, dv);
    if (ldh < n || ldy < n)
        return SKIT_ERROR(SKIT_ESHAPE, "leading dimensions (%zu, %zu) too small: need >= n (= %zu)",
                          ldh, ldy, n);
    /* scaled sums so that huge or tiny outputs neither overflow nor underflow */
    double num_scale = 0, num_ssq = 1, den_scale = 0, den_ssq = 1;
    for (size_t c = 0; c < dv; c++)
        for (size_t i = 0; i < n; i++) {
            double diff = fabs(y_hat[i + c * ldh] - y[i + c * ldy]);
            double ref = fabs(y[i + c * ldy]);
            if (diff != 0.0) {
                if (num_scale < diff) {
                    num_ssq = 1 + num_ssq * (num_scale / diff) * (num_scale / diff);
                    num_scale = diff;
                } else {
                    num_ssq += (diff / num_scale) * (diff / num_scale);
                }
            }
            if (ref != 0.0) {
                if (den_scale < ref) {
                    den_ssq = 1 + den_ssq * (den_scale / ref) * (den_scale / ref);
                    den_scale = ref;
                } else {
                    den_ssq += (ref / den_scale) * (ref / den_scale);
                }
            }
        }
    double num = num_scale * sqrt(num_ssq), den = den_scale * sqrt(den_ssq);
    if (isnan(num_scale)) num = NAN;
    *error = den > 0 ? num / den : num;
    return SKIT_OK;
}

/* ---- block means and coarse logits --------------------------------------- */

void attn_block_means(size_t n, size_t d, const double *x, size_t ldx, size_t s,
                      const unsigned char *mask, int sums, double *out, double *counts)
{
    size_t rows = n / s;
    for (size_t b = 0; b < rows; b++) {
        size_t cnt = 0;
        for (size_t i = b * s; i < b * s + s; i++) cnt += !mask || mask[i];
        if (counts) counts[b] = (double)cnt;
    }
    long ld = (long)d;
#pragma omp parallel for schedule(static) if (n * d >= 4194304)
    for (long cl = 0; cl < ld; cl++) {
        size_t c = (size_t)cl;
        const double *col = x + c * ldx;
        double *o = out + c * rows;
        for (size_t b = 0; b < rows; b++) {
            double sum = 0.0;
            size_t cnt = 0;
            for (size_t i = b * s; i < b * s + s; i++)
                if (!mask || mask[i]) {
                    sum += col[i];
                    cnt++;
                }
            o[b] = sums ? sum : (cnt ? sum / (double)cnt : 0.0);
        }
    }
}

int skit_mra_coarse_logits(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                           size_t ldk, double scale, size_t s, const unsigned char *mask,
                           double *c, size_t ldc)
{
    SKIT_TRY(attn_check_scale(scale));
    if (s == 0) return SKIT_ERROR(SKIT_EDOM, "s = 0 out of range: need block side s >= 1");
    SKIT_TRY(attn_check_qk(n, d, q, ldq, k, ldk));
    if (n % s)
        return SKIT_ERROR(SKIT_ESHAPE, "s = %zu does not divide n = %zu: need n a multiple of s", s,
                          n);
    size_t rows = n / s;
    SKIT_TRY(attn_check_out(rows, rows, c, ldc, "c"));
    size_t count;
    if (skit_size_mul(rows, 2 * d, &count))
        return SKIT_ERROR(SKIT_EOVERFLOW, "block means size overflows size_t");
    double *qm = skit_malloc(count, sizeof(double));
    if (!qm) return SKIT_ENOMEM;
    double *km = qm + rows * d;
    attn_block_means(n, d, q, ldq, s, mask, 0, qm, NULL);
    attn_block_means(n, d, k, ldk, s, mask, 0, km, NULL);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)rows, (int)rows, (int)d, scale, qm,
                (int)rows, km, (int)rows, 0.0, c, (int)ldc);
    skit_free(qm);
    return SKIT_OK;
}

/* ---- top-M selection ------------------------------------------------------ */

/* a before b: larger key, then smaller index (a total order: deterministic) */
static inline int better(uint32_t a, uint32_t b, const double *key)
{
    double ka = key[a], kb = key[b];
    if (ka != kb) return ka > kb;
    return a < b;
}

void attn_select_top(uint32_t *idx, size_t count, size_t m, const double *key)
{
    if (m == 0 || m >= count) return;
    /* quickselect with Hoare's partition around the middle element, so that
     * idx[0..m) end up the m best in some order */
    size_t lo = 0, hi = count - 1, target = m - 1;
    while (lo < hi) {
        uint32_t pivot = idx[lo + (hi - lo) / 2];
        size_t i = lo - 1, j = hi + 1; /* unsigned wrap-around is intended */
        for (;;) {
            do i++; while (better(idx[i], pivot, key));
            do j--; while (better(pivot, idx[j], key));
            if (i >= j) break;
            uint32_t tmp = idx[i];
            idx[i] = idx[j];
            idx[j] = tmp;
        }
        /* idx[lo..j] precede idx[j+1..hi] in the order */
        if (target <= j)
            hi = j;
        else
            lo = j + 1;
    }
}

double attn_kth_largest(double *a, size_t count, size_t k)
{
    /* quickselect (Hoare partition, descending) on the values themselves:
     * no index indirection, so it streams through memory */
    size_t lo = 0, hi = count - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double x = a[lo], y = a[mid], z = a[hi];
        double pivot = (x > y) ? ((y > z) ? y : (x > z ? z : x)) : ((x > z) ? x : (y > z ? z : y));
        size_t i = lo - 1, j = hi + 1; /* unsigned wrap-around is intended */
        for (;;) {
            do i++; while (a[i] > pivot);
            do j--; while (a[j] < pivot);
            if (i >= j) break;
            double t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return a[k];
}
