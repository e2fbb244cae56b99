#!/usr/bin/env bash
# 24_prop1.sh — ski-to-go-faster Proposition 1 (Appendix C): a ReLU MLP
# R -> R^d "with layer norm" is piecewise linear. Breakpoints are located
# (sign changes of every activation input) and the MLP is compared with the
# linear interpolant through them.
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=SKI-TNN
ONE_RUN="every case"

REPL=$(pick 2 5)
P="$DATA/prop1.tsv"
$SKIT decay prop1 --norm none,layer,rms --construction half,full --replicates "$REPL" -o "$P"
plot freq_prop1 "$P" prop1


TOL=1e-10
e0=$(rows "$P" "norm=none" error_through_breakpoints | stat max)
u0=$(rows "$P" "norm=none" error_uniform_knots | stat min)
nb=$(rows "$P" "norm=none" breakpoints | stat median)
claim "lemma1-relu" "Lemma 1: a ReLU MLP R -> R^d (no norm) is piecewise linear continuous" \
  "max |MLP - interpolant through the $nb (median) located breakpoints| / max|MLP| = $(fmt "$e0"); with as many uniform knots >= $(fmt "$u0")" \
  "$(verdict_le "$e0" $TOL)" "tolerance $TOL; ratio $(ratio "$e0" $TOL)"
e1=$(rows "$P" "norm=layer" error_through_breakpoints | stat min)
e1max=$(rows "$P" "norm=layer" error_through_breakpoints | stat max)
claim "prop1-relu-layernorm" "Proposition 1: a ReLU MLP R -> R^d with layer norm is piecewise linear continuous" \
  "interpolation error through the located breakpoints $(fmt "$e1") .. $(fmt "$e1max") of max|MLP|" \
  "$(verdict_le "$e1max" $TOL)" "smallest error $(fmt "$e1") is $(ratio "$e1" $TOL)x the tolerance $TOL"
e2=$(rows "$P" "norm=rms" error_through_breakpoints | stat min)
note <<EOF2
Breakpoints are the points where some activation's input changes sign: the interval ([0, pi] for
the half construction, [-pi, pi] for the full one) is scanned on 2048 steps and every step whose
sign pattern changes is bisected to 1e-14 of the interval. The error is max |MLP - linear
interpolant| / max |MLP| at 5 interior points of every piece, all output channels (width 64, 3
hidden layers, 4 outputs, $REPL seeds).

Without a norm the MLP is linear between consecutive breakpoints to rounding (Lemma 1). Lemma 2's
proof says layer normalisation "applies the same affine transformation to each node", but the
mean and standard deviation it uses depend on the input: between breakpoints the normalised
layer is (a x + b - mean(x)) / std(x) with std(x) the square root of a quadratic in x, which is
not linear. The measured interpolation error with LayerNorm confirms this; TNN's RMS norm behaves
the same way (smallest error $(fmt "$e2")).
EOF2
figure prop1
