/* bench_toeplitz.c — `skit bench toeplitz`: the Toeplitz FFT matvec against
 * the plain per-channel FFTW loop (the floor), numpy's FFT with cached
 * spectra, scipy and the dense product; the Levinson solves against
 * scipy.linalg.solve_toeplitz (dense LAPACKE dgesv as a reference line);
 * all in one run. `--check` instead sweeps the accuracy of the FFT product
 * against the dense one (TNN Theorem 2.1, experiment 01).
 *
 * What is timed (setup — plans, spectra, random data — is never inside the
 * timer; times are medians over rounds interleaved with skit's, per channel):
 *  - fft:   skit_toeplitz_plan_execute on d channels (own matrix each);
 *  - loop:  the plain FFTW loop a user would write: per channel, copy x_c
 *           into a zero-padded buffer, r2c, multiply by the cached kernel
 *           spectrum, c2r, copy n outputs; same threads, same planner (and,
 *           when the run's planner is not MEASURE, once more with MEASURE);
 *  - floor_1t: one lone r2c on one thread;
 *  - numpy: numpy.fft rfft / irfft over all d channels at once with the
 *           kernel spectra cached (python3, one thread, float64);
 *  - scipy: scipy.linalg.matmul_toeplitz, one call per channel, the same d
 *           (it recomputes the kernel FFT at length 2n-1 every call: an API
 *           peer, not a floor);
 *  - dense: skit_toeplitz_matvec_dense per channel, channels in parallel. */
#include "config.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common.h"
#include "cli/cli.h"
#include "cli/table.h"

static const char *usage =
    "usage: skit bench toeplitz [options]\n"
    "Time the Toeplitz FFT matvec (per channel, d channels with their own matrices)\n"
    "in one run against its floor, a plain per-channel FFTW loop (r2c, product with\n"
    "the cached spectrum, c2r) with the same planner and with MEASURE, against numpy\n"
    "with cached spectra, scipy.linalg.matmul_toeplitz (same channels) and the dense\n"
    "product; and the Levinson solves against scipy.linalg.solve_toeplitz (dense\n"
    "LAPACK dgesv as a reference line). Prints the machine (CPU, ISA, threads,\n"
    "planner) in its header, writes a TSV (seconds per channel) and the targets\n"
    "met / not met, and the operation counts of the FFT and dense products (columns\n"
    "flops, dense_flops: per channel, counted, not measured). --check sweeps\n"
    "accuracy instead; --flops only counts.\n\n"
    "options:\n"
    "  --sizes LIST        n for the FFT matvec (default 2^10..2^20; --quick 2^10..2^14)\n"
    "  --dense-max N       largest n timed for the dense product (default 2^13; 0: none)\n"
    "  --channels D        channels d (default 64)\n"
    "  --causal            causal (lower-triangular) operators (default bidirectional)\n"
    "  --scipy-sizes LIST  n at which scipy is timed (default 2^12..2^16)\n"
    "  --no-scipy          do not run the scipy peer\n"
    "  --solve-n LIST      sizes of the solve comparison (default 1024,2048,4096,8192,\n"
    "                      16384; --quick 1024; 0: skip it; dgesv only at n <= 4096)\n"
    "  --no-solve          skip the Levinson vs solve_toeplitz comparison\n"
    "  --check             accuracy sweep instead of timing: max error of the FFT\n"
    "                      product against the dense one for every n in --sizes\n"
    "                      (default 1..64 and primes/powers up to 8192)\n"
    "  --flops             operation counts instead of timing, for every n in --sizes:\n"
    "                      one channel's FFT plan (FFTW's fftw_flops of its transforms\n"
    "                      + the pointwise products; planner estimate unless --planner:\n"
    "                      the same on any machine load) and the dense product (2 n^2;\n"
    "                      causal n (n + 1)), each also over n log2 n\n"
    "  --quick             a few seconds: small sizes, fewer samples\n"
    "  --inverse F         skit's inverse transform: auto (default: the faster form,\n"
    "                      timed under a measuring planner), hartley or c2r (for\n"
    "                      comparing the two; the column 'inverse' says which ran)\n"
    "  --json FILE         also write the results as JSON\n" CLI_COMMON_HELP CLI_PLANNER_HELP("measure: the plan is reused")
    "\nexample:\n"
    "  skit bench toeplitz -o toeplitz.tsv --plot toeplitz.png\n";

enum { OPT_SIZES = 1, OPT_DENSE_MAX, OPT_CHANNELS, OPT_CAUSAL, OPT_SCIPY_SIZES, OPT_NO_SCIPY,
       OPT_SOLVE_N, OPT_NO_SOLVE, OPT_CHECK, OPT_QUICK, OPT_JSON, OPT_INVERSE, OPT_FLOPS };

typedef struct options {
    cli_common common;
    size_t *sizes, nsizes;
    size_t *scipy_sizes, nscipy;
    size_t dense_max, channels;
    size_t solve_sizes[8], nsolve;
    int causal, scipy, check, flops, quick;
    skit_fft_inverse inverse;
    const char *json;
    int argc;
    char **argv;
} options;

/* Per-size results; NaN where not measured. */
typedef struct row {
    double n, length, channels, plan_s, fft_s, loop_s, loop_measure_s, floor_1t_s, fft_over_loop,
        fft_over_loop_measure, numpy_s, numpy_over_fft, scipy_s, scipy_over_fft, dense_s, dense_over_fft,
        rel_error, loop_agreement, flops, dense_flops;
} row;
#define ROW_FIELDS 20
/* rows are written as arrays of doubles */
_Static_assert(sizeof(row) == ROW_FIELDS * sizeof(double), "row must be plain doubles");
static const char *const row_names[] = {
    "n",           "fft_length",     "channels",       "plan_s",          "fft_s",
    "loop_s",      "loop_measure_s", "floor_1t_s",     "fft_over_loop",   "fft_over_loop_measure",
    "numpy_s",     "numpy_over_fft", "scipy_s",        "scipy_over_fft",  "dense_s",
    "dense_over_fft", "rel_error",   "loop_agreement", "flops",           "dense_flops",
    "planner",     "inverse",        NULL};

#define TIMING_UNITS "seconds per channel (time for d channels / d); ratios dimensionless"
#define CHECK_UNITS "errors dimensionless: max|fft - dense| / (||h||_2 ||x||_2)"

/* One size of the solve comparison: SPD (KMS) and general (nonsymmetric)
 * systems, skit's Levinson and scipy's solve_toeplitz on each. */
typedef struct solve_result {
    double n, levinson_s, general_s, dgesv_s, scipy_s, scipy_general_s, speedup, residual_levinson,
        residual_general, residual_dgesv, residual_scipy, residual_scipy_general;
} solve_result;
#define SOLVE_FIELDS 12

/* ---- timed bodies --------------------------------------------------------- */

/* The floors: bare transforms of the matvec's FFT length, `count` of them
 * over `threads` threads (pairs: r2c + c2r). */
typedef struct floor_ctx {
    const bench_fftw *fftw;
    size_t count;
    int threads, pairs;
} floor_ctx;

static void run_floor(void *p)
{
    const floor_ctx *c = p;
    bench_fftw_run(c->fftw, c->count, c->pairs, c->threads);
}

/* The plain per-channel FFTW loop: x_c copied into the thread's
 * zero-padded real buffer, r2c, times the cached spectrum of kernel c
 * (scaled by 1/L), c2r, n outputs copied to y_c. */
typedef struct loop_ctx {
    const bench_fftw *fftw;
    const fftw_complex *spectra; /* d x (L/2 + 1) */
    const double *x;
    double *y;
    size_t n, L, d;
    int threads;
} loop_ctx;

static void run_fftw_loop(void *p)
{
    const loop_ctx *c = p;
    const bench_fftw *f = c->fftw;
    const size_t n = c->n, half = c->L / 2 + 1;
    const long d = (long)c->d;
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (long k = 0; k < d; k++) {
        size_t t = 0;
#ifdef _OPENMP
        t = (size_t)omp_get_thread_num();
#endif
        double *in = f->real + t * f->real_stride, *out = f->back + t * f->real_stride;
        fftw_complex *z = f->spectrum + t * f->spectrum_stride;
        /* interleaved (re, im) pairs, multiplied by hand: C's complex
         * product checks for NaN/Inf and would slow the floor */
        const double *K = (const double *)(c->spectra + (size_t)k * half);
        double *v = (double *)z;
        memcpy(in, c->x + (size_t)k * n, n * sizeof(double)); /* in[n..L) stays 0 */
        fftw_execute_dft_r2c(f->r2c, in, z);
        for (size_t j = 0; j < half; j++) {
            double a = v[2 * j], b = v[2 * j + 1];
            v[2 * j] = a * K[2 * j] - b * K[2 * j + 1];
            v[2 * j + 1] = a * K[2 * j + 1] + b * K[2 * j];
        }
        fftw_execute_dft_c2r(f->c2r, z, out);
        memcpy(c->y + (size_t)k * n, out, n * sizeof(double));
    }
}

