"""PyTorch autograd over skit's operators (CPU tensors only).

Every operator here is a torch.autograd.Function built by _function() from
two numpy-level callables, forward(*arrays) and backward(saved, grad),
whose heavy work runs in libskit. Adding an operator whose backward the
library provides takes a forward and a backward of a few lines each.

  toeplitz(coeffs, x, m=None, causal=False)   y = T x per channel; gradients
      w.r.t. x (the transposed product) and w.r.t. the coefficients (an FFT
      cross-correlation), both by skit_toeplitz_plan_backward.
  tno(x, plan, params=None, decay=None)       y = plan(x) for an skit.TNOPlan
      of kind 'tno', 'fd' or 'ski'; gradients w.r.t. x, the plan's flat
      parameter vector and TNO's decay lambda, by skit_tno_plan_backward.
  TNOPlanModule(plan)                         an nn.Module holding a plan's
      parameters (and lambda) as nn.Parameters; all of it computed in skit;
      other lengths and batches run on plans of their shape (a few kept).
  mlp(x, net, params=None)                    an skit.MLP; gradients w.r.t. x
      and its flat parameters by skit_mlp_backward.
  decay_bias(rpe, lags, decay)                TNO's rpe * decay^|t|; gradients
      w.r.t. rpe and decay by skit_tno_decay_bias_backward.
  attention(q, k, v, scale=None, mask=None)   exact softmax attention;
      dq, dk, dv by the exact plan's skit_attention_plan_backward.
  mra2(q, k, v, block, blocks_per_row, ...)   MRA-2 ({block, 1}); dq, dk,
      dv by the MRA-2 plan's backward with the refined squares held fixed;
      both read contiguous tensors in place (plans of the rows layout);
      pad=True for an n that block does not divide (padding keys masked).
  TNO(n, d, ...)                              an nn.Module: TNN's RPE MLP and
      decay in PyTorch, the Toeplitz product in skit; full backward; the
      RPE is evaluated at the input's length, so any length runs.

The TNO, MLP, decay, attention and MRA-2 functions take float64 tensors (their C
backward passes are float64). toeplitz: float32 tensors run in float32 only where libskit has the float32 path;
otherwise they raise TypeError unless upcast=True (float64 inside, float32
out). A CUDA tensor raises ValueError: the device path is not measured yet.
"""
import collections
import math
import threading

import numpy as np
import torch

from . import _array as _A
from . import tno as _tno
from ._lib import check, lib
from .attention import AttentionPlan, _scale
from .toeplitz import ToeplitzPlan

__all__ = ["toeplitz", "tno", "TNOPlanModule", "mlp", "decay_bias", "attention", "mra2", "TNO",
           "RPE"]


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


class _FirstDerivativeOnly(torch.autograd.Function):
    """Identity on a gradient computed in libskit, linked to the incoming
    gradient so that differentiating it again reaches this node and raises.
    The backward runs in numpy, outside autograd: a second derivative taken
    through it would treat the first as a constant and come out wrong with
    no error (torch's once_differentiable only catches the paths through
    its own fresh leaves, not these)."""

    @staticmethod
    def forward(ctx, gradient, incoming):
        return gradient.clone()

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("skit.torch: second derivatives are not implemented (the backward runs in "
                           "libskit, outside autograd); differentiate once, or use pure-PyTorch "
                           "operators where a second derivative is needed")


