/* cli.c — shared machinery of the `skit` subcommands (see cli.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"

static char context[128] = "skit";

void cli_set_context(const char *ctx) { snprintf(context, sizeof context, "%s", ctx); }
const char *cli_context(void) { return context; }

static void vreport(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", context);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    return CLI_USAGE;
}

int cli_failure(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    return CLI_FAILED;
}

int cli_library_error(int status)
{
    const char *msg = skit_last_error();
    if (!msg[0]) msg = skit_strerror(status);
    switch (status) {
    case SKIT_EBREAKDOWN:
    case SKIT_ENOTPD:
    case SKIT_ENOCONV:
    case SKIT_ELIBRARY:
    case SKIT_ENOMEM:
        return cli_failure("%s", msg);
    default:
        return cli_usage_error("%s", msg);
    }
}

int cli_write_error(int status)
{
    if (status != SKIT_EIO) return cli_library_error(status);
    const char *msg = skit_last_error();
    fprintf(stderr, "%s: %s\n", context, msg[0] ? msg : skit_strerror(status));
    return CLI_IO;
}

/* ---- outputs: claims, staging, one commit, signals --------------------- */

enum { MAX_OUTPUTS = 16, MAX_TEMPS = 16, MAX_CHILDREN = 8 };

/* An output that names a device, a FIFO or a socket (/dev/null) is
 * written directly ("direct": never staged, renamed over or removed); a
 * symbolic link is followed, so the commit replaces the file it names
 * ("dest") and keeps the link. */
typedef struct output_slot {
    const char *option;
    int direct;
    char final[PATH_MAX];
    char dest[PATH_MAX];
    char canonical[PATH_MAX];
    char stage[PATH_MAX + 40];
    char stage_tmp[PATH_MAX + 80]; /* the library's temporary name of stage */
} output_slot;

/* Read by the signal handler: slots are filled before the count grows. */
static output_slot outputs[MAX_OUTPUTS];
static volatile sig_atomic_t output_count;
static char temps[MAX_TEMPS][PATH_MAX + 80];
static volatile sig_atomic_t temp_used[MAX_TEMPS];
static volatile pid_t children[MAX_CHILDREN];
/* The temporary directory (cli_temp_dir_register): its path, the suffix
 * ".tmp.PID" of the library's own temporaries, and the names of the files
 * that may be in it, NUL-separated; names are appended before the count
 * grows, so the handler never reads a half-written one. */
enum { TEMP_DIR_NAMES = 1 << 16 };
static char temp_dir_path[PATH_MAX], temp_dir_suffix[32], temp_dir_names[TEMP_DIR_NAMES];
static volatile sig_atomic_t temp_dir_used, temp_dir_length;
/* Deferred signals (cli_signals_defer): the first one is only recorded. */
static volatile sig_atomic_t signals_deferred, signal_pending;

/* Async-signal-safe: dir + "/" + name + suffix into out, cut to fit. */
static void join_in_handler(char *out, size_t size, const char *dir, const char *name, const char *suffix)
{
    size_t used = 0;
    const char *parts[] = {dir, "/", name, suffix};
    for (size_t p = 0; p < 4; p++)
        for (const char *c = parts[p]; *c && used + 1 < size; c++) out[used++] = *c;
    out[used] = '\0';
}

/* Async-signal-safe: unlink and rmdir only. */
static void remove_temp_dir(void)
{
    if (!temp_dir_used) return;
    static char path[PATH_MAX + 128];
    for (sig_atomic_t at = 0, end = temp_dir_length; at < end;) {
        const char *name = temp_dir_names + at;
        join_in_handler(path, sizeof path, temp_dir_path, name, "");
        unlink(path);
        join_in_handler(path, sizeof path, temp_dir_path, name, temp_dir_suffix);
        unlink(path);
        at += (sig_atomic_t)strlen(name) + 1;
    }
    rmdir(temp_dir_path);
}

/* Async-signal-safe: unlink, rmdir, kill, sigaction and raise only. */
static void on_fatal_signal(int sig)
{
    int saved = errno;
    if (signals_deferred && !signal_pending) {
        signal_pending = sig; /* the command stops at its next consistent point */
        errno = saved;
        return;
    }
    remove_temp_dir();
    for (size_t i = 0, count = (size_t)output_count; i < count; i++) {
        if (outputs[i].direct) continue;
        unlink(outputs[i].stage_tmp);
        unlink(outputs[i].stage);
    }
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i]) unlink(temps[i]);
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] > 0) kill(-children[i], SIGTERM);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    errno = saved;
    raise(sig); /* delivered when the handler returns: the usual death by sig */
}

static void install_signal_handlers(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESTART; /* a deferred signal must not fail the writes it interrupts */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) sigaddset(&sa.sa_mask, signals[i]);
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) {
        struct sigaction old;
        /* a signal ignored by the parent (nohup, background job) stays ignored */
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(signals[i], &sa, NULL);
    }
}

int cli_temp_register(const char *path)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temp_used[i]) {
            snprintf(temps[i], sizeof temps[i], "%s", path);
            temp_used[i] = 1;
            return i;
        }
    return -1;
}

void cli_temp_release(int slot)
{
    if (slot >= 0 && slot < MAX_TEMPS) temp_used[slot] = 0;
}

