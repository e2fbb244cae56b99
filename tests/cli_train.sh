# tests/cli_train.sh — `skit train`: the whole model's gradient (every
# parameter group) against central finite differences on tiny models, for
# each mixer with a library backward and the Toeplitz mixer, causal and
# masked-LM, at odd and prime n; the same seed gives the same parameters bit for bit with 1 and 2
# threads; a checkpoint's mixer loads in `skit tno --params`; mixers
# without a backward and bad options exit 2 with one line; --plateau stops
# an easy run at the first evaluation where its rule holds.
. "$(dirname "$0")/cli_lib.sh"

SEED=${SKIT_TEST_SEED:-$RANDOM}
echo "seed $SEED (set SKIT_TEST_SEED to repeat)"

expect_ok train --help && grep -q -- --check-gradients "$TMP/stdout" || fail "train --help lacks --check-gradients"

mixers=""
for m in tno fd ski attention mra mra2s toeplitz; do
  if "$SKIT" train --mixer "$m" --objective masked --steps 1 --n 8 --d 4 --batch 1 --eval-batches 1 --quiet -o /dev/null 2>/dev/null; then
    mixers="$mixers $m"
  fi
done
echo "mixers with a backward:$mixers"
case "$mixers" in *tno*) ;; *) fail "tno has no backward";; esac
for m in $mixers; do
  for n in 13 16; do
    for obj in causal masked; do
      case "$m" in mra*) [ "$n" = 13 ] && continue;; esac # MRA-2, -2-s: blocks of 4
      act=silu; [ "$n" = 13 ] && act=relu
      expect_ok train --check-gradients --mixer "$m" --objective "$obj" --n "$n" --d 6 --batch 2 --layers 2 \
        --vocab 5 --rpe-width 8 --activation "$act" --seed "$SEED"
    done
  done
  expect_ok train --check-gradients --mixer "$m" --n 12 --d 5 --batch 1 --norm layer --untied --expand 2 \
    --glu 7 --task recall --vocab 4 --objective masked --activation silu --seed "$SEED"
done
# ReLU RPEs (n = 13 above) have kinks that central differences straddle;
# the check's ladder (cli/fdiff.c's rule, 8 steps down from 1e-3 |p|)
# reaches below them: 0 of 234 ReLU runs failed, 2 with 5 steps
expect_ok train --check-gradients --task copy --n 17 --d 4 --batch 2 --activation silu --seed "$SEED"
expect_ok train --check-gradients --task text --n 9 --d 4 --batch 2 --layers 1 --activation silu --seed "$SEED"

# determinism: same seed, same parameters bit for bit, 1 and 2 threads
for m in $mixers; do
  for t in 1 2; do
    expect_ok train --mixer "$m" --objective masked --steps 5 --n 16 --d 8 --batch 2 --threads "$t" --seed "$SEED" --quiet \
      -o "$TMP/log$t.tsv" --save "$TMP/ck_${m}_$t"
  done
  for f in "$TMP/ck_${m}_1"/*.npy; do
    cmp -s "$f" "$TMP/ck_${m}_2/$(basename "$f")" || fail "$m: $(basename "$f") differs between 1 and 2 threads"
  done
  pass
done

# a trained mixer loads where skit tno reads parameters
expect_ok train --steps 3 --n 16 --d 8 --batch 2 --rpe-width 16 --quiet -o /dev/null --save "$TMP/ck"
args=$(sed -n 's/.*load a mixer with: skit tno //p' "$TMP/ck/model.tsv" | sed "s|DIR/layerL|$TMP/ck/layer1|")
[ -n "$args" ] || fail "model.tsv does not say how to load a mixer"
expect_ok tno $args --n 16 -o "$TMP/y.tsv"

# a learnable decay: its gradient (the loss's w.r.t. theta, lambda = sigmoid(theta))
# against finite differences, causal and masked, odd and prime n; trained, it
# moves, and the checkpoint holds it
for obj in causal masked; do
  for n in 13 16; do
    expect_ok train --check-gradients --mixer tno --learn-decay --decay 0.9 --objective "$obj" --n "$n" --d 6 \
      --batch 2 --vocab 5 --rpe-width 8 --activation silu --seed "$SEED"
    grep -q "^layer1.decay_logit" "$TMP/stdout" || fail "--learn-decay: no decay_logit group checked"
  done
done
expect_ok train --learn-decay --decay 0.9 --steps 20 --n 16 --d 8 --batch 2 --rpe-width 8 --quiet -o "$TMP/ld.tsv" \
  --save "$TMP/ck_ld" --seed "$SEED"
[ -f "$TMP/ck_ld/layer0.decay_logit.npy" ] || fail "--learn-decay: checkpoint lacks layer0.decay_logit.npy"
lambda=$(sed -n 's/.*learned decay lambda: layer0 \([^,]*\),.*/\1/p' "$TMP/ck_ld/model.tsv")
awk -v l="$lambda" 'BEGIN {exit !(l > 0 && l < 1 && l != 0.9)}' || fail "--learn-decay: lambda '$lambda' did not move from 0.9 in (0, 1)"
pass
# several attention heads, rotary (per head) or learned positions, odd head widths
for pos in rope learned; do
  expect_ok train --check-gradients --mixer attention --heads 2 --positions "$pos" --n 13 --d 8 --batch 2 --vocab 5 --seed "$SEED"
  expect_ok train --check-gradients --mixer attention --heads 3 --expand 3 --d 5 --positions "$pos" --objective masked \
    --n 11 --batch 2 --vocab 4 --seed "$SEED"
