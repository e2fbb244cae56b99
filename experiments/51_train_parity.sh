#!/usr/bin/env bash
# 51_train_parity.sh — SKI-TNN Table 1 (FD-TNO and SKI-TNO near parity
# with TNO) as a test that can fail: the same model with each token mixer,
# trained on multi-query associative recall until its validation loss
# converges (`skit train --plateau`), a parity verdict drawn only between
# converged runs, and a negative control judged by the same rule.
#
# Why recall, and why the earlier rows are gone. This experiment used to
# compare the mixers on an order-2 Markov chain (causal and masked LM, equal
# steps). Every mixer, one-head attention included, reached 1.00-1.01 x the
# chain's own loss there: the task needs two tokens of context, so parity
# held for any mixer that sees the previous two tokens and the test could
# not fail; the masked-LM rows compared runs still 1.8-2.8 x their floor
# (learning speed, not quality). Recall puts the answer at long range: 16
# key-value pairs fill the first half of n = 64 tokens, then each query key
# must be answered with its value, up to 60 tokens back. Measured before
# choosing these sizes (one seed, lr 1e-3, 8000 steps): attention (d = 64,
# 4 heads) solves it (validation loss 2.33 at step 2000, 0.024 at 6000,
# 0.0015 at 8000: an induction head's sudden transition) while TNO at the
# same width stays at 2.26 (chance ln 16 = 2.77); at d = 32, one head,
# neither learns in 15 000 steps. So here parity can fail.
#
# Convergence: validation every EVERY steps; a run stops when the best loss
# of its last K evaluations beats the best of all earlier ones by less than
# DELTA nats (PLATEAU = K:DELTA), else it runs to STEPS and is "not
# converged": a pair with an unconverged run gets no parity verdict
# (inconclusive, with its gap). K = 5, DELTA = 0.01 at 250 steps: on the
# sweep's curves this stopped TNO at step 5500 (2.277; 2.262 at 8000) and
# attention at 7500 (0.0018), and not on attention's long plateau at about
# 2.3 before its transition (K = 3, or DELTA = 0.02 at K = 4, did stop it
# there). Seeds 2 and 3 of the committed run did stop there all the same
# (the notes say so): no rule on one learning curve tells a plateau before
# a sudden transition from convergence; a longer window costs steps on
# every run. What does tell them apart is another seed: a run that stopped
# on the plateau more than STALL nats above the best loss another seed of
# the same mixer reached has stalled there, since that loss is not the
# mixer's floor at this width and budget, and its pairs are inconclusive
# like unconverged ones. The rule only sees a stall that some seed got past
# (three seeds that all stall look converged), and STALL is skit's own:
# far above the spread of converged seeds (0.04 nats for TNO, FD-TNO and
# SKI-TNO here) and far below the drop of a transition (2.2 nats to 0).
#
# The control: no token mixing — TNO with decay 1e-9, so every lag >= 1 is
# weighted by at most 1e-9 and each position sees only its own token. It
# cannot recall (its loss stays near chance), so "within 5 % of TNO" must
# come out "not reproduced" for it; it is judged by the same code, rule and
# threshold as FD-TNO and SKI-TNO, and needs to converge like them.
#
# Sizes (full run): 6 mixers x 3 seeds, at most 8000 steps of 8 x 64
# tokens each, one thread: 57 minutes wall for the committed run, on 2
# cores loaded by other work (26 minutes on quiet cores before MRA-2 was
# added; each run 16-27 ms per step; most stop on the plateau before 8000). --quick: n = 16,
# d = 16, at most 400 steps, seed 1 (seconds; its verdicts say little).
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=SKI-TNN

N=$(pick 16 64)
D=$(pick 16 64)
STEPS=$(pick 400 8000)
EVERY=$(pick 50 250)
PLATEAU=$(pick 3:0.02 5:0.01)
SEEDS=$(pick "1" "1 2 3")
LIMIT=5             # parity: abs(val_loss / TNO's - 1) <= 5 %
STALL=0.5           # a plateau > 0.5 nats above another seed's best: stalled
SOLVED=0.05         # skit's check: recall solved at <= 0.05 nats per query
CONTROL_DECAY=1e-9
PAIRS=$((N / 4 < 16 ? N / 4 : 16)) # skit train's recall: min(n / 4, 16 keys) pairs
MIXERS="attention mra tno fd ski none"
COMMON="--task recall --n $N --d $D --batch 8 --lr 1e-3 --steps $STEPS --eval-every $EVERY --plateau $PLATEAU"
COMMON="$COMMON --eval-batches 16 --threads 1 --quiet"
mixer_options() {
  case $1 in
    attention) echo "--mixer attention --heads 4" ;;
    none) echo "--mixer tno --decay $CONTROL_DECAY" ;;
    *) echo "--mixer $1" ;;
  esac
}

