#!/usr/bin/env bash
# cli_wisdom.sh — FFTW planner and wisdom on the CLI: `skit wisdom` writes
# wisdom that a fresh process imports (--wisdom, $SKIT_WISDOM) and plans
# from with --planner wisdom-only; without it wisdom-only fails (exit 1);
# products agree to rounding across planners; bad --planner / --wisdom /
# --plan-seconds and bad `skit wisdom` arguments exit 2 with one line.
. "$(dirname "$0")/cli_lib.sh"

n=48 # Toeplitz n = 48: FFT length 96 (= 2^5 * 3)
awk -v n=$n 'BEGIN { srand(3); for (i = 0; i < 2 * n - 1; i++) printf "%.17g\n", 2 * rand() - 1 }' > "$TMP/c.tsv"
awk -v n=$n 'BEGIN { srand(4); for (i = 0; i < n; i++) printf "%.17g\n", 2 * rand() - 1 }' > "$TMP/x.tsv"
matvec() { "$SKIT" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" "$@"; }

# wisdom for length 96, written atomically (no temporary left beside it)
if expect_ok wisdom -o "$TMP/w.wis" --sizes 96 --planner measure --quiet; then
  head -c 40 "$TMP/w.wis" | grep -q 'fftw_wisdom' || fail "wisdom: $TMP/w.wis is not FFTW wisdom"
  ls "$TMP"/w.wis.tmp* >/dev/null 2>&1 && fail "wisdom: temporary file left behind"
  grep -q '^96	' "$TMP/stdout" || fail "wisdom: no planning time for length 96: $(cat "$TMP/stdout")"
  pass
fi
# a fresh process: wisdom-only plans from the imported wisdom, and only with it
matvec --planner wisdom-only -o "$TMP/none.tsv" 2>"$TMP/stderr"
rc=$?
if [ $rc -eq 1 ] && grep -q 'wisdom' "$TMP/stderr" && [ ! -e "$TMP/none.tsv" ]; then pass
else fail "wisdom-only without wisdom: exit $rc, expected 1 and a message naming wisdom: $(cat "$TMP/stderr")"; fi
cp "$TMP/w.wis" "$TMP/w2.wis"
expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner wisdom-only --wisdom "$TMP/w2.wis" \
  -o "$TMP/y_wisdom.tsv"
SKIT_WISDOM="$TMP/w.wis" expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" \
  --planner wisdom-only -o "$TMP/y_env.tsv"
expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner estimate -o "$TMP/y_est.tsv"
expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner measure -o "$TMP/y_meas.tsv"
# results agree within rounding across planners (normwise, 1e-13 as the FFT tests)
for f in y_wisdom y_env y_meas; do
  d=$(paste <(grep -v '^#' "$TMP/y_est.tsv" | tail -n +2) <(grep -v '^#' "$TMP/$f.tsv" | tail -n +2) |
      awk -F'\t' '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d; a = $1; if (a < 0) a = -a; if (a > s) s = a }
                  END { printf "%.3g", m / s }')
  awk -v d="$d" 'BEGIN { exit !(d <= 1e-13) }' && pass || fail "$f differs from the estimate plan by $d"
done

# float32 plans: the file holds fftwf wisdom after the double's, and a fresh
# process plans a float32 TNO (n = 48: length 96) from it with wisdom-only
grep -q 'fftwf_wisdom' "$TMP/w.wis" && pass || fail "wisdom: no float (fftwf) wisdom in $TMP/w.wis"
expect_ok tno --n $n --d 4 --precision f32 --planner wisdom-only --wisdom "$TMP/w2.wis" -o "$TMP/t32.npy"
if expect_ok wisdom -o "$TMP/w64.wis" --sizes 96 --planner measure --precision f64 --quiet; then
  grep -q '	f32	' "$TMP/stdout" && fail "wisdom --precision f64: a f32 row printed" || pass
fi
"$SKIT" tno --n $n --d 4 --precision f32 --planner wisdom-only --wisdom "$TMP/w64.wis" -o "$TMP/none.npy" 2>"$TMP/stderr"
rc=$?
if [ $rc -eq 1 ] && grep -q 'wisdom' "$TMP/stderr" && [ ! -e "$TMP/none.npy" ]; then pass
else fail "float32 wisdom-only with double wisdom only: exit $rc, expected 1: $(cat "$TMP/stderr")"; fi
expect_usage_error "--precision" wisdom -o "$TMP/out.wis" --sizes 96 --precision half

expect_usage_error "--planner" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner fast -o "$TMP/out.tsv"
printf 'not wisdom\n' > "$TMP/bad.wis"
expect_usage_error "--wisdom" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --wisdom "$TMP/bad.wis" -o "$TMP/out.tsv"
expect_usage_error "--wisdom" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --wisdom /nonexistent/dir/w -o "$TMP/out.tsv"
SKIT_WISDOM="$TMP/bad.wis" expect_usage_error "SKIT_WISDOM" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" -o "$TMP/out.tsv"
expect_usage_error "--plan-seconds" tno --n 16 --d 4 --plan-seconds -1 -o "$TMP/out.tsv"
expect_usage_error "--planner" bench toeplitz --planner none -o "$TMP/out.tsv"
expect_usage_error "-o" wisdom --sizes 96
expect_usage_error "--sizes" wisdom -o "$TMP/out.wis" --sizes 0
expect_usage_error "--planner" wisdom -o "$TMP/out.wis" --planner estimate
expect_usage_error "--planner" wisdom -o "$TMP/out.wis" --planner sometimes
expect_usage_error "-o" wisdom -o /nonexistent/dir/out.wis --sizes 96
[ -e "$TMP/bad.wis" ] && grep -q 'not wisdom' "$TMP/bad.wis" && pass || fail "a bad wisdom file was overwritten"

# ---- concurrent writers: each one's wisdom survives (locked, merged) --------
# four writers of one file, one Toeplitz size each (FFT lengths 32, 96, 128,
# 256); then a fresh process plans every size from the file, wisdom-only
sizes_of() { case $1 in 16) echo 32 ;; 48) echo 96 ;; 64) echo 128 ;; 128) echo 256 ;; esac; }
for m in 16 48 64 128; do
  awk -v n=$m 'BEGIN { for (i = 0; i < 2 * n - 1; i++) print 0.5 }' > "$TMP/c$m.tsv"
  awk -v n=$m 'BEGIN { for (i = 0; i < n; i++) print 1 }' > "$TMP/x$m.tsv"
