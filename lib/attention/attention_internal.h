/* attention_internal.h — pieces shared by the sources in lib/attention; not installed. */
#ifndef SKIT_ATTENTION_INTERNAL_H
#define SKIT_ATTENTION_INTERNAL_H

#include <stdint.h>

#include "core/internal.h"
#include "skit/attention.h"

/* OpenBLAS (0.3.x) runs a GEMM of at most 2^18 multiply-adds on the calling
 * thread; larger ones go to its own thread pool. Loops that call GEMMs from
 * inside an OpenMP region therefore stay below this size, or run serially
 * and let OpenBLAS thread each GEMM: never both at once (oversubscription,
 * and the pthread build serialises concurrent threaded calls). */
#define ATTN_GEMM_SERIAL_LIMIT 262144.0

/* Number of OpenMP threads a plan may use (1 without OpenMP). */
int attn_max_threads(void);
int attn_thread_id(void);

/* Tile side for a dense sweep with head dimension d and value dimension dv:
 * the largest power of two in [16, 64] whose tile GEMMs stay on one thread;
 * *parallel is 1 if OpenMP over query tiles is safe (see above). */
size_t attn_dense_tile(size_t d, size_t dv, int *parallel);

/* The block-sparse online-softmax sweep every tiled method shares.
 * For each query tile X (rows X*t .. X*t+t-1 of an n-token sequence, the
 * last tile may be shorter) and each key tile Y in its list, it computes
 * T = scale Q_X K_Y^T (one GEMM), drops excluded entries (key weight 0,
 * |i - j| > band, or j > i when causal), and folds them into per-row
 * running state:
 *   m[i]   = max logit seen (-inf if none),
 *   den[i] = sum_j w_j exp(P_ij - m[i] - bias),
 *   num[i,:] = sum_j w_j exp(P_ij - m[i] - bias) V_j   (one GEMM per tile),
 *   lsum[i] = sum_j w_j exp(P_ij - m[i] - bias) P_ij   (optional, entropy),
 * rescaling the old state whenever m[i] grows (flash-attention style).
 * Nothing is normalised: callers divide num by den or merge several sweeps
 * with their own shifts.
 * K and V are first packed tile by tile into contiguous t x d / t x dv
 * blocks, and each query tile and its accumulator live in the thread's
 * scratch: column-major inputs with a large leading dimension would
 * otherwise touch one page per column in every tile GEMM. */
typedef struct attn_sweep {
    size_t n, d, dv, t;
    const double *q, *k, *v; /* v may be NULL when dv = 0 */
    size_t ldq, ldk, ldv;
    double scale, bias;
    const double *key_weight; /* n weights >= 0 (0 excludes the key) or NULL = all 1 */
    long band;                /* >= 0: only |i - j| <= band; < 0: no band */
    int causal;               /* 1: only keys j <= i (the decoder's mask) */
    const size_t *row_ptr;    /* CSR over query tiles (ceil(n/t) + 1) or NULL = dense */
    const uint32_t *cols;     /* key tile indices, ascending within a row */
    double *num;              /* n x dv, ldnum >= n (may be NULL when dv = 0) */
    size_t ldnum;
    double *m, *den, *lsum;   /* n each; lsum may be NULL */
    double *work;             /* attn_sweep_work_count(...) doubles */
    int threads, parallel;
} attn_sweep;

/* A skit_attention_mask's causal flag is 0 or 1 (NULL: no mask): else
 * SKIT_EDOM naming it. */
int attn_check_mask(const skit_attention_mask *mask);

/* The n x n softmax matrix of scale Q K^T into s (ld lds) under a padding
 * mask (NULL: none; masked keys and rows 0) and, if causal, with the
 * entries j > i 0; scratch: 2n doubles. */
void attn_softmax_matrix(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                         size_t ldk, double scale, const unsigned char *mask, int causal,
                         double *s, size_t lds, double *scratch);

/* Doubles of scratch a sweep needs (packed K, V and per-thread tiles);
 * SKIT_EOVERFLOW (raised) if the count overflows. */
