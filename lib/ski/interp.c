/* interp.c — sparse interpolation weights W (n x r) from observation points
 * to uniform inducing points: linear, Keys cubic, Lagrange of degree N, and
 * the public ski-tnn code's construction reproduced for experiments. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "skit/ski.h"
#include "core/simd.h"

#define KEYS_A (-0.5)
/* shortest run of rows with one window start worth a vectorised pass */
#define SKIT_INTERP_MIN_RUN 8

void skit_interp_options_default(skit_interp_options *options, size_t n)
{
    if (!options) return;
    memset(options, 0, sizeof *options);
    options->scheme = SKIT_INTERP_LINEAR;
    options->degree = 1;
    options->lo = 0;
    options->hi = n > 1 ? (double)(n - 1) : 1.0;
    options->gamma = 0.99;
}

static int check_options(size_t r, const skit_interp_options *o)
{
    if ((int)o->scheme < SKIT_INTERP_LINEAR || (int)o->scheme > SKIT_INTERP_AUTHORS)
        return SKIT_ERROR(SKIT_EINVAL,
                          "scheme = %d unknown: need linear, cubic, lagrange, authors-bracket or "
                          "authors",
                          (int)o->scheme);
    if (!(isfinite(o->lo) && isfinite(o->hi) && o->lo < o->hi))
        return SKIT_ERROR(SKIT_EDOM, "inducing interval [%g, %g] is empty: need lo < hi", o->lo,
                          o->hi);
    if (o->scheme == SKIT_INTERP_CUBIC && r < 3)
        return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: cubic interpolation needs r >= 3", r);
    if (o->scheme == SKIT_INTERP_LAGRANGE) {
        size_t max = SKIT_MIN((size_t)SKIT_INTERP_MAX_DEGREE, r - 1);
        if (o->degree < 1 || o->degree > max)
            return SKIT_ERROR(SKIT_EDOM, "degree N = %zu out of range: need 1 <= N <= %zu (= min(r-1, %d))",
                              o->degree, max, SKIT_INTERP_MAX_DEGREE);
    }
    if (o->scheme == SKIT_INTERP_AUTHORS && !(o->gamma > 0 && o->gamma < 1))
        return SKIT_ERROR(SKIT_EDOM, "gamma = %g out of range: need 0 < gamma < 1", o->gamma);
    return SKIT_OK;
}

static size_t clamp_index(double v, size_t max)
{
    if (!(v > 0)) return 0;
    if (v > (double)max) return max;
    return (size_t)v;
}

/* Keys cubic convolution weights of nodes j-1, j, j+1, j+2 at offset f from
 * node j, as polynomials in f (so points outside [lo, hi] extend the end
 * pieces' cubics and quadratics stay exact there too). */
static void keys_weights(double f, double w[4])
{
    const double a = KEYS_A;
    double s = 1 + f, t = 1 - f, u = 2 - f;
    w[0] = a * s * s * s - 5 * a * s * s + 8 * a * s - 4 * a;
    w[1] = (a + 2) * f * f * f - (a + 3) * f * f + 1;
    w[2] = (a + 2) * t * t * t - (a + 3) * t * t + 1;
    w[3] = a * u * u * u - 5 * a * u * u + 8 * a * u - 4 * a;
}

