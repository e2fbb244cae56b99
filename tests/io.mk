# tests/io.mk — tests of this area (included from tests/tests.mk)
check_PROGRAMS += tests/test_io
tests_test_io_SOURCES = tests/test_io.c tests/check_util.h
tests_test_io_CFLAGS = $(TEST_CFLAGS)
tests_test_io_LDADD = $(TEST_LDADD)
TESTS += tests/test_io
