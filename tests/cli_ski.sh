# tests/cli_ski.sh — `skit ski-bound` and `skit bench ski`: bad input exits 2
# with one line naming the parameter and writes nothing; a small sweep works.
. "$(dirname "$0")/cli_lib.sh"

O="$TMP/out.tsv"
expect_usage_error "--r" ski-bound --n 64 --r 1 -o "$O"
expect_usage_error "r = 128" ski-bound --n 64 --r 8,128 -o "$O"
expect_usage_error "--n" ski-bound --n 1 -o "$O"
expect_usage_error "--degree" ski-bound --interp lagrange --degree 0 -o "$O"
expect_usage_error "--degree" ski-bound --n 64 --r 8 --interp lagrange --degree 8 -o "$O"
expect_usage_error "cubic" ski-bound --n 64 --r 2 --interp cubic -o "$O"
expect_usage_error "--lambda" ski-bound --kernel tnn --lambda 1.5 -o "$O"
expect_usage_error "--lambda" ski-bound --kernel warped-linear --lambda 0 -o "$O"
expect_usage_error "--gamma" ski-bound --interp authors --gamma 1 -o "$O"
expect_usage_error "--interval" ski-bound --interval 5:5 -o "$O"
expect_usage_error "--interval" ski-bound --interval 9:3 -o "$O"
expect_usage_error "--interval" ski-bound --interval abc -o "$O"
expect_usage_error "--lengthscale" ski-bound --lengthscale -2 -o "$O"
expect_usage_error "--lengthscale" ski-bound --lengthscale nan -o "$O"
expect_usage_error "--kernel" ski-bound --kernel bogus -o "$O"
expect_usage_error "--interp" ski-bound --interp quintic -o "$O"
expect_usage_error "--norm" ski-bound --norm frobenius -o "$O"
expect_usage_error "unknown option" ski-bound --bogus -o "$O"
expect_usage_error "--plot" ski-bound --plot "$TMP/out.gif" -o "$O"
expect_usage_error "-o" ski-bound -o "$TMP/no-such-dir/out.tsv"
expect_usage_error "unexpected argument" ski-bound extra -o "$O"

expect_ok ski-bound --help
grep -q "Theorem 1" "$TMP/stdout" || fail "ski-bound --help does not mention Theorem 1"
expect_ok ski-bound --n 48 --r 4,8 --kernel matern52,exp-cosine --interp linear,cubic,lagrange,authors --degree 2 -o "$TMP/sweep.tsv" --quiet
if [ -f "$TMP/sweep.tsv" ]; then
  rows=$(grep -vc '^#' "$TMP/sweep.tsv")
  [ "$rows" -eq 17 ] || fail "ski-bound sweep: $rows lines, expected 16 rows + header"
  grep -q '^# observation points x_i = i' "$TMP/sweep.tsv" || fail "ski-bound: conventions missing from the header"
  awk -F'\t' '!/^#/ && NR > 1 && $3 == "linear" && $52 != 1 {bad = 1} END {exit bad}' "$TMP/sweep.tsv" \
    || fail "ski-bound: the bound does not hold for linear interpolation of Matern / exp-cosine"
else
  fail "ski-bound did not write $TMP/sweep.tsv"
fi
if command -v gnuplot >/dev/null 2>&1; then
  expect_ok ski-bound --n 32,64 --r 8 --kernel gaussian --plot "$TMP/fig.png" --quiet
  [ -s "$TMP/fig.png" ] || fail "ski-bound --plot wrote no figure"
  ls "$TMP"/*.tsv.tmp.* >/dev/null 2>&1 && fail "ski-bound left a temporary file"
fi

# the other studies
expect_usage_error "--study" ski-bound --study bogus -o "$O"
expect_usage_error "--band" ski-bound --study sparse-lowrank --band 4 -o "$O"
expect_usage_error "--band" ski-bound --study sparse-lowrank --n 16 --r 4 --band 41 -o "$O"
expect_usage_error "--band" ski-bound --band 9 -o "$O"
expect_usage_error "--vs" ski-bound --study sparse-lowrank --vs n -o "$O"
expect_usage_error "--n-train" ski-bound --study extrapolation --n-train 4 -o "$O"
expect_usage_error "--factor" ski-bound --study extrapolation --factor 1 -o "$O"
expect_usage_error "--n-train" ski-bound --n-train 64 -o "$O"
expect_usage_error "--curves" ski-bound --study extrapolation --curves "$TMP/no-such-dir/c.tsv" -o "$O"
expect_ok ski-bound --study sparse-lowrank --n 40 --r 4,8 --band 0,5 --kernel gaussian -o "$TMP/sparse.tsv" --quiet
[ "$(grep -vc '^#' "$TMP/sparse.tsv" 2>/dev/null)" = 5 ] || fail "sparse-lowrank: expected 4 rows + header"
expect_ok ski-bound --study extrapolation --n-train 32 --kernel matern52,tnn --rpe-width 8 -o "$TMP/extrap.tsv" --curves "$TMP/curves.tsv" --quiet
[ "$(grep -vc '^#' "$TMP/extrap.tsv" 2>/dev/null)" = 5 ] || fail "extrapolation: expected 4 rows + header"
[ "$(grep -vc '^#' "$TMP/curves.tsv" 2>/dev/null)" = 511 ] || fail "extrapolation: expected 2 x 255 curve rows + header"

expect_usage_error "--r" bench ski --r 1
expect_usage_error "unknown option" bench ski --bogus
expect_ok bench ski --help
finish
