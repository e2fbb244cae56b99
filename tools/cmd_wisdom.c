/* cmd_wisdom.c — `skit wisdom`: plan the FFT lengths skit uses with a
 * patient planner once, and keep FFTW's wisdom in a file, as fftw-wisdom
 * does; later runs import it (--wisdom FILE or $SKIT_WISDOM) and plan
 * those lengths in microseconds with the measured algorithms. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "commands.h"

static const char *usage =
    "usage: skit wisdom -o FILE [--sizes LIST] [--planner P] [--precision P]\n"
    "Plan the real FFTs (r2c and c2r, out of place, 64-byte aligned: the\n"
    "transforms of skit's circulant engine) of every length in LIST with the\n"
    "planner P and write FFTW's wisdom to FILE (atomically; wisdom already in\n"
    "FILE, and in $SKIT_WISDOM, is kept; concurrent writers of FILE take turns\n"
    "and each keeps the others' wisdom; a symbolic link is written through):\n"
    "double (fftw) and float (fftwf, the\n"
    "--precision f32 plans) wisdom, one after the other in the file. Prints\n"
    "each length's planning time.\n"
    "An n x n Toeplitz matvec uses the length 2n (n a power of two; else the\n"
    "smallest 2^a 3^b 5^c 7^d >= 2n - 1), FD-TNO the power of two >= 2n.\n\n"
    "options:\n"
    "  -o, --output FILE   the wisdom file (required)\n"
    "  --sizes LIST        FFT lengths, e.g. 2^11..2^21 or 2048,6000 (default 2^11..2^21:\n"
    "                      the Toeplitz matvecs of n = 2^10..2^20)\n"
    "  --planner P         measure (default), patient or exhaustive\n"
    "  --precision P       both (default), f64 or f32: which engines' transforms\n"
"  --plan-seconds S    at most S seconds per transform (default: no limit)\n"
    "  --threads N         OpenMP threads (wisdom does not depend on them)\n"
    "  --quiet             no progress on stderr\n"
    "\nexample:\n"
    "  skit wisdom -o ~/.skit-wisdom --sizes 2^11..2^21 --planner measure\n"
    "  SKIT_WISDOM=~/.skit-wisdom skit bench toeplitz\n";

typedef struct wisdom_options {
    cli_common common;
    const char *sizes_text;
    skit_planner planner;
    int f64, f32; /* which engines' transforms */
} wisdom_options;

/* One option (cli_options.apply): -1 for the common ones. */
static int wisdom_option(void *ctx, int opt, const char *arg)
{
    wisdom_options *w = ctx;
    switch (opt) {
    case 0x2001: w->sizes_text = arg; return CLI_OK;
    case 0x2002:
        if (cli_parse_planner("--planner", arg, &w->planner) != CLI_OK) return CLI_USAGE;
        if (w->planner == SKIT_PLANNER_ESTIMATE || w->planner == SKIT_PLANNER_WISDOM_ONLY)
            return cli_usage_error("--planner: '%s' adds no wisdom: need measure, patient or exhaustive", arg);
        return CLI_OK;
    case 0x2003:
        w->f64 = !strcmp(arg, "both") || !strcmp(arg, "f64");
        w->f32 = !strcmp(arg, "both") || !strcmp(arg, "f32");
        if (!w->f64 && !w->f32) return cli_usage_error("--precision: '%s' unknown: need both, f64 or f32", arg);
        return CLI_OK;
    }
    return -1;
}

/* Plans every length in both precisions asked for, one row each. */
static int plan_lengths(const wisdom_options *w, const size_t *sizes, size_t count)
{
    printf("# skit wisdom: FFTW planner %s, real r2c + c2r pairs\nfft_length\tprecision\tplan_s\n",
           skit_planner_name(w->planner));
    /* a patient or exhaustive plan of one long length takes minutes: the
     * heartbeat names it meanwhile */
    cli_progress_start(&w->common);
    for (size_t i = 0; i < 2 * count; i++) {
        const int single = (int)(i % 2);
        if (!(single ? w->f32 : w->f64)) continue;
        const size_t N = sizes[i / 2];
        cli_progress("planning length %zu (%s)", N, single ? "f32" : "f64");
        double seconds = 0;
        int st = single ? skit_fft_plan_length_f32(N, w->planner, &seconds)
                        : skit_fft_plan_length(N, w->planner, &seconds);
        if (st != SKIT_OK) return cli_library_error(st);
        printf("%zu\t%s\t%.6g\n", N, single ? "f32" : "f64", seconds);
    }
    cli_progress_done();
    return CLI_OK;
}

/* Refuses up front (exit 2) a length whose planning would not fit in
 * memory: the planner's buffer (N reals and N/2 + 1 complex) and as much
 * again for FFTW's own scratch while it measures, in the wider precision
 * asked for. */
static int check_memory(const wisdom_options *w, const size_t *sizes, size_t count)
{
    size_t longest = 0;
    for (size_t i = 0; i < count; i++) longest = sizes[i] > longest ? sizes[i] : longest;
    const size_t width = w->f64 ? sizeof(double) : sizeof(float);
    size_t bytes;
    if (skit_size_mul(longest, 4 * width, &bytes)) bytes = SIZE_MAX;
    char what[96];
    snprintf(what, sizeof what, "--sizes: planning length %zu", longest);
    if (skit_memory_check(bytes, what) != SKIT_OK) return cli_usage_error("%s", skit_last_error());
    return CLI_OK;
}

int cmd_wisdom(int argc, char **argv)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"sizes", required_argument, NULL, 0x2001},
                                             {"planner", required_argument, NULL, 0x2002},
                                             {"threads", required_argument, NULL, 0x1003},
                                             {"quiet", no_argument, NULL, 0x1004},
                                             {"plan-seconds", required_argument, NULL, 0x1007},
                                             {"precision", required_argument, NULL, 0x2003},
                                             {NULL, 0, NULL, 0}};
    wisdom_options w = {.sizes_text = "2^11..2^21", .planner = SKIT_PLANNER_MEASURE, .f64 = 1, .f32 = 1};
    cli_common_init(&w.common);
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &w.common,
                                .apply = wisdom_option, .ctx = &w};
    int status = cli_parse_options(&parser, argc, argv);
    if (status != CLI_OK) return status == CLI_HELP ? CLI_OK : status;
    if (!w.common.output) return cli_usage_error("-o: missing (the wisdom file to write)");
    if (cli_check_output_path("-o", w.common.output) != CLI_OK) return CLI_USAGE;
    size_t *sizes = NULL, count = 0;
    if (cli_parse_size_list("--sizes", w.sizes_text, 2, (size_t)1 << 30, &sizes, &count) != CLI_OK)
        return CLI_USAGE;
    if (check_memory(&w, sizes, count) != CLI_OK) {
        free(sizes);
        return CLI_USAGE;
    }
    /* reads $SKIT_WISDOM and the file itself, which cli_planner_finish
     * writes back with the new lengths */
    w.common.planner = w.common.planner_default = w.planner;
    w.common.wisdom = w.common.output;
    status = cli_planner_setup(&w.common);
    cli_apply_threads(&w.common);
    if (status == CLI_OK) status = plan_lengths(&w, sizes, count);
    free(sizes);
    return status;
}
