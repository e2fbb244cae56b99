/* model_real.h — the layers of model.c that run in either precision: the
 * norms, the linear layers, SiLU, softmax attention, GTU, GLU,
 * cross-entropy and the whole forward and backward. model.c includes it twice: REAL double with the
 * plain names, REAL float with the _f32 names (SFX), GEMM/AXPY and
 * R_EXP the matching BLAS and libm calls. Not a header of its own.
 *
 * Sums over a row (the norms' mean and variance, their backward's means,
 * the softmax's normaliser and the loss) accumulate in double in both: in
 * float a sum of d terms carries up to d eps32 relative error (1e-4 at
 * d = 512), where the GEMMs' float sums are the precision asked for. */

static void SFX(norm_forward)(skit_norm kind, size_t rows, size_t d, const REAL *x, REAL *y, REAL *rstd)
{
    for (size_t r = 0; r < rows; r++) {
        const REAL *xr = x + r * d;
        double mean = 0, var = 0;
        if (kind == SKIT_NORM_LAYER) {
            for (size_t j = 0; j < d; j++) mean += xr[j];
            mean /= (double)d;
        }
        for (size_t j = 0; j < d; j++) var += (xr[j] - mean) * (xr[j] - mean);
        double s = 1.0 / sqrt(var / (double)d + NORM_EPS);
        rstd[r] = (REAL)s;
        for (size_t j = 0; j < d; j++) y[r * d + j] = (REAL)((xr[j] - mean) * s);
    }
}

/* dx += rstd (dy - mean(dy) [LayerNorm] - y mean(dy y)) */
static void SFX(norm_backward)(skit_norm kind, size_t rows, size_t d, const REAL *y, const REAL *rstd,
                               const REAL *dy, REAL *dx)
{
    for (size_t r = 0; r < rows; r++) {
        const REAL *yr = y + r * d, *g = dy + r * d;
        double mg = 0, mgy = 0;
        for (size_t j = 0; j < d; j++) {
            mg += g[j];
            mgy += (double)g[j] * yr[j];
        }
        mg = kind == SKIT_NORM_LAYER ? mg / (double)d : 0;
        mgy /= (double)d;
        for (size_t j = 0; j < d; j++) dx[r * d + j] += (REAL)(rstd[r] * (g[j] - mg - yr[j] * mgy));
    }
}

/* Y (rows x out) = X (rows x in) W^T, W out x in row-major (PyTorch Linear). */
static void SFX(linear_forward)(size_t rows, size_t in, size_t out, const REAL *X, const REAL *W, REAL *Y)
{
    GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)out, (int)in, 1, X, (int)in, W, (int)in, 0, Y,
         (int)out);
}

/* dX = beta dX + dY W; dW += dY^T X. */
static void SFX(linear_backward)(size_t rows, size_t in, size_t out, const REAL *X, const REAL *W,
                                 const REAL *dY, REAL *dX, REAL beta, REAL *dW)
{
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)in, (int)out, 1, dY, (int)out, W, (int)in,
         beta, dX, (int)in);
    GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)out, (int)in, (int)rows, 1, dY, (int)out, X, (int)in, 1,
         dW, (int)in);
}

static REAL SFX(sigmoid)(REAL x) { return 1 / (1 + R_EXP(-x)); }

static void SFX(silu_forward)(size_t count, const REAL *x, REAL *y)
{
    for (size_t i = 0; i < count; i++) y[i] = x[i] * SFX(sigmoid)(x[i]);
}

/* dx = dy silu'(x), in place on dy allowed */
static void SFX(silu_backward)(size_t count, const REAL *x, const REAL *dy, REAL *dx)
{
    for (size_t i = 0; i < count; i++) {
        REAL s = SFX(sigmoid)(x[i]);
        dx[i] = dy[i] * s * (1 + x[i] * (1 - s));
    }
}

/* ---- attention (and MRA-2's q, k): rotary positions, q and k -------------- */

/* x (R x e rows) turned by +angle (sign 1) or back (sign -1, the transpose:
 * the backward), each head's channels on their own (an odd width's last
 * channel unturned); the tables (model.c rope_tables) are double */
