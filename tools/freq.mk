# tools/freq.mk — subcommands of this area
tools_skit_SOURCES += tools/cmd_hilbert.c tools/cmd_decay.c tools/cmd_decay_extended.c tools/cmd_analytic.c
