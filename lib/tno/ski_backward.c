/* ski_backward.c — SKI-TNO's backward, both forms, channel by channel in
 * the CHANNELS layout the front hands it (correctness first: no FFT, so
 * O(n m + n w r + r^2) per channel and sequence, w = 2 the stencil width).
 * With the band S (taps), A_c Toeplitz in its coefficients a (2r-1) and W
 * the interpolation weights:
 *  band       dx += S^T dy;  dtap_l = sum_i dy_i x_{i-l}
 *  bidirect.  u = W^T x, g = W^T dy: dx += W A^T g;  da_k = sum_{p-q=k} g_p u_q
 *  causal     s_i = sum_{j<=i} w_j x_j, y_i += w_i^T A s_i: da_k = sum_i
 *             sum_{p-q=k} dy_i w_i[p] s_i[q];  dx_j = w_j^T sum_{i>=j} A^T w_i dy_i
 *             (a running sum from the end, as Appendix B's forward runs
 *             from the start)
 *  knots      a_q = (1-f_q) f(z_j) + f_q f(z_{j+1}) (tno_ski_compute_a):
 *             its transpose, f(z_0) = 0 fixed. */
#include "config.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tno/tno_internal.h"

static int grad_create(skit_tno_plan *p)
{
    (void)p;
    return SKIT_OK;
}

static void grad_destroy(skit_tno_plan *p) { p->grad = NULL; }

/* per thread: u, g, s (r each), da (2r-1) */
static size_t slice_doubles(const tno_ski *s) { return 3 * tno_region(s->r) + tno_region(2 * s->r - 1); }

static size_t workspace_doubles(const skit_tno_plan *p)
{
    return (size_t)p->threads * slice_doubles(p->op);
}

/* the band's backward for one channel and sequence */
static void band_backward(const skit_tno_plan *p, const double *taps, const double *x, const double *dy,
                          double *dx, double *dtaps, int causal)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, m = s->m, half = m / 2;
    for (size_t k = causal ? half : 0; k < m; k++) {
        /* forward: y[i] += taps[k] x[i + half - k] for 0 <= i + half - k < n */
        size_t i0 = k > half ? k - half : 0;
        size_t i1 = k < half ? (n > half - k ? n - (half - k) : 0) : n;
        double acc = 0;
        for (size_t i = i0; i < i1; i++) {
            if (dx) dx[i + half - k] += taps[k] * dy[i];
            acc += dy[i] * x[i + half - k];
        }
        if (dtaps) dtaps[k] += acc;
    }
}

/* u = W^T x (r values) */
static void interp_transpose(const skit_interp_weights *W, const double *x, double *u)
{
    memset(u, 0, W->r * sizeof *u);
    for (size_t i = 0; i < W->n; i++)
        for (size_t k = 0; k < W->width; k++) u[W->start[i] + k] += W->weights[i * W->width + k] * x[i];
}

/* bidirectional low rank: dx += W A^T g, da += g u^T summed along diagonals */
static void lowrank_bidirectional(const skit_tno_plan *p, const double *a, const double *x, const double *dy,
                                  double *dx, double *da, double *buf)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t r = s->r, n = p->n, w = W->width;
    double *u = buf, *g = buf + tno_region(r), *v = g + tno_region(r);
    interp_transpose(W, x, u);
    interp_transpose(W, dy, g);
    for (size_t pp = 0; pp < r; pp++)
        for (size_t q = 0; q < r; q++) da[pp - q + r - 1] += g[pp] * u[q];
    if (!dx) return;
    for (size_t q = 0; q < r; q++) { /* v = A^T g: A(p, q) = a[p - q + r - 1] */
        double acc = 0;
        for (size_t pp = 0; pp < r; pp++) acc += a[pp - q + r - 1] * g[pp];
        v[q] = acc;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < w; k++) dx[i] += W->weights[i * w + k] * v[W->start[i] + k];
}

