"""skit.torch's Toeplitz (or TNO plan) forward + backward against the same
library calls made directly from numpy (the binding's and autograd's
overhead: the plans read PyTorch's row-major (B, n, d) tensors in place).

  /usr/bin/python3 python/bench_torch.py [--op toeplitz|tno] [--n 2048] [--d 512]
                                         [--batch 1] [--rounds 7]

--op tno: skit.torch.tno(x, plan, params, decay) then backward (gradients
for x, the RPE parameters and lambda) against plan.set_parameters,
plan(x) and plan.backward(x, g) on the same arrays (TNO plan, default
settings: RPE width 64, 3 layers).

Step = y = T x (per-channel T, coefficients and x requiring gradients),
then backward: T^T g for x and the correlation of g and x for the
coefficients (skit_toeplitz_plan_backward). The direct column makes the
same set_coeffs, execute and backward through skit.ToeplitzPlan on the
same arrays. float64; min over interleaved rounds.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import skit  # noqa: E402
import skit.torch as st  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--op", choices=("toeplitz", "tno"), default="toeplitz")
    a = ap.parse_args()
    n, d, b = a.n, a.d, a.batch
    direct, autograd = (_toeplitz_steps if a.op == "toeplitz" else _tno_steps)(n, d, b)
    best = {"direct library calls": np.inf, "skit.torch forward + backward": np.inf}
    for _ in range(a.rounds):
        for name, fn in (("direct library calls", direct), ("skit.torch forward + backward",
                                                            autograd)):
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    ratio = best["skit.torch forward + backward"] / best["direct library calls"]
    print(f"# {a.op}: n = {n}, d = {d}, batch = {b}, float64, OMP threads = "
          f"{os.environ.get('OMP_NUM_THREADS', 'default')}, torch {torch.__version__}; min of "
          f"{a.rounds} rounds; load average {os.getloadavg()[0]:.1f}")
    for name, t in best.items():
        print(f"{name:32s} {t * 1e3:9.2f} ms")
    print(f"{'ratio':32s} {ratio:9.2f}")


def _tno_steps(n, d, b):
    rng = np.random.default_rng(1)
    plan = skit.TNOPlan(n, d, b, kind="tno", decay=0.99)
    params = plan.parameters
    x, g = rng.standard_normal((b, n, d)), rng.standard_normal((b, n, d))
    pt = torch.tensor(params, requires_grad=True)
    lt = torch.tensor(plan.decay, dtype=torch.float64, requires_grad=True)
    xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(g)

    def direct():
        plan.set_parameters(params)  # a training step's parameters are new
        plan(x)
        plan.backward(x, g)

    def autograd():
        pt.grad = lt.grad = xt.grad = None
        st.tno(xt, plan, pt, lt).backward(gt)

    return direct, autograd


def _toeplitz_steps(n, d, b):
    rng = np.random.default_rng(1)
    coeffs = rng.standard_normal((2 * n - 1, d))
    x = rng.standard_normal((b, n, d))
    g = rng.standard_normal((b, n, d))
    ct = torch.tensor(coeffs, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    gt = torch.tensor(g)
    # direct: the plan and layout (rows) skit.torch uses, on the same arrays
    plan = skit.ToeplitzPlan(coeffs, n)
    xb, gb = x, g

    def direct():
        plan.set_coeffs(coeffs)  # a training step's coefficients are new
        plan(xb)
        plan.backward(xb, gb)

    def autograd():
        ct.grad = xt.grad = None
        st.toeplitz(ct, xt).backward(gt)

    return direct, autograd


if __name__ == "__main__":
    main()
