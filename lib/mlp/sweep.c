/* sweep.c — the features and outputs of a ReLU MLP with one input, by a
 * sweep along the inputs (mlp/batch.h), for one precision: R = double
 * here, R = float when sweepf.c compiles this file again with
 * MLP_SWEEP_SINGLE (the float32 token mixers run it in float, at twice
 * the lanes). The weights come from the MLP's parameters of that
 * precision (mlp_internal.h keeps a float copy); inputs and scales are
 * double in both and rounded as they are read.
 *
 * With one input and ReLU, every layer is linear in a few per-input
 * coefficients as long as the ReLU masks below it stay the same:
 *     z_0 = w_0 x + b_0 = B_0 [x, 1];
 * a norm subtracts the mean (a linear map P; LayerNorm only) and scales by
 * a positive inv, which ReLU commutes with, so a_s = D_s P B_s c_s inv_s,
 * D_s the 0/1 mask of the units with P B_s c_s > 0, and
 *     z_{s+1} = W_{s+1} a_s + b_{s+1} = [W_{s+1} D_s P B_s | b_{s+1}] [c_s inv_s; 1].
 * Stage s (the norm and activation after Linear s) thus has s + 2 basis
 * vectors Bt_s = P B_s of width w, and an input costs about w (s + 2)
 * multiply-adds per stage instead of the w^2 of a dense layer. The bases
 * are rebuilt (a (s+1) x w x w GEMM each) only where a mask changes, which
 * along the TNO's lags or the FD-TNO's frequency grid is rare: inputs are
 * swept in the order given, each one's masks compared with the last's.
 * Every sum is the dense path's reassociated, so the features agree with
 * skit_mlp_features_dense to rounding, not bit for bit (tests/test_mlp.c
 * checks both against skit_mlp_eval's layers on sorted, shuffled and
 * repeated inputs). */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "core/simd.h" /* SKIT_MULTIVERSION, SKIT_SIMD */
#include "mlp/mlp_internal.h"

#ifdef MLP_SWEEP_SINGLE
typedef float R;
typedef int IW;
#define GEMM cblas_sgemm
#define PARAMS(m) ((m)->params_f)
#define SW(name) name##_f32
#else
typedef double R;
typedef long long IW;
#define GEMM cblas_dgemm
#define PARAMS(m) ((m)->params)
#define SW(name) name
#endif

#define SWEEP_BLOCK MLP_SWEEP_BLOCK
/* Outputs on the basis are written a run of up to SWEEP_RUN inputs per
 * row at a time: a block's 32 values per row, for hundreds of rows, are
 * scattered writes. */
#define SWEEP_RUN 256
#define SWEEP_CR (SWEEP_RUN + SWEEP_BLOCK) /* a row of the run's coefficients, with a block's room */
#if defined(__GNUC__) /* GCC's vector extension (GCC and clang); elsewhere the dense path runs */
#define HAVE_SWEEP 1

static size_t sweep_stages(const skit_mlp *m) { return m->hidden_layers + 1; }

/* values (of R) of the sweep's state (sweep_layout) */
static size_t sweep_values(const skit_mlp *m)
{
    const size_t w = m->width, A = sweep_stages(m);
    return w * (A * (A + 1) + A + (A + 1) + 1 + 2 * SWEEP_BLOCK) + 2 * SWEEP_BLOCK * (A + 2) + 2 * (A + 2) +
           2 * SWEEP_BLOCK + (A + 2) * SWEEP_CR;
}

/* The sweep's state carved from the workspace (sweep_values of it) */
typedef struct sweep_state {
    R *bt;     /* A stages x (A + 1) basis rows of w: Bt_s at bt + s (A + 1) w */
    R *mask;   /* A x w: the 0/1 ReLU masks the bases were built for */
    R *db;     /* (A + 1) x w: a masked basis, for the rebuild's GEMM */
    R *v;      /* w: one input's values (sweep_one) */
    R *V;      /* w x SWEEP_BLOCK: a block's values */
    R *C, *Cn; /* (A + 2) x SWEEP_BLOCK: a block's coefficients, this stage and next */
    R *c, *cn; /* A + 2: one input's */
    R *Fb;     /* w x SWEEP_BLOCK: features of inputs in short runs, pending (outputs only) */
    R *Fs;     /* SWEEP_BLOCK: their scales */
    R *Cr;     /* (A + 2) x SWEEP_CR: a run's last-stage coefficients, pending (outputs only) */
    R *M;      /* out_dim x (A + 2): the output layer on the last stage's basis (outputs only) */
    R *Y;      /* out_dim x SWEEP_BLOCK: the pending inputs' outputs */
} sweep_state;

