/* bench_tno_peer.c — the PyTorch peer in `skit bench tno`: runs
 * bench/peers/tno_torch.py (the same operators in PyTorch, the papers'
 * structure, float32 and float64, one thread and all threads) when
 * /usr/bin/python3 imports torch, times skit's forward of every row it
 * reports in the same run (same operator, shape, precision and threads),
 * and writes each pair with its ratio and the target, skit float32
 * >= 5x the PyTorch float32 peer on one thread, judged per shape, as notes
 * of the table. Beside each forward, skit's apply with the kernels cached
 * (no RPE, no kernel transforms): the ratio PyTorch / apply is what the
 * forward would reach if the RPE cost nothing, so a shape where it is
 * under 5x cannot meet the target by a faster RPE alone. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common.h"
#include "cli/cli.h"
#include "cli/table.h"

typedef struct peer_row {
    char op[8];
    int causal, f32, threads;
    size_t n, d, batch;
    double torch_s, skit_s, apply_s; /* apply_s: skit's execute with the kernels cached */
    size_t fft_length;               /* float32 TNO and FD-TNO, one thread: the plan's FFT length */
    double bare_s;                   /* FFTW's bare float r2c + c2r of that length per channel */
} peer_row;

/* Runs argv with stdout and stderr to /dev/null; 0 when it exits 0. The
 * peer runs for minutes: in its own process group, registered, so that a
 * signal ending skit stops it too (both sides set the group, so it is
 * set before the parent can be signalled). */
static int run_quietly(const char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0);
        FILE *null = freopen("/dev/null", "w", stdout);
        if (null) dup2(STDOUT_FILENO, STDERR_FILENO);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid);
    cli_child_register(pid);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    cli_child_release(pid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The peer's TSV rows (op causal n d batch dtype threads seconds). */
static size_t read_rows(const char *path, peer_row *rows, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512], dtype[16];
    size_t count = 0;
    while (count < max && fgets(line, sizeof line, f)) {
        peer_row *r = &rows[count];
        memset(r, 0, sizeof *r);
        if (line[0] == '#' ||
            sscanf(line, "%7s %d %zu %zu %zu %15s %d %lf", r->op, &r->causal, &r->n, &r->d, &r->batch, dtype,
                   &r->threads, &r->torch_s) != 8)
            continue;
        r->f32 = !strcmp(dtype, "float32");
        count++;
    }
    fclose(f);
    return count;
}

typedef struct forward_body {
    skit_tno_plan *plan;
    const void *x;
    void *y;
    int f32;
} forward_body;

static void run_forward(void *ctx)
{
    forward_body *b = ctx;
    if (b->f32) skit_tno_plan_forward_f32(b->plan, b->x, b->y);
    else skit_tno_plan_forward(b->plan, b->x, b->y);
}

static void run_apply(void *ctx)
{
    forward_body *b = ctx;
    if (b->f32) skit_tno_plan_execute_f32(b->plan, b->x, b->y, NULL);
    else skit_tno_plan_execute(b->plan, b->x, b->y, NULL);
}

/* FFTW's bare float r2c + c2r of length N, `channels` times, one thread,
 * planned as the bench plans (on zeroed buffers, so that repeated
 * transforms stay finite): every FFT implementation of TNO and FD-TNO
 * does at least these, so PyTorch's time over this bounds what any
 * implementation on this machine's FFTW can reach. 0 if FFTW cannot plan. */
typedef struct bare_body {
    fftwf_plan r2c, c2r;
    size_t channels;
} bare_body;

static void run_bare(void *ctx)
{
    const bare_body *b = ctx;
    for (size_t c = 0; c < b->channels; c++) {
        fftwf_execute(b->r2c);
        fftwf_execute(b->c2r);
    }
}

