/* cmd_reproduce.c — `skit reproduce`: run experiments/NN_*.sh, collect their
 * claims into REPORT.md and verdicts.json (tools/reproduce_report.c).
 *
 * Contract with an experiment script (see experiments/common.sh):
 *   environment: SKIT (this binary), SKIT_OUT (output root), SKIT_DATADIR
 *                (plots/, experiments/: cli_datadir), SKIT_QUICK (1 = small)
 *   writes:      $SKIT_OUT/data/<name>/ (TSV), $SKIT_OUT/figures/ (PNG, SVG),
 *                $SKIT_OUT/claims/<name>.tsv (a header row, then one row
 *                per claim: id, source, claim, measured, verdict, margin,
 *                stability; docs/development.md),
 *                optionally $SKIT_OUT/notes/<name>.md (conventions, caveats).
 *   units:       a script that declares units runs one of them with
 *                SKIT_UNIT, its combine step with SKIT_COMBINE=1, lists them
 *                with SKIT_LIST_UNITS=1 (tools/reproduce_units.c).
 * Sharding (--shard i/N) runs every N-th item (an experiment, or a unit of
 * one), writes no report; after the shards' output directories are copied
 * together, --merge runs the combine steps and writes REPORT.md from
 * claims/ and notes/.
 * Output: --out DIR, by default build/paper_figures for a skit run from its
 * build tree; the committed paper_figures/ of the source tree is replaced
 * (its report, not the data) only with --paper-figures. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "commands.h"
#include "reproduce_report.h"
#include "reproduce_slurm.h"

static const char *usage =
    "usage: skit reproduce [options]\n"
    "Run every experiment in experiments/ (scripts NN_name.sh), write data, figures\n"
    "(PNG, SVG, PDF, EPS) and REPORT.md into the output directory, print the verdict\n"
    "table and the verdicts that differ from the committed report.\n\n"
    "options:\n"
    "  --out DIR        output directory (default: paper_figures/ in the build tree for a\n"
    "                   skit run from its build tree, else ./skit-reproduce)\n"
    "  --paper-figures  when every experiment has finished at full size in the output\n"
    "                   directory (in this run, or with --only in an earlier one),\n"
    "                   replace the source tree's committed paper_figures/ by its\n"
    "                   report: REPORT.md, verdicts.json, claims/, notes/, figures/*.png\n"
    "  --strict         exit 1 if a paper's claim within its hypotheses fails (verdict\n"
    "                   'fails') or an experiment does not finish (for CI)\n"
    "  --compare DIR    list the verdicts that differ from the run in DIR (default: the\n"
    "                   source tree's committed paper_figures/, for a skit run from its\n"
    "                   build tree)\n"
    "  --only LIST      run only these experiments (comma-separated names or numbers)\n"
    "  --shard I/N      run the items whose index = I-1 mod N, no report: the experiments,\n"
    "                   those split into units (the training experiments: one unit per\n"
    "                   seed or configuration) as one item per unit, NAME@UNIT\n"
    "  --merge          after shards: run the combine step of every experiment split into\n"
    "                   units (its claims, notes and figures from its units' data), then\n"
    "                   write REPORT.md from DIR/claims and DIR/notes; refused (exit 1)\n"
    "                   while a shard never started or an item of its plan\n"
    "                   (DIR/done/.plan-I-of-N) has no completion marker (DIR/done/NAME):\n"
    "                   it did not run or was interrupted; and while a completed\n"
    "                   experiment's claims file is missing or not well formed\n"
    "  --allow-partial  with --merge (or --slurm, for its merge job): write the report\n"
    "                   anyway; its first lines name the missing experiments\n"
    "  --slurm          submit the run to Slurm: one job array, a task per item (experiment,\n"
    "                   or unit, as for --shard), and a merge job after it\n"
    "                   (--dependency=afterany) that combines units and writes REPORT.md;\n"
    "                   --out must be on a filesystem the nodes share. Task I writes only\n"
    "                   DIR/shards/NAME (renamed into place when its item ends, so a\n"
    "                   killed task leaves none); the merge copies the shards into DIR and\n"
    "                   refuses missing or failed ones (unless --allow-partial). DIR/slurm/\n"
    "                   holds the job IDs and Slurm's logs; while those jobs are queued or\n"
    "                   running, any other run on DIR is refused\n"
    "  --slurm-opt OPT  with --slurm: pass OPT to sbatch for every job (repeat it), e.g.\n"
    "                   --slurm-opt=--partition=short --slurm-opt=--time=2:00:00\n"
    "                   --slurm-opt=--cpus-per-task=4 --slurm-opt=--mem=8G --slurm-opt=--account=X\n"
    "  --resume-missing with --slurm: resubmit only the items of the run in DIR whose\n"
    "                   shard is missing (killed, timed out) or failed, and a new merge job\n"
    "  --slurm-task FILE  (run by the array tasks) the item on line\n"
    "                   $SLURM_ARRAY_TASK_ID of FILE, into DIR/shards/\n"
    "  --quick          smaller sizes, the same claims (the report says so)\n"
    "  --list           list the experiments and exit\n"
    "  -h, --help       this message\n\n"
    "Sharded runs, e.g. with GNU parallel on one machine:\n"
    "  parallel skit reproduce --out out --shard {}/4 ::: 1 2 3 4 && skit reproduce --out out "
    "--merge\n"
    "On a Slurm cluster: skit reproduce --slurm --out /shared/run [--slurm-opt=...]\n"
    "and after a task was killed: skit reproduce --slurm --resume-missing --out /shared/run\n"
    "Shards of one run may share DIR; any other second run on DIR is refused while the\n"
    "first holds it (\"DIR is in use by PID\"). Units give the data files of a run on one\n"
    "machine, byte for byte (timings aside).\n";

static int is_experiment_name(const char *name)
{
    size_t len = strlen(name);
    return len > 6 && name[0] >= '0' && name[0] <= '9' && name[1] >= '0' && name[1] <= '9' &&
           name[2] == '_' && strcmp(name + len - 3, ".sh") == 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of experiment script names (without directory). */
