#!/usr/bin/env bash
# tests/python_install.sh — the Python binding as a newcomer installs it
# (README.md: From Python): in a venv, `pip install ./python` from a copy of
# the source tree with no configure script and no build (the tracked files,
# or the whole tree when it is not a git checkout: a release tarball), which
# builds libskit and bundles it into the package; then, with the copy
# deleted, the package must load its bundled library and run README's
# Python example and a ToeplitzPlan. Also builds the wheel of `pip install .`
# at the top (without the C build) to check that its configuration holds.
#
# The venv uses --system-site-packages, so numpy and scipy come from Debian
# when installed (python3-numpy, python3-scipy), else from PyPI. Skipped (77)
# without the venv module (python3-venv) or without PyPI (pip fetches
# setuptools to build), and in a sanitizer build (it builds its own
# library, so it would only repeat the plain build's run). The C build
# inside pip takes most of the time; SKIT_BUILD_JOBS (default 2) sets its
# make -j.
set -u
top=${SKIT_DATADIR:?run from make check}
py=${SKIT_SYSTEM_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=$(command -v python3) || { echo "python_install: no python3: skipped"; exit 77; }
if [ -n "${SKIT_SAN_CFLAGS:-}" ]; then
  echo "python_install: sanitizer build: skipped (the test builds its own libskit)"
  exit 77
fi
if ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python_install: $py has no venv module (apt-get install python3-venv): skipped"
  exit 77
fi
index=${PIP_INDEX_URL:-https://pypi.org/simple}
if ! "$py" - "$index" <<'EOF' 2>/dev/null; then
import sys, urllib.request
urllib.request.urlopen(sys.argv[1].rstrip("/") + "/setuptools/", timeout=15).read(1)
EOF
  echo "python_install: $index unreachable (pip needs it to fetch setuptools): skipped"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/skit-pyinstall.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir "$src"
if git -C "$top" rev-parse --show-toplevel >/dev/null 2>&1 &&
   [ "$(git -C "$top" rev-parse --show-toplevel)" = "$(cd "$top" && pwd -P)" ]; then
  # what a fresh clone has: tracked files (and new ones not yet committed),
  # nothing git ignores (configure, build/)
  (cd "$top" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C "$src" || { echo "FAIL: copying the tracked files" >&2; exit 1; }
else
  # a release tree; make distcheck builds inside it, in _build/
  (cd "$top" && tar --exclude=./_build --exclude=./build -cf - .) | tar -xf - -C "$src" ||
    { echo "FAIL: copying $top" >&2; exit 1; }
fi
# make distcheck's source tree is read-only, and so would be the copy
chmod -R u+w "$src"
awk '/^```python$/ {on = 1; next} /^```$/ {on = 0} on' "$top/README.md" > "$tmp/example.py"
[ -s "$tmp/example.py" ] || { echo "FAIL: README.md has no Python example" >&2; exit 1; }

"$py" -m venv --system-site-packages "$tmp/venv" || { echo "FAIL: python3 -m venv" >&2; exit 1; }
# nothing from the environment may point the package at another libskit
unset SKIT_LIBRARY PYTHONPATH
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 SKIT_BUILD_JOBS=${SKIT_BUILD_JOBS:-2}
pip=("$tmp/venv/bin/python" -m pip)
t0=$(date +%s)
# bundle even where an installed skit exists: the bundled copy is under test
if ! out=$(cd "$tmp" && SKIT_BUNDLE_LIBRARY=1 "${pip[@]}" install ./src/python 2>&1); then
  printf '%s\n' "$out" | tail -n 40 >&2
  echo "FAIL: pip install ./python" >&2
  exit 1
fi
echo "python_install: pip install ./python (C build included) took $(( $(date +%s) - t0 )) s"

# the top level's `pip install .`: its configuration, not the C build again
if ! out=$(cd "$tmp" && SKIT_BUNDLE_LIBRARY=0 "${pip[@]}" wheel -q --no-deps -w wheels ./src 2>&1) ||
   ! "$py" -c 'import sys, zipfile; sys.exit("skit/_lib.py" not in zipfile.ZipFile(sys.argv[1]).namelist())' \
       "$tmp"/wheels/skit-*.whl; then
  printf '%s\n' "$out" | tail -n 40 >&2
  echo "FAIL: pip wheel . at the top of the source tree" >&2
  exit 1
fi

rm -rf "$src"
if ! "$tmp/venv/bin/python" -c 'import scipy' 2>/dev/null; then
  "${pip[@]}" install -q scipy || { echo "FAIL: pip install scipy (README's example needs it)" >&2; exit 1; }
fi
mkdir "$tmp/run"
out=$(cd "$tmp/run" && "$tmp/venv/bin/python" - "$tmp/venv" <<'EOF' 2>&1
import os, sys
import numpy as np, skit, skit._lib
venv = os.path.realpath(sys.argv[1])
path = os.path.realpath(skit._lib.path)
assert path.startswith(venv) and path.endswith(os.path.join("_libs", "libskit.so.1")), path
assert not os.path.islink(skit._lib.path), "the bundled library is a symlink"
coeffs = np.random.rand(2 * 97 - 1)
x = np.random.rand(97, 3)
with skit.ToeplitzPlan(coeffs, 97, 97) as plan:
    y = plan(x)
dense = np.array([[coeffs[96 + i - j] for j in range(97)] for i in range(97)])
assert abs(y - dense @ x).max() < 1e-10, abs(y - dense @ x).max()
print("loaded", path, "version", skit.version())
EOF
) || { echo "FAIL: the installed package without its source tree: $out" >&2; exit 1; }
echo "python_install: $out"
out=$(cd "$tmp/run" && "$tmp/venv/bin/python" "$tmp/example.py" 2>&1) ||
  { echo "FAIL: README's Python example: $out" >&2; exit 1; }
[ "$out" = True ] || { echo "FAIL: README's Python example printed: $out" >&2; exit 1; }
echo "python_install: README's Python example: $out"