/* The loop's kernel spectra: coefficients of channel k in circulant order
 * (lag j at j, lag -j at L - j), r2c, scaled by 1/L; f's buffers are
 * zeroed again after. */
static void loop_spectra(const bench_fftw *f, const double *coeffs, size_t n, size_t L, size_t d, int causal,
                         fftw_complex *spectra)
{
    const size_t half = L / 2 + 1;
    double *h = f->back;
    for (size_t k = 0; k < d; k++) {
        const double *t = coeffs + k * (2 * n - 1);
        memset(h, 0, L * sizeof *h);
        memcpy(h, t + n - 1, n * sizeof *h);
        if (!causal)
            for (size_t j = 1; j < n; j++) h[L - j] = t[n - 1 - j];
        fftw_execute_dft_r2c(f->r2c, h, spectra + k * half);
        double *v = (double *)(spectra + k * half);
        for (size_t j = 0; j < 2 * half; j++) v[j] /= (double)L;
    }
    memset(h, 0, L * sizeof *h);
}

typedef struct dense_ctx {
    const double *coeffs, *x;
    double *y;
    size_t n, count;
    skit_causality causality;
} dense_ctx;

static void run_dense(void *p)
{
    dense_ctx *c = p;
    long count = (long)c->count;
    size_t n = c->n;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long k = 0; k < count; k++)
        skit_toeplitz_matvec_dense(n, n, c->coeffs + (size_t)k * (2 * n - 1), c->causality, 0,
                                   c->x + (size_t)k * n, c->y + (size_t)k * n);
}

/* x and status: those of the last call (every call solves the same system) */
typedef struct solve_ctx {
    size_t n;
    const double *t, *coeffs, *b;
    double *x;
    int status;
} solve_ctx;

static void run_levinson(void *p)
{
    solve_ctx *c = p;
    c->status = skit_toeplitz_solve_spd(c->n, c->t, 1, c->b, c->n, c->x, c->n);
}

static void run_general(void *p)
{
    solve_ctx *c = p;
    c->status = skit_toeplitz_solve(c->n, c->coeffs, 1, c->b, c->n, c->x, c->n);
}

/* ---- peers ------------------------------------------------------------------ */

/* The python peers run as bench_peers: one interpreter per peer for the
 * whole run, a request "n d reps seed" (solves: "n rho,rho_r reps seed")
 * per size. */

/* Builds d different n x n matrices (own c, r each) and times one
 * matmul_toeplitz per matrix; answers the median seconds for all d. */
static const char *scipy_matmul_script =
    "import sys, time\n"
    "import numpy as np\n"
    "from scipy.linalg import matmul_toeplitz\n"
    "def measure(n, d, reps, seed):\n"
    "    n, d, reps, seed = int(n), int(d), int(reps), int(seed)\n"
    "    rng = np.random.default_rng(seed)\n"
    "    C = rng.standard_normal((d, n)); R = rng.standard_normal((d, n)); R[:, 0] = C[:, 0]\n"
    "    X = rng.standard_normal((d, n))\n"
    "    def run():\n"
    "        for k in range(d):\n"
    "            matmul_toeplitz((C[k], R[k]), X[k])\n"
    "    def timed():\n"
    "        t0 = time.perf_counter(); run(); return time.perf_counter() - t0\n"
    "    ts = [timed()]\n"
    "    if ts[0] < 0.2:\n"
    "        ts = []  # the first run was a warm-up\n"
    "    while len(ts) < reps and sum(ts) < 1.0:  # a second per size at most: an API peer\n"
    "        ts.append(timed())\n"
    "    ts.sort()\n"
    "    return ts[len(ts) // 2]\n"
    BENCH_PEER_SERVE;

/* numpy's FFT with the kernel spectra cached: d kernels of FFT length L
 * (the same 7-smooth length skit chooses), one rfft / irfft over all d
 * channels at once; answers the median seconds for all d. */
static const char *numpy_matmul_script =
    "import sys, time\n"
    "import numpy as np\n"
    "def smooth(m):\n"
    "    for p in (2, 3, 5, 7):\n"
    "        while m % p == 0: m //= p\n"
    "    return m == 1\n"
    "def measure(n, d, reps, seed):\n"
    "    n, d, reps, seed = int(n), int(d), int(reps), int(seed)\n"
    "    L = 2 * n - 1\n"
    "    while not smooth(L): L += 1\n"
    "    rng = np.random.default_rng(seed)\n"
    "    K = np.fft.rfft(rng.standard_normal((d, L)), axis=1)\n"
    "    X = rng.standard_normal((d, n))\n"
    "    def timed():\n"
    "        t0 = time.perf_counter()\n"
    "        np.fft.irfft(np.fft.rfft(X, L, axis=1) * K, L, axis=1)[:, :n]\n"
    "        return time.perf_counter() - t0\n"
    "    timed()\n"
    "    ts = []\n"
    "    while len(ts) < max(reps, 3) and sum(ts) < 0.5:\n"
    "        ts.append(timed())\n"
    "    ts.sort()\n"
    "    return ts[len(ts) // 2]\n"
    BENCH_PEER_SERVE;

/* The systems of the solve comparison: T(i, j) = t_{i-j} with t_k = rho^k
 * for k >= 0 and t_{-k} = rho_r^k ("rho,rho_r"; rho_r = rho: the
 * symmetric Kac-Murdock-Szego matrix, solved as scipy's symmetric call),
 * b standard normal. Answers the median seconds of solve_toeplitz and
 * ||T x - b|| / ||b|| of the last timed call's x (the same inputs give the
 * same x: no extra solve), T x by direct O(n^2) sums (np.convolve), as
 * skit's residuals are. Only the interpreter's first request has an untimed
 * warm-up: solve_toeplitz keeps nothing per n, so a first call at a new n
 * costs what the later ones do, and a warm-up per size would only lengthen
 * the run. */
static const char *scipy_solve_script =
    "import sys, time\n"
    "import numpy as np\n"
    "from scipy.linalg import solve_toeplitz\n"
    "warmed = []\n"
    "def measure(n, rhos, reps, seed):\n"
    "    n, reps, seed = int(n), int(reps), int(seed)\n"
    "    rho, rho_r = (float(v) for v in rhos.split(','))\n"
    "    c = rho ** np.arange(n)\n"
    "    r = rho_r ** np.arange(n)\n"
    "    b = np.random.default_rng(seed).standard_normal(n)\n"
    "    solve = (lambda: solve_toeplitz(c, b)) if rho == rho_r else (lambda: solve_toeplitz((c, r), b))\n"
    "    if not warmed:\n"
    "        solve(); warmed.append(n)\n"
    "    ts = []\n"
    "    for _ in range(reps):\n"
    "        t0 = time.perf_counter(); x = solve(); ts.append(time.perf_counter() - t0)\n"
    "    ts.sort()\n"
    "    k = np.concatenate((r[:0:-1], c))  # t_{-(n-1)}..t_{n-1}\n"
    "    return ts[len(ts) // 2], np.linalg.norm(np.convolve(k, x)[n - 1:2 * n - 1] - b) / np.linalg.norm(b)\n"
    BENCH_PEER_SERVE;

/* The three peers of a run; NULL where python/scipy is not used. */
typedef struct python_peers {
    bench_peer numpy, matmul, solve;
} python_peers;

static void python_peers_init(python_peers *p)
{
    bench_peer_init(&p->numpy, numpy_matmul_script);
    bench_peer_init(&p->matmul, scipy_matmul_script);
    bench_peer_init(&p->solve, scipy_solve_script);
}

static void python_peers_close(python_peers *p)
{
    bench_peer_close(&p->numpy);
    bench_peer_close(&p->matmul);
    bench_peer_close(&p->solve);
}

#define MIN_SIZE(a, b) ((a) < (b) ? (a) : (b))

/* ---- helpers ----------------------------------------------------------------- */

static double *random_array(skit_rng *rng, size_t count)
{
    double *p = skit_malloc(count ? count : 1, sizeof(double));
    if (p) skit_rng_fill_normal(rng, p, count);
    return p;
}

