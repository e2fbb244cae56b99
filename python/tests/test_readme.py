"""The README's Python examples run as written (no stale quick start)."""
import os
import re

import pytest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def _blocks():
    if not os.path.exists(README):
        return []
    text = open(README).read()
    start = text.find("## From Python")
    section = text[start:text.find("\n## ", start + 1)] if start >= 0 else ""
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_readme_example(index, capsys):
    code = _blocks()[index]
    if "torch" in code:
        pytest.importorskip("torch")
    exec(compile(code, f"README.md python block {index}", "exec"), {})
