# tests/cli_toeplitz.sh — `skit toeplitz matvec|solve` on TSV and .npy files:
# FFT result equals the dense result and an independent awk reference,
# .npy and TSV inputs give the same answer, solves have small residuals,
# breakdown exits 1, and every class of bad input exits 2 with one line that
# names the parameter and leaves no output file. Inputs are generated here
# with awk/printf (and .npy files with skit itself).
. "$(dirname "$0")/cli_lib.sh"

SEED=${SKIT_TEST_SEED:-$RANDOM}
echo "seed $SEED (set SKIT_TEST_SEED to repeat)"

# random_tsv FILE ROWS COLS SEED: uniform values in [-1, 1), tab-separated
random_tsv() {
  awk -v r="$2" -v c="$3" -v s="$4" 'BEGIN { srand(s); for (i = 0; i < r; i++) {
    for (j = 0; j < c; j++) printf "%s%.17g", (j ? "\t" : ""), 2 * rand() - 1; printf "\n" } }' > "$1"
}

# data_rows FILE: the numeric rows of a skit TSV (no comments, no header)
data_rows() { grep -v '^#' "$1" | tail -n +2; }

# max_rel_diff A B: max |a - b| / max |b| over all fields of two skit TSVs
max_rel_diff() {
  paste <(data_rows "$1") <(data_rows "$2") | awk -F'\t' '{
    h = NF / 2; for (j = 1; j <= h; j++) { d = $j - $(j + h); if (d < 0) d = -d; if (d > m) m = d;
      b = $(j + h); if (b < 0) b = -b; if (b > s) s = b } }
    END { if (s == 0) s = 1e-300; printf "%.3g\n", m / s }'
}

# expect_close A B TOL WHAT
expect_close() {
  local rows_a rows_b e
  rows_a=$(data_rows "$1" | wc -l); rows_b=$(data_rows "$2" | wc -l)
  if [ "$rows_a" -ne "$rows_b" ] || [ "$rows_a" -eq 0 ]; then fail "$4: $rows_a vs $rows_b rows (seed $SEED)"; return; fi
  e=$(max_rel_diff "$1" "$2")
  if awk -v e="$e" -v t="$3" 'BEGIN { exit !(e <= t) }'; then pass; else fail "$4: relative difference $e > $3 (seed $SEED)"; fi
}

# --- help ---------------------------------------------------------------
expect_ok toeplitz --help && grep -q matvec "$TMP/stdout" || fail "toeplitz --help does not mention matvec"
expect_ok toeplitz matvec --help && grep -q -- --coeffs "$TMP/stdout" || fail "matvec --help"
expect_ok toeplitz solve --help && grep -q -- --spd "$TMP/stdout" || fail "solve --help"
expect_ok help toeplitz

# --- matvec: FFT = dense = awk reference ------------------------------------
D=$TMP/data
mkdir -p "$D"
s=$SEED
for n in 1 2 3 7 64 101; do
  L=$((2 * n - 1))
  s=$((s + 1)); random_tsv "$D/c.tsv" $L 1 $s
  s=$((s + 1)); random_tsv "$D/x.tsv" $n 1 $s
  for flags in "" "--causal" "--transpose" "--causal --transpose"; do
    expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv" $flags -o "$D/fft.tsv" || continue
    expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv" $flags --method dense -o "$D/dense.tsv" || continue
    expect_close "$D/fft.tsv" "$D/dense.tsv" 1e-12 "n=$n $flags: fft vs dense"
  done
  # independent reference: y_i = sum_j t_{i-j} x_j, coefficient t_k on line k + n
  paste <(seq 0 $((L - 1))) "$D/c.tsv" > "$D/ck.tsv"
  awk -v n=$n 'FNR == NR { t[$1 - (n - 1)] = $2; next } { x[FNR - 1] = $1 }
    END { print "y"; for (i = 0; i < n; i++) { y = 0; for (j = 0; j < n; j++) y += t[i - j] * x[j]; printf "%.17g\n", y } }' \
    "$D/ck.tsv" "$D/x.tsv" > "$D/ref.tsv"
  expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv" -o "$D/fft.tsv" &&
    expect_close "$D/fft.tsv" "$D/ref.tsv" 1e-12 "n=$n: fft vs awk definition"
