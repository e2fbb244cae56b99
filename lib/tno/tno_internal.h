/* tno_internal.h — the token-mixing plan shared by the files of lib/tno. */
#ifndef SKIT_TNO_INTERNAL_H
#define SKIT_TNO_INTERNAL_H

#include "skit/freq.h"
#include "skit/ski.h"
#include "skit/tno.h"

struct skit_tno {
    skit_tno_options opt;
    size_t n, d, batch;
    size_t param_count;
    size_t bytes;
    int threads; /* OpenMP threads at create time */

    /* TNO and FD-TNO: the RPE MLP evaluated at mlp_count points (lib/tno/tno.c
     * explains the layout) */
    skit_mlp *mlp;
    double *mlp_work; /* one feature workspace per thread */
    double *row_ss;   /* threads x MLP outputs: sum of squares per row (the sweep's overflow check) */
    int outputs_by_layers; /* FD: the last outputs sweep saw masks change at over 1 input in 64
                            * (cleared by skit_tno_set_parameters) */
    double *mlp_in;   /* lag (TNO, circulant order) or frequency (FD) of each column */
    double *mlp_out;  /* F ((h+1) x columns: features x column scale, then the scale) and [W b] */
    size_t mlp_count;
    double *backup;  /* param_count: parameters restored if an update fails */

    /* TNO */
    double *decay_pow;  /* column scale of F: lambda^|lag| (TNO), 1/N (FD) */
    double *coeffs;     /* d x (2n-1) coefficients, skit's layout (per-channel device plans, and
                         * CPU plans whose RPE takes the dense path) */
    double *kernels;    /* d x round8(N): the same in circulant order, zero-padded (per-channel
                         * CPU plans with the RPE by the sweep: FFT'd in place of a copy) */
    skit_toeplitz_plan *toeplitz; /* SKI: r x r (the matrices A_c) */

    /* TNO and FD-TNO on the CPU: the circulant engine (spectra + apply) */
    skit_fdtno_plan *fd;

    /* TNO / FD-TNO device plans in the ROWS layout: one sequence channel-major */
    double *xt, *yt; /* d x n each */

    /* SKI-TNO */
    double *params;     /* SKI parameters: knots (d x 2K) then taps (d x m) */
    skit_interp_weights *W;
    size_t r, m, K;
    double spacing;     /* inducing spacing h = (n-1)/(r-1) */
    long *knot_index;   /* 2r-1: left knot j (-K..K-1) of lag (q - (r-1)) h */
    double *knot_frac;  /* 2r-1: position between knots j and j+1 */
    double *a_coeffs;   /* d x (2r-1): A_c's coefficients, skit layout */
    double *a_coeffs_t; /* (2r-1) x d: the same, channel fastest (causal ROWS) */
    double *taps_t;     /* m x d: taps, channel fastest (ROWS) */
    double *u, *v;      /* r x d (ROWS) or d x r (CHANNELS) */
    double *ut, *vt;    /* d x r (ROWS only) */
    double *s;          /* causal: running sums, r x d (ROWS) or d x r */
    size_t chunk;       /* channels per parallel chunk (ROWS) */
    /* causal SKI, blocked: tokens grouped by interpolation stencil */
    size_t groups;        /* G */
    size_t *group_token;  /* G + 1: first token of each group, then n */
    size_t *group_row;    /* G: first stencil row (inducing index) of each group */
    double *gv, *gu;      /* (G * width) x d: group totals and (A S_g) on the stencils */

    /* device = SKIT_DEVICE_CUDA: the device side (lib/cuda/plan_tno.c) */
    void *dev;
};

/* widest interpolation stencil the blocked causal SKI handles (linear: 2) */
#define SKIT_TNO_MAX_WIDTH 16

/* lib/tno/ski_tno.c */
int skit_tno_ski_update(skit_tno *p);
void skit_tno_ski_execute(const skit_tno *p, const double *x, double *y);
/* A_c's coefficients from the knots (fills a_coeffs; shared with the dense
 * reference). */
void skit_tno_ski_compute_a(const skit_tno *p, const double *knots, double *a_coeffs);

/* lib/cuda/plan_tno.c (every build): the device side of a plan with
 * device = SKIT_DEVICE_CUDA. create runs after the CPU side is complete
 * (kernels computed); update uploads the kernels the CPU side recomputed. */
int skit_tno_device_supported(const skit_tno_options *o);
int skit_tno_device_create(skit_tno *p);
int skit_tno_device_update(skit_tno *p);
int skit_tno_device_execute(const skit_tno *p, const double *x, double *y);
void skit_tno_device_destroy(skit_tno *p);
size_t skit_tno_device_bytes(const skit_tno *p);
size_t skit_tno_device_fft_length(const skit_tno *p);

/* lib/tno/tno.c: a TNO's d x (2n-1) coefficients (skit's layout) from its
 * current RPE features and output layer (the pushdown path keeps none) */
int skit_tno_rpe_coeffs(const skit_tno *p, double *coeffs);
/* lib/tno/tno.c: SKIT_ENONFINITE unless every channel's sum of |coeffs|
 * (d x per row-major) is finite */
int skit_tno_check_coeffs(const double *coeffs, size_t d, size_t per, const char *what);
/* lib/tno/tno.c: dst (cols x rows, row-major) = src^T, src rows x cols
 * row-major, blocked and OpenMP-parallel */
void skit_tno_transpose(const double *src, size_t rows, size_t cols, double *dst);
/* the same with leading dimensions: dst[j*ldd + i] = src[i*lds + j] */
void skit_tno_transpose_ld(const double *src, size_t rows, size_t cols, size_t lds, double *dst,
                           size_t ldd);

#endif
