/* fdtno.c — FD-TNO plans (skit/freq.h): the kernel is given by its
 * frequency response on the rfft grid; causal kernels get their imaginary
 * part from the Hilbert transform (Algorithm 2), bidirectional ones carry
 * a complex response with the imaginary part forced to 0 at 0 and π.
 *
 * The same plan is the circulant-product engine of TNO plans
 * (freq_internal.h): d spectra on a length-N grid, applied as
 * y_c = [IDFT(DFT([x_c; 0]) .* K_c)]_{0..n-1}. The inverse transform is a
 * second forward r2c through the Hartley identity, as the Toeplitz plans
 * do (lib/toeplitz/fft.c: FFTW_ESTIMATE's c2r measured up to 2x slower
 * than its r2c): with V = X .* K, w[k] = Re V[k] - Im V[k] (w[N-k] =
 * Re V[k] + Im V[k]) is the Hartley transform of y, and y_j = Re W[j] -
 * Im W[j] with W = DFT(w); the 1/N is folded into the stored spectra. At
 * k = 0 and k = N/2 only Re V enters, as FFTW's c2r reads it (the
 * imaginary part of a real signal's spectrum is 0 there).
 *
 * Spectra are stored split, Re then Im per channel, so that the GEMM of
 * an output-layer pushdown (lib/tno/tno.c) writes them in place. */
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "freq/freq_internal.h"
#include "skit/freq.h"
#include "core/simd.h" /* SKIT_MULTIVERSION, SKIT_SIMD */

/* Channels a thread gathers at once from (batch, n, d) rows: a multiple
 * of 4 (the AVX2 blocks), up to MAX_GROUP and GROUP_BYTES of staging, and
 * no more than the threads' share of d. Wider groups read more of each row
 * per visit: measured with 1 thread, the rows apply cost 1.35x the
 * channel-major one with 8 channels and 1.1x with 32 at n = 2048,
 * d = 512, and 1.55x against 1.25x at n = 32768, d = 64, where a group of
 * 8 reads one 64-byte line of a 512-byte row and finds the next one
 * evicted when it comes back for it. The group is staged compactly (n
 * values per channel) and each channel goes through one FFT buffer, so
 * the transforms run in cache whatever the group's size. Beyond 64
 * channels a group pays only while its staging stays within about half
 * an L2 (STAGE_BYTES): measured with 2 threads, batch 4 (resp. 1), the
 * apply took 3.4 / 3.3 / 3.15 ms at n = 512, d = 512 with groups of
 * 32 / 64 / 128 (staging 0.5 MiB for 128), and 4.3 / 4.1 / 4.3 ms at
 * n = 2048 (2 MiB for 128); at n = 8192, d = 128 (share 64) 6.0 ms with
 * 32 and 5.85 with 64. */
#define MIN_WIDE_GROUP 64
#define MAX_GROUP 128
#define STAGE_BYTES ((size_t)1 << 20)
#define GROUP_BYTES ((size_t)16 << 20)

struct skit_fdtno_plan {
    size_t n, d, N, half;
    skit_causality causality;
    int threads;
    size_t real_stride; /* doubles of one real buffer (N rounded up to 8) */
    size_t slice;       /* per-thread scratch of execute: one real + one complex buffer */
    size_t group;        /* channels per gather in the rows apply */
    size_t stage_stride; /* doubles per channel of its staging rows (n rounded up, + a line) */
    size_t rows_slice;   /* per-thread scratch of the rows apply: group staging rows, one
                          * real and one complex FFT buffer, then the Hartley buffer
                          * (0: none) */
    fftw_plan r2c, c2r;
    double *spectra;    /* d x 2 half: Re K_c then Im K_c, scaled by 1/N */
    double *scratch;    /* threads * max(slice, rows_slice) */
    double *basis;      /* basis_rows x 2 half, or NULL */
    size_t basis_rows;
    size_t bytes;
};

static size_t round8(size_t v) { return (v + 7) / 8 * 8; }

/* The calling thread's slice of the plan's scratch (stride doubles each);
 * outside a parallel region, slice 0. */
static double *thread_scratch(double *base, size_t stride)
{
    size_t id = 0;
#ifdef _OPENMP
    id = (size_t)omp_get_thread_num();
#endif
    return base + id * stride;
}

