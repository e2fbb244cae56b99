/* reproduce_slurm.c — `skit reproduce --slurm`: a run as one Slurm job array,
 * one task per experiment or, for an experiment split into units, per unit
 * (tools/reproduce_units.c), and a merge job that runs after every task
 * (--dependency=afterany), combines the units and writes the report.
 *
 * DIR (--out, on a filesystem the nodes share):
 *   slurm/run            the run's items (experiments, units), one per line
 *                        (slurm/quick: --quick)
 *   slurm/tasks-K        submission K's items: line I is array task I
 *   slurm/jobs           "ARRAY MERGE": the job IDs of the latest submission
 *   slurm/logs/          what Slurm captured of the tasks and merge jobs
 *   shards/NAME/         item NAME's output tree (NAME.failed/: its script failed)
 *   shards/.NAME.partial.JOB/  a task at work, or one the scheduler killed
 * A task writes only its partial directory and renames it to shards/NAME at
 * its end, so a killed task leaves no shard that looks finished. The merge
 * copies every shard into DIR (data/, figures/, claims/, notes/, logs/,
 * done/), runs the combine step of every experiment split into units and
 * writes REPORT.md as a run on one machine would. */
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
#include <unistd.h>

#include "cli/cli.h"
#include "reproduce_slurm.h"

#define PATH_SIZE 4400

/* ---- small helpers --------------------------------------------------------- */

/* The lines of `path` (at most max, newlines stripped); -1 if unreadable. */
static int read_lines(const char *path, char **lines, size_t max, size_t *count)
{
    FILE *f = fopen(path, "r");
    *count = 0;
    if (!f) return -1;
    char line[512];
    while (*count < max && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (*line) lines[(*count)++] = strdup(line);
    }
    fclose(f);
    return 0;
}

static void free_lines(char **lines, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(lines[i]);
}

/* Writes lines[0..count) to `path` through a temporary and a rename. */
static int write_lines(const char *path, char *const *lines, size_t count)
{
    char tmp[PATH_SIZE + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return cli_failure("cannot write %s: %s", tmp, strerror(errno));
    for (size_t i = 0; i < count; i++)
        fprintf(f, "%s\n", lines[i]);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        fprintf(stderr, "skit reproduce: cannot write %s: %s\n", path, strerror(err));
        return CLI_IO;
    }
    return CLI_OK;
}

static int make_dirs(const char *base, const char *const *subdirs, size_t n)
{
    char path[PATH_SIZE];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s%s", base, subdirs[i]);
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return cli_usage_error("--out: cannot create directory %s: %s", path, strerror(errno));
    }
    return CLI_OK;
}

int reproduce_capture(char *const argv[], int quiet, char *out, size_t size)
{
    int fds[2];
    if (pipe(fds) != 0) return 127;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 127;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        int null = quiet ? open("/dev/null", O_WRONLY) : -1;
        if (null >= 0) dup2(null, STDERR_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], out + got, size - 1 - got)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0) got += (size_t)n;
    out[got] = '\0';
    close(fds[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128;
}

/* ---- the lock a Slurm run holds: its jobs, while the scheduler lists them - */

/* Appends `id` to the comma-separated list unless it is the caller's own
 * job or array (the merge job checks DIR too). */
static void add_foreign_job(char *list, size_t size, const char *id)
{
    const char *own[] = {getenv("SLURM_JOB_ID"), getenv("SLURM_ARRAY_JOB_ID")};
    for (size_t i = 0; i < 2; i++)
        if (own[i] && !strcmp(own[i], id)) return;
    size_t len = strlen(list);
    snprintf(list + len, size - len, "%s%s", len ? "," : "", id);
}

/* A squeue that cannot be run or does not know the jobs (they ended long
 * ago, or this machine is no cluster's) counts as none pending. */
int slurm_jobs_active(const char *out_dir, char *ids, size_t size)
{
    char path[PATH_SIZE], array[32] = "", merge[32] = "", list[80] = "";
    snprintf(path, sizeof path, "%s/slurm/jobs", out_dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int got = fscanf(f, "%31s %31s", array, merge);
    fclose(f);
    if (got >= 1 && strcmp(array, "-")) add_foreign_job(list, sizeof list, array);
    if (got == 2) add_foreign_job(list, sizeof list, merge);
    if (!*list) return 0;
    char *argv[] = {"squeue", "-h", "-o", "%i", "-t", "PENDING,RUNNING,SUSPENDED,CONFIGURING",
                    "-j", list, NULL};
    char out[4096];
    if (reproduce_capture(argv, 1, out, sizeof out) != 0 || !*out) return 0;
    for (char *c = out; *c; c++)
        if (*c == '\n') *c = c[1] ? ' ' : '\0';
    snprintf(ids, size, "%s", out);
    return 1;
}

/* ---- shards: what a task leaves ------------------------------------------ */

enum shard_state { SHARD_MISSING, SHARD_DONE, SHARD_FAILED };

static enum shard_state shard_state(const char *out_dir, const char *name)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/shards/%s", out_dir, name);
    if (access(path, F_OK) == 0) return SHARD_DONE;
    snprintf(path, sizeof path, "%s/shards/%s.failed", out_dir, name);
    return access(path, F_OK) == 0 ? SHARD_FAILED : SHARD_MISSING;
}

/* Removes shards/.NAME.partial.* that killed tasks left. */
static void remove_partials(const char *shards, const char *name)
{
    char prefix[300], path[PATH_SIZE + 300];
    snprintf(prefix, sizeof prefix, ".%s.partial.", name);
    DIR *d = opendir(shards);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
        snprintf(path, sizeof path, "%s/%s", shards, e->d_name);
        reproduce_remove_tree(path);
    }
    if (d) closedir(d);
}

