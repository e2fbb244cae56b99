/* f32_floor.c — one operator shape, float32, one thread: skit's forward
 * (skit_tno_plan_forward_f32: kernels from the parameters, then applied),
 * skit's apply with the kernels cached (skit_tno_plan_execute_f32), and
 * the floor of any FFTW implementation of the same forward: the plain
 * per-channel loop of FFTW float transforms at the peer's length 2n
 * (copy x_c into a zero-padded buffer, r2c, product with a cached
 * spectrum, c2r, copy n outputs), planned FFTW_PATIENT (or MEASURE: FLOOR below), on channel-major
 * data (no transpose counted), the kernels' computation not counted.
 * Also the bare transforms alone (one r2c and one c2r a channel, no
 * copies, no product): a lower bound on any implementation by FFTW's
 * transforms at that length. Median of REPS calls each, interleaved. The loop's output is checked
 * against a direct sum on its first channel, so the floor computes the
 * product it claims.
 *   gcc -O2 -I lib -I build dev/programs/f32_floor.c -o f32_floor -L build/.libs -lskit -lfftw3f -lm
 *   ./f32_floor OP CAUSAL N D BATCH [PLANNER [LAYOUT [FLOOR]]]
 * OP tno | fd; CAUSAL 0 | 1; skit's PLANNER measure (default, at 0.25 s
 * per transform, as skit bench tno), measure-nolimit or patient (no time
 * limit); LAYOUT rows (default) or channels; FLOOR, the floor loop's and
 * bare transforms' planner: patient (default, no time limit) or measure
 * (at 0.25 s per transform, as skit's default).
 * prints: skit_forward_s skit_apply_s floor_s transforms_s check */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skit/core.h"
#include "skit/fft.h"
#include "skit/tno.h"

#define REPS 15

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

static double median(double *t, int count)
{
    qsort(t, (size_t)count, sizeof t[0], cmp);
    return t[count / 2];
}

typedef struct loop {
    size_t n, L, channels;
    float *buf, *x, *y;
    fftwf_complex *z, *spectra;
    fftwf_plan r2c, c2r;
} loop;

static void loop_run(const loop *l)
{
    const size_t n = l->n, L = l->L, half = L / 2 + 1;
    for (size_t c = 0; c < l->channels; c++) {
        memcpy(l->buf, l->x + c * n, n * sizeof(float));
        memset(l->buf + n, 0, (L - n) * sizeof(float));
        fftwf_execute(l->r2c);
        const fftwf_complex *s = l->spectra + c * half;
        for (size_t k = 0; k < half; k++) {
            float re = l->z[k][0] * s[k][0] - l->z[k][1] * s[k][1];
            float im = l->z[k][0] * s[k][1] + l->z[k][1] * s[k][0];
            l->z[k][0] = re;
            l->z[k][1] = im;
        }
        fftwf_execute(l->c2r);
        memcpy(l->y + c * n, l->buf, n * sizeof(float));
    }
}

static void transforms_run(const loop *l)
{
    for (size_t c = 0; c < l->channels; c++) {
        fftwf_execute(l->r2c);
        fftwf_execute(l->c2r);
    }
}

/* max |loop - direct| / max |direct| on channel 0, kernel k (L values) */
static double loop_check(loop *l, const float *k)
{
    const size_t n = l->n, L = l->L;
    double err = 0, big = 0;
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t j = 0; j < n; j++) s += (double)k[(i - j + L) % L] * l->x[j];
        err = fmax(err, fabs(s - l->y[i]));
        big = fmax(big, fabs(s));
    }
    return err / big;
}