static int list_experiments(const char *dir, char **names, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) return cli_usage_error("cannot open %s: %s (set SKIT_DATADIR)", dir, strerror(errno));
    *count = 0;
    struct dirent *e;
    while ((e = readdir(d)) && *count < MAX_EXPERIMENTS)
        if (is_experiment_name(e->d_name)) names[(*count)++] = strdup(e->d_name);
    closedir(d);
    qsort(names, *count, sizeof *names, compare_strings);
    return CLI_OK;
}

/* Name without ".sh". */
void reproduce_stem(const char *file, char *out, size_t size)
{
    snprintf(out, size, "%.*s", (int)(strlen(file) - 3), file);
}

static int selected_by_only(const char *only, const char *name_stem)
{
    if (!only) return 1;
    char *copy = strdup(only), *save = NULL;
    int hit = 0;
    for (char *item = strtok_r(copy, ",", &save); item && !hit; item = strtok_r(NULL, ",", &save)) {
        size_t len = strlen(item);
        if (!strcmp(item, name_stem) || !strcmp(item, name_stem + 3) ||
            (len <= 2 && !strncmp(name_stem, item, len) && name_stem[len] == '_') ||
            (len == 1 && name_stem[0] == '0' && name_stem[1] == item[0]))
            hit = 1;
    }
    free(copy);
    return hit;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return 0;
    return -1;
}

/* Runs one script with output to its log; returns the exit status. */
static int run_script(const char *script, const char *log_path)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0); /* its own group: a signal to skit stops all of it */
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execlp("bash", "bash", script, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* also here, so the group exists before a signal comes */
    cli_child_register(pid);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    cli_child_release(pid);
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128;
}

/* ---- completion markers, --merge, the output-directory lock ------------- */

static int run_was_quick(const char *out_dir, int quick);

/* DIR/done/NAME exists once experiment NAME ran to its end (its claims, or
 * its error row, are complete); a unit's marker holds why it failed, if it
 * did (its experiment's combine step turns that into the error row). */
static void set_done_marker(const char *out_dir, const char *name, int done, const char *failure)
{
    char marker[4400];
    snprintf(marker, sizeof marker, "%s/done/%s", out_dir, name);
    if (!done) {
        unlink(marker);
        return;
    }
    if (!failure) {
        int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) close(fd);
        return;
    }
    /* whole or absent: an empty marker would say the unit succeeded */
    char tmp[4500];
    FILE *f;
    if (skit_atomic_open(marker, tmp, sizeof tmp, &f) != SKIT_OK) return;
    int slot = cli_temp_register(tmp);
    fprintf(f, "%s\n", failure);
    skit_atomic_commit(f, tmp, marker);
    cli_temp_release(slot);
}

/* Appends `item` to the comma-separated list *list (grown); -1 out of memory. */
static int append_item(char **list, size_t *size, const char *item)
{
    size_t need = strlen(*list) + strlen(item) + 3;
    if (need > *size) {
        char *grown = realloc(*list, need * 2);
        if (!grown) return -1;
        *list = grown;
        *size = need * 2;
    }
    if (**list) strcat(*list, ", ");
    strcat(*list, item);
    return 0;
}

/* Adds to *list the experiments of plan file `path` without a marker. */
static int missing_of_plan(const char *out_dir, const char *path, char **list, size_t *size)
{
    FILE *f = fopen(path, "r");
    char line[256], marker[4400];
    int status = 0;
    while (f && status == 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!*line || strchr(line, '/')) continue;
        snprintf(marker, sizeof marker, "%s/done/%s", out_dir, line);
        if (access(marker, F_OK) != 0) status = append_item(list, size, line);
    }
    if (f) fclose(f);
    return status;
}

/* What a run in out_dir lacks, comma-separated ("" when nothing): the
 * experiments its plans (done/.plan-I-of-N) name without a completion
 * marker, and "shard I/N" for every shard of N that never started. A
 * directory without plans (an older skit) is checked against every
 * experiment of names[0..count). NULL out of memory. */
