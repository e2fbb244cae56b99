# tests/exports.sh — the shared library exports exactly the public API:
#   1. every dynamic symbol it defines starts with skit_,
#   2. every one of them is named in an installed header,
#   3. every function the installed headers declare is exported (a public
#      function whose definition never sees its header's declaration would
#      be hidden by -fvisibility=hidden).
# make check sets SKIT_SHARED_LIBRARY (the built libskit.so),
# SKIT_PUBLIC_HEADERS (include_HEADERS and skitinclude_HEADERS, relative to
# SKIT_DATADIR, the source tree) and CC.
set -u
: "${SKIT_SHARED_LIBRARY:?make check sets it}" "${SKIT_PUBLIC_HEADERS:?}" "${SKIT_DATADIR:?}"
if [ ! -f "$SKIT_SHARED_LIBRARY" ]; then
  echo "exports: $SKIT_SHARED_LIBRARY not built (--disable-shared?): skipped"
  exit 77
fi
command -v nm >/dev/null 2>&1 || { echo "exports: nm not found: skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

nm -D --defined-only "$SKIT_SHARED_LIBRARY" | awk 'NF >= 3 {print $3}' | sort -u > "$TMP/exported"
[ -s "$TMP/exported" ] || fail "nm -D lists no defined symbol in $SKIT_SHARED_LIBRARY"

# The headers through the preprocessor: no comments, no macros.
for h in $SKIT_PUBLIC_HEADERS; do printf '#include "%s"\n' "$SKIT_DATADIR/$h"; done > "$TMP/all.c"
if ! ${CC:-cc} -E -P -I"$SKIT_DATADIR/lib" "$TMP/all.c" > "$TMP/all.i" 2> "$TMP/cpp.err"; then
  echo "exports: the installed headers do not preprocess:" >&2
  cat "$TMP/cpp.err" >&2
  exit 1
fi
grep -o '\bskit_[A-Za-z0-9_]*' "$TMP/all.i" | sort -u > "$TMP/named"
grep -o '\bskit_[A-Za-z0-9_]*[[:space:]]*(' "$TMP/all.i" | sed 's/[[:space:]]*($//' | sort -u > "$TMP/functions"

# shows at most 20 names of a list, then how many there are
show() { head -n 20 "$1" | sed 's/^/  /' >&2; echo "  ($(wc -l < "$1") in all)" >&2; }

grep -v '^skit_' "$TMP/exported" > "$TMP/foreign" || true
[ -s "$TMP/foreign" ] && { fail "exported symbols without the skit_ prefix:"; show "$TMP/foreign"; }
grep '^skit_' "$TMP/exported" | comm -23 - "$TMP/named" > "$TMP/undeclared"
[ -s "$TMP/undeclared" ] && { fail "exported skit_ symbols that no installed header declares:"; show "$TMP/undeclared"; }
comm -13 "$TMP/exported" "$TMP/functions" > "$TMP/missing"
[ -s "$TMP/missing" ] && { fail "functions of the installed headers that the library does not export:"; show "$TMP/missing"; }

echo "exports: $(wc -l < "$TMP/exported") symbols exported, $(wc -l < "$TMP/functions") functions declared; $failures failed"
[ "$failures" -eq 0 ]
