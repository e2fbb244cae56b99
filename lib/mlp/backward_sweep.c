/* backward_sweep.c — the MLP's parameter gradient (and output dots) along
 * one input by a sweep, for skit_mlp_backward_dots: ReLU, one input, RMS
 * norm or none, no dx or y wanted.
 *
 * The forward's sweep (sweep.c) keeps stage s in a basis while the ReLU
 * masks hold: z_s = B_s c_s, with c_0 = [x, 1], c_{s+1} = [inv_s c_s, 1]
 * and B_{s+1} = [W_{s+1} D_s B_s | b_{s+1}] (D_s the mask, inv_s the RMS
 * norm's 1/(r_s + eps)); the output is y = B_A c_A. The backward keeps the
 * gradient reaching stage s in the same spirit:
 *     ga_s(t) = Q_s dy(t) alpha_s(t) + R_s beta_s(t),
 * Q_s = W_{s+1}^T D_{s+1} ... D_{A-1} W_A^T and R_s (width x m_s) fixed
 * over a run of constant masks, alpha_s a scalar and beta_s a short vector
 * per input. The norm's backward needs one scalar per input and stage,
 * sigma_s = inv_s (ga_s . D_s B_s c_s) / (w r_s), which reads dy only
 * through dy^T P_s with P_s = Q_s^T D_s B_s (out x (s + 2)); and every
 * Linear's gradient is a run's sum of gz_s(t) c_s(t)^T, mapped back to the
 * weights once per run:
 *     sum_t gz_s c_s^T = D_s Q_s [sum_t inv alpha dy c^T]
 *                      + D_s R_s [sum_t inv beta c^T] - B_s [sum_t sigma inv c c^T].
 * Per input that costs two products of dy with (out x ~A^2/2) matrices
 * (one GEMM each per chunk of inputs) instead of the dense backward's
 * width x out + 3 A width^2 multiply-adds; per run, a few width x width x
 * (A + 2) products. Runs shorter than what their set-up costs go through
 * the dense backward (backward.c), so the sweep is never much slower than
 * it. Every sum is the dense path's reassociated: the gradient agrees with
 * it to rounding (tests/test_mlp.c). */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "core/simd.h" /* SKIT_MULTIVERSION, SKIT_SIMD */
#include "mlp/mlp_internal.h"

/* inputs per chunk: the chunk's dy rows meet two GEMMs at once */
#define CHUNK 256
/* hidden layers the sweep takes (its state grows as A^3) */
#define MAX_STAGES 8

typedef struct sweep_dims {
    size_t w, out, A, ktot, ka;
} sweep_dims;

/* offset of stage s's coefficients among a point's: sum_{j<s} (j + 2) */
static size_t koff(size_t s) { return s * (s + 3) / 2; }

static sweep_dims dims_of(const skit_mlp *m)
{
    sweep_dims d = {m->width, m->out_dim, m->hidden_layers + 1, 0, 0};
    d.ktot = koff(d.A);
    d.ka = d.ktot + d.A + 2;
    return d;
}

/* columns of R_s: the coefficients of the stages above s */
static size_t m_of(const sweep_dims *d, size_t s) { return d->ktot - koff(s + 1); }

typedef struct sweep {
    const skit_mlp *m;
    sweep_dims d;
    double *B, *DB;      /* stage s's basis (w x (s+2)) at w koff(s), and its masked rows */
    double *Bt;          /* B_s transposed ((s+2) x w), for the inputs' forward */
    double *mask;        /* A x w, 1 where the unit is on, else 0 */
    double *z;           /* w: one stage of one input */
    double *Pcat;        /* out x ka: P_0 .. P_{A-1}, then B_A */
    double *R, *S;       /* per stage: R_s (w x ktot slot), S_s = R_s^T D_s B_s (ktot x (A+1) slot) */
    double *Zcat;        /* out x ka: the run's sum of dy (inv alpha c)^T per stage, then of dy c_A^T */
    double *Zb, *Zs;     /* per stage: sum inv beta c^T (ktot x (A+1) slot), sum sigma inv c c^T ((A+1)^2) */
    double *C, *IR;      /* chunk: each input's c_0 .. c_A (ka), and inv_s, r_s (2A) */
    double *Y, *M;       /* chunk: dy Pcat, and the rows (inv alpha c ..., c_A) */
    double *T1, *T2;     /* w x (A+1) each */
    double *Tr;          /* w x ktot: D_s R_s */
    double *beta;        /* ktot */
} sweep;

