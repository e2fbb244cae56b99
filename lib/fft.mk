# lib/fft.mk — FFT lengths (skit/fft.h), FFTW planning, and the circulant
# engine every FFT-based operator runs on (fft/circulant.h)
skitinclude_HEADERS += lib/skit/fft.h
noinst_HEADERS += lib/fft/circulant.h lib/fft/planner.h lib/fft/correlate.h
libskit_la_SOURCES += lib/fft/length.c lib/fft/planner.c lib/fft/wisdom.c lib/fft/circulant.c lib/fft/circulantf.c \
	lib/fft/correlate.c lib/fft/correlatef.c
