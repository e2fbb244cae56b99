/* skit/attention.h — softmax attention, its multiresolution (MRA)
 * approximation and the usual baselines, with the MRA paper's analysis tools.
 * (SPEC M1–M6; mra-attention §3–4, A.2–A.3.)
 *
 * Layout. Every matrix is column-major with a leading dimension. The n
 * tokens are rows: Q and K are n x d (query i is row i, Q[i + c*ldq]), V is
 * n x dv, the output Y is n x dv. ld >= n everywhere. Plans also take the
 * rows layout (skit_attention_options.layout = SKIT_LAYOUT_ROWS): then Q,
 * K, V, Y and the gradients of a plan's execute, backward and select are
 * row-major, Q[i*ldq + c], and each ld is the row stride (ld >= the
 * matrix's width: d for Q, K, dQ, dK; dv for V, Y, dY, dV).
 *
 * Attention. Logits P = scale * Q K^T; S = softmax over each row of P (the
 * paper's D exp(P)); Y = S V. Every routine shifts each row by its maximum
 * before exponentiating, so no logit scale overflows.
 *
 * Masks. `mask` (optional, n bytes; NULL = every token valid) marks padding
 * tokens with 0, as a padding mask of self-attention: a masked token is
 * never attended to (its key gets weight 0 in every row) and its own output
 * row is 0. A row with no valid key gets output 0. Block averages used by
 * MRA and Nyström are taken over the valid tokens of a block only.
 * A causal mask (decoder self-attention: query i sees keys j <= i only) is
 * a plan option (skit_attention_options.causal) or, for the free functions,
 * the _masked forms below, which take both masks in one skit_attention_mask.
 *
 * Validation. Every function checks its arguments and returns a status.
 * Inputs Q, K, V are checked for NaN/Inf (SKIT_ENONFINITE) on every call.
 */
#ifndef SKIT_ATTENTION_H
#define SKIT_ATTENTION_H

#include "skit/core.h"
#include "skit/device.h"
#include "skit/io.h"

SKIT_BEGIN_DECLS

/* ---- exact attention (M1) ---------------------------------------------- */

/* Both masks of self-attention: padding (NULL or n bytes, 0 = padding, as
 * the `mask` of the functions below) and causality (1: query i attends to
 * keys j <= i only; the entries j > i of S are 0). */
typedef struct skit_attention_mask {
    const unsigned char *padding;
    int causal;
} skit_attention_mask;

/* Y = softmax(scale Q K^T) V without an n x n buffer: query and key tiles,
 * one OpenBLAS GEMM per tile for the logits and one for E V, and an online
 * max-shifted softmax (flash-attention style rescaling), OpenMP over query
 * tiles. Works for every n >= 1.
 * q: n x d (ldq >= n); k: n x d (ldk >= n); v: n x dv (ldv >= n);
 * mask: NULL or n bytes; y: n x dv (ldy >= n), fully written.
 * Allocates O(tile^2 + tile*dv) scratch per thread.
 * Errors: SKIT_EINVAL (NULL array), SKIT_EDOM (n, d or dv = 0; scale not
 * finite), SKIT_ESHAPE (a leading dimension < n), SKIT_ENONFINITE (NaN/Inf
 * in q, k or v), SKIT_EOVERFLOW, SKIT_ENOMEM. */
int skit_attention_exact(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                         const double *k, size_t ldk, const double *v, size_t ldv, double scale,
                         const unsigned char *mask, double *y, size_t ldy);

/* Backward of skit_attention_exact (the same q, k, v, scale, mask): for
 * an output gradient dy (n x dv, lddy >= n), dq (n x d), dk (n x d) and dv
 * (n x dv) = the gradients of <dy, Y> (each may be NULL; ld >= n). Masked
 * rows contribute nothing; masked keys get 0. Query tiles of 64 rows, the
 * softmax rows formed once per tile in work:
 * skit_attention_exact_backward_workspace(n) doubles, or NULL (allocated
 * for the call); with work it allocates nothing and is thread-safe.
 * Errors: SKIT_EINVAL (NULL q, k, v, dy), SKIT_EDOM (n, d or dv = 0; scale
 * not finite), SKIT_ESHAPE (a leading dimension < n), SKIT_ENONFINITE
 * (NaN/Inf in q, k, v or dy), SKIT_ENOMEM. */
size_t skit_attention_exact_backward_workspace(size_t n);
int skit_attention_exact_backward(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                                  const double *k, size_t ldk, const double *v, size_t ldv,
                                  double scale, const unsigned char *mask, const double *dy,
                                  size_t lddy, double *dq, size_t lddq, double *dk, size_t lddk,
                                  double *dvv, size_t lddv, double *work);

/* The same under both masks (NULL: none). */
int skit_attention_exact_backward_masked(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                                         const double *k, size_t ldk, const double *v, size_t ldv,
                                         double scale, const skit_attention_mask *mask,
                                         const double *dy, size_t lddy, double *dq, size_t lddq,
                                         double *dk, size_t lddk, double *dvv, size_t lddv, double *work);

/* The explicit n x n row-stochastic matrix S = softmax(scale Q K^T) (small
 * n only): S[i + j*lds], lds >= n. Masked keys get 0; masked rows are 0.
 * Errors: as skit_attention_exact (no v), SKIT_ESHAPE (lds < n). */
int skit_attention_matrix(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                          size_t ldk, double scale, const unsigned char *mask, double *s,
                          size_t lds);

/* Row entropies H_i = -sum_j S_ij log S_ij (nats) of the softmax matrix,
 * computed blockwise (no n x n buffer). row_entropy: NULL or n entries
 * (masked rows get 0); *mean_entropy: mean over valid rows. The maximum is
 * log(number of valid keys), reached by uniform attention.
 * Errors: as skit_attention_exact (no v, y). */
int skit_attention_entropy(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                           size_t ldk, double scale, const unsigned char *mask,
                           double *row_entropy, double *mean_entropy);


/* skit_attention_exact, _matrix and _entropy under both masks (mask NULL:
 * none). Causal rows always have a valid key (their own) unless padded.
 * Errors: as the unmasked forms. */
int skit_attention_exact_masked(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                                const double *k, size_t ldk, const double *v, size_t ldv,
                                double scale, const skit_attention_mask *mask, double *y,
                                size_t ldy);
int skit_attention_matrix_masked(size_t n, size_t d, const double *q, size_t ldq,
                                 const double *k, size_t ldk, double scale,
                                 const skit_attention_mask *mask, double *s, size_t lds);
int skit_attention_entropy_masked(size_t n, size_t d, const double *q, size_t ldq,
                                  const double *k, size_t ldk, double scale,
                                  const skit_attention_mask *mask, double *row_entropy,
                                  double *mean_entropy);

/* ||Yhat - Y||_F / ||Y||_F over an n x dv block (ld >= n); the absolute
 * error if ||Y||_F = 0. Errors: SKIT_EINVAL, SKIT_EDOM, SKIT_ESHAPE. */
