import numpy as np
import pytest
import scipy.signal

import skit
from skit import freq
from conftest import SIZES, check_float32_plan, check_rows_in_place, rel


@pytest.mark.parametrize("n", SIZES)
def test_hilbert_matches_scipy(rng, n):
    x = rng.standard_normal((3, n))
    want = np.imag(scipy.signal.hilbert(x, axis=-1))
    assert np.abs(skit.hilbert(x) - want).max() < 1e-12 * max(1, np.abs(x).max())
    spec = freq.causal_spectrum(x[0])
    assert rel(spec, x[0] - 1j * want[0]) < 1e-12 if n > 1 else True


def test_hilbert_definition_converges(rng):
    n = 64
    x = np.cos(2 * np.pi * 5 * np.arange(n) / n)
    fft = skit.hilbert(x)
    wide = skit.hilbert(x, method="definition", lag_window=1 << 16)
    assert rel(wide, fft) < 1e-2


def test_causal_kernel_from_real_response(rng):
    n = 64
    r = rng.standard_normal(n // 2 + 1)
    even = np.concatenate([r, r[1:-1][::-1]])  # even response: real kernel
    k = freq.spectrum_impulse(freq.causal_spectrum(even))
    assert freq.causality_residual(k) < 1e-28
    assert np.abs(k.imag).max() < 1e-12


@pytest.mark.parametrize("n,d,causal", [(16, 1, False), (31, 3, True), (64, 2, False)])
def test_fdtno_is_the_toeplitz_of_its_impulse(rng, n, d, causal):
    plan = freq.FDTNOPlan(n, d, causal=causal)
    N = plan.fft_length
    assert N >= 2 * n and plan.grid.shape == (N // 2 + 1,)
    plan.set_response(rng.standard_normal((N // 2 + 1, plan.response_width)))
    k = plan.impulse()
    x = rng.standard_normal((2, n, d))
    y = plan(x)
    lags = np.arange(n)[:, None] - np.arange(n)[None, :]
    for c in range(d):
        T = k[lags % N, c]
        if causal:
            T = np.tril(T)
        assert rel(y[..., c], x[..., c] @ T.T) < 1e-12


@pytest.mark.parametrize("causal", [False, True])
def test_fdtno_float32(rng, causal):
    n, d = 37, 2
    plan = freq.FDTNOPlan(n, d, causal=causal)
    plan32 = freq.FDTNOPlan(n, d, causal=causal, dtype=np.float32)
    response = rng.standard_normal((plan.grid.shape[0], plan.response_width))
    plan.set_response(response)
    plan32.set_response(response)
    assert rel(plan32.impulse(), plan.impulse()) < 1e-5
    check_float32_plan(plan, plan32, rng.standard_normal((3, n, d)).astype(np.float32))


def test_decay_tools():
    n = np.arange(200)
    fit = freq.decay_fit(np.exp(-0.1 * n), 5, 150, 1e-300)
    assert abs(fit["exp_rate"] - 0.1) < 1e-9 and fit["class"] in ("exponential",)
    assert freq.decay_bound(2 * np.pi, 2, 10) == pytest.approx(0.01)
    mlp = skit.MLP(1, 8, 1, 2, activation="silu", norm="none", seed=2)
    norms = freq.derivative_norms(mlp, "full", 3, 2048)
    assert norms.shape == (4, 2) and (norms >= 0).all()
    omega, resp = freq.frequency_response(mlp, "half", 33)
    assert omega[0] == 0 and abs(omega[-1] - np.pi) < 1e-15 and rel(resp, mlp(omega)) < 1e-14
    k = freq.frequency_impulse(mlp, "half", 4096)
    energy = freq.frequency_energy(mlp, "half", 1 << 14)
    assert rel((np.abs(k) ** 2).sum(axis=0), energy) < 1e-3  # Parseval


def test_circle_samples_and_parseval(rng):
    mlp = skit.MLP(1, 8, 1, 1, activation="silu", norm="none", seed=9)
    N = 256
    s = freq.circle_samples(mlp, "half", N)[:, 0]
    k = freq.frequency_impulse(mlp, "half", N)[:, 0]
    assert rel(np.fft.ifft(s), k) < 1e-12
    assert freq.parseval_difference(s, k) < 1e-12


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fdtno_rows_in_place(rng, monkeypatch, dtype):
    """The rows layout (the default) hands the library C-ordered (..., n,
    d) arrays as they are; the columns layout gives the same values."""
    n, d = 37, 5
    name = "skit_fdtno_plan_execute" + ("_f32" if dtype == np.float32 else "")
    rows, cols = freq.FDTNOPlan(n, d, dtype=dtype), freq.FDTNOPlan(n, d, dtype=dtype, layout="columns")
    response = rng.standard_normal((len(rows.grid), rows.response_width))
    rows.set_response(response)
    cols.set_response(response)
    check_rows_in_place(monkeypatch, name, rows, cols, rng.standard_normal((2, n, d)).astype(dtype))
    with pytest.raises(ValueError, match="layout"):
        freq.FDTNOPlan(n, d, layout="diagonal")
