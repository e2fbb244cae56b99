#!/usr/bin/env bash
# 55_train_mra2s.sh — MRA §5 (LRA): "in tasks with limited dataset sizes,
# sparsity provides a regularization towards better performance", the
# reason the paper adds MRA-2-s (the finest level alone) beside MRA-2 in
# its LRA tables. Tested at small scale: the same byte-level language
# model trained with MRA-2 and with MRA-2-s as its token mixer (`skit
# train --mixer mra` / `mra2s`: blocks of 8 tokens, half of the squares
# refined by one global top-k), on a corpus small enough to overfit.
# Task: causal byte-level language modelling on the first 16 KiB of the
# licence corpus of 54_tnn_ablations.sh (Debian's common-licenses,
# concatenated by name; its size and sha256 in the notes), the last 10 %
# of those bytes held out for validation (`skit train --task text --text`
# on the truncated copy). Size: chosen from the learning curves of pilot
# runs (n = 64, d = 48, seed 1): on 32 KiB MRA-2's validation loss was
# still falling after 600 steps; on 16 KiB it reached its minimum near
# step 900 and rose after it (1.744 at step 900, 1.787 at 1200, 1.799 at
# 1500 nats per byte), i.e. the model overfits within the run; with the
# schedule over 1200 steps MRA-2's curve turned up in one seed of three,
# so the runs take 2000 steps, well past the minimum. Both mixers are
# trained for the same steps and schedule, three seeds.
# The claim is reproduced on a seed when MRA-2's final validation loss
# exceeds MRA-2-s's by at least GAP % (skit's threshold, as in
# 54_tnn_ablations.sh). Control, under the same rule and seed (as in 54):
# MRA-2-s with a 1 % larger learning rate in MRA-2's place, a change known
# not to order the losses; if it passes as often as the claim, two runs
# that differ in nothing that matters drift as far apart as the claimed
# effect.
# Running time: 9 runs of 2000 steps, each on one thread: 313 s wall for
# the committed run, on 2 cores loaded by other work.
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=MRA

N=$(pick 32 64)
D=$(pick 16 48)
STEPS=$(pick 40 2000)
EVERY=$(pick 20 100)
SEEDS=$(pick "1 2" "1 2 3")
GAP=0.5
BYTES=16384
CORPUS="$DATA/corpus.txt"
SMALL="$DATA/corpus_16k.txt"
MODELS="mra mra2s mra2s-lr"
LR=3e-3
COMMON="--task text --text $SMALL --n $N --d $D --batch 8 --steps $STEPS --eval-every $EVERY"
COMMON="$COMMON --eval-batches 16 --threads 1 --quiet"
describe() {
  case $1 in
    mra) echo "MRA-2: refined squares + coarse block means" ;;
    mra2s) echo "MRA-2-s: the refined squares alone" ;;
    mra2s-lr) echo "MRA-2-s, learning rate 1 % larger (the control)" ;;
  esac
}

licence_corpus "$CORPUS"
[ -s "$SMALL" ] || { head -c "$BYTES" "$CORPUS" > "$SMALL.tmp.$$" && mv "$SMALL.tmp.$$" "$SMALL"; }

# one unit per model and seed: MODEL-SEED
# shellcheck disable=SC2046
units $(for seed in $SEEDS; do for m in $MODELS; do echo "$m-$seed"; done; done)
train_unit() {
  local m=${1%-*} seed=${1##*-}
  local lr=$LR; [ "$m" = mra2s-lr ] && lr=$(control_lr "$LR")
  $SKIT train $COMMON --mixer "${m%-lr}" --lr "$lr" --seed "$seed" -o "$DATA/log_${m}_$seed.tsv"
}
run_units train_unit

T="$DATA/mra2s.tsv"
C="$DATA/curves.tsv"
# best_loss LOG: the lowest validation loss along the run, as the log writes it
best_loss() { awk -F'\t' '!/^#/ && $1 != "step" && $3 != "nan" && (!k++ || $3 + 0 < lo + 0) {lo = $3} END {print (k ? lo : "nan")}' "$1"; }
# shellcheck disable=SC2086
collect_runs model best_val_loss best_loss $MODELS

best_of() { rows "$T" "model=$1 seed=$2" best_val_loss; }
seed_ablation lra-mra2s-small-data mra2s mra "§5: MRA-2-s beside MRA-2 in the LRA tables" \
  "on a small dataset ($BYTES bytes) MRA-2-s reaches a lower validation loss than MRA-2: sparsity regularises" mra2s-lr

series=$(for seed in $SEEDS; do for m in mra mra2s; do printf '%s-%s ' "$m" "$seed"; done; done)
plot train_parity "$C" train_mra2s "series='${series% }'; ttl='byte-level LM on $BYTES bytes: MRA-2 vs MRA-2-s'; ylab='validation loss (nats per byte)'; linear=1"
{
  echo "Byte-level causal language model on the first $BYTES bytes of the Debian licence texts ($(corpus_text "$SMALL");"
  echo "the last 10 % held out), n = $N, d = $D, 2 blocks, RMS norm, batch 8, AdamW lr $LR, warm-up $((STEPS / 10)) steps,"
  echo "cosine decay over $STEPS steps, validation (16 fixed batches) every $EVERY steps. The token mixer is MRA-2 or MRA-2-s"
  echo "(blocks of 8 tokens, half of the squares refined, rotary positions):"
  echo
  echo "| model | mixer | ${SEEDS// / | } |"
  echo "|---|---|$(printf -- '---|%.0s' $SEEDS)"
  for m in $MODELS; do
    line="| $m | $(describe "$m") |"
    for seed in $SEEDS; do line="$line $(printf %.4f "$(val_of "$m" "$seed")") (best $(printf %.4f "$(best_of "$m" "$seed")")) |"; done
    echo "$line"
  done
  echo
  echo "Cells: final validation loss, nats per byte (in brackets the lowest along the run: where it is below the final"
  echo "one the model overfits). The paper's evidence is LRA accuracy of MRA-2-s against MRA-2; the direction of the"
  echo "gap on a dataset small enough to overfit is what is compared here. Learning curves, every seed:"
  echo
} | note
figure train_mra2s
