#!/usr/bin/env bash
# run-fuzzers.sh — run each libFuzzer target of skit for a bounded time
# (make fuzz-smoke / make fuzz call this).
#
#   run-fuzzers.sh FUZZ_DIR CORPUS_DIR SECONDS [TARGET...]
#
# FUZZ_DIR holds fuzz-npy, fuzz-tsv, fuzz-wisdom, fuzz-cli and
# fuzz-checkpoint (built by make fuzz-build); new corpus entries go to
# FUZZ_DIR/work/<target>, crash inputs to FUZZ_DIR/crashes/<target>-*.
# Targets: npy, tsv, wisdom, checkpoint and cli-<command> for every
# subcommand that fuzz-cli knows (all of them by default). The seed corpus
# CORPUS_DIR/<target> is only read. Exits 1 if any target found a crash,
# leak, timeout or out-of-memory.
set -u
dir=$1 corpus=$2 seconds=$3
shift 3
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(npy tsv wisdom checkpoint)
  while read -r c; do targets+=("cli-$c"); done < <(SKIT_FUZZ_LIST_COMMANDS=1 "$dir/fuzz-cli" 2>/dev/null)
fi

# leaks and UB stop the run like a crash does
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

mkdir -p "$dir/crashes" "$dir/logs"
summary=()
failed=0
for t in "${targets[@]}"; do
  case $t in
    npy) bin=fuzz-npy; max_len=4096; cmd= ;;
    tsv) bin=fuzz-tsv; max_len=4096; cmd= ;;
    wisdom) bin=fuzz-wisdom; max_len=8192; cmd= ;;
    checkpoint) bin=fuzz-checkpoint; max_len=16384; cmd= ;;
    cli-*) bin=fuzz-cli; max_len=512; cmd=${t#cli-} ;;
    *) echo "run-fuzzers: unknown target '$t' (npy, tsv, wisdom, checkpoint, cli-<command>)" >&2; exit 2 ;;
  esac
  mkdir -p "$dir/work/$t"
  seeds=()
  [ -d "$corpus/$t" ] && seeds=("$corpus/$t") || echo "run-fuzzers: $t has no seed corpus ($corpus/$t)" >&2
  log=$dir/logs/$t.log
  start=$(date +%s)
  # SKIT_FUZZ_SEED fixes libFuzzer's random seed (CI sets it so that a run
  # can be repeated); 0 or unset lets libFuzzer pick one
  SKIT_FUZZ_COMMAND=$cmd "$dir/$bin" -seed="${SKIT_FUZZ_SEED:-0}" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 \
    -max_len=$max_len -print_final_stats=1 -artifact_prefix="$dir/crashes/$t-" \
    "$dir/work/$t" "${seeds[@]}" > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  units=$(ls "$dir/work/$t" | wc -l)
  elapsed=$(( $(date +%s) - start ))
  if [ $rc -eq 0 ]; then result=ok; else result="FAILED (exit $rc)"; failed=1; fi
  summary+=("$(printf '%-18s %6s s %10s runs %8s new corpus files  %s' "$t" "$elapsed" "${execs:-?}" "$units" "$result")")
  if [ $rc -ne 0 ]; then
    echo "==== $t: $log" >&2
    grep -v '^#[0-9]' "$log" | tail -n 60 >&2
  fi
done
printf '%s\n' "fuzz summary (${seconds} s per target):" "${summary[@]}"
exit $failed
