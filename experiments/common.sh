# experiments/common.sh — sourced by every experiment script (NN_name.sh).
# `skit reproduce` sets SKIT, SKIT_OUT, SKIT_DATADIR and SKIT_QUICK; for an
# experiment split into units (`units`, below) also SKIT_UNIT, SKIT_COMBINE
# or SKIT_LIST_UNITS.
# An experiment: runs skit subcommands into $DATA, draws figures with `plot`,
# and records each claim with `claim` (a claim of the paper named by $PAPER)
# or `check` (skit's own check, not a paper's claim), its verdict computed
# here from the numbers just measured. The verdict API is documented in
# docs/development.md ("Experiments and verdicts").
set -euo pipefail
: "${SKIT:?run experiments through 'skit reproduce'}" "${SKIT_OUT:?}" "${SKIT_DATADIR:?}"
SKIT_QUICK=${SKIT_QUICK:-0}
EXP=$(basename "$0" .sh)
SKIT_UNIT=${SKIT_UNIT:-}
SKIT_COMBINE=${SKIT_COMBINE:-0}
SKIT_LIST_UNITS=${SKIT_LIST_UNITS:-0}
# asked for its units, a script that declares none has none
if [ "$SKIT_LIST_UNITS" = 1 ] && ! grep -q '^units ' "$0"; then exit 0; fi
# Run inside the output directory with relative names, so that the command
# lines recorded in the tables' headers carry no machine's absolute path.
mkdir -p "$SKIT_OUT"
cd "$SKIT_OUT"
DATA="data/$EXP"
FIGURES="figures"
mkdir -p "$DATA" "$FIGURES" "$SKIT_OUT/claims" "$SKIT_OUT/notes"
# per-process temporary names: two runs never share one
CLAIMS_TMP="$SKIT_OUT/claims/.$EXP.tsv.tmp.$$"
NOTES_TMP="$SKIT_OUT/notes/.$EXP.md.tmp.$$"
: > "$CLAIMS_TMP"
: > "$NOTES_TMP"

# Claims and notes appear only if the script finishes; a failing script is
# reported by `skit reproduce` as an error row instead. A unit's run (and a
# listing of the units) leaves none: its experiment's claims come from the
# combine step. A script that finished without recording a claim failed
# too: its experiment would vanish from REPORT.md (`skit reproduce --merge`
# refuses such a file).
_finish() {
  local rc=$?
  local whole=0
  [ -z "$SKIT_UNIT" ] && [ "$SKIT_LIST_UNITS" != 1 ] && whole=1
  if [ "$rc" -eq 0 ] && [ "$whole" = 1 ] && [ "$(wc -l < "$CLAIMS_TMP")" -lt 2 ]; then
    echo "$EXP: finished without recording a claim (claim, check or claim_trials)" >&2
    rc=1
  fi
  if [ "$rc" -eq 0 ] && [ "$whole" = 1 ]; then
    mv "$CLAIMS_TMP" "$SKIT_OUT/claims/$EXP.tsv"
    mv "$NOTES_TMP" "$SKIT_OUT/notes/$EXP.md"
  else
    rm -f "$CLAIMS_TMP" "$NOTES_TMP"
    exit "$rc"
  fi
}
trap _finish EXIT
# a signal (skit reproduce stopped) ends the script through _finish too
trap 'exit 143' TERM
trap 'exit 130' INT

# pick QUICK FULL: the value for --quick runs or for full runs
pick() { if [ "$SKIT_QUICK" = 1 ]; then echo "$1"; else echo "$2"; fi; }

# The one verdict vocabulary (REPORT.md defines it at its top):
#   holds | fails | hypothesis not met       (theorems, lemmas, propositions)
#   reproduced | not reproduced              (empirical claims, measurements)
#   inconclusive                             (a claim the test could not decide)
#   informative                              (measured, but not a claim)
VERDICTS="holds|fails|hypothesis not met|reproduced|not reproduced|inconclusive|informative"
CLAIMS_HEADER=$'id\tsource\tclaim\tmeasured\tverdict\tmargin\tstability\tcontrol'
printf '%s\n' "$CLAIMS_HEADER" > "$CLAIMS_TMP"