/* causal low rank by the running sums: forward pass for da, backward pass for dx */
static void lowrank_causal(const skit_tno_plan *p, const double *a, const double *x, const double *dy, double *dx,
                           double *da, double *buf)
{
    const tno_ski *s = p->op;
    const skit_interp_weights *W = s->W;
    const size_t r = s->r, n = p->n, w = W->width;
    double *run = buf, *t = buf + tno_region(r);
    memset(run, 0, r * sizeof *run);
    for (size_t i = 0; i < n; i++) {
        const double *wi = W->weights + i * w;
        const size_t si = W->start[i];
        for (size_t k = 0; k < w; k++) run[si + k] += wi[k] * x[i];
        for (size_t k = 0; k < w; k++)
            for (size_t q = 0; q < r; q++) da[si + k - q + r - 1] += dy[i] * wi[k] * run[q];
    }
    if (!dx) return;
    memset(t, 0, r * sizeof *t);
    for (size_t i = n; i-- > 0;) {
        const double *wi = W->weights + i * w;
        const size_t si = W->start[i];
        for (size_t q = 0; q < r; q++) { /* t += A^T w_i dy_i */
            double acc = 0;
            for (size_t k = 0; k < w; k++) acc += a[si + k - q + r - 1] * wi[k];
            t[q] += acc * dy[i];
        }
        for (size_t k = 0; k < w; k++) dx[i] += wi[k] * t[si + k];
    }
}

/* dknots (2K) += the transpose of tno_ski_compute_a for one channel */
static void knots_backward(const tno_ski *s, const double *da, double *dknots)
{
    const size_t per = 2 * s->r - 1;
    const long K = (long)s->K;
    for (size_t q = 0; q < per; q++) {
        const long j = s->knot_index[q];
        const double f = s->knot_frac[q], part[2] = {(1.0 - f) * da[q], f * da[q]};
        for (int e = 0; e < 2; e++) {
            long jj = j + e;
            if (jj == 0) continue; /* f(0) = 0 is no parameter */
            dknots[jj < 0 ? K + jj : K + jj - 1] += part[e];
        }
    }
}

static double *thread_slice(const skit_tno_plan *p, double *work)
{
    size_t id = 0;
#ifdef _OPENMP
    id = (size_t)omp_get_thread_num();
#endif
    return work + id * slice_doubles(p->op);
}

static int run(const skit_tno_plan *p, const double *x, const double *dy, double *dx, double *dparams,
               double *dlambda, double *work)
{
    const tno_ski *s = p->op;
    const size_t n = p->n, d = p->d, r = s->r, m = s->m, K = s->K, per = 2 * r - 1;
    const int causal = p->opt.causality == SKIT_CAUSAL;
    const double *taps = s->params + d * 2 * K;
    (void)dlambda; /* the time warp's lambda is not a learnable bias */
    if (dx) memset(dx, 0, p->batch * n * d * sizeof *dx);
    if (dparams) memset(dparams, 0, p->param_count * sizeof *dparams);
    long channels = (long)d;
#pragma omp parallel for num_threads(p->threads) schedule(static)
    for (long cl = 0; cl < channels; cl++) {
        const size_t c = (size_t)cl;
        double *buf = thread_slice(p, work), *da = buf + 3 * tno_region(r);
        memset(da, 0, per * sizeof *da);
        for (size_t b = 0; b < p->batch; b++) {
            const size_t off = (b * d + c) * n;
            double *dxc = dx ? dx + off : NULL;
            if (m) band_backward(p, taps + c * m, x + off, dy + off, dxc, dparams ? dparams + d * 2 * K + c * m : NULL,
                                 causal);
            if (causal) lowrank_causal(p, s->a_coeffs + c * per, x + off, dy + off, dxc, da, buf);
            else lowrank_bidirectional(p, s->a_coeffs + c * per, x + off, dy + off, dxc, da, buf);
        }
        if (dparams) knots_backward(s, da, dparams + c * 2 * K);
    }
    return SKIT_OK;
}

const tno_backward_ops tno_ski_backward = {
    .create = grad_create,
    .destroy = grad_destroy,
    .workspace_doubles = workspace_doubles,
    .run = run,
};