def _function(name, forward, backward):
    """A torch.autograd.Function whose forward(ctx, *tensors, options) calls
    forward(*arrays, **options) -> (output array, saved) and whose backward
    calls backward(saved, grad array, needs) -> gradient arrays (None where
    needs[i] is False) for the tensor inputs. Once differentiable: a
    second derivative (create_graph=True, then grad again; gradgradcheck)
    raises RuntimeError (_FirstDerivativeOnly)."""

    def fwd(ctx, options, *tensors):
        arrays = [_array(t, f"input {i}") for i, t in enumerate(tensors)]
        out, saved = forward(*arrays, **options)
        ctx.saved = saved
        ctx.like = tensors
        # a float32 computation (a float32 plan) gives a float32 tensor
        # whatever its parameters' type; a float64 one the inputs' type
        out = np.asarray(out)
        return torch.from_numpy(out) if out.dtype == np.float32 else _tensor(out, tensors[-1])

    def bwd(ctx, grad):
        needs = ctx.needs_input_grad[1:]
        grads = backward(ctx.saved, _array(grad, "grad"), needs)
        out = tuple(None if g is None else _tensor(g, t) for g, t in zip(grads, ctx.like))
        if torch.is_grad_enabled() and grad.requires_grad:  # create_graph=True
            out = tuple(None if g is None else _FirstDerivativeOnly.apply(g, grad) for g in out)
        return (None,) + out

    return type(name, (torch.autograd.Function,),
                {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})


class _PlanCache:
    """Toeplitz plans reused across calls of the same shape; new coefficients
    are loaded with set_coeffs (no FFT replanning). The most recently used
    `limit` shapes are kept, so a loop over many lengths (TNO evaluated at
    every length of a curriculum) does not hold a plan per length forever.
    An evicted plan is not closed: a pending backward may still hold it,
    and garbage collection frees it after that."""

    def __init__(self, limit=16):
        self._plans = collections.OrderedDict()
        self.limit = limit
        self.lock = threading.Lock()

    def __len__(self):
        return len(self._plans)

    def get(self, coeffs, m, n, causal, shared, upcast, dtype=np.float64):
        key = (m, n, coeffs.shape, causal, shared, upcast, np.dtype(dtype))
        plan = self._plans.get(key)
        if plan is None:
            plan = ToeplitzPlan(coeffs, m, n, causal=causal, shared=shared, upcast=upcast, dtype=dtype)
            self._plans[key] = plan
            while len(self._plans) > self.limit:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
            plan.set_coeffs(coeffs)
        return plan


_cache = _PlanCache()


def _toeplitz_forward(coeffs, x, m, n, causal, upcast):
    shared = coeffs.ndim == 1
    # float32 x and coefficients: the library's float32 plan (unless upcast)
    dtype = _A.F32 if x.dtype == _A.F32 and coeffs.dtype == _A.F32 and not upcast else _A.F64
    # the plans read (..., n, d) tensors' C order in place (layout 'rows');
    # other strides are copied once here and kept for backward
    xb, _ = _A.blocks(x, "x", dtype, upcast=upcast, rows=True)
    with _cache.lock:
        plan = _cache.get(coeffs, m, n, causal, shared, upcast, dtype)
        y = plan(xb, upcast=upcast)
    return y, (coeffs, xb, m, n, causal, shared, upcast, dtype, plan, plan.generation)


def _toeplitz_backward(saved, g, needs):
    coeffs, xb, m, n, causal, shared, upcast, dtype, plan, generation = saved
    with _cache.lock:
        if plan.closed or plan.generation != generation:  # reused since the forward
            plan = _cache.get(coeffs, m, n, causal, shared, upcast, dtype)
        return plan.backward(xb, g.astype(dtype, copy=False), dx=needs[1], dcoeffs=needs[0])


_Toeplitz = _function("ToeplitzFunction", _toeplitz_forward, _toeplitz_backward)


def toeplitz(coeffs, x, m=None, causal=False, upcast=False):
    """y[..., :, c] = T_c x[..., :, c] with autograd for coeffs and x.
    coeffs: (m+n-1, d) per channel (lags by channels, as x is tokens by
    channels) or (m+n-1,) shared; x: (..., n, d);
    m defaults to n (square). float32 coeffs and x run the library's
    float32 plan, forward and backward (gradients float32, within
    skit/toeplitz.h's float32 bounds); upcast=True computes float32 input
    in float64 instead. A 1-D x (n,) is one channel: y is (m,)."""
    if x.dim() == 1:
        return toeplitz(coeffs, x[:, None], m, causal, upcast)[:, 0]
    n = x.shape[-2]
    m = n if m is None else int(m)
    return _Toeplitz.apply(dict(m=m, n=n, causal=bool(causal), upcast=upcast), coeffs, x)


