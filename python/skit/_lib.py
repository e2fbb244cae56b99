"""Loading libskit and declaring the C functions the package calls.

The library is found, in this order, at
  1. $SKIT_LIBRARY (a path to libskit.so; when set, the only place tried),
  2. _libs/libskit.so.1 beside this file, the copy `pip install ./python`
     builds and bundles (python/skit_build.py),
  3. `pkg-config --variable=libdir skit` (an installed skit),
  4. the build tree next to this source tree (../../build/.libs, for
     development: `scripts/setup-and-run build` puts it there),
  5. the dynamic loader's search for libskit.so.1 (LD_LIBRARY_PATH, ...).
ctypes.CDLL releases the GIL for the duration of every call, so a long
execute lets other Python threads run.
"""
import ctypes
import numbers
import os
import subprocess
import threading

from ._errors import raise_status

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("SKIT_LIBRARY")
    if env:
        return [("SKIT_LIBRARY", env)]
    found = []
    # the bundled copy first: it was built from the same sources as this
    # package, an installed skit may be older or newer
    bundled = os.path.join(_HERE, "_libs", "libskit.so.1")
    if os.path.exists(bundled):
        found.append(("bundled", bundled))
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "skit"],
                                capture_output=True, text=True, timeout=10)
        if libdir.returncode == 0 and libdir.stdout.strip():
            for name in ("libskit.so.1", "libskit.so"):
                found.append(("pkg-config", os.path.join(libdir.stdout.strip(), name)))
    except (OSError, subprocess.SubprocessError):
        pass
    build = os.path.join(_HERE, "..", "..", "build", ".libs", "libskit.so")
    found.append(("build tree", os.path.normpath(build)))
    found.append(("dynamic loader", "libskit.so.1"))
    return found