/* Renames the task's partial tree to shards/NAME (or NAME.failed), the
 * older one removed first, with signals held: a scancel now waits for the
 * shard to be whole. */
static int commit_shard(const char *shards, const char *name, const char *partial, int failed)
{
    char done[PATH_SIZE + 300], failed_dir[PATH_SIZE + 300];
    snprintf(done, sizeof done, "%s/%s", shards, name);
    snprintf(failed_dir, sizeof failed_dir, "%s/%s.failed", shards, name);
    sigset_t saved;
    reproduce_hold_signals(&saved);
    reproduce_remove_tree(done);
    reproduce_remove_tree(failed_dir);
    int rc = rename(partial, failed ? failed_dir : done);
    int err = errno;
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (rc != 0) {
        fprintf(stderr, "skit reproduce: cannot rename %s: %s\n", partial, strerror(err));
        return CLI_IO;
    }
    return failed ? CLI_FAILED : CLI_OK;
}

/* The item on line $SLURM_ARRAY_TASK_ID of the task file. */
static int task_item(const char *task_file, char *name, size_t size)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    size_t index;
    if (!id || cli_parse_size("SLURM_ARRAY_TASK_ID", id, 1, MAX_ITEMS, &index) != CLI_OK)
        return cli_usage_error("--slurm-task: SLURM_ARRAY_TASK_ID is not set (the array tasks of "
                               "--slurm run this)");
    char *lines[MAX_ITEMS];
    size_t count;
    if (read_lines(task_file, lines, MAX_ITEMS, &count) != 0)
        return cli_usage_error("--slurm-task: cannot read %s: %s", task_file, strerror(errno));
    int status = index <= count ? CLI_OK
                                : cli_usage_error("--slurm-task: %s has %zu lines, task %zu",
                                                  task_file, count, index);
    if (status == CLI_OK) snprintf(name, size, "%s", lines[index - 1]);
    free_lines(lines, count);
    return status;
}

int slurm_task(const reproduce_options *o, const char *out_dir, const char *exp_dir,
               char *const *names, size_t count)
{
    char name[256], file[300] = "";
    int status = task_item(o->slurm_task, name, sizeof name);
    if (status != CLI_OK) return status;
    char exp[256];
    units_experiment(name, exp, sizeof exp);
    for (size_t i = 0; i < count; i++) {
        char stem[256];
        reproduce_stem(names[i], stem, sizeof stem);
        if (!strcmp(stem, exp)) snprintf(file, sizeof file, "%s", names[i]);
    }
    if (!*file) return cli_usage_error("--slurm-task: no experiment %s (see --list)", exp);
    char shards[PATH_SIZE], partial[PATH_SIZE + 300], lock[300], abs[4096];
    snprintf(shards, sizeof shards, "%s/shards", out_dir);
    snprintf(lock, sizeof lock, ".%s.lock", name);
    const char *job = getenv("SLURM_JOB_ID");
    snprintf(partial, sizeof partial, "%s/.%s.partial.%s", shards, name, job ? job : "local");
    status = make_dirs(shards, (const char *const[]){""}, 1);
    if (status == CLI_OK) status = reproduce_lock_file(shards, lock, LOCK_EX);
    if (status != CLI_OK) return status;
    remove_partials(shards, name);
    status = reproduce_prepare_output(partial, o->quick, abs, sizeof abs);
    if (status != CLI_OK) return status;
    int failed = reproduce_run_item(exp_dir, name, abs, 1, 1, 0);
    return commit_shard(shards, name, partial, failed);
}

