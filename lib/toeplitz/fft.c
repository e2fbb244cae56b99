/* fft.c — Toeplitz matvec by circulant embedding (TNN Theorem 2.1).
 *
 * An m x n Toeplitz matrix T(i, j) = t_{i-j} is the top-left block of the
 * L x L circulant whose first column h is
 *     h[k] = t_k        for k = 0..m-1,
 *     h[L-k] = t_{-k}   for k = 1..n-1,      zero elsewhere,
 * provided L >= m+n-1: then (i - j) mod L is distinct for every lag that
 * occurs, so y = T x is the first m entries of the circular convolution
 * h (*) [x; 0], i.e. of IDFT(H .* X) with X = DFT([x; 0]). Causal
 * operators simply leave h[L-k] at zero.
 *
 * The transposed product needs the circulant of the reversed sequence
 * g[q] = h[(-q) mod L], because T^T(j, i) = t_{i-j} = h[(i-j) mod L]. For
 * real h the DFT of the reversal is conj(H), with no phase factor: t_0 sits
 * at index 0 of h for every m and n, so rectangular shapes need no index
 * shift. The same cached spectrum serves both products; the transposed one
 * reads the zero-padded x of length m and keeps the first n outputs.
 *
 * The inverse transform by a second forward r2c. With FFTW_ESTIMATE,
 * FFTW's c2r measured 1.3-2x slower than its r2c of the same length at many
 * lengths (e.g. 2^13, 2^15, 2^21), so the inverse uses the Hartley
 * transform, which is its own inverse: for real y with V = DFT(y),
 *     DHT(y)[k] = Re V[k] - Im V[k] =: w[k],   y = DHT(w) / L,
 * and DHT(w)[j] = Re W[j] - Im W[j] with W = DFT(w), itself an r2c of the
 * real sequence w (W[L-j] = conj W[j] gives the entries j > L/2). So a
 * matvec is: r2c of [x; 0]; one pass V = X .* H written out as w (entries k
 * and L-k: w[L-k] = Re V[k] + Im V[k]); r2c of w; one pass reading
 * y_j = Re W[j] - Im W[j] (or Re W[L-j] + Im W[L-j]). Every transform is
 * FFTW's; the two extra passes are O(L).
 *
 * FFTW's transforms are unnormalised; the 1/L is folded into the cached
 * spectra so execute does no extra pass. Buffers are out of place: per
 * thread one real buffer (L doubles) and one complex buffer (L/2+1). */
#include "config.h"

#include <fftw3.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "skit/toeplitz.h"
#include "core/simd.h"

/* Doubles are grouped in 64-byte blocks so that every per-thread buffer
 * carved out of one allocation keeps the alignment FFTW planned with. */
#define ALIGN_DOUBLES 8

struct skit_toeplitz_plan {
    size_t m, n, d;
    size_t length;      /* L, the FFT length */
    size_t nfreq;       /* L/2 + 1 complex frequencies of a real signal */
    size_t nmat;        /* d (per channel) or 1 (shared) */
    skit_toeplitz_sharing sharing;
    skit_causality causality;
    double *spectra;    /* nmat x nfreq complex (re, im pairs), scaled by 1/L */
    fftw_plan forward;  /* r2c, out of place, on a thread's buffers */
    int nthreads;       /* OpenMP threads at create time: one buffer each */
    size_t real_doubles;   /* offset of the complex buffer in a thread's block */
    size_t thread_doubles; /* per-thread real + complex buffers */
    double *work;       /* nthreads * thread_doubles, the plan's own scratch */
    size_t bytes;
};

static size_t round_up_doubles(size_t count)
{
    return (count + ALIGN_DOUBLES - 1) / ALIGN_DOUBLES * ALIGN_DOUBLES;
}

