# experiments/common.sh — sourced by every experiment script (NN_name.sh).
# `skit reproduce` sets SKIT, SKIT_OUT, SKIT_DATADIR and SKIT_QUICK.
# An experiment: runs skit subcommands into $DATA, draws figures with `plot`,
# and records each claim with `claim`, its verdict computed here from the
# numbers just measured (helpers: verdict_le, verdict_ge, ratio).
set -euo pipefail
: "${SKIT:?run experiments through 'skit reproduce'}" "${SKIT_OUT:?}" "${SKIT_DATADIR:?}"
SKIT_QUICK=${SKIT_QUICK:-0}
EXP=$(basename "$0" .sh)
DATA="$SKIT_OUT/data/$EXP"
FIGURES="$SKIT_OUT/figures"
mkdir -p "$DATA" "$FIGURES" "$SKIT_OUT/claims" "$SKIT_OUT/notes"
# per-process temporary names: two runs never share one
CLAIMS_TMP="$SKIT_OUT/claims/.$EXP.tsv.tmp.$$"
NOTES_TMP="$SKIT_OUT/notes/.$EXP.md.tmp.$$"
: > "$CLAIMS_TMP"
: > "$NOTES_TMP"

# Claims and notes appear only if the script finishes; a failing script is
# reported by `skit reproduce` as an error row instead.
_finish() {
  local rc=$?
  if [ "$rc" -eq 0 ]; then
    mv "$CLAIMS_TMP" "$SKIT_OUT/claims/$EXP.tsv"
    mv "$NOTES_TMP" "$SKIT_OUT/notes/$EXP.md"
  else
    rm -f "$CLAIMS_TMP" "$NOTES_TMP"
  fi
}
trap _finish EXIT
# a signal (skit reproduce stopped) ends the script through _finish too
trap 'exit 143' TERM
trap 'exit 130' INT

# pick QUICK FULL: the value for --quick runs or for full runs
pick() { if [ "$SKIT_QUICK" = 1 ]; then echo "$1"; else echo "$2"; fi; }

# claim ID "claim in one line" "measured" VERDICT "margin"
# VERDICT: holds | violated | not applicable | reproduced | not reproduced
claim() {
  local f
  for f in "$@"; do case "$f" in *$'\t'*|*$'\n'*) echo "claim: field has a tab or newline: $f" >&2; return 1;; esac; done
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> "$CLAIMS_TMP"
}

# note: append markdown (from stdin) to this experiment's section of REPORT.md
note() { cat >> "$NOTES_TMP"; }

# figure NAME: markdown link lines for figures/NAME.{png,svg}
figure() { printf '![%s](figures/%s.png) ([svg](figures/%s.svg))\n\n' "$1" "$1" "$1" | note; }

# plot SCRIPT DATAFILE NAME [gnuplot-assignments]: draw plots/SCRIPT.gp from
# DATAFILE into figures/NAME.png and figures/NAME.svg
plot() {
  local script=$1 data=$2 name=$3 vars=${4:-}
  local ext term
  for ext in png svg; do
    if [ $ext = png ]; then term="set terminal pngcairo size 900,600 enhanced font 'sans,11'"
    else term="set terminal svg size 900,600 dynamic enhanced font 'sans,12'"; fi
    gnuplot -e "$term; set output '$FIGURES/$name.$ext.tmp.$$'; datafile='$data'; set datafile separator tab; $vars" \
      "$SKIT_DATADIR/plots/$script.gp"
    mv "$FIGURES/$name.$ext.tmp.$$" "$FIGURES/$name.$ext"
  done
}

# Numeric helpers (awk, so they work on any float text).
# verdict_le X LIMIT -> "holds" if X <= LIMIT else "violated"
verdict_le() { awk -v x="$1" -v l="$2" 'BEGIN{print (x+0 <= l+0) ? "holds" : "violated"}'; }
verdict_ge() { awk -v x="$1" -v l="$2" 'BEGIN{print (x+0 >= l+0) ? "holds" : "violated"}'; }
# ratio A B -> A/B with 3 significant digits
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b+0 == 0) print "inf"; else printf "%.3g\n", a/b }'; }
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