int attn_sweep_work_count(size_t n, size_t t, size_t d, size_t dv, int threads, size_t *count);
void attn_sweep_run(const attn_sweep *s);

/* The sweep's step, for callers that order the (query tile, key tile)
 * pairs themselves (MRA runs them key tile by key tile): folds key tile Y,
 * packed into kt (t x d) and vt (t x dv), ld t, into the running state of
 * the query tile at rows i0 .. i0+ti-1, whose packed rows are qt (ld t).
 * T (t x t) and rowmax, dsum, lsum (t each) are scratch; m, den, ls (ti
 * each) and acc (ld t, dv columns) the state. */
typedef struct attn_sweep_state {
    double *T, *rowmax, *dsum, *lsum, *m, *den, *ls, *qt, *acc;
} attn_sweep_state;
void attn_sweep_tile(const attn_sweep *s, const attn_sweep_state *w, size_t i0, size_t ti,
                     size_t Y, const double *kt, const double *vt);
/* Copies rows r0..r0+rows-1 of x (ld ldx, cols columns) into a t-row block
 * (ld t), as the sweep packs its tiles. */
void attn_pack_rows(const double *x, size_t ldx, size_t r0, size_t rows, size_t cols, size_t t,
                    double *out);
/* y[i, :] = num[i, :] / den[i]; rows with den = 0 or a 0 in mask become 0.
 * num may alias y (same ld). */
void attn_normalise(size_t n, size_t dv, const double *num, size_t ldnum, const double *den,
                    const unsigned char *mask, double *y, size_t ldy);

/* Argument checks shared by the public functions. */
int attn_check_qk(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                  size_t ldk);
int attn_check_v(size_t n, size_t dv, const double *v, size_t ldv);
/* The same without the NaN/Inf scans (for plans with checks_inputs). */
int attn_check_qk_shape(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                        size_t ldk);
int attn_check_v_shape(size_t n, size_t dv, const double *v, size_t ldv);
int attn_check_out(size_t n, size_t dv, const double *y, size_t ldy, const char *name);
int attn_check_scale(double scale);

/* Row-wise softmax of a rows x cols column-major block in place; columns
 * with col_ok[j] = 0 get 0 (col_ok NULL = all valid); rows without a valid
 * column become 0. */
void attn_softmax_rows(size_t rows, size_t cols, double *a, size_t lda,
                       const unsigned char *col_ok, double *rowmax_scratch);

/* Top-M selection by a total order: orders idx[0..count) so that its first
 * M entries are the M best by (key desc, index asc). key[idx] may be -inf
 * (never NaN). */
void attn_select_top(uint32_t *idx, size_t count, size_t m, const double *key);
/* The value at position k (0-based) of a[0..count) sorted in descending
 * order; a is reordered. */
double attn_kth_largest(double *a, size_t count, size_t k);

/* ---- plans ------------------------------------------------------------- */

#define ATTN_MAX_BLOCKS 160

/* The arrays of one backward call (skit_attention_plan_backward(_f32)):
 * double or float as the plan's precision; shapes checked by the front,
 * which also refuses a mask for MRA plans and fills refined when NULL. */
typedef struct attn_backward_call {
    const void *q, *k, *v, *dy;
    size_t ldq, ldk, ldv, lddy;
    const unsigned char *mask, *refined;
    void *dq, *dk, *dv; /* each may be NULL */
    size_t lddq, lddk, lddv;
} attn_backward_call;

