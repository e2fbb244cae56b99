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