static void SFX(rope_apply)(const train_model *m, REAL *x, double sign)
{
    size_t n = m->c.n, e = m->e, w = head_width(m), half = w / 2;
    for (size_t r = 0; r < m->R; r++) {
        const double *cs = m->rope + (r % n) * half, *sn = m->rope + (n + r % n) * half;
        for (size_t h = 0; h < m->c.heads; h++) {
            REAL *row = x + r * e + h * w;
            for (size_t c = 0; c < half; c++) {
                double a = row[2 * c], b = row[2 * c + 1], s = sign * sn[c];
                row[2 * c] = (REAL)(a * cs[c] - b * s);
                row[2 * c + 1] = (REAL)(a * s + b * cs[c]);
            }
        }
    }
}

/* q = v Wq^T, k = v Wk^T, rotated with rope */
static void SFX(query_key_forward)(train_model *m, const block_params *bp, SFX(block_acts) *a)
{
    SFX(linear_forward)(m->R, m->e, m->e, a->v, m->SFX(params) + bp->wq, a->q);
    SFX(linear_forward)(m->R, m->e, m->e, a->v, m->SFX(params) + bp->wk, a->k);
    if (rotary_positions(&m->c)) SFX(rope_apply)(m, a->q, 1), SFX(rope_apply)(m, a->k, 1);
}

/* dv += the gradient through q and k, given theirs (dq, dk overwritten) */
static void SFX(query_key_backward)(train_model *m, const block_params *bp, const SFX(block_acts) *a, REAL *dq,
                                    REAL *dk, REAL *dv)
{
    if (rotary_positions(&m->c)) SFX(rope_apply)(m, dq, -1), SFX(rope_apply)(m, dk, -1);
    SFX(linear_backward)(m->R, m->e, m->e, a->v, m->SFX(params) + bp->wq, dq, dv, 1, m->SFX(grads) + bp->wq);
    SFX(linear_backward)(m->R, m->e, m->e, a->v, m->SFX(params) + bp->wk, dk, dv, 1, m->SFX(grads) + bp->wk);
}

/* ---- attention mixer: per head (channels h w .. (h+1) w - 1 of q, k, v),
 * y = softmax(q k^T / sqrt(w) [- m_h |i - j|] [causal mask]) v, q = v Wq^T,
 * k = v Wk^T; the softmax's normaliser and its backward's <P, dP> summed
 * in double. ALiBi's bias is a constant: the backward, from P, is the same. */

/* row i of P's n valid scores, ALiBi's bias added, -> softmax probabilities */
static void SFX(softmax_row)(REAL *row, size_t i, size_t n, size_t valid, double slope)
{
    REAL mx = -INFINITY;
    double sum = 0;
    if (slope != 0)
        for (size_t j = 0; j < valid; j++) row[j] -= (REAL)(slope * (double)(i > j ? i - j : j - i));
    for (size_t j = 0; j < valid; j++) mx = row[j] > mx ? row[j] : mx;
    for (size_t j = 0; j < valid; j++) sum += (row[j] = R_EXP(row[j] - mx));
    for (size_t j = 0; j < valid; j++) row[j] = (REAL)(row[j] / sum);
    for (size_t j = valid; j < n; j++) row[j] = 0;
}

static void SFX(attention_forward)(train_model *m, const block_params *bp, SFX(block_acts) *a)
{
    size_t n = m->c.n, e = m->e, w = head_width(m), H = m->c.heads;
    REAL scale = (REAL)(1.0 / sqrt((double)w));
    SFX(query_key_forward)(m, bp, a);
    for (size_t bh = 0; bh < m->c.batch * H; bh++) {
        size_t o = (bh / H) * n * e + (bh % H) * w;
        REAL *P = a->p + bh * n * n;
        const REAL *q = a->q + o, *k = a->k + o, *v = a->v + o;
        GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)w, scale, q, (int)e, k, (int)e, 0, P,
             (int)n);
        double slope = alibi_slope(m, bh % H);
        for (size_t i = 0; i < n; i++) SFX(softmax_row)(P + i * n, i, n, m->c.causal ? i + 1 : n, slope);
        GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1, P, (int)n, v, (int)e, 0,
             a->mix + o, (int)e);
    }
}

