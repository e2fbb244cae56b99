# tests/cli_reliability.sh — outputs that are never lost, half-written or
# left behind, honest exit statuses, tolerant but never silent input
# parsing. Each block names the case it guards.
. "$(dirname "$0")/cli_lib.sh"

D=$TMP/in
O=$TMP/o
mkdir -p "$D" "$O"
printf '%s\n' 0.1 -0.2 0.3 2 0.3 -0.2 0.1 > "$D/c.tsv"
printf '%s\n' 1 2 3 4 > "$D/x.tsv"

# run ARGS...: skit with stdout/stderr to $TMP/stdout, $TMP/stderr; $rc
run() { "$SKIT" "$@" >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?; }
# expect RC WORD WHAT: the last run's status and a word of its stderr
expect() {
  if [ "$rc" -ne "$1" ]; then fail "$3: exit $rc, expected $1 ($(head -c 400 "$TMP/stderr"))"
  elif [ -n "$2" ] && ! grep -q -- "$2" "$TMP/stderr"; then fail "$3: stderr lacks '$2': $(head -c 400 "$TMP/stderr")"
  else pass; fi
}
# empty_dir DIR WHAT: nothing (no output, no temporary) left in DIR
empty_dir() {
  if [ -n "$(ls -A "$1")" ]; then fail "$2: left $(ls -A "$1" | tr '\n' ' ')"; else pass; fi
}
fresh() { rm -rf "$O" && mkdir -p "$O"; }

# ---- two outputs on one path: exit 2 naming both options ---------------------
fresh
run tno --n 16 --d 2 --coeffs "$O/t.npy" -o "$O/t.npy"
expect 2 "--coeffs" "tno --coeffs X -o X"; grep -q -- "-o" "$TMP/stderr" || fail "tno: message lacks -o"
empty_dir "$O" "tno --coeffs X -o X"
run tno --n 16 --d 2 --save-params "$O/p.npy" -o "$O/./p.npy"
expect 2 "--save-params" "tno --save-params X -o ./X"
run tno --n 16 --d 2 --stats "$O/s.tsv" -o "$O/sub/../s.tsv"
expect 2 "" "tno --stats X -o sub/../X"   # sub/ does not exist: refused either way
mkdir -p "$O/sub"
run tno --n 16 --d 2 --stats "$O/s.tsv" -o "$O/sub/../s.tsv"
expect 2 "--stats" "tno --stats X -o sub/../X"
rmdir "$O/sub"
ln -s s.tsv "$O/link.tsv"
run tno --n 16 --d 2 --stats "$O/s.tsv" -o "$O/link.tsv"
expect 2 "--stats" "tno --stats X -o (symlink to X)"
rm -f "$O/link.tsv"
run ski-bound --n 16 --r 4 --plot "$O/b.png" -o "$O/b.png"
expect 2 "--plot" "ski-bound --plot X -o X"
run mra haar --n 64 --matrix-out "$O/m.tsv" -o "$O/m.tsv"
expect 2 "--matrix-out" "mra haar --matrix-out X -o X"
run mra haar --n 64 --matrix-out "$O/m.tsv" --histogram-out "$O/m.tsv"
expect 2 "--histogram-out" "mra haar --matrix-out X --histogram-out X"
run toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv" -o "$O/y.tsv" --plot "$O/y.tsv"
expect 2 "" "toeplitz -o X --plot X"
run bench toeplitz --sizes 16 --json "$O/b.json" -o "$O/b.json"
expect 2 "--json" "bench toeplitz --json X -o X"
run ski-bound --study extrapolation --n-train 16 --factor 2 --curves "$O/c.tsv" -o "$O/c.tsv"
expect 2 "--curves" "ski-bound --curves X -o X"
empty_dir "$O" "same-path refusals"