static char *missing_experiments(const char *out_dir, char *const *names, size_t count)
{
    size_t size = 256, shards = 0;
    char *list = calloc(size, 1), path[4400];
    snprintf(path, sizeof path, "%s/done", out_dir);
    DIR *d = opendir(path);
    struct dirent *e;
    while (list && d && (e = readdir(d))) {
        size_t i, n;
        if (sscanf(e->d_name, ".plan-%zu-of-%zu", &i, &n) == 2 && n > shards) shards = n;
    }
    if (d) closedir(d);
    for (size_t i = 1; list && i <= shards; i++) {
        snprintf(path, sizeof path, "%s/done/.plan-%zu-of-%zu", out_dir, i, shards);
        char item[64];
        snprintf(item, sizeof item, "shard %zu/%zu", i, shards);
        if (access(path, F_OK) != 0 ? append_item(&list, &size, item)
                                    : missing_of_plan(out_dir, path, &list, &size)) {
            free(list);
            list = NULL;
        }
    }
    for (size_t i = 0; list && shards == 0 && i < count; i++) {
        char name[256], marker[4400];
        reproduce_stem(names[i], name, sizeof name);
        snprintf(marker, sizeof marker, "%s/done/%s", out_dir, name);
        if (access(marker, F_OK) != 0 && append_item(&list, &size, name)) {
            free(list);
            list = NULL;
        }
    }
    return list;
}

/* --merge: REPORT.md only when every experiment completed, or with
 * --allow-partial (the report then names the missing ones first). */
static int finish_report(const char *out_dir, const reproduce_options *o, size_t failed,
                         const char *missing);

/* the combine steps of the experiments split into units; how many failed */
static size_t combine_units(const char *out_dir, const char *exp_dir, const reproduce_options *o)
{
    return units_combine(out_dir, exp_dir, run_was_quick(out_dir, o->quick));
}

static int merge_report(const char *out_dir, const char *exp_dir, const reproduce_options *o,
                        char *const *names, size_t count)
{
    char claims[4400];
    snprintf(claims, sizeof claims, "%s/claims", out_dir);
    char slurm_run[4400];
    snprintf(slurm_run, sizeof slurm_run, "%s/slurm/run", out_dir);
    if (access(claims, F_OK) != 0 && access(slurm_run, F_OK) != 0)
        return cli_usage_error("--merge: %s has no claims/ directory (run experiments first)", out_dir);
    int status = slurm_gather(out_dir, o->allow_partial);
    if (status != CLI_OK) return status;
    char *missing = missing_experiments(out_dir, names, count);
    if (!missing) return cli_failure("out of memory");
    if (*missing && !o->allow_partial) {
        status = cli_failure("--merge: %s: experiments not completed (no marker in done/): %s; run "
                             "them, or pass --allow-partial for a report that says so",
                             out_dir, missing);
        free(missing);
        return status;
    }
    size_t failed = combine_units(out_dir, exp_dir, o);
    /* a marker vouches for a claims file that may since have been lost
     * (checked after the combine steps, which write their experiments') */
    char *malformed = claims_check_completed(out_dir);
    size_t size = strlen(missing) + 1;
    if (!malformed)
        status = cli_failure("out of memory");
    else if (*malformed && !o->allow_partial)
        status = cli_failure("--merge: %s: completed experiments without a well-formed claims file: %s; "
                             "run them again, or pass --allow-partial for a report that says so",
                             out_dir, malformed);
    else if (*malformed && append_item(&missing, &size, malformed) != 0)
        status = cli_failure("out of memory");
    else
        status = finish_report(out_dir, o, failed, missing);
    free(missing);
    free(malformed);
    return status;
}

/* Takes flock `how` on DIR/NAME without waiting, the PID written into it;
 * CLI_USAGE naming the holder's PID when another process has it. */
int reproduce_lock_file(const char *out_dir, const char *name, int how)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return cli_usage_error("--out: cannot create %s: %s", path, strerror(errno));
    if (flock(fd, how | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t got = read(fd, pid, sizeof pid - 1);
        pid[got > 0 ? got : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(fd);
        return cli_usage_error("--out: %s is in use by PID %s (another skit reproduce); wait for it "
                               "or choose another --out",
                               out_dir, *pid ? pid : "?");
    }
    char text[32];
    int len = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || write(fd, text, (size_t)len) != len) {
        /* the lock holds without the PID; only a message would lack it */
    }
    return CLI_OK; /* fd stays open: the lock lasts until exit */
}

/* Two runs on one directory would overwrite each other's files: a whole run
 * or --merge holds DIR/.skit-reproduce.lock exclusively; shards of one
 * sharded run (--shard I/N, the documented way to run in parallel) share it
 * and each holds its own .skit-reproduce.lock.I-of-N. The kernel releases
 * the locks when the process ends. A Slurm run outlives the process that
 * submitted it: its jobs hold DIR while the scheduler lists them. */
