"""The token mixers of skit.TNOPlan written with PyTorch operators alone,
from the same flat parameter vector (skit/tno.h): the reference against
which causal_lm.py checks the skit model. Each builds the dense n x n
operator of every channel from the parameters and applies it, O(n^2 d):
a reference, not a fast path.

  tno  k_c(t) = RPE_c(t) decay^|t| (an MLP over the raw lag), Toeplitz
  fd   the kernel from the MLP's frequency response on the rfft grid of
       N = the next power of two >= 2n (causal: the real part, made causal
       by the FFT Hilbert step; bidirectional: real and imaginary parts,
       the imaginary part forced to 0 at 0 and pi)
  ski  S_c + W A_c W^T: a centred band of taps, and the piecewise-linear
       kernel on 2K knots after the inverse time warp sign(t) decay^|t|
       on r inducing points, W linear interpolation
Causal: the lower triangle."""
import torch


def _norm_act(h, norm, act):
    if norm == "rms":
        h = h / (h.norm(dim=-1, keepdim=True) / h.shape[-1] ** 0.5 + 1e-8)
    elif norm == "layer":
        h = h - h.mean(-1, keepdim=True)
        h = h / (h.norm(dim=-1, keepdim=True) / h.shape[-1] ** 0.5 + 1e-8)
    return {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu,
            "tanh": torch.tanh}[act](h)


def mlp(params, t, width, layers, out, norm="rms", act="relu"):
    """skit_mlp at the points t (count,): Linear(1, width), layers x [norm,
    act, Linear(width, width)], norm, act, Linear(width, out); params in
    skit/mlp.h's order (each weight out x in row-major, then its bias)."""
    shapes = [(width, 1)] + [(width, width)] * layers + [(out, width)]
    h, at = t[:, None], 0
    for i, (o, k) in enumerate(shapes):
        w = params[at:at + o * k].reshape(o, k)
        b = params[at + o * k:at + o * k + o]
        at += o * k + o
        if i:
            h = _norm_act(h, norm, act)
        h = h @ w.T + b
    assert at == params.numel(), "parameter count"
    return h


def _toeplitz(k, n):
    """(d, n, n) operators T_c(i, j) = k[i - j + n - 1, c] from (2n-1, d) lags."""
    i = torch.arange(n)
    return k[(i[:, None] - i[None, :]) + n - 1].permute(2, 0, 1)


def tno_operator(params, decay, n, d, width, layers, norm="rms", act="relu"):
    lags = torch.arange(-(n - 1), n, dtype=params.dtype)
    k = mlp(params, lags, width, layers, d, norm, act) * decay ** lags.abs()[:, None]
    return _toeplitz(k, n)


def fd_operator(params, n, d, width, layers, causal, norm="rms", act="relu"):
    N = 1 << (2 * n - 1).bit_length()
    omega = 2 * torch.pi * torch.arange(N // 2 + 1, dtype=params.dtype) / N
    r = mlp(params, omega, width, layers, d if causal else 2 * d, norm, act)
    if causal:
        k = torch.fft.irfft(r[:, :d], N, dim=0)  # R's even impulse response
        k = torch.cat([k[:1], 2 * k[1:N // 2], k[N // 2:N // 2 + 1], torch.zeros_like(k[N // 2 + 1:])])
    else:
        k = torch.fft.irfft(torch.complex(r[:, :d], r[:, d:]), N, dim=0)  # irfft drops Im at 0, pi
    lags = torch.arange(-(n - 1), n)
    return _toeplitz(k[lags % N], n)


def ski_operator(params, decay, n, d, rank, taps, knots):
    K, m, r = knots, taps, rank
    values = params[:d * 2 * K].reshape(d, 2 * K)
    f = torch.cat([values[:, :K], torch.zeros_like(values[:, :1]), values[:, K:]], 1)  # f(z_j), j = -K..K
    h = (n - 1) / (r - 1)
    t = torch.arange(-(r - 1), r, dtype=params.dtype) * h
    s = torch.where(t >= 0, 1.0, -1.0) * decay ** t.abs()  # the inverse time warp, sign(0) = +1
    u = (s * K).clamp(-K, K)
    lo = u.floor().clamp(-K, K - 1)
    frac = u - lo
    lo = lo.long() + K
    k = f[:, lo] * (1 - frac) + f[:, lo + 1] * frac  # (d, 2r-1): A's lags -(r-1)..r-1
    A = _toeplitz(k.T, r)
    pos = torch.arange(n, dtype=params.dtype) * (r - 1) / max(n - 1, 1)
    left = pos.floor().clamp(max=r - 2).long()
    w_hi = pos - left
    W = torch.zeros(n, r, dtype=params.dtype)
    W[torch.arange(n), left] = 1 - w_hi
    W[torch.arange(n), left + 1] += w_hi
    band = params[d * 2 * K:].reshape(d, m)
    i = torch.arange(n)
    lag = i[:, None] - i[None, :]
    inside = lag.abs() <= (m - 1) // 2
    S = torch.where(inside, band[:, (lag + (m - 1) // 2).clamp(0, m - 1)], torch.zeros(()))
    return S + W @ A @ W.T


def apply(T, x, causal):
    """y[b, i, c] = sum_j T[c, i, j] x[b, j, c]; causal keeps j <= i."""
    if causal:
        T = torch.tril(T)
    return torch.einsum("cij,bjc->bic", T, x)
