#!/usr/bin/env bash
# 51_train_parity.sh — SKI-TNN Table 1, Figs. 7b, 8, 9 at small scale: TNO,
# FD-TNO, SKI-TNO, exact attention and MRA-2 as the token mixer of the same
# model, trained by `skit train` for equal steps on the order-2 Markov task,
# causal and masked-LM, over seeds; relative validation-loss gaps to TNO
# with their spread. Also the target of issue 16: on the Markov task with
# known entropy rate H the causal model's validation loss reaches <= 1.05 H
# for every mixer within this budget.
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=SKI-TNN

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

T="$DATA/parity.tsv"
printf 'objective\tmixer\tseed\tval_loss\tfloor\tchain\n' > "$T"
for obj in causal masked; do for seed in $SEEDS; do for m in $(eval echo "\$mixers_$obj"); do
  log="$DATA/log_${obj}_${m}_$seed.tsv"
  $SKIT train $COMMON --mixer "$m" --objective "$obj" --seed "$seed" -o "$log"
  # chain: the true chain's own loss on the same validation tokens (causal only)
  chain=$(sed -n 's/.*same validation tokens \([^;]*\);.*/\1/p' "$log")
  sed -n 's/.*floor \([^ ]*\) nats\/token; final validation loss \([^ ]*\) .*/\2\t\1/p' "$log" |
    sed "s/^/$obj\t$m\t$seed\t/; s/\$/\t${chain:-nan}/" >> "$T"
done; done; done

# relative gap to TNO of the same objective and seed: min / mean / max over seeds
gaps() { awk -F'\t' -v o="$1" -v m="$2" 'NR > 1 && $1 == o {v[$2, $3] = $4; s[$3] = 1}
  END {n = 0; for (k in s) {g = v[m, k] / v["tno", k] - 1; t += g; n++; if (n == 1 || g < lo) lo = g; if (n == 1 || g > hi) hi = g}
       printf "%+.2f%% (%+.2f%% .. %+.2f%%)\n", 100 * t / n, 100 * lo, 100 * hi}' "$T"; }
for obj in causal masked; do for m in $(eval echo "\$mixers_$obj"); do
  [ "$m" = tno ] && continue
  claim "parity-$obj-$m" "$m reaches the validation loss of TNO within 5% ($obj, equal steps; SKI-TNN Table 1 reports near parity for FD and SKI)" \
    "gap to TNO, mean (min .. max over seeds $SEEDS): $(gaps "$obj" "$m")" \
    "$(verdict_le "$(gaps "$obj" "$m" | awk '{g = $1; gsub(/[%+]/, "", g); g += 0; print (g < 0 ? -g : g)}')" 5 reproduced "not reproduced")" "limit 5% (|mean gap|)"
done; done
for m in $mixers_causal; do
  worst=$(awk -F'\t' -v m="$m" '$1 == "causal" && $2 == m {r = $4 / $5; if (r > w) w = r} END {printf "%.4f\n", w}' "$T")
  excess=$(awk -F'\t' -v m="$m" '$1 == "causal" && $2 == m {r = $4 / $6; if (r > w) w = r} END {printf "%.4f\n", w}' "$T")
  check "markov-floor-$m" "causal $m: validation loss <= 1.05 H on the Markov task within $STEPS steps of 8 x $N tokens (issue 16 target)" \
    "worst val_loss / H over seeds = $worst (/ the chain's own loss on the same tokens = $excess)" "$(verdict_le "$worst" 1.05)" "limit 1.05"
done

{
  echo "Same model (d = 32, 2 blocks, GTU + GLU, RMS norm), $STEPS AdamW steps of 8 x $N tokens, lr 1e-2, per mixer;"
  echo "order-2 Markov chain on 8 tokens per seed (causal floor = its entropy rate H; masked-LM has a lower, unknown floor)."
  echo "Attention and MRA-2 (blocks of 8, half of each row's blocks refined; causal: diagonal squares always):"
  echo "single head on the GTU's v, rotary positions (RoPE) on q and k. Validation losses (nats/token):"
  echo
  echo "H is the entropy rate; \"chain\" the true chain's own loss on the same validation tokens (causal), the"
  echo "floor of this sample: a model's loss / chain is its excess free of the sample's noise."
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
