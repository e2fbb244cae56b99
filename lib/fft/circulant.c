/* circulant.c — the circulant-product engine (fft/circulant.h), in
 * double precision; circulantf.c compiles this file again in single
 * precision (FFTW's way: one source, a precision macro), so the two
 * engines cannot drift apart. R is the real type, X(name) the public name
 * (skit_circulant_name or skit_circulantf_name), FFTW(name) FFTW's
 * (fftw_name or fftwf_name), E the engine's type.
 *
 * Why the inverse transform may be a second r2c: with FFTW_ESTIMATE,
 * FFTW's c2r is slower than its r2c of the same length at many lengths,
 * and the Hartley identity of circulant.h needs only r2c's plus two O(N)
 * passes. Under MEASURE neither form wins at every length (beyond the
 * caches the Hartley passes' reversed stream costs more than c2r's plain
 * copy), so a measuring planner's engine times both, FFTW's own way of
 * choosing. The 1/N of the inverse is folded into the stored spectra.
 *
 * Buffers are out of place, per thread one real buffer (N values, one
 * cache line longer so that the threads' buffers, a power of two apart
 * otherwise, do not all map to one cache set) and one complex buffer
 * (N/2+1 values). Every slice is a multiple of a 64-byte line (LINE
 * values), so each keeps the 64-byte alignment FFTW planned with. */
#include "config.h"

#include <fftw3.h>
#include <limits.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "core/simd.h"
#include "core/transpose.h"
#include "fft/circulant.h"
#include "fft/planner.h"
#include "skit/fft.h"

#ifdef SKIT_CIRCULANT_SINGLE
typedef float R;
#define X(name) skit_circulantf_##name
#define FFTW(name) fftwf_##name
#define E skit_circulantf
#define PAIR_ACQUIRE skit_fftwf_pair_acquire
#define PAIR_RELEASE skit_fftwf_pair_release
#define PAIR_CHOICE skit_fftwf_pair_choice
#define PAIR_SET_CHOICE skit_fftwf_pair_set_choice
#define PLAN_FLOPS skit_fftwf_plan_flops
#else
typedef double R;
#define X(name) skit_circulant_##name
#define FFTW(name) fftw_##name
#define E skit_circulant
#define PAIR_ACQUIRE skit_fftw_pair_acquire
#define PAIR_RELEASE skit_fftw_pair_release
#define PAIR_CHOICE skit_fftw_pair_choice
#define PAIR_SET_CHOICE skit_fftw_pair_set_choice
#define PLAN_FLOPS skit_fftw_plan_flops
#endif
#define LINE (64 / sizeof(R))

/* Channels a thread gathers at once from (batch, n, d) rows: a multiple
 * of 4 (the AVX2 transposes below), at least MIN_WIDE_GROUP while the
 * group's staging stays within about half an L2 (STAGE_BYTES), at most
 * MAX_GROUP and GROUP_BYTES of staging, and no more than the threads'
 * share of d. Wider groups read more of each row per visit (a group of 8
 * reads one 64-byte line of a 512-byte row and may find the next one
 * evicted when it comes back); the staging is compact (n values per
 * channel) and each channel goes through one FFT buffer, so the transforms
 * run in cache whatever the group's size. */
#define MIN_WIDE_GROUP 64
#define MAX_GROUP 128
#define STAGE_BYTES ((size_t)1 << 20)
#define GROUP_BYTES ((size_t)16 << 20)

struct E {
    size_t m, n, d, nspec, N, half;
    int threads;
    size_t real_stride;  /* values of one real buffer (N rounded up, + a line) */
    size_t slice;        /* one thread's real + complex buffers */
    size_t channels_slice; /* the channel apply's: slice + a real buffer for the Hartley sequence */
    size_t group;        /* channels per gather in the rows apply */
    size_t stage_stride; /* values per channel of the staging rows (n rounded up, + a line) */
    size_t rows_slice;   /* one thread's scratch in the rows apply: the group's staging
                          * rows, one slice, then a Hartley buffer (0: no rows apply) */
    FFTW(plan) r2c, c2r;
    int c2r_inverse;     /* the inverse by c2r (else by the Hartley form) */
    R *spectra;     /* nspec x 2 half: Re then Im, scaled by 1/N */
    R *basis;       /* basis_rows x 2 half, or NULL */
    size_t basis_rows;
    size_t bytes;
};

