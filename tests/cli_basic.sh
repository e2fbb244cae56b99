# tests/cli_basic.sh — dispatcher, help, and the reproduce framework's options.
. "$(dirname "$0")/cli_lib.sh"

expect_ok help && grep -q reproduce "$TMP/stdout" || fail "help does not list reproduce"
expect_ok version && grep -q '^skit [0-9]' "$TMP/stdout" || fail "version output"
for cmd in toeplitz bench reproduce; do
  expect_ok help "$cmd"
  expect_ok "$cmd" --help
done
expect_usage_error "unknown command" no-such-command
expect_usage_error "missing command"
expect_usage_error "--shard" reproduce --shard 3/2 --out "$TMP/out.dir"
expect_usage_error "--shard" reproduce --shard x --out "$TMP/out.dir"
expect_usage_error "unknown option" reproduce --bogus
expect_usage_error "no experiment" reproduce --only no-such-experiment --out "$TMP/out.dir"
expect_usage_error "unknown target" bench no-such-target
expect_ok reproduce --list

# Long options are matched exactly (getopt_long alone would take a unique
# prefix, e.g. --causal for --causal-ski): a prefix is refused in one line
# naming the option it abbreviates, for the programs of their own as for skit.
expect_exact_error() { # MESSAGE skit-args...
  local want=$1; shift
  "$SKIT" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local rc=$?
  if [ $rc -ne 2 ] || [ "$(cat "$TMP/stderr")" != "$want" ] || [ -s "$TMP/stdout" ]; then
    fail "skit $*: exit $rc, stderr '$(cat "$TMP/stderr")', expected 2 and '$want'"
  else
    pass
  fi
}
expect_exact_error "skit train: unknown option '--causal' (did you mean --causal-ski?)" train --causal cumsum
expect_exact_error "skit train: unknown option '--causal' (did you mean --causal-ski?)" train --causal=cumsum
expect_exact_error "skit reproduce: unknown option '--qui' (did you mean --quick?)" reproduce --qui --list
expect_exact_error "skit bench ski: unknown option '--compare' (see 'skit bench ski --help')" bench ski --compare 4
expect_exact_error "skit train: missing value for '--causal-ski' (see 'skit train --help')" train --causal-ski
expect_ok train --causal-ski cumsum --mixer ski --help

# Sharded reproduce + merge: two quick experiments split over two shards give
# the same claims as the report after --merge; a failing script shows as an
# error row. (Both experiments take about a second with --quick.) Shards
# split by list position (i mod N), so the first two always land apart.
first=$("$SKIT" reproduce --list | sed -n '1p' | sed 's/\.sh$//')
last=$("$SKIT" reproduce --list | sed -n '2p' | sed 's/\.sh$//')
out="$TMP/shards"
if expect_ok reproduce --quick --only "$first,$last" --shard 1/2 --out "$out" &&
   expect_ok reproduce --quick --only "$first,$last" --shard 2/2 --out "$out"; then
  [ ! -e "$out/REPORT.md" ] || fail "a shard wrote REPORT.md"
  expect_ok reproduce --merge --out "$out"
  for e in "$first" "$last"; do
    [ -s "$out/claims/$e.tsv" ] || fail "shard output lacks claims/$e.tsv"
    grep -q "\[$e\]" "$out/REPORT.md" || fail "merged REPORT.md lacks $e"
  done
  grep -q '^| \[' "$out/REPORT.md" || fail "REPORT.md has no claim rows"
  ! grep -q '^| \[.*| \*\*error\*\* |' "$out/REPORT.md" || fail "an experiment failed: $(grep error "$out/REPORT.md")"
fi
expect_usage_error "--merge" reproduce --merge --out "$TMP/out.none"
expect_usage_error "--paper-figures" reproduce --paper-figures --out "$TMP/out.dir"
# only a complete full run replaces the committed report
expect_usage_error "--paper-figures" reproduce --paper-figures --quick
expect_usage_error "--paper-figures" reproduce --paper-figures --merge
expect_usage_error "--paper-figures" reproduce --paper-figures --shard 1/2
expect_usage_error "--compare" reproduce --compare

