"""Token-mixing operators of Toeplitz neural networks: TNO, SKI-TNO and
FD-TNO behind one plan (skit/tno.h).

x and y have shape (batch, n, d) -- PyTorch's (B, N, D) as a TNN layer
receives it -- or (n, d) when batch = 1. layout='rows' (the default) reads
C-contiguous (batch, n, d) arrays without a copy; layout='channels' reads
arrays whose channels are contiguous (x.swapaxes(-1, -2) C-contiguous,
e.g. an F-contiguous (n, d) array) without a copy. Other inputs are copied
into the plan's layout.

Parameters (one flat float64 vector, see parameters / set_parameters):
  kind 'tno': the RPE MLP's Linear weights (out x in, row-major) and biases
    in order: torch.cat([p.flatten() for p in rpe.parameters()]) of TNN's
    Rpe, whose state dict holds pos_proj.weight (width, 1), pos_proj.bias,
    layers.<i>.2.weight (width, width), layers.<i>.2.bias, out.2.weight
    (d, width), out.2.bias (the .2 is the Linear after the parameter-free
    RMS norm and the activation); from_state_dict reads them in that order.
  kind 'fd': the frequency-response MLP's vector, same layout.
  kind 'ski': the knot values (d, 2K) then the taps (d, m) of each
    channel's centred filter (PyTorch's depthwise Conv1d weight (d, 1, m)
    flipped along its last axis, since Conv1d correlates).
"""
import ctypes
import operator

import numpy as np

from . import _array as A
from . import _lib
from ._lib import Handle, check, lib, new_handle
from .mlp import ACTIVATIONS, NORMS, _choice
from .toeplitz import DEVICES

KINDS = {"tno": 0, "ski": 1, "fd": 2}
LAYOUTS = {"rows": 0, "channels": 1}
CAUSAL_SKI = {"cumsum": 0, "blocked": 1, "auto": 2}
_Z = ctypes.c_size_t


class _TNOOptions(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("causality", ctypes.c_int), ("layout", ctypes.c_int),
                ("rpe_width", _Z), ("rpe_layers", _Z), ("activation", ctypes.c_int),
                ("norm", ctypes.c_int), ("decay", ctypes.c_double), ("rank", _Z), ("taps", _Z),
                ("knots", _Z), ("fft_length", _Z), ("seed", ctypes.c_uint64),
                ("causal_ski", ctypes.c_int), ("device", ctypes.c_int),
                ("precision", ctypes.c_int), ("planner", ctypes.c_int)]


_lib.check_layout(_TNOOptions, "tno", "skit_tno_options")


def _options(kind, causal, layout, **settings):
    o = _TNOOptions()
    lib.skit_tno_options_default(ctypes.byref(o), _choice(KINDS, kind, "kind"))
    o.causality = int(bool(causal))
    o.layout = _choice(LAYOUTS, layout, "layout")
    tables = {"activation": ACTIVATIONS, "norm": NORMS, "causal_ski": CAUSAL_SKI,
              "device": DEVICES}
    for name, value in settings.items():
        if value is None:
            continue
        if name in tables:
            value = _choice(tables[name], value, name)
        elif name == "decay":
            value = float(value)
        else:
            value = int(value)
        setattr(o, name, value)
    return o


def parameter_count(kind, d, causal=False, **settings):
    """Number of parameters of a plan with these settings and d channels."""
    o = _options(kind, causal, "rows", **settings)
    count = ctypes.c_size_t()
    check(lib.skit_tno_options_parameter_count(ctypes.byref(o), int(d), ctypes.byref(count)))
    return count.value


def rpe_parameters_from_state_dict(state_dict, prefix=""):
    """The flat RPE vector from a PyTorch state dict (or any mapping of
    names to arrays/tensors): every '<prefix>...weight' / '...bias' entry in
    the dict's order (PyTorch's registration order: pos_proj, layers.*,
    out for TNN's Rpe), flattened and concatenated. Entries of other
    modules are skipped by the prefix (e.g. 'decoder.layers.0.token_mixer.rpe.')."""
    parts = []
    for name, value in state_dict.items():
        if not name.startswith(prefix) or not name.endswith(("weight", "bias")):
            continue
        if hasattr(value, "detach"):
            value = value.detach().cpu().double().numpy()
        parts.append(np.asarray(value, dtype=np.float64).ravel())
    if not parts:
        raise ValueError(f"skit: no weight/bias entries under prefix {prefix!r}")
    return np.concatenate(parts)