# claim ID "claim in one line" "measured" VERDICT "margin"
# Source column: $SOURCE if set (check sets "skit"), else $PAPER (each
# script sets PAPER to TNN, SKI-TNN or MRA). Stability column: $STABILITY if
# set (claim_trials sets it), else $ONE_RUN: a claim decided by one run must
# say why one suffices (REPORT.md's legend defines these):
#   deterministic  no random input, or an identity checked to rounding
#   every case     a universal statement checked on every case of a sweep of
#                  random inputs (the measured column counts the cases)
#   fixed data     measured over a fixed real dataset (its heads, its texts)
# A timing or data-dependent claim is never one run: use trial/claim_trials.
#
# Controls. An empirical verdict (reproduced / not reproduced) that is not
# deterministic or checked on every case could come out the same way whether
# or not the claim is true; it needs a negative control: `control ID "what"
# VERDICT` before the claim, measured in the same run with the same code and
# threshold on a configuration where the claim is known to be false (true
# for a "fails"-type claim). A positive verdict (reproduced, holds) that the
# control gets too is "inconclusive": the test could not tell the claim from
# its control. A negative verdict that agrees with the negative control
# stands: the claim behaved like a configuration where it is false. A script
# that has no control for such a claim says so with NO_CONTROL="reason": the
# claim is then recorded "inconclusive".
# Without either, claim refuses the row.
#
# Timing claims set TIMING_CPUS=N (the CPUs the measurement needs): claim
# records the 1-minute load average and the CPU affinity, and a claim
# measured on a loaded machine (load > online CPUs) or with fewer CPUs in its
# affinity mask than it needs is "inconclusive" (loaded machine).
#
# Repeats that disagree. A claim whose trials (repeats or seeds) do not all
# give the same verdict is "inconclusive" (repeats disagree), whatever the
# majority: a verdict that one repeat or one point of a sweep flips is not
# decided by the test.
ONE_RUN=
NO_CONTROL=
CONTROLS="$SKIT_OUT/logs/.controls-$EXP"
rm -rf "$CONTROLS"; mkdir -p "$CONTROLS"
claim() {
  local f source=${SOURCE:-${PAPER:?set PAPER=TNN, SKI-TNN or MRA before the first claim}}
  [ "$#" -eq 5 ] || { echo "claim $1: expected 5 fields, got $#" >&2; return 1; }
  is_verdict "$4" || { echo "claim $1: verdict '$4' is not one of: $VERDICTS" >&2; return 1; }
  for f in "$@"; do case "$f" in *$'\t'*|*$'\n'*) echo "claim: field has a tab or newline: $f" >&2; return 1;; esac; done
  local stability=${STABILITY:-$ONE_RUN}
  case "$stability" in
    "") echo "claim $1: one run, but neither STABILITY nor ONE_RUN says why one run suffices" >&2; return 1;;
    deterministic|"every case"|"fixed data"|*" of "*) ;;
    *) echo "claim $1: stability '$stability' is not deterministic, every case, fixed data or k of m" >&2; return 1;;
  esac
  local verdict=$4 margin=$5 control
  control=$(controlled "$1" "$4" "$stability") || return 1
  if [ -n "$control" ]; then
    verdict=${control%%$'\t'*}; control=${control#*$'\t'}
    [ "$verdict" = "$4" ] || margin="$(control_reason "$4" "$control"); $margin"
  fi
  # repeats or seeds that disagree decide nothing: the majority of 2 of 3
  # is one repeat away from the other verdict
  if [ "${stability#unstable: }" != "$stability" ] && [ "$verdict" != informative ] &&
    [ "$verdict" != inconclusive ]; then
    margin="repeats disagree (${stability%%;*}): measured verdict $verdict; $margin"
    verdict=inconclusive
  fi
  if [ -n "${TIMING_CPUS:-}" ]; then
    local machine; machine=$(machine_state)
    stability="$stability; $machine"
    if [ "$verdict" != informative ] && machine_loaded "$TIMING_CPUS"; then
      margin="loaded machine ($machine; needs $TIMING_CPUS CPU(s)): measured verdict $4; $margin"
      verdict=inconclusive
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$source" "$2" "$3" "$verdict" "$margin" \
    "$stability" "$control" >> "$CLAIMS_TMP"
}
is_verdict() { case "|$VERDICTS|" in *"|$1|"*) return 0;; esac; return 1; }
# control ID "what" VERDICT: the negative control of claim ID (see above)
control() {
  is_verdict "$3" || { echo "control $1: verdict '$3' is not one of: $VERDICTS" >&2; return 1; }
  case "$2" in ""|*$'\t'*|*$'\n'*) echo "control $1: describe the control in one line" >&2; return 1;; esac
  printf '%s\t%s\n' "$3" "$2" > "$CONTROLS/$1"
}
# control_trials ID "what" LABEL: the control of claim ID from the trials
# recorded as `trial ID.control VERDICT VALUE` (majority, with its stability)
control_trials() {
  [ -s "$TRIALS/$1.control" ] || { echo "control_trials $1: no trials recorded for $1.control" >&2; return 1; }
  control "$1" "$2 ($(trials_stability "$1.control" "$3"))" "$(trials_verdict "$1.control")"
}
# controlled ID VERDICT STABILITY: "FINAL_VERDICT<tab>control column", or
# nothing for a claim that needs no control; fails for an empirical claim
# without one
controlled() {
  local cv what
  if [ -f "$CONTROLS/$1" ]; then
    IFS=$'\t' read -r cv what < "$CONTROLS/$1"
    rm -f "$CONTROLS/$1"
    if [ "$cv" = "$2" ] && { [ "$2" = reproduced ] || [ "$2" = holds ]; }; then
      printf 'inconclusive\t%s → %s\n' "$what" "$cv"
    else
      printf '%s\t%s → %s\n' "$2" "$what" "$cv"
    fi
  elif needs_control "$2" "$3"; then
    [ -n "$NO_CONTROL" ] || { echo "claim $1: an empirical verdict ($2, $3) needs a control (control ID \"what\" VERDICT) or NO_CONTROL=\"reason\"" >&2; return 1; }
    printf 'inconclusive\tnone: %s\n' "$NO_CONTROL"
  fi
}
# needs_control VERDICT STABILITY: an empirical verdict that is neither
# deterministic nor checked on every case
needs_control() {
  case "$1" in reproduced|"not reproduced") ;; *) return 1;; esac
  case "$2" in deterministic|"every case") return 1;; esac
}
# control_reason CLAIM_VERDICT CONTROL: why the claim became inconclusive
control_reason() {
  case "$2" in
    "none: "*) echo "no control measured: measured verdict $1" ;;
    *) echo "the test could not tell the claim from its control (both $1)" ;;
  esac
}
# machine_state: "load L (1 min), C online CPUs, affinity LIST (K)"
machine_state() {
  local load list
  load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo nan)
  list=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status 2>/dev/null)
  printf 'load %s (1 min), %s online CPUs, affinity %s (%s)\n' "$load" "$(getconf _NPROCESSORS_ONLN)" \
    "${list:-unknown}" "$(affinity_cpus)"
}
# affinity_cpus: the CPUs this process may run on (its affinity mask, not
# the machine's count: under taskset the mask is what a thread gets)
affinity_cpus() {
  awk '/^Cpus_allowed_list:/ { n = split($2, r, ","); for (i = 1; i <= n; i++) {
      if (split(r[i], ab, "-") == 2) k += ab[2] - ab[1] + 1; else k++ }; print k; f = 1 }
    END { if (!f) print 1 }' /proc/self/status 2>/dev/null || echo 1
}
# machine_loaded NEEDED: true if the 1-minute load exceeds the online CPUs
# or the affinity mask holds fewer than NEEDED CPUs
machine_loaded() {
  awk -v load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)" -v cpus="$(getconf _NPROCESSORS_ONLN)" \
    -v mask="$(affinity_cpus)" -v need="$1" 'BEGIN { exit !(load + 0 > cpus + 0 || mask + 0 < need + 0) }'
}
# check ID "..." "measured" VERDICT "margin": skit's own check (not a paper's
# claim); counted apart from the papers' scoreboards
check() { SOURCE=skit claim "$@"; }

