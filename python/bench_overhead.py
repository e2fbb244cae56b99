"""Per-call overhead of the Python binding on a Toeplitz product (n = 16,
d = 1 by default: the overhead alone), against the same execute called
from C in a loop and against the CLI; --n 1024 --d 64 gives the ratio at a
size where the product dominates (x a C-ordered (n, d) array, which the
plan's rows layout reads in place).

  /usr/bin/python3 python/bench_overhead.py [--n N] [--d D] [--rounds R] [--calls K] [--skit PATH]

plan(x, out=y) and plan(x) take the cffi path when cffi is importable
(see skit/_lib.py), the ctypes path otherwise. Each round times K calls of
every variant, interleaved; the minimum per
call over R rounds is reported (min-of-N: the least disturbed round).
Single-threaded (OMP_NUM_THREADS=1), float64. The C loop is compiled here
with cc against lib/ and the same libskit ($SKIT_LIBRARY or the build tree).
"""
import argparse
import ctypes
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import skit  # noqa: E402
from skit import _array, _lib  # noqa: E402

C_LOOP = r"""
#include "skit.h"
double loop(const skit_toeplitz_plan *plan, const double *x, double *y, size_t ld, long calls)
{
    double t0 = skit_clock_seconds();
    for (long i = 0; i < calls; i++)
        if (skit_toeplitz_plan_execute(plan, x, ld, y, ld, NULL)) return -1;
    return (skit_clock_seconds() - t0) / (double)calls;
}
"""


def build_c_loop(tmp):
    src = os.path.join(tmp, "loop.c")
    with open(src, "w") as f:
        f.write(C_LOOP)
    so = os.path.join(tmp, "libloop.so")
    libdir = os.path.dirname(_lib.path)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-I", os.path.join(HERE, "..", "lib"), src,
                    "-o", so, "-L", libdir, "-l:" + os.path.basename(_lib.path),
                    "-Wl,-rpath," + libdir], check=True)
    loop = ctypes.CDLL(so).loop
    loop.restype = ctypes.c_double
    loop.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_size_t, ctypes.c_long]
    return loop


def per_call(fn, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--cli-calls", type=int, default=20)
    ap.add_argument("--skit", default=os.path.join(HERE, "..", "build", "tools", "skit"))
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--d", type=int, default=1)
    args = ap.parse_args()
    n, d = args.n, args.d
    rng = np.random.default_rng(1)
    coeffs = rng.standard_normal((2 * n - 1, d))
    x = rng.standard_normal((n, d) if d > 1 else n)
    y = np.empty_like(x)
    plan = skit.ToeplitzPlan(coeffs, n)  # the rows layout: a row's d values, ld = d
    raw = _lib.lib.skit_toeplitz_plan_execute
    px, py, pp = _array.pointer(x), _array.pointer(y), plan._ptr
    tmp = tempfile.mkdtemp()
    try:
        loop = build_c_loop(tmp)
        np.save(os.path.join(tmp, "c.npy"), coeffs)
        np.save(os.path.join(tmp, "x.npy"), x)
        cli = [args.skit, "toeplitz", "matvec", "--coeffs", os.path.join(tmp, "c.npy"), "--x",
               os.path.join(tmp, "x.npy"), "--threads", "1", "-o", os.path.join(tmp, "y.npy")]
        have_cli = os.access(args.skit, os.X_OK)
        variants = {
            "C loop (skit_toeplitz_plan_execute)": lambda: loop(pp, px, py, d, args.calls),
            "ctypes call, raw pointers": lambda: per_call(
                lambda: raw(pp, px, d, py, d, None), args.calls),
            "plan(x, out=y)": lambda: per_call(lambda: plan(x, out=y), args.calls),
            "plan(x)": lambda: per_call(lambda: plan(x), args.calls),
            "plan(x, out=y), ctypes path (no cffi)": lambda: per_call(
                lambda: plan._apply(x, y, False, None), args.calls),
        }
        if d == 1:
            variants["matmul_toeplitz(c, x) (plan per call)"] = lambda: per_call(
                lambda: skit.matmul_toeplitz((coeffs[n - 1:, 0], coeffs[n - 1::-1, 0]), x),
                max(args.calls // 10, 1))
        if _lib.hot is not None:
            cffi_exec, hh, null, buf = (_lib.hot.skit_toeplitz_plan_execute, plan._hot, _lib.hot_null,
                                 _lib.hot_buffer)
            variants["cffi call, from_buffer"] = lambda: per_call(
                lambda: cffi_exec(hh, buf(x), d, buf(y, True), d, null), args.calls)
        if have_cli:
            variants["CLI: skit toeplitz matvec (process + files)"] = lambda: per_call(
                lambda: subprocess.run(cli, check=True), args.cli_calls)
        best = {k: float("inf") for k in variants}
        for r in range(args.rounds):
            for name, fn in variants.items():
                if name.startswith("CLI") and r >= 3:
                    continue  # 3 rounds of the CLI are enough at ~0.1 s a call
                best[name] = min(best[name], fn())
        want = np.stack([skit.toeplitz.dense(coeffs[:, c], n) @ x.reshape(n, d)[:, c] for c in range(d)], -1)
        assert np.allclose(plan(x).reshape(n, d), want)
    finally:
        shutil.rmtree(tmp)
    base = best["C loop (skit_toeplitz_plan_execute)"]
    print(f"# skit {skit.version()} Python {platform.python_version()} numpy {np.__version__}; "
          f"{platform.processor() or platform.machine()}; OMP_NUM_THREADS="
          f"{os.environ['OMP_NUM_THREADS']}; n = {n}, d = {d}, float64; min of {args.rounds} "
          f"rounds x {args.calls} calls; load average {os.getloadavg()[0]:.1f}")
    print(f"{'variant':46s} {'us/call':>10s} {'over C (us)':>12s} {'/ C':>7s}")
    for name, t in best.items():
        print(f"{name:46s} {t * 1e6:10.2f} {(t - base) * 1e6:12.2f} {t / base:7.3f}")


if __name__ == "__main__":
    main()
