/* reproduce_slurm.h — `skit reproduce --slurm` (tools/reproduce_slurm.c),
 * experiments split into units (tools/reproduce_units.c) and the pieces of
 * tools/cmd_reproduce.c they share.
 *
 * A run's work is a list of items: an experiment ("NN_name"), or one unit
 * of an experiment that declares units ("NN_name@unit"), whose
 * experiment's combine step runs in --merge. */
#ifndef SKIT_TOOLS_REPRODUCE_SLURM_H
#define SKIT_TOOLS_REPRODUCE_SLURM_H

#include <signal.h>
#include <stddef.h>

#define MAX_EXPERIMENTS 256
/* items of one run; also the most tasks of a Slurm array (MaxArraySize's default is 1001) */
#define MAX_ITEMS 1000
#define UNIT_SEPARATOR '@'
#define MAX_SLURM_OPTS 32

typedef struct reproduce_options {
    const char *out, *only, *compare;
    size_t shard_index, shard_count;
    int merge, quick, list, paper_figures, strict, allow_partial;
    int slurm, resume_missing;
    const char *slurm_task; /* --slurm-task FILE: this array task's list */
    const char *slurm_opts[MAX_SLURM_OPTS];
    size_t slurm_opt_count;
} reproduce_options;

/* ---- tools/cmd_reproduce.c ---------------------------------------------- */

/* The experiment's name: its script's file name without ".sh". */
void reproduce_stem(const char *file, char *out, size_t size);
/* Creates the output tree out_dir/{data,figures,...} and sets the scripts'
 * environment; its absolute path into abs_out. */
int reproduce_prepare_output(const char *out_dir, int quick, char *abs_out, size_t size);
/* Sets the scripts' environment: SKIT, SKIT_OUT=abs_out, SKIT_DATADIR, SKIT_QUICK. */
int reproduce_set_env(const char *abs_out, int quick);
/* Runs item (an experiment, or one unit of one) into abs_out, or with
 * combine, the combine step of experiment item; 1 if it failed. */
int reproduce_run_item(const char *exp_dir, const char *item, const char *abs_out, size_t run,
                       size_t selected, int combine);
/* Records experiment `name` as failed: claims/NAME.tsv with one error row
 * whose measured text is `measured`, and its completion marker. */
void reproduce_error_row(const char *abs_out, const char *name, const char *measured);
/* Runs argv (stderr to /dev/null when quiet) with its stdout into out
 * (NUL-terminated, at most size - 1 bytes); its exit status, 127 when it
 * could not be started. */
int reproduce_capture(char *const argv[], int quiet, char *out, size_t size);
/* Takes the lock of a whole run on out_dir (exit-status convention). */
int reproduce_lock_output_dir(const char *out_dir, int create, size_t shard, size_t shards);
/* flock `how` on out_dir/name without waiting, or CLI_USAGE naming its holder. */
int reproduce_lock_file(const char *out_dir, const char *name, int how);
/* 0, or -1 with errno. */
int reproduce_copy_file(const char *from, const char *to);
void reproduce_remove_tree(const char *path);
/* Blocks SIGINT, SIGTERM and SIGHUP (the mask before into saved): a step
 * that must not be left half done. */
void reproduce_hold_signals(sigset_t *saved);

/* ---- tools/reproduce_slurm.c -------------------------------------------- */

/* --slurm: submits the array (one task per experiment of run[0..count),
 * names without ".sh"; with --resume-missing, the recorded run's missing
 * and failed ones) and the merge job after it. */
int slurm_submit(const reproduce_options *o, const char *out_dir, char *const *run, size_t count);
/* --slurm-task FILE: the experiment on line $SLURM_ARRAY_TASK_ID of FILE,
 * into out_dir/shards/NAME. */
int slurm_task(const reproduce_options *o, const char *out_dir, const char *exp_dir,
               char *const *names, size_t count);
/* --merge of a Slurm run: copies its shards into out_dir and writes the
 * plan --merge checks; CLI_OK untouched where out_dir holds no Slurm run.
 * Refuses (CLI_FAILED) missing or failed shards unless allow_partial. */
int slurm_gather(const char *out_dir, int allow_partial);
/* 1 (their IDs into ids) while jobs of the Slurm run on out_dir other than
 * the caller's own are pending or running. */
int slurm_jobs_active(const char *out_dir, char *ids, size_t size);

/* ---- tools/reproduce_units.c -------------------------------------------- */

/* The experiment of an item (its name up to UNIT_SEPARATOR) into exp. */
void units_experiment(const char *item, char *exp, size_t size);
/* The unit of an item, NULL for a whole experiment. */
const char *units_unit(const char *item);
/* Appends to items (at most MAX_ITEMS, *count of them so far) the units of
 * experiment script `file` as "NAME@unit", or "NAME" when it declares none
 * or cannot list them (it then runs whole). Needs reproduce_set_env. */
void units_expand(const char *exp_dir, const char *file, char **items, size_t *count);
/* --merge: runs the combine step of every experiment whose units the plans
 * (out_dir/done/.plan-*) name and whose units all finished; an experiment
 * with a failed unit gets an error row instead. The number that failed. */
size_t units_combine(const char *out_dir, const char *exp_dir, int quick);

#endif