done

# d = 3 per-channel matrices ((2n-1) x 3 coefficients, n x 3 x) and one
# matrix for k = 4 right-hand sides, both methods
n=37; L=$((2 * n - 1))
s=$((s + 1)); random_tsv "$D/c3.tsv" $L 3 $s
s=$((s + 1)); random_tsv "$D/x3.tsv" $n 3 $s
s=$((s + 1)); random_tsv "$D/x4.tsv" $n 4 $s
s=$((s + 1)); random_tsv "$D/c1.tsv" $L 1 $s
for flags in "" "--causal" "--transpose"; do
  expect_ok toeplitz matvec --coeffs "$D/c3.tsv" --x "$D/x3.tsv" $flags -o "$D/fft.tsv"
  expect_ok toeplitz matvec --coeffs "$D/c3.tsv" --x "$D/x3.tsv" $flags --method dense -o "$D/dense.tsv"
  expect_close "$D/fft.tsv" "$D/dense.tsv" 1e-12 "per-channel d=3 $flags"
  expect_ok toeplitz matvec --coeffs "$D/c1.tsv" --x "$D/x4.tsv" $flags --threads 2 -o "$D/fft.tsv"
  expect_ok toeplitz matvec --coeffs "$D/c1.tsv" --x "$D/x4.tsv" $flags --method dense -o "$D/dense.tsv"
  expect_close "$D/fft.tsv" "$D/dense.tsv" 1e-12 "shared k=4 $flags"
done
# channel 1 of the per-channel product equals a single-matrix product
cut -f2 "$D/c3.tsv" > "$D/c3_1.tsv"; cut -f2 "$D/x3.tsv" > "$D/x3_1.tsv"
expect_ok toeplitz matvec --coeffs "$D/c3.tsv" --x "$D/x3.tsv" -o "$D/all.tsv"
expect_ok toeplitz matvec --coeffs "$D/c3_1.tsv" --x "$D/x3_1.tsv" -o "$D/one.tsv"
paste <(data_rows "$D/all.tsv" | cut -f2) > "$D/col1.tsv"
sed -i '1i y' "$D/col1.tsv"
expect_close "$D/col1.tsv" "$D/one.tsv" 1e-12 "per-channel column 1 vs single matrix"

# --- .npy in and out --------------------------------------------------------
# identity coefficients (t_0 = 1) copy x, so `-o x.npy` converts TSV to .npy
n=50; L=$((2 * n - 1))
awk -v L=$L -v n=$n 'BEGIN { for (i = 0; i < L; i++) print (i == n - 1 ? 1 : 0) }' > "$D/id.tsv"
s=$((s + 1)); random_tsv "$D/x.tsv" $n 1 $s
expect_ok toeplitz matvec --coeffs "$D/id.tsv" --x "$D/x.tsv" --method dense -o "$D/x.npy"
expect_ok toeplitz matvec --coeffs "$D/id.tsv" --x "$D/x.npy" --method dense -o "$D/back.tsv"
[ "$(data_rows "$D/back.tsv")" = "$(cut -f1 "$D/x.tsv")" ] && pass || fail "TSV -> .npy -> TSV is not exact"
s=$((s + 1)); random_tsv "$D/c.tsv" $L 1 $s
expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.npy" -o "$D/y_npy.npy"
expect_ok toeplitz matvec --coeffs "$D/id.tsv" --x "$D/y_npy.npy" --method dense -o "$D/y_npy.tsv"
expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv" -o "$D/y_tsv.tsv"
[ "$(data_rows "$D/y_npy.tsv")" = "$(data_rows "$D/y_tsv.tsv")" ] && pass || fail ".npy and TSV inputs differ"
# a 2-D .npy (n x 3) as x
n3=37
awk -v L=$((2 * n3 - 1)) -v n=$n3 'BEGIN { for (i = 0; i < L; i++) print (i == n - 1 ? 1 : 0) }' > "$D/id37.tsv"
expect_ok toeplitz matvec --coeffs "$D/id37.tsv" --x "$D/x3.tsv" --method dense -o "$D/x3.npy"
expect_ok toeplitz matvec --coeffs "$D/c3.tsv" --x "$D/x3.npy" -o "$D/y3a.tsv"
expect_ok toeplitz matvec --coeffs "$D/c3.tsv" --x "$D/x3.tsv" -o "$D/y3b.tsv"
[ "$(data_rows "$D/y3a.tsv")" = "$(data_rows "$D/y3b.tsv")" ] && pass || fail "2-D .npy and TSV inputs differ"
# --precision f32: '<f4' out, read back as is, within float32's bound of the f64 result
# (|y32 - y64| <= 20 log2(2N) 2^-24 ||t||_1 ||x||_2, N <= 128 here: relative to max|y| a
# few 1e-5 at most for these sizes; the test allows 1e-4)
for flags in "" "--causal" "--transpose"; do
  expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.npy" --precision f32 $flags -o "$D/y32.npy" || continue
  head -c 128 "$D/y32.npy" | grep -aq "'descr': '<f4'" && pass || fail "--precision f32 $flags: y32.npy is not '<f4'"
  expect_ok toeplitz matvec --coeffs "$D/id.tsv" --x "$D/y32.npy" --precision f32 -o "$D/y32.tsv"
  expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.npy" $flags -o "$D/y64.tsv"
  expect_close "$D/y32.tsv" "$D/y64.tsv" 1e-4 "--precision f32 $flags vs f64"