/* Row of W for a point at u = (x - lo)/h (inducing index units). */
static void row_weights(const skit_interp_options *o, size_t r, size_t width, double u, double x,
                        size_t n, size_t *start, double *w)
{
    for (size_t k = 0; k < width; k++) w[k] = 0;
    switch (o->scheme) {
    case SKIT_INTERP_LINEAR: {
        size_t j = clamp_index(floor(u), r - 2);
        double f = u - (double)j;
        *start = j;
        w[0] = 1 - f;
        w[1] = f;
        return;
    }
    case SKIT_INTERP_CUBIC: {
        size_t j = clamp_index(floor(u), r - 2);
        double f = u - (double)j, raw[4];
        keys_weights(f, raw);
        size_t s = j == 0 ? 0 : SKIT_MIN(j - 1, r - width);
        *start = s;
        for (int k = 0; k < 4; k++) {
            /* node index j - 1 + k; ghosts at -1 and r */
            long node = (long)j - 1 + k;
            if (node < 0) {
                /* f(p_-1) = 3 f(p_0) - 3 f(p_1) + f(p_2) */
                w[0 - s] += 3 * raw[k];
                w[1 - s] += -3 * raw[k];
                w[2 - s] += raw[k];
            } else if (node >= (long)r) {
                /* f(p_r) = 3 f(p_{r-1}) - 3 f(p_{r-2}) + f(p_{r-3}) */
                w[r - 1 - s] += 3 * raw[k];
                w[r - 2 - s] += -3 * raw[k];
                w[r - 3 - s] += raw[k];
            } else {
                w[(size_t)node - s] += raw[k];
            }
        }
        return;
    }
    case SKIT_INTERP_LAGRANGE: {
        size_t N = o->degree;
        double first = (N % 2) ? floor(u) - (double)((N - 1) / 2) : floor(u + 0.5) - (double)(N / 2);
        size_t s = clamp_index(first, r - 1 - N);
        *start = s;
        for (size_t k = 0; k <= N; k++) {
            double num = 1, den = 1;
            for (size_t m = 0; m <= N; m++) {
                if (m == k) continue;
                num *= u - (double)(s + m);
                den *= (double)k - (double)m;
            }
            w[k] = num / den;
        }
        return;
    }
    case SKIT_INTERP_AUTHORS_BRACKET:
    case SKIT_INTERP_AUTHORS: {
        /* first index with p_j >= x (searchsorted, side left), clamped to 0..r-2 */
        double c = ceil(u);
        size_t j = clamp_index(c, r - 2);
        double wl = u - (double)j; /* (x - p_j)/h */
        *start = j;
        w[0] = wl;
        w[1] = 1 - wl;
        if (o->scheme == SKIT_INTERP_AUTHORS) {
            double fall = pow(o->gamma, x * (double)n);
            w[0] *= fall;
            w[1] *= fall;
        }
        return;
    }
    }
}

int skit_interp_weights_create(skit_interp_weights **weights, size_t n, const double *points,
                               size_t r, const skit_interp_options *options)
{
    SKIT_REQUIRE_PTR(weights);
    *weights = NULL;
    SKIT_REQUIRE_PTR(options);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (r < 2) return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need r >= 2", r);
    if (!points && r > n)
        return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need 2 <= r <= n (= %zu)", r, n);
    SKIT_TRY(check_options(r, options));
    if (points) SKIT_TRY(skit_check_finite(points, n, "points"));

    size_t width = 2;
    if (options->scheme == SKIT_INTERP_CUBIC) width = SKIT_MIN((size_t)4, r);
    if (options->scheme == SKIT_INTERP_LAGRANGE) width = options->degree + 1;
    size_t nw;
    if (skit_size_mul(n, width, &nw) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "n = %zu: n * width overflows", n);

    skit_interp_weights *W = skit_calloc(1, sizeof *W);
    if (!W) return SKIT_ENOMEM;
    W->start = skit_malloc(n, sizeof *W->start);
    W->weights = skit_malloc(nw, sizeof *W->weights);
    W->points = skit_malloc(n, sizeof *W->points);
    W->inducing = skit_malloc(r, sizeof *W->inducing);
    if (!W->start || !W->weights || !W->points || !W->inducing) {
        skit_interp_weights_destroy(W);
        return SKIT_ENOMEM;
    }
    W->n = n;
    W->r = r;
    W->width = width;
    W->options = *options;
    W->spacing = (options->hi - options->lo) / (double)(r - 1);
    switch (options->scheme) {
    case SKIT_INTERP_LINEAR: W->exactness = 1; break;
    case SKIT_INTERP_CUBIC: W->exactness = 2; break;
    case SKIT_INTERP_LAGRANGE: W->exactness = (int)options->degree; break;
    default: W->exactness = -1; break;
    }
    for (size_t j = 0; j < r; j++) W->inducing[j] = options->lo + (double)j * W->spacing;
    for (size_t i = 0; i < n; i++) {
        double x = points ? points[i] : (double)i;
        W->points[i] = x;
        double u = (x - options->lo) / W->spacing;
        row_weights(options, r, width, u, x, n, &W->start[i], W->weights + i * width);
    }
    *weights = W;
    return SKIT_OK;
}

void skit_interp_weights_destroy(skit_interp_weights *W)
{
    if (!W) return;
    skit_free(W->start);
    skit_free(W->weights);
    skit_free(W->points);
    skit_free(W->inducing);
    skit_free(W);
}

