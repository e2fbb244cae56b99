#!/usr/bin/env bash
# tests/cuda_plugin.sh — the CUDA backend is a plugin that libskit loads
# with dlopen (lib/cuda/loader.c): libskit.so depends on no CUDA library,
# a CPU-only program runs where the plugin cannot be loaded and hears why
# ("cuda: backend not loadable (...)"), and with this build's plugin the
# backend answers as before ("cuda: no device (...)" on this machine, or a
# device). A build without CUDA has no plugin and answers "cuda: not built".
source "$(dirname "$0")/cli_lib.sh"

: "${SKIT_CUDA_LIBRARY:?must name the plugin of this build tree (make check sets it)}"
build=$(dirname "$(dirname "$SKIT_CUDA_LIBRARY")")
probe=$build/tests/cuda_plugin_probe
libskit=$build/.libs/libskit.so
plugin=$build/.libs/libskit-cuda.so
[ -x "$probe" ] || { echo "cuda_plugin: $probe not built" >&2; exit 99; }

# run_probe VALUE-OF-SKIT_CUDA_LIBRARY: the probe's last line, after checking
# that the CPU product ran
run_probe() {
  SKIT_CUDA_LIBRARY=$1 "$probe" >"$TMP/probe" 2>&1 || { fail "probe with SKIT_CUDA_LIBRARY=$1: exit $?: $(cat "$TMP/probe")"; return 1; }
  grep -qx "cpu: ok" "$TMP/probe" || { fail "probe: no 'cpu: ok': $(cat "$TMP/probe")"; return 1; }
  tail -n 1 "$TMP/probe"
}

# libskit.so, and everything it loads, names no CUDA library
if [ -f "$libskit" ]; then
  if ldd "$libskit" | grep -E 'libcudart|libcufft|libcublas|libcuda\.'; then fail "libskit.so depends on CUDA: $(ldd "$libskit")"
  else pass; fi
  readelf -d "$libskit" | grep NEEDED | grep -qE 'cudart|cufft|cublas' && fail "libskit.so NEEDED names a CUDA library" || pass
else
  echo "cuda_plugin: no shared libskit.so, dependency check skipped" >&2
fi

missing=$TMP/nowhere/libskit-cuda.so
run_probe "$missing" >"$TMP/line" || exit 1
if "$probe" | grep -qx "built: no"; then
  # without CUDA: no plugin, and the same answer wherever the variable points
  grep -qx "unsupported cuda: not built" "$TMP/line" && pass || fail "no-CUDA build: $(cat "$TMP/line")"
  [ ! -e "$plugin" ] && pass || fail "no-CUDA build made a plugin: $plugin"
  line=$(run_probe "$libskit") && { [ "$line" = "unsupported cuda: not built" ] && pass || fail "no-CUDA build, variable set: $line"; }
  finish
  exit
fi

# A plugin that is not there: the CPU side runs, the device check says why.
grep -qx "unsupported cuda: backend not loadable (.*nowhere/libskit-cuda.so.*)" "$TMP/line" && pass ||
  fail "missing plugin: $(cat "$TMP/line")"
# A shared library that is not the plugin (no entry point).
line=$(run_probe "$libskit") &&
  { [[ $line == "unsupported cuda: backend not loadable ("*"skit_cuda_plugin_init"*")" ]] && pass ||
      fail "library without the entry point: $line"; }
# A plugin from another build of skit (its entry point refuses this libskit).
line=$(run_probe "$build/tests/.libs/cuda_plugin_other.so") &&
  { [[ $line == "unsupported cuda: backend not loadable ("*"cuda_plugin_other.so: built for another version of libskit"*")" ]] && pass ||
      fail "plugin of another build: $line"; }
# This build's plugin: the backend's own answer.
line=$(run_probe "$plugin") &&
  { [[ $line == "unsupported cuda: no device ("* || $line == "ok cuda: "* ]] && pass ||
      fail "with the build's plugin: $line"; }

# The plugin exports its entry point only and needs nothing from libskit.
exports=$(nm -D --defined-only "$plugin" | awk '{print $NF}')
[ "$exports" = "skit_cuda_plugin_init" ] && pass || fail "plugin exports: $exports"
readelf -d "$plugin" | grep NEEDED | grep -q libskit && fail "the plugin links libskit" || pass
readelf -d "$plugin" | grep NEEDED | grep -q cudart && pass || fail "the plugin does not link the CUDA runtime"

finish
