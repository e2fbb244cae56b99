# lib/ski.mk — files of this area (see Makefile.am)
skitinclude_HEADERS += lib/skit/ski.h
noinst_HEADERS += lib/ski/ski_internal.h
libskit_la_SOURCES += lib/ski/kernel.c lib/ski/interp.c lib/ski/ski.c lib/ski/ski_sparse.c lib/ski/ski_sparsef.c lib/ski/theorem1.c \
	lib/ski/fit.c lib/ski/study.c
