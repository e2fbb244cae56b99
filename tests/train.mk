# tests/train.mk — `skit train` (included from tests/tests.mk)
TESTS += tests/cli_train.sh
EXTRA_DIST += tests/cli_train.sh
TESTS += tests/cli_train_torch.sh
# checkpoints: resume bit for bit, signals, damaged checkpoints, full disk
TESTS += tests/cli_train_resume.sh
EXTRA_DIST += tests/cli_train_resume.sh
# --precision f32: against the float64 model, loss curves, unsupported mixers
TESTS += tests/cli_train_f32.sh
EXTRA_DIST += tests/cli_train_f32.sh
EXTRA_DIST += tests/cli_train_torch.sh tests/train_torch_step.py
# no allocation inside a training step after the first (a counting malloc)
check_PROGRAMS += tests/test_train_alloc
tests_test_train_alloc_SOURCES = tests/test_train_alloc.c tests/check_util.h train/model.c \
	train/model.h train/model_real.h train/data.c train/data.h train/optim.c train/optim.h
tests_test_train_alloc_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/tools
tests_test_train_alloc_LDADD = $(TEST_LDADD)
TESTS += tests/test_train_alloc
# the Markov task's exact masked-LM floor against enumeration
check_PROGRAMS += tests/test_train_data
tests_test_train_data_SOURCES = tests/test_train_data.c tests/check_util.h train/data.c train/data.h
tests_test_train_data_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/tools
tests_test_train_data_LDADD = $(TEST_LDADD)
TESTS += tests/test_train_data
# the --plateau rule on hand-made loss sequences
check_PROGRAMS += tests/test_train_plateau
tests_test_train_plateau_SOURCES = tests/test_train_plateau.c tests/check_util.h train/plateau.c train/plateau.h
tests_test_train_plateau_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/tools
tests_test_train_plateau_LDADD = cli/libskitcli.la $(TEST_LDADD)
TESTS += tests/test_train_plateau
