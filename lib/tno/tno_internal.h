/* tno_internal.h — shared by the files of lib/tno only.
 *
 * A token-mixing plan is a shared front (plan.c: options, parameters,
 * create / update / execute / destroy, queries) over one operator, reached
 * through a table of functions like the attention methods': TNO
 * (tno_fft.c), FD-TNO (tno_fd.c), SKI-TNO bidirectional (ski.c) and causal
 * (ski_causal.c). TNO and FD-TNO share the RPE evaluation (rpe.c) and run
 * on the circulant engine (lib/fft); SKI-TNO's two forms share their
 * set-up (ski.c). device.c is the CUDA side of a plan with device = cuda. */
#ifndef SKIT_TNO_INTERNAL_H
#define SKIT_TNO_INTERNAL_H

#include "core/internal.h"
#include "core/transpose.h"
#include "fft/circulant.h"
#include "skit/ski.h"
#include "skit/tno.h"

typedef struct tno_ops tno_ops;
typedef struct tno_backward_ops tno_backward_ops;

struct skit_tno_plan {
    skit_tno_options opt;
    size_t n, d, batch;
    size_t param_count;
    size_t bytes;
    int threads;               /* OpenMP threads at create time */
    const tno_ops *ops;
    void *op;                  /* the operator's state */
    double *backup;            /* param_count: restored if new parameters fail */
    skit_workspace *workspace; /* the execute's scratch, lent one call at a time */
    void *dev;                 /* device = SKIT_DEVICE_CUDA: device.c's state */
    void *grad;                /* the backward's state (ops->backward) */
};

/* What each operator provides. Arguments are validated by the front. */
struct tno_ops {
    /* doubles create will allocate for the operator (added to the front's
     * estimate, which is checked against available memory first) */
    int (*estimate)(const skit_tno_plan *p, size_t *doubles);
    /* allocate p->op and compute the kernels (params NULL: generated) */
    int (*create)(skit_tno_plan *p, const double *params);
    void (*destroy)(skit_tno_plan *p);
    /* copy the parameters out / in (in: no update) */
    int (*get_parameters)(const skit_tno_plan *p, double *params);
    int (*put_parameters)(skit_tno_plan *p, const double *params);
    /* kernels from the parameters, with work (workspace_doubles) as
     * scratch; on error the front restores the parameters and updates
     * again */
    int (*update)(skit_tno_plan *p, double *work);
    /* the RPE alone (skit_tno_plan_eval_rpe); NULL: the operator has none */
    int (*eval_rpe)(skit_tno_plan *p, size_t *points);
    /* doubles of scratch one execute needs; execute: y = op(x) for the
     * plan's batch, x and y in the plan's layout */
    size_t (*workspace_doubles)(const skit_tno_plan *p);
    void (*execute)(const skit_tno_plan *p, const double *x, double *y, double *work);
    /* float32 plans (NULL: the operator has none): the float engine and
     * buffers after create (update then writes the float spectra only);
     * execute on float arrays (work: workspace_doubles, used as floats) */
    int (*create_f32)(skit_tno_plan *p);
    void (*execute_f32)(const skit_tno_plan *p, const float *x, float *y, float *work);
    /* d x (2n-1) Toeplitz coefficients (skit_tno_plan_coeffs); NULL: not Toeplitz */
    int (*coeffs)(const skit_tno_plan *p, double *coeffs);
    /* the n x n matrix of channel c, causal mask applied (not Toeplitz only) */
    int (*dense)(const skit_tno_plan *p, size_t c, double *T, size_t ldt);
    size_t (*bytes)(const skit_tno_plan *p);
    /* the operator's settings after the front's description */
    void (*describe)(const skit_tno_plan *p, char *text, size_t size);
    /* the vector-Jacobian product (backward.c); NULL: none */
    const tno_backward_ops *backward;
};

/* An operator's backward (skit_tno_plan_backward): x, dy and dx in the
 * CHANNELS layout (the front converts ROWS); dx, dparams, dlambda may be
 * NULL; work: workspace_doubles, 64-byte aligned. */
