import numpy as np
import pytest
import scipy.linalg as sl

import skit
from skit import ski
from conftest import check_float32_plan, check_rows_in_place, recording, rel


def test_kernels_match_formulas(rng):
    t = rng.uniform(-20, 20, 50)
    g = skit.Kernel.gaussian(2.0, 3.0)
    assert rel(g(t), 2 * np.exp(-t**2 / 18)) < 1e-14
    m = skit.Kernel.matern52(1.0, 2.0)
    u = np.sqrt(5) * np.abs(t) / 2
    assert rel(m(t), (1 + u + u**2 / 3) * np.exp(-u)) < 1e-13
    s = g + m
    assert rel(s(t), g(t) + m(t)) < 1e-14 and "gaussian" in repr(g)
    d = g.derivatives(1.5, 2)
    assert rel(d[1], -1.5 / 9 * g(np.array([1.5]))[0]) < 1e-13
    c = g.toeplitz_coeffs(5, 0.5)
    assert rel(c, g(np.arange(-4, 5) * 0.5)) < 1e-15
    b = g.derivative_bound(1, -5, 5)
    assert b["value"] >= np.abs(np.gradient(g(np.linspace(-5, 5, 10001)), 1e-3)).max() * 0.999
    assert g.smoothness(3, -1, 1)


def test_interp_ski_nystrom(rng):
    n, r, d = 40, 9, 3
    W = skit.InterpWeights(n, r)
    D = W.dense()
    assert rel(D.sum(axis=1), np.ones(n)) < 1e-14 and (D >= 0).all()
    u = rng.standard_normal((r, d))
    assert rel(W(u), D @ u) < 1e-14
    x = rng.standard_normal((2, n, d))
    assert rel(W.transpose(x), np.swapaxes(D.T @ x, 0, 0)) < 1e-14
    k = skit.Kernel.gaussian(1.0, 8.0)
    h = (n - 1) / (r - 1)
    coeffs = k.toeplitz_coeffs(r, h)
    A = sl.toeplitz(coeffs[r - 1:], coeffs[r - 1::-1])
    dense = ski.ski_dense(W, coeffs)
    assert rel(dense, D @ A @ D.T) < 1e-12
    plan = skit.SKIPlan(W, np.tile(coeffs[:, None], (1, d)))
    assert rel(plan(x), dense @ x) < 1e-12 and plan.nbytes > 0
    ny = skit.NystromPlan(k, n, r)
    assert rel(ny(x), ny.dense() @ x) < 1e-10
    band = rng.standard_normal((5, d))  # taps by channels
    sl_plan = ski.SparseLowRankPlan(n, d, band=band, weights=W, coeffs=np.tile(coeffs[:, None], (1, d)))
    lags = np.arange(n)[:, None] - np.arange(n)[None, :]
    S = np.where(np.abs(lags) <= 2, band[:, 0][np.clip(lags + 2, 0, 4)], 0)
    assert rel(sl_plan(x)[..., 0], x[..., 0] @ (S + dense).T) < 1e-12


def test_ski_plan_float32(rng):
    n, r, d = 97, 11, 3
    W = skit.InterpWeights(n, r)
    coeffs = rng.standard_normal((2 * r - 1, d))
    x = rng.standard_normal((2, n, d)).astype(np.float32)
    plan = skit.SKIPlan(W, coeffs)
    check_float32_plan(plan, skit.SKIPlan(W, coeffs, dtype=np.float32), x)
    with pytest.raises(TypeError, match="float32"):
        plan(x)
    with pytest.raises(NotImplementedError):
        skit.SKIPlan(W, coeffs, method="dense", dtype=np.float32)


def test_theorem1_on_a_kernel(rng):
    n, r = 48, 12
    k = skit.Kernel.gaussian(1.0, 10.0)
    with skit.Theorem1(k, n) as th:
        terms = th.evaluate(r)
    # the measured error recomputed in numpy
    T = sl.toeplitz(k(np.arange(n)))
    U, s, Vt = np.linalg.svd(T)
    T_opt = (U[:, :r] * s[:r]) @ Vt[:r]
    W = skit.InterpWeights(n, r)
    ski_mat = ski.ski_dense(W, k.toeplitz_coeffs(r, (n - 1) / (r - 1)))
    assert rel(terms["e_ski"], np.linalg.norm(ski_mat - T_opt, 2)) < 1e-8
    assert rel(terms["sigma_next"], s[r]) < 1e-10
    assert terms["holds"] is True and terms["e_ski"] <= terms["rhs"]
    assert len(terms["chain"]) == 8 and terms["loosest_step_name"]


def test_theorem1_on_your_own_kernel(rng):
    """Samples of a kernel you made -> warped piecewise-linear fit -> Theorem 1."""
    t = np.arange(-63, 64, dtype=float)
    y = np.exp(-np.abs(t) / 10) * np.cos(t / 5)
    k = skit.Kernel.fit_warped_linear(t, y, knots_per_side=16, decay=0.95)
    assert np.abs(k(t) - y).max() < 0.2
    terms = skit.Theorem1(k, 32).evaluate(8)
    assert terms["holds"] in (True, False) and np.isfinite(terms["e_ski"])
    rpe = skit.MLP(1, 8, 1, 1, activation="silu", norm="none", seed=4)
    kt = skit.Kernel.tnn(rpe, 0, 0.9)
    assert rel(kt(t[:5]), rpe(t[:5])[:, 0] * 0.9 ** np.abs(t[:5])) < 1e-13