/* ---- the merge: shards into DIR ------------------------------------------- */

/* Copies the tree `from` into `to` (merged with what `to` holds). */
static int copy_tree(const char *from, const char *to)
{
    if (mkdir(to, 0777) != 0 && errno != EEXIST) return -1;
    DIR *d = opendir(from);
    if (!d) return errno == ENOENT ? 0 : -1;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char a[PATH_SIZE + 300], b[PATH_SIZE + 300];
        snprintf(a, sizeof a, "%s/%s", from, e->d_name);
        snprintf(b, sizeof b, "%s/%s", to, e->d_name);
        struct stat st;
        if (lstat(a, &st) != 0) rc = -1;
        else if (S_ISDIR(st.st_mode)) rc = copy_tree(a, b);
        else if (S_ISREG(st.st_mode)) rc = reproduce_copy_file(a, b);
    }
    closedir(d);
    return rc;
}

static const char *const output_subdirs[] = {"data", "figures", "claims", "notes", "logs", "done"};
#define OUTPUT_SUBDIRS (sizeof output_subdirs / sizeof *output_subdirs)

/* Copies shards/NAME (or NAME.failed) into DIR. */
static int copy_shard(const char *out_dir, const char *name, enum shard_state state)
{
    for (size_t i = 0; i < OUTPUT_SUBDIRS; i++) {
        char from[PATH_SIZE + 300], to[PATH_SIZE];
        snprintf(from, sizeof from, "%s/shards/%s%s/%s", out_dir, name,
                 state == SHARD_FAILED ? ".failed" : "", output_subdirs[i]);
        snprintf(to, sizeof to, "%s/%s", out_dir, output_subdirs[i]);
        if (copy_tree(from, to) != 0) {
            fprintf(stderr, "skit reproduce: --merge: cannot copy %s into %s: %s\n", from, to,
                    strerror(errno));
            return CLI_IO;
        }
    }
    return CLI_OK;
}

