/* main.c — the skit-train program (also run as `skit train`). */
#include "config.h"

#include "cli/cli.h"
#include "train.h"

int main(int argc, char **argv)
{
    static const cli_command train = {"train", "train a small TNN language model on CPU", cmd_train};
    return cli_program_main(&train, "skit-train", argc, argv);
}
