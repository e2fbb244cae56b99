/* theorem1.c — every term of Theorem 1 of "SKI to go Faster" (Appendix D.1)
 * and of each step of its proof, computed from dense matrices so that a user
 * sees which inequality makes the bound loose. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "ski/ski_internal.h"
#include "skit/spectral.h"

struct skit_theorem1 {
    const skit_kernel *kernel;
    size_t n;
    skit_norm_method method;
    double *T, *U, *s, *Vt; /* T and its SVD */
    double *Topt, *S, *Nys, *D; /* n x n scratch */
};

static const char *step_names[SKIT_THEOREM1_CHAIN] = {
    "", "triangle", "eq1_eq2", "sigma_ratio", "frobenius", "interpolation", "w_2_to_inf", "w_inf_to_N+1"};

const char *skit_theorem1_step_name(int step)
{
    return step >= 1 && step < SKIT_THEOREM1_CHAIN ? step_names[step] : "";
}

void skit_theorem1_destroy(skit_theorem1 *ctx)
{
    if (!ctx) return;
    skit_free(ctx->T);
    skit_free(ctx->U);
    skit_free(ctx->s);
    skit_free(ctx->Vt);
    skit_free(ctx->Topt);
    skit_free(ctx->S);
    skit_free(ctx->Nys);
    skit_free(ctx->D);
    skit_free(ctx);
}

int skit_theorem1_create(skit_theorem1 **ctx, const skit_kernel *kernel, size_t n,
                         skit_norm_method method)
{
    SKIT_REQUIRE_PTR(ctx);
    *ctx = NULL;
    SKIT_REQUIRE_PTR(kernel);
    if (n < 2 || n > ((size_t)1 << 16))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need 2 <= n <= 65536 (dense matrices)", n);
    if (method != SKIT_NORM_DENSE_SVD && method != SKIT_NORM_LANCZOS)
        return SKIT_ERROR(SKIT_EINVAL, "norm method = %d unknown: need dense-svd or lanczos", (int)method);
    size_t nn = n * n;
    /* 7 n x n matrices here plus about 4 n^2 of LAPACK workspace */
    SKIT_TRY(skit_memory_check(11 * nn * sizeof(double), "Theorem 1 evaluator (dense n x n)"));
    skit_theorem1 *c = skit_calloc(1, sizeof *c);
    if (!c) return SKIT_ENOMEM;
    c->kernel = kernel;
    c->n = n;
    c->method = method;
    c->T = skit_malloc(nn, sizeof(double));
    c->U = skit_malloc(nn, sizeof(double));
    c->s = skit_malloc(n, sizeof(double));
    c->Vt = skit_malloc(nn, sizeof(double));
    c->Topt = skit_malloc(nn, sizeof(double));
    c->S = skit_malloc(nn, sizeof(double));
    c->Nys = skit_malloc(nn, sizeof(double));
    c->D = skit_malloc(nn, sizeof(double));
    int status = SKIT_OK;
    if (!c->T || !c->U || !c->s || !c->Vt || !c->Topt || !c->S || !c->Nys || !c->D) status = SKIT_ENOMEM;
    double *coeffs = status == SKIT_OK ? skit_malloc(2 * n - 1, sizeof *coeffs) : NULL;
    if (status == SKIT_OK && !coeffs) status = SKIT_ENOMEM;
    if (status == SKIT_OK) status = skit_kernel_toeplitz_coeffs(kernel, n, 1.0, coeffs);
    if (status == SKIT_OK) {
        ski_toeplitz_fill(n, coeffs, c->T, n);
        status = skit_check_finite(c->T, nn, "kernel matrix T");
    }
    if (status == SKIT_OK) status = skit_svd(n, n, c->T, n, c->s, c->U, n, c->Vt, n);
    skit_free(coeffs);
    if (status != SKIT_OK) {
        skit_theorem1_destroy(c);
        return status;
    }
    *ctx = c;
    return SKIT_OK;
}

/* ---- norms ------------------------------------------------------------------ */

