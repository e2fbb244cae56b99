# lib/core.mk — status codes, errors, memory, RNG, atomic output files, layout transposes, small utilities
libskit_la_SOURCES += lib/core/atomic.c lib/core/error.c lib/core/memory.c lib/core/rng.c lib/core/util.c lib/core/workspace.c \
	lib/core/transpose.c lib/core/transposef.c
noinst_HEADERS += lib/core/internal.h lib/core/simd.h lib/core/transpose.h lib/core/xreal.h
skitinclude_HEADERS += lib/skit/core.h
