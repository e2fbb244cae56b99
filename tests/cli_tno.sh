# tests/cli_tno.sh — `skit tno` and `skit bench tno`: --verify passes for every
# operator; the TNO / FD-TNO output equals `skit toeplitz matvec` with the
# coefficients `skit tno --coeffs` wrote; .npy and TSV inputs agree; a batch
# equals its sequences run one at a time; saved parameters reproduce the
# output; loaded SKI knots/filters are used; causal operators ignore future
# inputs; every class of bad input exits 2 with one line naming the parameter
# and leaves no output file; the benchmark runs and reports its targets.
. "$(dirname "$0")/cli_lib.sh"

SEED=${SKIT_TEST_SEED:-$RANDOM}
echo "seed $SEED (set SKIT_TEST_SEED to repeat)"

# random_tsv FILE ROWS COLS SEED: uniform values in [-1, 1), tab-separated
random_tsv() {
  awk -v r="$2" -v c="$3" -v s="$4" 'BEGIN { srand(s); for (i = 0; i < r; i++) {
    for (j = 0; j < c; j++) printf "%s%.17g", (j ? "\t" : ""), 2 * rand() - 1; printf "\n" } }' > "$1"
}
# data_rows FILE [SKIP]: numeric rows of a skit TSV without the first SKIP columns
data_rows() { grep -v '^#' "$1" | tail -n +2 | cut -f"$((${2:-0} + 1))"-; }
# max_rel_diff A SKIPA B SKIPB: max |a - b| / max |b| over all fields
max_rel_diff() {
  paste <(data_rows "$1" "$2") <(data_rows "$3" "$4") | awk -F'\t' '{
    h = NF / 2; for (j = 1; j <= h; j++) { d = $j - $(j + h); if (d < 0) d = -d; if (d > m) m = d;
      b = $(j + h); if (b < 0) b = -b; if (b > s) s = b } }
    END { if (s == 0) s = 1e-300; printf "%.3g\n", m / s }'
}
# expect_close A SKIPA B SKIPB TOL WHAT
expect_close() {
  local ra rb e
  ra=$(data_rows "$1" "$2" | wc -l); rb=$(data_rows "$3" "$4" | wc -l)
  if [ "$ra" -ne "$rb" ] || [ "$ra" -eq 0 ]; then fail "$6: $ra vs $rb rows (seed $SEED)"; return; fi
  e=$(max_rel_diff "$1" "$2" "$3" "$4")
  if awk -v e="$e" -v t="$5" 'BEGIN { exit !(e <= t) }'; then pass; else fail "$6: relative difference $e > $5 (seed $SEED)"; fi
}

# --- help ---------------------------------------------------------------
expect_ok tno --help && grep -q -- --verify "$TMP/stdout" || fail "tno --help does not mention --verify"
expect_ok bench tno --help && grep -q -- --shapes "$TMP/stdout" || fail "bench tno --help does not mention --shapes"

# --- every operator agrees with its dense product --------------------------
for op in tno ski fd; do
  for causal in "" --causal; do
    for n in 7 129; do
      [ "$op" = ski ] && [ "$n" -lt 2 ] && continue
      expect_ok tno --op "$op" $causal --n "$n" --d 3 --batch 2 --seed "$SEED" --verify --rpe-width 16 \
        --stats "$TMP/st.tsv" -o "$TMP/y.npy"
      grep -q "	ok$" "$TMP/st.tsv" || fail "tno --op $op $causal n=$n: stats verdict not ok: $(tail -1 "$TMP/st.tsv")"
    done
  done
done

