#!/usr/bin/env bash
# tests/cli_cuda.sh — `skit bench device` (CPU vs CUDA): argument validation,
# the CPU-only run, and --device cuda on a machine or build without a GPU,
# or where the CUDA plugin cannot be loaded (exit 2, one line naming the
# cause, no output file); the same for the --device option of `skit
# toeplitz matvec`, `skit tno` and `skit mra`, and with a GPU their device
# results against the CPU's.
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
expect_usage_error "plot" bench device "${tiny[@]}" -o "$TMP/out.tsv" --plot "$TMP/out.gif"
expect_usage_error "needs about" bench device --device cpu --sizes 2^22 --channels 4096 -o "$TMP/out.tsv"

# The CPU side always runs: a table with both operators and the GPU state.
if expect_ok bench device --device cpu "${tiny[@]}" -o "$TMP/cpu.tsv"; then
  grep -q "^# cuda: " "$TMP/cpu.tsv" || fail "cpu run: no 'cuda:' status line in the header"
  grep -q "^toeplitz	float64	32	2	" "$TMP/cpu.tsv" || fail "cpu run: no toeplitz row: $(cat "$TMP/cpu.tsv")"
  grep -q "^attention	float64	16	4	" "$TMP/cpu.tsv" && pass || fail "cpu run: no attention row"
  grep -q "^mra	float64	16	4	" "$TMP/cpu.tsv" && pass || fail "cpu run: no mra row"
  for op in tno fd-tno ski-tno; do
    grep -q "^$op	float64	32	2	" "$TMP/cpu.tsv" && pass || fail "cpu run: no $op row"
  done
fi

# Without a GPU (or without a CUDA build) naming cuda is a usage error with
# the reason; the default run (no --device) times the CPU and says why.
if "$SKIT" bench device --device cpu --quick --sizes 2^5 --channels 1 --ops toeplitz 2>&1 >/dev/null |
   grep -q "GPU targets not measured (cuda: \(not built\|backend not loadable\|no device\)"; then
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

# ---- --device on toeplitz matvec, tno, mra (and the `skit bench --device` alias) ----
printf '1\n2\n3\n4\n5\n' > "$TMP/t.tsv"   # n = 3
printf '1\n-1\n2\n' > "$TMP/x.tsv"
expect_usage_error "--device" toeplitz matvec --coeffs "$TMP/t.tsv" --x "$TMP/x.tsv" --device gpu -o "$TMP/out.tsv"
expect_usage_error "--method fft only" toeplitz matvec --coeffs "$TMP/t.tsv" --x "$TMP/x.tsv" --device cuda --method dense -o "$TMP/out.tsv"
expect_usage_error "--device" tno --n 16 --d 2 --device tpu -o "$TMP/out.tsv"
expect_usage_error "CPU only" tno --n 16 --d 2 --op ski --causal --device cuda -o "$TMP/out.tsv"
expect_usage_error "CPU only" mra --n 256 --methods mra2,nystrom --device cuda -o "$TMP/out.tsv"
expect_usage_error "two levels" mra --n 256 --methods mra2 --scales 64,8,1 --device cuda -o "$TMP/out.tsv"
expect_usage_error "does not apply" mra haar --device cuda -o "$TMP/out.tsv"
expect_usage_error "--device" mra --n 256 --device cpus -o "$TMP/out.tsv"
expect_usage_error "--device" bench --device gpu -o "$TMP/out.tsv"
if expect_ok bench --device cpu "${tiny[@]}" -o "$TMP/alias.tsv"; then
  grep -q "^toeplitz	float64	32	2	" "$TMP/alias.tsv" && pass || fail "bench --device alias: no toeplitz row"
fi

if ! "$SKIT" bench device --device cpu --quick --sizes 2^5 --channels 1 --ops toeplitz 2>&1 >/dev/null |
   grep -q "GPU targets not measured (cuda: \(not built\|backend not loadable\|no device\)"; then
  gpu=1
else
  gpu=0
fi
if [ $gpu -eq 0 ]; then
  # no GPU: every --device cuda is one line naming the cause, exit 2, no file
  expect_usage_error "--device cuda: cuda: " toeplitz matvec --coeffs "$TMP/t.tsv" --x "$TMP/x.tsv" --device cuda -o "$TMP/out.tsv"
  expect_usage_error "--device cuda: cuda: " tno --n 16 --d 2 --device cuda -o "$TMP/out.tsv"
  expect_usage_error "--device cuda: cuda: " tno --n 16 --d 2 --op fd --causal --device cuda -o "$TMP/out.npy"
  expect_usage_error "--device cuda: cuda: " mra --n 256 --methods exact,mra2 --device cuda -o "$TMP/out.tsv"
  expect_usage_error "--device cuda: cuda: " bench --device cpu,cuda "${tiny[@]}" -o "$TMP/out.tsv"
else
  # a GPU: the same products on both devices agree
  "$SKIT" toeplitz matvec --coeffs "$TMP/t.tsv" --x "$TMP/x.tsv" -o "$TMP/cpu_y.tsv" &&
    "$SKIT" toeplitz matvec --coeffs "$TMP/t.tsv" --x "$TMP/x.tsv" --device cuda -o "$TMP/gpu_y.tsv"
  if paste <(grep -v '^#' "$TMP/cpu_y.tsv" | tail -n +2) <(grep -v '^#' "$TMP/gpu_y.tsv" | tail -n +2) |
     awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 } END { exit bad }'; then pass
  else fail "toeplitz matvec: cpu and cuda results differ"; fi
  for op in tno fd ski; do
    expect_ok tno --op $op --n 300 --d 3 --batch 2 --device cuda --verify -o "$TMP/y_$op.npy"
  done
  expect_ok tno --op fd --causal --n 257 --d 2 --device cuda --verify -o "$TMP/y_fdc.npy"
  if expect_ok mra --n 512 --methods exact,mra2,mra2s --budget 0.25 --device cuda --repeat 1 -o "$TMP/mra.tsv"; then
    # exact on the device against the CPU's exact attention
    awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
                 $c["method"] == "exact" { if ($c["rel_error"] > 1e-10) bad = 1; seen = 1 }
                 END { exit !(seen && !bad) }' "$TMP/mra.tsv" && pass || fail "mra --device cuda: exact rel_error: $(cat "$TMP/mra.tsv")"
  fi
  expect_ok bench --device cpu,cuda "${tiny[@]}" -o "$TMP/alias_gpu.tsv"
fi

finish
