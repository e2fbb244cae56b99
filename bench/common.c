/* common.c — timing, peers, floors and machine state shared by the
 * `skit bench` targets (see common.h). */
#include "config.h"

#include <cblas.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common.h"
#include "skit.h"

/* ---- timing ------------------------------------------------------------ */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

size_t bench_calls_per_sample(double once, double min_sample, size_t max_calls)
{
    if (once >= min_sample) return 1;
    double calls = ceil(min_sample / (once > 1e-9 ? once : 1e-9));
    return calls < (double)max_calls ? (size_t)calls : max_calls;
}

void bench_measure(bench_fn fn, void *context, double min_sample_s, size_t samples,
                   bench_timing *out)
{
    if (samples < 1) samples = 1;
    if (samples > 64) samples = 64;
    double t0 = skit_clock_seconds();
    fn(context);
    size_t calls = bench_calls_per_sample(skit_clock_seconds() - t0, min_sample_s, 1000000);
    double times[64];
    for (size_t s = 0; s < samples; s++) {
        double start = skit_clock_seconds();
        for (size_t c = 0; c < calls; c++) fn(context);
        times[s] = (skit_clock_seconds() - start) / (double)calls;
    }
    out->median = bench_median(times, samples);
    out->min = times[0];
    out->max = times[samples - 1];
    out->samples = samples;
    out->calls_per_sample = calls;
}

void bench_measure_interleaved(bench_fn *fns, void **contexts, size_t k, double min_sample,
                               size_t rounds, double *median)
{
    double t[BENCH_MAX_BODIES][BENCH_MAX_ROUNDS];
    size_t calls[BENCH_MAX_BODIES];
    if (rounds > BENCH_MAX_ROUNDS) rounds = BENCH_MAX_ROUNDS;
    if (rounds < 1) rounds = 1;
    if (k > BENCH_MAX_BODIES) k = BENCH_MAX_BODIES;
    for (size_t i = 0; i < k; i++) {
        double t0 = skit_clock_seconds();
        fns[i](contexts[i]);
        calls[i] = bench_calls_per_sample(skit_clock_seconds() - t0, min_sample, 1000000);
    }
    for (size_t r = 0; r < rounds; r++)
        for (size_t i = 0; i < k; i++) {
            double t0 = skit_clock_seconds();
            for (size_t c = 0; c < calls[i]; c++) fns[i](contexts[i]);
            t[i][r] = (skit_clock_seconds() - t0) / (double)calls[i];
        }
    for (size_t i = 0; i < k; i++) median[i] = bench_median(t[i], rounds);
}

double bench_call_median(bench_fn fn, void *context, double min_sample)
{
    static double t[4096];
    size_t calls = 0;
    double start = skit_clock_seconds();
    for (;;) {
        double t0 = skit_clock_seconds();
        fn(context);
        double t1 = skit_clock_seconds();
        t[calls++] = t1 - t0;
        if (t1 - start >= min_sample || calls == sizeof t / sizeof t[0]) break;
    }
    return bench_median(t, calls);
}

double bench_loglog_slope(const double *n, const double *t, size_t count)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < count; i++) {
        double x = log(n[i]), y = log(t[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double den = (double)count * sxx - sx * sx;
    return den != 0 ? ((double)count * sxy - sx * sy) / den : NAN;
}

double bench_max_relative_error(const double *a, const double *ref, size_t count)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        double e = fabs(a[i] - ref[i]);
        if (!(e <= num)) num = e;
        if (fabs(ref[i]) > den) den = fabs(ref[i]);
    }
    return den > 0 ? num / den : num;
}

void bench_run_matvec(void *matvec)
{
    const bench_matvec *c = matvec;
    skit_toeplitz_plan_execute(c->plan, c->x, c->n, c->y, c->n, NULL);
}

/* ---- peers ------------------------------------------------------------- */

/* Runs argv (python3 -c ...) and reads the one number it prints; -1 if it
 * is missing or failed. */
static int run_once(const char *const argv[], double *seconds)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char buf[256];
    ssize_t got = 0, r;
    while (got < (ssize_t)sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0) got += r;
    close(fds[0]);
    buf[got > 0 ? got : 0] = '\0';
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) return -1;
    char *end;
    double v = strtod(buf, &end);
    if (end == buf || !isfinite(v)) return -1;
    *seconds = v;
    return 0;
}

int bench_python_has(const char *module)
{
    char code[256];
    snprintf(code, sizeof code, "import %s; print(0)", module);
    const char *const argv[] = {BENCH_PYTHON, "-c", code, NULL};
    double v;
    return run_once(argv, &v) == 0;
}

/* send() without SIGPIPE when the peer has died: the write fails instead */
#ifdef MSG_NOSIGNAL
#define PEER_SEND_FLAGS MSG_NOSIGNAL
#else
#define PEER_SEND_FLAGS 0
#endif

void bench_peer_init(bench_peer *peer, const char *script)
{
    *peer = (bench_peer){script, 0, -1, 0};
}