static int sweep_shape(const skit_mlp *m);

size_t mlp_backward_sweep_workspace(const skit_mlp *m)
{
    if (!sweep_shape(m)) return 0;
    sweep_dims d = dims_of(m);
    const size_t w = d.w, A = d.A, slot_r = w * d.ktot, slot_s = d.ktot * (A + 1);
    return 3 * w * d.ktot + A * w + w + 2 * d.out * d.ka + A * (slot_r + 2 * slot_s + (A + 1) * (A + 1)) +
           (size_t)CHUNK * (3 * d.ka + 2 * A) + 2 * w * (A + 1) + w * d.ktot + d.ktot;
}

static sweep carve(const skit_mlp *m, double *work)
{
    sweep st = {.m = m, .d = dims_of(m)};
    const sweep_dims *d = &st.d;
    const size_t w = d->w, A = d->A;
    double *at = work;
#define TAKE(ptr, n) (ptr = at, at += (n))
    TAKE(st.B, w * d->ktot);
    TAKE(st.DB, w * d->ktot);
    TAKE(st.Bt, w * d->ktot);
    TAKE(st.mask, A * w);
    TAKE(st.z, w);
    TAKE(st.Pcat, d->out * d->ka);
    TAKE(st.Zcat, d->out * d->ka);
    TAKE(st.R, A * w * d->ktot);
    TAKE(st.S, A * d->ktot * (A + 1));
    TAKE(st.Zb, A * d->ktot * (A + 1));
    TAKE(st.Zs, A * (A + 1) * (A + 1));
    TAKE(st.C, (size_t)CHUNK * d->ka);
    TAKE(st.IR, (size_t)CHUNK * 2 * A);
    TAKE(st.Y, (size_t)CHUNK * d->ka);
    TAKE(st.M, (size_t)CHUNK * d->ka);
    TAKE(st.T1, w * (A + 1));
    TAKE(st.T2, w * (A + 1));
    TAKE(st.Tr, w * d->ktot);
    TAKE(st.beta, d->ktot);
#undef TAKE
    return st;
}

static const double *weight(const sweep *st, size_t l) { return st->m->params + mlp_layer_offset(st->m, l); }
static const double *bias(const sweep *st, size_t l)
{
    return weight(st, l) + mlp_layer_out(st->m, l) * mlp_layer_in(st->m, l);
}
static double *basis(const sweep *st, double *base, size_t s) { return base + st->d.w * koff(s); }
static double *slot_r(const sweep *st, size_t s) { return st->R + s * st->d.w * st->d.ktot; }
static double *slot_s(const sweep *st, double *base, size_t s) { return base + s * st->d.ktot * (st->d.A + 1); }

/* rows of a (w x k) matrix where the stage's unit is off set to 0 */
static void mask_rows(const double *mask, size_t w, size_t k, const double *src, double *dst)
{
    for (size_t i = 0; i < w; i++)
        for (size_t j = 0; j < k; j++) dst[i * k + j] = mask[i] != 0.0 ? src[i * k + j] : 0.0;
}

/* Bt_s from B_s */
static void transpose_basis(sweep *st, size_t s)
{
    const size_t w = st->d.w, ks = s + 2;
    const double *B = basis(st, st->B, s);
    double *Bt = basis(st, st->Bt, s);
    for (size_t i = 0; i < w; i++)
        for (size_t j = 0; j < ks; j++) Bt[j * w + i] = B[i * ks + j];
}

