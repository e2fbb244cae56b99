import numpy as np
import pytest

import skit
from conftest import rel


def numpy_mlp(params, x, in_dim, width, layers, out_dim, act, norm):
    """The architecture of skit/mlp.h in numpy, from the flat parameter vector."""
    dims = [in_dim] + [width] * (layers + 1) + [out_dim]
    mats, at = [], 0
    for a, b in zip(dims[:-1], dims[1:]):
        w = params[at:at + a * b].reshape(b, a)
        at += a * b
        mats.append((w, params[at:at + b]))
        at += b
    assert at == params.size
    h = x @ mats[0][0].T + mats[0][1]
    for w, b in mats[1:]:
        if norm == "rms":
            h = h / (np.linalg.norm(h, axis=-1, keepdims=True) / np.sqrt(width) + 1e-8)
        elif norm == "layer":
            h = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5)
        h = {"relu": lambda z: np.maximum(z, 0), "silu": lambda z: z / (1 + np.exp(-z))}[act](h)
        h = h @ w.T + b
    return h


@pytest.mark.parametrize("act,norm", [("relu", "rms"), ("silu", "layer"), ("relu", "none")])
def test_mlp_matches_numpy(rng, act, norm):
    mlp = skit.MLP(2, 16, 2, 3, activation=act, norm=norm, seed=int(rng.integers(1 << 30)))
    x = rng.standard_normal((50, 2))
    want = numpy_mlp(mlp.parameters, x, 2, 16, 2, 3, act, norm)
    assert rel(mlp(x), want) < 1e-12
    new = rng.standard_normal(mlp.parameter_count)
    mlp.parameters = new
    assert rel(mlp.parameters, new) == 0
    assert rel(mlp(x), numpy_mlp(new, x, 2, 16, 2, 3, act, norm)) < 1e-12


def test_taylor_against_finite_differences(rng):
    mlp = skit.MLP(1, 8, 1, 2, activation="silu", norm="rms", seed=3)
    x0 = float(rng.uniform(-2, 2))
    derivs, kink = mlp.taylor(x0, 2)
    h = 1e-4
    f = lambda x: mlp(np.array([x]))[0]
    assert rel(derivs[0], f(x0)) < 1e-14
    assert rel(derivs[1], (f(x0 + h) - f(x0 - h)) / (2 * h)) < 1e-6
    assert rel(derivs[2], (f(x0 + h) - 2 * f(x0) + f(x0 - h)) / h**2) < 1e-3
    assert not kink


def test_relu_breakpoints():
    mlp = skit.MLP(1, 6, 0, 1, activation="relu", norm="none", seed=5)
    breaks = mlp.relu_breakpoints(-10, 10)
    assert np.all(np.diff(breaks) > 0)
    assert mlp.pwl_interpolation_error(-10, 10, breaks) < 1e-12


def test_mlp_errors():
    with pytest.raises(ValueError) as err:
        skit.MLP(0, 4, 1, 1)
    assert err.value.status_name == "SKIT_EDOM" and "in_dim" in str(err.value)
    with pytest.raises(ValueError, match="activation"):
        skit.MLP(1, 4, 1, 1, activation="tanh")
