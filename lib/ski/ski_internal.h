/* ski_internal.h — helpers shared by the SKI area's source files; not installed. */
#ifndef SKIT_SKI_INTERNAL_H
#define SKIT_SKI_INTERNAL_H

#include "skit/ski.h"
#include "skit/toeplitz.h"

/* ---- the SKI plan (ski.c; its sparse passes in ski_sparse.c) ------------- */

/* The sparse action is two streaming passes, U = W^T X and Y = W V, with the
 * tiny r x r Toeplitz product in between (ski.c says how they are laid out
 * and threaded). */
#define SKI_CHUNK 1024
#define SKI_GROUP 4
#define SKI_BLOCKS_PER_THREAD 4

struct skit_ski_plan {
    size_t n, r, d, count; /* count: number of A matrices (d or 1) */
    size_t width;          /* W's nonzeros per row */
    skit_ski_method method;
    skit_precision precision;
    skit_layout layout;    /* of X and Y (A's U and V are column-major r x d) */
    double *planes;        /* width x n (float64 sparse plans) */
    float *planes32;       /* width x n (float32 plans) */
    int implicit;          /* linear W on the points 0..n-1 with lo, h of the options: the
                              weights follow from i (no weight traffic; the Algorithm 1 case;
                              float64 plans: ski_sparse.c says why) */
    double lo, inv_h;
    double *ramp;          /* 0, 1, ..., SKI_CHUNK - 1 (implicit weights of a run) */
    size_t *run_begin;     /* runs + 1 row indices */
    size_t *run_start;     /* window start of each run */
    size_t runs;
    skit_toeplitz_plan *toeplitz; /* all d channels (phased), or NULL */
    skit_toeplitz_plan **block;   /* blocks plans, block q for channels [d q/blocks, d (q+1)/blocks) */
    size_t blocks;                /* 0: phased */
    skit_workspace *workspace; /* U and V (r x d each, in the plan's precision), lent to one
                                  execute at a time */
    double *dense_w; /* n x r (dense method) */
    double *dense_a; /* r x r x count (dense method) */
    size_t bytes;
};

/* The sparse action Y = W A W^T X on the plan's U and V scratch (r x d
 * each), blocked or phased as the plan was made; ski_sparse.c, compiled
 * again by ski_sparsef.c for float32 plans. Returns the Toeplitz product's
 * status. */
int ski_sparse_run(const skit_ski_plan *p, const double *X, size_t ldx, double *Y, size_t ldy, double *U,
                   double *V);
int ski_sparse_run_f32(const skit_ski_plan *p, const float *X, size_t ldx, float *Y, size_t ldy, float *U,
                       float *V);

/* Deep copy of interpolation weights. */
int ski_weights_copy(const skit_interp_weights *src, skit_interp_weights **dst);
/* Dense r x r Toeplitz matrix A(i, j) = coeffs[i - j + r - 1]. */
void ski_toeplitz_fill(size_t r, const double *coeffs, double *A, size_t lda);
/* SKIT_OK if W looks like the output of skit_interp_weights_create. */
int ski_check_weights(const skit_interp_weights *W);
/* A (r x r), F (n x r), B (r x n), column-major with ld = rows, for the
 * observation points 0..n-1 and r inducing points uniform on [lo, hi]. */
int ski_nystrom_factors(const skit_kernel *kernel, size_t n, size_t r, double lo, double hi,
                        double *A, double *F, double *B);

#endif
