/* fuzz_cli.c — fuzz target for the command line of every `skit` subcommand.
 *
 * The input is split into argv words (at '\n' and '\0') and handed to the
 * subcommand's entry point from cli_commands[], in process. What it checks,
 * on top of "no crash, no sanitizer report, no leak":
 *   - the exit status is 0, 1 or 2;
 *   - status 2 (bad input): exactly one line on stderr, starting "skit ",
 *     nothing on stdout, and no file created or changed;
 *   - any status: no temporary "*.tmp.*" file left behind.
 *
 * A safe environment, set up once:
 *   - the process works in a private temporary directory (removed at exit)
 *     holding small input files (fixtures below) that inputs name by their
 *     plain names; a word containing '/' is refused, so nothing outside that
 *     directory is read or written (the parse-only commands below touch no
 *     file and take any word);
 *   - PATH and SKIT_DATADIR point to empty places: no gnuplot, bash or
 *     python is ever started (plots fail with status 1 instead);
 *   - stdout and stderr are captured in memory during the command.
 * Bounded run time: a subcommand's work grows with its size arguments, so an
 * input with an integer literal above FUZZ_INT_CAP and below FUZZ_HUGE
 * (plain, "2^k" or in a list; --seed values excepted) is refused (huge ones
 * must meet the size refusals), modes whose default sizes take
 * seconds get small sizes in front of the input's words (small_defaults;
 * the input's own options override them), and under libFuzzer
 * skit_memory_check refuses requests above FUZZ_MEMORY_CAP bytes
 * (tests/fuzz/hooks.c). Huge sizes are covered by tests/cli_badinput.sh.
 * `bench` and `reproduce` would run for minutes on any valid command line
 * (timing loops, experiment scripts): under libFuzzer a bench target runs
 * to the end of its validation (the stop hook below); reproduce, and bench
 * in the replay build, get two unknown options appended so that only their
 * option loop runs and they stop with status 2 (or 0 for --help). */
#define _GNU_SOURCE 1 /* nftw, open_memstream */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/checkpoint.h"
#include "commands.h"
#include "fuzz.h"
#include "reproduce_report.h"
#include "train/train.h"

#define FUZZ_INT_CAP 64
/* Integers from here up are let through: sizes this large must be refused
 * before any work by the size, memory (capped under libFuzzer, hooks.c) and
 * O(n^2) checks, or run within libFuzzer's -timeout and -rss_limit_mb (see
 * run-fuzzers.sh); the sizes in between would only make the fuzzer slow. */
#define FUZZ_HUGE (1ull << 20)
#define FUZZ_MAX_WORDS 64
#define STOP_WORD "--skit-fuzz-stop"

/* ---- stopping `skit bench` before its measurements (libFuzzer builds) ------
 * Every bench target calls cli_apply_threads() after its last check and
 * before its first measurement; cli/cli.c is compiled there with
 * -Dcli_apply_threads=cli_apply_threads_real, and while stop_armed is set
 * the call jumps back to skit_fuzz_cli: the whole validation is fuzzed, no
 * timing loop runs. (The replay build has no such hook: there bench gets the
 * stop words, like reproduce.) */
#ifdef SKIT_FUZZ_HOOKS
#include <sanitizer/lsan_interface.h>
#include <setjmp.h>
void cli_apply_threads_real(const cli_common *common);
static int stop_armed;
static jmp_buf stop_point;
void cli_apply_threads(const cli_common *common)
{
    if (stop_armed) {
        stop_armed = 0;
        longjmp(stop_point, 1);
    }
    cli_apply_threads_real(common);
}
#define HAVE_STOP_HOOK 1
#else
#define HAVE_STOP_HOOK 0
#endif

/* ---- fixtures: small input files in the working directory ---------------- */

typedef struct fixture {
    const char *name;
    char *bytes;
    size_t size;
} fixture;

#define MAX_FIXTURES 32
static fixture fixtures[MAX_FIXTURES];
static size_t nfixtures;

static void add_fixture(const char *name, const void *bytes, size_t size)
{
    if (nfixtures == MAX_FIXTURES) abort();
    fixture *f = &fixtures[nfixtures++];
    f->name = name;
    f->bytes = malloc(size ? size : 1);
    if (!f->bytes) abort();
    memcpy(f->bytes, bytes, size);
    f->size = size;
}

static void add_text(const char *name, const char *text) { add_fixture(name, text, strlen(text)); }

