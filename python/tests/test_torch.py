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
    coeffs = _t(rng, m + n - 1) if shared else _t(rng, m + n - 1, d)
    x = _t(rng, 2, n, d)
    assert gradcheck(lambda c, xx: st.toeplitz(c, xx, m=m, causal=causal), (coeffs, x))
    y = st.toeplitz(coeffs, x, m=m, causal=causal)
    assert y.shape == (2, m, d)


def test_toeplitz_forward_matches_dense(rng):
    n, d = 11, 2
    c, x = _t(rng, 2 * n - 1, d), _t(rng, n, d)
    y = st.toeplitz(c, x)
    for ch in range(d):
        T = skit.toeplitz.dense(c[:, ch].detach().numpy(), n)
        assert np.allclose(y[:, ch].detach().numpy(), T @ x[:, ch].detach().numpy(),
                           atol=1e-12)


def test_tno_module_backward(rng):
    torch.manual_seed(int(rng.integers(1 << 30)))
    module = st.TNO(8, 2, width=4, layers=1, decay=0.9, causal=True)
    x = _t(rng, 2, 8, 2)
    params = tuple(module.parameters())
    assert gradcheck(lambda xx, *p: module(xx), (x,) + params)


@pytest.mark.parametrize("causal", [False, True])
def test_tno_module_any_length(rng, causal):
    # built at n = 16, run at 9, 16, 33: the same as a module built at that
    # length with the same weights (the RPE and the bias at the input's lags)
    torch.manual_seed(int(rng.integers(1 << 30)))
    module = st.TNO(16, 3, width=4, layers=1, decay=0.9, causal=causal)
    for n in (9, 16, 33):
        other = st.TNO(n, 3, width=4, layers=1, decay=0.9, causal=causal)
        other.rpe.load_state_dict(module.rpe.state_dict())
        x = _t(rng, 2, n, 3)
        assert torch.allclose(module(x), other(x), rtol=0, atol=1e-12)
        assert torch.allclose(module.coeffs(n), other.coeffs(), rtol=0, atol=1e-12)
    assert module.coeffs().shape == (31, 3)  # the construction length by default


def test_tno_module_gradients_at_other_length(rng):
    torch.manual_seed(int(rng.integers(1 << 30)))
    module = st.TNO(16, 2, width=4, layers=1, decay=0.9)
    other = st.TNO(33, 2, width=4, layers=1, decay=0.9)
    other.rpe.load_state_dict(module.rpe.state_dict())
    x = _t(rng, 2, 33, 2)
    g = torch.randn(2, 33, 2, dtype=torch.float64)
    module(x).backward(g)
    other(x).backward(g)
    for a, b in zip(module.rpe.parameters(), other.rpe.parameters()):
        assert a.grad is not None and torch.allclose(a.grad, b.grad, rtol=0, atol=1e-12)
    params = tuple(module.parameters())
    assert gradcheck(lambda xx, *p: module(xx), (_t(rng, 5, 2),) + params)


# plans of every kind at their length and at two others (SKI: rank <= n)
PLAN_LENGTHS = [("tno", 9, (6, 14), dict(rpe_width=4, rpe_layers=1, decay=0.9)),
                ("tno", 8, (5, 12), dict(rpe_width=3, rpe_layers=1, decay=0.8, causal=True)),
                ("fd", 7, (4, 12), dict(rpe_width=4, rpe_layers=1)),
                ("ski", 9, (6, 13), dict(rank=4, taps=3, knots=3, decay=0.9)),
                ("ski", 11, (7, 16), dict(rank=5, taps=5, knots=2, decay=0.8, causal=True))]