# One unit per training: MIXER-SEED.
# shellcheck disable=SC2046
units $(for seed in $SEEDS; do for m in $MIXERS; do echo "$m-$seed"; done; done)
train_unit() {
  local m=${1%-*} seed=${1##*-}
  # shellcheck disable=SC2046
  $SKIT train $COMMON $(mixer_options "$m") --seed "$seed" -o "$DATA/log_${m}_$seed.tsv"
}
run_units train_unit

T="$DATA/parity.tsv"
C="$DATA/curves.tsv"
# run_end LOG: "steps<tab>stop" (plateau or steps) of a run
run_end() { sed -n 's/^# steps taken \([0-9]*\) of [0-9]*; stop \([a-z]*\) .*/\1\t\2/p' "$1"; }
# shellcheck disable=SC2086
collect_runs mixer $'steps\tstop' run_end $MIXERS

val_of() { rows "$T" "mixer=$1 seed=$2" val_loss; }
stop_of() { rows "$T" "mixer=$1 seed=$2" stop; }
steps_of() { rows "$T" "mixer=$1 seed=$2" steps; }
gap_of() { awk -v a="$(val_of "$1" "$2")" -v b="$(val_of tno "$2")" 'BEGIN {printf "%+.2f\n", 100 * (a / b - 1)}'; }
# best_of MIXER: the lowest final validation loss of MIXER over the seeds
best_of() { awk -F'\t' -v m="$1" 'NR > 1 && $1 == m {if (!k++ || $3 < b) b = $3} END {print b}' "$T"; }
# stalled MIXER SEED: the run stopped on the plateau more than STALL nats
# above the best loss another seed of MIXER reached
stalled() {
  [ "$(stop_of "$1" "$2")" = plateau ] &&
    awk -v v="$(val_of "$1" "$2")" -v b="$(best_of "$1")" -v s="$STALL" 'BEGIN {exit !(v - b > s)}'
}
# converged MIXER SEED: stopped on the plateau, and not stalled there
converged() { [ "$(stop_of "$1" "$2")" = plateau ] && ! stalled "$1" "$2"; }
# parity_trial ID MIXER SEED: |gap to TNO| <= LIMIT % between two converged
# runs; a pair with a run that hit --steps or stalled is inconclusive
parity_trial() {
  local g; g=$(gap_of "$2" "$3")
  if converged "$2" "$3" && converged tno "$3"; then
    trial "$1" "$(verdict_le "${g#[+-]}" "$LIMIT" reproduced "not reproduced")" "$g"
  else
    trial "$1" inconclusive "$g"
  fi
}
# run_text MIXER SEED: "2.2766 (converged at step 5500)" or "... (not converged in 8000 steps)"
run_text() {
  local how="not converged in %s steps"
  if stalled "$1" "$2"; then how="stalled at step %s, $(printf %.4f "$(best_of "$1")") on another seed"
  elif converged "$1" "$2"; then how="converged at step %s"; fi
  # shellcheck disable=SC2059
  printf "%.4f ($how)" "$(val_of "$1" "$2")" "$(steps_of "$1" "$2")"
}
CONTROL_WHAT="no token mixing (TNO, decay $CONTROL_DECAY: lags >= 1 weighted <= 1e-9) against TNO, same rule"
for m in fd ski attention mra; do
  measured=""
  for seed in $SEEDS; do
    parity_trial "parity-$m" "$m" "$seed"
    parity_trial "parity-$m.control" none "$seed"
    measured="$measured${measured:+; }seed $seed: $m $(run_text "$m" "$seed"), tno $(run_text tno "$seed"), gap $(gap_of "$m" "$seed")%"
  done
  control_trials "parity-$m" "$CONTROL_WHAT" "gap to TNO (%) over seeds ${SEEDS// /,}"
  text="$m reaches TNO's validation loss within $LIMIT% on associative recall (n = $N, $PAIRS pairs), both trained to a plateau"
  margin="limit $LIMIT% (abs(gap) per seed, converged pairs only; a pair that hit --steps or stalled (> $STALL nats above another seed's best, skit's rule) is inconclusive); --plateau $PLATEAU every $EVERY steps, at most $STEPS; chance ln 16 = 2.77"
  if [ "$m" = attention ] || [ "$m" = mra ]; then
    SOURCE=skit claim_trials "parity-$m" "$text (skit's own row: SKI-TNN Table 1 has no $m model)" "$measured" \
      "$margin" "gap to TNO (%) over seeds ${SEEDS// /,}"
  else
    claim_trials "parity-$m" "$text (SKI-TNN Table 1 reports near parity)" "$measured" "$margin" \
      "gap to TNO (%) over seeds ${SEEDS// /,}"
  fi
done

# skit's own check that the task is solvable at this width and budget (the
# floor the others are measured from): attention reaches <= SOLVED nats per
# query; the no-mixing model, by the same rule, must not
solved_trial() {
  local v; v=$(val_of "$2" "$3")
  trial "$1" "$(verdict_le "$v" "$SOLVED" reproduced "not reproduced")" "$v"
}
measured=""
for seed in $SEEDS; do
  solved_trial recall-solvable attention "$seed"
  solved_trial recall-solvable.control none "$seed"
  measured="$measured${measured:+; }seed $seed: attention $(run_text attention "$seed"), no mixing $(run_text none "$seed")"
done
control_trials recall-solvable "no token mixing (TNO, decay $CONTROL_DECAY), same rule" "final validation loss over seeds ${SEEDS// /,}"
SOURCE=skit claim_trials recall-solvable "attention (4 heads, d = $D) solves associative recall within $STEPS steps: validation loss <= $SOLVED nats per query" \
  "$measured" "limit $SOLVED (chance ln 16 = 2.77); the others' distance from this floor is their val_loss" \
  "final validation loss over seeds ${SEEDS// /,}"

first=${SEEDS%% *}
series=$(for m in $MIXERS; do printf '%s-%s ' "$m" "$first"; done)
plot train_parity "$C" train_parity "series='${series% }'; chance=log(16)"
{
  echo "Multi-query associative recall: 16 keys, 16 values, n = $N ($PAIRS pairs, then queries; the loss is on the"
  echo "queries' answers, chance ln 16 = 2.77 nats; floor 0). Same model for every mixer: d = $D, 2 blocks, GTU + GLU,"
  echo "RMS norm, batch 8, AdamW lr 1e-3, warm-up $((STEPS / 10)) steps then cosine decay over $STEPS steps; validation"
  echo "(16 fixed batches) every $EVERY steps; stopped on \`--plateau $PLATEAU\` (the best validation loss of the last"
  echo "K evaluations beats the best before them by less than DELTA nats) or at $STEPS steps. attention: 4 heads,"
  echo "rotary positions; mra: MRA-2 attention (one head, rotary positions, the library's default blocks);"
  echo "none: TNO with decay $CONTROL_DECAY (no token mixing), the negative control."
  echo
  echo "| seed | ${MIXERS// / | } |"
  echo "|---|$(printf -- '---|%.0s' $MIXERS)"
  for seed in $SEEDS; do
    line="| $seed |"
    for m in $MIXERS; do line="$line $(run_text "$m" "$seed") |"; done
    echo "$line"
  done
  echo
  range=$(awk -F'\t' 'NR > 1 && ($1 == "tno" || $1 == "fd" || $1 == "ski") {if (!k++ || $3 < lo) lo = $3; if ($3 > hi) hi = $3}
    END {printf "%.2f-%.2f", lo, hi}' "$T")
  solved=$(awk -F'\t' -v l="$SOLVED" 'NR > 1 && $1 == "attention" && $3 <= l {k++} END {print k + 0}' "$T")
  echo "Each cell: final validation loss (nats per query), and whether the run converged by the rule. TNO, FD-TNO"
  echo "and SKI-TNO end at $range nats: below the no-mixing control (they use some context: presumably a query"
  echo "repeated earlier among the queries), far above the floor, so parity here is between models that recall"
  echo "few answers. Attention solved the task on $solved of $(echo $SEEDS | wc -w) seeds. A plateau is convergence by the"
  echo "rule, not proof that more steps would not help: attention's own curve stays near 2.3, TNO's level, for"
  echo "thousands of steps before its transition, and the rule on one curve (--plateau $PLATEAU, evaluations every"
  echo "$EVERY steps) stops it there. So a run that stopped on the plateau more than $STALL nats above the best loss"
  echo "another seed of the same mixer reached is marked stalled (that loss is not the mixer's floor) and its pairs"
  echo "are inconclusive, like a run that hit --steps; the other seeds' curves are the only evidence the rule has,"
  echo "so three seeds stalled alike would still read as converged. Learning curves, seed $first:"
  echo
} | note
figure train_parity