size_t skit_fdtno_fft_length(const skit_fdtno_plan *plan) { return plan ? plan->N : 0; }
size_t skit_fdtno_grid_size(const skit_fdtno_plan *plan) { return plan ? plan->half : 0; }
size_t skit_fdtno_response_width(const skit_fdtno_plan *plan)
{
    if (!plan) return 0;
    return plan->causality == SKIT_CAUSAL ? plan->d : 2 * plan->d;
}
size_t skit_fdtno_workspace_size(const skit_fdtno_plan *plan)
{
    return plan ? (size_t)plan->threads * plan->slice : 0;
}
double *skit_fdtno_spectra_data(skit_fdtno_plan *plan) { return plan->spectra; }
double *skit_fdtno_basis_data(skit_fdtno_plan *plan) { return plan->basis; }
size_t skit_fdtno_spectra_ld(const skit_fdtno_plan *plan) { return 2 * plan->half; }
size_t skit_fdtno_basis_rows(const skit_fdtno_plan *plan) { return plan ? plan->basis_rows : 0; }
size_t skit_fdtno_bytes(const skit_fdtno_plan *plan) { return plan ? plan->bytes : 0; }

void skit_fdtno_destroy(skit_fdtno_plan *plan)
{
    if (!plan) return;
    if (plan->r2c) fftw_destroy_plan(plan->r2c);
    if (plan->c2r) fftw_destroy_plan(plan->c2r);
    skit_free(plan->spectra);
    skit_free(plan->scratch);
    skit_free(plan->basis);
    skit_free(plan);
}

int skit_fdtno_create_engine(skit_fdtno_plan **plan, size_t n, size_t d, skit_causality causality,
                             size_t length, size_t basis_rows, int rows_layout)
{
    size_t N = length;
    if (N == 0) {
        N = 1;
        while (N < 2 * n) N *= 2;
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    if (threads < 1) threads = 1;
#endif
    /* buffers one line longer than N, so that the rows apply's buffers
     * (power-of-two N apart otherwise) do not all map to one cache set */
    size_t half = N / 2 + 1, real_stride = round8(N) + 8, slice = real_stride + round8(2 * half);
    size_t stage_stride = round8(n) + 8;
    size_t group = STAGE_BYTES / (stage_stride * sizeof(double)) / 4 * 4;
    group = SKIT_MIN(SKIT_MAX(group, (size_t)MIN_WIDE_GROUP), (size_t)MAX_GROUP);
    group = SKIT_MIN(group, GROUP_BYTES / (stage_stride * sizeof(double)) / 4 * 4);
    group = SKIT_MAX((size_t)4, group);
    group = SKIT_MIN(group, ((d + (size_t)threads - 1) / (size_t)threads + 3) / 4 * 4);
    size_t rows_slice = rows_layout ? group * stage_stride + slice + real_stride : 0;
    size_t spec_doubles, basis_doubles, scratch_doubles, total;
    if (skit_size_mul(half, 2 * d, &spec_doubles) || skit_size_mul(half, 2 * basis_rows, &basis_doubles) ||
        skit_size_mul(SKIT_MAX(slice, rows_slice), (size_t)threads, &scratch_doubles) ||
        skit_size_add(spec_doubles, scratch_doubles, &total) || skit_size_add(total, basis_doubles, &total) ||
        skit_size_mul(total, sizeof(double), &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "FD-TNO plan size overflows (n = %zu, d = %zu)", n, d);
    SKIT_TRY(skit_memory_check(total, "FD-TNO plan"));

    skit_fdtno_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->n = n;
    p->d = d;
    p->N = N;
    p->half = half;
    p->causality = causality;
    p->threads = threads;
    p->real_stride = real_stride;
    p->slice = slice;
    p->group = group;
    p->stage_stride = stage_stride;
    p->rows_slice = rows_slice;
    p->basis_rows = basis_rows;
    p->bytes = sizeof *p + total;
    p->spectra = skit_calloc(spec_doubles, sizeof(double));
    p->scratch = skit_malloc(scratch_doubles, sizeof(double));
    p->basis = basis_rows ? skit_calloc(basis_doubles, sizeof(double)) : NULL;
    if (!p->spectra || !p->scratch || (basis_rows && !p->basis)) {
        skit_fdtno_destroy(p);
        return SKIT_ENOMEM;
    }
    double *buf = p->scratch;
    fftw_complex *spec = (fftw_complex *)(p->scratch + real_stride);
    skit_fftw_planner_init();
    p->r2c = fftw_plan_dft_r2c_1d((int)N, buf, spec, FFTW_ESTIMATE);
    p->c2r = fftw_plan_dft_c2r_1d((int)N, spec, buf, FFTW_ESTIMATE);
    if (!p->r2c || !p->c2r) {
        skit_fdtno_destroy(p);
        return SKIT_ERROR(SKIT_ELIBRARY, "FFTW could not plan a length-%zu transform", N);
    }
    *plan = p;
    return SKIT_OK;
}

int skit_fdtno_create(skit_fdtno_plan **plan, size_t n, size_t d, skit_causality causality,
                      size_t fft_length)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need d >= 1 channels");
    if (causality != SKIT_CAUSAL && causality != SKIT_BIDIRECTIONAL)
        return SKIT_ERROR(SKIT_EINVAL, "causality = %d unknown: need bidirectional (0) or causal (1)",
                          (int)causality);
    if (n > ((size_t)1 << 30))
        return SKIT_ERROR(SKIT_EDOM, "n = %zu out of range: need n <= 2^30", n);
    if (fft_length != 0 && (fft_length % 2 || fft_length < 2 * n || fft_length > ((size_t)1 << 31)))
        return SKIT_ERROR(SKIT_EDOM, "fft_length = %zu out of range: need an even N with "
                                     "2n (= %zu) <= N <= 2^31, or 0 for the default", fft_length, 2 * n);
    return skit_fdtno_create_engine(plan, n, d, causality, fft_length, 0, 0);
}

int skit_fdtno_grid(const skit_fdtno_plan *plan, double *omega)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(omega);
    for (size_t m = 0; m < plan->half; m++) omega[m] = 2 * M_PI * (double)m / (double)plan->N;
    return SKIT_OK;
}

