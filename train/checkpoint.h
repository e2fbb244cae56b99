/* checkpoint.h — `skit train` checkpoints: a directory that holds every
 * parameter group as DIR/<group>.npy (matrices rows x cols, mixers 1-D, as
 * `skit tno --params` reads them), DIR/model.tsv (the format version, what
 * the arrays are, and the options that made the model: cli/checkpoint.h)
 * and DIR/checksums.tsv; a resumable one adds the training state:
 * DIR/optimizer.m.npy and DIR/optimizer.v.npy (AdamW's moments, 1-D in the
 * parameter layout), DIR/log.tsv (the log's rows so far, every
 * value exact) and DIR/state.tsv (steps done, the data stream's RNG
 * state: with the data and the seed, the data position).
 *
 * Written into DIR.tmp.PID, which the signal handler removes file by file
 * (cli_temp_dir_register), and committed by one rename: a new DIR by
 * rename(2), an existing one (periodic checkpoints) by an atomic exchange
 * (renameat2 RENAME_EXCHANGE) after which the old tree is removed. */
#ifndef SKIT_TRAIN_CHECKPOINT_H
#define SKIT_TRAIN_CHECKPOINT_H

#include <stddef.h>

#include "cli/checkpoint.h"
#include "model.h"

/* loss, validation loss, learning rate, gradient norm, tokens/s, seconds */
#define TRAIN_LOG_COLUMNS 6

typedef struct train_state {
    size_t step;     /* steps done */
    skit_rng rng;    /* the training data stream after them */
    double *m, *v;   /* AdamW moments (parameter count each) */
    double *history; /* step rows of TRAIN_LOG_COLUMNS */
} train_state;

/* Write `values` (the parameter layout: parameters, or gradients for
 * --dump-step) as a checkpoint of kind "parameters" or "gradients", with
 * model.tsv's description line and `fields` ("key\tvalue\n" lines: the
 * options); with state, resumable. CLI_OK, or one line naming `option`, the
 * file and the system's reason and CLI_IO (CLI_USAGE for a path too
 * long); nothing is then left under dir or its temporary. */
int train_checkpoint_write(const char *option, train_model *model, const double *values, const char *dir,
                           const char *kind, const char *description, const char *fields, const train_state *state);

/* Load a checkpoint opened by cli_checkpoint_open (sums: its checksums)
 * into a model built from its fields: every group checked (file present,
 * checksum, .npy well formed, shape, finite) and synced; with state, the
 * training state too (state->m and v of the parameter count; history is
 * allocated: free() it). CLI_OK, or one line naming the file and the
 * problem (CLI_USAGE). */
int train_checkpoint_load(const char *option, const char *dir, const cli_fields *sums, train_model *model,
                          train_state *state);

#endif