int reproduce_lock_output_dir(const char *out_dir, int create, size_t shard, size_t shards)
{
    if (create && mkdir(out_dir, 0777) != 0 && errno != EEXIST)
        return cli_usage_error("--out: cannot create directory %s: %s", out_dir, strerror(errno));
    struct stat st;
    if (!create && stat(out_dir, &st) != 0) return CLI_OK; /* write_report says it is missing */
    int status = reproduce_lock_file(out_dir, ".skit-reproduce.lock", shards > 1 ? LOCK_SH : LOCK_EX);
    char jobs[256];
    if (status == CLI_OK && slurm_jobs_active(out_dir, jobs, sizeof jobs))
        return cli_usage_error("--out: %s is in use by Slurm jobs %s (skit reproduce --slurm); wait "
                               "for them, scancel them, or choose another --out",
                               out_dir, jobs);
    if (status != CLI_OK || shards <= 1) return status;
    char name[64];
    snprintf(name, sizeof name, ".skit-reproduce.lock.%zu-of-%zu", shard, shards);
    return reproduce_lock_file(out_dir, name, LOCK_EX);
}

/* Plans of another shard count belong to an older run of this directory. */
static void clear_plans(const char *out_dir, size_t shards)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/done", out_dir);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t i, n;
        if (sscanf(e->d_name, ".plan-%zu-of-%zu", &i, &n) != 2 || n == shards) continue;
        snprintf(path, sizeof path, "%s/done/%s", out_dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
}

/* done/.plan-I-of-N: the items (experiments, units) shard I of N (1 of 1:
 * a whole run) was given, one per line, written before any runs: --merge
 * expects exactly these, and every shard of N. */
static void write_plan(const char *out_dir, const reproduce_options *o, char *const *items,
                       size_t count)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/done/.plan-%zu-of-%zu", out_dir, o->shard_index, o->shard_count);
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (size_t i = 0; i < count; i++)
        fprintf(f, "%s\n", items[i]);
    fclose(f);
}

/* --shard I/N */
static int parse_shard(const char *arg, reproduce_options *o)
{
    const char *slash = strchr(arg, '/');
    char first[32];
    if (!slash || (size_t)(slash - arg) >= sizeof first)
        return cli_usage_error("--shard: expected I/N with 1 <= I <= N, got '%s'", arg);
    snprintf(first, sizeof first, "%.*s", (int)(slash - arg), arg);
    if (cli_parse_size("--shard N", slash + 1, 1, 1000, &o->shard_count) != CLI_OK ||
        cli_parse_size("--shard I", first, 1, o->shard_count, &o->shard_index) != CLI_OK)
        return CLI_USAGE;
    return CLI_OK;
}

/* One option (cli_options.apply). */
static int reproduce_option(void *ctx, int opt, const char *arg)
{
    reproduce_options *o = ctx;
    switch (opt) {
    case 'O': o->out = arg; return CLI_OK;
    case 'y': o->only = arg; return CLI_OK;
    case 's': return parse_shard(arg, o);
    case 'm': o->merge = 1; return CLI_OK;
    case 'q': o->quick = 1; return CLI_OK;
    case 'l': o->list = 1; return CLI_OK;
    case 'P': o->paper_figures = 1; return CLI_OK;
    case 'S': o->strict = 1; return CLI_OK;
    case 'C': o->compare = arg; return CLI_OK;
    case 'A': o->allow_partial = 1; return CLI_OK;
    case 'U': o->slurm = 1; return CLI_OK;
    case 'R': o->resume_missing = 1; return CLI_OK;
    case 'T': o->slurm_task = arg; return CLI_OK;
    case 'W':
        if (o->slurm_opt_count == MAX_SLURM_OPTS)
            return cli_usage_error("--slurm-opt: at most %d options", MAX_SLURM_OPTS);
        o->slurm_opts[o->slurm_opt_count++] = arg;
        return CLI_OK;
    }
    return -1;
}

/* --slurm submits a whole run; the others go with it */
static int check_slurm_options(const reproduce_options *o)
{
    if (o->slurm && (o->merge || o->shard_count > 1 || o->paper_figures || o->slurm_task))
        return cli_usage_error("--slurm: submits a whole run (not with --merge, --shard, "
                               "--paper-figures or --slurm-task)");
    if ((o->slurm_opt_count || o->resume_missing) && !o->slurm)
        return cli_usage_error("--%s needs --slurm", o->resume_missing ? "resume-missing" : "slurm-opt");
    if (o->resume_missing && (o->only || o->quick))
        return cli_usage_error("--resume-missing: the experiments and --quick are the recorded "
                               "run's (drop --only and --quick)");
    if (o->slurm_task && (o->merge || o->shard_count > 1 || o->only || o->paper_figures))
        return cli_usage_error("--slurm-task: runs one array task of --slurm (not with --merge, "
                               "--shard, --only or --paper-figures)");
    return CLI_OK;
}