# causal SKI: the bracket-blocked sums compute the same product
expect_ok tno --op ski --causal --causal-ski blocked --n 300 --d 3 --rank 20 --seed "$SEED" --verify --stats "$TMP/st.tsv" -o "$TMP/yb.tsv"
grep -q "blocked-sums" "$TMP/st.tsv" || fail "tno --causal-ski blocked: not the blocked algorithm"
expect_ok tno --op ski --causal --causal-ski cumsum --n 300 --d 3 --rank 20 --seed "$SEED" -o "$TMP/ya.tsv"
expect_close "$TMP/yb.tsv" 2 "$TMP/ya.tsv" 2 1e-12 "tno --causal-ski blocked vs cumsum"
# the default (auto) takes the blocked sums when n > 2r, the running sums otherwise
expect_ok tno --op ski --causal --n 300 --d 3 --rank 20 --seed "$SEED" --stats "$TMP/st.tsv" -o "$TMP/yc.tsv"
grep -q "blocked-sums" "$TMP/st.tsv" || fail "tno --causal (auto) at n = 300, r = 20: not the blocked sums"
expect_ok tno --op ski --causal --n 40 --d 3 --rank 20 --seed "$SEED" --stats "$TMP/st.tsv" -o "$TMP/yc.tsv"
grep -q "cumulative-sums" "$TMP/st.tsv" || fail "tno --causal (auto) at n = 40, r = 20: not the running sums"

# --- TNO / FD-TNO equal skit toeplitz matvec with their own coefficients ---
random_tsv "$TMP/x.tsv" 50 4 "$SEED"
for op in tno fd; do
  for causal in "" --causal; do
    expect_ok tno --op "$op" $causal --x "$TMP/x.tsv" --rpe-width 8 --seed "$SEED" --coeffs "$TMP/c.tsv" -o "$TMP/y.tsv"
    expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" $causal -o "$TMP/ym.tsv"
    expect_close "$TMP/y.tsv" 2 "$TMP/ym.tsv" 0 1e-12 "tno --op $op $causal vs toeplitz matvec"
  done
done
# the reference (TNN code) layout has 2n rows with a zero filler at row n
expect_ok tno --x "$TMP/x.tsv" --rpe-width 8 --coeffs "$TMP/c2.tsv" --coeff-layout reference -o "$TMP/y.tsv"
rows=$(data_rows "$TMP/c2.tsv" | wc -l)
[ "$rows" -eq 100 ] || fail "reference layout: $rows rows, expected 2n = 100"
filler=$(data_rows "$TMP/c2.tsv" | sed -n 51p | awk -F'\t' '{ s = 0; for (j = 1; j <= NF; j++) s += ($j < 0 ? -$j : $j); print s }')
[ "$filler" = 0 ] || fail "reference layout: filler row n is $filler, expected 0"

# --- .npy and TSV inputs agree; batches split into sequences ---------------
expect_ok tno --n 40 --d 5 --batch 3 --seed "$SEED" -o "$TMP/xb.npy"
expect_ok tno --n 40 --d 5 --batch 3 --seed "$SEED" -o "$TMP/xb.tsv"
for op in tno ski fd; do
  if [ "$op" = ski ]; then extra="--rank 8"; else extra="--rpe-width 8"; fi
  expect_ok tno --op "$op" --x "$TMP/xb.npy" --batch 3 $extra -o "$TMP/z1.tsv"
  # the same data as TSV (sequence and token columns dropped)
  data_rows "$TMP/xb.tsv" 2 > "$TMP/xb_plain.tsv"
  expect_ok tno --op "$op" --x "$TMP/xb_plain.tsv" --batch 3 $extra -o "$TMP/z2.tsv"
  expect_close "$TMP/z2.tsv" 0 "$TMP/z1.tsv" 0 0 "tno --op $op: TSV vs .npy input"
  # sequence 2 alone (rows 81..120)
  sed -n 81,120p "$TMP/xb_plain.tsv" > "$TMP/x2.tsv"
  expect_ok tno --op "$op" --x "$TMP/x2.tsv" $extra -o "$TMP/z3.tsv"
  data_rows "$TMP/z1.tsv" | awk -F'\t' '$1 == 2' | cut -f3- > "$TMP/z1_seq2.tsv"
  data_rows "$TMP/z3.tsv" 2 > "$TMP/z3_plain.tsv"
  paste "$TMP/z1_seq2.tsv" "$TMP/z3_plain.tsv" | awk -F'\t' '{ h = NF / 2; for (j = 1; j <= h; j++) {
    d = $j - $(j + h); if (d < 0) d = -d; if (d > 1e-13 * (1 + ($j < 0 ? -$j : $j))) bad = 1 } } END { exit bad }' ||
    fail "tno --op $op: sequence 2 of a batch differs from running it alone"
