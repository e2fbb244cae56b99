# tests/threads.mk — one plan executed from two threads at once
check_PROGRAMS += tests/test_threads
tests_test_threads_SOURCES = tests/test_threads.c tests/check_util.h
tests_test_threads_CFLAGS = $(TEST_CFLAGS)
tests_test_threads_LDADD = $(TEST_LDADD) -lpthread
TESTS += tests/test_threads
