#!/usr/bin/env bash
# figures.sh — figures that show their data: a representative set of
# `skit ... --plot` figures, drawn small and fast as SVG, each read back and
# checked panel by panel (a multiplot's panels separately):
#   * the panel draws data inside its frame (not an empty plot);
#   * each axis has at least two labelled ticks, no label twice (a log axis
#     with a single decade label, or sub-decade ticks all labelled 10^{k});
#   * a decade axis (labels 10^{k}) spans at most 100 decades (an axis over
#     some hundred decades flattens the data that matter);
#   * no point marker is centred on or beyond the frame (cut by it);
#   * gnuplot did not warn of a series without data or a missing column.
# A panel that draws a matrix as an image (heat maps) has no axes by design:
# only its data is checked.
# gnuplot's SVG: a labelled major tick is a path (its tick mark: vertical on
# the x axis, horizontal on y) whose end is followed on the same line by the
# <g> of its label, whose <text> is the next line; the frame is the closed path
# (Z) drawn before the panel's plots; each plot is a <g id="gnuplot_plot_*">
# group (nested <g> inside).
# Without gnuplot: skipped (77). FIGURES_CHECK_ONLY=FILE.svg checks one file;
# FIGURES_CHECK_DIR=DIR checks every DIR/*.svg (scripts/setup-and-run
# reproduce runs it on every figure of the reproduction).
set -u
command -v gnuplot >/dev/null 2>&1 || { echo "figures.sh: gnuplot not found: skipped"; exit 77; }