@pytest.mark.parametrize("kind,n,others,settings", PLAN_LENGTHS)
def test_tno_plan_module_other_lengths(rng, kind, n, others, settings):
    d = 3
    module = st.TNOPlanModule(skit.TNOPlan(n, d, 2, kind=kind, seed=int(rng.integers(1 << 30)),
                                           **settings))
    xs = [_t(rng, 2, n, d)] + [_t(rng, 2, m, d) for m in others] + [_t(rng, others[0], d)]
    gs = [torch.randn(x.shape, dtype=torch.float64) for x in xs]
    # against plans built at each shape with the module's parameters, each
    # with its own copy of them: the module's gradient is their sum
    grads = []
    for x, g in zip(xs, gs):
        batch = x.shape[0] if x.dim() == 3 else 1
        plan = skit.TNOPlan(x.shape[-2], d, batch, kind=kind,
                            params=module.params.detach().numpy(), **settings)
        p = module.params.detach().clone().requires_grad_(True)
        y = st.tno(x, plan, p)
        assert torch.allclose(module(x), y, rtol=0, atol=1e-12)
        grads.append(torch.autograd.grad(y, p, g)[0])
    loss = sum((module(x) * g).sum() for x, g in zip(xs, gs))
    loss.backward()
    assert torch.allclose(module.params.grad, sum(grads), rtol=0, atol=1e-10)
    assert set(module.cached_shapes) == {(others[0], 2), (others[1], 2), (others[0], 1)}
    m = others[1]
    assert gradcheck(lambda xx, pp: st.tno(xx, module.plan_for(m, 1), pp),
                     (_t(rng, 1, m, d), module.params.detach().clone().requires_grad_(True)))


def test_tno_plan_cache_bound(rng):
    module = st.TNOPlanModule(skit.TNOPlan(8, 2, kind="fd", rpe_width=4, rpe_layers=1),
                              max_plans=3)
    first = module.plan_for(5)
    for n in range(4, 20):
        module(_t(rng, 1, n, 2)).sum().backward()
        assert len(module.cached_shapes) <= 3
    assert module.cached_shapes == [(17, 1), (18, 1), (19, 1)]
    assert module.plan_for(8) is module.plan  # the constructor's plan is never evicted
    assert first.closed is False  # evicted, not closed: a pending backward may hold it
    assert module.plan_for(19) is module.plan_for(19)
    with pytest.raises(ValueError, match="max_plans"):
        st.TNOPlanModule(module.plan, max_plans=-1)
    # the Toeplitz plans behind st.TNO at many lengths are bounded too
    tno = st.TNO(8, 2, width=4, layers=1)
    for n in range(1, 3 * st._cache.limit):
        tno(_t(rng, n, 2)).sum().backward()
        assert len(st._cache) <= st._cache.limit


# small plans of every kind (odd n included); SKI needs r <= n, odd taps
KINDS = [("tno", 9, dict(rpe_width=4, rpe_layers=1, decay=0.9)),
         ("tno", 8, dict(rpe_width=3, rpe_layers=2, decay=0.8, causal=True)),
         ("fd", 7, dict(rpe_width=4, rpe_layers=1)),
         ("fd", 8, dict(rpe_width=4, rpe_layers=1, causal=True)),
         ("ski", 9, dict(rank=4, taps=3, knots=3, decay=0.9)),
         ("ski", 11, dict(rank=5, taps=5, knots=2, decay=0.8, causal=True))]


@pytest.mark.parametrize("kind,n,settings", KINDS)
def test_tno_plan_gradcheck(rng, kind, n, settings):
    batch, d = 2, 3
    plan = skit.TNOPlan(n, d, batch, kind=kind, seed=int(rng.integers(1 << 30)), **settings)
    x = _t(rng, batch, n, d)
    params = torch.tensor(plan.parameters, requires_grad=True)
    inputs = (x, params)
    if kind == "tno":
        inputs += (torch.tensor(plan.decay, dtype=torch.float64, requires_grad=True),)
    assert gradcheck(lambda *t: st.tno(t[0], plan, *t[1:]), inputs)
    # the plan's own parameters as constants: gradient w.r.t. x only
    assert gradcheck(lambda xx: st.tno(xx, plan), (x,))


