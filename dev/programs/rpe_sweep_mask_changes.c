/* rpe_sweep_mask_changes.c — how many of n inputs change a ReLU mask of the RPE
 * (width 64, 3 hidden layers, RMS norm, seed 2) against the input before:
 * the rebuilds the sweep does (lib/freq/mlp.c). Inputs: lags -(n/2)..
 * (grid = 0) or a grid on [0, pi] (grid = 1). Counted from the
 * pre-activations of the plain evaluation. Not part of skit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "skit/mlp.h"

/* skit's internal per-input evaluation (lib/freq/freq_internal.h) */
int skit_mlp_preactivations(const skit_mlp *mlp, const double *x, double *pre, double *y);

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s n grid(0|1)\n", argv[0]);
        return 2;
    }
    size_t n = (size_t)atol(argv[1]), changes = 0, flips[4] = {0, 0, 0, 0};
    int grid = atoi(argv[2]);
    skit_mlp *m;
    if (n < 2 || skit_mlp_create(&m, 1, 64, 3, 8, SKIT_ACTIVATION_RELU, SKIT_NORM_RMS, 2)) return 1;
    double pre[4 * 64], prev[4 * 64], y[8];
    for (size_t i = 0; i < n; i++) {
        double x = grid ? M_PI * (double)i / (double)(n - 1) : (double)i - (double)(n / 2);
        skit_mlp_preactivations(m, &x, pre, y);
        int any = 0;
        for (int s = 0; s < 4 && i; s++)
            for (int j = 0; j < 64; j++)
                if ((pre[s * 64 + j] > 0) != (prev[s * 64 + j] > 0)) {
                    any = 1;
                    flips[s]++;
                }
        changes += (size_t)any;
        for (int k = 0; k < 4 * 64; k++) prev[k] = pre[k];
    }
    printf("n=%zu %s: %zu inputs change a mask (unit flips per layer: %zu %zu %zu %zu)\n", n,
           grid ? "grid" : "lags", changes, flips[0], flips[1], flips[2], flips[3]);
    return 0;
}