/* CLI_OK, CLI_USAGE, or CLI_HELP */
static int parse_options(int argc, char **argv, reproduce_options *o)
{
    /* clang-format off */
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},       {"out", required_argument, NULL, 'O'},
        {"only", required_argument, NULL, 'y'}, {"shard", required_argument, NULL, 's'},
        {"merge", no_argument, NULL, 'm'},      {"quick", no_argument, NULL, 'q'},
        {"list", no_argument, NULL, 'l'},
        {"paper-figures", no_argument, NULL, 'P'},
        {"strict", no_argument, NULL, 'S'},
        {"compare", required_argument, NULL, 'C'},
        {"allow-partial", no_argument, NULL, 'A'},
        {"slurm", no_argument, NULL, 'U'},
        {"slurm-opt", required_argument, NULL, 'W'},
        {"resume-missing", no_argument, NULL, 'R'},
        {"slurm-task", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0}};
    /* clang-format on */
    *o = (reproduce_options){.shard_index = 1, .shard_count = 1};
    const cli_options parser = {.shortopts = "h", .longopts = longopts, .usage = usage,
                                .apply = reproduce_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (o->paper_figures && o->out)
        return cli_usage_error("--paper-figures and --out: the committed report is refreshed from a "
                               "run into the build tree's paper_figures/ (drop --out)");
    if (o->paper_figures && (o->quick || o->shard_count > 1 || o->merge))
        return cli_usage_error("--paper-figures: only a complete full run replaces the committed "
                               "report (not with --quick, --shard or --merge)");
    if (o->paper_figures && !cli_source_tree())
        return cli_usage_error("--paper-figures: only a skit run from its build tree knows the "
                               "source tree's paper_figures/ (use --out)");
    if (o->allow_partial && !o->merge && !o->slurm)
        return cli_usage_error("--allow-partial needs --merge or --slurm");
    return check_slurm_options(o);
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
}

/* The run's items: the experiments --only selects, split into their units
 * when `split` (a sharded or Slurm run, whose parts the merge combines);
 * of those, shard I of N gets every N-th from the I-th. CLI_USAGE when
 * --only selects nothing. */
static int plan_items(const reproduce_options *o, const char *exp_dir, char *const *names,
                      size_t count, int split, char **items, size_t *n_items)
{
    char *all[MAX_ITEMS];
    size_t n_all = 0;
    for (size_t i = 0; i < count && n_all < MAX_ITEMS; i++) {
        char name[256];
        reproduce_stem(names[i], name, sizeof name);
        if (!selected_by_only(o->only, name)) continue;
        if (split) units_expand(exp_dir, names[i], all, &n_all);
        else all[n_all++] = strdup(name);
    }
    if (n_all == 0) return cli_usage_error("--only/--shard: no experiment selected (see --list)");
    *n_items = 0;
    for (size_t i = 0; i < n_all; i++)
        if (i % o->shard_count == o->shard_index - 1) items[(*n_items)++] = all[i];
        else free(all[i]);
    return CLI_OK;
}

int reproduce_set_env(const char *abs_out, int quick)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return cli_failure("cannot locate the skit binary");
    self[len] = '\0';
    setenv("SKIT", self, 1);
    setenv("SKIT_OUT", abs_out, 1);
    /* absolute: the scripts run inside the output directory */
    char datadir[4096];
    if (!realpath(cli_datadir(), datadir)) snprintf(datadir, sizeof datadir, "%s", cli_datadir());
    setenv("SKIT_DATADIR", datadir, 1);
    setenv("SKIT_QUICK", quick ? "1" : "0", 1);
    return CLI_OK;
}

/* The output tree, and the environment the experiment scripts read. */
int reproduce_prepare_output(const char *out_dir, int quick, char *abs_out, size_t size)
{
    const char *subdirs[] = {"", "/data", "/figures", "/claims", "/notes", "/logs", "/done"};
    for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", out_dir, subdirs[i]);
        if (make_dir(p) != 0)
            return cli_usage_error("--out: cannot create directory %s: %s", p, strerror(errno));
    }
    if (!realpath(out_dir, abs_out)) snprintf(abs_out, size, "%s", out_dir);
    int status = reproduce_set_env(abs_out, quick);
    if (status != CLI_OK) return status;
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/claims/.quick", abs_out);
    if (quick) {
        FILE *m = fopen(marker, "w");
        if (m) fclose(m);
    } else {
        unlink(marker);
    }
    return CLI_OK;
}

void reproduce_error_row(const char *abs_out, const char *name, const char *measured)
{
    char claims[4400], tmp[4500];
    snprintf(claims, sizeof claims, "%s/claims/%s.tsv", abs_out, name);
    FILE *c;
    if (skit_atomic_open(claims, tmp, sizeof tmp, &c) == SKIT_OK) {
        int slot = cli_temp_register(tmp);
        fprintf(c,
                CLAIMS_HEADER "\nscript\t" CLAIM_SOURCE_RUN "\texperiment script ran to "
                              "completion\t%s\terror\t-\t-\t\n",
                measured);
        /* the error row is this experiment's complete record */
        if (skit_atomic_commit(c, tmp, claims) == SKIT_OK) set_done_marker(abs_out, name, 1, NULL);
        cli_temp_release(slot);
    }
}

