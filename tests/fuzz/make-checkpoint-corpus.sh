#!/usr/bin/env bash
# make-checkpoint-corpus.sh SKIT OUT_DIR — the seed corpus of the checkpoint
# fuzz target (tests/fuzz/corpus/checkpoint): tiny checkpoints that `skit
# train --save` writes, each file packed as a line "@NAME", its bytes and a
# newline (tests/fuzz/fuzz_cli.c reads them back), without checksums.tsv (the
# harness writes it) except in with-sums; and a few damaged ones.
set -eu
skit=$1 out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
tiny="--n 8 --d 2 --batch 1 --layers 1 --glu 2 --rpe-width 2 --vocab 2 --order 1 --steps 4 --eval-batches 1 --quiet"
pack() { # DIR OUT [with checksums.tsv]
  local f
  for f in "$1"/*; do
    [ "$(basename "$f")" = checksums.tsv ] && [ -z "${3:-}" ] && continue
    if tr '\n' '\001' < "$f" | grep -aq "$(printf '\001')@"; then
      echo "make-checkpoint-corpus: $f holds a line starting with @" >&2; exit 1
    fi
    printf '@%s\n' "$(basename "$f")"
    cat "$f"
    printf '\n'
  done > "$2"
}
i=0
for cfg in "--mixer tno" "--mixer attention --objective masked" "--mixer ski --decay 0.9" \
           "--mixer tno --learn-decay --decay 0.8 --precision f32" "--mixer mra --objective masked" \
           "--mixer fd --task copy --n 8"; do
  "$skit" train $tiny $cfg --stop-after 2 -o /dev/null --save "$tmp/ck$i"
  pack "$tmp/ck$i" "$out/seed-$i"
  i=$((i + 1))
done
pack "$tmp/ck0" "$out/with-sums" sums
sed 's/^format	2$/format	1/' "$out/seed-0" > "$out/format-1"
head -c 600 "$out/seed-0" > "$out/cut-short"