def _load():
    tried = []
    for origin, path in _candidates():
        if origin != "dynamic loader" and not os.path.exists(path):
            tried.append(f"{origin}: {path} (absent)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append(f"{origin}: {path} ({error})")
    raise ImportError("skit: libskit not found; install the package with `pip install ./python` "
                      "from a source tree (it bundles libskit), set SKIT_LIBRARY to the path of "
                      "libskit.so or install skit so that pkg-config finds it. Tried: " + "; ".join(tried))


_cdll, path = _load()

def _integer(ctype, lo, hi, what):
    """An argument type that refuses what ctypes would wrap silently: a
    size of 2**64 + 64 becomes 64, a negative size 2**64 - 1, as plain
    c_size_t does. Integers outside [lo, hi] raise OverflowError, other
    types (float, bool, complex) TypeError."""

    class Checked:
        @classmethod
        def from_param(cls, value):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                _refused.error = TypeError(f"skit: {what} argument must be an integer, got "
                                           f"{type(value).__name__}")
            elif not lo <= value <= hi:
                _refused.error = OverflowError(f"skit: {value} out of range for a C {what} ({lo}..{hi})")
            else:
                return ctype(int(value))
            raise _refused.error

    return Checked


# ctypes reports an argument's error as ctypes.ArgumentError; the calls
# re-raise the OverflowError or TypeError from_param raised (per thread).
_refused = threading.local()


def _guarded(fn):
    """fn, with the Handles among its arguments held for the call (close()
    waits for it) and the integer checks' errors re-raised as themselves."""
    def call(*args):
        held = [a for a in args if isinstance(a, Handle)]
        for h in held:
            h._acquire()
        _refused.error = None
        try:
            return fn(*args)
        except ctypes.ArgumentError:
            if _refused.error is not None:
                raise _refused.error from None
            raise
        finally:
            for h in held:
                h._release()
    call.__name__ = fn.__name__
    return call


# Type codes of the declarations below (results: the ctypes types; the
# integer arguments through _integer's checks).
_T = {
    "i": ctypes.c_int, "z": ctypes.c_size_t, "d": ctypes.c_double, "p": ctypes.c_void_p,
    "u": ctypes.c_uint64, "s": ctypes.c_char_p, "v": None,
}
_ARG = dict(_T, i=_integer(ctypes.c_int, -2 ** 31, 2 ** 31 - 1, "int"),
            z=_integer(ctypes.c_size_t, 0, 2 ** 64 - 1, "size_t"),
            u=_integer(ctypes.c_uint64, 0, 2 ** 64 - 1, "uint64_t"))

# return-type name argument-types; p is any pointer (arrays passed as ints).
_DECLARATIONS = """
s skit_strerror i
s skit_last_error
s skit_last_error_location
s skit_version
z skit_toeplitz_struct_size s
z skit_tno_struct_size s
z skit_ski_struct_size s
z skit_freq_struct_size s
z skit_attention_struct_size s
i skit_fft_good_length z p
i skit_device_check i
i skit_toeplitz_dense z z p i p z
i skit_toeplitz_matvec_dense z z p i i p p
v skit_toeplitz_options_default p
i skit_toeplitz_plan_create p z z z p p
i skit_toeplitz_plan_set_coeffs p p
z skit_toeplitz_plan_workspace_bytes p
i skit_toeplitz_plan_execute p p z p z p
i skit_toeplitz_plan_execute_transpose p p z p z p
i skit_toeplitz_plan_execute_f32 p p z p z p
i skit_toeplitz_plan_execute_transpose_f32 p p z p z p
z skit_toeplitz_plan_fft_length p
z skit_toeplitz_plan_bytes p
v skit_toeplitz_plan_destroy p
i skit_toeplitz_solve_spd z p z p z p z
i skit_toeplitz_solve z p z p z p z
i skit_toeplitz_solve_spd_with_info z p z p z p z p
i skit_toeplitz_solve_with_info z p z p z p z p
z skit_toeplitz_plan_backward_workspace_bytes p
i skit_toeplitz_plan_backward p p z p z p z p p
i skit_toeplitz_plan_backward_f32 p p z p z p z p p
i skit_svd z z p z p p z p z
i skit_spectral_norm z z p z p
i skit_svd_truncate z z p z z p z p
i skit_pinv z z p z d p z p
i skit_condition_number z z p z p
i skit_mlp_create p z z z z i i u
v skit_mlp_destroy p
z skit_mlp_in_dim p
z skit_mlp_out_dim p
z skit_mlp_parameter_count p
i skit_mlp_get_parameters p p z
i skit_mlp_set_parameters p p z
i skit_mlp_eval p z p p p
i skit_mlp_backward p z p p p p p p
i skit_mlp_taylor p d z p p
i skit_relu_breakpoints p d d z p z p
i skit_pwl_interpolation_error p d d p z z p
i skit_kernel_gaussian_create p d d
i skit_kernel_shifted_gaussian_create p d d d
i skit_kernel_matern52_create p d d
i skit_kernel_exp_cosine_create p d d d
i skit_kernel_tnn_create p p z d i
i skit_kernel_warped_linear_create p z p d
i skit_kernel_sum_create p p p
v skit_kernel_destroy p
v skit_kernel_describe p p z
i skit_kernel_eval p z p p
i skit_kernel_derivatives p d z p
i skit_kernel_toeplitz_coeffs p z d p
i skit_kernel_derivative_bound p z d d p
i skit_kernel_smoothness p z d d p
v skit_interp_options_default p z
i skit_interp_weights_create p z p z p
v skit_interp_weights_destroy p
i skit_interp_weights_dense p p z
i skit_interp_apply p z p z p z
i skit_interp_apply_transpose p z p z p z
v skit_ski_options_default p
i skit_ski_plan_create p p z p p
i skit_ski_plan_execute p p z p z
i skit_ski_plan_execute_f32 p p z p z
i skit_ski_plan_precision p
z skit_ski_plan_bytes p
v skit_ski_plan_destroy p
i skit_ski_dense p p p z
i skit_nystrom_plan_create p p z z d d d p
v skit_nystrom_options_default p
i skit_nystrom_plan_create_with p p z z d d d p p
i skit_nystrom_plan_execute p z p z p z
i skit_nystrom_plan_dense p p z
v skit_nystrom_plan_destroy p
i skit_sparse_lowrank_plan_create p z z z p p p i
v skit_sparse_lowrank_options_default p
i skit_sparse_lowrank_plan_create_with p z z z p p p p
i skit_sparse_lowrank_plan_execute p p z p z
v skit_sparse_lowrank_plan_destroy p
i skit_kernel_matrix_error p p z p p
i skit_warped_linear_fit z d z p p p
s skit_theorem1_step_name i
i skit_theorem1_create p p z i
i skit_theorem1_evaluate p z p d p
v skit_theorem1_destroy p
i skit_hilbert_transform z p p i z
i skit_hilbert_causal_spectrum z p i z p p
i skit_spectrum_impulse z p p p p
i skit_causality_residual z p p p
v skit_fdtno_options_default p
i skit_fdtno_plan_create p z z p
v skit_fdtno_plan_destroy p
i skit_fdtno_plan_precision p
z skit_fdtno_plan_workspace_bytes p
z skit_fdtno_plan_bytes p
z skit_fdtno_plan_fft_length p
z skit_fdtno_plan_grid_size p
z skit_fdtno_plan_response_width p
i skit_fdtno_plan_grid p p
i skit_fdtno_plan_set_response p p
i skit_fdtno_plan_set_mlp p p
i skit_fdtno_plan_impulse p p z
i skit_fdtno_plan_execute p p z p z p
i skit_fdtno_plan_execute_f32 p p z p z p
i skit_freq_response p i z p p
i skit_freq_impulse p i z p p
i skit_freq_energy p i z p
i skit_freq_derivative_norms p i z z p
d skit_decay_bound d z z
i skit_decay_fit_magnitudes z p z z d p
i skit_decay_classify p
s skit_decay_class_name i
v skit_tno_options_default p i
i skit_tno_options_parameter_count p z p
i skit_tno_plan_create p z z z p p z
v skit_tno_plan_destroy p
z skit_tno_plan_parameter_count p
i skit_tno_plan_get_parameters p p z
i skit_tno_plan_set_parameters p p z
i skit_tno_plan_update p
i skit_tno_plan_set_decay p d
z skit_tno_plan_workspace_bytes p
i skit_tno_plan_execute p p p p
i skit_tno_plan_forward p p p
i skit_tno_plan_execute_f32 p p p p
i skit_tno_plan_forward_f32 p p p
i skit_tno_plan_backward_f32 p p p p p p p
z skit_tno_plan_backward_workspace_bytes p
i skit_tno_plan_backward p p p p p p p
i skit_tno_decay_bias z p z d p p
i skit_tno_decay_bias_backward z p z d p p p p
z skit_tno_plan_bytes p
v skit_tno_plan_describe p p z
i skit_tno_plan_coeffs p p
i skit_tno_plan_dense p z p z
i skit_tno_plan_reference p p p p
i skit_attention_exact z z z p z p z p z d p p z
i skit_attention_matrix z z p z p z d p p z
z skit_attention_exact_backward_workspace z
i skit_attention_exact_backward z z z p z p z p z d p p z p z p z p z p
i skit_mra2_selection z z p z p z d z z i p
z skit_mra2_backward_workspace z z z z
i skit_mra2_backward z z z p z p z p z d z p p z p z p z p z p
i skit_attention_entropy z z p z p z d p p p
i skit_attention_exact_masked z z z p z p z p z d p p z
i skit_attention_matrix_masked z z p z p z d p p z
i skit_attention_entropy_masked z z p z p z d p p p
i skit_attention_exact_backward_masked z z z p z p z p z d p p z p z p z p z p
z skit_mra2_select_workspace z z z
i skit_mra2_select z z p z p z d z z i i p p
i skit_mra2_backward_causal z z z p z p z p z d z p p z p z p z p z p
v skit_attention_options_init p i
i skit_attention_options_set_budget p z d p
i skit_attention_plan_create p z z z p
i skit_attention_plan_execute p p z p z p z p p z p
i skit_attention_plan_execute_f32 p p z p z p z p p z p
i skit_attention_plan_backward p p z p z p z p p p z p z p z p z
i skit_attention_plan_backward_f32 p p z p z p z p p p z p z p z p z
i skit_attention_plan_select p p z p z p p
i skit_attention_plan_select_f32 p p z p z p p
i skit_attention_plan_fit p p z p z p
z skit_attention_plan_bytes p
v skit_attention_plan_destroy p
i skit_mra_coarse_logits z z p z p z d z p p z
i skit_mra_frame_decompose z p z p p p z
i skit_haar2d_forward z p z p z
i skit_haar2d_inverse z p z p z
i skit_haar2d_compress z p z z p z p
i skit_mra_lemma41_evaluate z z p z p z d z p
i skit_mra_prop45_evaluate z z p z p z d z z p
i skit_sparse_lowrank_study p p z z z p i p
i skit_tnn_rpe_fit p z z i i u d z p p
i skit_attention_budget_needed i z z z p z p z p z d z p p p
i skit_attention_temperature_for_entropy z z p z p z d d p p
v skit_attention_synthetic_init p
i skit_attention_synthetic_generate p z z z p z p z p z
i skit_attention_synthetic_for_entropy p z z d p
i skit_mra_frame_mu_form z p z p p z
i skit_mra_observation_a1 z p z p p
z skit_mra_frame_count z
i skit_mra_frame_index z z z z p
i skit_freq_circle_samples p i z p
i skit_parseval_difference z p p p p p
i skit_tno_plan_eval_rpe p p
i skit_tno_plan_coeffs_reference p p
"""


class _Declared:
    """libskit's functions as the package may call them: only those declared
    above. ctypes would call any other symbol with int arguments and an int
    result, cutting 64-bit pointers to 32 bits (a crash, or worse, memory
    written at the wrong address); here an undeclared name raises
    AttributeError instead."""

    def __init__(self, cdll, declarations):
        self._functions = {}
        for line in declarations.strip().splitlines():
            ret, name, *args = line.split()
            fn = getattr(cdll, name)
            fn.restype = _T[ret]
            fn.argtypes = [_ARG[a] for a in args]
            self._functions[name] = _guarded(fn)

    def __getattr__(self, name):
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"skit: {name} is not declared in skit/_lib.py's _DECLARATIONS "
                                 "(an undeclared ctypes call would pass its pointers as 32-bit ints)") from None

    def declare(self, name, restype, argtypes):
        """One function whose types the codes above cannot spell (a
        callback type); returns it, declared."""
        fn = getattr(_cdll, name)
        fn.restype, fn.argtypes = restype, argtypes
        self._functions[name] = _guarded(fn)
        return self._functions[name]

    def declared(self):
        return sorted(self._functions)


