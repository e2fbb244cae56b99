import os
import sys

import numpy as np
import pytest

# the package of this source tree, whatever is installed
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


@pytest.fixture
def rng():
    # fresh inputs on every run; the seed is printed on failure
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"numpy seed {seed}")
    return np.random.default_rng(seed)


SIZES = [1, 2, 7, 16, 31, 64, 97]


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    scale = max(np.abs(b).max(), 1e-300)
    return np.abs(a - b).max() / scale


def check_float32_plan(plan, plan32, x):
    """A float32 plan (dtype=float32) against its float64 twin on float32 x:
    float32 out, close to the float64 result, fewer bytes, and float64 data
    refused."""
    y32 = plan32(x)
    assert y32.dtype == np.float32
    assert rel(y32, plan(x.astype(np.float64))) < 1e-5
    assert plan32.nbytes < plan.nbytes
    with pytest.raises(TypeError, match="float32"):
        plan32(x.astype(np.float64))
