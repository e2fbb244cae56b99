"""Toeplitz matrices: dense reference, FFT matvec plans, Levinson solves.

Convention (skit/toeplitz.h): T(i, j) = t_{i-j}; an m x n matrix has the
m+n-1 coefficients t_{-(n-1)}, ..., t_0, ..., t_{m-1} in that order
(coeffs[k + n - 1] = t_k). from_scipy converts scipy's (c, r).
"""
import ctypes
import dataclasses

import numpy as np

from . import _array as A
from . import _lib
from ._lib import Handle, check, lib, new_handle
from .mlp import _choice

_CAUSALITY = {False: 0, True: 1}
_ndarray, _empty, _F64, _S8 = np.ndarray, np.empty, A.F64, (8,)
_hot_buffer = _lib.hot_buffer if _lib.hot is not None else None
DEVICES = {"cpu": 0, "cuda": 1}


class _ToeplitzOptions(ctypes.Structure):
    _fields_ = [("sharing", ctypes.c_int), ("causality", ctypes.c_int), ("device", ctypes.c_int),
                ("precision", ctypes.c_int), ("planner", ctypes.c_int),
                ("inverse", ctypes.c_int), ("layout", ctypes.c_int)]


LAYOUTS = {"columns": 0, "rows": 1}  # skit_layout


_lib.check_layout(_ToeplitzOptions, "toeplitz", "skit_toeplitz_options")


def _channel_step(dtype, rows, ld):
    """Bytes from channel c to c + 1 of a block: one value in rows, a
    column (ld values) in columns."""
    return np.dtype(dtype).itemsize * (1 if rows else ld)


def from_scipy(c, r=None):
    """skit coefficients of scipy.linalg.toeplitz(c, r): returns (coeffs, m, n).
    As in scipy, r defaults to c (symmetric) and r[0] is ignored."""
    c = A.vector(c, "c")
    r = c if r is None else A.vector(r, "r")
    if c.size == 0 or r.size == 0:
        raise ValueError("skit: c and r must be non-empty")
    return np.concatenate([r[:0:-1], c]), c.size, r.size


def _shape(coeffs, m, n):
    n = m if n is None else n
    if m < 1 or n < 1:
        raise ValueError(f"skit: need m >= 1 and n >= 1, got m = {m}, n = {n}")
    return int(m), int(n)


def dense(coeffs, m, n=None, causal=False):
    """The m x n Toeplitz matrix (O(mn) reference)."""
    m, n = _shape(coeffs, m, n)
    c = A.vector(coeffs, "coeffs", length=m + n - 1)
    out = np.empty((m, n), order="F")
    check(lib.skit_toeplitz_dense(m, n, A.pointer(c), _CAUSALITY[bool(causal)], A.pointer(out), m))
    return out


def matvec_dense(coeffs, x, m, n=None, causal=False, transpose=False):
    """y = T x (or T^T x) by the O(mn) definition, for one vector."""
    m, n = _shape(coeffs, m, n)
    c = A.vector(coeffs, "coeffs", length=m + n - 1)
    xv = A.vector(x, "x", length=m if transpose else n)
    y = np.empty(n if transpose else m)
    check(lib.skit_toeplitz_matvec_dense(m, n, A.pointer(c), _CAUSALITY[bool(causal)],
                                         int(bool(transpose)), A.pointer(xv), A.pointer(y)))
    return y