typedef struct dense_op {
    const double *M;
    size_t m, n, ld;
} dense_op;

static int dense_apply(void *context, int transpose, const double *x, double *y)
{
    const dense_op *op = context;
    cblas_dgemv(CblasColMajor, transpose ? CblasTrans : CblasNoTrans, (int)op->m, (int)op->n, 1.0,
                op->M, (int)op->ld, x, 1, 0.0, y, 1);
    return SKIT_OK;
}

/* ||M||_2 of an m x n matrix: dense SVD, or Lanczos for the big square ones. */
static int norm2(skit_norm_method method, size_t m, size_t n, const double *M, size_t ld, double *out)
{
    if (method == SKIT_NORM_LANCZOS && m > 64 && n > 64) {
        dense_op op = {M, m, n, ld};
        size_t steps = 0, k = SKIT_MIN(m, n);
        return skit_spectral_norm_lanczos(m, n, dense_apply, &op, 1e-12, k, 1, out, &steps);
    }
    return skit_spectral_norm(m, n, M, ld, out);
}

static double frobenius(size_t m, size_t n, const double *M, size_t ld, double *max_entry)
{
    double s = 0, mx = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double v = M[i + j * ld];
            s += v * v;
            if (fabs(v) > mx) mx = fabs(v);
        }
    if (max_entry) *max_entry = mx;
    return sqrt(s);
}

/* out = a - b, n x n */
static void subtract(size_t nn, const double *a, const double *b, double *out)
{
    for (size_t i = 0; i < nn; i++) out[i] = a[i] - b[i];
}

/* ---- the evaluator ------------------------------------------------------------- */

static double fact(size_t m)
{
    double f = 1;
    for (size_t i = 2; i <= m; i++) f *= (double)i;
    return f;
}

/* The n x r and r x r work arrays of one evaluation. */
typedef struct theorem1_work {
    double *Wd, *A, *Ap, *F, *B, *WA, *AWt, *FAp, *ApB, *sa, *Acopy;
} theorem1_work;

static void work_free(theorem1_work *w)
{
    double **all[] = {&w->Wd, &w->A, &w->Ap, &w->F, &w->B, &w->WA, &w->AWt, &w->FAp, &w->ApB, &w->sa, &w->Acopy};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) skit_free(*all[i]);
}

static int work_alloc(theorem1_work *w, size_t n, size_t r)
{
    size_t nr = n * r;
    memset(w, 0, sizeof *w);
    w->Wd = skit_malloc(nr, sizeof(double));
    w->A = skit_malloc(r * r, sizeof(double));
    w->Ap = skit_malloc(r * r, sizeof(double));
    w->F = skit_malloc(nr, sizeof(double));
    w->B = skit_malloc(nr, sizeof(double));
    w->WA = skit_malloc(nr, sizeof(double));
    w->AWt = skit_malloc(nr, sizeof(double));
    w->FAp = skit_malloc(nr, sizeof(double));
    w->ApB = skit_malloc(nr, sizeof(double));
    w->sa = skit_malloc(r, sizeof(double));
    w->Acopy = skit_malloc(r * r, sizeof(double));
    if (!w->Wd || !w->A || !w->Ap || !w->F || !w->B || !w->WA || !w->AWt || !w->FAp || !w->ApB || !w->sa ||
        !w->Acopy)
        return SKIT_ENOMEM;
    return SKIT_OK;
}

/* |W|'s infinity norm, largest entry, rows still alive above 1e-6 and rows
 * with a weight outside [0, 1] */
static void weight_stats(const skit_interp_weights *W, size_t n, skit_theorem1_terms *t)
{
    t->w_inf = 0;
    t->w_max_abs = 0;
    for (size_t i = 0; i < n; i++) {
        double row = 0;
        int alive = 0, outside = 0;
        for (size_t k = 0; k < W->width; k++) {
            double v = W->weights[i * W->width + k];
            row += fabs(v);
            if (fabs(v) > t->w_max_abs) t->w_max_abs = fabs(v);
            if (fabs(v) > 1e-6) alive = 1;
            if (v < 0 || v > 1) outside = 1;
        }
        if (row > t->w_inf) t->w_inf = row;
        t->w_rows_alive += (size_t)alive;
        t->w_rows_outside += (size_t)outside;
    }
}

