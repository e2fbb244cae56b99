# tests/train.mk — `skit train` (included from tests/tests.mk)
TESTS += tests/cli_train.sh
EXTRA_DIST += tests/cli_train.sh
TESTS += tests/cli_train_torch.sh
EXTRA_DIST += tests/cli_train_torch.sh tests/train_torch_step.py
