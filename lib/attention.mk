# lib/attention.mk — exact attention, MRA-2 / MRA-2-s, baselines, frame and
# Haar analysis, Lemma 4.1 / Proposition 4.5 evaluators, synthetic inputs;
# device.c and mra_select.c: the plans with options.device = cuda, through
# skit/cuda.h (the MRA selection runs on the host, tested on the CPU)
skitinclude_HEADERS += lib/skit/attention.h
noinst_HEADERS += lib/attention/attention_internal.h
libskit_la_SOURCES += lib/attention/exact.c lib/attention/plan.c lib/attention/mra.c \
	lib/attention/baselines.c lib/attention/frame.c lib/attention/bounds.c \
	lib/attention/synthetic.c lib/attention/device.c lib/attention/mra_select.c
libskit_la_SOURCES += lib/attention/budget.c lib/attention/backward.c lib/attention/mra_backward.c \
	lib/attention/mra_backward_blocked.c
# float32 exact attention and MRA-2 (sgemm, float tiles) and their backwards
libskit_la_SOURCES += lib/attention/exact_f32.c lib/attention/mra_f32.c \
	lib/attention/backward_f32.c lib/attention/mra_backward_f32.c
# App. A.5 / A.2 evaluators (MRA's appendix)
libskit_la_SOURCES += lib/attention/haar_bounds.c lib/attention/sparse_lowrank.c