/* A .npy (version 1.0) image of `count` values, float64 or float32. */
static void add_npy(const char *name, const char *descr, int fortran, const char *shape,
                    const double *values, size_t count)
{
    char dict[160];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
                       fortran ? "True" : "False", shape);
    size_t header = (size_t)len + 1, total = 10 + header;
    header += (64 - total % 64) % 64; /* NumPy pads the preamble to 64 bytes */
    int f4 = strcmp(descr, "<f4") == 0;
    size_t size = 10 + header + count * (f4 ? 4 : 8);
    unsigned char *b = calloc(1, size);
    if (!b) abort();
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)(header & 0xff);
    b[9] = (unsigned char)(header >> 8);
    memset(b + 10, ' ', header);
    memcpy(b + 10, dict, (size_t)len);
    b[10 + header - 1] = '\n';
    for (size_t i = 0; i < count; i++) {
        if (f4) {
            float v = (float)values[i];
            memcpy(b + 10 + header + 4 * i, &v, 4); /* x86-64 and arm64 are little-endian */
        } else {
            memcpy(b + 10 + header + 8 * i, &values[i], 8);
        }
    }
    add_fixture(name, b, size);
    free(b);
}

static void make_fixtures(void)
{
    static const double c5[] = {0.25, -0.5, 2, 0.5, 0.125};
    static const double x3[] = {1, -2, 0.5};
    static const double x6[] = {1, -2, 0.5, 3, 0.25, -1};
    /* toeplitz: n = 3 (5 coefficients), d = 2 matrices, k = 2 right-hand sides */
    add_text("c.tsv", "0.25\n-0.5\n2\n0.5\n0.125\n");
    add_text("c2.tsv", "# two matrices\nt0\tt1\n0.25\t1\n-0.5\t0\n2\t3\n0.5\t0\n0.125\t-1\n");
    add_text("x.tsv", "1\n-2\n0.5\n");
    add_text("x2.tsv", "1 3\n-2 0.25\n0.5 -1\n");
    add_text("t.tsv", "1\n0.5\n0.25\n");           /* SPD first column */
    add_text("s.tsv", "0.25\n0.5\n1\n0.5\n0.25\n"); /* SPD, all 2n-1 */
    add_text("z.tsv", "1\n1\n0\n1\n1\n");           /* singular leading minor */
    add_text("nan.tsv", "1\nnan\n0.5\n");
    add_text("empty.tsv", "");
    add_text("text.npy", "1\n2\n3\n");
    add_npy("c.npy", "<f8", 0, "(5,)", c5, 5);
    add_npy("x.npy", "<f8", 0, "(3,)", x3, 3);
    add_npy("x2.npy", "<f4", 0, "(3, 2)", x6, 6);
    add_npy("x2f.npy", "<f8", 1, "(3, 2)", x6, 6);
    add_npy("x0.npy", "<f8", 0, "(0,)", x3, 0);
    fixture *full = &fixtures[nfixtures - 2];
    add_fixture("trunc.npy", full->bytes, full->size - 3);
    /* mra: Q, K, V of n = 32 tokens (one default block), d = 4 */
    double qkv[3][32 * 4];
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < 32 * 4; i++) qkv[m][i] = sin(0.37 * i + m) + 0.1 * cos(1.3 * i * (m + 1));
    add_npy("q.npy", "<f8", 0, "(32, 4)", qkv[0], 32 * 4);
    add_npy("k.npy", "<f8", 0, "(32, 4)", qkv[1], 32 * 4);
    add_npy("v.npy", "<f4", 1, "(32, 4)", qkv[2], 32 * 4);
}

/* Removes everything below the working directory. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag;
    if (ftw->level > 0) remove(path);
    return 0;
}

static char workdir[256];

static void cleanup_workdir(void)
{
    if (workdir[0]) nftw(workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (workdir[0]) rmdir(workdir);
}

static void reset_workdir(void)
{
    nftw(workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    for (size_t i = 0; i < nfixtures; i++) {
        FILE *f = fopen(fixtures[i].name, "wb");
        if (!f || fwrite(fixtures[i].bytes, 1, fixtures[i].size, f) != fixtures[i].size || fclose(f) != 0) {
            perror("skit fuzz: writing a fixture");
            abort();
        }
    }
}

static void init_once(void)
{
    static int done;
    if (done) return;
    done = 1;
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/skit-fuzz-XXXXXX", tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
    if (!mkdtemp(workdir) || chdir(workdir) != 0) {
        perror("skit fuzz: temporary directory");
        abort();
    }
    atexit(cleanup_workdir);
    char empty[300];
    snprintf(empty, sizeof empty, "%s/no-such-dir", workdir);
    setenv("PATH", empty, 1);
    setenv("SKIT_DATADIR", empty, 1);
    make_fixtures();
}

/* ---- input filters -------------------------------------------------------- */

