# tools/tools.mk — the `skit` command: dispatcher, shared CLI code, subcommands
tools_skit_SOURCES += tools/skit.c tools/cli.c tools/cli.h tools/bench.c tools/bench.h \
	tools/cmd_reproduce.c tools/cmd_bench.c \
	tools/cmd_toeplitz.c tools/bench_toeplitz.c
