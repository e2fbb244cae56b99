"""The ctypes mirrors of skit's public structs against the C headers:
size and every field's offset, from a C program compiled against lib/.
Catches a field added to a header but not to the binding."""
import ctypes
import os
import shutil
import subprocess

import pytest

from skit import attention, freq, ski, tno, toeplitz

HEADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib")
STRUCTS = {
    "skit_toeplitz_options": toeplitz._ToeplitzOptions,
    "skit_interp_options": ski._InterpOptions,
    "skit_derivative_bound": ski._Bound,
    "skit_theorem1_terms": ski._Theorem1Terms,
    "skit_decay_fit": freq._DecayFit,
    "skit_tno_options": tno._TNOOptions,
    "skit_attention_options": attention._Options,
    "skit_attention_stats": attention._Stats,
    "skit_attention_mask": attention._Mask,
    "skit_mra_lemma41": attention._Lemma41,
    "skit_mra_prop45": attention._Prop45,
    "skit_attention_synthetic": attention._Synthetic,
    "skit_sparse_lowrank_errors": ski._SparseLowRankErrors,
    "skit_nystrom_options": ski._NystromOptions,
    "skit_sparse_lowrank_options": ski._SparseLowRankOptions,
}


def test_struct_layouts(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc").split()[0])
    if cc is None or not os.path.isdir(HEADERS):
        pytest.skip("no C compiler or no source tree headers")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "skit.h"', 'int main(void) {']
    for name, mirror in STRUCTS.items():
        lines.append(f'printf("{name} %zu\\n", sizeof({name}));')
        for field, _ in mirror._fields_:
            lines.append(f'printf("{name}.{field} %zu\\n", offsetof({name}, {field}));')
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([cc, "-I", HEADERS, str(src), "-o", str(exe)], check=True)
    c_side = dict(line.rsplit(" ", 1) for line in
                  subprocess.run([str(exe)], capture_output=True, text=True,
                                 check=True).stdout.splitlines())
    for name, mirror in STRUCTS.items():
        assert int(c_side[name]) == ctypes.sizeof(mirror), f"sizeof({name})"
        for field, _ in mirror._fields_:
            assert int(c_side[f"{name}.{field}"]) == getattr(mirror, field).offset, \
                f"{name}.{field}"
