# tests/ski.mk — tests of this area (included from tests/tests.mk)
check_PROGRAMS += tests/test_ski
tests_test_ski_SOURCES = tests/test_ski.c tests/check_util.h
tests_test_ski_CFLAGS = $(TEST_CFLAGS)
tests_test_ski_LDADD = $(TEST_LDADD) $(LAPACKE_LIBS) $(OPENBLAS_LIBS)
TESTS += tests/test_ski
TESTS += tests/cli_ski.sh
EXTRA_DIST += tests/cli_ski.sh