static double time_bare_transforms(size_t N, size_t channels, skit_planner planner, double min_sample)
{
    float *real = fftwf_alloc_real(N);
    fftwf_complex *spectrum = fftwf_alloc_complex(N / 2 + 1);
    bare_body b = {NULL, NULL, channels};
    if (real && spectrum) {
        b.r2c = fftwf_plan_dft_r2c_1d((int)N, real, spectrum, bench_fftw_flags(planner));
        b.c2r = fftwf_plan_dft_c2r_1d((int)N, spectrum, real, bench_fftw_flags(planner));
    }
    double seconds = 0;
    if (b.r2c && b.c2r) {
        memset(real, 0, N * sizeof(float));
        memset(spectrum, 0, (N / 2 + 1) * sizeof(fftwf_complex));
        run_bare(&b); /* warm-up */
        seconds = bench_call_median(run_bare, &b, min_sample);
    }
    if (b.r2c) fftwf_destroy_plan(b.r2c);
    if (b.c2r) fftwf_destroy_plan(b.c2r);
    fftwf_free(real);
    fftwf_free(spectrum);
    return seconds;
}

/* The plan's FFT length (float32 TNO and FD-TNO plans report it with
 * their error scale; SKI-TNO's line is TNO's, the FFTW-friendly length >=
 * 2n - 1 a per-channel FFT mixer of the shape transforms at), and the
 * bare transforms' time at it */
static int time_bare(peer_row *r, const skit_tno_plan *plan, skit_planner planner, double min_sample)
{
    int status = SKIT_OK;
    if (!strcmp(r->op, "ski")) {
        status = skit_fft_good_length(2 * r->n - 1, &r->fft_length);
    } else {
        double *scale = skit_malloc(r->d, sizeof(double));
        status = scale ? skit_tno_plan_f32_error_scale(plan, scale, &r->fft_length) : SKIT_ENOMEM;
        skit_free(scale);
    }
    if (status == SKIT_OK) r->bare_s = time_bare_transforms(r->fft_length, r->d * r->batch, planner, min_sample);
    return status;
}

/* skit's forward of the row's operator with its precision and threads */
static int time_skit(peer_row *r, const skit_tno_options *base, double min_sample, skit_rng *rng)
{
    skit_tno_options o = *base;
    o.kind = !strcmp(r->op, "fd") ? SKIT_TNO_FD : !strcmp(r->op, "ski") ? SKIT_TNO_SKI : SKIT_TNO_FFT;
    o.causality = r->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    o.rank = o.rank < r->n ? o.rank : r->n;
    o.precision = r->f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
    const int f32 = r->f32;
#ifdef _OPENMP
    omp_set_num_threads(r->threads); /* a plan keeps the threads of its creation */
#endif
    const size_t total = r->n * r->d * r->batch, size = f32 ? sizeof(float) : sizeof(double);
    void *x = skit_malloc(total, size), *y = skit_malloc(total, size);
    skit_tno_plan *plan = NULL;
    int status = x && y ? skit_tno_plan_create(&plan, r->n, r->d, r->batch, &o, NULL, 0) : SKIT_ENOMEM;
    if (status == SKIT_OK) {
        for (size_t i = 0; i < total; i++) {
            double v = skit_rng_normal(rng);
            if (f32) ((float *)x)[i] = (float)v;
            else ((double *)x)[i] = v;
        }
        forward_body b = {plan, x, y, f32};
        run_forward(&b); /* warm-up */
        r->skit_s = bench_call_median(run_forward, &b, min_sample);
        r->apply_s = bench_call_median(run_apply, &b, min_sample);
        if (f32 && r->threads == 1) status = time_bare(r, plan, o.planner, min_sample);
    }
    skit_tno_plan_destroy(plan);
    skit_free(x);
    skit_free(y);
    return status;
}

static void note(cli_table *t, int quiet, const char *text)
{
    cli_table_note(t, "%s", text);
    if (!quiet) fprintf(stderr, "%s: %s\n", cli_context(), text);
}

/* "; op[ causal] n:d:batch R.RRx" appended to list (len so far, size) */
static void append_shape(char *list, size_t *len, size_t size, const peer_row *r, double ratio)
{
    if (*len >= size) return;
    *len += (size_t)snprintf(list + *len, size - *len, "%s%.7s%s %zu:%zu:%zu %.2fx", *len ? "; " : "", r->op,
                             r->causal ? " causal" : "", r->n, r->d, r->batch, ratio);
}

/* The floor line: PyTorch's float32 forward over FFTW's bare transforms
 * (time_bare_transforms) for the float32 one-thread TNO and FD-TNO rows;
 * under 5 no implementation on this FFTW meets the target there. */
