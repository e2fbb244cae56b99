# tests/cli_attention.sh — `skit mra` (all modes) and `skit bench mra`: small
# runs that must succeed with sane numbers, and bad input that must exit 2
# with one line naming the parameter and leave no output file.
. "$(dirname "$0")/cli_lib.sh"

# write_npy FILE ROWS COLS [nan]: a float64 Fortran-order .npy of smooth values
write_npy() {
  perl -e '
    my ($file, $r, $c, $nan) = @ARGV;
    my $h = "{\x27descr\x27: \x27<f8\x27, \x27fortran_order\x27: True, \x27shape\x27: ($r, $c), }";
    my $len = length($h) + 1; my $pad = (64 - (10 + $len) % 64) % 64;
    $h .= " " x $pad . "\n";
    open(my $f, ">:raw", $file) or die;
    print $f "\x93NUMPY\x01\x00" . pack("v", length($h)) . $h;
    for my $j (0 .. $c - 1) { for my $i (0 .. $r - 1) {
      my $v = sin(0.05 * $i * ($j + 1)) + 0.1 * $j;
      $v = 9**9**9 / 9**9**9 if ($nan && $i == 3 && $j == 1);
      print $f pack("d<", $v); } }
    close($f);' "$@"
}

# ---- help ------------------------------------------------------------------------
expect_ok mra --help && grep -q "haar" "$TMP/stdout" || fail "mra --help does not list the modes"
for mode in sweep haar workload bounds frame; do expect_ok mra "$mode" --help; done
# the count of small Haar coefficients depends on the 2-D decomposition: say which
expect_ok mra haar --help && grep -q "non-standard (square-support) decomposition" "$TMP/stdout" ||
  fail "mra haar --help does not name its 2-D Haar decomposition"
expect_ok bench mra --help

# ---- sweep: every method on a small problem ---------------------------------------
all=exact,mra2,mra2s,lowrank,topk,nystrom,linformer,performer,window,bigbird,linformer-fit
if expect_ok mra --n 64 --block 16 --methods $all --budget 0.25,1 --repeat 1 -o "$TMP/sweep.tsv" --quiet; then
  rows=$(grep -vc '^#' "$TMP/sweep.tsv")
  [ "$rows" -eq 22 ] || fail "sweep: $rows lines, expected 1 header + 21 rows"
  # linformer-fit at k = n: E = I, P = S, and F = S^+ S gives exact attention
  awk -F'\t' '/^#/ || $1 == "method" {next}
    $1 == "exact" && $11 != 0 {print "exact error " $11; bad = 1}
    ($1 == "mra2" || $1 == "mra2s" || $1 == "window" || $1 == "lowrank" || $1 == "topk" || $1 == "linformer-fit") && $8 == 1 && $11 > 1e-9 {print $1 " full budget error " $11; bad = 1}
    $11 != $11 + 0 || $11 == "nan" {print $1 " error not a number"; bad = 1}
    END {exit bad}' "$TMP/sweep.tsv" || fail "sweep: unexpected errors"
fi
# the same seed gives the same errors
expect_ok mra --n 64 --block 16 --methods $all --budget 0.25,1 --repeat 1 -o "$TMP/sweep2.tsv" --quiet
cmp -s <(grep -v '^#' "$TMP/sweep.tsv" | cut -f1-11) <(grep -v '^#' "$TMP/sweep2.tsv" | cut -f1-11) ||
  fail "sweep: same seed, different errors"
# entropy targets, multi-level scales, per-row selection, priors, stdout output
expect_ok mra --n 128 --d 16 --block 16 --entropy 2,3 --budget 0.2 --repeat 1 --quiet
awk -F'\t' '/^#/ || $1 == "method" {next} {d = $7 - ($7 > 2.5 ? 3 : 2); if (d > 1e-3 || d < -1e-3) exit 1}' \
  "$TMP/stdout" || fail "--entropy: mean row entropy not at the targets"
expect_ok mra --n 256 --d 16 --scales 64,8,1 --selection row --diagonal-prior 2 --first-block-prior --repeat 1 --quiet
if command -v gnuplot >/dev/null; then
  expect_ok mra --n 64 --block 16 --budget 0.5 --repeat 1 --quiet --plot "$TMP/sweep.png"
  [ -s "$TMP/sweep.png" ] || fail "sweep --plot wrote no figure"
fi

