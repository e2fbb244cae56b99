# tests/cli_mra_user.sh — `skit mra` on user Q, K, V in every mode: the same
# numbers as the synthetic path on the same Q, K, V; every head of a stack
# (L, H, n, d), (H, n, d) or a directory equal to its own single-head run;
# --y-out in V's shape; bad input (shapes, block, NaN, dtype) exits 2 with one
# line and writes nothing.
. "$(dirname "$0")/cli_lib.sh"

# write_stack DIR L H N D SEED: DIR/s4.npy (L, H, N, D), DIR/s3.npy (L*H, N, D),
# DIR/heads/hLH.npy (N, D) and DIR/hLH.npy (N, D) with the same C-order values
write_stack() {
  perl -e '
    my ($dir, $L, $H, $n, $d, $seed) = @ARGV;
    sub npy { my ($file, $shape, $vals, $descr) = @_; $descr //= "<f8";
      my $h = "{\x27descr\x27: \x27$descr\x27, \x27fortran_order\x27: False, \x27shape\x27: ($shape), }";
      my $len = length($h) + 1; my $pad = (64 - (10 + $len) % 64) % 64;
      $h .= " " x $pad . "\n";
      open(my $f, ">:raw", $file) or die "$file: $!";
      print $f "\x93NUMPY\x01\x00" . pack("v", length($h)) . $h;
      print $f pack(($descr eq "<i8" ? "q<" : "d<") x scalar(@$vals), @$vals); close($f); }
    my @all; mkdir "$dir/heads";
    for my $l (0 .. $L - 1) { for my $h (0 .. $H - 1) { my @v;
      for my $i (0 .. $n - 1) { for my $c (0 .. $d - 1) {
        push @v, sin(0.3 * $i * ($c + 1) / $n + $seed + 1.7 * $l + 0.9 * $h) * (1 + $c % 3)
               + 0.5 * cos(2.1 * $i + $seed * ($c + 2)); } }
      npy("$dir/heads/h$l$h.npy", "$n, $d", \@v); npy("$dir/h$l$h.npy", "$n, $d", \@v); push @all, @v; } }
    npy("$dir/s4.npy", "$L, $H, $n, $d", \@all);
    npy("$dir/s3.npy", $L * $H . ", $n, $d", \@all);
    npy("$dir/int.npy", "$n, $d", [map { int($_ * 10) } @all[0 .. $n * $d - 1]], "<i8");
    my @nan = @all[0 .. $n * $d - 1]; $nan[5] = 9**9**9 / 9**9**9; npy("$dir/nan.npy", "$n, $d", \@nan);
  ' "$@"
}

# cols FILE NAMES...: the named columns of a skit TSV (comments and the
# layer/head labels dropped), for comparing runs
cols() {
  local f=$1; shift
  awk -F'\t' -v names="$*" '/^#/ {next}
    !h {n = split(names, want, " "); for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; next}
    {line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? "\t" : "") $idx[want[j]]; print line}' "$f"
}
# rows_of FILE LAYER HEAD: the rows of one head of a stack run, labels cut
rows_of() {
  awk -F'\t' -v l="$2" -v h="$3" '/^#/ {next} !hd {for (i = 1; i <= NF; i++) if ($i == "layer") c = i; hd = 1; next}
    $c == l && $(c + 1) == h {NF = c - 1; print}' OFS='\t' "$1"
}
strip_comments() { grep -av '^#' "$1" | sed 1d; }
# same A B MESSAGE: fail unless A is not empty and equals B
same() { [ -n "$1" ] && [ "$1" = "$2" ] || fail "$3"; }
# single FILE: the rows of a one-head run of user inputs, its labels (0 0) cut
single() { strip_comments "$1" | awk -F'\t' -v OFS='\t' '{NF -= 2; print}'; }

# ---- the synthetic path and the same Q, K, V from files give the same numbers --
mkdir -p "$TMP/syn"
SWEEP_COLS="method n d dv temperature scale entropy budget parameter work_fraction rel_error"
expect_ok mra --n 64 --d 8 --block 8 --methods exact,mra2,mra2s,lowrank,topk,nystrom,window \
  --budget 0.25,0.5 --repeat 1 --save-inputs "$TMP/syn" -o "$TMP/s_syn.tsv"
S="$TMP/syn"
expect_ok mra --q "$S/q.npy" --k "$S/k.npy" --v "$S/v.npy" --block 8 --methods exact,mra2,mra2s,lowrank,topk,nystrom,window \
  --budget 0.25,0.5 --repeat 1 -o "$TMP/s_usr.tsv"