static sweep_state sweep_layout(const skit_mlp *m, R *work)
{
    const size_t w = m->width, A = sweep_stages(m), B = SWEEP_BLOCK;
    sweep_state st;
    st.bt = work;
    st.mask = st.bt + A * (A + 1) * w;
    st.db = st.mask + A * w;
    st.v = st.db + (A + 1) * w;
    st.V = st.v + w;
    st.C = st.V + w * B;
    st.Cn = st.C + (A + 2) * B;
    st.c = st.Cn + (A + 2) * B;
    st.cn = st.c + A + 2;
    st.Fb = st.cn + A + 2;
    st.Fs = st.Fb + w * B;
    st.Cr = st.Fs + 2 * B;
    st.M = st.Cr + (A + 2) * SWEEP_CR;
    st.Y = st.M + m->out_dim * (A + 2);
    return st;
}

/* The sweep pays while an input's basis work, w (s + 2) per stage, stays
 * well under a dense layer's w^2 (hence s + 2 <= w / 4); callers choosing
 * it also want the one-off build at the first input amortised (count >=
 * SWEEP_BLOCK: skit_mlp_features, skit_mlp_outputs_sweep_able), but it is
 * right for any count. */
static int sweep_eligible(const skit_mlp *m, size_t count)
{
    if (!PARAMS(m)) return 0; /* the float copy is kept only on request */
    const size_t A = sweep_stages(m);
    if (m->activation != SKIT_ACTIVATION_RELU || m->in_dim != 1 || count == 0) return 0;
    if (4 * (A + 1) > m->width) return 0;
    return sweep_values(m) <= skit_mlp_features_workspace(m);
}

/* LayerNorm's mean subtraction on one basis vector */
static void project(const skit_mlp *m, R *row)
{
    if (m->norm != SKIT_NORM_LAYER) return;
    const size_t w = m->width;
    R mean = 0;
    for (size_t j = 0; j < w; j++) mean += row[j];
    mean /= (R)w;
    for (size_t j = 0; j < w; j++) row[j] -= mean;
}

/* Bt_s (s + 2 rows of w) from Bt_{s-1} and the mask D_{s-1}: the rows
 * D Bt_{s-1} times W_s^T, then b_s, each projected */
static void sweep_rebuild(const skit_mlp *m, size_t s, const R *prev, const R *mask, R *db,
                          R *next)
{
    const size_t w = m->width, rows = s + 1;
    const R *W = PARAMS(m) + mlp_layer_offset(m, s), *bias = W + w * w;
    for (size_t q = 0; q < rows; q++)
        for (size_t j = 0; j < w; j++) db[q * w + j] = mask[j] * prev[q * w + j];
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)w, (int)w, 1.0, db, (int)w, W, (int)w,
                0.0, next, (int)w);
    memcpy(next + rows * w, bias, w * sizeof(R));
    for (size_t q = 0; q <= rows; q++) project(m, next + q * w);
}

/* v = Bt c (k rows), then the norm's inv and the ReLU mask; returns the
 * number of units whose mask changed (mask updated in place) */
