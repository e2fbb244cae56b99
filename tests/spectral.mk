# tests/spectral.mk — tests of this area (included from tests/tests.mk)
check_PROGRAMS += tests/test_spectral
tests_test_spectral_SOURCES = tests/test_spectral.c tests/check_util.h
tests_test_spectral_CFLAGS = $(TEST_CFLAGS)
tests_test_spectral_LDADD = $(TEST_LDADD) $(LAPACKE_LIBS) $(OPENBLAS_LIBS)
TESTS += tests/test_spectral
