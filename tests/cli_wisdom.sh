#!/usr/bin/env bash
# cli_wisdom.sh — FFTW planner and wisdom on the CLI: `skit wisdom` writes
# wisdom that a fresh process imports (--wisdom, $SKIT_WISDOM) and plans
# from with --planner wisdom-only; without it wisdom-only fails (exit 1);
# products agree to rounding across planners; bad --planner / --wisdom /
# --plan-seconds and bad `skit wisdom` arguments exit 2 with one line.
. "$(dirname "$0")/cli_lib.sh"

n=48 # Toeplitz n = 48: FFT length 96 (= 2^5 * 3)
awk -v n=$n 'BEGIN { srand(3); for (i = 0; i < 2 * n - 1; i++) printf "%.17g\n", 2 * rand() - 1 }' > "$TMP/c.tsv"
awk -v n=$n 'BEGIN { srand(4); for (i = 0; i < n; i++) printf "%.17g\n", 2 * rand() - 1 }' > "$TMP/x.tsv"
matvec() { "$SKIT" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" "$@"; }

# wisdom for length 96, written atomically (no temporary left beside it)
if expect_ok wisdom -o "$TMP/w.wis" --sizes 96 --planner measure --quiet; then
  head -c 40 "$TMP/w.wis" | grep -q 'fftw_wisdom' || fail "wisdom: $TMP/w.wis is not FFTW wisdom"
  ls "$TMP"/w.wis.tmp* >/dev/null 2>&1 && fail "wisdom: temporary file left behind"
  grep -q '^96	' "$TMP/stdout" || fail "wisdom: no planning time for length 96: $(cat "$TMP/stdout")"
  pass
fi
# a fresh process: wisdom-only plans from the imported wisdom, and only with it
matvec --planner wisdom-only -o "$TMP/none.tsv" 2>"$TMP/stderr"
rc=$?
if [ $rc -eq 1 ] && grep -q 'wisdom' "$TMP/stderr" && [ ! -e "$TMP/none.tsv" ]; then pass
else fail "wisdom-only without wisdom: exit $rc, expected 1 and a message naming wisdom: $(cat "$TMP/stderr")"; fi
cp "$TMP/w.wis" "$TMP/w2.wis"
expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner wisdom-only --wisdom "$TMP/w2.wis" \
  -o "$TMP/y_wisdom.tsv"
SKIT_WISDOM="$TMP/w.wis" expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" \
  --planner wisdom-only -o "$TMP/y_env.tsv"
expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner estimate -o "$TMP/y_est.tsv"
expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner measure -o "$TMP/y_meas.tsv"
# results agree within rounding across planners (normwise, 1e-13 as the FFT tests)
for f in y_wisdom y_env y_meas; do
  d=$(paste <(grep -v '^#' "$TMP/y_est.tsv" | tail -n +2) <(grep -v '^#' "$TMP/$f.tsv" | tail -n +2) |
      awk -F'\t' '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d; a = $1; if (a < 0) a = -a; if (a > s) s = a }
                  END { printf "%.3g", m / s }')
  awk -v d="$d" 'BEGIN { exit !(d <= 1e-13) }' && pass || fail "$f differs from the estimate plan by $d"
done

# float32 plans: the file holds fftwf wisdom after the double's, and a fresh
# process plans a float32 TNO (n = 48: length 96) from it with wisdom-only
grep -q 'fftwf_wisdom' "$TMP/w.wis" && pass || fail "wisdom: no float (fftwf) wisdom in $TMP/w.wis"
expect_ok tno --n $n --d 4 --precision f32 --planner wisdom-only --wisdom "$TMP/w2.wis" -o "$TMP/t32.npy"
if expect_ok wisdom -o "$TMP/w64.wis" --sizes 96 --planner measure --precision f64 --quiet; then
  grep -q '	f32	' "$TMP/stdout" && fail "wisdom --precision f64: a f32 row printed" || pass
fi
"$SKIT" tno --n $n --d 4 --precision f32 --planner wisdom-only --wisdom "$TMP/w64.wis" -o "$TMP/none.npy" 2>"$TMP/stderr"
rc=$?
if [ $rc -eq 1 ] && grep -q 'wisdom' "$TMP/stderr" && [ ! -e "$TMP/none.npy" ]; then pass
else fail "float32 wisdom-only with double wisdom only: exit $rc, expected 1: $(cat "$TMP/stderr")"; fi
expect_usage_error "--precision" wisdom -o "$TMP/out.wis" --sizes 96 --precision half

expect_usage_error "--planner" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner fast -o "$TMP/out.tsv"
printf 'not wisdom\n' > "$TMP/bad.wis"
expect_usage_error "--wisdom" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --wisdom "$TMP/bad.wis" -o "$TMP/out.tsv"
expect_usage_error "--wisdom" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --wisdom /nonexistent/dir/w -o "$TMP/out.tsv"
SKIT_WISDOM="$TMP/bad.wis" expect_usage_error "SKIT_WISDOM" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" -o "$TMP/out.tsv"
expect_usage_error "--plan-seconds" tno --n 16 --d 4 --plan-seconds -1 -o "$TMP/out.tsv"
expect_usage_error "--planner" bench toeplitz --planner none -o "$TMP/out.tsv"
expect_usage_error "-o" wisdom --sizes 96
expect_usage_error "--sizes" wisdom -o "$TMP/out.wis" --sizes 0
expect_usage_error "--planner" wisdom -o "$TMP/out.wis" --planner estimate
expect_usage_error "--planner" wisdom -o "$TMP/out.wis" --planner sometimes
expect_usage_error "-o" wisdom -o /nonexistent/dir/out.wis --sizes 96
[ -e "$TMP/bad.wis" ] && grep -q 'not wisdom' "$TMP/bad.wis" && pass || fail "a bad wisdom file was overwritten"
finish
