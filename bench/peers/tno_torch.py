#!/usr/bin/python3
"""tno_torch.py -- the PyTorch CPU peer of `skit bench tno` and of
python/bench_layers.py: TNO, FD-TNO and SKI-TNO written as the papers'
reference code structures them (an RPE MLP makes the kernel from
parameters, then an FFT product), timed in float32 and float64, on one
thread and on all threads.

  /usr/bin/python3 bench/peers/tno_torch.py [--shapes 512:512:4,2048:512:1,...] [-o FILE]

Each module computes skit's layer function (skit/tno.h), not a look-alike:
the RPE is skit's MLP (RMS norm z / (||z||/sqrt(w) + 1e-8)); TNO's kernel
RPE(t) lambda^|t| with lambda learnt through a logit as
skit.torch.TNOPlanModule learns it; FD's response on skit's grid, complex
(2d outputs) when bidirectional; SKI's kernel the piecewise-linear knots
after the inverse time warp. from_plan(plan) / load_skit_parameters(params,
decay) load an skit.TNOPlan's flat parameter vector, skit_gradient() gives
the gradient back in that layout; python/tests/test_peer.py checks output
and every gradient against skit's to 1e-12 in float64. Fast as PyTorch
allows: torch.fft products (never dense n x n), the RPE only where the
layer needs it (causal TNO: n lags; bidirectional: 2n-1; FD: N/2+1
frequencies), autograd for every parameter.

Forward = kernels recomputed from the parameters, then applied, as skit's
skit_tno_plan_forward. Settings default to skit's (skit/tno.h): RPE
1 -> 64, 3 hidden layers, ReLU, RMS norm; TNO decay 0.99 and FFT length
the smallest 7-smooth >= 2n-1; FD length the next power of two >= 2n; SKI
r = 64 inducing points, 17 taps, 32 knots per side, linear interpolation,
bidirectional only. Prints a TSV (seconds per forward, median of repeats
after a warm-up). Exits 0 with a note and no rows when torch is not
importable."""
import argparse
import math
import re
import statistics
import sys
import time

try:
    import torch
except ImportError as e:  # the bench reports the peer as skipped
    print(f"# torch not importable ({e}): PyTorch peer skipped")
    sys.exit(0)

from blas_threads import set_threads  # noqa: E402  (beside this file: python puts its folder on the path)

RMS_NORM_EPS = 1e-8  # skit's (lib/mlp): z / (rms(z) + eps)


class Rpe(torch.nn.Module):
    """skit_mlp 1 -> out (skit/mlp.h): Linear(1, h), layers x [norm, act,
    Linear(h, h)], norm, act, Linear(h, out), with ReLU and skit's RMS norm.
    parameters() come in skit's flat order (each weight out x in, then its
    bias), so a flat vector loads by slicing."""

    def __init__(self, h, layers, out, dtype):
        super().__init__()
        self.first = torch.nn.Linear(1, h, dtype=dtype)
        self.hidden = torch.nn.ModuleList(torch.nn.Linear(h, h, dtype=dtype) for _ in range(layers))
        self.last = torch.nn.Linear(h, out, dtype=dtype)

    @staticmethod
    def norm(z):
        """z / (||z|| / sqrt(width) + eps): skit's RMS norm (the eps outside the root, RMS_NORM_EPS)."""
        return z / (torch.linalg.vector_norm(z, dim=-1, keepdim=True) * z.shape[-1] ** -0.5 + RMS_NORM_EPS)

    def forward(self, t):
        z = self.first(t[:, None])
        for layer in self.hidden:
            z = layer(torch.relu(self.norm(z)))
        return self.last(torch.relu(self.norm(z)))


def good_length(m):
    """The smallest length >= m whose prime factors are all 2, 3, 5 or 7 (skit_fft_good_length): the
    FFT length skit's TNO uses, also a fast one for PyTorch's FFT."""
    while True:
        k = m
        for p in (2, 3, 5, 7):
            while k % p == 0:
                k //= p
        if k == 1:
            return m
        m += 1


