# tests/cli_basic.sh — dispatcher, help, and the reproduce framework's options.
. "$(dirname "$0")/cli_lib.sh"

expect_ok help && grep -q reproduce "$TMP/stdout" || fail "help does not list reproduce"
expect_ok version && grep -q '^skit [0-9]' "$TMP/stdout" || fail "version output"
for cmd in toeplitz bench reproduce; do
  expect_ok help "$cmd"
  expect_ok "$cmd" --help
done
expect_usage_error "unknown command" no-such-command
expect_usage_error "--shard" reproduce --shard 3/2 --out "$TMP/out.dir"
expect_usage_error "--shard" reproduce --shard x --out "$TMP/out.dir"
expect_usage_error "unknown option" reproduce --bogus
expect_usage_error "no experiment" reproduce --only no-such-experiment --out "$TMP/out.dir"
expect_usage_error "unknown target" bench no-such-target
expect_ok reproduce --list
finish
