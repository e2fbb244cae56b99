/* mra_logic.h — the per-thread work of the MRA-2 kernels (lib/cuda/mra.cu)
 * for one element type. Included only by index_logic.h, twice: with
 * SKIT_R = double (functions suffixed _d) and SKIT_R = float (_f), so the
 * CPU tests run exactly the code the device runs (tests/test_cuda_logic.c
 * emulates the whole MRA pipeline with these and compares it with the CPU
 * plan). No include guard on purpose. Layouts: see index_logic.h. */

#define SKIT_MRA_CAT2(a, b) a##_##b
#define SKIT_MRA_CAT(a, b) SKIT_MRA_CAT2(a, b)
#define SKIT_MRA_FN(name) SKIT_MRA_CAT(name, SKIT_R_SFX)

/* Mean of the valid tokens of block xb (tokens xb*s .. xb*s+s-1) of one
 * column; *count receives the number of valid tokens. 0 for an empty block
 * (the CPU plan's convention). Summed in token order, as the CPU does. */
SKIT_INDEX_FN SKIT_R SKIT_MRA_FN(skit_cuda_mra_block_mean)(const SKIT_R *col, size_t xb, size_t s,
                                                          const unsigned char *mask,
                                                          size_t *count)
{
    SKIT_R sum = 0;
    size_t cnt = 0;
    for (size_t i = xb * s; i < xb * s + s; i++)
        if (!mask || mask[i]) {
            sum += col[i];
            cnt++;
        }
    *count = cnt;
    return cnt ? sum / (SKIT_R)cnt : (SKIT_R)0;
}

/* Coarse level, row x: col = the row's logits (col[y], y < rows; -inf for a
 * square with an empty block). Over the squares that were not refined:
 * m = their largest logit, col[y] <- cnt[y] exp(col[y] - m - bias) (0 for
 * refined squares and -inf logits), den = the sum. */
SKIT_INDEX_FN void SKIT_MRA_FN(skit_cuda_mra_coarse_row)(SKIT_R *col, size_t rows,
                                                        const uint32_t *row_ptr,
                                                        const uint32_t *cols, size_t x,
                                                        const SKIT_R *cnt, SKIT_R bias,
                                                        SKIT_R *m, SKIT_R *den)
{
    const SKIT_R neg_inf = -(SKIT_R)INFINITY;
    size_t begin, end, pos;
    skit_cuda_mra_row_squares(row_ptr, x, &begin, &end);
    SKIT_R mx = neg_inf;
    pos = begin;
    for (size_t y = 0; y < rows; y++)
        if (!skit_cuda_mra_refined_walk(cols, &pos, end, y) && col[y] > mx) mx = col[y];
    SKIT_R sum = 0, shift = mx + bias;
    pos = begin;
    for (size_t y = 0; y < rows; y++) {
        int refined = skit_cuda_mra_refined_walk(cols, &pos, end, y);
        SKIT_R e = (refined || col[y] == neg_inf) ? (SKIT_R)0 : cnt[y] * SKIT_R_EXP(col[y] - shift);
        col[y] = e;
        sum += e;
    }
    *m = mx;
    *den = sum;
}

/* Fine level, query token i (block x = i / b, position a = i % b): over
 * the b keys of every refined square of row x that the mask lets through,
 * m = the largest logit; each logit becomes exp(logit - m - bias) (0 for a
 * masked key) in place; den = the sum. No valid key: m = -inf, den = 0. */
SKIT_INDEX_FN void SKIT_MRA_FN(skit_cuda_mra_fine_row)(SKIT_R *fine, size_t i, size_t b,
                                                      const uint32_t *row_ptr,
                                                      const uint32_t *cols,
                                                      const unsigned char *mask, SKIT_R bias,
                                                      SKIT_R *m, SKIT_R *den)
{
    const SKIT_R neg_inf = -(SKIT_R)INFINITY;
    size_t x = i / b, a = i % b, begin, end;
    skit_cuda_mra_row_squares(row_ptr, x, &begin, &end);
    SKIT_R mx = neg_inf;
    for (size_t e = begin; e < end; e++)
        for (size_t c = 0; c < b; c++) {
            if (mask && !mask[(size_t)cols[e] * b + c]) continue;
            SKIT_R v = fine[skit_cuda_mra_fine_offset(e, c, a, b)];
            if (v > mx) mx = v;
        }
    SKIT_R sum = 0, shift = mx + bias;
    for (size_t e = begin; e < end; e++)
        for (size_t c = 0; c < b; c++) {
            size_t off = skit_cuda_mra_fine_offset(e, c, a, b);
            int valid = mx != neg_inf && (!mask || mask[(size_t)cols[e] * b + c]);
            SKIT_R p = valid ? SKIT_R_EXP(fine[off] - shift) : (SKIT_R)0;
            fine[off] = p;
            sum += p;
        }
    *m = mx;
    *den = sum;
}

/* Output Y(i, col): the fine numerators of token i summed over its row's
 * squares, merged with the coarse level of its block (MRA-2; sparse != 0:
 * the fine level alone) under one shift M = the larger level maximum, and
 * divided by the merged denominator. 0 for a masked token or a zero
 * denominator. m0, den0, num0 (rows x dv, ld rows) are unused if sparse. */
SKIT_INDEX_FN SKIT_R SKIT_MRA_FN(skit_cuda_mra_merge)(size_t i, size_t col, size_t b, size_t dv,
                                                     const uint32_t *row_ptr, const SKIT_R *fnum,
                                                     const SKIT_R *mf, const SKIT_R *denf,
                                                     int sparse, size_t rows, const SKIT_R *m0,
                                                     const SKIT_R *den0, const SKIT_R *num0,
                                                     const unsigned char *mask)
{
    const SKIT_R neg_inf = -(SKIT_R)INFINITY;
    size_t x = i / b, a = i % b, begin, end;
    if (mask && !mask[i]) return (SKIT_R)0;
    skit_cuda_mra_row_squares(row_ptr, x, &begin, &end);
    SKIT_R M = mf[i];
    if (!sparse && m0[x] > M) M = m0[x];
    SKIT_R wf = mf[i] == neg_inf ? (SKIT_R)0 : SKIT_R_EXP(mf[i] - M);
    SKIT_R w0 = (sparse || m0[x] == neg_inf) ? (SKIT_R)0 : SKIT_R_EXP(m0[x] - M);
    SKIT_R tot = wf * denf[i] + (w0 != (SKIT_R)0 ? w0 * den0[x] : (SKIT_R)0);
    if (tot == (SKIT_R)0) return (SKIT_R)0;
    SKIT_R out = 0;
    if (wf != (SKIT_R)0) {
        SKIT_R num = 0;
        for (size_t e = begin; e < end; e++) num += fnum[skit_cuda_mra_num_offset(e, a, col, b, dv)];
        out = (wf / tot) * num;
    }
    if (w0 != (SKIT_R)0) out += (w0 / tot) * num0[x + col * rows];
    return out;
}

#undef SKIT_MRA_FN
#undef SKIT_MRA_CAT
#undef SKIT_MRA_CAT2