done
# ALiBi: the gradient with the constant bias, causal and masked, H = 2 (a
# power of two) and 3 (not), float32 against float64; it changes the model
# (another validation loss than rope at the same seed) and evaluates at
# other lengths; other mixers refuse it
for obj in causal masked; do
  expect_ok train --check-gradients --mixer attention --heads 2 --positions alibi --objective "$obj" --n 13 --d 8 \
    --batch 2 --vocab 5 --seed "$SEED"
done
expect_ok train --check-gradients --mixer attention --heads 3 --expand 3 --d 5 --positions alibi --n 11 --batch 2 \
  --vocab 4 --seed "$SEED"
expect_ok train --check-gradients --precision f32 --mixer attention --heads 2 --positions alibi --n 13 --d 8 \
  --batch 2 --vocab 5 --seed "$SEED"
for pos in rope alibi; do
  expect_ok train --mixer attention --heads 2 --positions "$pos" --steps 5 --n 16 --d 8 --batch 2 --eval-batches 2 \
    --seed "$SEED" --quiet -o "$TMP/pos_$pos.tsv" --eval-lengths 8,32 --eval-out "$TMP/posev_$pos.tsv"
done
val_rope=$(grep -v '^#' "$TMP/pos_rope.tsv" | tail -n 1 | cut -f3)
val_alibi=$(grep -v '^#' "$TMP/pos_alibi.tsv" | tail -n 1 | cut -f3)
[ -n "$val_alibi" ] && [ "$val_alibi" != "$val_rope" ] && pass ||
  fail "--positions alibi: validation loss '$val_alibi' against rope's '$val_rope'"
awk -F'\t' '$1 == 8 || $1 == 32 {if ($2 + 0 > 0 && $2 + 0 < 100) ok++} END {exit ok != 2}' "$TMP/posev_alibi.tsv" &&
  pass || fail "--positions alibi --eval-lengths 8,32: $(cat "$TMP/posev_alibi.tsv")"
expect_usage_error "--positions" train --positions alibi --mixer tno
expect_usage_error "--positions" train --positions alibi --mixer mra
# --glu 0: GTU-only blocks: their gradient, float32 against float64, and
# 3 x 2d x d fewer parameters per block (no GLU groups)
for m in tno attention; do
  expect_ok train --check-gradients --glu 0 --mixer "$m" --n 13 --d 6 --batch 2 --vocab 5 --rpe-width 8 \
    --activation silu --seed "$SEED"
  grep -q "glu" "$TMP/stdout" && fail "--glu 0 --mixer $m: a GLU group was checked"
done
expect_ok train --check-gradients --glu 0 --precision f32 --n 13 --d 6 --batch 2 --vocab 5 --seed "$SEED"
for g in 0 64; do
  expect_ok train --glu "$g" --steps 2 --n 16 --d 32 --batch 2 --eval-batches 1 --quiet -o "$TMP/glu$g.tsv"
