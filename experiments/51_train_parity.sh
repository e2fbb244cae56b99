#!/usr/bin/env bash
# 51_train_parity.sh — SKI-TNN Table 1, Figs. 7b, 8, 9 at small scale: TNO,
# FD-TNO, SKI-TNO, exact attention and MRA-2 as the token mixer of the same
# model, trained by `skit train` for equal steps on the order-2 Markov task,
# causal and masked-LM, over seeds; relative validation-loss gaps to TNO
# with their spread. Also skit's own target: on the Markov task with
# known entropy rate H the causal model's validation loss reaches <= 1.05 H
# for every mixer within this budget.
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=SKI-TNN
# No negative control is measured here yet: its empirical claims are
# recorded inconclusive (experiments/common.sh, "Controls").
NO_CONTROL="no control measured"

N=$(pick 32 64)
# 200 steps left SKI-TNO at 1.06 H and the slowest seeds above 1.05 H; at 500
# every causal mixer is within 1.034 H over seeds 1-3 (SKI learns the slowest:
# its knot values start uniform on [-1, 1], a strong random long-range kernel)
STEPS=$(pick 500 600)
SEEDS=$(pick "1" "1 2 3")
# 16 x 8 x N validation tokens: with 4 batches the sampling noise of the
# validation loss was about +-2 % of H, as large as the margin tested
COMMON="--task markov --n $N --d 32 --batch 8 --steps $STEPS --eval-batches $(pick 16 32) --quiet"

# the mixers that train for each objective (the others get an "informative" row)
for obj in causal masked; do
  list=""
  for m in tno fd ski attention mra; do
    if $SKIT train --mixer "$m" --objective "$obj" --steps 1 --n 8 --d 4 --batch 1 --eval-batches 1 --quiet -o /dev/null 2>"$DATA/probe.txt"; then
      list="$list $m"
    else
      check "parity-$obj-$m" "$m trains as the token mixer of the model ($obj)" "$(head -1 "$DATA/probe.txt" | sed 's/^skit train: //')" \
        informative "not in the library"
    fi
  done
  eval "mixers_$obj=\"$list\""
done
mixers=$mixers_masked

# Full run only: masked LM trained longer (the second table, below).
LONG_STEPS=4000
LONG_SEEDS="1 2 3"
# One unit per training: OBJECTIVE-MIXER-SEED, and long-MIXER-SEED for the
# longer masked-LM runs (the order of a whole run).
unit_list() {
  local obj seed m
  for obj in causal masked; do for seed in $SEEDS; do for m in $(eval echo "\$mixers_$obj"); do
    echo "$obj-$m-$seed"
  done; done; done
  if [ "$SKIT_QUICK" != 1 ]; then for seed in $LONG_SEEDS; do for m in $mixers_masked; do echo "long-$m-$seed"; done; done; fi
}
units $(unit_list)
train_unit() {
  local obj m seed
  IFS=- read -r obj m seed <<< "$1"
  if [ "$obj" = long ]; then
    $SKIT train --task markov --n 32 --d 32 --batch 8 --eval-batches 16 --quiet --objective masked --seed "$seed" \
      --steps $LONG_STEPS --eval-every 1000 --lr 3e-3 --mixer "$m" -o "$DATA/log_masked_long_${m}_$seed.tsv"
  else
    $SKIT train $COMMON --mixer "$m" --objective "$obj" --seed "$seed" -o "$DATA/log_${obj}_${m}_$seed.tsv"
  fi
}
run_units train_unit

T="$DATA/parity.tsv"
printf 'objective\tmixer\tseed\tval_loss\tfloor\tchain\n' > "$T"
for obj in causal masked; do for seed in $SEEDS; do for m in $(eval echo "\$mixers_$obj"); do
  log="$DATA/log_${obj}_${m}_$seed.tsv"
  # chain: the true chain's own loss on the same validation tokens (causal: its
  # next-token law; masked: its exact posterior given the visible tokens, the floor)
  chain=$(sed -n 's/.*same validation tokens \([^;]*\);.*/\1/p' "$log")
  sed -n 's/.*floor \([^ ]*\) nats\/token; final validation loss \([^ ]*\) .*/\2\t\1/p' "$log" |
    sed "s/^/$obj\t$m\t$seed\t/; s/\$/\t${chain:-nan}/" >> "$T"
done; done; done