int cli_temp_dir_register(const char *dir)
{
    if (temp_dir_used || strlen(dir) >= sizeof temp_dir_path) return -1;
    snprintf(temp_dir_path, sizeof temp_dir_path, "%s", dir);
    snprintf(temp_dir_suffix, sizeof temp_dir_suffix, ".tmp.%ld", (long)getpid());
    temp_dir_length = 0;
    temp_dir_used = 1;
    return 0;
}

int cli_temp_dir_add(const char *name)
{
    size_t len = strlen(name) + 1, at = (size_t)temp_dir_length;
    if (!temp_dir_used || at + len > sizeof temp_dir_names) return -1;
    memcpy(temp_dir_names + at, name, len);
    temp_dir_length = (sig_atomic_t)(at + len);
    return 0;
}

void cli_temp_dir_release(void) { temp_dir_used = 0; }

void cli_signals_defer(int on)
{
    signals_deferred = on;
    if (!on && signal_pending) cli_signal_finish();
}

int cli_signal_pending(void) { return signal_pending; }

void cli_signal_finish(void)
{
    int sig = signal_pending;
    if (!sig) return;
    signals_deferred = 0;
    on_fatal_signal(sig);
}

const char *cli_temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir && strlen(dir) < 128 ? dir : "/tmp";
}

void cli_child_register(long pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] <= 0) {
            children[i] = (pid_t)pid;
            return;
        }
}

void cli_child_release(long pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == (pid_t)pid) children[i] = 0;
}

/* `path` with '.', '..' and symbolic links resolved, also when the file
 * does not exist yet (then its directory is resolved). */
static void canonical_path(const char *path, char *out, int depth)
{
    if (realpath(path, out)) return;
    char target[PATH_MAX];
    ssize_t len = depth < 16 ? readlink(path, target, sizeof target - 1) : -1;
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (len > 0) { /* a dangling link: where it points, relative to its directory */
        target[len] = '\0';
        char next[2 * PATH_MAX + 2];
        if (target[0] == '/') snprintf(next, sizeof next, "%s", target);
        else snprintf(next, sizeof next, "%s/%s", dir, target);
        canonical_path(next, out, depth + 1);
        return;
    }
    char resolved[PATH_MAX];
    if (!realpath(dir, resolved)) snprintf(resolved, sizeof resolved, "%s", dir);
    /* a name too long for PATH_MAX is compared cut short: at worst two such
     * outputs are called the same, never two same ones different */
    size_t used = strcmp(resolved, "/") ? strlen(resolved) : 0;
    if (used > PATH_MAX - 2) used = PATH_MAX - 2;
    memcpy(out, resolved, used);
    out[used++] = '/';
    const char *base = slash ? slash + 1 : path;
    size_t room = PATH_MAX - used - 1, base_len = strlen(base);
    if (base_len > room) base_len = room;
    memcpy(out + used, base, base_len);
    out[used + base_len] = '\0';
}

/* Copies text into dst of `size` bytes, cut short if need be. */
static void copy_text(char *dst, size_t size, const char *text)
{
    size_t len = strlen(text);
    if (len >= size) len = size - 1;
    memmove(dst, text, len);
    dst[len] = '\0';
}

