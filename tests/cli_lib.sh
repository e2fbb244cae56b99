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

# untimed LOG: a `skit train` log without what differs between any two runs:
# its tokens_per_s and seconds columns and the peak RSS
untimed() {
  awk -F'\t' -v OFS='\t' '/^# parameters/ {sub(/peak RSS [0-9]+/, "peak RSS -")} /^#/ {print; next}
    !h {h = 1; for (i = 1; i <= NF; i++) drop[i] = ($i == "tokens_per_s" || $i == "seconds")}
    {out = ""; for (i = 1; i <= NF; i++) if (!drop[i]) out = out (out == "" ? "" : OFS) $i; print out}' "$1"
}
# same_data DIR1 DIR2 WHAT: the data/ trees of two runs hold the same files
# with the same bytes, training logs compared untimed (and a checkpoint's
# checksums.tsv without the row of its log, whose hash covers the timings)
same_data() {
  local files f
  files=$(cd "$1" && find data -type f | sort)
  if [ "$files" != "$(cd "$2" && find data -type f | sort)" ]; then
    fail "$3: data files differ: $(diff <(echo "$files") <(cd "$2" && find data -type f | sort) | head)"
    return
  fi
  for f in $files; do
    if grep -q $'^step\tloss' "$1/$f"; then
      cmp -s <(untimed "$1/$f") <(untimed "$2/$f") || { fail "$3: $f differs (timings left out)"; continue; }
    elif [ "${f##*/}" = checksums.tsv ]; then
      cmp -s <(grep -v $'^log.tsv\t' "$1/$f") <(grep -v $'^log.tsv\t' "$2/$f") ||
        { fail "$3: $f differs (the log's row left out)"; continue; }
    else
      cmp -s "$1/$f" "$2/$f" || { fail "$3: $f differs"; continue; }
    fi
    pass
  done
}

finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
