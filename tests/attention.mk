# tests/attention.mk — tests of this area (included from tests/tests.mk)
check_PROGRAMS += tests/test_attention
tests_test_attention_SOURCES = tests/test_attention.c tests/check_util.h
tests_test_attention_CFLAGS = $(TEST_CFLAGS)
tests_test_attention_LDADD = $(TEST_LDADD)
TESTS += tests/test_attention
# plans in the rows layout against the columns layout
check_PROGRAMS += tests/test_attention_rows
tests_test_attention_rows_SOURCES = tests/test_attention_rows.c tests/check_util.h
tests_test_attention_rows_CFLAGS = $(TEST_CFLAGS)
tests_test_attention_rows_LDADD = $(TEST_LDADD)
TESTS += tests/test_attention_rows
# linformer-fit: the fitted F against an independent least-squares projection
check_PROGRAMS += tests/test_linformer_fit
tests_test_linformer_fit_SOURCES = tests/test_linformer_fit.c tests/check_util.h
tests_test_linformer_fit_CFLAGS = $(TEST_CFLAGS)
tests_test_linformer_fit_LDADD = $(TEST_LDADD)
TESTS += tests/test_linformer_fit
TESTS += tests/cli_attention.sh tests/cli_mra_user.sh tests/minilm.sh
EXTRA_DIST += tests/cli_attention.sh tests/cli_mra_user.sh tests/minilm.sh
# the venv that tests/minilm.sh makes with scripts/minilm-setup (build/pyenv):
# kept by `make clean` (it is a PyPI download), removed by distclean
distclean-local:
	rm -rf pyenv
# MRA appendix evaluators (App. A.5 Haar bound, App. A.2 sparse + low rank)
check_PROGRAMS += tests/test_mra_appendix
tests_test_mra_appendix_SOURCES = tests/test_mra_appendix.c tests/check_util.h
tests_test_mra_appendix_CFLAGS = $(TEST_CFLAGS)
tests_test_mra_appendix_LDADD = $(TEST_LDADD)
TESTS += tests/test_mra_appendix
TESTS += tests/cli_appendix.sh
EXTRA_DIST += tests/cli_appendix.sh