class ToeplitzPlan(Handle):
    """FFT plan for y[..., :, c] = T_c x[..., :, c] with m x n matrices T_c.

    coeffs: (m+n-1, d) for d per-channel matrices (lags down, channels
    across, as x is tokens by channels; the CLI's files hold the same
    matrix), or (m+n-1,) for one matrix shared by every channel
    (shared=True; then d is free at call time). causal: lower-triangular
    operators (negative lags ignored). Call with x of shape (..., n, d) (or
    (n,) for d = 1): returns (..., m, d) (or (m,)). plan.transpose(x)
    applies T_c^T. layout: 'rows' (the default) reads and writes
    C-contiguous (..., n, d) arrays in place, 'columns' F-ordered ones (see
    skit._array); the other order is copied once per call.
    """

    _destroy = "skit_toeplitz_plan_destroy"

    def __init__(self, coeffs, m, n=None, *, causal=False, shared=None, device="cpu",
                 upcast=False, dtype=np.float64, layout="rows"):
        super().__init__()
        dtype = np.dtype(dtype)
        if dtype not in (A.F64, A.F32):
            raise TypeError(f"skit: dtype must be float64 or float32, got {dtype}")
        m, n = _shape(coeffs, m, n)
        c = np.asarray(coeffs)
        if shared is None:
            shared = c.ndim == 1
        width = m + n - 1
        if shared:
            c = A.vector(c, "coeffs", length=width)
            d = 1
        else:
            c = A.channel_major(c, width)
            d = c.shape[0]
        if device not in DEVICES:
            raise ValueError(f"skit: device must be one of {sorted(DEVICES)}, got {device!r}")
        _choice(LAYOUTS, layout, "layout")
        if layout == "rows" and device != "cpu":
            layout = "columns"  # the CUDA plan reads column-major data only
        opts = _ToeplitzOptions()
        lib.skit_toeplitz_options_default(ctypes.byref(opts))
        opts.sharing, opts.causality = int(bool(shared)), _CAUSALITY[bool(causal)]
        opts.device = DEVICES[device]
        opts.precision = int(dtype == A.F32)  # SKIT_PRECISION_F32: fftwf plans, float spectra
        opts.layout = LAYOUTS[layout]
        cell = new_handle()
        check(lib.skit_toeplitz_plan_create(ctypes.byref(cell), m, n, d, ctypes.byref(opts),
                                            A.pointer(c)))
        self._adopt(cell)
        self.m, self.n, self.d = m, n, d
        self.shared, self.causal, self.device = bool(shared), bool(causal), device
        self.upcast = upcast
        self.dtype = dtype
        self.layout, self._rows = layout, layout == "rows"
        self.generation = 0  # counts set_coeffs calls (lets skit.torch reuse spectra)
        # the vector shapes of the shortest path (n = 1: any stride is unit)
        self._vector_in = (n,) if d == 1 else None
        self._vector_out = (m,)
        self._vector_ld = (1, 1) if self._rows else (n, m)  # one channel: rows of 1 value
        if dtype == A.F32:
            self._hot = None  # the cffi shortcut is float64's
        if self._hot is not None:
            self._hot_execute = _lib.hot.skit_toeplitz_plan_execute

    def set_coeffs(self, coeffs):
        """New coefficients of the same shape (spectra recomputed, no replanning).
        As in C, not while another thread executes this plan (calls of the
        plan itself may run in many threads at once)."""
        width = self.m + self.n - 1
        if self.shared:
            c = A.vector(coeffs, "coeffs", length=width)
        else:
            c = A.channel_major(coeffs, width)
            if c.shape[0] != self.d:
                raise ValueError(f"skit: coeffs must have shape ({width}, {self.d}), got {np.shape(coeffs)}")
        with self._lock:
            check(lib.skit_toeplitz_plan_set_coeffs(self, A.pointer(c)))
            self.generation += 1

    @property
    def fft_length(self):
        return lib.skit_toeplitz_plan_fft_length(self)

    @property
    def nbytes(self):
        return lib.skit_toeplitz_plan_bytes(self)

    @property
    def workspace_bytes(self):
        return lib.skit_toeplitz_plan_workspace_bytes(self)

    def __call__(self, x, out=None, *, upcast=None):
        # one float64 vector: the shortest path (cffi, see _lib.py)
        if self._hot is not None and type(x) is _ndarray and x.dtype is _F64 \
                and x.shape == self._vector_in and x.strides == _S8:
            if out is None:
                y = _empty(self.m)
            elif type(out) is _ndarray and out.dtype is _F64 and out.shape == self._vector_out \
                    and out.strides == _S8:
                y = out
            else:
                y = None
            if y is not None:
                try:
                    yb = _hot_buffer(y, True)
                except ValueError:  # a read-only out: the general path says so
                    yb = None
                if yb is not None:
                    h = self._hot
                    self._acquire()  # close() waits for this call
                    try:
                        status = self._hot_execute(h, _hot_buffer(x), self._vector_ld[0], yb,
                                                   self._vector_ld[1], _lib.hot_null)
                    finally:
                        self._release()
                    if status:
                        check(status)
                    return y
        y = self._hot_apply(x, out, False)
        return self._apply(x, out, False, upcast) if y is None else y

    def transpose(self, x, out=None, *, upcast=None):
        """y = T_c^T x_c: x (..., m, d) -> (..., n, d)."""
        y = self._hot_apply(x, out, True)
        return self._apply(x, out, True, upcast) if y is None else y

    def backward(self, x, dy, *, dx=True, dcoeffs=True):
        """(dcoeffs, dx) of y = plan(x) for an output gradient dy, by
        skit_toeplitz_plan_backward: dx = T_c^T dy_c, shaped as x; dcoeffs =
        the gradient w.r.t. the coefficients, shaped as the plan's ((m+n-1,
        d), or a shared plan's (m+n-1,) summed over the channels), summed
        over the batch axes (a causal plan gets 0 at its negative lags).
        dx=False or dcoeffs=False skips one (None). A float64 plan computes in float64
        (float32 data upcast); a float32 plan takes float32 x and dy and
        returns float32 dx and dcoeffs (skit_toeplitz_plan_backward_f32;
        the sum over the batch in float64)."""
        f32 = self.dtype == A.F32
        dt = A.F32 if f32 else A.F64
        if f32 and (np.asarray(x).dtype != A.F32 or np.asarray(dy).dtype != A.F32):
            raise TypeError("skit: this plan computes in float32 (dtype=float32): x and dy must be float32")
        rows = self._rows
        xb, ldx, squeeze = A.as_blocks_input(x, "x", dt, upcast=True, rows=rows)
        gb, ldg, _ = A.as_blocks_input(dy, "dy", dt, upcast=True, rows=rows)
        if xb.shape[-2] != self.n or gb.shape != xb.shape[:-2] + (self.m, xb.shape[-1]):
            raise ValueError(f"skit: x must be (..., {self.n}, d) and dy (..., {self.m}, d) with "
                             f"the same batch axes and d, got {np.shape(x)} and {np.shape(dy)}")
        batch, d = xb.shape[:-2], xb.shape[-1]
        if not self.shared and d != self.d:
            raise ValueError(f"skit: x must have d = {self.d} channels (axis -1), got {d}")
        gx = A.empty_blocks(batch, self.n, d, dt, rows) if dx else None
        lddx = d if rows else self.n
        width = self.m + self.n - 1
        total = np.zeros(width if self.shared else (d, width)) if dcoeffs else None
        part = np.empty(total.shape, dtype=dt) if dcoeffs else None
        fn = lib.skit_toeplitz_plan_backward_f32 if f32 else lib.skit_toeplitz_plan_backward
        ppart = A.pointer(part) if dcoeffs else None
        # a shared plan (d = 1) runs once per channel, as in _apply
        channels = range(d) if self.shared else [0]
        sx, sg, sdx = (_channel_step(dt, rows, ld) for ld in (ldx, ldg, lddx))
        pdxs = A.batch_pointers(gx) if dx else [None] * len(A.batch_pointers(xb))
        for px, pg, pdx in zip(A.batch_pointers(xb), A.batch_pointers(gb), pdxs):
            for c in channels:
                check(fn(self, px + sx * c, ldx, pg + sg * c, ldg,
                         None if pdx is None else pdx + sdx * c, lddx, ppart, None))
                if dcoeffs:
                    total += part
        if dx and squeeze:
            gx = gx[..., 0]
        if dcoeffs and not self.shared:
            total = total.T  # (width, d): lags by channels
        if f32 and dcoeffs:
            total = total.astype(A.F32)
        return total, gx

    def _hot_apply(self, x, out, transpose):
        """The common cases with the least Python work: one float64 vector
        (n,) or one (n, d) matrix contiguous in the plan's layout (C order
        for rows, F for columns), through cffi (checked by strides:
        ndarray.flags costs more than the rest). None: take the general
        path."""
        h = self._hot
        if h is None or type(x) is not np.ndarray or x.dtype is not A.F64:
            return None
        rows_in, rows_out = (self.m, self.n) if transpose else (self.n, self.m)
        d = self.d
        if x.shape == (rows_in,) and d == 1:
            want, strides, ldx, ldy = (rows_out,), (8,), 1 if self._rows else rows_in, \
                1 if self._rows else rows_out
            if x.strides != (8,) and rows_in > 1:
                return None
        elif x.shape == (rows_in, d) and self._rows:  # C-contiguous (n, d)
            want, strides, ldx, ldy = (rows_out, d), (8 * d, 8), d, d
            if x.strides != (8 * d, 8):
                return None
        elif x.shape == (rows_in, d):  # F-contiguous (n, d)
            want, strides, ldx, ldy = (rows_out, d), (8, 8 * rows_out), rows_in, rows_out
            if x.strides != (8, 8 * rows_in):
                return None
        else:
            return None
        if out is None:
            y = np.empty(want) if self._rows else np.empty(want[::-1]).T
        elif (type(out) is np.ndarray and out.dtype is A.F64 and out.shape == want
              and (out.strides == strides or rows_out == 1)):
            y = out
        else:
            return None
        fn = _lib.hot.skit_toeplitz_plan_execute_transpose if transpose else \
            _lib.hot.skit_toeplitz_plan_execute
        try:
            yb = _hot_buffer(y if self._rows else y.T, True)
        except (TypeError, ValueError, BufferError):  # read-only out: the general path says so
            return None
        self._acquire()  # close() waits for this call
        try:
            status = fn(h, _hot_buffer(x if self._rows else x.T), ldx, yb, ldy, _lib.hot_null)
        finally:
            self._release()
        if status:
            check(status)
        return y

    def _apply(self, x, out, transpose, upcast):
        name = "skit_toeplitz_plan_execute_transpose" if transpose else "skit_toeplitz_plan_execute"
        if self.dtype == A.F32:  # a float32 plan takes float32 data only
            if np.asarray(x).dtype != A.F32:
                raise TypeError(f"skit: this plan computes in float32 (dtype=float32): x must be "
                                f"float32, got {np.asarray(x).dtype}")
            dtype = A.F32
        else:
            dtype = A.float_dtype((x,), None, self.upcast if upcast is None else upcast)
        fn = getattr(lib, name + ("_f32" if dtype == A.F32 else ""))
        rows_in, rows_out = (self.m, self.n) if transpose else (self.n, self.m)
        rows = self._rows
        xb, ldx, squeeze = A.as_blocks_input(x, "x", dtype, upcast=True, rows=rows)  # float_dtype decided
        if xb.shape[-2] != rows_in:
            raise ValueError(f"skit: x must have {rows_in} rows (axis -2), got shape "
                             f"{np.shape(x)}")
        d = xb.shape[-1]
        if not self.shared and d != self.d:
            raise ValueError(f"skit: x must have d = {self.d} channels (axis -1), got {d}")
        batch = xb.shape[:-2]
        cast_back = np.asarray(x).dtype == A.F32 and dtype == A.F64
        if out is None or cast_back:
            y = A.empty_blocks(batch, rows_out, d, dtype, rows)
            ldy = d if rows else rows_out
        else:
            y = out[:, None] if squeeze and out.ndim == 1 else out
            ldy = A.check_out(y, batch + (rows_out, d), "out", dtype, rows)
        # a shared plan applies one matrix to any number of channels: one
        # call per channel block of d = 1 (the plan's d) when d > 1
        step = _channel_step(dtype, rows, ldx) if self.shared else 0
        ostep = _channel_step(dtype, rows, ldy) if self.shared else 0
        for px, py in zip(A.batch_pointers(xb), A.batch_pointers(y)):
            if self.shared:
                for c in range(d):
                    check(fn(self, px + c * step, ldx, py + c * ostep, ldy, None))
            else:
                check(fn(self, px, ldx, py, ldy, None))
        if dtype == A.F32:
            A.check_float32_result(y, (xb,), "ToeplitzPlan")
        if cast_back:
            y = y.astype(A.F32)
            if out is not None:
                out[...] = y[..., 0] if squeeze and out.ndim == 1 else y
                return out
        return y[..., 0] if squeeze else y


