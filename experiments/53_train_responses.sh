#!/usr/bin/env bash
# 53_train_responses.sh — SKI-TNN Fig. 6 and its "spiky learned kernels"
# remark at small scale: the decay analysis of `skit decay` on the trained
# ReLU FD-TNO frequency response (loaded with --params from a `skit train`
# checkpoint) beside a random initialisation of the same MLP, and the
# Toeplitz kernels of a trained TNO (`skit tno --params --coeffs`) beside
# random-init ones. The abstract's remark has two halves, both measured:
# spiky near the diagonal (lags 0..2, where this task's signal is) and
# smooth elsewhere (lags >= 3). Controls, each under its claim's test:
# the FD decay test on the same trained MLP in the full construction
# (MLP(w) on [-pi, pi), which decays only like 1/n; the half construction
# forces n^-2 for any weights); the spikiness test on two random
# initialisations (seed s over seed s + 100); the smoothness test on the
# trained kernels with their lags >= 3 shuffled (the same values, no
# smoothness).
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=SKI-TNN

N=$(pick 32 64)
STEPS=$(pick 200 300)
D=32
FFT=$(pick 2048 8192)
B=512
COMMON="--task markov --n $N --d $D --batch 8 --steps $STEPS --eval-batches 4 --quiet --activation relu"
# Training depends on the seed: both verdicts are decided per seed ("k of
# m"); the "measured" text and the note give seed 1 and the spread.
SEEDS="1 2 3"
DEC="--activation relu --norm rms --width 32 --layers 1 --channels $D --construction half --orders 1 --range 1..$B --fft-size $FFT --quiet"
TNO_ARGS="--op tno --causal --d $D --n $N --rpe-width 32 --rpe-layers 1 --activation relu --norm rms --decay 0.99"
med() { column "$1" "$2" | stat median; }
# spikiness = median over channels of max|k| / mean|k| over the causal lags
spiky() { awk -F'\t' -v n="$N" '/^#/ {next} !h {h = 1; next} {r++; if (r >= n) for (c = 1; c <= NF; c++) {a = ($c < 0 ? -$c : $c); s[c] += a; if (a > m[c]) m[c] = a}}
  END {for (c in s) print m[c] / (s[c] / n)}' "$1" | stat median; }
# rough FILE [SHUFFLE_SEED]: roughness away from the diagonal, the median
# over channels of mean |k[t+1] - 2 k[t] + k[t-1]| / mean |k[t] - mean k|
# over the causal lags t >= 3 (the values at lags >= 3 first shuffled with
# awk's generator seeded by SHUFFLE_SEED, if given): sqrt(6) ~ 2.45 for
# independent values (a kernel's constant level does not count), far below
# 1 for a kernel smooth at the scale of one lag
rough() { awk -F'\t' -v n="$N" -v shuffle="${2:-}" '/^#/ {next} !h {h = 1; next}
  {r++; if (r >= n + 3) for (c = 1; c <= NF; c++) k[c, r - n - 3] = $c; cols = NF}
  END {len = n - 3; if (shuffle != "") srand(shuffle)
    for (c = 1; c <= cols; c++) {
      if (shuffle != "") for (i = len - 1; i > 0; i--) {j = int(rand() * (i + 1)); t = k[c, i]; k[c, i] = k[c, j]; k[c, j] = t}
      d2 = 0; a = 0; mean = 0
      for (i = 0; i < len; i++) mean += k[c, i] / len
      for (i = 0; i < len; i++) a += (k[c, i] < mean ? mean - k[c, i] : k[c, i] - mean)
      for (i = 1; i < len - 1; i++) {x = k[c, i + 1] - 2 * k[c, i] + k[c, i - 1]; d2 += (x < 0 ? -x : x)}
      print (a > 0 ? (d2 / (len - 2)) / (a / len) : 0)}}' "$1" | stat median; }
# the thresholds of the two TNO claims are skit's own (the paper gives none)
SPIKY_MIN=1.5
ROUGH_MAX=0.5
# one unit per seed, sSEED: its models and analyses in $DATA/sSEED/
units $(for seed in $SEEDS; do echo "s$seed"; done)
train_seed() {
  local seed=${1#s} S="$DATA/$1"
  rm -rf "$S"; mkdir -p "$S"
  $SKIT train $COMMON --seed "$seed" --mixer fd -o "$S/log_fd.tsv" --save "$S/fd"
  $SKIT train $COMMON --seed "$seed" --mixer tno -o "$S/log_tno.tsv" --save "$S/tno"
  # FD: the response MLP (1 -> d, RPE width 32, 1 hidden layer, RMS norm) trained vs seeded
  $SKIT decay summary $DEC --params "$S/fd/layer0.mixer.npy" -o "$S/decay_trained.tsv"
  $SKIT decay summary $DEC --seed "$seed" -o "$S/decay_init.tsv"
  $SKIT decay summary ${DEC/--construction half/--construction full} --params "$S/fd/layer0.mixer.npy" \
    -o "$S/decay_full.tsv"
  # TNO: kernels k_c(t), t = 0..n-1 (causal), trained vs seeded
  $SKIT tno $TNO_ARGS --params "$S/tno/layer0.mixer.npy" --coeffs "$S/k_trained.tsv" -o "$S/y.tsv" --quiet
  $SKIT tno $TNO_ARGS --seed "$seed" --coeffs "$S/k_init.tsv" -o "$S/y.tsv" --quiet
  $SKIT tno $TNO_ARGS --seed "$((seed + 100))" --coeffs "$S/k_init_other.tsv" -o "$S/y.tsv" --quiet
}
run_units train_seed
for seed in $SEEDS; do
  S="$DATA/s$seed"
  w=$(colmax "$S/decay_trained.tsv" tail_end)
  trial trained-fd-decay "$(verdict_le "$w" 1e-2 reproduced "not reproduced")" "$w"
  w=$(colmax "$S/decay_full.tsv" tail_end)
  trial trained-fd-decay.control "$(verdict_le "$w" 1e-2 reproduced "not reproduced")" "$w"
  r=$(ratio "$(spiky "$S/k_trained.tsv")" "$(spiky "$S/k_init.tsv")")
  trial trained-tno-spiky "$(verdict_ge "$r" "$SPIKY_MIN" reproduced "not reproduced")" "$r"
  r=$(ratio "$(spiky "$S/k_init_other.tsv")" "$(spiky "$S/k_init.tsv")")
  trial trained-tno-spiky.control "$(verdict_ge "$r" "$SPIKY_MIN" reproduced "not reproduced")" "$r"
  r=$(rough "$S/k_trained.tsv")
  trial trained-tno-smooth "$(verdict_le "$r" "$ROUGH_MAX" reproduced "not reproduced")" "$r"
  r=$(rough "$S/k_trained.tsv" "$seed")
  trial trained-tno-smooth.control "$(verdict_le "$r" "$ROUGH_MAX" reproduced "not reproduced")" "$r"
done
control_trials trained-fd-decay "the same trained MLP in the full construction (decays like 1/n)" "worst tail"
control_trials trained-tno-spiky "two random initialisations, seed s + 100 over seed s" "ratio"
control_trials trained-tno-smooth "the trained kernels with lags >= 3 shuffled" "roughness"
S1="$DATA/s1"
for which in trained init; do
  f="$S1/decay_$which.tsv"
  eval "p_$which=\$(fmt \"\$(med $f poly_exponent)\")"
  eval "tail_$which=\$(fmt \"\$(med $f tail_end)\")"
  eval "worst_$which=\$(fmt \"\$(colmax $f tail_end)\")"
done
claim_trials "trained-fd-decay" "trained ReLU FD-TNO responses decay within $B lags: max |k[n]| over n in [$((B / 2)), $B] <= 1e-2 max|k| in every channel (Fig. 6)" \
  "seed 1: trained: worst $worst_trained, median $tail_trained, exponent p ~ $p_trained; init: worst $worst_init, median $tail_init, p ~ $p_init" \
  "limit 1e-2" "worst channel's tail over seeds ${SEEDS// /,}"
sp_trained=$(fmt "$(spiky "$S1/k_trained.tsv")")
sp_init=$(fmt "$(spiky "$S1/k_init.tsv")")
claim_trials "trained-tno-spiky" "trained TNO kernels are spiky near the diagonal: max|k|/mean|k| over lags 0..n-1 >= $SPIKY_MIN x the random init's (median over channels; skit's threshold)" \
  "seed 1: trained $sp_trained vs init $sp_init" "ratio $(ratio "$sp_trained" "$sp_init") (seed 1; needs >= $SPIKY_MIN)" \
  "trained/init ratio over seeds ${SEEDS// /,}"
ro_trained=$(fmt "$(rough "$S1/k_trained.tsv")")
ro_init=$(fmt "$(rough "$S1/k_init.tsv")")
claim_trials "trained-tno-smooth" "trained TNO kernels are otherwise smooth: at lags >= 3, mean |second difference| / mean |k - mean k| <= $ROUGH_MAX (median over channels; skit's threshold)" \
  "seed 1: trained $ro_trained (init $ro_init)" "$ro_trained vs limit $ROUGH_MAX (seed 1)" \
  "roughness over seeds ${SEEDS// /,}"

note <<EOF2
Models trained by \`skit train\` (seeds ${SEEDS// /,}; numbers below for seed 1; $STEPS steps, causal, order-2 Markov task, n = $N, d = $D, ReLU RPE of width 32 with
one hidden layer). FD-TNO: \`skit decay summary --params DIR/layer0.mixer.npy\` analyses the trained response MLP on
the half construction (the FD-TNO code) with N = $FFT samples, fit over n = 1..$B; the random-init row is the same
command without --params. Median fitted polynomial exponent p (|k[n]| ~ n^-p): trained $p_trained, init $p_init
(the half construction's derivative jumps at 0 and pi predict p ~ 2 whatever the weights). TNO: spikiness
max|k|/mean|k| over the causal lags: trained $sp_trained, init $sp_init; roughness at lags >= 3 (mean |second
difference| / mean |k - mean k|; sqrt(6) for independent values): trained $ro_trained, init $ro_init. At this scale n = $N is far below the
paper's 512-lag window: the trained FD responses are evaluated at lags the model never used.

EOF2
