# tests/cli_grad.sh — `skit grad-check`: every op with a backward passes
# causal and bidirectional at an odd, a prime and a power-of-two n, and
# TNO at n = 2048; a deliberately impossible tolerance fails with exit 1;
# MRA-2 at even n; --precision f32 (toeplitz, tno, fd, ski-tno, ski-causal,
# attention, mra2) against the float64 backward with derived per-group
# tolerances; bad options exit 2 with one line. The checker itself: errors
# put into one group's gradient (SKIT_GRADCHECK_INJECT, read by the tool
# for these tests only) must fail at the defaults: one row scaled by
# 1 + 1e-4, one lag shifted, a forgotten transpose; --full checks every
# coordinate.
. "$(dirname "$0")/cli_lib.sh"

SEED=${SKIT_TEST_SEED:-$RANDOM}
echo "seed $SEED (set SKIT_TEST_SEED to repeat)"

expect_ok grad-check --help && grep -q -- --tolerance "$TMP/stdout" || fail "grad-check --help lacks --tolerance"

for op in toeplitz mlp decay tno fd ski-tno ski-causal attention; do
  for n in 1 15 31 64; do
    [ "$n" = 1 ] && [ "${op#ski}" != "$op" ] && continue # SKI needs n >= 2
    for dir in --causal --bidirectional; do
      if expect_ok grad-check --op "$op" --n "$n" --d 3 --seed "$SEED" "$dir" --samples 4 -o "$TMP/g.tsv"; then
        grep -q FAILED "$TMP/g.tsv" && fail "grad-check --op $op --n $n $dir: a group failed (seed $SEED)"
        rows=$(grep -v '^#' "$TMP/g.tsv" | tail -n +2 | wc -l)
        [ "$rows" -ge 2 ] || fail "grad-check --op $op: $rows groups"
      fi
    done
  done
done
for act in silu gelu; do
  expect_ok grad-check --op tno --n 33 --activation "$act" --norm layer --seed "$SEED"
done
# the target size of the issue
expect_ok grad-check --op tno --n 2048 --d 2 --batch 1 --samples 3 --seed "$SEED" --causal
expect_ok grad-check --op toeplitz --n 2048 --d 2 --samples 3 --seed "$SEED"
expect_ok grad-check --op ski-tno --n 2048 --d 2 --batch 1 --samples 3 --seed "$SEED"
expect_ok grad-check --op fd --n 2048 --d 2 --batch 1 --samples 3 --seed "$SEED" --bidirectional

# a tolerance no float64 difference meets: exit 1; the table still reaches
# stdout, while -o FILE is not written (a failed command commits no output)
"$SKIT" grad-check --op toeplitz --n 8 --tolerance 1e-300 > "$TMP/t.tsv" 2>"$TMP/stderr"
rc=$?
if [ $rc -eq 1 ] && grep -q FAILED "$TMP/t.tsv"; then pass; else fail "impossible tolerance: exit $rc"; fi
"$SKIT" grad-check --op toeplitz --n 8 --tolerance 1e-300 -o "$TMP/t2.tsv" 2>"$TMP/stderr"
rc=$?
if [ $rc -eq 1 ] && [ ! -e "$TMP/t2.tsv" ]; then pass; else fail "impossible tolerance with -o: exit $rc"; fi

# float32: every group within its derived tolerance, which must be below 1
# (a bound as large as the group's largest gradient checks nothing; single
# values such as lambda, a sum that may cancel, exempt); ops without a
# float32 backward are refused
for op in toeplitz tno fd ski-tno ski-causal attention; do
  for n in 1 15 31 64; do
    case "$op" in ski-*) [ "$n" -eq 1 ] && n=2 ;; esac # SKI needs r >= 2 tokens
    for dir in --causal --bidirectional; do
      if expect_ok grad-check --op "$op" --precision f32 --n "$n" --d 3 --seed "$SEED" "$dir" -o "$TMP/g.tsv"; then
        grep -q FAILED "$TMP/g.tsv" && fail "grad-check --op $op --precision f32 --n $n $dir: a group failed (seed $SEED)"
        grep -q '^# precision f32' "$TMP/g.tsv" || fail "grad-check --precision f32: no f32 comment line"
        awk -F'\t' '!/^#/ && $1 != "op" && $3 > 1 && !($7 + 0 < 1) {bad = 1} END {exit bad}' "$TMP/g.tsv" ||
          fail "grad-check --op $op --precision f32 --n $n $dir: a tolerance >= 1 (seed $SEED)"
        rows=$(grep -v '^#' "$TMP/g.tsv" | tail -n +2 | wc -l)
        [ "$rows" -ge 2 ] || fail "grad-check --op $op --precision f32: $rows groups"
      fi
    done
  done
