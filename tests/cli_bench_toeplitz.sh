#!/usr/bin/env bash
# cli_bench_toeplitz.sh — `skit bench toeplitz`: bad options give one-line
# errors (exit 2, nothing written); the --check accuracy sweep (no timing
# is ever asserted: benchmarks are not tests) writes a TSV, JSON and figure
# whose verdict line says the FFT product is within tolerance.
source "$(dirname "$0")/cli_lib.sh"

expect_usage_error "--sizes" bench toeplitz --sizes 0 -o "$TMP/out.tsv"
expect_usage_error "--sizes" bench toeplitz --sizes 2^4..2^2 -o "$TMP/out.tsv"
expect_usage_error "--sizes" bench toeplitz --sizes 12,abc -o "$TMP/out.tsv"
expect_usage_error "--channels" bench toeplitz --channels 0 -o "$TMP/out.tsv"
expect_usage_error "--channels" bench toeplitz --channels 5000 -o "$TMP/out.tsv"
expect_usage_error "--dense-max" bench toeplitz --dense-max -3 -o "$TMP/out.tsv"
expect_usage_error "--solve-n" bench toeplitz --solve-n 1e9 -o "$TMP/out.tsv"
expect_usage_error "--scipy-sizes" bench toeplitz --scipy-sizes "" -o "$TMP/out.tsv"
expect_usage_error "--threads" bench toeplitz --threads 0 -o "$TMP/out.tsv"
expect_usage_error "--json" bench toeplitz --json /nonexistent/dir/out.json -o "$TMP/out.tsv"
expect_usage_error "--plot" bench toeplitz --plot "$TMP/out.gif" -o "$TMP/out.tsv"
expect_usage_error "-o" bench toeplitz -o /nonexistent/dir/out.tsv
expect_usage_error "--inverse" bench toeplitz --inverse fast -o "$TMP/out.tsv"
expect_usage_error "unknown option" bench toeplitz --frobnicate
expect_usage_error "unexpected argument" bench toeplitz extra

# accuracy sweep at small sizes: TSV with provenance, JSON, verdict
if expect_ok bench toeplitz --check --sizes 1,2,3,17,97,128 -o "$TMP/check.tsv" \
     --json "$TMP/check.json" --seed 7; then
  grep -q '^# command: skit bench toeplitz --check' "$TMP/check.tsv" || fail "check: no command line in header"
  grep -q '^# seed: 7' "$TMP/check.tsv" || fail "check: seed not recorded"
  grep -q 'within tolerance' "$TMP/check.tsv" || fail "check: FFT product not within tolerance: $(grep accuracy "$TMP/check.tsv")"
  rows=$(grep -v '^#' "$TMP/check.tsv" | tail -n +2 | wc -l)
  [ "$rows" -eq 6 ] || fail "check: expected 6 rows, got $rows"
  grep -q '"mode": "check"' "$TMP/check.json" || fail "check: JSON lacks mode"
  if command -v python3 >/dev/null 2>&1; then
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['rows']) == 6" "$TMP/check.json" \
      || fail "check: JSON does not parse or has the wrong row count"
  fi
  pass
fi
# a forced inverse form is the one the timing rows name, and the check
# sweep stays within tolerance with either form
for form in hartley c2r; do
  if expect_ok bench toeplitz --check --sizes 1,2,17,97,128 --inverse "$form" -o "$TMP/check_$form.tsv"; then
    grep -q 'within tolerance' "$TMP/check_$form.tsv" || fail "check --inverse $form: not within tolerance"
  fi
done
if expect_ok bench toeplitz --quick --sizes 64,97 --no-scipy --no-solve --dense-max 97 --inverse c2r \
     --planner estimate -o "$TMP/t_c2r.tsv"; then
  col=$(grep -v '^#' "$TMP/t_c2r.tsv" | head -1 | tr '\t' '\n' | grep -n '^inverse$' | cut -d: -f1)
  [ -n "$col" ] || fail "bench toeplitz: no inverse column"
  forms=$(grep -v '^#' "$TMP/t_c2r.tsv" | tail -n +2 | cut -f"${col:-1}" | sort -u)
  [ "$forms" = c2r ] || fail "bench toeplitz --inverse c2r: rows name '$forms'"
fi
# same seed, same bytes (apart from nothing: the check mode has no timings)
if expect_ok bench toeplitz --check --sizes 1,2,3,17,97,128 -o "$TMP/check2.tsv" --seed 7; then
  cmp -s <(grep -v '^# command' "$TMP/check.tsv") <(grep -v '^# command' "$TMP/check2.tsv") \
    || fail "check: same seed gave different data"
  pass
