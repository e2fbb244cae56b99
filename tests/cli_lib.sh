# tests/cli_lib.sh — sourced by the CLI tests. Provides expect_usage_error:
# a bad invocation must exit 2 with exactly one line on stderr that names the
# parameter, print nothing on stdout, and leave no output file behind.
set -u
: "${SKIT:?SKIT must point to the skit binary (make check sets it)}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
passes=0
pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_usage_error "WORD-IN-MESSAGE" skit-args...   (uses $TMP/out.* as output)
expect_usage_error() {
  local word=$1; shift
  rm -rf "$TMP"/out.* "$TMP"/stderr "$TMP"/stdout
  "$SKIT" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local rc=$?
  local lines
  lines=$(wc -l < "$TMP/stderr")
  if [ $rc -ne 2 ]; then fail "skit $*: exit $rc, expected 2 (stderr: $(cat "$TMP/stderr"))"; return; fi
  if [ "$lines" -ne 1 ]; then fail "skit $*: $lines stderr lines, expected 1: $(cat "$TMP/stderr")"; return; fi
  if ! grep -q -- "$word" "$TMP/stderr"; then fail "skit $*: message does not name '$word': $(cat "$TMP/stderr")"; return; fi
  if [ -s "$TMP/stdout" ]; then fail "skit $*: wrote to stdout on error"; return; fi
  if ls "$TMP"/out.* >/dev/null 2>&1; then fail "skit $*: left an output file: $(ls "$TMP"/out.*)"; return; fi
  pass
}

# expect_ok skit-args...
expect_ok() {
  "$SKIT" "$@" >"$TMP/stdout" 2>"$TMP/stderr" || { fail "skit $*: exit $? ($(cat "$TMP/stderr"))"; return 1; }
  pass
}

finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