/* d channels of `per` standard normals, channel k from stream k of a seed
 * drawn from rng: the same data at any thread count, filled in parallel
 * (the largest sizes hold 2^23 values per channel). */
static double *random_channels(skit_rng *rng, size_t per, size_t d)
{
    double *p = skit_malloc(per * d > 0 ? per * d : 1, sizeof(double));
    if (!p) return NULL;
    const uint64_t seed = skit_rng_u64(rng);
    const long count = (long)d;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < count; k++) {
        skit_rng stream;
        skit_rng_seed_stream(&stream, seed, (uint64_t)k);
        skit_rng_fill_normal(&stream, p + (size_t)k * per, per);
    }
    return p;
}

static int in_list(size_t v, const size_t *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (list[i] == v) return 1;
    return 0;
}

static double norm2(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

/* ||T x - b||_2 / ||b||_2 with the dense reference */
static double solve_residual(size_t n, const double *coeffs, const double *x, const double *b,
                             double *scratch)
{
    if (skit_toeplitz_matvec_dense(n, n, coeffs, SKIT_BIDIRECTIONAL, 0, x, scratch) != SKIT_OK)
        return NAN;
    for (size_t i = 0; i < n; i++) scratch[i] -= b[i];
    return norm2(scratch, n) / norm2(b, n);
}

/* ---- operation counts ------------------------------------------------------- */

/* Floating-point operations per channel of the dense product
 * skit_toeplitz_matvec_dense does: it adds every product t_{i-j} x_j into
 * y_i (the first onto a zero), a multiply and an add per matrix entry it
 * uses: 2 n^2 bidirectional, n (n + 1) causal (the entries on and below
 * the diagonal). A formula: the same whether or not the product is timed. */
static double dense_flops(size_t n, int causal)
{
    const double v = (double)n;
    return causal ? v * (v + 1) : 2 * v * v;
}

/* skit_toeplitz_plan_flops of one execute on d channels, per channel */
static int flops_per_channel(const skit_toeplitz_plan *plan, size_t d, double *flops)
{
    int status = skit_toeplitz_plan_flops(plan, flops);
    if (status == SKIT_OK) *flops /= (double)d;
    return status;
}

/* ---- the timing sweep ------------------------------------------------------- */

/* Work cap: d channels of length L stay below 2^23 doubles (64 MiB per
 * array; d = 64 up to n = 2^16, 4 at n = 2^20), which keeps the default run
 * short; fewer channels do not change a per-channel time as long as every
 * thread has at least two. */
#define CHANNEL_CAP_DOUBLES ((size_t)1 << 23)

/* The plain FFTW loop of one planner: its plans, buffers and spectra. */
typedef struct loop_peer {
    bench_fftw fftw;
    fftw_complex *spectra;
    loop_ctx ctx;
} loop_peer;

static void loop_peer_destroy(loop_peer *l)
{
    bench_fftw_destroy(&l->fftw);
    fftw_free(l->spectra);
    l->spectra = NULL;
}

static int loop_peer_create(loop_peer *l, skit_planner planner, const double *coeffs, const options *o,
                            const bench_matvec *fc, size_t L, size_t d, double *y)
{
    memset(l, 0, sizeof *l);
    int status = bench_fftw_create(&l->fftw, L, planner);
    if (status != SKIT_OK) return status;
    l->spectra = fftw_malloc(d * (L / 2 + 1) * sizeof(fftw_complex));
    if (!l->spectra) {
        loop_peer_destroy(l);
        return SKIT_ENOMEM;
    }
    loop_spectra(&l->fftw, coeffs, fc->n, L, d, o->causal, l->spectra);
    int threads = (int)MIN_SIZE((size_t)bench_threads(), d);
    l->ctx = (loop_ctx){&l->fftw, l->spectra, fc->x, y, fc->n, L, d, threads};
    return SKIT_OK;
}

/* fft_s against the plain FFTW loop (the run's planner, and MEASURE when
 * that differs) and one lone r2c, timed in interleaved rounds so that load
 * changes hit all alike; loop_agreement: max|loop - skit| / max|skit|. */
static int time_fft_and_loops(const options *o, bench_matvec *fc, const double *coeffs, size_t L, size_t d,
                              row *r)
{
    const double min_sample = o->quick ? 0.01 : 0.03;
    const size_t rounds = o->quick ? 3 : 5;
    const int other = skit_fft_default_planner() != SKIT_PLANNER_MEASURE;
    double *yl = skit_malloc(fc->n * d, sizeof(double));
    loop_peer same, measure;
    memset(&measure, 0, sizeof measure);
    int status = yl ? loop_peer_create(&same, SKIT_PLANNER_DEFAULT, coeffs, o, fc, L, d, yl) : SKIT_ENOMEM;
    if (status == SKIT_OK && other) status = loop_peer_create(&measure, SKIT_PLANNER_MEASURE, coeffs, o, fc, L, d, yl);
    if (status == SKIT_OK) {
        cli_progress("n = %zu: skit FFT matvec vs the plain FFTW loop (%zu channels)", fc->n, d);
        floor_ctx single = {&same.fftw, 1, 1, 0};
        bench_fn fns[] = {bench_run_matvec, run_fftw_loop, run_floor, run_fftw_loop};
        void *ctxs[] = {fc, &same.ctx, &single, &measure.ctx};
        double med[4] = {NAN, NAN, NAN, NAN};
        bench_measure_interleaved(fns, ctxs, other ? 4 : 3, min_sample, rounds, med);
        r->fft_s = med[0] / (double)d;
        r->loop_s = med[1] / (double)d;
        r->floor_1t_s = med[2];
        r->loop_measure_s = other ? med[3] / (double)d : r->loop_s;
        r->fft_over_loop = r->fft_s / r->loop_s;
        r->fft_over_loop_measure = r->fft_s / r->loop_measure_s;
        /* the timed calls left their products in yl and fc->y (the same x
         * each call): no second run, except that with a second planner the
         * MEASURE loop wrote yl last */
        if (other) run_fftw_loop(&same.ctx);
        r->loop_agreement = bench_max_relative_error(yl, fc->y, fc->n * d);
    }
    loop_peer_destroy(&same);
    loop_peer_destroy(&measure);
    skit_free(yl);
    return status == SKIT_ENOMEM ? status : SKIT_OK;
}

/* dense_s (on at most 2 channels per thread) and the accuracy of the timed
 * FFT product y against it. */
static int time_dense(const options *o, size_t n, size_t d, const double *coeffs, const double *x,
                      const double *y, row *r)
{
    size_t dd = MIN_SIZE(d, (size_t)2 * bench_threads());
    cli_progress("n = %zu: dense matvec (%zu channels)", n, dd);
    double *yd = skit_malloc(n * dd, sizeof(double));
    if (!yd) return SKIT_ENOMEM;
    dense_ctx dc = {coeffs, x, yd, n, dd, o->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL};
    bench_timing t;
    bench_measure(run_dense, &dc, o->quick ? 0.01 : 0.05, 3, &t);
    r->dense_s = t.median / (double)dd;
    r->dense_over_fft = r->dense_s / r->fft_s;
    double worst = 0;
    for (size_t c = 0; c < dd; c++) {
        double e = bench_max_relative_error(y + c * n, yd + c * n, n);
        if (!(e <= worst)) worst = e;
    }
    r->rel_error = worst;
    skit_free(yd);
    return SKIT_OK;
}

/* A python peer's seconds for all d channels, per channel. */
static double python_per_channel(const options *o, bench_peer *peer, size_t n, size_t d)
{
    char request[128];
    snprintf(request, sizeof request, "%zu %zu %d %llu", n, d, o->quick ? 1 : 3, (unsigned long long)o->common.seed);
    double seconds;
    bench_peer_ask(peer, request, &seconds, 1);
    return seconds / (double)d;
}

/* numpy_s (every size) and scipy_s (--scipy-sizes) on the d channels skit ran. */
static void time_python_peers(const options *o, python_peers *peers, size_t n, size_t d, row *r)
{
    cli_progress("n = %zu: numpy FFT, cached spectra (%zu channels)", n, d);
    r->numpy_s = python_per_channel(o, &peers->numpy, n, d);
    r->numpy_over_fft = r->numpy_s / r->fft_s;
    if (!in_list(n, o->scipy_sizes, o->nscipy)) return;
    cli_progress("n = %zu: scipy matmul_toeplitz (%zu matrices)", n, d);
    r->scipy_s = python_per_channel(o, &peers->matmul, n, d);
    r->scipy_over_fft = r->scipy_s / r->fft_s;
}

/* peers: NULL when python is not run (--no-scipy, or scipy missing) */
static int time_one_size(const options *o, size_t n, python_peers *peers, skit_rng *rng, row *r,
                         skit_fft_inverse *form)
{
    int threads = bench_threads();
    skit_causality causality = o->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    size_t L;
    if (skit_fft_good_length(2 * n - 1, &L) != SKIT_OK) return cli_library_error(SKIT_EOVERFLOW);
    size_t d = o->channels, cap = CHANNEL_CAP_DOUBLES / L;
    if (cap < (size_t)2 * threads) cap = (size_t)2 * threads;
    if (d > cap) d = cap;
    size_t per = 2 * n - 1;
    size_t bytes = (per + 3 * n) * d * sizeof(double) + d * (L + 2) * sizeof(double) * (size_t)2;
    int status = skit_memory_check(bytes, "benchmark data");
    if (status != SKIT_OK) return cli_library_error(status);

    *r = (row){(double)n, (double)L, (double)d, NAN, NAN, NAN, NAN, NAN, NAN, NAN,
               NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, dense_flops(n, o->causal)};
    double *coeffs = random_channels(rng, per, d), *x = random_channels(rng, n, d);
    double *y = skit_malloc(n * d, sizeof(double));
    skit_toeplitz_plan *plan = NULL;
    status = coeffs && x && y ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        cli_progress("n = %zu: planning (%s)", n, skit_planner_name(SKIT_PLANNER_DEFAULT));
        double t0 = skit_clock_seconds();
        status = skit_toeplitz_plan_create(
            &plan, n, n, d,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_PER_CHANNEL, .causality = causality,
                                     .inverse = o->inverse},
            coeffs);
        r->plan_s = skit_clock_seconds() - t0;
        *form = skit_toeplitz_plan_inverse(plan);
    }
    if (status == SKIT_OK) status = flops_per_channel(plan, d, &r->flops);
    bench_matvec fc = {plan, x, y, n};
    if (status == SKIT_OK) status = time_fft_and_loops(o, &fc, coeffs, L, d, r);
    if (status == SKIT_OK && n <= o->dense_max) status = time_dense(o, n, d, coeffs, x, y, r);
    if (status == SKIT_OK && peers) time_python_peers(o, peers, n, d, r);
    skit_toeplitz_plan_destroy(plan);
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    if (status != SKIT_OK) return cli_library_error(status);
    return CLI_OK;
}

