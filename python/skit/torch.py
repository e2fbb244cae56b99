"""PyTorch autograd over skit's operators (CPU tensors only).

Every operator here is a torch.autograd.Function built by _function() from
two numpy-level callables, forward(*arrays) and backward(saved, grad),
whose heavy work runs in libskit. Adding an operator whose backward the
library provides takes a forward and a backward of a few lines each.

  toeplitz(coeffs, x, m=None, causal=False)   y = T x per channel; gradients
      w.r.t. x (the transposed product) and w.r.t. the coefficients (a
      cross-correlation, computed as another Toeplitz product by skit).
  TNO(n, d, ...)                              an nn.Module: TNN's RPE MLP and
      decay in PyTorch, the Toeplitz product in skit; full backward.
  tno(x, plan)                                y = plan(x) for an skit.TNOPlan;
      gradient w.r.t. x (kinds 'tno' and 'fd', from the plan's Toeplitz
      coefficients). Gradients w.r.t. the plan's own parameters need the
      library's TNO backward, not in this libskit (skit.has(
      'skit_tno_plan_backward') tells).

float32 tensors run in float32 only where libskit has the float32 path;
otherwise they raise TypeError unless upcast=True (float64 inside, float32
out). A CUDA tensor raises ValueError: the device path is not measured yet.
"""
import threading

import numpy as np
import torch

from . import _array as _A
from .toeplitz import ToeplitzPlan

__all__ = ["toeplitz", "tno", "TNO", "RPE"]


def _array(t, name):
    if not isinstance(t, torch.Tensor):
        return np.asarray(t)
    if t.device.type != "cpu":
        raise ValueError(f"skit.torch: {name} is on {t.device}; only CPU tensors are supported "
                         "(the CUDA path is not measured yet): use .cpu()")
    return t.detach().numpy()


def _tensor(a, like):
    out = torch.from_numpy(np.asarray(a))
    return out if out.dtype == like.dtype else out.to(like.dtype)


def _function(name, forward, backward):
    """A torch.autograd.Function whose forward(ctx, *tensors, options) calls
    forward(*arrays, **options) -> (output array, saved) and whose backward
    calls backward(saved, grad array, needs) -> gradient arrays (None where
    needs[i] is False) for the tensor inputs."""

    def fwd(ctx, options, *tensors):
        arrays = [_array(t, f"input {i}") for i, t in enumerate(tensors)]
        out, saved = forward(*arrays, **options)
        ctx.saved = saved
        ctx.like = tensors
        return _tensor(out, tensors[-1])

    def bwd(ctx, grad):
        needs = ctx.needs_input_grad[1:]
        grads = backward(ctx.saved, _array(grad, "grad"), needs)
        return (None,) + tuple(None if g is None else _tensor(g, t)
                               for g, t in zip(grads, ctx.like))

    return type(name, (torch.autograd.Function,),
                {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})


class _PlanCache:
    """Toeplitz plans reused across calls of the same shape; new coefficients
    are loaded with set_coeffs (no FFT replanning)."""

    def __init__(self):
        self._plans = {}
        self.lock = threading.Lock()

    def get(self, coeffs, m, n, causal, shared, upcast):
        key = (m, n, coeffs.shape, causal, shared, upcast)
        plan = self._plans.get(key)
        if plan is None:
            plan = ToeplitzPlan(coeffs, m, n, causal=causal, shared=shared, upcast=upcast)
            self._plans[key] = plan
        else:
            plan.set_coeffs(coeffs)
        return plan


_cache = _PlanCache()


def _toeplitz_forward(coeffs, x, m, n, causal, upcast):
    shared = coeffs.ndim == 1
    # the channel-major form the plans read, made once and kept for backward
    xb, _ = _A.blocks(x, "x", upcast=upcast)
    with _cache.lock:
        plan = _cache.get(coeffs, m, n, causal, shared, upcast)
        y = plan(xb, upcast=upcast)
    return y, (coeffs, xb, m, n, causal, shared, upcast, plan, plan.generation)


def _channel_rows(blocks, length):
    """(batch*d, length) C-order rows, one per (batch, channel), of (..., length,
    d) column-major blocks (no copy when the blocks are contiguous)."""
    return np.ascontiguousarray(np.swapaxes(blocks, -1, -2)).reshape(-1, length)


