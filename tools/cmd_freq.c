/* placeholder until this area lands; replaced by its implementation */
#include "config.h"
#include "cli.h"
int cmd_hilbert(int argc, char **argv) { (void)argc; (void)argv; return cli_failure("not implemented yet"); }
int cmd_decay(int argc, char **argv) { (void)argc; (void)argv; return cli_failure("not implemented yet"); }