done
# the '<f4' file read as float64 (dense identity: exact) and as float32 (an FFT in float32)
expect_ok toeplitz matvec --coeffs "$D/id.tsv" --x "$D/y32.npy" --method dense -o "$D/y32w.tsv"
expect_close "$D/y32.tsv" "$D/y32w.tsv" 1e-5 "'<f4' read as f32 and as f64"
expect_usage_error "--precision" toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.npy" --precision f16 -o "$TMP/out.npy"
expect_usage_error "--precision f32" toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.npy" --precision f32 --method dense \
  -o "$TMP/out.npy"
# stdout when no -o
expect_ok toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.npy" && grep -q '^# command: skit toeplitz matvec' "$TMP/stdout" ||
  fail "TSV on stdout lacks the command line"

# --- solve --------------------------------------------------------------------
n=40
# symmetric positive definite: t_k = 0.5^|k|, first column only and all 2n-1
awk -v n=$n 'BEGIN { for (k = 0; k < n; k++) printf "%.17g\n", 0.5 ^ k }' > "$D/t.tsv"
awk -v n=$n 'BEGIN { for (k = -(n - 1); k < n; k++) printf "%.17g\n", 0.5 ^ (k < 0 ? -k : k) }' > "$D/tfull.tsv"
s=$((s + 1)); random_tsv "$D/b.tsv" $n 2 $s
expect_ok toeplitz solve --coeffs "$D/t.tsv" --b "$D/b.tsv" --spd -o "$D/xs.tsv"
expect_ok toeplitz solve --coeffs "$D/tfull.tsv" --b "$D/b.tsv" --spd -o "$D/xs2.tsv"
expect_close "$D/xs.tsv" "$D/xs2.tsv" 1e-15 "spd: first column vs 2n-1 coefficients"
data_rows "$D/xs.tsv" > "$D/xs.rows"
expect_ok toeplitz matvec --coeffs "$D/tfull.tsv" --x "$D/xs.rows" --method dense -o "$D/bs.tsv"
( echo b; cat "$D/b.tsv" ) > "$D/b.hdr"
expect_close "$D/bs.tsv" "$D/b.hdr" 1e-12 "spd solve residual"
# general nonsymmetric, diagonally dominant
awk -v n=$n -v s=$s 'BEGIN { srand(s); for (k = -(n - 1); k < n; k++) printf "%.17g\n", (k == 0 ? 4 : (2 * rand() - 1) * 0.6 ^ (k < 0 ? -k : k)) }' > "$D/g.tsv"
expect_ok toeplitz solve --coeffs "$D/g.tsv" --b "$D/b.tsv" -o "$D/xg.npy"
expect_ok toeplitz matvec --coeffs "$D/g.tsv" --x "$D/xg.npy" --method dense -o "$D/bg.tsv"
expect_close "$D/bg.tsv" "$D/b.hdr" 1e-12 "general solve residual"
# the common options, as every command takes them: --threads and --quiet
# change nothing in the result; --quiet silences the solve's report on
# stderr (written for a .npy, which has no header to hold it)
expect_ok toeplitz solve --coeffs "$D/g.tsv" --b "$D/b.tsv" --threads 2 -o "$D/xq.npy"
[ "$(wc -l < "$TMP/stderr")" -eq 1 ] || fail "solve to .npy: no report on stderr: $(cat "$TMP/stderr")"
expect_ok toeplitz solve --coeffs "$D/g.tsv" --b "$D/b.tsv" --threads 2 --quiet -o "$D/xq.npy"
[ ! -s "$TMP/stderr" ] || fail "solve --quiet wrote on stderr: $(cat "$TMP/stderr")"
cmp -s "$D/xq.npy" "$D/xg.npy" || fail "solve --threads 2 --quiet changed x"
expect_ok toeplitz matvec --coeffs "$D/g.tsv" --x "$D/xg.npy" --method dense --threads 1 --quiet -o "$D/bq.tsv"
[ ! -s "$TMP/stderr" ] || fail "matvec --quiet wrote on stderr: $(cat "$TMP/stderr")"
expect_close "$D/bq.tsv" "$D/bg.tsv" 0 "matvec --threads 1 --quiet"
expect_ok toeplitz matvec --coeffs "$D/g.tsv" --x "$D/xg.npy" --threads=1 --quiet -o "$D/bf.tsv"
expect_close "$D/bf.tsv" "$D/bg.tsv" 1e-12 "fft matvec --threads=1 --quiet"
expect_usage_error "--threads" toeplitz solve --coeffs "$D/g.tsv" --b "$D/b.tsv" --threads 0 -o "$TMP/out.tsv"
expect_usage_error "--quiet" toeplitz solve --coeffs "$D/g.tsv" --b "$D/b.tsv" --quiet=yes -o "$TMP/out.tsv"
# no figure and no random numbers: --plot and --seed are not theirs
expect_usage_error "unknown option '--plot'" toeplitz matvec --coeffs "$D/g.tsv" --x "$D/xg.npy" --plot "$TMP/out.png"
expect_usage_error "unknown option '--seed'" toeplitz solve --coeffs "$D/g.tsv" --b "$D/b.tsv" --seed 2
# t_0 = 0 breaks the recursion at order 1, but T is nonsingular: the dense
# LU fallback answers, and the header says so
printf '1\n1\n0\n1\n1\n' > "$D/brk.tsv"
printf '1\n2\n3\n' > "$D/b3.tsv"
expect_ok toeplitz solve --coeffs "$D/brk.tsv" --b "$D/b3.tsv" -o "$D/xb.tsv"
grep -q '^# solver: dense LU' "$D/xb.tsv" && grep -q '^# backward error' "$D/xb.tsv" &&
  grep -q '^# condition estimate' "$D/xb.tsv" || fail "dense fallback header: $(grep '^#' "$D/xb.tsv")"