int skit_attention_relative_error(size_t n, size_t dv, const double *y_hat, size_t ldh,
                                  const double *y, size_t ldy, double *error);

/* ---- approximation methods behind one plan interface (M3, M4) ---------- */

typedef enum skit_attention_method {
    SKIT_ATTENTION_EXACT = 0,     /* blocked exact attention */
    SKIT_ATTENTION_MRA2,          /* multiresolution: fine + coarse levels */
    SKIT_ATTENTION_MRA2_SPARSE,   /* MRA-2-s: the finest level only */
    SKIT_ATTENTION_LOWRANK,       /* best rank-r approximation of S (truncated SVD) */
    SKIT_ATTENTION_TOPK,          /* best sparse: the largest entries of S */
    SKIT_ATTENTION_NYSTROM,       /* Nyströmformer, segment-mean landmarks */
    SKIT_ATTENTION_LINFORMER,     /* Linformer, seeded projections */
    SKIT_ATTENTION_PERFORMER,     /* Performer FAVOR+, positive random features */
    SKIT_ATTENTION_WINDOW,        /* sliding window (Longformer's local part) */
    SKIT_ATTENTION_BIGBIRD,       /* BigBird: window + global + random blocks */
    SKIT_ATTENTION_LINFORMER_FIT, /* Linformer, F fitted to the head (an oracle) */
    SKIT_ATTENTION_METHOD_COUNT
} skit_attention_method;

/* Short names used by the CLI: "exact", "mra2", "mra2s", "lowrank", "topk",
 * "nystrom", "linformer", "performer", "window", "bigbird", "linformer-fit".
 * NULL if out of range. */
const char *skit_attention_method_name(int method);
/* Inverse of skit_attention_method_name. Errors: SKIT_EINVAL (NULL or
 * unknown name). */
int skit_attention_method_parse(const char *name, skit_attention_method *method);

#define SKIT_MRA_MAX_LEVELS 8

typedef enum skit_mra_selection {
    SKIT_MRA_GLOBAL = 0, /* one top-k over all candidates: rows x blocks_per_row in total */
    SKIT_MRA_PER_ROW = 1 /* top blocks_per_row candidates in every row */
} skit_mra_selection;

typedef enum skit_linformer_projection {
    SKIT_LINFORMER_GAUSSIAN = 0, /* i.i.d. N(0, 1/k) entries, separate E and F */
    SKIT_LINFORMER_POOLING = 1   /* segment means (E = F); the identity at k = n */
} skit_linformer_projection;

/* Options of every method; each method reads only its own fields.
 * skit_attention_options_init fills the defaults given in brackets. */
typedef struct skit_attention_options {
    skit_attention_method method;
    /* Logit scale; 0 selects 1/sqrt(d) [0]. Must be finite and >= 0. */
    double scale;
    uint64_t seed; /* random projections, features, BigBird blocks [1] */

    /* MRA (mra2, mra2s). The scales R = {s_0 > s_1 > ... > s_{L-1}}: level l
     * partitions the n x n matrix into (n/s_l)^2 squares of side s_l; each
     * s_l divides s_{l-1} and s_0 divides n. levels = 0 selects the paper's
     * MRA-2: R = {block, 1}. Level-l squares are refined into level l+1 by
     * Algorithm 1: score = coarse logit - its row maximum (the rule of the
     * authors' code), blocks_per_row[l] squares per row of level l (per-row
     * selection) or rows x blocks_per_row[l] in one global top-k (ties, e.g.
     * the zero score of every row's best square, go to the square first in
     * row-major order). The
     * output merges every level's contribution with one max-shift per row
     * (MRA-2) or uses the finest level only (MRA-2-s). */
    size_t block;                                  /* [32]; also BigBird's block */
    size_t levels;                                 /* 0 or 2..SKIT_MRA_MAX_LEVELS [0] */
    size_t scales[SKIT_MRA_MAX_LEVELS];            /* R when levels > 0 */
    size_t blocks_per_row[SKIT_MRA_MAX_LEVELS - 1]; /* >= 1 and <= n/s_l [all 8] */
    skit_mra_selection selection;                  /* [SKIT_MRA_GLOBAL] */
    /* Priors: squares with |x - y| < diagonal_prior (in level-l square
     * indices; 0 = off) and, if first_block_prior, those in the first row or
     * column are refined before any other (they still count in the budget). */
    size_t diagonal_prior;  /* [0] */
    int first_block_prior;  /* [0] */
    /* Added to every stability shift. The result does not depend on it
     * (up to rounding); it exists so that tests can prove that. [0] */
    double shift_bias;

    /* Baselines. */
    size_t rank;          /* lowrank rank; nystrom landmarks; linformer projected
                             length k; performer features [64]; 1 <= rank <= n
                             (performer: 1 <= rank <= 2^20) */
    size_t nonzeros;      /* topk: entries of S kept, 1..n^2 [0 = n*rank] */
    size_t window;        /* window: key j visible from query i iff |i - j| <= window;
                             bigbird: window blocks on each side [64 / 1] (see init) */
    size_t global_blocks; /* bigbird: the first global_blocks blocks attend to and are
                             attended by everything [1] */
    size_t random_blocks; /* bigbird: random key blocks per query block [2] */
    size_t pinv_iterations; /* nystrom: 0 = SVD pseudo-inverse (exact), else
                               Newton–Schulz iterations as Nyströmformer [6] */
    /* linformer and linformer-fit: E (and linformer's F) [SKIT_LINFORMER_GAUSSIAN;
       linformer-fit: SKIT_LINFORMER_POOLING] */
    skit_linformer_projection linformer_projection;
    int performer_orthogonal; /* 1 = orthogonal random features (FAVOR+) [1] */

    /* Causal mask [0]: 1 = query i attends to keys j <= i only. Exact,
     * window and BigBird drop the keys after each query from their sweeps;
     * lowrank and topk approximate the causal S; MRA masks the coarse
     * logits of squares after the diagonal (-inf: never refined, no
     * contribution) and refines every diagonal square first, counted in
     * the budget, so the fine level applies the mask entry by entry (the
     * finest scale must be 1). Nyström, Linformer (both forms) and Performer
     * (landmarks, projections and feature sums over all tokens) and device
     * plans: SKIT_EUNSUPPORTED. */
    int causal;

    /* Where the plan runs [SKIT_DEVICE_CPU]. SKIT_DEVICE_CUDA runs exact,
     * mra2 and mra2s on the GPU in float64 (skit/cuda.h: cuBLAS GEMMs and
     * block kernels; MRA's square selection on the host, with the CPU's
     * rule) through the same create / execute / destroy; execute takes and
     * returns host arrays and includes the transfers. On the device, MRA
     * runs two levels R = {block, 1} only, and exact attention ignores
     * shift_bias (its softmax is max-shifted per row on the device). */
    skit_device device;

    /* Arithmetic [SKIT_PRECISION_F64]. SKIT_PRECISION_F32: exact, mra2
     * and mra2s (two levels R = {block, 1}) on the CPU compute in float32
     * on float arrays, through the _f32 forms of execute, backward and
     * select (the float64 forms refuse such a plan with SKIT_EINVAL, and
     * the _f32 forms a float64 plan); the scale is rounded to float
     * (scale <= 3.4e38) and shift_bias is checked but not used. Other
     * methods and devices: SKIT_EUNSUPPORTED. */
    skit_precision precision;

    /* How a plan's execute, backward and select read Q, K, V, dY and
     * write Y, dQ, dK, dV [SKIT_LAYOUT_COLUMNS] (skit/core.h): columns,
     * X[i + c*ld] with ld >= n; SKIT_LAYOUT_ROWS, X[i*ld + c] with ld >=
     * the width (d or dv), e.g. C-ordered (n, d) arrays read and written
     * in place. Every method's passes work on columns (the sweep's packed
     * tiles, block means, MRA's gathered squares, the factorisations), so
     * a rows plan transposes the inputs into scratch it holds (allocated
     * at create, counted in skit_attention_plan_bytes: n (2d + 2dv)
     * values, n (4d + 3dv) for exact and mra2 with their backward), runs
     * the column code on them and transposes the outputs back: O(n (d +
     * dv)) moves beside the method's O(n^2 d) or O(n budget s) work, the
     * results bit for bit those of the columns layout, and an execute
     * still allocates nothing. */
    skit_layout layout;
} skit_attention_options;

