"""Softmax attention, its multiresolution approximation (MRA-2, MRA-2-s),
the baselines, and the MRA paper's analysis tools (skit/attention.h).

Q, K: (..., n, d); V: (..., n, dv); output (..., n, dv). Leading batch
axes (e.g. batch and heads) are looped over. AttentionPlan reads and
writes C-ordered arrays in place (layout='rows', the default; 'columns':
F order); the free functions (attention, attention_matrix, entropy, ...)
take each (n, d) matrix without a copy when its n axis has unit stride
(F order) and copy a C-ordered one (see skit._array).
scale=None means 1/sqrt(d). mask: None or n booleans (False = padding).
"""
import ctypes
import math

import numpy as np

from . import _array as A
from . import _lib
from ._lib import Handle, check, lib, new_handle
from .mlp import _choice
from .toeplitz import DEVICES, LAYOUTS

METHODS = {"exact": 0, "mra2": 1, "mra2s": 2, "lowrank": 3, "topk": 4, "nystrom": 5,
           "linformer": 6, "performer": 7, "window": 8, "bigbird": 9, "linformer-fit": 10}
SELECTIONS = {"global": 0, "per-row": 1}
PROJECTIONS = {"gaussian": 0, "pooling": 1}
_Z, _D, _I = ctypes.c_size_t, ctypes.c_double, ctypes.c_int
MAX_LEVELS = 8


class _Options(ctypes.Structure):
    _fields_ = [("method", _I), ("scale", _D), ("seed", ctypes.c_uint64), ("block", _Z),
                ("levels", _Z), ("scales", _Z * MAX_LEVELS),
                ("blocks_per_row", _Z * (MAX_LEVELS - 1)), ("selection", _I),
                ("diagonal_prior", _Z), ("first_block_prior", _I), ("shift_bias", _D),
                ("rank", _Z), ("nonzeros", _Z), ("window", _Z), ("global_blocks", _Z),
                ("random_blocks", _Z), ("pinv_iterations", _Z), ("linformer_projection", _I),
                ("performer_orthogonal", _I), ("causal", _I), ("device", _I),
                ("precision", _I), ("layout", _I)]


_lib.check_layout(_Options, "attention", "skit_attention_options")


class _Mask(ctypes.Structure):
    """skit_attention_mask: padding (n bytes or NULL) and causality."""
    _fields_ = [("padding", ctypes.c_void_p), ("causal", _I)]


_lib.check_layout(_Mask, "attention", "skit_attention_mask")


class _Stats(ctypes.Structure):
    _fields_ = [("entries", _D), ("work_fraction", _D), ("refined", _Z * MAX_LEVELS),
                ("levels", _Z)]


_lib.check_layout(_Stats, "attention", "skit_attention_stats")


def _scale(scale, d):
    return 1.0 / math.sqrt(d) if scale is None else float(scale)


def _mask(mask, n):
    if mask is None:
        return None, None
    m = np.ascontiguousarray(mask, dtype=np.uint8)
    if m.shape != (n,):
        raise ValueError(f"skit: mask must have shape ({n},), got {m.shape}")
    return m, A.pointer(m)


def _masks(mask, causal, n):
    """The padding array (kept alive by the caller) and a skit_attention_mask."""
    m, pm = _mask(mask, n)
    return m, ctypes.byref(_Mask(pm, int(bool(causal))))


def _qkv(q, k, v=None, upcast=False):
    """Block forms of Q, K (and V) with matching shapes; their batch shape."""
    qb, ldq = A.blocks(q, "q", upcast=upcast)
    kb, ldk = A.blocks(k, "k", upcast=upcast)
    if kb.shape != qb.shape:
        raise ValueError(f"skit: q and k must have the same shape (..., n, d), got "
                         f"{qb.shape} and {kb.shape}")
    out = [(qb, ldq), (kb, ldk)]
    if v is not None:
        vb, ldv = A.blocks(v, "v", upcast=upcast)
        if vb.shape[:-1] != qb.shape[:-1]:
            raise ValueError(f"skit: v must have shape {qb.shape[:-1] + ('dv',)}, got {vb.shape}")
        out.append((vb, ldv))
    return out


def _cast_like(y, q):
    return y.astype(A.F32, copy=False) if np.asarray(q).dtype == A.F32 else y


