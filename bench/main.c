/* main.c — the skit-bench program (also run as `skit bench`). */
#include "config.h"

#include "cli/cli.h"
#include "common.h"

int main(int argc, char **argv)
{
    static const cli_command bench = {"bench", "time operators against floors and peers", cmd_bench};
    return cli_program_main(&bench, "skit-bench", argc, argv);
}
