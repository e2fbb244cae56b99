import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator

import skit
from skit import spectral
from conftest import rel


@pytest.mark.parametrize("m,n", [(1, 1), (5, 3), (3, 7), (31, 31)])
def test_svd_family(rng, m, n):
    a = rng.standard_normal((m, n))
    u, s, vt = spectral.svd(a)
    assert rel(s, np.linalg.svd(a, compute_uv=False)) < 1e-13
    assert rel(u * s @ vt, a) < 1e-13
    assert abs(spectral.spectral_norm(a) - s[0]) < 1e-13 * s[0]
    assert abs(spectral.condition_number(a) - s[0] / s[-1]) < 1e-10 * s[0] / s[-1]
    p, rank = spectral.pinv(a)
    assert rank == min(m, n) and rel(p, np.linalg.pinv(a)) < 1e-10
    r = max(min(m, n) - 1, 0)
    ar, nxt = spectral.svd_truncate(a, r)
    assert abs(np.linalg.norm(a - ar, 2) - nxt) < 1e-12 * s[0]


def test_lanczos_on_an_operator(rng):
    a = rng.standard_normal((40, 25))
    op = aslinearoperator(a)
    norm, iters = spectral.spectral_norm_lanczos(op.matvec, op.rmatvec, op.shape)
    assert abs(norm - np.linalg.norm(a, 2)) < 1e-9 * norm and iters >= 1

    def broken(x):
        raise KeyError("from the callback")
    with pytest.raises(KeyError, match="callback"):
        spectral.spectral_norm_lanczos(broken, op.rmatvec, op.shape)