void bench_peer_close(bench_peer *peer)
{
    if (peer->fd >= 0) close(peer->fd); /* end of input: the peer's loop ends */
    peer->fd = -1;
    if (peer->pid > 0) {
        int wstatus;
        while (waitpid((pid_t)peer->pid, &wstatus, 0) < 0 && errno == EINTR) {}
        cli_child_release(peer->pid);
    }
    peer->pid = 0;
}

static int peer_start(bench_peer *peer)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return -1;
    (void)fcntl(sv[0], F_SETFD, FD_CLOEXEC); /* later peers must not hold this one's input open */
#ifdef SO_NOSIGPIPE
    int one = 1;
    (void)setsockopt(sv[0], SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own group: a signal ending skit stops a long request too */
        dup2(sv[1], STDIN_FILENO);
        dup2(sv[1], STDOUT_FILENO);
        if (sv[1] > STDOUT_FILENO) close(sv[1]);
        close(sv[0]);
        execl(BENCH_PYTHON, BENCH_PYTHON, "-c", peer->script, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    setpgid(pid, pid);
    cli_child_register(pid);
    peer->pid = (long)pid;
    peer->fd = sv[0];
    return 0;
}

static int peer_send_line(int fd, const char *request)
{
    char line[512];
    int len = snprintf(line, sizeof line, "%s\n", request);
    if (len < 0 || (size_t)len >= sizeof line) return -1;
    for (size_t sent = 0; sent < (size_t)len;) {
        ssize_t w = send(fd, line + sent, (size_t)len - sent, PEER_SEND_FLAGS);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        sent += (size_t)w;
    }
    return 0;
}

/* One answer line into buf (without its newline); the peer writes nothing
 * until asked, so nothing follows the newline. */
static int peer_read_line(int fd, char *buf, size_t size)
{
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t r = read(fd, buf + got, size - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
        buf[got] = '\0';
        char *newline = strchr(buf, '\n');
        if (newline) {
            *newline = '\0';
            return 0;
        }
    }
    return -1;
}

int bench_peer_ask(bench_peer *peer, const char *request, double *out, size_t count)
{
    enum { MAX_NUMBERS = 8 };
    for (size_t i = 0; i < count; i++) out[i] = NAN;
    if (count > MAX_NUMBERS) return -1;
    if (peer->failed || (peer->pid == 0 && peer_start(peer) != 0)) {
        peer->failed = 1;
        return -1;
    }
    char answer[512];
    if (peer_send_line(peer->fd, request) != 0 || peer_read_line(peer->fd, answer, sizeof answer) != 0) {
        bench_peer_close(peer); /* it died (or exec failed): no more requests */
        peer->failed = 1;
        return -1;
    }
    double values[MAX_NUMBERS];
    const char *p = answer;
    for (size_t i = 0; i < count; i++) {
        char *end;
        values[i] = strtod(p, &end);
        if (end == p || !isfinite(values[i])) return -1;
        p = end;
    }
    memcpy(out, values, count * sizeof *out);
    return 0;
}

/* ---- floors ------------------------------------------------------------ */

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

void bench_fftw_destroy(bench_fftw *f)
{
    if (f->r2c) fftw_destroy_plan(f->r2c);
    if (f->c2r) fftw_destroy_plan(f->c2r);
    fftw_free(f->real);
    fftw_free(f->back);
    fftw_free(f->spectrum);
    memset(f, 0, sizeof *f);
}

unsigned bench_fftw_flags(skit_planner planner)
{
    static const unsigned flags[] = {FFTW_ESTIMATE, FFTW_ESTIMATE, FFTW_MEASURE, FFTW_PATIENT, FFTW_EXHAUSTIVE,
                                     FFTW_WISDOM_ONLY | FFTW_ESTIMATE};
    if (planner == SKIT_PLANNER_DEFAULT) planner = skit_fft_default_planner();
    return flags[planner];
}

int bench_fftw_create(bench_fftw *f, size_t length, skit_planner planner)
{
    memset(f, 0, sizeof *f);
    f->buffers = bench_threads();
    /* strides in whole cache lines, a spare one between threads' buffers */
    f->real_stride = (length + 15) / 8 * 8;
    f->spectrum_stride = (length / 2 + 1 + 3) / 4 * 4;
    size_t reals = (size_t)f->buffers * f->real_stride, spectra = (size_t)f->buffers * f->spectrum_stride;
    f->real = fftw_malloc(reals * sizeof(double));
    f->back = fftw_malloc(reals * sizeof(double));
    f->spectrum = fftw_malloc(spectra * sizeof(fftw_complex));
    if (!f->real || !f->back || !f->spectrum) {
        bench_fftw_destroy(f);
        return SKIT_ENOMEM;
    }
    /* this process plans on one thread; FFTW's time limit and wisdom are
     * those skit set (skit_fft_set_time_limit, skit_fft_wisdom_*) */
    f->r2c = fftw_plan_dft_r2c_1d((int)length, f->real, f->spectrum, bench_fftw_flags(planner));
    f->c2r = fftw_plan_dft_c2r_1d((int)length, f->spectrum, f->back, bench_fftw_flags(planner));
    if (!f->r2c || !f->c2r) {
        bench_fftw_destroy(f);
        return SKIT_ELIBRARY;
    }
    /* MEASURE and above planned on the buffers: zero them after */
    memset(f->real, 0, reals * sizeof(double));
    memset(f->back, 0, reals * sizeof(double));
    memset(f->spectrum, 0, spectra * sizeof(fftw_complex));
    return SKIT_OK;
}

void bench_fftw_run(const bench_fftw *f, size_t count, int pairs, int threads)
{
    long n = (long)count;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
#endif
    for (long k = 0; k < n; k++) {
        size_t t = (size_t)thread_id();
        /* the r2c keeps its input, the c2r writes elsewhere: the data stay bounded */
        fftw_execute_dft_r2c(f->r2c, f->real + t * f->real_stride, f->spectrum + t * f->spectrum_stride);
        if (pairs)
            fftw_execute_dft_c2r(f->c2r, f->spectrum + t * f->spectrum_stride, f->back + t * f->real_stride);
    }
}

void bench_gemm(size_t rows, size_t inner, size_t cols, const double *a, const double *b, double *c)
{
#pragma omp parallel
    {
        size_t id = 0, team = 1;
#ifdef _OPENMP
        id = (size_t)omp_get_thread_num();
        team = (size_t)omp_get_num_threads();
#endif
        size_t c0 = cols * id / team / 8 * 8, c1 = id + 1 == team ? cols : cols * (id + 1) / team / 8 * 8;
        if (c1 > c0)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)(c1 - c0), (int)inner, 1.0,
                        a, (int)inner, b + c0, (int)cols, 0.0, c + c0, (int)cols);
    }
}