/* Value of the integer literal at s (digits, optionally "^digits"),
 * saturated; *end receives the first character after it. */
static unsigned long long literal_value(const char *s, const char **end)
{
    unsigned long long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v > 1000000 ? 10000000 : v * 10 + (unsigned)(*s - '0');
        s++;
    }
    if (*s == '^' && s[1] >= '0' && s[1] <= '9') {
        unsigned long long e = 0, base = v;
        s++;
        while (*s >= '0' && *s <= '9') {
            e = e > 1000 ? 1000 : e * 10 + (unsigned)(*s - '0');
            s++;
        }
        v = 1;
        for (unsigned long long i = 0; i < e && v <= 10000000; i++) v *= base;
        if (base <= 1) v = base == 1 || e == 0 ? 1 : 0;
    }
    *end = s;
    return v;
}

/* 1 if the word holds an integer above the cap. Digits after '.', 'e' or
 * 'E' (parts of a floating-point number) do not count, and neither does a
 * mantissa followed by '.', 'e' or 'E'. */
static int has_big_integer(const char *w)
{
    for (const char *p = w; *p;) {
        if (*p >= '0' && *p <= '9') {
            char before = p > w ? p[-1] : ' ';
            const char *end;
            unsigned long long v = literal_value(p, &end);
            int floating = before == '.' || before == 'e' || before == 'E' || *end == 'e' || *end == 'E' ||
                           (*end == '.' && end[1] != '.');
            if (!floating && v > FUZZ_INT_CAP && v < FUZZ_HUGE) return 1;
            p = end;
        } else {
            p++;
        }
    }
    return 0;
}

/* Points of the sweep the words ask for: the product over the words of
 * their list items (1 + commas, a range "a..b" counted as 16). `ski-bound`
 * evaluates Theorem 1 at every point of n x r x kernel x scheme x degree:
 * 360 points took 2.2 s optimised and 27 s under the fuzzer's
 * instrumentation, past its -timeout, and one tnn point at n = r = 64
 * takes 0.1 s optimised (about 1.2 s instrumented; with 16 points a
 * 30-s run met a 10-s input). FUZZ_MAX_POINTS keeps its runs well within
 * the timeout; the other commands' lists stay uncapped, so long lists are
 * still parsed. */
#define FUZZ_MAX_POINTS 8
static double sweep_points(char **words, int first, int nwords)
{
    double points = 1;
    for (int i = first; i < nwords; i++) {
        double items = 1;
        for (const char *p = words[i]; *p; p++) {
            if (*p == ',') items += 1;
            if (p[0] == '.' && p[1] == '.') items += 15, p++;
        }
        points *= items;
    }
    return points;
}

static int is_seed_option(const char *w)
{
    return strncmp(w, "--se", 4) == 0 && strncmp("--seed", w, strlen(w) < 6 ? strlen(w) : 6) == 0;
}

/* Options put in front of the input's words (after a mode word) so that a
 * mode whose defaults take seconds runs small unless the input says
 * otherwise (later options override earlier ones): the defaults themselves
 * are run by the CLI tests, not here. mode NULL: the command has no mode
 * word, or the input starts with an option (mra's default mode). */
