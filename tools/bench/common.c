/* common.c — timing helpers shared by the `skit bench` targets. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "skit.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_measure(bench_fn fn, void *context, double min_sample_s, size_t samples,
                   bench_timing *out)
{
    if (samples < 1) samples = 1;
    if (samples > 64) samples = 64;
    /* warm-up: caches, page faults, FFTW wisdom, thread pools */
    double t0 = skit_clock_seconds();
    fn(context);
    double once = skit_clock_seconds() - t0;
    size_t calls = 1;
    if (once < min_sample_s) calls = (size_t)ceil(min_sample_s / (once > 1e-9 ? once : 1e-9));
    if (calls > 1000000) calls = 1000000;
    double times[64];
    for (size_t s = 0; s < samples; s++) {
        double start = skit_clock_seconds();
        for (size_t c = 0; c < calls; c++) fn(context);
        times[s] = (skit_clock_seconds() - start) / (double)calls;
    }
    qsort(times, samples, sizeof *times, compare_doubles);
    out->median = samples % 2 ? times[samples / 2] : 0.5 * (times[samples / 2 - 1] + times[samples / 2]);
    out->min = times[0];
    out->max = times[samples - 1];
    out->samples = samples;
    out->calls_per_sample = calls;
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

int bench_run_peer(const char *const argv[], double *seconds)
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