lib = _Declared(_cdll, _DECLARATIONS)


# Hot calls through cffi (ABI mode: nothing compiled) when it is importable:
# measured at n = 16, a ctypes call with six converted arguments plus two
# ndarray.ctypes.data look-ups costs ~3.4 us against ~2.0 us for cffi with
# ffi.from_buffer (min of 15 rounds, loaded 2-core machine). Only the
# executes of plans, whose per-call overhead matters at small sizes, use it;
# everything else goes through ctypes. SKIT_PYTHON_FFI=ctypes disables it.
_HOT_DECLARATIONS = """
int skit_toeplitz_plan_execute(const void *, const double *, size_t, double *, size_t, void *);
int skit_toeplitz_plan_execute_transpose(const void *, const double *, size_t, double *, size_t,
                                         void *);
int skit_tno_plan_execute(const void *, const double *, double *, void *);
"""
hot = None
try:
    if os.environ.get("SKIT_PYTHON_FFI", "") != "ctypes":
        import cffi
        _ffi = cffi.FFI()
        _ffi.cdef(_HOT_DECLARATIONS)
        hot = _ffi.dlopen(path)
        hot_null = _ffi.NULL
        _double_array = _ffi.typeof("double[]")
        _from_buffer = _ffi._backend.from_buffer

        def hot_buffer(array, writable=False):
            """cffi view of a C-contiguous float64 array (raises for a
            read-only array when writable)."""
            return _from_buffer(_double_array, array, writable)

        def hot_handle(address):
            return _ffi.cast("void *", address)