# check_svg FILE: the checks above; prints one line per problem, exit 1 if any
check_svg() {
  awk '
    function problem(msg) { printf "%s: panel %d: %s\n", FILENAME, p, msg; bad = 1 }
    function text_of(s) { gsub(/<[^>]*>/, "\t", s); gsub(/^[\t ]+|[\t ]+$/, "", s); gsub(/[\t ]+/, " ", s); return s }
    function finish(   a, k) {
      if (p == 0) return
      if (groups[p] == 0) return
      if (inside[p] == 0) problem("no data inside the frame (empty plot)")
      if (image[p]) return # a matrix drawn as an image: no axes by design
      for (k = 1; k <= 2; k++) {
        a = (k == 1) ? "x" : "y"
        if (labels[p, a] < 2) problem(a " axis: " labels[p, a] + 0 " labelled tick(s), need 2")
        if (decades[p, a] && hi[p, a] - lo[p, a] > 100)
          problem(a " axis spans " hi[p, a] - lo[p, a] " decades (10^" lo[p, a] "..10^" hi[p, a] ")")
      }
    }
    BEGIN { p = 0; seen_plot = 1; inplot = 0; bad = 0 }
    # the frame, drawn before the plots (the copy drawn over them is ignored;
    # a label may start on its line: not a tick)
    /<path stroke=.black.  d=.M[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ Z/ {
      if (!seen_plot) {
        s = $0; sub(/.*d=.M/, "", s); sub(/ Z.*/, "", s)
        n = split(s, c, /[ ,ML]+/)
        x0 = y0 = 1e9; x1 = y1 = -1e9
        for (i = 1; i <= n; i++) if (c[i] != "") {
          c[i] += 0
          if (i % 2) { if (c[i] < x0) x0 = c[i]; if (c[i] > x1) x1 = c[i] }
          else       { if (c[i] < y0) y0 = c[i]; if (c[i] > y1) y1 = c[i] }
        }
        fx0[p] = x0; fx1[p] = x1; fy0[p] = y0; fy1[p] = y1
      }
      next
    }
    # a labelled tick: its mark (a path, whose last lines may hold other
    # ticks: minor ones) ends on the line where the <g> of its label starts
    !inplot && /\/>\t<g transform="translate\(/ {
      if (seen_plot) { finish(); p++; seen_plot = 0; inplot = 0 }
      seg = lastseg; s = $0; sub(/\/>\t<g transform.*/, "", s)
      while (match(s, /M[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+/)) { seg = substr(s, RSTART + 1, RLENGTH - 1); s = substr(s, RSTART + RLENGTH) }
      split(seg, c, /[ ,L]+/)
      axis = (seg == "") ? "" : (c[1] == c[3]) ? "x" : (c[2] == c[4]) ? "y" : ""
      getline nxt
      t = text_of(nxt)
      if (axis != "" && t != "") {
        labels[p, axis]++
        if ((p, axis, t) in label_seen) problem(axis " axis: label \"" t "\" twice")
        label_seen[p, axis, t] = 1
        # 10^{k}: "10" then the exponent
        if (split(t, w, " ") == 2 && w[1] == "10" && w[2] ~ /^[-+]?[0-9]+$/) {
          e = w[2] + 0
          if (!decades[p, axis] || e < lo[p, axis]) lo[p, axis] = e
          if (!decades[p, axis] || e > hi[p, axis]) hi[p, axis] = e
          decades[p, axis] = 1
        }
      }
      next
    }
    # the last tick mark seen (a label line may hold none of its path)
    !inplot && /M[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+/ {
      s = $0
      while (match(s, /M[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+/)) { lastseg = substr(s, RSTART + 1, RLENGTH - 1); s = substr(s, RSTART + RLENGTH) }
    }
    /<g id="gnuplot_plot_/ {
      if (p == 0) { p = 1 }
      seen_plot = 1; inplot = 1; depth = 1; groups[p]++
      next
    }
    inplot {
      # the group ends where its nesting of <g> closes
      s = $0; depth += gsub(/<g[ >]/, "", s); s = $0; depth -= gsub(/<\/g>/, "", s)
      if (depth <= 0) { inplot = 0; next }
      if ($0 ~ /<image /) { image[p] = 1; inside[p]++ }
      # point markers: centred inside the frame, not on it
      if (match($0, /<use xlink:href=.#gpPt[0-9]+. transform=.translate\([-0-9.]+,[-0-9.]+\)/)) {
        s = substr($0, RSTART, RLENGTH); sub(/.*translate\(/, "", s); sub(/\)$/, "", s)
        split(s, c, ","); c[1] += 0; c[2] += 0
        if (c[1] > fx0[p] - 2 && c[1] < fx1[p] + 2 && c[2] > fy0[p] - 2 && c[2] < fy1[p] + 2) {
          if (c[1] < fx0[p] + 1.5 || c[1] > fx1[p] - 1.5 || c[2] < fy0[p] + 1.5 || c[2] > fy1[p] - 1.5)
            problem("a point at (" c[1] "," c[2] ") on the frame")
          else inside[p]++
        }
      }
      # lines and boxes: vertices inside the frame
      s = $0
      while (match(s, /[ML][-0-9.]+,[-0-9.]+/)) {
        split(substr(s, RSTART + 1, RLENGTH - 1), c, ","); c[1] += 0; c[2] += 0
        if (c[1] > fx0[p] && c[1] < fx1[p] && c[2] > fy0[p] && c[2] < fy1[p]) inside[p]++
        s = substr(s, RSTART + RLENGTH)
      }
    }
    END { finish(); if (p == 0) { p = 1; problem("no panel found") } exit bad }
  ' "$1"
}

if [ -n "${FIGURES_CHECK_ONLY:-}" ]; then
  check_svg "$FIGURES_CHECK_ONLY"
  exit
fi
if [ -n "${FIGURES_CHECK_DIR:-}" ]; then
  checked=0 bad=0
  for f in "$FIGURES_CHECK_DIR"/*.svg; do
    [ -f "$f" ] || continue
    checked=$((checked + 1))
    check_svg "$f" || bad=$((bad + 1))
  done
  echo "figures.sh: $checked figures checked in $FIGURES_CHECK_DIR, $bad with problems"
  [ "$checked" -gt 0 ] && [ "$bad" -eq 0 ]
  exit
fi

: "${SKIT:?figures.sh: SKIT (the skit binary) not set}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skit-figures.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
failures=0

# figure NAME ARGS...: `skit ARGS... --plot NAME.svg`, then the checks
figure() {
  local name=$1
  shift
  local svg="$tmp/$name.svg" err="$tmp/$name.err"
  if ! "$SKIT" "$@" --quiet --threads 1 -o "$tmp/$name.tsv" --plot "$svg" 2> "$err"; then
    echo "FAIL $name: skit $* exited non-zero:"; sed 's/^/  /' "$err"
    failures=$((failures + 1)); return
  fi
  if grep -E "no valid points|No data in plot|no column with header|Cannot find or open file|undefined variable" "$err" > "$tmp/$name.warn"; then
    echo "FAIL $name: gnuplot:"; sed 's/^/  /' "$tmp/$name.warn"
    failures=$((failures + 1)); return
  fi
  if ! check_svg "$svg" > "$tmp/$name.check"; then
    echo "FAIL $name:"; sed "s|^$tmp/|  |" "$tmp/$name.check"
    failures=$((failures + 1)); return
  fi
  echo "ok $name"
}

figure ski_bound_small ski-bound --n 64 --r 4,8,16 --kernel matern52,gaussian
figure ski_bound_vs_n ski-bound --n 32,64 --r 8 --vs n
figure ski_sparse_lowrank ski-bound --study sparse-lowrank --n 64 --r 4,8,16 --band 0,5,9 --lengthscale 8
figure ski_extrapolation ski-bound --study extrapolation --kernel matern52 --n-train 32 --factor 4
figure hilbert_sweep hilbert sweep --sizes 2^4..2^7
figure hilbert_causal hilbert causal --spectrum poisson:0.9 -n 64
figure hilbert_transform hilbert transform --spectrum cos:3 -n 64
figure decay_response decay response --fft-size 256 --channels 2
figure decay_impulse decay impulse --fft-size 256 --lags 32 --channels 2
figure decay_bound decay bound --activation silu --fft-size 512 --lags 64 --nodes 256
figure decay_prop1 decay prop1 --norm none,layer --construction half
figure mra_sweep mra --n 128 --methods mra2,mra2s,window,bigbird --budget 0.25,0.5
figure mra_haar mra haar --n 64 --block 8 --keep 0.05,0.1
figure mra_workload mra workload --n 32..128 --block 8
figure mra_bounds mra bounds --n 128 --block 8,16 --budget 0.1,0.5 --temperature 0.25,1 --locality 0 --noise 1
figure mra_frame mra frame --subsets 4
figure bench_toeplitz_check bench toeplitz --check --sizes 3,8,17,64 --channels 2
figure bench_toeplitz_flops bench toeplitz --flops --sizes 2^4..2^10

[ "$failures" -eq 0 ] || { echo "figures.sh: $failures figure(s) failed"; exit 1; }
echo "figures.sh: all figures show their data"