# The verdict API of experiments/common.sh: a claim outside the vocabulary
# fails its script; trials give the majority verdict; disagreeing trials decide nothing.
api="$TMP/api"
mkdir -p "$api/experiments"
cp "$SKIT_DATADIR/experiments/common.sh" "$api/experiments/"
runexp() { # NAME BODY: run a one-off experiment script; its exit status
  printf 'source "$SKIT_DATADIR/experiments/common.sh"\nPAPER=TNN\n%s\n' "$2" > "$api/experiments/$1.sh"
  SKIT="$SKIT" SKIT_OUT="${API_OUT:-$api/out}" SKIT_DATADIR="$api" bash "$api/experiments/$1.sh" 2>"$TMP/api.err"
}
runexp 01_bad 'claim x "c" "m" violated "-"' && fail "common.sh accepted the verdict 'violated'"
[ ! -e "$api/out/claims/01_bad.tsv" ] || fail "a failed experiment left claims"
runexp 02_fails 'trial t fails 1; trial t fails 2; trial t fails 3; claim_trials t "c" "m" "-" value
STABILITY=deterministic check s "c" "m" holds "-"' || fail "trials script failed: $(cat "$TMP/api.err")"
# a claim decided by one run must say why one run suffices
runexp 01_bad 'claim x "c" "m" holds "-"' && fail "common.sh accepted a one-run claim without ONE_RUN"
grep -q "ONE_RUN" "$TMP/api.err" || fail "the one-run refusal does not name ONE_RUN: $(cat "$TMP/api.err")"
runexp 01_bad 'ONE_RUN=sometimes; claim x "c" "m" holds "-"' && fail "common.sh accepted ONE_RUN=sometimes"
[ ! -e "$api/out/claims/01_bad.tsv" ] || fail "a refused one-run claim left claims"
head -n 1 "$api/out/claims/02_fails.tsv" | grep -q '^id	source	claim	measured	verdict	margin	stability	control$' ||
  fail "claims file has no header row"
grep -q '^t	TNN	c	m	fails	-	fails in 3 of 3; value 1..3	$' "$api/out/claims/02_fails.tsv" ||
  fail "trials: $(cat "$api/out/claims/02_fails.tsv")"
grep -q '^s	skit	' "$api/out/claims/02_fails.tsv" || fail "check has no source skit"
rm -f "$api/out/claims/01_bad.tsv"
# --strict: a paper claim that fails makes the exit status 1; a skit check does not
# (--allow-partial: these scripts ran outside reproduce, so they left no markers)
"$SKIT" reproduce --merge --allow-partial --out "$api/out" >/dev/null 2>&1 || fail "--merge without --strict failed"
"$SKIT" reproduce --merge --allow-partial --strict --out "$api/out" >/dev/null 2>&1 && fail "--strict ignored a failing paper claim"
[ -s "$api/out/verdicts.json" ] || fail "no verdicts.json"
grep -q '"verdict": "fails"' "$api/out/verdicts.json" || fail "verdicts.json lacks the verdict"
grep -q '^| TNN | 1 |' "$api/out/REPORT.md" || fail "REPORT.md has no TNN scoreboard row"
sed -i 's/	fails	-	fails in[^	]*	$/	holds	-	deterministic	/' "$api/out/claims/02_fails.tsv"
"$SKIT" reproduce --merge --allow-partial --strict --out "$api/out" >/dev/null 2>&1 || fail "--strict failed with no failing paper claim"

# Controls: an empirical verdict needs a negative control (or NO_CONTROL,
# which makes it inconclusive); a control with the claim's own verdict makes
# the claim inconclusive; an exact claim needs none; a timing claim needing
# more CPUs than its affinity mask holds is inconclusive (loaded machine).
export API_OUT="$api/controls"
three() { printf 'trial %s %s 1; trial %s %s 2; trial %s %s 3\n' "$1" "$2" "$1" "$2" "$1" "$2"; }
runexp 01_bad "$(three t reproduced | sed 's/\\"//g'); claim_trials t c m - value" &&
  fail "common.sh accepted an empirical claim without a control"
grep -q "control" "$TMP/api.err" || fail "the control refusal does not say so: $(cat "$TMP/api.err")"
runexp 01_bad 'ONE_RUN="fixed data"; claim x "c" "m" "not reproduced" "-"' &&
  fail "common.sh accepted a fixed-data empirical claim without a control"
