# tests/cli_progress.sh — a command asked for a large size says so early on
# stderr, before its reference computation runs: the stage, its cost
# (~flops and a time), then a heartbeat line while that stage runs (it
# calls back to the progress helper only between stages), the first one
# stamped within 2 s of the command's own clock; --quiet keeps stderr
# empty. Each command is stopped once the line looked for has come.
. "$(dirname "$0")/cli_lib.sh"

# run_until NAME SECONDS REGEX skit-args...: start, stop it once a line of
# its stderr matches REGEX, it has ended, or SECONDS have passed; stderr in
# $TMP/NAME.err. The wait is generous: on a loaded machine (or under
# valgrind) the process itself may start seconds late; the time that counts
# is the one the line states, on the command's clock.
run_until() {
  local name=$1 seconds=$2 re=$3 pid i; shift 3
  "$SKIT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  pid=$!
  for i in $(seq $((seconds * 10))); do
    grep -q -- "$re" "$TMP/$name.err" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# expect_heartbeat NAME STAGE-REGEX WHAT: NAME's stderr has a "[N s] STAGE"
# line, and its first "[N s]" line (of any stage) has N <= 10. That first
# line comes at 1.5 s of the command's clock ("[2 s]"); only a heartbeat
# thread kept off the CPU for seconds would stamp it later, while without
# it the next line is due after 30 s: 10 s tells the two apart on any
# machine. (A stage's own line may come later: the stages before it, such
# as drawing the inputs, take what the machine gives them.)
expect_heartbeat() {
  local s
  s=$(sed -n 's|.*\[\([0-9]*\) s\] .*|\1|p' "$TMP/$1.err" | head -n 1)
  if [ -z "$s" ]; then fail "$3: no progress line: $(cat "$TMP/$1.err")"
  elif [ "$s" -gt 10 ]; then fail "$3: the first progress line came after $s s: $(cat "$TMP/$1.err")"
  elif ! grep -q "\[[0-9]* s\] $2" "$TMP/$1.err"; then fail "$3: no progress line for '$2': $(cat "$TMP/$1.err")"
  else pass; fi
}

# the exact reference of n = 65536 (minutes): its cost first, then the heartbeat
run_until mra 60 '\[[0-9]* s\] exact reference' mra --n 65536 -o "$TMP/mra.tsv"
if grep -q 'exact reference, n = 65536.*flops, about' "$TMP/mra.err"; then pass
else fail "skit mra --n 65536: no cost line: $(cat "$TMP/mra.err")"; fi
expect_heartbeat mra "exact reference" "skit mra --n 65536"
[ ! -e "$TMP/mra.tsv" ] && pass || fail "skit mra stopped: left $TMP/mra.tsv"

# past the 1.5 s at which a heartbeat would come (or at its first byte)
run_until quiet 3 '.' mra --n 65536 --quiet -o "$TMP/quiet.tsv"
[ ! -s "$TMP/quiet.err" ] && pass || fail "skit mra --quiet wrote to stderr: $(cat "$TMP/quiet.err")"

# a dense SVD of a 4096 x 4096 Toeplitz matrix
run_until ski 60 'SVD of T.*flops, about' ski-bound --n 4096 --kernel gaussian -o "$TMP/ski.tsv"
if grep -q 'SVD of T.*flops, about' "$TMP/ski.err"; then pass
else fail "skit ski-bound --n 4096: no cost line: $(cat "$TMP/ski.err")"; fi

# FFTW's patient planner on one long prime length (tens of seconds), and
# the contour integrals of nine MLPs on 2^20 nodes: their stage early
run_until wisdom 60 '\[[0-9]* s\] planning length' wisdom --sizes 1048573 --planner patient -o "$TMP/w.wisdom"
expect_heartbeat wisdom "planning length 1048573" "skit wisdom --planner patient"
[ ! -e "$TMP/w.wisdom" ] && pass || fail "skit wisdom stopped: left $TMP/w.wisdom"
run_until analytic 60 '\[[0-9]* s\] MLP' analytic --points 1048576 -o "$TMP/a.tsv"
expect_heartbeat analytic "MLP [0-9]/9" "skit analytic --points 2^20"

run_until appendix 60 '\[[0-9]* s\] sparsity' mra-appendix sparse-lowrank --n 8192 -o "$TMP/ma.tsv"
expect_heartbeat appendix "sparsity" "skit mra-appendix sparse-lowrank --n 8192"

# a small request states no cost
expect_ok mra --n 256 --methods exact
grep -q flops "$TMP/stderr" && fail "skit mra --n 256: a cost line for a small request: $(cat "$TMP/stderr")"
finish
