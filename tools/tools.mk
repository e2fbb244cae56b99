# tools/tools.mk — the `skit` command: dispatcher, shared CLI code; each area
# lists its subcommand files in its own fragment below.
tools_skit_SOURCES += tools/skit.c tools/cli.c tools/cli.h tools/bench.c tools/bench.h \
	tools/cmd_reproduce.c tools/cmd_bench.c
include tools/toeplitz.mk
include tools/ski.mk
include tools/freq.mk
include tools/attention.mk
include tools/tno.mk
include tools/cuda.mk