# Repeats and seeds. A timing claim runs REPEATS (>= 3) times, a
# data-dependent claim over several seeds; each run records a trial, and
# claim_trials gives the majority verdict with "VERDICT in k of m" and the
# spread of the value; repeats that disagree are marked "unstable", and
# claim records such a verdict "inconclusive" (repeats disagree).
REPEATS=${SKIT_REPEATS:-3}
TRIALS="$SKIT_OUT/logs/.trials-$EXP"
# units of one experiment may run at once in one directory: only a run that
# records trials (the whole script, or its combine step) starts them afresh
if [ -z "$SKIT_UNIT" ] && [ "$SKIT_LIST_UNITS" != 1 ]; then rm -rf "$TRIALS"; mkdir -p "$TRIALS"; fi
# trial ID VERDICT VALUE: one repeat's (or seed's) verdict and key number
trial() {
  [ -z "$SKIT_UNIT" ] || { echo "trial $1: a unit records data only; decide trials after run_units" >&2; return 1; }
  is_verdict "$2" || { echo "trial $1: bad verdict '$2'" >&2; return 1; }
  printf '%s\t%s\n' "$2" "$3" >> "$TRIALS/$1"
}
# trials_verdict ID: the majority verdict of the trials of ID (a tie goes to
# the verdict that says less: fails / not reproduced / hypothesis not met)
trials_verdict() {
  awk -F'\t' '{c[$1]++} END {
    rank["fails"] = 5; rank["not reproduced"] = 4; rank["hypothesis not met"] = 3
    rank["inconclusive"] = 2.5; rank["informative"] = 2; rank["holds"] = 1; rank["reproduced"] = 1
    for (v in c) if (best == "" || c[v] > c[best] || (c[v] == c[best] && rank[v] > rank[best])) best = v
    print best }' "$TRIALS/$1"
}
# trials_stability ID LABEL: "holds in 3 of 3; LABEL 1.1..1.2" or
# "unstable: holds in 2 of 3; ..." (the majority verdict's count)
trials_stability() {
  local v; v=$(trials_verdict "$1")
  awk -F'\t' -v v="$v" -v label="$2" '{m++; if ($1 == v) k++; x = $2 + 0
      if (m == 1 || x < lo) lo = x; if (m == 1 || x > hi) hi = x }
    END { printf "%s%s in %d of %d; %s %.3g..%.3g\n", (k < m ? "unstable: " : ""), v, k, m, label, lo, hi }' \
    "$TRIALS/$1"
}
# trials_median ID: median of the trials' values
trials_median() { cut -f2 "$TRIALS/$1" | stat median; }
# claim_trials ID "claim" "measured" "margin" LABEL: a claim whose verdict is
# the majority of its trials (use SOURCE=skit claim_trials for a skit check)
claim_trials() {
  local id=$1
  [ -s "$TRIALS/$id" ] || { echo "claim_trials $id: no trials recorded" >&2; return 1; }
  STABILITY=$(trials_stability "$id" "$5") claim "$id" "$2" "$3" "$(trials_verdict "$id")" "$4"
}
# repeats: "1 2 .. REPEATS"
repeats() { seq 1 "$REPEATS"; }

