#!/usr/bin/python3
"""tno_torch.py -- the PyTorch CPU peer of `skit bench tno`: TNO, FD-TNO and
SKI-TNO forward passes written as the papers' reference code structures them
(an RPE MLP makes the kernel from parameters, then an FFT product), timed in
float32 and float64, on one thread and on all threads.

  /usr/bin/python3 bench/peers/tno_torch.py [--shapes 512:512:4,2048:512:1,...] [-o FILE]

Forward = kernels recomputed from the parameters, then applied, as skit's
skit_tno_plan_forward. Settings follow skit's defaults (skit/tno.h): RPE
1 -> 64, 3 hidden layers, ReLU, RMS norm; TNO decay 0.99; FD length the
next power of two >= 2n; SKI r = 64 inducing points, 17 taps, linear
interpolation, bidirectional only. Prints a TSV (seconds per forward, median of repeats after a
warm-up). Exits 0 with a note and no rows when torch is not importable."""
import argparse
import statistics
import sys
import time

try:
    import torch
except ImportError as e:  # the bench reports the peer as skipped
    print(f"# torch not importable ({e}): PyTorch peer skipped")
    sys.exit(0)

from blas_threads import set_threads  # noqa: E402  (beside this file: python puts its folder on the path)


class Rpe(torch.nn.Module):
    """Linear(1, h), layers x [norm, act, Linear(h, h)], norm, act, Linear(h, out)."""

    def __init__(self, h, layers, out, dtype):
        super().__init__()
        self.first = torch.nn.Linear(1, h, dtype=dtype)
        self.hidden = torch.nn.ModuleList(torch.nn.Linear(h, h, dtype=dtype) for _ in range(layers))
        self.last = torch.nn.Linear(h, out, dtype=dtype)

    @staticmethod
    def norm(z):
        return z * torch.rsqrt(z.pow(2).mean(-1, keepdim=True) + 1e-8)

    def forward(self, t):
        z = self.first(t[:, None])
        for layer in self.hidden:
            z = layer(torch.relu(self.norm(z)))
        return self.last(torch.relu(self.norm(z)))


class Tno(torch.nn.Module):
    """Kernel t_k = RPE(k) lambda^|k| for k = -(n-1)..n-1, Toeplitz product by FFT of length 2n."""

    def __init__(self, n, d, causal, dtype):
        super().__init__()
        self.n, self.causal = n, causal
        self.rpe = Rpe(64, 3, d, dtype)
        lags = torch.arange(-(n - 1), n, dtype=dtype)
        self.register_buffer("lags", lags)
        self.register_buffer("decay", 0.99 ** lags.abs())

    def forward(self, x):  # x: (b, n, d)
        n = self.n
        coef = self.rpe(self.lags) * self.decay[:, None]  # (2n-1, d): lags -(n-1)..n-1
        kernel = torch.zeros(2 * n, coef.shape[1], dtype=x.dtype)
        kernel[:n] = coef[n - 1:]  # lags 0..n-1
        if not self.causal:
            kernel[n + 1:] = coef[:n - 1]  # lags -(n-1)..-1 at 2n-(n-1)..2n-1
        y = torch.fft.irfft(torch.fft.rfft(x, 2 * n, dim=1) * torch.fft.rfft(kernel, dim=0), 2 * n, dim=1)
        return y[:, :n]


