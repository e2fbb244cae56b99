#!/usr/bin/python3
"""train_torch_step.py DIR -- repeat the training step `skit train --dump-step
DIR --mixer attention` took, in PyTorch (float64): the same model from
DIR/before/*.npy, the batch of DIR/batch.npy; compare the loss, every
gradient (DIR/gradients) and the parameters after clipping and AdamW
(DIR/after), as llm.c's test_gpt2 does. Settings come from the command line
of the C run: --causal/--masked, --norm, --tied, --heads, --alibi, lr,
weight decay, clip; no layerL.glu.* arrays: --glu 0.
Exit 0 if all agree to 1e-9 (relative to each array's scale), 1 if not,
77 (skipped) without torch."""
import argparse
import os
import sys

try:
    import numpy as np
    import torch
except ImportError:
    print("torch or numpy not importable: skipped")
    sys.exit(77)

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--n", type=int, required=True)
ap.add_argument("--layers", type=int, required=True)
ap.add_argument("--vocab", type=int, required=True, help="classes the head predicts")
ap.add_argument("--masked", action="store_true")
ap.add_argument("--norm", default="rms")
ap.add_argument("--untied", action="store_true")
ap.add_argument("--weight-decay", type=float, default=0.01)
ap.add_argument("--clip", type=float, default=1.0)
ap.add_argument("--heads", type=int, default=1)
ap.add_argument("--alibi", action="store_true", help="ALiBi biases (skit train --positions alibi)")
a = ap.parse_args()
torch.set_default_dtype(torch.float64)


def load(sub):
    d = os.path.join(a.dir, sub)
    return {f[:-4]: torch.tensor(np.load(os.path.join(d, f))) for f in os.listdir(d) if f.endswith(".npy")}


P = {k: v.clone().requires_grad_(True) for k, v in load("before").items()}
batch = np.load(os.path.join(a.dir, "batch.npy"))
loss_c, lr, _ = np.load(os.path.join(a.dir, "scalars.npy"))
inputs = torch.tensor(batch[:, 0].astype(np.int64))
targets = torch.tensor(batch[:, 1].astype(np.int64))
weights = torch.tensor(batch[:, 2])
R, n = len(inputs), a.n
B = R // n


def norm(x):
    if a.norm == "layer":
        x = x - x.mean(-1, keepdim=True)
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5)


def rope(t):
    """RoFormer's rotary positions: pairs (2c, 2c+1) of (..., n, e) turned by i 10000^(-2c/e)."""
    e = t.shape[-1]
    c = torch.arange(e // 2, dtype=torch.float64)
    angle = torch.arange(n, dtype=torch.float64)[:, None] * 10000.0 ** (-2 * c / e)
    cos, sin = torch.cos(angle), torch.sin(angle)
    a, b = t[..., 0 : 2 * (e // 2) : 2], t[..., 1 : 2 * (e // 2) : 2]
    out = t.clone()
    out[..., 0 : 2 * (e // 2) : 2] = a * cos - b * sin
    out[..., 1 : 2 * (e // 2) : 2] = a * sin + b * cos
    return out


silu = torch.nn.functional.silu
learned = "position" in P  # else rotary positions (skit train --positions rope) or ALiBi


def alibi(H):
    """Press et al.'s bias -m_h |i - j|, m_h = 2^(-8 (h+1) / H), as (H, n, n)."""
    slopes = 2.0 ** (-8.0 * torch.arange(1, H + 1, dtype=torch.float64) / H)
    distance = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).abs().to(torch.float64)
    return -slopes[:, None, None] * distance


x = P["embedding"][inputs] + (P["position"][torch.arange(R) % n] if learned else 0)
for l in range(a.layers):
    w = lambda name: P["layer%d.%s" % (l, name)]
    h = norm(x)
    u, v = silu(h @ w("gtu.wu").T), silu(h @ w("gtu.wv").T)
    e = v.shape[1]
    H = a.heads
    hw = e // H  # (B, n, e) -> (B, H, n, hw): head h has channels h hw .. (h+1) hw - 1
    heads = lambda t: t.view(B, n, H, hw).transpose(1, 2)  # noqa: E731
    q, k = heads(v @ w("mixer.wq").T), heads(v @ w("mixer.wk").T)
    if not learned and not a.alibi:
        q, k = rope(q), rope(k)
    logits = q @ k.transpose(-1, -2) / hw**0.5 + (alibi(H) if a.alibi else 0)
    if not a.masked:
        logits = logits.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    mix = (torch.softmax(logits, -1) @ heads(v)).transpose(1, 2).reshape(R, e)
    x = x + (u * mix) @ w("gtu.wo").T
    if "layer%d.glu.w1" % l not in P:  # skit train --glu 0: no GLU
        continue
    h = norm(x)
    x = x + (silu(h @ w("glu.w1").T) * (h @ w("glu.w2").T)) @ w("glu.w3").T
head = P["head"] if a.untied else P["embedding"][: a.vocab]
z = norm(x) @ head.T
nll = torch.nn.functional.cross_entropy(z, targets, reduction="none")
loss = (nll * weights).sum() / weights.sum()
loss.backward()

failures = 0


def compare(what, mine, ref):
    global failures
    err = float((mine - ref).abs().max() / max(float(ref.abs().max()), 1e-300))
    ok = err <= 1e-9
    failures += not ok
    print("%-24s %.3g %s" % (what, err, "ok" if ok else "FAILED"))


compare("loss", torch.tensor(float(loss_c)), loss.detach())
grads = load("gradients")
for name in sorted(P):
    compare("grad " + name, grads[name], P[name].grad)
torch.nn.utils.clip_grad_norm_(P.values(), a.clip)
opt = torch.optim.AdamW(P.values(), lr=float(lr), betas=(0.9, 0.999), eps=1e-8, weight_decay=a.weight_decay)
opt.step()
after = load("after")
for name in sorted(P):
    compare("after " + name, after[name], P[name].detach())
sys.exit(1 if failures else 0)
