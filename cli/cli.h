/* cli.h — what every `skit` subcommand shares: argument parsing with
 * range-checked values, one-line errors, gnuplot figures and progress
 * messages (tables, matrices and JSON are written by table.h). A subcommand
 * is thin: parse -> call the library -> write TSV. */
#ifndef SKIT_CLI_H
#define SKIT_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "skit.h"

/* Exit statuses of every subcommand. */
enum {
    CLI_OK = 0,
    CLI_FAILED = 1, /* the computation failed (breakdown, no convergence, ...) */
    CLI_USAGE = 2,  /* bad input: argument, file, shape; nothing was written */
    CLI_IO = 3      /* an output could not be written (disk full, I/O error);
                       nothing was written */
};

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} cli_command;

/* Set the prefix of error messages, e.g. "skit toeplitz matvec". */
void cli_set_context(const char *context);
const char *cli_context(void);

/* Print "<context>: <message>" to stderr; return CLI_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "<context>: <message>" to stderr; return CLI_FAILED. */
int cli_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a library status: the library's message, exit status by class
 * (bad input -> CLI_USAGE, numerical failure -> CLI_FAILED). */
int cli_library_error(int status);

/* Report a failed write of an output: the library's message (with the
 * system's reason), CLI_IO for SKIT_EIO, else as cli_library_error. */
int cli_write_error(int status);

/* ---- outputs: one engine for every file a command writes --------------
 * Every output path is claimed while the options are validated (claims of
 * the same file under two options, after resolving '.', '..' and symbolic
 * links, are refused naming both options). Writers write a claimed output
 * to its staging file ("FILE.tmp.PID.part"); cli_run_command renames all
 * staging files into place only when the command succeeded, and removes
 * them otherwise, so a command's outputs appear together or not at all.
 * SIGINT, SIGTERM and SIGHUP remove every staging and registered temporary
 * file and stop registered child process groups, then end the process with
 * the same signal. */

/* Run a subcommand with that engine around it (tools/skit.c, fuzz harness). */
int cli_run_command(const cli_command *command, int argc, char **argv);
/* 1 if `path` names an existing device, FIFO or socket (/dev/null,
 * /dev/stdout to a pipe): an output written through, never staged or
 * renamed over (lib/core/atomic.c does the same for the library's writers). */
int cli_written_through(const char *path);
/* A command built as a program of its own (skit-train, skit-bench): its
 * main(). Messages and provenance headers name it $SKIT_COMMAND_NAME when
 * the `skit` alias set it (e.g. "skit train"), else `name`. */
int cli_program_main(const cli_command *command, const char *name, int argc, char **argv);
/* `skit <name>` for such a program: run `program` with argv[1..] (from
 * $SKIT_PROGRAM_DIR when set, else the build tree's <subdir>/<program> for
 * a skit run from its build tree, else the program beside the skit binary).
 * Returns only when it cannot be run. */
int cli_exec_program(const char *subdir, const char *program, int argc, char **argv);
/* Claim `path` for `option` (NULL or "-": nothing). CLI_USAGE if another
 * option already claimed the same file. */
int cli_claim_output(const char *option, const char *path);
/* Where to write the claimed output `path` now: its staging file (or `path`
 * itself when it was not claimed, e.g. stdout). */
const char *cli_output_stage(const char *path);
/* A temporary file to remove if a signal arrives: returns a slot for
 * cli_temp_release (-1 if all slots are in use; then nothing is removed). */
int cli_temp_register(const char *path);
void cli_temp_release(int slot);
/* A temporary directory to remove if a signal arrives (one at a time; -1
 * if one is registered or the path is too long), and each file name a
 * writer is about to create in it (-1 when the names fill 64 KiB): the
 * handler removes those files, their ".tmp.PID" temporaries, and the
 * directory. */
int cli_temp_dir_register(const char *dir);
int cli_temp_dir_add(const char *name);
void cli_temp_dir_release(void);
/* A command that can stop at a consistent point (a trainer between steps)
 * defers SIGINT, SIGTERM and SIGHUP: the first is only recorded
 * (cli_signal_pending returns it), a second one ends the process as
 * usual. cli_signal_finish ends it now by the recorded signal, with the
 * usual clean-up (nothing if none is pending); cli_signals_defer(0) stops
 * deferring, and ends the process if a signal is pending. */
void cli_signals_defer(int on);
int cli_signal_pending(void);
void cli_signal_finish(void);
/* The directory for temporary files: $TMPDIR when set (and under 128
 * characters, so that names built on it fit their buffers), else /tmp. */
const char *cli_temp_dir(void);
/* A child process (group leader) to stop with SIGTERM if a signal arrives. */
void cli_child_register(long pid);
void cli_child_release(long pid);

/* Parsers: on error they print one line naming the option and its valid
 * range and return CLI_USAGE; on success CLI_OK. */