# note: append markdown (from stdin) to this experiment's section of REPORT.md
note() { cat >> "$NOTES_TMP"; }

# figure NAME: the markdown line for figures/NAME.png (its SVG, PDF and EPS
# lie beside it in a run's output; the committed report keeps the PNG)
figure() { printf '![%s](figures/%s.png)\n\n' "$1" "$1" | note; }

# plot SCRIPT DATAFILE NAME [gnuplot-assignments]: draw plots/SCRIPT.gp from
# DATAFILE into figures/NAME.{png,svg,pdf,eps} (PNG for screens, the others
# for print: pdfcairo and epscairo, vector, 6 x 4 inches). Every plot script
# loads plots/style.gp (one colour, point type and dash per method).
plot() {
  local script=$1 data=$2 name=$3 vars=${4:-}
  local ext term
  for ext in png svg pdf eps; do
    case $ext in
      png) term="set terminal pngcairo size 900,600 enhanced font 'sans,11'" ;;
      svg) term="set terminal svg size 900,600 dynamic enhanced font 'sans,12'" ;;
      pdf) term="set terminal pdfcairo size 6in,4in enhanced font 'sans,10'" ;;
      eps) term="set terminal epscairo size 6in,4in enhanced font 'sans,10'" ;;
    esac
    gnuplot -e "$term; set output '$FIGURES/$name.$ext.tmp.$$'; datafile='$data'; set datafile separator tab; plotdir='$SKIT_DATADIR/plots'; $vars" \
      "$SKIT_DATADIR/plots/$script.gp"
    undate "$FIGURES/$name.$ext.tmp.$$" "$ext"
    mv "$FIGURES/$name.$ext.tmp.$$" "$FIGURES/$name.$ext"
  done
}
# undate FILE EXT: cairo stamps PDF and EPS files with the time of drawing;
# a fixed stamp keeps regenerated figures identical when the data are (the
# PDF's replacement has the same length, so its byte offsets stay valid)
undate() {
  case $2 in
    pdf) sed -i 's|/CreationDate (D:[0-9]\{14\}Z)|/CreationDate (D:19700101000000Z)|' "$1" ;;
    eps) sed -i 's|^%%CreationDate: .*|%%CreationDate: none|' "$1" ;;
  esac
}