done
p0=$(sed -n 's/^# parameters \([0-9]*\);.*/\1/p' "$TMP/glu0.tsv")
p64=$(sed -n 's/^# parameters \([0-9]*\);.*/\1/p' "$TMP/glu64.tsv")
[ -n "$p0" ] && [ "$((p64 - p0))" = $((2 * 3 * 64 * 32)) ] && pass ||
  fail "--glu 0: $p0 parameters against --glu 64's $p64 (expected $((2 * 3 * 64 * 32)) fewer)"
expect_usage_error "--glu" train --glu -1
# --mixer toeplitz: its coefficients exist for --n only, in float64
expect_usage_error "--eval-lengths" train --mixer toeplitz --n 64 --eval-lengths 64,128
expect_usage_error "--precision" train --mixer toeplitz --precision f32
expect_ok train --mixer toeplitz --steps 2 --n 16 --d 8 --batch 2 --eval-batches 1 --quiet -o "$TMP/tz.tsv" \
  --eval-lengths 16 --eval-out "$TMP/tz_ev.tsv"
grep -q "^# mixer toeplitz (layerL.coeffs: lags x e, lags 0..n-1); d 8" "$TMP/tz.tsv" && pass ||
  fail "--mixer toeplitz: the log does not describe the mixer: $(grep '^# mixer' "$TMP/tz.tsv")"
# --rpe-input scaled (tno, fd): the plans get the RPE's first weights
# theta / n; a one-unit RPE of 2 channels has few enough entries that the
# check probes its first weight (alone in tno's 6, 1 of fd's 6 or 10) too;
# it changes the model (another validation loss at the same seed) and
# evaluates at other lengths; other mixers refuse it
for m in tno fd; do
  for obj in causal masked; do
    expect_ok train --check-gradients --rpe-input scaled --mixer "$m" --objective "$obj" --rpe-width 1 \
      --rpe-layers 0 --d 2 --n 13 --batch 2 --vocab 5 --activation silu --seed "$SEED"
  done
done
expect_ok train --check-gradients --rpe-input scaled --n 16 --d 6 --batch 2 --vocab 5 --rpe-width 8 --seed "$SEED"
expect_ok train --check-gradients --rpe-input scaled --precision f32 --n 16 --d 6 --batch 2 --vocab 5 --seed "$SEED"
for r in integer scaled; do
  expect_ok train --rpe-input "$r" --steps 5 --n 16 --d 8 --batch 2 --eval-batches 2 --seed "$SEED" --quiet \
    -o "$TMP/rpe_$r.tsv" --eval-lengths 32 --eval-out "$TMP/rpe_ev_$r.tsv"
done
val_integer=$(grep -v '^#' "$TMP/rpe_integer.tsv" | tail -n 1 | cut -f3)
val_scaled=$(grep -v '^#' "$TMP/rpe_scaled.tsv" | tail -n 1 | cut -f3)
[ -n "$val_scaled" ] && [ "$val_scaled" != "$val_integer" ] && pass ||
  fail "--rpe-input scaled: validation loss '$val_scaled' against integer's '$val_integer'"
awk -F'\t' '$1 == 32 && $2 + 0 > 0 && $2 + 0 < 100 {ok = 1} END {exit !ok}' "$TMP/rpe_ev_scaled.tsv" && pass ||
  fail "--rpe-input scaled --eval-lengths 32: $(cat "$TMP/rpe_ev_scaled.tsv")"
for m in ski attention toeplitz; do
  expect_usage_error "--rpe-input" train --rpe-input scaled --mixer "$m"
done
expect_usage_error "--rpe-input" train --rpe-input sideways
expect_usage_error "--heads" train --heads 2 --mixer tno
expect_usage_error "--heads" train --heads 3 --mixer attention --d 32
expect_usage_error "--learn-decay" train --learn-decay --mixer fd
expect_usage_error "--learn-decay" train --learn-decay --decay 1
expect_usage_error "--causal-ski" train --causal-ski blocked --mixer tno
expect_usage_error "--causal-ski" train --causal-ski blocked --mixer ski --objective masked
expect_usage_error "--causal-ski" train --causal-ski sideways --mixer ski