/* Defaults for `method` (see the brackets above). For window, window = 64;
 * for bigbird, window = 1 (three blocks around the diagonal). */
void skit_attention_options_init(skit_attention_options *options, skit_attention_method method);

typedef struct skit_attention_plan skit_attention_plan;

/* Plan one method for n tokens, head dimension d and value dimension dv.
 * All scratch is allocated here (an execute alone allocates nothing); random
 * projections, features and BigBird's pattern are drawn here from the seed.
 * MRA needs O(n (d + dv) + (n/s_0)^2 + budget * s^2) memory where budget
 * counts refined squares and s their side; lowrank and topk need O(n^2)
 * (small n only).
 * Errors: SKIT_EINVAL (NULL, unknown method or selection), SKIT_EDOM (n, d,
 * dv = 0; scale negative or not finite; block, levels, scales,
 * blocks_per_row, rank, nonzeros, window or pinv_iterations out of range),
 * SKIT_ESHAPE (n not a multiple of the MRA block / s_0), SKIT_EOVERFLOW,
 * SKIT_ETOOBIG (memory estimate exceeds available memory), SKIT_ENOMEM,
 * SKIT_ELIBRARY (LAPACK workspace query failed; a CUDA library call failed),
 * SKIT_EUNSUPPORTED (device = SKIT_DEVICE_CUDA: a method other than exact,
 * mra2, mra2s, or MRA with more than two levels; or no GPU here, with the
 * message "cuda: not built" / "cuda: no device (...)"; causal with
 * nystrom, linformer, linformer-fit, performer or a device plan), SKIT_EDOM also for a
 * causal MRA whose finest scale is not 1; SKIT_EINVAL also
 * for an unknown device or precision; precision = SKIT_PRECISION_F32:
 * SKIT_EUNSUPPORTED for a method other than exact, mra2, mra2s, a device
 * plan or MRA of other levels than {block, 1}, SKIT_EDOM for scale >
 * 3.4e38. The memory of a device plan
 * (skit_attention_plan_bytes) includes the device memory it holds. */
int skit_attention_plan_create(skit_attention_plan **plan, size_t n, size_t d, size_t dv,
                               const skit_attention_options *options);

/* What an execute did. */
typedef struct skit_attention_stats {
    /* Attention-matrix entries evaluated: logits of the coarse squares and of
     * every exact entry (MRA), the entries of the sparsity pattern (window,
     * bigbird, topk), n^2 (exact, lowrank), n x rank factor entries
     * (nystrom, linformer, performer: 2 n rank). */
    double entries;
    double work_fraction; /* entries / n^2 */
    size_t refined[SKIT_MRA_MAX_LEVELS]; /* MRA: squares refined at each level */
    size_t levels;                       /* MRA: number of levels */
} skit_attention_stats;

/* Y = approximation of softmax(scale Q K^T) V. Arrays as in
 * skit_attention_exact (mask: NULL or n bytes). stats: NULL, or receives
 * what this call did. OpenMP inside. Thread-safe: the plan serves one call
 * at a time with its own scratch, and a concurrent call runs on a copy of
 * the plan made from the same options (the seeded projections and patterns
 * come out the same; made by the first call that needs it, kept until
 * destroy, so it can fail as create does). A call alone allocates nothing.
 * Errors: SKIT_EINVAL (NULL; a float32 plan: use the _f32 form), SKIT_ESHAPE
 * (ld < n; rows layout: ld < d or dv), SKIT_ENONFINITE (NaN/Inf
 * in q, k or v), SKIT_ELIBRARY (an SVD did not converge); a concurrent call
 * that needs a new copy also create's errors (SKIT_ENOMEM, SKIT_ETOOBIG);
 * SKIT_EINVAL also for a linformer-fit plan not yet fitted
 * (skit_attention_plan_fit). */
int skit_attention_plan_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                                const double *k, size_t ldk, const double *v, size_t ldv,
                                const unsigned char *mask, double *y, size_t ldy,
                                skit_attention_stats *stats);

/* The same on a plan created with precision SKIT_PRECISION_F32 (exact,
 * mra2, mra2s): float arrays, computed in float32; contract, arguments and
 * errors as skit_attention_plan_execute, and SKIT_EINVAL for a float64
 * plan (skit_attention_plan_execute refuses a float32 one the same way).
 * Each method against the float64 plan of the same options on the same
 * (float) inputs, entry by entry (u = 2^-24; tests/test_attention.c
 * checks both bounds):
 *
 * exact: the tiled online softmax with sgemm for the logits and for E V,
 * expf on the max-shifted logits, the row sums in double (so that their
 * error does not grow with n):
 *     |y32_ic - y64_ic| <= (2.1 eta_i + (n + 4) u) max_j |v_jc|,
 *     eta_i = u ((d + 6) G_i + 3 ceil(n / t) + 4),
 * G_i = |scale| max_j sum_c |q_ic k_jc| (bounds the logits of row i,
 * whose range is <= 2 G_i), t >= 16 the tile side: each logit carries
 * (d + 2) u G_i from sgemm and the rounded scale, the shift P - m <=
 * 2 u G_i and expf 2 u, the rescalings of the running sums (exp(m_old -
 * m_new), one per key tile) 2 u G_i + 3 u per tile in all, so every
 * weight has relative error <= eta_i and the normalised weights move by
 * <= 2 eta_i / (1 - eta_i) in l1; the numerator's float sum over n keys
 * adds (n + 1) u max |v|, the division and rounding 2 u. A worst case:
 * typical errors are far below it. (The float64 result's own error, the
 * same with 2^-53, hides in the 2.1.)
 *
 * mra2, mra2s (two levels R = {block, 1}): block means, coarse logits
 * (one sgemm) and the unrefined squares' contribution (one sgemm) in
 * float, the refined squares by the float sweep of exact attention, the
 * two levels merged per token. The squares refined are chosen by the
 * float64 plans' rule (Algorithm 1, ties to the first square in row-major
 * order) applied to the float coarse logits: where two scores of the
 * float64 plan lie within about 2 (d + 2 block + 4) u G of each other
 * (G = |scale| sum_c max_i |q_ic| max_j |k_jc|) the two precisions may
 * refine different squares (skit_attention_plan_select(_f32) says which
 * each refines). Against the float64 MRA-2 with the same refined squares,
 *     |y32_ic - y64_ic| <= (2.1 eta + (n + 2 block + 4) u) max_j |v_jc|,
 *     eta = u ((d + 2 block + 10) G + 3 n / block + 6)
 * (the exact bound's terms with G for G_i and the block means' rounding,
 * block u per mean, in the coarse logits and values). Errors also
 * SKIT_ENONFINITE for a coarse logit beyond float32's range. */