# Numeric helpers (awk, so they work on any float text).
# verdict_le X LIMIT [YES NO] -> YES (default holds) if X <= LIMIT, else NO
# (default fails); e.g. verdict_ge X 0.95 reproduced "not reproduced"
verdict_le() { awk -v x="$1" -v l="$2" -v y="${3:-holds}" -v n="${4:-fails}" 'BEGIN{print (x+0 <= l+0) ? y : n}'; }
verdict_ge() { awk -v x="$1" -v l="$2" -v y="${3:-holds}" -v n="${4:-fails}" 'BEGIN{print (x+0 >= l+0) ? y : n}'; }

# ratio A B -> A/B with 3 significant digits
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b+0 == 0) print "inf"; else printf "%.3g\n", a/b }'; }
# calc EXPR: an awk expression's value, 4 significant digits
calc() { awk "BEGIN { printf \"%.4g\n\", $1 }"; }
# pct X: X as a signed percentage, e.g. +12%
pct() { awk -v x="$1" 'BEGIN { printf "%+.0f%%\n", 100 * x }'; }
# in_range X LO HI: reproduced if LO <= X <= HI (a paper's stated range),
# else not reproduced
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { print (x + 0 >= lo + 0 && x + 0 <= hi + 0) ? "reproduced" : "not reproduced" }'; }
# other_rep: the repeat after $rep (cyclically), for a timing claim whose
# control times the same code in two repeats
other_rep() { echo $(( rep % REPEATS + 1 )); }
# fmt X -> 3 significant digits
fmt() { awk -v x="$1" 'BEGIN{printf "%.3g\n", x}'; }
# column FILE NAME: values of the named column of a skit TSV (comments skipped)
column() {
  awk -F'\t' -v name="$2" '/^#/ {next} !h {for (i=1;i<=NF;i++) if ($i==name) c=i; h=1; if (!c) {print "no column " name > "/dev/stderr"; exit 1}; next} {print $c}' "$1"
}
# colmax FILE NAME / colmin FILE NAME: extreme of a column
colmax() { column "$1" "$2" | awk 'NR==1||$1>m{m=$1} END{printf "%.6g\n", m}'; }
colmin() { column "$1" "$2" | awk 'NR==1||$1<m{m=$1} END{printf "%.6g\n", m}'; }

