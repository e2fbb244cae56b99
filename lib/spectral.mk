# lib/spectral.mk — files of this area (see Makefile.am)
libskit_la_SOURCES += lib/spectral/svd.c lib/spectral/lanczos.c
skitinclude_HEADERS += lib/skit/spectral.h