done

# --- saved parameters reproduce the output -------------------------------
for op in tno ski fd; do
  expect_ok tno --op "$op" --x "$TMP/x.tsv" --seed 5 --save-params "$TMP/p.npy" -o "$TMP/y1.tsv"
  expect_ok tno --op "$op" --x "$TMP/x.tsv" --seed 6 --params "$TMP/p.npy" -o "$TMP/y2.tsv"
  expect_close "$TMP/y2.tsv" 2 "$TMP/y1.tsv" 2 0 "tno --op $op: --params from --save-params"
done

# --- SKI knots and filter from files are used (d x 2K, d x m) --------------
random_tsv "$TMP/knots.tsv" 4 10 "$((SEED + 1))"
random_tsv "$TMP/filter.tsv" 4 5 "$((SEED + 2))"
expect_ok tno --op ski --x "$TMP/x.tsv" --knot-values "$TMP/knots.tsv" --filter "$TMP/filter.tsv" --rank 10 --verify \
  --stats "$TMP/st.tsv" -o "$TMP/ya.tsv"
grep -q "taps=5 knots=5" "$TMP/st.tsv" || fail "tno --knot-values/--filter: K and m not taken from the files: $(grep operator: "$TMP/st.tsv")"
expect_ok tno --op ski --x "$TMP/x.tsv" --knot-values "$TMP/knots.tsv" --filter "$TMP/filter.tsv" --rank 10 --seed 9 -o "$TMP/yb.tsv"
expect_close "$TMP/yb.tsv" 2 "$TMP/ya.tsv" 2 0 "tno --op ski: loaded knots/filter do not depend on --seed"

# --- causal operators ignore future inputs --------------------------------
awk -F'\t' 'NR > 30 { for (j = 1; j <= NF; j++) $j = $j * 3 + 1 } 1' OFS='\t' "$TMP/x.tsv" > "$TMP/xf.tsv"
for op in tno ski fd; do
  expect_ok tno --op "$op" --causal --x "$TMP/x.tsv" -o "$TMP/c1.tsv"
  expect_ok tno --op "$op" --causal --x "$TMP/xf.tsv" -o "$TMP/c2.tsv"
  head -n 34 "$TMP/c1.tsv" | grep -v '^#' > "$TMP/c1h.tsv"   # header + tokens 0..29
  head -n 34 "$TMP/c2.tsv" | grep -v '^#' > "$TMP/c2h.tsv"
  paste <(tail -n +2 "$TMP/c1h.tsv") <(tail -n +2 "$TMP/c2h.tsv") | awk -F'\t' '{ h = NF / 2; for (j = 3; j <= h; j++) {
    d = $j - $(j + h); if (d < 0) d = -d; if (d > 1e-12) bad = 1 } } END { exit bad }' ||
    fail "tno --op $op --causal: past outputs changed when future inputs changed"
done

# --- --precision f32: float32 products within float32's bound of float64 ----------------
# (|y32 - y64| <= 20 log2(2N) 2^-24 ||C||_2 ||x||_2 per channel, SKI-TNO's growth
# 20 log2(2N) + 2r + 2h + m + 12 (skit/tno.h); relative to max|y| that is far below 1e-4
# at n = 50 for these random operators)
for op in tno fd ski; do
  for c in "" --causal "--causal --causal-ski blocked"; do
    [ "$op" != ski ] && [ -n "${c#--causal}" ] && continue
    expect_ok tno --op $op $c --x "$TMP/x.tsv" --precision f32 -o "$TMP/y32.npy" || continue
    head -c 128 "$TMP/y32.npy" | grep -aq "'descr': '<f4'" && pass || fail "tno --op $op $c --precision f32: not '<f4'"
    expect_ok tno --op $op $c --x "$TMP/y32.npy" --precision f32 -o "$TMP/z32.npy"   # '<f4' in
    expect_ok tno --op $op $c --x "$TMP/x.tsv" --precision f32 -o "$TMP/y32.tsv"
    expect_ok tno --op $op $c --x "$TMP/x.tsv" -o "$TMP/y64.tsv"
    expect_close "$TMP/y32.tsv" 2 "$TMP/y64.tsv" 2 1e-4 "tno --op $op $c --precision f32 vs f64"
  done