SKIT_MULTIVERSION static size_t sweep_stage(const skit_mlp *m, const R *restrict bt, size_t k,
                                            const R *restrict c, R *restrict v,
                                            R *restrict mask, R *inv)
{
    const size_t w = m->width;
    for (size_t j = 0; j < w; j++) v[j] = bt[j] * c[0];
    for (size_t q = 1; q < k; q++) {
        const R *restrict row = bt + q * w;
        const R cq = c[q];
        SKIT_SIMD
        for (size_t j = 0; j < w; j++) v[j] += row[j] * cq;
    }
    double ss = 0;
    size_t changed = 0;
    SKIT_SIMD_SUM(ss)
    for (size_t j = 0; j < w; j++) ss += v[j] * v[j];
    for (size_t j = 0; j < w; j++) {
        R on = v[j] > 0 ? 1.0 : 0.0;
        changed += on != mask[j];
        mask[j] = on;
    }
    *inv = m->norm == SKIT_NORM_LAYER ? 1.0 / sqrt(ss / (double)w + LAYER_NORM_EPS)
         : m->norm == SKIT_NORM_RMS   ? 1.0 / (sqrt(ss / (double)w) + RMS_NORM_EPS)
                                      : 1.0;
    return changed;
}

/* One input the slow way: stage by stage, each mask compared with the
 * last input's and every basis above a changed mask rebuilt. Leaves the
 * last stage's values in st->v and coefficients in st->c, returns its inv. */
static R sweep_one(const skit_mlp *m, R x, const sweep_state *st)
{
    const size_t w = m->width, A = sweep_stages(m), stride = (A + 1) * w;
    R *bt = st->bt, *mask = st->mask, *c = st->c, *cn = st->cn;
    int stale = 0;
    R inv = 1.0;
    c[0] = x;
    c[1] = 1.0;
    for (size_t s = 0; s < A; s++) {
        const size_t k = s + 2;
        if (stale) sweep_rebuild(m, s, bt + (s - 1) * stride, mask + (s - 1) * w, st->db, bt + s * stride);
        if (sweep_stage(m, bt + s * stride, k, c, st->v, mask + s * w, &inv)) stale = 1;
        if (s + 1 == A) break;
        for (size_t q = 0; q < k; q++) cn[q] = c[q] * inv;
        cn[k] = 1.0;
        R *t = c;
        c = cn;
        cn = t;
    }
    if (c != st->c) memcpy(st->c, c, (A + 1) * sizeof(R));
    return inv;
}

/* The block's accumulators in GCC vector types, so that they stay in
 * registers (as plain arrays they go through memory and the block loop is
 * latency-bound). Vectors of 32 bytes (4 doubles, 8 floats), the widest
 * that every x86-64-v3 (AVX2) machine has: GCC lowers 64-byte vectors on
 * AVX2 to scalar compares and stack traffic, slower than the dense path.
 * Aligned to one value: the workspace is only value-aligned. IW is the
 * integer of R's width, the lanes of a vector compare. */
#define SWEEP_LANES (32 / (int)sizeof(R))
#define SWEEP_VECS (SWEEP_BLOCK / SWEEP_LANES)
/* vectors a pass of sweep_block_stage holds: acc, ss and bad of each,
 * 3 x 4 of AVX2's 16 registers */
#define SWEEP_CHUNK 4
typedef R sweep_vec __attribute__((vector_size(32), aligned(sizeof(R))));
typedef IW sweep_ivec __attribute__((vector_size(32), aligned(sizeof(R))));

/* Stage s for a block of SWEEP_BLOCK inputs at once, on the current
 * bases: V (w x SWEEP_BLOCK) = Bt_s C (C: k rows of SWEEP_BLOCK
 * coefficients), inv per input; returns how many of the first `cols`
 * inputs in a row have every unit's sign equal to the current mask (the
 * inputs the bases are right for). The lanes past cols are computed
 * too (on finite filler), so every loop has the block's fixed length and
 * the inputs run across the vector lanes, SWEEP_CHUNK vectors a pass. */
