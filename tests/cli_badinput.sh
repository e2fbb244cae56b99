# tests/cli_badinput.sh — the bad-input audit: one test per row of the
# bad-input table, for every subcommand where the input class applies.
#
# Every row must give: exit status 2, exactly one line on stderr that names
# the parameter (the WORD of the row), nothing on stdout, and no file left in
# the output directory (no partial output, no temporary file).
#
# The script prints the table it observed (input class | example command |
# observed behaviour) as markdown on stdout (so in tests/cli_badinput.log);
# SKIT_BADINPUT_TABLE=FILE also writes it to FILE for README.md.
# Rows of a subcommand that is still a placeholder ("not implemented yet")
# are listed as such and skipped.
. "$(dirname "$0")/cli_lib.sh"

D=$TMP/in      # inputs
O=$TMP/o       # outputs: must stay empty
mkdir -p "$D" "$O"
TABLE=$TMP/table.md
: > "$TABLE"

# show paths relative to the test's directories in the table
shorten() { sed -e "s|$D/|in/|g" -e "s|$O/|out/|g" -e "s|$TMP/|tmp/|g"; }

# row CLASS WORD skit-args...
row() {
  local class=$1 word=$2; shift 2
  rm -rf "$O" && mkdir -p "$O"
  "$SKIT" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local rc=$? lines msg shown
  lines=$(wc -l < "$TMP/stderr")
  msg=$(head -n 1 "$TMP/stderr" | shorten)
  shown=$(printf '%s ' skit "$@" | shorten | sed 's/ $//')
  local problem=""
  if [ $rc -ne 2 ]; then problem="exit $rc, expected 2"
  elif [ "$lines" -ne 1 ]; then problem="$lines lines on stderr, expected 1"
  elif ! grep -q -- "$word" "$TMP/stderr"; then problem="message does not name '$word'"
  elif [ -s "$TMP/stdout" ]; then problem="wrote to stdout"
  elif [ -n "$(ls -A "$O")" ]; then problem="left $(ls -A "$O" | tr '\n' ' ')in the output directory"
  elif ls "$D" | grep -q '\.tmp\.'; then problem="left a temporary file among the inputs"
  fi
  if [ -n "$problem" ]; then
    fail "[$class] $shown: $problem; stderr: $(head -c 600 "$TMP/stderr")"
    printf '| %s | `%s` | **FAIL**: %s |\n' "$class" "$shown" "$problem" >> "$TABLE"
  else
    pass
    printf '| %s | `%s` | exit 2, no output: `%s` |\n' "$class" "$shown" "$(printf '%s' "$msg" | sed 's/|/\\|/g')" >> "$TABLE"
  fi
}

# implemented CMD: 0 unless the subcommand is still a placeholder
implemented() {
  ! "$SKIT" "$@" --help 2>&1 >/dev/null | grep -q "not implemented yet\|not built yet"
}

# not_yet CMD: record a skipped placeholder
not_yet() { printf '| (all classes) | `skit %s` | not implemented yet: skipped |\n' "$1" >> "$TABLE"; }

# ---- inputs ------------------------------------------------------------------
# n = 4: 7 coefficients, x of 4 values, SPD first column t of 4 values
printf '%s\n' 0.1 -0.2 0.3 2 0.3 -0.2 0.1 > "$D/c.tsv"
printf '%s\n' 1 -2 0.5 3 > "$D/x.tsv"
printf '%s\n' 2 0.5 0.25 0.125 > "$D/t.tsv"
printf '%s\n' 1 nan 0.5 3 > "$D/x-nan.tsv"
printf '%s\n' 0.1 -0.2 0.3 inf 0.3 -0.2 0.1 > "$D/c-inf.tsv"
printf '%s\n' 1 1e999 0.5 3 > "$D/x-overflow.tsv"
printf '%s\n' 1 -2 0.5x 3 > "$D/x-word.tsv"
printf '1\t2\n3\n4\t5\n6\t7\n' > "$D/x-ragged.tsv"
printf '1 2\n3 4\n5 6\n7 8\n' | head -c 13 > "$D/x-truncated.tsv"   # cut inside row 4
printf '%s\n' 0.1 -0.2 0.3 2 0.3 -0.2 > "$D/c-even.tsv"
printf '%s\n' 0.1 -0.2 0.3 2 0.3 -0.2 0.4 > "$D/c-nonsym.tsv"
printf '1 2\n3 4\n5 6\n7 8\n' > "$D/x2.tsv"
printf '# only a comment\n' > "$D/empty.tsv"
echo "not a number" > "$D/x-text.npy"
mkdir -p "$D/adir" "$D/dir.tsv"
: > "$D/file"

