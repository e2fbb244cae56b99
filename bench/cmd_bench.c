/* cmd_bench.c — `skit bench <target>`: dispatch to one benchmark per area. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "cli/cli.h"

static const struct {
    const char *name, *summary;
    int (*run)(int, char **);
} targets[] = {
    {"toeplitz", "dense vs FFT matvec vs scipy, Levinson vs dgesv, bare FFTW floor", bench_toeplitz},
    {"ski", "SKI action vs FFT Toeplitz matvec, time vs n", bench_ski},
    {"tno", "TNO / SKI-TNO / FD-TNO vs the bare Toeplitz FFT matvec", bench_tno},
    {"mra", "MRA-2 / MRA-2-s vs exact attention and baselines", bench_mra},
    {"precision", "float32 vs float64: Toeplitz matvec, TNO, FD-TNO, exact attention", bench_precision},
    {"device", "CPU vs CUDA GPU: Toeplitz matvec, exact attention, MRA-2, bandwidth floor", bench_device},
    {NULL, NULL, NULL},
};

static void print_usage(FILE *f)
{
    fprintf(f, "usage: skit bench <target> [options]     skit bench <target> --help\n"
               "       skit bench --device cpu,cuda [options]   (= skit bench device --device ...)\n\n"
               "Times operators (median of repeats after warm-up, setup outside the timer)\n"
               "and, in the same run, the floors and peers they are compared with.\n\ntargets:\n");
    for (size_t i = 0; targets[i].name; i++) fprintf(f, "  %-10s %s\n", targets[i].name, targets[i].summary);
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2) return cli_usage_error("missing target (see 'skit bench --help' for the list)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        print_usage(stdout);
        return CLI_OK;
    }
    /* `skit bench --device cpu,cuda ...` is `skit bench device --device cpu,cuda ...` */
    if (!strcmp(argv[1], "--device") || !strncmp(argv[1], "--device=", 9)) {
        cli_set_context("skit bench device");
        return bench_device(argc, argv);
    }
    for (size_t i = 0; targets[i].name; i++)
        if (!strcmp(argv[1], targets[i].name)) {
            static char ctx[64];
            snprintf(ctx, sizeof ctx, "skit bench %s", targets[i].name);
            cli_set_context(ctx);
            argv[1] = ctx; /* provenance: "skit bench <target> ..." */
            return targets[i].run(argc - 1, argv + 1);
        }
    return cli_usage_error("unknown target '%s' (see 'skit bench --help')", argv[1]);
}