def _correlation(gb, xb, m, n, upcast):
    """r[c, k + n - 1] = sum_j g[j + k, c] x[j, c], k = -(n-1)..m-1, summed over
    the batch: the product of g with the (m+n-1) x m Toeplitz matrix
    M(k', i) = x[n-1 - (k' - i)] (x reversed, zero-padded), by skit."""
    d = xb.shape[-1]
    xc = _channel_rows(xb, n)
    channels = xc.shape[0]
    coeffs = np.empty((channels, 2 * m + n - 2))
    coeffs[:, :m - 1] = 0.0
    coeffs[:, m - 1 + n:] = 0.0
    coeffs[:, m - 1:m - 1 + n] = xc[:, ::-1]
    gc = _channel_rows(gb, m).T  # (m, batch*d), column-major: read in place
    with _cache.lock:
        r = _cache.get(coeffs, m + n - 1, m, False, False, upcast)(gc, upcast=upcast)
    b = channels // d
    return (r if b == 1 else r.reshape(m + n - 1, b, d).sum(axis=1)).T


def _toeplitz_backward(saved, g, needs):
    coeffs, xb, m, n, causal, shared, upcast, plan, generation = saved
    gb, _ = _A.blocks(g, "grad", upcast=upcast)
    gc = gx = None
    if needs[1]:
        with _cache.lock:
            if plan.closed or plan.generation != generation:  # reused since the forward
                plan = _cache.get(coeffs, m, n, causal, shared, upcast)
            gx = plan.transpose(gb, upcast=upcast)
    if needs[0]:
        r = _correlation(gb, xb, m, n, upcast)
        if causal:
            r[:, :n - 1] = 0.0  # negative lags are not used by a causal operator
        gc = r.sum(axis=0) if shared else r
    return gc, gx


_Toeplitz = _function("ToeplitzFunction", _toeplitz_forward, _toeplitz_backward)


def toeplitz(coeffs, x, m=None, causal=False, upcast=False):
    """y[..., :, c] = T_c x[..., :, c] with autograd for coeffs and x.
    coeffs: (d, m+n-1) per channel or (m+n-1,) shared; x: (..., n, d);
    m defaults to n (square)."""
    n = x.shape[-2]
    m = n if m is None else int(m)
    return _Toeplitz.apply(dict(m=m, n=n, causal=bool(causal), upcast=upcast), coeffs, x)


def _tno_forward(x, plan):
    return plan(x), (plan,)


def _tno_backward(saved, g, needs):
    (plan,) = saved
    if plan.kind == "ski":
        raise NotImplementedError("skit.torch.tno: no backward for SKI-TNO in this libskit "
                                  "(its operator is not Toeplitz)")
    coeffs = plan.coeffs()
    with _cache.lock:
        gx = _cache.get(coeffs, plan.n, plan.n, plan.causal, False, False).transpose(g)
    return (gx.reshape(g.shape),)


_TNOFunction = _function("TNOFunction", _tno_forward, _tno_backward)


def tno(x, plan):
    """y = plan(x) for an skit.TNOPlan, differentiable w.r.t. x."""
    return _TNOFunction.apply(dict(plan=plan), x)


class RPE(torch.nn.Module):
    """TNN's relative position encoder: Linear(1, width), layers x [RMS norm,
    ReLU, Linear(width, width)], RMS norm, ReLU, Linear(width, d); the same
    registration order (pos_proj, layers, out) and initialisation as the
    TNN code, so its state_dict loads into skit.TNOPlan.from_state_dict."""

    def __init__(self, d, width=64, layers=3):
        super().__init__()
        self.pos_proj = torch.nn.Linear(1, width, dtype=torch.float64)
        self.layers = torch.nn.ModuleList(
            [torch.nn.Linear(width, width, dtype=torch.float64) for _ in range(layers)])
        self.out = torch.nn.Linear(width, d, dtype=torch.float64)

    @staticmethod
    def _act(h):
        rms = h.norm(dim=-1, keepdim=True) / h.shape[-1] ** 0.5
        return torch.relu(h / (rms + 1e-8))

    def forward(self, t):
        h = self.pos_proj(t[:, None])
        for layer in self.layers:
            h = layer(self._act(h))
        return self.out(self._act(h))


class TNO(torch.nn.Module):
    """A Toeplitz neural operator for (B, n, d) inputs: k_c(t) = RPE_c(t)
    decay^|t| computed in PyTorch (float64), the per-channel Toeplitz
    product and both of its gradients computed by skit."""

    def __init__(self, n, d, width=64, layers=3, decay=0.99, causal=False):
        super().__init__()
        self.n, self.d, self.decay, self.causal = n, d, decay, causal
        self.rpe = RPE(d, width, layers)
        lags = torch.arange(-(n - 1), n, dtype=torch.float64)
        self.register_buffer("lags", lags)
        self.register_buffer("bias", decay ** lags.abs())

    def coeffs(self):
        """(d, 2n-1) Toeplitz coefficients (skit layout)."""
        return (self.rpe(self.lags) * self.bias[:, None]).T

    def forward(self, x):
        return toeplitz(self.coeffs(), x, causal=self.causal)
