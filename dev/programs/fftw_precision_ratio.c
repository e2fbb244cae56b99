/* fftw_precision_ratio.c — bare FFTW r2c and c2r, float against double, at
 * the lengths of skit's matvec at n = 2^13..2^16 (N = 2n), planned with
 * FFTW_MEASURE and no time limit; median of 15 executions each.
 * gcc -O2 fftw_precision_ratio.c -o fpr -lfftw3 -lfftw3f -lm && ./fpr */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define REPS 15
#define TIME(call, out)                                                                          \
    do {                                                                                         \
        double t_[REPS];                                                                         \
        for (int r_ = 0; r_ < REPS; r_++) {                                                      \
            double a_ = now();                                                                   \
            call;                                                                                \
            t_[r_] = now() - a_;                                                                 \
        }                                                                                        \
        qsort(t_, REPS, sizeof t_[0], cmp);                                                      \
        out = t_[REPS / 2];                                                                      \
    } while (0)

int main(void)
{
    printf("N\tr2c_f64_ms\tr2c_f32_ms\tr2c_ratio\tc2r_f64_ms\tc2r_f32_ms\tc2r_ratio\n");
    for (int N = 1 << 14; N <= 1 << 17; N *= 2) {
        double *x = fftw_alloc_real(N), *y = fftw_alloc_real(N);
        float *xf = fftwf_alloc_real(N), *yf = fftwf_alloc_real(N);
        fftw_complex *z = fftw_alloc_complex(N / 2 + 1);
        fftwf_complex *zf = fftwf_alloc_complex(N / 2 + 1);
        fftw_plan f = fftw_plan_dft_r2c_1d(N, x, z, FFTW_MEASURE), b = fftw_plan_dft_c2r_1d(N, z, y, FFTW_MEASURE);
        fftwf_plan ff = fftwf_plan_dft_r2c_1d(N, xf, zf, FFTW_MEASURE),
                   bf = fftwf_plan_dft_c2r_1d(N, zf, yf, FFTW_MEASURE);
        for (int i = 0; i < N; i++) xf[i] = (float)(x[i] = i < N / 2 ? rand() / (double)RAND_MAX : 0.0);
        double r64, r32, c64, c32;
        TIME(fftw_execute(f), r64);
        TIME(fftwf_execute(ff), r32);
        TIME(fftw_execute(b), c64);
        TIME(fftwf_execute(bf), c32);
        printf("%d\t%.4f\t%.4f\t%.2f\t%.4f\t%.4f\t%.2f\n", N, 1e3 * r64, 1e3 * r32, r64 / r32, 1e3 * c64, 1e3 * c32,
               c64 / c32);
        fftw_destroy_plan(f), fftw_destroy_plan(b), fftwf_destroy_plan(ff), fftwf_destroy_plan(bf);
        fftw_free(x), fftw_free(y), fftw_free(z), fftwf_free(xf), fftwf_free(yf), fftwf_free(zf);
    }
    return 0;
}
