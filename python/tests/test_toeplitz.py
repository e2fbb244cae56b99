import numpy as np
import pytest
import scipy.linalg as sl

import skit
from skit import _array, _lib
from conftest import SIZES, rel
from conftest import recording as _recording


@pytest.mark.parametrize("m,n", [(1, 1), (5, 5), (7, 3), (3, 11), (31, 31), (64, 97)])
def test_dense_matches_scipy(rng, m, n):
    c, r = rng.standard_normal(m), rng.standard_normal(n)
    coeffs, mm, nn = skit.from_scipy(c, r)
    assert (mm, nn) == (m, n)
    assert rel(skit.toeplitz.dense(coeffs, m, n), sl.toeplitz(c, r)) < 1e-15
    x = rng.standard_normal(n)
    assert rel(skit.toeplitz.matvec_dense(coeffs, x, m, n), sl.toeplitz(c, r) @ x) < 1e-13


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("k", [1, 3])
def test_matmul_toeplitz_matches_scipy(rng, n, k):
    c, r = rng.standard_normal(n), rng.standard_normal(n)
    x = rng.standard_normal((n, k))
    want = sl.matmul_toeplitz((c, r), x)
    assert rel(skit.matmul_toeplitz((c, r), x), want) < 1e-12
    assert rel(skit.matmul_toeplitz(c, x[:, 0]), sl.matmul_toeplitz(c, x[:, 0])) < 1e-12


@pytest.mark.parametrize("m,n,d", [(16, 16, 1), (7, 13, 3), (31, 5, 2), (97, 97, 4)])
@pytest.mark.parametrize("causal", [False, True])
def test_plan_per_channel_batched(rng, m, n, d, causal):
    coeffs = rng.standard_normal((m + n - 1, d))
    x = rng.standard_normal((2, 3, n, d))
    mats = [skit.toeplitz.dense(coeffs[:, c], m, n, causal) for c in range(d)]
    if causal:
        assert all(np.allclose(np.triu(M, 1), 0) for M in mats)
    with skit.ToeplitzPlan(coeffs, m, n, causal=causal) as plan:
        y = plan(x)
        yt = plan.transpose(rng.standard_normal((2, 3, m, d)) * 0 + y)
    assert y.shape == (2, 3, m, d) and yt.shape == (2, 3, n, d)
    want = np.stack([np.einsum("ij,...j->...i", mats[c], x[..., c]) for c in range(d)], -1)
    assert rel(y, want) < 1e-12
    want_t = np.stack([np.einsum("ji,...j->...i", mats[c], y[..., c]) for c in range(d)], -1)
    assert rel(yt, want_t) < 1e-12
    assert plan.closed


def test_plan_shared_and_vector(rng):
    n = 37
    coeffs = rng.standard_normal(2 * n - 1)
    T = skit.toeplitz.dense(coeffs, n)
    plan = skit.ToeplitzPlan(coeffs, n)
    x = rng.standard_normal(n)
    assert plan(x).shape == (n,)
    assert rel(plan(x), T @ x) < 1e-12
    X = rng.standard_normal((4, n, 5))
    assert rel(plan(X), T @ X) < 1e-12
    new = rng.standard_normal(2 * n - 1)
    plan.set_coeffs(new)
    assert rel(plan(x), skit.toeplitz.dense(new, n) @ x) < 1e-12
    assert plan.fft_length >= 2 * n - 1 and plan.nbytes > 0
    plan.close()
    plan.close()
    with pytest.raises(ValueError, match="closed"):
        plan(x)