runexp 03_controls "$(three a reproduced)
$(three a.control reproduced)
control_trials a \"same operator twice\" ratio
claim_trials a c m - value
$(three b reproduced)
control b \"same operator twice\" \"not reproduced\"
claim_trials b c m - value
trial f \"not reproduced\" 1; trial f \"not reproduced\" 2; trial f \"not reproduced\" 3
control f \"same operator twice\" \"not reproduced\"
claim_trials f c m - value
NO_CONTROL=\"no control measured\"
$(three c reproduced)
claim_trials c c m - value
NO_CONTROL=
ONE_RUN=deterministic
claim d c m reproduced -
TIMING_CPUS=100000 control e \"same operator twice\" \"not reproduced\"
TIMING_CPUS=100000 claim e c m reproduced -
control i \"same operator twice\" reproduced
TIMING_CPUS=100000 claim i c m reproduced -
trial u reproduced 1; trial u reproduced 2; trial u \"not reproduced\" 3
control u \"same operator twice\" \"not reproduced\"
claim_trials u c m - value" || fail "controls script failed: $(cat "$TMP/api.err")"
ctl="$API_OUT/claims/03_controls.tsv"
head -n 1 "$ctl" | grep -q '	stability	control$' || fail "claims header has no control column"
grep -q '^a	TNN	c	m	inconclusive	the test could not tell the claim from its control (both reproduced); -	reproduced in 3 of 3; value 1..3	same operator twice (reproduced in 3 of 3; ratio 1..3) → reproduced$' "$ctl" ||
  fail "a control with the claim's verdict did not make it inconclusive: $(grep '^a' "$ctl")"
grep -q '^b	TNN	c	m	reproduced	-	reproduced in 3 of 3; value 1..3	same operator twice → not reproduced$' "$ctl" ||
  fail "a control with another verdict changed the claim: $(grep '^b' "$ctl")"
grep -q '^f	TNN	c	m	not reproduced	-	' "$ctl" || fail "a negative verdict that agrees with its negative control changed: $(grep '^f' "$ctl")"
grep -q '^c	TNN	c	m	inconclusive	no control measured: measured verdict reproduced; -	.*	none: no control measured$' "$ctl" ||
  fail "NO_CONTROL did not make the claim inconclusive: $(grep '^c' "$ctl")"
grep -q '^d	TNN	c	m	reproduced	-	deterministic	$' "$ctl" || fail "an exact claim changed: $(grep '^d' "$ctl")"
grep -q '^u	TNN	c	m	inconclusive	repeats disagree (unstable: reproduced in 2 of 3): measured verdict reproduced; -	unstable: reproduced in 2 of 3; value 1..3	same operator twice → not reproduced$' "$ctl" ||
  fail "trials that disagree decided the claim: $(grep '^u' "$ctl")"
grep -q '^e	TNN	c	m	inconclusive	loaded machine (load .*needs 100000 CPU(s)): measured verdict reproduced; -	deterministic; load [0-9.]* (1 min), [0-9]* online CPUs, affinity ' "$ctl" ||
  fail "a timing claim short of CPUs was decided: $(grep '^e' "$ctl")"
grep -q '^i	TNN	c	m	inconclusive	loaded machine (.*): measured verdict reproduced; the test could not tell the claim from its control (both reproduced); -	' "$ctl" ||
  fail "a loaded-machine row does not name the verdict it measured: $(grep '^i' "$ctl")"
"$SKIT" reproduce --merge --allow-partial --out "$API_OUT" >/dev/null 2>&1 || fail "--merge of the controls failed"
grep -q '^| experiment | claim | verdict | stability | control |$' "$API_OUT/REPORT.md" ||
  fail "REPORT.md has no control column"