int cli_written_through(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int cli_claim_output(const char *option, const char *path)
{
    if (!path || !*path || !strcmp(path, "-")) return CLI_OK;
    char canonical[PATH_MAX];
    canonical_path(path, canonical, 0);
    for (size_t i = 0, count = (size_t)output_count; i < count; i++) {
        if (strcmp(outputs[i].canonical, canonical) != 0) continue;
        if (!strcmp(outputs[i].option, option)) return CLI_OK; /* validated twice */
        return cli_usage_error("%s and %s name the same file '%s': give each output its own path",
                               outputs[i].option, option, path);
    }
    if (output_count == MAX_OUTPUTS) return cli_usage_error("%s: too many output files", option);
    output_slot *slot = &outputs[output_count];
    slot->option = option;
    copy_text(slot->final, sizeof slot->final, path);
    copy_text(slot->canonical, sizeof slot->canonical, canonical);
    slot->direct = cli_written_through(path);
    if (slot->direct) {
        copy_text(slot->dest, sizeof slot->dest, path);
        copy_text(slot->stage, sizeof slot->stage, path);
        slot->stage_tmp[0] = '\0';
    } else {
        /* a link's target, resolved also when it does not exist yet */
        struct stat st;
        const char *dest = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? canonical : path;
        copy_text(slot->dest, sizeof slot->dest, dest);
        long pid = (long)getpid();
        snprintf(slot->stage, sizeof slot->stage, "%s.tmp.%ld.part", dest, pid);
        snprintf(slot->stage_tmp, sizeof slot->stage_tmp, "%s.tmp.%ld.part.tmp.%ld", dest, pid, pid);
    }
    output_count++;
    return CLI_OK;
}

const char *cli_output_stage(const char *path)
{
    for (size_t i = 0, count = (size_t)output_count; path && i < count; i++)
        if (!strcmp(outputs[i].final, path)) return outputs[i].stage;
    return path;
}

/* Remove every staging file (and the renamed finals before `renamed`). */
static void discard_outputs(sig_atomic_t renamed)
{
    for (size_t i = 0, count = (size_t)output_count; i < count; i++) {
        if (outputs[i].direct) continue;
        if ((sig_atomic_t)i < renamed) unlink(outputs[i].dest);
        unlink(outputs[i].stage_tmp);
        unlink(outputs[i].stage);
    }
}

/* Rename every staging file into place; on a failure remove what was
 * renamed, so that no output of a failed command remains. */
static int commit_outputs(void)
{
    for (size_t i = 0, count = (size_t)output_count; i < count; i++) {
        if (outputs[i].direct || access(outputs[i].stage, F_OK) != 0) continue; /* written through, or not written (optional) */
        if (rename(outputs[i].stage, outputs[i].dest) != 0) {
            int err = errno;
            discard_outputs((sig_atomic_t)i);
            fprintf(stderr, "%s: cannot rename into %s: %s (no output was kept)\n", context,
                    outputs[i].final, strerror(err));
            return CLI_IO;
        }
    }
    return CLI_OK;
}

static void reset_outputs(void)
{
    discard_outputs(0);
    output_count = 0;
    for (int i = 0; i < MAX_TEMPS; i++) temp_used[i] = 0;
    for (int i = 0; i < MAX_CHILDREN; i++) children[i] = 0;
    temp_dir_used = 0;
    signals_deferred = 0;
    signal_pending = 0;
}

int cli_run_command(const cli_command *command, int argc, char **argv)
{
    static int installed;
    if (!installed) {
        install_signal_handlers();
        installed = 1;
    }
    reset_outputs();
    int status = command->run(argc, argv);
    if (status == CLI_OK) status = commit_outputs();
    else discard_outputs(0);
    output_count = 0;
    return status;
}

/* ---- parsing ---------------------------------------------------------- */

/* Parses an unsigned integer or "2^k"; the whole text must be consumed. */
static int parse_unsigned(const char *text, unsigned long long *out)
{
    if (!text || !*text || *text == '-' || *text == '+' || *text == ' ') return -1;
    const char *caret = strchr(text, '^');
    errno = 0;
    char *end;
    if (caret) {
        unsigned long long base = strtoull(text, &end, 10);
        if (end != caret || errno) return -1;
        if (!caret[1] || caret[1] == '-' || caret[1] == '+') return -1;
        unsigned long long exponent = strtoull(caret + 1, &end, 10);
        if (*end || errno) return -1;
        /* base 0 or 1 never overflows: without the base > 1 guard 1^(10^17)
         * looped 10^17 times */
        unsigned long long v = base == 0 && exponent > 0 ? 0 : 1;
        for (unsigned long long i = 0; i < exponent && base > 1; i++) {
            if (__builtin_mul_overflow(v, base, &v)) return -1;
        }
        *out = v;
        return 0;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

int cli_parse_size(const char *option, const char *text, size_t min, size_t max, size_t *out)
{
    unsigned long long v;
    if (parse_unsigned(text, &v) != 0 || v < min || v > max)
        return cli_usage_error("%s: expected an integer in [%zu, %zu], got '%s'", option, min,
                               max, text ? text : "");
    *out = (size_t)v;
    return CLI_OK;
}

int cli_check_seed_range(uint64_t seed, size_t count)
{
    if (count > 1 && seed > UINT64_MAX - (count - 1))
        return cli_usage_error("--seed %llu with %zu replicates wraps past 2^64-1: need --seed <= %llu",
                               (unsigned long long)seed, count,
                               (unsigned long long)(UINT64_MAX - (count - 1)));
    return CLI_OK;
}

int cli_check_quadratic_work(const char *what, size_t n, size_t per_entry)
{
    const double limit = 1099511627776.0; /* 2^40 */
    double work = (double)n * (double)n * (double)(per_entry ? per_entry : 1);
    if (work <= limit) return CLI_OK;
    size_t n_max = (size_t)floor(sqrt(limit / (double)(per_entry ? per_entry : 1)));
    return cli_usage_error("--n = %zu too large for %s: O(n^2) work of %.3g operations, above the "
                           "limit 2^40 (about an hour on one core): need n <= %zu here",
                           n, what, work, n_max);
}

int cli_parse_u64(const char *option, const char *text, uint64_t *out)
{
    unsigned long long v;
    if (parse_unsigned(text, &v) != 0)
        return cli_usage_error("%s: expected an integer in [0, %llu], got '%s'", option,
                               (unsigned long long)UINT64_MAX, text ? text : "");
    *out = (uint64_t)v;
    return CLI_OK;
}

static int in_range(double v, double lo, double hi, int lo_open, int hi_open)
{
    if (!isfinite(v)) return 0;
    if (lo_open ? !(v > lo) : !(v >= lo)) return 0;
    if (hi_open ? !(v < hi) : !(v <= hi)) return 0;
    return 1;
}

int cli_parse_double(const char *option, const char *text, double lo, double hi, int lo_open,
                     int hi_open, double *out)
{
    char *end;
    errno = 0;
    double v = text && *text ? strtod(text, &end) : NAN;
    if (!text || !*text || *end || errno == ERANGE || !in_range(v, lo, hi, lo_open, hi_open))
        return cli_usage_error("%s: expected a number in %c%g, %g%c, got '%s'", option,
                               lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']',
                               text ? text : "");
    *out = v;
    return CLI_OK;
}

/* A list with an empty item (",,", or a comma first or last) is refused:
 * "8,,16" is a typo, not the list 8,16. */
static int refuse_empty_item(const char *option, const char *text)
{
    size_t len = strlen(text);
    if (text[0] == ',' || (len && text[len - 1] == ',') || strstr(text, ",,"))
        return cli_usage_error("%s: empty item in the list '%s'", option, text);
    return CLI_OK;
}

/* Appends v to a growing array. */
static int push_size(size_t **values, size_t *count, size_t *cap, size_t v)
{
    if (*count == *cap) {
        size_t ncap = *cap ? 2 * *cap : 8;
        size_t *p = realloc(*values, ncap * sizeof *p);
        if (!p) return -1;
        *values = p;
        *cap = ncap;
    }
    (*values)[(*count)++] = v;
    return 0;
}

int cli_parse_size_list(const char *option, const char *text, size_t min, size_t max,
                        size_t **values, size_t *count)
{
    *values = NULL;
    *count = 0;
    if (!text || !*text)
        return cli_usage_error("%s: expected a comma-separated list of integers in [%zu, %zu]",
                               option, min, max);
    if (refuse_empty_item(option, text) != CLI_OK) return CLI_USAGE;
    char *copy = strdup(text);
    if (!copy) return cli_failure("out of memory");
    size_t cap = 0;
    int status = CLI_OK;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *dots = strstr(item, "..");
        unsigned long long a, b;
        if (dots) {
            *dots = '\0';
            if (parse_unsigned(item, &a) || parse_unsigned(dots + 2, &b) || a == 0 || a > b ||
                (a & (a - 1)) || (b & (b - 1)) || a < min || b > max) {
                status = cli_usage_error("%s: range '%s..%s' must be powers of two A..B with "
                                         "%zu <= A <= B <= %zu",
                                         option, item, dots + 2, min, max);
                break;
            }
            for (unsigned long long v = a; v <= b; v *= 2)
                if (push_size(values, count, &cap, (size_t)v)) { status = cli_failure("out of memory"); break; }
        } else {
            if (parse_unsigned(item, &a) || a < min || a > max) {
                status = cli_usage_error("%s: expected integers in [%zu, %zu], got '%s'", option,
                                         min, max, item);
                break;
            }
            if (push_size(values, count, &cap, (size_t)a)) { status = cli_failure("out of memory"); break; }
        }
        if (status != CLI_OK) break;
    }
    free(copy);
    if (status == CLI_OK && *count == 0)
        status = cli_usage_error("%s: empty list", option);
    if (status != CLI_OK) {
        free(*values);
        *values = NULL;
        *count = 0;
    }
    return status;
}

int cli_parse_double_list(const char *option, const char *text, double lo, double hi,
                          double **values, size_t *count)
{
    return cli_parse_double_list_range(option, text, lo, hi, 0, 0, values, count);
}

int cli_parse_double_list_range(const char *option, const char *text, double lo, double hi,
                                int lo_open, int hi_open, double **values, size_t *count)
{
    *values = NULL;
    *count = 0;
    if (!text || !*text) return cli_usage_error("%s: expected a comma-separated list of numbers", option);
    if (refuse_empty_item(option, text) != CLI_OK) return CLI_USAGE;
    size_t n = 1;
    for (const char *p = text; *p; p++) n += (*p == ',');
    double *v = malloc(n * sizeof *v);
    char *copy = strdup(text);
    if (!v || !copy) { free(v); free(copy); return cli_failure("out of memory"); }
    size_t k = 0;
    char *save = NULL;
    int status = CLI_OK;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        status = cli_parse_double(option, item, lo, hi, lo_open, hi_open, &v[k]);
        if (status != CLI_OK) break;
        k++;
    }
    free(copy);
    if (status == CLI_OK && k == 0) status = cli_usage_error("%s: empty list", option);
    if (status != CLI_OK) { free(v); return status; }
    *values = v;
    *count = k;
    return CLI_OK;
}

static void list_choices(char *buf, size_t size, const char *const *choices)
{
    buf[0] = '\0';
    for (size_t i = 0; choices[i]; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", i ? ", " : "", choices[i]);
    }
}

int cli_parse_choice(const char *option, const char *text, const char *const *choices, int *index)
{
    for (int i = 0; text && choices[i]; i++)
        if (strcmp(text, choices[i]) == 0) {
            *index = i;
            return CLI_OK;
        }
    char buf[512];
    list_choices(buf, sizeof buf, choices);
    return cli_usage_error("%s: expected one of {%s}, got '%s'", option, buf, text ? text : "");
}

int cli_parse_choice_list(const char *option, const char *text, const char *const *choices,
                          int *selected)
{
    if (!text || !*text) return cli_parse_choice(option, text, choices, selected);
    if (refuse_empty_item(option, text) != CLI_OK) return CLI_USAGE;
    char *copy = strdup(text);
    if (!copy) return cli_failure("out of memory");
    char *save = NULL;
    int status = CLI_OK, any = 0;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int idx = 0;
        status = cli_parse_choice(option, item, choices, &idx);
        if (status != CLI_OK) break;
        selected[idx] = 1;
        any = 1;
    }
    free(copy);
    if (status == CLI_OK && !any) status = cli_usage_error("%s: empty list", option);
    return status;
}