# ---- all outputs commit together; write failures: strerror, exit 3 -----------
# RLIMIT_FSIZE (ulimit -f, in blocks of 1024 bytes) makes a large write fail
# with EFBIG while a small one succeeds: the secondary output fails, the
# primary must not remain.
fresh
# y.npy: 128 KiB, the coefficients 256 KiB, the limit 192 KiB
(trap '' XFSZ; ulimit -f 192; "$SKIT" tno --n 2048 --d 8 --seed 1 -o "$O/y.npy" --stats "$O/s.tsv" \
   --coeffs "$O/big.npy" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
expect 3 "File too large" "tno: --coeffs fails on a full disk"
empty_dir "$O" "tno: --coeffs fails (all outputs commit together)"
(trap '' XFSZ; ulimit -f 192; "$SKIT" tno --n 512 --d 8 --seed 1 -o "$O/y.npy" --stats "$O/s.tsv" \
   --coeffs "$O/co.npy" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
expect 0 "" "tno: three small outputs under the same limit"
[ -s "$O/y.npy" ] && [ -s "$O/s.tsv" ] && [ -s "$O/co.npy" ] && pass || fail "tno: outputs missing after success"
fresh
(trap '' XFSZ; ulimit -f 4; "$SKIT" ski-bound --study extrapolation --n-train 64 --factor 4 \
   --curves "$O/c.tsv" -o "$O/e.tsv" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
expect 3 "File too large" "ski-bound: --curves fails on a full disk"
empty_dir "$O" "ski-bound: --curves fails"
# stdout that cannot be written: I/O failure, not bad input
run toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv"
"$SKIT" toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv" >/dev/full 2>"$TMP/stderr"; rc=$?
expect 3 "No space left on device" "stdout on /dev/full"

# ---- a dangling symbolic link as -o: the file it names is created -----------
fresh
ln -s y-target.tsv "$O/y-link.tsv"
run toeplitz matvec --coeffs "$D/c.tsv" --x "$D/x.tsv" -o "$O/y-link.tsv"
expect 0 "" "-o LINK (dangling)"
[ -L "$O/y-link.tsv" ] && [ -s "$O/y-target.tsv" ] && pass || fail "-o LINK (dangling): the link was replaced"

# ---- --plot to a temporary file, checked, then renamed ------------------------
if command -v gnuplot >/dev/null 2>&1; then
  for ext in png svg; do
    fresh
    fresh
    (trap '' XFSZ; ulimit -f 2; "$SKIT" mra haar --n 64 --keep 0.1 -o "$O/h.tsv" --plot "$O/h.$ext" \
       >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
    expect 3 "incomplete" "--plot $ext on a full disk"
    empty_dir "$O" "--plot $ext on a full disk"
  done
  fresh
  run mra haar --n 64 --keep 0.1 -o "$O/h.tsv" --plot "$O/h.svg"
  expect 0 "" "--plot svg"
  [ -s "$O/h.svg" ] && [ -s "$O/h.tsv" ] && pass || fail "--plot svg: figure or table missing"
else
  echo "skipped: --plot cases (no gnuplot)"
fi

# ---- signals: temporaries removed, then death by the signal -------------------
fresh
"$SKIT" bench toeplitz --sizes 2^12..2^20 --no-scipy -o "$O/b.tsv" --json "$O/b.json" \
    >"$TMP/stdout" 2>"$TMP/stderr" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] && pass || fail "SIGTERM during bench: exit $rc, expected 143 (death by SIGTERM)"
empty_dir "$O" "SIGTERM during bench -o FILE"

# a large table being written when SIGTERM comes: its temporary goes too
fresh
"$SKIT" tno --n 2^20 --d 8 -o "$O/y.tsv" >"$TMP/stdout" 2>"$TMP/stderr" &
pid=$!
for _ in $(seq 600); do ls "$O" | grep -q '\.tmp\.' && break; sleep 0.1; done
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] && pass || fail "SIGTERM while writing -o FILE: exit $rc, expected 143"
empty_dir "$O" "SIGTERM while writing -o FILE"

# SIGTERM while bench tno waits for its PyTorch peer (minutes in a real run):
# the peer stops too, and its output's temporary goes. A stand-in peer
# records its PID and sleeps; bench tno runs it only where torch imports.
if /usr/bin/python3 -c "import torch" >/dev/null 2>&1; then
  PD=$TMP/peerdir
  mkdir -p "$PD/bench/peers" "$TMP/peertmp"
  cat > "$PD/bench/peers/tno_torch.py" <<'EOF'
import os, time
with open(os.environ["PEER_PIDFILE"], "w") as f:
    f.write(str(os.getpid()))
time.sleep(60)
EOF
  fresh
  PEER_PIDFILE=$TMP/peer.pid TMPDIR=$TMP/peertmp SKIT_DATADIR=$PD "$SKIT" bench tno --quick --no-sweep \
      --threads 1 -o "$O/t.tsv" >"$TMP/stdout" 2>"$TMP/stderr" &
  pid=$!
  for _ in $(seq 1200); do [ -s "$TMP/peer.pid" ] && break; sleep 0.1; done
  peer=$(cat "$TMP/peer.pid" 2>/dev/null || true)
  kill -TERM $pid
  wait $pid; rc=$?
  if [ -z "$peer" ]; then fail "bench tno never started the stand-in PyTorch peer: $(tail -c 300 "$TMP/stderr")"
  else
    [ $rc -eq 143 ] && pass || fail "SIGTERM during the PyTorch peer: exit $rc, expected 143"
    # a zombie is stopped (orphans wait for a reaper that a container may lack);
    # the peer gets the signal from skit and ends on its own time: up to 30 s
    for _ in $(seq 300); do
      state=$(ps -o stat= -p "$peer" 2>/dev/null || true)
      [ -z "$state" ] || [ "${state#Z}" != "$state" ] && break
      sleep 0.1
    done
    if [ -n "$state" ] && [ "${state#Z}" = "$state" ]; then
      fail "SIGTERM during bench tno: its PyTorch peer still runs"; kill "$peer"
    else pass; fi
    empty_dir "$TMP/peertmp" "SIGTERM during the PyTorch peer (the peer's temporary output)"
    empty_dir "$O" "SIGTERM during the PyTorch peer (-o FILE)"
  fi
else
  echo "skipped: SIGTERM during the PyTorch peer (torch not importable)"
fi

# ---- reproduce: completion markers, --merge, --allow-partial, the lock --------
FAKE=$TMP/datadir
mkdir -p "$FAKE/experiments" "$FAKE/plots"
cp "$(dirname "$0")/../experiments/common.sh" "$FAKE/experiments/"
for e in 01_one 02_two 03_three; do
  cat > "$FAKE/experiments/$e.sh" <<'EOF'
. "$SKIT_DATADIR/experiments/common.sh"
PAPER=TNN
ONE_RUN=deterministic
[ -n "${SLOW_EXPERIMENT:-}" ] && [ "$EXP" = "$SLOW_EXPERIMENT" ] && sleep 30
[ "${FAIL_EXPERIMENT:-}" = "$EXP" ] && exit 3
claim c1 "a claim" 1 holds "-"
echo "note of $EXP" | note
EOF
done
# partial_merge DIR MISSING WHAT: --merge exits 1 naming MISSING and writes
# no report; --allow-partial writes one whose first lines name MISSING
partial_merge() {
  SKIT_DATADIR=$FAKE run reproduce --out "$1" --merge
  expect 1 "$2" "--merge: $3"
  [ ! -e "$1/REPORT.md" ] && pass || fail "--merge wrote REPORT.md: $3"
  SKIT_DATADIR=$FAKE run reproduce --out "$1" --merge --allow-partial
  expect 0 "" "--merge --allow-partial: $3"
  head -n 4 "$1/REPORT.md" | tr '\n' ' ' | grep -q "Partial report.*$2" && pass ||
    fail "partial REPORT.md does not name $2 ($3): $(head -n 4 "$1/REPORT.md")"
}
R=$TMP/rep
SKIT_DATADIR=$FAKE "$SKIT" reproduce --out "$R" --shard 1/3 >"$TMP/stdout" 2>"$TMP/stderr" || fail "reproduce shard: $(cat "$TMP/stderr")"
partial_merge "$R" "shard 2/3, shard 3/3" "after one of three shards"
# shards of one run may run at the same time (they share the directory lock)
SKIT_DATADIR=$FAKE SLOW_EXPERIMENT=02_two "$SKIT" reproduce --out "$R" --shard 2/3 >/dev/null 2>&1 &
pid=$!
# its shard's lock taken (the lock file holds its PID): a fixed delay can
# pass before a loaded machine has started it
for _ in $(seq 600); do [ "$(cat "$R/.skit-reproduce.lock.2-of-3" 2>/dev/null)" = "$pid" ] && break; sleep 0.1; done
SKIT_DATADIR=$FAKE run reproduce --out "$R" --shard 3/3
expect 0 "" "two shards of one run at the same time"
SKIT_DATADIR=$FAKE run reproduce --out "$R" --shard 2/3
expect 2 "in use by PID $pid" "the same shard twice at the same time"
SKIT_DATADIR=$FAKE run reproduce --out "$R" --merge
expect 2 "in use by PID" "--merge while a shard runs"
kill -TERM $pid; wait $pid
SKIT_DATADIR=$FAKE "$SKIT" reproduce --out "$R" --shard 2/3 >/dev/null 2>&1
# --only: the plan holds only what was selected
R3=$TMP/rep3
SKIT_DATADIR=$FAKE "$SKIT" reproduce --out "$R3" --only 01_one,03_three --shard 1/2 >/dev/null 2>&1
SKIT_DATADIR=$FAKE "$SKIT" reproduce --out "$R3" --only 01_one,03_three --shard 2/2 >/dev/null 2>&1
SKIT_DATADIR=$FAKE run reproduce --out "$R3" --merge
expect 0 "" "--merge of shards run with --only"
SKIT_DATADIR=$FAKE run reproduce --out "$R" --merge
expect 0 "" "--merge after every shard"
grep -q "Partial" "$R/REPORT.md" && fail "complete REPORT.md says partial" || pass
# interrupted: SIGTERM while 02_two runs; its marker must not exist, no
# temporary left, the experiment's process group stopped
R2=$TMP/rep2
SKIT_DATADIR=$FAKE SLOW_EXPERIMENT=02_two "$SKIT" reproduce --out "$R2" >"$TMP/stdout" 2>"$TMP/stderr" &
pid=$!
for _ in $(seq 300); do [ -e "$R2/notes/.02_two.md.tmp".* ] 2>/dev/null && break; ls "$R2/notes" 2>/dev/null | grep -q '02_two' && break; sleep 0.2; done
sleep 0.5
# a second run on the same directory: refused while the first holds it
SKIT_DATADIR=$FAKE run reproduce --out "$R2"
expect 2 "in use by PID $pid" "concurrent reproduce --out SAME"
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] && pass || fail "SIGTERM during reproduce: exit $rc, expected 143"
# the script ends by the signal skit passed on, after skit: wait for it (it
# removes its temporaries on the way out), not a fixed time
for _ in $(seq 300); do pgrep -f "$FAKE/experiments/02_two.sh" >/dev/null || break; sleep 0.1; done
if pgrep -f "sleep 30" -P "$(pgrep -d, -f "$FAKE/experiments/02_two.sh" || echo 1)" >/dev/null 2>&1 ||
   pgrep -f "$FAKE/experiments/02_two.sh" >/dev/null; then
  fail "SIGTERM during reproduce: the experiment script still runs"
else pass; fi
leftover=$(find "$R2" -name '*.tmp*')
[ -z "$leftover" ] && pass || fail "SIGTERM during reproduce left: $leftover"
[ -e "$R2/done/01_one" ] && [ ! -e "$R2/done/02_two" ] && pass || fail "markers after an interrupted run: $(ls "$R2/done")"
SKIT_DATADIR=$FAKE run reproduce --out "$R2" --merge
expect 1 "02_two" "--merge after an interrupted run"
# a completion marker whose claims file was lost, emptied or cut short: exit
# 1 naming it; --allow-partial lists it as missing and shows none of its rows
R4=$TMP/rep4
SKIT_DATADIR=$FAKE "$SKIT" reproduce --out "$R4" >/dev/null 2>&1 || fail "reproduce into $R4"
cp -r "$R4" "$TMP/rep4.orig"
for damage in deleted empty truncated; do
  rm -rf "$R4" && cp -r "$TMP/rep4.orig" "$R4"
  case $damage in
    deleted) rm "$R4/claims/02_two.tsv" ;;
    empty) : > "$R4/claims/02_two.tsv" ;;
    truncated) head -c 60 "$TMP/rep4.orig/claims/02_two.tsv" > "$R4/claims/02_two.tsv" ;;
  esac
  rm -f "$R4/REPORT.md"
  partial_merge "$R4" "claims/02_two.tsv" "the claims file of a completed experiment $damage"
  grep -q '\*\*\*\*\|\[02_two\]' "$R4/REPORT.md" && fail "--allow-partial ($damage): a row of 02_two in REPORT.md" || pass
