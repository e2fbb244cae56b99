# lib/toeplitz.mk — files of this area (see Makefile.am)
