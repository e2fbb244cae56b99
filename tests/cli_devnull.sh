#!/usr/bin/env bash
# tests/cli_devnull.sh — outputs that are not regular files are written
# through, never renamed over. Run as root (CI, containers), an output
# engine that renames its temporary file over `-o /dev/null` replaces the
# device with a regular file for every process on the machine; so every
# command that takes -o writes to /dev/null here, and /dev/null must still
# be a character device after each. A FIFO is written through too (its
# reader gets the table), and a symbolic link is followed: the file it names
# is replaced and the link stays.
source "$(dirname "$0")/cli_lib.sh"
[ -c /dev/null ] || { echo "cli_devnull: /dev/null is not a character device before the test: skipped"; exit 77; }

printf '%s\n' 0.1 0.2 1 0.5 0.25 > "$TMP/t.tsv"
printf '%s\n' 1 2 3 > "$TMP/x.tsv"
printf '%s\n' 4 1 0.5 > "$TMP/ts.tsv"
commands=(
  "toeplitz matvec --coeffs $TMP/t.tsv --x $TMP/x.tsv"
  "toeplitz solve --coeffs $TMP/t.tsv --b $TMP/x.tsv"
  "ski-bound --n 32 --r 4"
  "hilbert transform -n 32"
  "decay summary"
  "decay bound --activation silu --construction periodic"
  "mra --methods mra2 --n 64 --d 8 --block 8"
  "tno --n 16 --d 2"
  "grad-check --op toeplitz --n 16"
  "train --steps 2 --n 8 --d 4 --batch 1 --eval-batches 1 --quiet"
  "wisdom --sizes 16"
)
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  if "$SKIT" $c -o /dev/null >"$TMP/stdout" 2>"$TMP/stderr"; then pass
  else fail "skit $c -o /dev/null: exit $? ($(head -c 300 "$TMP/stderr"))"; fi
  [ -c /dev/null ] || { fail "skit $c -o /dev/null replaced /dev/null by a regular file"; rm -f /dev/null; mknod -m 666 /dev/null c 1 3 2>/dev/null; }
done

# a FIFO: written through, its reader gets the whole table
mkfifo "$TMP/fifo"
timeout 20 cat "$TMP/fifo" > "$TMP/from_fifo" &  # (an engine that renames over the FIFO never opens it)
reader=$!
expect_ok ski-bound --n 32 --r 4 -o "$TMP/fifo"
wait "$reader"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
grep -q '^# command: skit ski-bound' "$TMP/from_fifo" || fail "the FIFO's reader got no table"

# a symbolic link: the file it names is replaced, the link stays
echo old > "$TMP/target.tsv"
ln -s target.tsv "$TMP/link.tsv"
expect_ok ski-bound --n 32 --r 4 -o "$TMP/link.tsv"
[ -L "$TMP/link.tsv" ] || fail "the symbolic link was replaced by a file"
grep -q '^# command: skit ski-bound' "$TMP/target.tsv" || fail "the link's target was not written"
ls "$TMP" | grep -q '\.tmp\.' && fail "a temporary file was left: $(ls "$TMP")"
finish
