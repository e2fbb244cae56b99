# tests/tno.mk — tests of this area (included from tests/tests.mk)
check_PROGRAMS += tests/test_tno
tests_test_tno_SOURCES = tests/test_tno.c tests/check_util.h tests/tno_util.h
tests_test_tno_CFLAGS = $(TEST_CFLAGS)
tests_test_tno_LDADD = $(TEST_LDADD)
TESTS += tests/test_tno
check_PROGRAMS += tests/test_tno_f32
tests_test_tno_f32_SOURCES = tests/test_tno_f32.c tests/check_util.h tests/tno_util.h
tests_test_tno_f32_CFLAGS = $(TEST_CFLAGS)
tests_test_tno_f32_LDADD = $(TEST_LDADD)
TESTS += tests/test_tno_f32
TESTS += tests/cli_tno.sh
EXTRA_DIST += tests/cli_tno.sh
