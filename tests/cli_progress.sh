# tests/cli_progress.sh — a command asked for a large size says so within
# 2 s on stderr, before its reference computation runs: the stage, its
# cost (~flops and a time), then a heartbeat line while that stage runs
# (it calls back to the progress helper only between stages); --quiet
# keeps stderr empty. Each command is stopped after 2 s.
. "$(dirname "$0")/cli_lib.sh"

# run_for_2s NAME skit-args...: start, wait 2 s, stop it; stderr in $TMP/NAME.err
run_for_2s() {
  local name=$1; shift
  "$SKIT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  local pid=$!
  sleep 2
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# the exact reference of n = 65536 (minutes): its cost first, then the heartbeat
run_for_2s mra mra --n 65536 -o "$TMP/mra.tsv"
if grep -q 'exact reference, n = 65536.*flops, about' "$TMP/mra.err"; then pass
else fail "skit mra --n 65536: no cost line within 2 s: $(cat "$TMP/mra.err")"; fi
if grep -q '\[[0-9]* s\] exact reference' "$TMP/mra.err"; then pass
else fail "skit mra --n 65536: no progress line within 2 s: $(cat "$TMP/mra.err")"; fi
[ ! -e "$TMP/mra.tsv" ] && pass || fail "skit mra stopped: left $TMP/mra.tsv"

run_for_2s quiet mra --n 65536 --quiet -o "$TMP/quiet.tsv"
[ ! -s "$TMP/quiet.err" ] && pass || fail "skit mra --quiet wrote to stderr: $(cat "$TMP/quiet.err")"

# a dense SVD of a 4096 x 4096 Toeplitz matrix
run_for_2s ski ski-bound --n 4096 --kernel gaussian -o "$TMP/ski.tsv"
if grep -q 'SVD of T.*flops, about' "$TMP/ski.err"; then pass
else fail "skit ski-bound --n 4096: no cost line within 2 s: $(cat "$TMP/ski.err")"; fi

# FFTW's patient planner on one long prime length (tens of seconds), and
# the contour integrals of nine MLPs on 2^20 nodes: their stage within 2 s
run_for_2s wisdom wisdom --sizes 1048573 --planner patient -o "$TMP/w.wisdom"
if grep -q '\[[0-9]* s\] planning length 1048573' "$TMP/wisdom.err"; then pass
else fail "skit wisdom --planner patient: no progress line within 2 s: $(cat "$TMP/wisdom.err")"; fi
[ ! -e "$TMP/w.wisdom" ] && pass || fail "skit wisdom stopped: left $TMP/w.wisdom"
run_for_2s analytic analytic --points 1048576 -o "$TMP/a.tsv"
if grep -q '\[[0-9]* s\] MLP [0-9]/9' "$TMP/analytic.err"; then pass
else fail "skit analytic --points 2^20: no progress line within 2 s: $(cat "$TMP/analytic.err")"; fi

run_for_2s appendix mra-appendix sparse-lowrank --n 8192 -o "$TMP/ma.tsv"
if grep -q '\[[0-9]* s\] sparsity' "$TMP/appendix.err"; then pass
else fail "skit mra-appendix sparse-lowrank --n 8192: no progress line within 2 s: $(cat "$TMP/appendix.err")"; fi

# a small request states no cost
expect_ok mra --n 256 --methods exact
grep -q flops "$TMP/stderr" && fail "skit mra --n 256: a cost line for a small request: $(cat "$TMP/stderr")"
finish