def test_zero_copy_pointers(rng, monkeypatch):
    """The rows layout (the default) reads and writes numpy's C order in
    place; the columns layout F order. Either copies the other order."""
    n, d = 33, 4
    coeffs = rng.standard_normal((2 * n - 1, d))
    plan = skit.ToeplitzPlan(coeffs, n)
    assert plan.layout == "rows"
    plan._hot = None  # the general (ctypes) path; the cffi path is tested below
    seen = _recording(monkeypatch, "skit_toeplitz_plan_execute")
    x_c = rng.standard_normal((n, d))
    out = np.empty((n, d))
    y = plan(x_c, out=out)
    assert y is out
    assert seen[-1][1] == _array.pointer(x_c) and seen[-1][3] == _array.pointer(out)
    assert seen[-1][2] == d and seen[-1][4] == d  # leading dimensions: a row's d values
    # a C-contiguous batch (3, n, d): every block in place; every other row
    # of a taller array: in place, with a leading dimension of 2d
    xb = rng.standard_normal((3, n, d))
    seen.clear()
    yb = plan(xb)
    assert [s[1] for s in seen] == [_array.pointer(xb) + 8 * n * d * b for b in range(3)]
    assert yb.flags.c_contiguous
    tall = rng.standard_normal((2 * n, d))
    seen.clear()
    assert rel(plan(tall[::2]), plan(np.ascontiguousarray(tall[::2]))) == 0
    assert seen[0][1] == _array.pointer(tall) and seen[0][2] == 2 * d
    # an F-ordered (n, d) array with d > 1 is copied once, to the same result
    x_f = np.asfortranarray(x_c)
    seen.clear()
    assert rel(plan(x_f), plan(x_c)) == 0
    assert seen[0][1] != _array.pointer(x_f)
    # the columns layout: F order in place, C order copied
    pc = skit.ToeplitzPlan(coeffs, n, layout="columns")
    pc._hot = None
    out_f = np.empty((d, n)).T
    seen.clear()
    assert pc(x_f, out=out_f) is out_f and rel(out_f, plan(x_c)) < 1e-15
    assert seen[0][1] == _array.pointer(x_f) and seen[0][3] == _array.pointer(out_f)
    xv = rng.standard_normal((3, d, n)).swapaxes(-1, -2)
    seen.clear()
    pc(xv)
    assert [s[1] for s in seen] == [_array.pointer(xv) + 8 * n * d * b for b in range(3)]
    # a shared plan (one matrix, any d) reads each channel of the rows in place
    p1 = skit.ToeplitzPlan(coeffs[:, 0], n)
    p1._hot = None
    seen.clear()
    y1 = p1(x_c)
    assert [s[1] for s in seen] == [_array.pointer(x_c) + 8 * c for c in range(d)]
    assert rel(y1[:, 2], skit.toeplitz.dense(coeffs[:, 0], n) @ x_c[:, 2]) < 1e-12
    with pytest.raises(ValueError, match="layout"):
        skit.ToeplitzPlan(coeffs, n, layout="diagonal")


def test_rows_call_allocates_nothing_of_its_size(rng):
    """No copy of x or y: a call with out= in the plan's layout allocates
    (numpy memory, as tracemalloc sees it) far less than x."""
    import tracemalloc
    n, d = 4096, 16
    for layout in ("rows", "columns"):
        with skit.ToeplitzPlan(rng.standard_normal((2 * n - 1, d)), n, layout=layout) as plan:
            plan._hot = None
            # (2, n, d) in the layout: C order, or each (n, d) block F-ordered
            x = rng.standard_normal((2, n, d)) if layout == "rows" else \
                rng.standard_normal((2, d, n)).swapaxes(-1, -2)
            out = np.empty_like(x) if layout == "rows" else np.empty((2, d, n)).swapaxes(-1, -2)
            plan(x, out=out)  # warm up
            tracemalloc.start()
            plan(x, out=out)
            plan.transpose(x, out=out)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert peak < x.nbytes // 16, (layout, peak, x.nbytes)