/* Appends `name` to a comma-separated list of fixed size. */
static void list_add(char *list, size_t size, const char *name)
{
    size_t len = strlen(list);
    snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

/* Refuses a run with missing or failed shards, naming them. */
static int check_shards(const char *out_dir, char *const *run, size_t count, int allow_partial)
{
    char missing[8192] = "", failed[8192] = "";
    for (size_t i = 0; i < count; i++) {
        enum shard_state state = shard_state(out_dir, run[i]);
        if (state == SHARD_MISSING) list_add(missing, sizeof missing, run[i]);
        if (state == SHARD_FAILED) list_add(failed, sizeof failed, run[i]);
    }
    if (allow_partial || (!*missing && !*failed)) return CLI_OK;
    return cli_failure("--merge: %s: shards missing (killed, or not run yet): %s; failed (logs in "
                       "shards/NAME.failed/logs/): %s; resubmit them with 'skit reproduce --slurm "
                       "--resume-missing --out %s', or pass --allow-partial for a report that says so",
                       out_dir, *missing ? missing : "none", *failed ? failed : "none", out_dir);
}

int slurm_gather(const char *out_dir, int allow_partial)
{
    char path[PATH_SIZE], *run[MAX_ITEMS];
    size_t count;
    snprintf(path, sizeof path, "%s/slurm/run", out_dir);
    if (read_lines(path, run, MAX_ITEMS, &count) != 0) return CLI_OK; /* no Slurm run */
    int status = check_shards(out_dir, run, count, allow_partial);
    /* claims, notes and markers come from this run's shards only */
    static const char *const regenerated[] = {"claims", "notes", "done"};
    for (size_t i = 0; status == CLI_OK && i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", out_dir, regenerated[i]);
        reproduce_remove_tree(path);
    }
    if (status == CLI_OK)
        status = make_dirs(out_dir, (const char *const[]){"/claims", "/notes", "/done"}, 3);
    for (size_t i = 0; status == CLI_OK && i < count; i++) {
        enum shard_state state = shard_state(out_dir, run[i]);
        if (state != SHARD_MISSING) status = copy_shard(out_dir, run[i], state);
    }
    /* the plan --merge checks: every experiment of the run */
    snprintf(path, sizeof path, "%s/done/.plan-1-of-1", out_dir);
    if (status == CLI_OK) status = write_lines(path, run, count);
    free_lines(run, count);
    return status;
}

/* ---- --slurm: submission -------------------------------------------------- */

/* Appends ' word' quoted for the shell of --wrap. */
static int append_word(char *cmd, size_t size, const char *word, int quote)
{
    if (quote && strchr(word, '\''))
        return cli_usage_error("--out: a path with a quote (%s) cannot be passed to sbatch", word);
    size_t len = strlen(cmd);
    int n = snprintf(cmd + len, size - len, quote ? " '%s'" : " %s", word);
    if (n < 0 || (size_t)n >= size - len) return cli_usage_error("--out: path too long: %s", word);
    return CLI_OK;
}

/* sbatch with `first` (array or dependency; NULL: none), the user's --slurm-opt and
 * --wrap=command; the job ID (0 on failure, reported). */
static unsigned long sbatch(const reproduce_options *o, const char *out_dir, const char *first,
                            const char *log, const char *command)
{
    char output[PATH_SIZE + 64], wrap[16384];
    snprintf(output, sizeof output, "--output=%s/slurm/logs/%s", out_dir, log);
    snprintf(wrap, sizeof wrap, "--wrap=%s", command);
    char *argv[MAX_SLURM_OPTS + 8];
    size_t n = 0;
    argv[n++] = "sbatch";
    argv[n++] = "--parsable";
    argv[n++] = "--job-name=skit-reproduce";
    argv[n++] = output;
    if (first) argv[n++] = (char *)first;
    for (size_t i = 0; i < o->slurm_opt_count; i++)
        argv[n++] = (char *)o->slurm_opts[i];
    argv[n++] = wrap;
    argv[n] = NULL;
    char out[256];
    int rc = reproduce_capture(argv, 0, out, sizeof out);
    unsigned long id = rc == 0 ? strtoul(out, NULL, 10) : 0;
    if (!id)
        cli_failure(rc == 127 ? "--slurm: cannot run sbatch (is Slurm installed and on PATH?)"
                              : "--slurm: sbatch failed (exit %d; its message is above)",
                    rc);
    return id;
}

/* The command of an array task or of the merge job. */
static int job_command(const reproduce_options *o, const char *out_dir, const char *task_file,
                       char *cmd, size_t size)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return cli_failure("cannot locate the skit binary");
    self[len] = '\0';
    snprintf(cmd, size, "exec");
    int status = append_word(cmd, size, self, 1);
    if (status == CLI_OK) status = append_word(cmd, size, "reproduce --out", 0);
    if (status == CLI_OK) status = append_word(cmd, size, out_dir, 1);
    if (status == CLI_OK && task_file) status = append_word(cmd, size, "--slurm-task", 0);
    if (status == CLI_OK && task_file) status = append_word(cmd, size, task_file, 1);
    if (status == CLI_OK && task_file && o->quick) status = append_word(cmd, size, "--quick", 0);
    if (status == CLI_OK && !task_file) status = append_word(cmd, size, "--merge", 0);
    if (status == CLI_OK && !task_file && o->allow_partial)
        status = append_word(cmd, size, "--allow-partial", 0);
    if (status == CLI_OK && !task_file && o->strict) status = append_word(cmd, size, "--strict", 0);
    return status;
}

/* A fresh run: the old Slurm record and shards go; the run's list stays. */
static int start_run(const reproduce_options *o, const char *out_dir, char *const *run, size_t count)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/slurm", out_dir);
    reproduce_remove_tree(path);
    snprintf(path, sizeof path, "%s/shards", out_dir);
    reproduce_remove_tree(path);
    int status = make_dirs(out_dir, (const char *const[]){"/slurm", "/slurm/logs", "/shards"}, 3);
    snprintf(path, sizeof path, "%s/slurm/run", out_dir);
    if (status == CLI_OK) status = write_lines(path, run, count);
    snprintf(path, sizeof path, "%s/slurm/quick", out_dir);
    if (status == CLI_OK && o->quick) status = write_lines(path, NULL, 0);
    return status;
}