/* dv = (through P v, q and k) given dy; dP is n x n scratch, dq, dk R x e scratch. */
static void SFX(attention_backward)(train_model *m, const block_params *bp, const SFX(block_acts) *a,
                                    const REAL *dy, REAL *dv, REAL *dq, REAL *dk, REAL *dP)
{
    size_t n = m->c.n, e = m->e, w = head_width(m), H = m->c.heads;
    double scale = 1.0 / sqrt((double)w);
    for (size_t bh = 0; bh < m->c.batch * H; bh++) {
        size_t o = (bh / H) * n * e + (bh % H) * w;
        const REAL *P = a->p + bh * n * n, *q = a->q + o, *k = a->k + o, *v = a->v + o, *g = dy + o;
        GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)w, 1, g, (int)e, v, (int)e, 0, dP,
             (int)n);
        GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1, P, (int)n, g, (int)e, 0, dv + o,
             (int)e);
        for (size_t i = 0; i < n; i++) { /* softmax backward, scaled: dS = P (dP - <P, dP>) scale */
            double dot = 0;
            for (size_t j = 0; j < n; j++) dot += (double)P[i * n + j] * dP[i * n + j];
            for (size_t j = 0; j < n; j++) dP[i * n + j] = (REAL)(scale * P[i * n + j] * (dP[i * n + j] - dot));
        }
        GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1, dP, (int)n, k, (int)e, 0,
             dq + o, (int)e);
        GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)w, (int)n, 1, dP, (int)n, q, (int)e, 0, dk + o,
             (int)e);
    }
    SFX(query_key_backward)(m, bp, a, dq, dk, dv);
}

/* ---- MRA-2 mixer: the library's MRA-2 approximation of the same attention,
 * one head, on each sequence's q, k, v in column-major order (the
 * library's layout); mra_apply and mra_gradients (model.c) make the
 * precision's library calls */

/* row-major (n x e) <-> column-major (n x e, ld n) */
static void SFX(to_columns)(size_t n, size_t e, const REAL *rows, REAL *cols)
{
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < e; c++) cols[i + c * n] = rows[i * e + c];
}

static void SFX(to_rows)(size_t n, size_t e, const REAL *cols, REAL *rows)
{
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < e; c++) rows[i * e + c] = cols[i + c * n];
}

static int SFX(mra_forward)(train_model *m, size_t l, const block_params *bp, SFX(block_acts) *a)
{
    size_t n = m->c.n, e = m->e;
    SFX(query_key_forward)(m, bp, a);
    for (size_t b = 0; b < m->c.batch; b++) {
        size_t o = b * n * e;
        SFX(to_columns)(n, e, a->q + o, a->qc + o);
        SFX(to_columns)(n, e, a->k + o, a->kc + o);
        SFX(to_columns)(n, e, a->v + o, a->vc + o);
        int status = SFX(mra_apply)(m, l, b, a->qc + o, a->kc + o, a->vc + o, a->yc + o);
        if (status) return status;
        SFX(to_rows)(n, e, a->yc + o, a->mix + o);
    }
    return SKIT_OK;
}

/* As attention_backward; s4, s5: R x e scratch. */
static int SFX(mra_backward)(train_model *m, size_t l, const block_params *bp, const SFX(block_acts) *a,
                             const REAL *dy, REAL *dv, REAL *dq, REAL *dk, REAL *s4, REAL *s5)
{
    size_t n = m->c.n, e = m->e;
    REAL *dyc = s4, *dc = s5;
    for (size_t b = 0; b < m->c.batch; b++) {
        size_t o = b * n * e;
        SFX(to_columns)(n, e, dy + o, dyc);
        int status = SFX(mra_gradients)(m, l, b, a->qc + o, a->kc + o, a->vc + o, dyc, dq + o, dk + o, dc);
        if (status) return status;
        SFX(to_rows)(n, e, dc, dv + o);
        SFX(to_rows)(n, e, dq + o, dc), memcpy(dq + o, dc, n * e * sizeof(REAL));
        SFX(to_rows)(n, e, dk + o, dc), memcpy(dk + o, dc, n * e * sizeof(REAL));
    }
    SFX(query_key_backward)(m, bp, a, dq, dk, dv);
    return SKIT_OK;
}