SKIT_MULTIVERSION static size_t sweep_block_stage(const skit_mlp *m, const R *restrict bt, size_t k,
                                                  const R *restrict C, const R *restrict mask,
                                                  size_t cols, R *restrict V, R *restrict inv)
{
    const size_t w = m->width;
    const sweep_vec *Cv = (const sweep_vec *)C;
    R sum[SWEEP_BLOCK];
    IW off[SWEEP_BLOCK];
    for (size_t u0 = 0; u0 < SWEEP_VECS; u0 += SWEEP_CHUNK) {
        sweep_vec ss[SWEEP_CHUNK], acc[SWEEP_CHUNK];
        sweep_ivec bad[SWEEP_CHUNK];
#pragma GCC unroll 8
        for (size_t u = 0; u < SWEEP_CHUNK; u++) {
            ss[u] = (sweep_vec){0};
            bad[u] = (sweep_ivec){0};
        }
        for (size_t j = 0; j < w; j++) {
            const R b0 = bt[j];
            const IW mj = mask[j] > 0 ? -1 : 0;
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_CHUNK; u++) acc[u] = b0 * Cv[u0 + u];
            for (size_t q = 1; q < k; q++) {
                const R bq = bt[q * w + j];
                const sweep_vec *cq = Cv + q * SWEEP_VECS + u0;
#pragma GCC unroll 8
                for (size_t u = 0; u < SWEEP_CHUNK; u++) acc[u] += bq * cq[u];
            }
            sweep_vec *vj = (sweep_vec *)(V + j * SWEEP_BLOCK) + u0;
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_CHUNK; u++) {
                vj[u] = acc[u];
                ss[u] += acc[u] * acc[u];
                bad[u] |= (acc[u] > 0) ^ mj;
            }
        }
        memcpy(sum + u0 * SWEEP_LANES, ss, sizeof ss);
        memcpy(off + u0 * SWEEP_LANES, bad, sizeof bad);
    }
    size_t good = 0;
    while (good < cols && off[good] == 0) good++;
    for (size_t b = 0; b < SWEEP_BLOCK; b++)
        inv[b] = m->norm == SKIT_NORM_LAYER ? 1.0 / sqrt(sum[b] / (double)w + LAYER_NORM_EPS)
               : m->norm == SKIT_NORM_RMS   ? 1.0 / (sqrt(sum[b] / (double)w) + RMS_NORM_EPS)
                                            : 1.0;
    return good;
}

/* next stage's coefficients of a block: Cn = [C inv; 1] */
SKIT_MULTIVERSION static void sweep_block_next(size_t k, const R *restrict C, const R *restrict inv,
                                               R *restrict Cn)
{
    enum { B = SWEEP_BLOCK };
    for (size_t q = 0; q < k; q++)
        for (size_t b = 0; b < B; b++) Cn[q * B + b] = C[q * B + b] * inv[b];
    for (size_t b = 0; b < B; b++) Cn[k * B + b] = 1.0;
}

/* a block's features: out row j = relu(V row j) inv scale */
SKIT_MULTIVERSION static void sweep_block_out(size_t w, const R *restrict V, const R *restrict inv,
                                              const double *restrict scale, size_t cols, R *restrict out,
                                              size_t ldo)
{
    const size_t B = SWEEP_BLOCK;
    R f[SWEEP_BLOCK];
    for (size_t b = 0; b < cols; b++) f[b] = inv[b] * (scale ? scale[b] : 1.0);
    for (size_t j = 0; j < w; j++) {
        const R *restrict vj = V + j * B;
        R *restrict o = out + j * ldo;
        SKIT_SIMD
        for (size_t b = 0; b < cols; b++) o[b] = (vj[b] > 0 ? vj[b] : 0.0) * f[b];
    }
}

/* Where the sweep writes: the features (M == NULL: row j at out + j ldo),
 * or the outputs, row r at out + (r % split) ldo + (r / split) part (so
 * that FD-TNO's real and imaginary outputs can land in one spectrum row) */
typedef struct sweep_sink {
    R *out;
    size_t ldo, split, part;
    int outputs;
    double *row_ss; /* outputs: each row's sum of squares so far (NULL: none) */
} sweep_sink;

/* row_ss[r] takes in the squares of count values (inline: it runs per
 * row and block, where a call cost as much as the outputs themselves) */
static inline __attribute__((always_inline)) void track_ss(const sweep_sink *sk, size_t r, const R *v,
                                                          size_t count)
{
    if (!sk->row_ss) return;
    double ss = 0.0;
#ifdef _OPENMP
#pragma omp simd reduction(+ : ss)
#endif
    for (size_t b = 0; b < count; b++) ss += (double)v[b] * v[b];
    sk->row_ss[r] += ss;
}

