# tests/cli.mk — CLI tests (tests/cli_*.sh), run with bash; $SKIT is the binary
TESTS += tests/cli_basic.sh
TESTS += tests/cli_reliability.sh
# experiments split into units: shards and merge give a whole run's data
TESTS += tests/cli_units.sh
# long commands say their cost and show progress within 2 s
TESTS += tests/cli_progress.sh
# README.md and docs/cli.md: their examples run and print what they show
TESTS += tests/readme.sh
# outputs that are not regular files (-o /dev/null as root, FIFOs, links)
TESTS += tests/cli_devnull.sh
# skit reproduce --slurm on a single-node Slurm cluster started by the test
# (root; installs Debian's slurmd, slurmctld, munge, slurm-client if missing)
TESTS += tests/cli_slurm.sh
# the committed report obeys the verdict rule (controls) and matches a rerun
# of the fast deterministic experiments
TESTS += tests/report_committed.sh
