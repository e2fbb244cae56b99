# tests/python.sh — the Python binding's pytest suite (python/tests) against
# this build's libskit (make check sets SKIT_SHARED_LIBRARY to it). Skipped
# (77) only when there is no Python 3 with numpy, no shared library, or a
# sanitizer build (its runtime cannot be loaded into a plain interpreter).
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
if [ -n "${SKIT_SAN_CFLAGS:-}" ] ||
   { command -v ldd >/dev/null 2>&1 && ldd "$SKIT_SHARED_LIBRARY" | grep -q 'lib[at]san\|libubsan'; }; then
  echo "python: sanitizer build of libskit: skipped"
  exit 77
fi
if ! "$py" -c 'import pytest' 2>/dev/null; then
  echo "python: pytest missing for $py: install python3-pytest (scripts/setup-and-run check does)" >&2
  exit 1
fi
# the source tree may be read-only (make distcheck): no caches, no bytecode
export SKIT_LIBRARY=$SKIT_SHARED_LIBRARY PYTHONDONTWRITEBYTECODE=1
tests=$SKIT_DATADIR/python/tests
"$py" -m pytest -q -p no:cacheprovider "$tests" || exit 1
# the plans' executes again without cffi (the ctypes path users without it get)
SKIT_PYTHON_FFI=ctypes "$py" -m pytest -q -p no:cacheprovider -k 'not leak and not readme' \
  "$tests/test_toeplitz.py" "$tests/test_tno.py" "$tests/test_torch.py"