int skit_attention_plan_execute_f32(const skit_attention_plan *plan, const float *q, size_t ldq,
                                    const float *k, size_t ldk, const float *v, size_t ldv,
                                    const unsigned char *mask, float *y, size_t ldy,
                                    skit_attention_stats *stats);

/* Fits F of a linformer-fit plan to the head q, k (n x d, the plan's
 * layout; mask: NULL or n bytes, as execute's padding mask). With E fixed
 * (linformer_projection: seeded Gaussian or segment means over the valid
 * tokens) the weights P = softmax(scale Q (E K)^T) are n x k, and execute
 * returns P (F V). The fit stores
 *     F = P^+ S  (k x n),   S = softmax(scale Q K^T) (exact, masked),
 * the minimum-norm least-squares solution of P F = S (LAPACK dgelsd;
 * singular values of P below 1e-10 of the largest count as 0, so that
 * P (F V) evaluated in floating point stays accurate). Then P F V = P P^+
 * S V is the orthogonal projection of the exact output Y = S V onto the
 * columns of P for every V at once: on the head it was fitted to, no F
 * (no trained Linformer with this E) has a smaller ||P F V - Y||_F, for
 * any V, nor a smaller ||P F - S||_F. An oracle, not a trained model:
 * scored on the head it was fitted to, its error is a lower bound for
 * Linformer with this E. The fit forms S (O(n^2) memory, allocated for
 * the call and freed, n < 65536) and costs O(n^2 (d + k)); execute then
 * costs what a linformer plan's costs (2 n k factor entries). Execute on
 * a plan never fitted fails. A refit replaces F for the plan and the
 * copies concurrent executes use; it must not run concurrently with an
 * execute on the same plan.
 * Errors: SKIT_EINVAL (NULL plan, q or k), SKIT_EUNSUPPORTED (a plan of
 * another method), SKIT_ESHAPE (ld < n; rows layout: ld < d),
 * SKIT_ENONFINITE (NaN/Inf in q or k), SKIT_ETOOBIG, SKIT_ENOMEM,
 * SKIT_ELIBRARY (dgelsd failed). */
int skit_attention_plan_fit(skit_attention_plan *plan, const double *q, size_t ldq, const double *k,
                            size_t ldk, const unsigned char *mask);

/* Bytes of memory the plan owns (its scratch included; not the copies
 * concurrent executes made). 0 for NULL. */
size_t skit_attention_plan_bytes(const skit_attention_plan *plan);

void skit_attention_plan_destroy(skit_attention_plan *plan);

/* ---- MRA-2's backward (two levels {block, 1}, no mask) -----------------
 * The squares MRA-2 refines for q, k (Algorithm 1: score = coarse logit -
 * its row maximum; the rows x blocks_per_row best overall (SKIT_MRA_GLOBAL)
 * or each row's blocks_per_row best, ties to the first in row-major order;
 * no priors), as refined[x + y * (n/block)] = 1 for square (x, y): what
 * an MRA-2 plan with these options refines.
 * Errors: SKIT_EINVAL (NULL, unknown selection), SKIT_EDOM (n or d = 0,
 * blocks_per_row outside 1..n/block), SKIT_ESHAPE (block < 2 or not
 * dividing n), SKIT_ENOMEM. */
int skit_mra2_selection(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                        size_t ldk, double scale, size_t block, size_t blocks_per_row,
                        skit_mra_selection selection, unsigned char *refined);
/* Gradients dq, dk (n x d) and dv (n x dv) of <dy, Y> for MRA-2's output Y
 * with the refined squares held fixed (the selection passes no gradient,
 * as in the authors' code): through the exact logits of the refined
 * squares and through the coarse term (block means of q, k, v) of the
 * others. Each gradient may be NULL. By query blocks: each block row's
 * refined squares as one GEMM per product (O(n (refined keys per row +
 * n/block) (d + dv)) flops), checked against a row-by-row reference in
 * tests/test_backward.c. work: skit_mra2_backward_workspace doubles or NULL
 * (allocated); with work it allocates nothing and is thread-safe.
 * Errors: SKIT_EINVAL (NULL), SKIT_EDOM (a size 0, scale not finite),
 * SKIT_ESHAPE (block < 2 or not dividing n, a leading dimension < n),
 * SKIT_ENONFINITE (NaN/Inf in q, k, v or dy), SKIT_ENOMEM. */
size_t skit_mra2_backward_workspace(size_t n, size_t d, size_t dv, size_t block);
/* skit_mra2_selection in general: causal (options.causal = 1: the squares
 * after the diagonal masked, the diagonal ones refined first, as a causal
 * MRA-2 plan does) or not, and work: skit_mra2_select_workspace doubles
 * (then it allocates nothing; NULL: allocated for the call). Errors: as
 * skit_mra2_selection, and SKIT_EDOM (scale not finite), SKIT_ENONFINITE
 * (NaN/Inf in q or k). The causal backward drops the keys after each query
 * (refined must hold every diagonal square, else SKIT_EINVAL). */
size_t skit_mra2_select_workspace(size_t n, size_t d, size_t block);
int skit_mra2_select(size_t n, size_t d, const double *q, size_t ldq, const double *k, size_t ldk,
                     double scale, size_t block, size_t blocks_per_row, skit_mra_selection selection,
                     int causal, unsigned char *refined, double *work);
int skit_mra2_backward_causal(size_t n, size_t d, size_t dv, const double *q, size_t ldq,
                              const double *k, size_t ldk, const double *v, size_t ldv, double scale,
                              size_t block, const unsigned char *refined, const double *dy,
                              size_t lddy, double *dq, size_t lddq, double *dk, size_t lddk,
                              double *dvv, size_t lddv, double *work);
