"""The small MLP R^in -> R^out of the TNN RPE and FD-TNO responses, with
exact input derivatives by Taylor-mode arithmetic (skit/mlp.h).

Architecture: Linear(in, width), then hidden_layers x [norm, act,
Linear(width, width)], then norm, act, Linear(width, out). Parameters, one
flat vector: each Linear's weight (out x in, row-major) then its bias, i.e.
torch.cat([p.flatten() for p in module.parameters()]) of the same PyTorch
stack (TNN's Rpe)."""
import ctypes

import numpy as np

from . import _array as A
from ._lib import Handle, check, lib, new_handle

ACTIVATIONS = {"relu": 0, "silu": 1, "gelu": 2}
NORMS = {"none": 0, "layer": 1, "rms": 2}


def _choice(table, value, name):
    if value not in table:
        raise ValueError(f"skit: {name} must be one of {sorted(table)}, got {value!r}")
    return table[value]


class MLP(Handle):
    """MLP(in_dim, width, hidden_layers, out_dim, activation='relu',
    norm='rms', seed=1, params=None): PyTorch's default Linear
    initialisation from the seed unless params (the flat vector) is given."""

    _destroy = "skit_mlp_destroy"

    def __init__(self, in_dim, width, hidden_layers, out_dim, activation="relu", norm="rms",
                 seed=1, params=None, _cell=None):
        super().__init__()
        if _cell is not None:  # an MLP the library made (e.g. skit.ski.fit_tnn_rpe)
            self._adopt(_cell)
            self.activation, self.norm = activation, norm
            return
        cell = new_handle()
        check(lib.skit_mlp_create(ctypes.byref(cell), int(in_dim), int(width),
                                  int(hidden_layers), int(out_dim),
                                  _choice(ACTIVATIONS, activation, "activation"),
                                  _choice(NORMS, norm, "norm"), int(seed)))
        self._adopt(cell)
        self.activation, self.norm = activation, norm
        if params is not None:
            self.parameters = params

    @property
    def in_dim(self):
        return lib.skit_mlp_in_dim(self)

    @property
    def out_dim(self):
        return lib.skit_mlp_out_dim(self)

    @property
    def parameter_count(self):
        return lib.skit_mlp_parameter_count(self)

    @property
    def parameters(self):
        """The flat parameter vector (a copy)."""
        p = np.empty(self.parameter_count)
        check(lib.skit_mlp_get_parameters(self, A.pointer(p), p.size))
        return p

    @parameters.setter
    def parameters(self, values):
        p = A.vector(values, "params")
        check(lib.skit_mlp_set_parameters(self, A.pointer(p), p.size))

    def _rows(self, x):
        """x as C-contiguous float64 (count, in_dim) rows; whether x was 1-D."""
        x = np.asarray(x)
        A.refuse_float32(x, "x")
        squeeze = x.ndim == 1
        xx = A.real(x[:, None] if squeeze else x, "x")
        if xx.ndim != 2 or xx.shape[1] != self.in_dim:
            raise ValueError(f"skit: x must have shape (count, {self.in_dim}), got {x.shape}")
        return xx, squeeze

    def __call__(self, x):
        """y = mlp(x): x (count, in_dim) (or (count,) when in_dim = 1) ->
        (count, out_dim); zero-copy for C-contiguous float64 x."""
        xx, _ = self._rows(x)
        y = np.empty((xx.shape[0], self.out_dim))
        check(lib.skit_mlp_eval(self, xx.shape[0], A.pointer(xx), A.pointer(y), None))
        return y

    def backward(self, x, dy):
        """(dx, dparams) of y = mlp(x) for output gradients dy (count,
        out_dim) by skit_mlp_backward: dx shaped as x, dparams summed over
        the inputs in the layout of `parameters`."""
        xx, squeeze = self._rows(x)
        g = A.real(dy, "dy")
        if g.shape != (xx.shape[0], self.out_dim):
            raise ValueError(f"skit: dy must have shape ({xx.shape[0]}, {self.out_dim}), "
                             f"got {g.shape}")
        dx, dp = np.empty_like(xx), np.empty(self.parameter_count)
        check(lib.skit_mlp_backward(self, xx.shape[0], A.pointer(xx), A.pointer(g), None,
                                    A.pointer(dx), A.pointer(dp), None))
        return (dx[:, 0] if squeeze else dx), dp

    def taylor(self, x, order):
        """(derivs, at_kink): derivs[k, j] = d^k y_j / dx^k at scalar x,
        k = 0..order, exact (power-series arithmetic)."""
        out = np.empty((int(order) + 1, self.out_dim))
        kink = ctypes.c_int()
        check(lib.skit_mlp_taylor(self, float(x), int(order), A.pointer(out), ctypes.byref(kink)))
        return out, bool(kink.value)

    def relu_breakpoints(self, a, b, grid=4096, capacity=1 << 16):
        """Ascending breakpoints of a ReLU MLP on [a, b] (Proposition 1)."""
        out = np.empty(int(capacity))
        count = ctypes.c_size_t()
        check(lib.skit_relu_breakpoints(self, float(a), float(b), int(grid), A.pointer(out),
                                        out.size, ctypes.byref(count)))
        return out[:count.value].copy()

    def pwl_interpolation_error(self, a, b, breaks, per_piece=16):
        """Max relative deviation from the interpolant through the breaks."""
        br = A.vector(breaks, "breaks")
        out = ctypes.c_double()
        check(lib.skit_pwl_interpolation_error(self, float(a), float(b), A.pointer(br), br.size,
                                               int(per_piece), ctypes.byref(out)))
        return out.value
