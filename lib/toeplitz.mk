# lib/toeplitz.mk — Toeplitz matrices (skit/toeplitz.h): dense reference,
# FFT plans (a front-end over lib/fft's engine, or the GPU's), Levinson
skitinclude_HEADERS += lib/skit/toeplitz.h
noinst_HEADERS += lib/toeplitz/toeplitz_internal.h
libskit_la_SOURCES += lib/toeplitz/dense.c lib/toeplitz/fft.c lib/toeplitz/levinson.c lib/toeplitz/solve.c \
	lib/toeplitz/device.c lib/toeplitz/backward.c
