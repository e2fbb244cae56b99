# lib/attention.mk — files of this area (see Makefile.am)