done
# a script that finishes without a claim failed: an error row, not a gap
FAKE2=$TMP/datadir2
mkdir -p "$FAKE2/experiments" "$FAKE2/plots"
cp "$FAKE/experiments/common.sh" "$FAKE2/experiments/"
printf '. "$SKIT_DATADIR/experiments/common.sh"\necho "no claim" | note\n' > "$FAKE2/experiments/01_silent.sh"
SKIT_DATADIR=$FAKE2 run reproduce --out "$TMP/rep5"
expect 1 "" "reproduce of an experiment that records no claim"
grep -q $'\terror\t' "$TMP/rep5/claims/01_silent.tsv" 2>/dev/null && pass ||
  fail "an experiment without claims: no error row in claims/01_silent.tsv"

# ---- finite input, non-finite results: scaled inside, or exit 1 saying so ----
fresh
# samples near DBL_MAX: the FFT sums overflowed (H_fft inf, the agreement nan)
printf '%s\n' 1e307 -1e307 1e308 5e305 > "$D/h-big.tsv"
for mode in transform causal; do
  run hilbert $mode --input "$D/h-big.tsv"
  expect 0 "" "hilbert $mode near DBL_MAX"
  grep -qi 'nan\|inf' "$TMP/stdout" && fail "hilbert $mode near DBL_MAX: $(grep -i 'nan\|inf' "$TMP/stdout" | head -2)" || pass
