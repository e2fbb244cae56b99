# tools/attention.mk — subcommands of this area
# skit mra: options and dispatch (cmd_mra.c), inputs, and the modes by group
tools_skit_SOURCES += tools/cmd_mra.c tools/mra.h tools/mra_inputs.c tools/mra_sweep.c tools/mra_haar.c \
	tools/mra_bounds.c tools/cmd_mra_appendix.c