int skit_interp_weights_dense(const skit_interp_weights *W, double *D, size_t ldd)
{
    SKIT_REQUIRE_PTR(W);
    SKIT_REQUIRE_PTR(D);
    if (ldd < W->n) return SKIT_ERROR(SKIT_ESHAPE, "ldd = %zu too small: need ldd >= n (= %zu)", ldd, W->n);
    for (size_t j = 0; j < W->r; j++) memset(D + j * ldd, 0, W->n * sizeof *D);
    for (size_t i = 0; i < W->n; i++)
        for (size_t k = 0; k < W->width; k++) D[i + (W->start[i] + k) * ldd] += W->weights[i * W->width + k];
    return SKIT_OK;
}

int skit_interp_apply(const skit_interp_weights *W, size_t d, const double *U, size_t ldu,
                      double *Y, size_t ldy)
{
    SKIT_REQUIRE_PTR(W);
    if (d == 0) return SKIT_OK;
    SKIT_REQUIRE_PTR(U);
    SKIT_REQUIRE_PTR(Y);
    if (ldu < W->r) return SKIT_ERROR(SKIT_ESHAPE, "ldu = %zu too small: need ldu >= r (= %zu)", ldu, W->r);
    if (ldy < W->n) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu too small: need ldy >= n (= %zu)", ldy, W->n);
    size_t n = W->n, width = W->width;
#pragma omp parallel for schedule(static) if (d > 1 && n * d > 32768)
    for (size_t c = 0; c < d; c++) {
        const double *u = U + c * ldu;
        double *y = Y + c * ldy;
        for (size_t i = 0; i < n; i++) {
            const double *w = W->weights + i * width;
            const double *ui = u + W->start[i];
            double s = 0;
            for (size_t k = 0; k < width; k++) s += w[k] * ui[k];
            y[i] = s;
        }
    }
    return SKIT_OK;
}

/* Rows [b, *e) share W->start[b]; returns it. */
static size_t run_end(const skit_interp_weights *W, size_t b, size_t *e)
{
    size_t s = W->start[b], i = b + 1;
    while (i < W->n && W->start[i] == s) i++;
    *e = i;
    return s;
}

/* u += W(b:e, s:s+width)^T x(b:e) for a run of rows sharing the window
 * start s: one vectorised dot product per column, instead of a row-by-row
 * scatter whose every update waits for the previous one through u. */
SKIT_MULTIVERSION static void run_transpose(const double *restrict w, size_t width, size_t len,
                                            const double *restrict x, double *restrict u)
{
    for (size_t k = 0; k < width; k++) {
        double a = 0;
        SKIT_SIMD_SUM(a)
        for (size_t i = 0; i < len; i++) a += w[i * width + k] * x[i];
        u[k] += a;
    }
}

int skit_interp_apply_transpose(const skit_interp_weights *W, size_t d, const double *X,
                                size_t ldx, double *U, size_t ldu)
{
    SKIT_REQUIRE_PTR(W);
    if (d == 0) return SKIT_OK;
    SKIT_REQUIRE_PTR(X);
    SKIT_REQUIRE_PTR(U);
    if (ldx < W->n) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu too small: need ldx >= n (= %zu)", ldx, W->n);
    if (ldu < W->r) return SKIT_ERROR(SKIT_ESHAPE, "ldu = %zu too small: need ldu >= r (= %zu)", ldu, W->r);
    size_t n = W->n, r = W->r, width = W->width;
#pragma omp parallel for schedule(static) if (d > 1 && n * d > 32768)
    for (size_t c = 0; c < d; c++) {
        const double *x = X + c * ldx;
        double *u = U + c * ldu;
        for (size_t j = 0; j < r; j++) u[j] = 0;
        for (size_t b = 0, e; b < n; b = e) {
            /* rows b..e-1 share a window start (sorted points: about n/r rows) */
            size_t s = run_end(W, b, &e);
            if (e - b >= SKIT_INTERP_MIN_RUN) {
                run_transpose(W->weights + b * width, width, e - b, x + b, u + s);
                continue;
            }
            for (size_t i = b; i < e; i++) {
                const double *w = W->weights + i * width;
                double xi = x[i];
                for (size_t k = 0; k < width; k++) u[s + k] += w[k] * xi;
            }
        }
    }
    return SKIT_OK;
}