/* The systems: SPD Kac-Murdock-Szego t_k = rho^k (condition number <=
 * (1+rho)/(1-rho)), and a nonsymmetric one with t_{-k} = SOLVE_RHO_ROW^k
 * (its symbol 1/(1 - rho e^{iw}) + 1/(1 - rho_r e^{-iw}) - 1 stays away
 * from 0: well conditioned). Dense dgesv, O(n^3), is a reference line at
 * n <= SOLVE_DGESV_MAX only. */
#define SOLVE_RHO 0.7
#define SOLVE_RHO_ROW 0.5
#define SOLVE_DGESV_MAX 4096

/* dgesv on the SPD system (fresh copies of A and b each call, outside the
 * timer): seconds, and the residual into *residual */
static int time_dgesv(size_t n, const double *coeffs, const double *b, double *x, double *scratch,
                      double *seconds, double *residual)
{
    double *A = skit_malloc(n * n, sizeof(double));
    lapack_int *ipiv = skit_malloc(n, sizeof(lapack_int));
    int status = A && ipiv ? skit_toeplitz_dense(n, n, coeffs, SKIT_BIDIRECTIONAL, A, n) : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        cli_progress("solve n = %zu: LAPACKE dgesv (reference line)", n);
        memcpy(x, b, n * sizeof *b);
        double t0 = skit_clock_seconds();
        lapack_int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, (lapack_int)n, 1, A, (lapack_int)n, ipiv, x,
                                        (lapack_int)n);
        *seconds = skit_clock_seconds() - t0;
        if (info != 0) {
            status = SKIT_ELIBRARY;
            fprintf(stderr, "%s: LAPACKE_dgesv failed (info = %d)\n", cli_context(), (int)info);
        } else {
            *residual = solve_residual(n, coeffs, x, b, scratch);
        }
    }
    skit_free(A);
    skit_free(ipiv);
    return status;
}

/* scipy's solve_toeplitz on the system with these rhos: seconds, residual */
static void time_scipy_solve(const options *o, bench_peer *peer, size_t n, double rho_r, double *seconds,
                             double *residual)
{
    char request[160];
    /* O(n^2) in Cython: above 4096 three repeats keep the default run short */
    snprintf(request, sizeof request, "%zu %.17g,%.17g %d %llu", n, SOLVE_RHO, rho_r, o->quick || n > 4096 ? 3 : 5,
             (unsigned long long)o->common.seed);
    cli_progress("solve n = %zu: scipy solve_toeplitz (%s)", n, rho_r == SOLVE_RHO ? "symmetric" : "general");
    double answer[2];
    bench_peer_ask(peer, request, answer, 2);
    *seconds = answer[0];
    *residual = answer[1];
}

/* peers: as for time_one_size */
static int time_solve(const options *o, size_t n, python_peers *peers, skit_rng *rng, solve_result *s)
{
    *s = (solve_result){(double)n, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    double *t = skit_malloc(n, sizeof(double)), *coeffs = skit_malloc(2 * n - 1, sizeof(double));
    double *general = skit_malloc(2 * n - 1, sizeof(double));
    double *b = random_array(rng, n), *x = skit_malloc(n, sizeof(double));
    double *scratch = skit_malloc(n, sizeof(double));
    int status = t && coeffs && general && b && x && scratch ? SKIT_OK : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        t[0] = 1;
        for (size_t k = 1; k < n; k++) t[k] = t[k - 1] * SOLVE_RHO;
        double lag_power = 1;
        for (size_t k = 0; k < n; k++, lag_power *= SOLVE_RHO_ROW) {
            coeffs[n - 1 + k] = coeffs[n - 1 - k] = general[n - 1 + k] = t[k];
            general[n - 1 - k] = lag_power; /* lag -k: the first row */
        }
        const double min_sample = o->quick ? 0.01 : 0.05;
        bench_timing tm;
        solve_ctx spd = {n, t, coeffs, b, x, SKIT_OK}, gen = {n, t, general, b, x, SKIT_OK};
        cli_progress("solve n = %zu: Levinson", n);
        /* the residuals are those of the timed solves' x: no extra solve */
        bench_measure(run_levinson, &spd, min_sample, o->quick ? 3 : 5, &tm);
        s->levinson_s = tm.median;
        status = spd.status;
        if (status == SKIT_OK) s->residual_levinson = solve_residual(n, coeffs, x, b, scratch);
        if (status == SKIT_OK) {
            bench_measure(run_general, &gen, min_sample, o->quick ? 3 : 5, &tm);
            s->general_s = tm.median;
            status = gen.status;
        }
        if (status == SKIT_OK) s->residual_general = solve_residual(n, general, x, b, scratch);
    }
    if (status == SKIT_OK && n <= SOLVE_DGESV_MAX &&
        skit_memory_check(n * n * sizeof(double), "dense solve reference") == SKIT_OK)
        status = time_dgesv(n, coeffs, b, x, scratch, &s->dgesv_s, &s->residual_dgesv);
    s->speedup = s->dgesv_s / s->levinson_s;
    if (status == SKIT_OK && peers) {
        time_scipy_solve(o, &peers->solve, n, SOLVE_RHO, &s->scipy_s, &s->residual_scipy);
        time_scipy_solve(o, &peers->solve, n, SOLVE_RHO_ROW, &s->scipy_general_s, &s->residual_scipy_general);
    }
    skit_free(t);
    skit_free(coeffs);
    skit_free(general);
    skit_free(b);
    skit_free(x);
    skit_free(scratch);
    return status == SKIT_OK ? CLI_OK : cli_library_error(status);
}

/* ---- targets ----------------------------------------------------------------- */

typedef struct target {
    char text[1024];
    int measured, met;
} target;

