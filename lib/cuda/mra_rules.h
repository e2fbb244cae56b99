/* mra_rules.h — how the attention module builds the device MRA plan of
 * skit/cuda.h. The plan's kernels live here in lib/cuda, but what its
 * options mean (the levels and scales) and which squares it refines
 * (Algorithm 1's selection, the CPU plan's rule) belong to lib/attention.
 * So lib/cuda does not call into lib/attention: the attention module
 * (lib/attention/device.c, which defines skit_cuda_mra_plan_create) hands
 * both in as functions. Not installed. */
#ifndef SKIT_CUDA_MRA_RULES_H
#define SKIT_CUDA_MRA_RULES_H

#include <stdint.h>

#include "skit/cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Selects the squares to refine from the rows x rows coarse logits
 * (logit[y + x*rows]: query block x, key block y; -inf for an empty block)
 * by the rule of per_row, selection and the priors, and writes the CSR:
 * row_ptr (rows+1), cols and prow (one per square, key blocks ascending
 * within a row). Scratch: score, tmp (rows^2 doubles), ids (rows), flags
 * (rows bytes). Returns the number of squares, at most
 * skit_cuda_mra_capacity(rows, per_row). Raises nothing. */
typedef size_t (*skit_cuda_mra_select_fn)(size_t rows, const double *logit, size_t per_row,
                                          skit_mra_selection selection, size_t diagonal_prior,
                                          int first_block_prior, double *score, double *tmp,
                                          uint32_t *ids, unsigned char *flags, uint32_t *row_ptr,
                                          uint32_t *cols, uint32_t *prow);

typedef struct skit_cuda_mra_rules {
    /* Checks the MRA options for n tokens and fills the scales s_0 > s_1 >
     * ... and their count; raises the option's error otherwise. */
    int (*levels)(const skit_attention_options *options, size_t n,
                  size_t scales[SKIT_MRA_MAX_LEVELS], size_t *levels);
    skit_cuda_mra_select_fn select;
} skit_cuda_mra_rules;

/* skit_cuda_mra_plan_create (skit/cuda.h) with the attention module's
 * rules: the same arguments, checks and errors. */
int skit_cuda_mra_plan_build(skit_cuda_mra_plan **plan, size_t n, size_t d, size_t dv,
                             const skit_attention_options *options, skit_cuda_precision precision,
                             const skit_cuda_mra_rules *rules);

#ifdef __cplusplus
}
#endif
#endif