# ---- TNO / FD-TNO / SKI-TNO plans (skit_tno_plan_backward) ----

def _plan_with_decay(plan, decay):
    """plan itself, or a plan like it that runs with this decay: made once
    (plan.with_decay) and kept on plan, its lambda set for each new value
    (set_decay, no replanning: a learnt lambda changes every step)."""
    if decay is None or float(decay) == plan.decay:
        return plan
    if plan.kind != "tno":
        raise ValueError(f"skit.torch.tno: decay is a learnable bias of kind 'tno' only, "
                         f"not {plan.kind!r}")
    derived = getattr(plan, "_derived", None)
    if derived is None or derived.closed:
        derived = plan.with_decay(float(decay))
        plan._derived = derived
    elif derived.decay != float(decay):
        derived.set_decay(float(decay))
    return derived


def _tno_forward(x, params, decay=None, *, plan):
    plan = _plan_with_decay(plan, decay)
    params = np.array(params, dtype=np.float64)  # a copy: an optimiser updates in place
    plan.set_parameters(params)
    return plan(x), (plan, plan.generation, x, params, plan.decay)


def _tno_backward(saved, g, needs):
    plan, generation, x, params, decay = saved
    if plan.generation != generation:  # the plan ran with another decay or parameters since
        if plan.decay != decay:
            plan.set_decay(decay)
        plan.set_parameters(params)
    wants = tuple(needs) + (False,) * (3 - len(needs))  # no decay tensor: no dlambda
    dx, dparams, dlambda = plan.backward(x, g, dx=wants[0], dparams=wants[1], dlambda=wants[2])
    grads = (dx, dparams, None if dlambda is None else np.asarray(dlambda))[:len(needs)]
    return tuple(grad if need else None for grad, need in zip(grads, needs))


_TNOFunction = _function("TNOFunction", _tno_forward, _tno_backward)


def tno(x, plan, params=None, decay=None):
    """y = plan(x) for an skit.TNOPlan of any kind ('tno', 'fd', 'ski'),
    differentiable by the library's backward w.r.t. x ((batch, n, d), or
    (n, d) for batch 1), params (the flat vector in the layout of
    plan.parameters; None: the plan's current ones, as a constant) and,
    for kind 'tno', decay (TNO's lambda, a 0-d tensor; None: the plan's,
    as a constant). The plan runs with these params (set_parameters), so
    one plan serves a training loop; a decay other than the plan's runs on
    a plan made for it (plan.with_decay). float64 tensors. Since it sets
    the plan's parameters, do not call it on one plan from several threads
    at once (a backward re-sets them if another call changed them)."""
    if params is None:
        params = torch.from_numpy(plan.parameters)
    tensors = (x, params) if decay is None else (x, params, decay)
    return _TNOFunction.apply(dict(plan=plan), *tensors)