# --plateau: a run on an easy task stops on the plateau long before --steps,
# at the first evaluation where the rule holds (recomputed here from the
# log's validation losses); the log's last row is that step. A rule that
# is never met runs to --steps and says so.
small="--n 16 --d 8 --batch 2 --rpe-width 8 --eval-batches 2 --seed $SEED"
# rule_first LOG K DELTA EVERY: the first evaluation count at which the rule holds (0: none)
rule_first() {
  awk -F'\t' -v K="$2" -v D="$3" -v E="$4" '!/^#/ && $1 != "step" && $1 % E == 0 {v[++n] = $3}
    END {for (j = K + 1; j <= n; j++) {b = 1e300; r = 1e300
           for (i = 1; i <= j; i++) if (i <= j - K) {if (v[i] < b) b = v[i]} else if (v[i] < r) r = v[i]
           if (b - r < D) {print j; exit}}
         print 0}' "$1"
}
expect_ok train $small --steps 3000 --eval-every 20 --plateau 4:0.01 --quiet -o "$TMP/plateau.tsv"
taken=$(sed -n 's/^# steps taken \([0-9]*\) of 3000; stop plateau (--plateau 4:0.01: .*learning rate.*/\1/p' "$TMP/plateau.tsv")
last=$(grep -v '^#' "$TMP/plateau.tsv" | tail -n 1 | cut -f1)
first=$(rule_first "$TMP/plateau.tsv" 4 0.01 20)
[ -n "$taken" ] && [ "$taken" -lt 3000 ] && [ "$last" = "$taken" ] && [ "$((first * 20))" = "$taken" ] && pass ||
  fail "--plateau 4:0.01: steps taken '$taken', last row '$last', rule first met at evaluation $first: $(grep '^# steps' "$TMP/plateau.tsv")"
expect_ok train $small --steps 60 --eval-every 20 --plateau 1000:0.01 --quiet -o "$TMP/plateau.tsv"
grep -q '^# steps taken 60 of 60; stop steps (--plateau 1000:0.01 not met' "$TMP/plateau.tsv" && pass ||
  fail "--plateau not met: $(grep '^# steps' "$TMP/plateau.tsv")"
expect_ok train $small --steps 20 --quiet -o "$TMP/plateau.tsv"
grep -q '^# steps taken 20 of 20; stop steps (no --plateau)' "$TMP/plateau.tsv" && pass ||
  fail "without --plateau: $(grep '^# steps' "$TMP/plateau.tsv")"
expect_usage_error "--eval-every" train --plateau 4:0.01
for bad in 4 0:0.1 1048577:0.1 x:0.1 :0.1 4: 4:-1 4:101 4:nan 4:0.1:2; do
  expect_usage_error "--plateau" train --plateau "$bad" --eval-every 10
done

expect_usage_error "multiple of 4" train --mixer mra --objective masked --n 10
expect_usage_error "multiple of 4" train --mixer mra2s --n 10

# mra2s: MRA-2-s, the finest level alone: at n = 32 (blocks of 8, half of
# them refined) the coarse term MRA-2 adds changes the loss at the same
# seed; the checkpoint records the mixer
for m in mra mra2s; do
  expect_ok train --mixer "$m" --n 32 --d 8 --batch 2 --steps 3 --seed "$SEED" --quiet -o "$TMP/$m.tsv" \
    --save "$TMP/$m.ck"
  grep -q "^mixer	$m\$" "$TMP/$m.ck/model.tsv" && pass || fail "$m: model.tsv does not record mixer $m"
done
cmp -s "$TMP/mra.tsv" "$TMP/mra2s.tsv" && fail "mra2s: the same log as mra (seed $SEED)" || pass
expect_usage_error "--mixer" train --mixer nonsense
expect_usage_error "--steps" train --steps 0
expect_usage_error "--warmup" train --steps 5 --warmup 5
expect_usage_error "--decay" train --decay 1.5
expect_usage_error "--vocab" train --vocab 1
expect_usage_error "--text" train --task text --text /nonexistent/file
expect_usage_error "--save" train --save "$TMP"
expect_usage_error "--nonsense" train --nonsense
finish