@pytest.mark.parametrize("layout", ["rows", "channels"])
@pytest.mark.parametrize("batch,shape", [(1, (7, 3)), (2, (2, 7, 3))])
def test_tno_plan_gradcheck_layouts(rng, layout, batch, shape):
    # a (n, d) tensor for batch 1; the channels layout copies in and out
    plan = skit.TNOPlan(7, 3, batch, kind="fd", layout=layout, rpe_width=4, rpe_layers=1)
    x = _t(rng, *shape)
    p = torch.tensor(plan.parameters, requires_grad=True)
    assert gradcheck(lambda xx, pp: st.tno(xx, plan, pp), (x, p))


def test_tno_plan_gradient_matches_torch_reference(rng):
    # the library's dparams/dlambda against autograd through the pure-torch
    # TNO module built from the same parameters (an independent reference)
    n, d = 7, 2
    torch.manual_seed(int(rng.integers(1 << 30)))
    module = st.TNO(n, d, width=4, layers=1, decay=0.85)
    params = torch.cat([p.detach().flatten() for p in module.rpe.parameters()])
    plan = skit.TNOPlan(n, d, 1, kind="tno", rpe_width=4, rpe_layers=1, decay=0.85,
                        params=params.numpy(), norm="rms")
    x = _t(rng, 1, n, d)
    p = params.clone().requires_grad_(True)
    y = st.tno(x, plan, p)
    ref = module(x)
    assert torch.allclose(y, ref, atol=1e-10)
    g = torch.randn(1, n, d, dtype=torch.float64)
    gx, gp = torch.autograd.grad(y, (x, p), g)
    rx, *rp = torch.autograd.grad(ref, (x,) + tuple(module.rpe.parameters()), g)
    assert torch.allclose(gx, rx, atol=1e-10)
    assert torch.allclose(gp, torch.cat([r.flatten() for r in rp]), atol=1e-10)


def test_tno_plan_module_trains(rng):
    plan = skit.TNOPlan(8, 2, 2, kind="tno", rpe_width=4, rpe_layers=1, decay=0.9, seed=3)
    module = st.TNOPlanModule(plan)
    assert module.decay is not None and len(list(module.parameters())) == 2
    x = _t(rng, 2, 8, 2)
    target = torch.tensor(rng.standard_normal((2, 8, 2)))
    opt = torch.optim.SGD(module.parameters(), lr=1e-3)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((module(x) - target) ** 2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert module.decay.item() != 0.9  # lambda learnt
    # lambda = sigmoid(theta): steps that would carry a raw lambda past 1
    # (the decay bias's range) keep it inside (0, 1)
    near = st.TNOPlanModule(skit.TNOPlan(8, 2, 2, kind="tno", rpe_width=4, rpe_layers=1, decay=0.9999))
    opt = torch.optim.SGD([near.decay_logit], lr=50.0)
    for _ in range(5):
        opt.zero_grad()
        (-(near(x) ** 2).sum()).backward()  # grows with lambda
        opt.step()
        assert 0 < near.decay.item() < 1
    with pytest.raises(ValueError, match="kind 'tno' only"):
        st.tno(x, skit.TNOPlan(8, 2, 2, kind="fd", rpe_width=4, rpe_layers=1),
               decay=torch.tensor(0.5, dtype=torch.float64))


def test_learnt_decay_keeps_one_plan(rng):
    """A new lambda each step runs on the one derived plan (set_decay, no
    replanning), and a backward after another lambda's forward on that plan
    still differentiates its own forward."""
    plan = skit.TNOPlan(8, 2, 2, kind="tno", rpe_width=4, rpe_layers=1, decay=0.9, seed=3)
    x = _t(rng, 2, 8, 2)
    params = torch.from_numpy(plan.parameters.copy()).requires_grad_()
    grads, derived = [], set()
    for lam in (0.7, 0.8):
        decay = torch.tensor(lam, dtype=torch.float64, requires_grad=True)
        y = st.tno(x, plan, params, decay)
        derived.add(id(plan._derived))
        grads.append(torch.autograd.grad(y.sum(), (params, decay)))
    assert len(derived) == 1 and plan._derived.decay == 0.8
    a = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
    ya = st.tno(x, plan, params, a)
    st.tno(x, plan, params, b)  # the derived plan now holds lambda = 0.8
    again = torch.autograd.grad(ya.sum(), (params, a))
    for want, got in zip(grads[0], again):
        assert torch.equal(want, got)


@pytest.mark.parametrize("in_dim,width,layers,out_dim,activation", [(1, 4, 1, 3, "relu"),
                                                                   (3, 5, 2, 2, "gelu")])
def test_mlp_gradcheck(rng, in_dim, width, layers, out_dim, activation):
    net = skit.MLP(in_dim, width, layers, out_dim, activation=activation,
                   seed=int(rng.integers(1 << 30)))
    x = _t(rng, 7, in_dim) if in_dim > 1 else _t(rng, 7)
    p = torch.tensor(net.parameters, requires_grad=True)
    assert gradcheck(lambda xx, pp: st.mlp(xx, net, pp), (x, p))
    assert torch.allclose(st.mlp(x, net), torch.from_numpy(net(x.detach().numpy())))


def test_decay_bias_gradcheck(rng):
    lags = np.arange(-4.0, 5.0)
    rpe = _t(rng, lags.size, 3)
    decay = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda r, lam: st.decay_bias(r, lags, lam), (rpe, decay))
    want = rpe * decay ** torch.from_numpy(np.abs(lags))[:, None]
    assert torch.allclose(st.decay_bias(rpe, lags, decay), want, atol=1e-14)


