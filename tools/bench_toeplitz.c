#include "config.h"
#include "bench.h"
#include "cli.h"
int bench_toeplitz(int argc, char **argv) { (void)argc; (void)argv; return cli_failure("not built yet"); }