static R *sink_row(const sweep_sink *sk, size_t r)
{
    return sk->out + (r % sk->split) * sk->ldo + (r / sk->split) * sk->part;
}

/* M = [W_out D_L Bt_L | b_out] (ld A + 2): the output layer on the last
 * stage's basis, rebuilt after a mask change for the next long run */
static void sweep_output_basis(const skit_mlp *m, const sweep_state *st)
{
    const size_t w = m->width, A = sweep_stages(m), k = A + 1, out = m->out_dim;
    const R *bt = st->bt + (A - 1) * (A + 1) * w, *mask = st->mask + (A - 1) * w;
    const R *W = PARAMS(m) + mlp_layer_offset(m, m->linear_count - 1), *bias = W + out * w;
    for (size_t q = 0; q < k; q++)
        for (size_t j = 0; j < w; j++) st->db[q * w + j] = mask[j] * bt[q * w + j];
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)out, (int)k, (int)w, 1.0, W, (int)w, st->db, (int)w,
                0.0, st->M, (int)(A + 2));
    for (size_t r = 0; r < out; r++) st->M[r * (A + 2) + k] = bias[r];
}

/* A run's outputs: row r = (M row r) Cr for the count inputs from pos,
 * Cr the (A + 2) x SWEEP_RUN last-stage coefficients [c inv; 1] with the
 * scale folded in (rows SWEEP_CR apart); each row's sum of squares taken
 * on the way (lanes past count hold zeros) */
SKIT_MULTIVERSION static void sweep_run_outputs(const skit_mlp *m, const R *restrict M,
                                                const R *restrict Cr, size_t count, const sweep_sink *sk,
                                                size_t pos)
{
    const size_t kk = sweep_stages(m) + 2, chunks = (count + SWEEP_BLOCK - 1) / SWEEP_BLOCK;
    for (size_t r = 0; r < m->out_dim; r++) {
        const R *mr = M + r * kk;
        R *o = sink_row(sk, r) + pos;
        sweep_vec ss = {0};
        for (size_t ch = 0; ch < chunks; ch++) {
            const sweep_vec *Cv = (const sweep_vec *)(Cr + ch * SWEEP_BLOCK);
            sweep_vec acc[SWEEP_VECS];
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_VECS; u++) acc[u] = mr[0] * Cv[u];
            for (size_t q = 1; q < kk; q++) {
                const R mq = mr[q];
                const sweep_vec *cq = Cv + q * (SWEEP_CR / SWEEP_LANES);
#pragma GCC unroll 8
                for (size_t u = 0; u < SWEEP_VECS; u++) acc[u] += mq * cq[u];
            }
#pragma GCC unroll 8
            for (size_t u = 0; u < SWEEP_VECS; u++) ss += acc[u] * acc[u];
            const size_t at = ch * SWEEP_BLOCK, left = count - at;
            if (left >= SWEEP_BLOCK) {
#pragma GCC unroll 8
                for (size_t u = 0; u < SWEEP_VECS; u++) *(sweep_vec *)(o + at + u * SWEEP_LANES) = acc[u];
            } else {
                R t[SWEEP_BLOCK];
                memcpy(t, acc, sizeof t);
                memcpy(o + at, t, left * sizeof(R));
            }
        }
        if (sk->row_ss) {
            R lane[SWEEP_LANES];
            memcpy(lane, &ss, sizeof lane);
            for (size_t l = 0; l < SWEEP_LANES; l++) sk->row_ss[r] += lane[l];
        }
    }
}

/* The pending inputs' outputs from their features (Fb, w x count, ld
 * SWEEP_BLOCK, scale folded in): one GEMM for all of them (OpenBLAS
 * packs W_out per call, so one call per input cost more than the dense
 * output layer), then the bias times the scale, to their positions */