int main(int argc, char **argv)
{
    const char *usage = "usage: f32_floor tno|fd 0|1 N D BATCH [measure|measure-nolimit|patient [rows|channels "
                        "[patient|measure]]]; N >= 2, D, BATCH >= 1\n";
    const char *planner = argc > 6 ? argv[6] : "measure", *layout = argc > 7 ? argv[7] : "rows",
               *floor_planner = argc > 8 ? argv[8] : "patient";
    const long nl = argc > 5 ? atol(argv[3]) : 0, dl = argc > 5 ? atol(argv[4]) : 0, bl = argc > 5 ? atol(argv[5]) : 0;
    if (argc < 6 || argc > 9 || (strcmp(argv[1], "tno") && strcmp(argv[1], "fd")) ||
        (strcmp(argv[2], "0") && strcmp(argv[2], "1")) || nl < 2 || nl > (1L << 24) || dl < 1 || bl < 1 ||
        (strcmp(planner, "measure") && strcmp(planner, "measure-nolimit") && strcmp(planner, "patient")) ||
        (strcmp(layout, "rows") && strcmp(layout, "channels")) ||
        (strcmp(floor_planner, "patient") && strcmp(floor_planner, "measure"))) {
        fputs(usage, stderr);
        return 2;
    }
    const int fd = strcmp(argv[1], "fd") == 0, causal = argv[2][0] == '1';
    const size_t n = (size_t)nl, d = (size_t)dl, batch = (size_t)bl;
    const size_t L = 2 * n, half = L / 2 + 1, T = n * d * batch;

    /* skit, by default as skit bench tno plans it: MEASURE, 0.25 s per transform */
    const int patient = strcmp(planner, "patient") == 0, nolimit = strcmp(planner, "measure-nolimit") == 0;
    const int channels = strcmp(layout, "channels") == 0, floor_measure = strcmp(floor_planner, "measure") == 0;
    skit_fft_set_time_limit(patient || nolimit ? -1.0 : 0.25);
    skit_tno_options o;
    skit_tno_options_default(&o, fd ? SKIT_TNO_FD : SKIT_TNO_FFT);
    o.causality = causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    o.precision = SKIT_PRECISION_F32;
    o.planner = patient ? SKIT_PLANNER_PATIENT : SKIT_PLANNER_MEASURE;
    if (channels) o.layout = SKIT_TNO_CHANNELS;
    skit_tno_plan *p = NULL;
    if (skit_tno_plan_create(&p, n, d, batch, &o, NULL, 0)) {
        fprintf(stderr, "f32_floor: %s\n", skit_last_error());
        return 1;
    }
    float *x = malloc(T * sizeof(float)), *y = malloc(T * sizeof(float));
    void *work = skit_malloc(skit_tno_plan_workspace_bytes(p) + 1, 1);
    for (size_t i = 0; i < T; i++) x[i] = (float)(rand() / (double)RAND_MAX - 0.5);

    /* the floor loop: batch x d channels, random kernels' spectra */
    loop l = {.n = n, .L = L, .channels = batch * d};
    fftwf_set_timelimit(floor_measure ? 0.25 : -1.0);
    l.buf = fftwf_alloc_real(L);
    l.z = fftwf_alloc_complex(half);
    l.spectra = fftwf_alloc_complex(half * l.channels);
    l.x = x;
    l.y = malloc(T * sizeof(float));
    l.r2c = fftwf_plan_dft_r2c_1d((int)L, l.buf, l.z, floor_measure ? FFTW_MEASURE : FFTW_PATIENT);
    l.c2r = fftwf_plan_dft_c2r_1d((int)L, l.z, l.buf, floor_measure ? FFTW_MEASURE : FFTW_PATIENT);
    float *k0 = malloc(L * sizeof(float));
    for (size_t c = 0; c < l.channels; c++) {
        for (size_t i = 0; i < L; i++) l.buf[i] = (float)((rand() / (double)RAND_MAX - 0.5) / (1.0 + (double)i));
        if (c == 0) memcpy(k0, l.buf, L * sizeof(float));
        fftwf_execute(l.r2c);
        for (size_t k = 0; k < half; k++) { /* 1/L folded into the spectrum */
            l.spectra[c * half + k][0] = l.z[k][0] / (float)L;
            l.spectra[c * half + k][1] = l.z[k][1] / (float)L;
        }
    }

    double tf[REPS], ta[REPS], tl[REPS], tt[REPS];
    skit_tno_plan_forward_f32(p, x, y); /* warm-up */
    loop_run(&l);
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        if (skit_tno_plan_forward_f32(p, x, y)) {
            fprintf(stderr, "f32_floor: %s\n", skit_last_error());
            return 1;
        }
        double t1 = now();
        if (skit_tno_plan_execute_f32(p, x, y, work)) {
            fprintf(stderr, "f32_floor: %s\n", skit_last_error());
            return 1;
        }
        double t2 = now();
        loop_run(&l);
        double t3 = now();
        transforms_run(&l);
        double t4 = now();
        tf[r] = t1 - t0, ta[r] = t2 - t1, tl[r] = t3 - t2, tt[r] = t4 - t3;
    }
    loop_run(&l); /* transforms_run left the buffers' contents undefined */
    printf("%.6g\t%.6g\t%.6g\t%.6g\t%.2g\n", median(tf, REPS), median(ta, REPS), median(tl, REPS),
           median(tt, REPS), loop_check(&l, k0));
    return 0;
}