/* stage s takes z's mask: D_s B_s, and B_{s+1} = [W_{s+1} D_s B_s | b_{s+1}] */
static void adopt_mask(sweep *st, size_t s)
{
    const size_t w = st->d.w, ks = s + 2;
    double *mask = st->mask + s * w, *DBs = basis(st, st->DB, s);
    for (size_t i = 0; i < w; i++) mask[i] = st->z[i] > 0 ? 1.0 : 0.0;
    mask_rows(mask, w, ks, basis(st, st->B, s), DBs);
    if (s + 1 == st->d.A) return;
    double *Bn = basis(st, st->B, s + 1);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)w, (int)ks, (int)w, 1.0, weight(st, s + 1),
                (int)w, DBs, (int)ks, 0.0, Bn, (int)(ks + 1));
    const double *b = bias(st, s + 1);
    for (size_t i = 0; i < w; i++) Bn[i * (ks + 1) + ks] = b[i];
    transpose_basis(st, s + 1);
}

/* z = Bt^T c over the w units (lanes along the units); returns the sum
 * of squares, and *differs whether a unit's sign leaves its mask */
SKIT_MULTIVERSION
static double stage_values(const double *Bt, const double *c, size_t ks, size_t w, const double *mask, double *z,
                           int *differs)
{
    SKIT_SIMD
    for (size_t i = 0; i < w; i++) z[i] = 0.0;
    for (size_t j = 0; j < ks; j++) {
        const double cj = c[j], *row = Bt + j * w;
        SKIT_SIMD
        for (size_t i = 0; i < w; i++) z[i] += cj * row[i];
    }
    double ss = 0;
    int off = 0;
    SKIT_SIMD_SUM(ss, off)
    for (size_t i = 0; i < w; i++) {
        ss += z[i] * z[i];
        off += (z[i] > 0) != (mask[i] == 1.0);
    }
    *differs = off != 0;
    return ss;
}

enum { CHECK, ADOPT, ADOPT_ALL };

/* One input through the stages on the current bases: c gets c_0 .. c_A,
 * ir the stages' inv and r. CHECK returns the first stage whose mask
 * differs (A: the input continues the run); ADOPT gives such a stage the
 * input's mask and rebuilds every stage above it, ADOPT_ALL every stage
 * (the first input: no mask yet), and both return A. */
static size_t point_forward(sweep *st, double x, double *c, double *ir, int mode)
{
    const size_t w = st->d.w, A = st->d.A;
    const int rms = st->m->norm == SKIT_NORM_RMS, adopt = mode != CHECK;
    int rebuilding = mode == ADOPT_ALL;
    c[0] = x;
    c[1] = 1.0;
    for (size_t s = 0; s < A; s++) {
        const size_t ks = s + 2;
        const double *cs = c + koff(s);
        int differs;
        const double ss = stage_values(basis(st, st->Bt, s), cs, ks, w, st->mask + s * w, st->z, &differs);
        if (differs || rebuilding) {
            if (!adopt) return s;
            adopt_mask(st, s);
            rebuilding = 1;
        }
        const double r = sqrt(ss / (double)w), inv = rms ? 1.0 / (r + RMS_NORM_EPS) : 1.0;
        ir[2 * s] = inv;
        ir[2 * s + 1] = r;
        double *cn = c + koff(s + 1);
        for (size_t j = 0; j < ks; j++) cn[j] = inv * cs[j];
        cn[ks] = 1.0;
    }
    return A;
}

/* P_s = W_A D_{A-1} W_{A-1} ... D_{s+1} W_{s+1} D_s B_s into Pcat, right to left */
static void make_p(sweep *st, size_t s)
{
    const size_t w = st->d.w, A = st->d.A, ks = s + 2;
    double *t1 = st->T1, *t2 = st->T2;
    memcpy(t1, basis(st, st->DB, s), w * ks * sizeof(double));
    for (size_t l = s + 1; l < A; l++) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)w, (int)ks, (int)w, 1.0, weight(st, l), (int)w,
                    t1, (int)ks, 0.0, t2, (int)ks);
        mask_rows(st->mask + l * w, w, ks, t2, t1);
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)st->d.out, (int)ks, (int)w, 1.0, weight(st, A),
                (int)w, t1, (int)ks, 0.0, st->Pcat + koff(s), (int)st->d.ka);
}

