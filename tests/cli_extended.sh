# tests/cli_extended.sh — `skit decay extended` (Theorem 2 in quad
# precision): tables as documented, extended and double agree where double
# is accurate, the valid range reaches past double's floor; bad input gives
# one line, exit 2, no output file.
. "$(dirname "$0")/cli_lib.sh"

expect_ok decay extended --help
expect_usage_error "--fft-size" decay extended --fft-size 15 -o "$TMP/out.tsv"
expect_usage_error "--fft-size" decay extended --fft-size 8 -o "$TMP/out.tsv"
expect_usage_error "--lags" decay extended --fft-size 64 --lags 32 -o "$TMP/out.tsv"
expect_usage_error "--lags" decay extended --lags 0 -o "$TMP/out.tsv"
expect_usage_error "--agree" decay extended --agree 0 -o "$TMP/out.tsv"
expect_usage_error "--activation" decay extended --activation tanh -o "$TMP/out.tsv"
expect_usage_error "--norm" decay extended --norm batch -o "$TMP/out.tsv"
expect_usage_error "--width" decay extended --width 0 -o "$TMP/out.tsv"
expect_usage_error "unknown option" decay extended --bogus -o "$TMP/out.tsv"
expect_usage_error "unexpected argument" decay extended extra -o "$TMP/out.tsv"

# per-lag table: one GeLU layer, width 8, one channel
expect_ok decay extended --layers 0 --width 8 --channels 1 --fft-size 128 --lags 40 -o "$TMP/lags.tsv"
grep -q '^seed	channel	n	abs_k	abs_k_N	rel_diff	abs_k_double	rel_double	rate	rate_window	rate_double	valid$' \
  "$TMP/lags.tsv" || fail "decay extended: header columns"
[ "$(grep -vc '^#' "$TMP/lags.tsv")" -eq 42 ] || fail "decay extended: expected 41 rows n = 0..40"
# at lag 0..5 |k| is >= 1e-8 of the peak: double agrees with extended to
# its rounding (N eps max|k(w)| / |k[n]| <= 1e-6)
awk -F'\t' '!/^#/ && $3 != "n" && $3 <= 5 && $8 > 1e-6 {bad = 1} END {exit bad}' "$TMP/lags.tsv" ||
  fail "decay extended: double and extended disagree at small lags"
# the valid range (N and 2N agree to 1e-8) reaches past where double departs by > 10%
awk -F'\t' '!/^#/ && $3 != "n" { if ($12 == 1) nv = $3; if (!nd && $8 > 0.1) nd = $3 }
  END {exit !(nd > 0 && nv > nd)}' "$TMP/lags.tsv" || fail "decay extended: valid range not past double's floor"

expect_ok decay extended --summary --replicates 2 --layers 0 --width 8 --channels 2 --fft-size 128 --lags 40 \
  -o "$TMP/sum.tsv"
[ "$(grep -vc '^#' "$TMP/sum.tsv")" -eq 5 ] || fail "decay extended --summary: expected 2 seeds x 2 channels"
grep -q 'unit roundoff' "$TMP/sum.tsv" || fail "decay extended: precision not in the header"
finish
