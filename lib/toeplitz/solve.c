/* solve.c — Toeplitz solves that check their answers (skit/toeplitz.h).
 *
 * The Levinson recursions (levinson.c) are O(n^2) but not backward stable
 * for every nonsingular T: a small leading minor, far from singular
 * enough to stop the recursion, can leave an answer with a large
 * residual (n = 8, cond(T) = 3.4, t_0 = 1e-12: relative error 2e-4). So
 * every answer's normwise backward error is measured, and a miss goes to
 *   1. iterative refinement with the same recursion (cheap; it repairs
 *      mild instability: each step multiplies the error by roughly the
 *      recursion's own relative error), then
 *   2. LAPACK's dgesv on the dense matrix (LU with partial pivoting,
 *      backward stable in practice), for n <= SKIT_TOEPLITZ_SOLVE_DENSE_MAX,
 * and an answer that still misses the bound is an error, never a result.
 *
 * Residuals b - T x come from the FFT plan for n >= RESIDUAL_FFT_MIN (its
 * rounding, ~ eps log n ||T|| ||x||, is far below the tolerance 32 n eps)
 * and from the O(n^2) definition below that. */
#include "config.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "toeplitz/toeplitz_internal.h"

enum { RESIDUAL_FFT_MIN = 256 };

/* One solve's matrix and the scratch it runs in. */
typedef struct solve_problem {
    size_t n, nrhs;
    const double *t;      /* SPD: the first column; NULL for the general solve */
    const double *coeffs; /* 2n-1 coefficients (SPD: the symmetric copy) */
    double norm_inf;      /* ||T||_inf (max row sum) */
    double norm_1;        /* ||T||_1 (max column sum) */
    double *scratch;      /* 4n doubles for the recursion */
    skit_toeplitz_plan *plan; /* residuals for n >= RESIDUAL_FFT_MIN, or NULL */
} solve_problem;

/* ||T||_inf and ||T||_1 by prefix sums of |t_k|: row i sums t_{i-n+1..i},
 * column j sums t_{-j..n-1-j}. */
static void toeplitz_norms(solve_problem *p, double *prefix)
{
    size_t n = p->n, L = 2 * n - 1;
    prefix[0] = 0.0;
    for (size_t k = 0; k < L; k++) prefix[k + 1] = prefix[k] + fabs(p->coeffs[k]);
    p->norm_inf = p->norm_1 = 0.0;
    for (size_t i = 0; i < n; i++) {
        p->norm_inf = fmax(p->norm_inf, prefix[i + n] - prefix[i]);      /* k = i-n+1..i */
        p->norm_1 = fmax(p->norm_1, prefix[2 * n - 1 - i] - prefix[n - 1 - i]); /* j = i */
    }
}

static int run_levinson(const solve_problem *p, size_t nrhs, double *W, levinson_outcome *out)
{
    return p->t ? toeplitz_levinson_spd(p->n, p->t, nrhs, W, p->scratch, out)
                : toeplitz_levinson_general(p->n, p->coeffs, nrhs, W, p->scratch, out);
}

/* R = B - T X (X, R: n x nrhs with ld n). */
static int residual(const solve_problem *p, const double *B, size_t ldb, const double *X, double *R)
{
    size_t n = p->n;
    if (p->plan) {
        SKIT_TRY(skit_toeplitz_plan_execute(p->plan, X, n, R, n, NULL));
        for (size_t j = 0; j < p->nrhs; j++)
            for (size_t i = 0; i < n; i++) R[i + j * n] = B[i + j * ldb] - R[i + j * n];
        return SKIT_OK;
    }
    for (size_t j = 0; j < p->nrhs; j++) {
        double *r = R + j * n;
        const double *x = X + j * n;
        for (size_t i = 0; i < n; i++) r[i] = B[i + j * ldb];
        for (size_t c = 0; c < n; c++) { /* column c of T is coeffs + n-1-c */
            const double *col = p->coeffs + (n - 1 - c);
            double xc = x[c];
            for (size_t i = 0; i < n; i++) r[i] -= col[i] * xc;
        }
    }
    return SKIT_OK;
}