# relative gap to TNO of the same objective and seed: min / mean / max over seeds
gaps() { awk -F'\t' -v o="$1" -v m="$2" 'NR > 1 && $1 == o {v[$2, $3] = $4; s[$3] = 1}
  END {n = 0; for (k in s) {g = v[m, k] / v["tno", k] - 1; t += g; n++; if (n == 1 || g < lo) lo = g; if (n == 1 || g > hi) hi = g}
       printf "%+.2f%% (%+.2f%% .. %+.2f%%)\n", 100 * t / n, 100 * lo, 100 * hi}' "$T"; }
# val_loss / chain over seeds and the mixers given: "lo .. hi"
excess_range() { awk -F'\t' -v o="$1" -v ms=" $2 " 'NR > 1 && $1 == o && index(ms, " " $2 " ") {r = $4 / $6
  if (!k++ || r < lo) lo = r; if (k == 1 || r > hi) hi = r} END {printf "%.2f .. %.2f\n", lo, hi}' "$T"; }
# Every verdict is decided per seed ("k of m" in the stability column):
# parity by |gap to TNO of the same seed| <= 5%, the floor target by val_loss
# / H <= 1.05; the masked floor distance is informative, per seed.
gap_of() { awk -F'\t' -v o="$1" -v m="$2" -v s="$3" 'NR > 1 && $1 == o && $3 == s {v[$2] = $4}
  END {printf "%.4f\n", 100 * (v[m] / v["tno"] - 1)}' "$T"; }
row_ratio() { awk -F'\t' -v o="$1" -v m="$2" -v s="$3" -v col="$4" 'NR > 1 && $1 == o && $2 == m && $3 == s {printf "%.4f\n", $4 / $col}' "$T"; }
for obj in causal masked; do for seed in $SEEDS; do for m in $(eval echo "\$mixers_$obj"); do
  if [ "$m" != tno ]; then
    g=$(gap_of "$obj" "$m" "$seed")
    trial "parity-$obj-$m" "$(verdict_le "${g#-}" 5 reproduced "not reproduced")" "$g"
  fi
  if [ "$obj" = masked ]; then
    trial "masked-floor-$m" informative "$(row_ratio masked "$m" "$seed" 6)"
  else
    r=$(row_ratio causal "$m" "$seed" 5)
    trial "markov-floor-$m" "$(verdict_le "$r" 1.05)" "$r"
  fi
done; done; done
for obj in causal masked; do for m in $(eval echo "\$mixers_$obj"); do
  [ "$m" = tno ] && continue
  claim_trials "parity-$obj-$m" "$m reaches the validation loss of TNO within 5% ($obj, equal steps; SKI-TNN Table 1 reports near parity for FD and SKI)" \
    "gap to TNO, mean (min .. max over seeds $SEEDS): $(gaps "$obj" "$m")" \
    "limit 5% (abs(gap) per seed); val_loss / the chain's own loss: $m $(excess_range "$obj" "$m"), tno $(excess_range "$obj" tno)" \
    "gap to TNO (%) over seeds ${SEEDS// /,}"
done; done
# masked LM: how far each mixer is from the exact floor after these steps
# (the paper compares trained-to-convergence models; far from the floor, a
# gap measures learning speed in the early plateau, not quality)
for m in $mixers_masked; do
  SOURCE=skit claim_trials "masked-floor-$m" "masked-LM $m: validation loss over the exact masked-LM floor (the chain's posterior given the visible tokens) after $STEPS steps" \
    "val_loss / floor over seeds $SEEDS: $(excess_range masked "$m")" "1 = the floor; the causal models are at $(excess_range causal "$mixers_causal")" \
    "val_loss / floor over seeds ${SEEDS// /,}"
done
for m in $mixers_causal; do
  worst=$(awk -F'\t' -v m="$m" '$1 == "causal" && $2 == m {r = $4 / $5; if (r > w) w = r} END {printf "%.4f\n", w}' "$T")
  excess=$(awk -F'\t' -v m="$m" '$1 == "causal" && $2 == m {r = $4 / $6; if (r > w) w = r} END {printf "%.4f\n", w}' "$T")
  SOURCE=skit claim_trials "markov-floor-$m" "causal $m: validation loss <= 1.05 H on the Markov task within $STEPS steps of 8 x $N tokens (skit's own target)" \
    "worst val_loss / H over seeds = $worst (/ the chain's own loss on the same tokens = $excess)" "limit 1.05" \
    "val_loss / H over seeds ${SEEDS// /,}"
done

{
  echo "Same model (d = 32, 2 blocks, GTU + GLU, RMS norm), $STEPS AdamW steps of 8 x $N tokens, lr 1e-2, per mixer;"
  echo "order-2 Markov chain on 8 tokens per seed (causal floor = its entropy rate H; the masked-LM floor is the chain's exact posterior of each masked token given the visible ones, by forward-backward: the \"chain\" column)."
  echo "Attention and MRA-2 (blocks of 8, half of each row's blocks refined; causal: diagonal squares always):"
  echo "single head on the GTU's v, rotary positions (RoPE) on q and k. Validation losses (nats/token):"
  echo
  echo "H is the entropy rate; \"chain\" the true chain's own loss on the same validation tokens (causal: the"
  echo "next-token law; masked: the posterior given the visible tokens), the floor of this sample: a model's"
  echo "loss / chain is its excess free of the sample's noise."
  echo
  echo "| objective | seed | $(echo $mixers | sed 's/ / | /g') | H | chain |"
  echo "|---|---|$(printf -- '---|%.0s' $mixers)---|---|"
  for obj in causal masked; do for seed in $SEEDS; do
    line="| $obj | $seed |"
    for m in $mixers; do line="$line $(rows "$T" "objective=$obj mixer=$m seed=$seed" val_loss | awk '{v = $1} END {if (NR) printf "%.4f", v; else printf "-"}') |"; done
    echo "$line $(rows "$T" "objective=$obj mixer=tno seed=$seed" floor | awk '{printf "%.4f", $1}') | $(rows "$T" "objective=$obj mixer=tno seed=$seed" chain | awk '{printf "%.4f", $1}') |"
  done; done
  echo
} | note

# Full run only: masked LM trained longer. At the steps above every masked
# model is still 1.8-2.8x its floor (tno 2.4x at 500 steps), so the gaps
# above measure learning speed on the early plateau; attention and MRA-2 do
# not leave the unigram plateau at lr 1e-2 in masked LM (they do at 3e-3).
# Here: LONG_STEPS steps at lr 3e-3 for every mixer, seeds 1-3, n = 32.
if [ "$SKIT_QUICK" != 1 ]; then
  L="$DATA/masked_long.tsv"
  printf 'mixer\tseed\tstep\tval_loss\tchain\n' > "$L"
  for seed in $LONG_SEEDS; do for m in $mixers_masked; do
    log="$DATA/log_masked_long_${m}_$seed.tsv"
    chain=$(sed -n 's/.*same validation tokens \([^;]*\);.*/\1/p' "$log")
    awk -F'\t' -v m="$m" -v s="$seed" -v c="$chain" '!/^#/ && $1 != "step" && $3 != "nan" {printf "%s\t%s\t%s\t%s\t%s\n", m, s, $1, $3, c}' "$log" >> "$L"
  done; done
  final() { rows "$L" "mixer=$1 seed=$2 step=$LONG_STEPS" val_loss; }
  to_floor() { awk -v a="$(final "$1" "$2")" -v c="$(rows "$L" "mixer=$1 seed=$2 step=$LONG_STEPS" chain)" 'BEGIN {printf "%.3f", a / c}'; }
  for m in $mixers_masked; do
    [ "$m" = tno ] && continue
    per_seed=""
    for seed in $LONG_SEEDS; do
      gap=$(awk -v a="$(final "$m" "$seed")" -v b="$(final tno "$seed")" 'BEGIN {printf "%+.2f", 100 * (a / b - 1)}')
      trial "parity-masked-long-$m" "$(verdict_le "${gap#[+-]}" 5 reproduced "not reproduced")" "$gap"
      per_seed="$per_seed${per_seed:+; }seed $seed: gap $gap%, val_loss / floor $m $(to_floor "$m" "$seed"), tno $(to_floor tno "$seed")"
    done
    claim_trials "parity-masked-long-$m" "$m reaches the validation loss of TNO within 5% (masked, $LONG_STEPS steps at lr 3e-3; SKI-TNN Table 1)" \
      "$per_seed" "limit 5% (abs(gap) per seed); not converged (floor = 1)" "gap to TNO (%) over seeds ${LONG_SEEDS// /,}"
  done
  {
    echo "Masked LM trained longer ($LONG_STEPS steps, lr 3e-3, n = 32, seeds ${LONG_SEEDS// /,}): validation loss every 1000 steps, and the"
    echo "floor (the chain's posterior given the visible tokens) on the same validation tokens."
    echo
    echo "| mixer | seed | $(seq 1000 1000 $LONG_STEPS | tr '\n' '|' | sed 's/|$//; s/|/ | /g') | floor |"
    echo "|---|---|$(seq 1000 1000 $LONG_STEPS | sed 's/.*/---|/' | tr -d '\n')---|"
    for m in $mixers_masked; do for seed in $LONG_SEEDS; do
      echo "| $m | $seed | $(awk -F'\t' -v m="$m" -v s="$seed" '$1 == m && $2 == s {printf "%s%.4f", sep, $4; sep = " | "; c = $5} END {printf " | %.4f", c}' "$L") |"
    done; done
    echo
  } | note
fi