int skit_mra2_backward(size_t n, size_t d, size_t dv, const double *q, size_t ldq, const double *k,
                       size_t ldk, const double *v, size_t ldv, double scale, size_t block,
                       const unsigned char *refined, const double *dy, size_t lddy, double *dq,
                       size_t lddq, double *dk, size_t lddk, double *dvv, size_t lddv,
                       double *work);

/* ---- a plan's backward and its selection -------------------------------
 * skit_attention_plan_backward (float64 plans) and _backward_f32 (float32
 * plans; each form refuses the other precision with SKIT_EINVAL): the
 * gradients dq, dk (n x d) and dv (n x dv) of <dy, Y> for the plan's
 * output Y = execute(q, k, v, mask) at the same q, k, v and mask; dy: n x
 * dv (lddy >= n); each gradient may be NULL (its ld >= n otherwise), and
 * is fully written (rows layout: row-major, each ld >= the width). The plan's scale and causal option apply.
 *   exact: padding mask and causality honoured (masked rows contribute
 *     nothing, masked keys get 0). float64: skit_attention_exact_backward
 *     _masked; float32: the same 64-row query tiles with sgemm for the
 *     logits, dS = dY V^T, dV += S^T dY, dQ = scale dP K and dK += scale
 *     dP^T Q, expf on the max-shifted logits, each softmax row's
 *     normaliser and the row sums <S_i, dS_i> in double, dP = S (dS -
 *     <S_i, dS_i>) formed in double and rounded once.
 *   mra2 of two levels R = {block, 1} (causal or not; mask must be NULL,
 *     else SKIT_EUNSUPPORTED): the refined squares held fixed (the
 *     selection passes no gradient, as in the authors' code). float64:
 *     skit_mra2_backward(_causal); float32: blocked, for each query block
 *     one sgemm per product (logits, dY V^T, dQ, dK, dV) over its refined
 *     squares' keys and values gathered and one for the coarse atoms (dY
 *     Vm^T, dVm); the block means in double, rounded once; each row's
 *     softmax normaliser and row sum <W_i, dW_i> over its atoms in double;
 *     C = scale Qm Km^T and its gradient by sgemm.
 *   mra2s (MRA-2-s) of the same two levels: the same backward without the
 *     coarse atoms (its output is the softmax over the refined squares'
 *     keys alone); a row with no refined square (bidirectional, global
 *     selection) has output 0 and passes no gradient.
 * refined (mra2, mra2s; exact plans ignore it): the squares the forward refined,
 * (n/block)^2 bytes, square (x, y) (query block x, key block y) at x + y
 * (n/block), as skit_attention_plan_select writes them; or NULL: the plan
 * selects them again from q and k with its execute's own code, so they
 * are the squares its execute refined on these q and k. A plan keeps no
 * forward's selection (one plan serves many sequences, and concurrent
 * calls run on copies); selecting again costs O((n/block)^2 d + n d),
 * little beside the backward. Giving refined holds any selection fixed,
 * e.g. one selection for both precisions.
 * Scratch: the plan's (sized at create, shared by its forward and
 * backward), lent as execute lends it: a call alone allocates nothing,
 * concurrent calls run on copies.
 * Float32 bounds. Against the float64 plan's backward on the same (float)
 * inputs (and, mra2, the same refined squares), every entry satisfies,
 * to first order in u = 2^-24, with S the softmax matrix, G = max_i G_i
 * (G_i as for skit_attention_plan_execute_f32's exact bound), r_i = sum_c
 * |dy_ic|, vmax = max_jc |v_jc|, g(m) = m u / (1 - m u):
 *   exact:
 *   |dv32_jc - dv64_jc| <= (e_S + g(n + 1)) (S^T |dY|)_jc,
 *   |dq32_ic - dq64_ic| <= 2 |scale| vmax (e_P + g(n + 2)) r_i (S |K|)_ic,
 *   |dk32_jc - dk64_jc| <= 2 |scale| vmax (e_P + g(n + 2)) (S^T (r o |Q|))_jc,
 *   e_S = 2.1 u ((d + 4) G + 2) + 2 u,   e_P = 2 e_S + (dv + 1) u,
 * (r o |Q|: row i of |Q| times r_i). Why: each logit carries (d + 2) u G
 * (sgemm, the rounded scale), the shift 2 u G and expf 2 u, so after the
 * normalisation (double, rounded once) every weight has relative error
 * <= e_S (the 2.1 as the forward's, for exp(2 eta) - 1); dS carries
 * dv u A_ij (sgemm; A_ij = sum_c |dy_ic v_jc| <= r_i vmax), so the row sum
 * (double) carries (e_S + dv u) a_i, a_i = sum_j S_ij A_ij <= r_i vmax,
 * and |dP32 - dP64|_ij <= e_P S_ij (A_ij + a_i) <= 2 e_P r_i vmax S_ij;
 * the products over n keys (dQ) or n queries (dV, dK: sgemm and the float
 * accumulation over query tiles) add g(n) and the scale's rounding u.
 *   mra2: write S = Sf + Sc for MRA-2's effective n x n matrix (Y = S V):
 * Sf the fine atoms' weights at their keys, Sc each coarse atom's weight
 * spread evenly (1/block each) over its key block; L = log(block), Qb_ic
 * the mean of |q_jc| over i's block, mean_x the mean over the rows of i's
 * block:
 *   |dv32_jc - dv64_jc| <= (e_S + g(n + 3)) (S^T |dY|)_jc,
 *   |dq32_ic - dq64_ic| <= F (r_i (Sf |K|)_ic + mean_x r_i' (Sc |K|)_i'c),
 *   |dk32_jc - dk64_jc| <= F ((Sf^T (r o |Q|))_jc + (Sc^T (r o Qb))_jc),
 *   e_S = 2.1 u ((d + 7) G + 2 L + 2) + 2 u,  e_P = 2 e_S + (dv + 2) u,
 *   F = 2 |scale| vmax (e_P + g(n + 4)).
 * Why: the exact backward's argument over atoms; a coarse atom's logit
 * (from the rounded means: (d + 4) u G, as |Qm . Km| <= G) and its log b
 * (u (G + L)) and shift (u (2 G + L)) add to e_S, its value Vm_y
 * (rounded) u A_ij to dS; the coarse gradients dC (double sums), dQm =
 * scale dC Km, dKm = scale dC^T Qm (sgemm over n / block terms), the
 * division by block and the sums into dq, dk, dv add a few u more, all
 * within g(n + 4) for n >= 4 (|Km_yc| <= the mean of |k_jc| over block y
 * turns sums over coarse atoms into Sc products).
 * Both are worst cases; the float64 backward's own error (the same with
 * 2^-53) is negligible beside them. tests/test_backward.c checks them
 * entry by entry over many sizes; `skit grad-check --op attention|mra2
 * --precision f32` their largest entry per group.
 * Errors: SKIT_EINVAL (NULL plan, q, k, v or dy; the other precision's
 * plan; causal mra2 with refined missing a diagonal square), SKIT_ESHAPE
 * (a leading dimension < n; rows layout: < d or dv), SKIT_ENONFINITE (NaN/Inf in q, k, v or dy),
 * SKIT_EUNSUPPORTED (a method other than exact and mra2, MRA of more than
 * two levels or a finest scale other than 1, a device plan, a mask with
 * mra2), SKIT_ENOMEM (a concurrent call's copy). */