int cli_parse_size(const char *option, const char *text, size_t min, size_t max, size_t *out);
int cli_parse_u64(const char *option, const char *text, uint64_t *out);
/* Closed interval [lo, hi] unless lo_open / hi_open. */
int cli_parse_double(const char *option, const char *text, double lo, double hi, int lo_open,
                     int hi_open, double *out);
/* Comma-separated list (an empty item is refused); an item may be "2^k" and "A..B" expands to the
 * powers of two from A to B (both powers of two). Caller frees *values. */
int cli_parse_size_list(const char *option, const char *text, size_t min, size_t max,
                        size_t **values, size_t *count);
int cli_parse_double_list(const char *option, const char *text, double lo, double hi,
                          double **values, size_t *count);
/* As cli_parse_double_list on the interval given as for cli_parse_double. */
int cli_parse_double_list_range(const char *option, const char *text, double lo, double hi,
                                int lo_open, int hi_open, double **values, size_t *count);
/* Seeds seed .. seed + count - 1 must not wrap past 2^64 - 1. */
int cli_check_seed_range(uint64_t seed, size_t count);
/* The O(n^2) paths (dense references, exact attention, bounds over all
 * entries) run only while n^2 * per_entry <= 2^40 operations; else one line
 * naming `what`, the limit and the largest n, and CLI_USAGE. */
int cli_check_quadratic_work(const char *what, size_t n, size_t per_entry);
/* One of a NULL-terminated list of names; *index receives its position. */
int cli_parse_choice(const char *option, const char *text, const char *const *choices,
                     int *index);
/* Comma-separated subset of choices; selected[i] set to 1 for each named. */
int cli_parse_choice_list(const char *option, const char *text, const char *const *choices,
                          int *selected);

/* Options every experiment subcommand takes. */
typedef struct cli_common {
    const char *output; /* -o FILE, NULL = stdout */
    const char *plot;   /* --plot FILE (.png, .svg, .pdf, .eps); NULL = none */
    uint64_t seed;      /* --seed N (default 1) */
    int threads;        /* --threads N (0 = OpenMP default) */
    int quiet;          /* --quiet: no progress on stderr */
    /* Commands that plan FFTs set planner_default (and take
     * CLI_PLANNER_LONGOPTS); cli_common_validate then applies --planner,
     * --wisdom and $SKIT_WISDOM (cli_planner_setup). */
    skit_planner planner_default;
    skit_planner planner; /* --planner (0: not given) */
    const char *wisdom;   /* --wisdom FILE */
    double plan_seconds;  /* --plan-seconds S (< 0: no limit; default -1, benches set theirs) */
} cli_common;

#define CLI_COMMON_SHORTOPTS "ho:"
/* Long options for cli_common; put them in each subcommand's table. The
 * values 0x1000.. are reserved for them. CLI_BASIC_LONGOPTS are those of a
 * command that draws no figure and draws no random numbers. */
#define CLI_BASIC_LONGOPTS                                                      \
    {"help", no_argument, NULL, 'h'}, {"output", required_argument, NULL, 'o'}, \
        {"threads", required_argument, NULL, 0x1003},                            \
        {"quiet", no_argument, NULL, 0x1004}
#define CLI_COMMON_LONGOPTS                                                           \
    CLI_BASIC_LONGOPTS, {"plot", required_argument, NULL, 0x1001},                    \
        {"seed", required_argument, NULL, 0x1002}
#define CLI_COMMON_HELP                                                            \
    "  -o, --output FILE   write the TSV table to FILE (default: stdout)\n"        \
    "      --plot FILE     also draw the figure (.png, .svg, .pdf or .eps; gnuplot)\n" \
    "      --seed N        random seed (default 1), recorded in the output\n"      \
    "      --threads N     OpenMP threads (default: all cores)\n"                  \
    "      --quiet         no progress messages on stderr\n"

/* FFTW planning for the commands that plan (see cli_common). */
#define CLI_PLANNER_LONGOPTS \
    {"planner", required_argument, NULL, 0x1005}, {"wisdom", required_argument, NULL, 0x1006}, \
        {"plan-seconds", required_argument, NULL, 0x1007}
#define CLI_PLANNER_HELP(def)                                                               \
    "      --planner P     FFTW planner: estimate, measure, patient, exhaustive or\n"       \
    "                      wisdom-only (default " def ")\n"                                 \
    "      --plan-seconds S  at most S seconds of FFTW planning per transform (FFTW keeps\n" \
    "                      the best plan found by then; default none; benches 0.25, tno 2)\n"    \
    "      --wisdom FILE   FFTW wisdom: read FILE if it exists, write it back (atomically)\n" \
    "                      with what this run planned; $SKIT_WISDOM names a wisdom file\n" \
    "                      read (never written) before it\n"

/* --planner's value: one line naming the valid names and CLI_USAGE if
 * unknown. */
