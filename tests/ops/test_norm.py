"""``Tensor.norm``: PyTorch's ``LinalgVectorNormBackward0`` node, values and gradients, every kind of ``ord``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

ORDS = [2, 1, 3, 0.5, -1, -2.5, float("inf"), float("-inf"), 0]
DIMS = [None, 0, 1, -1, (0, 1), (1, 0)]


def with_zero_rows(rng):
    values = rng.uniform(-1.5, 1.5, (3, 4))
    values[1] = 0.0  # a zero row: a zero norm, and zeros for negative orders
    values[2, 0] = 0.0
    return values


@pytest.mark.parametrize("p", ORDS, ids=str)
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_values_gradients_and_node_match_torch(p, dim, keepdim):
    values = with_zero_rows(np.random.default_rng(7))
    x = al.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch is silent about the zeros; so must we be
        y = x.norm(p=p, dim=dim, keepdim=keepdim)
        (y * al.tensor(np.arange(1.0, 1.0 + y.numel()).reshape(tuple(y.shape)))).sum().backward()
    ty = t.norm(p=p, dim=dim, keepdim=keepdim)
    (ty * torch.arange(1.0, 1.0 + ty.numel(), dtype=torch.float64).reshape(ty.shape)).sum().backward()
    assert y.grad_fn.name() == ty.grad_fn.name() == "LinalgVectorNormBackward0"
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    if p == 0:  # a count of non-zeros: no gradient flows at all
        assert x.grad is None and t.grad is None
    else:
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert y.grad_fn._saved_ord == ty.grad_fn._saved_ord and y.grad_fn._saved_keepdim == keepdim


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, -1.5, float("inf")], ids=str)
@pytest.mark.parametrize("dim", [None, 1])
def test_gradcheck_and_gradgradcheck_away_from_kinks(p, dim):
    rng = np.random.default_rng(3)
    values = rng.uniform(0.3, 1.5, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))
    values[0, 0] = 2.0  # one clear maximum per row for inf
    x = al.tensor(values, requires_grad=True)
    assert gradcheck(lambda a: a.norm(p=p, dim=dim), (x,))
    if p != float("inf"):
        assert gradgradcheck(lambda a: a.norm(p=p, dim=dim), (x,))


def test_saved_dim_reads_like_torch():
    x = al.ones(2, 3, requires_grad=True)
    assert x.norm().grad_fn._saved_dim is None
    assert x.norm(dim=1).grad_fn._saved_dim == (1,)
    assert x.norm(dim=[0, 1]).grad_fn._saved_dim == (0, 1)


def test_bad_input_is_refused_with_torchs_errors():
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        al.tensor([1, 2]).norm()
    with pytest.raises(IndexError, match="Dimension out of range"):
        al.ones(2, 3).norm(dim=2)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        al.ones(2, 3).norm(dim=(1, 1))
