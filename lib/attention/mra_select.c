/* mra_select.c — Algorithm 1's selection of the squares to refine for the
 * device MRA plan (the CUDA backend's lib/cuda/mra.cu calls it through the
 * pointer lib/attention/device.c hands over), run on the host on the coarse
 * logits the device computed. It is the CPU plan's rule (mra.c, level 0)
 * step for step — score = logit - row max, priors lifted above every other
 * score, one global top-k with ties to the square first in row-major order,
 * or a top-k per row — so that both backends refine the same squares for
 * the same logits. Built in every configuration, so the CPU tests check it
 * against the CPU plan. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"

size_t attn_mra_select(size_t rows, const double *logit, size_t per_row,
                       skit_mra_selection selection, size_t diagonal_prior, int first_block_prior,
                       double *score, double *tmp, uint32_t *ids, unsigned char *flags,
                       uint32_t *row_ptr, uint32_t *cols, uint32_t *prow)
{
    size_t N = rows * rows;
    double lo = 0.0;
    for (size_t x = 0; x < rows; x++) {
        const double *row = logit + x * rows;
        double mx = -INFINITY;
        for (size_t y = 0; y < rows; y++)
            if (row[y] > mx) mx = row[y];
        for (size_t y = 0; y < rows; y++) {
            double v = row[y];
            double sc = mx == -INFINITY || v == -INFINITY ? -INFINITY : v - mx;
            score[y + x * rows] = sc;
            if (sc < lo) lo = sc;
        }
    }
    if (diagonal_prior || first_block_prior) {
        /* priors come before every other square but keep their own order */
        double bonus = 1.0 - lo;
        for (size_t x = 0; x < rows; x++)
            for (size_t y = 0; y < rows; y++) {
                size_t dist = x > y ? x - y : y - x;
                int prior = (diagonal_prior && dist < diagonal_prior) ||
                            (first_block_prior && (x == 0 || y == 0));
                if (prior && score[y + x * rows] != -INFINITY) score[y + x * rows] += bonus;
            }
    }
    size_t pos = 0;
    if (selection == SKIT_MRA_GLOBAL) {
        /* the M-th largest score; then everything above it and, in id
         * (row-major) order, enough of its ties — the order the CSR is
         * built in, so the decision is made on the way */
        size_t M = per_row < rows ? rows * per_row : N;
        memcpy(tmp, score, N * sizeof(double));
        double thr = attn_kth_largest(tmp, N, M - 1);
        size_t above = 0;
        for (size_t t = 0; t < N; t++) above += score[t] > thr;
        size_t ties = M - above;
        for (size_t x = 0; x < rows; x++) {
            row_ptr[x] = (uint32_t)pos;
            for (size_t y = 0; y < rows; y++) {
                double sc = score[y + x * rows];
                if (sc > thr || (sc == thr && ties && ties--)) {
                    cols[pos] = (uint32_t)y;
                    prow[pos++] = (uint32_t)x;
                }
            }
        }
    } else {
        size_t M = per_row < rows ? per_row : rows;
        for (size_t x = 0; x < rows; x++) {
            row_ptr[x] = (uint32_t)pos;
            for (size_t y = 0; y < rows; y++) ids[y] = (uint32_t)(y + x * rows);
            attn_select_top(ids, rows, M, score);
            memset(flags, 0, rows);
            for (size_t t = 0; t < M; t++) flags[ids[t] - x * rows] = 1;
            for (size_t y = 0; y < rows; y++)
                if (flags[y]) {
                    cols[pos] = (uint32_t)y;
                    prow[pos++] = (uint32_t)x;
                }
        }
    }
    row_ptr[rows] = (uint32_t)pos;
    return pos;
}