def attention(q, k, v, scale=None, mask=None, upcast=False, causal=False):
    """softmax(scale Q K^T) V, exactly (blocked, no n x n buffer); mask: the
    padding mask (n,), causal: query i sees keys j <= i only."""
    (qb, ldq), (kb, ldk), (vb, ldv) = _qkv(q, k, v, upcast)
    n, d, dv = qb.shape[-2], qb.shape[-1], vb.shape[-1]
    _m, pm = _masks(mask, causal, n)
    y = A.empty_blocks(qb.shape[:-2], n, dv)
    for pq, pk, pv, py in zip(*(A.batch_pointers(a) for a in (qb, kb, vb, y))):
        check(lib.skit_attention_exact_masked(n, d, dv, pq, ldq, pk, ldk, pv, ldv,
                                              _scale(scale, d), pm, py, n))
    return _cast_like(y, q)


def attention_matrix(q, k, scale=None, mask=None, causal=False):
    """The explicit row-stochastic S = softmax(scale Q K^T), (..., n, n);
    causal: 0 above the diagonal."""
    (qb, ldq), (kb, ldk) = _qkv(q, k)
    n, d = qb.shape[-2:]
    _m, pm = _masks(mask, causal, n)
    s = A.empty_blocks(qb.shape[:-2], n, n)
    for pq, pk, ps in zip(*(A.batch_pointers(a) for a in (qb, kb, s))):
        check(lib.skit_attention_matrix_masked(n, d, pq, ldq, pk, ldk, _scale(scale, d), pm, ps, n))
    return s


def entropy(q, k, scale=None, mask=None, causal=False):
    """(row entropies (n,), mean) of softmax(scale Q K^T) for 2-D q, k."""
    (qb, ldq), (kb, ldk) = _qkv(q, k)
    if qb.ndim != 2:
        raise ValueError("skit: entropy takes 2-D q and k")
    n, d = qb.shape
    _m, pm = _masks(mask, causal, n)
    rows, mean = np.empty(n), ctypes.c_double()
    check(lib.skit_attention_entropy_masked(n, d, A.pointer(qb), ldq, A.pointer(kb), ldk,
                                            _scale(scale, d), pm, A.pointer(rows),
                                            ctypes.byref(mean)))
    return rows, mean.value


