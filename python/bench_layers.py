"""skit.torch's token-mixing layers against the pure-PyTorch peer, in
PyTorch's terms: one layer's forward + backward (gradients for x and every
parameter) in float32, per layer and shape, one thread and all threads.

  /usr/bin/python3 python/bench_layers.py [--shapes 512:512:4,2048:512:1,8192:128:1,32768:64:1]
                                          [--ops tno,fd,ski] [--rounds 5] [-o FILE]

skit: skit.torch.TNOPlanModule over a float32 skit.TNOPlan of the kind
(its defaults: RPE 1 -> 64, 3 hidden layers, ReLU, RMS norm; TNO decay
0.99, learnt; FD length the next power of two >= 2n; SKI r = 64, 17 taps).
Peer: bench/peers/tno_torch.py's modules loaded from the same plan
(from_plan: its settings and parameters; TNO's lambda learnt through a
logit as TNOPlanModule learns it), which compute skit's layer function
(python/tests/test_peer.py checks output and every gradient against the
plan's to 1e-12 in float64) in the papers' code structure: an RPE MLP
makes the kernel at the lags or frequencies the layer needs, then
torch.fft products; SKI as its band conv + interpolation + FFT; float32,
backward by autograd. Both bidirectional and causal (the SKI peer has no
causal form: bidirectional only). The time of one step is the minimum
over interleaved rounds; the ratio is peer / skit (> 1: skit faster). Three
columns then split skit's step at the numpy level (forward with the
kernels' update; backward of x only; backward of the parameters only).
The last two give a floor: apply_floor_s is one float32 skit.ToeplitzPlan
applying per-channel (2n-1)-lag kernels of the same shape and its
transpose (x -> y, dy -> dx, spectra cached, outputs preallocated: FFTW
transforms and a pointwise product each), which every step of these
layers must do at least (their forward and their backward of x are such
products; SKI's are on r << n points and may beat it); peer_over_floor =
peer_s / apply_floor_s bounds the ratio any such step could reach. A
benchmark, not a test: the numbers depend on the machine named in the header."""
import argparse
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench", "peers"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import skit  # noqa: E402
import skit.torch as st  # noqa: E402
import tno_torch  # noqa: E402
from blas_threads import set_threads  # noqa: E402


def machine():
    model, flags = platform.processor() or platform.machine(), []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model in ("", platform.machine()):
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags"):
                    have = set(line.split(":", 1)[1].split())
                    flags = [f for f in ("avx", "avx2", "fma", "avx512f") if f in have]
                    break
    except OSError:
        pass
    return f"{model}; ISA {' '.join(flags) or '?'}; {os.cpu_count()} CPUs"


def omp_threads(count):
    """OpenMP's thread count for libskit's plans made after this call (a
    plan keeps the count it was made with); torch and OpenBLAS are set by
    blas_threads.set_threads."""
    import ctypes
    import ctypes.util
    name = ctypes.util.find_library("gomp")
    if name:
        ctypes.CDLL(name).omp_set_num_threads(ctypes.c_int(count))


def step_time(module, x, params, rounds):
    """min over rounds of forward + backward (x and params get gradients)."""
    g = torch.randn_like(x)
    best = float("inf")
    for r in range(rounds + 1):  # the first is a warm-up (plans, caches)
        for p in params:
            p.grad = None
        x.grad = None
        t0 = time.perf_counter()
        module(x).backward(g)
        t = time.perf_counter() - t0
        if r:
            best = min(best, t)
    return best


def parts_time(plan, x, rounds):
    """min over rounds of skit's pieces of a step on plan, numpy level:
    (forward: set_parameters + plan(x), backward dx only, backward of the
    parameters (and lambda) only) -- where the layer's time goes."""
    xs = x.detach().numpy()
    g = np.random.default_rng(0).standard_normal(xs.shape).astype(xs.dtype)
    params = plan.parameters
    pieces = (lambda: (plan.set_parameters(params), plan(xs)),
              lambda: plan.backward(xs, g, dparams=False, dlambda=False),
              lambda: plan.backward(xs, g, dx=False))
    best = [float("inf")] * len(pieces)
    for r in range(rounds + 1):
        for i, piece in enumerate(pieces):
            t0 = time.perf_counter()
            piece()
            if r:
                best[i] = min(best[i], time.perf_counter() - t0)
    return best


def apply_floor_time(plan, x, rounds):
    """min over rounds of a float32 skit.ToeplitzPlan's product and
    transposed product with per-channel (2n-1)-lag kernels at the plan's
    (batch, n, d), spectra cached and outputs preallocated."""
    n, d = plan.n, plan.d
    coeffs = np.random.default_rng(0).standard_normal((2 * n - 1, d)).astype(np.float32)
    toeplitz = skit.ToeplitzPlan(coeffs, n, n, dtype=np.float32)
    xs = x.detach().numpy()
    y, dx = np.empty_like(xs), np.empty_like(xs)
    best = float("inf")
    for r in range(rounds + 1):
        t0 = time.perf_counter()
        toeplitz(xs, out=y)
        toeplitz.transpose(y, out=dx)
        if r:
            best = min(best, time.perf_counter() - t0)
    toeplitz.close()
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="512:512:4,2048:512:1,8192:128:1,32768:64:1")
    ap.add_argument("--ops", default="tno,fd,ski")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="the 'all threads' count (default: torch's)")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    out = open(a.output, "w") if a.output else sys.stdout
    all_threads = a.threads if a.threads > 0 else torch.get_num_threads()
    print(f"# skit {skit.version()}, torch {torch.__version__}, numpy {np.__version__}; {machine()}; "
          f"float32; one layer forward + backward; seconds, min of {a.rounds} rounds after a warm-up; "
          f"all threads = {all_threads}; 1-minute load {os.getloadavg()[0]:.2f} at start", file=out)
    print("op\tcausal\tn\td\tbatch\tthreads\tskit_s\tpeer_s\tpeer_over_skit\tskit_fwd_s\tskit_bwd_dx_s"
          "\tskit_bwd_params_s\tapply_floor_s\tpeer_over_floor", file=out, flush=True)
    peers = {"tno": tno_torch.Tno, "fd": tno_torch.FdTno, "ski": tno_torch.SkiTno}
    torch.manual_seed(1)
    for shape in a.shapes.split(","):
        n, d, batch = (int(v) for v in shape.split(":"))
        for op in a.ops.split(","):
            for causal in ((False,) if op == "ski" else (False, True)):
                x = torch.randn(batch, n, d, dtype=torch.float32, requires_grad=True)
                for threads in sorted({1, all_threads}):
                    set_threads(threads)
                    omp_threads(threads)
                    plan = skit.TNOPlan(n, d, batch, kind=op, causal=causal, dtype=np.float32)
                    ours = st.TNOPlanModule(plan)
                    peer = peers[op].from_plan(plan)  # the same function, parameters and learnt lambda
                    ts = step_time(ours, x, list(ours.parameters()), a.rounds)
                    tp = step_time(peer, x, list(peer.parameters()), a.rounds)
                    floor = apply_floor_time(plan, x, a.rounds)
                    parts = "\t".join(f"{t:.6g}" for t in parts_time(plan, x, a.rounds) + [floor])
                    parts += f"\t{tp / floor:.3f}"
                    print(f"{op}\t{int(causal)}\t{n}\t{d}\t{batch}\t{threads}\t{ts:.6g}\t{tp:.6g}\t{tp / ts:.3f}"
                          f"\t{parts}", file=out, flush=True)
                    plan.close()
                set_threads(all_threads)
                omp_threads(all_threads)


if __name__ == "__main__":
    main()
