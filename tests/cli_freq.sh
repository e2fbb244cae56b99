# tests/cli_freq.sh — `skit hilbert` and `skit decay`: every mode runs and
# writes what it says; bad input gives one line, exit 2, no output file.
. "$(dirname "$0")/cli_lib.sh"

for cmd in hilbert decay; do
  expect_ok help "$cmd"
  expect_ok "$cmd" --help
done

# ---- hilbert ----
expect_usage_error "missing mode" hilbert
expect_usage_error "mode" hilbert nonsense
expect_usage_error "unknown option" hilbert transform --bogus -o "$TMP/out.tsv"
expect_usage_error "-n" hilbert transform -n 1 -o "$TMP/out.tsv"
expect_usage_error "-n" hilbert transform -n abc -o "$TMP/out.tsv"
expect_usage_error "-n" hilbert causal -n 100000 -o "$TMP/out.tsv"
expect_usage_error "--spectrum" hilbert transform --spectrum square -o "$TMP/out.tsv"
expect_usage_error "poisson" hilbert transform --spectrum poisson:1.5 -o "$TMP/out.tsv"
expect_usage_error "poisson" hilbert transform --spectrum poisson:nan -o "$TMP/out.tsv"
expect_usage_error "cos:q" hilbert transform --spectrum cos:8 -n 16 -o "$TMP/out.tsv"
expect_usage_error "mlp" hilbert transform --spectrum mlp:tanh -o "$TMP/out.tsv"
expect_usage_error "--lag-window" hilbert transform --lag-window 0 -o "$TMP/out.tsv"
expect_usage_error "--input" hilbert transform --input "$TMP/missing.tsv" -o "$TMP/out.tsv"
printf '1\n2\nnan\n4\n' > "$TMP/bad.tsv"
expect_usage_error "--input" hilbert transform --input "$TMP/bad.tsv" -o "$TMP/out.tsv"
printf '1\t2\n3\t4\n' > "$TMP/two.tsv"
expect_usage_error "one column" hilbert transform --input "$TMP/two.tsv" -o "$TMP/out.tsv"
printf '# spectrum\nx\n1\n0.5\n0.25\n0.5\n' > "$TMP/even.tsv"
expect_usage_error "--spectrum" hilbert transform --input "$TMP/even.tsv" --spectrum cos -o "$TMP/out.tsv"
expect_usage_error "--input" hilbert sweep --input "$TMP/even.tsv" -o "$TMP/out.tsv"
expect_usage_error "--sizes" hilbert sweep --sizes 2 -o "$TMP/out.tsv"
expect_usage_error "--periods" hilbert sweep --periods 0 -o "$TMP/out.tsv"
expect_usage_error "--plot" hilbert transform --plot "$TMP/out.jpg" -o "$TMP/out.tsv"
expect_usage_error "-o" hilbert transform -o "$TMP/no/such/dir/out.tsv"
expect_usage_error "--seed" hilbert transform --seed -3 -o "$TMP/out.tsv"

