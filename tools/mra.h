/* mra.h — what the files of `skit mra` share: the options (cmd_mra.c),
 * the inputs of one run (mra_inputs.c) and the modes (mra_sweep.c,
 * mra_haar.c, mra_bounds.c). */
#ifndef SKIT_TOOLS_MRA_H
#define SKIT_TOOLS_MRA_H

#include "cli/cli.h"
#include "cli/table.h"

enum mode { MODE_SWEEP, MODE_HAAR, MODE_WORKLOAD, MODE_BOUNDS, MODE_FRAME, MODE_COUNT };
extern const char *const mra_mode_names[]; /* NULL-terminated, in enum mode order */

typedef struct mra_options {
    enum mode mode;
    cli_common common;
    int methods[SKIT_ATTENTION_METHOD_COUNT];
    size_t *n, nn, d, dv;
    double *budget, *temperature, *entropy, *keep, *targets;
    int budget_given; /* --budget on the command line (not the defaults) */
    size_t nbudget, ntemperature, nentropy, nkeep, ntargets;
    size_t *block, nblock, *scales, nscales;
    skit_attention_synthetic spec;
    const char *qpath, *kpath, *vpath, *matrix_out, *hist_out, *y_out, *save_inputs;
    double scale; /* 0 = 1/sqrt(d) */
    double threshold; /* haar: "small" coefficient magnitude */
    size_t pad;       /* padding tokens at the end of every sequence (masked) */
    int causal;       /* --mask causal: query i sees keys j <= i only */
    size_t *heads, nheads; /* user stacks: the heads to run (flat indices), NULL = all */
    int selection;
    size_t diag, repeat, subsets;
    size_t *per_row, nper_row; /* budgets as attention entries per query */
    int first;
    int device; /* 0 cpu, 1 cuda (sweep) */
    skit_precision precision; /* sweep: f32 runs exact, mra2, mra2s in float32 */
    int methods_given;
} mra_options;

/* One sequence: Q, K (n x d), V (n x dv, or NULL), column-major with ld n. */
typedef struct mra_inputs {
    size_t n, d, dv;
    double *q, *k, *v;
    unsigned char *mask; /* --pad: 0 for the padding tokens; NULL = all valid */
    char label[48];      /* user stacks: "\tLAYER\tHEAD" ending each row; else "" */
} mra_inputs;

/* User Q, K, V: `count` heads (L x H, layer-major) of n tokens; head h's
 * token i is row h*n + i of each matrix. */
typedef struct mra_stack {
    size_t count, layers, heads, n, d, dv;
    size_t vshape[SKIT_NPY_MAX_DIMS]; /* V's axes (for --y-out) */
    int vndim;
    skit_matrix q, k, v;
} mra_stack;

/* ---- cmd_mra.c: shared option handling -------------------------------- */

/* The sequence length n (given or of the user's inputs) against the mode. */
int mra_check_n(const mra_options *o, size_t n);
/* The table with its comment lines (NULL-terminated) to -o or stdout, and
 * with --plot the figure. */
int mra_emit(cli_table *t, const cli_common *common, const char *units, const char *const *comments, int argc,
             char **argv, const char *script, const char *variables);
/* The table's columns, and layer, head for user inputs. */
void mra_table_init(cli_table *t, const mra_options *o, const char *const *cols);
/* The logit scale before the temperature: --scale, else 1/sqrt(d). */
double mra_base_scale(const mra_options *o, size_t d);
/* CLI_OK, or exit 1 naming `what` when one of the count values is NaN/Inf:
 * from finite Q and K that is the logits scale q.k past double's range
 * (the softmax of an infinite logit is NaN), never a result to print. */
int mra_require_finite(const double *values, size_t count, const char *what);
/* The options of `method` at budget fraction f of n^2 (library status);
 * *param (may be NULL): the method's own parameter. */
int mra_method_options(const mra_options *o, int method, size_t n, double f, skit_attention_options *mo,
                       double *param);

/* ---- mra_inputs.c ------------------------------------------------------ */

void mra_inputs_free(mra_inputs *in);
void mra_stack_free(mra_stack *s);
/* --q/--k[/--v] into s; every shape and --heads checked. */
int mra_load_stack(const mra_options *o, int need_v, mra_stack *s);
/* The runs of a mode: the chosen heads of a user stack, or one per --n. */
size_t mra_run_count(const mra_options *o, const mra_stack *s);
/* The inputs of run r: head r of the stack, or synthetic ones at the r-th --n. */
int mra_run_inputs(const mra_options *o, const mra_stack *s, size_t r, int need_v, mra_inputs *in);
/* --save-inputs: the synthetic Q, K, V of the one --n as DIR/{q,k,v}.npy. */
int mra_save_inputs(const mra_options *o);

/* ---- the modes: CLI status; argv for the provenance header ------------- */

int mra_sweep(mra_options *o, int argc, char **argv);    /* mra_sweep.c */
int mra_workload(mra_options *o, int argc, char **argv); /* mra_sweep.c */
int mra_haar(mra_options *o, int argc, char **argv);     /* mra_haar.c */
int mra_bounds(mra_options *o, int argc, char **argv);   /* mra_bounds.c */
int mra_frame(mra_options *o, int argc, char **argv);    /* mra_bounds.c */

#endif