def _decay_inputs(rpe, lags):
    r = A.real(rpe, "rpe")
    t = A.vector(lags, "lags")
    if r.ndim != 2 or r.shape[0] != t.size:
        raise ValueError(f"skit: rpe must have shape ({t.size}, d) for {t.size} lags, "
                         f"got {r.shape}")
    return r, t


def decay_bias(rpe, lags, decay):
    """TNO's decay bias on its own: k[j, c] = rpe[j, c] * decay^|lags[j]|
    (skit_tno_decay_bias); rpe (count, d)."""
    r, t = _decay_inputs(rpe, lags)
    k = np.empty_like(r)
    check(lib.skit_tno_decay_bias(t.size, A.pointer(t), r.shape[1], float(decay), A.pointer(r),
                                  A.pointer(k)))
    return k


def decay_bias_backward(rpe, lags, decay, dk):
    """(drpe, ddecay) of decay_bias for the output gradient dk."""
    r, t = _decay_inputs(rpe, lags)
    g = A.real(dk, "dk")
    if g.shape != r.shape:
        raise ValueError(f"skit: dk must have shape {r.shape}, got {g.shape}")
    dr, dl = np.empty_like(r), ctypes.c_double()
    check(lib.skit_tno_decay_bias_backward(t.size, A.pointer(t), r.shape[1], float(decay),
                                           A.pointer(r), A.pointer(g), A.pointer(dr),
                                           ctypes.byref(dl)))
    return dr, dl.value


def _cast_like(y, x):
    return y.astype(A.F32) if np.asarray(x).dtype == A.F32 else y