struct skit_attention_plan {
    skit_attention_options o;
    size_t n, d, dv;
    double scale;
    int threads;
    size_t bytes;
    int alloc_status; /* status of the last failed attn_plan_alloc */
    /* 1: execute leaves the NaN/Inf checks of Q, K, V to the method, which
     * makes them (with the same errors) before it writes y, fused into a
     * pass it makes over the inputs anyway */
    int checks_inputs;
    size_t nblocks;
    void *blocks[ATTN_MAX_BLOCKS];
    void *impl;
    /* y and what the call did (stats, never NULL): execute on a float64
     * plan, execute_f32 on a float32 one (o.precision) */
    int (*execute)(const skit_attention_plan *plan, const double *q, size_t ldq, const double *k,
                   size_t ldk, const double *v, size_t ldv, const unsigned char *mask, double *y,
                   size_t ldy, skit_attention_stats *stats);
    int (*execute_f32)(const skit_attention_plan *plan, const float *q, size_t ldq, const float *k,
                       size_t ldk, const float *v, size_t ldv, const unsigned char *mask, float *y,
                       size_t ldy, skit_attention_stats *stats);
    /* the gradients, arrays of the plan's precision; NULL: the plan has no
     * backward, and no_backward says why (a message naming the method) */
    int (*backward)(const skit_attention_plan *plan, const struct attn_backward_call *call);
    const char *no_backward;
    /* MRA: level 0's refined squares for q, k (arrays of the plan's
     * precision) and mask, by the execute's own selection; NULL otherwise */
    int (*select)(const skit_attention_plan *plan, const void *q, size_t ldq, const void *k,
                  size_t ldk, const unsigned char *mask, unsigned char *refined);
    /* MRA plans with a backward: its squares when the caller gives none
     * (the front selects them with select, then calls backward) */
    unsigned char *refined;
    /* layout SKIT_LAYOUT_ROWS: column copies of one call's arrays (plan.c) */
    void *rows;
    /* linformer-fit: fits F to q, k (column arrays, checked) into the
     * storage the plan and its copies share; NULL for other methods */
    int (*fit)(skit_attention_plan *plan, const double *q, size_t ldq, const double *k, size_t ldk,
               const unsigned char *mask);
    /* NULL, or makes a new copy (for concurrent executes) share what the
     * plan holds beyond its options (linformer-fit: the fitted F) */
    void (*adopt)(skit_attention_plan *copy, const skit_attention_plan *plan);
    /* NULL, or frees what impl holds outside the plan's blocks (device plans) */
    void (*release)(skit_attention_plan *plan);
    /* the plan a caller holds: instances for concurrent executes (plan.c);
     * NULL in those instances themselves */
    struct attn_pool *pool;
};

/* Allocation owned by the plan (freed by destroy, counted in its memory);
 * refuses requests beyond available memory before allocating. NULL with
 * the error raised and plan->alloc_status set on failure. */
void *attn_plan_alloc(skit_attention_plan *plan, size_t count, size_t size);

/* Method constructors: fill plan->impl / plan->execute using
 * attn_plan_alloc. Arguments are already validated except method-specific
 * options. */
int attn_mra_create(skit_attention_plan *plan);
/* The MRA options every MRA plan (CPU or device) checks the same way:
 * shift_bias, selection, block or levels/scales, n divisible by s_0 and
 * blocks_per_row per level. Fills the scales (block, 1 when levels = 0)
 * and their count. Errors: SKIT_EDOM, SKIT_EINVAL, SKIT_ESHAPE. */
int attn_mra_levels(const skit_attention_options *o, size_t n, size_t scales[SKIT_MRA_MAX_LEVELS],
                    size_t *levels);
int attn_exact_create(skit_attention_plan *plan);
int attn_lowrank_create(skit_attention_plan *plan);
int attn_topk_create(skit_attention_plan *plan);
int attn_nystrom_create(skit_attention_plan *plan);
int attn_linformer_create(skit_attention_plan *plan);
int attn_performer_create(skit_attention_plan *plan);
int attn_window_create(skit_attention_plan *plan);
int attn_bigbird_create(skit_attention_plan *plan);
/* options.device = SKIT_DEVICE_CUDA (device.c): exact, mra2, mra2s on the
 * GPU through skit/cuda.h; SKIT_EUNSUPPORTED for the other methods. */
int attn_device_create(skit_attention_plan *plan);

/* Algorithm 1 on the host for the device MRA plan (mra_select.c): logit is
 * rows x rows, logit[y + x*rows] the coarse logit of query block x and key
 * block y (-inf for an empty block). Selects per_row squares per row
 * (SKIT_MRA_PER_ROW) or rows * per_row overall (SKIT_MRA_GLOBAL; all when
 * that exceeds rows^2) exactly as the CPU plan, and writes the CSR:
 * row_ptr (rows+1), cols and prow (one per square, key blocks ascending
 * within a row). Scratch: score, tmp (rows^2 doubles), ids (rows), flags
 * (rows bytes). Returns the number of squares. */