@pytest.mark.parametrize("n,d,dv,batch", [(5, 3, 2, ()), (8, 2, 3, (2,)), (7, 4, 1, (2, 1))])
def test_attention_gradcheck(rng, n, d, dv, batch):
    q, k, v = _t(rng, *batch, n, d), _t(rng, *batch, n, d), _t(rng, *batch, n, dv)
    assert gradcheck(lambda a, b, c: st.attention(a, b, c), (q, k, v))
    mask = rng.random(n) > 0.3
    mask[0] = True
    assert gradcheck(lambda a, b, c: st.attention(a, b, c, scale=0.7, mask=mask), (q, k, v))
    # against softmax attention written in torch
    s = torch.softmax(q @ k.transpose(-1, -2) / d ** 0.5, dim=-1)
    assert torch.allclose(st.attention(q, k, v), s @ v, atol=1e-12)


@pytest.mark.parametrize("n,block,per_row,selection", [(9, 3, 1, "global"),
                                                       (8, 2, 2, "per-row"),
                                                       (12, 4, 2, "global")])
def test_mra2_gradcheck(rng, n, block, per_row, selection):
    d, dv = 3, 2
    q, k, v = _t(rng, 2, n, d), _t(rng, 2, n, d), _t(rng, 2, n, dv)
    y = st.mra2(q, k, v, block=block, blocks_per_row=per_row, selection=selection)
    ref = skit.mra2(q.detach().numpy(), k.detach().numpy(), v.detach().numpy(), block=block,
                    blocks_per_row=per_row, selection=selection)
    assert np.allclose(y.detach().numpy(), ref, atol=1e-13)
    assert gradcheck(lambda a, b, c: st.mra2(a, b, c, block=block, blocks_per_row=per_row,
                                             selection=selection), (q, k, v))
    # every square refined: MRA-2 is exact attention, so are its gradients
    g = torch.randn(2, n, dv, dtype=torch.float64)
    full = torch.autograd.grad(st.mra2(q, k, v, block=block, blocks_per_row=n // block), (q, k, v), g)
    exact = torch.autograd.grad(st.attention(q, k, v), (q, k, v), g)
    for a, b in zip(full, exact):
        assert torch.allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("n,block,per_row,selection", [(8, 2, 2, "global"), (12, 4, 1, "per-row")])
def test_causal_gradcheck(rng, n, block, per_row, selection):
    d, dv = 3, 2
    q, k, v = _t(rng, 2, n, d), _t(rng, 2, n, d), _t(rng, 2, n, dv)
    assert gradcheck(lambda a, b, c: st.attention(a, b, c, causal=True), (q, k, v))
    p = (q @ k.transpose(-1, -2) / d ** 0.5).masked_fill(
        ~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    assert torch.allclose(st.attention(q, k, v, causal=True), torch.softmax(p, -1) @ v, atol=1e-12)
    assert gradcheck(lambda a, b, c: st.mra2(a, b, c, block=block, blocks_per_row=per_row,
                                             selection=selection, causal=True), (q, k, v))
    g = torch.randn(2, n, dv, dtype=torch.float64)
    full = torch.autograd.grad(st.mra2(q, k, v, block=block, blocks_per_row=n // block,
                                       causal=True), (q, k, v), g)
    exact = torch.autograd.grad(st.attention(q, k, v, causal=True), (q, k, v), g)
    for a, b in zip(full, exact):
        assert torch.allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n,block,selection", [(10, 4, "global"), (7, 3, "per-row"),
                                               (5, 4, "global")])
def test_mra2_padded(rng, causal, n, block, selection):
    d, dv = 3, 2
    q, k, v = _t(rng, 2, n, d), _t(rng, 2, n, d), _t(rng, 2, n, dv)
    blocks = -(-n // block)
    # every square refined: the padding keys carry no weight, so padded
    # MRA-2 is exact attention on the n tokens, and so are its gradients
    full = st.mra2(q, k, v, block=block, blocks_per_row=blocks, selection=selection,
                   causal=causal, pad=True)
    exact = st.attention(q, k, v, causal=causal)
    assert full.shape == (2, n, dv)
    assert torch.allclose(full, exact, rtol=0, atol=1e-12)
    g = torch.randn(2, n, dv, dtype=torch.float64)
    for a, b in zip(torch.autograd.grad(full, (q, k, v), g),
                    torch.autograd.grad(exact, (q, k, v), g)):
        assert torch.allclose(a, b, rtol=0, atol=1e-12)
    # coarse atoms in play (the last block's means over its valid rows):
    # the numpy backward against the library's masked forward
    assert gradcheck(lambda a, b, c: st.mra2(a, b, c, block=block, blocks_per_row=1,
                                             selection=selection, causal=causal, pad=True),
                     (q, k, v))
    # the padded forward is the plan's masked MRA-2 on zero-padded inputs
    size = blocks * block
    arrays = [np.concatenate([a.detach().numpy(), np.zeros((2, size - n, a.shape[-1]))], axis=1)
              for a in (q, k, v)]
    mask = np.arange(size) < n
    ref = skit.mra2(*arrays, block=block, blocks_per_row=1, selection=selection, causal=int(causal),
                    mask=mask)[:, :n]
    y = st.mra2(q, k, v, block=block, blocks_per_row=1, selection=selection, causal=causal,
                pad=True)
    assert np.allclose(y.detach().numpy(), ref, rtol=0, atol=1e-13)


def test_mra2_errors_name_block(rng):
    q = _t(rng, 10, 3)
    with pytest.raises(ValueError, match=r"n = 10 is not a multiple of block = 4: pass pad=True"):
        st.mra2(q, q, q, block=4, blocks_per_row=1)
    with pytest.raises(ValueError, match=r"block = 4\)") as err:
        st.mra2(q, q, q, block=4, blocks_per_row=4, pad=True)
    assert "s_0" not in str(err.value)
    with pytest.raises(ValueError, match="block must be >= 2"):
        st.mra2(q, q, q, block=1, blocks_per_row=1)


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


def _second_derivative_raises(fn, inputs):
    """d/dinputs of <grad fn, 1> must raise, not come out as if the first
    derivative were constant."""
    out = fn(*inputs)
    # a loss whose gradient depends on the output, so the first derivative
    # has a graph (a linear loss would leave nothing to differentiate)
    grads = torch.autograd.grad((out ** 2).sum(), inputs, create_graph=True)
    with pytest.raises(RuntimeError, match="second derivatives are not implemented"):
        torch.autograd.grad(sum(g.sum() for g in grads if g is not None), inputs, allow_unused=True)


def test_second_derivatives_raise(rng):
    n, d = 6, 2
    _second_derivative_raises(lambda c, x: st.toeplitz(c, x), (_t(rng, 2 * n - 1, d), _t(rng, n, d)))
    q, k, v = _t(rng, n, 3), _t(rng, n, 3), _t(rng, n, 2)
    _second_derivative_raises(lambda a, b, c: st.attention(a, b, c), (q, k, v))
    _second_derivative_raises(lambda a, b, c: st.mra2(a, b, c, block=3, blocks_per_row=1), (q, k, v))
    lags = np.arange(-3.0, 4.0)
    decay = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
    _second_derivative_raises(lambda r, lam: st.decay_bias(r, lags, lam), (_t(rng, lags.size, 2), decay))
    net = skit.MLP(1, 4, 1, 2, seed=3)
    _second_derivative_raises(lambda x: st.mlp(x, net), (_t(rng, 5, 1),))
    plan = skit.TNOPlan(8, 2, kind="tno")
    _second_derivative_raises(lambda x: st.tno(x, plan), (_t(rng, 8, 2),))


@pytest.mark.parametrize("causal,shared", [(False, False), (True, False), (False, True)])
def test_toeplitz_float32(rng, causal, shared):
    """float32 tensors run the library's float32 plan forward and backward:
    float32 outputs and gradients, close to the float64 ones (the float32
    bounds of skit/toeplitz.h are far below 1e-5 relative at n = 37)."""
    n, d = 37, 3
    c64 = _t(rng, 2 * n - 1) if shared else _t(rng, 2 * n - 1, d)
    x64 = _t(rng, 2, n, d)
    c32 = c64.detach().float().requires_grad_()
    x32 = x64.detach().float().requires_grad_()
    y32 = st.toeplitz(c32, x32, causal=causal)
    y64 = st.toeplitz(c64, x64, causal=causal)
    assert y32.dtype == torch.float32
    g = torch.tensor(rng.standard_normal(y64.shape))
    y32.backward(g.float())
    y64.backward(g)
    assert c32.grad.dtype == torch.float32 and x32.grad.dtype == torch.float32

    def close(a, b):
        return (a.double() - b).abs().max() <= 1e-5 * b.abs().max()
    assert close(y32.detach(), y64.detach())
    assert close(x32.grad, x64.grad) and close(c32.grad, c64.grad)


def test_toeplitz_vector(rng):
    """A 1-D x is one channel (it raised IndexError)."""
    n = 9
    c, x = _t(rng, 2 * n - 1), _t(rng, n)
    y = st.toeplitz(c, x)
    assert y.shape == (n,)
    T = skit.toeplitz.dense(c.detach().numpy(), n)
    assert np.allclose(y.detach().numpy(), T @ x.detach().numpy(), atol=1e-12)
    assert gradcheck(lambda cc, xx: st.toeplitz(cc, xx), (c, x))


@pytest.mark.parametrize("kind", ["tno", "fd", "ski"])
@pytest.mark.parametrize("causal", [False, True])
def test_tno_module_float32_against_float64(rng, kind, causal):
    """A float32 plan under TNOPlanModule: float32 output and input
    gradient, float64 parameter gradient, each within skit/tno.h's float32
    growth factor, 20 log2(2N) + 2(h+1) + 4(L+3) (h, L: the RPE's width and
    hidden layers; N <= 4n) times 2^-24, of the float64 plan's, measured
    normwise against the float64 result (the header scales by ||k||_1
    ||x||, which is larger: this is the stricter check). Any length: a
    second call at another n runs a float32 plan made for it."""
    n, d, width, layers = 97, 5, 8, 1
    kw = dict(rpe_width=width, rpe_layers=layers) if kind != "ski" else {}
    growth = 20 * np.log2(8 * n) + 2 * (width + 1) + 4 * (layers + 3)
    p64 = skit.TNOPlan(n, d, kind=kind, causal=causal, **kw)
    p32 = skit.TNOPlan(n, d, kind=kind, causal=causal, dtype=np.float32, params=p64.parameters, **kw)
    m64, m32 = st.TNOPlanModule(p64), st.TNOPlanModule(p32)
    for length in (n, 67):
        x, g = rng.standard_normal((2, length, d)), rng.standard_normal((2, length, d))
        x64 = torch.tensor(x, requires_grad=True)
        x32 = torch.tensor(x, dtype=torch.float32, requires_grad=True)
        m64.zero_grad()
        m32.zero_grad()
        y64, y32 = m64(x64), m32(x32)
        assert y32.dtype == torch.float32 and y32.shape == (2, length, d)
        (y64 * torch.tensor(g)).sum().backward()
        (y32 * torch.tensor(g, dtype=torch.float32)).sum().backward()
        assert x32.grad.dtype == torch.float32 and m32.params.grad.dtype == torch.float64
        for got, want in ((y32.detach(), y64.detach()), (x32.grad, x64.grad), (m32.params.grad, m64.params.grad)):
            err = float((got.double() - want).norm() / want.norm())
            assert err <= growth * 2.0 ** -24, (length, err, growth * 2.0 ** -24)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("which", ["attention", "mra2"])
def test_attention_float32_against_float64(rng, which, causal):
    """Float32 q, k, v run the float32 attention plan forward and backward:
    float32 output and gradients, normwise within 2e-5 of float64 (skit's
    own threshold, 100x what is measured; tests/test_attention.c holds the
    float32 plans to skit/attention.h's entrywise bounds)."""
    n, d = 64, 8
    fn = (lambda a, b, c: st.attention(a, b, c, causal=causal)) if which == "attention" else \
        (lambda a, b, c: st.mra2(a, b, c, block=8, blocks_per_row=3, causal=causal))
    q, k, v = (_t(rng, 2, n, d) for _ in range(3))
    q32, k32, v32 = (t.detach().float().requires_grad_(True) for t in (q, k, v))
    g = torch.tensor(rng.standard_normal((2, n, d)))
    y, y32 = fn(q, k, v), fn(q32, k32, v32)
    y.backward(g)
    y32.backward(g.float())
    assert y32.dtype == torch.float32 and q32.grad.dtype == torch.float32
    for got, want in ((y32.detach(), y.detach()), (q32.grad, q.grad), (k32.grad, k.grad), (v32.grad, v.grad)):
        assert float((got.double() - want).norm() / want.norm()) <= 2e-5


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_attention_reads_contiguous_tensors_in_place(rng, monkeypatch, dtype):
    """skit.torch.attention and mra2 hand the library the contiguous
    tensors' own memory (rows plans, ld = the row stride), forward and
    backward."""
    from conftest import recording
    n, d = 16, 4
    q, k, v = (torch.tensor(rng.standard_normal((2, n, d)), dtype=dtype, requires_grad=True)
               for _ in range(3))
    f32 = "_f32" if dtype == torch.float32 else ""
    for name, call in (("attention", lambda: st.attention(q, k, v, causal=True)),
                       ("mra2", lambda: st.mra2(q, k, v, block=4, blocks_per_row=2))):
        ex = recording(monkeypatch, "skit_attention_plan_execute" + f32)
        bw = recording(monkeypatch, "skit_attention_plan_backward" + f32)
        y = call()
        y.backward(torch.ones_like(y))
        monkeypatch.undo()
        assert [a[1] for a in ex] == [q.data_ptr() + q.element_size() * n * d * b for b in range(2)], name
        assert [a[2] for a in ex] == [d, d] and [a[8] for a in ex] == \
            [y.data_ptr() + y.element_size() * n * d * b for b in range(2)], name
        assert [a[3] for a in bw] == [k.data_ptr() + k.element_size() * n * d * b for b in range(2)], name
        assert [a[4] for a in bw] == [d, d], name
        for t in (q, k, v):
            t.grad = None
