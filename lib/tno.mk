# lib/tno.mk — token-mixing operators (skit/tno.h): the shared front, one
# file per operator, the RPE of TNO and FD-TNO, the dense reference, and
# the device side
skitinclude_HEADERS += lib/skit/tno.h
noinst_HEADERS += lib/tno/tno_internal.h
libskit_la_SOURCES += lib/tno/plan.c lib/tno/rpe.c lib/tno/tno_fft.c lib/tno/tno_fd.c lib/tno/ski.c \
	lib/tno/ski_causal.c lib/tno/ski_apply.c lib/tno/ski_applyf.c lib/tno/reference.c lib/tno/device.c \
	lib/tno/backward.c lib/tno/spectral_backward.c lib/tno/ski_backward.c lib/tno/ski_backwardf.c
