# lib/freq.mk — files of this area (see Makefile.am)