# npy DICT-PAYLOAD-FILE: a version 1.0 .npy with header dict $1 and raw data
# bytes given as a printf format $2 (little-endian)
npy() {
  local dict=$1 data=$2 out=$3 len
  len=$(( (10 + ${#dict} + 1 + 63) / 64 * 64 - 10 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))";
    printf '%s%*s\n' "$dict" $((len - ${#dict} - 1)) ''; printf "$data"; } > "$out"
}
one='\x00\x00\x00\x00\x00\x00\xf0\x3f'        # 1.0 as <f8
nan='\x00\x00\x00\x00\x00\x00\xf8\x7f'        # NaN as <f8
f4inf='\x00\x00\x80\x7f'                       # +Inf as <f4
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }" "$one$one$one$one" "$D/x.npy"
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }" "$one$nan$one$one" "$D/x-nan.npy"
npy "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" "\x00\x00\x80\x3f$f4inf" "$D/x-inf-f4.npy"
npy "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }" "$one$one$one$one" "$D/x-int64.npy"
npy "{'descr': '>f8', 'fortran_order': False, 'shape': (4,), }" "$one$one$one$one" "$D/x-bigendian.npy"
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1, 2), }" "$one$one$one$one" "$D/x-3d.npy"
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }" "$one$one$one$one" "$D/x-2x2.npy"
npy "{'descr': '<f8', 'fortran_order': 1, 'shape': (4,), }" "$one$one$one$one" "$D/x-order.npy"
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }" "$one$one$one" "$D/x-truncated.npy"
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }" "$one" "$D/x-huge.npy"
head -c 40 "$D/x.npy" > "$D/x-truncated-header.npy"
# dense n = 10^6 (2n-1 coefficients) would need 7.3 TB
awk 'BEGIN { for (i = 0; i < 1999999; i++) print (i == 999999 ? 1 : 0) }' > "$D/c-1e6.tsv"

echo '| input class | example command | observed behaviour |' >> "$TABLE"
echo '|---|---|---|' >> "$TABLE"

# ---- toeplitz matvec / solve -------------------------------------------------
M=(toeplitz matvec --coeffs "$D/c.tsv")
S=(toeplitz solve --coeffs "$D/t.tsv" --spd)
row "size out of range" "--threads" "${M[@]}" --x "$D/x.tsv" --threads 0 -o "$O/y.tsv"
row "size out of range" "--threads" "${M[@]}" --x "$D/x.tsv" --threads 2^40 -o "$O/y.tsv"
row "size out of range (even coefficient count)" "--coeffs" toeplitz matvec --coeffs "$D/c-even.tsv" --x "$D/x.tsv" -o "$O/y.tsv"
row "shapes that do not match" "--x" "${M[@]}" --x "$D/x-2x2.npy" -o "$O/y.tsv"
row "shapes that do not match" "--b" toeplitz solve --coeffs "$D/c.tsv" --b "$D/x-2x2.npy" -o "$O/x.tsv"
row "NaN in TSV" "--x" "${M[@]}" --x "$D/x-nan.tsv" -o "$O/y.tsv"
row "Inf in TSV" "--coeffs" toeplitz matvec --coeffs "$D/c-inf.tsv" --x "$D/x.tsv" -o "$O/y.tsv"
row "overflow (1e999) in TSV" "--x" "${M[@]}" --x "$D/x-overflow.tsv" -o "$O/y.tsv"
row "NaN in .npy" "--x" "${M[@]}" --x "$D/x-nan.npy" -o "$O/y.npy"
row "Inf in float32 .npy" "--b" "${S[@]}" --b "$D/x-inf-f4.npy" -o "$O/x.npy"
row "NaN in right-hand side" "--b" "${S[@]}" --b "$D/x-nan.tsv" -o "$O/x.tsv"
row "non-numeric TSV field" "--x" "${M[@]}" --x "$D/x-word.tsv" -o "$O/y.tsv"
row "ragged TSV rows" "--x" "${M[@]}" --x "$D/x-ragged.tsv" -o "$O/y.tsv"
row "empty TSV (no data rows)" "--x" "${M[@]}" --x "$D/empty.tsv" -o "$O/y.tsv"
row "wrong dtype in .npy (int64)" "--x" "${M[@]}" --x "$D/x-int64.npy" -o "$O/y.tsv"
row "wrong dtype in .npy (big-endian)" "--x" "${M[@]}" --x "$D/x-bigendian.npy" -o "$O/y.tsv"
row "wrong shape in .npy (3-D)" "--x" "${M[@]}" --x "$D/x-3d.npy" -o "$O/y.tsv"
row "wrong order field in .npy" "--x" "${M[@]}" --x "$D/x-order.npy" -o "$O/y.tsv"
row "not a .npy file" "--x" "${M[@]}" --x "$D/x-text.npy" -o "$O/y.tsv"
row "truncated .npy (data)" "--x" "${M[@]}" --x "$D/x-truncated.npy" -o "$O/y.tsv"
row "truncated .npy (header)" "--x" "${M[@]}" --x "$D/x-truncated-header.npy" -o "$O/y.tsv"
row "truncated TSV" "--x" "${M[@]}" --x "$D/x-truncated.tsv" -o "$O/y.tsv"
row "huge size beyond memory (.npy shape 2^40)" "--x" "${M[@]}" --x "$D/x-huge.npy" -o "$O/y.npy"
row "huge size beyond memory (dense n = 10^6)" "dense n = 1000000" toeplitz matvec --coeffs "$D/c-1e6.tsv" --x "$D/x.tsv" --method dense -o "$O/y.tsv"
row "non-symmetric matrix with --spd" "--coeffs" toeplitz solve --coeffs "$D/c-nonsym.tsv" --b "$D/x.tsv" --spd -o "$O/x.tsv"
row "unknown option" "--bogus" "${M[@]}" --x "$D/x.tsv" --bogus -o "$O/y.tsv"
row "unknown option" "--causal" "${S[@]}" --b "$D/x.tsv" --causal -o "$O/x.tsv"
row "option without its value" "--x" "${M[@]}" -o "$O/y.tsv" --x
row "unknown choice" "--method" "${M[@]}" --x "$D/x.tsv" --method qr -o "$O/y.tsv"
row "unexpected argument" "extra" "${M[@]}" --x "$D/x.tsv" extra -o "$O/y.tsv"
row "missing required option" "--x" toeplitz matvec --coeffs "$D/c.tsv" -o "$O/y.tsv"
row "unknown subcommand" "transpose" toeplitz transpose
row "missing file" "--x" "${M[@]}" --x "$D/no-such-file.tsv" -o "$O/y.tsv"
row "missing file" "--coeffs" toeplitz solve --coeffs "$D/no-such-file.npy" --b "$D/x.tsv" -o "$O/x.tsv"
row "directory instead of a file" "--x" "${M[@]}" --x "$D/adir" -o "$O/y.tsv"
row "unwritable output path (no such directory)" "-o" "${M[@]}" --x "$D/x.tsv" -o "$O/no/such/dir/y.tsv"
row "unwritable output path (parent is a file)" "-o" "${M[@]}" --x "$D/x.tsv" -o "$D/file/y.npy"
row "unwritable output path (a directory)" "-o" "${M[@]}" --x "$D/x.tsv" -o "$D/dir.tsv"
row "unwritable output path (unknown extension)" "-o" "${M[@]}" --x "$D/x.tsv" -o "$O/y.csv"
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
  row "unwritable output path (read-only directory)" "-o" "${M[@]}" --x "$D/x.tsv" -o "$TMP/ro/y.tsv"
  chmod 755 "$TMP/ro"
fi

# ---- every subcommand: unknown option, bad common options ---------------------
# CMD WORDS: how to reach each subcommand's option parser
for cmd in $("$SKIT" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'); do
  case $cmd in
    help|version) continue ;;
    toeplitz) words=(toeplitz matvec) ;;
    bench) words=(bench toeplitz) ;;
    *) words=("$cmd") ;;
  esac
  if ! implemented "${words[@]}"; then not_yet "${words[*]}"; continue; fi
  row "unknown option" "--no-such-option" "${words[@]}" --no-such-option
  help=$("$SKIT" "${words[@]}" --help 2>/dev/null)
  if grep -q -- "--seed" <<< "$help"; then
    row "seed out of range" "--seed" "${words[@]}" --seed -1
    row "seed out of range" "--seed" "${words[@]}" --seed 18446744073709551616
  fi
  if grep -q -- "--threads" <<< "$help"; then
    row "size out of range" "--threads" "${words[@]}" --threads 0
    row "not a number" "--threads" "${words[@]}" --threads two
  fi
  if grep -q -- "--plot" <<< "$help"; then
    row "unwritable plot path (unknown extension)" "--plot" "${words[@]}" --plot "$O/figure.pdf"
    row "unwritable plot path (no such directory)" "--plot" "${words[@]}" --plot "$O/no/such/figure.png"
  fi
  if grep -q -- "-o, --output" <<< "$help" && [ "$cmd" != toeplitz ]; then
    row "unwritable output path (no such directory)" "-o" "${words[@]}" -o "$O/no/such/dir/out.tsv"
  fi
done
row "missing subcommand" "subcommand" toeplitz
row "unknown target" "unknown target" bench no-such-target
row "unknown command" "unknown command" no-such-command

echo
cat "$TABLE"
[ -n "${SKIT_BADINPUT_TABLE:-}" ] && cp "$TABLE" "$SKIT_BADINPUT_TABLE"
finish
