# lib/toeplitz.mk — files of this area (see Makefile.am)
skitinclude_HEADERS += lib/skit/toeplitz.h
libskit_la_SOURCES += lib/toeplitz/dense.c lib/toeplitz/fft.c lib/toeplitz/levinson.c