same "$(cols "$TMP/s_syn.tsv" $SWEEP_COLS)" "$(cols "$TMP/s_usr.tsv" $SWEEP_COLS)" "sweep: files differ from synthetic"
run_pair() { # MODE ARGS...: synthetic vs the saved files, all columns but labels
  local mode=$1; shift
  expect_ok mra "$mode" --n 64 --d 8 "$@" --save-inputs "$TMP/syn" -o "$TMP/${mode}_syn.tsv" || return
  local v=(); [ "$mode" = workload ] && v=(--v "$S/v.npy")
  expect_ok mra "$mode" --q "$S/q.npy" --k "$S/k.npy" "${v[@]}" "$@" -o "$TMP/${mode}_usr.tsv" || return
  [ "$(strip_comments "$TMP/${mode}_syn.tsv")" = "$(strip_comments "$TMP/${mode}_usr.tsv" | cut -f1-$(strip_comments "$TMP/${mode}_syn.tsv" | head -1 | awk -F'\t' '{print NF}'))" ] \
    || fail "$mode: files differ from synthetic"
}
run_pair haar --block 8 --keep 0.1,0.5 --threshold 0.01
run_pair workload --block 8 --targets 0.1 --methods lowrank,topk,mra2
run_pair bounds --block 4,8 --budget 0.25
run_pair frame --subsets 3
grep -q "fraction of Haar coefficients with magnitude < 0.01" "$TMP/haar_syn.tsv" || fail "haar: threshold not stated"

# ---- stacks: every head equals its single-head run ----------------------------------
D="$TMP/st"; mkdir -p "$D"
write_stack "$D" 2 3 32 4 0.1
mkdir -p "$D/v"; write_stack "$D/v" 2 3 32 5 2.3
for stack in s4.npy s3.npy heads; do
  vst=$stack
  expect_ok mra haar --q "$D/$stack" --k "$D/$stack" --block 8 --keep 0.25 -o "$TMP/h_$stack.tsv"
  expect_ok mra --q "$D/$stack" --k "$D/$stack" --v "$D/v/$vst" --block 8 --methods exact,mra2,lowrank --budget 0.25 \
    --repeat 1 -o "$TMP/w_$stack.tsv"
  expect_ok mra bounds --q "$D/$stack" --k "$D/$stack" --block 8 -o "$TMP/b_$stack.tsv"
  [ "$(grep -vc '^#' "$TMP/h_$stack.tsv")" -eq 7 ] || fail "haar $stack: expected 6 rows"
done
for l in 0 1; do for h in 0 1 2; do
  expect_ok mra haar --q "$D/h$l$h.npy" --k "$D/h$l$h.npy" --block 8 --keep 0.25 -o "$TMP/h1.tsv"
  same "$(rows_of "$TMP/h_s4.npy.tsv" $l $h)" "$(single "$TMP/h1.tsv")" "haar: head $l,$h of the (L,H,n,d) stack differs from its own run"
  same "$(rows_of "$TMP/h_heads.tsv" 0 $((3 * l + h)))" "$(single "$TMP/h1.tsv")" "haar: file $l$h of the directory differs from its own run"
  expect_ok mra bounds --q "$D/h$l$h.npy" --k "$D/h$l$h.npy" --block 8 -o "$TMP/b1.tsv"
  same "$(rows_of "$TMP/b_s4.npy.tsv" $l $h)" "$(single "$TMP/b1.tsv")" "bounds: head $l,$h differs from its own run"
  expect_ok mra --q "$D/h$l$h.npy" --k "$D/h$l$h.npy" --v "$D/v/h$l$h.npy" --block 8 --methods exact,mra2,lowrank --budget 0.25 \
    --repeat 1 -o "$TMP/w1.tsv"
  a=$(rows_of "$TMP/w_s4.npy.tsv" $l $h | cut -f1-11); b=$(single "$TMP/w1.tsv" | cut -f1-11)
  same "$a" "$b" "sweep: head $l,$h differs from its own run"
  a=$(rows_of "$TMP/h_s3.npy.tsv" 0 $((3 * l + h))); same "$a" "$(single "$TMP/h1.tsv")" "haar: (H,n,d) head $((3 * l + h)) differs"
