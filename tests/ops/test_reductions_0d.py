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


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_and_min_over_dim_0_of_a_0_dim_tensor_give_a_new_tensor_as_torch(name, keepdim):
    """The values are a tensor of their own whose grad_fn is the op's node (no view of the input): a hook on them,
    then an in-place change, sees the gradient as in PyTorch (found by the differential fuzzer, seed 8012655, where
    ours were a view and the hook was lost)."""
    results = []
    for m in (al, torch):
        x = m.tensor(2.0, dtype=m.float64, requires_grad=True)
        values, indices = getattr(x, name)(0, keepdim=keepdim)
        node = values.grad_fn.name()
        values.register_hook(lambda g: g * -1.0)
        values.mul_(3.0)
        (values * 1.5).backward()
        results.append((node, tuple(values.shape), indices.tolist(), values.item(), x.item(), x.grad.item()))
    assert results[0] == results[1]