/* Target 3 over the sizes of the solve comparison */
static void solve_target(const solve_result *solves, size_t nsolve, target *out)
{
    double worst[2] = {INFINITY, INFINITY}, worst_n[2] = {0, 0};
    size_t measured = 0, met = 0, len = 0;
    char list[700] = "";
    for (size_t i = 0; i < nsolve; i++) {
        const solve_result *v = &solves[i];
        const double speed[2] = {v->scipy_s / v->levinson_s, v->scipy_general_s / v->general_s};
        const int ok[2] = {speed[0] >= 4 && v->residual_levinson <= v->residual_scipy,
                           speed[1] >= 4 && v->residual_general <= v->residual_scipy_general};
        for (int g = 0; g < 2; g++) {
            if (!isfinite(speed[g])) continue;
            measured++;
            met += ok[g];
            if (speed[g] < worst[g]) worst[g] = speed[g], worst_n[g] = v->n;
            if (!ok[g] && len < sizeof list)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s n=%.0f %.2fx", len ? ", " : "; failing: ",
                                        g ? "general" : "SPD", v->n, speed[g]);
        }
    }
    out->measured = measured > 0;
    out->met = measured > 0 && met == measured;
    if (!out->measured)
        snprintf(out->text, sizeof out->text, "Levinson >= 4x scipy solve_toeplitz: %s",
                 nsolve ? "scipy not measured" : "skipped");
    else
        snprintf(out->text, sizeof out->text,
                 "Levinson SPD and general solves >= 4x scipy solve_toeplitz with residual <= scipy's, n = "
                 "%.0f..%.0f: %s (%zu of %zu); least speedup SPD %.2fx (n = %.0f), general %.2fx (n = %.0f)%s",
                 solves[0].n, solves[nsolve - 1].n, out->met ? "met" : "NOT met", met, measured, worst[0],
                 worst_n[0], worst[1], worst_n[1], list);
}

static void evaluate_targets(const options *o, const row *rows, size_t nrows,
                             const solve_result *solves, size_t nsolve, int scipy_ok, target out[3])
{
    /* 1: skit <= 1.05 x the plain FFTW loop with the same planner, n = 2^10..2^20 */
    double worst = -1, worst_n = 0;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].n >= 1024 && rows[i].n <= 1048576 && isfinite(rows[i].fft_over_loop) &&
            rows[i].fft_over_loop > worst) {
            worst = rows[i].fft_over_loop;
            worst_n = rows[i].n;
        }
    out[0].measured = worst >= 0;
    out[0].met = worst >= 0 && worst <= 1.05;
    if (out[0].measured)
        snprintf(out[0].text, sizeof out[0].text,
                 "FFT matvec <= 1.05 x the plain FFTW loop, same planner (%s), n = 2^10..2^20: %s, worst "
                 "ratio %.3f at n = %.0f",
                 skit_planner_name(SKIT_PLANNER_DEFAULT), out[0].met ? "met" : "NOT met", worst, worst_n);
    else
        snprintf(out[0].text, sizeof out[0].text,
                 "FFT matvec <= 1.05 x the plain FFTW loop: not measured (no n in 2^10..2^20)");

    /* 2: the numpy peer, reported (no target: a floor is the loop above) */
    double least = INFINITY, least_n = 0;
    for (size_t i = 0; i < nrows; i++)
        if (isfinite(rows[i].numpy_over_fft) && rows[i].numpy_over_fft < least) {
            least = rows[i].numpy_over_fft;
            least_n = rows[i].n;
        }
    out[1].measured = isfinite(least);
    out[1].met = out[1].measured && least >= 1;
    if (!o->scipy || !scipy_ok)
        snprintf(out[1].text, sizeof out[1].text, "numpy FFT peer: %s",
                 !o->scipy ? "skipped (--no-scipy)" : "numpy/scipy not installed for " BENCH_PYTHON);
    else
        snprintf(out[1].text, sizeof out[1].text,
                 "faster than numpy FFT with cached spectra (numpy one thread, skit %d): %s, least speedup "
                 "%.2fx at n = %.0f",
                 bench_threads(), out[1].met ? "yes" : "NO", least, least_n);

    /* 3: Levinson SPD and general >= 4x scipy solve_toeplitz with equal or
     * smaller residual, at every size measured */
    solve_target(solves, nsolve, &out[2]);
}

/* ---- JSON ---------------------------------------------------------------------- */

/* The results as JSON: the run (version, command, mode, seed, threads,
 * units), the rows (table: nrows x nfields doubles, row-major, an array of
 * row / check_row), the solve comparison and the targets. */
static int write_json(const options *o, const char *mode, const char *units, const double *table,
                      size_t nrows, const char *const *names, size_t nfields, const solve_result *solves,
                      size_t nsolve, const target *targets, size_t ntargets)
{
    cli_json j;
    if (cli_json_open(&j, o->json) != CLI_OK) return CLI_USAGE;
    char cmd[4096] = "";
    for (int i = 0; i < o->argc; i++) {
        size_t len = strlen(cmd);
        snprintf(cmd + len, sizeof cmd - len, "%s%s", i ? " " : "", o->argv[i]);
    }
    cli_json_key(&j, "skit_version");
    cli_json_string(&j, skit_version());
    cli_json_key(&j, "command");
    cli_json_string(&j, cmd);
    cli_json_key(&j, "mode");
    cli_json_string(&j, mode);
    cli_json_key(&j, "seed");
    cli_json_unsigned(&j, o->common.seed);
    cli_json_key(&j, "threads");
    cli_json_unsigned(&j, (unsigned long long)bench_threads());
    cli_json_key(&j, "planner");
    cli_json_string(&j, bench_planner_text(&o->common));
    cli_json_key(&j, "inverse");
    cli_json_string(&j, skit_fft_inverse_name(o->inverse));
    cli_json_key(&j, "units");
    cli_json_string(&j, units);
    cli_json_key(&j, "rows");
    cli_json_begin_array(&j, 0);
    for (size_t i = 0; i < nrows; i++) {
        cli_json_begin_object(&j, 1);
        for (size_t k = 0; k < nfields; k++) {
            cli_json_key(&j, names[k]);
            cli_json_number(&j, table[i * nfields + k]);
        }
        cli_json_end_object(&j);
    }
    cli_json_end_array(&j);
    if (nsolve) {
        static const char *const sn[SOLVE_FIELDS] = {
            "n", "levinson_s", "general_levinson_s", "dgesv_s", "scipy_solve_toeplitz_s",
            "scipy_solve_toeplitz_general_s", "dgesv_over_levinson", "residual_levinson", "residual_general",
            "residual_dgesv", "residual_scipy", "residual_scipy_general"};
        cli_json_key(&j, "solve");
        cli_json_begin_array(&j, 0);
        for (size_t i = 0; i < nsolve; i++) {
            const double *sv = (const double *)&solves[i];
            cli_json_begin_object(&j, 1);
            for (size_t k = 0; k < SOLVE_FIELDS; k++) {
                cli_json_key(&j, sn[k]);
                cli_json_number(&j, sv[k]);
            }
            cli_json_end_object(&j);
        }
        cli_json_end_array(&j);
    }
    if (ntargets) {
        cli_json_key(&j, "targets");
        cli_json_begin_array(&j, 0);
        for (size_t i = 0; i < ntargets; i++) {
            cli_json_begin_object(&j, 1);
            cli_json_key(&j, "measured");
            cli_json_bool(&j, targets[i].measured);
            cli_json_key(&j, "met");
            cli_json_bool(&j, targets[i].met);
            cli_json_key(&j, "text");
            cli_json_string(&j, targets[i].text);
            cli_json_end_object(&j);
        }
        cli_json_end_array(&j);
    }
    return cli_json_close(&j);
}

/* ---- the two modes ----------------------------------------------------------------- */

/* The header of the timing table: machine, planner, what each column is. */
static void timing_header(cli_table *t, const options *o)
{
    bench_machine_header(t, &o->common, "float64");
    cli_table_comment(t,
                      "channels: %zu (capped so d*L <= 2^23 doubles, at least 2 per thread); %s operators; one "
                      "matrix per channel",
                      o->channels, o->causal ? "causal" : "bidirectional");
    cli_table_comment(t, "plan_s: skit_toeplitz_plan_create (FFTW planning + spectra), the first plan of that "
                         "length in the process; loop_s: the plain FFTW loop (copy in, r2c, product with the "
                         "cached spectrum, c2r, copy out) per channel, same threads and planner; "
                         "loop_measure_s: the same loop planned with MEASURE (= loop_s when the planner is "
                         "MEASURE); floor_1t_s: one r2c alone on one thread; inverse: the form of skit's "
                         "inverse transform (c2r, or a second r2c by the Hartley identity), %s",
                      o->inverse == SKIT_FFT_INVERSE_AUTO ? "the faster one timed under a measuring planner, "
                                                            "else hartley (--inverse auto)"
                                                          : "forced by --inverse");
    cli_table_comment(t, "numpy_s: numpy.fft rfft/irfft over all channels, kernel spectra cached, python3, one "
                         "thread; scipy_s: scipy.linalg.matmul_toeplitz, one call per channel (FFT of length "
                         "2n-1 and of the kernel every call: an API peer), same channels, one thread");
    cli_table_comment(t, "rel_error: max|fft - dense| / max|dense|; loop_agreement: max|loop - fft| / "
                         "max|fft|; all times seconds per channel");
    cli_table_comment(t, "flops: floating-point operations of one channel of the timed plan's execute "
                         "(skit_toeplitz_plan_flops: FFTW's count of its transforms + the pointwise "
                         "products; no memory traffic), the count of the FFTW algorithm the planner chose "
                         "(under measure it may differ between runs; --flops counts estimate plans); "
                         "dense_flops: the dense product's, %s per channel, at every n",
                      o->causal ? "n (n + 1)" : "2 n^2");
}