done
pids=""
for m in 16 48 64 128; do
  "$SKIT" wisdom -o "$TMP/shared.wis" --sizes "$(sizes_of $m)" --precision f64 --quiet >/dev/null 2>"$TMP/err$m" &
  pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "concurrent wisdom writer $p: exit $? ($(cat "$TMP"/err*))"; done
for m in 16 48 64 128; do
  SKIT_WISDOM="$TMP/shared.wis" "$SKIT" toeplitz matvec --coeffs "$TMP/c$m.tsv" --x "$TMP/x$m.tsv" \
    --planner wisdom-only -o "$TMP/y$m.tsv" 2>"$TMP/stderr" && pass ||
    fail "concurrent writers: length $(sizes_of $m) lost from the wisdom file: $(cat "$TMP/stderr")"
done
ls "$TMP"/shared.wis.tmp* >/dev/null 2>&1 && fail "concurrent writers left a temporary" || pass

# ---- a symbolic link is written through to its target, also a dangling one ---
ln -s w-target.wis "$TMP/w-link.wis"
expect_ok toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --planner measure --wisdom "$TMP/w-link.wis" \
  -o "$TMP/y_link.tsv"
[ -L "$TMP/w-link.wis" ] && grep -q fftw_wisdom "$TMP/w-target.wis" && pass ||
  fail "--wisdom LINK (dangling): the link was replaced ($(ls -l "$TMP"/w-*))"
