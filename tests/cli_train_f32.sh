# tests/cli_train_f32.sh — `skit train --precision f32` (tno, fd, ski,
# attention, mra): the float32 model's loss and gradients against the
# float64 model's on the same parameters and batch (--check-gradients, its
# bound derived in train/check.c), causal and masked, odd and prime n
# (mra: multiples of 4); the float32 loss curve tracks the float64 one; a
# float32 checkpoint is float64 .npy that `skit tno --params` loads (tno
# and ski); an mra run trains and saves.
. "$(dirname "$0")/cli_lib.sh"

SEED=${SKIT_TEST_SEED:-$RANDOM}
echo "seed $SEED (set SKIT_TEST_SEED to repeat)"

expect_ok train --help && grep -q -- "--precision" "$TMP/stdout" || fail "train --help lacks --precision"

for m in tno fd ski attention mra mra2s; do
  for obj in causal masked; do
    for n in 13 16; do
      case "$m" in mra*) [ "$n" = 13 ] && continue;; esac # MRA-2, -2-s: blocks of 4
      expect_ok train --check-gradients --precision f32 --mixer "$m" --objective "$obj" --n "$n" --d 6 --batch 2 \
        --vocab 5 --rpe-width 8 --seed "$SEED" || continue
      grep -q "^layer1.mixer" "$TMP/stdout" || fail "$m $obj n=$n: no mixer group compared (seed $SEED)"
    done
  done
  expect_ok train --check-gradients --precision f32 --mixer "$m" --n 12 --d 5 --batch 1 --norm layer --untied \
    --expand 2 --glu 7 --task recall --vocab 4 --objective masked --seed "$SEED"
done
# attention: several heads of odd width, rotary or learned positions
for pos in rope learned; do
  expect_ok train --check-gradients --precision f32 --mixer attention --heads 3 --expand 3 --d 5 --positions "$pos" \
    --objective masked --n 11 --batch 2 --vocab 4 --seed "$SEED"
done
expect_ok train --check-gradients --precision f32 --learn-decay --decay 0.9 --n 17 --d 6 --batch 2 --vocab 5 \
  --rpe-width 8 --seed "$SEED"
grep -q "^layer0.decay_logit" "$TMP/stdout" || fail "--learn-decay f32: no decay_logit group compared (seed $SEED)"

# Loss curves: the first step's loss is the forward on the same parameters
# and batch as --check-gradients', so it agrees within that check's bound
# (its loss row). After K steps: each step's gradient differs by at most
# that relative bound, and to first order the K updates add the
# differences, so the losses (training and validation) agree within K times
# it (+1e-6 at step 1: the log prints six decimals of a loss near 2).
# Not mra: a square whose coarse score crosses another's during training
# may be refined in one precision and not the other, a step in the loss
# that no rounding bound covers.
K=20
for m in tno fd ski attention; do
  for obj in causal masked; do
    common="--mixer $m --objective $obj --n 16 --d 8 --batch 4 --rpe-width 8 --seed $SEED"
    expect_ok train --check-gradients --precision f32 $common || continue
    tol=$(awk -F'\t' '$1 == "loss" {print $3}' "$TMP/stdout")
    for p in f64 f32; do
      expect_ok train --precision "$p" $common --steps "$K" --eval-batches 2 --quiet -o "$TMP/log_$p.tsv"
    done
    awk -F'\t' -v tol="$tol" -v K="$K" -v tag="$m $obj seed $SEED" '
      function rel(a, b) { return (a > b ? a - b : b - a) / b }
      /^#/ || $1 == "step" {next}
      FNR == NR {l64[$1] = $2; v64[$1] = $3; next}
      $1 == 1 && rel($2, l64[1]) > tol + 1e-6 {printf "%s: step 1 loss f32 %s f64 %s beyond %s\n", tag, $2, l64[1], tol; bad = 1}
      $1 == K && rel($2, l64[K]) > K * tol {printf "%s: step %d loss f32 %s f64 %s beyond %g\n", tag, K, $2, l64[K], K * tol; bad = 1}
      $1 == K && rel($3, v64[K]) > K * tol {printf "%s: validation loss f32 %s f64 %s beyond %g\n", tag, $3, v64[K], K * tol; bad = 1}
      END {exit bad}' "$TMP/log_f64.tsv" "$TMP/log_f32.tsv" >&2 && pass || fail "$m $obj: float32 loss curve"
  done
done

# a float32 run's checkpoint: float64 .npy, loaded by skit tno
expect_ok train --precision f32 --steps 3 --n 16 --d 8 --batch 2 --rpe-width 16 --quiet -o /dev/null --save "$TMP/ck"
head -c 64 "$TMP/ck/layer0.glu.w1.npy" | grep -q "'<f8'" || fail "f32 checkpoint: layer0.glu.w1.npy is not <f8"
args=$(sed -n 's/.*load a mixer with: skit tno //p' "$TMP/ck/model.tsv" | sed "s|DIR/layerL|$TMP/ck/layer1|")
[ -n "$args" ] || fail "f32 checkpoint: model.tsv does not say how to load a mixer"
expect_ok tno $args --n 16 -o "$TMP/y.tsv"
expect_ok train --precision f32 --mixer ski --steps 3 --n 16 --d 8 --batch 2 --quiet -o /dev/null --save "$TMP/cs"
args=$(sed -n 's/.*load a mixer with: skit tno //p' "$TMP/cs/model.tsv" | sed "s|DIR/layerL|$TMP/cs/layer1|")
[ -n "$args" ] || fail "f32 ski checkpoint: model.tsv does not say how to load a mixer"
expect_ok tno $args --n 16 -o "$TMP/ys.tsv"

# mra: a float32 run trains (the loss falls) and saves its checkpoint
expect_ok train --precision f32 --mixer mra --objective masked --n 16 --d 8 --batch 4 --steps 30 --quiet \
  -o "$TMP/mra.tsv" --save "$TMP/mra.ck"
awk -F'\t' '/^#/ || $1 == "step" {next} !first {first = $2} {last = $2} END {exit !(last < first)}' \
  "$TMP/mra.tsv" && pass || fail "mra f32: the training loss did not fall (seed $SEED)"
[ -f "$TMP/mra.ck/layer0.mixer.wq.npy" ] && pass || fail "mra f32: no layer0.mixer.wq.npy in the checkpoint"
expect_usage_error "--precision" train --precision f16
finish
