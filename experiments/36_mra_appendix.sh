#!/usr/bin/env bash
# 36_mra_appendix.sh — MRA Remark 4.2 / App. A.5 and App. A.2, measured with
# `skit mra-appendix` on synthetic attention of the three kinds Fig. 8 shows
# (diagonal: local smooth tokens; vertical: sink keys; block: tokens in
# segments sharing a latent) and on i.i.d. tokens:
#   A.5: the Haar detail coefficients of the columns (rows) of P = Q K^T are
#        bounded by those of Q (K): ||H_k^{P,j}||_1 <= (sum_i ||(H_k^Q)_i||_p) ||K_j||_q;
#   A.2: MRA-2 with R = {b, 1} as sparse + low rank: the optimal block-sparse
#        S lies on the squares with the largest mu' (eq. 10); MRA-2 locates
#        them with the lower bound mu^2 as a proxy; A_1 + A_b (S plus the
#        block-constant L, rank <= n/b) is a reasonable solution of (9).
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=MRA
# The proxy claims' control (experiments/common.sh, "Controls"): the same
# rule on the squares MRA-2's proxy ranks last (block_reversed), a selection
# known to be poor. "L lowers the error of S" cannot fail (L = exp(mean P) is
# at most the square's mean, by Jensen): it is a bound checked on every case.

N=$(pick 256 512)
BLOCK=16
SEEDS=$(pick 2 3)
PATTERNS="diagonal vertical block random"
H="$DATA/haar.tsv"
S="$DATA/sparse_lowrank.tsv"
PROXY_MARGIN=1.25   # the proxy's error within 25% of the optimal block support's

: > "$H.tmp"; : > "$S.tmp"
for p in $PATTERNS; do
  for s in $(seq 1 "$SEEDS"); do
    $SKIT mra-appendix haar-bound --pattern "$p" --n "$N" --seed "$s" --quiet -o "$DATA/h.tsv"
    $SKIT mra-appendix sparse-lowrank --pattern "$p" --n "$N" --block $BLOCK --seed "$s" \
      --sparsity 0.8,0.9,0.95 --quiet -o "$DATA/s.tsv"
    # one table each, the pattern and seed in front
    for f in h s; do
      out=$([ $f = h ] && echo "$H.tmp" || echo "$S.tmp")
      awk -F'\t' -v p="$p" -v s="$s" -v first="$([ -s "$out" ] && echo 0 || echo 1)" '/^#/ {next}
        !h { h = 1; if (first) print "pattern\tseed\t" $0; next } { print p "\t" s "\t" $0 }' "$DATA/$f.tsv" >> "$out"
    done
  done
done
mv "$H.tmp" "$H"; mv "$S.tmp" "$S"; rm -f "$DATA/h.tsv" "$DATA/s.tsv"

# --- A.5: the Haar bound ------------------------------------------------------
for p in $PATTERNS; do
  for s in $(seq 1 "$SEEDS"); do
    bad=$(rows "$H" "pattern=$p seed=$s" violations | awk '{ t += $1 } END { print t + 0 }')
    lo=$(rows "$H" "pattern=$p seed=$s" min_margin | stat min)
    trial haar-bound "$([ "$bad" -eq 0 ] && echo holds || echo fails)" "$lo"
  done
done
tight=$(fmt "$(column "$H" median_margin | stat min)")
loose=$(fmt "$(column "$H" median_margin | stat max)")
claim_trials haar-bound \
  "Remark 4.2 / App. A.5: the Haar detail of every column of P = Q K^T is bounded by Q's, norm_1(H_k^{P,j}) <= (sum_i norm_p((H_k^Q)_i)) norm_q(K_j) (and rows by K's)" \
  "violations over n = $N columns and rows x levels 1-3 x p in {1, 2, inf} x 4 patterns x $SEEDS seeds: $(column "$H" violations | awk '{ t += $1 } END { print t + 0 }'); min margin rhs/lhs $(column "$H" min_margin | stat min); median margin per row $tight..$loose (how loose the bound is)" \
  "min margin $(column "$H" min_margin | stat min) (>= 1 required)" "min margin"