static const struct {
    const char *command, *mode, *prefix;
} small_defaults[] = {
    {"ski-bound", "theorem1", "--n 32 --r 4,8"},
    {"ski-bound", "sparse-lowrank", "--n 32 --r 4,8 --band 0,3"},
    {"ski-bound", "extrapolation", "--n-train 16 --factor 2"},
    {"hilbert", "sweep", "--sizes 16,32 --periods 1"},
    {"decay", "summary", "--fft-size 256 --range 1..16 --nodes 64 --orders 1,2 --width 8 --layers 1 --channels 2"},
    {"decay", "bound", "--fft-size 256 --range 1..16 --nodes 64 --orders 1,2 --width 8 --layers 1 --channels 2"},
    {"mra", NULL, "--n 64 --d 8 --block 8 --repeat 1"},
    {"mra", "sweep", "--n 64 --d 8 --block 8 --repeat 1"},
    {"mra", "haar", "--n 64 --d 8"},
    {"mra", "workload", "--n 64 --d 8 --block 8 --targets 0.1"},
    {"mra", "bounds", "--n 64 --d 8"},
    {"mra", "frame", "--n 8 --d 8 --subsets 2"},
    /* its default plans 2^11..2^21 with MEASURE in both precisions: tens of
     * seconds (a libFuzzer timeout in CI on "-o FILE" alone) */
    {"wisdom", NULL, "--sizes 16,32 --plan-seconds 0.05"},
    /* its default run (300 steps) took 35 s in the sanitizer build */
    {"train", NULL, "--steps 3 --n 16 --d 8 --batch 2 --eval-batches 1"},
    /* 7.5 s by default in the sanitizer build */
    {"analytic", NULL, "--width 8 --layers 1 --points 64"},
};

/* ski-bound selects its mode with --study X anywhere */
static const char *study_of(char **words, int first, int nwords)
{
    for (int i = first; i < nwords; i++) {
        const char *w = words[i];
        if (strncmp(w, "--st", 4) != 0) continue;
        const char *eq = strchr(w, '=');
        if (eq) return eq + 1;
        if (i + 1 < nwords) return words[i + 1];
    }
    return "theorem1";
}

static const cli_command *find_command(const char *name)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        if (!strcmp(c->name, name)) return c;
    return NULL;
}

/* ---- checks after a run --------------------------------------------------- */

/* Fails unless the directory holds exactly the fixtures, unchanged. */
static void check_directory(const char *command, const uint8_t *data, size_t size, int rc)
{
    DIR *d = opendir(".");
    if (!d) abort();
    /* skit's atomic writers name their temporary file "<path>.tmp.<pid>" (a
     * figure "<stem>.tmp.<pid>.png"); inputs cannot name files ".tmp." */
    char tmp_mark[32];
    snprintf(tmp_mark, sizeof tmp_mark, ".tmp.%ld", (long)getpid());
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        const char *mark = strstr(e->d_name, tmp_mark);
        if (mark && (mark[strlen(tmp_mark)] == '\0' || mark[strlen(tmp_mark)] == '.'))
            skit_fuzz_fail(command, data, size, "exit %d left the temporary file '%s'", rc, e->d_name);
        if (rc != CLI_USAGE) continue;
        size_t i = 0;
        while (i < nfixtures && strcmp(fixtures[i].name, e->d_name)) i++;
        if (i == nfixtures) skit_fuzz_fail(command, data, size, "exit 2 but created '%s'", e->d_name);
    }
    closedir(d);
    if (rc != CLI_USAGE) return;
    for (size_t i = 0; i < nfixtures; i++) {
        FILE *f = fopen(fixtures[i].name, "rb");
        char buf[4096];
        size_t got = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f) fclose(f);
        if (fixtures[i].size >= sizeof buf) abort(); /* fixtures are small */
        if (!f || got != fixtures[i].size || memcmp(buf, fixtures[i].bytes, got) != 0)
            skit_fuzz_fail(command, data, size, "exit 2 but '%s' was changed or removed", fixtures[i].name);
    }
}