SKIT_MULTIVERSION static void sweep_flush(const skit_mlp *m, const sweep_state *st, size_t count,
                                          const size_t *Fp, const sweep_sink *sk)
{
    const size_t w = m->width, out = m->out_dim;
    const R *W = PARAMS(m) + mlp_layer_offset(m, m->linear_count - 1), *bias = W + out * w;
    if (count == 0) return;
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)out, (int)count, (int)w, 1.0, W, (int)w, st->Fb,
         SWEEP_BLOCK, 0.0, st->Y, SWEEP_BLOCK);
    for (size_t r = 0; r < out; r++) {
        R *o = sink_row(sk, r), *y = st->Y + r * SWEEP_BLOCK;
        for (size_t b = 0; b < count; b++) y[b] += bias[r] * st->Fs[b];
        for (size_t b = 0; b < count; b++) o[Fp[b]] = y[b];
        track_ss(sk, r, y, count);
    }
}

/* Blocks of inputs go through every stage on the bases of the last mask
 * change; the block is cut at the first input whose masks differ, which
 * then goes through sweep_one (rebuilding the bases) before the next
 * block starts. */
static size_t sweep_run(const skit_mlp *m, size_t count, const double *x, const double *scale,
                        const sweep_sink *sk, R *work)
{
    const size_t w = m->width, A = sweep_stages(m), B = SWEEP_BLOCK;
    const sweep_state st = sweep_layout(m, work);
    R *bt = st.bt, *mask = st.mask, *V = st.V;
    R inv[SWEEP_BLOCK];
    size_t Fp[SWEEP_BLOCK]; /* the pending inputs' positions */
    /* stage 0's basis [w_0, b_0] is fixed; the masks start invalid, so the
     * first input (sweep_one) builds every later stage */
    memcpy(bt, PARAMS(m), w * sizeof(R));
    memcpy(bt + w, PARAMS(m) + w, w * sizeof(R));
    project(m, bt);
    project(m, bt + w);
    for (size_t j = 0; j < A * w; j++) mask[j] = -1.0;
    /* The output basis M costs out x w x (A + 1) to rebuild after a mask
     * change, as a skinny GEMM; a run of fewer than half a block gets its
     * outputs from its features instead (out x w each, pending until a
     * block's worth is there: sweep_flush, one efficient GEMM), so that
     * inputs whose masks change often (the FD-TNO's frequency grid, where
     * the flop count's rule "runs of A + 2 or more" lost to the dense
     * output layer) cost about as much as the dense output layer; so does
     * every run once more than one input in 8 has changed a mask. */
    int basis_stale = 1;
    size_t pos = 0, pending = 0, cuts = 0, run_start = 0, run_len = 0;
    while (pos < count) {
        const size_t block = SKIT_MIN(B, count - pos);
        size_t cols = pos ? block : 0; /* the first input goes through sweep_one */
        R *c = st.C, *cn = st.Cn;
        for (size_t b = 0; b < B; b++) { /* lanes past cols: the last input again */
            c[b] = x[pos + SKIT_MIN(b, block - 1)];
            c[B + b] = 1.0;
        }
        for (size_t s = 0; s < A && cols > 0; s++) {
            const size_t k = s + 2;
            cols = sweep_block_stage(m, bt + s * (A + 1) * w, k, c, mask + s * w, cols, V, inv);
            if (s + 1 == A) break;
            sweep_block_next(k, c, inv, cn);
            R *t = c;
            c = cn;
            cn = t;
        }
        const double *sc = scale ? scale + pos : NULL;
        if (cols > 0 && !sk->outputs) sweep_block_out(w, V, inv, sc, cols, sk->out + pos, sk->ldo);
        if (cols >= SWEEP_BLOCK / 2 && 8 * cuts <= pos && sk->outputs) { /* a long run, rare changes: the basis */
            R f[SWEEP_BLOCK];
            for (size_t b = 0; b < B; b++) f[b] = inv[b] * (scale ? scale[pos + SKIT_MIN(b, block - 1)] : 1.0);
            sweep_block_next(A + 1, c, f, cn);
            if (scale)
                for (size_t b = 0; b < B; b++) cn[(A + 1) * B + b] = scale[pos + SKIT_MIN(b, block - 1)];
            if (basis_stale) sweep_output_basis(m, &st);
            basis_stale = 0;
            if (run_len + cols > SWEEP_RUN) {
                sweep_run_outputs(m, st.M, st.Cr, run_len, sk, run_start);
                run_len = 0;
            }
            if (run_len == 0) run_start = pos;
            for (size_t q = 0; q < A + 2; q++) { /* lanes past cols: zeros */
                R *dst = st.Cr + q * SWEEP_CR + run_len;
                memcpy(dst, cn + q * B, cols * sizeof(R));
                memset(dst + cols, 0, (B - cols) * sizeof(R));
            }
            run_len += cols;
        } else if (cols > 0 && sk->outputs) { /* a short run: pending */
            if (pending + cols > B) {
                sweep_flush(m, &st, pending, Fp, sk);
                pending = 0;
            }
            sweep_block_out(w, V, inv, sc, cols, st.Fb + pending, SWEEP_BLOCK);
            for (size_t b = 0; b < cols; b++) {
                st.Fs[pending + b] = scale ? scale[pos + b] : 1.0;
                Fp[pending + b] = pos + b;
            }
            pending += cols;
        }
        pos += cols;
        if (cols < block) { /* input pos changed a mask (or is the first) */
            if (run_len) { /* before the basis changes */
                sweep_run_outputs(m, st.M, st.Cr, run_len, sk, run_start);
                run_len = 0;
            }
            const R s1 = scale ? scale[pos] : 1.0, in = sweep_one(m, x[pos], &st);
            if (sk->outputs && pending == B) {
                sweep_flush(m, &st, pending, Fp, sk);
                pending = 0;
            }
            R *f = sk->outputs ? st.Fb + pending : sk->out + pos;
            const size_t ld = sk->outputs ? SWEEP_BLOCK : sk->ldo;
            for (size_t j = 0; j < w; j++) f[j * ld] = (st.v[j] > 0 ? st.v[j] : 0.0) * in * s1;
            if (sk->outputs) {
                st.Fs[pending] = s1;
                Fp[pending++] = pos;
            }
            basis_stale = 1;
            cuts++;
            pos++;
        }
    }
    if (run_len) sweep_run_outputs(m, st.M, st.Cr, run_len, sk, run_start);
    if (sk->outputs) sweep_flush(m, &st, pending, Fp, sk);
    return cuts;
}

