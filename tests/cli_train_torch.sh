# tests/cli_train_torch.sh — one training step of `skit train` (attention
# mixer, rotary, learned or ALiBi positions, with or without the GLU: every
# operation of it exists in PyTorch) repeated in PyTorch by
# tests/train_torch_step.py: loss, every gradient, every parameter after
# clipping and AdamW agree to 1e-9. Skipped (77) where /usr/bin/python3
# cannot import torch (Debian python3-torch).
. "$(dirname "$0")/cli_lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy, torch' 2>/dev/null; then echo "torch not importable: skipped"; exit 77; fi
SCRIPT="$(dirname "$0")/train_torch_step.py"

run() { # label, skit train args..., -- , python args...
  local label=$1; shift
  local skit_args=() py_args=()
  while [ "$1" != -- ]; do skit_args+=("$1"); shift; done; shift
  py_args=("$@")
  rm -rf "$TMP/step"
  if expect_ok train --mixer attention --dump-step "$TMP/step" "${skit_args[@]}"; then
    if "$PY" "$SCRIPT" "$TMP/step" "${py_args[@]}" > "$TMP/torch.txt" 2>&1; then pass
    else fail "$label: skit and PyTorch differ: $(grep -v ' ok$' "$TMP/torch.txt" | head -5)"; fi
  fi
}
run "causal rms tied" --n 16 --d 8 --batch 3 --layers 2 --vocab 6 --warmup 2 --steps 10 -- --n 16 --layers 2 --vocab 6
run "masked layer untied, clipped" --n 12 --d 6 --batch 2 --layers 1 --vocab 5 --objective masked --norm layer --untied \
  --clip 0.05 --weight-decay 0.1 -- --n 12 --layers 1 --vocab 5 --masked --norm layer --untied --clip 0.05 --weight-decay 0.1
run "causal, learned positions, odd width" --positions learned --n 16 --d 7 --batch 2 --layers 2 --vocab 6 --warmup 2 --steps 10 \
  -- --n 16 --layers 2 --vocab 6
run "masked, rope, odd width" --n 12 --d 7 --batch 2 --layers 1 --vocab 5 --objective masked -- --n 12 --layers 1 --vocab 5 --masked
run "causal, rope, 2 heads" --heads 2 --n 16 --d 8 --batch 2 --layers 2 --vocab 6 -- --n 16 --layers 2 --vocab 6 --heads 2
run "masked, learned, 3 heads of odd width" --heads 3 --positions learned --expand 3 --d 5 --n 12 --batch 2 --layers 1 --vocab 5 \
  --objective masked -- --n 12 --layers 1 --vocab 5 --masked --heads 3
run "causal, alibi, 2 heads" --positions alibi --heads 2 --n 16 --d 8 --batch 2 --layers 2 --vocab 6 \
  -- --n 16 --layers 2 --vocab 6 --heads 2 --alibi
run "masked, alibi, 3 heads, no GLU" --positions alibi --heads 3 --expand 3 --d 5 --glu 0 --n 12 --batch 2 \
  --layers 2 --vocab 5 --objective masked -- --n 12 --layers 2 --vocab 5 --masked --heads 3 --alibi
run "causal, rope, no GLU" --glu 0 --n 16 --d 8 --batch 2 --layers 2 --vocab 6 -- --n 16 --layers 2 --vocab 6
finish