struct tno_backward_ops {
    int (*create)(skit_tno_plan *p); /* p->grad */
    void (*destroy)(skit_tno_plan *p);
    size_t (*workspace_doubles)(const skit_tno_plan *p);
    int (*run)(const skit_tno_plan *p, const double *x, const double *dy, double *dx, double *dparams,
               double *dlambda, double *work);
    /* float32 plans (NULL: none): float data, float64 parameter gradients */
    int (*run_f32)(const skit_tno_plan *p, const float *x, const float *dy, float *dx, double *dparams,
                   double *dlambda, double *work);
    /* float32 ROWS plans that takes_rows_f32 (NULL: none): run_f32 on the
     * ROWS data itself, which the front then does not transpose */
    int (*takes_rows_f32)(const skit_tno_plan *p);
    int (*run_rows_f32)(const skit_tno_plan *p, const float *x, const float *dy, float *dx, double *dparams,
                        double *dlambda, double *work);
};

extern const tno_backward_ops tno_spectral_backward, tno_ski_backward;

extern const tno_ops tno_fft_ops, tno_fd_ops, tno_ski_ops, tno_ski_causal_ops;

/* TNO: recompute the decay's column scale from p->opt.decay (the kernels
 * follow at the next update). */
void tno_fft_set_decay(skit_tno_plan *p);

/* ---- TNO and FD-TNO: the RPE and the spectra (rpe.c) -------------------
 * The RPE ends in a Linear layer and, for TNO, the decay lambda^|t| is one
 * scalar per lag for all channels, so channel c's kernel is
 *     k_c(t) = sum_j W[c][j] g_j(t) + b[c] lambda^|t|,  g_j = lambda^|t| z_j(t),
 * with z_j the activations entering the output layer (the "features",
 * mlp/batch.h). The features times the column scale (TNO: the decay; FD:
 * 1/N), plus the scale itself as row h, form F ((h+1) x cols). DFTs and
 * the Hilbert step are linear, so an operator may apply [W b] (out x
 * (h+1)) after transforming F's rows when that is cheaper ("pushdown"). */
typedef struct tno_rpe {
    skit_mlp *mlp;
    size_t width;    /* h */
    size_t outputs;  /* the MLP's out_dim */
    size_t cols, ld; /* columns of F (TNO: N lags in circulant order; FD: N/2+1) and F's row stride */
    size_t count;    /* inputs evaluated: the columns of the segments */
    int nseg;        /* the evaluated column ranges */
    size_t start[2], len[2];
    double *in;      /* cols: the lag or frequency of each column */
    double *scale;   /* cols: the column scale */
    double *F;       /* (h+1) x ld (float64 plans; NULL on float32 ones) */
    double *wb;      /* [W b] (outputs x (h+1); float64 plans) */
    float *Ff;       /* float32 plans: F in float, (h+1) x ldf, then [W b] rounded (wbf) */
    float *wbf;
    size_t ldf;
    double *work;    /* threads x the MLP's outputs workspace */
    double *row_ss;  /* threads x outputs: each row's sum of squares (the sweep's checks) */
    int threads;
    int single;      /* a float32 plan's: F, [W b] and the MLP's sweep in float */
    int outputs_f32; /* ... whose outputs come by the float sweep (tno_rpe_keep_outputs_f32) */
    size_t features_params; /* the hidden layers' parameters (their float copy) */
} tno_rpe;

/* The state of a TNO or FD-TNO plan. */
typedef struct tno_spectral {
    tno_rpe rpe;
    size_t length;          /* N, the circulant length */
    size_t basis_rows;      /* rows of the engines' basis (FD causal: the Hilbert images of F) */
    skit_circulant *engine; /* NULL on TNO device plans and on float32 plans */
    skit_circulantf *engine_f; /* float32 plans: executes on the spectra rounded */
    double *coeffs;         /* d x (2n-1), skit's layout (per-channel device plans, and CPU
                             * plans whose RPE takes the layers' path) */
    double *kernels;        /* d x round8(N): circulant order (per-channel CPU plans with the
                             * RPE by the sweep: FFT'd in place of a copy) */
    int outputs_by_layers;  /* FD: the last outputs sweep saw masks change often */
    float *kernels_f;       /* float32 causal TNO at d <= 2(h+1): d x kernels_f_ld kernels in
                             * circulant order (lags 0..n-1; the zeros stay) */
    size_t kernels_f_ld;
} tno_spectral;

int tno_rpe_create(tno_rpe *rpe, const skit_tno_plan *p, const double *params, size_t cols,
                   size_t outputs);
void tno_rpe_destroy(tno_rpe *rpe);
size_t tno_rpe_bytes(const tno_rpe *rpe);
/* doubles += sum of rows x cols over count terms; *overflow = 1 if a
 * product or the sum overflows (the operators' memory estimates) */