expect_ok wisdom -o "$TMP/w-link.wis" --sizes 96 --precision f64 --quiet
[ -L "$TMP/w-link.wis" ] && pass || fail "wisdom -o LINK: the link was replaced"

# ---- input that is not wisdom text: refused (exit 2, naming the file) ---------
SKIT_WISDOM=/dev/zero expect_usage_error "/dev/zero" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" \
  -o "$TMP/out.tsv"
grep -q "NUL" "$TMP/stderr" || fail "SKIT_WISDOM=/dev/zero: the message does not say NUL: $(cat "$TMP/stderr")"
{ head -c 100 "$TMP/w.wis"; printf '\0'; tail -c +101 "$TMP/w.wis"; } > "$TMP/nul.wis"
expect_usage_error "nul.wis" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --wisdom "$TMP/nul.wis" \
  -o "$TMP/out.tsv"
# flags wider than FFTW keeps them: FFTW itself would abort on them
sed '0,/#x11bdd #x11bdd/s//#x11bdd #x7fffffff/' "$TMP/w64.wis" > "$TMP/flags.wis"
cmp -s "$TMP/w64.wis" "$TMP/flags.wis" && fail "flags.wis: no entry to change in $TMP/w64.wis"
expect_usage_error "flags.wis" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --wisdom "$TMP/flags.wis" \
  -o "$TMP/out.tsv"
# the cap is 16 MiB (docs): 17 MB of blanks before the wisdom
{ head -c 17000000 /dev/zero | tr '\0' ' '; cat "$TMP/w.wis"; } > "$TMP/huge.wis"
expect_usage_error "16 MiB" toeplitz matvec --coeffs "$TMP/c.tsv" --x "$TMP/x.tsv" --wisdom "$TMP/huge.wis" \
  -o "$TMP/out.tsv"

# ---- a full disk: exit 3 with the system's reason, the old file kept ----------
"$SKIT" wisdom -o /dev/full --sizes 96 --precision f64 --quiet >/dev/null 2>"$TMP/stderr"; rc=$?
[ $rc -eq 3 ] && grep -q "No space left on device" "$TMP/stderr" && pass ||
  fail "wisdom -o /dev/full: exit $rc, expected 3 and the reason: $(cat "$TMP/stderr")"
cp "$TMP/w64.wis" "$TMP/keep.wis"
(trap '' XFSZ; ulimit -f 1; "$SKIT" wisdom -o "$TMP/keep.wis" --sizes 96,128 --quiet >/dev/null 2>"$TMP/stderr"); rc=$?
[ $rc -eq 3 ] && grep -q "File too large" "$TMP/stderr" && pass ||
  fail "wisdom -o FILE past ulimit -f: exit $rc, expected 3 and the reason: $(cat "$TMP/stderr")"
cmp -s "$TMP/w64.wis" "$TMP/keep.wis" && pass || fail "wisdom -o FILE past ulimit -f: the old file changed"
ls "$TMP"/keep.wis.tmp* >/dev/null 2>&1 && fail "wisdom -o FILE past ulimit -f: temporary left" || pass
# as root, a real file system that fills up: a 16 KiB tmpfs
mnt=$TMP/full
if [ "$(id -u)" = 0 ] && mkdir -p "$mnt" && mount -t tmpfs -o size=16k tmpfs "$mnt" 2>/dev/null; then
  head -c 16384 /dev/zero > "$mnt/filler" 2>/dev/null
  "$SKIT" wisdom -o "$mnt/w.wis" --sizes 96 --precision f64 --quiet >/dev/null 2>"$TMP/stderr"; rc=$?
  [ $rc -eq 3 ] && grep -q "No space left on device" "$TMP/stderr" && pass ||
    fail "wisdom -o on a full tmpfs: exit $rc, expected 3: $(cat "$TMP/stderr")"
  umount "$mnt"
else
  echo "skipped: full tmpfs (needs root and mount)"
fi
finish