def matmul_toeplitz(c_or_cr, x, *, causal=False):
    """T x with T = scipy.linalg.toeplitz(c, r), as scipy.linalg.matmul_toeplitz:
    x of shape (n,) or (n, k); returns (m,) or (m, k)."""
    c, r = c_or_cr if isinstance(c_or_cr, tuple) else (c_or_cr, None)
    coeffs, m, n = from_scipy(c, r)
    with ToeplitzPlan(coeffs, m, n, causal=causal, shared=True) as plan:
        return plan(x)


SOLVERS = ("levinson", "refined", "dense-lu")  # skit_toeplitz_solver, in enum order


class _SolveInfo(ctypes.Structure):
    _fields_ = [("solver", ctypes.c_int), ("refinement_steps", ctypes.c_int),
                ("levinson_completed", ctypes.c_int), ("levinson_backward_error", ctypes.c_double),
                ("backward_error", ctypes.c_double), ("tolerance", ctypes.c_double),
                ("rcond", ctypes.c_double)]


_lib.check_layout(_SolveInfo, "toeplitz", "skit_toeplitz_solve_info")


@dataclasses.dataclass(frozen=True)
class SolveInfo:
    """What a checked solve measured about its answer (skit_toeplitz_solve_info).

    solver: 'levinson' (the recursion alone), 'refined' (plus iterative
    refinement) or 'dense-lu' (LAPACK dgesv); refinement_steps; whether the
    Levinson recursion completed and its backward error (NaN if it broke
    down); backward_error: max over right-hand sides of the normwise
    ||b - T x||_inf / (||T||_inf ||x||_inf + ||b||_inf) of the returned X,
    held to `tolerance` by the library; rcond: an estimate of
    1 / (||T||_1 ||T^-1||_1), so that the forward error is about
    <= 2 backward_error / rcond. For a batch of systems: the worst of each
    field over the batch (the most robust solver, most steps, largest
    errors, smallest rcond)."""
    solver: str
    refinement_steps: int
    levinson_completed: bool
    levinson_backward_error: float
    backward_error: float
    tolerance: float
    rcond: float

    @classmethod
    def _of(cls, c):
        return cls(SOLVERS[c.solver], c.refinement_steps, bool(c.levinson_completed),
                   c.levinson_backward_error, c.backward_error, c.tolerance, c.rcond)

    @classmethod
    def _worst(cls, infos):
        if len(infos) == 1:
            return infos[0]
        levinson = [i.levinson_backward_error for i in infos]
        return cls(max((i.solver for i in infos), key=SOLVERS.index),
                   max(i.refinement_steps for i in infos),
                   all(i.levinson_completed for i in infos),
                   float("nan") if np.isnan(levinson).any() else max(levinson),
                   max(i.backward_error for i in infos), infos[0].tolerance,
                   min(i.rcond for i in infos))


