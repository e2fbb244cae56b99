# tests/train.mk — `skit train` (included from tests/tests.mk)
TESTS += tests/cli_train.sh
EXTRA_DIST += tests/cli_train.sh