# ---- user Q, K, V from .npy --------------------------------------------------------
write_npy "$TMP/q.npy" 64 8
write_npy "$TMP/k.npy" 64 8
write_npy "$TMP/v.npy" 64 3
write_npy "$TMP/k48.npy" 48 8
write_npy "$TMP/k6.npy" 64 6
write_npy "$TMP/vnan.npy" 64 3 nan
expect_ok mra --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --block 16 --methods exact,mra2 --budget 1 --repeat 1
awk -F'\t' '/^#/ || $1 == "method" {next} $2 != 64 || $4 != 3 || $11 > 1e-9 {exit 1}' "$TMP/stdout" ||
  fail "npy inputs: wrong shape or error"
expect_ok mra bounds --q "$TMP/q.npy" --k "$TMP/k.npy" --block 16
# float32 (exact, mra2 at the full budget: exact attention): errors of a few
# float32 roundings against float64 exact (the derived per-entry bounds are
# checked in tests/test_attention.c), not 0, and --y-out '<f4'
expect_ok mra --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --block 16 --methods exact --repeat 1 \
  --precision f32 --y-out "$TMP/y32.npy"
grep -q "precision: float32" "$TMP/stdout" || fail "--precision f32: the table does not say so"
head -c 64 "$TMP/y32.npy" | grep -q "'<f4'" || fail "--precision f32: --y-out is not '<f4'"
expect_ok mra --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --block 16 --methods exact,mra2 --budget 1 \
  --repeat 1 --precision f32
awk -F'\t' '/^#/ || $1 == "method" {next} {rows++} $2 != 64 || $11 == 0 || $11 > 1e-4 {exit 1}
  END {exit rows != 2}' "$TMP/stdout" || fail "--precision f32: error not of float32 size"
expect_ok mra --n 256 --d 16 --block 16 --methods mra2,mra2s --budget 0.25 --mask causal --pad 7 --repeat 1 \
  --precision f32 --quiet
expect_ok mra --n 512 --d 16 --scales 64,1 --methods mra2 --budget 0.25 --repeat 1 --precision f32 --quiet

# ---- the other modes ---------------------------------------------------------------
expect_ok mra haar --n 64 --block 8 --keep 0.1,1 --matrix-out "$TMP/m.tsv" --histogram-out "$TMP/h.tsv"
awk -F'\t' '/^#/ || $1 == "keep" {next} $1 == 1 && ($5 > 1e-9 || $6 > 1e-9 || $7 > 1e-9 || $8 > 1e-9) {exit 1}' \
  "$TMP/stdout" || fail "haar: the whole budget is not exact"
[ "$(grep -vc '^#' "$TMP/m.tsv")" -eq 4097 ] || fail "haar --matrix-out: expected 64^2 rows"
[ -s "$TMP/h.tsv" ] || fail "haar --histogram-out: no file"
expect_ok mra workload --n 64,128 --block 16 --methods lowrank,topk,mra2,mra2s
expect_ok mra bounds --n 128 --block 4,16 --budget 0.1,0.5 --temperature 0.5,2
awk -F'\t' '/^#/ || $1 == "n" {next} $6 + $7 + $8 > 0 || $16 != "yes" {exit 1}' "$TMP/stdout" ||
  fail "bounds: Lemma 4.1 or Proposition 4.5 violated"
expect_ok mra frame --n 4,16 --subsets 5
awk -F'\t' '/^#/ || $1 == "n" {next} $5 > 1e-12 {exit 1}' "$TMP/stdout" || fail "frame: Observation A.1 off"
expect_ok bench mra --max-n 4096 --exact-max-n 4096 --samples 1 --quiet -o "$TMP/bench.tsv"
# exact, mra2, mra2s (and numpy's exact attention, a peer, when numpy is installed)
[ "$(grep -v '^#' "$TMP/bench.tsv" | awk -F'\t' 'NR > 1 && $1 != "numpy_exact"' | wc -l)" -eq 3 ] ||
  fail "bench mra: expected 3 skit rows"

