#!/usr/bin/env bash
# 31_mra_table7.sh — MRA paper Table 7 / Figure 4: time, memory and relative
# error of exact attention, Nyströmformer, Linformer (seeded projections, and
# with F fitted to the head: an oracle), Performer, a sliding
# window (Longformer's local part), BigBird, MRA-2 and MRA-2-s for n = 256 ..
# 4096 at fixed budgets per query row (the paper's rows keep their method
# parameters fixed as n grows). One thread (OpenMP and OpenBLAS) and CPU
# seconds, so that times measure work, not how busy the machine is.
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=MRA
# Controls (experiments/common.sh, "Controls"), by the same rules in the same
# runs: the trade-off rule with Linformer (random projections, errors above
# 1) in MRA's place; exact attention against itself timed again; exact
# attention's slope (quadratic) under the linear-time rule.

NS=$(pick 256..512 256..4096)
PER_ROW=128,256,512
REPEAT=$(pick 1 2)
METHODS=exact,nystrom,linformer,linformer-fit,performer,window,bigbird,mra2,mra2s
T7="$DATA/table7.tsv"

# the timing claims run REPEATS times (table7.tsv is run 1, table7.K.tsv the
# others), each run its own verdicts; the table and figure show run 1
t7_run() { if [ "$1" -eq 1 ]; then echo "$T7"; else echo "$DATA/table7.$1.tsv"; fi; }
for rep in $(repeats); do
  OPENBLAS_NUM_THREADS=1 $SKIT mra --threads 1 --n "$NS" --per-row $PER_ROW --beta 8 --methods $METHODS \
    --repeat $REPEAT --quiet -o "$(t7_run "$rep")"
  OPENBLAS_NUM_THREADS=1 $SKIT mra --threads 1 --n "$NS" --per-row 128 --beta 8 --methods exact \
    --repeat $REPEAT --quiet -o "$DATA/exact_again.$rep.tsv"
done

NLIST=$(column "$T7" n | sort -n -u | tr '\n' ' ')
NPLOT=$(column "$T7" n | sort -n -u | awk '{a[NR] = $1} END {print (NR > 1 ? a[NR - 2 > 0 ? NR - 2 : 1] " " a[NR] : a[1])}')
plot mra_table7 "$T7" mra_table7 "methods='nystrom linformer linformer-fit performer window bigbird mra2 mra2s'; nlist='$NPLOT'; tcol='cpu_s'"

