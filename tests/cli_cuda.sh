#!/usr/bin/env bash
# tests/cli_cuda.sh — `skit bench device` (CPU vs CUDA): argument validation,
# the CPU-only run, and --device cuda on a machine or build without a GPU
# (exit 2, one line naming the cause, no output file).
source "$(dirname "$0")/cli_lib.sh"

tiny=(--quick --sizes 2^5 --channels 2 --attention-sizes 2^4 --head-dim 4 --quiet)

expect_usage_error "--device" bench device --device gpu -o "$TMP/out.tsv"
expect_usage_error "--device" bench device --device "" -o "$TMP/out.tsv"
expect_usage_error "--ops" bench device --ops fft -o "$TMP/out.tsv"
expect_usage_error "--precision" bench device --precision float16 -o "$TMP/out.tsv"
expect_usage_error "--sizes" bench device --sizes 0 -o "$TMP/out.tsv"
expect_usage_error "--sizes" bench device --sizes 2^30 -o "$TMP/out.tsv"
expect_usage_error "--channels" bench device --channels 0 -o "$TMP/out.tsv"
expect_usage_error "--attention-sizes" bench device --attention-sizes x -o "$TMP/out.tsv"
expect_usage_error "--head-dim" bench device --head-dim 5000 -o "$TMP/out.tsv"
expect_usage_error "unknown option" bench device --bogus -o "$TMP/out.tsv"
expect_usage_error "unexpected argument" bench device extra -o "$TMP/out.tsv"
expect_usage_error "plot" bench device "${tiny[@]}" -o "$TMP/out.tsv" --plot "$TMP/out.pdf"
expect_usage_error "needs about" bench device --device cpu --sizes 2^22 --channels 4096 -o "$TMP/out.tsv"

# The CPU side always runs: a table with both operators and the GPU state.
if expect_ok bench device --device cpu "${tiny[@]}" -o "$TMP/cpu.tsv"; then
  grep -q "^# cuda: " "$TMP/cpu.tsv" || fail "cpu run: no 'cuda:' status line in the header"
  grep -q "^toeplitz	float64	32	2	" "$TMP/cpu.tsv" || fail "cpu run: no toeplitz row: $(cat "$TMP/cpu.tsv")"
  grep -q "^attention	float64	16	4	" "$TMP/cpu.tsv" && pass || fail "cpu run: no attention row"
fi

# Without a GPU (or without a CUDA build) naming cuda is a usage error with
# the reason; the default run (no --device) times the CPU and says why.
if "$SKIT" bench device --device cpu --quick --sizes 2^5 --channels 1 --ops toeplitz 2>&1 >/dev/null |
   grep -q "GPU targets not measured (cuda: \(not built\|no device\)"; then
  expect_usage_error "cuda: " bench device --device cuda "${tiny[@]}" -o "$TMP/out.tsv"
  expect_usage_error "cuda: " bench device --device cpu,cuda "${tiny[@]}" -o "$TMP/out.tsv"
  "$SKIT" bench device "${tiny[@]}" -o "$TMP/default.tsv" 2>"$TMP/stderr"
  rc=$?
  if [ $rc -eq 0 ] && grep -q "timing the CPU only" "$TMP/stderr" && [ -s "$TMP/default.tsv" ]; then pass
  else fail "default run without a GPU: exit $rc, stderr: $(cat "$TMP/stderr")"; fi
else
  # a GPU is present: the full comparison runs and reports its targets
  expect_ok bench device --device cpu,cuda "${tiny[@]}" -o "$TMP/gpu.tsv" &&
    { grep -q "^toeplitz	float32	32	2	" "$TMP/gpu.tsv" && pass || fail "gpu run: no float32 row"; }
fi

finish
