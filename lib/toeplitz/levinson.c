/* levinson.c — the O(n^2) Levinson recursions: Levinson–Durbin for
 * symmetric positive-definite matrices and the nonsymmetric recursion with
 * forward and backward vectors (Trench / Zohar). They run in place on a
 * scratch copy of the right-hand sides and report failure quietly (no
 * error raised): the driver in solve.c checks every answer's backward
 * error and decides between refinement, the dense fallback and an error.
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
 * precision relative to the matrix's scale: the recursion stops there
 * (SPD: also at a non-positive pivot). A non-finite intermediate (overflow
 * of the vectors) stops it the same way. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "core/internal.h"
#include "toeplitz/toeplitz_internal.h"
#include "core/simd.h"

/* The recursions are nothing but these loops: dot products, axpys and the
 * pair update (u, v) <- ((u + au v), (v + av u)) * scale, which is Durbin's
 * update of y and its reversal (au = av = alpha, scale 1) or the forward /
 * backward pair (au = -ef, av = -eb, scale 1 / (1 - ef eb)). */
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

/* The fused forms below do in one pass what the loops above do in two or
 * three: each pass over the vectors then carries two or three independent
 * sums or updates, so the recursion is no longer bound by the latency of
 * one reduction chain, and the vectors are read from cache once. */

/* out = (a . b, a . c) */
SKIT_MULTIVERSION static void dot2(const double *restrict a, const double *restrict b, const double *restrict c,
                                   size_t n, double out[2])
{
    double s0 = 0.0, s1 = 0.0;
    SKIT_SIMD_SUM(s0, s1)
    for (size_t i = 0; i < n; i++) {
        s0 += a[i] * b[i];
        s1 += a[i] * c[i];
    }
    out[0] = s0, out[1] = s1;
}

/* out = (a . f, c . g, a . w) */
SKIT_MULTIVERSION static void dot3(const double *restrict a, const double *restrict f, const double *restrict c,
                                   const double *restrict g, const double *restrict w, size_t n, double out[3])
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    SKIT_SIMD_SUM(s0, s1, s2)
    for (size_t i = 0; i < n; i++) {
        s0 += a[i] * f[i];
        s1 += c[i] * g[i];
        s2 += a[i] * w[i];
    }
    out[0] = s0, out[1] = s1, out[2] = s2;
}

/* w += mu v (the old v), then the pair update of (u, v) over n */
SKIT_MULTIVERSION static void axpy_then_pair(double mu, double *restrict w, double *restrict u, double *restrict v,
                                             double au, double av, double scale, size_t n)
{
    SKIT_SIMD
    for (size_t i = 0; i < n; i++) {
        double a = u[i], b = v[i];
        w[i] += mu * b;
        u[i] = (a + au * b) * scale;
        v[i] = (b + av * a) * scale;
    }
}

/* the pair update of (u, v) over n + 1, then w[0..n) += mu v (the new v) */
SKIT_MULTIVERSION static void pair_then_axpy(double *restrict u, double *restrict v, double au, double av,
                                             double scale, double mu, double *restrict w, size_t n)
{
    SKIT_SIMD
    for (size_t i = 0; i < n; i++) {
        double a = u[i], b = v[i], nv = (b + av * a) * scale;
        u[i] = (a + au * b) * scale;
        v[i] = nv;
        w[i] += mu * nv;
    }
    double a = u[n], b = v[n];
    u[n] = (a + au * b) * scale;
    v[n] = (b + av * a) * scale;
}

/* Coefficients below DBL_MIN (subnormal) are replaced by zero in the
 * working copies: they are 292 orders of magnitude below any rounding of
 * the result, but subnormal arithmetic is far slower on x86, and
 * exponentially decaying kernels (Kac-Murdock-Szego rho^k, TNN's decay
 * bias lambda^|t|) reach that range from n ~ 2000 on. */
static double flush_subnormal(double v) { return fabs(v) < DBL_MIN ? 0.0 : v; }