static void judge_floor(cli_table *t, int quiet, const peer_row *rows, size_t count)
{
    char list[1400], line[1700];
    size_t len = 0, under = 0, seen = 0;
    double lo = 0, hi = 0;
    list[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        const peer_row *r = &rows[i];
        if (!(r->bare_s > 0)) continue;
        double ratio = r->torch_s / r->bare_s;
        lo = seen ? (ratio < lo ? ratio : lo) : ratio;
        hi = seen++ ? (ratio > hi ? ratio : hi) : ratio;
        if (ratio < 5.0) {
            under++;
            append_shape(list, &len, sizeof list, r, ratio);
        }
    }
    if (!seen) return;
    snprintf(line, sizeof line, "floor: PyTorch float32 forward / FFTW's bare float r2c + c2r per channel at the "
             "plan's FFT length (every FFT implementation does these; this run's planner), one "
             "thread: %.2f-%.2fx; under 5x, so out of the target's reach with this FFTW, at %zu of %zu operator shapes%s%s",
             lo, hi, under, seen, under ? ": " : "", list);
    note(t, quiet, line);
}

/* the target line over the float32 one-thread rows */
static void judge(cli_table *t, int quiet, const peer_row *rows, size_t count)
{
    char list[1400], line[1600];
    size_t len = 0, met = 0, seen = 0;
    double worst = 0, reach = 0;
    list[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        const peer_row *r = &rows[i];
        if (!r->f32 || r->threads != 1 || !(r->skit_s > 0)) continue;
        double ratio = r->torch_s / r->skit_s;
        double bound = r->torch_s / r->apply_s;
        reach = seen ? (bound < reach ? bound : reach) : bound;
        worst = seen++ ? (ratio < worst ? ratio : worst) : ratio;
        met += ratio >= 5.0;
        append_shape(list, &len, sizeof list, r, ratio);
    }
    if (!seen) return;
    snprintf(line, sizeof line, "target: skit float32 >= 5x the PyTorch float32 peer, one thread: %s (%zu of %zu "
             "operator shapes; worst %.2fx; with the kernels cached, i.e. a free RPE, the worst would be %.2fx): %s",
             met == seen ? "met" : "not met", met, seen, worst, reach, list);
    note(t, quiet, line);
}

/* The floor line of skit's own float32 forwards, with or without the
 * peer: at every --shapes shape, TNO, FD-TNO and SKI-TNO, both
 * causalities, one thread, the forward (update + execute) over FFTW's
 * bare float r2c + c2r per channel (time_bare), each in this run; the
 * target, every forward within 1.5x of that line, as a note. */
int bench_tno_floor(const char *shapes, const skit_tno_options *base, uint64_t seed, int quiet, cli_table *t)
{
    static const char *const ops[] = {"tno", "fd", "ski"};
    peer_row rows[192];
    size_t count = 0, n, d, batch;
    for (const char *s = shapes; s && sscanf(s, "%zu:%zu:%zu", &n, &d, &batch) == 3;) {
        for (int k = 0; k < 6 && count < sizeof rows / sizeof rows[0]; k++) {
            rows[count] = (peer_row){.causal = k % 2, .f32 = 1, .threads = 1, .n = n, .d = d, .batch = batch};
            snprintf(rows[count++].op, sizeof rows[0].op, "%s", ops[k / 2]);
        }
        s = strchr(s, ',');
        if (s) s++;
    }
    const int all = bench_threads();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    char line[512], list[2400];
    size_t len = 0, met = 0, seen = 0;
    double worst = 0;
    int status = SKIT_OK;
    list[0] = '\0';
    for (size_t i = 0; i < count && status == SKIT_OK; i++) {
        peer_row *r = &rows[i];
        if (!quiet) fprintf(stderr, "%s: floor %.7s %s %zu:%zu:%zu ...\n", cli_context(), r->op,
                            r->causal ? "causal" : "bidirectional", r->n, r->d, r->batch);
        status = time_skit(r, base, 0.2, &rng);
        if (status != SKIT_OK || !(r->bare_s > 0)) continue;
        const double ratio = r->skit_s / r->bare_s;
        snprintf(line, sizeof line, "floor-row: %.7s %s n=%zu d=%zu batch=%zu float32 threads=1: forward %.6g s, apply "
                 "%.6g s, FFTW's bare float r2c + c2r per channel at N = %zu %.6g s; forward / bare %.3fx (apply / "
                 "bare %.3fx)", r->op, r->causal ? "causal" : "bidirectional", r->n, r->d, r->batch, r->skit_s,
                 r->apply_s, r->fft_length, r->bare_s, ratio, r->apply_s / r->bare_s);
        note(t, quiet, line);
        worst = seen++ ? (ratio > worst ? ratio : worst) : ratio;
        met += ratio <= 1.5;
        append_shape(list, &len, sizeof list, r, ratio);
    }
#ifdef _OPENMP
    omp_set_num_threads(all);
#endif
    if (status != SKIT_OK) return cli_library_error(status);
    if (!seen) return CLI_OK;
    char summary[2800];
    snprintf(summary, sizeof summary, "floor target: every float32 forward (update + execute) <= 1.5x FFTW's bare "
             "float r2c + c2r per channel, one thread: %s (%zu of %zu; worst %.2fx): %s",
             met == seen ? "met" : "not met", met, seen, worst, list);
    note(t, quiet, summary);
    return CLI_OK;
}