NMIN=$(pick 512 1024)
# time growth at a fixed per-row budget (Table 7: 0.65 -> 5.18 ms from 512 to 4096)
SMIN=$(pick 256 512)
slope_of() {
  awk -F'\t' -v m="$2" -v k="$3" -v smin=$SMIN '/^#/ {next}
    !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
    $1 == m && (k == 0 || ($c["budget"] * $c["n"] > k - 0.5 && $c["budget"] * $c["n"] < k + 0.5)) && $c["n"] >= smin {
      x = log($c["n"]); y = log($c["cpu_s"]); q++; sx += x; sy += y; sxx += x * x; sxy += x * y }
    END { if (q < 2) { print "nan"; exit } printf "%.3f\n", (q * sxy - sx * sy) / (q * sxx - sx * sx) }' "$1"
}
# dominated FILE "CANDIDATES" ["SKIP"]: "k m [| missed...]": k of the m
# other baseline (time, error) points at n >= NMIN matched or beaten in both
# by a candidate's point at the same n (exact attention and the SKIP
# methods are neither)
dominated() {
  awk -F'\t' -v nmin=$NMIN -v cands=" $2 " -v skip=" exact ${3:-} " '/^#/ {next}
    !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
    $c["n"] + 0 < nmin || index(skip, " " $1 " ") {next}
    { k++; m[k] = $1; nn[k] = $c["n"]; t[k] = $c["cpu_s"]; e[k] = $c["rel_error"] }
    END { for (i = 1; i <= k; i++) { if (index(cands, " " m[i] " ")) continue; base++; d = 0
            for (j = 1; j <= k; j++) if (index(cands, " " m[j] " ") && nn[j] == nn[i] &&
                t[j] <= t[i] && e[j] <= e[i]) d = 1
            if (d) dominated++; else miss = miss " " m[i] "@" nn[i] }
          printf "%d %d%s\n", dominated, base, (miss == "" ? "" : " |" miss) }' "$1"
}
# min_speedup EXACT_FILE FILE METHOD: "r n": the smallest CPU-time ratio of
# exact attention (in EXACT_FILE) to METHOD (in FILE) over n >= NMIN and
# budgets, and the n where it falls
min_speedup() {
  awk -F'\t' -v nmin=$NMIN -v m="$3" 'FNR == 1 {f++; h = 0} /^#/ {next}
    !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
    $c["n"] + 0 < nmin {next}
    f == 1 && $1 == "exact" {ex[$c["n"]] = $c["cpu_s"]}
    f == 2 && $1 == m {k++; n[k] = $c["n"]; t[k] = $c["cpu_s"]}
    END { min = 1e300; for (i = 1; i <= k; i++) { r = ex[n[i]] / t[i]; if (r < min) {min = r; at = n[i]} }
          printf "%.3g %d\n", min, at }' "$1" "$2"
}
# Fitted Linformer is not among the baselines of Figure 4's claim: its F is
# fitted (least squares, untimed) to the very head it is scored on, so its
# error is a lower bound for any Linformer with that E, not what a method
# that meets new inputs gets; the paper's baselines are such methods. MRA-2
# against it is a separate, informative comparison (FITTED below).
FITTED=linformer-fit
OTHERS="nystrom linformer performer window bigbird"
# fitted_vs_mra FILE: "w m [| lost...]": at w of the m (n, budget) points
# MRA-2 is at least as accurate as fitted Linformer (same per-row budget,
# every n; budgets of all n entries per row, where both are exact to
# rounding, left out), and the points where it is not (n/entries per row)
fitted_vs_mra() {
  awk -F'\t' -v f=$FITTED '/^#/ {next}
    !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
    ($1 == "mra2" || $1 == f) && $c["budget"] < 1 { p = $c["n"] "/" int($c["budget"] * $c["n"] + 0.5)
      e[$1, p] = $c["rel_error"]; if ($1 == f) key[++k] = p }
    END { for (i = 1; i <= k; i++) if (("mra2", key[i]) in e) { m++
            if (e["mra2", key[i]] <= e[f, key[i]]) w++; else lost = lost " " key[i] }
          printf "%d %d%s\n", w, m, (lost == "" ? "" : " |" lost) }' "$1"
}
for rep in $(repeats); do
  T7=$(t7_run "$rep")
  # Figure 4's claim: every baseline (time, error) point is dominated by an
  # MRA-2 or MRA-2-s point that is at least as fast and at least as accurate
  dom=$(dominated "$T7" "mra2 mra2s" "$FITTED")
  read -r ndom nbase rest <<< "$dom"
  missed=${rest#|}
  trial fig4-tradeoff "$(verdict_ge "$ndom" "$nbase" reproduced "not reproduced")" "$(awk -v a="$ndom" -v b="$nbase" 'BEGIN{print a / b}')"
  read -r cdom cbase _ <<< "$(dominated "$T7" linformer "$FITTED")"
  trial fig4-tradeoff.control "$(verdict_ge "$cdom" "$cbase" reproduced "not reproduced")" "$(awk -v a="$cdom" -v b="$cbase" 'BEGIN{print a / b}')"
  [ "$rep" -eq 1 ] && { ndom1=$ndom; nbase1=$nbase; missed1=$missed; }
  # the same rule with fitted Linformer as the only baseline (informative)
  read -r fdom fbase frest <<< "$(dominated "$T7" "mra2 mra2s" "$OTHERS")"
  trial fig4-fitted-linformer informative "$(awk -v a="$fdom" -v b="$fbase" 'BEGIN{print a / b}')"
  [ "$rep" -eq 1 ] && { fdom1=$fdom; fbase1=$fbase; fmissed1=${frest#|}; }

  # MRA-2 against exact attention: speed ratio at every n >= NMIN and budget
  sp=$(min_speedup "$T7" "$T7" mra2)
  read -r spmin spat <<< "$sp"
  trial tab7-faster-than-exact "$(verdict_ge "$spmin" 1 reproduced "not reproduced")" "$spmin"
  read -r cmin _ <<< "$(min_speedup "$T7" "$DATA/exact_again.$rep.tsv" exact)"
  trial tab7-faster-than-exact.control "$(verdict_ge "$cmin" 1 reproduced "not reproduced")" "$cmin"
  [ "$rep" -eq 1 ] && spat1=$spat

  sm=$(slope_of "$T7" mra2 256)
  se=$(slope_of "$T7" exact 0)
  trial tab7-linear-time "$( [ "$sm" = nan ] && echo "informative" || verdict_le "$sm" 1.2 reproduced "not reproduced")" "$sm"
  trial tab7-linear-time.control "$( [ "$se" = nan ] && echo "informative" || verdict_le "$se" 1.2 reproduced "not reproduced")" "$se"
  echo "$se" >> "$TRIALS/exact-slopes"
done
T7=$(t7_run 1)
sm=$(trials_median tab7-linear-time); se=$(stat median < "$TRIALS/exact-slopes")
control_trials fig4-tradeoff "Linformer (errors above 1) in MRA's place" "dominated fraction"
control_trials tab7-faster-than-exact "exact attention against itself, timed again" "min ratio"
control_trials tab7-linear-time "exact attention's slope" "slope"
TIMING_CPUS=1 claim_trials "fig4-tradeoff" \
  "Fig. 4 / Tab. 7: MRA-2(-s) has the best error-time trade-off: no baseline is both faster and more accurate" \
  "run 1: $ndom1 of $nbase1 baseline (time, error) points at n >= $NMIN are matched or beaten in both by an MRA-2/MRA-2-s point${missed1:+; not dominated:$missed1}" \
  "$(awk -v a="$ndom1" -v b="$nbase1" 'BEGIN{printf "%.0f%% dominated", 100 * a / b}') in run 1" "dominated fraction"
read -r fwin fpts flost <<< "$(fitted_vs_mra "$T7")"
flost=${flost#|}
if [ "$fwin" -lt "$fpts" ]; then
  fverdict="MRA-2 does **not** dominate fitted Linformer: fitted Linformer is more accurate at${flost} (n/entries per row)"
else
  fverdict="MRA-2 is at least as accurate as fitted Linformer at every such point of run 1"
fi
TIMING_CPUS=1 claim_trials "fig4-fitted-linformer" \
  "Fig. 4 / Tab. 7 against a stronger Linformer: MRA-2(-s) against Linformer with F fitted to each head (an oracle, not among the paper's baselines)" \
  "run 1: $fdom1 of $fbase1 fitted-Linformer (time, error) points at n >= $NMIN are matched or beaten in both by an MRA-2/MRA-2-s point${fmissed1:+; not dominated:$fmissed1}; MRA-2's error <= fitted Linformer's at $fwin of $fpts (n, budget < n) points${flost:+; not at:$flost}" \
  "$(awk -v a="$fdom1" -v b="$fbase1" 'BEGIN{printf "%.0f%% dominated", 100 * a / b}') in run 1" "dominated fraction"
TIMING_CPUS=1 claim_trials "tab7-faster-than-exact" \
  "Tab. 7: MRA-2 is faster than exact attention at every budget listed" \
  "smallest CPU-time ratio exact / MRA-2 over n >= $NMIN and 128..512 entries per row, median of $REPEATS runs: $(trials_median tab7-faster-than-exact) (run 1: at n = $spat1); one thread" \
  "min ratio (median of runs) $(trials_median tab7-faster-than-exact) vs 1" "min ratio"
TIMING_CPUS=1 claim_trials "tab7-linear-time" \
  "Tab. 7: at a fixed budget per row MRA-2's time grows about linearly in n (exact attention: quadratically)" \
  "fitted log-log slope of CPU time vs n (n >= $SMIN, 256 entries per row), median of $REPEATS runs: MRA-2 $sm, exact $se; one thread" \
  "slope $sm vs limit 1.2" "MRA-2 slope"

# Table 7 layout: error / time (ms) / plan memory (MiB) per method, budget and n
tablemd=$(awk -F'\t' -v nlist="$NLIST" '/^#/ {next}
  !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
  { k = ($1 == "exact") ? "-" : sprintf("%d", $c["budget"] * $c["n"] + 0.5); key = $1 " | " k
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    cell[key, $c["n"]] = sprintf("%.3g / %.2f / %.2f", $c["rel_error"], 1000 * $c["cpu_s"], $c["plan_bytes"] / 1048576) }
  END { nn = split(nlist, ns, " "); printf "| method | per row |"; for (j = 1; j <= nn; j++) printf " n = %s |", ns[j]
        printf "\n|---|---|"; for (j = 1; j <= nn; j++) printf "---|"; printf "\n"
        for (i = 1; i <= nk; i++) { printf "| %s |", order[i]
          for (j = 1; j <= nn; j++) printf " %s |", ((order[i], ns[j]) in cell) ? cell[order[i], ns[j]] : "-"
          printf "\n" } }' "$T7")
ent=$(awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
  $1 == "exact" {printf "%s%s: %.2f", (s++ ? ", " : ""), $c["n"], $c["entropy"]}' "$T7")

note <<EOF
**Setup.** Structured synthetic Q, K, V (d = dv = 64, locality 16, β = 8; mean row entropy
in nats per n: $ent), seed 1, **one thread** (OpenMP and OpenBLAS), time = CPU seconds of
the process, fastest of $REPEAT runs in each of $REPEATS independent runs (table: run 1; wall times are in the data; CPU time is used because other
jobs shared the two cores), memory = bytes the
plan owns (skit_attention_plan_bytes: scratch included, inputs and output excluded). Budgets are
attention entries per query row, fixed across n like the paper's rows: MRA-2 / MRA-2-s refine
k/32 blocks of 32 per block row (global top-k, no priors); Nyström landmarks, Linformer
projected length and Performer features = k; window: the narrowest band with k·n entries;
BigBird: blocks of 32, 3 window + 1 global + random blocks, k/32 per row in all (at least 4).
Budgets with k > n are skipped ("-"), as in the paper. The paper measured PyTorch/CUDA on an
RTX 3090 with RoBERTa activations; those numbers are not comparable in absolute terms, and our
exact attention is blocked (no n x n buffer), so the paper's memory advantage of MRA over the
standard Transformer does not carry over: here every method needs O(n) memory except the
low-rank feature maps (O(n k)). Two Linformers: "linformer" with seeded random projections E, F
(untrained; the paper's Linformer rows also have errors above 1), kept as the control below; and
"linformer-fit" (Linformer, F fitted), E the segment means of the keys and F = P⁺S fitted by least
squares to the head it is then scored on (P = softmax(Q (E K)ᵀ/√d), S the exact softmax matrix).
The fit makes P F V the orthogonal projection of the exact output onto P's columns, so no F with
that E, trained or not, has a smaller relative Frobenius error of the output Y (the metric of this
table), nor of the attention matrix: it is an oracle, a lower bound for Linformer with this E, not
a method that meets new inputs. Its time is the apply's (the fit, O(n²(d + k)), is excluded like
training) and its memory the plan's, F included (k·n values; the fit's n × n scratch is not).

**Fitted Linformer against MRA-2.** At the same entries per row, MRA-2's error is at most fitted
Linformer's at $fwin of $fpts (n, budget) points of run 1 (budgets of all n entries, where both are
exact to rounding, left out): $fverdict. $fdom1 of the $fbase1 fitted-Linformer (time, error)
points at n ≥ $NMIN are matched or beaten in both time and error by an MRA-2 / MRA-2-s
point${fmissed1:+ (not dominated:$fmissed1)}. Fitted Linformer is left out of the trade-off claim's
baselines (an oracle fitted to the scored head is not one of the methods the paper compares, and a
claim against it would test MRA against a lower bound); the claim holds, or not, against the
paper's baselines only, and the comparison with the oracle is the informative row
fig4-fitted-linformer.

**Controls**, by the same rules in each run: the trade-off rule with Linformer in MRA's place
(its errors above 1 cannot dominate anything accurate); exact attention against a second timing
of itself (a forced-equal pair: the speed rule must not pass it); the slope rule on exact
attention (quadratic).

Cells: relative error / CPU time in ms / plan memory in MiB.

$tablemd

EOF
figure mra_table7