size_t attn_mra_select(size_t rows, const double *logit, size_t per_row,
                       skit_mra_selection selection, size_t diagonal_prior, int first_block_prior,
                       double *score, double *tmp, uint32_t *ids, unsigned char *flags,
                       uint32_t *row_ptr, uint32_t *cols, uint32_t *prow);

/* Block means of the valid rows of x (n x d) over blocks of s tokens into
 * out (n/s x d, ld n/s); counts (n/s) receive the valid token counts; with
 * sums != 0 the block sums instead of means. */
void attn_block_means(size_t n, size_t d, const double *x, size_t ldx, size_t s,
                      const unsigned char *mask, int sums, double *out, double *counts);

/* ---- MRA-2's backward (mra_backward.c, mra_backward_blocked.c) ----------- */

/* The arguments of skit_mra2_backward(_causal), checked; R the real type
 * (double, or float for the float32 plans) */
#define ATTN_MRA2_BACKWARD_ARGS(R)                                                                 \
    {                                                                                              \
        size_t n, d, dv, block;                                                                    \
        int causal;                                                                                \
        double scale;                                                                              \
        const R *q, *k, *v, *dy;                                                                   \
        size_t ldq, ldk, ldv, lddy;                                                                \
        const unsigned char *refined;                                                              \
        R *dq, *dk, *dvv; /* each may be NULL */                                                   \
        size_t lddq, lddk, lddv;                                                                   \
        int sparse; /* MRA-2-s: the unrefined squares hold no atom (no coarse term) */         \
    }
typedef struct attn_mra2_backward_args ATTN_MRA2_BACKWARD_ARGS(double) attn_mra2_backward_args;
typedef struct attn_mra2_backward_args_f32 ATTN_MRA2_BACKWARD_ARGS(float) attn_mra2_backward_args_f32;

/* The coarse level of one backward: the block means (qm, km: rows x d;
 * vm: rows x dv; ld rows), their gradients, the coarse logits C and dC
 * (rows x rows, square (x, y) at x + y rows) */
#define ATTN_MRA2_COARSE(R) { R *qm, *km, *vm, *dqm, *dkm, *dvm, *C, *dC; }
typedef struct attn_mra2_coarse ATTN_MRA2_COARSE(double) attn_mra2_coarse;
typedef struct attn_mra2_coarse_f32 ATTN_MRA2_COARSE(float) attn_mra2_coarse_f32;

/* mra_backward_blocked.c, compiled for double and (mra_backward_f32.c)
 * for float (the _f32 names). coarse_count and blocked_count: the R's of
 * the coarse level and of the blocked atoms' tiles. backward_run: the
 * whole backward on work (coarse_count R's, then the atoms' scratch):
 * the means (double sums, rounded once), the outputs zeroed, atoms (the
 * atoms' gradients: fine ones added to dq, dk, dvv, coarse ones to dC
 * and dvm), then the coarse gradients through C and the means.
 * backward_blocks: atoms by query blocks on GEMMs (it also fills C). */
size_t attn_mra2_coarse_count(size_t n, size_t d, size_t dv, size_t block);
size_t attn_mra2_blocked_count(size_t n, size_t d, size_t dv, size_t block);
void attn_mra2_backward_blocks(const attn_mra2_backward_args *a, const attn_mra2_coarse *c, double *tiles);
void attn_mra2_backward_run(const attn_mra2_backward_args *a, double *work,
                            void (*atoms)(const attn_mra2_backward_args *, const attn_mra2_coarse *, double *));
size_t attn_mra2_coarse_count_f32(size_t n, size_t d, size_t dv, size_t block);
size_t attn_mra2_blocked_count_f32(size_t n, size_t d, size_t dv, size_t block);
void attn_mra2_backward_blocks_f32(const attn_mra2_backward_args_f32 *a, const attn_mra2_coarse_f32 *c,
                                   float *tiles);