/* max_j ||r_j||_inf / (||T||_inf ||x_j||_inf + ||b_j||_inf); +Inf when
 * anything is not finite. */
static double backward_error(const solve_problem *p, const double *B, size_t ldb, const double *X,
                             const double *R)
{
    size_t n = p->n;
    double worst = 0.0;
    for (size_t j = 0; j < p->nrhs; j++) {
        double r = 0.0, x = 0.0, b = 0.0;
        for (size_t i = 0; i < n; i++) {
            r = fmax(r, fabs(R[i + j * n]));
            x = fmax(x, fabs(X[i + j * n]));
            b = fmax(b, fabs(B[i + j * ldb]));
        }
        if (!isfinite(r) || !isfinite(x)) return INFINITY;
        double den = p->norm_inf * x + b;
        double eta = den > 0 ? r / den : (r > 0 ? INFINITY : 0.0);
        worst = fmax(worst, eta);
    }
    return worst;
}

static void copy_rhs(size_t n, size_t nrhs, const double *B, size_t ldb, double *W)
{
    for (size_t j = 0; j < nrhs; j++) memcpy(W + j * n, B + j * ldb, n * sizeof *W);
}

/* Refine W by x += T^{-1} (b - T x) with the recursion until the backward
 * error meets tol or stops improving. R is n x nrhs scratch, Wbest keeps
 * the best iterate. Returns the backward error of W. */
static int refine(const solve_problem *p, const double *B, size_t ldb, double *W, double *R,
                  double *Wbest, double tol, double *eta, int *steps)
{
    size_t count = p->n * p->nrhs;
    *steps = 0;
    for (int s = 0; s < SKIT_TOEPLITZ_SOLVE_REFINEMENTS && *eta > tol; s++) {
        memcpy(Wbest, W, count * sizeof *W);
        SKIT_TRY(residual(p, B, ldb, W, R));
        levinson_outcome out;
        if (run_levinson(p, p->nrhs, R, &out) != SKIT_OK) break;
        for (size_t i = 0; i < count; i++) W[i] += R[i];
        SKIT_TRY(residual(p, B, ldb, W, R));
        double next = backward_error(p, B, ldb, W, R);
        if (!(next < *eta)) { /* no progress: keep the better iterate */
            memcpy(W, Wbest, count * sizeof *W);
            break;
        }
        *eta = next;
        *steps = s + 1;
    }
    return SKIT_OK;
}

/* Dense LU fallback: W = T^{-1} B by dgetrf/dgetrs, rcond by dgecon. */
static int dense_solve(const solve_problem *p, const double *B, size_t ldb, double *W, double *rcond)
{
    size_t n = p->n;
    size_t bytes = n * n * sizeof(double) + n * sizeof(lapack_int);
    SKIT_TRY(skit_memory_check(bytes, "dense LU fallback of the Toeplitz solve"));
    double *A = skit_malloc(n * n, sizeof(double));
    lapack_int *ipiv = skit_malloc(n, sizeof(lapack_int));
    int status = A && ipiv ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) status = skit_toeplitz_dense(n, n, p->coeffs, SKIT_BIDIRECTIONAL, A, n);
    if (status == SKIT_OK) {
        lapack_int ln = (lapack_int)n, info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, ln, ln, A, ln, ipiv);
        if (info > 0) {
            status = SKIT_ERROR(SKIT_EBREAKDOWN,
                                "the Toeplitz matrix is singular: LU with partial pivoting found "
                                "U(%d, %d) = 0 (n = %zu)",
                                (int)info, (int)info, n);
        } else if (info < 0) {
            status = SKIT_ERROR(SKIT_ELIBRARY, "LAPACKE_dgetrf failed (info = %d)", (int)info);
        } else {
            copy_rhs(n, p->nrhs, B, ldb, W);
            info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', ln, (lapack_int)p->nrhs, A, ln, ipiv, W, ln);
            if (info == 0) info = LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', ln, A, ln, p->norm_1, rcond);
            if (info != 0) status = SKIT_ERROR(SKIT_ELIBRARY, "LAPACKE_dgetrs/dgecon failed (info = %d)", (int)info);
        }
    }
    skit_free(A);
    skit_free(ipiv);
    return status;
}