int skit_attention_plan_backward(const skit_attention_plan *plan, const double *q, size_t ldq,
                                 const double *k, size_t ldk, const double *v, size_t ldv,
                                 const unsigned char *mask, const unsigned char *refined,
                                 const double *dy, size_t lddy, double *dq, size_t lddq, double *dk,
                                 size_t lddk, double *dv, size_t lddv);
int skit_attention_plan_backward_f32(const skit_attention_plan *plan, const float *q, size_t ldq,
                                     const float *k, size_t ldk, const float *v, size_t ldv,
                                     const unsigned char *mask, const unsigned char *refined,
                                     const float *dy, size_t lddy, float *dq, size_t lddq, float *dk,
                                     size_t lddk, float *dv, size_t lddv);

/* The squares an MRA plan's (mra2, mra2s; CPU) execute refines at level 0
 * (side s_0 = block when levels = 0) for these q, k (n x d, ld >= n; in
 * the plan's layout) and mask (NULL or n bytes): refined[x + y (n/s_0)] = 1 for square (x, y),
 * 0 elsewhere; (n/s_0)^2 bytes. The execute's own code on the same
 * inputs, so the same squares (float32 plans: the float coarse logits'
 * choice, see skit_attention_plan_execute_f32). Scratch as execute's.
 * Errors: SKIT_EINVAL (NULL; the other precision's plan), SKIT_ESHAPE,
 * SKIT_ENONFINITE (NaN/Inf in q or k; float32: a coarse logit beyond
 * float's range), SKIT_EUNSUPPORTED (other methods, device plans). */
int skit_attention_plan_select(const skit_attention_plan *plan, const double *q, size_t ldq,
                               const double *k, size_t ldk, const unsigned char *mask,
                               unsigned char *refined);
int skit_attention_plan_select_f32(const skit_attention_plan *plan, const float *q, size_t ldq,
                                   const float *k, size_t ldk, const unsigned char *mask,
                                   unsigned char *refined);

/* Coarse logits of MRA level s: C[x + y*ldc] = scale * Qs_x . Ks_y where Qs,
 * Ks are the means of the valid rows of each block of s consecutive tokens
 * (bilinearity makes C the mean of the fine logits over the square when no
 * token is masked). A block without valid tokens gets a zero mean.
 * C: (n/s) x (n/s), ldc >= n/s.
 * Errors: SKIT_EINVAL, SKIT_EDOM (n, d, s = 0; scale not finite),
 * SKIT_ESHAPE (s does not divide n, ld too small), SKIT_ENONFINITE. */
int skit_mra_coarse_logits(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                           size_t ldk, double scale, size_t s, const unsigned char *mask,
                           double *c, size_t ldc);

/* Best-possible references of the paper's Figure 7 (A.2), on the explicit
 * softmax matrix S (O(n^2) memory, O(n^3) time for low rank): the smallest
 * budget whose relative output error ||S_hat V - S V||_F / ||S V||_F is at
 * most targets[t]: for SKIT_ATTENTION_LOWRANK the rank of the truncated SVD
 * of S, for SKIT_ATTENTION_TOPK the number of largest entries of S kept.
 * needed[t] = the budget (n for a full rank / n^2 for all entries if no
 * smaller budget reaches the target). errors (optional): for LOWRANK n+1
 * entries, errors[r] = relative error at rank r; for TOPK NULL only.
 * Errors: SKIT_EINVAL (NULL, other method), SKIT_EDOM (sizes, count = 0,
 * target < 0 or not finite), SKIT_ESHAPE, SKIT_ENONFINITE, SKIT_ETOOBIG,
 * SKIT_ENOMEM, SKIT_ELIBRARY (SVD failed). */
int skit_attention_budget_needed(skit_attention_method method, size_t n, size_t d, size_t dv,
                                 const double *q, size_t ldq, const double *k, size_t ldk,
                                 const double *v, size_t ldv, double scale, size_t count,
                                 const double *targets, size_t *needed, double *errors);

/* ---- budgets and entropy targets (lib/attention/budget.c) -------------- */

/* Set the size parameters with which options->method spends a budget: a
 * fraction `budget` of the n^2 attention entries (0 < budget <= 1; a budget
 * of k entries per query is budget = k / n). round() below rounds half
 * away from zero; every other field of *options is left as it was:
 *   mra2, mra2s   blocks_per_row[l] = round(budget * (n / s_l)) clamped to
 *                 [1, n / s_l] for every level l but the last, with the
 *                 scales s_l of options->scales (options->levels > 0) or
 *                 s_0 = options->block (levels = 0, the paper's MRA-2);
 *   lowrank, nystrom, linformer   rank = round(budget n) in [1, n];
 *   performer     rank = round(budget n) in [1, 2^20];
 *   topk          nonzeros = round(budget n^2) in [1, n^2];
 *   window        window = the smallest w whose band |i - j| <= w holds at
 *                 least budget n^2 entries (n (2w + 1) - w (w + 1));
 *   bigbird       window = 1, global_blocks = 1 and random_blocks = the rest
 *                 of T = round(budget * nb) clamped to [4, nb + 4] blocks
 *                 per row (T - 4, at most nb - 4), nb = ceil(n / block);
 *   exact         nothing.
 * options: method, block, levels and scales read, the parameters above
 * written. parameter (optional): the method's own parameter as a number
 * (blocks_per_row[0], rank, nonzeros, window, random_blocks; 0 for exact).
 * Errors: SKIT_EINVAL (NULL options, unknown method), SKIT_EDOM (n = 0;
 * budget not in (0, 1]; mra2/mra2s: levels 1 or above SKIT_MRA_MAX_LEVELS,
 * a scale s_l (block when levels = 0) of 0 or above n; bigbird: block 0 or
 * above n). */
int skit_attention_options_set_budget(skit_attention_options *options, size_t n, double budget,
                                      double *parameter);

/* The softmax temperature tau at which the rows of softmax((scale / tau)
 * Q K^T) have mean entropy `target` (nats; see skit_attention_entropy): a
 * bisection on log tau over [1e-4, 1e4] (the entropy grows with tau) until
 * the entropy is within 1e-6 of the target (relative) or after 60 halvings.
 * q, k: n x d (ldq, ldk >= n); scale: the logit scale at tau = 1.
 * *temperature receives tau; *entropy (optional) the mean entropy there.
 * Errors: SKIT_EINVAL (NULL), SKIT_EDOM (scale not finite or <= 0; target
 * not finite or outside (0, log n); d = 0), SKIT_ESHAPE (ld < n),
 * SKIT_ENONFINITE (NaN/Inf in q or k), SKIT_ENOCONV (the entropies at
 * tau = 1e-4 and 1e4 do not bracket the target), SKIT_ENOMEM. */
