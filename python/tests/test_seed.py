"""The rng fixture's seed: SKIT_TEST_SEED repeats a run's inputs, as in the
C suites; without it every run draws fresh ones."""
import numpy as np

from conftest import run_seed


def test_skit_test_seed_repeats_the_inputs(monkeypatch):
    monkeypatch.setenv("SKIT_TEST_SEED", "18446744073709551557")
    first = np.random.default_rng(run_seed()).standard_normal(4)
    again = np.random.default_rng(run_seed()).standard_normal(4)
    assert np.array_equal(first, again)


def test_without_it_seeds_are_fresh(monkeypatch):
    monkeypatch.delenv("SKIT_TEST_SEED", raising=False)
    assert len({run_seed() for _ in range(4)}) == 4