/* Copy an interleaved FFTW spectrum z (half complex) into the split row
 * (re, im), times scale. */
static void split_spectrum(const double *restrict z, size_t half, double scale, double *restrict re,
                           double *restrict im)
{
    SKIT_SIMD
    for (size_t m = 0; m < half; m++) {
        re[m] = z[2 * m] * scale;
        im[m] = z[2 * m + 1] * scale;
    }
}

/* Hilbert step of one response row re (scaled by 1/N) into im, using the
 * thread's buffers: c2r gives the even impulse response k_e; keeping lag 0
 * and N/2 once, doubling lags 1..N/2-1 and zeroing the negative lags gives
 * the causal kernel, whose spectrum is R - i·H{R}: its real part is the
 * response itself (re), its imaginary part goes to im. */
static void hilbert_row(const skit_fdtno_plan *p, const double *re, double *im, double *buf)
{
    const size_t N = p->N, half = p->half;
    double *z = buf + p->real_stride;
    for (size_t m = 0; m < half; m++) {
        z[2 * m] = re[m];
        z[2 * m + 1] = 0.0;
    }
    fftw_execute_dft_c2r(p->c2r, (fftw_complex *)z, buf);
    for (size_t t = 1; t < N / 2; t++) buf[t] *= 2.0;
    for (size_t t = N / 2 + 1; t < N; t++) buf[t] = 0.0;
    fftw_execute_dft_r2c(p->r2c, buf, (fftw_complex *)z);
    double scale = 1.0 / (double)N;
    for (size_t m = 0; m < half; m++) im[m] = z[2 * m + 1] * scale;
}

void skit_fdtno_hilbert_rows(skit_fdtno_plan *p, const double *re, size_t ld, size_t count, double *im,
                             size_t ldo)
{
    long rows = (long)count;
#pragma omp parallel for num_threads(p->threads) schedule(static) if (count > 1)
    for (long r = 0; r < rows; r++)
        hilbert_row(p, re + (size_t)r * ld, im + (size_t)r * ldo, thread_scratch(p->scratch, p->slice));
}

int skit_fdtno_set_response(skit_fdtno_plan *plan, const double *response)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(response);
    size_t width = skit_fdtno_response_width(plan), half = plan->half, d = plan->d;
    SKIT_TRY(skit_check_finite(response, half * width, "frequency response"));
    double scale = 1.0 / (double)plan->N;
    for (size_t c = 0; c < d; c++) {
        double *re = plan->spectra + c * 2 * half, *im = re + half;
        for (size_t m = 0; m < half; m++) re[m] = response[m * width + c] * scale;
        if (plan->causality == SKIT_CAUSAL) {
            hilbert_row(plan, re, im, plan->scratch);
            continue;
        }
        for (size_t m = 0; m < half; m++)
            im[m] = (m == 0 || m == half - 1) ? 0.0 : response[m * width + d + c] * scale;
    }
    return SKIT_OK;
}

