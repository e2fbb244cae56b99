# tests/report_committed.sh — the committed report (paper_figures/) obeys
# the verdict rule and comes from the committed code: every empirical row
# names its control, no positive verdict stands beside a control with the
# same verdict, no verdict stands on repeats that disagree, verdicts.json carries the controls, and a rerun of the fast
# deterministic experiments gives the committed verdicts. REPORT.md is the
# current generator's: short claim rows, each linking to its claim's full
# entry in its experiment's section.
. "$(dirname "$0")/cli_lib.sh"
PF="$SKIT_DATADIR/paper_figures"
[ -s "$PF/verdicts.json" ] || { echo "no committed paper_figures/ here (a tarball build): skipped"; exit 77; }

# the rule, on every committed claims file
for f in "$PF"/claims/*.tsv; do
  head -n 1 "$f" | grep -q '	stability	control$' || fail "$(basename "$f"): no control column"
  bad=$(awk -F'\t' 'NR > 1 && $2 != "skit" && $2 != "run" {
      empirical = ($5 == "reproduced" || $5 == "not reproduced") && $7 !~ /^(deterministic|every case)(;|$)/
      if (empirical && $8 == "") print $1 ": empirical verdict without a control"
      n = split($8, part, " → "); cv = part[n]
      if (n > 1 && cv == $5 && ($5 == "reproduced" || $5 == "holds")) print $1 ": its control is " cv " too"
      if ($7 ~ /^unstable: / && $5 != "inconclusive" && $5 != "informative") print $1 ": its repeats disagree, yet " $5 }' "$f")
  [ -z "$bad" ] || fail "$(basename "$f" .tsv): $bad"
done
claims=$(grep -c '"experiment": ' "$PF/verdicts.json")
controls=$(grep -c '"control": ' "$PF/verdicts.json")
[ "$claims" -eq "$controls" ] || fail "verdicts.json: $controls controls for $claims claims"

# REPORT.md: rows short enough to read (the full entries hold the rest)
over=$(row_length_over 320 "$PF/REPORT.md")
[ -z "$over" ] || fail "REPORT.md: claim rows too long (regenerate paper_figures/REPORT.md): $over"
bad=$(claim_rows "$PF/REPORT.md" | grep -v -E ' \| (-|none|→ [a-z ]+) \|$' | head -3)
[ -z "$bad" ] || fail "REPORT.md: claim rows without a control cell: $bad"
missing=$(entries_missing "$PF/claims" "$PF/REPORT.md" | head -5)
[ -z "$missing" ] || fail "REPORT.md: claims without their full entry (regenerate it): $missing"

# verdict EXPERIMENT ID FILE: a claim's verdict in a verdicts.json
verdict() {
  grep "\"experiment\": \"$1\", \"id\": \"$2\"," "$3" | sed 's/.*"verdict": "\([^"]*\)".*/\1/'
}
# the fast experiments whose every row is deterministic or checked on every
# case: rerun at full size (seconds), their verdicts must be the committed ones
FAST="02_tnn_special_cases,21_decay_table,22_theorem3_bound,24_prop1,25_hilbert"
if expect_ok reproduce --only "$FAST" --out "$TMP/rerun"; then
  for e in ${FAST//,/ }; do
    ids=$(grep "\"experiment\": \"$e\"," "$PF/verdicts.json" | sed 's/.*"id": "\([^"]*\)".*/\1/')
    [ -n "$ids" ] || fail "$e: no committed claims"
    for id in $ids; do
      committed=$(verdict "$e" "$id" "$PF/verdicts.json"); rerun=$(verdict "$e" "$id" "$TMP/rerun/verdicts.json")
      [ "$committed" = "$rerun" ] || fail "$e/$id: committed '$committed', rerun '$rerun' (regenerate paper_figures/)"
    done
  done
fi
finish
