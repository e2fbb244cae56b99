# tools/tools.mk — the `skit` command: dispatcher, shared CLI code (argument
# parsing, tables, plots); each area lists its subcommand files in its own
# fragment below, the benchmarks theirs in tools/bench/bench.mk.
tools_skit_SOURCES += tools/skit.c tools/cli.c tools/cli.h tools/table.c tools/table.h \
	tools/cmd_reproduce.c tools/reproduce_report.c tools/reproduce_report.h tools/cmd_wisdom.c
include tools/toeplitz.mk
include tools/ski.mk
include tools/freq.mk
include tools/attention.mk
include tools/tno.mk
include tools/grad.mk
include tools/train.mk
include tools/bench/bench.mk