void bench_store(size_t rows, size_t cols, double *c)
{
    long n = (long)rows;
#pragma omp parallel for schedule(static)
    for (long r = 0; r < n; r++) {
        double *row = c + (size_t)r * cols, v = (double)r;
        for (size_t k = 0; k < cols; k++) row[k] = v + (double)k;
    }
}

/* ---- the machine ------------------------------------------------------- */

int bench_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int bench_cores(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

double bench_load_average(void)
{
    double v = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &v) != 1) v = NAN;
        fclose(f);
    }
    return v;
}

/* ---- planner and machine header ----------------------------------------- */

void bench_planner_defaults(cli_common *common)
{
    common->planner_default = SKIT_PLANNER_MEASURE;
    common->plan_seconds = BENCH_PLAN_SECONDS;
}

const char *bench_planner_text(const cli_common *common)
{
    static char text[160];
    skit_planner p = skit_fft_default_planner();
    int patient = p == SKIT_PLANNER_MEASURE || p == SKIT_PLANNER_PATIENT || p == SKIT_PLANNER_EXHAUSTIVE;
    char limit[48] = "";
    if (patient && common->plan_seconds >= 0)
        snprintf(limit, sizeof limit, ", <= %g s per transform", common->plan_seconds);
    const char *env = getenv("SKIT_WISDOM");
    snprintf(text, sizeof text, "%s%s%s", skit_planner_name(p), limit,
             common->wisdom || (env && *env) ? ", wisdom imported" : "");
    return text;
}

/* The "model name" of /proc/cpuinfo and the flags of `wanted` it lists. */
void bench_cpu_description(char *model, size_t model_size, char *flags, size_t flags_size)
{
    static const char *const wanted[] = {"sse2", "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq",
                                         "avx512vl", "avx512_fp16", "amx_tile", "neon", "asimd", "sve", NULL};
    snprintf(model, model_size, "unknown");
    snprintf(flags, flags_size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[8192];
    int have_model = 0, have_flags = 0;
    while (fgets(line, sizeof line, f) && !(have_model && have_flags)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *value = colon + 1 + (colon[1] == ' ');
        value[strcspn(value, "\n")] = '\0';
        if (!have_model && !strncmp(line, "model name", 10)) {
            snprintf(model, model_size, "%s", value);
            have_model = 1;
        } else if (!have_flags && (!strncmp(line, "flags", 5) || !strncmp(line, "Features", 8))) {
            size_t len = 0;
            flags[0] = '\0';
            for (size_t i = 0; wanted[i]; i++) {
                char padded[64];
                snprintf(padded, sizeof padded, " %s ", wanted[i]);
                char haystack[8200];
                snprintf(haystack, sizeof haystack, " %s ", value);
                if (strstr(haystack, padded) && len + strlen(wanted[i]) + 2 < flags_size)
                    len += (size_t)snprintf(flags + len, flags_size - len, "%s%s", len ? " " : "", wanted[i]);
            }
            have_flags = 1;
        }
    }
    fclose(f);
}

void bench_machine_header(cli_table *table, const cli_common *common, const char *precision)
{
    char model[256], flags[256];
    bench_cpu_description(model, sizeof model, flags, sizeof flags);
    cli_table_comment(table, "machine: %s; ISA: %s; %d cores, %d threads; 1-minute load %.2f at start "
                             "(a loaded machine gives noisy times, multi-threaded ones most)",
                      model, flags, bench_cores(), bench_threads(), bench_load_average());
    cli_table_comment(table, "FFTW planner: %s; precision: %s; FFTW %s", bench_planner_text(common), precision,
                      fftw_version);
}
