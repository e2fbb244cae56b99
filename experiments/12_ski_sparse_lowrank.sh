#!/usr/bin/env bash
# 12_ski_sparse_lowrank.sh — ski-to-go-faster §3.2 / Algorithm 1: a Toeplitz
# matrix that is spiky near the diagonal and smooth elsewhere is better
# approximated by a band (1-D convolution, m diagonals) plus a low-rank SKI
# part than by either alone. Kernel: smooth Gaussian + a Laplacian spike
# v exp(-|t|/l_s); errors ||T - approximation||_2 / ||T||_2 over r and m.
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=SKI-TNN
# Control (experiments/common.sh, "Controls"): the same rules on a target with
# no spike to speak of (height 1e-6 of the smooth part's), where band + SKI
# can only tie with SKI alone. "Beats" means an error at least ADV times
# smaller: skit's threshold (the paper gives none); an advantage of 1 + 1e-9
# would count at a threshold of 1.
ADV=1.1
SPIKE_CONTROL=1e-6

# REPORT.md is a markdown table: no '|' inside a claim's fields
eval "_claim_raw() $(declare -f claim | tail -n +2)"
claim() { local a=() f; for f in "$@"; do f=${f//||/‖}; a+=("${f//|/¦}"); done; _claim_raw "${a[@]}"; }

N=$(pick 128 512)
RS=$(pick 8,16,32 8,16,32,64,128)
MS=$(pick 0,5,9,17 0,3,5,9,17,33)
L=$(pick 16 32)
LS=2           # the spike of the figures and the notes
LSS=$(pick "1 2" "1 2 3")  # the claims are decided for each spike lengthscale (no random input:
                           # these kernel instances stand in for seeds)

tsv() {
  awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
    { '"$2"' } END { '"${3:-}"' }' "$1"
}
# measure LS V FILE: the table for spike lengthscale LS and height V, and the
# claims' numbers from it
measure() {
  local ls=$1 d=$3
  $SKIT ski-bound --study sparse-lowrank --n "$N" --r "$RS" --band "$MS" --kernel gaussian \
    --lengthscale $L --spike-variance "$2" --spike-lengthscale "$ls" --norm lanczos --quiet -o "$d"
  # split known: band of the spike + SKI of the smooth part, against each alone
  read -r wins total gmin gmax gat <<< "$(tsv "$d" "if (\$c[\"m\"] > 0) { n++; best = \$c[\"band_only\"]; if (\$c[\"lowrank_only\"] < best) best = \$c[\"lowrank_only\"];
      r = best / \$c[\"sparse_lowrank\"]; if (r >= $ADV) w++; if (!s || r < mn) { mn = r; s = 1; at = \"r=\" \$c[\"r\"] \" m=\" \$c[\"m\"] }; if (r > mx) mx = r }" \
    "printf \"%d %d %.4g %.4g %s\\n\", w + 0, n + 0, mn, mx, at")"
  # the same where the band covers the spike: half-width >= 3 l_s (the spike is
  # below e^-3 = 5% of its peak outside the band)
  MCOVER=$((6 * ls + 1))
  read -r cwins ctotal cmin cat <<< "$(tsv "$d" "if (\$c[\"m\"] >= $MCOVER) { n++; best = \$c[\"band_only\"]; if (\$c[\"lowrank_only\"] < best) best = \$c[\"lowrank_only\"];
      r = best / \$c[\"sparse_lowrank\"]; if (r >= $ADV) w++; if (!s || r < mn) { mn = r; s = 1; at = \"r=\" \$c[\"r\"] \" m=\" \$c[\"m\"] } }" \
    "printf \"%d %d %.4g %s\\n\", w + 0, n + 0, mn, at")"
  # split unknown: the band fitted to what SKI of the whole kernel misses
  read -r fwins ftotal fmin fmax fat <<< "$(tsv "$d" "if (\$c[\"m\"] > 0) { n++; r = \$c[\"lowrank_only\"] / \$c[\"sparse_lowrank_fit\"]; if (r >= $ADV) w++;
      if (!s || r < mn) { mn = r; s = 1; at = \"r=\" \$c[\"r\"] \" m=\" \$c[\"m\"] }; if (r > mx) mx = r }" \
    "printf \"%d %d %.4g %.4g %s\\n\", w + 0, n + 0, mn, mx, at")"
  # all bands: a band narrower than the spike does not make T "band + low rank"
  # for that m (the model Algorithm 1 assumes), so failures confined there mean
  # the hypothesis is not met rather than the claim not reproduced
  if [ "$wins" -eq "$total" ] && [ "$total" -gt 0 ]; then alg1_all=reproduced; alg1_why=""
  elif [ "$cwins" -eq "$ctotal" ] && [ "$ctotal" -gt 0 ]; then alg1_all="hypothesis not met"
    alg1_why="; every failure has a band narrower than the spike (m < $MCOVER): T is then not band + low rank for that m"
  else alg1_all="not reproduced"; alg1_why=""; fi
}
# LS last: its numbers stay in the variables for the claims' text
for ls in $(printf '%s\n' $LSS | grep -vx "$LS") $LS; do
  measure "$ls" "$SPIKE_CONTROL" "$DATA/control_ls$ls.tsv"
  trial alg1-sparse-plus-lowrank.control "$alg1_all" "$gmin"
  trial alg1-sparse-plus-lowrank-covering.control "$([ "$cwins" -eq "$ctotal" ] && [ "$ctotal" -gt 0 ] && echo reproduced || echo "not reproduced")" "$cmin"
  measure "$ls" 1 "$DATA/sparse_lowrank_ls$ls.tsv"
  trial alg1-sparse-plus-lowrank "$alg1_all" "$gmin"
  trial alg1-sparse-plus-lowrank-covering "$([ "$cwins" -eq "$ctotal" ] && [ "$ctotal" -gt 0 ] && echo reproduced || echo "not reproduced")" "$cmin"
  trial alg1-fitted-band "$([ "$fwins" -eq "$ftotal" ] && [ "$ftotal" -gt 0 ] && echo holds || echo fails)" "$fmin"
done
D="$DATA/sparse_lowrank.tsv"
mv "$DATA/sparse_lowrank_ls$LS.tsv" "$D"
CONTROL_TXT="a smooth target (spike height $SPIKE_CONTROL)"
control_trials alg1-sparse-plus-lowrank "$CONTROL_TXT" "smallest advantage"
control_trials alg1-sparse-plus-lowrank-covering "$CONTROL_TXT" "smallest advantage"
claim_trials "alg1-sparse-plus-lowrank" \
  "Algorithm 1: band (m diagonals) + SKI approximates a spiky-near-diagonal, smooth-elsewhere Toeplitz matrix better than band only or SKI only" \
  "l_s = $LS: band + SKI (split known) beats both at $wins of $total (r, m > 0) points; min(band, SKI)/(band + SKI) error = $(fmt "$gmin")..$(fmt "$gmax")" \
  "smallest advantage $(fmt "$gmin")x at $gat (>= $ADV required: skit's threshold)${alg1_why}" \
  "smallest advantage over spike lengthscales l_s = ${LSS// /,}"
claim_trials "alg1-sparse-plus-lowrank-covering" \
  "Algorithm 1 as above, for bands that cover the spike (m >= 6 l_s + 1: spike < 5% of its peak outside)" \
  "l_s = $LS: band + SKI beats both at $cwins of $ctotal such (r, m) points (m >= $MCOVER)" \
  "smallest advantage $(fmt "$cmin")x at $cat (>= $ADV required: skit's threshold)" \
  "smallest advantage over spike lengthscales l_s = ${LSS// /,}"
SOURCE=skit claim_trials "alg1-fitted-band" \
  "A band fitted (least squares) to the SKI residual also improves on SKI alone when the split is unknown (not in the paper)" \
  "l_s = $LS: improves at $fwins of $ftotal (r, m > 0) points; SKI / (SKI + fitted band) error = $(fmt "$fmin")..$(fmt "$fmax")" \
  "smallest improvement $(fmt "$fmin")x at $fat (>= $ADV required: skit's threshold)" \
  "smallest improvement over spike lengthscales l_s = ${LSS// /,}"

# figures: vs r (one series per m) as written; vs m (one series per r) by re-sorting
tit=$(tsv "$D" "if (!(\$c[\"series\"] in s)) { s[\$c[\"series\"]] = 1; printf \"m=%s \", \$c[\"m\"] }")
ns=$(tsv "$D" "s[\$c[\"series\"]] = 1" "print length(s)")
plot ski_sparse_lowrank "$D" ski_sparse_lowrank_vs_r "xcol='r'; nseries=$ns; titles='$tit'"
VM="$DATA/sparse_lowrank_by_m.tsv"
{
  grep '^#' "$D"
  awk '!/^#/ {print; exit}' "$D" # (grep | head under pipefail: grep's SIGPIPE failed a run)
  tsv "$D" "print \$c[\"r\"] \"\\t\" \$c[\"m\"] \"\\t\" \$0" | sort -t$'\t' -k1,1g -k2,2g | cut -f3- |
    awk -F'\t' -v OFS='\t' '{ if (!($5 in id)) id[$5] = k++; $1 = id[$5]; print }'
} > "$VM"
tit=$(tsv "$VM" "if (!(\$c[\"series\"] in s)) { s[\$c[\"series\"]] = 1; printf \"r=%s \", \$c[\"r\"] }")
ns=$(tsv "$VM" "s[\$c[\"series\"]] = 1" "print length(s)")
plot ski_sparse_lowrank "$VM" ski_sparse_lowrank_vs_m "xcol='m'; nseries=$ns; titles='$tit'"

note <<EOF
**Setup.** n = $N, T(i,j) = k(i-j) with k(t) = exp(-t^2/(2 $L^2)) + exp(-|t|/$LS): a smooth
Gaussian plus a Laplacian spike that is not differentiable at 0 and decays to 1e-3 of its peak
within ~$((LS * 7)) lags. r in {$RS} inducing points uniform on [0, n-1] (linear W), band widths
m in {$MS} (m = 0: no band). Errors are spectral norms relative to ||T||_2 (Lanczos on dense
n x n matrices).
- band only: the m central diagonals of T (a 1-D convolution with m taps);
- SKI only: W A W^T with A sampled from the whole kernel;
- band + SKI, split known: the m central diagonals of the spike's matrix plus SKI of the smooth
  part (the paper's analysis assumes the sparse component is identifiable);
- band + SKI, split unknown: SKI of the whole kernel plus the Toeplitz band that best fits (in the
  Frobenius norm: the mean of each diagonal) the residual T - W A W^T.

**Results.** "Beats" means an error at least ${ADV}x smaller (skit's threshold). With the split
known, band + SKI beats both single parts at $wins of $total points
(min(band, SKI)/(band + SKI) = $(fmt "$gmin")..$(fmt "$gmax"); worst at $gat), and at $cwins of $ctotal points
whose band covers the spike (m >= $MCOVER). A band narrower than the spike leaves the spike's
tail to nobody: SKI of the smooth part does not model it, so when r is large enough for SKI of
the whole kernel to resolve the spike, SKI alone wins. Fitting the band to the SKI residual
improves on SKI alone at $fwins of $ftotal points ($(fmt "$fmin")..$(fmt "$fmax")x). At large r the inducing
grid starts to resolve the spike itself (h approaches l_s), so the SKI-only error also falls and
the band's advantage narrows.

**Control.** The same rules on the same Gaussian with a spike of height $SPIKE_CONTROL
(tables \`control_ls*.tsv\`): nothing for the band to add, so band + SKI can only tie with SKI
alone; at a threshold of 1 such ties (ratios 1 + O(1e-6)) could count as wins.

**Stability.** Nothing here is random, so instead of seeds each claim is decided for every spike
lengthscale l_s in {${LSS// /, }} (tables \`sparse_lowrank_ls*.tsv\`; the numbers above and the
figures are for l_s = $LS); the stability column gives the verdict's count over those kernels
and the spread of the deciding ratio. The all-bands claim depends on l_s: a narrow spike
(l_s = 1) is covered by every band tried, a wider one is not.

EOF
figure ski_sparse_lowrank_vs_r
figure ski_sparse_lowrank_vs_m
