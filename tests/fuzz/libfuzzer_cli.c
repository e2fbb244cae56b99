/* libfuzzer_cli.c — libFuzzer entry point for the command lines of the skit
 * subcommands (make fuzz). SKIT_FUZZ_COMMAND=<name> fuzzes one subcommand
 * (the input holds its arguments); unset, the input's first word names it.
 * SKIT_FUZZ_LIST_COMMANDS=1 prints the subcommand names and exits (the run
 * script fuzzes each of them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *command;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (getenv("SKIT_FUZZ_LIST_COMMANDS")) {
        for (const cli_command *c = cli_commands; c->name; c++) printf("%s\n", c->name);
        printf("merge\n"); /* reproduce --merge over a fuzzed output directory */
        exit(0);
    }
    const char *env = getenv("SKIT_FUZZ_COMMAND");
    command = env && *env ? env : NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (command && !strcmp(command, "merge")) return skit_fuzz_merge(data, size);
    return skit_fuzz_cli(command, data, size);
}