int skit_fuzz_cli(const char *command, const uint8_t *data, size_t size)
{
    init_once();
    /* words */
    char *text = malloc(size + 1);
    if (!text) return -1;
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    char *words[FUZZ_MAX_WORDS + 4];
    int nwords = 0;
    char *start = text;
    for (size_t i = 0; i <= size; i++) {
        if (i == size || text[i] == '\n' || text[i] == '\0') {
            if (i == size && start == text + size) break; /* input ends with a separator */
            text[i] = '\0';
            if (nwords == FUZZ_MAX_WORDS) {
                free(text);
                return -1;
            }
            words[nwords++] = start;
            start = text + i + 1;
        }
    }
    const char *name = command;
    int first = 0;
    if (!name) {
        if (nwords == 0) {
            free(text);
            return -1;
        }
        name = words[0];
        first = 1;
    }
    const cli_command *cmd = find_command(name);
    if (!cmd) {
        free(text);
        return -1;
    }
    /* bench: stopped before its measurements (hook) or, without the hook,
     * like reproduce: only its option loop runs (stop words) */
    int stop_before_work = HAVE_STOP_HOOK && !strcmp(cmd->name, "bench");
    int parse_only = (!HAVE_STOP_HOOK && !strcmp(cmd->name, "bench")) || !strcmp(cmd->name, "reproduce");
    if (!strcmp(cmd->name, "ski-bound") && sweep_points(words, first, nwords) > FUZZ_MAX_POINTS) {
        free(text);
        return -1;
    }
    for (int i = first; i < nwords; i++) {
        /* (an output named like a temporary file would defeat the check for
         * leftover temporary files) */
        if (parse_only || stop_before_work) continue; /* runs nothing: any path, any size */
        if (strchr(words[i], '/') || strstr(words[i], ".tmp.") ||
            (has_big_integer(words[i]) && !(i > first && is_seed_option(words[i - 1])) &&
             strncmp(words[i], "--seed=", 7) != 0)) {
            free(text);
            return -1;
        }
    }

    /* argv: the subcommand name, the words, and for parse-only commands the
     * two stop words (two, because an option taking a value swallows one) */
    char *argv[2 * FUZZ_MAX_WORDS + 4];
    int argc = 0;
    char name_copy[64];
    snprintf(name_copy, sizeof name_copy, "%s", cmd->name);
    argv[argc++] = name_copy;
    /* the small defaults, after the mode word if there is one */
    const char *prefix = NULL;
    int after_mode = 0;
    const char *mode = !strcmp(cmd->name, "ski-bound") ? study_of(words, first, nwords)
                       : first < nwords && words[first][0] != '-' ? words[first] : NULL;
    for (size_t i = 0; i < sizeof small_defaults / sizeof *small_defaults; i++)
        if (!strcmp(small_defaults[i].command, cmd->name) &&
            (small_defaults[i].mode ? mode && !strcmp(small_defaults[i].mode, mode) : !mode)) {
            prefix = small_defaults[i].prefix;
            after_mode = mode && strcmp(cmd->name, "ski-bound") != 0;
        }
    char prefix_copy[256];
    int i = first;
    if (after_mode) argv[argc++] = words[i++];
    if (prefix) {
        snprintf(prefix_copy, sizeof prefix_copy, "%s", prefix);
        char *save = NULL;
        for (char *w = strtok_r(prefix_copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) argv[argc++] = w;
    }
    for (; i < nwords; i++) argv[argc++] = words[i];
    static char stop1[] = STOP_WORD, stop2[] = STOP_WORD;
    if (parse_only) {
        argv[argc++] = stop1;
        argv[argc++] = stop2;
    }
    argv[argc] = NULL;

    init_once();
    reset_workdir();
    /* getopt keeps a pointer into the previous argv between calls; optind = 0
     * makes glibc forget it (the commands themselves set optind = 1) */
    {
        static char dummy0[] = "skit";
        char *dummy[] = {dummy0, NULL};
        optind = 0;
        opterr = 0;
        getopt(1, dummy, "");
    }
    char context[96];
    snprintf(context, sizeof context, "skit %s", cmd->name);
    cli_set_context(context);
    skit_clear_error();
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif

    char *out_text = NULL, *err_text = NULL;
    size_t out_len = 0, err_len = 0;
    FILE *saved_out = stdout, *saved_err = stderr;
    FILE *out = open_memstream(&out_text, &out_len), *err = open_memstream(&err_text, &err_len);
    if (!out || !err) abort();
    stdout = out;
    stderr = err;
    int rc, validated = 0;
#ifdef SKIT_FUZZ_HOOKS
    if (stop_before_work) {
        /* what the jump skips (the command's frees) must not count as leaks */
        __lsan_disable();
        stop_armed = 1;
        if (setjmp(stop_point)) validated = 1;
    }
#endif
    rc = validated ? CLI_OK : cli_run_command(cmd, argc, argv);
#ifdef SKIT_FUZZ_HOOKS
    if (stop_before_work) {
        stop_armed = 0;
        __lsan_enable();
    }
#endif
    stdout = saved_out;
    stderr = saved_err;
    fclose(out);
    fclose(err);

    if (getenv("SKIT_FUZZ_VERBOSE"))
        fprintf(stderr, "exit %d, %zu bytes on stdout, stderr: %s%s", rc, out_len, err_text,
                err_len && err_text[err_len - 1] == '\n' ? "" : "\n");
    char label[80];
    snprintf(label, sizeof label, "cli %s", cmd->name);
    if (rc != CLI_OK && rc != CLI_FAILED && rc != CLI_USAGE && rc != CLI_IO)
        skit_fuzz_fail(label, data, size, "exit status %d (stderr: %s)", rc, err_text);
    /* (a placeholder of a subcommand not written yet fails at once) */
    if (parse_only && rc == CLI_FAILED && !strstr(err_text, "not implemented yet") && !strstr(err_text, "not built yet"))
        skit_fuzz_fail(label, data, size, "parse-only command ran past its options (stderr: %s)", err_text);
    if (rc == CLI_USAGE) {
        const char *nl = memchr(err_text, '\n', err_len);
        if (err_len == 0 || !nl || nl != err_text + err_len - 1)
            skit_fuzz_fail(label, data, size, "exit 2 with %s on stderr: '%s'",
                           err_len ? "more than one line" : "nothing", err_text);
        if (strncmp(err_text, "skit ", 5) != 0)
            skit_fuzz_fail(label, data, size, "exit 2 message lacks the 'skit ...:' prefix: '%s'", err_text);
        if (out_len) skit_fuzz_fail(label, data, size, "exit 2 but wrote %zu bytes on stdout", out_len);
    }
    if (validated) {
        /* all checks passed, nothing measured yet: nothing may be written */
        snprintf(label, sizeof label, "cli %s (stopped before its measurements)", cmd->name);
        if (out_len) skit_fuzz_fail(label, data, size, "wrote %zu bytes on stdout before any work", out_len);
        check_directory(label, data, size, CLI_USAGE);
    } else {
        check_directory(label, data, size, rc);
    }
    free(out_text);
    free(err_text);
    free(text);
    return 0;
}

/* run(ctx) with stdout and stderr captured in memory (free() both texts). */
static int run_captured(int (*run)(void *), void *ctx, char **out_text, size_t *out_len, char **err_text,
                        size_t *err_len)
{
    *out_text = *err_text = NULL;
    *out_len = *err_len = 0;
    FILE *saved_out = stdout, *saved_err = stderr;
    FILE *out = open_memstream(out_text, out_len), *err = open_memstream(err_text, err_len);
    if (!out || !err) abort();
    stdout = out;
    stderr = err;
    int rc = run(ctx);
    stdout = saved_out;
    stderr = saved_err;
    fclose(out);
    fclose(err);
    return rc;
}

typedef struct merge_call {
    int argc;
    char **argv;
} merge_call;

static int run_merge(void *ctx)
{
    merge_call *call = ctx;
    return cli_run_command(find_command("reproduce"), call->argc, call->argv);
}

static int run_load_checkpoint(void *dir) { return cmd_train_load_checkpoint(dir); }

/* ---- `skit reproduce --merge` over a fuzzed output directory -------------
 * The input describes the directory, one record a line: the first byte is
 * the kind, the second (mod 3) picks experiment 01_a, 02_b or 03_c, the
 * rest is the file's text ('\x01' stands for a newline):
 *   c claims/<exp>.tsv   n notes/<exp>.md   d done/<exp> (marker)
 *   q claims/.quick      j claims/<rest>.tsv (any name)   p --allow-partial
 * Invariants: status 0, 1 or 3 (2 only for a directory it cannot read);
 * REPORT.md exists exactly when the status is 0; without --allow-partial a
 * report needs every marker and, behind each, a well-formed claims file; a
 * report with a missing experiment says so in its first lines; no
 * temporary file is left. */
static const char *const merge_experiments[] = {"01_a", "02_b", "03_c"};

static void merge_write(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    for (size_t i = 0; i < len; i++) fputc(text[i] == '\x01' ? '\n' : text[i], f);
    fclose(f);
}

/* Builds the directory from the records; returns the --allow-partial flag,
 * sets done[] to the markers written. */
static int merge_build(const char *data, size_t size, int done[3])
{
    int allow = 0;
    for (size_t a = 0; a < size;) {
        const char *nl = memchr(data + a, '\n', size - a);
        size_t b = nl ? (size_t)(nl - data) : size, len = b - a;
        const char *rec = data + a;
        a = b + 1;
        if (len < 2 || memchr(rec, '\0', len) || memchr(rec, '/', len)) continue;
        int e = (unsigned char)rec[1] % 3;
        char path[512];
        const char *text = rec + 2;
        size_t tlen = len - 2 > 400 ? 400 : len - 2;
        switch (rec[0]) {
        case 'c': snprintf(path, sizeof path, "out/claims/%s.tsv", merge_experiments[e]); break;
        case 'n': snprintf(path, sizeof path, "out/notes/%s.md", merge_experiments[e]); break;
        case 'd': snprintf(path, sizeof path, "out/done/%s", merge_experiments[e]); done[e] = 1; break;
        case 'q': snprintf(path, sizeof path, "out/claims/.quick"); break;
        case 'j': snprintf(path, sizeof path, "out/claims/%.*s.tsv", (int)(tlen > 60 ? 60 : tlen), text); break;
        case 'p': allow = 1; continue;
        default: continue;
        }
        merge_write(path, text, tlen);
    }
    return allow;
}

/* Every experiment has a marker and a well-formed claims file: what
 * --merge needs for a complete report. */
static int merge_complete(const int done[3])
{
    char path[128], why[256];
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "out/claims/%s.tsv", merge_experiments[i]);
        if (!done[i] || claims_file_check(path, why, sizeof why) != 0) return 0;
    }
    return 1;
}