/* A's singular values and pseudo-inverse, the factors' norms, and the
 * n x n products S = W A W^T and Nys = F A^+ B into ctx */
static int factor_terms(skit_theorem1 *ctx, size_t r, double pinv_rtol, theorem1_work *w,
                        skit_theorem1_terms *t)
{
    const size_t n = ctx->n, nr = n * r;
    memcpy(w->Acopy, w->A, r * r * sizeof(double));
    SKIT_TRY(skit_svd(r, r, w->Acopy, r, w->sa, NULL, 1, NULL, 1));
    t->sigma1_a = w->sa[0];
    t->sigma_r_a = w->sa[r - 1];
    SKIT_TRY(skit_pinv(r, r, w->A, r, pinv_rtol, w->Ap, r, &t->a_rank));
    t->a_nonsingular = t->a_rank == r;
    SKIT_TRY(skit_spectral_norm(n, r, w->F, n, &t->sigma1_f));
    SKIT_TRY(skit_spectral_norm(r, n, w->B, r, &t->sigma1_b));
    SKIT_TRY(skit_spectral_norm(n, r, w->Wd, n, &t->w_norm));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)r, (int)r, 1.0, w->Wd, (int)n,
                w->A, (int)r, 0.0, w->WA, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)r, (int)n, (int)r, 1.0, w->A, (int)r,
                w->Wd, (int)n, 0.0, w->AWt, (int)r);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)r, (int)r, 1.0, w->F, (int)n,
                w->Ap, (int)r, 0.0, w->FAp, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)n, (int)r, 1.0, w->Ap, (int)r,
                w->B, (int)r, 0.0, w->ApB, (int)r);
    SKIT_TRY(skit_spectral_norm(n, r, w->FAp, n, &t->f_ainv));
    SKIT_TRY(skit_spectral_norm(r, n, w->ApB, r, &t->ainv_b));
    /* S = W A W^T and Nys = F A^+ B (before WA, AW^T become differences) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)r, 1.0, w->WA, (int)n,
                w->Wd, (int)n, 0.0, ctx->S, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)r, 1.0, w->FAp,
                (int)n, w->B, (int)r, 0.0, ctx->Nys, (int)n);
    double max1, max2;
    for (size_t i = 0; i < nr; i++) {
        w->WA[i] -= w->F[i];
        w->AWt[i] -= w->B[i];
    }
    SKIT_TRY(skit_spectral_norm(n, r, w->WA, n, &t->wa_f));
    SKIT_TRY(skit_spectral_norm(r, n, w->AWt, r, &t->awt_b));
    t->wa_f_frobenius = frobenius(n, r, w->WA, n, &max1);
    t->awt_b_frobenius = frobenius(r, n, w->AWt, r, &max2);
    t->wa_f_max_entry = SKIT_MAX(max1, max2);
    return SKIT_OK;
}

/* T_opt = U_r diag(s_r) V_r^T and the norms of the differences between
 * T, T_opt, S and Nys (scratch: n x r) */