done
# a transform that does not fit in a double: exit 1, nothing written
printf '%s\n' 1.7e308 1.7e308 1.7e308 -1.7e308 -1.7e308 -1.7e308 > "$D/h-over.tsv"
run hilbert transform --input "$D/h-over.tsv" -o "$O/h.tsv"
expect 1 "exceeds the double range" "hilbert transform beyond the double range"
empty_dir "$O" "hilbert transform beyond the double range"
# float32 attention of V near FLT_MAX: exit 1, not rel_error nan
"$SKIT" mra --n 64 --d 8 --save-inputs "$D" --methods exact -o "$O/m.tsv" >/dev/null 2>&1 || fail "mra --save-inputs"
{ head -c 128 "$D/v.npy"; for _ in $(seq 512); do printf '\x64\x24\x72\x05\x76\x08\xef\x47'; done; } > "$D/v-big.npy" # 3.3e38
fresh
run mra --q "$D/q.npy" --k "$D/k.npy" --v "$D/v-big.npy" --precision f32 --methods exact -o "$O/m.tsv"
expect 1 "float32" "mra --precision f32 with V near FLT_MAX"
empty_dir "$O" "mra --precision f32 with V near FLT_MAX"
# Q and K whose logits q.k pass DBL_MAX: the Haar and bounds analyses exit 1
# (the attention matrix's softmax failed), nothing written; Q scaled to
# 1e200 from the saved inputs (its header kept, every value 1e200)
{ head -c 128 "$D/q.npy"; for _ in $(seq 512); do printf '\x5a\x62\xd7\xd7\x18\xe7\x74\x69'; done; } > "$D/q-big.npy"
for m in haar bounds; do
  fresh
  run mra $m --q "$D/q-big.npy" --k "$D/q-big.npy" -o "$O/m.tsv"
  expect 1 "overflow double precision" "mra $m with logits past DBL_MAX"
  empty_dir "$O" "mra $m with logits past DBL_MAX"
  run mra $m --q "$D/q.npy" --k "$D/k.npy" -o "$O/m.tsv"
  expect 0 "" "mra $m on the same inputs unscaled"