/* The environment that tells a script which part of it to run: a unit
 * (SKIT_UNIT), the combine step (SKIT_COMBINE) or, with neither, all. */
static void set_unit_env(const char *unit, int combine)
{
    if (unit) setenv("SKIT_UNIT", unit, 1);
    else unsetenv("SKIT_UNIT");
    if (combine) setenv("SKIT_COMBINE", "1", 1);
    else unsetenv("SKIT_COMBINE");
    unsetenv("SKIT_LIST_UNITS");
}

/* One experiment script, one unit of it, or its combine step. A failure is
 * recorded as a claim row so that the report cannot hide it (a unit's, in
 * its marker, for the combine step). Returns 1 if it failed. */
int reproduce_run_item(const char *exp_dir, const char *item, const char *abs_out, size_t run,
                       size_t selected, int combine)
{
    char exp[256], script[4400], log_path[4400], failure[4600];
    const char *unit = units_unit(item);
    units_experiment(item, exp, sizeof exp);
    snprintf(script, sizeof script, "%s/%s.sh", exp_dir, exp);
    snprintf(log_path, sizeof log_path, "%s/logs/%s.log", abs_out, item);
    char label[300];
    snprintf(label, sizeof label, "%s%s", item, combine ? " (combine)" : "");
    fprintf(stderr, "[%zu/%zu] %-32s ...", run, selected, label);
    fflush(stderr);
    set_done_marker(abs_out, item, 0, NULL); /* an older run's marker no longer holds */
    set_unit_env(unit, combine);
    double t0 = skit_clock_seconds();
    int rc = run_script(script, log_path);
    double dt = skit_clock_seconds() - t0;
    if (rc == 0) {
        fprintf(stderr, " done (%.1f s)\n", dt);
        set_done_marker(abs_out, item, 1, NULL);
        return 0;
    }
    fprintf(stderr, " FAILED (exit %d, %.1f s; see %s)\n", rc, dt, log_path);
    snprintf(failure, sizeof failure, "exit status %d after %.1f s (logs/%s.log)", rc, dt, item);
    if (unit) set_done_marker(abs_out, item, 1, failure);
    else reproduce_error_row(abs_out, item, failure);
    return 1;
}

/* ---- output directory and report (verdict handling: reproduce_report.c) -- */

/* --out, or the default: under the build tree for a skit run from it (the
 * committed paper_figures/ changes only with --paper-figures, by
 * publish_report), else ./skit-reproduce (an installed skit's data
 * directory is no place for output). */
static void output_dir(const reproduce_options *o, char *out, size_t size)
{
    const char *source = cli_source_tree();
    if (o->out)
        snprintf(out, size, "%s", o->out);
    else if (source)
        snprintf(out, size, "%s/paper_figures", SKIT_BUILD_DIR);
    else
        snprintf(out, size, "skit-reproduce");
}

/* a run (or shard) with --quick leaves claims/.quick, so --merge knows */
static int run_was_quick(const char *out_dir, int quick)
{
    char marker[4400];
    snprintf(marker, sizeof marker, "%s/claims/.quick", out_dir);
    return quick || access(marker, F_OK) == 0;
}

/* The run to compare verdicts with: --compare, or the source tree's
 * committed paper_figures/ when that holds a full run. */
static const char *comparison_dir(const reproduce_options *o, const char *out_dir, char *buf,
                                  size_t size)
{
    if (o->compare) return o->compare;
    const char *source = cli_source_tree();
    if (!source) return NULL;
    snprintf(buf, size, "%s/paper_figures", source);
    char real_out[4096], real_cmp[4096];
    if (realpath(out_dir, real_out) && realpath(buf, real_cmp) && !strcmp(real_out, real_cmp))
        return NULL;
    char claims[4400];
    snprintf(claims, sizeof claims, "%s/claims", buf);
    if (access(claims, F_OK) != 0 || run_was_quick(buf, 0)) return NULL;
    return buf;
}

/* REPORT.md, verdicts.json, the table; the exit status (--strict: paper
 * claims that fail count as failure) */