static size_t round_line(size_t v) { return (v + LINE - 1) / LINE * LINE; }

/* The calling thread's slice of scratch (stride values each); outside a
 * parallel region, slice 0. */
static R *thread_slice(R *base, size_t stride)
{
    size_t id = 0;
#ifdef _OPENMP
    id = (size_t)omp_get_thread_num();
#endif
    return base + id * stride;
}

size_t X(length)(const E *e) { return e->N; }
int X(inverse_c2r)(const E *e) { return e->c2r_inverse; }
size_t X(frequencies)(const E *e) { return e->half; }
size_t X(spectra_ld)(const E *e) { return 2 * e->half; }
size_t X(basis_rows)(const E *e) { return e->basis_rows; }
R *X(spectra)(E *e)
{
    return e->spectra;
}
R *X(basis)(E *e) { return e->basis; }
size_t X(bytes)(const E *e) { return e ? e->bytes : 0; }

size_t X(workspace_doubles)(const E *e, int rows_layout)
{
    size_t per = rows_layout ? SKIT_MAX(e->rows_slice, e->channels_slice) : e->channels_slice;
    return (size_t)e->threads * per;
}

void X(destroy)(E *e)
{
    if (!e) return;
    PAIR_RELEASE(e->r2c, e->c2r);
    skit_free(e->spectra);
    skit_free(e->basis);
    skit_free(e);
}

/* channels per group of the rows apply (see MIN_WIDE_GROUP) */
static size_t rows_group(size_t n, size_t d, int threads)
{
    size_t stage_stride = round_line(n) + LINE;
    size_t group = STAGE_BYTES / (stage_stride * sizeof(R)) / 4 * 4;
    group = SKIT_MIN(SKIT_MAX(group, (size_t)MIN_WIDE_GROUP), (size_t)MAX_GROUP);
    group = SKIT_MIN(group, GROUP_BYTES / (stage_stride * sizeof(R)) / 4 * 4);
    group = SKIT_MAX((size_t)4, group);
    return SKIT_MIN(group, ((d + (size_t)threads - 1) / (size_t)threads + 3) / 4 * 4);
}

/* N, the buffer strides, and the bytes the engine will hold */
static int engine_sizes(E *e, const skit_circulant_shape *s)
{
    size_t N = s->length, span;
    if (skit_size_add(s->rows, s->cols - 1, &span) != SKIT_OK)
        return SKIT_ERROR(SKIT_EOVERFLOW, "m + n - 1 (m = %zu, n = %zu) overflows size_t", s->rows, s->cols);
    if (N == 0) SKIT_TRY(skit_fft_good_length(span, &N));
    if (N > (size_t)INT_MAX) /* FFTW's planner takes an int length */
        return SKIT_ERROR(SKIT_ETOOBIG, "FFT length %zu for m = %zu, n = %zu exceeds FFTW's limit %d", N,
                          s->rows, s->cols, INT_MAX);
    e->N = N;
    e->half = N / 2 + 1;
    e->real_stride = round_line(N) + LINE;
    e->slice = e->real_stride + round_line(2 * e->half);
    e->channels_slice = e->slice + e->real_stride;
    /* a staging row holds a channel's inputs and then its outputs */
    const size_t staged = SKIT_MAX(s->rows, s->cols);
    e->group = rows_group(staged, s->channels, e->threads);
    e->stage_stride = round_line(staged) + LINE;
    e->rows_slice = s->rows_layout ? e->group * e->stage_stride + e->slice + e->real_stride : 0;
    size_t spec, basis, apply, total;
    if (skit_size_mul(e->half, 2 * s->spectra, &spec) || skit_size_mul(e->half, 2 * s->basis_rows, &basis) ||
        skit_size_mul(SKIT_MAX(e->channels_slice, e->rows_slice), (size_t)e->threads, &apply) ||
        skit_size_add(spec, basis, &total) || skit_size_add(total, apply, &total) ||
        skit_size_mul(total, sizeof(R), &total))
        return SKIT_ERROR(SKIT_EOVERFLOW, "circulant plan size overflows (N = %zu, %zu spectra)", N,
                          s->spectra);
    /* the estimate counts one workspace: the front-end's own */
    SKIT_TRY(skit_memory_check(total, s->what ? s->what : "FFT plan"));
    e->bytes = sizeof *e + (spec + basis) * sizeof(R);
    return SKIT_OK;
}

