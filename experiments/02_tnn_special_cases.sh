#!/usr/bin/env bash
# 02_tnn_special_cases.sh — TNN Section 3.5 (eqs. 6-16): other sequence
# models as special cases of the Toeplitz form, checked as numerical
# identities against the direct computation on random inputs:
#   ALiBi: softmax(QK^T/sqrt(d) - m|i-j|) V = attention whose weights
#          exp(q_i k_j/sqrt(d)) are scaled by lambda^|i-j|, lambda = e^-m (eqs. 6-8);
#   CNN:   a 1-D convolution with e taps on the zero-padded input = a banded
#          Toeplitz matvec (eqs. 10-12), here by skit's FFT matvec;
#   SSM:   x_k = A x_{k-1} + B u_k, y_k = C x_k = a causal Toeplitz matvec
#          with kernel (CB, CAB, CA^2B, ...) (eqs. 13-16), by skit's FFT matvec.
# The direct computations are written out here (awk, double precision).
source "$SKIT_DATADIR/experiments/common.sh"
PAPER=TNN
ONE_RUN=deterministic

N=$(pick 64 512)
E=5      # CNN taps
S=3      # SSM state size
TOL=1e-12

# rand_column COUNT SEED: COUNT normal numbers, one per line (Box-Muller)
rand_column() {
  awk -v n="$1" -v s="$2" 'BEGIN { srand(s); for (i = 0; i < n; i++) {
      u = rand(); if (u < 1e-300) u = 1e-300
      printf "%.17g\n", sqrt(-2 * log(u)) * cos(6.283185307179586 * rand()) } }'
}
# max_rel A B SCALE: max_i |a_i - b_i| / SCALE over two one-column files
max_rel() {
  paste "$1" "$2" | awk -v s="$3" '!/^#/ && NF == 2 && $1 + 0 == $1 { d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d }
    END { printf "%.3g\n", m / s }'
}
# values FILE: the numbers of a skit TSV (comments and header skipped)
values() { awk '/^#/ {next} !h {h = 1; if ($1 + 0 != $1) next} {print $1}' "$1"; }
# norm2 FILE: Euclidean norm of a one-column file
norm2() { awk '{ s += $1 * $1 } END { printf "%.17g\n", sqrt(s) }' "$1"; }

# --- CNN: banded Toeplitz = convolution on the zero-padded input -----------
rand_column "$E" 11 > "$DATA/cnn_w.txt"
rand_column "$N" 12 > "$DATA/cnn_x.txt"
H=$(((E - 1) / 2))
# t_l = w[l + H] for |l| <= H, else 0; l = -(n-1)..n-1
awk -v n="$N" -v h=$H 'NR == FNR { w[FNR - 1] = $1; next } END {
    for (l = -(n - 1); l <= n - 1; l++) printf "%.17g\n", (l >= -h && l <= h) ? w[l + h] : 0 }' \
  "$DATA/cnn_w.txt" /dev/null > "$DATA/cnn_t.txt"
$SKIT toeplitz matvec --coeffs "$DATA/cnn_t.txt" --x "$DATA/cnn_x.txt" --threads 1 -o "$DATA/cnn_y_toeplitz.tsv"
values "$DATA/cnn_y_toeplitz.tsv" > "$DATA/cnn_y_toeplitz.txt"
# direct: y_i = sum_k w_k xpad_{i + H - k}, xpad zero outside 0..n-1
awk -v n="$N" -v e="$E" -v h=$H 'NR == FNR { w[FNR - 1] = $1; next } { x[FNR - 1] = $1 } END {
    for (i = 0; i < n; i++) { y = 0; for (k = 0; k < e; k++) { j = i + h - k; if (j >= 0 && j < n) y += w[k] * x[j] }
      printf "%.17g\n", y } }' "$DATA/cnn_w.txt" "$DATA/cnn_x.txt" > "$DATA/cnn_y_direct.txt"
scale=$(awk -v a="$(norm2 "$DATA/cnn_w.txt")" -v b="$(norm2 "$DATA/cnn_x.txt")" 'BEGIN { print a * b }')
cnn=$(max_rel "$DATA/cnn_y_toeplitz.txt" "$DATA/cnn_y_direct.txt" "$scale")
claim "cnn-as-toeplitz" "Eqs. 10-12: a 1-D CNN ($E taps, zero padding) is a Toeplitz matvec with t_l = w_(l+$H) for abs(l) <= $H" \
  "max abs(y_fft - y_conv) / (norm(w) norm(x)) = $cnn (n = $N, skit FFT matvec vs direct convolution)" \
  "$(verdict_le "$cnn" $TOL)" "tolerance $TOL (rounding); ratio $(ratio "$cnn" $TOL)"