fi
# the solve comparison over a list of sizes (not timed: residuals and the
# rows only): SPD and general Levinson, scipy's solve_toeplitz when importable
expect_usage_error "--solve-n" bench toeplitz --solve-n 64,1,9 -o "$TMP/out.tsv"
if expect_ok bench toeplitz --quick --sizes 64,100 --scipy-sizes 64,100 --solve-n 64,101 --threads 1 --quiet \
     -o "$TMP/solve.tsv" --json "$TMP/solve.json"; then
  [ "$(grep -c '^# solve n = ' "$TMP/solve.tsv")" -eq 2 ] || fail "solve: expected 2 solve notes"
  grep -q '^# target: Levinson SPD and general solves >= 4x' "$TMP/solve.tsv" || grep -q '^# target: Levinson >= 4x scipy solve_toeplitz: scipy not measured' "$TMP/solve.tsv" ||
    fail "solve: no target line"
  python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['solve']
assert [v['n'] for v in s] == [64, 101], s
for v in s:
    for k in ('residual_levinson', 'residual_general'):
        assert v[k] < 1e-12, (k, v[k])
" "$TMP/solve.json" || fail "solve: JSON rows or residuals wrong"
  # the python peers (one process each, a request per size) answered
  # every size: times positive, scipy's residuals those of a solve
  if /usr/bin/python3 -c 'import scipy.linalg' 2>/dev/null; then
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for r in d['rows']:
    for k in ('numpy_s', 'scipy_s'):
        assert isinstance(r[k], float) and r[k] > 0, (r['n'], k, r[k])
for v in d['solve']:
    for k in ('scipy_solve_toeplitz_s', 'scipy_solve_toeplitz_general_s'):
        assert isinstance(v[k], float) and v[k] > 0, (v['n'], k, v[k])
    for k in ('residual_scipy', 'residual_scipy_general'):
        assert isinstance(v[k], float) and v[k] < 1e-12, (v['n'], k, v[k])
" "$TMP/solve.json" || fail "solve: a python peer did not answer every size"
  fi
  pass
fi
# operation counts: the timing rows carry the FFT plan's count and the
# dense product's (2 n^2, counted at every n, timed or not)
if expect_ok bench toeplitz --quick --sizes 64,97 --no-scipy --no-solve --dense-max 64 --planner estimate \
     --channels 2 -o "$TMP/t_flops.tsv" --json "$TMP/t_flops.json"; then
  python3 -c "
import json, sys
for r in json.load(open(sys.argv[1]))['rows']:
    assert r['flops'] > 0, r
    assert r['dense_flops'] == 2 * r['n'] ** 2, r
" "$TMP/t_flops.json" || fail "bench toeplitz: flops / dense_flops columns wrong"
  pass
fi
# --flops counts only: the same bytes every run (ESTIMATE), counts that
# grow like n log n (flops / (n log2 n) within a factor 2 over 2^6..2^14),
# the dense product's like n^2; causal dense counts n (n + 1)
expect_usage_error "choose one mode" bench toeplitz --flops --check -o "$TMP/out.tsv"
if expect_ok bench toeplitz --flops --sizes 2^6..2^14 -o "$TMP/flops.tsv" --json "$TMP/flops.json" &&
   expect_ok bench toeplitz --flops --sizes 2^6..2^14 -o "$TMP/flops2.tsv"; then
  cmp -s <(grep -v '^# command' "$TMP/flops.tsv") <(grep -v '^# command' "$TMP/flops2.tsv") \
    || fail "--flops: two runs differ"
  python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['mode'] == 'flops', d['mode']
rows = d['rows']
assert [r['n'] for r in rows] == [2 ** k for k in range(6, 15)], rows
ratio = [r['flops_per_nlog2n'] for r in rows]
assert min(ratio) > 0 and max(ratio) / min(ratio) <= 2, ratio
dense = [r['dense_flops_per_nlog2n'] for r in rows]
assert dense[-1] / dense[0] > 50, dense
for a, b in zip(rows, rows[1:]):
    assert 1.8 <= b['flops'] / a['flops'] <= 2.6, (a, b)
    assert b['dense_flops'] == 4 * a['dense_flops'], (a, b)
" "$TMP/flops.json" || fail "--flops: counts do not grow as n log n (FFT) and n^2 (dense)"
  grep -q '^# flops / (n log2 n) over n >= 2: .*(max/min ' "$TMP/flops.tsv" || fail "--flops: no ratio note"
  pass
fi
if expect_ok bench toeplitz --flops --causal --sizes 1,5 -o "$TMP/flops_causal.tsv"; then
  got=$(awk -F'\t' '/^#/ {next} !h {h = 1; next} {printf "%s:%s ", $1, $4}' "$TMP/flops_causal.tsv")
  [ "$got" = "1:2 5:30 " ] || fail "--flops --causal: dense counts '$got', want 1:2 5:30"
  pass
fi
finish