# rows FILE "KEY=VALUE ..." COL: values of column COL in the rows of a skit
# TSV where every KEY=VALUE holds
rows() {
  awk -F'\t' -v conds="$2" -v name="$3" '
    /^#/ {next}
    !h {for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; nc = split(conds, cs, " "); next}
    {ok = 1; for (j = 1; j <= nc; j++) {split(cs[j], kv, "="); if ($idx[kv[1]] != kv[2]) ok = 0}
     if (ok) print $idx[name]}' "$1"
}
# stat max|min|median: of the numbers on stdin ("nan" if none)
stat() { sort -g | awk -v s="$1" '{v[NR] = $1} END {if (!NR) {print "nan"; exit}
  if (s == "max") print v[NR]; else if (s == "min") print v[1]; else print v[int((NR + 1) / 2)]}'; }

# licence_corpus FILE: the byte-level text corpus of the training
# experiments, built where it is missing: every regular file of
# /usr/share/common-licenses (Debian's base-files, on every Debian system),
# by name in the C locale, concatenated (237 320 bytes on Debian 13; its
# size and sha256 go into the notes). `skit train --task text` holds out the
# last 10 % of the bytes for validation.
licence_corpus() {
  local f
  [ -s "$1" ] && return 0
  : > "$1.tmp.$$"
  for f in $(ls /usr/share/common-licenses 2>/dev/null | LC_ALL=C sort); do
    f=/usr/share/common-licenses/$f
    if [ -f "$f" ] && [ ! -L "$f" ]; then cat "$f" >> "$1.tmp.$$"; fi
  done
  if [ ! -s "$1.tmp.$$" ]; then
    rm -f "$1.tmp.$$"
    echo "$EXP: no licence texts in /usr/share/common-licenses (Debian's base-files) to build the corpus from" >&2
    return 1
  fi
  mv "$1.tmp.$$" "$1"
}
# corpus_text FILE: "237320 bytes, sha256 e702fc128a22ec5f…" for the notes
corpus_text() { printf '%s bytes, sha256 `%s…`' "$(wc -c < "$1")" "$(sha256sum "$1" | cut -c1-16)"; }

# final_loss LOG: the final validation loss a `skit train -o LOG` reports
final_loss() { sed -n 's/.*final validation loss \([^ ]*\) .*/\1/p' "$1"; }
# collect_runs KEY EXTRA FN MODEL...: the training logs $DATA/log_MODEL_SEED.tsv
# of every seed in $SEEDS into the table $T (columns KEY, seed, val_loss,
# then EXTRA: the tab-separated names of what `FN LOG` prints for each log)
# and the learning curves $C (curve_rows); a log without a final
# validation loss (a run that did not finish) stops the experiment
collect_runs() {
  local key=$1 extra=$2 fn=$3 seed m log loss
  shift 3
  printf '%s\tseed\tval_loss\t%s\n' "$key" "$extra" > "$T"
  printf 'series\t%s\tseed\tstep\tval_loss\n' "$key" > "$C"
  for seed in $SEEDS; do for m in "$@"; do
    log="$DATA/log_${m}_$seed.tsv"
    loss=$(final_loss "$log")
    [ -n "$loss" ] || { echo "$EXP: $log reports no final validation loss" >&2; return 1; }
    printf '%s\t%s\t%s\t%s\n' "$m" "$seed" "$loss" "$("$fn" "$log")" >> "$T"
    curve_rows "$log" "$m" "$seed" >> "$C"
  done; done
}
# control_lr LR: the learning rate of the seed-paired control (1 % larger)
control_lr() { calc "1.01 * $1"; }
# Seed-paired training claims (a table $T of columns model, seed, val_loss;
# $SEEDS, $GAP and $STEPS set by the script). `skit train --seed` fixes the
# initialisation, the training batches and the validation batches, so two
# runs of one seed are compared on the same validation tokens; runs of two
# seeds are not (their validation sets differ), and no claim or control
# here compares across seeds.
#   val_of MODEL SEED        MODEL's final validation loss at SEED
#   excess A SA B SB         B's loss (seed SB) over A's (seed SA), in %
#   seed_ablation ID BETTER WORSE PAPER TEXT CONTROL   the claim that
#     BETTER's loss is below WORSE's by GAP % or more, one trial per seed,
#     with its control under the same rule and seed: CONTROL in WORSE's
#     place, CONTROL being BETTER with a change known not to order the
#     losses (its learning rate control_lr, 1 % larger): how far two runs
#     that differ in nothing that matters drift apart
val_of() { rows "$T" "model=$1 seed=$2" val_loss; }
excess() { awk -v a="$(val_of "$1" "$2")" -v b="$(val_of "$3" "$4")" 'BEGIN {printf "%+.2f\n", 100 * (b / a - 1)}'; }
seed_ablation() {
  local id=$1 a=$2 b=$3 paper=$4 text=$5 c=$6 seed e measured=""
  for seed in $SEEDS; do
    e=$(excess "$a" "$seed" "$b" "$seed")
    trial "$id" "$(verdict_ge "$e" "$GAP" reproduced "not reproduced")" "$e"
    e=$(excess "$a" "$seed" "$c" "$seed")
    trial "$id.control" "$(verdict_ge "$e" "$GAP" reproduced "not reproduced")" "$e"
    measured="$measured${measured:+; }seed $seed: $a $(printf %.4f "$(val_of "$a" "$seed")"), $b $(printf %.4f "$(val_of "$b" "$seed")") ($(excess "$a" "$seed" "$b" "$seed")%)"
  done
  control_trials "$id" "$c (a 1 % larger learning rate) in $b's place, same seed" "excess (%) over seeds ${SEEDS// /,}"
  claim_trials "$id" "$text ($paper)" "validation loss (nats per byte) after $STEPS steps: $measured" \
    "$b's loss over $a's >= $GAP % per seed (skit's threshold)" "excess (%) over seeds ${SEEDS// /,}"
}
# curve_rows LOG NAME SEED: the learning curve of LOG as rows "NAME-SEED,
# NAME, SEED, step, val_loss" (tab-separated), for the training figures
curve_rows() {
  awk -F'\t' -v m="$2" -v s="$3" '!/^#/ && $1 != "step" && $3 != "nan" {
    printf "%s-%s\t%s\t%s\t%s\t%s\n", m, s, m, s, $1, $3}' "$1"
}

