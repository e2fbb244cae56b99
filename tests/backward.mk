# tests/backward.mk — the backward passes (included from tests/tests.mk):
# the unit tests share tools/gradcheck.c with `skit grad-check`
check_PROGRAMS += tests/test_backward
tests_test_backward_SOURCES = tests/test_backward.c tests/check_util.h tools/gradcheck.c tools/gradcheck_f32.c tools/gradcheck.h cli/fdiff.c cli/fdiff.h
tests_test_backward_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/tools
tests_test_backward_LDADD = $(TEST_LDADD)
TESTS += tests/test_backward
TESTS += tests/cli_grad.sh
EXTRA_DIST += tests/cli_grad.sh