static int choose_inverse(E *e, skit_fft_inverse inverse, unsigned flags);

int X(create)(E **engine, const skit_circulant_shape *s)
{
    *engine = NULL;
    E *e = skit_calloc(1, sizeof *e);
    if (!e) return SKIT_ENOMEM;
    e->m = s->rows;
    e->n = s->cols;
    e->d = s->channels;
    e->nspec = s->spectra;
    e->basis_rows = s->basis_rows;
    e->threads = skit_max_threads();
    unsigned flags = 0;
    int status = skit_fftw_flags(s->planner, &flags);
    if (status == SKIT_OK) status = engine_sizes(e, s);
    if (status != SKIT_OK) {
        skit_free(e);
        return status;
    }
    e->spectra = skit_calloc(e->nspec * 2 * e->half, sizeof(R));
    e->basis = e->basis_rows ? skit_calloc(e->basis_rows * 2 * e->half, sizeof(R)) : NULL;
    if (!e->spectra || (e->basis_rows && !e->basis)) {
        X(destroy)(e);
        return SKIT_ENOMEM;
    }
    /* shared with every engine of this length and planner: planned on
     * buffers of the alignment and layout every workspace slice has */
    status = PAIR_ACQUIRE(e->N, flags, &e->r2c, &e->c2r);
    if (status == SKIT_OK) status = choose_inverse(e, s->inverse, flags);
    if (status != SKIT_OK) {
        X(destroy)(e);
        return status;
    }
    *engine = e;
    return SKIT_OK;
}

/* ---- setting spectra ---------------------------------------------------- */

/* Copy an interleaved FFTW spectrum z (half complex) into the split row
 * (re, im), times scale. */
static void split_spectrum(const R *restrict z, size_t half, R scale, R *restrict re,
                           R *restrict im)
{
    SKIT_SIMD
    for (size_t k = 0; k < half; k++) {
        re[k] = z[2 * k] * scale;
        im[k] = z[2 * k + 1] * scale;
    }
}

void X(set_toeplitz)(E *e, const R *coeffs, skit_causality causality,
                                 R *work)
{
    const size_t m = e->m, n = e->n, N = e->N, per = m + n - 1, half = e->half;
    const R scale = 1.0 / (R)N;
    long count = (long)e->nspec;
#pragma omp parallel for num_threads(e->threads) schedule(static) if (count > 1)
    for (long s = 0; s < count; s++) {
        R *h = thread_slice(work, e->slice), *z = h + e->real_stride;
        const R *t = coeffs + (size_t)s * per;
        /* circulant embedding: lag k at k, lag -k at N - k */
        memcpy(h, t + (n - 1), m * sizeof *h);
        memset(h + m, 0, (N - m) * sizeof *h);
        if (causality == SKIT_BIDIRECTIONAL)
            for (size_t k = 1; k < n; k++) h[N - k] = t[(n - 1) - k];
        FFTW(execute_dft_r2c)(e->r2c, h, (FFTW(complex) *)z);
        R *re = e->spectra + (size_t)s * 2 * half;
        split_spectrum(z, half, scale, re, re + half);
    }
}

/* dst row j (split, 2 half apart) = DFT of rows + j ld, scaled by 1/N */
static void transform_rows(E *e, const R *rows, size_t ld, size_t count, R *dst,
                           R *work)
{
    const size_t half = e->half;
    const R scale = 1.0 / (R)e->N;
    long total = (long)count;
#pragma omp parallel for num_threads(e->threads) schedule(static) if (total > 1)
    for (long j = 0; j < total; j++) {
        R *z = thread_slice(work, e->slice) + e->real_stride;
        /* r2c preserves its input (FFTW's default for every r2c) */
        FFTW(execute_dft_r2c)(e->r2c, (R *)(rows + (size_t)j * ld), (FFTW(complex) *)z);
        R *re = dst + (size_t)j * 2 * half;
        split_spectrum(z, half, scale, re, re + half);
    }
}