def test_study_and_rpe_fit(rng):
    smooth, spike = skit.Kernel.gaussian(1.0, 12.0), skit.Kernel.exp_cosine(0.5, 1.0, 0.0)
    e = ski.sparse_lowrank_study(smooth, spike, 48, 8, 5)
    assert e["sparse_lowrank"] <= e["lowrank_only"] + 1e-12 and e["t_norm"] > 0
    t = np.arange(-40, 41, dtype=float)
    y = np.exp(-np.abs(t) / 8)
    rpe = ski.fit_tnn_rpe(t, y, decay=0.95, width=32, hidden_layers=1)
    k = skit.Kernel.tnn(rpe, 0, 0.95)
    assert np.abs(k(t) - y).max() < 0.1


def test_device_check():
    assert skit.device_available("cpu")
    try:
        skit.device_available("cuda")
    except NotImplementedError as e:
        assert str(e).startswith("cuda")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ski_plan_rows_in_place(rng, monkeypatch, dtype):
    """SKIPlan's rows layout (the default) hands the library C-ordered
    (..., n, d) arrays as they are and agrees with the columns layout."""
    n, r, d = 57, 9, 6
    W = ski.InterpWeights(n, r)
    coeffs = rng.standard_normal((2 * r - 1, d))
    rows, cols = skit.SKIPlan(W, coeffs, dtype=dtype), skit.SKIPlan(W, coeffs, dtype=dtype, layout="columns")
    name = "skit_ski_plan_execute" + ("_f32" if dtype == np.float32 else "")
    check_rows_in_place(monkeypatch, name, rows, cols, rng.standard_normal((3, n, d)).astype(dtype))
    with pytest.raises(ValueError, match="layout"):
        skit.SKIPlan(W, coeffs, layout="diagonal")


def test_nystrom_and_sparse_lowrank_rows_in_place(rng, monkeypatch):
    """NystromPlan and SparseLowRankPlan default to the rows layout: the
    library gets C-ordered (..., n, d) arrays at their own addresses with
    ld = d (the row stride), and the result is the columns layout's (to
    rounding: the GEMMs' and the SKI part's sums may be ordered
    differently, skit/ski.h); a rows call allocates only its output."""
    import tracemalloc
    from skit import _array
    n, r, d = 57, 9, 6
    W = ski.InterpWeights(n, r)
    coeffs = rng.standard_normal((2 * r - 1, d))
    band = rng.standard_normal((5, d))
    x = rng.standard_normal((3, n, d))
    slr = ski.SparseLowRankPlan(n, d, band=band, weights=W, coeffs=coeffs)
    assert slr.layout == "rows"
    check_rows_in_place(monkeypatch, "skit_sparse_lowrank_plan_execute", slr,
                        ski.SparseLowRankPlan(n, d, band=band, weights=W, coeffs=coeffs, layout="columns"), x)
    kernel = skit.Kernel.matern52(1.0, 4.0)
    ny, ny_cols = skit.NystromPlan(kernel, n, r), skit.NystromPlan(kernel, n, r, layout="columns")
    assert ny.layout == "rows"
    seen = recording(monkeypatch, "skit_nystrom_plan_execute")
    y = ny(x)
    assert [s[2] for s in seen] == [_array.pointer(x) + 8 * n * d * b for b in range(3)]
    assert [s[4] for s in seen] == [_array.pointer(y) + 8 * n * d * b for b in range(3)]
    assert all(s[3] == d and s[5] == d for s in seen) and y.flags.c_contiguous
    assert rel(y, ny_cols(x)) < 1e-14 and rel(y, ny.dense() @ x) < 1e-10
    for plan in (ny, slr):
        plan(x)  # warm up
        tracemalloc.start()
        out = plan(x)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 1.1 * out.nbytes + 65536, (plan, peak, out.nbytes)
    with pytest.raises(ValueError, match="layout"):
        skit.NystromPlan(kernel, n, r, layout="diagonal")
    with pytest.raises(ValueError, match="layout"):
        ski.SparseLowRankPlan(n, d, band=band, layout="diagonal")


def test_sparse_lowrank_band_shape_is_checked(rng):
    """A band in any shape but (m, d) is refused, not reshaped: (d, m) of
    the former layout would otherwise mix taps across channels."""
    n, d = 20, 3
    with pytest.raises(ValueError, match=r"band must have shape \(m, 3\)"):
        ski.SparseLowRankPlan(n, d, band=rng.standard_normal((d, 5)))
    with pytest.raises(ValueError, match="band must have shape"):
        ski.SparseLowRankPlan(n, d, band=rng.standard_normal(15))
    one = ski.SparseLowRankPlan(n, 1, band=rng.standard_normal(5))
    assert one(rng.standard_normal(n)).shape == (n,)