class TNOPlan(Handle):
    """TNOPlan(n, d, batch=1, kind='tno', causal=False, layout='rows', ...):
    the keyword settings are the fields of skit_tno_options (rpe_width,
    rpe_layers, activation, norm, decay, rank, taps, knots, fft_length,
    seed, causal_ski, device); params: the flat parameter vector (default:
    generated from seed). dtype=numpy.float32: a float32 plan
    (skit_tno_options.precision; float spectra and data, parameters and
    their gradient still float64), which takes float32 data only."""

    _destroy = "skit_tno_plan_destroy"

    def __init__(self, n, d, batch=1, kind="tno", causal=False, layout="rows", params=None,
                 dtype=np.float64, **settings):
        super().__init__()
        dtype = np.dtype(dtype)
        if dtype not in (A.F64, A.F32):
            raise TypeError(f"skit: dtype must be float64 or float32, got {dtype}")
        o = _options(kind, causal, layout, **settings)
        o.precision = int(dtype == A.F32)  # SKIT_PRECISION_F32
        p = None if params is None else A.vector(params, "params")
        cell = new_handle()
        n, d, batch = operator.index(n), operator.index(d), operator.index(batch)  # 8.5: TypeError
        check(lib.skit_tno_plan_create(ctypes.byref(cell), n, d, batch,
                                       ctypes.byref(o), None if p is None else A.pointer(p),
                                       0 if p is None else p.size))
        self._adopt(cell)
        self.n, self.d, self.batch = int(n), int(d), int(batch)
        self.kind, self.causal, self.layout = kind, bool(causal), layout
        self.decay = o.decay
        self.dtype = dtype
        self._settings = settings
        if dtype == A.F32:
            self._hot = None  # the cffi shortcut is float64's
        self.generation = 0  # counts set_parameters calls (lets skit.torch detect reuse)
        self._work = None  # backward's workspace (_backward_work)

    def with_decay(self, decay):
        """A new plan like this one (same current parameters) with another
        decay lambda (a plan's lambda is fixed at creation)."""
        settings = dict(self._settings, decay=float(decay))
        return TNOPlan(self.n, self.d, self.batch, self.kind, self.causal, self.layout,
                       params=self.parameters, dtype=self.dtype, **settings)

    @classmethod
    def from_state_dict(cls, state_dict, n, d, batch=1, prefix="", **kwargs):
        """A 'tno' or 'fd' plan whose RPE is read from a PyTorch state dict."""
        return cls(n, d, batch, params=rpe_parameters_from_state_dict(state_dict, prefix),
                   **kwargs)

    def __repr__(self):
        if self.closed:
            return "TNOPlan(closed)"
        buf = ctypes.create_string_buffer(512)
        lib.skit_tno_plan_describe(self, buf, len(buf))
        return f"TNOPlan({buf.value.decode()})"

    def set_decay(self, decay):
        """TNO's decay lambda in (0, 1] (skit_tno_plan_set_decay: kernels
        recomputed, no replanning); kind 'tno' only. As set_parameters, not
        while another thread calls this plan."""
        with self._lock:
            check(lib.skit_tno_plan_set_decay(self, float(decay)))
            self.decay = float(decay)
            self.generation += 1

    @property
    def parameter_count(self):
        return lib.skit_tno_plan_parameter_count(self)

    @property
    def parameters(self):
        p = np.empty(self.parameter_count)
        check(lib.skit_tno_plan_get_parameters(self, A.pointer(p), p.size))
        return p

    @parameters.setter
    def parameters(self, values):
        self.set_parameters(values)

    def set_parameters(self, values):
        """New parameters (kernels recomputed). As in C, not while another
        thread calls this plan (plan(x) itself is thread-safe)."""
        p = A.vector(values, "params")
        with self._lock:
            check(lib.skit_tno_plan_set_parameters(self, A.pointer(p), p.size))
            self.generation += 1

    @property
    def nbytes(self):
        return lib.skit_tno_plan_bytes(self)

    @property
    def workspace_bytes(self):
        return lib.skit_tno_plan_workspace_bytes(self)

    def _shape(self):
        return (self.batch, self.n, self.d)

    def _c_strides(self, ndim):
        return (8 * self.n * self.d, 8 * self.d, 8)[3 - ndim:] if ndim in (2, 3) else None

    def _input(self, x, name="x", upcast=False, dtype=None):
        """x in the plan's layout and precision (or dtype), as (batch, n, d)
        view; squeeze flag."""
        a = np.asarray(x)
        dtype = self.dtype if dtype is None else dtype
        if dtype == A.F32:
            if a.dtype != A.F32:
                raise TypeError(f"skit: this plan computes in float32 (dtype=float32): {name} must be "
                                f"float32, got {a.dtype}")
        else:
            A.refuse_float32(a, name, upcast)
        squeeze = a.ndim == 2 and self.batch == 1
        if squeeze:
            a = a[None]
        if a.shape != self._shape():
            raise ValueError(f"skit: {name} must have shape {self._shape()}"
                             + (f" or {self._shape()[1:]}" if self.batch == 1 else "")
                             + f", got {np.shape(x)}")
        if self.layout == "rows":
            a = np.ascontiguousarray(a, dtype=dtype)
        else:
            a = np.ascontiguousarray(a.swapaxes(-1, -2), dtype=dtype).swapaxes(-1, -2)
        return a, squeeze

    def _output(self, dtype=None):
        dtype = self.dtype if dtype is None else dtype
        if self.layout == "rows":
            return np.empty(self._shape(), dtype=dtype)
        return np.empty((self.batch, self.d, self.n), dtype=dtype).swapaxes(-1, -2)

    def _f32(self, name):
        """The C function name of this plan's precision."""
        return getattr(lib, name + ("_f32" if self.dtype == A.F32 else ""))

    def __call__(self, x, *, upcast=False):
        """y = TNO(x) with the cached kernels (thread-safe). float32 x: see
        skit._array (upcast=True computes in float64, returns float32)."""
        if self._hot is not None and type(x) is np.ndarray and x.dtype is A.F64 \
                and self.layout == "rows" and x.strides == self._c_strides(x.ndim) \
                and x.shape == self._shape()[3 - x.ndim:] and (x.ndim == 3 or self.batch == 1):
            # C-contiguous (batch, n, d) or (n, d): the least Python work, through cffi
            y = np.empty(x.shape)
            h = self._hot
            self._acquire()  # close() waits for this call
            try:
                status = _lib.hot.skit_tno_plan_execute(h, _lib.hot_buffer(x), _lib.hot_buffer(y, True),
                                                        _lib.hot_null)
            finally:
                self._release()
            if status:
                check(status)
            return y
        a, squeeze = self._input(x, upcast=upcast)
        y = self._output()
        check(self._f32("skit_tno_plan_execute")(self, A.pointer(a), A.pointer(y), None))
        if self.dtype == A.F32:
            A.check_float32_result(y, (a,), "TNOPlan")
        return _cast_like(y[0] if squeeze else y, x)

    def forward(self, x, *, upcast=False):
        """Recompute the kernels from the parameters, then apply (the cost of
        a training step's forward pass)."""
        a, squeeze = self._input(x, upcast=upcast)
        y = self._output()
        with self._lock:
            check(self._f32("skit_tno_plan_forward")(self, A.pointer(a), A.pointer(y)))
        if self.dtype == A.F32:
            A.check_float32_result(y, (a,), "TNOPlan.forward")
        return _cast_like(y[0] if squeeze else y, x)

    def backward(self, x, dy, *, dx=True, dparams=True, dlambda=True):
        """The vector-Jacobian products of y = plan(x) for an output gradient
        dy (skit_tno_plan_backward): (dx, dparams, dlambda) with dx shaped as
        x, dparams in the layout of `parameters`, and dlambda the gradient
        w.r.t. TNO's decay lambda (0.0 for 'fd' and 'ski'), at the plan's
        current parameters. A float32 plan takes and returns float32 x, dy
        and dx (skit_tno_plan_backward_f32); dparams stay float64.
        dx=False, dparams=False or dlambda=False skip that gradient (None
        in its place): the library then skips its work (dlambda costs TNO's
        backward one more GEMM of the RPE's output layer)."""
        a, squeeze = self._input(x)
        g, _ = self._input(dy, "dy")
        gx = self._output() if dx else None
        gp = np.empty(self.parameter_count) if dparams else None
        gl = ctypes.c_double() if dlambda else None
        with self._lock:
            work = self._backward_work()
            check(self._f32("skit_tno_plan_backward")(self, A.pointer(a), A.pointer(g),
                                                      None if gx is None else A.pointer(gx),
                                                      None if gp is None else A.pointer(gp),
                                                      None if gl is None else ctypes.byref(gl),
                                                      A.pointer(work)))
        if gx is not None and squeeze:
            gx = gx[0]
        return gx, gp, None if gl is None else gl.value

    def _backward_work(self):
        """The backward's workspace, made on first use and kept (under
        self._lock) until release_workspace() or close(): at training sizes
        it is tens of MB, and a fresh one per call costs a page fault per
        4 KiB, a third of a float32 layer's backward at (2048, 512, 1)."""
        if self._work is None:
            self._work = A.aligned_bytes(max(lib.skit_tno_plan_backward_workspace_bytes(self), 1))
        return self._work

    def release_workspace(self):
        """Free the workspace backward keeps between calls
        (backward_workspace_bytes); the next backward makes a new one."""
        with self._lock:
            self._work = None

    @property
    def backward_workspace_bytes(self):
        return lib.skit_tno_plan_backward_workspace_bytes(self)

    def coeffs(self):
        """(2n-1, d) Toeplitz coefficients of every channel, lags by channels
        as ToeplitzPlan takes them ('tno' and 'fd'; 'ski' raises
        NotImplementedError: not Toeplitz)."""
        out = np.empty((self.d, 2 * self.n - 1))
        with self._lock:
            check(lib.skit_tno_plan_coeffs(self, A.pointer(out)))
        return out.T

    def coeffs_reference(self):
        """(2n, d) coefficients in the TNN code's FFT layout (lags by channels)."""
        out = np.empty((self.d, 2 * self.n))
        with self._lock:
            check(lib.skit_tno_plan_coeffs_reference(self, A.pointer(out)))
        return out.T

    def eval_rpe(self):
        """Evaluate only the RPE MLP (the forward pass's RPE floor); returns
        the number of inputs evaluated."""
        points = ctypes.c_size_t()
        with self._lock:
            check(lib.skit_tno_plan_eval_rpe(self, ctypes.byref(points)))
        return points.value

    def update(self):
        """Recompute the kernels from the current parameters."""
        with self._lock:
            check(lib.skit_tno_plan_update(self))

    def dense(self, channel):
        """The n x n matrix T_c of one channel."""
        out = np.empty((self.n, self.n), order="F")
        with self._lock:
            check(lib.skit_tno_plan_dense(self, int(channel), A.pointer(out), self.n))
        return out

    def reference(self, x):
        """(y, |T| |x|) by the O(n^2) dense products."""
        a, squeeze = self._input(x, upcast=True, dtype=A.F64)  # a float64 reference in any case
        y, mag = self._output(A.F64), self._output(A.F64)
        with self._lock:
            check(lib.skit_tno_plan_reference(self, A.pointer(a), A.pointer(y), A.pointer(mag)))
        return (y[0], mag[0]) if squeeze else (y, mag)
