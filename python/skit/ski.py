"""Stationary kernels, interpolation weights, SKI / asymmetric Nystrom plans,
the sparse + low-rank operator of SKI-TNN and the Theorem 1 evaluator of
"SKI to go Faster" (skit/ski.h). Observation points are 0..n-1;
T(i, j) = k(i - j)."""
import ctypes

import numpy as np

from . import _array as A
from . import _lib
from ._lib import Handle, check, lib, new_handle
from .mlp import ACTIVATIONS, MLP, _choice
from .toeplitz import LAYOUTS

SCHEMES = {"linear": 0, "cubic": 1, "lagrange": 2, "authors-bracket": 3, "authors": 4}
NORM_METHODS = {"svd": 0, "lanczos": 1}
SKI_METHODS = {"fft": 0, "dense": 1}
BOUND_KINDS = ("analytic", "sampled", "estimate")


class Kernel(Handle):
    """A stationary kernel k(t). Build with the class methods; kernels that
    borrow an MLP or other kernels keep them alive."""

    _destroy = "skit_kernel_destroy"

    def __init__(self, create, *args, keep=()):
        super().__init__()
        cell = new_handle()
        check(create(ctypes.byref(cell), *args))
        self._adopt(cell)
        self._keep = keep

    @classmethod
    def gaussian(cls, variance=1.0, lengthscale=1.0):
        return cls(lib.skit_kernel_gaussian_create, float(variance), float(lengthscale))

    @classmethod
    def shifted_gaussian(cls, variance=1.0, lengthscale=1.0, shift=0.0):
        return cls(lib.skit_kernel_shifted_gaussian_create, float(variance),
                   float(lengthscale), float(shift))

    @classmethod
    def matern52(cls, variance=1.0, lengthscale=1.0):
        return cls(lib.skit_kernel_matern52_create, float(variance), float(lengthscale))

    @classmethod
    def exp_cosine(cls, variance=1.0, lengthscale=1.0, frequency=0.0):
        return cls(lib.skit_kernel_exp_cosine_create, float(variance), float(lengthscale),
                   float(frequency))

    @classmethod
    def tnn(cls, rpe, channel=0, decay=0.99):
        """k(t) = RPE_channel(t) decay^|t| for an skit.MLP rpe (in_dim 1):
        e.g. your trained TNN RPE loaded with MLP(..., params=...)."""
        if not isinstance(rpe, MLP):
            raise TypeError("skit: rpe must be an skit.MLP")
        return cls(lib.skit_kernel_tnn_create, rpe._as_parameter_, int(channel), float(decay),
                   _choice(ACTIVATIONS, rpe.activation, "activation"), keep=(rpe,))

    @classmethod
    def warped_linear(cls, values, decay=0.99):
        """SKI-TNN's k(t) = f(sign(t) decay^|t|), f piecewise linear with
        2K knot values (K per side, f(0) = 0)."""
        v = A.vector(values, "values")
        if v.size < 2 or v.size % 2:
            raise ValueError(f"skit: values must have 2K >= 2 entries, got {v.size}")
        return cls(lib.skit_kernel_warped_linear_create, v.size // 2, A.pointer(v), float(decay))

    @classmethod
    def fit_warped_linear(cls, t, y, knots_per_side=32, decay=0.99):
        """Your own kernel from samples y = k(t): the least-squares warped
        piecewise-linear kernel through them."""
        tt, yy = A.vector(t, "t"), A.vector(y, "y")
        if tt.size != yy.size:
            raise ValueError(f"skit: t and y must have the same length, got {tt.size}, {yy.size}")
        values = np.empty(2 * int(knots_per_side))
        check(lib.skit_warped_linear_fit(int(knots_per_side), float(decay), tt.size,
                                         A.pointer(tt), A.pointer(yy), A.pointer(values)))
        return cls.warped_linear(values, decay)

    def __add__(self, other):
        if not isinstance(other, Kernel):
            return NotImplemented
        return Kernel(lib.skit_kernel_sum_create, self._as_parameter_, other._as_parameter_,
                      keep=(self, other))

    def __repr__(self):
        if self.closed:
            return "Kernel(closed)"
        buf = ctypes.create_string_buffer(512)
        lib.skit_kernel_describe(self, buf, len(buf))
        return f"Kernel({buf.value.decode()})"

    def __call__(self, t):
        """k(t) elementwise (any shape)."""
        A.refuse_float32(np.asarray(t), "t")
        tt = A.real(t, "t")
        out = np.empty_like(tt)
        check(lib.skit_kernel_eval(self, tt.size, A.pointer(tt), A.pointer(out)))
        return out

    def derivatives(self, t, order):
        """k^(m)(t) for m = 0..order (one-sided from the right at kinks)."""
        out = np.empty(int(order) + 1)
        check(lib.skit_kernel_derivatives(self, float(t), int(order), A.pointer(out)))
        return out

    def toeplitz_coeffs(self, size, spacing=1.0):
        """coeffs[m + size - 1] = k(m h), m = -(size-1)..size-1."""
        out = np.empty(2 * int(size) - 1)
        check(lib.skit_kernel_toeplitz_coeffs(self, int(size), float(spacing), A.pointer(out)))
        return out

    def derivative_bound(self, order, lo, hi):
        """{'value', 'kind', 'smooth'}: L >= sup |k^(order)| on [lo, hi]."""
        bound = _Bound()
        check(lib.skit_kernel_derivative_bound(self, int(order), float(lo), float(hi),
                                               ctypes.byref(bound)))
        return {"value": bound.value, "kind": BOUND_KINDS[bound.kind],
                "smooth": bool(bound.smooth)}

    def smoothness(self, order, lo, hi):
        """Whether k is C^order on (lo, hi)."""
        out = ctypes.c_int()
        check(lib.skit_kernel_smoothness(self, int(order), float(lo), float(hi),
                                         ctypes.byref(out)))
        return bool(out.value)


class _Bound(ctypes.Structure):
    _fields_ = [("value", ctypes.c_double), ("kind", ctypes.c_int), ("smooth", ctypes.c_int)]


_lib.check_layout(_Bound, "ski", "skit_derivative_bound")


class _InterpOptions(ctypes.Structure):
    _fields_ = [("scheme", ctypes.c_int), ("degree", ctypes.c_size_t), ("lo", ctypes.c_double),
                ("hi", ctypes.c_double), ("gamma", ctypes.c_double)]


_lib.check_layout(_InterpOptions, "ski", "skit_interp_options")


def _interp_options(n, scheme="linear", degree=1, lo=None, hi=None, gamma=0.99):
    o = _InterpOptions()
    lib.skit_interp_options_default(ctypes.byref(o), int(n))
    o.scheme = _choice(SCHEMES, scheme, "scheme")
    o.degree = int(degree)
    o.lo = o.lo if lo is None else float(lo)
    o.hi = o.hi if hi is None else float(hi)
    o.gamma = float(gamma)
    return o


class InterpWeights(Handle):
    """Sparse interpolation weights W (n x r) of n points (default 0..n-1)
    on r uniform inducing points of [lo, hi] (default [0, n-1])."""

    _destroy = "skit_interp_weights_destroy"

    def __init__(self, n, r, scheme="linear", degree=1, lo=None, hi=None, gamma=0.99,
                 points=None):
        super().__init__()
        opts = _interp_options(n, scheme, degree, lo, hi, gamma)
        pts = None if points is None else A.vector(points, "points", length=int(n))
        cell = new_handle()
        check(lib.skit_interp_weights_create(ctypes.byref(cell), int(n),
                                             None if pts is None else A.pointer(pts), int(r),
                                             ctypes.byref(opts)))
        self._adopt(cell)
        self.n, self.r = int(n), int(r)

    def dense(self):
        out = np.empty((self.n, self.r), order="F")
        check(lib.skit_interp_weights_dense(self, A.pointer(out), self.n))
        return out

    def _apply(self, fn, x, rows_in, rows_out):
        return A.apply_blocks(x, "x", rows_in, rows_out, lambda px, ldx, py, ldy, d:
                              fn(self, d, px, ldx, py, ldy))

    def __call__(self, u):
        """W u: (..., r, d) -> (..., n, d)."""
        return self._apply(lib.skit_interp_apply, u, self.r, self.n)

    def transpose(self, x):
        """W^T x: (..., n, d) -> (..., r, d)."""
        return self._apply(lib.skit_interp_apply_transpose, x, self.n, self.r)


class _SKIOptions(ctypes.Structure):
    _fields_ = [("sharing", ctypes.c_int), ("method", ctypes.c_int), ("precision", ctypes.c_int),
                ("planner", ctypes.c_int), ("layout", ctypes.c_int)]


_lib.check_layout(_SKIOptions, "ski", "skit_ski_options")


class SKIPlan(Handle):
    """Y[:, c] = W A_c W^T X[:, c]; coeffs (2r-1, d) per channel (lags by
    channels) or (2r-1,) shared (then the plan is made for d channels). dtype=float32: W's
    planes and A's spectra in float (method "fft" only); the plan then
    takes float32 x only. layout: 'rows' (the default) reads and writes
    C-ordered (..., n, d) arrays in place, 'columns' F-ordered ones."""

    _destroy = "skit_ski_plan_destroy"

    def __init__(self, weights, coeffs, d=None, method="fft", dtype=np.float64, layout="rows"):
        super().__init__()
        dtype = np.dtype(dtype)
        if dtype not in (A.F64, A.F32):
            raise TypeError(f"skit: dtype must be float64 or float32, got {dtype}")
        c = A.real(coeffs, "coeffs")
        shared = c.ndim == 1
        if not shared:
            c = A.channel_major(c, 2 * weights.r - 1)
        d = (1 if d is None else int(d)) if shared else c.shape[0]
        opts = _SKIOptions()
        lib.skit_ski_options_default(ctypes.byref(opts))
        opts.sharing = int(shared)
        opts.method = _choice(SKI_METHODS, method, "method")
        opts.precision = int(dtype == A.F32)  # SKIT_PRECISION_F32
        opts.layout = _choice(LAYOUTS, layout, "layout")
        cell = new_handle()
        check(lib.skit_ski_plan_create(ctypes.byref(cell), weights._as_parameter_, d,
                                       ctypes.byref(opts), A.pointer(c)))
        self._adopt(cell)
        self._keep = weights
        self.n, self.d, self.dtype, self.layout = weights.n, d, dtype, layout

    @property
    def nbytes(self):
        return lib.skit_ski_plan_bytes(self)

    def __call__(self, x):
        fn = lib.skit_ski_plan_execute_f32 if self.dtype == A.F32 else lib.skit_ski_plan_execute
        y = A.apply_blocks(x, "x", self.n, self.n, lambda px, ldx, py, ldy, d:
                           fn(self, px, ldx, py, ldy), self.d, self.dtype, rows=self.layout == "rows")
        return A.check_float32_result(y, (x,), "SKIPlan") if self.dtype == A.F32 else y


def ski_dense(weights, coeffs):
    """Dense W A W^T for one coefficient vector (2r-1)."""
    c = A.vector(coeffs, "coeffs", length=2 * weights.r - 1)
    out = np.empty((weights.n, weights.n), order="F")
    check(lib.skit_ski_dense(weights._as_parameter_, A.pointer(c), A.pointer(out), weights.n))
    return out


class _NystromOptions(ctypes.Structure):
    _fields_ = [("layout", ctypes.c_int)]


_lib.check_layout(_NystromOptions, "ski", "skit_nystrom_options")


class NystromPlan(Handle):
    """Asymmetric Nystrom F A^+ B of a kernel (inducing points uniform on
    [lo, hi], default [0, n-1]). .rank: numerical rank of A. layout: 'rows'
    (the default) reads and writes C-ordered (..., n, d) arrays in place,
    'columns' F-ordered ones (skit_nystrom_options.layout); the other
    order is copied once per call."""

    _destroy = "skit_nystrom_plan_destroy"

    def __init__(self, kernel, n, r, lo=None, hi=None, rtol=-1.0, layout="rows"):
        super().__init__()
        lo = 0.0 if lo is None else float(lo)
        hi = float(n - 1) if hi is None else float(hi)
        opts = _NystromOptions()
        lib.skit_nystrom_options_default(ctypes.byref(opts))
        opts.layout = _choice(LAYOUTS, layout, "layout")
        cell, rank = new_handle(), ctypes.c_size_t()
        check(lib.skit_nystrom_plan_create_with(ctypes.byref(cell), kernel._as_parameter_, int(n),
                                                int(r), lo, hi, float(rtol), ctypes.byref(opts),
                                                ctypes.byref(rank)))
        self._adopt(cell)
        self._keep = kernel
        self.n, self.rank, self.layout = int(n), rank.value, layout

    def __call__(self, x):
        return A.apply_blocks(x, "x", self.n, self.n, lambda px, ldx, py, ldy, d:
                              lib.skit_nystrom_plan_execute(self, d, px, ldx, py, ldy),
                              rows=self.layout == "rows")

    def dense(self):
        out = np.empty((self.n, self.n), order="F")
        check(lib.skit_nystrom_plan_dense(self, A.pointer(out), self.n))
        return out


def _band(band, d):
    """The (m, d) taps (lags by channels; (m,) for d = 1) channel-major, as
    the C plan reads them. Any other shape is refused: a (d, m) band of the
    former layout must not be reinterpreted silently."""
    b = np.asarray(band)
    if b.ndim == 1 and d == 1:
        b = b[:, None]
    if b.ndim != 2 or b.shape[1] != d:
        raise ValueError(f"skit: band must have shape (m, {d}) (taps by channels), got {b.shape}")
    return A.real(b.T, "band")


class _SparseLowRankOptions(ctypes.Structure):
    _fields_ = [("method", ctypes.c_int), ("layout", ctypes.c_int)]


_lib.check_layout(_SparseLowRankOptions, "ski", "skit_sparse_lowrank_options")


class SparseLowRankPlan(Handle):
    """(band_c + W A_c W^T) x_c (SKI-TNN Algorithm 1): band (m, d) taps,
    m odd (or None), coeffs (2r-1, d) with weights (or None); lags by
    channels, as every per-channel coefficient array of skit. layout:
    'rows' (the default) reads and writes C-ordered (..., n, d) arrays in
    place, 'columns' F-ordered ones (skit_sparse_lowrank_options.layout)."""

    _destroy = "skit_sparse_lowrank_plan_destroy"

    def __init__(self, n, d, band=None, weights=None, coeffs=None, method="fft", layout="rows"):
        super().__init__()
        b = None if band is None else _band(band, int(d))
        if coeffs is not None and weights is None:
            raise ValueError("skit: coeffs need weights (the SKI part's interpolation)")
        c = None if coeffs is None else A.channel_major(coeffs, 2 * weights.r - 1)
        opts = _SparseLowRankOptions()
        lib.skit_sparse_lowrank_options_default(ctypes.byref(opts))
        opts.method = _choice(SKI_METHODS, method, "method")
        opts.layout = _choice(LAYOUTS, layout, "layout")
        cell = new_handle()
        check(lib.skit_sparse_lowrank_plan_create_with(
            ctypes.byref(cell), int(n), int(d), 0 if b is None else b.shape[1],
            None if b is None else A.pointer(b), None if weights is None else weights._as_parameter_,
            None if c is None else A.pointer(c), ctypes.byref(opts)))
        self._adopt(cell)
        self._keep = weights
        self.n, self.d, self.layout = int(n), int(d), layout

    def __call__(self, x):
        return A.apply_blocks(x, "x", self.n, self.n, lambda px, ldx, py, ldy, d:
                              lib.skit_sparse_lowrank_plan_execute(self, px, ldx, py, ldy),
                              self.d, rows=self.layout == "rows")


def kernel_matrix_error(a, b, n):
    """(||T_a - T_b||_2, ||T_b||_2) for the n x n Toeplitz matrices (Lanczos)."""
    diff, ref = ctypes.c_double(), ctypes.c_double()
    check(lib.skit_kernel_matrix_error(a._as_parameter_, b._as_parameter_, int(n),
                                       ctypes.byref(diff), ctypes.byref(ref)))
    return diff.value, ref.value


_Z, _D, _I = ctypes.c_size_t, ctypes.c_double, ctypes.c_int


class _Theorem1Terms(ctypes.Structure):
    _fields_ = ([(f, _Z) for f in ("n", "r", "degree", "width")]
                + [(f, _D) for f in ("spacing", "lag_lo", "lag_hi", "e_ski", "e_nyst", "ski_error",
                                     "nystrom_error", "sigma_next", "t_norm", "ski_nystrom",
                                     "ski_norm")]
                + [(f, _Z) for f in ("w_rows_alive", "w_rows_outside")]
                + [(f, _D) for f in ("sigma1_f", "sigma1_b", "sigma1_a", "sigma_r_a")]
                + [("a_rank", _Z)]
                + [(f, _D) for f in ("w_norm", "w_inf", "w_max_abs", "wa_f", "wa_f_frobenius",
                                     "awt_b", "awt_b_frobenius", "wa_f_max_entry", "f_ainv",
                                     "ainv_b", "psi", "psi_linear_h2_8", "lipschitz")]
                + [("lipschitz_kind", _I), ("interp_bound", _D), ("chain", _D * 8),
                   ("rhs", _D), ("rhs_valid", _D)]
                + [(f, _I) for f in ("a_nonsingular", "smooth", "entrywise_valid", "w_inf_le_n1",
                                     "holds", "loosest_step")])


_lib.check_layout(_Theorem1Terms, "ski", "skit_theorem1_terms")


def _struct_dict(s):
    out = {}
    for name, _ in s._fields_:
        v = getattr(s, name)
        out[name] = list(v) if isinstance(v, ctypes.Array) else v
    return out


class Theorem1(Handle):
    """Theorem 1 of "SKI to go Faster" on a kernel: Theorem1(kernel, n)
    precomputes T and its SVD (O(n^3)); evaluate(r, ...) returns every
    term of the bound's proof chain as a dict (see skit/ski.h)."""

    _destroy = "skit_theorem1_destroy"

    def __init__(self, kernel, n, method="svd"):
        super().__init__()
        cell = new_handle()
        check(lib.skit_theorem1_create(ctypes.byref(cell), kernel._as_parameter_, int(n),
                                       _choice(NORM_METHODS, method, "method")))
        self._adopt(cell)
        self._keep = kernel
        self.n = int(n)

    def evaluate(self, r, scheme="linear", degree=1, lo=None, hi=None, gamma=0.99,
                 pinv_rtol=-1.0):
        opts = _interp_options(self.n, scheme, degree, lo, hi, gamma)
        terms = _Theorem1Terms()
        with self._lock:
            check(lib.skit_theorem1_evaluate(self, int(r), ctypes.byref(opts), float(pinv_rtol),
                                             ctypes.byref(terms)))
        out = _struct_dict(terms)
        out["lipschitz_kind"] = BOUND_KINDS[terms.lipschitz_kind]
        out["holds"] = {1: True, 0: False}.get(terms.holds)  # None: no bound (authors' W)
        out["loosest_step_name"] = lib.skit_theorem1_step_name(terms.loosest_step).decode()
        return out


class _SparseLowRankErrors(ctypes.Structure):
    _fields_ = [(f, _D) for f in ("t_norm", "band_only", "lowrank_only", "sparse_lowrank",
                                   "sparse_lowrank_fit", "spike_outside_band", "smooth_ski")]


_lib.check_layout(_SparseLowRankErrors, "ski", "skit_sparse_lowrank_errors")


def sparse_lowrank_study(smooth, spike, n, r, m, scheme="linear", degree=1, method="svd"):
    """Algorithm 1's split of k = smooth + spike: spectral-norm errors of the
    band only, the low rank only, and both (a dict, see skit/ski.h)."""
    opts = _interp_options(n, scheme, degree)
    out = _SparseLowRankErrors()
    check(lib.skit_sparse_lowrank_study(smooth._as_parameter_, spike._as_parameter_, int(n),
                                        int(r), int(m), ctypes.byref(opts),
                                        _choice(NORM_METHODS, method, "method"),
                                        ctypes.byref(out)))
    return _struct_dict(out)


def fit_tnn_rpe(t, y, decay=0.99, width=64, hidden_layers=3, activation="relu", norm="rms",
                seed=1):
    """An MLP RPE with RPE(t) decay^|t| ~ y at the lags t (hidden layers
    random, output layer least squares); use with Kernel.tnn."""
    from .mlp import NORMS
    tt, yy = A.vector(t, "t"), A.vector(y, "y", length=np.size(t))
    cell = new_handle()
    check(lib.skit_tnn_rpe_fit(ctypes.byref(cell), int(width), int(hidden_layers),
                               _choice(ACTIVATIONS, activation, "activation"),
                               _choice(NORMS, norm, "norm"), int(seed), float(decay), tt.size,
                               A.pointer(tt), A.pointer(yy)))
    return MLP(1, width, hidden_layers, 1, activation, norm, _cell=cell)
