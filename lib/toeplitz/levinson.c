/* levinson.c — O(n^2) Toeplitz solves: Levinson–Durbin for symmetric
 * positive-definite matrices and the nonsymmetric Levinson recursion with
 * forward and backward vectors (Trench / Zohar).
 *
 * Both recursions grow the solution of the leading k x k system one order
 * at a time. The order-updating vectors (Durbin's y, or the forward and
 * backward vectors f, b) do not depend on the right-hand side, so they are
 * computed once and every right-hand side is updated with them in the same
 * pass: nrhs systems cost one recursion plus 2n^2 flops each.
 *
 * Failure must leave X untouched (the caller's data may live in X when it
 * aliases B), so the solutions are built in a scratch copy of B and copied
 * out only after the last order succeeded.
 *
 * Numerical singularity. Let T_k be the leading k x k block and
 * delta_k = 1 / (T_k^{-1})_{00} its pivot (delta_1 = t_0; for the SPD case
 * delta_k = t_0 * beta_k, Durbin's prediction-error variance). Because
 * sigma_min(T_k) <= |delta_k|, a pivot with
 *     |delta_k| <= n * eps * sum_k |t_k|
 * (sum |t_k| bounds ||T||_2) certifies that T_k is singular to working
 * precision relative to the matrix's scale: the recursion stops there with
 * SKIT_ENOTPD (SPD solver, also for a non-positive pivot) or
 * SKIT_EBREAKDOWN (general solver). A non-finite intermediate (overflow of
 * the vectors) is reported the same way, so the output is never NaN. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "core/internal.h"
#include "skit/toeplitz.h"
#include "core/simd.h"

/* The recursions are nothing but these four loops. */
SKIT_MULTIVERSION static double dot(const double *restrict a, const double *restrict b, size_t n)
{
    double s = 0.0;
    SKIT_SIMD_SUM(s)
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* w += mu * v */
SKIT_MULTIVERSION static void axpy(double mu, const double *restrict v, double *restrict w, size_t n)
{
    SKIT_SIMD
    for (size_t i = 0; i < n; i++) w[i] += mu * v[i];
}

/* (u, v) <- ((u + alpha v), (v + alpha u)) / den: Durbin's update of y and
 * its reversal (den = 1), or the forward/backward pair (alpha = -ef for u,
 * -eb for v, see skit_toeplitz_solve). */
SKIT_MULTIVERSION static void pair_update(double *restrict u, double *restrict v, double au,
                                          double av, double scale, size_t n)
{
    SKIT_SIMD
    for (size_t i = 0; i < n; i++) {
        double a = u[i], b = v[i];
        u[i] = (a + au * b) * scale;
        v[i] = (b + av * a) * scale;
    }
}

/* Coefficients below DBL_MIN (subnormal) are replaced by zero in the
 * working copies: they are 292 orders of magnitude below any rounding of
 * the result, but subnormal arithmetic runs ~100x slower on x86, and
 * exponentially decaying kernels (Kac-Murdock-Szego rho^k, TNN's decay
 * bias lambda^|t|) reach that range from n ~ 2000 on. */
static double flush_subnormal(double v) { return fabs(v) < DBL_MIN ? 0.0 : v; }

/* The same holds for the rounding noise the recursion leaves in entries of
 * y, f and b that are zero in exact arithmetic (for Kac-Murdock-Szego
 * matrices all but two): it decays geometrically into the subnormal range
 * and made n = 4096 solves 5-10x slower. On x86 the solvers therefore run
 * with flush-to-zero and denormals-are-zero set in MXCSR, restored on exit
 * (the state is per thread; nothing else runs on it meanwhile). */
typedef struct fp_mode {
    unsigned int saved;
} fp_mode;

static fp_mode fp_flush_begin(void)
{
    fp_mode m = {0};
#if defined(__SSE2__)
    m.saved = _mm_getcsr();
    _mm_setcsr(m.saved | 0x8040u); /* FTZ (bit 15) | DAZ (bit 6) */
#endif
    return m;
}

static void fp_flush_end(fp_mode m)
{
#if defined(__SSE2__)
    _mm_setcsr(m.saved);
#else
    (void)m;
#endif
}

/* Arguments shared by both solvers: sizes, pointers, leading dimensions,
 * finiteness of B, and the memory for the scratch copy of B plus `extra`
 * work vectors of length n. */
static int check_solve_args(size_t n, size_t nrhs, const double *B, size_t ldb, const double *X,
                            size_t ldx, size_t extra)
{
    SKIT_REQUIRE_PTR(B);
    SKIT_REQUIRE_PTR(X);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (nrhs == 0) return SKIT_ERROR(SKIT_EDOM, "nrhs = 0 out of range: need nrhs >= 1");
    if (ldb < n) return SKIT_ERROR(SKIT_ESHAPE, "ldb = %zu out of range: need ldb >= n (= %zu)", ldb, n);
    if (ldx < n) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu out of range: need ldx >= n (= %zu)", ldx, n);
    size_t extent, doubles, bytes;
    if (skit_size_mul(nrhs - 1, SKIT_MAX(ldb, ldx), &extent) != SKIT_OK ||
        skit_size_add(extent, n, &extent) != SKIT_OK || skit_size_add(nrhs, extra, &doubles) != SKIT_OK ||
        skit_size_mul(doubles, n, &doubles) != SKIT_OK ||
        skit_size_mul(doubles, sizeof(double), &bytes) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "Toeplitz solve (n = %zu, nrhs = %zu) overflows size_t", n, nrhs);
    SKIT_TRY(skit_memory_check(bytes, "Toeplitz solve workspace"));
    return skit_check_finite_matrix(B, n, nrhs, ldb, "B");
}

/* W (n x nrhs, ld n) = B * scale */
static void copy_scaled(size_t n, size_t nrhs, const double *B, size_t ldb, double scale, double *W)
{
    for (size_t j = 0; j < nrhs; j++)
        for (size_t i = 0; i < n; i++) W[i + j * n] = B[i + j * ldb] * scale;
}

/* X = W, refusing to publish anything non-finite. */
static int publish(size_t n, size_t nrhs, const double *W, double *X, size_t ldx, int status_if_bad)
{
    for (size_t i = 0; i < n * nrhs; i++)
        if (!isfinite(W[i]))
            return SKIT_ERROR(status_if_bad,
                              "Toeplitz solve overflowed (solution entry %zu of right-hand side %zu "
                              "is not finite): the matrix is too ill-conditioned",
                              i % n, i / n);
    for (size_t j = 0; j < nrhs; j++) memmove(X + j * ldx, W + j * n, n * sizeof *X);
    return SKIT_OK;
}

int skit_toeplitz_solve_spd(size_t n, const double *t, size_t nrhs, const double *B, size_t ldb,
                            double *X, size_t ldx)
{
    SKIT_REQUIRE_PTR(t);
    SKIT_TRY(check_solve_args(n, nrhs, B, ldb, X, ldx, 3));
    SKIT_TRY(skit_check_finite(t, n, "t"));
    if (!(t[0] > 0))
        return SKIT_ERROR(SKIT_ENOTPD, "t[0] = %g: a positive-definite Toeplitz matrix needs t[0] > 0",
                          t[0]);
    double scale = fabs(t[0]);
    for (size_t k = 1; k < n; k++) scale += 2 * fabs(t[k]);
    /* beta below is delta_k / t_0 */
    const double tol = (double)n * DBL_EPSILON * scale / t[0];

    double *W = skit_malloc(n * (nrhs + 3), sizeof(double)); /* product checked above */
    if (!W) return SKIT_ENOMEM;
    double *rrev = W + n * nrhs; /* rrev[i] = r[n-1-i], r = t / t_0 */
    double *y = rrev + n;        /* Durbin vector, y[0..k) */
    double *yr = y + n;          /* y reversed, right-aligned: yr[n-k+i] = y[k-1-i] */
    const double inv_t0 = 1.0 / t[0];
    for (size_t i = 0; i < n; i++) rrev[i] = flush_subnormal(t[n - 1 - i] * inv_t0);
    copy_scaled(n, nrhs, B, ldb, inv_t0, W);

    size_t failed = 0; /* order of the first non-positive minor, 0: none */
    fp_mode mode = fp_flush_begin();
    double beta = 1.0, alpha = 0.0;
    if (n > 1) {
        alpha = -rrev[n - 2];
        y[0] = alpha;
        yr[n - 1] = alpha;
    }
    for (size_t k = 1; k < n; k++) {
        beta *= (1.0 - alpha) * (1.0 + alpha);
        if (!(beta > tol)) {
            failed = k + 1;
            break;
        }
        const double *rk = rrev + (n - 1 - k); /* r_k, r_{k-1}, ..., r_1 */
        const double *yrk = yr + (n - k);
        for (size_t j = 0; j < nrhs; j++) {
            double *w = W + j * n;
            double mu = (w[k] - dot(rk, w, k)) / beta;
            axpy(mu, yrk, w, k);
            w[k] = mu;
        }
        if (k + 1 < n) {
            alpha = (-rrev[n - 2 - k] - dot(rk, y, k)) / beta; /* rrev[n-2-k] = r_{k+1} */
            pair_update(y, yr + (n - k), alpha, alpha, 1.0, k);
            y[k] = alpha;
            yr[n - k - 1] = alpha;
        }
    }
    fp_flush_end(mode); /* before raising: the error handler is the caller's code */
    int status;
    if (failed)
        status = SKIT_ERROR(SKIT_ENOTPD,
                            "leading %zu x %zu minor of the symmetric Toeplitz matrix is not "
                            "(numerically) positive definite: pivot %g <= %g (n eps sum|t|)",
                            failed, failed, beta * t[0], tol * t[0]);
    else
        status = publish(n, nrhs, W, X, ldx, SKIT_ENOTPD);
    skit_free(W);
    return status;
}

int skit_toeplitz_solve(size_t n, const double *coeffs, size_t nrhs, const double *B, size_t ldb,
                        double *X, size_t ldx)
{
    SKIT_REQUIRE_PTR(coeffs);
    SKIT_TRY(check_solve_args(n, nrhs, B, ldb, X, ldx, 4));
    SKIT_TRY(skit_check_finite(coeffs, 2 * n - 1, "coeffs")); /* 2n-1 <= n*(nrhs+4): no overflow */
    double scale = 0.0;
    for (size_t k = 0; k < 2 * n - 1; k++) scale += fabs(coeffs[k]);
    const double tol = (double)n * DBL_EPSILON * scale;
    const double t0 = coeffs[n - 1];
    if (!(fabs(t0) > tol))
        return SKIT_ERROR(SKIT_EBREAKDOWN,
                          "leading 1 x 1 minor is (numerically) singular: t_0 = %g, |t_0| <= %g "
                          "(n eps sum|t|); Levinson needs every leading minor nonsingular",
                          t0, tol);

    double *W = skit_malloc(n * (nrhs + 4), sizeof(double));
    if (!W) return SKIT_ENOMEM;
    double *tpos = W + n * nrhs; /* tpos[i] = t_{n-1-i}: tpos + n-1-k is t_k, ..., t_1 */
    double *tneg = tpos + n;     /* tneg[j] = t_{-(j+1)} */
    double *f = tneg + n;        /* forward vector, T_k f = e_1, left-aligned */
    double *b = f + n;           /* backward vector, T_k b = e_k, right-aligned: b at b[n-k..n) */
    for (size_t i = 0; i < n; i++) tpos[i] = flush_subnormal(coeffs[(n - 1) + (n - 1 - i)]);
    for (size_t j = 0; j + 1 < n; j++) tneg[j] = flush_subnormal(coeffs[n - 2 - j]);
    copy_scaled(n, nrhs, B, ldb, 1.0, W);
    f[0] = 1.0 / t0;
    b[n - 1] = 1.0 / t0;
    for (size_t j = 0; j < nrhs; j++) W[j * n] /= t0;

    size_t failed = 0;  /* order of the first singular minor, 0: none */
    int overflow = 0;   /* the vectors overflowed rather than a pivot vanishing */
    fp_mode mode = fp_flush_begin();
    double delta = t0;
    for (size_t k = 1; k < n; k++) {
        const double *tk = tpos + (n - 1 - k); /* t_k, t_{k-1}, ..., t_1 */
        /* T_{k+1} [f; 0] = [e_1; ef] and T_{k+1} [0; b] = [eb; e_k] */
        double ef = dot(tk, f, k);
        double eb = dot(tneg, b + (n - k), k);
        double den = 1.0 - ef * eb;
        delta *= den;
        if (!(fabs(delta) > tol) || !isfinite(den) || !isfinite(delta)) {
            failed = k + 1;
            break;
        }
        const double inv = 1.0 / den;
        f[k] = 0.0;
        b[n - 1 - k] = 0.0;
        double *bk = b + (n - 1 - k); /* [0; b] and the new b, both length k+1 */
        pair_update(f, bk, -ef, -eb, inv, k + 1);
        if (!isfinite(f[0]) || !isfinite(bk[k])) {
            failed = k + 1;
            overflow = 1;
            break;
        }
        /* T_{k+1} [x; 0] = [rhs(0..k); ex]: correct the last row with b */
        for (size_t j = 0; j < nrhs; j++) {
            double *w = W + j * n;
            double g = w[k] - dot(tk, w, k);
            axpy(g, bk, w, k);
            w[k] = g * bk[k];
        }
    }
    fp_flush_end(mode); /* before raising: the error handler is the caller's code */
    int status;
    if (failed && overflow)
        status = SKIT_ERROR(SKIT_EBREAKDOWN,
                            "Levinson recursion overflowed at order %zu: the leading minors are "
                            "too ill-conditioned",
                            failed);
    else if (failed)
        status = SKIT_ERROR(SKIT_EBREAKDOWN,
                            "leading %zu x %zu minor is (numerically) singular: pivot %g, "
                            "|pivot| <= %g (n eps sum|t|); Levinson needs every leading minor "
                            "nonsingular",
                            failed, failed, delta, tol);
    else
        status = publish(n, nrhs, W, X, ldx, SKIT_EBREAKDOWN);
    skit_free(W);
    return status;
}