def _checked_solve(fn, n, t, b):
    """(X, the worst SolveInfo over the blocks) of fn (a
    skit_toeplitz_solve*_with_info) for every block of b."""
    infos = []

    def call(pb, ldb, px, ldx, k):
        cinfo = _SolveInfo()
        status = fn(n, A.pointer(t), k, pb, ldb, px, ldx, ctypes.byref(cinfo))
        if status == 0:
            infos.append(SolveInfo._of(cinfo))
        return status

    x = A.apply_blocks(b, "b", n, n, call)
    return x, SolveInfo._worst(infos)


def solve(coeffs, b, *, info=False):
    """X with T X = B, T the n x n Toeplitz matrix of coeffs (2n-1 entries).
    b: (..., n, k) or (n,). The library checks the answer's backward error
    and refines it or falls back to dense LU when Levinson-Trench is not
    accurate enough; it raises ComputationFailed (a RuntimeError) when no
    method meets its bound. info=True also returns a SolveInfo (computed by
    skit_toeplitz_solve_with_info, which adds a condition estimate)."""
    c = A.vector(coeffs, "coeffs")
    if c.size % 2 == 0:
        raise ValueError(f"skit: coeffs must have 2n-1 entries, got {c.size}")
    n = (c.size + 1) // 2
    if not info:
        return A.apply_blocks(b, "b", n, n, lambda pb, ldb, px, ldx, k:
                              lib.skit_toeplitz_solve(n, A.pointer(c), k, pb, ldb, px, ldx))
    return _checked_solve(lib.skit_toeplitz_solve_with_info, n, c, b)


def solve_spd(t, b, *, info=False):
    """X with T X = B for the symmetric positive-definite T(i, j) = t[|i-j|]
    (Levinson-Durbin, checked as solve). Raises ComputationFailed if T is
    not (numerically) positive definite. info=True: also a SolveInfo."""
    t = A.vector(t, "t")
    n = t.size
    if not info:
        return A.apply_blocks(b, "b", n, n, lambda pb, ldb, px, ldx, k:
                              lib.skit_toeplitz_solve_spd(n, A.pointer(t), k, pb, ldb, px, ldx))
    return _checked_solve(lib.skit_toeplitz_solve_spd_with_info, n, t, b)


def solve_toeplitz(c_or_cr, b, *, info=False):
    """As scipy.linalg.solve_toeplitz: T = toeplitz(c, r), b (n,) or (n, k)."""
    c, r = c_or_cr if isinstance(c_or_cr, tuple) else (c_or_cr, None)
    coeffs, m, n = from_scipy(c, r)
    if m != n:
        raise ValueError(f"skit: c and r must have the same length, got {m} and {n}")
    return solve(coeffs, b, info=info)