data_rows "$D/xb.tsv" > "$D/xb.rows"
expect_ok toeplitz matvec --coeffs "$D/brk.tsv" --x "$D/xb.rows" --method dense -o "$D/bb.tsv"
( echo b; cat "$D/b3.tsv" ) > "$D/b3.hdr"
expect_close "$D/bb.tsv" "$D/b3.hdr" 1e-14 "dense fallback residual"
# n = 8, cond(T) ~ 5.7, t_0 = 1e-12: Levinson alone was off by 1.8e-4 with
# exit 0; now refined to full accuracy (x from LAPACK dgesv, 17 digits)
printf '%s\n' 0.3 -0.2 0.5 0.1 -0.4 0.6 0.9 1e-12 0.8 -0.7 0.5 0.2 -0.3 0.4 0.1 > "$D/t0.tsv"
printf '%s\n' 1 2 3 4 5 6 7 8 > "$D/b8.tsv"
{ echo x; printf '%s\n' 9.7313330943052812 1.8666515667543471 -4.5360582960576146 0.94011664666243178 \
  4.8834494114361222 -0.10142226280903231 2.7733061950314108 8.4490755182602655; } > "$D/x8.ref"
expect_ok toeplitz solve --coeffs "$D/t0.tsv" --b "$D/b8.tsv" -o "$D/x8.tsv"
expect_close "$D/x8.tsv" "$D/x8.ref" 1e-13 "tiny leading minor: refined answer"
grep -q '^# solver: Levinson + iterative refinement' "$D/x8.tsv" || fail "t_0 = 1e-12: $(grep '^# solver' "$D/x8.tsv")"
# singular T (all ones) and a Gaussian kernel singular to working precision
# (cond ~ 1e17): exit 1, one line, no file
printf '1\n1\n1\n1\n1\n' > "$D/sing.tsv"
awk 'BEGIN { for (k = -63; k < 64; k++) printf "%.17g\n", exp(-0.5 * (k / 4) ^ 2) }' > "$D/gauss.tsv"
awk 'BEGIN { for (k = 0; k < 64; k++) print k % 3 }' > "$D/b64.tsv"
for c in "sing.tsv b3.tsv singular" "gauss.tsv b64.tsv singular.to.working.precision"; do
  set -- $c
  rm -f "$TMP"/out.*
  "$SKIT" toeplitz solve --coeffs "$D/$1" --b "$D/$2" -o "$TMP/out.npy" 2>"$TMP/stderr"
  rc=$?
  if [ $rc -eq 1 ] && [ "$(wc -l < "$TMP/stderr")" -eq 1 ] && grep -q "$3" "$TMP/stderr" && [ ! -e "$TMP/out.npy" ]; then pass
  else fail "$1: exit $rc, stderr '$(cat "$TMP/stderr")'"; fi