class TNOPlanModule(torch.nn.Module):
    """An nn.Module around an skit.TNOPlan: its parameters (the flat vector
    of plan.parameters) and, for kind 'tno' with learn_decay and a decay
    in (0, 1), the logit of its decay lambda (decay_logit; lambda =
    sigmoid(decay_logit), the .decay property) are nn.Parameters; forward
    and backward both run in skit.

    Any length and batch: x of shape (batch_x, n_x, d) (or (n_x, d)) other
    than the plan's runs on a plan of that shape made from the same
    settings (kind, causal, layout, rpe_width, ...) and the module's
    parameters, built on first use and reused after. The parameters of a
    kind do not depend on n, so the one nn.Parameter serves every length
    and the gradients of all of them accumulate into it. A kind whose
    settings do not fit another length (a SKI rank above n_x, a fixed
    fft_length below it) raises the library's error at that length. The
    constructor's plan is always kept; of the others, the max_plans most
    recently used are (a loop over many lengths would otherwise hold one
    plan per length). An evicted plan is not closed, since a pending
    backward may still hold it; garbage collection frees it after."""

    def __init__(self, plan, learn_decay=True, max_plans=4):
        super().__init__()
        if int(max_plans) < 0:
            raise ValueError(f"skit.torch.TNOPlanModule: max_plans must be >= 0, got {max_plans}")
        self.plan = plan
        self.max_plans = int(max_plans)
        self._plans = collections.OrderedDict()  # (n, batch) -> plan, the constructor's not included
        self.params = torch.nn.Parameter(torch.from_numpy(plan.parameters.copy()))
        # lambda = sigmoid(theta), as skit train --learn-decay: an optimiser
        # step cannot leave (0, 1), where the decay bias is defined (a
        # lambda of 1, no decay, has no logit and stays fixed)
        learn = learn_decay and plan.kind == "tno" and 0 < plan.decay < 1
        self.decay_logit = torch.nn.Parameter(
            torch.tensor(math.log(plan.decay / (1 - plan.decay)), dtype=torch.float64)) if learn else None

    @property
    def decay(self):
        """TNO's lambda, sigmoid(decay_logit) (a tensor in the graph), or None
        when it is not learnt."""
        return None if self.decay_logit is None else torch.sigmoid(self.decay_logit)

    @property
    def cached_shapes(self):
        """The (n, batch) of the plans held besides the constructor's, least
        recently used first."""
        return list(self._plans)

    def plan_for(self, n, batch=1):
        """The plan this module runs on (batch, n, d) inputs."""
        base = self.plan
        key = (int(n), int(batch))
        if key == (base.n, base.batch):
            return base
        plan = self._plans.get(key)
        if plan is None or plan.closed:
            plan = _tno.TNOPlan(key[0], base.d, key[1], base.kind, base.causal, base.layout,
                                params=self.params.detach().cpu().numpy(), dtype=base.dtype,
                                **base._settings)
            self._plans[key] = plan
            while len(self._plans) > self.max_plans:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
        return plan

    def forward(self, x):
        # a (n, d) input is batch 1; other ranks go to the plan, which names the shapes it takes
        if x.dim() == 3:
            plan = self.plan_for(x.shape[1], x.shape[0])
        elif x.dim() == 2:
            plan = self.plan_for(x.shape[0], 1)
        else:
            plan = self.plan
        return tno(x, plan, self.params, self.decay)


# ---- the MLP (skit_mlp_backward) and TNO's decay bias on their own ----

def _mlp_forward(x, params, *, mlp):
    params = np.array(params, dtype=np.float64)
    mlp.parameters = params
    return mlp(x), (mlp, x, params)


def _mlp_backward(saved, g, needs):
    mlp, x, params = saved
    mlp.parameters = params  # the MLP may have run with others since
    dx, dparams = mlp.backward(x, g)
    return tuple(grad if need else None for grad, need in zip((dx, dparams), needs))


_MLPFunction = _function("MLPFunction", _mlp_forward, _mlp_backward)


def mlp(x, net, params=None):
    """y = net(x) for an skit.MLP, x (count, in_dim) (or (count,) for
    in_dim 1), differentiable w.r.t. x and params (the flat vector in the
    layout of net.parameters; None: the MLP's own, as a constant) by
    skit_mlp_backward. The MLP runs with these params. float64."""
    if params is None:
        params = torch.from_numpy(net.parameters)
    return _MLPFunction.apply(dict(mlp=net), x, params)


def _decay_forward(rpe, decay, *, lags):
    decay = float(decay)
    return _tno.decay_bias(rpe, lags, decay), (rpe, decay, lags)