/* rcond = 1 / (||T||_1 ||T^{-1}||_1), ||T^{-1}||_1 estimated by LAPACK's
 * dlacn2 (Hager–Higham) with solves by the recursion: T^T is the Toeplitz
 * matrix of the reversed coefficients, which `reversed` holds (2n-1). */
static int estimate_rcond(const solve_problem *p, double *reversed, double *v, double *x, double *rcond)
{
    size_t n = p->n;
    solve_problem pt = *p;
    if (!p->t) {
        for (size_t k = 0; k < 2 * n - 1; k++) reversed[k] = p->coeffs[2 * n - 2 - k];
        pt.coeffs = reversed;
    }
    lapack_int isgn[1], isave[3] = {0, 0, 0}, kase = 0, ln = (lapack_int)n;
    lapack_int *signs = n > 1 ? skit_malloc(n, sizeof(lapack_int)) : isgn;
    if (!signs) return SKIT_ENOMEM;
    double est = 0.0;
    for (size_t i = 0; i < n; i++) x[i] = 1.0 / (double)n;
    int status = SKIT_OK;
    for (int iter = 0; iter < 12; iter++) {
        LAPACKE_dlacn2(ln, v, x, signs, &est, &kase, isave);
        if (kase == 0) break;
        levinson_outcome out;
        if (run_levinson(kase == 1 ? p : &pt, 1, x, &out) != SKIT_OK) {
            est = INFINITY; /* the recursion cannot apply T^{-1}: no estimate */
            break;
        }
    }
    if (signs != isgn) skit_free(signs);
    *rcond = est > 0 && isfinite(est) && p->norm_1 > 0 ? 1.0 / (p->norm_1 * est) : 0.0;
    return status;
}

/* Publish W into X only when finite (it is: backward error was finite). */
static void publish(size_t n, size_t nrhs, const double *W, double *X, size_t ldx)
{
    for (size_t j = 0; j < nrhs; j++) memmove(X + j * ldx, W + j * n, n * sizeof *X);
}

static int check_solve_args(size_t n, size_t nrhs, const double *B, size_t ldb, const double *X,
                            size_t ldx, size_t *doubles)
{
    SKIT_REQUIRE_PTR(B);
    SKIT_REQUIRE_PTR(X);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (nrhs == 0) return SKIT_ERROR(SKIT_EDOM, "nrhs = 0 out of range: need nrhs >= 1");
    if (ldb < n) return SKIT_ERROR(SKIT_ESHAPE, "ldb = %zu out of range: need ldb >= n (= %zu)", ldb, n);
    if (ldx < n) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu out of range: need ldx >= n (= %zu)", ldx, n);
    /* W, R, Wbest: 3 n nrhs; recursion scratch 4n; coefficient copies and
     * prefix sums 3 (2n-1) + 2 < 6n + 2; estimator vectors 2n */
    size_t extent, count, bytes;
    if (skit_size_mul(nrhs - 1, SKIT_MAX(ldb, ldx), &extent) != SKIT_OK ||
        skit_size_add(extent, n, &extent) != SKIT_OK || skit_size_mul(n, nrhs, &count) != SKIT_OK ||
        skit_size_mul(count, 3, &count) != SKIT_OK || skit_size_add(count, 12 * n + 2, doubles) != SKIT_OK ||
        skit_size_mul(*doubles, sizeof(double), &bytes) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "Toeplitz solve (n = %zu, nrhs = %zu) overflows size_t", n, nrhs);
    SKIT_TRY(skit_memory_check(bytes, "Toeplitz solve workspace"));
    return skit_check_finite_matrix(B, n, nrhs, ldb, "B");
}

