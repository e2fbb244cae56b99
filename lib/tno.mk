# lib/tno.mk — files of this area (see Makefile.am)
