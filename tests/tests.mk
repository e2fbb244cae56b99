# tests/tests.mk — check suites (one program per area) and CLI tests.
# Each area adds its own fragment below; `make check` runs all of them.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = bash
EXTRA_DIST += tests/check_util.h tests/cli_lib.sh
# every script test is distributed, whichever fragment lists it
EXTRA_DIST += $(filter %.sh,$(TESTS))

# the shared library exports the public API and nothing else
TESTS += tests/exports.sh
# a program using skit as an installed library would: the public header and
# the shared library only (scripts/check-install builds the same file against
# an installed skit with pkg-config)
check_PROGRAMS += tests/example_toeplitz
tests_example_toeplitz_SOURCES = tests/example_toeplitz.c
tests_example_toeplitz_LDADD = libskit.la
TESTS += tests/example_toeplitz

check_PROGRAMS += tests/test_core
tests_test_core_SOURCES = tests/test_core.c tests/check_util.h
tests_test_core_CFLAGS = $(TEST_CFLAGS)
tests_test_core_LDADD = $(TEST_LDADD)
TESTS += tests/test_core

include tests/cli.mk
include tests/figures.mk
include tests/io.mk
include tests/toeplitz.mk
include tests/spectral.mk
include tests/ski.mk
include tests/freq.mk
include tests/attention.mk
include tests/tno.mk
include tests/backward.mk
include tests/train.mk
include tests/threads.mk
include tests/layering.mk
include tests/cuda.mk
include tests/fuzz.mk
include tests/python.mk