done
expect_usage_error "--precision f32" tno --op ski --x "$TMP/x.tsv" --precision f32 --device cuda -o "$TMP/out.npy"
expect_usage_error "--precision f32" tno --x "$TMP/x.tsv" --precision f32 --verify -o "$TMP/out.npy"
expect_usage_error "--precision" tno --x "$TMP/x.tsv" --precision double -o "$TMP/out.npy"
# skit bench precision: every row's float32 error within the documented bound, both plans'
# bytes and their ratio on every row, every family present, the bytes target's note
# (not a timing test; the target itself is reported, not required)
expect_ok bench precision --quick --rounds 1 --quiet -o "$TMP/prec.tsv"
grep -v '^#' "$TMP/prec.tsv" | awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i
    if (!("f64_bytes" in c) || !("f32_bytes" in c) || !("bytes_ratio" in c)) exit 1; next}
  { n++; if ($c["error_over_bound"] != "nan" && !($c["error_over_bound"] <= 1)) bad = 1; if (!($c["max_rel_error"] < 1e-5)) bad = 1
    b64 = $c["f64_bytes"]; b32 = $c["f32_bytes"]; r = $c["bytes_ratio"]
    if (!(b64 > 0 && b32 > 0) || !(r - b32 / b64 < 1e-3 && b32 / b64 - r < 1e-3)) bad = 1
    seen[$c["operator"] " " $c["causality"] " " $c["call"]] = 1 }
  END { exit bad || n != 18 || !seen["ski-plan bidirectional execute"] || !seen["fd-plan bidirectional execute"] ||
    !seen["fd-plan causal execute"] || !seen["attention bidirectional mra2"] || !seen["attention bidirectional exact"] }' ||
  fail "bench precision: rows, families or bytes columns missing, or a float32 error above its bound"
grep -Eq "^# bytes target: every float32 plan <= 0\.55x the float64 plan's bytes: (met|not met) \([0-9]+ of 18 rows; worst [0-9.]+ at [a-z]" \
  "$TMP/prec.tsv" && pass || fail "bench precision: no bytes target note"
expect_usage_error "--shapes" bench precision --shapes 64:4 -o "$TMP/out.tsv"