void tno_add_terms(const size_t (*terms)[2], size_t count, size_t *doubles, int *overflow);
/* the doubles tno_rpe_create allocates for cols columns and outputs rows */
void tno_rpe_estimate(const skit_tno_plan *p, size_t cols, size_t outputs, size_t *doubles,
                      int *overflow);
/* whether the MLP's outputs come by the sweep (ReLU, one input) */
int tno_rpe_sweeps(const tno_rpe *rpe);
/* F's rows 0..h-1 at every evaluated column (row h is constant); on
 * float32 plans Ff's, by the float sweep */
int tno_rpe_features(const tno_rpe *rpe);
/* [W b] from the MLP's output layer */
void tno_rpe_fill_wb(tno_rpe *rpe);
/* The MLP's outputs by the sweep over nseg column segments (start, len):
 * output r of the k-th column of segment s, times the column scale, to
 * out[(r % split) ld + (r / split) part + lo[s] + k]; row_ss then holds
 * each row's sum of squares; *changes (NULL: none) the mask changes. */
int tno_rpe_sweep(tno_rpe *rpe, int nseg, const size_t *start, const size_t *len, double *out, size_t ld,
                  const size_t *lo, size_t split, size_t part, size_t *changes);
/* The same by the float sweep, to floats (float32 plans). */
int tno_rpe_sweep_f32(tno_rpe *rpe, int nseg, const size_t *start, const size_t *len, float *out, size_t ld,
                      const size_t *lo, size_t split, size_t part, size_t *changes);
/* After tno_rpe_sweep: every row's 2-norm finite and <= limit, else
 * SKIT_ENONFINITE naming the channel (row % d). */
int tno_rpe_check_rows(const tno_rpe *rpe, size_t d, double limit, const char *what);
/* Before a GEMM writes spectra: every row c of A (m x k, lda) times the k
 * rows of B (cols wide, ldb) is bounded by sum_j |A[c][j]| max|B_j|;
 * SKIT_ENONFINITE unless that is finite with room for N^2 (a Hilbert
 * step's FFTs). Uses rpe->work as scratch. */
int tno_rpe_check_bound(const tno_rpe *rpe, size_t d, double N, const double *A, size_t lda, size_t m,
                        size_t k, const double *B, size_t ldb, size_t cols, const char *what);
/* C = A B (row-major), split over the RPE's threads by columns (the
 * output layer) or by rows of A in multiples of 8 (spectra GEMMs: the rows
 * apply hands each thread the same contiguous channels). */
void tno_gemm_cols(const tno_rpe *rpe, size_t m, size_t cols, size_t k, const double *A, size_t lda,
                   const double *B, size_t ldb, double *C, size_t ldc);
void tno_gemm_rows(const tno_rpe *rpe, size_t m, size_t cols, size_t k, const double *A, size_t lda,
                   const double *B, size_t ldb, double *C, size_t ldc);
void tno_sgemm_rows(const tno_rpe *rpe, size_t m, size_t cols, size_t k, const float *A, size_t lda,
                    const float *B, size_t ldb, float *C, size_t ldc);
/* Float32 plans, after tno_rpe_features and tno_rpe_fill_wb: [W b]
 * rounded to wbf, for the float engine's transforms of Ff's h+1 rows and
 * sgemm to combine. Checked first: each row's ||F_j||_1
 * bounds its DFT (and, on FD's grid, its values), so sum_j |[W b]_cj|
 * ||F_j||_1 bounds output c's spectrum, which must be finite in float with
 * room 4 N^2 for the transforms (a Hilbert step's and the product's);
 * else SKIT_ENONFINITE (Ff is then scratch, the spectra unchanged). Uses
 * rpe->work. */
int tno_rpe_check_f32(tno_rpe *rpe, double N, const char *what);
/* A float32 plan that takes the outputs by the float sweep: the output
 * layer's float copy and the outputs' scratch. */
int tno_rpe_keep_outputs_f32(tno_rpe *rpe);
/* Row h of F (float64 plans) or Ff (float32 plans): the column scale. */
void tno_rpe_fill_scale_row(tno_rpe *rpe);

/* The parameters (the MLP's), the RPE alone, and execute (the engine on
 * the plan's layout), shared by both. */