int skit_attention_temperature_for_entropy(size_t n, size_t d, const double *q, size_t ldq,
                                           const double *k, size_t ldk, double scale,
                                           double target, double *temperature, double *entropy);

/* ---- the overcomplete frame (1), decomposition (2), Haar (M2) ---------- */

/* The frame (1) for n = 2^k: components B^s_{x,y} for s = n, n/2, ..., 1 and
 * x, y = 0..n/s-1 (0-based; support rows s*x..s*x+s-1, columns
 * s*y..s*y+s-1). They are numbered level by level from s = n down to s = 1,
 * within a level x + y*(n/s). skit_mra_frame_count(n) = (4n^2 - 1)/3
 * (0 if n is not a power of two or the count overflows). */
size_t skit_mra_frame_count(size_t n);
/* Index of B^s_{x,y}. Errors: SKIT_EDOM (n not a power of two, s not a
 * power of two <= n, x or y >= n/s), SKIT_EINVAL (NULL). */
int skit_mra_frame_index(size_t n, size_t s, size_t x, size_t y, size_t *index);

/* Decomposition (2) of the n x n matrix A restricted to a subset J of the
 * frame: from the coarsest scale down, alpha = <B, E_s>/s^2 for B in J and
 * E_{s/2} = E_s - sum_{B in J, scale s} alpha B (E_n = A). alpha: frame_count
 * entries, 0 for components not in J. subset: NULL (J = the whole frame)
 * or frame_count bytes (nonzero = in J). With J = the frame, A is
 * reconstructed exactly by the finest level.
 * a_hat (optional, ld >= n): the approximation (3), sum over J of alpha B.
 * Errors: SKIT_EINVAL, SKIT_EDOM (n not a power of two), SKIT_ESHAPE,
 * SKIT_ENONFINITE, SKIT_ENOMEM. */
int skit_mra_frame_decompose(size_t n, const double *a, size_t lda,
                             const unsigned char *subset, double *alpha, double *a_hat,
                             size_t ldh);

/* The form (5) of the same approximation: a_hat(i, j) = mu*_{s,x,y}, the
 * mean of A over the smallest square of J that contains (i, j), 0 if none.
 * Arguments and errors as skit_mra_frame_decompose (subset required). */
int skit_mra_frame_mu_form(size_t n, const double *a, size_t lda, const unsigned char *subset,
                           double *a_hat, size_t ldh);

/* Observation A.1 check: both forms computed, *max_difference = max |form (3)
 * - form (5)| / max |A| (0 for A = 0). */
int skit_mra_observation_a1(size_t n, const double *a, size_t lda,
                            const unsigned char *subset, double *max_difference);

/* Orthonormal 2-D Haar transform (the non-standard, square-support pyramid:
 * one step on rows and columns, recurse on the low-low quadrant; the MRA
 * paper's Figure 2 basis, not the tensor-product "standard" one) of
 * the n x n matrix A, n = 2^k. C: n x n (ldc >= n) in the usual layout (the
 * low-low coefficient at (0, 0), the three detail bands of level j in the
 * quadrants of the 2^j x 2^j corner). Parseval: ||C||_F = ||A||_F.
 * Errors: SKIT_EINVAL, SKIT_EDOM (n not a power of two), SKIT_ESHAPE,
 * SKIT_ENONFINITE. */
int skit_haar2d_forward(size_t n, const double *a, size_t lda, double *c, size_t ldc);
int skit_haar2d_inverse(size_t n, const double *c, size_t ldc, double *a, size_t lda);

/* Reconstruction of A from its `keep` largest Haar coefficients (by
 * magnitude; ties broken by position). a_hat: n x n (ld >= n);
 * *threshold (optional): the smallest magnitude kept (0 if keep = 0).
 * keep = n^2 reconstructs A up to rounding.
 * Errors: as skit_haar2d_forward, SKIT_EDOM (keep > n^2), SKIT_ENOMEM. */
int skit_haar2d_compress(size_t n, const double *a, size_t lda, size_t keep, double *a_hat,
                         size_t ldh, double *threshold);

/* ---- Lemma 4.1 and Proposition 4.5 evaluators (M5) --------------------- */

typedef struct skit_mra_lemma41 {
    size_t blocks;            /* squares of side s examined, (n/s)^2 */
    size_t lower_violations;  /* squares with mu* - mu < 0 (beyond rounding) */
    size_t upper_violations;  /* squares with mu* - mu > C_r mu, r = measured range */
    size_t holder_violations; /* same with r = 2 beta_1 beta_2 (Hölder, p = q = 2) */
    double max_ratio;         /* max over squares of (mu* - mu) / (C_r mu), r measured */
    double max_ratio_holder;  /* same with the Hölder r; <= 1 means the lemma holds */
    double min_gap;           /* min over squares of (mu* - mu) / mu (>= 0) */
    double max_gap;           /* max of (mu* - mu) / mu */
    double mean_range;        /* mean measured range r of P over a square */
    double max_range;
    double max_holder_range;  /* max of 2 beta_1 beta_2 */
} skit_mra_lemma41;

/* Lemma 4.1 on every square of side s of P = scale Q K^T: mu* = mean of
 * exp(P) over the square, mu = exp(mean of P); 0 <= mu* - mu <= C_r mu with
 * C_r = 1 + e^r - 2 e^{r/2} = (e^{r/2} - 1)^2. Evaluated in the ratio form
 * (mu* - mu)/mu = mean(exp(P - mean P)) - 1, so no logit scale overflows.
 * O(n^2 d) time, O(s n) memory.
 * Errors: SKIT_EINVAL, SKIT_EDOM (sizes, s, scale), SKIT_ESHAPE (s does not
 * divide n, ld), SKIT_ENONFINITE, SKIT_ENOMEM. */
int skit_mra_lemma41_evaluate(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                              size_t ldk, double scale, size_t s, skit_mra_lemma41 *result);

typedef struct skit_mra_prop45 {
    double measured;  /* ||A_hat - A||_F / ||A||_F, A = exp(P) unnormalised */
    double bound;     /* right-hand side of Proposition 4.5 */
    double range;     /* r: max over squares of the range of P in the square */
    double log_delta; /* log of delta, the m_1-th largest mu_{b,x,y} */
    size_t refined;   /* m_1 */
    int holds;        /* measured <= bound (with a 1e-12 relative allowance) */
} skit_mra_prop45;

/* Proposition 4.5 for R = {b, 1}: the m1 squares with the largest
 * mu_{b,x,y} = exp(mean P) (Algorithm 1, no row normalisation) are exact,
 * the others are mu; the measured relative Frobenius error of the
 * unnormalised A_hat against A = exp(P) and the bound
 * sqrt((n^2 - m1 b^2) C_{2r} delta^2 / sum exp(2P)), all in a shifted log
 * domain so that nothing overflows. O(n^2 d) time, O(b n + (n/b)^2) memory.
 * Errors: SKIT_EINVAL, SKIT_EDOM (sizes, b, m1 > (n/b)^2, scale),
 * SKIT_ESHAPE, SKIT_ENONFINITE, SKIT_ENOMEM. */
