# tools/toeplitz.mk — subcommands of this area
tools_skit_SOURCES += tools/cmd_toeplitz.c tools/bench_toeplitz.c
# cmd_toeplitz.c calls BLAS directly (--method dense)
tools_skit_LDADD += $(OPENBLAS_LIBS)
# bench_toeplitz.c calls FFTW (the bare r2c floor) and LAPACKE (dgesv) directly
tools_skit_LDADD += $(FFTW_LIBS) $(LAPACKE_LIBS)