/* ---- common options --------------------------------------------------- */

void cli_common_init(cli_common *common)
{
    memset(common, 0, sizeof *common);
    common->seed = 1;
    common->plan_seconds = -1;
}

int cli_common_option(cli_common *common, int opt, const char *arg)
{
    size_t v = 0;
    switch (opt) {
    case 'o': common->output = arg; return CLI_OK;
    case 0x1001: common->plot = arg; return CLI_OK;
    case 0x1002: return cli_parse_u64("--seed", arg, &common->seed);
    case 0x1003:
        if (cli_parse_size("--threads", arg, 1, 1024, &v) != CLI_OK) return CLI_USAGE;
        common->threads = (int)v;
        return CLI_OK;
    case 0x1004: common->quiet = 1; return CLI_OK;
    case 0x1005: return cli_parse_planner("--planner", arg, &common->planner);
    case 0x1006: common->wisdom = arg; return CLI_OK;
    case 0x1007: return cli_parse_double("--plan-seconds", arg, 0, 86400, 1, 0, &common->plan_seconds);
    default: return -1;
    }
}

/* ---- the option driver ------------------------------------------------ */

static char option_name[80];

const char *cli_option_name(void) { return option_name; }

/* The long option named by the first `len` characters of `name`: the one
 * spelled exactly so, else the only one it abbreviates (*exact = 0), else
 * NULL (none, or several). */