def _float64(values):
    return torch.tensor([float(v) for v in values], dtype=torch.float64)


class _Peer(torch.nn.Module):
    """What every peer shares: skit's flat parameter vector in and its gradient out."""

    def skit_parameters(self):
        """The nn.Parameters that make skit's flat parameter vector, in its order."""
        raise NotImplementedError

    def load_skit_parameters(self, params, decay=None):
        """Copy skit's flat parameter vector (skit.TNOPlan(...).parameters) into this peer and, for
        TNO, its decay lambda; returns self."""
        flat = torch.as_tensor(params).reshape(-1)
        targets = list(self.skit_parameters())
        count = sum(p.numel() for p in targets)
        if flat.numel() != count:
            raise ValueError(f"tno_torch: params must have {count} values for this peer, got {flat.numel()}")
        at = 0
        with torch.no_grad():
            for p in targets:
                p.copy_(flat[at:at + p.numel()].reshape(p.shape))
                at += p.numel()
        if decay is not None:
            self.set_decay(decay)
        return self

    def set_decay(self, decay):
        raise ValueError(f"tno_torch: {type(self).__name__} has no decay bias")

    def skit_gradient(self):
        """The gradient of the parameters (after a backward) as one float64 vector in skit's layout."""
        return torch.cat([(torch.zeros_like(p) if p.grad is None else p.grad).reshape(-1).double()
                          for p in self.skit_parameters()])

    @classmethod
    def from_plan(cls, plan, learn_decay=True):
        """The peer of an skit.TNOPlan of its kind: same shape, settings, precision and parameters."""
        fields = dict(re.findall(r"(\w+)=(\S+)", repr(plan)))
        if "rpe" in fields and " relu rms " not in repr(plan):
            raise ValueError(f"tno_torch: the peer's RPE is ReLU with the RMS norm only: {plan!r}")
        dtype = torch.float32 if str(plan.dtype) == "float32" else torch.float64
        return cls._for_plan(plan, fields, dtype, learn_decay).load_skit_parameters(
            plan.parameters, plan.decay if plan.kind == "tno" else None)


def _rpe_settings(fields):
    width, layers = (int(v) for v in fields["rpe"].split("x"))
    return dict(rpe_width=width, rpe_layers=layers)


def _fft_product(x, spectrum, length, n):
    """Channel-wise product of x (..., n, d) with a kernel given by its rfft of this length."""
    return torch.fft.irfft(torch.fft.rfft(x, length, dim=-2) * spectrum, length, dim=-2)[..., :n, :]


