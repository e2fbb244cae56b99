# tools/toeplitz.mk — subcommands of this area
tools_skit_SOURCES += tools/cmd_toeplitz.c
