"""The frequency domain (skit/freq.h): discrete Hilbert transform, causal
kernels from a real response, FD-TNO plans, MLP frequency responses, their
smoothness-to-decay analysis (Theorem 3 / Proposition 4) and decay fits."""
import ctypes

import numpy as np

from . import _array as A
from . import _lib
from ._lib import Handle, check, lib, new_handle
from .mlp import _choice
from .toeplitz import _CAUSALITY, LAYOUTS

HILBERT_METHODS = {"fft": 0, "definition": 1}
CONSTRUCTIONS = {"half": 0, "full": 1, "periodic": 2}


def _rows(x, name):
    """x as a contiguous (..., n) float64 array (transform along the last axis)."""
    A.refuse_float32(np.asarray(x), name)
    a = A.real(x, "x")
    if a.ndim < 1 or a.shape[-1] == 0:
        raise ValueError(f"skit: {name} must have shape (..., n) with n >= 1, got {a.shape}")
    return a


def hilbert(x, method="fft", lag_window=0):
    """H{x} along the last axis (one period of n samples; H{cos} = sin).
    scipy.signal.hilbert(x) = x + 1j * skit.hilbert(x)."""
    a = _rows(x, "x")
    n = a.shape[-1]
    y = np.empty_like(a)
    m = _choice(HILBERT_METHODS, method, "method")
    for i in range(a.size // n):
        check(lib.skit_hilbert_transform(n, A.pointer(a) + 8 * n * i, A.pointer(y) + 8 * n * i,
                                         m, int(lag_window)))
    return y


def causal_spectrum(x, method="fft", lag_window=0):
    """x - i H{x} along the last axis (complex array): the causal spectrum
    of a real response."""
    a = _rows(x, "x")
    n = a.shape[-1]
    re, im = np.empty_like(a), np.empty_like(a)
    m = _choice(HILBERT_METHODS, method, "method")
    for i in range(a.size // n):
        o = 8 * n * i
        check(lib.skit_hilbert_causal_spectrum(n, A.pointer(a) + o, m, int(lag_window),
                                               A.pointer(re) + o, A.pointer(im) + o))
    return re + 1j * im


def spectrum_impulse(spectrum):
    """Impulse response (inverse DFT) of one period of a spectrum (1-D,
    real or complex): complex array of n lags."""
    s = np.asarray(spectrum)
    re = A.vector(s.real, "spectrum")
    im = A.vector(s.imag, "spectrum") if np.iscomplexobj(s) else None
    kr, ki = np.empty(re.size), np.empty(re.size)
    check(lib.skit_spectrum_impulse(re.size, A.pointer(re), None if im is None else A.pointer(im),
                                    A.pointer(kr), A.pointer(ki)))
    return kr + 1j * ki


def causality_residual(k):
    """Energy at negative lags / total energy of an impulse response."""
    s = np.asarray(k)
    re = A.vector(s.real, "k")
    im = A.vector(s.imag, "k") if np.iscomplexobj(s) else None
    out = ctypes.c_double()
    check(lib.skit_causality_residual(re.size, A.pointer(re),
                                      None if im is None else A.pointer(im), ctypes.byref(out)))
    return out.value


class _FDTNOOptions(ctypes.Structure):
    _fields_ = [("causality", ctypes.c_int), ("fft_length", ctypes.c_size_t),
                ("precision", ctypes.c_int), ("planner", ctypes.c_int),
                ("layout", ctypes.c_int)]


_lib.check_layout(_FDTNOOptions, "freq", "skit_fdtno_options")


class FDTNOPlan(Handle):
    """FD-TNO for d channels of length n: the kernel given by its frequency
    response on the rfft grid (set_response or set_mlp). Call on x of shape
    (..., n, d). dtype=float32: float spectra (the response rounded once)
    and products in float; the plan then takes float32 x only. layout:
    'rows' (the default) reads and writes C-contiguous arrays in place,
    'columns' F-ordered ones (skit._array); the other order is copied."""

    _destroy = "skit_fdtno_plan_destroy"

    def __init__(self, n, d, causal=False, fft_length=0, dtype=np.float64, layout="rows"):
        super().__init__()
        dtype = np.dtype(dtype)
        if dtype not in (A.F64, A.F32):
            raise TypeError(f"skit: dtype must be float64 or float32, got {dtype}")
        opts = _FDTNOOptions()
        lib.skit_fdtno_options_default(ctypes.byref(opts))
        opts.causality = _CAUSALITY[bool(causal)]
        opts.fft_length = int(fft_length)
        opts.precision = int(dtype == A.F32)  # SKIT_PRECISION_F32
        opts.layout = _choice(LAYOUTS, layout, "layout")
        cell = new_handle()
        check(lib.skit_fdtno_plan_create(ctypes.byref(cell), int(n), int(d), ctypes.byref(opts)))
        self._adopt(cell)
        self.n, self.d, self.causal, self.dtype = int(n), int(d), bool(causal), dtype
        self.layout = layout

    @property
    def nbytes(self):
        return lib.skit_fdtno_plan_bytes(self)

    @property
    def fft_length(self):
        return lib.skit_fdtno_plan_fft_length(self)

    @property
    def grid(self):
        """The frequencies omega_m = 2 pi m / N, m = 0..N/2."""
        out = np.empty(lib.skit_fdtno_plan_grid_size(self))
        check(lib.skit_fdtno_plan_grid(self, A.pointer(out)))
        return out

    @property
    def response_width(self):
        return lib.skit_fdtno_plan_response_width(self)

    def set_response(self, response):
        """response: (grid_size, d) real parts (causal) or (grid_size, 2d)
        real then imaginary parts (bidirectional)."""
        r = A.real(response, "response")
        want = (lib.skit_fdtno_plan_grid_size(self), self.response_width)
        if r.shape != want:
            raise ValueError(f"skit: response must have shape {want}, got {r.shape}")
        with self._lock:
            check(lib.skit_fdtno_plan_set_response(self, A.pointer(r)))

    def set_mlp(self, mlp):
        with self._lock:
            check(lib.skit_fdtno_plan_set_mlp(self, mlp._as_parameter_))

    def impulse(self):
        """(N, d): the time-domain kernels (circular lags)."""
        N = self.fft_length
        out = np.empty((N, self.d), order="F")
        check(lib.skit_fdtno_plan_impulse(self, A.pointer(out), N))
        return out

    def __call__(self, x):
        fn = lib.skit_fdtno_plan_execute_f32 if self.dtype == A.F32 else lib.skit_fdtno_plan_execute
        y = A.apply_blocks(x, "x", self.n, self.n, lambda px, ldx, py, ldy, d:
                           fn(self, px, ldx, py, ldy, None), self.d, self.dtype,
                           rows=self.layout == "rows")
        return A.check_float32_result(y, (x,), "FDTNOPlan") if self.dtype == A.F32 else y


def frequency_response(mlp, construction="half", count=512):
    """(omega, response (count, out_dim)) of an MLP's frequency response."""
    c = _choice(CONSTRUCTIONS, construction, "construction")
    omega, resp = np.empty(int(count)), np.empty((int(count), mlp.out_dim))
    check(lib.skit_freq_response(mlp._as_parameter_, c, int(count), A.pointer(omega),
                                 A.pointer(resp)))
    return omega, resp


def frequency_impulse(mlp, construction="half", N=1024):
    """(N, out_dim) complex impulse responses (circular lags) of the
    response built from an MLP."""
    c = _choice(CONSTRUCTIONS, construction, "construction")
    kr = np.empty((int(N), mlp.out_dim), order="F")
    ki = np.empty((int(N), mlp.out_dim), order="F")
    check(lib.skit_freq_impulse(mlp._as_parameter_, c, int(N), A.pointer(kr), A.pointer(ki)))
    return kr + 1j * ki


def frequency_energy(mlp, construction="half", nodes=4096):
    """(1/2pi) int |k^(w)|^2 dw per output channel (Parseval's side)."""
    c = _choice(CONSTRUCTIONS, construction, "construction")
    out = np.empty(mlp.out_dim)
    check(lib.skit_freq_energy(mlp._as_parameter_, c, int(nodes), A.pointer(out)))
    return out


def derivative_norms(mlp, construction="half", max_order=4, nodes=4096):
    """norms[N, c] = int |d^N k^/dw^N| dw, N = 0..max_order (Taylor mode)."""
    c = _choice(CONSTRUCTIONS, construction, "construction")
    out = np.empty((int(max_order) + 1, mlp.out_dim))
    check(lib.skit_freq_derivative_norms(mlp._as_parameter_, c, int(max_order), int(nodes),
                                         A.pointer(out)))
    return out


def decay_bound(derivative_norm, order, n):
    """Theorem 3 / Proposition 4: |k[n]| <= ||k^^(N)||_1 / (2 pi |n|^N)."""
    return lib.skit_decay_bound(float(derivative_norm), int(order), int(n))


class _DecayFit(ctypes.Structure):
    _fields_ = ([(f, ctypes.c_size_t) for f in ("n_lo", "n_hi", "points")]
                + [(f, ctypes.c_double) for f in ("exp_rate", "exp_residual", "poly_exponent",
                                                  "poly_residual", "rate_first_half",
                                                  "rate_second_half", "exponent_first_half",
                                                  "exponent_second_half")])


_lib.check_layout(_DecayFit, "freq", "skit_decay_fit")


def decay_fit(magnitude, n_lo, n_hi, floor=0.0):
    """Exponential and polynomial decay fits of |k[n]| over n_lo..n_hi, with
    the classification ('polynomial', 'exponential', ...) under 'class'."""
    m = A.vector(np.abs(np.asarray(magnitude)), "magnitude")
    fit = _DecayFit()
    check(lib.skit_decay_fit_magnitudes(m.size, A.pointer(m), int(n_lo), int(n_hi), float(floor),
                                        ctypes.byref(fit)))
    out = {name: getattr(fit, name) for name, _ in fit._fields_}
    out["class"] = lib.skit_decay_class_name(lib.skit_decay_classify(ctypes.byref(fit))).decode()
    return out


def circle_samples(mlp, construction="half", N=1024):
    """(N, out_dim): the samples on one period whose inverse DFT
    frequency_impulse takes."""
    c = _choice(CONSTRUCTIONS, construction, "construction")
    out = np.empty((int(N), mlp.out_dim), order="F")
    check(lib.skit_freq_circle_samples(mlp._as_parameter_, c, int(N), A.pointer(out)))
    return out


def parseval_difference(spectrum, k):
    """Relative difference of sum |k|^2 and (1/N) sum |spectrum|^2 (1-D)."""
    s, kk = np.asarray(spectrum), np.asarray(k)
    sr, kr = A.vector(s.real, "spectrum"), A.vector(kk.real, "k", length=s.size)
    si = A.vector(s.imag, "spectrum") if np.iscomplexobj(s) else None
    ki = A.vector(kk.imag, "k") if np.iscomplexobj(kk) else None
    out = ctypes.c_double()
    check(lib.skit_parseval_difference(sr.size, A.pointer(sr),
                                       None if si is None else A.pointer(si), A.pointer(kr),
                                       None if ki is None else A.pointer(ki), ctypes.byref(out)))
    return out.value
