import numpy as np
import pytest

import skit
from skit import _array, _lib
from conftest import rel


@pytest.mark.parametrize("kind", ["tno", "fd", "ski"])
@pytest.mark.parametrize("causal", [False, True])
def test_tno_against_dense_reference(rng, kind, causal):
    n, d, batch = 24, 3, 2
    settings = dict(rpe_width=8, rpe_layers=1, rank=6, taps=5, knots=4)
    with skit.TNOPlan(n, d, batch, kind=kind, causal=causal, seed=7, **settings) as plan:
        x = rng.standard_normal((batch, n, d))
        y = plan(x)
        ref, mag = plan.reference(x)
        assert y.shape == (batch, n, d)
        assert (np.abs(y - ref) <= 1e-12 * (mag + 1)).all()
        for c in range(d):
            assert rel(y[..., c], x[..., c] @ plan.dense(c).T) < 1e-11
        if kind != "ski":
            coeffs = plan.coeffs()
            T0 = skit.toeplitz.dense(coeffs[:, 0], n, causal=causal)
            assert rel(T0, plan.dense(0)) < 1e-12
        else:
            with pytest.raises(NotImplementedError):
                plan.coeffs()
        p = plan.parameters
        assert p.size == plan.parameter_count == skit.tno.parameter_count(
            kind, d, causal, **settings)
        plan.set_parameters(p * 0.5)
        if kind != "fd":  # FD's response is not linear in the MLP's parameters
            assert np.isfinite(plan.forward(x)).all()


def test_layouts_zero_copy(rng, monkeypatch):
    n, d = 32, 4
    seen = []
    original = _lib.lib.skit_tno_plan_execute

    def wrapper(*args):
        seen.append(args)
        return original(*args)
    monkeypatch.setattr(_lib.lib, "skit_tno_plan_execute", wrapper)
    rows = skit.TNOPlan(n, d, 2, rpe_width=8, rpe_layers=1)
    x = rng.standard_normal((2, n, d))
    hot = rows._hot
    rows._hot = None  # the general (ctypes) path first
    y = rows(x)
    assert seen[-1][1] == _array.pointer(x) and y.flags.c_contiguous
    if hot is not None:  # the cffi path: same result, x read in place
        addresses = []
        plain_buffer = _lib.hot_buffer

        def recording(array, writable=False):
            buf = plain_buffer(array, writable)
            addresses.append(int(_lib._ffi.cast("uintptr_t", buf)))
            return buf
        monkeypatch.setattr(_lib, "hot_buffer", recording)
        rows._hot = hot
        assert rel(rows(x), y) == 0 and addresses[0] == _array.pointer(x)
        one = skit.TNOPlan(n, d, 1, rpe_width=8, rpe_layers=1)
        assert rel(one(x[0]), one(x[:1])[0]) == 0 and one(x[0]).shape == (n, d)
    chans = skit.TNOPlan(n, d, 1, layout="channels", rpe_width=8, rpe_layers=1)
    xf = np.asfortranarray(rng.standard_normal((n, d)))
    yf = chans(xf)
    assert seen[-1][1] == _array.pointer(xf) and yf.flags.f_contiguous
    chans.parameters = rows.parameters
    assert rel(chans(x[0]), rows(x)[0]) < 1e-12


def test_state_dict_loader(rng):
    torch = pytest.importorskip("torch")
    import skit.torch as st
    n, d = 20, 3
    module = st.TNO(n, d, width=8, layers=2, decay=0.9)
    plan = skit.TNOPlan.from_state_dict(module.rpe.state_dict(), n, d, rpe_width=8,
                                        rpe_layers=2, decay=0.9)
    assert rel(plan.coeffs(), module.coeffs().detach().numpy()) < 1e-12
    x = torch.randn(1, n, d, dtype=torch.float64)
    assert rel(plan(x.numpy()), module(x).detach().numpy()) < 1e-12


def test_tno_errors():
    with pytest.raises(ValueError) as err:
        skit.TNOPlan(16, 2, kind="ski", rank=40)
    assert err.value.status_name == "SKIT_EDOM" and "16" in str(err.value)
    with pytest.raises(ValueError) as err:
        skit.TNOPlan(16, 2, params=np.ones(3))
    assert err.value.status_name == "SKIT_ESHAPE"
    with pytest.raises(ValueError, match="shape"):
        skit.TNOPlan(16, 2, 2)(np.ones((16, 2)))