done; done
# a directory named by layer and head (a full grid) is the (L, H, n, d) stack;
# otherwise heads are numbered in natural name order (p2 before p10)
mkdir -p "$D/grid" "$D/nat"
for l in 0 1; do for h in 0 1 2; do cp "$D/h$l$h.npy" "$D/grid/q_l${l}_h${h}.npy"; done; done
for i in $(seq 0 10); do cp "$D/h$((i / 3 % 2))$((i % 3)).npy" "$D/nat/p$i.npy"; done
expect_ok mra haar --q "$D/grid" --k "$D/grid" --block 8 --keep 0.25 -o "$TMP/h_grid.tsv"
same "$(strip_comments "$TMP/h_grid.tsv")" "$(strip_comments "$TMP/h_s4.npy.tsv")" "a layer/head-named directory is not the (L, H, n, d) stack"
expect_ok mra haar --q "$D/nat" --k "$D/nat" --block 8 --keep 0.25 --heads 2 -o "$TMP/h_nat.tsv"
expect_ok mra haar --q "$D/h02.npy" --k "$D/h02.npy" --block 8 --keep 0.25 -o "$TMP/h1.tsv"
same "$(rows_of "$TMP/h_nat.tsv" 0 2)" "$(single "$TMP/h1.tsv")" "directory heads are not in natural name order (p2 before p10)"
expect_ok mra haar --q "$D/s4.npy" --k "$D/s4.npy" --block 8 --heads 4 --keep 0.25 -o "$TMP/h4.tsv"
same "$(rows_of "$TMP/h4.tsv" 1 1)" "$(rows_of "$TMP/h_s4.npy.tsv" 1 1)" "--heads 4 is not layer 1 head 1"