@pytest.mark.skipif(_lib.hot is None, reason="cffi not importable: no fast path")
def test_fast_path_zero_copy(rng, monkeypatch):
    """The cffi path hands the library the arrays' own memory."""
    ffi = _lib._ffi
    seen = []
    original = _lib.hot_buffer

    def recording(array, writable=False):
        buf = original(array, writable)
        seen.append(int(ffi.cast("uintptr_t", buf)))
        return buf
    monkeypatch.setattr(skit.toeplitz, "_hot_buffer", recording)
    n, d = 29, 3
    coeffs = rng.standard_normal((2 * n - 1, d))
    plan = skit.ToeplitzPlan(coeffs, n)
    x = rng.standard_normal((n, d))
    out = np.empty((n, d))
    assert plan(x, out=out) is out
    assert seen == [_array.pointer(out), _array.pointer(x)]
    pc = skit.ToeplitzPlan(coeffs, n, layout="columns")
    xf, out_f = np.asfortranarray(x), np.empty((d, n)).T
    seen.clear()
    assert pc(xf, out=out_f) is out_f and rel(out_f, out) < 1e-15
    assert seen == [_array.pointer(out_f), _array.pointer(xf)]
    want = np.stack([skit.toeplitz.dense(coeffs[:, c], n) @ x[:, c] for c in range(d)], -1)
    assert rel(out, want) < 1e-12
    assert rel(plan.transpose(x), np.stack(
        [skit.toeplitz.dense(coeffs[:, c], n).T @ x[:, c] for c in range(d)], -1)) < 1e-12
    p1 = skit.ToeplitzPlan(coeffs[:, 0], n)
    v = rng.standard_normal(n)
    seen.clear()
    y = p1(v)
    assert seen[1] == _array.pointer(v) and rel(y, skit.toeplitz.dense(coeffs[:, 0], n) @ v) < 1e-12
    ro = np.empty(n)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        p1(v, out=ro)


def test_errors_carry_skit_message(rng):
    coeffs = rng.standard_normal(9)
    coeffs[3] = np.nan
    with pytest.raises(ValueError) as err:
        skit.ToeplitzPlan(coeffs, 5)
    assert isinstance(err.value, skit.Error) and err.value.status_name == "SKIT_ENONFINITE"
    assert str(err.value) == _lib.last_error() and "coeffs" in str(err.value)
    assert err.value.location.endswith(tuple("0123456789"))
    with pytest.raises(ValueError, match="rows"):
        skit.ToeplitzPlan(rng.standard_normal(9), 5)(np.ones(4))
    with pytest.raises(ValueError, match="need m >= 1"):
        skit.ToeplitzPlan(np.ones(1), 0, 1)


def test_float32_is_never_silent(rng):
    n = 16
    c = rng.standard_normal(2 * n - 1)
    plan = skit.ToeplitzPlan(c, n)
    x = rng.standard_normal((n, 2)).astype(np.float32)
    # a float64 plan computes float32 data only when asked to
    with pytest.raises(TypeError, match="upcast=True"):
        plan(x)
    y = plan(x, upcast=True)
    assert y.dtype == np.float32
    assert rel(y, plan(x.astype(np.float64))) < 1e-6
    # a float32 plan (fftwf) takes float32 data only, and returns float32
    plan32 = skit.ToeplitzPlan(c, n, dtype=np.float32)
    y32 = plan32(x)
    assert y32.dtype == np.float32
    assert rel(y32, plan(x.astype(np.float64))) < 1e-5
    with pytest.raises(TypeError, match="float32"):
        plan32(x.astype(np.float64))


@pytest.mark.parametrize("m,n,d,causal,shared", [(1, 1, 1, False, False), (7, 5, 3, False, False),
                                                 (13, 13, 2, True, False), (4, 9, 2, False, True),
                                                 (31, 31, 3, True, True)])
def test_plan_backward_matches_dense(rng, m, n, d, causal, shared):
    coeffs = rng.standard_normal(m + n - 1) if shared else rng.standard_normal((m + n - 1, d))
    x, dy = rng.standard_normal((2, n, d)), rng.standard_normal((2, m, d))
    want_dc = np.zeros((d, m + n - 1))
    want_dx = np.empty_like(x)
    for c in range(d):
        T = skit.toeplitz.dense(coeffs if shared else coeffs[:, c], m, n, causal=causal)
        want_dx[..., c] = dy[..., c] @ T
        for i in range(m):
            for j in range(n):
                if not causal or i >= j:  # dt_k = sum_i dy_i x_{i-k}, summed over the batch
                    want_dc[c, i - j + n - 1] += dy[:, i, c] @ x[:, j, c]
    want_dc = want_dc.sum(axis=0) if shared else want_dc.T  # lags by channels
    with skit.ToeplitzPlan(coeffs, m, n, causal=causal, shared=shared) as plan:
        dc, dx = plan.backward(x, dy)
        assert rel(dx, want_dx) < 1e-12 and rel(dc, want_dc) < 1e-12
        assert plan.backward(x, dy, dcoeffs=False)[0] is None
        assert plan.backward(x, dy, dx=False)[1] is None
        with pytest.raises(ValueError, match="dy"):
            plan.backward(x, dy[:, :-1] if m > 1 else dy[:1])