/* The answer failed every method: say how close each came. */
static int report_failure(const solve_problem *p, const levinson_outcome *lev, int lev_status,
                          double eta, double tol)
{
    if (lev_status != SKIT_OK && p->n > SKIT_TOEPLITZ_SOLVE_DENSE_MAX)
        return SKIT_ERROR(SKIT_EBREAKDOWN,
                          "Levinson recursion broke down at order %zu (%s %g, tolerance %g) and the "
                          "dense fallback is limited to n <= %d (n = %zu)",
                          lev->failed_order, lev->overflow ? "overflow; pivot" : "pivot", lev->pivot,
                          lev->tolerance, SKIT_TOEPLITZ_SOLVE_DENSE_MAX, p->n);
    if (p->n > SKIT_TOEPLITZ_SOLVE_DENSE_MAX)
        return SKIT_ERROR(SKIT_EBREAKDOWN,
                          "Toeplitz solve inaccurate: backward error %.3g > tolerance %.3g after "
                          "refinement, and the dense fallback is limited to n <= %d (n = %zu)",
                          eta, tol, SKIT_TOEPLITZ_SOLVE_DENSE_MAX, p->n);
    return SKIT_ERROR(SKIT_EBREAKDOWN,
                      "Toeplitz solve inaccurate: backward error %.3g > tolerance %.3g even by "
                      "dense LU (n = %zu)",
                      eta, tol, p->n);
}

/* The checked solve shared by the SPD and general entry points. */
static int solve_checked(solve_problem *p, const double *B, size_t ldb, double *X, size_t ldx,
                         double *mem, skit_toeplitz_solve_info *info)
{
    size_t n = p->n, count = n * p->nrhs;
    double *W = mem, *R = W + count, *Wbest = R + count;
    double *rest = Wbest + count; /* 12n + 2 doubles */
    p->scratch = rest;
    double *prefix = rest + 4 * n; /* 2n, also the reversed coefficients */
    double *v = prefix + 2 * n, *xe = v + n;
    toeplitz_norms(p, prefix);
    const double tol = SKIT_TOEPLITZ_SOLVE_TOLERANCE(n);
    skit_toeplitz_solve_info local = {.tolerance = tol, .levinson_backward_error = NAN};
    skit_toeplitz_solve_info *rep = info ? info : &local;
    *rep = local;

    copy_rhs(n, p->nrhs, B, ldb, W);
    levinson_outcome lev;
    int lev_status = run_levinson(p, p->nrhs, W, &lev);
    if (lev_status == SKIT_ENOTPD)
        return SKIT_ERROR(SKIT_ENOTPD,
                          "leading %zu x %zu minor of the symmetric Toeplitz matrix is not "
                          "(numerically) positive definite: pivot %g <= %g (n eps sum|t|)",
                          lev.failed_order, lev.failed_order, lev.pivot, lev.tolerance);
    double eta = INFINITY;
    if (lev_status == SKIT_OK) {
        rep->levinson_completed = 1;
        SKIT_TRY(residual(p, B, ldb, W, R));
        eta = rep->levinson_backward_error = backward_error(p, B, ldb, W, R);
        if (eta > tol) {
            SKIT_TRY(refine(p, B, ldb, W, R, Wbest, tol, &eta, &rep->refinement_steps));
            rep->solver = SKIT_TOEPLITZ_SOLVER_REFINED;
        }
    }
    rep->backward_error = eta;
    if (eta <= tol && info) SKIT_TRY(estimate_rcond(p, prefix, v, xe, &rep->rcond));
    if (!(eta <= tol) && n <= SKIT_TOEPLITZ_SOLVE_DENSE_MAX) {
        SKIT_TRY(dense_solve(p, B, ldb, W, &rep->rcond));
        SKIT_TRY(residual(p, B, ldb, W, R));
        eta = rep->backward_error = backward_error(p, B, ldb, W, R);
        rep->solver = SKIT_TOEPLITZ_SOLVER_DENSE_LU;
    }
    if (!(eta <= tol)) return report_failure(p, &lev, lev_status, eta, tol);
    publish(n, p->nrhs, W, X, ldx);
    return SKIT_OK;
}