int skit_fdtno_set_mlp(skit_fdtno_plan *plan, const skit_mlp *mlp)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(mlp);
    size_t width = skit_fdtno_response_width(plan);
    if (skit_mlp_in_dim(mlp) != 1 || skit_mlp_out_dim(mlp) != width)
        return SKIT_ERROR(SKIT_ESHAPE, "MLP is %zu -> %zu: FD-TNO needs 1 -> %zu (%s, d = %zu)",
                          skit_mlp_in_dim(mlp), skit_mlp_out_dim(mlp), width,
                          plan->causality == SKIT_CAUSAL ? "causal: d real parts"
                                                         : "bidirectional: d real + d imaginary",
                          plan->d);
    double *omega = skit_malloc(plan->half, sizeof(double));
    double *resp = skit_malloc(plan->half * width, sizeof(double));
    int status = SKIT_ENOMEM;
    if (omega && resp) {
        skit_fdtno_grid(plan, omega);
        status = skit_mlp_eval(mlp, plan->half, omega, resp, NULL);
        if (status == SKIT_OK) status = skit_fdtno_set_response(plan, resp);
    }
    skit_free(omega);
    skit_free(resp);
    return status;
}

void skit_fdtno_set_toeplitz(skit_fdtno_plan *p, const double *coeffs)
{
    const size_t n = p->n, N = p->N, per = 2 * n - 1, half = p->half;
    const double scale = 1.0 / (double)N;
    long d = (long)p->d;
#pragma omp parallel for num_threads(p->threads) schedule(static) if (d > 1)
    for (long c = 0; c < d; c++) {
        double *h = thread_scratch(p->scratch, p->slice), *z = h + p->real_stride;
        const double *t = coeffs + (size_t)c * per;
        /* circulant embedding: lag k at k, lag -k at N - k */
        memcpy(h, t + (n - 1), n * sizeof *h);
        memset(h + n, 0, (N - n) * sizeof *h);
        if (p->causality == SKIT_BIDIRECTIONAL)
            for (size_t k = 1; k < n; k++) h[N - k] = t[(n - 1) - k];
        fftw_execute_dft_r2c(p->r2c, h, (fftw_complex *)z);
        double *re = p->spectra + (size_t)c * 2 * half;
        split_spectrum(z, half, scale, re, re + half);
    }
}

/* dst row j (split, scaled by 1/N; 2 half apart) = DFT of rows[j*ld ..],
 * j < count, rows over the threads */
static void transform_rows(const skit_fdtno_plan *p, const double *rows, size_t ld, size_t count, double *dst)
{
    const size_t half = p->half;
    const double scale = 1.0 / (double)p->N;
    long total = (long)count;
#pragma omp parallel for num_threads(p->threads) schedule(static) if (total > 1)
    for (long j = 0; j < total; j++) {
        double *z = thread_scratch(p->scratch, p->slice) + p->real_stride;
        /* r2c preserves its input (FFTW's default for every r2c) */
        fftw_execute_dft_r2c(p->r2c, (double *)(rows + (size_t)j * ld), (fftw_complex *)z);
        double *re = dst + (size_t)j * 2 * half;
        split_spectrum(z, half, scale, re, re + half);
    }
}

void skit_fdtno_set_kernels(skit_fdtno_plan *p, const double *kernels, size_t ld)
{
    transform_rows(p, kernels, ld, p->d, p->spectra);
}

void skit_fdtno_basis_from_rows(skit_fdtno_plan *p, const double *rows, size_t ld)
{
    transform_rows(p, rows, ld, p->basis_rows, p->basis);
}

int skit_fdtno_impulse(const skit_fdtno_plan *plan, double *k, size_t ldk)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(k);
    if (ldk < plan->N)
        return SKIT_ERROR(SKIT_ESHAPE, "ldk = %zu too small: need ldk >= N (= %zu)", ldk, plan->N);
    const size_t half = plan->half;
    double *buf = plan->scratch, *z = plan->scratch + plan->real_stride;
    for (size_t c = 0; c < plan->d; c++) {
        const double *re = plan->spectra + c * 2 * half, *im = re + half;
        for (size_t m = 0; m < half; m++) {
            z[2 * m] = re[m];
            z[2 * m + 1] = im[m];
        }
        fftw_execute_dft_c2r(plan->c2r, (fftw_complex *)z, buf);
        memcpy(k + c * ldk, buf, plan->N * sizeof(double));
    }
    return SKIT_OK;
}

