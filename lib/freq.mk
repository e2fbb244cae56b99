# lib/freq.mk — files of this area (see Makefile.am)
skitinclude_HEADERS += lib/skit/freq.h
skitinclude_HEADERS += lib/skit/mlp.h
noinst_HEADERS += lib/freq/taylor.h lib/freq/freq_internal.h
libskit_la_SOURCES += lib/freq/taylor.c lib/freq/mlp.c lib/freq/hilbert.c lib/freq/fdtno.c lib/freq/decay.c lib/freq/pwl.c
