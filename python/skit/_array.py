"""numpy arrays to and from the C layouts, without copies where they fit.

An (..., n, d) array is n tokens by d channels. The plans read it in one
of two layouts (skit_layout, skit/core.h), each with a leading dimension:
- rows (the plans' default here, numpy's and PyTorch's own order): token i
  of channel c at x[i*ld + c]. Fits as is (zero-copy) when the d axis has
  unit stride and the n axis a stride of at least d elements: any
  C-contiguous (..., n, d) array, or a slice of rows or of leading columns
  of one.
- columns (the C library's default, BLAS's): channel c at x + c*ld with
  unit stride along n. Fits an F-contiguous (n, d) array, any (..., n, 1)
  array, or the view x.swapaxes(-1, -2) of a C-contiguous (..., d, n) array.
Otherwise one copy is made. Outputs are allocated in the plan's layout.

float32: a routine runs in float32 only where libskit exports its float32
variant (the symbol with suffix _f32); otherwise a float32 data input
raises TypeError unless the caller passes upcast=True (offered by the
plans' calls and the attention functions), which computes in float64 and
returns float32. Coefficients and parameters are converted to float64
exactly (they configure a float64 computation). Nothing else is converted
silently.
"""
import numpy as np

from ._lib import check, has

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)


def pointer(a):
    """Address of the first element (for ctypes c_void_p arguments; faster
    than __array_interface__, which builds a dict)."""
    return a.ctypes.data


def aligned_bytes(count, alignment=64):
    """A uint8 array of count bytes whose first byte is alignment-aligned
    (the C workspaces' requirement, skit_malloc's alignment)."""
    raw = np.empty(count + alignment, dtype=np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + count]


def float_dtype(arrays, f32_symbol=None, upcast=False):
    """The dtype a call runs in: float64, or float32 when every float input
    is float32 and libskit exports f32_symbol. Other inexact or integer
    inputs are converted to float64 (exactly, for integers up to 2^53)."""
    kinds = {np.asarray(a).dtype for a in arrays if a is not None}
    for k in kinds:
        if k.kind == "c":
            raise TypeError("skit: complex input is not supported (real float64 or float32 only)")
    if F32 in kinds:
        if kinds == {F32} and f32_symbol and has(f32_symbol):
            return F32
        if not upcast:
            where = f"{f32_symbol} is not in this libskit" if f32_symbol else \
                "this routine has no float32 path"
            raise TypeError(f"skit: float32 input but {where}; pass upcast=True to compute in "
                            "float64 (result cast back to float32), or convert with "
                            ".astype(numpy.float64)")
    return F64


def refuse_float32(a, name, upcast=False):
    """A float32 data array is computed in float64 only when asked to."""
    if a.dtype == F32 and not upcast:
        raise TypeError(f"skit: {name} is float32 but this routine computes in float64; pass "
                        "upcast=True (where offered: the result is cast back to float32) or "
                        "convert with .astype(numpy.float64)")
    if a.dtype.kind == "c":
        raise TypeError(f"skit: {name} is complex; skit takes real arrays")


def check_float32_result(y, inputs, what):
    """FloatingPointError when a float32 result has NaN/Inf although its
    inputs are finite (float32's range overflowed), as the CLI exits 1
    there; y returned otherwise. The float64 sum of float32 values cannot
    overflow, so one pass tells whether y is all finite."""
    if np.isfinite(np.sum(y, dtype=np.float64)):
        return y
    if all(np.isfinite(np.asarray(a)).all() for a in inputs):
        raise FloatingPointError(f"skit: {what}: the float32 result has NaN/Inf from finite input (float32's "
                                 "range overflowed): scale the input down or compute in float64")
    return y


def real(x, name, dtype=F64):
    """x as a contiguous real array of dtype; complex input raises
    TypeError (numpy would drop the imaginary part with only a warning)."""
    if np.iscomplexobj(x):
        raise TypeError(f"skit: {name} is complex; skit takes real arrays")
    return np.ascontiguousarray(x, dtype=dtype)


def vector(x, name, dtype=F64, length=None):
    """A 1-D contiguous array of dtype (copied only if needed)."""
    a = real(x, name, dtype)
    if a.ndim != 1:
        raise ValueError(f"skit: {name} must be 1-D, got shape {a.shape}")
    if length is not None and a.shape[0] != length:
        raise ValueError(f"skit: {name} must have {length} entries, got {a.shape[0]}")
    return a


def channel_major(coeffs, width):
    """The (width, d) coefficient matrix (lags by channels) as the C plans
    read it, each channel's lags contiguous: (d, width) C-contiguous (a
    view when coeffs is F-ordered, else one copy of d*width values)."""
    c = np.asarray(coeffs)
    if c.ndim != 2 or c.shape[0] != width:
        raise ValueError(f"skit: per-channel coeffs must have shape ({width}, d) (lags by channels), "
                         f"got {c.shape}")
    return real(c.T, "coeffs")