static const struct option *find_long(const struct option *longopts, const char *name, size_t len, int *exact)
{
    const struct option *prefix = NULL;
    int prefixes = 0;
    *exact = 0;
    for (const struct option *o = longopts; o->name; o++) {
        if (strncmp(o->name, name, len) != 0) continue;
        if (o->name[len] == '\0') {
            *exact = 1;
            return o;
        }
        prefix = o;
        prefixes++;
    }
    return prefixes == 1 ? prefix : NULL;
}

/* getopt_long refused argv's `token` ('?': unknown, or a value given to a
 * flag; ':': its value is missing): say which, in one line. */
static int refused_option(const struct option *longopts, const char *token, int missing)
{
    const char *ctx = cli_context();
    if (strncmp(token, "--", 2) != 0) {
        if (optopt > 0 && optopt < 128) { /* a short option, maybe inside a cluster */
            if (missing) return cli_usage_error("missing value for '-%c' (see '%s --help')", optopt, ctx);
            return cli_usage_error("unknown option '-%c' (see '%s --help')", optopt, ctx);
        }
        return cli_usage_error("unknown option '%s' (see '%s --help')", token, ctx);
    }
    const char *name = token + 2;
    size_t len = strcspn(name, "=");
    int exact;
    const struct option *o = find_long(longopts, name, len, &exact);
    if (o && !exact)
        return cli_usage_error("unknown option '--%.*s' (did you mean --%s?)", (int)len, name, o->name);
    if (o && missing) return cli_usage_error("missing value for '--%s' (see '%s --help')", o->name, ctx);
    if (o && name[len] == '=' && o->has_arg == no_argument)
        return cli_usage_error("option '--%s' takes no value, got '%s' (see '%s --help')", o->name, token, ctx);
    return cli_usage_error("unknown option '--%.*s' (see '%s --help')", (int)len, name, ctx);
}

/* After getopt_long returned the long option longopts[index]: refuse it
 * unless argv spelled its name out in full. */
static int check_spelled_out(const struct option *longopts, int index, char **argv)
{
    /* the option's own word: the last one read, or the one before when its
     * value was the next word */
    const char *token = optarg && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
    const char *name = token + 2;
    size_t len = strcspn(name, "=");
    const char *full = longopts[index].name;
    snprintf(option_name, sizeof option_name, "--%s", full);
    if (strncmp(token, "--", 2) == 0 && strlen(full) == len && strncmp(full, name, len) == 0) return CLI_OK;
    return cli_usage_error("unknown option '--%.*s' (did you mean --%s?)", (int)len, name, full);
}

int cli_parse_options(const cli_options *options, int argc, char **argv)
{
    char shortopts[64];
    /* the leading ':' makes a missing value ':' apart from an unknown '?' */
    snprintf(shortopts, sizeof shortopts, ":%s", options->shortopts ? options->shortopts : CLI_COMMON_SHORTOPTS);
    optind = 0; /* 0, not 1: glibc and musl then also forget a cluster of
                 * short options half read by an earlier parse */
    opterr = 0;
    int opt, longindex;
    while (longindex = -1, (opt = getopt_long(argc, argv, shortopts, options->longopts, &longindex)) != -1) {
        if (opt == '?' || opt == ':') return refused_option(options->longopts, argv[optind - 1], opt == ':');
        if (longindex >= 0 && check_spelled_out(options->longopts, longindex, argv) != CLI_OK) return CLI_USAGE;
        if (longindex < 0) snprintf(option_name, sizeof option_name, "-%c", opt);
        if (opt == 'h') {
            if (options->usage) fputs(options->usage, stdout);
            return CLI_HELP;
        }
        int rc = options->apply ? options->apply(options->ctx, opt, optarg) : -1;
        if (rc == -1 && options->common) rc = cli_common_option(options->common, opt, optarg);
        if (rc == -1) return cli_usage_error("unknown option '%s' (see '%s --help')", option_name, cli_context());
        if (rc != CLI_OK) return CLI_USAGE;
    }
    option_name[0] = '\0';
    if (optind < argc) return cli_usage_error("unexpected argument '%s'", argv[optind]);
    return CLI_OK;
}

void cli_format_exact(double x, char *out, size_t size)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, size, "%.*g", digits, x);
        if (strtod(out, NULL) == x) return;
    }
}

int cli_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The directory part of path must exist and be writable. */
static int check_writable_dir(const char *option, const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_usage_error("%s: directory '%s' does not exist", option, dir);
    if (access(dir, W_OK) != 0)
        return cli_usage_error("%s: directory '%s' is not writable", option, dir);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_usage_error("%s: '%s' is a directory", option, path);
    return CLI_OK;
}