/* R_{s-1} = [W_s^T D_s R_s | W_s^T B_s] for s = A-1 .. 1 (R_{A-1} has no
 * columns; R_s's rows have m_s values), then S_s = R_s^T D_s B_s */
static void make_r(sweep *st)
{
    const size_t w = st->d.w, A = st->d.A;
    for (size_t s = A - 1; s >= 1; s--) {
        const size_t ms = m_of(&st->d, s), mn = m_of(&st->d, s - 1), ks = s + 2;
        double *Rn = slot_r(st, s - 1);
        const double *Ws = weight(st, s);
        if (ms) {
            mask_rows(st->mask + s * w, w, ms, slot_r(st, s), st->Tr);
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)w, (int)ms, (int)w, 1.0, Ws, (int)w, st->Tr,
                        (int)ms, 0.0, Rn, (int)mn);
        }
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)w, (int)ks, (int)w, 1.0, Ws, (int)w,
                    basis(st, st->B, s), (int)ks, 0.0, Rn + ms, (int)mn);
    }
    for (size_t s = 0; s < A; s++) {
        const size_t ms = m_of(&st->d, s), ks = s + 2;
        if (ms)
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)ms, (int)ks, (int)w, 1.0, slot_r(st, s),
                        (int)ms, basis(st, st->DB, s), (int)ks, 0.0, slot_s(st, st->S, s), (int)ks);
    }
}

/* A run's bases are fixed: its P_s, B_A, R_s, S_s, and zero sums */
static void run_setup(sweep *st)
{
    const sweep_dims *d = &st->d;
    const size_t w = d->w, A = d->A;
    for (size_t s = 0; s < A; s++) make_p(st, s);
    /* B_A = [W_A D_{A-1} B_{A-1} | b_A], beside the P_s */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)d->out, (int)(A + 1), (int)w, 1.0, weight(st, A),
                (int)w, basis(st, st->DB, A - 1), (int)(A + 1), 0.0, st->Pcat + d->ktot, (int)d->ka);
    const double *bA = bias(st, A);
    for (size_t c = 0; c < d->out; c++) st->Pcat[c * d->ka + d->ka - 1] = bA[c];
    make_r(st);
    memset(st->Zcat, 0, d->out * d->ka * sizeof(double));
    memset(st->Zb, 0, A * d->ktot * (A + 1) * sizeof(double));
    memset(st->Zs, 0, A * (A + 1) * (A + 1) * sizeof(double));
}

static double dot(const double *a, const double *b, size_t k)
{
    double s = 0;
    for (size_t j = 0; j < k; j++) s += a[j] * b[j];
    return s;
}

/* One input's way down the stages (c, ir: its forward; y: dy^T Pcat):
 * the sums of beta and sigma, and its row of M; returns <dy, y>. */
static double point_backward(sweep *st, const double *c, const double *ir, const double *y, double *mrow)
{
    const sweep_dims *d = &st->d;
    const size_t w = d->w, A = d->A;
    const int rms = st->m->norm == SKIT_NORM_RMS;
    double alpha = 1.0, *beta = st->beta;
    size_t mc = 0;
    for (size_t s = A; s-- > 0;) {
        const size_t ks = s + 2;
        const double *cs = c + koff(s), inv = ir[2 * s], r = ir[2 * s + 1];
        const double *Ss = slot_s(st, st->S, s);
        double sc = 0;
        for (size_t i = 0; i < mc; i++) sc += beta[i] * dot(Ss + i * ks, cs, ks);
        const double sigma = rms && r > 0 ? inv / ((double)w * r) * (alpha * dot(y + koff(s), cs, ks) + sc) : 0.0;
        double *Zb = slot_s(st, st->Zb, s), *Zs = st->Zs + s * (A + 1) * (A + 1);
        for (size_t j = 0; j < ks; j++) mrow[koff(s) + j] = inv * alpha * cs[j];
        for (size_t i = 0; i < mc; i++)
            for (size_t j = 0; j < ks; j++) Zb[i * ks + j] += inv * beta[i] * cs[j];
        for (size_t i = 0; i < ks; i++)
            for (size_t j = 0; j < ks; j++) Zs[i * ks + j] += sigma * inv * cs[i] * cs[j];
        for (size_t i = 0; i < mc; i++) beta[i] *= inv;
        for (size_t j = 0; j < ks; j++) beta[mc + j] = -sigma * inv * cs[j];
        mc += ks;
        alpha *= inv;
    }
    const double *cA = c + d->ktot;
    memcpy(mrow + d->ktot, cA, (A + 2) * sizeof(double));
    return dot(y + d->ktot, cA, A + 2);
}