int skit_fuzz_merge(const uint8_t *data, size_t size)
{
    init_once();
    reset_workdir();
    static const char *const dirs[] = {"out", "out/claims", "out/notes", "out/done", "data",
                                       "data/experiments", "data/plots"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) mkdir(dirs[i], 0777);
    for (size_t i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "data/experiments/%s.sh", merge_experiments[i]);
        merge_write(path, "true", 4);
    }
    int done[3] = {0, 0, 0};
    int allow = merge_build((const char *)data, size, done);
    char datadir[512], saved[512];
    snprintf(datadir, sizeof datadir, "%s/data", workdir);
    snprintf(saved, sizeof saved, "%s", getenv("SKIT_DATADIR") ? getenv("SKIT_DATADIR") : "");
    setenv("SKIT_DATADIR", datadir, 1);
    char a0[] = "reproduce", a1[] = "--out", a2[] = "out", a3[] = "--merge", a4[] = "--allow-partial";
    char *argv[] = {a0, a1, a2, a3, allow ? a4 : NULL, NULL};
    int argc = allow ? 5 : 4;
    optind = 0;
    cli_set_context("skit reproduce");
    skit_clear_error();
    merge_call call = {argc, argv};
    char *out_text, *err_text;
    size_t out_len, err_len;
    int rc = run_captured(run_merge, &call, &out_text, &out_len, &err_text, &err_len);
    setenv("SKIT_DATADIR", saved, 1);
    const char *label = "reproduce --merge";
    FILE *report = fopen("out/REPORT.md", "r");
    char head[512] = "";
    size_t got = report ? fread(head, 1, sizeof head - 1, report) : 0;
    head[got] = '\0';
    if (report) fclose(report);
    int complete = merge_complete(done);
    if (rc != CLI_OK && rc != CLI_FAILED && rc != CLI_IO)
        skit_fuzz_fail(label, data, size, "exit status %d (stderr: %s)", rc, err_text);
    if ((rc == CLI_OK) != (report != NULL))
        skit_fuzz_fail(label, data, size, "exit %d %s REPORT.md", rc, report ? "but wrote" : "without");
    if (rc == CLI_OK && !complete && !allow)
        skit_fuzz_fail(label, data, size, "a report although an experiment has no marker or claims");
    if (rc == CLI_OK && !complete && !strstr(head, "Partial report"))
        skit_fuzz_fail(label, data, size, "a partial report that does not say so first: %.200s", head);
    if (rc == CLI_OK && complete && strstr(head, "Partial report"))
        skit_fuzz_fail(label, data, size, "a complete run reported as partial");
    if (rc == CLI_FAILED && complete)
        skit_fuzz_fail(label, data, size, "exit 1 with every marker and claims file (stderr: %s)", err_text);
    DIR *d = opendir("out");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp."))
            skit_fuzz_fail(label, data, size, "left the temporary file '%s'", e->d_name);
    if (d) closedir(d);
    free(out_text);
    free(err_text);
    return 0;
}