int cli_check_output_path(const char *option, const char *path)
{
    if (!path) return CLI_OK;
    if (!*path) return cli_usage_error("%s: empty file name", option);
    if (check_writable_dir(option, path) != CLI_OK) return CLI_USAGE;
    return cli_claim_output(option, path);
}

/* The gnuplot terminal for a figure file, by extension (NULL: none). PNG
 * at print resolution: SKIT_PNG_SCALE=N (1..8) multiplies its pixels and
 * font; PDF and EPS are vector (cairo) at 6 x 4 inches. */
static const char *plot_terminal(const char *out)
{
    static char png[128];
    if (cli_ends_with(out, ".svg"))
        return "set terminal svg size 900,600 dynamic enhanced font 'sans,12'";
    if (cli_ends_with(out, ".pdf"))
        return "set terminal pdfcairo size 6in,4in enhanced font 'sans,10'";
    if (cli_ends_with(out, ".eps"))
        return "set terminal epscairo size 6in,4in enhanced font 'sans,10'";
    if (!cli_ends_with(out, ".png")) return NULL;
    const char *env = getenv("SKIT_PNG_SCALE");
    int scale = env ? atoi(env) : 1;
    if (scale < 1 || scale > 8) scale = 1;
    snprintf(png, sizeof png, "set terminal pngcairo size %d,%d enhanced font 'sans,%d'",
             900 * scale, 600 * scale, 11 * scale);
    return png;
}


int cli_common_validate(const cli_common *common)
{
    if (common->output && strcmp(common->output, "-") != 0) {
        if (!*common->output) return cli_usage_error("-o: empty file name");
        if (check_writable_dir("-o", common->output) != CLI_OK ||
            cli_claim_output("-o", common->output) != CLI_OK)
            return CLI_USAGE;
    }
    if (common->plot) {
        if (!plot_terminal(common->plot))
            return cli_usage_error(
                "--plot: file name must end in .png, .svg, .pdf or .eps, got '%s'", common->plot);
        if (check_writable_dir("--plot", common->plot) != CLI_OK ||
            cli_claim_output("--plot", common->plot) != CLI_OK)
            return CLI_USAGE;
    }
    if (common->planner_default != SKIT_PLANNER_DEFAULT)
        return cli_planner_setup(common);
    return CLI_OK;
}

/* ---- FFTW planner and wisdom ------------------------------------------ */

static const char *wisdom_out; /* --wisdom FILE, written back at the end */

int cli_parse_planner(const char *option, const char *text, skit_planner *planner)
{
    if (skit_planner_parse(text, planner) == SKIT_OK) return CLI_OK;
    return cli_usage_error("%s: '%s' unknown: need estimate, measure, patient, exhaustive or wisdom-only",
                           option, text);
}

static int import_wisdom(const char *option, const char *path)
{
    if (!*path) return cli_usage_error("%s: empty file name", option);
    if (skit_fft_wisdom_import_file(path) != SKIT_OK) return cli_usage_error("%s: %s", option, skit_last_error());
    return CLI_OK;
}

int cli_planner_setup(const cli_common *common)
{
    const char *wisdom = common->wisdom;
    const char *env = getenv("SKIT_WISDOM");
    if (env && *env && import_wisdom("SKIT_WISDOM", env) != CLI_OK) return CLI_USAGE;
    if (wisdom) {
        /* skit wisdom's -o is this file, already checked and claimed */
        if (wisdom != common->output && cli_check_output_path("--wisdom", wisdom) != CLI_OK) return CLI_USAGE;
        /* a device or FIFO (/dev/null) is only written to, never read */
        if (access(wisdom, F_OK) == 0 && !cli_written_through(wisdom) &&
            import_wisdom("--wisdom", wisdom) != CLI_OK)
            return CLI_USAGE;
        wisdom_out = wisdom;
    }
    skit_fft_set_default_planner(common->planner != SKIT_PLANNER_DEFAULT ? common->planner
                                                                         : common->planner_default);
    skit_fft_set_time_limit(common->plan_seconds);
    return CLI_OK;
}

int cli_planner_finish(void)
{
    if (!wisdom_out) return CLI_OK;
    const char *path = wisdom_out;
    wisdom_out = NULL;
    int status = skit_fft_wisdom_export_file(path);
    return status == SKIT_OK ? CLI_OK : cli_write_error(status);
}

/* ---- plotting --------------------------------------------------------- */

/* The directory of the running binary (symbolic links resolved), or "". */
static const char *binary_dir(void)
{
    static char dir[PATH_MAX];
    static int looked;
    if (!looked) {
        looked = 1;
        ssize_t len = readlink("/proc/self/exe", dir, sizeof dir - 1);
        dir[len > 0 ? len : 0] = '\0';
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        else dir[0] = '\0';
    }
    return dir;
}

const char *cli_source_tree(void)
{
    char build[PATH_MAX];
    const char *self = binary_dir();
    if (!*self || !realpath(SKIT_BUILD_DIR, build)) return NULL;
    size_t len = strlen(build);
    if (strncmp(self, build, len) != 0 || (self[len] != '/' && self[len] != '\0')) return NULL;
    return SKIT_SOURCE_DIR;
}

