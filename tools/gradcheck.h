/* gradcheck.h — every backward pass of the library against central finite
 * differences (float64) on fresh random inputs: `skit grad-check` and the
 * unit tests (tests/test_backward.c) run the same checks.
 *
 * For an operator y = f(p) with parameter and input groups p_g, a random
 * output gradient dy makes the scalar L(p) = <dy, f(p)>, whose gradient
 * the backward gives in one call. Each group's rows (tokens, lags, a
 * layer's outputs) are split into `blocks` runs, and every run is checked
 * along two directions confined to it: the gradient itself, each row
 * scaled to unit length (an error that scales one row shows whole), and a
 * random one; then `samples` coordinates at random and 2 random
 * directions over the whole group. A group with no more rows than blocks,
 * one value per row, is checked coordinate by coordinate; `full` checks
 * every coordinate of every group (tiny shapes). A group that only
 * gathers others ("params": its layers) gets the random checks alone.
 * Each derivative is a Richardson-extrapolated central difference on a
 * ladder of steps 1e-3 4^-k max(1, |p_i|), k = 0..5 (through a ReLU
 * 0..11), keeping the estimate that agrees best with the next (truncation, ReLU kinks and
 * rounding each spoil some steps, not all). A check's error is
 * |<g, v> - fd_v| over the size of <g, v> it should have: the largest of
 * |<g, v>|, ||g_S|| ||v|| / sqrt(m) (S the m coordinates v touches: what
 * <g, v> is for a random v), 1e-5 max_j |g_j| ||v||_1 (the float64
 * backward's own rounding, ~1e3 eps of the group's largest entry, reads
 * 2e-8) and 1e7 times the difference's resolution (so that a run whose
 * gradient is far below what differences resolve is compared in absolute
 * terms). Relative to the run's own size, an error of 1e-4 confined to
 * one row is seen whole; a group's error is the worst over its checks.
 *
 * precision f32 (gradcheck_f32.c; ops toeplitz, tno, fd, ski-tno,
 * ski-causal, attention, mra2): finite
 * differences in float say nothing about a float backward (their own
 * error, ~sqrt(eps32), swamps it), so the reference is the float64
 * backward of the same operator on the same inputs rounded to float. A
 * group's error is max |g32 - g64| / max |g64|, and its tolerance a
 * derived bound on max |g32 - g64| over the same max |g64|: eps32 = 2^-24
 * times the growth factors skit/toeplitz.h, skit/tno.h and
 * skit/attention.h state for the float products, the float
 * cross-correlation and the float softmax, times the norms of the
 * inputs (and, for an RPE's parameters, times the Frobenius norm of the
 * map from the kernels' gradient to them, measured column by column on a
 * float64 plan: d (2n-1) backward calls). */
#ifndef SKIT_GRADCHECK_H
#define SKIT_GRADCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "skit.h"

#define GRADCHECK_MAX_GROUPS 80

/* How a group's values form rows (tokens, lags, a layer's outputs): row r,
 * column c at r * row_stride + c * col_stride, count / rows columns. */
typedef struct gradcheck_layout {
    size_t rows, row_stride, col_stride;
} gradcheck_layout;

/* For the checker's own tests only (the tool reads it from the environment
 * variable SKIT_GRADCHECK_INJECT, see gradcheck_inject_parse): a known
 * error put into one group's gradient after the backward, which the check
 * must then report. */
typedef enum gradcheck_inject_kind {
    GRADCHECK_INJECT_NONE = 0,
    GRADCHECK_INJECT_SCALE,     /* row `row` times (1 + eps) */
    GRADCHECK_INJECT_SHIFT,     /* row `row` takes its neighbour's values (an off-by-one lag) */
    GRADCHECK_INJECT_TRANSPOSE  /* the group's gradient A dy in place of A^T dy (f64; a linear
                                   group of the output's size) */
} gradcheck_inject_kind;

typedef struct gradcheck_inject {
    gradcheck_inject_kind kind;
    char group[32];
    size_t row;
    double eps;
} gradcheck_inject;

