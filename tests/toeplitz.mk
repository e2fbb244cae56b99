# tests/toeplitz.mk — tests of this area (included from tests/tests.mk)
check_PROGRAMS += tests/test_toeplitz
tests_test_toeplitz_SOURCES = tests/test_toeplitz.c tests/check_util.h
tests_test_toeplitz_CFLAGS = $(TEST_CFLAGS)
tests_test_toeplitz_LDADD = $(TEST_LDADD)
TESTS += tests/test_toeplitz
TESTS += tests/cli_toeplitz.sh tests/cli_wisdom.sh
EXTRA_DIST += tests/cli_toeplitz.sh tests/cli_wisdom.sh
TESTS += tests/cli_bench_toeplitz.sh
EXTRA_DIST += tests/cli_bench_toeplitz.sh