/* ---- entry points (mlp_internal.h), one set per precision -------------- */

int SW(mlp_sweep_eligible)(const skit_mlp *m, size_t count) { return sweep_eligible(m, count); }

size_t SW(mlp_sweep_values)(const skit_mlp *m) { return sweep_values(m); }

void SW(mlp_sweep_features)(const skit_mlp *m, size_t count, const double *x, const double *scale, R *out,
                            size_t ldo, double *work)
{
    const sweep_sink sk = {out, ldo, 1, 0, 0, NULL};
    sweep_run(m, count, x, scale, &sk, (R *)work);
}

size_t SW(mlp_sweep_outputs)(const skit_mlp *m, size_t count, const double *x, const double *scale, R *out,
                             size_t ldo, size_t split, size_t part, double *row_ss, double *work)
{
    const sweep_sink sk = {out, ldo, split, part, 1, row_ss};
    return sweep_run(m, count, x, scale, &sk, (R *)work);
}

#else /* no vector extension: the callers take the dense path */

int SW(mlp_sweep_eligible)(const skit_mlp *m, size_t count)
{
    (void)m, (void)count;
    return 0;
}

size_t SW(mlp_sweep_values)(const skit_mlp *m)
{
    (void)m;
    return 0;
}

void SW(mlp_sweep_features)(const skit_mlp *m, size_t count, const double *x, const double *scale, R *out,
                            size_t ldo, double *work)
{
    (void)m, (void)count, (void)x, (void)scale, (void)out, (void)ldo, (void)work;
}

size_t SW(mlp_sweep_outputs)(const skit_mlp *m, size_t count, const double *x, const double *scale, R *out,
                             size_t ldo, size_t split, size_t part, double *row_ss, double *work)
{
    (void)m, (void)count, (void)x, (void)scale, (void)out, (void)ldo, (void)split, (void)part, (void)row_ss,
        (void)work;
    return 0;
}

#endif