def _decay_backward(saved, g, needs):
    rpe, decay, lags = saved
    drpe, ddecay = _tno.decay_bias_backward(rpe, lags, decay, g)
    return (drpe if needs[0] else None), (np.asarray(ddecay) if needs[1] else None)


_DecayFunction = _function("DecayBiasFunction", _decay_forward, _decay_backward)


def decay_bias(rpe, lags, decay):
    """TNO's decay bias k[j, c] = rpe[j, c] decay^|lags[j]| (rpe (count, d),
    lags (count,) constants, decay a 0-d tensor), differentiable w.r.t. rpe
    and decay by skit_tno_decay_bias_backward."""
    lags = np.array(lags.detach() if isinstance(lags, torch.Tensor) else lags, dtype=np.float64)
    return _DecayFunction.apply(dict(lags=lags), rpe, decay)


# ---- attention: exact and MRA-2, through rows plans ----
# A plan of the rows layout reads the tensors' C-ordered (..., n, d) memory
# in place (skit_attention_options.layout); it is kept from the forward for
# the backward (skit_attention_plan_backward(_f32)).

def _plan_forward(method, q, k, v, mask, **options):
    """The plan of q's precision (float32 q, k, v: the float32 plan) on q, k, v,
    and what its backward needs."""
    n, d, dv = q.shape[-2], q.shape[-1], v.shape[-1]
    dtype = np.float32 if _float32(q, k, v) else np.float64
    plan = AttentionPlan(method, n, d, dv, dtype=dtype, **options)
    return plan(q, k, v, mask=mask), ("plan", plan, q, k, v, mask)


def _plan_backward(saved, g, needs):
    """The gradients by the forward's plan (kept open: a graph may run its
    backward more than once; garbage collection frees it with the graph)."""
    _, plan, q, k, v, mask = saved
    return plan.backward(q, k, v, g.astype(plan.dtype, copy=False), mask=mask, needs=needs)


def _float32(*arrays):
    return all(a.dtype == np.float32 for a in arrays)


def _exact_forward(q, k, v, *, scale, mask, causal):
    return _plan_forward("exact", q, k, v, mask, scale=_scale(scale, q.shape[-1]), causal=int(causal))


_AttentionFunction = _function("AttentionFunction", _exact_forward, _plan_backward)


def attention(q, k, v, scale=None, mask=None, causal=False):
    """softmax(scale Q K^T) V (skit.attention), differentiable w.r.t. q, k
    and v by skit_attention_plan_backward (exact). q, k: (..., n, d); v:
    (..., n, dv); mask: None or n booleans (False = padding key and row);
    causal: query i sees keys j <= i only. Contiguous tensors are read
    and the output written in place (a rows plan). Float32 q, k and v run
    the library's float32 attention plan, forward and backward (float32
    gradients within skit/attention.h's bounds)."""
    return _AttentionFunction.apply(dict(scale=scale, mask=mask, causal=bool(causal)), q, k, v)


def _mra2_forward(q, k, v, *, scale, block, blocks_per_row, selection, causal):
    """MRA-2 by a plan; its backward selects the squares again from q, k
    (the execute's own selection), so they are held fixed."""
    return _plan_forward("mra2", q, k, v, None, scale=_scale(scale, q.shape[-1]), block=block,
                         blocks_per_row=blocks_per_row, selection=selection, causal=int(causal))


_MRA2Function = _function("MRA2Function", _mra2_forward, _plan_backward)


def _padded(a, size):
    """a (..., n, c) with zero rows appended up to (..., size, c)."""
    extra = np.zeros(a.shape[:-2] + (size - a.shape[-2], a.shape[-1]))
    return np.concatenate([a, extra], axis=-2)