static int error_terms(skit_theorem1 *ctx, size_t r, double *scratch, skit_theorem1_terms *t)
{
    const size_t n = ctx->n, nn = n * n;
    for (size_t j = 0; j < r; j++)
        for (size_t i = 0; i < n; i++) scratch[i + j * n] = ctx->U[i + j * n] * ctx->s[j];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)r, 1.0, scratch, (int)n,
                ctx->Vt, (int)n, 0.0, ctx->Topt, (int)n);
    t->t_norm = ctx->s[0];
    t->sigma_next = r < n ? ctx->s[r] : 0.0;
    const double *pairs[5][2] = {{ctx->S, ctx->Topt}, {ctx->Nys, ctx->Topt}, {ctx->T, ctx->S},
                                 {ctx->T, ctx->Nys}, {ctx->S, ctx->Nys}};
    double *norms[5] = {&t->e_ski, &t->e_nyst, &t->ski_error, &t->nystrom_error, &t->ski_nystrom};
    for (int k = 0; k < 5; k++) {
        subtract(nn, pairs[k][0], pairs[k][1], ctx->D);
        SKIT_TRY(norm2(ctx->method, n, n, ctx->D, n, norms[k]));
    }
    return norm2(ctx->method, n, n, ctx->S, n, &t->ski_norm);
}

/* The interpolation factor psi, the lags the remainder formula visits and
 * the kernel's derivative bound L on them */
static int remainder_terms(const skit_theorem1 *ctx, const skit_interp_weights *W,
                           const skit_interp_options *options, size_t N, skit_theorem1_terms *t,
                           skit_derivative_bound *L, double *psi_out)
{
    const size_t n = ctx->n, r = t->r;
    double p0 = W->inducing[0], pr = W->inducing[r - 1];
    double amin = INFINITY, bmax = -INFINITY, psi = 0;
    for (size_t i = 0; i < n; i++) {
        double x = W->points[i];
        const double *w = W->weights + i * W->width;
        double a = SKIT_MIN(W->inducing[W->start[i]], x);
        double b = SKIT_MAX(W->inducing[W->start[i] + W->width - 1], x);
        if (a < amin) amin = a;
        if (b > bmax) bmax = b;
        double v;
        if (options->scheme == SKIT_INTERP_CUBIC) {
            v = 0;
            for (size_t k = 0; k < W->width; k++) {
                double dx = fabs(W->inducing[W->start[i] + k] - x);
                v += fabs(w[k]) * dx * dx * dx;
            }
            v /= fact(3);
        } else {
            v = 1;
            for (size_t k = 0; k < W->width; k++) v *= x - W->inducing[W->start[i] + k];
            v = fabs(v) / fact(N + 1);
        }
        if (v > psi) psi = v;
    }
    *psi_out = psi;
    t->lag_lo = SKIT_MIN(amin - pr, p0 - bmax);
    t->lag_hi = SKIT_MAX(bmax - p0, pr - amin);
    t->psi_linear_h2_8 = W->spacing * W->spacing / 8.0;
    SKIT_TRY(skit_kernel_derivative_bound(ctx->kernel, N + 1, t->lag_lo, t->lag_hi, L));
    t->lipschitz = L->value;
    t->lipschitz_kind = L->kind;
    t->smooth = L->smooth;
    return SKIT_OK;
}

/* Does the remainder formula apply to every entry? Only a non-smooth
 * point of k strictly inside a stencil's (shifted) hull can break it. */
static int entrywise_valid(const skit_theorem1 *ctx, const skit_interp_weights *W, size_t N)
{
    for (size_t i = 0; i < ctx->n; i++) {
        double x = W->points[i];
        double a = SKIT_MIN(W->inducing[W->start[i]], x);
        double b = SKIT_MAX(W->inducing[W->start[i] + W->width - 1], x);
        for (size_t j = 0; j < W->r; j++) {
            double p = W->inducing[j];
            int s1 = 0, s2 = 0;
            skit_kernel_smoothness(ctx->kernel, N + 1, a - p, b - p, &s1);
            skit_kernel_smoothness(ctx->kernel, N + 1, p - b, p - a, &s2);
            if (!s1 || !s2) return 0;
        }
    }
    return 1;
}

