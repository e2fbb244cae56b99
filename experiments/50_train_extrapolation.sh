#!/usr/bin/env bash
# 50_train_extrapolation.sh — TNN Table 10 and Fig. 1 (right), SKI-TNN Fig. 7a:
# a model trained at length n with the decay bias lambda^|t| < 1 keeps its
# validation loss flat when evaluated at up to 16n; without decay
# (lambda = 1) it degrades. Trained here by `skit train` on the order-2
# Markov task (loss floor H known), TNO with lambda in {0.9, 0.95, 0.99,
# 0.999, 1} and FD-TNO (no decay bias), evaluated at 1, 2, 4, 8, 16 x n.
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=TNN

NTRAIN=$(pick 32 64)
STEPS=$(pick 150 600)
D=$(pick 16 32)
LENGTHS=$(for k in 1 2 4 8 16; do printf '%s,' $((k * NTRAIN)); done)
LENGTHS=${LENGTHS%,}
COMMON="--task markov --n $NTRAIN --d $D --batch 8 --steps $STEPS --eval-batches $(pick 2 8) --quiet"

T="$DATA/extrapolation.tsv"
printf 'model\tn\tval_loss\tratio_to_floor\n' > "$T"
models=""
for lam in 0.9 0.95 0.99 0.999 1; do
  $SKIT train $COMMON --mixer tno --decay "$lam" --eval-lengths "$LENGTHS" --eval-out "$DATA/tno_$lam.tsv" -o "$DATA/log_tno_$lam.tsv"
  grep -v '^#' "$DATA/tno_$lam.tsv" | tail -n +2 | sed "s/^/tno-$lam\t/" >> "$T"
  models="$models tno-$lam"
done
$SKIT train $COMMON --mixer fd --eval-lengths "$LENGTHS" --eval-out "$DATA/fd.tsv" -o "$DATA/log_fd.tsv"
grep -v '^#' "$DATA/fd.tsv" | tail -n +2 | sed "s/^/fd\t/" >> "$T"
models="$models fd"
plot train_extrapolation "$T" train_extrapolation "models='${models# }'; ntrain=$NTRAIN"

# growth of the loss from n to 16 n (ratio of the two validation losses)
growth() { awk -F'\t' -v m="$1" -v lo="$NTRAIN" -v hi=$((16 * NTRAIN)) \
  '$1 == m && $2 == lo {a = $3} $1 == m && $2 == hi {b = $3} END {printf "%.4f\n", b / a}' "$T"; }
for lam in 0.9 0.95 0.99 0.999; do
  g=$(growth "tno-$lam")
  claim "extrapolation-decay-$lam" "TNO with decay lambda = $lam trained at n = $NTRAIN keeps its validation loss flat up to 16n (loss(16n)/loss(n) <= 1.05)" \
    "loss(16n)/loss(n) = $g" "$(verdict_le "$g" 1.05 reproduced "not reproduced")" "limit 1.05"
done
g=$(growth "tno-1")
v=$(awk -v g="$g" 'BEGIN {print (g > 1.05) ? "reproduced" : "not reproduced"}')
claim "extrapolation-no-decay" "TNO without decay (lambda = 1) degrades beyond the training length (loss(16n)/loss(n) > 1.05)" \
  "loss(16n)/loss(n) = $g" "$v" "threshold 1.05"
g=$(growth fd)
SOURCE=SKI-TNN claim "extrapolation-fd" "FD-TNO (no decay bias) trained at n = $NTRAIN, evaluated at 16n (SKI-TNN Fig. 7a)" \
  "loss(16n)/loss(n) = $g" informative "flat if <= 1.05"

{
  echo "Models: d = $D, 2 blocks, RPE width 32 x 1 hidden layer (ReLU), $STEPS AdamW steps of 8 x $NTRAIN tokens,"
  echo "order-2 Markov chain on 8 tokens (entropy rate H in the logs). Validation loss / H at n = $LENGTHS:"
  echo
  echo "| model | $(echo "$LENGTHS" | sed 's/,/ | /g') |"
  echo "|---|---|---|---|---|---|"
  for m in $models; do
    echo "| $m | $(awk -F'\t' -v m="$m" '$1 == m {printf "%s%.4f", s, $4; s = " | "}' "$T") |"
  done
  echo
} | note
figure train_extrapolation