/* The same holds for the rounding noise the recursion leaves in entries of
 * y, f and b that are zero in exact arithmetic (for Kac-Murdock-Szego
 * matrices all but two): it decays geometrically into the subnormal range
 * and slows long solves down. On x86 the solvers therefore run with
 * flush-to-zero and denormals-are-zero set in MXCSR, restored on exit
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

int toeplitz_levinson_spd(size_t n, const double *t, size_t nrhs, double *W, double *scratch,
                          levinson_outcome *out)
{
    double scale = fabs(t[0]);
    for (size_t k = 1; k < n; k++) scale += 2 * fabs(t[k]);
    /* beta below is delta_k / t_0 */
    const double tol = (double)n * DBL_EPSILON * scale / t[0];
    *out = (levinson_outcome){.tolerance = tol * t[0], .pivot = t[0]};
    if (!(t[0] > 0)) {
        out->failed_order = 1;
        return SKIT_ENOTPD;
    }
    double *rrev = scratch; /* rrev[i] = r[n-1-i], r = t / t_0 */
    double *y = rrev + n;   /* Durbin vector, y[0..k) */
    double *yr = y + n;     /* y reversed, right-aligned: yr[n-k+i] = y[k-1-i] */
    const double inv_t0 = 1.0 / t[0];
    for (size_t i = 0; i < n; i++) rrev[i] = flush_subnormal(t[n - 1 - i] * inv_t0);
    for (size_t i = 0; i < n * nrhs; i++) W[i] *= inv_t0;

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
            out->failed_order = k + 1;
            break;
        }
        const double *rk = rrev + (n - 1 - k); /* r_k, r_{k-1}, ..., r_1 */
        double *yrk = yr + (n - k);
        /* the first right-hand side rides along with y's own dot and update */
        double d[2];
        dot2(rk, W, y, k, d);
        const double mu0 = (W[k] - d[0]) / beta;
        for (size_t j = 1; j < nrhs; j++) {
            double *w = W + j * n;
            double mu = (w[k] - dot(rk, w, k)) / beta;
            axpy(mu, yrk, w, k);
            w[k] = mu;
        }
        if (k + 1 < n) {
            alpha = (-rrev[n - 2 - k] - d[1]) / beta; /* rrev[n-2-k] = r_{k+1} */
            axpy_then_pair(mu0, W, y, yrk, alpha, alpha, 1.0, k);
            y[k] = alpha;
            yr[n - k - 1] = alpha;
        } else {
            axpy(mu0, yrk, W, k);
        }
        W[k] = mu0;
    }
    fp_flush_end(mode);
    out->pivot = beta * t[0];
    return out->failed_order ? SKIT_ENOTPD : SKIT_OK;
}

int toeplitz_levinson_general(size_t n, const double *coeffs, size_t nrhs, double *W,
                              double *scratch, levinson_outcome *out)
{
    double scale = 0.0;
    for (size_t k = 0; k < 2 * n - 1; k++) scale += fabs(coeffs[k]);
    const double tol = (double)n * DBL_EPSILON * scale;
    const double t0 = coeffs[n - 1];
    *out = (levinson_outcome){.tolerance = tol, .pivot = t0};
    if (!(fabs(t0) > tol)) {
        out->failed_order = 1;
        return SKIT_EBREAKDOWN;
    }
    double *tpos = scratch;  /* tpos[i] = t_{n-1-i}: tpos + n-1-k is t_k, ..., t_1 */
    double *tneg = tpos + n; /* tneg[j] = t_{-(j+1)} */
    double *f = tneg + n;    /* forward vector, T_k f = e_1, left-aligned */
    double *b = f + n;       /* backward vector, T_k b = e_k, right-aligned: b at b[n-k..n) */
    for (size_t i = 0; i < n; i++) tpos[i] = flush_subnormal(coeffs[(n - 1) + (n - 1 - i)]);
    for (size_t j = 0; j + 1 < n; j++) tneg[j] = flush_subnormal(coeffs[n - 2 - j]);
    f[0] = 1.0 / t0;
    b[n - 1] = 1.0 / t0;
    for (size_t j = 0; j < nrhs; j++) W[j * n] /= t0;

    fp_mode mode = fp_flush_begin();
    double delta = t0;
    for (size_t k = 1; k < n; k++) {
        const double *tk = tpos + (n - 1 - k); /* t_k, t_{k-1}, ..., t_1 */
        /* T_{k+1} [f; 0] = [e_1; ef] and T_{k+1} [0; b] = [eb; e_k]; the
         * first right-hand side's dot rides along */
        double e[3];
        dot3(tk, f, tneg, b + (n - k), W, k, e);
        const double ef = e[0], eb = e[1], g0 = W[k] - e[2];
        double den = 1.0 - ef * eb;
        delta *= den;
        if (!(fabs(delta) > tol) || !isfinite(den) || !isfinite(delta)) {
            out->failed_order = k + 1;
            break;
        }
        const double inv = 1.0 / den;
        f[k] = 0.0;
        b[n - 1 - k] = 0.0;
        double *bk = b + (n - 1 - k); /* [0; b] and the new b, both length k+1 */
        /* T_{k+1} [x; 0] = [rhs(0..k); ex]: correct the last row with b */
        pair_then_axpy(f, bk, -ef, -eb, inv, g0, W, k);
        W[k] = g0 * bk[k];
        if (!isfinite(f[0]) || !isfinite(bk[k])) {
            out->failed_order = k + 1;
            out->overflow = 1;
            break;
        }
        for (size_t j = 1; j < nrhs; j++) {
            double *w = W + j * n;
            double g = w[k] - dot(tk, w, k);
            axpy(g, bk, w, k);
            w[k] = g * bk[k];
        }
    }
    fp_flush_end(mode);
    out->pivot = delta;
    if (out->failed_order) return SKIT_EBREAKDOWN;
    for (size_t i = 0; i < n * nrhs; i++)
        if (!isfinite(W[i])) {
            out->failed_order = n;
            out->overflow = 1;
            return SKIT_EBREAKDOWN;
        }
    return SKIT_OK;
}
