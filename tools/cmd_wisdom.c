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
    "FILE, and in $SKIT_WISDOM, is kept): double (fftw) and float (fftwf, the\n"
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
    cli_common common;
    cli_common_init(&common);
    const char *sizes_text = "2^11..2^21";
    skit_planner planner = SKIT_PLANNER_MEASURE;
    int f64 = 1, f32 = 1, opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        int handled = cli_common_option(&common, opt, optarg);
        if (handled == CLI_USAGE) return CLI_USAGE;
        if (handled == CLI_OK) continue;
        switch (opt) {
        case 'h': fputs(usage, stdout); return CLI_OK;
        case 0x2001: sizes_text = optarg; break;
        case 0x2002:
            if (cli_parse_planner("--planner", optarg, &planner) != CLI_OK) return CLI_USAGE;
            if (planner == SKIT_PLANNER_ESTIMATE || planner == SKIT_PLANNER_WISDOM_ONLY)
                return cli_usage_error("--planner: '%s' adds no wisdom: need measure, patient or exhaustive",
                                       optarg);
            break;
        case 0x2003:
            f64 = !strcmp(optarg, "both") || !strcmp(optarg, "f64");
            f32 = !strcmp(optarg, "both") || !strcmp(optarg, "f32");
            if (!f64 && !f32) return cli_usage_error("--precision: '%s' unknown: need both, f64 or f32", optarg);
            break;
        default: return cli_usage_error("unknown option or missing value '%s' (see 'skit wisdom --help')",
                                        argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (!common.output) return cli_usage_error("-o: missing (the wisdom file to write)");
    if (cli_check_output_path("-o", common.output) != CLI_OK) return CLI_USAGE;
    size_t *sizes = NULL, count = 0;
    if (cli_parse_size_list("--sizes", sizes_text, 2, (size_t)1 << 30, &sizes, &count) != CLI_OK) return CLI_USAGE;
    /* reads $SKIT_WISDOM and the file itself, which cli_planner_finish
     * writes back with the new lengths */
    common.planner = common.planner_default = planner;
    common.wisdom = common.output;
    int status = cli_planner_setup(&common);
    cli_apply_threads(&common);
    if (status == CLI_OK) printf("# skit wisdom: FFTW planner %s, real r2c + c2r pairs\nfft_length\tprecision\tplan_s\n",
                                 skit_planner_name(planner));
    for (size_t i = 0; status == CLI_OK && i < 2 * count; i++) {
        const int single = (int)(i % 2);
        if (!(single ? f32 : f64)) continue;
        const size_t N = sizes[i / 2];
        if (!common.quiet)
            fprintf(stderr, "%s: planning length %zu (%s) ...\n", cli_context(), N, single ? "f32" : "f64");
        double seconds = 0;
        int st = single ? skit_fft_plan_length_f32(N, planner, &seconds) : skit_fft_plan_length(N, planner, &seconds);
        if (st != SKIT_OK) status = cli_library_error(st);
        else printf("%zu\t%s\t%.6g\n", N, single ? "f32" : "f64", seconds);
    }
    free(sizes);
    return status;
}