/* ---- GTU: out = Wo (silu(Wu h) * mixer(silu(Wv h))) ---------------------- */

static int SFX(gtu_forward)(train_model *m, size_t l, REAL *out)
{
    const block_params *bp = &m->bp[l];
    SFX(block_acts) *a = &m->SFX(ba)[l];
    const REAL *P = m->SFX(params);
    size_t R = m->R, d = m->c.d, e = m->e;
    SFX(linear_forward)(R, d, e, a->n1, P + bp->wu, a->up);
    SFX(linear_forward)(R, d, e, a->n1, P + bp->wv, a->vp);
    SFX(silu_forward)(R * e, a->up, a->u);
    SFX(silu_forward)(R * e, a->vp, a->v);
    int status = SFX(mixer_forward)(m, l, a);
    if (status) return status;
    for (size_t i = 0; i < R * e; i++) a->g[i] = a->u[i] * a->mix[i];
    SFX(linear_forward)(R, e, d, a->g, P + bp->wo, out);
    return SKIT_OK;
}

/* dn = d(loss)/d(n1) given dout; scratch s[0..6] are R x e, dP n x n. */
static int SFX(gtu_backward)(train_model *m, size_t l, const REAL *dout, REAL *dn, REAL **s, REAL *dP)
{
    const block_params *bp = &m->bp[l];
    const SFX(block_acts) *a = &m->SFX(ba)[l];
    const REAL *P = m->SFX(params);
    REAL *G = m->SFX(grads);
    size_t R = m->R, d = m->c.d, e = m->e;
    REAL *dg = s[0], *dmix = s[1], *dv = s[2], *du = s[3];
    SFX(linear_backward)(R, e, d, a->g, P + bp->wo, dout, dg, 0, G + bp->wo);
    for (size_t i = 0; i < R * e; i++) {
        du[i] = dg[i] * a->mix[i];
        dmix[i] = dg[i] * a->u[i];
    }
    int status = SFX(mixer_backward)(m, l, a, dmix, dv, s, dP); /* s[0], s[4..6] free as its scratch */
    if (status) return status;
    SFX(silu_backward)(R * e, a->up, du, du);
    SFX(silu_backward)(R * e, a->vp, dv, dv);
    SFX(linear_backward)(R, d, e, a->n1, P + bp->wu, du, dn, 0, G + bp->wu);
    SFX(linear_backward)(R, d, e, a->n1, P + bp->wv, dv, dn, 1, G + bp->wv);
    return SKIT_OK;
}

/* ---- GLU: out = W3 (silu(W1 h) * (W2 h)) --------------------------------- */

static void SFX(glu_forward)(train_model *m, size_t l, REAL *out)
{
    const block_params *bp = &m->bp[l];
    SFX(block_acts) *a = &m->SFX(ba)[l];
    const REAL *P = m->SFX(params);
    size_t R = m->R, d = m->c.d, h = m->h;
    SFX(linear_forward)(R, d, h, a->n2, P + bp->w1, a->ap);
    SFX(linear_forward)(R, d, h, a->n2, P + bp->w2, a->b);
    SFX(silu_forward)(R * h, a->ap, a->a);
    for (size_t i = 0; i < R * h; i++) a->gl[i] = a->a[i] * a->b[i];
    SFX(linear_forward)(R, h, d, a->gl, P + bp->w3, out);
}

