#!/usr/bin/python3
"""train_torch.py -- the PyTorch CPU peer of experiment 52: one training step
(forward + backward + clipping + AdamW) of the model `skit train --layers 1
--objective masked` builds (token embedding, one pre-norm block: GTU whose
token mixer is TNO or FD-TNO with an RPE of width 32 and 3 or 6 hidden
layers, ReLU, RMS norm, decay 0.99; GLU of width 2d; tied head), timed in
float32 and float64 on one thread.

  /usr/bin/python3 bench/peers/train_torch.py --n 2048 --d 512 [--batch 1] [--steps 5] [-o FILE]

Prints a TSV (mixer, rpe_layers, n, d, batch, dtype, step_seconds: the
minimum over the steps after the first). Exits 0 with a note and no rows
when torch is not importable."""
import argparse
import os
import sys
import time

try:
    import torch
except ImportError as e:  # the experiment reports the peer as skipped
    print(f"# torch not importable ({e}): PyTorch peer skipped")
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tno_torch import Rpe  # noqa: E402  (the RPE of the forward-only peer)
from blas_threads import set_threads  # noqa: E402


def rms(z, eps=1e-5):
    return z * torch.rsqrt(z.pow(2).mean(-1, keepdim=True) + eps)


class Mixer(torch.nn.Module):
    """Bidirectional TNO (RPE at lags times 0.99^|t|) or FD-TNO (RPE at the frequencies), FFT product."""

    def __init__(self, kind, n, d, rpe_layers, dtype):
        super().__init__()
        self.kind, self.n = kind, n
        self.N = 2 * n if kind == "tno" else 1 << (2 * n - 1).bit_length()
        self.rpe = Rpe(32, rpe_layers, d, dtype)
        if kind == "tno":
            lags = torch.arange(-(n - 1), n, dtype=dtype)
            self.register_buffer("inputs", lags)
            self.register_buffer("decay", 0.99 ** lags.abs())
        else:
            self.register_buffer("inputs", torch.linspace(0, torch.pi, self.N // 2 + 1, dtype=dtype))

    def forward(self, x):  # (b, n, d)
        n, N = self.n, self.N
        if self.kind == "tno":
            coef = self.rpe(self.inputs) * self.decay[:, None]
            kernel = torch.cat([coef[n - 1:], torch.zeros(1, coef.shape[1], dtype=x.dtype), coef[:n - 1]])
            spectrum = torch.fft.rfft(kernel, dim=0)
        else:
            spectrum = self.rpe(self.inputs)
        return torch.fft.irfft(torch.fft.rfft(x, N, dim=1) * spectrum, N, dim=1)[:, :n]


class Model(torch.nn.Module):
    def __init__(self, kind, vocab, n, d, rpe_layers, dtype):
        super().__init__()
        lin = lambda i, o: torch.nn.Linear(i, o, bias=False, dtype=dtype)  # noqa: E731
        self.embedding = torch.nn.Parameter(torch.randn(vocab, d, dtype=dtype) / d ** 0.5)
        self.wu, self.wv, self.wo = lin(d, d), lin(d, d), lin(d, d)
        self.mixer = Mixer(kind, n, d, rpe_layers, dtype)
        self.w1, self.w2, self.w3 = lin(d, 2 * d), lin(d, 2 * d), lin(2 * d, d)

    def forward(self, tokens):
        x = self.embedding[tokens]
        h = rms(x)
        u, v = torch.nn.functional.silu(self.wu(h)), torch.nn.functional.silu(self.wv(h))
        x = x + self.wo(u * self.mixer(v))
        h = rms(x)
        x = x + self.w3(torch.nn.functional.silu(self.w1(h)) * self.w2(h))
        return rms(x) @ self.embedding.T


def step_seconds(kind, rpe_layers, n, d, batch, dtype, steps):
    torch.manual_seed(1)
    vocab = 9  # the Markov task's 8 tokens and the mask token
    model = Model(kind, vocab, n, d, rpe_layers, dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
    tokens = torch.randint(0, vocab - 1, (batch, n))
    masked = torch.rand(batch, n) < 0.15
    inputs = torch.where(masked, torch.full_like(tokens, vocab - 1), tokens)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        logits = model(inputs)
        loss = torch.nn.functional.cross_entropy(logits[masked], tokens[masked])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        times.append(time.perf_counter() - t0)
    return min(times[1:]) if len(times) > 1 else times[0]


def gemm_floor_seconds(n, d, batch, dtype, rounds):
    """The block's matrix products alone, at their shapes, on the BLAS that
    PyTorch (and skit) call: GTU's three d x d linears and GLU's d -> 2d,
    d -> 2d, 2d -> d, each once forward (Y = X W^T) and twice backward
    (dX = dY W, dW = dY^T X); the embedding head's d x vocab products are
    left out (under 1% at d = 512). No step of this block on this BLAS can
    be faster: it is the floor for skit's step as for PyTorch's. Min over
    rounds."""
    rows = n * batch
    shapes = [(d, d)] * 3 + [(d, 2 * d), (d, 2 * d), (2 * d, d)]  # (in, out)
    calls = []
    for fan_in, fan_out in shapes:
        x, w = torch.randn(rows, fan_in, dtype=dtype), torch.randn(fan_out, fan_in, dtype=dtype)
        y, dx, dw = (torch.empty(rows, fan_out, dtype=dtype), torch.empty(rows, fan_in, dtype=dtype),
                     torch.empty(fan_out, fan_in, dtype=dtype))
        dy = torch.randn(rows, fan_out, dtype=dtype)
        calls += [(x, w.t(), y), (dy, w, dx), (dy.t(), x, dw)]
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for a, b, c in calls:
            torch.mm(a, b, out=c)
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--configs", default="tno:3,tno:6,fd:3,fd:6")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    out = open(a.output, "w") if a.output else sys.stdout
    blas = set_threads(1)
    print(f"# PyTorch {torch.__version__} peer of skit train's one-block step (forward + backward + clip + "
          f"AdamW), 1 thread (torch and OpenBLAS: {blas}); min over steps 2..{a.steps}; mixer 'gemm': the "
          f"block's matrix products alone (the floor of any step on this BLAS)", file=out)
    print("mixer\trpe_layers\tn\td\tbatch\tdtype\tstep_seconds", file=out)
    for dtype in (torch.float32, torch.float64):
        s = gemm_floor_seconds(a.n, a.d, a.batch, dtype, max(a.steps, 3))
        print(f"gemm\t0\t{a.n}\t{a.d}\t{a.batch}\t{str(dtype)[6:]}\t{s:.6g}", file=out, flush=True)
    for cfg in a.configs.split(","):
        kind, layers = cfg.split(":")
        for dtype in (torch.float32, torch.float64):
            s = step_seconds(kind, int(layers), a.n, a.d, a.batch, dtype, a.steps)
            print(f"{kind}\t{layers}\t{a.n}\t{a.d}\t{a.batch}\t{str(dtype)[6:]}\t{s:.6g}", file=out, flush=True)


if __name__ == "__main__":
    main()