except ImportError:
    hot = None


checked_layouts = set()  # the mirrors check_layout has seen (the tests enumerate them)


def check_layout(cls, module, name):
    """ImportError unless the ctypes mirror cls of C's struct `name` (in
    skit/<module>.h) has the size libskit reports: a field added in C
    would otherwise shift every field after it, silently."""
    c = getattr(lib, f"skit_{module}_struct_size")(name.encode())
    checked_layouts.add(cls)
    if c != ctypes.sizeof(cls):
        raise ImportError(f"skit: {cls.__name__} mirrors {name} in {ctypes.sizeof(cls)} bytes but this libskit's is "
                          f"{c} bytes: the binding and the library differ (reinstall them together)")
    return cls


def version():
    """The libskit version string, e.g. "0.1.0"."""
    return lib.skit_version().decode()


def device_available(device):
    """Whether plans can run on 'cpu' or 'cuda' here; raises
    NotImplementedError with the reason for 'cuda' when they cannot."""
    devices = {"cpu": 0, "cuda": 1}
    if device not in devices:
        raise ValueError(f"skit: device must be one of {sorted(devices)}, got {device!r}")
    check(lib.skit_device_check(devices[device]))
    return True


def fft_good_length(n):
    """Smallest integer >= n with prime factors in {2, 3, 5, 7}."""
    out = ctypes.c_size_t()
    check(lib.skit_fft_good_length(int(n), ctypes.byref(out)))
    return out.value


