"""skit from Python: a thin ctypes binding over the installed libskit.

numpy arrays in and out (shape (..., n, d), leading batch axes looped
over, zero-copy where the C layout allows: see skit._array); plans are
objects with __call__, close(), `with` and garbage collection; the GIL is
released during every C call; errors raise skit.Error subclasses that are
also ValueError / MemoryError / RuntimeError / NotImplementedError /
OSError, carrying skit's one-line message. skit.torch (imported separately)
wraps the operators as torch.autograd.Functions.
"""
from ._errors import (ComputationFailed, Error, FileError, InvalidInput, OutOfMemory,
                      Unsupported)
from ._lib import device_available, fft_good_length, has, path as library_path, version
from . import attention, freq, mlp, ski, spectral, tno, toeplitz
from .attention import AttentionPlan, attention as exact_attention, mra2
from .freq import FDTNOPlan, hilbert
from .mlp import MLP
from .ski import InterpWeights, Kernel, NystromPlan, SKIPlan, Theorem1
from .spectral import spectral_norm, svd
from .tno import TNOPlan
from .toeplitz import (ToeplitzPlan, from_scipy, matmul_toeplitz, solve, solve_spd,
                       solve_toeplitz, SolveInfo)

__all__ = ["AttentionPlan", "ComputationFailed", "device_available", "Error", "FDTNOPlan", "FileError",
           "InterpWeights", "InvalidInput", "Kernel", "MLP", "NystromPlan", "OutOfMemory",
           "SKIPlan", "TNOPlan", "Theorem1", "ToeplitzPlan", "Unsupported", "attention",
           "exact_attention", "fft_good_length", "freq", "from_scipy", "has", "hilbert", "library_path",
           "matmul_toeplitz", "mlp", "mra2", "ski", "solve", "solve_spd", "solve_toeplitz", "SolveInfo",
           "spectral", "spectral_norm", "svd", "tno", "toeplitz", "version"]
__version__ = "0.1.0"