int skit_mra_prop45_evaluate(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                             size_t ldk, double scale, size_t b, size_t m1,
                             skit_mra_prop45 *result);

/* ---- structured synthetic inputs and user inputs (M6) ------------------ */

typedef struct skit_attention_synthetic {
    /* Locality: Q and K share a smooth latent sequence (Gaussian AR(1) along
     * the tokens, correlation exp(-|i-j|/correlation_length)); 0 = i.i.d.
     * tokens (no locality) [16]. */
    double correlation_length;
    /* Weight of i.i.d. token noise added to the smooth part (separately for
     * Q and K), relative to it: 0 = perfectly smooth [0.3]. */
    double noise;
    /* beta > 0: with scale 1/sqrt(d) a token's logit with itself is about
     * beta, so larger beta = lower temperature = lower entropy [4]. */
    double inverse_temperature;
    /* "Sink" keys every query attends to (vertical stripes of S): this many
     * random key positions get an extra logit of sink_strength * beta [0, 1]. */
    size_t sinks;
    double sink_strength;
    /* V: the same AR(1) smoothness with this correlation length plus unit
     * i.i.d. noise, and a common offset of value_mean [16, 0.5]. */
    double value_correlation_length;
    double value_mean;
    uint64_t seed; /* [1] */
} skit_attention_synthetic;

void skit_attention_synthetic_init(skit_attention_synthetic *spec);

/* Fill Q, K (n x d) and V (n x dv) from the spec; the same spec and sizes
 * give the same numbers on every platform and thread count. Any of q, k, v
 * may be NULL to skip it (the others are unchanged).
 * Errors: SKIT_EINVAL (NULL spec), SKIT_EDOM (n, d, dv = 0; a parameter
 * negative or not finite; inverse_temperature <= 0), SKIT_ESHAPE. */
int skit_attention_synthetic_generate(const skit_attention_synthetic *spec, size_t n, size_t d,
                                      size_t dv, double *q, size_t ldq, double *k, size_t ldk,
                                      double *v, size_t ldv);

/* Find the inverse temperature whose generated Q, K have mean row entropy
 * `target` (nats, with scale 1/sqrt(d)) by bisection on log beta
 * (entropy falls monotonically as beta grows); spec->inverse_temperature is
 * set to it and *entropy (optional) receives the entropy reached.
 * Errors: as generate, SKIT_EDOM (target outside (0, log n)), SKIT_ENOCONV
 * (target not bracketed by beta in [1e-3, 1e4]), SKIT_ENOMEM. */
int skit_attention_synthetic_for_entropy(skit_attention_synthetic *spec, size_t n, size_t d,
                                         double target, double *entropy);

/* Load Q, K, V from .npy files (2-D, float64 or float32, either order) and
 * check that they fit: Q and K n x d, V n x dv with the same n. On error
 * nothing is returned (all three are freed).
 * Errors: those of skit_npy_read, SKIT_ESHAPE (a 1-D array, different row
 * counts, Q and K of different widths, an empty axis). */
int skit_attention_read_npy(const char *q_path, const char *k_path, const char *v_path,
                            skit_matrix *q, skit_matrix *k, skit_matrix *v);

/* ---- App. A.5 and A.2 evaluators --------------------------------------- */

/* MRA App. A.5 (Remark 4.2): the Haar detail of level `level` (1 = finest;
 * orthonormal Haar, blocks of 2^level rows) of column j of P = Q K^T and its
 * bound from the details of Q:
 *   lhs[j] = ||H_level^{P,j}||_1,  rhs[j] = (sum_i ||(H_level^Q)_i||_p) ||K_j||_q
 * with 1/p + 1/q = 1 (p = INFINITY allowed), for j = 0..n-1; lhs <= rhs by
 * Hölder. transposed = 1: the rows of P instead (Q and K swap roles).
 * Errors: SKIT_EINVAL (NULL), SKIT_EDOM (n, d = 0; p < 1 or NaN),
 * SKIT_ESHAPE (2^level does not divide n, level = 0, ld < d),
 * SKIT_ENONFINITE, SKIT_ENOMEM. */
int skit_mra_haar_bound(size_t n, size_t d, const double *q, size_t ldq, const double *k, size_t ldk,
                        size_t level, double p, int transposed, double *lhs, double *rhs);

/* MRA App. A.2: MRA-2 with R = {b, 1} as sparse + low rank, A = exp(scale
 * Q K^T) (unnormalised), a budget of m squares of side b. Errors are
 * ||A - approximation||_F / ||A||_F. */
typedef struct skit_mra_sparse_lowrank {
    size_t block, squares, nnz;  /* b, m, m b^2 */
    double entry_optimal;        /* S = A on its m b^2 largest entries (the optimum of (9)) */
    double block_optimal;        /* S = A on the m squares with the largest mu' (eq. 10) */
    double block_proxy;          /* S = A on the m squares with the largest mu^2 (MRA-2) */
    double mra;                  /* S (proxy squares) + L = exp(mean P) elsewhere: A_1 + A_b */
    double lowrank_norm;         /* ||L||_F / ||A||_F of that L (rank <= n/b) */
    double support_overlap;      /* |proxy squares and optimal squares| / m */
    double min_jensen_gap;       /* min over squares of (mu' - mu^2) / mu' (>= 0: Jensen) */
    double block_reversed;       /* S = A on the m squares with the smallest mu^2: MRA-2's
                                    order reversed, a selection known to be poor (a control) */
} skit_mra_sparse_lowrank;

/* The quantities above; proxy_support and optimal_support ((n/b)^2, square
 * (x, y) at x * (n/b) + y, row block x) and entry_support (n^2, row-major)
 * receive 0/1 supports when not NULL. O(n^2 d) time, O(n^2) memory.
 * Errors: SKIT_EINVAL (NULL), SKIT_EDOM (sizes, scale, m > (n/b)^2),
 * SKIT_ESHAPE (b does not divide n), SKIT_ENONFINITE, SKIT_ETOOBIG
 * (n > 8192), SKIT_ENOMEM. */
int skit_mra_sparse_lowrank_evaluate(size_t n, size_t d, const double *q, size_t ldq, const double *k,
                                     size_t ldk, double scale, size_t b, size_t m,
                                     skit_mra_sparse_lowrank *result, unsigned char *proxy_support,
                                     unsigned char *optimal_support, unsigned char *entry_support);

/* The size in bytes of this header's public struct `name` (e.g. "skit_attention_options"),
 * 0 for any other name: bindings that mirror the structs (python/skit)
 * check their layout against it when they load, so a field added here
 * cannot shift theirs unnoticed. */
size_t skit_attention_struct_size(const char *name);

SKIT_END_DECLS
#endif /* SKIT_ATTENTION_H */