const char *cli_datadir(void)
{
    const char *env = getenv("SKIT_DATADIR");
    if (env && *env) return env;
    /* an installed skit: <prefix>/bin/skit reads <prefix>/share/skit, even
     * after the prefix was moved */
    static char installed[PATH_MAX];
    static int looked;
    if (!looked) {
        char candidate[PATH_MAX + 32], plots[PATH_MAX + 8];
        looked = 1;
        snprintf(candidate, sizeof candidate, "%s/../share/skit", binary_dir());
        if (!*binary_dir() || !realpath(candidate, installed)) installed[0] = '\0';
        snprintf(plots, sizeof plots, "%s/plots", installed);
        struct stat st;
        if (installed[0] && (stat(plots, &st) != 0 || !S_ISDIR(st.st_mode))) installed[0] = '\0';
    }
    if (installed[0]) return installed;
    const char *source = cli_source_tree();
    return source ? source : SKIT_PKGDATADIR;
}

/* gnuplot strings are single-quoted; refuse paths that would break out. */
static int safe_for_gnuplot(const char *s) { return strchr(s, '\'') == NULL && strchr(s, '\n') == NULL; }

/* A figure gnuplot finished: a PNG ends with its IEND chunk, an SVG with
 * </svg>. gnuplot exits 0 even when its output could not be written (full
 * disk), so the file itself is checked. */
static int complete_figure(const char *path, const char *ext)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    char tail[64];
    off_t size = lseek(fd, 0, SEEK_END);
    size_t want = size > (off_t)sizeof tail ? sizeof tail : (size_t)(size > 0 ? size : 0);
    ssize_t got = want && lseek(fd, size - (off_t)want, SEEK_SET) >= 0 ? read(fd, tail, want) : -1;
    close(fd);
    if (got <= 0) return 0;
    if (!strcmp(ext, ".png")) return got >= 12 && memcmp(tail + got - 8, "IEND", 4) == 0;
    /* SVG closes its root element; PDF and (cairo's) EPS end in %%EOF */
    const char *end = !strcmp(ext, ".svg") ? "</svg>" : "%%EOF";
    size_t len = strlen(end);
    for (ssize_t i = 0; i + (ssize_t)len <= got; i++)
        if (memcmp(tail + i, end, len) == 0) return 1;
    return 0;
}

/* Runs gnuplot on `setup` and `script_path`; its exit status (-1: not run). */
static int run_gnuplot(const char *setup, const char *script_path)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0); /* its own group, stopped by the signal handler */
        execlp("gnuplot", "gnuplot", "-e", setup, script_path, (char *)NULL);
        fprintf(stderr, "%s: cannot run gnuplot: %s (install gnuplot-nox)\n", context, strerror(errno));
        _exit(127);
    }
    cli_child_register(pid);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    cli_child_release(pid);
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128;
}

int cli_plot(const char *script, const char *datafile, const char *out, const char *variables)
{
    char script_path[4096], tmp[4200];
    snprintf(script_path, sizeof script_path, "%s/plots/%s.gp", cli_datadir(), script);
    if (access(script_path, R_OK) != 0)
        return cli_failure("plot script %s not found (set SKIT_DATADIR to the directory of plots/)",
                           script_path);
    datafile = cli_output_stage(datafile); /* a table of this command, not yet committed */
    if (!safe_for_gnuplot(datafile) || !safe_for_gnuplot(out))
        return cli_usage_error("--plot: file names must not contain quotes or newlines");
    const char *dot = strrchr(out, '.');
    snprintf(tmp, sizeof tmp, "%.*s.tmp.%ld%s", (int)(dot - out), out, (long)getpid(), dot);
    size_t need = strlen(tmp) + strlen(datafile) + (variables ? strlen(variables) : 0) + 512;
    char *setup = malloc(need);
    if (!setup) return cli_failure("out of memory");
    snprintf(setup, need, "%s; set output '%s'; datafile='%s'; set datafile separator tab; %s",
             plot_terminal(out), tmp, datafile, variables ? variables : "");
    int slot = cli_temp_register(tmp);
    int rc = run_gnuplot(setup, script_path);
    free(setup);
    int status = CLI_OK;
    if (rc < 0)
        status = cli_failure("cannot start gnuplot: %s", strerror(errno));
    else if (rc != 0)
        status = cli_failure("gnuplot failed on %s (exit status %d)", script_path, rc);
    else if (!complete_figure(tmp, dot))
    {
        fprintf(stderr, "%s: --plot: gnuplot wrote an incomplete %s (disk full or not writable?)\n",
                context, out);
        status = CLI_IO;
    }
    else if (rename(tmp, cli_output_stage(out)) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", context, out, strerror(errno));
        status = CLI_IO;
    }
    if (status != CLI_OK) unlink(tmp);
    cli_temp_release(slot);
    return status;
}

/* ---- progress ---------------------------------------------------------- */

/* The state the command's thread and the heartbeat share, under the lock. */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static double progress_t0 = 0, progress_last = 0;
static int progress_enabled = 0, progress_shown = 0, progress_heartbeat = 0;
static char progress_stage[256] = "";

/* one line (a live one on a terminal); the lock held */
static void progress_emit(double now)
{
    int tty = isatty(STDERR_FILENO);
    fprintf(stderr, "%s%s: [%.0f s] %s", tty ? "\r\033[K" : "", context, now - progress_t0,
            progress_stage[0] ? progress_stage : "running");
    if (!tty) fputc('\n', stderr);
    fflush(stderr);
    progress_last = now;
    progress_shown = 1;
}