# a claim's row: its id linking to its entry, the verdict, the stability
# without the machine state, the control's verdict alone
row() { grep -F -x -q "| [03_controls](#03_controls) | [\`$1\`](#03_controls-$1): c | **$2** | $3 | $4 |" "$API_OUT/REPORT.md" ||
  fail "the row of $1: $(grep -F "[\`$1\`]" "$API_OUT/REPORT.md")"; }
row a inconclusive "reproduced in 3 of 3; value 1..3" "→ reproduced"
row b reproduced "reproduced in 3 of 3; value 1..3" "→ not reproduced"
row c inconclusive "reproduced in 3 of 3; value 1..3" none
row d reproduced deterministic -
row e inconclusive deterministic "→ not reproduced"
row u inconclusive "unstable: reproduced in 2 of 3; value 1..3" "→ not reproduced"
bad=$(claim_rows "$API_OUT/REPORT.md" | grep -v -E ' \| (-|none|→ [a-z ]+) \|$')
[ -z "$bad" ] || fail "claim rows without a control cell: $bad"
missing=$(entries_missing "$API_OUT/claims" "$API_OUT/REPORT.md")
[ -z "$missing" ] || fail "claims without their full entry: $missing"
grep -q '^- stability: deterministic; load [0-9.]* (1 min), ' "$API_OUT/REPORT.md" || fail "the entry of e lacks the load"
grep -q '^| \*\*inconclusive\*\* | .*could not tell the claim from its control' "$API_OUT/REPORT.md" ||
  fail "the legend lacks inconclusive"
grep -q '^- \[03_controls\](#03_controls): `a` (the test could not tell the claim from its control), `c` (no control measured), `e` (loaded machine), `i` (loaded machine), `u` (its repeats or seeds disagree)$' "$API_OUT/REPORT.md" ||
  fail "the list at the top lacks the inconclusive claims: $(grep '03_controls' "$API_OUT/REPORT.md" | head -3)"
grep -q '"control": "same operator twice → not reproduced"' "$API_OUT/verdicts.json" || fail "verdicts.json lacks the control"
# training logs: a run that did not finish (no final validation loss)
# stops the experiment, naming its log; a finished one becomes a row
unset API_OUT
runexp 01_bad 'SEEDS=1; T=$DATA/t.tsv; C=$DATA/c.tsv
printf "# x: final validation loss 1.5 (nan x floor)\n" > $DATA/log_a_1.tsv
printf "# steps taken 3 of 9\n" > $DATA/log_b_1.tsv
none() { echo -; }
collect_runs model extra none a b' && fail "collect_runs accepted a log without a final loss"
grep -q "log_b_1.tsv reports no final validation loss" "$TMP/api.err" ||
  fail "collect_runs did not name the unfinished log: $(cat "$TMP/api.err")"
grep -q '^a	1	1.5	-$' "$api/out/data/01_bad/t.tsv" || fail "collect_runs: $(cat "$api/out/data/01_bad/t.tsv")"
export API_OUT="$api/controls"
# an experiment whose inconclusive claims share a reason names it once
runexp 04_shared 'NO_CONTROL="no control measured"; ONE_RUN="fixed data"
claim g c m reproduced -
claim h c m "not reproduced" -' || fail "shared-reason script failed: $(cat "$TMP/api.err")"
"$SKIT" reproduce --merge --allow-partial --out "$API_OUT" >/dev/null 2>&1 || fail "--merge of the controls failed"
grep -q '^- \[04_shared\](#04_shared) (no control measured): `g`, `h`$' "$API_OUT/REPORT.md" ||
  fail "the list at the top does not group a shared reason: $(grep '04_shared' "$API_OUT/REPORT.md" | head -2)"
# long measured and margin texts go to the claim's entry, not its row; the
# entries start their own lines after notes that end without one
long=$(printf 'n = %d: error %d.5e-16; ' $(seq 1 40))
runexp 05_long "NO_CONTROL=\"no control measured\"; ONE_RUN=\"fixed data\"
printf 'a note without an end of line' | note
claim l c \"$long\" reproduced \"margin $long\"" || fail "long-row script failed: $(cat "$TMP/api.err")"
"$SKIT" reproduce --merge --allow-partial --out "$API_OUT" >/dev/null 2>&1 || fail "--merge of the long rows failed"
over=$(row_length_over 200 "$API_OUT/REPORT.md")
[ -z "$over" ] || fail "claim rows too long: $over"
missing=$(entries_missing "$API_OUT/claims" "$API_OUT/REPORT.md")
[ -z "$missing" ] || fail "claims without their full entry: $missing"
[ "$(grep -x -A 2 'a note without an end of line' "$API_OUT/REPORT.md")" = $'a note without an end of line\n\n### 05_long: l' ] ||
  fail "the entry does not follow the notes on its own line: $(grep -A 2 'a note without' "$API_OUT/REPORT.md")"
unset API_OUT
finish