# --- A.2: sparse + low rank ---------------------------------------------------
at() { rows "$S" "pattern=$1 sparsity=$2 $3" "$4"; }
for p in $PATTERNS; do
  for s in $(seq 1 "$SEEDS"); do
    g=$(rows "$S" "pattern=$p seed=$s" min_jensen_gap | stat min)
    trial a2-jensen "$(verdict_ge "$g" -1e-12)" "$g"
    opt=$(at "$p" 0.8 "seed=$s" block_optimal); prx=$(at "$p" 0.8 "seed=$s" block_proxy)
    r=$(ratio "$prx" "$opt")
    [ "$p" != random ] && trial "a2-proxy-$p" "$(verdict_le "$r" $PROXY_MARGIN reproduced "not reproduced")" "$r"
    r=$(ratio "$(at "$p" 0.8 "seed=$s" block_reversed)" "$opt")
    [ "$p" != random ] && trial "a2-proxy-$p.control" "$(verdict_le "$r" $PROXY_MARGIN reproduced "not reproduced")" "$r"
  done
done
# S + L against S alone on every pattern, seed and sparsity
helps=$(awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} $1 != "random" {
    k++; r = $c["mra"] / $c["block_proxy"]; if (r <= 1 + 1e-12) w++; if (k == 1 || r > hi) hi = r; if (k == 1 || r < lo) lo = r }
  END {printf "%d %d %.3g %.3g\n", w, k, lo, hi}' "$S")
read -r hwins htotal hlo hhi <<< "$helps"
claim_trials a2-jensen \
  "App. A.2: mu_{b,x,y}^2 = exp(2 mean P) is a lower bound of mu'_{b,x,y} = mean exp(2P) on every square (the proxy of eq. 10)" \
  "min over squares, patterns, seeds of (mu' - mu^2)/mu' = $(column "$S" min_jensen_gap | stat min)" \
  "needs >= 0 (Jensen)" "min gap"
for p in diagonal vertical block; do
  control_trials "a2-proxy-$p" "the squares MRA-2 ranks last (smallest mu^2)" "ratio"
  claim_trials "a2-proxy-$p" \
    "App. A.2 / Fig. 8 ($p pattern): MRA-2's squares (largest mu^2) are a good block-sparse S: nearly the optimal squares (largest mu')" \
    "at 80% sparsity (b = $BLOCK, n = $N): relative error of S on MRA-2's squares / on the optimal squares = $(at "$p" 0.8 "seed=1" block_proxy) / $(at "$p" 0.8 "seed=1" block_optimal) (seed 1), support overlap $(at "$p" 0.8 "seed=1" support_overlap); optimal scattered S of the same size: $(at "$p" 0.8 "seed=1" entry_optimal)" \
    "ratio median $(trials_median "a2-proxy-$p") (reproduced if <= $PROXY_MARGIN, skit's threshold for 'reasonably good')" "ratio proxy/optimal"
done
STABILITY="every case" claim a2-lowrank-helps \
  "App. A.2: A_1 + A_b (S on MRA-2's squares plus the block-constant L, rank <= n/b) is a reasonable sparse + low-rank solution: L lowers the error of S alone" \
  "error of S + L <= error of S alone in $hwins of $htotal cases (3 patterns x $SEEDS seeds x 3 sparsities); ratio $hlo..$hhi; at 80%, seed 1: diagonal $(ratio "$(at diagonal 0.8 seed=1 mra)" "$(at diagonal 0.8 seed=1 block_proxy)"), vertical $(ratio "$(at vertical 0.8 seed=1 mra)" "$(at vertical 0.8 seed=1 block_proxy)"), block $(ratio "$(at block 0.8 seed=1 mra)" "$(at block 0.8 seed=1 block_proxy)")" \
  "$([ "$hwins" -eq "$htotal" ] && echo reproduced || echo "not reproduced")" \
  "a bound: L = exp(mean P) lies in [0, the square's mean] (Jensen), so it cannot raise the error; the ratio shows how much it lowers it"