done
fresh
# an MLP whose parameters (finite, 1e300) overflow its response: decay
# summary exits 1 rather than printing rows of nan (a .npy of 160 doubles)
header="{'descr': '<f8', 'fortran_order': False, 'shape': (160,), }"
header=$(printf '%-117s' "$header")
{ printf '\x93NUMPY\x01\x00\x76\x00%s\n' "$header"
  for _ in $(seq 160); do printf '\x9c\x75\x00\x88\x3c\xe4\x37\x7e'; done; } > "$D/p-big.npy" # 1e300
run decay summary --width 8 --layers 1 --channels 8 --activation relu --norm rms --construction half \
  --params "$D/p-big.npy" -o "$O/d.tsv"
expect 1 "overflowed double precision" "decay summary with parameters of 1e300"
empty_dir "$O" "decay summary with parameters of 1e300"

# ---- reproduce --slurm without a cluster: stand-ins for sbatch (records its
# arguments, prints a job ID) and squeue (lists $QUEUED); the array tasks
# run here by hand. tests/cli_slurm.sh runs a real cluster.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "$*" >> "$SBATCH_LOG"\necho $((100 + $(wc -l < "$SBATCH_LOG")))\n' > "$TMP/bin/sbatch"
printf '#!/bin/sh\n[ -n "$QUEUED" ] && echo "$QUEUED"\nexit 0\n' > "$TMP/bin/squeue"
chmod +x "$TMP/bin/sbatch" "$TMP/bin/squeue"
S=$TMP/slurm-run
slurm() { PATH=$TMP/bin:$PATH SBATCH_LOG=$TMP/sbatch.log QUEUED=${QUEUED:-} SKIT_DATADIR=$FAKE run "$@"; }
task() { # I [VAR=VALUE...]: array task I of the latest submission
  local i=$1; shift
  env "$@" SLURM_ARRAY_TASK_ID="$i" SLURM_JOB_ID=$((500 + i)) SKIT_DATADIR="$FAKE" \
    "$SKIT" reproduce --out "$S" --slurm-task "$(ls -d "$S"/slurm/tasks-* | tail -n 1)" >/dev/null 2>&1
}
slurm reproduce --slurm --out "$S" --slurm-opt=--partition=p --slurm-opt=--mem=1G
expect 0 "array job 101 and the merge as job 102" "--slurm submission"
grep -q -- "--array=1-3 --partition=p --mem=1G" "$TMP/sbatch.log" &&
  grep -q -- "--dependency=afterany:101 --partition=p --mem=1G --wrap=.* --merge" "$TMP/sbatch.log" && pass ||
  fail "sbatch arguments: $(cat "$TMP/sbatch.log")"