/* The proof's inequality chain, its right-hand side, and its loosest step */
static void chain_terms(size_t n, size_t r, int exact, size_t N, double psi, double lipschitz,
                        skit_theorem1_terms *t)
{
    double en = t->e_nyst, wn = t->w_norm;
    double sf = t->sigma1_f / t->sigma_r_a, sb = t->sigma1_b / t->sigma_r_a;
    t->chain[0] = t->e_ski;
    t->chain[1] = t->ski_nystrom + en;
    t->chain[2] = SKIT_MIN(wn * t->wa_f + t->f_ainv * t->awt_b, wn * t->awt_b + t->ainv_b * t->wa_f) + en;
    t->chain[3] = SKIT_MIN(wn * t->wa_f + sf * t->awt_b, wn * t->awt_b + sb * t->wa_f) + en;
    t->chain[4] = SKIT_MIN(wn * t->wa_f_frobenius + sf * t->awt_b_frobenius,
                           wn * t->awt_b_frobenius + sb * t->wa_f_frobenius) + en;
    if (exact >= 1) {
        t->psi = psi;
        t->interp_bound = sqrt((double)n * (double)r) * psi * lipschitz;
        double smin = SKIT_MIN(sf, sb), eps = t->interp_bound;
        t->chain[5] = eps * (wn + smin) + en;
        t->chain[6] = eps * (sqrt((double)n) * t->w_inf + smin) + en;
        t->chain[7] = eps * ((double)(N + 1) * sqrt((double)n) + smin) + en;
        t->rhs = t->chain[7];
        t->rhs_valid = t->chain[6];
        t->holds = t->e_ski <= t->rhs ? 1 : 0;
    } else {
        t->psi = t->interp_bound = NAN;
        t->chain[5] = t->chain[6] = t->chain[7] = NAN;
        t->rhs = t->rhs_valid = NAN;
        t->holds = -1;
    }
    t->w_inf_le_n1 = t->w_inf <= (double)(N + 1) * (1 + 1e-12);
    double worst = -INFINITY;
    t->loosest_step = 0;
    for (int k = 1; k < SKIT_THEOREM1_CHAIN; k++) {
        double ratio = t->chain[k] / t->chain[k - 1];
        if (isfinite(ratio) && ratio > worst) {
            worst = ratio;
            t->loosest_step = k;
        }
    }
}

int skit_theorem1_evaluate(skit_theorem1 *ctx, size_t r, const skit_interp_options *options,
                           double pinv_rtol, skit_theorem1_terms *t)
{
    SKIT_REQUIRE_PTR(ctx);
    SKIT_REQUIRE_PTR(options);
    SKIT_REQUIRE_PTR(t);
    size_t n = ctx->n;
    if (r < 2 || r > n)
        return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need 2 <= r <= n (= %zu)", r, n);
    if (isnan(pinv_rtol)) return SKIT_ERROR(SKIT_EDOM, "pinv_rtol = NaN out of range");

    skit_interp_weights *W = NULL;
    SKIT_TRY(skit_interp_weights_create(&W, n, NULL, r, options));
    memset(t, 0, sizeof *t);
    t->n = n;
    t->r = r;
    t->width = W->width;
    t->spacing = W->spacing;
    const int exact = W->exactness;
    const size_t N = exact >= 1 ? (size_t)exact : 1;
    t->degree = N;

    theorem1_work w;
    skit_derivative_bound L;
    double psi = 0;
    int status = work_alloc(&w, n, r);
    if (status == SKIT_OK)
        status = ski_nystrom_factors(ctx->kernel, n, r, options->lo, options->hi, w.A, w.F, w.B);
    if (status == SKIT_OK) {
        skit_interp_weights_dense(W, w.Wd, n);
        weight_stats(W, n, t);
        status = factor_terms(ctx, r, pinv_rtol, &w, t);
    }
    if (status == SKIT_OK) status = error_terms(ctx, r, w.FAp, t); /* FAp is free by now */
    if (status == SKIT_OK) status = remainder_terms(ctx, W, options, N, t, &L, &psi);
    if (status == SKIT_OK) {
        t->entrywise_valid = exact >= 1 && (L.smooth || entrywise_valid(ctx, W, N));
        chain_terms(n, r, exact, N, psi, L.value, t);
    }
    skit_interp_weights_destroy(W);
    work_free(&w);
    return status;
}