/* ---- `skit train --resume` over a fuzzed checkpoint directory --------------
 * The input holds the files of the directory, each as a line "@NAME", its
 * bytes and a newline, up to the next line that starts with '@' (a plain
 * NAME, at most 64 files). Unless the input holds a checksums.tsv, the harness
 * writes one over every file given, so that mutations reach the parsers
 * behind the checksum check. A model.tsv with a '/' is refused (its text
 * field would name a file outside the sandbox). Runs what --resume does
 * before its first step (cmd_train_load_checkpoint). Invariants: status 0,
 * 1 (out of memory) or 2; 2 with exactly one line on stderr, naming skit
 * train; 0 with nothing on stderr; no temporary left. */
typedef struct ck_file {
    char name[65];
    const uint8_t *bytes;
    size_t size;
} ck_file;

/* The input's files; -1 for an input the target refuses. */
static int checkpoint_files(const uint8_t *data, size_t size, ck_file *files, size_t cap, int *with_sums)
{
    size_t count = 0, at = 0;
    *with_sums = 0;
    while (at < size) {
        if (data[at] != '@' || count == cap) return -1;
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t name_len = nl ? (size_t)(nl - data) - at - 1 : 0;
        if (!nl || name_len == 0 || name_len > 64) return -1;
        ck_file *f = &files[count++];
        memcpy(f->name, data + at + 1, name_len);
        f->name[name_len] = '\0';
        if (strchr(f->name, '/') || memchr(f->name, '\0', name_len) || f->name[0] == '.' || strstr(f->name, ".tmp."))
            return -1; /* a plain name, never one a temporary could have */
        size_t start = (size_t)(nl + 1 - data), end = start;
        while (end < size && !(end > start && data[end] == '@' && data[end - 1] == '\n')) end++;
        f->bytes = nl + 1;
        f->size = end - start - (end > start && data[end - 1] == '\n'); /* less the separating newline */
        at = end;
        if (!strcmp(f->name, "checksums.tsv")) *with_sums = 1;
        if (!strcmp(f->name, "model.tsv") && memchr(f->bytes, '/', f->size)) return -1;
    }
    return (int)count;
}

