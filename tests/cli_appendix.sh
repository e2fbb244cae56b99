# tests/cli_appendix.sh — `skit analytic` and `skit mra-appendix`: every
# mode runs and writes the columns experiments 27 and 36 read; bad input
# gives one line, exit 2, no output file.
. "$(dirname "$0")/cli_lib.sh"

expect_ok analytic --help
expect_ok mra-appendix --help
expect_usage_error "--radii" analytic --radii -1 -o "$TMP/out.tsv"
expect_usage_error "--centers" analytic --centers 1:x -o "$TMP/out.tsv"
expect_usage_error "--points" analytic --points 4 -o "$TMP/out.tsv"
expect_usage_error "--norm" analytic --norm batch -o "$TMP/out.tsv"
expect_usage_error "missing mode" mra-appendix
expect_usage_error "mode" mra-appendix bogus
expect_usage_error "--p" mra-appendix haar-bound --p 0.5 -o "$TMP/out.tsv"
expect_usage_error "--block" mra-appendix sparse-lowrank --n 64 --block 7 -o "$TMP/out.tsv"
expect_usage_error "--sparsity" mra-appendix sparse-lowrank --sparsity 1.5 -o "$TMP/out.tsv"
expect_usage_error "--n" mra-appendix refine --n 100 -o "$TMP/out.tsv"
expect_usage_error "--q" mra-appendix haar-bound --q "$TMP/missing.tsv" --k "$TMP/missing.tsv" -o "$TMP/out.tsv"

# analytic: GeLU without a norm integrates to rounding; layer norm around its branch point does not
expect_ok analytic --activation gelu --norm none,layer --layers 0 --width 8 --channels 2 --radii 0.5 \
  --branch-radii 0.5 --points 256 --quiet -o "$TMP/a.tsv"
awk -F'\t' '/^#/ {next} !h {h = 1; next} $2 == "none" && $9 > 1e-12 {bad = 1} $4 == "branch" && $9 < 1e-3 {bad = 1}
  $4 == "branch" {b = 1} END {exit bad || !b}' "$TMP/a.tsv" && pass || fail "analytic: unexpected integrals: $(cat "$TMP/a.tsv")"

for mode in haar-bound sparse-lowrank refine; do
  expect_ok mra-appendix "$mode" --n 64 --d 8 --block 8 --quiet -o "$TMP/m.tsv"
  grep -q '^# command: skit mra-appendix' "$TMP/m.tsv" && pass || fail "mra-appendix $mode: no provenance header"
done
expect_ok mra-appendix haar-bound --n 64 --d 8 --quiet -o "$TMP/h.tsv"
awk -F'\t' '/^#/ {next} !h {h = 1; next} $5 != 0 {bad = 1} END {exit bad}' "$TMP/h.tsv" && pass || fail "haar bound violated"
expect_ok mra-appendix sparse-lowrank --n 64 --d 8 --block 8 --sparsity 0.5 --supports "$TMP/sup" --quiet -o "$TMP/s.tsv"
for k in entry optimal proxy; do [ -s "$TMP/sup.$k.tsv" ] && pass || fail "no $k support written"; done
finish
