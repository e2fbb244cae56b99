# tools/toeplitz.mk — subcommands of this area
tools_skit_SOURCES += tools/cmd_toeplitz.c
# cmd_toeplitz.c calls BLAS directly (--method dense)
tools_skit_LDADD += $(OPENBLAS_LIBS)
