/* commands.h — the subcommands of `skit` (tools/skit.c holds the table). */
#ifndef SKIT_TOOLS_COMMANDS_H
#define SKIT_TOOLS_COMMANDS_H

#include "cli/cli.h"

extern const cli_command cli_commands[];

int cmd_toeplitz(int argc, char **argv);       /* tools/cmd_toeplitz.c */
int cmd_reproduce(int argc, char **argv);      /* tools/cmd_reproduce.c */
int cmd_ski_bound(int argc, char **argv);      /* tools/cmd_ski.c */
int cmd_hilbert(int argc, char **argv);        /* tools/cmd_hilbert.c */
int cmd_decay(int argc, char **argv);          /* tools/cmd_decay.c */
int cmd_decay_extended(int argc, char **argv); /* tools/cmd_decay_extended.c */
int cmd_analytic(int argc, char **argv);       /* tools/cmd_analytic.c */
int cmd_mra_appendix(int argc, char **argv);   /* tools/cmd_mra_appendix.c */
int cmd_mra(int argc, char **argv);            /* tools/cmd_mra.c */
int cmd_tno(int argc, char **argv);            /* tools/cmd_tno.c */
int cmd_grad_check(int argc, char **argv);     /* tools/cmd_grad.c */
int cmd_wisdom(int argc, char **argv);         /* tools/cmd_wisdom.c */

/* The programs of their own that `skit train` and `skit bench` run
 * (train/, bench/). The fuzz harness links them in and calls them in
 * process (SKIT_ALIASES_IN_PROCESS). */
int cmd_train(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