QUEUED=101_1 slurm reproduce --out "$S"
expect 2 "in use by Slurm jobs 101_1" "a run while the Slurm run's jobs are queued"
task 1; task 2 FAIL_EXPERIMENT=02_two
env SLOW_EXPERIMENT=03_three SLURM_ARRAY_TASK_ID=3 SLURM_JOB_ID=503 SKIT_DATADIR="$FAKE" \
  "$SKIT" reproduce --out "$S" --slurm-task "$S/slurm/tasks-1" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -e "$S/shards/.03_three.partial.503/logs/03_three.log" ] && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid; wait $pid
[ -d "$S/shards/01_one" ] && [ -d "$S/shards/02_two.failed" ] && [ ! -e "$S/shards/03_three" ] && pass ||
  fail "shards after a failed and a killed task: $(ls -a "$S/shards")"
slurm reproduce --merge --out "$S"
expect 1 "missing (killed, or not run yet): 03_three; failed (logs in shards/NAME.failed/logs/): 02_two" \
  "--merge of a Slurm run with a failed and a missing shard"
slurm reproduce --merge --allow-partial --out "$S"
expect 0 "" "--merge --allow-partial of a Slurm run"
grep -q "^script.*error" "$S/claims/02_two.tsv" && [ ! -e "$S/claims/03_three.tsv" ] && pass ||
  fail "partial Slurm report: $(ls "$S/claims")"