class AttentionPlan(Handle):
    """AttentionPlan(method, n, d, dv=None, budget=None, **options): one
    method of skit_attention_options ('exact', 'mra2', 'mra2s', 'lowrank',
    'topk', 'nystrom', 'linformer', 'performer', 'window', 'bigbird',
    'linformer-fit': fit() it to a head before calling it).
    options are the fields of skit_attention_options (scale, seed, block,
    levels, scales, blocks_per_row (an int for every level or a list),
    selection, diagonal_prior, first_block_prior, rank, nonzeros, window,
    global_blocks, random_blocks, pinv_iterations, linformer_projection,
    performer_orthogonal, device, causal); budget: a fraction of the n^2 entries,
    mapped to the method's size parameters by the library. dtype=float32:
    a float32 plan (exact, mra2, mra2s), called on float32 arrays only.
    layout: 'rows' (the default) reads q, k, v (and dy) and writes the
    outputs as C-ordered (..., n, d) arrays, in place: the library
    transposes into the plan's own scratch (skit_attention_options.layout);
    'columns' reads F-ordered blocks in place. The other order is copied
    once per call."""

    _destroy = "skit_attention_plan_destroy"

    def __init__(self, method, n, d, dv=None, budget=None, dtype=np.float64, layout="rows",
                 **options):
        super().__init__()
        dtype = np.dtype(dtype)
        if dtype not in (A.F64, A.F32):
            raise TypeError(f"skit: dtype must be float64 or float32, got {dtype}")
        o = _Options()
        lib.skit_attention_options_init(ctypes.byref(o), _choice(METHODS, method, "method"))
        o.precision = int(dtype == A.F32)  # SKIT_PRECISION_F32
        o.layout = _choice(LAYOUTS, layout, "layout")
        tables = {"selection": SELECTIONS, "linformer_projection": PROJECTIONS,
                  "device": DEVICES}
        for name, value in options.items():
            if not hasattr(o, name) or name in ("method", "precision", "layout"):
                raise TypeError(f"skit: unknown attention option {name!r}")
            if name in ("scales", "blocks_per_row"):
                values = [value] * len(getattr(o, name)) if np.isscalar(value) else list(value)
                getattr(o, name)[:len(values)] = [int(x) for x in values]
            elif name in tables:
                setattr(o, name, _choice(tables[name], value, name))
            elif name in ("scale", "shift_bias"):
                setattr(o, name, float(value))
            else:
                setattr(o, name, int(value))
        if budget is not None:
            check(lib.skit_attention_options_set_budget(ctypes.byref(o), int(n), float(budget),
                                                        None))
        dv = d if dv is None else dv
        cell = new_handle()
        check(lib.skit_attention_plan_create(ctypes.byref(cell), int(n), int(d), int(dv),
                                             ctypes.byref(o)))
        self._adopt(cell)
        self.method, self.n, self.d, self.dv = method, int(n), int(d), int(dv)
        self.dtype, self.layout = dtype, layout
        first = o.scales[0] if o.levels else o.block  # MRA's s_0
        self._squares = (self.n // first) ** 2 if first else 0

    def _blocks(self, arrays, upcast=False):
        """(blocks, ld) of each (name, array) in the plan's layout and
        dtype: the array itself where it fits, else one copy. A float32
        plan takes float32 arrays only."""
        if self.dtype == A.F32:
            for name, a in arrays:
                if np.asarray(a).dtype != A.F32:
                    raise TypeError(f"skit: this plan computes in float32 (dtype=float32): {name} "
                                    f"must be float32, got {np.asarray(a).dtype}")
        rows = self.layout == "rows"
        return [A.blocks(a, name, self.dtype, upcast=upcast, rows=rows) for name, a in arrays]

    def _outputs(self, batch, widths):
        """Uninitialised (*batch, n, w) outputs in the plan's layout, and
        their ld."""
        rows = self.layout == "rows"
        return [(A.empty_blocks(batch, self.n, w, self.dtype, rows), w if rows else self.n)
                for w in widths]

    def _check_qk(self, qb, kb):
        if qb.shape[-2:] != (self.n, self.d) or kb.shape != qb.shape:
            raise ValueError(f"skit: q, k must be (..., {self.n}, {self.d}), got {qb.shape}, "
                             f"{kb.shape}")

    @property
    def nbytes(self):
        return lib.skit_attention_plan_bytes(self)

    def __call__(self, q, k, v, mask=None, return_stats=False, upcast=False):
        """The approximate softmax(scale Q K^T) V; with return_stats also a
        dict of what the call did (entries evaluated, work fraction, MRA
        squares refined per level) -- for the last batch element."""
        f32 = self.dtype == A.F32
        (qb, ldq), (kb, ldk), (vb, ldv) = self._blocks((("q", q), ("k", k), ("v", v)), upcast)
        if qb.shape[-2:] != (self.n, self.d) or kb.shape != qb.shape or \
                vb.shape[:-1] != qb.shape[:-1] or vb.shape[-1] != self.dv:
            raise ValueError(f"skit: q, k must be (..., {self.n}, {self.d}) and v "
                             f"(..., {self.n}, {self.dv}), got {qb.shape}, {kb.shape}, {vb.shape}")
        _m, pm = _mask(mask, self.n)
        [(y, ldy)] = self._outputs(qb.shape[:-2], (self.dv,))
        stats = _Stats()
        execute = lib.skit_attention_plan_execute_f32 if f32 else lib.skit_attention_plan_execute
        for pq, pk, pv, py in zip(*(A.batch_pointers(a) for a in (qb, kb, vb, y))):
            check(execute(self, pq, ldq, pk, ldk, pv, ldv, pm, py, ldy, ctypes.byref(stats)))
        if f32:
            A.check_float32_result(y, (q, k, v), "AttentionPlan")
        y = _cast_like(y, q)
        if not return_stats:
            return y
        return y, {"entries": stats.entries, "work_fraction": stats.work_fraction,
                   "refined": list(stats.refined[:stats.levels]), "levels": stats.levels}


    def backward(self, q, k, v, dy, mask=None, refined=None, needs=(True, True, True)):
        """(dq, dk, dv), the gradients of <dy, plan(q, k, v, mask)> by
        skit_attention_plan_backward (methods 'exact' and 'mra2'; MRA-2
        selects its squares again from q and k, as its execute did, unless
        refined gives them: one select() result per (n, d) block). A
        float32 plan takes float32 arrays and returns float32 gradients
        (skit_attention_plan_backward_f32, within skit/attention.h's
        bounds). needs: which of dq, dk, dv to compute (None for the
        others)."""
        arrays = self._blocks((("q", q), ("k", k), ("v", v), ("dy", dy)))
        (qb, ldq), (kb, ldk), (vb, ldv), (gb, ldg) = arrays
        n, d, dv = self.n, self.d, self.dv
        if qb.shape[-2:] != (n, d) or kb.shape != qb.shape or vb.shape != qb.shape[:-1] + (dv,) or \
                gb.shape != vb.shape:
            raise ValueError(f"skit: q, k must be (..., {n}, {d}) and v, dy (..., {n}, {dv}), got "
                             f"{qb.shape}, {kb.shape}, {vb.shape}, {gb.shape}")
        _m, pm = _mask(mask, n)
        batch = qb.shape[:-2]
        count = int(np.prod(batch, dtype=np.int64))
        outs = self._outputs(batch, (d, d, dv))
        grads = [(out, ld, A.batch_pointers(out)) if need else (None, 0, [None] * count)
                 for (out, ld), need in zip(outs, needs)]
        chosen = [None] * count if refined is None else [A.pointer(r) for r in refined]
        fn = lib.skit_attention_plan_backward_f32 if self.dtype == A.F32 else \
            lib.skit_attention_plan_backward
        (_, lddq, pdqs), (_, lddk, pdks), (_, lddv, pdvs) = grads
        for pq, pk, pv, pg, pr, pdq, pdk, pdv in zip(
                *(A.batch_pointers(a) for a in (qb, kb, vb, gb)), chosen, pdqs, pdks, pdvs):
            check(fn(self, pq, ldq, pk, ldk, pv, ldv, pm, pr, pg, ldg, pdq, lddq, pdk, lddk, pdv,
                     lddv))
        return tuple(out for out, _, _ in grads)

    def fit(self, q, k, mask=None):
        """linformer-fit: F fitted to one head q, k (n, d) by least squares
        (skit_attention_plan_fit): F = P^+ S, the F with the smallest
        output error on that head for every V (an oracle for Linformer
        with this E). Returns the plan."""
        (qb, ldq), (kb, ldk) = self._blocks((("q", q), ("k", k)))
        self._check_qk(qb, kb)
        if qb.ndim != 2:
            raise ValueError(f"skit: fit takes one head, q and k ({self.n}, {self.d}), got "
                             f"{qb.shape}")
        _m, pm = _mask(mask, self.n)
        check(lib.skit_attention_plan_fit(self, A.pointer(qb), ldq, A.pointer(kb), ldk, pm))
        return self

    def select(self, q, k, mask=None):
        """The squares an MRA plan's execute refines for q, k (and mask):
        one uint8 array of (n/block)^2 per (n, d) block, square (x, y) at
        x + y (n/block) (skit_attention_plan_select)."""
        (qb, ldq), (kb, ldk) = self._blocks((("q", q), ("k", k)))
        self._check_qk(qb, kb)
        _m, pm = _mask(mask, self.n)
        fn = lib.skit_attention_plan_select_f32 if self.dtype == A.F32 else \
            lib.skit_attention_plan_select
        chosen = []
        for pq, pk in zip(A.batch_pointers(qb), A.batch_pointers(kb)):
            refined = np.zeros(max(self._squares, 1), dtype=np.uint8)
            check(fn(self, pq, ldq, pk, ldk, pm, A.pointer(refined)))
            chosen.append(refined)
        return chosen


def mra2(q, k, v, block=32, blocks_per_row=8, sparse=False, mask=None, upcast=False,
         **options):
    """MRA-2 (or MRA-2-s with sparse=True) on your own Q, K, V."""
    qb = np.asarray(q)
    with AttentionPlan("mra2s" if sparse else "mra2", qb.shape[-2], qb.shape[-1],
                       np.shape(v)[-1], block=block, blocks_per_row=blocks_per_row,
                       **options) as plan:
        return plan(q, k, v, mask=mask, upcast=upcast)


def coarse_logits(q, k, s, scale=None, mask=None):
    """Block-mean logits of MRA level s: (n/s, n/s)."""
    (qb, ldq), (kb, ldk) = _qkv(q, k)
    n, d = qb.shape
    nb = n // int(s) if s else 0
    _m, pm = _mask(mask, n)
    c = np.empty((nb, nb), order="F")
    check(lib.skit_mra_coarse_logits(n, d, A.pointer(qb), ldq, A.pointer(kb), ldk,
                                     _scale(scale, d), int(s), pm, A.pointer(c), max(nb, 1)))
    return c


def _square(a, name="a"):
    b, ld = A.blocks(a, name)
    if b.ndim != 2 or b.shape[0] != b.shape[1]:
        raise ValueError(f"skit: {name} must be a square matrix, got {b.shape}")
    return b, ld, b.shape[0]


def haar2d(a):
    """Orthonormal 2-D Haar transform of an n x n matrix (n = 2^k)."""
    b, ld, n = _square(a)
    c = np.empty((n, n), order="F")
    check(lib.skit_haar2d_forward(n, A.pointer(b), ld, A.pointer(c), n))
    return c


def haar2d_inverse(c):
    b, ld, n = _square(c, "c")
    a = np.empty((n, n), order="F")
    check(lib.skit_haar2d_inverse(n, A.pointer(b), ld, A.pointer(a), n))
    return a


def haar2d_compress(a, keep):
    """(reconstruction from the `keep` largest Haar coefficients, threshold)."""
    b, ld, n = _square(a)
    out, thr = np.empty((n, n), order="F"), ctypes.c_double()
    check(lib.skit_haar2d_compress(n, A.pointer(b), ld, int(keep), A.pointer(out), n,
                                   ctypes.byref(thr)))
    return out, thr.value


def frame_decompose(a, subset=None):
    """(alpha, A_hat): decomposition (2) of A on the frame (1) restricted to
    subset (None: the whole frame; else frame_count booleans)."""
    b, ld, n = _square(a)
    count = (4 * n * n - 1) // 3
    sub = None if subset is None else np.ascontiguousarray(subset, dtype=np.uint8)
    if sub is not None and sub.shape != (count,):
        raise ValueError(f"skit: subset must have {count} entries, got {sub.shape}")
    alpha, hat = np.empty(count), np.empty((n, n), order="F")
    check(lib.skit_mra_frame_decompose(n, A.pointer(b), ld, None if sub is None else A.pointer(sub),
                                       A.pointer(alpha), A.pointer(hat), n))
    return alpha, hat


class _Lemma41(ctypes.Structure):
    _fields_ = ([(f, _Z) for f in ("blocks", "lower_violations", "upper_violations",
                                   "holder_violations")]
                + [(f, _D) for f in ("max_ratio", "max_ratio_holder", "min_gap", "max_gap",
                                     "mean_range", "max_range", "max_holder_range")])


_lib.check_layout(_Lemma41, "attention", "skit_mra_lemma41")


class _Prop45(ctypes.Structure):
    _fields_ = [("measured", _D), ("bound", _D), ("range", _D), ("log_delta", _D),
                ("refined", _Z), ("holds", _I)]


_lib.check_layout(_Prop45, "attention", "skit_mra_prop45")


def lemma41(q, k, s, scale=None):
    """Lemma 4.1 on every s x s square of P = scale Q K^T (a dict)."""
    (qb, ldq), (kb, ldk) = _qkv(q, k)
    n, d = qb.shape
    r = _Lemma41()
    check(lib.skit_mra_lemma41_evaluate(n, d, A.pointer(qb), ldq, A.pointer(kb), ldk,
                                        _scale(scale, d), int(s), ctypes.byref(r)))
    return {name: getattr(r, name) for name, _ in r._fields_}


def prop45(q, k, b, m1, scale=None):
    """Proposition 4.5 for R = {b, 1} with m1 refined squares (a dict;
    'holds': measured <= bound)."""
    (qb, ldq), (kb, ldk) = _qkv(q, k)
    n, d = qb.shape
    r = _Prop45()
    check(lib.skit_mra_prop45_evaluate(n, d, A.pointer(qb), ldq, A.pointer(kb), ldk,
                                       _scale(scale, d), int(b), int(m1), ctypes.byref(r)))
    out = {name: getattr(r, name) for name, _ in r._fields_}
    out["holds"] = bool(out["holds"])
    return out


def budget_needed(method, q, k, v, targets, scale=None):
    """Smallest budget of the best-possible reference ('lowrank': rank,
    'topk': entries of S) whose relative output error is <= each target;
    with 'lowrank' also the error at every rank 0..n. Returns (needed,
    errors or None)."""
    (qb, ldq), (kb, ldk), (vb, ldv) = _qkv(q, k, v)
    n, d = qb.shape
    t = A.vector(targets, "targets")
    needed = np.empty(t.size, dtype=np.uintp)
    errors = np.empty(n + 1) if method == "lowrank" else None
    check(lib.skit_attention_budget_needed(
        _choice(METHODS, method, "method"), n, d, vb.shape[1], A.pointer(qb), ldq, A.pointer(kb),
        ldk, A.pointer(vb), ldv, _scale(scale, d), t.size, A.pointer(t), A.pointer(needed),
        None if errors is None else A.pointer(errors)))
    return needed.astype(np.int64), errors


def temperature_for_entropy(q, k, target, scale=None):
    """(tau, entropy): the temperature at which softmax((scale/tau) Q K^T)
    has mean row entropy `target` nats."""
    (qb, ldq), (kb, ldk) = _qkv(q, k)
    n, d = qb.shape
    tau, h = ctypes.c_double(), ctypes.c_double()
    check(lib.skit_attention_temperature_for_entropy(n, d, A.pointer(qb), ldq, A.pointer(kb),
                                                     ldk, _scale(scale, d), float(target),
                                                     ctypes.byref(tau), ctypes.byref(h)))
    return tau.value, h.value


class _Synthetic(ctypes.Structure):
    _fields_ = [("correlation_length", _D), ("noise", _D), ("inverse_temperature", _D),
                ("sinks", _Z), ("sink_strength", _D), ("value_correlation_length", _D),
                ("value_mean", _D), ("seed", ctypes.c_uint64)]


_lib.check_layout(_Synthetic, "attention", "skit_attention_synthetic")


def synthetic(n, d, dv=None, entropy=None, **spec):
    """Structured synthetic (Q, K, V) with locality (skit's M6 generator):
    spec fields correlation_length, noise, inverse_temperature, sinks,
    sink_strength, value_correlation_length, value_mean, seed; entropy: a
    target mean row entropy (nats) that sets inverse_temperature."""
    s = _Synthetic()
    lib.skit_attention_synthetic_init(ctypes.byref(s))
    for name, value in spec.items():
        if not hasattr(s, name):
            raise TypeError(f"skit: unknown synthetic field {name!r}")
        setattr(s, name, int(value) if name in ("sinks", "seed") else float(value))
    dv = d if dv is None else int(dv)
    if entropy is not None:
        check(lib.skit_attention_synthetic_for_entropy(ctypes.byref(s), int(n), int(d),
                                                       float(entropy), None))
    q, k = np.empty((n, d), order="F"), np.empty((n, d), order="F")
    v = np.empty((n, dv), order="F")
    check(lib.skit_attention_synthetic_generate(ctypes.byref(s), int(n), int(d), dv, A.pointer(q),
                                                n, A.pointer(k), n, A.pointer(v), n))
    return q, k, v


def frame_count(n):
    """Number of components of the frame (1) for n = 2^k (0 otherwise)."""
    return lib.skit_mra_frame_count(int(n))


def frame_index(n, s, x, y):
    """Index of the component B^s_{x,y} in the frame's numbering."""
    out = ctypes.c_size_t()
    check(lib.skit_mra_frame_index(int(n), int(s), int(x), int(y), ctypes.byref(out)))
    return out.value


def frame_mu_form(a, subset):
    """The approximation in the form (5) (means over the smallest square of
    the subset holding each entry)."""
    b, ld, n = _square(a)
    sub = np.ascontiguousarray(subset, dtype=np.uint8)
    if sub.shape != (frame_count(n),):
        raise ValueError(f"skit: subset must have {frame_count(n)} entries, got {sub.shape}")
    out = np.empty((n, n), order="F")
    check(lib.skit_mra_frame_mu_form(n, A.pointer(b), ld, A.pointer(sub), A.pointer(out), n))
    return out


def observation_a1(a, subset):
    """Observation A.1: max |form (3) - form (5)| / max |A|."""
    b, ld, n = _square(a)
    sub = np.ascontiguousarray(subset, dtype=np.uint8)
    if sub.shape != (frame_count(n),):
        raise ValueError(f"skit: subset must have {frame_count(n)} entries, got {sub.shape}")
    out = ctypes.c_double()
    check(lib.skit_mra_observation_a1(n, A.pointer(b), ld, A.pointer(sub), ctypes.byref(out)))
    return out.value
