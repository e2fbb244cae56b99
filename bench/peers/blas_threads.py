"""blas_threads.py -- one thread count for PyTorch and the BLAS under it.

Debian's python3-torch calls the system BLAS (OpenBLAS, pthread build), and
torch.set_num_threads sets only OpenMP's count: OpenBLAS keeps its own pool
of every core, so a "one thread" PyTorch run multiplies its matrices on all
of them. set_threads sets both; the peers call it wherever they set torch's.
"""
import ctypes

import torch


def _openblas_libraries():
    """The loaded libraries that export openblas_set_num_threads."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if path.startswith("/") and ("blas" in path or "lapack" in path):
                paths.add(path)
    found = []
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
            found.append((lib.openblas_set_num_threads, lib.openblas_get_num_threads))
        except (OSError, AttributeError):
            continue
    return found


def set_threads(count):
    """torch's and OpenBLAS's thread counts to count; returns OpenBLAS's
    count afterwards (None when no OpenBLAS is loaded)."""
    torch.set_num_threads(count)
    after = None
    for set_count, get_count in _openblas_libraries():
        set_count(ctypes.c_int(count))
        after = get_count()
    return after