static int with_residual_plan(solve_problem *p, const double *B, size_t ldb, double *X, size_t ldx,
                              double *mem, skit_toeplitz_solve_info *info)
{
    if (p->n >= RESIDUAL_FFT_MIN) {
        skit_toeplitz_options o;
        skit_toeplitz_options_default(&o);
        o.sharing = SKIT_TOEPLITZ_SHARED;
        /* without a plan the O(n^2) residual still works: only slower */
        if (skit_toeplitz_plan_create(&p->plan, p->n, p->n, p->nrhs, &o, p->coeffs) != SKIT_OK)
            p->plan = NULL;
    }
    int status = solve_checked(p, B, ldb, X, ldx, mem, info);
    skit_toeplitz_plan_destroy(p->plan);
    return status;
}

int skit_toeplitz_solve_spd_with_info(size_t n, const double *t, size_t nrhs, const double *B,
                                      size_t ldb, double *X, size_t ldx,
                                      skit_toeplitz_solve_info *info)
{
    SKIT_REQUIRE_PTR(t);
    size_t doubles;
    SKIT_TRY(check_solve_args(n, nrhs, B, ldb, X, ldx, &doubles));
    SKIT_TRY(skit_check_finite(t, n, "t"));
    if (!(t[0] > 0))
        return SKIT_ERROR(SKIT_ENOTPD, "t[0] = %g: a positive-definite Toeplitz matrix needs t[0] > 0",
                          t[0]);
    double *mem = skit_malloc(doubles + 2 * n, sizeof(double));
    if (!mem) return SKIT_ENOMEM;
    double *coeffs = mem + doubles; /* the symmetric 2n-1 coefficients */
    for (size_t k = 0; k < n; k++) coeffs[n - 1 + k] = coeffs[n - 1 - k] = t[k];
    solve_problem p = {.n = n, .nrhs = nrhs, .t = t, .coeffs = coeffs};
    int status = with_residual_plan(&p, B, ldb, X, ldx, mem, info);
    skit_free(mem);
    return status;
}

int skit_toeplitz_solve_with_info(size_t n, const double *coeffs, size_t nrhs, const double *B,
                                  size_t ldb, double *X, size_t ldx, skit_toeplitz_solve_info *info)
{
    SKIT_REQUIRE_PTR(coeffs);
    size_t doubles;
    SKIT_TRY(check_solve_args(n, nrhs, B, ldb, X, ldx, &doubles));
    SKIT_TRY(skit_check_finite(coeffs, 2 * n - 1, "coeffs"));
    double *mem = skit_malloc(doubles, sizeof(double));
    if (!mem) return SKIT_ENOMEM;
    solve_problem p = {.n = n, .nrhs = nrhs, .coeffs = coeffs};
    int status = with_residual_plan(&p, B, ldb, X, ldx, mem, info);
    skit_free(mem);
    return status;
}

int skit_toeplitz_solve_spd(size_t n, const double *t, size_t nrhs, const double *B, size_t ldb,
                            double *X, size_t ldx)
{
    return skit_toeplitz_solve_spd_with_info(n, t, nrhs, B, ldb, X, ldx, NULL);
}

int skit_toeplitz_solve(size_t n, const double *coeffs, size_t nrhs, const double *B, size_t ldb,
                        double *X, size_t ldx)
{
    return skit_toeplitz_solve_with_info(n, coeffs, nrhs, B, ldb, X, ldx, NULL);
}

SKIT_DEFINE_STRUCT_SIZE(skit_toeplitz_struct_size,
                        SKIT_STRUCT(skit_toeplitz_options),
                        SKIT_STRUCT(skit_toeplitz_solve_info))
