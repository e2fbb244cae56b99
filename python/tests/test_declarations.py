"""Every C function the package calls is declared (argument and result
types), so that no ctypes call passes a 64-bit pointer as a 32-bit int;
and the float32 paths those declarations cover run (they crashed while
undeclared)."""
import ctypes
import glob
import importlib
import os
import re

import numpy as np
import pytest

import skit
from skit import _lib

PACKAGE = os.path.dirname(os.path.abspath(skit.__file__))


def names_used():
    """skit_* names the package's sources call or look up by name."""
    used = set()
    for path in glob.glob(os.path.join(PACKAGE, "*.py")):
        text = open(path).read()
        used |= set(re.findall(r"\blib\.(skit_\w+)", text))
        used |= set(re.findall(r"[\"'](skit_\w+)[\"']", text))
    return used


def test_every_function_used_is_declared():
    # importing every module declares its special cases (lib.declare)
    import skit.spectral  # noqa: F401
    declared = set(_lib.lib.declared())
    missing = sorted(name for name in names_used() - declared if _lib.has(name))
    assert not missing, f"called but not declared in skit/_lib.py: {missing}"
    # the f32 execute of every plan the package builds
    for name in ("skit_toeplitz_plan_execute_f32", "skit_toeplitz_plan_execute_transpose_f32",
                 "skit_ski_plan_execute_f32", "skit_fdtno_plan_execute_f32",
                 "skit_attention_plan_execute_f32"):
        assert name in declared, name


def test_undeclared_function_is_refused():
    assert _lib.has("skit_fft_plan_length")  # exported, but the package declares it not
    with pytest.raises(AttributeError, match="not declared"):
        _lib.lib.skit_fft_plan_length


@pytest.mark.parametrize("n", [1, 7, 64, 97])
def test_float32_toeplitz_plan_runs(rng, n):
    d = 3
    coeffs = rng.standard_normal((2 * n - 1, d))
    x = rng.standard_normal((n, d)).astype(np.float32)
    with skit.ToeplitzPlan(coeffs, n, dtype=np.float32) as p32, skit.ToeplitzPlan(coeffs, n) as p64:
        for transpose in (False, True):
            y32 = p32.transpose(x) if transpose else p32(x)
            y64 = p64.transpose(x.astype(np.float64)) if transpose else p64(x.astype(np.float64))
            assert y32.dtype == np.float32
            # skit/toeplitz.h: 20 log2(2N) 2^-24 ||t_c||_1 ||x_c||_2 per channel, N <= 4n
            bound = 20 * np.log2(8 * n) * 2.0 ** -24 * np.abs(coeffs).sum(axis=0) * \
                np.linalg.norm(x.astype(np.float64), axis=0)
            err = np.linalg.norm(y32.astype(np.float64) - y64, axis=0)
            assert np.all(err <= bound), (err, bound)


def test_every_struct_mirror_is_layout_checked():
    """Each ctypes.Structure the package defines is checked against the
    size libskit reports at import (skit_<module>_struct_size)."""
    mirrors = set()
    for path in glob.glob(os.path.join(PACKAGE, "*.py")):
        name = os.path.splitext(os.path.basename(path))[0]
        if name == "torch":
            continue  # imports torch; it defines no struct
        module = importlib.import_module(f"skit.{name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, ctypes.Structure) and value.__module__ == module.__name__:
                mirrors.add(value)
    assert mirrors, "no ctypes.Structure found"
    unchecked = sorted(c.__name__ for c in mirrors - _lib.checked_layouts)
    assert not unchecked, f"struct mirrors not passed through _lib.check_layout: {unchecked}"


def test_layout_mismatch_raises():
    class Short(ctypes.Structure):
        _fields_ = [("kind", ctypes.c_int)]
    with pytest.raises(ImportError, match="skit_tno_options"):
        _lib.check_layout(Short, "tno", "skit_tno_options")
    assert _lib.lib.skit_tno_struct_size(b"no_such_struct") == 0
