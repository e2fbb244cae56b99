"""Input the binding must refuse rather than convert silently: complex
arrays (numpy drops the imaginary part with only a warning) and integers
outside the C type's range (ctypes wraps them: 2**64 + 64 became 64)."""
import numpy as np
import pytest

import skit


def test_complex_coefficients_raise(rng):
    n = 5
    c = rng.standard_normal((2 * n - 1, 2)) + 1j
    with pytest.raises(TypeError, match="complex"):
        skit.ToeplitzPlan(c, n)
    with skit.ToeplitzPlan(c.real, n) as plan:
        with pytest.raises(TypeError, match="complex"):
            plan.set_coeffs(c)
        with pytest.raises(TypeError, match="complex"):
            plan(rng.standard_normal((n, 2)) + 1j)
    with skit.TNOPlan(8, 2, kind="tno", rpe_width=4, rpe_layers=1) as plan:
        with pytest.raises(TypeError, match="complex"):
            plan.set_parameters(plan.parameters + 1j)


@pytest.mark.parametrize("n", [2 ** 64 + 64, -1, 2 ** 70])
def test_sizes_out_of_range_raise(n):
    with pytest.raises(OverflowError, match="out of range"):
        skit.TNOPlan(n, 2, kind="tno")


def test_sizes_of_other_types_raise():
    with pytest.raises(TypeError):
        skit.TNOPlan(8.5, 2, kind="tno")
    with skit.TNOPlan(np.int64(8), np.int32(2), kind="tno") as plan:  # numpy integers are integers
        assert plan.n == 8


def test_float32_overflow_raises(rng):
    """Finite float32 input whose result overflows float32 raises, as the
    CLI exits 1; a NaN already in the input propagates without an error."""
    n = 16
    coeffs = np.full((2 * n - 1, 1), 1e30)
    x = np.full((n, 1), 1e20, dtype=np.float32)  # products of 1e50: past float32's 3.4e38
    with skit.ToeplitzPlan(coeffs, n, dtype=np.float32) as plan:
        with pytest.raises(FloatingPointError, match="float32"):
            plan(x)
        x[3, 0] = np.nan
        y = plan(x)
        assert np.isnan(y).any()
        ok = plan(np.ones((n, 1), dtype=np.float32) * 1e-10)
        assert np.isfinite(ok).all()
    with skit.TNOPlan(8, 2, kind="tno", rpe_width=4, rpe_layers=1, dtype=np.float32) as plan:
        with pytest.raises(FloatingPointError, match="TNOPlan"):
            plan(np.full((8, 2), 3e38, dtype=np.float32))
