/* placeholder until this area lands; replaced by its implementation */
#include "config.h"
#include "cli.h"
#include "bench.h"
int bench_ski(int argc, char **argv) { (void)argc; (void)argv; return cli_failure("not implemented yet"); }
