# tests/python.sh — the Python binding's pytest suite (python/tests) against
# this build's libskit (make check sets SKIT_SHARED_LIBRARY to it). Skipped
# (77) only when there is no Python 3 with numpy or no shared library. A
# sanitizer build (scripts/check-sanitizers) runs the suite with the ASan
# and UBSan runtimes preloaded into the interpreter, so that a binding that
# passes bad pointers or frees a plan under a running call fails here;
# leak detection is off for the interpreter (CPython frees little at exit,
# and every allocation made from Python has Python frames a suppression
# would also match), skit's own leaks being the C tests' to find.
# Debian packages: python3-numpy python3-scipy python3-pytest (python3-torch
# for the autograd tests, skipped without it); scripts/setup-and-run check
# installs them.
set -u
: "${SKIT_SHARED_LIBRARY:?make check sets it}" "${SKIT_DATADIR:?make check sets it}"
py=${SKIT_PYTHON:-/usr/bin/python3}
if ! [ -x "$py" ] || ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "python: $py with numpy not found: skipped"
  exit 77
fi
if [ ! -f "$SKIT_SHARED_LIBRARY" ]; then
  echo "python: $SKIT_SHARED_LIBRARY not built (--disable-shared?): skipped"
  exit 77
fi
preload=""
if command -v ldd >/dev/null 2>&1; then
  # the runtimes libskit links (libasan, libubsan), in its order
  preload=$(ldd "$SKIT_SHARED_LIBRARY" | awk '/lib(a|ub)san/ { print $3 }' | paste -sd: -)
fi
if [ -n "${SKIT_SAN_CFLAGS:-}" ] && [ -z "$preload" ]; then
  echo "python: sanitizer build, but ldd names no sanitizer runtime of $SKIT_SHARED_LIBRARY" >&2
  exit 1
fi
select=""
if [ -n "$preload" ]; then
  export LD_PRELOAD=$preload
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  # the RSS-growth tests measure ASan's quarantine of freed memory, not leaks
  select="not leak"
  echo "python: sanitizer build: the suite runs with $preload preloaded (leak detection and RSS tests off)"
fi
if ! "$py" -c 'import pytest' 2>/dev/null; then
  echo "python: pytest missing for $py: install python3-pytest (scripts/setup-and-run check does)" >&2
  exit 1
fi
# the source tree may be read-only (make distcheck): no caches, no bytecode
export SKIT_LIBRARY=$SKIT_SHARED_LIBRARY PYTHONDONTWRITEBYTECODE=1
tests=$SKIT_DATADIR/python/tests
"$py" -m pytest -q -p no:cacheprovider ${select:+-k "$select"} "$tests" || exit 1
# the plans' executes again without cffi (the ctypes path users without it get)
SKIT_PYTHON_FFI=ctypes "$py" -m pytest -q -p no:cacheprovider -k 'not leak and not readme' \
  "$tests/test_toeplitz.py" "$tests/test_tno.py" "$tests/test_torch.py"