def test_reference_layout_and_rpe(rng):
    n, d = 10, 2
    plan = skit.TNOPlan(n, d, rpe_width=8, rpe_layers=1)
    c, ref = plan.coeffs(), plan.coeffs_reference()
    assert ref.shape == (2 * n, d)
    assert rel(ref[:n], c[n - 1:]) < 1e-15            # lags 0..n-1
    assert rel(ref[n + 1:], c[:n - 1]) < 1e-15        # lags -(n-1)..-1
    assert plan.eval_rpe() == 2 * n - 1
    plan.update()
    assert rel(plan.coeffs(), c) < 1e-15


def test_float32_never_silent(rng):
    plan = skit.TNOPlan(16, 2, rpe_width=8, rpe_layers=1)
    x = rng.standard_normal((16, 2)).astype(np.float32)
    with pytest.raises(TypeError, match="upcast=True"):
        plan(x)
    y = plan(x, upcast=True)
    assert y.dtype == np.float32 and rel(y, plan(x.astype(np.float64))) < 1e-6
    with pytest.raises(TypeError, match="float32"):
        skit.hilbert(np.ones(8, dtype=np.float32))


@pytest.mark.parametrize("kind,n,settings", [("tno", 97, {}), ("tno", 64, dict(causal=True)),
                                             ("fd", 61, {}), ("fd", 64, dict(causal=True)),
                                             ("ski", 97, dict(rank=16)), ("ski", 64, dict(rank=16, causal=True))])
def test_float32_plan(rng, kind, n, settings):
    """dtype=float32: the library's float32 plan, forward and backward,
    against the float64 plan with the same parameters (float32 bounds of
    skit/tno.h are far below 1e-4 at these sizes)."""
    from conftest import check_float32_plan
    d, batch = 5, 2
    plan = skit.TNOPlan(n, d, batch, kind=kind, rpe_width=8, rpe_layers=1, **settings)
    plan32 = skit.TNOPlan(n, d, batch, kind=kind, rpe_width=8, rpe_layers=1, params=plan.parameters,
                          dtype=np.float32, **settings)
    x = rng.standard_normal((batch, n, d)).astype(np.float32)
    check_float32_plan(plan, plan32, x)
    dy = rng.standard_normal((batch, n, d)).astype(np.float32)
    dx32, dp32, _ = plan32.backward(x, dy)
    dx, dp, _ = plan.backward(x.astype(np.float64), dy.astype(np.float64))
    assert dx32.dtype == np.float32 and dp32.dtype == np.float64
    assert rel(dx32, dx) < 1e-4 and rel(dp32, dp) < 1e-4
    y32 = plan32.forward(x)
    assert y32.dtype == np.float32 and rel(y32, plan(x.astype(np.float64))) < 1e-4


@pytest.mark.parametrize("kind,dtype", [("tno", np.float64), ("fd", np.float32), ("ski", np.float64)])
def test_backward_reuses_its_workspace(rng, kind, dtype):
    """backward keeps one workspace across calls; what a call leaves in it
    does not leak into the next call's gradients."""
    settings = dict(rank=4, taps=3, knots=3) if kind == "ski" else dict(rpe_width=4, rpe_layers=1)
    plan = skit.TNOPlan(13, 3, 2, kind=kind, dtype=dtype, **settings)
    fresh = skit.TNOPlan(13, 3, 2, kind=kind, dtype=dtype, params=plan.parameters, **settings)
    x, dy, other = (rng.standard_normal((2, 13, 3)).astype(dtype) for _ in range(3))
    plan.backward(other * 1e3, other)
    work = plan._work
    assert work is not None and work.nbytes == plan.backward_workspace_bytes
    assert work.ctypes.data % 64 == 0
    for got, want in zip(plan.backward(x, dy), fresh.backward(x, dy)):
        assert np.array_equal(got, want)
    assert plan._work is work
    plan.release_workspace()
    assert plan._work is None