@pytest.mark.parametrize("n", SIZES)
def test_solve_matches_scipy(rng, n):
    c, r = rng.standard_normal(n), rng.standard_normal(n)
    c[0] = 4 * n  # diagonally dominant: every leading minor nonsingular
    b = rng.standard_normal((n, 3))
    x, info = skit.solve_toeplitz((c, r), b, info=True)
    assert rel(x, sl.solve_toeplitz((c, r), b)) < 1e-10
    # the library's own check, reproduced here with the dense matrix
    T = sl.toeplitz(c, r)
    eta = (np.abs(b - T @ x).max(axis=0)
           / (np.abs(T).sum(axis=1).max() * np.abs(x).max(axis=0) + np.abs(b).max(axis=0)))
    assert info.solver == "levinson" and info.refinement_steps == 0 and info.levinson_completed
    assert info.backward_error <= info.tolerance
    assert info.tolerance == pytest.approx(32 * n * np.finfo(float).eps)
    # (equal up to the rounding of the residual, computed by FFT in skit)
    assert info.backward_error == pytest.approx(eta.max(), rel=0.5, abs=n * 1e-16)
    # rcond: LAPACK's estimate is within a factor n of the true 1-norm value
    true_rcond = 1 / (np.abs(T).sum(axis=0).max() * np.abs(np.linalg.inv(T)).sum(axis=0).max())
    assert true_rcond / n <= info.rcond <= true_rcond * n
    t = rng.standard_normal(n) * 0.1
    t[0] = 2.0 + np.abs(t[1:]).sum() * 2
    xs = skit.solve_spd(t, b[:, 0])
    assert rel(sl.toeplitz(t) @ xs, b[:, 0]) < 1e-12
    xs, info = skit.solve_spd(t, b, info=True)
    assert rel(xs, sl.solve_toeplitz(t, b)) < 1e-10
    assert isinstance(info, skit.SolveInfo) and info.backward_error <= info.tolerance
    # batched right-hand sides
    bb = rng.standard_normal((2, n, 2))
    coeffs, _, _ = skit.from_scipy(c, r)
    assert rel(skit.solve(coeffs, bb), np.linalg.solve(sl.toeplitz(c, r), bb)) < 1e-9


def test_solve_tiny_leading_minor_is_refined(rng):
    # t_0 = 1e-12: the first leading minor is nearly singular, so Levinson is
    # unstable although T itself is well conditioned; the library must notice
    # and answer with refinement or dense LU, still meeting its bound
    n = 8
    c = rng.standard_normal(n)
    c[0] = 1e-12
    r = rng.standard_normal(n)
    T = sl.toeplitz(c, r)
    b = rng.standard_normal((n, 2))
    x, info = skit.solve_toeplitz((c, r), b, info=True)
    assert info.solver in ("refined", "dense-lu"), info
    assert info.backward_error <= info.tolerance < info.levinson_backward_error or \
        not info.levinson_completed
    assert rel(x, np.linalg.solve(T, b)) < 1e-12 / info.rcond
    # scipy's solve_toeplitz is the plain (unchecked) Levinson recursion: here
    # its residual is at least skit's, typically orders of magnitude larger
    assert np.abs(T @ sl.solve_toeplitz((c, r), b) - b).max() >= np.abs(T @ x - b).max()


def test_solve_info_batched_is_worst(rng):
    n = 8
    good, _, _ = skit.from_scipy(np.r_[10.0, rng.standard_normal(n - 1)],
                                 np.r_[10.0, rng.standard_normal(n - 1)])
    b = rng.standard_normal((3, n, 2))
    x, info = skit.solve(good, b, info=True)
    singles = [skit.solve(good, b[i], info=True)[1] for i in range(3)]
    assert info.backward_error == max(s.backward_error for s in singles)
    assert info.rcond == min(s.rcond for s in singles)
    assert rel(x, np.stack([skit.solve(good, b[i]) for i in range(3)])) == 0


