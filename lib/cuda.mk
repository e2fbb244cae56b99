# lib/cuda.mk — the optional CUDA backend (see Makefile.am).
#
# lib/cuda/api.c (validation, availability, plan ownership) is built in every
# configuration. With CUDA (configure found nvcc: AM_CONDITIONAL HAVE_CUDA)
# the device code (lib/cuda, .cu files) is compiled by nvcc into the libtool
# convenience library lib/libskit_cuda.la, which libskit.la absorbs; without
# it, lib/cuda/stub.c answers "cuda: not built".
#
# nvcc becomes a libtool compiler through scripts/nvcc-libtool (it forwards
# libtool's -fPIC/-DPIC to the host compiler), so each .cu yields an ordinary
# .lo with a PIC object; SKIT_NVCC_LTFLAGS (-shared, or -prefer-pic for a
# static-only build) makes libtool compile it once — the convenience
# library, and so the static libskit.a, reuses the PIC object (nvcc is slow). nvcc's and the host compiler's warnings are errors under
# --enable-werror (SKIT_NVCC_WARN_FLAGS, set by configure).
skitinclude_HEADERS += lib/skit/cuda.h lib/skit/device.h
noinst_HEADERS += lib/cuda/index_logic.h lib/cuda/mra_logic.h lib/cuda/backend.h \
	lib/cuda/cuda_internal.h
# api.c: validation, availability, skit/device.h; mra_select.c: the MRA
# selection the device plan runs on the host (tested on the CPU everywhere);
# plan_attention.c: the device side of skit_attention_plan
# (options.device = SKIT_DEVICE_CUDA); skit_tno_plan's is lib/tno/device.c
libskit_la_SOURCES += lib/cuda/api.c lib/cuda/mra_select.c lib/cuda/plan_attention.c
EXTRA_DIST += scripts/nvcc-libtool

SKIT_CUDA_SOURCES = lib/cuda/runtime.cu lib/cuda/toeplitz.cu lib/cuda/attention.cu \
	lib/cuda/kernels.cu lib/cuda/mra.cu

if HAVE_CUDA
noinst_LTLIBRARIES += lib/libskit_cuda.la
lib_libskit_cuda_la_SOURCES = $(SKIT_CUDA_SOURCES)
lib_libskit_cuda_la_LIBADD = $(CUDA_LIBS)
libskit_la_LIBADD += lib/libskit_cuda.la $(CUDA_LIBS)
else
libskit_la_SOURCES += lib/cuda/stub.c
EXTRA_DIST += $(SKIT_CUDA_SOURCES)
endif

SUFFIXES = .cu
NVCC_COMPILE = $(SHELL) $(top_srcdir)/scripts/nvcc-libtool $(NVCC) $(DEFS) \
	$(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(CUDA_CFLAGS) -std=c++17 -O3 \
	$(CUDA_ARCH_FLAGS) $(SKIT_NVCC_WARN_FLAGS) $(SKIT_NVCC_VISIBILITY_FLAGS) $(NVCCFLAGS)
AM_V_NVCC = $(am__v_NVCC_@AM_V@)
am__v_NVCC_ = $(am__v_NVCC_@AM_DEFAULT_V@)
am__v_NVCC_0 = @echo "  NVCC    " $@;
am__v_NVCC_1 =

# Explicit header dependencies (automake's dependency tracking does not
# cover a user suffix rule).
$(SKIT_CUDA_SOURCES:.cu=.lo): $(srcdir)/lib/cuda/cuda_internal.h $(srcdir)/lib/cuda/backend.h \
	$(srcdir)/lib/cuda/index_logic.h $(srcdir)/lib/cuda/mra_logic.h $(srcdir)/lib/skit/cuda.h \
	$(srcdir)/lib/skit/core.h $(srcdir)/lib/skit/toeplitz.h $(srcdir)/lib/skit/attention.h \
	$(srcdir)/lib/skit/device.h $(srcdir)/lib/core/internal.h config.h

.cu.lo:
	@$(MKDIR_P) $(@D)
	$(AM_V_NVCC)$(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) \
	  --mode=compile $(NVCC_COMPILE) $(SKIT_NVCC_LTFLAGS) -c -o $@ $<