done
# not positive definite with --spd -> exit 1
printf '1\n2\n0\n' > "$D/notpd.tsv"
"$SKIT" toeplitz solve --coeffs "$D/notpd.tsv" --b "$D/b3.tsv" --spd -o "$TMP/out.tsv" 2>"$TMP/stderr"
rc=$?
if [ $rc -eq 1 ] && [ ! -e "$TMP/out.tsv" ]; then pass; else fail "not PD: exit $rc ($(cat "$TMP/stderr"))"; fi

# --- bad input: exit 2, one line naming the parameter, no output file -------
C=$D/c.tsv; X=$D/x.tsv      # n = 50
expect_usage_error "missing subcommand" toeplitz
expect_usage_error "unknown subcommand" toeplitz transpose
expect_usage_error "unknown option" toeplitz matvec --coeffs "$C" --x "$X" --bogus -o "$TMP/out.tsv"
expect_usage_error "unexpected argument" toeplitz matvec --coeffs "$C" --x "$X" extra -o "$TMP/out.tsv"
expect_usage_error "--coeffs" toeplitz matvec --x "$X" -o "$TMP/out.tsv"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" -o "$TMP/out.tsv"
expect_usage_error "--coeffs" toeplitz matvec --coeffs "$D/no-such-file.tsv" --x "$X" -o "$TMP/out.tsv"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D/no-such-file.npy" -o "$TMP/out.npy"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D" -o "$TMP/out.npy"     # a directory
# malformed .npy: truncated, bad magic, a text file named .npy
head -c 100 "$D/x.npy" > "$D/trunc.npy"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D/trunc.npy" -o "$TMP/out.tsv"
grep -q truncated "$TMP/stderr" || fail "truncated .npy message: $(cat "$TMP/stderr")"
{ printf 'XNUMPY'; tail -c +7 "$D/x.npy"; } > "$D/magic.npy"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D/magic.npy" -o "$TMP/out.tsv"
cp "$X" "$D/text.npy"
expect_usage_error "--coeffs" toeplitz matvec --coeffs "$D/text.npy" --x "$X" -o "$TMP/out.tsv"
# big-endian dtype in a hand-made header
dict="{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }"
{ printf '\x93NUMPY\x01\x00\x76\x00'; printf "%s%*s\n" "$dict" $((118 - ${#dict} - 1)) '';
  printf '\x3f\xf0\x00\x00\x00\x00\x00\x00'; } > "$D/big.npy"
expect_usage_error "big-endian" toeplitz matvec --coeffs "$D/big.npy" --x "$X" -o "$TMP/out.tsv"
# wrong shapes
head -n 49 "$X" > "$D/x49.tsv"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D/x49.tsv" -o "$TMP/out.tsv"
expect_usage_error "--x" toeplitz matvec --coeffs "$D/c3.tsv" --x "$D/x4.tsv" -o "$TMP/out.tsv"   # d = 3, k = 4
head -n 98 "$C" > "$D/even.tsv"
expect_usage_error "--coeffs" toeplitz matvec --coeffs "$D/even.tsv" --x "$X" -o "$TMP/out.tsv"
grep -q "odd" "$TMP/stderr" || fail "even-length message: $(cat "$TMP/stderr")"
# malformed TSV: NaN, non-numeric, ragged, empty
{ head -n 10 "$X"; echo nan; tail -n 39 "$X"; } > "$D/nan.tsv"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D/nan.tsv" -o "$TMP/out.tsv"
grep -q "line 11" "$TMP/stderr" || fail "NaN message lacks the line: $(cat "$TMP/stderr")"
{ head -n 10 "$X"; echo 1x; tail -n 39 "$X"; } > "$D/word.tsv"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D/word.tsv" -o "$TMP/out.tsv"
{ head -n 10 "$X"; printf '1\t2\n'; tail -n 39 "$X"; } > "$D/ragged.tsv"
expect_usage_error "--x" toeplitz matvec --coeffs "$C" --x "$D/ragged.tsv" -o "$TMP/out.tsv"
: > "$D/empty.tsv"
expect_usage_error "--coeffs" toeplitz matvec --coeffs "$D/empty.tsv" --x "$X" -o "$TMP/out.tsv"
# options
expect_usage_error "--method" toeplitz matvec --coeffs "$C" --x "$X" --method bogus -o "$TMP/out.tsv"
expect_usage_error "--threads" toeplitz matvec --coeffs "$C" --x "$X" --threads 0 -o "$TMP/out.tsv"
expect_usage_error "-o" toeplitz matvec --coeffs "$C" --x "$X" -o "$TMP/no/such/dir/out.npy"
expect_usage_error "-o" toeplitz matvec --coeffs "$C" --x "$X" -o "$TMP/out.csv"
# dense n = 10^6 would need 7.3 TB: refused before allocating (or reading x)
awk 'BEGIN { for (i = 0; i < 1999999; i++) print (i == 999999 ? 1 : 0) }' > "$D/huge.tsv"
expect_usage_error "dense n = 1000000" toeplitz matvec --coeffs "$D/huge.tsv" --x "$X" --method dense -o "$TMP/out.tsv"
rm -f "$D/huge.tsv"
# solve: shapes, symmetry, options
expect_usage_error "--b" toeplitz solve --coeffs "$D/t.tsv" -o "$TMP/out.tsv"
expect_usage_error "--coeffs" toeplitz solve --coeffs "$D/t.tsv" --b "$D/b.tsv" -o "$TMP/out.tsv"   # n values without --spd
expect_usage_error "--coeffs" toeplitz solve --coeffs "$D/g.tsv" --b "$D/b3.tsv" -o "$TMP/out.tsv"
expect_usage_error "--coeffs" toeplitz solve --coeffs "$D/g.tsv" --b "$D/b.tsv" --spd -o "$TMP/out.tsv"  # not symmetric
expect_usage_error "--coeffs" toeplitz solve --coeffs "$D/c3.tsv" --b "$D/x3.tsv" -o "$TMP/out.tsv"    # 2-D coefficients
expect_usage_error "--b" toeplitz solve --coeffs "$D/t.tsv" --b "$D/nan.tsv" --spd -o "$TMP/out.tsv"
expect_usage_error "unknown option" toeplitz solve --coeffs "$D/t.tsv" --b "$D/b.tsv" --causal -o "$TMP/out.tsv"
finish
