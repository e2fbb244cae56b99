# tests/cuda.mk — tests of the CUDA backend (included from tests/tests.mk).
# test_cuda_logic runs everywhere: the kernels' index logic on the CPU and
# every argument check of the API. test_cuda_device compares device results
# with the CPU path and exits 77 (skipped) without a device or a CUDA build.
# cuda_plugin.sh checks that the backend is a plugin libskit loads at run
# time (libskit.so links no CUDA library; a missing plugin is reported),
# with tests/cuda_plugin_probe as its CPU-only program and
# tests/cuda_plugin_other as a plugin from another build.
check_PROGRAMS += tests/test_cuda_logic tests/test_cuda_device tests/cuda_plugin_probe
tests_test_cuda_logic_SOURCES = tests/test_cuda_logic.c tests/check_util.h
tests_test_cuda_logic_CFLAGS = $(TEST_CFLAGS)
tests_test_cuda_logic_LDADD = $(TEST_LDADD)
tests_test_cuda_device_SOURCES = tests/test_cuda_device.c tests/check_util.h
tests_test_cuda_device_CFLAGS = $(TEST_CFLAGS)
tests_test_cuda_device_LDADD = $(TEST_LDADD)
tests_cuda_plugin_probe_SOURCES = tests/cuda_plugin_probe.c
tests_cuda_plugin_probe_LDADD = libskit.la
if HAVE_CUDA
# a plugin whose entry point refuses this libskit (as one from another build)
check_LTLIBRARIES = tests/cuda_plugin_other.la
tests_cuda_plugin_other_la_SOURCES = tests/cuda_plugin_other.c
tests_cuda_plugin_other_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
endif
TESTS += tests/test_cuda_logic tests/test_cuda_device
TESTS += tests/cli_cuda.sh tests/cuda_plugin.sh
EXTRA_DIST += tests/cli_cuda.sh tests/cuda_plugin.sh

# `make cuda-sanitize`: the device tests under compute-sanitizer's four tools
# (on a machine with a GPU; skipped otherwise). Never part of `make check`.
cuda-sanitize: tests/test_cuda_device
	@sanitizer="$(CUDA_PATH)/bin/compute-sanitizer"; \
	if ! test -x "$$sanitizer"; then sanitizer=`command -v compute-sanitizer || true`; fi; \
	if test -z "$$sanitizer"; then echo "cuda-sanitize: compute-sanitizer not found; skipped" >&2; exit 0; fi; \
	for tool in memcheck racecheck initcheck synccheck; do \
	  echo "== compute-sanitizer --tool $$tool" >&2; \
	  SKIT_CUDA_LIBRARY=$(abs_top_builddir)/.libs/libskit-cuda.so \
	  $(LIBTOOL) --mode=execute "$$sanitizer" --tool $$tool --error-exitcode 1 tests/test_cuda_device; \
	  rc=$$?; \
	  if test $$rc -eq 77; then echo "cuda-sanitize: no device; skipped" >&2; exit 0; fi; \
	  test $$rc -eq 0 || exit $$rc; \
	done
.PHONY: cuda-sanitize
