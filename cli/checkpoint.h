/* checkpoint.h — the text files that say what a `skit train` checkpoint
 * directory is, read by every command that takes one (`skit train
 * --resume`, `skit tno --params DIR/layerL.mixer.npy`):
 *
 *   DIR/model.tsv      "# skit train checkpoint: ..." then "field\tvalue"
 *                      lines: the format version (format), what the arrays
 *                      hold (kind), every option the model, data and
 *                      schedule were made with, and the `skit tno` options
 *                      of the mixers (tno.*)
 *   DIR/state.tsv      where training stood (resumable checkpoints only)
 *   DIR/checksums.tsv  every other file's size and FNV-1a 64 hash, written
 *                      last: a file changed or cut short after the
 *                      checkpoint was committed is named, never loaded
 *
 * All three are "field\tvalue" files (cli_fields): a title comment line,
 * the header "field\tvalue", one field per line, each line ended by a
 * newline (a missing one means the file was cut short). */
#ifndef SKIT_CLI_CHECKPOINT_H
#define SKIT_CLI_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "skit.h"

/* The format `skit train --save` writes and every reader accepts. 1 was
 * the unversioned directory of arrays with a group table. */
#define CLI_CHECKPOINT_FORMAT 2
/* The largest field file read (a manifest is a few KiB). */
#define CLI_FIELDS_MAX_BYTES (1u << 20)

typedef struct cli_fields {
    size_t count;
    char **keys, **values; /* point into text */
    char *text;
} cli_fields;

/* Parse `len` bytes of a field file named `path` (for messages) whose first
 * line begins with `title`. On error: one line "<option>: <path>: <problem>",
 * CLI_USAGE (CLI_FAILED out of memory); *out is then empty. */
int cli_fields_parse(const char *option, const char *path, const char *title, const char *text, size_t len,
                     cli_fields *out);
/* The same from a file (missing, unreadable, over CLI_FIELDS_MAX_BYTES:
 * CLI_USAGE naming it). */
int cli_fields_read(const char *option, const char *path, const char *title, cli_fields *out);
/* The value of `key`, NULL if absent. */
const char *cli_fields_get(const cli_fields *fields, const char *key);
void cli_fields_free(cli_fields *fields);

/* FNV-1a 64 of n bytes. */
uint64_t cli_digest(const void *data, size_t n);
/* The line checksums.tsv holds for n bytes: "<n> <16 hex digits>". */
void cli_digest_text(const void *data, size_t n, char *out, size_t size);

/* The same line for a file's bytes: 0, or -1 with errno set. */
int cli_digest_file(const char *path, char *out, size_t size);

/* A checkpoint's DIR/model.tsv (format checked) and DIR/checksums.tsv
 * (model.tsv checked against it). CLI_OK, or one line naming the file and
 * the problem and CLI_USAGE. Free both with cli_fields_free. */
int cli_checkpoint_open(const char *option, const char *dir, cli_fields *model, cli_fields *sums);
/* The title lines of model.tsv, state.tsv and checksums.tsv. */
#define CLI_CHECKPOINT_TITLE "# skit train checkpoint"
#define CLI_CHECKPOINT_STATE_TITLE "# skit train state"
#define CLI_CHECKPOINT_SUMS_TITLE "# skit train checksums"
/* Read DIR/name whole, checked against its checksums.tsv line: *data
 * (free()) and *size; one line naming the file and CLI_USAGE if it is
 * missing, of another size or hash, or has no checksum. */
int cli_checkpoint_read_file(const char *option, const char *dir, const cli_fields *sums, const char *name,
                             unsigned char **data, size_t *size);

/* One option of a command that reads a checkpoint's mixer, against the
 * checkpoint's field: key ("tno.d"; "a|b": the first present), the
 * option's name for messages ("--d") and this run's value as the field
 * would spell it ("32"; cli_format_exact for numbers). */
typedef struct cli_field_check {
    const char *key, *option;
    char value[40];
} cli_field_check;

/* `skit tno --params PATH`, `skit decay --params PATH` where PATH's
 * directory is a `skit train` checkpoint (its model.tsv says so): PATH
 * checked against its checksum and every check against model.tsv, a
 * difference refused with one line naming the option (CLI_USAGE). CLI_OK
 * also when the directory is no checkpoint. */
int cli_checkpoint_check_mixer(const char *option, const char *path, const cli_field_check *checks, size_t count);
/* L of a file named layerL.*, else -1 (a learned decay is per layer). */
int cli_checkpoint_mixer_layer(const char *path);

#endif
