import numpy as np
import pytest

torch = pytest.importorskip("torch")
import skit  # noqa: E402
import skit.torch as st  # noqa: E402
from torch.autograd import gradcheck  # noqa: E402


def _t(rng, *shape):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("m,n,d,causal,shared", [(6, 6, 2, False, False), (5, 7, 3, True, False),
                                                 (9, 4, 1, False, True), (7, 7, 2, True, True)])
def test_toeplitz_gradcheck(rng, m, n, d, causal, shared):
    coeffs = _t(rng, m + n - 1) if shared else _t(rng, d, m + n - 1)
    x = _t(rng, 2, n, d)
    assert gradcheck(lambda c, xx: st.toeplitz(c, xx, m=m, causal=causal), (coeffs, x))
    y = st.toeplitz(coeffs, x, m=m, causal=causal)
    assert y.shape == (2, m, d)


def test_toeplitz_forward_matches_dense(rng):
    n, d = 11, 2
    c, x = _t(rng, d, 2 * n - 1), _t(rng, n, d)
    y = st.toeplitz(c, x)
    for ch in range(d):
        T = skit.toeplitz.dense(c[ch].detach().numpy(), n)
        assert np.allclose(y[:, ch].detach().numpy(), T @ x[:, ch].detach().numpy(),
                           atol=1e-12)


def test_tno_module_backward(rng):
    torch.manual_seed(int(rng.integers(1 << 30)))
    module = st.TNO(8, 2, width=4, layers=1, decay=0.9, causal=True)
    x = _t(rng, 2, 8, 2)
    params = tuple(module.parameters())
    assert gradcheck(lambda xx, *p: module(xx), (x,) + params)


@pytest.mark.parametrize("kind", ["tno", "fd"])
def test_tno_plan_gradient_wrt_x(rng, kind):
    plan = skit.TNOPlan(9, 2, 2, kind=kind, rpe_width=4, rpe_layers=1)
    x = _t(rng, 2, 9, 2)
    assert gradcheck(lambda xx: st.tno(xx, plan), (x,))


def test_torch_errors(rng):
    x = torch.zeros(4, 1, device="meta", dtype=torch.float64)
    with pytest.raises(ValueError, match="only CPU tensors"):
        st.toeplitz(torch.zeros(7, dtype=torch.float64), x)
    c32 = torch.zeros(7, dtype=torch.float32)
    x32 = torch.zeros(4, 1, dtype=torch.float32)
    if not skit.has("skit_toeplitz_plan_execute_f32"):
        with pytest.raises(TypeError, match="upcast=True"):
            st.toeplitz(c32, x32)
    assert st.toeplitz(c32, x32, upcast=True).dtype == torch.float32
