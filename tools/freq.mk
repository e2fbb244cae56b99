# tools/freq.mk — subcommands of this area
tools_skit_SOURCES += tools/cmd_freq.c tools/cmd_analytic.c tools/cmd_decay_extended.c