# --- bad input: one line, exit 2, no output file ---------------------------
printf '1\t2\n3\tnan\n' > "$TMP/nan.tsv"
expect_usage_error "unknown option" tno --n 8 --d 2 --bogus -o "$TMP/out.npy"
expect_usage_error "--op" tno --op attention --n 8 --d 2 -o "$TMP/out.npy"
expect_usage_error "--n" tno --n 0 --d 2 -o "$TMP/out.npy"
expect_usage_error "--d" tno --n 8 --d 0 -o "$TMP/out.npy"
expect_usage_error "--x" tno -o "$TMP/out.npy"
expect_usage_error "--x" tno --x "$TMP/x.tsv" --n 8 --d 2 -o "$TMP/out.npy"
expect_usage_error "--x" tno --x "$TMP/missing.npy" -o "$TMP/out.npy"
expect_usage_error "--x" tno --x "$TMP/nan.tsv" -o "$TMP/out.npy"
expect_usage_error "--decay" tno --n 8 --d 2 --decay 0 -o "$TMP/out.npy"
expect_usage_error "--decay" tno --n 8 --d 2 --decay 1.5 -o "$TMP/out.npy"
expect_usage_error "--decay" tno --op ski --n 8 --d 2 --decay 1 -o "$TMP/out.npy"
expect_usage_error "--rank" tno --op ski --n 8 --d 2 --rank 1 -o "$TMP/out.npy"
expect_usage_error "--rank" tno --op ski --n 8 --d 2 --rank 9 -o "$TMP/out.npy"
expect_usage_error "--rank" tno --op tno --n 8 --d 2 --rank 4 -o "$TMP/out.npy"
expect_usage_error "--taps" tno --op ski --n 8 --d 2 --taps 4 -o "$TMP/out.npy"
expect_usage_error "taps" tno --op ski --n 8 --d 2 --rank 4 --taps 17 -o "$TMP/out.npy"
expect_usage_error "--knots" tno --op ski --n 8 --d 2 --knots 0 -o "$TMP/out.npy"
expect_usage_error "--fft-length" tno --op fd --n 8 --d 2 --fft-length 17 -o "$TMP/out.npy"
expect_usage_error "fft_length" tno --op fd --n 8 --d 2 --fft-length 14 -o "$TMP/out.npy"
expect_usage_error "--fft-length" tno --op tno --n 8 --d 2 --fft-length 16 -o "$TMP/out.npy"
expect_usage_error "--coeffs" tno --op ski --n 8 --d 2 --coeffs "$TMP/out.c.npy" -o "$TMP/out.npy"
expect_usage_error "--params" tno --x "$TMP/x.tsv" --params "$TMP/knots.tsv" -o "$TMP/out.npy"
expect_usage_error "--batch" tno --x "$TMP/x.tsv" --batch 3 -o "$TMP/out.npy"
expect_usage_error "--knot-values" tno --op ski --x "$TMP/x.tsv" --knot-values "$TMP/filter.tsv" -o "$TMP/out.npy"
expect_usage_error "--filter" tno --op ski --x "$TMP/x.tsv" --filter "$TMP/knots.tsv" -o "$TMP/out.npy"
expect_usage_error "--activation" tno --n 8 --d 2 --activation tanh -o "$TMP/out.npy"
expect_usage_error "--rpe-layers" tno --n 8 --d 2 --rpe-layers 65 -o "$TMP/out.npy"
expect_usage_error "-o" tno --n 8 --d 2 -o "$TMP/out.png"
expect_usage_error "-o" tno --n 8 --d 2 -o "$TMP/nodir/out.npy"
expect_usage_error "--stats" tno --n 8 --d 2 --stats "$TMP/out.s.npy" -o "$TMP/out.npy"
expect_usage_error "--plot" tno --n 8 --d 2 --plot "$TMP/out.png" -o "$TMP/out.npy"
expect_usage_error "--n" tno --n 100000000 --d 2 -o "$TMP/out.npy"
expect_usage_error "n*d" tno --n 1000000 --d 1000 -o "$TMP/out.npy"
expect_usage_error "n = 1" tno --op ski --n 1 --d 2 -o "$TMP/out.npy"
expect_usage_error "dense reference" tno --op ski --n 1000000 --d 1 --rank 2 --taps 1 --verify -o "$TMP/out.npy"
expect_usage_error "--causal-ski" tno --op ski --n 8 --d 2 --causal-ski blocked -o "$TMP/out.npy"
expect_usage_error "--causal-ski" tno --op ski --causal --n 8 --d 2 --causal-ski sideways -o "$TMP/out.npy"
expect_usage_error "unexpected argument" tno --n 8 --d 2 extra -o "$TMP/out.npy"

# --- the benchmark ---------------------------------------------------------
expect_ok bench tno --shapes 64:4:2 --sweep 128 --sweep-d 3 --samples 1 --min-time 0.001 --quiet -o "$TMP/b.tsv"
for col in section operator causality forward_s apply_s forward_over_matvec forward_over_tno memory_bytes tno_vs_matvec; do
  head -n 20 "$TMP/b.tsv" | grep -v '^#' | head -1 | tr '\t' '\n' | grep -qx "$col" || fail "bench tno: no column $col"
