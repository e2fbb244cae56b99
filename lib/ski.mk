# lib/ski.mk — files of this area (see Makefile.am)