done
expect_ok grad-check --op tno --precision f32 --n 33 --activation silu --norm layer --seed "$SEED"
expect_ok grad-check --op fd --precision f32 --n 100 --d 2 --batch 3 --seed "$SEED" --causal
expect_ok grad-check --op ski-tno --precision f32 --n 97 --d 5 --batch 3 --seed "$SEED" --causal
expect_ok grad-check --op ski-causal --precision f32 --n 251 --d 2 --batch 1 --seed "$SEED"
expect_usage_error "rank" grad-check --op ski-tno --precision f32 --n 1
expect_ok grad-check --op attention --precision f32 --n 131 --d 7 --seed "$SEED" --causal
for n in 4 28 64; do
  for dir in --causal --bidirectional; do
    if expect_ok grad-check --op mra2 --precision f32 --n "$n" --d 3 --seed "$SEED" "$dir" -o "$TMP/g.tsv"; then
      grep -q FAILED "$TMP/g.tsv" && fail "grad-check --op mra2 --precision f32 --n $n $dir: a group failed (seed $SEED)"
      awk -F'\t' '!/^#/ && $1 != "op" && !($7 + 0 < 1) {bad = 1} END {exit bad}' "$TMP/g.tsv" ||
        fail "grad-check --op mra2 --precision f32 --n $n $dir: a tolerance >= 1 (seed $SEED)"
    fi
  done
done
expect_usage_error "--n" grad-check --op mra2 --precision f32 --n 9

# expect_caught GROUP [SKIT_GRADCHECK_INJECT-value] skit-args...: exit 1 with GROUP FAILED
expect_caught() {
  local group=$1 inject=$2; shift 2
  SKIT_GRADCHECK_INJECT=$inject "$SKIT" "$@" >"$TMP/c.tsv" 2>"$TMP/stderr"
  local rc=$?
  if [ $rc -eq 1 ] && awk -F'\t' -v g="$group" '$2 == g && $8 == "FAILED" {f = 1} END {exit !f}' "$TMP/c.tsv"; then
    pass
  else
    fail "skit $* with SKIT_GRADCHECK_INJECT=$inject: exit $rc, group $group not failed (seed $SEED)"
  fi
}

# one key row of the attention gradient off by 1e-4 (missed at the old
# defaults on 6 of 6 seeds): caught at every row, in both precisions
for row in 0 1 31 62 63; do
  expect_caught k "scale:k:$row:1e-4" grad-check --op attention --seed "$SEED"
  expect_caught v "scale:v:$row:1e-4" grad-check --op attention --seed "$SEED" --causal
done
# float32 against the float64 backward: a row of at least an eighth of the
# group's largest is measured against itself, at the expected rounding
# (~1e-5 here), far below the derived bounds (1e-4 to 1e-2). Attention's
# v rows on seeds 1 and 2, where these rows are that large: on a random
# seed a key that draws little attention has a small v row, which the
# check compares with an eighth of the largest, by design (so a 1e-4 error
# there went unseen on 5 of 900 row-seed pairs, seeds 1-300)
for row in 1 30 63; do
  for s in 1 2; do
    expect_caught v "scale:v:$row:1e-4" grad-check --op attention --precision f32 --seed "$s"
  done
  expect_caught x "scale:x:$row:1e-4" grad-check --op ski-tno --precision f32 --seed "$SEED"
done
expect_caught x "scale:x:77:1e-4" grad-check --op tno --seed "$SEED"
# float32 TNO and FD-TNO: an entry is measured against at least its sums'
# size / 128, for gradients that cancel far below them; a 1e-4 error in a
# row of the RPE's weights is still caught (seeds 1 and 2; 16-19 of 20
# random seeds, as before that floor), and the cancelling cases that
# failed at the rounding level without it pass
for s in 1 2; do
  for op in "tno" "fd --causal" "fd"; do
    # shellcheck disable=SC2086
    expect_caught rpe.W1 "scale:rpe.W1:5:1e-4" grad-check --op $op --precision f32 --seed "$s"
  done
