"""A plan shared by threads: close() while another thread executes waits
for it (never frees the C object under a running call), calls after close
raise, and 8 threads on one plan give the single-thread result."""
import threading

import numpy as np
import pytest

import skit


def _plans(rng):
    n, d = 4096, 16  # a call long enough to be caught running
    coeffs = rng.standard_normal((2 * n - 1, d))
    yield "toeplitz", skit.ToeplitzPlan(coeffs, n), rng.standard_normal((n, d))
    yield "tno", skit.TNOPlan(n, d, kind="fd", rpe_width=8, rpe_layers=1), rng.standard_normal((n, d))


def test_close_during_execute_waits(rng):
    for name, plan, x in _plans(rng):
        want = plan(x)
        started, results, errors = threading.Event(), [], []

        def run():
            started.set()
            try:
                for _ in range(20):
                    results.append(plan(x))
            except ValueError as error:  # closed between two calls: refused, not freed
                errors.append(error)

        worker = threading.Thread(target=run)
        worker.start()
        started.wait()
        plan.close()
        worker.join()
        assert plan.closed, name
        for y in results:  # every call that ran did so on a live plan
            np.testing.assert_array_equal(y, want)
        assert all("closed" in str(e) for e in errors), (name, errors)
        with pytest.raises(ValueError, match="closed"):
            plan(x)


def test_eight_threads_agree(rng):
    for name, plan, x in _plans(rng):
        with plan:
            want = plan(x)
            out = [None] * 8

            def run(i):
                out[i] = plan(x)

            threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for y in out:
                np.testing.assert_array_equal(y, want, err_msg=name)