int tno_spectral_get_parameters(const skit_tno_plan *p, double *params);
int tno_spectral_put_parameters(skit_tno_plan *p, const double *params);
int tno_spectral_eval_rpe(skit_tno_plan *p, size_t *points);
size_t tno_spectral_workspace(const skit_tno_plan *p);
void tno_spectral_execute(const skit_tno_plan *p, const double *x, double *y, double *work);
/* The float engine (basis_rows for the pushdown's transforms) and the
 * RPE's float buffers of a float32 plan. */
int tno_spectral_create_f32(skit_tno_plan *p, size_t basis_rows);
void tno_spectral_execute_f32(const skit_tno_plan *p, const float *x, float *y, float *work);
/* d x (2n-1) coefficients (skit_tno_plan_coeffs) from the spectra the
 * plan applies: FD-TNO's, and float32 TNO's. */
int tno_spectral_coeffs(const skit_tno_plan *p, double *coeffs);
/* The spectra and their total doubles (tests poison them). */
double *tno_spectral_spectra(skit_tno_plan *p, size_t *doubles);

/* ---- helpers ------------------------------------------------------------ */

/* SKIT_ENONFINITE unless every channel's sum of |coeffs| (d x per
 * row-major) is finite: then so are the FFTs of the kernels. */
int tno_check_coeffs(const double *coeffs, size_t d, size_t per, const char *what);
const char *tno_activation_name(skit_activation a);
const char *tno_norm_name(skit_norm norm);
size_t tno_round8(size_t v);
/* Doubles a region of a workspace takes: whole cache lines and one more,
 * so that regions a multiple of 4 KiB long do not start at the same offset
 * in a page (the loads of one would alias the stores of another). */
static inline size_t tno_region(size_t doubles)
{
    return (doubles + 7) / 8 * 8 + 8;
}

/* ---- SKI-TNO (ski.c) ------------------------------------------------------ */

/* widest interpolation stencil the blocked causal SKI handles (linear: 2) */
#define SKIT_TNO_MAX_WIDTH 16

/* A float32 SKI-TNO plan's data, rounded from the float64 ones once
 * (weights at create, the rest at each update). */
typedef struct tno_ski_f32 {
    float *weights;         /* n x width */
    float *taps, *taps_t;   /* d x m and m x d */
    float *a_coeffs;        /* d x (2r-1) */
    float *a_coeffs_t;      /* (2r-1) x d (causal) */
    skit_circulantf *engine; /* bidirectional: A_c's spectra in float */
    double w_norm1;         /* ||W||_1, the largest column sum */
} tno_ski_f32;

typedef struct tno_ski {
    double *params;     /* knots (d x 2K) then taps (d x m) */
    skit_interp_weights *W;
    size_t r, m, K;
    double spacing;     /* inducing spacing h = (n-1)/(r-1) */
    long *knot_index;   /* 2r-1: left knot j (-K..K-1) of lag (q - (r-1)) h */
    double *knot_frac;  /* 2r-1: position between knots j and j+1 */
    double *a_coeffs;   /* d x (2r-1): A_c's coefficients, skit's layout (float64 plans) */
    double *a_coeffs_t; /* (2r-1) x d: the same, channel fastest (causal ROWS; float64 plans) */
    double *taps_t;     /* m x d: taps, channel fastest (ROWS) */
    skit_toeplitz_plan *toeplitz; /* bidirectional: the r x r matrices A_c */
    size_t chunk;       /* channels per parallel chunk (ROWS) */
    /* causal, blocked: tokens grouped by interpolation stencil */
    size_t groups;       /* G */
    size_t *group_token; /* G + 1: first token of each group, then n */
    size_t *group_row;   /* G: first stencil row (inducing index) of each group */
    tno_ski_f32 f32;     /* float32 plans */
} tno_ski;

/* The shared set-up of both forms (ski.c): create_common allocates the
 * state with everything but the form's own buffers. */
int tno_ski_create_common(skit_tno_plan *p, const double *params);
void tno_ski_destroy(skit_tno_plan *p);
int tno_ski_get_parameters(const skit_tno_plan *p, double *params);
int tno_ski_put_parameters(skit_tno_plan *p, const double *params);
/* A_c's coefficients and the transposed taps from the parameters */
/* a: d x (2r-1) doubles (the plan's a_coeffs; float32 plans' workspace) */
int tno_ski_update_common(skit_tno_plan *p, double *a);
void tno_ski_compute_a(const skit_tno_plan *p, const double *knots, double *a_coeffs);
int tno_ski_dense(const skit_tno_plan *p, size_t c, double *T, size_t ldt);
size_t tno_ski_bytes(const skit_tno_plan *p);
void tno_ski_estimate_common(const skit_tno_plan *p, size_t *doubles, int *overflow);
void tno_ski_describe(const skit_tno_plan *p, char *text, size_t size);
/* The arithmetic of a call (ski_apply.c, compiled for both precisions):
 * the bidirectional and the causal forms on the plan's batch and layout,
 * and the workspace each takes, in values of its precision. */