def test_solve_breakdown_is_runtime_error():
    # t_0 = 0: Levinson breaks down at once, but T is nonsingular: dense LU
    c, r = [0.0, 1.0, 2.0], [0.0, 3.0, 1.0]
    x, info = skit.solve_toeplitz((c, r), np.ones(3), info=True)
    assert info.solver == "dense-lu" and not info.levinson_completed
    assert np.isnan(info.levinson_backward_error)
    assert rel(x, np.linalg.solve(sl.toeplitz(c, r), np.ones(3))) < 1e-14
    # a singular T: no method meets the bound, X untouched, skit's message
    coeffs, _, _ = skit.from_scipy([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
    with pytest.raises(RuntimeError) as err:
        skit.solve(coeffs, np.arange(3.0))
    assert err.value.status_name == "SKIT_EBREAKDOWN" and str(err.value)
    with pytest.raises(RuntimeError, match="") as err:
        skit.solve_spd([1.0, 2.0, 0.0], np.ones(3))
    assert err.value.status_name == "SKIT_ENOTPD"


def _rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def test_no_leak_over_1e5_plans(rng):
    coeffs = rng.standard_normal(31)
    x = rng.standard_normal(16)
    for _ in range(2000):  # warm up: FFTW wisdom, allocator pools
        with skit.ToeplitzPlan(coeffs, 16) as p:
            p(x)
    before = _rss()
    for i in range(100_000):
        p = skit.ToeplitzPlan(coeffs, 16)
        if i % 2:
            p.close()  # the others are freed by __del__
    del p
    grown = _rss() - before
    assert grown < 8 << 20, f"RSS grew by {grown} bytes over 1e5 plans"


def test_gil_released_during_execute(rng):
    """While one thread is inside a long C call, another keeps running Python
    (ctypes.CDLL drops the GIL; with it held the spinner would stall)."""
    import threading
    import time
    n, d = 1 << 16, 32
    plan = skit.ToeplitzPlan(rng.standard_normal((2 * n - 1, d)), n)
    x = rng.standard_normal((n, d))
    out = np.empty((n, d))
    done = threading.Event()
    ticks = [0]

    def spin():
        while not done.is_set():
            ticks[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    a = ticks[0]
    t0 = time.perf_counter()
    time.sleep(0.2)
    rate = (ticks[0] - a) / (time.perf_counter() - t0)
    a = ticks[0]
    t0 = time.perf_counter()
    plan(x, out=out)
    elapsed = time.perf_counter() - t0
    during = ticks[0] - a
    done.set()
    t.join()
    assert during > 0.05 * rate * elapsed, (during, rate, elapsed)


def test_fft_good_length():
    for n in (1, 7, 11, 13, 97, 1000):
        g = skit.fft_good_length(n)
        r = g
        for p in (2, 3, 5, 7):
            while r % p == 0:
                r //= p
        assert g >= n and r == 1
    assert skit.fft_good_length(11) == 12


def test_one_coefficient_layout_with_the_cli(rng, tmp_path):
    """The CLI's files and the binding's arrays hold the same (2n-1, d)
    matrix, lags by channels (docs/layout.md): the arrays saved as they are
    give the CLI the binding's product."""
    import os
    import subprocess
    exe = os.environ.get("SKIT")
    if not exe or not os.access(exe, os.X_OK):
        pytest.skip("SKIT (the CLI binary) not set: make check sets it")
    n, d = 23, 3
    coeffs, x = rng.standard_normal((2 * n - 1, d)), rng.standard_normal((n, d))
    np.save(tmp_path / "c.npy", coeffs)
    np.save(tmp_path / "x.npy", x)
    subprocess.run([exe, "toeplitz", "matvec", "--coeffs", str(tmp_path / "c.npy"), "--x",
                    str(tmp_path / "x.npy"), "-o", str(tmp_path / "y.npy")], check=True)
    with skit.ToeplitzPlan(coeffs, n) as plan:
        assert rel(np.load(tmp_path / "y.npy"), plan(x)) < 1e-13
