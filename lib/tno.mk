# lib/tno.mk — files of this area (see Makefile.am)
skitinclude_HEADERS += lib/skit/tno.h
noinst_HEADERS += lib/tno/tno_internal.h
libskit_la_SOURCES += lib/tno/tno.c lib/tno/ski_tno.c lib/tno/reference.c