void tno_ski_bidirectional_execute(const skit_tno_plan *p, const double *x, double *y, double *work);
void tno_ski_bidirectional_execute_f32(const skit_tno_plan *p, const float *x, float *y, float *work);
size_t tno_ski_bidirectional_workspace(const skit_tno_plan *p);
size_t tno_ski_bidirectional_workspace_f32(const skit_tno_plan *p);
void tno_ski_causal_execute(const skit_tno_plan *p, const double *x, double *y, double *work);
void tno_ski_causal_execute_f32(const skit_tno_plan *p, const float *x, float *y, float *work);
size_t tno_ski_causal_workspace(const skit_tno_plan *p);
size_t tno_ski_causal_workspace_f32(const skit_tno_plan *p);
/* Float32 plans: the float buffers (and, bidirectional, A's fftwf engine)
 * after create; update_f32 rounds the float64 kernels update_common left
 * (work: the plan's workspace, as floats); the magnitudes of
 * skit_tno_plan_f32_error_scale. */
int tno_ski_create_f32(skit_tno_plan *p);
void tno_ski_destroy_f32(tno_ski_f32 *f);
int tno_ski_update_f32(skit_tno_plan *p, const double *a, float *work);
/* doubles of a float32 plan's workspace: the form's floats, and room for
 * A's float64 coefficients during update */
size_t tno_ski_workspace_f32(const skit_tno_plan *p, size_t floats);
int tno_ski_f32_error_scale(const skit_tno_plan *p, double *scale, size_t *fft_length);
/* U = W^T X (transpose) or Y = W V on count channel-major float sequences
 * (n, or r, values each) with the float weights (ski_apply.c). */
void tno_ski_interp_f32(const skit_tno_plan *p, int transpose, size_t count, const float *in, float *out);
/* The bidirectional float32 backward of one ROWS sequence (ski_apply.c):
 * gt = (W^T dY)^T (d x r); dX = W A^T W^T dY + S^T dY (dX may be NULL);
 * ut = (W^T X)^T (NULL: none); acc[k d + c] += the taps' gradient (m x
 * d doubles; NULL: none). work: tno_ski_backward_rows_workspace_f32 floats. */
size_t tno_ski_backward_rows_workspace_f32(const skit_tno_plan *p);
void tno_ski_backward_rows_f32(const skit_tno_plan *p, const float *X, const float *dY, float *dX, float *ut,
                               float *gt, double *acc, float *work);
/* The backward (ski_backward.c, compiled again by ski_backwardf.c for the
 * float32 plans' run_f32 and its workspace in doubles), and the transpose
 * of tno_ski_compute_a for one channel: dknots (2K) += from da (2r-1). */
int tno_ski_backward_run_f32(const skit_tno_plan *p, const float *x, const float *dy, float *dx, double *dparams,
                             double *dlambda, double *work);
size_t tno_ski_backward_workspace_f32(const skit_tno_plan *p);
int tno_ski_backward_takes_rows_f32(const skit_tno_plan *p);
int tno_ski_backward_run_rows_f32(const skit_tno_plan *p, const float *x, const float *dy, float *dx,
                                  double *dparams, double *dlambda, double *work);
void tno_ski_knots_backward(const tno_ski *s, const double *da, double *dknots);

/* ---- the device side (device.c) -------------------------------------------
 * create runs after the CPU side is complete (kernels computed); update
 * uploads what the CPU side recomputed. */
int tno_device_supported(const skit_tno_options *o);
int tno_device_create(skit_tno_plan *p);
int tno_device_update(skit_tno_plan *p);
int tno_device_execute(const skit_tno_plan *p, const double *x, double *y);
void tno_device_destroy(skit_tno_plan *p);
size_t tno_device_bytes(const skit_tno_plan *p);
size_t tno_device_fft_length(const skit_tno_plan *p);
/* doubles the device side allocates on the host (for the estimate) */
size_t tno_device_host_estimate(const skit_tno_options *o, size_t n, size_t d);

#endif
