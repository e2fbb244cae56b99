"""python/examples/causal_lm.py at a tiny size: for each skit mixer, the
first step's loss and gradients equal those of the same model built from
PyTorch operators, and a few steps of training lower the loss. The check
must be able to fail: with the twin's causal mask dropped it exits 1."""
import importlib
import os
import sys

import pytest

pytest.importorskip("torch")
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
TEXT = "/usr/share/common-licenses/GPL-3"


def _example():
    sys.path.insert(0, EXAMPLES)
    try:
        return importlib.import_module("causal_lm"), importlib.import_module("torch_mixers")
    finally:
        sys.path.remove(EXAMPLES)


def _text(tmp_path):
    if os.path.exists(TEXT):
        return TEXT
    path = tmp_path / "text.txt"  # a corpus of its own where base-files' is missing
    path.write_bytes(b"".join(b"line %d of a small corpus for the example\n" % i for i in range(400)))
    return str(path)


@pytest.mark.parametrize("mixer", ["tno", "fd", "ski"])
def test_causal_lm_matches_torch_and_trains(tmp_path, capsys, mixer):
    lm, _ = _example()
    args = ["--mixer", mixer, "--n", "20", "--d", "8", "--layers", "2", "--batch", "4", "--steps", "30",
            "--text", _text(tmp_path)]
    assert lm.main(args) == 0
    out = capsys.readouterr().out
    losses = [float(line.split("train loss ")[1].split()[0]) for line in out.splitlines() if "train loss" in line]
    assert losses[-1] < losses[0], out
    assert lm.main(args + ["--dtype", "float32", "--steps", "5"]) == 0


def test_causal_lm_check_can_fail(tmp_path, monkeypatch):
    lm, mixers = _example()
    original = mixers.apply
    monkeypatch.setattr(mixers, "apply", lambda T, x, causal: original(T, x, False))  # the twin sees the future
    assert lm.main(["--mixer", "tno", "--n", "12", "--d", "4", "--layers", "1", "--batch", "2",
                    "--steps", "1", "--text", _text(tmp_path)]) == 1