static int max_threads(void)
{
#ifdef _OPENMP
    int t = omp_get_max_threads();
    return t > 0 ? t : 1;
#else
    return 1;
#endif
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* V = Z .* H (conj(H) for the transpose) for k = 0..L/2, written as the
 * Hartley sequence w[k] = Re V - Im V, w[L-k] = Re V + Im V. The entries
 * k and L-k coincide only at k = L/2 (L even), where V is real and both
 * formulas agree, and at k = 0, where L-k is out of range. */
SKIT_MULTIVERSION static void spectrum_to_hartley(const double *restrict z, const double *restrict h,
                                             size_t L, int conjugate, double *restrict w)
{
    size_t nfreq = L / 2 + 1;
    double sign = conjugate ? -1.0 : 1.0;
    w[0] = z[0] * h[0] - z[1] * h[1] * sign;
    SKIT_SIMD
    for (size_t k = 1; k < nfreq; k++) {
        double a = z[2 * k], b = z[2 * k + 1], hr = h[2 * k], hi = sign * h[2 * k + 1];
        double vr = a * hr - b * hi, vi = a * hi + b * hr;
        w[k] = vr - vi;
        w[L - k] = vr + vi;
    }
}

/* y[j] = Re W[j] - Im W[j] for j <= L/2, Re W[L-j] + Im W[L-j] above. */
SKIT_MULTIVERSION static void hartley_to_output(const double *restrict W, size_t L, size_t nout,
                                           double *restrict y)
{
    size_t half = SKIT_MIN(nout, L / 2 + 1);
    SKIT_SIMD
    for (size_t j = 0; j < half; j++) y[j] = W[2 * j] - W[2 * j + 1];
    for (size_t j = half; j < nout; j++) y[j] = W[2 * (L - j)] + W[2 * (L - j) + 1];
}

/* The coefficients one matrix actually uses must be finite. */
static int check_coeffs(const skit_toeplitz_plan *p, const double *coeffs)
{
    size_t per = p->m + p->n - 1;
    for (size_t c = 0; c < p->nmat; c++) {
        const double *t = coeffs + c * per;
        size_t first = p->causality == SKIT_CAUSAL ? p->n - 1 : 0;
        for (size_t k = first; k < per; k++)
            if (!isfinite(t[k]))
                return SKIT_ERROR(SKIT_ENONFINITE,
                                  "coeffs[%zu] (matrix %zu, lag %td) = %g: NaN/Inf not allowed",
                                  c * per + k, c, (ptrdiff_t)k - (ptrdiff_t)(p->n - 1), t[k]);
    }
    return SKIT_OK;
}

/* Spectrum of matrix c into its slot, using thread buffer `buf`. */
static void compute_spectrum(const skit_toeplitz_plan *p, const double *t, double *buf, size_t c)
{
    size_t L = p->length, m = p->m, n = p->n;
    double *h = buf;
    double *z = buf + p->real_doubles;
    memset(h, 0, L * sizeof *h);
    for (size_t k = 0; k < m; k++) h[k] = t[(n - 1) + k];
    if (p->causality == SKIT_BIDIRECTIONAL)
        for (size_t k = 1; k < n; k++) h[L - k] = t[(n - 1) - k];
    fftw_execute_dft_r2c(p->forward, h, (fftw_complex *)z);
    double scale = 1.0 / (double)L;
    double *s = p->spectra + 2 * c * p->nfreq;
    for (size_t k = 0; k < 2 * p->nfreq; k++) s[k] = z[k] * scale;
}

static void compute_all_spectra(skit_toeplitz_plan *p, const double *coeffs)
{
    size_t per = p->m + p->n - 1;
    long nmat = (long)p->nmat;
    int nthreads = (int)SKIT_MIN((size_t)p->nthreads, p->nmat);
    (void)nthreads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
#endif
    for (long c = 0; c < nmat; c++)
        compute_spectrum(p, coeffs + (size_t)c * per, p->work + (size_t)thread_id() * p->thread_doubles,
                         (size_t)c);
}

int skit_toeplitz_plan_create(skit_toeplitz_plan **plan, size_t m, size_t n, size_t d,
                              skit_toeplitz_sharing sharing, skit_causality causality,
                              const double *coeffs)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(coeffs);
    if (m == 0) return SKIT_ERROR(SKIT_EDOM, "m = 0 out of range: need m >= 1");
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1 channels");
    if (sharing != SKIT_TOEPLITZ_PER_CHANNEL && sharing != SKIT_TOEPLITZ_SHARED)
        return SKIT_ERROR(SKIT_EINVAL,
                          "sharing = %d: need SKIT_TOEPLITZ_PER_CHANNEL or SKIT_TOEPLITZ_SHARED",
                          (int)sharing);
    if (causality != SKIT_BIDIRECTIONAL && causality != SKIT_CAUSAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d: need SKIT_BIDIRECTIONAL or SKIT_CAUSAL",
                          (int)causality);

    size_t per, length;
    if (skit_size_add(m, n - 1, &per) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "m + n - 1 (m = %zu, n = %zu) overflows size_t", m, n);
    SKIT_TRY(skit_fft_good_length(per, &length));
    /* fftw_plan_dft_r2c_1d takes an int length */
    if (length > (size_t)INT_MAX)
        return SKIT_ERROR(SKIT_ETOOBIG,
                          "FFT length %zu for m = %zu, n = %zu exceeds FFTW's limit %d", length, m,
                          n, INT_MAX);
    size_t nmat = sharing == SKIT_TOEPLITZ_SHARED ? 1 : d;
    size_t nfreq = length / 2 + 1;
    int nthreads = max_threads();
    size_t real_doubles = round_up_doubles(length);
    size_t thread_doubles = real_doubles + round_up_doubles(2 * nfreq);
    size_t spectra_doubles, work_doubles, coeff_count, bytes;
    if (skit_size_mul(nmat, 2 * nfreq, &spectra_doubles) != SKIT_OK ||
        skit_size_mul((size_t)nthreads, thread_doubles, &work_doubles) != SKIT_OK ||
        skit_size_mul(nmat, per, &coeff_count) != SKIT_OK ||
        skit_size_add(spectra_doubles, work_doubles, &bytes) != SKIT_OK ||
        skit_size_mul(bytes, sizeof(double), &bytes) != SKIT_OK ||
        skit_size_add(bytes, sizeof(skit_toeplitz_plan), &bytes) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW,
                          "Toeplitz plan size (m = %zu, n = %zu, d = %zu) overflows size_t", m, n, d);
    SKIT_TRY(skit_memory_check(bytes, "Toeplitz FFT plan"));

    skit_toeplitz_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->m = m;
    p->n = n;
    p->d = d;
    p->length = length;
    p->nfreq = nfreq;
    p->nmat = nmat;
    p->sharing = sharing;
    p->causality = causality;
    p->nthreads = nthreads;
    p->real_doubles = real_doubles;
    p->thread_doubles = thread_doubles;
    p->bytes = bytes;
    int status = check_coeffs(p, coeffs);
    if (status != SKIT_OK) {
        skit_free(p);
        return status;
    }
    p->spectra = skit_malloc(spectra_doubles, sizeof(double));
    p->work = skit_malloc(work_doubles, sizeof(double));
    if (!p->spectra || !p->work) {
        skit_toeplitz_plan_destroy(p);
        return SKIT_ENOMEM;
    }
    double *rbuf = p->work, *cbuf = p->work + real_doubles;
    skit_fftw_planner_init();
    p->forward = fftw_plan_dft_r2c_1d((int)length, rbuf, (fftw_complex *)cbuf, FFTW_ESTIMATE);
    if (!p->forward) {
        skit_toeplitz_plan_destroy(p);
        return SKIT_ERROR(SKIT_ELIBRARY, "FFTW could not plan a real FFT of length %zu", length);
    }
    compute_all_spectra(p, coeffs);
    *plan = p;
    return SKIT_OK;
}

