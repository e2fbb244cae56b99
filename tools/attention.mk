# tools/attention.mk — subcommands of this area
tools_skit_SOURCES += tools/cmd_mra.c tools/cmd_mra_appendix.c