static void checkpoint_build(const ck_file *files, int count, int with_sums)
{
    mkdir("ck", 0777);
    char path[8192], sum[64]; /* (gcc cannot bound the name here) */
    FILE *sums = with_sums ? NULL : fopen("ck/checksums.tsv", "wb");
    if (sums) fprintf(sums, "# skit train checksums\nfield\tvalue\n");
    for (int i = 0; i < count; i++) {
        snprintf(path, sizeof path, "ck/%s", files[i].name);
        FILE *f = fopen(path, "wb");
        if (!f) abort();
        fwrite(files[i].bytes, 1, files[i].size, f);
        fclose(f);
        cli_digest_text(files[i].bytes, files[i].size, sum, sizeof sum);
        if (sums) fprintf(sums, "%s\t%s\n", files[i].name, sum);
    }
    if (sums) fclose(sums);
}

int skit_fuzz_checkpoint(const uint8_t *data, size_t size)
{
    ck_file files[64];
    int with_sums, count = checkpoint_files(data, size, files, 64, &with_sums);
    if (count < 0) return -1;
    init_once();
    reset_workdir();
    checkpoint_build(files, count, with_sums);
    cli_set_context("skit train");
    skit_clear_error();
    char *out_text, *err_text;
    size_t out_len, err_len;
    int rc = run_captured(run_load_checkpoint, "ck", &out_text, &out_len, &err_text, &err_len);
    const char *label = "train --resume";
    size_t lines = 0;
    for (size_t i = 0; i < err_len; i++) lines += err_text[i] == '\n';
    if (rc != CLI_OK && rc != CLI_FAILED && rc != CLI_USAGE)
        skit_fuzz_fail(label, data, size, "exit status %d (stderr: %s)", rc, err_text);
    if (rc == CLI_USAGE && (lines != 1 || strncmp(err_text, "skit train: ", 12) != 0))
        skit_fuzz_fail(label, data, size, "exit 2 with %zu lines on stderr, not one naming skit train: %s", lines, err_text);
    if (rc == CLI_OK && err_len)
        skit_fuzz_fail(label, data, size, "exit 0 with a message: %s", err_text);
    if (out_len) skit_fuzz_fail(label, data, size, "wrote to stdout: %s", out_text);
    DIR *d = opendir("ck");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) skit_fuzz_fail(label, data, size, "left the temporary file '%s'", e->d_name);
    if (d) closedir(d);
    free(out_text);
    free(err_text);
    return 0;
}