int skit_toeplitz_plan_set_coeffs(skit_toeplitz_plan *plan, const double *coeffs)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(coeffs);
    /* validate everything first so a failure leaves the old spectra intact */
    SKIT_TRY(check_coeffs(plan, coeffs));
    compute_all_spectra(plan, coeffs);
    return SKIT_OK;
}

size_t skit_toeplitz_workspace_size(const skit_toeplitz_plan *plan)
{
    if (!plan) return 0;
    /* ALIGN_DOUBLES of slack: a caller's array is only 8-byte aligned, and
     * FFTW's new-array execute needs the alignment the plan was made with */
    return (size_t)plan->nthreads * plan->thread_doubles + ALIGN_DOUBLES;
}

/* y(:, c) = T_c x(:, c) (or T_c^T) for every channel. */
static int apply(const skit_toeplitz_plan *p, int transpose, const double *x, size_t ldx,
                 double *y, size_t ldy, double *work)
{
    SKIT_REQUIRE_PTR(p);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t nin = transpose ? p->m : p->n, nout = transpose ? p->n : p->m;
    if (ldx < nin)
        return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu out of range: need ldx >= %zu (%s)", ldx, nin,
                          transpose ? "m, rows of T" : "n, columns of T");
    if (ldy < nout)
        return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu out of range: need ldy >= %zu (%s)", ldy, nout,
                          transpose ? "n, columns of T" : "m, rows of T");
    size_t extent_x, extent_y;
    if (skit_size_mul(p->d - 1, ldx, &extent_x) != SKIT_OK ||
        skit_size_mul(p->d - 1, ldy, &extent_y) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW,
                          "leading dimension (ldx = %zu, ldy = %zu) times d = %zu overflows size_t",
                          ldx, ldy, p->d);

    double *base = p->work;
    if (work) {
        uintptr_t addr = (uintptr_t)work, align = ALIGN_DOUBLES * sizeof(double);
        base = (double *)((addr + align - 1) / align * align);
    }
    const size_t L = p->length, nfreq = p->nfreq, stride = p->thread_doubles;
    const size_t real_doubles = p->real_doubles;
    const int shared = p->sharing == SKIT_TOEPLITZ_SHARED;
    const long d = (long)p->d;
    int nthreads = (int)SKIT_MIN((size_t)p->nthreads, p->d);
    (void)nthreads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