done
rows=$(data_rows "$TMP/b.tsv" | wc -l)
[ "$rows" -eq 18 ] || fail "bench tno: $rows rows, expected (1 shape + 1 sweep point) x (4 bidirectional + 5 causal operators) = 18"
grep -q '^# target: TNO forward' "$TMP/b.tsv" || fail "bench tno: no target line in the TSV header"
# every float32 forward over FFTW's bare transforms, torch or not: 3 operators x 2 causalities at the shape
[ "$(grep -c "^# floor-row: [a-z]* [a-z]* n=64 d=4 batch=2 float32 threads=1: forward [0-9.e-]* s, .* forward / bare [0-9.]*x" "$TMP/b.tsv")" -eq 6 ] ||
  fail "bench tno: not 6 floor-row lines"
grep -q "^# floor target: every float32 forward (update + execute) <= 1.5x FFTW's bare float r2c + c2r per channel, one thread: \(met\|not met\) ([0-9]* of 6; worst [0-9.]*x)" "$TMP/b.tsv" ||
  fail "bench tno: no floor target line"
# the PyTorch peer: rows beside skit's and the 5x target when torch imports, else a note saying skipped
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  [ "$(grep -c '^# peer: tno causal n=64 d=4 batch=2 float32 threads=1: skit [0-9.e-]* s, PyTorch' "$TMP/b.tsv")" -eq 1 ] ||
    fail "bench tno: no PyTorch peer row for tno causal float32 one thread"
  grep -q '^# target: skit float32 >= 5x the PyTorch float32 peer, one thread: ' "$TMP/b.tsv" ||
    fail "bench tno: no PyTorch target line"
  # beside it, FFTW's bare float transforms at the plan's length (n = 64: 128 = 2n)
  grep '^# peer: tno causal n=64 d=4 batch=2 float32 threads=1: ' "$TMP/b.tsv" |
    grep -q "FFTW's bare r2c + c2r per channel at N = 128 [0-9.e+]*x)" ||
    fail "bench tno: no bare-transform floor beside the tno causal float32 row"
  # SKI-TNO's line is TNO's length at the shape (its own FFTs are r long)
  grep '^# peer: ski .* float32 threads=1: ' "$TMP/b.tsv" | grep -q "FFTW's bare r2c + c2r per channel at N = 128 " ||
    fail "bench tno: no bare-transform floor (TNO's length) beside SKI-TNO"
  grep -q "^# floor: PyTorch float32 forward / FFTW's bare float r2c + c2r per channel .*: [0-9.]*-[0-9.]*x; under 5x, .* at [0-9]* of [0-9]* operator shapes" "$TMP/b.tsv" ||
    fail "bench tno: no bare-transform floor line over the float32 one-thread rows"
else
  grep -q '^# peer: PyTorch peer skipped' "$TMP/b.tsv" || fail "bench tno: torch missing, but no 'skipped' note"
fi
worst=$(grep -v '^#' "$TMP/b.tsv" | awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
  $c["operator"] == "tno" { if ($c["tno_vs_matvec"] > m) m = $c["tno_vs_matvec"] } END { print m + 0 }')
awk -v w="$worst" 'BEGIN { exit !(w <= 1e-12) }' || fail "bench tno: TNO and the matvec differ by $worst"
# the forward floors: matvec + the spectra's transforms (and store) >= matvec, and the RPE on top
# (>=, not >: under the sanitizers skit's matvec slows and the bare FFTW calls do not, and the
# floor prints as 1)
grep -v '^#' "$TMP/b.tsv" | awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
  $c["operator"] == "tno" || ($c["operator"] == "fd" && $c["causality"] == "causal") {
    f = $c["floor_over_matvec"]; r = $c["rpe_floor_over_matvec"]; n++
    if (!(f >= 1 && r >= f)) { print "bad floor " f " / " r " for " $c["operator"] " " $c["causality"]; bad = 1 } }
  END { exit bad || n != 6 }' || fail "bench tno: floor columns missing or inconsistent"
expect_usage_error "--shapes" bench tno --shapes 64:4 -o "$TMP/out.tsv"
expect_usage_error "--shapes" bench tno --shapes 64:0:1 -o "$TMP/out.tsv"
expect_usage_error "--taps" bench tno --taps 4 -o "$TMP/out.tsv"
expect_usage_error "--causality" bench tno --causality sideways -o "$TMP/out.tsv"
expect_usage_error "--decay" bench tno --decay 1 -o "$TMP/out.tsv"
expect_usage_error "unknown option" bench tno --bogus -o "$TMP/out.tsv"

finish