slurm reproduce --slurm --resume-missing --out "$S"
expect 0 "" "--resume-missing"
[ "$(cat "$S/slurm/tasks-2")" = $'02_two\n03_three' ] && pass || fail "resubmitted: $(cat "$S/slurm/tasks-2")"
task 1; task 2
[ -z "$(ls -a "$S/shards" | grep -e partial -e failed)" ] && pass || fail "shards after resume: $(ls -a "$S/shards")"
slurm reproduce --merge --out "$S"
expect 0 "" "--merge after --resume-missing"
grep -q "Partial" "$S/REPORT.md" && fail "complete Slurm report says partial" || pass
slurm reproduce --slurm --resume-missing --out "$S"
expect 0 "nothing to resubmit" "--resume-missing with nothing missing submits the merge alone"
slurm reproduce --slurm --resume-missing --out "$TMP/none"
expect 2 "holds no Slurm run" "--resume-missing without a run"
[ ! -e "$TMP/none" ] && pass || fail "--resume-missing without a run created its --out"

# ---- memory: RLIMIT_AS counts in the pre-check (exit 2, not a late exit 1) ----
# AddressSanitizer reserves terabytes of address space for its shadow
# memory, so a sanitizer build cannot start under `ulimit -v`: these cases
# run in plain builds only (tests/python.mk exports SKIT_SAN_CFLAGS).
if [ -z "${SKIT_SAN_CFLAGS:-}" ]; then
  (ulimit -v 2000000; "$SKIT" toeplitz matvec --method dense --coeffs "$D/c.tsv" --x "$D/x.tsv" >/dev/null 2>&1) ||
    fail "toeplitz under ulimit -v: a small run must still work"
  (ulimit -v 2000000; "$SKIT" ski-bound --n 8192 --r 128 -o "$O/s.tsv" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  expect 2 "available" "ski-bound --n 8192 --r 128 under ulimit -v 2000000"
  (ulimit -v 2000000; "$SKIT" mra --n 2^22 --methods mra2 -o "$O/m.tsv" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  expect 2 "" "mra --n 2^22 under ulimit -v 2000000"
  awk 'BEGIN { for (i = 0; i < 39999; i++) print 0.001 }' > "$D/c20000.tsv"
  awk 'BEGIN { for (i = 0; i < 20000; i++) print 1 }' > "$D/x20000.tsv"
  (ulimit -v 2000000; "$SKIT" toeplitz matvec --method dense --coeffs "$D/c20000.tsv" --x "$D/x20000.tsv" \
     -o "$O/y.tsv" >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  expect 2 "available" "toeplitz matvec --method dense at n = 20000 under ulimit -v 2000000"
  (ulimit -v 2000000; "$SKIT" bench toeplitz --sizes 2^24 --no-scipy --no-solve -o "$O/b.tsv" \
     >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  expect 2 "available" "bench toeplitz --sizes 2^24 under ulimit -v 2000000"
  (ulimit -v 2000000; timeout 60 "$SKIT" decay summary --fft-size 2^22 --width 4096 -o "$O/d.tsv" \
     >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  expect 2 "2^40" "decay summary --fft-size 2^22 --width 4096"
  (ulimit -v 2000000; "$SKIT" wisdom -o "$O/w.wis" --sizes 2^27 >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  expect 2 "available" "wisdom --sizes 2^27 under ulimit -v 2000000"
  empty_dir "$O" "refusals under ulimit -v"
else
  echo "ulimit -v cases skipped: sanitizer build"
fi

# ---- unbounded input: refused promptly --------------------------------------
timeout 20 "$SKIT" toeplitz matvec --coeffs "$D/c.tsv" --x /dev/zero >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?
expect 2 "NUL" "--x /dev/zero"
limit=2000000; [ -n "${SKIT_SAN_CFLAGS:-}" ] && limit=unlimited  # as above
(ulimit -v $limit; yes 1 | timeout 60 "$SKIT" toeplitz matvec --coeffs "$D/c.tsv" --x /dev/stdin \
   >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
expect 2 "not a regular file" "--x endless pipe"

# ---- O(n^2) work capped, with the limit and the reason --------------------
run tno --n 2^20 --d 64 --verify -o "$O/y.npy"
expect 2 "2^40" "tno --n 2^20 --d 64 --verify"
run mra --n 2^20 --methods exact -o "$O/m.tsv"
expect 2 "2^40" "mra --n 2^20 --methods exact"
run mra bounds --n 2^20 -o "$O/m.tsv"
expect 2 "2^40" "mra bounds --n 2^20"
empty_dir "$O" "O(n^2) caps"

# ---- lenient parsing --------------------------------------------------------
expect_usage_error "empty item" mra --n 8,,16
expect_usage_error "empty item" ski-bound --kernel gaussian,,gaussian
expect_usage_error "empty item" mra --budget 0.1,
expect_usage_error "(0, 1]" mra --budget 0
expect_usage_error "(0, 1]" mra --budget -0.5
expect_usage_error "rounds to 0" mra --n 64 --block 32 --methods mra2 --budget 0.01
expect_usage_error "wraps" decay summary --seed 18446744073709551615 --replicates 3
expect_usage_error "wraps" decay prop1 --seed 18446744073709551614 --replicates 3

# ---- TSV: BOM, \r\n and lone \r, long fields, no numeric row lost ------------
tsv_case() { # NAME TEXT EXPECTED-ROWS
  printf "$2" > "$D/t.tsv"
  "$SKIT" toeplitz solve --spd --coeffs "$D/t.tsv" --b "$D/t.tsv" >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?
  local rows
  rows=$(grep -v '^#' "$TMP/stdout" | tail -n +2 | wc -l)
  if [ $rc -ne 0 ] || [ "$rows" -ne "$3" ]; then fail "TSV $1: exit $rc, $rows rows, expected $3 ($(head -c 300 "$TMP/stderr"))"; else pass; fi
}
tsv_case "BOM" '\xef\xbb\xbf4\n1\n0.5\n0.25\n' 4
tsv_case "CRLF" '4\r\n1\r\n0.5\r\n0.25\r\n' 4
tsv_case "lone CR" '4\r1\r0.5\r0.25\r' 4
tsv_case "header" 'x\n4\n1\n0.5\n0.25\n' 4
zeros=$(printf '%0150d' 0)
tsv_case "long field on line 1" "4.$zeros\n1\n0.5\n0.25\n" 4
tsv_case "long field on line 2" "4\n1.$zeros\n0.5\n0.25\n" 4
printf '1.5x\n1\n0.5\n' > "$D/bad.tsv"
expect_usage_error "line 1" toeplitz solve --spd --coeffs "$D/bad.tsv" --b "$D/bad.tsv"

finish