/* The lines after the rows: log-log slopes of the FFT and dense times over
 * the sizes measured, and the solve comparison. */
static void timing_notes(cli_table *t, const options *o, const row *rows, const solve_result *solves,
                         size_t nsolve)
{
    double xs[64], ts[64];
    size_t k = 0;
    for (size_t i = 0; i < o->nsizes && k < 64; i++) {
        xs[k] = rows[i].n;
        ts[k++] = rows[i].fft_s;
    }
    if (k >= 2)
        cli_table_note(t, "loglog slope of fft_s vs n over n = %.0f..%.0f: %.3f", xs[0], xs[k - 1],
                       bench_loglog_slope(xs, ts, k));
    k = 0;
    for (size_t i = 0; i < o->nsizes && k < 64; i++)
        if (isfinite(rows[i].dense_s)) {
            xs[k] = rows[i].n;
            ts[k++] = rows[i].dense_s;
        }
    if (k >= 2)
        cli_table_note(t, "loglog slope of dense_s vs n over n = %.0f..%.0f: %.3f", xs[0], xs[k - 1],
                       bench_loglog_slope(xs, ts, k));
    for (size_t i = 0; i < nsolve; i++) {
        const solve_result *v = &solves[i];
        cli_table_note(t,
                       "solve n = %.0f, SPD KMS t_k = %.1f^k: levinson_s %.4g, scipy_solve_toeplitz_s %.4g "
                       "(scipy/skit %.2f), residuals %.2g (skit) %.2g (scipy); general, t_{-k} = %.1f^k: "
                       "general_levinson_s %.4g, scipy %.4g (scipy/skit %.2f), residuals %.2g (skit) %.2g (scipy); "
                       "reference line: dense LAPACKE dgesv_s %.4g (O(n^3), n <= %d only; residual %.2g)",
                       v->n, SOLVE_RHO, v->levinson_s, v->scipy_s, v->scipy_s / v->levinson_s, v->residual_levinson,
                       v->residual_scipy, SOLVE_RHO_ROW, v->general_s, v->scipy_general_s,
                       v->scipy_general_s / v->general_s, v->residual_general, v->residual_scipy_general, v->dgesv_s,
                       SOLVE_DGESV_MAX, v->residual_dgesv);
    }
}

/* Every size, then the solve comparison; 0 or CLI_FAILED (reported). */
static int timing_measure(const options *o, python_peers *peers, cli_table *t, row *rows, solve_result *solves)
{
    skit_rng rng;
    skit_rng_seed(&rng, o->common.seed);
    cli_progress_start(&o->common);
    for (size_t i = 0; i < o->nsizes; i++) {
        skit_fft_inverse form = SKIT_FFT_INVERSE_AUTO;
        int status = time_one_size(o, o->sizes[i], peers, &rng, &rows[i], &form);
        if (status != CLI_OK) return status; /* a refusal (too large) stays exit 2 */
        const double *v = (const double *)&rows[i];
        for (size_t k = 0; k < ROW_FIELDS; k++) cli_table_cell(t, "%.17g", v[k]);
        cli_table_cell(t, "%s", skit_planner_name(SKIT_PLANNER_DEFAULT));
        cli_table_cell(t, "%s", skit_fft_inverse_name(form));
        cli_table_end_row(t);
    }
#ifdef OPENBLAS_VERSION
    /* dgesv runs on OpenBLAS's own threads: give it the same number */
    openblas_set_num_threads(bench_threads());
#endif
    for (size_t i = 0; i < o->nsolve; i++)
        if (time_solve(o, o->solve_sizes[i], peers, &rng, &solves[i]) != CLI_OK) return CLI_FAILED;
    cli_progress_done();
    return CLI_OK;
}

static int run_timing(const options *o)
{
    int scipy_ok = o->scipy && bench_python_has("scipy.linalg");
    if (o->scipy && !scipy_ok)
        fprintf(stderr, "%s: scipy: not installed (%s -c 'import scipy.linalg' failed); scipy columns are NaN\n",
                cli_context(), BENCH_PYTHON);
    row *rows = calloc(o->nsizes, sizeof *rows);
    if (!rows) return cli_failure("out of memory");
    cli_table t;
    cli_table_init(&t, row_names);
    timing_header(&t, o);
    solve_result solves[8];
    python_peers peers;
    python_peers_init(&peers);
    int status = timing_measure(o, scipy_ok ? &peers : NULL, &t, rows, solves);
    python_peers_close(&peers);
    if (status == CLI_OK) {
        timing_notes(&t, o, rows, solves, o->nsolve);
        target targets[3];
        evaluate_targets(o, rows, o->nsizes, solves, o->nsolve, scipy_ok, targets);
        for (int i = 0; i < 3; i++) {
            cli_table_note(&t, "target: %s", targets[i].text);
            if (!o->common.quiet) fprintf(stderr, "%s: target: %s\n", cli_context(), targets[i].text);
        }
        status = cli_table_emit(&t, &o->common, o->argc, o->argv, TIMING_UNITS, "bench_toeplitz", NULL);
        if (status == CLI_OK && o->json)
            status = write_json(o, "timing", TIMING_UNITS, (const double *)rows, o->nsizes, row_names, ROW_FIELDS,
                                solves, o->nsolve, targets, 3);
    }
    cli_table_free(&t);
    free(rows);
    return status;
}

/* Accuracy sweep: for each n, one random bidirectional and one causal
 * matrix (and the transposed product), FFT against dense. The normwise
 * error max|fft - dense| / (||h||_2 ||x||_2), h the coefficients in use, is
 * the quantity FFT error analysis bounds by c * eps * log2(L) (|y_i| <=
 * ||h|| ||x|| by Cauchy-Schwarz); the tolerance column is
 * 10 eps max(1, log2 L): three length-L transforms, each with an error of a
 * few eps log2 L (Higham, Accuracy and Stability, sec. 24.1). */
typedef struct check_row {
    double n, length, err_bidirectional, err_causal, err_transpose, err_max, rel_linf_max, tolerance;
} check_row;
#define CHECK_FIELDS 8
_Static_assert(sizeof(check_row) == CHECK_FIELDS * sizeof(double), "check_row must be plain doubles");
static const char *const check_names[] = {"n", "fft_length", "err_bidirectional", "err_causal",
                                          "err_transpose", "err_max", "rel_linf_max", "tolerance",
                                          NULL};

static double normwise(const double *y, const double *ref, size_t nout, double hnorm,
                       double xnorm)
{
    double worst = 0;
    for (size_t i = 0; i < nout; i++) {
        double e = fabs(y[i] - ref[i]);
        if (!(e <= worst)) worst = e;
    }
    double scale = hnorm * xnorm;
    return scale > 0 ? worst / scale : worst;
}