done
SMALL="--precision f32 --n 7 --d 1 --causal --rpe-width 8 --rpe-layers 1 --activation gelu --norm layer --batch 2"
for c in "tno 16285625664857004447" "fd 17152378631754245407"; do
  # shellcheck disable=SC2086
  if "$SKIT" grad-check --op ${c% *} $SMALL --seed "${c#* }" >"$TMP/g.tsv" 2>"$TMP/stderr"; then pass; else
    fail "f32 ${c% *} at n = 7, seed ${c#* }: a cancelling parameter gradient failed: $(grep FAILED "$TMP/g.tsv" | head -n 2)"
  fi
done
expect_caught rpe.W1 "scale:rpe.W1:5:1e-4" grad-check --op tno --seed "$SEED"
expect_caught knots "scale:knots:3:1e-4" grad-check --op ski-tno --seed "$SEED"
expect_caught x "scale:x:9:1e-4" grad-check --op toeplitz --precision f32 --seed "$SEED"
# one lag of the coefficients' gradient read from its neighbour, one key row likewise
expect_caught coeffs "shift:coeffs:70" grad-check --op toeplitz --seed "$SEED"
expect_caught coeffs "shift:coeffs:100" grad-check --op toeplitz --seed "$SEED" --causal
expect_caught coeffs "shift:coeffs:70" grad-check --op toeplitz --precision f32 --seed "$SEED"
expect_caught k "shift:k:20" grad-check --op attention --seed "$SEED"
expect_caught rpe "shift:rpe:40" grad-check --op decay --seed "$SEED"
# A dy where A^T dy belongs
for op in toeplitz tno fd ski-tno ski-causal; do
  expect_caught x "transpose:x" grad-check --op "$op" --seed "$SEED"
done
expect_caught v "transpose:v" grad-check --op attention --seed "$SEED"
expect_caught v "transpose:v" grad-check --op mra2 --seed "$SEED"
# the injection's own errors
SKIT_GRADCHECK_INJECT=scale:k:64 expect_usage_error "row 64" grad-check --op attention
SKIT_GRADCHECK_INJECT=scale:nonsense expect_usage_error "nonsense" grad-check --op attention
SKIT_GRADCHECK_INJECT=transpose:k expect_usage_error "output's size" grad-check --op tno
SKIT_GRADCHECK_INJECT=transpose:x expect_usage_error "f64" grad-check --op toeplitz --precision f32
SKIT_GRADCHECK_INJECT=rotate:x expect_usage_error "SKIT_GRADCHECK_INJECT" grad-check --op toeplitz

# --full: every coordinate of every group (the gathering "params" apart)
for op in toeplitz attention tno; do
  if expect_ok grad-check --op "$op" --full --n 6 --d 2 --batch 1 --rpe-width 4 --rpe-layers 1 --seed "$SEED" -o "$TMP/f.tsv"; then
    awk -F'\t' '!/^#/ && $1 != "op" && $2 != "params" && $3 != $4 {bad = 1} END {exit bad}' "$TMP/f.tsv" ||
      fail "grad-check --op $op --full: a group not checked at every coordinate"
  fi
done
expect_caught k "scale:k:5:1e-4" grad-check --op attention --full --n 8 --d 2 --seed "$SEED"
expect_usage_error "--full" grad-check --op attention --full --n 1024
expect_usage_error "--full" grad-check --op attention --full --precision f32
expect_usage_error "--blocks" grad-check --op attention --blocks 0

for n in 4 28 64; do
  expect_ok grad-check --op mra2 --n "$n" --d 3 --seed "$SEED" --samples 4
done
expect_usage_error "--n" grad-check --op mra2 --n 7
expect_usage_error "--op" grad-check --op nonsense
expect_usage_error "--op" grad-check --n 8
expect_usage_error "--precision" grad-check --op tno --precision f16
expect_usage_error "--n" grad-check --op tno --n 0
expect_usage_error "--decay" grad-check --op tno --decay 1.5
finish
