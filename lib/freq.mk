# lib/freq.mk — Hilbert transform, FD-TNO, DTFT decay analysis
skitinclude_HEADERS += lib/skit/freq.h
libskit_la_SOURCES += lib/freq/hilbert.c lib/freq/fdtno.c lib/freq/fdtno_spectra.c \
	lib/freq/fdtno_spectraf.c lib/freq/decay.c lib/freq/extended.c
noinst_HEADERS += lib/freq/extended.h lib/freq/freq_internal.h