class Tno(_Peer):
    """TNO: k_c(t) = RPE_c(t) lambda^|t| at the raw integer lags (bidirectional: -(n-1)..n-1,
    evaluated in the FFT's order 0..n-1, -(n-1)..-1; causal: 0..n-1 only), Toeplitz product by an
    FFT of skit's length (the smallest 7-smooth >= 2n-1). lambda = sigmoid(decay_logit) is learnt
    (an nn.Parameter) as skit.torch.TNOPlanModule learns it; learn_decay=False keeps it fixed."""

    def __init__(self, n, d, causal, dtype, rpe_width=64, rpe_layers=3, decay=0.99, learn_decay=True):
        super().__init__()
        self.n, self.causal, self.length = n, causal, good_length(2 * n - 1)
        self.rpe = Rpe(rpe_width, rpe_layers, d, dtype)
        lags = list(range(n)) + ([] if causal else list(range(-(n - 1), 0)))
        self.register_buffer("lags", _float64(lags).to(dtype))
        self.register_buffer("distance", self.lags.abs())
        self.learn_decay = learn_decay and 0 < decay < 1
        if self.learn_decay:
            self.decay_logit = torch.nn.Parameter(torch.zeros((), dtype=dtype))
        else:
            self.register_buffer("fixed_decay", torch.zeros((), dtype=dtype))
        self.set_decay(decay)

    @classmethod
    def _for_plan(cls, plan, fields, dtype, learn_decay):
        return cls(plan.n, plan.d, plan.causal, dtype, decay=plan.decay, learn_decay=learn_decay,
                   **_rpe_settings(fields))

    def skit_parameters(self):
        return self.rpe.parameters()

    def set_decay(self, decay):
        with torch.no_grad():
            if self.learn_decay:
                self.decay_logit.fill_(math.log(decay / (1 - decay)))
            else:
                self.fixed_decay.fill_(decay)

    @property
    def decay(self):
        """lambda, a tensor in the graph when learnt."""
        return torch.sigmoid(self.decay_logit) if self.learn_decay else self.fixed_decay

    def forward(self, x):  # x: (batch, n, d)
        n, length = self.n, self.length
        coef = self.rpe(self.lags) * torch.pow(self.decay, self.distance)[:, None]
        if self.causal:
            kernel = coef  # rfft pads lags 0..n-1 with zeros
        else:
            gap = coef.new_zeros(length - (2 * n - 1), coef.shape[1])
            kernel = torch.cat([coef[:n], gap, coef[n:]])
        return _fft_product(x, torch.fft.rfft(kernel, length, dim=0), length, n)


class FdTno(_Peer):
    """FD-TNO: the frequency response is the RPE on the rfft grid omega_m = 2 pi m / N, m = 0..N/2
    (N = fft_length, default the next power of two >= 2n). Bidirectional: the RPE has 2d outputs,
    the real then the imaginary parts of the response, the imaginary part forced to 0 at 0 and pi.
    Causal: d outputs, the real part, made causal by the Hilbert step (its even impulse response
    irfft(R), lags 1..n-1 doubled, the rest dropped; lags >= n never reach an output)."""

    def __init__(self, n, d, causal, dtype, rpe_width=64, rpe_layers=3, fft_length=0):
        super().__init__()
        self.n, self.causal = n, causal
        self.N = fft_length or 1 << (2 * n - 1).bit_length()
        self.rpe = Rpe(rpe_width, rpe_layers, d if causal else 2 * d, dtype)
        half = self.N // 2 + 1
        self.register_buffer("omega", (2 * math.pi * torch.arange(half, dtype=torch.float64) / self.N).to(dtype))
        if causal:
            self.register_buffer("fold", _float64([1] + [2] * (n - 1)).to(dtype)[:, None])
        else:
            self.register_buffer("imaginary", _float64([0] + [1] * (half - 2) + [0]).to(dtype)[:, None])

    @classmethod
    def _for_plan(cls, plan, fields, dtype, learn_decay):
        return cls(plan.n, plan.d, plan.causal, dtype, fft_length=int(fields["fft"]), **_rpe_settings(fields))

    def skit_parameters(self):
        return self.rpe.parameters()

    def forward(self, x):  # x: (batch, n, d)
        N, n = self.N, self.n
        response = self.rpe(self.omega)
        if self.causal:
            kernel = torch.fft.irfft(response, N, dim=0)[:n] * self.fold
            spectrum = torch.fft.rfft(kernel, N, dim=0)
        else:
            d = response.shape[1] // 2
            spectrum = torch.complex(response[:, :d], response[:, d:] * self.imaginary)
        return _fft_product(x, spectrum, N, n)