static int check_one_size(const options *o, size_t n, skit_rng *rng, check_row *r)
{
    size_t L;
    if (skit_fft_good_length(2 * n - 1, &L) != SKIT_OK) return cli_library_error(SKIT_EOVERFLOW);
    *r = (check_row){(double)n, (double)L, NAN, NAN, NAN, 0, 0, 10 * 2.220446049250313e-16 * fmax(1.0, log2((double)L))};
    double *coeffs = random_array(rng, 2 * n - 1), *x = random_array(rng, n);
    double *y = skit_malloc(n, sizeof(double)), *ref = skit_malloc(n, sizeof(double));
    int status = (!coeffs || !x || !y || !ref) ? SKIT_ENOMEM : SKIT_OK;
    double *errs[3] = {&r->err_bidirectional, &r->err_causal, &r->err_transpose};
    for (int mode = 0; mode < 3 && status == SKIT_OK; mode++) {
        skit_causality causality = mode == 1 ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
        int transpose = mode == 2;
        skit_toeplitz_plan *plan = NULL;
        status = skit_toeplitz_plan_create(
            &plan, n, n, 1,
            &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED, .causality = causality,
                                     .inverse = o->inverse},
            coeffs);
        if (status != SKIT_OK) break;
        status = transpose ? skit_toeplitz_plan_execute_transpose(plan, x, n, y, n, NULL)
                           : skit_toeplitz_plan_execute(plan, x, n, y, n, NULL);
        skit_toeplitz_plan_destroy(plan);
        if (status == SKIT_OK)
            status = skit_toeplitz_matvec_dense(n, n, coeffs, causality, transpose, x, ref);
        if (status != SKIT_OK) break;
        double h = causality == SKIT_CAUSAL ? norm2(coeffs + n - 1, n) : norm2(coeffs, 2 * n - 1);
        *errs[mode] = normwise(y, ref, n, h, norm2(x, n));
        if (*errs[mode] > r->err_max || isnan(*errs[mode])) r->err_max = *errs[mode];
        double rl = bench_max_relative_error(y, ref, n);
        if (rl > r->rel_linf_max || isnan(rl)) r->rel_linf_max = rl;
    }
    skit_free(coeffs);
    skit_free(x);
    skit_free(y);
    skit_free(ref);
    if (status != SKIT_OK) return cli_library_error(status);
    return CLI_OK;
}

static int run_check(const options *o)
{
    check_row *rows = calloc(o->nsizes, sizeof *rows);
    if (!rows) return cli_failure("out of memory");
    cli_table out;
    cli_table_init(&out, check_names);
    cli_table_comment(&out, "T(i,j) = t_{i-j}, n x n, FFT length L = smallest 2^a 3^b 5^c 7^d >= 2n-1; "
                            "random normal t and x");
    cli_table_comment(&out, "err_*: normwise max|fft - dense| / (||h||_2 ||x||_2); rel_linf_max: max over "
                            "the three of max|fft - dense| / max|dense|; tolerance: 10 eps max(1, log2 L)");
    skit_rng rng;
    skit_rng_seed(&rng, o->common.seed);
    cli_progress_start(&o->common);
    double worst = 0, worst_ratio = 0, worst_n = 0;
    for (size_t i = 0; i < o->nsizes; i++) {
        cli_progress("n = %zu", o->sizes[i]);
        if (check_one_size(o, o->sizes[i], &rng, &rows[i]) != CLI_OK) {
            cli_table_free(&out);
            free(rows);
            return CLI_FAILED;
        }
        cli_table_row_numbers(&out, (const double *)&rows[i], CHECK_FIELDS);
        if (rows[i].err_max > worst) worst = rows[i].err_max;
        double ratio = rows[i].err_max / rows[i].tolerance;
        if (!(ratio <= worst_ratio)) {
            worst_ratio = ratio;
            worst_n = rows[i].n;
        }
    }
    cli_progress_done();
    char line[512];
    snprintf(line, sizeof line,
             "accuracy: max normwise error %.3g over %zu sizes; worst error/tolerance %.3g at n = %.0f: %s",
             worst, o->nsizes, worst_ratio, worst_n, worst_ratio <= 1 ? "within tolerance" : "EXCEEDS tolerance");
    cli_table_note(&out, "%s", line);
    if (!o->common.quiet) fprintf(stderr, "%s: %s\n", cli_context(), line);
    int status = cli_table_emit(&out, &o->common, o->argc, o->argv, CHECK_UNITS, "bench_toeplitz_check", NULL);
    cli_table_free(&out);
    if (status == CLI_OK && o->json) {
        target t = {"", 1, worst_ratio <= 1};
        snprintf(t.text, sizeof t.text, "%s", line);
        status = write_json(o, "check", CHECK_UNITS, (const double *)rows, o->nsizes, check_names, CHECK_FIELDS, NULL, 0,
                            &t, 1);
    }
    free(rows);
    return status;
}

/* Operation counts instead of timing: for each n, one channel's
 * skit_toeplitz_plan_flops and the dense product's count, each over
 * n log2 n (NaN at n = 1). Counts of ESTIMATE plans unless --planner says
 * otherwise: FFTW's estimate picks its algorithm without timing, so the
 * same command gives the same bytes on any load (MEASURE may not). */
typedef struct flops_row {
    double n, length, flops, dense_flops, flops_per_nlog2n, dense_per_nlog2n;
} flops_row;
#define FLOPS_FIELDS 6
_Static_assert(sizeof(flops_row) == FLOPS_FIELDS * sizeof(double), "flops_row must be plain doubles");
static const char *const flops_names[] = {"n", "fft_length", "flops", "dense_flops", "flops_per_nlog2n",
                                          "dense_flops_per_nlog2n", "inverse", NULL};
#define FLOPS_UNITS "floating-point operations per channel; ratios operations / (n log2 n)"

static int count_one_size(const options *o, size_t n, flops_row *r, skit_fft_inverse *form)
{
    double *coeffs = skit_calloc(2 * n - 1, sizeof(double));
    if (!coeffs) return cli_library_error(SKIT_ENOMEM);
    skit_toeplitz_plan *plan = NULL;
    int status = skit_toeplitz_plan_create(
        &plan, n, n, 1,
        &(skit_toeplitz_options){.causality = o->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL, .inverse = o->inverse},
        coeffs);
    skit_free(coeffs);
    if (status != SKIT_OK) return cli_library_error(status);
    const double nlogn = (double)n * log2((double)n);
    *r = (flops_row){(double)n, (double)skit_toeplitz_plan_fft_length(plan), NAN, dense_flops(n, o->causal), NAN, NAN};
    status = skit_toeplitz_plan_flops(plan, &r->flops);
    if (nlogn > 0) {
        r->flops_per_nlog2n = r->flops / nlogn;
        r->dense_per_nlog2n = r->dense_flops / nlogn;
    }
    *form = skit_toeplitz_plan_inverse(plan);
    skit_toeplitz_plan_destroy(plan);
    return status == SKIT_OK ? CLI_OK : cli_library_error(status);
}

/* "name: min .. max (max/min R)" of the column at offset col over n >= 2 */
static void ratio_note(cli_table *t, const flops_row *rows, size_t nrows, size_t col, const char *name)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < nrows; i++) {
        double v = ((const double *)&rows[i])[col];
        if (isfinite(v)) lo = fmin(lo, v), hi = fmax(hi, v);
    }
    if (hi >= lo) cli_table_note(t, "%s over n >= 2: %.6g .. %.6g (max/min %.4g)", name, lo, hi, hi / lo);
}

static int run_flops(const options *o)
{
    flops_row *rows = calloc(o->nsizes, sizeof *rows);
    if (!rows) return cli_failure("out of memory");
    cli_table out;
    cli_table_init(&out, flops_names);
    cli_table_comment(&out, "T(i,j) = t_{i-j}, n x n, %s, FFT length L = smallest 2^a 3^b 5^c 7^d >= 2n-1; "
                            "planner %s", o->causal ? "causal" : "bidirectional", bench_planner_text(&o->common));
    cli_table_comment(&out, "flops: skit_toeplitz_plan_flops of one channel (FFTW's fftw_flops of the plan's "
                            "transforms, add + mul + 2 fma, + the engine's pointwise products; no memory "
                            "traffic); dense_flops: skit_toeplitz_matvec_dense's multiply-adds, %s",
                      o->causal ? "n (n + 1)" : "2 n^2");
    cli_progress_start(&o->common);
    int status = CLI_OK;
    for (size_t i = 0; i < o->nsizes && status == CLI_OK; i++) {
        cli_progress("n = %zu", o->sizes[i]);
        skit_fft_inverse form = SKIT_FFT_INVERSE_AUTO;
        status = count_one_size(o, o->sizes[i], &rows[i], &form);
        if (status != CLI_OK) break;
        const double *v = (const double *)&rows[i];
        for (size_t k = 0; k < FLOPS_FIELDS; k++) cli_table_cell(&out, "%.17g", v[k]);
        cli_table_cell(&out, "%s", skit_fft_inverse_name(form));
        cli_table_end_row(&out);
    }
    cli_progress_done();
    if (status == CLI_OK) {
        ratio_note(&out, rows, o->nsizes, 4, "flops / (n log2 n)");
        ratio_note(&out, rows, o->nsizes, 5, "dense_flops / (n log2 n)");
        status = cli_table_emit(&out, &o->common, o->argc, o->argv, FLOPS_UNITS, "bench_toeplitz_flops", NULL);
    }
    if (status == CLI_OK && o->json)
        status = write_json(o, "flops", FLOPS_UNITS, (const double *)rows, o->nsizes, flops_names, FLOPS_FIELDS, NULL,
                            0, NULL, 0);
    cli_table_free(&out);
    free(rows);
    return status;
}