def last_error():
    return lib.skit_last_error().decode(errors="replace")


def check(status):
    """Raise the exception of a non-zero skit status, with skit's message."""
    if status:
        raise_status(status, last_error(), lib.skit_strerror(status).decode(),
                     lib.skit_last_error_location().decode(errors="replace"))


def has(name):
    """Whether this libskit exports `name` (float32 paths, backward passes)."""
    try:
        getattr(_cdll, name)
        return True
    except AttributeError:
        return False


def new_handle():
    """A void* cell for the plan** / object** argument of a create."""
    return ctypes.c_void_p()


# Plan-like objects share their life-cycle logic.
class Handle:
    """A C object owned by Python: freed by close(), `with` or garbage
    collection. Every call of libskit that takes the object holds it
    (_acquire / _release, done by the declared functions and the cffi
    shortcuts): close() while another thread is inside such a call waits
    for it to return, and a call after close() raises ValueError, so the
    C object is never freed under a running call."""

    _destroy = None  # name of the C destroy function
    _hot = None      # the pointer as a cffi handle, for the hot calls

    def __init__(self):
        self._ptr = None
        self._lock = threading.Lock()
        self._idle = threading.Condition()  # guards _users; signalled when it drops to 0
        self._users = 0

    def _acquire(self):
        with self._idle:
            if not self._ptr:
                raise ValueError(f"skit: this {type(self).__name__} is closed")
            self._users += 1

    def _release(self):
        with self._idle:
            self._users -= 1
            if not self._users:
                self._idle.notify_all()

    @property
    def _as_parameter_(self):
        # a closed object passes NULL, which every skit function refuses
        # (SKIT_EINVAL, raised as ValueError) or answers with 0
        return self._ptr

    def _adopt(self, cell):
        self._ptr = cell.value
        if hot is not None:
            self._hot = hot_handle(self._ptr)

    def close(self):
        """Free the C object now (idempotent); waits for the calls running
        on it in other threads."""
        idle = getattr(self, "_idle", None)
        if idle is None:  # __init__ did not get far
            return
        with idle:
            ptr, self._ptr, self._hot = self._ptr, None, None
            while self._users:
                idle.wait()
        if ptr:
            getattr(lib, self._destroy)(ptr)

    @property
    def closed(self):
        return not self._ptr

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass
