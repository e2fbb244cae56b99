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
row "unknown FFTW planner" "--planner" "${M[@]}" --x "$D/x.tsv" --planner fast -o "$O/y.tsv"
printf 'not wisdom\n' > "$D/bad.wisdom"
row "malformed FFTW wisdom file" "--wisdom" "${M[@]}" --x "$D/x.tsv" --wisdom "$D/bad.wisdom" -o "$O/y.tsv"
printf '(fftw-3.3.10 fftw_wisdom\0)\n' > "$D/nul.wisdom"
row "FFTW wisdom file that is not text (NUL)" "nul.wisdom" "${M[@]}" --x "$D/x.tsv" --wisdom "$D/nul.wisdom" -o "$O/y.tsv"
# flags wider than FFTW stores them: FFTW's own import would abort the process
printf '(fftw-3.3.10 fftw_wisdom #x0 #x0 #x0 #x0\n  (fftw_codelet_r2cf_2 2 #x11bdd #x7fffffff #x0 #x0 #x0 #x0 #x0)\n)\n' \
  > "$D/flags.wisdom"
row "FFTW wisdom entry out of range" "flags.wisdom" "${M[@]}" --x "$D/x.tsv" --wisdom "$D/flags.wisdom" -o "$O/y.tsv"
row "planning time limit out of range" "--plan-seconds" "${M[@]}" --x "$D/x.tsv" --plan-seconds 0 -o "$O/y.tsv"
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

# ---- ski-bound ---------------------------------------------------------------------
if implemented ski-bound; then
  row "size out of range" "--n" ski-bound --n 1 -o "$O/b.tsv"
  row "size out of range" "--n" ski-bound --n 16384 -o "$O/b.tsv"
  row "huge size beyond memory" "--n" ski-bound --n 2^40 -o "$O/b.tsv"
  row "r > n" "--r" ski-bound --n 32 --r 8,64 -o "$O/b.tsv"
  row "r out of range" "--r" ski-bound --n 32 --r 1 -o "$O/b.tsv"
  row "λ outside (0,1)" "--lambda" ski-bound --kernel tnn --lambda 1 -o "$O/b.tsv"
  row "λ outside (0,1)" "--lambda" ski-bound --kernel warped-linear --lambda 0 -o "$O/b.tsv"
  row "λ outside (0,1)" "--gamma" ski-bound --interp authors --gamma 1.5 -o "$O/b.tsv"
  row "NaN/Inf in a numeric option" "--lambda" ski-bound --lambda nan -o "$O/b.tsv"
  row "NaN/Inf in a numeric option" "--variance" ski-bound --variance inf -o "$O/b.tsv"
  row "NaN/Inf in a numeric option" "--interval" ski-bound --interval 1:nan -o "$O/b.tsv"
  row "empty interval" "--interval" ski-bound --interval 5:5 -o "$O/b.tsv"
  row "order out of range" "--degree" ski-bound --interp lagrange --degree 16 -o "$O/b.tsv"
  row "band width not odd" "--band" ski-bound --study sparse-lowrank --band 4 -o "$O/b.tsv"
  row "option of another study" "--band" ski-bound --band 3 -o "$O/b.tsv"
  row "unknown choice" "--kernel" ski-bound --kernel rbf -o "$O/b.tsv"
  row "unwritable output path (no such directory)" "--curves" ski-bound --study extrapolation --curves "$O/no/such/c.tsv" -o "$O/b.tsv"
else not_yet ski-bound; fi

# ---- hilbert -----------------------------------------------------------------------
if implemented hilbert transform; then
  row "missing mode" "mode" hilbert -n 16
  row "unknown mode" "mode" hilbert invert
  row "size out of range" "-n" hilbert transform -n 1 -o "$O/h.tsv"
  row "huge size beyond the O(n^2) definition" "-n" hilbert transform -n 2^20 -o "$O/h.tsv"
  row "size out of range" "--sizes" hilbert sweep --sizes 2^20 -o "$O/h.tsv"
  row "λ outside (0,1)" "poisson" hilbert transform --spectrum poisson:1.5 -o "$O/h.tsv"
  row "NaN/Inf in a numeric option" "poisson" hilbert transform --spectrum poisson:nan -o "$O/h.tsv"
  row "unknown choice" "--spectrum" hilbert transform --spectrum square -o "$O/h.tsv"
  row "NaN in TSV" "--input" hilbert causal --input "$D/x-nan.tsv" -o "$O/h.tsv"
  row "wrong shape (2 columns)" "--input" hilbert transform --input "$D/x2.tsv" -o "$O/h.tsv"
  row "wrong dtype in .npy (int64)" "--input" hilbert transform --input "$D/x-int64.npy" -o "$O/h.tsv"
  row "truncated .npy (data)" "--input" hilbert transform --input "$D/x-truncated.npy" -o "$O/h.tsv"
  row "missing file" "--input" hilbert causal --input "$D/no-such-file.npy" -o "$O/h.tsv"
  row "option of another mode" "--input" hilbert sweep --input "$D/x.tsv" -o "$O/h.tsv"
else not_yet hilbert; fi

# ---- decay -------------------------------------------------------------------------
if implemented decay summary; then
  row "missing mode" "mode" decay
  row "size out of range" "--fft-size" decay summary --fft-size 2^23 -o "$O/d.tsv"
  row "size out of range (odd FFT size)" "--fft-size" decay summary --fft-size 1001 -o "$O/d.tsv"
  row "size out of range" "--channels" decay summary --channels 0 -o "$O/d.tsv"
  row "index out of range" "--channel" decay bound --channels 4 --channel 4 -o "$O/d.tsv"
  row "empty range" "--range" decay summary --range 8..4 -o "$O/d.tsv"
  row "order out of range" "--orders" decay summary --orders 1,17 -o "$O/d.tsv"
  row "number out of range" "--floor" decay impulse --floor 2 -o "$O/d.tsv"
  row "NaN/Inf in a numeric option" "--floor" decay impulse --floor nan -o "$O/d.tsv"
  row "unknown choice" "--activation" decay summary --activation tanh -o "$O/d.tsv"
  row "choice not valid for the mode" "--construction" decay prop1 --construction periodic -o "$O/d.tsv"
  row "list where the mode takes one value" "--activation" decay response --activation relu,silu -o "$O/d.tsv"
else not_yet decay; fi

# ---- mra ---------------------------------------------------------------------------
# Q, K, V: 32 x 4 (n = 32, one default block), K of 16 rows, V with a NaN
ones() { local k; for ((k = 0; k < $1; k++)); do printf '%s' "$one"; done; }
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (32, 4), }" "$(ones 128)" "$D/q.npy"
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (16, 4), }" "$(ones 64)" "$D/k16.npy"
npy "{'descr': '<f8', 'fortran_order': False, 'shape': (32, 4), }" "$(ones 127)$nan" "$D/v-nan.npy"
npy "{'descr': '<i8', 'fortran_order': False, 'shape': (32, 4), }" "$(ones 128)" "$D/q-int64.npy"
if implemented mra; then
  row "block size not dividing n" "--n" mra --n 100 --block 32 -o "$O/m.tsv"
  row "block size not dividing n" "--block" mra bounds --n 64 --block 7 -o "$O/m.tsv"
  row "size out of range" "--d" mra --d 0 -o "$O/m.tsv"
  row "size out of range" "--n" mra haar --n 4096 -o "$O/m.tsv"
  row "huge size beyond memory" "--n" mra --n 2^24 --d 64 -o "$O/m.tsv"
  row "fraction out of range" "--budget" mra --budget 0 -o "$O/m.tsv"
  row "fraction out of range" "--budget" mra --budget 1.5 -o "$O/m.tsv"
  row "NaN/Inf in a numeric option" "--budget" mra --budget nan -o "$O/m.tsv"
  row "number out of range" "--temperature" mra --temperature 0 -o "$O/m.tsv"
  row "NaN/Inf in a numeric option" "--temperature" mra --temperature inf -o "$O/m.tsv"
  row "unknown choice" "--methods" mra --methods mra2,reformer -o "$O/m.tsv"
  row "unwritable output path (no such directory)" "--histogram-out" mra haar --n 64 --matrix-out "$O/mat.tsv" --histogram-out "$O/no/such/h.tsv" -o "$O/m.tsv"
  row "option of another mode" "--entropy" mra haar --entropy 1 -o "$O/m.tsv"
  row "shapes that do not match" "--q/--k" mra --q "$D/q.npy" --k "$D/k16.npy" --v "$D/q.npy" -o "$O/m.tsv"
  row "NaN in .npy" "--v" mra --q "$D/q.npy" --k "$D/q.npy" --v "$D/v-nan.npy" -o "$O/m.tsv"
  row "wrong dtype in .npy (int64)" "--q" mra --q "$D/q-int64.npy" --k "$D/q.npy" --v "$D/q.npy" -o "$O/m.tsv"
  row "truncated .npy (data)" "--k" mra --q "$D/q.npy" --k "$D/x-truncated.npy" --v "$D/q.npy" -o "$O/m.tsv"
  row "missing file" "--k" mra --q "$D/q.npy" --k "$D/no-such-file.npy" --v "$D/q.npy" -o "$O/m.tsv"
  row "missing companion option" "--v" mra --q "$D/q.npy" --k "$D/q.npy" -o "$O/m.tsv"
  row "shapes that do not match" "--v" mra --q "$D/q.npy" --k "$D/q.npy" --v "$D/k16.npy" -o "$O/m.tsv"
  row "block size not dividing n" "--block" mra haar --q "$D/q.npy" --k "$D/q.npy" --block 64 -o "$O/m.tsv"
  row "index out of range" "--heads" mra bounds --q "$D/q.npy" --k "$D/q.npy" --heads 1 -o "$O/m.tsv"
  row "list where the mode takes one value" "--y-out" mra --n 64 --methods mra2,mra2s --y-out "$O/y.npy" -o "$O/m.tsv"
else not_yet mra; fi

# ---- tno ---------------------------------------------------------------------------
if implemented tno; then
  row "r > n" "--rank" tno --op ski --n 16 --d 2 --rank 32 -o "$O/t.npy"
  row "λ outside (0,1)" "--decay" tno --decay 1.5 --n 8 --d 1 -o "$O/t.npy"
  row "λ outside (0,1)" "--decay" tno --op ski --decay 1 --n 8 --d 1 -o "$O/t.npy"
  row "NaN/Inf in a numeric option" "--decay" tno --decay nan --n 8 --d 1 -o "$O/t.npy"
  row "size out of range" "--n" tno --n 0 --d 1 -o "$O/t.npy"
  row "huge size beyond memory" "--n" tno --n 2^24 --d 64 -o "$O/t.npy"
  row "taps not odd" "--taps" tno --op ski --taps 4 --n 16 --d 2 -o "$O/t.npy"
  row "FFT length too short" "fft.length" tno --op fd --fft-length 16 --n 16 --d 2 -o "$O/t.npy"
  row "NaN in TSV" "--x" tno --x "$D/x-nan.tsv" -o "$O/t.npy"
  row "NaN in .npy" "--x" tno --x "$D/x-nan.npy" -o "$O/t.npy"
  row "wrong dtype in .npy (int64)" "--x" tno --x "$D/x-int64.npy" -o "$O/t.npy"
  row "wrong shape in .npy (3-D)" "--x" tno --x "$D/x-3d.npy" -o "$O/t.npy"
  row "truncated .npy (data)" "--x" tno --x "$D/x-truncated.npy" -o "$O/t.npy"
  row "batch not dividing the rows" "--batch" tno --x "$D/x.tsv" --batch 3 -o "$O/t.npy"
  row "parameter count that does not match" "--params" tno --params "$D/x.npy" --n 8 --d 1 -o "$O/t.npy"
  row "conflicting inputs" "--x" tno --x "$D/x.tsv" --n 4 --d 1 -o "$O/t.npy"
  row "missing file" "--x" tno --x "$D/no-such-file.npy" -o "$O/t.npy"
  row "unknown choice" "--op" tno --op conv --n 8 --d 1 -o "$O/t.npy"
  row "unwritable output path (no such directory)" "--coeffs" tno --n 8 --d 1 --coeffs "$O/no/such/c.npy" -o "$O/t.npy"
  row "unwritable output path (no such directory)" "--stats" tno --n 8 --d 1 --stats "$O/no/such/s.tsv" -o "$O/t.npy"
else not_yet tno; fi

# ---- bench and reproduce (bad options only: valid ones run for minutes) ----------
row "missing target" "target" bench
row "range not of powers of two" "--sizes" bench toeplitz --sizes 2^4..2^3 -o "$O/b.tsv"
row "size out of range" "--channels" bench toeplitz --channels 0 -o "$O/b.tsv"
row "unwritable output path (no such directory)" "--json" bench toeplitz --json "$O/no/such/b.json" -o "$O/b.tsv"
if implemented bench ski; then row "huge size beyond memory" "--sizes" bench ski --sizes 2^40 -o "$O/b.tsv"; fi
row "shard out of range" "--shard" reproduce --shard 3/2 --out "$O/r"
row "nothing selected" "no experiment" reproduce --only no-such-experiment --out "$O/r"

# ---- every subcommand: unknown option, bad common options ---------------------
# CMD WORDS: how to reach each subcommand's option parser
for cmd in $("$SKIT" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'); do
  case $cmd in
    help|version) continue ;;
    toeplitz) words=(toeplitz matvec) ;;
    bench) words=(bench toeplitz) ;;
    hilbert) words=(hilbert transform) ;;
    decay) words=(decay summary) ;;
    tno) words=(tno --n 4 --d 1) ;;
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
    row "unwritable plot path (unknown extension)" "--plot" "${words[@]}" --plot "$O/figure.gif"
    row "unwritable plot path (no such directory)" "--plot" "${words[@]}" --plot "$O/no/such/figure.png"
  fi
  if grep -q -- "-o, --output" <<< "$help" && [ "$cmd" != toeplitz ]; then
    row "unwritable output path (no such directory)" "-o" "${words[@]}" -o "$O/no/such/dir/out.tsv"
  fi
done
# ---- abbreviated long options -------------------------------------------------
# getopt_long takes a unique prefix for the option it abbreviates (--causal
# for --causal-ski); skit refuses it, naming the option meant
row "abbreviated option" "unknown option '--causal' (did you mean --causal-ski?)" train --causal cumsum -o "$O/t.tsv"
row "abbreviated option" "unknown option '--coeff' (did you mean --coeffs?)" toeplitz matvec --coeff "$D/c.tsv" --x "$D/x.tsv" -o "$O/y.tsv"
row "abbreviated option" "unknown option '--kee' (did you mean --keep?)" mra haar --kee=0.1 -o "$O/m.tsv"
row "abbreviated option" "unknown option '--fft' (did you mean --fft-size?)" decay summary --fft 256 -o "$O/d.tsv"
row "abbreviated option" "unknown option '--quic' (did you mean --quick?)" bench toeplitz --quic -o "$O/b.tsv"
row "abbreviated option" "unknown option '--hel' (did you mean --help?)" tno --hel
row "value given to a flag" "--quiet" tno --n 4 --d 1 --quiet=yes -o "$O/t.npy"
row "missing subcommand" "subcommand" toeplitz
row "unknown target" "unknown target" bench no-such-target
row "unknown command" "unknown command" no-such-command

echo
cat "$TABLE"
[ -n "${SKIT_BADINPUT_TABLE:-}" ] && cp "$TABLE" "$SKIT_BADINPUT_TABLE"
finish
