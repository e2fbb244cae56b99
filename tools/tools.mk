# tools/tools.mk — the `skit` command: dispatcher and subcommands (the
# command-line kit they share is cli/); each area lists its subcommand files
# in its own fragment below. `skit train` and `skit bench` run the programs
# of train/ and bench/.
bin_PROGRAMS += tools/skit
tools_skit_SOURCES += tools/skit.c tools/commands.h \
	tools/cmd_reproduce.c tools/reproduce_report.c tools/reproduce_report.h \
	tools/reproduce_slurm.c tools/reproduce_slurm.h tools/reproduce_units.c tools/cmd_wisdom.c
tools_skit_LDADD = $(SKIT_PROGRAM_LDADD)
tools_skit_LDFLAGS = $(SKIT_PROGRAM_LDFLAGS)
include tools/toeplitz.mk
include tools/ski.mk
include tools/freq.mk
include tools/attention.mk
include tools/tno.mk
include tools/grad.mk