/* A stage that calls back rarely (an exact reference, an SVD) still shows:
 * the first line at 1.5 s, then the elapsed time every second on a
 * terminal, or a line every 30 s otherwise. */
static void *progress_heartbeat_loop(void *unused)
{
    (void)unused;
    const struct timespec tick = {0, 250000000};
    for (;;) {
        nanosleep(&tick, NULL);
        pthread_mutex_lock(&progress_lock);
        double now = skit_clock_seconds(), quiet_for = now - progress_last;
        if (progress_enabled && now - progress_t0 >= 1.5 &&
            (!progress_shown || quiet_for >= (isatty(STDERR_FILENO) ? 1.0 : 30.0)))
            progress_emit(now);
        pthread_mutex_unlock(&progress_lock);
    }
    return NULL;
}

void cli_progress_start(const cli_common *common)
{
    pthread_mutex_lock(&progress_lock);
    progress_enabled = !(common && common->quiet);
    progress_t0 = skit_clock_seconds();
    progress_last = progress_t0;
    progress_shown = 0;
    progress_stage[0] = '\0';
    if (progress_enabled && !progress_heartbeat) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        /* without it, progress still shows at each call */
        progress_heartbeat = pthread_create(&thread, &attr, progress_heartbeat_loop, NULL) == 0;
        pthread_attr_destroy(&attr);
        if (progress_heartbeat) atexit(cli_progress_done);
    }
    pthread_mutex_unlock(&progress_lock);
}

static void progress_set_stage(const char *fmt, va_list ap)
{
    vsnprintf(progress_stage, sizeof progress_stage, fmt, ap);
}

void cli_progress(const char *fmt, ...)
{
    pthread_mutex_lock(&progress_lock);
    va_list ap;
    va_start(ap, fmt);
    progress_set_stage(fmt, ap);
    va_end(ap);
    double now = skit_clock_seconds();
    if (progress_enabled && now - progress_t0 >= 1.0 && now - progress_last >= 0.25) progress_emit(now);
    pthread_mutex_unlock(&progress_lock);
}

/* "40 s", "12 min", "3.5 h" */
static const char *format_duration(double seconds, char *text, size_t size)
{
    if (seconds < 120) snprintf(text, size, "%.0f s", seconds);
    else if (seconds < 7200) snprintf(text, size, "%.0f min", seconds / 60);
    else snprintf(text, size, "%.1f h", seconds / 3600);
    return text;
}

void cli_progress_cost(double flops, const char *fmt, ...)
{
    pthread_mutex_lock(&progress_lock);
    va_list ap;
    va_start(ap, fmt);
    progress_set_stage(fmt, ap);
    va_end(ap);
    double seconds = flops / CLI_PROGRESS_FLOPS;
    char duration[32];
    if (progress_enabled && seconds >= 2.0) {
        if (progress_shown && isatty(STDERR_FILENO)) fputc('\n', stderr);
        fprintf(stderr, "%s: %s: ~%.2g flops, about %s at %.0f Gflop/s\n", context, progress_stage, flops,
                format_duration(seconds, duration, sizeof duration), CLI_PROGRESS_FLOPS / 1e9);
        fflush(stderr);
        progress_shown = 0;
    }
    pthread_mutex_unlock(&progress_lock);
}

void cli_progress_done(void)
{
    pthread_mutex_lock(&progress_lock);
    if (progress_shown && isatty(STDERR_FILENO)) fputc('\n', stderr);
    progress_shown = 0;
    progress_enabled = 0;
    pthread_mutex_unlock(&progress_lock);
}

void cli_apply_threads(const cli_common *common)
{
#ifdef _OPENMP
    if (common->threads > 0) omp_set_num_threads(common->threads);
#else
    (void)common;
#endif
}

int cli_program_main(const cli_command *command, const char *name, int argc, char **argv)
{
    static char program[64];
    const char *alias = getenv("SKIT_COMMAND_NAME");
    snprintf(program, sizeof program, "%s", alias && *alias ? alias : name);
    unsetenv("SKIT_COMMAND_NAME"); /* not for the processes this one starts */
    cli_set_context(program);
    argv[0] = program; /* the provenance header records the command as typed */
    int status = cli_run_command(command, argc, argv);
    return status == CLI_OK ? cli_planner_finish() : status;
}

int cli_exec_program(const char *subdir, const char *program, int argc, char **argv)
{
    char path[PATH_MAX + 64];
    const char *source = cli_source_tree(), *dir = getenv("SKIT_PROGRAM_DIR");
    if (dir && *dir) snprintf(path, sizeof path, "%s/%s", dir, program); /* e.g. make memcheck */
    else if (source) snprintf(path, sizeof path, "%s/%s/%s", SKIT_BUILD_DIR, subdir, program);
    else snprintf(path, sizeof path, "%s/%s", binary_dir(), program);
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) return cli_failure("out of memory");
    args[0] = path;
    for (int i = 1; i < argc; i++) args[i] = argv[i];
    setenv("SKIT_COMMAND_NAME", cli_context(), 1);
    fflush(NULL);
    execv(path, args);
    int err = errno;
    free(args);
    unsetenv("SKIT_COMMAND_NAME");
    return cli_failure("cannot run %s: %s (it is built and installed beside skit)", path, strerror(err));
}