/* ---- apply ---------------------------------------------------------------- */

/* w = Hartley sequence of the product V = Z .* K (Z interleaved, K split) */
SKIT_MULTIVERSION static void product_to_hartley(const double *restrict z, const double *restrict kr,
                                                 const double *restrict ki, size_t N,
                                                 double *restrict w)
{
    const size_t pairs = (N - 1) / 2; /* k = 1..pairs have a distinct partner N - k */
    w[0] = z[0] * kr[0] - z[1] * ki[0];
    SKIT_SIMD
    for (size_t k = 1; k <= pairs; k++) {
        double a = z[2 * k], b = z[2 * k + 1], hr = kr[k], hi = ki[k];
        double vr = a * hr - b * hi, vi = a * hi + b * hr;
        w[k] = vr - vi;
        w[N - k] = vr + vi;
    }
    if (N % 2 == 0) w[N / 2] = z[N] * kr[N / 2] - z[N + 1] * ki[N / 2];
}

/* in[0..N) holds [x_c; 0] (r2c leaves it as it is); out[0..n) gets the
 * first n outputs of channel c. z: the thread's complex buffer; w (N, may
 * be in) takes the Hartley sequence. */
static void convolve(const skit_fdtno_plan *p, size_t c, const double *in, double *z, double *w,
                     double *out)
{
    const size_t N = p->N, half = p->half, n = p->n;
    const double *kr = p->spectra + c * 2 * half;
    fftw_execute_dft_r2c(p->r2c, (double *)in, (fftw_complex *)z);
    product_to_hartley(z, kr, kr + half, N, w);
    fftw_execute_dft_r2c(p->r2c, w, (fftw_complex *)z);
    /* y_j = Re W[j] - Im W[j]; n <= N/2 + 1 since N >= 2n - 1 */
    SKIT_SIMD
    for (size_t j = 0; j < n; j++) out[j] = z[2 * j] - z[2 * j + 1];
}

/* Channels k0..k0+count-1 of x (ldx apart) to y: channel k uses spectrum
 * k % d, so (batch, d, n) data is batch * d channels of one plan. */
static void apply_channels(const skit_fdtno_plan *p, const double *x, size_t ldx, double *y, size_t ldy,
                           size_t count, double *scratch)
{
    const size_t n = p->n, N = p->N;
    long total = (long)count;
#pragma omp parallel for num_threads(p->threads) schedule(static) if (count > 1)
    for (long k = 0; k < total; k++) {
        double *buf = thread_scratch(scratch, p->slice), *z = buf + p->real_stride;
        memcpy(buf, x + (size_t)k * ldx, n * sizeof(double));
        memset(buf + n, 0, (N - n) * sizeof(double));
        convolve(p, (size_t)k % p->d, buf, z, buf, buf);
        memcpy(y + (size_t)k * ldy, buf, n * sizeof(double));
    }
}

/* Moving a group of channels between the (n, d) rows and the thread's
 * buffers (rs apart) is a transpose with one strided side; scalar it cost
 * twice a contiguous copy of the same data (measured at n = 2048, d = 512:
 * 1.1 ms against 0.43 ms), 4 x 4 blocks transposed in AVX2 registers
 * 0.75 ms. The same network maps both ways (a transpose is its own
 * inverse): src rows sa apart, 4 values each, to dst rows da apart. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_BLOCKS 1
__attribute__((target("avx2"))) static void transpose4_avx2(const double *src, size_t sa, double *dst,
                                                             size_t da)
{
    __m256d r0 = _mm256_loadu_pd(src), r1 = _mm256_loadu_pd(src + sa);
    __m256d r2 = _mm256_loadu_pd(src + 2 * sa), r3 = _mm256_loadu_pd(src + 3 * sa);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(dst, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(dst + da, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(dst + 2 * da, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(dst + 3 * da, _mm256_permute2f128_pd(t1, t3, 0x31));
}

/* rows of width channels (ld d) <-> width buffers (ld rs), n rows, width a multiple of 4;
 * to_buffers selects the direction; returns the rows done (a multiple of 4) */