#endif
    for (long c = 0; c < d; c++) {
        double *r = base + (size_t)thread_id() * stride;
        double *z = r + real_doubles;
        const double *xc = x + (size_t)c * ldx;
        double *yc = y + (size_t)c * ldy;
        memcpy(r, xc, nin * sizeof *r);
        memset(r + nin, 0, (L - nin) * sizeof *r);
        fftw_execute_dft_r2c(p->forward, r, (fftw_complex *)z);
        const double *h = p->spectra + (shared ? 0 : 2 * (size_t)c * nfreq);
        spectrum_to_hartley(z, h, L, transpose, r);
        fftw_execute_dft_r2c(p->forward, r, (fftw_complex *)z);
        hartley_to_output(z, L, nout, yc);
    }
    return SKIT_OK;
}

int skit_toeplitz_execute(const skit_toeplitz_plan *plan, const double *x, size_t ldx, double *y,
                          size_t ldy, double *work)
{
    return apply(plan, 0, x, ldx, y, ldy, work);
}

int skit_toeplitz_execute_transpose(const skit_toeplitz_plan *plan, const double *x, size_t ldx,
                                    double *y, size_t ldy, double *work)
{
    return apply(plan, 1, x, ldx, y, ldy, work);
}

size_t skit_toeplitz_plan_fft_length(const skit_toeplitz_plan *plan)
{
    return plan ? plan->length : 0;
}

size_t skit_toeplitz_plan_bytes(const skit_toeplitz_plan *plan) { return plan ? plan->bytes : 0; }

void skit_toeplitz_plan_destroy(skit_toeplitz_plan *plan)
{
    if (!plan) return;
    if (plan->forward) fftw_destroy_plan(plan->forward);
    skit_free(plan->spectra);
    skit_free(plan->work);
    skit_free(plan);
}
