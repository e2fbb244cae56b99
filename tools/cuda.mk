# tools/cuda.mk — subcommands of this area
