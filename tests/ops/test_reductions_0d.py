"""Reductions over ``dim`` 0 / -1 of a 0-dim tensor, and variance without degrees of freedom, as in PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

REDUCTIONS = {
    "sum": lambda m, x, d: x.sum(d), "mean": lambda m, x, d: x.mean(d), "amax": lambda m, x, d: x.amax(d),
    "logsumexp": lambda m, x, d: x.logsumexp(d), "norm": lambda m, x, d: x.norm(dim=d),
    "prod": lambda m, x, d: x.prod(d if isinstance(d, int) else d[0]),
    "var": lambda m, x, d: x.var(d), "std": lambda m, x, d: x.std(d),
}


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dim", [0, -1, (0,)], ids=str)
@pytest.mark.parametrize("value", [3.0, [2.5]], ids=["0-dim", "one element"])
def test_reducing_a_single_value_matches_torch(name, dim, value):
    results = []
    for m in (al, torch):
        x = m.tensor(value, dtype=m.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns where var has no degrees of freedom
            y = REDUCTIONS[name](m, x, dim)
            y.sum().backward()
        results.append((tuple(y.shape), np.asarray(y.tolist()), np.asarray(x.grad.tolist())))
    (shape, value_ours, grad_ours), (tshape, value_torch, grad_torch) = results
    assert shape == tshape
    np.testing.assert_allclose(value_ours, value_torch, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(grad_ours, grad_torch, rtol=1e-12, equal_nan=True)


def test_a_0_dim_tensor_still_refuses_other_dims():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"):
        al.tensor(3.0).sum(1)