void attn_mra2_backward_run_f32(const attn_mra2_backward_args_f32 *a, float *work,
                                void (*atoms)(const attn_mra2_backward_args_f32 *, const attn_mra2_coarse_f32 *,
                                              float *));

/* A causal MRA-2 refines every diagonal square: SKIT_EINVAL naming the
 * first that is not */
int attn_mra2_check_diagonal(size_t rows, int causal, const unsigned char *refined);

/* The row-by-row reference of the same backward (every atom a scalar
 * loop; the tests hold the blocked form to it); same contract as
 * skit_mra2_backward(_causal), work as there or NULL. */
int attn_mra2_backward_rows(const attn_mra2_backward_args *a, double *work);
/* The blocked form (what skit_mra2_backward(_causal) run), for the plans */
int attn_mra2_backward(const attn_mra2_backward_args *a, double *work);

/* ---- float32 plans (exact_f32.c, mra_f32.c) ----------------------------- */

/* The float32 plans of exact attention and MRA-2 / -2-s: fill impl,
 * execute_f32, backward and select (arrays of float). */
int attn_exact_create_f32(skit_attention_plan *plan);
int attn_mra_create_f32(skit_attention_plan *plan);

/* Exact attention's backward in float32 (backward.c compiled again): the
 * checks and contract of skit_attention_exact_backward_masked on float
 * arrays (|scale| <= 3.4e38 too), work of attn_exact_backward_f32_floats
 * floats (required). */
size_t attn_exact_backward_f32_floats(size_t n);
int attn_exact_backward_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq, const float *k, size_t ldk,
                            const float *v, size_t ldv, double scale, const skit_attention_mask *mask,
                            const float *dy, size_t lddy, float *dq, size_t lddq, float *dk, size_t lddk,
                            float *dvv, size_t lddv, float *work);

/* MRA-2's backward in float32, the refined squares held fixed: the
 * blocked backward's checks (block, |scale| <= 3.4e38, causal diagonal;
 * the arrays are the front's) and run, work of
 * attn_mra2_backward_f32_floats floats. */
size_t attn_mra2_backward_f32_floats(size_t n, size_t d, size_t dv, size_t block);
int attn_mra2_backward_f32(const attn_mra2_backward_args_f32 *a, float *work);

/* The float32 sweep: for every query tile X (rows X*t .. X*t+t-1, the last
 * may be shorter) and each key tile in its list (CSR row_ptr/cols over
 * query tiles, or all key tiles up to the diagonal when causal, all
 * otherwise), T = scale Q_X K_Y^T by sgemm, excluded entries dropped (key
 * weight 0, j > i when causal), and the running state of attn_sweep
 * updated in place: m (float), den (double: see exact_f32.c), num (float,
 * n x dv, ld ldnum, accumulated by sgemm). Inputs are read in place (no
 * packing). OpenMP over query tiles when parallel. */
typedef struct attn_sweep_f32 {
    size_t n, d, dv, t;
    const float *q, *k, *v;
    size_t ldq, ldk, ldv;
    float scale;
    const float *key_weight; /* n weights >= 0 (0 excludes the key) or NULL = all 1 */
    int causal;
    const uint32_t *row_ptr, *cols; /* CSR over query tiles, or NULL = dense */
    float *num;
    size_t ldnum;
    float *m;
    double *den;
    float *work; /* attn_sweep_f32_work(t, threads) floats */
    int threads, parallel;
} attn_sweep_f32;
size_t attn_sweep_f32_work(size_t t, int threads);
void attn_sweep_f32_run(const attn_sweep_f32 *s);
/* SKIT_ENONFINITE naming `what` and the entry if a NaN/Inf is in the
 * rows x cols block of a (ld). */
int attn_check_finite_f32(const float *a, size_t rows, size_t cols, size_t ld, const char *what);
/* skit_attention_exact's checks of q, k, v (NULL, shapes, NaN/Inf). */
int attn_check_inputs_f32(size_t n, size_t d, size_t dv, const float *q, size_t ldq,
                          const float *k, size_t ldk, const float *v, size_t ldv);

#endif
