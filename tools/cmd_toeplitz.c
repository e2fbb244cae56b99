#include "config.h"
#include "cli.h"
int cmd_toeplitz(int argc, char **argv) { (void)argc; (void)argv; return cli_failure("not built yet"); }