void X(set_kernels)(E *e, const R *kernels, size_t ld, R *work)
{
    transform_rows(e, kernels, ld, e->nspec, e->spectra, work);
}

void X(basis_from_rows)(E *e, const R *rows, size_t ld, R *work)
{
    transform_rows(e, rows, ld, e->basis_rows, e->basis, work);
}

/* The Hilbert step of one response row re (scaled by 1/N) into im, in the
 * thread's buffers: c2r gives the even impulse response k_e; keeping lags
 * 0 and N/2 once, doubling lags 1..N/2-1 and zeroing the negative lags
 * gives the causal kernel, whose spectrum is R - i H{R}: its real part is
 * the response itself, its imaginary part goes to im. */
static void hilbert_row(const E *e, const R *re, R *im, R *buf)
{
    const size_t N = e->N, half = e->half;
    R *z = buf + e->real_stride;
    for (size_t k = 0; k < half; k++) {
        z[2 * k] = re[k];
        z[2 * k + 1] = 0.0;
    }
    FFTW(execute_dft_c2r)(e->c2r, (FFTW(complex) *)z, buf);
    for (size_t t = 1; t < N / 2; t++) buf[t] *= 2.0;
    for (size_t t = N / 2 + 1; t < N; t++) buf[t] = 0.0;
    FFTW(execute_dft_r2c)(e->r2c, buf, (FFTW(complex) *)z);
    R scale = 1.0 / (R)N;
    for (size_t k = 0; k < half; k++) im[k] = z[2 * k + 1] * scale;
}

void X(hilbert_rows)(const E *e, const R *re, size_t ld, size_t count,
                                 R *im, size_t ldo, R *work)
{
    long rows = (long)count;
#pragma omp parallel for num_threads(e->threads) schedule(static) if (count > 1)
    for (long r = 0; r < rows; r++)
        hilbert_row(e, re + (size_t)r * ld, im + (size_t)r * ldo, thread_slice(work, e->slice));
}

void X(kernel)(const E *e, size_t s, R *kernel, R *work)
{
    const size_t half = e->half;
    const R *re = e->spectra + s * 2 * half, *im = re + half;
    R *buf = work, *z = work + e->real_stride;
    for (size_t k = 0; k < half; k++) {
        z[2 * k] = re[k];
        z[2 * k + 1] = im[k];
    }
    FFTW(execute_dft_c2r)(e->c2r, (FFTW(complex) *)z, buf);
    memcpy(kernel, buf, e->N * sizeof(R));
}

/* ---- applying ----------------------------------------------------------- */

/* w = the Hartley sequence of V = Z .* K (Z interleaved, K split; conj(K)
 * when sign = -1): w[k] = Re V - Im V, w[N-k] = Re V + Im V. At k = 0
 * and k = N/2 (N even) only Re V enters, as FFTW's c2r reads it (the
 * imaginary part of a real signal's spectrum is 0 there). */
SKIT_MULTIVERSION static void product_to_hartley(const R *restrict z, const R *restrict kr,
                                                 const R *restrict ki, size_t N, R sign,
                                                 R *restrict w)
{
    const size_t pairs = (N - 1) / 2; /* k = 1..pairs have a distinct partner N - k */
    w[0] = z[0] * kr[0] - z[1] * ki[0] * sign;
    SKIT_SIMD
    for (size_t k = 1; k <= pairs; k++) {
        R a = z[2 * k], b = z[2 * k + 1], hr = kr[k], hi = sign * ki[k];
        R vr = a * hr - b * hi, vi = a * hi + b * hr;
        w[k] = vr - vi;
        w[N - k] = vr + vi;
    }
    if (N % 2 == 0) w[N / 2] = z[N] * kr[N / 2] - z[N + 1] * ki[N / 2] * sign;
}