typedef struct gradcheck_options {
    size_t n, d, batch;
    uint64_t seed;
    int causal;
    skit_activation activation;
    skit_norm norm;
    size_t rpe_width, rpe_layers;
    double decay;
    size_t samples;   /* coordinates checked at random per group */
    size_t blocks;    /* row blocks per group, each checked along two directions */
    int full;         /* 1: every coordinate of every group (tiny shapes) */
    double tolerance; /* float64: every group's; float32 groups derive their own */
    int f32;          /* 1: precision f32, the float32 backward against the float64 one */
    gradcheck_inject inject;
} gradcheck_options;

typedef struct gradcheck_group {
    char name[32];
    size_t count, checked;
    double max_grad, error, tolerance;
} gradcheck_group;

typedef struct gradcheck_result {
    gradcheck_group groups[GRADCHECK_MAX_GROUPS];
    size_t ngroups;
    double worst;
    size_t coordinates; /* over the groups checked on their own */
    int injected;       /* precision f32: 1 once the injection found its group, -1 its row out of range */
} gradcheck_result;

/* `full`'s limit on the coordinates of all groups: each costs a ladder of
 * 12 to 24 forwards */
#define GRADCHECK_FULL_MAX 4096

/* The ops, NULL-terminated; those with a float32 backward. */
extern const char *const gradcheck_ops[];
extern const char *const gradcheck_ops_f32[];

/* n 64, d 4, batch 2, seed 1, bidirectional, ReLU, RMS, RPE 16 x 2,
 * decay 0.9, 12 samples, 16 blocks, tolerance 1e-6, no injection. */
void gradcheck_options_default(gradcheck_options *options);

/* "KIND:GROUP[:ROW[:EPS]]" (scale, shift or transpose; ROW 0, EPS 1e-4 by
 * default) into *inject: 0, or -1 when the text is not of that form. */
int gradcheck_inject_parse(const char *text, gradcheck_inject *inject);
/* Scale or shift the group `name` (count values, layout) when the
 * injection names it: 1 if applied, 0 if it names another group, -1 when
 * its row is out of range (SKIT_GRADCHECK_INJECT's error). */
int gradcheck_inject_apply(const gradcheck_inject *inject, const char *name, double *grad, size_t count,
                           const gradcheck_layout *layout);

/* Run the check of `op`: a library status (the backward's or forward's
 * error, SKIT_EINVAL for an unknown op); result->worst the largest group
 * error (NaN or Inf when a gradient was not written: the outputs are
 * NaN-filled before the backward); SKIT_ETOOBIG when `full` would check
 * more than GRADCHECK_FULL_MAX coordinates (result->coordinates says how
 * many). */
int gradcheck_run(const char *op, const gradcheck_options *options, gradcheck_result *result);

/* ---- shared by gradcheck.c and gradcheck_f32.c ---- */

/* A mixer's options from the check's (kind FFT, FD or SKI). */
void gradcheck_mixer_options(const gradcheck_options *o, skit_tno_kind kind, skit_tno_options *opt);
/* The parameter groups of an RPE MLP (in -> w x layers -> out): group g <
 * 2 (layers + 2) is W<l> (g even) or b<l> (g odd), l = g / 2; its name,
 * first index and count. */
size_t gradcheck_mlp_group_count(size_t layers);
void gradcheck_mlp_group(size_t g, size_t in, size_t w, size_t layers, size_t out, char *name, size_t size,
                         const char *prefix, size_t *first, size_t *count);
/* MRA-2's block (the largest of 8, 4, 2 dividing n at least twice) and
 * squares refined per row (a quarter); SKIT_ESHAPE for odd n or n < 4. */
int gradcheck_mra_shape(size_t n, size_t *block, size_t *per_row);
/* ||v||_1 and ||v||_2 (the float32 bounds' norms) */
double gradcheck_norm1(const double *v, size_t count);
double gradcheck_norm2(const double *v, size_t count);
/* precision f32: the rounding expected relative to a group's largest
 * gradient (gradcheck_f32.c says why), the tolerance where the derived
 * bound is looser */
double gradcheck_rounding_level(const gradcheck_options *o);
/* The float32 checks (precision f32), as gradcheck_run. */
int gradcheck_run_f32(const char *op, const gradcheck_options *options, gradcheck_result *result);

#endif