# --- Fig. 8: supports at 80% sparsity ------------------------------------------
NF=256
for p in diagonal vertical block; do
  $SKIT mra-appendix sparse-lowrank --pattern "$p" --n $NF --block $BLOCK --sparsity 0.8 \
    --supports "$DATA/support_$p" --quiet -o /dev/null
done
plot mra_supports "$DATA/support" mra_figure8 "prefix='$DATA/support'"
# the n x n entry supports are large and redrawn from the run; keep the figure
rm -f "$DATA"/support_*.entry.tsv

# --- Figs. 3 / 6: the refinement R = {16, 4, 1} on a matrix ------------------
R="$DATA/refine.tsv"
$SKIT mra-appendix refine --pattern diagonal --n 64 --quiet -o "$R"
plot mra_refine "$R" mra_figure3
refine_err=$(awk -F'\t' '/^#/ {next} !h {h = 1; next} { t += $3 * $3; for (c = 4; c <= 6; c++) e[c] += ($3 - $c) ^ 2 }
  END { printf "%.3g, %.3g, %.3g", sqrt(e[4] / t), sqrt(e[5] / t), sqrt(e[6] / t) }' "$R")

table=$(awk -F'\t' 'NR > 1 && $2 == 1 { printf "| %s | %s | %.3g | %.3g | %.3g | %.3g | %.3g | %.2f |\n", $1, $4, $7, $8, $9, $10, $11, $12 }' "$S")
note <<EOF
**Haar bound (App. A.5).** \`skit mra-appendix haar-bound\` (lib/attention/haar_bounds.c) evaluates
both sides for every column j of P (and every row, Q and K swapped) at Haar levels 1-3 (orthonormal
Haar, blocks of 2, 4, 8 tokens) and p in {1, 2, inf}. The bound is Hölder's inequality term by term, so
it cannot fail; what the run shows is its slack: the median ratio rhs/lhs per configuration is
$tight..$loose.

**Sparse + low rank (App. A.2).** \`skit mra-appendix sparse-lowrank\` (lib/attention/sparse_lowrank.c)
on A = exp(P) (unnormalised, as in A.2), n = $N, squares of side b = $BLOCK, seed 1: relative Frobenius
errors of S alone on the optimal scattered support (the m b^2 largest entries: the optimum of (9)),
on the optimal squares (largest mu'), on MRA-2's squares (largest mu^2), of MRA-2's S + L, and
||L||_F / ||A||_F; overlap = the share of MRA-2's squares that are optimal. The proxy claims'
control is S on the squares MRA-2 ranks last (smallest mu^2), judged by the same 25% rule.

| pattern | sparsity | scattered opt. | block opt. | MRA-2 squares | MRA-2 S + L | L | overlap |
|---|---|---|---|---|---|---|---|
$table

The proxy mu^2 = exp(2 mean P) ignores the spread of P inside a square: a square crossed by a
sink key's column holds a few very large entries, so its mu' is large but its mean logit modest,
and MRA-2 misses it (vertical pattern); where P is smooth inside the squares (diagonal, block) the
proxy finds nearly the optimal squares.

**Fig. 8.** The supports at 80% sparsity (n = $NF): the optimal scattered support (top), the optimal
squares (middle) and MRA-2's squares (bottom), for the three patterns. The paper draws them for
RoBERTa-base attention at n = 4096; here they are synthetic patterns of the same three kinds.

**Figs. 3 and 6.** Algorithm 1 with R = {16, 4, 1} on A = exp(P) of the diagonal pattern
(n = 64): every 16-square's mean, then 8 squares refined to side 4, then 32 of those to entries
(largest mean logit; form (5) of the approximation). Relative Frobenius errors after the three
stages: $refine_err.

EOF
figure mra_figure8
figure mra_figure3
