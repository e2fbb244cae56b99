# tools/ski.mk — subcommands of this area
tools_skit_SOURCES += tools/cmd_ski.c
