"""SVD-based utilities on dense matrices (LAPACKE) and the Lanczos spectral
norm of an operator given by its action."""
import ctypes

import numpy as np

from . import _array as A
from ._lib import check, lib


def _matrix(a, name="a"):
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"skit: {name} must be 2-D, got shape {a.shape}")
    return A.blocks(a, name)


def svd(a, compute_uv=True):
    """Singular values (descending) and, with compute_uv, the thin U, Vt:
    a = U @ diag(s) @ Vt, as numpy.linalg.svd(a, full_matrices=False)."""
    b, lda = _matrix(a)
    m, n = b.shape
    k = min(m, n)
    s = np.empty(k)
    if not compute_uv:
        check(lib.skit_svd(m, n, A.pointer(b), lda, A.pointer(s), None, 0, None, 0))
        return s
    u = np.empty((m, k), order="F")
    vt = np.empty((k, n), order="F")
    check(lib.skit_svd(m, n, A.pointer(b), lda, A.pointer(s), A.pointer(u), m, A.pointer(vt), k))
    return u, s, vt


def _scalar(fn, a):
    b, lda = _matrix(a)
    out = ctypes.c_double()
    check(fn(b.shape[0], b.shape[1], A.pointer(b), lda, ctypes.byref(out)))
    return out.value


def spectral_norm(a):
    """||a||_2 by SVD."""
    return _scalar(lib.skit_spectral_norm, a)


def condition_number(a):
    """sigma_1 / sigma_min (inf if singular)."""
    return _scalar(lib.skit_condition_number, a)


def svd_truncate(a, r):
    """(best rank-r approximation, sigma_{r+1}) (Eckart-Young)."""
    b, lda = _matrix(a)
    m, n = b.shape
    out = np.empty((m, n), order="F")
    nxt = ctypes.c_double()
    check(lib.skit_svd_truncate(m, n, A.pointer(b), lda, int(r), A.pointer(out), m,
                                ctypes.byref(nxt)))
    return out, nxt.value


def pinv(a, rtol=-1.0):
    """(Moore-Penrose pseudo-inverse, numerical rank); rtol < 0: max(m, n) eps."""
    b, lda = _matrix(a)
    m, n = b.shape
    out = np.empty((n, m), order="F")
    rank = ctypes.c_size_t()
    check(lib.skit_pinv(m, n, A.pointer(b), lda, float(rtol), A.pointer(out), n,
                        ctypes.byref(rank)))
    return out, rank.value


_LINOP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                          ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double))
_lanczos = lib.declare("skit_spectral_norm_lanczos", ctypes.c_int,
                       [ctypes.c_size_t, ctypes.c_size_t, _LINOP, ctypes.c_void_p, ctypes.c_double,
                        ctypes.c_size_t, ctypes.c_uint64, ctypes.POINTER(ctypes.c_double),
                        ctypes.POINTER(ctypes.c_size_t)])


def spectral_norm_lanczos(matvec, rmatvec, shape, tol=1e-10, max_iter=300, seed=1):
    """||A||_2 of an m x n operator given by matvec(x) = A x and
    rmatvec(x) = A^T x (Golub-Kahan-Lanczos). Returns (norm, iterations).
    A scipy.sparse.linalg.LinearOperator works: pass op.matvec, op.rmatvec,
    op.shape. An exception in the callbacks stops the iteration and is
    re-raised."""
    m, n = (int(s) for s in shape)
    failure = []

    def apply(_ctx, transpose, x, y):
        try:
            xin = np.ctypeslib.as_array(x, shape=(m if transpose else n,))
            yout = np.ctypeslib.as_array(y, shape=(n if transpose else m,))
            yout[:] = (rmatvec if transpose else matvec)(xin.copy())
            return 0
        except Exception as error:  # reported below, after the C call returns
            failure.append(error)
            return 1  # SKIT_EINVAL

    callback = _LINOP(apply)
    norm, iters = ctypes.c_double(), ctypes.c_size_t()
    status = _lanczos(m, n, callback, None, float(tol), int(max_iter), int(seed),
                      ctypes.byref(norm), ctypes.byref(iters))
    if failure:
        raise failure[0]
    check(status)
    return norm.value, iters.value
