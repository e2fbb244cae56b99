# lib/cuda.mk — files of this area (see Makefile.am)
