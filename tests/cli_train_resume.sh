# tests/cli_train_resume.sh — `skit train` checkpoints: N steps, a stop and
# --resume for M more give the parameters, AdamW moments and log of N + M
# uninterrupted steps bit for bit (1 and 2 threads, several mixers; with
# --plateau, the resumed run stops at the whole run's step); a
# signal during training leaves a checkpoint to resume from (or none), never
# a partial one or DIR.tmp.PID; every consumer (train --resume, tno
# --params) refuses a checkpoint that does not match its options, or that
# is cut short, corrupted, of another shape or another format version,
# with exit 2 naming the file or option; a full disk exits 3 with the
# system's reason; too little memory is refused up front (exit 2).
. "$(dirname "$0")/cli_lib.sh"

SEED=${SKIT_TEST_SEED:-$RANDOM}
echo "seed $SEED (set SKIT_TEST_SEED to repeat)"
small="--n 16 --d 8 --batch 2 --rpe-width 8 --eval-batches 2 --seed $SEED"

# same_run A B WHAT: every array and the log's step/loss/val/lr/norm columns equal
same_run() {
  local f bad=
  for f in "$1"/*.npy; do cmp -s "$f" "$2/$(basename "$f")" || bad="$bad $(basename "$f")"; done
  [ -z "$bad" ] || { fail "$3: differs in$bad"; return; }
  if [ -n "${4:-}" ] && ! diff <(grep -v '^#' "$4" | cut -f 1-5) <(grep -v '^#' "$5" | cut -f 1-5) >/dev/null; then
    fail "$3: the logs differ"; return
  fi
  pass
}

# ---- N + M steps = a stop after N, two resumes -------------------------------
for cfg in "--mixer tno" "--mixer fd --objective masked --precision f32" "--mixer attention --eval-every 4" \
           "--mixer tno --learn-decay --decay 0.9 --task text" "--mixer toeplitz --objective masked" \
           "--mixer fd --rpe-input scaled" "--mixer mra2s" "--mixer mra2s --objective masked --precision f32"; do
  for t in 1 2; do
    rm -rf "$TMP"/full "$TMP"/ck "$TMP"/ck2
    expect_ok train $cfg $small --steps 12 --threads "$t" --quiet -o "$TMP/full.tsv" --save "$TMP/full" || continue
    expect_ok train $cfg $small --steps 12 --stop-after 5 --threads "$t" --quiet -o "$TMP/part.tsv" --save "$TMP/ck"
    grep -q "stopped after step 5 of 12" "$TMP/part.tsv" || fail "$cfg: the stopped run's log does not say so"
    # the checkpoint's own directory as --save: replaced atomically
    expect_ok train --resume "$TMP/ck" --stop-after 3 --threads "$t" --quiet -o /dev/null --save "$TMP/ck"
    expect_ok train --resume "$TMP/ck" --threads "$t" --quiet -o "$TMP/resumed.tsv" --save "$TMP/ck2"
    same_run "$TMP/full" "$TMP/ck2" "$cfg, $t threads: 5 + 3 + 4 steps against 12" "$TMP/full.tsv" "$TMP/resumed.tsv"
  done
done

# ---- options against the checkpoint -----------------------------------------
rm -rf "$TMP/ck"
expect_ok train $small --steps 10 --stop-after 4 --quiet -o /dev/null --save "$TMP/ck"
# a checkpoint names what it is
for f in format kind mixer n d steps lr seed tno.op tno.decay; do
  grep -q "^$f	" "$TMP/ck/model.tsv" || fail "model.tsv lacks the field $f"
done
expect_ok train --resume "$TMP/ck" --mixer tno --n 16 --stop-after 1 --quiet -o /dev/null
expect_usage_error "--mixer" train --resume "$TMP/ck" --mixer fd
expect_usage_error "--steps" train --resume "$TMP/ck" --steps 20
expect_usage_error "--seed" train --resume "$TMP/ck" --seed $((SEED + 1))
expect_usage_error "--untied" train --resume "$TMP/ck" --untied
expect_usage_error "--lr" train --resume "$TMP/ck" --lr 0.02
# --positions alibi is recorded: resuming with another value is refused
expect_ok train $small --mixer attention --positions alibi --steps 10 --stop-after 2 --quiet -o /dev/null \
  --save "$TMP/ck_alibi"
grep -q "^positions	alibi$" "$TMP/ck_alibi/model.tsv" || fail "model.tsv lacks positions alibi"
expect_ok train --resume "$TMP/ck_alibi" --positions alibi --stop-after 1 --quiet -o /dev/null
expect_usage_error "--positions" train --resume "$TMP/ck_alibi" --positions rope
# --glu 0 likewise: recorded, resumed, another value refused
expect_ok train $small --glu 0 --steps 10 --stop-after 2 --quiet -o /dev/null --save "$TMP/ck_glu0"
grep -q "^glu	0$" "$TMP/ck_glu0/model.tsv" || fail "model.tsv lacks glu 0"
expect_ok train --resume "$TMP/ck_glu0" --stop-after 1 --quiet -o /dev/null
expect_usage_error "--glu" train --resume "$TMP/ck_glu0" --glu 16
# --rpe-input scaled likewise
expect_ok train $small --rpe-input scaled --steps 10 --stop-after 2 --quiet -o /dev/null --save "$TMP/ck_rpe"
grep -q "^rpe-input	scaled$" "$TMP/ck_rpe/model.tsv" || fail "model.tsv lacks rpe-input scaled"
expect_usage_error "--rpe-input" train --resume "$TMP/ck_rpe" --rpe-input integer
expect_usage_error "--save-every" train $small --save-every 2
expect_usage_error "--resume" train --resume "$TMP/ck" --check-gradients
expect_usage_error "--stop-after" train $small --stop-after 0
expect_ok train $small --steps 3 --quiet -o /dev/null --save "$TMP/done"
expect_usage_error "nothing to resume" train --resume "$TMP/done"
expect_ok train $small --dump-step "$TMP/dump"
expect_usage_error "training state" train --resume "$TMP/dump/after"

# ---- --plateau: stopped, resumed, the run stops where the whole one did -----
plat="$small --mixer tno --steps 3000 --eval-every 20 --plateau 4:0.01"
rm -rf "$TMP"/pfull "$TMP"/pck "$TMP"/pck2
expect_ok train $plat --quiet -o "$TMP/pfull.tsv" --save "$TMP/pfull"
taken=$(sed -n 's/^# steps taken \([0-9]*\) of 3000; stop plateau.*/\1/p' "$TMP/pfull.tsv")
if [ -n "$taken" ] && [ "$taken" -ge 40 ]; then
  expect_ok train $plat --stop-after $((taken / 2 + 1)) --save-every 7 --quiet -o /dev/null --save "$TMP/pck"
  expect_usage_error "--plateau" train --resume "$TMP/pck" --plateau 5:0.01
  expect_ok train --resume "$TMP/pck" --save-every 7 --quiet -o "$TMP/presumed.tsv" --save "$TMP/pck2"
  same_run "$TMP/pfull" "$TMP/pck2" "--plateau: resumed at step $((taken / 2 + 1)) against the whole run" \
    "$TMP/pfull.tsv" "$TMP/presumed.tsv"
  grep -q "^# steps taken $taken of 3000; stop plateau" "$TMP/presumed.tsv" && pass ||
    fail "--plateau: the resumed run did not stop at step $taken: $(grep '^# steps' "$TMP/presumed.tsv")"
  # a converged run's checkpoint: nothing to resume
  expect_usage_error "ended on the plateau" train --resume "$TMP/pfull"
else
  fail "--plateau: the whole run did not stop on the plateau after 40 steps or more: $(grep '^# steps' "$TMP/pfull.tsv")"
fi

# ---- damaged checkpoints: exit 2 naming the file and the problem -------------
damaged() { rm -rf "$TMP/bad" && cp -r "$TMP/ck" "$TMP/bad"; }
# flip_byte FILE OFFSET: invert one byte, so the file changes whatever the
# seed put there (writing a fixed byte is a no-op when it was already there)
flip_byte() {
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  [ -n "$b" ] || { fail "flip_byte: $1 has no byte at offset $2"; return; }
  printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
damaged; truncate -s -8 "$TMP/bad/layer0.mixer.npy"
expect_usage_error "layer0.mixer.npy: .*cut short" train --resume "$TMP/bad"
damaged; flip_byte "$TMP/bad/layer1.gtu.wu.npy" 200
expect_usage_error "layer1.gtu.wu.npy: checksum mismatch" train --resume "$TMP/bad"
damaged; rm "$TMP/bad/optimizer.v.npy"
expect_usage_error "optimizer.v.npy" train --resume "$TMP/bad"
damaged; rm "$TMP/bad/checksums.tsv"
expect_usage_error "checksums.tsv" train --resume "$TMP/bad"
damaged; head -c 300 "$TMP/ck/model.tsv" > "$TMP/bad/model.tsv"
expect_usage_error "model.tsv: cut short" train --resume "$TMP/bad"
damaged; sed -i 's/^format	2$/format	3/' "$TMP/bad/model.tsv"
expect_usage_error "model.tsv: checkpoint format 3" train --resume "$TMP/bad"
damaged; sed -i '/^format	/d' "$TMP/bad/model.tsv"
expect_usage_error "format 1" train --resume "$TMP/bad"
damaged; printf 'x\0y\n' >> "$TMP/bad/state.tsv"
expect_usage_error "state.tsv" train --resume "$TMP/bad"
# another shape than model.tsv says, with checksums that agree (written
# by hand): the shape check itself
rewrite_sums() { # DIR FILE...: checksums.tsv lines of FILEs recomputed (FNV-1a 64)
  local dir=$1 f; shift
  for f in "$@"; do
    local line
    line=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read(); h = 14695981039346656037
for b in d: h = ((h ^ b) * 1099511628211) % (1 << 64)
print("%d %016x" % (len(d), h))' "$dir/$f") || return 1
    sed -i "s|^$f	.*|$f	$line|" "$dir/checksums.tsv"
  done
}
if command -v python3 >/dev/null; then
  damaged; sed -i 's/^d	8$/d	4/' "$TMP/bad/model.tsv"; rewrite_sums "$TMP/bad" model.tsv
  expect_usage_error "embedding.npy: shape .* this model needs" train --resume "$TMP/bad"
  damaged; sed -i 's/^mixer	tno$/mixer	warp/' "$TMP/bad/model.tsv"; rewrite_sums "$TMP/bad" model.tsv
  expect_usage_error "model.tsv: --mixer" train --resume "$TMP/bad"
  damaged; sed -i 's/^seed	/sneed	/' "$TMP/bad/model.tsv"; rewrite_sums "$TMP/bad" model.tsv
  expect_usage_error "unknown field 'sneed'" train --resume "$TMP/bad"
  # a checkpoint from before --rpe-input (no such field) reads as integer lags
  damaged; sed -i '/^rpe-input	/d' "$TMP/bad/model.tsv"; rewrite_sums "$TMP/bad" model.tsv
  expect_ok train --resume "$TMP/bad" --rpe-input integer --stop-after 1 --quiet -o /dev/null
  damaged; sed -i '/^rpe-input	/d' "$TMP/bad/model.tsv"; rewrite_sums "$TMP/bad" model.tsv
  expect_usage_error "--rpe-input: this run gives scaled; the checkpoint's run has integer" \
    train --resume "$TMP/bad" --rpe-input scaled
  damaged; sed -i 's/^step	4$/step	5/' "$TMP/bad/state.tsv"; rewrite_sums "$TMP/bad" state.tsv
  expect_usage_error "log.tsv" train --resume "$TMP/bad"
fi

# ---- skit tno --params: the mixer's options and checksum ---------------------
args=$(sed -n 's/.*load a mixer with: skit tno //p' "$TMP/ck/model.tsv" | sed "s|DIR/layerL|$TMP/ck/layer0|")
expect_ok tno $args --n 16 -o "$TMP/y.tsv"
for swap in "--activation:relu/gelu" "--norm:--norm rms/--norm layer" "--causal:--causal /" \
            "--decay:--decay 0.99/--decay 0.98" "--rpe-width:--rpe-width 8/--rpe-width 9"; do
  # shellcheck disable=SC2046
  expect_usage_error "${swap%%:*}" tno $(echo "$args" | sed "s/${swap#*:}/") --n 16 -o "$TMP/out.y.tsv"
done
damaged; flip_byte "$TMP/bad/layer0.mixer.npy" 150
expect_usage_error "checksum mismatch" tno $(echo "$args" | sed "s|$TMP/ck/|$TMP/bad/|") --n 16 -o "$TMP/out.y.tsv"
damaged; sed -i 's/^format	2$/format	7/' "$TMP/bad/model.tsv"
expect_usage_error "format 7" tno $(echo "$args" | sed "s|$TMP/ck/|$TMP/bad/|") --n 16 -o "$TMP/out.y.tsv"

# skit decay --params reads an FD-TNO mixer's RPE: the same checks
expect_ok train --mixer fd $small --steps 2 --quiet -o /dev/null --save "$TMP/fd"
rpe="summary --width 8 --layers 1 --channels 8 --norm rms --construction half -o $TMP/out.d.tsv"
expect_ok decay $rpe --activation relu --params "$TMP/fd/layer0.mixer.npy"
expect_usage_error "--activation" decay $rpe --activation silu --params "$TMP/fd/layer0.mixer.npy"
expect_usage_error "--op" decay $rpe --activation relu --params "$TMP/ck/layer0.mixer.npy"

# ---- signals ----------------------------------------------------------------
# SIGTERM during training: the step under way finishes, DIR is saved, the
# process ends by SIGTERM (143), nothing else stays; resumed, the run ends
# as the uninterrupted one. The signal goes once a step's progress line
# shows (at 1 s): a fixed delay could find the command still setting up on
# a loaded machine (it then ends with nothing saved, as documented) or, on
# a fast one, done; a run that ends before its signal is rerun 4x longer.
# sigterm_training STEPS: that run in $TMP/sig; its exit status
sigterm_training() {
  local pid i
  rm -rf "$TMP/sig" && mkdir "$TMP/sig"
  "$SKIT" train $small --mixer tno --steps "$1" --eval-every 100000 -o "$TMP/sig/log.tsv" \
    --save "$TMP/sig/ck" 2>"$TMP/stderr" &
  pid=$!
  for i in $(seq 1200); do
    grep -q '\] step ' "$TMP/stderr" && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  kill -TERM $pid 2>/dev/null
  wait $pid
}
for steps in 16000 64000 256000; do
  sigterm_training $steps
  rc=$?
  step=$(sed -n 's/^step	//p' "$TMP/sig/ck/state.tsv" 2>/dev/null)
  # ended (or the signal came) after the last step: nothing to resume yet
  [ $rc -eq 0 ] || { [ -n "$step" ] && [ "$step" -ge "$steps" ]; } || break
done
long="$small --mixer tno --steps $steps --eval-every 100000"
[ $rc -eq 143 ] && pass || fail "SIGTERM during training: exit $rc, expected 143 ($(cat "$TMP/stderr"))"
left=$(ls "$TMP/sig" | grep -v '^ck$')
[ -z "$left" ] && pass || fail "SIGTERM during training left: $left"
if [ -n "$step" ] && [ "$step" -lt "$steps" ]; then
  expect_ok train --resume "$TMP/sig/ck" --quiet -o /dev/null --save "$TMP/sig/resumed"
  expect_ok train $long --quiet -o /dev/null --save "$TMP/sig/full"
  same_run "$TMP/sig/full" "$TMP/sig/resumed" "resumed after SIGTERM at step $step of $steps"
else
  fail "SIGTERM during training: no checkpoint to resume from (step '$step' of $steps)"
fi
# signals while checkpoints are written (every step, 20 MB each), a
# second one forcing the way out mid-write: a complete checkpoint or none,
# never DIR.tmp.PID
for delay in 0.5 0.9 1.3; do
  rm -rf "$TMP/sig" && mkdir "$TMP/sig"
  "$SKIT" train --n 16 --d 128 --glu 1024 --batch 2 --steps 100000 --save-every 1 --quiet -o "$TMP/sig/log.tsv" \
    --save "$TMP/sig/ck" 2>"$TMP/stderr" &
  pid=$!
  sleep "$delay"
  kill -TERM $pid; sleep 0.02; kill -HUP $pid 2>/dev/null
  wait $pid
  rc=$?
  { [ $rc -eq 143 ] || [ $rc -eq 129 ]; } && pass || fail "two signals while saving: exit $rc ($(cat "$TMP/stderr"))"
  left=$(ls "$TMP/sig" | grep -v '^ck$')
  [ -z "$left" ] && pass || fail "two signals while saving (after $delay s) left: $left"
  if [ -d "$TMP/sig/ck" ]; then
    expect_ok train --resume "$TMP/sig/ck" --stop-after 1 --quiet -o /dev/null
  fi
done

# ---- disk full: exit 3 with the system's reason, nothing left ---------------
if [ "$(id -u)" = 0 ] && mkdir "$TMP/full-disk" && mount -t tmpfs -o size=64k tmpfs "$TMP/full-disk" 2>/dev/null; then
  "$SKIT" train $small --d 32 --steps 2 --quiet -o "$TMP/log.tsv" --save "$TMP/full-disk/ck" >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
  [ $rc -eq 3 ] && grep -q "No space left on device" "$TMP/stderr" && pass ||
    fail "--save on a full disk: exit $rc, expected 3 with the reason ($(cat "$TMP/stderr"))"
  [ -z "$(ls -A "$TMP/full-disk")" ] && [ ! -e "$TMP/log.tsv" ] && pass || fail "--save on a full disk left files"
  umount "$TMP/full-disk"
else
  echo "skip: the full-disk case needs root and a tmpfs mount"
fi

# ---- memory: refused up front -----------------------------------------------
if [ -z "${SKIT_SAN_CFLAGS:-}" ]; then
  (ulimit -v 2000000; "$SKIT" train --n 4096 --batch 64 --d 256 --steps 1 -o "$TMP/out.log.tsv" \
     >"$TMP/stdout" 2>"$TMP/stderr"); rc=$?
  [ $rc -eq 2 ] && grep -q "available" "$TMP/stderr" && pass ||
    fail "train under ulimit -v: exit $rc, expected 2 ($(cat "$TMP/stderr"))"
fi

# ---- small truths ------------------------------------------------------------
"$SKIT" train $small --objective masked --steps 2 -o /dev/null 2>"$TMP/stderr"
grep -q "validation loss" "$TMP/stderr" && ! grep -q "nan" "$TMP/stderr" && pass ||
  fail "masked LM: the summary states no floor: $(cat "$TMP/stderr")"
eps=$(sed -n 's/^#define NORM_EPS //p' "$SKIT_DATADIR/train/model.c")
grep -q "eps = $eps " "$SKIT_DATADIR/train/model.h" && pass || fail "train/model.h does not state NORM_EPS $eps"
finish