/* 1..64, then primes, powers of two and awkward composites up to 8192. */
static const size_t default_check_sizes[] = {97,   100,  127,  128,  211,  255,  256,  331,  499,
                                             512,  997,  1000, 1024, 2039, 2048, 3001, 4093, 4096,
                                             5000, 8191, 8192};

/* The option values as given, parsed once all are known (--quick and
 * --check change the defaults). */
typedef struct option_texts {
    options *o; /* the flags go here */
    const char *sizes, *scipy, *dense, *solve, *channels;
    int no_solve;
} option_texts;

/* One option (cli_options.apply): -1 for the common ones. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    option_texts *x = ctx;
    options *o = x->o;
    switch (opt) {
    case OPT_SIZES: x->sizes = arg; return CLI_OK;
    case OPT_DENSE_MAX: x->dense = arg; return CLI_OK;
    case OPT_CHANNELS: x->channels = arg; return CLI_OK;
    case OPT_CAUSAL: o->causal = 1; return CLI_OK;
    case OPT_SCIPY_SIZES: x->scipy = arg; return CLI_OK;
    case OPT_NO_SCIPY: o->scipy = 0; return CLI_OK;
    case OPT_SOLVE_N: x->solve = arg; return CLI_OK;
    case OPT_NO_SOLVE: x->no_solve = 1; return CLI_OK;
    case OPT_CHECK: o->check = 1; return CLI_OK;
    case OPT_FLOPS: o->flops = 1; return CLI_OK;
    case OPT_QUICK: o->quick = 1; return CLI_OK;
    case OPT_JSON: o->json = arg; return CLI_OK;
    case OPT_INVERSE: {
        const char *const forms[] = {skit_fft_inverse_name(SKIT_FFT_INVERSE_AUTO),
                                     skit_fft_inverse_name(SKIT_FFT_INVERSE_HARTLEY),
                                     skit_fft_inverse_name(SKIT_FFT_INVERSE_C2R), NULL};
        int idx = 0;
        if (cli_parse_choice("--inverse", arg, forms, &idx) != CLI_OK) return CLI_USAGE;
        o->inverse = (skit_fft_inverse)idx;
        return CLI_OK;
    }
    }
    return -1;
}

/* The sizes of the solve section: --solve-n (0: none) or the default. */
static int parse_solve_sizes(options *o, const option_texts *x)
{
    static const size_t default_solve[] = {1024, 2048, 4096, 8192, 16384};
    o->nsolve = o->quick ? 1 : 5;
    memcpy(o->solve_sizes, default_solve, sizeof default_solve);
    if (x->solve && strcmp(x->solve, "0") != 0) {
        size_t *list = NULL, count = 0;
        if (cli_parse_size_list("--solve-n", x->solve, 2, (size_t)1 << 15, &list, &count) != CLI_OK) return CLI_USAGE;
        if (count > 8) {
            free(list);
            return cli_usage_error("--solve-n: at most 8 sizes, got %zu", count);
        }
        memcpy(o->solve_sizes, list, count * sizeof *list);
        o->nsolve = count;
        free(list);
    } else if (x->solve) {
        o->nsolve = 0;
    }
    if (x->no_solve || o->check || o->flops) o->nsolve = 0;
    return CLI_OK;
}

/* The sizes of the sweep: --sizes, or the default of the timing run or of
 * --check (1..64, then the awkward sizes of default_check_sizes). */
static int parse_sweep_sizes(options *o, const char *sizes_text)
{
    if (sizes_text) {
        int status = cli_parse_size_list("--sizes", sizes_text, 1, o->check ? (size_t)1 << 15 : (size_t)1 << 24,
                                         &o->sizes, &o->nsizes);
        if (status != CLI_OK) return status;
        if (o->nsizes > 64) return cli_usage_error("--sizes: at most 64 sizes, got %zu", o->nsizes);
        return CLI_OK;
    }
    if (!o->check)
        return cli_parse_size_list("--sizes", o->quick ? "2^10..2^14" : "2^10..2^20", 1, (size_t)1 << 24, &o->sizes,
                                   &o->nsizes);
    size_t extra = sizeof default_check_sizes / sizeof default_check_sizes[0];
    size_t top = o->quick ? 8 : extra; /* quick: up to 512 */
    o->nsizes = 64 + top;
    o->sizes = malloc(o->nsizes * sizeof *o->sizes);
    if (!o->sizes) return cli_failure("out of memory");
    for (size_t i = 0; i < 64; i++) o->sizes[i] = i + 1;
    for (size_t i = 0; i < top; i++) o->sizes[64 + i] = default_check_sizes[i];
    return CLI_OK;
}

/* Parses and validates every option before any work; o->sizes and
 * o->scipy_sizes (NULL-initialised) are the caller's to free. CLI_HELP
 * after --help. */
static int parse_options(options *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_PLANNER_LONGOPTS,
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"dense-max", required_argument, NULL, OPT_DENSE_MAX},
        {"channels", required_argument, NULL, OPT_CHANNELS},
        {"causal", no_argument, NULL, OPT_CAUSAL},
        {"scipy-sizes", required_argument, NULL, OPT_SCIPY_SIZES},
        {"no-scipy", no_argument, NULL, OPT_NO_SCIPY},
        {"solve-n", required_argument, NULL, OPT_SOLVE_N},
        {"no-solve", no_argument, NULL, OPT_NO_SOLVE},
        {"check", no_argument, NULL, OPT_CHECK},
        {"flops", no_argument, NULL, OPT_FLOPS},
        {"quick", no_argument, NULL, OPT_QUICK},
        {"json", required_argument, NULL, OPT_JSON},
        {"inverse", required_argument, NULL, OPT_INVERSE},
        {NULL, 0, NULL, 0}};
    option_texts x = {.o = o};
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = &x};
    int status = cli_parse_options(&parser, argc, argv);
    if (status != CLI_OK) return status;
    if (o->check && o->flops) return cli_usage_error("--check and --flops: choose one mode");
    o->channels = 64;
    o->dense_max = o->quick ? 2048 : 8192;
    if (x.channels && cli_parse_size("--channels", x.channels, 1, 4096, &o->channels) != CLI_OK)
        return CLI_USAGE;
    if (x.dense && cli_parse_size("--dense-max", x.dense, 0, (size_t)1 << 16, &o->dense_max) != CLI_OK)
        return CLI_USAGE;
    if (parse_solve_sizes(o, &x) != CLI_OK) return CLI_USAGE;
    status = parse_sweep_sizes(o, x.sizes);
    if (status != CLI_OK) return status;
    status = cli_parse_size_list("--scipy-sizes", x.scipy ? x.scipy : o->quick ? "2^12" : "2^12..2^16", 1,
                                 (size_t)1 << 24, &o->scipy_sizes, &o->nscipy);
    if (status != CLI_OK) return status;
    /* the accuracy sweep's output is the same bytes for the same seed:
     * ESTIMATE, as MEASURE picks algorithms (and so rounding) by timing */
    if (o->check || o->flops) o->common.planner_default = SKIT_PLANNER_ESTIMATE;
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    return cli_check_output_path("--json", o->json);
}

int bench_toeplitz(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.common);
    bench_planner_defaults(&o.common);
    o.scipy = 1;
    int status = parse_options(&o, argc, argv);
    if (status == CLI_HELP) status = CLI_OK;
    else if (status == CLI_OK) {
        /* the provenance header records the full command line */
        char **full = malloc(((size_t)argc + 3) * sizeof *full);
        if (!full) {
            status = cli_failure("out of memory");
        } else {
            /* argv[0] is already "skit bench toeplitz" (tools/cmd_bench.c) */
            for (int i = 0; i < argc; i++) full[i] = argv[i];
            full[argc] = NULL;
            o.argc = argc;
            o.argv = full;
            cli_apply_threads(&o.common);
            status = o.check ? run_check(&o) : o.flops ? run_flops(&o) : run_timing(&o);
            free(full);
        }
    }
    free(o.sizes);
    free(o.scipy_sizes);
    return status;
}
