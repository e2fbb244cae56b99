# lib/freq.mk — files of this area (see Makefile.am)
skitinclude_HEADERS += lib/skit/freq.h
skitinclude_HEADERS += lib/skit/mlp.h
