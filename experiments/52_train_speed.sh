#!/usr/bin/env bash
# 52_train_speed.sh — SKI-TNN Figs. 1b, 10, 11 and TNN Table 5 at CPU scale:
# the time of one training step (forward + backward + AdamW) of one model
# block (GTU with the mixer + GLU; embedding and a tiny head around it) and
# the model's memory, per token mixer, RPE with 3 and 6 hidden layers, all
# bidirectional (masked LM: the form every mixer, MRA-2 included, has),
# float64, one thread. Claim: FD-TNO and SKI-TNO steps are faster than
# TNO's. No PyTorch peer is run here (see the note).
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=SKI-TNN

N=$(pick 256 2048)
D=$(pick 32 512)
STEPS=$(pick 8 5)
T="$DATA/speed.tsv"
printf 'mixer\trpe_layers\tn\td\tstep_seconds\tmodel_bytes\tpeak_rss_bytes\n' > "$T"
# MRA-2's library backward is a row-by-row reference: over a minute per step at
# the full shape, so it is timed in the quick run only
for cfg in tno:3 tno:6 fd:3 fd:6 ski:0 attention:0 $(pick mra:0 ""); do
  m=${cfg%:*} L=${cfg#*:}
  log="$DATA/log_${m}_$L.tsv"
  $SKIT train --mixer "$m" --rpe-layers "$([ "$L" = 0 ] && echo 3 || echo "$L")" --objective masked --layers 1 \
    --n "$N" --d "$D" --batch 1 --steps "$STEPS" --warmup 1 --eval-batches 1 --threads 1 --quiet -o "$log"
  # min over the steps 2..S-1 (the first touches the memory, the last also validates)
  step=$(awk -F'\t' '/^#/ || $1 == "step" {next} {s[$1] = $7} END {m = 1e300; for (i = 2; i < '"$STEPS"'; i++) if (s[i] - s[i-1] < m) m = s[i] - s[i-1]; printf "%.6f\n", m}' "$log")
  bytes=$(sed -n 's/.*model arenas and plans \([0-9]*\) bytes; peak RSS \([0-9]*\) bytes.*/\1\t\2/p' "$log")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$L" "$N" "$D" "$step" "$bytes" >> "$T"
done
sec() { rows "$T" "mixer=$1 rpe_layers=$2" step_seconds; }
for L in 3 6; do
  r=$(ratio "$(sec tno $L)" "$(sec fd $L)")
  claim "train-step-fd-$L" "an FD-TNO training step is faster than a TNO step (RPE $L layers; SKI-TNN Figs. 10, 11)" \
    "TNO / FD time = $r" "$(verdict_ge "$r" 1 reproduced "not reproduced")" "ratio >= 1"
done
r=$(ratio "$(sec tno 3)" "$(sec ski 0)")
claim "train-step-ski" "a SKI-TNO training step is faster than a TNO step (RPE 3 layers; SKI-TNN Fig. 1b)" \
  "TNO / SKI time = $r" "$(verdict_ge "$r" 1 reproduced "not reproduced")" "ratio >= 1"

{
  echo "One block (GTU + GLU, e = d, GLU 2d) at (n, d, batch) = ($N, $D, 1), float64, 1 thread, min over steps 2..$((STEPS - 1));"
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'). Memory: the model's arenas, plans"
  echo "and workspaces (allocated once, before the first step) and the process's peak RSS."
  echo
  echo "| mixer | RPE layers | step (s) | model bytes | peak RSS bytes |"
  echo "|---|---|---|---|---|"
  awk -F'\t' 'NR > 1 {printf "| %s | %s | %.4g | %s | %s |\n", $1, ($2 == 0 ? "-" : $2), $5, $6, $7}' "$T"
  echo
  [ "$SKIT_QUICK" = 1 ] || echo "MRA-2 is not timed at this shape: its library backward (row by row) took over a minute per step."
  echo "Not done here: the PyTorch CPU peer of the same block, and float32 (the library's backward passes are"
  echo "float64); the issue's target (>= 3x faster than PyTorch at (2048, 512, 1), float32, one thread) is not measured."
  echo
} | note
