# lib/spectral.mk — files of this area (see Makefile.am)
