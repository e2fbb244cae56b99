/* skit.c — the `skit` command: dispatch to subcommands. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"

/* `skit train` and `skit bench` run programs of their own (train/, bench/);
 * the fuzz harness links those in and calls them directly. */
#ifdef SKIT_ALIASES_IN_PROCESS
#define run_train cmd_train
#define run_bench cmd_bench
#else
static int run_train(int argc, char **argv) { return cli_exec_program("train", "skit-train", argc, argv); }
static int run_bench(int argc, char **argv) { return cli_exec_program("bench", "skit-bench", argc, argv); }
#endif

/* One line per subcommand; keep in the order `skit help` shows them. */
const cli_command cli_commands[] = {
    {"toeplitz", "Toeplitz matvec / solve on .npy or TSV files", cmd_toeplitz},
    {"ski-bound", "SKI / Nystrom error vs the Theorem 1 bound, every term of the proof", cmd_ski_bound},
    {"hilbert", "discrete Hilbert transform, causal kernels, method agreement vs size", cmd_hilbert},
    {"decay", "MLP frequency response -> impulse response decay vs Theorems 2-4", cmd_decay},
    {"analytic", "MLP frequency response continued to complex omega: contour tests (Lemmas 3-4)", cmd_analytic},
    {"mra", "MRA-2 / MRA-2-s attention vs exact and baselines: error, time, memory", cmd_mra},
    {"mra-appendix", "MRA App. A.5 Haar smoothness bound, App. A.2 sparse + low rank", cmd_mra_appendix},
    {"tno", "token mixers TNO / SKI-TNO / FD-TNO applied to (batch, n, d) data", cmd_tno},
    {"grad-check", "backward passes vs central finite differences (float64)", cmd_grad_check},
    {"train", "train a small TNN language model on CPU (the skit-train program)", run_train},
    {"wisdom", "plan FFT lengths once and keep FFTW's wisdom in a file (like fftw-wisdom)", cmd_wisdom},
    {"bench", "time operators against floors and peers (the skit-bench program)", run_bench},
    {"reproduce", "run every experiment into paper_figures/ and write REPORT.md", cmd_reproduce},
    {NULL, NULL, NULL},
};

static void print_help(FILE *f)
{
    fprintf(f,
            "skit %s — numerical study of structured sequence-mixing operators\n\n"
            "usage: skit <command> [options]      skit <command> --help\n\n"
            "commands:\n",
            skit_version());
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "  %-12s %s\n", c->name, c->summary);
    fprintf(f, "  %-12s %s\n", "help", "this message");
    fprintf(f, "  %-12s %s\n", "version", "print the version");
    fprintf(f, "\nExit status: 0 success, 1 computation failed, 2 bad input (nothing written),\n"
               "3 an output could not be written (disk full, I/O error; nothing written).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        /* bad invocation: one line, like every other usage error */
        return cli_usage_error("missing command: usage: skit <command> [options] (see 'skit help')");
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        if (argc >= 3) {
            for (const cli_command *c = cli_commands; c->name; c++)
                if (!strcmp(c->name, argv[2])) {
                    char *sub[] = {argv[2], "--help", NULL};
                    char ctx[64];
                    snprintf(ctx, sizeof ctx, "skit %s", c->name);
                    cli_set_context(ctx);
                    return c->run(2, sub);
                }
            cli_set_context("skit help");
            return cli_usage_error("unknown command '%s' (see 'skit help')", argv[2]);
        }
        print_help(stdout);
        return CLI_OK;
    }
    if (!strcmp(name, "version") || !strcmp(name, "--version")) {
        printf("skit %s\n", skit_version());
        return CLI_OK;
    }
    for (const cli_command *c = cli_commands; c->name; c++) {
        if (!strcmp(c->name, name)) {
            static char ctx[64];
            snprintf(ctx, sizeof ctx, "skit %s", c->name);
            cli_set_context(ctx);
            /* the subcommand's argv[0] is "skit <name>", so that the TSV
             * provenance header records the command line as typed */
            argv[1] = ctx;
            int status = cli_run_command(c, argc - 1, argv + 1);
            return status == CLI_OK ? cli_planner_finish() : status;
        }
    }
    return cli_usage_error("unknown command '%s' (see 'skit help')", name);
}