/* --resume-missing: the recorded run's experiments without a finished shard. */
static int resume_run(const char *out_dir, char **todo, size_t *count, int *quick)
{
    char path[PATH_SIZE], *run[MAX_ITEMS];
    size_t n;
    snprintf(path, sizeof path, "%s/slurm/run", out_dir);
    if (read_lines(path, run, MAX_ITEMS, &n) != 0)
        return cli_usage_error("--resume-missing: %s holds no Slurm run (no slurm/run)", out_dir);
    *count = 0;
    for (size_t i = 0; i < n; i++)
        if (shard_state(out_dir, run[i]) != SHARD_DONE) todo[(*count)++] = strdup(run[i]);
    free_lines(run, n);
    snprintf(path, sizeof path, "%s/slurm/quick", out_dir);
    *quick = access(path, F_OK) == 0;
    return CLI_OK;
}

/* slurm/tasks-K, the first K not yet used: the array's task list */
static int write_task_file(const char *out_dir, char *const *todo, size_t count, char *path,
                           size_t size)
{
    for (int k = 1;; k++) {
        snprintf(path, size, "%s/slurm/tasks-%d", out_dir, k);
        if (access(path, F_OK) != 0) return write_lines(path, todo, count);
    }
}

/* Submits the array over todo[0..count) (none when empty) and the merge. */
static int submit_jobs(const reproduce_options *o, const char *out_dir, char *const *todo,
                       size_t count)
{
    char task_file[PATH_SIZE], cmd[16384], first[64], line[80];
    unsigned long array = 0, merge;
    int status = count ? write_task_file(out_dir, todo, count, task_file, sizeof task_file) : CLI_OK;
    if (status == CLI_OK && count) status = job_command(o, out_dir, task_file, cmd, sizeof cmd);
    if (status == CLI_OK && count) {
        snprintf(first, sizeof first, "--array=1-%zu", count);
        array = sbatch(o, out_dir, first, "%A_%a.out", cmd);
        if (!array) return CLI_FAILED;
        snprintf(first, sizeof first, "--dependency=afterany:%lu", array);
    }
    if (status == CLI_OK) status = job_command(o, out_dir, NULL, cmd, sizeof cmd);
    if (status != CLI_OK) return status;
    merge = sbatch(o, out_dir, array ? first : NULL, "merge-%j.out", cmd);
    if (array) snprintf(line, sizeof line, "%lu %lu", array, merge);
    else snprintf(line, sizeof line, "- %lu", merge);
    char path[PATH_SIZE], *lines[] = {line};
    snprintf(path, sizeof path, "%s/slurm/jobs", out_dir);
    status = write_lines(path, lines, 1); /* written even without a merge job: the array holds DIR */
    if (!merge) return CLI_FAILED;
    if (array)
        fprintf(stderr, "submitted %zu task(s) as Slurm array job %lu and the merge as job %lu",
                count, array, merge);
    else
        fprintf(stderr, "nothing to resubmit; submitted the merge as job %lu", merge);
    fprintf(stderr, "; the report will be %s/REPORT.md (Slurm's logs: %s/slurm/logs/)\n", out_dir,
            out_dir);
    return status;
}

int slurm_submit(const reproduce_options *o, const char *out_dir, char *const *run, size_t count)
{
    char abs[4096], record[PATH_SIZE];
    snprintf(record, sizeof record, "%s/slurm/run", out_dir);
    if (o->resume_missing && access(record, R_OK) != 0)
        return cli_usage_error("--resume-missing: %s holds no Slurm run (no slurm/run)", out_dir);
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
        return cli_usage_error("--out: cannot create directory %s: %s", out_dir, strerror(errno));
    if (!realpath(out_dir, abs)) return cli_usage_error("--out: %s: %s", out_dir, strerror(errno));
    int status = reproduce_lock_output_dir(abs, 1, 1, 1);
    if (status != CLI_OK) return status;
    reproduce_options run_options = *o;
    char *todo[MAX_ITEMS];
    size_t todo_count = 0;
    if (o->resume_missing) {
        status = resume_run(abs, todo, &todo_count, &run_options.quick);
    } else {
        status = start_run(o, abs, run, count);
        for (size_t i = 0; i < count; i++)
            todo[todo_count++] = strdup(run[i]);
    }
    if (status == CLI_OK) status = submit_jobs(&run_options, abs, todo, todo_count);
    free_lines(todo, todo_count);
    return status;
}