# ---- --y-out: V's shape; a stack's heads are the single-head outputs -------------
npy_shape() { perl -ne 'if (/\x27shape\x27: \(([0-9, ]*?),? ?\)/) {print $1; exit}' "$1"; }
npy_data() { perl -e 'open(my $f, "<:raw", $ARGV[0]) or die; local $/; my $b = <$f>;
  my $hl = unpack("v", substr($b, 8, 2)); print substr($b, 10 + $hl);' "$1"; }
expect_ok mra --q "$D/s4.npy" --k "$D/s4.npy" --v "$D/v/s4.npy" --block 8 --methods mra2 --budget 0.25 --repeat 1 \
  --y-out "$TMP/y4.npy" -o "$TMP/y4.tsv"
[ "$(npy_shape "$TMP/y4.npy")" = "2, 3, 32, 5" ] || fail "--y-out: shape $(npy_shape "$TMP/y4.npy"), expected 2, 3, 32, 5"
expect_ok mra --q "$D/h11.npy" --k "$D/h11.npy" --v "$D/v/h11.npy" --block 8 --methods mra2 --budget 0.25 --repeat 1 \
  --y-out "$TMP/y11.npy" -o "$TMP/y11.tsv"
[ "$(npy_shape "$TMP/y11.npy")" = "32, 5" ] || fail "--y-out of one head: shape $(npy_shape "$TMP/y11.npy")"
cmp -s <(npy_data "$TMP/y11.npy") <(npy_data "$TMP/y4.npy" | tail -c +$((4 * 32 * 5 * 8 + 1)) | head -c $((32 * 5 * 8))) \
  || fail "--y-out: head (1, 1) of the stack differs from its single-head output"
# exact attention with V = identity returns the softmax matrix: rows sum to 1
expect_ok mra --n 16 --d 4 --block 4 --methods exact --repeat 1 --pad 3 --y-out "$TMP/ys.npy" -o "$TMP/ys.tsv"
[ "$(npy_shape "$TMP/ys.npy")" = "16, 4" ] || fail "--y-out synthetic: shape $(npy_shape "$TMP/ys.npy")"
expect_ok mra --n 64 --d 8 --block 8 --methods exact,mra2 --budget 1 --repeat 1 --pad 5 -o "$TMP/pad.tsv"
awk -F'\t' '/^#/ || $1 == "method" {next} $11 > 1e-12 {bad = 1} END {exit bad}' "$TMP/pad.tsv" \
  || fail "--pad: mra2 at full budget differs from exact"

# ---- --mask causal: every method with a causal form is exact at a full budget;
# query 0 sees only key 0 (its output is V's first row); S is lower triangular
expect_ok mra --n 64 --d 8 --block 8 --methods exact,mra2,mra2s,topk,lowrank --budget 1 --repeat 1 --mask causal \
  -o "$TMP/causal.tsv"
awk -F'\t' '/^#/ || $1 == "method" {next} {rows++} $11 > 1e-10 {bad = 1} END {exit bad || rows != 5}' \
  "$TMP/causal.tsv" || fail "--mask causal: a method at full budget differs from exact: $(cat "$TMP/causal.tsv")"
mkdir -p "$TMP/cin"
expect_ok mra --n 16 --d 4 --dv 3 --block 4 --methods exact --repeat 1 --mask causal --save-inputs "$TMP/cin" \
  --y-out "$TMP/yc.npy" -o "$TMP/yc.tsv"
# y is C order (16, 3); --save-inputs writes v.npy in Fortran order: V[0, c] at c * 16
for c in 0 1 2; do
  cmp -s <(npy_data "$TMP/yc.npy" | tail -c +$((c * 8 + 1)) | head -c 8) \
         <(npy_data "$TMP/cin/v.npy" | tail -c +$((c * 16 * 8 + 1)) | head -c 8) \
    || fail "--mask causal: query 0's output is not V's first row (column $c)"
done
expect_ok mra haar --n 64 --block 8 --mask causal --keep 0.1 --matrix-out "$TMP/mc.tsv" -o "$TMP/hc.tsv"
awk -F'\t' '/^#/ || $1 == "i" {next} $2 > $1 && $3 != 0 {bad = 1} $2 <= $1 {seen++}
             END {exit bad || seen != 64 * 65 / 2}' "$TMP/mc.tsv" \
  || fail "--mask causal: haar's matrix has entries after the diagonal"

# ---- bad input: one line, exit 2, no file ------------------------------------------
O=(-o "$TMP/out.tsv")
write_stack "$TMP" 1 2 48 4 0.7   # n = 48: not a multiple of 32
expect_usage_error "shapes differ" mra haar --q "$D/s4.npy" --k "$D/s3.npy" --block 8 "${O[@]}"
expect_usage_error "--v" mra --q "$D/s4.npy" --k "$D/s4.npy" --v "$D/v/s3.npy" --block 8 --y-out "$TMP/out.npy" --methods mra2 --budget 0.1 "${O[@]}"
expect_usage_error "multiple" mra --q "$TMP/s4.npy" --k "$TMP/s4.npy" --v "$TMP/s4.npy" --block 32 "${O[@]}"
expect_usage_error "powers of two" mra haar --q "$TMP/s4.npy" --k "$TMP/s4.npy" --block 32 "${O[@]}"
expect_usage_error "multiple" mra workload --q "$TMP/s4.npy" --k "$TMP/s4.npy" --v "$TMP/s4.npy" --block 32 "${O[@]}"
expect_usage_error "divide" mra bounds --q "$TMP/s4.npy" --k "$TMP/s4.npy" --block 32 "${O[@]}"
expect_usage_error "powers of two" mra frame --q "$TMP/s4.npy" --k "$TMP/s4.npy" "${O[@]}"
expect_usage_error "non-finite" mra haar --q "$D/nan.npy" --k "$D/h00.npy" --block 8 "${O[@]}"
expect_usage_error "non-finite" mra --q "$D/h00.npy" --k "$D/h00.npy" --v "$D/nan.npy" --block 8 --y-out "$TMP/out.npy" --methods exact "${O[@]}"
expect_usage_error "dtype" mra bounds --q "$D/int.npy" --k "$D/h00.npy" --block 8 "${O[@]}"
expect_usage_error "--heads" mra haar --q "$D/s4.npy" --k "$D/s4.npy" --block 8 --heads 6 "${O[@]}"
expect_usage_error "--heads" mra haar --n 64 --heads 1 "${O[@]}"
expect_usage_error "--y-out" mra --q "$D/s4.npy" --k "$D/s4.npy" --v "$D/s4.npy" --block 8 --methods mra2,mra2s --budget 0.1 --y-out "$TMP/out.npy"
expect_usage_error "--y-out" mra --n 64 --block 8 --methods mra2 --budget 0.1,0.2 --y-out "$TMP/out.npy"
expect_usage_error "--y-out" mra --n 64 --block 8 --methods mra2 --budget 0.1 --y-out "$TMP/out.tsv"
expect_usage_error "--pad" mra --n 64 --block 8 --pad 64 "${O[@]}"
expect_usage_error "--pad" mra bounds --n 64 --pad 2 "${O[@]}"
expect_usage_error "--mask" mra bounds --n 64 --mask causal "${O[@]}"
expect_usage_error "--mask" mra workload --n 64 --mask causal "${O[@]}"
expect_usage_error "--mask" mra --n 64 --mask future "${O[@]}"
expect_usage_error "nystrom" mra --n 64 --methods mra2,nystrom --mask causal "${O[@]}"
expect_usage_error "--mask causal" mra --n 64 --mask causal --entropy 2 "${O[@]}"
expect_usage_error "finest scale" mra --n 64 --mask causal --scales 16,4 "${O[@]}"
expect_usage_error "--matrix-out" mra haar --q "$D/s4.npy" --k "$D/s4.npy" --block 8 --matrix-out "$TMP/out.m" "${O[@]}"
expect_usage_error "--save-inputs" mra haar --n 64,128 --block 8 --save-inputs "$TMP" "${O[@]}"
expect_usage_error "--save-inputs" mra haar --n 64 --block 8 --save-inputs "$TMP/nope" "${O[@]}"
expect_usage_error "--q" mra bounds --q "$D/v" --k "$D/v" --block 8 "${O[@]}"
finish
