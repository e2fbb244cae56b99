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
  ! grep -q '| \*\*error\*\* |' "$out/REPORT.md" || fail "an experiment failed: $(grep error "$out/REPORT.md")"
fi
expect_usage_error "--merge" reproduce --merge --out "$TMP/out.none"
finish