/* product_to_hartley's arithmetic: 3 at k = 0 (and at N/2, N even), 8
 * per pair (a complex product, 4 mul + 2 add, then vr -+ vi); the sign
 * of a transposed product is a conjugation, not counted */
static double product_to_hartley_flops(size_t N)
{
    return 3.0 + 8.0 * (double)((N - 1) / 2) + (N % 2 == 0 ? 3.0 : 0.0);
}

/* y[j] = Re W[j] - Im W[j] for j <= N/2, Re W[N-j] + Im W[N-j] above. */
SKIT_MULTIVERSION static void hartley_to_output(const R *restrict W, size_t N, size_t nout,
                                                R *restrict y)
{
    size_t half = SKIT_MIN(nout, N / 2 + 1);
    SKIT_SIMD
    for (size_t j = 0; j < half; j++) y[j] = W[2 * j] - W[2 * j + 1];
    for (size_t j = half; j < nout; j++) y[j] = W[2 * (N - j)] + W[2 * (N - j) + 1];
}

/* hartley_to_output's arithmetic: one add or subtract per output */
static double hartley_to_output_flops(size_t nout) { return (double)nout; }

/* z (interleaved) = Z .* K (K split; conj(K) when sign = -1), for c2r */
SKIT_MULTIVERSION static void product_in_place(R *restrict z, const R *restrict kr,
                                               const R *restrict ki, size_t half, R sign)
{
    SKIT_SIMD
    for (size_t k = 0; k < half; k++) {
        R a = z[2 * k], b = z[2 * k + 1], hr = kr[k], hi = sign * ki[k];
        z[2 * k] = a * hr - b * hi;
        z[2 * k + 1] = a * hi + b * hr;
    }
}

/* product_in_place's arithmetic: a complex product (4 mul + 2 add) per
 * frequency; the sign as in product_to_hartley_flops */
static double product_in_place_flops(size_t half) { return 6.0 * (double)half; }

/* in[0..N) holds the zero-padded input (r2c leaves it as it is, and
 * neither form writes it, so the padding outlives the call); out gets the
 * first nout outputs with the spectrum at kr, by c2r or the Hartley form.
 * z: the thread's complex buffer; w (N values, apart from in and z) takes
 * c2r's output or the Hartley sequence. */
static void convolve_in(const E *e, int c2r, const R *kr, int transpose, const R *in, R *z, R *w,
                        size_t nout, R *out)
{
    const size_t N = e->N, half = e->half;
    FFTW(execute_dft_r2c)(e->r2c, (R *)in, (FFTW(complex) *)z);
    if (c2r) {
        product_in_place(z, kr, kr + half, half, transpose ? -1.0 : 1.0);
        FFTW(execute_dft_c2r)(e->c2r, (FFTW(complex) *)z, w);
        memcpy(out, w, nout * sizeof(R));
        return;
    }
    product_to_hartley(z, kr, kr + half, N, transpose ? -1.0 : 1.0, w);
    FFTW(execute_dft_r2c)(e->r2c, w, (FFTW(complex) *)z);
    hartley_to_output(z, N, nout, out);
}

/* convolve_in's operations: FFTW's counts of its transforms (the r2c
 * transforms the whole zero-padded buffer) plus the pointwise loops
 * above; the copies move data and count nothing, and the 1/N scale was
 * folded into the spectra when they were set */
double X(channel_flops)(const E *e, int transpose)
{
    const size_t nout = transpose ? e->n : e->m;
    const double r2c = PLAN_FLOPS(e->r2c);
    if (e->c2r_inverse) return r2c + product_in_place_flops(e->half) + PLAN_FLOPS(e->c2r);
    return 2 * r2c + product_to_hartley_flops(e->N) + hartley_to_output_flops(nout);
}

/* the product with spectrum s, in the engine's form of the inverse */
static void convolve(const E *e, size_t s, int transpose, const R *in, R *z, R *w, size_t nout, R *out)
{
    convolve_in(e, e->c2r_inverse, e->spectra + s * 2 * e->half, transpose, in, z, w, nout, out);
}