static int finish_report(const char *out_dir, const reproduce_options *o, size_t failed,
                         const char *missing)
{
    char cmp_buf[4200];
    report_options ro = {.quick = run_was_quick(out_dir, o->quick), .missing = missing};
    ro.compare_dir = comparison_dir(o, out_dir, cmp_buf, sizeof cmp_buf);
    char label[4300];
    snprintf(label, sizeof label, "`%s`", o->compare ? o->compare : "");
    ro.compare_label = o->compare ? label : "the committed report (`paper_figures/` of the source tree)";
    report_outcome outcome;
    int status = report_write(out_dir, &ro, &outcome);
    if (status != CLI_OK) return status;
    fprintf(stderr, "report: %s/REPORT.md, verdicts.json\n", out_dir);
    if (ro.compare_dir)
        fprintf(stderr, "%zu verdict(s) differ from %s (listed in REPORT.md)\n", outcome.differ,
                ro.compare_dir);
    if (outcome.unstable)
        fprintf(stderr, "%zu verdict(s) unstable across repeats\n", outcome.unstable);
    if (o->strict && (outcome.paper_fails || outcome.errors)) {
        fprintf(stderr, "--strict: %zu paper claim(s) fail, %zu experiment(s) did not finish\n",
                outcome.paper_fails, outcome.errors);
        return CLI_FAILED;
    }
    return failed ? CLI_FAILED : CLI_OK;
}

/* ---- --paper-figures: the committed copy of the report ----------------- */

/* Copy the regular file `from` to `to` (created); 0 or -1 with errno. */
int reproduce_copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in) return -1;
    FILE *out = fopen(to, "wb");
    if (!out) {
        int err = errno;
        fclose(in);
        errno = err;
        return -1;
    }
    char buf[65536];
    size_t got;
    int rc = 0;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, got, out) != got) rc = -1;
    if (ferror(in)) rc = -1;
    int err = errno;
    fclose(in);
    if (fclose(out) != 0) rc = -1;
    errno = err ? err : EIO;
    return rc;
}

/* Copy the files of from/sub whose names end in `suffix` (no hidden ones)
 * into to/sub. */
static int copy_matching(const char *from, const char *to, const char *sub, const char *suffix)
{
    char src[4400], dst[4400];
    snprintf(src, sizeof src, "%s/%s", from, sub);
    snprintf(dst, sizeof dst, "%s/%s", to, sub);
    if (mkdir(dst, 0777) != 0) return -1;
    DIR *dir = opendir(src);
    if (!dir) return -1;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(dir));) {
        if (e->d_name[0] == '.' || !cli_ends_with(e->d_name, suffix)) continue;
        char a[4700], b[4700];
        snprintf(a, sizeof a, "%s/%s", src, e->d_name);
        snprintf(b, sizeof b, "%s/%s", dst, e->d_name);
        rc = reproduce_copy_file(a, b);
    }
    closedir(dir);
    return rc;
}

/* Remove `path` and, for a directory, what it holds (symbolic links are
 * removed, not followed). */
void reproduce_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        for (struct dirent *e; dir && (e = readdir(dir));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char child[4700];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            reproduce_remove_tree(child);
        }
        if (dir) closedir(dir);
    }
    remove(path);
}

void reproduce_hold_signals(sigset_t *saved)
{
    sigset_t hold;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigprocmask(SIG_BLOCK, &hold, saved);
}

/* What the repository tracks of a run: REPORT.md, verdicts.json, claims/,
 * notes/ and the PNG figures (data, SVG/PDF/EPS and the completion markers
 * are regenerated by every run). Written beside the committed copy, then
 * swapped in by two renames with signals held, so an interrupted run never
 * leaves the committed report half old, half new. */
static int publish_report(const char *out_dir)
{
    char target[4200], staging[4300], old[4300];
    snprintf(target, sizeof target, "%s/paper_figures", cli_source_tree());
    snprintf(staging, sizeof staging, "%s.tmp.%ld", target, (long)getpid());
    snprintf(old, sizeof old, "%s.old.%ld", target, (long)getpid());
    sigset_t saved;
    reproduce_hold_signals(&saved);
    char a[4400], b[4400];
    int rc = mkdir(staging, 0777);
    for (size_t i = 0; rc == 0 && i < 2; i++) {
        const char *file = i ? "verdicts.json" : "REPORT.md";
        snprintf(a, sizeof a, "%s/%s", out_dir, file);
        snprintf(b, sizeof b, "%s/%s", staging, file);
        rc = reproduce_copy_file(a, b);
    }
    if (rc == 0) rc = copy_matching(out_dir, staging, "claims", ".tsv");
    if (rc == 0) rc = copy_matching(out_dir, staging, "notes", ".md");
    if (rc == 0) rc = copy_matching(out_dir, staging, "figures", ".png");
    int err = errno;
    if (rc == 0 && rename(target, old) != 0 && errno != ENOENT) rc = -1, err = errno;
    if (rc == 0 && rename(staging, target) != 0) {
        err = errno;
        rename(old, target);
        rc = -1;
    }
    reproduce_remove_tree(rc == 0 ? old : staging);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (rc != 0) return cli_failure("--paper-figures: cannot replace %s: %s", target, strerror(err));
    fprintf(stderr, "report published to %s (REPORT.md, verdicts.json, claims/, notes/, figures/*.png)\n",
            target);
    return CLI_OK;
}

/* The end of a run that is not a shard: the report (a run of some
 * experiments, --only, names the others missing), then with
 * --paper-figures the committed copy, only from a report in which every
 * experiment finished (in this run or, with --only, in an earlier full
 * run into the same directory). */