def _mra2_padded_forward(q, k, v, *, scale, block, blocks_per_row, selection, causal):
    """MRA-2 on q, k, v padded with zero rows to a multiple of block, the
    padding keys masked out of every softmax and out of the block means
    (the plan's padding mask); the first n rows of its output."""
    n, d, dv = q.shape[-2], q.shape[-1], v.shape[-1]
    size = -(-n // block) * block
    qp, kp, vp = (_padded(a, size) for a in (q, k, v))
    valid = np.arange(size) < n
    mask = valid.astype(np.uint8)
    with AttentionPlan("mra2", size, d, dv, scale=_scale(scale, d), block=block,
                       blocks_per_row=blocks_per_row, selection=selection,
                       causal=int(causal)) as plan:
        y = plan(qp, kp, vp, mask=mask)
        refined = plan.select(qp, kp, mask=mask)
    saved = (qp, kp, vp, _scale(scale, d), block, refined, causal, valid, n)
    return y[..., :n, :], saved


def _mra2_masked_gradients(q, k, v, g, valid, refined, block, scale, causal):
    """dq, dk, dv of <g, Y> for one (size, d) problem of masked MRA-2 with
    the refined squares fixed: a softmax over atoms per query row -- the
    fine logits of the valid keys of its refined squares, one coarse atom
    per other square (logit C_xy + log count_y on the means of the valid
    rows, value the valid values' mean) -- as the plan's execute computes
    it. Dense (size x size): the library's MRA-2 backward takes no mask."""
    size = q.shape[0]
    rows = size // block
    blk = np.arange(size) // block
    w = valid.astype(np.float64)
    count = w.reshape(rows, block).sum(1)

    def means(a):
        return (a * w[:, None]).reshape(rows, block, -1).sum(1) / count[:, None]

    qm, km, vm = means(q), means(k), means(v)
    r = refined.reshape(rows, rows, order="F").astype(bool)  # r[x, y]: square (x, y) refined
    fine = r[blk][:, blk] & valid[None, :]
    coarse = ~r[blk]
    if causal:
        fine &= np.tri(size, dtype=bool)
        coarse &= np.arange(rows)[None, :] < blk[:, None]
    with np.errstate(divide="ignore"):
        p = np.where(fine, scale * q @ k.T, -np.inf)
        c = np.where(coarse, (scale * qm @ km.T)[blk] + np.log(count)[None, :], -np.inf)
    shift = np.maximum(p.max(1), c.max(1))[:, None]
    a, b = np.exp(p - shift), np.exp(c - shift)
    z = (a.sum(1) + b.sum(1))[:, None]
    a, b = a / z, b / z
    g = g * w[:, None]  # the padding rows' output is 0, whatever their weights
    da, db = g @ v.T, g @ vm.T
    t = ((a * da).sum(1) + (b * db).sum(1))[:, None]
    dp, dc = a * (da - t), b * (db - t)
    dcx = dc.reshape(rows, block, rows).sum(1)
    spread = (w / count[blk])[:, None]  # the adjoint of a mean over the valid rows
    dq = scale * (dp @ k + spread * (dcx @ km)[blk])
    dk = scale * (dp.T @ q + spread * (dcx.T @ qm)[blk])
    dv = a.T @ g + spread * (b.T @ g)[blk]
    return dq, dk, dv


def _mra2_padded_backward(saved, g, needs):
    qp, kp, vp, scale, block, refined, causal, valid, n = saved
    batch = qp.shape[:-2]
    size = qp.shape[-2]
    gp = _padded(g, size)
    flat = [a.reshape((-1,) + a.shape[-2:]) for a in (qp, kp, vp, gp)]
    grads = [np.empty_like(a) for a in flat[:3]]
    for index, chosen in enumerate(refined):
        parts = _mra2_masked_gradients(*(a[index] for a in flat), valid, chosen, block, scale,
                                       causal)
        for out, part in zip(grads, parts):
            out[index] = part
    return tuple(out.reshape(batch + out.shape[-2:])[..., :n, :] if need else None
                 for out, need in zip(grads, needs))


_MRA2PaddedFunction = _function("MRA2PaddedFunction", _mra2_padded_forward,
                                _mra2_padded_backward)


def mra2(q, k, v, block=32, blocks_per_row=8, selection="global", scale=None, causal=False,
         pad=False):
    """MRA-2 (two levels {block, 1}) on q, k: (..., n, d) and v: (..., n,
    dv), differentiable w.r.t. q, k, v with the refined squares held fixed
    (the selection passes no gradient, as in the authors' code). Float32
    q, k, v (n a multiple of block) run the float32 MRA-2 plan, forward
    and backward.
    blocks_per_row <= ceil(n / block). causal: query i sees keys j <= i
    only (diagonal squares always refined).

    n a multiple of block: no mask, backward by the plan's
    skit_attention_plan_backward (skit_mra2_backward inside).
    Otherwise pad=True is needed: q, k, v are padded at the end with zero
    rows to the next multiple of block and the padding tokens are masked
    (the plan's padding mask): no softmax gives them weight, the block
    means of the last block are over its valid rows, and the output is the
    first n rows. That is MRA-2 of the n tokens with a short last block,
    exact attention when every square is refined. The library's MRA-2
    backward takes no mask, so the padded backward runs in numpy over the
    dense (n', n') logits of each (n, d) matrix: O(n'^2) memory, for
    modest n only."""
    n, block = q.shape[-2], int(block)
    if block < 2:
        raise ValueError(f"skit.torch.mra2: block must be >= 2, got block = {block}")
    blocks = -(-n // block)
    if not 1 <= int(blocks_per_row) <= blocks:
        raise ValueError(f"skit.torch.mra2: blocks_per_row = {blocks_per_row} out of range: need "
                         f"1 <= blocks_per_row <= ceil(n / block) = {blocks} (n = {n}, "
                         f"block = {block})")
    options = dict(scale=scale, block=block, blocks_per_row=int(blocks_per_row),
                   selection=selection, causal=bool(causal))
    if n % block == 0:
        return _MRA2Function.apply(options, q, k, v)
    if not pad:
        raise ValueError(f"skit.torch.mra2: n = {n} is not a multiple of block = {block}: pass "
                         f"pad=True (pads q, k, v to {blocks * block} rows, the padding "
                         "keys masked) or choose a block that divides n")
    return _MRA2PaddedFunction.apply(options, q, k, v)


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
    """A Toeplitz neural operator for (..., n_x, d) inputs: k_c(t) = RPE_c(t)
    decay^|t| computed in PyTorch (float64), the per-channel Toeplitz
    product and both of its gradients computed by skit.

    n is the construction length: it sets the lags of coeffs() (and of the
    lags / bias buffers). forward evaluates the RPE and the decay bias at
    the lags of the input's own length n_x (any n_x >= 1), as TNN's layers
    do, so a layer trained at n runs at 16 n with the same weights; a call
    at n_x gives what a TNO built for n_x with these weights gives."""

    def __init__(self, n, d, width=64, layers=3, decay=0.99, causal=False):
        super().__init__()
        self.n, self.d, self.decay, self.causal = n, d, decay, causal
        self.rpe = RPE(d, width, layers)
        lags = self._lags(n)
        self.register_buffer("lags", lags)
        self.register_buffer("bias", decay ** lags.abs())

    @staticmethod
    def _lags(n):
        return torch.arange(-(n - 1), n, dtype=torch.float64)

    def coeffs(self, n=None):
        """(2n-1, d) Toeplitz coefficients (lags by channels) at length n
        (None: the construction length)."""
        if n is None or int(n) == self.n:
            lags, bias = self.lags, self.bias
        else:
            n = int(n)
            if n < 1:
                raise ValueError(f"skit.torch.TNO: the length must be >= 1, got {n}")
            lags = self._lags(n).to(self.lags.device)
            bias = self.decay ** lags.abs()
        return self.rpe(lags) * bias[:, None]

    def forward(self, x):
        return toeplitz(self.coeffs(x.shape[-2]), x, causal=self.causal)
