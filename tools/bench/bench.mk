# tools/bench/bench.mk — `skit bench <target>`: the dispatcher, one file per
# benchmark target and their shared timing / peer / floor helpers
# (common.c). `skit bench device` (CPU vs GPU) is built in every
# configuration: without a device it times the CPU side only.
tools_skit_SOURCES += tools/bench/cmd_bench.c tools/bench/common.c tools/bench/common.h \
	tools/bench/bench_toeplitz.c tools/bench/bench_ski.c tools/bench/bench_tno.c tools/bench/bench_tno_peer.c \
	tools/bench/bench_mra.c tools/bench/bench_device.c tools/bench/bench_precision.c
# the floors call FFTW (bare r2c / c2r) and BLAS (GEMM) directly; the
# Toeplitz solve comparison calls LAPACKE (dgesv)
tools_skit_LDADD += $(FFTW_LIBS) $(LAPACKE_LIBS) $(OPENBLAS_LIBS)
