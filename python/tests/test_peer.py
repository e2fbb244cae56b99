"""The PyTorch peer of the layer benchmarks (bench/peers/tno_torch.py)
computes skit's layer function: loaded with an skit.TNOPlan's parameters,
its output equals plan(x) and its autograd gradients (x, the flat
parameters, TNO's lambda through its logit) equal plan.backward's, at odd,
prime and power-of-two n. A speed ratio against the peer means something
only while this holds."""
import os
import sys

import numpy as np
import pytest

import skit

torch = pytest.importorskip("torch")
PEERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "peers")


def _peers():
    sys.path.insert(0, PEERS)
    try:
        import tno_torch
        return tno_torch
    finally:
        sys.path.remove(PEERS)


def _rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


# n = 1031: 1031 to 2061 RPE inputs, where the library takes the RPE's
# parameter gradient by its sweep (lib/mlp/backward_sweep.c) instead of
# the dense backward the small sizes take.
CASES = [(kind, causal, n) for kind in ("tno", "fd") for causal in (False, True) for n in (7, 16, 31, 1031)] \
    + [("ski", False, n) for n in (7, 16, 31, 97)]


def _plan(kind, causal, n, **settings):
    if kind == "ski" and n < 64:
        settings = {"rank": 5, "taps": 5, "knots": 4, **settings}  # r < n: W interpolates
    return skit.TNOPlan(n, 3, 2, kind=kind, causal=causal, **settings)


def _check(plan, rng):
    peer = _peers()
    cls = {"tno": peer.Tno, "fd": peer.FdTno, "ski": peer.SkiTno}[plan.kind]
    model = cls.from_plan(plan)
    x = rng.standard_normal((2, plan.n, 3))
    g = rng.standard_normal(x.shape)
    xt = torch.tensor(x, requires_grad=True)
    y = model(xt)
    assert _rel(y.detach(), plan(x)) < 1e-12
    y.backward(torch.from_numpy(g))
    dx, dparams, dlambda = plan.backward(x, g)
    assert _rel(xt.grad, dx) < 1e-12
    assert _rel(model.skit_gradient(), dparams) < 1e-12
    if plan.kind == "tno":  # lambda = sigmoid(logit), as skit.torch.TNOPlanModule learns it
        lam = plan.decay
        assert _rel(model.decay_logit.grad, dlambda * lam * (1 - lam)) < 1e-12


@pytest.mark.parametrize("kind,causal,n", CASES)
def test_peer_computes_skits_layer(kind, causal, n, rng):
    _check(_plan(kind, causal, n), rng)


def test_peer_follows_plan_settings(rng):
    """Another decay, RPE shape and FD length than the defaults reach the peer."""
    _check(_plan("tno", False, 9, decay=0.9, rpe_width=8, rpe_layers=1), rng)
    _check(_plan("fd", False, 7, fft_length=20, rpe_width=8, rpe_layers=2), rng)
    _check(_plan("fd", True, 7, fft_length=20), rng)
    _check(_plan("ski", False, 20, rank=6, taps=0, knots=3, decay=0.8), rng)


def test_peer_float32_follows_plan():
    plan = skit.TNOPlan(16, 3, 2, kind="tno", dtype=np.float32)
    x = np.random.default_rng(0).standard_normal((2, 16, 3)).astype(np.float32)
    y = _peers().Tno.from_plan(plan)(torch.from_numpy(x))
    assert y.dtype == torch.float32 and _rel(y.detach(), plan(x)) < 1e-4


def test_peer_without_plan_keeps_benchmark_interface():
    """skit bench tno and the floor programs build peers from (n, d, causal, dtype) alone."""
    peer = _peers()
    x = torch.zeros(1, 8, 2)
    for cls in (peer.Tno, peer.FdTno, peer.SkiTno):
        assert peer.seconds(cls(8, 2, False, torch.float32), x, min_total=0) > 0
    with pytest.raises(ValueError, match="params must have"):
        peer.Tno(8, 2, False, torch.float64).load_skit_parameters(np.zeros(3))


def test_peer_check_can_fail(monkeypatch, rng):
    """The tolerance sees the differences this peer once had: the norm's eps under the root, and a
    real frequency response for the bidirectional FD-TNO."""
    peer = _peers()
    monkeypatch.setattr(peer.Rpe, "norm", staticmethod(lambda z: z * torch.rsqrt(z.pow(2).mean(-1, keepdim=True)
                                                                                + 1e-8)))
    with pytest.raises(AssertionError):
        _check(_plan("tno", True, 16), rng)
    monkeypatch.undo()
    real = peer.FdTno.forward

    def real_response(self, x):
        self.imaginary.zero_()
        return real(self, x)
    monkeypatch.setattr(peer.FdTno, "forward", real_response)
    with pytest.raises(AssertionError):
        _check(_plan("fd", False, 16), rng)
