import os
import sys

import numpy as np
import pytest

# the package of this source tree, whatever is installed
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def run_seed():
    """SKIT_TEST_SEED if set (as the C suites read it), else a fresh seed;
    printed either way (pytest shows it with a failure's output)."""
    env = os.environ.get("SKIT_TEST_SEED", "")
    seed = int(env) if env else int.from_bytes(os.urandom(8), "little")
    print(f"numpy seed {seed} (SKIT_TEST_SEED={seed} reruns it)")
    return seed


@pytest.fixture
def rng():
    # fresh inputs on every run unless SKIT_TEST_SEED repeats one
    return np.random.default_rng(run_seed())


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


def recording(monkeypatch, name):
    """Wrap the C function `name` so that the arguments it receives (the
    pointers among them) are recorded: the list they are appended to."""
    from skit import _lib
    seen, original = [], getattr(_lib.lib, name)

    def wrapper(*args):
        seen.append(args)
        return original(*args)
    monkeypatch.setattr(_lib.lib, name, wrapper)
    return seen


def check_rows_in_place(monkeypatch, name, rows, cols, x):
    """A plan in the rows layout (rows) hands the C function `name` every
    (n, d) block of the C-ordered x at its own address with leading
    dimension d, returns C order, and agrees with the columns-layout plan
    (cols) on the same values."""
    import numpy as np
    from skit import _array
    seen = recording(monkeypatch, name)
    n, d = x.shape[-2:]
    y = rows(x)
    batch = int(np.prod(x.shape[:-2], dtype=np.int64))
    assert [s[1] for s in seen] == [_array.pointer(x) + x.itemsize * n * d * b for b in range(batch)]
    assert all(s[2] == d and s[4] == d for s in seen) and y.flags.c_contiguous
    assert rel(y, cols(x)) <= (1e-6 if x.dtype == np.float32 else 1e-15)
