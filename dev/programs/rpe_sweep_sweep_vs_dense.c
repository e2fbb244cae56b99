/* rpe_sweep_sweep_vs_dense.c — the RPE features (width 64, 3 hidden layers, ReLU) at
 * n inputs, by layers of GEMMs (skit_mlp_features_dense) and by the sweep
 * (skit_mlp_features_sweep), one thread: best of 5 times each and the
 * largest difference. Inputs: lags -(n/2).. (grid = 0) or a grid on [0, pi]
 * (grid = 1). Not part of skit; see
 * dev/notes/rpe-sweep-vs-layers-2026-11-22.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "skit/mlp.h"

/* skit's internal feature paths (lib/freq/freq_internal.h) */
size_t skit_mlp_features_workspace(const skit_mlp *mlp);
int skit_mlp_features_dense(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work);
int skit_mlp_features_sweep(const skit_mlp *mlp, size_t count, const double *x, const double *scale,
                            double *out, size_t ldo, double *work);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s n grid(0|1) [norm 0 none, 1 layer, 2 rms]\n", argv[0]);
        return 2;
    }
    size_t n = (size_t)atol(argv[1]);
    int grid = atoi(argv[2]), norm = argc > 3 ? atoi(argv[3]) : 2;
    skit_mlp *m;
    if (n < 2 || skit_mlp_create(&m, 1, 64, 3, 64, SKIT_ACTIVATION_RELU, (skit_norm)norm, 1)) return 1;
    double *x = malloc(n * sizeof *x), *a = malloc(64 * n * sizeof *a), *b = malloc(64 * n * sizeof *b);
    double *work = malloc(skit_mlp_features_workspace(m) * sizeof *work);
    for (size_t i = 0; i < n; i++) x[i] = grid ? M_PI * (double)i / (double)(n - 1) : (double)i - (double)(n / 2);
    double best[2] = {1e30, 1e30};
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        skit_mlp_features_dense(m, n, x, NULL, a, n, work);
        double t1 = now();
        skit_mlp_features_sweep(m, n, x, NULL, b, n, work);
        double t2 = now();
        best[0] = fmin(best[0], t1 - t0);
        best[1] = fmin(best[1], t2 - t1);
    }
    double err = 0, mx = 0;
    for (size_t i = 0; i < 64 * n; i++) {
        err = fmax(err, fabs(a[i] - b[i]));
        mx = fmax(mx, fabs(a[i]));
    }
    printf("n=%zu %s: dense %.3f ms, sweep %.3f ms (%.0f / %.0f ns an input), max |difference| %.3g "
           "(max |feature| %.3g)\n", n, grid ? "grid" : "lags", 1e3 * best[0], 1e3 * best[1],
           1e9 * best[0] / (double)n, 1e9 * best[1] / (double)n, err, mx);
    return 0;
}
