/* tests/example_toeplitz.c — skit used as an installed library: the public
 * header only, linked as `cc prog.c $(pkg-config --cflags --libs skit)`.
 * An FFT Toeplitz matvec against the dense product. make check builds it
 * against the build tree's shared library, scripts/check-install against an
 * installed skit. */
#include <stdio.h>
#include <skit.h>

int main(void)
{
    enum { n = 100 };
    double t[2 * n - 1], x[n], y[n], error = 0, scale = 0; /* t[k + n-1] = t_k */
    for (int k = -(n - 1); k < n; k++) t[k + n - 1] = 1.0 / (1 + (k < 0 ? -2 * k : k));
    for (int i = 0; i < n; i++) x[i] = i % 7 - 3.0;
    skit_toeplitz_plan *plan;
    if (skit_toeplitz_plan_create(&plan, n, n, 1,
                                  &(skit_toeplitz_options){.sharing = SKIT_TOEPLITZ_SHARED,
                                                           .causality = SKIT_BIDIRECTIONAL},
                                  t) ||
        skit_toeplitz_plan_execute(plan, x, n, y, n, NULL)) {
        fprintf(stderr, "skit: %s\n", skit_last_error());
        return 1;
    }
    skit_toeplitz_plan_destroy(plan);
    for (int i = 0; i < n; i++) {
        double dense = 0; /* (T x)_i = sum_j t_{i-j} x_j */
        for (int j = 0; j < n; j++) dense += t[i - j + n - 1] * x[j];
        double d = y[i] - dense;
        error = d > error ? d : -d > error ? -d : error;
        scale = dense > scale ? dense : -dense > scale ? -dense : scale;
    }
    printf("skit %s: Toeplitz matvec, n = %d: max |fft - dense| = %.3g (max |y| %.3g)\n",
           skit_version(), n, error, scale);
    return error <= 1e-12 * scale ? 0 : 1;
}