static void SFX(glu_backward)(train_model *m, size_t l, const REAL *dout, REAL *dn, REAL **s)
{
    const block_params *bp = &m->bp[l];
    const SFX(block_acts) *a = &m->SFX(ba)[l];
    const REAL *P = m->SFX(params);
    REAL *G = m->SFX(grads);
    size_t R = m->R, d = m->c.d, h = m->h;
    REAL *dgl = s[0], *da = s[1], *db = s[2];
    SFX(linear_backward)(R, h, d, a->gl, P + bp->w3, dout, dgl, 0, G + bp->w3);
    for (size_t i = 0; i < R * h; i++) {
        da[i] = dgl[i] * a->b[i];
        db[i] = dgl[i] * a->a[i];
    }
    SFX(silu_backward)(R * h, a->ap, da, da);
    SFX(linear_backward)(R, d, h, a->n2, P + bp->w1, da, dn, 0, G + bp->w1);
    SFX(linear_backward)(R, d, h, a->n2, P + bp->w2, db, dn, 1, G + bp->w2);
}

/* ---- cross-entropy over the weighted positions -------------------------- */

/* logits -> probabilities in place; returns the summed loss, each term
 * log softmax = (z_t - max) - log(sum) (no log of an underflowed float). */
static double SFX(cross_entropy_forward)(size_t rows, size_t V, REAL *logits, const int *targets,
                                         const double *weights)
{
    double loss = 0;
    for (size_t r = 0; r < rows; r++) {
        REAL *z = logits + r * V, mx = z[0];
        double sum = 0;
        for (size_t j = 1; j < V; j++) mx = z[j] > mx ? z[j] : mx;
        double shifted = (double)z[targets[r]] - mx;
        for (size_t j = 0; j < V; j++) sum += (z[j] = R_EXP(z[j] - mx));
        for (size_t j = 0; j < V; j++) z[j] = (REAL)(z[j] / sum);
        if (weights[r] != 0) loss -= weights[r] * (shifted - log(sum));
    }
    return loss;
}

/* probabilities -> d(mean loss)/d(logits) in place */
static void SFX(cross_entropy_backward)(size_t rows, size_t V, REAL *probs, const int *targets,
                                        const double *weights, double count)
{
    for (size_t r = 0; r < rows; r++) {
        double w = weights[r] / count;
        REAL *z = probs + r * V;
        for (size_t j = 0; j < V; j++) z[j] = (REAL)(z[j] * w);
        z[targets[r]] -= (REAL)w;
    }
}

/* ---- the whole model ----------------------------------------------------- */

static int SFX(model_forward)(train_model *m, const int *inputs, const int *targets, const double *weights,
                              double *total)
{
    size_t R = m->R, d = m->c.d;
    const REAL *P = m->SFX(params);
    REAL *tmp = m->SFX(scratch), *x = m->SFX(x); /* tmp R x d: a block's output before the residual add */
    for (size_t r = 0; r < R; r++) memcpy(x + r * d, P + m->embedding + (size_t)inputs[r] * d, d * sizeof(REAL));
    if (learned_positions(&m->c)) /* attention alone does not know the order of the tokens */
        for (size_t r = 0; r < R; r++) AXPY((int)d, 1, P + m->position + (r % m->c.n) * d, 1, x + r * d, 1);
    for (size_t l = 0; l < m->c.layers; l++) {
        SFX(block_acts) *a = &m->SFX(ba)[l];
        SFX(norm_forward)(m->c.norm, R, d, x, a->n1, a->rstd1);
        int status = SFX(gtu_forward)(m, l, tmp);
        if (status) return status;
        AXPY((int)(R * d), 1, tmp, 1, x, 1);
        if (!m->h) continue; /* GTU-only blocks */
        SFX(norm_forward)(m->c.norm, R, d, x, a->n2, a->rstd2);
        SFX(glu_forward)(m, l, tmp);
        AXPY((int)(R * d), 1, tmp, 1, x, 1);
    }
    SFX(norm_forward)(m->c.norm, R, d, x, m->SFX(nf), m->SFX(rstdf));
    SFX(linear_forward)(R, d, m->c.out_vocab, m->SFX(nf), P + m->head, m->SFX(logits));
    *total = SFX(cross_entropy_forward)(R, m->c.out_vocab, m->SFX(logits), targets, weights);
    return SKIT_OK;
}

