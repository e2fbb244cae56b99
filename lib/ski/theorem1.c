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

int skit_theorem1_evaluate(skit_theorem1 *ctx, size_t r, const skit_interp_options *options,
                           double pinv_rtol, skit_theorem1_terms *t)
{
    SKIT_REQUIRE_PTR(ctx);
    SKIT_REQUIRE_PTR(options);
    SKIT_REQUIRE_PTR(t);
    size_t n = ctx->n, nn = n * n;
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
    int exact = W->exactness;
    size_t N = exact >= 1 ? (size_t)exact : 1;
    t->degree = N;

    size_t nr = n * r;
    double *Wd = skit_malloc(nr, sizeof *Wd), *A = skit_malloc(r * r, sizeof *A);
    double *Ap = skit_malloc(r * r, sizeof *Ap), *F = skit_malloc(nr, sizeof *F);
    double *B = skit_malloc(nr, sizeof *B), *WA = skit_malloc(nr, sizeof *WA);
    double *AWt = skit_malloc(nr, sizeof *AWt), *FAp = skit_malloc(nr, sizeof *FAp);
    double *ApB = skit_malloc(nr, sizeof *ApB), *sa = skit_malloc(r, sizeof *sa);
    double *Acopy = skit_malloc(r * r, sizeof *Acopy);
    int status = SKIT_OK;
    if (!Wd || !A || !Ap || !F || !B || !WA || !AWt || !FAp || !ApB || !sa || !Acopy)
        status = SKIT_ENOMEM;
    if (status == SKIT_OK)
        status = ski_nystrom_factors(ctx->kernel, n, r, options->lo, options->hi, A, F, B);
    if (status != SKIT_OK) goto done;
    skit_interp_weights_dense(W, Wd, n);

    /* A: singular values and pseudo-inverse */
    memcpy(Acopy, A, r * r * sizeof *A);
    status = skit_svd(r, r, Acopy, r, sa, NULL, 1, NULL, 1);
    if (status != SKIT_OK) goto done;
    t->sigma1_a = sa[0];
    t->sigma_r_a = sa[r - 1];
    status = skit_pinv(r, r, A, r, pinv_rtol, Ap, r, &t->a_rank);
    if (status != SKIT_OK) goto done;
    t->a_nonsingular = t->a_rank == r;

    /* n x r factors */
    if ((status = skit_spectral_norm(n, r, F, n, &t->sigma1_f)) != SKIT_OK) goto done;
    if ((status = skit_spectral_norm(r, n, B, r, &t->sigma1_b)) != SKIT_OK) goto done;
    if ((status = skit_spectral_norm(n, r, Wd, n, &t->w_norm)) != SKIT_OK) goto done;
    t->w_inf = 0;
    t->w_max_abs = 0;
    for (size_t i = 0; i < n; i++) {
        double row = 0;
        for (size_t k = 0; k < W->width; k++) {
            double v = fabs(W->weights[i * W->width + k]);
            row += v;
            if (v > t->w_max_abs) t->w_max_abs = v;
        }
        if (row > t->w_inf) t->w_inf = row;
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)r, (int)r, 1.0, Wd, (int)n,
                A, (int)r, 0.0, WA, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)r, (int)n, (int)r, 1.0, A, (int)r,
                Wd, (int)n, 0.0, AWt, (int)r);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)r, (int)r, 1.0, F, (int)n,
                Ap, (int)r, 0.0, FAp, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)n, (int)r, 1.0, Ap, (int)r,
                B, (int)r, 0.0, ApB, (int)r);
    if ((status = skit_spectral_norm(n, r, FAp, n, &t->f_ainv)) != SKIT_OK) goto done;
    if ((status = skit_spectral_norm(r, n, ApB, r, &t->ainv_b)) != SKIT_OK) goto done;
    /* S = W A W^T and Nys = F A^+ B (before WA, AW^T become differences) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)r, 1.0, WA, (int)n,
                Wd, (int)n, 0.0, ctx->S, (int)n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)r, 1.0, FAp,
                (int)n, B, (int)r, 0.0, ctx->Nys, (int)n);
    double max1, max2;
    for (size_t i = 0; i < nr; i++) {
        WA[i] -= F[i];
        AWt[i] -= B[i];
    }
    if ((status = skit_spectral_norm(n, r, WA, n, &t->wa_f)) != SKIT_OK) goto done;
    if ((status = skit_spectral_norm(r, n, AWt, r, &t->awt_b)) != SKIT_OK) goto done;
    t->wa_f_frobenius = frobenius(n, r, WA, n, &max1);
    t->awt_b_frobenius = frobenius(r, n, AWt, r, &max2);
    t->wa_f_max_entry = SKIT_MAX(max1, max2);

    /* T_opt = U_r diag(s_r) V_r^T (the scaled U_r goes into FAp, no longer needed) */
    for (size_t j = 0; j < r; j++)
        for (size_t i = 0; i < n; i++) FAp[i + j * n] = ctx->U[i + j * n] * ctx->s[j];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)r, 1.0, FAp, (int)n,
                ctx->Vt, (int)n, 0.0, ctx->Topt, (int)n);
    t->t_norm = ctx->s[0];
    t->sigma_next = r < n ? ctx->s[r] : 0.0;

    subtract(nn, ctx->S, ctx->Topt, ctx->D);
    if ((status = norm2(ctx->method, n, n, ctx->D, n, &t->e_ski)) != SKIT_OK) goto done;
    subtract(nn, ctx->Nys, ctx->Topt, ctx->D);
    if ((status = norm2(ctx->method, n, n, ctx->D, n, &t->e_nyst)) != SKIT_OK) goto done;
    subtract(nn, ctx->T, ctx->S, ctx->D);
    if ((status = norm2(ctx->method, n, n, ctx->D, n, &t->ski_error)) != SKIT_OK) goto done;
    subtract(nn, ctx->T, ctx->Nys, ctx->D);
    if ((status = norm2(ctx->method, n, n, ctx->D, n, &t->nystrom_error)) != SKIT_OK) goto done;
    subtract(nn, ctx->S, ctx->Nys, ctx->D);
    if ((status = norm2(ctx->method, n, n, ctx->D, n, &t->ski_nystrom)) != SKIT_OK) goto done;
    if ((status = norm2(ctx->method, n, n, ctx->S, n, &t->ski_norm)) != SKIT_OK) goto done;
    for (size_t i = 0; i < n; i++) {
        int alive = 0, outside = 0;
        for (size_t k = 0; k < W->width; k++) {
            double v = W->weights[i * W->width + k];
            if (fabs(v) > 1e-6) alive = 1;
            if (v < 0 || v > 1) outside = 1;
        }
        t->w_rows_alive += (size_t)alive;
        t->w_rows_outside += (size_t)outside;
    }

    /* interpolation factor psi and the lags the remainder formula visits */
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
    t->lag_lo = SKIT_MIN(amin - pr, p0 - bmax);
    t->lag_hi = SKIT_MAX(bmax - p0, pr - amin);
    t->psi_linear_h2_8 = W->spacing * W->spacing / 8.0;
    skit_derivative_bound L;
    status = skit_kernel_derivative_bound(ctx->kernel, N + 1, t->lag_lo, t->lag_hi, &L);
    if (status != SKIT_OK) goto done;
    t->lipschitz = L.value;
    t->lipschitz_kind = L.kind;
    t->smooth = L.smooth;

    /* does the remainder formula apply to every entry? Only a non-smooth point
     * of k strictly inside a stencil's (shifted) hull can break it. */
    t->entrywise_valid = exact >= 1;
    if (exact >= 1 && !L.smooth) {
        for (size_t i = 0; i < n && t->entrywise_valid; i++) {
            double x = W->points[i];
            double a = SKIT_MIN(W->inducing[W->start[i]], x);
            double b = SKIT_MAX(W->inducing[W->start[i] + W->width - 1], x);
            for (size_t j = 0; j < r; j++) {
                double p = W->inducing[j];
                int s1 = 0, s2 = 0;
                skit_kernel_smoothness(ctx->kernel, N + 1, a - p, b - p, &s1);
                skit_kernel_smoothness(ctx->kernel, N + 1, p - b, p - a, &s2);
                if (!s1 || !s2) {
                    t->entrywise_valid = 0;
                    break;
                }
            }
        }
    }

    /* the chain */
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
        t->interp_bound = sqrt((double)n * (double)r) * psi * L.value;
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
done:
    skit_interp_weights_destroy(W);
    skit_free(Wd);
    skit_free(A);
    skit_free(Ap);
    skit_free(F);
    skit_free(B);
    skit_free(WA);
    skit_free(AWt);
    skit_free(FAp);
    skit_free(ApB);
    skit_free(sa);
    skit_free(Acopy);
    return status;
}