# Units: an experiment whose seeds or configurations train independently
# splits into units, so that shards (--shard) and Slurm array tasks run them
# apart and the merge combines them, with the data files of a run on one
# machine. The script declares its units, names of [A-Za-z0-9._-], on a line
# of its own starting with "units" (skit reproduce looks for that line), then
# runs them:
#   units NAME...          the list (SKIT_LIST_UNITS=1: print it, one
#                          "skit-unit NAME" line each, and stop)
#   run_units FUNCTION     FUNCTION NAME for every unit: all of them in a
#                          whole run; only $SKIT_UNIT, then exit, in a unit's
#                          run; none in the combine step (SKIT_COMBINE=1)
# A unit writes only its own files under $DATA and never records trials,
# claims or notes; everything after run_units (tables built from the units'
# files, trials, claims, notes, figures) is the combine step, run after
# every unit. What comes before `units` runs in every mode.
UNITS=
units() {
  local u
  [ "$#" -gt 0 ] || { echo "units: no unit named" >&2; return 1; }
  for u in "$@"; do
    case "$u" in *[!A-Za-z0-9._-]*) echo "units: '$u' is not a unit name ([A-Za-z0-9._-])" >&2; return 1;; esac
  done
  UNITS="$*"
  # marked, apart from whatever else the script printed
  if [ "$SKIT_LIST_UNITS" = 1 ]; then printf 'skit-unit %s\n' "$@"; exit 0; fi
  if [ -n "$SKIT_UNIT" ]; then
    case " $UNITS " in *" $SKIT_UNIT "*) ;; *) echo "SKIT_UNIT=$SKIT_UNIT: $EXP has the units: $UNITS" >&2; return 2;; esac
  fi
}
run_units() {
  local u
  [ -n "$UNITS" ] || { echo "run_units: declare the units first (units NAME...)" >&2; return 1; }
  if [ -n "$SKIT_UNIT" ]; then "$1" "$SKIT_UNIT"; exit 0; fi
  [ "$SKIT_COMBINE" = 1 ] && return 0
  for u in $UNITS; do "$1" "$u"; done
}
