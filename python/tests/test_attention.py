import numpy as np
import pytest

import skit
from skit import attention as att
from conftest import recording as _recording, rel


def softmax_attention(q, k, v, scale, mask=None):
    p = scale * q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        p = np.where(mask[None, :], p, -np.inf)
    p = p - p.max(axis=-1, keepdims=True)
    e = np.exp(p)
    s = e / e.sum(axis=-1, keepdims=True)
    y = s @ v
    if mask is not None:
        y[~mask] = 0
        s[~mask] = 0
    return y, s


@pytest.mark.parametrize("n,d,dv", [(1, 1, 1), (7, 3, 5), (64, 16, 8), (97, 8, 3)])
def test_exact_matches_numpy(rng, n, d, dv):
    q, k = rng.standard_normal((2, 3, n, d)), rng.standard_normal((2, 3, n, d))
    v = rng.standard_normal((2, 3, n, dv))
    want, s = softmax_attention(q, k, v, 1 / np.sqrt(d))
    assert rel(skit.exact_attention(q, k, v), want) < 1e-12
    assert rel(att.attention_matrix(q, k), s) < 1e-12
    mask = rng.random(n) < 0.8
    mask[0] = True
    want_m, _ = softmax_attention(q[0, 0], k[0, 0], v[0, 0], 0.5, mask)
    assert rel(skit.exact_attention(q[0, 0], k[0, 0], v[0, 0], scale=0.5, mask=mask),
               want_m) < 1e-12
    rows, mean = att.entropy(q[0, 0], k[0, 0])
    s0 = s[0, 0]
    h = -(s0 * np.log(np.where(s0 > 0, s0, 1))).sum(axis=1)
    assert rel(rows, h) < 1e-10 and abs(mean - h.mean()) < 1e-10