# --- SSM: causal Toeplitz with kernel C A^l B -------------------------------
# A: random S x S scaled to spectral norm <= 0.9 (Frobenius bound), B, C random
rand_column $((S * S + 2 * S)) 21 > "$DATA/ssm_abc.txt"
rand_column "$N" 22 > "$DATA/ssm_u.txt"
awk -v n="$N" -v s=$S '
  NR == FNR { p[FNR - 1] = $1; next }
  FNR == 1 { f = 0; for (i = 0; i < s * s; i++) f += p[i] * p[i]; f = 0.9 / sqrt(f)
             for (i = 0; i < s; i++) for (j = 0; j < s; j++) A[i, j] = f * p[i * s + j]
             for (i = 0; i < s; i++) { B[i] = p[s * s + i]; C[i] = p[s * s + s + i] } }
  { u[FNR - 1] = $1 }
  END {
    # kernel: v = A^l B, k_l = C v; written as coefficients t_-(n-1)..t_(n-1)
    for (i = 0; i < s; i++) v[i] = B[i]
    for (l = 0; l < n; l++) { k = 0; for (i = 0; i < s; i++) k += C[i] * v[i]; kern[l] = k
      for (i = 0; i < s; i++) { w[i] = 0; for (j = 0; j < s; j++) w[i] += A[i, j] * v[j] }
      for (i = 0; i < s; i++) v[i] = w[i] }
    for (l = -(n - 1); l <= n - 1; l++) printf "%.17g\n", (l >= 0 ? kern[l] : 0) > "'"$DATA"'/ssm_t.txt"
    # direct recurrence: x_k = A x_(k-1) + B u_k, y_k = C x_k
    for (i = 0; i < s; i++) x[i] = 0
    for (t = 0; t < n; t++) {
      for (i = 0; i < s; i++) { w[i] = B[i] * u[t]; for (j = 0; j < s; j++) w[i] += A[i, j] * x[j] }
      y = 0; for (i = 0; i < s; i++) { x[i] = w[i]; y += C[i] * x[i] }
      printf "%.17g\n", y > "'"$DATA"'/ssm_y_direct.txt" }
  }' "$DATA/ssm_abc.txt" "$DATA/ssm_u.txt"
$SKIT toeplitz matvec --coeffs "$DATA/ssm_t.txt" --x "$DATA/ssm_u.txt" --causal --threads 1 -o "$DATA/ssm_y_toeplitz.tsv"
values "$DATA/ssm_y_toeplitz.tsv" > "$DATA/ssm_y_toeplitz.txt"
scale=$(awk -v a="$(norm2 "$DATA/ssm_t.txt")" -v b="$(norm2 "$DATA/ssm_u.txt")" 'BEGIN { print a * b }')
ssm=$(max_rel "$DATA/ssm_y_toeplitz.txt" "$DATA/ssm_y_direct.txt" "$scale")
claim "ssm-as-causal-toeplitz" "Eqs. 13-16: a linear state-space model (state size $S) is a causal Toeplitz matvec with kernel (CB, CAB, CA^2B, ...)" \
  "max abs(y_fft - y_recurrence) / (norm(k) norm(u)) = $ssm (n = $N, skit causal FFT matvec vs the recurrence)" \
  "$(verdict_le "$ssm" $TOL)" "tolerance $TOL (rounding); ratio $(ratio "$ssm" $TOL)"

# --- ALiBi: additive bias -m|i-j| = multiplicative Toeplitz lambda^|i-j| ------
NA=$(pick 32 128)
DA=8
M=0.0625
rand_column $((3 * NA * DA)) 31 > "$DATA/alibi_qkv.txt"
alibi=$(awk -v n="$NA" -v d="$DA" -v m="$M" '{ p[NR - 1] = $1 } END {
    lam = exp(-m); sc = 1 / sqrt(d); worst = 0
    for (i = 0; i < n; i++) {
      # scores s_ij = q_i k_j / sqrt(d); form 1: softmax(s - m|i-j|) V (max-shifted)
      mx = -1e300
      for (j = 0; j < n; j++) { s = 0; for (c = 0; c < d; c++) s += p[i * d + c] * p[n * d + j * d + c]
        S[j] = s * sc; b = S[j] - m * (i > j ? i - j : j - i); if (b > mx) mx = b }
      z1 = 0; z2 = 0
      for (j = 0; j < n; j++) { a1[j] = exp(S[j] - m * (i > j ? i - j : j - i) - mx); z1 += a1[j]
        a2[j] = exp(S[j]) * lam ^ (i > j ? i - j : j - i); z2 += a2[j] }
      # form 2: exp(s_ij) lambda^|i-j| normalised (TNN eq. 8)
      for (c = 0; c < d; c++) { o1 = 0; o2 = 0
        for (j = 0; j < n; j++) { v = p[2 * n * d + j * d + c]; o1 += a1[j] / z1 * v; o2 += a2[j] / z2 * v }
        e = o1 - o2; if (e < 0) e = -e; if (e > worst) worst = e } }
    printf "%.3g\n", worst }' "$DATA/alibi_qkv.txt")
claim "alibi-as-toeplitz-scaling" "Eqs. 6-8: ALiBi's bias -m abs(i-j) in softmax attention equals scaling exp(q_i k_j) by the Toeplitz matrix lambda^abs(i-j), lambda = e^-m" \
  "max abs(o_bias - o_scaled) = $alibi (n = $NA, d = $DA, m = $M; V entries N(0,1))" \
  "$(verdict_le "$alibi" $TOL)" "tolerance $TOL (rounding); ratio $(ratio "$alibi" $TOL)"
rm -f "$DATA"/*.txt

note <<EOF
Random N(0,1) inputs from fixed seeds; the direct computations are in this script (awk, double
precision): the CNN as the convolution sum over the zero-padded input, the SSM as its recurrence
(A scaled to Frobenius norm 0.9 so that the kernel decays), ALiBi both as softmax of the biased
scores and as exp(scores) times lambda^|i-j| normalised. The CNN and SSM sides use
\`skit toeplitz matvec\` (FFT, circulant embedding; --causal for the SSM). Errors are relative to
the scale of the products (norm(kernel) norm(input), which bounds every output); tolerance
$TOL. These identities are exact in real arithmetic, so any difference above rounding would be
a bug in skit's Toeplitz product or in the construction.
EOF