def _fits(a, dtype, rows=False):
    """Whether every (n, d) slice of a is a block of the layout; its ld."""
    if a.dtype != dtype or a.ndim < 2:
        return False, 0
    n, d = a.shape[-2], a.shape[-1]
    if rows:
        n, d = d, n  # the same test on the other axis
        inner, outer = a.strides[-1], a.strides[-2]
    else:
        inner, outer = a.strides[-2], a.strides[-1]
    size = a.itemsize
    if n > 1 and inner != size:
        return False, 0
    if d <= 1:
        return True, max(n, 1)
    if outer <= 0 or outer % size or outer // size < n:
        return False, 0
    return True, outer // size


def blocks(x, name, dtype=F64, upcast=False, rows=False):
    """(array, ld) with x's values in blocks of the layout (rows, or
    column-major): x itself when it fits, else a copy. x must have at least
    2 dimensions (..., n, d). float32 data is refused unless upcast (see
    refuse_float32)."""
    a = np.asarray(x)
    if dtype == F64:
        refuse_float32(a, name, upcast)
    if a.ndim < 2:
        raise ValueError(f"skit: {name} must have shape (..., n, d), got {a.shape}")
    ok, ld = _fits(a, dtype, rows)
    if ok:
        return a, ld
    if rows:
        return np.ascontiguousarray(a, dtype=dtype), a.shape[-1]
    c = np.ascontiguousarray(np.swapaxes(a, -1, -2), dtype=dtype)
    return np.swapaxes(c, -1, -2), a.shape[-2]


def empty_blocks(batch, m, d, dtype=F64, rows=False):
    """An uninitialised (*batch, m, d) array of blocks of the layout (ld = d
    for rows, m for columns)."""
    if rows:
        return np.empty(tuple(batch) + (m, d), dtype=dtype)
    return np.swapaxes(np.empty(tuple(batch) + (d, m), dtype=dtype), -1, -2)


def check_out(out, shape, name, dtype=F64, rows=False):
    """A caller-provided output must already have the block form."""
    if out.shape != tuple(shape):
        raise ValueError(f"skit: {name} must have shape {tuple(shape)}, got {out.shape}")
    ok, ld = _fits(out, dtype, rows)
    if not ok or not out.flags.writeable:
        hint = "unit stride along d (e.g. numpy.empty((n, d)))" if rows else \
            "unit stride along n (e.g. numpy.empty((d, n)).T)"
        raise ValueError(f"skit: {name} must be writeable {dtype} with {hint}")
    return ld


def batch_pointers(a):
    """Addresses of every (n, d) block of a, in C order of the batch axes."""
    base = pointer(a)
    batch = a.shape[:-2]
    if not batch:
        return [base]
    offsets = np.zeros(batch, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(batch, a.strides[:-2])):
        shape = [1] * len(batch)
        shape[axis] = size
        offsets = offsets + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    return [base + int(o) for o in offsets.ravel()]


def as_blocks_input(x, name, dtype=F64, upcast=False, rows=False):
    """(blocks, ld, squeeze): a 1-D x of length n is one (n, 1) block."""
    a = np.asarray(x)
    if a.ndim == 1:
        if dtype == F64:
            refuse_float32(a, name, upcast)
        return np.ascontiguousarray(a, dtype=dtype)[:, None], 1 if rows else max(a.shape[0], 1), True
    b, ld = blocks(a, name, dtype, upcast, rows)
    return b, ld, False


def apply_blocks(x, name, rows_in, rows_out, call, channels=None, dtype=F64, rows=False):
    """y[..., :, :] = one C call per (rows_in, d) block of x (or per 1-D x):
    status = call(x_address, ldx, y_address, ldy, d) writes the (rows_out, d)
    block of y. channels: the d the operator requires (None: any). dtype:
    the arrays' type (F32 for a float32 plan: x must be float32 already).
    rows: the blocks are in the rows layout (else columns)."""
    if dtype == F32 and np.asarray(x).dtype != F32:
        raise TypeError(f"skit: this plan computes in float32 (dtype=float32): {name} must be "
                        f"float32, got {np.asarray(x).dtype}")
    xb, ld, squeeze = as_blocks_input(x, name, dtype, rows=rows)
    if xb.shape[-2] != rows_in or (channels is not None and xb.shape[-1] != channels):
        want = f"(..., {rows_in}, {'d' if channels is None else channels})"
        raise ValueError(f"skit: {name} must have shape {want}, got {np.shape(x)}")
    d = xb.shape[-1]
    y = empty_blocks(xb.shape[:-2], rows_out, d, dtype, rows)
    ldy = d if rows else rows_out
    for px, py in zip(batch_pointers(xb), batch_pointers(y)):
        check(call(px, ld, py, ldy, d))
    return y[..., 0] if squeeze else y
