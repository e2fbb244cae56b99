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

# claim_rows REPORT: the rows of REPORT.md's tables of claims
claim_rows() {
  awk '/^## Claims: / {t = 1; next} /^## / {t = 0} t && /^\| \[/' "$1"
}
# row_length_over LIMIT REPORT: the average and longest claim row (bytes),
# printed when the average exceeds LIMIT, or when there are no rows
row_length_over() {
  claim_rows "$2" | LC_ALL=C awk -v limit="$1" '{n++; s += length($0); if (length($0) > m) m = length($0)}
    END {if (!n || s / n > limit) printf "%d rows, average %.0f, longest %d\n", n, n ? s / n : 0, m}'
}
# entries_missing CLAIMS_DIR REPORT: the claims of CLAIMS_DIR/*.tsv whose full
# entry ("### EXPERIMENT: ID" in the experiment's section, every field in
# full) REPORT.md lacks, or whose table row does not link to that entry
entries_missing() {
  awk -F'\t' 'FILENAME ~ /\.tsv$/ {
      if (FNR == 1) { for (k = 3; k <= 8; k++) key[k] = $k; next }
      ex = FILENAME; sub(/.*\//, "", ex); sub(/\.tsv$/, "", ex)
      for (k = 3; k <= 8; k++) want[ex ": " $1, k] = (k == 8 && $k == "" ? "-" : $k)
      slug = tolower(ex "-" $1); gsub(/[^a-z0-9_-]/, "", slug); anchor[ex ": " $1] = "(#" slug ")"
      ids[ex ": " $1] = 1; next }
    /^## / { section = substr($0, 4); entry = ""; next }
    /^### / { entry = substr($0, 5); if (index(entry, section ": ") != 1) entry = ""; next }
    /^\| \[/ { for (e in anchor) if (index($0, anchor[e])) linked[e] = 1; next }
    entry != "" && /^- [a-z]+: / {
      k = substr($0, 3, index($0, ":") - 3); text = substr($0, index($0, ": ") + 2)
      if (k == "verdict") text = substr(text, 3, length(text) - 4)
      got[entry, k] = text }
    END { for (e in ids) {
        if (!linked[e]) print e ": no table row links to its entry"
        for (k = 3; k <= 8; k++) if (got[e, key[k]] != want[e, k]) print e ": no full " key[k] } }' "$1"/*.tsv "$2"
}

finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