/* a chunk of len inputs of the run, dy rows from dy (out apart) */
static void run_chunk(sweep *st, size_t len, const double *dy, double *dots)
{
    const sweep_dims *d = &st->d;
    const size_t ka = d->ka;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)len, (int)ka, (int)d->out, 1.0, dy, (int)d->out,
                st->Pcat, (int)ka, 0.0, st->Y, (int)ka);
    for (size_t t = 0; t < len; t++) {
        double dt = point_backward(st, st->C + t * ka, st->IR + t * 2 * d->A, st->Y + t * ka, st->M + t * ka);
        if (dots) dots[t] = dt;
    }
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)d->out, (int)ka, (int)len, 1.0, dy, (int)d->out,
                st->M, (int)ka, 1.0, st->Zcat, (int)ka);
}

/* G_s = D_s Q_s Zq_s + D_s R_s Zb_s - B_s Zs_s (w x (s+2)) into T1 */
static void stage_gradient(sweep *st, size_t s)
{
    const sweep_dims *d = &st->d;
    const size_t w = d->w, A = d->A, ks = s + 2, ms = m_of(d, s);
    double *v = st->T1, *t = st->T2;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)w, (int)ks, (int)d->out, 1.0, weight(st, A), (int)w,
                st->Zcat + koff(s), (int)d->ka, 0.0, v, (int)ks);
    for (size_t l = A - 1; l > s; l--) {
        mask_rows(st->mask + l * w, w, ks, v, t);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)w, (int)ks, (int)w, 1.0, weight(st, l), (int)w, t,
                    (int)ks, 0.0, v, (int)ks);
    }
    if (ms)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)w, (int)ks, (int)ms, 1.0, slot_r(st, s),
                    (int)ms, slot_s(st, st->Zb, s), (int)ks, 1.0, v, (int)ks);
    mask_rows(st->mask + s * w, w, ks, v, t);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)w, (int)ks, (int)ks, -1.0, basis(st, st->B, s),
                (int)ks, st->Zs + s * (A + 1) * (A + 1), (int)ks, 1.0, t, (int)ks);
    memcpy(v, t, w * ks * sizeof(double));
}

/* the run's sums mapped onto the Linears' parameters, added to dparams */
static void run_finish(sweep *st, double *dparams)
{
    const sweep_dims *d = &st->d;
    const size_t w = d->w, A = d->A;
    for (size_t s = 0; s < A; s++) {
        const size_t ks = s + 2;
        stage_gradient(st, s);
        const double *G = st->T1;
        double *dW = dparams + mlp_layer_offset(st->m, s), *db = dW + w * (s ? w : 1);
        if (s)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)w, (int)w, (int)(s + 1), 1.0, G, (int)ks,
                        basis(st, st->DB, s - 1), (int)(s + 1), 1.0, dW, (int)w);
        else
            for (size_t i = 0; i < w; i++) dW[i] += G[i * ks];
        for (size_t i = 0; i < w; i++) db[i] += G[i * ks + s + 1];
    }
    double *dW = dparams + mlp_layer_offset(st->m, A), *db = dW + d->out * w;
    const double *H = st->Zcat + d->ktot;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)d->out, (int)w, (int)(A + 1), 1.0, H, (int)d->ka,
                basis(st, st->DB, A - 1), (int)(A + 1), 1.0, dW, (int)w);
    for (size_t c = 0; c < d->out; c++) db[c] += H[c * d->ka + A + 1];
}