__attribute__((target("avx2"))) static size_t move_group_avx2(double *rows, size_t d, double *buf, size_t rs,
                                                               size_t n, size_t width, int to_buffers)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (size_t h = 0; h < width; h += 4) {
            if (to_buffers) transpose4_avx2(rows + i * d + h, d, buf + h * rs + i, rs);
            else transpose4_avx2(buf + h * rs + i, rs, rows + i * d + h, d);
        }
    return i;
}
#endif

/* the rows i0..n-1 of width channels, scalar */
static void move_group(double *rows, size_t d, double *buf, size_t rs, size_t i0, size_t n, size_t width,
                       int to_buffers)
{
    for (size_t i = i0; i < n; i++)
        for (size_t k = 0; k < width; k++) {
            if (to_buffers) buf[k * rs + i] = rows[i * d + k];
            else rows[i * d + k] = buf[k * rs + i];
        }
}

static void move_rows(double *rows, size_t d, double *buf, size_t rs, size_t n, size_t width, int to_buffers)
{
    size_t done = 0;
#ifdef HAVE_AVX2_BLOCKS
    if (width % 4 == 0 && __builtin_cpu_supports("avx2"))
        done = move_group_avx2(rows, d, buf, rs, n, width, to_buffers);
#endif
    move_group(rows, d, buf, rs, done, n, width, to_buffers);
}

/* One group of up to p->group channels c0.. of one (n, d) sequence: rows
 * gathered into the thread's staging rows (n values per channel), each
 * channel convolved in one FFT buffer that stays in cache and its output
 * written back over its staging row, then all scattered to the rows of y:
 * x and y are read and written once, with no transposed copy of either. */
static void apply_group(const skit_fdtno_plan *p, const double *x, double *y, size_t c0, double *slice)
{
    const size_t n = p->n, d = p->d, N = p->N, ss = p->stage_stride;
    const size_t width = SKIT_MIN(p->group, d - c0);
    double *buf = slice + p->group * ss, *z = buf + p->real_stride, *w = buf + p->slice;
    move_rows((double *)(x + c0), d, slice, ss, n, width, 1); /* reads only, in this direction */
    /* the Hartley sequence goes to w, so buf's zero padding outlives the
     * channels and is written once per group */
    memset(buf + n, 0, (N - n) * sizeof(double));
    for (size_t k = 0; k < width; k++) {
        memcpy(buf, slice + k * ss, n * sizeof(double));
        convolve(p, c0 + k, buf, z, w, slice + k * ss);
    }
    move_rows(y + c0, d, slice, ss, n, width, 0);
}

void skit_fdtno_apply(const skit_fdtno_plan *p, const double *x, double *y, size_t batch, int rows_layout)
{
    const size_t n = p->n, d = p->d;
    if (!rows_layout) {
        apply_channels(p, x, n, y, n, batch * d, p->scratch);
        return;
    }
    const size_t groups = (d + p->group - 1) / p->group;
    long tasks = (long)(batch * groups);
#pragma omp parallel for num_threads(p->threads) schedule(static) if (tasks > 1)
    for (long t = 0; t < tasks; t++) {
        /* channel groups outermost: each thread takes a contiguous range
         * of channels (the spectra GEMMs of lib/tno split theirs alike) */
        size_t g = (size_t)t / batch, b = (size_t)t % batch;
        apply_group(p, x + b * n * d, y + b * n * d, g * p->group,
                    thread_scratch(p->scratch, p->rows_slice));
    }
}

int skit_fdtno_execute(const skit_fdtno_plan *plan, const double *x, size_t ldx, double *y,
                       size_t ldy, double *work)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_REQUIRE_PTR(x);
    SKIT_REQUIRE_PTR(y);
    size_t n = plan->n;
    if (ldx < n) return SKIT_ERROR(SKIT_ESHAPE, "ldx = %zu too small: need ldx >= n (= %zu)", ldx, n);
    if (ldy < n) return SKIT_ERROR(SKIT_ESHAPE, "ldy = %zu too small: need ldy >= n (= %zu)", ldy, n);
    if (work && fftw_alignment_of(work) != fftw_alignment_of(plan->scratch))
        return SKIT_ERROR(SKIT_EINVAL, "work is not 64-byte aligned: allocate it with skit_malloc");
    apply_channels(plan, x, ldx, y, ldy, plan->d, work ? work : plan->scratch);
    return SKIT_OK;
}