int cli_parse_planner(const char *option, const char *text, skit_planner *planner);
/* Import $SKIT_WISDOM, then common->wisdom if it exists (its directory
 * must be writable: cli_planner_finish writes it back), then make
 * common->planner (or planner_default when 0) the default of every plan
 * and apply plan_seconds. CLI_USAGE (one line) on an unreadable or
 * malformed wisdom file. */
int cli_planner_setup(const cli_common *common);
/* After a command succeeded: write back the --wisdom file, if any.
 * CLI_FAILED (reported) if it cannot. */
int cli_planner_finish(void);

void cli_common_init(cli_common *common);
/* Handle one getopt result if it is a common option: returns CLI_OK if
 * handled, CLI_USAGE on a bad value, -1 if `opt` is not a common option. */
int cli_common_option(cli_common *common, int opt, const char *arg);
/* ---- options: one driver for every command ----------------------------
 * A command gives its getopt tables and a function that applies one option
 * to its own state; cli_parse_options does the rest, the same way for all. */
typedef struct cli_options {
    const char *shortopts;         /* getopt's short options (NULL: CLI_COMMON_SHORTOPTS) */
    const struct option *longopts; /* ends with {NULL, 0, NULL, 0} */
    const char *usage;             /* -h / --help print it on stdout (NULL: the caller does) */
    cli_common *common;            /* receives the common options (NULL: the command has none) */
    /* One option: its getopt value and its value (NULL for a flag). Returns
     * CLI_OK, CLI_USAGE (reported), or -1 when the option is not one of the
     * command's own: then cli_common_option takes it. */
    int (*apply)(void *ctx, int opt, const char *arg);
    void *ctx;
} cli_options;

/* cli_parse_options printed the usage (-h / --help): not an exit status,
 * the command stops there and exits with CLI_OK. */
#define CLI_HELP (-1)

/* Parse argv[1..] in order: each option through `apply`, else the common
 * options. Returns CLI_OK, CLI_HELP, or CLI_USAGE after one line on stderr
 * naming the option: an unknown option, a missing value, a value given to a
 * flag, an argument that is not an option ("unexpected argument"), or a long
 * option not spelled out in full (getopt_long would take "--causal" for
 * "--causal-ski"; here it is refused, naming the option it abbreviates). */
int cli_parse_options(const cli_options *options, int argc, char **argv);
/* While `apply` runs: the option as typed, without its value ("--n",
 * "-o"), for messages about it. */
const char *cli_option_name(void);

/* Validate the -o / --plot paths before any work: the directory must be
 * writable and --plot must end in .png, .svg, .pdf or .eps. */
int cli_common_validate(const cli_common *common);

/* The shortest "%.15g".."%.17g" text of x that reads back as x. */
void cli_format_exact(double x, char *out, size_t size);

/* 1 if s ends with suffix. */
int cli_ends_with(const char *s, const char *suffix);

/* Validate an extra output file option (e.g. --histogram-out) before any
 * work: non-empty, its directory exists and is writable, not a directory.
 * NULL (option not given) is fine. */
int cli_check_output_path(const char *option, const char *path);

/* Draw plots/<script>.gp into `out` (.png, .svg, .pdf, .eps) from the TSV file
 * `datafile`. `variables` (may be NULL) is extra gnuplot code run first,
 * e.g. "title_suffix='n=512'". Output is atomic (temp + rename). */
int cli_plot(const char *script, const char *datafile, const char *out, const char *variables);

/* Where experiments/, plots/ live, the first of: $SKIT_DATADIR; for an
 * installed skit, <directory of the binary>/../share/skit when it holds
 * plots/ (wherever the installed tree was moved); the source tree when the
 * binary runs from its build tree; the configured $(pkgdatadir). */
const char *cli_datadir(void);
/* The source tree when the running binary lies in its build tree, else NULL. */
const char *cli_source_tree(void);

/* Progress on stderr, not with --quiet: a live line on a terminal, lines
 * otherwise. cli_progress names the stage and shows it once the command
 * has run for a second, at most a few times a second; between calls a
 * heartbeat thread shows the stage and the time so far, the first time by
 * 1.5 s (then every second on a terminal, every 30 s otherwise), so a
 * stage that calls back rarely is not silent. cli_progress_cost names a
 * stage of about `flops` floating-point operations and, when that is 2 s
 * or more at CLI_PROGRESS_FLOPS, says so at once ("exact reference, n =
 * 65536: ~5.5e+11 flops, about 55 s at 10 Gflop/s"): a rough rate, so that
 * a large request is seen to be large before it runs. cli_progress_done
 * ends the line and the heartbeat (also at exit). */
#define CLI_PROGRESS_FLOPS 1e10
void cli_progress_start(const cli_common *common);
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_progress_cost(double flops, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_progress_done(void);

/* Apply --threads. */
void cli_apply_threads(const cli_common *common);

#endif