/* Inputs below which a run goes through the dense backward: the run's
 * fixed cost over what each input saves, in multiply-adds. */
static size_t shortest_run(const sweep_dims *d)
{
    const double w = (double)d->w, out = (double)d->out, A = (double)d->A, ktot = (double)d->ktot;
    const double dense = 3 * (A - 1) * w * w + 2 * w * out + 2 * w;
    const double swept = 2 * out * (double)d->ka + w * ktot + 2 * ktot * (A + 1);
    double fixed = 2 * out * w * (A + 1) + 2 * w * w * ktot;
    for (size_t s = 0; s < d->A; s++) {
        const double ks = (double)(s + 2), above = A - 1 - (double)s;
        fixed += 2 * w * w * ks * above + w * w * (double)(s + 1);
    }
    if (dense <= swept) return SIZE_MAX;
    return (size_t)(fixed / (dense - swept)) + 1;
}

static int sweep_shape(const skit_mlp *m)
{
    return m->activation == SKIT_ACTIVATION_RELU && m->in_dim == 1 &&
           (m->norm == SKIT_NORM_RMS || m->norm == SKIT_NORM_NONE) && m->hidden_layers + 1 <= MAX_STAGES;
}

int mlp_backward_sweep_able(const skit_mlp *m, size_t count)
{
    if (!sweep_shape(m)) return 0;
    sweep_dims d = dims_of(m);
    return count >= MLP_BACKWARD_SWEEP_MIN && shortest_run(&d) < count;
}

/* The run [start, start + len) of pending inputs ends: the dense backward
 * for a short one that has not begun, else its last chunk and its sums. */
static void run_end(sweep *st, int begun, size_t start, size_t len, size_t min_run, const double *x,
                    const double *dy, double *dparams, double *dots, double *dense_work)
{
    const size_t out = st->d.out;
    if (!begun && len < min_run) {
        mlp_backward_dense(st->m, len, x + start, dy + start * out, dparams, dots ? dots + start : NULL, dense_work);
        return;
    }
    if (!begun) run_setup(st);
    if (len) run_chunk(st, len, dy + start * out, dots ? dots + start : NULL);
    run_finish(st, dparams);
}

void mlp_backward_sweep(const skit_mlp *m, size_t count, const double *x, const double *dy, double *dparams,
                        double *dots, double *work, double *dense_work, size_t min_run)
{
    sweep st = carve(m, work);
    const sweep_dims *d = &st.d;
    const size_t w = d->w, ka = d->ka, ir = 2 * d->A;
    if (!min_run) min_run = shortest_run(d);
    for (size_t i = 0; i < w; i++) { /* B_0 = [W_0 | b_0], w x 2 */
        st.B[2 * i] = weight(&st, 0)[i];
        st.B[2 * i + 1] = bias(&st, 0)[i];
    }
    transpose_basis(&st, 0);
    size_t start = 0, len = 0;
    int begun = 0;
    for (size_t t = 0; t <= count; t++) {
        if (t == count || !t || point_forward(&st, x[t], st.C + len * ka, st.IR + len * ir, CHECK) != d->A) {
            if (t) run_end(&st, begun, start, len, min_run, x, dy, dparams, dots, dense_work);
            if (t == count) break;
            point_forward(&st, x[t], st.C, st.IR, t ? ADOPT : ADOPT_ALL);
            start = t;
            len = 0;
            begun = 0;
        }
        if (++len == CHUNK) {
            if (!begun) run_setup(&st);
            begun = 1;
            run_chunk(&st, len, dy + start * d->out, dots ? dots + start : NULL);
            start += len;
            len = 0;
        }
    }
}