class FdTno(torch.nn.Module):
    """Frequency response = RPE on the grid of N/2+1 frequencies; causal: Hilbert step (irfft, fold, rfft)."""

    def __init__(self, n, d, causal, dtype):
        super().__init__()
        self.n, self.causal = n, causal
        self.N = 1 << (2 * n - 1).bit_length()
        self.rpe = Rpe(64, 3, d, dtype)
        self.register_buffer("omega", torch.linspace(0, torch.pi, self.N // 2 + 1, dtype=dtype))

    def forward(self, x):
        N, n = self.N, self.n
        response = self.rpe(self.omega)  # (N/2+1, d), real
        if self.causal:
            k = torch.fft.irfft(response, N, dim=0)
            k[1:N // 2] *= 2
            k[N // 2 + 1:] = 0
            spectrum = torch.fft.rfft(k, dim=0)
        else:
            spectrum = response
        return torch.fft.irfft(torch.fft.rfft(x, N, dim=1) * spectrum, N, dim=1)[:, :n]


class SkiTno(torch.nn.Module):
    """Band of `taps` lags (conv) + W A W^T x: W linear interpolation onto r inducing points, A an r x r
    Toeplitz matrix per channel (kernel from the RPE, time-warped), by FFT of length 2r."""

    def __init__(self, n, d, causal, dtype, r=64, taps=17):
        super().__init__()
        self.n, self.r, self.taps, self.causal = n, min(r, n), taps, causal
        self.band = torch.nn.Parameter(torch.randn(d, 1, taps, dtype=dtype) / taps)
        self.rpe = Rpe(64, 3, d, dtype)
        pos = torch.arange(n, dtype=dtype) * (self.r - 1) / max(n - 1, 1)
        lo = pos.floor().clamp(max=self.r - 2).long()
        self.register_buffer("lo", lo)
        self.register_buffer("w_hi", pos - lo.to(dtype))
        lags = torch.arange(-(self.r - 1), self.r, dtype=dtype)
        self.register_buffer("warp", torch.sign(lags) * (1 - 0.99 ** lags.abs()))

    def forward(self, x):  # (b, n, d)
        b, n, d = x.shape
        r = self.r
        pad = (self.taps - 1, 0) if self.causal else ((self.taps - 1) // 2, (self.taps - 1) // 2)
        xc = x.transpose(1, 2)  # (b, d, n)
        y = torch.nn.functional.conv1d(torch.nn.functional.pad(xc, pad), self.band, groups=d)
        w_hi = self.w_hi.to(x.dtype)
        z = torch.zeros(b, d, r, dtype=x.dtype)  # W^T x
        z.index_add_(2, self.lo, xc * (1 - w_hi))
        z.index_add_(2, self.lo + 1, xc * w_hi)
        coef = self.rpe(self.warp).T  # (d, 2r-1)
        kernel = torch.zeros(d, 2 * r, dtype=x.dtype)
        kernel[:, :r] = coef[:, r - 1:]
        kernel[:, r + 1:] = coef[:, :r - 1]
        az = torch.fft.irfft(torch.fft.rfft(z, 2 * r, dim=2) * torch.fft.rfft(kernel, dim=1), 2 * r, dim=2)[..., :r]
        y = y + az[..., self.lo] * (1 - w_hi) + az[..., self.lo + 1] * w_hi  # W (A W^T x)
        return y.transpose(1, 2)


def seconds(model, x, min_total=0.5, max_reps=20):
    with torch.no_grad():
        model(x)  # warm-up
        ts = []
        while len(ts) < 3 or (sum(ts) < min_total and len(ts) < max_reps):
            t0 = time.perf_counter()
            model(x)
            ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="512:512:4,2048:512:1,8192:128:1,32768:64:1")
    ap.add_argument("--ops", default="tno,fd,ski")
    ap.add_argument("--threads", type=int, default=0, help="the 'all threads' count (default: torch's)")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    out = open(a.output, "w") if a.output else sys.stdout
    all_threads = a.threads if a.threads > 0 else torch.get_num_threads()
    print(f"# PyTorch {torch.__version__} CPU peer of skit bench tno; forward = kernels from parameters + "
          f"mixing; seconds per forward, median after a warm-up; all threads = {all_threads}", file=out)
    print("op\tcausal\tn\td\tbatch\tdtype\tthreads\tseconds", file=out)
    ops = {"tno": Tno, "fd": FdTno, "ski": SkiTno}
    torch.manual_seed(1)
    for shape in a.shapes.split(","):
        n, d, batch = (int(v) for v in shape.split(":"))
        for name in a.ops.split(","):
            # causal SKI-TNO needs the masked low-rank product (Appendix B): not written here
            for causal in ((False,) if name == "ski" else (False, True)):
                for dtype in (torch.float32, torch.float64):
                    model = ops[name](n, d, causal, dtype)
                    x = torch.randn(batch, n, d, dtype=dtype)
                    for threads in sorted({1, all_threads}):
                        set_threads(threads)
                        s = seconds(model, x)
                        print(f"{name}\t{int(causal)}\t{n}\t{d}\t{batch}\t{str(dtype)[6:]}\t{threads}\t{s:.6g}",
                              file=out, flush=True)
                    set_threads(all_threads)


if __name__ == "__main__":
    main()