/* Seconds per product of the fastest of `rounds` samples of `calls`
 * products each, in each form (best[0]: Hartley, best[1]: c2r), the
 * forms alternating so that a load change hits both. */
static void time_forms(const E *e, const R *kr, R *buf, size_t calls, int rounds, double best[2])
{
    R *z = buf + e->real_stride, *w = buf + e->slice;
    best[0] = best[1] = 1e300;
    for (int r = 0; r < rounds; r++)
        for (int c2r = 0; c2r < 2; c2r++) {
            double t0 = skit_clock_seconds();
            for (size_t k = 0; k < calls; k++) convolve_in(e, c2r, kr, 0, buf, z, w, e->m, buf);
            double t = (skit_clock_seconds() - t0) / (double)calls;
            if (t < best[c2r]) best[c2r] = t;
        }
}

/* The form of the inverse (circulant.h): forced; the Hartley form under
 * ESTIMATE and wisdom-only (so that a wisdom file fixes every rounding);
 * else timed on one channel (zeros: FFTW's time does not depend on the
 * values) once per shared pair. */
static int choose_inverse(E *e, skit_fft_inverse inverse, unsigned flags)
{
    e->c2r_inverse = inverse == SKIT_FFT_INVERSE_C2R;
    if (inverse != SKIT_FFT_INVERSE_AUTO || flags == FFTW_ESTIMATE || (flags & FFTW_WISDOM_ONLY))
        return SKIT_OK;
    int known = PAIR_CHOICE(e->r2c);
    if (known >= 0) {
        e->c2r_inverse = known;
        return SKIT_OK;
    }
    R *buf = skit_calloc(e->channels_slice + 2 * e->half, sizeof(R));
    if (!buf) return SKIT_ENOMEM;
    const R *kr = buf + e->channels_slice; /* a zero spectrum */
    double once[2], best[2];
    time_forms(e, kr, buf, 1, 1, once); /* also brings the buffers in */
    double per = SKIT_MIN(once[0], once[1]);
    size_t calls = per > 1e-3 ? 1 : (size_t)(1e-3 / SKIT_MAX(per, 1e-7)) + 1;
    time_forms(e, kr, buf, calls, 3, best);
    e->c2r_inverse = best[1] < best[0];
    PAIR_SET_CHOICE(e->r2c, e->c2r_inverse);
    skit_free(buf);
    return SKIT_OK;
}

void X(apply_channels)(const E *e, int transpose, const R *x, size_t ldx,
                                   R *y, size_t ldy, size_t count, R *work)
{
    const size_t N = e->N, nin = transpose ? e->m : e->n, nout = transpose ? e->n : e->m;
    const long total = (long)count;
    const int threads = (int)SKIT_MIN((size_t)e->threads, count);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        /* the Hartley sequence goes to w, so buf's zero padding (r2c
         * keeps its input) is written once per call, not per channel */
        R *buf = thread_slice(work, e->channels_slice), *z = buf + e->real_stride, *w = buf + e->slice;
        memset(buf + nin, 0, (N - nin) * sizeof(R));
#pragma omp for schedule(static)
        for (long k = 0; k < total; k++) {
            memcpy(buf, x + (size_t)k * ldx, nin * sizeof(R));
            convolve(e, (size_t)k % e->nspec, transpose, buf, z, w, nout, y + (size_t)k * ldy);
        }
    }
}

/* Moving a group of channels between the (n, d) rows and the thread's
 * staging rows (rs apart) is a transpose with one strided side, done in
 * lib/core's register blocks (core/transpose.h); the same blocks map
 * both ways (a transpose is its own inverse). */
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_BLOCKS 1
#ifdef SKIT_CIRCULANT_SINGLE
#define transpose4_avx2 skit_transpose4_avx2_f32
#define transpose8_avx2 skit_transpose8_avx2_f32
#else
#define transpose4_avx2 skit_transpose4_avx2
#endif

/* rows of width channels (ld d) <-> width buffers (ld rs), n rows, width a
 * multiple of 4; to_buffers selects the direction; returns the rows done
 * (a multiple of 4) */
