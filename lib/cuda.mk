# lib/cuda.mk — the optional CUDA backend (see Makefile.am).
#
# libskit links no CUDA library. Its side of the backend is plain C, built in
# every configuration: the public entry points of skit/cuda.h and
# skit/device.h (lib/cuda/api.c, plans.c: argument checks, availability, plan
# ownership) and a loader. With CUDA (configure found nvcc: AM_CONDITIONAL
# HAVE_CUDA) the device code — the .cu files and lib/cuda/plugin.c, its
# entry point — is a separate shared library, the plugin libskit-cuda.so
# (a libtool module, no version suffix, installed into $(pkglibdir)), which
# alone links cuFFT, cuBLAS and the CUDA runtime. lib/cuda/loader.c loads it
# with dlopen on the first use of the backend and reaches it through one
# table of functions (lib/cuda/backend.h); it looks at $SKIT_CUDA_LIBRARY
# (make check sets it to the build tree's plugin), then the installed path,
# then the plain name through the dynamic loader. Without CUDA,
# lib/cuda/stub.c answers "cuda: not built".
#
# nvcc becomes a libtool compiler through scripts/nvcc-libtool (it forwards
# libtool's -fPIC/-DPIC to the host compiler), so each .cu yields an ordinary
# .lo; -shared makes libtool compile only the PIC object (nvcc is slow).
# nvcc's and the host compiler's warnings are errors under --enable-werror
# (SKIT_NVCC_WARN_FLAGS, set by configure).
skitinclude_HEADERS += lib/skit/cuda.h lib/skit/device.h
noinst_HEADERS += lib/cuda/index_logic.h lib/cuda/mra_logic.h lib/cuda/backend.h \
	lib/cuda/cuda_internal.h lib/cuda/api.h lib/cuda/plugin.h lib/cuda/mra_rules.h
# api.c, plans.c: validation, availability, the plans of skit/cuda.h; the
# device sides of the Toeplitz, attention and token-mixing plans live with
# their modules (lib/toeplitz/device.c, lib/attention/device.c, lib/tno/device.c)
libskit_la_SOURCES += lib/cuda/api.c lib/cuda/plans.c
EXTRA_DIST += scripts/nvcc-libtool

SKIT_CUDA_SOURCES = lib/cuda/runtime.cu lib/cuda/toeplitz.cu lib/cuda/attention.cu \
	lib/cuda/kernels.cu lib/cuda/mra.cu

if HAVE_CUDA
libskit_la_SOURCES += lib/cuda/loader.c
libskit_la_LIBADD += $(SKIT_DL_LIBS)
pkglib_LTLIBRARIES = libskit-cuda.la
libskit_cuda_la_SOURCES = lib/cuda/plugin.c $(SKIT_CUDA_SOURCES)
libskit_cuda_la_LIBADD = $(CUDA_LIBS) -lpthread
# only the entry point is exported; the plugin needs nothing from libskit
libskit_cuda_la_LDFLAGS = -module -avoid-version -shared -no-undefined -Wl,--no-undefined \
	-export-symbols-regex '^skit_cuda_plugin_init$$'
else
libskit_la_SOURCES += lib/cuda/stub.c
EXTRA_DIST += $(SKIT_CUDA_SOURCES)
endif

# The installed plugin's path for the loader, rewritten whenever configure's
# directories (and so the Makefile) change.
lib/cuda/plugin_path.h: Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && \
	echo '#define SKIT_CUDA_PLUGIN_PATH "$(pkglibdir)/libskit-cuda.so"' > $@-t && mv $@-t $@
BUILT_SOURCES = lib/cuda/plugin_path.h
CLEANFILES += lib/cuda/plugin_path.h

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
	$(srcdir)/lib/cuda/plugin.h $(srcdir)/lib/cuda/mra_rules.h \
	$(srcdir)/lib/cuda/index_logic.h $(srcdir)/lib/cuda/mra_logic.h $(srcdir)/lib/skit/cuda.h \
	$(srcdir)/lib/skit/core.h $(srcdir)/lib/skit/toeplitz.h $(srcdir)/lib/skit/attention.h \
	$(srcdir)/lib/skit/device.h $(srcdir)/lib/core/internal.h config.h

.cu.lo:
	@$(MKDIR_P) $(@D)
	$(AM_V_NVCC)$(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) \
	  --mode=compile $(NVCC_COMPILE) -shared -c -o $@ $<