static int SFX(model_backward)(train_model *m)
{
    size_t R = m->R, d = m->c.d, e = m->e, h = m->h;
    const REAL *P = m->SFX(params);
    REAL *G = m->SFX(grads);
    REAL *dx = m->SFX(scratch), *dn = dx + R * d, *dP = dn + R * d;
    REAL *s[7];
    REAL *base = dP + m->c.n * m->c.n;
    size_t wide = e > h ? e : h;
    for (int i = 0; i < 7; i++) s[i] = base + (size_t)i * R * wide;
    memset(G, 0, m->nparams * sizeof(REAL));
    if (m->count == 0) return SKIT_OK;
    SFX(cross_entropy_backward)(R, m->c.out_vocab, m->SFX(logits), m->targets, m->weights, m->count);
    memset(dn, 0, R * d * sizeof(REAL));
    SFX(linear_backward)(R, d, m->c.out_vocab, m->SFX(nf), P + m->head, m->SFX(logits), dn, 0, G + m->head);
    memset(dx, 0, R * d * sizeof(REAL));
    SFX(norm_backward)(m->c.norm, R, d, m->SFX(nf), m->SFX(rstdf), dn, dx);
    for (size_t l = m->c.layers; l-- > 0;) {
        const SFX(block_acts) *a = &m->SFX(ba)[l];
        if (m->h) {
            SFX(glu_backward)(m, l, dx, dn, s);
            SFX(norm_backward)(m->c.norm, R, d, a->n2, a->rstd2, dn, dx);
        }
        int status = SFX(gtu_backward)(m, l, dx, dn, s, dP);
        if (status) return status;
        SFX(norm_backward)(m->c.norm, R, d, a->n1, a->rstd1, dn, dx);
    }
    for (size_t r = 0; r < R; r++) AXPY((int)d, 1, dx + r * d, 1, G + m->embedding + (size_t)m->inputs[r] * d, 1);
    if (learned_positions(&m->c))
        for (size_t r = 0; r < R; r++) AXPY((int)d, 1, dx + r * d, 1, G + m->position + (r % m->c.n) * d, 1);
    return SKIT_OK;
}

static REAL *SFX(carve)(REAL **p, size_t count)
{
    const size_t pad = 64 / sizeof(REAL); /* keep 64-byte alignment */
    REAL *q = *p;
    *p += (count + pad - 1) & ~(pad - 1);
    return q;
}

static void SFX(carve_activations)(train_model *m)
{
    size_t R = m->R, d = m->c.d, e = m->e, h = m->h, n = m->c.n;
    REAL *p = m->SFX(acts);
    for (size_t l = 0; l < m->c.layers; l++) {
        SFX(block_acts) *a = &m->SFX(ba)[l];
        a->n1 = SFX(carve)(&p, R * d), a->rstd1 = SFX(carve)(&p, R);
        a->up = SFX(carve)(&p, R * e), a->u = SFX(carve)(&p, R * e), a->vp = SFX(carve)(&p, R * e);
        a->v = SFX(carve)(&p, R * e), a->mix = SFX(carve)(&p, R * e), a->g = SFX(carve)(&p, R * e);
        if (m->c.mixer == TRAIN_MIXER_ATTENTION)
            a->q = SFX(carve)(&p, R * e), a->k = SFX(carve)(&p, R * e),
            a->p = SFX(carve)(&p, m->c.batch * m->c.heads * n * n);
        if (train_mixer_is_mra(m->c.mixer)) {
            a->q = SFX(carve)(&p, R * e), a->k = SFX(carve)(&p, R * e);
            a->qc = SFX(carve)(&p, R * e), a->kc = SFX(carve)(&p, R * e);
            a->vc = SFX(carve)(&p, R * e), a->yc = SFX(carve)(&p, R * e);
        }
        a->n2 = SFX(carve)(&p, R * d), a->rstd2 = SFX(carve)(&p, R);
        a->ap = SFX(carve)(&p, R * h), a->a = SFX(carve)(&p, R * h);
        a->b = SFX(carve)(&p, R * h), a->gl = SFX(carve)(&p, R * h);
    }
    m->SFX(x) = SFX(carve)(&p, R * d), m->SFX(nf) = SFX(carve)(&p, R * d), m->SFX(rstdf) = SFX(carve)(&p, R);
    m->SFX(logits) = SFX(carve)(&p, R * m->c.out_vocab);
}