expect_ok hilbert transform --spectrum cos:3 -n 32 -o "$TMP/h.tsv"
grep -q 'H{cos w} = sin w' "$TMP/h.tsv" || fail "hilbert transform: no sign convention in the header"
# H{cos 3w} = sin 3w at m = 1: column H_fft (4) equals H_exact (6)
awk -F'\t' '!/^#/ && $1 == 1 {d = $4 - $6; if (d < 0) d = -d; exit !(d < 1e-13)}' "$TMP/h.tsv" || fail "H{cos} != sin"
expect_ok hilbert transform --input "$TMP/even.tsv" -o "$TMP/hf.tsv"
[ "$(grep -vc '^#' "$TMP/hf.tsv")" -eq 5 ] || fail "hilbert --input: expected header + 4 rows"
# the same spectrum as a NumPy file (float64, 1-D)
npy_header="{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }"
pad=$((64 - (10 + ${#npy_header} + 1) % 64))
{ printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#npy_header} + pad + 1) % 256 )))\\x$(printf %02x $(( (${#npy_header} + pad + 1) / 256 )))"
  printf '%s%*s\n' "$npy_header" "$pad" ''
  printf '\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\xe0\x3f'
  printf '\x00\x00\x00\x00\x00\x00\xd0\x3f\x00\x00\x00\x00\x00\x00\xe0\x3f'; } > "$TMP/even.npy"
expect_ok hilbert transform --input "$TMP/even.npy" -o "$TMP/hn.tsv"
cmp -s <(grep -v '^#' "$TMP/hf.tsv") <(grep -v '^#' "$TMP/hn.tsv") || fail "hilbert --input: .npy and TSV disagree"
expect_ok hilbert causal --spectrum poisson:0.5 -n 64 -o "$TMP/c.tsv"
grep -q 'causality residual' "$TMP/c.tsv" || fail "hilbert causal: no residual"
expect_ok hilbert sweep --sizes 16,32 --periods 1,4 -o "$TMP/s.tsv"
[ "$(grep -vc '^#' "$TMP/s.tsv")" -eq 5 ] || fail "hilbert sweep: expected header + 4 rows"
if command -v gnuplot >/dev/null; then
  expect_ok hilbert transform -n 64 --plot "$TMP/h.png"
  [ -s "$TMP/h.png" ] || fail "hilbert --plot without -o wrote no figure"
  expect_ok hilbert sweep --sizes 16,32 -o "$TMP/s2.tsv" --plot "$TMP/s.svg"
  [ -s "$TMP/s.svg" ] || fail "hilbert sweep --plot wrote no figure"
fi

# ---- decay ----
expect_usage_error "missing mode" decay
expect_usage_error "mode" decay curves
expect_usage_error "unknown option" decay summary --bogus -o "$TMP/out.tsv"
expect_usage_error "--activation" decay summary --activation tanh -o "$TMP/out.tsv"
expect_usage_error "--norm" decay summary --norm batch -o "$TMP/out.tsv"
expect_usage_error "--construction" decay summary --construction spiral -o "$TMP/out.tsv"
expect_usage_error "--fft-size" decay summary --fft-size 1001 -o "$TMP/out.tsv"
expect_usage_error "--fft-size" decay summary --fft-size 8 -o "$TMP/out.tsv"
expect_usage_error "--range" decay summary --range 5..3 -o "$TMP/out.tsv"
expect_usage_error "--range" decay summary --range 1..5000 --fft-size 1024 -o "$TMP/out.tsv"
expect_usage_error "--range" decay summary --range 0..10 -o "$TMP/out.tsv"
expect_usage_error "--orders" decay summary --orders 17 -o "$TMP/out.tsv"
expect_usage_error "--width" decay summary --width 0 -o "$TMP/out.tsv"
expect_usage_error "--layers" decay summary --layers 65 -o "$TMP/out.tsv"
expect_usage_error "--floor" decay summary --floor 2 -o "$TMP/out.tsv"
expect_usage_error "--replicates" decay summary --replicates 0 -o "$TMP/out.tsv"
expect_usage_error "--lags" decay impulse --lags 5000 --fft-size 1024 -o "$TMP/out.tsv"
expect_usage_error "--channel" decay bound --channel 4 --channels 4 -o "$TMP/out.tsv"
expect_usage_error "takes one" decay response --activation relu,gelu -o "$TMP/out.tsv"
expect_usage_error "takes one" decay impulse --construction half,full -o "$TMP/out.tsv"
expect_usage_error "--activation" decay prop1 --activation gelu -o "$TMP/out.tsv"
expect_usage_error "--construction" decay prop1 --construction periodic -o "$TMP/out.tsv"
expect_usage_error "--plot" decay summary --plot "$TMP/out.gif" -o "$TMP/out.tsv"

expect_ok decay summary --activation silu --construction half,periodic --fft-size 1024 --nodes 256 \
  --orders 1,2 -o "$TMP/sum.tsv"
[ "$(grep -vc '^#' "$TMP/sum.tsv")" -eq 9 ] || fail "decay summary: expected header + 2 x 4 rows"
grep -q 'half-circle\|half = FD-TNO code' "$TMP/sum.tsv" || fail "decay summary: construction not stated"
head -1 "$TMP/sum.tsv" | grep -q '^# skit' || fail "decay summary: no provenance header"
expect_ok decay response --activation relu --construction full --points 16 -o "$TMP/r.tsv"
[ "$(grep -vc '^#' "$TMP/r.tsv")" -eq 17 ] || fail "decay response: expected header + 16 rows"
grep -q 'construction full' "$TMP/r.tsv" || fail "decay response: construction not stated"
expect_ok decay impulse --channels 64 --lags 3 --fft-size 64 -o "$TMP/wide.tsv"  # widest table
expect_ok decay impulse --lags 8 --fft-size 256 -o "$TMP/i.tsv"
[ "$(grep -vc '^#' "$TMP/i.tsv")" -eq 10 ] || fail "decay impulse: expected header + 9 rows"
expect_ok decay bound --activation silu --construction periodic --fft-size 512 --range 1..20 -o "$TMP/b.tsv"
grep -q '||k^(6)||_1' "$TMP/b.tsv" || fail "decay bound: derivative norms not recorded"
expect_ok decay prop1 --norm none --construction half -o "$TMP/p.tsv"
awk -F'\t' '!/^#/ && $1 == "none" {exit !($7 < 1e-10)}' "$TMP/p.tsv" || fail "prop1: ReLU without norm not piecewise linear"

# same seed, same bytes
expect_ok decay summary --activation gelu --construction periodic --fft-size 512 --nodes 128 --seed 7 -o "$TMP/d1.tsv"
expect_ok decay summary --activation gelu --construction periodic --fft-size 512 --nodes 128 --seed 7 -o "$TMP/d2.tsv"
cmp -s <(grep -v '^# command' "$TMP/d1.tsv") <(grep -v '^# command' "$TMP/d2.tsv") ||
  fail "decay summary: not deterministic for a fixed seed"
expect_ok decay summary --activation gelu --construction periodic --fft-size 512 --nodes 128 --seed 8 -o "$TMP/d3.tsv"
cmp -s <(grep -v '^# command' "$TMP/d1.tsv") <(grep -v '^# command' "$TMP/d3.tsv") &&
  fail "decay summary: --seed has no effect"
if command -v gnuplot >/dev/null; then
  for mode in summary response impulse bound prop1; do
    expect_ok decay "$mode" --fft-size 512 --nodes 128 --range 1..64 -o "$TMP/$mode.tsv" --plot "$TMP/$mode.png"
    [ -s "$TMP/$mode.png" ] || fail "decay $mode --plot wrote no figure"
  done
fi
finish
