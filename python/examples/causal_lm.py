#!/usr/bin/env python3
"""A small causal byte-level language model whose token mixer is skit's
(skit.torch.TNOPlanModule over a causal skit.TNOPlan: TNO, FD-TNO or
SKI-TNO), trained with AdamW on the text `skit train --task text` uses.

Before training it builds the same model from PyTorch operators alone
(torch_mixers.py: each mixer's dense operator from the same parameters),
computes the first batch's loss and gradients with both, and exits 1
unless they agree to rounding (float64). Then it trains the skit model
and prints the training loss and, at the end, the validation loss.

  python3 causal_lm.py --mixer tno --steps 300
  python3 causal_lm.py --mixer ski --n 128 --d 64 --dtype float32

Model: byte embedding (256 x d), `layers` blocks of [RMS norm, token
mixer, residual; RMS norm, Linear(d, 2d), GELU, Linear(2d, d),
residual], RMS norm, Linear(d, 256). Data: the bytes of --text, the
first 90 % for training, the rest for validation (as skit train);
windows of n + 1 bytes drawn with the seed."""
import argparse
import os
import sys
import time

import numpy as np
import torch

import skit
import skit.torch as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_mixers  # noqa: E402

MIXER_SETTINGS = {  # skit_tno_options fields; the pure mixers read the same
    "tno": dict(rpe_width=16, rpe_layers=1, decay=0.99, norm="rms", activation="relu"),
    "fd": dict(rpe_width=16, rpe_layers=1, norm="rms", activation="relu"),
    "ski": dict(rank=16, taps=5, knots=8, decay=0.99),
}


def rms(x):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5)


class SkitMixer(torch.nn.Module):
    """The token mixer as skit runs it (forward and backward in libskit)."""

    def __init__(self, kind, n, d, dtype, seed):
        super().__init__()
        plan = skit.TNOPlan(n, d, kind=kind, causal=True, seed=seed,
                            dtype=np.float32 if dtype == torch.float32 else np.float64,
                            **MIXER_SETTINGS[kind])
        self.module = st.TNOPlanModule(plan, learn_decay=True)

    def forward(self, x):
        return self.module(x)


class TorchMixer(torch.nn.Module):
    """The same mixer from PyTorch operators (torch_mixers.py)."""

    def __init__(self, kind, params, decay_logit):
        super().__init__()
        self.kind = kind
        self.params = torch.nn.Parameter(params.detach().clone())
        self.decay_logit = None if decay_logit is None else torch.nn.Parameter(decay_logit.detach().clone())

    def forward(self, x):
        n, d = x.shape[-2:]
        s = MIXER_SETTINGS[self.kind]
        decay = torch.tensor(s.get("decay", 1.0)) if self.decay_logit is None else torch.sigmoid(self.decay_logit)
        if self.kind == "tno":
            T = torch_mixers.tno_operator(self.params, decay, n, d, s["rpe_width"], s["rpe_layers"])
        elif self.kind == "fd":
            T = torch_mixers.fd_operator(self.params, n, d, s["rpe_width"], s["rpe_layers"], True)
        else:
            T = torch_mixers.ski_operator(self.params, s["decay"], n, d, s["rank"], s["taps"], s["knots"])
        return torch_mixers.apply(T.to(x.dtype), x, causal=True)


class LM(torch.nn.Module):
    def __init__(self, mixers, d, dtype):
        super().__init__()
        self.embed = torch.nn.Embedding(256, d, dtype=dtype)
        self.mixers = torch.nn.ModuleList(mixers)
        self.mlps = torch.nn.ModuleList(torch.nn.Sequential(
            torch.nn.Linear(d, 2 * d, dtype=dtype), torch.nn.GELU(), torch.nn.Linear(2 * d, d, dtype=dtype))
            for _ in mixers)
        self.head = torch.nn.Linear(d, 256, dtype=dtype)

    def forward(self, tokens):
        h = self.embed(tokens)
        for mixer, mlp in zip(self.mixers, self.mlps):
            h = h + mixer(rms(h))
            h = h + mlp(rms(h))
        return self.head(rms(h))


def loss_of(model, batch):
    logits = model(batch[:, :-1])
    return torch.nn.functional.cross_entropy(logits.reshape(-1, 256), batch[:, 1:].reshape(-1))