def test_mra2_full_budget_is_exact(rng):
    n, d = 128, 16
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    want, _ = softmax_attention(q, k, v, 1 / np.sqrt(d))
    for sparse in (False, True):
        y = skit.mra2(q, k, v, block=32, blocks_per_row=n // 32, sparse=sparse)
        assert rel(y, want) < 1e-8
    # a real budget: an approximation, with the work it did
    with skit.AttentionPlan("mra2", n, d, block=16, blocks_per_row=2) as plan:
        y, stats = plan(q, k, v, return_stats=True)
    assert 0 < stats["work_fraction"] < 1 and stats["levels"] == 2
    assert np.isfinite(y).all() and np.linalg.norm(y - want) < np.linalg.norm(want)


def test_causal(rng):
    n, d, dv = 96, 8, 3
    q, k, v = rng.standard_normal((n, d)), rng.standard_normal((n, d)), rng.standard_normal((n, dv))
    p = 0.5 * q @ k.T
    p = np.where(np.tril(np.ones((n, n), bool)), p, -np.inf)
    e = np.exp(p - p.max(axis=1, keepdims=True))
    s = e / e.sum(axis=1, keepdims=True)
    assert rel(att.attention(q, k, v, scale=0.5, causal=True), s @ v) < 1e-12
    assert rel(att.attention_matrix(q, k, scale=0.5, causal=True), s) < 1e-12
    rows, _ = att.entropy(q, k, scale=0.5, causal=True)
    assert rel(rows, -(s * np.log(np.where(s > 0, s, 1))).sum(axis=1)) < 1e-10
    with skit.AttentionPlan("mra2", n, d, dv, scale=0.5, block=16, blocks_per_row=n // 16,
                            causal=1) as plan:
        assert rel(plan(q, k, v), s @ v) < 1e-10
    with pytest.raises(NotImplementedError):
        skit.AttentionPlan("nystrom", n, d, causal=1)


# settings under which each baseline is exact: a check of the binding's
# options and layouts against numpy
FULL = {"lowrank": dict(rank=64), "topk": dict(nonzeros=64 * 64),
        "nystrom": dict(rank=64, pinv_iterations=0),
        "linformer": dict(rank=64, linformer_projection="pooling"),
        "window": dict(window=64), "exact": {}}


@pytest.mark.parametrize("method", sorted(FULL))
def test_baselines_exact_at_full_budget(rng, method):
    n, d = 64, 8
    q, k, v = (rng.standard_normal((2, n, d)) for _ in range(3))
    want, _ = softmax_attention(q, k, v, 1 / np.sqrt(d))
    with skit.AttentionPlan(method, n, d, **FULL[method]) as plan:
        y = plan(q, k, v)
    assert y.shape == (2, n, d)
    assert rel(y, want) < 1e-8


def test_linformer_fit_is_the_projection(rng):
    n, d, kp = 48, 6, 5
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    want, _ = softmax_attention(q, k, v, 1 / np.sqrt(d))
    km = np.stack([k[t * n // kp:(t + 1) * n // kp].mean(axis=0) for t in range(kp)])
    p = np.exp(q @ km.T / np.sqrt(d))
    p /= p.sum(axis=1, keepdims=True)
    with skit.AttentionPlan("linformer-fit", n, d, rank=kp) as plan:
        with pytest.raises(ValueError, match="not fitted"):
            plan(q, k, v)
        y = plan.fit(q, k)(q, k, v)
    assert rel(y, p @ np.linalg.lstsq(p, want, rcond=None)[0]) < 1e-9


@pytest.mark.parametrize("method", ["performer", "bigbird", "window", "nystrom", "mra2s"])
def test_baselines_at_half_budget(rng, method):
    n, d = 64, 8
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    with skit.AttentionPlan(method, n, d, budget=0.5, block=16) as plan:
        y, stats = plan(q, k, v, return_stats=True)
    assert np.isfinite(y).all() and 0 < stats["work_fraction"] <= 1.5


def test_attention_errors(rng):
    q = rng.standard_normal((8, 4))
    with pytest.raises(ValueError, match="same shape"):
        skit.exact_attention(q, q[:, :3], q)
    with pytest.raises(ValueError) as err:
        skit.AttentionPlan("mra2", 40, 4, block=32)
    assert err.value.status_name == "SKIT_ESHAPE" and "40" in str(err.value)
    bad = q.copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError) as err:
        skit.exact_attention(bad, q, q)
    assert err.value.status_name == "SKIT_ENONFINITE"
    with pytest.raises(ValueError, match="method"):
        skit.AttentionPlan("flash", 8, 4)


def test_haar_and_frame(rng):
    n = 16
    a = rng.standard_normal((n, n))
    c = att.haar2d(a)
    assert abs(np.linalg.norm(c) - np.linalg.norm(a)) < 1e-12 * np.linalg.norm(a)
    assert rel(att.haar2d_inverse(c), a) < 1e-13
    full, thr = att.haar2d_compress(a, n * n)
    assert rel(full, a) < 1e-13
    part, thr = att.haar2d_compress(a, 10)
    assert np.count_nonzero(np.abs(att.haar2d(part)) > 1e-12) <= 10 and thr > 0
    alpha, hat = att.frame_decompose(a)
    assert rel(hat, a) < 1e-12
    # mean of every 4 x 4 square: the coarse logits of level 4
    q, k = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
    coarse = att.coarse_logits(q, k, 4, scale=1.0)
    p = q @ k.T
    assert rel(coarse, p.reshape(4, 4, 4, 4).mean(axis=(1, 3))) < 1e-12


def test_lemma41_prop45(rng):
    n, d = 64, 8
    q, k = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    r = att.lemma41(q, k, 8)
    assert r["blocks"] == 64 and r["lower_violations"] == 0 and r["upper_violations"] == 0
    # the lemma's quantities recomputed in numpy for one square
    p = q @ k.T / np.sqrt(d)
    sq = p[:8, :8]
    gap = np.exp(sq - sq.mean()).mean() - 1
    assert r["min_gap"] <= gap + 1e-12 and gap <= r["max_gap"] + 1e-12
    pr = att.prop45(q, k, 8, 16)
    assert pr["refined"] == 16 and pr["holds"] == (pr["measured"] <= pr["bound"] * (1 + 1e-12))
    assert 0 <= pr["measured"] < 1


def test_budgets_temperatures_synthetic(rng):
    n, d = 32, 4
    q, k, v = att.synthetic(n, d, entropy=2.0, seed=int(rng.integers(1 << 30)))
    assert q.shape == (n, d) and v.shape == (n, d)
    _, h = att.entropy(q, k)
    assert abs(h - 2.0) < 0.05
    tau, h2 = att.temperature_for_entropy(q, k, 1.5)
    assert abs(h2 - 1.5) < 1e-4 and tau > 0
    _, h3 = att.entropy(q, k, scale=1 / np.sqrt(d) / tau)
    assert abs(h3 - 1.5) < 1e-4
    needed, errors = att.budget_needed("lowrank", q, k, v, [0.5, 1e-9])
    assert needed[0] <= needed[1] <= n and errors.shape == (n + 1,)
    assert errors[needed[0]] <= 0.5 and (needed[0] == 0 or errors[needed[0] - 1] > 0.5)
    topk, none = att.budget_needed("topk", q, k, v, [0.1])
    assert none is None and 1 <= topk[0] <= n * n


def test_frame_forms(rng):
    n = 8
    a = rng.standard_normal((n, n))
    count = att.frame_count(n)
    assert count == (4 * n * n - 1) // 3
    subset = rng.random(count) < 0.3
    subset[att.frame_index(n, n, 0, 0)] = True
    alpha, hat = att.frame_decompose(a, subset)
    assert rel(att.frame_mu_form(a, subset), hat) < 1e-12
    assert att.observation_a1(a, subset) < 1e-12


def test_float32_never_silent(rng):
    n, d = 32, 4
    q, k, v = (rng.standard_normal((n, d)).astype(np.float32) for _ in range(3))
    with pytest.raises(TypeError, match="upcast=True"):
        skit.exact_attention(q, k, v)
    y = skit.exact_attention(q, k, v, upcast=True)
    assert y.dtype == np.float32
    assert rel(y, skit.exact_attention(*(a.astype(np.float64) for a in (q, k, v)))) < 1e-6
    with pytest.raises(TypeError, match="float32"):
        skit.mra2(q, k, v, block=8, blocks_per_row=2)
    assert skit.mra2(q, k, v, block=8, blocks_per_row=2, upcast=True).dtype == np.float32


def test_float32_plans(rng):
    n, d, dv = 64, 8, 3
    q, k = (rng.standard_normal((n, d)).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((n, dv)).astype(np.float32)
    for method, opts in (("exact", {}), ("mra2", {"block": 8, "blocks_per_row": 8})):
        with skit.AttentionPlan(method, n, d, dv, dtype=np.float32, **opts) as p32, \
                skit.AttentionPlan(method, n, d, dv, **opts) as p64:
            y = p32(q, k, v)
            assert y.dtype == np.float32
            assert rel(y, p64(*(a.astype(np.float64) for a in (q, k, v)))) < 1e-5
            assert p32.nbytes < p64.nbytes
            with pytest.raises(TypeError, match="float32"):
                p32(q.astype(np.float64), k, v)
    with pytest.raises(NotImplementedError, match="float64 only"):
        skit.AttentionPlan("lowrank", n, d, dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_plan_rows_layout_in_place(rng, monkeypatch, dtype):
    """AttentionPlan's default rows layout hands the library C-ordered
    (..., n, d) arrays themselves (ld = the row stride) for execute,
    backward and select, with the columns layout's results bit for bit;
    layout='columns' reads F-ordered blocks in place."""
    from skit import _array
    n, d, dv = 15, 3, 5
    q, k = (rng.standard_normal((2, n, d)).astype(dtype) for _ in range(2))
    v, dy = (rng.standard_normal((2, n, dv)).astype(dtype) for _ in range(2))
    f32 = "_f32" if dtype == np.float32 else ""
    plan = att.AttentionPlan("mra2", n, d, dv, dtype=dtype, block=5, blocks_per_row=2)
    cols = att.AttentionPlan("mra2", n, d, dv, dtype=dtype, block=5, blocks_per_row=2,
                             layout="columns")
    assert plan.layout == "rows"
    seen = _recording(monkeypatch, "skit_attention_plan_execute" + f32)
    y = plan(q, k, v)
    assert [s[1] for s in seen] == [_array.pointer(q) + q.strides[0] * b for b in range(2)]
    assert [s[2] for s in seen] == [d, d] and seen[0][6] == seen[0][9] == dv
    assert [s[8] for s in seen] == [_array.pointer(y) + y.strides[0] * b for b in range(2)]
    assert y.flags.c_contiguous and np.array_equal(y, cols(q, k, v))
    back = _recording(monkeypatch, "skit_attention_plan_backward" + f32)
    grads = plan.backward(q, k, v, dy)
    assert back[0][9] == _array.pointer(dy) and back[0][11] == _array.pointer(grads[0])
    assert all(g.flags.c_contiguous for g in grads)
    for mine, theirs in zip(grads, cols.backward(q, k, v, dy)):
        assert np.array_equal(mine, theirs)
    chosen = _recording(monkeypatch, "skit_attention_plan_select" + f32)
    refined = plan.select(q, k)
    assert chosen[0][1] == _array.pointer(q) and chosen[0][2] == d
    assert all(np.array_equal(a, b) for a, b in zip(refined, cols.select(q, k)))
    given = plan.backward(q, k, v, dy, refined=refined, needs=(True, False, True))
    assert given[1] is None and np.array_equal(given[0], grads[0])
    # the columns layout: F-ordered blocks in place, C order copied
    qf, kf, vf = (np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2) for a in (q, k, v))
    seen.clear()
    assert np.array_equal(cols(qf, kf, vf), y)
    assert seen[0][1] == _array.pointer(qf) and seen[0][2] == n
    seen.clear()
    cols(q, k, v)
    assert seen[0][1] != _array.pointer(q)
    with pytest.raises(ValueError, match="layout"):
        att.AttentionPlan("exact", n, d, layout="diagonal")


def test_plan_rows_call_allocates_only_its_output(rng):
    """No copy of q, k, v: a rows call allocates (numpy memory, as
    tracemalloc sees it) its output and little more; the columns plan
    copies the three C-ordered inputs."""
    import tracemalloc
    n, d = 2048, 32
    q, k, v = (rng.standard_normal((2, n, d)) for _ in range(3))
    for layout, most in (("rows", 1.1), ("columns", None)):
        with att.AttentionPlan("window", n, d, window=8, layout=layout) as plan:
            plan(q, k, v)  # warm up
            tracemalloc.start()
            y = plan(q, k, v)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            if most:
                assert peak < most * y.nbytes + 65536, (layout, peak, y.nbytes)
            else:
                assert peak > 3 * q.nbytes, (layout, peak)


def test_rows_plan_from_threads(rng):
    """Concurrent calls of one rows plan run on copies, each with its own
    column scratch: every thread gets the single-thread result."""
    from concurrent.futures import ThreadPoolExecutor
    n, d = 40, 8
    inputs = [tuple(rng.standard_normal((n, d)) for _ in range(3)) for _ in range(8)]
    with att.AttentionPlan("mra2", n, d, block=8, blocks_per_row=2) as plan:
        want = [plan(*a) for a in inputs]
        want_dq = [plan.backward(*a, a[2])[0] for a in inputs]
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda a: (plan(*a), plan.backward(*a, a[2])[0]), inputs * 4))
    for i, (y, dq) in enumerate(got):
        assert np.array_equal(y, want[i % 8]) and np.array_equal(dq, want_dq[i % 8])