static int finish_unsharded(const char *abs_out, const reproduce_options *o, size_t failed,
                            const char *missing)
{
    if (!missing) return cli_failure("out of memory");
    int rc = finish_report(abs_out, o, failed, missing);
    if (rc != CLI_OK || !o->paper_figures) return rc;
    if (*missing)
        return cli_failure("--paper-figures: the report in %s lacks %s; the committed report is "
                           "unchanged", abs_out, missing);
    return publish_report(abs_out);
}

/* --slurm (the experiments --only selects, in units) or --slurm-task */
static int run_on_slurm(const reproduce_options *o, const char *out_dir, const char *exp_dir,
                        char **names, size_t count)
{
    if (o->slurm_task) return slurm_task(o, out_dir, exp_dir, names, count);
    char *run[MAX_ITEMS];
    size_t n_run = 0;
    int status = o->resume_missing ? CLI_OK : reproduce_set_env(out_dir, o->quick);
    if (status == CLI_OK && !o->resume_missing)
        status = plan_items(o, exp_dir, names, count, 1, run, &n_run);
    if (status == CLI_OK) status = slurm_submit(o, out_dir, run, n_run);
    free_names(run, n_run);
    return status;
}

int cmd_reproduce(int argc, char **argv)
{
    reproduce_options o;
    int status = parse_options(argc, argv, &o);
    if (status != CLI_OK) return status == CLI_HELP ? CLI_OK : status;

    char out_dir[4096], exp_dir[4096], abs_out[4096];
    output_dir(&o, out_dir, sizeof out_dir);
    snprintf(exp_dir, sizeof exp_dir, "%s/experiments", cli_datadir());

    char *names[MAX_EXPERIMENTS];
    size_t count = 0;
    if (list_experiments(exp_dir, names, &count) != CLI_OK) return CLI_USAGE;
    if (o.list) {
        for (size_t i = 0; i < count; i++)
            printf("%s\n", names[i]);
        free_names(names, count);
        return CLI_OK;
    }
    /* --merge only reads what the shards wrote: it creates nothing but the
     * report, and none while an experiment is missing (unless allowed) */
    if (o.merge) {
        status = reproduce_lock_output_dir(out_dir, 0, 1, 1);
        if (status == CLI_OK) status = merge_report(out_dir, exp_dir, &o, names, count);
        free_names(names, count);
        return status;
    }
    size_t wanted = 0; /* by --only, over all shards */
    for (size_t i = 0; i < count; i++) {
        char name[256];
        reproduce_stem(names[i], name, sizeof name);
        wanted += (size_t)selected_by_only(o.only, name);
    }
    /* a shard may be left with nothing when --only picks few: it still
     * records its (empty) plan for --merge */
    if (wanted == 0) {
        free_names(names, count);
        return cli_usage_error("--only/--shard: no experiment selected (see --list)");
    }
    if (o.slurm || o.slurm_task) {
        status = run_on_slurm(&o, out_dir, exp_dir, names, count);
        free_names(names, count);
        return status;
    }
    status = reproduce_lock_output_dir(out_dir, 1, o.shard_index, o.shard_count);
    /* --paper-figures --only reruns some experiments of a full run: the
     * rest must not be a --quick run's */
    if (status == CLI_OK && o.paper_figures && o.only && run_was_quick(out_dir, 0))
        status = cli_usage_error("--paper-figures: %s holds a --quick run; run every experiment at "
                                 "full size first", out_dir);
    if (status == CLI_OK) status = reproduce_prepare_output(out_dir, o.quick, abs_out, sizeof abs_out);
    /* a shard runs units: the merge combines them */
    char *items[MAX_ITEMS];
    size_t n_items = 0, failed = 0;
    if (status == CLI_OK)
        status = plan_items(&o, exp_dir, names, count, o.shard_count > 1, items, &n_items);
    if (status != CLI_OK) {
        free_names(names, count);
        return status;
    }
    clear_plans(abs_out, o.shard_count);
    write_plan(abs_out, &o, items, n_items);
    double t_all = skit_clock_seconds();
    for (size_t i = 0; i < n_items; i++)
        failed += (size_t)reproduce_run_item(exp_dir, items[i], abs_out, i + 1, n_items, 0);
    free_names(items, n_items);
    char *missing = o.shard_count == 1 ? missing_experiments(abs_out, names, count) : NULL;
    free_names(names, count);
    fprintf(stderr, "%zu %s in %.1f s, %zu failed\n", n_items,
            o.shard_count > 1 ? "experiments and units" : "experiments", skit_clock_seconds() - t_all,
            failed);
    if (o.shard_count == 1) {
        int rc = finish_unsharded(abs_out, &o, failed, missing);
        free(missing);
        return rc;
    }
    fprintf(stderr, "shard %zu/%zu done; run 'skit reproduce --out %s --merge' after all shards\n",
            o.shard_index, o.shard_count, out_dir);
    return failed ? CLI_FAILED : CLI_OK;
}