def windows(data, n, batch, gen):
    start = torch.randint(0, len(data) - n - 1, (batch,), generator=gen)
    return torch.stack([data[s:s + n + 1] for s in start.tolist()])


def torch_twin(model, kind, d, dtype):
    """The model with every skit mixer replaced by its PyTorch-operator twin
    holding the same parameters; every other weight copied."""
    mixers = [TorchMixer(kind, m.module.params, m.module.decay_logit) for m in model.mixers]
    twin = LM(mixers, d, dtype)
    own = {k: v for k, v in model.state_dict().items() if not k.startswith("mixers.")}
    twin.load_state_dict(own, strict=False)
    return twin


def check_first_step(model, twin, batch):
    """(loss difference, worst gradient difference) of the two models, both
    relative to their scale."""
    a, b = loss_of(model, batch), loss_of(twin, batch)
    a.backward()
    b.backward()
    loss_diff = abs(a.item() - b.item()) / abs(b.item())
    grads = dict(twin.named_parameters())
    worst = 0.0
    for name, p in model.named_parameters():
        q = grads[name.replace("module.", "")]
        scale = float(q.grad.abs().max()) or 1.0
        worst = max(worst, float((p.grad.double() - q.grad.double()).abs().max()) / scale)
    return a.item(), loss_diff, worst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mixer", choices=sorted(MIXER_SETTINGS), default="tno")
    ap.add_argument("--n", type=int, default=64, help="context length (default 64)")
    ap.add_argument("--d", type=int, default=32, help="width (default 32)")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64",
                    help="training precision (the first-step check always runs in float64)")
    ap.add_argument("--text", default="/usr/share/common-licenses/GPL-3",
                    help="the corpus (default: skit train's, from Debian's base-files)")
    ap.add_argument("--tolerance", type=float, default=1e-10,
                    help="largest relative loss and gradient difference at step 1 (default 1e-10)")
    a = ap.parse_args(argv)
    data = torch.tensor(np.frombuffer(open(a.text, "rb").read(), dtype=np.uint8).astype(np.int64))
    if len(data) < 10 * (a.n + 2):
        sys.exit(f"causal_lm: --text {a.text} has {len(data)} bytes: too short for n = {a.n}")
    split = len(data) * 9 // 10
    train, valid = data[:split], data[split:]

    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed)
    first = windows(train, a.n, a.batch, gen)
    # the check, in float64: the skit model against its PyTorch-operator twin
    model = LM([SkitMixer(a.mixer, a.n, a.d, torch.float64, a.seed + i) for i in range(a.layers)],
               a.d, torch.float64)
    twin = torch_twin(model, a.mixer, a.d, torch.float64)
    loss0, loss_diff, grad_diff = check_first_step(model, twin, first)
    print(f"step 1: loss {loss0:.6f}; skit vs PyTorch operators: loss differs by {loss_diff:.2e}, "
          f"gradients by {grad_diff:.2e} (relative)")
    if not (loss_diff <= a.tolerance and grad_diff <= 1e3 * a.tolerance):
        print(f"causal_lm: the skit model and its PyTorch twin disagree beyond {a.tolerance:g}",
              file=sys.stderr)
        return 1

    dtype = torch.float32 if a.dtype == "float32" else torch.float64
    if dtype != torch.float64:  # a fresh model in float32, the mixers on float32 plans
        torch.manual_seed(a.seed)
        model = LM([SkitMixer(a.mixer, a.n, a.d, dtype, a.seed + i) for i in range(a.layers)], a.d, dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    t0 = time.perf_counter()
    for step in range(1, a.steps + 1):
        batch = first if step == 1 else windows(train, a.n, a.batch, gen)
        opt.zero_grad()
        loss = loss_of(model, batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step == 1 or step % 50 == 0 or step == a.steps:
            print(f"step {step}: train loss {loss.item():.4f} ({time.perf_counter() - t0:.1f} s)")
    with torch.no_grad():
        vgen = torch.Generator().manual_seed(a.seed + 1)
        v = sum(loss_of(model, windows(valid, a.n, a.batch, vgen)).item() for _ in range(8)) / 8
    print(f"validation loss {v:.4f} (uniform bytes: {np.log(256):.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