int bench_tno_peer(const char *shapes, const skit_tno_options *base, uint64_t seed, int quiet, cli_table *t)
{
    char script[4096], out[256], threads[16], line[1024];
    snprintf(script, sizeof script, "%s/bench/peers/tno_torch.py", cli_datadir());
    if (access(script, R_OK) != 0 || !bench_python_has("torch")) {
        snprintf(line, sizeof line, "peer: PyTorch peer skipped (%s)",
                 access(script, R_OK) ? "bench/peers/tno_torch.py not found: set SKIT_DATADIR"
                                      : BENCH_PYTHON " cannot import torch");
        note(t, quiet, line);
        return CLI_OK;
    }
    const int all = bench_threads();
    snprintf(out, sizeof out, "%s/skit-tno-torch-XXXXXX", cli_temp_dir());
    int fd = mkstemp(out);
    if (fd < 0) return cli_failure("cannot create a temporary file for the PyTorch peer in %s: %s", cli_temp_dir(),
                                   strerror(errno));
    close(fd);
    int slot = cli_temp_register(out); /* removed if a signal ends the run */
    snprintf(threads, sizeof threads, "%d", all);
    if (!quiet) fprintf(stderr, "%s: PyTorch peer (%s) ...\n", cli_context(), script);
    const char *const argv[] = {BENCH_PYTHON, script, "--shapes", shapes, "--threads", threads, "-o", out, NULL};
    peer_row rows[256];
    size_t count = run_quietly(argv) == 0 ? read_rows(out, rows, 256) : 0;
    unlink(out);
    cli_temp_release(slot);
    if (!count) {
        note(t, quiet, "peer: PyTorch peer failed (no rows from bench/peers/tno_torch.py)");
        return CLI_OK;
    }
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    int status = SKIT_OK;
    for (size_t i = 0; i < count && status == SKIT_OK; i++) {
        peer_row *r = &rows[i];
        status = time_skit(r, base, 0.2, &rng);
        char bare[128] = "";
        if (r->bare_s > 0)
            snprintf(bare, sizeof bare, "; / FFTW's bare r2c + c2r per channel at N = %zu %.3gx", r->fft_length,
                     r->torch_s / r->bare_s);
        snprintf(line, sizeof line, "peer: %.7s %s n=%zu d=%zu batch=%zu %s threads=%d: skit %.6g s, PyTorch %.6g s, "
                 "PyTorch / skit %.3gx (PyTorch / skit's apply with cached kernels %.3gx%s)", r->op,
                 r->causal ? "causal" : "bidirectional", r->n, r->d, r->batch, r->f32 ? "float32" : "float64",
                 r->threads, r->skit_s, r->torch_s, r->torch_s / r->skit_s, r->torch_s / r->apply_s, bare);
        if (status == SKIT_OK) note(t, quiet, line);
    }
#ifdef _OPENMP
    omp_set_num_threads(all);
#endif
    if (status != SKIT_OK) return cli_library_error(status);
    judge(t, quiet, rows, count);
    judge_floor(t, quiet, rows, count);
    return CLI_OK;
}