# ---- bad input: exit 2, one line, no output file ---------------------------------------
O="$TMP/out.tsv"
expect_usage_error "multiple" mra --n 100 -o "$O"
expect_usage_error "multiple" mra --n 96 --block 64 -o "$O"
expect_usage_error "--budget" mra --budget 0 -o "$O"
expect_usage_error "--budget" mra --budget 1.5 -o "$O"
expect_usage_error "--budget" mra --budget nan -o "$O"
expect_usage_error "--methods" mra --methods mra2,foo -o "$O"
# linformer-fit: no causal, float32 or GPU form; its fit forms the n x n matrix
expect_usage_error "linformer-fit" mra --methods linformer-fit --mask causal -o "$O"
expect_usage_error "linformer-fit" mra --methods linformer-fit --precision f32 -o "$O"
expect_usage_error "linformer-fit" mra --methods linformer-fit --device cuda -o "$O"
expect_usage_error "linformer-fit" mra --methods linformer-fit --n 16384 --d 2 -o "$O"
expect_usage_error "--n" mra --n 0 -o "$O"
expect_usage_error "--n" mra --n abc -o "$O"
expect_usage_error "--d" mra --d 0 -o "$O"
expect_usage_error "--block" mra --block 0 -o "$O"
expect_usage_error "--block" mra --block 8,16 -o "$O"
expect_usage_error "--scales" mra --scales 32,6,1 -o "$O"
expect_usage_error "--temperature" mra --temperature 0 -o "$O"
expect_usage_error "--temperature" mra --temperature -1 -o "$O"
expect_usage_error "exclude" mra --temperature 1 --entropy 2 -o "$O"
expect_usage_error "--entropy" mra --n 64 --block 16 --entropy 5 -o "$O"
expect_usage_error "--selection" mra --selection best -o "$O"
expect_usage_error "--repeat" mra --repeat 0 -o "$O"
expect_usage_error "--beta" mra --beta 0 -o "$O"
expect_usage_error "--noise" mra --noise -1 -o "$O"
expect_usage_error "lowrank" mra --n 8192 --methods lowrank -o "$O"
expect_usage_error "does not apply" mra --keep 0.1 -o "$O"
expect_usage_error "does not apply" mra haar --methods mra2 -o "$O"
expect_usage_error "unknown option" mra --bogus -o "$O"
expect_usage_error "unexpected argument" mra sweep extra -o "$O"
expect_usage_error "mode" mra nosuchmode -o "$O"
expect_usage_error "together" mra --q "$TMP/q.npy" -o "$O"
expect_usage_error "together" mra --q "$TMP/q.npy" --k "$TMP/k.npy" -o "$O"
expect_usage_error "row counts" mra --q "$TMP/q.npy" --k "$TMP/k48.npy" --v "$TMP/v.npy" -o "$O"
expect_usage_error "columns" mra --q "$TMP/q.npy" --k "$TMP/k6.npy" --v "$TMP/v.npy" -o "$O"
expect_usage_error "non-finite" mra --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/vnan.npy" -o "$O"
expect_usage_error "v.npy" mra --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/missing/v.npy" -o "$O"
expect_usage_error "multiple" mra --q "$TMP/q.npy" --k "$TMP/k.npy" --v "$TMP/v.npy" --block 48 -o "$O"
expect_usage_error "powers of two" mra haar --n 96 -o "$O"
expect_usage_error "--keep" mra haar --keep 0 -o "$O"
expect_usage_error "--n" mra haar --n 4096 -o "$O"
expect_usage_error "--targets" mra workload --targets 0 -o "$O"
expect_usage_error "--methods" mra workload --methods performer -o "$O"
expect_usage_error "--block" mra bounds --n 100 --block 32 -o "$O"
expect_usage_error "--subsets" mra frame --subsets 0 -o "$O"
expect_usage_error "-o" mra --n 64 --block 16 -o "$TMP/no/such/dir/out.tsv"
expect_usage_error "--plot" mra --n 64 --block 16 --plot "$TMP/out.gif"
expect_usage_error "float64 only" mra --n 64 --block 16 --methods lowrank --precision f32 -o "$O"
expect_usage_error "two levels" mra --n 256 --scales 64,8,1 --methods mra2 --precision f32 -o "$O"
expect_usage_error "--precision" mra --n 64 --block 16 --precision f16 -o "$O"
expect_usage_error "does not apply" mra haar --n 64 --precision f32 -o "$O"
expect_usage_error "--max-n" bench mra --max-n 5000 -o "$O"
expect_usage_error "--blocks-per-row" bench mra --blocks-per-row 0 -o "$O"
expect_usage_error "unknown option" bench mra --bogus -o "$O"
finish