__attribute__((target("avx2"))) static size_t move_group_avx2(R *rows, size_t d, R *buf, size_t rs,
                                                               size_t n, size_t width, int to_buffers)
{
    size_t i = 0;
#ifdef SKIT_CIRCULANT_SINGLE
    if (width % 8 == 0) {
        for (; i + 8 <= n; i += 8)
            for (size_t h = 0; h < width; h += 8) {
                if (to_buffers) transpose8_avx2(rows + i * d + h, d, buf + h * rs + i, rs);
                else transpose8_avx2(buf + h * rs + i, rs, rows + i * d + h, d);
            }
        if (i + 4 > n) return i;
    }
#endif
    for (; i + 4 <= n; i += 4)
        for (size_t h = 0; h < width; h += 4) {
            if (to_buffers) transpose4_avx2(rows + i * d + h, d, buf + h * rs + i, rs);
            else transpose4_avx2(buf + h * rs + i, rs, rows + i * d + h, d);
        }
    return i;
}
#endif

/* the rows i0..n-1 of width channels, scalar */
static void move_group(R *rows, size_t d, R *buf, size_t rs, size_t i0, size_t n, size_t width,
                       int to_buffers)
{
    for (size_t i = i0; i < n; i++)
        for (size_t k = 0; k < width; k++) {
            if (to_buffers) buf[k * rs + i] = rows[i * d + k];
            else rows[i * d + k] = buf[k * rs + i];
        }
}

static void move_rows(R *rows, size_t d, R *buf, size_t rs, size_t n, size_t width, int to_buffers)
{
    size_t done = 0;
#ifdef HAVE_AVX2_BLOCKS
    if (width % 4 == 0 && __builtin_cpu_supports("avx2"))
        done = move_group_avx2(rows, d, buf, rs, n, width, to_buffers);
#endif
    move_group(rows, d, buf, rs, done, n, width, to_buffers);
}

/* One group of up to e->group channels c0.. of one sequence (rows ldx
 * and ldy apart): rows gathered into the thread's staging rows, each
 * channel convolved in one FFT buffer that stays in cache and its output
 * written back over its staging row, then all scattered to the rows of y:
 * x and y are read and written once. */
static void apply_group(const E *e, int transpose, const R *x, size_t ldx, R *y, size_t ldy, size_t c0,
                        R *slice)
{
    const size_t nin = transpose ? e->m : e->n, nout = transpose ? e->n : e->m;
    const size_t N = e->N, ss = e->stage_stride, width = SKIT_MIN(e->group, e->d - c0);
    R *buf = slice + e->group * ss, *z = buf + e->real_stride, *w = buf + e->slice;
    move_rows((R *)(x + c0), ldx, slice, ss, nin, width, 1); /* reads only, in this direction */
    /* the Hartley sequence goes to w, so buf's zero padding outlives the
     * channels and is written once per group */
    memset(buf + nin, 0, (N - nin) * sizeof(R));
    for (size_t k = 0; k < width; k++) {
        memcpy(buf, slice + k * ss, nin * sizeof(R));
        convolve(e, (c0 + k) % e->nspec, transpose, buf, z, w, nout, slice + k * ss);
    }
    move_rows(y + c0, ldy, slice, ss, nout, width, 0);
}

void X(apply_rows)(const E *e, int transpose, const R *x, size_t ldx, R *y, size_t ldy, size_t batch, R *work)
{
    const size_t nin = transpose ? e->m : e->n, nout = transpose ? e->n : e->m;
    const size_t groups = (e->d + e->group - 1) / e->group;
    long tasks = (long)(batch * groups);
#pragma omp parallel for num_threads(e->threads) schedule(static) if (tasks > 1)
    for (long t = 0; t < tasks; t++) {
        /* channel groups outermost: each thread takes a contiguous range
         * of channels (the spectra GEMMs of lib/tno split theirs alike) */
        size_t g = (size_t)t / batch, b = (size_t)t % batch;
        apply_group(e, transpose, x + b * nin * ldx, ldx, y + b * nout * ldy, ldy, g * e->group,
                    thread_slice(work, e->rows_slice));
    }
}
