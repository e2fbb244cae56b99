# tests/freq.mk — tests of this area (included from tests/tests.mk)
check_PROGRAMS += tests/test_mlp
tests_test_mlp_SOURCES = tests/test_mlp.c tests/check_util.h
tests_test_mlp_CFLAGS = $(TEST_CFLAGS)
tests_test_mlp_LDADD = $(TEST_LDADD)
TESTS += tests/test_mlp
check_PROGRAMS += tests/test_freq
tests_test_freq_SOURCES = tests/test_freq.c tests/check_util.h
tests_test_freq_CFLAGS = $(TEST_CFLAGS)
tests_test_freq_LDADD = $(TEST_LDADD)
TESTS += tests/test_freq
TESTS += tests/cli_freq.sh
EXTRA_DIST += tests/cli_freq.sh
