/* cli.c — shared machinery of the `skit` subcommands (see cli.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    *values = NULL;
    *count = 0;
    if (!text || !*text) return cli_usage_error("%s: expected a comma-separated list of numbers", option);
    size_t n = 1;
    for (const char *p = text; *p; p++) n += (*p == ',');
    double *v = malloc(n * sizeof *v);
    char *copy = strdup(text);
    if (!v || !copy) { free(v); free(copy); return cli_failure("out of memory"); }
    size_t k = 0;
    char *save = NULL;
    int status = CLI_OK;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        status = cli_parse_double(option, item, lo, hi, 0, 0, &v[k]);
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
    return check_writable_dir(option, path);
}

int cli_common_validate(const cli_common *common)
{
    if (common->output && strcmp(common->output, "-") != 0) {
        if (!*common->output) return cli_usage_error("-o: empty file name");
        if (check_writable_dir("-o", common->output) != CLI_OK) return CLI_USAGE;
    }
    if (common->plot) {
        if (!cli_ends_with(common->plot, ".png") && !cli_ends_with(common->plot, ".svg"))
            return cli_usage_error("--plot: file name must end in .png or .svg, got '%s'",
                                   common->plot);
        if (check_writable_dir("--plot", common->plot) != CLI_OK) return CLI_USAGE;
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
        if (cli_check_output_path("--wisdom", wisdom) != CLI_OK) return CLI_USAGE;
        if (access(wisdom, F_OK) == 0 && import_wisdom("--wisdom", wisdom) != CLI_OK) return CLI_USAGE;
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
    if (skit_fft_wisdom_export_file(path) != SKIT_OK) return cli_failure("--wisdom: %s", skit_last_error());
    return CLI_OK;
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

int cli_plot(const char *script, const char *datafile, const char *out, const char *variables)
{
    char script_path[4096], tmp[4200];
    snprintf(script_path, sizeof script_path, "%s/plots/%s.gp", cli_datadir(), script);
    if (access(script_path, R_OK) != 0)
        return cli_failure("plot script %s not found (set SKIT_DATADIR to the directory of plots/)",
                           script_path);
    if (!safe_for_gnuplot(datafile) || !safe_for_gnuplot(out))
        return cli_usage_error("--plot: file names must not contain quotes or newlines");
    int svg = cli_ends_with(out, ".svg");
    const char *dot = strrchr(out, '.');
    snprintf(tmp, sizeof tmp, "%.*s.tmp.%ld%s", (int)(dot - out), out, (long)getpid(), svg ? ".svg" : ".png");
    size_t need = strlen(tmp) + strlen(datafile) + (variables ? strlen(variables) : 0) + 256;
    char *setup = malloc(need);
    if (!setup) return cli_failure("out of memory");
    snprintf(setup, need,
             "%s; set output '%s'; datafile='%s'; set datafile separator tab; %s",
             svg ? "set terminal svg size 900,600 dynamic enhanced font 'sans,12'"
                 : "set terminal pngcairo size 900,600 enhanced font 'sans,11'",
             tmp, datafile, variables ? variables : "");
    pid_t pid = fork();
    if (pid < 0) {
        free(setup);
        return cli_failure("cannot start gnuplot: %s", strerror(errno));
    }
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", "-e", setup, script_path, (char *)NULL);
        fprintf(stderr, "%s: cannot run gnuplot: %s (install gnuplot-nox)\n", context, strerror(errno));
        _exit(127);
    }
    free(setup);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        unlink(tmp);
        return cli_failure("gnuplot failed on %s", script_path);
    }
    if (rename(tmp, out) != 0) {
        unlink(tmp);
        return cli_failure("cannot write %s: %s", out, strerror(errno));
    }
    return CLI_OK;
}

/* ---- progress ---------------------------------------------------------- */

static double progress_t0 = 0, progress_last = 0;
static int progress_enabled = 0, progress_shown = 0;

void cli_progress_start(const cli_common *common)
{
    progress_enabled = !(common && common->quiet);
    progress_t0 = skit_clock_seconds();
    progress_last = progress_t0;
    progress_shown = 0;
}

void cli_progress(const char *fmt, ...)
{
    if (!progress_enabled) return;
    double now = skit_clock_seconds();
    if (now - progress_t0 < 1.0 || now - progress_last < 0.25) return;
    progress_last = now;
    int tty = isatty(STDERR_FILENO);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s%s: [%.0f s] ", tty ? "\r\033[K" : "", context, now - progress_t0);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (!tty) fputc('\n', stderr);
    fflush(stderr);
    progress_shown = 1;
}

void cli_progress_done(void)
{
    if (progress_shown && isatty(STDERR_FILENO)) fputc('\n', stderr);
    progress_shown = 0;
}

void cli_apply_threads(const cli_common *common)
{
#ifdef _OPENMP
    if (common->threads > 0) omp_set_num_threads(common->threads);
#else
    (void)common;
#endif
}
