# lib/spectral.mk — files of this area (see Makefile.am)
skitinclude_HEADERS += lib/skit/spectral.h