class SkiTno(_Peer):
    """SKI-TNO, bidirectional: y = S x + W A W^T x. S: a centred band of `taps` lags per channel (a
    depthwise conv1d, whose weight is the taps flipped). W: linear interpolation of the tokens onto
    r inducing points p_j = j (n-1)/(r-1). A: Toeplitz r x r per channel, k_c(t) = f_c(sign(t)
    decay^|t|) at t = p_i - p_j (the inverse time warp, sign(0) = +1, fixed), f_c piecewise linear
    on the knots j/K, j = -K..K, f_c(0) = 0; applied by an FFT of length the smallest 7-smooth
    >= 2r-1. Parameters: the knot values (d, 2K) and the taps (d, m), as skit's vector."""

    def __init__(self, n, d, causal, dtype, rank=64, taps=17, knots=32, decay=0.99):
        super().__init__()
        if causal:
            raise ValueError("tno_torch: causal SKI-TNO (the masked low-rank product) is not written here")
        r = min(rank, n)
        self.n, self.r, self.m, self.K, self.causal = n, r, taps, knots, causal
        self.length = good_length(2 * r - 1)
        self.knot_values = torch.nn.Parameter(torch.empty(d, 2 * knots, dtype=dtype).uniform_(-1, 1))
        bound = 1 / math.sqrt(max(taps, 1))
        self.taps = torch.nn.Parameter(torch.empty(d, taps, dtype=dtype).uniform_(-bound, bound)) if taps else None
        spacing = (n - 1) / (r - 1)
        u = [i / spacing for i in range(n)]  # token i in inducing-point units, as skit_interp_weights
        left = [min(math.floor(v), r - 2) for v in u]
        self.register_buffer("left", torch.tensor(left))
        self.register_buffer("w_hi", _float64(v - j for v, j in zip(u, left)).to(dtype)[:, None])
        # A's lags in the FFT's order 0..r-1, -(r-1)..-1, located once on the knots
        lags = list(range(r)) + list(range(-(r - 1), 0))
        index, frac = [], []
        for q in lags:
            t = q * spacing
            w = (-1.0 if t < 0 else 1.0) * math.pow(decay, abs(t))
            j = min(max(math.floor(w * knots), -knots), knots - 1)
            index.append(j + knots)  # into f(z_-K..z_K)
            frac.append(w * knots - j)
        self.register_buffer("knot_index", torch.tensor(index))
        self.register_buffer("knot_frac", _float64(frac).to(dtype)[:, None])

    @classmethod
    def _for_plan(cls, plan, fields, dtype, learn_decay):
        return cls(plan.n, plan.d, plan.causal, dtype, rank=int(fields["r"]), taps=int(fields["taps"]),
                   knots=int(fields["knots"]), decay=plan.decay)

    def skit_parameters(self):
        return [self.knot_values] + ([] if self.taps is None else [self.taps])

    def kernel(self):
        """A's coefficients (length, d), the lags in the FFT's order with zeros between."""
        K, r = self.K, self.r
        v = self.knot_values.T  # (2K, d)
        f = torch.cat([v[:K], v.new_zeros(1, v.shape[1]), v[K:]])  # f(z_j), j = -K..K
        a = f[self.knot_index] * (1 - self.knot_frac) + f[self.knot_index + 1] * self.knot_frac
        gap = a.new_zeros(self.length - (2 * r - 1), a.shape[1])
        return torch.cat([a[:r], gap, a[r:]])

    def forward(self, x):  # x: (batch, n, d)
        b, n, d = x.shape
        left, w_hi = self.left, self.w_hi
        z = x.new_zeros(b, self.r, d).index_add(1, left, x * (1 - w_hi)).index_add(1, left + 1, x * w_hi)
        spectrum = torch.fft.rfft(self.kernel(), self.length, dim=0)
        az = _fft_product(z, spectrum, self.length, self.r)  # A W^T x
        y = az[:, left] * (1 - w_hi) + az[:, left + 1] * w_hi  # W A W^T x
        if self.taps is not None:
            weight = self.taps.flip(-1)[:, None, :]  # conv1d correlates
            band = torch.nn.functional.conv1d(x.transpose(1, 2), weight, padding=(self.m - 1) // 2, groups=d)
            y = y + band.transpose(1, 2)
        return y


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
